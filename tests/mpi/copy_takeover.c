/* tests/mpi/copy_takeover.c — large messages between ranks that alternate at random between
 * computing, MPI_Test, and waits on some of their requests, so pipelined copies are chosen (both
 * sides waiting), stall (one side leaves) and are taken over by their receiver while the sender
 * stages more: every message must arrive intact and nothing may hang. np 2 and 3. */
#include "testutil.h"

#include <time.h>

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static void compute(double us) {
    double t0 = now_us();
    while (now_us() - t0 < us)
        ;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iters = argc > 1 ? atoi(argv[1]) : 150;
    enum { MIN_BYTES = 128 * 1024, MAX_BYTES = 4 * 1024 * 1024 };
    int npeers = size - 1;
    char *sbuf = tu_xmalloc((size_t)MAX_BYTES * (size_t)(npeers ? npeers : 1));
    char *rbuf = tu_xmalloc((size_t)MAX_BYTES * (size_t)(npeers ? npeers : 1));
    MPI_Request *rq = tu_xmalloc(sizeof *rq * (size_t)(2 * npeers + 1));
    unsigned seed = 12345u + 977u * (unsigned)rank;
    for (int it = 0; it < iters; it++) {
        /* every rank derives the same size for each pair and iteration */
        for (int k = 0; k < npeers; k++) {
            int peer = (rank + 1 + k) % size;
            unsigned s = 7919u * (unsigned)it + 31u * (unsigned)(rank < peer ? rank : peer);
            size_t n = MIN_BYTES + (size_t)rand_r(&s) % (MAX_BYTES - MIN_BYTES);
            char *rb = rbuf + (size_t)k * MAX_BYTES, *sb = sbuf + (size_t)k * MAX_BYTES;
            memset(rb, 0, n);
            tu_fill(sb, n, rank, (unsigned)it);
            MPI_OK(MPI_Irecv(rb, (int)n, MPI_BYTE, peer, it, MPI_COMM_WORLD, &rq[k]));
            MPI_OK(MPI_Isend(sb, (int)n, MPI_BYTE, peer, it, MPI_COMM_WORLD, &rq[npeers + k]));
        }
        int done = 0;
        while (!done) {
            int what = rand_r(&seed) % 3;
            if (what == 0) {
                compute((double)(rand_r(&seed) % 1000)); /* outside MPI: the peers must cope */
            } else if (what == 1) {
                MPI_OK(MPI_Testall(2 * npeers, rq, &done, MPI_STATUSES_IGNORE));
            } else {
                int i = rand_r(&seed) % (2 * npeers + 1);
                if (i == 2 * npeers) { /* everything */
                    MPI_OK(MPI_Waitall(2 * npeers, rq, MPI_STATUSES_IGNORE));
                    done = 1;
                } else { /* one request: we wait in MPI, then leave it with the others unfinished */
                    MPI_OK(MPI_Wait(&rq[i], MPI_STATUS_IGNORE));
                }
            }
        }
        for (int k = 0; k < npeers; k++) {
            int peer = (rank + 1 + k) % size;
            unsigned s = 7919u * (unsigned)it + 31u * (unsigned)(rank < peer ? rank : peer);
            size_t n = MIN_BYTES + (size_t)rand_r(&s) % (MAX_BYTES - MIN_BYTES);
            size_t bad = tu_verify(rbuf + (size_t)k * MAX_BYTES, n, peer, (unsigned)it);
            CHECK(bad == (size_t)-1, "iteration %d: %zu-byte message from rank %d: byte %zu wrong", it, n, peer, bad);
        }
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    unsigned long long mine[3] = {0, 0, 0}, all[3];
#ifdef CREDO_STATS
    credo_fc_stats st;
    MPI_OK(credo_fc_stats_get(&st) == 0 ? MPI_SUCCESS : MPI_ERR_OTHER);
    mine[0] = st.rndv_copies, mine[1] = st.copy_takeovers, mine[2] = st.rndv_cma_pulls;
#endif
    MPI_OK(MPI_Reduce(mine, all, 3, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
    if (rank == 0)
        tu_note("%d iterations of %d-rank exchanges of 128 KiB-4 MiB messages, every byte intact (%llu copies, "
                "%llu taken over by the receiver; %llu CMA reads)", iters, size, all[0], all[1], all[2]);
    free(sbuf);
    free(rbuf);
    free(rq);
    MPI_Finalize();
    return 0;
}
