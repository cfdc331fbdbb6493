/* src/p2p/p2p_req.c — requests and matching: the request table and its checked handles, the
 * posted and unexpected queues, receives, probes and matched probes. */
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

/* A request the engine has never had: it gets the next id in the table for life. Out of line: it
 * runs once per request the process ever holds at a time, and inlined it kept req_alloc itself from
 * being inlined into the send and receive paths (about 30 instructions per message). */
__attribute__((noinline, cold)) preq *req_new(void)
{
    if (P.req_tab_n == P.req_tab_cap) {
        uint32_t cap = P.req_tab_cap ? 2 * P.req_tab_cap : 256;
        preq **t = cap > P.req_tab_cap ? realloc(P.req_tab, (size_t)cap * sizeof *t) : NULL;
        if (!t)
            return NULL;
        P.req_tab = t;
        P.req_tab_cap = cap;
    }
    preq *r = malloc(sizeof *r);
    if (!r)
        return NULL;
    r->id = P.req_tab_n;
    r->gen = 0;
    P.req_tab[P.req_tab_n++] = r;
    return r;
}

/* The send request a peer's FIN, CTS or CANCEL_ACK names, or NULL if no live send of ours to that
 * peer has that name (a corrupt, stale or replayed value): the caller reports a protocol error. */
preq *req_from_handle(uint64_t h, int peer)
{
    uint32_t id = (uint32_t)h, gen = (uint32_t)(h >> 32);
    if (id >= P.req_tab_n)
        return NULL;
    preq *r = P.req_tab[id];
    if (r->gen != gen || r->state == PREQ_FREE || r->pub.kind != P2P_REQ_SEND || r->peer != peer)
        return NULL;
    return r;
}

static void req_release(preq *r)
{
    r->state = PREQ_FREE;
    r->next = P.free_reqs;
    P.free_reqs = r;
}

/* Completion: status is final, run the upper layer's hook, then publish done. A send whose cancel
 * request is out is held back: the receiver's answer names it, so it must not be freed or reused
 * before that answer arrives, which then completes it (P2P_PKT_CANCEL_ACK). */
void req_complete(preq *r)
{
    if (__builtin_expect(r->cancel_sent == CANCEL_OUT, 0)) {
        r->cancel_sent = CANCEL_OUT_FINISHED;
        return;
    }
    r->state = PREQ_DONE;
    P.local_events++;
    if (r->pub.on_complete)
        r->pub.on_complete(&r->pub);
    r->pub.done = 1;
    if (r->user_freed)
        req_release(r);
}

p2p_req *p2p_req_generic(void)
{
    preq *r = req_alloc(P2P_REQ_GENERIC);
    return r ? &r->pub : NULL;
}

void p2p_req_complete(p2p_req *req)
{
    req_complete((preq *)req);
}

void p2p_req_rearm(p2p_req *req)
{
    preq *r = (preq *)req;
    r->state = 0;
    memset(&r->pub.status, 0, sizeof r->pub.status);
    r->pub.done = 0;
}

void p2p_req_free(p2p_req *req)
{
    preq *r = (preq *)req;
    if (r->pub.done)
        req_release(r);
    else
        r->user_freed = 1;
}

/* ------------------------------------------------------------------------------------------------
 * Matching */

static inline int match_env(int want_src, int want_tag, uint32_t want_ctx, int src, int tag, uint32_t ctx)
{
    return ctx == want_ctx && (want_src == src || want_src == P2P_ANY_SOURCE) &&
           (want_tag == tag || want_tag == P2P_ANY_TAG);
}

static void posted_append(preq *r)
{
    r->next = NULL;
    r->prev = P.posted_tail;
    LIST_APPEND(P.posted_head, P.posted_tail, r);
}

preq *posted_match(int src, int tag, uint32_t ctx)
{
    for (preq *r = P.posted_head; r; r = r->next)
        if (match_env(r->peer, r->tag, r->ctx, src, tag, ctx)) {
            posted_remove(r);
            return r;
        }
    return NULL;
}

/* Finds (and with take=1 unlinks) the oldest unexpected message matching the envelope. */
static uexp *uexp_find(int src, int tag, uint32_t ctx, int take)
{
    uexp *best = NULL, *best_prev = NULL;
    int lo = src == P2P_ANY_SOURCE ? 0 : src, hi = src == P2P_ANY_SOURCE ? P.size - 1 : src;
    for (int s = lo; s <= hi; s++) {
        uexp *prev = NULL;
        for (uexp *u = P.uq[s].head; u; prev = u, u = u->next)
            if (match_env(src, tag, ctx, u->src, u->tag, u->ctx)) {
                if (!best || u->seq < best->seq) {
                    best = u;
                    best_prev = prev;
                }
                break; /* first match of this source is its oldest */
            }
    }
    if (best && take)
        SLIST_UNLINK(&P.uq[best->src], best_prev, best);
    return best;
}

void uexp_append(uexp *u)
{
    P.local_events++;
    uexp_list *l = &P.uq[u->src];
    u->next = NULL;
    u->seq = P.uexp_seq++;
    if (l->tail)
        l->tail->next = u;
    else
        l->head = u;
    l->tail = u;
}

void recv_finish(preq *r, int src, int tag, size_t mlen)
{
    if (r->state == PREQ_RECV_ACTIVE) {
        P.active_from[src]--;
        P.nactive_recv--;
    }
    r->pub.status.source = src;
    r->pub.status.tag = tag;
    r->pub.status.bytes = mlen < r->len ? mlen : r->len;
    r->pub.status.error = mlen > r->len ? P2P_ERR_TRUNCATE : P2P_OK;
    req_complete(r);
}

/* A packet that no correct peer sends: a named request or transfer this rank does not have, a
 * field out of range. Values from the wire are checked before they are used, never dereferenced;
 * what fails the check ends the job with one line naming the peer (there is no one to return an
 * error to: the packet is not an answer to a call of ours). */
__attribute__((noreturn)) void protocol_error(int src, const char *what, uint64_t value)
{
    credo_abort(1, "protocol error: rank %d sent a %s (value %#llx)", src, what, (unsigned long long)value);
}

/* Takes over an unexpected message for receive r. `unheld`: a probed message, whose slots
 * uexp_unhold already gave back (its bytes count until here, as any buffered message's do; a
 * constant at both call sites, so receives pay nothing for it). */
static inline __attribute__((always_inline)) void uexp_take(preq *r, uexp *u, int unheld)
{
    int src = u->src;
    switch (u->kind) {
    case UEXP_EAGER: {
        copy_bytes(r->buf, u->data, clip(r, 0, u->received));
        uint32_t held = unheld ? 0 : u->held;
        held_sub(src, held, u->len);
        if (u->received == u->len) {
            recv_finish(r, src, u->tag, u->len);
        } else { /* the rest still streams in: later chunks go straight to the user buffer */
            recv_activate(r, src);
            r->peer = src;
            r->tag = u->tag;
            r->off = u->received;
            r->mlen = u->len;
            P.rs[src].req = r;
            P.rs[src].ue = NULL;
        }
        free(u);
        if (held)
            fc_release(src, held);
        return;
    }
    case UEXP_RTS: {
        uint32_t held = unheld ? 0 : u->held;
        held_sub(src, held, u->received); /* a network RTS's first bytes counted as buffered */
        if (held)
            fc_release(src, held);
        if (P.defer_pull_min && u->len >= P.defer_pull_min && r->len >= P.defer_pull_min && P.cma_ok &&
            u->len >= P.cma_min && !(u->raddr & P2P_RTS_PREPUSHED) && mapped(src)) {
            pull_defer(r, u);
            return;
        }
        if (u->received) /* a network RTS's first chunk */
            copy_bytes(r->buf, u->data, clip(r, 0, u->received));
        rndv_pull(r, src, u->tag, u->raddr, u->rkey, u->len, u->sreq, u->received);
        free(u);
        return;
    }
    case UEXP_SELF:
        if (u->self_send) {
            preq *s = u->self_send;
            copy_bytes(r->buf, s->buf, clip(r, 0, u->len));
            s->pub.status.bytes = s->len;
            req_complete(s);
        } else {
            copy_bytes(r->buf, u->data, clip(r, 0, u->len));
            held_sub(src, 0, u->len);
        }
        recv_finish(r, src, u->tag, u->len);
        free(u);
        return;
    }
}

static void uexp_deliver(preq *r, uexp *u)
{
    uexp_take(r, u, 0);
}

int p2p_irecv(void *buf, size_t bytes, int src, int tag, uint32_t ctx, p2p_req **out)
{
    stage_settle();
    preq *r = req_alloc(P2P_REQ_RECV);
    if (!r)
        return P2P_ERR_NOMEM;
    r->buf = buf;
    r->len = bytes;
    r->peer = src;
    r->tag = tag;
    r->ctx = ctx;
    *out = &r->pub;
    uexp *u = (src >= 0 && !P.uq[src].head) ? NULL : uexp_find(src, tag, ctx, 1);
    if (u) {
        uexp_deliver(r, u);
        return 0;
    }
    r->state = PREQ_RECV_POSTED;
    posted_append(r);
    return 0;
}

/* Both probes: looks for a match (progressing once when there is none yet), fills *flag and *st,
 * and notes a failed probe's source for the spill rule. take: the match leaves matching. */
static uexp *probe_match(int src, int tag, uint32_t ctx, int take, int *flag, p2p_status *st)
{
    stage_settle();
    uexp *u = uexp_find(src, tag, ctx, take);
    if (!u) {
        p2p_progress();
        u = uexp_find(src, tag, ctx, take);
    }
    *flag = u != NULL;
    P.probe_src = u ? -2 : src;
    if (u && st) {
        st->source = u->src;
        st->tag = u->tag;
        st->error = 0;
        st->cancelled = 0;
        st->bytes = u->len;
    }
    return u;
}

int p2p_iprobe(int src, int tag, uint32_t ctx, int *flag, p2p_status *st)
{
    probe_match(src, tag, ctx, 0, flag, st);
    return 0;
}

/* ------------------------------------------------------------------------------------------------
 * Matched probe. The probe is the match: the message leaves its source's queue, and the slots it
 * holds go back to the sender at once, as for a matched receive (a probed message cannot be
 * spilled, and the receive that will take it may come late). Chunks of a long eager message that
 * are still on their way keep filling the entry (the per-source reassembly points at it) and are
 * released as they come; p2p_imrecv then hands the entry to a request exactly as a receive that
 * matched it in the queue would take it. */

/* Gives back what an unexpected message holds: its slots (credits) and its buffered bytes. */
/* A matched probe takes the message out of matching: its slots go back to the sender now, its
 * payload stays buffered (and counted in unexpected_bytes) until the Mrecv copies it out. */
static void uexp_unhold(uexp *u)
{
    uint32_t held = u->held;
    held_sub(u->src, held, 0);
    u->held = 0;
    u->probed = 1;
    if (held)
        fc_release(u->src, held);
}

int p2p_improbe(int src, int tag, uint32_t ctx, int *flag, p2p_status *st, p2p_msg **msg)
{
    uexp *u = probe_match(src, tag, ctx, 1, flag, st);
    if (!u)
        return 0;
    uexp_unhold(u);
    *msg = (p2p_msg *)u;
    return 0;
}

int p2p_imrecv(p2p_msg *msg, void *buf, size_t bytes, p2p_req **out)
{
    stage_settle();
    uexp *u = (uexp *)msg;
    preq *r = req_alloc(P2P_REQ_RECV);
    if (!r)
        return P2P_ERR_NOMEM;
    r->buf = buf;
    r->len = bytes;
    r->peer = u->src;
    r->tag = u->tag;
    r->ctx = u->ctx;
    *out = &r->pub;
    uexp_take(r, u, 1);
    return 0;
}
