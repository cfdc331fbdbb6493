/* src/mpi/intercoll.c — the collectives on intercommunicators: blocking ones with local phases on
 * the hidden local communicator, non-blocking ones as staged p2p; between the groups, ctx + 1. */
#include <stdlib.h>

#include "mpi/intercoll.h"
#include "mpi/op.h"

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

/* ---- the non-blocking forms ----
 * MPI makes them local: the call returns without waiting for any other process. So a collective
 * is a state object that runs in stages: a stage posts p2p requests, and the completion hook of
 * the last of them posts the next stage from progress, until the last stage ends and the
 * program's request (a generic one) completes.
 *
 * Their local phases do not use the collectives of comm->local, unlike the blocking forms above:
 * a stage posted from progress would start its local collective at a different point of each
 * process' sequence of collectives on comm->local (after another collective's local phase at one
 * process, before it at the other), and collectives of one communicator match in the order they
 * start. Instead the local phases are linear p2p with the group's leader on the local
 * communicator's point-to-point context (comm->local->ctx, which nothing else uses: the hidden
 * communicator has no program traffic), and every message of the k-th non-blocking collective on
 * comm carries tag TAG_NB + k on either context, whatever stage it belongs to. Every member of both
 * groups starts the non-blocking collectives of comm in the same order, so each one's messages
 * only match its own; within one collective, two messages between the same two processes go in
 * opposite directions or follow each other in stage order, which p2p keeps.
 *
 * Reductions gather the group's contributions at the leader, which applies the op in rank order
 * (the order a non-commutative op needs). Data moves packed: every internal buffer holds packed
 * elements, and the user's buffers are packed or unpacked where they are sent or received. */

enum { TAG_NB = 16, TAG_NB_MASK = 0x0fffffff }; /* above the blocking tags, below TAG_AGREE */

typedef struct icnb icnb;
/* Posts stage `stage` of s's collective; returns 1 if another stage follows. */
typedef int (*icnb_step)(icnb *s, int stage);

struct icnb {
    p2p_req *req;           /* the handle */
    MPI_Comm comm;          /* referenced until the end, even if the handle is freed early */
    icnb_step step;
    int stage, pending, more;
    int err;                /* first p2p error (a truncation: the groups disagree) */
    int tag;
    uint32_t xctx, lctx;    /* between the groups (ctx + 1), within the local group */
    /* the staged collectives' arguments: the buffers are the program's; dt and op retained */
    const void *sb;
    void *rb;
    int count, root;
    MPI_Datatype dt;
    MPI_Op op;
    int *blk;               /* reduce-scatters: elements per local rank */
    size_t bytes;           /* packed bytes of one contribution */
    void *all;              /* leader: the local group's packed contributions, by local rank */
    void *res, *rres;       /* leader: packed result of this group, of the other group */
    /* the single-stage data movers: the sides, valid while the call posts stage 0 */
    const ic_side *snd, *rcv;
    /* icnb_share_u32: the value, the chooser's side, and what runs when it is shared */
    uint32_t val;
    int chooser;
    int (*on_end)(void *arg, uint32_t val, int ok);
    void *end_arg;
};

#define NB_LEADER(s) ((s)->comm->rank == 0)
#define NB_LWORLD(s, r) ((s)->comm->local->world_of[r])
#define NB_RWORLD(s, r) ((s)->comm->world_of[r])

static void nb_fail(icnb *s, int p2p_err)
{
    if (s->err == P2P_OK)
        s->err = p2p_err;
}

static void nb_finish(icnb *s)
{
    p2p_req *h = s->req;
    MPI_Comm comm = s->comm;
    h->status.error = s->err;
    if (s->on_end) {
        int e = s->on_end(s->end_arg, s->val, s->err == P2P_OK);
        if (s->err == P2P_OK)
            h->status.error = e;
    }
    if (s->dt)
        dt_release(s->dt);
    if (s->op)
        op_release(s->op);
    free(s->blk);
    free(s->all);
    free(s->res);
    free(s->rres);
    free(s);
    p2p_req_complete(h);
    mpi_comm_release(comm);
}

/* Runs stages until one has requests in flight (their hook resumes here) or all are done. The
 * count is one higher while a stage posts, so a request that completes at once (from inside the
 * post, or from progress that the post runs) cannot start the next stage before this one is
 * fully posted. */
static void nb_run(icnb *s)
{
    while (s->err == P2P_OK && s->more) {
        s->pending = 1;
        s->more = s->step(s, s->stage++);
        if (--s->pending > 0)
            return;
    }
    nb_finish(s);
}

/* Completion hook of every request a stage posts: upper is the state; upper_data[0] a temporary to
 * free, and for a receive through one, [1] the user buffer, [2] the (retained) type and [3] the
 * count to unpack it into. */
static void nb_part_done(p2p_req *c)
{
    icnb *s = c->upper;
    void *tmp = (void *)(uintptr_t)c->upper_data[0];
    MPI_Datatype dt = (MPI_Datatype)(uintptr_t)c->upper_data[2];
    if (c->status.error != P2P_OK)
        nb_fail(s, c->status.error);
    if (dt != NULL) {
        if (c->status.error == P2P_OK && !c->status.cancelled && c->status.bytes > 0)
            dt_unpack(tmp, c->status.bytes, (size_t)c->upper_data[3], dt,
                      (void *)(uintptr_t)c->upper_data[1]);
        dt_release(dt);
    }
    free(tmp);
    p2p_req_free(c); /* inside its own hook: p2p releases it right after */
    if (--s->pending == 0)
        nb_run(s);
}

static void nb_attach(icnb *s, int rc, p2p_req *c, void *tmp, void *ubuf, int count,
                      MPI_Datatype dt)
{
    if (rc != P2P_OK) {
        free(tmp);
        if (dt)
            dt_release(dt);
        nb_fail(s, rc);
        return;
    }
    c->upper = s;
    c->upper_data[0] = (uintptr_t)tmp;
    c->upper_data[1] = (uintptr_t)ubuf;
    c->upper_data[2] = (uintptr_t)dt;
    c->upper_data[3] = (uint64_t)count;
    s->pending++;
    if (c->done)
        nb_part_done(c);
    else
        c->on_complete = nb_part_done;
}

/* Packed bytes to or from job rank peer on ctx. After an error nothing more is posted. */
static void nb_raw_send(icnb *s, const void *buf, size_t bytes, int peer, uint32_t ctx)
{
    p2p_req *c = NULL;
    if (s->err != P2P_OK)
        return;
    int rc = p2p_isend(buf, bytes, peer, s->tag, ctx, P2P_MODE_STANDARD, &c);
    nb_attach(s, rc, c, NULL, NULL, 0, NULL);
}

static void nb_raw_recv(icnb *s, void *buf, size_t bytes, int peer, uint32_t ctx)
{
    p2p_req *c = NULL;
    if (s->err != P2P_OK)
        return;
    int rc = p2p_irecv(buf, bytes, peer, s->tag, ctx, &c);
    nb_attach(s, rc, c, NULL, NULL, 0, NULL);
}

/* count elements of dt in user layout: a dense type goes straight from or to the buffer, any
 * other through a packed temporary (packed now, unpacked by the receive's hook). */
static void nb_send(icnb *s, const void *buf, int count, MPI_Datatype dt, int peer, uint32_t ctx)
{
    size_t bytes = (size_t)count * dt->size;
    if (s->err != P2P_OK)
        return;
    if ((dt->flags & DT_F_DENSE) || bytes == 0) {
        nb_raw_send(s, BUF_AT(buf, bytes ? dt->lb : 0), bytes, peer, ctx);
        return;
    }
    void *tmp = malloc(bytes);
    if (tmp == NULL) {
        nb_fail(s, P2P_ERR_NOMEM);
        return;
    }
    dt_pack(buf, (size_t)count, dt, tmp);
    p2p_req *c = NULL;
    int rc = p2p_isend(tmp, bytes, peer, s->tag, ctx, P2P_MODE_STANDARD, &c);
    nb_attach(s, rc, c, tmp, NULL, 0, NULL);
}

static void nb_recv(icnb *s, void *buf, int count, MPI_Datatype dt, int peer, uint32_t ctx)
{
    size_t bytes = (size_t)count * dt->size;
    if (s->err != P2P_OK)
        return;
    if ((dt->flags & DT_F_DENSE) || bytes == 0) {
        nb_raw_recv(s, BUF_AT(buf, bytes ? dt->lb : 0), bytes, peer, ctx);
        return;
    }
    void *tmp = malloc(bytes);
    if (tmp == NULL) {
        nb_fail(s, P2P_ERR_NOMEM);
        return;
    }
    dt_retain(dt);
    p2p_req *c = NULL;
    int rc = p2p_irecv(tmp, bytes, peer, s->tag, ctx, &c);
    nb_attach(s, rc, c, tmp, buf, count, dt);
}

/* A packed temporary of n bytes (one at least, so empty collectives need no special case). */
static void *nb_alloc(icnb *s, size_t n)
{
    void *p = malloc(n + 1);
    if (p == NULL)
        nb_fail(s, P2P_ERR_NOMEM);
    return p;
}

/* A new collective on intercommunicator comm (step NULL: nothing to do, e.g. MPI_PROC_NULL
 * roots); it takes the next sequence number whether or not it can start, so that the others
 * stay matched. NULL if out of memory. */
static icnb *nb_new(MPI_Comm comm, icnb_step step)
{
    int tag = TAG_NB + (int)(comm->nbc_seq++ & TAG_NB_MASK);
    icnb *s = calloc(1, sizeof *s);
    p2p_req *h = s != NULL ? mpi_req_new(comm, 0) : NULL;
    if (h == NULL) {
        free(s);
        return NULL;
    }
    s->req = h;
    s->comm = comm;
    comm->refcount++;
    s->step = step;
    s->more = step != NULL;
    s->tag = tag;
    s->xctx = comm->ctx + 1;
    s->lctx = comm->local->ctx;
    return s;
}

/* Keeps dt and op (may be NULL) for the later stages: the program may free them meanwhile. */
static void nb_hold(icnb *s, MPI_Datatype dt, MPI_Op op)
{
    s->dt = dt;
    dt_retain(dt);
    if (op != NULL) {
        s->op = op;
        op_retain(op);
    }
}

/* Hands out the request and posts the first stage (it may complete before the call returns). */
static int nb_go(icnb *s, MPI_Request *req)
{
    if (s == NULL)
        return MPI_ERR_NO_MEM;
    *req = mpi_req_handle(s->req);
    nb_run(s);
    return MPI_SUCCESS;
}

/* ---- staged: barrier, bcast ---- */

/* The leader hears from every local process, swaps an empty message with the other leader, and
 * releases its group; the others tell the leader and wait for the release. */
static int nb_barrier_step(icnb *s, int stage)
{
    int n = s->comm->size;
    if (!NB_LEADER(s)) {
        nb_raw_send(s, NULL, 0, NB_LWORLD(s, 0), s->lctx);
        nb_raw_recv(s, NULL, 0, NB_LWORLD(s, 0), s->lctx);
        return 0;
    }
    switch (stage) {
    case 0:
        for (int i = 1; i < n; i++)
            nb_raw_recv(s, NULL, 0, NB_LWORLD(s, i), s->lctx);
        return 1;
    case 1:
        nb_raw_recv(s, NULL, 0, NB_RWORLD(s, 0), s->xctx);
        nb_raw_send(s, NULL, 0, NB_RWORLD(s, 0), s->xctx);
        return 1;
    default:
        for (int i = 1; i < n; i++)
            nb_raw_send(s, NULL, 0, NB_LWORLD(s, i), s->lctx);
        return 0;
    }
}

int icnb_barrier(MPI_Comm comm, MPI_Request *req)
{
    return nb_go(nb_new(comm, nb_barrier_step), req);
}

/* The root sends to remote rank 0, which passes the data on to the rest of its group. */
static int nb_bcast_step(icnb *s, int stage)
{
    if (s->root == MPI_ROOT) {
        nb_send(s, s->rb, s->count, s->dt, NB_RWORLD(s, 0), s->xctx);
        return 0;
    }
    if (!NB_LEADER(s)) {
        nb_recv(s, s->rb, s->count, s->dt, NB_LWORLD(s, 0), s->lctx);
        return 0;
    }
    if (stage == 0) {
        if ((s->res = nb_alloc(s, s->bytes)) != NULL)
            nb_raw_recv(s, s->res, s->bytes, NB_RWORLD(s, s->root), s->xctx);
        return 1;
    }
    if (s->bytes > 0)
        dt_unpack(s->res, s->bytes, (size_t)s->count, s->dt, s->rb);
    for (int i = 1; i < s->comm->size; i++)
        nb_raw_send(s, s->res, s->bytes, NB_LWORLD(s, i), s->lctx);
    return 0;
}

int icnb_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm, MPI_Request *req)
{
    icnb *s = nb_new(comm, root == MPI_PROC_NULL ? NULL : nb_bcast_step);
    if (s != NULL) {
        s->rb = buf;
        s->count = count;
        s->root = root;
        s->bytes = (size_t)count * dt->size;
        nb_hold(s, dt, NULL);
    }
    return nb_go(s, req);
}

/* ---- staged: the reductions ---- */

/* Stage 0 at the leader: its own contribution (count elements of s->dt at sb) in slot 0 of
 * s->all, the others' received into theirs. The other processes send theirs. */
static void nb_contribute(icnb *s, int count)
{
    int n = s->comm->size;
    size_t b = (size_t)count * s->dt->size;
    if (!NB_LEADER(s)) {
        nb_send(s, s->sb, count, s->dt, NB_LWORLD(s, 0), s->lctx);
        return;
    }
    if ((s->all = nb_alloc(s, (size_t)n * b)) == NULL)
        return;
    if (b > 0)
        dt_pack(s->sb, (size_t)count, s->dt, s->all);
    for (int i = 1; i < n; i++)
        nb_raw_recv(s, BUF_AT(s->all, (size_t)i * b), b, NB_LWORLD(s, i), s->lctx);
}

/* At the leader once the contributions are in: s->res = slot 0 op slot 1 op ... op slot n - 1,
 * packed. The op works on user layout, so the slots are unpacked into temporaries; it is applied
 * from the last rank down (inout = in op inout), which keeps the rank order. */
static void nb_combine(icnb *s, int count)
{
    int n = s->comm->size;
    size_t b = (size_t)count * s->dt->size;
    if ((s->res = nb_alloc(s, b)) == NULL || b == 0)
        return;
    size_t span = dt_span(s->dt, (size_t)count) + 1;
    void *m1 = calloc(1, span), *m2 = calloc(1, span);
    if (m1 == NULL || m2 == NULL) {
        free(m1);
        free(m2);
        nb_fail(s, P2P_ERR_NOMEM);
        return;
    }
    void *acc = BUF_AT(m1, -s->dt->true_lb), *in = BUF_AT(m2, -s->dt->true_lb);
    dt_unpack(BUF_AT(s->all, (size_t)(n - 1) * b), b, (size_t)count, s->dt, acc);
    for (int i = n - 2; i >= 0; i--) {
        dt_unpack(BUF_AT(s->all, (size_t)i * b), b, (size_t)count, s->dt, in);
        op_apply(s->op, in, acc, count, s->dt);
    }
    dt_pack(acc, (size_t)count, s->dt, s->res);
    free(m1);
    free(m2);
}

/* Reduce: the non-root group combines at its leader, which sends the result to the root; the
 * root receives it from remote rank 0. */
static int nb_reduce_step(icnb *s, int stage)
{
    if (s->root == MPI_ROOT) {
        nb_recv(s, s->rb, s->count, s->dt, NB_RWORLD(s, 0), s->xctx);
        return 0;
    }
    if (stage == 0) {
        nb_contribute(s, s->count);
        return NB_LEADER(s);
    }
    nb_combine(s, s->count);
    if (s->res != NULL)
        nb_raw_send(s, s->res, s->bytes, NB_RWORLD(s, s->root), s->xctx);
    return 0;
}

int icnb_reduce(const void *sb, void *rb, int count, MPI_Datatype dt, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request *req)
{
    icnb *s = nb_new(comm, root == MPI_PROC_NULL ? NULL : nb_reduce_step);
    if (s != NULL) {
        s->sb = sb;
        s->rb = rb;
        s->count = count;
        s->root = root;
        s->bytes = (size_t)count * dt->size;
        nb_hold(s, dt, op);
    }
    return nb_go(s, req);
}

/* Allreduce and the reduce-scatters: each group combines at its leader (the vector of s->count
 * elements), the leaders swap the results, and each leader hands the other group's result to its
 * group: whole (allreduce, s->blk NULL) or block i of s->blk[i] elements to local rank i. A
 * different total in the two groups shows as a truncation at the leader of the smaller one. */
static int nb_allred_step(icnb *s, int stage)
{
    int n = s->comm->size, me = s->comm->rank;
    if (!NB_LEADER(s)) {
        nb_contribute(s, s->count);
        nb_recv(s, s->rb, s->blk ? s->blk[me] : s->count, s->dt, NB_LWORLD(s, 0), s->lctx);
        return 0;
    }
    switch (stage) {
    case 0:
        nb_contribute(s, s->count);
        return 1;
    case 1:
        nb_combine(s, s->count);
        if (s->res != NULL && (s->rres = nb_alloc(s, s->bytes)) != NULL) {
            nb_raw_recv(s, s->rres, s->bytes, NB_RWORLD(s, 0), s->xctx);
            nb_raw_send(s, s->res, s->bytes, NB_RWORLD(s, 0), s->xctx);
        }
        return 1;
    default:
        if (s->blk == NULL) {
            if (s->bytes > 0)
                dt_unpack(s->rres, s->bytes, (size_t)s->count, s->dt, s->rb);
            for (int i = 1; i < n; i++)
                nb_raw_send(s, s->rres, s->bytes, NB_LWORLD(s, i), s->lctx);
            return 0;
        }
        size_t es = s->dt->size, off = (size_t)s->blk[0] * es;
        if (off > 0)
            dt_unpack(s->rres, off, (size_t)s->blk[0], s->dt, s->rb);
        for (int i = 1; i < n; off += (size_t)s->blk[i++] * es)
            nb_raw_send(s, BUF_AT(s->rres, off), (size_t)s->blk[i] * es, NB_LWORLD(s, i), s->lctx);
        return 0;
    }
}

/* The non-leaders of a reduce-scatter need only their own block's count: blk is copied whole
 * anyway (n ints), which keeps one code path. */
static int nb_allred(const void *sb, void *rb, int total, const int *rcounts, int recvcount,
                     MPI_Datatype dt, MPI_Op op, MPI_Comm comm, MPI_Request *req, int scatter)
{
    icnb *s = nb_new(comm, nb_allred_step);
    if (s == NULL)
        return MPI_ERR_NO_MEM;
    s->sb = sb;
    s->rb = rb;
    s->count = total;
    s->bytes = (size_t)total * dt->size;
    nb_hold(s, dt, op);
    if (scatter) {
        if ((s->blk = malloc((size_t)comm->size * sizeof(int))) == NULL)
            nb_fail(s, P2P_ERR_NOMEM); /* reported by the request */
        for (int i = 0; s->blk && i < comm->size; i++)
            s->blk[i] = rcounts ? rcounts[i] : recvcount;
    }
    return nb_go(s, req);
}

int icnb_allreduce(const void *sb, void *rb, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                   MPI_Request *req)
{
    return nb_allred(sb, rb, count, NULL, 0, dt, op, comm, req, 0);
}

int icnb_reduce_scatter_block(const void *sb, void *rb, int recvcount, MPI_Datatype dt, MPI_Op op,
                              MPI_Comm comm, MPI_Request *req)
{
    return nb_allred(sb, rb, recvcount * comm->size, NULL, recvcount, dt, op, comm, req, 1);
}

int icnb_reduce_scatter(const void *sb, void *rb, const int *rcounts, MPI_Datatype dt, MPI_Op op,
                        MPI_Comm comm, MPI_Request *req)
{
    long long total = 0;
    for (int i = 0; i < comm->size; i++)
        total += rcounts[i];
    return nb_allred(sb, rb, (int)total, rcounts, 0, dt, op, comm, req, 1);
}

/* ---- single stage: the data movers, one message per remote rank as in exchange() ---- */

static int nb_exchange_step(icnb *s, int stage)
{
    (void)stage;
    for (int i = 0; s->rcv && i < s->comm->remote_size; i++) {
        ic_blk b = side_block(s->rcv, i);
        nb_recv(s, b.buf, b.count, b.dt, NB_RWORLD(s, i), s->xctx);
    }
    for (int i = 0; s->snd && i < s->comm->remote_size; i++) {
        ic_blk b = side_block(s->snd, i);
        nb_send(s, b.buf, b.count, b.dt, NB_RWORLD(s, i), s->xctx);
    }
    return 0;
}

/* Everything is posted before the call returns, so the sides may live on the caller's stack. */
static int nb_exchange(MPI_Comm comm, const ic_side *send, const ic_side *recv, MPI_Request *req)
{
    icnb *s = nb_new(comm, send || recv ? nb_exchange_step : NULL);
    if (s != NULL) {
        s->snd = send;
        s->rcv = recv;
    }
    return nb_go(s, req);
}

/* A single send or receive with a remote rank, as a one-sided exchange. */
static int nb_one(MPI_Comm comm, int send, const void *buf, int count, MPI_Datatype dt, int peer,
                  MPI_Request *req)
{
    icnb *s = nb_new(comm, NULL);
    if (s == NULL)
        return MPI_ERR_NO_MEM;
    *req = mpi_req_handle(s->req);
    s->pending = 1;
    if (send)
        nb_send(s, buf, count, dt, NB_RWORLD(s, peer), s->xctx);
    else
        nb_recv(s, (void *)(uintptr_t)buf, count, dt, NB_RWORLD(s, peer), s->xctx);
    if (--s->pending == 0)
        nb_run(s);
    return MPI_SUCCESS;
}

/* A process of the root's group other than the root takes no part, but its request still takes a
 * sequence number, like everyone's. */
static int nb_rooted(MPI_Comm comm, int root, int to_root, const void *buf, int count,
                     MPI_Datatype dt, const ic_side *at_root, MPI_Request *req)
{
    if (root == MPI_PROC_NULL)
        return nb_go(nb_new(comm, NULL), req);
    if (root == MPI_ROOT)
        return nb_exchange(comm, to_root ? NULL : at_root, to_root ? at_root : NULL, req);
    return nb_one(comm, to_root, buf, count, dt, root, req);
}

int icnb_gather(const void *sb, int scount, MPI_Datatype st, void *rb, int rcount, MPI_Datatype rt,
                int root, MPI_Comm comm, MPI_Request *req)
{
    return nb_rooted(comm, root, 1, sb, scount, st,
                     &(ic_side){.buf = rb, .dt = rt, .cnt1 = rcount}, req);
}

int icnb_gatherv(const void *sb, int scount, MPI_Datatype st, void *rb, const int *rcounts,
                 const int *displs, MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *req)
{
    return nb_rooted(comm, root, 1, sb, scount, st,
                     &(ic_side){.buf = rb, .dt = rt, .cnt = rcounts, .disp = displs}, req);
}

int icnb_scatter(const void *sb, int scount, MPI_Datatype st, void *rb, int rcount,
                 MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *req)
{
    return nb_rooted(comm, root, 0, rb, rcount, rt,
                     &(ic_side){.buf = sb, .dt = st, .cnt1 = scount}, req);
}

int icnb_scatterv(const void *sb, const int *scounts, const int *displs, MPI_Datatype st,
                  void *rb, int rcount, MPI_Datatype rt, int root, MPI_Comm comm,
                  MPI_Request *req)
{
    return nb_rooted(comm, root, 0, rb, rcount, rt,
                     &(ic_side){.buf = sb, .dt = st, .cnt = scounts, .disp = displs}, req);
}

int icnb_allgather(const void *sb, int scount, MPI_Datatype st, void *rb, int rcount,
                   MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{
    return nb_exchange(comm, &(ic_side){.buf = sb, .dt = st, .cnt1 = scount, .same = 1},
                       &(ic_side){.buf = rb, .dt = rt, .cnt1 = rcount}, req);
}

int icnb_allgatherv(const void *sb, int scount, MPI_Datatype st, void *rb, const int *rcounts,
                    const int *displs, MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{
    return nb_exchange(comm, &(ic_side){.buf = sb, .dt = st, .cnt1 = scount, .same = 1},
                       &(ic_side){.buf = rb, .dt = rt, .cnt = rcounts, .disp = displs}, req);
}

int icnb_alltoall(const void *sb, int scount, MPI_Datatype st, void *rb, int rcount,
                  MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{
    return nb_exchange(comm, &(ic_side){.buf = sb, .dt = st, .cnt1 = scount},
                       &(ic_side){.buf = rb, .dt = rt, .cnt1 = rcount}, req);
}

int icnb_alltoallvw(const void *sb, const int *scounts, const int *sdispls, MPI_Datatype st,
                    const MPI_Datatype *sts, void *rb, const int *rcounts, const int *rdispls,
                    MPI_Datatype rt, const MPI_Datatype *rts, MPI_Comm comm, MPI_Request *req)
{
    ic_side s = {.buf = sb, .dt = sts ? NULL : st, .dts = sts, .cnt = scounts, .disp = sdispls};
    ic_side r = {.buf = rb, .dt = rts ? NULL : rt, .dts = rts, .cnt = rcounts, .disp = rdispls};
    return nb_exchange(comm, &s, &r, req);
}

/* ---- sharing one value over both groups (MPI_Comm_idup) ----
 * The chooser's leader sends it to the other leader and to its own group; the other leader passes
 * it on to its group. */
static int nb_share_step(icnb *s, int stage)
{
    size_t b = sizeof s->val;
    if (!NB_LEADER(s)) {
        nb_raw_recv(s, &s->val, b, NB_LWORLD(s, 0), s->lctx);
        return 0;
    }
    if (!s->chooser && stage == 0) {
        nb_raw_recv(s, &s->val, b, NB_RWORLD(s, 0), s->xctx);
        return 1;
    }
    if (s->chooser)
        nb_raw_send(s, &s->val, b, NB_RWORLD(s, 0), s->xctx);
    for (int i = 1; i < s->comm->size; i++)
        nb_raw_send(s, &s->val, b, NB_LWORLD(s, i), s->lctx);
    return 0;
}

int icnb_share_u32(MPI_Comm comm, int chooser, uint32_t val,
                   int (*done)(void *arg, uint32_t val, int ok), void *arg, MPI_Request *req)
{
    icnb *s = nb_new(comm, nb_share_step);
    if (s != NULL) {
        s->val = val;
        s->chooser = chooser;
        s->on_end = done;
        s->end_arg = arg;
    }
    return nb_go(s, req);
}
