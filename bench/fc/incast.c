/* bench/fc/incast.c — many-to-one: every rank but 0 sends a burst of 2 KB messages to rank 0 per
 * iteration; the root's mailbox is the only one under pressure (the pattern of Scatterv/Gatherv roots). */
#include "fcx_common.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    fcx_opts o = {.iters = 100, .burst = 8, .size = FCX_MSG};
    fcx_parse(argc, argv, &o);
    if (size < 2 || o.burst < 1) {
        if (rank == 0)
            fprintf(stderr, "incast: needs at least 2 ranks and a positive burst\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *buf = calloc(1, o.size);
    MPI_Request *rq = malloc(sizeof(MPI_Request) * (size_t)o.burst);
    fcx_stats st;
    fcx_stats_init(&st);
    fcx_check_eager(&st, o.size);
    MPI_Barrier(MPI_COMM_WORLD);
    fcx_stats_start(&st);
    double t0 = MPI_Wtime();
    unsigned long long sent = 0;
    for (long i = 0; i < o.iters; i++) {
        if (rank == 0) {
            /* any source, in arrival order: the root never favours one sender */
            for (long k = 0; k < (long)(size - 1) * o.burst; k++)
                MPI_Recv(buf, (int)o.size, MPI_CHAR, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int k = 0; k < o.burst; k++)
                MPI_Isend(buf, (int)o.size, MPI_CHAR, 0, 3, MPI_COMM_WORLD, &rq[k]);
            MPI_Waitall(o.burst, rq, MPI_STATUSES_IGNORE);
            sent += (unsigned long long)o.burst;
        }
        /* the root releases the next round, so bursts do not overlap */
        MPI_Barrier(MPI_COMM_WORLD);
    }
    double t = MPI_Wtime() - t0;
    fcx_stats_stop(&st);
    if (rank == 0)
        printf("# incast: %d senders x %d messages of %zu B to rank 0, %ld iterations; per_iter = one round\n",
               size - 1, o.burst, o.size, o.iters);
    fcx_report("incast", &st, o.iters, sent, t);
    fcx_stats_free(&st);
    free(buf);
    free(rq);
    MPI_Finalize();
    return 0;
}
