/* tests/mpi/intercoll.c — the blocking collectives on intercommunicators against hand-computed
 * results (three splits, roots in both groups, MPI_INT and a vector type with a gap, counts 0 and
 * 3, MPI_SUM and a non-commutative user op) and the errors credo raises there. np 2 to 16. */
#include "ictest.h"

/* count elements of t at int offset off of buf hold lg[0 .. count * k - 1] */
static void put(int *buf, const ty *t, int off, int count, const int *lg) {
    for (int j = 0; j < count * t->k; j++)
        buf[off + pos(t, j)] = lg[j];
}

static void seq(int *out, int n, int w, int base) {
    for (int j = 0; j < n; j++)
        out[j] = val(w, base + j);
}

static void same(const char *what, const char *split, const ty *t, int count, const int *got,
                 const int *want, int ints) {
    for (int i = 0; i < ints + TAIL; i++)
        CHECK(got[i] == want[i], "%s (split %s, %s, count %d): int %d is %d, expected %d", what,
              split, t->name, count, i, got[i], want[i]);
}

/* Block counts of a rooted v-form: uneven (count or count + 1) and 0 when count is 0. */
static int cnt1(int count, int l) { return count ? count + l % 2 : 0; }

/* ---- rooted collectives ---- */

static void t_bcast(const ictx *c, const ty *t, int count, int root_in_a, int root_l) {
    step++;
    int root = root_arg(c, root_in_a, root_l), n = count * t->k, ints = count * t->stride;
    int rw = c->a == root_in_a ? c->lworld[root_l] : c->rworld[root_l];
    int lg[64];
    seq(lg, n, rw, 0);
    int *buf = nbuf(ints), *want = nbuf(ints);
    if (root == MPI_ROOT)
        put(buf, t, 0, count, lg);
    if (root != MPI_PROC_NULL)
        put(want, t, 0, count, lg); /* receivers get it, the root keeps it */
    MPI_OK(MPI_Bcast(buf, count, t->dt, root, c->inter));
    same("Bcast", c->split, t, count, buf, want, ints);
    free(buf);
    free(want);
}

static void t_gather(const ictx *c, const ty *t, int count, int root_in_a, int root_l, int v) {
    step++;
    int root = root_arg(c, root_in_a, root_l);
    int lg[64];
    if (root == MPI_PROC_NULL) {
        if (v)
            MPI_OK(MPI_Gatherv(NULL, 0, t->dt, NULL, NULL, NULL, t->dt, root, c->inter));
        else
            MPI_OK(MPI_Gather(NULL, 0, t->dt, NULL, 0, t->dt, root, c->inter));
        return;
    }
    if (root == MPI_ROOT) {
        int rc[64], dp[64], elems = c->rsize * count;
        for (int i = 0; i < c->rsize; i++) {
            rc[i] = cnt1(count, i);
            dp[i] = i * count;
        }
        if (v)
            elems = rev_displs(c->rsize, rc, dp);
        int *buf = nbuf(elems * t->stride), *want = nbuf(elems * t->stride);
        for (int i = 0; i < c->rsize; i++) {
            int ci = v ? rc[i] : count;
            seq(lg, ci * t->k, c->rworld[i], 0);
            put(want, t, dp[i] * t->stride, ci, lg);
        }
        if (v)
            MPI_OK(MPI_Gatherv(NULL, 0, t->dt, buf, rc, dp, t->dt, root, c->inter));
        else
            MPI_OK(MPI_Gather(NULL, 0, t->dt, buf, count, t->dt, root, c->inter));
        same(v ? "Gatherv at the root" : "Gather at the root", c->split, t, count, buf, want,
             elems * t->stride);
        free(buf);
        free(want);
        return;
    }
    /* the other group sends; the send buffer must come back unchanged */
    int mine = v ? cnt1(count, c->lrank) : count;
    int *sb = nbuf(mine * t->stride), *want = nbuf(mine * t->stride);
    seq(lg, mine * t->k, rank, 0);
    put(sb, t, 0, mine, lg);
    put(want, t, 0, mine, lg);
    if (v)
        MPI_OK(MPI_Gatherv(sb, mine, t->dt, NULL, NULL, NULL, t->dt, root, c->inter));
    else
        MPI_OK(MPI_Gather(sb, count, t->dt, NULL, 0, t->dt, root, c->inter));
    same("Gather send buffer", c->split, t, count, sb, want, mine * t->stride);
    free(sb);
    free(want);
}

/* The root sends blocks of t; the other group receives them as MPI_INT (count * k of them), which
 * has the same type signature. */
static void t_scatter(const ictx *c, const ty *t, int count, int root_in_a, int root_l, int v) {
    step++;
    int root = root_arg(c, root_in_a, root_l);
    int lg[64];
    if (root == MPI_PROC_NULL) {
        if (v)
            MPI_OK(MPI_Scatterv(NULL, NULL, NULL, t->dt, NULL, 0, MPI_INT, root, c->inter));
        else
            MPI_OK(MPI_Scatter(NULL, 0, t->dt, NULL, 0, MPI_INT, root, c->inter));
        return;
    }
    if (root == MPI_ROOT) {
        int sc[64], dp[64], elems = c->rsize * count;
        for (int i = 0; i < c->rsize; i++) {
            sc[i] = cnt1(count, i);
            dp[i] = i * count;
        }
        if (v)
            elems = rev_displs(c->rsize, sc, dp);
        int *buf = nbuf(elems * t->stride), *want = nbuf(elems * t->stride);
        for (int i = 0; i < c->rsize; i++) {
            int ci = v ? sc[i] : count;
            seq(lg, ci * t->k, rank, i * 10);
            put(buf, t, dp[i] * t->stride, ci, lg);
            put(want, t, dp[i] * t->stride, ci, lg);
        }
        if (v)
            MPI_OK(MPI_Scatterv(buf, sc, dp, t->dt, NULL, 0, MPI_INT, root, c->inter));
        else
            MPI_OK(MPI_Scatter(buf, count, t->dt, NULL, 0, MPI_INT, root, c->inter));
        same("Scatter send buffer", c->split, t, count, buf, want, elems * t->stride);
        free(buf);
        free(want);
        return;
    }
    int mine = (v ? cnt1(count, c->lrank) : count) * t->k;
    int *rb = nbuf(mine), *want = nbuf(mine);
    seq(lg, mine, c->rworld[root], c->lrank * 10);
    put(want, &t_int, 0, mine, lg);
    if (v)
        MPI_OK(MPI_Scatterv(NULL, NULL, NULL, t->dt, rb, mine, MPI_INT, root, c->inter));
    else
        MPI_OK(MPI_Scatter(NULL, 0, t->dt, rb, mine, MPI_INT, root, c->inter));
    same(v ? "Scatterv" : "Scatter", c->split, t, count, rb, want, mine);
    free(rb);
    free(want);
}

/* expected reduction of logical ints [base, base + n) over the world ranks ws[0..m-1] */
static void reduced(int *out, int n, const int *ws, int m, int base, int user) {
    for (int j = 0; j < n; j++) {
        out[j] = val(ws[0], base + j);
        if (!user)
            for (int i = 1; i < m; i++)
                out[j] += val(ws[i], base + j);
    }
}

static void t_reduce(const ictx *c, const ty *t, int count, int root_in_a, int root_l, int user) {
    step++;
    int root = root_arg(c, root_in_a, root_l), n = count * t->k, ints = count * t->stride;
    MPI_Op op = user ? first_op : MPI_SUM;
    int lg[64];
    if (root == MPI_PROC_NULL) {
        MPI_OK(MPI_Reduce(NULL, NULL, count, t->dt, op, root, c->inter));
        return;
    }
    int *sb = nbuf(ints), *rb = nbuf(ints), *want = nbuf(ints), *swant = nbuf(ints);
    if (root == MPI_ROOT) {
        reduced(lg, n, c->rworld, c->rsize, 0, user);
        put(want, t, 0, count, lg);
    } else {
        seq(lg, n, rank, 0);
        put(sb, t, 0, count, lg);
        put(swant, t, 0, count, lg);
    }
    MPI_OK(MPI_Reduce(root == MPI_ROOT ? NULL : sb, root == MPI_ROOT ? rb : NULL, count, t->dt, op,
                      root, c->inter));
    same(user ? "Reduce (user op)" : "Reduce (MPI_SUM)", c->split, t, count, rb, want, ints);
    same("Reduce send buffer", c->split, t, count, sb, swant, ints);
    free(sb);
    free(rb);
    free(want);
    free(swant);
}

/* ---- the rest ---- */

static void t_allgather(const ictx *c, const ty *t, int count, int v) {
    step++;
    int lg[64], rc[64], dp[64], elems = c->rsize * count;
    for (int i = 0; i < c->rsize; i++) {
        rc[i] = cnt1(count, i);
        dp[i] = i * count;
    }
    if (v)
        elems = rev_displs(c->rsize, rc, dp);
    int mine = v ? cnt1(count, c->lrank) : count;
    int *sb = nbuf(mine * t->stride), *rb = nbuf(elems * t->stride),
        *want = nbuf(elems * t->stride);
    seq(lg, mine * t->k, rank, 0);
    put(sb, t, 0, mine, lg);
    for (int i = 0; i < c->rsize; i++) {
        int ci = v ? rc[i] : count;
        seq(lg, ci * t->k, c->rworld[i], 0);
        put(want, t, dp[i] * t->stride, ci, lg);
    }
    if (v)
        MPI_OK(MPI_Allgatherv(sb, mine, t->dt, rb, rc, dp, t->dt, c->inter));
    else
        MPI_OK(MPI_Allgather(sb, count, t->dt, rb, count, t->dt, c->inter));
    same(v ? "Allgatherv" : "Allgather", c->split, t, count, rb, want, elems * t->stride);
    free(sb);
    free(rb);
    free(want);
}

/* kind 0: Alltoall, 1: Alltoallv, 2: Alltoallw (received from even remote ranks as MPI_INT, from
 * odd ones as t; with count 0 every type is MPI_DATATYPE_NULL, which empty blocks may carry) */
static void t_alltoall(const ictx *c, const ty *t, int count, int kind) {
    step++;
    int m = c->rsize, me = c->lrank;
    int sc[64], sd[64], rc[64], rd[64], sdb[64], rdb[64];
    MPI_Datatype st[64], rt[64];
    for (int i = 0; i < m; i++) {
        sc[i] = kind ? cnt2(count, me, i) : count;
        rc[i] = kind ? cnt2(count, i, me) : count;
        sd[i] = i * count;
        rd[i] = i * count;
    }
    int selems = m * count, relems = m * count;
    if (kind) {
        selems = rev_displs(m, sc, sd);
        relems = rev_displs(m, rc, rd);
    }
    /* Alltoallw's receive blocks as MPI_INT take k ints per element of t: same int offsets */
    const ty *rty[64];
    for (int i = 0; i < m; i++) {
        rty[i] = kind == 2 && i % 2 == 0 ? &t_int : t;
        st[i] = count ? t->dt : MPI_DATATYPE_NULL;
        rt[i] = count ? rty[i]->dt : MPI_DATATYPE_NULL;
        sdb[i] = sd[i] * t->stride * (int)sizeof(int);
        rdb[i] = rd[i] * t->stride * (int)sizeof(int);
    }
    int *sb = nbuf(selems * t->stride), *rb = nbuf(relems * t->stride),
        *want = nbuf(relems * t->stride), lg[64];
    for (int i = 0; i < m; i++) {
        seq(lg, sc[i] * t->k, rank, i * 10);
        put(sb, t, sd[i] * t->stride, sc[i], lg);
        seq(lg, rc[i] * t->k, c->rworld[i], me * 10);
        put(want, rty[i], rd[i] * t->stride, rc[i] * t->k / rty[i]->k, lg);
    }
    if (kind == 0) {
        MPI_OK(MPI_Alltoall(sb, count, t->dt, rb, count, t->dt, c->inter));
    } else if (kind == 1) {
        MPI_OK(MPI_Alltoallv(sb, sc, sd, t->dt, rb, rc, rd, t->dt, c->inter));
    } else {
        int rcw[64];
        for (int i = 0; i < m; i++)
            rcw[i] = rc[i] * t->k / rty[i]->k;
        MPI_OK(MPI_Alltoallw(sb, sc, sdb, st, rb, rcw, rdb, rt, c->inter));
    }
    same(kind == 0 ? "Alltoall" : kind == 1 ? "Alltoallv" : "Alltoallw", c->split, t, count, rb,
         want, relems * t->stride);
    free(sb);
    free(rb);
    free(want);
}

static void t_allreduce(const ictx *c, const ty *t, int count, int user) {
    step++;
    int n = count * t->k, ints = count * t->stride, lg[64];
    int *sb = nbuf(ints), *rb = nbuf(ints), *want = nbuf(ints);
    seq(lg, n, rank, 0);
    put(sb, t, 0, count, lg);
    reduced(lg, n, c->rworld, c->rsize, 0, user);
    put(want, t, 0, count, lg);
    MPI_OK(MPI_Allreduce(sb, rb, count, t->dt, user ? first_op : MPI_SUM, c->inter));
    same(user ? "Allreduce (user op)" : "Allreduce (MPI_SUM)", c->split, t, count, rb, want, ints);
    free(sb);
    free(rb);
    free(want);
}

/* Both groups' vectors hold total = count * lsize * rsize elements (MPI: the same in both), so
 * Reduce_scatter_block's recvcount is count * (remote size); Reduce_scatter's counts are uneven
 * (one more at local rank 0, one less at the last). */
static void t_reduce_scatter(const ictx *c, const ty *t, int count, int user, int block) {
    step++;
    int total = count * c->lsize * c->rsize, rc[64];
    for (int l = 0; l < c->lsize; l++)
        rc[l] = count * c->rsize;
    if (!block && count && c->lsize > 1) {
        rc[0]++;
        rc[c->lsize - 1]--;
    }
    int off = 0;
    for (int l = 0; l < c->lrank; l++)
        off += rc[l];
    int mine = rc[c->lrank], lg[512]; /* total * k <= 3 * 8 * 8 * 2 */
    int *sb = nbuf(total * t->stride), *rb = nbuf(mine * t->stride),
        *want = nbuf(mine * t->stride);
    seq(lg, total * t->k, rank, 0);
    put(sb, t, 0, total, lg);
    reduced(lg, mine * t->k, c->rworld, c->rsize, off * t->k, user);
    put(want, t, 0, mine, lg);
    MPI_Op op = user ? first_op : MPI_SUM;
    if (block)
        MPI_OK(MPI_Reduce_scatter_block(sb, rb, mine, t->dt, op, c->inter));
    else
        MPI_OK(MPI_Reduce_scatter(sb, rb, rc, t->dt, op, c->inter));
    same(block ? "Reduce_scatter_block" : "Reduce_scatter", c->split, t, count, rb, want,
         mine * t->stride);
    free(sb);
    free(rb);
    free(want);
}

/* ---- barrier: no process leaves before every remote process entered ----
 * After the barrier each process sends a token to remote rank (its rank mod remote size). Before
 * entering, each process polls for tokens for a while: a correct barrier cannot let any remote
 * process out (and send) before this one is in, so finding one is a failure. */
static void t_barrier(const ictx *c) {
    double until = MPI_Wtime() + 0.02;
    while (MPI_Wtime() < until) {
        int flag = 0;
        MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, 99, c->inter, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "Barrier (split %s): a remote process left before this one entered",
              c->split);
    }
    MPI_OK(MPI_Barrier(c->inter));
    /* non-blocking send: a blocking one need not return before its receive is posted */
    int token = rank, got;
    MPI_Request sreq;
    MPI_OK(MPI_Isend(&token, 1, MPI_INT, c->lrank % c->rsize, 99, c->inter, &sreq));
    for (int r = 0; r < c->rsize; r++)
        if (r % c->lsize == c->lrank) {
            MPI_OK(MPI_Recv(&got, 1, MPI_INT, r, 99, c->inter, MPI_STATUS_IGNORE));
            CHECK(got == c->rworld[r], "Barrier token from remote %d is %d", r, got);
        }
    MPI_OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
}

/* The errors credo raises on an intercommunicator, under MPI_ERRORS_RETURN: all are local, so no
 * process is left waiting. */
static void t_errors(const ictx *c) {
    MPI_OK(MPI_Comm_set_errhandler(c->inter, MPI_ERRORS_RETURN));
    int x = 1, y = 0;
    MPI_Request req = MPI_REQUEST_NULL;
    /* the non-blocking forms check what the blocking ones check (icnb.c tests them running) */
    int rc = MPI_Iallreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, c->inter, &req);
    CHECK(tu_class(rc) == MPI_ERR_BUFFER,
          "Iallreduce in place on an intercommunicator: class %d", tu_class(rc));
    rc = MPI_Ibcast(&x, 1, MPI_INT, c->rsize, c->inter, &req);
    CHECK(tu_class(rc) == MPI_ERR_ROOT, "Ibcast root = remote size: class %d", tu_class(rc));
    CHECK(req == MPI_REQUEST_NULL, "a refused non-blocking collective set its request");
    rc = MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, c->inter);
    CHECK(tu_class(rc) == MPI_ERR_COMM, "Scan on an intercommunicator: class %d", tu_class(rc));
    rc = MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, c->inter);
    CHECK(tu_class(rc) == MPI_ERR_COMM, "Exscan on an intercommunicator: class %d", tu_class(rc));
    rc = MPI_Allreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, c->inter);
    CHECK(tu_class(rc) == MPI_ERR_BUFFER, "Allreduce in place on an intercommunicator: class %d",
          tu_class(rc));
    rc = MPI_Bcast(&x, 1, MPI_INT, c->rsize, c->inter);
    CHECK(tu_class(rc) == MPI_ERR_ROOT, "Bcast root = remote size: class %d", tu_class(rc));
    CHECK(x == 1 && y == 0, "a refused collective wrote its buffers");
    MPI_OK(MPI_Comm_set_errhandler(c->inter, MPI_ERRORS_ARE_FATAL));
}

static void run(const split_kind *k) {
    ictx c;
    make_inter(k, &c);
    /* A receive on the intercommunicator's point-to-point context, pending through every
     * collective: their messages travel on another context and must never match it. */
    t_errors(&c);
    t_barrier(&c); /* before the receive below: its tokens would match it */
    int expect = 0;
    for (int r = 0; r < c.rsize; r++)
        expect += r % c.lsize == c.lrank;
    int got = -1;
    MPI_Request pending = MPI_REQUEST_NULL;
    if (expect)
        MPI_OK(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, c.inter, &pending));
    const ty *types[2] = {&t_int, &t_vec};
    const int counts[2] = {3, 0};
    for (int ti = 0; ti < 2; ti++)
        for (int ci = 0; ci < 2; ci++) {
            const ty *t = types[ti];
            int count = counts[ci];
            for (int in_a = 1; in_a >= 0; in_a--) {
                int gsize = c.a == in_a ? c.lsize : c.rsize;
                int roots[2] = {0, gsize - 1};
                for (int ri = 0; ri < (gsize > 1 ? 2 : 1); ri++) {
                    int rl = roots[ri];
                    t_bcast(&c, t, count, in_a, rl);
                    t_gather(&c, t, count, in_a, rl, 0);
                    t_gather(&c, t, count, in_a, rl, 1);
                    t_scatter(&c, t, count, in_a, rl, 0);
                    t_scatter(&c, t, count, in_a, rl, 1);
                    t_reduce(&c, t, count, in_a, rl, 0);
                    t_reduce(&c, t, count, in_a, rl, 1);
                }
            }
            t_allgather(&c, t, count, 0);
            t_allgather(&c, t, count, 1);
            for (int kind = 0; kind < 3; kind++)
                t_alltoall(&c, t, count, kind);
            for (int user = 0; user < 2; user++) {
                t_allreduce(&c, t, count, user);
                t_reduce_scatter(&c, t, count, user, 1);
                t_reduce_scatter(&c, t, count, user, 0);
            }
            MPI_OK(MPI_Barrier(c.inter));
        }

    /* now the messages the pending receive was waiting for */
    int token = 424242 + rank;
    MPI_Request sreq;
    MPI_OK(MPI_Isend(&token, 1, MPI_INT, c.lrank % c.rsize, 5, c.inter, &sreq));
    for (int i = 0; i < expect; i++) {
        MPI_Status st;
        if (i == 0)
            MPI_OK(MPI_Wait(&pending, &st));
        else
            MPI_OK(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 5, c.inter, &st));
        CHECK(st.MPI_TAG == 5 && st.MPI_SOURCE >= 0 && st.MPI_SOURCE < c.rsize &&
                  st.MPI_SOURCE % c.lsize == c.lrank && got == 424242 + c.rworld[st.MPI_SOURCE],
              "split %s: the pending receive got %d from %d tag %d", c.split, got, st.MPI_SOURCE,
              st.MPI_TAG);
    }
    MPI_OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Comm_free(&c.inter));
    MPI_OK(MPI_Comm_free(&c.local));
    tu_note("split %s: every intercommunicator collective", k->name);
}

int main(int argc, char **argv) {
    ic_init(&argc, &argv);
    MPI_Aint lb, ext;
    MPI_OK(MPI_Type_get_extent(t_vec.dt, &lb, &ext));
    CHECK(lb == 0 && ext == 3 * (MPI_Aint)sizeof(int), "vector extent %ld", (long)ext);
    for (int i = 0; i < IC_NSPLITS; i++)
        run(&ic_splits[i]);
    ic_fini("intercoll passed");
    return 0;
}
