/* coll_common.h — shared pieces of the collective benchmarks (coll_lat, overlap): options, the
 * collective selection, the per-size iteration budget and the statistics over ranks. */
#ifndef CREDO_BENCH_COLL_COMMON_H
#define CREDO_BENCH_COLL_COMMON_H

/* Reuses the point-to-point suite's size parser, aligned buffers, warm-up rule and output line, so the
 * two suites read the same options and print the same "name,size,value,unit" lines.
 *
 * Missing functions: an MPI that does not provide some collective yet (credo while its collectives are
 * being wired) is handled at compile time. The build defines BCOLL_NO_<function>, e.g.
 * -DBCOLL_NO_MPI_Gather, for every function it lacks (CMakeLists.txt greps include/mpi.h, run_coll.sh
 * link-probes each MPI); the program then prints "# ... skipped" for that collective and emits no line,
 * so its column in the tables reads n/a. Barrier, Bcast and Reduce are used for the harness itself and
 * are therefore required. */
#include "../bench_common.h"

#define COLL_MAX_SELECT 32

typedef struct coll_opts {
    const char *prog;              /* program name for messages */
    size_t sizes[BENCH_MAX_SIZES]; /* bytes; per rank block for the "v"-less per-peer collectives */
    int nsizes;
    long iters;                    /* count for sizes up to COLL_KNEE, scaled down above */
    double budget;                 /* seconds of timed loop per size and phase (caps iters) */
    int use_max;                   /* --stat max: report the slowest rank instead of the average */
    char *select_buf;              /* strdup of --coll, split in place */
    const char *select[COLL_MAX_SELECT];
    int nselect;                   /* 0 = every collective the program knows */
    int rank, nranks;
} coll_opts;

/* Above 64 KiB the count falls inversely with the size (floor COLL_FLOOR) so a 1 MiB alltoall does not
 * take 1000 iterations; the time budget below then caps what oversubscription would otherwise stretch. */
#define COLL_KNEE ((size_t)65536)
#define COLL_FLOOR 20L

static inline void coll_usage(const coll_opts *o, const char *const *names, int nnames)
{
    fprintf(stderr,
            "usage: %s [--coll a,b] [--sizes a,b,c] [--iters N] [--budget SEC] [--stat avg|max]\n"
            "  sizes accept K and M suffixes; iters is the count up to 64 KiB, scaled down above;\n"
            "  budget caps each size's timed loop to about SEC seconds (measured in the warm-up).\n"
            "  collectives:",
            o->prog);
    for (int i = 0; i < nnames; i++)
        fprintf(stderr, " %s", names[i]);
    fprintf(stderr, "\n  Output: '# ...' lines for people, 'name,size,value,unit' lines for scripts.\n");
}

/* Returns 0 to continue, 1 after --help, -1 on error. Defaults for sizes/iters/budget are set by the
 * caller before the call. Every rank parses the same argv, so nothing is broadcast. */
static inline int coll_parse(coll_opts *o, int argc, char **argv, const char *const *names, int nnames)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &o->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &o->nranks);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = (i + 1 < argc) ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            if (o->rank == 0)
                coll_usage(o, names, nnames);
            return 1;
        } else if (!strcmp(a, "--sizes") && v) {
            if (bench_parse_size_list(v, o->sizes, &o->nsizes)) {
                if (o->rank == 0)
                    fprintf(stderr, "%s: bad --sizes '%s'\n", o->prog, v);
                return -1;
            }
            i++;
        } else if (!strcmp(a, "--iters") && v) {
            o->iters = strtol(v, NULL, 10);
            i++;
        } else if (!strcmp(a, "--budget") && v) {
            o->budget = strtod(v, NULL);
            i++;
        } else if (!strcmp(a, "--stat") && v) {
            o->use_max = !strcmp(v, "max");
            if (!o->use_max && strcmp(v, "avg")) {
                if (o->rank == 0)
                    fprintf(stderr, "%s: --stat takes avg or max\n", o->prog);
                return -1;
            }
            i++;
        } else if (!strcmp(a, "--coll") && v) {
            free(o->select_buf);
            o->select_buf = malloc(strlen(v) + 1);
            if (!o->select_buf)
                return -1;
            strcpy(o->select_buf, v);
            o->nselect = 0;
            for (char *tok = strtok(o->select_buf, ","); tok && o->nselect < COLL_MAX_SELECT;
                 tok = strtok(NULL, ",")) {
                int known = 0;
                for (int k = 0; k < nnames; k++)
                    known |= !strcmp(tok, names[k]);
                if (!known) {
                    if (o->rank == 0) {
                        fprintf(stderr, "%s: unknown collective '%s'\n", o->prog, tok);
                        coll_usage(o, names, nnames);
                    }
                    return -1;
                }
                o->select[o->nselect++] = tok;
            }
            i++;
        } else {
            if (o->rank == 0) {
                fprintf(stderr, "%s: unknown or incomplete option '%s'\n", o->prog, a);
                coll_usage(o, names, nnames);
            }
            return -1;
        }
    }
    if (o->iters <= 0 || o->nsizes == 0 || o->budget <= 0) {
        if (o->rank == 0)
            fprintf(stderr, "%s: iters, budget and the size list must be positive\n", o->prog);
        return -1;
    }
    return 0;
}

static inline int coll_selected(const coll_opts *o, const char *name)
{
    if (o->nselect == 0)
        return 1;
    for (int i = 0; i < o->nselect; i++)
        if (!strcmp(o->select[i], name))
            return 1;
    return 0;
}

static inline size_t coll_max_size(const coll_opts *o)
{
    size_t m = 8;
    for (int i = 0; i < o->nsizes; i++)
        if (o->sizes[i] > m)
            m = o->sizes[i];
    return m;
}

static inline long coll_iters(const coll_opts *o, size_t size)
{
    return bench_scale_iters(o->iters, size, COLL_KNEE, COLL_FLOOR < o->iters ? COLL_FLOOR : o->iters);
}

/* Caps a count so its loop lasts about `budget` seconds, judged from `done` iterations that took
 * `seconds` on rank 0 (including the per-iteration barrier). Oversubscribed runs (np 4 on 2 cores)
 * can be 1000x slower than bound ones, as a rank that polls while its peer waits for the core loses a
 * whole scheduler tick; without the cap a full run would take hours. Rank 0 decides and broadcasts, so
 * all ranks run the same count. The result is at least `min` (and at most n). */
static inline long coll_cap_iters(const coll_opts *o, long n, double seconds, long done, double budget, long min)
{
    long cap = n;
    if (o->rank == 0 && done > 0 && seconds > 0) {
        double fit = budget / (seconds / (double)done);
        if (fit < (double)n)
            cap = fit < (double)min ? min : (long)fit;
        if (cap > n)
            cap = n;
    }
    MPI_Bcast(&cap, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    return cap;
}

/* Average (or maximum with --stat max) of a per-rank value, valid on rank 0. Average over ranks is what
 * OSU prints as "Avg Latency"; the maximum is the time until the last rank is done. */
static inline double coll_over_ranks(const coll_opts *o, double local)
{
    double out = 0.0;
    MPI_Reduce(&local, &out, 1, MPI_DOUBLE, o->use_max ? MPI_MAX : MPI_SUM, 0, MPI_COMM_WORLD);
    return o->use_max ? out : out / (double)o->nranks;
}

/* Float buffers for the reductions: 1.0f everywhere, so sums stay small normal numbers (memset patterns
 * could produce denormals, which are slow on some CPUs and would distort the timing). */
static inline float *coll_alloc_floats(size_t bytes)
{
    float *f = (float *)bench_alloc(bytes, 0);
    size_t n = ((bytes + 4095) & ~(size_t)4095) / sizeof(float);
    for (size_t i = 0; i < n; i++)
        f[i] = 1.0f;
    return f;
}

/* Reductions run on MPI_FLOAT as OSU does: size / 4 elements, at least one. */
static inline int coll_float_count(size_t size)
{
    size_t n = size / sizeof(float);
    return n ? (int)n : 1;
}

#endif /* CREDO_BENCH_COLL_COMMON_H */
