/* src/goal/goal_localop.c — GOAL local-operation kernels: op x {SINT, UINT, FLOAT} x width, with
 * the legality table, wrap-around integer arithmetic and defined integer division by zero. */
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "goal/goal_impl.h"
#include "xport/copy.h"

int goal_lop_valid(int op, int dtype, int width)
{
    if (op == GOAL_WTIME)
        return 1;
    if (op < GOAL_MAX || op > GOAL_WTIME || dtype < GOAL_SINT || dtype > GOAL_FLOAT)
        return 0;
    if (op == GOAL_COPY)
        return width == 1 || width == 8 || width == 16 || width == 32 || width == 64;
    int bitwise = op == GOAL_AND || op == GOAL_OR || op == GOAL_XOR;
    if (width == 1)
        return dtype == GOAL_UINT && bitwise;
    if (dtype == GOAL_FLOAT)
        return (width == 32 || width == 64) && !bitwise;
    return width == 8 || width == 16 || width == 32 || width == 64;
}

/* Signed arithmetic goes through the unsigned type (two's-complement wrap, no UB); integer
 * division by zero yields 0 and INT_MIN / -1 wraps to INT_MIN. Elements are loaded with memcpy
 * because scratchpad offsets and user blocks need not be aligned. */
#define INT_KERNEL(NAME, T, UT, SIGNED)                                                            \
    static void NAME(int op, const unsigned char *a, const unsigned char *b, unsigned char *r,     \
                     uint64_t n)                                                                   \
    {                                                                                              \
        for (uint64_t i = 0; i < n; i++) {                                                         \
            T x, y = 0, z;                                                                         \
            memcpy(&x, a + i * sizeof(T), sizeof(T));                                              \
            if (b)                                                                                 \
                memcpy(&y, b + i * sizeof(T), sizeof(T));                                          \
            switch (op) {                                                                          \
            case GOAL_MAX: z = x > y ? x : y; break;                                               \
            case GOAL_MIN: z = x < y ? x : y; break;                                               \
            case GOAL_ADD: z = (T)(UT)((uint64_t)(UT)x + (uint64_t)(UT)y); break;                                          \
            case GOAL_SUB: z = (T)(UT)((uint64_t)(UT)x - (uint64_t)(UT)y); break;                                          \
            case GOAL_MUL: z = (T)(UT)((uint64_t)(UT)x * (uint64_t)(UT)y); break;                                          \
            case GOAL_DIV:                                                                         \
                if (y == 0)                                                                        \
                    z = 0;                                                                         \
                else if (SIGNED && y == (T)-1)                                                     \
                    z = (T)(0 - (UT)x);                                                            \
                else                                                                               \
                    z = x / y;                                                                     \
                break;                                                                             \
            case GOAL_AND: z = x & y; break;                                                       \
            case GOAL_OR: z = x | y; break;                                                        \
            case GOAL_XOR: z = x ^ y; break;                                                       \
            default: z = x; break; /* COPY */                                                      \
            }                                                                                      \
            memcpy(r + i * sizeof(T), &z, sizeof(T));                                              \
        }                                                                                          \
    }

INT_KERNEL(k_s8, int8_t, uint8_t, 1)
INT_KERNEL(k_s16, int16_t, uint16_t, 1)
INT_KERNEL(k_s32, int32_t, uint32_t, 1)
INT_KERNEL(k_s64, int64_t, uint64_t, 1)
INT_KERNEL(k_u8, uint8_t, uint8_t, 0)
INT_KERNEL(k_u16, uint16_t, uint16_t, 0)
INT_KERNEL(k_u32, uint32_t, uint32_t, 0)
INT_KERNEL(k_u64, uint64_t, uint64_t, 0)

/* IEEE semantics throughout (x/0 = inf or nan). */
#define FLT_KERNEL(NAME, T)                                                                        \
    static void NAME(int op, const unsigned char *a, const unsigned char *b, unsigned char *r,     \
                     uint64_t n)                                                                   \
    {                                                                                              \
        for (uint64_t i = 0; i < n; i++) {                                                         \
            T x, y = 0, z;                                                                         \
            memcpy(&x, a + i * sizeof(T), sizeof(T));                                              \
            if (b)                                                                                 \
                memcpy(&y, b + i * sizeof(T), sizeof(T));                                          \
            switch (op) {                                                                          \
            case GOAL_MAX: z = x > y ? x : y; break;                                               \
            case GOAL_MIN: z = x < y ? x : y; break;                                               \
            case GOAL_ADD: z = x + y; break;                                                       \
            case GOAL_SUB: z = x - y; break;                                                       \
            case GOAL_MUL: z = x * y; break;                                                       \
            case GOAL_DIV: z = x / y; break;                                                       \
            default: z = x; break;                                                                 \
            }                                                                                      \
            memcpy(r + i * sizeof(T), &z, sizeof(T));                                              \
        }                                                                                          \
    }

FLT_KERNEL(k_f32, float)
FLT_KERNEL(k_f64, double)

static void bits_kernel(int op, const unsigned char *a, const unsigned char *b, unsigned char *r,
                        uint64_t nbits)
{
    uint64_t nbytes = (nbits + 7) / 8;
    for (uint64_t i = 0; i < nbytes; i++) {
        unsigned char x = a[i], y = b ? b[i] : 0, z;
        z = op == GOAL_AND ? (x & y) : op == GOAL_OR ? (x | y) : op == GOAL_XOR ? (x ^ y) : x;
        if (i == nbytes - 1 && (nbits & 7)) { /* bits past the last element stay untouched */
            unsigned char keep = (unsigned char)(0xffu << (nbits & 7));
            z = (unsigned char)((z & ~keep) | (r[i] & keep));
        }
        r[i] = z;
    }
}

void goal_lop_apply(int op, int dtype, int width, const void *a, const void *b, void *r, uint64_t n)
{
    if (op == GOAL_WTIME) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        double t = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
        memcpy(r, &t, sizeof t);
        return;
    }
    if (n == 0)
        return; /* buffers of empty operations may be NULL */
    if (op == GOAL_COPY) {
        if (width == 1)
            bits_kernel(op, a, NULL, r, n);
        else
            credo_move(r, a, n * (uint64_t)(width / 8));
        return;
    }
    const unsigned char *x = a, *y = b;
    unsigned char *z = r;
    if (width == 1) {
        bits_kernel(op, x, y, z, n);
        return;
    }
    if (dtype == GOAL_FLOAT) {
        (width == 32 ? k_f32 : k_f64)(op, x, y, z, n);
        return;
    }
    int s = dtype == GOAL_SINT;
    switch (width) {
    case 8: (s ? k_s8 : k_u8)(op, x, y, z, n); break;
    case 16: (s ? k_s16 : k_u16)(op, x, y, z, n); break;
    case 32: (s ? k_s32 : k_u32)(op, x, y, z, n); break;
    default: (s ? k_s64 : k_u64)(op, x, y, z, n); break;
    }
}

void goal_spin_ns(uint64_t ns)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        uint64_t el = (uint64_t)(t.tv_sec - t0.tv_sec) * 1000000000ull +
                      (uint64_t)(t.tv_nsec - t0.tv_nsec);
        if (el >= ns)
            return;
    }
}
