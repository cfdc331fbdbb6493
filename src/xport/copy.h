/* src/xport/copy.h — credo_copy, the copy every data path uses (mailbox slots, staging, prepush,
 * datatype pack/unpack, RMA, collectives' local and reduction copies).
 *
 * Why not plain memcpy: glibc (2.33 and later, on CPUs with FSRM) copies 2112 bytes and more with
 * `rep movsb` up to about the L2 size, and on AMD Zen 3 and Zen 4 `rep movsb` runs at 1-4 GB/s
 * instead of 40-100 GB/s when the destination lies 1 to 15 bytes ahead of the source modulo 4096
 * (4K aliasing; 16-31 bytes ahead: half speed). A slot or staging buffer starts on a page and
 * malloc'd memory 16 bytes past one, so credo's copies into and out of users' buffers fell off that
 * cliff (issue 32). Aligning the destination first does not help (the distance stays the same);
 * a loop of vector moves does not care about the distance.
 *
 * What credo_copy does for n bytes:
 *   - n <= 64: at most four fixed-size moves that may overlap (no call);
 *   - n < CREDO_COPY_INLINE_MAX: libc memcpy (vector moves: below glibc's `rep movsb` threshold);
 *   - larger: credo_copy_large, by the strategy chosen once per process (credo_copy_info):
 *       loop   — copy the first 64 bytes, then credo's own loop of 32-byte vector moves (AVX2 when
 *                the CPU has it, else SSE2) with 64-byte aligned destination stores;
 *       memcpy — libc memcpy.
 *     The first large copy (or credo_copy_init) times both on a 16 KiB copy at offset pairs that
 *     are on the cliff where it exists, and takes the loop when it is clearly faster (copy.c).
 *     CREDO_COPY=memcpy|loop forces one.
 *
 * Contract, for every caller (src/p2p included):
 *   - dst and src must not overlap (as memcpy). Any alignment of either, any n.
 *   - n == 0 reads and writes nothing and does not look at the pointers: NULL is fine then (MPI
 *     allows NULL buffers with count 0).
 *   - Thread-safe. The first large copy of the process may take about 10-20 us to time the
 *     strategies (not async-signal-safe then); credo_copy_init() does that up front.
 *   - No ordering or atomicity beyond memcpy's: publish the bytes with the usual release store.
 *   - Depends on libc only (unit tests and benchmarks compile src/xport/copy.c in). */
#ifndef CREDO_XPORT_COPY_H
#define CREDO_XPORT_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Sizes below this go straight to libc memcpy: glibc's own threshold for `rep movsb` is 2112 bytes
 * on FSRM CPUs and 2048 * vector width / 16 otherwise, so nothing below it can hit the cliff. */
#define CREDO_COPY_INLINE_MAX 2048

enum credo_copy_mode {
    CREDO_COPY_UNSET = 0, /* not chosen yet: the first large copy chooses */
    CREDO_COPY_MEMCPY,    /* libc memcpy */
    CREDO_COPY_LOOP,      /* 64-byte head, then credo's vector loop with aligned stores */
};

/* What the start-up timing measured and chose (credo_info prints it). GB/s = 10^9 bytes/s; each
 * pair figure is the best of a few timings of a cache-warm copy of `probe_bytes`, and the strategy's
 * figure the worst over the offset pairs (see copy.c). */
typedef struct credo_copy_figures {
    int mode;               /* enum credo_copy_mode in force */
    int forced;             /* 1: CREDO_COPY chose it, not the timing */
    int measured;           /* 1: the start-up timing ran (0: forced, or not x86) */
    const char *loop_isa;   /* "avx2", "sse2" or "none": the vector width of the own loop */
    size_t probe_bytes;     /* bytes per timed copy */
    double loop_gbs;        /* own loop, worst pair */
    double memcpy_gbs;      /* memcpy, worst pair (at start-up: a lower bound once under the bar) */
    double memcpy_same_gbs; /* memcpy, both page-aligned (credo_copy_measure only) */
    double loop_same_gbs;   /* own loop, both page-aligned (credo_copy_measure only) */
    double probe_us;        /* time the start-up timing took, microseconds */
} credo_copy_figures;

/* Weak, so that programs which compile a data path's header or source in without src/xport/copy.c
 * (unit tests, fuzz targets, the simulator's static GOAL core) still link; they copy with memcpy.
 * libcredo always defines it (credo_info shows the choice in force). */
void credo_copy_large(void *restrict dst, const void *restrict src, size_t n) __attribute__((weak));

/* Copies n bytes from src to dst (no overlap); see the contract above. */
/* Copies n <= 64 bytes with at most four fixed-size moves that may overlap, instead of a call into
 * libc's memcpy (through the PLT and its size dispatch): an 8-byte message's whole copy is one load
 * and one store. The fixed-size memcpy calls compile to plain moves. */
static inline void credo_copy_small(void *restrict dst, const void *restrict src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (n >= 16) {
        if (n >= 32) {
            memcpy(d, s, 32);
            memcpy(d + n - 32, s + n - 32, 32);
        } else {
            memcpy(d, s, 16);
            memcpy(d + n - 16, s + n - 16, 16);
        }
    } else if (n >= 8) {
        memcpy(d, s, 8);
        memcpy(d + n - 8, s + n - 8, 8);
    } else if (n >= 4) {
        memcpy(d, s, 4);
        memcpy(d + n - 4, s + n - 4, 4);
    } else if (n) {
        d[0] = s[0];
        d[n - 1] = s[n - 1];
        d[n / 2] = s[n / 2];
    }
}

static inline void credo_copy(void *restrict dst, const void *restrict src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (n <= 64) {
        credo_copy_small(d, s, n);
        return;
    }
    if (n < CREDO_COPY_INLINE_MAX) {
        memcpy(d, s, n);
        return;
    }
    if (credo_copy_large)
        credo_copy_large(d, s, n);
    else
        memcpy(d, s, n);
}

/* credo_copy where the two ranges may overlap (memmove then); n == 0 and dst == src do nothing. */
static inline void credo_move(void *dst, const void *src, size_t n)
{
    uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
    if (n == 0 || d == s)
        return;
    if (d - s >= n && s - d >= n) /* disjoint: neither starts inside the other */
        credo_copy(dst, src, n);
    else
        memmove(dst, src, n);
}

/* Chooses the strategy now if it has not been chosen (CREDO_COPY, else the start-up timing). */
void credo_copy_init(void);
/* The figures and the choice (chooses first if needed). */
credo_copy_figures credo_copy_info(void);
/* The figures and the choice, with every pair timed in full and the page-aligned pair too (up to
 * about 0.5 ms where the cliff exists; credo_info calls it). Does not change the choice. */
credo_copy_figures credo_copy_measure(void);
/* Name of a mode: "memcpy", "loop" ("unset"). */
const char *credo_copy_mode_name(int mode);
/* Copies with one given strategy whatever was chosen (tests and benchmarks). */
void credo_copy_with(int mode, void *restrict dst, const void *restrict src, size_t n);

#endif
