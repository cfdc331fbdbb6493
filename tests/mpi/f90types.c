/* tests/mpi/f90types.c — MPI_Type_create_f90_real/_complex/_integer (MPI 4.0 §19.1.9): the type
 * picked for several (p, r), its size, that it is predefined (MPI_Type_free refuses it), a transfer
 * and a reduction with it, and MPI_ERR_ARG for requests no type meets. np 2. */
#include <float.h>

#include "testutil.h"

/* Fortran's PRECISION and RANGE of the C floating types: what SELECTED_REAL_KIND compares against. */
#define RANGE_OF(min10, max10) ((-(min10)) < (max10) ? -(min10) : (max10))

static int err_class(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

static int type_size(MPI_Datatype t)
{
    int s = -1;
    MPI_OK(MPI_Type_size(t, &s));
    return s;
}

static MPI_Datatype real_of(int p, int r)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    MPI_OK(MPI_Type_create_f90_real(p, r, &t));
    CHECK(t != MPI_DATATYPE_NULL, "f90_real(%d, %d) gave MPI_DATATYPE_NULL", p, r);
    return t;
}

static MPI_Datatype complex_of(int p, int r)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    MPI_OK(MPI_Type_create_f90_complex(p, r, &t));
    CHECK(t != MPI_DATATYPE_NULL, "f90_complex(%d, %d) gave MPI_DATATYPE_NULL", p, r);
    return t;
}

static MPI_Datatype integer_of(int r)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    MPI_OK(MPI_Type_create_f90_integer(r, &t));
    CHECK(t != MPI_DATATYPE_NULL, "f90_integer(%d) gave MPI_DATATYPE_NULL", r);
    return t;
}

/* (p, r) -> expected byte size of the real (the complex is twice that) */
struct real_case {
    int p, r, size;
};

static void check_reals(void)
{
    const int u = MPI_UNDEFINED;
    const int ldbl_range = RANGE_OF(LDBL_MIN_10_EXP, LDBL_MAX_10_EXP);
    struct real_case cases[] = {
        {0, 0, 4},
        {1, u, 4},
        {6, u, 4},
        {u, 37, 4},
        {6, 37, 4},
        {7, u, 8},   /* one digit more than a 4-byte real holds */
        {u, 38, 8},  /* one decade more range */
        {6, 38, 8},
        {15, 307, 8},
        {u, 307, 8},
        {15, u, 8},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        MPI_Datatype t = real_of(cases[i].p, cases[i].r);
        MPI_Datatype c = complex_of(cases[i].p, cases[i].r);
        CHECK(type_size(t) == cases[i].size && type_size(c) == 2 * cases[i].size,
              "(p %d, r %d): real of %d bytes, complex of %d; expected %d and %d", cases[i].p, cases[i].r,
              type_size(t), type_size(c), cases[i].size, 2 * cases[i].size);
#ifdef CREDO_STATS
        /* credo answers with its named predefined types */
        CHECK(t == (cases[i].size == 4 ? MPI_REAL4 : MPI_REAL8), "(p %d, r %d): not MPI_REAL%d", cases[i].p,
              cases[i].r, cases[i].size);
        CHECK(c == (cases[i].size == 4 ? MPI_COMPLEX8 : MPI_COMPLEX16), "(p %d, r %d): not MPI_COMPLEX%d",
              cases[i].p, cases[i].r, 2 * cases[i].size);
#endif
    }
    /* beyond double: long double if it has more precision or range than double on this platform */
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int rc = MPI_Type_create_f90_real(DBL_DIG + 1, u, &t);
    if (LDBL_DIG > DBL_DIG) {
        CHECK(rc == MPI_SUCCESS && type_size(t) == (int)sizeof(long double), "f90_real(%d): rc %d, size %d",
              DBL_DIG + 1, rc, rc == MPI_SUCCESS ? type_size(t) : -1);
        MPI_OK(MPI_Type_create_f90_real(LDBL_DIG, ldbl_range, &t));
        CHECK(type_size(t) == (int)sizeof(long double), "f90_real(LDBL_DIG, range)");
        MPI_OK(MPI_Type_create_f90_complex(LDBL_DIG, u, &t));
        CHECK(type_size(t) == 2 * (int)sizeof(long double), "f90_complex(LDBL_DIG)");
#ifdef CREDO_STATS
        MPI_OK(MPI_Type_create_f90_real(LDBL_DIG, u, &t));
        CHECK(t == MPI_LONG_DOUBLE, "f90_real(LDBL_DIG) is not MPI_LONG_DOUBLE");
        MPI_OK(MPI_Type_create_f90_complex(u, ldbl_range, &t));
        CHECK(t == MPI_C_LONG_DOUBLE_COMPLEX, "f90_complex(-, LDBL range) is not MPI_C_LONG_DOUBLE_COMPLEX");
#endif
    }
#ifdef CREDO_STATS
    else
        CHECK(err_class(rc) == MPI_ERR_ARG, "f90_real(%d) with no wider type: rc %d", DBL_DIG + 1, rc);
    /* credo has no quad type: one digit or decade beyond long double is refused */
    CHECK(err_class(MPI_Type_create_f90_real(LDBL_DIG + 1, u, &t)) == MPI_ERR_ARG, "f90_real(LDBL_DIG + 1)");
    CHECK(err_class(MPI_Type_create_f90_complex(u, ldbl_range + 1, &t)) == MPI_ERR_ARG,
          "f90_complex(-, LDBL range + 1)");
#endif

    /* bad arguments */
    t = MPI_DATATYPE_NULL;
    CHECK(err_class(MPI_Type_create_f90_real(u, u, &t)) == MPI_ERR_ARG, "f90_real(UNDEFINED, UNDEFINED)");
    CHECK(err_class(MPI_Type_create_f90_complex(u, u, &t)) == MPI_ERR_ARG, "f90_complex(UNDEFINED, UNDEFINED)");
    CHECK(err_class(MPI_Type_create_f90_real(1000, u, &t)) == MPI_ERR_ARG, "f90_real(1000)");
    CHECK(err_class(MPI_Type_create_f90_real(u, 100000, &t)) == MPI_ERR_ARG, "f90_real(-, 100000)");
    CHECK(err_class(MPI_Type_create_f90_complex(1000, 1, &t)) == MPI_ERR_ARG, "f90_complex(1000, 1)");
    CHECK(err_class(MPI_Type_create_f90_real(6, 37, NULL)) == MPI_ERR_ARG, "f90_real with NULL newtype");
    CHECK(t == MPI_DATATYPE_NULL, "a refused call returned a type");
    tu_note("MPI_Type_create_f90_real/_complex for %zu (p, r) pairs and the refusals",
            sizeof cases / sizeof cases[0]);
}

static void check_integers(void)
{
    static const struct {
        int r, size;
    } cases[] = {{0, 1}, {1, 1}, {2, 1}, {3, 2}, {4, 2}, {5, 4}, {9, 4}, {10, 8}, {18, 8}, {19, 16}, {38, 16}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        MPI_Datatype t = integer_of(cases[i].r);
        CHECK(type_size(t) == cases[i].size, "f90_integer(%d): %d bytes, expected %d", cases[i].r, type_size(t),
              cases[i].size);
#ifdef CREDO_STATS
        MPI_Datatype named[16] = {[0] = MPI_INTEGER1, [1] = MPI_INTEGER2, [3] = MPI_INTEGER4, [7] = MPI_INTEGER8,
                                  [15] = MPI_INTEGER16};
        CHECK(t == named[cases[i].size - 1], "f90_integer(%d) is not MPI_INTEGER%d", cases[i].r, cases[i].size);
#endif
    }
    MPI_Datatype t = MPI_DATATYPE_NULL;
    CHECK(err_class(MPI_Type_create_f90_integer(39, &t)) == MPI_ERR_ARG, "f90_integer(39)");
    CHECK(err_class(MPI_Type_create_f90_integer(1000, &t)) == MPI_ERR_ARG, "f90_integer(1000)");
    CHECK(err_class(MPI_Type_create_f90_integer(4, NULL)) == MPI_ERR_ARG, "f90_integer with NULL newtype");
#ifdef CREDO_STATS
    CHECK(err_class(MPI_Type_create_f90_integer(MPI_UNDEFINED, &t)) == MPI_ERR_ARG, "f90_integer(UNDEFINED)");
#endif
    CHECK(t == MPI_DATATYPE_NULL, "a refused call returned a type");
    tu_note("MPI_Type_create_f90_integer for %zu ranges and the refusals", sizeof cases / sizeof cases[0]);
}

/* The types are predefined: freeing one is an error and leaves it usable. */
static void check_not_freeable(void)
{
    MPI_Datatype types[3], keep[3];
    types[0] = real_of(6, MPI_UNDEFINED);
    types[1] = complex_of(15, MPI_UNDEFINED);
    types[2] = integer_of(9);
    for (int i = 0; i < 3; i++) {
        keep[i] = types[i];
        int rc = MPI_Type_free(&types[i]);
        CHECK(rc != MPI_SUCCESS && err_class(rc) == MPI_ERR_TYPE, "MPI_Type_free of f90 type %d: rc %d", i, rc);
        CHECK(types[i] == keep[i] && type_size(types[i]) > 0, "f90 type %d changed by a refused free", i);
    }
    tu_note("MPI_Type_free refuses the f90 types");
}

/* Each rank sends a few values of each type to the next one and checks what it got from the
 * previous one, then the ranks sum them. */
static void check_transfer(int rank, int size)
{
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    enum { N = 7 };

    MPI_Datatype tr = real_of(6, MPI_UNDEFINED), td = real_of(15, 300), tc = complex_of(12, MPI_UNDEFINED),
                 ti = integer_of(9), ti8 = integer_of(15), ti1 = integer_of(2);
    float rs[N], rr[N];
    double ds[N], dr[N];
    double cs[2 * N], cr[2 * N]; /* double complex as (re, im) pairs */
    int32_t is[N], ir[N];
    int64_t ls[N], lr[N];
    int8_t bs[N], br[N];
    for (int i = 0; i < N; i++) {
        rs[i] = 0.5f * (float)(i + 1) + (float)rank;
        ds[i] = (1.0 + rank) * 1e300 / (double)(i + 1);
        cs[2 * i] = 0.25 * i + rank;
        cs[2 * i + 1] = -1.0 * i - rank;
        is[i] = 100000000 * (rank + 1) + i;
        ls[i] = (int64_t)(rank + 1) * 1000000000000000LL + i;
        bs[i] = (int8_t)(-100 + 10 * rank + i);
    }
    MPI_Status st;
    MPI_OK(MPI_Sendrecv(rs, N, tr, to, 1, rr, N, tr, from, 1, MPI_COMM_WORLD, &st));
    int count = -1;
    MPI_OK(MPI_Get_count(&st, tr, &count));
    CHECK(count == N, "real transfer: count %d", count);
    MPI_OK(MPI_Sendrecv(ds, N, td, to, 2, dr, N, td, from, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Sendrecv(cs, N, tc, to, 3, cr, N, tc, from, 3, MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Get_count(&st, tc, &count));
    CHECK(count == N, "complex transfer: count %d", count);
    MPI_OK(MPI_Sendrecv(is, N, ti, to, 4, ir, N, ti, from, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Sendrecv(ls, N, ti8, to, 5, lr, N, ti8, from, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Sendrecv(bs, N, ti1, to, 6, br, N, ti1, from, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < N; i++) {
        CHECK(rr[i] == 0.5f * (float)(i + 1) + (float)from, "real[%d] = %g from rank %d", i, (double)rr[i], from);
        CHECK(dr[i] == (1.0 + from) * 1e300 / (double)(i + 1), "double[%d] = %g", i, dr[i]);
        CHECK(cr[2 * i] == 0.25 * i + from && cr[2 * i + 1] == -1.0 * i - from, "complex[%d] = (%g, %g)", i,
              cr[2 * i], cr[2 * i + 1]);
        CHECK(ir[i] == 100000000 * (from + 1) + i, "int[%d] = %d", i, (int)ir[i]);
        CHECK(lr[i] == (int64_t)(from + 1) * 1000000000000000LL + i, "int8[%d] = %lld", i, (long long)lr[i]);
        CHECK(br[i] == (int8_t)(-100 + 10 * from + i), "int1[%d] = %d", i, br[i]);
    }

    /* predefined types take the predefined reductions */
    int32_t isum[N];
    int64_t lsum[N];
    MPI_OK(MPI_Allreduce(is, isum, N, ti, MPI_SUM, MPI_COMM_WORLD));
    MPI_OK(MPI_Allreduce(ls, lsum, N, ti8, MPI_SUM, MPI_COMM_WORLD));
    double dmax[N];
    MPI_OK(MPI_Allreduce(ds, dmax, N, td, MPI_MAX, MPI_COMM_WORLD));
    int64_t ranks = (int64_t)size * (size + 1) / 2;
    for (int i = 0; i < N; i++) {
        CHECK(isum[i] == (int32_t)(100000000 * ranks + (int64_t)size * i), "int sum[%d] = %d", i, (int)isum[i]);
        CHECK(lsum[i] == ranks * 1000000000000000LL + (int64_t)size * i, "int8 sum[%d] = %lld", i,
              (long long)lsum[i]);
        CHECK(dmax[i] == (double)size * 1e300 / (double)(i + 1), "double max[%d] = %g", i, dmax[i]);
    }
    tu_note("transfers and reductions with the f90 types between %d ranks", size);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* errors not tied to a communicator: the standard sends them to MPI_COMM_SELF's handler in
     * MPI 4.0 and to MPI_COMM_WORLD's before; set both */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    check_reals();
    check_integers();
    check_not_freeable();
    check_transfer(rank, size);

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
