/* tests/mpi/alltoallw.c — the w-forms (Alltoallw, Ialltoallw, Neighbor_alltoallw and its
 * non-blocking form): a datatype per peer on both sides, scattered byte displacements, empty
 * blocks, MPI_IN_PLACE, 64 KiB blocks, overlap with p2p; periodic and open grids (untouched
 * PROC_NULL blocks), a distributed graph, MPI_BOTTOM; argument checks. Each result is compared,
 * gaps included, with a sequential reference.
 * Argument "fatal": an invalid call under MPI_ERRORS_ARE_FATAL must abort the job (rank 1). */
#include "testutil.h"
#include "nbhd.h"

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

/* One side of one rank: n blocks, block j carrying message (from[j], to[j]) (from < 0: a PROC_NULL
 * neighbour, nothing arrives), laid out in a permuted block order with gaps; counts, byte
 * displacements (int and MPI_Aint), types, and the buffer size in ints. */
typedef struct layout {
    int nblk, from[64], to[64];
    int cnt[64], disp[64];
    MPI_Aint adisp[64];
    MPI_Datatype type[64];
    int kind[64];
    size_t n;
} layout;

/* side 0: the send side (kinds of the sender), 1: the receive side. */
static void make_layout(const pattern *pt, int side, layout *l) {
    int n = l->nblk;
    size_t cur = 1; /* a leading gap */
    for (int idx = 0; idx < n; idx++) {
        /* reverse order for one side, a stride-3 permutation for the other (n % 3 != 0), or
         * reverse again */
        int j = side == 0 ? n - 1 - idx : (n % 3 ? (idx * 3 + 1) % n : n - 1 - idx);
        size_t ni = nints(pt, l->from[j], l->to[j]);
        int kd = kind_of(pt, l->from[j], l->to[j], side);
        l->kind[j] = kd;
        l->cnt[j] = (int)(ni / (size_t)kints[kd]);
        l->type[j] = ktype[kd];
#ifdef CREDO_STATS
        if (ni == 0) /* credo never looks at an empty block's type */
            l->type[j] = MPI_DATATYPE_NULL;
#endif
        l->disp[j] = (int)(cur * sizeof(int));
        l->adisp[j] = l->disp[j];
        cur += kspan(kd, ni) + 1 + (size_t)(j % 3);
    }
    l->n = cur + 2;
}

/* The blocks of the peers of Alltoallw: side 0 sends (rank, j), side 1 receives (j, rank). */
static void world_layout(const pattern *pt, int side, layout *l) {
    l->nblk = size;
    for (int j = 0; j < size; j++) {
        l->from[j] = side ? j : rank;
        l->to[j] = side ? rank : j;
    }
    make_layout(pt, side, l);
}

/* A buffer of l's shape: block j holds message (from[j], to[j]) with values of salt vsalt at its
 * kind's positions, everything else `fill`. For a send side this is the data; for a receive side
 * it is the sequential reference of the result. */
static int *fill_blocks(const pattern *pt, const layout *l, unsigned vsalt, int fill) {
    int *b = malloc(l->n * sizeof(int));
    for (size_t i = 0; i < l->n; i++)
        b[i] = fill;
    for (int j = 0; j < l->nblk; j++)
        if (l->from[j] >= 0)
            for (size_t k = 0; k < nints(pt, l->from[j], l->to[j]); k++)
                b[(size_t)l->disp[j] / sizeof(int) + kpos(l->kind[j], k)] =
                    val(l->from[j], l->to[j], vsalt, k);
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

/* s.nblk/from/to and r.nblk/from/to must be set. */
static void xchg_init(xchg *x, pattern pt, unsigned vsalt) {
    x->pt = pt;
    make_layout(&x->pt, 0, &x->s);
    make_layout(&x->pt, 1, &x->r);
    x->sb = fill_blocks(&x->pt, &x->s, vsalt, SENTINEL - 1);
    x->want = fill_blocks(&x->pt, &x->r, vsalt, SENTINEL);
    x->rb = malloc(x->r.n * sizeof(int));
    for (size_t i = 0; i < x->r.n; i++)
        x->rb[i] = SENTINEL;
}

static void world_xchg_init(xchg *x, pattern pt) {
    world_layout(&pt, 0, &x->s);
    world_layout(&pt, 1, &x->r);
    xchg_init(x, pt, pt.salt);
}

static void xchg_check_free(xchg *x, const char *what) {
    compare(x->rb, x->want, x->r.n, what);
    free(x->sb);
    free(x->rb);
    free(x->want);
}

static void run_blocking(pattern pt, const char *what) {
    xchg x;
    world_xchg_init(&x, pt);
    MPI_OK(MPI_Alltoallw(x.sb, x.s.cnt, x.s.disp, x.s.type, x.rb, x.r.cnt, x.r.disp, x.r.type,
                         MPI_COMM_WORLD));
    xchg_check_free(&x, what);
    tu_note("Alltoallw %s", what);
}

/* MPI_IN_PLACE: block j of the receive buffer goes to j (with the receive type) and is replaced
 * by j's block; gaps stay as they were. */
static void run_in_place(pattern pt, const char *what) {
    pt.symmetric = 1;
    layout l, mine;
    world_layout(&pt, 1, &l);
    /* before: block j holds (rank, j) in l's shape (the same kind and count both ways) */
    mine = l;
    for (int j = 0; j < size; j++) {
        mine.from[j] = rank;
        mine.to[j] = j;
    }
    int *b = fill_blocks(&pt, &mine, pt.salt, SENTINEL - 2);
    int *want = fill_blocks(&pt, &l, pt.salt, SENTINEL - 2);
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

/* Point-to-point traffic on MPI_COMM_WORLD while collectives are pending: a ring, short and
 * rendezvous-sized messages. */
static void p2p_ring(void) {
    static int out[BIG_INTS / 4], in[BIG_INTS / 4];
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
}

/* Three Ialltoallw outstanding at once (one with a receive type freed right after the call), a
 * ring of point-to-point messages in between, completed in reverse order. */
static void run_nonblocking(void) {
    xchg x[3];
    MPI_Request req[3];
    world_xchg_init(&x[0], (pattern){.salt = 21});
    world_xchg_init(&x[1], (pattern){.salt = 22, .big = 1});
    world_xchg_init(&x[2], (pattern){.salt = 23, .direct = 1});
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
    p2p_ring();
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

/* ---- the neighbourhood forms ----
 * A message is named by its sender and the sender's out-slot: (from, slot). nints, kind_of and val
 * take the slot where Alltoallw takes the receiver. */

/* Distributed graph: out-edges to r+1, r+2, r+1 (a double edge), in-edges from r-1, r-2, r-1. The
 * k-th edge between two processes pairs with the k-th in the other's list, so in-slot i receives
 * out-slot i (for 3 and 4 processes too, where r+2 is r-1 or r-2). */
static MPI_Comm graph_comm(nbhd *nb) {
    nb->nin = nb->nout = 3;
    int d[3] = {1, 2, 1};
    for (int i = 0; i < 3; i++) {
        nb->out[i] = (rank + d[i]) % size;
        nb->in[i] = (rank + size - d[i]) % size;
        nb->peer_slot[i] = i;
    }
    MPI_Comm g;
    MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 3, nb->in, MPI_UNWEIGHTED, 3, nb->out,
                                          MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g));
    return g;
}

static void nb_xchg_init(xchg *x, const nbhd *nb, int me, pattern pt, unsigned vsalt) {
    x->s.nblk = nb->nout;
    for (int o = 0; o < nb->nout; o++) {
        x->s.from[o] = me;
        x->s.to[o] = o;
    }
    x->r.nblk = nb->nin;
    for (int i = 0; i < nb->nin; i++) {
        x->r.from[i] = nb->in[i] == MPI_PROC_NULL ? -1 : nb->in[i];
        x->r.to[i] = nb->in[i] == MPI_PROC_NULL ? i : nb->peer_slot[i];
    }
    xchg_init(x, pt, vsalt);
}

/* Byte displacements as absolute addresses, for MPI_BOTTOM. */
static void absolute(layout *l, const void *buf) {
    MPI_Aint base;
    MPI_OK(MPI_Get_address(buf, &base));
    for (int j = 0; j < l->nblk; j++)
        l->adisp[j] = MPI_Aint_add(base, l->adisp[j]);
}

enum { NB_BLOCKING, NB_BOTTOM, NB_REPEAT };

/* One Neighbor_alltoallw of pattern pt: plain, from and to MPI_BOTTOM, or twice with the same
 * buffers and arguments and new values (the second call may reuse a cached schedule). */
static void run_nb(MPI_Comm c, const nbhd *nb, pattern pt, int mode, const char *what) {
    int me;
    MPI_OK(MPI_Comm_rank(c, &me));
    xchg x;
    nb_xchg_init(&x, nb, me, pt, pt.salt);
    const void *sb = x.sb;
    void *rb = x.rb;
    if (mode == NB_BOTTOM) {
        absolute(&x.s, x.sb);
        absolute(&x.r, x.rb);
        sb = rb = MPI_BOTTOM;
    }
    MPI_OK(MPI_Neighbor_alltoallw(sb, x.s.cnt, x.s.adisp, x.s.type, rb, x.r.cnt, x.r.adisp,
                                  x.r.type, c));
    compare(x.rb, x.want, x.r.n, what);
    if (mode == NB_REPEAT) {
        free(x.sb);
        free(x.want);
        x.sb = fill_blocks(&pt, &x.s, pt.salt + 50, SENTINEL - 1);
        x.want = fill_blocks(&pt, &x.r, pt.salt + 50, SENTINEL);
        for (size_t i = 0; i < x.r.n; i++) /* the same receive buffer, reset */
            x.rb[i] = SENTINEL;
        MPI_OK(MPI_Neighbor_alltoallw(x.sb, x.s.cnt, x.s.adisp, x.s.type, x.rb, x.r.cnt,
                                      x.r.adisp, x.r.type, c));
    }
    xchg_check_free(&x, what);
}

/* Two Ineighbor_alltoallw outstanding (one with 64 KiB blocks) and point-to-point in between. */
static void run_nb_nonblocking(MPI_Comm c, const nbhd *nb, unsigned salt, const char *what) {
    int me;
    MPI_OK(MPI_Comm_rank(c, &me));
    xchg x[2];
    MPI_Request req[2];
    nb_xchg_init(&x[0], nb, me, (pattern){.salt = salt}, salt);
    nb_xchg_init(&x[1], nb, me, (pattern){.salt = salt + 1, .big = 1}, salt + 1);
    for (int i = 0; i < 2; i++)
        MPI_OK(MPI_Ineighbor_alltoallw(x[i].sb, x[i].s.cnt, x[i].s.adisp, x[i].s.type, x[i].rb,
                                       x[i].r.cnt, x[i].r.adisp, x[i].r.type, c, &req[i]));
    p2p_ring();
    MPI_OK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    xchg_check_free(&x[0], what);
    xchg_check_free(&x[1], what);
}

static void run_nb_all(MPI_Comm c, const nbhd *nb, unsigned salt, const char *what) {
    char w[128];
    snprintf(w, sizeof w, "%s mixed", what);
    run_nb(c, nb, (pattern){.salt = salt}, NB_BLOCKING, w);
    snprintf(w, sizeof w, "%s dense, repeated", what);
    run_nb(c, nb, (pattern){.salt = salt + 1, .direct = 1}, NB_REPEAT, w);
    snprintf(w, sizeof w, "%s mixed, 64 KiB", what);
    run_nb(c, nb, (pattern){.salt = salt + 2, .big = 1}, NB_BLOCKING, w);
    snprintf(w, sizeof w, "%s MPI_BOTTOM", what);
    run_nb(c, nb, (pattern){.salt = salt + 3}, NB_BOTTOM, w);
    snprintf(w, sizeof w, "%s dense MPI_BOTTOM", what);
    run_nb(c, nb, (pattern){.salt = salt + 4, .direct = 1}, NB_BOTTOM, w);
    snprintf(w, sizeof w, "%s non-blocking", what);
    run_nb_nonblocking(c, nb, salt + 5, w);
    tu_note("Neighbor_alltoallw %s", what);
}

static void run_neighbors(void) {
    int dims[2] = {0, 0}, periods[2] = {1, 1};
    MPI_OK(MPI_Dims_create(size, 2, dims));
    for (int per = 1; per >= 0; per--) {
        periods[0] = periods[1] = per;
        MPI_Comm c;
        nbhd nb;
        MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c));
        cart_nbhd(c, &nb);
        char what[64];
        snprintf(what, sizeof what, "%s %dx%d grid", per ? "periodic" : "open", dims[0], dims[1]);
        run_nb_all(c, &nb, per ? 30u : 40u, what);
        MPI_OK(MPI_Comm_free(&c));
    }
    nbhd nb;
    MPI_Comm g = graph_comm(&nb);
    run_nb_all(g, &nb, 50, "distributed graph");
    MPI_OK(MPI_Comm_free(&g));
}

/* The neighbourhood forms' checks: no topology, MPI_IN_PLACE, counts, types, request. */
static void run_nb_errors(void) {
    MPI_Comm w, c;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &w));
    MPI_OK(MPI_Comm_set_errhandler(w, MPI_ERRORS_RETURN));
    nbhd nb;
    c = graph_comm(&nb);
    MPI_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    int cnt[3] = {1, 1, 1}, neg[3] = {1, -1, 1}, sb[3], rb[3];
    MPI_Aint d[3] = {0, sizeof(int), 2 * sizeof(int)};
    MPI_Datatype t[3] = {MPI_INT, MPI_INT, MPI_INT}, bad[3] = {MPI_INT, MPI_INT, MPI_DATATYPE_NULL};
    EXPECT_ERR(MPI_ERR_TOPOLOGY, MPI_Neighbor_alltoallw(sb, cnt, d, t, rb, cnt, d, t, w));
    MPI_Request req;
    EXPECT_ERR(MPI_ERR_TOPOLOGY, MPI_Ineighbor_alltoallw(sb, cnt, d, t, rb, cnt, d, t, w, &req));
    EXPECT_ERR(MPI_ERR_BUFFER, MPI_Neighbor_alltoallw(MPI_IN_PLACE, cnt, d, t, rb, cnt, d, t, c));
    EXPECT_ERR(MPI_ERR_COUNT, MPI_Neighbor_alltoallw(sb, neg, d, t, rb, cnt, d, t, c));
    EXPECT_ERR(MPI_ERR_COUNT, MPI_Neighbor_alltoallw(sb, cnt, d, t, rb, neg, d, t, c));
    EXPECT_ERR(MPI_ERR_TYPE, MPI_Neighbor_alltoallw(sb, cnt, d, bad, rb, cnt, d, t, c));
    EXPECT_ERR(MPI_ERR_TYPE, MPI_Neighbor_alltoallw(sb, cnt, d, t, rb, cnt, d, bad, c));
    EXPECT_ERR(MPI_ERR_REQUEST, MPI_Ineighbor_alltoallw(sb, cnt, d, t, rb, cnt, d, t, c, NULL));
    for (int i = 0; i < 3; i++)
        sb[i] = val(rank, i, 0, 0);
    MPI_OK(MPI_Neighbor_alltoallw(sb, cnt, d, t, rb, cnt, d, t, c));
    for (int i = 0; i < 3; i++)
        CHECK(rb[i] == val(nb.in[i], i, 0, 0), "after the errors: rb[%d] = %d", i, rb[i]);
    MPI_OK(MPI_Comm_free(&c));
    MPI_OK(MPI_Comm_free(&w));
    tu_note("Neighbor_alltoallw argument checks");
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
    run_neighbors();
    run_nb_errors();
    for (int k = K_CONT; k < NKINDS; k++)
        MPI_OK(MPI_Type_free(&ktype[k]));
    MPI_Finalize();
    return 0;
}
