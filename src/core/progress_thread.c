/* src/core/progress_thread.c — the optional background progress thread: drives p2p_progress (and
 * with it GOAL schedules) under the big lock while the application computes. */
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "core/config.h"
#include "core/progress_thread.h"
#include "p2p/p2p.h"

int credo_pt_active;
/* Recursive: MPI bindings call other bindings (PMPI aliases, internal collectives). */
pthread_mutex_t credo_pt_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

static pthread_t pt_thread;
static atomic_int pt_stop;

/* Idle policy: a few polls back to back, then yields, then ~75 us sleeps. The thread never blocks
 * on the lock (trylock): an application thread inside MPI is progressing already. */
enum { PT_SPIN = 16, PT_YIELD = 64, PT_SLEEP_NS = 75000 };

static void *pt_main(void *arg)
{
    unsigned idle = 0;
    while (!atomic_load_explicit(&pt_stop, memory_order_relaxed)) {
        int events = 0;
        if (pthread_mutex_trylock(&credo_pt_lock) == 0) {
            events = p2p_progress();
            pthread_mutex_unlock(&credo_pt_lock);
        }
        if (events > 0) {
            idle = 0;
            continue;
        }
        idle++;
        if (idle < PT_SPIN)
            continue;
        if (idle < PT_YIELD) {
            sched_yield();
            continue;
        }
        struct timespec ts = {0, PT_SLEEP_NS};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

int credo_progress_thread_start(void)
{
    if (!credo_cfg.progress_thread || credo_pt_active)
        return 0;
    atomic_store(&pt_stop, 0);
    if (pthread_create(&pt_thread, NULL, pt_main, NULL) != 0)
        return -1;
    credo_pt_active = 1;
    return 0;
}

void credo_progress_thread_stop(void)
{
    if (!credo_pt_active)
        return;
    atomic_store(&pt_stop, 1);
    pthread_join(pt_thread, NULL);
    credo_pt_active = 0;
}
