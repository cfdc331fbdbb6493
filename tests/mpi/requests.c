/* tests/mpi/requests.c — request completion calls (Waitany, Waitsome, Testall, Testany, Test on null
 * requests) and status queries (Get_count, Get_elements, MPI_UNDEFINED). np >= 2. */
#include "testutil.h"

static int rank, size;

/* The "go" message releases the senders; until rank 0 sends it no receive below can complete, so
 * every "not yet complete" answer before it is deterministic. */
static void release_senders(void) {
    int go = 1;
    for (int s = 1; s < size; s++)
        MPI_OK(MPI_Send(&go, 1, MPI_INT, s, 99, MPI_COMM_WORLD));
}

static void send_after_go(int tag, int value, size_t bytes) {
    int go;
    MPI_OK(MPI_Recv(&go, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    char *buf = tu_xmalloc(bytes);
    tu_fill(buf, bytes, rank, (unsigned)tag);
    memcpy(buf, &value, sizeof value);
    MPI_OK(MPI_Send(buf, (int)bytes, MPI_BYTE, 0, tag, MPI_COMM_WORLD));
    free(buf);
}

/* Rank 0 posts one receive per sender (sender s uses tag 10+s and an eager or rendezvous size). */
static size_t req_bytes(int s) { return s % 2 ? 64 : 70000; }

static void post_receives(MPI_Request *rq, char **bufs) {
    for (int s = 1; s < size; s++) {
        bufs[s] = tu_xmalloc(req_bytes(s));
        MPI_OK(MPI_Irecv(bufs[s], (int)req_bytes(s), MPI_BYTE, s, 10 + s, MPI_COMM_WORLD,
                         &rq[s - 1]));
    }
}

static void check_received(int s, const char *buf, const MPI_Status *st, const char *what) {
    int value, count;
    memcpy(&value, buf, sizeof value);
    MPI_OK(MPI_Get_count(st, MPI_BYTE, &count));
    CHECK(st->MPI_SOURCE == s && st->MPI_TAG == 10 + s && value == s * 7 &&
              (size_t)count == req_bytes(s),
          "%s: request of sender %d completed with source %d tag %d value %d count %d", what, s,
          st->MPI_SOURCE, st->MPI_TAG, value, count);
}

static void test_waitany_waitsome(void) {
    int n = size - 1;
    if (rank != 0) {
        send_after_go(10 + rank, rank * 7, req_bytes(rank));
        send_after_go(10 + rank, rank * 7, req_bytes(rank));
        send_after_go(10 + rank, rank * 7, req_bytes(rank));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        return;
    }
    MPI_Request *rq = tu_xmalloc((size_t)n * sizeof *rq);
    char **bufs = tu_xmalloc((size_t)size * sizeof *bufs);
    int *done = tu_xmalloc((size_t)n * sizeof *done), *idx = tu_xmalloc((size_t)n * sizeof *idx);
    MPI_Status *sts = tu_xmalloc((size_t)n * sizeof *sts);
    int flag, index;
    MPI_Status st;

    /* Waitany: every index exactly once, completed requests become MPI_REQUEST_NULL. */
    post_receives(rq, bufs);
    MPI_OK(MPI_Testany(n, rq, &index, &flag, &st));
    CHECK(!flag && index == MPI_UNDEFINED, "Testany before any send: flag %d index %d", flag,
          index);
    release_senders();
    memset(done, 0, (size_t)n * sizeof *done);
    for (int i = 0; i < n; i++) {
        MPI_OK(MPI_Waitany(n, rq, &index, &st));
        CHECK(index >= 0 && index < n && !done[index], "Waitany returned index %d", index);
        CHECK(rq[index] == MPI_REQUEST_NULL, "Waitany left request %d active", index);
        done[index] = 1;
        check_received(index + 1, bufs[index + 1], &st, "Waitany");
    }
    MPI_OK(MPI_Waitany(n, rq, &index, &st));
    CHECK(index == MPI_UNDEFINED, "Waitany on all-null requests: index %d", index);
    MPI_OK(MPI_Testany(n, rq, &index, &flag, &st));
    CHECK(flag && index == MPI_UNDEFINED, "Testany on all-null: flag %d index %d", flag, index);

    /* Waitsome: the outcounts add up, indices are distinct, all-null gives MPI_UNDEFINED. */
    for (int s = 1; s < size; s++)
        free(bufs[s]);
    post_receives(rq, bufs);
    release_senders();
    memset(done, 0, (size_t)n * sizeof *done);
    int total = 0;
    while (total < n) {
        int outcount;
        MPI_OK(MPI_Waitsome(n, rq, &outcount, idx, sts));
        CHECK(outcount >= 1 && outcount <= n - total, "Waitsome outcount %d", outcount);
        for (int i = 0; i < outcount; i++) {
            CHECK(idx[i] >= 0 && idx[i] < n && !done[idx[i]], "Waitsome index %d", idx[i]);
            done[idx[i]] = 1;
            check_received(idx[i] + 1, bufs[idx[i] + 1], &sts[i], "Waitsome");
        }
        total += outcount;
    }
    int outcount;
    MPI_OK(MPI_Waitsome(n, rq, &outcount, idx, sts));
    CHECK(outcount == MPI_UNDEFINED, "Waitsome on all-null: outcount %d", outcount);

    /* Testall: false until every receive is done, then true; Testany finds them one by one. */
    for (int s = 1; s < size; s++)
        free(bufs[s]);
    post_receives(rq, bufs);
    for (int i = 0; i < 50; i++) {
        MPI_OK(MPI_Testall(n, rq, &flag, sts));
        CHECK(!flag, "Testall true before any message was sent");
    }
    release_senders();
    flag = 0;
    while (!flag)
        MPI_OK(MPI_Testall(n, rq, &flag, sts));
    for (int i = 0; i < n; i++) {
        CHECK(rq[i] == MPI_REQUEST_NULL, "Testall left request %d active", i);
        check_received(i + 1, bufs[i + 1], &sts[i], "Testall");
    }
    for (int s = 1; s < size; s++)
        free(bufs[s]);
    free(rq);
    free(bufs);
    free(done);
    free(idx);
    free(sts);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    tu_note("Waitany/Waitsome/Testall/Testany over %d eager and rendezvous receives", n);
}

/* Wait and Test on MPI_REQUEST_NULL return at once with an empty status. */
static void test_null_requests(void) {
    MPI_Request rq = MPI_REQUEST_NULL;
    MPI_Status st;
    int flag = 0, count = -1;
    MPI_OK(MPI_Wait(&rq, &st));
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG && count == 0,
          "Wait(REQUEST_NULL): empty status expected, got source %d tag %d count %d",
          st.MPI_SOURCE, st.MPI_TAG, count);
    MPI_OK(MPI_Test(&rq, &flag, &st));
    CHECK(flag, "Test(REQUEST_NULL) flag false");
    MPI_Request two[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_OK(MPI_Waitall(2, two, MPI_STATUSES_IGNORE));
    MPI_OK(MPI_Testall(2, two, &flag, MPI_STATUSES_IGNORE));
    CHECK(flag, "Testall over null requests: flag false");
    tu_note("Wait/Test/Waitall/Testall on MPI_REQUEST_NULL: immediate, empty status");
}

/* Get_count and Get_elements: whole, partial (MPI_UNDEFINED) and empty counts. */
static void test_counts(void) {
    MPI_Datatype three;
    MPI_OK(MPI_Type_contiguous(3, MPI_INT, &three));
    MPI_OK(MPI_Type_commit(&three));
    if (rank == 1) {
        int v[12];
        for (int i = 0; i < 12; i++)
            v[i] = i;
        MPI_OK(MPI_Send(v, 12, MPI_INT, 0, 1, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(v, 7, MPI_INT, 0, 2, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(v, 0, MPI_INT, 0, 3, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(v, 10, MPI_BYTE, 0, 4, MPI_COMM_WORLD));
    } else if (rank == 0) {
        int v[12], count, elems;
        MPI_Status st;
        MPI_OK(MPI_Recv(v, 4, three, 1, 1, MPI_COMM_WORLD, &st));
        MPI_OK(MPI_Get_count(&st, three, &count));
        MPI_OK(MPI_Get_elements(&st, three, &elems));
        CHECK(count == 4 && elems == 12, "12 ints as 3-int type: count %d elements %d", count,
              elems);
        MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
        CHECK(count == 12, "12 ints: Get_count(MPI_INT) %d", count);
        MPI_OK(MPI_Recv(v, 4, three, 1, 2, MPI_COMM_WORLD, &st));
        MPI_OK(MPI_Get_count(&st, three, &count));
        MPI_OK(MPI_Get_elements(&st, three, &elems));
        CHECK(count == MPI_UNDEFINED && elems == 7,
              "7 ints as 3-int type: count %d (want MPI_UNDEFINED) elements %d (want 7)", count,
              elems);
        for (int i = 0; i < 7; i++)
            CHECK(v[i] == i, "partial derived receive: element %d is %d", i, v[i]);
        MPI_OK(MPI_Recv(v, 4, three, 1, 3, MPI_COMM_WORLD, &st));
        MPI_OK(MPI_Get_count(&st, three, &count));
        MPI_OK(MPI_Get_elements(&st, three, &elems));
        CHECK(count == 0 && elems == 0, "empty message: count %d elements %d", count, elems);
        MPI_OK(MPI_Recv(v, 48, MPI_BYTE, 1, 4, MPI_COMM_WORLD, &st));
        MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
        CHECK(count == 10, "10 bytes: Get_count(MPI_BYTE) %d", count);
        MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
        CHECK(count == MPI_UNDEFINED, "10 bytes as MPI_INT: Get_count %d, want MPI_UNDEFINED",
              count);
    }
    MPI_OK(MPI_Type_free(&three));
    CHECK(three == MPI_DATATYPE_NULL, "Type_free did not set MPI_DATATYPE_NULL");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    tu_note("Get_count/Get_elements: whole, partial (MPI_UNDEFINED), empty");
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "requests needs at least 2 ranks");
    test_waitany_waitsome();
    test_null_requests();
    test_counts();
    tu_note("requests: all checks passed on %d ranks", size);
    MPI_Finalize();
    return 0;
}
