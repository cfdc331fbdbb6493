/* tests/mpi/answer_credits.c — a receiver that floods its sender with small messages the sender has
 * not received yet, while a large message from that sender is under way, still lets the large send
 * complete: the sender's wait returns the flood's held credits, so the answers its send waits for
 * (FIN, CTS, pipelined-copy acknowledgements) can be written. np 2. Each round starts with a small
 * "go" message from the sender: it carries the credit the sender still owed (the barrier's slot), so
 * the RTS carries none and the answer cannot live on it (without "go", a lone FIN got through on
 * that credit even without the rule). */
#include "testutil.h"

enum { FLOOD = 3000 };

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "answer_credits needs 2 ranks");
    static const size_t sizes[] = {4 << 20, 300000, 1 << 20};
    int *small = tu_xmalloc(sizeof(int) * FLOOD);
    MPI_Request *rq = tu_xmalloc(sizeof(MPI_Request) * FLOOD);
    /* order 0: the receive is posted before the flood (the answers come after it); order 1: after
     * it (the rendezvous request is matched, and answered, only once the flood is out) */
    for (int round = 0; round < 6; round++) {
        int i = round % 3, flood_first = round / 3;
        size_t n = sizes[i];
        char *buf = tu_xmalloc(n);
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 0) {
            tu_fill(buf, n, rank, 70u + (unsigned)round);
            int go = round;
            MPI_OK(MPI_Send(&go, 1, MPI_INT, 1, 3, MPI_COMM_WORLD));
            MPI_Request big;
            MPI_OK(MPI_Isend(buf, (int)n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &big));
            /* Legal: the matching receive is posted; the flood is received only afterwards. */
            MPI_OK(MPI_Wait(&big, MPI_STATUS_IGNORE));
            for (int k = 0; k < FLOOD; k++) {
                MPI_OK(MPI_Recv(&small[k], 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                CHECK(small[k] == k, "flood message %d carried %d", k, small[k]);
            }
        } else {
            MPI_Request big;
            int go = -1;
            MPI_OK(MPI_Recv(&go, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(go == round, "go message %d in round %d", go, round);
            if (!flood_first)
                MPI_OK(MPI_Irecv(buf, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &big));
            for (int k = 0; k < FLOOD; k++) {
                small[k] = k;
                MPI_OK(MPI_Isend(&small[k], 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &rq[k]));
            }
            if (flood_first)
                MPI_OK(MPI_Irecv(buf, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &big));
            MPI_OK(MPI_Wait(&big, MPI_STATUS_IGNORE));
            size_t bad = tu_verify(buf, n, 0, 70u + (unsigned)round);
            CHECK(bad == (size_t)-1, "%zu-byte message: byte %zu wrong", n, bad);
            MPI_OK(MPI_Waitall(FLOOD, rq, MPI_STATUSES_IGNORE));
        }
        free(buf);
    }
    free(small);
    free(rq);
    tu_note("4 MiB, 300000 B and 1 MiB sends completed while their receiver's flood waited unreceived "
            "(receive posted before and after the flood)");
    MPI_Finalize();
    return 0;
}
