/* src/mpi/persist.c — persistent requests: the point-to-point *_init calls, MPI_Start/Startall, and
 * the request's life (inactive, active, freed while active) that the wait/test family relies on. */
#include <stdlib.h>

#include "mpi/mpi_impl.h"

/* The handle is a generic p2p request that lives as long as the MPI request; every start runs one
 * ordinary p2p operation under it, whose completion hook completes the handle. So the eager,
 * rendezvous and matching paths know nothing of persistence, and a started persistent request
 * costs what an Isend/Irecv costs (less for derived types: the pack buffer is allocated once).
 *
 * Communicator references: the handle holds one for its lifetime; each start takes one more,
 * which finishing the operation (Wait/Test) gives back like for any request. */

enum { PK_SEND, PK_BSEND, PK_RECV, PK_COLL };

typedef struct mpi_persist {
    p2p_req *req;       /* the handle */
    p2p_req *op;        /* the running operation, NULL when none runs */
    void *buf;          /* the user's buffer */
    void *addr;         /* what p2p sends from / receives into: buf at the type's lb, or tmp */
    void *tmp;          /* pack buffer of a non-contiguous type, reused by every start */
    size_t bytes;
    int count;
    MPI_Datatype dt;    /* retained */
    MPI_Comm comm;
    int peer;           /* comm rank, MPI_ANY_SOURCE or MPI_PROC_NULL */
    int tag;
    int kind;           /* PK_* */
    int mode;           /* p2p send mode */
    int freed;          /* MPI_Request_free came while op ran: op's end releases everything */
    struct mpi_pcoll *coll;            /* PK_COLL: the collective's arguments (persist_coll.c) */
    void (*coll_hook)(p2p_req *);      /* PK_COLL: the running collective's own completion hook */
    void *owned;        /* memory the handle's arguments point into (mpi_persist_adopt), or NULL */
} mpi_persist;

#define PERSIST_OF(r) ((mpi_persist *)(uintptr_t)(r)->upper_data[1])

static void persist_destroy(mpi_persist *p)
{
    free(p->tmp);
    if (p->dt)
        dt_release(p->dt);
    mpi_pcoll_free(p->coll);
    free(p->owned);
    free(p);
}

void mpi_persist_adopt(MPI_Request request, void *mem)
{
    PERSIST_OF(mpi_req_of(request))->owned = mem;
}

/* Completion hook of a started operation (from progress, or from persist_start when p2p finished
 * it at once): unpack, hand the status to the handle, complete the handle. */
static void op_done(p2p_req *op)
{
    mpi_persist *p = op->upper;
    p2p_req *r = p->req;
    if (p->kind == PK_RECV && p->tmp != NULL && !op->status.cancelled)
        dt_unpack(p->tmp, op->status.bytes, (size_t)p->count, p->dt, p->buf);
    r->status = op->status;
    p->op = NULL;
    p2p_req_free(op); /* inside its own hook: p2p releases it right after */
    if (p->freed)
        persist_destroy(p); /* the handle was freed too: completing it below releases it */
    p2p_req_complete(r);
}

/* A started collective ends: the collective's own hook (unpacking, releasing its temporaries)
 * runs first, then the operation's status goes to the handle, and the operation is released with
 * the communicator reference its non-blocking call took. The handle is found through upper_data[2],
 * which collective requests leave unused (upper is their communicator). */
static void coll_op_finish(mpi_persist *p, p2p_req *op)
{
    p2p_req *r = p->req;
    MPI_Comm comm = REQ_COMM(op);
    r->status = op->status;
    p->op = NULL;
    p2p_req_free(op);
    mpi_comm_release(comm);
    if (p->freed)
        persist_destroy(p);
    p2p_req_complete(r);
}

static void coll_op_done(p2p_req *op)
{
    mpi_persist *p = (mpi_persist *)(uintptr_t)op->upper_data[2];
    if (p->coll_hook)
        p->coll_hook(op);
    coll_op_finish(p, op);
}

static void start_undo(p2p_req *r, MPI_Comm comm);

static int coll_start(mpi_persist *p, p2p_req *r)
{
    MPI_Request o = MPI_REQUEST_NULL;
    int rc = mpi_pcoll_start(p->coll, &o);
    if (rc != MPI_SUCCESS) {
        start_undo(r, p->comm);
        return rc;
    }
    /* The operation is the handle's from here on: its own handle is not the program's. */
    p2p_req *op = mpi_req_of(o);
    mpi_req_retire(o);
    if (op->done) { /* finished inside the call; its hook has run */
        coll_op_finish(p, op);
        return MPI_SUCCESS;
    }
    p->op = op;
    p->coll_hook = op->on_complete;
    op->upper_data[2] = (uint64_t)(uintptr_t)p;
    op->on_complete = coll_op_done;
    return MPI_SUCCESS;
}

int mpi_persist_coll_create(const char *fn, MPI_Comm comm, struct mpi_pcoll *coll,
                            MPI_Request *request)
{
    mpi_persist *p = calloc(1, sizeof *p);
    p2p_req *r = p != NULL ? mpi_req_new(comm, REQ_F_PERSIST | REQ_F_INACTIVE) : NULL;
    if (r == NULL) {
        free(p);
        mpi_pcoll_free(coll);
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    p->req = r;
    p->comm = comm;
    p->kind = PK_COLL;
    p->coll = coll;
    r->upper_data[1] = (uint64_t)(uintptr_t)p;
    p2p_req_complete(r);
    *request = mpi_req_handle(r);
    return MPI_SUCCESS;
}

static int persist_create(const char *fn, const void *buf, int count, MPI_Datatype dt, int peer,
                          int tag, MPI_Comm comm, int kind, int mode, MPI_Request *request)
{
    size_t bytes = (size_t)count * dt->size;
    int dense = (dt->flags & DT_F_DENSE) || bytes == 0;
    /* A buffered send packs into the attached buffer at each start (mpi_bsend_start): no buffer of
     * its own. */
    int own_tmp = !dense && kind != PK_BSEND;
    mpi_persist *p = calloc(1, sizeof *p);
    void *tmp = own_tmp ? malloc(bytes) : NULL;
    uint64_t flags = REQ_F_PERSIST | REQ_F_INACTIVE | (kind == PK_RECV ? REQ_F_RECV : 0) |
                     (peer == MPI_PROC_NULL ? REQ_F_PROC_NULL : 0);
    p2p_req *r = p != NULL && (!own_tmp || tmp != NULL) ? mpi_req_new(comm, flags) : NULL;
    if (r == NULL) {
        free(p);
        free(tmp);
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    p->req = r;
    p->buf = (void *)(uintptr_t)buf;
    p->addr = tmp != NULL ? tmp : BUF_AT(buf, (dt->flags & DT_F_DENSE) ? dt->lb : 0);
    p->tmp = tmp;
    p->bytes = bytes;
    p->count = count;
    p->dt = dt;
    dt_retain(dt);
    p->comm = comm;
    p->peer = peer;
    p->tag = tag;
    p->kind = kind;
    p->mode = mode;
    r->upper_data[1] = (uint64_t)(uintptr_t)p;
    p2p_req_complete(r); /* inactive requests are complete: the waits return at once */
    *request = mpi_req_handle(r);
    return MPI_SUCCESS;
}

/* Every *_init: the checks of the matching Isend/Irecv, then the handle. */
static int persist_init(const char *fn, const void *buf, int count, MPI_Datatype dt, int peer,
                        int tag, MPI_Comm comm, int kind, int mode, MPI_Request *request)
{
    dt = dt_or_byte_if_empty(count, dt);
    int rc = kind == PK_RECV ? mpi_check_irecv(fn, buf, count, dt, peer, tag, comm, request)
                             : mpi_check_isend(fn, buf, count, dt, peer, tag, comm, request);
    if (rc != MPI_SUCCESS)
        return rc;
    return persist_create(fn, buf, count, dt, peer, tag, comm, kind, mode, request);
}

int MPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    MPI_ENTER();
    return persist_init("MPI_Send_init", buf, count, datatype, dest, tag, comm, PK_SEND,
                        P2P_MODE_STANDARD, request);
}

int MPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    MPI_ENTER();
    return persist_init("MPI_Ssend_init", buf, count, datatype, dest, tag, comm, PK_SEND,
                        P2P_MODE_SYNC, request);
}

int MPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    MPI_ENTER();
    return persist_init("MPI_Rsend_init", buf, count, datatype, dest, tag, comm, PK_SEND,
                        P2P_MODE_READY, request);
}

int MPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    MPI_ENTER();
    return persist_init("MPI_Bsend_init", buf, count, datatype, dest, tag, comm, PK_BSEND,
                        P2P_MODE_STANDARD, request);
}

int MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                  MPI_Request *request)
{
    MPI_ENTER();
    return persist_init("MPI_Recv_init", buf, count, datatype, source, tag, comm, PK_RECV, 0,
                        request);
}

/* 0 when req may be started, else the raised error. `i`: its index in Startall's array, or -1. */
static int check_startable(const char *fn, MPI_Request req, int i)
{
    p2p_req *r = mpi_req_of(req);
    if (req == MPI_REQUEST_NULL)
        return mpi_error(NULL, MPI_ERR_REQUEST, fn, "request is MPI_REQUEST_NULL");
    if (r == NULL) {
        if (i < 0)
            return mpi_error(NULL, MPI_ERR_REQUEST, fn, "invalid request handle %p: %s",
                             (void *)req, mpi_req_handle_why(req));
        return mpi_error(NULL, MPI_ERR_REQUEST, fn, "invalid request handle %p at index %d: %s",
                         (void *)req, i, mpi_req_handle_why(req));
    }
    if (!(REQ_FLAGS(r) & REQ_F_PERSIST))
        return mpi_error(REQ_COMM(r), MPI_ERR_REQUEST, fn, "not a persistent request");
    if (!(REQ_FLAGS(r) & REQ_F_INACTIVE))
        return mpi_error(REQ_COMM(r), MPI_ERR_REQUEST, fn, "request is already active");
    return MPI_SUCCESS;
}

/* Back to inactive after a failed start (the caller raises the error). */
static void start_undo(p2p_req *r, MPI_Comm comm)
{
    r->upper_data[0] |= REQ_F_INACTIVE;
    p2p_req_complete(r);
    mpi_comm_release(comm);
}

static int persist_start(const char *fn, p2p_req *r)
{
    if (REQ_FLAGS(r) & REQ_F_PART)
        return mpi_part_start(fn, r);
    mpi_persist *p = PERSIST_OF(r);
    MPI_Comm comm = p->comm;
    p2p_req_rearm(r);
    r->upper_data[0] &= ~(uint64_t)REQ_F_INACTIVE;
    comm->refcount++; /* the operation's, given back when Wait/Test finish it */
    if (p->kind == PK_COLL)
        return coll_start(p, r);
    if (p->peer == MPI_PROC_NULL) {
        p2p_req_complete(r);
        return MPI_SUCCESS;
    }
    p2p_req *op = NULL;
    int rc;
    switch (p->kind) {
    case PK_BSEND:
        /* The data goes to the attached buffer now; like Ibsend, the request is then complete. */
        rc = mpi_bsend_start(fn, p->buf, p->count, p->dt, p->peer, p->tag, comm);
        if (rc != MPI_SUCCESS) {
            start_undo(r, comm);
            return rc;
        }
        p2p_req_complete(r);
        return MPI_SUCCESS;
    case PK_SEND:
        if (p->tmp != NULL)
            dt_pack(p->buf, (size_t)p->count, p->dt, p->tmp);
        rc = p2p_isend_batchable(p->addr, p->bytes, comm->world_of[p->peer], p->tag, comm->ctx,
                                 p->mode, &op);
        break;
    default:
        rc = p2p_irecv(p->addr, p->bytes,
                       p->peer == MPI_ANY_SOURCE ? P2P_ANY_SOURCE : comm->world_of[p->peer],
                       p->tag, comm->ctx, &op);
        break;
    }
    if (rc != P2P_OK) {
        start_undo(r, comm);
        return mpi_error(comm, mpi_err_of_p2p(rc), fn, "%s rank %d failed",
                         p->kind == PK_RECV ? "receive from" : "send to", p->peer);
    }
    op->upper = p;
    if (op->done) { /* finished inside p2p, before a hook could be installed */
        op_done(op);
    } else {
        p->op = op;
        op->on_complete = op_done;
    }
    return MPI_SUCCESS;
}

int MPI_Start(MPI_Request *request)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Start";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (request == NULL)
        return mpi_error(NULL, MPI_ERR_REQUEST, fn, "request is NULL");
    int rc = check_startable(fn, *request, -1);
    if (rc != MPI_SUCCESS)
        return rc;
    return persist_start(fn, mpi_req_of(*request));
}

int MPI_Startall(int count, MPI_Request array_of_requests[])
{
    MPI_ENTER();
    static const char fn[] = "MPI_Startall";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (count < 0)
        return mpi_error(NULL, MPI_ERR_COUNT, fn, "negative count %d", count);
    if (count > 0 && array_of_requests == NULL)
        return mpi_error(NULL, MPI_ERR_REQUEST, fn, "array of requests is NULL");
    /* All checked before any starts, so a bad handle starts nothing; the check is repeated
     * before each start for a request that appears twice in the array. */
    for (int i = 0; i < count; i++) {
        int rc = check_startable(fn, array_of_requests[i], i);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    for (int i = 0; i < count; i++) {
        int rc = check_startable(fn, array_of_requests[i], i);
        if (rc == MPI_SUCCESS)
            rc = persist_start(fn, mpi_req_of(array_of_requests[i]));
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

void mpi_persist_free(p2p_req *r)
{
    if (REQ_FLAGS(r) & REQ_F_PART) {
        mpi_part_free(r);
        return;
    }
    mpi_persist *p = PERSIST_OF(r);
    MPI_Comm comm = p->comm;
    int active = !(REQ_FLAGS(r) & REQ_F_INACTIVE);
    if (p->op != NULL)
        p->freed = 1; /* op_done destroys p, and completing the handle releases it */
    else
        persist_destroy(p);
    p2p_req_free(r);
    /* Nobody reads the status any more: the references go now, the operation's included. */
    if (active)
        mpi_comm_release(comm);
    mpi_comm_release(comm);
}

void mpi_persist_cancel(p2p_req *r)
{
    if (REQ_FLAGS(r) & REQ_F_PART)
        return; /* a partitioned epoch completes normally (its messages are under way) */
    mpi_persist *p = PERSIST_OF(r);
    /* A cancelled operation completes through op_done like any other end of it (see MPI_Cancel
     * for which sends can be cancelled; a buffered send's data is in the attached buffer already,
     * so it completes normally); an inactive request has nothing to cancel, and a collective
     * cannot be cancelled (MPI 4.0 6.13: erroneous; it completes normally). */
    if (p->op != NULL && !p->op->done && p->kind != PK_BSEND && p->kind != PK_COLL)
        p2p_cancel(p->op);
}

CREDO_PMPI(MPI_Send_init)
CREDO_PMPI(MPI_Ssend_init)
CREDO_PMPI(MPI_Rsend_init)
CREDO_PMPI(MPI_Bsend_init)
CREDO_PMPI(MPI_Recv_init)
CREDO_PMPI(MPI_Start)
CREDO_PMPI(MPI_Startall)
