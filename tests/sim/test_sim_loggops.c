/* tests/sim/test_sim_loggops.c — credosim's LogGOPS model against hand-derived closed forms, the
 * LogGOPSim golden results on the sample GOAL schedules, and the corrected LogGOPSim defects. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/sim.h"
#include "sim/sim_pattern.h"
#include "sim_test.h"

static sim_config cfg_with(uint64_t L, uint64_t o, uint64_t g, uint64_t G, uint64_t O, uint64_t S)
{
    sim_config c;
    memset(&c, 0, sizeof c);
    sim_cluster_default(&c.cl);
    c.lg = (sim_loggops){L, o, g, G, O, S};
    return c;
}

static sim_config cfg_default(void)
{
    sim_config c = cfg_with(0, 0, 0, 0, 0, 0);
    sim_loggops_default(&c.lg);
    return c;
}

static uint64_t mx(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* Runs s (consumed) and returns the finish times in a malloc'ed array. */
static uint64_t *run(sim_sched *s, const sim_config *c)
{
    uint64_t *f = calloc(s->nranks, sizeof *f);
    char err[256];
    int rc = sim_run(s, c, f, NULL, err, sizeof err);
    if (rc != 0)
        fail_msg("sim_run: %s", err);
    sim_sched_free(s);
    return f;
}

static sim_sched *finish(sim_builder *b)
{
    sim_sched *s = NULL;
    char err[256];
    if (sim_builder_finish(b, &s, err, sizeof err) != 0)
        fail_msg("builder: %s", err);
    return s;
}

/* rank 0 sends k messages of `size` bytes to rank 1 back to back; rank 1 posts k receives. */
static sim_sched *k_sends(unsigned k, uint64_t size)
{
    sim_builder *b = sim_builder_new(2, "k_sends");
    sim_builder_begin_rank(b, 0);
    for (unsigned i = 0; i < k; i++)
        sim_builder_op(b, SIM_SEND, 1, 0, size, 0, 0, 0);
    sim_builder_begin_rank(b, 1);
    for (unsigned i = 0; i < k; i++)
        sim_builder_op(b, SIM_RECV, 0, 0, size, 0, 0, 0);
    return finish(b);
}

static const uint64_t param_sets[][6] = {
    /* L, o, g, G, O, S */
    {2500, 1500, 1000, 6, 0, 65535},
    {500, 100, 1000, 1, 0, 65535},   /* NIC-bound */
    {1000, 300, 200, 2, 3, 65535},   /* with O */
    {7, 11, 13, 5, 17, 1 << 20},
};

static void test_one_message(void **state)
{
    (void)state;
    const uint64_t sizes[] = {1, 100, 4096};
    for (size_t p = 0; p < sizeof param_sets / sizeof param_sets[0]; p++)
        for (size_t si = 0; si < 3; si++) {
            const uint64_t *P = param_sets[p];
            uint64_t L = P[0], o = P[1], G = P[3], O = P[4], s = sizes[si];
            sim_config c = cfg_with(P[0], P[1], P[2], P[3], P[4], P[5]);
            uint64_t *f = run(k_sends(1, s), &c);
            assert_int_equal(f[0], o + (s - 1) * O);
            assert_int_equal(f[1], o + L + o + (s - 1) * mx(O, G));
            free(f);
        }
}

static void test_k_back_to_back(void **state)
{
    (void)state;
    const unsigned ks[] = {1, 2, 5, 40};
    const uint64_t sizes[] = {1, 1001};
    for (size_t p = 0; p < sizeof param_sets / sizeof param_sets[0]; p++)
        for (size_t ki = 0; ki < 4; ki++)
            for (size_t si = 0; si < 2; si++) {
                const uint64_t *P = param_sets[p];
                uint64_t L = P[0], o = P[1], g = P[2], G = P[3], O = P[4], s = sizes[si], k = ks[ki];
                sim_config c = cfg_with(P[0], P[1], P[2], P[3], P[4], P[5]);
                uint64_t *f = run(k_sends((unsigned)k, s), &c);
                /* sender period: CPU o+(s-1)O or NIC g+(s-1)G; receiver: CPU o+(s-1)max(O,G), NIC g+(s-1)G */
                uint64_t per = mx(o + (s - 1) * O, g + (s - 1) * G);
                uint64_t rcv = o + (s - 1) * mx(O, G), rgap = mx(rcv, g + (s - 1) * G);
                assert_int_equal(f[0], (k - 1) * per + o + (s - 1) * O);
                assert_int_equal(f[1], o + L + (k - 1) * mx(per, rgap) + rcv);
                free(f);
            }
}

static sim_sched *pingpong(uint64_t size)
{
    sim_builder *b = sim_builder_new(2, "pingpong");
    sim_builder_begin_rank(b, 0);
    int64_t s = sim_builder_op(b, SIM_SEND, 1, 0, size, 0, 0, 0);
    int64_t r = sim_builder_op(b, SIM_RECV, 1, 0, size, 0, 0, 0);
    sim_builder_dep(b, (uint32_t)r, (uint32_t)s, SIM_REQUIRES);
    sim_builder_begin_rank(b, 1);
    r = sim_builder_op(b, SIM_RECV, 0, 0, size, 0, 0, 0);
    s = sim_builder_op(b, SIM_SEND, 0, 0, size, 0, 0, 0);
    sim_builder_dep(b, (uint32_t)s, (uint32_t)r, SIM_REQUIRES);
    return finish(b);
}

static void test_pingpong(void **state)
{
    (void)state;
    for (size_t p = 0; p < sizeof param_sets / sizeof param_sets[0]; p++) {
        const uint64_t *P = param_sets[p];
        uint64_t L = P[0], o = P[1], G = P[3], O = P[4], s = 64;
        sim_config c = cfg_with(P[0], P[1], P[2], P[3], P[4], P[5]);
        uint64_t *f = run(pingpong(s), &c);
        uint64_t one_way = o + L + o + (s - 1) * mx(O, G);
        assert_int_equal(f[0], 2 * one_way);
        assert_int_equal(f[1], one_way + o + (s - 1) * O);
        free(f);
    }
}

/* Rank 0 sends a rendezvous message then computes 100 ns; rank 1 computes D before posting the
 * receive. The send completes only when the receive matches it, at D. */
static sim_sched *late_rndv(uint64_t size, uint64_t D)
{
    sim_builder *b = sim_builder_new(2, "late_rndv");
    sim_builder_begin_rank(b, 0);
    int64_t s = sim_builder_op(b, SIM_SEND, 1, 7, size, 0, 0, 0);
    int64_t c = sim_builder_op(b, SIM_CALC, 0, 0, 100, 0, 0, 0);
    sim_builder_dep(b, (uint32_t)c, (uint32_t)s, SIM_REQUIRES);
    sim_builder_begin_rank(b, 1);
    c = sim_builder_op(b, SIM_CALC, 0, 0, D, 0, 0, 0);
    int64_t r = sim_builder_op(b, SIM_RECV, 0, 7, size, 0, 0, 0);
    sim_builder_dep(b, (uint32_t)r, (uint32_t)c, SIM_REQUIRES);
    return finish(b);
}

static void test_late_rendezvous_receiver(void **state)
{
    (void)state;
    uint64_t L = 2500, o = 1500, G = 6, O = 0, D = 50000, s = 100000; /* s > S = 65535 */
    sim_config c = cfg_default();
    uint64_t *f = run(late_rndv(s, D), &c);
    assert_int_equal(f[0], D + 100);                       /* released at the match, then calc */
    assert_int_equal(f[1], D + o + (s - 1) * mx(O, G));    /* arrival deferred until the calc ends */
    free(f);
    /* same schedule, eager (S raised above s): the sender no longer waits for the receiver */
    c.lg.S = s;
    f = run(late_rndv(s, D), &c);
    assert_int_equal(f[0], o + (s - 1) * O + 100);
    assert_int_equal(f[1], D + o + (s - 1) * mx(O, G));
    free(f);
    /* with O and a small S: early receiver (D = 0) matches on arrival at o+L */
    c = cfg_with(L, o, 1000, G, 2, 1000);
    f = run(late_rndv(5000, 0), &c);
    assert_int_equal(f[0], mx(o + 4999 * 2, o + L) + 100); /* CPU busy with O longer than the match wait */
    assert_int_equal(f[1], o + L + o + 4999 * mx(2, G));
    free(f);
}

#ifndef SIM_TEST_DATA_DIR
#define SIM_TEST_DATA_DIR "data"
#endif

static uint64_t *run_goal(const char *name, uint32_t *nranks)
{
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/%s", SIM_TEST_DATA_DIR, name);
    sim_sched *s = NULL;
    if (sim_sched_from_goal_file(path, &s, err, sizeof err) != 0)
        fail_msg("%s", err);
    *nranks = s->nranks;
    sim_config c = cfg_default();
    return run(s, &c);
}

static void test_golden_dissemination(void **state)
{
    (void)state;
    uint32_t n;
    uint64_t *f = run_goal("dissemination_16.goal", &n);
    assert_int_equal(n, 16);
    for (uint32_t h = 0; h < n; h++)
        assert_int_equal(f[h], 22000);
    free(f);
    f = run_goal("dissemination_32.goal", &n);
    for (uint32_t h = 0; h < n; h++)
        assert_int_equal(f[h], 27500); /* one more round of o+L+o = 5500 */
    free(f);
}

static void test_golden_binary_tree(void **state)
{
    (void)state;
    uint32_t n;
    uint64_t *f = run_goal("binary_tree_16.goal", &n);
    assert_int_equal(f[15], 22000);
    assert_int_equal(f[0], 6000); /* four sends, o-bound: 3*1500 + 1500 */
    assert_int_equal(f[8], 10000);
    free(f);
    f = run_goal("binary_tree_32.goal", &n);
    assert_int_equal(f[31], 27500);
    free(f);
    f = run_goal("schedgen2_schedule.goal", &n);
    assert_int_equal(f[7], 3 * (1500 + 2500 + 1500 + 7 * 6)); /* 8-byte messages down 3 levels */
    free(f);
}

/* The pattern module's dissemination barrier is the GOAL files' schedule: identical times. */
static void test_pattern_equals_goal(void **state)
{
    (void)state;
    uint32_t n;
    uint64_t *fg = run_goal("dissemination_32.goal", &n);
    sim_sched *s;
    char err[256];
    assert_int_equal(sim_pattern_build("barrier", 32, &s, err, sizeof err), 0);
    sim_config c = cfg_default();
    uint64_t *fp = run(s, &c);
    for (uint32_t h = 0; h < n; h++)
        assert_int_equal(fp[h], fg[h]);
    free(fg);
    free(fp);
}

/* LogGOPSim defect 1: a dependency across CPUs carries no time there (the successor starts when
 * its own CPU is free). Here the calc on CPU 1 must wait for the 1000 ns calc on CPU 0. */
static void test_cross_cpu_dependency(void **state)
{
    (void)state;
    sim_builder *b = sim_builder_new(1, "xcpu");
    sim_builder_begin_rank(b, 0);
    int64_t a = sim_builder_op(b, SIM_CALC, 0, 0, 1000, 0, 0, 0);
    int64_t c = sim_builder_op(b, SIM_CALC, 0, 0, 500, 1, 0, 0);
    sim_builder_dep(b, (uint32_t)c, (uint32_t)a, SIM_REQUIRES);
    sim_config cfg = cfg_default();
    uint64_t *f = run(finish(b), &cfg);
    assert_int_equal(f[0], 1500); /* LogGOPSim: 1000 (the CPU-1 calc runs at 0..500) */
    free(f);
}

/* LogGOPSim defect 2: arrival costs go to the receiver's CPU numbered like the sender's CPU.
 * Sender on CPU 1; receiver's receive on CPU 0 while its CPU 1 is busy for 10 us. */
static void test_arrival_cpu(void **state)
{
    (void)state;
    sim_builder *b = sim_builder_new(2, "arrival_cpu");
    sim_builder_begin_rank(b, 0);
    sim_builder_op(b, SIM_SEND, 1, 0, 1, 1, 0, 0);
    sim_builder_begin_rank(b, 1);
    int64_t r = sim_builder_op(b, SIM_RECV, 0, 0, 1, 0, 0, 0);
    sim_builder_op(b, SIM_CALC, 0, 0, 10000, 1, 0, 0);
    int64_t after = sim_builder_op(b, SIM_CALC, 0, 0, 1, 0, 0, 0);
    sim_builder_dep(b, (uint32_t)after, (uint32_t)r, SIM_REQUIRES);
    sim_config cfg = cfg_default();
    uint64_t *f = run(finish(b), &cfg);
    /* receive done at o+L+o = 5500 on CPU 0, then 1 ns; CPU 1 busy until 10000 */
    assert_int_equal(f[1], 10000);
    free(f);
    /* and the CPU-0 chain alone shows the 5500: make the CPU-1 calc short */
    b = sim_builder_new(2, "arrival_cpu2");
    sim_builder_begin_rank(b, 0);
    sim_builder_op(b, SIM_SEND, 1, 0, 1, 1, 0, 0);
    sim_builder_begin_rank(b, 1);
    r = sim_builder_op(b, SIM_RECV, 0, 0, 1, 0, 0, 0);
    sim_builder_op(b, SIM_CALC, 0, 0, 5000, 1, 0, 0);
    after = sim_builder_op(b, SIM_CALC, 0, 0, 1, 0, 0, 0);
    sim_builder_dep(b, (uint32_t)after, (uint32_t)r, SIM_REQUIRES);
    f = run(finish(b), &cfg);
    assert_int_equal(f[1], 5501); /* LogGOPSim: message waits for CPU 1 (5000), done 6500, then 6501 */
    free(f);
}

/* LogGOPSim defect 3: more than 16 operations freed at once are sorted by kind with an unstable
 * sort, so same-tag receives can be posted out of program order. 20 receives freed together must
 * match the 20 messages in order: receive i is followed by a calc of (20-i) ms on its own CPU, so
 * only in-order matching gives 5500 + 20 ms. */
static void test_many_freed_keep_order(void **state)
{
    (void)state;
    enum { K = 20 };
    sim_builder *b = sim_builder_new(2, "order");
    sim_builder_begin_rank(b, 0);
    int64_t gate = sim_builder_op(b, SIM_CALC, 0, 0, 0, 0, 0, 0);
    for (int i = 0; i < K; i++) {
        int64_t r = sim_builder_op(b, SIM_RECV, 1, 0, 1, 0, 0, 0);
        int64_t c = sim_builder_op(b, SIM_CALC, 0, 0, (uint64_t)(K - i) * 1000000, (uint8_t)(i + 1), 0, 0);
        sim_builder_dep(b, (uint32_t)r, (uint32_t)gate, SIM_REQUIRES);
        sim_builder_dep(b, (uint32_t)c, (uint32_t)r, SIM_REQUIRES);
    }
    sim_builder_begin_rank(b, 1);
    int64_t prev = -1;
    for (int i = 0; i < K; i++) {
        int64_t s = sim_builder_op(b, SIM_SEND, 0, 0, 1, 0, 0, 0);
        if (prev >= 0)
            sim_builder_dep(b, (uint32_t)s, (uint32_t)prev, SIM_REQUIRES);
        prev = s;
    }
    sim_config cfg = cfg_default();
    uint64_t *f = run(finish(b), &cfg);
    assert_int_equal(f[0], 5500 + (uint64_t)K * 1000000);
    free(f);
}

static void test_bad_schedules(void **state)
{
    (void)state;
    char err[512];
    sim_sched *s = NULL;
    /* peer out of range */
    sim_builder *b = sim_builder_new(2, "bad");
    sim_builder_begin_rank(b, 0);
    sim_builder_op(b, SIM_SEND, 5, 0, 1, 0, 0, 3);
    assert_int_equal(sim_builder_finish(b, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "bad:3"));
    assert_non_null(strstr(err, "out of range"));
    /* unmatched receive: reported, not a hang */
    b = sim_builder_new(2, "lonely");
    sim_builder_begin_rank(b, 0);
    sim_builder_op(b, SIM_RECV, 1, 0, 1, 0, 0, 0);
    assert_int_equal(sim_builder_finish(b, &s, err, sizeof err), 0);
    sim_config c = cfg_default();
    assert_int_equal(sim_run(s, &c, NULL, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "no matching send"));
    sim_sched_free(s);
    /* dependency cycle */
    b = sim_builder_new(1, "cycle");
    sim_builder_begin_rank(b, 0);
    sim_builder_op(b, SIM_CALC, 0, 0, 1, 0, 0, 0);
    sim_builder_op(b, SIM_CALC, 0, 0, 1, 0, 0, 0);
    sim_builder_dep(b, 0, 1, SIM_REQUIRES);
    sim_builder_dep(b, 1, 0, SIM_REQUIRES);
    assert_int_equal(sim_builder_finish(b, &s, err, sizeof err), 0);
    assert_int_equal(sim_run(s, &c, NULL, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot complete"));
    sim_sched_free(s);
    /* GOAL text errors come with file and line from src/goal's reader */
    char path[512];
    snprintf(path, sizeof path, "%s/bad_missing_to.goal", SIM_TEST_DATA_DIR);
    assert_int_equal(sim_sched_from_goal_file(path, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "bad_missing_to.goal:3"));
    /* patterns */
    assert_int_equal(sim_pattern_build("alltoall", 4, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "expected alltoall:BYTES"));
    assert_int_equal(sim_pattern_build("nosuch:1", 4, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "unknown pattern"));
}

/* wildcard receives (ANY_SOURCE / ANY_TAG) take the first message in arrival order */
static void test_wildcards(void **state)
{
    (void)state;
    sim_builder *b = sim_builder_new(3, "wild");
    sim_builder_begin_rank(b, 0);
    int64_t r1 = sim_builder_op(b, SIM_RECV, SIM_ANY, SIM_ANY, 1, 0, 0, 0);
    int64_t r2 = sim_builder_op(b, SIM_RECV, 2, 5, 1, 0, 0, 0);
    sim_builder_dep(b, (uint32_t)r2, (uint32_t)r1, SIM_REQUIRES);
    sim_builder_begin_rank(b, 1);
    sim_builder_op(b, SIM_SEND, 0, 3, 1, 0, 0, 0);
    sim_builder_begin_rank(b, 2);
    int64_t c = sim_builder_op(b, SIM_CALC, 0, 0, 10000, 0, 0, 0);
    int64_t s = sim_builder_op(b, SIM_SEND, 0, 5, 1, 0, 0, 0);
    sim_builder_dep(b, (uint32_t)s, (uint32_t)c, SIM_REQUIRES);
    sim_config cfg = cfg_default();
    uint64_t *f = run(finish(b), &cfg);
    assert_int_equal(f[0], 10000 + 5500); /* first from rank 1 (wildcard), then rank 2's late one */
    free(f);
}

/* An exact receive posted before a wildcard one takes the first message it matches (posted exact
 * receives are chained through their operations, wildcards kept apart: the order must hold). */
static void test_exact_before_wildcard(void **state)
{
    (void)state;
    sim_builder *b = sim_builder_new(3, "exactfirst");
    sim_builder_begin_rank(b, 0);
    sim_builder_op(b, SIM_RECV, 1, 3, 1, 0, 0, 0);
    int64_t w = sim_builder_op(b, SIM_RECV, SIM_ANY, SIM_ANY, 1, 0, 0, 0);
    int64_t c = sim_builder_op(b, SIM_CALC, 0, 0, 1000, 0, 0, 0);
    sim_builder_dep(b, (uint32_t)c, (uint32_t)w, SIM_REQUIRES);
    sim_builder_begin_rank(b, 1);
    sim_builder_op(b, SIM_SEND, 0, 3, 1, 0, 0, 0);
    sim_builder_begin_rank(b, 2);
    int64_t d = sim_builder_op(b, SIM_CALC, 0, 0, 10000, 0, 0, 0);
    int64_t s = sim_builder_op(b, SIM_SEND, 0, 9, 1, 0, 0, 0);
    sim_builder_dep(b, (uint32_t)s, (uint32_t)d, SIM_REQUIRES);
    sim_config cfg = cfg_default();
    uint64_t *f = run(finish(b), &cfg);
    assert_int_equal(f[0], 10000 + 5500 + 1000); /* the wildcard gets rank 2's late message */
    free(f);
}

/* Pairs (2p, 2p+1): 2p sends A, computes 3000 ns, sends B, both with the same tag; 2p+1 posts two
 * receives for them at time 0 and computes 10000 ns after the first, 1 ns after the second. */
static sim_sched *same_key_pairs(uint32_t n)
{
    sim_builder *b = sim_builder_new(n, "same_key_pairs");
    for (uint32_t r = 0; r < n; r++) {
        sim_builder_begin_rank(b, r);
        if (r % 2 == 0) {
            int64_t a = sim_builder_op(b, SIM_SEND, (int32_t)r + 1, 7, 1, 0, 0, 0);
            int64_t c = sim_builder_op(b, SIM_CALC, 0, 0, 3000, 0, 0, 0);
            int64_t s = sim_builder_op(b, SIM_SEND, (int32_t)r + 1, 7, 1, 0, 0, 0);
            sim_builder_dep(b, (uint32_t)c, (uint32_t)a, SIM_REQUIRES);
            sim_builder_dep(b, (uint32_t)s, (uint32_t)c, SIM_REQUIRES);
        } else {
            int64_t ra = sim_builder_op(b, SIM_RECV, (int32_t)r - 1, 7, 1, 0, 0, 0);
            int64_t rb = sim_builder_op(b, SIM_RECV, (int32_t)r - 1, 7, 1, 0, 0, 0);
            int64_t ca = sim_builder_op(b, SIM_CALC, 0, 0, 10000, 0, 0, 0);
            int64_t cb = sim_builder_op(b, SIM_CALC, 0, 0, 1, 0, 0, 0);
            sim_builder_dep(b, (uint32_t)ca, (uint32_t)ra, SIM_REQUIRES);
            sim_builder_dep(b, (uint32_t)cb, (uint32_t)rb, SIM_REQUIRES);
        }
    }
    return finish(b);
}

/* The receives posted by the initial operations are bucketed in one pass after they ran
 * (sim_engine.c, bulk_post) once the match table is large; receives with the same key must still
 * match in posting order. A matches the first receive at 4000 (CPU until 5500, calc until 15500),
 * B (sent at 4500, arrives 8500) waits for the CPU: 15500 + 1500 + 1 = 17001; the wrong order
 * would give 20000. 120000 ranks post 120000 receives: the host-block layout inserts them in
 * schedule order, and with CREDOSIM_HASHED_BUCKETS=1 the sorted path does; 2 ranks: the plain one. */
static void test_bulk_post_order(void **state)
{
    (void)state;
    sim_config cfg = cfg_default();
    uint64_t *small = run(same_key_pairs(2), &cfg);
    assert_int_equal(small[0], 6000);
    assert_int_equal(small[1], 17001);
    const uint32_t n = 120000;
    for (int hashed = 0; hashed <= 1; hashed++) {
        if (hashed)
            setenv("CREDOSIM_HASHED_BUCKETS", "1", 1);
        uint64_t *big = run(same_key_pairs(n), &cfg);
        unsetenv("CREDOSIM_HASHED_BUCKETS");
        for (uint32_t r = 0; r < n; r++)
            if (big[r] != small[r % 2])
                fail_msg("%s layout: rank %u finishes at %llu, expected %llu", hashed ? "hashed" : "host-block",
                         r, (unsigned long long)big[r], (unsigned long long)small[r % 2]);
        free(big);
    }
    free(small);
}

/* Successor counts of the rank templates (sim_top nreq / nireq): rank 1's last operation (the last
 * of the schedule) has an irequires successor. Rank 0: c0 irequires s0 (starts when s0 starts, after s0's CPU
 * overhead: 1500..2500). Rank 1: c1 irequires r1 (0..500), c2 requires r1 (r1 done at
 * 1500 + 2500 + 1500 = 5500, c2 until 6200). A wrong count deadlocks or changes the times. A GOAL
 * export read back must give the same counts. */
static const char irequires_goal[] = "num_ranks 2\n"
                                     "rank 0 {\n"
                                     "s0: send 1b to 1 tag 4\n"
                                     "c0: calc 1000\n"
                                     "c0 irequires s0\n"
                                     "}\n"
                                     "rank 1 {\n"
                                     "c1: calc 500\n"
                                     "c2: calc 700\n"
                                     "r1: recv 1b from 0 tag 4\n"
                                     "c1 irequires r1\n"
                                     "c2 requires r1\n"
                                     "}\n";

static void test_irequires_counts(void **state)
{
    (void)state;
    sim_sched *s = NULL;
    char err[256];
    assert_int_equal(sim_sched_from_goal_mem(irequires_goal, sizeof irequires_goal - 1, "ireq", &s, err,
                                             sizeof err),
                     0);
    assert_int_equal(sizeof(sim_top), 32);
    assert_int_equal(sizeof(sim_opst), 12);
    const uint32_t nreq[5] = {0, 0, 0, 0, 1}, nireq[5] = {1, 0, 0, 0, 1};
    assert_int_equal(s->nops, 5);
    for (uint32_t i = 0; i < 5; i++) {
        assert_int_equal(sim_top_of(s, i < 2 ? 0 : 1, i)->nreq, nreq[i]);
        assert_int_equal(sim_top_of(s, i < 2 ? 0 : 1, i)->nireq, nireq[i]);
    }
    /* export, read back: same successor counts */
    size_t len = 0;
    char *text = goal_text_of(s, &len);
    sim_sched *t = NULL;
    assert_int_equal(sim_sched_from_goal_mem(text, len, "ireq-export", &t, err, sizeof err), 0);
    free(text);
    assert_int_equal(t->nops, 5);
    for (uint32_t i = 0; i < 5; i++) {
        assert_int_equal(sim_top_of(t, i < 2 ? 0 : 1, i)->nreq, nreq[i]);
        assert_int_equal(sim_top_of(t, i < 2 ? 0 : 1, i)->nireq, nireq[i]);
    }
    sim_sched_free(t);
    sim_config cfg = cfg_default();
    uint64_t *fin = run(s, &cfg);
    assert_int_equal(fin[0], 2500);
    assert_int_equal(fin[1], 6200);
    free(fin);
}

/* Match buckets keep no (src, tag): a bucket's key is its head entry's, so it must follow the head
 * as entries leave. Rank 0 sends tags 1, 2, 1, 2 (and one with tag 3 to rank 2, 4 keys in all at
 * rank 1 with the posted ones); rank 1 computes past every arrival, so all four are unexpected in
 * two buckets of two, then receives tags 2, 1, 2, 1 (each receive finds its bucket through the
 * current head). Then rank 1 posts two exact receives for tag 5 and one for tag 6 before rank 2's
 * messages (tags 6, 5, 5) arrive: the posted buckets' heads change the same way. */
static const char bucket_key_goal[] = "num_ranks 3\n"
                                      "rank 0 {\n"
                                      "a: send 1b to 1 tag 1\n"
                                      "b: send 1b to 1 tag 2\n"
                                      "c: send 1b to 1 tag 1\n"
                                      "d: send 1b to 1 tag 2\n"
                                      "e: send 1b to 2 tag 3\n"
                                      "}\n"
                                      "rank 1 {\n"
                                      "w: calc 100000\n"
                                      "r1: recv 1b from 0 tag 2\n"
                                      "r2: recv 1b from 0 tag 1\n"
                                      "r3: recv 1b from 0 tag 2\n"
                                      "r4: recv 1b from 0 tag 1\n"
                                      "p1: recv 1b from 2 tag 5\n"
                                      "p2: recv 1b from 2 tag 5\n"
                                      "p3: recv 1b from 2 tag 6\n"
                                      "r1 requires w\n"
                                      "r2 requires r1\n"
                                      "r3 requires r2\n"
                                      "r4 requires r3\n"
                                      "p1 requires r4\n"
                                      "p2 requires r4\n"
                                      "p3 requires r4\n"
                                      "}\n"
                                      "rank 2 {\n"
                                      "x: recv 1b from 0 tag 3\n"
                                      "y: calc 200000\n"
                                      "y requires x\n"
                                      "s6: send 1b to 1 tag 6\n"
                                      "s5a: send 1b to 1 tag 5\n"
                                      "s5b: send 1b to 1 tag 5\n"
                                      "s6 requires y\n"
                                      "s5a requires s6\n"
                                      "s5b requires s5a\n"
                                      "}\n";

static void test_bucket_key_follows_head(void **state)
{
    (void)state;
    sim_sched *s = NULL;
    char err[256];
    assert_int_equal(sim_sched_from_goal_mem(bucket_key_goal, sizeof bucket_key_goal - 1, "bkey", &s, err,
                                             sizeof err),
                     0);
    sim_config cfg = cfg_default();
    uint64_t *f = run(s, &cfg);
    /* rank 2: e starts at 6000 and arrives at 6000 + o + L = 10000, x is done at 11500, y until
     * 211500, then three sends 1500 apart (done 216000): the last (tag 5) arrives 214500 + 1500 +
     * 2500 = 218500 and its receive is done at 220000 (the credosim before this change agrees) */
    assert_int_equal(f[0], 7500);
    assert_int_equal(f[2], 216000);
    assert_int_equal(f[1], 220000);
    free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_message),
        cmocka_unit_test(test_k_back_to_back),
        cmocka_unit_test(test_pingpong),
        cmocka_unit_test(test_late_rendezvous_receiver),
        cmocka_unit_test(test_golden_dissemination),
        cmocka_unit_test(test_golden_binary_tree),
        cmocka_unit_test(test_pattern_equals_goal),
        cmocka_unit_test(test_cross_cpu_dependency),
        cmocka_unit_test(test_arrival_cpu),
        cmocka_unit_test(test_many_freed_keep_order),
        cmocka_unit_test(test_bad_schedules),
        cmocka_unit_test(test_wildcards),
        cmocka_unit_test(test_exact_before_wildcard),
        cmocka_unit_test(test_bulk_post_order),
        cmocka_unit_test(test_irequires_counts),
        cmocka_unit_test(test_bucket_key_follows_head),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
