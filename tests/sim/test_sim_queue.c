/* tests/sim/test_sim_queue.c — credosim's event queue: the cluster model's radix layout pops in
 * exactly the order of the 4-ary heap (time, then seq), on random pushes and in whole runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/sim.h"
#include "sim/sim_internal.h"
#include "sim/sim_pattern.h"
#include "sim_test.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A time offset from `now`: often 0 (equal times are where seq decides), else over many scales
 * (the radix buckets cover 64 bits of time; equal times meet in bucket 0, ordered by seq). */
static uint64_t offset(void)
{
    switch (rnd() % 6) {
    case 0:
    case 1:
        return 0;
    case 2:
        return rnd() % 4;
    case 3:
        return rnd() % 1000;
    case 4:
        return rnd() % 200000;
    default: /* up to 2^48: no overflow from the start times below (up to 2^62) */
        return rnd() >> (16 + rnd() % 48);
    }
}

static void push_both(sim_evq *a, sim_evq *b, uint64_t time, uint64_t seq, uint32_t ref)
{
    sim_event e = {time, seq, ref, (uint32_t)(ref % 7) << 28 | (ref & 0xffffu)};
    assert_int_equal(sim_evq_push(a, &e), 0);
    assert_int_equal(sim_evq_push(b, &e), 0);
    assert_int_equal(sim_evq_size(a), sim_evq_size(b));
}

/* Pops one from each and checks they agree; returns 0 when both are empty. */
static int pop_both(sim_evq *a, sim_evq *b, sim_event *out)
{
    sim_event x, y;
    int ra = sim_evq_pop(a, &x), rb = sim_evq_pop(b, &y);
    assert_int_equal(ra, rb);
    if (!ra)
        return 0;
    if (x.time != y.time || x.seq != y.seq || x.ref != y.ref || x.hostkind != y.hostkind)
        fail_msg("radix popped (%llu, %llu, ref %u), heap (%llu, %llu, ref %u)", (unsigned long long)x.time,
                 (unsigned long long)x.seq, x.ref, (unsigned long long)y.time, (unsigned long long)y.seq, y.ref);
    *out = x;
    return 1;
}

/* Pushes as the engine makes them (never below the last popped key): a new event takes the next
 * seq; a deferred one keeps an older seq reserved earlier (later in time, or at the current time
 * with a seq above the last popped, as a channel's next head). The order must be the heap's, and no
 * push may take the radix layout's fallback. */
static void test_radix_matches_heap(void **state)
{
    (void)state;
    for (int round = 0; round < 20; round++) {
        sim_evq r, h;
        assert_int_equal(sim_evq_init(&r), 0);
        assert_int_equal(sim_evq_init(&h), 0);
        r.radix = 1;
        uint64_t seq = (uint64_t)round << (round % 3 ? 0 : 40); /* also seqs with high bits set */
        uint64_t now = round % 2 ? 0 : rnd() >> (2 + round % 40), last_seq = 0;
        int popped_any = 0;
        uint64_t reserve[64];
        size_t nres = 0;
        uint32_t ref = 0;
        size_t npop = 0, target = 20000 + (size_t)round * 5000;
        while (npop < target) {
            unsigned k = (unsigned)(rnd() % 4);
            for (unsigned i = 0; i < k; i++) {
                if (nres < 64 && rnd() % 3 == 0) { /* a seq taken now, used later (deferral) */
                    reserve[nres++] = seq++;
                    continue;
                }
                uint64_t t = now + offset(), s = seq++;
                if (nres && rnd() % 2) {
                    size_t j = (size_t)(rnd() % nres);
                    int ok = t > now || !popped_any || reserve[j] > last_seq;
                    if (ok) {
                        s = reserve[j];
                        reserve[j] = reserve[--nres];
                    }
                }
                push_both(&r, &h, t, s, ref++);
            }
            sim_event e;
            if (rnd() % 8 < 5 && pop_both(&r, &h, &e)) {
                assert_true(!popped_any || e.time > now || (e.time == now && e.seq > last_seq));
                now = e.time;
                last_seq = e.seq;
                popped_any = 1;
                npop++;
            }
            if (sim_evq_size(&r) > 3000) /* keep it in the engine's range (hundreds to thousands) */
                while (sim_evq_size(&r) > 100 && pop_both(&r, &h, &e)) {
                    now = e.time;
                    last_seq = e.seq;
                    popped_any = 1;
                    npop++;
                }
        }
        sim_event e;
        while (pop_both(&r, &h, &e))
            ;
        assert_int_equal(r.early, 0);
        assert_int_equal(r.peak, h.peak);
        sim_evq_free(&r);
        sim_evq_free(&h);
    }
}

/* Pushes below the last popped key are not made by the engine, but if one were, the radix layout
 * puts it in its 4-ary heap and the order is still exact. */
static void test_radix_fallback_exact(void **state)
{
    (void)state;
    sim_evq r, h;
    assert_int_equal(sim_evq_init(&r), 0);
    assert_int_equal(sim_evq_init(&h), 0);
    r.radix = 1;
    uint64_t seq = 0;
    uint32_t ref = 0;
    for (int step = 0; step < 200000; step++) {
        if (rnd() % 2)
            push_both(&r, &h, 1000000 + rnd() % 5000, seq++, ref++);
        else {
            sim_event e;
            pop_both(&r, &h, &e);
        }
    }
    sim_event e;
    while (pop_both(&r, &h, &e))
        ;
    assert_true(r.early > 0);
    sim_evq_free(&r);
    sim_evq_free(&h);
}

/* Whole cluster-model runs: the radix layout (default) and the 4-ary heap (CREDOSIM_HEAP=1) give
 * identical finish times, event counts, queue peaks and statistics. */
static void test_runs_identical(void **state)
{
    (void)state;
    const char *specs[] = {"alltoall:2048", "coll:allreduce:4096", "phased:512", "barrier", "alltoall:100000"};
    const char *fcs[] = {"none", "static", "dynamic"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        for (size_t k = 0; k < 3; k++) {
            uint64_t *f[2];
            sim_stats st[2];
            sim_config c;
            memset(&c, 0, sizeof c);
            sim_loggops_default(&c.lg);
            sim_cluster_default(&c.cl);
            c.cl.enabled = 1;
            c.cl.ppn = 4;
            c.cl.fc = fcs[k];
            c.cl.slots_per_peer = 8;
            c.cl.dims[0] = 4, c.cl.dims[1] = 2, c.cl.dims[2] = 2; /* 16 nodes of 4 ranks */
            c.cl.torus = k == 1;
            c.cl.hold_unexpected = k == 2 && i % 2;
            for (int hp = 0; hp < 2; hp++)
                f[hp] = run_spec_switch(specs[i], 64, &c, "CREDOSIM_HEAP", hp, &st[hp]);
            char what[128];
            snprintf(what, sizeof what, "%s --fc %s", specs[i], fcs[k]);
            expect_same_finish(what, f, 64, "radix", "heap");
            expect_same_cluster_counts(st);
            assert_int_equal(st[0].peak_queue, st[1].peak_queue);
            assert_int_equal(st[0].held_packets, st[1].held_packets);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_radix_matches_heap),
        cmocka_unit_test(test_radix_fallback_exact),
        cmocka_unit_test(test_runs_identical),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
