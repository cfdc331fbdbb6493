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

/* p2p is not thread-safe. With CREDO_PROGRESS_THREAD=1 a background thread drives p2p_progress,
 * so every API entry point that can reach p2p (MPI bindings, the GOAL run calls) holds one recursive
 * lock for its whole body (recursive: bindings call each other, e.g. through PMPI).
 * CREDO_PT_ENTER declares a scope guard; with the thread off it costs one predictable branch on a
 * plain global and no atomic op. */
static inline void credo_pt_leave_(int *locked)
{
    if (__builtin_expect(*locked, 0)) {
        credo_pt_depth--;
        pthread_mutex_unlock(&credo_pt_lock);
    }
}
static inline int credo_pt_enter_(void)
{
    if (__builtin_expect(credo_pt_active, 0)) {
        pthread_mutex_lock(&credo_pt_lock);
        credo_pt_depth++;
        return 1;
    }
    return 0;
}
#define CREDO_PT_ENTER() int credo_pt_locked_ __attribute__((cleanup(credo_pt_leave_), unused)) = credo_pt_enter_()

/* Starts the thread if CREDO_PROGRESS_THREAD=1 (after credo_init); 0 or -1. */
int credo_progress_thread_start(void);
/* Stops and joins it (before teardown); no-op if it is not running. */
void credo_progress_thread_stop(void);

#endif
