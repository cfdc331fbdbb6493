/* bench/fc/phased.c — the thesis' credit-reallocation experiment (E8, §7.3) on few ranks: ranks form
 * groups of g that run point-to-point alltoalls; every P iterations the groups are reshuffled, so the
 * set of active senders of every mailbox changes and credits must follow it. */
#include "fcx_common.h"

/* Deterministic shuffle, identical on every rank (a fixed LCG, not rand(): the C library's sequence
 * may differ between the libraries this benchmark is built against). */
static void shuffle(int *perm, int n, unsigned phase)
{
    unsigned long long x = 0x9e3779b97f4a7c15ull * (phase + 1);
    for (int i = 0; i < n; i++)
        perm[i] = i;
    if (phase == 0)
        return; /* phase 0: contiguous blocks */
    for (int i = n - 1; i > 0; i--) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        int j = (int)((x >> 33) % (unsigned long long)(i + 1));
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    fcx_opts o = {.iters = 400, .group = -1, .phase = 100, .size = FCX_MSG};
    fcx_parse(argc, argv, &o);
    /* default groups of a quarter of the ranks (4 of 16): each mailbox has 3 active senders of 15 */
    int g = o.group > 0 ? o.group : (size >= 8 ? size / 4 : 2);
    if (g < 2 || size % g != 0 || o.phase < 1) {
        if (rank == 0)
            fprintf(stderr, "phased: group size %d must be >= 2 and divide %d ranks\n", g, size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int *perm = malloc(sizeof(int) * (size_t)size), *members = malloc(sizeof(int) * (size_t)g);
    char *sbuf = calloc(1, o.size), *rbuf = calloc(1, o.size);
    MPI_Request *rq = malloc(sizeof(MPI_Request) * (size_t)g);
    int me_idx = 0;
    /* this rank's group in a phase: the block of g consecutive positions of the permutation holding it */
    #define SET_GROUP(ph)                                                                          \
        do {                                                                                       \
            shuffle(perm, size, (unsigned)(ph));                                                   \
            int pos = 0;                                                                           \
            while (perm[pos] != rank)                                                              \
                pos++;                                                                             \
            int base = pos - pos % g;                                                              \
            for (int k = 0; k < g; k++)                                                            \
                members[k] = perm[base + k];                                                       \
            me_idx = pos % g;                                                                      \
        } while (0)
    fcx_stats st;
    fcx_stats_init(&st);
    fcx_check_eager(&st, o.size);
    SET_GROUP(0);
    fcx_alltoall(members, g, me_idx, sbuf, rbuf, o.size, rq); /* warm-up */
    MPI_Barrier(MPI_COMM_WORLD);
    fcx_stats_start(&st);
    double t0 = MPI_Wtime();
    unsigned long long sent = 0;
    for (long i = 0; i < o.iters; i++) {
        if (i > 0 && i % o.phase == 0) {
            /* the thesis ends every phase with a barrier over all ranks */
            MPI_Barrier(MPI_COMM_WORLD);
            SET_GROUP(i / o.phase);
        }
        sent += fcx_alltoall(members, g, me_idx, sbuf, rbuf, o.size, rq);
    }
    double t = MPI_Wtime() - t0;
    fcx_stats_stop(&st);
    if (rank == 0)
        printf("# phased: %d ranks in groups of %d, regrouped every %d iterations, %zu B, %ld iterations; "
               "per_iter = one group alltoall\n",
               size, g, o.phase, o.size, o.iters);
    fcx_report("phased", &st, o.iters, sent, t);
    fcx_stats_free(&st);
    free(perm);
    free(members);
    free(sbuf);
    free(rbuf);
    free(rq);
    MPI_Finalize();
    return 0;
}
