/* src/fortran/f_coll.c — Fortran bindings of the collectives (blocking and non-blocking) and of
 * MPI_Reduce_local. Counts and displacements are INTEGER arrays, used as C int arrays. */
#include "fortran/fbind.h"

void mpi_barrier_(MPI_Fint *comm, MPI_Fint *ierr) { *ierr = MPI_Barrier(C(comm)); }
F_PMPI(barrier)

void mpi_ibarrier_(MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    REQ_OUT(MPI_Ibarrier(C(comm), &r_));
}
F_PMPI(ibarrier)

void mpi_bcast_(void *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *root, MPI_Fint *comm,
                MPI_Fint *ierr)
{
    *ierr = MPI_Bcast(f_buf(buf), *count, T(datatype), *root, C(comm));
}
F_PMPI(bcast)

void mpi_ibcast_(void *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *root, MPI_Fint *comm,
                 MPI_Fint *request, MPI_Fint *ierr)
{
    REQ_OUT(MPI_Ibcast(f_buf(buf), *count, T(datatype), *root, C(comm), &r_));
}
F_PMPI(ibcast)

void mpi_reduce_(const void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype,
                 MPI_Fint *op, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Reduce(f_buf(sendbuf), f_buf(recvbuf), *count, T(datatype), O(op), *root, C(comm));
}
F_PMPI(reduce)

void mpi_ireduce_(const void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype,
                  MPI_Fint *op, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    REQ_OUT(MPI_Ireduce(f_buf(sendbuf), f_buf(recvbuf), *count, T(datatype), O(op), *root, C(comm),
                        &r_));
}
F_PMPI(ireduce)

/* Allreduce, Scan and Exscan share their arguments. */
#define F_ALLRED(lower, Cname)                                                                     \
    void mpi_##lower##_(const void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype,   \
                        MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr)                              \
    {                                                                                              \
        *ierr = Cname(f_buf(sendbuf), f_buf(recvbuf), *count, T(datatype), O(op), C(comm));        \
    }                                                                                              \
    F_PMPI(lower)
#define F_IALLRED(lower, Cname)                                                                    \
    void mpi_##lower##_(const void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype,   \
                        MPI_Fint *op, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)           \
    {                                                                                              \
        REQ_OUT(Cname(f_buf(sendbuf), f_buf(recvbuf), *count, T(datatype), O(op), C(comm), &r_));  \
    }                                                                                              \
    F_PMPI(lower)
F_ALLRED(allreduce, MPI_Allreduce)
F_ALLRED(scan, MPI_Scan)
F_ALLRED(exscan, MPI_Exscan)
F_ALLRED(reduce_scatter_block, MPI_Reduce_scatter_block)
F_IALLRED(iallreduce, MPI_Iallreduce)
F_IALLRED(iscan, MPI_Iscan)
F_IALLRED(iexscan, MPI_Iexscan)
F_IALLRED(ireduce_scatter_block, MPI_Ireduce_scatter_block)

void mpi_reduce_scatter_(const void *sendbuf, void *recvbuf, MPI_Fint *recvcounts,
                         MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Reduce_scatter(f_buf(sendbuf), f_buf(recvbuf), recvcounts, T(datatype), O(op),
                               C(comm));
}
F_PMPI(reduce_scatter)

void mpi_reduce_local_(const void *inbuf, void *inoutbuf, MPI_Fint *count, MPI_Fint *datatype,
                       MPI_Fint *op, MPI_Fint *ierr)
{
    *ierr = MPI_Reduce_local(f_buf(inbuf), f_buf(inoutbuf), *count, T(datatype), O(op));
}
F_PMPI(reduce_local)

/* Gather and Scatter share their arguments; so do Allgather and Alltoall. */
#define F_ROOTED(lower, Cname)                                                                     \
    void mpi_##lower##_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype,              \
                        void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root,    \
                        MPI_Fint *comm, MPI_Fint *ierr)                                            \
    {                                                                                              \
        *ierr = Cname(f_buf(sendbuf), *sendcount, T(sendtype), f_buf(recvbuf), *recvcount,         \
                      T(recvtype), *root, C(comm));                                                \
    }                                                                                              \
    F_PMPI(lower)
#define F_IROOTED(lower, Cname)                                                                    \
    void mpi_##lower##_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype,              \
                        void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root,    \
                        MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)                         \
    {                                                                                              \
        REQ_OUT(Cname(f_buf(sendbuf), *sendcount, T(sendtype), f_buf(recvbuf), *recvcount,         \
                      T(recvtype), *root, C(comm), &r_));                                          \
    }                                                                                              \
    F_PMPI(lower)
#define F_ALL(lower, Cname)                                                                        \
    void mpi_##lower##_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype,              \
                        void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm,    \
                        MPI_Fint *ierr)                                                            \
    {                                                                                              \
        *ierr = Cname(f_buf(sendbuf), *sendcount, T(sendtype), f_buf(recvbuf), *recvcount,         \
                      T(recvtype), C(comm));                                                       \
    }                                                                                              \
    F_PMPI(lower)
#define F_IALL(lower, Cname)                                                                       \
    void mpi_##lower##_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype,              \
                        void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm,    \
                        MPI_Fint *request, MPI_Fint *ierr)                                         \
    {                                                                                              \
        REQ_OUT(Cname(f_buf(sendbuf), *sendcount, T(sendtype), f_buf(recvbuf), *recvcount,         \
                      T(recvtype), C(comm), &r_));                                                 \
    }                                                                                              \
    F_PMPI(lower)
F_ROOTED(gather, MPI_Gather)
F_ROOTED(scatter, MPI_Scatter)
F_IROOTED(igather, MPI_Igather)
F_IROOTED(iscatter, MPI_Iscatter)
F_ALL(allgather, MPI_Allgather)
F_ALL(alltoall, MPI_Alltoall)
F_IALL(iallgather, MPI_Iallgather)
F_IALL(ialltoall, MPI_Ialltoall)

void mpi_gatherv_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                  MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *root,
                  MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Gatherv(f_buf(sendbuf), *sendcount, T(sendtype), f_buf(recvbuf), recvcounts, displs,
                        T(recvtype), *root, C(comm));
}
F_PMPI(gatherv)

void mpi_scatterv_(const void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *displs, MPI_Fint *sendtype,
                   void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root,
                   MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Scatterv(f_buf(sendbuf), sendcounts, displs, T(sendtype), f_buf(recvbuf), *recvcount,
                         T(recvtype), *root, C(comm));
}
F_PMPI(scatterv)

void mpi_allgatherv_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                     MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm,
                     MPI_Fint *ierr)
{
    *ierr = MPI_Allgatherv(f_buf(sendbuf), *sendcount, T(sendtype), f_buf(recvbuf), recvcounts,
                           displs, T(recvtype), C(comm));
}
F_PMPI(allgatherv)

void mpi_alltoallv_(const void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype,
                    void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype,
                    MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Alltoallv(f_buf(sendbuf), sendcounts, sdispls, T(sendtype), f_buf(recvbuf),
                          recvcounts, rdispls, T(recvtype), C(comm));
}
F_PMPI(alltoallv)

void mpi_igatherv_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                   MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *root,
                   MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    REQ_OUT(MPI_Igatherv(f_buf(sendbuf), *sendcount, T(sendtype), f_buf(recvbuf), recvcounts,
                         displs, T(recvtype), *root, C(comm), &r_));
}
F_PMPI(igatherv)

void mpi_iscatterv_(const void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *displs,
                    MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype,
                    MPI_Fint *root, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    REQ_OUT(MPI_Iscatterv(f_buf(sendbuf), sendcounts, displs, T(sendtype), f_buf(recvbuf),
                          *recvcount, T(recvtype), *root, C(comm), &r_));
}
F_PMPI(iscatterv)

void mpi_iallgatherv_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                      MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm,
                      MPI_Fint *request, MPI_Fint *ierr)
{
    REQ_OUT(MPI_Iallgatherv(f_buf(sendbuf), *sendcount, T(sendtype), f_buf(recvbuf), recvcounts,
                            displs, T(recvtype), C(comm), &r_));
}
F_PMPI(iallgatherv)

void mpi_ialltoallv_(const void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls,
                     MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls,
                     MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    REQ_OUT(MPI_Ialltoallv(f_buf(sendbuf), sendcounts, sdispls, T(sendtype), f_buf(recvbuf),
                           recvcounts, rdispls, T(recvtype), C(comm), &r_));
}
F_PMPI(ialltoallv)

void mpi_ireduce_scatter_(const void *sendbuf, void *recvbuf, MPI_Fint *recvcounts,
                          MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *comm, MPI_Fint *request,
                          MPI_Fint *ierr)
{
    REQ_OUT(MPI_Ireduce_scatter(f_buf(sendbuf), f_buf(recvbuf), recvcounts, T(datatype), O(op),
                                C(comm), &r_));
}
F_PMPI(ireduce_scatter)

/* ---- Alltoallw: an array of integer handles per side ------------------------------------------ */

/* The length of the type arrays: comm's size, or its remote group's for an intercommunicator; 0
 * for a null or invalid handle, which the collective itself then reports. */
static int f_a2aw_len(MPI_Comm comm)
{
    int inter = 0, n = 0;
    if (comm == MPI_COMM_NULL || MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return 0;
    if ((inter ? MPI_Comm_remote_size(comm, &n) : MPI_Comm_size(comm, &n)) != MPI_SUCCESS || n < 0)
        return 0;
    return n;
}

/* Both sides' types as C handles; with MPI_IN_PLACE the send side's are not read (NULL). The
 * copies are only needed during the call: credo takes the types of an Ialltoallw (and retains
 * them) before it returns. 0, or MPI_ERR_NO_MEM. */
struct f_a2aw {
    MPI_Datatype *st, *rt;
    MPI_Datatype slocal[F_LOCAL], rlocal[F_LOCAL];
};
static int f_a2aw_in(struct f_a2aw *w, const void *sendbuf, const MPI_Fint *sendtypes,
                     const MPI_Fint *recvtypes, MPI_Comm comm)
{
    int n = f_a2aw_len(comm);
    w->st = NULL;
    w->rt = w->rlocal;
    if (sendbuf != MPI_IN_PLACE && f_types_in(&w->st, w->slocal, n, sendtypes) != 0)
        return MPI_ERR_NO_MEM;
    if (f_types_in(&w->rt, w->rlocal, n, recvtypes) != 0) {
        if (w->st != w->slocal)
            free(w->st);
        return MPI_ERR_NO_MEM;
    }
    return 0;
}
static void f_a2aw_free(struct f_a2aw *w)
{
    if (w->st != w->slocal)
        free(w->st);
    if (w->rt != w->rlocal)
        free(w->rt);
}

void mpi_alltoallw_(const void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls,
                    MPI_Fint *sendtypes, void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls,
                    MPI_Fint *recvtypes, MPI_Fint *comm, MPI_Fint *ierr)
{
    struct f_a2aw w;
    MPI_Comm c = C(comm);
    if (f_a2aw_in(&w, f_buf(sendbuf), sendtypes, recvtypes, c) != 0) {
        *ierr = f_no_mem("MPI_Alltoallw");
        return;
    }
    *ierr = MPI_Alltoallw(f_buf(sendbuf), sendcounts, sdispls, w.st, f_buf(recvbuf), recvcounts,
                          rdispls, w.rt, c);
    f_a2aw_free(&w);
}
F_PMPI(alltoallw)

void mpi_ialltoallw_(const void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls,
                     MPI_Fint *sendtypes, void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls,
                     MPI_Fint *recvtypes, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    struct f_a2aw w;
    MPI_Comm c = C(comm);
    if (f_a2aw_in(&w, f_buf(sendbuf), sendtypes, recvtypes, c) != 0) {
        *ierr = f_no_mem("MPI_Ialltoallw");
        return;
    }
    REQ_OUT(MPI_Ialltoallw(f_buf(sendbuf), sendcounts, sdispls, w.st, f_buf(recvbuf), recvcounts,
                           rdispls, w.rt, c, &r_));
    f_a2aw_free(&w);
}
F_PMPI(ialltoallw)

/* ---- neighbourhood collectives (Neighbor_alltoallw and its non-blocking form are not bound:
 * their type arrays are as long as the topology's degrees) --------------------------------------- */

F_ALL(neighbor_allgather, MPI_Neighbor_allgather)
F_ALL(neighbor_alltoall, MPI_Neighbor_alltoall)
F_IALL(ineighbor_allgather, MPI_Ineighbor_allgather)
F_IALL(ineighbor_alltoall, MPI_Ineighbor_alltoall)

void mpi_neighbor_allgatherv_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype,
                              void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *displs,
                              MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Neighbor_allgatherv(f_buf(sendbuf), *sendcount, T(sendtype), f_buf(recvbuf),
                                    recvcounts, displs, T(recvtype), C(comm));
}
F_PMPI(neighbor_allgatherv)

void mpi_ineighbor_allgatherv_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype,
                               void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *displs,
                               MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    REQ_OUT(MPI_Ineighbor_allgatherv(f_buf(sendbuf), *sendcount, T(sendtype), f_buf(recvbuf),
                                     recvcounts, displs, T(recvtype), C(comm), &r_));
}
F_PMPI(ineighbor_allgatherv)

void mpi_neighbor_alltoallv_(const void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls,
                             MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts,
                             MPI_Fint *rdispls, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Neighbor_alltoallv(f_buf(sendbuf), sendcounts, sdispls, T(sendtype), f_buf(recvbuf),
                                   recvcounts, rdispls, T(recvtype), C(comm));
}
F_PMPI(neighbor_alltoallv)

void mpi_ineighbor_alltoallv_(const void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls,
                              MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts,
                              MPI_Fint *rdispls, MPI_Fint *recvtype, MPI_Fint *comm,
                              MPI_Fint *request, MPI_Fint *ierr)
{
    REQ_OUT(MPI_Ineighbor_alltoallv(f_buf(sendbuf), sendcounts, sdispls, T(sendtype),
                                    f_buf(recvbuf), recvcounts, rdispls, T(recvtype), C(comm), &r_));
}
F_PMPI(ineighbor_alltoallv)
