/* src/mpi/topo.c — process topologies (Cartesian, graph, distributed graph): their constructors and
 * queries, and the MPI-3 neighbourhood collectives, which run as GOAL schedules (coll_ineighbor). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "mpi/coll_view.h"
#include "mpi/mpi_impl.h"

/* Addresses only: MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are compared, never dereferenced. */
int credo_unweighted, credo_weights_empty;

/* A communicator's topology. Every array lives in mem[] (one allocation), so a dup is one memcpy
 * plus rebasing the pointers. Ranks are ranks of the communicator the topology is attached to;
 * reorder is ignored everywhere (a process keeps its rank), which the standard allows. */
struct credo_topo {
    int kind;                     /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    /* Cartesian: row-major rank order, as the standard prescribes */
    int ndims;
    int *dims, *periods, *coords; /* coords: this process' */
    /* graph: the whole graph as given to MPI_Graph_create (every process knows all of it) */
    int nnodes, nedges;
    int *index, *edges;
    /* distributed graph: only this process' adjacency */
    int indegree, outdegree, weighted;
    int *sources, *srcw, *dests, *dstw; /* weights are 0 when unweighted */
    size_t nints;
    int mem[];
};

static struct credo_topo *topo_new(int kind, size_t nints)
{
    struct credo_topo *t = calloc(1, sizeof *t + nints * sizeof(int));
    if (t != NULL) {
        t->kind = kind;
        t->nints = nints;
    }
    return t;
}

/* Hands out the next n ints of t->mem. */
static int *topo_take(struct credo_topo *t, size_t *used, size_t n)
{
    int *p = t->mem + *used;
    *used += n;
    return p;
}

struct credo_topo *mpi_topo_dup(const struct credo_topo *t)
{
    size_t bytes = sizeof *t + t->nints * sizeof(int);
    struct credo_topo *n = malloc(bytes);
    if (n == NULL)
        return NULL;
    memcpy(n, t, bytes);
#define REBASE(f) n->f = t->f ? n->mem + (t->f - t->mem) : NULL
    REBASE(dims);
    REBASE(periods);
    REBASE(coords);
    REBASE(index);
    REBASE(edges);
    REBASE(sources);
    REBASE(srcw);
    REBASE(dests);
    REBASE(dstw);
#undef REBASE
    return n;
}

void mpi_topo_free(struct credo_topo *t)
{
    free(t);
}

/* ---- checks ---- */

/* The communicator and its topology kind (0: any topology). */
static int check_topo(const char *fn, MPI_Comm comm, int kind)
{
    int rc = mpi_check_comm(fn, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (comm->topo == NULL || (kind && comm->topo->kind != kind))
        return mpi_error(comm, MPI_ERR_TOPOLOGY, fn, "communicator has %s topology",
                         comm->topo == NULL                    ? "no"
                         : comm->topo->kind == MPI_CART        ? "a Cartesian"
                         : comm->topo->kind == MPI_GRAPH       ? "a graph"
                                                               : "a distributed graph");
    return MPI_SUCCESS;
}

#define CK(expr)                                                                                   \
    do {                                                                                           \
        if ((rc = (expr)) != MPI_SUCCESS)                                                          \
            return rc;                                                                             \
    } while (0)

#define ARG_NONNULL(comm, fn, p)                                                                   \
    do {                                                                                           \
        if ((p) == NULL)                                                                           \
            return mpi_error(comm, MPI_ERR_ARG, fn, "%s is NULL", #p);                             \
    } while (0)

/* dims[0..ndims) all positive, product (returned in *nnodes) at most `limit`. */
static int check_dims(const char *fn, MPI_Comm comm, int ndims, const int *dims, const int *periods,
                      int limit, int *nnodes)
{
    if (ndims < 0)
        return mpi_error(comm, MPI_ERR_DIMS, fn, "negative ndims %d", ndims);
    if (ndims > 0 && (dims == NULL || periods == NULL))
        return mpi_error(comm, MPI_ERR_ARG, fn, "%s is NULL", dims == NULL ? "dims" : "periods");
    long long n = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return mpi_error(comm, MPI_ERR_DIMS, fn, "dims[%d] = %d is not positive", i, dims[i]);
        n *= dims[i];
        if (n > limit)
            return mpi_error(comm, MPI_ERR_DIMS, fn,
                             "the grid has more than %d processes (communicator size)", limit);
    }
    *nnodes = (int)n;
    return MPI_SUCCESS;
}

/* ---- Cartesian arithmetic ---- */

static void cart_coords_of(const struct credo_topo *t, int rank, int *coords)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
}

/* The process disp steps from this one along dimension d: wraps on periodic dimensions, else
 * MPI_PROC_NULL beyond the edge. Works on the rank directly (no coordinate array). */
static int cart_neighbor(const struct credo_topo *t, int rank, int d, long long disp)
{
    int stride = 1;
    for (int i = t->ndims - 1; i > d; i--)
        stride *= t->dims[i];
    int n = t->dims[d], c = t->coords[d];
    long long to = c + disp;
    if (t->periods[d])
        to = ((to % n) + n) % n;
    else if (to < 0 || to >= n)
        return MPI_PROC_NULL;
    return rank + ((int)to - c) * stride;
}

/* ---- MPI_Dims_create ---- */

/* Exhaustive search of the factorisations of m into k factors in non-increasing order. "As close
 * to each other as possible" is taken as: the smallest spread (largest minus smallest factor),
 * ties broken by the smaller sum of squares. Each position tries its divisors in ascending order
 * from the smallest that can still cover the rest (d^left >= rest), so balanced answers come first,
 * and stops once the spread is bound to exceed the best: the remaining factors multiply to rest / d,
 * so their minimum is at most the (left-1)-th root of it, and that bound grows with d. */
typedef struct dims_search {
    const int *div; /* divisors of m, ascending */
    int ndiv, k;
    int *cur, *best;
    long long best_spread, best_sq;
} dims_search;

static int pow_at_least(int d, int e, int m)
{
    long long p = 1;
    for (int i = 0; i < e; i++) {
        p *= d;
        if (p >= m)
            return 1;
    }
    return p >= m;
}

/* The largest r with r^e <= x (x >= 1, e >= 1): integer arithmetic, no libm. */
static int iroot(int x, int e)
{
    int lo = 1, hi = x; /* lo^e <= x throughout */
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        long long p = 1;
        for (int i = 0; i < e && p <= x; i++)
            p *= mid; /* p <= x < 2^31 before, mid < 2^31: no overflow */
        if (p <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static void dims_rec(dims_search *s, int pos, int rest, int maxv)
{
    int left = s->k - pos;
    if (left == 1) {
        if (rest > maxv)
            return;
        s->cur[pos] = rest;
        long long spread = s->cur[0] - rest, sq = 0;
        for (int i = 0; i < s->k; i++)
            sq += (long long)s->cur[i] * s->cur[i];
        if (s->best_spread < 0 || spread < s->best_spread ||
            (spread == s->best_spread && sq < s->best_sq)) {
            s->best_spread = spread;
            s->best_sq = sq;
            memcpy(s->best, s->cur, (size_t)s->k * sizeof(int));
        }
        return;
    }
    for (int i = 0; i < s->ndiv; i++) {
        int d = s->div[i];
        if (d > maxv || d > rest)
            break;
        if (rest % d || !pow_at_least(d, left, rest))
            continue;
        int top = pos ? s->cur[0] : d;
        if (s->best_spread >= 0 && top - iroot(rest / d, left - 1) > s->best_spread)
            break;
        s->cur[pos] = d;
        dims_rec(s, pos + 1, rest / d, d);
    }
}

int MPI_Dims_create(int nnodes, int ndims, int dims[])
{
    MPI_ENTER();
    static const char fn[] = "MPI_Dims_create";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (ndims < 0)
        return mpi_error(NULL, MPI_ERR_DIMS, fn, "negative ndims %d", ndims);
    if (nnodes <= 0)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "nnodes %d is not positive", nnodes);
    if (ndims > 0 && dims == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "dims is NULL");
    long long fixed = 1;
    int k = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return mpi_error(NULL, MPI_ERR_DIMS, fn, "dims[%d] = %d is negative", i, dims[i]);
        if (dims[i] == 0)
            k++;
        else if ((fixed *= dims[i]) > nnodes)
            fixed = (long long)nnodes + 1; /* cannot divide; keeps the product from overflowing */
    }
    if (nnodes % fixed != 0 || (k == 0 && fixed != nnodes))
        return mpi_error(NULL, MPI_ERR_DIMS, fn,
                         "%d processes cannot fill a grid with the given fixed dimensions", nnodes);
    if (k == 0)
        return MPI_SUCCESS;
    int m = (int)(nnodes / fixed), nsmall = 0, ndiv = 0;
    for (int d = 1; (long long)d * d <= m; d++)
        nsmall += m % d == 0;
    int *div = malloc((size_t)nsmall * 2 * sizeof(int));
    int *cur = malloc((size_t)k * 2 * sizeof(int));
    if (div == NULL || cur == NULL) {
        free(div);
        free(cur);
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    /* Divisors ascending: the small ones d, then the large ones m / d (d descending). */
    for (int d = 1; (long long)d * d <= m; d++)
        if (m % d == 0)
            div[ndiv++] = d;
    for (int i = nsmall - 1; i >= 0; i--)
        if (m / div[i] != div[ndiv - 1])
            div[ndiv++] = m / div[i];
    dims_search s = {.div = div, .ndiv = ndiv, .k = k, .cur = cur, .best = cur + k,
                     .best_spread = -1};
    dims_rec(&s, 0, m, m);
    for (int i = 0, j = 0; i < ndims; i++)
        if (dims[i] == 0)
            dims[i] = s.best[j++];
    free(div);
    free(cur);
    return MPI_SUCCESS;
}

/* ---- constructors ---- */

/* The members of comm whose rank is below n, in the same order, as a new communicator (the others
 * get MPI_COMM_NULL). Comm_split agrees on the context id; the topology is attached afterwards. */
static int comm_first(MPI_Comm comm, int n, MPI_Comm *out)
{
    return PMPI_Comm_split(comm, comm->rank < n ? 0 : MPI_UNDEFINED, comm->rank, out);
}

/* Attaches t to c (a fresh communicator of this file), or frees both when t is NULL. */
static int attach(const char *fn, MPI_Comm parent, MPI_Comm *c, struct credo_topo *t)
{
    if (t == NULL) {
        PMPI_Comm_free(c);
        return mpi_error(parent, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    (*c)->topo = t;
    return MPI_SUCCESS;
}

static struct credo_topo *cart_topo(int ndims, const int *dims, const int *periods, int rank)
{
    size_t used = 0;
    struct credo_topo *t = topo_new(MPI_CART, 3 * (size_t)ndims);
    if (t == NULL)
        return NULL;
    t->ndims = ndims;
    t->dims = topo_take(t, &used, (size_t)ndims);
    t->periods = topo_take(t, &used, (size_t)ndims);
    t->coords = topo_take(t, &used, (size_t)ndims);
    for (int i = 0; i < ndims; i++) {
        t->dims[i] = dims[i];
        t->periods[i] = periods[i] != 0;
    }
    cart_coords_of(t, rank, t->coords);
    return t;
}

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                    int reorder, MPI_Comm *comm_cart)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Cart_create";
    int rc, nnodes;
    CK(mpi_check_comm(fn, comm_old));
    INTRA_CHECK(fn, comm_old);
    ARG_NONNULL(comm_old, fn, comm_cart);
    CK(check_dims(fn, comm_old, ndims, dims, periods, comm_old->size, &nnodes));
    MPI_Comm c;
    CK(comm_first(comm_old, nnodes, &c));
    *comm_cart = c;
    if (c == MPI_COMM_NULL)
        return MPI_SUCCESS;
    rc = attach(fn, comm_old, &c, cart_topo(ndims, dims, periods, c->rank));
    *comm_cart = c;
    return rc;
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Cart_sub";
    int rc;
    CK(check_topo(fn, comm, MPI_CART));
    ARG_NONNULL(comm, fn, newcomm);
    const struct credo_topo *t = comm->topo;
    if (t->ndims > 0)
        ARG_NONNULL(comm, fn, remain_dims);
    /* Processes that agree on the dropped coordinates form one sub-grid (color: those coordinates
     * in row-major order). Key = rank keeps the sub-grid row-major in the kept coordinates, since
     * the parent's rank order is row-major too. */
    int color = 0, k = 0;
    int *dims = malloc(((size_t)(unsigned)t->ndims * 2 + 1) * sizeof(int));
    if (dims == NULL)
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    int *periods = dims + t->ndims;
    for (int i = 0; i < t->ndims; i++) {
        if (remain_dims[i]) {
            dims[k] = t->dims[i];
            periods[k++] = t->periods[i];
        } else {
            color = color * t->dims[i] + t->coords[i];
        }
    }
    MPI_Comm c;
    rc = PMPI_Comm_split(comm, color, comm->rank, &c);
    if (rc == MPI_SUCCESS) {
        rc = attach(fn, comm, &c, cart_topo(k, dims, periods, c->rank));
        *newcomm = c;
    }
    free(dims);
    return rc;
}

int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                     int reorder, MPI_Comm *comm_graph)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Graph_create";
    int rc;
    CK(mpi_check_comm(fn, comm_old));
    INTRA_CHECK(fn, comm_old);
    ARG_NONNULL(comm_old, fn, comm_graph);
    if (nnodes < 0 || nnodes > comm_old->size)
        return mpi_error(comm_old, MPI_ERR_ARG, fn, "nnodes %d outside 0..%d (communicator size)",
                         nnodes, comm_old->size);
    if (nnodes > 0)
        ARG_NONNULL(comm_old, fn, index);
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i ? index[i - 1] : 0))
            return mpi_error(comm_old, MPI_ERR_ARG, fn, "index[%d] = %d is below index[%d]", i,
                             index[i], i - 1);
    int nedges = nnodes ? index[nnodes - 1] : 0;
    if (nedges > 0)
        ARG_NONNULL(comm_old, fn, edges);
    for (int i = 0; i < nedges; i++)
        if (edges[i] < 0 || edges[i] >= nnodes)
            return mpi_error(comm_old, MPI_ERR_RANK, fn, "edges[%d] = %d outside 0..%d", i,
                             edges[i], nnodes - 1);
    MPI_Comm c;
    CK(comm_first(comm_old, nnodes, &c));
    *comm_graph = c;
    if (c == MPI_COMM_NULL)
        return MPI_SUCCESS;
    size_t used = 0;
    struct credo_topo *t = topo_new(MPI_GRAPH, (size_t)nnodes + (size_t)nedges);
    if (t != NULL) {
        t->nnodes = nnodes;
        t->nedges = nedges;
        t->index = topo_take(t, &used, (size_t)nnodes);
        t->edges = topo_take(t, &used, (size_t)nedges);
        memcpy(t->index, index, (size_t)nnodes * sizeof(int));
        if (nedges)
            memcpy(t->edges, edges, (size_t)nedges * sizeof(int));
    }
    rc = attach(fn, comm_old, &c, t);
    *comm_graph = c;
    return rc;
}

/* A list of n ranks of comm (no PROC_NULL) and its weights: MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY
 * (n == 0 only) or n non-negative weights. */
static int check_edges(const char *fn, MPI_Comm comm, int n, const int *ranks, const int *w,
                       const char *what)
{
    if (n < 0)
        return mpi_error(comm, MPI_ERR_ARG, fn, "negative %s count %d", what, n);
    if (n == 0)
        return MPI_SUCCESS;
    if (ranks == NULL)
        return mpi_error(comm, MPI_ERR_ARG, fn, "%s array is NULL", what);
    for (int i = 0; i < n; i++)
        if (ranks[i] < 0 || ranks[i] >= comm->size)
            return mpi_error(comm, MPI_ERR_RANK, fn, "%s[%d] = %d outside 0..%d", what, i,
                             ranks[i], comm->size - 1);
    if (w == MPI_UNWEIGHTED)
        return MPI_SUCCESS;
    if (w == NULL || w == MPI_WEIGHTS_EMPTY)
        return mpi_error(comm, MPI_ERR_ARG, fn, "%s weights missing for %d edges", what, n);
    for (int i = 0; i < n; i++)
        if (w[i] < 0)
            return mpi_error(comm, MPI_ERR_ARG, fn, "negative %s weight %d", what, w[i]);
    return MPI_SUCCESS;
}

static struct credo_topo *dist_topo(int indeg, int outdeg, int weighted)
{
    size_t used = 0;
    struct credo_topo *t = topo_new(MPI_DIST_GRAPH, 2 * ((size_t)indeg + (size_t)outdeg));
    if (t == NULL)
        return NULL;
    t->indegree = indeg;
    t->outdegree = outdeg;
    t->weighted = weighted;
    t->sources = topo_take(t, &used, (size_t)indeg);
    t->srcw = topo_take(t, &used, (size_t)indeg);
    t->dests = topo_take(t, &used, (size_t)outdeg);
    t->dstw = topo_take(t, &used, (size_t)outdeg);
    return t;
}

static int is_weighted(const int *w)
{
    return w != MPI_UNWEIGHTED;
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[], const int destweights[],
                                   MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Dist_graph_create_adjacent";
    int rc;
    CK(mpi_check_comm(fn, comm_old));
    INTRA_CHECK(fn, comm_old);
    ARG_NONNULL(comm_old, fn, comm_dist_graph);
    CK(check_edges(fn, comm_old, indegree, sources, sourceweights, "sources"));
    CK(check_edges(fn, comm_old, outdegree, destinations, destweights, "destinations"));
    /* Weighted unless MPI_UNWEIGHTED was given (the standard wants it on both lists or neither). */
    int weighted = is_weighted(sourceweights) && is_weighted(destweights);
    struct credo_topo *t = dist_topo(indegree, outdegree, weighted);
    if (t != NULL) {
        for (int i = 0; i < indegree; i++) {
            t->sources[i] = sources[i];
            t->srcw[i] = weighted ? sourceweights[i] : 0;
        }
        for (int i = 0; i < outdegree; i++) {
            t->dests[i] = destinations[i];
            t->dstw[i] = weighted ? destweights[i] : 0;
        }
    }
    MPI_Comm c;
    rc = comm_first(comm_old, comm_old->size, &c);
    if (rc != MPI_SUCCESS) {
        mpi_topo_free(t);
        return rc;
    }
    rc = attach(fn, comm_old, &c, t);
    *comm_dist_graph = c;
    return rc;
}

/* Records of the edge exchange of MPI_Dist_graph_create: (kind, peer, weight). */
enum { EDGE_OUT = 0, EDGE_IN = 1, EDGE_INTS = 3 };

int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info,
                          int reorder, MPI_Comm *comm_dist_graph)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Dist_graph_create";
    int rc;
    CK(mpi_check_comm(fn, comm_old));
    INTRA_CHECK(fn, comm_old);
    ARG_NONNULL(comm_old, fn, comm_dist_graph);
    if (n < 0)
        return mpi_error(comm_old, MPI_ERR_ARG, fn, "negative n %d", n);
    if (n > 0 && (degrees == NULL || sources == NULL))
        return mpi_error(comm_old, MPI_ERR_ARG, fn, "%s is NULL",
                         sources == NULL ? "sources" : "degrees");
    long long nedges = 0;
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0)
            return mpi_error(comm_old, MPI_ERR_ARG, fn, "negative degrees[%d] = %d", i,
                             degrees[i]);
        nedges += degrees[i];
    }
    /* Each edge makes two records (one for each end) and every offset below is an int, so the
     * records of all edges, 2 * EDGE_INTS ints each, must fit one. */
    if (nedges > INT_MAX / (2 * EDGE_INTS))
        return mpi_error(comm_old, MPI_ERR_ARG, fn, "too many edges");
    CK(check_edges(fn, comm_old, n, sources, MPI_UNWEIGHTED, "sources"));
    CK(check_edges(fn, comm_old, (int)nedges, destinations, weights, "destinations"));
    int weighted = is_weighted(weights);

    /* Every edge s -> d (w) tells s about an out-edge and d about an in-edge: an alltoall of the
     * record counts, then an alltoallv of the records, on comm_old's collective context. Records
     * arrive in the order (specifying rank, its input order), for the in- and the out-lists alike,
     * so the k-th edge a -> b in a's out-list and in b's in-list is the same edge: the occurrence
     * tags of the neighbourhood collectives rely on that. */
    int p = comm_old->size;
    int *cnt = calloc((size_t)p * 4, sizeof(int));
    int *sendrec = malloc(((size_t)nedges * 2 * EDGE_INTS + 1) * sizeof(int));
    int *recvrec = NULL;
    if (cnt == NULL || sendrec == NULL) {
        free(cnt);
        free(sendrec);
        return mpi_error(comm_old, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    int *sdisp = cnt + p, *rcnt = cnt + 2 * p, *rdisp = cnt + 3 * p;
    for (int i = 0, e = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, e++) {
            cnt[sources[i]] += EDGE_INTS;
            cnt[destinations[e]] += EDGE_INTS;
        }
    for (int r = 1; r < p; r++)
        sdisp[r] = sdisp[r - 1] + cnt[r - 1];
    int *fill = malloc((size_t)p * sizeof(int));
    if (fill == NULL) {
        free(cnt);
        free(sendrec);
        return mpi_error(comm_old, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    memcpy(fill, sdisp, (size_t)p * sizeof(int));
    for (int i = 0, e = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, e++) {
            int s = sources[i], d = destinations[e], w = weighted ? weights[e] : 0;
            int *o = sendrec + fill[s];
            o[0] = EDGE_OUT, o[1] = d, o[2] = w;
            fill[s] += EDGE_INTS;
            int *in = sendrec + fill[d];
            in[0] = EDGE_IN, in[1] = s, in[2] = w;
            fill[d] += EDGE_INTS;
        }
    free(fill);
    p2p_req *r;
    int grc = coll_ialltoall(cnt, rcnt, 1, sizeof(int), &comm_old->coll, &r);
    if (grc == GOAL_SUCCESS)
        grc = coll_wait(r);
    long long total = 0;
    if (grc == GOAL_SUCCESS) {
        for (int q = 0; q < p; q++) {
            rdisp[q] = (int)total;
            total += rcnt[q];
        }
        recvrec = total <= INT_MAX ? malloc(((size_t)total + 1) * sizeof(int)) : NULL;
        if (recvrec == NULL)
            grc = GOAL_ERR_NOMEM;
    }
    if (grc == GOAL_SUCCESS) {
        grc = coll_ialltoallv(sendrec, cnt, sdisp, recvrec, rcnt, rdisp, sizeof(int),
                              &comm_old->coll, &r);
        if (grc == GOAL_SUCCESS)
            grc = coll_wait(r);
    }
    free(sendrec);
    free(cnt);
    if (grc != GOAL_SUCCESS) {
        free(recvrec);
        return mpi_error(comm_old, grc == GOAL_ERR_NOMEM ? MPI_ERR_NO_MEM : MPI_ERR_INTERN, fn,
                         "exchange of the edges failed");
    }
    int indeg = 0, outdeg = 0;
    for (long long i = 0; i < total; i += EDGE_INTS) {
        if (recvrec[i] == EDGE_IN)
            indeg++;
        else
            outdeg++;
    }
    struct credo_topo *t = dist_topo(indeg, outdeg, weighted);
    if (t != NULL) {
        indeg = outdeg = 0;
        for (long long i = 0; i < total; i += EDGE_INTS) {
            if (recvrec[i] == EDGE_IN) {
                t->sources[indeg] = recvrec[i + 1];
                t->srcw[indeg++] = recvrec[i + 2];
            } else {
                t->dests[outdeg] = recvrec[i + 1];
                t->dstw[outdeg++] = recvrec[i + 2];
            }
        }
    }
    free(recvrec);
    MPI_Comm c;
    rc = comm_first(comm_old, comm_old->size, &c);
    if (rc != MPI_SUCCESS) {
        mpi_topo_free(t);
        return rc;
    }
    rc = attach(fn, comm_old, &c, t);
    *comm_dist_graph = c;
    return rc;
}

/* ---- queries ---- */

int MPI_Topo_test(MPI_Comm comm, int *status)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Topo_test";
    int rc;
    CK(mpi_check_comm(fn, comm));
    ARG_NONNULL(comm, fn, status);
    *status = comm->topo ? comm->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int MPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Cartdim_get";
    int rc;
    CK(check_topo(fn, comm, MPI_CART));
    ARG_NONNULL(comm, fn, ndims);
    *ndims = comm->topo->ndims;
    return MPI_SUCCESS;
}

int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    MPI_ENTER();
    static const char fn[] = "MPI_Cart_get";
    int rc;
    CK(check_topo(fn, comm, MPI_CART));
    const struct credo_topo *t = comm->topo;
    if (maxdims < 0)
        return mpi_error(comm, MPI_ERR_ARG, fn, "negative maxdims %d", maxdims);
    int n = maxdims < t->ndims ? maxdims : t->ndims;
    if (n > 0 && (dims == NULL || periods == NULL || coords == NULL))
        return mpi_error(comm, MPI_ERR_ARG, fn, "NULL array");
    for (int i = 0; i < n; i++) {
        dims[i] = t->dims[i];
        periods[i] = t->periods[i];
        coords[i] = t->coords[i];
    }
    return MPI_SUCCESS;
}

int MPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Cart_rank";
    int rc;
    CK(check_topo(fn, comm, MPI_CART));
    ARG_NONNULL(comm, fn, rank);
    const struct credo_topo *t = comm->topo;
    if (t->ndims > 0)
        ARG_NONNULL(comm, fn, coords);
    int r = 0;
    for (int i = 0; i < t->ndims; i++) {
        int c = coords[i], n = t->dims[i];
        if (c < 0 || c >= n) {
            if (!t->periods[i])
                return mpi_error(comm, MPI_ERR_ARG, fn,
                                 "coords[%d] = %d outside 0..%d of a non-periodic dimension", i,
                                 c, n - 1);
            c = ((c % n) + n) % n;
        }
        r = r * n + c;
    }
    *rank = r;
    return MPI_SUCCESS;
}

int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    MPI_ENTER();
    static const char fn[] = "MPI_Cart_coords";
    int rc;
    CK(check_topo(fn, comm, MPI_CART));
    const struct credo_topo *t = comm->topo;
    if (rank < 0 || rank >= comm->size)
        return mpi_error(comm, MPI_ERR_RANK, fn, "invalid rank %d (communicator size %d)", rank,
                         comm->size);
    if (maxdims < t->ndims)
        return mpi_error(comm, MPI_ERR_ARG, fn, "maxdims %d below the %d dimensions", maxdims,
                         t->ndims);
    if (t->ndims > 0)
        ARG_NONNULL(comm, fn, coords);
    cart_coords_of(t, rank, coords);
    return MPI_SUCCESS;
}

int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Cart_shift";
    int rc;
    CK(check_topo(fn, comm, MPI_CART));
    const struct credo_topo *t = comm->topo;
    if (rank_source == NULL || rank_dest == NULL)
        return mpi_error(comm, MPI_ERR_ARG, fn, "NULL rank pointer");
    if (direction < 0 || direction >= t->ndims)
        return mpi_error(comm, MPI_ERR_ARG, fn, "direction %d outside 0..%d", direction,
                         t->ndims - 1);
    *rank_dest = cart_neighbor(t, comm->rank, direction, disp);
    *rank_source = cart_neighbor(t, comm->rank, direction, -(long long)disp);
    return MPI_SUCCESS;
}

int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Cart_map";
    int rc, nnodes;
    CK(mpi_check_comm(fn, comm));
    ARG_NONNULL(comm, fn, newrank);
    CK(check_dims(fn, comm, ndims, dims, periods, comm->size, &nnodes));
    *newrank = comm->rank < nnodes ? comm->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Graph_map";
    int rc;
    CK(mpi_check_comm(fn, comm));
    ARG_NONNULL(comm, fn, newrank);
    if (nnodes < 1 || nnodes > comm->size)
        return mpi_error(comm, MPI_ERR_ARG, fn, "nnodes %d outside 1..%d (communicator size)",
                         nnodes, comm->size);
    *newrank = comm->rank < nnodes ? comm->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int MPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Graphdims_get";
    int rc;
    CK(check_topo(fn, comm, MPI_GRAPH));
    if (nnodes == NULL || nedges == NULL)
        return mpi_error(comm, MPI_ERR_ARG, fn, "NULL argument");
    *nnodes = comm->topo->nnodes;
    *nedges = comm->topo->nedges;
    return MPI_SUCCESS;
}

int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    MPI_ENTER();
    static const char fn[] = "MPI_Graph_get";
    int rc;
    CK(check_topo(fn, comm, MPI_GRAPH));
    const struct credo_topo *t = comm->topo;
    if (maxindex < 0 || maxedges < 0)
        return mpi_error(comm, MPI_ERR_ARG, fn, "negative maxindex or maxedges");
    int ni = maxindex < t->nnodes ? maxindex : t->nnodes;
    int ne = maxedges < t->nedges ? maxedges : t->nedges;
    if ((ni > 0 && index == NULL) || (ne > 0 && edges == NULL))
        return mpi_error(comm, MPI_ERR_ARG, fn, "NULL array");
    if (ni > 0)
        memcpy(index, t->index, (size_t)ni * sizeof(int));
    if (ne > 0)
        memcpy(edges, t->edges, (size_t)ne * sizeof(int));
    return MPI_SUCCESS;
}

/* Neighbours of `rank` in a graph topology: edges[first .. first + *count). */
static int graph_range(const struct credo_topo *t, int rank, int *count)
{
    int first = rank ? t->index[rank - 1] : 0;
    *count = t->index[rank] - first;
    return first;
}

int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Graph_neighbors_count";
    int rc;
    CK(check_topo(fn, comm, MPI_GRAPH));
    ARG_NONNULL(comm, fn, nneighbors);
    if (rank < 0 || rank >= comm->topo->nnodes)
        return mpi_error(comm, MPI_ERR_RANK, fn, "invalid rank %d (graph of %d nodes)", rank,
                         comm->topo->nnodes);
    graph_range(comm->topo, rank, nneighbors);
    return MPI_SUCCESS;
}

int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    MPI_ENTER();
    static const char fn[] = "MPI_Graph_neighbors";
    int rc;
    CK(check_topo(fn, comm, MPI_GRAPH));
    const struct credo_topo *t = comm->topo;
    if (rank < 0 || rank >= t->nnodes)
        return mpi_error(comm, MPI_ERR_RANK, fn, "invalid rank %d (graph of %d nodes)", rank,
                         t->nnodes);
    if (maxneighbors < 0)
        return mpi_error(comm, MPI_ERR_ARG, fn, "negative maxneighbors %d", maxneighbors);
    int n, first = graph_range(t, rank, &n);
    if (n > maxneighbors)
        n = maxneighbors;
    if (n > 0) {
        ARG_NONNULL(comm, fn, neighbors);
        memcpy(neighbors, t->edges + first, (size_t)n * sizeof(int));
    }
    return MPI_SUCCESS;
}

int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Dist_graph_neighbors_count";
    int rc;
    CK(check_topo(fn, comm, MPI_DIST_GRAPH));
    if (indegree == NULL || outdegree == NULL || weighted == NULL)
        return mpi_error(comm, MPI_ERR_ARG, fn, "NULL argument");
    *indegree = comm->topo->indegree;
    *outdegree = comm->topo->outdegree;
    *weighted = comm->topo->weighted;
    return MPI_SUCCESS;
}

int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                             int maxoutdegree, int destinations[], int destweights[])
{
    MPI_ENTER();
    static const char fn[] = "MPI_Dist_graph_neighbors";
    int rc;
    CK(check_topo(fn, comm, MPI_DIST_GRAPH));
    const struct credo_topo *t = comm->topo;
    if (maxindegree < 0 || maxoutdegree < 0)
        return mpi_error(comm, MPI_ERR_ARG, fn, "negative maxindegree or maxoutdegree");
    int ni = maxindegree < t->indegree ? maxindegree : t->indegree;
    int no = maxoutdegree < t->outdegree ? maxoutdegree : t->outdegree;
    if ((ni > 0 && sources == NULL) || (no > 0 && destinations == NULL))
        return mpi_error(comm, MPI_ERR_ARG, fn, "NULL array");
    /* Weights only for a weighted graph and a real array (MPI_UNWEIGHTED: the caller wants none). */
    int want_sw = t->weighted && sourceweights != NULL && sourceweights != MPI_UNWEIGHTED &&
                  sourceweights != MPI_WEIGHTS_EMPTY;
    int want_dw = t->weighted && destweights != NULL && destweights != MPI_UNWEIGHTED &&
                  destweights != MPI_WEIGHTS_EMPTY;
    for (int i = 0; i < ni; i++) {
        sources[i] = t->sources[i];
        if (want_sw)
            sourceweights[i] = t->srcw[i];
    }
    for (int i = 0; i < no; i++) {
        destinations[i] = t->dests[i];
        if (want_dw)
            destweights[i] = t->dstw[i];
    }
    return MPI_SUCCESS;
}

/* ---- neighbourhood collectives ---- */

/* The neighbourhood of this process, in the standard's order: in[] the processes it receives from
 * (block i of the receive buffer), out[] those it sends to (block i of the send buffer), PROC_NULL
 * where a Cartesian edge has no neighbour. Tags make every send match exactly one receive:
 * - Cartesian: neighbour 2d is the -1 neighbour along dimension d, 2d+1 the +1 one. The message to
 *   out[i] carries tag i, the one from in[i] tag i^1 (my -1 neighbour sent it towards its +1),
 *   which stays right when both neighbours are the same process (periodic dimension of 1 or 2).
 * - graph and distributed graph: the k-th occurrence of peer q in my out-list pairs with the k-th
 *   occurrence of me in q's in-list, so the tag is k (multi-edges keep their order).
 * One allocation: in, intag, out, outtag. */
typedef struct nbhd {
    int nin, nout;
    int *in, *intag, *out, *outtag;
} nbhd;

/* tags[i] = how often peers[i] occurred before i; seen (all zero) is left all zero. */
static void occurrence_tags(const int *peers, int n, int *tags, int *seen)
{
    for (int i = 0; i < n; i++)
        tags[i] = seen[peers[i]]++;
    for (int i = 0; i < n; i++)
        seen[peers[i]] = 0;
}

static int nbhd_get(MPI_Comm comm, nbhd *nb)
{
    const struct credo_topo *t = comm->topo;
    int nin, nout;
    const int *in = NULL, *out = NULL;
    if (t->kind == MPI_CART) {
        nin = nout = 2 * t->ndims;
    } else if (t->kind == MPI_GRAPH) {
        int first = graph_range(t, comm->rank, &nin);
        nout = nin;
        in = out = t->edges + first;
    } else {
        nin = t->indegree;
        nout = t->outdegree;
        in = t->sources;
        out = t->dests;
    }
    int *m = malloc(((size_t)nin + (size_t)nout) * 2 * sizeof(int) + 1);
    if (m == NULL)
        return MPI_ERR_NO_MEM;
    *nb = (nbhd){nin, nout, m, m + nin, m + 2 * nin, m + 2 * nin + nout};
    if (t->kind == MPI_CART) {
        for (int d = 0; d < t->ndims; d++)
            for (int s = 0; s < 2; s++) {
                int i = 2 * d + s;
                nb->in[i] = nb->out[i] = cart_neighbor(t, comm->rank, d, s ? 1 : -1);
                nb->outtag[i] = i;
                nb->intag[i] = i ^ 1;
            }
        return MPI_SUCCESS;
    }
    memcpy(nb->in, in, (size_t)nin * sizeof(int));
    memcpy(nb->out, out, (size_t)nout * sizeof(int));
    int *seen = calloc((size_t)comm->size, sizeof(int));
    if (seen == NULL) {
        free(m);
        return MPI_ERR_NO_MEM;
    }
    occurrence_tags(nb->in, nin, nb->intag, seen);
    occurrence_tags(nb->out, nout, nb->outtag, seen);
    free(seen);
    return MPI_SUCCESS;
}

enum { NB_ALLGATHER, NB_ALLGATHERV, NB_ALLTOALL, NB_ALLTOALLV, NB_ALLTOALLW };

/* Arguments of one neighbourhood collective; the unused ones are 0/NULL. */
typedef struct nb_args {
    int kind;
    const void *sb;
    int scount;                   /* allgather(v), alltoall */
    const int *scounts, *sdispls; /* alltoallv (scounts: alltoallw too) */
    MPI_Datatype st;
    void *rb;
    int rcount;                   /* allgather, alltoall */
    const int *rcounts, *rdispls; /* allgatherv, alltoallv (rcounts: alltoallw too) */
    MPI_Datatype rt;
    const MPI_Aint *sdispls_w, *rdispls_w; /* alltoallw: byte displacements */
    const MPI_Datatype *sts, *rts;         /* alltoallw: a type per neighbour */
} nb_args;

static int check_type(const char *fn, MPI_Comm comm, MPI_Datatype dt)
{
    return mpi_check_buf(comm, fn, NULL, 0, dt);
}

static int check_vec(const char *fn, MPI_Comm comm, int n, const int *cnt, const int *disp,
                     const char *what)
{
    if (n > 0 && (cnt == NULL || disp == NULL))
        return mpi_error(comm, MPI_ERR_ARG, fn, "%s counts or displacements are NULL", what);
    for (int i = 0; i < n; i++)
        if (cnt[i] < 0)
            return mpi_error(comm, MPI_ERR_COUNT, fn, "negative %s count %d for neighbour %d", what,
                             cnt[i], i);
    return MPI_SUCCESS;
}

/* A buffer of count elements of dt that some message uses: not NULL where it holds bytes. */
static int check_nb_buf(const char *fn, MPI_Comm comm, const void *buf, int count, MPI_Datatype dt,
                        int used)
{
    if (count < 0)
        return mpi_error(comm, MPI_ERR_COUNT, fn, "negative count %d", count);
    return mpi_check_buf(comm, fn, used ? buf : NULL, used ? count : 0, dt);
}

/* Whether one side moves a byte: n blocks of count elements of dt (single-count forms), the
 * counts of a v-form (cnt, one type) or of a w-form (w). */
static int nb_any(int n, int count, MPI_Datatype dt, const int *cnt, const view_w *w)
{
    if (w != NULL)
        return mc_any_w(w);
    if (cnt != NULL)
        return mc_any_v(n, cnt, dt);
    return n > 0 && count > 0 && dt->size > 0;
}

static int nb_check(const char *fn, MPI_Comm comm, const nb_args *a, const nbhd *nb)
{
    int rc;
    if (a->sb == MPI_IN_PLACE || a->rb == MPI_IN_PLACE)
        return mpi_error(comm, MPI_ERR_BUFFER, fn, "MPI_IN_PLACE is not allowed");
    view_w sw = {nb->nout, a->scounts, NULL, a->sdispls_w, a->sts};
    view_w rw = {nb->nin, a->rcounts, NULL, a->rdispls_w, a->rts};
    int w = a->kind == NB_ALLTOALLW, sv = a->kind == NB_ALLTOALLV,
        rv = a->kind == NB_ALLGATHERV || a->kind == NB_ALLTOALLV;
    if (w) {
        CK(mc_check_w(fn, comm, &sw, "send", "neighbour"));
        CK(mc_check_wbuf(fn, comm, &sw, "send", "neighbour", a->sb));
    } else if (sv) {
        CK(check_type(fn, comm, a->st));
        CK(check_vec(fn, comm, nb->nout, a->scounts, a->sdispls, "send"));
        CK(mc_check_vbuf(fn, comm, "send", "neighbour", a->sb, nb->nout, a->scounts, a->st));
    } else {
        CK(check_nb_buf(fn, comm, a->sb, a->scount, a->st, nb->nout > 0));
    }
    if (w) {
        CK(mc_check_w(fn, comm, &rw, "receive", "neighbour"));
        CK(mc_check_wbuf(fn, comm, &rw, "receive", "neighbour", a->rb));
    } else if (rv) {
        CK(check_type(fn, comm, a->rt));
        CK(check_vec(fn, comm, nb->nin, a->rcounts, a->rdispls, "receive"));
        CK(mc_check_vbuf(fn, comm, "receive", "neighbour", a->rb, nb->nin, a->rcounts, a->rt));
    } else {
        CK(check_nb_buf(fn, comm, a->rb, a->rcount, a->rt, nb->nin > 0));
    }
    if (a->sb != NULL && a->sb == a->rb &&
        nb_any(nb->nout, a->scount, a->st, sv ? a->scounts : NULL, w ? &sw : NULL) &&
        nb_any(nb->nin, a->rcount, a->rt, rv ? a->rcounts : NULL, w ? &rw : NULL))
        return mpi_error(comm, MPI_ERR_BUFFER, fn,
                         "send and receive buffers alias (not allowed in neighbourhood collectives)");
    return MPI_SUCCESS;
}

/* Every neighbourhood collective: the neighbour lists, dense views of both buffers (block i of the
 * receive buffer is cnt[i] elements at disp[i], PROC_NULL neighbours get 0 elements so a packed
 * view never writes their block back), then one message per real neighbour in a GOAL schedule. */
/* Bytes that n blocks of count elements of dt span (count < 0 is refused elsewhere). */
static size_t nb_span(int n, int count, MPI_Datatype dt)
{
    if (n <= 0 || count <= 0 || dt == MPI_DATATYPE_NULL)
        return 0;
    size_t unit = (size_t)(dt->extent < 0 ? -dt->extent : dt->extent);
    if (unit < dt->size)
        unit = dt->size;
    return (size_t)n * (size_t)count * unit;
}

static int do_neighbor(const char *fn, const nb_args *a, MPI_Comm comm, MPI_Request *req)
{
    int rc;
    CK(check_topo(fn, comm, 0));
    nbhd nb;
    if (nbhd_get(comm, &nb) != MPI_SUCCESS)
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    if ((rc = nb_check(fn, comm, a, &nb)) != MPI_SUCCESS) {
        free(nb.in);
        return rc;
    }
    int ni = nb.nin, no = nb.nout;
    /* The schedule's counts and displacements are ints, in elements and in bytes, as the v-forms'
     * arguments are: refuse what they cannot hold instead of truncating it. */
    if (nb_span(ni, a->rcount, a->rt) > INT_MAX || nb_span(no, a->scount, a->st) > INT_MAX) {
        free(nb.in);
        return mpi_error(comm, MPI_ERR_COUNT, fn, "counts too large for one neighbourhood exchange");
    }
    /* element counts/displacements then byte counts/displacements, receive side then send side */
    int *v = malloc(((size_t)ni + (size_t)no) * 4 * sizeof(int) + 1);
    coll_nbr *msg = malloc(((size_t)ni + (size_t)no) * sizeof *msg + 1);
    if (v == NULL || msg == NULL) {
        free(v);
        free(msg);
        free(nb.in);
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    int *rc_el = v, *rd_el = v + ni, *rc_b = v + 2 * ni, *rd_b = v + 3 * ni;
    int *sc_el = v + 4 * ni, *sd_el = sc_el + no, *sc_b = sc_el + 2 * no, *sd_b = sc_el + 3 * no;
    /* alltoallw has receive counts but byte displacements (a->rdispls_w, used by its view) */
    int vec_recv = a->kind == NB_ALLGATHERV || a->kind >= NB_ALLTOALLV;
    for (int i = 0; i < ni; i++) {
        rc_el[i] = nb.in[i] == MPI_PROC_NULL ? 0 : vec_recv ? a->rcounts[i] : a->rcount;
        rd_el[i] = a->rdispls ? a->rdispls[i] : i * a->rcount;
    }
    mcoll *x = NULL;
    const void *s = NULL;
    void *d = NULL;
    p2p_req *r = NULL;
    int grc = GOAL_SUCCESS, mrc;
    if (a->kind == NB_ALLTOALLW) {
        /* Per-neighbour types: element counts (0 towards PROC_NULL: nothing to pack) with the
         * caller's byte displacements; the views give the byte layout directly. */
        for (int i = 0; i < no; i++)
            sc_el[i] = nb.out[i] == MPI_PROC_NULL ? 0 : a->scounts[i];
        view_w sw = {no, sc_el, NULL, a->sdispls_w, a->sts};
        view_w rw = {ni, rc_el, NULL, a->rdispls_w, a->rts};
        mrc = view_win(a->sb, &sw, &x, &s, sc_b, sd_b);
        if (mrc == MPI_SUCCESS)
            mrc = view_wout(a->rb, &rw, 0, &x, &d, rc_b, rd_b);
    } else if (a->kind == NB_ALLGATHER || a->kind == NB_ALLGATHERV) {
        /* one block sent to every neighbour */
        mrc = view_in(a->sb, a->scount, a->st, &x, &s);
        for (int i = 0; i < no; i++) {
            sc_b[i] = (int)((size_t)a->scount * a->st->size);
            sd_b[i] = 0;
        }
    } else {
        for (int i = 0; i < no; i++) {
            sc_el[i] = a->kind == NB_ALLTOALLV ? a->scounts[i] : a->scount;
            sd_el[i] = a->kind == NB_ALLTOALLV ? a->sdispls[i] : i * a->scount;
        }
        mrc = view_vin(a->sb, a->st, no, sc_el, sd_el, &x, &s, sc_b, sd_b);
    }
    if (mrc == MPI_SUCCESS && a->kind != NB_ALLTOALLW)
        mrc = view_out(a->rb, a->rt, ni, rc_el, rd_el, 0, 0, &x, &d, rc_b, rd_b);
    if (mrc == MPI_SUCCESS) {
        int ns = 0, nr = 0;
        for (int i = 0; i < no; i++)
            if (nb.out[i] != MPI_PROC_NULL)
                msg[ns++] = (coll_nbr){nb.out[i], nb.outtag[i], (size_t)sd_b[i], (size_t)sc_b[i]};
        for (int i = 0; i < ni; i++)
            if (nb.in[i] != MPI_PROC_NULL)
                msg[ns + nr++] =
                    (coll_nbr){nb.in[i], nb.intag[i], (size_t)rd_b[i], (size_t)rc_b[i]};
        /* Cached unless a buffer is a packing temporary (x: new addresses every call, which would
         * only push useful schedules out of the cache). Stencil loops repeat the same call. */
        grc = coll_ineighbor(s, ns, msg, d, nr, msg + ns, x == NULL, &comm->coll, &r);
    }
    free(v);
    free(msg);
    free(nb.in);
    return mc_finish(fn, comm, grc, mrc, r, x, req);
}

/* The bindings differ only in which arguments they have: the blocking and non-blocking form of
 * each share one of these two (counted and vector forms; allgatherv has no send vectors). */
static int nb_counted(const char *fn, int kind, const void *sb, int sc, MPI_Datatype st, void *rb,
                      int rc, MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{
    nb_args a = {.kind = kind, .sb = sb, .scount = sc, .st = st, .rb = rb, .rcount = rc, .rt = rt};
    return do_neighbor(fn, &a, comm, req);
}

static int nb_vector(const char *fn, int kind, const void *sb, int sc, const int *scs,
                     const int *sds, MPI_Datatype st, void *rb, const int *rcs, const int *rds,
                     MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{
    nb_args a = {.kind = kind, .sb = sb, .scount = sc, .scounts = scs, .sdispls = sds, .st = st,
                 .rb = rb, .rcounts = rcs, .rdispls = rds, .rt = rt};
    return do_neighbor(fn, &a, comm, req);
}

int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_ENTER();
    return nb_counted("MPI_Neighbor_allgather", NB_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf,
                      recvcount, recvtype, comm, NULL);
}

int MPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    MPI_ENTER();
    NB_REQ("MPI_Ineighbor_allgather", comm, request);
    return nb_counted("MPI_Ineighbor_allgather", NB_ALLGATHER, sendbuf, sendcount, sendtype,
                      recvbuf, recvcount, recvtype, comm, request);
}

int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_ENTER();
    return nb_vector("MPI_Neighbor_allgatherv", NB_ALLGATHERV, sendbuf, sendcount, NULL, NULL,
                     sendtype, recvbuf, recvcounts, displs, recvtype, comm, NULL);
}

int MPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    MPI_ENTER();
    NB_REQ("MPI_Ineighbor_allgatherv", comm, request);
    return nb_vector("MPI_Ineighbor_allgatherv", NB_ALLGATHERV, sendbuf, sendcount, NULL, NULL,
                     sendtype, recvbuf, recvcounts, displs, recvtype, comm, request);
}

int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                          void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_ENTER();
    return nb_counted("MPI_Neighbor_alltoall", NB_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf,
                      recvcount, recvtype, comm, NULL);
}

int MPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Request *request)
{
    MPI_ENTER();
    NB_REQ("MPI_Ineighbor_alltoall", comm, request);
    return nb_counted("MPI_Ineighbor_alltoall", NB_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf,
                      recvcount, recvtype, comm, request);
}

int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_ENTER();
    return nb_vector("MPI_Neighbor_alltoallv", NB_ALLTOALLV, sendbuf, 0, sendcounts, sdispls,
                     sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, NULL);
}

int MPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    MPI_ENTER();
    NB_REQ("MPI_Ineighbor_alltoallv", comm, request);
    return nb_vector("MPI_Ineighbor_alltoallv", NB_ALLTOALLV, sendbuf, 0, sendcounts, sdispls,
                     sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, request);
}

/* The w-forms have their own argument shape (MPI_Aint byte displacements, type arrays). */
static int nb_w(const char *fn, const void *sb, const int *scs, const MPI_Aint *sds,
                const MPI_Datatype *sts, void *rb, const int *rcs, const MPI_Aint *rds,
                const MPI_Datatype *rts, MPI_Comm comm, MPI_Request *req)
{
    nb_args a = {.kind = NB_ALLTOALLW, .sb = sb, .scounts = scs, .sdispls_w = sds, .sts = sts,
                 .rb = rb, .rcounts = rcs, .rdispls_w = rds, .rts = rts};
    return do_neighbor(fn, &a, comm, req);
}

int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    MPI_ENTER();
    return nb_w("MPI_Neighbor_alltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                recvcounts, rdispls, recvtypes, comm, NULL);
}

int MPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                            MPI_Comm comm, MPI_Request *request)
{
    MPI_ENTER();
    NB_REQ("MPI_Ineighbor_alltoallw", comm, request);
    return nb_w("MPI_Ineighbor_alltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                recvcounts, rdispls, recvtypes, comm, request);
}

CREDO_PMPI(MPI_Dims_create)
CREDO_PMPI(MPI_Cart_create)
CREDO_PMPI(MPI_Cart_get)
CREDO_PMPI(MPI_Cartdim_get)
CREDO_PMPI(MPI_Cart_rank)
CREDO_PMPI(MPI_Cart_coords)
CREDO_PMPI(MPI_Cart_shift)
CREDO_PMPI(MPI_Cart_sub)
CREDO_PMPI(MPI_Cart_map)
CREDO_PMPI(MPI_Graph_create)
CREDO_PMPI(MPI_Graphdims_get)
CREDO_PMPI(MPI_Graph_get)
CREDO_PMPI(MPI_Graph_neighbors_count)
CREDO_PMPI(MPI_Graph_neighbors)
CREDO_PMPI(MPI_Graph_map)
CREDO_PMPI(MPI_Dist_graph_create_adjacent)
CREDO_PMPI(MPI_Dist_graph_create)
CREDO_PMPI(MPI_Dist_graph_neighbors_count)
CREDO_PMPI(MPI_Dist_graph_neighbors)
CREDO_PMPI(MPI_Topo_test)
CREDO_PMPI(MPI_Neighbor_allgather)
CREDO_PMPI(MPI_Ineighbor_allgather)
CREDO_PMPI(MPI_Neighbor_allgatherv)
CREDO_PMPI(MPI_Ineighbor_allgatherv)
CREDO_PMPI(MPI_Neighbor_alltoall)
CREDO_PMPI(MPI_Ineighbor_alltoall)
CREDO_PMPI(MPI_Neighbor_alltoallv)
CREDO_PMPI(MPI_Ineighbor_alltoallv)
CREDO_PMPI(MPI_Neighbor_alltoallw)
CREDO_PMPI(MPI_Ineighbor_alltoallw)
