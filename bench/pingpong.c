/* pingpong.c — osu_latency-style benchmark: half round-trip time of blocking Send/Recv between ranks 0
 * and 1, for 1 B .. 16 MiB, reported as latency (us) and ping-pong bandwidth (MB/s = 10^6 B/s). */
#include "bench_common.h"

int main(int argc, char **argv)
{
    bench_opts o = {.name = "pingpong"};
    char *sbuf, *rbuf;
    /* 10000 round trips up to 8 KiB, as osu_latency does; fewer for large sizes (see below). */
    int rc = bench_begin(&o, &argc, &argv, 10000, (size_t)16 << 20, &sbuf, &rbuf);
    if (rc >= 0)
        return rc;
    if (o.rank == 0) {
        printf("# %s: half round-trip of blocking MPI_Send/MPI_Recv, %d ranks (ranks > 1 idle)\n", o.name,
               o.nranks);
        printf("# %10s %14s %14s %8s\n", "size(B)", "latency(us)", "pp-bw(MB/s)", "iters");
    }
    for (int si = 0; si < o.nsizes; si++) {
        size_t size = o.sizes[si];
        /* Scaling knee 8 KiB: above it, each round trip moves more bytes, so fewer are needed for the
         * same accuracy; 16 MiB gets the floor of 10 round trips (each message ~0.5 ms of copying). */
        long iters = bench_scale_iters(o.iters, size, 8192, 10);
        long warm = bench_warmup(iters);
        MPI_Status st;
        double t0 = 0.0;
        MPI_Barrier(MPI_COMM_WORLD);
        for (long it = 0; it < warm + iters; it++) {
            if (it == warm)
                t0 = MPI_Wtime();
            if (o.rank == 0) {
                MPI_Send(sbuf, (int)size, MPI_CHAR, 1, BENCH_DATA_TAG, MPI_COMM_WORLD);
                MPI_Recv(rbuf, (int)size, MPI_CHAR, 1, BENCH_DATA_TAG, MPI_COMM_WORLD, &st);
            } else if (o.rank == 1) {
                MPI_Recv(rbuf, (int)size, MPI_CHAR, 0, BENCH_DATA_TAG, MPI_COMM_WORLD, &st);
                MPI_Send(sbuf, (int)size, MPI_CHAR, 0, BENCH_DATA_TAG, MPI_COMM_WORLD);
            }
        }
        double t = MPI_Wtime() - t0;
        if (o.rank == 0) {
            double lat_us = t * 1e6 / (2.0 * (double)iters);
            double mbs = (double)size / lat_us; /* bytes per microsecond == MB/s (10^6 B/s) */
            printf("# %10zu %14.3f %14.1f %8ld\n", size, lat_us, mbs, iters);
            bench_emit("latency", size, lat_us, "us");
            bench_emit("ppbw", size, mbs, "MB/s");
            fflush(stdout);
        }
    }
    bench_end(&o);
    MPI_Finalize();
    return 0;
}
