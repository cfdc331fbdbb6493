/* tests/mpi/handles.c — invalid handles of every kind give the kind's error class, never a hang, a
 * crash or success (issue 27). Handles tried: garbage bits, a pointer to zero-filled memory, one to
 * garbage-filled memory, a handle of another kind cast to this one, and stale handles (a copy kept
 * after MPI_Wait/MPI_Test/MPI_Request_free retired the request, also once a new request reused
 * its memory; a freed object of every other kind). Without arguments every case runs under
 * MPI_ERRORS_RETURN and each call must return the class; with "fatal CASE" rank 1 makes one bad
 * call under the default MPI_ERRORS_ARE_FATAL, which must abort the job with a line naming rank 1
 * and the call (checked by expect_fatal.sh). An alarm turns a hang into a failure. */
#include <signal.h>
#include <unistd.h>

#include "testutil.h"

#define TAG 77
#define TAG2 78

static int rank, size;

/* Garbage-filled and zero-filled objects a fake handle points to. */
static unsigned char junk[1024] __attribute__((aligned(64)));
static unsigned char zeros[1024] __attribute__((aligned(64)));

static void on_alarm(int sig)
{
    (void)sig;
    static const char m[] = "FAIL: a call with an invalid handle hung (alarm)\n";
    ssize_t w = write(1, m, sizeof m - 1);
    (void)w;
    _exit(3);
}

static int err_class(int rc)
{
    int c = rc;
    MPI_Error_class(rc, &c);
    return c;
}

#define EXPECT(cls, call, what)                                                                    \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        CHECK(rc_ != MPI_SUCCESS && err_class(rc_) == (cls), "%s: %s returned %d (class %d), "   \
              "expected class %d", what, #call, rc_, err_class(rc_), cls);                         \
    } while (0)

/* ---- requests ---- */

enum req_bad {
    RB_GARBAGE,   /* bits that point nowhere */
    RB_LOWADDR,   /* a small integer */
    RB_ZERO,      /* points to zero-filled memory */
    RB_JUNK,      /* points to garbage-filled memory */
    RB_COMM,      /* MPI_COMM_WORLD cast to MPI_Request */
    RB_TYPE,      /* MPI_INT cast */
    RB_DUPCOMM,   /* a user communicator cast */
    RB_WAITED,    /* a copy kept after MPI_Wait completed it */
    RB_TESTED,    /* a copy kept after MPI_Test completed it */
    RB_FREED,     /* a copy kept after MPI_Request_free */
    RB_REUSED,    /* a copy kept after MPI_Wait, with a new pending request made since */
    RB_PERSIST,   /* a persistent request freed with MPI_Request_free */
    RB_FORTRAN,   /* MPI_Request_f2c of the integer of a request that was waited for */
    RB_N
};
static const char *req_bad_name[RB_N] = {"garbage bits", "small integer", "zero-filled object",
                                         "garbage-filled object", "MPI_COMM_WORLD as request",
                                         "MPI_INT as request", "user comm as request",
                                         "stale after MPI_Wait", "stale after MPI_Test",
                                         "stale after MPI_Request_free",
                                         "stale, request reused", "freed persistent request",
                                         "stale Fortran integer"};

static MPI_Comm dupcomm;
static MPI_Request pending = MPI_REQUEST_NULL; /* RB_REUSED: a live request the bad call must leave */
static int pending_val;

/* A completed send to this rank and its receive. */
static MPI_Request self_send(int v)
{
    MPI_Request r;
    int got = -1;
    MPI_OK(MPI_Isend(&v, 1, MPI_INT, rank, TAG, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Recv(&got, 1, MPI_INT, rank, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(got == v, "self send gave %d", got);
    return r;
}

static MPI_Request make_bad_request(enum req_bad b)
{
    MPI_Request r, copy;
    switch (b) {
    case RB_GARBAGE: return (MPI_Request)(uintptr_t)0x5a5a5a5a5a5a5a5aull;
    case RB_LOWADDR: return (MPI_Request)(uintptr_t)0x1234;
    case RB_ZERO: return (MPI_Request)(void *)zeros;
    case RB_JUNK: return (MPI_Request)(void *)junk;
    case RB_COMM: return (MPI_Request)(void *)MPI_COMM_WORLD;
    case RB_TYPE: return (MPI_Request)(void *)MPI_INT;
    case RB_DUPCOMM: return (MPI_Request)(void *)dupcomm;
    case RB_WAITED:
        r = self_send(1);
        copy = r;
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK(r == MPI_REQUEST_NULL, "MPI_Wait left the handle");
        return copy;
    case RB_TESTED: {
        int v = 2, got = 0, flag = 0;
        MPI_OK(MPI_Irecv(&got, 1, MPI_INT, rank, TAG, MPI_COMM_WORLD, &r));
        copy = r;
        MPI_OK(MPI_Send(&v, 1, MPI_INT, rank, TAG, MPI_COMM_WORLD));
        while (!flag)
            MPI_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
        CHECK(r == MPI_REQUEST_NULL && got == 2, "MPI_Test did not complete the receive");
        return copy;
    }
    case RB_FREED:
        r = self_send(3);
        copy = r;
        MPI_OK(MPI_Request_free(&r));
        return copy;
    case RB_REUSED:
        r = self_send(4);
        copy = r;
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        /* the freed request's memory (or slot) goes to the next request */
        pending_val = -1;
        MPI_OK(MPI_Irecv(&pending_val, 1, MPI_INT, rank, TAG2, MPI_COMM_WORLD, &pending));
        return copy;
    case RB_PERSIST: {
        static int v;
        MPI_OK(MPI_Recv_init(&v, 1, MPI_INT, rank, TAG, MPI_COMM_WORLD, &r));
        copy = r;
        MPI_OK(MPI_Request_free(&r));
        return copy;
    }
    case RB_FORTRAN: {
        r = self_send(5);
        MPI_Fint f = MPI_Request_c2f(r);
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        return MPI_Request_f2c(f);
    }
    case RB_N: break;
    }
    return MPI_REQUEST_NULL;
}

/* After the bad call: the request made since (RB_REUSED) is still pending and completes normally. */
static void check_pending(const char *what)
{
    if (pending == MPI_REQUEST_NULL)
        return;
    int flag = 1;
    MPI_OK(MPI_Test(&pending, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag && pending_val == -1, "%s: the bad call disturbed a live request", what);
    int v = 44;
    MPI_OK(MPI_Send(&v, 1, MPI_INT, rank, TAG2, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&pending, MPI_STATUS_IGNORE));
    CHECK(pending_val == 44, "%s: the live request received %d", what, pending_val);
    pending = MPI_REQUEST_NULL;
}

enum req_call {
    RC_WAIT, RC_TEST, RC_WAITALL, RC_WAITANY, RC_WAITSOME, RC_TESTALL, RC_TESTANY, RC_TESTSOME,
    RC_FREE, RC_CANCEL, RC_GET_STATUS, RC_START, RC_STARTALL, RC_N
};
static const char *req_call_name[RC_N] = {"MPI_Wait", "MPI_Test", "MPI_Waitall", "MPI_Waitany",
                                          "MPI_Waitsome", "MPI_Testall", "MPI_Testany",
                                          "MPI_Testsome", "MPI_Request_free", "MPI_Cancel",
                                          "MPI_Request_get_status", "MPI_Start", "MPI_Startall"};

/* One call with the bad handle (arrays: a null handle first, the bad one second). */
static int req_call(enum req_call c, MPI_Request bad)
{
    MPI_Request one = bad, two[2] = {MPI_REQUEST_NULL, bad};
    int flag = 0, index = 0, outcount = 0, indices[2];
    MPI_Status st;
    switch (c) {
    case RC_WAIT: return MPI_Wait(&one, &st);
    case RC_TEST: return MPI_Test(&one, &flag, &st);
    case RC_WAITALL: return MPI_Waitall(2, two, MPI_STATUSES_IGNORE);
    case RC_WAITANY: return MPI_Waitany(2, two, &index, &st);
    case RC_WAITSOME: return MPI_Waitsome(2, two, &outcount, indices, MPI_STATUSES_IGNORE);
    case RC_TESTALL: return MPI_Testall(2, two, &flag, MPI_STATUSES_IGNORE);
    case RC_TESTANY: return MPI_Testany(2, two, &index, &flag, &st);
    case RC_TESTSOME: return MPI_Testsome(2, two, &outcount, indices, MPI_STATUSES_IGNORE);
    case RC_FREE: return MPI_Request_free(&one);
    case RC_CANCEL: return MPI_Cancel(&one);
    case RC_GET_STATUS: return MPI_Request_get_status(bad, &flag, &st);
    case RC_START: return MPI_Start(&one);
    case RC_STARTALL: return MPI_Startall(2, (MPI_Request[]){bad, bad});
    case RC_N: break;
    }
    return MPI_SUCCESS;
}

static void requests_return(void)
{
    for (int b = 0; b < RB_N; b++) {
        for (int c = 0; c < RC_N; c++) {
            char what[160];
            snprintf(what, sizeof what, "%s, %s", req_bad_name[b], req_call_name[c]);
            MPI_Request bad = make_bad_request((enum req_bad)b);
            EXPECT(MPI_ERR_REQUEST, req_call((enum req_call)c, bad), what);
            check_pending(what);
        }
        tu_note("request handle: %s refused by all %d calls", req_bad_name[b], (int)RC_N);
    }
    /* The handles still work after all that. */
    MPI_Request r = self_send(9);
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
}

/* ---- the other kinds: fake handles of each, then a freed object ---- */

enum obj_bad { OB_GARBAGE, OB_LOWADDR, OB_ZERO, OB_JUNK, OB_OTHER_KIND, OB_STALE, OB_N };
static const char *obj_bad_name[OB_N] = {"garbage bits", "small integer", "zero-filled object",
                                         "garbage-filled object", "handle of another kind",
                                         "freed object"};

static void *fake(enum obj_bad b, void *other_kind)
{
    switch (b) {
    case OB_GARBAGE: return (void *)(uintptr_t)0x5a5a5a5a5a5a5a5aull;
    case OB_LOWADDR: return (void *)(uintptr_t)0x1234;
    case OB_ZERO: return zeros;
    case OB_JUNK: return junk;
    case OB_OTHER_KIND: return other_kind;
    default: return NULL;
    }
}

static MPI_Comm bad_comm(enum obj_bad b)
{
    if (b != OB_STALE)
        return (MPI_Comm)fake(b, (void *)MPI_INT);
    MPI_Comm c, copy;
    MPI_OK(MPI_Comm_dup(MPI_COMM_SELF, &c)); /* not collective: the fatal cases run on one rank */
    MPI_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    copy = c;
    MPI_OK(MPI_Comm_free(&c));
    return copy;
}

static MPI_Datatype bad_type(enum obj_bad b)
{
    if (b != OB_STALE)
        return (MPI_Datatype)fake(b, (void *)MPI_COMM_WORLD);
    MPI_Datatype t, copy;
    MPI_OK(MPI_Type_contiguous(3, MPI_INT, &t));
    MPI_OK(MPI_Type_commit(&t));
    copy = t;
    MPI_OK(MPI_Type_free(&t));
    return copy;
}

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static MPI_Op bad_op(enum obj_bad b)
{
    if (b != OB_STALE)
        return (MPI_Op)fake(b, (void *)MPI_INT);
    MPI_Op op, copy;
    MPI_OK(MPI_Op_create(user_sum, 1, &op));
    copy = op;
    MPI_OK(MPI_Op_free(&op));
    return copy;
}

static MPI_Group bad_group(enum obj_bad b)
{
    if (b != OB_STALE)
        return (MPI_Group)fake(b, (void *)MPI_COMM_WORLD);
    MPI_Group g, copy;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &g));
    copy = g;
    MPI_OK(MPI_Group_free(&g));
    return copy;
}

static void my_errh(MPI_Comm *c, int *e, ...)
{
    (void)c;
    (void)e;
}

static MPI_Errhandler bad_errh(enum obj_bad b)
{
    if (b != OB_STALE)
        return (MPI_Errhandler)fake(b, (void *)MPI_COMM_WORLD);
    MPI_Errhandler h, copy;
    MPI_OK(MPI_Comm_create_errhandler(my_errh, &h));
    copy = h;
    MPI_OK(MPI_Errhandler_free(&h));
    return copy;
}

static MPI_Info bad_info(enum obj_bad b)
{
    if (b != OB_STALE)
        return (MPI_Info)fake(b, (void *)MPI_COMM_WORLD);
    MPI_Info i, copy;
    MPI_OK(MPI_Info_create(&i));
    copy = i;
    MPI_OK(MPI_Info_free(&i));
    return copy;
}

static MPI_Win bad_win(enum obj_bad b)
{
    if (b != OB_STALE)
        return (MPI_Win)fake(b, (void *)MPI_COMM_WORLD);
    static int mem[4];
    MPI_Win w, copy;
    MPI_OK(MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    copy = w;
    MPI_OK(MPI_Win_free(&w));
    return copy;
}

static MPI_File bad_file(enum obj_bad b)
{
    if (b != OB_STALE)
        return (MPI_File)fake(b, (void *)MPI_COMM_WORLD);
    char path[128];
    snprintf(path, sizeof path, "/tmp/credo_handles_%d.tmp", (int)getppid());
    MPI_File f, copy;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, path,
                         MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                         MPI_INFO_NULL, &f));
    copy = f;
    MPI_OK(MPI_File_close(&f));
    return copy;
}

static MPI_Message bad_message(enum obj_bad b)
{
    if (b != OB_STALE)
        return (MPI_Message)fake(b, (void *)MPI_COMM_WORLD);
    int v = 6, got = 0;
    MPI_Message m, copy;
    MPI_OK(MPI_Send(&v, 1, MPI_INT, rank, TAG, MPI_COMM_WORLD));
    MPI_OK(MPI_Mprobe(rank, TAG, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE));
    copy = m;
    MPI_OK(MPI_Mrecv(&got, 1, MPI_INT, &m, MPI_STATUS_IGNORE));
    CHECK(got == 6 && m == MPI_MESSAGE_NULL, "Mrecv gave %d", got);
    return copy;
}

static MPI_Session bad_session(enum obj_bad b)
{
    if (b != OB_STALE)
        return (MPI_Session)fake(b, (void *)MPI_COMM_WORLD);
    MPI_Session s, copy;
    MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    copy = s;
    MPI_OK(MPI_Session_finalize(&s));
    return copy;
}

static void others_return(void)
{
    int v = 1, w = 0, n = 0;
    for (int b = 0; b < OB_N; b++) {
        const char *what = obj_bad_name[b];
        enum obj_bad e = (enum obj_bad)b;

        EXPECT(MPI_ERR_COMM, MPI_Comm_rank(bad_comm(e), &n), what);
        EXPECT(MPI_ERR_COMM, MPI_Send(&v, 1, MPI_INT, 0, TAG, bad_comm(e)), what);
        EXPECT(MPI_ERR_COMM, MPI_Barrier(bad_comm(e)), what);
        MPI_Comm c2;
        EXPECT(MPI_ERR_COMM, MPI_Comm_dup(bad_comm(e), &c2), what);

        EXPECT(MPI_ERR_TYPE, MPI_Type_size(bad_type(e), &n), what);
        EXPECT(MPI_ERR_TYPE, MPI_Send(&v, 1, bad_type(e), rank, TAG, MPI_COMM_WORLD), what);
        MPI_Request r;
        EXPECT(MPI_ERR_TYPE, MPI_Irecv(&w, 1, bad_type(e), rank, TAG, MPI_COMM_WORLD, &r), what);
        EXPECT(MPI_ERR_TYPE, MPI_Bcast(&v, 1, bad_type(e), 0, MPI_COMM_WORLD), what);

        EXPECT(MPI_ERR_OP, MPI_Op_commutative(bad_op(e), &n), what);
        EXPECT(MPI_ERR_OP, MPI_Allreduce(&v, &w, 1, MPI_INT, bad_op(e), MPI_COMM_WORLD), what);
        EXPECT(MPI_ERR_OP, MPI_Reduce_local(&v, &w, 1, MPI_INT, bad_op(e)), what);

        EXPECT(MPI_ERR_GROUP, MPI_Group_size(bad_group(e), &n), what);
        EXPECT(MPI_ERR_GROUP, MPI_Group_rank(bad_group(e), &n), what);

        EXPECT(MPI_ERR_ARG, MPI_Comm_set_errhandler(MPI_COMM_SELF, bad_errh(e)), what);
        MPI_Errhandler h = bad_errh(e);
        EXPECT(MPI_ERR_ARG, MPI_Errhandler_free(&h), what);

        EXPECT(MPI_ERR_INFO, MPI_Info_get_nkeys(bad_info(e), &n), what);
        EXPECT(MPI_ERR_INFO, MPI_Info_set(bad_info(e), "k", "v"), what);

        MPI_Group g;
        EXPECT(MPI_ERR_WIN, MPI_Win_get_group(bad_win(e), &g), what);
        EXPECT(MPI_ERR_WIN, MPI_Win_set_name(bad_win(e), "x"), what);

        MPI_Offset sz;
        EXPECT(MPI_ERR_FILE, MPI_File_get_size(bad_file(e), &sz), what);
        EXPECT(MPI_ERR_FILE, MPI_File_get_amode(bad_file(e), &n), what);

        MPI_Message m = bad_message(e);
        EXPECT(MPI_ERR_REQUEST, MPI_Mrecv(&w, 1, MPI_INT, &m, MPI_STATUS_IGNORE), what);
        m = bad_message(e);
        EXPECT(MPI_ERR_REQUEST, MPI_Imrecv(&w, 1, MPI_INT, &m, &r), what);

        /* A stale session: its own error handler is gone, so this one only where the error goes
         * to MPI_ERRORS_ARE_FATAL (the fatal cases). */
        tu_note("%s: communicator, datatype, op, group, errhandler, info, window, file and message "
                "calls refused", what);
    }
}

/* ---- fatal cases: rank 1 makes one bad call under MPI_ERRORS_ARE_FATAL ---- */

static int fatal_case(const char *name)
{
    int n = 0, v = 1, w = 0;
    MPI_Request bad;
    MPI_Status st;
    if (!strcmp(name, "req_garbage_wait")) {
        bad = make_bad_request(RB_GARBAGE);
        return MPI_Wait(&bad, &st);
    }
    if (!strcmp(name, "req_zero_wait")) {
        bad = make_bad_request(RB_ZERO);
        return MPI_Wait(&bad, &st);
    }
    if (!strcmp(name, "req_junk_test")) {
        bad = make_bad_request(RB_JUNK);
        return MPI_Test(&bad, &n, &st);
    }
    if (!strcmp(name, "req_comm_waitall")) {
        MPI_Request two[2] = {MPI_REQUEST_NULL, make_bad_request(RB_COMM)};
        return MPI_Waitall(2, two, MPI_STATUSES_IGNORE);
    }
    if (!strcmp(name, "req_waited_wait")) {
        bad = make_bad_request(RB_WAITED);
        return MPI_Wait(&bad, &st);
    }
    if (!strcmp(name, "req_reused_wait")) {
        bad = make_bad_request(RB_REUSED);
        return MPI_Wait(&bad, &st);
    }
    if (!strcmp(name, "req_tested_testany")) {
        MPI_Request two[2] = {MPI_REQUEST_NULL, make_bad_request(RB_TESTED)};
        return MPI_Testany(2, two, &n, &v, &st);
    }
    if (!strcmp(name, "req_freed_free")) {
        bad = make_bad_request(RB_FREED);
        return MPI_Request_free(&bad);
    }
    if (!strcmp(name, "req_freed_cancel")) {
        bad = make_bad_request(RB_FREED);
        return MPI_Cancel(&bad);
    }
    if (!strcmp(name, "req_waited_get_status")) {
        bad = make_bad_request(RB_WAITED);
        return MPI_Request_get_status(bad, &n, &st);
    }
    if (!strcmp(name, "req_persist_start")) {
        bad = make_bad_request(RB_PERSIST);
        return MPI_Start(&bad);
    }
    if (!strcmp(name, "req_garbage_waitsome")) {
        MPI_Request two[2] = {MPI_REQUEST_NULL, make_bad_request(RB_GARBAGE)};
        int idx[2];
        return MPI_Waitsome(2, two, &n, idx, MPI_STATUSES_IGNORE);
    }
    if (!strcmp(name, "comm_garbage_rank"))
        return MPI_Comm_rank(bad_comm(OB_GARBAGE), &n);
    if (!strcmp(name, "comm_lowaddr_send"))
        return MPI_Send(&v, 1, MPI_INT, 0, TAG, bad_comm(OB_LOWADDR));
    if (!strcmp(name, "type_garbage_send"))
        return MPI_Send(&v, 1, bad_type(OB_GARBAGE), 0, TAG, MPI_COMM_WORLD);
    if (!strcmp(name, "type_lowaddr_size"))
        return MPI_Type_size(bad_type(OB_LOWADDR), &n);
    if (!strcmp(name, "op_garbage_allreduce"))
        return MPI_Allreduce(&v, &w, 1, MPI_INT, bad_op(OB_GARBAGE), MPI_COMM_SELF);
    if (!strcmp(name, "group_garbage_size"))
        return MPI_Group_size(bad_group(OB_GARBAGE), &n);
    if (!strcmp(name, "errh_garbage_set"))
        return MPI_Comm_set_errhandler(MPI_COMM_WORLD, bad_errh(OB_GARBAGE));
    if (!strcmp(name, "info_garbage_nkeys"))
        return MPI_Info_get_nkeys(bad_info(OB_GARBAGE), &n);
    if (!strcmp(name, "win_garbage_group")) {
        MPI_Group g;
        return MPI_Win_get_group(bad_win(OB_GARBAGE), &g);
    }
    if (!strcmp(name, "msg_garbage_mrecv")) {
        MPI_Message m = bad_message(OB_GARBAGE);
        return MPI_Mrecv(&w, 1, MPI_INT, &m, &st);
    }
    if (!strcmp(name, "session_garbage_psets"))
        return MPI_Session_get_num_psets(bad_session(OB_GARBAGE), MPI_INFO_NULL, &n);
    if (!strcmp(name, "session_lowaddr_psets"))
        return MPI_Session_get_num_psets(bad_session(OB_LOWADDR), MPI_INFO_NULL, &n);
    fprintf(stderr, "unknown case %s\n", name);
    MPI_Abort(MPI_COMM_WORLD, 4);
    return 0;
}

int main(int argc, char **argv)
{
    signal(SIGALRM, on_alarm);
    alarm(60);
    memset(junk, 0xa5, sizeof junk);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dupcomm));

    if (argc > 2 && !strcmp(argv[1], "fatal")) {
        int culprit = size > 1 ? 1 : 0;
        if (rank == culprit) {
            printf("rank %d: case %s under MPI_ERRORS_ARE_FATAL\n", rank, argv[2]);
            fflush(stdout);
            int rc = fatal_case(argv[2]);
            /* Reached only if the error was not fatal; expect_fatal.sh looks for this marker. */
            printf("NOT FATAL: case %s returned %d\n", argv[2], rc);
            fflush(stdout);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        printf("NOT FATAL: rank %d left the barrier\n", rank);
        MPI_Finalize();
        return 0;
    }

    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_set_errhandler(dupcomm, MPI_ERRORS_RETURN));
    requests_return();
    others_return();
    MPI_OK(MPI_Comm_free(&dupcomm));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    tu_note("all invalid handles refused on %d ranks", size);
    MPI_Finalize();
    return 0;
}
