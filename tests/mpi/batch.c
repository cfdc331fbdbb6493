/* tests/mpi/batch.c — send batching (CREDO_SEND_BATCH): runs of back-to-back isends mixed with other
 * destinations, longer messages, blocking sends and probes keep MPI's per-pair order and contents,
 * and a batched message never waits past the sender's next library call. np >= 2. */
#include "testutil.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NOPS 3000
static const int lens[] = {0, 1, 8, 40, 41, 96, 97, 100, 152, 208, 209, 3000, 5000};
#define NLENS ((int)(sizeof lens / sizeof lens[0]))

/* The payload of message k to dest d: its first 4 bytes are k, then a pattern of (d, k). */
static void fill(unsigned char *m, int len, int d, int k) {
    for (int i = 0; i < len; i++)
        m[i] = (unsigned char)(d * 31 + k * 7 + i);
    if (len >= 4)
        memcpy(m, &k, 4);
}

static unsigned lcg(unsigned *x) {
    *x = *x * 1103515245u + 12345u;
    return *x >> 16;
}

/* Rank 0 sends NOPS messages; each receiver gets its share in order. Runs of 1..40 isends to one
 * destination are interleaved with other destinations, blocking sends, Iprobes and Tests, so the
 * batch is cut at every kind of boundary. */
static void order_test(int rank, int size) {
    int nrecv = size - 1;
    int *count = tu_xcalloc((size_t)size, sizeof *count);
    unsigned x = 12345;
    /* both sides derive the same plan: destination, length and blocking flag per message */
    int *dst = tu_xmalloc(NOPS * sizeof *dst), *len = tu_xmalloc(NOPS * sizeof *len);
    int *blocking = tu_xmalloc(NOPS * sizeof *blocking);
    for (int k = 0; k < NOPS;) {
        int d = 1 + (int)(lcg(&x) % (unsigned)nrecv);
        int run = 1 + (int)(lcg(&x) % 40);
        for (int j = 0; j < run && k < NOPS; j++, k++) {
            dst[k] = d;
            len[k] = (lcg(&x) % 3) ? 8 : lens[lcg(&x) % NLENS];
            blocking[k] = lcg(&x) % 50 == 0;
        }
    }
    if (rank == 0) {
        unsigned char *bufs = tu_xmalloc((size_t)NOPS * 5000);
        MPI_Request *rq = tu_xmalloc(NOPS * sizeof *rq);
        int nrq = 0;
        for (int k = 0; k < NOPS; k++) {
            int d = dst[k];
            int seq = count[d]++;
            unsigned char *m = bufs + (size_t)k * 5000;
            fill(m, len[k], d, seq);
            if (blocking[k]) {
                MPI_OK(MPI_Send(m, len[k], MPI_BYTE, d, seq % 7, MPI_COMM_WORLD));
            } else {
                MPI_OK(MPI_Isend(m, len[k], MPI_BYTE, d, seq % 7, MPI_COMM_WORLD, &rq[nrq++]));
                if (k % 97 == 0) {
                    int flag;
                    MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
                }
                if (k % 89 == 0) {
                    int flag;
                    MPI_OK(MPI_Test(&rq[nrq - 1], &flag, MPI_STATUS_IGNORE));
                }
            }
        }
        MPI_OK(MPI_Waitall(nrq, rq, MPI_STATUSES_IGNORE));
        free(rq);
        free(bufs);
    } else {
        unsigned char buf[5000], want[5000];
        for (int k = 0; k < NOPS; k++) {
            if (dst[k] != rank)
                continue;
            int seq = count[rank]++;
            MPI_Status st;
            int n;
            /* ANY_TAG: the order must come from the transport, not from tag selection */
            MPI_OK(MPI_Recv(buf, (int)sizeof buf, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            MPI_OK(MPI_Get_count(&st, MPI_BYTE, &n));
            CHECK(n == len[k] && st.MPI_TAG == seq % 7,
                  "message %d from 0: %d bytes tag %d, expected %d bytes tag %d", seq, n, st.MPI_TAG,
                  len[k], seq % 7);
            fill(want, len[k], rank, seq);
            CHECK(memcmp(buf, want, (size_t)n) == 0, "message %d from 0: wrong contents", seq);
        }
    }
    free(dst);
    free(len);
    free(blocking);
    free(count);
}

/* Rank 0 sends `nmsg` back-to-back isends to rank 1, makes one more library call (`after`), then
 * stays out of MPI until rank 1 reports through a file that it received all of them. */
enum after_call { AFTER_NONE, AFTER_TEST, AFTER_WAITALL };

static void timely_test(int rank, const char *flagfile, int nmsg, enum after_call after, int msize) {
    static unsigned char msgs[64][256];
    if (rank == 0) {
        MPI_Request rq[64];
        for (int i = 0; i < nmsg; i++) {
            fill(msgs[i], msize, 1, 1000 + i);
            MPI_OK(MPI_Isend(msgs[i], msize, MPI_BYTE, 1, 5, MPI_COMM_WORLD, &rq[i]));
        }
        if (after == AFTER_TEST) {
            int flag;
            MPI_OK(MPI_Test(&rq[nmsg - 1], &flag, MPI_STATUS_IGNORE));
        } else if (after == AFTER_WAITALL) {
            MPI_OK(MPI_Waitall(nmsg, rq, MPI_STATUSES_IGNORE));
        }
        /* no MPI call until rank 1 has everything: 30 s is far beyond any scheduling delay */
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        while (access(flagfile, F_OK) != 0) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            CHECK(t.tv_sec - t0.tv_sec < 30, "%d isend(s) of %d B (then %s) not delivered while the sender "
                  "stayed out of MPI", nmsg, msize,
                  after == AFTER_TEST ? "MPI_Test" : after == AFTER_WAITALL ? "MPI_Waitall" : "nothing");
            usleep(1000);
        }
        unlink(flagfile);
        if (after != AFTER_WAITALL)
            MPI_OK(MPI_Waitall(nmsg, rq, MPI_STATUSES_IGNORE));
    } else if (rank == 1) {
        unsigned char got[256], want[256];
        for (int i = 0; i < nmsg; i++) {
            MPI_OK(MPI_Recv(got, msize, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            fill(want, msize, 1, 1000 + i);
            CHECK(memcmp(got, want, (size_t)msize) == 0, "timely message %d of %d B: wrong contents", i, msize);
        }
        int fd = open(flagfile, O_CREAT | O_WRONLY, 0600);
        CHECK(fd >= 0, "cannot create %s", flagfile);
        close(fd);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "batch needs at least 2 ranks");
    for (int rep = 0; rep < 3; rep++)
        order_test(rank, size);

    char flagfile[256];
    int pid = (int)getpid();
    MPI_OK(MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD));
    const char *tmp = getenv("TMPDIR");
    snprintf(flagfile, sizeof flagfile, "%s/credo-batch-test.%d", tmp && *tmp ? tmp : "/tmp", pid);
    /* One, three and five 64-byte slots per message. The runs stay within 30 slots: more than the
     * sender's credits would wait for credit packets, which only a call into MPI reads. */
    for (int msize = 8; msize <= 200; msize += 96) {
        int slots = msize <= 40 ? 1 : 1 + (msize - 40 + 55) / 56, run = 30 / slots;
        timely_test(rank, flagfile, 1, AFTER_NONE, msize); /* a lone isend is written at once */
        timely_test(rank, flagfile, 2, AFTER_TEST, msize); /* a batch is written by the next call */
        timely_test(rank, flagfile, run, AFTER_TEST, msize);
        timely_test(rank, flagfile, run, AFTER_WAITALL, msize);
    }
    if (rank == 0)
        printf("batch: %d ranks, ordered and timely\n", size);
    MPI_Finalize();
    return 0;
}
