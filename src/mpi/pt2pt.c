/* src/mpi/pt2pt.c — point-to-point bindings: argument checks, rank/context translation, and
 * packing of non-contiguous datatypes around the p2p layer's byte messages. */
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "mpi/mpi_impl.h"

/* ---- cold-path argument diagnosis ---- */

int mpi_check_buf(MPI_Comm comm, const char *fn, const void *buf, int count, MPI_Datatype dt)
{
    if (count < 0)
        return mpi_error(comm, MPI_ERR_COUNT, fn, "negative count %d", count);
    if (!dt_live(dt))
        return mpi_error(comm, MPI_ERR_TYPE, fn, "invalid datatype");
    if (!(dt->flags & DT_F_COMMITTED))
        return mpi_error(comm, MPI_ERR_TYPE, fn, "datatype not committed");
    /* A derived type may hold absolute addresses (MPI_Get_address) and go with MPI_BOTTOM, which
     * is NULL: only a predefined type makes a NULL buffer certainly wrong. */
    if (buf == NULL && count > 0 && dt->size > 0 && (dt->flags & DT_F_PREDEF))
        return mpi_error(comm, MPI_ERR_BUFFER, fn, "NULL buffer with count %d", count);
    if (buf == MPI_IN_PLACE)
        return mpi_error(comm, MPI_ERR_BUFFER, fn, "MPI_IN_PLACE not allowed here");
    return MPI_SUCCESS;
}

/* What sends and receives check alike: the library state, the communicator and the buffer. */
static int check_comm_buf(const char *fn, const void *buf, int count, MPI_Datatype dt, MPI_Comm comm)
{
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (!comm_ok(comm))
        return mpi_error(NULL, MPI_ERR_COMM, fn, "invalid communicator");
    return mpi_check_buf(comm, fn, buf, count, dt);
}

/* Full check of a send's arguments; dest may be PROC_NULL. 0 or the raised error code. */
int mpi_check_send(const char *fn, const void *buf, int count, MPI_Datatype dt, int dest,
                   int tag, MPI_Comm comm)
{
    int rc;
    if ((rc = check_comm_buf(fn, buf, count, dt, comm)) != MPI_SUCCESS)
        return rc;
    if (dest != MPI_PROC_NULL && (dest < 0 || dest >= comm->remote_size))
        return mpi_error(comm, MPI_ERR_RANK, fn, "invalid rank %d (%s size %d)", dest,
                         COMM_IS_INTER(comm) ? "remote group" : "communicator", comm->remote_size);
    if (tag < 0 || tag > CREDO_TAG_UB)
        return mpi_error(comm, MPI_ERR_TAG, fn, "invalid tag %d (valid: 0..%d)", tag,
                         CREDO_TAG_UB);
    return MPI_SUCCESS;
}

/* Receive side: source may be ANY_SOURCE or PROC_NULL, tag may be ANY_TAG. */
int mpi_check_recv(const char *fn, const void *buf, int count, MPI_Datatype dt, int src,
                   int tag, MPI_Comm comm)
{
    int rc;
    if ((rc = check_comm_buf(fn, buf, count, dt, comm)) != MPI_SUCCESS)
        return rc;
    if (src != MPI_PROC_NULL && src != MPI_ANY_SOURCE && (src < 0 || src >= comm->remote_size))
        return mpi_error(comm, MPI_ERR_RANK, fn, "invalid source rank %d (%s size %d)",
                         src, COMM_IS_INTER(comm) ? "remote group" : "communicator",
                         comm->remote_size);
    if (tag != MPI_ANY_TAG && (tag < 0 || tag > CREDO_TAG_UB))
        return mpi_error(comm, MPI_ERR_TAG, fn, "invalid tag %d (valid: 0..%d or MPI_ANY_TAG)",
                         tag, CREDO_TAG_UB);
    return MPI_SUCCESS;
}

/* The non-blocking forms (Isend/Irecv and the persistent *_init): request checked first, so
 * a NULL request is reported as such whatever else is wrong. */
static int check_request_arg(const char *fn, MPI_Comm comm, MPI_Request *request)
{
    if (request != NULL)
        return MPI_SUCCESS;
    if (!MPI_READY())
        return mpi_not_ready(fn);
    return mpi_error(comm, MPI_ERR_REQUEST, fn, "request is NULL");
}

int mpi_check_isend(const char *fn, const void *buf, int count, MPI_Datatype dt, int dest,
                    int tag, MPI_Comm comm, MPI_Request *request)
{
    int rc = check_request_arg(fn, comm, request);
    return rc != MPI_SUCCESS ? rc : mpi_check_send(fn, buf, count, dt, dest, tag, comm);
}

int mpi_check_irecv(const char *fn, const void *buf, int count, MPI_Datatype dt, int src,
                    int tag, MPI_Comm comm, MPI_Request *request)
{
    int rc = check_request_arg(fn, comm, request);
    return rc != MPI_SUCCESS ? rc : mpi_check_recv(fn, buf, count, dt, src, tag, comm);
}

static int check_probe(const char *fn, int src, int tag, MPI_Comm comm)
{
    return mpi_check_recv(fn, NULL, 0, MPI_BYTE, src, tag, comm);
}

/* The fast-path predicates: everything valid, a real peer, a dense type. */
static inline int send_fast_ok(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                               MPI_Comm comm)
{
    return MPI_READY() && comm_ok(comm) && (unsigned)dest < (unsigned)comm->remote_size &&
           tag >= 0 && count >= 0 && dt_ok(dt) && (dt->flags & DT_F_DENSE) &&
           likely(buf != NULL || count == 0);
}

static inline int recv_fast_ok(const void *buf, int count, MPI_Datatype dt, int src, int tag,
                               MPI_Comm comm)
{
    return MPI_READY() && comm_ok(comm) &&
           (src == MPI_ANY_SOURCE || (unsigned)src < (unsigned)comm->remote_size) &&
           tag >= MPI_ANY_TAG && count >= 0 && dt_ok(dt) && (dt->flags & DT_F_DENSE) &&
           likely(buf != NULL || count == 0) && buf != MPI_IN_PLACE;
}

/* ---- requests with temporary pack buffers ---- */

/* Completion hook of packed requests; idempotent because it may run from progress or from the
 * caller (when the request completed before the hook was installed). */
static void packed_done(p2p_req *r)
{
    uint64_t f = r->upper_data[0];
    if (!(f & REQ_F_PACKED))
        return;
    r->upper_data[0] = f & ~(uint64_t)REQ_F_PACKED;
    MPI_Datatype dt = (MPI_Datatype)(uintptr_t)r->upper_data[1];
    void *tmp = (void *)(uintptr_t)r->upper_data[3];
    if (f & REQ_F_RECV) {
        size_t count = (size_t)(f >> 32);
        size_t bytes = r->status.cancelled ? 0 : r->status.bytes;
        dt_unpack(tmp, bytes, count, dt, (void *)(uintptr_t)r->upper_data[2]);
    }
    free(tmp);
    dt_release(dt);
}

void mpi_req_packed_hook(p2p_req *r)
{
    packed_done(r);
}

static void attach_packed(p2p_req *r, MPI_Comm comm, uint64_t flags, int count, MPI_Datatype dt,
                          void *user, void *tmp)
{
    REQ_BIND(r, comm);
    r->upper_data[0] = flags | REQ_F_PACKED | ((uint64_t)(uint32_t)count << 32);
    r->upper_data[1] = (uint64_t)(uintptr_t)dt;
    r->upper_data[2] = (uint64_t)(uintptr_t)user;
    r->upper_data[3] = (uint64_t)(uintptr_t)tmp;
    dt_retain(dt);
    r->on_complete = packed_done;
    /* The request may have completed inside p2p, before the hook existed. */
    if (r->done)
        packed_done(r);
}

int mpi_isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
              uint32_t ctx, int mode, p2p_req **out)
{
    size_t bytes = (size_t)count * dt->size;
    int rc;
    p2p_req *r;
    if (likely((dt->flags & DT_F_DENSE) || bytes == 0)) {
        rc = p2p_isend(BUF_AT(buf, (dt->flags & DT_F_DENSE) ? dt->lb : 0), bytes,
                       comm->world_of[dest], tag, ctx, mode, &r);
        if (unlikely(rc != P2P_OK))
            return mpi_err_of_p2p(rc);
        REQ_BIND(r, comm);
        r->upper_data[0] = 0;
        r->on_complete = NULL;
        *out = r;
        return MPI_SUCCESS;
    }
    void *tmp = malloc(bytes);
    if (tmp == NULL)
        return MPI_ERR_NO_MEM;
    dt_pack(buf, (size_t)count, dt, tmp);
    rc = p2p_isend(tmp, bytes, comm->world_of[dest], tag, ctx, mode, &r);
    if (rc != P2P_OK) {
        free(tmp);
        return mpi_err_of_p2p(rc);
    }
    attach_packed(r, comm, 0, count, dt, NULL, tmp);
    *out = r;
    return MPI_SUCCESS;
}

int mpi_irecv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
              uint32_t ctx, p2p_req **out)
{
    size_t bytes = (size_t)count * dt->size;
    int jsrc = src == MPI_ANY_SOURCE ? P2P_ANY_SOURCE : comm->world_of[src];
    int rc;
    p2p_req *r;
    if (likely((dt->flags & DT_F_DENSE) || bytes == 0)) {
        rc = p2p_irecv(BUF_AT(buf, (dt->flags & DT_F_DENSE) ? dt->lb : 0), bytes, jsrc, tag,
                       ctx, &r);
        if (unlikely(rc != P2P_OK))
            return mpi_err_of_p2p(rc);
        REQ_BIND(r, comm);
        r->upper_data[0] = REQ_F_RECV;
        r->on_complete = NULL;
        *out = r;
        return MPI_SUCCESS;
    }
    void *tmp = malloc(bytes);
    if (tmp == NULL)
        return MPI_ERR_NO_MEM;
    rc = p2p_irecv(tmp, bytes, jsrc, tag, ctx, &r);
    if (rc != P2P_OK) {
        free(tmp);
        return mpi_err_of_p2p(rc);
    }
    attach_packed(r, comm, REQ_F_RECV, count, dt, buf, tmp);
    *out = r;
    return MPI_SUCCESS;
}

int mpi_imrecv(void *buf, int count, MPI_Datatype dt, MPI_Comm comm, p2p_msg *msg, p2p_req **out)
{
    size_t bytes = (size_t)count * dt->size;
    int rc;
    p2p_req *r;
    if ((dt->flags & DT_F_DENSE) || bytes == 0) {
        rc = p2p_imrecv(msg, BUF_AT(buf, (dt->flags & DT_F_DENSE) ? dt->lb : 0), bytes, &r);
        if (rc != P2P_OK)
            return mpi_err_of_p2p(rc);
        REQ_BIND(r, comm);
        r->upper_data[0] = REQ_F_RECV;
        r->on_complete = NULL;
        *out = r;
        return MPI_SUCCESS;
    }
    void *tmp = malloc(bytes);
    if (tmp == NULL)
        return MPI_ERR_NO_MEM;
    rc = p2p_imrecv(msg, tmp, bytes, &r);
    if (rc != P2P_OK) {
        free(tmp);
        return mpi_err_of_p2p(rc);
    }
    attach_packed(r, comm, REQ_F_RECV, count, dt, buf, tmp);
    *out = r;
    return MPI_SUCCESS;
}

p2p_req *mpi_req_proc_null(MPI_Comm comm)
{
    p2p_req *r = mpi_req_new(comm, REQ_F_PROC_NULL | REQ_F_RECV);
    if (r == NULL)
        return NULL;
    memset(&r->status, 0, sizeof r->status);
    p2p_req_complete(r);
    return r;
}

/* ---- blocking sends ---- */

static int send_slow(const char *fn, const void *buf, int count, MPI_Datatype dt, int dest,
                     int tag, MPI_Comm comm, int mode)
{
    dt = dt_or_byte_if_empty(count, dt);
    int rc = mpi_check_send(fn, buf, count, dt, dest, tag, comm);
    if (rc != MPI_SUCCESS || dest == MPI_PROC_NULL)
        return rc;
    p2p_req *r = NULL; /* set by mpi_isend on success; GCC -O3 cannot see that once it inlines it */
    rc = mpi_isend(buf, count, dt, dest, tag, comm, comm->ctx, mode, &r);
    if (rc != MPI_SUCCESS)
        return mpi_error(comm, rc, fn, "send to rank %d failed", dest);
    rc = mpi_req_wait(r, NULL);
    if (rc != MPI_SUCCESS)
        return mpi_error(comm, rc, fn, "send to rank %d failed", dest);
    return MPI_SUCCESS;
}

static inline int send_blocking(const char *fn, const void *buf, int count, MPI_Datatype dt,
                                int dest, int tag, MPI_Comm comm, int mode)
{
    if (unlikely(!send_fast_ok(buf, count, dt, dest, tag, comm)))
        return send_slow(fn, buf, count, dt, dest, tag, comm, mode);
    int rc = p2p_send(BUF_AT(buf, dt->lb), (size_t)count * dt->size, comm->world_of[dest], tag,
                      comm->ctx, mode);
    if (unlikely(rc != P2P_OK))
        return mpi_error(comm, mpi_err_of_p2p(rc), fn, "send to rank %d failed", dest);
    return MPI_SUCCESS;
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    MPI_ENTER();
    return send_blocking("MPI_Send", buf, count, datatype, dest, tag, comm, P2P_MODE_STANDARD);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    MPI_ENTER();
    return send_blocking("MPI_Ssend", buf, count, datatype, dest, tag, comm, P2P_MODE_SYNC);
}

int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    MPI_ENTER();
    return send_blocking("MPI_Rsend", buf, count, datatype, dest, tag, comm, P2P_MODE_READY);
}

int MPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Bsend";
    datatype = dt_or_byte_if_empty(count, datatype);
    int rc = mpi_check_send(fn, buf, count, datatype, dest, tag, comm);
    if (rc != MPI_SUCCESS || dest == MPI_PROC_NULL)
        return rc;
    return mpi_bsend_start(fn, buf, count, datatype, dest, tag, comm);
}

/* ---- non-blocking sends ---- */

static int isend_slow(const char *fn, const void *buf, int count, MPI_Datatype dt, int dest,
                      int tag, MPI_Comm comm, int mode, MPI_Request *request)
{
    dt = dt_or_byte_if_empty(count, dt);
    int rc = mpi_check_isend(fn, buf, count, dt, dest, tag, comm, request);
    if (rc != MPI_SUCCESS)
        return rc;
    p2p_req *r;
    if (dest == MPI_PROC_NULL) {
        r = mpi_req_proc_null(comm);
        if (r == NULL)
            return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of requests");
    } else {
        rc = mpi_isend(buf, count, dt, dest, tag, comm, comm->ctx, mode, &r);
        if (rc != MPI_SUCCESS)
            return mpi_error(comm, rc, fn, "send to rank %d failed", dest);
    }
    *request = mpi_req_handle(r);
    return MPI_SUCCESS;
}

static inline int isend_common(const char *fn, const void *buf, int count, MPI_Datatype dt,
                               int dest, int tag, MPI_Comm comm, int mode, MPI_Request *request)
{
    if (unlikely(!send_fast_ok(buf, count, dt, dest, tag, comm) || request == NULL))
        return isend_slow(fn, buf, count, dt, dest, tag, comm, mode, request);
    p2p_req *r;
    int rc = p2p_isend_batchable(BUF_AT(buf, dt->lb), (size_t)count * dt->size, comm->world_of[dest],
                                 tag, comm->ctx, mode, &r);
    if (unlikely(rc != P2P_OK))
        return mpi_error(comm, mpi_err_of_p2p(rc), fn, "send to rank %d failed", dest);
    REQ_BIND(r, comm);
    r->upper_data[0] = 0;
    r->on_complete = NULL;
    *request = mpi_req_handle(r);
    return MPI_SUCCESS;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    MPI_ENTER();
    return isend_common("MPI_Isend", buf, count, datatype, dest, tag, comm, P2P_MODE_STANDARD,
                        request);
}

int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    MPI_ENTER();
    return isend_common("MPI_Issend", buf, count, datatype, dest, tag, comm, P2P_MODE_SYNC,
                        request);
}

int MPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    MPI_ENTER();
    return isend_common("MPI_Irsend", buf, count, datatype, dest, tag, comm, P2P_MODE_READY,
                        request);
}

int MPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Ibsend";
    if (request == NULL)
        return mpi_error(comm, MPI_ERR_REQUEST, fn, "request is NULL");
    datatype = dt_or_byte_if_empty(count, datatype);
    int rc = mpi_check_send(fn, buf, count, datatype, dest, tag, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (dest != MPI_PROC_NULL) {
        rc = mpi_bsend_start(fn, buf, count, datatype, dest, tag, comm);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    /* The data sits in the attached buffer now: the user's request is complete. */
    p2p_req *r = mpi_req_proc_null(comm);
    if (r == NULL)
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of requests");
    r->upper_data[0] = 0;
    *request = mpi_req_handle(r);
    return MPI_SUCCESS;
}

/* ---- receives ---- */

/* Source of a completed receive as a rank of comm. */
static inline int comm_source(MPI_Comm comm, int job_rank)
{
    if (likely((unsigned)job_rank < (unsigned)credo_mpi.job_size))
        return comm->comm_of[job_rank];
    return MPI_ANY_SOURCE;
}

static const char *recv_failure(int mpi_err)
{
    return mpi_err == MPI_ERR_TRUNCATE ? "message truncated (longer than the receive buffer)"
                                       : "receive failed";
}

static void status_proc_null(MPI_Status *st)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    st->MPI_SOURCE = MPI_PROC_NULL;
    st->MPI_TAG = MPI_ANY_TAG;
    st->credo_cancelled = 0;
    st->credo_count_bytes = 0;
}

static int recv_slow(const char *fn, void *buf, int count, MPI_Datatype dt, int src, int tag,
                     MPI_Comm comm, MPI_Status *status)
{
    dt = dt_or_byte_if_empty(count, dt);
    int rc = mpi_check_recv(fn, buf, count, dt, src, tag, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (src == MPI_PROC_NULL) {
        status_proc_null(status);
        return MPI_SUCCESS;
    }
    p2p_req *r;
    rc = mpi_irecv(buf, count, dt, src, tag, comm, comm->ctx, &r);
    if (rc != MPI_SUCCESS)
        return mpi_error(comm, rc, fn, "receive failed");
    rc = mpi_req_wait(r, status);
    if (rc != MPI_SUCCESS)
        return mpi_error(comm, rc, fn, "%s", recv_failure(rc));
    return MPI_SUCCESS;
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Recv";
    if (unlikely(!recv_fast_ok(buf, count, datatype, source, tag, comm)))
        return recv_slow(fn, buf, count, datatype, source, tag, comm, status);
    p2p_status ps;
    int rc = p2p_recv(BUF_AT(buf, datatype->lb), (size_t)count * datatype->size,
                      source == MPI_ANY_SOURCE ? P2P_ANY_SOURCE : comm->world_of[source], tag,
                      comm->ctx, &ps);
    if (status != MPI_STATUS_IGNORE) {
        status->MPI_SOURCE = comm_source(comm, ps.source);
        status->MPI_TAG = ps.tag;
        if (unlikely(rc != P2P_OK)) /* left alone on success, see req_status */
            status->MPI_ERROR = mpi_err_of_p2p(rc);
        status->credo_cancelled = 0;
        status->credo_count_bytes = (long long)ps.bytes;
    }
    if (unlikely(rc != P2P_OK))
        return mpi_error(comm, mpi_err_of_p2p(rc), fn, "%s", recv_failure(mpi_err_of_p2p(rc)));
    return MPI_SUCCESS;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Irecv";
    p2p_req *r;
    int rc;
    if (unlikely(!recv_fast_ok(buf, count, datatype, source, tag, comm) || request == NULL)) {
        datatype = dt_or_byte_if_empty(count, datatype);
        rc = mpi_check_irecv(fn, buf, count, datatype, source, tag, comm, request);
        if (rc != MPI_SUCCESS)
            return rc;
        if (source == MPI_PROC_NULL) {
            r = mpi_req_proc_null(comm);
            if (r == NULL)
                return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of requests");
            *request = mpi_req_handle(r);
            return MPI_SUCCESS;
        }
        rc = mpi_irecv(buf, count, datatype, source, tag, comm, comm->ctx, &r);
        if (rc != MPI_SUCCESS)
            return mpi_error(comm, rc, fn, "receive failed");
        *request = mpi_req_handle(r);
        return MPI_SUCCESS;
    }
    rc = p2p_irecv(BUF_AT(buf, datatype->lb), (size_t)count * datatype->size,
                   source == MPI_ANY_SOURCE ? P2P_ANY_SOURCE : comm->world_of[source], tag,
                   comm->ctx, &r);
    if (unlikely(rc != P2P_OK))
        return mpi_error(comm, mpi_err_of_p2p(rc), fn, "receive failed");
    REQ_BIND(r, comm);
    r->upper_data[0] = REQ_F_RECV;
    r->on_complete = NULL;
    *request = mpi_req_handle(r);
    return MPI_SUCCESS;
}

/* ---- combined send-receive ---- */

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status *status)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Sendrecv";
    sendtype = dt_or_byte_if_empty(sendcount, sendtype);
    recvtype = dt_or_byte_if_empty(recvcount, recvtype);
    int rc;
    if ((rc = mpi_check_send(fn, sendbuf, sendcount, sendtype, dest, sendtag, comm)) !=
            MPI_SUCCESS ||
        (rc = mpi_check_recv(fn, recvbuf, recvcount, recvtype, source, recvtag, comm)) !=
            MPI_SUCCESS)
        return rc;
    p2p_req *rr = NULL, *sr = NULL;
    if (source != MPI_PROC_NULL &&
        (rc = mpi_irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, comm->ctx, &rr)) !=
            MPI_SUCCESS)
        return mpi_error(comm, rc, fn, "receive failed");
    if (dest != MPI_PROC_NULL &&
        (rc = mpi_isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, comm->ctx,
                        P2P_MODE_STANDARD, &sr)) != MPI_SUCCESS) {
        if (rr != NULL) {
            p2p_cancel(rr);
            mpi_req_wait(rr, NULL);
        }
        return mpi_error(comm, rc, fn, "send to rank %d failed", dest);
    }
    int src_rc = sr ? mpi_req_wait(sr, NULL) : MPI_SUCCESS;
    int rcv_rc = MPI_SUCCESS;
    if (rr != NULL)
        rcv_rc = mpi_req_wait(rr, status);
    else
        status_proc_null(status);
    if (rcv_rc != MPI_SUCCESS)
        return mpi_error(comm, rcv_rc, fn, "%s", recv_failure(rcv_rc));
    if (src_rc != MPI_SUCCESS)
        return mpi_error(comm, src_rc, fn, "send to rank %d failed", dest);
    return MPI_SUCCESS;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                         int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Sendrecv_replace";
    datatype = dt_or_byte_if_empty(count, datatype);
    int rc;
    if ((rc = mpi_check_send(fn, buf, count, datatype, dest, sendtag, comm)) != MPI_SUCCESS ||
        (rc = mpi_check_recv(fn, buf, count, datatype, source, recvtag, comm)) != MPI_SUCCESS)
        return rc;
    /* The outgoing data is copied aside so the receive may land in buf at once. */
    size_t bytes = (size_t)count * datatype->size;
    void *tmp = NULL;
    p2p_req *sr = NULL, *rr = NULL;
    if (dest != MPI_PROC_NULL) {
        tmp = malloc(bytes ? bytes : 1);
        if (tmp == NULL)
            return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
        dt_pack(buf, (size_t)count, datatype, tmp);
        rc = p2p_isend(tmp, bytes, comm->world_of[dest], sendtag, comm->ctx, P2P_MODE_STANDARD,
                       &sr);
        if (rc != P2P_OK) {
            free(tmp);
            return mpi_error(comm, mpi_err_of_p2p(rc), fn, "send to rank %d failed", dest);
        }
        REQ_BIND(sr, comm);
        sr->upper_data[0] = 0;
        sr->on_complete = NULL;
    }
    if (source != MPI_PROC_NULL)
        rc = mpi_irecv(buf, count, datatype, source, recvtag, comm, comm->ctx, &rr);
    int src_rc = sr ? mpi_req_wait(sr, NULL) : MPI_SUCCESS;
    free(tmp);
    if (rc != MPI_SUCCESS)
        return mpi_error(comm, rc, fn, "receive failed");
    int rcv_rc = MPI_SUCCESS;
    if (rr != NULL)
        rcv_rc = mpi_req_wait(rr, status);
    else
        status_proc_null(status);
    if (rcv_rc != MPI_SUCCESS)
        return mpi_error(comm, rcv_rc, fn, "%s", recv_failure(rcv_rc));
    if (src_rc != MPI_SUCCESS)
        return mpi_error(comm, src_rc, fn, "send to rank %d failed", dest);
    return MPI_SUCCESS;
}

/* ---- probe ---- */

static void fill_probe_status(MPI_Comm comm, const p2p_status *ps, MPI_Status *st)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    st->MPI_SOURCE = comm_source(comm, ps->source);
    st->MPI_TAG = ps->tag;
    st->credo_cancelled = 0;
    st->credo_count_bytes = (long long)ps->bytes;
}

/* Iprobe and Probe: Probe is the probe repeated (with the waiter's back-off) until it matches. */
static int probe(const char *fn, int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status,
                 int block)
{
    int rc = check_probe(fn, source, tag, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (flag == NULL)
        return mpi_error(comm, MPI_ERR_ARG, fn, "flag is NULL");
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        status_proc_null(status);
        return MPI_SUCCESS;
    }
    p2p_status ps;
    int jsrc = source == MPI_ANY_SOURCE ? P2P_ANY_SOURCE : comm->world_of[source];
    p2p_waiter w = P2P_WAITER_INIT;
    if (block)
        p2p_waiting_begin(); /* one wait across the steps (p2p.h) */
    for (;;) {
        rc = p2p_iprobe(jsrc, tag, comm->ctx, flag, &ps); /* progresses when nothing matches */
        if (rc != P2P_OK || *flag || !block)
            break;
        p2p_wait_step(&w);
    }
    if (block)
        p2p_waiting_end();
    if (rc != P2P_OK)
        return mpi_error(comm, mpi_err_of_p2p(rc), fn, "probe failed");
    if (*flag)
        fill_probe_status(comm, &ps, status);
    return MPI_SUCCESS;
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    MPI_ENTER();
    return probe("MPI_Iprobe", source, tag, comm, flag, status, 0);
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    MPI_ENTER();
    int flag = 0;
    return probe("MPI_Probe", source, tag, comm, &flag, status, 1);
}

/* ---- matched probe ---- */

/* MPI_MESSAGE_NO_PROC is a valid handle of no communicator: receiving it receives nothing. */
struct credo_message credo_message_no_proc = {MSG_MAGIC, NULL, NULL};

/* The handle of the next match, allocated before probing: once p2p has taken a message out of
 * matching it must not be lost to a failed malloc. Mrecv/Imrecv give their handle back here. */
static struct credo_message *msg_spare;

static int mprobe_check(const char *fn, int source, int tag, MPI_Comm comm, MPI_Message *message)
{
    int rc = check_probe(fn, source, tag, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (message == NULL)
        return mpi_error(comm, MPI_ERR_ARG, fn, "message is NULL");
    return MPI_SUCCESS;
}

/* One matched probe; a match takes the spare handle, which then holds a reference on comm. The
 * spare is made before each attempt: under MPI_THREAD_MULTIPLE another thread's probe may take it
 * while a blocking one waits between attempts. */
static int mprobe_once(const char *fn, int jsrc, int tag, MPI_Comm comm, int *flag,
                       MPI_Message *message, MPI_Status *status)
{
    if (msg_spare == NULL && (msg_spare = malloc(sizeof *msg_spare)) == NULL)
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    p2p_status ps;
    p2p_msg *pm;
    int rc = p2p_improbe(jsrc, tag, comm->ctx, flag, &ps, &pm);
    if (rc != P2P_OK)
        return mpi_error(comm, mpi_err_of_p2p(rc), fn, "probe failed");
    if (*flag) {
        struct credo_message *m = msg_spare;
        msg_spare = NULL;
        m->magic = MSG_MAGIC;
        mpi_handle_add(m, HK_MSG);
        m->comm = comm;
        m->msg = pm;
        comm->refcount++;
        *message = m;
        fill_probe_status(comm, &ps, status);
    }
    return MPI_SUCCESS;
}

/* Improbe and Mprobe, as probe() above. */
static int mprobe(const char *fn, int source, int tag, MPI_Comm comm, int *flag,
                  MPI_Message *message, MPI_Status *status, int block)
{
    int rc = mprobe_check(fn, source, tag, comm, message);
    if (rc != MPI_SUCCESS)
        return rc;
    if (flag == NULL)
        return mpi_error(comm, MPI_ERR_ARG, fn, "flag is NULL");
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        *message = MPI_MESSAGE_NO_PROC;
        status_proc_null(status);
        return MPI_SUCCESS;
    }
    int jsrc = source == MPI_ANY_SOURCE ? P2P_ANY_SOURCE : comm->world_of[source];
    p2p_waiter w = P2P_WAITER_INIT;
    if (block)
        p2p_waiting_begin(); /* as in probe() */
    for (;;) {
        rc = mprobe_once(fn, jsrc, tag, comm, flag, message, status); /* progresses if no match */
        if (rc != MPI_SUCCESS || *flag || !block)
            break;
        p2p_wait_step(&w);
    }
    if (block)
        p2p_waiting_end();
    return rc;
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                MPI_Status *status)
{
    MPI_ENTER();
    return mprobe("MPI_Improbe", source, tag, comm, flag, message, status, 0);
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    MPI_ENTER();
    int flag = 0;
    return mprobe("MPI_Mprobe", source, tag, comm, &flag, message, status, 1);
}

/* What Mrecv and Imrecv check: a live message handle, then the buffer (on the message's comm). */
static int mrecv_check(const char *fn, void *buf, int count, MPI_Datatype dt, MPI_Message *message)
{
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (message == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "message is NULL");
    MPI_Message m = *message;
    if (!msg_live(m))
        return mpi_error(NULL, MPI_ERR_REQUEST, fn, "invalid message handle%s",
                         m == MPI_MESSAGE_NULL ? " (MPI_MESSAGE_NULL)" : "");
    return mpi_check_buf(m->comm, fn, buf, count, dt);
}

/* Starts the receive of *message and retires the handle; the caller still holds the message's
 * communicator reference (for reporting). */
static int mrecv_start(const char *fn, void *buf, int count, MPI_Datatype dt, MPI_Message *message,
                       p2p_req **out)
{
    struct credo_message *m = *message;
    int rc = mpi_imrecv(buf, count, dt, m->comm, m->msg, out);
    if (rc != MPI_SUCCESS) /* nothing was taken: the message stays the caller's */
        return mpi_error(m->comm, rc, fn, "receive failed");
    *message = MPI_MESSAGE_NULL;
    m->magic = DEAD_MAGIC;
    mpi_handle_del(m);
    if (msg_spare == NULL)
        msg_spare = m;
    else
        free(m);
    return MPI_SUCCESS;
}

int MPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
              MPI_Status *status)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Mrecv";
    datatype = dt_or_byte_if_empty(count, datatype);
    int rc = mrecv_check(fn, buf, count, datatype, message);
    if (rc != MPI_SUCCESS)
        return rc;
    if (*message == MPI_MESSAGE_NO_PROC) {
        *message = MPI_MESSAGE_NULL;
        status_proc_null(status);
        return MPI_SUCCESS;
    }
    MPI_Comm comm = (*message)->comm;
    p2p_req *r;
    if ((rc = mrecv_start(fn, buf, count, datatype, message, &r)) != MPI_SUCCESS)
        return rc;
    rc = mpi_req_wait(r, status);
    if (rc != MPI_SUCCESS)
        rc = mpi_error(comm, rc, fn, "%s", recv_failure(rc));
    mpi_comm_release(comm); /* the message's reference */
    return rc;
}

int MPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
               MPI_Request *request)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Imrecv";
    datatype = dt_or_byte_if_empty(count, datatype);
    int rc = mrecv_check(fn, buf, count, datatype, message);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Comm comm = (*message)->comm;
    if (request == NULL)
        return mpi_error(comm, MPI_ERR_REQUEST, fn, "request is NULL");
    p2p_req *r;
    if (*message == MPI_MESSAGE_NO_PROC) {
        /* No communicator to tie the request to: MPI_COMM_SELF, which is never freed. */
        r = mpi_req_proc_null(MPI_COMM_SELF);
        if (r == NULL)
            return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of requests");
        *message = MPI_MESSAGE_NULL;
        *request = mpi_req_handle(r);
        return MPI_SUCCESS;
    }
    if ((rc = mrecv_start(fn, buf, count, datatype, message, &r)) != MPI_SUCCESS)
        return rc;
    *request = mpi_req_handle(r);
    mpi_comm_release(comm); /* the message's reference; the request holds its own */
    return MPI_SUCCESS;
}

CREDO_PMPI(MPI_Send)
CREDO_PMPI(MPI_Ssend)
CREDO_PMPI(MPI_Rsend)
CREDO_PMPI(MPI_Bsend)
CREDO_PMPI(MPI_Isend)
CREDO_PMPI(MPI_Issend)
CREDO_PMPI(MPI_Irsend)
CREDO_PMPI(MPI_Ibsend)
CREDO_PMPI(MPI_Recv)
CREDO_PMPI(MPI_Irecv)
CREDO_PMPI(MPI_Sendrecv)
CREDO_PMPI(MPI_Sendrecv_replace)
CREDO_PMPI(MPI_Iprobe)
CREDO_PMPI(MPI_Probe)
CREDO_PMPI(MPI_Improbe)
CREDO_PMPI(MPI_Mprobe)
CREDO_PMPI(MPI_Mrecv)
CREDO_PMPI(MPI_Imrecv)
