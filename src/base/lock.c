/* src/base/lock.c — the big lock's state and its slow paths (a blocked acquisition, the outermost
 * release); turning it on and the hooks into p2p's waits are the runtime's (src/core/biglock.c). */
#include "base/lock.h"

int credo_lock_on;
pthread_mutex_t credo_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
int credo_lock_depth;
atomic_uint credo_lock_waiters;
atomic_uint credo_lock_handovers;
void (*credo_lock_release_hook)(void);

void credo_lock_slow(void)
{
    /* relaxed: the counters are hints for a spinning holder; the mutex orders everything else */
    atomic_fetch_add_explicit(&credo_lock_waiters, 1, memory_order_relaxed);
    pthread_mutex_lock(&credo_lock);
    atomic_fetch_sub_explicit(&credo_lock_waiters, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&credo_lock_handovers, 1, memory_order_relaxed);
}

/* The outermost leave: a thread that sleeps in a wait of its own may be waiting for what this
 * call completed, and nobody else would ring it. */
void credo_lock_release_last(void)
{
    credo_lock_depth = 0;
    if ((credo_lock_on & CREDO_LOCK_FOR_THREADS) && credo_lock_release_hook)
        credo_lock_release_hook();
    pthread_mutex_unlock(&credo_lock);
}
