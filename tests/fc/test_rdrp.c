/* tests/fc/test_rdrp.c — the receiver-driven pull window (src/fc/rdrp.h): chunk boundaries, the
 * window bound, completion in any order, and the degenerate parameters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "fc/rdrp.h"

/* Drives a pull to the end completing reads in a random order; checks every invariant. */
static void run(uint64_t total, uint64_t have, uint32_t chunk, uint32_t window, unsigned seed)
{
    rdrp_win w;
    rdrp_init(&w, total, have, chunk, window);
    uint32_t lens[256];
    unsigned n = 0, reads = 0;
    uint64_t next_off = have, off;
    uint32_t len;
    srand(seed);
    for (;;) {
        while (rdrp_next(&w, &off, &len)) {
            assert_int_equal(off, next_off); /* in order, no gap, no overlap */
            assert_true(len >= 1 && len <= (chunk ? chunk : 1));
            if (off + len < total)
                assert_int_equal(len, chunk ? chunk : 1); /* only the last read is short */
            next_off += len;
            rdrp_issued(&w, len);
            assert_true(n < 256);
            lens[n++] = len;
            reads++;
            assert_true(w.outstanding <= (window ? window : 1));
        }
        if (n == 0)
            break;
        unsigned k = (unsigned)rand() % n;
        uint32_t l = lens[k];
        lens[k] = lens[--n];
        int fin = rdrp_completed(&w, l);
        assert_int_equal(fin, w.done == total && w.outstanding == 0);
        if (fin)
            break;
    }
    assert_int_equal(next_off, total > have ? total : have);
    assert_int_equal(w.done, total);
    assert_int_equal(w.outstanding, 0);
    assert_true(w.max_outstanding <= (window ? window : 1));
    uint32_t c = chunk ? chunk : 1;
    uint64_t want = total > have ? (total - have + c - 1) / c : 0;
    assert_int_equal(reads, want);
}

static void test_boundaries(void **unused)
{
    (void)unused;
    const uint32_t S = 512;
    uint64_t sizes[] = {S - 1, S, S + 1, 2 * S - 1, 2 * S, 2 * S + 1, 7 * S + 3, 64 * S};
    for (unsigned i = 0; i < sizeof sizes / sizeof *sizes; i++)
        for (uint32_t c = 1; c <= 4; c++)
            for (uint64_t have = 0; have <= S + 1; have += S / 2 + 1)
                run(sizes[i], have, S, c, (unsigned)(i * 31 + c));
}

static void test_window_fills(void **unused)
{
    (void)unused;
    rdrp_win w;
    rdrp_init(&w, 10 * 100, 0, 100, 3);
    uint64_t off;
    uint32_t len;
    for (int i = 0; i < 3; i++) {
        assert_true(rdrp_next(&w, &off, &len));
        rdrp_issued(&w, len);
    }
    assert_false(rdrp_next(&w, &off, &len)); /* c = 3 outstanding: no fourth read */
    assert_false(rdrp_completed(&w, 100));
    assert_true(rdrp_next(&w, &off, &len)); /* a completion frees exactly one place */
    assert_int_equal(off, 300);
    assert_int_equal(w.max_outstanding, 3);
}

static void test_degenerate(void **unused)
{
    (void)unused;
    rdrp_win w;
    uint64_t off;
    uint32_t len;
    rdrp_init(&w, 100, 100, 64, 2); /* everything came inline */
    assert_false(rdrp_next(&w, &off, &len));
    rdrp_init(&w, 100, 500, 64, 2); /* have beyond total is clamped */
    assert_false(rdrp_next(&w, &off, &len));
    run(5, 0, 0, 0, 1); /* chunk 0 and window 0 behave as 1 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_boundaries),
        cmocka_unit_test(test_window_fills),
        cmocka_unit_test(test_degenerate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
