/* tests/mpi/sizes.c — every size class across the slot, eager and rendezvous boundaries, data checked
 * byte by byte: blocking, non-blocking, both directions, pre-posted and unexpected, and in order. */
#include "testutil.h"

/* Every branch of the small-copy helper (1-3, 4-7, 8-15, 16-31, 32-64 bytes), around the
 * ~40/56/64-byte slot payloads, 2/4/8/16 KiB eager limits, and large rendezvous transfers up to
 * 16 MiB + 3 (odd sizes catch chunking and alignment slips). */
static const size_t sizes[] = {0,    1,    2,    3,     4,     7,     8,       12,      15,
                               16,   24,   31,   32,    39,    40,    41,      55,      56,
                               57,   63,   64,   65,    1000,  2047,  2048,    2049,    4095,
                               4096, 4097, 8191, 8192,  8193,  16383, 16384,   16385,   65536,
                               1 << 20,    4 << 20,     (16 << 20) + 3};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define SLACK 64 /* receives offer this many bytes more than the message; they must stay intact */

static int rank, size, peer;

static void check_msg(const unsigned char *buf, size_t n, const MPI_Status *st, unsigned salt,
                      const char *what) {
    int count;
    MPI_OK(MPI_Get_count(st, MPI_BYTE, &count));
    CHECK((size_t)count == n && st->MPI_SOURCE == peer,
          "%s %zu B: count %d source %d (expected %zu from %d)", what, n, count, st->MPI_SOURCE, n,
          peer);
    size_t bad = tu_verify(buf, n, peer, salt);
    CHECK(bad == TU_OK_INDEX, "%s %zu B: wrong byte at offset %zu", what, n, bad);
    CHECK(tu_canary_intact(buf + n, SLACK), "%s %zu B: bytes past the message were written",
          what, n);
}

/* One size, three ways; both partners send and receive. */
static void one_size(size_t k, unsigned char *out, unsigned char *in) {
    size_t n = sizes[k];
    int tag = (int)k;
    MPI_Status st;
    MPI_Request rq[2];
    MPI_Status sts[2];

    /* Blocking, one direction at a time: the even rank sends first. */
    unsigned salt = 1000 + (unsigned)k;
    tu_fill(out, n, rank, salt);
    memset(in, TU_CANARY, n + SLACK);
    for (int turn = 0; turn < 2; turn++) {
        if ((rank % 2) == turn)
            MPI_OK(MPI_Send(out, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD));
        else {
            MPI_OK(MPI_Recv(in, (int)(n + SLACK), MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st));
            check_msg(in, n, &st, salt, "blocking");
        }
    }

    /* Non-blocking, receive posted before the send starts (the barrier orders them). */
    salt = 2000 + (unsigned)k;
    tu_fill(out, n, rank, salt);
    memset(in, TU_CANARY, n + SLACK);
    MPI_OK(MPI_Irecv(in, (int)(n + SLACK), MPI_BYTE, peer, tag, MPI_COMM_WORLD, &rq[0]));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Isend(out, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &rq[1]));
    MPI_OK(MPI_Waitall(2, rq, sts));
    check_msg(in, n, &sts[0], salt, "pre-posted");

    /* Unexpected: the send (or its rendezvous request) is out before the receive is posted. */
    salt = 3000 + (unsigned)k;
    tu_fill(out, n, rank, salt);
    memset(in, TU_CANARY, n + SLACK);
    MPI_OK(MPI_Isend(out, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &rq[1]));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Recv(in, (int)(n + SLACK), MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
    check_msg(in, n, &st, salt, "unexpected");
}

/* All sizes back to back on one tag, in both directions at once: they must arrive in send order
 * even though small eager messages are quicker than the large rendezvous ones before them. */
static void stream(int preposted) {
    unsigned char *out[NSIZES], *in[NSIZES];
    MPI_Request rq[2 * NSIZES];
    MPI_Status st[2 * NSIZES];
    for (size_t k = 0; k < NSIZES; k++) {
        out[k] = tu_xmalloc(sizes[k]);
        in[k] = tu_xmalloc(sizes[k] + SLACK);
        tu_fill(out[k], sizes[k], rank, 5000 + (unsigned)k + 100 * (unsigned)preposted);
        memset(in[k], TU_CANARY, sizes[k] + SLACK);
    }
    /* All receives match any of the messages; a message out of order shows as a wrong count. */
    if (preposted) {
        for (size_t k = 0; k < NSIZES; k++)
            MPI_OK(MPI_Irecv(in[k], (int)(sizes[k] + SLACK), MPI_BYTE, peer, 77, MPI_COMM_WORLD,
                             &rq[NSIZES + k]));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    for (size_t k = 0; k < NSIZES; k++)
        MPI_OK(MPI_Isend(out[k], (int)sizes[k], MPI_BYTE, peer, 77, MPI_COMM_WORLD, &rq[k]));
    if (!preposted) {
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        for (size_t k = 0; k < NSIZES; k++)
            MPI_OK(MPI_Recv(in[k], (int)(sizes[k] + SLACK), MPI_BYTE, peer, 77, MPI_COMM_WORLD,
                            &st[NSIZES + k]));
        MPI_OK(MPI_Waitall(NSIZES, rq, st));
    } else {
        MPI_OK(MPI_Waitall(2 * NSIZES, rq, st));
    }
    for (size_t k = 0; k < NSIZES; k++) {
        check_msg(in[k], sizes[k], &st[NSIZES + k], 5000 + (unsigned)k + 100 * (unsigned)preposted,
                  preposted ? "in-order stream (pre-posted)" : "in-order stream (unexpected)");
        free(out[k]);
        free(in[k]);
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "sizes needs at least 2 ranks");
    /* Ranks pair up (0-1, 2-3, ...); with an odd count the last rank only joins the barriers. */
    peer = rank ^ 1;
    int active = peer < size;
    size_t max = sizes[NSIZES - 1];
    unsigned char *out = tu_xmalloc(max), *in = tu_xmalloc(max + SLACK);
    for (size_t k = 0; k < NSIZES; k++) {
        if (active)
            one_size(k, out, in);
        else {
            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        }
    }
    tu_note("%zu sizes 0 B .. %zu B: blocking, pre-posted, unexpected, both directions", NSIZES,
            max);
    for (int pre = 0; pre <= 1; pre++) {
        if (active)
            stream(pre);
        else
            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    tu_note("all sizes streamed back to back on one tag arrive in order (pre-posted, unexpected)");
    free(out);
    free(in);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    tu_note("sizes: all checks passed on %d ranks", size);
    MPI_Finalize();
    return 0;
}
