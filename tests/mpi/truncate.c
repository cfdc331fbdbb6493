/* tests/mpi/truncate.c — truncation: a message longer than the receive buffer yields MPI_ERR_TRUNCATE
 * (MPI_ERRORS_RETURN), writes nothing past the buffer and leaves later messages intact. np >= 2. */
#include "testutil.h"

/* The canary check is not academic: Open MPI 4.1.4 (vader, CMA single copy) writes the whole
 * message past a pre-posted receive buffer when a message above its eager limit is truncated. */
#define CANARY_LEN 256
#define TAG 5

static int rank;

/* One case: rank 1 sends `len` bytes where rank 0 has room for `cap`, followed by a small and a
 * rendezvous-sized message on the same envelope. `unexpected` = the send is posted before the
 * receive (the message or its rendezvous request waits in the unexpected queue). */
static void trunc_case(size_t len, size_t cap, int unexpected, unsigned salt) {
    const size_t follow[2] = {1000, 300000};
    if (rank == 1) {
        char *msg = tu_xmalloc(len), *f0 = tu_xmalloc(follow[0]), *f1 = tu_xmalloc(follow[1]);
        tu_fill(msg, len, rank, salt);
        tu_fill(f0, follow[0], rank, salt + 1);
        tu_fill(f1, follow[1], rank, salt + 2);
        if (!unexpected)
            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_Request rq[3];
        MPI_Status st[3];
        MPI_OK(MPI_Isend(msg, (int)len, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, &rq[0]));
        MPI_OK(MPI_Isend(f0, (int)follow[0], MPI_BYTE, 0, TAG, MPI_COMM_WORLD, &rq[1]));
        MPI_OK(MPI_Isend(f1, (int)follow[1], MPI_BYTE, 0, TAG, MPI_COMM_WORLD, &rq[2]));
        if (unexpected)
            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        /* Truncation is the receiver's error: the sends themselves succeed. */
        int rc = MPI_Waitall(3, rq, st);
        CHECK(rc == MPI_SUCCESS, "sender of a truncated message got error class %d",
              tu_class(rc));
        free(msg);
        free(f0);
        free(f1);
    } else if (rank == 0) {
        unsigned char *buf = tu_xmalloc(cap + CANARY_LEN);
        memset(buf, TU_CANARY, cap + CANARY_LEN);
        MPI_Status st;
        int rc;
        if (unexpected) {
            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
            rc = MPI_Recv(buf, (int)cap, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, &st);
        } else {
            MPI_Request rq;
            MPI_OK(MPI_Irecv(buf, (int)cap, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, &rq));
            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
            rc = MPI_Wait(&rq, &st);
        }
        CHECK(tu_class(rc) == MPI_ERR_TRUNCATE,
              "%zu bytes into %zu (%s): error class %d, expected MPI_ERR_TRUNCATE", len, cap,
              unexpected ? "unexpected" : "expected", tu_class(rc));
        CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == TAG, "truncated status: source %d tag %d",
              st.MPI_SOURCE, st.MPI_TAG);
        for (size_t i = 0; i < CANARY_LEN; i++)
            CHECK(buf[cap + i] == TU_CANARY,
                  "%zu bytes into %zu (%s): byte %zu past the receive buffer was overwritten", len,
                  cap, unexpected ? "unexpected" : "pre-posted", i);
#ifdef CREDO_STATS
        /* credo delivers the prefix that fits (MPI leaves the buffer contents unspecified). */
        for (size_t i = 0; i < cap; i++)
            CHECK(buf[i] == tu_pattern_byte(len, 1, salt, i),
                  "credo: truncated prefix wrong at byte %zu", i);
#endif
        free(buf);
        for (int k = 0; k < 2; k++) {
            char *f = tu_xmalloc(follow[k]);
            int count;
            MPI_OK(MPI_Recv(f, (int)follow[k], MPI_BYTE, 1, TAG, MPI_COMM_WORLD, &st));
            MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
            CHECK((size_t)count == follow[k], "message after truncation: %d bytes, expected %zu",
                  count, follow[k]);
            size_t bad = tu_verify(f, follow[k], 1, salt + 1 + (unsigned)k);
            CHECK(bad == TU_OK_INDEX, "message %d after a truncated one corrupt at byte %zu", k,
                  bad);
            free(f);
        }
    } else {
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* Waitall with one truncated receive: MPI_ERR_IN_STATUS, and each status says which failed. */
static void trunc_waitall(void) {
    if (rank == 1) {
        char a[64], b[64];
        tu_fill(a, sizeof a, rank, 90);
        tu_fill(b, sizeof b, rank, 91);
        MPI_OK(MPI_Send(a, 64, MPI_BYTE, 0, 1, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(b, 64, MPI_BYTE, 0, 2, MPI_COMM_WORLD));
    } else if (rank == 0) {
        unsigned char a[32 + CANARY_LEN], b[64];
        memset(a, TU_CANARY, sizeof a);
        MPI_Request rq[2];
        MPI_Status st[2];
        MPI_OK(MPI_Irecv(a, 32, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &rq[0]));
        MPI_OK(MPI_Irecv(b, 64, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &rq[1]));
        int rc = MPI_Waitall(2, rq, st);
        CHECK(tu_class(rc) == MPI_ERR_IN_STATUS, "Waitall with a truncation: class %d",
              tu_class(rc));
        CHECK(tu_class(st[0].MPI_ERROR) == MPI_ERR_TRUNCATE,
              "Waitall: truncated receive's status error class %d", tu_class(st[0].MPI_ERROR));
        /* The standard allows MPI_ERR_PENDING for a request not completed yet (MPICH stops at
         * the first error); such a request stays active and completes normally. */
        CHECK(st[1].MPI_ERROR == MPI_SUCCESS || tu_class(st[1].MPI_ERROR) == MPI_ERR_PENDING,
              "Waitall: good receive's status error class %d", tu_class(st[1].MPI_ERROR));
        if (st[1].MPI_ERROR != MPI_SUCCESS)
            MPI_OK(MPI_Wait(&rq[1], &st[1]));
        CHECK(tu_canary_intact(a + 32, CANARY_LEN), "Waitall truncation overwrote the canary");
        CHECK(tu_verify(b, 64, 1, 91) == TU_OK_INDEX, "Waitall: second message corrupt");
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv) {
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "truncate needs at least 2 ranks");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    /* Eager-sized, just over an eager boundary, and rendezvous-sized messages. */
    static const size_t cases[][2] = {{100, 50}, {1, 0}, {4100, 4000}, {1048579, 524288}};
    unsigned salt = 10;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int unexpected = 0; unexpected <= 1; unexpected++, salt += 10) {
            trunc_case(cases[c][0], cases[c][1], unexpected, salt);
            tu_note("truncation %zu bytes into %zu (%s): MPI_ERR_TRUNCATE, canary and later "
                    "messages intact",
                    cases[c][0], cases[c][1], unexpected ? "unexpected" : "pre-posted");
        }
    trunc_waitall();
    tu_note("truncation in Waitall: MPI_ERR_IN_STATUS with per-status errors");
    tu_note("truncate: all checks passed");
    MPI_Finalize();
    return 0;
}
