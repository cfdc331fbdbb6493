/* tests/coll_mpi/commfree.c — communicators freed while requests on them are pending stay alive
 * until the requests finish (dup and split, 50 rounds; kept from the scratch tests). */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
    int rank, size, fails = 0; MPI_Init(&argc, &argv); MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int it = 0; it < 50; it++) {
        MPI_Comm c; MPI_Comm_dup(MPI_COMM_WORLD, &c);
        int in = -1, out = rank; MPI_Request r[2]; MPI_Status st[2];
        MPI_Irecv(&in, 1, MPI_INT, (rank + size - 1) % size, 0, c, &r[0]);
        MPI_Isend(&out, 1, MPI_INT, (rank + 1) % size, 0, c, &r[1]);
        MPI_Comm_free(&c);                  /* pending operations keep it alive */
        MPI_Waitall(2, r, st);
        if (in != (rank + size - 1) % size || st[0].MPI_SOURCE != in) fails++;
        MPI_Comm s; MPI_Comm_split(MPI_COMM_WORLD, it % 2 ? MPI_UNDEFINED : rank % 2, rank, &s);
        if (s != MPI_COMM_NULL) { int me; MPI_Comm_rank(s, &me); MPI_Request q, q2; MPI_Status qs;
            MPI_Irecv(&in, 1, MPI_INT, me, 9, s, &q); MPI_Isend(&it, 1, MPI_INT, me, 9, s, &q2); MPI_Comm_free(&s);
            MPI_Request_free(&q2); MPI_Wait(&q, &qs); if (in != it || qs.MPI_SOURCE != me) fails++; }
    }
    int tot; MPI_Allreduce(&fails, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("t3: %s\n", tot ? "FAIL" : "all ok");
    MPI_Finalize(); return tot != 0;
}
