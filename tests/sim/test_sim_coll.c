/* tests/sim/test_sim_coll.c — credosim on src/coll's own schedules: the coll: patterns give the
 * same finish times as their GOAL text export read back, and LogGOPSim's golden values. */
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

static sim_config cfg_loggops(void)
{
    sim_config c;
    memset(&c, 0, sizeof c);
    sim_cluster_default(&c.cl);
    sim_loggops_default(&c.lg);
    return c;
}

/* Cluster model with flow control: the round trip must hold there too (credits, packets). */
static sim_config cfg_cluster(const char *fc)
{
    sim_config c = cfg_loggops();
    c.cl.enabled = 1;
    c.cl.ppn = 4;
    c.cl.fc = fc;
    c.cl.slots_per_peer = 8;
    return c;
}

static uint64_t *run(sim_sched *s, const sim_config *c)
{
    uint64_t *f = calloc(s->nranks, sizeof *f);
    assert_non_null(f);
    char err[256];
    if (sim_run(s, c, f, NULL, err, sizeof err) != 0)
        fail_msg("sim_run: %s", err);
    return f;
}

/* Builds spec through src/coll, exports it as GOAL text, reads it back; both must finish every
 * host at the same time. Returns the times of the src/coll-built schedule. */
static uint64_t *roundtrip(const char *spec, uint32_t n, const sim_config *c)
{
    char err[256];
    sim_sched *a = NULL, *b = NULL;
    if (sim_pattern_build(spec, n, &a, err, sizeof err) != 0)
        fail_msg("%s: %s", spec, err);
    size_t len = 0;
    char *text = goal_text_of(a, &len);
    if (sim_sched_from_goal_mem(text, len, spec, &b, err, sizeof err) != 0)
        fail_msg("%s read back: %s", spec, err);
    free(text);
    assert_int_equal(a->nops, b->nops);
    assert_int_equal(a->ntmpl, b->ntmpl); /* the same rank templates (line numbers are kept apart) */
    uint64_t *fa = run(a, c), *fb = run(b, c);
    for (uint32_t r = 0; r < n; r++) {
        if (fa[r] != fb[r])
            fail_msg("%s: host %u: src/coll schedule %llu ns, its GOAL text %llu ns", spec, r,
                     (unsigned long long)fa[r], (unsigned long long)fb[r]);
        assert_true(fa[r] > 0);
    }
    sim_sched_free(a);
    sim_sched_free(b);
    free(fb);
    return fa;
}

static void test_barrier_golden(void **state)
{
    (void)state;
    sim_config c = cfg_loggops();
    uint64_t *f = roundtrip("coll:barrier", 16, &c);
    for (int r = 0; r < 16; r++)
        assert_int_equal(f[r], 22000); /* LogGOPSim, dissemination_16.goal */
    free(f);
    /* and the file itself */
    sim_sched *s = NULL;
    char err[256];
    assert_int_equal(sim_sched_from_goal_file(SIM_TEST_DATA_DIR "/dissemination_16.goal", &s, err,
                                              sizeof err), 0);
    uint64_t *g = run(s, &c);
    for (int r = 0; r < 16; r++)
        assert_int_equal(g[r], 22000);
    sim_sched_free(s);
    free(g);
}

static void test_bcast_binomial(void **state)
{
    (void)state;
    sim_config c = cfg_loggops();
    /* 1 byte, as LogGOPSim's binary_tree_16.goal: golden host 0 6000 ns (four sends at o = 1500),
     * host 15 22000 ns (four levels of o + L + o); the other hosts equal the file's times too. */
    uint64_t *f = roundtrip("coll:bcast:1:binomial", 16, &c);
    assert_int_equal(f[0], 6000);
    assert_int_equal(f[15], 22000);
    sim_sched *s = NULL;
    char err[256];
    assert_int_equal(sim_sched_from_goal_file(SIM_TEST_DATA_DIR "/binary_tree_16.goal", &s, err,
                                              sizeof err), 0);
    uint64_t *g = run(s, &c);
    for (int r = 0; r < 16; r++)
        assert_int_equal(f[r], g[r]);
    sim_sched_free(s);
    free(g);
    free(f);
    /* 8 bytes: each level also pays (s-1)G = 42 ns at the receiver */
    f = roundtrip("coll:bcast:8:binomial", 16, &c);
    assert_int_equal(f[15], 4 * (1500 + 2500 + 1500 + 7 * 6));
    free(f);
}

static void test_allreduce_recdbl(void **state)
{
    (void)state;
    sim_config c = cfg_loggops();
    uint64_t *f = roundtrip("coll:allreduce:8:recursive_doubling", 16, &c);
    /* 4 exchange rounds, all hosts symmetric: every host finishes at the same time */
    for (int r = 1; r < 16; r++)
        assert_int_equal(f[r], f[0]);
    free(f);
    f = roundtrip("coll:allreduce:8:recursive_doubling", 12, &c); /* non-power-of-two fold */
    free(f);
}

static void test_cluster_roundtrip(void **state)
{
    (void)state;
    const char *specs[] = {"coll:barrier", "coll:bcast:2048", "coll:allreduce:1024",
                           "coll:alltoall:2048", "coll:allgather:512"};
    const char *fcs[] = {"none", "static", "dynamic"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        for (size_t k = 0; k < 3; k++) {
            sim_config c = cfg_cluster(fcs[k]);
            free(roundtrip(specs[i], 16, &c));
        }
}

/* Grouped deferral (sim_engine.c) must give exactly LogGOPSim's one-by-one re-queueing results,
 * with fewer events when many operations wait on one CPU. */
static void test_grouped_deferral_exact(void **state)
{
    (void)state;
    const char *specs[] = {"alltoall:2048", "coll:alltoall:2048", "coll:alltoall:100000",
                           "coll:allreduce:4096", "coll:gather:1024", "pingpong:8:4", "phased:512"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        uint64_t *f[2], ev[2];
        sim_config c = cfg_loggops();
        for (int k = 0; k < 2; k++) {
            sim_stats st;
            f[k] = run_spec_switch(specs[i], 64, &c, "CREDOSIM_UNGROUPED", k, &st);
            ev[k] = st.events;
        }
        expect_same_finish(specs[i], f, 64, "grouped", "one by one");
        assert_true(ev[0] <= ev[1]);
        if (i == 0)
            assert_true(ev[0] * 4 < ev[1]); /* 63 sends per host on one CPU: k^2 -> k */
    }
}

/* The match table's host-block layout (sim_engine.c, bk_home) only moves buckets: every run must
 * be identical with the hash-only layout (CREDOSIM_HASHED_BUCKETS=1). The schedules are large
 * enough for blocks (at least 16 blocks of 4096 slots: 49152 receives posted at once), balanced
 * (barrier, alltoall) or not (gather: the root posts most receives, so the layout falls back). */
static void test_bucket_layout_exact(void **state)
{
    (void)state;
    const struct {
        const char *spec;
        uint32_t n;
    } runs[] = {{"barrier", 4096}, {"alltoall:64", 256}, {"alltoall:64:2", 256}, {"gather:8", 65536},
                {"coll:allreduce:8", 8192}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        uint64_t *f[2];
        sim_stats st[2];
        sim_config c = cfg_loggops();
        for (int k = 0; k < 2; k++)
            f[k] = run_spec_switch(runs[i].spec, runs[i].n, &c, "CREDOSIM_HASHED_BUCKETS", k, &st[k]);
        expect_same_finish(runs[i].spec, f, runs[i].n, "blocks", "hashed");
        assert_int_equal(st[0].events, st[1].events);
        assert_int_equal(st[0].messages, st[1].messages);
        assert_int_equal(st[0].peak_queue, st[1].peak_queue);
    }
}

/* Ranks with the same operations relative to their rank share one template (sim.h): a barrier or
 * an alltoall keeps one, a binomial broadcast one per distinct subtree shape; exported as GOAL
 * text and read back, a schedule has the same templates and the same times. */
static void test_templates_shared(void **state)
{
    (void)state;
    const struct {
        const char *spec;
        uint32_t n, ntmpl;
    } want[] = {{"barrier", 1000, 1}, {"alltoall:8", 100, 1}, {"alltoall:8:3", 64, 1}, {"sendrecv:8", 50, 1},
                {"pingpong:8", 64, 2}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        sim_sched *s = NULL;
        char err[256];
        if (sim_pattern_build(want[i].spec, want[i].n, &s, err, sizeof err) != 0)
            fail_msg("%s: %s", want[i].spec, err);
        if (s->ntmpl != want[i].ntmpl)
            fail_msg("%s at %u ranks: %u templates, expected %u", want[i].spec, want[i].n, s->ntmpl, want[i].ntmpl);
        assert_true(s->ntops * want[i].n <= s->nops * want[i].ntmpl);
        sim_sched_free(s);
    }
    /* a broadcast's ranks differ (subtree sizes), so most templates are distinct; times still match
     * through the GOAL round trip (roundtrip() compares per-host times) */
    sim_config c = cfg_loggops();
    free(roundtrip("bcast:1024", 100, &c));
    free(roundtrip("barrier", 100, &c));
}

/* Packets in flight between two nodes wait in that pair's channel with only its head queued: the
 * run must be identical to queueing every packet (CREDOSIM_NO_CHANNELS=1), with a smaller queue. */
static void test_channels_exact(void **state)
{
    (void)state;
    const char *specs[] = {"alltoall:2048", "coll:allreduce:4096", "phased:512", "coll:bcast:100000"};
    const char *fcs[] = {"none", "static", "dynamic"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        for (size_t k = 0; k < 3; k++) {
            uint64_t *f[2];
            sim_stats st[2];
            sim_config c = cfg_cluster(fcs[k]);
            c.cl.dims[0] = 4, c.cl.dims[1] = 2, c.cl.dims[2] = 2; /* 16 nodes of 4 ranks */
            for (int nc = 0; nc < 2; nc++)
                f[nc] = run_spec_switch(specs[i], 64, &c, "CREDOSIM_NO_CHANNELS", nc, &st[nc]);
            char what[128];
            snprintf(what, sizeof what, "%s --fc %s", specs[i], fcs[k]);
            expect_same_finish(what, f, 64, "channels", "one event per packet");
            expect_same_cluster_counts(st);
            assert_true(st[0].peak_queue <= st[1].peak_queue);
            if (i == 0 && k == 0)
                assert_true(st[0].peak_queue * 4 < st[1].peak_queue); /* 37 packets per message in flight */
        }
    }
}

/* --hold-unexpected: slots of unexpected messages are held until matched, and the idle-time spill
 * keeps every schedule completing, even with tiny buffers; without flow control holding changes
 * nothing (no credits to hold back). */
static void test_hold_unexpected_completes(void **state)
{
    (void)state;
    const char *specs[] = {"alltoall:2048:2", "bcast:2048:3", "reduce:2048:3", "gather:2048:3",
                           "allreduce:2048:3", "sendrecv:2048:3", "coll:gather:4096"};
    const char *fcs[] = {"none", "static", "dynamic"};
    uint64_t held = 0, spilled = 0;
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        for (size_t k = 0; k < 3; k++) {
            uint64_t *f[2];
            for (int hold = 0; hold < 2; hold++) {
                sim_sched *s = NULL;
                char err[256];
                if (sim_pattern_build(specs[i], 32, &s, err, sizeof err) != 0)
                    fail_msg("%s: %s", specs[i], err);
                sim_config c = cfg_cluster(fcs[k]);
                c.cl.slots_per_peer = 5;
                c.cl.hold_unexpected = hold;
                c.cl.dims[0] = 4, c.cl.dims[1] = 2, c.cl.dims[2] = 1;
                sim_stats st;
                f[hold] = calloc(32, sizeof *f[hold]);
                if (sim_run(s, &c, f[hold], &st, err, sizeof err) != 0)
                    fail_msg("%s --fc %s%s: %s", specs[i], fcs[k], hold ? " --hold-unexpected" : "", err);
                if (!hold)
                    assert_int_equal(st.held_packets, 0);
                held += st.held_packets;
                spilled += st.spilled_packets;
                assert_true(st.spilled_packets <= st.held_packets);
                sim_sched_free(s);
            }
            if (k == 0)
                for (int r = 0; r < 32; r++)
                    assert_int_equal(f[0][r], f[1][r]);
            free(f[0]);
            free(f[1]);
        }
    }
    assert_true(held > 0);
    assert_true(spilled > 0);
}

static void test_bad_specs(void **state)
{
    (void)state;
    char err[256];
    sim_sched *s = NULL;
    assert_int_equal(sim_pattern_build("coll:frobnicate", 16, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "coll:NAME"));
    assert_int_equal(sim_pattern_build("coll:bcast:8:ring", 16, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "not valid"));
    assert_int_equal(sim_pattern_build("coll:bcast:x", 16, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "BYTES"));
    assert_null(s);
}

/* IMB-style rotating roots (*_rr): iteration i is the root-0 tree over virtual ranks
 * (r - i) mod n. A single iteration equals the root-0 pattern; in the second iteration of a
 * 4-rank bcast_rr rank 1 is the root (sends to 2 and 3, receives nothing) and rank 0, virtual
 * rank 3, receives from rank 2. */
static void test_rooted_round_robin(void **state)
{
    (void)state;
    static const char *const names[] = {"bcast", "reduce", "gather", "scatter"};
    sim_config c = cfg_loggops();
    char err[256];
    for (int k = 0; k < 4; k++) {
        char a[64], b[64];
        snprintf(a, sizeof a, "%s:256:1", names[k]);
        snprintf(b, sizeof b, "%s_rr:256:1", names[k]);
        sim_sched *sa = NULL, *sb = NULL;
        if (sim_pattern_build(a, 13, &sa, err, sizeof err) != 0 || sim_pattern_build(b, 13, &sb, err, sizeof err) != 0)
            fail_msg("%s / %s: %s", a, b, err);
        uint64_t *fa = run(sa, &c), *fb = run(sb, &c);
        for (uint32_t r = 0; r < 13; r++)
            if (fa[r] != fb[r])
                fail_msg("%s host %u: %llu ns, %s %llu ns", a, r, (unsigned long long)fa[r], b, (unsigned long long)fb[r]);
        free(fa);
        free(fb);
        sim_sched_free(sa);
        sim_sched_free(sb);
    }
    sim_sched *s = NULL;
    if (sim_pattern_build("bcast_rr:8:2", 4, &s, err, sizeof err) != 0)
        fail_msg("bcast_rr:8:2: %s", err);
    size_t len = 0;
    char *text = goal_text_of(s, &len);
    const char *r0 = strstr(text, "rank 0 {"), *r1 = strstr(text, "rank 1 {"), *r2 = strstr(text, "rank 2 {");
    assert_non_null(r0);
    assert_non_null(r1);
    assert_non_null(r2);
    const char *hit = strstr(r0, "recv 8b from 2 tag 1");
    assert_true(hit && hit < r1);
    hit = strstr(r1, "send 8b to 2 tag 1");
    assert_true(hit && hit < r2);
    hit = strstr(r1, "send 8b to 3 tag 1");
    assert_true(hit && hit < r2);
    /* rank 1's only receive is iteration 0's */
    hit = strstr(r1, "recv 8b from 0 tag 0");
    assert_true(hit && hit < r2);
    const char *again = strstr(hit + 1, "recv");
    assert_true(again == NULL || again > r2);
    free(text);
    sim_sched_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_barrier_golden),
        cmocka_unit_test(test_bcast_binomial),
        cmocka_unit_test(test_allreduce_recdbl),
        cmocka_unit_test(test_cluster_roundtrip),
        cmocka_unit_test(test_grouped_deferral_exact),
        cmocka_unit_test(test_channels_exact),
        cmocka_unit_test(test_bucket_layout_exact),
        cmocka_unit_test(test_templates_shared),
        cmocka_unit_test(test_hold_unexpected_completes),
        cmocka_unit_test(test_bad_specs),
        cmocka_unit_test(test_rooted_round_robin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
