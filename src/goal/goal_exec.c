/* src/goal/goal_exec.c — the GOAL executor: starts ready operations of a run over p2p, turns p2p
 * completions into dependency-counter updates through a trampoline queue, and the GOAL_* runtime. */
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "base/lock.h"
#include "goal/goal_exec.h"
#include "xport/copy.h"

/* Completion trampoline. p2p calls our hook from progress, and starting a send from there may
 * complete a self-receive whose hook runs nested inside p2p_isend. Nested completions only enqueue
 * here; the outermost drain handles them in a loop, so chains of any length never recurse. */
static struct {
    struct goal_run *head_run, *tail_run;
    uint32_t head_op, tail_op;
    int draining;
} Q;

/* The group behind GOAL_Init / GOAL_InitGroup. */
static struct {
    goal_group grp;
    int *job_of;
    int initialized, finalized, started_credo;
} G;

static void run_fail(struct goal_run *run, int code)
{
    if (!run->error)
        run->error = code;
}

static void *operand(struct goal_run *run, const goal_vop *op, int i)
{
    return op->mem[i] == GOAL_SCRATCHPAD ? (void *)(run->scratch + op->buf[i]) : (void *)op->buf[i];
}

static void *block_addr(struct goal_run *run, const goal_vop *op, int i, uint32_t k)
{
    const goal_blk *b = &run->s->app[op->buf[i] + k];
    return op->mem[i] == GOAL_SCRATCHPAD ? (void *)(run->scratch + b->addr) : (void *)b->addr;
}

static void gather_blocks(struct goal_run *run, const goal_vop *op, int i, unsigned char *dst)
{
    for (uint32_t k = 0; k < op->nblk[i]; k++) {
        uint64_t len = run->s->app[op->buf[i] + k].len;
        if (len) /* an empty block may sit in an empty scratchpad (NULL) */
            credo_copy(dst, block_addr(run, op, i, k), len);
        dst += len;
    }
}

static void scatter_blocks(struct goal_run *run, const goal_vop *op, int i, const unsigned char *src,
                           uint64_t bytes)
{
    for (uint32_t k = 0; k < op->nblk[i] && bytes; k++) {
        uint64_t len = run->s->app[op->buf[i] + k].len;
        if (len > bytes)
            len = bytes;
        if (len)
            credo_copy(block_addr(run, op, i, k), src, len);
        src += len;
        bytes -= len;
    }
}

static void enqueue(struct goal_run *run, uint32_t op)
{
    run->x[op].next_run = NULL;
    if (Q.tail_run)
        Q.tail_run->x[Q.tail_op].next_run = run, Q.tail_run->x[Q.tail_op].next_op = op;
    else
        Q.head_run = run, Q.head_op = op;
    Q.tail_run = run;
    Q.tail_op = op;
}

static void drain(void);

static void on_p2p_complete(p2p_req *req)
{
    struct goal_run *run = req->upper;
    uint32_t op = (uint32_t)req->upper_data[0];
    run->x[op].err = req->status.error;
    run->x[op].bytes = req->status.bytes;
    enqueue(run, op);
    drain();
}

static void local_op(struct goal_run *run, const goal_vop *op)
{
    if (!op->nblk[0] && !op->nblk[1] && !op->nblk[2]) {
        goal_lop_apply(op->lop, op->dtype, op->width, operand(run, op, 0), operand(run, op, 1),
                       operand(run, op, 2), op->size);
        return;
    }
    /* Vector form: gather each operand into a contiguous stream, apply, scatter the result. */
    uint64_t bytes = goal_lop_bytes(op->lop, op->width, op->size);
    unsigned char *t = malloc(bytes * 3 + 1);
    if (!t) {
        run_fail(run, GOAL_ERR_NOMEM);
        return;
    }
    unsigned char *a = t, *b = t + bytes, *r = t + 2 * bytes;
    const void *src[3] = {a, b, r};
    for (int i = 0; i < 3; i++) {
        if (op->nblk[i])
            gather_blocks(run, op, i, (unsigned char *)src[i]);
        else if (i < 2 && (i == 0 || op->lop != GOAL_COPY))
            credo_copy((void *)src[i], operand(run, op, i), bytes);
    }
    goal_lop_apply(op->lop, op->dtype, op->width, a, op->lop == GOAL_COPY ? NULL : b, r, op->size);
    if (op->nblk[2])
        scatter_blocks(run, op, 2, r, bytes);
    else
        credo_copy(operand(run, op, 2), r, bytes);
    free(t);
}

/* Posts a send or receive; completion arrives through the trampoline. */
static void start_xfer(struct goal_run *run, uint32_t i, const goal_vop *op)
{
    const goal_group *g = run->grp;
    int job = g->job_of ? g->job_of[op->peer] : op->peer;
    int tag = GOAL_P2P_TAG(run->seq, (uint32_t)op->tag);
    void *buf = operand(run, op, 0);
    goal_xfer *x = &run->x[i];
    x->tmp = NULL;
    if (op->nblk[0]) {
        x->tmp = malloc(op->size ? op->size : 1);
        if (!x->tmp) {
            x->err = P2P_ERR_NOMEM;
            enqueue(run, i);
            return;
        }
        if (op->kind == GK_SEND)
            gather_blocks(run, op, 0, x->tmp);
        buf = x->tmp;
    }
    static unsigned char empty_msg; /* never read or written: p2p dislikes NULL even for 0 bytes */
    if (!op->size)
        buf = &empty_msg;
    p2p_req *req = NULL;
    int rc = op->kind == GK_SEND
                 ? p2p_isend(buf, op->size, job, tag, g->ctx, P2P_MODE_STANDARD, &req)
                 : p2p_irecv(buf, op->size, job, tag, g->ctx, &req);
    if (rc) {
        x->err = rc;
        enqueue(run, i);
        return;
    }
    /* Completed inside the call (self-send, eager fits): the hook was not set yet. */
    if (req->done) {
        x->err = req->status.error;
        x->bytes = req->status.bytes;
        p2p_req_free(req);
        enqueue(run, i);
        return;
    }
    req->upper = run;
    req->upper_data[0] = i;
    req->on_complete = on_p2p_complete;
    p2p_req_free(req); /* p2p releases it after the hook */
}

/* Runs started and not finished: credo_schedules_in_flight (src/base), for the progress thread's
 * idle policy. */
int goal_exec_in_flight(void)
{
    return __atomic_load_n(&credo_schedules_in_flight, __ATOMIC_RELAXED);
}

static void finish_run(struct goal_run *run)
{
    __atomic_store_n(&credo_schedules_in_flight, credo_schedules_in_flight - 1, __ATOMIC_RELAXED);
    if (run->scratch && !run->s->scratch_cache)
        run->s->scratch_cache = run->scratch; /* the next run of this schedule reuses it */
    else
        free(run->scratch);
    run->scratch = NULL;
    /* atomic: GOAL_FreeSchedule reads it without the progress thread's lock */
    __atomic_fetch_sub(&run->s->active_runs, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&run->done, 1, __ATOMIC_RELEASE);
    if (run->on_done)
        run->on_done(run);
}

/* Starts every ready op; local ops finish at once and may make more ops ready (same loop). */
static void start_ready(struct goal_run *run)
{
    uint32_t i;
    while (goal_rs_next(&run->rs, &i)) {
        const goal_vop *op = &run->s->ops[i];
        goal_rs_started(&run->rs, i);
        switch (op->kind) {
        case GK_SEND:
        case GK_RECV:
            start_xfer(run, i, op);
            continue;
        case GK_LOCALOP:
            local_op(run, op);
            break;
        case GK_CALC:
            goal_spin_ns(op->size);
            break;
        case GK_CALLBACK:
            run->s->cbs[op->buf[2]].fn(operand(run, op, 0), operand(run, op, 1), op->size,
                                        run->s->cbs[op->buf[2]].arg);
            break;
        }
        goal_rs_finished(&run->rs, i);
    }
}

static void complete_xfer(struct goal_run *run, uint32_t i)
{
    const goal_vop *op = &run->s->ops[i];
    goal_xfer *x = &run->x[i];
    if (x->err == P2P_ERR_TRUNCATE)
        run_fail(run, GOAL_ERR_TRUNCATE);
    else if (x->err == P2P_ERR_NOMEM)
        run_fail(run, GOAL_ERR_NOMEM);
    else if (x->err)
        run_fail(run, GOAL_ERR_COMM);
    else if (op->kind == GK_RECV && x->bytes != op->size)
        run_fail(run, GOAL_ERR_TRUNCATE); /* sizes must agree */
    if (x->tmp) {
        if (op->kind == GK_RECV && !x->err)
            scatter_blocks(run, op, 0, x->tmp, x->bytes);
        free(x->tmp);
        x->tmp = NULL;
    }
    goal_rs_finished(&run->rs, i);
    start_ready(run);
    if (run->rs.remaining == 0)
        finish_run(run);
}

static void drain(void)
{
    if (Q.draining)
        return;
    Q.draining = 1;
    while (Q.head_run) {
        struct goal_run *run = Q.head_run;
        uint32_t op = Q.head_op;
        Q.head_run = run->x[op].next_run;
        Q.head_op = run->x[op].next_op;
        if (!Q.head_run)
            Q.tail_run = NULL;
        complete_xfer(run, op);
    }
    Q.draining = 0;
}

/* Run state pool. A run needs its record, one transfer record, one dependency counter and one ready
 * slot per op; all four live in one block, and finished blocks wait here for the next run that fits
 * (collectives start the same few schedules over and over, so a block is nearly always reused and a
 * run's start costs no allocation). The executor only runs under the big lock, like the trampoline. */
#define RUN_POOL 16
static struct {
    struct goal_run *blk[RUN_POOL];
    int n;
} Pool;

static size_t run_block_bytes(uint32_t cap)
{
    return sizeof(struct goal_run) + (size_t)cap * (sizeof(goal_xfer) + 2 * sizeof(uint32_t));
}

static struct goal_run *run_alloc(uint32_t nops)
{
    uint32_t cap = nops + 1;
    for (int i = Pool.n - 1; i >= 0; i--) /* most recently freed first: warm in cache */
        if (Pool.blk[i]->cap >= cap) {
            struct goal_run *run = Pool.blk[i];
            Pool.blk[i] = Pool.blk[--Pool.n];
            return run;
        }
    if (cap < 16)
        cap = 16; /* small schedules then share blocks */
    struct goal_run *run = malloc(run_block_bytes(cap));
    if (run)
        run->cap = cap;
    return run;
}

static void run_release(struct goal_run *run)
{
    if (Pool.n < RUN_POOL) {
        Pool.blk[Pool.n++] = run;
        return;
    }
    /* full: keep the larger block, large schedules are the expensive ones to set up */
    int small = 0;
    for (int i = 1; i < RUN_POOL; i++)
        if (Pool.blk[i]->cap < Pool.blk[small]->cap)
            small = i;
    if (Pool.blk[small]->cap < run->cap) {
        free(Pool.blk[small]);
        Pool.blk[small] = run;
    } else {
        free(run);
    }
}

int goal_exec_start(struct goal_sched *s, goal_group *grp, goal_run_done_fn on_done, void *upper,
                    struct goal_run **out)
{
    return goal_exec_start_ex(s, grp, on_done, upper, NULL, out);
}

int goal_exec_start_ex(struct goal_sched *s, goal_group *grp, goal_run_done_fn on_done, void *upper,
                       void *upper2, struct goal_run **out)
{
    *out = NULL;
    if (!s || !grp)
        return GOAL_ERR_ARG;
    if (s->max_peer >= grp->size)
        return GOAL_ERR_ARG;
    struct goal_run *run = run_alloc(s->nops);
    if (!run)
        return GOAL_ERR_NOMEM;
    uint32_t cap = run->cap;
    /* Transfer records need no clearing: every field is written before it is read. */
    run->x = (goal_xfer *)(run + 1);
    uint32_t *cnt = (uint32_t *)(run->x + cap), *ready = cnt + cap;
    run->s = s;
    run->grp = grp;
    run->error = 0;
    run->done = 0;
    run->on_done = on_done;
    run->upper = upper;
    run->upper2 = upper2;
    /* Reusing the last run's scratchpad keeps large collectives off fresh mmap'ed pages, whose faults
     * (and the kernel's zeroing) cost more than the transfer itself; it is still zero-filled. */
    run->scratch = NULL;
    if (s->scratch && s->scratch_cache) {
        run->scratch = s->scratch_cache;
        s->scratch_cache = NULL;
        if (!s->scratch_dirty_ok)
            memset(run->scratch, 0, s->scratch);
    } else if (s->scratch) {
        run->scratch = s->scratch_dirty_ok ? malloc(s->scratch) : calloc(1, s->scratch);
        if (!run->scratch) {
            run_release(run);
            return GOAL_ERR_NOMEM;
        }
    }
    goal_rs_init_in(&run->rs, s, cnt, ready);
    run->seq = grp->next_seq++;
    __atomic_fetch_add(&s->active_runs, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&credo_schedules_in_flight, credo_schedules_in_flight + 1, __ATOMIC_RELAXED);
    *out = run;
    /* Completions of this run's ops that happen while we start them wait in the queue: the run's
     * start loop and the drain are one trampoline. */
    int outer = !Q.draining;
    Q.draining = 1;
    start_ready(run);
    if (run->rs.remaining == 0)
        finish_run(run);
    if (outer) {
        Q.draining = 0;
        drain();
    }
    return GOAL_SUCCESS;
}

void goal_exec_free(struct goal_run *run)
{
    if (!run)
        return;
    free(run->scratch);
    run_release(run);
}

int goal_exec_wait(struct goal_run *run)
{
    p2p_waiter w = P2P_WAITER_INIT;
    p2p_waiting_begin();
    while (!__atomic_load_n(&run->done, __ATOMIC_ACQUIRE))
        p2p_wait_step(&w);
    p2p_waiting_end();
    return run->error;
}

/* ---- the GOAL_* runtime on one process-wide group ---- */

/* GOAL_Init's world group travels on a context MPI never hands out (its ids grow from 0). */
#define GOAL_WORLD_CTX 0xC0A1C000u

/* Starts the runtime under GOAL unless MPI (or an earlier GOAL_Init) did. */
static int goal_runtime_up(void)
{
    if (G.initialized)
        return GOAL_ERR_STATE;
    if (!credo_rt.initialized) {
        if (credo_init())
            return GOAL_ERR_COMM;
        G.started_credo = 1;
    }
    return GOAL_SUCCESS;
}

int GOAL_InitGroup(int size, int rank, const int *job_ranks, uint32_t context)
{
    int rc = goal_runtime_up();
    if (rc != GOAL_SUCCESS)
        return rc;
    if (size <= 0 || rank < 0 || rank >= size)
        return GOAL_ERR_ARG;
    G.job_of = NULL;
    if (job_ranks) {
        G.job_of = malloc((size_t)size * sizeof(int));
        if (!G.job_of)
            return GOAL_ERR_NOMEM;
        for (int i = 0; i < size; i++) {
            if (job_ranks[i] < 0 || job_ranks[i] >= credo_rt.size) {
                free(G.job_of);
                G.job_of = NULL;
                return GOAL_ERR_ARG;
            }
            G.job_of[i] = job_ranks[i];
        }
    }
    G.grp = (goal_group){.size = size, .rank = rank, .job_of = G.job_of, .ctx = context};
    G.initialized = 1;
    G.finalized = 0;
    return GOAL_SUCCESS;
}

int GOAL_Init(void)
{
    /* the world group's size and rank are only known once the runtime is up */
    int rc = goal_runtime_up();
    return rc != GOAL_SUCCESS ? rc : GOAL_InitGroup(credo_rt.size, credo_rt.rank, NULL, GOAL_WORLD_CTX);
}

int GOAL_IsInitialized(void)
{
    return G.initialized;
}

int GOAL_GroupSize(void)
{
    return G.initialized ? G.grp.size : GOAL_ERR_STATE;
}

int GOAL_MyRank(void)
{
    return G.initialized ? G.grp.rank : GOAL_ERR_STATE;
}

int GOAL_Finalize(void)
{
    if (!G.initialized)
        return GOAL_ERR_STATE;
    free(G.job_of);
    G.job_of = NULL;
    G.initialized = 0;
    G.finalized = 1;
    if (G.started_credo) {
        G.started_credo = 0;
        credo_finalize();
    }
    return GOAL_SUCCESS;
}

int GOAL_IsFinalized(void)
{
    return !G.initialized;
}

/* The run calls reach p2p: with MPI's progress thread running they take its lock, like MPI calls. */
GOAL_Handle GOAL_Run(GOAL_Schedule sched)
{
    CREDO_LOCK_ENTER();
    struct goal_run *run = NULL;
    if (!G.initialized || !sched)
        return NULL;
    if (goal_exec_start(sched, &G.grp, NULL, NULL, &run))
        return NULL;
    return run;
}

int GOAL_Test(GOAL_Handle handle)
{
    CREDO_LOCK_ENTER();
    if (!handle)
        return GOAL_ERR_STATE;
    if (!__atomic_load_n(&handle->done, __ATOMIC_ACQUIRE)) {
        p2p_progress();
        if (!__atomic_load_n(&handle->done, __ATOMIC_ACQUIRE))
            return 0;
    }
    int err = handle->error;
    goal_exec_free(handle);
    return err ? err : 1;
}

int GOAL_Wait(GOAL_Handle handle)
{
    CREDO_LOCK_ENTER();
    if (!handle)
        return GOAL_ERR_STATE;
    int err = goal_exec_wait(handle);
    goal_exec_free(handle);
    return err;
}

int GOAL_IsExtensionAvailable(GOAL_ExtensionId ext)
{
    return ext == GOAL_EXT_IREQUIRES || ext == GOAL_EXT_CALC || ext == GOAL_EXT_GROUP ||
           ext == GOAL_EXT_CALLBACK;
}
