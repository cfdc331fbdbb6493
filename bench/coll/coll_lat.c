/* coll_lat.c — OSU-style latency of the blocking collectives (osu_barrier, osu_bcast, osu_allreduce, ...):
 * per-call time averaged over ranks, one "name,size,us,us" line per collective and size. */
#include "coll_common.h"

/* Method, as in OSU 5/7: each timed call is followed by an untimed MPI_Barrier, so a root cannot run
 * ahead and pipeline successive calls (which would make rooted collectives look faster than any single
 * call is); the time of the call itself is summed on every rank and divided by the count. Barrier is
 * timed as a plain loop, there is nothing to separate it from. Roots are rank 0.
 *
 * Sizes: for bcast and the reductions (reduce, allreduce, scan, exscan) `size` is the whole message;
 * for gather, scatter, allgather, alltoall and reduce_scatter_block it is the block per rank (OSU's
 * convention for the first four; for reduce_scatter_block it keeps every size valid at any np).
 * Reductions use MPI_FLOAT + MPI_SUM over size / 4 elements (one element below 4 bytes). */

typedef struct bufs {
    char *s, *r;     /* byte buffers, max size * np each */
    float *fs, *fr;  /* float buffers, same size */
} bufs;

typedef int (*coll_fn)(bufs *b, size_t size);

static int c_barrier(bufs *b, size_t size)
{
    (void)b; /* the common signature; barrier needs neither */
    (void)size;
    return MPI_Barrier(MPI_COMM_WORLD);
}

static int c_bcast(bufs *b, size_t size)
{
    return MPI_Bcast(b->s, (int)size, MPI_CHAR, 0, MPI_COMM_WORLD);
}

static int c_reduce(bufs *b, size_t size)
{
    return MPI_Reduce(b->fs, b->fr, coll_float_count(size), MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
}

#ifndef BCOLL_NO_MPI_Allreduce
static int c_allreduce(bufs *b, size_t size)
{
    return MPI_Allreduce(b->fs, b->fr, coll_float_count(size), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}
#define F_ALLREDUCE c_allreduce
#else
#define F_ALLREDUCE NULL
#endif

#ifndef BCOLL_NO_MPI_Gather
static int c_gather(bufs *b, size_t size)
{
    return MPI_Gather(b->s, (int)size, MPI_CHAR, b->r, (int)size, MPI_CHAR, 0, MPI_COMM_WORLD);
}
#define F_GATHER c_gather
#else
#define F_GATHER NULL
#endif

#ifndef BCOLL_NO_MPI_Scatter
static int c_scatter(bufs *b, size_t size)
{
    return MPI_Scatter(b->s, (int)size, MPI_CHAR, b->r, (int)size, MPI_CHAR, 0, MPI_COMM_WORLD);
}
#define F_SCATTER c_scatter
#else
#define F_SCATTER NULL
#endif

#ifndef BCOLL_NO_MPI_Allgather
static int c_allgather(bufs *b, size_t size)
{
    return MPI_Allgather(b->s, (int)size, MPI_CHAR, b->r, (int)size, MPI_CHAR, MPI_COMM_WORLD);
}
#define F_ALLGATHER c_allgather
#else
#define F_ALLGATHER NULL
#endif

#ifndef BCOLL_NO_MPI_Alltoall
static int c_alltoall(bufs *b, size_t size)
{
    return MPI_Alltoall(b->s, (int)size, MPI_CHAR, b->r, (int)size, MPI_CHAR, MPI_COMM_WORLD);
}
#define F_ALLTOALL c_alltoall
#else
#define F_ALLTOALL NULL
#endif

#ifndef BCOLL_NO_MPI_Reduce_scatter_block
static int c_reduce_scatter_block(bufs *b, size_t size)
{
    return MPI_Reduce_scatter_block(b->fs, b->fr, coll_float_count(size), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}
#define F_REDUCE_SCATTER_BLOCK c_reduce_scatter_block
#else
#define F_REDUCE_SCATTER_BLOCK NULL
#endif

#ifndef BCOLL_NO_MPI_Scan
static int c_scan(bufs *b, size_t size)
{
    return MPI_Scan(b->fs, b->fr, coll_float_count(size), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}
#define F_SCAN c_scan
#else
#define F_SCAN NULL
#endif

#ifndef BCOLL_NO_MPI_Exscan
static int c_exscan(bufs *b, size_t size)
{
    return MPI_Exscan(b->fs, b->fr, coll_float_count(size), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}
#define F_EXSCAN c_exscan
#else
#define F_EXSCAN NULL
#endif

typedef struct coll_entry {
    const char *name;  /* --coll name and first field of the output line */
    const char *func;  /* MPI function, for the "skipped" note */
    coll_fn fn;        /* NULL when this MPI lacks the function */
} coll_entry;

/* Barrier, Bcast and Reduce are the harness' own tools (coll_common.h), so they are never optional. */
static const coll_entry colls[] = {
    {"barrier", "MPI_Barrier", c_barrier},
    {"bcast", "MPI_Bcast", c_bcast},
    {"reduce", "MPI_Reduce", c_reduce},
    {"allreduce", "MPI_Allreduce", F_ALLREDUCE},
    {"gather", "MPI_Gather", F_GATHER},
    {"scatter", "MPI_Scatter", F_SCATTER},
    {"allgather", "MPI_Allgather", F_ALLGATHER},
    {"alltoall", "MPI_Alltoall", F_ALLTOALL},
    {"reduce_scatter_block", "MPI_Reduce_scatter_block", F_REDUCE_SCATTER_BLOCK},
    {"scan", "MPI_Scan", F_SCAN},
    {"exscan", "MPI_Exscan", F_EXSCAN},
};
#define NCOLLS ((int)(sizeof colls / sizeof colls[0]))

/* One collective at one size; returns the per-call time in microseconds on this rank. */
static double measure(const coll_opts *o, const coll_entry *c, bufs *b, size_t size)
{
    int is_barrier = (c->fn == c_barrier);
    long n = coll_iters(o, size);
    long w = bench_warmup(n);
    /* Warm-up in two steps: two probe iterations size the rest of it to a quarter of the budget, then
     * the whole warm-up sizes the timed loop. */
    long done = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int step = 0; step < 2; step++) {
        long m = step == 0 ? 2 : coll_cap_iters(o, w - 2, MPI_Wtime() - t0, done, o->budget / 4, 0);
        for (long i = 0; i < m; i++) {
            c->fn(b, size);
            if (!is_barrier)
                MPI_Barrier(MPI_COMM_WORLD);
        }
        done += m;
    }
    n = coll_cap_iters(o, n, MPI_Wtime() - t0, done, o->budget, 5);

    double t = 0.0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (is_barrier) {
        t0 = MPI_Wtime();
        for (long i = 0; i < n; i++)
            c->fn(b, size);
        t = MPI_Wtime() - t0;
    } else {
        for (long i = 0; i < n; i++) {
            t0 = MPI_Wtime();
            c->fn(b, size);
            t += MPI_Wtime() - t0;
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    return t * 1e6 / (double)n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *names[NCOLLS];
    for (int i = 0; i < NCOLLS; i++)
        names[i] = colls[i].name;

    /* 8 B .. 512 KiB in powers of 4, plus 1 MiB: 8 B is the small-message size every table quotes. */
    coll_opts o = {.prog = "coll_lat", .iters = 1000, .budget = 0.2};
    for (size_t s = 8; s <= 524288; s <<= 2)
        o.sizes[o.nsizes++] = s;
    o.sizes[o.nsizes++] = 1048576;

    int rc = coll_parse(&o, argc, argv, names, NCOLLS);
    if (rc != 0) {
        MPI_Finalize();
        return rc < 0 ? 1 : 0;
    }

    size_t bytes = coll_max_size(&o) * (size_t)o.nranks;
    bufs b = {bench_alloc(bytes, 'a'), bench_alloc(bytes, 0), coll_alloc_floats(bytes), coll_alloc_floats(bytes)};

    if (o.rank == 0) {
        printf("# coll_lat: %d ranks, %s over ranks of the per-call time (us); iters %ld up to 64 KiB, "
               "budget %.3g s per size\n",
               o.nranks, o.use_max ? "maximum" : "average", o.iters, o.budget);
        fflush(stdout);
    }
    for (int ci = 0; ci < NCOLLS; ci++) {
        const coll_entry *c = &colls[ci];
        if (!coll_selected(&o, c->name))
            continue;
        if (!c->fn) {
            if (o.rank == 0)
                printf("# %s: %s not provided by this MPI, skipped\n", c->name, c->func);
            continue;
        }
        int nsz = (c->fn == c_barrier) ? 1 : o.nsizes;
        for (int k = 0; k < nsz; k++) {
            size_t size = (c->fn == c_barrier) ? 0 : o.sizes[k];
            double us = coll_over_ranks(&o, measure(&o, c, &b, size));
            if (o.rank == 0) {
                bench_emit(c->name, size, us, "us");
                fflush(stdout);
            }
        }
    }
    free(b.s);
    free(b.r);
    free(b.fs);
    free(b.fr);
    free(o.select_buf);
    MPI_Finalize();
    return 0;
}
