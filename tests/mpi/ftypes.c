/* tests/mpi/ftypes.c — Fortran's named datatypes used from C: sizes, names, a transfer, and the
 * reductions on them (SUM on INTEGER and DOUBLE COMPLEX, LAND on LOGICAL, MAX on REAL8; SUM, MIN
 * and BXOR on INTEGER16 beyond 64 bits, and its external32 form). np 2. */
#include <complex.h>

#include "testutil.h"

static void expect_type(MPI_Datatype t, int size, const char *name) {
    int s = -1, len = 0;
    char got[MPI_MAX_OBJECT_NAME];
    MPI_OK(MPI_Type_size(t, &s));
    MPI_OK(MPI_Type_get_name(t, got, &len));
    CHECK(s == size && strcmp(got, name) == 0, "%s: size %d, name %s", name, s, got);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    expect_type(MPI_INTEGER, 4, "MPI_INTEGER");
    expect_type(MPI_LOGICAL, 4, "MPI_LOGICAL");
    expect_type(MPI_CHARACTER, 1, "MPI_CHARACTER");
    expect_type(MPI_REAL, 4, "MPI_REAL");
    expect_type(MPI_DOUBLE_PRECISION, 8, "MPI_DOUBLE_PRECISION");
    expect_type(MPI_COMPLEX, 8, "MPI_COMPLEX");
    expect_type(MPI_DOUBLE_COMPLEX, 16, "MPI_DOUBLE_COMPLEX");
    expect_type(MPI_INTEGER1, 1, "MPI_INTEGER1");
    expect_type(MPI_INTEGER2, 2, "MPI_INTEGER2");
    expect_type(MPI_INTEGER4, 4, "MPI_INTEGER4");
    expect_type(MPI_INTEGER8, 8, "MPI_INTEGER8");
    expect_type(MPI_REAL4, 4, "MPI_REAL4");
    expect_type(MPI_REAL8, 8, "MPI_REAL8");
    expect_type(MPI_COMPLEX8, 8, "MPI_COMPLEX8");
    expect_type(MPI_COMPLEX16, 16, "MPI_COMPLEX16");
    expect_type(MPI_INTEGER16, 16, "MPI_INTEGER16");
    CHECK(MPI_REAL16 == MPI_DATATYPE_NULL && MPI_COMPLEX32 == MPI_DATATYPE_NULL,
          "REAL16/COMPLEX32 should be MPI_DATATYPE_NULL here");

    /* values whose bit patterns are not small denormals: added as floats they would not sum */
    int one = (1 << 24) + rank, sum = 0;
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == size * (1 << 24) + size * (size - 1) / 2, "SUM on MPI_INTEGER: %d", sum);
    double complex z = (rank + 1) + 2.0 * I * rank, zs = 0;
    MPI_OK(MPI_Allreduce(&z, &zs, 1, MPI_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
    CHECK(creal(zs) == size * (size + 1) / 2.0 && cimag(zs) == size * (size - 1.0),
          "SUM on MPI_DOUBLE_COMPLEX: %g%+gi", creal(zs), cimag(zs));
    int t = 1, all = 0, f = rank == 0 ? 0 : 1, some = 1;
    MPI_OK(MPI_Allreduce(&t, &all, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD));
    MPI_OK(MPI_Allreduce(&f, &some, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD));
    CHECK(all == 1 && some == 0, "LAND on MPI_LOGICAL: %d %d", all, some);
    /* INTEGER16: sums and comparisons past 2^64 (a 64-bit kernel would lose the high half) */
    __extension__ typedef __int128 i128;
    i128 big = ((i128)1 << 100) + ((i128)(rank + 1) << 64) + rank, bsum = 0, bmin = 0, bx = 0;
    MPI_OK(MPI_Allreduce(&big, &bsum, 1, MPI_INTEGER16, MPI_SUM, MPI_COMM_WORLD));
    i128 want = ((i128)size << 100) + ((i128)(size * (size + 1) / 2) << 64) + size * (size - 1) / 2;
    CHECK(bsum == want, "SUM on MPI_INTEGER16: high %llx low %llx", (unsigned long long)(bsum >> 64),
          (unsigned long long)bsum);
    i128 neg = -((i128)(rank + 1) << 70);
    MPI_OK(MPI_Allreduce(&neg, &bmin, 1, MPI_INTEGER16, MPI_MIN, MPI_COMM_WORLD));
    CHECK(bmin == -((i128)size << 70), "MIN on MPI_INTEGER16: high %llx", (unsigned long long)(bmin >> 64));
    i128 bit = (i128)1 << (100 + rank);
    MPI_OK(MPI_Allreduce(&bit, &bx, 1, MPI_INTEGER16, MPI_BXOR, MPI_COMM_WORLD));
    CHECK(bx == ((i128)1 << 100 | (i128)1 << 101) || size != 2, "BXOR on MPI_INTEGER16");
    /* external32: 16 big-endian bytes, and back */
    unsigned char ext[16];
    MPI_Aint pos = 0, xsize = 0;
    MPI_OK(MPI_Pack_external_size("external32", 1, MPI_INTEGER16, &xsize));
    CHECK(xsize == 16, "external32 size of MPI_INTEGER16: %ld", (long)xsize);
    MPI_OK(MPI_Pack_external("external32", &neg, 1, MPI_INTEGER16, ext, sizeof ext, &pos));
    CHECK(pos == 16 && ext[0] == 0xff && ext[15] == 0 && ext[7] == (unsigned char)(0x100 - 0x40 * (rank + 1)),
          "external32 of MPI_INTEGER16: %02x .. %02x %02x", ext[0], ext[7], ext[15]);
    i128 back = 0;
    pos = 0;
    MPI_OK(MPI_Unpack_external("external32", ext, sizeof ext, &pos, &back, 1, MPI_INTEGER16));
    CHECK(back == neg, "MPI_INTEGER16 did not survive external32");
    int f90 = 0;
    MPI_Datatype k38;
    MPI_OK(MPI_Type_create_f90_integer(38, &k38));
    MPI_OK(MPI_Type_size(k38, &f90));
    CHECK(f90 == 16, "SELECTED_INT_KIND(38): %d bytes, not MPI_INTEGER16's 16", f90);
    /* its own handle (MPI_COMBINER_F90_INTEGER), with MPI_INTEGER16's data and reductions */
    i128 k38min = 0;
    MPI_OK(MPI_Allreduce(&neg, &k38min, 1, k38, MPI_MIN, MPI_COMM_WORLD));
    CHECK(k38min == bmin, "MIN on f90_integer(38)");
    double m = rank * 1.5, mx = -1;
    MPI_OK(MPI_Allreduce(&m, &mx, 1, MPI_REAL8, MPI_MAX, MPI_COMM_WORLD));
    CHECK(mx == (size - 1) * 1.5, "MAX on MPI_REAL8: %g", mx);

    float r[4] = {0}, w[4] = {1.5f, 2.5f, 3.5f, 4.5f};
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_OK(MPI_Sendrecv(w, 4, MPI_REAL, peer, 0, r, 4, MPI_REAL, from, 0, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
    CHECK(r[0] == 1.5f && r[3] == 4.5f, "MPI_REAL transfer: %g %g", r[0], r[3]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("ftypes: OK\n");
    MPI_Finalize();
    return 0;
}
