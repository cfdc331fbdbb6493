/* tests/coll_mpi/reduce.c — every reduction collective (Reduce, Allreduce, Scan, Exscan,
 * Reduce_scatter(_block), their I-variants) for every predefined op x type against a sequential
 * fold, with MPI_IN_PLACE, zero counts, roots 0, 1 and np-1, user ops and derived types. */
#include <complex.h>
#include <stdint.h>

#include "cmtest.h"

#define N 7
static int me, np;

enum { K_ARITH, K_LOGIC, K_PROD };

/* Contribution of rank r at index i: small values, so sums stay exact; 0/1 mixes for logic. */
static long long val(int kind, int r, int i)
{
    if (kind == K_PROD)
        return 1 + (r + i) % 2;
    if (kind == K_LOGIC)
        return (r * 7 + i * 3) % 5 / 2; /* 0, 1, 2 */
    return (r * 7 + i * 3) % 11 + 1;
}

typedef struct opdesc {
    MPI_Op op;
    const char *name;
    int kind;
    int logic; /* integer-only op */
} opdesc;

static const opdesc OPS[] = {
    {MPI_MAX, "MAX", K_ARITH, 0},  {MPI_MIN, "MIN", K_ARITH, 0},   {MPI_SUM, "SUM", K_ARITH, 0},
    {MPI_PROD, "PROD", K_PROD, 0}, {MPI_LAND, "LAND", K_LOGIC, 1}, {MPI_LOR, "LOR", K_LOGIC, 1},
    {MPI_LXOR, "LXOR", K_LOGIC, 1}, {MPI_BAND, "BAND", K_LOGIC, 1}, {MPI_BOR, "BOR", K_LOGIC, 1},
    {MPI_BXOR, "BXOR", K_LOGIC, 1},
};
#define NOPS (int)(sizeof OPS / sizeof OPS[0])

/* For each type: fill, fold (in rank order, as the kernels compute) and compare. */
#define DEF_TYPE(T, U, tn, ISINT)                                                                  \
    static T comb_##tn(int o, T a, T b)                                                            \
    {                                                                                              \
        switch (o) {                                                                               \
        case 0: return a > b ? a : b;                                                              \
        case 1: return a < b ? a : b;                                                              \
        case 2: return (T)((U)a + (U)b);                                                           \
        case 3: return (T)((U)a * (U)b);                                                           \
        case 4: return (T)(a && b);                                                                \
        case 5: return (T)(a || b);                                                                \
        case 6: return (T)(!a != !b);                                                              \
        default: return ISINT##_bit(o, a, b);                                                      \
        }                                                                                          \
    }                                                                                              \
    static void fill_##tn(int o, int r, T *v, int n)                                               \
    {                                                                                              \
        for (int i = 0; i < n; i++)                                                                \
            v[i] = (T)val(OPS[o].kind, r, i);                                                      \
    }                                                                                              \
    /* ranks lo..hi-1 folded */                                                                    \
    static void ref_##tn(int o, int lo, int hi, T *v, int n)                                       \
    {                                                                                              \
        for (int i = 0; i < n; i++) {                                                              \
            T acc = (T)val(OPS[o].kind, lo, i);                                                    \
            for (int r = lo + 1; r < hi; r++)                                                      \
                acc = comb_##tn(o, acc, (T)val(OPS[o].kind, r, i));                                \
            v[i] = acc;                                                                            \
        }                                                                                          \
    }                                                                                              \
    static void test_##tn(MPI_Datatype dt, const char *tname, int root)                            \
    {                                                                                              \
        T s[N * 16], r[N * 16], e[N * 16];                                                         \
        for (int o = 0; o < NOPS; o++) {                                                           \
            if (OPS[o].logic && !ISINT_##ISINT)                                                          \
                continue;                                                                          \
            for (int n = 0; n <= N; n += N) { /* zero count and N */                               \
                fill_##tn(o, me, s, n);                                                            \
                ref_##tn(o, 0, np, e, n);                                                          \
                /* Reduce */                                                                       \
                memset(r, 0x5a, sizeof r);                                                         \
                OK(MPI_Reduce(s, r, n, dt, OPS[o].op, root, MPI_COMM_WORLD));                      \
                if (me == root)                                                                    \
                    for (int i = 0; i < n; i++)                                                    \
                        CHECK(r[i] == e[i], "Reduce %s %s root %d i %d", OPS[o].name, tname, root, \
                              i);                                                                  \
                /* Reduce in place at the root */                                                  \
                fill_##tn(o, me, r, n);                                                            \
                OK(MPI_Reduce(me == root ? MPI_IN_PLACE : r, me == root ? r : NULL, n, dt,         \
                              OPS[o].op, root, MPI_COMM_WORLD));                                   \
                if (me == root)                                                                    \
                    for (int i = 0; i < n; i++)                                                    \
                        CHECK(r[i] == e[i], "Reduce in place %s %s i %d", OPS[o].name, tname, i);  \
                if (root != 0)                                                                     \
                    continue; /* the root-less ones once per op */                                 \
                memset(r, 0x5a, sizeof r);                                                         \
                OK(MPI_Allreduce(s, r, n, dt, OPS[o].op, MPI_COMM_WORLD));                         \
                for (int i = 0; i < n; i++)                                                        \
                    CHECK(r[i] == e[i], "Allreduce %s %s i %d", OPS[o].name, tname, i);            \
                fill_##tn(o, me, r, n);                                                            \
                OK(MPI_Allreduce(MPI_IN_PLACE, r, n, dt, OPS[o].op, MPI_COMM_WORLD));              \
                for (int i = 0; i < n; i++)                                                        \
                    CHECK(r[i] == e[i], "Allreduce in place %s %s i %d", OPS[o].name, tname, i);   \
                ref_##tn(o, 0, me + 1, e, n);                                                      \
                OK(MPI_Scan(s, r, n, dt, OPS[o].op, MPI_COMM_WORLD));                              \
                for (int i = 0; i < n; i++)                                                        \
                    CHECK(r[i] == e[i], "Scan %s %s i %d", OPS[o].name, tname, i);                 \
                if (me > 0)                                                                        \
                    ref_##tn(o, 0, me, e, n);                                                      \
                OK(MPI_Exscan(s, r, n, dt, OPS[o].op, MPI_COMM_WORLD));                            \
                for (int i = 0; me > 0 && i < n; i++)                                              \
                    CHECK(r[i] == e[i], "Exscan %s %s i %d", OPS[o].name, tname, i);               \
                /* Reduce_scatter_block: n per rank from n * np */                                 \
                fill_##tn(o, me, s, n * np);                                                       \
                ref_##tn(o, 0, np, e, n * np);                                                     \
                OK(MPI_Reduce_scatter_block(s, r, n, dt, OPS[o].op, MPI_COMM_WORLD));              \
                for (int i = 0; i < n; i++)                                                        \
                    CHECK(r[i] == e[me * n + i], "Reduce_scatter_block %s %s", OPS[o].name, tname);\
            }                                                                                      \
        }                                                                                          \
    }
#define int_bit(o, a, b) ((o) == 7 ? (a & b) : (o) == 8 ? (a | b) : (a ^ b))
#define flt_bit(o, a, b) (a)
#define ISINT_int 1
#define ISINT_flt 0
DEF_TYPE(signed char, unsigned, schar, int)
DEF_TYPE(unsigned char, unsigned, uchar, int)
DEF_TYPE(short, unsigned, short, int)
DEF_TYPE(unsigned short, unsigned, ushort, int)
DEF_TYPE(int, unsigned, int, int)
DEF_TYPE(unsigned, unsigned, uint, int)
DEF_TYPE(long, unsigned long, long, int)
DEF_TYPE(unsigned long, unsigned long, ulong, int)
DEF_TYPE(long long, unsigned long long, llong, int)
DEF_TYPE(unsigned long long, unsigned long long, ullong, int)
DEF_TYPE(int8_t, unsigned, int8, int)
DEF_TYPE(int16_t, unsigned, int16, int)
DEF_TYPE(int32_t, uint32_t, int32, int)
DEF_TYPE(int64_t, uint64_t, int64, int)
DEF_TYPE(uint8_t, unsigned, uint8, int)
DEF_TYPE(uint16_t, unsigned, uint16, int)
DEF_TYPE(uint32_t, uint32_t, uint32, int)
DEF_TYPE(uint64_t, uint64_t, uint64, int)
DEF_TYPE(float, float, flt, flt)
DEF_TYPE(double, double, dbl, flt)
DEF_TYPE(long double, long double, ldbl, flt)

static void all_types(int root)
{
    test_schar(MPI_SIGNED_CHAR, "SIGNED_CHAR", root);
    test_uchar(MPI_UNSIGNED_CHAR, "UNSIGNED_CHAR", root);
    test_short(MPI_SHORT, "SHORT", root);
    test_ushort(MPI_UNSIGNED_SHORT, "UNSIGNED_SHORT", root);
    test_int(MPI_INT, "INT", root);
    test_uint(MPI_UNSIGNED, "UNSIGNED", root);
    test_long(MPI_LONG, "LONG", root);
    test_ulong(MPI_UNSIGNED_LONG, "UNSIGNED_LONG", root);
    test_llong(MPI_LONG_LONG, "LONG_LONG", root);
    test_ullong(MPI_UNSIGNED_LONG_LONG, "UNSIGNED_LONG_LONG", root);
    test_int8(MPI_INT8_T, "INT8_T", root);
    test_int16(MPI_INT16_T, "INT16_T", root);
    test_int32(MPI_INT32_T, "INT32_T", root);
    test_int64(MPI_INT64_T, "INT64_T", root);
    test_uint8(MPI_UINT8_T, "UINT8_T", root);
    test_uint16(MPI_UINT16_T, "UINT16_T", root);
    test_uint32(MPI_UINT32_T, "UINT32_T", root);
    test_uint64(MPI_UINT64_T, "UINT64_T", root);
    test_flt(MPI_FLOAT, "FLOAT", root);
    test_dbl(MPI_DOUBLE, "DOUBLE", root);
    test_ldbl(MPI_LONG_DOUBLE, "LONG_DOUBLE", root);
}

/* MAXLOC/MINLOC on pair types: value (r*7+i*3)%5 has ties, which go to the lowest rank. */
#define DEF_PAIR(V, tn)                                                                            \
    typedef struct { V v; int k; } pair_##tn;                                                      \
    static void test_pair_##tn(MPI_Datatype dt, int root)                                          \
    {                                                                                              \
        pair_##tn s[N], r[N];                                                                      \
        for (int o = 0; o < 2; o++) {                                                              \
            MPI_Op op = o ? MPI_MINLOC : MPI_MAXLOC;                                               \
            for (int i = 0; i < N; i++)                                                            \
                s[i] = (pair_##tn){(V)((me * 7 + i * 3) % 5), me};                                 \
            OK(MPI_Reduce(s, r, N, dt, op, root, MPI_COMM_WORLD));                                 \
            if (me != root)                                                                        \
                continue;                                                                          \
            for (int i = 0; i < N; i++) {                                                          \
                int best = 0;                                                                      \
                for (int q = 1; q < np; q++) {                                                     \
                    int vq = (q * 7 + i * 3) % 5, vb = (best * 7 + i * 3) % 5;                     \
                    if (o ? vq < vb : vq > vb)                                                     \
                        best = q;                                                                  \
                }                                                                                  \
                CHECK(r[i].k == best && r[i].v == (V)((best * 7 + i * 3) % 5),                     \
                      "%s pair %s i %d: got (%g,%d) want rank %d", o ? "MINLOC" : "MAXLOC", #tn,   \
                      i, (double)r[i].v, r[i].k, best);                                            \
            }                                                                                      \
        }                                                                                          \
    }
DEF_PAIR(int, 2int)
DEF_PAIR(float, float_int)
DEF_PAIR(double, double_int)
DEF_PAIR(long, long_int)
DEF_PAIR(short, short_int)

/* Non-commutative user op: affine maps x -> a x + b (mod 2^32) composed in rank order. */
typedef struct { unsigned a, b; } aff;
static aff aff_comb(aff lo, aff hi) /* hi after lo */
{
    return (aff){hi.a * lo.a, hi.a * lo.b + hi.b};
}
static aff aff_of(int r, int i)
{
    return (aff){(unsigned)(2 * r + 3 + i), (unsigned)(r * 5 + i)};
}
static int user_calls;
static MPI_Datatype g_vec = MPI_DATATYPE_NULL; /* N pairs at a stride of two pairs */
static void aff_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    /* The datatype is the user's: one contiguous pair, or the strided vector of N pairs. */
    int per = *dt == g_vec ? N : 1, stride = *dt == g_vec ? 2 : 1;
    MPI_Aint lb, ext;
    MPI_Type_get_extent(*dt, &lb, &ext);
    user_calls++;
    for (int k = 0; k < *len; k++)
        for (int j = 0; j < per; j++) {
            aff *x = (aff *)((char *)in + k * ext) + j * stride;
            aff *y = (aff *)((char *)inout + k * ext) + j * stride;
            *y = aff_comb(*x, *y);
        }
}

static void test_user(void)
{
    MPI_Op op;
    MPI_Datatype pairt;
    OK(MPI_Op_create(aff_op, 0, &op));
    OK(MPI_Type_contiguous(2, MPI_UNSIGNED, &pairt));
    OK(MPI_Type_commit(&pairt));
    aff s[N], r[N], e;
    for (int i = 0; i < N; i++)
        s[i] = aff_of(me, i);
    for (int root = 0; root < np; root += (np > 2 ? np - 1 : 1)) {
        OK(MPI_Reduce(s, r, N, pairt, op, root, MPI_COMM_WORLD));
        for (int i = 0; me == root && i < N; i++) {
            e = aff_of(0, i);
            for (int q = 1; q < np; q++)
                e = aff_comb(e, aff_of(q, i));
            CHECK(r[i].a == e.a && r[i].b == e.b, "user Reduce root %d i %d", root, i);
        }
    }
    OK(MPI_Allreduce(s, r, N, pairt, op, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++) {
        e = aff_of(0, i);
        for (int q = 1; q < np; q++)
            e = aff_comb(e, aff_of(q, i));
        CHECK(r[i].a == e.a && r[i].b == e.b, "user Allreduce i %d", i);
    }
    OK(MPI_Scan(s, r, N, pairt, op, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++) {
        e = aff_of(0, i);
        for (int q = 1; q <= me; q++)
            e = aff_comb(e, aff_of(q, i));
        CHECK(r[i].a == e.a && r[i].b == e.b, "user Scan i %d", i);
    }
    OK(MPI_Exscan(s, r, N, pairt, op, MPI_COMM_WORLD));
    for (int i = 0; me > 0 && i < N; i++) {
        e = aff_of(0, i);
        for (int q = 1; q < me; q++)
            e = aff_comb(e, aff_of(q, i));
        CHECK(r[i].a == e.a && r[i].b == e.b, "user Exscan i %d", i);
    }
    /* Non-dense: every other pair of a strided vector; the gaps must stay untouched. */
    MPI_Datatype vec;
    OK(MPI_Type_vector(N, 1, 2, pairt, &vec));
    OK(MPI_Type_commit(&vec));
    g_vec = vec;
    aff sv[2 * N], rv[2 * N];
    for (int i = 0; i < 2 * N; i++) {
        sv[i] = aff_of(me, i / 2);
        rv[i] = (aff){0xdead, 0xbeef};
    }
    OK(MPI_Allreduce(sv, rv, 1, vec, op, MPI_COMM_WORLD));
    for (int i = 0; i < 2 * N; i++) {
        if (i % 2) {
            CHECK(rv[i].a == 0xdead && rv[i].b == 0xbeef, "vector gap %d written", i);
            continue;
        }
        e = aff_of(0, i / 2);
        for (int q = 1; q < np; q++)
            e = aff_comb(e, aff_of(q, i / 2));
        CHECK(rv[i].a == e.a && rv[i].b == e.b, "user Allreduce on a vector, element %d", i);
    }
    /* Predefined op on the derived contiguous type and on the vector. */
    int si[3 * N], ri[3 * N];
    MPI_Datatype tri;
    OK(MPI_Type_contiguous(3, MPI_INT, &tri));
    OK(MPI_Type_commit(&tri));
    for (int i = 0; i < 3 * N; i++)
        si[i] = me + i;
    OK(MPI_Allreduce(si, ri, N, tri, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < 3 * N; i++)
        CHECK(ri[i] == np * (np - 1) / 2 + np * i, "SUM on contiguous(3,INT) i %d", i);
    CHECK(user_calls > 0 || np == 1, "user op never called");
    OK(MPI_Type_free(&tri));
    OK(MPI_Type_free(&vec));
    OK(MPI_Type_free(&pairt));
    OK(MPI_Op_free(&op));
}

static void test_reduce_scatter(void)
{
    int cnt[64], total = 0;
    for (int q = 0; q < np; q++) {
        cnt[q] = q % 3; /* zero counts included */
        total += cnt[q];
    }
    int s[256], r[256], off = 0;
    for (int i = 0; i < total; i++)
        s[i] = me * 100 + i;
    for (int q = 0; q < me; q++)
        off += cnt[q];
    OK(MPI_Reduce_scatter(s, r, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < cnt[me]; i++)
        CHECK(r[i] == 100 * np * (np - 1) / 2 + np * (off + i), "Reduce_scatter i %d", i);
    for (int i = 0; i < total; i++)
        r[i] = me * 100 + i;
    OK(MPI_Reduce_scatter(MPI_IN_PLACE, r, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < cnt[me]; i++)
        CHECK(r[i] == 100 * np * (np - 1) / 2 + np * (off + i), "Reduce_scatter in place i %d", i);
    /* complex and bool */
    double _Complex cs[N], cr[N];
    for (int i = 0; i < N; i++)
        cs[i] = (double)me + (double)i * I;
    OK(MPI_Allreduce(cs, cr, N, MPI_C_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++)
        CHECK(creal(cr[i]) == np * (np - 1) / 2.0 && cimag(cr[i]) == (double)np * i, "complex %d", i);
    _Bool bs = me != 1, br = 0;
    OK(MPI_Allreduce(&bs, &br, 1, MPI_C_BOOL, MPI_LAND, MPI_COMM_WORLD));
    CHECK(br == (np < 2), "bool LAND");
}

/* Non-blocking: several outstanding at once, interleaved with ring point-to-point traffic. */
static void test_nonblocking(void)
{
    enum { M = 5 };
    int a[M], ar[M], b[M], sc[M], xs[M], ring_out = me, ring_in = -1;
    MPI_Request q[7];
    for (int i = 0; i < M; i++) {
        a[i] = me + i;
        b[i] = me == np - 1 ? 42 + i : -1;
    }
    int right = (me + 1) % np, left = (me + np - 1) % np;
    OK(MPI_Irecv(&ring_in, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &q[0]));
    OK(MPI_Iallreduce(a, ar, M, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[1]));
    OK(MPI_Ibcast(b, M, MPI_INT, np - 1, MPI_COMM_WORLD, &q[2]));
    OK(MPI_Iscan(a, sc, M, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &q[3]));
    OK(MPI_Isend(&ring_out, 1, MPI_INT, right, 7, MPI_COMM_WORLD, &q[4]));
    OK(MPI_Iexscan(a, xs, M, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[5]));
    OK(MPI_Ibarrier(MPI_COMM_WORLD, &q[6]));
    OK(MPI_Waitall(7, q, MPI_STATUSES_IGNORE));
    CHECK(ring_in == left, "ring message");
    for (int i = 0; i < M; i++) {
        CHECK(ar[i] == np * (np - 1) / 2 + np * i, "Iallreduce %d", i);
        CHECK(b[i] == 42 + i, "Ibcast %d", i);
        CHECK(sc[i] == me + i, "Iscan MAX %d", i);
        CHECK(me == 0 || xs[i] == me * (me - 1) / 2 + me * i, "Iexscan %d", i);
    }
    /* I-variants of the reductions with roots, tested one by one with Test loops. */
    int rs[64], flag = 0;
    MPI_Request rq;
    OK(MPI_Ireduce(a, ar, M, MPI_INT, MPI_SUM, np / 2, MPI_COMM_WORLD, &rq));
    while (!flag)
        OK(MPI_Test(&rq, &flag, MPI_STATUS_IGNORE));
    CHECK(rq == MPI_REQUEST_NULL, "Test leaves the request");
    for (int i = 0; me == np / 2 && i < M; i++)
        CHECK(ar[i] == np * (np - 1) / 2 + np * i, "Ireduce %d", i);
    int blk[64];
    for (int i = 0; i < np; i++)
        blk[i] = me + i;
    OK(MPI_Ireduce_scatter_block(blk, rs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK(rs[0] == np * (np - 1) / 2 + np * me, "Ireduce_scatter_block");
    int cnt[64];
    for (int i = 0; i < np; i++)
        cnt[i] = 1;
    OK(MPI_Ireduce_scatter(blk, rs, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK(rs[0] == np * (np - 1) / 2 + np * me, "Ireduce_scatter");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int roots[3] = {0, 1 % np, np - 1};
    for (int k = 0; k < 3; k++) {
        if (k > 0 && (roots[k] == roots[k - 1] || roots[k] == roots[0]))
            continue;
        all_types(roots[k]);
        test_pair_2int(MPI_2INT, roots[k]);
        test_pair_float_int(MPI_FLOAT_INT, roots[k]);
        test_pair_double_int(MPI_DOUBLE_INT, roots[k]);
        test_pair_long_int(MPI_LONG_INT, roots[k]);
        test_pair_short_int(MPI_SHORT_INT, roots[k]);
    }
    test_user();
    test_reduce_scatter();
    test_nonblocking();
    /* The same on a split communicator (odd/even ranks, reversed order). */
    MPI_Comm half;
    OK(MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &half));
    int hr, hn, v = me, sum = -1;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hn);
    OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, half));
    int want = 0;
    for (int q = me % 2; q < np; q += 2)
        want += q;
    CHECK(sum == want, "Allreduce on split comm: %d want %d", sum, want);
    OK(MPI_Comm_free(&half));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0)
        printf("coll_mpi reduce: np %d ok\n", np);
    MPI_Finalize();
    return 0;
}
