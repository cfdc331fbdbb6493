/* tests/hosts/spin.c — a job that keeps running until told to stop, for the fault tests across hosts
 * (launch.sh: a rank, a proxy or a link killed while the job runs). */
/* Every rank prints "spin: ready rank R host H pid P" once MPI_Init and a first barrier are done, then
 * the ranks pass a token around the ring (checked: each hop adds one) with a short sleep per round,
 * until argv[1] seconds (default 30) have passed; then they finalize and rank 0 prints "spin: done
 * after N rounds". Exit status 1 if a token arrived wrong. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    int me, np;
    char host[MPI_MAX_PROCESSOR_NAME];
    int len;
    struct timespec w0, w1;
    clock_gettime(CLOCK_REALTIME, &w0);
    MPI_Init(&argc, &argv);
    clock_gettime(CLOCK_REALTIME, &w1);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (getenv("SPIN_TIMES")) /* (startup.sh: when each rank started and left MPI_Init, wall clock) */
        printf("spin: rank %d init from %lld to %lld ms\n", me, (long long)w0.tv_sec * 1000 + w0.tv_nsec / 1000000,
               (long long)w1.tv_sec * 1000 + w1.tv_nsec / 1000000);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Get_processor_name(host, &len);
    double limit = argc > 1 ? atof(argv[1]) : 30.0;
    MPI_Barrier(MPI_COMM_WORLD);
    printf("spin: ready rank %d host %s pid %d\n", me, host, (int)getpid());
    fflush(stdout);
    /* Rank 0 decides when to stop, so every rank leaves the loop after the same round. */
    double t0 = now();
    long rounds = 0;
    int bad = 0, stop = 0;
    while (!stop) {
        long token = rounds * np;
        if (np > 1) {
            if (me == 0) {
                MPI_Send(&token, 1, MPI_LONG, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(&token, 1, MPI_LONG, np - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                bad |= token != rounds * np + np - 1;
            } else {
                MPI_Recv(&token, 1, MPI_LONG, me - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                bad |= token != rounds * np + me - 1;
                token++;
                MPI_Send(&token, 1, MPI_LONG, (me + 1) % np, 0, MPI_COMM_WORLD);
            }
        }
        rounds++;
        stop = me == 0 && now() - t0 >= limit;
        MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
        usleep(2000);
    }
    if (bad)
        fprintf(stderr, "spin: rank %d FAIL: a token arrived wrong\n", me);
    MPI_Finalize();
    if (me == 0)
        printf("spin: done after %ld rounds\n", rounds);
    return bad;
}
