/* tests/xport/test_copy.c — credo_copy (xport/copy.h) against memcpy: every source and destination
 * offset 0..63 at the sizes where its branches change, every size 0..5000 at a spread of offset
 * pairs, and large odd sizes up to 4 MiB + 1, each with both strategies (libc memcpy and the own
 * loop) and through credo_copy itself; the bytes around the destination must stay untouched. Also
 * the n == 0 contract (NULL pointers) and CREDO_COPY (this test runs three times: unset, memcpy,
 * loop). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "xport/copy.h"

#define GUARD 64          /* guard bytes each side of the destination */
#define GUARD_BYTE 0xA5
#define MAXN (((size_t)4 << 20) + 65)

static unsigned char *g_src, *g_dst;

static int setup(void **unused)
{
    (void)unused;
    /* page-aligned, so an offset is an offset from a page (as the cliff cares about) */
    g_src = aligned_alloc(4096, (MAXN + 4096 + 4095) & ~(size_t)4095);
    g_dst = aligned_alloc(4096, (MAXN + 4096 + 2 * GUARD + 4095) & ~(size_t)4095);
    if (!g_src || !g_dst)
        return -1;
    uint32_t x = 12345;
    for (size_t i = 0; i < MAXN + 4096; i++) {
        x = x * 1103515245u + 12345u;
        g_src[i] = (unsigned char)(x >> 16);
    }
    return 0;
}

static int teardown(void **unused)
{
    (void)unused;
    free(g_src);
    free(g_dst);
    return 0;
}

/* way: -1 = credo_copy, else a mode for credo_copy_with. */
static void check_one(int way, size_t soff, size_t doff, size_t n)
{
    unsigned char *d = g_dst + GUARD + doff, *s = g_src + soff;
    memset(d - GUARD, GUARD_BYTE, n + 2 * GUARD);
    if (way < 0)
        credo_copy(d, s, n);
    else
        credo_copy_with(way, d, s, n);
    if (memcmp(d, s, n) != 0) {
        size_t i = 0;
        while (d[i] == s[i])
            i++;
        fail_msg("%s n=%zu src+%zu dst+%zu: byte %zu is 0x%02x, expected 0x%02x",
                 way < 0 ? "credo_copy" : credo_copy_mode_name(way), n, soff, doff, i, d[i], s[i]);
    }
    for (size_t i = 0; i < GUARD; i++)
        if (d[-1 - (ptrdiff_t)i] != GUARD_BYTE || d[n + i] != GUARD_BYTE)
            fail_msg("%s n=%zu src+%zu dst+%zu: guard byte %zu %s the destination overwritten",
                     way < 0 ? "credo_copy" : credo_copy_mode_name(way), n, soff, doff, i,
                     d[-1 - (ptrdiff_t)i] != GUARD_BYTE ? "before" : "after");
}

static const int ways[] = {-1, CREDO_COPY_MEMCPY, CREDO_COPY_LOOP};
#define NWAYS (sizeof ways / sizeof ways[0])

/* Every offset pair 0..63 x 0..63 at the sizes around each branch of credo_copy and the loop
 * (4-move small copy, memcpy, head, 128-byte body, 32-byte steps, 64-byte tail). */
static void test_all_pairs(void **unused)
{
    (void)unused;
    static const size_t sizes[] = {0,    1,    3,    4,    7,    8,    15,   16,   31,   32,   33,   63,
                                   64,   65,   127,  128,  129,  159,  191,  255,  256,  257,  1000, 2047,
                                   2048, 2049, 2111, 2112, 2113, 4095, 4096, 4097, 5000, 16383, 16385};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (size_t so = 0; so < 64; so++)
            for (size_t dof = 0; dof < 64; dof++)
                for (size_t w = 0; w < NWAYS; w++)
                    check_one(ways[w], so, dof, sizes[k]);
}

/* Every size 0..5000 at offset pairs that cover equal, aligned, 4K-aliasing and odd distances. */
static void test_all_sizes(void **unused)
{
    (void)unused;
    static const size_t pairs[][2] = {{0, 0}, {0, 1},   {1, 0},   {0, 16}, {16, 0},  {16, 24},
                                      {32, 40}, {7, 56}, {63, 63}, {63, 1}, {48, 63}, {5, 37}};
    for (size_t n = 0; n <= 5000; n++)
        for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++)
            for (size_t w = 0; w < NWAYS; w++)
                check_one(ways[w], pairs[p][0], pairs[p][1], n);
}

/* Large and odd sizes up to 4 MiB + 1, at a few pairs including page-crossing offsets. */
static void test_large(void **unused)
{
    (void)unused;
    static const size_t sizes[] = {65536 + 3, 262144 - 1, 1048576 + 13, 2097152 + 31, (size_t)4 << 20,
                                   ((size_t)4 << 20) + 1};
    static const size_t pairs[][2] = {{0, 0}, {0, 16}, {16, 24}, {63, 1}, {4095, 17}, {100, 4000}};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++)
            for (size_t w = 0; w < NWAYS; w++)
                check_one(ways[w], pairs[p][0], pairs[p][1], sizes[k]);
}

/* n == 0 touches nothing: NULL pointers are fine, as MPI's count-0 buffers need. */
static void test_zero_null(void **unused)
{
    (void)unused;
    credo_copy(NULL, NULL, 0);
    credo_copy_with(CREDO_COPY_LOOP, NULL, NULL, 0);
    credo_copy_with(CREDO_COPY_MEMCPY, NULL, NULL, 0);
}

/* The choice: CREDO_COPY forces it; unset, the timing ran and chose one of the two. */
static void test_choice(void **unused)
{
    (void)unused;
    const char *e = getenv("CREDO_COPY");
    credo_copy_figures f = credo_copy_info();
    printf("# credo_copy: %s%s, loop %s; loop %.1f GB/s, memcpy %.1f GB/s (worst of the probe's pairs), %.0f us\n",
           credo_copy_mode_name(f.mode), f.forced ? " (CREDO_COPY)" : "", f.loop_isa, f.loop_gbs, f.memcpy_gbs,
           f.probe_us);
    if (e && strcmp(e, "auto") != 0) {
        assert_int_equal(f.forced, 1);
        assert_string_equal(credo_copy_mode_name(f.mode), e);
    } else {
        assert_int_equal(f.forced, 0);
        assert_true(f.mode == CREDO_COPY_MEMCPY || f.mode == CREDO_COPY_LOOP);
#if defined(__x86_64__) || defined(__i386__)
        assert_int_equal(f.measured, 1);
        assert_true(f.loop_gbs > 0.0 && f.memcpy_gbs > 0.0);
        if (f.mode == CREDO_COPY_LOOP)
            assert_true(f.loop_gbs > f.memcpy_gbs);
#endif
    }
    credo_copy_figures m = credo_copy_measure();
    assert_int_equal(m.mode, f.mode);
    assert_true(m.memcpy_same_gbs > 0.0 && m.loop_same_gbs > 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_choice),    cmocka_unit_test(test_zero_null), cmocka_unit_test(test_all_pairs),
        cmocka_unit_test(test_all_sizes), cmocka_unit_test(test_large),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
