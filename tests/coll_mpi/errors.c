/* tests/coll_mpi/errors.c — argument checks of the collectives: each misuse returns its error
 * class under MPI_ERRORS_RETURN (root, op, count, buffer aliasing, in-place misuse, request). */
#include "cmtest.h"

static void expect(int rc, int cls, const char *what)
{
    int c = -1;
    MPI_Error_class(rc, &c);
    CHECK(c == cls, "%s: class %d, want %d", what, c, cls);
}

int main(int argc, char **argv)
{
    int me, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm c;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    int x[8] = {0}, y[8] = {0}, cnt[64], dsp[64];
    MPI_Request rq;
    for (int i = 0; i < np; i++)
        cnt[i] = 1, dsp[i] = i;
    expect(MPI_Bcast(x, 1, MPI_INT, np, c), MPI_ERR_ROOT, "Bcast root np");
    expect(MPI_Bcast(x, 1, MPI_INT, -1, c), MPI_ERR_ROOT, "Bcast root -1");
    expect(MPI_Reduce(x, y, 1, MPI_INT, MPI_SUM, np, c), MPI_ERR_ROOT, "Reduce root");
    expect(MPI_Gather(x, 1, MPI_INT, y, 1, MPI_INT, np + 3, c), MPI_ERR_ROOT, "Gather root");
    expect(MPI_Iscatter(x, 1, MPI_INT, y, 1, MPI_INT, -2, c, &rq), MPI_ERR_ROOT, "Iscatter root");
    expect(MPI_Allreduce(x, y, 1, MPI_FLOAT, MPI_BAND, c), MPI_ERR_OP, "BAND on FLOAT");
    expect(MPI_Allreduce(x, y, 1, MPI_INT, MPI_OP_NULL, c), MPI_ERR_OP, "MPI_OP_NULL");
    expect(MPI_Iallreduce(x, y, 1, MPI_DOUBLE, MPI_MAXLOC, c, &rq), MPI_ERR_OP, "MAXLOC on DOUBLE");
    expect(MPI_Allreduce(x, y, -1, MPI_INT, MPI_SUM, c), MPI_ERR_COUNT, "count -1");
    expect(MPI_Bcast(x, -3, MPI_INT, 0, c), MPI_ERR_COUNT, "Bcast count -3");
    cnt[np - 1] = -1;
    expect(MPI_Allgatherv(x, 1, MPI_INT, y, cnt, dsp, MPI_INT, c), MPI_ERR_COUNT,
           "Allgatherv negative count");
    cnt[np - 1] = 1;
    expect(MPI_Allreduce(x, x, 1, MPI_INT, MPI_SUM, c), MPI_ERR_BUFFER, "Allreduce aliasing");
    expect(MPI_Alltoall(x, 1, MPI_INT, x, 1, MPI_INT, c), MPI_ERR_BUFFER, "Alltoall aliasing");
    expect(MPI_Bcast(NULL, 2, MPI_INT, 0, c), MPI_ERR_BUFFER, "Bcast NULL buffer");
    if (np > 1)
        expect(MPI_Reduce(MPI_IN_PLACE, y, 1, MPI_INT, MPI_SUM, (me + 1) % np, c),
               MPI_ERR_BUFFER, "Reduce MPI_IN_PLACE at a non-root");
    expect(MPI_Bcast(x, 1, MPI_DATATYPE_NULL, 0, c), MPI_ERR_TYPE, "Bcast null type");
    expect(MPI_Ibarrier(c, NULL), MPI_ERR_REQUEST, "Ibarrier NULL request");
    /* The v-forms' schedules hold byte counts and displacements as ints: a block at 4 GiB, or of
     * 4 GiB, is refused (the buffers are small: any access would be out of bounds). */
    MPI_Datatype mib, gib4;
    OK(MPI_Type_contiguous(1 << 20, MPI_BYTE, &mib));
    OK(MPI_Type_commit(&mib));
    OK(MPI_Type_contiguous(4096, mib, &gib4));
    OK(MPI_Type_commit(&gib4));
    int zc[64] = {0}, far[64];
    for (int i = 0; i < np; i++)
        far[i] = 4096 + i;
    expect(MPI_Alltoallv(x, cnt, far, mib, y, cnt, dsp, mib, c), MPI_ERR_COUNT,
           "Alltoallv send displacement of 4 GiB");
    expect(MPI_Alltoallv(x, cnt, dsp, gib4, y, cnt, dsp, gib4, c), MPI_ERR_COUNT,
           "Alltoallv blocks of 4 GiB");
    expect(MPI_Allgatherv(x, 1, mib, y, cnt, far, mib, c), MPI_ERR_COUNT,
           "Allgatherv receive displacement of 4 GiB");
    /* empty blocks far away are fine: nothing is moved */
    OK(MPI_Alltoallv(x, zc, far, mib, y, zc, far, mib, c));
    OK(MPI_Type_free(&gib4));
    OK(MPI_Type_free(&mib));
    /* The communicator still works after the failed calls (none of them started a schedule). */
    x[0] = me;
    OK(MPI_Allreduce(x, y, 1, MPI_INT, MPI_SUM, c));
    CHECK(y[0] == np * (np - 1) / 2, "Allreduce after errors");
    OK(MPI_Comm_free(&c));
    if (me == 0)
        printf("coll_mpi errors: np %d ok\n", np);
    MPI_Finalize();
    return 0;
}
