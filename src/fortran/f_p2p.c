/* src/fortran/f_p2p.c — Fortran bindings of point-to-point communication and of the request
 * calls (wait, test and their array forms, persistent requests, cancel, probe). */
#include "fortran/fbind.h"

#define F_SEND(lower, Cname)                                                                       \
    void mpi_##lower##_(const void *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *dest,      \
                        MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *ierr)                             \
    {                                                                                              \
        *ierr = Cname(f_buf(buf), *count, MPI_Type_f2c(*datatype), *dest, *tag,                    \
                      MPI_Comm_f2c(*comm));                                                        \
    }                                                                                              \
    F_PMPI(lower)
F_SEND(send, MPI_Send)
F_SEND(ssend, MPI_Ssend)
F_SEND(rsend, MPI_Rsend)
F_SEND(bsend, MPI_Bsend)

/* Non-blocking sends and persistent inits: the same arguments and an output request. */
#define F_ISEND(lower, Cname)                                                                      \
    void mpi_##lower##_(const void *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *dest,      \
                        MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)          \
    {                                                                                              \
        MPI_Request r = MPI_REQUEST_NULL;                                                          \
        *ierr = Cname(f_buf(buf), *count, MPI_Type_f2c(*datatype), *dest, *tag,                    \
                      MPI_Comm_f2c(*comm), &r);                                                    \
        *request = MPI_Request_c2f(r);                                                             \
    }                                                                                              \
    F_PMPI(lower)
F_ISEND(isend, MPI_Isend)
F_ISEND(issend, MPI_Issend)
F_ISEND(irsend, MPI_Irsend)
F_ISEND(ibsend, MPI_Ibsend)
F_ISEND(send_init, MPI_Send_init)
F_ISEND(ssend_init, MPI_Ssend_init)
F_ISEND(rsend_init, MPI_Rsend_init)
F_ISEND(bsend_init, MPI_Bsend_init)

void mpi_recv_(void *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *source, MPI_Fint *tag,
               MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Status s = {0};
    *ierr = MPI_Recv(f_buf(buf), *count, MPI_Type_f2c(*datatype), *source, *tag, MPI_Comm_f2c(*comm),
                     f_status_arg(status, &s));
    f_status_back(status, &s);
}
F_PMPI(recv)

#define F_IRECV(lower, Cname)                                                                      \
    void mpi_##lower##_(void *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *source,          \
                        MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)          \
    {                                                                                              \
        MPI_Request r = MPI_REQUEST_NULL;                                                          \
        *ierr = Cname(f_buf(buf), *count, MPI_Type_f2c(*datatype), *source, *tag,                  \
                      MPI_Comm_f2c(*comm), &r);                                                    \
        *request = MPI_Request_c2f(r);                                                             \
    }                                                                                              \
    F_PMPI(lower)
F_IRECV(irecv, MPI_Irecv)
F_IRECV(recv_init, MPI_Recv_init)

void mpi_sendrecv_(const void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, MPI_Fint *dest,
                   MPI_Fint *sendtag, void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype,
                   MPI_Fint *source, MPI_Fint *recvtag, MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Status s = {0};
    *ierr = MPI_Sendrecv(f_buf(sendbuf), *sendcount, MPI_Type_f2c(*sendtype), *dest, *sendtag,
                         f_buf(recvbuf), *recvcount, MPI_Type_f2c(*recvtype), *source, *recvtag,
                         MPI_Comm_f2c(*comm), f_status_arg(status, &s));
    f_status_back(status, &s);
}
F_PMPI(sendrecv)

void mpi_sendrecv_replace_(void *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *dest,
                           MPI_Fint *sendtag, MPI_Fint *source, MPI_Fint *recvtag, MPI_Fint *comm,
                           MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Status s = {0};
    *ierr = MPI_Sendrecv_replace(f_buf(buf), *count, MPI_Type_f2c(*datatype), *dest, *sendtag,
                                 *source, *recvtag, MPI_Comm_f2c(*comm), f_status_arg(status, &s));
    f_status_back(status, &s);
}
F_PMPI(sendrecv_replace)

void mpi_probe_(MPI_Fint *source, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Status s = {0};
    *ierr = MPI_Probe(*source, *tag, MPI_Comm_f2c(*comm), f_status_arg(status, &s));
    f_status_back(status, &s);
}
F_PMPI(probe)

void mpi_iprobe_(MPI_Fint *source, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *flag, MPI_Fint *status,
                 MPI_Fint *ierr)
{
    MPI_Status s = {0};
    int f = 0;
    *ierr = MPI_Iprobe(*source, *tag, MPI_Comm_f2c(*comm), &f, f_status_arg(status, &s));
    *flag = f_logical(f);
    if (f)
        f_status_back(status, &s);
}
F_PMPI(iprobe)

/* The status arrives as the Fortran integers; it is read through a C copy (alignment). */
void mpi_get_count_(MPI_Fint *status, MPI_Fint *datatype, MPI_Fint *count, MPI_Fint *ierr)
{
    MPI_Status s;
    memcpy(&s, status, sizeof s);
    *ierr = MPI_Get_count(&s, MPI_Type_f2c(*datatype), count);
}
F_PMPI(get_count)

void mpi_get_elements_(MPI_Fint *status, MPI_Fint *datatype, MPI_Fint *count, MPI_Fint *ierr)
{
    MPI_Status s;
    memcpy(&s, status, sizeof s);
    *ierr = MPI_Get_elements(&s, MPI_Type_f2c(*datatype), count);
}
F_PMPI(get_elements)

void mpi_test_cancelled_(MPI_Fint *status, MPI_Fint *flag, MPI_Fint *ierr)
{
    MPI_Status s;
    int f = 0;
    memcpy(&s, status, sizeof s);
    *ierr = MPI_Test_cancelled(&s, &f);
    *flag = f_logical(f);
}
F_PMPI(test_cancelled)

void mpi_wait_(MPI_Fint *request, MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Status s = {0};
    MPI_Request r = MPI_Request_f2c(*request);
    *ierr = MPI_Wait(&r, f_status_arg(status, &s));
    *request = MPI_Request_c2f(r);
    f_status_back(status, &s);
}
F_PMPI(wait)

void mpi_test_(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Status s = {0};
    MPI_Request r = MPI_Request_f2c(*request);
    int f = 0;
    *ierr = MPI_Test(&r, &f, f_status_arg(status, &s));
    *request = MPI_Request_c2f(r);
    *flag = f_logical(f);
    if (f)
        f_status_back(status, &s);
}
F_PMPI(test)

void mpi_request_free_(MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_Request_f2c(*request);
    *ierr = MPI_Request_free(&r);
    *request = MPI_Request_c2f(r);
}
F_PMPI(request_free)

void mpi_cancel_(MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_Request_f2c(*request);
    *ierr = MPI_Cancel(&r);
}
F_PMPI(cancel)

void mpi_start_(MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_Request_f2c(*request);
    *ierr = MPI_Start(&r);
}
F_PMPI(start)

void mpi_startall_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *ierr)
{
    struct f_reqs r;
    if (f_reqs_in(&r, *count, requests) != 0) {
        *ierr = f_no_mem("MPI_Startall");
        return;
    }
    *ierr = MPI_Startall(*count, r.v);
    f_reqs_back(&r, *count, requests);
}
F_PMPI(startall)

/* The array forms. A Fortran index is 1-based; MPI_UNDEFINED stays as it is. */
static MPI_Fint f_index(int i) { return i >= 0 ? i + 1 : i; }

void mpi_waitall_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *statuses, MPI_Fint *ierr)
{
    struct f_reqs r;
    struct f_stats s;
    if (f_reqs_in(&r, *count, requests) != 0) {
        *ierr = f_no_mem("MPI_Waitall");
        return;
    }
    if (f_stats_in(&s, *count, statuses) != 0) {
        f_reqs_back(&r, *count, requests);
        *ierr = f_no_mem("MPI_Waitall");
        return;
    }
    *ierr = MPI_Waitall(*count, r.v, s.v);
    f_reqs_back(&r, *count, requests);
    f_stats_back(&s, *count, statuses);
}
F_PMPI(waitall)

void mpi_testall_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag, MPI_Fint *statuses,
                  MPI_Fint *ierr)
{
    struct f_reqs r;
    struct f_stats s;
    int f = 0;
    if (f_reqs_in(&r, *count, requests) != 0) {
        *ierr = f_no_mem("MPI_Testall");
        return;
    }
    if (f_stats_in(&s, *count, statuses) != 0) {
        f_reqs_back(&r, *count, requests);
        *ierr = f_no_mem("MPI_Testall");
        return;
    }
    *ierr = MPI_Testall(*count, r.v, &f, s.v);
    *flag = f_logical(f);
    f_reqs_back(&r, *count, requests);
    if (f)
        f_stats_back(&s, *count, statuses);
    else
        f_stats_back(&s, 0, statuses);
}
F_PMPI(testall)

void mpi_waitany_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *status,
                  MPI_Fint *ierr)
{
    struct f_reqs r;
    MPI_Status s = {0};
    int i = MPI_UNDEFINED;
    if (f_reqs_in(&r, *count, requests) != 0) {
        *ierr = f_no_mem("MPI_Waitany");
        return;
    }
    *ierr = MPI_Waitany(*count, r.v, &i, f_status_arg(status, &s));
    f_reqs_back(&r, *count, requests);
    *index = f_index(i);
    f_status_back(status, &s);
}
F_PMPI(waitany)

void mpi_testany_(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag,
                  MPI_Fint *status, MPI_Fint *ierr)
{
    struct f_reqs r;
    MPI_Status s = {0};
    int i = MPI_UNDEFINED, f = 0;
    if (f_reqs_in(&r, *count, requests) != 0) {
        *ierr = f_no_mem("MPI_Testany");
        return;
    }
    *ierr = MPI_Testany(*count, r.v, &i, &f, f_status_arg(status, &s));
    f_reqs_back(&r, *count, requests);
    *index = f_index(i);
    *flag = f_logical(f);
    if (f)
        f_status_back(status, &s);
}
F_PMPI(testany)

#define F_SOME(lower, Cname)                                                                       \
    void mpi_##lower##_(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,                 \
                        MPI_Fint *indices, MPI_Fint *statuses, MPI_Fint *ierr)                     \
    {                                                                                              \
        struct f_reqs r;                                                                           \
        struct f_stats s;                                                                          \
        int n = 0;                                                                                 \
        if (f_reqs_in(&r, *incount, requests) != 0) {                                              \
            *ierr = f_no_mem(#Cname);                                                              \
            return;                                                                                \
        }                                                                                          \
        if (f_stats_in(&s, *incount, statuses) != 0) {                                             \
            f_reqs_back(&r, *incount, requests);                                                   \
            *ierr = f_no_mem(#Cname);                                                              \
            return;                                                                                \
        }                                                                                          \
        *ierr = Cname(*incount, r.v, &n, indices, s.v);                                            \
        f_reqs_back(&r, *incount, requests);                                                       \
        *outcount = n;                                                                             \
        for (int k = 0; k < n && n != MPI_UNDEFINED; k++)                                          \
            indices[k] = f_index(indices[k]);                                                      \
        f_stats_back(&s, n == MPI_UNDEFINED ? 0 : n, statuses);                                    \
    }                                                                                              \
    F_PMPI(lower)
F_SOME(waitsome, MPI_Waitsome)
F_SOME(testsome, MPI_Testsome)

void mpi_buffer_attach_(void *buffer, MPI_Fint *size, MPI_Fint *ierr)
{
    *ierr = MPI_Buffer_attach(buffer, *size);
}
F_PMPI(buffer_attach)

/* Fortran gets the buffer's address back only as the argument it passed; the size is the result. */
void mpi_buffer_detach_(void *buffer, MPI_Fint *size, MPI_Fint *ierr)
{
    void *b = NULL;
    int n = 0;
    (void)buffer;
    *ierr = MPI_Buffer_detach(&b, &n);
    *size = n;
}
F_PMPI(buffer_detach)

/* ---- matched probe and receive ---------------------------------------------------------------- */

void mpi_mprobe_(MPI_Fint *source, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *message,
                 MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Status s = {0};
    MPI_Message m = MPI_MESSAGE_NULL;
    *ierr = MPI_Mprobe(*source, *tag, MPI_Comm_f2c(*comm), &m, f_status_arg(status, &s));
    *message = MPI_Message_c2f(m);
    f_status_back(status, &s);
}
F_PMPI(mprobe)

void mpi_improbe_(MPI_Fint *source, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *flag,
                  MPI_Fint *message, MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Status s = {0};
    MPI_Message m = MPI_MESSAGE_NULL;
    int f = 0;
    *ierr = MPI_Improbe(*source, *tag, MPI_Comm_f2c(*comm), &f, &m, f_status_arg(status, &s));
    *flag = f_logical(f);
    if (f) {
        *message = MPI_Message_c2f(m);
        f_status_back(status, &s);
    }
}
F_PMPI(improbe)

/* The message handle is consumed: it comes back as MPI_MESSAGE_NULL's integer, 0. */
void mpi_mrecv_(void *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *message,
                MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Status s = {0};
    MPI_Message m = MPI_Message_f2c(*message);
    *ierr = MPI_Mrecv(f_buf(buf), *count, MPI_Type_f2c(*datatype), &m, f_status_arg(status, &s));
    *message = MPI_Message_c2f(m);
    f_status_back(status, &s);
}
F_PMPI(mrecv)

void mpi_imrecv_(void *buf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *message,
                 MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Message m = MPI_Message_f2c(*message);
    *ierr = MPI_Imrecv(f_buf(buf), *count, MPI_Type_f2c(*datatype), &m, &r);
    *message = MPI_Message_c2f(m);
    *request = MPI_Request_c2f(r);
}
F_PMPI(imrecv)

/* ---- statuses and requests -------------------------------------------------------------------- */

/* The Fortran status is read and written back through a C copy (alignment). */
void mpi_status_set_elements_(MPI_Fint *status, MPI_Fint *datatype, MPI_Fint *count,
                              MPI_Fint *ierr)
{
    MPI_Status s;
    memcpy(&s, status, sizeof s);
    *ierr = MPI_Status_set_elements(&s, MPI_Type_f2c(*datatype), *count);
    memcpy(status, &s, sizeof s);
}
F_PMPI(status_set_elements)

void mpi_status_set_cancelled_(MPI_Fint *status, MPI_Fint *flag, MPI_Fint *ierr)
{
    MPI_Status s;
    memcpy(&s, status, sizeof s);
    *ierr = MPI_Status_set_cancelled(&s, *flag != 0);
    memcpy(status, &s, sizeof s);
}
F_PMPI(status_set_cancelled)

/* The request is left as it is, even when complete. */
void mpi_request_get_status_(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Status s = {0};
    int f = 0;
    *ierr = MPI_Request_get_status(MPI_Request_f2c(*request), &f, f_status_arg(status, &s));
    *flag = f_logical(f);
    if (f)
        f_status_back(status, &s);
}
F_PMPI(request_get_status)
