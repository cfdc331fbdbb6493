/* src/mpi/part.c — MPI 4.0 partitioned point-to-point communication: MPI_Psend_init/Precv_init,
 * MPI_Pready/_range/_list, MPI_Parrived, and the matching and transport under them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "mpi/mpi_impl.h"

/* Both sides are persistent requests (REQ_F_PERSIST | REQ_F_PART): MPI_Start arms them through
 * persist.c, the wait/test family finishes them like any persistent request, and
 * MPI_Request_free ends here. upper_data[1] is the struct part_req.
 *
 * Matching (MPI 4.0 4.2: once, in the order of initialization, by communicator, peer and tag):
 * each side numbers its inits per (communicator, peer, tag), so the k-th Psend_init to rank r with
 * tag t pairs with the k-th Precv_init from this rank with tag t at r, whatever the order of the
 * starts. At its first start a send request sends one "hello" {tag, number, data context,
 * partitions, bytes} to the receiver on the communicator's collective context (comm->ctx + 1)
 * under PART_HELLO_TAG, a tag no collective uses there (GOAL's have bit 30 set, the direct
 * barrier/allreduce use 1 and 2, the intercommunicator collectives stay below 0x10000010 or use
 * 0x7fff0000). The receiver takes hellos with one posted receive per (communicator, source) while
 * one of its started receive requests there is unmatched, and pairs them in software by (tag,
 * number); a hello nobody claims yet waits in a stash.
 *
 * Transport: each send request owns a context id that no other traffic uses (one of the four ids
 * of a job-unique slot, mpi_ctx_slot, shared by four send requests), and each MPI_Pready of
 * partition i sends partition i's bytes as one p2p message on that context with tag i, at once.
 * The receiver posts one receive per *sender* partition into the byte range it covers (partition
 * counts may differ on the two sides; only the total size must match), so MPI_Parrived(j) is 1
 * as soon as every byte of receive partition j is in. Non-overtaking per (source, context, tag)
 * keeps the epochs apart: the sender may run epoch e + 1 before the receiver starts it; those
 * messages wait as unexpected ones for the receives the next start posts. Non-contiguous types
 * go through a pack buffer, packed per partition at Pready and unpacked per partition when it is
 * complete. */

#define PART_HELLO_TAG 0x20000000

typedef struct part_hello {
    int32_t tag;
    uint32_t seq;
    uint32_t data_ctx;
    int32_t parts;
    uint64_t bytes;
} part_hello;

typedef struct part_req {
    p2p_req *req;          /* the handle */
    MPI_Comm comm;
    int send;
    void *buf;             /* the user's buffer */
    void *addr;            /* where the bytes are: the buffer at the type's lb, or tmp */
    void *tmp;             /* pack buffer of a non-contiguous type */
    MPI_Datatype dt;       /* retained */
    size_t count;          /* elements per partition */
    int parts;
    size_t pbytes;         /* bytes per partition */
    size_t bytes;          /* parts * pbytes */
    int peer;              /* comm rank or MPI_PROC_NULL */
    int peer_job;
    int tag;
    uint32_t seq;          /* init number per (comm, peer, tag) on this side */
    uint32_t cctx;         /* comm->ctx */
    uint32_t data_ctx;     /* the send request's own context */
    int freed;             /* MPI_Request_free came while active: the epoch's end frees it */
    int pending;           /* p2p operations of this epoch not completed */
    int units_done;        /* send: partitions sent; recv: sender partitions arrived */
    unsigned char *ready;  /* send: Pready seen for partition i this epoch */
    int hello_sent;
    /* receive side */
    int matched;
    int sparts;            /* the sender's partitions */
    uint64_t sbytes;       /* the sender's total */
    size_t spbytes;        /* bytes per sender partition */
    size_t *got;           /* bytes of receive partition j in this epoch */
    int err;               /* p2p error of this epoch */
    struct part_req *next; /* live receive requests */
} part_req;

#define PART_OF(r) ((part_req *)(uintptr_t)(r)->upper_data[1])

/* Init numbers per (context, peer, tag), one counter for each direction. */
typedef struct part_seq {
    uint32_t cctx;
    int peer, tag;
    uint32_t sends, recvs;
    struct part_seq *next;
} part_seq;

/* The posted hello receive of one (context, source), and hellos no receive request claimed. */
typedef struct part_listener {
    uint32_t cctx;
    int src;
    p2p_req *op;
    part_hello msg;
    struct part_listener *next;
} part_listener;

typedef struct part_stash {
    uint32_t cctx;
    int src;
    part_hello h;
    struct part_stash *next;
} part_stash;

static part_seq *seqs;
static part_listener *listeners;
static part_stash *stash;
static part_req *recvs;
static uint32_t slot_ctx;   /* the current slot's first id */
static unsigned slot_used = 4;

static int next_seq(uint32_t cctx, int peer, int tag, int send, uint32_t *out)
{
    part_seq *s = seqs;
    while (s != NULL && !(s->cctx == cctx && s->peer == peer && s->tag == tag))
        s = s->next;
    if (s == NULL) {
        if ((s = calloc(1, sizeof *s)) == NULL)
            return -1;
        s->cctx = cctx;
        s->peer = peer;
        s->tag = tag;
        s->next = seqs;
        seqs = s;
    }
    *out = send ? s->sends++ : s->recvs++;
    return 0;
}

/* A context id of this process' own for a send request's data (0: the slot space is used up). */
static uint32_t data_ctx_new(void)
{
    if (slot_used == 4) {
        uint32_t s = mpi_ctx_slot();
        if (s == 0)
            return 0;
        slot_ctx = s;
        slot_used = 0;
    }
    return slot_ctx + slot_used++;
}

static void part_destroy(part_req *p)
{
    if (!p->send) {
        part_req **pp = &recvs;
        while (*pp != NULL && *pp != p)
            pp = &(*pp)->next;
        if (*pp == p)
            *pp = p->next;
    }
    free(p->tmp);
    free(p->ready);
    free(p->got);
    dt_release(p->dt);
    free(p);
}

/* The epoch ends: status to the handle, handle completed (and p released if it was freed). */
static void epoch_end(part_req *p)
{
    p2p_req *r = p->req;
    r->status.source = p->peer_job;
    r->status.tag = p->tag;
    if (!p->send && p->sbytes != p->bytes && p->err == P2P_OK)
        p->err = p->sbytes > p->bytes ? P2P_ERR_TRUNCATE : P2P_ERR_ARG;
    r->status.error = p->err;
    r->status.cancelled = 0;
    r->status.bytes = p->send ? 0 : (p->sbytes < p->bytes ? (size_t)p->sbytes : p->bytes);
    if (p->freed)
        part_destroy(p);
    p2p_req_complete(r);
}

/* ---- send side ---- */

static void hello_sent(p2p_req *op)
{
    free(op->upper);
    p2p_req_free(op);
}

static void unit_sent(p2p_req *op)
{
    part_req *p = op->upper;
    if (op->status.error != P2P_OK && p->err == P2P_OK)
        p->err = op->status.error;
    p2p_req_free(op);
    p->pending--;
    if (++p->units_done == p->parts)
        epoch_end(p);
}

static int send_hello(part_req *p)
{
    part_hello *h = malloc(sizeof *h);
    if (h == NULL)
        return P2P_ERR_NOMEM;
    h->tag = p->tag;
    h->seq = p->seq;
    h->data_ctx = p->data_ctx;
    h->parts = p->parts;
    h->bytes = p->bytes;
    p2p_req *op = NULL;
    int rc = p2p_isend(h, sizeof *h, p->peer_job, PART_HELLO_TAG, p->cctx + 1, P2P_MODE_STANDARD,
                       &op);
    if (rc != P2P_OK) {
        free(h);
        return rc;
    }
    op->upper = h;
    if (op->done)
        hello_sent(op);
    else
        op->on_complete = hello_sent;
    p->hello_sent = 1;
    return P2P_OK;
}

/* Partition i is ready: its bytes go now, as one message with tag i. */
static int send_partition(part_req *p, int i)
{
    p->ready[i] = 1;
    if (p->peer == MPI_PROC_NULL)
        return P2P_OK;
    size_t off = (size_t)i * p->pbytes;
    if (p->tmp != NULL)
        dt_pack(BUF_AT(p->buf, (MPI_Aint)i * (MPI_Aint)p->count * p->dt->extent), p->count, p->dt,
                BUF_AT(p->tmp, off));
    p2p_req *op = NULL;
    int rc = p2p_isend(BUF_AT(p->addr, off), p->pbytes, p->peer_job, i, p->data_ctx,
                       P2P_MODE_STANDARD, &op);
    if (rc != P2P_OK) {
        p->ready[i] = 0;
        return rc;
    }
    p->pending++;
    op->upper = p;
    if (op->done)
        unit_sent(op);
    else
        op->on_complete = unit_sent;
    return P2P_OK;
}

/* ---- receive side ---- */

static void unit_arrived(p2p_req *op)
{
    part_req *p = op->upper;
    size_t u = (size_t)op->upper_data[0];
    if (op->status.error != P2P_OK && p->err == P2P_OK)
        p->err = op->status.error;
    size_t off = u * p->spbytes, len = op->status.bytes;
    p2p_req_free(op);
    /* Receive partitions covered by [off, off + len): count the bytes in, unpack complete ones. */
    if (len > 0 && p->pbytes > 0) {
        for (size_t j = off / p->pbytes; j < (size_t)p->parts && j * p->pbytes < off + len; j++) {
            size_t lo = j * p->pbytes > off ? j * p->pbytes : off;
            size_t hi = (j + 1) * p->pbytes < off + len ? (j + 1) * p->pbytes : off + len;
            p->got[j] += hi - lo;
            if (p->got[j] == p->pbytes && p->tmp != NULL)
                dt_unpack(BUF_AT(p->tmp, j * p->pbytes), p->pbytes, p->count, p->dt,
                          BUF_AT(p->buf, (MPI_Aint)j * (MPI_Aint)p->count * p->dt->extent));
        }
    }
    p->pending--;
    if (++p->units_done == p->sparts)
        epoch_end(p);
}

/* One receive per sender partition, into the bytes it covers (clipped to this buffer). */
static void post_units(part_req *p)
{
    if (p->sparts == 0) {
        epoch_end(p);
        return;
    }
    for (int u = 0; u < p->sparts; u++) {
        size_t off = (size_t)u * p->spbytes;
        size_t len = off >= p->bytes ? 0 : (p->bytes - off < p->spbytes ? p->bytes - off : p->spbytes);
        p2p_req *op = NULL;
        int rc = p2p_irecv(BUF_AT(p->addr, off < p->bytes ? off : 0), len, p->peer_job, u,
                           p->data_ctx, &op);
        if (rc != P2P_OK) {
            /* Out of requests: the epoch cannot complete; say so rather than hang silently. */
            credo_abort(MPI_ERR_NO_MEM, "partitioned receive: cannot post receive %d of %d", u,
                        p->sparts);
        }
        p->pending++;
        op->upper = p;
        op->upper_data[0] = (uint64_t)u;
        if (op->done)
            unit_arrived(op);
        else
            op->on_complete = unit_arrived;
    }
}

static void part_match(part_req *p, const part_hello *h)
{
    p->matched = 1;
    p->data_ctx = h->data_ctx;
    p->sparts = h->parts;
    p->sbytes = h->bytes;
    p->spbytes = h->parts > 0 ? (size_t)(h->bytes / (uint64_t)h->parts) : 0;
    if (h->bytes != p->bytes) {
        /* MPI 4.0 4.2.2: the send and the receive must have the same total size. */
        fprintf(stderr,
                "credo: rank %d: partitioned receive (source rank %d, tag %d): the matching "
                "MPI_Psend_init has %llu bytes, this MPI_Precv_init %zu; the sizes must be equal "
                "(each epoch completes with %s)\n",
                credo_rt.rank, p->peer, p->tag, (unsigned long long)h->bytes, p->bytes,
                h->bytes > p->bytes ? "MPI_ERR_TRUNCATE" : "MPI_ERR_ARG");
    }
    if (!(REQ_FLAGS(p->req) & REQ_F_INACTIVE) && !p->req->done)
        post_units(p);
}

static void listener_hook(p2p_req *op);

static int waiting_unmatched(uint32_t cctx, int src)
{
    for (part_req *p = recvs; p != NULL; p = p->next)
        if (p->cctx == cctx && p->peer_job == src && !p->matched &&
            !(REQ_FLAGS(p->req) & REQ_F_INACTIVE))
            return 1;
    return 0;
}

static void listener_post(part_listener *l)
{
    p2p_req *op = NULL;
    if (p2p_irecv(&l->msg, sizeof l->msg, l->src, PART_HELLO_TAG, l->cctx + 1, &op) != P2P_OK)
        credo_abort(MPI_ERR_NO_MEM, "partitioned receive: cannot post the matching receive");
    op->upper = l;
    l->op = op;
    if (op->done)
        listener_hook(op);
    else
        op->on_complete = listener_hook;
}

/* A hello arrived (or the receive was cancelled): hand it to its receive request or stash it,
 * then listen on while a started receive request of this (context, source) is unmatched. */
static void listener_hook(p2p_req *op)
{
    part_listener *l = op->upper;
    int ok = !op->status.cancelled && op->status.error == P2P_OK &&
             op->status.bytes == sizeof(part_hello);
    part_hello h = l->msg;
    l->op = NULL;
    p2p_req_free(op);
    if (ok) {
        part_req *p = recvs;
        while (p != NULL && !(p->cctx == l->cctx && p->peer_job == l->src && !p->matched &&
                              p->tag == h.tag && p->seq == h.seq))
            p = p->next;
        if (p != NULL) {
            part_match(p, &h);
        } else {
            part_stash *s = malloc(sizeof *s), **sp = &stash;
            if (s == NULL)
                credo_abort(MPI_ERR_NO_MEM, "partitioned receive: out of memory");
            s->cctx = l->cctx;
            s->src = l->src;
            s->h = h;
            s->next = NULL;
            while (*sp != NULL)
                sp = &(*sp)->next;
            *sp = s;
        }
    }
    if (!op->status.cancelled && l->op == NULL && waiting_unmatched(l->cctx, l->src))
        listener_post(l);
}

/* A receive request that starts unmatched: its hello from the stash, else a listener. */
static int recv_find_match(part_req *p)
{
    for (part_stash **sp = &stash; *sp != NULL; sp = &(*sp)->next) {
        part_stash *s = *sp;
        if (s->cctx == p->cctx && s->src == p->peer_job && s->h.tag == p->tag && s->h.seq == p->seq) {
            *sp = s->next;
            part_match(p, &s->h);
            free(s);
            return MPI_SUCCESS;
        }
    }
    part_listener *l = listeners;
    while (l != NULL && !(l->cctx == p->cctx && l->src == p->peer_job))
        l = l->next;
    if (l == NULL) {
        if ((l = calloc(1, sizeof *l)) == NULL)
            return MPI_ERR_NO_MEM;
        l->cctx = p->cctx;
        l->src = p->peer_job;
        l->next = listeners;
        listeners = l;
    }
    if (l->op == NULL)
        listener_post(l);
    return MPI_SUCCESS;
}

/* ---- the requests' life (persist.c dispatches MPI_Start and MPI_Request_free here) ---- */

int mpi_part_start(const char *fn, p2p_req *r)
{
    part_req *p = PART_OF(r);
    MPI_Comm comm = p->comm;
    p2p_req_rearm(r);
    r->upper_data[0] &= ~(uint64_t)REQ_F_INACTIVE;
    comm->refcount++; /* the epoch's, given back when Wait/Test finish it */
    p->units_done = 0;
    p->err = P2P_OK;
    if (p->send)
        memset(p->ready, 0, (size_t)p->parts);
    else if (p->parts > 0)
        memset(p->got, 0, (size_t)p->parts * sizeof *p->got);
    if (p->peer == MPI_PROC_NULL) {
        p2p_req_complete(r);
        return MPI_SUCCESS;
    }
    int rc = MPI_SUCCESS;
    if (p->send) {
        int prc = p->hello_sent ? P2P_OK : send_hello(p);
        if (prc != P2P_OK)
            rc = mpi_err_of_p2p(prc);
        else if (p->parts == 0)
            epoch_end(p);
    } else if (p->matched) {
        post_units(p);
    } else {
        rc = recv_find_match(p);
    }
    if (rc != MPI_SUCCESS) {
        r->upper_data[0] |= REQ_F_INACTIVE;
        p2p_req_complete(r);
        mpi_comm_release(comm);
        return mpi_error(comm, rc, fn, "cannot start the partitioned %s",
                         p->send ? "send" : "receive");
    }
    return MPI_SUCCESS;
}

void mpi_part_free(p2p_req *r)
{
    part_req *p = PART_OF(r);
    MPI_Comm comm = p->comm;
    int active = !(REQ_FLAGS(r) & REQ_F_INACTIVE);
    if (active && !r->done)
        p->freed = 1; /* its epoch's end releases it */
    else
        part_destroy(p);
    p2p_req_free(r);
    /* A hello receive that no unmatched started receive needs any more goes. */
    for (part_listener *l = listeners; l != NULL; l = l->next)
        if (l->op != NULL && !waiting_unmatched(l->cctx, l->src))
            p2p_cancel(l->op);
    if (active)
        mpi_comm_release(comm);
    mpi_comm_release(comm);
}

/* ---- the bindings ---- */

static int part_init(const char *fn, const void *buf, int partitions, MPI_Count count,
                     MPI_Datatype dt, int peer, int tag, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request, int send)
{
    dt = dt_or_byte_if_empty(count, dt);
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (request == NULL)
        return mpi_error(comm_ok(comm) ? comm : NULL, MPI_ERR_REQUEST, fn, "request is NULL");
    COMM_CHECK(fn, comm);
    if (partitions < 0)
        return mpi_error(comm, MPI_ERR_ARG, fn, "negative number of partitions %d", partitions);
    if (count < 0)
        return mpi_error(comm, MPI_ERR_COUNT, fn, "negative count %lld", (long long)count);
    int rc = mpi_check_buf(comm, fn, buf, 0, dt);
    if (rc != MPI_SUCCESS)
        return rc;
    if (buf == NULL && count > 0 && partitions > 0 && dt->size > 0 && (dt->flags & DT_F_PREDEF))
        return mpi_error(comm, MPI_ERR_BUFFER, fn, "NULL buffer with %d partitions of %lld",
                         partitions, (long long)count);
    if (peer != MPI_PROC_NULL && (peer < 0 || peer >= comm->remote_size))
        return mpi_error(comm, MPI_ERR_RANK, fn, "invalid %s rank %d (%s size %d)%s",
                         send ? "destination" : "source", peer,
                         COMM_IS_INTER(comm) ? "remote group" : "communicator", comm->remote_size,
                         peer == MPI_ANY_SOURCE ? ": MPI_ANY_SOURCE is not allowed here" : "");
    if (tag < 0 || tag > CREDO_TAG_UB)
        return mpi_error(comm, MPI_ERR_TAG, fn, "invalid tag %d (valid: 0..%d%s)", tag,
                         CREDO_TAG_UB, tag == MPI_ANY_TAG ? "; MPI_ANY_TAG is not allowed here" : "");
    if (info != MPI_INFO_NULL && !mpi_info_ok(info))
        return mpi_error(comm, MPI_ERR_INFO, fn, "invalid info object");
    size_t n = (size_t)partitions * (size_t)count;
    if (count > 0 && partitions > 0 &&
        ((uint64_t)count > SIZE_MAX / (size_t)partitions || (dt->size > 0 && n > SIZE_MAX / dt->size)))
        return mpi_error(comm, MPI_ERR_COUNT, fn, "message size overflows");
    size_t bytes = n * dt->size;
    int dense = (dt->flags & DT_F_DENSE) || bytes == 0;

    part_req *p = calloc(1, sizeof *p);
    if (p == NULL)
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    p->send = send;
    p->parts = partitions;
    p->tmp = dense ? NULL : malloc(bytes);
    if (send)
        p->ready = malloc((size_t)partitions + 1);
    else
        p->got = calloc((size_t)partitions + 1, sizeof *p->got);
    int peer_job = peer == MPI_PROC_NULL ? -1 : comm->world_of[peer];
    uint32_t ctx = send && peer != MPI_PROC_NULL ? data_ctx_new() : 0;
    uint64_t flags = REQ_F_PERSIST | REQ_F_PART | REQ_F_INACTIVE | (send ? 0 : REQ_F_RECV) |
                     (peer == MPI_PROC_NULL ? REQ_F_PROC_NULL : 0);
    p2p_req *r = NULL;
    int bad = (!dense && p->tmp == NULL) || (send ? p->ready == NULL : p->got == NULL) ||
              (peer != MPI_PROC_NULL && next_seq(comm->ctx, peer_job, tag, send, &p->seq) != 0);
    if (!bad && send && peer != MPI_PROC_NULL && ctx == 0) {
        free(p->tmp);
        free(p->ready);
        free(p);
        return mpi_error(comm, MPI_ERR_INTERN, fn, "context ids for partitioned sends used up");
    }
    if (!bad)
        r = mpi_req_new(comm, flags);
    if (r == NULL) {
        free(p->tmp);
        free(p->ready);
        free(p->got);
        free(p);
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    p->req = r;
    p->comm = comm;
    p->buf = (void *)(uintptr_t)buf;
    p->addr = p->tmp != NULL ? p->tmp : BUF_AT(buf, (dt->flags & DT_F_DENSE) ? dt->lb : 0);
    p->dt = dt;
    dt_retain(dt);
    p->count = (size_t)count;
    p->pbytes = (size_t)count * dt->size;
    p->bytes = bytes;
    p->peer = peer;
    p->peer_job = peer_job;
    p->tag = tag;
    p->cctx = comm->ctx;
    p->data_ctx = ctx;
    if (!send) {
        p->next = recvs;
        recvs = p;
    }
    r->upper_data[1] = (uint64_t)(uintptr_t)p;
    p2p_req_complete(r); /* inactive requests are complete: the waits return at once */
    *request = mpi_req_handle(r);
    return MPI_SUCCESS;
}

int MPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                   int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_ENTER();
    return part_init("MPI_Psend_init", buf, partitions, count, datatype, dest, tag, comm, info,
                     request, 1);
}

int MPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source,
                   int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_ENTER();
    return part_init("MPI_Precv_init", buf, partitions, count, datatype, source, tag, comm, info,
                     request, 0);
}

/* The request of an MPI_Pready* or MPI_Parrived call: 0 and *out, or the raised error. */
static int part_request(const char *fn, MPI_Request request, int send, part_req **out)
{
    if (!MPI_READY())
        return mpi_not_ready(fn);
    p2p_req *r = mpi_req_of(request);
    if (request == MPI_REQUEST_NULL)
        return mpi_error(NULL, MPI_ERR_REQUEST, fn, "request is MPI_REQUEST_NULL");
    if (r == NULL)
        return mpi_error(NULL, MPI_ERR_REQUEST, fn, "invalid request handle %p: %s",
                         (void *)request, mpi_req_handle_why(request));
    if (!(REQ_FLAGS(r) & REQ_F_PART) || PART_OF(r)->send != send)
        return mpi_error(REQ_COMM(r), MPI_ERR_REQUEST, fn, "not a partitioned %s request",
                         send ? "send" : "receive");
    *out = PART_OF(r);
    return MPI_SUCCESS;
}

/* Checks partition i of an active send request p before it is marked ready. */
static int pready_check(const char *fn, part_req *p, int i)
{
    if (REQ_FLAGS(p->req) & REQ_F_INACTIVE)
        return mpi_error(p->comm, MPI_ERR_REQUEST, fn,
                         "the partitioned send request is not active (MPI_Start it first)");
    if (i < 0 || i >= p->parts)
        return mpi_error(p->comm, MPI_ERR_ARG, fn, "partition %d out of range (0..%d)", i,
                         p->parts - 1);
    if (p->ready[i])
        return mpi_error(p->comm, MPI_ERR_ARG, fn,
                         "partition %d was already marked ready in this epoch", i);
    return MPI_SUCCESS;
}

static int pready_one(const char *fn, part_req *p, int i)
{
    int rc = pready_check(fn, p, i);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = send_partition(p, i);
    if (rc != P2P_OK)
        return mpi_error(p->comm, mpi_err_of_p2p(rc), fn, "sending partition %d failed", i);
    return MPI_SUCCESS;
}

int MPI_Pready(int partition, MPI_Request request)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Pready";
    part_req *p = NULL;
    int rc = part_request(fn, request, 1, &p);
    return rc != MPI_SUCCESS ? rc : pready_one(fn, p, partition);
}

int MPI_Pready_range(int partition_low, int partition_high, MPI_Request request)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Pready_range";
    part_req *p = NULL;
    int rc = part_request(fn, request, 1, &p);
    if (rc != MPI_SUCCESS)
        return rc;
    if (partition_low > partition_high)
        return mpi_error(p->comm, MPI_ERR_ARG, fn, "partition_low %d above partition_high %d",
                         partition_low, partition_high);
    /* The whole range is checked first, so a bad one marks nothing ready. */
    for (int i = partition_low; i <= partition_high; i++)
        if ((rc = pready_check(fn, p, i)) != MPI_SUCCESS)
            return rc;
    for (int i = partition_low; i <= partition_high && rc == MPI_SUCCESS; i++)
        rc = pready_one(fn, p, i);
    return rc;
}

int MPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Pready_list";
    part_req *p = NULL;
    int rc = part_request(fn, request, 1, &p);
    if (rc != MPI_SUCCESS)
        return rc;
    if (length < 0 || (length > 0 && array_of_partitions == NULL))
        return mpi_error(p->comm, MPI_ERR_ARG, fn, "%s",
                         length < 0 ? "negative length" : "array_of_partitions is NULL");
    for (int k = 0; k < length; k++)
        if ((rc = pready_check(fn, p, array_of_partitions[k])) != MPI_SUCCESS)
            return rc;
    /* A partition twice in the list is caught when its second entry comes. */
    for (int k = 0; k < length && rc == MPI_SUCCESS; k++)
        rc = pready_one(fn, p, array_of_partitions[k]);
    return rc;
}

int MPI_Parrived(MPI_Request request, int partition, int *flag)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Parrived";
    part_req *p = NULL;
    int rc = part_request(fn, request, 0, &p);
    if (rc != MPI_SUCCESS)
        return rc;
    if (flag == NULL)
        return mpi_error(p->comm, MPI_ERR_ARG, fn, "flag is NULL");
    if (partition < 0 || partition >= p->parts)
        return mpi_error(p->comm, MPI_ERR_ARG, fn, "partition %d out of range (0..%d)", partition,
                         p->parts - 1);
    p2p_req *r = p->req;
    /* Inactive (never started, or finished): nothing is outstanding. */
    if ((REQ_FLAGS(r) & REQ_F_INACTIVE) || r->done) {
        *flag = 1;
        return MPI_SUCCESS;
    }
    if (p->pbytes == 0 || p->got[partition] < p->pbytes)
        p2p_progress();
    *flag = r->done || (p->pbytes > 0 && p->got[partition] == p->pbytes);
    return MPI_SUCCESS;
}

CREDO_PMPI(MPI_Psend_init)
CREDO_PMPI(MPI_Precv_init)
CREDO_PMPI(MPI_Pready)
CREDO_PMPI(MPI_Pready_range)
CREDO_PMPI(MPI_Pready_list)
CREDO_PMPI(MPI_Parrived)
