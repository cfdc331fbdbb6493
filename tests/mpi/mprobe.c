/* tests/mpi/mprobe.c — matched probe (MPI_Mprobe, Improbe, Mrecv, Imrecv): the probed message leaves
 * matching at once and Mrecv gets exactly it, for eager, prepush and rendezvous sizes. np >= 2. */
#include "testutil.h"

static int rank, size;

/* Across the slot, eager (512 B by default), prepush and rendezvous (pipelined copy; CMA above
 * 4 MiB or with CREDO_CMA_MIN=0) switches. */
static const size_t sizes[] = {0, 8, 2048, 16384, 1 << 20};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static void check_count(const MPI_Status *st, size_t n, const char *what) {
    int count = -1;
    MPI_OK(MPI_Get_count(st, MPI_BYTE, &count));
    CHECK((size_t)count == n, "%s: count %d, expected %zu", what, count, n);
}

static void check_proc_null_status(const MPI_Status *st, const char *what) {
    CHECK(st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG,
          "%s: status source %d tag %d, expected PROC_NULL/ANY_TAG", what, st->MPI_SOURCE,
          st->MPI_TAG);
    check_count(st, 0, what);
}

/* Every sender sends a tag-2 message (for the probe) and a tag-1 message (for receives rank 0
 * posted before any was sent). Rank 0 Mprobes with ANY_SOURCE/ANY_TAG: every match must be a
 * tag-2 message, the tag-1 ones all going to the posted receives. Between each probe and its
 * Mrecv a receive for exactly the probed envelope is posted: it must never get the message. */
static void any_source_with_posted(size_t n, unsigned salt) {
    int nsend = size - 1;
    if (rank != 0) {
        unsigned char *a = tu_xmalloc(n), *b = tu_xmalloc(n);
        tu_fill(a, n, rank, salt + 2);
        tu_fill(b, n, rank, salt + 1);
        MPI_Request rq[2];
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Isend(a, (int)n, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &rq[0]));
        MPI_OK(MPI_Isend(b, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &rq[1]));
        MPI_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        free(a);
        free(b);
        return;
    }
    unsigned char **posted = tu_xmalloc((size_t)nsend * sizeof *posted);
    unsigned char *mbuf = tu_xmalloc(n + 16);
    unsigned char *spoil = tu_xmalloc(n + 16);
    MPI_Request *prq = tu_xmalloc((size_t)nsend * sizeof *prq);
    MPI_Request *spoilers = tu_xmalloc((size_t)nsend * sizeof *spoilers);
    int *seen = tu_xcalloc((size_t)size, sizeof *seen);
    for (int i = 0; i < nsend; i++) {
        posted[i] = tu_xmalloc(n);
        MPI_OK(MPI_Irecv(posted[i], (int)n, MPI_BYTE, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &prq[i]));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int k = 0; k < nsend; k++) {
        MPI_Message msg = MPI_MESSAGE_NULL;
        MPI_Status st;
        MPI_OK(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st));
        int src = st.MPI_SOURCE;
        CHECK(msg != MPI_MESSAGE_NULL && msg != MPI_MESSAGE_NO_PROC,
              "%zu B: Mprobe returned no message handle", n);
        CHECK(st.MPI_TAG == 2, "%zu B: Mprobe matched tag %d from %d: a posted receive missed it",
              n, st.MPI_TAG, src);
        CHECK(src >= 1 && src < size && !seen[src], "%zu B: Mprobe matched source %d again", n,
              src);
        seen[src] = 1;
        check_count(&st, n, "Mprobe status");
        /* The probed message is out of matching: neither a probe nor a receive may see it. */
        int flag = 1;
        MPI_OK(MPI_Iprobe(src, 2, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "%zu B: Iprobe still sees the message Mprobe matched", n);
        MPI_Message other = MPI_MESSAGE_NULL;
        MPI_OK(MPI_Improbe(src, 2, MPI_COMM_WORLD, &flag, &other, MPI_STATUS_IGNORE));
        CHECK(!flag, "%zu B: Improbe matched the message Mprobe had matched", n);
        MPI_OK(MPI_Irecv(spoil, (int)n + 16, MPI_BYTE, src, 2, MPI_COMM_WORLD, &spoilers[k]));
        memset(mbuf, TU_CANARY, n + 16);
        MPI_Status rst;
        MPI_OK(MPI_Mrecv(mbuf, (int)n + 16, MPI_BYTE, &msg, &rst));
        CHECK(msg == MPI_MESSAGE_NULL, "%zu B: Mrecv did not set the message to MPI_MESSAGE_NULL",
              n);
        CHECK(rst.MPI_SOURCE == src && rst.MPI_TAG == 2, "%zu B: Mrecv status source %d tag %d",
              n, rst.MPI_SOURCE, rst.MPI_TAG);
        check_count(&rst, n, "Mrecv status");
        size_t bad = tu_verify(mbuf, n, src, salt + 2);
        CHECK(bad == TU_OK_INDEX, "%zu B from %d: Mrecv data wrong at offset %zu", n, src, bad);
        CHECK(tu_canary_intact(mbuf + n, 16), "%zu B: Mrecv wrote past the message", n);
    }
    MPI_Status *sts = tu_xmalloc((size_t)nsend * sizeof *sts);
    MPI_OK(MPI_Waitall(nsend, prq, sts));
    memset(seen, 0, (size_t)size * sizeof *seen);
    for (int i = 0; i < nsend; i++) {
        int src = sts[i].MPI_SOURCE;
        CHECK(sts[i].MPI_TAG == 1 && src >= 1 && src < size && !seen[src],
              "%zu B: posted receive %d got tag %d from %d", n, i, sts[i].MPI_TAG, src);
        seen[src] = 1;
        size_t bad = tu_verify(posted[i], n, src, salt + 1);
        CHECK(bad == TU_OK_INDEX, "%zu B: posted receive from %d wrong at offset %zu", n, src,
              bad);
        free(posted[i]);
    }
    /* The receives posted for the probed envelopes never matched anything. */
    for (int k = 0; k < nsend; k++) {
        int flag = 1;
        MPI_OK(MPI_Test(&spoilers[k], &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "%zu B: a receive posted after Mprobe completed", n);
        MPI_Status st;
        MPI_OK(MPI_Cancel(&spoilers[k]));
        MPI_OK(MPI_Wait(&spoilers[k], &st));
        MPI_OK(MPI_Test_cancelled(&st, &flag));
        CHECK(flag, "%zu B: a receive posted after Mprobe could not be cancelled", n);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    free(sts);
    free(posted);
    free(mbuf);
    free(spoil);
    free(prq);
    free(spoilers);
    free(seen);
}

/* Improbe says 0 until rank 1 sends (it waits for a go message), then 1; Imrecv gets the data.
 * Two messages with the same envelope: the probe takes the first, a receive gets the second. */
static void improbe_then_imrecv(size_t n, unsigned salt) {
    if (rank == 1) {
        int go;
        unsigned char *a = tu_xmalloc(n), *b = tu_xmalloc(n);
        tu_fill(a, n, rank, salt);
        tu_fill(b, n, rank, salt + 1);
        MPI_OK(MPI_Recv(&go, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_Request rq[2];
        MPI_OK(MPI_Isend(a, (int)n, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &rq[0]));
        MPI_OK(MPI_Isend(b, (int)n, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &rq[1]));
        MPI_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        free(a);
        free(b);
    } else if (rank == 0) {
        int flag = 1, go = 1;
        MPI_Message msg = MPI_MESSAGE_NULL;
        MPI_Status st;
        for (int i = 0; i < 3; i++) {
            MPI_OK(MPI_Improbe(1, 7, MPI_COMM_WORLD, &flag, &msg, &st));
            CHECK(!flag, "%zu B: Improbe matched before anything was sent", n);
        }
        MPI_OK(MPI_Send(&go, 1, MPI_INT, 1, 99, MPI_COMM_WORLD));
        long polls = 0;
        do {
            MPI_OK(MPI_Improbe(1, 7, MPI_COMM_WORLD, &flag, &msg, &st));
            polls++;
        } while (!flag);
        CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == 7, "%zu B: Improbe status source %d tag %d", n,
              st.MPI_SOURCE, st.MPI_TAG);
        check_count(&st, n, "Improbe status");
        /* A wrong tag still matches nothing. */
        MPI_Message none = MPI_MESSAGE_NULL;
        int f2 = 1;
        MPI_OK(MPI_Improbe(1, 8, MPI_COMM_WORLD, &f2, &none, MPI_STATUS_IGNORE));
        CHECK(!f2, "%zu B: Improbe with tag 8 matched", n);
        /* The second message is received first: it arrives after every chunk of the probed one,
         * so a long eager message the probe matched part-way is complete in the meantime. */
        unsigned char *first = tu_xmalloc(n), *second = tu_xmalloc(n);
        MPI_OK(MPI_Recv(second, (int)n, MPI_BYTE, 1, 7, MPI_COMM_WORLD, &st));
        check_count(&st, n, "Recv after Improbe");
        MPI_Request rq;
        MPI_OK(MPI_Imrecv(first, (int)n, MPI_BYTE, &msg, &rq));
        CHECK(msg == MPI_MESSAGE_NULL, "%zu B: Imrecv did not set the message to NULL", n);
        MPI_OK(MPI_Wait(&rq, &st));
        CHECK(rq == MPI_REQUEST_NULL, "Imrecv request not freed by Wait");
        CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == 7, "%zu B: Imrecv status source %d tag %d", n,
              st.MPI_SOURCE, st.MPI_TAG);
        check_count(&st, n, "Imrecv status");
        size_t bad = tu_verify(first, n, 1, salt);
        CHECK(bad == TU_OK_INDEX, "%zu B: Imrecv did not get the first message (offset %zu)", n,
              bad);
        bad = tu_verify(second, n, 1, salt + 1);
        CHECK(bad == TU_OK_INDEX, "%zu B: Recv did not get the second message (offset %zu)", n,
              bad);
        free(first);
        free(second);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void proc_null(void) {
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Status st;
    int flag = 0;
    MPI_OK(MPI_Mprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NO_PROC, "Mprobe(PROC_NULL) did not return MPI_MESSAGE_NO_PROC");
    check_proc_null_status(&st, "Mprobe(PROC_NULL)");
    int v = 42;
    MPI_OK(MPI_Mrecv(&v, 1, MPI_INT, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NULL && v == 42, "Mrecv(NO_PROC): message %s, buffer %d",
          msg == MPI_MESSAGE_NULL ? "NULL" : "not NULL", v);
    check_proc_null_status(&st, "Mrecv(NO_PROC)");
    MPI_OK(MPI_Improbe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st));
    CHECK(flag && msg == MPI_MESSAGE_NO_PROC, "Improbe(PROC_NULL): flag %d", flag);
    check_proc_null_status(&st, "Improbe(PROC_NULL)");
    MPI_Request rq = MPI_REQUEST_NULL;
    MPI_OK(MPI_Imrecv(&v, 1, MPI_INT, &msg, &rq));
    CHECK(msg == MPI_MESSAGE_NULL && rq != MPI_REQUEST_NULL, "Imrecv(NO_PROC) handles wrong");
    MPI_OK(MPI_Wait(&rq, &st));
    check_proc_null_status(&st, "Imrecv(NO_PROC)");
}

/* Messages to ourselves: buffered (small) and waiting in the sender's request (large). */
static void self_send(void) {
    for (size_t k = 0; k < NSIZES; k++) {
        size_t n = sizes[k];
        unsigned char *out = tu_xmalloc(n), *in = tu_xmalloc(n);
        tu_fill(out, n, rank, 300 + (unsigned)k);
        MPI_Request rq;
        MPI_OK(MPI_Isend(out, (int)n, MPI_BYTE, rank, 11, MPI_COMM_WORLD, &rq));
        MPI_Message msg;
        MPI_Status st;
        MPI_OK(MPI_Mprobe(rank, 11, MPI_COMM_WORLD, &msg, &st));
        check_count(&st, n, "self Mprobe");
        int flag = 1;
        MPI_OK(MPI_Iprobe(rank, 11, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "self %zu B: Iprobe sees the probed message", n);
        MPI_OK(MPI_Mrecv(in, (int)n, MPI_BYTE, &msg, &st));
        CHECK(st.MPI_SOURCE == rank && st.MPI_TAG == 11, "self %zu B: status source %d tag %d",
              n, st.MPI_SOURCE, st.MPI_TAG);
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        size_t bad = tu_verify(in, n, rank, 300 + (unsigned)k);
        CHECK(bad == TU_OK_INDEX, "self %zu B: wrong byte at %zu", n, bad);
        free(out);
        free(in);
    }
}

/* Mrecv into a vector type (every other int), and truncation (small and rendezvous sizes). */
static void vector_and_truncate(void) {
    enum { N = 600 }; /* 2400 B: above the default eager limit */
    MPI_Comm comm;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    MPI_OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    if (rank == 1) {
        int *v = tu_xmalloc(N * sizeof *v);
        for (int i = 0; i < N; i++)
            v[i] = i * 3 + 1;
        MPI_OK(MPI_Send(v, N, MPI_INT, 0, 5, comm));
        MPI_OK(MPI_Send(v, 10, MPI_INT, 0, 6, comm));
        MPI_OK(MPI_Send(v, N, MPI_INT, 0, 6, comm));
        free(v);
    } else if (rank == 0) {
        MPI_Datatype vec;
        MPI_OK(MPI_Type_vector(N, 1, 2, MPI_INT, &vec));
        MPI_OK(MPI_Type_commit(&vec));
        int *r = tu_xmalloc(2 * N * sizeof *r);
        for (int i = 0; i < 2 * N; i++)
            r[i] = -7;
        MPI_Message msg;
        MPI_Status st;
        MPI_OK(MPI_Mprobe(1, 5, comm, &msg, &st));
        /* An invalid count is reported and leaves the message to receive. */
        int rc = MPI_Mrecv(r, -1, vec, &msg, &st);
        CHECK(tu_class(rc) == MPI_ERR_COUNT, "Mrecv count -1: class %d", tu_class(rc));
        CHECK(msg != MPI_MESSAGE_NULL, "a failed Mrecv consumed the message");
        MPI_OK(MPI_Mrecv(r, 1, vec, &msg, &st));
        for (int i = 0; i < 2 * N; i++)
            CHECK(r[i] == (i % 2 ? -7 : (i / 2) * 3 + 1), "vector Mrecv: element %d is %d", i,
                  r[i]);
        MPI_OK(MPI_Type_free(&vec));
        /* Truncation: 10 ints, then N ints (rendezvous), into a 5-int buffer. */
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < 2 * N; i++)
                r[i] = -7;
            MPI_OK(MPI_Mprobe(1, 6, comm, &msg, &st));
            rc = MPI_Mrecv(r, 5, MPI_INT, &msg, &st);
            CHECK(tu_class(rc) == MPI_ERR_TRUNCATE && st.MPI_ERROR == rc,
                  "truncated Mrecv %d: class %d, status error %d", k, tu_class(rc), st.MPI_ERROR);
            CHECK(msg == MPI_MESSAGE_NULL, "truncated Mrecv kept the message");
            for (int i = 0; i < 2 * N; i++)
                CHECK(r[i] == (i < 5 ? i * 3 + 1 : -7), "truncated Mrecv %d: element %d is %d", k,
                      i, r[i]);
        }
        free(r);
    }
    MPI_OK(MPI_Barrier(comm));
    MPI_OK(MPI_Comm_free(&comm));
}

static void errors(void) {
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Request rq;
    MPI_Status st;
    int flag, v = 0;
    CHECK(tu_class(MPI_Mrecv(&v, 1, MPI_INT, &msg, &st)) == MPI_ERR_REQUEST,
          "Mrecv(MPI_MESSAGE_NULL) is not MPI_ERR_REQUEST");
    CHECK(tu_class(MPI_Imrecv(&v, 1, MPI_INT, &msg, &rq)) == MPI_ERR_REQUEST,
          "Imrecv(MPI_MESSAGE_NULL) is not MPI_ERR_REQUEST");
    CHECK(tu_class(MPI_Mprobe(size, 0, MPI_COMM_WORLD, &msg, &st)) == MPI_ERR_RANK,
          "Mprobe from rank size is not MPI_ERR_RANK");
    CHECK(tu_class(MPI_Improbe(0, -5, MPI_COMM_WORLD, &flag, &msg, &st)) == MPI_ERR_TAG,
          "Improbe with tag -5 is not MPI_ERR_TAG");
    CHECK(tu_class(MPI_Improbe(0, 0, MPI_COMM_NULL, &flag, &msg, &st)) == MPI_ERR_COMM,
          "Improbe on MPI_COMM_NULL is not MPI_ERR_COMM");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* A matched-probed message stays buffered until its Mrecv, so it still counts as unexpected
 * payload: with a probed 300 B message and a second unexpected one, the peak reaches 600 B. Runs
 * first, before anything else raises the (monotonic) peak. */
static void probed_bytes_stay_counted(void) {
#ifdef CREDO_STATS
    enum { N = 300 };
    unsigned char a[N], b[N];
    if (rank == 1) {
        tu_fill(a, N, 1, 7);
        tu_fill(b, N, 1, 8);
        MPI_OK(MPI_Send(a, N, MPI_BYTE, 0, 50, MPI_COMM_WORLD));
        int go;
        MPI_OK(MPI_Recv(&go, 1, MPI_INT, 0, 52, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Send(b, N, MPI_BYTE, 0, 51, MPI_COMM_WORLD));
    } else if (rank == 0) {
        MPI_Message m;
        MPI_Status st;
        MPI_OK(MPI_Mprobe(1, 50, MPI_COMM_WORLD, &m, &st));
        int go = 1; /* the second message is sent only once the first was taken by the probe */
        MPI_OK(MPI_Send(&go, 1, MPI_INT, 1, 52, MPI_COMM_WORLD));
        MPI_OK(MPI_Probe(1, 51, MPI_COMM_WORLD, &st)); /* the second is now buffered too */
        credo_fc_stats s;
        CHECK(credo_fc_stats_get(&s) == 0, "stats");
        CHECK(s.unexpected_peak_bytes >= 2 * N, "unexpected peak %llu B, want at least %d",
              (unsigned long long)s.unexpected_peak_bytes, 2 * N);
        MPI_OK(MPI_Mrecv(a, N, MPI_BYTE, &m, &st));
        MPI_OK(MPI_Recv(b, N, MPI_BYTE, 1, 51, MPI_COMM_WORLD, &st));
        CHECK(tu_verify(a, N, 1, 7) == TU_OK_INDEX && tu_verify(b, N, 1, 8) == TU_OK_INDEX,
              "probed-bytes payloads");
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
#endif
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "needs at least 2 ranks");
    probed_bytes_stay_counted();
    tu_note("a probed message's payload counts as unexpected until its Mrecv");
    for (size_t k = 0; k < NSIZES; k++) {
        any_source_with_posted(sizes[k], 10 * (unsigned)k);
        improbe_then_imrecv(sizes[k], 100 + 10 * (unsigned)k);
    }
    tu_note("Mprobe/Mrecv ANY_SOURCE with posted receives, Improbe/Imrecv, %zu sizes", NSIZES);
    proc_null();
    tu_note("PROC_NULL gives MPI_MESSAGE_NO_PROC");
    self_send();
    tu_note("self sends");
    vector_and_truncate();
    tu_note("vector datatype and truncation");
    errors();
    tu_note("argument errors");
    MPI_Finalize();
    return 0;
}
