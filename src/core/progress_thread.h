/* src/core/progress_thread.h — the optional background progress thread (CREDO_PROGRESS_THREAD)
 * and its idle policies. */
#ifndef CREDO_PROGRESS_THREAD_H
#define CREDO_PROGRESS_THREAD_H

#include "core/biglock.h"

/* The thread shares p2p with the application under the big lock (core/biglock.h). */
/* Starts the thread if CREDO_PROGRESS_THREAD=1 (after credo_init); 0 or -1. */
int credo_progress_thread_start(void);
/* Stops and joins it (before teardown); no-op if it is not running. */
void credo_progress_thread_stop(void);

#endif
