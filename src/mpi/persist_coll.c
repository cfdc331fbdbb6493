/* src/mpi/persist_coll.c — MPI-4 persistent collectives (MPI_Allreduce_init and the rest): the
 * arguments a handle keeps, and the non-blocking collective each MPI_Start runs with them. */
#include <stdlib.h>

#include "mpi/mpi_impl.h"

/* A persistent collective is GOAL's "compile once, run many times": each start calls the
 * non-blocking collective with the arguments given at init, and src/coll finds the schedule it
 * compiled for them in the communicator's cache, so only the first start builds it. The handle
 * is persist.c's (inactive until started, reusable after each completion); the arguments live
 * here. Argument errors are found when the collective is started and are reported, under the
 * program's error handler, by the non-blocking form (MPI_Iallreduce for MPI_Allreduce_init).
 *
 * Matching: MPI 4.0 matches persistent collectives by the order of their inits, not of their
 * starts (ranks may start them in different orders). A GOAL run's messages carry the run's
 * sequence number, which is normally the communicator's next one at the start; so the init takes
 * a sequence number of its own (in init order, the same on every rank), and every start runs
 * under it. Like every run's number it is 14 bits wide: a start collides with another collective
 * only if that one was started 16,384 collectives later on the same communicator and both are in
 * flight at once. */

enum pc_kind {
    PC_BARRIER, PC_BCAST, PC_REDUCE, PC_ALLREDUCE, PC_SCAN, PC_EXSCAN, PC_RSB, PC_RS,
    PC_GATHER, PC_GATHERV, PC_SCATTER, PC_SCATTERV, PC_ALLGATHER, PC_ALLGATHERV, PC_ALLTOALL,
    PC_ALLTOALLV, PC_ALLTOALLW, PC_NALLGATHER, PC_NALLGATHERV, PC_NALLTOALL, PC_NALLTOALLV,
    PC_NALLTOALLW
};

struct mpi_pcoll {
    int kind;              /* enum pc_kind */
    const void *sb;
    void *rb;
    int scount, rcount, root;
    MPI_Datatype st, rt;   /* retained (the one type of the single-type forms is st) */
    MPI_Op op;             /* retained, or NULL */
    const int *scounts, *sdispls, *rcounts, *rdispls;
    const MPI_Aint *sdispls_a, *rdispls_a;     /* Neighbor_alltoallw */
    const MPI_Datatype *sts, *rts;             /* w-forms: the program's arrays */
    MPI_Comm comm;
    unsigned held;         /* HELD_*: which of st, rt and op this handle retained */
    uint32_t seq;          /* the GOAL run sequence number every start uses (init order) */
};

enum { HELD_ST = 1, HELD_RT = 2, HELD_OP = 4 };

void mpi_pcoll_free(struct mpi_pcoll *c)
{
    if (c == NULL)
        return;
    if (c->held & HELD_ST)
        dt_release(c->st);
    if (c->held & HELD_RT)
        dt_release(c->rt);
    if (c->held & HELD_OP)
        op_release(c->op);
    free(c);
}

static int pcoll_post(const struct mpi_pcoll *c, MPI_Request *req)
{
    MPI_Comm m = c->comm;
    switch ((enum pc_kind)c->kind) {
    case PC_BARRIER: return PMPI_Ibarrier(m, req);
    case PC_BCAST: return PMPI_Ibcast(c->rb, c->rcount, c->st, c->root, m, req);
    case PC_REDUCE: return PMPI_Ireduce(c->sb, c->rb, c->rcount, c->st, c->op, c->root, m, req);
    case PC_ALLREDUCE: return PMPI_Iallreduce(c->sb, c->rb, c->rcount, c->st, c->op, m, req);
    case PC_SCAN: return PMPI_Iscan(c->sb, c->rb, c->rcount, c->st, c->op, m, req);
    case PC_EXSCAN: return PMPI_Iexscan(c->sb, c->rb, c->rcount, c->st, c->op, m, req);
    case PC_RSB:
        return PMPI_Ireduce_scatter_block(c->sb, c->rb, c->rcount, c->st, c->op, m, req);
    case PC_RS: return PMPI_Ireduce_scatter(c->sb, c->rb, c->rcounts, c->st, c->op, m, req);
    case PC_GATHER:
        return PMPI_Igather(c->sb, c->scount, c->st, c->rb, c->rcount, c->rt, c->root, m, req);
    case PC_GATHERV:
        return PMPI_Igatherv(c->sb, c->scount, c->st, c->rb, c->rcounts, c->rdispls, c->rt,
                             c->root, m, req);
    case PC_SCATTER:
        return PMPI_Iscatter(c->sb, c->scount, c->st, c->rb, c->rcount, c->rt, c->root, m, req);
    case PC_SCATTERV:
        return PMPI_Iscatterv(c->sb, c->scounts, c->sdispls, c->st, c->rb, c->rcount, c->rt,
                              c->root, m, req);
    case PC_ALLGATHER:
        return PMPI_Iallgather(c->sb, c->scount, c->st, c->rb, c->rcount, c->rt, m, req);
    case PC_ALLGATHERV:
        return PMPI_Iallgatherv(c->sb, c->scount, c->st, c->rb, c->rcounts, c->rdispls, c->rt, m,
                                req);
    case PC_ALLTOALL:
        return PMPI_Ialltoall(c->sb, c->scount, c->st, c->rb, c->rcount, c->rt, m, req);
    case PC_ALLTOALLV:
        return PMPI_Ialltoallv(c->sb, c->scounts, c->sdispls, c->st, c->rb, c->rcounts,
                               c->rdispls, c->rt, m, req);
    case PC_ALLTOALLW:
        return PMPI_Ialltoallw(c->sb, c->scounts, c->sdispls, c->sts, c->rb, c->rcounts,
                               c->rdispls, c->rts, m, req);
    case PC_NALLGATHER:
        return PMPI_Ineighbor_allgather(c->sb, c->scount, c->st, c->rb, c->rcount, c->rt, m, req);
    case PC_NALLGATHERV:
        return PMPI_Ineighbor_allgatherv(c->sb, c->scount, c->st, c->rb, c->rcounts, c->rdispls,
                                         c->rt, m, req);
    case PC_NALLTOALL:
        return PMPI_Ineighbor_alltoall(c->sb, c->scount, c->st, c->rb, c->rcount, c->rt, m, req);
    case PC_NALLTOALLV:
        return PMPI_Ineighbor_alltoallv(c->sb, c->scounts, c->sdispls, c->st, c->rb, c->rcounts,
                                        c->rdispls, c->rt, m, req);
    case PC_NALLTOALLW:
        return PMPI_Ineighbor_alltoallw(c->sb, c->scounts, c->sdispls_a, c->sts, c->rb,
                                        c->rcounts, c->rdispls_a, c->rts, m, req);
    }
    return mpi_error(m, MPI_ERR_INTERN, "MPI_Start", "unknown persistent collective %d", c->kind);
}

/* One start: the non-blocking form starts (at most) one GOAL run on the communicator, which
 * takes the communicator's next sequence number; for this call that number is the init's. On an
 * intercommunicator the non-blocking collectives (intercoll.c) count with nbc_seq instead, the
 * same way. */
static uint32_t *seq_counter(MPI_Comm comm)
{
    return COMM_IS_INTER(comm) ? &comm->nbc_seq : &comm->coll.grp.next_seq;
}

int mpi_pcoll_start(const struct mpi_pcoll *c, MPI_Request *req)
{
    uint32_t *counter = seq_counter(c->comm);
    uint32_t next = *counter;
    *counter = c->seq;
    int rc = pcoll_post(c, req);
    *counter = next;
    return rc;
}

/* The checks an init can make without the collective's own (comm, info, request), then the
 * handle. Valid types and ops are retained for the handle's life: the program may free them
 * after the init (MPI 3.1 2.5.1). Invalid ones are kept as given (they may sit where the
 * collective ignores them, such as a receive type off the root); the start reports the others. */
static int pc_init(const char *fn, struct mpi_pcoll *c, MPI_Info info, MPI_Request *request)
{
    MPI_Comm comm = c->comm;
    COMM_CHECK(fn, comm);
    if (info != MPI_INFO_NULL && !mpi_info_ok(info))
        return mpi_error(comm, MPI_ERR_INFO, fn, "invalid info object");
    if (request == NULL)
        return mpi_error(comm, MPI_ERR_REQUEST, fn, "request is NULL");
    struct mpi_pcoll *h = malloc(sizeof *h);
    if (h == NULL)
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    *h = *c;
    h->held = 0;
    h->seq = (*seq_counter(comm))++;
    if (h->st && dt_ok(h->st)) {
        dt_retain(h->st);
        h->held |= HELD_ST;
    }
    if (h->rt && dt_ok(h->rt)) {
        dt_retain(h->rt);
        h->held |= HELD_RT;
    }
    if (op_live(h->op)) {
        op_retain(h->op);
        h->held |= HELD_OP;
    }
    return mpi_persist_coll_create(fn, comm, h, request);
}

#define PC(...) ((struct mpi_pcoll){__VA_ARGS__})

int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_ENTER();
    return pc_init("MPI_Barrier_init", &PC(.kind = PC_BARRIER, .comm = comm), info, request);
}

int MPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                   MPI_Info info, MPI_Request *request)
{
    MPI_ENTER();
    return pc_init("MPI_Bcast_init",
                   &PC(.kind = PC_BCAST, .rb = buffer, .rcount = count, .st = datatype,
                       .root = root, .comm = comm),
                   info, request);
}

#define PC_RED(k, sb_, rb_, n, dt_, op_, root_, comm_)                                            \
    PC(.kind = (k), .sb = (sb_), .rb = (rb_), .rcount = (n), .st = (dt_), .op = (op_),             \
       .root = (root_), .comm = (comm_))

int MPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_ENTER();
    return pc_init("MPI_Reduce_init",
                   &PC_RED(PC_REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm), info,
                   request);
}

int MPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_ENTER();
    return pc_init("MPI_Allreduce_init",
                   &PC_RED(PC_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0, comm), info,
                   request);
}

int MPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_ENTER();
    return pc_init("MPI_Scan_init",
                   &PC_RED(PC_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm), info,
                   request);
}

int MPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_ENTER();
    return pc_init("MPI_Exscan_init",
                   &PC_RED(PC_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0, comm), info,
                   request);
}

int MPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request)
{
    MPI_ENTER();
    return pc_init("MPI_Reduce_scatter_block_init",
                   &PC_RED(PC_RSB, sendbuf, recvbuf, recvcount, datatype, op, 0, comm), info,
                   request);
}

int MPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                            MPI_Request *request)
{
    MPI_ENTER();
    return pc_init("MPI_Reduce_scatter_init",
                   &PC(.kind = PC_RS, .sb = sendbuf, .rb = recvbuf, .rcounts = recvcounts,
                       .st = datatype, .op = op, .comm = comm),
                   info, request);
}

#define PC_SR(k, sb_, sc, st_, rb_, rc, rt_, root_, comm_)                                        \
    PC(.kind = (k), .sb = (sb_), .scount = (sc), .st = (st_), .rb = (rb_), .rcount = (rc),         \
       .rt = (rt_), .root = (root_), .comm = (comm_))

int MPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                    MPI_Request *request)
{
    MPI_ENTER();
    return pc_init("MPI_Gather_init",
                   &PC_SR(PC_GATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                          root, comm),
                   info, request);
}

int MPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                     MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_ENTER();
    return pc_init("MPI_Gatherv_init",
                   &PC(.kind = PC_GATHERV, .sb = sendbuf, .scount = sendcount, .st = sendtype,
                       .rb = recvbuf, .rcounts = recvcounts, .rdispls = displs, .rt = recvtype,
                       .root = root, .comm = comm),
                   info, request);
}

int MPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request)
{
    MPI_ENTER();
    return pc_init("MPI_Scatter_init",
                   &PC_SR(PC_SCATTER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                          root, comm),
                   info, request);
}

int MPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                      MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                      int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_ENTER();
    return pc_init("MPI_Scatterv_init",
                   &PC(.kind = PC_SCATTERV, .sb = sendbuf, .scounts = sendcounts,
                       .sdispls = displs, .st = sendtype, .rb = recvbuf, .rcount = recvcount,
                       .rt = recvtype, .root = root, .comm = comm),
                   info, request);
}

int MPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request)
{
    MPI_ENTER();
    return pc_init("MPI_Allgather_init",
                   &PC_SR(PC_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                          recvtype, 0, comm),
                   info, request);
}

int MPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_ENTER();
    return pc_init("MPI_Allgatherv_init",
                   &PC(.kind = PC_ALLGATHERV, .sb = sendbuf, .scount = sendcount, .st = sendtype,
                       .rb = recvbuf, .rcounts = recvcounts, .rdispls = displs, .rt = recvtype,
                       .comm = comm),
                   info, request);
}

int MPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request)
{
    MPI_ENTER();
    return pc_init("MPI_Alltoall_init",
                   &PC_SR(PC_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                          recvtype, 0, comm),
                   info, request);
}

int MPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request)
{
    MPI_ENTER();
    return pc_init("MPI_Alltoallv_init",
                   &PC(.kind = PC_ALLTOALLV, .sb = sendbuf, .scounts = sendcounts,
                       .sdispls = sdispls, .st = sendtype, .rb = recvbuf, .rcounts = recvcounts,
                       .rdispls = rdispls, .rt = recvtype, .comm = comm),
                   info, request);
}

int MPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                       const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                       MPI_Info info, MPI_Request *request)
{
    MPI_ENTER();
    return pc_init("MPI_Alltoallw_init",
                   &PC(.kind = PC_ALLTOALLW, .sb = sendbuf, .scounts = sendcounts,
                       .sdispls = sdispls, .sts = sendtypes, .rb = recvbuf,
                       .rcounts = recvcounts, .rdispls = rdispls, .rts = recvtypes, .comm = comm),
                   info, request);
}

int MPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request)
{
    MPI_ENTER();
    return pc_init("MPI_Neighbor_allgather_init",
                   &PC_SR(PC_NALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                          recvtype, 0, comm),
                   info, request);
}

int MPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, const int recvcounts[], const int displs[],
                                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request)
{
    MPI_ENTER();
    return pc_init("MPI_Neighbor_allgatherv_init",
                   &PC(.kind = PC_NALLGATHERV, .sb = sendbuf, .scount = sendcount,
                       .st = sendtype, .rb = recvbuf, .rcounts = recvcounts, .rdispls = displs,
                       .rt = recvtype, .comm = comm),
                   info, request);
}

int MPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Info info, MPI_Request *request)
{
    MPI_ENTER();
    return pc_init("MPI_Neighbor_alltoall_init",
                   &PC_SR(PC_NALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                          recvtype, 0, comm),
                   info, request);
}

int MPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request)
{
    MPI_ENTER();
    return pc_init("MPI_Neighbor_alltoallv_init",
                   &PC(.kind = PC_NALLTOALLV, .sb = sendbuf, .scounts = sendcounts,
                       .sdispls = sdispls, .st = sendtype, .rb = recvbuf, .rcounts = recvcounts,
                       .rdispls = rdispls, .rt = recvtype, .comm = comm),
                   info, request);
}

int MPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                MPI_Request *request)
{
    MPI_ENTER();
    return pc_init("MPI_Neighbor_alltoallw_init",
                   &PC(.kind = PC_NALLTOALLW, .sb = sendbuf, .scounts = sendcounts,
                       .sdispls_a = sdispls, .sts = sendtypes, .rb = recvbuf,
                       .rcounts = recvcounts, .rdispls_a = rdispls, .rts = recvtypes,
                       .comm = comm),
                   info, request);
}

CREDO_PMPI(MPI_Barrier_init)
CREDO_PMPI(MPI_Bcast_init)
CREDO_PMPI(MPI_Reduce_init)
CREDO_PMPI(MPI_Allreduce_init)
CREDO_PMPI(MPI_Scan_init)
CREDO_PMPI(MPI_Exscan_init)
CREDO_PMPI(MPI_Reduce_scatter_block_init)
CREDO_PMPI(MPI_Reduce_scatter_init)
CREDO_PMPI(MPI_Gather_init)
CREDO_PMPI(MPI_Gatherv_init)
CREDO_PMPI(MPI_Scatter_init)
CREDO_PMPI(MPI_Scatterv_init)
CREDO_PMPI(MPI_Allgather_init)
CREDO_PMPI(MPI_Allgatherv_init)
CREDO_PMPI(MPI_Alltoall_init)
CREDO_PMPI(MPI_Alltoallv_init)
CREDO_PMPI(MPI_Alltoallw_init)
CREDO_PMPI(MPI_Neighbor_allgather_init)
CREDO_PMPI(MPI_Neighbor_allgatherv_init)
CREDO_PMPI(MPI_Neighbor_alltoall_init)
CREDO_PMPI(MPI_Neighbor_alltoallv_init)
CREDO_PMPI(MPI_Neighbor_alltoallw_init)
