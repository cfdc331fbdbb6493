/* tests/mpi/errors_fatal.c — the default error handler: an invalid rank in MPI_Send (or, with the
 * argument "start", MPI_Start of an active persistent request) must abort the whole job. Run
 * through expect_fatal.sh, which checks the exit code and the error message. */
#include "testutil.h"

/* Rank 1 (rank 0 when alone) makes the bad call; the others wait in a barrier that can only end
 * if the job is torn down, so a launcher that does not kill the survivors shows up as a timeout. */
int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int culprit = size > 1 ? 1 : 0;
    if (rank == culprit && argc > 1 && strcmp(argv[1], "start") == 0) {
        int v = 0;
        MPI_Request rq;
        MPI_Recv_init(&v, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, &rq);
        MPI_Start(&rq);
        printf("rank %d: starting an active persistent request with MPI_ERRORS_ARE_FATAL\n", rank);
        fflush(stdout);
        int rc = MPI_Start(&rq);
        printf("NOT FATAL: the second MPI_Start returned %d\n", rc);
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank == culprit) {
        int v = 0;
        printf("rank %d: calling MPI_Send to rank %d of %d with MPI_ERRORS_ARE_FATAL\n", rank,
               size + 3, size);
        fflush(stdout);
        int rc = MPI_Send(&v, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD);
        /* Reached only if the error was not fatal; expect_fatal.sh looks for this marker. */
        printf("NOT FATAL: the invalid send returned %d\n", rc);
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    printf("NOT FATAL: rank %d left the barrier\n", rank);
    MPI_Finalize();
    return 0;
}
