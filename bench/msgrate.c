/* msgrate.c — osu_mbw_mr-style message rate with one pair: windows of 64 MPI_Isend from rank 0 to
 * rank 1, acked per window; reports messages per second for small sizes (1 B .. 8 KiB). */
#include "bench_common.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    bench_opts o = {.name = "msgrate", .window = 64};
    /* More windows than bw (osu_mbw_mr uses 100 too, but 64 small messages take only tens of
     * microseconds, so 1000 windows still finish in well under a second and average out noise). */
    int rc = bench_parse(&o, argc, argv, 1000, 8192);
    if (rc != 0) {
        MPI_Finalize();
        return rc < 0 ? 1 : 0;
    }
    size_t maxs = bench_max_size(&o);
    char *sbuf = bench_alloc(maxs, 'a');
    char *rbuf = bench_alloc(maxs, 'b');
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * 2 * (size_t)o.window);
    MPI_Status *stats = malloc(sizeof(MPI_Status) * 2 * (size_t)o.window);
    if (!reqs || !stats)
        MPI_Abort(MPI_COMM_WORLD, 2);
    if (o.rank == 0) {
        printf("# %s: message rate of one pair, window %d, rank 0 -> rank 1\n", o.name, o.window);
        printf("# %10s %14s %14s %8s\n", "size(B)", "rate(msg/s)", "bw(MB/s)", "iters");
    }
    for (int si = 0; si < o.nsizes; si++) {
        size_t size = o.sizes[si];
        /* Same byte-budget scaling as bw (knee 1 MiB per window), which only matters if --sizes asks for
         * large messages. */
        long iters = bench_scale_iters(o.iters, size * (size_t)o.window, (size_t)1 << 20, 3);
        long warm = bench_warmup(iters);
        double t = bench_window_run(&o, sbuf, rbuf, size, iters, warm, 0, reqs, stats);
        if (o.rank == 0) {
            double msgs = (double)o.window * (double)iters;
            double rate = msgs / t;
            printf("# %10zu %14.0f %14.1f %8ld\n", size, rate, rate * (double)size / 1e6, iters);
            bench_emit("msgrate", size, rate, "msg/s");
            fflush(stdout);
        }
    }
    free(reqs);
    free(stats);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
