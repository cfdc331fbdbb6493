/* bench_common.h — shared pieces of credo's plain-MPI benchmarks: option parsing, buffers, iteration
 * scaling, output lines, and the window kernel used by bw, bibw and msgrate. */
#ifndef CREDO_BENCH_COMMON_H
#define CREDO_BENCH_COMMON_H

/* Only standard MPI and C11 are used, so the same file builds with credo, Open MPI and MPICH.
 * Everything is static inline in this header (so no unused-function warnings): each benchmark is a
 * single translation unit, and a header-only helper keeps the "mpicc x.c -o x" build of the
 * side-by-side script trivial. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_MAX_SIZES 64
#define BENCH_ACK_TAG 99
#define BENCH_DATA_TAG 1

typedef struct bench_opts {
    const char *name;             /* benchmark name, first field of every machine-readable line */
    size_t sizes[BENCH_MAX_SIZES]; /* message sizes in bytes, in the order given */
    int nsizes;
    long iters;  /* iteration count for small messages (0 = benchmark default); scaled down for large ones */
    int window;  /* messages in flight per window (bw, bibw, msgrate) */
    int rank, nranks;
    size_t soff, roff;   /* send and receive buffers start this many bytes past a page (0: as OSU) */
    char *sbase, *rbase; /* the page-aligned allocations (bench_end frees them) */
} bench_opts;

static inline void bench_usage(const bench_opts *o)
{
    fprintf(stderr,
            "usage: %s [--sizes a,b,c] [--iters N] [--window W] [--offset B | --soff B --roff B]\n"
            "          [--thread-multiple]\n"
            "  sizes accept suffixes K and M (powers of 1024); iters is the count for small sizes,\n"
            "  large sizes scale it down; window applies to bw, bibw and msgrate;\n"
            "  --offset B puts the send and receive buffers B bytes past a page (0..4095; default 0,\n"
            "  page-aligned as OSU; malloc'd blocks of 128 KiB and more start 16 past one), --soff and\n"
            "  --roff each of them;\n"
            "  --thread-multiple starts MPI with MPI_Init_thread(MPI_THREAD_MULTIPLE) (one thread still\n"
            "  does all the calls: what the thread-safe entry points cost).\n"
            "  Output: '# ...' lines for people, 'name,size,value,unit' lines for scripts.\n",
            o->name);
}

/* Parses "64", "4K", "1M". Returns 0 on a malformed number. */
static inline size_t bench_parse_size(const char *s, char **end)
{
    unsigned long long v = strtoull(s, end, 10);
    if (*end == s)
        return 0;
    if (**end == 'K' || **end == 'k') {
        v <<= 10;
        (*end)++;
    } else if (**end == 'M' || **end == 'm') {
        v <<= 20;
        (*end)++;
    }
    return (size_t)v;
}

/* Parses "a,b,c" (each as bench_parse_size) into sizes[]; 0 on success, -1 on a malformed list. */
static inline int bench_parse_size_list(const char *v, size_t *sizes, int *n)
{
    char *p = (char *)v, *end;
    *n = 0;
    while (*p && *n < BENCH_MAX_SIZES) {
        size_t s = bench_parse_size(p, &end);
        if (end == p || (*end && *end != ','))
            return -1;
        sizes[(*n)++] = s;
        p = *end ? end + 1 : end;
    }
    return 0;
}

/* Default size list: 1 B .. max_size in powers of two. 8 B is a power of two, so it is always in the
 * list; it is the size every table quotes for "small message" latency and rate. */
static inline void bench_default_sizes(bench_opts *o, size_t max_size)
{
    o->nsizes = 0;
    for (size_t s = 1; s <= max_size && o->nsizes < BENCH_MAX_SIZES; s <<= 1)
        o->sizes[o->nsizes++] = s;
}

/* Must run after MPI_Init (which may rewrite argv). Returns 0 to continue, 1 after --help, -1 on error.
 * Every rank parses the same argv, so no broadcast is needed. */
static inline int bench_parse(bench_opts *o, int argc, char **argv, long default_iters, size_t default_max)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &o->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &o->nranks);
    o->iters = default_iters;
    if (o->window <= 0)
        o->window = 64;
    bench_default_sizes(o, default_max);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = (i + 1 < argc) ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            if (o->rank == 0)
                bench_usage(o);
            return 1;
        } else if (!strcmp(a, "--sizes") && v) {
            if (bench_parse_size_list(v, o->sizes, &o->nsizes)) {
                if (o->rank == 0)
                    fprintf(stderr, "%s: bad --sizes '%s'\n", o->name, v);
                return -1;
            }
            i++;
        } else if (!strcmp(a, "--iters") && v) {
            o->iters = strtol(v, NULL, 10);
            i++;
        } else if (!strcmp(a, "--window") && v) {
            o->window = (int)strtol(v, NULL, 10);
            i++;
        } else if ((!strcmp(a, "--offset") || !strcmp(a, "--soff") || !strcmp(a, "--roff")) && v) {
            char *end;
            unsigned long off = strtoul(v, &end, 10);
            if (*end || end == v || off > 4095) {
                if (o->rank == 0)
                    fprintf(stderr, "%s: bad %s '%s' (0..4095)\n", o->name, a, v);
                return -1;
            }
            if (strcmp(a, "--roff"))
                o->soff = off;
            if (strcmp(a, "--soff"))
                o->roff = off;
            i++;
        } else if (!strcmp(a, "--thread-multiple")) {
            /* handled before MPI_Init by bench_begin */
        } else {
            if (o->rank == 0) {
                fprintf(stderr, "%s: unknown or incomplete option '%s'\n", o->name, a);
                bench_usage(o);
            }
            return -1;
        }
    }
    if (o->iters <= 0 || o->window <= 0 || o->nsizes == 0) {
        if (o->rank == 0)
            fprintf(stderr, "%s: iters, window and the size list must be positive\n", o->name);
        return -1;
    }
    if (o->nranks < 2) {
        if (o->rank == 0)
            fprintf(stderr, "%s: needs at least 2 ranks (ranks above 1 stay idle)\n", o->name);
        return -1;
    }
    return 0;
}

static inline size_t bench_max_size(const bench_opts *o)
{
    size_t m = 1;
    for (int i = 0; i < o->nsizes; i++)
        if (o->sizes[i] > m)
            m = o->sizes[i];
    return m;
}

/* Page-aligned (as OSU does) and touched, so first-touch page faults stay out of the timed loops. */
static inline char *bench_alloc(size_t size, int fill)
{
    size_t rounded = (size + 4095) & ~(size_t)4095;
    char *p = aligned_alloc(4096, rounded ? rounded : 4096);
    if (!p) {
        fprintf(stderr, "bench: cannot allocate %zu bytes\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(p, fill, rounded);
    return p;
}

/* The start of every point-to-point benchmark: MPI_Init, options, send and receive buffers for the
 * largest size. Returns -1 to go on, else the exit code (MPI already finalized: --help or an error). */
static inline int bench_begin(bench_opts *o, int *argc, char ***argv, long default_iters,
                              size_t default_max, char **sbuf, char **rbuf)
{
    int multiple = 0;
    for (int i = 1; i < *argc; i++)
        if (!strcmp((*argv)[i], "--thread-multiple"))
            multiple = 1;
    if (multiple) {
        int provided = -1;
        MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
        int r = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
        if (r == 0)
            printf("# MPI_Init_thread(MPI_THREAD_MULTIPLE): provided %s\n",
                   provided == MPI_THREAD_MULTIPLE ? "MPI_THREAD_MULTIPLE" : "less");
    } else {
        MPI_Init(argc, argv);
    }
    int rc = bench_parse(o, *argc, *argv, default_iters, default_max);
    if (rc != 0) {
        MPI_Finalize();
        return rc < 0 ? 1 : 0;
    }
    size_t maxs = bench_max_size(o);
    o->sbase = bench_alloc(maxs + o->soff, 'a');
    o->rbase = bench_alloc(maxs + o->roff, 'b');
    *sbuf = o->sbase + o->soff;
    *rbuf = o->rbase + o->roff;
    if (o->rank == 0)
        printf("# buffers: send at page + %zu, receive at page + %zu\n", o->soff, o->roff);
    return -1;
}

static inline void bench_end(bench_opts *o)
{
    free(o->sbase);
    free(o->rbase);
}

/* Iteration scaling: the small-size count up to 8 KiB, then inversely proportional to the bytes each
 * iteration moves, so each size costs roughly the same time. The floor keeps a median meaningful. */
static inline long bench_scale_iters(long iters, size_t bytes_per_iter, size_t knee, long floor)
{
    if (bytes_per_iter <= knee)
        return iters;
    long n = (long)((double)iters * (double)knee / (double)bytes_per_iter);
    return n < floor ? floor : n;
}

static inline long bench_warmup(long iters)
{
    long w = iters / 10;
    return w < 2 ? 2 : (w > 1000 ? 1000 : w);
}

/* The machine-readable line. %.6g keeps enough digits for ratios without locale surprises. */
static inline void bench_emit(const char *name, size_t size, double value, const char *unit)
{
    printf("%s,%zu,%.6g,%s\n", name, size, value, unit);
}

/* Window kernel (osu_bw / osu_bibw / osu_mbw_mr, one pair): rank 0 posts `window` Isends of one buffer,
 * rank 1 posts `window` Irecvs, both Waitall, then rank 1 sends a 4-byte ack (osu uses 4 B as well) so
 * the next window cannot overlap this one. With bidir (osu_bibw), both ranks post a window of Irecvs
 * and one of Isends each iteration; the two Waitalls already pace the windows, so there is no ack.
 * All messages of a window use one buffer, as OSU does, so the numbers compare with published OSU
 * results (cache-warm for sizes that fit in L2).
 * Returns the elapsed time of the timed iterations on rank 0 (0.0 elsewhere). */
static inline double bench_window_run(const bench_opts *o, char *sbuf, char *rbuf, size_t size, long iters,
                               long warmup, int bidir, MPI_Request *reqs, MPI_Status *stats)
{
    int w = o->window;
    int ack = 0;
    double t0 = 0.0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (long it = 0; it < warmup + iters; it++) {
        if (it == warmup)
            t0 = MPI_Wtime();
        if (o->rank == 0) {
            int n = 0;
            if (bidir)
                for (int k = 0; k < w; k++)
                    MPI_Irecv(rbuf, (int)size, MPI_CHAR, 1, BENCH_DATA_TAG, MPI_COMM_WORLD, &reqs[n++]);
            for (int k = 0; k < w; k++)
                MPI_Isend(sbuf, (int)size, MPI_CHAR, 1, BENCH_DATA_TAG, MPI_COMM_WORLD, &reqs[n++]);
            MPI_Waitall(n, reqs, stats);
            if (!bidir)
                MPI_Recv(&ack, 1, MPI_INT, 1, BENCH_ACK_TAG, MPI_COMM_WORLD, &stats[0]);
        } else if (o->rank == 1) {
            int n = 0;
            for (int k = 0; k < w; k++)
                MPI_Irecv(rbuf, (int)size, MPI_CHAR, 0, BENCH_DATA_TAG, MPI_COMM_WORLD, &reqs[n++]);
            if (bidir)
                for (int k = 0; k < w; k++)
                    MPI_Isend(sbuf, (int)size, MPI_CHAR, 0, BENCH_DATA_TAG, MPI_COMM_WORLD, &reqs[n++]);
            MPI_Waitall(n, reqs, stats);
            if (!bidir)
                MPI_Send(&ack, 1, MPI_INT, 0, BENCH_ACK_TAG, MPI_COMM_WORLD);
        }
    }
    double t = MPI_Wtime() - t0;
    return o->rank == 0 ? t : 0.0;
}

/* What a window benchmark reports per size. */
enum bench_window_metric { BENCH_BW, BENCH_BIBW, BENCH_MSGRATE };

/* The whole program of bw, bibw and msgrate: parse options, run bench_window_run for every size,
 * print. osu_bw uses 100 windows; 1000 for small sizes is still only milliseconds and steadier on a
 * noisy VM. Knee 1 MiB per window (16 KiB messages): beyond it, windows scale down so a size moves
 * about 1 GiB (1 MiB: 15 windows); 16 MiB hits the floor of 3 windows (3 GiB). */
static inline int bench_window_main(int argc, char **argv, const char *name, enum bench_window_metric m,
                                    size_t max_default_size, const char *what)
{
    bench_opts o = {.name = name, .window = 64};
    char *sbuf, *rbuf;
    int rc = bench_begin(&o, &argc, &argv, 1000, max_default_size, &sbuf, &rbuf);
    if (rc >= 0)
        return rc;
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * 2 * (size_t)o.window);
    MPI_Status *stats = malloc(sizeof(MPI_Status) * 2 * (size_t)o.window);
    if (!reqs || !stats)
        MPI_Abort(MPI_COMM_WORLD, 2);
    if (o.rank == 0) {
        printf("# %s: %s, window %d\n", o.name, what, o.window);
        if (m == BENCH_MSGRATE)
            printf("# %10s %14s %14s %8s\n", "size(B)", "rate(msg/s)", "bw(MB/s)", "iters");
        else
            printf("# %10s %14s %8s\n", "size(B)", "bw(MB/s)", "iters");
    }
    for (int si = 0; si < o.nsizes; si++) {
        size_t size = o.sizes[si];
        long iters = bench_scale_iters(o.iters, size * (size_t)o.window, (size_t)1 << 20, 3);
        long warm = bench_warmup(iters);
        double t = bench_window_run(&o, sbuf, rbuf, size, iters, warm, m == BENCH_BIBW, reqs, stats);
        if (o.rank != 0)
            continue;
        double msgs = (double)o.window * (double)iters * (m == BENCH_BIBW ? 2.0 : 1.0);
        double mbs = msgs * (double)size / t / 1e6;
        if (m == BENCH_MSGRATE) {
            printf("# %10zu %14.0f %14.1f %8ld\n", size, msgs / t, mbs, iters);
            bench_emit(name, size, msgs / t, "msg/s");
        } else {
            printf("# %10zu %14.1f %8ld\n", size, mbs, iters);
            bench_emit(name, size, mbs, "MB/s");
        }
        fflush(stdout);
    }
    free(reqs);
    free(stats);
    bench_end(&o);
    MPI_Finalize();
    return 0;
}

#endif /* CREDO_BENCH_COMMON_H */
