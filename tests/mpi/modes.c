/* tests/mpi/modes.c — send modes and combined calls: Sendrecv, Sendrecv_replace, Ssend/Issend (checked
 * by logic, never by timing), Bsend with an attached buffer, Rsend, Request_free on a send. np >= 2. */
#include "testutil.h"

static int rank, size;

/* An eager-sized and a rendezvous-sized message for every mode. */
static const int msg_sizes[] = {8, 100000};
#define NSIZES ((int)(sizeof msg_sizes / sizeof msg_sizes[0]))

static void test_sendrecv(void) {
    static const int sizes[] = {0, 8, 4096, 100000, 1 << 20};
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int k = 0; k < 5; k++) {
        size_t n = (size_t)sizes[k];
        char *out = tu_xmalloc(n), *in = tu_xmalloc(n + 64);
        tu_fill(out, n, rank, 100 + (unsigned)k);
        memset(in, TU_CANARY, n + 64);
        MPI_Status st;
        int count;
        MPI_OK(MPI_Sendrecv(out, (int)n, MPI_BYTE, right, 20 + k, in, (int)n + 64, MPI_BYTE, left,
                            20 + k, MPI_COMM_WORLD, &st));
        MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 20 + k && (size_t)count == n,
              "Sendrecv %zu: source %d tag %d count %d", n, st.MPI_SOURCE, st.MPI_TAG, count);
        CHECK(tu_verify(in, n, left, 100 + (unsigned)k) == TU_OK_INDEX, "Sendrecv %zu: data", n);
        CHECK(tu_canary_intact(in + n, 64), "Sendrecv %zu: wrote past the message", n);
        /* In place: the buffer ends up holding the left neighbour's data. */
        MPI_OK(MPI_Sendrecv_replace(out, (int)n, MPI_BYTE, right, 40 + k, left, 40 + k,
                                    MPI_COMM_WORLD, &st));
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 40 + k, "Sendrecv_replace status");
        CHECK(tu_verify(out, n, left, 100 + (unsigned)k) == TU_OK_INDEX,
              "Sendrecv_replace %zu: data", n);
        /* To itself. */
        tu_fill(out, n, rank, 200 + (unsigned)k);
        MPI_OK(MPI_Sendrecv(out, (int)n, MPI_BYTE, rank, 60, in, (int)n, MPI_BYTE, rank, 60,
                            MPI_COMM_WORLD, &st));
        CHECK(tu_verify(in, n, rank, 200 + (unsigned)k) == TU_OK_INDEX, "Sendrecv self %zu", n);
        free(out);
        free(in);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    tu_note("Sendrecv / Sendrecv_replace: ring and self, 0 B to 1 MiB");
}

/* Synchronous mode: completion means the receive has started. Issend: the receiver posts the
 * matching receive only after a "go" message that the sender sends after testing, so any Test
 * that reports completion before "go" is a failure. Ssend: the sender announces completion on
 * another tag; the receiver looks for that announcement before posting the matching receive. */
static void test_ssend(void) {
    for (int k = 0; k < NSIZES; k++) {
        size_t n = (size_t)msg_sizes[k];
        char *buf = tu_xmalloc(n);
        int go = 1, flag = 0;
        if (rank == 0) {
            MPI_Request rq;
            tu_fill(buf, n, rank, 300 + (unsigned)k);
            MPI_OK(MPI_Issend(buf, (int)n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &rq));
            for (int i = 0; i < 200; i++) {
                MPI_OK(MPI_Test(&rq, &flag, MPI_STATUS_IGNORE));
                CHECK(!flag, "Issend of %zu bytes completed before the receive was posted", n);
            }
            MPI_OK(MPI_Send(&go, 1, MPI_INT, 1, 2, MPI_COMM_WORLD));
            MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            /* Blocking Ssend, then the announcement that it returned. */
            tu_fill(buf, n, rank, 400 + (unsigned)k);
            MPI_OK(MPI_Ssend(buf, (int)n, MPI_BYTE, 1, 3, MPI_COMM_WORLD));
            MPI_OK(MPI_Send(&go, 1, MPI_INT, 1, 4, MPI_COMM_WORLD));
        } else if (rank == 1) {
            MPI_OK(MPI_Recv(&go, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            MPI_OK(MPI_Recv(buf, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(tu_verify(buf, n, 0, 300 + (unsigned)k) == TU_OK_INDEX, "Issend data");
            for (int i = 0; i < 500; i++) {
                MPI_OK(MPI_Iprobe(0, 4, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
                CHECK(!flag, "Ssend of %zu bytes returned before the receive was posted", n);
            }
            MPI_OK(MPI_Recv(buf, (int)n, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(tu_verify(buf, n, 0, 400 + (unsigned)k) == TU_OK_INDEX, "Ssend data");
            MPI_OK(MPI_Recv(&go, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        free(buf);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    tu_note("Ssend/Issend: no completion before the matching receive is posted");
}

/* Buffered mode: every Bsend completes locally. The receiver posts nothing until a token the
 * sender sends after all Bsends returned; the sender scribbles over its buffers after each Bsend,
 * so the data must have been copied into the attached buffer. */
static void test_bsend(void) {
    enum { NSMALL = 8, SMALL = 1000, LARGE = 200000 };
    if (rank == 0) {
        int psmall, plarge;
        MPI_OK(MPI_Pack_size(SMALL, MPI_BYTE, MPI_COMM_WORLD, &psmall));
        MPI_OK(MPI_Pack_size(LARGE, MPI_BYTE, MPI_COMM_WORLD, &plarge));
        int bsize = NSMALL * (psmall + MPI_BSEND_OVERHEAD) + plarge + MPI_BSEND_OVERHEAD;
        char *attached = tu_xmalloc((size_t)bsize);
        MPI_OK(MPI_Buffer_attach(attached, bsize));
        char *msg = tu_xmalloc(LARGE);
        for (int i = 0; i <= NSMALL; i++) {
            int n = i < NSMALL ? SMALL : LARGE;
            tu_fill(msg, (size_t)n, rank, 500 + (unsigned)i);
            MPI_OK(MPI_Bsend(msg, n, MPI_BYTE, 1, 7, MPI_COMM_WORLD));
            memset(msg, 0, (size_t)n);
        }
        int token = 1;
        MPI_OK(MPI_Send(&token, 1, MPI_INT, 1, 9, MPI_COMM_WORLD));
        void *addr = NULL;
        int dsize = 0;
        MPI_OK(MPI_Buffer_detach(&addr, &dsize)); /* waits until the buffered messages left */
        CHECK(addr == attached && dsize == bsize, "Buffer_detach returned %p/%d, attached %p/%d",
              addr, dsize, (void *)attached, bsize);
        free(attached);
        free(msg);
    } else if (rank == 1) {
        int token;
        MPI_OK(MPI_Recv(&token, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        char *msg = tu_xmalloc(LARGE);
        for (int i = 0; i <= NSMALL; i++) {
            int n = i < NSMALL ? SMALL : LARGE, count;
            MPI_Status st;
            MPI_OK(MPI_Recv(msg, LARGE, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &st));
            MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
            CHECK(count == n, "Bsend message %d: %d bytes, expected %d", i, count, n);
            size_t bad = tu_verify(msg, (size_t)n, 0, 500 + (unsigned)i);
            CHECK(bad == TU_OK_INDEX, "Bsend message %d corrupt at byte %zu", i, bad);
        }
        free(msg);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    tu_note("Bsend: %d x %d B + %d B complete locally, data copied, detach returns the buffer",
            NSMALL, SMALL, LARGE);
}

/* Ready mode: legal only once the receive is posted, which the "ready" message guarantees. */
static void test_rsend(void) {
    for (int k = 0; k < NSIZES; k++) {
        size_t n = (size_t)msg_sizes[k];
        char *buf = tu_xmalloc(n);
        int ready = 1;
        if (rank == 1) {
            MPI_Request rq;
            MPI_OK(MPI_Irecv(buf, (int)n, MPI_BYTE, 0, 6, MPI_COMM_WORLD, &rq));
            MPI_OK(MPI_Send(&ready, 1, MPI_INT, 0, 5, MPI_COMM_WORLD));
            MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            CHECK(tu_verify(buf, n, 0, 600 + (unsigned)k) == TU_OK_INDEX, "Rsend %zu data", n);
        } else if (rank == 0) {
            tu_fill(buf, n, rank, 600 + (unsigned)k);
            MPI_OK(MPI_Recv(&ready, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            MPI_OK(MPI_Rsend(buf, (int)n, MPI_BYTE, 1, 6, MPI_COMM_WORLD));
        }
        free(buf);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    tu_note("Rsend: eager and rendezvous sizes after the receive is posted");
}

/* Request_free on an active send: the send still completes and delivers; the sender learns it is
 * done from the receiver's acknowledgement, and only then reuses the buffer. */
static void test_request_free(void) {
    for (int k = 0; k < NSIZES; k++) {
        size_t n = (size_t)msg_sizes[k];
        char *buf = tu_xmalloc(n);
        int ack = 0;
        if (rank == 0) {
            MPI_Request rq;
            tu_fill(buf, n, rank, 700 + (unsigned)k);
            MPI_OK(MPI_Isend(buf, (int)n, MPI_BYTE, 1, 8, MPI_COMM_WORLD, &rq));
            MPI_OK(MPI_Request_free(&rq));
            CHECK(rq == MPI_REQUEST_NULL, "Request_free did not set MPI_REQUEST_NULL");
            MPI_OK(MPI_Recv(&ack, 1, MPI_INT, 1, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(ack == 1, "Request_free: receiver reported corrupt data");
        } else if (rank == 1) {
            MPI_OK(MPI_Recv(buf, (int)n, MPI_BYTE, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            ack = tu_verify(buf, n, 0, 700 + (unsigned)k) == TU_OK_INDEX;
            MPI_OK(MPI_Send(&ack, 1, MPI_INT, 0, 10, MPI_COMM_WORLD));
            CHECK(ack, "send freed with Request_free delivered corrupt data (%zu B)", n);
        }
        free(buf);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    tu_note("Request_free on active sends: messages still delivered intact");
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "modes needs at least 2 ranks");
    test_sendrecv();
    test_ssend();
    test_bsend();
    test_rsend();
    test_request_free();
    tu_note("modes: all checks passed on %d ranks", size);
    MPI_Finalize();
    return 0;
}
