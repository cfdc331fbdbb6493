/* tests/mpi/neighbor.c — neighbourhood collectives, blocking and not, on tori, open grids, graphs and
 * distributed graphs: data, untouched PROC_NULL blocks, derived types, overlap with point-to-point. */
#include "testutil.h"
#include "nbhd.h"

#define SENTINEL (-7)
#define CNT 3

static int rank, size;
static int me; /* rank in the communicator under test: what the values carry */

/* Value k of the block that `from` sends through its out-slot `slot`. */
static int val(int from, int slot, int k) {
    return from * 1000 + slot * 10 + k + 1;
}

/* Graph-like neighbourhoods: the k-th occurrence of q in my in-list receives the block of the k-th
 * occurrence of me in q's out-list. outs_of(q, list) returns q's out-list. */
static void match_slots(nbhd *nb, int (*outs_of)(MPI_Comm, int, int *), MPI_Comm c) {
    for (int i = 0; i < nb->nin; i++) {
        int q = nb->in[i], k = 0, list[16];
        for (int j = 0; j < i; j++)
            k += nb->in[j] == q;
        int n = outs_of(c, q, list), slot = -1;
        for (int j = 0; j < n && slot < 0; j++)
            if (list[j] == rank && k-- == 0)
                slot = j;
        CHECK(slot >= 0, "no matching out-edge of %d for in-edge %d", q, i);
        nb->peer_slot[i] = slot;
    }
}

static int graph_outs(MPI_Comm c, int q, int *list) {
    int n;
    MPI_OK(MPI_Graph_neighbors_count(c, q, &n));
    MPI_OK(MPI_Graph_neighbors(c, q, 16, list));
    return n;
}

/* ---- checks of one collective ---- */

static void fill_send(int *sb, const nbhd *nb) {
    for (int j = 0; j < nb->nout; j++)
        for (int k = 0; k < CNT; k++)
            sb[j * CNT + k] = val(me, j, k);
}

static void run_alltoall(MPI_Comm c, const nbhd *nb, const char *what, int nonblocking) {
    int sb[16 * CNT], rb[16 * CNT + 1];
    fill_send(sb, nb);
    for (int i = 0; i < 16 * CNT + 1; i++)
        rb[i] = SENTINEL;
    if (nonblocking) {
        MPI_Request r;
        MPI_OK(MPI_Ineighbor_alltoall(sb, CNT, MPI_INT, rb, CNT, MPI_INT, c, &r));
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
        MPI_OK(MPI_Neighbor_alltoall(sb, CNT, MPI_INT, rb, CNT, MPI_INT, c));
    }
    for (int i = 0; i < nb->nin; i++)
        for (int k = 0; k < CNT; k++) {
            int want = nb->in[i] == MPI_PROC_NULL ? SENTINEL : val(nb->in[i], nb->peer_slot[i], k);
            CHECK(rb[i * CNT + k] == want, "%s alltoall: block %d (from %d) [%d] = %d, expected %d",
                  what, i, nb->in[i], k, rb[i * CNT + k], want);
        }
    CHECK(rb[nb->nin * CNT] == SENTINEL, "%s alltoall wrote past the last block", what);
}

static void run_allgather(MPI_Comm c, const nbhd *nb, const char *what) {
    int sb[CNT], rb[16 * CNT + 1];
    for (int k = 0; k < CNT; k++)
        sb[k] = val(me, 0, k);
    for (int i = 0; i < 16 * CNT + 1; i++)
        rb[i] = SENTINEL;
    MPI_OK(MPI_Neighbor_allgather(sb, CNT, MPI_INT, rb, CNT, MPI_INT, c));
    for (int i = 0; i < nb->nin; i++)
        for (int k = 0; k < CNT; k++) {
            int want = nb->in[i] == MPI_PROC_NULL ? SENTINEL : val(nb->in[i], 0, k);
            CHECK(rb[i * CNT + k] == want, "%s allgather: block %d [%d] = %d, expected %d", what, i,
                  k, rb[i * CNT + k], want);
        }
    CHECK(rb[nb->nin * CNT] == SENTINEL, "%s allgather wrote past the last block", what);
}

/* Allgatherv with blocks in reverse order and one-int gaps; alltoallv with count slot+1 per out
 * slot, so a receive count follows from the sender's slot. */
static void run_v(MPI_Comm c, const nbhd *nb, const char *what, int nonblocking) {
    MPI_Request r;
    int sb[64], rb[128], rc[16], rd[16], sc[16], sd[16];
    for (int k = 0; k < CNT; k++)
        sb[k] = val(me, 0, k);
    for (int i = 0; i < 128; i++)
        rb[i] = SENTINEL;
    for (int i = 0; i < nb->nin; i++) {
        rc[i] = CNT;
        rd[i] = (nb->nin - 1 - i) * (CNT + 1);
    }
    if (nonblocking) {
        MPI_OK(MPI_Ineighbor_allgatherv(sb, CNT, MPI_INT, rb, rc, rd, MPI_INT, c, &r));
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
        MPI_OK(MPI_Neighbor_allgatherv(sb, CNT, MPI_INT, rb, rc, rd, MPI_INT, c));
    }
    for (int i = 0; i < nb->nin; i++)
        for (int k = 0; k <= CNT; k++) {
            int want = k == CNT || nb->in[i] == MPI_PROC_NULL ? SENTINEL : val(nb->in[i], 0, k);
            CHECK(rb[rd[i] + k] == want, "%s allgatherv: block %d [%d] = %d, expected %d", what, i,
                  k, rb[rd[i] + k], want);
        }
    /* alltoallv: out slot j carries j+1 ints at sd[j] = 5j */
    for (int j = 0; j < nb->nout; j++) {
        sc[j] = j + 1;
        sd[j] = 5 * j;
        for (int k = 0; k <= j; k++)
            sb[sd[j] + k] = val(me, j, k);
    }
    for (int i = 0; i < 128; i++)
        rb[i] = SENTINEL;
    for (int i = 0; i < nb->nin; i++) {
        rc[i] = nb->peer_slot[i] + 1;
        rd[i] = 7 * (nb->nin - 1 - i) + 1;
    }
    if (nonblocking) {
        MPI_OK(MPI_Ineighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, c, &r));
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
        MPI_OK(MPI_Neighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, c));
    }
    int written = 0;
    for (int i = 0; i < nb->nin; i++)
        for (int k = 0; k < rc[i]; k++) {
            int want = nb->in[i] == MPI_PROC_NULL ? SENTINEL : val(nb->in[i], nb->peer_slot[i], k);
            CHECK(rb[rd[i] + k] == want, "%s alltoallv: block %d [%d] = %d, expected %d", what, i, k,
                  rb[rd[i] + k], want);
            written += want != SENTINEL;
        }
    int sentinels = 0;
    for (int i = 0; i < 128; i++)
        sentinels += rb[i] == SENTINEL;
    CHECK(sentinels == 128 - written, "%s alltoallv wrote outside its blocks (%d sentinels left)",
          what, sentinels);
}

/* Receive side with a non-contiguous type: each block is every other int of 2*CNT-1 (extent), so
 * the packed path runs; gaps and PROC_NULL blocks must keep their sentinel. */
static void run_strided(MPI_Comm c, const nbhd *nb, const char *what) {
    MPI_Datatype vec;
    MPI_OK(MPI_Type_vector(CNT, 1, 2, MPI_INT, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    int ext = 2 * CNT - 1, sb[16 * CNT], rb[16 * (2 * CNT - 1)];
    fill_send(sb, nb);
    for (int i = 0; i < 16 * ext; i++)
        rb[i] = SENTINEL;
    MPI_OK(MPI_Neighbor_alltoall(sb, CNT, MPI_INT, rb, 1, vec, c));
    for (int i = 0; i < nb->nin; i++)
        for (int k = 0; k < ext; k++) {
            int want = k % 2 || nb->in[i] == MPI_PROC_NULL
                           ? SENTINEL
                           : val(nb->in[i], nb->peer_slot[i], k / 2);
            CHECK(rb[i * ext + k] == want, "%s strided alltoall: block %d [%d] = %d, expected %d",
                  what, i, k, rb[i * ext + k], want);
        }
    MPI_OK(MPI_Type_free(&vec));
}

static void run_all(MPI_Comm c, const nbhd *nb, const char *what) {
    MPI_OK(MPI_Comm_rank(c, &me));
    run_alltoall(c, nb, what, 0);
    run_alltoall(c, nb, what, 1);
    run_allgather(c, nb, what);
    run_v(c, nb, what, 0);
    run_v(c, nb, what, 1);
    run_strided(c, nb, what);
    tu_note("%s", what);
}

/* ---- topologies ---- */

static void test_grids(void) {
    int dims[2] = {0, 0};
    MPI_OK(MPI_Dims_create(size, 2, dims));
    const int periodic[2] = {1, 1}, closed[2] = {0, 0}, mixed[2] = {0, 1};
    const int *per[3] = {periodic, closed, mixed};
    const char *names[3] = {"periodic torus", "non-periodic grid", "half-periodic grid"};
    for (int v = 0; v < 3; v++) {
        MPI_Comm c;
        nbhd nb;
        MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per[v], 0, &c));
        cart_nbhd(c, &nb);
        run_all(c, &nb, names[v]);
        MPI_OK(MPI_Comm_free(&c));
    }
    /* 1-D periodic ring of all processes and a 1-D periodic "ring" of one (both neighbours self) */
    MPI_Comm c;
    nbhd nb;
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, &size, (int[]){1}, 0, &c));
    cart_nbhd(c, &nb);
    run_all(c, &nb, "ring");
    MPI_OK(MPI_Comm_free(&c));
    MPI_OK(MPI_Cart_create(MPI_COMM_SELF, 1, (int[]){1}, (int[]){1}, 0, &c));
    cart_nbhd(c, &nb);
    CHECK(nb.in[0] == 0 && nb.in[1] == 0, "self ring neighbours %d %d", nb.in[0], nb.in[1]);
    run_all(c, &nb, "periodic grid of one");
    MPI_OK(MPI_Comm_free(&c));
    /* zero dimensions: no neighbours, an empty schedule */
    MPI_OK(MPI_Cart_create(MPI_COMM_SELF, 0, NULL, NULL, 0, &c));
    cart_nbhd(c, &nb);
    CHECK(nb.nin == 0, "0-d grid has %d neighbours", nb.nin);
    run_all(c, &nb, "0-d grid");
    MPI_OK(MPI_Comm_free(&c));
}

static void test_graph(void) {
    /* ring with the edge 0-1 doubled */
    int index[16], edges[64], e = 0;
    for (int q = 0; q < size; q++) {
        edges[e++] = (q + size - 1) % size;
        edges[e++] = (q + 1) % size;
        if (q == 0)
            edges[e++] = 1;
        if (q == 1)
            edges[e++] = 0;
        index[q] = e;
    }
    MPI_Comm c;
    MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &c));
    nbhd nb;
    nb.nin = nb.nout = graph_outs(c, rank, nb.in);
    memcpy(nb.out, nb.in, sizeof nb.in);
    match_slots(&nb, graph_outs, c);
    run_all(c, &nb, "graph with a double edge");
    MPI_OK(MPI_Comm_free(&c));
}

/* Dist graph: out(q) = {q+1, q+2, q+2} except the last rank (no out-edges): a doubled edge,
 * non-symmetric, and ranks with fewer in-edges. */
static int dist_outs(MPI_Comm c, int q, int *list) {
    if (q == size - 1)
        return 0;
    list[0] = (q + 1) % size;
    list[1] = list[2] = (q + 2) % size;
    return 3;
}

static void test_dist_graph(void) {
    nbhd nb;
    nb.nout = dist_outs(MPI_COMM_NULL, rank, nb.out);
    nb.nin = 0;
    for (int q = 0; q < size; q++) {
        int l[16], n = dist_outs(MPI_COMM_NULL, q, l);
        for (int j = 0; j < n; j++)
            if (l[j] == rank)
                nb.in[nb.nin++] = q;
    }
    MPI_Comm c;
    MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nb.nin, nb.in, MPI_UNWEIGHTED, nb.nout,
                                          nb.out, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c));
    match_slots(&nb, dist_outs, c);
    run_all(c, &nb, "adjacent dist graph");
    MPI_OK(MPI_Comm_free(&c));
    /* The same graph through Dist_graph_create (each rank gives its own out-edges): the in-list
     * order is the library's, so it is read back. */
    int deg = nb.nout;
    MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &deg, nb.out, MPI_UNWEIGHTED,
                                 MPI_INFO_NULL, 0, &c));
    int w;
    MPI_OK(MPI_Dist_graph_neighbors_count(c, &nb.nin, &nb.nout, &w));
    MPI_OK(MPI_Dist_graph_neighbors(c, 16, nb.in, MPI_UNWEIGHTED, 16, nb.out, MPI_UNWEIGHTED));
    match_slots(&nb, dist_outs, c);
    run_all(c, &nb, "dist graph");
    MPI_OK(MPI_Comm_free(&c));
}

/* ---- non-blocking, overlapped with point-to-point and with each other ---- */

static void test_overlap(void) {
    int dims[2] = {0, 0};
    MPI_OK(MPI_Dims_create(size, 2, dims));
    MPI_Comm c;
    nbhd nb;
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, (int[]){1, 1}, 0, &c));
    cart_nbhd(c, &nb);
    for (int iter = 0; iter < 20; iter++) {
        int sb[4 * CNT], rb[4 * CNT], gb[CNT], gr[4 * CNT];
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < CNT; k++)
                sb[j * CNT + k] = val(rank, j, k) + iter;
        for (int k = 0; k < CNT; k++)
            gb[k] = -val(rank, 0, k) - iter;
        MPI_Request r[6];
        MPI_OK(MPI_Ineighbor_alltoall(sb, CNT, MPI_INT, rb, CNT, MPI_INT, c, &r[0]));
        /* point-to-point on the same communicator and on WORLD while it is in flight */
        int right = (rank + 1) % size, left = (rank + size - 1) % size, m1 = -1, m2 = -1;
        int out1 = rank * 7 + iter, out2 = rank * 11 + iter;
        MPI_OK(MPI_Irecv(&m1, 1, MPI_INT, left, 0, c, &r[1]));
        MPI_OK(MPI_Irecv(&m2, 1, MPI_INT, right, 0, MPI_COMM_WORLD, &r[2]));
        MPI_OK(MPI_Isend(&out1, 1, MPI_INT, right, 0, c, &r[3]));
        MPI_OK(MPI_Isend(&out2, 1, MPI_INT, left, 0, MPI_COMM_WORLD, &r[4]));
        /* a second neighbourhood collective in flight at the same time */
        MPI_OK(MPI_Ineighbor_allgather(gb, CNT, MPI_INT, gr, CNT, MPI_INT, c, &r[5]));
        /* wait in reverse order: completion must not depend on the order of waits */
        for (int i = 5; i >= 0; i--)
            MPI_OK(MPI_Wait(&r[i], MPI_STATUS_IGNORE));
        CHECK(m1 == left * 7 + iter && m2 == right * 11 + iter, "iter %d: p2p got %d %d", iter,
              m1, m2);
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < CNT; k++) {
                int want = val(nb.in[i], nb.peer_slot[i], k) + iter;
                CHECK(rb[i * CNT + k] == want, "iter %d: Ineighbor_alltoall block %d = %d, want %d",
                      iter, i, rb[i * CNT + k], want);
                want = -val(nb.in[i], 0, k) - iter;
                CHECK(gr[i * CNT + k] == want, "iter %d: Ineighbor_allgather block %d = %d, want %d",
                      iter, i, gr[i * CNT + k], want);
            }
    }
    MPI_OK(MPI_Comm_free(&c));
    tu_note("non-blocking neighbour collectives overlapped with point-to-point");
}

/* Same buffers, different counts, alternating: a schedule cached for one call must not serve the
 * other (blocks move with the count). */
static void test_same_buffers(void) {
    int dims[2] = {0, 0};
    MPI_OK(MPI_Dims_create(size, 2, dims));
    MPI_Comm c;
    nbhd nb;
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, (int[]){1, 0}, 0, &c));
    cart_nbhd(c, &nb);
    static int sb[4 * CNT], rb[4 * CNT];
    for (int round = 0; round < 6; round++) {
        int n = round % 2 ? CNT - 1 : CNT;
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < n; k++)
                sb[j * n + k] = val(rank, j, k) + round;
        for (int i = 0; i < 4 * CNT; i++)
            rb[i] = SENTINEL;
        MPI_OK(MPI_Neighbor_alltoall(sb, n, MPI_INT, rb, n, MPI_INT, c));
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < n; k++) {
                int want = nb.in[i] == MPI_PROC_NULL ? SENTINEL
                                                     : val(nb.in[i], nb.peer_slot[i], k) + round;
                CHECK(rb[i * n + k] == want, "round %d (count %d): block %d [%d] = %d, want %d",
                      round, n, i, k, rb[i * n + k], want);
            }
        for (int i = 4 * n; i < 4 * CNT; i++)
            CHECK(rb[i] == SENTINEL, "round %d (count %d): wrote past the blocks", round, n);
    }
    MPI_OK(MPI_Comm_free(&c));
    tu_note("repeated calls on the same buffers with changing counts");
}

static void test_errors(void) {
    int x = 0, y[16];
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK(tu_class(MPI_Neighbor_alltoall(&x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD)) ==
              MPI_ERR_TOPOLOGY,
          "Neighbor_alltoall on a communicator without topology");
    MPI_Request r;
    CHECK(tu_class(MPI_Ineighbor_allgather(&x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD, &r)) ==
              MPI_ERR_TOPOLOGY,
          "Ineighbor_allgather on a communicator without topology");
    MPI_Comm c;
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, &size, (int[]){1}, 0, &c));
    MPI_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    CHECK(tu_class(MPI_Neighbor_alltoall(&x, -1, MPI_INT, y, 1, MPI_INT, c)) == MPI_ERR_COUNT,
          "negative count");
    CHECK(tu_class(MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, y, 1, MPI_INT, c)) ==
              MPI_ERR_BUFFER,
          "MPI_IN_PLACE");
    /* 2 neighbours x 2^30 doubles: more bytes than the schedule's int counts hold (never touched) */
    CHECK(tu_class(MPI_Neighbor_alltoall(&x, 1 << 30, MPI_DOUBLE, y, 1 << 30, MPI_DOUBLE, c)) ==
              MPI_ERR_COUNT,
          "counts beyond the schedule's int byte counts");
    MPI_OK(MPI_Comm_free(&c));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    tu_note("errors");
}

int main(int argc, char **argv) {
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size >= 2 && size <= 16, "neighbor needs 2..16 processes");
    test_grids();
    test_graph();
    test_dist_graph();
    test_overlap();
    test_same_buffers();
    test_errors();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    tu_note("neighbor done");
    MPI_OK(MPI_Finalize());
    return 0;
}
