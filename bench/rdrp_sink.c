/* bench/rdrp_sink.c — the throttled-receiver experiment of the receiver-driven chunked rendezvous
 * (seed 002): rank 1 receives large messages from rank 0 while its "sink" is slowed on purpose (it
 * computes d microseconds between two MPI_Test calls, so it drives the pull only that often).
 * Goodput should follow the sink: at most c x S bytes land per interval, so it stays under
 * c x S / d, and the reads in flight never exceed c (credo's counter). credo only (credo/stats.h).
 * Run: CREDO_XPORT=ofi credorun -n 2 bench_rdrp_sink [MiB] [d_us ...] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <credo/stats.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* the slowed sink: d us of work the pull cannot overlap with progress (no MPI call) */
static void compute_us(double us)
{
    double end = now() + us * 1e-6;
    while (now() < end)
        ;
}

static size_t env_size(const char *name, size_t def)
{
    const char *e = getenv(name);
    if (!e || !*e)
        return def;
    char *end;
    unsigned long long v = strtoull(e, &end, 10);
    if (*end == 'k' || *end == 'K')
        v <<= 10;
    else if (*end == 'm' || *end == 'M')
        v <<= 20;
    return (size_t)v;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    size_t mib = argc > 1 ? (size_t)atoi(argv[1]) : 32;
    double ds[16] = {0, 250, 1000, 4000};
    int nd = 4;
    if (argc > 2) {
        nd = 0;
        for (int i = 2; i < argc && nd < 16; i++)
            ds[nd++] = atof(argv[i]);
    }
    size_t n = mib << 20, S = env_size("CREDO_RNDV_CHUNK", 524288), c = env_size("CREDO_RNDV_WINDOW", 2);
    char *buf = malloc(n);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 2);
    memset(buf, rank, n);
    if (rank == 1)
        printf("# rdrp_sink: %zu MiB messages, chunk S = %zu B, window c = %zu\n"
               "# sink_delay_us  goodput_MB/s  bound_cS/d_MB/s  max_reads_outstanding\n", mib, S, c);
    for (int k = 0; k < nd; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            MPI_Send(buf, (int)n, MPI_BYTE, 1, k, MPI_COMM_WORLD);
        } else if (rank == 1) {
            MPI_Request rq;
            int done = 0;
            double t0 = now();
            MPI_Irecv(buf, (int)n, MPI_BYTE, 0, k, MPI_COMM_WORLD, &rq);
            while (!done) {
                MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
                if (!done && ds[k] > 0)
                    compute_us(ds[k]);
            }
            double t = now() - t0;
            credo_net_stats st;
            credo_net_stats_get(&st);
            double bound = ds[k] > 0 ? (double)(c * S) / (ds[k] * 1e-6) / 1e6 : 0;
            printf("%14.0f  %12.1f  %15.1f  %llu\n", ds[k], (double)n / t / 1e6, bound,
                   (unsigned long long)st.rndv_max_outstanding);
        }
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
