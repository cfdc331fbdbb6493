/* src/core/progress_thread.c — the optional background progress thread: drives p2p_progress (and
 * with it GOAL schedules) under the big lock while the application computes. */
#include <stdatomic.h>
#include <sys/prctl.h>
#include <time.h>

#include "core/config.h"
#include "core/progress_thread.h"
#include "goal/goal_exec.h"
#include "p2p/p2p.h"

int credo_pt_active;
/* Recursive: MPI bindings call other bindings (PMPI aliases, internal collectives). */
pthread_mutex_t credo_pt_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

static pthread_t pt_thread;
static atomic_int pt_stop;

/* Idle policy. After a few empty polls the thread sleeps; it never sched_yield()s: on CFS a yield
 * hands the core to the computing application thread for the rest of its slice (milliseconds), so a
 * yielding thread progresses in slice-sized steps, while a timed sleep's hrtimer wake-up preempts the
 * computation within microseconds and costs it only the poll. Sleeps are short while a non-blocking
 * collective is in flight (its next step may be ready any moment) and longer otherwise, with timer
 * slack cut to 1 us so a 20 us sleep is not stretched to the default 50 us slack.
 * The thread never blocks on the lock (trylock): an application thread inside MPI is progressing
 * already, and then the thread sleeps 200 us (PT_SLEEP_LOCKED_NS) rather than preempt it. */
enum { PT_SPIN = 16, PT_SLEEP_BUSY_NS = 20000, PT_SLEEP_IDLE_NS = 75000, PT_SLEEP_LOCKED_NS = 200000 };

static void *pt_main(void *arg)
{
    (void)arg;
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    unsigned idle = 0;
    while (!atomic_load_explicit(&pt_stop, memory_order_relaxed)) {
        int events = 0;
        if (pthread_mutex_trylock(&credo_pt_lock) == 0) {
            events = p2p_progress();
            pthread_mutex_unlock(&credo_pt_lock);
        } else {
            /* The application is inside MPI (a Wait, most likely) and progresses by itself. Each
             * wake-up of ours would only preempt it, since the thread shares its rank's CPU: with
             * the 20 us busy period a 1 MiB Iallreduce + Wait took 590-1180 us instead of 160-220
             * at np 2. So stay away longer. */
            struct timespec ts = {0, PT_SLEEP_LOCKED_NS};
            nanosleep(&ts, NULL);
            idle = 0;
            continue;
        }
        if (events > 0) {
            idle = 0;
            continue;
        }
        if (++idle < PT_SPIN)
            continue;
        struct timespec ts = {0, goal_exec_in_flight() ? PT_SLEEP_BUSY_NS : PT_SLEEP_IDLE_NS};
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
