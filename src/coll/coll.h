/* src/coll/coll.h — MPI collectives as GOAL schedules: the internal API src/mpi calls (blocking
 * and non-blocking), on dense byte buffers with an element size and a reduction callback. */
#ifndef CREDO_COLL_H
#define CREDO_COLL_H

#include <stddef.h>
#include <stdint.h>

#include "goal/goal_exec.h"
#include "p2p/p2p.h"

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

struct coll_cache;

/* One per communicator. Collectives of a communicator must be called in the same order on all its
 * ranks (MPI rule); they travel on `ctx` (the communicator's collective context) with tags that
 * include a per-communicator sequence number, so several non-blocking ones may be in flight. */
typedef struct coll_comm {
    goal_group grp;
    struct coll_cache *cache;
} coll_comm;

/* job_of: comm rank -> job rank, not copied: it must stay valid while c lives (NULL = identity). */
int coll_comm_init(coll_comm *c, int size, int rank, const int *job_of, uint32_t ctx);
/* Frees cached schedules; no collective of c may be in flight. */
void coll_comm_destroy(coll_comm *c);

/* Buffers are dense: count elements of esize bytes each, contiguous. Counts are elements.
 * sb may be COLL_IN_PLACE where MPI allows MPI_IN_PLACE. Return 0 or a GOAL_ERR_* code.
 * The i-variants return a request completed by progress (p2p_wait / p2p_req_free work on it;
 * status.error carries the GOAL_ERR_* code, 0 on success). Buffers must stay valid until then. */
int coll_ibarrier(coll_comm *c, p2p_req **req);
int coll_ibcast(void *buf, size_t count, size_t esize, int root, coll_comm *c, p2p_req **req);
int coll_ireduce(const void *sb, void *rb, size_t count, size_t esize, const coll_op *op, int root,
                 coll_comm *c, p2p_req **req);
int coll_iallreduce(const void *sb, void *rb, size_t count, size_t esize, const coll_op *op,
                    coll_comm *c, p2p_req **req);
int coll_igather(const void *sb, void *rb, size_t count, size_t esize, int root, coll_comm *c,
                 p2p_req **req);
/* v-variants: counts/displs in elements, as in MPI (only significant at the root for gatherv and
 * scatterv); they are copied, so the arrays may be freed after the call. */
int coll_igatherv(const void *sb, size_t scount, void *rb, const int *rcounts, const int *displs,
                  size_t esize, int root, coll_comm *c, p2p_req **req);
int coll_iscatter(const void *sb, void *rb, size_t count, size_t esize, int root, coll_comm *c,
                  p2p_req **req);
int coll_iscatterv(const void *sb, const int *scounts, const int *displs, void *rb, size_t rcount,
                   size_t esize, int root, coll_comm *c, p2p_req **req);
int coll_iallgather(const void *sb, void *rb, size_t count, size_t esize, coll_comm *c,
                    p2p_req **req);
int coll_iallgatherv(const void *sb, size_t scount, void *rb, const int *rcounts, const int *displs,
                     size_t esize, coll_comm *c, p2p_req **req);
int coll_ialltoall(const void *sb, void *rb, size_t count, size_t esize, coll_comm *c,
                   p2p_req **req);
int coll_ialltoallv(const void *sb, const int *scounts, const int *sdispls, void *rb,
                    const int *rcounts, const int *rdispls, size_t esize, coll_comm *c,
                    p2p_req **req);
int coll_ireduce_scatter_block(const void *sb, void *rb, size_t count, size_t esize,
                               const coll_op *op, coll_comm *c, p2p_req **req);
int coll_ireduce_scatter(const void *sb, void *rb, const int *rcounts, size_t esize,
                         const coll_op *op, coll_comm *c, p2p_req **req);
int coll_iscan(const void *sb, void *rb, size_t count, size_t esize, const coll_op *op,
               coll_comm *c, p2p_req **req);
int coll_iexscan(const void *sb, void *rb, size_t count, size_t esize, const coll_op *op,
                 coll_comm *c, p2p_req **req);

/* Blocking forms: start, wait, release. */
int coll_wait(p2p_req *req);
int coll_barrier(coll_comm *c);
int coll_bcast(void *buf, size_t count, size_t esize, int root, coll_comm *c);
int coll_reduce(const void *sb, void *rb, size_t count, size_t esize, const coll_op *op, int root,
                coll_comm *c);
int coll_allreduce(const void *sb, void *rb, size_t count, size_t esize, const coll_op *op,
                   coll_comm *c);

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
};

#endif
