/* tests/mpi/greq.c — generalized requests: query_fn fills the status at completion, free_fn runs
 * once after the program is done with the request and it is complete (whichever is last),
 * cancel_fn sees whether it completed, mixed with point-to-point requests in the wait family. */
#include "testutil.h"

typedef struct state {
    int queries, frees, cancels, last_complete;
    int query_rc;
} state;

static int query(void *extra, MPI_Status *st) {
    state *s = extra;
    s->queries++;
    CHECK(s->frees == 0, "query_fn after free_fn");
    st->MPI_SOURCE = 7;
    st->MPI_TAG = 42;
    MPI_Status_set_elements(st, MPI_INT, 3);
    MPI_Status_set_cancelled(st, 0);
    return s->query_rc;
}

static int release(void *extra) {
    ((state *)extra)->frees++;
    return MPI_SUCCESS;
}

static int cancel(void *extra, int complete) {
    state *s = extra;
    s->cancels++;
    s->last_complete = complete;
    return MPI_SUCCESS;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* complete, then wait: one query, then one free, and the status query_fn made */
    state a = {0};
    MPI_Request r;
    MPI_OK(MPI_Grequest_start(query, release, cancel, &a, &r));
    int flag = 1;
    MPI_Status st;
    MPI_OK(MPI_Test(&r, &flag, &st));
    CHECK(!flag && a.queries == 0, "an incomplete generalized request tested complete");
    MPI_OK(MPI_Request_get_status(r, &flag, &st));
    CHECK(!flag, "Request_get_status says complete before Grequest_complete");
    MPI_OK(MPI_Cancel(&r));
    CHECK(a.cancels == 1 && a.last_complete == 0, "cancel_fn: %d calls, complete %d", a.cancels,
          a.last_complete);
    MPI_OK(MPI_Grequest_complete(r));
    MPI_OK(MPI_Request_get_status(r, &flag, &st));
    CHECK(flag && a.queries == 1 && a.frees == 0, "get_status: flag %d queries %d frees %d", flag,
          a.queries, a.frees);
    MPI_OK(MPI_Wait(&r, &st));
    int count = -1;
    MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(r == MPI_REQUEST_NULL && a.queries == 2 && a.frees == 1,
          "wait: request %p queries %d frees %d", (void *)r, a.queries, a.frees);
    CHECK(st.MPI_SOURCE == 7 && st.MPI_TAG == 42 && count == 3,
          "status from query_fn: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, count);

    /* freed before it completes: free_fn waits for Grequest_complete, query_fn never runs */
    state b = {0};
    MPI_OK(MPI_Grequest_start(query, release, cancel, &b, &r));
    MPI_Request keep = r;
    MPI_OK(MPI_Request_free(&r));
    CHECK(b.frees == 0, "free_fn ran before Grequest_complete");
    MPI_OK(MPI_Grequest_complete(keep));
    CHECK(b.frees == 1 && b.queries == 0, "after complete: frees %d queries %d", b.frees,
          b.queries);

    /* among point-to-point requests in Waitall; cancel after completion says complete */
    state c = {0};
    MPI_Request rs[3];
    int out = rank, in = -1, peer = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_OK(MPI_Irecv(&in, 1, MPI_INT, from, 3, MPI_COMM_WORLD, &rs[0]));
    MPI_OK(MPI_Grequest_start(query, release, cancel, &c, &rs[1]));
    MPI_OK(MPI_Isend(&out, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &rs[2]));
    MPI_OK(MPI_Grequest_complete(rs[1]));
    MPI_OK(MPI_Cancel(&rs[1]));
    CHECK(c.cancels == 1 && c.last_complete == 1, "cancel_fn after complete: complete %d",
          c.last_complete);
    MPI_Status sts[3];
    MPI_OK(MPI_Waitall(3, rs, sts));
    CHECK(in == from && sts[1].MPI_TAG == 42 && c.queries == 1 && c.frees == 1,
          "waitall: in %d tag %d queries %d frees %d", in, sts[1].MPI_TAG, c.queries, c.frees);

    /* query_fn's error code is the wait's */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    state d = {0};
    d.query_rc = MPI_ERR_OTHER;
    MPI_OK(MPI_Grequest_start(query, release, cancel, &d, &r));
    MPI_OK(MPI_Grequest_complete(r));
    int rc = MPI_Wait(&r, &st), cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OTHER && d.frees == 1, "query_fn's error: class %d frees %d", cls,
          d.frees);
    /* not a generalized request */
    MPI_OK(MPI_Irecv(&in, 1, MPI_INT, from, 4, MPI_COMM_WORLD, &r));
    MPI_Error_class(MPI_Grequest_complete(r), &cls);
    CHECK(cls == MPI_ERR_REQUEST, "Grequest_complete of a receive gave class %d", cls);
    MPI_OK(MPI_Send(&out, 1, MPI_INT, peer, 4, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_Error_class(MPI_Grequest_start(NULL, release, cancel, &d, &r), &cls);
    CHECK(cls == MPI_ERR_ARG, "Grequest_start with no query_fn gave class %d", cls);

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("greq: OK (%d processes)\n", size);
    MPI_Finalize();
    return 0;
}
