/* src/core/progress_thread.h — the optional background progress thread (CREDO_PROGRESS_THREAD)
 * and the one big lock that serializes p2p between it and the MPI entry points. */
#ifndef CREDO_PROGRESS_THREAD_H
#define CREDO_PROGRESS_THREAD_H

#include <pthread.h>

/* 1 while the thread runs: MPI entry points then take credo_pt_lock (recursive). Written only by
 * the application thread in MPI_Init/MPI_Finalize, so a plain int suffices. */
extern int credo_pt_active __attribute__((visibility("hidden")));
extern pthread_mutex_t credo_pt_lock __attribute__((visibility("hidden")));
/* How many times the application thread holds credo_pt_lock (only the holder reads or writes it). */
extern int credo_pt_depth __attribute__((visibility("hidden")));

/* Starts the thread if CREDO_PROGRESS_THREAD=1 (after credo_init); 0 or -1. */
int credo_progress_thread_start(void);
/* Stops and joins it (before teardown); no-op if it is not running. */
void credo_progress_thread_stop(void);

#endif
