/* src/p2p/p2p.c — the point-to-point engine: MPI matching over the mailbox, eager messages cut into
 * credit-consuming slots, rendezvous pulled by the receiver (CMA, or a pipelined shm copy), progress. */
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

#include "core/config.h"
#include "core/core.h"

p2p_engine P;

#define POLL_BUDGET 64

/* ------------------------------------------------------------------------------------------------
 * Transports. Chunks are written the same way whatever carries them: into the destination's view
 * (xport/xport.h), which is its ring in shared memory or a private buffer the network transport sends
 * as one packet. The slot and message formats are the protocol's (p2p_proto.h), so the receive side
 * handles a network packet with the same functions as its own ring. A shared-memory peer is reached
 * through shm.h's inline functions, every other through its table (the kernel's INDIRECT_CALL idiom:
 * see shm.h). */

static inline int is_shm(int dest)
{
    return __builtin_expect(P.xo[dest] == &xport_shm, 1);
}

/* The peer's segment is mapped here: prepush, the pipelined copy, CMA and the in_wait hint apply. */
static inline int mapped(int dest)
{
    return __builtin_expect((P.xo[dest]->caps & XPORT_CAP_MAPPED) != 0, 1);
}

static __attribute__((noreturn, cold)) void xport_fatal(int peer, int rc, const char *what)
{
    const xport_ops *xo = peer >= 0 && peer < P.size && P.xo[peer] ? P.xo[peer] : P.xnet;
    credo_abort(1, "%s rank %d over the %s transport failed (%d): %s", what, peer, xo ? xo->name : "?", rc,
                xo ? xo->error() : "");
}

/* The eager limit towards dest: a network peer has its own (CREDO_NET_EAGER_LIMIT). */
static inline size_t eager_limit_to(int dest)
{
    return mapped(dest) ? P.eager_limit : P.net_eager_limit;
}

/* Bytes of a len-byte message that a network RTS of ns slots carries after its descriptor. */
static inline size_t net_rts_inline(const mbox *mb, size_t len, uint32_t ns)
{
    size_t room = mbox_chunk_bytes(mb, RTS_OFF, ns);
    return len < room ? len : room;
}

/* Reserves n slots at dest once flow control granted them (room is guaranteed). */
static inline uint64_t ring_reserve(int dest, mbox *mb, uint32_t n)
{
    if (is_shm(dest))
        return xshm_reserve(mb, n);
    return P.xo[dest]->reserve(mb, n);
}

/* Makes the whole chunks in the ns slots at idx visible to dest (xport_ops.post). */
static inline void ring_post(int dest, mbox *mb, uint64_t idx, uint32_t ns)
{
    if (is_shm(dest)) {
        xshm_post(mb, idx, ns);
        return;
    }
    int rc = P.xo[dest]->post(dest, mb, idx, ns);
    if (rc < 0)
        xport_fatal(dest, rc, "sending to");
}

static inline uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* ------------------------------------------------------------------------------------------------
 * Requests */

/* Only what every path relies on; the rest is set by the operation that takes the request. */
static inline void req_reset(preq *r, uint8_t kind)
{
    memset(&r->pub, 0, sizeof r->pub);
    r->pub.kind = kind;
    r->off = 0;
    r->mlen = 0;
    r->state = 0;
    r->mode = 0;
    r->rndv = 0;
    r->user_freed = 0;
    r->started = 0;
    r->prepushed = 0;
    r->cancel_sent = CANCEL_NONE;
    r->delay_t0 = 0;
    r->pregranted = 0;
    r->mr = NULL;
}

/* A request the engine has never had: it gets the next id in the table for life. Out of line: it
 * runs once per request the process ever holds at a time, and inlined it kept req_alloc itself from
 * being inlined into the send and receive paths (about 30 instructions per message). */
static __attribute__((noinline, cold)) preq *req_new(void)
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

static inline __attribute__((always_inline)) preq *req_alloc(uint8_t kind)
{
    preq *r = P.free_reqs;
    if (__builtin_expect(r != NULL, 1))
        P.free_reqs = r->next;
    else if (!(r = req_new()))
        return NULL;
    if (__builtin_expect(++r->gen == 0, 0))
        r->gen = 1;
    req_reset(r, kind);
    return r;
}

/* The name of a request on the wire (RTS, CANCEL): its generation and id, never 0. */
static inline uint64_t req_handle(const preq *r)
{
    return (uint64_t)r->gen << 32 | r->id;
}

/* The send request a peer's FIN, CTS or CANCEL_ACK names, or NULL if no live send of ours to that
 * peer has that name (a corrupt, stale or replayed value): the caller reports a protocol error. */
static preq *req_from_handle(uint64_t h, int peer)
{
    uint32_t id = (uint32_t)h, gen = (uint32_t)(h >> 32);
    if (id >= P.req_tab_n)
        return NULL;
    preq *r = P.req_tab[id];
    if (r->gen != gen || r->state == PREQ_FREE || r->pub.kind != P2P_REQ_SEND || r->peer != peer)
        return NULL;
    return r;
}

/* The envelope of a send request. */
static inline void send_setup(preq *s, const void *buf, size_t bytes, int dest, int tag, uint32_t ctx, int mode)
{
    s->buf = (unsigned char *)(uintptr_t)buf;
    s->len = bytes;
    s->peer = dest;
    s->tag = tag;
    s->ctx = ctx;
    s->mode = (uint8_t)mode;
    s->pub.status.source = P.rank;
    s->pub.status.tag = tag;
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
static void req_complete(preq *r)
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

static void req_complete(preq *r);

static void stage_flush(void)
{
    uint32_t nchunks = P.stage_nchunks;
    mbox *mb = &P.peer[P.stage_dest];
    uint32_t total = P.stage_n;
    uint64_t idx = ring_reserve(P.stage_dest, mb, total), idx0 = idx;
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
        idx += ns;
        k += ns;
    }
    /* the whole batch at once: one doorbell, or one packet of several chunks */
    ring_post(P.stage_dest, mb, idx0, total);
    /* The requests complete only now, so Wait/Test on them also writes the batch. Completion hooks
     * may send (and stage) again: work on a copy of the list. */
    preq *done[256];
    memcpy(done, P.stage_req, nchunks * sizeof *done);
    for (uint32_t c = 0; c < nchunks; c++) {
        done[c]->pub.status.bytes = done[c]->len;
        req_complete(done[c]);
    }
}

/* Every entry other than isend: nothing may stay staged behind the caller's back. */
static inline void stage_settle(void)
{
    P.last_isend_dest = -1;
    if (__builtin_expect(P.stage_n != 0, 0))
        stage_flush();
}

/* Before any other write to dest: staged messages go first (MPI's non-overtaking order). */
static inline void stage_settle_dest(int dest)
{
    if (__builtin_expect(P.stage_n != 0, 0) && P.stage_dest == dest)
        stage_flush();
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
                           .mask = UINT32_MAX};
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

/* ------------------------------------------------------------------------------------------------
 * Flow-control glue */

static void send_fc_ctrl_packets(void);

/* Control packets the scheme queued go out at the end of the current mailbox pass (one drain per
 * batch of chunks instead of one per message), or at once outside a pass. */
static inline void fc_drain_soon(void)
{
    if (P.in_poll)
        P.fc_dirty = 1;
    else
        send_fc_ctrl_packets();
}

/* n data packets from src are released (retrieved and no longer held): their credits may go back. */
static inline void fc_release(int src, uint32_t n)
{
    if (P.fc_credits) {
        if (P.fc->on_retrieved(P.fcs, (uint32_t)src, n))
            fc_drain_soon();
    }
}

static void held_add(int src, uint32_t n, size_t bytes)
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

static void held_sub(int src, uint32_t n, size_t bytes)
{
    P.held_src[src] -= n;
    P.held_slots -= n;
    P.unexpected_bytes -= bytes;
}

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

static void send_fc_ctrl_packets(void)
{
    fc_ctrl c;
    while (P.fc->next_ctrl(P.fcs, &c)) {
        uint8_t kind = c.kind == FC_CTRL_CREDIT    ? P2P_PKT_FC_CREDIT
                       : c.kind == FC_CTRL_REQUEST ? P2P_PKT_FC_REQUEST
                                                   : P2P_PKT_FC_RESPONSE;
        write_fc_packet((int)c.peer, kind, c.value);
    }
}

/* Reserves up to n slots at dest after flow control granted them; returns how many (the none scheme
 * may get fewer, or 0 when the ring is full; with credits room is guaranteed). */
static inline uint32_t reserve_slots(int dest, uint32_t n, uint64_t *idx)
{
    mbox *mb = &P.peer[dest];
    if (is_shm(dest)) {
        if (P.fc_credits) {
            *idx = xshm_reserve(mb, n);
            return n;
        }
        return xshm_try_reserve(mb, n, &P.cached_head[dest], idx);
    }
    const xport_ops *xo = P.xo[dest];
    if (P.fc_credits || !xo->try_reserve) { /* the none scheme over the network: the provider buffers */
        *idx = xo->reserve(mb, n);
        return n;
    }
    return xo->try_reserve(mb, n, &P.cached_head[dest], idx);
}

/* ------------------------------------------------------------------------------------------------
 * Send side */

/* Bits u % 64 .. u % 64 + k - 1 of word u / 64 of the prepush bitmap (a message's units never
 * cross a word). */
static inline uint64_t prepush_bits(uint64_t u, uint64_t k)
{
    return ((k >= 64 ? 0 : (uint64_t)1 << k) - 1) << (u % 64);
}

/* A FIN or cancel answer from rank src returns units u .. u + k - 1. */
static void prepush_give_back(int src, uint64_t u, uint64_t k)
{
    /* within the area (the last bitmap word may be only partly units) and all of them lent out: a
     * unit given back twice would later be lent twice */
    if (k == 0 || u >= P.self.pp_nunits || k > P.self.pp_nunits - u || u % 64 + k > 64 ||
        (P.prepush_free[u / 64] & prepush_bits(u, k)))
        credo_abort(1, "protocol error: rank %d returned prepush units %llu+%llu", src, (unsigned long long)u,
                    (unsigned long long)k);
    P.prepush_free[u / 64] |= prepush_bits(u, k);
}

/* Units a prepushed message of len bytes takes in an area of `unit`-byte units (0: no area). */
static inline uint64_t prepush_units(size_t len, size_t unit)
{
    return unit ? (len + unit - 1) / unit : 0;
}

/* Medium rendezvous messages (above the eager limit, up to MBOX_PREPUSH_MAX) go with their RTS:
 * the sender copies them into free units of its segment's prepush area, and the receiver copies
 * them out when it matches, which saves the CTS round trip and the COPY_DATA hop of the pipelined
 * copy. Messages CMA would pull (CREDO_CMA_MIN) keep the single copy. Without enough adjacent free
 * units the RTS goes as usual. Returns the first unit, or -1. */
static inline int prepush_find(size_t len)
{
    /* An empty message (a synchronous send of nothing, often from a NULL buffer) has nothing to push:
     * it goes as a plain RTS, and the receiver answers with a FIN of no units. */
    if (len == 0 || len > MBOX_PREPUSH_MAX || !P.self.pp_unit || (P.cma_ok && len >= P.cma_min))
        return -1;
    size_t k = prepush_units(len, P.self.pp_unit);
    if (k > 64)
        return -1;
    for (unsigned w = 0; w < P.prepush_words; w++) {
        /* After the loop bit u of runs is set when units u .. u + k - 1 of the word are all free:
         * doubling run lengths, then one shift for the rest (k - len <= len). */
        uint64_t runs = P.prepush_free[w];
        size_t have = 1;
        while (runs && have * 2 <= k) {
            runs &= runs >> have;
            have *= 2;
        }
        if (runs && have < k)
            runs &= runs >> (k - have);
        if (runs)
            return (int)(w * 64 + (unsigned)__builtin_ctzll(runs));
    }
    return -1;
}

static inline int prepush_take(size_t len)
{
    int u = prepush_find(len);
    if (u >= 0)
        P.prepush_free[u / 64] &= ~prepush_bits((uint64_t)u, prepush_units(len, P.self.pp_unit));
    return u;
}

/* Stream prepush. An eager message of more than STREAM_PREPUSH_MIN bytes costs the sender one
 * cache-line ownership transfer per slot it writes into the peer's ring (10 for 512 B), while its
 * prepushed form writes one RTS slot and copies the data into our own area. A lone message is still
 * faster eager (no FIN, 0.67-0.73 against 0.74-0.89 us ping-pong at 512 B), but back to back the
 * prepushed form moved 1.6-1.9 against 1.0-1.1 GB/s at 448-512 B and 3.6-3.8 against 2.1-2.3 M
 * messages/s (docs/ARCHITECTURE.md). "Back to back" is read locally, for free: no message came from
 * the peer since our previous such message to it. A ping-pong answers each message, a stream does
 * not. Without room in the area the message stays eager. P.stream_min is STREAM_PREPUSH_MIN, or
 * SIZE_MAX (off) when CREDO_EAGER_LIMIT was raised above 512 B: that asks for the mailbox
 * path, as the thesis' experiments (bench/fc, 2 KB messages of 37 slots) do. */
static inline int stream_prepush(int dest, size_t bytes)
{
    if (!mapped(dest))
        return 0;
    dest_queue *q = &P.dq[dest];
    int streaming = q->rx_at_send == q->rx_msgs;
    q->rx_at_send = q->rx_msgs;
    return streaming && prepush_find(bytes) >= 0;
}

static void activate(int dest)
{
    if (!P.dq[dest].active) {
        P.dq[dest].active = 1;
        P.active[P.nactive++] = dest;
    }
}

/* Tries to write one control item (FIN, CTS, COPY_*) to dest; each takes one credit. */
static int try_write_ctrl(int dest, const ctrl_item *c)
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
static void queue_answer(int dest, uint8_t kind, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    if (queue_ctrl(dest, kind, a, b, c, d) != 0)
        credo_abort(1, "out of memory queuing a control packet (kind %u) for rank %d", kind, dest);
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

/* Rendezvous sends waiting for a peer's answer (from the RTS until the FIN, or until the last
 * COPY_ACK of a pipelined copy): the spill rule returns that peer's held credits when we wait idle,
 * as the answer needs a credit (spill_for_waiters). */
static inline void fin_wait_add(int peer, int d)
{
    P.fin_wait[peer] += (uint32_t)d;
    P.nfin_wait += (uint32_t)d;
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

static int push_pending(void)
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
    if (P.posted_tail)
        P.posted_tail->next = r;
    else
        P.posted_head = r;
    P.posted_tail = r;
}

static inline void posted_remove(preq *r)
{
    if (r->prev)
        r->prev->next = r->next;
    else
        P.posted_head = r->next;
    if (r->next)
        r->next->prev = r->prev;
    else
        P.posted_tail = r->prev;
}

static preq *posted_match(int src, int tag, uint32_t ctx)
{
    for (preq *r = P.posted_head; r; r = r->next)
        if (match_env(r->peer, r->tag, r->ctx, src, tag, ctx)) {
            posted_remove(r);
            return r;
        }
    return NULL;
}

/* Unlinks node from a singly linked list that keeps head and tail, given its predecessor (NULL when
 * node is the head): the unexpected queues and the send queues. */
#define SLIST_UNLINK(list, prev, node)                                                             \
    do {                                                                                           \
        if (prev)                                                                                  \
            (prev)->next = (node)->next;                                                           \
        else                                                                                       \
            (list)->head = (node)->next;                                                           \
        if ((list)->tail == (node))                                                                \
            (list)->tail = (prev);                                                                 \
    } while (0)

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

static void uexp_append(uexp *u)
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

/* Copies `n` bytes that sit at message offset `moff` into a receive buffer of r->len bytes,
 * dropping whatever lies beyond the buffer (truncation never writes past it). */
static inline size_t clip(const preq *r, size_t moff, size_t n)
{
    if (moff >= r->len)
        return 0;
    return n < r->len - moff ? n : r->len - moff;
}

/* Every copy of message bytes goes through credo_copy (xport/copy.h): libc's memcpy falls off a
 * cliff on some CPUs when source and destination sit a few bytes apart modulo a page (issue 32).
 * Like it, it accepts NULL pointers for zero bytes (MPI allows NULL buffers with count 0). */
static inline void copy_bytes(void *dst, const void *src, size_t n)
{
    credo_copy(dst, src, n);
}

/* A matched receive that still waits for data from src (more eager chunks or copy chunks). */
static inline void recv_activate(preq *r, int src)
{
    r->state = PREQ_RECV_ACTIVE;
    P.active_from[src]++;
    P.nactive_recv++;
}

static void recv_finish(preq *r, int src, int tag, size_t mlen)
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
static __attribute__((noreturn)) void protocol_error(int src, const char *what, uint64_t value)
{
    credo_abort(1, "protocol error: rank %d sent a %s (value %#llx)", src, what, (unsigned long long)value);
}

/* ------------------------------------------------------------------------------------------------
 * Rendezvous */

static void rndv_copy_request(preq *r, int src, uint64_t sreq, uint64_t raddr, size_t n);

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

/* Receiver pulls a matched rendezvous message with one process_vm_readv per ~1 GiB, or asks for the
 * pipelined copy (below CREDO_CMA_MIN; by default while the sender waits inside MPI): each
 * process_vm_readv pays a system call and pins the pages it reads, which made CMA up to 4.4x slower
 * than the copy on the development VM (docs/ARCHITECTURE.md, "Choosing the rendezvous path"). */
static void net_pull_start(preq *r, int src, uint64_t raddr, uint64_t rkey, size_t have, size_t n, uint64_t sreq);

/* have: bytes of the message already in r's buffer (a network RTS's first chunk) */
static void rndv_pull(preq *r, int src, int tag, uint64_t raddr, uint64_t rkey, size_t mlen, uint64_t sreq,
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
    if (P.crecv_tail)
        P.crecv_tail->next = c;
    else
        P.crecv_head = c;
    P.crecv_tail = c;
    P.ncopy_recv++;
    P.st.rndv_copies++;
    recv_activate(r, src);
    /* CTS: a = the sender's request, b = our record, c = bytes wanted */
    queue_answer(src, P2P_PKT_CTS, sreq, c->id, n, 0);
}

/* Our record of the copy from src that a packet names, or NULL. The list holds the copies in progress
 * (a few), oldest first. */
static copy_recv *copy_recv_find(int src, uint64_t id)
{
    for (copy_recv *c = P.crecv_head; c; c = c->next)
        if (c->id == id && c->src == src)
            return c;
    return NULL;
}

static void copy_recv_free(copy_recv *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        P.crecv_head = c->next;
    if (c->next)
        c->next->prev = c->prev;
    else
        P.crecv_tail = c->prev;
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
static void peer_in_mpi(int peer)
{
    P.dq[peer].copy_rx_ns = now_ns();
    P.dq[peer].out_since_ns = 0;
}

/* Takes over, oldest first, every copy whose sender has gone quiet: reads the rest of its buffer,
 * then publishes the transfer's number on the pair's done word (shm_mbox.h, "Copy done words"),
 * from which the sender may complete its send and reuse its staging halves. Transfers of one sender
 * are taken in order: a later one is eligible only when the earlier ones are (older CTS, the same
 * sender's silence), so the word never passes a transfer that is still being copied. */
static int copy_takeover(void)
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

static void copy_job_finish(copy_job *j, int end);

/* The receiver is done with transfer j, so the send is complete without waiting for its
 * acknowledgements of our chunks (they come only with its next MPI call): the done word names j
 * (taken over, every byte read) or a later transfer (taken over after j, and the receiver finishes
 * j, by copying every chunk or by taking it over, before it takes a later one). acquire: pairs with
 * the receiver's release in copy_takeover. */
static int copy_taken_done(const copy_job *j)
{
    return atomic_load_explicit(&P.peer[j->dest].copy_done[P.rank], memory_order_acquire) >= j->seq;
}

static int copy_progress(void)
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
static void copy_ack(int src, uint64_t seq, uint64_t half, size_t len, int taken)
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
static int copy_taken_check(void)
{
    copy_job *j = P.copy_head;
    if (now_ns() - j->stage_ns < COPY_TAKEOVER_NS || !copy_taken_done(j))
        return 0;
    copy_job_finish(j, P2P_PKT_COPY_END);
    copy_progress();
    return 1;
}

/* ------------------------------------------------------------------------------------------------
 * Receive side: the mailbox poll */

/* Delivers the first chunk of an eager message (kind EAGER) that starts at slot idx. */
/* A sender writes one message's chunks before the next message's: a new message while one of the
 * same sender is still being reassembled is a protocol error (its chunks would land in the other). */
static inline void no_message_open(int src)
{
    if (__builtin_expect(P.rs[src].req || P.rs[src].ue, 0))
        protocol_error(src, "new message before the end of its previous one", P.rs[src].remaining);
}

static void on_eager(const mbox *mb, int src, uint64_t idx, uint32_t ns)
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

static void on_eager_cont(const mbox *mb, int src, uint64_t idx, uint32_t ns)
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

static void on_rts(const mbox *mb, int src, uint64_t idx, uint32_t ns)
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

static void on_ctrl_packet(const mbox *mb, int src, uint8_t kind, uint64_t idx)
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
        if (P.copy_tail)
            P.copy_tail->next = j;
        else
            P.copy_head = j;
        P.copy_tail = j;
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

static void on_fc_packet(const mbox *mb, int src, uint8_t kind, uint64_t idx)
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

static void net_pull_issue(net_pull *q);

static void net_pull_free(net_pull *q)
{
    if (q->prev)
        q->prev->next = q->next;
    else
        P.npull_head = q->next;
    if (q->next)
        q->next->prev = q->prev;
    else
        P.npull_tail = q->prev;
    if (q->mr)
        P.xo[q->src]->mr_put(q->mr);
    free(q);
}

/* One read of a pull landed in the receive buffer: the next may go (the window moves at the pace of
 * our sink), and the last one ends the pull with the FIN. */
static void net_read_done(void *ctx, int status)
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
static void net_pull_issue(net_pull *q)
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
    if (P.npull_tail)
        P.npull_tail->next = q;
    else
        P.npull_head = q;
    P.npull_tail = q;
    P.nst.rndv_pulls++;
    recv_activate(r, src);
    net_pull_issue(q);
}

static const xport_upcalls net_upcalls = {net_chunk, net_read_done};

static int net_progress(void)
{
    int outer = !P.in_poll;
    P.in_poll = 1;
    int n = P.xnet->progress(POLL_BUDGET, &net_upcalls);
    rx_pass_end(outer);
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

static int pull_deferred(void);

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

/* A receive posted while the progress thread computes for us (p2p_set_defer_pulls) matched a large
 * rendezvous request that already waited: leave the single copy to that thread, so the posting call
 * (a non-blocking collective's start, say) returns at once instead of copying a megabyte first, and
 * wake it. */
static void pull_defer(preq *r, uexp *u)
{
    r->state = PREQ_RECV_PULL;
    u->pull_req = r;
    u->next = NULL;
    if (P.pull_tail)
        P.pull_tail->next = u;
    else
        P.pull_head = u;
    P.pull_tail = u;
    mbox_doorbell(&P.self);
}

static int pull_deferred(void)
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

static p2p_lock_hooks lock_hooks;

void p2p_set_lock_hooks(const p2p_lock_hooks *h)
{
    if (h)
        lock_hooks = *h;
    else
        lock_hooks = (p2p_lock_hooks){0};
}

/* 1 while an application thread runs p2p_wait_step: the real-time progress thread reads it, without
 * the lock, to tell a call that waits (and progresses by itself) from one that posts and returns. */
static atomic_int app_in_wait_step;

int p2p_app_waiting(void)
{
    return atomic_load_explicit(&app_in_wait_step, memory_order_relaxed);
}

int p2p_oversubscribed(void)
{
    return P.oversubscribed;
}

static void wait_step(p2p_waiter *w);

/* A rank with network peers sleeps on the completion queue's wait fd (when the provider has one and
 * nothing is pending), bounded by timeout_us: the shared-memory doorbell is a futex that poll cannot
 * watch, so with peers on both transports an arrival in the ring is seen at the end of the bound
 * (1 ms idle, 100 us while sends wait; docs/ARCHITECTURE.md, "Transports"). The lock goes while it
 * sleeps, as for the doorbell. */
static void net_sleep(uint32_t timeout_us, int locked)
{
    /* Unlocked (the progress thread between passes): only poll, which consumes nothing; fi_trywait
     * needs the lock. The wake fd is what another thread of ours writes when it completed what a
     * sleeper may wait for (p2p_wake_sleeper, p2p_wake_local_sleepers): the completion queue stays
     * quiet for an event some other thread already took from it. */
    int fd = P.xnet->wait_fd();
    if (locked && fd >= 0 && !P.xnet->sleep_ok())
        return; /* something is pending: progress again */
    struct pollfd pfd[2] = {{P.wake_fd, POLLIN, 0}, {fd, POLLIN, 0}};
    struct timespec ts = {timeout_us / 1000000u, (long)(timeout_us % 1000000u) * 1000};
    if (locked)
        atomic_fetch_add_explicit(&P.local_sleepers, 1, memory_order_relaxed);
    int held = locked && lock_hooks.drop ? lock_hooks.drop() : 0;
    /* without a wait fd from the provider, a bounded sleep on the wake fd alone */
    int rc = ppoll(pfd, fd >= 0 ? 2 : 1, fd >= 0 ? &ts : &(struct timespec){0, 50000}, NULL);
    if (rc > 0 && (pfd[0].revents & POLLIN)) {
        uint64_t v;
        ssize_t got = read(P.wake_fd, &v, sizeof v); /* nonblocking: another sleeper may have read it */
        (void)got;
    }
    if (locked && lock_hooks.drop)
        lock_hooks.take(held);
    if (locked)
        atomic_fetch_sub_explicit(&P.local_sleepers, 1, memory_order_relaxed);
}

static void net_wake(void)
{
    uint64_t one = 1;
    ssize_t w = write(P.wake_fd, &one, sizeof one); /* EAGAIN only when the counter is full: awake anyway */
    (void)w;
}

/* Waits nest: a wait loop of the layer above brackets its steps, MPI_Waitall runs one p2p_wait per
 * request, and another thread may wait while ours sleeps with the lock dropped. The flags go up with
 * the outermost wait and down with it, so a receiver choosing a rendezvous path never reads them
 * down between two steps of one wait (that read made it take CMA for a sender that was waiting).
 * The depth is counted under the caller's lock, like the rest of P. relaxed: the flags are hints
 * (one sleep's length; a peer's choice of rendezvous path), ordered by nothing. */
static inline void waiting_begin(void)
{
    if (P.wait_depth++)
        return;
    atomic_store_explicit(&app_in_wait_step, 1, memory_order_relaxed);
    atomic_store_explicit(&P.self.ctl->in_wait, 1, memory_order_relaxed);
}

static inline void waiting_end(void)
{
    if (--P.wait_depth)
        return;
    atomic_store_explicit(&P.self.ctl->in_wait, 0, memory_order_relaxed);
    atomic_store_explicit(&app_in_wait_step, 0, memory_order_relaxed);
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
            net_sleep(timeout_us, 1);
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
            net_sleep(timeout_us, 0);
        return;
    }
    mbox_sleep(&P.self, next_arrival, timeout_us);
}

/* A blocking wait keeps in_wait up for its whole loop: a receiver choosing the rendezvous path reads
 * it once, and stepping it down between steps let that read see an idle sender now and then. */
static void wait_until_done(p2p_req *req)
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

/* Blocking-receive fast path: a specific-source receive with nothing queued that could match before
 * it waits at the mailbox head and, when the next chunk is a one-slot eager message that matches,
 * copies it straight into the user buffer: no request, no posted list. Anything else (another
 * sender's chunk, a longer message, queued work of our own, a long wait) falls back to the general
 * path, which then finds the chunk still at the head. Returns 1 if the message was delivered. */
static int recv_direct_spin(void *buf, size_t bytes, int src, int tag, uint32_t ctx, p2p_status *st);
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
