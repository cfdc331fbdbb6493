/* tests/p2p/shm_crash.c — a job that ends badly right after start-up, for shm_leftovers.sh: one rank
 * calls MPI_Abort or dies of SIGSEGV as soon as MPI_Init returns, while the others may still be in
 * the last steps of theirs; the launcher then kills them wherever they are.
 * usage: shm_crash abort|segv RANK */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "abort") != 0 && strcmp(argv[1], "segv") != 0)) {
        fprintf(stderr, "usage: shm_crash abort|segv RANK\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == atoi(argv[2])) {
        if (argv[1][0] == 'a')
            MPI_Abort(MPI_COMM_WORLD, 3);
        signal(SIGSEGV, SIG_DFL);
        raise(SIGSEGV);
    }
    /* The others wait to be killed (a barrier would make them leave MPI_Init in step). */
    sleep(30);
    MPI_Finalize();
    return 0;
}
