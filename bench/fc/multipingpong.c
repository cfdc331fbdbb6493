/* bench/fc/multipingpong.c — the thesis' Multi-PingPong (E1): rank i pairs with rank i + n/2 and only the
 * first A pairs exchange 2 KB ping-pongs; the other ranks stay idle, so most mailbox quota goes unused. */
#include "fcx_common.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    fcx_opts o = {.iters = 1000, .active = -1, .size = FCX_MSG};
    fcx_parse(argc, argv, &o);
    int pairs = size / 2;
    /* default: a quarter of the pairs active (at least one), the localised extreme of the thesis */
    int active = o.active < 0 ? (pairs + 3) / 4 : o.active;
    if (pairs < 1 || active > pairs) {
        if (rank == 0)
            fprintf(stderr, "multipingpong: needs an even number of ranks and at most %d active pairs\n", pairs);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *buf = calloc(1, o.size);
    int pair = rank % pairs, first = rank < pairs, partner = first ? rank + pairs : rank - pairs;
    int on = pair < active && rank < 2 * pairs;
    fcx_stats st;
    fcx_stats_init(&st);
    fcx_check_eager(&st, o.size);
    /* warm-up outside the timed region: connects, and lets a dynamic scheme see the first activity */
    for (int i = 0; on && i < 10; i++) {
        if (first) {
            MPI_Send(buf, (int)o.size, MPI_CHAR, partner, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, (int)o.size, MPI_CHAR, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, (int)o.size, MPI_CHAR, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, (int)o.size, MPI_CHAR, partner, 1, MPI_COMM_WORLD);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    fcx_stats_start(&st);
    double t0 = MPI_Wtime();
    unsigned long long sent = 0;
    for (long i = 0; on && i < o.iters; i++) {
        if (first) {
            MPI_Send(buf, (int)o.size, MPI_CHAR, partner, 2, MPI_COMM_WORLD);
            MPI_Recv(buf, (int)o.size, MPI_CHAR, partner, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, (int)o.size, MPI_CHAR, partner, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, (int)o.size, MPI_CHAR, partner, 2, MPI_COMM_WORLD);
        }
        sent++;
    }
    double t = MPI_Wtime() - t0;
    fcx_stats_stop(&st);
    if (rank == 0)
        printf("# multipingpong: %d of %d pairs active, %zu B, %ld round trips; per_iter = one round trip\n",
               active, pairs, o.size, o.iters);
    fcx_report("multipingpong", &st, o.iters, sent, t);
    fcx_stats_free(&st);
    free(buf);
    MPI_Finalize();
    return 0;
}
