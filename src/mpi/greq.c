/* src/mpi/greq.c — generalized requests (MPI 3.1 §12.2): MPI_Grequest_start/_complete and the
 * callbacks the wait/test family, MPI_Request_free and MPI_Cancel run for them. */
#include <stdlib.h>

#include "mpi/mpi_impl.h"

/* The handle is a generic p2p request that MPI_Grequest_complete completes, so every wait and
 * test works on it unchanged; only its status (query_fn) and its end (free_fn) differ, through
 * REQ_F_GREQ. free_fn runs once the program is done with the request *and* it is complete,
 * whichever comes last (§12.2: after MPI_Request_free, in MPI_Grequest_complete). */
typedef struct mpi_greq {
    MPI_Grequest_query_function *query_fn;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel_fn;
    void *extra_state;
    int released;          /* the program is done with the handle */
} mpi_greq;

#define GREQ_OF(r) ((mpi_greq *)(uintptr_t)(r)->upper_data[1])

int MPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                       MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                       MPI_Request *request)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Grequest_start";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (request == NULL || query_fn == NULL || free_fn == NULL || cancel_fn == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "NULL %s",
                         request == NULL ? "request" : "callback function");
    mpi_greq *g = calloc(1, sizeof *g);
    /* Errors of the wait that finishes it go to MPI_COMM_SELF's handler: the request has no
     * communicator of its own. */
    p2p_req *r = g != NULL ? mpi_req_new(MPI_COMM_SELF, REQ_F_GREQ) : NULL;
    if (r == NULL) {
        free(g);
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    *g = (mpi_greq){query_fn, free_fn, cancel_fn, extra_state, 0};
    r->upper_data[1] = (uint64_t)(uintptr_t)g;
    *request = mpi_req_handle(r);
    return MPI_SUCCESS;
}

static void greq_free(p2p_req *r)
{
    mpi_greq *g = GREQ_OF(r);
    /* §12.2: free_fn's error code goes to the call that ran it; the calls here have a result of
     * their own already, so it is dropped, as the wait family does with the status' code. */
    (void)g->free_fn(g->extra_state);
    free(g);
    r->upper_data[1] = 0;
}

int MPI_Grequest_complete(MPI_Request request)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Grequest_complete";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    /* A request the program freed (MPI_Request_free) before completing it is still named here. */
    int pending;
    p2p_req *r = mpi_req_of_greq(request, &pending);
    if (r == NULL && request != MPI_REQUEST_NULL)
        return mpi_error(NULL, MPI_ERR_REQUEST, fn, "invalid request handle %p: %s",
                         (void *)request, mpi_req_handle_why(request));
    if (r == NULL || !(REQ_FLAGS(r) & REQ_F_GREQ) || GREQ_OF(r) == NULL)
        return mpi_error(NULL, MPI_ERR_REQUEST, fn, "not a generalized request");
    if (r->done)
        return mpi_error(NULL, MPI_ERR_REQUEST, fn, "generalized request completed twice");
    int released = GREQ_OF(r)->released;
    if (released)
        greq_free(r); /* the program freed it already: the last use is now */
    if (pending)
        mpi_req_retire(request);
    p2p_req_complete(r); /* a freed request is released to p2p here */
    return MPI_SUCCESS;
}

int mpi_greq_status(p2p_req *r, MPI_Status *st)
{
    mpi_greq *g = GREQ_OF(r);
    MPI_Status tmp;
    MPI_Status *s = st == MPI_STATUS_IGNORE ? &tmp : st;
    mpi_status_empty(s);
    s->MPI_SOURCE = MPI_UNDEFINED;
    s->MPI_TAG = MPI_UNDEFINED;
    int rc = g->query_fn(g->extra_state, s);
    if (st != MPI_STATUS_IGNORE && rc != MPI_SUCCESS)
        st->MPI_ERROR = rc;
    return rc;
}

void mpi_greq_release(p2p_req *r)
{
    mpi_greq *g = GREQ_OF(r);
    if (r->done)
        greq_free(r);
    else
        g->released = 1;
    p2p_req_free(r);
}

void mpi_greq_cancel(p2p_req *r)
{
    mpi_greq *g = GREQ_OF(r);
    (void)g->cancel_fn(g->extra_state, r->done);
}

CREDO_PMPI(MPI_Grequest_start)
CREDO_PMPI(MPI_Grequest_complete)
