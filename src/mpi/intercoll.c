/* src/mpi/intercoll.c — the blocking collectives on intercommunicators: local phases as collectives
 * on the hidden local intracommunicator, the messages between the two groups as p2p on ctx + 1. */
#include <stdlib.h>

#include "mpi/intercoll.h"

/* These are not hot paths, so every collective takes the simplest scheme that is plainly right:
 * linear exchanges with the remote group (root to each remote process, each process to each
 * remote process), or a reduction/broadcast/scatter over the local group (comm->local, through the
 * PMPI_ bindings: the big lock is recursive and the local communicator reports its errors by
 * returning them) around one exchange between the two leaders (local rank 0 of each group).
 *
 * Messages between the groups go on comm->ctx + 1, which the program's point-to-point (comm->ctx)
 * never uses. Every process calls the blocking collectives of one communicator in the same order
 * and p2p does not overtake per (source, context, tag), so a collective cannot take a message of
 * the previous or the next one; the tag per kind of collective only makes a program that calls
 * different collectives in different orders hang instead of exchanging the wrong data.
 *
 * Errors stop the collective at the process that meets them and are returned to collective.c,
 * which raises them on the intercommunicator; peers may then wait for messages that never come
 * (the default handler aborts the job, and MPI leaves the state undefined after an error). */

enum {
    TAG_BARRIER = 1,
    TAG_BCAST,
    TAG_GATHER,
    TAG_GATHERV,
    TAG_SCATTER,
    TAG_SCATTERV,
    TAG_ALLGATHER,
    TAG_ALLGATHERV,
    TAG_ALLTOALL,
    TAG_ALLTOALLV,
    TAG_ALLTOALLW,
    TAG_REDUCE,
    TAG_ALLREDUCE,
    TAG_REDUCE_SCATTER_BLOCK,
    TAG_REDUCE_SCATTER
};

#define LEADER(comm) ((comm)->rank == 0)

/* ---- point-to-point with the remote group ---- */

/* mpi_isend/mpi_irecv pack and unpack derived types and bind each request to comm (a reference
 * that mpi_req_wait gives back), so the collective's requests behave like the program's own. */
static int isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                 p2p_req **r)
{
    return mpi_isend(buf, count, dt, dest, tag, comm, comm->ctx + 1, P2P_MODE_STANDARD, r);
}

static int irecv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
                 p2p_req **r)
{
    return mpi_irecv(buf, count, dt, src, tag, comm, comm->ctx + 1, r);
}

/* Waits for the n requests of r; returns rc, or else the first request's error (a truncation: the
 * two groups disagree on the sizes). After a failed post (rc set) the posted requests are cancelled
 * first, so this process does not wait for peers it has not told what to expect; requests that
 * matched already complete normally. */
static int wait_all(p2p_req **r, int n, int rc)
{
    if (rc != MPI_SUCCESS)
        for (int i = 0; i < n; i++)
            p2p_cancel(r[i]);
    for (int i = 0; i < n; i++) {
        int e = mpi_req_wait(r[i], NULL);
        if (rc == MPI_SUCCESS)
            rc = e;
    }
    return rc;
}

static int send1(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    p2p_req *r = NULL;
    int rc = isend(buf, count, dt, dest, tag, comm, &r);
    return rc != MPI_SUCCESS ? rc : mpi_req_wait(r, NULL);
}

static int recv1(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm)
{
    p2p_req *r = NULL;
    int rc = irecv(buf, count, dt, src, tag, comm, &r);
    return rc != MPI_SUCCESS ? rc : mpi_req_wait(r, NULL);
}

/* The leaders' swap: count elements of dt from sb to remote rank peer, as many from it into rb. */
static int sendrecv1(const void *sb, void *rb, int count, MPI_Datatype dt, int peer, int tag,
                     MPI_Comm comm)
{
    p2p_req *r[2];
    int n = 0, rc = irecv(rb, count, dt, peer, tag, comm, &r[0]);
    if (rc == MPI_SUCCESS) {
        n = 1;
        rc = isend(sb, count, dt, peer, tag, comm, &r[1]);
        if (rc == MPI_SUCCESS)
            n = 2;
    }
    return wait_all(r, n, rc);
}

/* The blocks of one side of a linear exchange, one per remote rank: block i is cnt[i] (or cnt1)
 * elements of dt at disp[i] extents (or i * cnt1 extents) from buf; with dts (Alltoallw) it is of
 * type dts[i] at byte displacement disp[i]; with same (Allgather's send side) every block is the
 * buffer itself. */
typedef struct ic_side {
    const void *buf;
    MPI_Datatype dt;
    const MPI_Datatype *dts;
    int cnt1;
    const int *cnt;
    const int *disp;
    int same;
} ic_side;

typedef struct ic_blk {
    void *buf;
    int count;
    MPI_Datatype dt;
} ic_blk;

static ic_blk side_block(const ic_side *s, int i)
{
    int c = s->cnt ? s->cnt[i] : s->cnt1;
    if (s->dts) {
        /* An empty w-block's type is never looked at (it may be anything, as in collective.c's
         * checks); its empty message still goes, because the peer's block may be a count of a
         * zero-size type and waits for one. */
        if (c == 0)
            return (ic_blk){(void *)(uintptr_t)s->buf, 0, MPI_BYTE};
        return (ic_blk){BUF_AT(s->buf, s->disp[i]), c, s->dts[i]};
    }
    MPI_Aint off = 0;
    if (!s->same)
        off = (s->disp ? (MPI_Aint)s->disp[i] : (MPI_Aint)i * s->cnt1) * s->dt->extent;
    return (ic_blk){BUF_AT(s->buf, off), c, s->dt};
}

/* One message per remote rank out of send and into recv (either may be NULL): the receives are
 * posted first (fewer unexpected messages), then the sends, then all are waited for. */
static int exchange(MPI_Comm comm, int tag, const ic_side *send, const ic_side *recv)
{
    int m = comm->remote_size, n = 0, rc = MPI_SUCCESS;
    p2p_req **r = malloc(2 * (size_t)m * sizeof *r);
    if (r == NULL)
        return MPI_ERR_NO_MEM;
    for (int i = 0; recv && i < m && rc == MPI_SUCCESS; i++) {
        ic_blk b = side_block(recv, i);
        if ((rc = irecv(b.buf, b.count, b.dt, i, tag, comm, &r[n])) == MPI_SUCCESS)
            n++;
    }
    for (int i = 0; send && i < m && rc == MPI_SUCCESS; i++) {
        ic_blk b = side_block(send, i);
        if ((rc = isend(b.buf, b.count, b.dt, i, tag, comm, &r[n])) == MPI_SUCCESS)
            n++;
    }
    rc = wait_all(r, n, rc);
    free(r);
    return rc;
}

/* A temporary for count elements of dt laid out as in user memory (reductions and the local
 * collectives work on that layout): sized by the true extent, *buf is the address to pass as the
 * buffer, *mem the allocation to free (one byte at least, so count 0 is no special case). */
static int tmp_buf(size_t count, MPI_Datatype dt, void **mem, void **buf)
{
    *mem = malloc(dt_span(dt, count) + 1);
    if (*mem == NULL)
        return MPI_ERR_NO_MEM;
    *buf = BUF_AT(*mem, -dt->true_lb);
    return MPI_SUCCESS;
}

/* ---- barrier, broadcast ---- */

/* Everyone of the local group is in once the first local barrier ends; the leaders' empty swap
 * tells each leader that the other group is in too; the second local barrier holds the local
 * group until its leader knows it. */
int ic_barrier(MPI_Comm comm)
{
    int rc = PMPI_Barrier(comm->local);
    if (rc == MPI_SUCCESS && LEADER(comm))
        rc = sendrecv1(NULL, NULL, 0, MPI_BYTE, 0, TAG_BARRIER, comm);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Barrier(comm->local);
    return rc;
}

/* The root sends to remote rank 0, which broadcasts over its local group. */
int ic_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    if (root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (root == MPI_ROOT)
        return send1(buf, count, dt, 0, TAG_BCAST, comm);
    int rc = MPI_SUCCESS;
    if (LEADER(comm))
        rc = recv1(buf, count, dt, root, TAG_BCAST, comm);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Bcast(buf, count, dt, 0, comm->local);
    return rc;
}

/* ---- gather, scatter: linear between the root and each remote process ---- */

int ic_gather(const void *sb, int scount, MPI_Datatype st, void *rb, int rcount, MPI_Datatype rt,
              int root, MPI_Comm comm)
{
    if (root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (root == MPI_ROOT)
        return exchange(comm, TAG_GATHER, NULL, &(ic_side){.buf = rb, .dt = rt, .cnt1 = rcount});
    return send1(sb, scount, st, root, TAG_GATHER, comm);
}

int ic_gatherv(const void *sb, int scount, MPI_Datatype st, void *rb, const int *rcounts,
               const int *displs, MPI_Datatype rt, int root, MPI_Comm comm)
{
    if (root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (root == MPI_ROOT)
        return exchange(comm, TAG_GATHERV, NULL,
                        &(ic_side){.buf = rb, .dt = rt, .cnt = rcounts, .disp = displs});
    return send1(sb, scount, st, root, TAG_GATHERV, comm);
}

int ic_scatter(const void *sb, int scount, MPI_Datatype st, void *rb, int rcount, MPI_Datatype rt,
               int root, MPI_Comm comm)
{
    if (root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (root == MPI_ROOT)
        return exchange(comm, TAG_SCATTER, &(ic_side){.buf = sb, .dt = st, .cnt1 = scount}, NULL);
    return recv1(rb, rcount, rt, root, TAG_SCATTER, comm);
}

int ic_scatterv(const void *sb, const int *scounts, const int *displs, MPI_Datatype st, void *rb,
                int rcount, MPI_Datatype rt, int root, MPI_Comm comm)
{
    if (root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (root == MPI_ROOT)
        return exchange(comm, TAG_SCATTERV,
                        &(ic_side){.buf = sb, .dt = st, .cnt = scounts, .disp = displs}, NULL);
    return recv1(rb, rcount, rt, root, TAG_SCATTERV, comm);
}

/* ---- allgather, alltoall: every process with every remote process ---- */

int ic_allgather(const void *sb, int scount, MPI_Datatype st, void *rb, int rcount,
                 MPI_Datatype rt, MPI_Comm comm)
{
    return exchange(comm, TAG_ALLGATHER, &(ic_side){.buf = sb, .dt = st, .cnt1 = scount, .same = 1},
                    &(ic_side){.buf = rb, .dt = rt, .cnt1 = rcount});
}

int ic_allgatherv(const void *sb, int scount, MPI_Datatype st, void *rb, const int *rcounts,
                  const int *displs, MPI_Datatype rt, MPI_Comm comm)
{
    return exchange(comm, TAG_ALLGATHERV,
                    &(ic_side){.buf = sb, .dt = st, .cnt1 = scount, .same = 1},
                    &(ic_side){.buf = rb, .dt = rt, .cnt = rcounts, .disp = displs});
}

int ic_alltoall(const void *sb, int scount, MPI_Datatype st, void *rb, int rcount,
                MPI_Datatype rt, MPI_Comm comm)
{
    return exchange(comm, TAG_ALLTOALL, &(ic_side){.buf = sb, .dt = st, .cnt1 = scount},
                    &(ic_side){.buf = rb, .dt = rt, .cnt1 = rcount});
}

int ic_alltoallvw(const void *sb, const int *scounts, const int *sdispls, MPI_Datatype st,
                  const MPI_Datatype *sts, void *rb, const int *rcounts, const int *rdispls,
                  MPI_Datatype rt, const MPI_Datatype *rts, MPI_Comm comm)
{
    ic_side s = {.buf = sb, .dt = sts ? NULL : st, .dts = sts, .cnt = scounts, .disp = sdispls};
    ic_side r = {.buf = rb, .dt = rts ? NULL : rt, .dts = rts, .cnt = rcounts, .disp = rdispls};
    return exchange(comm, sts ? TAG_ALLTOALLW : TAG_ALLTOALLV, &s, &r);
}

/* ---- reductions: each group reduces over its local communicator to its leader ---- */

/* The non-root group reduces to its leader, which sends the result to the root; the root receives
 * it from remote rank 0. The local PMPI_Reduce keeps the rank order a non-commutative op needs. */
int ic_reduce(const void *sb, void *rb, int count, MPI_Datatype dt, MPI_Op op, int root,
              MPI_Comm comm)
{
    if (root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (root == MPI_ROOT)
        return recv1(rb, count, dt, 0, TAG_REDUCE, comm);
    void *mem = NULL, *tmp = NULL;
    int rc = LEADER(comm) ? tmp_buf((size_t)count, dt, &mem, &tmp) : MPI_SUCCESS;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Reduce(sb, tmp, count, dt, op, 0, comm->local);
    if (rc == MPI_SUCCESS && LEADER(comm))
        rc = send1(tmp, count, dt, root, TAG_REDUCE, comm);
    free(mem);
    return rc;
}

/* Both groups reduce to their leaders, the leaders swap the results (straight into recvbuf) and
 * each broadcasts the other group's result over its local group. */
int ic_allreduce(const void *sb, void *rb, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    void *mem = NULL, *tmp = NULL;
    int rc = LEADER(comm) ? tmp_buf((size_t)count, dt, &mem, &tmp) : MPI_SUCCESS;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Reduce(sb, tmp, count, dt, op, 0, comm->local);
    if (rc == MPI_SUCCESS && LEADER(comm))
        rc = sendrecv1(tmp, rb, count, dt, 0, TAG_ALLREDUCE, comm);
    free(mem);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Bcast(rb, count, dt, 0, comm->local);
    return rc;
}

/* The reduce-scatters: the leaders reduce their group's whole vector of total elements (MPI: the
 * same total in both groups), swap them, and each scatters the other group's vector over its local
 * group, in blocks of rcounts[i] (or recvcount) elements. A different total in the other group
 * shows as a truncation at the leader that receives the longer vector. */
static int reduce_swap_scatter(const void *sb, void *rb, int total, const int *rcounts,
                               int recvcount, MPI_Datatype dt, MPI_Op op, int tag, MPI_Comm comm)
{
    int leader = LEADER(comm), rc = MPI_SUCCESS;
    void *mem = NULL, *tmp = NULL, *rmem = NULL, *res = NULL;
    int *displs = NULL;
    if (leader) {
        rc = tmp_buf((size_t)total, dt, &mem, &tmp);
        if (rc == MPI_SUCCESS)
            rc = tmp_buf((size_t)total, dt, &rmem, &res);
        if (rc == MPI_SUCCESS && rcounts) {
            displs = malloc((size_t)comm->size * sizeof(int));
            if (displs == NULL)
                rc = MPI_ERR_NO_MEM;
            for (int i = 0, d = 0; displs && i < comm->size; d += rcounts[i++])
                displs[i] = d; /* the running sum stays <= total <= INT_MAX (collective.c) */
        }
    }
    if (rc == MPI_SUCCESS)
        rc = PMPI_Reduce(sb, tmp, total, dt, op, 0, comm->local);
    if (rc == MPI_SUCCESS && leader)
        rc = sendrecv1(tmp, res, total, dt, 0, tag, comm);
    if (rc == MPI_SUCCESS)
        rc = rcounts ? PMPI_Scatterv(res, rcounts, displs, dt, rb, rcounts[comm->rank], dt, 0,
                                     comm->local)
                     : PMPI_Scatter(res, recvcount, dt, rb, recvcount, dt, 0, comm->local);
    free(displs);
    free(rmem);
    free(mem);
    return rc;
}

int ic_reduce_scatter_block(const void *sb, void *rb, int recvcount, MPI_Datatype dt, MPI_Op op,
                            MPI_Comm comm)
{
    return reduce_swap_scatter(sb, rb, recvcount * comm->size, NULL, recvcount, dt, op,
                               TAG_REDUCE_SCATTER_BLOCK, comm);
}

int ic_reduce_scatter(const void *sb, void *rb, const int *rcounts, MPI_Datatype dt, MPI_Op op,
                      MPI_Comm comm)
{
    long long total = 0;
    for (int i = 0; i < comm->size; i++)
        total += rcounts[i];
    return reduce_swap_scatter(sb, rb, (int)total, rcounts, 0, dt, op, TAG_REDUCE_SCATTER, comm);
}
