/* src/p2p/p2p_eager.c — the send side and eager messages: send queues, send batching, the flow-control
 * glue, writing chunks, the eager receive handlers, and the blocking send and receive fast paths. */
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

static int recv_direct_spin(void *buf, size_t bytes, int src, int tag, uint32_t ctx, p2p_status *st);

__attribute__((noreturn, cold)) void xport_fatal(int peer, int rc, const char *what)
{
    const xport_ops *xo = peer >= 0 && peer < P.size && P.xo[peer] ? P.xo[peer] : P.xnet;
    credo_abort(1, "%s rank %d over the %s transport failed (%d): %s", what, peer, xo ? xo->name : "?", rc,
                xo ? xo->error() : "");
}

/* ------------------------------------------------------------------------------------------------
 * Send batching. Back-to-back isends of small messages to one destination (a window of small
 * sends) are staged as finished slot images and written with one reservation. Why: the reservation
 * is a locked fetch_add, which on x86 waits until the previous message's slot stores have left the
 * store buffer, i.e. until that slot's line came back from the owner that polls it; one locked op
 * per message puts one line transfer per message on the critical path, while one per batch lets
 * the store buffer overlap the transfers. Only the second and later isends of a run are staged (a
 * lone isend is written at once), and every other entry into the engine writes the batch first,
 * so a staged message waits at most until the caller's next call into the library (or the
 * progress thread's next pass). Credits are taken at staging time. */

#define STAGE_MAX_MSG_SLOTS 4u /* messages up to 4 slots (208 B with 64-byte slots) are staged */

void stage_flush(void)
{
    uint32_t nchunks = P.stage_nchunks;
    mbox *mb = &P.peer[P.stage_dest];
    uint32_t total = P.stage_n;
    uint64_t idx = ring_reserve(P.stage_dest, mb, total), idx0 = idx;
    /* Shared memory publishes each chunk as soon as it is written, so the receiver starts on the
     * first while the rest are copied (posting the batch at the end cost 5 % of the 8 B message rate,
     * 12.7 against 11.9 M/s, 40 interleaved runs); the network sends it as one packet at the end. */
    const int shm = is_shm(P.stage_dest);
    P.stage_n = 0;
    P.stage_nchunks = 0;
    const uint32_t ss = mb->slot_size;
    uint32_t k = 0; /* slot of the stage */
    for (uint32_t c = 0; c < nchunks; c++) {
        uint32_t ns = P.stage_chunk_slots[c];
        /* slots after the first: payload, then a relaxed seq; the first slot's release store
         * (ring_post) publishes the whole chunk (as in send_push) */
        for (uint32_t j = 1; j < ns; j++) {
            unsigned char *slot = mbox_slot(mb, idx + j);
            const unsigned char *img = P.stage + (size_t)(k + j) * ss;
            if (ss == 64)
                memcpy(slot + sizeof(uint32_t), img + sizeof(uint32_t), 64 - sizeof(uint32_t));
            else
                memcpy(slot + sizeof(uint32_t), img + sizeof(uint32_t), P.stage_used[k + j]);
            mbox_mark(mb, idx + j);
        }
        unsigned char *slot = mbox_slot(mb, idx);
        const unsigned char *img = P.stage + (size_t)k * ss;
        /* everything but the seq word, which publishes the slot */
        if (ss == 64)
            memcpy(slot + sizeof(uint32_t), img + sizeof(uint32_t), 64 - sizeof(uint32_t));
        else
            memcpy(slot + sizeof(uint32_t), img + sizeof(uint32_t), P.stage_used[k]);
        if (shm)
            mbox_publish(mb, idx);
        idx += ns;
        k += ns;
    }
    if (shm)
        mbox_doorbell(mb); /* one doorbell for the batch */
    else
        ring_post(P.stage_dest, mb, idx0, total); /* one packet of several chunks */
    /* The requests complete only now, so Wait/Test on them also writes the batch. Completion hooks
     * may send (and stage) again: work on a copy of the list. */
    preq *done[256];
    memcpy(done, P.stage_req, nchunks * sizeof *done);
    for (uint32_t c = 0; c < nchunks; c++) {
        done[c]->pub.status.bytes = done[c]->len;
        req_complete(done[c]);
    }
}

/* Stages eager send s of `need` slots (<= STAGE_MAX_MSG_SLOTS). Returns 1 when staged, 0 when flow
 * control granted fewer credits than need; those (possibly none) are left in s->pregranted for
 * send_push, which writes the batch before anything else to this destination. */
static int stage_message(preq *s, uint32_t need)
{
    int dest = s->peer;
    size_t len = s->len;
    if (P.stage_n + need > P.send_batch)
        stage_flush();
    uint32_t got = P.fc->acquire(P.fcs, (uint32_t)dest, need);
    if (got < need) {
        s->pregranted = got;
        return 0;
    }
    uint32_t k = P.stage_n;
    unsigned char *img = P.stage + ((size_t)k << P.self.slot_shift);
    mbox_slot_hdr *h = (mbox_slot_hdr *)img;
    h->src = (uint16_t)P.rank;
    h->kind = P2P_PKT_EAGER;
    h->nslots = (uint8_t)need;
    p2p_msg_hdr mh = {s->tag, s->ctx, (uint32_t)len, (uint16_t)P.fc->piggyback_take(P.fcs, (uint32_t)dest), 0};
    memcpy(img + sizeof(mbox_slot_hdr), &mh, sizeof mh);
    if (need == 1) {
        credo_copy(img + FIRST_OFF, s->buf, len);
        P.stage_used[k] = (uint16_t)(FIRST_OFF + len - sizeof(uint32_t));
    } else {
        /* the stage as a ring of its own, so the chunk layout is exactly mbox_put_bytes' */
        mbox stage_ring = {.slots = P.stage, .slot_size = P.self.slot_size, .slot_shift = P.self.slot_shift,
                           .mask = UINT32_MAX, .ring_fd = -1};
        mbox_put_bytes(&stage_ring, k, FIRST_OFF, s->buf, len);
        size_t left = len - (P.self.slot_size - FIRST_OFF);
        P.stage_used[k] = (uint16_t)(P.self.slot_size - sizeof(uint32_t));
        for (uint32_t j = 1; j < need; j++) {
            size_t here = left < P.self.slot_size - CONT_OFF ? left : P.self.slot_size - CONT_OFF;
            P.stage_used[k + j] = (uint16_t)(CONT_OFF + here - sizeof(uint32_t));
            left -= here;
        }
    }
    P.stage_req[P.stage_nchunks] = s;
    P.stage_chunk_slots[P.stage_nchunks++] = (uint8_t)need;
    s->state = PREQ_SEND_STAGED;
    s->started = 1;
    s->off = len;
    P.stage_dest = dest;
    P.stage_n = k + need;
    P.st.data_packets_sent += need;
    if (P.stage_n == P.send_batch)
        stage_flush();
    return 1;
}

void held_add(int src, uint32_t n, size_t bytes)
{
    /* Held slots are released (on_retrieved) only at match time; this tells the scheme the sender is active. */
    if (n && P.fc_credits && P.fc->on_arrived)
        P.fc->on_arrived(P.fcs, (uint32_t)src, n);
    P.held_src[src] += n;
    P.held_slots += n;
    P.unexpected_bytes += bytes;
    if (P.held_slots > P.st.held_peak_slots)
        P.st.held_peak_slots = P.held_slots;
    if (P.unexpected_bytes > P.st.unexpected_peak_bytes)
        P.st.unexpected_peak_bytes = P.unexpected_bytes;
}

void held_sub(int src, uint32_t n, size_t bytes)
{
    P.held_src[src] -= n;
    P.held_slots -= n;
    P.unexpected_bytes -= bytes;
}

void activate(int dest)
{
    if (!P.dq[dest].active) {
        P.dq[dest].active = 1;
        P.active[P.nactive++] = dest;
    }
}

/* Writes as much of send request s as flow control allows. Returns 1 when the whole message (eager)
 * or the RTS (rendezvous) is written, 0 if it must wait for credits or ring room. */
static int send_push(preq *s)
{
    int dest = s->peer;
    stage_settle_dest(dest);
    mbox *mb = &P.peer[dest];
    for (;;) {
        size_t first_off = s->started ? CONT_OFF : FIRST_OFF;
        uint32_t need;
        size_t remaining = s->len - s->off;
        if (s->rndv && !mapped(dest)) /* the RTS carries the first chunk (seed 002) */
            need = mbox_slots_for(mb, RTS_OFF, s->len < P.rts_inline_max ? s->len : P.rts_inline_max);
        else if (s->rndv)
            need = 1;
        else
            need = mbox_slots_for(mb, first_off, remaining);
        if (need > MAX_CHUNK_SLOTS)
            need = MAX_CHUNK_SLOTS;
        uint32_t got = need;
        if (P.fc_credits) {
            if (s->pregranted) { /* credits a refused batch attempt took for this message */
                got = s->pregranted < need ? s->pregranted : need;
                s->pregranted = 0;
            } else {
                got = P.fc->acquire(P.fcs, (uint32_t)dest, need);
            }
            if (got == 0)
                goto refused;
        }
        uint64_t idx;
        if (!(got = reserve_slots(dest, got, &idx)))
            goto refused;
        P.st.data_packets_sent += got;
        unsigned char *first = mbox_slot(mb, idx);
        if (!s->started) {
            p2p_msg_hdr mh;
            mh.tag = s->tag;
            mh.ctx = s->ctx;
            mh.len = (uint32_t)s->len;
            mh.flags = s->mode == P2P_MODE_SYNC ? P2P_MSG_SYNC : 0;
            mh.piggy = 0;
            if (P.fc_credits) {
                uint32_t pg = P.fc->piggyback_take(P.fcs, (uint32_t)dest);
                mh.piggy = (uint16_t)pg;
            }
            memcpy(first + sizeof(mbox_slot_hdr), &mh, sizeof mh);
            mbox_fill_hdr(mb, idx, (uint16_t)P.rank, s->rndv ? P2P_PKT_RTS : P2P_PKT_EAGER, (uint8_t)got);
            if (s->rndv && !mapped(dest)) {
                /* The receiver reads the buffer with RMA (net_pull_start): name its registration. */
                p2p_rts rd = {(uint64_t)(uintptr_t)s->buf, s->len, req_handle(s), 0};
                if (s->len && !s->mr) {
                    int rc = P.xo[dest]->mr_get(s->buf, s->len, &s->mr, &rd.key, &rd.addr);
                    if (rc)
                        credo_abort(1, "rendezvous send of %zu bytes to rank %d: cannot register the buffer: %s",
                                    s->len, dest, P.xo[dest]->error());
                }
                memcpy(first + FIRST_OFF, &rd, sizeof rd);
                /* as many first bytes as the granted slots hold: the receiver derives the count
                 * from the chunk's slots (net_rts_inline) and pulls only the rest */
                size_t in = net_rts_inline(mb, s->len, got);
                if (in)
                    mbox_put_bytes(mb, idx, RTS_OFF, s->buf, in);
            } else if (s->rndv) {
                p2p_rts rd = {(uint64_t)(uintptr_t)s->buf, s->len, req_handle(s), 0};
                int u = prepush_take(s->len);
                if (u >= 0) {
                    credo_copy(P.self.pp_area + (size_t)u * P.self.pp_unit, s->buf, s->len);
                    rd.addr = P2P_RTS_PREPUSHED | (uint64_t)u;
                    /* A standard send is complete once its data sits in the area (the FIN
                     * then only frees the units); a synchronous one still waits for the FIN. */
                    s->prepushed = 1;
                    if (s->mode != P2P_MODE_SYNC)
                        rd.sreq = 0;
                }
                memcpy(first + FIRST_OFF, &rd, sizeof rd);
            }
        } else {
            mbox_fill_hdr(mb, idx, (uint16_t)P.rank, P2P_PKT_EAGER_CONT, (uint8_t)got);
        }
        size_t bytes = 0;
        if (!s->rndv) {
            bytes = mbox_chunk_bytes(mb, first_off, got);
            if (bytes > remaining)
                bytes = remaining;
            if (bytes)
                mbox_put_bytes(mb, idx, first_off, s->buf + s->off, bytes);
        }
        for (uint32_t i = 1; i < got; i++)
            mbox_mark(mb, idx + i);
        ring_post(dest, mb, idx, got);
        s->started = 1;
        s->off += bytes;
        if (s->rndv || s->off == s->len) {
            if (s->delay_t0) {
                P.st.delay_ns += now_ns() - s->delay_t0;
                s->delay_t0 = 0;
            }
            return 1;
        }
        continue;
    refused:
        if (!s->delay_t0) {
            s->delay_t0 = now_ns();
            P.st.delayed_sends++;
        }
        return 0;
    }
}

/* The common small message: one slot, nothing queued before it. Returns 0 (nothing written) when
 * flow control or ring room says wait; the caller then takes the general path. */
static inline __attribute__((always_inline)) int write_one_slot(const void *buf, size_t len, int dest,
                                                               int tag, uint32_t ctx)
{
    stage_settle_dest(dest);
    /* Credit and piggyback in one call: with credits, the reservation below cannot fail. */
    uint32_t piggy = 0;
    if (P.fc_credits && P.fc->acquire_piggyback(P.fcs, (uint32_t)dest, 1, &piggy) == 0)
        return 0;
    uint64_t idx;
    if (!reserve_slots(dest, 1, &idx))
        return 0; /* none scheme: ring full (no credit was taken) */
    mbox *mb = &P.peer[dest];
    unsigned char *slot = mbox_slot(mb, idx);
    p2p_msg_hdr mh = {tag, ctx, (uint32_t)len, (uint16_t)piggy, 0};
    memcpy(slot + sizeof(mbox_slot_hdr), &mh, sizeof mh);
    credo_copy(slot + FIRST_OFF, buf, len);
    mbox_fill_hdr(mb, idx, (uint16_t)P.rank, P2P_PKT_EAGER, 1);
    ring_post(dest, mb, idx, 1);
    /* Our next message most likely takes the next slot: ask for that line now, so its ownership
     * transfer overlaps the caller's work instead of stalling the next send's locked reservation
     * (which waits for our pending stores). */
    __builtin_prefetch(mbox_slot(mb, idx + 1), 1, 3);
    P.st.data_packets_sent++;
    return 1;
}

static inline int send_one_slot(preq *s)
{
    if (!write_one_slot(s->buf, s->len, s->peer, s->tag, s->ctx))
        return 0;
    s->started = 1;
    s->off = s->len;
    s->pub.status.bytes = s->len;
    req_complete(s);
    return 1;
}

static void send_written(preq *s)
{
    if (s->rndv && !(s->prepushed && s->mode != P2P_MODE_SYNC)) {
        s->state = PREQ_SEND_WAIT_FIN;
        fin_wait_add(s->peer, 1);
    } else {
        s->pub.status.bytes = s->len;
        req_complete(s);
    }
}

/* Pushes queued work of one destination in order; returns events handled. */
static int dest_drain(int dest)
{
    dest_queue *q = &P.dq[dest];
    int n = 0;
    while (q->chead) {
        if (!try_write_ctrl(dest, q->chead))
            return n;
        ctrl_item *c = q->chead;
        q->chead = c->next;
        if (!q->chead)
            q->ctail = NULL;
        free(c);
        n++;
    }
    while (q->head) {
        preq *s = q->head;
        if (!send_push(s))
            return n;
        q->head = s->next;
        if (!q->head)
            q->tail = NULL;
        send_written(s);
        n++;
    }
    return n;
}

int push_pending(void)
{
    int n = 0;
    for (int i = 0; i < P.nactive;) {
        int d = P.active[i];
        n += dest_drain(d);
        if (!P.dq[d].head && !P.dq[d].chead) {
            P.dq[d].active = 0;
            P.active[i] = P.active[--P.nactive];
        } else {
            i++;
        }
    }
    return n;
}

void on_eager(const mbox *mb, int src, uint64_t idx, uint32_t ns)
{
    no_message_open(src);
    P.dq[src].rx_msgs++;
    p2p_msg_hdr mh;
    memcpy(&mh, mbox_slot(mb, idx) + sizeof(mbox_slot_hdr), sizeof mh);
    if (mh.piggy && P.fc_credits) {
        P.fc->on_ctrl(P.fcs, (uint32_t)src, FC_CTRL_CREDIT, mh.piggy, 1);
        fc_drain_soon();
    }
    size_t chunk = mbox_chunk_bytes(mb, FIRST_OFF, ns);
    if (chunk > mh.len)
        chunk = mh.len;
    preq *r = posted_match(src, mh.tag, mh.ctx);
    if (r) {
        size_t take = clip(r, 0, chunk);
        if (take)
            mbox_get_bytes(mb, idx, FIRST_OFF, r->buf, take);
        fc_release(src, ns);
        if (chunk == mh.len) {
            recv_finish(r, src, mh.tag, mh.len);
        } else {
            recv_activate(r, src);
            r->peer = src;
            r->tag = mh.tag;
            r->off = chunk;
            r->mlen = mh.len;
            P.rs[src] = (reasm){r, NULL, mh.len - chunk};
        }
        return;
    }
    if (mh.len > P2P_EAGER_MAX) /* no correct sender makes an eager message longer (CREDO_EAGER_LIMIT) */
        protocol_error(src, "eager message longer than any eager limit", mh.len);
    uexp *u = malloc(sizeof *u + mh.len);
    if (!u)
        credo_abort(1, "out of memory holding an unexpected message of %u bytes from rank %d", mh.len, src);
    u->src = src;
    u->tag = mh.tag;
    u->ctx = mh.ctx;
    u->kind = UEXP_EAGER;
    u->probed = 0;
    u->held = ns;
    u->len = mh.len;
    u->received = chunk;
    u->self_send = NULL;
    mbox_get_bytes(mb, idx, FIRST_OFF, u->data, chunk);
    held_add(src, ns, mh.len);
    uexp_append(u);
    if (chunk < mh.len)
        P.rs[src] = (reasm){NULL, u, mh.len - chunk};
}

void on_eager_cont(const mbox *mb, int src, uint64_t idx, uint32_t ns)
{
    reasm *a = &P.rs[src];
    size_t chunk = mbox_chunk_bytes(mb, CONT_OFF, ns);
    if (chunk > a->remaining)
        chunk = a->remaining;
    if (a->req) {
        preq *r = a->req;
        size_t take = clip(r, r->off, chunk);
        if (take)
            mbox_get_bytes(mb, idx, CONT_OFF, r->buf + r->off, take);
        r->off += chunk;
        a->remaining -= chunk;
        fc_release(src, ns);
        if (a->remaining == 0) {
            a->req = NULL;
            recv_finish(r, src, r->tag, r->mlen);
        }
    } else if (a->ue) {
        uexp *u = a->ue;
        mbox_get_bytes(mb, idx, CONT_OFF, u->data + u->received, chunk);
        u->received += chunk;
        if (__builtin_expect(u->probed, 0)) {
            fc_release(src, ns); /* matched by a probe: like chunks of a matched receive */
        } else {
            u->held += ns;
            held_add(src, ns, 0);
        }
        a->remaining -= chunk;
        if (a->remaining == 0)
            a->ue = NULL;
    } else {
        credo_abort(1, "protocol error: continuation chunk from rank %d without a message", src);
    }
}

/* ------------------------------------------------------------------------------------------------
 * Public operations */

static int send_self(preq *s)
{
    preq *r = posted_match(P.rank, s->tag, s->ctx);
    if (r) {
        copy_bytes(r->buf, s->buf, clip(r, 0, s->len));
        recv_finish(r, P.rank, s->tag, s->len);
        s->pub.status.bytes = s->len;
        req_complete(s);
        return 0;
    }
    int buffered = s->len <= P.eager_limit && s->mode != P2P_MODE_SYNC;
    uexp *u = malloc(sizeof *u + (buffered ? s->len : 0));
    if (!u)
        return P2P_ERR_NOMEM;
    u->src = P.rank;
    u->tag = s->tag;
    u->ctx = s->ctx;
    u->kind = UEXP_SELF;
    u->probed = 0;
    u->held = 0;
    u->len = s->len;
    u->received = s->len;
    u->self_send = buffered ? NULL : s;
    if (buffered)
        copy_bytes(u->data, s->buf, s->len);
    held_add(P.rank, 0, buffered ? s->len : 0);
    uexp_append(u);
    if (buffered) {
        s->pub.status.bytes = s->len;
        req_complete(s);
    } else {
        s->state = PREQ_SEND_SELF;
    }
    return 0;
}

/* Queues send s behind its destination's earlier work; progress pushes it as credits come back. */
static void send_enqueue(preq *s)
{
    dest_queue *q = &P.dq[s->peer];
    s->state = PREQ_SEND_QUEUED;
    s->next = NULL;
    if (q->tail)
        q->tail->next = s;
    else
        q->head = s;
    q->tail = s;
    activate(s->peer);
}

/* pp: 1 when the caller already chose stream prepush for this eager-sized message (p2p_send) */
static inline int isend_impl(const void *buf, size_t bytes, int dest, int tag, uint32_t ctx, int mode,
                             int may_batch, int pp, p2p_req **out)
{
    preq *s = req_alloc(P2P_REQ_SEND);
    if (!s)
        return P2P_ERR_NOMEM;
    send_setup(s, buf, bytes, dest, tag, ctx, mode);
    *out = &s->pub;
    if (dest == P.rank) {
        stage_settle();
        return send_self(s);
    }
    if (P.stage_n && P.stage_dest != dest)
        stage_flush();
    s->rndv = bytes > eager_limit_to(dest) || mode == P2P_MODE_SYNC || bytes > UINT32_MAX;
    if (!s->rndv && bytes > P.stream_min)
        s->rndv = pp || stream_prepush(dest, bytes);
    dest_queue *q = &P.dq[dest];
    /* the second and later isends of a run to one destination are staged (see Send batching) */
    if (may_batch && P.last_isend_dest == dest && !s->rndv && !q->head && P.send_batch) { /* 0 without credits */
        uint32_t need = mbox_slots_for(&P.peer[dest], FIRST_OFF, bytes);
        if (need <= STAGE_MAX_MSG_SLOTS && need <= P.send_batch) {
            if (stage_message(s, need))
                return 0;
            goto push; /* short of credits: send_push writes the batch, then what it got */
        }
    }
    P.last_isend_dest = may_batch ? dest : -1;
    if (__builtin_expect(bytes <= P.first_room && !s->rndv && !q->head, 1) && send_one_slot(s))
        return 0;
push:
    if (__builtin_expect(!q->head, 1) && send_push(s)) {
        send_written(s);
        return 0;
    }
    send_enqueue(s);
    return 0;
}

int p2p_isend(const void *buf, size_t bytes, int dest, int tag, uint32_t ctx, int mode, p2p_req **out)
{
    return isend_impl(buf, bytes, dest, tag, ctx, mode, 0, 0, out);
}

int p2p_isend_batchable(const void *buf, size_t bytes, int dest, int tag, uint32_t ctx, int mode, p2p_req **out)
{
    return isend_impl(buf, bytes, dest, tag, ctx, mode, 1, 0, out);
}

int p2p_send(const void *buf, size_t bytes, int dest, int tag, uint32_t ctx, int mode)
{
    stage_settle();
    /* A blocking send of an eager message that can go right now needs no request at all. */
    int pp = 0;
    if (bytes <= eager_limit_to(dest) && mode != P2P_MODE_SYNC && dest != P.rank && !P.dq[dest].head &&
        !(bytes > P.stream_min && (pp = stream_prepush(dest, bytes)))) {
        if (bytes <= P.first_room && write_one_slot(buf, bytes, dest, tag, ctx))
            return 0;
        preq s;
        req_reset(&s, P2P_REQ_SEND);
        send_setup(&s, buf, bytes, dest, tag, ctx, mode);
        if (send_push(&s))
            return 0;
        /* flow control stopped it part-way: the rest goes through a queued request */
        preq *r = req_alloc(P2P_REQ_SEND);
        if (!r)
            return P2P_ERR_NOMEM;
        uint32_t id = r->id, gen = r->gen;
        *r = s;
        r->id = id; /* the table's name stays with the memory */
        r->gen = gen;
        send_enqueue(r);
        p2p_wait(&r->pub);
        p2p_req_free(&r->pub);
        return 0;
    }
    /* This call waits right after its RTS is out: say so before the receiver can read the RTS and
     * choose a path (with in_wait still down it took CMA for about one blocking rendezvous send in
     * six in a ping-pong, the slower path there; docs/ARCHITECTURE.md, "Choosing the rendezvous
     * path"). */
    waiting_begin();
    p2p_req *r;
    int rc = isend_impl(buf, bytes, dest, tag, ctx, mode, 0, pp, &r);
    if (rc == 0)
        wait_until_done(r);
    waiting_end();
    if (rc == 0)
        p2p_req_free(r);
    return rc;
}

static int recv_direct(void *buf, size_t bytes, int src, int tag, uint32_t ctx, p2p_status *st)
{
    /* this spin is a wait inside MPI too (see waiting_begin) */
    waiting_begin();
    int got = recv_direct_spin(buf, bytes, src, tag, ctx, st);
    waiting_end();
    return got;
}

static int recv_direct_spin(void *buf, size_t bytes, int src, int tag, uint32_t ctx, p2p_status *st)
{
    mbox *mb = &P.self;
    for (uint32_t spins = 0;; spins++) {
        uint64_t idx = P.rx->head;
        if (mbox_ready(mb, idx)) {
            const mbox_slot_hdr *h = mbox_hdr(mb, idx);
            if (h->kind != P2P_PKT_EAGER || h->src != src)
                return 0;
            uint32_t ns = h->nslots ? h->nslots : 1;
            const unsigned char *slot = mbox_slot(mb, idx);
            p2p_msg_hdr mh;
            memcpy(&mh, slot + sizeof(mbox_slot_hdr), sizeof mh);
            /* the chunk may start a longer message that flow control cut: then the general path */
            if (mh.ctx != ctx || (tag != P2P_ANY_TAG && mh.tag != tag) || mh.len > bytes ||
                mh.len > mbox_chunk_bytes(mb, FIRST_OFF, ns))
                return 0;
            if (ns == 1 && mh.len <= 64)
                credo_copy_small(buf, slot + FIRST_OFF, mh.len);
            else
                mbox_get_bytes(mb, idx, FIRST_OFF, buf, mh.len);
            P.in_poll = 1;
            P.dq[src].rx_msgs++;
            if (mh.piggy && P.fc_credits)
                P.fc->on_ctrl(P.fcs, (uint32_t)src, FC_CTRL_CREDIT, mh.piggy, 1);
            fc_release(src, ns);
            P.st.packets_received += ns;
            P.rx->head = idx + ns;
            /* release: see poll_mailbox */
            atomic_store_explicit(&mb->ctl->head, P.rx->head, memory_order_release);
            P.in_poll = 0;
            if (P.fc_dirty) {
                P.fc_dirty = 0;
                send_fc_ctrl_packets();
            }
            if (st)
                *st = (p2p_status){src, mh.tag, P2P_OK, 0, mh.len};
            return 1;
        }
        /* with other threads of this process in MPI, spin briefly only: we hold their lock */
        if (P.nactive || P.copy_head || spins >= P.spin_polls || (lock_hooks.yield && spins >= 64))
            return 0;
        cpu_relax();
    }
}

int p2p_recv(void *buf, size_t bytes, int src, int tag, uint32_t ctx, p2p_status *st)
{
    stage_settle();
    if (src >= 0 && src != P.rank && is_shm(src) && !P.posted_head && !P.uq[src].head && !P.rs[src].req &&
        !P.rs[src].ue && recv_direct(buf, bytes, src, tag, ctx, st))
        return 0;
    /* A blocking receive waits from its match on: say so before matching, so that a rendezvous
     * message already here takes the path of one that comes during the wait (rndv_pull) */
    waiting_begin();
    p2p_req *r;
    int rc = p2p_irecv(buf, bytes, src, tag, ctx, &r);
    if (rc) {
        waiting_end();
        if (st)
            *st = (p2p_status){src, tag, rc, 0, 0};
        return rc;
    }
    wait_until_done(r);
    waiting_end();
    if (st)
        *st = r->status;
    rc = r->status.error;
    p2p_req_free(r);
    return rc;
}
