/* src/core/biglock.c — the hooks through which p2p's waits let other threads of the process in
 * (yields and sleeps drop the big lock, spinning holders hand it over), and turning the lock on. */
#include <sched.h>

#include "base/base.h"
#include "core/biglock.h"
#include "p2p/p2p.h"

/* A holder that spins for an arrival hands the lock to a blocked thread at most this long: the
 * blocked one must be woken and scheduled first (a cross-CPU futex wake-up costs tens of
 * microseconds on some VMs), and if it has not taken the lock by then it gets the next chance. */
enum { HANDOVER_SPINS = 100, HANDOVER_MAX_NS = 200000 };

static int lock_drop(void)
{
    int held = credo_lock_depth;
    credo_lock_depth = 0;
    if (credo_lock_on & CREDO_LOCK_FOR_THREADS)
        p2p_wake_local_sleepers();
    for (int i = 0; i < held; i++)
        pthread_mutex_unlock(&credo_lock);
    return held;
}

static void lock_take(int held)
{
    if (held <= 0)
        return;
    if (pthread_mutex_trylock(&credo_lock) != 0)
        credo_lock_slow();
    for (int i = 1; i < held; i++)
        pthread_mutex_lock(&credo_lock); /* recursive: returns at once */
    credo_lock_depth = held;
}

/* Spin phase of a wait under MPI_THREAD_MULTIPLE: if a thread blocks on the lock, let go until it
 * has taken it (or the bound passes), so one thread's wait never holds up another's call. */
static void lock_yield(void)
{
    if (atomic_load_explicit(&credo_lock_waiters, memory_order_relaxed) == 0)
        return;
    unsigned before = atomic_load_explicit(&credo_lock_handovers, memory_order_relaxed);
    int held = lock_drop();
    uint64_t t0 = 0;
    for (unsigned i = 0; atomic_load_explicit(&credo_lock_handovers, memory_order_relaxed) == before &&
                         atomic_load_explicit(&credo_lock_waiters, memory_order_relaxed) != 0;
         i++) {
        if (i < HANDOVER_SPINS) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
            continue;
        }
        uint64_t t = credo_now_ns();
        if (!t0)
            t0 = t;
        else if (t - t0 > HANDOVER_MAX_NS)
            break;
        sched_yield();
    }
    lock_take(held);
}

void credo_lock_set(int why, int on)
{
    if (on)
        credo_lock_on |= why;
    else
        credo_lock_on &= ~why;
    int threads = (credo_lock_on & CREDO_LOCK_FOR_THREADS) != 0;
    int rt = (credo_lock_on & CREDO_LOCK_FOR_PT_RT) != 0;
    credo_lock_release_hook = threads ? p2p_wake_local_sleepers : NULL;
    if (!threads && !rt) {
        /* the ordinary progress thread only polls while the application computes: a waiting
         * application thread keeps the lock (docs/GOAL.md §4) */
        p2p_set_lock_hooks(NULL);
        return;
    }
    p2p_lock_hooks h = {lock_drop, lock_take, threads ? lock_yield : NULL, rt};
    p2p_set_lock_hooks(&h);
}
