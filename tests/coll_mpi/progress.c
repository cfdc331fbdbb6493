/* tests/coll_mpi/progress.c — the progress thread (CREDO_PROGRESS_THREAD=1): a non-blocking
 * collective completes while a rank it depends on computes without calling MPI. */
#include <time.h>

#include "cmtest.h"

/* Rank 2 must forward rank 0's binomial broadcast to rank 3 (np = 4: 0 -> 2 -> 3). Rank 2 posts
 * an Irecv for a flag from rank 3 and the Ibcast, then spins on the flag's buffer without any MPI
 * call. Rank 3 sends the flag only after its Ibcast completed, which needs rank 2's forward: so
 * the flag arrives only if rank 2's progress thread both forwarded the broadcast and matched the
 * flag. The wall-clock bound only turns a missing progress thread into a failure, not a hang. */
int main(int argc, char **argv)
{
    int me, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    CHECK(np == 4, "run with 4 ranks");
    int data[16], flag_buf[1] = {0};
    for (int i = 0; i < 16; i++)
        data[i] = me == 0 ? 1000 + i : -1;
    MPI_Request bc, fr;
    if (me == 2)
        OK(MPI_Irecv(flag_buf, 1, MPI_INT, 3, 9, MPI_COMM_WORLD, &fr));
    OK(MPI_Ibcast(data, 16, MPI_INT, 0, MPI_COMM_WORLD, &bc));
    if (me == 2) {
        volatile int *f = flag_buf;
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        double x = 1.0;
        long spins = 0;
        do {
            for (int k = 0; k < 10000; k++)
                x = x * 1.0000001 + 1e-9; /* "compute" */
            spins++;
            clock_gettime(CLOCK_MONOTONIC, &t);
        } while (*f != 4242 && t.tv_sec - t0.tv_sec < 60);
        CHECK(*f == 4242, "flag not delivered while computing (%ld rounds, x %g): no progress",
              spins, x);
        OK(MPI_Wait(&fr, MPI_STATUS_IGNORE));
    }
    OK(MPI_Wait(&bc, MPI_STATUS_IGNORE));
    for (int i = 0; i < 16; i++)
        CHECK(data[i] == 1000 + i, "Ibcast data %d", i);
    if (me == 3) {
        int flag = 4242;
        OK(MPI_Send(&flag, 1, MPI_INT, 2, 9, MPI_COMM_WORLD));
    }
    /* Ordinary traffic under the lock, then overlap of a non-blocking reduction with compute. */
    int v = me, s = -1;
    MPI_Request ar;
    OK(MPI_Iallreduce(&v, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &ar));
    OK(MPI_Wait(&ar, MPI_STATUS_IGNORE));
    CHECK(s == 6, "Iallreduce %d", s);
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0)
        printf("coll_mpi progress: ok\n");
    MPI_Finalize();
    return 0;
}
