/* src/mpi/win_net.c — one-sided communication with targets reached over the network: Put/Get as RMA
 * on the target's registered window memory, everything else as requests the target serves. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "mpi/op.h"
#include "mpi/win_impl.h"

/* The protocol. Requests and answers are messages on the window's hidden communicator (its own
 * context, so never the program's), served at the target from a completion hook of a receive it
 * keeps posted: inside p2p's progress, i.e. whenever the target is in any MPI call or its progress
 * thread runs. A request is a header, the target datatype's blocks (one element's contiguous
 * pieces) and the operand; small ones travel as one message, larger ones as the header with the
 * blocks and the operand following as their own messages, tagged with the request's sequence
 * number, as is the answer (status, then the fetched bytes). Every origin waits for the answer
 * before its call returns, so an operation is complete, at the target too, when its call returns,
 * and synchronization (fence, unlock, flush, PSCW) has nothing left to wait for.
 *
 * Atomicity: the target applies accumulates under its own accumulate lock word in its node's
 * control segment, the very word its shared-memory peers take for theirs: element-wise atomic
 * with respect to both. Passive-target locks: the target tries its lock word for the origin and
 * answers granted or busy; a busy origin tries again (progressing meanwhile), as a shared-memory
 * origin spins on the word. Which origin holds what on our word is recorded (remote_held), so an
 * unlock that does not match a grant is refused instead of corrupting the word.
 *
 * Everything in a request is checked before use: kinds, ops and basic types against their tables,
 * counts, lengths and displacements bounded, the datatype's blocks and the whole footprint inside
 * this rank's window (or an attached region of a dynamic one). */

enum {
    WN_MAGIC = 0x574e5251,      /* "WNRQ" */
    WN_REP_MAGIC = 0x574e5250,  /* "WNRP" */
    WN_TAG_REQ = 3,             /* TAG_POST 1 and TAG_DONE 2 are win_sync.c's */
    WN_TAG_REP = 0x100000,      /* | seq: the answer */
    WN_TAG_BLK = 0x200000,      /* | seq: the blocks, when not in the header's message */
    WN_TAG_DATA = 0x300000,     /* | seq: the operand, when not in the header's message */
    WN_SEQ_MASK = 0xfffff,
    WN_REQ_MAX = 4096,          /* the listening receive's buffer: one small request */
    WN_F_SEP = 1,               /* blocks and operand follow as messages of their own */
};
#define WN_MAX_BLOCKS ((uint64_t)1 << 24)
#define WN_MAX_SPAN ((int64_t)1 << 50) /* bound on displacements, extents, lengths from the wire */

typedef struct wn_hdr {
    uint32_t magic;
    uint8_t kind, op, flags, lock;
    int16_t basic;
    uint16_t pad;
    uint32_t seq;
    uint64_t nblocks; /* blocks of one element of the target datatype */
    int64_t addr;     /* byte offset in the target's window; absolute address (dynamic) */
    uint64_t count;   /* elements */
    int64_t extent;
    uint64_t esize;   /* bytes of one element (the blocks' lengths add up to it) */
    uint64_t basic_size; /* accumulates: bytes of the basic element */
    uint64_t dlen;    /* operand bytes */
} wn_hdr;

typedef struct wn_blk {
    int64_t disp;
    uint64_t len;
} wn_blk;

typedef struct wn_rep {
    uint32_t magic, seq;
    int32_t status;   /* MPI error class */
    int32_t granted;  /* LOCK */
} wn_rep;

/* A request being received at the target (its blocks or operand still arriving). */
typedef struct wn_pending {
    MPI_Win w;
    int src;          /* window rank of the origin */
    int waiting;      /* receives outstanding */
    int failed;       /* 0, or the MPI error class to answer with once everything is here */
    wn_hdr h;
    wn_blk *blk;
    unsigned char *data;
} wn_pending;

static char why[256]; /* win_net_reason */

const char *win_net_reason(void)
{
    return why[0] ? why : "no error";
}

static int fail(int rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return rc;
}

static int job_of(MPI_Win w, int r)
{
    return w->comm->world_of[r];
}

/* ---- the target's side ---- */

static const MPI_Op wn_ops[OP_PREDEF_COUNT] = {
    MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND, MPI_LOR,
    MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP,
};

/* The size of basic element `basic` as the accumulate kernels see it (a predefined type of that
 * basic type), 0 if none is known. */
static size_t basic_size(int basic)
{
    static const MPI_Datatype known[] = {
        MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_SHORT, MPI_UNSIGNED_SHORT, MPI_INT,
        MPI_UNSIGNED, MPI_LONG, MPI_UNSIGNED_LONG, MPI_LONG_LONG, MPI_UNSIGNED_LONG_LONG, MPI_WCHAR,
        MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T,
        MPI_UINT64_T, MPI_INTEGER16, MPI_AINT, MPI_OFFSET, MPI_COUNT, MPI_BYTE, MPI_C_BOOL,
        MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
        MPI_C_LONG_DOUBLE_COMPLEX, MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT,
        MPI_SHORT_INT, MPI_LONG_DOUBLE_INT, MPI_2REAL, MPI_2DOUBLE_PRECISION,
    };
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        if (known[i]->basic == basic && known[i]->elem_size > 0)
            return known[i]->elem_size;
    return 0;
}

/* Checks a request's header against its kind and this window: 0 or an MPI error class (why set).
 * The blocks are checked by check_blocks once they are here. */
static int check_hdr(MPI_Win w, const wn_hdr *h)
{
    if (h->kind < WN_PUT || h->kind >= WN_KIND_END)
        return fail(MPI_ERR_OTHER, "unknown request kind %u", h->kind);
    if (h->kind == WN_LOCK || h->kind == WN_UNLOCK)
        return h->lock == WL_SHARED || h->lock == WL_EXCL
                   ? MPI_SUCCESS
                   : fail(MPI_ERR_LOCKTYPE, "lock type %u", h->lock);
    if (h->kind == WN_DYNQ) /* addr and count (bytes) are only compared with the regions */
        return w->flavor == MPI_WIN_FLAVOR_DYNAMIC && h->dlen == 0
                   ? MPI_SUCCESS
                   : fail(MPI_ERR_RMA_FLAVOR, "region lookup on a window that is not dynamic");
    if (h->nblocks < 1 || h->nblocks > WN_MAX_BLOCKS || h->count < 1 || h->count > INT_MAX ||
        h->esize < 1 || h->esize > (uint64_t)WN_MAX_SPAN || h->extent < -WN_MAX_SPAN ||
        h->extent > WN_MAX_SPAN || h->addr < -((int64_t)1 << 62) || h->addr > ((int64_t)1 << 62) ||
        h->nblocks > h->esize)
        return fail(MPI_ERR_OTHER, "malformed request (%llu blocks, count %llu, element %llu B)",
                    (unsigned long long)h->nblocks, (unsigned long long)h->count,
                    (unsigned long long)h->esize);
    uint64_t bytes;
    if (__builtin_mul_overflow(h->count, h->esize, &bytes) || bytes > (uint64_t)WN_MAX_SPAN)
        return fail(MPI_ERR_OTHER, "request of more than 2^50 bytes");
    /* Bytes the request can touch: the window, or the attached regions of a dynamic one. */
    uint64_t room = (uint64_t)w->my_size;
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        room = 0;
        for (int i = 0; i < w->nregions; i++)
            if ((uint64_t)w->regions[i].size > room)
                room = (uint64_t)w->regions[i].size;
    }
    if (bytes > room)
        return fail(MPI_ERR_RMA_RANGE, "%llu bytes do not fit in the target's %llu",
                    (unsigned long long)bytes, (unsigned long long)room);
    uint64_t want = 0;
    int combine = 0;
    switch (h->kind) {
    case WN_PUT: want = bytes; break;
    case WN_GET: want = 0; break;
    case WN_CAS:
        if (bytes > 64 || h->count != 1)
            return fail(MPI_ERR_TYPE, "compare and swap of %llu bytes", (unsigned long long)bytes);
        want = 2 * bytes;
        break;
    case WN_ACC:
    case WN_GACC:
        if (h->op >= OP_PREDEF_COUNT)
            return fail(MPI_ERR_OP, "op %u", h->op);
        want = h->op == OP_NO_OP ? 0 : bytes;
        combine = h->op != OP_REPLACE && h->op != OP_NO_OP;
        break;
    }
    if (h->dlen != want)
        return fail(MPI_ERR_OTHER, "operand of %llu bytes where %llu belong",
                    (unsigned long long)h->dlen, (unsigned long long)want);
    if (combine) {
        if (h->basic <= B_NONE || h->basic >= B_COUNT_OF)
            return fail(MPI_ERR_TYPE, "basic type %d", h->basic);
        size_t bs = basic_size(h->basic);
        if (bs == 0 || bs != h->basic_size || bytes % bs != 0)
            return fail(MPI_ERR_TYPE, "basic element of %llu bytes",
                        (unsigned long long)h->basic_size);
        struct credo_datatype b = {.magic = DT_MAGIC,
                                   .flags = DT_F_PREDEF | DT_F_COMMITTED | DT_F_DENSE,
                                   .basic = h->basic};
        int rc = op_check(wn_ops[h->op], &b);
        if (rc != MPI_SUCCESS)
            return fail(rc, "%s is not defined on the target's basic type", op_name(wn_ops[h->op]));
    }
    return MPI_SUCCESS;
}

/* Checks the blocks and sets *mem to where the footprint's element 0 starts in this process. */
static int check_blocks(MPI_Win w, const wn_hdr *h, const wn_blk *b, unsigned char **mem)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    uint64_t sum = 0;
    for (uint64_t i = 0; i < h->nblocks; i++) {
        if (b[i].len < 1 || b[i].len > (uint64_t)WN_MAX_SPAN || b[i].disp < -WN_MAX_SPAN ||
            b[i].disp > WN_MAX_SPAN)
            return fail(MPI_ERR_OTHER, "malformed block %llu", (unsigned long long)i);
        sum += b[i].len;
        if (b[i].disp < lo)
            lo = b[i].disp;
        if (b[i].disp + (int64_t)b[i].len > hi)
            hi = b[i].disp + (int64_t)b[i].len;
    }
    if (sum != h->esize)
        return fail(MPI_ERR_OTHER, "blocks of %llu bytes for elements of %llu",
                    (unsigned long long)sum, (unsigned long long)h->esize);
    /* every byte touched lies in [addr + lo', addr + hi'); each term is bounded (check_hdr, above)
     * but their combination is checked */
    int64_t last, a = h->addr;
    if (__builtin_mul_overflow((int64_t)(h->count - 1), h->extent, &last) ||
        __builtin_add_overflow(last < 0 ? lo : hi, last, last < 0 ? &lo : &hi) ||
        __builtin_add_overflow(a, lo, &(int64_t){0}) || __builtin_add_overflow(a, hi, &(int64_t){0}))
        return fail(MPI_ERR_RMA_RANGE, "the request's footprint overflows");
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        uintptr_t from = (uintptr_t)(a + lo), to = (uintptr_t)(a + hi);
        for (int i = 0; i < w->nregions; i++)
            if (from >= w->regions[i].base && to <= w->regions[i].base + (uintptr_t)w->regions[i].size &&
                from <= to) {
                *mem = (unsigned char *)(uintptr_t)a;
                return MPI_SUCCESS;
            }
        return fail(MPI_ERR_RMA_RANGE, "address %#llx (%lld bytes) is not attached at the target",
                    (unsigned long long)(a + lo), (long long)(hi - lo));
    }
    if (a + lo < 0 || a + hi > (int64_t)w->my_size)
        return fail(MPI_ERR_RMA_RANGE, "bytes %lld to %lld are outside the target's window of %ld",
                    (long long)(a + lo), (long long)(a + hi), (long)w->my_size);
    *mem = (unsigned char *)w->base + a;
    return MPI_SUCCESS;
}

/* Between the footprint at mem and packed bytes: to = 1 scatters packed into it, else gathers. */
static void scatter_gather(const wn_hdr *h, const wn_blk *b, unsigned char *mem,
                           unsigned char *packed, int to)
{
    size_t pos = 0;
    for (uint64_t i = 0; i < h->count; i++) {
        unsigned char *el = mem + (int64_t)i * h->extent;
        for (uint64_t k = 0; k < h->nblocks; k++) {
            if (to)
                memcpy(el + b[k].disp, packed + pos, b[k].len);
            else
                memcpy(packed + pos, el + b[k].disp, b[k].len);
            pos += b[k].len;
        }
    }
}

/* fn runs once r is complete: now, or from progress as r's hook; upper is r's. */
static void when_done(p2p_req *r, void *upper, p2p_complete_fn fn)
{
    r->upper = upper;
    if (r->done)
        fn(r);
    else
        r->on_complete = fn;
}

static void reply_sent(p2p_req *r)
{
    free(r->upper);
    p2p_req_free(r);
}

/* Sends the answer: status, then `len` fetched bytes from `fetched`. */
static void reply(MPI_Win w, int src, uint32_t seq, int status, int granted, const void *fetched,
                  size_t len)
{
    wn_rep *r = malloc(sizeof *r + len);
    if (r == NULL)
        credo_abort(MPI_ERR_NO_MEM, "one-sided request of rank %d: out of memory for the answer",
                    src);
    *r = (wn_rep){WN_REP_MAGIC, seq, status, granted};
    if (len)
        memcpy(r + 1, fetched, len);
    p2p_req *s = NULL;
    if (p2p_isend(r, sizeof *r + len, job_of(w, src), WN_TAG_REP | (int)(seq & WN_SEQ_MASK),
                  w->comm->ctx, P2P_MODE_STANDARD, &s) != P2P_OK)
        credo_abort(MPI_ERR_NO_MEM, "one-sided request of rank %d: cannot send the answer", src);
    when_done(s, r, reply_sent);
}

/* The lock word of this rank for origin src: 1 taken, 0 held by others. Never waits. */
static int lock_try(MPI_Win w, int src, int type)
{
    _Atomic uint32_t *l = &w->ctl[w->rank].rw;
    uint32_t v = atomic_load_explicit(l, memory_order_relaxed);
    for (;;) {
        if (type == WL_EXCL ? v != 0 : (v & WIN_WRITER) != 0)
            return 0;
        /* acquire: what the previous holder wrote happens before what the origin will do */
        if (atomic_compare_exchange_weak_explicit(l, &v, type == WL_EXCL ? WIN_WRITER : v + 1,
                                                  memory_order_acquire, memory_order_relaxed)) {
            w->remote_held[src] = (uint8_t)type;
            return 1;
        }
    }
}

static int unlock_for(MPI_Win w, int src, int type)
{
    if (w->remote_held[src] != type)
        return fail(MPI_ERR_RMA_SYNC, "rank %d does not hold a%s lock here", src,
                    type == WL_EXCL ? "n exclusive" : " shared");
    w->remote_held[src] = WL_NONE;
    /* release: the origin's operations (applied here, or written into our memory, before the
     * unlock arrived) happen before the next holder's */
    if (type == WL_EXCL)
        atomic_store_explicit(&w->ctl[w->rank].rw, 0, memory_order_release);
    else
        atomic_fetch_sub_explicit(&w->ctl[w->rank].rw, 1, memory_order_release);
    return MPI_SUCCESS;
}

/* Serves one complete request (header checked, blocks and operand here) and answers it. */
static void serve(MPI_Win w, int src, const wn_hdr *h, const wn_blk *b, unsigned char *data)
{
    int rc = MPI_SUCCESS, granted = 0;
    unsigned char *mem = NULL, *old = NULL;
    size_t bytes = 0, rlen = 0;
    uint64_t region[4] = {0, 0, 0, 0};
    if (h->kind == WN_LOCK) {
        granted = lock_try(w, src, h->lock);
    } else if (h->kind == WN_DYNQ) {
        /* the registered region that holds [addr, addr + count): its key for the origin's RMA */
        uint64_t a = (uint64_t)h->addr, e;
        for (int i = 0; i < w->nregions && !granted; i++) {
            const win_region *g = &w->regions[i];
            if (g->mr != NULL && !__builtin_add_overflow(a, h->count, &e) && a >= g->base &&
                e <= g->base + (uint64_t)g->size) {
                region[0] = g->base, region[1] = (uint64_t)g->size;
                region[2] = g->key, region[3] = g->raddr;
                granted = 1;
            }
        }
        /* always answered with a region (zeros: none holds it) */
        if ((old = malloc(sizeof region)) != NULL) {
            memcpy(old, region, sizeof region);
            rlen = sizeof region;
        } else {
            rc = fail(MPI_ERR_NO_MEM, "out of memory at the target");
        }
    } else if (h->kind == WN_UNLOCK) {
        rc = unlock_for(w, src, h->lock);
    } else if ((rc = check_blocks(w, h, b, &mem)) == MPI_SUCCESS) {
        bytes = (size_t)(h->count * h->esize);
        int fetch = h->kind == WN_GET || h->kind == WN_GACC || h->kind == WN_CAS;
        int combine = (h->kind == WN_ACC || h->kind == WN_GACC) && h->op != OP_REPLACE &&
                      h->op != OP_NO_OP;
        if (fetch || combine) {
            old = malloc(bytes);
            if (old == NULL)
                rc = fail(MPI_ERR_NO_MEM, "out of memory at the target");
        }
        if (rc == MPI_SUCCESS) {
            rlen = fetch ? bytes : 0;
            int locked = h->kind != WN_PUT && h->kind != WN_GET;
            if (locked)
                win_acc_lock_hook(w, w->rank);
            if (fetch || combine)
                scatter_gather(h, b, mem, old, 0);
            switch (h->kind) {
            case WN_PUT: scatter_gather(h, b, mem, data, 1); break;
            case WN_GET: break;
            case WN_CAS:
                if (memcmp(old, data + bytes, bytes) == 0)
                    scatter_gather(h, b, mem, data, 1);
                break;
            default:
                if (h->op == OP_REPLACE) {
                    scatter_gather(h, b, mem, data, 1);
                } else if (combine) {
                    /* old op= operand; the fetched value must stay the old one */
                    unsigned char *res = fetch ? malloc(bytes) : old;
                    if (res == NULL) {
                        rc = fail(MPI_ERR_NO_MEM, "out of memory at the target");
                        break;
                    }
                    if (res != old)
                        memcpy(res, old, bytes);
                    rc = win_apply_packed(wn_ops[h->op], data, res, bytes, h->basic,
                                          (size_t)h->basic_size);
                    if (rc == MPI_SUCCESS)
                        scatter_gather(h, b, mem, res, 1);
                    if (res != old)
                        free(res);
                }
                break;
            }
            if (locked)
                win_acc_unlock(w, w->rank);
        }
    }
    reply(w, src, h->seq, rc, granted, rc == MPI_SUCCESS ? old : NULL, rc == MPI_SUCCESS ? rlen : 0);
    free(old);
}

static void pending_done(wn_pending *p)
{
    if (!p->failed)
        serve(p->w, p->src, &p->h, p->blk, p->data);
    else
        reply(p->w, p->src, p->h.seq, p->failed, 0, NULL, 0);
    free(p->blk);
    free(p->data);
    free(p);
}

static void part_arrived(p2p_req *r)
{
    wn_pending *p = r->upper;
    if ((r->status.error != P2P_OK || r->status.cancelled) && !p->failed)
        p->failed = fail(MPI_ERR_OTHER, "a part of rank %d's request did not arrive whole", p->src);
    p2p_req_free(r);
    if (--p->waiting == 0)
        pending_done(p);
}

/* Receives one following message of a request into buf. */
static void expect(wn_pending *p, void *buf, size_t len, int tag)
{
    p2p_req *r = NULL;
    if (p2p_irecv(buf, len, job_of(p->w, p->src), tag | (int)(p->h.seq & WN_SEQ_MASK),
                  p->w->comm->ctx, &r) != P2P_OK)
        credo_abort(MPI_ERR_NO_MEM, "one-sided request of rank %d: cannot post a receive", p->src);
    p->waiting++;
    when_done(r, p, part_arrived);
}

/* A request's first message (len bytes in w->am_buf, from job rank job) arrived. */
static void take(MPI_Win w, int job, size_t len)
{
    int src = job >= 0 && job < credo_mpi.job_size ? w->comm->comm_of[job] : -1;
    if (src < 0)
        credo_abort(MPI_ERR_INTERN, "one-sided request from job rank %d, not in the window", job);
    wn_hdr h;
    if (len < sizeof h)
        credo_abort(MPI_ERR_INTERN, "one-sided request of %zu bytes from rank %d: shorter than a header",
                    len, src);
    memcpy(&h, w->am_buf, sizeof h);
    if (h.magic != WN_MAGIC)
        credo_abort(MPI_ERR_INTERN, "one-sided request from rank %d: bad magic %#x", src, h.magic);
    int rc = check_hdr(w, &h);
    int lockish = h.kind == WN_LOCK || h.kind == WN_UNLOCK || h.kind == WN_DYNQ;
    size_t blen = lockish ? 0 : (size_t)h.nblocks * sizeof(wn_blk);
    if (rc == MPI_SUCCESS && !(h.flags & WN_F_SEP) && len != sizeof h + blen + h.dlen)
        rc = fail(MPI_ERR_OTHER, "request of %zu bytes, its header says %zu", len,
                  sizeof h + blen + (size_t)h.dlen);
    if (rc == MPI_SUCCESS && (h.flags & WN_F_SEP) && len != sizeof h)
        rc = fail(MPI_ERR_OTHER, "split request of %zu bytes", len);
    if (rc != MPI_SUCCESS && !(h.flags & WN_F_SEP)) {
        reply(w, src, h.seq, rc, 0, NULL, 0);
        return;
    }
    wn_pending *p = calloc(1, sizeof *p);
    if (p == NULL)
        credo_abort(MPI_ERR_NO_MEM, "one-sided request of rank %d: out of memory", src);
    p->w = w;
    p->src = src;
    p->h = h;
    p->failed = rc;
    if (rc != MPI_SUCCESS) {
        /* A split request refused: its other messages are on their way all the same; they are
         * received into nothing (truncated, so consumed), and then the refusal is answered. */
        static unsigned char sink;
        p->waiting = 1;
        if (!lockish && h.nblocks > 0)
            expect(p, &sink, 0, WN_TAG_BLK);
        if (h.dlen > 0)
            expect(p, &sink, 0, WN_TAG_DATA);
        if (--p->waiting == 0)
            pending_done(p);
        return;
    }
    if (blen > 0 && (p->blk = malloc(blen)) == NULL)
        credo_abort(MPI_ERR_NO_MEM, "one-sided request of rank %d: out of memory", src);
    if (h.dlen > 0 && (p->data = malloc((size_t)h.dlen)) == NULL)
        credo_abort(MPI_ERR_NO_MEM, "one-sided request of rank %d: out of memory", src);
    if (h.flags & WN_F_SEP) {
        p->waiting = 1; /* held until both receives are posted */
        if (blen > 0)
            expect(p, p->blk, blen, WN_TAG_BLK);
        if (h.dlen > 0)
            expect(p, p->data, (size_t)h.dlen, WN_TAG_DATA);
        if (--p->waiting == 0)
            pending_done(p);
        return;
    }
    if (blen > 0)
        memcpy(p->blk, w->am_buf + sizeof h, blen);
    if (h.dlen > 0)
        memcpy(p->data, w->am_buf + sizeof h + blen, (size_t)h.dlen);
    pending_done(p);
}

static void listen_hook(p2p_req *r);

/* Posts the listening receive; a request already waiting is served at once (a loop, not a
 * recursion, however many are queued). */
static int listen_post(MPI_Win w)
{
    while (!w->closing) {
        p2p_req *r = NULL;
        if (p2p_irecv(w->am_buf, WN_REQ_MAX, P2P_ANY_SOURCE, WN_TAG_REQ, w->comm->ctx, &r) != P2P_OK)
            return MPI_ERR_NO_MEM;
        if (!r->done) {
            r->upper = w;
            r->on_complete = listen_hook;
            w->am_listen = r;
            return MPI_SUCCESS;
        }
        int job = r->status.source, err = r->status.error;
        size_t len = r->status.bytes;
        p2p_req_free(r);
        if (err != P2P_OK)
            credo_abort(MPI_ERR_INTERN, "one-sided request from job rank %d: longer than %d bytes",
                        job, WN_REQ_MAX);
        take(w, job, len);
    }
    return MPI_SUCCESS;
}

static void listen_hook(p2p_req *r)
{
    MPI_Win w = r->upper;
    w->am_listen = NULL;
    int job = r->status.source, err = r->status.error, cancelled = r->status.cancelled;
    size_t len = r->status.bytes;
    p2p_req_free(r); /* inside its own hook: p2p releases it right after */
    if (cancelled)
        return;
    if (err != P2P_OK)
        credo_abort(MPI_ERR_INTERN, "one-sided request from job rank %d: longer than %d bytes", job,
                    WN_REQ_MAX);
    take(w, job, len);
    if (listen_post(w) != MPI_SUCCESS)
        credo_abort(MPI_ERR_NO_MEM, "one-sided requests: cannot post the listening receive");
}

int win_net_listen(MPI_Win w)
{
    if (w->am_buf == NULL && (w->am_buf = malloc(WN_REQ_MAX)) == NULL)
        return MPI_ERR_NO_MEM;
    return listen_post(w);
}

void win_net_stop(MPI_Win w)
{
    w->closing = 1;
    while (w->am_listen != NULL) {
        p2p_req *r = w->am_listen;
        if (!p2p_cancel(r))
            p2p_wait(r); /* matched after all: served by its hook, which posts no other */
    }
}

/* ---- the origin's side ---- */

/* The target datatype's blocks for count elements: one block and one element of count * size
 * bytes for a dense type; the type's own blocks (empty ones left out) otherwise. */
static wn_blk *blocks_of(int count, MPI_Datatype dt, wn_hdr *h, wn_blk *one)
{
    if (dt->flags & DT_F_DENSE) {
        one->disp = (int64_t)dt->lb;
        one->len = (uint64_t)count * dt->size;
        h->nblocks = 1;
        h->count = 1;
        h->extent = (int64_t)one->len;
        h->esize = one->len;
        return one;
    }
    wn_blk *b = malloc((size_t)dt->nblocks * sizeof *b);
    if (b == NULL)
        return NULL;
    uint64_t n = 0;
    for (int i = 0; i < dt->nblocks; i++)
        if (dt->blocks[i].len > 0)
            b[n++] = (wn_blk){(int64_t)dt->blocks[i].disp, (uint64_t)dt->blocks[i].len};
    h->nblocks = n;
    h->count = (uint64_t)count;
    h->extent = (int64_t)dt->extent;
    h->esize = dt->size;
    return b;
}

int win_net_request(MPI_Win w, int t, int kind, MPI_Op op, const void *data, size_t dlen, int count,
                    MPI_Datatype tdt, MPI_Aint disp, void *result, size_t rlen, int lock,
                    int *granted)
{
    wn_hdr h = {.magic = WN_MAGIC, .kind = (uint8_t)kind, .lock = (uint8_t)lock};
    wn_blk one, *blk = NULL;
    h.seq = ++w->am_seq;
    h.addr = (int64_t)disp;
    h.dlen = dlen;
    if (kind == WN_DYNQ) {
        h.count = (uint64_t)count; /* bytes of the footprint at disp */
    } else if (kind != WN_LOCK && kind != WN_UNLOCK) {
        if ((blk = blocks_of(count, tdt, &h, &one)) == NULL)
            return fail(MPI_ERR_NO_MEM, "out of memory");
        h.basic = tdt->basic;
        h.basic_size = tdt->elem_size;
        h.op = op != NULL ? (uint8_t)op->id : 0;
    }
    size_t blen = (size_t)h.nblocks * sizeof(wn_blk);
    int sep = sizeof h + blen + dlen > WN_REQ_MAX;
    h.flags = sep ? WN_F_SEP : 0;
    size_t first = sep ? sizeof h : sizeof h + blen + dlen;
    unsigned char *msg = malloc(first);
    wn_rep *rep = malloc(sizeof *rep + rlen);
    int rc = MPI_SUCCESS;
    if (msg == NULL || rep == NULL) {
        rc = fail(MPI_ERR_NO_MEM, "out of memory");
        goto out;
    }
    memcpy(msg, &h, sizeof h);
    if (!sep) {
        if (blen)
            memcpy(msg + sizeof h, blk, blen);
        if (dlen)
            memcpy(msg + sizeof h + blen, data, dlen);
    }
    int job = job_of(w, t), tag = (int)(h.seq & WN_SEQ_MASK);
    uint32_t ctx = w->comm->ctx;
    p2p_req *rr = NULL, *s[3] = {NULL, NULL, NULL};
    /* the answer's receive first: it may come before our sends complete */
    if (p2p_irecv(rep, sizeof *rep + rlen, job, WN_TAG_REP | tag, ctx, &rr) != P2P_OK ||
        p2p_isend(msg, first, job, WN_TAG_REQ, ctx, P2P_MODE_STANDARD, &s[0]) != P2P_OK ||
        (sep && blen && p2p_isend(blk, blen, job, WN_TAG_BLK | tag, ctx, P2P_MODE_STANDARD, &s[1]) != P2P_OK) ||
        (sep && dlen && p2p_isend(data, dlen, job, WN_TAG_DATA | tag, ctx, P2P_MODE_STANDARD, &s[2]) != P2P_OK))
        /* p2p fails only for memory; nothing half-sent can be taken back, so this is fatal */
        credo_abort(MPI_ERR_NO_MEM, "one-sided request to rank %d: out of memory", t);
    for (int i = 0; i < 3; i++)
        if (s[i] != NULL) {
            p2p_wait(s[i]);
            p2p_req_free(s[i]);
        }
    p2p_wait(rr);
    int st = rr->status.error;
    size_t got = rr->status.bytes;
    p2p_req_free(rr);
    w->net_ops++;
    if (st != P2P_OK || got < sizeof *rep || rep->magic != WN_REP_MAGIC || rep->seq != h.seq) {
        rc = fail(MPI_ERR_INTERN, "malformed answer from rank %d (%zu bytes)", t, got);
        goto out;
    }
    if (rep->status != MPI_SUCCESS) {
        /* the class the target found, and its reason was printed there? no: say what it was */
        rc = rep->status > 0 && rep->status <= MPI_ERR_LASTCODE ? rep->status : MPI_ERR_OTHER;
        fail(rc, "rank %d refused the request (error class %d)", t, rep->status);
        goto out;
    }
    if (got != sizeof *rep + rlen) {
        rc = fail(MPI_ERR_INTERN, "answer of %zu bytes from rank %d, %zu expected", got, t,
                  sizeof *rep + rlen);
        goto out;
    }
    if (rlen)
        memcpy(result, rep + 1, rlen);
    if (granted)
        *granted = rep->granted != 0;
out:
    free(msg);
    free(rep);
    if (blk != &one)
        free(blk);
    return rc;
}

/* Whether RMA would cut count elements of tdt into too many small pieces: each is one operation
 * and xofi_rma_sync keeps 16 in flight, while one request moves the packed bytes in a message (its
 * rendezvous pulls 512 KiB chunks) and the target scatters them itself. Seen: mpit_rma_stress seed
 * 4769200650747476208 at np 2 over loaded loopback TCP spent 20 s in its MPI_Win_create rounds with
 * RMA for every type (large vectors of bytes: pieces of 1-4 bytes); the whole run took 1.5-2.1 s
 * with requests for such types. RMA when there are at most 16 pieces, or they average 64 KiB or more. */
static int fragmented(int count, MPI_Datatype tdt)
{
    if (tdt->flags & DT_F_DENSE)
        return 0;
    size_t pieces = (size_t)count * (size_t)tdt->nblocks, bytes = (size_t)count * tdt->size;
    return pieces > 16 && bytes / pieces < ((size_t)64 << 10);
}

/* RMA of count elements of tdt whose element 0 starts at (base, key) of t's registered memory. */
static int rma_at(MPI_Win w, int t, int write, void *packed, int count, MPI_Datatype tdt,
                  uint64_t base, uint64_t key)
{
    static int no_writes; /* the provider has no delivery-complete writes: requests instead */
    if (write && no_writes)
        return MPI_ERR_UNSUPPORTED_OPERATION;
    enum { BATCH = 256 };
    xofi_rma_piece pc[BATCH];
    size_t n = 0;
    unsigned char *p = packed;
    int dense = (tdt->flags & DT_F_DENSE) != 0;
    int nb = dense ? 1 : tdt->nblocks, items = dense ? 1 : count;
    int job = job_of(w, t), rc = 0;
    for (int i = 0; i < items && rc == 0; i++)
        for (int b = 0; b < nb && rc == 0; b++) {
            uint64_t a = dense ? base + (uint64_t)tdt->lb
                               : base + (uint64_t)((MPI_Aint)i * tdt->extent + tdt->blocks[b].disp);
            size_t len = dense ? (size_t)count * tdt->size : tdt->blocks[b].len;
            if (len == 0)
                continue;
            if (n > 0 && pc[n - 1].raddr + pc[n - 1].len == a) {
                pc[n - 1].len += len;
            } else {
                if (n == BATCH) {
                    rc = xofi_rma_sync(job, write, pc, n, key);
                    n = 0;
                }
                pc[n++] = (xofi_rma_piece){p, len, a};
            }
            p += len;
        }
    if (rc == 0 && n > 0)
        rc = xofi_rma_sync(job, write, pc, n, key);
    w->net_ops++;
    /* refused at its first write (xofi_rma_sync: the provider's answer to FI_DELIVERY_COMPLETE),
     * so nothing was written */
    if (rc == -ENOTSUP && write) {
        no_writes = 1;
        return MPI_ERR_UNSUPPORTED_OPERATION;
    }
    if (rc == -EPIPE) /* p2p's operation failed: what p2p would do, it being unable to see it */
        credo_abort(1, "the network transport failed during a one-sided operation with rank %d: %s", t,
                    xofi_last_error());
    if (rc != 0)
        return fail(MPI_ERR_OTHER, "%s", xofi_last_error());
    return MPI_SUCCESS;
}

int win_net_rma(MPI_Win w, int t, int write, void *packed, int count, MPI_Datatype tdt, MPI_Aint off)
{
    if (fragmented(count, tdt))
        return MPI_ERR_UNSUPPORTED_OPERATION;
    return rma_at(w, t, write, packed, count, tdt, w->peer[t].raddr + (uint64_t)off, w->peer[t].key);
}

int win_net_rma_dyn(MPI_Win w, int t, int write, void *packed, int count, MPI_Datatype tdt,
                    MPI_Aint addr)
{
    if (w->dyn == NULL || !xofi_win_keys_stable() || fragmented(count, tdt))
        return MPI_ERR_UNSUPPORTED_OPERATION;
    /* the bytes touched: [lo, lo + span) (check_target's arithmetic) */
    uint64_t lo = (uint64_t)addr + (uint64_t)tdt->true_lb, span = dt_span(tdt, (size_t)count);
    win_dyn *d = &w->dyn[t];
    int i = 0;
    while (i < d->n && !(lo >= d->e[i].base && lo + span <= d->e[i].base + d->e[i].size))
        i++;
    if (i == d->n) {
        uint64_t r[4], end;
        int found = 0;
        if (span > INT_MAX)
            return MPI_ERR_UNSUPPORTED_OPERATION;
        int rc = win_net_request(w, t, WN_DYNQ, NULL, NULL, 0, (int)span, NULL, (MPI_Aint)lo, r,
                                 sizeof r, 0, &found);
        /* none holds it (the request path then says what is wrong), or an answer that does not
         * hold what was asked for */
        if (rc != MPI_SUCCESS || !found || __builtin_add_overflow(r[0], r[1], &end) || lo < r[0] ||
            lo + span > end)
            return MPI_ERR_UNSUPPORTED_OPERATION;
        i = d->n < WIN_DYN_CACHE ? d->n++ : d->next++ % WIN_DYN_CACHE;
        d->e[i].base = r[0], d->e[i].size = r[1], d->e[i].key = r[2], d->e[i].raddr = r[3];
    }
    return rma_at(w, t, write, packed, count, tdt, d->e[i].raddr + ((uint64_t)addr - d->e[i].base),
                  d->e[i].key);
}

int win_net_lock(MPI_Win w, int t, int exclusive)
{
    unsigned spins = 0;
    for (;;) {
        int granted = 0;
        int rc = win_net_request(w, t, WN_LOCK, NULL, NULL, 0, 0, NULL, 0, NULL, 0,
                                 exclusive ? WL_EXCL : WL_SHARED, &granted);
        if (rc != MPI_SUCCESS || granted)
            return rc;
        /* held by others: keep the engine moving a little before asking again */
        for (int i = 0; i < 16; i++)
            win_spin(&spins);
    }
}

int win_net_unlock(MPI_Win w, int t, int state)
{
    return win_net_request(w, t, WN_UNLOCK, NULL, NULL, 0, 0, NULL, 0, NULL, 0,
                           state & WL_EXCL ? WL_EXCL : WL_SHARED, NULL);
}
