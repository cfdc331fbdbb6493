/* src/mpi/collective.c — every MPI collective (blocking and MPI-3 non-blocking) as a call into the
 * GOAL schedules of src/coll: argument checks, dense views of datatype buffers, request plumbing. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "mpi/coll_view.h"
#include "mpi/intercoll.h"
#include "mpi/mpi_impl.h"
#include "mpi/op.h"

/* ---- per-call state that outlives the call (non-dense buffers) ----
 * coll wants dense byte buffers. Dense datatypes are passed straight through (at buf + lb);
 * others are packed into temporaries before the schedule starts and unpacked when it completes.
 * The state hangs off the request (upper_data[3]) and is released by its completion hook, which
 * runs even if the application frees the request early. */
/* One receive block of a w-form: cnt elements of its own (retained) type at byte disp of the user
 * buffer, packed at byte off of the temporary. */
typedef struct mc_wblk {
    MPI_Aint disp;
    MPI_Datatype dt;
    int cnt, off;
} mc_wblk;

typedef struct mc_unpack {
    void *ubuf;            /* user buffer to unpack into (MPI_BOTTOM, i.e. NULL, is a valid one) */
    int unpack;            /* 1: unpack tmp into ubuf at completion (not w: w unpacks by its list) */
    MPI_Datatype dt;       /* retained */
    int nblk;              /* blocks: cnt[i] elements at disp[i] (elements, user layout) */
    int *cnt, *disp;       /* NULL when nblk == 1: one block of cnt1 at 0 */
    int cnt1;
    MPI_Aint base;         /* lowest disp: block i sits at (disp[i] - base) * size in tmp */
    void *tmp;
    mc_wblk *w;            /* w-forms: nblk blocks with their own types (ubuf may be MPI_BOTTOM) */
} mc_unpack;

typedef struct mcoll {
    void *tmp_in;          /* packed send data */
    mc_unpack out;
    MPI_Datatype op_dt;    /* datatype a reduction callback reads (retained), or NULL */
    MPI_Op op;             /* user op a reduction callback calls (retained), or NULL */
} mcoll;

static void mc_free(mcoll *x)
{
    if (x == NULL)
        return;
    free(x->tmp_in);
    free(x->out.tmp);
    free(x->out.cnt);
    free(x->out.disp);
    if (x->out.w)
        for (int i = 0; i < x->out.nblk; i++)
            dt_release(x->out.w[i].dt);
    free(x->out.w);
    if (x->out.dt)
        dt_release(x->out.dt);
    if (x->op_dt)
        dt_release(x->op_dt);
    if (x->op)
        op_release(x->op);
    free(x);
}

static mcoll *mc_get(mcoll **xp)
{
    if (*xp == NULL)
        *xp = calloc(1, sizeof **xp);
    return *xp;
}

/* A non-blocking reduction's callbacks use its datatype and op after the call has returned, and the
 * program may free either meanwhile: freeing only marks them for deallocation (MPI 3.1 2.5.1,
 * 5.9.5), so the run holds a reference to each derived type and user op until it completes. */
static int mc_hold_reduction(mcoll **xp, int nonblocking, MPI_Datatype dt, MPI_Op op)
{
    int hold_dt = !(dt->flags & DT_F_PREDEF), hold_op = !op->predefined;
    if (!nonblocking || (!hold_dt && !hold_op))
        return MPI_SUCCESS;
    mcoll *x = mc_get(xp);
    if (x == NULL)
        return MPI_ERR_NO_MEM;
    if (hold_dt) {
        x->op_dt = dt;
        dt_retain(dt);
    }
    if (hold_op) {
        x->op = op;
        op_retain(op);
    }
    return MPI_SUCCESS;
}

/* GOAL error codes to the p2p codes request.c maps to MPI classes. */
static int p2p_err_of_goal(int g)
{
    switch (g) {
    case GOAL_SUCCESS: return P2P_OK;
    case GOAL_ERR_TRUNCATE: return P2P_ERR_TRUNCATE;
    case GOAL_ERR_NOMEM: return P2P_ERR_NOMEM;
    case GOAL_ERR_ARG: return P2P_ERR_ARG;
    default: return P2P_ERR_INTERN;
    }
}

/* Unpacks non-dense results (when the collective succeeded) and frees the temporaries. */
static void mc_unpack_free(mcoll *x, int ok)
{
    if (x == NULL)
        return;
    mc_unpack *u = &x->out;
    if (u->w && ok) {
        for (int i = 0; i < u->nblk; i++) {
            const mc_wblk *b = &u->w[i];
            dt_unpack(BUF_AT(u->tmp, b->off), (size_t)b->cnt * b->dt->size, (size_t)b->cnt, b->dt,
                      BUF_AT(u->ubuf, b->disp));
        }
    } else if (u->unpack && ok) {
        size_t sz = u->dt->size;
        for (int i = 0; i < u->nblk; i++) {
            int c = u->cnt ? u->cnt[i] : u->cnt1;
            MPI_Aint d = u->disp ? u->disp[i] : 0;
            dt_unpack(BUF_AT(u->tmp, (size_t)(d - u->base) * sz), (size_t)c * sz, (size_t)c, u->dt,
                      BUF_AT(u->ubuf, d * u->dt->extent));
        }
    }
    mc_free(x);
}

/* Completion hook: unpacks non-dense results, frees temporaries, converts the error code. */
static void mc_done(p2p_req *r)
{
    r->status.error = p2p_err_of_goal(r->status.error);
    mcoll *x = (mcoll *)(uintptr_t)r->upper_data[3];
    r->upper_data[3] = 0;
    mc_unpack_free(x, r->status.error == P2P_OK);
}

/* Dense input of count elements: the buffer itself or a packed copy. */
int view_in(const void *buf, int count, MPI_Datatype dt, mcoll **xp, const void **out)
{
    if (buf == MPI_IN_PLACE || (dt->flags & DT_F_DENSE) || count == 0) {
        *out = buf == MPI_IN_PLACE ? buf : BUF_AT(buf, (dt->flags & DT_F_DENSE) ? dt->lb : 0);
        return MPI_SUCCESS;
    }
    mcoll *x = mc_get(xp);
    if (x == NULL || (x->tmp_in = malloc((size_t)count * dt->size)) == NULL)
        return MPI_ERR_NO_MEM;
    dt_pack(buf, (size_t)count, dt, x->tmp_in);
    *out = x->tmp_in;
    return MPI_SUCCESS;
}

/* The schedule's byte counts and offsets are ints: v to *out, or 0 when it does not fit (the caller
 * then refuses the call with MPI_ERR_COUNT instead of truncating it). */
static int int_bytes(MPI_Aint v, int *out)
{
    if (v > INT_MAX || v < INT_MIN)
        return 0;
    *out = (int)v;
    return 1;
}

/* Dense output of blocks (cnt/disp in elements; cnt == NULL: one block of cnt1 at 0). The
 * schedule sees block i at disp[i] * extent (dense) or (disp[i] - base) * size (packed); byte
 * counts and displacements go to bcnt/bdisp when given. prefill: the buffer is also an input
 * (MPI_IN_PLACE), so the packed copy starts with its contents. */
int view_out(void *buf, MPI_Datatype dt, int nblk, const int *cnt, const int *disp, int cnt1,
                    int prefill, mcoll **xp, void **out, int *bcnt, int *bdisp)
{
    int dense = (dt->flags & DT_F_DENSE) != 0;
    MPI_Aint base = 0, top = 0;
    for (int i = 0; i < nblk; i++) {
        MPI_Aint d = disp ? disp[i] : 0, c = cnt ? cnt[i] : cnt1;
        if (i == 0 || d < base)
            base = d;
        if (i == 0 || d + c > top)
            top = d + c;
        if (bcnt && !int_bytes(c * (MPI_Aint)dt->size, &bcnt[i]))
            return MPI_ERR_COUNT;
    }
    /* an empty block's displacement is never used: 0 rather than a refusal */
    if (dense || top == base) {
        if (bdisp)
            for (int i = 0; i < nblk; i++)
                if (!int_bytes((cnt && !cnt[i]) || !disp ? 0 : disp[i] * dt->extent, &bdisp[i]))
                    return MPI_ERR_COUNT;
        *out = BUF_AT(buf, dense ? dt->lb : 0);
        return MPI_SUCCESS;
    }
    if (bdisp)
        for (int i = 0; i < nblk; i++)
            if (!int_bytes((cnt && !cnt[i]) ? 0 : ((disp ? disp[i] : 0) - base) * (MPI_Aint)dt->size, &bdisp[i]))
                return MPI_ERR_COUNT;
    mcoll *x = mc_get(xp);
    if (x == NULL)
        return MPI_ERR_NO_MEM;
    mc_unpack *u = &x->out;
    u->tmp = malloc((size_t)(top - base) * dt->size);
    if (u->tmp == NULL)
        return MPI_ERR_NO_MEM;
    if (cnt) {
        u->cnt = malloc((size_t)nblk * sizeof(int));
        u->disp = malloc((size_t)nblk * sizeof(int));
        if (u->cnt == NULL || u->disp == NULL)
            return MPI_ERR_NO_MEM;
        memcpy(u->cnt, cnt, (size_t)nblk * sizeof(int));
        memcpy(u->disp, disp, (size_t)nblk * sizeof(int));
    }
    u->ubuf = buf;
    u->unpack = 1;
    u->dt = dt;
    dt_retain(dt);
    u->nblk = nblk;
    u->cnt1 = cnt1;
    u->base = base;
    if (prefill)
        for (int i = 0; i < nblk; i++) {
            int c = cnt ? cnt[i] : cnt1;
            MPI_Aint d = disp ? disp[i] : 0;
            dt_pack(BUF_AT(buf, d * dt->extent), (size_t)c,
                    dt, BUF_AT(u->tmp, (size_t)(d - base) * dt->size));
        }
    *out = u->tmp;
    return MPI_SUCCESS;
}

/* Dense input of blocks for the v-variants (scatterv, alltoallv): like view_out without unpack. */
int view_vin(const void *buf, MPI_Datatype dt, int nblk, const int *cnt, const int *disp,
                    mcoll **xp, const void **out, int *bcnt, int *bdisp)
{
    if ((dt->flags & DT_F_DENSE)) {
        void *o = NULL;
        int rc = view_out((void *)buf, dt, nblk, cnt, disp, 0, 0, xp, &o, bcnt, bdisp);
        *out = o;
        return rc;
    }
    MPI_Aint base = 0, top = 0;
    for (int i = 0; i < nblk; i++) {
        if (i == 0 || disp[i] < base)
            base = disp[i];
        if (i == 0 || disp[i] + cnt[i] > top)
            top = disp[i] + cnt[i];
        if (!int_bytes((MPI_Aint)cnt[i] * (MPI_Aint)dt->size, &bcnt[i]))
            return MPI_ERR_COUNT;
    }
    for (int i = 0; i < nblk; i++)
        if (!int_bytes(cnt[i] ? (disp[i] - base) * (MPI_Aint)dt->size : 0, &bdisp[i]))
            return MPI_ERR_COUNT;
    mcoll *x = mc_get(xp);
    if (x == NULL || (x->tmp_in = malloc((size_t)(top - base) * dt->size + 1)) == NULL)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < nblk; i++)
        dt_pack(BUF_AT(buf, disp[i] * dt->extent), (size_t)cnt[i], dt,
                BUF_AT(x->tmp_in, (size_t)(disp[i] - base) * dt->size));
    *out = x->tmp_in;
    return MPI_SUCCESS;
}

/* ---- w-forms: a datatype per block ----
 * The schedules move bytes out of one send buffer into one receive buffer, so the blocks of a side
 * either all stay in the user buffer (every non-empty block dense and at a byte offset the
 * schedule's non-negative int offsets can hold: zero-copy, the usual case of predefined types) or
 * are all packed back to back in block order into one temporary. Mixing both would need two
 * buffers per side, which the schedules do not have. */

static MPI_Aint w_disp(const view_w *w, int i)
{
    return w->idisp ? (MPI_Aint)w->idisp[i] : w->adisp[i];
}

/* Byte counts and offsets of w's blocks in the schedule's view; 1 for zero-copy, else 0 and the
 * packed size in *total. Types of empty blocks are never looked at (they may be anything). */
static int w_layout(const view_w *w, int *bcnt, int *boff, size_t *total)
{
    int direct = 1;
    size_t sum = 0;
    for (int i = 0; i < w->n; i++) {
        int c = w->cnt[i];
        MPI_Datatype t = w->dt[i];
        bcnt[i] = c > 0 ? (int)((size_t)c * t->size) : 0; /* <= INT_MAX: mc_check_w */
        boff[i] = (int)sum;
        sum += (size_t)bcnt[i];
        if (bcnt[i] > 0) {
            MPI_Aint o = w_disp(w, i) + t->lb;
            if (!(t->flags & DT_F_DENSE) || o < 0 || o > (MPI_Aint)(INT_MAX - bcnt[i]))
                direct = 0;
        }
    }
    *total = sum;
    if (direct)
        for (int i = 0; i < w->n; i++)
            boff[i] = bcnt[i] > 0 ? (int)(w_disp(w, i) + w->dt[i]->lb) : 0;
    return direct;
}

int view_win(const void *buf, const view_w *w, mcoll **xp, const void **out, int *bcnt, int *boff)
{
    size_t total;
    if (w_layout(w, bcnt, boff, &total)) {
        *out = buf;
        return MPI_SUCCESS;
    }
    mcoll *x = mc_get(xp);
    if (x == NULL || (x->tmp_in = malloc(total + 1)) == NULL)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < w->n; i++)
        if (bcnt[i] > 0)
            dt_pack(BUF_AT(buf, w_disp(w, i)), (size_t)w->cnt[i], w->dt[i],
                    BUF_AT(x->tmp_in, boff[i]));
    *out = x->tmp_in;
    return MPI_SUCCESS;
}

int view_wout(void *buf, const view_w *w, int prefill, mcoll **xp, void **out, int *bcnt,
              int *boff)
{
    size_t total;
    if (w_layout(w, bcnt, boff, &total)) {
        *out = buf;
        return MPI_SUCCESS;
    }
    mcoll *x = mc_get(xp);
    if (x == NULL)
        return MPI_ERR_NO_MEM;
    mc_unpack *u = &x->out;
    u->tmp = malloc(total + 1);
    u->w = malloc((size_t)w->n * sizeof *u->w + 1);
    if (u->tmp == NULL || u->w == NULL)
        return MPI_ERR_NO_MEM;
    u->ubuf = buf;
    u->nblk = 0;
    /* The types are retained: a non-blocking call's types may be freed before it completes. */
    for (int i = 0; i < w->n; i++) {
        if (bcnt[i] == 0)
            continue;
        mc_wblk *b = &u->w[u->nblk++];
        *b = (mc_wblk){w_disp(w, i), w->dt[i], w->cnt[i], boff[i]};
        dt_retain(b->dt);
        if (prefill)
            dt_pack(BUF_AT(buf, b->disp), (size_t)b->cnt, b->dt, BUF_AT(u->tmp, b->off));
    }
    *out = u->tmp;
    return MPI_SUCCESS;
}

int mc_check_w(const char *fn, MPI_Comm comm, const view_w *w, const char *side, const char *who)
{
    if (w->n > 0 && (w->cnt == NULL || (w->idisp == NULL && w->adisp == NULL) || w->dt == NULL))
        return mpi_error(comm, MPI_ERR_ARG, fn, "%s counts, displacements or types are NULL",
                         side);
    size_t sum = 0;
    for (int i = 0; i < w->n; i++) {
        int c = w->cnt[i];
        if (c < 0)
            return mpi_error(comm, MPI_ERR_COUNT, fn, "negative %s count %d for %s %d", side, c,
                             who, i);
        if (c == 0)
            continue; /* an empty block's type is never used */
        MPI_Datatype t = w->dt[i];
        if (!dt_ok(t))
            return mpi_error(comm, MPI_ERR_TYPE, fn, "%s datatype for %s %d is %s", side, who, i,
                             dt_live(t) ? "not committed" : "invalid");
        /* The schedules count bytes in ints, the packed blocks of one side included. */
        if (t->size > 0 && (size_t)c > ((size_t)INT_MAX - sum) / t->size)
            return mpi_error(comm, MPI_ERR_COUNT, fn, "%s counts too large (over %d bytes)", side,
                             INT_MAX);
        sum += (size_t)c * t->size;
    }
    return MPI_SUCCESS;
}

/* ---- reductions ---- */

/* coll's reduction callback: inout = in op inout on count dense elements of dt. Dense types are
 * user layout shifted by lb; packed ones are unpacked around the kernel (rare, so it allocates). */
static void mc_reduce_fn(const void *in, void *inout, size_t count, void *opv, void *dtv)
{
    MPI_Op op = opv;
    MPI_Datatype dt = dtv;
    if (count == 0)
        return;
    if (likely(dt->flags & DT_F_DENSE)) {
        op_apply(op, BUF_AT(in, -dt->lb), BUF_AT(inout, -dt->lb), (int)count, dt);
        return;
    }
    size_t span = dt_span(dt, count);
    void *a = malloc(span), *b = malloc(span);
    if (a == NULL || b == NULL)
        credo_abort(MPI_ERR_NO_MEM, "reduction on a non-contiguous datatype: out of memory");
    void *ua = BUF_AT(a, -dt->true_lb), *ub = BUF_AT(b, -dt->true_lb);
    dt_unpack(in, count * dt->size, count, dt, ua);
    dt_unpack(inout, count * dt->size, count, dt, ub);
    op_apply(op, ua, ub, (int)count, dt);
    dt_pack(ub, count, dt, inout);
    free(a);
    free(b);
}

static coll_op mc_op(MPI_Op op, MPI_Datatype dt)
{
    return (coll_op){.fn = mc_reduce_fn, .op = op, .dt = dt, .commute = op->commute};
}

/* ---- checks ---- */

static int check_root(const char *fn, int root, MPI_Comm comm)
{
    if (COMM_IS_INTER(comm)) {
        if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < comm->remote_size))
            return MPI_SUCCESS;
        return mpi_error(comm, MPI_ERR_ROOT, fn,
                         "invalid root %d on an intercommunicator (MPI_ROOT, MPI_PROC_NULL or a "
                         "rank of the remote group of size %d)",
                         root, comm->remote_size);
    }
    if (root < 0 || root >= comm->size)
        return mpi_error(comm, MPI_ERR_ROOT, fn, "invalid root %d (communicator size %d)", root,
                         comm->size);
    return MPI_SUCCESS;
}

static int check_op(const char *fn, MPI_Op op, MPI_Datatype dt, MPI_Comm comm)
{
    int rc = op_check(op, dt);
    if (rc == MPI_ERR_OP && !op_live(op))
        return mpi_error(comm, rc, fn, "invalid reduction operation");
    if (rc != MPI_SUCCESS)
        return mpi_error(comm, rc, fn, "%s is not defined for datatype %s", op_name(op),
                         dt->name ? dt->name : "(derived)");
    return MPI_SUCCESS;
}

static int check_req(const char *fn, MPI_Request *req, MPI_Comm comm, int nonblocking)
{
    if (nonblocking && req == NULL)
        return mpi_error(comm, MPI_ERR_REQUEST, fn, "request is NULL");
    return MPI_SUCCESS;
}

/* The type checks of mpi_check_buf without the buffer (MPI_IN_PLACE, insignificant buffers). */
static int check_type(const char *fn, int count, MPI_Datatype dt, MPI_Comm comm)
{
    return mpi_check_buf(comm, fn, NULL, 0, dt) != MPI_SUCCESS
               ? MPI_ERR_TYPE
               : (count < 0 ? mpi_error(comm, MPI_ERR_COUNT, fn, "negative count %d", count)
                            : MPI_SUCCESS);
}

static int check_counts(const char *fn, int n, const int *cnt, const int *disp, MPI_Comm comm)
{
    if (cnt == NULL || disp == NULL)
        return mpi_error(comm, MPI_ERR_ARG, fn, "%s array is NULL",
                         cnt == NULL ? "count" : "displacement");
    for (int i = 0; i < n; i++)
        if (cnt[i] < 0)
            return mpi_error(comm, MPI_ERR_COUNT, fn, "negative count %d for rank %d", cnt[i], i);
    return MPI_SUCCESS;
}

/* Send and receive buffers may not overlap unless MPI_IN_PLACE is used. */
static int check_alias(const char *fn, const void *sb, const void *rb, size_t sbytes, MPI_Comm comm)
{
    if (sb != MPI_IN_PLACE && sb != NULL && sb == rb && sbytes > 0)
        return mpi_error(comm, MPI_ERR_BUFFER, fn,
                         "send and receive buffers alias (use MPI_IN_PLACE)");
    return MPI_SUCCESS;
}

static int mpi_err_of_goal(int g)
{
    return mpi_err_of_p2p(p2p_err_of_goal(g));
}

/* Ends every binding: on a start error frees x and reports; else ties the request to comm and
 * either hands it out (non-blocking) or waits for it (blocking). */
int mc_finish(const char *fn, MPI_Comm comm, int grc, int mrc, p2p_req *r, mcoll *x,
                     MPI_Request *req)
{
    if (mrc != MPI_SUCCESS || grc != GOAL_SUCCESS) {
        mc_free(x);
        if (mrc == MPI_SUCCESS)
            mrc = mpi_err_of_goal(grc);
        return mpi_error(comm, mrc, fn, "%s",
                         mrc == MPI_ERR_NO_MEM  ? "out of memory"
                         : mrc == MPI_ERR_COUNT ? "a block's byte count or displacement exceeds INT_MAX"
                                                : "collective failed to start");
    }
    /* The schedule may have finished inside the start call (one rank, self copies only). */
    mpi_req_hook(r, comm, x, mc_done);
    if (req != NULL) {
        *req = mpi_req_handle(r);
        return MPI_SUCCESS;
    }
    int rc = mpi_req_wait(r, NULL);
    return rc == MPI_SUCCESS ? rc : mpi_error(comm, rc, fn, "collective failed");
}

/* The result of a blocking collective that ran without a request (coll_barrier, coll_allreduce). */
static int mc_blocking_result(const char *fn, MPI_Comm comm, int grc)
{
    return grc == GOAL_SUCCESS ? MPI_SUCCESS
                               : mpi_error(comm, mpi_err_of_goal(grc), fn, "collective failed");
}

#define CK(expr)                                                                                   \
    do {                                                                                           \
        if ((rc = (expr)) != MPI_SUCCESS)                                                          \
            return rc;                                                                             \
    } while (0)

/* ---- intercommunicators (intercoll.c) ----
 * The blocking collectives branch to intercoll.c right after check_start, then check only the
 * arguments that are significant on an intercommunicator: the buffers of the root's group are
 * not, except at the root (MPI_ROOT), and a process that passes MPI_PROC_NULL takes no part. The
 * non-blocking forms (req != NULL) check the same and go to intercoll.c's icnb_* (a process that
 * takes no part still gets a request, complete at once). */

/* MPI 3.1 defines the "in place" option of every collective for intracommunicators only; credo
 * refuses it on an intercommunicator with MPI_ERR_BUFFER, the class its other misplaced
 * MPI_IN_PLACE errors take (MPICH does the same). Checked where the buffer is significant. */
static int check_inter_in_place(const char *fn, MPI_Comm comm, const void *buf)
{
    if (buf == MPI_IN_PLACE)
        return mpi_error(comm, MPI_ERR_BUFFER, fn,
                         "MPI_IN_PLACE is not allowed on an intercommunicator");
    return MPI_SUCCESS;
}

/* Raises intercoll.c's result through comm's handler. */
static int ic_result(const char *fn, MPI_Comm comm, int rc)
{
    if (rc == MPI_SUCCESS)
        return rc;
    return mpi_error(comm, rc, fn, "%s",
                     rc == MPI_ERR_NO_MEM     ? "out of memory"
                     : rc == MPI_ERR_TRUNCATE ? "message truncated: the two groups' counts or "
                                                "types do not match"
                                              : "intercommunicator collective failed");
}

/* ---- Barrier, Bcast ---- */

/* What every collective checks first, in this order: communicator, root (ROOT_NONE for the rootless
 * ones), request pointer (non-blocking forms). */
#define ROOT_NONE INT_MIN
static int check_start(const char *fn, MPI_Comm comm, int root, MPI_Request *req)
{
    int rc;
    CK(mpi_check_comm(fn, comm));
    if (root != ROOT_NONE)
        CK(check_root(fn, root, comm));
    CK(check_req(fn, req, comm, req != NULL));
    return MPI_SUCCESS;
}

static int do_barrier(const char *fn, MPI_Comm comm, MPI_Request *req)
{
    int rc;
    CK(check_start(fn, comm, ROOT_NONE, req));
    if (COMM_IS_INTER(comm))
        return ic_result(fn, comm, req ? icnb_barrier(comm, req) : ic_barrier(comm));
    if (!req) { /* blocking: coll_barrier may take a path without a schedule (coll.c) */
        return mc_blocking_result(fn, comm, coll_barrier(&comm->coll));
    }
    p2p_req *r = NULL;
    int grc = coll_ibarrier(&comm->coll, &r);
    return mc_finish(fn, comm, grc, MPI_SUCCESS, r, NULL, req);
}

static int do_bcast(const char *fn, void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                    MPI_Request *req)
{
    int rc;
    CK(mpi_check_comm(fn, comm));
    if (COMM_IS_INTER(comm)) {
        CK(check_start(fn, comm, root, req));
        if (root != MPI_PROC_NULL) {
            CK(check_inter_in_place(fn, comm, buf));
            CK(mpi_check_buf(comm, fn, buf, count, dt));
        }
        return ic_result(fn, comm, req ? icnb_bcast(buf, count, dt, root, comm, req)
                                       : ic_bcast(buf, count, dt, root, comm));
    }
    CK(mpi_check_buf(comm, fn, buf, count, dt));
    CK(check_root(fn, root, comm));
    CK(check_req(fn, req, comm, req != NULL));
    mcoll *x = NULL;
    void *d = NULL;
    p2p_req *r = NULL;
    int grc = 0, mrc = view_out(buf, dt, 1, NULL, NULL, count, comm->rank == root, &x, &d, NULL,
                                NULL);
    if (mrc == MPI_SUCCESS) {
        if (x && comm->rank == root)
            x->out.unpack = 0; /* the root's buffer is only read */
        if (!req) { /* coll_bcast may skip the schedule (coll.c) */
            grc = coll_bcast(d, (size_t)count * dt->size, 1, root, &comm->coll);
            mc_unpack_free(x, grc == GOAL_SUCCESS);
            return mc_blocking_result(fn, comm, grc);
        }
        grc = coll_ibcast(d, (size_t)count * dt->size, 1, root, &comm->coll, &r);
    }
    return mc_finish(fn, comm, grc, mrc, r, x, req);
}

/* ---- reductions ---- */

static int do_reduce(const char *fn, const void *sb, void *rb, int count, MPI_Datatype dt,
                     MPI_Op op, int root, MPI_Comm comm, MPI_Request *req)
{
    int rc;
    CK(check_start(fn, comm, root, req));
    if (COMM_IS_INTER(comm)) {
        if (root != MPI_PROC_NULL) {
            /* the root only receives, the other group only sends */
            const void *b = root == MPI_ROOT ? rb : sb;
            CK(check_inter_in_place(fn, comm, b));
            CK(mpi_check_buf(comm, fn, b, count, dt));
            CK(check_op(fn, op, dt, comm));
        }
        return ic_result(fn, comm, req ? icnb_reduce(sb, rb, count, dt, op, root, comm, req)
                                       : ic_reduce(sb, rb, count, dt, op, root, comm));
    }
    int at_root = comm->rank == root;
    if (sb == MPI_IN_PLACE && !at_root)
        return mpi_error(comm, MPI_ERR_BUFFER, fn, "MPI_IN_PLACE is only valid at the root");
    CK(mpi_check_buf(comm, fn, sb == MPI_IN_PLACE ? rb : sb, count, dt));
    if (at_root) {
        CK(mpi_check_buf(comm, fn, rb, count, dt));
        CK(check_alias(fn, sb, rb, (size_t)count * dt->size, comm));
    }
    CK(check_op(fn, op, dt, comm));
    mcoll *x = NULL;
    const void *s = NULL;
    void *d = NULL;
    p2p_req *r = NULL;
    int grc = 0, mrc = view_in(sb, count, dt, &x, &s);
    if (mrc == MPI_SUCCESS && at_root)
        mrc = view_out(rb, dt, 1, NULL, NULL, count, sb == MPI_IN_PLACE, &x, &d, NULL, NULL);
    if (mrc == MPI_SUCCESS)
        mrc = mc_hold_reduction(&x, req != NULL, dt, op);
    if (mrc == MPI_SUCCESS) {
        coll_op cop = mc_op(op, dt);
        grc = coll_ireduce(s, d, (size_t)count, dt->size, &cop, root, &comm->coll, &r);
    }
    return mc_finish(fn, comm, grc, mrc, r, x, req);
}

enum { RK_ALLREDUCE, RK_SCAN, RK_EXSCAN, RK_RSB };

/* Allreduce, Scan, Exscan, Reduce_scatter_block: the same buffer shapes, except that
 * reduce_scatter_block's input holds count * size elements. */
static int do_allred(const char *fn, int kind, const void *sb, void *rb, int count,
                     MPI_Datatype dt, MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    int rc;
    CK(mpi_check_comm(fn, comm));
    if (kind == RK_SCAN || kind == RK_EXSCAN)
        INTRA_CHECK(fn, comm); /* MPI 3.1 5.11: scans are defined on intracommunicators only */
    CK(check_start(fn, comm, ROOT_NONE, req));
    if (COMM_IS_INTER(comm))
        CK(check_inter_in_place(fn, comm, sb));
    if (kind == RK_RSB && (long long)count * comm->size > INT_MAX)
        return mpi_error(comm, MPI_ERR_COUNT, fn, "recvcount %d times %d processes exceeds INT_MAX",
                         count, comm->size);
    int in_count = kind == RK_RSB ? count * comm->size : count;
    if (sb != MPI_IN_PLACE)
        CK(mpi_check_buf(comm, fn, sb, in_count, dt));
    CK(mpi_check_buf(comm, fn, rb, kind == RK_RSB && sb == MPI_IN_PLACE ? in_count : count, dt));
    CK(check_alias(fn, sb, rb, (size_t)count * dt->size, comm));
    CK(check_op(fn, op, dt, comm));
    if (COMM_IS_INTER(comm))
        return ic_result(fn, comm,
                         kind == RK_RSB
                             ? (req ? icnb_reduce_scatter_block(sb, rb, count, dt, op, comm, req)
                                    : ic_reduce_scatter_block(sb, rb, count, dt, op, comm))
                             : (req ? icnb_allreduce(sb, rb, count, dt, op, comm, req)
                                    : ic_allreduce(sb, rb, count, dt, op, comm)));
    mcoll *x = NULL;
    const void *s = NULL;
    void *d = NULL;
    p2p_req *r = NULL;
    int grc = 0, mrc = view_in(sb, in_count, dt, &x, &s);
    if (mrc == MPI_SUCCESS)
        mrc = view_out(rb, dt, 1, NULL, NULL, sb == MPI_IN_PLACE ? in_count : count,
                       sb == MPI_IN_PLACE, &x, &d, NULL, NULL);
    if (mrc == MPI_SUCCESS && x && sb == MPI_IN_PLACE && kind == RK_RSB)
        x->out.cnt1 = count; /* only the first count elements are results */
    if (mrc == MPI_SUCCESS)
        mrc = mc_hold_reduction(&x, req != NULL, dt, op);
    if (mrc == MPI_SUCCESS) {
        coll_op cop = mc_op(op, dt);
        size_t n = (size_t)count, es = dt->size;
        if (kind == RK_ALLREDUCE && !req) { /* coll_allreduce may skip the schedule (coll.c) */
            grc = coll_allreduce(s, d, n, es, &cop, &comm->coll);
            mc_unpack_free(x, grc == GOAL_SUCCESS);
            return mc_blocking_result(fn, comm, grc);
        }
        switch (kind) {
        case RK_ALLREDUCE: grc = coll_iallreduce(s, d, n, es, &cop, &comm->coll, &r); break;
        case RK_SCAN: grc = coll_iscan(s, d, n, es, &cop, &comm->coll, &r); break;
        case RK_EXSCAN: grc = coll_iexscan(s, d, n, es, &cop, &comm->coll, &r); break;
        default: grc = coll_ireduce_scatter_block(s, d, n, es, &cop, &comm->coll, &r); break;
        }
    }
    return mc_finish(fn, comm, grc, mrc, r, x, req);
}

static int do_reduce_scatter(const char *fn, const void *sb, void *rb, const int *rcounts,
                             MPI_Datatype dt, MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    int rc;
    CK(check_start(fn, comm, ROOT_NONE, req));
    if (rcounts == NULL)
        return mpi_error(comm, MPI_ERR_ARG, fn, "recvcounts is NULL");
    long long total = 0;
    for (int i = 0; i < comm->size; i++) {
        if (rcounts[i] < 0)
            return mpi_error(comm, MPI_ERR_COUNT, fn, "negative count %d for rank %d", rcounts[i],
                             i);
        total += rcounts[i];
    }
    if (total > 0x7fffffff)
        return mpi_error(comm, MPI_ERR_COUNT, fn, "total count too large");
    int mine = rcounts[comm->rank];
    if (COMM_IS_INTER(comm))
        CK(check_inter_in_place(fn, comm, sb));
    if (sb != MPI_IN_PLACE)
        CK(mpi_check_buf(comm, fn, sb, (int)total, dt));
    CK(mpi_check_buf(comm, fn, rb, sb == MPI_IN_PLACE ? (int)total : mine, dt));
    CK(check_alias(fn, sb, rb, (size_t)mine * dt->size, comm));
    CK(check_op(fn, op, dt, comm));
    if (COMM_IS_INTER(comm))
        return ic_result(fn, comm, req ? icnb_reduce_scatter(sb, rb, rcounts, dt, op, comm, req)
                                       : ic_reduce_scatter(sb, rb, rcounts, dt, op, comm));
    mcoll *x = NULL;
    const void *s = NULL;
    void *d = NULL;
    p2p_req *r = NULL;
    int grc = 0, mrc = view_in(sb, (int)total, dt, &x, &s);
    if (mrc == MPI_SUCCESS)
        mrc = view_out(rb, dt, 1, NULL, NULL, sb == MPI_IN_PLACE ? (int)total : mine,
                       sb == MPI_IN_PLACE, &x, &d, NULL, NULL);
    if (mrc == MPI_SUCCESS && x && sb == MPI_IN_PLACE)
        x->out.cnt1 = mine;
    if (mrc == MPI_SUCCESS)
        mrc = mc_hold_reduction(&x, req != NULL, dt, op);
    if (mrc == MPI_SUCCESS) {
        coll_op cop = mc_op(op, dt);
        grc = coll_ireduce_scatter(s, d, rcounts, dt->size, &cop, &comm->coll, &r);
    }
    return mc_finish(fn, comm, grc, mrc, r, x, req);
}

/* ---- gather, scatter, allgather, alltoall (byte granularity: sender and receiver types may
 * differ, only the signatures must agree) ---- */

/* Bytes of one side's block, 0 for MPI_IN_PLACE: the count and type that go with it are then
 * ignored (MPICH's tests pass MPI_DATATYPE_NULL), so they are never read. */
static size_t block_bytes(const void *buf, int count, MPI_Datatype dt)
{
    return buf == MPI_IN_PLACE ? 0 : (size_t)count * dt->size;
}

/* NULL buffers of the v- and w-forms (coll_view.h). */
static int null_block(const void *buf, int count, MPI_Datatype dt)
{
    return buf == NULL && count > 0 && dt->size > 0 && (dt->flags & DT_F_PREDEF);
}

int mc_check_vbuf(const char *fn, MPI_Comm comm, const char *side, const char *who,
                  const void *buf, int n, const int *cnt, MPI_Datatype dt)
{
    for (int i = 0; buf == NULL && i < n; i++)
        if (null_block(buf, cnt[i], dt))
            return mpi_error(comm, MPI_ERR_BUFFER, fn, "%s buffer is NULL with count %d for %s %d",
                             side, cnt[i], who, i);
    return MPI_SUCCESS;
}

int mc_check_wbuf(const char *fn, MPI_Comm comm, const view_w *w, const char *side,
                  const char *who, const void *buf)
{
    /* MPI_Aint displacements may be absolute addresses, of predefined types too */
    for (int i = 0; buf == NULL && w->adisp == NULL && i < w->n; i++)
        if (w->cnt[i] > 0 && null_block(buf, w->cnt[i], w->dt[i]))
            return mpi_error(comm, MPI_ERR_BUFFER, fn, "%s buffer is NULL with count %d for %s %d",
                             side, w->cnt[i], who, i);
    return MPI_SUCCESS;
}

int mc_any_v(int n, const int *cnt, MPI_Datatype dt)
{
    for (int i = 0; dt->size > 0 && i < n; i++)
        if (cnt[i] > 0)
            return 1;
    return 0;
}

int mc_any_w(const view_w *w)
{
    for (int i = 0; i < w->n; i++)
        if (w->cnt[i] > 0 && w->dt[i]->size > 0)
            return 1;
    return 0;
}

static int do_gather(const char *fn, const void *sb, int scount, MPI_Datatype st, void *rb,
                     int rcount, MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *req)
{
    int rc;
    CK(check_start(fn, comm, root, req));
    if (COMM_IS_INTER(comm)) {
        if (root == MPI_ROOT) {
            CK(check_inter_in_place(fn, comm, rb));
            CK(mpi_check_buf(comm, fn, rb, rcount, rt));
        } else if (root != MPI_PROC_NULL) {
            CK(check_inter_in_place(fn, comm, sb));
            CK(mpi_check_buf(comm, fn, sb, scount, st));
        }
        return ic_result(fn, comm,
                         req ? icnb_gather(sb, scount, st, rb, rcount, rt, root, comm, req)
                             : ic_gather(sb, scount, st, rb, rcount, rt, root, comm));
    }
    int at_root = comm->rank == root, p = comm->size;
    if (sb == MPI_IN_PLACE && !at_root)
        return mpi_error(comm, MPI_ERR_BUFFER, fn, "MPI_IN_PLACE is only valid at the root");
    if (sb != MPI_IN_PLACE)
        CK(mpi_check_buf(comm, fn, sb, scount, st));
    if (at_root) {
        CK(mpi_check_buf(comm, fn, rb, rcount, rt));
        CK(check_alias(fn, sb, rb, (size_t)rcount * rt->size, comm));
    }
    mcoll *x = NULL;
    const void *s = NULL;
    void *d = NULL;
    p2p_req *r = NULL;
    int grc = 0, mrc = view_in(sb, scount, st, &x, &s);
    if (mrc == MPI_SUCCESS && at_root)
        mrc = view_out(rb, rt, 1, NULL, NULL, rcount * p, sb == MPI_IN_PLACE, &x, &d, NULL, NULL);
    size_t bytes = at_root ? (size_t)rcount * rt->size : (size_t)scount * st->size;
    if (mrc == MPI_SUCCESS && !req) { /* coll_gather may skip the schedule (coll.c) */
        grc = coll_gather(s, d, bytes, 1, root, &comm->coll);
        mc_unpack_free(x, grc == GOAL_SUCCESS);
        return mc_blocking_result(fn, comm, grc);
    }
    if (mrc == MPI_SUCCESS)
        grc = coll_igather(s, d, bytes, 1, root, &comm->coll, &r);
    return mc_finish(fn, comm, grc, mrc, r, x, req);
}

static int do_gatherv(const char *fn, const void *sb, int scount, MPI_Datatype st, void *rb,
                      const int *rcounts, const int *displs, MPI_Datatype rt, int root,
                      MPI_Comm comm, MPI_Request *req)
{
    int rc;
    CK(check_start(fn, comm, root, req));
    if (COMM_IS_INTER(comm)) {
        if (root == MPI_ROOT) {
            CK(check_inter_in_place(fn, comm, rb));
            CK(check_counts(fn, comm->remote_size, rcounts, displs, comm));
            CK(check_type(fn, 0, rt, comm));
            CK(mc_check_vbuf(fn, comm, "receive", "rank", rb, comm->remote_size, rcounts, rt));
        } else if (root != MPI_PROC_NULL) {
            CK(check_inter_in_place(fn, comm, sb));
            CK(mpi_check_buf(comm, fn, sb, scount, st));
        }
        return ic_result(fn, comm,
                         req ? icnb_gatherv(sb, scount, st, rb, rcounts, displs, rt, root, comm,
                                            req)
                             : ic_gatherv(sb, scount, st, rb, rcounts, displs, rt, root, comm));
    }
    int at_root = comm->rank == root, p = comm->size;
    if (sb == MPI_IN_PLACE && !at_root)
        return mpi_error(comm, MPI_ERR_BUFFER, fn, "MPI_IN_PLACE is only valid at the root");
    if (sb != MPI_IN_PLACE)
        CK(mpi_check_buf(comm, fn, sb, scount, st));
    size_t sbytes = block_bytes(sb, scount, st);
    if (at_root) {
        CK(check_counts(fn, p, rcounts, displs, comm));
        CK(check_type(fn, 0, rt, comm));
        CK(mc_check_vbuf(fn, comm, "receive", "rank", rb, p, rcounts, rt));
        CK(check_alias(fn, sb, rb, mc_any_v(p, rcounts, rt) ? sbytes : 0, comm));
    }
    int *b = at_root ? malloc(2 * (size_t)p * sizeof(int)) : NULL;
    if (at_root && b == NULL)
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    mcoll *x = NULL;
    const void *s = NULL;
    void *d = NULL;
    p2p_req *r = NULL;
    int grc = 0, mrc = view_in(sb, scount, st, &x, &s);
    if (mrc == MPI_SUCCESS && at_root)
        mrc = view_out(rb, rt, p, rcounts, displs, 0, sb == MPI_IN_PLACE, &x, &d, b, b + p);
    if (mrc == MPI_SUCCESS)
        grc = coll_igatherv(s, sbytes, d, b, b ? b + p : NULL, 1, root, &comm->coll, &r);
    free(b);
    return mc_finish(fn, comm, grc, mrc, r, x, req);
}

static int do_scatter(const char *fn, const void *sb, int scount, MPI_Datatype st, void *rb,
                      int rcount, MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *req)
{
    int rc;
    CK(check_start(fn, comm, root, req));
    if (COMM_IS_INTER(comm)) {
        if (root == MPI_ROOT) {
            CK(check_inter_in_place(fn, comm, sb));
            CK(mpi_check_buf(comm, fn, sb, scount, st));
        } else if (root != MPI_PROC_NULL) {
            CK(check_inter_in_place(fn, comm, rb));
            CK(mpi_check_buf(comm, fn, rb, rcount, rt));
        }
        return ic_result(fn, comm,
                         req ? icnb_scatter(sb, scount, st, rb, rcount, rt, root, comm, req)
                             : ic_scatter(sb, scount, st, rb, rcount, rt, root, comm));
    }
    int at_root = comm->rank == root, p = comm->size;
    if (rb == MPI_IN_PLACE && !at_root)
        return mpi_error(comm, MPI_ERR_BUFFER, fn, "MPI_IN_PLACE is only valid at the root");
    if (at_root) {
        CK(mpi_check_buf(comm, fn, sb, scount, st));
        CK(check_alias(fn, rb, sb, (size_t)scount * st->size, comm));
    }
    if (rb != MPI_IN_PLACE)
        CK(mpi_check_buf(comm, fn, rb, rcount, rt));
    mcoll *x = NULL;
    const void *s = NULL;
    void *d = rb;
    p2p_req *r = NULL;
    int grc = 0, mrc = MPI_SUCCESS;
    if (at_root)
        mrc = view_in(sb, scount * p, st, &x, &s);
    if (mrc == MPI_SUCCESS && rb != MPI_IN_PLACE)
        mrc = view_out(rb, rt, 1, NULL, NULL, rcount, 0, &x, &d, NULL, NULL);
    size_t bytes = at_root ? (size_t)scount * st->size : (size_t)rcount * rt->size;
    if (mrc == MPI_SUCCESS && !req) { /* coll_scatter may skip the schedule (coll.c) */
        grc = coll_scatter(s, d, bytes, 1, root, &comm->coll);
        mc_unpack_free(x, grc == GOAL_SUCCESS);
        return mc_blocking_result(fn, comm, grc);
    }
    if (mrc == MPI_SUCCESS)
        grc = coll_iscatter(s, d, bytes, 1, root, &comm->coll, &r);
    return mc_finish(fn, comm, grc, mrc, r, x, req);
}

static int do_scatterv(const char *fn, const void *sb, const int *scounts, const int *displs,
                       MPI_Datatype st, void *rb, int rcount, MPI_Datatype rt, int root,
                       MPI_Comm comm, MPI_Request *req)
{
    int rc;
    CK(check_start(fn, comm, root, req));
    if (COMM_IS_INTER(comm)) {
        if (root == MPI_ROOT) {
            CK(check_inter_in_place(fn, comm, sb));
            CK(check_counts(fn, comm->remote_size, scounts, displs, comm));
            CK(check_type(fn, 0, st, comm));
            CK(mc_check_vbuf(fn, comm, "send", "rank", sb, comm->remote_size, scounts, st));
        } else if (root != MPI_PROC_NULL) {
            CK(check_inter_in_place(fn, comm, rb));
            CK(mpi_check_buf(comm, fn, rb, rcount, rt));
        }
        return ic_result(fn, comm,
                         req ? icnb_scatterv(sb, scounts, displs, st, rb, rcount, rt, root, comm,
                                             req)
                             : ic_scatterv(sb, scounts, displs, st, rb, rcount, rt, root, comm));
    }
    int at_root = comm->rank == root, p = comm->size;
    if (rb == MPI_IN_PLACE && !at_root)
        return mpi_error(comm, MPI_ERR_BUFFER, fn, "MPI_IN_PLACE is only valid at the root");
    if (rb != MPI_IN_PLACE)
        CK(mpi_check_buf(comm, fn, rb, rcount, rt));
    size_t rbytes = block_bytes(rb, rcount, rt);
    if (at_root) {
        CK(check_counts(fn, p, scounts, displs, comm));
        CK(check_type(fn, 0, st, comm));
        CK(mc_check_vbuf(fn, comm, "send", "rank", sb, p, scounts, st));
        CK(check_alias(fn, rb, sb, mc_any_v(p, scounts, st) ? rbytes : 0, comm));
    }
    int *b = at_root ? malloc(2 * (size_t)p * sizeof(int)) : NULL;
    if (at_root && b == NULL)
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    mcoll *x = NULL;
    const void *s = NULL;
    void *d = rb;
    p2p_req *r = NULL;
    int grc = 0, mrc = MPI_SUCCESS;
    if (at_root)
        mrc = view_vin(sb, st, p, scounts, displs, &x, &s, b, b + p);
    if (mrc == MPI_SUCCESS && rb != MPI_IN_PLACE)
        mrc = view_out(rb, rt, 1, NULL, NULL, rcount, 0, &x, &d, NULL, NULL);
    if (mrc == MPI_SUCCESS)
        grc = coll_iscatterv(s, b, b ? b + p : NULL, d, rbytes, 1, root, &comm->coll, &r);
    free(b);
    return mc_finish(fn, comm, grc, mrc, r, x, req);
}

static int do_allgather(const char *fn, const void *sb, int scount, MPI_Datatype st, void *rb,
                        int rcount, MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{
    int rc;
    CK(check_start(fn, comm, ROOT_NONE, req));
    if (COMM_IS_INTER(comm))
        CK(check_inter_in_place(fn, comm, sb));
    if (sb != MPI_IN_PLACE)
        CK(mpi_check_buf(comm, fn, sb, scount, st));
    CK(mpi_check_buf(comm, fn, rb, rcount, rt));
    CK(check_alias(fn, sb, rb, (size_t)rcount * rt->size, comm));
    if (COMM_IS_INTER(comm))
        return ic_result(fn, comm, req ? icnb_allgather(sb, scount, st, rb, rcount, rt, comm, req)
                                       : ic_allgather(sb, scount, st, rb, rcount, rt, comm));
    mcoll *x = NULL;
    const void *s = NULL;
    void *d = NULL;
    p2p_req *r = NULL;
    int grc = 0, mrc = view_in(sb, scount, st, &x, &s);
    if (mrc == MPI_SUCCESS)
        mrc = view_out(rb, rt, 1, NULL, NULL, rcount * comm->size, sb == MPI_IN_PLACE, &x, &d,
                       NULL, NULL);
    if (mrc == MPI_SUCCESS)
        grc = coll_iallgather(s, d, (size_t)rcount * rt->size, 1, &comm->coll, &r);
    return mc_finish(fn, comm, grc, mrc, r, x, req);
}

static int do_allgatherv(const char *fn, const void *sb, int scount, MPI_Datatype st, void *rb,
                         const int *rcounts, const int *displs, MPI_Datatype rt, MPI_Comm comm,
                         MPI_Request *req)
{
    /* an intercommunicator's recvcounts and displs have a block per remote process */
    int rc, p = comm_ok(comm) ? comm->remote_size : 0;
    CK(check_start(fn, comm, ROOT_NONE, req));
    if (COMM_IS_INTER(comm))
        CK(check_inter_in_place(fn, comm, sb));
    if (sb != MPI_IN_PLACE)
        CK(mpi_check_buf(comm, fn, sb, scount, st));
    size_t sbytes = block_bytes(sb, scount, st);
    CK(check_counts(fn, p, rcounts, displs, comm));
    CK(check_type(fn, 0, rt, comm));
    CK(mc_check_vbuf(fn, comm, "receive", "rank", rb, p, rcounts, rt));
    CK(check_alias(fn, sb, rb, mc_any_v(p, rcounts, rt) ? sbytes : 0, comm));
    if (COMM_IS_INTER(comm)) {
        return ic_result(fn, comm,
                         req ? icnb_allgatherv(sb, scount, st, rb, rcounts, displs, rt, comm, req)
                             : ic_allgatherv(sb, scount, st, rb, rcounts, displs, rt, comm));
    }
    int *b = malloc(2 * (size_t)p * sizeof(int));
    if (b == NULL)
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    mcoll *x = NULL;
    const void *s = NULL;
    void *d = NULL;
    p2p_req *r = NULL;
    int grc = 0, mrc = view_in(sb, scount, st, &x, &s);
    if (mrc == MPI_SUCCESS)
        mrc = view_out(rb, rt, p, rcounts, displs, 0, sb == MPI_IN_PLACE, &x, &d, b, b + p);
    if (mrc == MPI_SUCCESS)
        grc = coll_iallgatherv(s, sbytes, d, b, b + p, 1, &comm->coll, &r);
    free(b);
    return mc_finish(fn, comm, grc, mrc, r, x, req);
}

static int do_alltoall(const char *fn, const void *sb, int scount, MPI_Datatype st, void *rb,
                       int rcount, MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{
    int rc;
    CK(check_start(fn, comm, ROOT_NONE, req));
    int p = comm->size;
    if (COMM_IS_INTER(comm))
        CK(check_inter_in_place(fn, comm, sb));
    if (sb != MPI_IN_PLACE)
        CK(mpi_check_buf(comm, fn, sb, scount, st));
    CK(mpi_check_buf(comm, fn, rb, rcount, rt));
    CK(check_alias(fn, sb, rb, (size_t)rcount * rt->size, comm));
    if (COMM_IS_INTER(comm))
        return ic_result(fn, comm, req ? icnb_alltoall(sb, scount, st, rb, rcount, rt, comm, req)
                                       : ic_alltoall(sb, scount, st, rb, rcount, rt, comm));
    mcoll *x = NULL;
    const void *s = NULL;
    void *d = NULL;
    p2p_req *r = NULL;
    int grc = 0, mrc = view_in(sb, scount * p, st, &x, &s);
    if (mrc == MPI_SUCCESS)
        mrc = view_out(rb, rt, 1, NULL, NULL, rcount * p, sb == MPI_IN_PLACE, &x, &d, NULL, NULL);
    if (mrc == MPI_SUCCESS)
        grc = coll_ialltoall(s, d, (size_t)rcount * rt->size, 1, &comm->coll, &r);
    return mc_finish(fn, comm, grc, mrc, r, x, req);
}

/* Alltoallv and Alltoallw share one byte-level schedule (alltoallv's, element size 1) and differ
 * in their views: alltoallv has one type a side and displacements in its elements, alltoallw a
 * type per block (sts/rts, NULL for alltoallv) and byte displacements. MPI_IN_PLACE: each receive
 * block is also what goes to its peer. */
typedef struct a2a_args {
    const void *sb;
    const int *scounts, *sdispls;
    MPI_Datatype st;
    const MPI_Datatype *sts;
    void *rb;
    const int *rcounts, *rdispls;
    MPI_Datatype rt;
    const MPI_Datatype *rts;
} a2a_args;

static int do_alltoallvw(const char *fn, const a2a_args *a, MPI_Comm comm, MPI_Request *req)
{
    /* an intercommunicator's arrays have a block per remote process */
    int rc, p = comm_ok(comm) ? comm->remote_size : 0, w = a->rts != NULL;
    int in_place = a->sb == MPI_IN_PLACE;
    CK(check_start(fn, comm, ROOT_NONE, req));
    if (COMM_IS_INTER(comm)) {
        CK(check_inter_in_place(fn, comm, a->sb));
        CK(check_inter_in_place(fn, comm, a->rb));
    }
    view_w sw = {p, a->scounts, a->sdispls, NULL, a->sts};
    view_w rw = {p, a->rcounts, a->rdispls, NULL, a->rts};
    if (w && a->rb == MPI_IN_PLACE)
        return mpi_error(comm, MPI_ERR_BUFFER, fn, "MPI_IN_PLACE is only valid as sendbuf");
    if (!in_place) {
        if (w) {
            CK(mc_check_w(fn, comm, &sw, "send", "rank"));
            CK(mc_check_wbuf(fn, comm, &sw, "send", "rank", a->sb));
        } else {
            CK(check_counts(fn, p, a->scounts, a->sdispls, comm));
            CK(check_type(fn, 0, a->st, comm));
            CK(mc_check_vbuf(fn, comm, "send", "rank", a->sb, p, a->scounts, a->st));
        }
    }
    if (w) {
        CK(mc_check_w(fn, comm, &rw, "receive", "rank"));
        CK(mc_check_wbuf(fn, comm, &rw, "receive", "rank", a->rb));
    } else {
        CK(check_counts(fn, p, a->rcounts, a->rdispls, comm));
        CK(check_type(fn, 0, a->rt, comm));
        CK(mc_check_vbuf(fn, comm, "receive", "rank", a->rb, p, a->rcounts, a->rt));
    }
    /* one buffer as both sides aliases only when each side moves a byte (whatever the layout) */
    if (!in_place)
        CK(check_alias(fn, a->sb, a->rb,
                       (w ? mc_any_w(&sw) && mc_any_w(&rw)
                          : mc_any_v(p, a->scounts, a->st) && mc_any_v(p, a->rcounts, a->rt)),
                       comm));
    if (COMM_IS_INTER(comm))
        return ic_result(fn, comm,
                         req ? icnb_alltoallvw(a->sb, a->scounts, a->sdispls, a->st, a->sts,
                                               a->rb, a->rcounts, a->rdispls, a->rt, a->rts,
                                               comm, req)
                             : ic_alltoallvw(a->sb, a->scounts, a->sdispls, a->st, a->sts, a->rb,
                                             a->rcounts, a->rdispls, a->rt, a->rts, comm));
    /* byte counts and displacements: send b, b + p; receive b + 2p, b + 3p */
    int *b = malloc(4 * (size_t)p * sizeof(int));
    if (b == NULL)
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    mcoll *x = NULL;
    const void *s = MPI_IN_PLACE;
    void *d = NULL;
    p2p_req *r = NULL;
    int grc = 0, mrc = MPI_SUCCESS;
    if (!in_place)
        mrc = w ? view_win(a->sb, &sw, &x, &s, b, b + p)
                : view_vin(a->sb, a->st, p, a->scounts, a->sdispls, &x, &s, b, b + p);
    if (mrc == MPI_SUCCESS)
        mrc = w ? view_wout(a->rb, &rw, in_place, &x, &d, b + 2 * p, b + 3 * p)
                : view_out(a->rb, a->rt, p, a->rcounts, a->rdispls, 0, in_place, &x, &d,
                           b + 2 * p, b + 3 * p);
    if (mrc == MPI_SUCCESS)
        grc = coll_ialltoallv(s, in_place ? NULL : b, in_place ? NULL : b + p, d, b + 2 * p,
                              b + 3 * p, 1, &comm->coll, &r);
    free(b);
    return mc_finish(fn, comm, grc, mrc, r, x, req);
}

/* ---- internal helpers for comm.c and MPI_Finalize ---- */

int mpi_coll_barrier(MPI_Comm comm)
{
    int rc = coll_barrier(&comm->coll);
    return rc == GOAL_SUCCESS ? MPI_SUCCESS : mpi_err_of_goal(rc);
}

int mpi_coll_allgather_int(MPI_Comm comm, const int *mine, int n, int *all)
{
    p2p_req *r;
    int rc = coll_iallgather(mine, all, (size_t)n * sizeof(int), 1, &comm->coll, &r);
    if (rc == GOAL_SUCCESS)
        rc = coll_wait(r);
    return rc == GOAL_SUCCESS ? MPI_SUCCESS : mpi_err_of_goal(rc);
}

/* ---- bindings ---- */

#define ENTER MPI_ENTER()

int MPI_Barrier(MPI_Comm comm)
{
    ENTER;
    return do_barrier("MPI_Barrier", comm, NULL);
}
int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    ENTER;
    if (request == NULL)
        return mpi_error(comm_ok(comm) ? comm : NULL, MPI_ERR_REQUEST, "MPI_Ibarrier",
                         "request is NULL");
    return do_barrier("MPI_Ibarrier", comm, request);
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    ENTER;
    return do_bcast("MPI_Bcast", buffer, count, datatype, root, comm, NULL);
}
int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request *request)
{
    ENTER;
    NB_REQ("MPI_Ibcast", comm, request);
    return do_bcast("MPI_Ibcast", buffer, count, datatype, root, comm, request);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm)
{
    ENTER;
    return do_reduce("MPI_Reduce", sendbuf, recvbuf, count, datatype, op, root, comm, NULL);
}
int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request *request)
{
    ENTER;
    NB_REQ("MPI_Ireduce", comm, request);
    return do_reduce("MPI_Ireduce", sendbuf, recvbuf, count, datatype, op, root, comm, request);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm)
{
    ENTER;
    return do_allred("MPI_Allreduce", RK_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, comm,
                     NULL);
}
int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    ENTER;
    NB_REQ("MPI_Iallreduce", comm, request);
    return do_allred("MPI_Iallreduce", RK_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, comm,
                     request);
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm)
{
    ENTER;
    return do_allred("MPI_Scan", RK_SCAN, sendbuf, recvbuf, count, datatype, op, comm, NULL);
}
int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Request *request)
{
    ENTER;
    NB_REQ("MPI_Iscan", comm, request);
    return do_allred("MPI_Iscan", RK_SCAN, sendbuf, recvbuf, count, datatype, op, comm, request);
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm)
{
    ENTER;
    return do_allred("MPI_Exscan", RK_EXSCAN, sendbuf, recvbuf, count, datatype, op, comm, NULL);
}
int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Request *request)
{
    ENTER;
    NB_REQ("MPI_Iexscan", comm, request);
    return do_allred("MPI_Iexscan", RK_EXSCAN, sendbuf, recvbuf, count, datatype, op, comm,
                     request);
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    ENTER;
    return do_allred("MPI_Reduce_scatter_block", RK_RSB, sendbuf, recvbuf, recvcount, datatype,
                     op, comm, NULL);
}
int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request *request)
{
    ENTER;
    NB_REQ("MPI_Ireduce_scatter_block", comm, request);
    return do_allred("MPI_Ireduce_scatter_block", RK_RSB, sendbuf, recvbuf, recvcount, datatype,
                     op, comm, request);
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    ENTER;
    return do_reduce_scatter("MPI_Reduce_scatter", sendbuf, recvbuf, recvcounts, datatype, op,
                             comm, NULL);
}
int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    ENTER;
    NB_REQ("MPI_Ireduce_scatter", comm, request);
    return do_reduce_scatter("MPI_Ireduce_scatter", sendbuf, recvbuf, recvcounts, datatype, op,
                             comm, request);
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    ENTER;
    return do_gather("MPI_Gather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                     root, comm, NULL);
}
int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                MPI_Request *request)
{
    ENTER;
    NB_REQ("MPI_Igather", comm, request);
    return do_gather("MPI_Igather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                     root, comm, request);
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm)
{
    ENTER;
    return do_gatherv("MPI_Gatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                      recvtype, root, comm, NULL);
}
int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request *request)
{
    ENTER;
    NB_REQ("MPI_Igatherv", comm, request);
    return do_gatherv("MPI_Igatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                      recvtype, root, comm, request);
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    ENTER;
    return do_scatter("MPI_Scatter", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                      root, comm, NULL);
}
int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    ENTER;
    NB_REQ("MPI_Iscatter", comm, request);
    return do_scatter("MPI_Iscatter", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                      root, comm, request);
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm)
{
    ENTER;
    return do_scatterv("MPI_Scatterv", sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                       recvtype, root, comm, NULL);
}
int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm, MPI_Request *request)
{
    ENTER;
    NB_REQ("MPI_Iscatterv", comm, request);
    return do_scatterv("MPI_Iscatterv", sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                       recvtype, root, comm, request);
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    ENTER;
    return do_allgather("MPI_Allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                        recvtype, comm, NULL);
}
int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    ENTER;
    NB_REQ("MPI_Iallgather", comm, request);
    return do_allgather("MPI_Iallgather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                        recvtype, comm, request);
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm)
{
    ENTER;
    return do_allgatherv("MPI_Allgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                         displs, recvtype, comm, NULL);
}
int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request *request)
{
    ENTER;
    NB_REQ("MPI_Iallgatherv", comm, request);
    return do_allgatherv("MPI_Iallgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                         displs, recvtype, comm, request);
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    ENTER;
    return do_alltoall("MPI_Alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                       comm, NULL);
}
int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    ENTER;
    NB_REQ("MPI_Ialltoall", comm, request);
    return do_alltoall("MPI_Ialltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                       recvtype, comm, request);
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    ENTER;
    a2a_args a = {sendbuf, sendcounts, sdispls, sendtype, NULL, recvbuf, recvcounts, rdispls,
                  recvtype, NULL};
    return do_alltoallvw("MPI_Alltoallv", &a, comm, NULL);
}
int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request *request)
{
    ENTER;
    NB_REQ("MPI_Ialltoallv", comm, request);
    a2a_args a = {sendbuf, sendcounts, sdispls, sendtype, NULL, recvbuf, recvcounts, rdispls,
                  recvtype, NULL};
    return do_alltoallvw("MPI_Ialltoallv", &a, comm, request);
}

int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    ENTER;
    a2a_args a = {sendbuf, sendcounts, sdispls, NULL, sendtypes, recvbuf, recvcounts, rdispls,
                  NULL, recvtypes};
    return do_alltoallvw("MPI_Alltoallw", &a, comm, NULL);
}
int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                   MPI_Request *request)
{
    ENTER;
    NB_REQ("MPI_Ialltoallw", comm, request);
    a2a_args a = {sendbuf, sendcounts, sdispls, NULL, sendtypes, recvbuf, recvcounts, rdispls,
                  NULL, recvtypes};
    return do_alltoallvw("MPI_Ialltoallw", &a, comm, request);
}

CREDO_PMPI(MPI_Barrier)
CREDO_PMPI(MPI_Ibarrier)
CREDO_PMPI(MPI_Bcast)
CREDO_PMPI(MPI_Ibcast)
CREDO_PMPI(MPI_Reduce)
CREDO_PMPI(MPI_Ireduce)
CREDO_PMPI(MPI_Allreduce)
CREDO_PMPI(MPI_Iallreduce)
CREDO_PMPI(MPI_Scan)
CREDO_PMPI(MPI_Iscan)
CREDO_PMPI(MPI_Exscan)
CREDO_PMPI(MPI_Iexscan)
CREDO_PMPI(MPI_Reduce_scatter_block)
CREDO_PMPI(MPI_Ireduce_scatter_block)
CREDO_PMPI(MPI_Reduce_scatter)
CREDO_PMPI(MPI_Ireduce_scatter)
CREDO_PMPI(MPI_Gather)
CREDO_PMPI(MPI_Igather)
CREDO_PMPI(MPI_Gatherv)
CREDO_PMPI(MPI_Igatherv)
CREDO_PMPI(MPI_Scatter)
CREDO_PMPI(MPI_Iscatter)
CREDO_PMPI(MPI_Scatterv)
CREDO_PMPI(MPI_Iscatterv)
CREDO_PMPI(MPI_Allgather)
CREDO_PMPI(MPI_Iallgather)
CREDO_PMPI(MPI_Allgatherv)
CREDO_PMPI(MPI_Iallgatherv)
CREDO_PMPI(MPI_Alltoall)
CREDO_PMPI(MPI_Ialltoall)
CREDO_PMPI(MPI_Alltoallv)
CREDO_PMPI(MPI_Ialltoallv)
CREDO_PMPI(MPI_Alltoallw)
CREDO_PMPI(MPI_Ialltoallw)
