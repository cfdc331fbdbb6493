/* src/mpi/isendrecv.c — MPI-4 MPI_Isendrecv and MPI_Isendrecv_replace: one request over a send and
 * a receive, completed when both are. */
#include <stdlib.h>

#include "mpi/mpi_impl.h"

/* The handle is a generic request; the send and the receive are plain p2p requests whose upper
 * field points at this state, so their completion hook can count down without the MPI layer's
 * packed-request machinery (which keeps its own state in the request). Non-contiguous data is
 * packed and unpacked here. */
typedef struct isr_state {
    p2p_req *req;          /* the handle */
    void *stmp, *rtmp;     /* pack buffers, or NULL */
    void *rbuf;            /* unpack target when rtmp */
    int rcount;
    MPI_Datatype rdt;      /* retained when rtmp */
    int pending;           /* parts not yet complete */
    int send_err;          /* p2p error of the send, if any */
} isr_state;

static void isr_finish(isr_state *s)
{
    p2p_req *h = s->req;
    if (h->status.error == P2P_OK && s->send_err != P2P_OK)
        h->status.error = s->send_err;
    free(s->stmp);
    free(s->rtmp);
    if (s->rdt)
        dt_release(s->rdt);
    free(s);
    p2p_req_complete(h);
}

static void isr_part_done(p2p_req *c)
{
    isr_state *s = c->upper;
    if (c->kind == P2P_REQ_RECV) {
        s->req->status = c->status;
        if (s->rtmp != NULL && c->status.error == P2P_OK && !c->status.cancelled)
            dt_unpack(s->rtmp, c->status.bytes, (size_t)s->rcount, s->rdt, s->rbuf);
    } else if (c->status.error != P2P_OK) {
        s->send_err = c->status.error;
    }
    p2p_req_free(c); /* inside its own hook: p2p releases it right after */
    if (--s->pending == 0)
        isr_finish(s);
}

/* Hooks a started part to s, or counts it down at once if p2p finished it already. */
static void isr_attach(isr_state *s, p2p_req *c)
{
    c->upper = s;
    if (c->done)
        isr_part_done(c);
    else
        c->on_complete = isr_part_done;
}

/* sbuf: the data to send, already in its final place (packed or the user's); rbuf/rcount/rdt: the
 * receive. Arguments are checked by the caller. */
static int isr_start(const char *fn, const void *sbuf, size_t sbytes, int dest, int sendtag,
                     void *stmp, void *rbuf, int rcount, MPI_Datatype rdt, int source,
                     int recvtag, MPI_Comm comm, MPI_Request *request)
{
    size_t rbytes = (size_t)rcount * rdt->size;
    int rdense = (rdt->flags & DT_F_DENSE) || rbytes == 0;
    isr_state *s = calloc(1, sizeof *s);
    void *rtmp = source != MPI_PROC_NULL && !rdense ? malloc(rbytes) : NULL;
    uint64_t flags = source == MPI_PROC_NULL ? REQ_F_PROC_NULL : REQ_F_RECV;
    p2p_req *h = s != NULL && (rdense || source == MPI_PROC_NULL || rtmp != NULL)
                     ? mpi_req_new(comm, flags)
                     : NULL;
    if (h == NULL) {
        free(s);
        free(rtmp);
        free(stmp);
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    s->req = h;
    s->stmp = stmp;
    s->rtmp = rtmp;
    s->rbuf = rbuf;
    s->rcount = rcount;
    if (rtmp != NULL) {
        s->rdt = rdt;
        dt_retain(rdt);
    }
    /* one extra count while the parts start, so a part that finishes at once cannot complete the
     * handle before the other one exists */
    s->pending = 1;
    p2p_req *c;
    int rc = P2P_OK;
    if (source != MPI_PROC_NULL) {
        void *into = rtmp != NULL ? rtmp : BUF_AT(rbuf, rdense && rbytes ? rdt->lb : 0);
        rc = p2p_irecv(into, rbytes, source == MPI_ANY_SOURCE ? P2P_ANY_SOURCE
                                                               : comm->world_of[source],
                       recvtag, comm->ctx, &c);
        if (rc == P2P_OK) {
            s->pending++;
            isr_attach(s, c);
        }
    }
    if (rc == P2P_OK && dest != MPI_PROC_NULL) {
        rc = p2p_isend(sbuf, sbytes, comm->world_of[dest], sendtag, comm->ctx, P2P_MODE_STANDARD,
                       &c);
        if (rc == P2P_OK) {
            s->pending++;
            isr_attach(s, c);
        }
    }
    if (rc != P2P_OK) /* the part already started completes the handle with this error */
        s->send_err = rc;
    *request = mpi_req_handle(h);
    if (--s->pending == 0)
        isr_finish(s);
    if (rc != P2P_OK)
        return mpi_error(comm, mpi_err_of_p2p(rc), fn, "could not start the %s",
                         source != MPI_PROC_NULL && dest != MPI_PROC_NULL ? "exchange" : "transfer");
    return MPI_SUCCESS;
}

int MPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Request *request)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Isendrecv";
    sendtype = dt_or_byte_if_empty(sendcount, sendtype);
    recvtype = dt_or_byte_if_empty(recvcount, recvtype);
    int rc;
    if ((rc = mpi_check_isend(fn, sendbuf, sendcount, sendtype, dest, sendtag, comm, request)) !=
            MPI_SUCCESS ||
        (rc = mpi_check_irecv(fn, recvbuf, recvcount, recvtype, source, recvtag, comm,
                              request)) != MPI_SUCCESS)
        return rc;
    size_t sbytes = (size_t)sendcount * sendtype->size;
    const void *sb = BUF_AT(sendbuf, (sendtype->flags & DT_F_DENSE) && sbytes ? sendtype->lb : 0);
    void *stmp = NULL;
    if (dest != MPI_PROC_NULL && !(sendtype->flags & DT_F_DENSE) && sbytes > 0) {
        if ((stmp = malloc(sbytes)) == NULL)
            return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
        dt_pack(sendbuf, (size_t)sendcount, sendtype, stmp);
        sb = stmp;
    }
    return isr_start(fn, sb, sbytes, dest, sendtag, stmp, recvbuf, recvcount, recvtype, source,
                     recvtag, comm, request);
}

/* The outgoing data is copied aside at the call, so the receive may land in buf at once. */
int MPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Isendrecv_replace";
    datatype = dt_or_byte_if_empty(count, datatype);
    int rc;
    if ((rc = mpi_check_isend(fn, buf, count, datatype, dest, sendtag, comm, request)) !=
            MPI_SUCCESS ||
        (rc = mpi_check_irecv(fn, buf, count, datatype, source, recvtag, comm, request)) !=
            MPI_SUCCESS)
        return rc;
    size_t bytes = (size_t)count * datatype->size;
    void *stmp = NULL;
    if (dest != MPI_PROC_NULL) {
        if ((stmp = malloc(bytes ? bytes : 1)) == NULL)
            return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
        dt_pack(buf, (size_t)count, datatype, stmp);
    }
    return isr_start(fn, stmp, bytes, dest, sendtag, stmp, buf, count, datatype, source, recvtag,
                     comm, request);
}

CREDO_PMPI(MPI_Isendrecv)
CREDO_PMPI(MPI_Isendrecv_replace)
