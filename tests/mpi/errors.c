/* tests/mpi/errors.c — bad arguments under MPI_ERRORS_RETURN: each gives the right error class with a
 * non-empty Error_string, and the library keeps working afterwards. Any np. */
#include "testutil.h"

#include <limits.h>

static int rank, size, nchecks;

/* `rc` must be an error of class `cls` (or `alt`, where MPI implementations legitimately differ;
 * pass -1 for none). */
static void expect(int rc, int cls, int alt, const char *what) {
    CHECK(rc != MPI_SUCCESS, "%s: returned MPI_SUCCESS, expected an error", what);
    int got = tu_class(rc);
    CHECK(got == cls || (alt >= 0 && got == alt), "%s: error class %d, expected %d%s", what, got,
          cls, alt >= 0 ? " (or the alternative)" : "");
    char str[MPI_MAX_ERROR_STRING];
    int len = 0;
    str[0] = '\0';
    MPI_OK(MPI_Error_string(rc, str, &len));
    CHECK(len > 0 && strlen(str) == (size_t)len, "%s: Error_string empty or length %d wrong",
          what, len);
    int again = -1;
    MPI_OK(MPI_Error_class(got, &again));
    CHECK(again == got, "Error_class of class %d is %d", got, again);
    if (nchecks++ < 3 || getenv("ERRORS_VERBOSE"))
        tu_note("%s -> class %d \"%s\"", what, got, str);
}

/* Error classes and codes a library adds (MPI 3.1 8.5): numbered above the predefined ones,
 * MPI_LASTUSEDCODE follows them, each code maps to its class, strings are the program's (empty
 * until set), and they travel through an error handler like predefined ones. */
static int handler_saw;
static void record_error(MPI_Comm *comm, int *code, ...) {
    (void)comm;
    handler_saw = *code;
}

static void test_user_errors(void) {
    int *last = NULL, flag = 0, before;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(flag && *last >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE missing or below MPI_ERR_LASTCODE");
    before = *last;
    int cls, code1, code2, got = -1;
    MPI_OK(MPI_Add_error_class(&cls));
    MPI_OK(MPI_Add_error_code(cls, &code1));
    MPI_OK(MPI_Add_error_code(MPI_ERR_ARG, &code2)); /* a code in a predefined class */
    CHECK(cls > MPI_ERR_LASTCODE && code1 > cls && code2 > code1, "numbers %d %d %d", cls, code1, code2);
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(*last == code2 && *last == before + 3, "MPI_LASTUSEDCODE is %d, expected %d", *last, code2);
    MPI_OK(MPI_Error_class(code1, &got));
    CHECK(got == cls, "Error_class of an added code is %d, expected %d", got, cls);
    MPI_OK(MPI_Error_class(code2, &got));
    CHECK(got == MPI_ERR_ARG, "Error_class of a code added to MPI_ERR_ARG is %d", got);
    MPI_OK(MPI_Error_class(cls, &got));
    CHECK(got == cls, "Error_class of an added class is %d", got);
    char str[MPI_MAX_ERROR_STRING];
    int len = -1;
    MPI_OK(MPI_Error_string(code1, str, &len));
    CHECK(len == 0 && str[0] == '\0', "an added code's string before Add_error_string: \"%s\"", str);
    MPI_OK(MPI_Add_error_string(code1, "the widget broke"));
    MPI_OK(MPI_Error_string(code1, str, &len));
    CHECK(strcmp(str, "the widget broke") == 0 && len == 16, "string \"%s\" (%d)", str, len);
    MPI_OK(MPI_Add_error_string(code1, "replaced"));
    MPI_OK(MPI_Error_string(code1, str, &len));
    CHECK(strcmp(str, "replaced") == 0, "string after a second Add_error_string: \"%s\"", str);
    /* refused: a string for a predefined code, a code in something that is not a class */
    expect(MPI_Add_error_string(MPI_ERR_TAG, "mine"), MPI_ERR_ARG, -1, "Add_error_string(MPI_ERR_TAG)");
    expect(MPI_Add_error_code(code1, &got), MPI_ERR_ARG, -1, "Add_error_code(a code, not a class)");
    expect(MPI_Add_error_code(before + 1000, &got), MPI_ERR_ARG, -1, "Add_error_code(unknown class)");
    /* through a user error handler */
    MPI_Errhandler eh;
    MPI_OK(MPI_Comm_create_errhandler(record_error, &eh));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, code1);
    CHECK(handler_saw == code1, "the error handler saw %d, expected %d", handler_saw, code1);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Errhandler_free(&eh));
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* Errors with no usable communicator (MPI_COMM_NULL) are raised on MPI_COMM_SELF in MPI-4 and
     * on MPI_COMM_WORLD before it: set both to return. */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MPI_Errhandler eh;
    MPI_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "Comm_get_errhandler did not return MPI_ERRORS_RETURN");

    int buf[8] = {0};
    MPI_Request rq;
    MPI_Status st;
    MPI_Comm W = MPI_COMM_WORLD;

    /* Ranks. */
    expect(MPI_Send(buf, 1, MPI_INT, size, 0, W), MPI_ERR_RANK, -1, "Send to rank == size");
    expect(MPI_Send(buf, 1, MPI_INT, -5, 0, W), MPI_ERR_RANK, -1, "Send to rank -5");
    expect(MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, W), MPI_ERR_RANK, -1,
           "Send to MPI_ANY_SOURCE");
    expect(MPI_Isend(buf, 1, MPI_INT, size + 7, 0, W, &rq), MPI_ERR_RANK, -1,
           "Isend to rank size+7");
    expect(MPI_Recv(buf, 1, MPI_INT, size, 0, W, &st), MPI_ERR_RANK, -1, "Recv from rank == size");
    expect(MPI_Irecv(buf, 1, MPI_INT, -5, 0, W, &rq), MPI_ERR_RANK, -1, "Irecv from rank -5");

    /* Tags. */
    CHECK(MPI_ANY_TAG != -3, "test assumes MPI_ANY_TAG != -3");
    expect(MPI_Send(buf, 1, MPI_INT, 0, -3, W), MPI_ERR_TAG, -1, "Send with tag -3");
    expect(MPI_Send(buf, 1, MPI_INT, 0, MPI_ANY_TAG, W), MPI_ERR_TAG, -1, "Send with MPI_ANY_TAG");
    expect(MPI_Recv(buf, 1, MPI_INT, 0, -3, W, &st), MPI_ERR_TAG, -1, "Recv with tag -3");
    int *tag_ub = NULL, found = 0;
    MPI_OK(MPI_Comm_get_attr(W, MPI_TAG_UB, &tag_ub, &found));
    CHECK(found && tag_ub && *tag_ub >= 32767, "MPI_TAG_UB missing or below 32767");
    if (*tag_ub < INT_MAX)
        expect(MPI_Send(buf, 1, MPI_INT, 0, *tag_ub + 1, W), MPI_ERR_TAG, -1,
               "Send with tag TAG_UB+1");
    else
        tu_note("skipped: tag above MPI_TAG_UB (TAG_UB is INT_MAX)");

    /* Counts and datatypes. */
    expect(MPI_Send(buf, -1, MPI_INT, 0, 0, W), MPI_ERR_COUNT, -1, "Send with count -1");
    expect(MPI_Irecv(buf, -1, MPI_INT, 0, 0, W, &rq), MPI_ERR_COUNT, -1, "Irecv with count -1");
    expect(MPI_Send(buf, 1, MPI_DATATYPE_NULL, 0, 0, W), MPI_ERR_TYPE, -1,
           "Send with MPI_DATATYPE_NULL");
    expect(MPI_Recv(buf, 1, MPI_DATATYPE_NULL, 0, 0, W, &st), MPI_ERR_TYPE, -1,
           "Recv with MPI_DATATYPE_NULL");
    /* ... but with count 0 it moves nothing, as MPICH allows: every point-to-point form between
     * ranks 0 and 1 (a real message each; the tag tells them apart). */
    if (size >= 2 && rank < 2) {
        int peer = 1 - rank, n = -1;
        MPI_Request q[2];
        MPI_Message m;
        if (rank == 0) {
            MPI_OK(MPI_Send(NULL, 0, MPI_DATATYPE_NULL, peer, 201, W));
            MPI_OK(MPI_Isend(NULL, 0, MPI_DATATYPE_NULL, peer, 202, W, &q[0]));
            MPI_OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
            MPI_OK(MPI_Ssend(NULL, 0, MPI_DATATYPE_NULL, peer, 203, W));
            MPI_OK(MPI_Send_init(NULL, 0, MPI_DATATYPE_NULL, peer, 204, W, &q[0]));
            MPI_OK(MPI_Start(&q[0]));
            MPI_OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
            MPI_OK(MPI_Request_free(&q[0]));
        } else {
            MPI_OK(MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, peer, 201, W, &st));
            MPI_OK(MPI_Get_count(&st, MPI_BYTE, &n));
            CHECK(st.MPI_TAG == 201 && n == 0, "Recv with MPI_DATATYPE_NULL: tag %d, %d bytes", st.MPI_TAG, n);
            MPI_OK(MPI_Irecv(NULL, 0, MPI_DATATYPE_NULL, peer, 202, W, &q[0]));
            MPI_OK(MPI_Wait(&q[0], &st));
            CHECK(st.MPI_TAG == 202, "Irecv with MPI_DATATYPE_NULL: tag %d", st.MPI_TAG);
            MPI_OK(MPI_Recv_init(NULL, 0, MPI_DATATYPE_NULL, peer, 203, W, &q[1]));
            MPI_OK(MPI_Start(&q[1]));
            MPI_OK(MPI_Wait(&q[1], &st));
            CHECK(st.MPI_TAG == 203, "Recv_init with MPI_DATATYPE_NULL: tag %d", st.MPI_TAG);
            MPI_OK(MPI_Request_free(&q[1]));
            MPI_OK(MPI_Mprobe(peer, 204, W, &m, MPI_STATUS_IGNORE));
            MPI_OK(MPI_Mrecv(NULL, 0, MPI_DATATYPE_NULL, &m, &st));
            CHECK(st.MPI_TAG == 204, "Mrecv with MPI_DATATYPE_NULL: tag %d", st.MPI_TAG);
        }
        MPI_OK(MPI_Sendrecv(NULL, 0, MPI_DATATYPE_NULL, peer, 206, NULL, 0, MPI_DATATYPE_NULL, peer, 206, W, &st));
        CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 206, "Sendrecv with MPI_DATATYPE_NULL: source %d tag %d",
              st.MPI_SOURCE, st.MPI_TAG);
        /* a message with data still has to fit, and nothing fits in count 0 */
        if (rank == 0)
            MPI_OK(MPI_Send(buf, 1, MPI_INT, peer, 207, W));
        else
            expect(MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, peer, 207, W, &st), MPI_ERR_TRUNCATE, -1,
                   "Recv of 4 bytes with count 0 and MPI_DATATYPE_NULL");
    }
    MPI_Datatype vec;
    MPI_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
    expect(MPI_Send(buf, 1, vec, 0, 0, W), MPI_ERR_TYPE, -1, "Send with an uncommitted type");
    expect(MPI_Irecv(buf, 1, vec, 0, 0, W, &rq), MPI_ERR_TYPE, -1,
           "Irecv with an uncommitted type");
    MPI_OK(MPI_Type_free(&vec));

    /* Communicators. */
    expect(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM, -1,
           "Send on MPI_COMM_NULL");
    expect(MPI_Recv(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &st), MPI_ERR_COMM, -1,
           "Recv on MPI_COMM_NULL");
    int r;
    expect(MPI_Comm_rank(MPI_COMM_NULL, &r), MPI_ERR_COMM, -1, "Comm_rank(MPI_COMM_NULL)");

    /* Requests: a null request pointer, or MPI_REQUEST_NULL where an active request is needed.
     * Implementations report a NULL pointer as MPI_ERR_REQUEST or MPI_ERR_ARG. */
    expect(MPI_Isend(buf, 1, MPI_INT, 0, 0, W, NULL), MPI_ERR_REQUEST, MPI_ERR_ARG,
           "Isend with a NULL request pointer");
    expect(MPI_Irecv(buf, 1, MPI_INT, 0, 0, W, NULL), MPI_ERR_REQUEST, MPI_ERR_ARG,
           "Irecv with a NULL request pointer");
    expect(MPI_Wait(NULL, &st), MPI_ERR_REQUEST, MPI_ERR_ARG, "Wait with a NULL request pointer");
    rq = MPI_REQUEST_NULL;
    expect(MPI_Request_free(&rq), MPI_ERR_REQUEST, -1, "Request_free(MPI_REQUEST_NULL)");
    rq = MPI_REQUEST_NULL;
    expect(MPI_Cancel(&rq), MPI_ERR_REQUEST, -1, "Cancel(MPI_REQUEST_NULL)");

    /* After all that, ordinary traffic still works (errors left no half-posted operations). */
    int right = (rank + 1) % size, left = (rank + size - 1) % size, in = -1;
    MPI_OK(MPI_Sendrecv(&rank, 1, MPI_INT, right, 5, &in, 1, MPI_INT, left, 5, W, &st));
    CHECK(in == left, "Sendrecv after the error checks got %d, expected %d", in, left);
    int flag = 1;
    MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, W, &flag, &st));
    CHECK(!flag, "a failed call left a message behind (source %d tag %d)", st.MPI_SOURCE,
          st.MPI_TAG);
    MPI_OK(MPI_Barrier(W));
    test_user_errors();
    tu_note("errors: %d bad calls gave the right class and message; traffic still works",
            nchecks);
    MPI_Finalize();
    return 0;
}
