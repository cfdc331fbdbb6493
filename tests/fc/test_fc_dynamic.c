/* tests/fc/test_fc_dynamic.c — unit tests of the dynamic scheme: initial state (notes 3.3 example),
 * Fig. 6.4 blocks 1-2 with R1, stealing and victims, request/response, parameter checks, models. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "fc/fc.h"
#include "fc_model.h"

static const fc_ops *D = &fc_dynamic_ops;

static fc_state *make(uint32_t n, uint32_t self, uint32_t S, uint32_t C)
{
    fc_params p = {.nranks = n, .self = self, .slots_per_peer = S, .credit_slots = C};
    fc_state *st = NULL;
    char err[200] = "";
    if (D->create(&p, &st, err, sizeof err) != 0)
        fail_msg("create(n=%u S=%u C=%u) failed: %s", n, S, C, err);
    return st;
}

static void assert_consistent(fc_state *st)
{
    char err[200];
    if (D->check(st, err, sizeof err) != 0)
        fail_msg("%s", err);
}

static fc_peer_view view(fc_state *st, uint32_t peer)
{
    fc_peer_view v;
    assert_int_equal(D->peer_view(st, peer, &v), 0);
    return v;
}

/* Pops one control packet, which must exist; returns it. */
static fc_ctrl pop_ctrl(fc_state *st)
{
    fc_ctrl c;
    if (!D->next_ctrl(st, &c))
        fail_msg("expected a control packet");
    return c;
}

static void assert_no_ctrl(fc_state *st)
{
    fc_ctrl c;
    if (D->next_ctrl(st, &c))
        fail_msg("unexpected control packet kind %u value %u to %u", c.kind, c.value, c.peer);
}

/* Notes 3.3 worked example: 1024 senders, S = 16, C = 2: intended 14, current 2, first threshold 5. */
static void test_initial_state(void **unused)
{
    fc_state *st = make(1025, 0, 16, 2);
    fc_peer_view v = view(st, 1000);
    assert_int_equal(v.intended, 14);
    assert_int_equal(v.granted, 2);
    assert_int_equal(v.credits, 2);
    assert_int_equal(D->mailbox_slots(&(fc_params){.nranks = 1025, .slots_per_peer = 16, .credit_slots = 2}), 16384);
    assert_consistent(st);
    D->on_retrieved(st, 7, 1); /* FIFO [1,1,1]: the first packet is a threshold event */
    fc_ctrl c = pop_ctrl(st);
    assert_int_equal(c.kind, FC_CTRL_CREDIT);
    assert_int_equal(c.peer, 7);
    assert_int_equal(c.value, 5);
    assert_no_ctrl(st);
    assert_int_equal(view(st, 7).granted, 1 + 5);
    /* Our state stays well below the thesis' 150 bytes per peer. */
    assert_true(D->state_bytes(st) < 150u * 1025);
    printf("dynamic state: %zu bytes for 1025 ranks (%.1f B/peer)\n", D->state_bytes(st),
           (double)D->state_bytes(st) / 1025);
    assert_consistent(st);
    D->destroy(st);
}

/* Fig. 6.4 blocks 1-2: intended 10 returns 4; when available slots run short only those are
 * returned, and (R1) the FIFO records what was returned, not T_new. */
static void test_fig_6_4_capped_return(void **unused)
{
    fc_state *st = make(2, 0, 12, 2); /* one sender: intended 10, dynamic region 8 */
    uint32_t expect[] = {4, 4, 3};
    for (int k = 0; k < 3; k++) {
        D->on_retrieved(st, 1, 1);
        fc_ctrl c = pop_ctrl(st);
        assert_int_equal(c.value, expect[k]);
        assert_no_ctrl(st);
        assert_consistent(st);
    }
    assert_int_equal(view(st, 1).granted, 10); /* 2 - 3 + 11: every data slot is granted */
    assert_int_equal(D->counters(st)->monitoring_points, 1);
    D->on_retrieved(st, 1, 3); /* head is 4 now */
    assert_no_ctrl(st);
    D->on_retrieved(st, 1, 1);
    assert_int_equal(pop_ctrl(st).value, 4);
    assert_consistent(st);
    D->destroy(st);
}

/* One busy sender steals from idle ones, highest rank first (tail of LOW), never below the static
 * part; a victim holding more than its new quota gets a compulsory request. */
static void test_stealing(void **unused)
{
    fc_state *st = make(4, 0, 12, 2); /* senders 1..3, intended 10 each, data region 30 */
    fc_ctrl c;
    /* Sender 2 is busy for a while so it holds more than its static part afterwards. */
    for (int k = 0; k < 2; k++) {
        D->on_retrieved(st, 2, 1);
        while (D->next_ctrl(st, &c))
            assert_int_equal(c.kind, FC_CTRL_CREDIT);
    }
    uint32_t held2 = view(st, 2).granted;
    assert_true(held2 > 2);
    int saw_request = 0, first_victim = 0;
    for (int k = 0; k < 200 && !saw_request; k++) {
        D->on_retrieved(st, 1, 1);
        while (D->next_ctrl(st, &c)) {
            if (c.kind == FC_CTRL_REQUEST) {
                assert_int_equal(c.peer, 2);
                saw_request = 1;
            }
        }
        if (!first_victim && view(st, 3).intended < 10)
            first_victim = 3;
        if (!first_victim && view(st, 2).intended < 10)
            first_victim = 2;
        assert_consistent(st);
        assert_true(view(st, 2).intended >= 2 && view(st, 3).intended >= 2);
        assert_int_equal(view(st, 1).intended + view(st, 2).intended + view(st, 3).intended, 30);
    }
    assert_int_equal(first_victim, 3);
    assert_true(saw_request);
    assert_int_equal(view(st, 2).intended, 2);
    assert_int_equal(view(st, 1).intended, 30 - 2 - view(st, 3).intended);
    assert_int_equal(D->counters(st)->credits_stolen, view(st, 1).intended - 10);
    assert_int_equal(D->counters(st)->compulsory_requests, 1);
    /* Sender 2 answers with everything above its static part (it still holds held2 credits,
     * returns held2 - 2 and pays one of the remaining 2 for the response packet). */
    uint32_t amount = held2 - 2;
    D->on_ctrl(st, 2, FC_CTRL_RESPONSE, amount, 0);
    D->on_retrieved(st, 2, 1); /* the response's slot */
    while (D->next_ctrl(st, &c))
        assert_int_equal(c.kind, FC_CTRL_CREDIT);
    assert_consistent(st);
    assert_int_equal(view(st, 2).granted, 2); /* 1 kept + 1 returned for the response's slot */
    assert_int_equal(D->counters(st)->protocol_errors, 0);
    /* A second, unasked response is refused and counted. */
    D->on_ctrl(st, 2, FC_CTRL_RESPONSE, 1, 0);
    assert_int_equal(D->counters(st)->protocol_errors, 1);
    D->destroy(st);
}

/* Streams packets from `s` until its first steal; returns the amount stolen. */
static uint64_t stream_until_steal(fc_state *st, uint32_t s)
{
    fc_ctrl c;
    for (int k = 0; k < 200 && D->counters(st)->credits_stolen == 0; k++) {
        D->on_retrieved(st, s, 1);
        while (D->next_ctrl(st, &c))
            assert_int_equal(c.kind, FC_CTRL_CREDIT);
        assert_consistent(st);
    }
    return D->counters(st)->credits_stolen;
}

/* A victim granted only its static part loses its whole dynamic quota at once (Eq. 6.1 alone
 * would move C+1 = 3 between equal quotas), without a request: it holds nothing to give back. */
static void test_promise_victim_loses_all(void **unused)
{
    fc_state *st = make(4, 0, 12, 2); /* senders 1..3, intended 10 each, data region 30 */
    assert_int_equal(stream_until_steal(st, 1), 8);
    assert_int_equal(view(st, 3).intended, 2);
    assert_int_equal(view(st, 3).granted, 2);
    assert_int_equal(view(st, 1).intended, 18);
    assert_int_equal(view(st, 2).intended, 10);
    assert_int_equal(D->counters(st)->compulsory_requests, 0);
    D->destroy(st);
}

/* A victim holding dynamic credits is still robbed by Eq. 6.1 only: with intended 10 each and
 * sender 3 busy enough to hold more than its static part, the steal moves max(C+1, 0) = 3. */
static void test_holding_victim_eq_6_1(void **unused)
{
    fc_state *st = make(3, 0, 12, 2); /* senders 1, 2: intended 10 each, data region 20 */
    fc_ctrl c;
    D->on_retrieved(st, 2, 1); /* one event: sender 2 now holds 1 + 4 credits */
    while (D->next_ctrl(st, &c))
        assert_int_equal(c.kind, FC_CTRL_CREDIT);
    assert_true(view(st, 2).granted > 2);
    assert_int_equal(stream_until_steal(st, 1), 3);
    assert_int_equal(view(st, 2).intended, 7);
    assert_int_equal(D->counters(st)->compulsory_requests, 0);
    D->destroy(st);
}

/* An event between monitoring points refreshes its sender within LOW: the victim is the LOW
 * sender with the oldest activity, not merely the one promoted least recently. Initially LOW
 * holds 1, 2, 3 from head to tail, so without the refresh sender 3 would be the first victim. */
static void test_low_victim_is_least_recently_active(void **unused)
{
    fc_state *st = make(4, 0, 12, 2);
    fc_ctrl c;
    D->on_retrieved(st, 3, 1); /* one event, no monitoring point: 3 moves to the head of LOW */
    while (D->next_ctrl(st, &c))
        assert_int_equal(c.kind, FC_CTRL_CREDIT);
    assert_true(stream_until_steal(st, 1) > 0);
    assert_int_equal(view(st, 3).intended, 10);
    assert_true(view(st, 2).intended < 10);
    D->destroy(st);
}

/* Streams packets from `s` until credits_stolen grows past `before`; returns the new total. */
static uint64_t stream_until_stolen_above(fc_state *st, uint32_t s, uint64_t before)
{
    fc_ctrl c;
    for (int k = 0; k < 400 && D->counters(st)->credits_stolen == before; k++) {
        D->on_retrieved(st, s, 1);
        while (D->next_ctrl(st, &c))
            if (c.kind != FC_CTRL_CREDIT)
                assert_int_equal(c.kind, FC_CTRL_REQUEST);
        assert_consistent(st);
    }
    return D->counters(st)->credits_stolen;
}

/* Robs sender 2 (which holds dynamic credits after `events` packets) twice for a busy sender 1;
 * between the two robberies sender 2 has `arrivals` packets arrive as unexpected (on_arrived).
 * Returns sender 2's quota. With events = 2 sender 2 holds 8 credits, and at the second robbery
 * the free pool (5) cannot pay what sender 1 is still owed (13 - 7); with events = 1 it can. */
static uint32_t second_robbery(uint32_t events, uint32_t arrivals, uint64_t *requests)
{
    fc_state *st = make(3, 0, 12, 2); /* senders 1, 2: intended 10 each, data region 20 */
    fc_ctrl c;
    D->on_retrieved(st, 2, events); /* each of the first C + 1 packets is a threshold event */
    while (D->next_ctrl(st, &c))
        assert_int_equal(c.kind, FC_CTRL_CREDIT);
    uint64_t stolen = stream_until_stolen_above(st, 1, 0);
    assert_int_equal(stolen, 3); /* Eq. 6.1 between equal quotas: C + 1 */
    assert_int_equal(view(st, 2).intended, 7);
    if (arrivals)
        D->on_arrived(st, 2, arrivals);
    assert_true(stream_until_stolen_above(st, 1, stolen) > stolen);
    assert_consistent(st);
    uint32_t q = view(st, 2).intended;
    *requests = D->counters(st)->compulsory_requests;
    assert_int_equal(D->counters(st)->protocol_errors, 0);
    D->destroy(st);
    return q;
}

/* A victim robbed before, with no packet arrived or released since, is idle: when the free pool
 * cannot pay what the robber is owed, the second robbery takes its whole dynamic quota and asks
 * for the credits it holds (compulsory request). Without the rule Eq. 6.1 would move only
 * |13 - 7| div 2 = 3 and leave it 4, with no request. */
static void test_quiet_victim_loses_all(void **unused)
{
    uint64_t req;
    assert_int_equal(second_robbery(2, 0, &req), 2);
    assert_int_equal(req, 1);
}

/* The same quiet victim while the free pool can still pay the robber: Eq. 6.1, no request (its
 * credits are not needed yet, and an alltoall's senders look quiet between their messages). */
static void test_quiet_victim_kept_while_pool_pays(void **unused)
{
    uint64_t req;
    assert_int_equal(second_robbery(1, 0, &req), 4);
    assert_int_equal(req, 0);
}

/* A packet held unexpected (on_arrived, nothing released) shows the sender is busy: the second
 * robbery is Eq. 6.1 again, with no request. This is the case the release count alone cannot see. */
static void test_arrival_keeps_victim_active(void **unused)
{
    uint64_t req;
    assert_int_equal(second_robbery(2, 1, &req), 4);
    assert_int_equal(req, 0);
}

/* An arrival refreshes its sender within LOW like an event does: LOW holds 1, 2, 3 from head to
 * tail, and after packets of 3 are held (not released) the first victim is 2, not 3. */
static void test_arrival_refreshes_low(void **unused)
{
    fc_state *st = make(4, 0, 12, 2);
    D->on_arrived(st, 3, 2);
    assert_no_ctrl(st);
    assert_int_equal(view(st, 3).granted, 2); /* no slot accounting */
    assert_consistent(st);
    assert_true(stream_until_steal(st, 1) > 0);
    assert_int_equal(view(st, 3).intended, 10);
    assert_true(view(st, 2).intended < 10);
    D->on_arrived(st, 0, 1); /* ourselves: refused and counted */
    D->on_arrived(st, 9, 1);
    assert_int_equal(D->counters(st)->protocol_errors, 2);
    D->destroy(st);
}

/* Sender side: a request is answered with the excess; without a credit the response waits and
 * takes the first credit that arrives, ahead of data. */
static void test_request_response(void **unused)
{
    fc_state *st = make(2, 0, 12, 2);
    D->on_ctrl(st, 1, FC_CTRL_CREDIT, 8, 0); /* 10 credits towards rank 1 */
    D->on_ctrl(st, 1, FC_CTRL_REQUEST, 0, 0);
    fc_ctrl c = pop_ctrl(st);
    assert_int_equal(c.kind, FC_CTRL_RESPONSE);
    assert_int_equal(c.peer, 1);
    assert_int_equal(c.value, 8); /* all above the static part (2); the packet costs one more */
    assert_no_ctrl(st);
    assert_int_equal(D->acquire(st, 1, 100), 1);
    D->on_ctrl(st, 1, FC_CTRL_REQUEST, 0, 0); /* no credit: the response waits */
    assert_no_ctrl(st);
    D->on_ctrl(st, 1, FC_CTRL_REQUEST, 0, 0); /* a second one before the answer: refused */
    assert_int_equal(D->counters(st)->protocol_errors, 1);
    D->on_ctrl(st, 1, FC_CTRL_CREDIT, 4, 1);
    c = pop_ctrl(st);
    assert_int_equal(c.kind, FC_CTRL_RESPONSE);
    assert_int_equal(c.value, 2); /* 4 - 2 */
    assert_int_equal(D->acquire(st, 1, 100), 1);
    assert_int_equal(D->counters(st)->compulsory_responses, 2);
    D->destroy(st);
}

static void expect_reject(uint32_t n, uint32_t self, uint32_t S, uint32_t C, const char *needle)
{
    fc_params p = {.nranks = n, .self = self, .slots_per_peer = S, .credit_slots = C};
    fc_state *st = NULL;
    char err[200] = "";
    assert_int_equal(D->create(&p, &st, err, sizeof err), -1);
    assert_null(st);
    if (!strstr(err, needle))
        fail_msg("error \"%s\" does not mention \"%s\"", err, needle);
}

static void test_params(void **unused)
{
    expect_reject(4, 0, 10, 0, "must be in 1..255, got 0");
    expect_reject(4, 0, 1000, 256, "must be in 1..255, got 256");
    expect_reject(4, 0, 3, 2, "use S >= 4");
    expect_reject(4, 9, 10, 2, "rank 9 out of range");
    fc_state *st = make(1, 0, 8, 2); /* a job of one: nothing to control, nothing breaks */
    fc_ctrl c;
    assert_int_equal(D->acquire(st, 0, 1), 0);
    assert_int_equal(D->next_ctrl(st, &c), 0);
    assert_consistent(st);
    D->destroy(st);
}

/* No dynamic region (S = 2C): nothing to lend, a sender never holds more than its static part
 * (K11: the static scheme with Q = C, one credit back per packet). */
static void test_no_dynamic_region(void **unused)
{
    fc_state *st = make(3, 0, 4, 2);
    for (int k = 0; k < 100; k++) {
        D->on_retrieved(st, 1 + (k % 2), 1);
        fc_ctrl c = pop_ctrl(st);
        assert_int_equal(c.kind, FC_CTRL_CREDIT);
        assert_int_equal(c.value, 1);
        assert_no_ctrl(st);
        assert_true(view(st, 1).granted <= 2 && view(st, 2).granted <= 2);
        assert_consistent(st);
    }
    D->destroy(st);
}

static void test_bad_input(void **unused)
{
    fc_state *st = make(3, 0, 12, 2);
    D->on_retrieved(st, 1, 50); /* more packets than it could ever have had credits for */
    D->on_retrieved(st, 0, 1);  /* from ourselves */
    D->on_ctrl(st, 5, FC_CTRL_CREDIT, 1, 0);
    D->on_ctrl(st, 1, 99, 1, 0);
    assert_int_equal(D->acquire(st, 0, 1), 0);
    assert_int_equal(D->counters(st)->protocol_errors, 5);
    assert_consistent(st);
    D->destroy(st);
}

/* Deterministic model: every process streams to rank 0 and rank 0 answers some of them; lazy
 * readers (read only when they cannot send), one packet in four held as unexpected. */
static void test_model_sweep(void **unused)
{
    int runs = 0;
    for (uint32_t P = 2; P <= 5; P++)
        for (uint32_t C = 1; C <= 3; C++)
            for (uint32_t S = 2 * C; S <= 2 * C + 12; S += 3) {
                fc_model m;
                if (model_init(&m, D, P, S, C) != 0)
                    fail_msg("init: %s", m.why);
                for (uint32_t i = 1; i < P; i++) {
                    model_queue(&m, i, 0, 3 + i, 1 + (S * i) % (3 * S));
                    model_queue(&m, 0, i, 2, i);
                }
                uint32_t nread = 0;
                for (int round = 0; round < 5000 && !m.failed && !model_quiet(&m); round++)
                    for (uint32_t i = 0; i < P; i++) {
                        for (uint32_t j = 0; j < P; j++)
                            while (model_deliver(&m, j, i)) {}
                        int sent = 0;
                        for (uint32_t j = 0; j < P; j++)
                            sent |= model_send(&m, i, j, 0);
                        if (!sent)
                            model_retrieve(&m, i, (++nread % 4) == 0);
                        if (nread % 4 == 2)
                            for (uint32_t j = 0; j < P; j++)
                                model_release(&m, i, j, 0);
                    }
                model_drain(&m, 1000000);
                if (m.failed)
                    fail_msg("P=%u S=%u C=%u: %s", P, S, C, m.why);
                assert_int_equal(m.data_sent, m.data_released);
                model_free(&m);
                runs++;
            }
    assert_true(runs >= 50);
}

/* K12 in miniature: one sender streams to rank 0 among 16 ranks with the same rings. The dynamic
 * receiver lends the sender the idle ranks' quota, so its thresholds grow and it returns credits
 * in far fewer packets than the static scheme. */
static uint64_t credit_packets_one_stream(const fc_ops *o, uint32_t *intended)
{
    fc_model m;
    if (model_init(&m, o, 16, 8, 2) != 0)
        fail_msg("init: %s", m.why);
    model_queue(&m, 1, 0, 300, 6);
    if (model_drain(&m, 10000000) != 0)
        fail_msg("%s: %s", o->name, m.why);
    assert_int_equal(m.data_released, 1800);
    fc_peer_view v;
    o->peer_view(m.procs[0].fc, 1, &v);
    *intended = v.intended;
    uint64_t n = o->counters(m.procs[0].fc)->credit_packets_sent;
    model_free(&m);
    return n;
}

static void test_one_stream_fewer_credit_packets(void **unused)
{
    uint32_t q_static, q_dynamic;
    uint64_t s = credit_packets_one_stream(&fc_static_ops, &q_static);
    uint64_t d = credit_packets_one_stream(D, &q_dynamic);
    printf("one stream of 1800 packets: static %llu credit packets (quota %u), dynamic %llu (quota %u)\n",
           (unsigned long long)s, q_static, (unsigned long long)d, q_dynamic);
    assert_int_equal(s, 1800 / fc_static_threshold(6, 2));
    assert_true(q_dynamic > q_static);
    assert_true(d * 3 < s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_initial_state),     cmocka_unit_test(test_fig_6_4_capped_return),
        cmocka_unit_test(test_stealing),          cmocka_unit_test(test_request_response),
        cmocka_unit_test(test_params),            cmocka_unit_test(test_no_dynamic_region),
        cmocka_unit_test(test_bad_input),         cmocka_unit_test(test_model_sweep),
        cmocka_unit_test(test_one_stream_fewer_credit_packets),
        cmocka_unit_test(test_promise_victim_loses_all),
        cmocka_unit_test(test_holding_victim_eq_6_1),
        cmocka_unit_test(test_low_victim_is_least_recently_active),
        cmocka_unit_test(test_quiet_victim_loses_all),
        cmocka_unit_test(test_quiet_victim_kept_while_pool_pays),
        cmocka_unit_test(test_arrival_keeps_victim_active),
        cmocka_unit_test(test_arrival_refreshes_low),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
