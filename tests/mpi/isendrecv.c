/* tests/mpi/isendrecv.c — MPI-4 MPI_Isendrecv and MPI_Isendrecv_replace: ring shifts with eager
 * and rendezvous sizes, contiguous and strided types, several outstanding at once, wildcards and
 * MPI_PROC_NULL, the status of the receive, and argument errors. np >= 2. */
#include "testutil.h"

static int rank, size, right, left;

static int value(int from, int i, int salt) { return from * 100000 + salt * 1000 + i; }

static void check_ring(int n, int salt) {
    int *out = malloc((size_t)n * sizeof(int)), *in = malloc((size_t)n * sizeof(int));
    CHECK(out && in, "out of memory");
    for (int i = 0; i < n; i++) {
        out[i] = value(rank, i, salt);
        in[i] = -1;
    }
    MPI_Request r;
    MPI_Status st;
    MPI_OK(MPI_Isendrecv(out, n, MPI_INT, right, salt, in, n, MPI_INT, MPI_ANY_SOURCE, salt,
                         MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Wait(&r, &st));
    int count = -1;
    MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == salt && count == n,
          "isendrecv of %d: source %d tag %d count %d", n, st.MPI_SOURCE, st.MPI_TAG, count);
    for (int i = 0; i < n; i++)
        CHECK(in[i] == value(left, i, salt), "isendrecv of %d: element %d is %d", n, i, in[i]);
    /* replace: the buffer goes right and comes back from the left */
    MPI_OK(MPI_Isendrecv_replace(out, n, MPI_INT, right, salt + 1, left, salt + 1, MPI_COMM_WORLD,
                                 &r));
    MPI_OK(MPI_Wait(&r, &st));
    for (int i = 0; i < n; i++)
        CHECK(out[i] == value(left, i, salt), "isendrecv_replace of %d: element %d is %d", n, i,
              out[i]);
    free(out);
    free(in);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "needs at least 2 processes");
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    check_ring(1, 1);
    check_ring(100, 2);        /* eager */
    check_ring(300000, 3);     /* rendezvous */

    /* strided types: every other int of 8 sent, received into every third of 12 */
    MPI_Datatype s2, s3;
    MPI_OK(MPI_Type_vector(4, 1, 2, MPI_INT, &s2));
    MPI_OK(MPI_Type_vector(4, 1, 3, MPI_INT, &s3));
    MPI_OK(MPI_Type_commit(&s2));
    MPI_OK(MPI_Type_commit(&s3));
    int a[8], b[12];
    for (int i = 0; i < 8; i++)
        a[i] = value(rank, i, 4);
    for (int i = 0; i < 12; i++)
        b[i] = -7;
    MPI_Request r[3];
    MPI_OK(MPI_Isendrecv(a, 1, s2, right, 5, b, 1, s3, left, 5, MPI_COMM_WORLD, &r[0]));
    MPI_OK(MPI_Type_free(&s3)); /* the pending receive keeps it */
    MPI_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    for (int i = 0; i < 12; i++)
        CHECK(b[i] == (i % 3 == 0 ? value(left, 2 * (i / 3), 4) : -7),
              "strided isendrecv: b[%d] = %d", i, b[i]);
    /* replace with a strided type: only the strided ints move */
    MPI_OK(MPI_Isendrecv_replace(a, 1, s2, right, 6, left, 6, MPI_COMM_WORLD, &r[0]));
    MPI_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    for (int i = 0; i < 8; i++)
        CHECK(a[i] == value(i % 2 ? rank : left, i, 4), "strided replace: a[%d] = %d", i, a[i]);
    MPI_OK(MPI_Type_free(&s2));

    /* several at once, both directions, completed by Waitall in any order */
    int o1 = rank, o2 = -rank, i1 = -1, i2 = -1, o3 = 3 * rank, i3 = -1;
    MPI_OK(MPI_Isendrecv(&o1, 1, MPI_INT, right, 7, &i1, 1, MPI_INT, left, 7, MPI_COMM_WORLD,
                         &r[0]));
    MPI_OK(MPI_Isendrecv(&o2, 1, MPI_INT, left, 8, &i2, 1, MPI_INT, right, 8, MPI_COMM_WORLD,
                         &r[1]));
    MPI_OK(MPI_Isendrecv(&o3, 1, MPI_INT, right, 9, &i3, 1, MPI_INT, left, 9, MPI_COMM_WORLD,
                         &r[2]));
    MPI_OK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
    CHECK(i1 == left && i2 == -right && i3 == 3 * left, "three at once: %d %d %d", i1, i2, i3);

    /* MPI_PROC_NULL on either side */
    MPI_Status st;
    i1 = -1;
    MPI_OK(MPI_Isendrecv(&o1, 1, MPI_INT, MPI_PROC_NULL, 10, &i1, 1, MPI_INT, MPI_PROC_NULL, 10,
                         MPI_COMM_WORLD, &r[0]));
    MPI_OK(MPI_Wait(&r[0], &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && i1 == -1, "PROC_NULL both: source %d, buffer %d",
          st.MPI_SOURCE, i1);
    MPI_OK(MPI_Isendrecv(&o1, 1, MPI_INT, right, 11, &i1, 1, MPI_INT, MPI_PROC_NULL, 11,
                         MPI_COMM_WORLD, &r[0]));
    MPI_OK(MPI_Recv(&i2, 1, MPI_INT, left, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&r[0], &st));
    CHECK(i2 == left && st.MPI_SOURCE == MPI_PROC_NULL, "PROC_NULL source: got %d, source %d", i2,
          st.MPI_SOURCE);

    /* errors */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int cls = -1;
    MPI_Error_class(MPI_Isendrecv(&o1, 1, MPI_INT, size, 0, &i1, 1, MPI_INT, left, 0,
                                  MPI_COMM_WORLD, &r[0]),
                    &cls);
    CHECK(cls == MPI_ERR_RANK, "dest = size gave class %d", cls);
    MPI_Error_class(MPI_Isendrecv(&o1, 1, MPI_INT, right, 0, &i1, -1, MPI_INT, left, 0,
                                  MPI_COMM_WORLD, &r[0]),
                    &cls);
    CHECK(cls == MPI_ERR_COUNT, "recvcount -1 gave class %d", cls);
    MPI_Error_class(MPI_Isendrecv_replace(&o1, 1, MPI_INT, right, 0, left, 0, MPI_COMM_WORLD,
                                          NULL),
                    &cls);
    CHECK(cls == MPI_ERR_REQUEST, "NULL request gave class %d", cls);

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("isendrecv: OK (%d processes)\n", size);
    MPI_Finalize();
    return 0;
}
