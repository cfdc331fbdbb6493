/* tests/mpi/match.c — matching semantics: wildcards, non-overtaking across protocols, communicator
 * isolation, Probe/Iprobe, MPI_PROC_NULL and cancelled receives. Needs np >= 2 (rank 0 receives). */
#include "testutil.h"

/* A message larger than any eager limit in use (credo, Open MPI vader 4 KiB, MPICH), so the
 * ordering checks mix eager and rendezvous messages on the same (source, tag, comm). */
#define BIG 100000

static int rank, size;

/* Phase 1: ANY_SOURCE with a fixed tag, a fixed source with ANY_TAG, and both wildcards. Each
 * sender's messages are sent before rank 0 starts receiving, so some match as unexpected. */
static void test_wildcards(void) {
    if (rank != 0) {
        int v[3] = {rank * 1000 + 1, rank * 1000 + 2, rank * 1000 + 3};
        MPI_Request rq[3];
        MPI_OK(MPI_Isend(&v[0], 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &rq[0]));
        MPI_OK(MPI_Isend(&v[1], 1, MPI_INT, 0, 100 + rank, MPI_COMM_WORLD, &rq[1]));
        MPI_OK(MPI_Isend(&v[2], 1, MPI_INT, 0, 200 + rank, MPI_COMM_WORLD, &rq[2]));
        MPI_OK(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
    } else {
        int *seen = tu_xcalloc((size_t)size, sizeof *seen);
        MPI_Status st;
        int v;
        /* ANY_SOURCE, tag 1: one message from each sender, source taken from the status. */
        for (int i = 1; i < size; i++) {
            MPI_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st));
            CHECK(st.MPI_TAG == 1, "ANY_SOURCE recv: tag %d != 1", st.MPI_TAG);
            CHECK(st.MPI_SOURCE >= 1 && st.MPI_SOURCE < size, "bad source %d", st.MPI_SOURCE);
            CHECK(v == st.MPI_SOURCE * 1000 + 1, "ANY_SOURCE: payload %d from source %d", v,
                  st.MPI_SOURCE);
            CHECK(!seen[st.MPI_SOURCE]++, "ANY_SOURCE: source %d matched twice", st.MPI_SOURCE);
        }
        /* Fixed source, ANY_TAG: in reverse source order; the tag identifies the sender. */
        for (int s = size - 1; s >= 1; s--) {
            MPI_OK(MPI_Recv(&v, 1, MPI_INT, s, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            /* Tag 1 from s was consumed above, so the next one from s is tag 100+s. */
            CHECK(st.MPI_TAG == 100 + s && st.MPI_SOURCE == s && v == s * 1000 + 2,
                  "ANY_TAG from %d: got tag %d source %d value %d", s, st.MPI_TAG, st.MPI_SOURCE,
                  v);
        }
        memset(seen, 0, (size_t)size * sizeof *seen);
        for (int i = 1; i < size; i++) {
            MPI_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            CHECK(st.MPI_TAG == 200 + st.MPI_SOURCE && v == st.MPI_SOURCE * 1000 + 3,
                  "ANY/ANY: tag %d source %d value %d", st.MPI_TAG, st.MPI_SOURCE, v);
            CHECK(!seen[st.MPI_SOURCE]++, "ANY/ANY: source %d matched twice", st.MPI_SOURCE);
        }
        free(seen);
    }
    /* Keeps the tag-selection messages below out of the ANY/ANY receives above. */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    /* Tag selection: three pending messages from rank 1 received in the opposite order. */
    if (rank == 1) {
        int v[3] = {5, 6, 7};
        MPI_Request rq[3];
        for (int i = 0; i < 3; i++)
            MPI_OK(MPI_Isend(&v[i], 1, MPI_INT, 0, 5 + i, MPI_COMM_WORLD, &rq[i]));
        MPI_OK(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
    } else if (rank == 0) {
        for (int t = 7; t >= 5; t--) {
            int v = -1;
            MPI_OK(MPI_Recv(&v, 1, MPI_INT, 1, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(v == t, "tag selection: tag %d delivered value %d", t, v);
        }
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    tu_note("wildcards: ANY_SOURCE, ANY_TAG, both, and tag selection out of send order");
}

/* Size of message number `seq` in the ordering test: small, empty and rendezvous-sized messages
 * interleave so a large message overtaken by a later small one is caught. */
static size_t order_size(int seq) {
    static const size_t sizes[] = {8, 64, BIG, 8, 3000, BIG * 3, 16, 9000, 8};
    return sizes[seq % (int)(sizeof sizes / sizeof sizes[0])];
}

#define NORDER 60

/* Each sender posts NORDER Isends alternating tags 10 and 11 with sequence numbers; rank 0 receives
 * them with `src`/`tag` (possibly wildcards) and checks that per sender the order is the send order
 * (restricted to the tags the receive can match). `barrier_first` makes the messages unexpected. */
static void order_round(int use_any_source, int use_any_tag, int barrier_first, int round) {
    if (rank != 0) {
        char **bufs = tu_xmalloc(NORDER * sizeof *bufs);
        MPI_Request *rq = tu_xmalloc(NORDER * sizeof *rq);
        for (int i = 0; i < NORDER; i++) {
            size_t n = order_size(i);
            bufs[i] = tu_xmalloc(n);
            tu_fill(bufs[i], n, rank, (unsigned)(round * 1000 + i));
            memcpy(bufs[i], &i, sizeof i); /* sequence number in the first 4 bytes */
            MPI_OK(MPI_Isend(bufs[i], (int)n, MPI_BYTE, 0, 10 + (i & 1), MPI_COMM_WORLD, &rq[i]));
        }
        if (barrier_first)
            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Waitall(NORDER, rq, MPI_STATUSES_IGNORE));
        for (int i = 0; i < NORDER; i++)
            free(bufs[i]);
        free(bufs);
        free(rq);
        return;
    }
    if (barrier_first)
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    char *buf = tu_xmalloc(BIG * 3);
    int *next = tu_xmalloc((size_t)size * 2 * sizeof *next); /* next seq per (source, tag) */
    for (int s = 0; s < size; s++) {
        next[2 * s] = 0;
        next[2 * s + 1] = 1;
    }
    int total = (size - 1) * NORDER;
    /* With a fixed tag, receive tag 10 then tag 11 messages; with ANY_TAG, any order. */
    for (int k = 0; k < total; k++) {
        int src = use_any_source ? MPI_ANY_SOURCE : 1 + (k % (size - 1));
        int tag = use_any_tag ? MPI_ANY_TAG : 10 + (k >= total / 2);
        MPI_Status st;
        MPI_OK(MPI_Recv(buf, BIG * 3, MPI_BYTE, src, tag, MPI_COMM_WORLD, &st));
        int s = st.MPI_SOURCE, t = st.MPI_TAG, seq, count;
        CHECK(s >= 1 && s < size && (t == 10 || t == 11), "order: source %d tag %d", s, t);
        MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
        memcpy(&seq, buf, sizeof seq);
        int *want = &next[2 * s + (t - 10)];
        if (use_any_tag) {
            /* ANY_TAG sees one stream per source: both tags in send order. */
            int lo = next[2 * s] < next[2 * s + 1] ? next[2 * s] : next[2 * s + 1];
            CHECK(seq == lo, "ANY_TAG order from %d: seq %d arrived, expected %d (round %d)", s,
                  seq, lo, round);
        }
        CHECK(seq == *want, "order from %d tag %d: seq %d arrived, expected %d (round %d)", s, t,
              seq, *want, round);
        CHECK((size_t)count == order_size(seq), "order: seq %d has %d bytes, expected %zu", seq,
              count, order_size(seq));
        /* The first 4 bytes carry seq; restore their pattern bytes, then check the whole message. */
        unsigned salt = (unsigned)(round * 1000 + seq);
        for (size_t i = 0; i < 4; i++)
            buf[i] = (char)tu_pattern_byte((size_t)count, s, salt, i);
        size_t bad = tu_verify(buf, (size_t)count, s, salt);
        CHECK(bad == TU_OK_INDEX, "order: seq %d from %d corrupt at byte %zu", seq, s, bad);
        *want += 2;
    }
    free(buf);
    free(next);
}

static void test_non_overtaking(void) {
    int round = 0;
    for (int any_src = 0; any_src <= 1; any_src++)
        for (int any_tag = 0; any_tag <= 1; any_tag++)
            for (int bar = 0; bar <= 1; bar++) {
                order_round(any_src, any_tag, bar, round++);
                /* Keeps the next round's messages out of this round's wildcard receives. */
                MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
            }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    tu_note("non-overtaking: %d msgs/sender mixing eager and %d-byte rendezvous, fixed and "
            "wildcard source/tag, expected and unexpected",
            NORDER, BIG * 3);
}

/* A message sent first on a duplicate communicator must never satisfy a receive on the original,
 * even a fully wildcarded one (and the other way round). */
static void test_comm_isolation(void) {
    MPI_Comm dup;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    if (rank == 1) {
        int a = 111, b = 222;
        char *big = tu_xmalloc(BIG);
        tu_fill(big, BIG, rank, 7);
        MPI_Request rq[3];
        MPI_OK(MPI_Isend(&a, 1, MPI_INT, 0, 0, dup, &rq[0]));
        MPI_OK(MPI_Isend(big, BIG, MPI_BYTE, 0, 0, dup, &rq[1]));
        MPI_OK(MPI_Isend(&b, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &rq[2]));
        MPI_OK(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
        free(big);
    } else if (rank == 0) {
        int v = 0;
        MPI_Status st;
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        CHECK(v == 222, "comm isolation: WORLD receive got %d (a message sent on the dup)", v);
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &st));
        CHECK(v == 111 && st.MPI_SOURCE == 1, "comm isolation: dup receive got %d", v);
        char *big = tu_xmalloc(BIG);
        MPI_OK(MPI_Recv(big, BIG, MPI_BYTE, 1, 0, dup, &st));
        CHECK(tu_verify(big, BIG, 1, 7) == TU_OK_INDEX, "comm isolation: big message corrupt");
        free(big);
    }
    MPI_OK(MPI_Comm_free(&dup));
    CHECK(dup == MPI_COMM_NULL, "Comm_free did not set the handle to MPI_COMM_NULL");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    tu_note("communicator isolation: Comm_dup traffic never matches COMM_WORLD receives");
}

static void test_probe(void) {
    if (rank == 1) {
        int ints[37];
        for (int i = 0; i < 37; i++)
            ints[i] = i * i;
        char *big = tu_xmalloc(BIG);
        tu_fill(big, BIG, rank, 43);
        int x50 = 50, x51 = 51;
        MPI_OK(MPI_Send(ints, 37, MPI_INT, 0, 42, MPI_COMM_WORLD));
        MPI_Request rq[3];
        MPI_OK(MPI_Isend(big, BIG, MPI_BYTE, 0, 43, MPI_COMM_WORLD, &rq[0]));
        MPI_OK(MPI_Isend(&x50, 1, MPI_INT, 0, 50, MPI_COMM_WORLD, &rq[1]));
        MPI_OK(MPI_Isend(&x51, 1, MPI_INT, 0, 51, MPI_COMM_WORLD, &rq[2]));
        MPI_OK(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
        free(big);
    } else if (rank == 0) {
        MPI_Status st;
        int count;
        MPI_OK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
        CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == 42 && count == 37,
              "Probe: source %d tag %d count %d, expected 1/42/37", st.MPI_SOURCE, st.MPI_TAG,
              count);
        /* Probing again must find the same message: probe does not consume. */
        MPI_OK(MPI_Probe(1, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        CHECK(st.MPI_TAG == 42, "second Probe saw tag %d", st.MPI_TAG);
        int *ints = tu_xmalloc((size_t)count * sizeof *ints);
        MPI_OK(MPI_Recv(ints, count, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st));
        for (int i = 0; i < 37; i++)
            CHECK(ints[i] == i * i, "Probe then Recv: element %d is %d", i, ints[i]);
        free(ints);
        /* Iprobe until the rendezvous-sized message is visible; its size comes from the status. */
        int flag = 0;
        while (!flag)
            MPI_OK(MPI_Iprobe(1, 43, MPI_COMM_WORLD, &flag, &st));
        MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
        CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == 43 && count == BIG,
              "Iprobe: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, count);
        char *big = tu_xmalloc((size_t)count);
        MPI_OK(MPI_Recv(big, count, MPI_BYTE, 1, 43, MPI_COMM_WORLD, &st));
        CHECK(tu_verify(big, BIG, 1, 43) == TU_OK_INDEX, "Iprobe then Recv: data corrupt");
        free(big);
        /* Probe for the later tag skips the earlier pending one. */
        MPI_OK(MPI_Probe(1, 51, MPI_COMM_WORLD, &st));
        CHECK(st.MPI_TAG == 51, "Probe(tag 51) returned tag %d", st.MPI_TAG);
        int v;
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, 1, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(v == 51, "tag 51 carried %d", v);
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, 1, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(v == 50, "tag 50 carried %d", v);
    }
    /* Iprobe with nothing that can match: flag 0 (tag 9999 is never sent). */
    int flag = 1;
    MPI_Status st;
    MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, 9999, MPI_COMM_WORLD, &flag, &st));
    CHECK(flag == 0, "Iprobe found a message with a tag nobody sent");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    tu_note("Probe/Iprobe: status source/tag/count, probe does not consume, exact receive");
}

static void check_null_status(const MPI_Status *st, const char *what) {
    int count = -1;
    MPI_OK(MPI_Get_count(st, MPI_INT, &count));
    CHECK(st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG && count == 0,
          "%s: status source %d tag %d count %d, expected PROC_NULL/ANY_TAG/0", what,
          st->MPI_SOURCE, st->MPI_TAG, count);
}

static void test_proc_null(void) {
    int buf[4] = {1, 2, 3, 4}, rbuf[4] = {-7, -7, -7, -7};
    MPI_Status st;
    MPI_Request rq;
    MPI_OK(MPI_Send(buf, 4, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD));
    MPI_OK(MPI_Recv(rbuf, 4, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st));
    check_null_status(&st, "Recv(PROC_NULL)");
    MPI_OK(MPI_Irecv(rbuf, 4, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &rq));
    MPI_OK(MPI_Wait(&rq, &st));
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40200000
    /* MPICH before 4.2 leaves source/tag 0 here (pmodels/mpich issue 6805): the peer's known bug. */
    tu_note("skipped: Irecv(PROC_NULL) status check (MPICH < 4.2 bug 6805)");
#else
    check_null_status(&st, "Irecv(PROC_NULL)");
#endif
    MPI_OK(MPI_Isend(buf, 4, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &rq));
    MPI_OK(MPI_Wait(&rq, &st));
    MPI_OK(MPI_Sendrecv(buf, 4, MPI_INT, MPI_PROC_NULL, 1, rbuf, 4, MPI_INT, MPI_PROC_NULL, 1,
                        MPI_COMM_WORLD, &st));
    check_null_status(&st, "Sendrecv(PROC_NULL)");
    for (int i = 0; i < 4; i++)
        CHECK(rbuf[i] == -7, "receive from PROC_NULL wrote into the buffer");
    /* PROC_NULL on one side only: a real shift where the ends talk to PROC_NULL. */
    int right = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int out = rank * 10, in = -1;
    MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, right, 4, &in, 1, MPI_INT, left, 4, MPI_COMM_WORLD,
                        &st));
    if (left == MPI_PROC_NULL) {
        check_null_status(&st, "Sendrecv shift at the left end");
        CHECK(in == -1, "shift: left end received %d from PROC_NULL", in);
    } else {
        CHECK(in == left * 10 && st.MPI_SOURCE == left, "shift: got %d from %d", in,
              st.MPI_SOURCE);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    tu_note("MPI_PROC_NULL: Send/Recv/Isend/Irecv/Sendrecv, status PROC_NULL/ANY_TAG/count 0");
}

/* A cancelled receive completes with Test_cancelled true, leaves its buffer alone and does not
 * consume the message sent later with the same envelope. No message with that envelope exists
 * until after the barrier, so the cancel must succeed. */
static void test_cancel(void) {
    if (rank == 0) {
        int a = -7, b = -7;
        MPI_Request rq;
        MPI_Status st;
        int flag = 0;
        MPI_OK(MPI_Irecv(&a, 1, MPI_INT, 1, 77, MPI_COMM_WORLD, &rq));
        MPI_OK(MPI_Cancel(&rq));
        MPI_OK(MPI_Wait(&rq, &st));
        MPI_OK(MPI_Test_cancelled(&st, &flag));
        CHECK(flag, "cancelled receive (fixed source): Test_cancelled is false");
        CHECK(rq == MPI_REQUEST_NULL, "Wait did not free the cancelled request");
        MPI_OK(MPI_Irecv(&b, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq));
        MPI_OK(MPI_Cancel(&rq));
        MPI_OK(MPI_Wait(&rq, &st));
        MPI_OK(MPI_Test_cancelled(&st, &flag));
        CHECK(flag, "cancelled receive (wildcards): Test_cancelled is false");
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        int v = 0;
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, 1, 77, MPI_COMM_WORLD, &st));
        CHECK(v == 4242, "receive after cancel got %d, expected 4242", v);
        CHECK(a == -7 && b == -7, "a cancelled receive wrote its buffer (%d, %d)", a, b);
        /* A receive that completed normally reports not cancelled. */
        MPI_OK(MPI_Test_cancelled(&st, &flag));
        CHECK(!flag, "completed receive reports cancelled");
    } else {
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 1) {
            int v = 4242;
            MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 77, MPI_COMM_WORLD));
        }
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    tu_note("cancel: pending receives cancel, Test_cancelled, later message not consumed");
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "match needs at least 2 ranks, got %d", size);
    test_wildcards();
    test_non_overtaking();
    test_comm_isolation();
    test_probe();
    test_proc_null();
    test_cancel();
    tu_note("match: all checks passed on %d ranks", size);
    MPI_Finalize();
    return 0;
}
