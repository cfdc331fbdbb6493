/* tests/goal/test_goal_graph.c — the pure GOAL layers: builder checks, compile (cycles, scratchpad
 * range), local-op kernels, and dependency counters driven by a loopback executor. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "goal/goal_impl.h"

/* Loopback executor for one rank: local ops run at once, a recv completes when a send with the
 * same (peer == self) tag was issued before; order of starts is recorded. */
typedef struct loop_run {
    goal_rs rs;
    unsigned char *scratch;
    uint32_t order[64];
    uint32_t norder;
} loop_run;

static void *opnd(loop_run *lr, const goal_vop *op, int i)
{
    return op->mem[i] == GOAL_SCRATCHPAD ? (void *)(lr->scratch + op->buf[i]) : (void *)op->buf[i];
}

static void run_loopback(struct goal_sched *s, loop_run *lr)
{
    assert_int_equal(goal_rs_init(&lr->rs, s), GOAL_SUCCESS);
    lr->scratch = calloc(1, s->scratch + 1);
    lr->norder = 0;
    /* sends wait in a list until the matching recv (self) starts; recvs wait for sends */
    uint32_t pend_send[64], npend_send = 0, pend_recv[64], npend_recv = 0;
    for (;;) {
        uint32_t i;
        int progressed = 0;
        while (goal_rs_next(&lr->rs, &i)) {
            progressed = 1;
            const goal_vop *op = &s->ops[i];
            if (lr->norder < 64)
                lr->order[lr->norder++] = i;
            goal_rs_started(&lr->rs, i);
            if (op->kind == GK_LOCALOP) {
                goal_lop_apply(op->lop, op->dtype, op->width, opnd(lr, op, 0), opnd(lr, op, 1),
                               opnd(lr, op, 2), op->size);
                goal_rs_finished(&lr->rs, i);
            } else if (op->kind == GK_SEND) {
                pend_send[npend_send++] = i;
            } else if (op->kind == GK_RECV) {
                pend_recv[npend_recv++] = i;
            } else {
                goal_rs_finished(&lr->rs, i);
            }
        }
        /* match first send with first recv of the same tag */
        for (uint32_t a = 0; a < npend_recv; a++) {
            const goal_vop *r = &s->ops[pend_recv[a]];
            for (uint32_t b = 0; b < npend_send; b++) {
                const goal_vop *sd = &s->ops[pend_send[b]];
                if (sd->tag != r->tag)
                    continue;
                assert_int_equal(sd->size, r->size);
                memcpy(opnd(lr, r, 0), opnd(lr, sd, 0), r->size);
                goal_rs_finished(&lr->rs, pend_send[b]);
                goal_rs_finished(&lr->rs, pend_recv[a]);
                pend_send[b] = pend_send[--npend_send];
                pend_recv[a] = pend_recv[--npend_recv];
                progressed = 1;
                a = npend_recv; /* restart */
                break;
            }
        }
        if (!progressed)
            break;
    }
    free(lr->scratch);
    lr->scratch = NULL;
}

static void test_builder_checks(void **state)
{
    (void)state;
    GOAL_Graph g = GOAL_CreateGraph();
    char buf[16];
    assert_int_equal(GOAL_Send(g, buf, -1, 0, 0, GOAL_USERSPACE), GOAL_INVALID_VERTEX);
    assert_int_equal(GOAL_GraphStatus(g), GOAL_ERR_ARG);
    GOAL_FreeGraph(g);

    g = GOAL_CreateGraph();
    assert_int_equal(GOAL_Send(g, buf, 4, 0, GOAL_TAG_UB + 1, GOAL_USERSPACE), GOAL_INVALID_VERTEX);
    assert_int_equal(GOAL_GraphStatus(g), GOAL_ERR_TAG);
    assert_null(GOAL_Compile(g)); /* sticky builder error */
    GOAL_FreeGraph(g);

    g = GOAL_CreateGraph();
    assert_int_equal(GOAL_LocalOp(g, buf, buf, buf, GOAL_XOR, GOAL_FLOAT, 32, 1, GOAL_USERSPACE,
                                  GOAL_USERSPACE, GOAL_USERSPACE),
                     GOAL_INVALID_VERTEX);
    assert_int_equal(GOAL_GraphStatus(g), GOAL_ERR_TYPE);
    GOAL_FreeGraph(g);

    g = GOAL_CreateGraph();
    GOAL_Vertex a = GOAL_Calc(g, 0);
    assert_int_equal(a, 0);
    assert_int_equal(GOAL_Requires(g, a, a), GOAL_ERR_ARG);
    assert_int_equal(GOAL_Requires(NULL, a, a), GOAL_ERR_ARG);
    GOAL_FreeGraph(g);

    g = GOAL_CreateGraph();
    GOAL_Vertex v[3];
    for (int i = 0; i < 3; i++)
        v[i] = GOAL_Calc(g, 0);
    assert_int_equal(GOAL_Requires(g, v[0], v[1]), GOAL_SUCCESS);
    assert_int_equal(GOAL_Requires(g, v[1], v[2]), GOAL_SUCCESS);
    assert_int_equal(GOAL_Requires(g, v[2], v[0]), GOAL_SUCCESS);
    assert_null(GOAL_Compile(g));
    assert_int_equal(GOAL_GraphStatus(g), GOAL_ERR_CYCLE);
    GOAL_FreeGraph(g);

    g = GOAL_CreateGraph();
    GOAL_AllocateScratchpad(g, 32);
    GOAL_AllocateScratchpad(g, 8); /* keeps the maximum */
    assert_int_not_equal(GOAL_Send(g, GOAL_SCRATCH(16), 16, 0, 0, GOAL_SCRATCHPAD), GOAL_INVALID_VERTEX);
    GOAL_Schedule s = GOAL_Compile(g);
    assert_non_null(s);
    assert_int_equal(GOAL_IsScheduleValid(s), 1);
    GOAL_FreeSchedule(s);
    assert_int_not_equal(GOAL_Send(g, GOAL_SCRATCH(17), 16, 0, 0, GOAL_SCRATCHPAD), GOAL_INVALID_VERTEX);
    assert_null(GOAL_Compile(g));
    assert_int_equal(GOAL_GraphStatus(g), GOAL_ERR_RANGE);
    GOAL_FreeGraph(g);
    assert_string_equal(GOAL_ErrorString(GOAL_ERR_CYCLE), "dependency cycle");
}

static void test_localop_kernels(void **state)
{
    (void)state;
    int32_t a[4] = {1, -5, INT32_MIN, 7}, b[4] = {3, 2, -1, 0}, r[4];
    goal_lop_apply(GOAL_ADD, GOAL_SINT, 32, a, b, r, 4);
    assert_int_equal(r[0], 4);
    assert_int_equal(r[2], INT32_MAX); /* wraps */
    goal_lop_apply(GOAL_DIV, GOAL_SINT, 32, a, b, r, 4);
    assert_int_equal(r[1], -2);
    assert_int_equal(r[2], INT32_MIN); /* INT_MIN / -1 wraps */
    assert_int_equal(r[3], 0);         /* x / 0 = 0 */
    goal_lop_apply(GOAL_MAX, GOAL_SINT, 32, a, b, r, 4);
    assert_int_equal(r[1], 2);
    goal_lop_apply(GOAL_MIN, GOAL_SINT, 32, a, b, r, 4);
    assert_int_equal(r[2], INT32_MIN);
    uint16_t ua[2] = {65535, 3}, ub[2] = {65535, 5}, ur[2];
    goal_lop_apply(GOAL_MUL, GOAL_UINT, 16, ua, ub, ur, 2);
    assert_int_equal(ur[0], 1);
    assert_int_equal(ur[1], 15);
    goal_lop_apply(GOAL_SUB, GOAL_UINT, 16, ub + 1, ua + 1, ur, 1);
    assert_int_equal(ur[0], 2);
    uint8_t x8[2] = {0xf0, 0x0f}, y8[2] = {0x3c, 0xff}, r8[2];
    goal_lop_apply(GOAL_XOR, GOAL_UINT, 8, x8, y8, r8, 2);
    assert_int_equal(r8[0], 0xcc);
    assert_int_equal(r8[1], 0xf0);
    goal_lop_apply(GOAL_AND, GOAL_SINT, 8, x8, y8, r8, 2);
    assert_int_equal(r8[0], 0x30);
    int64_t s64a = INT64_MAX, s64b = 1, s64r;
    goal_lop_apply(GOAL_ADD, GOAL_SINT, 64, &s64a, &s64b, &s64r, 1);
    assert_true(s64r == INT64_MIN);
    double da[2] = {1.5, -2}, db[2] = {0.5, 4}, dr[2];
    goal_lop_apply(GOAL_DIV, GOAL_FLOAT, 64, da, db, dr, 2);
    assert_true(dr[0] == 3.0 && dr[1] == -0.5);
    float fa = 2.0f, fb = 3.0f, fr;
    goal_lop_apply(GOAL_MUL, GOAL_FLOAT, 32, &fa, &fb, &fr, 1);
    assert_true(fr == 6.0f);
    /* bit vectors: 10 bits; bits 10..15 of the result keep their old value */
    uint8_t ba[2] = {0xff, 0xff}, bb[2] = {0x0f, 0x00}, br[2] = {0x00, 0xfc};
    goal_lop_apply(GOAL_AND, GOAL_UINT, 1, ba, bb, br, 10);
    assert_int_equal(br[0], 0x0f);
    assert_int_equal(br[1], 0xfc);
    double t = 0;
    goal_lop_apply(GOAL_WTIME, GOAL_FLOAT, 64, NULL, NULL, &t, 1);
    assert_true(t > 0);
    /* legality table */
    assert_true(goal_lop_valid(GOAL_ADD, GOAL_SINT, 8));
    assert_false(goal_lop_valid(GOAL_ADD, GOAL_FLOAT, 16));
    assert_false(goal_lop_valid(GOAL_OR, GOAL_FLOAT, 64));
    assert_false(goal_lop_valid(GOAL_ADD, GOAL_UINT, 1));
    assert_true(goal_lop_valid(GOAL_XOR, GOAL_UINT, 1));
    assert_false(goal_lop_valid(GOAL_XOR, GOAL_SINT, 1));
    assert_false(goal_lop_valid(GOAL_ADD, GOAL_SINT, 24));
    assert_true(goal_lop_valid(GOAL_COPY, GOAL_FLOAT, 8));
}

/* recv into scratch, add a constant, copy to user memory; dependencies order it. */
static void test_loopback_scratch_pipeline(void **state)
{
    (void)state;
    int32_t in[4] = {1, 2, 3, 4}, add[4] = {10, 20, 30, 40}, out[4] = {0};
    GOAL_Graph g = GOAL_CreateGraph();
    GOAL_AllocateScratchpad(g, 32);
    GOAL_Vertex s = GOAL_Send(g, in, 16, 0, 5, GOAL_USERSPACE);
    GOAL_Vertex r = GOAL_Recv(g, GOAL_SCRATCH(0), 16, 0, 5, GOAL_SCRATCHPAD);
    GOAL_Vertex a = GOAL_LocalOp(g, GOAL_SCRATCH(0), add, GOAL_SCRATCH(16), GOAL_ADD, GOAL_SINT, 32, 4,
                                 GOAL_SCRATCHPAD, GOAL_USERSPACE, GOAL_SCRATCHPAD);
    GOAL_Vertex c = GOAL_LocalOp(g, GOAL_SCRATCH(16), NULL, out, GOAL_COPY, GOAL_SINT, 32, 4,
                                 GOAL_SCRATCHPAD, GOAL_USERSPACE, GOAL_USERSPACE);
    assert_int_equal(GOAL_Requires(g, r, a), 0);
    assert_int_equal(GOAL_Requires(g, a, c), 0);
    (void)s;
    GOAL_Schedule sc = GOAL_Compile(g);
    assert_non_null(sc);
    GOAL_FreeGraph(g); /* schedules outlive their graph */
    loop_run lr;
    for (int rep = 0; rep < 3; rep++) { /* reuse */
        memset(out, 0, sizeof out);
        run_loopback(sc, &lr);
        assert_int_equal(lr.rs.remaining, 0);
        assert_int_equal(out[0], 11);
        assert_int_equal(out[3], 44);
        goal_rs_destroy(&lr.rs);
    }
    assert_int_equal(GOAL_FreeSchedule(sc), 0);
}

/* irequires: b starts once a started, before a finished. */
static void test_irequires_order(void **state)
{
    (void)state;
    GOAL_Graph g = GOAL_CreateGraph();
    char x[4] = "abc", y[4];
    GOAL_Vertex r = GOAL_Recv(g, y, 4, 0, 1, GOAL_USERSPACE);
    GOAL_Vertex s = GOAL_Send(g, x, 4, 0, 1, GOAL_USERSPACE);
    GOAL_Vertex c = GOAL_Calc(g, 0);
    GOAL_IRequires(g, r, s); /* the send may start as soon as the receive is posted */
    GOAL_Requires(g, r, c);
    GOAL_Schedule sc = GOAL_Compile(g);
    assert_non_null(sc);
    assert_int_equal(sc->nroots, 1);
    loop_run lr;
    run_loopback(sc, &lr);
    assert_int_equal(lr.rs.remaining, 0);
    assert_int_equal(lr.norder, 3);
    assert_int_equal(lr.order[0], (uint32_t)r);
    assert_int_equal(lr.order[1], (uint32_t)s);
    assert_int_equal(lr.order[2], (uint32_t)c);
    assert_string_equal(y, "abc");
    goal_rs_destroy(&lr.rs);
    GOAL_FreeSchedule(sc);
    GOAL_FreeGraph(g);
}

/* Vector local op over blocks in scratch and user memory. */
static void test_localop_vec_compile(void **state)
{
    (void)state;
    int16_t a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, r[4] = {0};
    void *ab[2] = {a, a + 2}, *bb[1] = {b}, *rb[2] = {r + 2, r};
    int al[2] = {4, 4}, bl[1] = {8}, rl[2] = {4, 4};
    GOAL_Graph g = GOAL_CreateGraph();
    GOAL_Vertex v = GOAL_LocalOpVec(g, ab, al, 2, bb, bl, 1, rb, rl, 2, GOAL_SINT, 16, GOAL_ADD,
                                    GOAL_USERSPACE, GOAL_USERSPACE, GOAL_USERSPACE);
    assert_int_not_equal(v, GOAL_INVALID_VERTEX);
    int bad[1] = {6};
    assert_int_equal(GOAL_LocalOpVec(g, ab, al, 2, bb, bad, 1, rb, rl, 2, GOAL_SINT, 16, GOAL_ADD,
                                     GOAL_USERSPACE, GOAL_USERSPACE, GOAL_USERSPACE),
                     GOAL_INVALID_VERTEX);
    GOAL_FreeGraph(g);
}

/* A long chain: counters only, no recursion, linear time. */
static void test_long_chain(void **state)
{
    (void)state;
    const int n = 100000;
    GOAL_Graph g = GOAL_CreateGraph();
    GOAL_Vertex prev = GOAL_INVALID_VERTEX;
    for (int i = 0; i < n; i++) {
        GOAL_Vertex v = GOAL_Calc(g, 0);
        if (prev != GOAL_INVALID_VERTEX)
            assert_int_equal(GOAL_Requires(g, prev, v), 0);
        prev = v;
    }
    GOAL_Schedule s = GOAL_Compile(g);
    assert_non_null(s);
    assert_int_equal(s->nroots, 1);
    goal_rs rs;
    assert_int_equal(goal_rs_init(&rs, s), 0);
    uint32_t op, expect = 0;
    while (goal_rs_next(&rs, &op)) {
        assert_int_equal(op, expect++);
        goal_rs_started(&rs, op);
        goal_rs_finished(&rs, op);
    }
    assert_int_equal(expect, n);
    assert_int_equal(rs.remaining, 0);
    goal_rs_destroy(&rs);
    GOAL_FreeSchedule(s);
    GOAL_FreeGraph(g);
}

/* A text schedule and the same schedule through the API compile to the same ops and edges. */
static void test_text_matches_api(void **state)
{
    (void)state;
    const char *text = "num_ranks 4\nrank 1 {\nl1: recv 8b from 0 tag 3\nl2: send 8b to 3 tag 3\n"
                       "l3: calc 10\nl2 requires l1\nl3 irequires l2\n}\n";
    goal_txt *t = NULL;
    char err[128];
    assert_int_equal(goal_txt_read_mem(text, strlen(text), "t", &t, err, sizeof err), 0);
    struct goal_graph tg;
    goal_graph_init(&tg);
    assert_int_equal(goal_graph_from_txt(&tg, goal_txt_rank_of(t, 1)), 0);
    struct goal_sched *ts = NULL;
    assert_int_equal(goal_compile(&tg, &ts), 0);

    GOAL_Graph g = GOAL_CreateGraph();
    GOAL_AllocateScratchpad(g, 8);
    GOAL_Vertex r = GOAL_Recv(g, GOAL_SCRATCH(0), 8, 0, 3, GOAL_SCRATCHPAD);
    GOAL_Vertex s = GOAL_Send(g, GOAL_SCRATCH(0), 8, 3, 3, GOAL_SCRATCHPAD);
    GOAL_Vertex c = GOAL_Calc(g, 10);
    GOAL_Requires(g, r, s);
    GOAL_IRequires(g, s, c);
    struct goal_sched *as = GOAL_Compile(g);
    assert_non_null(as);
    assert_int_equal(ts->nops, as->nops);
    assert_int_equal(ts->scratch, as->scratch);
    assert_int_equal(ts->max_peer, 3);
    for (uint32_t i = 0; i < ts->nops; i++) {
        assert_int_equal(ts->ops[i].kind, as->ops[i].kind);
        assert_int_equal(ts->ops[i].peer, as->ops[i].peer);
        assert_int_equal(ts->ops[i].tag, as->ops[i].tag);
        assert_int_equal(ts->ops[i].size, as->ops[i].size);
        assert_int_equal(ts->ops[i].mem[0], as->ops[i].mem[0]);
        assert_int_equal(ts->indeg[i], as->indeg[i]);
        assert_int_equal(ts->succ_off[i + 1], as->succ_off[i + 1]);
        assert_int_equal(ts->isucc_off[i + 1], as->isucc_off[i + 1]);
    }
    assert_int_equal(ts->succ[0], as->succ[0]);
    assert_int_equal(ts->isucc[0], as->isucc[0]);
    goal_sched_destroy(ts);
    goal_graph_destroy(&tg);
    goal_txt_free(t);
    GOAL_FreeSchedule(as);
    GOAL_FreeGraph(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builder_checks),
        cmocka_unit_test(test_localop_kernels),
        cmocka_unit_test(test_loopback_scratch_pipeline),
        cmocka_unit_test(test_irequires_order),
        cmocka_unit_test(test_localop_vec_compile),
        cmocka_unit_test(test_long_chain),
        cmocka_unit_test(test_text_matches_api),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
