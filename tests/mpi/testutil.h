/* tests/mpi/testutil.h — helpers shared by the MPI integration tests: failure reporting, byte
 * patterns that depend on size, sender rank and index, canaries, and credo's flow-control report. */
#ifndef CREDO_TESTS_MPI_TESTUTIL_H
#define CREDO_TESTS_MPI_TESTUTIL_H

/* The tests are plain standard MPI C so they also run under Open MPI and MPICH; everything that is
 * credo-specific sits behind CREDO_STATS, which the CMake build defines when linking libcredo. */
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef CREDO_STATS
#include <credo/stats.h>
#endif

/* Unused in some tests: marked so -Wall -Wextra stays quiet without per-file pragmas. */
#define TU_UNUSED __attribute__((unused))

static int tu_rank = -1;

static TU_UNUSED int tu_world_rank(void) {
    if (tu_rank < 0) {
        int init = 0;
        MPI_Initialized(&init);
        if (init)
            MPI_Comm_rank(MPI_COMM_WORLD, &tu_rank);
    }
    return tu_rank;
}

/* Every failure ends the whole job: one clear line, then MPI_Abort so no rank waits forever on a
 * peer that gave up. */
static TU_UNUSED __attribute__((noreturn, format(printf, 3, 4))) void
tu_fail(const char *file, int line, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stdout, "FAIL rank %d: %s (%s:%d)\n", tu_world_rank(), msg, file, line);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1); /* not reached with a working MPI_Abort */
}

#define FAIL(...) tu_fail(__FILE__, __LINE__, __VA_ARGS__)
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond))                                                                               \
            FAIL(__VA_ARGS__);                                                                     \
    } while (0)
/* For calls that must succeed. */
#define MPI_OK(call)                                                                               \
    do {                                                                                           \
        int tu_rc_ = (call);                                                                       \
        if (tu_rc_ != MPI_SUCCESS)                                                                 \
            FAIL("%s returned %d", #call, tu_rc_);                                                 \
    } while (0)

/* Progress line, printed by rank 0 only so np=16 output stays readable. */
static TU_UNUSED __attribute__((format(printf, 1, 2))) void tu_note(const char *fmt, ...) {
    if (tu_world_rank() != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("ok: ", stdout);
    vprintf(fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    fflush(stdout);
}

/* Byte i of a message of `size` bytes sent by `rank`, variant `salt`: a hash of all four, so a byte
 * from another offset, another message, another sender or another size is caught. */
static inline unsigned char tu_pattern_byte(size_t size, int rank, unsigned salt, size_t i) {
    uint32_t x = (uint32_t)i * 2654435761u;
    x ^= (uint32_t)size * 40503u + (uint32_t)rank * 0x9E3779B9u + salt * 0x85EBCA6Bu;
    x ^= x >> 15;
    x *= 0x2C1B3C6Du;
    x ^= x >> 12;
    return (unsigned char)x;
}

static TU_UNUSED void tu_fill(void *buf, size_t size, int rank, unsigned salt) {
    unsigned char *p = buf;
    for (size_t i = 0; i < size; i++)
        p[i] = tu_pattern_byte(size, rank, salt, i);
}

/* Returns the index of the first wrong byte, or (size_t)-1 when all `size` bytes match. */
static TU_UNUSED size_t tu_verify(const void *buf, size_t size, int rank, unsigned salt) {
    const unsigned char *p = buf;
    for (size_t i = 0; i < size; i++)
        if (p[i] != tu_pattern_byte(size, rank, salt, i))
            return i;
    return (size_t)-1;
}

#define TU_OK_INDEX ((size_t)-1)
#define TU_CANARY 0xA5

/* Checks that `n` bytes are still the canary value (nothing wrote past a receive buffer). */
static TU_UNUSED int tu_canary_intact(const void *buf, size_t n) {
    const unsigned char *p = buf;
    for (size_t i = 0; i < n; i++)
        if (p[i] != TU_CANARY)
            return 0;
    return 1;
}

static TU_UNUSED void *tu_xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p)
        FAIL("out of memory allocating %zu bytes", n);
    return p;
}

static TU_UNUSED void *tu_xcalloc(size_t n, size_t each) {
    void *p = calloc(n ? n : 1, each ? each : 1);
    if (!p)
        FAIL("out of memory allocating %zu x %zu bytes", n, each);
    return p;
}

/* Error class of an MPI return code, for the MPI_ERRORS_RETURN tests. */
static TU_UNUSED int tu_class(int rc) {
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

#ifdef CREDO_STATS
/* Prints this rank's flow-control statistics and checks the invariant of the mailbox: it never held
 * more slots than its bound (the credit bound, or under "none" the ring's own capacity). */
static TU_UNUSED void tu_stats_check_print(const char *label) {
    credo_fc_stats s;
    memset(&s, 0, sizeof s);
    CHECK(credo_fc_stats_get(&s) == 0, "credo_fc_stats_get failed");
    printf("stats rank %d %s: scheme=%s slots=%llu peak=%llu data=%llu credit=%llu piggy=%llu/%llu "
           "delayed=%llu delay_ms=%.1f unexpected_peak=%llu\n",
           tu_world_rank(), label, s.scheme, (unsigned long long)s.mailbox_slots,
           (unsigned long long)s.peak_occupancy, (unsigned long long)s.data_packets_sent,
           (unsigned long long)s.credit_packets_sent, (unsigned long long)s.piggybacked_returns,
           (unsigned long long)s.piggybacked_credits, (unsigned long long)s.delayed_sends,
           (double)s.delay_ns / 1e6, (unsigned long long)s.unexpected_peak_bytes);
    fflush(stdout);
    CHECK(s.peak_occupancy <= s.mailbox_slots, "mailbox peak occupancy %llu > bound %llu",
              (unsigned long long)s.peak_occupancy, (unsigned long long)s.mailbox_slots);
}
#endif

#endif
