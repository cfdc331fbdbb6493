/* tests/mpi/intercomm.c — intercommunicators: Intercomm_create over several splits, point-to-point
 * between the groups (ranks, statuses, wildcards, probe), remote group and size, dup, split, create,
 * compare, merge (both orders), and the errors of calls limited to intracommunicators. np >= 2. */
#include "testutil.h"

static int rank, size;

/* One way of cutting the world in two: world rank r is in group A if in_a(r). */
typedef struct split_kind {
    const char *name;
    int (*in_a)(int r);
} split_kind;

static int even(int r) { return r % 2 == 0; }
static int first(int r) { return r == 0; }
static int low_half(int r) { return r < size / 2 || (size / 2 == 0 && r == 0); }

/* world ranks of group A (or B), in world order */
static int members(const split_kind *k, int a, int *out) {
    int n = 0;
    for (int r = 0; r < size; r++)
        if (!k->in_a(r) == !a)
            out[n++] = r;
    return n;
}

/* The intercommunicator of split k: each group's leader is its lowest world rank; local ranks
 * are ordered by descending world rank (key), so local and world order differ. */
static MPI_Comm make_inter(const split_kind *k, MPI_Comm *local, int tag) {
    int a = k->in_a(rank);
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, a, size - rank, local));
    int lsize;
    MPI_OK(MPI_Comm_size(*local, &lsize));
    int other[64];
    members(k, !a, other);
    /* the local leader is the last local rank (lowest world rank); the remote leader is named by
     * its world rank in the peer communicator */
    MPI_Comm inter;
    MPI_OK(MPI_Intercomm_create(*local, lsize - 1, MPI_COMM_WORLD, other[0], tag, &inter));
    return inter;
}

/* world rank of remote rank r in inter (through the remote group) */
static int world_of_remote(MPI_Comm inter, int r) {
    MPI_Group rg, wg;
    int w;
    MPI_OK(MPI_Comm_remote_group(inter, &rg));
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    MPI_OK(MPI_Group_translate_ranks(rg, 1, &r, wg, &w));
    MPI_OK(MPI_Group_free(&rg));
    MPI_OK(MPI_Group_free(&wg));
    return w;
}

/* Local rank i and remote rank i (i below both sizes) swap world ranks with MPI_Sendrecv. */
static void pair_exchange(const char *what, MPI_Comm inter, int tag) {
    int lr, rs, got = -1;
    MPI_OK(MPI_Comm_rank(inter, &lr));
    MPI_OK(MPI_Comm_remote_size(inter, &rs));
    if (lr >= rs)
        return;
    MPI_Status st;
    MPI_OK(MPI_Sendrecv(&rank, 1, MPI_INT, lr, tag, &got, 1, MPI_INT, lr, tag, inter, &st));
    CHECK(got == world_of_remote(inter, lr) && st.MPI_SOURCE == lr && st.MPI_TAG == tag,
          "%s: sendrecv with remote %d got %d (source %d, tag %d)", what, lr, got, st.MPI_SOURCE,
          st.MPI_TAG);
}

/* Each process sends to remote rank (local rank mod remote size) with tag 7, so it receives from
 * the remote ranks r with r mod (local size) == local rank: the first with MPI_ANY_SOURCE, the
 * others after MPI_Probe and MPI_Iprobe name them. */
static void partner_exchange(const char *what, MPI_Comm inter) {
    int ls, lr, rs;
    MPI_OK(MPI_Comm_size(inter, &ls));
    MPI_OK(MPI_Comm_rank(inter, &lr));
    MPI_OK(MPI_Comm_remote_size(inter, &rs));
    MPI_Request req;
    MPI_OK(MPI_Isend(&lr, 1, MPI_INT, lr % rs, 7, inter, &req));
    int expected = 0, any = -1, got = -1, flag = 0;
    for (int r = 0; r < rs; r++)
        expected += r % ls == lr;
    MPI_Status st;
    if (expected > 0) {
        MPI_OK(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 7, inter, &st));
        any = st.MPI_SOURCE;
        CHECK(got == any && any % ls == lr, "%s: got %d from remote %d", what, got, any);
    }
    for (int r = 0; r < rs; r++)
        if (r % ls == lr && r != any) {
            MPI_OK(MPI_Probe(r, 7, inter, &st));
            CHECK(st.MPI_SOURCE == r, "%s: probe source %d, expected %d", what, st.MPI_SOURCE, r);
            MPI_OK(MPI_Iprobe(r, 7, inter, &flag, &st));
            CHECK(flag, "%s: Iprobe after Probe found nothing", what);
            MPI_OK(MPI_Recv(&got, 1, MPI_INT, r, 7, inter, MPI_STATUS_IGNORE));
            CHECK(got == r, "%s: got %d from %d", what, got, r);
        }
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
}

static void check_shape(const split_kind *k, MPI_Comm inter) {
    int a = k->in_a(rank), mine[64], theirs[64];
    int n = members(k, a, mine), m = members(k, !a, theirs);
    int flag, ls, lr, rs;
    MPI_OK(MPI_Comm_test_inter(inter, &flag));
    CHECK(flag == 1, "%s: Comm_test_inter says %d", k->name, flag);
    MPI_OK(MPI_Comm_size(inter, &ls));
    MPI_OK(MPI_Comm_rank(inter, &lr));
    MPI_OK(MPI_Comm_remote_size(inter, &rs));
    CHECK(ls == n && rs == m, "%s: sizes %d/%d, expected %d/%d", k->name, ls, rs, n, m);
    /* local ranks descend with world rank */
    int want = 0;
    for (int i = 0; i < n; i++)
        if (mine[i] > rank)
            want++;
    CHECK(lr == want, "%s: local rank %d, expected %d", k->name, lr, want);
    for (int r = 0; r < m; r++) {
        int w = world_of_remote(inter, r);
        CHECK(w == theirs[m - 1 - r], "%s: remote rank %d is world %d, expected %d", k->name, r, w,
              theirs[m - 1 - r]);
    }
    MPI_Group lg;
    int gr, gs;
    MPI_OK(MPI_Comm_group(inter, &lg));
    MPI_OK(MPI_Group_size(lg, &gs));
    MPI_OK(MPI_Group_rank(lg, &gr));
    CHECK(gs == n && gr == lr, "%s: local group size %d rank %d", k->name, gs, gr);
    MPI_OK(MPI_Group_free(&lg));
}

/* Every process sends its world rank to every remote rank (tag = its local rank), then receives
 * one message from each remote rank with MPI_ANY_SOURCE / MPI_ANY_TAG and checks the status maps
 * back to the right remote rank. Then a probe and a Sendrecv with the partner of equal rank. */
static void check_p2p(const split_kind *k, MPI_Comm inter) {
    int ls, lr, rs;
    MPI_OK(MPI_Comm_size(inter, &ls));
    MPI_OK(MPI_Comm_rank(inter, &lr));
    MPI_OK(MPI_Comm_remote_size(inter, &rs));
    MPI_Request req[64];
    for (int r = 0; r < rs; r++)
        MPI_OK(MPI_Isend(&rank, 1, MPI_INT, r, lr, inter, &req[r]));
    int seen[64] = {0};
    for (int i = 0; i < rs; i++) {
        int v = -1;
        MPI_Status st;
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, inter, &st));
        CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rs, "%s: source %d", k->name, st.MPI_SOURCE);
        CHECK(v == world_of_remote(inter, st.MPI_SOURCE), "%s: got %d from remote %d", k->name, v,
              st.MPI_SOURCE);
        CHECK(!seen[st.MPI_SOURCE]++, "%s: two messages from remote %d", k->name, st.MPI_SOURCE);
        CHECK(st.MPI_TAG == st.MPI_SOURCE, "%s: tag %d from remote %d", k->name, st.MPI_TAG,
              st.MPI_SOURCE);
    }
    MPI_OK(MPI_Waitall(rs, req, MPI_STATUSES_IGNORE));
    /* the next phase's messages must not meet this phase's wildcard receives */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    partner_exchange(k->name, inter);
    pair_exchange(k->name, inter, 9);
    /* PROC_NULL, and a rank of the local group's size that the remote group does not have */
    MPI_OK(MPI_Send(&lr, 1, MPI_INT, MPI_PROC_NULL, 0, inter));
    MPI_OK(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
    int rc = MPI_Send(&lr, 1, MPI_INT, rs, 0, inter), cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK, "%s: send to remote rank %d (remote size) gave class %d", k->name,
          rs, cls);
}

static void check_merge(const split_kind *k, MPI_Comm inter) {
    int a = k->in_a(rank), ga[64], gb[64];
    int na = members(k, 1, ga), nb = members(k, 0, gb);
    /* high = !a: group A first, each in local order (descending world rank) */
    for (int pass = 0; pass < 3; pass++) {
        int high = pass == 0 ? !a : pass == 1 ? a : 0;
        MPI_Comm m;
        MPI_OK(MPI_Intercomm_merge(inter, high, &m));
        int ms, mr;
        MPI_OK(MPI_Comm_size(m, &ms));
        MPI_OK(MPI_Comm_rank(m, &mr));
        CHECK(ms == size, "%s: merged size %d", k->name, ms);
        /* pass 2: equal high, credo puts first the group whose rank 0 (here its highest world
         * rank) has the lower job rank */
        int a_first = pass == 0 || (pass == 2 && ga[na - 1] < gb[nb - 1]);
        int want = 0;
        if (a_first ? !a : a)
            want = a ? nb : na;
        const int *mine = a ? ga : gb;
        int n = a ? na : nb;
        for (int i = 0; i < n; i++)
            if (mine[i] > rank)
                want++;
        CHECK(mr == want, "%s pass %d: merged rank %d, expected %d", k->name, pass, mr, want);
        /* the merged communicator works: an allreduce of world ranks and a ring shift */
        int sum = -1;
        MPI_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, m));
        CHECK(sum == size * (size - 1) / 2, "%s: merged allreduce %d", k->name, sum);
        int right = (mr + 1) % ms, left = (mr + ms - 1) % ms, v = -1;
        MPI_OK(MPI_Sendrecv(&mr, 1, MPI_INT, right, 3, &v, 1, MPI_INT, left, 3, m,
                            MPI_STATUS_IGNORE));
        CHECK(v == left, "%s: merged ring got %d, expected %d", k->name, v, left);
        MPI_OK(MPI_Comm_free(&m));
    }
}

/* dup: same shape, separate traffic (a message on the dup is not received on the original) */
static void check_dup_compare(const split_kind *k, MPI_Comm inter) {
    MPI_Comm d;
    MPI_OK(MPI_Comm_dup(inter, &d));
    check_shape(k, d);
    int res;
    MPI_OK(MPI_Comm_compare(inter, d, &res));
    CHECK(res == MPI_CONGRUENT, "%s: compare(inter, dup) = %d", k->name, res);
    MPI_OK(MPI_Comm_compare(inter, inter, &res));
    CHECK(res == MPI_IDENT, "%s: compare(inter, inter) = %d", k->name, res);
    MPI_OK(MPI_Comm_compare(inter, MPI_COMM_WORLD, &res));
    CHECK(res == MPI_UNEQUAL, "%s: compare(inter, world) = %d", k->name, res);
    /* a message on the dup is not seen on the original */
    int lr, rs, flag = 1;
    MPI_OK(MPI_Comm_rank(d, &lr));
    MPI_OK(MPI_Comm_remote_size(d, &rs));
    MPI_Request r = MPI_REQUEST_NULL;
    if (lr < rs)
        MPI_OK(MPI_Isend(&lr, 1, MPI_INT, lr, 11, d, &r));
    MPI_Status st;
    int ls;
    MPI_OK(MPI_Comm_size(d, &ls));
    if (lr < rs) {
        MPI_OK(MPI_Probe(lr, 11, d, &st));
        MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, 11, inter, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "%s: a message sent on the dup is visible on the original", k->name);
        int v = -1;
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, lr, 11, d, MPI_STATUS_IGNORE));
        CHECK(v == lr, "%s: dup got %d from %d", k->name, v, lr);
    }
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    partner_exchange(k->name, d);
    MPI_OK(MPI_Comm_free(&d));
    CHECK(d == MPI_COMM_NULL, "Comm_free did not reset the handle");
}

/* split by world rank parity inside each group: color c connects the local and remote members of
 * parity c; a color with no remote member gives MPI_COMM_NULL. Then Comm_create with the local
 * group minus its last rank. */
static void check_split_create(const split_kind *k, MPI_Comm inter) {
    int a = k->in_a(rank), mine[64], theirs[64];
    int n = members(k, a, mine), m = members(k, !a, theirs);
    int color = rank % 2, ln = 0, rn = 0;
    for (int i = 0; i < n; i++)
        ln += mine[i] % 2 == color;
    for (int i = 0; i < m; i++)
        rn += theirs[i] % 2 == color;
    MPI_Comm s;
    /* key: ascending world rank (the opposite of the intercommunicator's order) */
    MPI_OK(MPI_Comm_split(inter, color, rank, &s));
    if (rn == 0) {
        CHECK(s == MPI_COMM_NULL, "%s: split color %d with no remote member gave a communicator",
              k->name, color);
    } else {
        CHECK(s != MPI_COMM_NULL, "%s: split gave MPI_COMM_NULL", k->name);
        int ss, sr, srs, flag;
        MPI_OK(MPI_Comm_test_inter(s, &flag));
        MPI_OK(MPI_Comm_size(s, &ss));
        MPI_OK(MPI_Comm_rank(s, &sr));
        MPI_OK(MPI_Comm_remote_size(s, &srs));
        CHECK(flag && ss == ln && srs == rn, "%s: split sizes %d/%d, expected %d/%d", k->name, ss,
              srs, ln, rn);
        int want = 0;
        for (int i = 0; i < n; i++)
            want += mine[i] % 2 == color && mine[i] < rank;
        CHECK(sr == want, "%s: split rank %d, expected %d", k->name, sr, want);
        /* remote rank 0 of the split is the lowest world rank of that parity over there */
        int low = -1;
        for (int i = 0; i < m && low < 0; i++)
            if (theirs[i] % 2 == color)
                low = theirs[i];
        CHECK(world_of_remote(s, 0) == low, "%s: split remote rank 0 is world %d, expected %d",
              k->name, world_of_remote(s, 0), low);
        pair_exchange(k->name, s, 5);
        partner_exchange(k->name, s);
        MPI_OK(MPI_Comm_free(&s));
    }
    /* Comm_create: drop local rank ls-1 (the leader) of each group, if the group keeps someone */
    int ls, lr;
    MPI_OK(MPI_Comm_size(inter, &ls));
    MPI_OK(MPI_Comm_rank(inter, &lr));
    MPI_Group lg, sub;
    MPI_OK(MPI_Comm_group(inter, &lg));
    int drop = ls - 1;
    if (ls > 1)
        MPI_OK(MPI_Group_excl(lg, 1, &drop, &sub));
    else
        sub = lg;
    MPI_Comm c;
    MPI_OK(MPI_Comm_create(inter, sub, &c));
    int in = ls == 1 || lr != drop;
    int remote_kept = m > 1 ? m - 1 : m;
    if (!in) {
        CHECK(c == MPI_COMM_NULL, "%s: create gave a communicator to a dropped process", k->name);
    } else {
        CHECK(c != MPI_COMM_NULL, "%s: create gave MPI_COMM_NULL", k->name);
        int cs, crs;
        MPI_OK(MPI_Comm_size(c, &cs));
        MPI_OK(MPI_Comm_remote_size(c, &crs));
        CHECK(cs == (ls > 1 ? ls - 1 : 1) && crs == remote_kept, "%s: create sizes %d/%d", k->name,
              cs, crs);
        MPI_OK(MPI_Comm_free(&c));
    }
    if (ls > 1)
        MPI_OK(MPI_Group_free(&sub));
    MPI_OK(MPI_Group_free(&lg));
}

static void check_errors(MPI_Comm inter) {
    MPI_OK(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int cls = -1, rs;
    MPI_Comm out = MPI_COMM_NULL;
    MPI_Error_class(MPI_Comm_remote_size(MPI_COMM_WORLD, &rs), &cls);
    CHECK(cls == MPI_ERR_COMM, "Comm_remote_size(world) gave class %d", cls);
    MPI_Error_class(MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &out), &cls);
    CHECK(cls == MPI_ERR_COMM, "Intercomm_merge(world) gave class %d", cls);
    MPI_Error_class(MPI_Intercomm_create(inter, 0, MPI_COMM_WORLD, 0, 0, &out), &cls);
    CHECK(cls == MPI_ERR_COMM, "Intercomm_create on an intercommunicator gave class %d", cls);
    int dims[1] = {0}, periods[1] = {0};
    MPI_Error_class(MPI_Cart_create(inter, 1, dims, periods, 0, &out), &cls);
    CHECK(cls == MPI_ERR_COMM, "Cart_create on an intercommunicator gave class %d", cls);
    MPI_Error_class(MPI_Comm_split_type(inter, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &out), &cls);
    CHECK(cls == MPI_ERR_COMM, "Comm_split_type on an intercommunicator gave class %d", cls);
    /* the leader names itself as the remote leader: only rank 0 of world checks (it is a leader
     * of its own single-process group here) */
    MPI_Error_class(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, rank, 0, &out), &cls);
    CHECK(cls == MPI_ERR_RANK, "Intercomm_create with itself as remote leader gave class %d", cls);
    MPI_Error_class(MPI_Intercomm_create(MPI_COMM_SELF, 1, MPI_COMM_WORLD, 0, 0, &out), &cls);
    CHECK(cls == MPI_ERR_RANK, "Intercomm_create with local leader 1 of 1 gave class %d", cls);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2 && size <= 64, "needs 2..64 processes, got %d", size);
    const split_kind kinds[] = {{"even/odd", even}, {"0/rest", first}, {"halves", low_half}};
    for (int i = 0; i < 3; i++) {
        const split_kind *k = &kinds[i];
        MPI_Comm local, inter;
        inter = make_inter(k, &local, 100 + i);
        check_shape(k, inter);
        check_p2p(k, inter);
        check_dup_compare(k, inter);
        check_merge(k, inter);
        check_split_create(k, inter);
        if (i == 0)
            check_errors(inter);
        MPI_OK(MPI_Comm_free(&inter));
        MPI_OK(MPI_Comm_free(&local));
    }
    /* two intercommunicators alive at once over the same groups, used interleaved */
    MPI_Comm l1, l2, i1, i2;
    i1 = make_inter(&kinds[0], &l1, 200);
    i2 = make_inter(&kinds[0], &l2, 201);
    int lr, rs, v1 = -1, v2 = -1;
    MPI_OK(MPI_Comm_rank(i1, &lr));
    MPI_OK(MPI_Comm_remote_size(i1, &rs));
    if (lr < rs) {
        MPI_Request r[4];
        int a = 1000 + lr, b = 2000 + lr;
        MPI_OK(MPI_Irecv(&v2, 1, MPI_INT, lr, 0, i2, &r[0]));
        MPI_OK(MPI_Irecv(&v1, 1, MPI_INT, lr, 0, i1, &r[1]));
        MPI_OK(MPI_Isend(&a, 1, MPI_INT, lr, 0, i1, &r[2]));
        MPI_OK(MPI_Isend(&b, 1, MPI_INT, lr, 0, i2, &r[3]));
        MPI_OK(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
        CHECK(v1 == 1000 + lr && v2 == 2000 + lr, "two intercomms mixed: %d %d", v1, v2);
    }
    MPI_OK(MPI_Comm_free(&i1));
    MPI_OK(MPI_Comm_free(&i2));
    MPI_OK(MPI_Comm_free(&l1));
    MPI_OK(MPI_Comm_free(&l2));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("intercomm: OK (%d processes)\n", size);
    MPI_Finalize();
    return 0;
}
