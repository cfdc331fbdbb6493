/* src/p2p/p2p_impl.h — private state of the point-to-point engine: requests, unexpected messages,
 * per-destination send queues and per-source reassembly. Only src/p2p and src/core include it. */
#ifndef CREDO_P2P_IMPL_H
#define CREDO_P2P_IMPL_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "base/base.h"
#include "credo/stats.h"
#include "fc/fc.h"
#include "p2p/p2p.h"
#include "p2p/p2p_proto.h"
#include "fc/rdrp.h"
#include "xport/shm.h"
#include "xport/xport.h"

enum preq_state {
    PREQ_FREE = 0,
    PREQ_SEND_QUEUED,   /* in its destination's send queue (not or partly written) */
    PREQ_SEND_STAGED,   /* one-slot message in the send batch, completes when the batch is written */
    PREQ_SEND_WAIT_FIN, /* RTS written; waits for the receiver to pull */
    PREQ_SEND_COPY,     /* pipelined-copy rendezvous in progress */
    PREQ_SEND_SELF,     /* large or synchronous send to self, waiting in the unexpected queue */
    PREQ_RECV_POSTED,   /* in the posted-receive list */
    PREQ_RECV_ACTIVE,   /* matched; more eager chunks or copy chunks to come */
    PREQ_RECV_PULL,     /* matched a rendezvous request; its CMA pull is left to the progress thread */
    PREQ_DONE,
};

/* A send's cancel state: none, a CANCEL for its request-to-send is out and unanswered, or out and
 * the send finished meanwhile (its completion waits for the answer, which names the request). */
enum { CANCEL_NONE = 0, CANCEL_OUT, CANCEL_OUT_FINISHED };

typedef struct preq {
    p2p_req pub; /* first: a p2p_req * is a preq * */
    struct preq *next, *prev;
    unsigned char *buf;
    size_t len;   /* send: message bytes; recv: buffer bytes */
    size_t off;   /* bytes of the message handled so far */
    size_t mlen;  /* recv: full message length (for truncation) */
    int peer;
    int tag;
    uint32_t ctx;
    uint8_t state;
    uint8_t mode;
    uint8_t rndv;
    uint8_t user_freed;
    uint8_t started; /* send: first chunk written */
    uint8_t prepushed; /* send: rendezvous whose data went into prepush units with the RTS */
    uint8_t cancel_sent; /* send: CANCEL_* below */
    uint32_t pregranted; /* send: credits already taken for its next chunk (send batching) */
    uint64_t delay_t0; /* send: when it was first refused credits (0 = never) */
    uint32_t id;  /* index in P.req_tab, for life: peers name a request by (gen, id), never by address */
    uint32_t gen; /* bumped at every req_alloc (never 0), so a stale or replayed name is refused */
    void *mr;     /* send to a network peer: the registration its RTS named, until the FIN */
} preq;

enum uexp_kind { UEXP_EAGER = 1, UEXP_RTS = 2, UEXP_SELF = 3 };

typedef struct uexp {
    struct uexp *next;
    uint64_t seq;        /* arrival order over all sources, for ANY_SOURCE */
    int src;
    int tag;
    uint32_t ctx;
    uint8_t kind;
    uint8_t probed;      /* taken by p2p_improbe: out of the queue, held nothing, owned by a p2p_msg */
    uint32_t held;       /* mailbox slots charged to this message until it is matched */
    size_t len;          /* message length */
    size_t received;     /* eager: bytes arrived so far */
    uint64_t raddr, sreq; /* rts */
    uint64_t rkey;       /* rts from a network peer: the key of its registered buffer */
    preq *self_send;     /* self: the sender's request (large/synchronous) */
    preq *pull_req;      /* rts in the deferred-pull list: the receive it goes to */
    unsigned char data[]; /* eager and small self payload */
} uexp;

typedef struct uexp_list {
    uexp *head, *tail;
} uexp_list;

/* Control packets waiting for a credit towards one destination (they overtake queued messages). */
typedef struct ctrl_item {
    struct ctrl_item *next;
    uint8_t kind;
    uint64_t a, b, c, d;
} ctrl_item;

/* Stream prepush (p2p_rndv.c): eager messages of more than STREAM_PREPUSH_MIN bytes sent back to back to
 * one peer go with prepush, as long as the eager limit is at most STREAM_PREPUSH_EAGER_MAX. From 209 B
 * on it also raised the message rate, but it cost bidirectional bandwidth below 385 B
 * (docs/ARCHITECTURE.md, stream prepush). */
#define STREAM_PREPUSH_MIN 384
#define STREAM_PREPUSH_EAGER_MAX 512

typedef struct dest_queue {
    preq *head, *tail;
    ctrl_item *chead, *ctail;
    int active;
    uint32_t rx_msgs;    /* messages (eager or RTS) received from this peer, mod 2^32 */
    uint32_t rx_at_send; /* rx_msgs when we last sent it a message eligible for stream prepush */
    uint64_t copy_rx_ns; /* when its last pipelined-copy chunk for us came (copy_takeover) */
    uint64_t out_since_ns; /* copy_takeover: since when it reads as not waiting in MPI (0 = it is) */
    uint64_t cts_sent;   /* CTSs we sent it: the sequence number of our latest copy from it */
    uint64_t cts_got;    /* CTSs it sent us: the sequence number of our latest copy to it */
} dest_queue;

/* Per-source reassembly of an eager message that arrives in several chunks. */
typedef struct reasm {
    preq *req;   /* matched receive, or */
    uexp *ue;    /* unexpected entry being filled */
    size_t remaining;
} reasm;

/* Pipelined-copy rendezvous, sender side (one active transfer at a time, FIFO of waiting ones). */
typedef struct copy_job {
    struct copy_job *next;
    preq *sreq;
    uint64_t rreq;
    int dest;
    size_t total, staged, acked;
    uint64_t seq;      /* the transfer's number between us and dest (copy done words) */
    uint64_t stage_ns; /* when we last staged a chunk (copy_taken_check) */
    uint8_t half_busy[2];
    uint8_t taken; /* the receiver read the rest with CMA: stage nothing more */
} copy_job;

/* Pipelined-copy rendezvous, receiver side: one record per transfer, named in the CTS and in every
 * COPY_DATA, so it outlives the receive when the receiver takes the rest over with CMA (p2p_rndv.c,
 * copy_takeover): it then only acknowledges the chunks still coming, until the sender's COPY_END. */
typedef struct copy_recv {
    struct copy_recv *next, *prev;
    preq *r;          /* the receive; NULL once taken over */
    int src;
    size_t off, n;    /* bytes in place so far, bytes wanted */
    uint64_t raddr;   /* the sender's buffer, for the takeover */
    uint64_t cts_ns;  /* when the CTS went */
    uint64_t seq;     /* the transfer's number between src and us (copy done words) */
    uint64_t id;      /* its name in CTS and COPY_DATA: a number never reused, never its address */
} copy_recv;

/* Receiver-driven chunked rendezvous over the network (seed 002): the receiver reads the sender's
 * registered buffer in chunks of P.rndv_chunk bytes with at most P.rndv_window reads outstanding; a
 * chunk that landed releases the next read, so the pull runs at the pace of the receiver's sink. The
 * window's book-keeping is src/fc/rdrp.h, the code credosim's model runs too. */
#define NET_PULL_MAX_WINDOW 64 /* CREDO_RNDV_WINDOW's cap: one bit per outstanding read */
struct net_pull;
typedef struct net_read {
    struct net_pull *q;
    uint32_t len;
} net_read;
typedef struct net_pull {
    struct net_pull *next, *prev;
    preq *r;
    int src;
    uint64_t sreq;          /* the sender's request, echoed in the FIN */
    uint64_t raddr, rkey;   /* the sender's buffer as its RTS named it */
    rdrp_win w;             /* which bytes are read, which outstanding */
    uint64_t busy;          /* bit i: reads[i] is posted */
    void *mr;               /* our receive buffer's registration (providers with FI_MR_LOCAL) */
    net_read reads[NET_PULL_MAX_WINDOW]; /* each read's context: completions come in any order */
} net_pull;

typedef struct p2p_engine {
    int rank, size;
    const fc_ops *fc;
    fc_state *fcs;
    int fc_credits; /* 0 for the none scheme: ring room is checked against the owner's head */
    mbox self;           /* our own mailbox (the shared-memory transport's receive ring) */
    xshm_rx *rx;         /* its receive side: the next slot to read, occupancy samples (xport/shm.h) */
    mbox *peer;          /* [size] each peer's view: where chunks for it are written; peer[rank] unused */
    pid_t *pid;          /* [size] each rank's process (p2p_pid: the windows' CMA on one node) */
    uint64_t *cached_head; /* [size], none scheme */
    preq *posted_head, *posted_tail;
    uexp_list *uq;       /* [size] */
    uint64_t uexp_seq;
    reasm *rs;           /* [size] */
    dest_queue *dq;      /* [size] */
    int *active;         /* ranks with queued work */
    int nactive;
    int wait_depth;      /* nested waits in progress (waiting_begin); the flags are up while > 0 */
    preq *free_reqs;
    preq **req_tab;        /* every request ever allocated, by id (req_from_handle) */
    uint32_t req_tab_n, req_tab_cap;
    uint64_t crecv_ids;    /* last copy_recv id handed out */
    copy_job *copy_head, *copy_tail;
    copy_recv *crecv_head, *crecv_tail; /* our pipelined-copy receives, oldest first, including
                                         * taken-over ones */
    int ncopy_recv;        /* of those, the ones not complete yet (copy_takeover looks at them) */
    uexp *pull_head, *pull_tail; /* matched rendezvous requests whose pull waits for progress */
    size_t defer_pull_min;       /* 0: pull at match time; else pulls of this size or more wait */
    size_t copy_chunk;
    unsigned char *staging; /* our own staging area (2 halves) */
    /* our prepush area is self.pp_area, in units of self.pp_unit bytes (0: prepush off) */
    uint64_t prepush_free[MBOX_PREPUSH_UNITS / 64]; /* bit u % 64 of word u / 64: unit u is free
                                                      * (a receiver's FIN returns it) */
    unsigned prepush_words; /* words of prepush_free in use (a message's units lie within one) */
    int cma_ok;
    size_t cma_min;      /* rendezvous messages below this size take the pipelined copy even with CMA */
    int cma_idle;        /* ... unless their sender is not waiting inside MPI (CREDO_CMA_MIN=auto) */
    size_t stream_min;   /* eager messages above this size may go with prepush in a stream (p2p_rndv.c) */
    size_t eager_limit;
    size_t first_room;   /* payload bytes of a one-slot message (slot size - 24) */
    uint32_t spin_polls;
    int oversubscribed;  /* more ranks than online CPUs */
    uint64_t yield_ns;
    /* Threads of this process (MPI_THREAD_MULTIPLE): completions and unexpected arrivals counted,
     * so a thread leaving p2p rings the doorbell for another one that sleeps on it only when it
     * did something that sleeper may wait for (p2p_wake_local_sleepers). */
    uint64_t local_events;
    uint64_t local_events_rung;
    _Atomic uint32_t local_sleepers;
    /* Send batching (docs/ARCHITECTURE.md): one-slot messages of back-to-back isends to one
     * destination are staged here as finished slot images and written with one reservation. */
    unsigned char *stage;   /* [send_batch * slot_size], cache-line aligned */
    uint16_t *stage_used;   /* [send_batch] bytes of each slot image after the seq word */
    struct preq **stage_req; /* [send_batch] staged send requests, completed when written */
    uint8_t *stage_chunk_slots; /* [send_batch] slots of each staged message */
    uint32_t stage_n;       /* slot images staged (0 = none) */
    uint32_t stage_nchunks; /* messages staged */
    uint32_t send_batch;    /* most slots per batch; 0 = batching off (or no credits) */
    int stage_dest;         /* destination of the staged images */
    int last_isend_dest;    /* destination of the last isend if nothing else ran since, else -1 */
    /* statistics */
    uint64_t held_slots, unexpected_bytes;
    uint32_t *held_src;  /* [size] slots held by unmatched messages per source */
    uint32_t *active_from; /* [size] matched receives still waiting for data from each source */
    uint32_t *fin_wait;    /* [size] our rendezvous sends waiting for each peer's FIN, CTS or COPY_ACKs */
    uint32_t nfin_wait;    /* their sum */
    int nactive_recv;
    int probe_src;
    int in_poll;        /* inside a mailbox pass: flow-control packets are sent at its end */
    int fc_dirty;       /* source of the last unsuccessful probe (-2 = none), for the spill rule */
    credo_fc_stats st;
    /* Transports: P.xo[r] carries rank r (xport/xport.h), P.xnet is the one other than shared memory in
     * use (NULL: none), P.nnet counts the peers it carries. */
    const xport_ops **xo;   /* [size] */
    const xport_ops *xnet;
    int *node;              /* [size] each rank's node, numbered by its lowest rank (p2p_node_of) */
    int nnet;
    int wake_fd;            /* xshm_wake_fd(): wakes this process's threads asleep in net_sleep, rung
                             * by our other threads and by shared-memory peers' doorbells */
    /* The network's wait fd as net_sleep finds it (read and written without the lock by the progress
     * thread too: relaxed atomics, hints only): progress passes that handed something up, the count
     * at the last wake-up by the fd, wake-ups by the fd in a row after which progress found nothing,
     * and whether the fd was found useless (always readable: libfabric 1.17's "net"). */
    _Atomic uint64_t net_events;
    _Atomic uint64_t net_events_at_wake;
    _Atomic uint32_t net_fd_idle_wakes;
    _Atomic int net_fd_useless;
    int debug;              /* CREDO_DEBUG: notes on transport decisions (p2p_init copies it: the engine's
                             * files read no configuration themselves) */
    net_pull *npull_head, *npull_tail; /* network pulls in progress */
    int npull_blocked;      /* a read was refused (-EAGAIN): retry issuing at the next progress */
    size_t rndv_chunk;      /* CREDO_RNDV_CHUNK */
    uint32_t rndv_window;   /* CREDO_RNDV_WINDOW */
    size_t rts_inline_max;  /* most bytes a network RTS carries (the first chunk; p2p_init) */
    size_t net_eager_limit; /* CREDO_NET_EAGER_LIMIT, resolved (p2p_init) */
    uint32_t net_outstanding; /* reads outstanding over all pulls */
    credo_net_stats nst;
} p2p_engine;

/* Hidden: the engine is private to libcredo, so the hot paths address it directly instead of loading
 * its address from the GOT first (an exported variable could be interposed or copy-relocated). */
extern p2p_engine P __attribute__((visibility("hidden")));


/* ------------------------------------------------------------------------------------------------
 * Shared by the engine's files (p2p_req.c, p2p_eager.c, p2p_rndv.c, p2p_ctrl.c, p2p_progress.c): hidden
 * functions and the inline helpers of the hot paths. */

#define P2P_HIDDEN __attribute__((visibility("hidden")))

/* The engine's lists: node unlinked from a doubly linked list kept as (head, tail); node (its next
 * already NULL, its prev set where the list has one) appended to a list kept as (head, tail). */
#define DLIST_UNLINK(head, tail, node)                                                             \
    do {                                                                                           \
        if ((node)->prev)                                                                          \
            (node)->prev->next = (node)->next;                                                     \
        else                                                                                       \
            (head) = (node)->next;                                                                 \
        if ((node)->next)                                                                          \
            (node)->next->prev = (node)->prev;                                                     \
        else                                                                                       \
            (tail) = (node)->prev;                                                                 \
    } while (0)
#define LIST_APPEND(head, tail, node)                                                              \
    do {                                                                                           \
        if (tail)                                                                                  \
            (tail)->next = (node);                                                                 \
        else                                                                                       \
            (head) = (node);                                                                       \
        (tail) = (node);                                                                           \
    } while (0)

/* p2p_req.c: requests and matching */
P2P_HIDDEN __attribute__((noinline, cold)) preq *req_new(void);
P2P_HIDDEN preq *req_from_handle(uint64_t h, int peer);
P2P_HIDDEN void req_complete(preq *r);
P2P_HIDDEN preq *posted_match(int src, int tag, uint32_t ctx);
P2P_HIDDEN void uexp_append(uexp *u);
P2P_HIDDEN void recv_finish(preq *r, int src, int tag, size_t mlen);
/* p2p_eager.c: the send side and eager messages */
P2P_HIDDEN void stage_flush(void);
P2P_HIDDEN void held_add(int src, uint32_t n, size_t bytes);
P2P_HIDDEN void held_sub(int src, uint32_t n, size_t bytes);
P2P_HIDDEN void activate(int dest);
P2P_HIDDEN int push_pending(void);
P2P_HIDDEN void on_eager(const mbox *mb, int src, uint64_t idx, uint32_t ns);
P2P_HIDDEN void on_eager_cont(const mbox *mb, int src, uint64_t idx, uint32_t ns);
/* p2p_rndv.c: rendezvous */
P2P_HIDDEN void prepush_give_back(int src, uint64_t u, uint64_t k);
P2P_HIDDEN void rndv_pull(preq *r, int src, int tag, uint64_t raddr, uint64_t rkey, size_t mlen, uint64_t sreq, size_t have);
P2P_HIDDEN copy_recv *copy_recv_find(int src, uint64_t id);
P2P_HIDDEN void copy_recv_free(copy_recv *c);
P2P_HIDDEN void peer_in_mpi(int peer);
P2P_HIDDEN int copy_takeover(void);
P2P_HIDDEN int copy_progress(void);
P2P_HIDDEN void copy_ack(int src, uint64_t seq, uint64_t half, size_t len, int taken);
P2P_HIDDEN int copy_taken_check(void);
P2P_HIDDEN void on_rts(const mbox *mb, int src, uint64_t idx, uint32_t ns);
P2P_HIDDEN void net_read_done(void *ctx, int status);
P2P_HIDDEN void net_pull_issue(net_pull *q);
P2P_HIDDEN void pull_defer(preq *r, uexp *u);
P2P_HIDDEN int pull_deferred(void);
/* p2p_ctrl.c: control packets */
P2P_HIDDEN void send_fc_ctrl_packets(void);
P2P_HIDDEN int try_write_ctrl(int dest, const ctrl_item *c);
P2P_HIDDEN void queue_answer(int dest, uint8_t kind, uint64_t a, uint64_t b, uint64_t c, uint64_t d);
P2P_HIDDEN void on_ctrl_packet(const mbox *mb, int src, uint8_t kind, uint64_t idx);
P2P_HIDDEN void on_fc_packet(const mbox *mb, int src, uint8_t kind, uint64_t idx);
/* p2p_progress.c: progress and waiting */
P2P_HIDDEN void wait_until_done(p2p_req *req);
extern P2P_HIDDEN p2p_lock_hooks lock_hooks;
extern P2P_HIDDEN atomic_int app_in_wait_step;
/* Ending the job over a peer's failure (p2p_eager.c) or a packet that breaks the protocol (p2p_req.c),
 * naming the peer. */
P2P_HIDDEN __attribute__((noreturn, cold)) void xport_fatal(int peer, int rc, const char *what);
P2P_HIDDEN __attribute__((noreturn)) void protocol_error(int src, const char *what, uint64_t value);

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

/* Rendezvous sends waiting for a peer's answer (from the RTS until the FIN, or until the last
 * COPY_ACK of a pipelined copy): the spill rule returns that peer's held credits when we wait idle,
 * as the answer needs a credit (spill_for_waiters). */
static inline void fin_wait_add(int peer, int d)
{
    P.fin_wait[peer] += (uint32_t)d;
    P.nfin_wait += (uint32_t)d;
}

static inline void posted_remove(preq *r)
{
    DLIST_UNLINK(P.posted_head, P.posted_tail, r);
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

#endif
