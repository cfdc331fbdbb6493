/* src/sim/sim_sched.c — building credosim schedules: the rank-by-rank builder that shares identical
 * rank templates, the per-operation run state, and the adapter from src/goal's GOAL text reader. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "goal/goal_text.h"
#include "sim/sim.h"

#define SIM_NIL_U32 UINT32_MAX

/* A rank's operations and dependencies are collected with absolute peers and rank-local ids; when
 * the rank is complete (the next begin_rank, or finish) they are validated and turned into a
 * template (relative peers, successor lists), which is looked up among the templates so far and
 * shared when identical. Only the current rank's operations are ever held in full, so building a
 * 1M-rank barrier never holds its 40M operations. */
typedef struct sim_bdep {
    uint32_t op, on;
    uint8_t kind;
} sim_bdep;

/* One distinct template: its operations tops[top, top + nops), successors tsucc[succ, succ + nsucc). */
typedef struct sim_tmpl {
    uint64_t hash;
    uint32_t top, nops, succ, nsucc;
} sim_tmpl;

struct sim_builder {
    uint32_t nranks;
    uint32_t cur;           /* rank being built, or UINT32_MAX before the first */
    uint64_t nops;          /* operations of all ranks so far */
    uint32_t *line;         /* per op, allocated at the first operation with a line (GOAL text only) */
    uint64_t capline;
    /* the current rank, as added (absolute peers) */
    sim_top *cops;
    uint32_t ncops, capcops;
    sim_bdep *deps;
    uint64_t ndeps, capdeps;
    uint64_t nsucc;         /* dependencies of all ranks so far */
    /* scratch template of the current rank: its successor lists (local `succ` offsets) */
    uint32_t *csucc;
    uint64_t capcsucc;
    /* templates */
    sim_top *tops;
    uint64_t ntops, captops;
    uint32_t *tsucc;
    uint64_t ntsucc, captsucc;
    sim_tmpl *tm;
    uint32_t ntm, captm;
    uint32_t last_tm;       /* the previous rank's template */
    uint32_t *tix;          /* open-addressing index of tm by hash (SIM_NIL = empty), power of two */
    uint32_t tixcap;
    uint32_t *rank_first, *rank_off;
    uint32_t ncpus, nnics;
    char *name;
    char err[256];
    char verr[256];         /* first validation error (reported after build errors, as before) */
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
    b->ncpus = b->nnics = 1;
    b->rank_first = calloc((size_t)nranks + 1, sizeof *b->rank_first);
    b->rank_off = calloc(nranks ? nranks : 1, sizeof *b->rank_off);
    b->name = strdup(name ? name : "schedule");
    if (!b->rank_first || !b->rank_off || !b->name) {
        sim_builder_abort(b);
        return NULL;
    }
    return b;
}

void sim_builder_abort(sim_builder *b)
{
    if (!b)
        return;
    free(b->line);
    free(b->cops);
    free(b->deps);
    free(b->csucc);
    free(b->tops);
    free(b->tsucc);
    free(b->tm);
    free(b->tix);
    free(b->rank_first);
    free(b->rank_off);
    free(b->name);
    free(b);
}

static const char *kind_name(uint8_t k) { return k == SIM_SEND ? "send" : k == SIM_RECV ? "recv" : "calc"; }

static uint64_t mix64(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 31);
}

static int grow(void **p, uint64_t *cap, uint64_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    uint64_t ncap = *cap ? *cap : 64;
    while (ncap < need)
        ncap *= 2;
    void *q = realloc(*p, ncap * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = ncap;
    return 0;
}

static int tix_insert(sim_builder *b, uint32_t t)
{
    if ((uint64_t)(b->ntm + 1) * 2 > b->tixcap) {
        uint32_t ncap = b->tixcap ? b->tixcap * 2 : 64;
        uint32_t *nt = malloc((size_t)ncap * sizeof *nt);
        if (!nt)
            return -1;
        memset(nt, 0xff, (size_t)ncap * sizeof *nt);
        for (uint32_t i = 0; i < b->ntm; i++) {
            uint32_t j = (uint32_t)b->tm[i].hash & (ncap - 1);
            while (nt[j] != SIM_NIL_U32)
                j = (j + 1) & (ncap - 1);
            nt[j] = i;
        }
        free(b->tix);
        b->tix = nt;
        b->tixcap = ncap;
        return 0; /* t (== ntm - 1, already in tm) was inserted with the others */
    }
    uint32_t j = (uint32_t)b->tm[t].hash & (b->tixcap - 1);
    while (b->tix[j] != SIM_NIL_U32)
        j = (j + 1) & (b->tixcap - 1);
    b->tix[j] = t;
    return 0;
}

/* Whether template t is the current rank's (c: n operations, successor offsets from 0 into
 * b->csucc, ns successors). */
static int template_is(const sim_builder *b, const sim_tmpl *t, const sim_top *c, uint32_t n, uint32_t ns)
{
    if (t->nops != n || t->nsucc != ns)
        return 0;
    const sim_top *o = &b->tops[t->top];
    for (uint32_t i = 0; i < n; i++)
        if (o[i].size != c[i].size || o[i].peer != c[i].peer || o[i].tag != c[i].tag ||
            o[i].succ - t->succ != c[i].succ || o[i].nreq != c[i].nreq || o[i].nireq != c[i].nireq ||
            o[i].kind != c[i].kind || o[i].cpu != c[i].cpu || o[i].nic != c[i].nic)
            return 0;
    return memcmp(&b->tsucc[t->succ], b->csucc, (size_t)ns * sizeof *b->csucc) == 0;
}

/* Validates, converts and files the current rank (see struct sim_builder). */
static int close_rank(sim_builder *b)
{
    uint32_t r = b->cur, n = b->ncops;
    if (r == UINT32_MAX || b->err[0])
        return 0;
    uint64_t base = b->rank_first[r];
    /* validate operations (the first error of the schedule is kept; build errors go first) */
    for (uint32_t i = 0; i < n && !b->verr[0]; i++) {
        const sim_top *op = &b->cops[i];
        unsigned ln = b->line ? b->line[base + i] : 0;
        if (op->kind != SIM_CALC) {
            int wild_ok = op->kind == SIM_RECV;
            if ((op->peer == SIM_ANY && !wild_ok) || op->peer < SIM_ANY || (op->peer >= 0 && (uint32_t)op->peer >= b->nranks))
                snprintf(b->verr, sizeof b->verr, "%s:%u: rank %u: %s peer %d out of range (expected 0..%u%s)", b->name, ln, r,
                         kind_name(op->kind), op->peer, b->nranks - 1, wild_ok ? " or -1" : "");
            else if (op->tag == SIM_ANY && !wild_ok)
                snprintf(b->verr, sizeof b->verr, "%s:%u: rank %u: send with tag -1 (any tag is only valid on recv)", b->name, ln, r);
        }
    }
    if (n == 0)
        return 0;
    /* successor lists: count, prefix-sum, fill (requires first, then irequires, each in the
     * order the dependencies were added) */
    sim_top *c = b->cops;
    for (uint32_t i = 0; i < n; i++) {
        c[i].nreq = c[i].nireq = 0;
        if (c[i].cpu + 1u > b->ncpus)
            b->ncpus = c[i].cpu + 1u;
        if (c[i].nic + 1u > b->nnics)
            b->nnics = c[i].nic + 1u;
        if (c[i].kind != SIM_CALC && c[i].peer >= 0) /* relative peer */
            c[i].peer = (int32_t)(((uint32_t)c[i].peer + b->nranks - r) % b->nranks);
    }
    for (uint64_t i = 0; i < b->ndeps; i++) {
        if (b->deps[i].kind == SIM_REQUIRES)
            c[b->deps[i].on].nreq++;
        else
            c[b->deps[i].on].nireq++;
    }
    if (grow((void **)&b->csucc, &b->capcsucc, b->ndeps ? b->ndeps : 1, sizeof *b->csucc) != 0)
        return bfail(b, "%s: out of memory for dependencies", b->name);
    uint32_t pos = 0;
    for (uint32_t i = 0; i < n; i++) {
        c[i].succ = pos;
        pos += c[i].nreq + c[i].nireq;
        c[i].nreq = c[i].nireq = 0; /* fill cursors */
    }
    for (uint64_t i = 0; i < b->ndeps; i++)
        if (b->deps[i].kind == SIM_REQUIRES) {
            sim_top *on = &c[b->deps[i].on];
            b->csucc[on->succ + on->nreq++] = b->deps[i].op;
        }
    for (uint64_t i = 0; i < b->ndeps; i++)
        if (b->deps[i].kind == SIM_IREQUIRES) {
            sim_top *on = &c[b->deps[i].on];
            b->csucc[on->succ + on->nreq + on->nireq++] = b->deps[i].op;
        }
    uint32_t ns = (uint32_t)b->ndeps;
    b->nsucc += ns;
    /* the previous rank's template first (patterns repeat one template across all ranks): equal
     * there, no hash is needed */
    if (b->ntm && template_is(b, &b->tm[b->last_tm], c, n, ns)) {
        b->rank_off[r] = (uint32_t)(b->tm[b->last_tm].top - (uint32_t)base);
        return 0;
    }
    /* look the template up */
    uint64_t h = mix64(n, ns);
    for (uint32_t i = 0; i < n; i++) {
        h = mix64(h, c[i].size);
        h = mix64(h, (uint64_t)(uint32_t)c[i].peer << 32 | (uint32_t)c[i].tag);
        h = mix64(h, (uint64_t)c[i].nreq << 32 | c[i].nireq);
        h = mix64(h, (uint64_t)c[i].kind << 16 | (uint64_t)c[i].cpu << 8 | c[i].nic);
    }
    for (uint32_t i = 0; i < ns; i++)
        h = mix64(h, b->csucc[i]);
    if (b->tixcap) {
        for (uint32_t j = (uint32_t)h & (b->tixcap - 1); b->tix[j] != SIM_NIL_U32; j = (j + 1) & (b->tixcap - 1)) {
            const sim_tmpl *t = &b->tm[b->tix[j]];
            if (t->hash == h && template_is(b, t, c, n, ns)) {
                b->last_tm = b->tix[j];
                b->rank_off[r] = (uint32_t)(t->top - (uint32_t)base);
                return 0;
            }
        }
    }
    /* new template */
    if (b->ntops + n > UINT32_MAX || b->ntsucc + ns > UINT32_MAX)
        return bfail(b, "%s: more than 2^32 operations or dependencies", b->name);
    if (grow((void **)&b->tops, &b->captops, b->ntops + n, sizeof *b->tops) != 0 ||
        grow((void **)&b->tsucc, &b->captsucc, b->ntsucc + (ns ? ns : 1), sizeof *b->tsucc) != 0)
        return bfail(b, "%s: out of memory for %llu operations", b->name, (unsigned long long)(b->ntops + n));
    if (b->ntm == b->captm) {
        uint32_t cap = b->captm ? b->captm * 2 : 64;
        sim_tmpl *t = realloc(b->tm, (size_t)cap * sizeof *t);
        if (!t)
            return bfail(b, "%s: out of memory for schedule templates", b->name);
        b->tm = t;
        b->captm = cap;
    }
    b->last_tm = b->ntm;
    sim_tmpl *t = &b->tm[b->ntm++];
    *t = (sim_tmpl){h, (uint32_t)b->ntops, n, (uint32_t)b->ntsucc, ns};
    for (uint32_t i = 0; i < n; i++) {
        b->tops[b->ntops + i] = c[i];
        b->tops[b->ntops + i].succ += t->succ;
    }
    memcpy(&b->tsucc[b->ntsucc], b->csucc, (size_t)ns * sizeof *b->csucc);
    b->rank_off[r] = (uint32_t)(t->top - (uint32_t)base);
    b->ntops += n;
    b->ntsucc += ns;
    if (tix_insert(b, b->ntm - 1) != 0)
        return bfail(b, "%s: out of memory for schedule templates", b->name);
    return 0;
}

int sim_builder_begin_rank(sim_builder *b, uint32_t rank)
{
    if (rank >= b->nranks || (b->cur != UINT32_MAX && rank <= b->cur))
        return bfail(b, "%s: rank %u added out of order or out of range (%u ranks)", b->name, rank,
                     b->nranks);
    if (close_rank(b) != 0)
        return -1;
    /* ranks skipped in between are empty */
    for (uint32_t r = b->cur == UINT32_MAX ? 0 : b->cur + 1; r <= rank; r++)
        b->rank_first[r] = (uint32_t)b->nops;
    b->cur = rank;
    b->ncops = 0;
    b->ndeps = 0;
    return 0;
}

int64_t sim_builder_op(sim_builder *b, uint8_t kind, int32_t peer, int32_t tag, uint64_t size,
                       uint8_t cpu, uint8_t nic, uint32_t line)
{
    if (b->cur == UINT32_MAX)
        return bfail(b, "%s: operation added before any rank", b->name);
    if (b->nops >= UINT32_MAX - 1)
        return bfail(b, "%s: more than 2^32 operations", b->name);
    if (b->ncops == b->capcops) {
        uint32_t cap = b->capcops ? b->capcops * 2 : 64;
        sim_top *o = realloc(b->cops, (size_t)cap * sizeof *o);
        if (!o)
            return bfail(b, "%s: out of memory for %u operations", b->name, cap);
        b->cops = o;
        b->capcops = cap;
    }
    if (b->line || line) {
        uint64_t had = b->capline;
        if (grow((void **)&b->line, &b->capline, b->nops + 1, sizeof *b->line) != 0)
            return bfail(b, "%s: out of memory for %llu operations", b->name, (unsigned long long)b->nops + 1);
        if (had == 0) /* first operation with a line: the ones before have none */
            memset(b->line, 0, b->capline * sizeof *b->line);
    }
    sim_top *op = &b->cops[b->ncops];
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
    return (int64_t)b->ncops++;
}

int sim_builder_dep(sim_builder *b, uint32_t op, uint32_t on, uint8_t kind)
{
    uint64_t n = b->ncops;
    if (b->cur == UINT32_MAX || op >= n || on >= n)
        return bfail(b, "%s: rank %u: dependency between unknown operations %u and %u", b->name, b->cur,
                     op, on);
    if (grow((void **)&b->deps, &b->capdeps, b->ndeps + 1, sizeof *b->deps) != 0)
        return bfail(b, "%s: out of memory for dependencies", b->name);
    b->deps[b->ndeps++] = (sim_bdep){op, on, kind};
    return 0;
}

int sim_builder_finish(sim_builder *b, sim_sched **out, char *err, size_t errlen)
{
    *out = NULL;
    int rc = -1;
    sim_sched *s = NULL;
    if (!b->err[0])
        close_rank(b);
    if (b->err[0])
        goto fail;
    if (b->verr[0]) {
        memcpy(b->err, b->verr, sizeof b->err);
        goto fail;
    }
    for (uint32_t r = b->cur == UINT32_MAX ? 0 : b->cur + 1; r <= b->nranks; r++)
        b->rank_first[r] = (uint32_t)b->nops;
    s = calloc(1, sizeof *s);
    if (!s) {
        bfail(b, "%s: out of memory", b->name);
        goto fail;
    }
    s->nranks = b->nranks;
    s->nops = b->nops;
    s->ncpus = b->ncpus;
    s->nnics = b->nnics;
    s->rank_first = b->rank_first;
    b->rank_first = NULL;
    s->rank_off = b->rank_off;
    b->rank_off = NULL;
    s->name = b->name;
    b->name = NULL;
    s->line = b->line;
    b->line = NULL;
    s->ntops = b->ntops;
    s->tops = b->ntops ? realloc(b->tops, b->ntops * sizeof *s->tops) : b->tops;
    b->tops = NULL;
    s->ntsucc = b->ntsucc;
    s->tsucc = b->ntsucc ? realloc(b->tsucc, b->ntsucc * sizeof *s->tsucc) : b->tsucc;
    b->tsucc = NULL;
    s->ntmpl = b->ntm;
    s->nsucc = b->nsucc;
    s->st = calloc(s->nops ? s->nops : 1, sizeof *s->st);
    s->done = calloc(s->nops / 4 + 1, 1);
    if (!s->st || !s->done) {
        bfail(b, "%s: out of memory for %llu operations", s->name, (unsigned long long)s->nops);
        goto fail_s;
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

/* Dependency counts are recounted from the templates' successor lists rather than kept per
 * operation; the run state is the only per-operation array. */
void sim_sched_reset(sim_sched *s)
{
    memset(s->done, 0, s->nops / 4 + 1);
    /* rank by rank (dependencies are rank-local): one pass over the run state, not a memset and
     * then a second pass that counts */
    for (uint32_t r = 0; r < s->nranks; r++) {
        uint32_t a = s->rank_first[r], e = s->rank_first[r + 1];
        if (a == e)
            continue;
        const sim_top *t = sim_top_of(s, r, a);
        sim_opst *st = s->st + a;
        memset(st, 0, (size_t)(e - a) * sizeof *st);
        for (uint32_t i = 0; i < e - a; i++) {
            const uint32_t *sc = s->tsucc + t[i].succ;
            for (uint32_t k = 0; k < t[i].nreq + t[i].nireq; k++)
                st[sc[k]].pending++;
        }
    }
}

void sim_sched_free(sim_sched *s)
{
    if (!s)
        return;
    free(s->rank_first);
    free(s->rank_off);
    free(s->tops);
    free(s->tsucc);
    free(s->st);
    free(s->done);
    free(s->line);
    free(s->name);
    free(s);
}

size_t sim_sched_bytes(const sim_sched *s)
{
    return sizeof *s + (s->nranks + 1) * sizeof(uint32_t) * 2 + s->ntops * sizeof(sim_top) +
           s->ntsucc * sizeof(uint32_t) + s->nops * (sizeof(sim_opst) + (s->line ? sizeof(uint32_t) : 0)) + s->nops / 4 + 1;
}

/* Converts a parsed GOAL text (consumed: freed here) into a schedule named `name`. Before anything
 * is allocated per rank: the rank count against the simulator's limit, and a static count of sends
 * and receives per (source, destination, tag), so that a declared count or a lone unmatched send
 * costs nothing (the engine still finds what counting cannot, e.g. wildcards and cycles). */
static int from_txt(goal_txt *g, const char *name, sim_sched **out, char *err, size_t errlen)
{
    if (g->nranks > SIM_MAX_RANKS) {
        snprintf(err, errlen, "%s:%u: expected num_ranks <= %u (the simulator's limit, as --ranks), got %u", name,
                 g->nranks_line, SIM_MAX_RANKS, g->nranks);
        goal_txt_free(g);
        return -1;
    }
    if (goal_txt_check_matching(g, name, err, errlen) != 0) {
        goal_txt_free(g);
        return -1;
    }
    sim_builder *b = sim_builder_new(g->nranks, name);
    if (!b) {
        goal_txt_free(g);
        snprintf(err, errlen, "%s: out of memory for %u ranks", name, g->nranks);
        return -1;
    }
    for (uint32_t k = 0; k < g->nblocks; k++) {
        const goal_txt_rank *gr = &g->blocks[k];
        if (sim_builder_begin_rank(b, gr->rank) != 0)
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
    return sim_sched_from_goal_file_max(path, 0, out, err, errlen);
}

int sim_sched_from_goal_file_max(const char *path, uint64_t max_bytes, sim_sched **out, char *err, size_t errlen)
{
    goal_txt *g = NULL;
    *out = NULL;
    if (goal_txt_read_file_max(path, max_bytes, &g, err, errlen) != 0)
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
    /* every rank gets a block, empty ones too (as this writer always did) */
    goal_txt g = {.nranks = s->nranks, .nblocks = s->nranks,
                  .blocks = calloc(s->nranks ? s->nranks : 1, sizeof(goal_txt_rank))};
    if (!g.blocks)
        return -1;
    int rc = 0;
    for (uint32_t r = 0; r < s->nranks && rc == 0; r++) {
        goal_txt_rank *gr = &g.blocks[r];
        gr->rank = r;
        uint32_t a = s->rank_first[r], b = s->rank_first[r + 1];
        gr->nops = b - a;
        gr->ops = calloc(gr->nops ? gr->nops : 1, sizeof *gr->ops);
        uint32_t nd = 0;
        for (uint32_t i = a; i < b; i++)
            nd += sim_top_of(s, r, i)->nreq + sim_top_of(s, r, i)->nireq;
        gr->deps = calloc(nd ? nd : 1, sizeof *gr->deps);
        if (!gr->ops || !gr->deps) {
            rc = -1;
            break;
        }
        for (uint32_t i = a; i < b; i++) {
            const sim_top *o = sim_top_of(s, r, i);
            gr->ops[i - a] = (goal_txt_op){o->kind == SIM_SEND ? GOAL_TXT_SEND : o->kind == SIM_RECV ? GOAL_TXT_RECV : GOAL_TXT_CALC,
                                           o->cpu, o->nic, sim_top_peer(s, r, o), o->tag, o->size, 0};
            for (uint32_t k = 0; k < o->nreq + o->nireq; k++)
                gr->deps[gr->ndeps++] = (goal_txt_dep){s->tsucc[o->succ + k], i - a,
                                                       k < o->nreq ? GOAL_TXT_REQUIRES : GOAL_TXT_IREQUIRES};
        }
    }
    if (rc == 0)
        rc = goal_txt_write(f, &g);
    for (uint32_t r = 0; r < s->nranks; r++) {
        free(g.blocks[r].ops);
        free(g.blocks[r].deps);
    }
    free(g.blocks);
    return rc;
}
