/* src/sim/sim_sched.c — building credosim schedules: the rank-by-rank builder, the compact
 * successor (CSR) form the engine walks, and the adapter from src/goal's GOAL text reader. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "goal/goal_text.h"
#include "sim/sim.h"

/* Dependencies are kept as (op, on, kind) with global op ids until finish, then turned into
 * per-op successor lists with one counting pass: no per-op vectors while building. */
typedef struct sim_bdep {
    uint32_t op, on;
    uint8_t kind;
} sim_bdep;

struct sim_builder {
    uint32_t nranks;
    uint32_t cur;           /* rank being built, or UINT32_MAX before the first */
    uint64_t nops, capops;
    sim_op *ops;
    uint32_t *line;         /* allocated at the first operation with a line (GOAL text only) */
    uint64_t ndeps, capdeps;
    sim_bdep *deps;
    uint32_t *rank_first;
    char *name;
    char err[256];
};

static int bfail(sim_builder *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->err, sizeof b->err, fmt, ap);
    va_end(ap);
    return -1;
}

sim_builder *sim_builder_new(uint32_t nranks, const char *name)
{
    sim_builder *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->nranks = nranks;
    b->cur = UINT32_MAX;
    b->rank_first = calloc((size_t)nranks + 1, sizeof *b->rank_first);
    b->name = strdup(name ? name : "schedule");
    if (!b->rank_first || !b->name) {
        sim_builder_abort(b);
        return NULL;
    }
    return b;
}

void sim_builder_abort(sim_builder *b)
{
    if (!b)
        return;
    free(b->ops);
    free(b->line);
    free(b->deps);
    free(b->rank_first);
    free(b->name);
    free(b);
}

int sim_builder_begin_rank(sim_builder *b, uint32_t rank)
{
    if (rank >= b->nranks || (b->cur != UINT32_MAX && rank <= b->cur))
        return bfail(b, "%s: rank %u added out of order or out of range (%u ranks)", b->name, rank,
                     b->nranks);
    /* ranks skipped in between are empty */
    for (uint32_t r = b->cur == UINT32_MAX ? 0 : b->cur + 1; r <= rank; r++)
        b->rank_first[r] = (uint32_t)b->nops;
    b->cur = rank;
    return 0;
}

int64_t sim_builder_op(sim_builder *b, uint8_t kind, int32_t peer, int32_t tag, uint64_t size,
                       uint8_t cpu, uint8_t nic, uint32_t line)
{
    if (b->cur == UINT32_MAX)
        return bfail(b, "%s: operation added before any rank", b->name);
    if (b->nops >= UINT32_MAX - 1)
        return bfail(b, "%s: more than 2^32 operations", b->name);
    if (b->nops == b->capops) {
        uint64_t cap = b->capops ? b->capops * 2 : 1024;
        sim_op *o = realloc(b->ops, cap * sizeof *o);
        if (!o)
            return bfail(b, "%s: out of memory for %llu operations", b->name, (unsigned long long)cap);
        b->ops = o;
        if (b->line) {
            uint32_t *l = realloc(b->line, cap * sizeof *l);
            if (!l)
                return bfail(b, "%s: out of memory for %llu operations", b->name, (unsigned long long)cap);
            b->line = l;
        }
        b->capops = cap;
    }
    if (line && !b->line) {
        b->line = calloc(b->capops, sizeof *b->line);
        if (!b->line)
            return bfail(b, "%s: out of memory for %llu operations", b->name, (unsigned long long)b->capops);
    }
    sim_op *op = &b->ops[b->nops];
    memset(op, 0, sizeof *op);
    op->kind = kind;
    op->peer = kind == SIM_CALC ? 0 : peer;
    op->tag = kind == SIM_CALC ? 0 : tag;
    op->size = size;
    op->cpu = cpu;
    op->nic = nic;
    if (b->line)
        b->line[b->nops] = line;
    b->nops++;
    return (int64_t)(b->nops - 1 - b->rank_first[b->cur]);
}

int sim_builder_dep(sim_builder *b, uint32_t op, uint32_t on, uint8_t kind)
{
    uint64_t base = b->rank_first[b->cur], n = b->nops - base;
    if (op >= n || on >= n)
        return bfail(b, "%s: rank %u: dependency between unknown operations %u and %u", b->name, b->cur,
                     op, on);
    if (b->ndeps == b->capdeps) {
        uint64_t cap = b->capdeps ? b->capdeps * 2 : 1024;
        sim_bdep *d = realloc(b->deps, cap * sizeof *d);
        if (!d)
            return bfail(b, "%s: out of memory for dependencies", b->name);
        b->deps = d;
        b->capdeps = cap;
    }
    b->deps[b->ndeps++] = (sim_bdep){(uint32_t)(base + op), (uint32_t)(base + on), kind};
    return 0;
}

static const char *kind_name(uint8_t k) { return k == SIM_SEND ? "send" : k == SIM_RECV ? "recv" : "calc"; }

int sim_builder_finish(sim_builder *b, sim_sched **out, char *err, size_t errlen)
{
    *out = NULL;
    int rc = -1;
    sim_sched *s = NULL;
    if (b->err[0])
        goto fail;
    for (uint32_t r = b->cur == UINT32_MAX ? 0 : b->cur + 1; r <= b->nranks; r++)
        b->rank_first[r] = (uint32_t)b->nops;
    s = calloc(1, sizeof *s);
    if (!s) {
        bfail(b, "%s: out of memory", b->name);
        goto fail;
    }
    s->nranks = b->nranks;
    s->nops = b->nops;
    s->ops = b->nops ? realloc(b->ops, b->nops * sizeof *s->ops) : b->ops;
    b->ops = NULL;
    s->rank_first = b->rank_first;
    b->rank_first = NULL;
    s->name = b->name;
    b->name = NULL;
    s->line = b->line;
    b->line = NULL;
    s->ncpus = 1;
    s->nnics = 1;
    /* validate operations */
    for (uint32_t r = 0; r < s->nranks; r++) {
        for (uint32_t i = s->rank_first[r]; i < s->rank_first[r + 1]; i++) {
            sim_op *op = &s->ops[i];
            const char *where = s->name;
            unsigned ln = s->line ? s->line[i] : 0;
            if (op->kind != SIM_CALC) {
                int wild_ok = op->kind == SIM_RECV;
                if ((op->peer == SIM_ANY && !wild_ok) || op->peer < SIM_ANY || (op->peer >= 0 && (uint32_t)op->peer >= s->nranks)) {
                    bfail(b, "%s:%u: rank %u: %s peer %d out of range (expected 0..%u%s)", where, ln, r,
                          kind_name(op->kind), op->peer, s->nranks - 1, wild_ok ? " or -1" : "");
                    goto fail_s;
                }
                if (op->tag == SIM_ANY && !wild_ok) {
                    bfail(b, "%s:%u: rank %u: send with tag -1 (any tag is only valid on recv)", where, ln, r);
                    goto fail_s;
                }
            }
            if (op->cpu + 1u > s->ncpus)
                s->ncpus = op->cpu + 1u;
            if (op->nic + 1u > s->nnics)
                s->nnics = op->nic + 1u;
        }
    }
    /* successor lists: count, prefix-sum, fill (requires first, then irequires) */
    s->succ = malloc((b->ndeps ? b->ndeps : 1) * sizeof *s->succ);
    if (!s->succ) {
        bfail(b, "%s: out of memory for %llu dependencies", s->name, (unsigned long long)b->ndeps);
        goto fail_s;
    }
    /* `pending` (run state, re-armed by sim_sched_reset below) counts the irequires while building
     * and is their fill cursor afterwards: the record has no field of its own for them */
    for (uint64_t i = 0; i < b->ndeps; i++) {
        sim_bdep *d = &b->deps[i];
        if (d->kind == SIM_REQUIRES)
            s->ops[d->on].nreq++;
        else
            s->ops[d->on].pending++;
    }
    uint64_t pos = 0;
    for (uint64_t i = 0; i < s->nops; i++) {
        s->ops[i].succ = (uint32_t)pos;
        pos += (uint64_t)s->ops[i].nreq + s->ops[i].pending;
        s->ops[i].nreq = 0; /* reused as fill cursors below */
        s->ops[i].pending = 0;
    }
    s->nsucc = pos;
    /* fill requires in dependency order, then irequires after them */
    for (uint64_t i = 0; i < b->ndeps; i++) {
        sim_bdep *d = &b->deps[i];
        if (d->kind == SIM_REQUIRES) {
            sim_op *on = &s->ops[d->on];
            s->succ[on->succ + on->nreq++] = d->op;
        }
    }
    for (uint64_t i = 0; i < b->ndeps; i++) {
        sim_bdep *d = &b->deps[i];
        if (d->kind == SIM_IREQUIRES) {
            sim_op *on = &s->ops[d->on];
            s->succ[on->succ + on->nreq + on->pending++] = d->op;
        }
    }
    sim_sched_reset(s);
    *out = s;
    rc = 0;
    goto done;
fail_s:
    sim_sched_free(s);
fail:
    if (err && errlen)
        snprintf(err, errlen, "%s", b->err);
done:
    sim_builder_abort(b);
    return rc;
}

/* Dependency counts are recounted from the successor lists (one pass over them) rather than kept
 * per operation: 4 bytes less per operation for a pass that costs less than the run. */
void sim_sched_reset(sim_sched *s)
{
    for (uint64_t i = 0; i < s->nops; i++) {
        s->ops[i].pending = 0;
        s->ops[i].ready = 0;
        s->ops[i].done = 0;
    }
    for (uint64_t i = 0; i < s->nsucc; i++)
        s->ops[s->succ[i]].pending++;
}

void sim_sched_free(sim_sched *s)
{
    if (!s)
        return;
    free(s->rank_first);
    free(s->ops);
    free(s->succ);
    free(s->line);
    free(s->name);
    free(s);
}

size_t sim_sched_bytes(const sim_sched *s)
{
    return sizeof *s + (s->nranks + 1) * sizeof(uint32_t) + s->nops * (sizeof(sim_op) + (s->line ? sizeof(uint32_t) : 0)) +
           s->nsucc * sizeof(uint32_t);
}

/* Converts a parsed GOAL text (consumed: freed here) into a schedule named `name`. */
static int from_txt(goal_txt *g, const char *name, sim_sched **out, char *err, size_t errlen)
{
    sim_builder *b = sim_builder_new(g->nranks, name);
    if (!b) {
        goal_txt_free(g);
        snprintf(err, errlen, "%s: out of memory", name);
        return -1;
    }
    for (uint32_t r = 0; r < g->nranks; r++) {
        const goal_txt_rank *gr = &g->ranks[r];
        if (sim_builder_begin_rank(b, r) != 0)
            break;
        for (uint32_t i = 0; i < gr->nops; i++) {
            const goal_txt_op *o = &gr->ops[i];
            uint8_t kind = o->kind == GOAL_TXT_SEND ? SIM_SEND : o->kind == GOAL_TXT_RECV ? SIM_RECV : SIM_CALC;
            if (sim_builder_op(b, kind, o->peer, o->tag, o->size, o->cpu, o->nic, o->line) < 0)
                break;
        }
        for (uint32_t i = 0; i < gr->ndeps; i++) {
            const goal_txt_dep *d = &gr->deps[i];
            if (sim_builder_dep(b, d->op, d->on, d->kind == GOAL_TXT_IREQUIRES ? SIM_IREQUIRES : SIM_REQUIRES) != 0)
                break;
        }
    }
    goal_txt_free(g);
    return sim_builder_finish(b, out, err, errlen);
}

int sim_sched_from_goal_file(const char *path, sim_sched **out, char *err, size_t errlen)
{
    goal_txt *g = NULL;
    *out = NULL;
    if (goal_txt_read_file(path, &g, err, errlen) != 0)
        return -1;
    return from_txt(g, path, out, err, errlen);
}

int sim_sched_from_goal_mem(const char *text, size_t len, const char *name, sim_sched **out,
                            char *err, size_t errlen)
{
    goal_txt *g = NULL;
    *out = NULL;
    if (goal_txt_read_mem(text, len, name, &g, err, errlen) != 0)
        return -1;
    return from_txt(g, name, out, err, errlen);
}

/* Dependencies are written per prerequisite, in successor order (requires, then irequires): read
 * back, they give the same successor lists, hence the same tie order in the engine. */
int sim_sched_write_goal(FILE *f, const sim_sched *s)
{
    goal_txt g = {s->nranks, calloc(s->nranks ? s->nranks : 1, sizeof(goal_txt_rank))};
    if (!g.ranks)
        return -1;
    int rc = 0;
    for (uint32_t r = 0; r < s->nranks && rc == 0; r++) {
        goal_txt_rank *gr = &g.ranks[r];
        uint32_t a = s->rank_first[r], b = s->rank_first[r + 1];
        gr->nops = b - a;
        gr->ops = calloc(gr->nops ? gr->nops : 1, sizeof *gr->ops);
        uint32_t nd = 0;
        for (uint32_t i = a; i < b; i++)
            nd += (uint32_t)(sim_op_succ_end(s, i) - s->ops[i].succ);
        gr->deps = calloc(nd ? nd : 1, sizeof *gr->deps);
        if (!gr->ops || !gr->deps) {
            rc = -1;
            break;
        }
        for (uint32_t i = a; i < b; i++) {
            const sim_op *o = &s->ops[i];
            gr->ops[i - a] = (goal_txt_op){o->kind == SIM_SEND ? GOAL_TXT_SEND : o->kind == SIM_RECV ? GOAL_TXT_RECV : GOAL_TXT_CALC,
                                           o->cpu, o->nic, o->peer, o->tag, o->size, 0};
            for (uint32_t k = 0; k < sim_op_succ_end(s, i) - o->succ; k++)
                gr->deps[gr->ndeps++] = (goal_txt_dep){s->succ[o->succ + k] - a, i - a,
                                                       k < o->nreq ? GOAL_TXT_REQUIRES : GOAL_TXT_IREQUIRES};
        }
    }
    if (rc == 0)
        rc = goal_txt_write(f, &g);
    for (uint32_t r = 0; r < s->nranks; r++) {
        free(g.ranks[r].ops);
        free(g.ranks[r].deps);
    }
    free(g.ranks);
    return rc;
}

