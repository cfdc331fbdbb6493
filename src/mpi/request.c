/* src/mpi/request.c — the wait/test family, request free, cancel and status helpers. An MPI_Request
 * names a p2p_req through the request table (mpi_impl.h, handle validation): every call checks its
 * handles before it touches a request, so a garbage, forged, retired or foreign handle is
 * MPI_ERR_REQUEST. Completion fills the MPI_Status, retires the handle and returns the request to
 * p2p (persistent requests stay: they become inactive, and inactive ones count as MPI_REQUEST_NULL
 * here). */
#include <string.h>

#include "core/core.h"
#include "mpi/mpi_impl.h"

/* The request of a handle already checked (mpi_req_of) in this call. */
#define AS_P2P(req) mpi_req_of(req)

void mpi_status_empty(MPI_Status *st)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->MPI_ERROR = MPI_SUCCESS;
    st->credo_cancelled = 0;
    st->credo_count_bytes = 0;
}

/* Status of a completed request without releasing it; returns its MPI error code. */
static inline __attribute__((always_inline)) int req_status(p2p_req *r, MPI_Status *st)
{
    uint64_t f = r->upper_data[0];
    if (unlikely(f & REQ_F_PACKED))
        mpi_req_packed_hook(r);
    if (unlikely(f & REQ_F_GREQ))
        return mpi_greq_status(r, st);
    int err = likely(r->status.error == P2P_OK) ? MPI_SUCCESS : mpi_err_of_p2p(r->status.error);
    if (st == MPI_STATUS_IGNORE)
        return err;
    /* MPI_ERROR is left alone on success (MPI 3.1 §3.2.5: single-status calls do not set it;
     * programs keep their own value there). On failure it carries the error, as in MPICH; the
     * calls that return several statuses set it in finish_all and some_finish. */
    if (unlikely(err != MPI_SUCCESS))
        st->MPI_ERROR = err;
    st->credo_cancelled = r->status.cancelled;
    if (f & REQ_F_PROC_NULL) {
        st->MPI_SOURCE = MPI_PROC_NULL;
        st->MPI_TAG = MPI_ANY_TAG;
        st->credo_count_bytes = 0;
    } else if (f & REQ_F_RECV) {
        int src = r->status.source;
        MPI_Comm comm = REQ_COMM(r);
        st->MPI_SOURCE = (unsigned)src < (unsigned)credo_mpi.job_size ? comm->comm_of[src]
                                                                       : MPI_ANY_SOURCE;
        st->MPI_TAG = r->status.tag;
        st->credo_count_bytes = r->status.cancelled ? 0 : (long long)r->status.bytes;
    } else {
        st->credo_count_bytes = 0;
    }
    return err;
}

int mpi_req_finish(p2p_req *r, MPI_Status *st)
{
    int err = req_status(r, st);
    if (unlikely(REQ_FLAGS(r) & REQ_F_GREQ))
        mpi_greq_release(r);
    else
        p2p_req_free(r);
    return err;
}

/* A persistent request that is not active: treated like MPI_REQUEST_NULL (empty status). Only
 * persistent requests carry the flag, so this is the only test other requests pay. */
static inline int req_inactive(const p2p_req *r)
{
    return unlikely(REQ_FLAGS(r) & REQ_F_INACTIVE);
}

/* MPI_REQUEST_NULL, or a request that counts as it (inactive persistent). */
static inline int req_empty(const p2p_req *r)
{
    return r == NULL || req_inactive(r);
}

/* Finishes the completed request r of the live handle *rp into st: a persistent one becomes
 * inactive and keeps its handle, any other is released, its handle retired and *rp set to
 * MPI_REQUEST_NULL. Either way the caller then gives back the operation's communicator reference. */
static inline int finish_req(MPI_Request *rp, p2p_req *r, MPI_Status *st)
{
    if (unlikely(REQ_FLAGS(r) & REQ_F_PERSIST)) {
        int rc = req_status(r, st);
        r->upper_data[0] |= REQ_F_INACTIVE;
        return rc;
    }
    int rc = mpi_req_finish(r, st);
    mpi_req_retire(*rp);
    *rp = MPI_REQUEST_NULL;
    return rc;
}

/* A handle that names no request: MPI_ERR_REQUEST, raised on MPI_COMM_WORLD's handler (the handle
 * leads to no communicator). `i` is its index in an array, or -1. */
static int bad_request(const char *fn, MPI_Request h, int i)
{
    if (i < 0)
        return mpi_error(NULL, MPI_ERR_REQUEST, fn, "invalid request handle %p: %s", (void *)h,
                         mpi_req_handle_why(h));
    return mpi_error(NULL, MPI_ERR_REQUEST, fn, "invalid request handle %p at index %d: %s",
                     (void *)h, i, mpi_req_handle_why(h));
}

int mpi_req_wait(p2p_req *r, MPI_Status *st)
{
    MPI_Comm comm = REQ_COMM(r);
    if (!r->done)
        p2p_wait(r);
    int rc = mpi_req_finish(r, st);
    mpi_comm_release(comm);
    return rc;
}

static int req_error(MPI_Comm comm, int rc, const char *fn)
{
    return mpi_error(comm, rc, fn, "%s",
                     rc == MPI_ERR_TRUNCATE ? "message truncated (longer than the receive buffer)"
                                            : "request failed");
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Wait";
    if (unlikely(!MPI_READY()))
        return mpi_not_ready(fn);
    if (unlikely(request == NULL))
        return mpi_error(NULL, MPI_ERR_REQUEST, fn, "request is NULL");
    p2p_req *r = mpi_req_of(*request);
    if (unlikely(r == NULL) && *request != MPI_REQUEST_NULL)
        return bad_request(fn, *request, -1);
    if (req_empty(r)) {
        mpi_status_empty(status);
        return MPI_SUCCESS;
    }
    MPI_Comm comm = REQ_COMM(r);
    if (!r->done)
        p2p_wait(r);
    int rc = finish_req(request, r, status);
    if (unlikely(rc != MPI_SUCCESS))
        rc = req_error(comm, rc, fn);
    mpi_comm_release(comm);
    return rc;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Test";
    if (unlikely(!MPI_READY()))
        return mpi_not_ready(fn);
    if (unlikely(request == NULL || flag == NULL))
        return mpi_error(NULL, request == NULL ? MPI_ERR_REQUEST : MPI_ERR_ARG, fn,
                         "%s is NULL", request == NULL ? "request" : "flag");
    p2p_req *r = mpi_req_of(*request);
    if (unlikely(r == NULL) && *request != MPI_REQUEST_NULL)
        return bad_request(fn, *request, -1);
    if (req_empty(r)) {
        *flag = 1;
        mpi_status_empty(status);
        return MPI_SUCCESS;
    }
    if (!r->done) {
        p2p_progress();
        if (!r->done) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    MPI_Comm comm = REQ_COMM(r);
    *flag = 1;
    int rc = finish_req(request, r, status);
    if (unlikely(rc != MPI_SUCCESS))
        rc = req_error(comm, rc, fn);
    mpi_comm_release(comm);
    return rc;
}

/* The array arguments, and every handle in the array, before anything waits or finishes. */
static int check_array(const char *fn, int count, const MPI_Request *reqs)
{
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (count < 0)
        return mpi_error(NULL, MPI_ERR_COUNT, fn, "negative count %d", count);
    if (count > 0 && reqs == NULL)
        return mpi_error(NULL, MPI_ERR_REQUEST, fn, "array of requests is NULL");
    for (int i = 0; i < count; i++)
        if (unlikely(mpi_req_of(reqs[i]) == NULL) && reqs[i] != MPI_REQUEST_NULL)
            return bad_request(fn, reqs[i], i);
    return MPI_SUCCESS;
}

/* Finishes requests[i] into statuses (may be NULL); returns its error code. */
static int finish_at(MPI_Request reqs[], int i, MPI_Status *st)
{
    return finish_req(&reqs[i], AS_P2P(reqs[i]), st);
}

/* Completes every request already done in reqs (all of them when `all`): the common end of the
 * *all functions. Per-request errors go into the statuses; returns MPI_ERR_IN_STATUS if any. */
static int finish_all(const char *fn, int count, MPI_Request reqs[], MPI_Status statuses[])
{
    int failed = 0;
    MPI_Comm fail_comm = NULL;
    for (int i = 0; i < count; i++) {
        MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? NULL : &statuses[i];
        p2p_req *r = AS_P2P(reqs[i]);
        if (req_empty(r)) {
            mpi_status_empty(st);
            /* a handle that was in the array twice: its request is finished already */
            if (unlikely(r == NULL && reqs[i] != MPI_REQUEST_NULL)) {
                if (st)
                    st->MPI_ERROR = MPI_ERR_REQUEST;
                if (!failed) {
                    failed = 1;
                    fail_comm = MPI_COMM_WORLD;
                    fail_comm->refcount++;
                }
            }
            continue;
        }
        MPI_Comm comm = REQ_COMM(r);
        MPI_Status tmp;
        int rc = finish_at(reqs, i, st ? st : &tmp);
        if (st)
            st->MPI_ERROR = rc;
        if (rc != MPI_SUCCESS && !failed) {
            failed = 1;
            fail_comm = comm;
            fail_comm->refcount++; /* stays valid for the report below */
        }
        mpi_comm_release(comm);
    }
    if (failed) {
        int rc = mpi_error(fail_comm, MPI_ERR_IN_STATUS, fn,
                           "a request failed (see the statuses' MPI_ERROR)");
        mpi_comm_release(fail_comm);
        return rc;
    }
    return MPI_SUCCESS;
}

int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    MPI_ENTER();
    static const char fn[] = "MPI_Waitall";
    int rc = check_array(fn, count, array_of_requests);
    if (rc != MPI_SUCCESS)
        return rc;
    p2p_waiting_begin(); /* one wait from the first request to the last (p2p.h) */
    for (int i = 0; i < count; i++) {
        p2p_req *r = AS_P2P(array_of_requests[i]);
        if (r != NULL && !r->done)
            p2p_wait(r);
    }
    p2p_waiting_end();
    return finish_all(fn, count, array_of_requests, array_of_statuses);
}

int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
                MPI_Status array_of_statuses[])
{
    MPI_ENTER();
    static const char fn[] = "MPI_Testall";
    int rc = check_array(fn, count, array_of_requests);
    if (rc != MPI_SUCCESS)
        return rc;
    if (flag == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "flag is NULL");
    p2p_progress();
    for (int i = 0; i < count; i++) {
        p2p_req *r = AS_P2P(array_of_requests[i]);
        if (r != NULL && !r->done) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    return finish_all(fn, count, array_of_requests, array_of_statuses);
}

/* Index of a completed request, MPI_UNDEFINED if none is active, -1 if active ones are pending.
 * (A handle that names nothing was refused by check_array before.) */
static int find_done(int count, MPI_Request reqs[])
{
    int active = 0;
    for (int i = 0; i < count; i++) {
        p2p_req *r = AS_P2P(reqs[i]);
        if (r == NULL)
            continue;
        if (r->done) {
            if (req_inactive(r))
                continue;
            return i;
        }
        active = 1;
    }
    return active ? -1 : MPI_UNDEFINED;
}

static int any_finish(const char *fn, MPI_Request reqs[], int i, int *index, MPI_Status *status)
{
    p2p_req *r = AS_P2P(reqs[i]);
    if (unlikely(r == NULL)) /* retired by another thread while this one waited */
        return bad_request(fn, reqs[i], i);
    MPI_Comm comm = REQ_COMM(r);
    *index = i;
    int rc = finish_at(reqs, i, status);
    if (rc != MPI_SUCCESS)
        rc = req_error(comm, rc, fn);
    mpi_comm_release(comm);
    return rc;
}

int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Waitany";
    int rc = check_array(fn, count, array_of_requests);
    if (rc != MPI_SUCCESS)
        return rc;
    if (index == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "index is NULL");
    p2p_waiter w = P2P_WAITER_INIT;
    int i;
    p2p_waiting_begin();
    while ((i = find_done(count, array_of_requests)) == -1)
        p2p_wait_step(&w);
    p2p_waiting_end();
    if (i == MPI_UNDEFINED) {
        *index = MPI_UNDEFINED;
        mpi_status_empty(status);
        return MPI_SUCCESS;
    }
    return any_finish(fn, array_of_requests, i, index, status);
}

int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
                MPI_Status *status)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Testany";
    int rc = check_array(fn, count, array_of_requests);
    if (rc != MPI_SUCCESS)
        return rc;
    if (index == NULL || flag == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "%s is NULL", index == NULL ? "index" : "flag");
    int i = find_done(count, array_of_requests);
    if (i == -1) {
        p2p_progress();
        i = find_done(count, array_of_requests);
    }
    if (i == -1) {
        *flag = 0;
        *index = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    *flag = 1;
    if (i == MPI_UNDEFINED) {
        *index = MPI_UNDEFINED;
        mpi_status_empty(status);
        return MPI_SUCCESS;
    }
    return any_finish(fn, array_of_requests, i, index, status);
}

/* Completes every done request; *outcount = how many (MPI_UNDEFINED if none was active). */
static int some_finish(const char *fn, int incount, MPI_Request reqs[], int *outcount,
                       int indices[], MPI_Status statuses[])
{
    int n = 0, active = 0, failed = 0;
    MPI_Comm fail_comm = NULL;
    for (int i = 0; i < incount; i++) {
        p2p_req *r = AS_P2P(reqs[i]);
        if (req_empty(r))
            continue;
        active = 1;
        if (!r->done)
            continue;
        MPI_Comm comm = REQ_COMM(r);
        MPI_Status tmp, *st = statuses == MPI_STATUSES_IGNORE ? &tmp : &statuses[n];
        st->MPI_ERROR = finish_at(reqs, i, st);
        if (st->MPI_ERROR != MPI_SUCCESS && !failed) {
            failed = 1;
            fail_comm = comm;
            fail_comm->refcount++; /* stays valid for the report below */
        }
        mpi_comm_release(comm);
        indices[n++] = i;
    }
    *outcount = active ? n : MPI_UNDEFINED;
    if (failed) {
        int rc = mpi_error(fail_comm, MPI_ERR_IN_STATUS, fn,
                           "a request failed (see the statuses' MPI_ERROR)");
        mpi_comm_release(fail_comm);
        return rc;
    }
    return MPI_SUCCESS;
}

int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                 int array_of_indices[], MPI_Status array_of_statuses[])
{
    MPI_ENTER();
    static const char fn[] = "MPI_Waitsome";
    int rc = check_array(fn, incount, array_of_requests);
    if (rc != MPI_SUCCESS)
        return rc;
    if (outcount == NULL || (incount > 0 && array_of_indices == NULL))
        return mpi_error(NULL, MPI_ERR_ARG, fn, "NULL output argument");
    p2p_waiter w = P2P_WAITER_INIT;
    p2p_waiting_begin();
    while (find_done(incount, array_of_requests) == -1)
        p2p_wait_step(&w);
    p2p_waiting_end();
    return some_finish(fn, incount, array_of_requests, outcount, array_of_indices,
                       array_of_statuses);
}

int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                 int array_of_indices[], MPI_Status array_of_statuses[])
{
    MPI_ENTER();
    static const char fn[] = "MPI_Testsome";
    int rc = check_array(fn, incount, array_of_requests);
    if (rc != MPI_SUCCESS)
        return rc;
    if (outcount == NULL || (incount > 0 && array_of_indices == NULL))
        return mpi_error(NULL, MPI_ERR_ARG, fn, "NULL output argument");
    p2p_progress();
    return some_finish(fn, incount, array_of_requests, outcount, array_of_indices,
                       array_of_statuses);
}

int MPI_Request_free(MPI_Request *request)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Request_free";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (request == NULL || *request == MPI_REQUEST_NULL)
        return mpi_error(NULL, MPI_ERR_REQUEST, fn, "%s",
                         request == NULL ? "request is NULL" : "request is MPI_REQUEST_NULL");
    p2p_req *r = mpi_req_of(*request);
    if (unlikely(r == NULL))
        return bad_request(fn, *request, -1);
    if (REQ_FLAGS(r) & REQ_F_PERSIST) {
        mpi_persist_free(r);
        mpi_req_retire(*request);
        *request = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    }
    /* p2p keeps a pending request until it completes; its hook still unpacks and frees. Nobody
     * reads its status any more, so the communicator reference goes now. A generalized request
     * not yet completed keeps its slot for MPI_Grequest_complete, which retires it. */
    MPI_Comm comm = REQ_COMM(r);
    if (REQ_FLAGS(r) & REQ_F_GREQ) {
        if (r->done)
            mpi_req_retire(*request);
        else
            mpi_req_retire_pending(*request);
        mpi_greq_release(r);
    } else {
        p2p_req_free(r);
        mpi_req_retire(*request);
    }
    *request = MPI_REQUEST_NULL;
    mpi_comm_release(comm);
    return MPI_SUCCESS;
}

int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Request_get_status";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (flag == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "flag is NULL");
    p2p_req *r = mpi_req_of(request);
    if (unlikely(r == NULL) && request != MPI_REQUEST_NULL)
        return bad_request(fn, request, -1);
    if (req_empty(r)) {
        *flag = 1;
        mpi_status_empty(status);
        return MPI_SUCCESS;
    }
    if (!r->done)
        p2p_progress();
    *flag = r->done;
    if (r->done) {
        int rc = req_status(r, status);
        if (rc != MPI_SUCCESS)
            return req_error(REQ_COMM(r), rc, fn);
    }
    return MPI_SUCCESS;
}

int MPI_Cancel(MPI_Request *request)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Cancel";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (request == NULL || *request == MPI_REQUEST_NULL)
        return mpi_error(NULL, MPI_ERR_REQUEST, fn, "%s",
                         request == NULL ? "request is NULL" : "request is MPI_REQUEST_NULL");
    p2p_req *r = mpi_req_of(*request);
    if (unlikely(r == NULL))
        return bad_request(fn, *request, -1);
    if (REQ_FLAGS(r) & REQ_F_PERSIST) {
        mpi_persist_cancel(r);
        return MPI_SUCCESS;
    }
    if (REQ_FLAGS(r) & REQ_F_GREQ) {
        mpi_greq_cancel(r);
        return MPI_SUCCESS;
    }
    /* A receive not yet matched is cancelled at once; a send while nothing of it reached the
     * receiver, possibly after an exchange with it (p2p_cancel). Otherwise the operation
     * completes normally and Test_cancelled reports false. Completed requests are left alone. */
    if (!r->done && r->kind == P2P_REQ_RECV && p2p_cancel(r) == 1)
        mpi_req_packed_hook(r);
    else if (!r->done && r->kind == P2P_REQ_SEND)
        p2p_cancel(r);
    return MPI_SUCCESS;
}

int MPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    if (status == NULL || flag == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, "MPI_Test_cancelled", "NULL argument");
    *flag = status->credo_cancelled != 0;
    return MPI_SUCCESS;
}

int MPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    if (status == NULL || status == MPI_STATUS_IGNORE)
        return mpi_error(NULL, MPI_ERR_ARG, "MPI_Status_set_cancelled", "status is NULL");
    status->credo_cancelled = flag != 0;
    return MPI_SUCCESS;
}

CREDO_PMPI(MPI_Status_set_cancelled)
CREDO_PMPI(MPI_Wait)
CREDO_PMPI(MPI_Test)
CREDO_PMPI(MPI_Waitall)
CREDO_PMPI(MPI_Testall)
CREDO_PMPI(MPI_Waitany)
CREDO_PMPI(MPI_Testany)
CREDO_PMPI(MPI_Waitsome)
CREDO_PMPI(MPI_Testsome)
CREDO_PMPI(MPI_Request_free)
CREDO_PMPI(MPI_Request_get_status)
CREDO_PMPI(MPI_Cancel)
CREDO_PMPI(MPI_Test_cancelled)
