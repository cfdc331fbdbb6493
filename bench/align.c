/* align.c — latency (ping-pong, as pingpong.c) and bandwidth (window, as bw.c) with the send and
 * receive buffers at chosen offsets from a page, one pair or every pair of a list (issue 32: libc's
 * memcpy is 10-30x slower at some offset pairs on AMD Zen 3/4, and OSU hides it by page-aligning).
 *
 *   align [--soff B] [--roff B] | [--offsets a,b,c] [--sizes ...] [--iters N] [--windows N]
 *         [--window W] [--what lat|bw|both]
 *
 * --soff/--roff: one pair (both ranks send from page + soff and receive into page + roff);
 * --offsets: every (soff, roff) pair of the list, in one launch. Sizes default to 2 KiB .. 4 MiB.
 * Iterations: --iters round trips up to 8 KiB (default 1000), fewer above (floor 10); --windows
 * windows of --window messages (default 100 of 64) up to 1 MiB per window, fewer above (floor 3).
 * Output: 'latency@S/R,size,us,us' and 'bw@S/R,size,MB/s,MB/s' (S/R: send/receive offsets) plus
 * '#' lines. Plain MPI and C11 only: builds with credo's, Open MPI's and MPICH's mpicc alike. */
#include "bench_common.h"

#define MAX_OFFS 16

static int parse_offsets(const char *v, size_t *offs, int *n)
{
    size_t tmp[BENCH_MAX_SIZES];
    int k = 0;
    if (bench_parse_size_list(v, tmp, &k) || k == 0 || k > MAX_OFFS)
        return -1;
    for (int i = 0; i < k; i++) {
        if (tmp[i] > 4095)
            return -1;
        offs[i] = tmp[i];
    }
    *n = k;
    return 0;
}

static double run_latency(const bench_opts *o, char *sb, char *rb, size_t size, long iters)
{
    long warm = bench_warmup(iters);
    MPI_Status st;
    double t0 = 0.0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (long it = 0; it < warm + iters; it++) {
        if (it == warm)
            t0 = MPI_Wtime();
        if (o->rank == 0) {
            MPI_Send(sb, (int)size, MPI_CHAR, 1, BENCH_DATA_TAG, MPI_COMM_WORLD);
            MPI_Recv(rb, (int)size, MPI_CHAR, 1, BENCH_DATA_TAG, MPI_COMM_WORLD, &st);
        } else if (o->rank == 1) {
            MPI_Recv(rb, (int)size, MPI_CHAR, 0, BENCH_DATA_TAG, MPI_COMM_WORLD, &st);
            MPI_Send(sb, (int)size, MPI_CHAR, 0, BENCH_DATA_TAG, MPI_COMM_WORLD);
        }
    }
    return (MPI_Wtime() - t0) * 1e6 / (2.0 * (double)iters);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    bench_opts o = {.name = "align", .window = 64};
    MPI_Comm_rank(MPI_COMM_WORLD, &o.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &o.nranks);
    size_t soffs[MAX_OFFS] = {0}, roffs[MAX_OFFS] = {0};
    int nsoff = 1, nroff = 1, do_lat = 1, do_bw = 1, bad = 0;
    long iters = 1000, windows = 100;
    for (size_t s = 2048; s <= ((size_t)4 << 20); s <<= 1)
        o.sizes[o.nsizes++] = s;
    for (int i = 1; i < argc && !bad; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            bad = 1;
        } else if (!strcmp(a, "--soff")) {
            bad = parse_offsets(v, soffs, &nsoff) || nsoff != 1;
        } else if (!strcmp(a, "--roff")) {
            bad = parse_offsets(v, roffs, &nroff) || nroff != 1;
        } else if (!strcmp(a, "--offsets")) {
            bad = parse_offsets(v, soffs, &nsoff) || parse_offsets(v, roffs, &nroff);
        } else if (!strcmp(a, "--sizes")) {
            bad = bench_parse_size_list(v, o.sizes, &o.nsizes) || o.nsizes == 0;
        } else if (!strcmp(a, "--iters")) {
            iters = strtol(v, NULL, 10);
        } else if (!strcmp(a, "--windows")) {
            windows = strtol(v, NULL, 10);
        } else if (!strcmp(a, "--window")) {
            o.window = (int)strtol(v, NULL, 10);
        } else if (!strcmp(a, "--what")) {
            do_lat = !strcmp(v, "lat") || !strcmp(v, "both");
            do_bw = !strcmp(v, "bw") || !strcmp(v, "both");
            bad = !do_lat && !do_bw;
        } else {
            bad = 1;
        }
        i++;
    }
    if (bad || iters <= 0 || windows <= 0 || o.window <= 0 || o.nranks < 2) {
        if (o.rank == 0)
            fprintf(stderr,
                    "usage: align [--soff B --roff B | --offsets a,b,c] [--sizes a,b,c] [--iters N] [--windows N] "
                    "[--window W] [--what lat|bw|both]  (offsets 0..4095, at least 2 ranks)\n");
        MPI_Finalize();
        return 1;
    }
    size_t maxs = bench_max_size(&o);
    char *sbase = bench_alloc(maxs + 4096, 'a'), *rbase = bench_alloc(maxs + 4096, 'b');
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)o.window);
    MPI_Status *stats = malloc(sizeof(MPI_Status) * (size_t)o.window);
    if (!reqs || !stats)
        MPI_Abort(MPI_COMM_WORLD, 2);
    if (o.rank == 0) {
        printf("# align: ping-pong latency (half round trip, us) and window bandwidth (%d Isend + ack, MB/s) with\n"
               "# buffers at page + soff (send) and page + roff (receive) on both ranks\n",
               o.window);
        printf("# %5s %5s %10s %12s %12s\n", "soff", "roff", "size(B)", "latency(us)", "bw(MB/s)");
    }
    for (int a = 0; a < nsoff; a++)
        for (int b = 0; b < nroff; b++) {
            char *sb = sbase + soffs[a], *rb = rbase + roffs[b];
            char lname[48], bname[48];
            snprintf(lname, sizeof lname, "latency@%zu/%zu", soffs[a], roffs[b]);
            snprintf(bname, sizeof bname, "bw@%zu/%zu", soffs[a], roffs[b]);
            for (int si = 0; si < o.nsizes; si++) {
                size_t size = o.sizes[si];
                double lat = 0.0, mbs = 0.0;
                if (do_lat)
                    lat = run_latency(&o, sb, rb, size, bench_scale_iters(iters, size, 8192, 10));
                if (do_bw) {
                    long n = bench_scale_iters(windows, size * (size_t)o.window, (size_t)1 << 20, 3);
                    double t = bench_window_run(&o, sb, rb, size, n, bench_warmup(n), 0, reqs, stats);
                    if (o.rank == 0)
                        mbs = (double)o.window * (double)n * (double)size / t / 1e6;
                }
                if (o.rank != 0)
                    continue;
                printf("# %5zu %5zu %10zu %12.3f %12.1f\n", soffs[a], roffs[b], size, lat, mbs);
                if (do_lat)
                    bench_emit(lname, size, lat, "us");
                if (do_bw)
                    bench_emit(bname, size, mbs, "MB/s");
                fflush(stdout);
            }
        }
    free(reqs);
    free(stats);
    free(sbase);
    free(rbase);
    MPI_Finalize();
    return 0;
}
