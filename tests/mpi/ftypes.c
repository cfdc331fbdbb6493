/* tests/mpi/ftypes.c — Fortran's named datatypes used from C: sizes, names, a transfer, and the
 * reductions on them (SUM on INTEGER and DOUBLE COMPLEX, LAND on LOGICAL, MAX on REAL8). np 2. */
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
