/* tests/mpi/f90types.c — MPI_Type_create_f90_real/_complex/_integer (MPI 4.0 §19.1.9): the type
 * picked for several (p, r), its size, its envelope (MPI_COMBINER_F90_* with the p and r asked for,
 * returned by MPI_Type_get_contents as given), one handle per distinct request and the same one
 * again on a repeat, that it is predefined (MPI_Type_free refuses it), a transfer, a reduction and
 * external32 packing with it, and MPI_ERR_ARG for requests no type meets. np 2. */
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

/* The envelope of an f90 type: combiner, p and r (p unused for integers), no addresses or types;
 * the contents give the integers back as the caller passed them. */
static void check_envelope(MPI_Datatype t, int combiner, int p, int r)
{
    int ni = -1, na = -1, nd = -1, comb = -1;
    MPI_OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    int want_ni = combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2;
    CHECK(comb == combiner && ni == want_ni && na == 0 && nd == 0,
          "f90 type (p %d, r %d): envelope combiner %d (want %d), %d ints (want %d), %d addresses, %d types",
          p, r, comb, combiner, ni, want_ni, na, nd);
    int ints[3] = {-7, -7, -7};
    MPI_Aint addr[1] = {-7};
    MPI_Datatype types[1] = {MPI_DATATYPE_NULL};
    MPI_OK(MPI_Type_get_contents(t, 3, 1, 1, ints, addr, types));
    if (combiner == MPI_COMBINER_F90_INTEGER)
        CHECK(ints[0] == r && ints[1] == -7, "f90_integer(%d): contents %d", r, ints[0]);
    else
        CHECK(ints[0] == p && ints[1] == r && ints[2] == -7, "f90 (p %d, r %d): contents (%d, %d)", p, r,
              ints[0], ints[1]);
    CHECK(addr[0] == -7 && types[0] == MPI_DATATYPE_NULL, "f90 type: contents wrote addresses or types");
    /* exactly the integers: arrays of that size are enough */
    MPI_OK(MPI_Type_get_contents(t, want_ni, 0, 0, ints, NULL, NULL));
#ifdef CREDO_STATS
    MPI_Count lni = -1, lna = -1, lnl = -1, lnd = -1;
    MPI_OK(MPI_Type_get_envelope_c(t, &lni, &lna, &lnl, &lnd, &comb));
    CHECK(comb == combiner && lni == want_ni && lna == 0 && lnl == 0 && lnd == 0,
          "f90 type: MPI_Type_get_envelope_c combiner %d, %lld ints", comb, (long long)lni);
#endif
}

/* Behaves as the named type it maps to: size, bounds, and (credo) a name that says which. */
static void check_like(MPI_Datatype t, MPI_Datatype named, const char *named_name)
{
    MPI_Aint lb, ext, nlb, next, tlb, text;
    CHECK(t != named, "%s: an f90 type is its own handle, not the named type", named_name);
    CHECK(type_size(t) == type_size(named), "size %d of the f90 type, %d of %s", type_size(t), type_size(named),
          named_name);
    MPI_OK(MPI_Type_get_extent(t, &lb, &ext));
    MPI_OK(MPI_Type_get_extent(named, &nlb, &next));
    CHECK(lb == nlb && ext == next, "bounds (%ld, %ld) of the f90 type, (%ld, %ld) of %s", (long)lb, (long)ext,
          (long)nlb, (long)next, named_name);
    MPI_OK(MPI_Type_get_true_extent(t, &tlb, &text));
    CHECK(tlb == 0 && text == next, "true extent (%ld, %ld) of the f90 type like %s", (long)tlb, (long)text,
          named_name);
#ifdef CREDO_STATS
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    MPI_OK(MPI_Type_get_name(t, name, &len));
    size_t n = strlen(named_name);
    CHECK(len == (int)strlen(name) && strncmp(name, named_name, n) == 0 && name[n] == ' ',
          "name \"%s\" of the f90 type does not start with %s", name, named_name);
#endif
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
        check_envelope(t, MPI_COMBINER_F90_REAL, cases[i].p, cases[i].r);
        check_envelope(c, MPI_COMBINER_F90_COMPLEX, cases[i].p, cases[i].r);
        if (cases[i].size == 4) {
            check_like(t, MPI_REAL4, "MPI_REAL4");
            check_like(c, MPI_COMPLEX8, "MPI_COMPLEX8");
        } else {
            check_like(t, MPI_REAL8, "MPI_REAL8");
            check_like(c, MPI_COMPLEX16, "MPI_COMPLEX16");
        }
        /* a handle per distinct (combiner, p, r): the real and the complex differ, every case
         * differs from the others even where they pick the same kind, and a repeat gives the
         * same handle back */
        CHECK(t != c, "(p %d, r %d): the real and the complex are one handle", cases[i].p, cases[i].r);
        for (size_t j = 0; j < i; j++) {
            CHECK(real_of(cases[j].p, cases[j].r) != t, "f90_real(%d, %d) and (%d, %d) are one handle",
                  cases[j].p, cases[j].r, cases[i].p, cases[i].r);
            CHECK(complex_of(cases[j].p, cases[j].r) != c, "f90_complex(%d, %d) and (%d, %d) are one handle",
                  cases[j].p, cases[j].r, cases[i].p, cases[i].r);
        }
        for (int rep = 0; rep < 3; rep++) {
            CHECK(real_of(cases[i].p, cases[i].r) == t, "f90_real(%d, %d) again: another handle", cases[i].p,
                  cases[i].r);
            CHECK(complex_of(cases[i].p, cases[i].r) == c, "f90_complex(%d, %d) again: another handle",
                  cases[i].p, cases[i].r);
        }
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
        MPI_OK(MPI_Type_create_f90_real(LDBL_DIG, u, &t));
        check_envelope(t, MPI_COMBINER_F90_REAL, LDBL_DIG, u);
        check_like(t, MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE");
        MPI_OK(MPI_Type_create_f90_complex(u, ldbl_range, &t));
        check_envelope(t, MPI_COMBINER_F90_COMPLEX, u, ldbl_range);
        check_like(t, MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX");
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
        check_envelope(t, MPI_COMBINER_F90_INTEGER, 0, cases[i].r);
        MPI_Datatype named[16] = {[0] = MPI_INTEGER1, [1] = MPI_INTEGER2, [3] = MPI_INTEGER4, [7] = MPI_INTEGER8,
                                  [15] = MPI_INTEGER16};
        char name[32];
        snprintf(name, sizeof name, "MPI_INTEGER%d", cases[i].size);
        check_like(t, named[cases[i].size - 1], name);
        for (size_t j = 0; j < i; j++)
            CHECK(integer_of(cases[j].r) != t, "f90_integer(%d) and (%d) are one handle", cases[j].r, cases[i].r);
        CHECK(integer_of(cases[i].r) == t, "f90_integer(%d) again: another handle", cases[i].r);
    }
    /* a kind asked for by the integer and the real routines alike: distinct combiners, distinct types */
    CHECK(integer_of(9) != real_of(9, MPI_UNDEFINED), "f90_integer(9) is f90_real(9, -)");
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
    /* still the same handles, still described by their combiner */
    CHECK(real_of(6, MPI_UNDEFINED) == keep[0] && complex_of(15, MPI_UNDEFINED) == keep[1] &&
              integer_of(9) == keep[2], "a refused free changed the handle a repeat gives");
    check_envelope(keep[0], MPI_COMBINER_F90_REAL, 6, MPI_UNDEFINED);
    /* a duplicate is an ordinary derived type: MPI_COMBINER_DUP of the f90 type, and freeable */
    MPI_Datatype dup = MPI_DATATYPE_NULL, inner = MPI_DATATYPE_NULL;
    MPI_OK(MPI_Type_dup(keep[1], &dup));
    int ni, na, nd, comb;
    MPI_OK(MPI_Type_get_envelope(dup, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_DUP && ni == 0 && na == 0 && nd == 1, "dup of an f90 type: combiner %d", comb);
    MPI_OK(MPI_Type_get_contents(dup, 0, 0, 1, NULL, NULL, &inner));
    CHECK(inner == keep[1], "dup of an f90 type: contents name another type");
    CHECK(type_size(dup) == type_size(keep[1]), "dup of an f90 type: size %d", type_size(dup));
    /* the predefined type from get_contents is not freed (it cannot be) */
    MPI_OK(MPI_Type_free(&dup));
    check_envelope(keep[1], MPI_COMBINER_F90_COMPLEX, 15, MPI_UNDEFINED);
    tu_note("MPI_Type_free refuses the f90 types; a duplicate is MPI_COMBINER_DUP of one");
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

    /* the named type's partner accepts the f90 type's message, and the reverse (type matching is
     * by the Fortran kind) */
    double dnamed[N];
    MPI_OK(MPI_Sendrecv(ds, N, td, to, 7, dnamed, N, MPI_REAL8, from, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Sendrecv(ds, N, MPI_REAL8, to, 8, dr, N, td, from, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < N; i++)
        CHECK(dnamed[i] == dr[i] && dr[i] == (1.0 + from) * 1e300 / (double)(i + 1), "f90/REAL8 transfer[%d]", i);

    /* external32: the same bytes as the named type's */
    char xa[8 * N], xb[8 * N];
    MPI_Aint pa = 0, pb = 0, xs = -1;
    MPI_OK(MPI_Pack_external_size("external32", N, td, &xs));
    CHECK(xs == 8 * N, "external32 size of %d f90 reals: %ld", N, (long)xs);
    MPI_OK(MPI_Pack_external("external32", ds, N, td, xa, sizeof xa, &pa));
    MPI_OK(MPI_Pack_external("external32", ds, N, MPI_REAL8, xb, sizeof xb, &pb));
    CHECK(pa == pb && memcmp(xa, xb, (size_t)pa) == 0, "external32 of the f90 real differs from MPI_REAL8's");
    MPI_Aint pi = 0;
    char xi[4 * N];
    MPI_OK(MPI_Pack_external("external32", is, N, ti, xi, sizeof xi, &pi));
    CHECK(pi == 4 * N && (unsigned char)xi[0] == (unsigned)((uint32_t)is[0] >> 24), "external32 of f90_integer(9)");
    int32_t iback[N];
    pi = 0;
    MPI_OK(MPI_Unpack_external("external32", xi, sizeof xi, &pi, iback, N, ti));
    CHECK(memcmp(iback, is, sizeof is) == 0, "external32 round trip of f90_integer(9)");
    tu_note("transfers, reductions and external32 with the f90 types between %d ranks", size);
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
