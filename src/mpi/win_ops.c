/* src/mpi/win_ops.c — the RMA calls (Put, Get, accumulates, Fetch_and_op, Compare_and_swap, the
 * request forms): each one is complete when it returns, moved by the origin itself (shared memory,
 * CMA, network RMA) or, for a network target, applied by the target on request (win_net.c). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "mpi/op.h"
#include "mpi/win_impl.h"
#include "xport/copy.h"

/* ---- reaching a target's memory ----
 * Allocate flavors and the origin itself: plain loads and stores through this process' address
 * (the shared mapping, or its own memory). Create and dynamic windows of another process: Cross
 * Memory Attach, one remote iovec per contiguous block of the target type. Either way the origin
 * side of a transfer is a packed (contiguous) buffer. */

static int tgt_local(const MPI_Win w, int t)
{
    return t == w->rank || w->flavor == MPI_WIN_FLAVOR_ALLOCATE ||
           w->flavor == MPI_WIN_FLAVOR_SHARED;
}

/* A target reached over the network (never this rank itself). */
static int tgt_net(const MPI_Win w, int t)
{
    return w->peer[t].net;
}

enum { IOV_BATCH = 1024 }; /* UIO_MAXIOV: the most one process_vm_* call takes */

/* One process_vm_* call: the `batch` packed bytes at p against the nr remote pieces. */
static int cma_batch(pid_t pid, int write, char *p, size_t batch, const struct iovec *rem, int nr)
{
    struct iovec loc = {p, batch};
    ssize_t n = write ? process_vm_writev(pid, &loc, 1, rem, (unsigned long)nr, 0)
                      : process_vm_readv(pid, &loc, 1, rem, (unsigned long)nr, 0);
    return n == (ssize_t)batch ? 0 : n < 0 ? errno : EFAULT;
}

/* Moves count elements of dt at addr in process pid to (write: from) the packed buffer buf,
 * adjacent blocks merged into one remote piece. 0 or the errno of the failing call. */
static int cma_xfer(pid_t pid, int write, void *buf, int count, MPI_Datatype dt, uintptr_t addr)
{
    struct iovec rem[IOV_BATCH];
    int nr = 0, e;
    size_t batch = 0;
    char *p = buf;
    int dense = (dt->flags & DT_F_DENSE) != 0;
    int nb = dense ? 1 : dt->nblocks;
    int items = dense ? 1 : count;
    for (int i = 0; i < items; i++) {
        for (int b = 0; b < nb; b++) {
            uintptr_t a = dense ? addr + (uintptr_t)dt->lb
                                : addr + (uintptr_t)((MPI_Aint)i * dt->extent + dt->blocks[b].disp);
            size_t len = dense ? (size_t)count * dt->size : dt->blocks[b].len;
            if (len == 0)
                continue;
            if (nr > 0 && (uintptr_t)rem[nr - 1].iov_base + rem[nr - 1].iov_len == a) {
                rem[nr - 1].iov_len += len;
                batch += len;
                continue;
            }
            if (nr == IOV_BATCH) {
                if ((e = cma_batch(pid, write, p, batch, rem, nr)) != 0)
                    return e;
                p += batch;
                nr = 0;
                batch = 0;
            }
            rem[nr++] = (struct iovec){(void *)a, len};
            batch += len;
        }
    }
    return nr > 0 ? cma_batch(pid, write, p, batch, rem, nr) : 0;
}

/* Packed bytes of the target region <- target (get) or -> target (put): 0 or an MPI error class,
 * reported by the caller. */
static int tgt_move(MPI_Win w, int t, int write, void *packed, int count, MPI_Datatype dt,
                    uintptr_t addr)
{
    if (tgt_local(w, t)) {
        if (write)
            dt_unpack(packed, (size_t)count * dt->size, (size_t)count, dt, (void *)addr);
        else
            dt_pack((const void *)addr, (size_t)count, dt, packed);
        return MPI_SUCCESS;
    }
    int e = cma_xfer(w->peer[t].pid, write, packed, count, dt, addr);
    return e == 0 ? MPI_SUCCESS : e == EFAULT ? MPI_ERR_RMA_RANGE : MPI_ERR_OTHER;
}

static int move_error(MPI_Win w, int rc, const char *fn, int t)
{
    if (tgt_net(w, t) && rc != MPI_ERR_RMA_RANGE)
        return win_error(w, rc, fn, "one-sided operation with rank %d over the network: %s", t,
                         win_net_reason());
    return win_error(w, rc, fn, rc == MPI_ERR_RMA_RANGE
                                    ? "target memory of rank %d is not mapped (dynamic window: not "
                                      "attached?)"
                                    : "Cross Memory Attach to rank %d failed",
                     t);
}

/* Staging buffers for the packed forms: one per role, kept by the window and only grown, since
 * fresh memory for every call of a few MiB costs more in page faults than the copy itself. */
enum { WS_IN, WS_OLD, WS_RES };

static void *scratch(MPI_Win w, int i, size_t n)
{
    if (n > w->scratch_len[i]) {
        void *p = realloc(w->scratch[i], n);
        if (p == NULL)
            return NULL;
        w->scratch[i] = p;
        w->scratch_len[i] = n;
    }
    return w->scratch[i];
}

/* The origin's data as packed bytes: the buffer itself for a dense type, else a staged copy. */
static const void *packed_in(MPI_Win w, const void *buf, int count, MPI_Datatype dt)
{
    if (dt->flags & DT_F_DENSE)
        return BUF_AT(buf, dt->lb);
    void *p = scratch(w, WS_IN, (size_t)count * dt->size);
    if (p != NULL)
        dt_pack(buf, (size_t)count, dt, p);
    return p;
}

/* ---- argument checks: 0 or the raised error ---- */

static int check_buf(MPI_Win w, const char *fn, const char *what, int count, MPI_Datatype dt)
{
    if (count < 0)
        return win_error(w, MPI_ERR_COUNT, fn, "negative %s count %d", what, count);
    if (!dt_ok(dt))
        return win_error(w, MPI_ERR_TYPE, fn, "%s datatype is invalid or not committed", what);
    return MPI_SUCCESS;
}

/* Checks the target arguments and sets *addr to where the region starts (target's addresses). */
static int check_target(MPI_Win w, const char *fn, int t, MPI_Aint disp, int count,
                        MPI_Datatype dt, uintptr_t *addr)
{
    if (t < 0 || t >= w->size)
        return win_error(w, MPI_ERR_RANK, fn, "target rank %d out of range (window of %d)", t,
                         w->size);
    int rc = check_buf(w, fn, "target", count, dt);
    if (rc != MPI_SUCCESS)
        return rc;
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        /* An absolute address (MPI_Get_address). Another process' kernel refuses an unmapped one
         * (EFAULT); our own memory is copied directly, so it must lie in an attached region. */
        *addr = (uintptr_t)disp;
        size_t span = dt_span(dt, (size_t)count);
        if (t != w->rank || span == 0 || dt->size == 0)
            return MPI_SUCCESS;
        uintptr_t lo = *addr + (uintptr_t)dt->true_lb;
        for (int i = 0; i < w->nregions; i++)
            if (lo >= w->regions[i].base &&
                lo + span <= w->regions[i].base + (uintptr_t)w->regions[i].size)
                return MPI_SUCCESS;
        return win_error(w, MPI_ERR_RMA_RANGE, fn, "address %#lx (%zu bytes) is not attached",
                         (unsigned long)lo, span);
    }
    const win_peer *p = &w->peer[t];
    MPI_Aint off = disp * p->disp_unit;
    size_t span = dt_span(dt, (size_t)count);
    if (span > 0 && dt->size > 0 &&
        (off + dt->true_lb < 0 || off + dt->true_lb + (MPI_Aint)span > p->size))
        return win_error(w, MPI_ERR_RMA_RANGE, fn,
                         "displacement %ld (bytes %ld to %ld) outside rank %d's window of %ld "
                         "bytes",
                         (long)disp, (long)(off + dt->true_lb),
                         (long)(off + dt->true_lb + (MPI_Aint)span), t, (long)p->size);
    *addr = p->base + (uintptr_t)off;
    return MPI_SUCCESS;
}

/* Same type signature size on both sides (a mismatch would move a different number of bytes). */
static int check_sizes(MPI_Win w, const char *fn, const char *what, int count, MPI_Datatype dt,
                       size_t bytes)
{
    if ((size_t)count * dt->size != bytes)
        return win_error(w, MPI_ERR_TYPE, fn, "%s data is %zu bytes, target data %zu", what,
                         (size_t)count * dt->size, bytes);
    return MPI_SUCCESS;
}

/* The accumulate kernels (op.c) run over arrays of the target type's basic element: for most
 * basic types that is just the packed bytes, described to op_check/op_apply by a stand-in
 * predefined type of that basic type; the pair types of MAXLOC/MINLOC are packed without their
 * padding, so they are laid out as arrays of the real predefined pair type first. */
static MPI_Datatype pair_type(int basic)
{
    static const MPI_Datatype pairs[] = {MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT,
                                         MPI_SHORT_INT, MPI_LONG_DOUBLE_INT, MPI_2REAL,
                                         MPI_2DOUBLE_PRECISION};
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++)
        if (pairs[i]->basic == basic)
            return pairs[i];
    return NULL;
}

static struct credo_datatype basic_standin(int basic)
{
    return (struct credo_datatype){.magic = DT_MAGIC,
                                   .flags = DT_F_PREDEF | DT_F_COMMITTED | DT_F_DENSE,
                                   .basic = (int16_t)basic};
}

/* Accumulate ops: the predefined ones on their types, REPLACE and NO_OP; the target type built
 * from one basic type, the origin's of the same one (MPI 3.1 §11.3.4). Types are only looked at
 * when data moves: zero-byte accumulates of any types are no-ops. */
static int check_acc(MPI_Win w, const char *fn, MPI_Op op, MPI_Datatype odt, MPI_Datatype tdt,
                     int moving)
{
    if (!op_live(op))
        return win_error(w, MPI_ERR_OP, fn, "invalid op");
    if (op->id == OP_USER)
        return win_error(w, MPI_ERR_OP, fn, "user-defined ops cannot be used in RMA");
    if (!moving)
        return MPI_SUCCESS;
    if (tdt->basic == B_NONE)
        return win_error(w, MPI_ERR_TYPE, fn, "target datatype mixes basic types");
    if (op->id != OP_REPLACE && op->id != OP_NO_OP) {
        struct credo_datatype b = basic_standin(tdt->basic);
        int rc = op_check(op, &b);
        if (rc != MPI_SUCCESS)
            return win_error(w, rc, fn, "%s is not defined on the target datatype", op_name(op));
    }
    if (odt != NULL && odt->basic != tdt->basic)
        return win_error(w, MPI_ERR_TYPE, fn, "origin and target datatypes differ in basic type");
    return MPI_SUCCESS;
}

/* inout = in op inout over `bytes` packed bytes of the basic element `basic` (elem_size bytes
 * each); 0 or MPI_ERR_NO_MEM. */
int win_apply_packed(MPI_Op op, const void *in, void *inout, size_t bytes, int basic,
                     size_t elem_size)
{
    MPI_Datatype pt = pair_type(basic);
    if (pt == NULL) {
        struct credo_datatype b = basic_standin(basic);
        op_apply(op, in, inout, (int)(bytes / elem_size), &b);
        return MPI_SUCCESS;
    }
    size_t n = bytes / pt->size;
    void *a = malloc(n * (size_t)pt->extent), *b = malloc(n * (size_t)pt->extent);
    if (a != NULL && b != NULL) {
        dt_unpack(in, bytes, n, pt, a);
        dt_unpack(inout, bytes, n, pt, b);
        op_apply(op, a, b, (int)n, pt);
        dt_pack(b, n, pt, inout);
    }
    free(a);
    free(b);
    return a != NULL && b != NULL ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

/* ---- Put / Get ---- */

/* A network target: RMA on its registered memory (create and allocate windows, and the attached
 * regions of dynamic ones), else (no region holds it, or a provider without delivery-complete
 * writes or stable keys) a request it serves. addr is the byte offset in its window, or the
 * absolute address for a dynamic one. */
static int net_move(MPI_Win w, int t, int write, void *packed, int count, MPI_Datatype tdt,
                    uintptr_t addr)
{
    int rc = w->flavor != MPI_WIN_FLAVOR_DYNAMIC
                 ? win_net_rma(w, t, write, packed, count, tdt, (MPI_Aint)addr)
                 : win_net_rma_dyn(w, t, write, packed, count, tdt, (MPI_Aint)addr);
    if (rc != MPI_ERR_UNSUPPORTED_OPERATION)
        return rc;
    size_t bytes = (size_t)count * tdt->size;
    return win_net_request(w, t, write ? WN_PUT : WN_GET, NULL, write ? packed : NULL,
                           write ? bytes : 0, count, tdt, (MPI_Aint)addr, write ? NULL : packed,
                           write ? 0 : bytes, 0, NULL);
}

/* The argument checks Put and Get share. Returns an error, or MPI_SUCCESS with *bytes the bytes to
 * move (0 for an MPI_PROC_NULL target or an empty transfer: nothing to do) and *addr the target
 * address. */
static int put_get_args(const char *fn, int origin_count, MPI_Datatype origin_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Win win, uintptr_t *addr, size_t *bytes)
{
    *bytes = 0;
    int rc = check_buf(win, fn, "origin", origin_count, origin_datatype);
    if (rc != MPI_SUCCESS || target_rank == MPI_PROC_NULL)
        return rc;
    if ((rc = check_target(win, fn, target_rank, target_disp, target_count, target_datatype,
                           addr)) != MPI_SUCCESS)
        return rc;
    size_t n = (size_t)target_count * target_datatype->size;
    rc = check_sizes(win, fn, "origin", origin_count, origin_datatype, n);
    if (rc == MPI_SUCCESS)
        *bytes = n;
    return rc;
}

static int do_put(const char *fn, const void *origin_addr, int origin_count,
                  MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                  int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    WIN_CHECK(fn, win);
    win_net_poll(win);
    uintptr_t addr;
    size_t bytes;
    int rc = put_get_args(fn, origin_count, origin_datatype, target_rank, target_disp, target_count,
                          target_datatype, win, &addr, &bytes);
    if (rc != MPI_SUCCESS || bytes == 0)
        return rc;
    const void *in = packed_in(win, origin_addr, origin_count, origin_datatype);
    if (in == NULL)
        return win_error(win, MPI_ERR_NO_MEM, fn, "out of memory");
    if (tgt_net(win, target_rank))
        rc = net_move(win, target_rank, 1, (void *)in, target_count, target_datatype, addr);
    else
        rc = tgt_move(win, target_rank, 1, (void *)in, target_count, target_datatype, addr);
    return rc == MPI_SUCCESS ? rc : move_error(win, rc, fn, target_rank);
}

static int do_get(const char *fn, void *origin_addr, int origin_count,
                  MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                  int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    WIN_CHECK(fn, win);
    win_net_poll(win);
    uintptr_t addr;
    size_t bytes;
    int rc = put_get_args(fn, origin_count, origin_datatype, target_rank, target_disp, target_count,
                          target_datatype, win, &addr, &bytes);
    if (rc != MPI_SUCCESS || bytes == 0)
        return rc;
    int dense = (origin_datatype->flags & DT_F_DENSE) != 0;
    void *out = dense ? BUF_AT(origin_addr, origin_datatype->lb) : scratch(win, WS_OLD, bytes);
    if (out == NULL)
        return win_error(win, MPI_ERR_NO_MEM, fn, "out of memory");
    if (tgt_net(win, target_rank))
        rc = net_move(win, target_rank, 0, out, target_count, target_datatype, addr);
    else
        rc = tgt_move(win, target_rank, 0, out, target_count, target_datatype, addr);
    if (!dense && rc == MPI_SUCCESS)
        dt_unpack(out, bytes, (size_t)origin_count, origin_datatype, origin_addr);
    return rc == MPI_SUCCESS ? rc : move_error(win, rc, fn, target_rank);
}

/* ---- accumulates ---- */

/* Applies op to target count elements of tdt at addr with the packed operand in, under the
 * target's accumulate lock; if fetch, the window's WS_OLD buffer receives the target's previous
 * contents, packed. 0 or an MPI error class. */
static int acc_apply(MPI_Win w, int t, MPI_Op op, const void *in, int fetch, int count,
                     MPI_Datatype tdt, uintptr_t addr)
{
    size_t bytes = (size_t)count * tdt->size;
    int combine = op->id != OP_REPLACE && op->id != OP_NO_OP;
    void *old = fetch || combine ? scratch(w, WS_OLD, bytes) : NULL;
    /* the combined value goes into the old contents unless the caller wants those */
    void *res = combine && fetch ? scratch(w, WS_RES, bytes) : old;
    if ((fetch || combine) && (old == NULL || res == NULL))
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    win_acc_lock(w, t);
    if (fetch || combine)
        rc = tgt_move(w, t, 0, old, count, tdt, addr);
    if (rc == MPI_SUCCESS && op->id == OP_REPLACE) {
        rc = tgt_move(w, t, 1, (void *)in, count, tdt, addr);
    } else if (rc == MPI_SUCCESS && combine) {
        if (res != old)
            credo_copy(res, old, bytes);
        rc = win_apply_packed(op, in, res, bytes, tdt->basic, tdt->elem_size);
        if (rc == MPI_SUCCESS)
            rc = tgt_move(w, t, 1, res, count, tdt, addr);
    }
    win_acc_unlock(w, t);
    return rc;
}

static int acc_error(MPI_Win w, int rc, const char *fn, int t)
{
    return rc == MPI_ERR_NO_MEM ? win_error(w, rc, fn, "out of memory") : move_error(w, rc, fn, t);
}

/* Accumulate and Get_accumulate (result_addr NULL: plain accumulate). */
static int do_acc(const char *fn, const void *origin_addr, int origin_count,
                  MPI_Datatype origin_datatype, void *result_addr, int result_count,
                  MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                  int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                  int fetch)
{
    WIN_CHECK(fn, win);
    win_net_poll(win);
    int noop = op != NULL && op == MPI_NO_OP;
    int rc = noop ? MPI_SUCCESS : check_buf(win, fn, "origin", origin_count, origin_datatype);
    if (rc == MPI_SUCCESS && fetch)
        rc = check_buf(win, fn, "result", result_count, result_datatype);
    if (rc != MPI_SUCCESS || target_rank == MPI_PROC_NULL)
        return rc;
    uintptr_t addr;
    if ((rc = check_target(win, fn, target_rank, target_disp, target_count, target_datatype,
                           &addr)) != MPI_SUCCESS)
        return rc;
    size_t bytes = (size_t)target_count * target_datatype->size;
    if ((rc = check_acc(win, fn, op, noop ? NULL : origin_datatype, target_datatype,
                        bytes > 0)) != MPI_SUCCESS)
        return rc;
    if ((!noop && (rc = check_sizes(win, fn, "origin", origin_count, origin_datatype, bytes)) !=
                      MPI_SUCCESS) ||
        (fetch && (rc = check_sizes(win, fn, "result", result_count, result_datatype, bytes)) !=
                      MPI_SUCCESS) ||
        bytes == 0 || (noop && !fetch))
        return rc;
    const void *in = noop ? NULL : packed_in(win, origin_addr, origin_count, origin_datatype);
    if (!noop && in == NULL)
        return win_error(win, MPI_ERR_NO_MEM, fn, "out of memory");
    if (tgt_net(win, target_rank)) {
        void *old = fetch ? scratch(win, WS_OLD, bytes) : NULL;
        if (fetch && old == NULL)
            return win_error(win, MPI_ERR_NO_MEM, fn, "out of memory");
        rc = win_net_request(win, target_rank, fetch ? WN_GACC : WN_ACC, op, in, noop ? 0 : bytes,
                             target_count, target_datatype, (MPI_Aint)addr, old,
                             fetch ? bytes : 0, 0, NULL);
    } else {
        rc = acc_apply(win, target_rank, op, in, fetch, target_count, target_datatype, addr);
    }
    if (rc == MPI_SUCCESS && fetch)
        dt_unpack(win->scratch[WS_OLD], bytes, (size_t)result_count, result_datatype, result_addr);
    return rc == MPI_SUCCESS ? rc : acc_error(win, rc, fn, target_rank);
}

int MPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                     int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Fetch_and_op";
    WIN_CHECK(fn, win);
    if (dt_ok(datatype) && !(datatype->flags & DT_F_PREDEF))
        return win_error(win, MPI_ERR_TYPE, fn, "datatype must be predefined");
    return do_acc(fn, origin_addr, 1, datatype, result_addr, 1, datatype, target_rank,
                  target_disp, 1, datatype, op, win, 1);
}

int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                         MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                         MPI_Win win)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Compare_and_swap";
    WIN_CHECK(fn, win);
    win_net_poll(win);
    int rc = check_buf(win, fn, "origin", 1, datatype);
    if (rc != MPI_SUCCESS || target_rank == MPI_PROC_NULL)
        return rc;
    if (!(datatype->flags & DT_F_PREDEF) || datatype->basic == B_NONE)
        return win_error(win, MPI_ERR_TYPE, fn, "datatype must be a predefined basic type");
    uintptr_t addr;
    if ((rc = check_target(win, fn, target_rank, target_disp, 1, datatype, &addr)) !=
        MPI_SUCCESS)
        return rc;
    /* Predefined types are dense: their bytes are their packed form. */
    size_t n = datatype->size;
    unsigned char old[64];
    if (n > sizeof old)
        return win_error(win, MPI_ERR_TYPE, fn, "datatype too large for compare and swap");
    if (tgt_net(win, target_rank)) {
        unsigned char both[128];
        memcpy(both, origin_addr, n);
        memcpy(both + n, compare_addr, n);
        rc = win_net_request(win, target_rank, WN_CAS, NULL, both, 2 * n, 1, datatype,
                             (MPI_Aint)addr, old, n, 0, NULL);
    } else {
        win_acc_lock(win, target_rank);
        rc = tgt_move(win, target_rank, 0, old, 1, datatype, addr);
        if (rc == MPI_SUCCESS && memcmp(old, compare_addr, n) == 0)
            rc = tgt_move(win, target_rank, 1, (void *)origin_addr, 1, datatype, addr);
        win_acc_unlock(win, target_rank);
    }
    if (rc != MPI_SUCCESS)
        return move_error(win, rc, fn, target_rank);
    memcpy(result_addr, old, n);
    return MPI_SUCCESS;
}

/* ---- bindings; the request forms return a request that is already complete ---- */

static int req_complete(MPI_Win w, const char *fn, int rc, MPI_Request *request)
{
    if (rc != MPI_SUCCESS)
        return rc;
    p2p_req *r = mpi_req_new(w->comm, 0);
    if (r == NULL)
        return win_error(w, MPI_ERR_NO_MEM, fn, "out of requests");
    memset(&r->status, 0, sizeof r->status);
    p2p_req_complete(r);
    *request = mpi_req_handle(r);
    return MPI_SUCCESS;
}

#define REQ_CHECK(fn, win, request)                                                                \
    do {                                                                                           \
        WIN_CHECK(fn, win);                                                                        \
        if (request == NULL)                                                                       \
            return win_error(win, MPI_ERR_REQUEST, fn, "request is NULL");                         \
    } while (0)

int MPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
            int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
            MPI_Win win)
{
    MPI_ENTER();
    return do_put("MPI_Put", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                  target_count, target_datatype, win);
}

int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    MPI_ENTER();
    return do_get("MPI_Get", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                  target_count, target_datatype, win);
}

int MPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                   int target_rank, MPI_Aint target_disp, int target_count,
                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    MPI_ENTER();
    return do_acc("MPI_Accumulate", origin_addr, origin_count, origin_datatype, NULL, 0, NULL,
                  target_rank, target_disp, target_count, target_datatype, op, win, 0);
}

int MPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                       void *result_addr, int result_count, MPI_Datatype result_datatype,
                       int target_rank, MPI_Aint target_disp, int target_count,
                       MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    MPI_ENTER();
    return do_acc("MPI_Get_accumulate", origin_addr, origin_count, origin_datatype, result_addr,
                  result_count, result_datatype, target_rank, target_disp, target_count,
                  target_datatype, op, win, 1);
}

int MPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Rput";
    REQ_CHECK(fn, win, request);
    return req_complete(win, fn,
                        do_put(fn, origin_addr, origin_count, origin_datatype, target_rank,
                               target_disp, target_count, target_datatype, win),
                        request);
}

int MPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
             MPI_Request *request)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Rget";
    REQ_CHECK(fn, win, request);
    return req_complete(win, fn,
                        do_get(fn, origin_addr, origin_count, origin_datatype, target_rank,
                               target_disp, target_count, target_datatype, win),
                        request);
}

int MPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Raccumulate";
    REQ_CHECK(fn, win, request);
    return req_complete(win, fn,
                        do_acc(fn, origin_addr, origin_count, origin_datatype, NULL, 0, NULL,
                               target_rank, target_disp, target_count, target_datatype, op, win,
                               0),
                        request);
}

int MPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                        MPI_Request *request)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Rget_accumulate";
    REQ_CHECK(fn, win, request);
    return req_complete(win, fn,
                        do_acc(fn, origin_addr, origin_count, origin_datatype, result_addr,
                               result_count, result_datatype, target_rank, target_disp,
                               target_count, target_datatype, op, win, 1),
                        request);
}

CREDO_PMPI(MPI_Put)
CREDO_PMPI(MPI_Get)
CREDO_PMPI(MPI_Accumulate)
CREDO_PMPI(MPI_Get_accumulate)
CREDO_PMPI(MPI_Fetch_and_op)
CREDO_PMPI(MPI_Compare_and_swap)
CREDO_PMPI(MPI_Rput)
CREDO_PMPI(MPI_Rget)
CREDO_PMPI(MPI_Raccumulate)
CREDO_PMPI(MPI_Rget_accumulate)
