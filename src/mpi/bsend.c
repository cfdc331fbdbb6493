/* src/mpi/bsend.c — buffered sends: the user-attached buffer (Buffer_attach/detach), a first-fit
 * allocator over it, and Bsend/Ibsend's copy-then-send with release on completion. */
#include <stdint.h>
#include <string.h>

#include "mpi/mpi_impl.h"

/* Bookkeeping in front of every message in the attached buffer; with the 8-byte alignment of
 * both the buffer start and each payload it stays within MPI_BSEND_OVERHEAD. */
typedef struct bsend_seg {
    struct bsend_seg *next;  /* used segments, in address order */
    size_t total;            /* header + rounded payload */
    p2p_req *req;
    uint64_t reserved;
} bsend_seg;

_Static_assert(sizeof(bsend_seg) + 2 * 7 <= MPI_BSEND_OVERHEAD, "MPI_BSEND_OVERHEAD too small");

static struct {
    void *user_buf;
    int user_size;
    char *base, *end;        /* usable, aligned region */
    bsend_seg *used;
} bs;

#define ALIGN8(x) (((x) + 7) & ~(uintptr_t)7)

/* First fit over the gaps between used segments. */
static bsend_seg *seg_alloc(size_t payload)
{
    size_t need = sizeof(bsend_seg) + (size_t)ALIGN8(payload);
    char *cursor = bs.base;
    bsend_seg **link = &bs.used;
    for (bsend_seg *s = bs.used; s != NULL; link = &s->next, s = s->next) {
        if ((size_t)((char *)s - cursor) >= need)
            break;
        cursor = (char *)s + s->total;
    }
    if ((size_t)(bs.end - cursor) < need)
        return NULL;
    if (*link != NULL && (size_t)((char *)*link - cursor) < need)
        return NULL;
    bsend_seg *seg = (bsend_seg *)(void *)cursor;
    seg->total = need;
    seg->next = *link;
    seg->req = NULL;
    *link = seg;
    return seg;
}

static void seg_free(bsend_seg *seg)
{
    for (bsend_seg **link = &bs.used; *link != NULL; link = &(*link)->next) {
        if (*link == seg) {
            *link = seg->next;
            return;
        }
    }
}

/* Completion hook of the internal send: its bytes have left the buffer. Idempotent. */
static void bsend_done(p2p_req *r)
{
    bsend_seg *seg = r->upper;
    if (seg == NULL)
        return;
    r->upper = NULL;
    seg_free(seg);
}

static size_t bytes_free(void)
{
    size_t used = 0;
    for (bsend_seg *s = bs.used; s != NULL; s = s->next)
        used += s->total;
    return (size_t)(bs.end - bs.base) - used;
}

int mpi_bsend_start(const char *fn, const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                    MPI_Comm comm)
{
    size_t bytes = (size_t)count * dt->size;
    if (bs.base == NULL)
        return mpi_error(comm, MPI_ERR_BUFFER, fn, "no buffer attached (see MPI_Buffer_attach)");
    bsend_seg *seg = seg_alloc(bytes);
    /* Earlier buffered sends may just be waiting for progress to leave the buffer. */
    for (int tries = 0; seg == NULL && bs.used != NULL && tries < 1000; tries++) {
        p2p_progress();
        seg = seg_alloc(bytes);
    }
    if (seg == NULL)
        return mpi_error(comm, MPI_ERR_BUFFER, fn,
                         "attached buffer too small: message needs %zu bytes, %zu free",
                         bytes + MPI_BSEND_OVERHEAD, bytes_free());
    void *payload = seg + 1;
    dt_pack(buf, (size_t)count, dt, payload);
    p2p_req *r;
    int rc = p2p_isend(payload, bytes, comm->world_of[dest], tag, comm->ctx, P2P_MODE_STANDARD, &r);
    if (rc != P2P_OK) {
        seg_free(seg);
        return mpi_error(comm, mpi_err_of_p2p(rc), fn, "send to rank %d failed", dest);
    }
    seg->req = r;
    r->upper = seg;
    r->upper_data[0] = 0;
    r->on_complete = bsend_done;
    if (r->done)
        bsend_done(r);
    p2p_req_free(r);
    return MPI_SUCCESS;
}

void mpi_bsend_drain(void)
{
    p2p_waiter w = P2P_WAITER_INIT;
    p2p_waiting_begin();
    while (bs.used != NULL)
        p2p_wait_step(&w);
    p2p_waiting_end();
}

int MPI_Buffer_attach(void *buffer, int size)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Buffer_attach";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (bs.user_buf != NULL)
        return mpi_error(NULL, MPI_ERR_BUFFER, fn, "a buffer is already attached");
    if (size < 0 || (buffer == NULL && size > 0))
        return mpi_error(NULL, size < 0 ? MPI_ERR_ARG : MPI_ERR_BUFFER, fn,
                         "invalid buffer (size %d)", size);
    char *base = (char *)ALIGN8((uintptr_t)buffer);
    char *end = (char *)buffer + size;
    if (base > end)
        base = end;
    bs.user_buf = buffer ? buffer : (void *)&bs;
    bs.user_size = size;
    bs.base = base;
    bs.end = end;
    bs.used = NULL;
    return MPI_SUCCESS;
}

int MPI_Buffer_detach(void *buffer_addr, int *size)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Buffer_detach";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (buffer_addr == NULL || size == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "NULL argument");
    /* The standard blocks until every buffered message has been transmitted. */
    mpi_bsend_drain();
    *(void **)buffer_addr = bs.user_buf == (void *)&bs ? NULL : bs.user_buf;
    *size = bs.user_size;
    memset(&bs, 0, sizeof bs);
    return MPI_SUCCESS;
}

CREDO_PMPI(MPI_Buffer_attach)
CREDO_PMPI(MPI_Buffer_detach)
