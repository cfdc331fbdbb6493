/* tests/mpi/ictest.h — what the intercommunicator collective tests (intercoll.c, icnb.c) share:
 * typed buffers of "logical" ints with canaries, a non-commutative user op, and the three splits. */
#ifndef CREDO_TESTS_MPI_ICTEST_H
#define CREDO_TESTS_MPI_ICTEST_H

#include "testutil.h"

#define MAXP 16

static int rank, size;
static int step; /* advanced alike everywhere: each collective's values differ from the last */

/* ---- buffers: a type's elements as a sequence of "logical" ints ----
 * MPI_INT has one int per element. vec (MPI_Type_vector(2, 1, 2, MPI_INT)) has two, at ints 0 and
 * 2 of a 3-int extent: int 1 is a gap no collective may write. Every buffer starts as CANARY and
 * is compared in full (gaps, unused blocks and a tail of TAIL ints included) against an image
 * built the same way, so writes to the wrong place fail as surely as wrong values. */
#define CANARY (-777)
#define TAIL 4

typedef struct ty {
    const char *name;
    MPI_Datatype dt;
    int k;      /* logical ints per element */
    int stride; /* ints per extent */
} ty;

static ty t_int = {"MPI_INT", MPI_INT, 1, 1};
static ty t_vec = {"vector", MPI_DATATYPE_NULL, 2, 3};

static int pos(const ty *t, int j) { return (j / t->k) * t->stride + (j % t->k) * 2; }

static int *nbuf(int ints) {
    int *b = tu_xmalloc((size_t)(ints + TAIL) * sizeof(int));
    for (int i = 0; i < ints + TAIL; i++)
        b[i] = CANARY;
    return b;
}

/* logical int j of a process with world rank w in the current step */
static int val(int w, int j) { return step * 10000 + w * 100 + j + 1; }

/* count elements of t at int offset off of buf get logical values val(w, base ..) */
static TU_UNUSED void fill(int *buf, const ty *t, int off, int count, int w, int base) {
    for (int j = 0; j < count * t->k; j++)
        buf[off + pos(t, j)] = val(w, base + j);
}

/* ---- the user op: a (+) b = a, associative and not commutative: the result is the value of the
 * group's local rank 0, which catches reductions in the wrong order ---- */
static void first_fn(void *in, void *inout, int *len, MPI_Datatype *dt) {
    const int *a = in;
    int *b = inout;
    if (*dt == MPI_INT) {
        for (int i = 0; i < *len; i++)
            b[i] = a[i];
    } else if (*dt == t_vec.dt) {
        for (int i = 0; i < *len; i++) {
            b[3 * i] = a[3 * i];
            b[3 * i + 2] = a[3 * i + 2];
        }
    } else {
        FAIL("user op called with an unexpected datatype");
    }
}
static MPI_Op first_op;

/* ---- intercommunicators ---- */

typedef struct ictx {
    const char *split;
    MPI_Comm inter, local;
    int a; /* 1 in group A */
    int lsize, lrank, rsize;
    int lworld[MAXP], rworld[MAXP]; /* world rank of each local / remote rank */
} ictx;

typedef struct split_kind {
    const char *name;
    int (*in_a)(int r);
    int descending; /* local ranks by descending world rank */
} split_kind;

static int even(int r) { return r % 2 == 0; }
static int first(int r) { return r == 0; }
static int low_half(int r) { return r < size / 2; }

static void world_ranks(MPI_Group g, int n, int *out) {
    MPI_Group wg;
    int idx[MAXP];
    for (int i = 0; i < n; i++)
        idx[i] = i;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    MPI_OK(MPI_Group_translate_ranks(g, n, idx, wg, out));
    MPI_OK(MPI_Group_free(&wg));
}

static void make_inter(const split_kind *k, ictx *c) {
    c->split = k->name;
    c->a = k->in_a(rank);
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, c->a, k->descending ? size - rank : rank, &c->local));
    /* the remote leader (its local rank 0) by world rank: the highest or lowest of its group */
    int leader = -1;
    for (int r = 0; r < size; r++)
        if (!k->in_a(r) != !c->a && (leader < 0 || (k->descending ? r > leader : r < leader)))
            leader = r;
    MPI_OK(MPI_Intercomm_create(c->local, 0, MPI_COMM_WORLD, leader, 31, &c->inter));
    int flag = 0;
    MPI_OK(MPI_Comm_test_inter(c->inter, &flag));
    CHECK(flag, "%s: not an intercommunicator", k->name);
    MPI_OK(MPI_Comm_size(c->inter, &c->lsize));
    MPI_OK(MPI_Comm_rank(c->inter, &c->lrank));
    MPI_OK(MPI_Comm_remote_size(c->inter, &c->rsize));
    CHECK(c->lsize + c->rsize == size, "%s: sizes %d + %d", k->name, c->lsize, c->rsize);
    MPI_Group g;
    MPI_OK(MPI_Comm_group(c->inter, &g));
    world_ranks(g, c->lsize, c->lworld);
    MPI_OK(MPI_Group_free(&g));
    MPI_OK(MPI_Comm_remote_group(c->inter, &g));
    world_ranks(g, c->rsize, c->rworld);
    MPI_OK(MPI_Group_free(&g));
    CHECK(c->lworld[c->lrank] == rank, "%s: local rank %d is world %d", k->name, c->lrank,
          c->lworld[c->lrank]);
}

/* Block counts of the v-forms: uneven (count or count + 1) and 0 when count is 0. */
static int cnt2(int count, int from, int to) { return count ? count + (from + to) % 2 : 0; }

/* Displacements (in elements) placing block 0 last: blocks in reverse order, one element apart.
 * Returns the elements spanned. */
static int rev_displs(int n, const int *cnt, int *disp) {
    int d = 0;
    for (int i = n - 1; i >= 0; i--) {
        disp[i] = d;
        d += cnt[i] + 1;
    }
    return d;
}

/* What the process passes as root: the root's own group passes MPI_ROOT / MPI_PROC_NULL. */
static int root_arg(const ictx *c, int root_in_a, int root_l) {
    if (c->a == root_in_a)
        return c->lrank == root_l ? MPI_ROOT : MPI_PROC_NULL;
    return root_l;
}

/* The three splits both tests run, and the set-up and tear-down of the vector type and the op. */
static const split_kind ic_splits[] = {{"even/odd", even, 1}, {"1 vs rest", first, 0},
                                       {"halves", low_half, 0}};
#define IC_NSPLITS ((int)(sizeof ic_splits / sizeof ic_splits[0]))

static void ic_init(int *argc, char ***argv) {
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2 && size <= MAXP, "needs 2 to %d processes", MAXP);
    MPI_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &t_vec.dt));
    MPI_OK(MPI_Type_commit(&t_vec.dt));
    MPI_OK(MPI_Op_create(first_fn, 0, &first_op));
}

static void ic_fini(const char *passed) {
    MPI_OK(MPI_Op_free(&first_op));
    MPI_OK(MPI_Type_free(&t_vec.dt));
    MPI_Finalize();
    tu_note("%s", passed);
}

#endif
