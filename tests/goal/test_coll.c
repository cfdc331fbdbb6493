/* tests/goal/test_coll.c — every collective schedule against a sequential reference on real ranks
 * (run under credorun): roots 0, 1, np-1, zero/small/large counts, in place, a non-commutative op,
 * and several non-blocking collectives in flight at once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "base/config.h"
#include "core/core.h"

static int me, np;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rank %d/%d: %s:%d: check failed: %s: ", me, np, __FILE__, __LINE__,   \
                    #cond);                                                                        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* Value contributed by rank r at element i in round `salt`. */
static int64_t val(int r, size_t i, int salt)
{
    return (int64_t)r * 1000003 + (int64_t)i * 7 + salt;
}

static void sum_fn(const void *in, void *inout, size_t count, void *op, void *dt)
{
    (void)op, (void)dt;
    const int64_t *a = in;
    int64_t *b = inout;
    for (size_t i = 0; i < count; i++)
        b[i] += a[i];
}

/* 2x2 matrices of uint64 (mod 2^64): associative, not commutative. inout = in x inout. */
typedef struct mat { uint64_t a, b, c, d; } mat;
static void matmul_fn(const void *in, void *inout, size_t count, void *op, void *dt)
{
    (void)op, (void)dt;
    const mat *x = in;
    mat *y = inout;
    for (size_t i = 0; i < count; i++) {
        mat r = {x[i].a * y[i].a + x[i].b * y[i].c, x[i].a * y[i].b + x[i].b * y[i].d,
                 x[i].c * y[i].a + x[i].d * y[i].c, x[i].c * y[i].b + x[i].d * y[i].d};
        y[i] = r;
    }
}
static mat mval(int r, size_t i)
{
    return (mat){(uint64_t)r + 1, (uint64_t)i + 2, (uint64_t)r * 3 + 1, (uint64_t)(r ^ (int)i) + 5};
}
static mat mmul(mat x, mat y)
{
    matmul_fn(&x, &y, 1, NULL, NULL);
    return y;
}

static const coll_op SUM = {sum_fn, NULL, NULL, 1};
static const coll_op MATMUL = {matmul_fn, NULL, NULL, 0};

static coll_comm C;

typedef int (*rooted_fn)(const void *, void *, size_t, size_t, int, coll_comm *, p2p_req **);
static int coll_gather_wait(rooted_fn f, const void *sb, void *rb, size_t n, int root)
{
    p2p_req *r;
    int rc = f(sb, rb, n, 8, root, &C, &r);
    return rc ? rc : coll_wait(r);
}

static void test_barrier_bcast(void)
{
    for (int rep = 0; rep < 3; rep++)
        CHECK(coll_barrier(&C) == 0, "barrier");
    size_t counts[] = {0, 1, 100, 40000};
    int roots[] = {0, 1, np - 1};
    for (size_t ci = 0; ci < 4; ci++)
        for (int ri = 0; ri < 3; ri++) {
            int root = roots[ri] % np;
            size_t n = counts[ci];
            int64_t *buf = malloc((n + 1) * sizeof *buf);
            for (size_t i = 0; i < n; i++)
                buf[i] = me == root ? val(root, i, 1) : -1;
            CHECK(coll_bcast(buf, n, sizeof *buf, root, &C) == 0, "bcast");
            for (size_t i = 0; i < n; i++)
                CHECK(buf[i] == val(root, i, 1), "bcast n %zu root %d i %zu", n, root, i);
            free(buf);
        }
}

static void test_reduce_allreduce(void)
{
    size_t counts[] = {0, 1, 33, 20000};
    int roots[] = {0, 1, np - 1};
    for (size_t ci = 0; ci < 4; ci++) {
        size_t n = counts[ci];
        int64_t *sb = malloc((n + 1) * 8), *rb = malloc((n + 1) * 8), *want = malloc((n + 1) * 8);
        for (size_t i = 0; i < n; i++) {
            sb[i] = val(me, i, 2);
            want[i] = 0;
            for (int r = 0; r < np; r++)
                want[i] += val(r, i, 2);
        }
        for (int ri = 0; ri < 3; ri++) {
            int root = roots[ri] % np;
            memset(rb, 0, (n + 1) * 8);
            CHECK(coll_reduce(sb, rb, n, 8, &SUM, root, &C) == 0, "reduce");
            if (me == root)
                for (size_t i = 0; i < n; i++)
                    CHECK(rb[i] == want[i], "reduce n %zu root %d i %zu", n, root, i);
            /* in place at the root */
            if (me == root)
                memcpy(rb, sb, n * 8);
            CHECK(coll_reduce(me == root ? COLL_IN_PLACE : sb, rb, n, 8, &SUM, root, &C) == 0, "reduce ip");
            if (me == root)
                for (size_t i = 0; i < n; i++)
                    CHECK(rb[i] == want[i], "reduce in place n %zu root %d", n, root);
        }
        memset(rb, 0, (n + 1) * 8);
        CHECK(coll_allreduce(sb, rb, n, 8, &SUM, &C) == 0, "allreduce");
        for (size_t i = 0; i < n; i++)
            CHECK(rb[i] == want[i], "allreduce n %zu i %zu got %lld want %lld", n, i,
                  (long long)rb[i], (long long)want[i]);
        memcpy(rb, sb, n * 8);
        CHECK(coll_allreduce(COLL_IN_PLACE, rb, n, 8, &SUM, &C) == 0, "allreduce ip");
        for (size_t i = 0; i < n; i++)
            CHECK(rb[i] == want[i], "allreduce in place n %zu i %zu", n, i);
        free(sb), free(rb), free(want);
    }
    /* non-commutative: rank order must be kept */
    size_t n = 5;
    mat sm[5], rm[5], wm[5];
    for (size_t i = 0; i < n; i++) {
        sm[i] = mval(me, i);
        wm[i] = mval(0, i);
        for (int r = 1; r < np; r++)
            wm[i] = mmul(wm[i], mval(r, i));
    }
    for (int root = 0; root < np; root += (np > 2 ? np - 1 : 1)) {
        memset(rm, 0, sizeof rm);
        CHECK(coll_reduce(sm, rm, n, sizeof(mat), &MATMUL, root, &C) == 0, "reduce mat");
        if (me == root)
            CHECK(!memcmp(rm, wm, sizeof wm), "non-commutative reduce root %d", root);
    }
    memset(rm, 0, sizeof rm);
    CHECK(coll_allreduce(sm, rm, n, sizeof(mat), &MATMUL, &C) == 0, "allreduce mat");
    CHECK(!memcmp(rm, wm, sizeof wm), "non-commutative allreduce");
    memcpy(rm, sm, sizeof rm);
    CHECK(coll_allreduce(COLL_IN_PLACE, rm, n, sizeof(mat), &MATMUL, &C) == 0, "allreduce mat ip");
    CHECK(!memcmp(rm, wm, sizeof wm), "non-commutative allreduce in place");
    /* scan / exscan with the non-commutative op */
    mat pre = mval(0, 3), exp_ex = {0, 0, 0, 0};
    for (int r = 1; r <= me; r++) {
        if (r == me)
            exp_ex = pre;
        pre = mmul(pre, mval(r, 3));
    }
    mat mine = mval(me, 3), out = {0, 0, 0, 0}, ex = {9, 9, 9, 9};
    p2p_req *r1, *r2;
    CHECK(coll_iscan(&mine, &out, 1, sizeof(mat), &MATMUL, &C, &r1) == 0, "iscan");
    CHECK(coll_iexscan(&mine, &ex, 1, sizeof(mat), &MATMUL, &C, &r2) == 0, "iexscan");
    CHECK(coll_wait(r2) == 0 && coll_wait(r1) == 0, "scan waits");
    CHECK(!memcmp(&out, &pre, sizeof out), "scan");
    if (me > 0)
        CHECK(!memcmp(&ex, &exp_ex, sizeof ex), "exscan");
    else
        CHECK(ex.a == 9 && ex.d == 9, "exscan must not touch rank 0's buffer");
    /* Vectors (200 matrices: 6400 B, beyond the eager limit) in place and not: the scan reads its
     * input from the receive buffer while it writes its prefix there. */
    enum { NV = 200 };
    mat *vin = malloc(NV * sizeof(mat)), *vs = malloc(NV * sizeof(mat)), *vx = malloc(NV * sizeof(mat));
    mat *wpre = malloc(NV * sizeof(mat)), *wex = malloc(NV * sizeof(mat));
    for (size_t i = 0; i < NV; i++) {
        vin[i] = mval(me, i);
        wpre[i] = mval(0, i);
        for (int r = 1; r <= me; r++) {
            if (r == me)
                wex[i] = wpre[i];
            wpre[i] = mmul(wpre[i], mval(r, i));
        }
    }
    for (int ip = 0; ip < 2; ip++) {
        memcpy(vs, vin, NV * sizeof(mat));
        memcpy(vx, vin, NV * sizeof(mat));
        CHECK(coll_iscan(ip ? COLL_IN_PLACE : (const void *)vin, vs, NV, sizeof(mat), &MATMUL, &C, &r1) == 0 &&
                  coll_wait(r1) == 0, "iscan vector");
        CHECK(coll_iexscan(ip ? COLL_IN_PLACE : (const void *)vin, vx, NV, sizeof(mat), &MATMUL, &C, &r2) == 0 &&
                  coll_wait(r2) == 0, "iexscan vector");
        CHECK(!memcmp(vs, wpre, NV * sizeof(mat)), "scan vector%s", ip ? " in place" : "");
        if (me > 0)
            CHECK(!memcmp(vx, wex, NV * sizeof(mat)), "exscan vector%s", ip ? " in place" : "");
    }
    free(vin), free(vs), free(vx), free(wpre), free(wex);
}

static void test_gather_scatter(void)
{
    size_t counts[] = {0, 3, 5000};
    int roots[] = {0, 1, np - 1};
    for (size_t ci = 0; ci < 3; ci++)
        for (int ri = 0; ri < 3; ri++) {
            size_t n = counts[ci];
            int root = roots[ri] % np;
            int64_t *sb = malloc((n + 1) * 8), *all = malloc((n * (size_t)np + 1) * 8);
            for (size_t i = 0; i < n; i++)
                sb[i] = val(me, i, 3);
            memset(all, 0xff, (n * (size_t)np + 1) * 8);
            CHECK(coll_gather_wait(coll_igather, sb, all, n, root) == 0, "gather");
            if (me == root)
                for (int r = 0; r < np; r++)
                    for (size_t i = 0; i < n; i++)
                        CHECK(all[(size_t)r * n + i] == val(r, i, 3), "gather n %zu root %d", n, root);
            /* in place at the root: its own block is already in place */
            if (me == root) {
                memset(all, 0xff, (n * (size_t)np + 1) * 8);
                memcpy(all + (size_t)root * n, sb, n * 8);
            }
            CHECK(coll_gather_wait(coll_igather, me == root ? COLL_IN_PLACE : sb, all, n, root) == 0,
                  "gather in place");
            if (me == root)
                for (int r = 0; r < np; r++)
                    for (size_t i = 0; i < n; i++)
                        CHECK(all[(size_t)r * n + i] == val(r, i, 3), "gather ip n %zu root %d", n, root);
            /* scatter back what was gathered (root), everyone gets own block */
            memset(sb, 0, (n + 1) * 8);
            CHECK(coll_gather_wait(coll_iscatter, all, sb, n, root) == 0, "scatter");
            for (size_t i = 0; i < n; i++) /* the root's array holds everyone's gathered block */
                CHECK(sb[i] == val(me, i, 3), "scatter n %zu root %d i %zu", n, root, i);
            free(sb), free(all);
        }
    /* scatter from a root with known data, gatherv/scatterv with uneven counts */
    int root = np - 1;
    int *cnt = malloc((size_t)np * sizeof(int)), *dsp = malloc((size_t)np * sizeof(int));
    int tot = 0;
    for (int r = 0; r < np; r++) {
        cnt[r] = r % 3 + 1;
        dsp[r] = tot + 1; /* a gap of one element between blocks */
        tot += cnt[r] + 1;
    }
    int64_t *big = malloc((size_t)(tot + 1) * 8), mine[4], back[4];
    for (int i = 0; i < cnt[me]; i++)
        mine[i] = val(me, (size_t)i, 4);
    memset(big, 0, (size_t)(tot + 1) * 8);
    p2p_req *rq;
    CHECK(coll_igatherv(mine, (size_t)cnt[me], big, cnt, dsp, 8, root, &C, &rq) == 0, "igatherv");
    CHECK(coll_wait(rq) == 0, "gatherv");
    if (me == root)
        for (int r = 0; r < np; r++) {
            CHECK(big[dsp[r] - 1] == 0, "gap overwritten");
            for (int i = 0; i < cnt[r]; i++)
                CHECK(big[dsp[r] + i] == val(r, (size_t)i, 4), "gatherv r %d i %d", r, i);
        }
    memset(back, 0, sizeof back);
    CHECK(coll_iscatterv(big, cnt, dsp, back, (size_t)cnt[me], 8, root, &C, &rq) == 0, "iscatterv");
    CHECK(coll_wait(rq) == 0, "scatterv");
    for (int i = 0; i < cnt[me]; i++)
            CHECK(back[i] == val(me, (size_t)i, 4), "scatterv i %d", i);
    /* allgatherv into the same layout */
    memset(big, 0, (size_t)(tot + 1) * 8);
    CHECK(coll_iallgatherv(mine, (size_t)cnt[me], big, cnt, dsp, 8, &C, &rq) == 0, "iallgatherv");
    CHECK(coll_wait(rq) == 0, "allgatherv");
    for (int r = 0; r < np; r++)
        for (int i = 0; i < cnt[r]; i++)
            CHECK(big[dsp[r] + i] == val(r, (size_t)i, 4), "allgatherv r %d i %d", r, i);
    free(cnt), free(dsp), free(big);
}

static void test_allgather_alltoall(void)
{
    size_t counts[] = {0, 1, 9, 3000};
    for (size_t ci = 0; ci < 4; ci++) {
        size_t n = counts[ci], tot = n * (size_t)np;
        int64_t *sb = malloc((tot + 1) * 8), *rb = malloc((tot + 1) * 8);
        for (size_t i = 0; i < n; i++)
            sb[i] = val(me, i, 5);
        p2p_req *rq;
        memset(rb, 0, (tot + 1) * 8);
        CHECK(coll_iallgather(sb, rb, n, 8, &C, &rq) == 0 && coll_wait(rq) == 0, "allgather");
        for (int r = 0; r < np; r++)
            for (size_t i = 0; i < n; i++)
                CHECK(rb[(size_t)r * n + i] == val(r, i, 5), "allgather n %zu r %d i %zu", n, r, i);
        /* in place: own block already in rb */
        memset(rb, 0, (tot + 1) * 8);
        memcpy(rb + (size_t)me * n, sb, n * 8);
        CHECK(coll_iallgather(COLL_IN_PLACE, rb, n, 8, &C, &rq) == 0 && coll_wait(rq) == 0, "allgather ip");
        for (int r = 0; r < np; r++)
            for (size_t i = 0; i < n; i++)
                CHECK(rb[(size_t)r * n + i] == val(r, i, 5), "allgather in place");
        /* alltoall: block j of rank r is val(r * np + j) */
        for (int j = 0; j < np; j++)
            for (size_t i = 0; i < n; i++)
                sb[(size_t)j * n + i] = val(me * 100 + j, i, 6);
        memset(rb, 0, (tot + 1) * 8);
        CHECK(coll_ialltoall(sb, rb, n, 8, &C, &rq) == 0 && coll_wait(rq) == 0, "alltoall");
        for (int r = 0; r < np; r++)
            for (size_t i = 0; i < n; i++)
                CHECK(rb[(size_t)r * n + i] == val(r * 100 + me, i, 6), "alltoall n %zu from %d", n, r);
        memcpy(rb, sb, tot * 8);
        CHECK(coll_ialltoall(COLL_IN_PLACE, rb, n, 8, &C, &rq) == 0 && coll_wait(rq) == 0, "alltoall ip");
        for (int r = 0; r < np; r++)
            for (size_t i = 0; i < n; i++)
                CHECK(rb[(size_t)r * n + i] == val(r * 100 + me, i, 6), "alltoall in place");
        /* reduce_scatter_block: block me of the sum */
        int64_t *out = malloc((n + 1) * 8);
        memset(out, 0, (n + 1) * 8);
        CHECK(coll_ireduce_scatter_block(sb, out, n, 8, &SUM, &C, &rq) == 0 && coll_wait(rq) == 0, "rsb");
        for (size_t i = 0; i < n; i++) {
            int64_t w = 0;
            for (int r = 0; r < np; r++)
                w += val(r * 100 + me, i, 6);
            CHECK(out[i] == w, "reduce_scatter_block n %zu i %zu", n, i);
        }
        /* in place: the input is the whole receive buffer, the result its first block */
        memcpy(rb, sb, tot * 8);
        CHECK(coll_ireduce_scatter_block(COLL_IN_PLACE, rb, n, 8, &SUM, &C, &rq) == 0 && coll_wait(rq) == 0,
              "rsb ip");
        for (size_t i = 0; i < n; i++) {
            int64_t w = 0;
            for (int r = 0; r < np; r++)
                w += val(r * 100 + me, i, 6);
            CHECK(rb[i] == w, "reduce_scatter_block in place n %zu i %zu", n, i);
        }
        free(out);
        free(sb), free(rb);
    }
    /* alltoallv with counts depending on both ranks */
    int *sc = malloc((size_t)np * 4), *sd = malloc((size_t)np * 4), *rc = malloc((size_t)np * 4),
        *rd = malloc((size_t)np * 4);
    int st = 0, rt = 0;
    for (int j = 0; j < np; j++) {
        sc[j] = (me + j) % 3;
        sd[j] = st;
        st += sc[j];
        rc[j] = (j + me) % 3;
        rd[j] = rt;
        rt += rc[j];
    }
    int64_t *sb = malloc((size_t)(st + 1) * 8), *rb = malloc((size_t)(rt + 1) * 8);
    for (int j = 0; j < np; j++)
        for (int i = 0; i < sc[j]; i++)
            sb[sd[j] + i] = val(me * 100 + j, (size_t)i, 7);
    p2p_req *rq;
    CHECK(coll_ialltoallv(sb, sc, sd, rb, rc, rd, 8, &C, &rq) == 0 && coll_wait(rq) == 0, "alltoallv");
    for (int j = 0; j < np; j++)
        for (int i = 0; i < rc[j]; i++)
            CHECK(rb[rd[j] + i] == val(j * 100 + me, (size_t)i, 7), "alltoallv from %d", j);
    /* reduce_scatter with uneven counts */
    int *rcnt = malloc((size_t)np * 4);
    int total = 0;
    for (int j = 0; j < np; j++)
        total += rcnt[j] = j % 2 + 1;
    int64_t *full = malloc((size_t)total * 8), out[2] = {0, 0};
    for (int i = 0; i < total; i++)
        full[i] = val(me, (size_t)i, 8);
    CHECK(coll_ireduce_scatter(full, out, rcnt, 8, &SUM, &C, &rq) == 0 && coll_wait(rq) == 0, "rs");
    int off = 0;
    for (int j = 0; j < me; j++)
        off += rcnt[j];
    for (int i = 0; i < rcnt[me]; i++) {
        int64_t w = 0;
        for (int r = 0; r < np; r++)
            w += val(r, (size_t)(off + i), 8);
        CHECK(out[i] == w, "reduce_scatter i %d", i);
    }
    for (int i = 0; i < total; i++)
        full[i] = val(me, (size_t)i, 8);
    CHECK(coll_ireduce_scatter(COLL_IN_PLACE, full, rcnt, 8, &SUM, &C, &rq) == 0 && coll_wait(rq) == 0, "rs ip");
    for (int i = 0; i < rcnt[me]; i++) {
        int64_t w = 0;
        for (int r = 0; r < np; r++)
            w += val(r, (size_t)(off + i), 8);
        CHECK(full[i] == w, "reduce_scatter in place i %d", i);
    }
    free(rcnt), free(full), free(sc), free(sd), free(rc), free(rd), free(sb), free(rb);
}

/* A barrier must not let any rank out before every rank entered. Each rank first puts a message
 * into every other rank's mailbox (eager: the send completes once it is in the ring), then enters
 * the barrier; a rank can only leave after a barrier message that causally follows every peer's
 * entry, and each peer's ring holds that peer's message before it, so after the barrier every
 * message must already be there for a probe. A barrier that lets a rank out early fails this
 * whenever a peer is slow, and nothing here depends on timing to pass. */
static void test_barrier_order(void)
{
    /* odd repetitions use the non-blocking form: blocking barriers may skip the schedule (coll.c) */
    for (int rep = 0; rep < 4; rep++) {
        int token = me;
        for (int s = 0; s < np; s++)
            if (s != me) {
                p2p_req *rq;
                CHECK(p2p_isend(&token, sizeof token, s, rep, 78, P2P_MODE_STANDARD, &rq) == 0, "isend");
                p2p_wait(rq);
                p2p_req_free(rq);
            }
        if (rep & 1) {
            p2p_req *br;
            CHECK(coll_ibarrier(&C, &br) == 0 && coll_wait(br) == 0, "ibarrier");
        } else {
            CHECK(coll_barrier(&C) == 0, "barrier");
        }
        for (int s = 0; s < np; s++)
            if (s != me) {
                int flag = 0, got = -1;
                p2p_status st;
                CHECK(p2p_iprobe(s, rep, 78, &flag, &st) == 0, "iprobe");
                CHECK(flag, "left the barrier before rank %d's pre-barrier message arrived", s);
                CHECK(p2p_recv(&got, sizeof got, s, rep, 78, NULL) == 0 && got == s, "recv");
            }
    }
}

/* Several non-blocking collectives in flight, interleaved with p2p traffic on another context. */
static void test_nonblocking_overlap(void)
{
    enum { K = 6, N = 257 };
    int64_t sb[K][N], rb[K][N];
    p2p_req *rq[K];
    for (int k = 0; k < K; k++)
        for (int i = 0; i < N; i++)
            sb[k][i] = val(me, (size_t)i, 10 + k);
    int right = (me + 1) % np, left = (me + np - 1) % np, pv = me, got = -1;
    p2p_req *ps, *pr;
    CHECK(p2p_irecv(&got, sizeof got, left, 5, 77, &pr) == 0, "irecv");
    for (int k = 0; k < K; k++) {
        if (k == 2)
            CHECK(p2p_isend(&pv, sizeof pv, right, 5, 77, P2P_MODE_STANDARD, &ps) == 0, "isend");
        CHECK(coll_iallreduce(sb[k], rb[k], N, 8, &SUM, &C, &rq[k]) == 0, "iallreduce %d", k);
    }
    for (int k = K - 1; k >= 0; k--)
        CHECK(coll_wait(rq[k]) == 0, "wait %d", k);
    p2p_wait(pr);
    p2p_wait(ps);
    p2p_req_free(pr);
    p2p_req_free(ps);
    CHECK(got == left, "p2p got %d", got);
    for (int k = 0; k < K; k++)
        for (int i = 0; i < N; i++) {
            int64_t w = 0;
            for (int r = 0; r < np; r++)
                w += val(r, (size_t)i, 10 + k);
            CHECK(rb[k][i] == w, "nb allreduce %d i %d", k, i);
        }
}

/* Every algorithm a CREDO_COLL_* setting can force, set the way MPI_Init leaves it (config_load
 * keeps "" for auto), each followed by the tests that exercise that collective. Where an algorithm
 * does not apply (recdbl allgather at non-powers of two, Rabenseifner for zero or one element or a
 * non-commutative op) coll_choose falls back to the table, which the same checks then cover. */
typedef struct forced {
    char *setting;
    const char *value;
    void (*test)(void);
} forced;

int main(void)
{
    CHECK(credo_init() == 0, "credo_init");
    me = credo_rt.rank;
    np = credo_rt.size;
    CHECK(coll_comm_init(&C, np, me, NULL, 0xC0A1D000u) == 0, "comm init");
    test_barrier_bcast();
    test_barrier_order();
    test_reduce_allreduce();
    test_gather_scatter();
    test_allgather_alltoall();
    test_nonblocking_overlap();
    credo_config *k = &credo_cfg;
    const forced runs[] = {
        {k->coll_barrier, "dissemination", test_barrier_order},
        {k->coll_barrier, "bruck", test_barrier_order},
        {k->coll_barrier, "bruck", test_barrier_bcast},
        {k->coll_barrier, "direct", test_barrier_order},
        {k->coll_allreduce, "direct", test_reduce_allreduce},
        {k->coll_allreduce, "direct", test_nonblocking_overlap},
        {k->coll_bcast, "binomial", test_barrier_bcast},
        {k->coll_bcast, "scatter_allgather", test_barrier_bcast},
        {k->coll_reduce, "binomial", test_reduce_allreduce},
        {k->coll_reduce, "rabenseifner", test_reduce_allreduce},
        {k->coll_allreduce, "recdbl", test_reduce_allreduce},
        {k->coll_allreduce, "ring", test_reduce_allreduce},
        {k->coll_allreduce, "rabenseifner", test_reduce_allreduce},
        {k->coll_allreduce, "rabenseifner", test_nonblocking_overlap},
        {k->coll_gather, "linear", test_gather_scatter},
        {k->coll_gather, "binomial", test_gather_scatter},
        {k->coll_gather, "linear_sync", test_gather_scatter},
        {k->coll_allgather, "recdbl", test_allgather_alltoall},
        {k->coll_allgather, "ring", test_allgather_alltoall},
        {k->coll_allgather, "bruck", test_allgather_alltoall},
        {k->coll_alltoall, "linear", test_allgather_alltoall},
        {k->coll_alltoall, "pairwise", test_allgather_alltoall},
        {k->coll_alltoall, "bruck", test_allgather_alltoall},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        snprintf(runs[i].setting, 24, "%s", runs[i].value);
        runs[i].test();
        runs[i].setting[0] = '\0';
    }
    CHECK(coll_barrier(&C) == 0, "final barrier");
    coll_comm_destroy(&C);
    credo_finalize();
    if (me == 0)
        printf("coll: %d ranks ok\n", np);
    return 0;
}
