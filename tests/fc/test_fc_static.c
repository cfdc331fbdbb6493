/* tests/fc/test_fc_static.c — unit tests of the "none" and "static" schemes: Table 5.1, the
 * Fig. 5.2 walk-through, parameter checks, piggybacking, a deterministic 2-process model, and the
 * one-call acquire_piggyback of every scheme against the calls it stands for. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "fc/fc.h"
#include "fc_model.h"

static fc_state *make(const fc_ops *ops, uint32_t n, uint32_t self, uint32_t S, uint32_t C)
{
    fc_params p = {.nranks = n, .self = self, .slots_per_peer = S, .credit_slots = C};
    fc_state *st = NULL;
    char err[200] = "";
    int rc = ops->create(&p, &st, err, sizeof err);
    if (rc != 0)
        fail_msg("create(%s, n=%u S=%u C=%u) failed: %s", ops->name, n, S, C, err);
    return st;
}

/* Table 5.1 of the thesis with the erratum fixed: its last row reads (9,2) but only (3,2) matches
 * the printed values 2 / 2 / 1. Formulas (a) and (b) are the rejected alternatives. */
static void test_table_5_1(void **unused)
{
    static const uint32_t rows[][5] = {
        {100, 1, 51, 101, 100}, {100, 2, 34, 51, 50}, {100, 3, 26, 34, 33}, {100, 4, 21, 26, 25},
        {100, 5, 17, 21, 20},   {60, 2, 21, 31, 30},  {40, 2, 14, 21, 20},  {20, 2, 7, 11, 10},
        {10, 2, 4, 6, 5},       {3, 2, 2, 2, 1},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        uint32_t q = rows[i][0], c = rows[i][1];
        assert_int_equal(fc_static_threshold(q, c), rows[i][2]);
        assert_int_equal(q / c + 1, rows[i][3]);
        assert_int_equal(q / c, rows[i][4]);
    }
    /* The scheme uses the same T: with S = Q + C, a credit packet leaves after exactly T releases. */
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        uint32_t q = rows[i][0], c = rows[i][1];
        if (q < c + 1)
            continue;
        fc_state *st = make(&fc_static_ops, 2, 0, q + c, c);
        fc_ctrl out;
        fc_static_ops.on_retrieved(st, 1, rows[i][2] - 1);
        assert_int_equal(fc_static_ops.next_ctrl(st, &out), 0);
        fc_static_ops.on_retrieved(st, 1, 1);
        assert_int_equal(fc_static_ops.next_ctrl(st, &out), 1);
        assert_int_equal(out.value, rows[i][2]);
        fc_static_ops.destroy(st);
    }
}

/* Fig. 5.2: Q = 20, C = 2, T = 7. Credit packets after 7 and 14 releases; the remaining 6 cannot
 * reach T until the sender reads a credit packet and sends again. */
static void test_fig_5_2(void **unused)
{
    const fc_ops *o = &fc_static_ops;
    fc_state *snd = make(o, 2, 0, 22, 2), *rcv = make(o, 2, 1, 22, 2);
    fc_ctrl out;
    assert_int_equal(o->acquire(snd, 1, 25), 20); /* a 25-packet message: 20 go, 5 wait */
    assert_int_equal(o->acquire(snd, 1, 5), 0);
    int sent = 0;
    for (int k = 1; k <= 20; k++) {
        o->on_retrieved(rcv, 0, 1);
        while (o->next_ctrl(rcv, &out)) {
            assert_int_equal(out.kind, FC_CTRL_CREDIT);
            assert_int_equal(out.peer, 0);
            assert_int_equal(out.value, 7);
            sent++;
            assert_true(k == 7 || k == 14);
        }
    }
    assert_int_equal(sent, 2);
    o->on_ctrl(snd, 1, FC_CTRL_CREDIT, 7, 0);
    assert_int_equal(o->acquire(snd, 1, 5), 5); /* the partial message completes */
    for (int k = 0; k < 1; k++)
        o->on_retrieved(rcv, 0, 1);
    assert_int_equal(o->next_ctrl(rcv, &out), 1); /* 6 + 1 = 7 */
    assert_int_equal(out.value, 7);
    assert_int_equal(o->counters(rcv)->credit_packets_sent, 3);
    assert_int_equal(o->counters(snd)->data_packets_sent, 25);
    fc_static_ops.destroy(snd);
    fc_static_ops.destroy(rcv);
}

static void expect_reject(const fc_ops *o, uint32_t n, uint32_t self, uint32_t S, uint32_t C, const char *needle)
{
    fc_params p = {.nranks = n, .self = self, .slots_per_peer = S, .credit_slots = C};
    fc_state *st = NULL;
    char err[200] = "";
    assert_int_equal(o->create(&p, &st, err, sizeof err), -1);
    assert_null(st);
    if (!strstr(err, needle))
        fail_msg("error \"%s\" does not mention \"%s\"", err, needle);
}

static void test_static_params(void **unused)
{
    const fc_ops *o = &fc_static_ops;
    expect_reject(o, 4, 0, 10, 0, "credit slots C (CREDO_CREDIT_SLOTS) must be >= 1");
    expect_reject(o, 4, 0, 4, 2, "quota Q = S - C = 2 is below C + 1 = 3");
    expect_reject(o, 4, 0, 2, 2, "quota Q = S - C = 0");
    expect_reject(o, 4, 0, 1, 2, "use S >= 5");
    expect_reject(o, 0, 0, 10, 2, "nranks must be >= 1");
    expect_reject(o, 4, 4, 10, 2, "rank 4 out of range for 4 ranks");
    expect_reject(o, 4, 0, 0, 2, "slots per peer");
    expect_reject(o, 100000, 0, 100000, 2, "too large");
    expect_reject(&fc_none_ops, 2, 5, 10, 2, "out of range");
    /* The smallest accepted quota, Q = C + 1, has threshold 2. */
    fc_state *st = make(o, 4, 0, 5, 2);
    fc_peer_view v;
    assert_int_equal(o->peer_view(st, 1, &v), 0);
    assert_int_equal(v.granted, 3);
    assert_int_equal(fc_static_threshold(3, 2), 2);
    assert_int_equal(o->mailbox_slots(&(fc_params){.nranks = 4, .slots_per_peer = 5, .credit_slots = 2}), 15);
    assert_int_equal(o->mailbox_slots(&(fc_params){.nranks = 1, .slots_per_peer = 5, .credit_slots = 2}), 5);
    assert_int_equal(o->peer_view(st, 4, &v), -1);
    o->destroy(st);
}

static void test_static_piggyback(void **unused)
{
    const fc_ops *o = &fc_static_ops;
    fc_state *st = make(o, 3, 0, 22, 2); /* Q 20, T 7 */
    fc_ctrl out;
    assert_int_equal(o->piggyback_take(st, 1), 0);
    o->on_retrieved(st, 1, 5);
    assert_int_equal(o->piggyback_take(st, 1), 5);
    assert_int_equal(o->piggyback_take(st, 1), 0);
    /* Reached T, but a piggyback returns the credits before the queue is drained: no packet. */
    o->on_retrieved(st, 2, 7);
    assert_int_equal(o->piggyback_take(st, 2), 7);
    assert_int_equal(o->next_ctrl(st, &out), 0);
    const fc_counters *c = o->counters(st);
    assert_int_equal(c->piggybacked_returns, 2);
    assert_int_equal(c->piggybacked_credits, 12);
    assert_int_equal(c->credit_packets_sent, 0);
    assert_int_equal(c->retrieved_packets, 12);
    /* Piggybacked credits raise the sender's count; more than the quota is refused and counted. */
    assert_int_equal(o->acquire(st, 1, 30), 20);
    o->on_ctrl(st, 1, FC_CTRL_CREDIT, 9, 1);
    assert_int_equal(o->acquire(st, 1, 30), 9);
    o->on_ctrl(st, 2, FC_CTRL_CREDIT, 1, 0);
    assert_int_equal(c->protocol_errors, 1);
    o->on_ctrl(st, 1, FC_CTRL_REQUEST, 1, 0);
    o->on_ctrl(st, 7, FC_CTRL_CREDIT, 1, 0);
    assert_int_equal(o->acquire(st, 9, 1), 0);
    assert_int_equal(c->protocol_errors, 4);
    o->destroy(st);
}

static void test_static_piggyback_cap(void **unused)
{
    const fc_ops *o = &fc_static_ops;
    fc_state *st = make(o, 2, 0, 200002, 2); /* Q 200000, T 66667 */
    fc_ctrl out;
    o->on_retrieved(st, 1, 70000);
    assert_int_equal(o->piggyback_take(st, 1), FC_PIGGYBACK_MAX);
    assert_int_equal(o->next_ctrl(st, &out), 0); /* 4465 left, below T */
    assert_int_equal(o->piggyback_take(st, 1), 70000 - FC_PIGGYBACK_MAX);
    o->destroy(st);
}

static void test_none(void **unused)
{
    const fc_ops *o = &fc_none_ops;
    fc_state *st = make(o, 4, 1, 8, 2);
    fc_ctrl out;
    assert_int_equal(o->acquire(st, 0, 1000000), 1000000);
    assert_int_equal(o->piggyback_take(st, 0), 0);
    o->on_retrieved(st, 0, 500);
    assert_int_equal(o->next_ctrl(st, &out), 0);
    assert_int_equal(o->counters(st)->retrieved_packets, 500);
    assert_int_equal(o->mailbox_slots(&(fc_params){.nranks = 4, .slots_per_peer = 8, .credit_slots = 2}), 24);
    o->destroy(st);
}

/* acquire_piggyback (the one-slot send's one call) against the calls it stands for: the same
 * random traffic through both forms, on two states of each scheme (releases and piggybacked
 * credits in between, as a peer's data would bring), must leave equal results, counters, peer
 * views and control packets at every step. */
static void test_acquire_piggyback(void **unused)
{
    const fc_ops *schemes[] = {&fc_none_ops, &fc_static_ops, &fc_dynamic_ops};
    for (size_t k = 0; k < sizeof schemes / sizeof schemes[0]; k++) {
        const fc_ops *o = schemes[k];
        enum { N = 5 };
        fc_state *pair = make(o, N, 0, 12, 2), *sep = make(o, N, 0, 12, 2);
        fc_state *both[2] = {pair, sep};
        uint32_t x = 12345;
        for (int step = 0; step < 20000; step++) {
            x = x * 1103515245u + 12345u;
            uint32_t peer = 1 + (x >> 8) % (N - 1), amount = 1 + (x >> 16) % 6;
            if ((x >> 28) & 1) {
                uint32_t pg_pair = 99, pg_sep = 0;
                uint32_t got_pair = o->acquire_piggyback(pair, peer, amount, &pg_pair);
                uint32_t got_sep = o->acquire(sep, peer, amount);
                if (got_sep)
                    pg_sep = o->piggyback_take(sep, peer);
                assert_int_equal(got_pair, got_sep);
                assert_int_equal(pg_pair, pg_sep);
            } else {
                uint32_t piggy = (x >> 24) % 4 == 0 ? (x >> 20) % 3 : 0;
                for (int i = 0; i < 2; i++) {
                    if (piggy)
                        o->on_ctrl(both[i], peer, FC_CTRL_CREDIT, piggy, 1);
                    o->on_retrieved(both[i], peer, amount);
                }
                fc_ctrl a, b;
                int ha, hb;
                while ((ha = o->next_ctrl(pair, &a)) | (hb = o->next_ctrl(sep, &b))) {
                    assert_int_equal(ha, hb);
                    assert_int_equal(a.peer, b.peer);
                    assert_int_equal(a.value, b.value);
                    assert_int_equal(a.kind, b.kind);
                }
            }
            assert_memory_equal(o->counters(pair), o->counters(sep), sizeof(fc_counters));
            for (uint32_t q = 1; q < N; q++) {
                fc_peer_view va, vb;
                assert_int_equal(o->peer_view(pair, q, &va), 0);
                assert_int_equal(o->peer_view(sep, q, &vb), 0);
                assert_memory_equal(&va, &vb, sizeof va);
            }
        }
        o->destroy(pair);
        o->destroy(sep);
    }
}

static void test_registry(void **unused)
{
    assert_ptr_equal(fc_lookup("none"), &fc_none_ops);
    assert_ptr_equal(fc_lookup("static"), &fc_static_ops);
    assert_ptr_equal(fc_lookup("dynamic"), &fc_dynamic_ops);
    assert_null(fc_lookup("Static"));
    assert_null(fc_lookup(""));
}

static void test_state_bytes(void **unused)
{
    fc_state *a = make(&fc_static_ops, 2, 0, 10, 2), *b = make(&fc_static_ops, 1002, 0, 10, 2);
    size_t per_peer = (fc_static_ops.state_bytes(b) - fc_static_ops.state_bytes(a)) / 1000;
    /* Four words a peer at most: credit, retrieved count, pending-queue slot, pending flag. */
    assert_true(per_peer >= 8 && per_peer <= 16);
    fc_static_ops.destroy(a);
    fc_static_ops.destroy(b);
}

/* ---- deterministic 2-process model ------------------------------------------------------------ */

enum policy { LAZY_READER, EAGER_READER, LATE_DELIVERY, SCRAMBLED, NPOLICIES };

/* Both processes stream messages at each other. LAZY_READER reads its ring only when it cannot
 * send: the worst case for the credit region (credit packets pile up unread) and, without data
 * draining while stalled, the classic mutual-send deadlock. LATE_DELIVERY keeps packets on the
 * wire as long as possible; SCRAMBLED interleaves everything by a fixed LCG. Every third data
 * packet is held as unexpected and released two retrievals later. */
static int run_two(const fc_ops *o, uint32_t S, uint32_t C, enum policy pol, char *why, size_t whylen)
{
    fc_model m;
    if (model_init(&m, o, 2, S, C) != 0) {
        snprintf(why, whylen, "%s", m.why);
        model_free(&m);
        return -1;
    }
    uint32_t Q = S - C;
    model_queue(&m, 0, 1, 3, 1);
    model_queue(&m, 1, 0, 2, Q + 1);
    uint32_t sizes0[] = {Q, 2 * Q + 3, 37, Q - 1 ? Q - 1 : 1};
    uint32_t sizes1[] = {1, Q, 3 * Q + 1, 2};
    uint64_t lcg = 12345 + S * 31 + C;
    uint32_t batch = 0, retrieved = 0;
    /* Bounded: a schedule that stops making progress ends here and model_drain below then
     * either completes the traffic fairly or reports the deadlock. */
    while (!m.failed && m.step < 200000) {
        if (batch < 4 && model_backlog(&m) < Q) {
            model_queue(&m, 0, 1, 2, sizes0[batch]);
            model_queue(&m, 1, 0, 2, sizes1[batch]);
            batch++;
        }
        if (batch == 4 && model_quiet(&m))
            break;
        for (uint32_t i = 0; i < 2 && !m.failed; i++) {
            uint32_t j = 1 - i;
            lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
            int coin = (int)(lcg >> 60);
            int sent;
            switch (pol) {
            case LAZY_READER:
                while (model_deliver(&m, j, i)) {}
                sent = model_send(&m, i, j, 0);
                if (!sent && model_retrieve(&m, i, (++retrieved % 3) == 0) && retrieved % 3 == 2)
                    model_release(&m, i, j, 0);
                break;
            case EAGER_READER:
                while (model_deliver(&m, j, i)) {}
                while (model_retrieve(&m, i, (++retrieved % 3) == 0)) {}
                model_release(&m, i, j, 0);
                model_send(&m, i, j, 0);
                break;
            case LATE_DELIVERY:
                sent = model_send(&m, i, j, 0);
                if (!sent && !model_retrieve(&m, i, (++retrieved % 3) == 0))
                    model_deliver(&m, j, i);
                if (retrieved % 3 == 2)
                    model_release(&m, i, j, 0);
                break;
            default:
                if (coin < 5)
                    model_send(&m, i, j, 1 + (uint32_t)(coin & 3));
                else if (coin < 9)
                    model_deliver(&m, j, i);
                else if (coin < 14)
                    model_retrieve(&m, i, coin == 13);
                else
                    model_release(&m, i, j, 1);
                break;
            }
        }
    }
    if (!m.failed)
        model_drain(&m, 1000000);
    if (!m.failed && m.data_sent != m.data_released)
        snprintf(m.why, sizeof m.why, "%llu data packets sent but %llu released", (unsigned long long)m.data_sent,
                 (unsigned long long)m.data_released), m.failed = 1;
    int rc = m.failed ? -1 : 0;
    if (rc)
        snprintf(why, whylen, "%s", m.why);
    model_free(&m);
    return rc;
}

static void test_two_process_model(void **unused)
{
    char why[300];
    int runs = 0;
    for (uint32_t C = 1; C <= 5; C++)
        for (uint32_t Q = C + 1; Q <= 3 * C + 12; Q++)
            for (int pol = 0; pol < NPOLICIES; pol++) {
                if (run_two(&fc_static_ops, Q + C, C, (enum policy)pol, why, sizeof why) != 0)
                    fail_msg("static Q=%u C=%u policy %d: %s", Q, C, pol, why);
                runs++;
            }
    for (int pol = 0; pol < NPOLICIES; pol++) {
        if (run_two(&fc_static_ops, 57, 2, (enum policy)pol, why, sizeof why) != 0)
            fail_msg("static S=57 C=2 policy %d: %s", pol, why);
        if (run_two(&fc_none_ops, 8, 2, (enum policy)pol, why, sizeof why) != 0)
            fail_msg("none policy %d: %s", pol, why);
    }
    assert_true(runs > 300);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_5_1),        cmocka_unit_test(test_fig_5_2),
        cmocka_unit_test(test_static_params),    cmocka_unit_test(test_static_piggyback),
        cmocka_unit_test(test_static_piggyback_cap), cmocka_unit_test(test_none),
        cmocka_unit_test(test_registry),         cmocka_unit_test(test_state_bytes),
        cmocka_unit_test(test_acquire_piggyback),
        cmocka_unit_test(test_two_process_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
