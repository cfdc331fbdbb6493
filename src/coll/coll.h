/* src/coll/coll.h — MPI collectives as GOAL schedules: the internal API src/mpi calls (blocking
 * and non-blocking), on dense byte buffers with an element size and a reduction callback. */
#ifndef CREDO_COLL_H
#define CREDO_COLL_H

#include <stddef.h>
#include <stdint.h>

#include "coll/coll_build.h"
#include "goal/goal_exec.h"
#include "p2p/p2p.h"

/* COLL_IN_PLACE, coll_op, coll_reduce_fn and enum coll_algo live in coll_build.h (pure part). */

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
/* Neighbourhood collectives: the nsend messages of `sends` out of sb and the nrecv of `recvs` into
 * rb (offsets and sizes in bytes, peers are group ranks, tags 0..GOAL_TAG_UB), all independent.
 * cacheable: keep the schedule in the communicator's cache, keyed by the buffers and the lists
 * (pass 0 for buffers that change every call, such as packing temporaries). The lists are copied. */
int coll_ineighbor(const void *sb, int nsend, const coll_nbr *sends, void *rb, int nrecv,
                   const coll_nbr *recvs, int cacheable, coll_comm *c, p2p_req **req);

/* Blocking forms: start, wait, release. */
int coll_wait(p2p_req *req);
int coll_barrier(coll_comm *c);
int coll_bcast(void *buf, size_t count, size_t esize, int root, coll_comm *c);
/* Blocking gather and scatter (small blocks may skip the schedule). */
int coll_gather(const void *sb, void *rb, size_t count, size_t esize, int root, coll_comm *c);
int coll_scatter(const void *sb, void *rb, size_t count, size_t esize, int root, coll_comm *c);
int coll_reduce(const void *sb, void *rb, size_t count, size_t esize, const coll_op *op, int root,
                coll_comm *c);
int coll_allreduce(const void *sb, void *rb, size_t count, size_t esize, const coll_op *op,
                   coll_comm *c);

#endif
