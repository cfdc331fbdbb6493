/* src/goal/goal_compile.c — compiling a graph into an immutable schedule (CSR successor lists,
 * cycle and scratchpad checks) and the per-run dependency counters that drive execution. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "goal/goal_impl.h"

static atomic_uint_fast64_t sched_ids = 1;

int goal_sched_prepare_scratch(struct goal_sched *s)
{
    if (!s || !s->scratch)
        return GOAL_SUCCESS;
    if (s->active_runs)
        return GOAL_ERR_STATE;
    if (!s->scratch_cache) {
        s->scratch_cache = malloc(s->scratch);
        if (!s->scratch_cache)
            return GOAL_ERR_NOMEM;
    }
    /* Writing every byte makes every page resident now; reading a fresh page would only map the
     * shared zero page, and the run's first write to it would still fault. */
    memset(s->scratch_cache, 0, s->scratch);
    s->scratch_dirty_ok = 1;
    return GOAL_SUCCESS;
}

void goal_sched_destroy(struct goal_sched *s)
{
    if (!s)
        return;
    free(s->ops);
    free(s->app);
    free(s->cbs);
    free(s->succ_off);
    free(s->succ);
    free(s->isucc_off);
    free(s->isucc);
    free(s->indeg);
    free(s->roots);
    free(s->scratch_cache);
    free(s);
}

uint64_t goal_operand_bytes(const struct goal_sched *s, const goal_vop *op, int i)
{
    if (op->nblk[i]) {
        uint64_t t = 0;
        for (uint32_t k = 0; k < op->nblk[i]; k++)
            t += s->app[op->buf[i] + k].len;
        return t;
    }
    switch (op->kind) {
    case GK_SEND:
    case GK_RECV:
        return i == 0 ? op->size : 0;
    case GK_LOCALOP:
        if (op->lop == GOAL_WTIME)
            return i == 2 ? sizeof(double) : 0;
        if (i == 1 && op->lop == GOAL_COPY)
            return 0;
        return goal_lop_bytes(op->lop, op->width, op->size);
    default:
        return 0; /* calc has no operands; callback operands are sized by the callback */
    }
}

/* Every scratchpad access must lie inside the scratchpad: checked once here, not per run. */
static int check_scratch(const struct goal_sched *s, const goal_vop *op)
{
    for (int i = 0; i < 3; i++) {
        if (op->mem[i] != GOAL_SCRATCHPAD || op->kind == GK_CALLBACK)
            continue;
        if (op->nblk[i]) {
            for (uint32_t k = 0; k < op->nblk[i]; k++) {
                const goal_blk *b = &s->app[op->buf[i] + k];
                if (b->addr > s->scratch || b->len > s->scratch - b->addr)
                    return GOAL_ERR_RANGE;
            }
        } else {
            uint64_t n = goal_operand_bytes(s, op, i);
            if (n && (op->buf[i] > s->scratch || n > s->scratch - op->buf[i]))
                return GOAL_ERR_RANGE;
        }
    }
    return GOAL_SUCCESS;
}

static void *dup_array(const void *src, size_t n, size_t elem)
{
    if (!n)
        return calloc(1, elem); /* never NULL on success, so failure is unambiguous */
    void *d = malloc(n * elem);
    if (d)
        memcpy(d, src, n * elem);
    return d;
}

int goal_compile(const struct goal_graph *g, struct goal_sched **out)
{
    *out = NULL;
    if (!g)
        return GOAL_ERR_ARG;
    if (g->status)
        return g->status;
    struct goal_sched *s = calloc(1, sizeof *s);
    if (!s)
        return GOAL_ERR_NOMEM;
    uint32_t n = g->nops;
    s->nops = n;
    s->scratch = g->scratch;
    s->max_peer = -1;
    s->ops = dup_array(g->ops, n, sizeof *g->ops);
    s->app = dup_array(g->app, g->napp, sizeof *g->app);
    s->cbs = dup_array(g->cbs, g->ncbs, sizeof *g->cbs);
    s->succ_off = calloc((size_t)n + 1, sizeof(uint32_t));
    s->isucc_off = calloc((size_t)n + 1, sizeof(uint32_t));
    s->indeg = calloc((size_t)n + 1, sizeof(uint32_t));
    s->succ = malloc(((size_t)g->nedges + 1) * sizeof(uint32_t));
    s->isucc = malloc(((size_t)g->nedges + 1) * sizeof(uint32_t));
    uint32_t *queue = malloc(((size_t)n + 1) * sizeof(uint32_t));
    uint32_t *cnt = malloc(((size_t)n + 1) * sizeof(uint32_t));
    int rc = GOAL_ERR_NOMEM;
    if (!s->ops || !s->app || !s->cbs || !s->succ_off || !s->isucc_off || !s->indeg || !s->succ ||
        !s->isucc || !queue || !cnt)
        goto fail;

    /* CSR: count, prefix-sum, fill (edges keep their insertion order per source). */
    for (uint32_t e = 0; e < g->nedges; e++) {
        const goal_edge *ed = &g->edges[e];
        if (ed->kind == GOAL_TXT_IREQUIRES)
            s->isucc_off[ed->from + 1]++;
        else
            s->succ_off[ed->from + 1]++;
        s->indeg[ed->to]++;
    }
    for (uint32_t i = 0; i < n; i++) {
        s->succ_off[i + 1] += s->succ_off[i];
        s->isucc_off[i + 1] += s->isucc_off[i];
    }
    memcpy(cnt, s->succ_off, (size_t)n * sizeof *cnt);
    memcpy(queue, s->isucc_off, (size_t)n * sizeof *queue); /* borrowed as fill cursors */
    for (uint32_t e = 0; e < g->nedges; e++) {
        const goal_edge *ed = &g->edges[e];
        if (ed->kind == GOAL_TXT_IREQUIRES)
            s->isucc[queue[ed->from]++] = ed->to;
        else
            s->succ[cnt[ed->from]++] = ed->to;
    }

    /* Kahn's algorithm over both edge kinds: a cycle through irequires deadlocks just the same. */
    uint32_t head = 0, tail = 0, nroots = 0;
    memcpy(cnt, s->indeg, (size_t)n * sizeof *cnt);
    for (uint32_t i = 0; i < n; i++)
        if (!cnt[i])
            queue[tail++] = i;
    nroots = tail;
    while (head < tail) {
        uint32_t v = queue[head++];
        for (uint32_t k = s->succ_off[v]; k < s->succ_off[v + 1]; k++)
            if (--cnt[s->succ[k]] == 0)
                queue[tail++] = s->succ[k];
        for (uint32_t k = s->isucc_off[v]; k < s->isucc_off[v + 1]; k++)
            if (--cnt[s->isucc[k]] == 0)
                queue[tail++] = s->isucc[k];
    }
    if (tail != n) {
        rc = GOAL_ERR_CYCLE;
        goto fail;
    }
    s->roots = malloc(((size_t)nroots + 1) * sizeof(uint32_t));
    if (!s->roots)
        goto fail;
    memcpy(s->roots, queue, (size_t)nroots * sizeof(uint32_t));
    s->nroots = nroots;

    for (uint32_t i = 0; i < n; i++) {
        const goal_vop *op = &s->ops[i];
        if ((op->kind == GK_SEND || op->kind == GK_RECV) && op->peer > s->max_peer)
            s->max_peer = op->peer;
        if ((rc = check_scratch(s, op)) != GOAL_SUCCESS)
            goto fail;
    }
    free(queue);
    free(cnt);
    s->id = atomic_fetch_add_explicit(&sched_ids, 1, memory_order_relaxed);
    *out = s;
    return GOAL_SUCCESS;
fail:
    free(queue);
    free(cnt);
    goal_sched_destroy(s);
    return rc;
}

/* ---- per-run state ---- */

int goal_rs_init(goal_rs *rs, const struct goal_sched *s)
{
    rs->s = s;
    rs->head = rs->tail = 0;
    rs->remaining = s->nops;
    rs->cnt = malloc(((size_t)s->nops + 1) * sizeof(uint32_t));
    rs->ready = malloc(((size_t)s->nops + 1) * sizeof(uint32_t));
    if (!rs->cnt || !rs->ready) {
        goal_rs_destroy(rs);
        return GOAL_ERR_NOMEM;
    }
    memcpy(rs->cnt, s->indeg, (size_t)s->nops * sizeof(uint32_t));
    memcpy(rs->ready, s->roots, (size_t)s->nroots * sizeof(uint32_t));
    rs->tail = s->nroots;
    return GOAL_SUCCESS;
}

void goal_rs_init_in(goal_rs *rs, const struct goal_sched *s, uint32_t *cnt, uint32_t *ready)
{
    rs->s = s;
    rs->cnt = cnt;
    rs->ready = ready;
    rs->head = 0;
    rs->tail = s->nroots;
    rs->remaining = s->nops;
    memcpy(cnt, s->indeg, (size_t)s->nops * sizeof(uint32_t));
    memcpy(ready, s->roots, (size_t)s->nroots * sizeof(uint32_t));
}

void goal_rs_destroy(goal_rs *rs)
{
    free(rs->cnt);
    free(rs->ready);
    rs->cnt = rs->ready = NULL;
}

void goal_rs_started(goal_rs *rs, uint32_t op)
{
    const struct goal_sched *s = rs->s;
    for (uint32_t k = s->isucc_off[op]; k < s->isucc_off[op + 1]; k++)
        if (--rs->cnt[s->isucc[k]] == 0)
            rs->ready[rs->tail++] = s->isucc[k];
}

void goal_rs_finished(goal_rs *rs, uint32_t op)
{
    const struct goal_sched *s = rs->s;
    rs->remaining--;
    for (uint32_t k = s->succ_off[op]; k < s->succ_off[op + 1]; k++)
        if (--rs->cnt[s->succ[k]] == 0)
            rs->ready[rs->tail++] = s->succ[k];
}

/* ---- public schedule calls ---- */

GOAL_Schedule GOAL_Compile(GOAL_Graph graph)
{
    struct goal_sched *s = NULL;
    int rc = goal_compile(graph, &s);
    if (rc != GOAL_SUCCESS && graph && graph->status == GOAL_SUCCESS)
        graph->status = rc; /* tells the caller why: GOAL_GraphStatus */
    return s;
}

/* Runs copy their counters, never the schedule, so a schedule stays runnable until freed. */
int GOAL_IsScheduleValid(GOAL_Schedule sched)
{
    return sched != NULL;
}

void GOAL_MakeScheduleReusable(GOAL_Schedule sched)
{
    if (sched)
        sched->reusable = 1;
}

int GOAL_FreeSchedule(GOAL_Schedule sched)
{
    if (!sched)
        return GOAL_ERR_ARG;
    /* atomic: a progress thread may be finishing a run of it (goal_exec.c's finish_run) */
    if (__atomic_load_n(&sched->active_runs, __ATOMIC_ACQUIRE))
        return GOAL_ERR_STATE;
    goal_sched_destroy(sched);
    return GOAL_SUCCESS;
}
