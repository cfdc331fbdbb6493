/* tests/mpi/held.c — messages left unexpected by tag-selective receives, round after round: credits
 * they hold must come back (when matched, or spilled to a waiting receive) with none lost. np >= 2. */
#include "testutil.h"

/* Every sender posts NMSG Isends alternating tags 10 and 11, with sizes that include eager messages
 * filling most of a peer's credit budget (3000 B) and rendezvous ones. Rank 0 first receives all the
 * tag-10 messages, so the tag-11 ones sit unexpected and hold their sender's credits while the
 * sender still has tag-10 messages to deliver. MPI requires this to complete. Repeating the round
 * catches credits that were leaked in an earlier one (a hang in round 2 or later). */
#define NMSG 60
#define ROUNDS 8
static const int msg_sizes[] = {8, 64, 100000, 8, 3000, 300000, 16, 9000, 8};
#define NS ((int)(sizeof msg_sizes / sizeof msg_sizes[0]))

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "held needs at least 2 ranks");
    char *buf = tu_xmalloc((size_t)NMSG * 300000);
    for (int round = 0; round < ROUNDS; round++) {
        int any = round >= ROUNDS / 2; /* fixed sources first, then MPI_ANY_SOURCE */
        if (rank != 0) {
            MPI_Request rq[NMSG];
            for (int i = 0; i < NMSG; i++) {
                char *m = buf + (size_t)i * 300000;
                tu_fill(m, (size_t)msg_sizes[i % NS], rank, (unsigned)(round * NMSG + i));
                MPI_OK(MPI_Isend(m, msg_sizes[i % NS], MPI_BYTE, 0, 10 + (i & 1), MPI_COMM_WORLD,
                                 &rq[i]));
            }
            MPI_OK(MPI_Waitall(NMSG, rq, MPI_STATUSES_IGNORE));
        } else {
            int *next = tu_xcalloc((size_t)size * 2, sizeof *next); /* next index per (src, tag) */
            for (int s = 0; s < size; s++)
                next[2 * s + 1] = 1;
            for (int t = 10; t <= 11; t++)
                for (int k = 0; k < NMSG / 2 * (size - 1); k++) {
                    MPI_Status st;
                    int src = any ? MPI_ANY_SOURCE : 1 + k % (size - 1), count;
                    MPI_OK(MPI_Recv(buf, 300000, MPI_BYTE, src, t, MPI_COMM_WORLD, &st));
                    int s = st.MPI_SOURCE, *i = &next[2 * s + (t - 10)];
                    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
                    CHECK(count == msg_sizes[*i % NS], "round %d: message %d of %d (tag %d) has %d B",
                          round, *i, s, t, count);
                    size_t bad = tu_verify(buf, (size_t)count, s, (unsigned)(round * NMSG + *i));
                    CHECK(bad == TU_OK_INDEX, "round %d: message %d of %d corrupt at byte %zu",
                          round, *i, s, bad);
                    *i += 2;
                }
            free(next);
        }
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        tu_note("round %d (%s): %d msgs/sender, tag 10 first while tag 11 waits unexpected", round,
                any ? "ANY_SOURCE" : "fixed source", NMSG);
    }
#ifdef CREDO_STATS
    tu_stats_check_print("after held rounds");
#endif
    free(buf);
    tu_note("held: all checks passed on %d ranks", size);
    MPI_Finalize();
    return 0;
}
