/* tests/mpi/icnb.c — the non-blocking collectives on intercommunicators against the blocking ones
 * (which intercoll.c checks by hand): many in flight, p2p between, their locality, types and ops
 * freed while they run; MPI_Comm_idup of an intercommunicator. np 2 to 16. */
#include "ictest.h"

/* ---- one collective call, run blocking (reference buffers) and non-blocking ---- */

enum {
    K_BARRIER, K_BCAST, K_GATHER, K_GATHERV, K_SCATTER, K_SCATTERV, K_REDUCE, K_ALLGATHER,
    K_ALLGATHERV, K_ALLTOALL, K_ALLTOALLV, K_ALLTOALLW, K_ALLREDUCE, K_RSB, K_RS, K_NKINDS
};
static const char *kname[] = {"barrier",   "bcast",     "gather",    "gatherv",    "scatter",
                              "scatterv",  "reduce",    "allgather", "allgatherv", "alltoall",
                              "alltoallv", "alltoallw", "allreduce", "reduce_scatter_block",
                              "reduce_scatter"};

typedef struct job {
    int kind, count, root, user;
    const ty *t;
    MPI_Op op;
    int sints, rints;          /* ints of the send and receive buffers */
    int *sb[2], *rb[2];        /* [0] blocking, [1] non-blocking */
    int sc[MAXP], sd[MAXP], rc[MAXP], rd[MAXP], sdb[MAXP], rdb[MAXP];
    MPI_Datatype st[MAXP], rt[MAXP];
    MPI_Datatype rtype;        /* the receive type of the scatters and alltoallw (see below) */
} job;

/* Sets up j's arguments and both copies of its buffers (same input, canary output). */
static void job_init(job *j, const ictx *c, int kind, const ty *t, int count, int root, int user) {
    memset(j, 0, sizeof *j);
    step++;
    j->kind = kind;
    j->t = t;
    j->count = count;
    j->root = root;
    j->user = user;
    j->op = user ? first_op : MPI_SUM;
    j->rtype = t->dt;
    int m = c->rsize, me = c->lrank, s = t->stride, selems = 0, relems = 0;
    /* a process' block of a rooted v-form or allgatherv is cnt2(count, its local rank, 0) */
    int rooted_v = kind == K_GATHERV || kind == K_SCATTERV || kind == K_ALLGATHERV;
    int v = rooted_v || kind == K_ALLTOALLV || kind == K_ALLTOALLW;
    for (int i = 0; i < m; i++) {
        j->sc[i] = v ? cnt2(count, rooted_v ? 0 : me, i) : count;
        j->rc[i] = v ? cnt2(count, i, rooted_v ? 0 : me) : count;
        j->sd[i] = j->rd[i] = i * count;
    }
    if (v) {
        selems = rev_displs(m, j->sc, j->sd);
        relems = rev_displs(m, j->rc, j->rd);
    } else {
        selems = relems = m * count;
    }
    int mine = v ? cnt2(count, me, 0) : count; /* what this process sends to a root */
    switch (kind) {
    case K_BARRIER: break;
    case K_BCAST: j->rints = count * s; break;
    case K_GATHER:
    case K_GATHERV:
        j->sints = mine * s;
        j->rints = root == MPI_ROOT ? relems * s : 0;
        if (root != MPI_ROOT && v)
            j->sc[0] = mine;
        break;
    case K_SCATTER:
    case K_SCATTERV:
        /* received as MPI_INT, count * k of them: the same type signature */
        j->sints = root == MPI_ROOT ? selems * s : 0;
        j->rtype = MPI_INT;
        j->rc[0] = (v ? cnt2(count, 0, me) : count) * t->k;
        j->rints = root == MPI_ROOT ? 0 : j->rc[0];
        break;
    case K_REDUCE:
    case K_ALLREDUCE: j->sints = j->rints = count * s; break;
    case K_ALLGATHER:
    case K_ALLGATHERV:
        j->sc[0] = mine;
        j->sints = mine * s;
        j->rints = relems * s;
        break;
    case K_ALLTOALL:
    case K_ALLTOALLV:
    case K_ALLTOALLW:
        j->sints = selems * s;
        j->rints = relems * s;
        for (int i = 0; i < m; i++) {
            /* w: blocks from even remote ranks arrive as MPI_INT, k per element of t */
            int as_int = kind == K_ALLTOALLW && i % 2 == 0;
            j->st[i] = count ? t->dt : MPI_DATATYPE_NULL;
            j->rt[i] = count ? (as_int ? MPI_INT : t->dt) : MPI_DATATYPE_NULL;
            j->sdb[i] = j->sd[i] * s * (int)sizeof(int);
            j->rdb[i] = j->rd[i] * s * (int)sizeof(int);
            if (kind == K_ALLTOALLW && as_int)
                j->rc[i] *= t->k; /* same int offsets: k ints per element, gaps skipped alike */
        }
        break;
    case K_RSB:
    case K_RS: {
        int total = count * c->lsize * m;
        for (int l = 0; l < c->lsize; l++)
            j->rc[l] = count * m;
        if (kind == K_RS && count && c->lsize > 1) {
            j->rc[0]++;
            j->rc[c->lsize - 1]--;
        }
        j->sints = total * s;
        j->rints = j->rc[me] * s;
        break;
    }
    }
    for (int b = 0; b < 2; b++) {
        j->sb[b] = nbuf(j->sints);
        j->rb[b] = nbuf(j->rints);
    }
    /* inputs */
    for (int b = 0; b < 2; b++) {
        switch (kind) {
        case K_BCAST:
            if (root == MPI_ROOT)
                fill(j->rb[b], t, 0, count, rank, 0);
            break;
        case K_SCATTER:
        case K_SCATTERV:
            for (int i = 0; root == MPI_ROOT && i < m; i++)
                fill(j->sb[b], t, j->sd[i] * s, j->sc[i], rank, i * 10);
            break;
        case K_ALLTOALL:
        case K_ALLTOALLV:
        case K_ALLTOALLW:
            for (int i = 0; i < m; i++)
                fill(j->sb[b], t, j->sd[i] * s, j->sc[i], rank, i * 10);
            break;
        default: fill(j->sb[b], t, 0, j->sints / s, rank, 0); break;
        }
    }
}

static void job_free(job *j) {
    for (int b = 0; b < 2; b++) {
        free(j->sb[b]);
        free(j->rb[b]);
    }
}

/* Calls j's collective on copy b: blocking when req is NULL. */
static void job_call(job *j, MPI_Comm comm, int b, MPI_Request *req) {
    int *sb = j->sb[b], *rb = j->rb[b], count = j->count, root = j->root, rc = MPI_SUCCESS;
    MPI_Datatype dt = j->t->dt;
    switch (j->kind) {
    case K_BARRIER: rc = req ? MPI_Ibarrier(comm, req) : MPI_Barrier(comm); break;
    case K_BCAST:
        rc = req ? MPI_Ibcast(rb, count, dt, root, comm, req)
                 : MPI_Bcast(rb, count, dt, root, comm);
        break;
    case K_GATHER:
        rc = req ? MPI_Igather(sb, count, dt, rb, count, dt, root, comm, req)
                 : MPI_Gather(sb, count, dt, rb, count, dt, root, comm);
        break;
    case K_GATHERV:
        rc = req ? MPI_Igatherv(sb, j->sc[0], dt, rb, j->rc, j->rd, dt, root, comm, req)
                 : MPI_Gatherv(sb, j->sc[0], dt, rb, j->rc, j->rd, dt, root, comm);
        break;
    case K_SCATTER:
        rc = req ? MPI_Iscatter(sb, count, dt, rb, j->rc[0], MPI_INT, root, comm, req)
                 : MPI_Scatter(sb, count, dt, rb, j->rc[0], MPI_INT, root, comm);
        break;
    case K_SCATTERV:
        rc = req ? MPI_Iscatterv(sb, j->sc, j->sd, dt, rb, j->rc[0], MPI_INT, root, comm, req)
                 : MPI_Scatterv(sb, j->sc, j->sd, dt, rb, j->rc[0], MPI_INT, root, comm);
        break;
    case K_REDUCE:
        rc = req ? MPI_Ireduce(sb, rb, count, dt, j->op, root, comm, req)
                 : MPI_Reduce(sb, rb, count, dt, j->op, root, comm);
        break;
    case K_ALLGATHER:
        rc = req ? MPI_Iallgather(sb, count, dt, rb, count, dt, comm, req)
                 : MPI_Allgather(sb, count, dt, rb, count, dt, comm);
        break;
    case K_ALLGATHERV:
        rc = req ? MPI_Iallgatherv(sb, j->sc[0], dt, rb, j->rc, j->rd, dt, comm, req)
                 : MPI_Allgatherv(sb, j->sc[0], dt, rb, j->rc, j->rd, dt, comm);
        break;
    case K_ALLTOALL:
        rc = req ? MPI_Ialltoall(sb, count, dt, rb, count, dt, comm, req)
                 : MPI_Alltoall(sb, count, dt, rb, count, dt, comm);
        break;
    case K_ALLTOALLV:
        rc = req ? MPI_Ialltoallv(sb, j->sc, j->sd, dt, rb, j->rc, j->rd, dt, comm, req)
                 : MPI_Alltoallv(sb, j->sc, j->sd, dt, rb, j->rc, j->rd, dt, comm);
        break;
    case K_ALLTOALLW:
        rc = req ? MPI_Ialltoallw(sb, j->sc, j->sdb, j->st, rb, j->rc, j->rdb, j->rt, comm, req)
                 : MPI_Alltoallw(sb, j->sc, j->sdb, j->st, rb, j->rc, j->rdb, j->rt, comm);
        break;
    case K_ALLREDUCE:
        rc = req ? MPI_Iallreduce(sb, rb, count, dt, j->op, comm, req)
                 : MPI_Allreduce(sb, rb, count, dt, j->op, comm);
        break;
    case K_RSB: {
        int mine = j->rints / j->t->stride;
        rc = req ? MPI_Ireduce_scatter_block(sb, rb, mine, dt, j->op, comm, req)
                 : MPI_Reduce_scatter_block(sb, rb, mine, dt, j->op, comm);
        break;
    }
    case K_RS:
        rc = req ? MPI_Ireduce_scatter(sb, rb, j->rc, dt, j->op, comm, req)
                 : MPI_Reduce_scatter(sb, rb, j->rc, dt, j->op, comm);
        break;
    }
    CHECK(rc == MPI_SUCCESS, "%s%s returned %d", req ? "I" : "", kname[j->kind], rc);
}

/* The non-blocking copy's buffers equal the blocking one's, in full. */
static void job_compare(const job *j, const ictx *c) {
    for (int i = 0; i < j->rints + TAIL; i++)
        CHECK(j->rb[1][i] == j->rb[0][i],
              "I%s (split %s, %s, count %d, root %d, %s): receive int %d is %d, blocking gave %d",
              kname[j->kind], c->split, j->t->name, j->count, j->root, j->user ? "user op" : "sum",
              i, j->rb[1][i], j->rb[0][i]);
    for (int i = 0; i < j->sints + TAIL; i++)
        CHECK(j->sb[1][i] == j->sb[0][i], "I%s (split %s): send int %d changed to %d",
              kname[j->kind], c->split, i, j->sb[1][i]);
}

/* ---- the batch: every collective with every root, posted at once ---- */

#define MAXJOBS 64

static int make_jobs(const ictx *c, const ty *t, int count, job *jobs) {
    int n = 0;
    for (int in_a = 1; in_a >= 0; in_a--) {
        int gsize = c->a == in_a ? c->lsize : c->rsize;
        int roots[2] = {0, gsize - 1};
        for (int ri = 0; ri < (gsize > 1 ? 2 : 1); ri++) {
            int root = root_arg(c, in_a, roots[ri]);
            for (int k = K_BCAST; k <= K_REDUCE; k++)
                job_init(&jobs[n++], c, k, t, count, root, 0);
            job_init(&jobs[n++], c, K_REDUCE, t, count, root, 1);
        }
    }
    for (int k = K_ALLGATHER; k < K_NKINDS; k++) {
        job_init(&jobs[n++], c, k, t, count, 0, 0);
        if (k >= K_ALLREDUCE)
            job_init(&jobs[n++], c, k, t, count, 0, 1);
    }
    job_init(&jobs[n++], c, K_BARRIER, t, count, 0, 0);
    return n;
}

/* Tokens on the intercommunicator's point-to-point context while the collectives are in flight:
 * each process sends one to remote rank lrank % rsize and receives those meant for it. The
 * receives block, so the collectives must not wait for the peers to finish theirs. */
static void p2p_tokens(const ictx *c, int tag) {
    int token = rank * 1000 + tag, got;
    MPI_Request sreq;
    MPI_OK(MPI_Isend(&token, 1, MPI_INT, c->lrank % c->rsize, tag, c->inter, &sreq));
    for (int r = 0; r < c->rsize; r++)
        if (r % c->lsize == c->lrank) {
            MPI_Status st;
            MPI_OK(MPI_Recv(&got, 1, MPI_INT, r, tag, c->inter, &st));
            CHECK(got % 1000 == tag && st.MPI_SOURCE == r, "split %s: token %d from %d", c->split,
                  got, st.MPI_SOURCE);
        }
    MPI_OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
}

static void batch(const ictx *c, const ty *t, int count) {
    static job jobs[MAXJOBS];
    int n = make_jobs(c, t, count, jobs);
    CHECK(n <= MAXJOBS, "too many jobs");
    for (int i = 0; i < n; i++)
        job_call(&jobs[i], c->inter, 0, NULL);
    MPI_Request req[MAXJOBS], rev[MAXJOBS];
    for (int i = 0; i < n; i++) {
        job_call(&jobs[i], c->inter, 1, &req[i]);
        if (i == n / 2)
            p2p_tokens(c, 7);
    }
    p2p_tokens(c, 8);
    for (int i = 0; i < n; i++)
        rev[i] = req[n - 1 - i];
    MPI_Status st[MAXJOBS];
    MPI_OK(MPI_Waitall(n, rev, st));
    for (int i = 0; i < n; i++) {
        CHECK(rev[i] == MPI_REQUEST_NULL, "Waitall left request %d", i);
        job_compare(&jobs[i], c);
        job_free(&jobs[i]);
    }
}

/* One at a time, each completed by MPI_Test polling (progress only through the request). */
static void singles(const ictx *c, const ty *t, int count) {
    static job jobs[MAXJOBS];
    int n = make_jobs(c, t, count, jobs);
    for (int i = 0; i < n; i++) {
        job_call(&jobs[i], c->inter, 0, NULL);
        MPI_Request r;
        job_call(&jobs[i], c->inter, 1, &r);
        int flag = 0;
        while (!flag)
            MPI_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
        job_compare(&jobs[i], c);
        job_free(&jobs[i]);
    }
}

/* ---- locality: the call returns before the peers call ----
 * Local rank 0 of group A posts the collective, then MPI_Ssend to remote rank 0 (B's leader),
 * which receives that message before it posts its own. Each collective is one that A's leader
 * cannot complete before B's leader joins, so an I-call that waits for completion deadlocks (the
 * test then times out). kind: 0 Ibcast (root in B), 1 Ibarrier, 2 Iallreduce, 3 Ireduce and
 * 4 Igather (root: A's leader). */
static void locality(const ictx *c, int kind) {
    int x = 0, y = -1, token = 12345;
    MPI_Request r;
    int leader_a = c->a && c->lrank == 0, leader_b = !c->a && c->lrank == 0;
    int *all = nbuf(c->rsize);
    if (leader_b)
        MPI_OK(MPI_Recv(&token, 1, MPI_INT, 0, 77, c->inter, MPI_STATUS_IGNORE));
    x = rank + 1;
    switch (kind) {
    case 0:
        MPI_OK(MPI_Ibcast(&x, 1, MPI_INT, !c->a ? (c->lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0,
                          c->inter, &r));
        break;
    case 1: MPI_OK(MPI_Ibarrier(c->inter, &r)); break;
    case 2: MPI_OK(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, c->inter, &r)); break;
    case 3:
        MPI_OK(MPI_Ireduce(&x, &y, 1, MPI_INT, MPI_SUM,
                           c->a ? (c->lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, c->inter, &r));
        break;
    default:
        MPI_OK(MPI_Igather(&x, 1, MPI_INT, all, 1, MPI_INT,
                           c->a ? (c->lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, c->inter, &r));
        break;
    }
    if (leader_a)
        MPI_OK(MPI_Ssend(&token, 1, MPI_INT, 0, 77, c->inter));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(token == 12345, "locality token %d", token);
    if (kind == 0 && c->a)
        CHECK(x > 0 && x - 1 != rank, "locality Ibcast: got %d", x);
    free(all);
}

/* ---- MPI_Comm_idup of an intercommunicator ----
 * Two idups in flight with point-to-point on the parent between; the duplicates must be
 * intercommunicators of the same groups whose traffic stays apart from the parent's and each
 * other's, and collectives on them work. */
static void t_idup(const ictx *c) {
    MPI_Comm d[2];
    MPI_Request r[2];
    MPI_OK(MPI_Comm_idup(c->inter, &d[0], &r[0]));
    p2p_tokens(c, 9);
    MPI_OK(MPI_Comm_idup(c->inter, &d[1], &r[1]));
    MPI_OK(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    for (int i = 0; i < 2; i++) {
        int flag = 0, ls, rs, lr, cmp;
        MPI_OK(MPI_Comm_test_inter(d[i], &flag));
        CHECK(flag, "idup %d: not an intercommunicator", i);
        MPI_OK(MPI_Comm_size(d[i], &ls));
        MPI_OK(MPI_Comm_rank(d[i], &lr));
        MPI_OK(MPI_Comm_remote_size(d[i], &rs));
        CHECK(ls == c->lsize && rs == c->rsize && lr == c->lrank, "idup %d: sizes %d %d rank %d",
              i, ls, rs, lr);
        MPI_OK(MPI_Comm_compare(c->inter, d[i], &cmp));
        CHECK(cmp == MPI_CONGRUENT, "idup %d: compare gives %d", i, cmp);
    }
    /* the same tag on the three communicators, received in the opposite order of sending */
    int peer = c->lrank % c->rsize;
    MPI_Request s[3];
    int v[3] = {rank * 10, rank * 10 + 1, rank * 10 + 2};
    MPI_Comm cs[3] = {c->inter, d[0], d[1]};
    for (int i = 0; i < 3; i++)
        MPI_OK(MPI_Isend(&v[i], 1, MPI_INT, peer, 3, cs[i], &s[i]));
    for (int i = 2; i >= 0; i--)
        for (int q = 0; q < c->rsize; q++)
            if (q % c->lsize == c->lrank) {
                int got;
                MPI_OK(MPI_Recv(&got, 1, MPI_INT, q, 3, cs[i], MPI_STATUS_IGNORE));
                CHECK(got % 10 == i, "idup traffic: %d on communicator %d", got, i);
            }
    MPI_OK(MPI_Waitall(3, s, MPI_STATUSES_IGNORE));
    int x = 1, y = 0;
    MPI_OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, d[1]));
    CHECK(y == c->rsize, "Allreduce on the idup: %d, expected %d", y, c->rsize);
    MPI_Request ar;
    MPI_OK(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, d[0], &ar));
    MPI_OK(MPI_Wait(&ar, MPI_STATUS_IGNORE));
    CHECK(y == c->rsize, "Iallreduce on the idup: %d, expected %d", y, c->rsize);
    MPI_OK(MPI_Comm_free(&d[0]));
    MPI_OK(MPI_Comm_free(&d[1]));
}

/* ---- a datatype and a user op freed while the collectives that use them are in flight ---- */
static void vsum_fn(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < *len; i++) {
        b[3 * i] += a[3 * i];
        b[3 * i + 2] += a[3 * i + 2];
    }
}

static void t_freed(const ictx *c) {
    enum { N = 3, INTS = N * 3 };
    MPI_Op keep, gone;
    MPI_Datatype vt;
    MPI_OK(MPI_Op_create(vsum_fn, 1, &keep));
    MPI_OK(MPI_Op_create(vsum_fn, 1, &gone));
    MPI_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &vt));
    MPI_OK(MPI_Type_commit(&vt));
    step++;
    int *sb = nbuf(INTS), *ref[3], *got[3];
    fill(sb, &t_vec, 0, N, rank, 0);
    for (int i = 0; i < 3; i++) {
        ref[i] = nbuf(INTS);
        got[i] = nbuf(INTS);
    }
    /* Bcast from B's leader, Reduce to A's leader, Allreduce */
    int broot = c->a ? 0 : (c->lrank == 0 ? MPI_ROOT : MPI_PROC_NULL);
    int rroot = !c->a ? 0 : (c->lrank == 0 ? MPI_ROOT : MPI_PROC_NULL);
    if (broot == MPI_ROOT) {
        fill(ref[0], &t_vec, 0, N, rank, 50);
        fill(got[0], &t_vec, 0, N, rank, 50);
    }
    MPI_OK(MPI_Bcast(ref[0], N, t_vec.dt, broot, c->inter));
    MPI_OK(MPI_Reduce(sb, ref[1], N, t_vec.dt, keep, rroot, c->inter));
    MPI_OK(MPI_Allreduce(sb, ref[2], N, t_vec.dt, keep, c->inter));
    MPI_Request r[3];
    MPI_OK(MPI_Ibcast(got[0], N, vt, broot, c->inter, &r[0]));
    MPI_OK(MPI_Ireduce(sb, got[1], N, vt, gone, rroot, c->inter, &r[1]));
    MPI_OK(MPI_Iallreduce(sb, got[2], N, vt, gone, c->inter, &r[2]));
    MPI_OK(MPI_Type_free(&vt));
    MPI_OK(MPI_Op_free(&gone));
    MPI_OK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 3; i++) {
        for (int q = 0; q < INTS + TAIL; q++)
            CHECK(got[i][q] == ref[i][q],
                  "split %s, freed type and op, collective %d: int %d is %d, expected %d",
                  c->split, i, q, got[i][q], ref[i][q]);
        free(ref[i]);
        free(got[i]);
    }
    free(sb);
    MPI_OK(MPI_Op_free(&keep));
}

static void run(const split_kind *k) {
    ictx c;
    make_inter(k, &c);
    /* a receive pending on the point-to-point context through everything: the collectives'
     * messages must never match it */
    int got = -1;
    MPI_Request pending;
    MPI_OK(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 1000, c.inter, &pending));
    for (int kind = 0; kind < 5; kind++)
        locality(&c, kind);
    const ty *types[2] = {&t_int, &t_vec};
    const int counts[2] = {3, 0};
    for (int ti = 0; ti < 2; ti++)
        for (int ci = 0; ci < 2; ci++) {
            batch(&c, types[ti], counts[ci]);
            if (ci == 0)
                singles(&c, types[ti], counts[ci]);
        }
    t_freed(&c);
    t_idup(&c);
    /* release the pending receive: one message from remote rank 0 to local rank 0 */
    int token = 4242;
    MPI_Request sreq = MPI_REQUEST_NULL;
    if (c.lrank == 0)
        MPI_OK(MPI_Isend(&token, 1, MPI_INT, 0, 1000, c.inter, &sreq));
    if (c.lrank == 0) {
        MPI_Status st;
        MPI_OK(MPI_Wait(&pending, &st));
        CHECK(got == 4242 && st.MPI_SOURCE == 0, "pending receive got %d from %d", got,
              st.MPI_SOURCE);
        MPI_OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    } else {
        int flag = 1;
        MPI_OK(MPI_Test(&pending, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "split %s: a collective's message matched a program receive", k->name);
        MPI_OK(MPI_Cancel(&pending));
        MPI_OK(MPI_Wait(&pending, MPI_STATUS_IGNORE));
    }
    MPI_OK(MPI_Comm_free(&c.inter));
    MPI_OK(MPI_Comm_free(&c.local));
    tu_note("split %s: every non-blocking intercommunicator collective", k->name);
}

int main(int argc, char **argv) {
    ic_init(&argc, &argv);
    for (int i = 0; i < IC_NSPLITS; i++)
        run(&ic_splits[i]);
    ic_fini("icnb passed");
    return 0;
}
