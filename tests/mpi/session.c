/* tests/mpi/session.c — MPI 4.0 sessions: without MPI_Init (process sets, groups, intra- and
 * intercommunicators from them, info, errors, handlers) and, with --world, beside the world model. */
#include "testutil.h"

static MPI_Session handler_session;
static int handler_code;

static void session_handler(MPI_Session *s, int *code, ...)
{
    handler_session = *s;
    handler_code = *code;
}

static void check_info(MPI_Info info, const char *key, const char *want)
{
    char v[MPI_MAX_INFO_VAL + 1] = "";
    int flag = 0;
    MPI_OK(MPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag));
    CHECK(flag && strcmp(v, want) == 0, "info %s = \"%s\" (set %d), expected \"%s\"", key, v, flag, want);
}

static MPI_Session open_session(const char *level)
{
    MPI_Info info;
    MPI_Session s = MPI_SESSION_NULL;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "thread_level", level));
    MPI_OK(MPI_Session_init(info, MPI_ERRORS_RETURN, &s));
    MPI_OK(MPI_Info_free(&info));
    CHECK(s != MPI_SESSION_NULL, "MPI_Session_init gave MPI_SESSION_NULL");
    return s;
}

/* Sum of ranks and a ring exchange over c, checked against its size. */
static void exercise(MPI_Comm c, int salt)
{
    int n, r, sum = 0;
    MPI_OK(MPI_Comm_size(c, &n));
    MPI_OK(MPI_Comm_rank(c, &r));
    MPI_OK(MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == n * (n - 1) / 2, "allreduce of ranks over %d gave %d", n, sum);
    int out = r * 100 + salt, in = -1;
    MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, (r + 1) % n, 7, &in, 1, MPI_INT, (r + n - 1) % n, 7, c,
                        MPI_STATUS_IGNORE));
    CHECK(in == ((r + n - 1) % n) * 100 + salt, "ring got %d", in);
}

static void psets(MPI_Session s, int *size, int *rank)
{
    int np = 0, len = 0;
    char name[MPI_MAX_PSET_NAME_LEN];
    MPI_OK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &np));
    CHECK(np == 2, "%d process sets, expected 2", np);
    MPI_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &len, NULL));
    CHECK(len == (int)sizeof "mpi://WORLD", "length of pset 0: %d", len);
    MPI_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &len, name));
    CHECK(strcmp(name, "mpi://WORLD") == 0, "pset 0 is \"%s\"", name);
    len = sizeof name;
    MPI_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 1, &len, name));
    CHECK(strcmp(name, "mpi://SELF") == 0 && len == (int)sizeof "mpi://SELF", "pset 1 is \"%s\" (%d)", name, len);
    len = 5; /* too short: cut and terminated */
    MPI_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 1, &len, name));
    CHECK(strcmp(name, "mpi:") == 0, "cut name \"%s\"", name);
    MPI_Group g;
    MPI_OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    MPI_OK(MPI_Group_size(g, size));
    MPI_OK(MPI_Group_rank(g, rank));
    MPI_OK(MPI_Group_free(&g));
    tu_rank = *rank;
    MPI_Info info;
    char want[16];
    snprintf(want, sizeof want, "%d", *size);
    MPI_OK(MPI_Session_get_pset_info(s, "mpi://WORLD", &info));
    check_info(info, "mpi_size", want);
    MPI_OK(MPI_Info_free(&info));
    MPI_OK(MPI_Session_get_pset_info(s, "mpi://SELF", &info));
    check_info(info, "mpi_size", "1");
    MPI_OK(MPI_Info_free(&info));
}

static MPI_Comm comm_of_pset(MPI_Session s, const char *pset, const char *tag)
{
    MPI_Group g;
    MPI_Comm c = MPI_COMM_NULL;
    MPI_OK(MPI_Group_from_session_pset(s, pset, &g));
    MPI_OK(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    MPI_OK(MPI_Group_free(&g));
    CHECK(c != MPI_COMM_NULL, "no communicator from %s", pset);
    return c;
}

static void errors(MPI_Session s, int size, int rank)
{
    MPI_Group g, none;
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Info info = MPI_INFO_NULL;
    int len = 0, rc;
    rc = MPI_Group_from_session_pset(s, "mpi://NOWHERE", &g);
    CHECK(rc == MPI_ERR_ARG, "unknown pset gave %d", rc);
    /* the built-in names match without regard to case, as in MPICH (MPICH's init/session_self asks
       for "mpi://self"); a name that differs in more than case is still unknown */
    rc = MPI_Session_get_pset_info(s, "mpi://world", &info);
    CHECK(rc == MPI_SUCCESS, "\"mpi://world\" gave %d", rc);
    char want[16];
    snprintf(want, sizeof want, "%d", size);
    check_info(info, "mpi_size", want);
    MPI_OK(MPI_Info_free(&info));
    MPI_OK(MPI_Group_from_session_pset(s, "MPI://Self", &g));
    int gs = 0;
    MPI_OK(MPI_Group_size(g, &gs));
    CHECK(gs == 1, "\"MPI://Self\" has %d members", gs);
    MPI_OK(MPI_Group_free(&g));
    rc = MPI_Group_from_session_pset(s, "mpi://SELFS", &g);
    CHECK(rc == MPI_ERR_ARG, "\"mpi://SELFS\" gave %d", rc);
    rc = MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 2, &len, NULL);
    CHECK(rc == MPI_ERR_ARG, "pset 2 gave %d", rc);
    MPI_OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    int other = (rank + 1) % size;
    MPI_OK(MPI_Group_incl(g, 1, &other, &none));
    if (size > 1) {
        rc = MPI_Comm_create_from_group(none, "org.credo.test.notmine", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
        CHECK(rc == MPI_ERR_GROUP, "a group without this process gave %d", rc);
    }
    MPI_OK(MPI_Group_free(&none));
    MPI_OK(MPI_Group_free(&g));

    /* A user handler gets the session and the code; get returns it. */
    MPI_Errhandler h, got;
    MPI_OK(MPI_Session_create_errhandler(session_handler, &h));
    MPI_OK(MPI_Session_set_errhandler(s, h));
    MPI_OK(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
    CHECK(handler_session == s && handler_code == MPI_ERR_OTHER, "handler saw session %p code %d",
          (void *)handler_session, handler_code);
    handler_code = 0;
    rc = MPI_Group_from_session_pset(s, "mpi://NOWHERE", &g);
    CHECK(rc == MPI_ERR_ARG && handler_code == MPI_ERR_ARG, "handler on a failing call: rc %d, saw %d", rc,
          handler_code);
    MPI_OK(MPI_Session_get_errhandler(s, &got));
    CHECK(got == h, "MPI_Session_get_errhandler gave another handler");
    MPI_OK(MPI_Errhandler_free(&got));
    MPI_OK(MPI_Errhandler_free(&h)); /* the session still holds it */
    MPI_OK(MPI_Session_call_errhandler(s, MPI_ERR_COUNT));
    CHECK(handler_code == MPI_ERR_COUNT, "freed handler no longer called (%d)", handler_code);
    MPI_OK(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));
}

/* The even and the odd ranks of mpi://WORLD joined by MPI_Intercomm_create_from_groups, leaders
 * their last members: sizes, the remote group, and an allreduce across (the sum of the other
 * group's ranks in it). */
static void intercomm_from_groups(MPI_Session s, int size, int rank)
{
    if (size < 2)
        return;
    MPI_Group g, even, odd;
    MPI_OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    int re[1][3] = {{0, size - 1, 2}}, ro[1][3] = {{1, size - 1, 2}};
    MPI_OK(MPI_Group_range_incl(g, 1, re, &even));
    MPI_OK(MPI_Group_range_incl(g, 1, ro, &odd));
    int neven = (size + 1) / 2, nodd = size / 2, mine = rank % 2 ? nodd : neven, other = size - mine;
    MPI_Comm ic = MPI_COMM_NULL;
    MPI_OK(MPI_Intercomm_create_from_groups(rank % 2 ? odd : even, mine - 1, rank % 2 ? even : odd,
                                            other - 1, "org.credo.test.ic", MPI_INFO_NULL,
                                            MPI_ERRORS_RETURN, &ic));
    int inter = 0, n = 0, rn = 0, r = -1;
    MPI_OK(MPI_Comm_test_inter(ic, &inter));
    MPI_OK(MPI_Comm_size(ic, &n));
    MPI_OK(MPI_Comm_remote_size(ic, &rn));
    MPI_OK(MPI_Comm_rank(ic, &r));
    CHECK(inter && n == mine && rn == other && r == rank / 2, "intercomm: inter %d size %d remote %d rank %d",
          inter, n, rn, r);
    int sum = -1;
    MPI_OK(MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, ic));
    CHECK(sum == other * (other - 1) / 2, "allreduce across the groups gave %d", sum);
    MPI_OK(MPI_Comm_free(&ic));
    /* A leader out of range is reported, before anything is exchanged. */
    int rc = MPI_Intercomm_create_from_groups(rank % 2 ? odd : even, mine, rank % 2 ? even : odd, 0,
                                              "org.credo.test.badleader", MPI_INFO_NULL, MPI_ERRORS_RETURN, &ic);
    CHECK(rc == MPI_ERR_RANK, "local leader %d of %d gave %d", mine, mine, rc);
    MPI_OK(MPI_Group_free(&even));
    MPI_OK(MPI_Group_free(&odd));
    MPI_OK(MPI_Group_free(&g));
}

static void sessions_only(void)
{
    int init = -1;
    MPI_OK(MPI_Initialized(&init));
    CHECK(init == 0, "MPI_Initialized before anything: %d", init);
    MPI_Session a = open_session("MPI_THREAD_FUNNELED"), b = open_session("MPI_THREAD_MULTIPLE");
    MPI_OK(MPI_Initialized(&init));
    CHECK(init == 0, "sessions are not the world model: MPI_Initialized = %d", init);
    MPI_Info info;
    MPI_OK(MPI_Session_get_info(a, &info));
    check_info(info, "thread_level", "MPI_THREAD_FUNNELED");
    MPI_OK(MPI_Info_free(&info));
    MPI_OK(MPI_Session_get_info(b, &info));
    check_info(info, "thread_level", "MPI_THREAD_MULTIPLE");
    MPI_OK(MPI_Info_free(&info));

    int size, rank;
    psets(a, &size, &rank);
    /* Two communicators from the same group at once, told apart by their string tags, and one
     * from the other session. */
    MPI_Comm c1 = comm_of_pset(a, "mpi://WORLD", "org.credo.test.one");
    MPI_Comm c2 = comm_of_pset(a, "mpi://WORLD", "org.credo.test.two");
    MPI_Comm c3 = comm_of_pset(b, "mpi://WORLD", "org.credo.test.one");
    int n, r;
    MPI_OK(MPI_Comm_size(c1, &n));
    MPI_OK(MPI_Comm_rank(c1, &r));
    CHECK(n == size && r == rank, "communicator size %d rank %d, group %d %d", n, r, size, rank);
    /* The same tag and source on two communicators: each receive gets its own communicator's. */
    int v1 = -1, v2 = -1, one = 1, two = 2;
    MPI_Request rq[2];
    MPI_OK(MPI_Irecv(&v2, 1, MPI_INT, MPI_ANY_SOURCE, 3, c2, &rq[0]));
    MPI_OK(MPI_Irecv(&v1, 1, MPI_INT, MPI_ANY_SOURCE, 3, c1, &rq[1]));
    MPI_OK(MPI_Send(&one, 1, MPI_INT, (r + 1) % n, 3, c1));
    MPI_OK(MPI_Send(&two, 1, MPI_INT, (r + 1) % n, 3, c2));
    MPI_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    CHECK(v1 == 1 && v2 == 2, "messages crossed communicators: %d %d", v1, v2);
    exercise(c1, 1);
    exercise(c2, 2);
    exercise(c3, 3);
    MPI_Comm self = comm_of_pset(b, "mpi://SELF", "org.credo.test.self");
    MPI_OK(MPI_Comm_size(self, &n));
    CHECK(n == 1, "mpi://SELF communicator of size %d", n);
    exercise(self, 4);

    /* Only the even ranks create a communicator: the call is collective over the group alone. */
    MPI_Group g, even;
    MPI_OK(MPI_Group_from_session_pset(a, "mpi://WORLD", &g));
    int ranges[1][3] = {{0, size - 1, 2}};
    MPI_OK(MPI_Group_range_incl(g, 1, ranges, &even));
    if (rank % 2 == 0) {
        MPI_Comm ce;
        MPI_OK(MPI_Comm_create_from_group(even, "org.credo.test.even", MPI_INFO_NULL, MPI_ERRORS_RETURN, &ce));
        MPI_OK(MPI_Comm_size(ce, &n));
        CHECK(n == (size + 1) / 2, "even communicator of size %d", n);
        exercise(ce, 5);
        MPI_OK(MPI_Comm_free(&ce));
    }
    MPI_OK(MPI_Group_free(&even));
    MPI_OK(MPI_Group_free(&g));
    intercomm_from_groups(b, size, rank);
    errors(a, size, rank);

    MPI_OK(MPI_Comm_free(&c1));
    MPI_OK(MPI_Comm_free(&c2));
    MPI_OK(MPI_Comm_free(&c3));
    MPI_OK(MPI_Comm_free(&self));
    MPI_OK(MPI_Session_finalize(&a));
    CHECK(a == MPI_SESSION_NULL, "MPI_Session_finalize left the handle");
    MPI_OK(MPI_Session_finalize(&b));
    int fin = -1;
    MPI_OK(MPI_Finalized(&fin));
    CHECK(fin == 0, "MPI_Finalized after sessions only: %d", fin);
    /* The runtime is down now; credo cannot start it twice in one process and says so. */
    MPI_Session again = MPI_SESSION_NULL;
    int rc = MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &again);
    CHECK(rc != MPI_SUCCESS && again == MPI_SESSION_NULL, "a session after the shut-down gave %d", rc);
    if (rank == 0)
        printf("ok: sessions without MPI_Init, %d ranks\n", size);
}

static void with_world(int argc, char **argv)
{
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_Session s = open_session("MPI_THREAD_SINGLE");
    int size, rank;
    psets(s, &size, &rank);
    int wsize;
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &wsize));
    CHECK(wsize == size, "MPI_COMM_WORLD has %d ranks, mpi://WORLD %d", wsize, size);
    MPI_Comm c = comm_of_pset(s, "mpi://WORLD", "org.credo.test.world");
    exercise(c, 6);
    exercise(MPI_COMM_WORLD, 7);
    /* A user's MPI_Comm_create_group on MPI_COMM_WORLD next to it. */
    MPI_Group g;
    MPI_Comm cg;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &g));
    MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 0, &cg));
    MPI_OK(MPI_Group_free(&g));
    exercise(cg, 8);
    MPI_OK(MPI_Comm_free(&cg));
    MPI_OK(MPI_Finalize());
    int fin = 0, init = 0;
    MPI_OK(MPI_Finalized(&fin));
    MPI_OK(MPI_Initialized(&init));
    CHECK(fin == 1 && init == 1, "after MPI_Finalize: finalized %d initialized %d", fin, init);
    /* The session outlives the world model (MPI 4.0 11.3). */
    exercise(c, 9);
    MPI_OK(MPI_Comm_free(&c));
    MPI_OK(MPI_Session_finalize(&s));
    if (rank == 0)
        printf("ok: a session beside MPI_Init and after MPI_Finalize, %d ranks\n", size);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--world") == 0)
        with_world(argc, argv);
    else
        sessions_only();
    return 0;
}
