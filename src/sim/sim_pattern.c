/* src/sim/sim_pattern.c — schedules generated in process for credosim: barrier, alltoall,
 * multi-pingpong, IMB-like collectives (rooted ones at root 0 or, *_rr, round robin as IMB moves
 * the root) and the thesis' phased alltoall, at any rank count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_pattern.h"

/* Per-rank emitter. Iterations are chained with a zero-length calc ("join") that requires every
 * operation of the iteration; every operation of the next iteration requires that join. Tags are
 * the iteration number, so iterations can never match each other's messages. */
typedef struct pgen {
    sim_builder *b;
    uint32_t n, r;
    int64_t gate;  /* join of the previous iteration, or -1 */
    int64_t first; /* first op of the current iteration */
    int32_t tag;
    int bad;
} pgen;

static int64_t pg_op(pgen *g, uint8_t kind, uint32_t peer, uint64_t size)
{
    int64_t id = sim_builder_op(g->b, kind, (int32_t)peer, g->tag, size, 0, 0, 0);
    if (id < 0) {
        g->bad = 1;
        return -1;
    }
    if (g->gate >= 0 && sim_builder_dep(g->b, (uint32_t)id, (uint32_t)g->gate, SIM_REQUIRES) != 0)
        g->bad = 1;
    return id;
}
static int64_t pg_send(pgen *g, uint32_t to, uint64_t size) { return pg_op(g, SIM_SEND, to, size); }
static int64_t pg_recv(pgen *g, uint32_t from, uint64_t size) { return pg_op(g, SIM_RECV, from, size); }
static void pg_dep(pgen *g, int64_t op, int64_t on)
{
    if (op >= 0 && on >= 0 && sim_builder_dep(g->b, (uint32_t)op, (uint32_t)on, SIM_REQUIRES) != 0)
        g->bad = 1;
}
static void pg_begin(pgen *g) { g->first = -1; }
static void pg_end(pgen *g)
{
    /* ops of this iteration are [first_after_gate, now) */
    int64_t last = sim_builder_op(g->b, SIM_CALC, 0, 0, 0, 0, 0, 0);
    if (last < 0) {
        g->bad = 1;
        return;
    }
    int64_t from = g->gate >= 0 ? g->gate + 1 : 0;
    for (int64_t i = from; i < last; i++)
        pg_dep(g, last, i);
    g->gate = last;
    g->tag++;
}

enum pat { P_BARRIER, P_ALLTOALL, P_PINGPONG, P_SENDRECV, P_EXCHANGE, P_BCAST, P_REDUCE, P_ALLREDUCE,
           P_ALLGATHER, P_GATHER, P_SCATTER, P_PHASED, P_FARPINGPONG };

static uint32_t lowbit_parent(uint32_t r) /* binomial tree rooted at 0: parent = r - highest bit */
{
    uint32_t h = 1;
    while (h * 2 <= r)
        h *= 2;
    return r - h;
}

/* size of the binomial subtree rooted at r (children r + 2^k for 2^k > r) */
static uint32_t subtree(uint32_t r, uint32_t n)
{
    uint32_t cnt = 1;
    for (uint64_t k = 1; k < n; k <<= 1)
        if (k > r && r + k < n)
            cnt += subtree(r + (uint32_t)k, n);
    return cnt;
}

static void emit_barrier_round(pgen *g, uint32_t n)
{
    int64_t prev_recv = -1;
    for (uint64_t d = 1; d < n; d <<= 1) {
        int64_t s = pg_send(g, (uint32_t)((g->r + d) % n), 1);
        pg_dep(g, s, prev_recv);
        prev_recv = pg_recv(g, (uint32_t)((g->r + n - d % n) % n), 1);
    }
}

static void emit_alltoall(pgen *g, uint32_t n, uint64_t bytes)
{
    for (uint32_t i = 1; i < n; i++) {
        pg_send(g, (g->r + i) % n, bytes);
        pg_recv(g, (g->r + n - i) % n, bytes);
    }
}

static void emit(pgen *g, enum pat p, uint64_t bytes, int rotate)
{
    uint32_t n = g->n, r = g->r;
    /* IMB's rooted benchmarks move the root round robin (root = iteration mod n): the tree is the
     * one rooted at 0 over virtual ranks v = (r - root) mod n, peers mapped back by + root. */
    uint32_t root = rotate ? (uint32_t)g->tag % n : 0;
#define VR(x) ((uint32_t)(((uint64_t)(x) + n - root) % n))
#define PR(x) ((uint32_t)(((uint64_t)(x) + root) % n))
    if (rotate)
        r = VR(r);
    switch (p) {
    case P_BARRIER:
        emit_barrier_round(g, n);
        break;
    case P_ALLTOALL:
        emit_alltoall(g, n, bytes);
        break;
    case P_PINGPONG: {
        uint32_t half = n / 2;
        if (r >= 2 * half)
            break;
        if (r < half) {
            int64_t s = pg_send(g, r + half, bytes);
            int64_t v = pg_recv(g, r + half, bytes);
            pg_dep(g, v, s);
        } else {
            int64_t v = pg_recv(g, r - half, bytes);
            int64_t s = pg_send(g, r - half, bytes);
            pg_dep(g, s, v);
        }
        break;
    }
    case P_SENDRECV:
        pg_send(g, (r + 1) % n, bytes);
        pg_recv(g, (r + n - 1) % n, bytes);
        break;
    case P_EXCHANGE:
        pg_send(g, (r + n - 1) % n, bytes);
        pg_send(g, (r + 1) % n, bytes);
        pg_recv(g, (r + n - 1) % n, bytes);
        pg_recv(g, (r + 1) % n, bytes);
        break;
    case P_BCAST: {
        int64_t v = r ? pg_recv(g, PR(lowbit_parent(r)), bytes) : -1;
        for (uint64_t k = 1; k < n; k <<= 1)
            if (k > r && r + k < n)
                pg_dep(g, pg_send(g, PR(r + (uint32_t)k), bytes), v);
        break;
    }
    case P_SCATTER: {
        int64_t v = r ? pg_recv(g, PR(lowbit_parent(r)), bytes * subtree(r, n)) : -1;
        for (uint64_t k = 1; k < n; k <<= 1)
            if (k > r && r + k < n)
                pg_dep(g, pg_send(g, PR(r + (uint32_t)k), bytes * subtree(r + (uint32_t)k, n)), v);
        break;
    }
    case P_REDUCE:
    case P_GATHER: {
        int64_t first = -1, last = -1;
        for (uint64_t k = 1; k < n; k <<= 1)
            if (k > r && r + k < n) {
                uint64_t sz = p == P_GATHER ? bytes * subtree(r + (uint32_t)k, n) : bytes;
                last = pg_recv(g, PR(r + (uint32_t)k), sz);
                if (first < 0)
                    first = last;
            }
        if (r) {
            int64_t s = pg_send(g, PR(lowbit_parent(r)), p == P_GATHER ? bytes * subtree(r, n) : bytes);
            for (int64_t i = first; first >= 0 && i <= last; i++)
                pg_dep(g, s, i);
        }
        break;
    }
    case P_ALLREDUCE: {
        /* recursive doubling over the largest power of two; the rest fold in and out */
        uint32_t p2 = 1;
        while (p2 * 2 <= n)
            p2 *= 2;
        int64_t prev = -1;
        if (r >= p2) {
            int64_t s = pg_send(g, r - p2, bytes);
            int64_t v = pg_recv(g, r - p2, bytes);
            pg_dep(g, v, s);
            break;
        }
        if (r + p2 < n)
            prev = pg_recv(g, r + p2, bytes);
        for (uint32_t d = 1; d < p2; d <<= 1) {
            int64_t s = pg_send(g, r ^ d, bytes);
            pg_dep(g, s, prev);
            int64_t v = pg_recv(g, r ^ d, bytes);
            pg_dep(g, v, prev);
            prev = v;
        }
        if (r + p2 < n)
            pg_dep(g, pg_send(g, r + p2, bytes), prev);
        break;
    }
    case P_ALLGATHER: {
        int64_t prev = -1;
        for (uint32_t j = 1; j < n; j++) {
            int64_t s = pg_send(g, (r + 1) % n, bytes);
            pg_dep(g, s, prev);
            prev = pg_recv(g, (r + n - 1) % n, bytes);
        }
        break;
    }
    case P_FARPINGPONG: {
        /* the thesis' distance test: the first K ranks ping-pong with the last K (K = 16 = one
         * node at --ppn 16, so the two nodes are the mesh's opposite corners) */
        uint32_t k = 16 < n / 2 ? 16 : n / 2;
        if (r < k) {
            int64_t s = pg_send(g, n - k + r, bytes);
            pg_dep(g, pg_recv(g, n - k + r, bytes), s);
        } else if (r >= n - k) {
            int64_t v = pg_recv(g, r - (n - k), bytes);
            pg_dep(g, pg_send(g, r - (n - k), bytes), v);
        }
        break;
    }
    case P_PHASED:
        break;
    }
}
#undef VR
#undef PR

static const struct {
    const char *name;
    enum pat p;
    int needs_bytes;
} pats[] = {
    {"barrier", P_BARRIER, 0},     {"alltoall", P_ALLTOALL, 1},   {"pingpong", P_PINGPONG, 1},
    {"sendrecv", P_SENDRECV, 1},   {"exchange", P_EXCHANGE, 1},   {"bcast", P_BCAST, 1},
    {"reduce", P_REDUCE, 1},       {"allreduce", P_ALLREDUCE, 1}, {"allgather", P_ALLGATHER, 1},
    {"gather", P_GATHER, 1},       {"scatter", P_SCATTER, 1},     {"phased", P_PHASED, 1},
    {"farpingpong", P_FARPINGPONG, 1},
    {"bcast_rr", P_BCAST, 1},      {"reduce_rr", P_REDUCE, 1},    {"gather_rr", P_GATHER, 1},
    {"scatter_rr", P_SCATTER, 1},
};

/* A decimal number of digits only, at most max: 0 with *out and *end (the first non-digit), or -1
 * (no digit, or above max). */
int sim_parse_dec(const char *s, const char **end, unsigned long long max, unsigned long long *out)
{
    unsigned long long v = 0;
    const char *p = s;
    while (*p >= '0' && *p <= '9') {
        unsigned d = (unsigned)(*p++ - '0');
        if (d > max || v > (max - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *end = p;
    if (p == s)
        return -1;
    *out = v;
    return 0;
}

int sim_pattern_build(const char *spec, uint32_t nranks, sim_sched **out, char *err, size_t errlen)
{
    *out = NULL;
    if (strncmp(spec, "coll:", 5) == 0)
        return sim_coll_build(spec, nranks, out, err, errlen);
    char name[32];
    const char *colon = strchr(spec, ':');
    size_t nl = colon ? (size_t)(colon - spec) : strlen(spec);
    if (nl >= sizeof name)
        nl = sizeof name - 1;
    memcpy(name, spec, nl);
    name[nl] = 0;
    int idx = -1;
    for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++)
        if (strcmp(pats[i].name, name) == 0)
            idx = (int)i;
    if (idx < 0) {
        snprintf(err, errlen,
                 "--pattern %s: unknown pattern '%s' (expected barrier, alltoall, pingpong, sendrecv, exchange, "
                 "bcast, reduce, allreduce, allgather, gather, scatter, bcast_rr, reduce_rr, gather_rr, scatter_rr, "
                 "phased, farpingpong or coll:NAME)", spec, name);
        return -1;
    }
    /* BYTES and ITERS: digits only (strtoull would take "-1" as 2^64 - 1, and blanks and '+'),
     * BYTES up to SIM_PATTERN_MAX_BYTES, ITERS from 1 and with ITERS x ranks below 2^32: every
     * rank holds at least one operation per iteration, and the schedule at most 2^32 - 2. */
    unsigned long long bytes = 0, iters = 1;
    if (colon) {
        const char *a = colon + 1, *end;
        if (pats[idx].needs_bytes) {
            if (sim_parse_dec(a, &end, SIM_PATTERN_MAX_BYTES, &bytes) != 0 || (*end && *end != ':')) {
                snprintf(err, errlen, "--pattern %s: expected %s:BYTES[:ITERS] with BYTES an integer 0 .. %llu, got '%.*s'",
                         spec, name, SIM_PATTERN_MAX_BYTES, (int)strcspn(a, ":"), a);
                return -1;
            }
            a = *end == ':' ? end + 1 : end;
            if (*end == ':' && !*a) {
                snprintf(err, errlen, "--pattern %s: expected an iteration count after '%s:%llu:'", spec, name, bytes);
                return -1;
            }
        }
        if (*a) {
            uint64_t max_iters = nranks ? (UINT32_MAX - 1) / nranks : 1;
            if (sim_parse_dec(a, &end, max_iters, &iters) != 0 || *end || iters == 0) {
                snprintf(err, errlen, "--pattern %s: expected a positive iteration count 1 .. %llu (at %u ranks) after '%.*s', got '%s'",
                         spec, (unsigned long long)max_iters, nranks, (int)(a - spec), spec, a);
                return -1;
            }
        }
    } else if (pats[idx].needs_bytes) {
        snprintf(err, errlen, "--pattern %s: expected %s:BYTES[:ITERS]", spec, name);
        return -1;
    }
    if (nranks < 2) {
        snprintf(err, errlen, "--pattern %s needs at least 2 ranks", spec);
        return -1;
    }
    if (bytes && nranks > (1ull << 62) / bytes) { /* gather and scatter send BYTES x subtree */
        snprintf(err, errlen, "--pattern %s: expected BYTES x ranks below 2^62, got %llu x %u", spec, bytes, nranks);
        return -1;
    }
    sim_builder *b = sim_builder_new(nranks, spec);
    if (!b) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    enum pat p = pats[idx].p;
    for (uint32_t r = 0; r < nranks; r++) {
        pgen g = {b, nranks, r, -1, -1, 0, 0};
        if (sim_builder_begin_rank(b, r) != 0)
            break;
        if (p == P_PHASED) {
            /* thesis E8 (a.c.b.a.b.c.a): groups of n, n/4, n/2, n, n/2, n/4, n ranks */
            const uint32_t div[] = {1, 4, 2, 1, 2, 4, 1};
            for (int ph = 0; ph < 7; ph++) {
                uint32_t grp = nranks / div[ph];
                for (unsigned long long it = 0; it < iters; it++) {
                    pg_begin(&g);
                    if (r < grp) {
                        pgen sub = g;
                        sub.n = grp;
                        emit_alltoall(&sub, grp, bytes);
                        g.bad |= sub.bad;
                    }
                    pg_end(&g);
                }
                pg_begin(&g);
                emit_barrier_round(&g, nranks);
                pg_end(&g);
            }
        } else {
            for (unsigned long long it = 0; it < iters; it++) {
                pg_begin(&g);
                emit(&g, p, bytes, strstr(pats[idx].name, "_rr") != NULL);
                if (iters > 1) /* a single iteration needs no join: keeps 1M-rank barriers lean */
                    pg_end(&g);
            }
        }
        if (g.bad)
            break;
    }
    return sim_builder_finish(b, out, err, errlen);
}
