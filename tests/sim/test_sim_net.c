/* tests/sim/test_sim_net.c — the packet-level network model (src/sim/net.c) against closed forms:
 * one flow's rate, a slow sink's 1/s, conservation, no deadlock when saturated, determinism. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sim/net.h"

/* dragonfly:1,1,1 is two routers in two groups joined by one global link, one node each: node 0
 * and node 1 stream to each other, every link carries one flow. Short windows keep tests fast. */
static net_config two_nodes(void)
{
    net_config c;
    net_config_default(&c);
    c.p = c.a = c.h = 1;
    c.check = 1;
    /* throughput counts whole packets when their last flit is sunk: over 20,000 measured cycles a
     * flow is off by at most one packet, 16 / 20000 = 0.08 % */
    c.window = 2000;
    c.warm_min = 3;
    c.meas_min = 10;
    c.max_cycles = 60000;
    return c;
}

static net_result run_ok(const net_config *c)
{
    net_result r;
    char err[256];
    if (net_run(c, &r, err, sizeof err) != 0)
        fail_msg("%s", err);
    return r;
}

static void one_flow_full_rate(void **state)
{
    (void)state;
    /* a lone flow is limited only by its links: 1 flit/cycle, for every routing mode */
    for (int rt = NET_ROUTE_MIN; rt <= NET_ROUTE_PAR; rt++) {
        net_config c = two_nodes();
        c.routing = (net_routing)rt;
        net_result r = run_ok(&c);
        assert_true(r.converged);
        if (r.throughput < 0.998 || r.throughput > 1.002)
            fail_msg("routing %d: one flow at %.4f flits/cycle, expected 1", rt, r.throughput);
        assert_int_equal(r.n_victim, 2);
    }
}

static void slow_sink_gets_one_over_s(void **state)
{
    (void)state;
    /* one of the two sinks at 1/s: the flow into it gets 1/s, the flow out of it still 1 */
    for (uint32_t s = 2; s <= 8; s *= 2) {
        net_config c = two_nodes();
        c.slow_nodes = 1;
        c.slowdown = s;
        net_result r = run_ok(&c);
        assert_int_equal(r.n_to_slow, 1);
        assert_int_equal(r.n_from_slow, 1);
        if (r.thr_to_slow < 0.99 / s || r.thr_to_slow > 1.01 / s)
            fail_msg("slowdown %u: the flow into the slow sink got %.4f, expected %.4f", s, r.thr_to_slow, 1.0 / s);
        if (r.thr_from_slow < 0.998)
            fail_msg("slowdown %u: the flow out of the slow node got %.4f, expected 1", s, r.thr_from_slow);
        /* the back-pressure fills the path: the one global VC into the slow node's router is full */
        assert_true(r.vc_over90 > 0);
    }
}

static void rdrp_window_paces_and_bounds(void **state)
{
    (void)state;
    /* RDRP with W = 1 waits a round trip per packet: well below line rate. With a large W the
     * limit is the injection link, which carries the node's replies (16 flits) and its own get
     * requests (1 flit per reply it receives): 16/17 of a flit per cycle of data. In flight per
     * receiver never exceeds W packets of 16 flits of 16 bytes. */
    net_config c = two_nodes();
    c.transfer = NET_XFER_RDRP;
    c.rdrp_window = 1;
    net_result r1 = run_ok(&c);
    assert_true(r1.throughput < 0.5);
    assert_true(r1.rdrp_inflight_max <= 256);
    c.rdrp_window = 30;
    net_result r30 = run_ok(&c);
    if (r30.throughput < 16.0 / 17 - 0.002 || r30.throughput > 16.0 / 17 + 0.002)
        fail_msg("RDRP W=30 on an idle pair: %.4f, expected 16/17 = %.4f", r30.throughput, 16.0 / 17);
    assert_true(r30.rdrp_inflight_max <= 30 * 256);
    assert_true(r30.rdrp_inflight_max > 256);
    /* a slow sink paces the pull: the flow gets 1/s and the window stays full (no tree needed) */
    c.slow_nodes = 1;
    c.slowdown = 4;
    net_result rs = run_ok(&c);
    if (rs.thr_to_slow < 0.99 / 4 || rs.thr_to_slow > 1.01 / 4)
        fail_msg("RDRP into a 4x slow sink: %.4f, expected 0.25", rs.thr_to_slow);
}

/* k = 2 (72 nodes), saturated, with 8x slow sinks growing congestion trees: every routing mode runs
 * its full budget with flits moving (the stall bound is short) and conserves flits every cycle. */
static void saturated_never_deadlocks(void **state)
{
    (void)state;
    for (int rt = NET_ROUTE_MIN; rt <= NET_ROUTE_PAR; rt++)
        for (int tr = NET_TRAFFIC_PAIRWISE; tr <= NET_TRAFFIC_UNIFORM; tr++) {
            net_config c;
            net_config_default(&c);
            c.routing = (net_routing)rt;
            c.traffic = (net_traffic)tr;
            c.slow_nodes = 4;
            c.slowdown = 8;
            c.check = 1;
            c.stall_cycles = 2000;
            c.window = 1000;
            c.warm_min = 4;
            c.meas_min = 100; /* no early stop: the whole budget */
            c.max_cycles = 12000;
            net_result r = run_ok(&c);
            assert_int_equal(r.cycles, 12000);
            assert_true(r.throughput > 0.05);
            assert_true(r.flits_ejected > 0);
        }
}

static void too_few_vcs_deadlock_is_reported(void **state)
{
    (void)state;
    /* the check can fail: Valiant with one VC under saturated uniform traffic closes a cycle of full
     * buffers, and the run ends with the deadlock message instead of a throughput */
    net_config c;
    net_config_default(&c);
    c.routing = NET_ROUTE_VALIANT;
    c.traffic = NET_TRAFFIC_UNIFORM;
    c.vcs = 1;
    c.vc_flits = 16;
    c.stall_cycles = 2000;
    c.meas_min = 100;
    c.max_cycles = 60000;
    net_result r;
    char err[256];
    int rc = net_run(&c, &r, err, sizeof err);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err, "deadlock"));
    /* the same network with the three VCs of the scheme runs its whole budget */
    c.vcs = 0;
    c.check = 1;
    c.max_cycles = 20000;
    net_result ok = run_ok(&c);
    assert_int_equal(ok.cycles, 20000);
}

static void same_seed_same_result(void **state)
{
    (void)state;
    net_config c;
    net_config_default(&c);
    c.slow_nodes = 2;
    c.slowdown = 4;
    c.cc = NET_CC_FECN;
    c.max_cycles = 15000;
    c.warm_min = 4;
    net_result a = run_ok(&c), b = run_ok(&c);
    a.cpu_s = b.cpu_s = 0;
    a.bytes = b.bytes = 0;
    assert_memory_equal(&a, &b, sizeof a);
    assert_true(a.fecn_marked > 0);
    c.seed = 2;
    net_result d = run_ok(&c);
    assert_true(d.events != a.events || d.throughput != a.throughput);
}

static void bad_config_refused(void **state)
{
    (void)state;
    net_config c;
    net_config_default(&c);
    net_result r;
    char err[256];
    c.transfer = NET_XFER_RDRP;
    c.traffic = NET_TRAFFIC_UNIFORM;
    assert_int_equal(net_run(&c, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "RDRP needs"));
    net_config_default(&c);
    c.slow_nodes = 73;
    assert_int_equal(net_run(&c, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "more slow nodes"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_flow_full_rate),
        cmocka_unit_test(slow_sink_gets_one_over_s),
        cmocka_unit_test(rdrp_window_paces_and_bounds),
        cmocka_unit_test(saturated_never_deadlocks),
        cmocka_unit_test(too_few_vcs_deadlock_is_reported),
        cmocka_unit_test(same_seed_same_result),
        cmocka_unit_test(bad_config_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
