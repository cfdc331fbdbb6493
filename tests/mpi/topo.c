/* tests/mpi/topo.c — process topologies at np 6: Dims_create, 2x3 Cartesian grids, Cart_sub, graphs,
 * distributed graphs, Topo_test, Comm_dup keeping the topology, errors (and a fatal one). */
#include "testutil.h"

/* With "fatal" as argument, rank 1 calls MPI_Cart_shift on MPI_COMM_WORLD (no topology). */

static int rank, size;

/* ---- Dims_create ---- */

static void dims_expect(int nnodes, int ndims, const int *in, const int *want) {
    int d[8];
    memcpy(d, in, (size_t)ndims * sizeof(int));
    MPI_OK(MPI_Dims_create(nnodes, ndims, d));
    for (int i = 0; i < ndims; i++)
        CHECK(d[i] == want[i], "Dims_create(%d, %d): dims[%d] = %d, expected %d", nnodes, ndims, i,
              d[i], want[i]);
}

static void test_dims(void) {
    dims_expect(12, 2, (int[]){0, 0}, (int[]){4, 3});
    dims_expect(16, 3, (int[]){0, 0, 0}, (int[]){4, 2, 2});
    dims_expect(6, 2, (int[]){0, 0}, (int[]){3, 2});
    dims_expect(7, 2, (int[]){0, 0}, (int[]){7, 1});
    dims_expect(24, 3, (int[]){0, 0, 0}, (int[]){4, 3, 2});
    dims_expect(32, 3, (int[]){0, 0, 0}, (int[]){4, 4, 2});
    dims_expect(100, 3, (int[]){0, 0, 0}, (int[]){5, 5, 4});
    dims_expect(1, 3, (int[]){0, 0, 0}, (int[]){1, 1, 1});
    dims_expect(12, 2, (int[]){0, 2}, (int[]){6, 2});
    dims_expect(12, 2, (int[]){3, 0}, (int[]){3, 4});
    dims_expect(24, 3, (int[]){0, 3, 0}, (int[]){4, 3, 2});
    dims_expect(16, 3, (int[]){2, 0, 0}, (int[]){2, 4, 2});
    dims_expect(6, 2, (int[]){2, 3}, (int[]){2, 3});
    dims_expect(5, 1, (int[]){0}, (int[]){5});
    /* impossible input: errors, dims untouched where the call fails */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int d[3] = {3, 0};
    CHECK(tu_class(MPI_Dims_create(10, 2, d)) == MPI_ERR_DIMS, "10 nodes with a fixed 3 accepted");
    int e[2] = {-1, 0};
    CHECK(tu_class(MPI_Dims_create(4, 2, e)) == MPI_ERR_DIMS, "negative dims entry accepted");
    CHECK(tu_class(MPI_Dims_create(4, -1, e)) == MPI_ERR_DIMS, "negative ndims accepted");
    int f[2] = {0, 0};
    CHECK(tu_class(MPI_Dims_create(0, 2, f)) == MPI_ERR_ARG, "nnodes 0 accepted");
    int g[2] = {2, 2};
    CHECK(tu_class(MPI_Dims_create(6, 2, g)) == MPI_ERR_DIMS, "fixed 2x2 for 6 nodes accepted");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    tu_note("Dims_create");
}

/* ---- Cartesian ---- */

/* Hand computation on a 2x3 grid, rank = 3 * row + col. */
static int hand_shift(int r, int dim, int disp, const int *periods) {
    int c[2] = {r / 3, r % 3}, n[2] = {2, 3};
    int x = c[dim] + disp;
    if (x < 0 || x >= n[dim]) {
        if (!periods[dim])
            return MPI_PROC_NULL;
        x = ((x % n[dim]) + n[dim]) % n[dim];
    }
    c[dim] = x;
    return 3 * c[0] + c[1];
}

static void check_cart_2x3(MPI_Comm cart, const int *periods, const char *what) {
    int status, nd, dims[2], per[2], co[2], r;
    MPI_OK(MPI_Topo_test(cart, &status));
    CHECK(status == MPI_CART, "%s: Topo_test %d", what, status);
    MPI_OK(MPI_Cartdim_get(cart, &nd));
    CHECK(nd == 2, "%s: Cartdim_get %d", what, nd);
    MPI_OK(MPI_Comm_rank(cart, &r));
    CHECK(r == rank, "%s: rank %d, expected %d (no reordering)", what, r, rank);
    MPI_OK(MPI_Cart_get(cart, 2, dims, per, co));
    CHECK(dims[0] == 2 && dims[1] == 3 && per[0] == !!periods[0] && per[1] == !!periods[1] &&
              co[0] == rank / 3 && co[1] == rank % 3,
          "%s: Cart_get dims %dx%d periods %d,%d coords %d,%d", what, dims[0], dims[1], per[0],
          per[1], co[0], co[1]);
    for (int q = 0; q < 6; q++) {
        MPI_OK(MPI_Cart_coords(cart, q, 2, co));
        CHECK(co[0] == q / 3 && co[1] == q % 3, "%s: Cart_coords(%d) = %d,%d", what, q, co[0],
              co[1]);
        MPI_OK(MPI_Cart_rank(cart, co, &r));
        CHECK(r == q, "%s: Cart_rank(%d,%d) = %d", what, co[0], co[1], r);
    }
    /* wrapped coordinates on periodic dimensions */
    for (int dim = 0; dim < 2; dim++) {
        if (!periods[dim])
            continue;
        int c[2] = {1, 2};
        c[dim] += dim == 0 ? 2 : -6; /* (3,2) -> (1,2) and (1,-4) -> (1,2) */
        MPI_OK(MPI_Cart_rank(cart, c, &r));
        CHECK(r == 5, "%s: Cart_rank(%d,%d) = %d, expected 5 (wrapped)", what, c[0], c[1], r);
    }
    for (int dim = 0; dim < 2; dim++)
        for (int disp = -3; disp <= 3; disp++) {
            int src, dst;
            MPI_OK(MPI_Cart_shift(cart, dim, disp, &src, &dst));
            int ws = hand_shift(rank, dim, -disp, periods), wd = hand_shift(rank, dim, disp, periods);
            CHECK(src == ws && dst == wd, "%s: Cart_shift(dim %d, disp %d) = %d,%d expected %d,%d",
                  what, dim, disp, src, dst, ws, wd);
        }
    /* The shift neighbours are the real processes: send the rank along dimension 1. */
    int src, dst, got = -1;
    MPI_OK(MPI_Cart_shift(cart, 1, 1, &src, &dst));
    MPI_OK(MPI_Sendrecv(&rank, 1, MPI_INT, dst, 3, &got, 1, MPI_INT, src, 3, cart,
                        MPI_STATUS_IGNORE));
    CHECK(got == (src == MPI_PROC_NULL ? -1 : src), "%s: got %d from shift source %d", what, got,
          src);
}

static void test_cart(void) {
    static const int both[2] = {1, 1}, none[2] = {0, 0}, mixed[2] = {1, 0};
    const int *variants[3] = {both, none, mixed};
    const char *names[3] = {"periodic 2x3", "non-periodic 2x3", "periodic x non-periodic 2x3"};
    for (int v = 0; v < 3; v++) {
        MPI_Comm cart;
        MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, (int[]){2, 3}, variants[v], 0, &cart));
        CHECK(cart != MPI_COMM_NULL, "%s: MPI_COMM_NULL", names[v]);
        check_cart_2x3(cart, variants[v], names[v]);
        /* a dup keeps the topology */
        MPI_Comm dup, idup;
        MPI_Request req;
        MPI_OK(MPI_Comm_dup(cart, &dup));
        MPI_OK(MPI_Comm_idup(cart, &idup, &req));
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Comm_free(&cart));
        check_cart_2x3(dup, variants[v], "dup");
        check_cart_2x3(idup, variants[v], "idup");
        MPI_OK(MPI_Comm_free(&dup));
        MPI_OK(MPI_Comm_free(&idup));
    }
    /* hand-written spot checks: rank 4 is (1,1); rank 0 is (0,0) */
    MPI_Comm c;
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, (int[]){2, 3}, (int[]){1, 0}, 1, &c));
    int s, d;
    MPI_OK(MPI_Cart_shift(c, 1, 1, &s, &d));
    if (rank == 4)
        CHECK(s == 3 && d == 5, "rank 4 dim 1: %d,%d", s, d);
    if (rank == 0)
        CHECK(s == MPI_PROC_NULL && d == 1, "rank 0 dim 1: %d,%d", s, d);
    MPI_OK(MPI_Cart_shift(c, 0, 1, &s, &d));
    if (rank == 0)
        CHECK(s == 3 && d == 3, "rank 0 dim 0 (periodic, 2 rows): %d,%d", s, d);
    int m;
    MPI_OK(MPI_Cart_map(c, 2, (int[]){2, 2}, (int[]){0, 0}, &m));
    CHECK(m == (rank < 4 ? rank : MPI_UNDEFINED), "Cart_map(2x2) = %d", m);
    MPI_OK(MPI_Comm_free(&c));
    /* processes beyond the grid get MPI_COMM_NULL */
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, (int[]){2, 2}, (int[]){0, 0}, 0, &c));
    if (rank >= 4) {
        CHECK(c == MPI_COMM_NULL, "rank %d outside a 2x2 grid got a communicator", rank);
    } else {
        int n;
        CHECK(c != MPI_COMM_NULL, "rank %d inside a 2x2 grid got MPI_COMM_NULL", rank);
        MPI_OK(MPI_Comm_size(c, &n));
        CHECK(n == 4, "2x2 grid has size %d", n);
        MPI_OK(MPI_Barrier(c));
        MPI_OK(MPI_Comm_free(&c));
    }
    /* zero dimensions: one process */
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &c));
    CHECK((c != MPI_COMM_NULL) == (rank == 0), "0-d grid on rank %d", rank);
    if (c != MPI_COMM_NULL)
        MPI_OK(MPI_Comm_free(&c));
    tu_note("Cart_create, get, rank, coords, shift, map, dup");
}

static void test_cart_sub(void) {
    MPI_Comm cart, row, col, none;
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, (int[]){2, 3}, (int[]){0, 1}, 0, &cart));
    MPI_OK(MPI_Cart_sub(cart, (int[]){0, 1}, &row)); /* keep the columns: one row each */
    MPI_OK(MPI_Cart_sub(cart, (int[]){1, 0}, &col));
    int n, r, st, dims[1], per[1], co[1], sum;
    MPI_OK(MPI_Comm_size(row, &n));
    MPI_OK(MPI_Comm_rank(row, &r));
    CHECK(n == 3 && r == rank % 3, "row: rank %d of %d", r, n);
    MPI_OK(MPI_Topo_test(row, &st));
    CHECK(st == MPI_CART, "row: Topo_test %d", st);
    MPI_OK(MPI_Cart_get(row, 1, dims, per, co));
    CHECK(dims[0] == 3 && per[0] == 1 && co[0] == rank % 3, "row: Cart_get %d %d %d", dims[0],
          per[0], co[0]);
    MPI_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, row));
    int want = rank / 3 * 9 + 3; /* 0+1+2 or 3+4+5 */
    CHECK(sum == want, "row allreduce %d, expected %d", sum, want);
    int src, dst;
    MPI_OK(MPI_Cart_shift(row, 0, 1, &src, &dst));
    CHECK(dst == (r + 1) % 3 && src == (r + 2) % 3, "row shift %d,%d", src, dst);
    MPI_OK(MPI_Comm_size(col, &n));
    MPI_OK(MPI_Comm_rank(col, &r));
    CHECK(n == 2 && r == rank / 3, "column: rank %d of %d", r, n);
    MPI_OK(MPI_Cart_get(col, 1, dims, per, co));
    CHECK(dims[0] == 2 && per[0] == 0 && co[0] == rank / 3, "column: Cart_get %d %d %d", dims[0],
          per[0], co[0]);
    MPI_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, col));
    CHECK(sum == 2 * (rank % 3) + 3, "column allreduce %d", sum);
    MPI_OK(MPI_Cart_shift(col, 0, 1, &src, &dst));
    CHECK(src == (r == 0 ? MPI_PROC_NULL : 0) && dst == (r == 1 ? MPI_PROC_NULL : 1),
          "column shift %d,%d", src, dst);
    MPI_OK(MPI_Cart_sub(cart, (int[]){0, 0}, &none));
    MPI_OK(MPI_Comm_size(none, &n));
    MPI_OK(MPI_Cartdim_get(none, &st));
    CHECK(n == 1 && st == 0, "all dims dropped: size %d, %d dims", n, st);
    MPI_OK(MPI_Comm_free(&none));
    MPI_OK(MPI_Comm_free(&row));
    MPI_OK(MPI_Comm_free(&col));
    MPI_OK(MPI_Comm_free(&cart));
    tu_note("Cart_sub rows and columns");
}

/* ---- graph ---- */

/* Ring over 6 nodes plus a double chord 0-3 and a self loop on 5. */
static const int g_index[6] = {4, 6, 8, 12, 14, 17};
static const int g_edges[17] = {5, 1, 3, 3, /* 0 */ 0, 2, /* 1 */ 1, 3, /* 2 */ 2, 4, 0, 0,
                                /* 3 */ 3, 5, /* 4 */ 4, 0, 5 /* 5 */};

static void check_graph(MPI_Comm g, const char *what) {
    int st, nn, ne, idx[6], ed[17];
    MPI_OK(MPI_Topo_test(g, &st));
    CHECK(st == MPI_GRAPH, "%s: Topo_test %d", what, st);
    MPI_OK(MPI_Graphdims_get(g, &nn, &ne));
    CHECK(nn == 6 && ne == 17, "%s: Graphdims_get %d %d", what, nn, ne);
    MPI_OK(MPI_Graph_get(g, 6, 17, idx, ed));
    CHECK(!memcmp(idx, g_index, sizeof idx) && !memcmp(ed, g_edges, sizeof ed),
          "%s: Graph_get differs", what);
    for (int q = 0; q < 6; q++) {
        int n, nb[8], first = q ? g_index[q - 1] : 0;
        MPI_OK(MPI_Graph_neighbors_count(g, q, &n));
        CHECK(n == g_index[q] - first, "%s: node %d has %d neighbours", what, q, n);
        memset(nb, -1, sizeof nb);
        MPI_OK(MPI_Graph_neighbors(g, q, 8, nb));
        CHECK(!memcmp(nb, g_edges + first, (size_t)n * sizeof(int)) && nb[n] == -1,
              "%s: neighbours of %d differ", what, q);
    }
}

static void test_graph(void) {
    MPI_Comm g, d;
    MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, 6, g_index, g_edges, 0, &g));
    check_graph(g, "graph");
    MPI_OK(MPI_Comm_dup(g, &d));
    check_graph(d, "dup of graph");
    MPI_OK(MPI_Comm_free(&d));
    int m;
    MPI_OK(MPI_Graph_map(g, 3, g_index, g_edges, &m));
    CHECK(m == (rank < 3 ? rank : MPI_UNDEFINED), "Graph_map = %d", m);
    MPI_OK(MPI_Comm_free(&g));
    /* 4 nodes: ranks 4 and 5 are left out */
    MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, 4, (int[]){1, 2, 3, 4}, (int[]){1, 0, 3, 2}, 0, &g));
    CHECK((g == MPI_COMM_NULL) == (rank >= 4), "4-node graph on rank %d", rank);
    if (g != MPI_COMM_NULL) {
        int nb;
        MPI_OK(MPI_Graph_neighbors(g, rank, 1, &nb));
        CHECK(nb == (rank ^ 1), "4-node graph: neighbour %d", nb);
        MPI_OK(MPI_Comm_free(&g));
    }
    tu_note("Graph_create and queries");
}

/* ---- distributed graph ---- */

static int cmp_pair(const void *a, const void *b) {
    const int *x = a, *y = b;
    return x[0] != y[0] ? x[0] - y[0] : x[1] - y[1];
}

/* Compares the (rank, weight) multisets of n entries. */
static int same_edges(int n, const int *r1, const int *w1, const int *r2, const int *w2) {
    int a[32][2], b[32][2];
    for (int i = 0; i < n; i++) {
        a[i][0] = r1[i], a[i][1] = w1 ? w1[i] : 0;
        b[i][0] = r2[i], b[i][1] = w2 ? w2[i] : 0;
    }
    qsort(a, (size_t)n, sizeof a[0], cmp_pair);
    qsort(b, (size_t)n, sizeof b[0], cmp_pair);
    return !memcmp(a, b, (size_t)n * sizeof a[0]);
}

static void check_dist(MPI_Comm c, int indeg, const int *src, const int *sw, int outdeg,
                       const int *dst, const int *dw, int weighted, int ordered, const char *what) {
    int st, i, o, w, s[16], sww[16], d[16], dww[16];
    MPI_OK(MPI_Topo_test(c, &st));
    CHECK(st == MPI_DIST_GRAPH, "%s: Topo_test %d", what, st);
    MPI_OK(MPI_Dist_graph_neighbors_count(c, &i, &o, &w));
    CHECK(i == indeg && o == outdeg && !!w == weighted, "%s: counts %d %d %d, expected %d %d %d",
          what, i, o, w, indeg, outdeg, weighted);
    MPI_OK(MPI_Dist_graph_neighbors(c, 16, s, weighted ? sww : MPI_UNWEIGHTED, 16, d,
                                    weighted ? dww : MPI_UNWEIGHTED));
    if (ordered) {
        CHECK(!memcmp(s, src, (size_t)i * sizeof(int)) && !memcmp(d, dst, (size_t)o * sizeof(int)),
              "%s: neighbour lists differ", what);
        if (weighted)
            CHECK(!memcmp(sww, sw, (size_t)i * sizeof(int)) &&
                      !memcmp(dww, dw, (size_t)o * sizeof(int)),
                  "%s: weights differ", what);
    } else {
        CHECK(same_edges(i, s, weighted ? sww : NULL, src, weighted ? sw : NULL),
              "%s: sources differ", what);
        CHECK(same_edges(o, d, weighted ? dww : NULL, dst, weighted ? dw : NULL),
              "%s: destinations differ", what);
    }
}

static void test_dist_graph(void) {
    int p = size;
    /* adjacent: edges a -> a+1 (weight 10a+1) and a -> a-2 (weight 10a+2) */
    int src[2] = {(rank + p - 1) % p, (rank + 2) % p};
    int sw[2] = {10 * src[0] + 1, 10 * src[1] + 2};
    int dst[2] = {(rank + 1) % p, (rank + p - 2) % p};
    int dw[2] = {10 * rank + 1, 10 * rank + 2};
    MPI_Comm c, d;
    MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, sw, 2, dst, dw, MPI_INFO_NULL, 0,
                                          &c));
    check_dist(c, 2, src, sw, 2, dst, dw, 1, 1, "adjacent");
    MPI_OK(MPI_Comm_dup(c, &d));
    check_dist(d, 2, src, sw, 2, dst, dw, 1, 1, "dup of adjacent");
    MPI_OK(MPI_Comm_free(&d));
    MPI_OK(MPI_Comm_free(&c));
    MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, MPI_UNWEIGHTED, 2, dst,
                                          MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c));
    check_dist(c, 2, src, NULL, 2, dst, NULL, 0, 1, "adjacent unweighted");
    MPI_OK(MPI_Comm_free(&c));

    /* general: rank q (except the last) describes the out-edges of s = q+1: s -> s+1 (10s+1) and
     * s -> s+3 (10s+3); the last rank describes nothing (MPI_WEIGHTS_EMPTY). */
    int s = (rank + 1) % p, deg = 2;
    int dd[2] = {(s + 1) % p, (s + 3) % p}, ww[2] = {10 * s + 1, 10 * s + 3};
    int last = rank == p - 1;
    MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, last ? 0 : 1, &s, &deg, dd,
                                 last ? MPI_WEIGHTS_EMPTY : ww, MPI_INFO_NULL, 0, &c));
    int ein[16], ewin[16], eout[16], ewout[16], ni = 0, no = 0;
    for (int q = 0; q < p - 1; q++) {
        int a = (q + 1) % p, t[2] = {(a + 1) % p, (a + 3) % p}, w[2] = {10 * a + 1, 10 * a + 3};
        for (int k = 0; k < 2; k++) {
            if (a == rank)
                eout[no] = t[k], ewout[no++] = w[k];
            if (t[k] == rank)
                ein[ni] = a, ewin[ni++] = w[k];
        }
    }
    check_dist(c, ni, ein, ewin, no, eout, ewout, 1, 0, "Dist_graph_create");
    MPI_OK(MPI_Comm_free(&c));
    /* unweighted, every rank describes its own out-edges */
    MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &deg, dst, MPI_UNWEIGHTED,
                                 MPI_INFO_NULL, 0, &c));
    check_dist(c, 2, src, NULL, 2, dst, NULL, 0, 0, "Dist_graph_create unweighted");
    MPI_OK(MPI_Comm_free(&c));
    tu_note("distributed graphs");
}

/* ---- errors ---- */

static void test_errors(void) {
    MPI_Comm cart, g;
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, (int[]){2, 3}, (int[]){1, 0}, 0, &cart));
    MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, 6, g_index, g_edges, 0, &g));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN));
    int s, d, n, st, co[2];
    MPI_OK(MPI_Topo_test(MPI_COMM_WORLD, &st));
    CHECK(st == MPI_UNDEFINED, "Topo_test(WORLD) = %d", st);
    CHECK(tu_class(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &s, &d)) == MPI_ERR_TOPOLOGY,
          "Cart_shift on WORLD");
    CHECK(tu_class(MPI_Cart_shift(g, 0, 1, &s, &d)) == MPI_ERR_TOPOLOGY, "Cart_shift on a graph");
    CHECK(tu_class(MPI_Graph_neighbors_count(cart, 0, &n)) == MPI_ERR_TOPOLOGY,
          "Graph_neighbors_count on a grid");
    CHECK(tu_class(MPI_Dist_graph_neighbors_count(g, &n, &n, &st)) == MPI_ERR_TOPOLOGY,
          "Dist_graph_neighbors_count on a graph");
    CHECK(tu_class(MPI_Cart_shift(cart, 2, 1, &s, &d)) == MPI_ERR_ARG, "direction 2 of 2 dims");
    CHECK(tu_class(MPI_Cart_rank(cart, (int[]){0, 3}, &n)) == MPI_ERR_ARG,
          "coordinate 3 on a non-periodic dimension of 3");
    CHECK(tu_class(MPI_Cart_rank(cart, (int[]){0, -1}, &n)) == MPI_ERR_ARG,
          "coordinate -1 on a non-periodic dimension");
    CHECK(tu_class(MPI_Cart_coords(cart, 6, 2, co)) == MPI_ERR_RANK, "Cart_coords of rank 6");
    CHECK(tu_class(MPI_Graph_neighbors(g, 7, 2, co)) == MPI_ERR_RANK, "Graph_neighbors of node 7");
    MPI_Comm bad = MPI_COMM_NULL;
    CHECK(tu_class(MPI_Cart_create(MPI_COMM_WORLD, 2, (int[]){3, 3}, (int[]){0, 0}, 0, &bad)) ==
              MPI_ERR_DIMS,
          "a 3x3 grid on 6 processes");
    CHECK(tu_class(MPI_Cart_create(MPI_COMM_WORLD, 2, (int[]){0, 3}, (int[]){0, 0}, 0, &bad)) ==
              MPI_ERR_DIMS,
          "a grid with a zero dimension");
    CHECK(tu_class(MPI_Graph_create(MPI_COMM_WORLD, 2, (int[]){1, 2}, (int[]){1, 2}, 0, &bad)) ==
              MPI_ERR_RANK,
          "a graph edge to node 2 of 2");
    CHECK(tu_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, (int[]){size}, MPI_UNWEIGHTED,
                                                  0, NULL, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                                  &bad)) == MPI_ERR_RANK,
          "a dist-graph source outside the communicator");
    CHECK(bad == MPI_COMM_NULL, "a failed constructor set the communicator");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    MPI_OK(MPI_Comm_free(&cart));
    MPI_OK(MPI_Comm_free(&g));
    tu_note("errors");
}

int main(int argc, char **argv) {
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size == 6, "topo needs 6 processes, has %d", size);
    if (argc > 1 && !strcmp(argv[1], "fatal")) {
        /* Under MPI_ERRORS_ARE_FATAL this must end the job with a line naming rank 1 and the call. */
        if (rank == 1) {
            int s, d;
            MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &s, &d);
            printf("NOT FATAL\n");
        }
        MPI_Finalize();
        return 0;
    }
    test_dims();
    test_cart();
    test_cart_sub();
    test_graph();
    test_dist_graph();
    test_errors();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    tu_note("topo done");
    MPI_OK(MPI_Finalize());
    return 0;
}
