/* tests/mpi/alltoallw.c — MPI_Alltoallw and MPI_Ialltoallw: a datatype per peer on both sides,
 * scattered byte displacements, empty blocks, MPI_IN_PLACE, 64 KiB blocks, overlap with p2p.
 * Argument "fatal": an invalid call under MPI_ERRORS_ARE_FATAL must abort the job (rank 1). */
#include "testutil.h"

#define SENTINEL (-7)
#define BIG_INTS 16384 /* 64 KiB: far above the eager limit */

static int rank, size;

/* Every block is a sequence of ints; the kinds differ in where int k of a block sits (in ints from
 * the block's start), so sender and receiver may pick different kinds for the same data. */
enum { K_INT, K_CONT, K_VEC, K_STRUCT, NKINDS };
static MPI_Datatype ktype[NKINDS];
static const int kints[NKINDS] = {1, 2, 2, 2}; /* ints per element */

static void make_types(void) {
    ktype[K_INT] = MPI_INT;
    /* two ints, dense: stays on the zero-copy path */
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &ktype[K_CONT]));
    /* ints 0 and 3 of an extent of 4 */
    MPI_OK(MPI_Type_vector(2, 1, 3, MPI_INT, &ktype[K_VEC]));
    /* ints at 2 then 0 (type map order is not address order), resized to an extent of 5 ints */
    MPI_Datatype st;
    int bl[2] = {1, 1};
    MPI_Aint d[2] = {2 * (MPI_Aint)sizeof(int), 0};
    MPI_Datatype ts[2] = {MPI_INT, MPI_INT};
    MPI_OK(MPI_Type_create_struct(2, bl, d, ts, &st));
    MPI_OK(MPI_Type_create_resized(st, 0, 5 * (MPI_Aint)sizeof(int), &ktype[K_STRUCT]));
    MPI_OK(MPI_Type_free(&st));
    for (int k = K_CONT; k < NKINDS; k++)
        MPI_OK(MPI_Type_commit(&ktype[k]));
}

/* Position (in ints) of int k of a block of kind `kind`, and the ints n ints of it span. */
static size_t kpos(int kind, size_t k) {
    switch (kind) {
    case K_VEC: return k / 2 * 4 + (k % 2) * 3;
    case K_STRUCT: return k / 2 * 5 + (k % 2 ? 0 : 2);
    default: return k;
    }
}
static size_t kspan(int kind, size_t n) {
    return n == 0 ? 0 : kind == K_VEC ? n / 2 * 4 : kind == K_STRUCT ? n / 2 * 5 : n;
}

static int val(int from, int to, unsigned salt, size_t k) {
    return (int)(salt * 10000000u + (unsigned)from * 1000000u + (unsigned)to * 100000u +
                 (unsigned)(k % 99991) + 1);
}

/* One pattern of an exchange: everything both sides of a pair must agree on. */
typedef struct pattern {
    unsigned salt;
    int big;       /* some pairs move BIG_INTS */
    int direct;    /* only dense kinds (INT, CONT): the zero-copy path */
    int symmetric; /* nints(a,b) == nints(b,a) and the same kind both ways (MPI_IN_PLACE) */
} pattern;

/* Ints from `from` to `to`: even (every kind holds 2 ints per element), sometimes 0. */
static size_t nints(const pattern *pt, int from, int to) {
    if (pt->symmetric && from > to) {
        int t = from;
        from = to;
        to = t;
    }
    unsigned h = pt->salt * 7u + (unsigned)from * 5u + (unsigned)to * 3u;
    if (h % 4 == 1)
        return 0;
    if (pt->big && (from + to) % 3 == 0)
        return BIG_INTS;
    return 2 * (1 + h % 5);
}

/* The kind `from` sends its block to `to` with (side 0) and `to` receives it with (side 1). */
static int kind_of(const pattern *pt, int from, int to, int side) {
    if (pt->symmetric && from > to) {
        int t = from;
        from = to;
        to = t;
    }
    unsigned h = pt->salt + (unsigned)from * 3u + (unsigned)to * 7u + (pt->symmetric ? 0u : side * 5u);
    return pt->direct ? (int)(h % 2) : (int)(h % NKINDS);
}

/* One side of one rank: counts, displacements (bytes, blocks laid out in a permuted peer order with
 * gaps), types, and the buffer size in ints. side 0: send (peer = to), 1: receive (peer = from). */
typedef struct layout {
    int cnt[64], disp[64];
    MPI_Datatype type[64];
    int kind[64];
    size_t n;
} layout;

static void make_layout(const pattern *pt, int side, layout *l) {
    size_t cur = 1; /* a leading gap */
    for (int idx = 0; idx < size; idx++) {
        /* reverse order for one side, a stride-3 permutation for the other (size % 3 != 0), or
         * reverse again */
        int j = side == 0 ? size - 1 - idx : (size % 3 ? (idx * 3 + 1) % size : size - 1 - idx);
        int from = side ? j : rank, to = side ? rank : j;
        size_t ni = nints(pt, from, to);
        int kd = kind_of(pt, from, to, side);
        l->kind[j] = kd;
        l->cnt[j] = (int)(ni / (size_t)kints[kd]);
        l->type[j] = ktype[kd];
#ifdef CREDO_STATS
        if (ni == 0) /* credo never looks at an empty block's type */
            l->type[j] = MPI_DATATYPE_NULL;
#endif
        l->disp[j] = (int)(cur * sizeof(int));
        cur += kspan(kd, ni) + 1 + (size_t)(j % 3);
    }
    l->n = cur + 2;
}

/* Send buffer: block for peer j holds val(rank, j) at its kind's positions, the rest SENTINEL-1. */
static int *fill_send(const pattern *pt, const layout *l) {
    int *b = malloc(l->n * sizeof(int));
    for (size_t i = 0; i < l->n; i++)
        b[i] = SENTINEL - 1;
    for (int j = 0; j < size; j++)
        for (size_t k = 0; k < nints(pt, rank, j); k++)
            b[(size_t)l->disp[j] / sizeof(int) + kpos(l->kind[j], k)] = val(rank, j, pt->salt, k);
    return b;
}

/* The sequential reference of the receive buffer: from's data at the receive kind's positions of
 * block `from`; everything else keeps `fill`. */
static int *reference(const pattern *pt, const layout *l, int fill) {
    int *b = malloc(l->n * sizeof(int));
    for (size_t i = 0; i < l->n; i++)
        b[i] = fill;
    for (int j = 0; j < size; j++)
        for (size_t k = 0; k < nints(pt, j, rank); k++)
            b[(size_t)l->disp[j] / sizeof(int) + kpos(l->kind[j], k)] = val(j, rank, pt->salt, k);
    return b;
}

static void compare(const int *got, const int *want, size_t n, const char *what) {
    for (size_t i = 0; i < n; i++)
        CHECK(got[i] == want[i], "%s: recvbuf[%zu] = %d, expected %d", what, i, got[i], want[i]);
}

typedef struct xchg {
    pattern pt;
    layout s, r;
    int *sb, *rb, *want;
} xchg;

static void xchg_init(xchg *x, pattern pt) {
    x->pt = pt;
    make_layout(&x->pt, 0, &x->s);
    make_layout(&x->pt, 1, &x->r);
    x->sb = fill_send(&x->pt, &x->s);
    x->want = reference(&x->pt, &x->r, SENTINEL);
    x->rb = malloc(x->r.n * sizeof(int));
    for (size_t i = 0; i < x->r.n; i++)
        x->rb[i] = SENTINEL;
}

static void xchg_check_free(xchg *x, const char *what) {
    compare(x->rb, x->want, x->r.n, what);
    free(x->sb);
    free(x->rb);
    free(x->want);
}

static void run_blocking(pattern pt, const char *what) {
    xchg x;
    xchg_init(&x, pt);
    MPI_OK(MPI_Alltoallw(x.sb, x.s.cnt, x.s.disp, x.s.type, x.rb, x.r.cnt, x.r.disp, x.r.type,
                         MPI_COMM_WORLD));
    xchg_check_free(&x, what);
    tu_note("Alltoallw %s", what);
}

/* MPI_IN_PLACE: block j of the receive buffer goes to j (with the receive type) and is replaced
 * by j's block; gaps stay as they were. */
static void run_in_place(pattern pt, const char *what) {
    pt.symmetric = 1;
    layout l;
    make_layout(&pt, 1, &l);
    int *b = malloc(l.n * sizeof(int));
    for (size_t i = 0; i < l.n; i++)
        b[i] = SENTINEL - 2;
    for (int j = 0; j < size; j++)
        for (size_t k = 0; k < nints(&pt, rank, j); k++)
            b[(size_t)l.disp[j] / sizeof(int) + kpos(l.kind[j], k)] = val(rank, j, pt.salt, k);
    int *want = reference(&pt, &l, SENTINEL - 2);
    /* the send arguments are ignored: pass garbage */
    int junk[64];
    for (int i = 0; i < 64; i++)
        junk[i] = -1;
    MPI_OK(MPI_Alltoallw(MPI_IN_PLACE, junk, junk, NULL, b, l.cnt, l.disp, l.type,
                         MPI_COMM_WORLD));
    compare(b, want, l.n, "in place");
    free(b);
    free(want);
    tu_note("Alltoallw in place %s", what);
}

/* Three Ialltoallw outstanding at once (one with a receive type freed right after the call), a
 * ring of point-to-point messages in between, completed in reverse order. */
static void run_nonblocking(void) {
    xchg x[3];
    MPI_Request req[3];
    xchg_init(&x[0], (pattern){.salt = 21});
    xchg_init(&x[1], (pattern){.salt = 22, .big = 1});
    xchg_init(&x[2], (pattern){.salt = 23, .direct = 1});
    MPI_Datatype dup[64];
    for (int j = 0; j < size; j++) {
        dup[j] = MPI_DATATYPE_NULL;
        if (x[0].r.cnt[j] > 0 && x[0].r.kind[j] != K_INT) {
            MPI_OK(MPI_Type_dup(x[0].r.type[j], &dup[j]));
            x[0].r.type[j] = dup[j];
        }
    }
    for (int i = 0; i < 3; i++)
        MPI_OK(MPI_Ialltoallw(x[i].sb, x[i].s.cnt, x[i].s.disp, x[i].s.type, x[i].rb, x[i].r.cnt,
                              x[i].r.disp, x[i].r.type, MPI_COMM_WORLD, &req[i]));
    for (int j = 0; j < size; j++)
        if (dup[j] != MPI_DATATYPE_NULL)
            MPI_OK(MPI_Type_free(&dup[j])); /* the pending call keeps its own reference */
    int out[BIG_INTS / 4], in[BIG_INTS / 4];
    for (int round = 0; round < 4; round++) {
        int n = round % 2 ? BIG_INTS / 4 : 8, to = (rank + 1) % size, from = (rank + size - 1) % size;
        for (int k = 0; k < n; k++)
            out[k] = val(rank, round, 99, (size_t)k);
        MPI_Request pr[2];
        MPI_OK(MPI_Irecv(in, n, MPI_INT, from, round, MPI_COMM_WORLD, &pr[0]));
        MPI_OK(MPI_Isend(out, n, MPI_INT, to, round, MPI_COMM_WORLD, &pr[1]));
        MPI_OK(MPI_Waitall(2, pr, MPI_STATUSES_IGNORE));
        for (int k = 0; k < n; k++)
            CHECK(in[k] == val(from, round, 99, (size_t)k), "p2p round %d [%d] = %d", round, k,
                  in[k]);
    }
    for (int i = 2; i >= 0; i--)
        MPI_OK(MPI_Wait(&req[i], MPI_STATUS_IGNORE));
    xchg_check_free(&x[0], "Ialltoallw (types freed while pending)");
    xchg_check_free(&x[1], "Ialltoallw big");
    xchg_check_free(&x[2], "Ialltoallw dense");
    tu_note("Ialltoallw: 3 outstanding with point-to-point traffic");
}

/* Every argument check returns its class under MPI_ERRORS_RETURN. */
#define EXPECT_ERR(cls, call)                                                                      \
    do {                                                                                           \
        int rc_ = (call), cl_ = -1;                                                                \
        MPI_Error_class(rc_, &cl_);                                                                \
        CHECK(cl_ == (cls), "%s: error class %d, expected %s", #call, cl_, #cls);                  \
    } while (0)

static void run_errors(void) {
    MPI_Comm c;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    int cnt[64], disp[64], neg[64], sb[64], rb[64];
    MPI_Datatype t[64], bad[64];
    MPI_Datatype uncommitted;
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &uncommitted));
    for (int j = 0; j < size; j++) {
        cnt[j] = 1;
        disp[j] = j * (int)sizeof(int);
        neg[j] = j == size - 1 ? -1 : 1;
        t[j] = MPI_INT;
        bad[j] = j == size - 1 ? uncommitted : MPI_INT;
    }
    EXPECT_ERR(MPI_ERR_COUNT, MPI_Alltoallw(sb, neg, disp, t, rb, cnt, disp, t, c));
    EXPECT_ERR(MPI_ERR_COUNT, MPI_Alltoallw(sb, cnt, disp, t, rb, neg, disp, t, c));
    EXPECT_ERR(MPI_ERR_TYPE, MPI_Alltoallw(sb, cnt, disp, bad, rb, cnt, disp, t, c));
    EXPECT_ERR(MPI_ERR_TYPE, MPI_Alltoallw(sb, cnt, disp, t, rb, cnt, disp, bad, c));
    EXPECT_ERR(MPI_ERR_BUFFER, MPI_Alltoallw(sb, cnt, disp, t, sb, cnt, disp, t, c));
    EXPECT_ERR(MPI_ERR_BUFFER, MPI_Alltoallw(sb, cnt, disp, t, MPI_IN_PLACE, cnt, disp, t, c));
    EXPECT_ERR(MPI_ERR_REQUEST, MPI_Ialltoallw(sb, cnt, disp, t, rb, cnt, disp, t, c, NULL));
    /* the same arguments without the fault succeed afterwards */
    for (int j = 0; j < size; j++)
        sb[j] = val(rank, j, 0, 0);
    MPI_OK(MPI_Alltoallw(sb, cnt, disp, t, rb, cnt, disp, t, c));
    for (int j = 0; j < size; j++)
        CHECK(rb[j] == val(j, rank, 0, 0), "after the errors: rb[%d] = %d", j, rb[j]);
    MPI_OK(MPI_Type_free(&uncommitted));
    MPI_OK(MPI_Comm_free(&c));
    tu_note("Alltoallw argument checks");
}

/* Under the default handler rank 1 passes a negative count: the job must end there. */
static void run_fatal(void) {
    int cnt[64], disp[64], sb[64] = {0}, rb[64];
    MPI_Datatype t[64];
    for (int j = 0; j < size; j++) {
        cnt[j] = rank == 1 && j == 0 ? -3 : 1;
        disp[j] = j * (int)sizeof(int);
        t[j] = MPI_INT;
    }
    MPI_Alltoallw(sb, cnt, disp, t, rb, cnt, disp, t, MPI_COMM_WORLD);
    if (rank == 1)
        printf("NOT FATAL: MPI_Alltoallw returned\n");
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= 64, "at most 64 ranks");
    if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
        run_fatal();
        MPI_Finalize();
        return 0;
    }
    make_types();
    run_blocking((pattern){.salt = 1}, "mixed types");
    run_blocking((pattern){.salt = 2, .direct = 1}, "dense types (zero-copy)");
    run_blocking((pattern){.salt = 3, .big = 1}, "mixed types, 64 KiB blocks");
    run_blocking((pattern){.salt = 4, .big = 1, .direct = 1}, "dense types, 64 KiB blocks");
    run_in_place((pattern){.salt = 5}, "mixed types");
    run_in_place((pattern){.salt = 6, .direct = 1}, "dense types");
    run_in_place((pattern){.salt = 7, .big = 1}, "mixed types, 64 KiB blocks");
    run_nonblocking();
    run_errors();
    for (int k = K_CONT; k < NKINDS; k++)
        MPI_OK(MPI_Type_free(&ktype[k]));
    MPI_Finalize();
    return 0;
}
