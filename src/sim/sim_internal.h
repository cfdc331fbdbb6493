/* src/sim/sim_internal.h — state shared by the engine files of credosim: the event queue, the
 * message/match pool, the per-run engine struct and the hooks of the cluster/flow-control model. */
#ifndef CREDO_SIM_INTERNAL_H
#define CREDO_SIM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "sim/sim.h"

#define SIM_NIL UINT32_MAX

/* Events are ordered by (time, seq). seq is LogGOPSim's insertion stamp: a new operation or message
 * takes the next one, a deferred (re-inserted) event keeps its own, so ties resolve exactly as
 * LogGOPSim resolves them. The kind lives in the top 4 bits of hostkind (hosts < 2^28). */
typedef struct sim_event {
    uint64_t time;
    uint64_t seq;
    uint32_t ref;
    uint32_t hostkind;
} sim_event;

enum sim_ev_kind {
    EV_OP = 0,    /* ref = op: try to start it */
    EV_MSG = 1,   /* ref = msg: LogGOPS message arrival at its destination */
    EV_PKT = 2,   /* ref = pooled packet: cluster model, a shared-memory packet lands in a mailbox */
    EV_CPU = 3,   /* cluster model: the rank's CPU is free, run its progress engine */
    EV_RMA = 4,   /* ref = msg: cluster model, rendezvous RMA get finished */
    EV_WAKE = 5,  /* ref = wait class: its lowest-seq deferred event may try again */
    EV_CHAN = 6,  /* ref = channel: cluster model, the head packet of a node pair's channel lands */
};
#define EV_HOST(e) ((e)->hostkind & 0x0fffffffu)
#define EV_KIND(e) ((e)->hostkind >> 28)

/* Two exact layouts of one queue (see sim_engine.c, "event queue"):
 * - LogGOPS model: a 4-ary heap plus a sorted FIFO lane: events pushed in non-decreasing key order
 *   (the common case: initial operations, per-host chains) bypass the heap entirely.
 * - Cluster model (radix = 1): a radix heap on time, with the events of the current time in a
 *   bucket kept in seq order. Every push there is not earlier than the last popped time (time never
 *   goes back), which is all a radix heap needs; a push below it (not expected) goes to the 4-ary
 *   heap, so the order stays exact regardless. */
typedef struct sim_evkey {
    uint64_t time, seq;
} sim_evkey;

#define SIM_RB_N 65 /* bucket 0: time == last_time, in seq order from b0head on; 1..64: time
                       differs from last_time first at bit b-1 */

typedef struct sim_rbucket {
    sim_event *e;
    uint32_t n, cap;
} sim_rbucket;

typedef struct sim_evq {
    sim_evkey *hk;    /* heap keys, node i at hk[i + 3] (see sim_engine.c) */
    uint64_t *hp;     /* heap payloads: ref | hostkind << 32 */
    size_t n, cap;
    sim_event *fifo;
    size_t fhead, fcount, fcap; /* fcap is a power of two */
    size_t peak;
    int radix;        /* the radix layout (set before the first push; the FIFO lane is then unused) */
    uint64_t last_time; /* radix: the last time taken out (all queued radix times are >= it) */
    uint32_t b0head;  /* radix: bucket 0's next event (its events before b0head were taken out);
                         b0head < rb[0].n, or both are 0: the pop that empties bucket 0 resets both */
    size_t rn;        /* radix: events in the buckets */
    uint64_t early;   /* radix: pushes below `last` that went to the 4-ary heap (expected 0) */
    uint64_t rmask[2]; /* radix: bit b set = bucket b not empty */
    sim_rbucket rb[SIM_RB_N];
} sim_evq;

int sim_evq_init(sim_evq *q);
void sim_evq_free(sim_evq *q);
int sim_evq_push(sim_evq *q, const sim_event *e);
int sim_evq_pop(sim_evq *q, sim_event *out); /* 1 popped, 0 when empty, -1 out of memory (radix) */
static inline size_t sim_evq_size(const sim_evq *q) { return q->n + q->fcount + q->rn; }

/* A message in flight, an unexpected message, or a posted receive. One pool for all three: an
 * arriving message moves to the unexpected queue without a copy. */
typedef struct sim_msg {
    uint64_t seq;      /* matching order within the queues */
    uint64_t size;
    uint64_t time;     /* send start (messages) */
    uint32_t bnext;    /* next in its (host, src, tag) bucket */
    uint32_t hprev, hnext; /* host-ordered list: unexpected queue, or wildcard receives */
    uint32_t op;       /* send op (messages) or recv op (receives) */
    uint32_t src, dst; /* hosts */
    int32_t peer;      /* receives: requested source or SIM_ANY */
    int32_t tag;
    uint8_t cpu, nic;  /* of the send op (messages) or recv op (receives) */
    uint8_t rndv;      /* message uses the rendezvous protocol */
    uint8_t hold;      /* cluster model, --hold-unexpected: 0 no packet retrieved yet, 1 its slots
                          are held (unexpected at its first packet), 2 they are released */
    uint32_t held;     /* packets retrieved and held */
    uint32_t hold_epoch; /* the receiver's spill epoch when holding began (a spill releases all) */
} sim_msg;

/* 16 bytes: at 1M ranks a dissemination barrier has 20M receives posted at once (32M buckets).
 * The (src, tag) of the key is not stored: it is that of the head entry (a posted receive's
 * operation or an unexpected message; a bucket is deleted when it empties), read only when host
 * and hash agree, i.e. almost only for the bucket sought, whose head the caller reads anyway. The
 * low 32 bits of the key's hash are stored instead (20 -> 16 bytes): they give the home slot for
 * deletion and resizing (the table never exceeds 2^32 slots) and filter the comparisons. */
#define SIM_BK_BLOCK_BITS 12
#define SIM_BK_HOST 0x0fffffffu /* hosts < 2^28 */
#define SIM_BK_LIVE (1u << 30)

typedef struct sim_bucket {
    uint32_t hostq;    /* host | SIM_BK_LIVE | queue << 31 (0 = posted exact receives, 1 = unexpected);
                          0 = empty (so a fresh calloc'd table needs no initialising pass) */
    uint32_t hash;     /* low 32 bits of bhash(hostq, src, tag) */
    uint32_t head, tail;
} sim_bucket;

typedef struct sim_freed {
    uint32_t host, op;
} sim_freed;

struct sim_cl; /* cluster model state, sim_cluster.c */

/* Events deferred on the same busy resources (one host's calcs, its sends or its arrivals, with
 * one CPU and one NIC per host): a heap by seq, represented in the event queue by one wake event.
 * All members wait for the same free time, so their LogGOPSim keys are (free time, own seq) and
 * only the lowest seq can be next; the others would only be popped to be re-queued (O(k^2)). */
typedef struct sim_wait {
    uint64_t *seq;    /* heap by seq; parallel array ref */
    uint32_t *ref;
    uint32_t n, cap;
    uint64_t wake_seq; /* seq of the live wake event (a stale one is skipped) */
    uint8_t wake_live, kind;
} sim_wait;

typedef struct sim_engine {
    sim_sched *s;
    const sim_config *cfg;
    sim_loggops lg;
    uint32_t nc, nn;            /* cpus, nics per host */
    uint64_t *nexto, *nextgs, *nextgr;
    sim_evq q;
    uint64_t seq;
    uint64_t now;
    /* message pool */
    sim_msg *m;
    uint32_t mcap, mfree;
    /* match buckets: open addressing, linear probing, backward-shift deletion */
    sim_bucket *bk;
    uint64_t bcap, bcount;
    uint64_t nblocks;           /* host-ordered layout (bk_home): hosts are spread over nblocks
                                   blocks of 2^SIM_BK_BLOCK_BITS slots in rank order; 0 = the
                                   home slot is the hash alone */
    int hashed_only;            /* CREDOSIM_HASHED_BUCKETS=1: never host blocks */
    uint64_t blk_mul;           /* a host's block: host * blk_mul >> 32 */
    uint32_t *nrecv;            /* per host: receive operations (sizes the layout's blocks) */
    uint64_t nrecv_total;
    uint64_t mseq;
    uint32_t *uq_head, *uq_tail, *wr_head, *wr_tail; /* per host */
    uint64_t nunexp, nwild;     /* unexpected messages / wildcard receives queued anywhere: while
                                   zero, matching skips those lists (no per-host loads) */
    uint64_t bulk;              /* nonzero while the initial operations run: exact receives are
                                   only numbered (and counted: bulk - 1 of them), their buckets
                                   are filled afterwards in table order (bulk_post) */
    /* operations freed while handling the current event */
    sim_freed *fl;
    size_t nfl, capfl;
    uint64_t ops_done;
    uint64_t prefetch_calls;    /* see prefetch_ahead */
    /* grouped deferral (nc == nn == 1 only): per host and event kind (calc, send, message) */
    uint32_t *wait_of;          /* 3 per host: index into waits, or SIM_NIL */
    sim_wait *waits;
    uint32_t nwaits, capwaits;
    sim_stats st;
    struct sim_cl *cl;
    char *err;
    size_t errlen;
    int failed;
} sim_engine;

int sim_fail(sim_engine *E, const char *fmt, ...);
uint32_t sim_msg_new(sim_engine *E);
void sim_msg_free(sim_engine *E, uint32_t i);
int sim_push(sim_engine *E, uint64_t time, uint64_t seq, uint32_t ref, uint32_t host, uint32_t kind);
static inline uint64_t sim_next_seq(sim_engine *E) { return E->seq++; }

/* Dependency bookkeeping: an operation started (irequires) or finished (requires) at time t. */
void sim_op_started(sim_engine *E, uint32_t host, uint32_t op, uint64_t t);
void sim_op_finished(sim_engine *E, uint32_t host, uint32_t op, uint64_t t);

/* Matching: a message (already counted as arrived at E->now) meets the posted receives of its
 * destination; returns the matched receive operation or SIM_NIL (then the caller files it
 * unexpected). */
uint32_t sim_match_posted(sim_engine *E, uint32_t host, uint32_t src, int32_t tag, int remove);
void sim_file_unexpected(sim_engine *E, uint32_t mi);
uint32_t sim_match_unexpected(sim_engine *E, uint32_t host, int32_t src, int32_t tag);
void sim_post_recv(sim_engine *E, uint32_t host, uint32_t op);

/* cluster model (sim_cluster.c) */
int sim_cl_init(sim_engine *E);
void sim_cl_free(sim_engine *E);
int sim_cl_is_remote(sim_engine *E, uint32_t a, uint32_t b);
void sim_cl_send(sim_engine *E, uint32_t host, uint32_t op, uint64_t t);
void sim_cl_event(sim_engine *E, const sim_event *ev);
void sim_cl_recv_matched(sim_engine *E, uint32_t host, uint32_t recv_op, uint32_t mi, uint64_t t);
void sim_cl_stats(sim_engine *E);
void sim_cl_sample(sim_engine *E, uint64_t t);

#endif
