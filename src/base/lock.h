/* src/base/lock.h — the one big lock that serializes p2p (and everything above it) between the
 * threads of a process: the progress thread's and, under MPI_THREAD_MULTIPLE, the application's. */
#ifndef CREDO_BASE_LOCK_H
#define CREDO_BASE_LOCK_H

#include <pthread.h>
#include <stdatomic.h>

/* Why the lock is on (bits of credo_lock_on): a progress thread runs (ordinary or real-time), or
 * the application asked for MPI_THREAD_MULTIPLE. Written only while no other thread can be inside the library (in
 * start-up and shut-down calls, and when the progress thread is started or joined), so a plain
 * int suffices; entry points read it without the lock. */
enum { CREDO_LOCK_FOR_PT = 1, CREDO_LOCK_FOR_PT_RT = 2, CREDO_LOCK_FOR_THREADS = 4 };
extern int credo_lock_on __attribute__((visibility("hidden")));
/* Recursive: MPI bindings call each other (PMPI aliases, internal collectives, user callbacks). */
extern pthread_mutex_t credo_lock __attribute__((visibility("hidden")));
/* How many times the holder holds credo_lock (only the holder reads or writes it). */
extern int credo_lock_depth __attribute__((visibility("hidden")));
/* Threads blocked in credo_lock_enter_, and how many acquisitions came after such a block: a
 * spinning holder hands over when the first is non-zero and waits for the second to move. */
extern atomic_uint credo_lock_waiters __attribute__((visibility("hidden")));
extern atomic_uint credo_lock_handovers __attribute__((visibility("hidden")));

void credo_lock_slow(void);
void credo_lock_release_last(void);
/* Called by the outermost leave while the lock is on for application threads (set by the runtime,
 * src/core/biglock.c: p2p wakes a thread of this process asleep in a wait of its own). */
extern void (*credo_lock_release_hook)(void) __attribute__((visibility("hidden")));

/* Every API entry point that can reach p2p (MPI bindings, the GOAL run calls, the statistics
 * readers) holds the lock for its whole body. CREDO_LOCK_ENTER declares a scope guard; with the
 * lock off it costs one predictable branch on a plain global and no atomic operation. */
static inline void credo_lock_leave_(int *locked)
{
    if (__builtin_expect(*locked, 0)) {
        if (credo_lock_depth == 1) {
            credo_lock_release_last();
            return;
        }
        credo_lock_depth--;
        pthread_mutex_unlock(&credo_lock);
    }
}
static inline int credo_lock_enter_(void)
{
    if (__builtin_expect(credo_lock_on, 0)) {
        if (pthread_mutex_trylock(&credo_lock) != 0)
            credo_lock_slow();
        credo_lock_depth++;
        return 1;
    }
    return 0;
}
#define CREDO_LOCK_ENTER()                                                                         \
    int credo_lock_held_ __attribute__((cleanup(credo_lock_leave_), unused)) = credo_lock_enter_()


#endif
