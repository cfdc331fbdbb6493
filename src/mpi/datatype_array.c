/* src/mpi/datatype_array.c — the array datatype constructors MPI_Type_create_subarray and
 * MPI_Type_create_darray: both describe per-dimension index runs flattened by one grid walk. */
#include <limits.h>
#include <stdlib.h>

#include "mpi/dt_build.h"
#include "mpi/mpi_impl.h"

/* Indexes (in old-type elements) [start, start + len) of one dimension. */
typedef struct idx_run {
    int64_t start, len;
} idx_run;

/* One dimension of the array, in memory order: grid_dim[0] varies slowest. */
typedef struct grid_dim {
    int64_t size;
    idx_run *runs;    /* ascending, disjoint */
    int nruns;
    /* grid_build's walk: byte stride, current run and offset in it (darray: the coordinate) */
    MPI_Aint stride;
    int run;
    int64_t off;
} grid_dim;

/* Bytes of the whole array (product of the sizes times old's extent) in *total; 0 on overflow. */
static int grid_total(const grid_dim *d, int n, MPI_Datatype old, MPI_Aint *total)
{
    int64_t elems = 1;
    for (int j = 0; j < n; j++)
        if (__builtin_mul_overflow(elems, d[j].size, &elems))
            return 0;
    return dt_aint_mul(old->extent, elems, total);
}

/* Appends the selected elements in memory order (the typemap order of both constructors: the
 * fastest dimension innermost). grid_total must have succeeded, which bounds every offset here. */
static void grid_build(dt_builder *b, MPI_Datatype old, grid_dim *d, int n)
{
    for (int j = 0; j < n; j++)
        if (d[j].nruns == 0)
            return; /* nothing selected in some dimension: no data, only the bounds */
    /* A fully selected fastest dimension is one run together with the next slower one: merge them
     * so that a face of full rows is a few long blocks and the walk below is shorter. */
    while (n > 1 && d[n - 1].nruns == 1 && d[n - 1].runs[0].start == 0 &&
           d[n - 1].runs[0].len == d[n - 1].size) {
        int64_t s = d[n - 1].size;
        for (int r = 0; r < d[n - 2].nruns; r++) {
            d[n - 2].runs[r].start *= s;
            d[n - 2].runs[r].len *= s;
        }
        d[n - 2].size *= s;
        n--;
    }
    /* Estimate the blocks first: one append per selected index of the slower dimensions and run
     * of the fastest. */
    int64_t outer = 1, inner = 0, cost;
    for (int j = 0; j < n - 1; j++) {
        int64_t sel = 0;
        for (int r = 0; r < d[j].nruns; r++)
            sel += d[j].runs[r].len;
        if (__builtin_mul_overflow(outer, sel, &outer))
            outer = INT64_MAX;
    }
    for (int r = 0; r < d[n - 1].nruns && inner <= DT_MAX_BLOCKS; r++) {
        int64_t c = dt_add_cost(old, d[n - 1].runs[r].len);
        inner = c > DT_MAX_BLOCKS ? INT64_MAX : inner + c; /* no overflow: inner <= the limit */
    }
    if (__builtin_mul_overflow(outer, inner, &cost))
        cost = INT64_MAX;
    dt_builder_plan(b, cost);
    if (b->failed)
        return;
    d[n - 1].stride = old->extent;
    for (int j = n - 2; j >= 0; j--)
        d[j].stride = d[j + 1].stride * (MPI_Aint)d[j + 1].size;
    /* Odometer over the selected indexes of the slower dimensions: (run, offset) per dimension. */
    for (int j = 0; j < n; j++)
        d[j].run = 0, d[j].off = 0;
    for (;;) {
        MPI_Aint base = 0;
        for (int j = 0; j < n - 1; j++)
            base += (MPI_Aint)(d[j].runs[d[j].run].start + d[j].off) * d[j].stride;
        const grid_dim *in = &d[n - 1];
        for (int r = 0; r < in->nruns && !b->failed; r++)
            dt_builder_add(b, old, base + (MPI_Aint)in->runs[r].start * in->stride,
                           in->runs[r].len);
        if (b->failed)
            return;
        int j = n - 2;
        for (; j >= 0; j--) {
            if (++d[j].off < d[j].runs[d[j].run].len)
                break;
            d[j].off = 0;
            if (++d[j].run < d[j].nruns)
                break;
            d[j].run = 0;
        }
        if (j < 0)
            return;
    }
}

/* Builds the array type over the prepared dimensions: lb 0 and the whole array as extent, as the
 * standard defines both constructors (explicit bounds, so they also hold inside other types). */
static int grid_type(const char *fn, grid_dim *d, int n, MPI_Datatype old, dt_contents *c,
                     MPI_Datatype *newtype)
{
    dt_builder b;
    dt_builder_init(&b);
    MPI_Aint total = 0;
    if (!grid_total(d, n, old, &total))
        b.failed = BF_OVERFLOW;
    else
        grid_build(&b, old, d, n);
    dt_builder_set_bounds(&b, 0, total);
    if (b.basic == -1) {
        b.basic = old->basic;
        b.elem_size = old->elem_size;
    }
    return dt_new_type(fn, &b, c, newtype);
}

static int check_order(const char *fn, int order)
{
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "invalid order %d", order);
    return MPI_SUCCESS;
}

int MPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                             const int array_of_starts[], int order, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_create_subarray";
    int rc;
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (ndims <= 0)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "ndims %d is not positive", ndims);
    if (ndims > (INT_MAX - 2) / 3)
        return mpi_error(NULL, MPI_ERR_COUNT, fn, "ndims %d too large", ndims);
    if (array_of_sizes == NULL || array_of_subsizes == NULL || array_of_starts == NULL ||
        newtype == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "NULL argument");
    if ((rc = check_order(fn, order)) != MPI_SUCCESS)
        return rc;
    if (!dt_live(oldtype))
        return mpi_error(NULL, MPI_ERR_TYPE, fn, "invalid datatype");
    /* The standard asks for positive subsizes; credo also takes 0 (an empty face: no data, the
     * full array's extent), which halo codes with empty borders produce. */
    for (int i = 0; i < ndims; i++) {
        int sz = array_of_sizes[i], sub = array_of_subsizes[i], st = array_of_starts[i];
        if (sz < 1 || sub < 0 || sub > sz || st < 0 || st > sz - sub)
            return mpi_error(NULL, MPI_ERR_ARG, fn,
                             "dimension %d: size %d, subsize %d, start %d not a subarray", i, sz,
                             sub, st);
    }
    grid_dim *d = calloc((size_t)ndims, sizeof *d);
    idx_run *runs = calloc((size_t)ndims, sizeof *runs);
    dt_contents *c = dt_contents_new(MPI_COMBINER_SUBARRAY, 3 * (int64_t)ndims + 2, 0, 1);
    if (d == NULL || runs == NULL || c == NULL) {
        free(d);
        free(runs);
        dt_contents_free(c); /* no type recorded yet */
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    c->ints[0] = ndims;
    for (int i = 0; i < ndims; i++) {
        c->ints[1 + i] = array_of_sizes[i];
        c->ints[1 + ndims + i] = array_of_subsizes[i];
        c->ints[1 + 2 * ndims + i] = array_of_starts[i];
    }
    c->ints[1 + 3 * ndims] = order;
    c->types[0] = oldtype;
    /* Fortran order: the first dimension varies fastest, so it is the last in memory order. */
    for (int j = 0; j < ndims; j++) {
        int i = order == MPI_ORDER_C ? j : ndims - 1 - j;
        d[j].size = array_of_sizes[i];
        d[j].runs = &runs[j];
        d[j].nruns = array_of_subsizes[i] > 0;
        runs[j] = (idx_run){array_of_starts[i], array_of_subsizes[i]};
    }
    rc = grid_type(fn, d, ndims, oldtype, c, newtype);
    free(d);
    free(runs);
    return rc;
}

/* The runs of one darray dimension owned by process coordinate p of np: MPI_DISTRIBUTE_BLOCK
 * gives one block of darg (default ceil(g / np)) elements, MPI_DISTRIBUTE_CYCLIC every np-th block
 * of darg (default 1) elements, MPI_DISTRIBUTE_NONE everything. out has room for
 * ceil(g / darg / np) + 1 runs; returns the count. */
static int darray_runs(int distrib, int64_t darg, int64_t g, int64_t p, int64_t np, idx_run *out)
{
    if (distrib == MPI_DISTRIBUTE_NONE) {
        out[0] = (idx_run){0, g};
        return 1;
    }
    if (distrib == MPI_DISTRIBUTE_BLOCK) {
        int64_t start = p * darg;
        if (start >= g)
            return 0;
        out[0] = (idx_run){start, darg < g - start ? darg : g - start};
        return 1;
    }
    int n = 0;
    for (int64_t start = p * darg; start < g; start += np * darg)
        out[n++] = (idx_run){start, darg < g - start ? darg : g - start};
    return n;
}

int MPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                           const int array_of_distribs[], const int array_of_dargs[],
                           const int array_of_psizes[], int order, MPI_Datatype oldtype,
                           MPI_Datatype *newtype)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_create_darray";
    int rc;
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (size <= 0 || rank < 0 || rank >= size)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "rank %d of size %d", rank, size);
    if (ndims <= 0)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "ndims %d is not positive", ndims);
    if (ndims > (INT_MAX - 4) / 4)
        return mpi_error(NULL, MPI_ERR_COUNT, fn, "ndims %d too large", ndims);
    if (array_of_gsizes == NULL || array_of_distribs == NULL || array_of_dargs == NULL ||
        array_of_psizes == NULL || newtype == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "NULL argument");
    if ((rc = check_order(fn, order)) != MPI_SUCCESS)
        return rc;
    if (!dt_live(oldtype))
        return mpi_error(NULL, MPI_ERR_TYPE, fn, "invalid datatype");
    int64_t nprocs = 1, nruns_max = 0;
    for (int i = 0; i < ndims; i++) {
        int g = array_of_gsizes[i], dist = array_of_distribs[i], darg = array_of_dargs[i];
        int ps = array_of_psizes[i];
        if (g < 1 || ps < 1)
            return mpi_error(NULL, MPI_ERR_ARG, fn, "dimension %d: gsize %d, psize %d", i, g, ps);
        if (dist != MPI_DISTRIBUTE_BLOCK && dist != MPI_DISTRIBUTE_CYCLIC &&
            dist != MPI_DISTRIBUTE_NONE)
            return mpi_error(NULL, MPI_ERR_ARG, fn, "dimension %d: invalid distribution %d", i,
                             dist);
        if (dist == MPI_DISTRIBUTE_NONE && ps != 1)
            return mpi_error(NULL, MPI_ERR_ARG, fn,
                             "dimension %d: MPI_DISTRIBUTE_NONE needs psize 1, not %d", i, ps);
        if (dist != MPI_DISTRIBUTE_NONE && darg != MPI_DISTRIBUTE_DFLT_DARG && darg < 1)
            return mpi_error(NULL, MPI_ERR_ARG, fn, "dimension %d: invalid darg %d", i, darg);
        if (dist == MPI_DISTRIBUTE_BLOCK && darg != MPI_DISTRIBUTE_DFLT_DARG &&
            (int64_t)darg * ps < g)
            return mpi_error(NULL, MPI_ERR_ARG, fn,
                             "dimension %d: %d blocks of %d cannot hold %d elements", i, ps, darg,
                             g);
        if (__builtin_mul_overflow(nprocs, ps, &nprocs) || nprocs > size)
            nprocs = (int64_t)size + 1; /* reported below; keeps the product bounded */
        int64_t dd = dist == MPI_DISTRIBUTE_CYCLIC && darg != MPI_DISTRIBUTE_DFLT_DARG ? darg : 1;
        nruns_max += dist == MPI_DISTRIBUTE_CYCLIC ? ((int64_t)g + dd * ps - 1) / (dd * ps) : 1;
    }
    if (nprocs != size)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "the process grid does not have %d processes",
                         size);
    grid_dim *d = calloc((size_t)ndims, sizeof *d);
    idx_run *runs = calloc((size_t)nruns_max, sizeof *runs);
    dt_contents *c = dt_contents_new(MPI_COMBINER_DARRAY, 4 * (int64_t)ndims + 4, 0, 1);
    if (d == NULL || runs == NULL || c == NULL) {
        free(d);
        free(runs);
        dt_contents_free(c); /* no type recorded yet */
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    c->ints[0] = size;
    c->ints[1] = rank;
    c->ints[2] = ndims;
    for (int i = 0; i < ndims; i++) {
        c->ints[3 + i] = array_of_gsizes[i];
        c->ints[3 + ndims + i] = array_of_distribs[i];
        c->ints[3 + 2 * ndims + i] = array_of_dargs[i];
        c->ints[3 + 3 * ndims + i] = array_of_psizes[i];
    }
    c->ints[3 + 4 * ndims] = order;
    c->types[0] = oldtype;
    /* The process grid is row-major whatever the array order: the last dimension's coordinate
     * varies fastest with the rank. d[j].off holds the process coordinate of dimension j until the
     * runs are made (memory order j is array dimension i). */
    for (int i = ndims - 1, r = rank; i >= 0; i--) {
        d[order == MPI_ORDER_C ? i : ndims - 1 - i].off = r % array_of_psizes[i];
        r /= array_of_psizes[i];
    }
    idx_run *next = runs;
    for (int j = 0; j < ndims; j++) {
        int i = order == MPI_ORDER_C ? j : ndims - 1 - j;
        int64_t g = array_of_gsizes[i], ps = array_of_psizes[i], darg = array_of_dargs[i];
        if (darg == MPI_DISTRIBUTE_DFLT_DARG)
            darg = array_of_distribs[i] == MPI_DISTRIBUTE_BLOCK ? (g + ps - 1) / ps : 1;
        d[j].size = g;
        d[j].runs = next;
        d[j].nruns = darray_runs(array_of_distribs[i], darg, g, d[j].off, ps, next);
        next += d[j].nruns;
    }
    rc = grid_type(fn, d, ndims, oldtype, c, newtype);
    free(d);
    free(runs);
    return rc;
}

CREDO_PMPI(MPI_Type_create_subarray)
CREDO_PMPI(MPI_Type_create_darray)
