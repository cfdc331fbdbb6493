/* src/sim/sim.h — credosim's core: in-memory schedules (built in process or from GOAL text),
 * LogGOPS parameters, the cluster/flow-control model options, and the discrete-event run. */
#ifndef CREDO_SIM_H
#define CREDO_SIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- schedules ---------------------------------------------------------------------------- */

enum sim_op_kind { SIM_SEND = 0, SIM_RECV = 1, SIM_CALC = 2 }; /* same order as LogGOPSim's types */
enum sim_dep_kind { SIM_REQUIRES = 0, SIM_IREQUIRES = 1 };
#define SIM_ANY (-1) /* peer (recv only) or tag (recv only): matches anything */

/* One operation. Static fields come from the schedule; `pending` and `ready` are run state, so a
 * schedule is consumed by one run (sim_sched_reset re-arms it). 40 bytes: 1M-rank barriers keep
 * 40M of these in memory. The number of `irequires` successors is not stored: successor lists are
 * laid out in operation order, so it is the next operation's `succ` (or sim_sched.nsucc after the
 * last one) minus `succ` minus `nreq` (sim_op_nireq); storing it made the record 48 bytes. */
typedef struct sim_op {
    uint64_t size;    /* bytes (send/recv) or nanoseconds (calc) */
    uint64_t ready;   /* run state: latest finish/start time among satisfied dependencies */
    int32_t peer;     /* destination, source or SIM_ANY; 0 for calc */
    int32_t tag;
    uint32_t succ;    /* first successor in sim_sched.succ: nreq `requires` then the `irequires` */
    uint32_t nreq;
    uint32_t pending; /* run state: dependencies not yet satisfied */
    uint8_t kind, cpu, nic;
    uint8_t done;     /* run state: 1 finished, 2 receive posted (then `ready` and `pending` hold its
                         matching order and queue link, see sim_post_recv) */
} sim_op;

typedef struct sim_sched {
    uint32_t nranks;
    uint32_t ncpus, nnics;   /* 1 + the largest cpu / nic number used */
    uint64_t nops;
    uint32_t *rank_first;    /* nranks+1 entries: ops of rank r are [rank_first[r], rank_first[r+1]) */
    sim_op *ops;
    uint32_t *succ;          /* successor op indices (global) */
    uint64_t nsucc;
    uint32_t *line;          /* per op: source line in the GOAL file, or NULL for built schedules */
    char *name;              /* file name or pattern description, for messages */
} sim_sched;

/* Successors of ops[i]: [succ, end) with the `requires` ones first. */
static inline uint64_t sim_op_succ_end(const sim_sched *s, uint64_t i)
{
    return i + 1 < s->nops ? s->ops[i + 1].succ : s->nsucc;
}
static inline uint32_t sim_op_nireq(const sim_sched *s, uint64_t i)
{
    return (uint32_t)(sim_op_succ_end(s, i) - s->ops[i].succ - s->ops[i].nreq);
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

/* GOAL text through src/goal's reader (no second parser here). */
int sim_sched_from_goal_file(const char *path, sim_sched **out, char *err, size_t errlen);
int sim_sched_from_goal_mem(const char *text, size_t len, const char *name, sim_sched **out,
                            char *err, size_t errlen);
/* Writes s as GOAL text (`credosim export`). 0, or -1 on a write error / out of memory. */
int sim_sched_write_goal(FILE *f, const sim_sched *s);

/* ---- parameters --------------------------------------------------------------------------- */

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

typedef struct sim_config {
    sim_loggops lg;
    sim_cluster cl;
    uint64_t seed;               /* seeds randomness (tie jitter is off by default: results are exact) */
    sim_progress_fn progress;    /* optional, called every ~2^20 events */
    void *progress_arg;
} sim_config;

/* Runs s to completion. finish (nranks entries, may be NULL) receives each host's finish time:
 * as LogGOPSim, the latest time any of its CPUs is busy. Returns 0, or -1 with err set when the
 * schedule cannot complete (deadlock / unmatched operations) or parameters are invalid. */
int sim_run(sim_sched *s, const sim_config *cfg, uint64_t *finish, sim_stats *st, char *err,
            size_t errlen);

#endif
