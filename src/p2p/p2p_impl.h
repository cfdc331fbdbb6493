/* src/p2p/p2p_impl.h — private state of the point-to-point engine: requests, unexpected messages,
 * per-destination send queues and per-source reassembly. Only src/p2p and src/core include it. */
#ifndef CREDO_P2P_IMPL_H
#define CREDO_P2P_IMPL_H

#include <stdint.h>
#include <sys/types.h>

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

/* Stream prepush (p2p.c): eager messages of more than STREAM_PREPUSH_MIN bytes sent back to back to
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
 * COPY_DATA, so it outlives the receive when the receiver takes the rest over with CMA (p2p.c,
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
    size_t stream_min;   /* eager messages above this size may go with prepush in a stream (p2p.c) */
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
    int wake_fd;            /* eventfd: wakes this process's threads asleep in net_sleep */
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

#endif
