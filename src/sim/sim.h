/* src/sim/sim.h — credosim's core: in-memory schedules (built in process or from GOAL text),
 * LogGOPS parameters, the cluster/flow-control model options, and the discrete-event run. */
#ifndef CREDO_SIM_H
#define CREDO_SIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- schedules ---------------------------------------------------------------------------- */

enum sim_op_kind { SIM_SEND = 0, SIM_RECV = 1, SIM_CALC = 2 }; /* same order as LogGOPSim's types */
enum sim_dep_kind { SIM_REQUIRES = 0, SIM_IREQUIRES = 1 };
#define SIM_ANY (-1) /* peer (recv only) or tag (recv only): matches anything */

/* Schedules are stored as rank templates. A rank's operations, with peers made relative to the
 * rank ((peer - rank) mod nranks) and dependencies as rank-local ids, form its template; ranks with
 * identical templates share one copy (every rank of a dissemination barrier or an alltoall has the
 * same template, so a 1M-rank barrier keeps 40 operation records instead of 40M). What varies per
 * operation during a run (sim_opst, 12 bytes, and 2 bits) is kept apart, in one array over all operations.
 * Operation ids are global (rank r's are [rank_first[r], rank_first[r+1])); the static fields of
 * operation i of host h are tops[(uint32_t)(i + rank_off[h])] (sim_top_of). 32 bytes. */
typedef struct sim_top {
    uint64_t size;    /* bytes (send/recv) or nanoseconds (calc) */
    int32_t peer;     /* relative destination/source ((peer - rank) mod nranks), SIM_ANY, or 0 (calc) */
    int32_t tag;
    uint32_t succ;    /* first successor in sim_sched.tsucc (rank-local ids): nreq `requires`, then */
    uint32_t nreq;    /* nireq `irequires` */
    uint32_t nireq;
    uint8_t kind, cpu, nic;
} sim_top;

/* Run state of one operation (sim_sched_reset re-arms it: a schedule is consumed by one run).
 * 12 bytes (`ready` as two 32-bit words, read and written through sim_st_ready/sim_st_set_ready),
 * and `done` kept apart at 2 bits per operation (sim_sched.done): a 1M-rank barrier has 40M. */
typedef struct sim_opst {
    uint32_t ready[2]; /* latest finish/start time among satisfied dependencies */
    uint32_t pending;  /* dependencies not yet satisfied */
} sim_opst;
enum { SIM_OP_FINISHED = 1, SIM_OP_POSTED = 2 }; /* `done`: a posted receive's `ready` and `pending`
                                                   hold its matching order and queue link */

typedef struct sim_sched {
    uint32_t nranks;
    uint32_t ncpus, nnics;   /* 1 + the largest cpu / nic number used */
    uint64_t nops;
    uint32_t *rank_first;    /* nranks+1 entries: ops of rank r are [rank_first[r], rank_first[r+1]) */
    uint32_t *rank_off;      /* per rank: its template's first index in tops minus rank_first (mod 2^32) */
    sim_top *tops;           /* the templates' operations */
    uint64_t ntops;
    uint32_t *tsucc;         /* the templates' successor lists (rank-local op ids) */
    uint64_t ntsucc;
    uint32_t ntmpl;          /* distinct templates */
    uint64_t nsucc;          /* dependencies in the whole schedule */
    sim_opst *st;            /* per op: run state */
    uint8_t *done;           /* per op, 2 bits: 0, SIM_OP_FINISHED or SIM_OP_POSTED */
    uint32_t *line;          /* per op: source line in the GOAL file, or NULL for built schedules */
    char *name;              /* file name or pattern description, for messages */
} sim_sched;

/* Static fields of operation `op` (global id) of rank `host`. */
static inline const sim_top *sim_top_of(const sim_sched *s, uint32_t host, uint64_t op)
{
    return &s->tops[(uint32_t)((uint32_t)op + s->rank_off[host])];
}
/* The absolute peer of an operation of `host` (SIM_ANY stays; calcs have 0). */
static inline int32_t sim_top_peer(const sim_sched *s, uint32_t host, const sim_top *t)
{
    if (t->peer < 0 || t->kind == SIM_CALC)
        return t->peer;
    uint32_t p = (uint32_t)t->peer + host;
    return (int32_t)(p >= s->nranks ? p - s->nranks : p);
}
static inline uint64_t sim_st_ready(const sim_opst *o)
{
    uint64_t r;
    memcpy(&r, o->ready, sizeof r);
    return r;
}
static inline void sim_st_set_ready(sim_opst *o, uint64_t r) { memcpy(o->ready, &r, sizeof r); }
static inline unsigned sim_op_done(const sim_sched *s, uint64_t op)
{
    return s->done[op >> 2] >> ((op & 3) * 2) & 3;
}
static inline void sim_op_set_done(sim_sched *s, uint64_t op, unsigned v)
{
    uint8_t *b = &s->done[op >> 2];
    unsigned sh = (unsigned)(op & 3) * 2;
    *b = (uint8_t)((*b & ~(3u << sh)) | v << sh);
}

/* Builder: ranks must be added in order (begin_rank(0), ops, deps, begin_rank(1), ...). Op ids
 * returned by add_op are indices within the current rank, as in a GOAL rank block. */
typedef struct sim_builder sim_builder;
sim_builder *sim_builder_new(uint32_t nranks, const char *name);
int sim_builder_begin_rank(sim_builder *b, uint32_t rank);
/* Returns the rank-local op id, or -1 (out of memory / bad argument, see sim_builder_error). */
int64_t sim_builder_op(sim_builder *b, uint8_t kind, int32_t peer, int32_t tag, uint64_t size,
                       uint8_t cpu, uint8_t nic, uint32_t line);
/* ops[op] requires (or irequires) ops[on], both rank-local ids of the current rank. */
int sim_builder_dep(sim_builder *b, uint32_t op, uint32_t on, uint8_t kind);
/* Validates (peers in range, wildcards only on recv) and produces the schedule; frees b either way.
 * Returns 0, or -1 with a message in err. */
int sim_builder_finish(sim_builder *b, sim_sched **out, char *err, size_t errlen);
void sim_builder_abort(sim_builder *b);
void sim_sched_reset(sim_sched *s);
void sim_sched_free(sim_sched *s);
size_t sim_sched_bytes(const sim_sched *s);

/* Ranks the simulator supports (host numbers share a 32-bit word with the event kind). */
#define SIM_MAX_RANKS ((1u << 28) - 1)

/* GOAL text through src/goal's reader (no second parser here). Refused before anything is allocated
 * per rank: num_ranks above SIM_MAX_RANKS, and sends or receives that counting shows unmatched
 * (goal_txt_check_matching). The file variant reads at most GOAL_TXT_MAX_FILE_BYTES (1 GiB), the
 * _max one at most max_bytes (0 = that default). */
int sim_sched_from_goal_file(const char *path, sim_sched **out, char *err, size_t errlen);
int sim_sched_from_goal_file_max(const char *path, uint64_t max_bytes, sim_sched **out, char *err, size_t errlen);
int sim_sched_from_goal_mem(const char *text, size_t len, const char *name, sim_sched **out,
                            char *err, size_t errlen);
/* Writes s as GOAL text (`credosim export`). 0, or -1 on a write error / out of memory. */
int sim_sched_write_goal(FILE *f, const sim_sched *s);

/* ---- parameters --------------------------------------------------------------------------- */

/* Magnitudes: a single cost (L, o, g, a calc, a message's bytes times G, O or the cluster model's
 * per-byte costs) may be at most SIM_STEP_MAX_NS, and a run stops with an error when simulated time
 * reaches SIM_TIME_MAX_NS, so times never wrap. */
#define SIM_STEP_MAX_NS (1ull << 50)
#define SIM_TIME_MAX_NS (1ull << 62)

typedef struct sim_loggops {
    uint64_t L, o, g, G, O, S; /* ns, ns, ns, ns/byte, ns/byte, bytes (rendezvous above S) */
} sim_loggops;
/* LogGOPSim's defaults: L=2500 o=1500 g=1000 G=6 O=0 S=65535. */
void sim_loggops_default(sim_loggops *p);

/* The cluster model (active when sim_cluster.enabled): ranks in nodes of `ppn` (block mapping),
 * intra-node messages over shared memory (no credits), inter-node eager messages cut into
 * mailbox packets that consume credits through src/fc, rendezvous above `eager_max`. */
typedef struct sim_cluster {
    int enabled;
    uint32_t ppn;               /* ranks per node */
    const char *fc;             /* "none", "static", "dynamic" */
    uint32_t slots_per_peer;    /* S of the fc contract */
    uint32_t credit_slots;      /* C */
    int piggyback;              /* piggyback returned credits on data messages */
    int rr_packets;             /* inject messages packet-by-packet round-robin (old model) instead
                                   of message by message as src/p2p does */
    int hold_unexpected;        /* as src/p2p: an eager message unexpected at its first packet keeps
                                   its slots until a receive matches it; a receiver with nothing
                                   left to do releases (spills) all it holds */
    uint32_t eager_max;         /* bytes; above: rendezvous (one request packet + RMA get) */
    uint32_t pkt_payload;       /* bytes of MPI data+header per mailbox packet (56) */
    uint32_t mpi_header;        /* bytes of MPI header in the first packet (16) */
    uint64_t pio_ns;            /* CPU cost to inject one packet (PIO write) */
    uint64_t retrieve_ns;       /* CPU cost to retrieve one packet from the mailbox */
    uint64_t fc_ns;             /* CPU cost of one flow-control bookkeeping step */
    uint64_t msg_o_ns;          /* CPU overhead per MPI message (matching, request handling) */
    uint64_t nic_gap_ns;        /* NIC serialisation per packet */
    uint64_t link_pkt_ns;       /* link occupancy per packet (mesh/torus) */
    uint64_t hop_ns;            /* latency per hop */
    uint64_t wire_ns;           /* fixed network latency (NIC to NIC, excluding hops) */
    uint64_t rma_byte_ps;       /* RMA bandwidth cost, picoseconds per byte */
    uint64_t shm_o_ns, shm_byte_ps, shm_L_ns; /* intra-node copy model */
    /* topology: 0 = flat (wire_ns + 1 hop), else mesh/torus dims */
    uint32_t dims[3];
    int torus;
} sim_cluster;
/* Calibrated defaults (docs/SIMULATOR.md explains the numbers). */
void sim_cluster_default(sim_cluster *c);

/* ---- running ------------------------------------------------------------------------------ */

typedef struct sim_stats {
    uint64_t events;             /* events popped from the queue */
    uint64_t messages;
    uint64_t max_finish;         /* ns */
    uint32_t max_host;
    /* cluster model */
    uint64_t data_packets, ctrl_packets, credit_packets, piggybacked, delayed_msgs, delayed_pkts,
        eager_msgs, shm_msgs, rndv_msgs, max_mailbox,
        mailbox_overflows,     /* packets that found the receiver's mailbox full (a scheme bug) */
        held_packets,          /* --hold-unexpected: packets whose slots were held at retrieval */
        spilled_packets;       /* ... of which released by an idle-time spill, not by a match */
    double wall_s;               /* host time of the run */
    double cpu_s;                /* CPU time of the run (the machine may be shared) */
    size_t peak_queue;           /* largest event-queue size */
} sim_stats;

typedef void (*sim_progress_fn)(void *arg, uint64_t done_ops, uint64_t total_ops);

/* A look at one rank's flow-control state during a run (cluster model only): called before the
 * first event at or after each multiple of sample_ns, and once more when the run ends, with the
 * simulated time, how many of that rank's operations have finished (to place the sample in its
 * schedule), the scheme and that rank's state. It may only read the state (peer_view, counters);
 * sampling adds no event, so it changes no result. */
struct fc_ops;
struct fc_state;
typedef void (*sim_sample_fn)(void *arg, uint64_t t_ns, uint64_t ops_finished, const struct fc_ops *ops,
                              const struct fc_state *st);

typedef struct sim_config {
    sim_loggops lg;
    sim_cluster cl;
    uint64_t seed;               /* seeds randomness (tie jitter is off by default: results are exact) */
    sim_progress_fn progress;    /* optional, called every ~2^20 events */
    void *progress_arg;
    sim_sample_fn sample;        /* optional (cluster model): see sim_sample_fn */
    void *sample_arg;
    uint32_t sample_rank;        /* whose state */
    uint64_t sample_ns;          /* period in simulated time (> 0) */
} sim_config;

/* Runs s to completion. finish (nranks entries, may be NULL) receives each host's finish time:
 * as LogGOPSim, the latest time any of its CPUs is busy. Returns 0, or -1 with err set when the
 * schedule cannot complete (deadlock / unmatched operations) or parameters are invalid. */
int sim_run(sim_sched *s, const sim_config *cfg, uint64_t *finish, sim_stats *st, char *err,
            size_t errlen);

#endif
