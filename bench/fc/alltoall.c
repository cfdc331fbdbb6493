/* bench/fc/alltoall.c — the thesis' alltoall (E2/E4 1×n): every rank sends 2 KB to every other with
 * point-to-point, then receives from all; no collective optimisation, so every mailbox is stressed. */
#include "fcx_common.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    fcx_opts o = {.iters = 50, .size = FCX_MSG};
    fcx_parse(argc, argv, &o);
    int *all = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; i++)
        all[i] = i;
    char *sbuf = calloc(1, o.size), *rbuf = calloc(1, o.size);
    MPI_Request *rq = malloc(sizeof(MPI_Request) * (size_t)size);
    fcx_stats st;
    fcx_stats_init(&st);
    fcx_check_eager(&st, o.size);
    fcx_alltoall(all, size, rank, sbuf, rbuf, o.size, rq); /* warm-up */
    MPI_Barrier(MPI_COMM_WORLD);
    fcx_stats_start(&st);
    double t0 = MPI_Wtime();
    unsigned long long sent = 0;
    for (long i = 0; i < o.iters; i++)
        sent += fcx_alltoall(all, size, rank, sbuf, rbuf, o.size, rq);
    double t = MPI_Wtime() - t0;
    fcx_stats_stop(&st);
    if (rank == 0)
        printf("# alltoall: %d ranks, %zu B, %ld iterations; per_iter = one alltoall\n", size, o.size, o.iters);
    fcx_report("alltoall", &st, o.iters, sent, t);
    fcx_stats_free(&st);
    free(all);
    free(sbuf);
    free(rbuf);
    free(rq);
    MPI_Finalize();
    return 0;
}
