/* src/p2p/p2p_progress.c — progress and waiting: chunk dispatch, polling every transport, spilling held
 * slots, the wait loop, sleeping on the doorbell or the network's wait fd, and waking sleepers. */
#include "p2p/p2p_impl.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/uio.h>
#include <unistd.h>
#include <time.h>

#include "base/config.h"
#include "base/base.h"

p2p_engine P;

#define POLL_BUDGET 64 /* chunks and network events one progress pass hands up at most, per transport */
#define NET_FD_IDLE_WAKES 1000u /* see net_sleep */

static void wait_step(p2p_waiter *w);

/* One chunk of ns slots from src at idx of mb (our ring, or a view of a network packet). */
static inline __attribute__((always_inline)) void on_chunk(const mbox *mb, int src, uint8_t kind, uint64_t idx,
                                                           uint32_t ns)
{
    switch (kind) {
    case P2P_PKT_EAGER:
        on_eager(mb, src, idx, ns);
        break;
    case P2P_PKT_EAGER_CONT:
        on_eager_cont(mb, src, idx, ns);
        break;
    case P2P_PKT_RTS:
        on_rts(mb, src, idx, ns);
        break;
    case P2P_PKT_FC_CREDIT:
    case P2P_PKT_FC_REQUEST:
    case P2P_PKT_FC_RESPONSE:
        on_fc_packet(mb, src, kind, idx);
        break;
    default:
        on_ctrl_packet(mb, src, kind, idx);
        break;
    }
}

/* One chunk a transport handed up: handled, then counted. */
static inline __attribute__((always_inline)) void rx_chunk(const mbox *mb, int src, uint8_t kind, uint64_t idx,
                                                           uint32_t ns)
{
    on_chunk(mb, src, kind, idx, ns);
    P.st.packets_received += ns;
}

/* The end of a pass over arrivals: flow-control packets the pass queued go out now. */
static inline void rx_pass_end(int outer)
{
    if (outer) {
        P.in_poll = 0;
        if (P.fc_dirty) {
            P.fc_dirty = 0;
            send_fc_ctrl_packets();
        }
    }
}

/* Our own ring (the shared-memory transport's receive side, inline: the receive hot path). */
static int poll_mailbox(void)
{
    int outer = !P.in_poll;
    P.in_poll = 1;
    int n = xshm_poll(&P.self, P.rx, P.rank, P.size, POLL_BUDGET, rx_chunk);
    if (__builtin_expect(n < 0, 0))
        protocol_error(P.rx->bad_src, "slot header naming a rank or a slot count out of range", P.rx->bad_ns);
    rx_pass_end(outer);
    return n;
}

/* ------------------------------------------------------------------------------------------------
 * The network side of the engine: chunks in from a transport's packets, and the chunked pull. */

/* A chunk from the network transport: the transport checked its framing and that it carries src;
 * the protocol's own choice of transport for src must agree. */
static void net_chunk(const mbox *mb, int src, uint8_t kind, uint64_t idx, uint32_t ns)
{
    if (__builtin_expect(P.xo[src] != P.xnet, 0))
        protocol_error(src, "network chunk from a rank this rank reaches over shared memory", ns);
    rx_chunk(mb, src, kind, idx, ns);
}

static const xport_upcalls net_upcalls = {net_chunk, net_read_done};

static int net_progress(void)
{
    int outer = !P.in_poll;
    P.in_poll = 1;
    int n = P.xnet->progress(POLL_BUDGET, &net_upcalls);
    rx_pass_end(outer);
    if (n > 0)
        atomic_fetch_add_explicit(&P.net_events, 1, memory_order_relaxed); /* a hint for net_sleep */
    if (n == -EPROTO)
        credo_abort(1, "protocol error: %s", P.xnet->error());
    if (n < 0)
        credo_abort(1, "progress over the %s transport failed (%d): %s", P.xnet->name, n, P.xnet->error());
    if (P.npull_blocked) {
        P.npull_blocked = 0;
        for (net_pull *q = P.npull_head; q; q = q->next)
            net_pull_issue(q);
    }
    return n;
}

int p2p_progress(void)
{
    stage_settle();
    int n = poll_mailbox();
    if (P.nnet)
        n += net_progress();
    if (P.nactive)
        n += push_pending();
    if (P.copy_head)
        n += copy_progress();
    if (P.pull_head)
        n += pull_deferred();
    /* only on a pass that found nothing: the checks read the clock and the peers' in_wait lines */
    if (P.ncopy_recv && n == 0)
        n += copy_takeover();
    if (P.copy_head && n == 0)
        n += copy_taken_check();
    return n;
}

/* Spill rule (docs/FLOW_CONTROL.md): unmatched messages keep their sender's credits, which bounds
 * memory under floods, but a receive that waits for source s while s's credits are all held by
 * messages that do not match it would wait forever. When a waiter goes idle, sources that a posted
 * receive (or the last failed probe) could match, or that a matched receive still waits on, get
 * their held credits back — all sources when our own sends are stuck too; their messages stay
 * queued. A flood whose messages are matched as they come never triggers it. */
static int spill_source(int s)
{
    if (!P.held_src[s])
        return 0;
    uint32_t total = 0;
    for (uexp *u = P.uq[s].head; u; u = u->next) {
        total += u->held;
        u->held = 0;
    }
    P.held_src[s] = 0;
    P.held_slots -= total;
    P.st.spilled_slots += total;
    if (total)
        fc_release(s, total);
    return total != 0;
}

static int spill_for_waiters(void)
{
    int n = 0;
    if (!P.held_slots)
        return 0;
    for (preq *r = P.posted_head; r; r = r->next) {
        if (r->peer == P2P_ANY_SOURCE) {
            for (int s = 0; s < P.size; s++)
                n += spill_source(s);
            return n;
        }
        n += spill_source(r->peer);
    }
    if (P.nactive_recv)
        for (int s = 0; s < P.size; s++)
            if (P.active_from[s])
                n += spill_source(s);
    /* Our own sends wait for credits while we hold other senders' credits: ranks that send to each
     * other before receiving (unsafe in MPI terms, but common) would wait for each other forever. */
    if (P.nactive)
        for (int s = 0; s < P.size; s++)
            n += spill_source(s);
    /* Our rendezvous sends wait for a peer's FIN, CTS or COPY_ACKs, which need a credit at us: a peer
     * that ran ahead (a receiver that took a copy over completes before our send does) and filled
     * its quota here with messages we have not matched yet could not answer. */
    if (P.nfin_wait)
        for (int s = 0; s < P.size; s++)
            if (P.fin_wait[s])
                n += spill_source(s);
    if (P.probe_src == P2P_ANY_SOURCE) {
        for (int s = 0; s < P.size; s++)
            n += spill_source(s);
    } else if (P.probe_src >= 0) {
        n += spill_source(P.probe_src);
    }
    return n;
}

p2p_lock_hooks lock_hooks;

void p2p_set_lock_hooks(const p2p_lock_hooks *h)
{
    if (h)
        lock_hooks = *h;
    else
        lock_hooks = (p2p_lock_hooks){0};
}

/* 1 while an application thread runs p2p_wait_step: the real-time progress thread reads it, without
 * the lock, to tell a call that waits (and progresses by itself) from one that posts and returns. */
atomic_int app_in_wait_step;

int p2p_app_waiting(void)
{
    return atomic_load_explicit(&app_in_wait_step, memory_order_relaxed);
}

int p2p_oversubscribed(void)
{
    return P.oversubscribed;
}

/* A rank with network peers sleeps in ppoll on the union of the completion queue's wait fd (when the
 * provider has one and nothing is pending) and our eventfd, which shared-memory peers ring (through
 * their copy of it, xport/shm.c) when they write into our ring while we sleep this way, bounded by
 * timeout_us (a ring can be missed, as for the futex doorbell: 1 ms idle, 100 us while sends wait;
 * docs/ARCHITECTURE.md, "Transports"). next is the ring slot whose arrival we wait for. The lock
 * goes while it sleeps, as for the doorbell. */
static void net_sleep(uint32_t timeout_us, int locked, uint64_t next)
{
    /* Unlocked (the progress thread between passes): only poll, which consumes nothing; fi_trywait
     * needs the lock. The wake fd is what another thread of ours writes when it completed what a
     * sleeper may wait for (p2p_wake_sleeper, p2p_wake_local_sleepers): the completion queue stays
     * quiet for an event some other thread already took from it. */
    int fd = P.xnet->wait_fd();
    /* A wait fd that keeps waking us while progress finds nothing is useless (it stays readable:
     * libfabric 1.17's "net" provider); after NET_FD_IDLE_WAKES such wake-ups in a row it is left out
     * and the sleep is a bounded one on the wake fd, as without a wait fd. Without this, a real-time
     * progress thread spun at full speed on every rank. */
    if (fd >= 0 && atomic_load_explicit(&P.net_fd_useless, memory_order_relaxed))
        fd = -1;
    if (fd >= 0 && atomic_load_explicit(&P.net_fd_idle_wakes, memory_order_relaxed) &&
        atomic_load_explicit(&P.net_events, memory_order_relaxed) !=
            atomic_load_explicit(&P.net_events_at_wake, memory_order_relaxed))
        atomic_store_explicit(&P.net_fd_idle_wakes, 0, memory_order_relaxed); /* that wake-up had work */
    if (locked && fd >= 0 && !P.xnet->sleep_ok())
        return; /* something is pending: progress again */
    struct pollfd pfd[2] = {{P.wake_fd, POLLIN, 0}, {fd, POLLIN, 0}};
    struct timespec ts = {timeout_us / 1000000u, (long)(timeout_us % 1000000u) * 1000};
    if (!mbox_poll_sleep_begin(&P.self, next))
        return; /* a chunk arrived in our ring meanwhile */
    if (locked)
        atomic_fetch_add_explicit(&P.local_sleepers, 1, memory_order_relaxed);
    int held = locked && lock_hooks.drop ? lock_hooks.drop() : 0;
    /* Without a wait fd from the provider (libfabric 1.17's "net" has none), a sleep on the wake fd
     * alone: 50 us for a thread waiting in MPI, the caller's own bound for the progress thread
     * (unlocked), which at real-time priority must not wake every 50 us on every rank. */
    int rc = ppoll(pfd, fd >= 0 ? 2 : 1, fd >= 0 || !locked ? &ts : &(struct timespec){0, 50000}, NULL);
    if (locked) /* the counters are the lock holder's */
        P.nst.sleeps++;
    if (rc > 0 && fd >= 0 && (pfd[1].revents & POLLIN)) {
        atomic_store_explicit(&P.net_events_at_wake, atomic_load_explicit(&P.net_events, memory_order_relaxed),
                              memory_order_relaxed);
        if (atomic_fetch_add_explicit(&P.net_fd_idle_wakes, 1, memory_order_relaxed) + 1 >= NET_FD_IDLE_WAKES &&
            !atomic_exchange_explicit(&P.net_fd_useless, 1, memory_order_relaxed)) {
            if (P.debug)
                fprintf(stderr, "credo: rank %d: the network's wait fd stays readable with nothing to do: "
                        "sleeping without it\n", P.rank);
        }
    }
    if (rc > 0 && (pfd[0].revents & POLLIN)) {
        if (locked)
            P.nst.sleeps_rung++;
        uint64_t v;
        ssize_t got = read(P.wake_fd, &v, sizeof v); /* nonblocking: another sleeper may have read it */
        (void)got;
    }
    if (locked && lock_hooks.drop)
        lock_hooks.take(held);
    if (locked)
        atomic_fetch_sub_explicit(&P.local_sleepers, 1, memory_order_relaxed);
    mbox_poll_sleep_end(&P.self);
}

static void net_wake(void)
{
    uint64_t one = 1;
    ssize_t w = write(P.wake_fd, &one, sizeof one); /* EAGAIN only when the counter is full: awake anyway */
    (void)w;
}

void p2p_waiting_begin(void)
{
    waiting_begin();
}

void p2p_waiting_end(void)
{
    waiting_end();
}

void p2p_wait_step(p2p_waiter *w)
{
    waiting_begin();
    wait_step(w);
    waiting_end();
}

static void wait_step(p2p_waiter *w)
{
    stage_settle();
    /* The spin loop's common case: nothing arrived and nothing of ours is queued. */
    if (__builtin_expect(!mbox_ready(&P.self, P.rx->head) && !P.nactive && !P.copy_head && !P.pull_head && !P.ncopy_recv &&
                         !P.nnet,
                         1) &&
        w->idle_polls + 1 < P.spin_polls) {
        w->idle_polls++;
        /* other threads of this process may wait for the lock we spin under */
        if (__builtin_expect(lock_hooks.yield != NULL, 0) && (w->idle_polls & 31) == 0)
            lock_hooks.yield();
        cpu_relax();
        return;
    }
    if (p2p_progress()) {
        w->idle_polls = 0;
        w->idle_since_ns = 0;
        return;
    }
    if (++w->idle_polls < P.spin_polls) {
        cpu_relax();
        return;
    }
    if (P.held_slots && spill_for_waiters()) {
        w->idle_polls = 0;
        return;
    }
    uint64_t t = now_ns();
    if (!w->idle_since_ns)
        w->idle_since_ns = t;
    /* With a progress thread that takes over while we sleep, sleep at once: it rings our doorbell
     * when its progress completed something (p2p_wake_sleeper). Other threads of this process get
     * the lock for the yield. */
    if (!lock_hooks.sleep_at_once && t - w->idle_since_ns < P.yield_ns) {
        if (lock_hooks.drop) {
            int held = lock_hooks.drop();
            sched_yield();
            lock_hooks.take(held);
        } else {
            sched_yield();
        }
        return;
    }
    /* Nothing for a while: sleep on our doorbell. Short sleeps when we wait for room in someone
     * else's ring (nobody rings us for that) or for a pipelined copy. The bell is read before the
     * lock goes, so a thread that takes it and completes what we wait for cannot ring too early. */
    uint64_t next = P.rx->head;
    uint32_t timeout_us = p2p_sleep_bound_us(1000);
    if (P.nnet) {
        if (timeout_us) /* 0: the provider has work pending */
            net_sleep(timeout_us, 1, next);
        return;
    }
    if (!lock_hooks.drop) {
        mbox_sleep(&P.self, next, timeout_us);
        return;
    }
    atomic_fetch_add_explicit(&P.local_sleepers, 1, memory_order_relaxed);
    uint32_t bell = mbox_sleep_begin(&P.self);
    int held = lock_hooks.drop();
    mbox_sleep_end(&P.self, next, bell, timeout_us);
    atomic_fetch_sub_explicit(&P.local_sleepers, 1, memory_order_relaxed);
    lock_hooks.take(held);
}

/* Called by the lock's owner as it lets go (MPI_THREAD_MULTIPLE). Relaxed is enough for the
 * sleeper count: a sleeper counts itself before it lets go of the lock we hold now. */
void p2p_wake_local_sleepers(void)
{
    if (atomic_load_explicit(&P.local_sleepers, memory_order_relaxed) && P.local_events != P.local_events_rung) {
        P.local_events_rung = P.local_events;
        mbox_ring_doorbell(&P.self);
        if (P.nnet)
            net_wake();
    }
}

uint64_t p2p_next_arrival(void)
{
    return P.rx->head;
}

/* Sends waiting for ring room (none scheme) or a pipelined copy: nobody rings us for those, so
 * such waits look again after 100 us. */
uint32_t p2p_sleep_bound_us(uint32_t idle_us)
{
    /* Under the lock: arms the completion queue's fd for a sleep that follows without the lock (the
     * progress thread's p2p_doorbell_sleep), or says not to sleep when the provider has work. */
    if (P.nnet && P.xnet->wait_fd() >= 0 && !P.xnet->sleep_ok())
        return 0;
    return (P.nactive || P.copy_head || P.ncopy_recv) ? 100 : idle_us;
}

void p2p_wake_sleeper(void)
{
    mbox_doorbell(&P.self);
    if (P.nnet && atomic_load_explicit(&P.local_sleepers, memory_order_relaxed))
        net_wake();
}

void p2p_doorbell_sleep(uint64_t next_arrival, uint32_t timeout_us)
{
    if (P.nnet) {
        if (timeout_us) /* 0: p2p_sleep_bound_us found work pending */
            net_sleep(timeout_us, 0, next_arrival);
        return;
    }
    mbox_sleep(&P.self, next_arrival, timeout_us);
}

/* A blocking wait keeps in_wait up for its whole loop: a receiver choosing the rendezvous path reads
 * it once, and stepping it down between steps let that read see an idle sender now and then. */
void wait_until_done(p2p_req *req)
{
    p2p_waiter w = P2P_WAITER_INIT;
    while (!req->done)
        wait_step(&w);
}

void p2p_wait(p2p_req *req)
{
    if (req->done)
        return;
    waiting_begin();
    wait_until_done(req);
    waiting_end();
}
