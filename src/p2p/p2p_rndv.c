/* src/p2p/p2p_rndv.c — rendezvous: the request-to-send, prepush, the CMA pull and the pipelined copy
 * over mapped segments, and the receiver-driven chunked pull over the network (seed 002). */
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

static void rndv_copy_request(preq *r, int src, uint64_t sreq, uint64_t raddr, size_t n);
static void net_pull_start(preq *r, int src, uint64_t raddr, uint64_t rkey, size_t have, size_t n, uint64_t sreq);
static void copy_job_finish(copy_job *j, int end);

/* A FIN or cancel answer from rank src returns units u .. u + k - 1. */
void prepush_give_back(int src, uint64_t u, uint64_t k)
{
    /* within the area (the last bitmap word may be only partly units) and all of them lent out: a
     * unit given back twice would later be lent twice */
    if (k == 0 || u >= P.self.pp_nunits || k > P.self.pp_nunits - u || u % 64 + k > 64 ||
        (P.prepush_free[u / 64] & prepush_bits(u, k)))
        credo_abort(1, "protocol error: rank %d returned prepush units %llu+%llu", src, (unsigned long long)u,
                    (unsigned long long)k);
    P.prepush_free[u / 64] |= prepush_bits(u, k);
}

/* Reads n bytes at `remote` in peer's address space into `local` with the shared-memory transport's
 * read (CMA) (rndv_pull, copy_takeover). Returns -1, having read nothing, when the kernel refuses
 * (P.cma_ok is then 0 and the pipelined copy serves from now on). Any other failure is fatal: the
 * permission check is the one the start-up probe passed. */
static int cma_copy(int peer, void *local, uint64_t remote, size_t n)
{
    int rc = P.xo[peer]->read(peer, local, n, NULL, remote, 0, NULL);
    if (rc == XPORT_READ_DONE)
        return 0;
    if (rc == -EPERM) {
        P.cma_ok = 0;
        return -1;
    }
    credo_abort(1, "rendezvous from rank %d: %s", peer, P.xo[peer]->error());
}

/* have: bytes of the message already in r's buffer (a network RTS's first chunk) */
void rndv_pull(preq *r, int src, int tag, uint64_t raddr, uint64_t rkey, size_t mlen, uint64_t sreq,
                      size_t have)
{
    size_t n = mlen < r->len ? mlen : r->len;
    r->peer = src;
    r->tag = tag;
    r->mlen = mlen;
    if (!mapped(src)) {
        if (raddr & P2P_RTS_PREPUSHED) /* a network peer has no prepush area here */
            protocol_error(src, "prepushed request-to-send over the network", raddr);
        if (n <= have) {
            queue_answer(src, P2P_PKT_FIN, sreq, 0, 0, 0);
            recv_finish(r, src, tag, mlen);
            return;
        }
        net_pull_start(r, src, raddr, rkey, have, n, sreq);
        return;
    }
    if (raddr & P2P_RTS_PREPUSHED) {
        const mbox *pm = &P.peer[src];
        size_t unit = pm->pp_unit;
        uint64_t u = raddr & ~P2P_RTS_PREPUSHED, k = prepush_units(mlen, unit);
        if (!unit || mlen > MBOX_PREPUSH_MAX || u + k > pm->pp_nunits || u % 64 + k > 64)
            credo_abort(1, "protocol error: prepushed message of %zu bytes at unit %llu from rank %d", mlen,
                        (unsigned long long)u, src);
        copy_bytes(r->buf, pm->pp_area + u * unit, n);
        P.st.rndv_prepushed++;
        /* FIN: a = the sender's request (0 once a standard send completed), b = first unit + 1,
         * c = units */
        queue_answer(src, P2P_PKT_FIN, sreq, u + 1, k, 0);
        recv_finish(r, src, tag, mlen);
        return;
    }
    /* CMA from CREDO_CMA_MIN on, and for any size unless both sides wait inside MPI right now: the
     * pipelined copy needs both progress engines for every chunk, so a sender that computes after
     * MPI_Isend, or we ourselves returning from MPI_Irecv or MPI_Test to compute, would hold the
     * other up until the next MPI call (docs/ARCHITECTURE.md, "Choosing the rendezvous path").
     * relaxed: a hint; either path is correct whatever the sender does next. */
    if (P.cma_ok && n > 0 &&
        (n >= P.cma_min ||
         (P.cma_idle && (!P.wait_depth || !atomic_load_explicit(&P.peer[src].ctl->in_wait, memory_order_relaxed)))) &&
        cma_copy(src, r->buf, raddr, n) == 0) {
        P.st.rndv_cma_pulls++;
        queue_answer(src, P2P_PKT_FIN, sreq, 0, 0, 0);
        recv_finish(r, src, tag, mlen);
        return;
    }
    if (n == 0) {
        queue_answer(src, P2P_PKT_FIN, sreq, 0, 0, 0);
        recv_finish(r, src, tag, mlen);
        return;
    }
    rndv_copy_request(r, src, sreq, raddr, n);
}

/* Ask the sender to stream n bytes through its staging buffers; the CTS names a copy_recv record. */
static void rndv_copy_request(preq *r, int src, uint64_t sreq, uint64_t raddr, size_t n)
{
    copy_recv *c = malloc(sizeof *c);
    if (!c)
        credo_abort(1, "out of memory starting a pipelined copy from rank %d", src);
    /* oldest first: copy_takeover takes a sender's transfers over in their order (copy done words) */
    *c = (copy_recv){.prev = P.crecv_tail, .r = r, .src = src, .n = n, .raddr = raddr, .cts_ns = now_ns(),
                     .seq = ++P.dq[src].cts_sent, .id = ++P.crecv_ids};
    LIST_APPEND(P.crecv_head, P.crecv_tail, c);
    P.ncopy_recv++;
    P.st.rndv_copies++;
    recv_activate(r, src);
    /* CTS: a = the sender's request, b = our record, c = bytes wanted */
    queue_answer(src, P2P_PKT_CTS, sreq, c->id, n, 0);
}

/* Our record of the copy from src that a packet names, or NULL. The list holds the copies in progress
 * (a few), oldest first. */
copy_recv *copy_recv_find(int src, uint64_t id)
{
    for (copy_recv *c = P.crecv_head; c; c = c->next)
        if (c->id == id && c->src == src)
            return c;
    return NULL;
}

void copy_recv_free(copy_recv *c)
{
    DLIST_UNLINK(P.crecv_head, P.crecv_tail, c);
    free(c);
}

/* The copy needs the sender's progress engine for every chunk. When the sender has not been waiting
 * inside MPI for COPY_OUT_NS and no chunk came from it for COPY_TAKEOVER_NS (and our CTS is at least
 * that old), it may compute until its next MPI call (it was waiting when we chose the copy, then its
 * wait ended), so we read the rest ourselves with CMA and complete the receive. The record stays and
 * acknowledges the chunks the sender still stages (with `taken` set, so it stops) until its COPY_END.
 * Silence is measured per sender, not per transfer: transfers queued behind the one the sender is
 * copying are not stalled. Taking those over too made window bandwidth at 16 MiB 15-30 % slower (CMA
 * is the slower path on the development VM), and so did trusting one look at in_wait, which reads 0
 * for a moment between two MPI calls of a sender that polls (MPI_Test in a loop); every wait loop
 * inside one call holds it up (waiting_begin). */
#define COPY_TAKEOVER_NS 50000u

#define COPY_OUT_NS 20000u

/* Whether peer has read as outside MPI at every look for COPY_OUT_NS, up to now (t): the condition
 * of the takeover. The streak is per peer (dest_queue.out_since_ns) and restarts at any sign of it
 * inside MPI (peer_in_mpi). relaxed: a hint; the takeover is correct whatever the peer does next. */
static int peer_quiet(int peer, uint64_t t)
{
    dest_queue *q = &P.dq[peer];
    if (atomic_load_explicit(&P.peer[peer].ctl->in_wait, memory_order_relaxed)) {
        q->out_since_ns = 0;
        return 0;
    }
    if (!q->out_since_ns)
        q->out_since_ns = t;
    return t - q->out_since_ns >= COPY_OUT_NS;
}

/* Peer just did something only a rank inside MPI does (staged part of a copy for us). */
void peer_in_mpi(int peer)
{
    P.dq[peer].copy_rx_ns = now_ns();
    P.dq[peer].out_since_ns = 0;
}

/* Takes over, oldest first, every copy whose sender has gone quiet: reads the rest of its buffer,
 * then publishes the transfer's number on the pair's done word (shm_mbox.h, "Copy done words"),
 * from which the sender may complete its send and reuse its staging halves. Transfers of one sender
 * are taken in order: a later one is eligible only when the earlier ones are (older CTS, the same
 * sender's silence), so the word never passes a transfer that is still being copied. */
int copy_takeover(void)
{
    if (!P.cma_ok)
        return 0;
    int n = 0;
    uint64_t t = now_ns();
    for (copy_recv *c = P.crecv_head; c; c = c->next) {
        if (!c->r || t - c->cts_ns < COPY_TAKEOVER_NS || t - P.dq[c->src].copy_rx_ns < COPY_TAKEOVER_NS ||
            !peer_quiet(c->src, t))
            continue;
        preq *r = c->r;
        /* the sender's buffer stays valid: its send completes only once the done word names this
         * transfer (or a later one), or on our answer with `taken` */
        if (cma_copy(c->src, r->buf + c->off, c->raddr + c->off, c->n - c->off) != 0)
            return n; /* refused: the copy goes on */
        c->r = NULL;
        /* release: our reads of its buffer and of its staging halves are over before the sender,
         * reading this with acquire, completes the send or stages another transfer's chunk */
        atomic_store_explicit(&P.self.copy_done[c->src], c->seq, memory_order_release);
        P.ncopy_recv--;
        P.st.copy_takeovers++;
        recv_finish(r, r->peer, r->tag, r->mlen);
        n++;
    }
    return n;
}

/* The receiver is done with transfer j, so the send is complete without waiting for its
 * acknowledgements of our chunks (they come only with its next MPI call): the done word names j
 * (taken over, every byte read) or a later transfer (taken over after j, and the receiver finishes
 * j, by copying every chunk or by taking it over, before it takes a later one). acquire: pairs with
 * the receiver's release in copy_takeover. */
static int copy_taken_done(const copy_job *j)
{
    return atomic_load_explicit(&P.peer[j->dest].copy_done[P.rank], memory_order_acquire) >= j->seq;
}

int copy_progress(void)
{
    copy_job *j = P.copy_head;
    if (!j)
        return 0;
    int n = 0;
    /* a transfer the receiver took over before we started it (we were outside MPI) needs no chunk */
    while (j->staged == 0 && copy_taken_done(j)) {
        copy_job_finish(j, P2P_PKT_COPY_END);
        n++;
        if (!(j = P.copy_head))
            return n;
    }
    for (int h = 0; h < 2 && j->staged < j->total && !j->taken; h++) {
        if (j->half_busy[h])
            continue;
        size_t len = j->total - j->staged;
        if (len > P.copy_chunk)
            len = P.copy_chunk;
        credo_copy(P.staging + (size_t)h * P.copy_chunk, j->sreq->buf + j->staged, len);
        j->half_busy[h] = 1;
        j->stage_ns = now_ns();
        /* COPY_DATA: a = receiver's copy_recv, b = offset, c = length, d = half */
        queue_answer(j->dest, P2P_PKT_COPY_DATA, j->rreq, j->staged, len, (uint64_t)h);
        j->staged += len;
        n++;
    }
    return n;
}

/* The head transfer is over for us: `end` (COPY_END, or 0 when every chunk was acknowledged) tells the receiver, and the
 * send is complete. */
static void copy_job_finish(copy_job *j, int end)
{
    preq *s = j->sreq;
    /* a = the receiver's copy_recv, b = the transfer's number (COPY_END may find the record gone) */
    if (end)
        queue_answer(j->dest, end, j->rreq, j->seq, 0, 0);
    fin_wait_add(j->dest, -1);
    P.copy_head = j->next;
    if (!P.copy_head)
        P.copy_tail = NULL;
    free(j);
    s->pub.status.bytes = s->len;
    req_complete(s);
}

/* COPY_ACK: a half is free again. `taken`: the receiver has read the rest itself (copy_takeover), so
 * the send is complete once no half is out, and COPY_END tells the receiver no chunk follows. An
 * acknowledgement of a transfer we already completed (copy_taken_check) finds it gone. */
void copy_ack(int src, uint64_t seq, uint64_t half, size_t len, int taken)
{
    copy_job *j = P.copy_head;
    if (!j || j->dest != src || j->seq != seq) {
        if (seq && seq <= P.dq[src].cts_got)
            return;
        credo_abort(1, "protocol error: pipelined-copy acknowledgement from rank %d for transfer %llu, which "
                    "this rank never started", src, (unsigned long long)seq);
    }
    j->half_busy[half & 1] = 0;
    j->acked += len;
    j->taken |= (uint8_t)taken;
    if (j->acked == j->total || (j->taken && !j->half_busy[0] && !j->half_busy[1]))
        copy_job_finish(j, j->taken ? P2P_PKT_COPY_END : 0);
    copy_progress();
}

/* On an idle pass, COPY_TAKEOVER_NS after our last chunk: has the receiver taken our head transfer
 * over? Then the send completes now and COPY_END tells the receiver no chunk follows; the halves
 * are ours again (the receiver copies nothing of a transfer it took over). The gate keeps a sender
 * that waits for acknowledgements from reading the receiver's line at every pass. */
int copy_taken_check(void)
{
    copy_job *j = P.copy_head;
    if (now_ns() - j->stage_ns < COPY_TAKEOVER_NS || !copy_taken_done(j))
        return 0;
    copy_job_finish(j, P2P_PKT_COPY_END);
    copy_progress();
    return 1;
}

void on_rts(const mbox *mb, int src, uint64_t idx, uint32_t ns)
{
    no_message_open(src);
    P.dq[src].rx_msgs++;
    unsigned char *slot = mbox_slot(mb, idx);
    p2p_msg_hdr mh;
    p2p_rts rd;
    memcpy(&mh, slot + sizeof(mbox_slot_hdr), sizeof mh);
    memcpy(&rd, slot + FIRST_OFF, sizeof rd);
    if (mh.piggy && P.fc_credits) {
        P.fc->on_ctrl(P.fcs, (uint32_t)src, FC_CTRL_CREDIT, mh.piggy, 1);
        fc_drain_soon();
    }
    size_t in = mapped(src) ? 0 : net_rts_inline(mb, (size_t)rd.len, ns);
    preq *r = posted_match(src, mh.tag, mh.ctx);
    if (r) {
        size_t take = clip(r, 0, in);
        if (take)
            mbox_get_bytes(mb, idx, RTS_OFF, r->buf, take);
        fc_release(src, ns);
        rndv_pull(r, src, mh.tag, rd.addr, rd.key, (size_t)rd.len, rd.sreq, in);
        return;
    }
    uexp *u = malloc(sizeof *u + in);
    if (!u)
        credo_abort(1, "out of memory holding a rendezvous request from rank %d", src);
    u->src = src;
    u->tag = mh.tag;
    u->ctx = mh.ctx;
    u->kind = UEXP_RTS;
    u->probed = 0;
    u->held = ns;
    u->len = (size_t)rd.len;
    u->received = in; /* network: the first bytes, in data[] */
    if (in)
        mbox_get_bytes(mb, idx, RTS_OFF, u->data, in);
    u->raddr = rd.addr;
    u->rkey = rd.key;
    u->sreq = rd.sreq;
    u->self_send = NULL;
    held_add(src, ns, in);
    uexp_append(u);
}

static void net_pull_free(net_pull *q)
{
    DLIST_UNLINK(P.npull_head, P.npull_tail, q);
    if (q->mr)
        P.xo[q->src]->mr_put(q->mr);
    free(q);
}

/* One read of a pull landed in the receive buffer: the next may go (the window moves at the pace of
 * our sink), and the last one ends the pull with the FIN. */
void net_read_done(void *ctx, int status)
{
    net_read *rd = ctx;
    net_pull *q = rd->q;
    if (status)
        credo_abort(1, "rendezvous receive of %llu bytes from rank %d: a read failed (%s): the sender is gone?",
                    (unsigned long long)q->w.total, q->src, P.xo[q->src]->error());
    q->busy &= ~((uint64_t)1 << (rd - q->reads));
    P.net_outstanding--;
    if (!rdrp_completed(&q->w, rd->len)) {
        net_pull_issue(q);
        return;
    }
    preq *r = q->r;
    int src = q->src;
    uint64_t sreq = q->sreq;
    net_pull_free(q);
    queue_answer(src, P2P_PKT_FIN, sreq, 0, 0, 0);
    recv_finish(r, src, r->tag, r->mlen);
}

/* Posts reads of the pull's next chunks while its window has room (src/fc/rdrp.h). Each read has its
 * own context (its slot in q->reads): completions may come in any order. */
void net_pull_issue(net_pull *q)
{
    uint64_t off;
    uint32_t len;
    while (rdrp_next(&q->w, &off, &len)) {
        /* the window is at most NET_PULL_MAX_WINDOW (net_pull_start): a slot is free */
        int i = __builtin_ctzll(~q->busy);
        q->reads[i] = (net_read){q, len};
        int rc = P.xo[q->src]->read(q->src, q->r->buf + off, len, q->mr, q->raddr + off, q->rkey, &q->reads[i]);
        if (rc == -EAGAIN) {
            P.npull_blocked = 1;
            return;
        }
        if (rc < 0)
            credo_abort(1, "rendezvous receive of %llu bytes from rank %d: cannot post a read: %s",
                        (unsigned long long)q->w.total, q->src, P.xo[q->src]->error());
        rdrp_issued(&q->w, len);
        q->busy |= (uint64_t)1 << i;
        P.net_outstanding++;
        P.nst.rndv_reads++;
        P.nst.rndv_read_bytes += len;
        if (q->w.outstanding > P.nst.rndv_max_outstanding)
            P.nst.rndv_max_outstanding = q->w.outstanding;
    }
}

/* Starts the pull of n bytes of a matched network rendezvous into r's buffer. */
static void net_pull_start(preq *r, int src, uint64_t raddr, uint64_t rkey, size_t have, size_t n, uint64_t sreq)
{
    net_pull *q = calloc(1, sizeof *q);
    if (!q)
        credo_abort(1, "out of memory starting a rendezvous receive from rank %d", src);
    *q = (net_pull){.prev = P.npull_tail, .r = r, .src = src, .sreq = sreq, .raddr = raddr, .rkey = rkey};
    uint32_t window = P.rndv_window < NET_PULL_MAX_WINDOW ? P.rndv_window : NET_PULL_MAX_WINDOW;
    rdrp_init(&q->w, n, have, (uint32_t)P.rndv_chunk, window);
    uint64_t key, addr;
    if (P.xo[src]->mr_get(r->buf + have, n - have, &q->mr, &key, &addr))
        credo_abort(1, "rendezvous receive of %zu bytes from rank %d: cannot register the buffer: %s", n, src,
                    P.xo[src]->error());
    LIST_APPEND(P.npull_head, P.npull_tail, q);
    P.nst.rndv_pulls++;
    recv_activate(r, src);
    net_pull_issue(q);
}

/* A receive posted while the progress thread computes for us (p2p_set_defer_pulls) matched a large
 * rendezvous request that already waited: leave the single copy to that thread, so the posting call
 * (a non-blocking collective's start, say) returns at once instead of copying a megabyte first, and
 * wake it. */
void pull_defer(preq *r, uexp *u)
{
    r->state = PREQ_RECV_PULL;
    u->pull_req = r;
    u->next = NULL;
    LIST_APPEND(P.pull_head, P.pull_tail, u);
    mbox_doorbell(&P.self);
}

int pull_deferred(void)
{
    int n = 0;
    while (P.pull_head) {
        uexp *u = P.pull_head;
        P.pull_head = u->next;
        if (!P.pull_head)
            P.pull_tail = NULL;
        rndv_pull(u->pull_req, u->src, u->tag, u->raddr, u->rkey, u->len, u->sreq, 0);
        free(u);
        n++;
    }
    return n;
}

void p2p_set_defer_pulls(size_t min_bytes)
{
    P.defer_pull_min = min_bytes;
}
