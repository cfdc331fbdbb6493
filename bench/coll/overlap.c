/* overlap.c — OSU-style communication/computation overlap of the non-blocking collectives (osu_iallreduce,
 * osu_ibcast, osu_ialltoall, osu_ibarrier): pure time, overall time with compute, compute time, overlap %. */
#include "coll_common.h"

/* Method (OSU 5/7, osu_coll.c):
 *   1. t_pure: post the collective and Wait at once, averaged over the iterations (each iteration ends
 *      with an untimed barrier, as in coll_lat).
 *   2. Each rank calibrates a busy loop to last its own t_pure, then times: post, compute, Wait.
 *      t_overall is post-to-Wait-return, t_compute the loop alone. No MPI call happens inside the
 *      loop, so any progress during it comes from the library's own means (a progress thread, or
 *      transfers the NIC / the peer's copy do on their own); OSU's optional MPI_Test calls are not made.
 *   3. The three times are averaged over ranks (or maximised with --stat max) and
 *      overlap % = max(0, 100 * (1 - (t_overall - t_compute) / t_pure)).
 * Since t_compute is measured rather than assumed, a progress thread that steals the compute's core
 * does not lower the overlap figure by itself; it shows as t_compute above t_pure instead, which is
 * why t_compute is printed too.
 *
 * Output per collective and size: <name>_overlap (%), <name>_pure, <name>_overall, <name>_compute (us).
 * Sizes are as in coll_lat: whole message for ibcast and iallreduce (MPI_FLOAT, MPI_SUM), per-rank
 * block for ialltoall; ibarrier has the single size 0. */

typedef struct bufs {
    char *s, *r;
    float *fs, *fr;
} bufs;

typedef int (*post_fn)(bufs *b, size_t size, MPI_Request *req);

#ifndef BCOLL_NO_MPI_Iallreduce
static int p_iallreduce(bufs *b, size_t size, MPI_Request *req)
{
    return MPI_Iallreduce(b->fs, b->fr, coll_float_count(size), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, req);
}
#define F_IALLREDUCE p_iallreduce
#else
#define F_IALLREDUCE NULL
#endif

#ifndef BCOLL_NO_MPI_Ibcast
static int p_ibcast(bufs *b, size_t size, MPI_Request *req)
{
    return MPI_Ibcast(b->s, (int)size, MPI_CHAR, 0, MPI_COMM_WORLD, req);
}
#define F_IBCAST p_ibcast
#else
#define F_IBCAST NULL
#endif

#ifndef BCOLL_NO_MPI_Ialltoall
static int p_ialltoall(bufs *b, size_t size, MPI_Request *req)
{
    return MPI_Ialltoall(b->s, (int)size, MPI_CHAR, b->r, (int)size, MPI_CHAR, MPI_COMM_WORLD, req);
}
#define F_IALLTOALL p_ialltoall
#else
#define F_IALLTOALL NULL
#endif

#ifndef BCOLL_NO_MPI_Ibarrier
static int p_ibarrier(bufs *b, size_t size, MPI_Request *req)
{
    (void)b; /* the common signature; ibarrier needs neither */
    (void)size;
    return MPI_Ibarrier(MPI_COMM_WORLD, req);
}
#define F_IBARRIER p_ibarrier
#else
#define F_IBARRIER NULL
#endif

typedef struct coll_entry {
    const char *name;
    const char *func;
    post_fn post;   /* NULL when this MPI lacks the function */
    int sizeless;   /* ibarrier: one run at size 0 */
} coll_entry;

static const coll_entry colls[] = {
    {"iallreduce", "MPI_Iallreduce", F_IALLREDUCE, 0},
    {"ibcast", "MPI_Ibcast", F_IBCAST, 0},
    {"ialltoall", "MPI_Ialltoall", F_IALLTOALL, 0},
    {"ibarrier", "MPI_Ibarrier", F_IBARRIER, 1},
};
#define NCOLLS ((int)(sizeof colls / sizeof colls[0]))

/* --- the compute ------------------------------------------------------------------------------------
 * A dependent chain of multiply-adds: it cannot be vectorised or shortened by the compiler (the result
 * goes to a volatile), touches no memory, so it neither competes for the bandwidth the collective
 * uses nor depends on cache state, and its speed is stable enough to calibrate once per rank. */
static volatile double sink;

static void busy(long n)
{
    double a = 1.0;
    for (long i = 0; i < n; i++)
        a = a * 1.0000001 + 1e-9;
    sink = a;
}

/* Loop iterations per second: the best of several >= 20 ms trials, since on a shared core the
 * undisturbed trial is the true speed and a slower one only measured a preemption. */
static double calibrate(void)
{
    double best = 0.0;
    for (int trial = 0; trial < 5; trial++) {
        long n = 1L << 16;
        for (;;) {
            double t0 = MPI_Wtime();
            busy(n);
            double dt = MPI_Wtime() - t0;
            if (dt >= 0.02) {
                if (n / dt > best)
                    best = n / dt;
                break;
            }
            n *= 2;
        }
    }
    return best;
}

typedef struct result {
    double pure, overall, compute; /* seconds per iteration, this rank */
} result;

static result measure(const coll_opts *o, const coll_entry *c, bufs *b, size_t size, double rate)
{
    result res = {0, 0, 0};
    MPI_Request req;
    long n = coll_iters(o, size);
    long w = bench_warmup(n);

    /* Warm-up as in coll_lat: two probes size the rest of it to a quarter of the budget. */
    long done = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int step = 0; step < 2; step++) {
        long m = step == 0 ? 2 : coll_cap_iters(o, w - 2, MPI_Wtime() - t0, done, o->budget / 4, 0);
        for (long i = 0; i < m; i++) {
            c->post(b, size, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            MPI_Barrier(MPI_COMM_WORLD);
        }
        done += m;
    }
    /* Two timed phases, the second about twice as long as the first: a third of the budget per pure
     * iteration keeps the whole size near the budget. */
    n = coll_cap_iters(o, n, MPI_Wtime() - t0, done, o->budget / 3, 5);

    MPI_Barrier(MPI_COMM_WORLD);
    for (long i = 0; i < n; i++) {
        t0 = MPI_Wtime();
        c->post(b, size, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        res.pure += MPI_Wtime() - t0;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    res.pure /= (double)n;

    long loops = (long)(res.pure * rate);
    MPI_Barrier(MPI_COMM_WORLD);
    for (long i = 0; i < n; i++) {
        t0 = MPI_Wtime();
        c->post(b, size, &req);
        double c0 = MPI_Wtime();
        busy(loops);
        res.compute += MPI_Wtime() - c0;
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        res.overall += MPI_Wtime() - t0;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    res.overall /= (double)n;
    res.compute /= (double)n;
    return res;
}

static void emit4(const char *name, size_t size, double overlap, double pure, double overall, double compute)
{
    char key[64];
    snprintf(key, sizeof key, "%s_overlap", name);
    bench_emit(key, size, overlap, "%");
    snprintf(key, sizeof key, "%s_pure", name);
    bench_emit(key, size, pure, "us");
    snprintf(key, sizeof key, "%s_overall", name);
    bench_emit(key, size, overall, "us");
    snprintf(key, sizeof key, "%s_compute", name);
    bench_emit(key, size, compute, "us");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *names[NCOLLS];
    for (int i = 0; i < NCOLLS; i++)
        names[i] = colls[i].name;

    /* 8 B .. 256 KiB in powers of 8, plus 1 MiB: the acceptance figure is Iallreduce at 1 MiB. */
    coll_opts o = {.prog = "overlap", .iters = 1000, .budget = 0.3};
    for (size_t s = 8; s <= 262144; s <<= 3)
        o.sizes[o.nsizes++] = s;
    o.sizes[o.nsizes++] = 1048576;

    int rc = coll_parse(&o, argc, argv, names, NCOLLS);
    if (rc != 0) {
        MPI_Finalize();
        return rc < 0 ? 1 : 0;
    }

    size_t bytes = coll_max_size(&o) * (size_t)o.nranks;
    bufs b = {bench_alloc(bytes, 'a'), bench_alloc(bytes, 0), coll_alloc_floats(bytes), coll_alloc_floats(bytes)};
    double rate = calibrate();

    if (o.rank == 0) {
        printf("# overlap: %d ranks, %s over ranks; compute loop %.3g iterations/s on rank 0; iters %ld up to "
               "64 KiB, budget %.3g s per size\n",
               o.nranks, o.use_max ? "maximum" : "average", rate, o.iters, o.budget);
        fflush(stdout);
    }
    for (int ci = 0; ci < NCOLLS; ci++) {
        const coll_entry *c = &colls[ci];
        if (!coll_selected(&o, c->name))
            continue;
        if (!c->post) {
            if (o.rank == 0)
                printf("# %s: %s not provided by this MPI, skipped\n", c->name, c->func);
            continue;
        }
        int nsz = c->sizeless ? 1 : o.nsizes;
        for (int k = 0; k < nsz; k++) {
            size_t size = c->sizeless ? 0 : o.sizes[k];
            result r = measure(&o, c, &b, size, rate);
            double pure = coll_over_ranks(&o, r.pure) * 1e6;
            double overall = coll_over_ranks(&o, r.overall) * 1e6;
            double compute = coll_over_ranks(&o, r.compute) * 1e6;
            if (o.rank == 0) {
                double ov = pure > 0 ? 100.0 * (1.0 - (overall - compute) / pure) : 0.0;
                emit4(c->name, size, ov < 0 ? 0 : ov, pure, overall, compute);
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
