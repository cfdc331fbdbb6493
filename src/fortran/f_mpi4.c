/* src/fortran/f_mpi4.c — Fortran bindings of MPI 4.0's additions: persistent collectives,
 * partitioned communication and sessions. */
#include "fortran/fbind.h"

/* ---- persistent collectives (the Neighbor_ and Alltoallw forms are not bound) ------------------ */

void mpi_barrier_init_(MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)
{
    REQ_OUT(MPI_Barrier_init(C(comm), I(info), &r_));
}
F_PMPI(barrier_init)

void mpi_bcast_init_(void *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *root,
                     MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)
{
    REQ_OUT(MPI_Bcast_init(f_buf(buf), *count, T(datatype), *root, C(comm), I(info), &r_));
}
F_PMPI(bcast_init)

void mpi_reduce_init_(const void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype,
                      MPI_Fint *op, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *info,
                      MPI_Fint *request, MPI_Fint *ierr)
{
    REQ_OUT(MPI_Reduce_init(f_buf(sendbuf), f_buf(recvbuf), *count, T(datatype), O(op), *root,
                            C(comm), I(info), &r_));
}
F_PMPI(reduce_init)

#define F_ALLRED_INIT(lower, Cname)                                                                \
    void mpi_##lower##_(const void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype,   \
                        MPI_Fint *op, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request,           \
                        MPI_Fint *ierr)                                                            \
    {                                                                                              \
        REQ_OUT(Cname(f_buf(sendbuf), f_buf(recvbuf), *count, T(datatype), O(op), C(comm),         \
                      I(info), &r_));                                                              \
    }                                                                                              \
    F_PMPI(lower)
F_ALLRED_INIT(allreduce_init, MPI_Allreduce_init)
F_ALLRED_INIT(scan_init, MPI_Scan_init)
F_ALLRED_INIT(exscan_init, MPI_Exscan_init)
F_ALLRED_INIT(reduce_scatter_block_init, MPI_Reduce_scatter_block_init)

void mpi_reduce_scatter_init_(const void *sendbuf, void *recvbuf, MPI_Fint *recvcounts,
                              MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *comm, MPI_Fint *info,
                              MPI_Fint *request, MPI_Fint *ierr)
{
    REQ_OUT(MPI_Reduce_scatter_init(f_buf(sendbuf), f_buf(recvbuf), recvcounts, T(datatype), O(op),
                                    C(comm), I(info), &r_));
}
F_PMPI(reduce_scatter_init)

#define F_ROOTED_INIT(lower, Cname)                                                                \
    void mpi_##lower##_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype,              \
                        void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root,    \
                        MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)         \
    {                                                                                              \
        REQ_OUT(Cname(f_buf(sendbuf), *sendcount, T(sendtype), f_buf(recvbuf), *recvcount,        \
                      T(recvtype), *root, C(comm), I(info), &r_));                                 \
    }                                                                                              \
    F_PMPI(lower)
#define F_ALL_INIT(lower, Cname)                                                                   \
    void mpi_##lower##_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype,              \
                        void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm,    \
                        MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)                         \
    {                                                                                              \
        REQ_OUT(Cname(f_buf(sendbuf), *sendcount, T(sendtype), f_buf(recvbuf), *recvcount,        \
                      T(recvtype), C(comm), I(info), &r_));                                        \
    }                                                                                              \
    F_PMPI(lower)
F_ROOTED_INIT(gather_init, MPI_Gather_init)
F_ROOTED_INIT(scatter_init, MPI_Scatter_init)
F_ALL_INIT(allgather_init, MPI_Allgather_init)
F_ALL_INIT(alltoall_init, MPI_Alltoall_init)

void mpi_gatherv_init_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                       MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *root,
                       MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)
{
    REQ_OUT(MPI_Gatherv_init(f_buf(sendbuf), *sendcount, T(sendtype), f_buf(recvbuf), recvcounts,
                             displs, T(recvtype), *root, C(comm), I(info), &r_));
}
F_PMPI(gatherv_init)

void mpi_scatterv_init_(const void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *displs,
                        MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype,
                        MPI_Fint *root, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request,
                        MPI_Fint *ierr)
{
    REQ_OUT(MPI_Scatterv_init(f_buf(sendbuf), sendcounts, displs, T(sendtype), f_buf(recvbuf),
                              *recvcount, T(recvtype), *root, C(comm), I(info), &r_));
}
F_PMPI(scatterv_init)

void mpi_allgatherv_init_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype,
                          void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype,
                          MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr)
{
    REQ_OUT(MPI_Allgatherv_init(f_buf(sendbuf), *sendcount, T(sendtype), f_buf(recvbuf),
                                recvcounts, displs, T(recvtype), C(comm), I(info), &r_));
}
F_PMPI(allgatherv_init)

void mpi_alltoallv_init_(const void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls,
                         MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls,
                         MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request,
                         MPI_Fint *ierr)
{
    REQ_OUT(MPI_Alltoallv_init(f_buf(sendbuf), sendcounts, sdispls, T(sendtype), f_buf(recvbuf),
                               recvcounts, rdispls, T(recvtype), C(comm), I(info), &r_));
}
F_PMPI(alltoallv_init)

/* ---- partitioned communication (COUNT is INTEGER(KIND=MPI_COUNT_KIND)) ------------------------ */

void mpi_psend_init_(const void *buf, MPI_Fint *partitions, MPI_Count *count, MPI_Fint *datatype,
                     MPI_Fint *dest, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *info,
                     MPI_Fint *request, MPI_Fint *ierr)
{
    REQ_OUT(MPI_Psend_init(f_buf(buf), *partitions, *count, T(datatype), *dest, *tag, C(comm),
                           I(info), &r_));
}
F_PMPI(psend_init)

void mpi_precv_init_(void *buf, MPI_Fint *partitions, MPI_Count *count, MPI_Fint *datatype,
                     MPI_Fint *source, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *info,
                     MPI_Fint *request, MPI_Fint *ierr)
{
    REQ_OUT(MPI_Precv_init(f_buf(buf), *partitions, *count, T(datatype), *source, *tag, C(comm),
                           I(info), &r_));
}
F_PMPI(precv_init)

/* Partition numbers are 0-based in Fortran too (MPI 4.0 §4.2.2). */
void mpi_pready_(MPI_Fint *partition, MPI_Fint *request, MPI_Fint *ierr)
{
    *ierr = MPI_Pready(*partition, MPI_Request_f2c(*request));
}
F_PMPI(pready)

void mpi_pready_range_(MPI_Fint *partition_low, MPI_Fint *partition_high, MPI_Fint *request,
                       MPI_Fint *ierr)
{
    *ierr = MPI_Pready_range(*partition_low, *partition_high, MPI_Request_f2c(*request));
}
F_PMPI(pready_range)

void mpi_pready_list_(MPI_Fint *length, MPI_Fint *array_of_partitions, MPI_Fint *request,
                      MPI_Fint *ierr)
{
    *ierr = MPI_Pready_list(*length, array_of_partitions, MPI_Request_f2c(*request));
}
F_PMPI(pready_list)

void mpi_parrived_(MPI_Fint *request, MPI_Fint *partition, MPI_Fint *flag, MPI_Fint *ierr)
{
    int f = 0;
    *ierr = MPI_Parrived(MPI_Request_f2c(*request), *partition, &f);
    *flag = f_logical(f);
}
F_PMPI(parrived)

/* ---- sessions (MPI_Session_create_errhandler, whose handler would be Fortran, is not bound) ---- */

void mpi_session_init_(MPI_Fint *info, MPI_Fint *errhandler, MPI_Fint *session, MPI_Fint *ierr)
{
    MPI_Session s = MPI_SESSION_NULL;
    *ierr = MPI_Session_init(I(info), MPI_Errhandler_f2c(*errhandler), &s);
    *session = MPI_Session_c2f(s);
}
F_PMPI(session_init)

void mpi_session_finalize_(MPI_Fint *session, MPI_Fint *ierr)
{
    MPI_Session s = MPI_Session_f2c(*session);
    *ierr = MPI_Session_finalize(&s);
    *session = MPI_Session_c2f(s);
}
F_PMPI(session_finalize)

void mpi_session_get_num_psets_(MPI_Fint *session, MPI_Fint *info, MPI_Fint *npset_names,
                                MPI_Fint *ierr)
{
    *ierr = MPI_Session_get_num_psets(MPI_Session_f2c(*session), I(info), npset_names);
}
F_PMPI(session_get_num_psets)

/* PSET_LEN in: the room in PSET_NAME (0 asks for the length); out: the name's length + 1, as
 * in C. The name comes back blank-padded. */
void mpi_session_get_nth_pset_(MPI_Fint *session, MPI_Fint *info, MPI_Fint *n, MPI_Fint *pset_len,
                               char *pset_name, MPI_Fint *ierr, size_t name_len)
{
    int len = 0;
    *ierr = MPI_Session_get_nth_pset(MPI_Session_f2c(*session), I(info), *n, &len, NULL);
    if (*ierr != MPI_SUCCESS)
        return;
    if (*pset_len > 0) {
        char *c = malloc((size_t)len + 1);
        if (c == NULL) {
            *ierr = f_no_mem("MPI_Session_get_nth_pset");
            return;
        }
        *ierr = MPI_Session_get_nth_pset(MPI_Session_f2c(*session), I(info), *n, &len, c);
        if (*ierr == MPI_SUCCESS) {
            size_t room = (size_t)*pset_len < name_len ? (size_t)*pset_len : name_len;
            c[len < (int)room ? len : (int)room] = '\0';
            f_str_out(pset_name, name_len, c);
        }
        free(c);
    }
    *pset_len = len;
}
F_PMPI(session_get_nth_pset)

void mpi_session_get_pset_info_(MPI_Fint *session, const char *pset_name, MPI_Fint *info,
                                MPI_Fint *ierr, size_t name_len)
{
    char *name = f_str_in(pset_name, name_len);
    MPI_Info i = MPI_INFO_NULL;
    if (name == NULL) {
        *ierr = f_no_mem("MPI_Session_get_pset_info");
        return;
    }
    *ierr = MPI_Session_get_pset_info(MPI_Session_f2c(*session), name, &i);
    *info = MPI_Info_c2f(i);
    free(name);
}
F_PMPI(session_get_pset_info)

void mpi_session_get_info_(MPI_Fint *session, MPI_Fint *info_used, MPI_Fint *ierr)
{
    MPI_Info i = MPI_INFO_NULL;
    *ierr = MPI_Session_get_info(MPI_Session_f2c(*session), &i);
    *info_used = MPI_Info_c2f(i);
}
F_PMPI(session_get_info)

void mpi_group_from_session_pset_(MPI_Fint *session, const char *pset_name, MPI_Fint *newgroup,
                                  MPI_Fint *ierr, size_t name_len)
{
    char *name = f_str_in(pset_name, name_len);
    MPI_Group g = MPI_GROUP_NULL;
    if (name == NULL) {
        *ierr = f_no_mem("MPI_Group_from_session_pset");
        return;
    }
    *ierr = MPI_Group_from_session_pset(MPI_Session_f2c(*session), name, &g);
    *newgroup = MPI_Group_c2f(g);
    free(name);
}
F_PMPI(group_from_session_pset)

void mpi_comm_create_from_group_(MPI_Fint *group, const char *stringtag, MPI_Fint *info,
                                 MPI_Fint *errhandler, MPI_Fint *newcomm, MPI_Fint *ierr,
                                 size_t tag_len)
{
    char *tag = f_str_in(stringtag, tag_len);
    MPI_Comm c = MPI_COMM_NULL;
    if (tag == NULL) {
        *ierr = f_no_mem("MPI_Comm_create_from_group");
        return;
    }
    *ierr = MPI_Comm_create_from_group(MPI_Group_f2c(*group), tag, I(info),
                                       MPI_Errhandler_f2c(*errhandler), &c);
    *newcomm = MPI_Comm_c2f(c);
    free(tag);
}
F_PMPI(comm_create_from_group)

void mpi_session_set_errhandler_(MPI_Fint *session, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    *ierr = MPI_Session_set_errhandler(MPI_Session_f2c(*session), MPI_Errhandler_f2c(*errhandler));
}
F_PMPI(session_set_errhandler)

void mpi_session_get_errhandler_(MPI_Fint *session, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    MPI_Errhandler e = MPI_ERRHANDLER_NULL;
    *ierr = MPI_Session_get_errhandler(MPI_Session_f2c(*session), &e);
    *errhandler = MPI_Errhandler_c2f(e);
}
F_PMPI(session_get_errhandler)

void mpi_session_call_errhandler_(MPI_Fint *session, MPI_Fint *errorcode, MPI_Fint *ierr)
{
    *ierr = MPI_Session_call_errhandler(MPI_Session_f2c(*session), *errorcode);
}
F_PMPI(session_call_errhandler)
