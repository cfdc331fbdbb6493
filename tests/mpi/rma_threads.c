/* tests/mpi/rma_threads.c — one-sided communication from several threads of each rank at once
 * (MPI_THREAD_MULTIPLE) under lock_all: Fetch_and_op tickets, Put/flush/Get of per-thread regions. */
#include <pthread.h>

#include "testutil.h"

/* Every thread takes N tickets from the next rank's counter and writes, flushes and reads back its
 * own 64-long region there; the counters must end at T * N, every read must return what was written,
 * and the tickets a rank's threads drew must be distinct. */
enum { T = 3, N = 200, REG = 64 };

static int rank, size;
static MPI_Win win;
static long tickets[T][N];

static void *run(void *arg)
{
    int id = (int)(long)arg, peer = (rank + 1) % size;
    long one = 1, buf[REG], back[REG];
    for (int i = 0; i < N; i++) {
        MPI_OK(MPI_Fetch_and_op(&one, &tickets[id][i], MPI_LONG, peer, 0, MPI_SUM, win));
        for (int k = 0; k < REG; k++)
            buf[k] = (long)rank * 1000000 + id * 10000 + i * REG + k;
        MPI_OK(MPI_Put(buf, REG, MPI_LONG, peer, 1 + id * REG, REG, MPI_LONG, win));
        MPI_OK(MPI_Win_flush(peer, win));
        MPI_OK(MPI_Get(back, REG, MPI_LONG, peer, 1 + id * REG, REG, MPI_LONG, win));
        MPI_OK(MPI_Win_flush(peer, win));
        CHECK(memcmp(buf, back, sizeof buf) == 0, "thread %d, round %d: read back differs", id, i);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int prov;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(prov == MPI_THREAD_MULTIPLE, "thread level %d", prov);
    long *mem;
    MPI_Aint bytes = (MPI_Aint)sizeof(long) * (1 + T * REG);
    MPI_OK(MPI_Win_allocate(bytes, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    memset(mem, 0, (size_t)bytes);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_lock_all(0, win));
    pthread_t th[T];
    for (long t = 0; t < T; t++)
        CHECK(pthread_create(&th[t], NULL, run, (void *)t) == 0, "pthread_create");
    for (int t = 0; t < T; t++)
        pthread_join(th[t], NULL);
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    CHECK(mem[0] == T * N, "counter %ld, expected %d", mem[0], T * N);
    MPI_OK(MPI_Win_unlock(rank, win));
    /* the next rank's counter is ours alone to draw from: every value below T * N exactly once */
    char seen[T * N] = {0};
    for (int t = 0; t < T; t++)
        for (int i = 0; i < N; i++) {
            long v = tickets[t][i];
            CHECK(v >= 0 && v < T * N && !seen[v], "ticket %ld twice or out of range", v);
            seen[v] = 1;
        }
    tu_note("%d threads x %d Fetch_and_op + Put/Get on each rank", T, N);
    MPI_OK(MPI_Win_free(&win));
    MPI_Finalize();
    return 0;
}
