/* tests/mpi/groups.c — group set operations and ranges against hand-computed results, and the
 * communicators built from groups: Comm_create, Comm_create_group (subset only), split_type,
 * and Comm_idup (non-blocking, overlapping). np 5. */
#include "testutil.h"

static int rank, size;
static MPI_Group world;

/* g must hold exactly the world ranks want[0..n-1], in that order, with this process' rank right. */
static void expect_group(MPI_Group g, const int *want, int n, const char *what) {
    int gs, gr;
    MPI_OK(MPI_Group_size(g, &gs));
    CHECK(gs == n, "%s: size %d, expected %d", what, gs, n);
    int idx[8], got[8];
    for (int i = 0; i < n; i++)
        idx[i] = i;
    MPI_OK(MPI_Group_translate_ranks(g, n, idx, world, got));
    int mine = MPI_UNDEFINED;
    for (int i = 0; i < n; i++) {
        CHECK(got[i] == want[i], "%s: rank %d is world rank %d, expected %d", what, i, got[i],
              want[i]);
        if (want[i] == rank)
            mine = i;
    }
    MPI_OK(MPI_Group_rank(g, &gr));
    CHECK(gr == mine, "%s: my rank %d, expected %d", what, gr, mine);
}

static MPI_Group incl(int n, const int *r) {
    MPI_Group g;
    MPI_OK(MPI_Group_incl(world, n, r, &g));
    return g;
}

static void free_group(MPI_Group *g) {
    MPI_OK(MPI_Group_free(g));
    CHECK(*g == MPI_GROUP_NULL, "Group_free did not reset the handle");
}

static void test_set_ops(void) {
    const int ra[] = {3, 1, 4}, rb[] = {4, 0, 1};
    MPI_Group a = incl(3, ra), b = incl(3, rb), g;
    MPI_OK(MPI_Group_union(a, b, &g));
    expect_group(g, (const int[]){3, 1, 4, 0}, 4, "union(a,b)");
    free_group(&g);
    MPI_OK(MPI_Group_union(b, a, &g));
    expect_group(g, (const int[]){4, 0, 1, 3}, 4, "union(b,a)");
    free_group(&g);
    MPI_OK(MPI_Group_intersection(a, b, &g));
    expect_group(g, (const int[]){1, 4}, 2, "intersection(a,b)");
    free_group(&g);
    MPI_OK(MPI_Group_intersection(b, a, &g));
    expect_group(g, (const int[]){4, 1}, 2, "intersection(b,a)");
    free_group(&g);
    MPI_OK(MPI_Group_difference(a, b, &g));
    expect_group(g, (const int[]){3}, 1, "difference(a,b)");
    free_group(&g);
    MPI_OK(MPI_Group_difference(b, a, &g));
    expect_group(g, (const int[]){0}, 1, "difference(b,a)");
    free_group(&g);

    /* Empty results are MPI_GROUP_EMPTY; the empty group is neutral for union. */
    MPI_OK(MPI_Group_difference(a, a, &g));
    CHECK(g == MPI_GROUP_EMPTY, "difference(a,a) is not MPI_GROUP_EMPTY");
    MPI_OK(MPI_Group_intersection(a, MPI_GROUP_EMPTY, &g));
    CHECK(g == MPI_GROUP_EMPTY, "intersection(a,empty) is not MPI_GROUP_EMPTY");
    MPI_OK(MPI_Group_union(MPI_GROUP_EMPTY, MPI_GROUP_EMPTY, &g));
    CHECK(g == MPI_GROUP_EMPTY, "union(empty,empty) is not MPI_GROUP_EMPTY");
    MPI_OK(MPI_Group_union(MPI_GROUP_EMPTY, a, &g));
    int cmp;
    MPI_OK(MPI_Group_compare(g, a, &cmp));
    CHECK(cmp == MPI_IDENT, "union(empty,a) compares %d to a", cmp);
    free_group(&g);
    MPI_OK(MPI_Group_incl(a, 0, NULL, &g));
    CHECK(g == MPI_GROUP_EMPTY, "incl of no ranks is not MPI_GROUP_EMPTY");
    MPI_OK(MPI_Group_excl(a, 3, (const int[]){2, 0, 1}, &g));
    CHECK(g == MPI_GROUP_EMPTY, "excl of all ranks is not MPI_GROUP_EMPTY");
    MPI_OK(MPI_Group_free(&g)); /* freeing MPI_GROUP_EMPTY obtained as a result is allowed */
    int gs, gr, tr;
    MPI_OK(MPI_Group_size(MPI_GROUP_EMPTY, &gs));
    MPI_OK(MPI_Group_rank(MPI_GROUP_EMPTY, &gr));
    MPI_OK(MPI_Group_translate_ranks(a, 1, (const int[]){0}, MPI_GROUP_EMPTY, &tr));
    CHECK(gs == 0 && gr == MPI_UNDEFINED && tr == MPI_UNDEFINED,
          "MPI_GROUP_EMPTY: size %d rank %d translated %d", gs, gr, tr);
    free_group(&a);
    free_group(&b);
}

static void test_ranges(void) {
    MPI_Group g;
    struct {
        int n;
        int r[2][3];
        int excl; /* 0: range_incl, 1: range_excl */
        int want[5], nwant;
    } cases[] = {
        {1, {{0, 4, 2}}, 0, {0, 2, 4}, 3},
        {1, {{4, 0, -2}}, 0, {4, 2, 0}, 3},
        {2, {{4, 3, -1}, {0, 1, 1}}, 0, {4, 3, 0, 1}, 4},
        {1, {{0, 4, 3}}, 0, {0, 3}, 2}, /* last (4) is not reached */
        {1, {{2, 2, -5}}, 0, {2}, 1},
        {1, {{0, 4, 2}}, 1, {1, 3}, 2},
        {1, {{3, 1, -2}}, 1, {0, 2, 4}, 3},
        {2, {{4, 4, 1}, {1, 0, -1}}, 1, {2, 3}, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "range case %zu", i);
        if (cases[i].excl)
            MPI_OK(MPI_Group_range_excl(world, cases[i].n, cases[i].r, &g));
        else
            MPI_OK(MPI_Group_range_incl(world, cases[i].n, cases[i].r, &g));
        expect_group(g, cases[i].want, cases[i].nwant, what);
        free_group(&g);
    }
    int all[1][3] = {{0, 4, 1}};
    MPI_OK(MPI_Group_range_excl(world, 1, all, &g));
    CHECK(g == MPI_GROUP_EMPTY, "range_excl of every rank is not MPI_GROUP_EMPTY");

    /* Errors, returned under MPI_ERRORS_RETURN (group calls report through COMM_WORLD). */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int dup[2][3] = {{0, 2, 1}, {2, 3, 1}}, out[1][3] = {{0, 5, 1}}, zero[1][3] = {{0, 4, 0}},
        away[1][3] = {{3, 1, 1}};
    int rc;
    rc = MPI_Group_range_incl(world, 2, dup, &g);
    CHECK(tu_class(rc) == MPI_ERR_RANK, "range_incl with a repeated rank: %d", rc);
    rc = MPI_Group_range_excl(world, 2, dup, &g);
    CHECK(tu_class(rc) == MPI_ERR_RANK, "range_excl with a repeated rank: %d", rc);
    rc = MPI_Group_range_incl(world, 1, out, &g);
    CHECK(tu_class(rc) == MPI_ERR_RANK, "range_incl past the group: %d", rc);
    rc = MPI_Group_range_incl(world, 1, zero, &g);
    CHECK(tu_class(rc) == MPI_ERR_ARG, "range_incl with stride 0: %d", rc);
    rc = MPI_Group_range_excl(world, 1, away, &g);
    CHECK(tu_class(rc) == MPI_ERR_ARG, "range_excl running away from its end: %d", rc);
    rc = MPI_Group_incl(world, 2, (const int[]){1, 1}, &g);
    CHECK(tu_class(rc) == MPI_ERR_RANK, "incl with a repeated rank: %d", rc);
    rc = MPI_Group_union(MPI_GROUP_NULL, world, &g);
    CHECK(tu_class(rc) == MPI_ERR_GROUP, "union with MPI_GROUP_NULL: %d", rc);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* Point-to-point ring and an allreduce of world ranks on comm, whose members are want[0..n-1]. */
static void exercise(MPI_Comm comm, const int *want, int n, const char *what) {
    int cs, cr;
    MPI_OK(MPI_Comm_size(comm, &cs));
    MPI_OK(MPI_Comm_rank(comm, &cr));
    CHECK(cs == n && cr >= 0 && cr < n && want[cr] == rank, "%s: rank %d of %d", what, cr, cs);
    int got = -1;
    MPI_Status st;
    MPI_OK(MPI_Sendrecv(&rank, 1, MPI_INT, (cr + 1) % n, 11, &got, 1, MPI_INT, (cr + n - 1) % n,
                        11, comm, &st));
    CHECK(got == want[(cr + n - 1) % n] && st.MPI_SOURCE == (cr + n - 1) % n,
          "%s: ring got %d from %d", what, got, st.MPI_SOURCE);
    int sum = 0, expect = 0;
    for (int i = 0; i < n; i++)
        expect += want[i] + 1;
    int mine = rank + 1;
    MPI_OK(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, comm));
    CHECK(sum == expect, "%s: allreduce %d, expected %d", what, sum, expect);
    int root_val = cr == n - 1 ? 1000 + rank : -1;
    MPI_OK(MPI_Bcast(&root_val, 1, MPI_INT, n - 1, comm));
    CHECK(root_val == 1000 + want[n - 1], "%s: bcast %d", what, root_val);
}

static void test_comm_create(void) {
    int evens[3] = {0, 2, 4}, odds[2] = {1, 3};
    int range[1][3] = {{0, size - 1, 2}};
    MPI_Group ge, go;
    MPI_OK(MPI_Group_range_incl(world, 1, range, &ge));
    MPI_Comm c;
    MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, ge, &c));
    if (rank % 2) {
        CHECK(c == MPI_COMM_NULL, "odd rank got a communicator from Comm_create(evens)");
    } else {
        exercise(c, evens, 3, "create(evens)");
        /* A group with a member outside c: an error every member detects before communicating. */
        MPI_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
        MPI_Comm bad = MPI_COMM_NULL;
        int rc = MPI_Comm_create(c, world, &bad);
        CHECK(tu_class(rc) == MPI_ERR_GROUP && bad == MPI_COMM_NULL,
              "Comm_create with a non-subgroup: %d", rc);
        MPI_OK(MPI_Comm_free(&c));
    }
    /* Disjoint groups in one call (MPI-3): evens and odds each get their own communicator. */
    go = incl(2, odds);
    MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, rank % 2 ? go : ge, &c));
    CHECK(c != MPI_COMM_NULL, "Comm_create with disjoint groups gave MPI_COMM_NULL");
    if (rank % 2)
        exercise(c, odds, 2, "create(odds|evens)");
    else
        exercise(c, evens, 3, "create(evens|odds)");
    MPI_OK(MPI_Comm_free(&c));
    /* MPI_GROUP_EMPTY everywhere: nobody gets a communicator. */
    MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &c));
    CHECK(c == MPI_COMM_NULL, "Comm_create(MPI_GROUP_EMPTY) gave a communicator");
    free_group(&ge);
    free_group(&go);
}

/* Only world ranks {3,1,2} call the first Comm_create_group, then {2,3,4} a second one with the
 * same tag; ranks outside keep exchanging user messages on that tag in COMM_WORLD meanwhile, and
 * rank 1 has a user message from the leader with that very tag waiting while it takes part. */
static void test_create_group(void) {
    const int tag = 7;
    const int g1r[] = {3, 1, 2}, g2r[] = {2, 3, 4};
    MPI_Group g1 = incl(3, g1r), g2 = incl(3, g2r);
    MPI_Comm c1 = MPI_COMM_NULL, c2 = MPI_COMM_NULL;
    int in1 = rank >= 1 && rank <= 3, in2 = rank >= 2;
    if (rank == 3) { /* from the first group's leader, on the tag its agreement uses */
        int v = 4242;
        MPI_OK(MPI_Send(&v, 1, MPI_INT, 1, tag, MPI_COMM_WORLD));
    }
    if (in1)
        MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, g1, tag, &c1));
    if (rank == 0 || rank == 4) {
        /* Not in the first group: user traffic on the same tag, large enough for rendezvous. */
        enum { N = 20000 };
        int *out = tu_xmalloc(N * sizeof(int)), *in = tu_xmalloc(N * sizeof(int));
        for (int round = 0; round < 5; round++) {
            for (int i = 0; i < N; i++)
                out[i] = rank * 1000000 + round * N + i;
            int peer = 4 - rank;
            MPI_OK(MPI_Sendrecv(out, N, MPI_INT, peer, tag, in, N, MPI_INT, peer, tag,
                                MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (int i = 0; i < N; i++)
                CHECK(in[i] == peer * 1000000 + round * N + i, "user traffic word %d: %d", i,
                      in[i]);
        }
        free(out);
        free(in);
    }
    if (in2)
        MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, g2, tag, &c2));
    if (rank == 1) {
        int v = 0;
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, 3, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(v == 4242, "user message on the agreement's tag: %d", v);
    }
    CHECK((c1 != MPI_COMM_NULL) == in1 && (c2 != MPI_COMM_NULL) == in2,
          "Comm_create_group results: c1 %s, c2 %s", c1 != MPI_COMM_NULL ? "set" : "null",
          c2 != MPI_COMM_NULL ? "set" : "null");
    if (in1)
        exercise(c1, g1r, 3, "create_group(3,1,2)");
    if (in2)
        exercise(c2, g2r, 3, "create_group(2,3,4)");
    /* Ranks 2 and 3 are in both: the two communicators must not share a context. */
    if (rank == 2 || rank == 3) {
        int peer = rank == 2 ? 3 : 2, c1peer = rank == 2 ? 0 : 2, c2peer = rank == 2 ? 1 : 0;
        int a = 100 + rank, b = 200 + rank, ra = 0, rb = 0;
        MPI_Request rq[4];
        MPI_OK(MPI_Irecv(&rb, 1, MPI_INT, c2peer, 0, c2, &rq[0]));
        MPI_OK(MPI_Irecv(&ra, 1, MPI_INT, c1peer, 0, c1, &rq[1]));
        MPI_OK(MPI_Isend(&a, 1, MPI_INT, c1peer, 0, c1, &rq[2]));
        MPI_OK(MPI_Isend(&b, 1, MPI_INT, c2peer, 0, c2, &rq[3]));
        MPI_OK(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
        CHECK(ra == 100 + peer && rb == 200 + peer, "c1/c2 mixed up: %d %d", ra, rb);
    }
    if (in1)
        MPI_OK(MPI_Comm_free(&c1));
    if (in2)
        MPI_OK(MPI_Comm_free(&c2));
    /* The whole world through create_group: congruent with COMM_WORLD. */
    MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, world, 12345, &c1));
    int cmp;
    MPI_OK(MPI_Comm_compare(c1, MPI_COMM_WORLD, &cmp));
    CHECK(cmp == MPI_CONGRUENT, "create_group(world) compares %d", cmp);
    exercise(c1, (const int[]){0, 1, 2, 3, 4}, 5, "create_group(world)");
    MPI_OK(MPI_Comm_free(&c1));
    free_group(&g1);
    free_group(&g2);
}

static void test_split_type(void) {
    MPI_Comm c;
    /* Reverse key order: all ranks share memory, so one communicator, ranks reversed. */
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, size - rank, MPI_INFO_NULL,
                               &c));
    int rev[5];
    for (int i = 0; i < size; i++)
        rev[i] = size - 1 - i;
    exercise(c, rev, size, "split_type(shared, reversed)");
    MPI_OK(MPI_Comm_free(&c));
    /* MPI_UNDEFINED on rank 0 only. */
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0,
                               MPI_INFO_NULL, &c));
    if (rank == 0) {
        CHECK(c == MPI_COMM_NULL, "split_type(MPI_UNDEFINED) gave a communicator");
    } else {
        exercise(c, (const int[]){1, 2, 3, 4}, size - 1, "split_type(shared, without 0)");
        MPI_OK(MPI_Comm_free(&c));
    }
    /* MPI 4.0 hardware types: the shared-memory resource by hint is the same split, with the
     * hint in the new communicator's info; no hint, another resource, or unguided: MPI_COMM_NULL */
    MPI_Info hint, used;
    MPI_OK(MPI_Info_create(&hint));
    MPI_OK(MPI_Info_set(hint, "mpi_hw_resource_type", "mpi_shared_memory"));
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, size - rank, hint, &c));
    exercise(c, rev, size, "split_type(hw_guided shared memory, reversed)");
    char v[64] = "";
    int flag = 0;
    MPI_OK(MPI_Comm_get_info(c, &used));
    MPI_OK(MPI_Info_get(used, "mpi_hw_resource_type", 63, v, &flag));
    CHECK(flag && strcmp(v, "mpi_shared_memory") == 0, "hw_guided: info says %d '%s'", flag, v);
    MPI_OK(MPI_Info_free(&used));
    MPI_OK(MPI_Comm_free(&c));
    MPI_OK(MPI_Info_set(hint, "mpi_hw_resource_type", "l3cache"));
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, hint, &c));
    CHECK(c == MPI_COMM_NULL, "hw_guided with an unknown resource gave a communicator");
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, MPI_INFO_NULL, &c));
    CHECK(c == MPI_COMM_NULL, "hw_guided without a hint gave a communicator");
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, hint, &c));
    CHECK(c == MPI_COMM_NULL, "hw_unguided gave a communicator");
    MPI_OK(MPI_Info_free(&hint));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int rc = MPI_Comm_split_type(MPI_COMM_WORLD, 99, 0, MPI_INFO_NULL, &c);
    CHECK(tu_class(rc) == MPI_ERR_ARG, "split_type with an unknown type: %d", rc);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* Sends on a, b, c to the next rank and receives on c, b, a from the previous one: if two of the
 * communicators shared a context, a receive would take the other communicator's message. */
static void distinct3(MPI_Comm a, MPI_Comm b, MPI_Comm c, const char *what) {
    MPI_Comm cs[3] = {a, b, c};
    int cr, n;
    MPI_OK(MPI_Comm_rank(a, &cr));
    MPI_OK(MPI_Comm_size(a, &n));
    int out[3], in[3] = {-1, -1, -1};
    MPI_Request rq[6];
    for (int i = 0; i < 3; i++)
        MPI_OK(MPI_Irecv(&in[2 - i], 1, MPI_INT, (cr + n - 1) % n, 3, cs[2 - i], &rq[i]));
    for (int i = 0; i < 3; i++) {
        out[i] = 10 * cr + i;
        MPI_OK(MPI_Isend(&out[i], 1, MPI_INT, (cr + 1) % n, 3, cs[i], &rq[3 + i]));
    }
    MPI_OK(MPI_Waitall(6, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 3; i++)
        CHECK(in[i] == 10 * ((cr + n - 1) % n) + i, "%s: communicator %d got %d", what, i, in[i]);
}

/* MPI_Comm_idup must not block: rank 0 starts it, then synchronously sends to rank 1, which
 * only starts its idup after receiving. Two idups and a blocking dup overlap. */
static void test_idup(void) {
    MPI_Comm a, b, d;
    MPI_Request ra, rb;
    if (rank == 1) {
        int v = 0;
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(v == 55, "message before idup: %d", v);
    }
    MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &a, &ra));
    if (rank == 0) {
        int v = 55;
        MPI_OK(MPI_Ssend(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD));
    }
    MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &b, &rb));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    MPI_OK(MPI_Wait(&rb, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&ra, MPI_STATUS_IGNORE));
    CHECK(ra == MPI_REQUEST_NULL && rb == MPI_REQUEST_NULL, "idup requests not released");
    const int all[5] = {0, 1, 2, 3, 4};
    exercise(a, all, 5, "idup a");
    exercise(b, all, 5, "idup b");
    distinct3(a, b, d, "idup, idup, dup");
    /* idup of a communicator whose rank 0 is not world rank 0, then of that result. */
    MPI_Comm odd, o1, o2;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &odd));
    MPI_OK(MPI_Comm_idup(odd, &o1, &ra));
    MPI_OK(MPI_Wait(&ra, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Comm_idup(o1, &o2, &ra));
    MPI_OK(MPI_Wait(&ra, MPI_STATUS_IGNORE));
    const int rodd[2] = {3, 1}, reven[3] = {4, 2, 0};
    exercise(o2, rank % 2 ? rodd : reven, rank % 2 ? 2 : 3, "idup of idup of split");
    distinct3(odd, o1, o2, "split, idup, idup");
    MPI_OK(MPI_Comm_free(&o2));
    MPI_OK(MPI_Comm_free(&o1));
    MPI_OK(MPI_Comm_free(&odd));
    MPI_OK(MPI_Comm_free(&d));
    MPI_OK(MPI_Comm_free(&b));
    MPI_OK(MPI_Comm_free(&a));
}

int main(int argc, char **argv) {
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size == 5, "run with 5 processes (got %d)", size);
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    test_set_ops();
    test_ranges();
    test_comm_create();
    test_create_group();
    test_split_type();
    test_idup();
    free_group(&world);
    MPI_OK(MPI_Finalize());
    if (rank == 0)
        printf("groups: OK\n");
    return 0;
}
