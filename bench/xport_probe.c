/* xport_probe.c — prints which transport carries rank 0's traffic to rank 1, for side_by_side.sh --net:
 * "transport ofi" (or shm, self) with a credo that has credo_peer_transport (credo/stats.h), otherwise
 * "transport unknown". Built with credo's mpicc only; a network-mode column whose probe does not say
 * "ofi" is left out instead of reporting shared-memory numbers as network ones. */
#include <mpi.h>
#include <stdio.h>
#if defined(__has_include)
#if __has_include(<credo/stats.h>)
#include <credo/stats.h>
#endif
#endif

int main(int argc, char **argv)
{
    int rank = 0, size = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        char name[32] = "unknown";
#ifdef CREDO_HAVE_PEER_TRANSPORT
        if (size < 2 || credo_peer_transport(1, name, sizeof name) != 0)
            snprintf(name, sizeof name, "unknown");
#endif
        printf("transport %s\n", name);
        fflush(stdout);
    }
    /* One message each way, so a transport that fails only on first contact fails here. */
    int v = rank;
    if (size >= 2 && rank < 2)
        MPI_Sendrecv_replace(&v, 1, MPI_INT, 1 - rank, 0, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
