/* tests/coll_mpi/conformance.c — collective rules found by running MPICH's test suite against credo:
 * arguments MPI_IN_PLACE makes insignificant are never read, and freeing a user op (or a derived
 * type) while a non-blocking reduction still uses it only marks it for deallocation. */
#include <stdint.h>

#include "cmtest.h"

static int rank, size;

/* MPI 3.1 5.5-5.7: with MPI_IN_PLACE the send (Gatherv at the root, Allgatherv) or receive
 * (Scatterv at the root) count and datatype are ignored; MPICH's tests pass -1 and
 * MPI_DATATYPE_NULL there. */
static void test_in_place_ignores_count_and_type(void)
{
    int cnt[64], dis[64], buf[64], mine;
    MPI_Request req;
    for (int i = 0; i < size; i++) {
        cnt[i] = 1;
        dis[i] = size - 1 - i; /* reversed, so a block written to the wrong place shows */
    }
    for (int nb = 0; nb < 2; nb++) {
        for (int i = 0; i < size; i++)
            buf[i] = i == dis[rank] ? 100 + rank : -1;
        if (nb) {
            OK(MPI_Iallgatherv(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, buf, cnt, dis, MPI_INT, MPI_COMM_WORLD, &req));
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            OK(MPI_Allgatherv(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, buf, cnt, dis, MPI_INT, MPI_COMM_WORLD));
        }
        for (int i = 0; i < size; i++)
            CHECK(buf[dis[i]] == 100 + i, "allgatherv (nb %d): block of rank %d is %d", nb, i, buf[dis[i]]);

        int root = size - 1;
        mine = 200 + rank;
        for (int i = 0; i < size; i++)
            buf[i] = rank == root && i == dis[root] ? 200 + root : -1;
        if (rank == root) {
            if (nb) {
                OK(MPI_Igatherv(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, buf, cnt, dis, MPI_INT, root, MPI_COMM_WORLD,
                                &req));
                OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            } else {
                OK(MPI_Gatherv(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, buf, cnt, dis, MPI_INT, root, MPI_COMM_WORLD));
            }
            for (int i = 0; i < size; i++)
                CHECK(buf[dis[i]] == 200 + i, "gatherv (nb %d): block of rank %d is %d", nb, i, buf[dis[i]]);
        } else if (nb) {
            OK(MPI_Igatherv(&mine, 1, MPI_INT, NULL, NULL, NULL, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD, &req));
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            OK(MPI_Gatherv(&mine, 1, MPI_INT, NULL, NULL, NULL, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD));
        }

        root = 0;
        for (int i = 0; i < size; i++)
            buf[i] = 300 + i;
        mine = -1;
        if (rank == root) {
            if (nb) {
                OK(MPI_Iscatterv(buf, cnt, dis, MPI_INT, MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD,
                                 &req));
                OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            } else {
                OK(MPI_Scatterv(buf, cnt, dis, MPI_INT, MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD));
            }
            CHECK(buf[dis[root]] == 300 + dis[root], "scatterv (nb %d): the root's own block changed", nb);
        } else {
            if (nb) {
                OK(MPI_Iscatterv(NULL, NULL, NULL, MPI_DATATYPE_NULL, &mine, 1, MPI_INT, root, MPI_COMM_WORLD, &req));
                OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            } else {
                OK(MPI_Scatterv(NULL, NULL, NULL, MPI_DATATYPE_NULL, &mine, 1, MPI_INT, root, MPI_COMM_WORLD));
            }
            CHECK(mine == 300 + dis[rank], "scatterv (nb %d): got %d, expected %d", nb, mine, 300 + dis[rank]);
        }
    }
}

static void sum_int(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

/* MPI 3.1 5.9.5 and 2.5.1: MPI_Op_free (and MPI_Type_free) only mark the object for deallocation;
 * a non-blocking reduction that uses it completes normally. Fresh allocations between the free and
 * the wait take the freed memory if the op or type were really gone (ASan reports the use). */
static void test_free_op_and_type_while_pending(void)
{
    enum { N = 10 };
    int in[N], out[N], scan_out[N], red_out[N];
    for (int iter = 0; iter < 20; iter++) {
        MPI_Op op;
        MPI_Datatype t;
        MPI_Request req[3];
        OK(MPI_Op_create(sum_int, 1, &op));
        OK(MPI_Type_contiguous(1, MPI_INT, &t));
        OK(MPI_Type_commit(&t));
        for (int i = 0; i < N; i++) {
            in[i] = rank + i;
            out[i] = scan_out[i] = red_out[i] = -1;
        }
        OK(MPI_Iallreduce(in, out, N, t, op, MPI_COMM_WORLD, &req[0]));
        OK(MPI_Iscan(in, scan_out, N, MPI_INT, op, MPI_COMM_WORLD, &req[1]));
        OK(MPI_Ireduce(in, red_out, N, t, op, 0, MPI_COMM_WORLD, &req[2]));
        OK(MPI_Op_free(&op));
        OK(MPI_Type_free(&t));
        CHECK(op == MPI_OP_NULL && t == MPI_DATATYPE_NULL, "the handles were not set to null");
        MPI_Op junk_op;
        OK(MPI_Op_create(sum_int, 0, &junk_op));
        void *junk[8];
        for (int k = 0; k < 8; k++) {
            junk[k] = malloc(64);
            memset(junk[k], 0x5a, 64);
        }
        OK(MPI_Waitall(3, req, MPI_STATUSES_IGNORE));
        for (int k = 0; k < 8; k++)
            free(junk[k]);
        OK(MPI_Op_free(&junk_op));
        for (int i = 0; i < N; i++) {
            CHECK(out[i] == size * (size - 1) / 2 + size * i, "iter %d: allreduce[%d] = %d", iter, i, out[i]);
            CHECK(scan_out[i] == rank * (rank + 1) / 2 + (rank + 1) * i, "iter %d: scan[%d] = %d", iter, i,
                  scan_out[i]);
            if (rank == 0)
                CHECK(red_out[i] == out[i], "iter %d: reduce[%d] = %d", iter, i, red_out[i]);
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= 64, "at most 64 ranks");
    test_in_place_ignores_count_and_type();
    test_free_op_and_type_while_pending();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("coll conformance: ok (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}
