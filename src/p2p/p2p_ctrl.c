/* src/p2p/p2p_ctrl.c — control packets: FIN, CTS, copy and cancel packets and their answers, queued
 * control packets, flow-control packets, and MPI_Cancel of sends. */
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

/* Writes a one-slot control packet (flow control) without taking a credit: the scheme guarantees its
 * slot (thesis §5.2, the credit region). */
static void write_fc_packet(int dest, uint8_t kind, uint32_t value)
{
    stage_settle_dest(dest);
    mbox *mb = &P.peer[dest];
    uint64_t idx = ring_reserve(dest, mb, 1);
    mbox_fill_hdr(mb, idx, (uint16_t)P.rank, kind, 1);
    memcpy(mbox_slot(mb, idx) + CONT_OFF, &value, sizeof value);
    ring_post(dest, mb, idx, 1);
}

void send_fc_ctrl_packets(void)
{
    fc_ctrl c;
    while (P.fc->next_ctrl(P.fcs, &c)) {
        uint8_t kind = c.kind == FC_CTRL_CREDIT    ? P2P_PKT_FC_CREDIT
                       : c.kind == FC_CTRL_REQUEST ? P2P_PKT_FC_REQUEST
                                                   : P2P_PKT_FC_RESPONSE;
        write_fc_packet((int)c.peer, kind, c.value);
    }
}

/* Tries to write one control item (FIN, CTS, COPY_*) to dest; each takes one credit. */
int try_write_ctrl(int dest, const ctrl_item *c)
{
    stage_settle_dest(dest);
    if (P.fc_credits && P.fc->acquire(P.fcs, (uint32_t)dest, 1) == 0)
        return 0;
    uint64_t idx;
    if (!reserve_slots(dest, 1, &idx))
        return 0;
    mbox *mb = &P.peer[dest];
    mbox_fill_hdr(mb, idx, (uint16_t)P.rank, c->kind, 1);
    uint64_t words[4] = {c->a, c->b, c->c, c->d};
    memcpy(mbox_slot(mb, idx) + CONT_OFF, words, sizeof words);
    ring_post(dest, mb, idx, 1);
    P.st.data_packets_sent++;
    return 1;
}

static int queue_ctrl(int dest, uint8_t kind, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    ctrl_item it = {NULL, kind, a, b, c, d};
    dest_queue *q = &P.dq[dest];
    if (!q->chead && try_write_ctrl(dest, &it))
        return 0;
    ctrl_item *p = malloc(sizeof *p);
    if (!p)
        return P2P_ERR_NOMEM;
    *p = it;
    if (q->ctail)
        q->ctail->next = p;
    else
        q->chead = p;
    q->ctail = p;
    activate(dest);
    return 0;
}

/* A protocol answer (FIN, CTS, COPY_ACK, CANCEL_ACK) that cannot wait for a caller to handle an
 * error: a dropped one would leave its peer waiting forever, so running out of memory for it ends
 * the job with a line naming the peer. */
void queue_answer(int dest, uint8_t kind, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    if (queue_ctrl(dest, kind, a, b, c, d) != 0)
        credo_abort(1, "out of memory queuing a control packet (kind %u) for rank %d", kind, dest);
}

/* Unlinks the first node (of type `type`, in `node`) of the list for which cond holds; node is NULL
 * if none does. */
#define SLIST_REMOVE_FIRST(list, type, node, cond)                                                 \
    do {                                                                                           \
        type *prev_ = NULL;                                                                        \
        for ((node) = (list)->head; (node) && !(cond); prev_ = (node), (node) = (node)->next)      \
            ;                                                                                      \
        if (node)                                                                                  \
            SLIST_UNLINK(list, prev_, node);                                                       \
    } while (0)

/* MPI_Cancel of a rendezvous send arrives here at the receiver. The request-to-send came before it
 * through the same ring, so it is either matched already (its pull or FIN is under way: answer no)
 * or still unexpected: then it is dropped, its held slot goes back, and the answer tells the sender
 * which of its prepush units are free again. A probed message belongs to the program: no. */
static void on_cancel_request(int src, uint64_t sreq)
{
    uexp *u;
    SLIST_REMOVE_FIRST(&P.uq[src], uexp, u, u->kind == UEXP_RTS && u->sreq == sreq);
    if (!u) {
        queue_answer(src, P2P_PKT_CANCEL_ACK, sreq, 0, 0, 0);
        return;
    }
    uint64_t first = 0, units = 0;
    if (u->raddr & P2P_RTS_PREPUSHED) {
        first = (u->raddr & ~P2P_RTS_PREPUSHED) + 1;
        units = prepush_units(u->len, P.peer[src].pp_unit);
    }
    if (u->held) {
        held_sub(src, u->held, 0);
        fc_release(src, u->held);
    }
    free(u);
    queue_answer(src, P2P_PKT_CANCEL_ACK, sreq, 1, first, units);
}

void on_ctrl_packet(const mbox *mb, int src, uint8_t kind, uint64_t idx)
{
    uint64_t w[4];
    memcpy(w, mbox_slot(mb, idx) + CONT_OFF, sizeof w);
    /* The pipelined copy and prepush live in mapped segments: a peer reached otherwise can have
     * neither (its view has no staging halves, no done words), so such packets from it are refused
     * before they could reach for them. */
    if (__builtin_expect(!mapped(src), 0) &&
        (kind == P2P_PKT_CTS || kind == P2P_PKT_COPY_DATA || kind == P2P_PKT_COPY_ACK || kind == P2P_PKT_COPY_END ||
         (kind == P2P_PKT_FIN && w[1]) || (kind == P2P_PKT_CANCEL_ACK && w[2])))
        protocol_error(src, "pipelined-copy or prepush packet from a peer without a mapped segment", kind);
    switch (kind) {
    case P2P_PKT_FIN: { /* a = our send request (or 0), b = first prepush unit + 1 (or 0), c = units */
        preq *s = w[0] ? req_from_handle(w[0], src) : NULL;
        if (w[0] && (!s || s->state != PREQ_SEND_WAIT_FIN || s->cancel_sent == CANCEL_OUT_FINISHED))
            protocol_error(src, "FIN for a send of this rank that waits for none", w[0]);
        fc_release(src, 1);
        if (w[1])
            prepush_give_back(src, w[1] - 1, w[2]);
        if (s && s->state == PREQ_SEND_WAIT_FIN)
            fin_wait_add(src, -1);
        if (s && s->mr) { /* the receiver read it all: the cache keeps the registration */
            P.xo[src]->mr_put(s->mr);
            s->mr = NULL;
        }
        if (s) {
            s->pub.status.bytes = s->len;
            req_complete(s);
        }
        break;
    }
    case P2P_PKT_CTS: { /* a = our send request, b = receiver request, c = bytes wanted */
        preq *s = req_from_handle(w[0], src);
        if (!s || s->state != PREQ_SEND_WAIT_FIN || s->cancel_sent == CANCEL_OUT_FINISHED || w[2] == 0 ||
            w[2] > s->len)
            protocol_error(src, "CTS for a send of this rank that waits for none, or longer than it", w[0]);
        fc_release(src, 1);
        copy_job *j = calloc(1, sizeof *j);
        if (!j)
            credo_abort(1, "out of memory starting a pipelined copy to rank %d", src);
        j->sreq = s;
        j->sreq->state = PREQ_SEND_COPY; /* still counted in fin_wait: it waits for our COPY_ACKs */
        j->rreq = w[1];
        j->total = (size_t)w[2];
        j->seq = ++P.dq[src].cts_got;
        j->dest = src;
        LIST_APPEND(P.copy_head, P.copy_tail, j);
        if (P.copy_head == j)
            copy_progress();
        break;
    }
    case P2P_PKT_COPY_DATA: { /* a = our copy_recv, b = offset, c = length, d = half */
        copy_recv *c = copy_recv_find(src, w[0]);
        if (!c)
            protocol_error(src, "pipelined-copy chunk for a transfer this rank does not have", w[0]);
        fc_release(src, 1);
        /* COPY_ACK: a = half, b = length, c = 1 if we took the rest over (stage no more), d = transfer */
        if (!c->r) {
            queue_answer(src, P2P_PKT_COPY_ACK, w[3], w[2], 1, c->seq);
            break;
        }
        peer_in_mpi(src); /* it staged this chunk: a takeover needs a new quiet streak */
        /* The half is ours to read until our COPY_ACK: the sender stages into it again only after
         * that, or after we took the transfer over, and then we no longer copy from it (!c->r). */
        const unsigned char *stage = (const unsigned char *)P.peer[src].ctl + P.peer[src].ctl->staging_off;
        size_t half_bytes = (size_t)(P.peer[src].ctl->staging_bytes / 2);
        /* chunks come in the order they were staged: each starts where the last one ended */
        if (w[3] > 1 || w[1] != c->off || w[2] == 0 || w[2] > c->n - c->off || w[2] > half_bytes)
            credo_abort(1, "protocol error: pipelined-copy chunk of %llu bytes at %llu in half %llu from rank %d",
                        (unsigned long long)w[2], (unsigned long long)w[1], (unsigned long long)w[3], src);
        credo_copy(c->r->buf + w[1], stage + (size_t)w[3] * half_bytes, (size_t)w[2]);
        c->off += (size_t)w[2];
        queue_answer(src, P2P_PKT_COPY_ACK, w[3], w[2], 0, c->seq);
        if (c->off == c->n) {
            preq *r = c->r;
            copy_recv_free(c);
            P.ncopy_recv--;
            recv_finish(r, r->peer, r->tag, r->mlen);
        }
        break;
    }
    case P2P_PKT_COPY_ACK:
        fc_release(src, 1);
        copy_ack(src, w[3], w[0], (size_t)w[1], (int)w[2]);
        break;
    case P2P_PKT_COPY_END: { /* a = our copy_recv, b = its number: no chunk follows */
        fc_release(src, 1);
        /* The sender may end a transfer that completed here (copy_taken_done: a later one's claim
         * told it we were done), whose record is gone: look it up, comparing without reading it. */
        for (copy_recv *c = P.crecv_head; c; c = c->next)
            if (c->id == w[0] && c->src == src && c->seq == w[1]) {
                if (c->r)
                    credo_abort(1, "protocol error: rank %d ended a pipelined copy this rank still reads", src);
                copy_recv_free(c);
                break;
            }
        break;
    }
    case P2P_PKT_CANCEL: /* a = the sender's request */
        fc_release(src, 1);
        on_cancel_request(src, w[0]);
        break;
    case P2P_PKT_CANCEL_ACK: { /* a = our send request, b = 1 if dropped, c = first prepush unit + 1, d = units */
        preq *s = req_from_handle(w[0], src);
        fc_release(src, 1);
        if (!s || s->cancel_sent == CANCEL_NONE || s->state == PREQ_DONE ||
            (w[1] && (s->state != PREQ_SEND_WAIT_FIN || s->cancel_sent == CANCEL_OUT_FINISHED)))
            credo_abort(1, "protocol error: cancel answer from rank %d for a request that asked none", src);
        int finished = s->cancel_sent == CANCEL_OUT_FINISHED; /* its FIN (or copy) came first */
        s->cancel_sent = CANCEL_NONE;
        if (w[1] && s->mr) { /* dropped unmatched: nobody reads the buffer any more */
            P.xo[src]->mr_put(s->mr);
            s->mr = NULL;
        }
        if (w[1]) {
            if (w[2])
                prepush_give_back(src, w[2] - 1, w[3]);
            if (s->state == PREQ_SEND_WAIT_FIN)
                fin_wait_add(src, -1); /* dropped unmatched: no FIN follows */
            s->pub.status.cancelled = 1;
            s->pub.status.bytes = 0;
            req_complete(s);
        } else if (finished) {
            req_complete(s); /* status set by the path that finished it */
        } /* else it was matched: its FIN or copy completes it */
        break;
    }
    default:
        credo_abort(1, "protocol error: unknown packet kind %u from rank %d", kind, src);
    }
}

void on_fc_packet(const mbox *mb, int src, uint8_t kind, uint64_t idx)
{
    uint32_t value;
    memcpy(&value, mbox_slot(mb, idx) + CONT_OFF, sizeof value);
    uint8_t fck = kind == P2P_PKT_FC_CREDIT ? FC_CTRL_CREDIT
                  : kind == P2P_PKT_FC_REQUEST ? FC_CTRL_REQUEST
                                                : FC_CTRL_RESPONSE;
    P.fc->on_ctrl(P.fcs, (uint32_t)src, fck, value, 0);
    if (kind != P2P_PKT_FC_CREDIT)
        P.fc->on_retrieved(P.fcs, (uint32_t)src, 1); /* requests and responses occupy data slots */
    fc_drain_soon();
}

/* Ends send s as cancelled: nothing of it reached the receiver. */
static void send_cancelled(preq *s)
{
    s->pub.status.cancelled = 1;
    s->pub.status.bytes = 0;
    req_complete(s);
}

/* A send can be cancelled while nothing of it is written (queued behind flow control), while it
 * waits as a large or synchronous send to ourselves, and while its request-to-send waits unmatched
 * at the receiver (a CANCEL packet asks; the answer or the FIN completes the request). A message
 * written eagerly, or one whose pull has started, completes normally (MPI lets cancel fail). */
static int send_cancel(preq *s)
{
    switch (s->state) {
    case PREQ_SEND_QUEUED: {
        if (s->started || s->pregranted)
            return 0;
        preq *it;
        SLIST_REMOVE_FIRST(&P.dq[s->peer], preq, it, it == s);
        if (!it)
            return 0;
        send_cancelled(s);
        return 1;
    }
    case PREQ_SEND_SELF: {
        uexp *u;
        SLIST_REMOVE_FIRST(&P.uq[P.rank], uexp, u, u->self_send == s);
        if (!u)
            return 0;
        free(u);
        send_cancelled(s);
        return 1;
    }
    case PREQ_SEND_WAIT_FIN:
        if (s->cancel_sent == CANCEL_NONE) {
            s->cancel_sent = CANCEL_OUT;
            if (queue_ctrl(s->peer, P2P_PKT_CANCEL, req_handle(s), 0, 0, 0) != 0) {
                s->cancel_sent = CANCEL_NONE;
                return 0;
            }
        }
        return 1;
    default:
        return 0;
    }
}

int p2p_cancel(p2p_req *req)
{
    stage_settle();
    preq *r = (preq *)req;
    if (r->pub.kind == P2P_REQ_SEND)
        return r->pub.done ? 0 : send_cancel(r);
    if (r->pub.kind != P2P_REQ_RECV || r->state != PREQ_RECV_POSTED)
        return 0;
    posted_remove(r);
    r->pub.status.cancelled = 1;
    r->pub.status.bytes = 0;
    req_complete(r);
    return 1;
}
