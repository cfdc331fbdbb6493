/* tests/mpi/rt_pull.c — with the real-time progress thread (CREDO_PROGRESS_RT=1) a receive that
 * matches an already-arrived large rendezvous message leaves the pull to that thread. */
#include <string.h>
#include <time.h>

#include "testutil.h"

/* Rank 1 starts 1 MiB sends (two tags) and rank 0 posts the receives only after a barrier, so
 * both requests wait unexpected. Rank 0 then computes without any MPI call until the last byte of
 * each buffer holds the pattern: only the progress thread can have pulled it (the posting call
 * leaves it to the thread, which must notice and do it). The wall-clock bound turns a pull that
 * never happens into a failure, not a hang. The data and the statuses are then checked whole,
 * the second message received in the opposite order of its posting (matching stays by tag). */
#define N ((size_t)1 << 20)

static int arrived(volatile unsigned char *buf, size_t n, unsigned salt)
{
    return buf[n - 1] == tu_pattern_byte(n, 1, salt, n - 1);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "run with 2 ranks");
    unsigned char *a = malloc(N), *b = malloc(N);
    CHECK(a && b, "out of memory");
    if (rank == 1) {
        tu_fill(a, N, 1, 1);
        tu_fill(b, N, 1, 2);
        MPI_Request rq[2];
        MPI_OK(MPI_Isend(a, (int)N, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &rq[0]));
        MPI_OK(MPI_Isend(b, (int)N, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &rq[1]));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    } else {
        /* anything but the bytes awaited */
        memset(a, (unsigned char)~tu_pattern_byte(N, 1, 1, N - 1), N);
        memset(b, (unsigned char)~tu_pattern_byte(N, 1, 2, N - 1), N);
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_Request rq[2];
        MPI_OK(MPI_Irecv(b, (int)N, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &rq[1]));
        MPI_OK(MPI_Irecv(a, (int)N, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &rq[0]));
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        double x = 1.0;
        long rounds = 0;
        do {
            for (int k = 0; k < 10000; k++)
                x = x * 1.0000001 + 1e-9; /* "compute" */
            rounds++;
            clock_gettime(CLOCK_MONOTONIC, &t);
        } while (!(arrived(a, N, 1) && arrived(b, N, 2)) && t.tv_sec - t0.tv_sec < 60);
        CHECK(arrived(a, N, 1) && arrived(b, N, 2),
              "1 MiB messages not pulled while computing (%ld rounds, x %g): no progress", rounds, x);
        MPI_Status st[2];
        MPI_OK(MPI_Waitall(2, rq, st));
        for (int i = 0; i < 2; i++) {
            int count;
            MPI_OK(MPI_Get_count(&st[i], MPI_BYTE, &count));
            CHECK(count == (int)N && st[i].MPI_SOURCE == 1 && st[i].MPI_TAG == i + 1,
                  "message %d: count %d source %d tag %d", i + 1, count, st[i].MPI_SOURCE, st[i].MPI_TAG);
        }
        size_t bad = tu_verify(a, N, 1, 1);
        CHECK(bad == TU_OK_INDEX, "message 1: wrong byte at offset %zu", bad);
        bad = tu_verify(b, N, 1, 2);
        CHECK(bad == TU_OK_INDEX, "message 2: wrong byte at offset %zu", bad);
        printf("rt_pull: ok\n");
    }
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
