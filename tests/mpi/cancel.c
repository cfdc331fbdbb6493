/* tests/mpi/cancel.c — MPI_Cancel of sends (MPI 3.1 3.8.4): a wait on a cancelled send returns
 * whether or not the receiver ever posts a receive (here it only progresses, in a barrier), the
 * status says whether the cancel took, a cancelled message is never received, and one that was not
 * cancelled arrives intact. Found by MPICH's pt2pt/scancel, pscancel and cancelrecv, which hung.
 * Rank 0 sends to rank 1; other ranks only take part in the barriers. np 2-3. */
#include "testutil.h"

#define BIG (4 << 20)
#define QUEUED 400

static int rank, size;
static int expect_queued; /* --expect-queued: credit flow control keeps the last sends queued */

static int cancelled(MPI_Status *st) {
    int flag = -1;
    MPI_OK(MPI_Test_cancelled(st, &flag));
    return flag;
}

/* Rank 1 sees no message with this tag: the cancelled one must be gone. (The second barrier keeps
 * rank 0's next sends behind the probe.) */
static void expect_nothing(int tag, const char *what) {
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) {
        int flag = 1;
        MPI_OK(MPI_Iprobe(0, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "%s: the cancelled message arrived", what);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* An unmatched rendezvous send (4 MiB) and an unmatched synchronous one (4 bytes and 16 KiB, the
 * latter with its data pushed ahead): the cancel must take, and the wait must return although rank
 * 1 posts no receive (it is in the barrier, which progresses). */
static void test_unmatched(void) {
    static const struct { int bytes, sync; const char *what; } c[] = {
        {BIG, 0, "4 MiB Isend"}, {4, 1, "4-byte Issend"}, {16384, 1, "16 KiB Issend"}};
    char *buf = calloc(BIG, 1);
    for (int i = 0; i < 3; i++) {
        int tag = 100 + i;
        if (rank == 0) {
            MPI_Request rq;
            MPI_Status st;
            if (c[i].sync)
                MPI_OK(MPI_Issend(buf, c[i].bytes, MPI_CHAR, 1, tag, MPI_COMM_WORLD, &rq));
            else
                MPI_OK(MPI_Isend(buf, c[i].bytes, MPI_CHAR, 1, tag, MPI_COMM_WORLD, &rq));
            MPI_OK(MPI_Cancel(&rq));
            CHECK(rq != MPI_REQUEST_NULL, "%s: MPI_Cancel freed the request", c[i].what);
            MPI_OK(MPI_Wait(&rq, &st));
            CHECK(cancelled(&st), "%s: an unmatched send was not cancelled", c[i].what);
        }
        expect_nothing(tag, c[i].what);
    }
    free(buf);
}

/* Sends the receiver matched (a posted receive) or that went out eagerly cannot be cancelled: they
 * complete normally and the data arrives. */
static void test_too_late(void) {
    char *buf = malloc(BIG), *in = malloc(BIG);
    for (int i = 0; i < BIG; i++)
        buf[i] = (char)(i * 7 + 3);
    MPI_Request rq;
    MPI_Status st;
    if (rank == 1)
        MPI_OK(MPI_Irecv(in, BIG, MPI_CHAR, 0, 200, MPI_COMM_WORLD, &rq));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* the receive is posted before the send starts */
    if (rank == 0) {
        MPI_Request big, small;
        MPI_OK(MPI_Isend(buf, BIG, MPI_CHAR, 1, 200, MPI_COMM_WORLD, &big));
        MPI_OK(MPI_Isend(buf, 8, MPI_CHAR, 1, 201, MPI_COMM_WORLD, &small));
        MPI_OK(MPI_Cancel(&small)); /* an 8-byte eager send is written at once: too late */
        MPI_OK(MPI_Wait(&small, &st));
        CHECK(!cancelled(&st), "an eager send that was written reports cancelled");
        MPI_OK(MPI_Cancel(&big)); /* its request-to-send matched the posted receive: too late */
        MPI_OK(MPI_Wait(&big, &st));
        CHECK(!cancelled(&st), "a matched rendezvous send reports cancelled");
    }
    if (rank == 1) {
        MPI_OK(MPI_Wait(&rq, &st));
        CHECK(!cancelled(&st), "the receive of a send that was not cancelled reports cancelled");
        for (int i = 0; i < BIG; i++)
            CHECK(in[i] == (char)(i * 7 + 3), "byte %d of the matched rendezvous send is wrong", i);
        char small[8];
        MPI_OK(MPI_Recv(small, 8, MPI_CHAR, 0, 201, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    free(buf);
    free(in);
}

/* Rank 0 floods rank 1 with eager messages that rank 1 receives only later: under credit flow
 * control (and with a full ring under none) the last sends wait in rank 0's queue with nothing
 * written; those are cancelled at once, locally. Written ones complete normally, so the cancelled
 * ones are a tail of the sequence, and rank 1 then receives exactly the others, in order. */
static void test_queued(void) {
    static char msgs[QUEUED][256];
    MPI_Request rq[QUEUED];
    int sent = 0;
    if (rank == 0) {
        for (int i = 0; i < QUEUED; i++) {
            memset(msgs[i], i & 0x7f, sizeof msgs[i]);
            MPI_OK(MPI_Isend(msgs[i], (int)sizeof msgs[i], MPI_CHAR, 1, 300, MPI_COMM_WORLD, &rq[i]));
        }
        for (int i = QUEUED - 1; i >= QUEUED / 2; i--)
            MPI_OK(MPI_Cancel(&rq[i]));
        int first_cancelled = QUEUED;
        for (int i = QUEUED / 2; i < QUEUED; i++) {
            int flag = 0;
            MPI_Status st;
            MPI_OK(MPI_Test(&rq[i], &flag, &st));
            if (flag && cancelled(&st)) {
                if (first_cancelled == QUEUED)
                    first_cancelled = i;
            } else {
                CHECK(first_cancelled == QUEUED, "message %d went on after message %d was cancelled", i,
                      first_cancelled);
            }
        }
        sent = first_cancelled;
        /* Without credits (CREDO_FC=none) the receiver copies unexpected messages out of its ring,
         * so every send may have been written: nothing left to cancel is fine there. */
        CHECK(sent < QUEUED || !expect_queued, "none of %d queued sends was cancelled", QUEUED / 2);
        tu_note("queued sends: %d of the last %d cancelled", QUEUED - sent, QUEUED / 2);
    }
    MPI_OK(MPI_Bcast(&sent, 1, MPI_INT, 0, MPI_COMM_WORLD));
    if (rank == 1) {
        char in[256];
        for (int i = 0; i < sent; i++) {
            MPI_OK(MPI_Recv(in, (int)sizeof in, MPI_CHAR, 0, 300, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(in[0] == (char)(i & 0x7f) && in[255] == (char)(i & 0x7f), "message %d arrived as %d", i, in[0]);
        }
    }
    if (rank == 0)
        MPI_OK(MPI_Waitall(QUEUED, rq, MPI_STATUSES_IGNORE));
    expect_nothing(300, "queued send");
}

/* A synchronous send to ourselves waits in our own queue: cancelled locally. A persistent
 * synchronous send to rank 1 is cancelled like a plain one, and can be started again. */
static void test_self_and_persistent(void) {
    int v = 42, got = -1;
    MPI_Request rq;
    MPI_Status st;
    MPI_OK(MPI_Issend(&v, 1, MPI_INT, rank, 400, MPI_COMM_WORLD, &rq));
    MPI_OK(MPI_Cancel(&rq));
    MPI_OK(MPI_Wait(&rq, &st));
    CHECK(cancelled(&st), "a synchronous send to self was not cancelled");
    int flag = 1;
    MPI_OK(MPI_Iprobe(rank, 400, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "the cancelled send to self is still there");
    /* rank 1 is in the barrier (progressing, no receive posted) while rank 0 cancels */
    if (rank == 0) {
        MPI_OK(MPI_Ssend_init(&v, 1, MPI_INT, 1, 401, MPI_COMM_WORLD, &rq));
        MPI_OK(MPI_Start(&rq));
        MPI_OK(MPI_Cancel(&rq));
        MPI_OK(MPI_Wait(&rq, &st));
        CHECK(cancelled(&st), "a persistent synchronous send was not cancelled");
    }
    expect_nothing(401, "persistent send");
    if (rank == 0) {
        MPI_OK(MPI_Start(&rq)); /* the request is reusable: this one is received */
        MPI_OK(MPI_Wait(&rq, &st));
        CHECK(!cancelled(&st), "the restarted persistent send reports cancelled");
        MPI_OK(MPI_Request_free(&rq));
    } else if (rank == 1) {
        MPI_OK(MPI_Recv(&got, 1, MPI_INT, 0, 401, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(got == 42, "the restarted persistent send delivered %d", got);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv) {
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size >= 2, "needs 2 ranks");
    expect_queued = argc > 1 && strcmp(argv[1], "--expect-queued") == 0;
    test_unmatched();
    test_too_late();
    test_queued();
    test_self_and_persistent();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    tu_note("cancel: all checks passed on %d ranks", size);
    MPI_OK(MPI_Finalize());
    return 0;
}
