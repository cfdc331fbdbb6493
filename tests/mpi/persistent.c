/* tests/mpi/persistent.c — persistent requests (Send/Ssend/Rsend/Bsend/Recv_init, Start, Startall):
 * a halo exchange restarted 100+ times, inactive-request semantics, free, cancel, errors. np >= 2. */
#include "testutil.h"

static int rank, size, left, right;

/* Across the eager (512 B by default), prepush and rendezvous switches. */
static const size_t sizes[] = {8, 2048, 16384, 1 << 20};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static void check_empty_status(const MPI_Status *st, const char *what) {
    int count = -1;
    MPI_OK(MPI_Get_count(st, MPI_BYTE, &count));
    CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG && count == 0 &&
              st->MPI_ERROR == MPI_SUCCESS,
          "%s: status source %d tag %d count %d error %d, expected the empty status", what,
          st->MPI_SOURCE, st->MPI_TAG, count, st->MPI_ERROR);
}

static void poison_status(MPI_Status *st) {
    st->MPI_SOURCE = 12345;
    st->MPI_TAG = 12345;
    st->MPI_ERROR = MPI_SUCCESS;
}

/* Ring halo exchange: receive from both neighbours, send to both (tag 1 goes right, tag 2 left),
 * all four requests persistent and restarted every iteration with new data. */
static void halo(size_t n, int iters) {
    unsigned char *sbuf[2], *rbuf[2];
    for (int d = 0; d < 2; d++) {
        sbuf[d] = tu_xmalloc(n);
        rbuf[d] = tu_xmalloc(n + 8);
    }
    MPI_Request rq[4];
    /* rq[0]: from the left (its rightward message), rq[1]: from the right */
    MPI_OK(MPI_Recv_init(rbuf[0], (int)n, MPI_BYTE, left, 1, MPI_COMM_WORLD, &rq[0]));
    MPI_OK(MPI_Recv_init(rbuf[1], (int)n, MPI_BYTE, right, 2, MPI_COMM_WORLD, &rq[1]));
    MPI_OK(MPI_Send_init(sbuf[0], (int)n, MPI_BYTE, right, 1, MPI_COMM_WORLD, &rq[2]));
    MPI_OK(MPI_Send_init(sbuf[1], (int)n, MPI_BYTE, left, 2, MPI_COMM_WORLD, &rq[3]));
    MPI_Request keep[4];
    memcpy(keep, rq, sizeof keep);
    for (int it = 0; it < iters; it++) {
        tu_fill(sbuf[0], n, rank, (unsigned)(2 * it));
        tu_fill(sbuf[1], n, rank, (unsigned)(2 * it + 1));
        memset(rbuf[0], TU_CANARY, n + 8);
        memset(rbuf[1], TU_CANARY, n + 8);
        MPI_Status st[4];
        if (it % 2) {
            MPI_OK(MPI_Startall(4, rq));
        } else { /* receives first, then the sends one by one */
            MPI_OK(MPI_Startall(2, rq));
            MPI_OK(MPI_Start(&rq[2]));
            MPI_OK(MPI_Start(&rq[3]));
        }
        MPI_OK(MPI_Waitall(4, rq, st));
        CHECK(memcmp(keep, rq, sizeof keep) == 0, "%zu B it %d: Waitall changed a persistent handle",
              n, it);
        for (int d = 0; d < 2; d++) {
            int from = d == 0 ? left : right;
            int count = -1;
            MPI_OK(MPI_Get_count(&st[d], MPI_BYTE, &count));
            CHECK(st[d].MPI_SOURCE == from && st[d].MPI_TAG == d + 1 && (size_t)count == n,
                  "%zu B it %d dir %d: status source %d tag %d count %d", n, it, d,
                  st[d].MPI_SOURCE, st[d].MPI_TAG, count);
            size_t bad = tu_verify(rbuf[d], n, from, (unsigned)(2 * it + d));
            CHECK(bad == TU_OK_INDEX, "%zu B it %d dir %d: wrong byte at %zu", n, it, d, bad);
            CHECK(tu_canary_intact(rbuf[d] + n, 8), "%zu B it %d: receive wrote past %zu bytes", n,
                  it, n);
        }
        /* Inactive again: a second wait returns at once with the empty status. */
        MPI_Status again;
        poison_status(&again);
        MPI_OK(MPI_Wait(&rq[0], &again));
        check_empty_status(&again, "Wait on a completed persistent receive");
    }
    for (int i = 0; i < 4; i++) {
        MPI_OK(MPI_Request_free(&rq[i]));
        CHECK(rq[i] == MPI_REQUEST_NULL, "Request_free did not set the handle to NULL");
    }
    for (int d = 0; d < 2; d++) {
        free(sbuf[d]);
        free(rbuf[d]);
    }
}

/* A vector type (every other int) on both sides, restarted 100 times; the type is freed right
 * after the requests are created (they keep it alive). Gaps on the receiver stay untouched. */
static void vector_type(void) {
    enum { N = 700, ITERS = 100 }; /* 2800 B of data: rendezvous with the default eager limit */
    MPI_Datatype vec;
    MPI_OK(MPI_Type_vector(N, 1, 2, MPI_INT, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    int *s = tu_xmalloc(2 * N * sizeof *s), *r = tu_xmalloc(2 * N * sizeof *r);
    MPI_Request rq[2];
    MPI_OK(MPI_Recv_init(r, 1, vec, left, 3, MPI_COMM_WORLD, &rq[0]));
    MPI_OK(MPI_Send_init(s, 1, vec, right, 3, MPI_COMM_WORLD, &rq[1]));
    MPI_OK(MPI_Type_free(&vec));
    for (int it = 0; it < ITERS; it++) {
        for (int i = 0; i < 2 * N; i++) {
            s[i] = i % 2 ? -1 : rank * 100000 + it * 1000 + i;
            r[i] = -7;
        }
        MPI_OK(MPI_Startall(2, rq));
        MPI_Status st[2];
        MPI_OK(MPI_Waitall(2, rq, st));
        int count = -1;
        MPI_OK(MPI_Get_count(&st[0], MPI_INT, &count));
        CHECK(count == N, "vector it %d: %d ints received", it, count);
        for (int i = 0; i < 2 * N; i++)
            CHECK(r[i] == (i % 2 ? -7 : left * 100000 + it * 1000 + i),
                  "vector it %d: element %d is %d", it, i, r[i]);
    }
    MPI_OK(MPI_Request_free(&rq[0]));
    MPI_OK(MPI_Request_free(&rq[1]));
    free(s);
    free(r);
}

/* The wait/test family on persistent requests that were never started. */
static void inactive(void) {
    int v = 0, flag = 0, index = 0, outcount = 0, indices[3];
    MPI_Request rq, arr[3];
    MPI_Status st, sts[3];
    MPI_OK(MPI_Recv_init(&v, 1, MPI_INT, right, 4, MPI_COMM_WORLD, &rq));
    MPI_Request keep = rq;
    poison_status(&st);
    MPI_OK(MPI_Wait(&rq, &st));
    CHECK(rq == keep, "Wait on an inactive request changed the handle");
    check_empty_status(&st, "Wait on an inactive request");
    poison_status(&st);
    MPI_OK(MPI_Test(&rq, &flag, &st));
    CHECK(flag && rq == keep, "Test on an inactive request: flag %d", flag);
    check_empty_status(&st, "Test on an inactive request");
    poison_status(&st);
    MPI_OK(MPI_Request_get_status(rq, &flag, &st));
    CHECK(flag, "Request_get_status on an inactive request: flag 0");
    check_empty_status(&st, "Request_get_status on an inactive request");
    arr[0] = rq;
    arr[1] = MPI_REQUEST_NULL;
    arr[2] = rq;
    MPI_OK(MPI_Waitany(3, arr, &index, &st));
    CHECK(index == MPI_UNDEFINED, "Waitany on inactive/null requests: index %d", index);
    MPI_OK(MPI_Testany(3, arr, &index, &flag, &st));
    CHECK(flag && index == MPI_UNDEFINED, "Testany on inactive/null: flag %d index %d", flag,
          index);
    MPI_OK(MPI_Waitsome(3, arr, &outcount, indices, sts));
    CHECK(outcount == MPI_UNDEFINED, "Waitsome on inactive/null: outcount %d", outcount);
    MPI_OK(MPI_Testsome(3, arr, &outcount, indices, sts));
    CHECK(outcount == MPI_UNDEFINED, "Testsome on inactive/null: outcount %d", outcount);
    for (int i = 0; i < 3; i++)
        poison_status(&sts[i]);
    MPI_OK(MPI_Waitall(3, arr, sts));
    MPI_OK(MPI_Testall(3, arr, &flag, sts));
    CHECK(flag, "Testall on inactive/null: flag 0");
    check_empty_status(&sts[0], "Waitall status of an inactive request");
    CHECK(arr[0] == keep && arr[2] == keep, "Waitall changed inactive handles");

    /* One active among inactive ones: Waitany must return it, then report none active. */
    MPI_Request snd;
    int w = rank + 1000;
    MPI_OK(MPI_Send_init(&w, 1, MPI_INT, left, 4, MPI_COMM_WORLD, &snd));
    MPI_OK(MPI_Start(&rq));
    arr[0] = snd; /* inactive */
    arr[1] = rq;  /* active */
    arr[2] = MPI_REQUEST_NULL;
    MPI_OK(MPI_Start(&snd));
    MPI_OK(MPI_Wait(&snd, MPI_STATUS_IGNORE)); /* snd inactive again */
    MPI_OK(MPI_Waitany(3, arr, &index, &st));
    CHECK(index == 1 && v == right + 1000 && st.MPI_SOURCE == right,
          "Waitany with one active request: index %d value %d source %d", index, v, st.MPI_SOURCE);
    CHECK(arr[1] == rq, "Waitany freed a persistent request");
    MPI_OK(MPI_Waitany(3, arr, &index, &st));
    CHECK(index == MPI_UNDEFINED, "Waitany after the only active one completed: index %d", index);
    MPI_OK(MPI_Request_free(&rq));
    MPI_OK(MPI_Request_free(&snd));
}

/* Cancel of an inactive receive does nothing; started, it cancels; started again, it receives.
 * Rank 0 receives from rank 1, which sends only after rank 0 says so. */
static void cancel(void) {
    int v = -1;
    if (rank == 0) {
        MPI_Request rq;
        MPI_Status st;
        int flag = 0;
        MPI_OK(MPI_Recv_init(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &rq));
        MPI_OK(MPI_Cancel(&rq));
        MPI_OK(MPI_Wait(&rq, &st));
        check_empty_status(&st, "Wait after Cancel of an inactive request");
        MPI_OK(MPI_Start(&rq));
        MPI_OK(MPI_Cancel(&rq));
        MPI_OK(MPI_Wait(&rq, &st));
        MPI_OK(MPI_Test_cancelled(&st, &flag));
        CHECK(flag && v == -1, "started receive was not cancelled (flag %d value %d)", flag, v);
        CHECK(rq != MPI_REQUEST_NULL, "Wait freed a cancelled persistent request");
        MPI_OK(MPI_Start(&rq));
        int go = 1;
        MPI_OK(MPI_Send(&go, 1, MPI_INT, 1, 6, MPI_COMM_WORLD));
        MPI_OK(MPI_Wait(&rq, &st));
        MPI_OK(MPI_Test_cancelled(&st, &flag));
        CHECK(!flag && v == 4242 && st.MPI_SOURCE == 1 && st.MPI_TAG == 5,
              "restart after cancel: cancelled %d value %d source %d tag %d", flag, v,
              st.MPI_SOURCE, st.MPI_TAG);
        MPI_OK(MPI_Request_free(&rq));
    } else if (rank == 1) {
        int go, x = 4242;
        MPI_OK(MPI_Recv(&go, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Send(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* Request_free of active requests: rank 0 frees a started receive (small and rendezvous) and rank
 * 1 a started send; the operations still complete. Rank 1 sends "done" once its sends completed,
 * so when rank 0 has it the freed receives have their data. */
static void free_active(void) {
    enum { BIG = 300000 };
    if (rank == 0) {
        int small = -1;
        unsigned char *big = tu_xmalloc(BIG);
        MPI_Request a, b;
        MPI_OK(MPI_Recv_init(&small, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &a));
        MPI_OK(MPI_Recv_init(big, BIG, MPI_BYTE, 1, 8, MPI_COMM_WORLD, &b));
        MPI_OK(MPI_Start(&a));
        MPI_OK(MPI_Start(&b));
        MPI_OK(MPI_Request_free(&a));
        MPI_OK(MPI_Request_free(&b));
        CHECK(a == MPI_REQUEST_NULL && b == MPI_REQUEST_NULL, "Request_free left handles");
        int go = 1, done = 0;
        MPI_OK(MPI_Send(&go, 1, MPI_INT, 1, 6, MPI_COMM_WORLD));
        MPI_OK(MPI_Recv(&done, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(small == 77, "freed active receive got %d", small);
        size_t bad = tu_verify(big, BIG, 1, 8);
        CHECK(bad == TU_OK_INDEX, "freed active rendezvous receive: wrong byte at %zu", bad);
        /* The freed send of rank 1 (tag 10). */
        int w = 0;
        MPI_OK(MPI_Recv(&w, 1, MPI_INT, 1, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(w == 99, "freed active send delivered %d", w);
        free(big);
    } else if (rank == 1) {
        int go, x = 77, y = 99, done = 1;
        unsigned char *big = tu_xmalloc(BIG);
        tu_fill(big, BIG, 1, 8);
        MPI_OK(MPI_Recv(&go, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Send(&x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(big, BIG, MPI_BYTE, 0, 8, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(&done, 1, MPI_INT, 0, 9, MPI_COMM_WORLD));
        MPI_Request s;
        MPI_OK(MPI_Send_init(&y, 1, MPI_INT, 0, 10, MPI_COMM_WORLD, &s));
        MPI_OK(MPI_Start(&s));
        MPI_OK(MPI_Request_free(&s));
        free(big); /* the blocking send of it has returned */
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* The other send modes and PROC_NULL, each started several times. */
static void modes(void) {
    enum { ITERS = 20 };
    int bsize = 4 * (int)(sizeof(int) + MPI_BSEND_OVERHEAD);
    void *bbuf = tu_xmalloc((size_t)bsize);
    MPI_OK(MPI_Buffer_attach(bbuf, bsize));
    int vals[3], got[3];
    MPI_Request rq[6];
    MPI_OK(MPI_Ssend_init(&vals[0], 1, MPI_INT, right, 20, MPI_COMM_WORLD, &rq[0]));
    MPI_OK(MPI_Rsend_init(&vals[1], 1, MPI_INT, right, 21, MPI_COMM_WORLD, &rq[1]));
    MPI_OK(MPI_Bsend_init(&vals[2], 1, MPI_INT, right, 22, MPI_COMM_WORLD, &rq[2]));
    for (int k = 0; k < 3; k++)
        MPI_OK(MPI_Recv_init(&got[k], 1, MPI_INT, left, 20 + k, MPI_COMM_WORLD, &rq[3 + k]));
    for (int it = 0; it < ITERS; it++) {
        for (int k = 0; k < 3; k++) {
            vals[k] = rank * 1000 + it * 10 + k;
            got[k] = -1;
        }
        MPI_OK(MPI_Startall(3, &rq[3]));
        /* Rsend needs the matching receive posted: everyone has started theirs after this. */
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Startall(3, rq));
        MPI_OK(MPI_Waitall(6, rq, MPI_STATUSES_IGNORE));
        for (int k = 0; k < 3; k++)
            CHECK(got[k] == left * 1000 + it * 10 + k, "mode %d it %d: got %d", k, it, got[k]);
    }
    for (int i = 0; i < 6; i++)
        MPI_OK(MPI_Request_free(&rq[i]));
    /* A buffered send of a strided type: packed into the attached buffer at every start. */
    int strided[6], pair[2];
    MPI_Datatype every3;
    MPI_OK(MPI_Type_vector(2, 1, 3, MPI_INT, &every3));
    MPI_OK(MPI_Type_commit(&every3));
    MPI_Request bs, br;
    MPI_OK(MPI_Bsend_init(strided, 1, every3, right, 23, MPI_COMM_WORLD, &bs));
    MPI_OK(MPI_Type_free(&every3)); /* the request keeps it */
    MPI_OK(MPI_Recv_init(pair, 2, MPI_INT, left, 23, MPI_COMM_WORLD, &br));
    for (int it = 0; it < 3; it++) {
        for (int k = 0; k < 6; k++)
            strided[k] = rank * 100 + it * 10 + k;
        MPI_OK(MPI_Start(&br));
        MPI_OK(MPI_Start(&bs));
        strided[0] = strided[3] = -7; /* the data was copied at the start */
        MPI_OK(MPI_Wait(&bs, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Wait(&br, MPI_STATUS_IGNORE));
        CHECK(pair[0] == left * 100 + it * 10 && pair[1] == left * 100 + it * 10 + 3,
              "Bsend_init of a vector type, it %d: got %d %d", it, pair[0], pair[1]);
    }
    MPI_OK(MPI_Request_free(&bs));
    MPI_OK(MPI_Request_free(&br));
    void *det;
    int dsize;
    MPI_OK(MPI_Buffer_detach(&det, &dsize));
    free(bbuf);

    MPI_Request pn[2];
    int v = 5;
    MPI_OK(MPI_Send_init(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &pn[0]));
    MPI_OK(MPI_Recv_init(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &pn[1]));
    for (int it = 0; it < 3; it++) {
        MPI_Status st[2];
        MPI_OK(MPI_Startall(2, pn));
        MPI_OK(MPI_Waitall(2, pn, st));
        int count = -1;
        MPI_OK(MPI_Get_count(&st[1], MPI_INT, &count));
        CHECK(st[1].MPI_SOURCE == MPI_PROC_NULL && st[1].MPI_TAG == MPI_ANY_TAG && count == 0 &&
                  v == 5,
              "PROC_NULL receive: source %d tag %d count %d value %d", st[1].MPI_SOURCE,
              st[1].MPI_TAG, count, v);
    }
    MPI_OK(MPI_Request_free(&pn[0]));
    MPI_OK(MPI_Request_free(&pn[1]));
}

static void errors(void) {
    MPI_Comm comm;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    MPI_OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int v = 0;
    MPI_Request rq = MPI_REQUEST_NULL, other;
    CHECK(tu_class(MPI_Send_init(&v, 1, MPI_INT, size, 0, comm, &rq)) == MPI_ERR_RANK,
          "Send_init to rank size is not MPI_ERR_RANK");
    CHECK(tu_class(MPI_Ssend_init(&v, 1, MPI_INT, 0, -2, comm, &rq)) == MPI_ERR_TAG,
          "Ssend_init with tag -2 is not MPI_ERR_TAG");
    CHECK(tu_class(MPI_Rsend_init(&v, -1, MPI_INT, 0, 0, comm, &rq)) == MPI_ERR_COUNT,
          "Rsend_init with count -1 is not MPI_ERR_COUNT");
    CHECK(tu_class(MPI_Bsend_init(&v, 1, MPI_DATATYPE_NULL, 0, 0, comm, &rq)) == MPI_ERR_TYPE,
          "Bsend_init with MPI_DATATYPE_NULL is not MPI_ERR_TYPE");
    CHECK(tu_class(MPI_Recv_init(&v, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &rq)) == MPI_ERR_COMM,
          "Recv_init on MPI_COMM_NULL is not MPI_ERR_COMM");
    CHECK(tu_class(MPI_Recv_init(&v, 1, MPI_INT, -7, 0, comm, &rq)) == MPI_ERR_RANK,
          "Recv_init from rank -7 is not MPI_ERR_RANK");
    CHECK(tu_class(MPI_Recv_init(&v, 1, MPI_INT, 0, 0, comm, NULL)) == MPI_ERR_REQUEST,
          "Recv_init with a NULL request is not MPI_ERR_REQUEST");
    CHECK(rq == MPI_REQUEST_NULL, "a failed *_init set the request");
    rq = MPI_REQUEST_NULL;
    CHECK(tu_class(MPI_Start(&rq)) == MPI_ERR_REQUEST, "Start(MPI_REQUEST_NULL)");
    /* A non-persistent request cannot be started. */
    MPI_OK(MPI_Irecv(&v, 1, MPI_INT, 0, 77, comm, &other));
    CHECK(tu_class(MPI_Start(&other)) == MPI_ERR_REQUEST, "Start of an Irecv request");
    MPI_OK(MPI_Cancel(&other));
    MPI_OK(MPI_Wait(&other, MPI_STATUS_IGNORE));
    /* Starting an active request; Startall with one active request starts none. */
    MPI_Request pr[2];
    MPI_OK(MPI_Recv_init(&v, 1, MPI_INT, 0, 78, comm, &pr[0]));
    MPI_OK(MPI_Recv_init(&v, 1, MPI_INT, 0, 79, comm, &pr[1]));
    MPI_OK(MPI_Start(&pr[1]));
    CHECK(tu_class(MPI_Start(&pr[1])) == MPI_ERR_REQUEST, "Start of an active request");
    CHECK(tu_class(MPI_Startall(2, pr)) == MPI_ERR_REQUEST, "Startall with an active request");
    int flag = 0;
    MPI_Status st;
    MPI_OK(MPI_Test(&pr[0], &flag, &st));
    CHECK(flag, "Startall that failed started the inactive request");
    check_empty_status(&st, "request left inactive by a failed Startall");
    CHECK(tu_class(MPI_Startall(-1, pr)) == MPI_ERR_COUNT, "Startall with count -1");
    MPI_OK(MPI_Cancel(&pr[1]));
    MPI_OK(MPI_Wait(&pr[1], &st));
    MPI_OK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "active persistent receive was not cancelled");
    MPI_OK(MPI_Request_free(&pr[0]));
    MPI_OK(MPI_Request_free(&pr[1]));
    /* A freed communicator lives on in its persistent requests. */
    MPI_Comm c2;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c2));
    int x = rank, y = -1;
    MPI_Request cr[2];
    MPI_OK(MPI_Recv_init(&y, 1, MPI_INT, left, 0, c2, &cr[0]));
    MPI_OK(MPI_Send_init(&x, 1, MPI_INT, right, 0, c2, &cr[1]));
    MPI_OK(MPI_Comm_free(&c2));
    MPI_OK(MPI_Startall(2, cr));
    MPI_OK(MPI_Waitall(2, cr, MPI_STATUSES_IGNORE));
    CHECK(y == left, "persistent exchange on a freed communicator got %d", y);
    MPI_OK(MPI_Request_free(&cr[0]));
    MPI_OK(MPI_Request_free(&cr[1]));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    MPI_OK(MPI_Comm_free(&comm));
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "needs at least 2 ranks");
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;
    for (size_t k = 0; k < NSIZES; k++)
        halo(sizes[k], sizes[k] >= (1 << 20) ? 4 : 120);
    tu_note("persistent halo exchange, %zu sizes, Start and Startall", NSIZES);
    vector_type();
    tu_note("vector datatype, type freed after init");
    inactive();
    tu_note("wait/test family on inactive requests");
    cancel();
    tu_note("cancel of an inactive, then started receive");
    free_active();
    tu_note("Request_free of active requests");
    modes();
    tu_note("Ssend/Rsend/Bsend_init and PROC_NULL");
    errors();
    tu_note("argument errors");
    MPI_Finalize();
    return 0;
}
