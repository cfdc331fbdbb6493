/* src/coll/coll_build.h — building one rank's GOAL schedule for a collective from (operation,
 * algorithm, counts, root, rank, size): pure, no transport; coll.c runs it, credosim simulates it. */
#ifndef CREDO_COLL_BUILD_H
#define CREDO_COLL_BUILD_H

#include <stddef.h>
#include <stdint.h>

struct goal_sched;

/* Same value as MPI_IN_PLACE. */
#define COLL_IN_PLACE ((const void *)1)

/* inout[i] = in[i] op inout[i] for count elements; `in` holds the lower ranks' contribution.
 * op and dt are passed through untouched (src/mpi: MPI_Op and MPI_Datatype for op_apply). */
typedef void (*coll_reduce_fn)(const void *in, void *inout, size_t count, void *op, void *dt);

typedef struct coll_op {
    coll_reduce_fn fn;
    void *op;
    void *dt;
    int commute; /* non-commutative ops get order-preserving algorithms */
} coll_op;

/* Algorithm names chosen by size and np (docs/GOAL.md), overridable by CREDO_COLL_<NAME>. */
enum coll_algo {
    COLL_ALG_AUTO = 0,
    COLL_ALG_DISSEMINATION, /* barrier */
    COLL_ALG_BINOMIAL,      /* bcast, reduce, gather, scatter */
    COLL_ALG_SCATTER_ALLGATHER, /* bcast, large */
    COLL_ALG_RECDBL,        /* allreduce, allgather */
    COLL_ALG_RING,          /* allreduce (commutative, large), allgather */
    COLL_ALG_LINEAR,        /* gather, scatter, alltoall */
    COLL_ALG_PAIRWISE,      /* alltoall, large */
    COLL_ALG_BRUCK,         /* barrier (radix 3), allgather, alltoall (small) */
    COLL_ALG_RABENSEIFNER,  /* allreduce, reduce: reduce-scatter by halving + allgather / gather */
    COLL_ALG_LINEAR_SYNC,   /* gather, large: the root asks each rank for its block in turn */
    COLL_ALG_DIRECT,        /* barrier, allreduce (small p): everyone sends to everyone, one round */
};

/* Direct barrier/allreduce (one round, p - 1 messages per rank) is the default up to 8 ranks and,
 * for allreduce, vectors up to 256 B. Measured at np 3, 4 and 8 on 2 cores (oversubscribed, ranks
 * yield): half the time of dissemination / recursive doubling, because each extra round costs a
 * context switch there. */
#define COLL_DIRECT_MAX_RANKS 8
#define COLL_DIRECT_MAX_BYTES 256

enum coll_kind {
    CK_BARRIER = 1, CK_BCAST, CK_REDUCE, CK_ALLREDUCE, CK_GATHER, CK_GATHERV, CK_SCATTER,
    CK_SCATTERV, CK_ALLGATHER, CK_ALLGATHERV, CK_ALLTOALL, CK_ALLTOALLV, CK_RSB, CK_RS, CK_SCAN,
    CK_EXSCAN, CK_NEIGHBOR
};

/* One message of a neighbourhood exchange (CK_NEIGHBOR): `bytes` bytes at byte offset `off` of the
 * send (or receive) buffer, to (or from) group rank `peer`, with schedule tag `tag`. The caller
 * picks the tags so that each send matches exactly one receive even when a peer appears several
 * times (src/mpi/topo.c: direction tags for Cartesian grids, occurrence counts for graphs). */
typedef struct coll_nbr {
    int peer, tag;
    size_t off, bytes;
} coll_nbr;

/* Everything one rank's schedule depends on. Buffers are only recorded as addresses (never read
 * while building), so a simulator may pass any non-NULL placeholders. The v-variant arrays are
 * read during the call only. op (reductions only) must outlive the schedule: its callbacks point
 * at it. */
typedef struct coll_spec {
    int kind;    /* enum coll_kind */
    int alg;     /* enum coll_algo, already chosen (coll_choose) */
    int root;
    int commute;
    const void *sb; /* may be COLL_IN_PLACE where MPI allows it */
    void *rb;
    size_t count, esize;
    size_t scount; /* v-variants: this rank's send (gatherv/allgatherv) or receive (scatterv) count */
    const int *scounts, *sdispls, *rcounts, *rdispls; /* v-variants, NULL otherwise */
    const coll_op *op;
    int nsend, nrecv;               /* CK_NEIGHBOR: its messages (read during the call only) */
    const coll_nbr *sends, *recvs;
} coll_spec;

/* Compiles rank `rank` of `size` ranks: GOAL_SUCCESS and a schedule (goal_sched_destroy frees it),
 * or a GOAL_ERR_* code. */
int coll_build(const coll_spec *spec, int size, int rank, struct goal_sched **out);

/* The default algorithm table (docs/GOAL.md); `requested` (COLL_ALG_AUTO for none) wins where it
 * is valid for the operation, else the table decides. `bytes` is the whole vector for bcast and the
 * reductions, the block per rank for gather, allgather and alltoall. Returns COLL_ALG_AUTO for
 * operations that have a single algorithm (scatter, the v-variants, reduce_scatter, scans). */
int coll_choose(int kind, size_t bytes, int p, int commute, size_t count, int requested);

/* Case-insensitive names: "dissemination", "binomial", "scatter_allgather", "recursive_doubling"
 * (or "recdbl"), "ring", "linear", "pairwise", "bruck", "rabenseifner", "linear_sync", "direct";
 * COLL_ALG_AUTO for anything else. */
int coll_algo_by_name(const char *name);
/* "barrier", "bcast", "reduce", "allreduce", "gather", "scatter", "allgather", "alltoall",
 * "reduce_scatter_block", "scan", "exscan"; 0 for anything else (v-variants need arrays). */
int coll_kind_by_name(const char *name);

#endif
