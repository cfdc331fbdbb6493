/* src/xport/copy.c — the own copy loop behind credo_copy and the start-up timing that chooses between
 * it and libc memcpy (see copy.h for the why and the contract).
 *
 * The timing copies PROBE_BYTES (16 KiB, cache-warm) at four source/destination offset pairs whose
 * distance (dst - src) mod 4096 is 1, 16, 8 and 8 bytes, first with the own loop, then with memcpy;
 * per strategy it keeps the best of three timings of two copies per pair and the worst pair. The
 * loop is taken only when it is 30 % faster than memcpy's worst pair. memcpy's timing stops at the
 * first timing under that bar, so a CPU on the cliff pays for one or two slow copies (about 10 us
 * in all); a CPU without it about 5-10 us. No vendor or model table is consulted. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* clock_gettime when built alone with -std=c11 (side_by_side.sh) */
#endif
#include "xport/copy.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#define COPY_X86 1
#include <immintrin.h>
#else
#define COPY_X86 0
#endif

#define PROBE_BYTES 16384
/* Offset pairs (source, destination) from a page: page-aligned to + 1 and to + 16 (a slot or
 * staging copied into malloc'd memory), and two more where the destination is 8 bytes ahead of the
 * source. glibc 2.36's memcpy is on the cliff at all four on Zen 4 (16: half speed) and, per issue
 * 32, Zen 3. */
static const unsigned probe_pairs[][2] = {{0, 1}, {0, 16}, {16, 24}, {32, 40}};
#define NPAIRS (sizeof probe_pairs / sizeof probe_pairs[0])
/* The loop must beat memcpy's worst pair by this factor to be chosen. */
#define LOOP_MARGIN 1.3

static _Atomic int g_mode;  /* enum credo_copy_mode; UNSET until chosen */
static _Atomic int g_state; /* 0: not started, 1: choosing, 2: chosen (g_fig complete) */
static credo_copy_figures g_fig;

const char *credo_copy_mode_name(int mode)
{
    switch (mode) {
    case CREDO_COPY_MEMCPY:
        return "memcpy";
    case CREDO_COPY_LOOP:
        return "loop";
    default:
        return "unset";
    }
}

/* ---- the strategies ---- */

#if COPY_X86
/* n >= 64, d 32-byte aligned. The last 64 source bytes are loaded first and stored last,
 * unaligned, so the loop needs no byte tail. */
__attribute__((target("avx2"))) static void loop_avx2(unsigned char *d, const unsigned char *s, size_t n)
{
    __m256i t0 = _mm256_loadu_si256((const __m256i *)(s + n - 64));
    __m256i t1 = _mm256_loadu_si256((const __m256i *)(s + n - 32));
    unsigned char *dend = d + n;
    for (; n >= 128; n -= 128, s += 128, d += 128) {
        __m256i a = _mm256_loadu_si256((const __m256i *)s);
        __m256i b = _mm256_loadu_si256((const __m256i *)(s + 32));
        __m256i c = _mm256_loadu_si256((const __m256i *)(s + 64));
        __m256i e = _mm256_loadu_si256((const __m256i *)(s + 96));
        _mm256_store_si256((__m256i *)d, a);
        _mm256_store_si256((__m256i *)(d + 32), b);
        _mm256_store_si256((__m256i *)(d + 64), c);
        _mm256_store_si256((__m256i *)(d + 96), e);
    }
    for (; n >= 32; n -= 32, s += 32, d += 32)
        _mm256_store_si256((__m256i *)d, _mm256_loadu_si256((const __m256i *)s));
    _mm256_storeu_si256((__m256i *)(dend - 64), t0);
    _mm256_storeu_si256((__m256i *)(dend - 32), t1);
}

/* The same with 16-byte moves (every x86-64 has SSE2). n >= 64, d 16-byte aligned. */
static void loop_sse2(unsigned char *d, const unsigned char *s, size_t n)
{
    __m128i t0 = _mm_loadu_si128((const __m128i *)(s + n - 64));
    __m128i t1 = _mm_loadu_si128((const __m128i *)(s + n - 48));
    __m128i t2 = _mm_loadu_si128((const __m128i *)(s + n - 32));
    __m128i t3 = _mm_loadu_si128((const __m128i *)(s + n - 16));
    unsigned char *dend = d + n;
    for (; n >= 64; n -= 64, s += 64, d += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)s);
        __m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(s + 48));
        _mm_store_si128((__m128i *)d, a);
        _mm_store_si128((__m128i *)(d + 16), b);
        _mm_store_si128((__m128i *)(d + 32), c);
        _mm_store_si128((__m128i *)(d + 48), e);
    }
    _mm_storeu_si128((__m128i *)(dend - 64), t0);
    _mm_storeu_si128((__m128i *)(dend - 48), t1);
    _mm_storeu_si128((__m128i *)(dend - 32), t2);
    _mm_storeu_si128((__m128i *)(dend - 16), t3);
}

static int have_avx2(void)
{
    static _Atomic int known; /* 0 unknown, 1 no, 2 yes */
    int k = atomic_load_explicit(&known, memory_order_relaxed);
    if (!k) {
        __builtin_cpu_init();
        k = __builtin_cpu_supports("avx2") ? 2 : 1;
        atomic_store_explicit(&known, k, memory_order_relaxed);
    }
    return k == 2;
}
#endif

/* Copies the first 64 bytes as they are, then returns how far to advance so that d is 64-byte
 * aligned (0..63). Needs n >= 128 so the rest is still at least 64 bytes. */
static inline size_t copy_head(unsigned char *d, const unsigned char *s)
{
    size_t head = (size_t)(-(uintptr_t)d) & 63u;
    if (head)
        memcpy(d, s, 64);
    return head;
}

static void copy_loop(unsigned char *d, const unsigned char *s, size_t n)
{
#if COPY_X86
    if (n < 128) {
        memcpy(d, s, n);
        return;
    }
    size_t h = copy_head(d, s);
    if (have_avx2())
        loop_avx2(d + h, s + h, n - h);
    else
        loop_sse2(d + h, s + h, n - h);
#else
    memcpy(d, s, n);
#endif
}

void credo_copy_with(int mode, void *restrict dst, const void *restrict src, size_t n)
{
    if (n == 0)
        return;
    switch (mode) {
    case CREDO_COPY_LOOP:
        copy_loop(dst, src, n);
        break;
    default:
        memcpy(dst, src, n);
        break;
    }
}

void credo_copy_large(void *restrict dst, const void *restrict src, size_t n)
{
    int mode = atomic_load_explicit(&g_mode, memory_order_relaxed);
    if (__builtin_expect(mode == CREDO_COPY_UNSET, 0)) {
        credo_copy_init();
        mode = atomic_load_explicit(&g_mode, memory_order_relaxed);
        if (mode == CREDO_COPY_UNSET) /* another thread is timing right now */
            mode = CREDO_COPY_MEMCPY;
    }
    if (mode == CREDO_COPY_LOOP)
        copy_loop(dst, src, n);
    else
        memcpy(dst, src, n);
}

/* ---- the timing ---- */

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* GB/s of the best of `reps` timings of `per` copies of PROBE_BYTES from s to d, after one untimed
 * copy. Stops early, with what it has, once a timing is below `enough` GB/s (0: never): a pair on
 * the cliff is known after one slow copy. The empty asm keeps the copies from being merged. */
static double time_pair(int mode, unsigned char *d, const unsigned char *s, int reps, int per, double enough)
{
    credo_copy_with(mode, d, s, PROBE_BYTES);
    double best = 0.0;
    for (int r = 0; r < reps; r++) {
        double t0 = now_ns();
        for (int k = 0; k < per; k++) {
            credo_copy_with(mode, d, s, PROBE_BYTES);
            __asm__ __volatile__("" ::"r"(d) : "memory");
        }
        double t = now_ns() - t0;
        double gbs = t > 0.0 ? (double)PROBE_BYTES * per / t : 1e3;
        if (gbs > best)
            best = gbs;
        if (gbs < enough)
            break;
    }
    return best;
}

/* Worst over the probe pairs; stops at the first pair below `enough`. */
static double time_pairs(int mode, unsigned char *sbuf, unsigned char *dbuf, double enough)
{
    double worst = 0.0;
    for (size_t p = 0; p < NPAIRS; p++) {
        double g = time_pair(mode, dbuf + probe_pairs[p][1], sbuf + probe_pairs[p][0], 3, 2, enough);
        if (p == 0 || g < worst)
            worst = g;
        if (worst < enough)
            break;
    }
    return worst;
}

/* Two page-aligned buffers of PROBE_BYTES + a page, touched; *dbuf is the second. The distance
 * between them is a multiple of 4096, so an offset pair fixes (dst - src) mod 4096. */
static unsigned char *probe_buffers(unsigned char **dbuf)
{
    size_t each = PROBE_BYTES + 4096;
    unsigned char *b = aligned_alloc(4096, 2 * each);
    if (!b)
        return NULL;
    memset(b, 0x5a, 2 * each);
    *dbuf = b + each;
    return b;
}

static int env_mode(void)
{
    const char *e = getenv("CREDO_COPY");
    if (!e)
        return CREDO_COPY_UNSET;
    if (strcmp(e, "memcpy") == 0)
        return CREDO_COPY_MEMCPY;
    if (strcmp(e, "loop") == 0)
        return CREDO_COPY_LOOP;
    return CREDO_COPY_UNSET; /* "auto"; MPI_Init refuses other values (src/core/config.c) */
}

void credo_copy_init(void)
{
    int expect = 0;
    if (!atomic_compare_exchange_strong(&g_state, &expect, 1))
        return;
    credo_copy_figures f;
    memset(&f, 0, sizeof f);
    f.probe_bytes = PROBE_BYTES;
#if COPY_X86
    f.loop_isa = have_avx2() ? "avx2" : "sse2";
#else
    f.loop_isa = "none";
#endif
    int forced = env_mode();
    double t0 = now_ns();
    f.mode = CREDO_COPY_MEMCPY;
    if (forced != CREDO_COPY_UNSET) {
        f.mode = forced;
        f.forced = 1;
    } else {
#if COPY_X86
        unsigned char *dbuf, *sbuf = probe_buffers(&dbuf);
        if (sbuf) {
            f.loop_gbs = time_pairs(CREDO_COPY_LOOP, sbuf, dbuf, 0.0);
            f.memcpy_gbs = time_pairs(CREDO_COPY_MEMCPY, sbuf, dbuf, f.loop_gbs / LOOP_MARGIN);
            f.measured = 1;
            if (f.loop_gbs > LOOP_MARGIN * f.memcpy_gbs)
                f.mode = CREDO_COPY_LOOP;
            free(sbuf);
        }
#endif
    }
    f.probe_us = (now_ns() - t0) / 1e3;
    g_fig = f;
    atomic_store_explicit(&g_mode, f.mode, memory_order_release);
    atomic_store_explicit(&g_state, 2, memory_order_release);
}

credo_copy_figures credo_copy_info(void)
{
    credo_copy_init();
    while (atomic_load_explicit(&g_state, memory_order_acquire) != 2) {
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    }
    return g_fig;
}

credo_copy_figures credo_copy_measure(void)
{
    credo_copy_figures f = credo_copy_info();
    unsigned char *dbuf, *sbuf = probe_buffers(&dbuf);
    if (sbuf) {
        f.loop_gbs = time_pairs(CREDO_COPY_LOOP, sbuf, dbuf, 0.0);
        f.memcpy_gbs = time_pairs(CREDO_COPY_MEMCPY, sbuf, dbuf, 0.0);
        f.memcpy_same_gbs = time_pair(CREDO_COPY_MEMCPY, dbuf, sbuf, 3, 4, 0.0);
        f.loop_same_gbs = time_pair(CREDO_COPY_LOOP, dbuf, sbuf, 3, 4, 0.0);
        free(sbuf);
    }
    return f;
}
