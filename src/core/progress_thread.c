/* src/core/progress_thread.c — the optional background progress thread: drives p2p_progress (and
 * with it GOAL schedules) under the big lock while the application computes. */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <time.h>

#include "base/config.h"
#include "core/core.h"
#include "core/progress_thread.h"
#include "p2p/p2p.h"

static int pt_running;

/* GOAL schedules under way (src/base's hint, written by the executor above us). */
static int schedules_in_flight(void)
{
    return __atomic_load_n(&credo_schedules_in_flight, __ATOMIC_RELAXED);
}
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

/* Real-time policy (CREDO_PROGRESS_RT=1). The thread runs at SCHED_FIFO priority 1, so its wake-ups
 * preempt the computing application thread at once instead of when the scheduler sees fit (the
 * default thread was measured absent for milliseconds while its rank computed, docs/GOAL.md §4).
 * Such a thread must never poll for long: a FIFO thread that polls starves every ordinary thread of
 * its CPU, the peers' application threads its collective waits for included. So after
 * PT_RT_SPIN_NS without events it sleeps on the rank's doorbell, which every writer of a packet into
 * our mailbox rings: no timer decides when it notices an arrival. The timeouts only bound a wake-up
 * lost to the doorbell's unfenced check, or a wait for room in another rank's ring, which nobody
 * rings us for. Lock taken: as above (a blocking hand-over of the lock at every MPI return was
 * tried: 20-44 % overlap at np 2 instead of 82-88 %, the thread preempting its rank at each call). */
enum { PT_RT_SPIN_NS = 20000, PT_RT_SLEEP_US = 2000, PT_RT_SLEEP_LOCKED_SHORT_NS = 50000 };
/* Rendezvous pulls of at least this size that a posting call would do are left to the thread. */
#define PT_RT_DEFER_PULL_MIN ((size_t)65536)

/* With the real-time thread, an application thread that waits inside MPI lets go of the lock while
 * it sleeps (biglock.c's hooks), so the thread advances things meanwhile and rings the doorbell
 * when it did something. */

/* The application is inside MPI (a Wait, most likely) and progresses by itself. Each wake-up of
 * ours would only preempt it, since the thread shares its rank's CPU: with the 20 us busy period a
 * 1 MiB Iallreduce + Wait took 590-1180 us instead of 160-220 at np 2. So stay away longer. */
static void pt_sleep_lock_taken(void)
{
    struct timespec ts = {0, PT_SLEEP_LOCKED_NS};
    nanosleep(&ts, NULL);
}

/* The real-time thread's lock-taken sleep. 200 us while the application waits for a non-blocking
 * collective (its wait progresses the run by itself, and every wake-up of ours would preempt it);
 * PT_RT_SLEEP_LOCKED_SHORT_NS otherwise: in a posting call, which returns soon, or in a blocking
 * call with nothing non-blocking in flight. Why: traced at np 2 (1 MiB Iallreduce posted right
 * after a barrier), the barrier's arrival woke the thread while its rank was inside MPI_Barrier,
 * the thread found the lock taken and slept 200 us, and the collective posted meanwhile sat
 * untouched; a computation shorter than that left the pull and the reduction to MPI_Wait (the two
 * clusters of np 2 overlap figures in bench/coll/README.md). Oversubscribed nodes keep 200 us:
 * there each wake-up of a real-time thread preempts some rank (np 4 on 2 CPUs: 67-77 % overlap and
 * a 10 % slower 1 MiB Iallreduce with the short sleep, against 74-81 % without, 5 interleaved
 * runs). */
static void pt_rt_sleep_lock_taken(void)
{
    int long_sleep = p2p_oversubscribed() || (schedules_in_flight() && p2p_app_waiting());
    struct timespec ts = {0, long_sleep ? PT_SLEEP_LOCKED_NS : PT_RT_SLEEP_LOCKED_SHORT_NS};
    nanosleep(&ts, NULL);
}

static void *pt_thread_rt(void *unused)
{
    (void)unused;
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    uint64_t idle_since = 0;
    while (!atomic_load_explicit(&pt_stop, memory_order_relaxed)) {
        if (pthread_mutex_trylock(&credo_lock) != 0) {
            pt_rt_sleep_lock_taken();
            idle_since = 0;
            continue;
        }
        int events = p2p_progress();
        uint64_t next = p2p_next_arrival();
        uint32_t bound_us = p2p_sleep_bound_us(PT_RT_SLEEP_US);
        pthread_mutex_unlock(&credo_lock);
        if (events > 0) {
            /* what we did may have completed what the application thread sleeps for */
            p2p_wake_sleeper();
            idle_since = 0;
            continue;
        }
        uint64_t t = credo_now_ns();
        if (!idle_since)
            idle_since = t;
        if (t - idle_since < PT_RT_SPIN_NS)
            continue;
        p2p_doorbell_sleep(next, bound_us);
        idle_since = 0;
    }
    return NULL;
}

static void *pt_thread_ordinary(void *unused)
{
    (void)unused;
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    unsigned idle = 0;
    while (!atomic_load_explicit(&pt_stop, memory_order_relaxed)) {
        int events = 0;
        if (pthread_mutex_trylock(&credo_lock) == 0) {
            events = p2p_progress();
            pthread_mutex_unlock(&credo_lock);
        } else {
            pt_sleep_lock_taken();
            idle = 0;
            continue;
        }
        if (events > 0) {
            /* A rank with network peers sleeps on the completion queue, which we may just have
             * drained of what it waits for: wake it (shared memory's doorbell rings by itself). */
            p2p_wake_sleeper();
            idle = 0;
            continue;
        }
        if (++idle < PT_SPIN)
            continue;
        struct timespec ts = {0, schedules_in_flight() ? PT_SLEEP_BUSY_NS : PT_SLEEP_IDLE_NS};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

static void pt_rt_hooks(int on)
{
    credo_lock_set(CREDO_LOCK_FOR_PT_RT, on);
    p2p_set_defer_pulls(on ? PT_RT_DEFER_PULL_MIN : 0);
}

int credo_progress_thread_start(void)
{
    if (!credo_cfg.progress_thread || pt_running)
        return 0;
    atomic_store(&pt_stop, 0);
    /* the lock is on before the thread exists: its first trylock must mean something */
    credo_lock_set(CREDO_LOCK_FOR_PT, 1);
    int rc = -1;
    if (credo_cfg.progress_rt) {
        pthread_attr_t attr;
        struct sched_param sp = {.sched_priority = 1};
        pthread_attr_init(&attr);
        pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
        pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
        pthread_attr_setschedparam(&attr, &sp);
        pt_rt_hooks(1); /* before the thread exists: it reads what these set */
        rc = pthread_create(&pt_thread, &attr, pt_thread_rt, NULL);
        pthread_attr_destroy(&attr);
        if (rc != 0) {
            pt_rt_hooks(0);
            if (rc == EPERM && credo_rt.rank == 0)
                fprintf(stderr, "credo: rank 0: CREDO_PROGRESS_RT=1 but SCHED_FIFO is not permitted (needs "
                                "CAP_SYS_NICE or an RLIMIT_RTPRIO of at least 1); the progress thread runs at "
                                "normal priority\n");
        }
    }
    if (rc != 0 && pthread_create(&pt_thread, NULL, pt_thread_ordinary, NULL) != 0) {
        credo_lock_set(CREDO_LOCK_FOR_PT, 0);
        return -1;
    }
    pt_running = 1;
    return 0;
}

void credo_progress_thread_stop(void)
{
    if (!pt_running)
        return;
    atomic_store(&pt_stop, 1);
    pthread_join(pt_thread, NULL);
    pt_rt_hooks(0);
    credo_lock_set(CREDO_LOCK_FOR_PT, 0);
    pt_running = 0;
}
