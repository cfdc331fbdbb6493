/* tests/mpi/exchange.c — every rank sends 2 KB to every other rank with blocking MPI_Send before it
 * receives: unsafe in MPI terms but common; flow control must not turn it into a deadlock. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static char sbuf[2048], rbuf[2048];
    for (int it = 0; it < 100; it++) {
        for (int p = 0; p < size; p++)
            if (p != rank) {
                memset(sbuf, (char)(rank * 7 + p + it), sizeof sbuf);
                MPI_OK(MPI_Send(sbuf, (int)sizeof sbuf, MPI_BYTE, p, it, MPI_COMM_WORLD));
            }
        for (int p = 0; p < size; p++)
            if (p != rank) {
                MPI_OK(MPI_Recv(rbuf, (int)sizeof rbuf, MPI_BYTE, p, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                for (size_t i = 0; i < sizeof rbuf; i++)
                    CHECK(rbuf[i] == (char)(p * 7 + rank + it), "exchange %d from %d: byte %zu", it, p, i);
            }
    }
    tu_note("exchange: %d ranks sent before receiving, 100 rounds of 2 KB, no deadlock", size);
    MPI_Finalize();
    return 0;
}
