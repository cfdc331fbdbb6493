/* tests/mpi/threads.c — MPI_THREAD_MULTIPLE: several threads per rank in MPI at once (ring traffic of
 * every size class, collectives on per-thread communicators, wildcard and matched-probe receives,
 * waits that depend on another thread's later call, and communicator creation in every thread at
 * once). Any np; np 1 sends to itself. */
#include <pthread.h>
#include <time.h>

#include "testutil.h"

enum { NT = 4, ITERS = 60, COLL_ITERS = 100, FAN = 50 };

static int rank, size, right, left;
static MPI_Comm thread_comm[NT];
static MPI_Comm fan_comm, dep_comm;

static const int sizes[] = {8, 300, 4096, 70000, 1 << 20};
enum { NSIZES = (int)(sizeof sizes / sizeof sizes[0]) };

static unsigned char pattern(int from, int t, int it, size_t i)
{
    return (unsigned char)(from * 31 + t * 7 + it * 13 + (int)(i % 251));
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Each thread t runs its own ring on MPI_COMM_WORLD with tag t: the threads' messages share the
 * mailboxes and the matching queues, and must still meet the right receives. */
static void ring_traffic(int t)
{
    unsigned char *out = malloc((size_t)sizes[NSIZES - 1]), *in = malloc((size_t)sizes[NSIZES - 1]);
    CHECK(out && in, "out of memory");
    for (int it = 0; it < ITERS; it++) {
        size_t n = (size_t)sizes[(it + t) % NSIZES];
        for (size_t i = 0; i < n; i++)
            out[i] = pattern(rank, t, it, i);
        memset(in, 0, n);
        MPI_Request r;
        MPI_Status st;
        MPI_OK(MPI_Isend(out, (int)n, MPI_BYTE, right, t, MPI_COMM_WORLD, &r));
        MPI_OK(MPI_Recv(in, (int)n, MPI_BYTE, left, t, MPI_COMM_WORLD, &st));
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        int count = -1;
        MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == t && count == (int)n,
              "thread %d iteration %d: source %d tag %d count %d (expected %d %d %zu)", t, it,
              st.MPI_SOURCE, st.MPI_TAG, count, left, t, n);
        for (size_t i = 0; i < n; i++)
            CHECK(in[i] == pattern(left, t, it, i), "thread %d iteration %d: byte %zu of %zu is %u",
                  t, it, i, n, in[i]);
    }
    free(out);
    free(in);
}

/* Collectives on the thread's own communicator, concurrently with the other threads'. */
static void collectives(int t)
{
    MPI_Comm c = thread_comm[t];
    long expect_sum = 0;
    for (int r = 0; r < size; r++)
        expect_sum += r * 10 + t;
    for (int it = 0; it < COLL_ITERS; it++) {
        long v = rank * 10 + t, sum = -1;
        MPI_OK(MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, c));
        CHECK(sum == expect_sum, "thread %d: allreduce %ld, expected %ld", t, sum, expect_sum);
        int root = it % size, b = rank == root ? it * 100 + t : -1;
        MPI_OK(MPI_Bcast(&b, 1, MPI_INT, root, c));
        CHECK(b == it * 100 + t, "thread %d: bcast from %d gave %d", t, root, b);
        double d = 1.0, dsum = 0;
        MPI_Request r;
        MPI_OK(MPI_Iallreduce(&d, &dsum, 1, MPI_DOUBLE, MPI_SUM, c, &r));
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK(dsum == (double)size, "thread %d: iallreduce %g", t, dsum);
        MPI_OK(MPI_Barrier(c));
    }
}

/* Rank 0's thread 0 takes every message of the fan with MPI_ANY_SOURCE / MPI_ANY_TAG while the
 * other ranks' threads send to it; per (sender, thread) the sequence numbers arrive in order. */
static void fan_in(int t)
{
    if (rank == 0 && t == 0) {
        int total = (size - 1) * NT * FAN;
        int next[64][NT];
        memset(next, 0, sizeof next);
        for (int k = 0; k < total; k++) {
            int msg[2];
            MPI_Status st;
            MPI_OK(MPI_Recv(msg, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, fan_comm, &st));
            int s = st.MPI_SOURCE, th = st.MPI_TAG;
            CHECK(s > 0 && s < size && th >= 0 && th < NT && msg[0] == s,
                  "fan-in: source %d tag %d payload %d", s, th, msg[0]);
            CHECK(msg[1] == next[s][th], "fan-in: from %d thread %d got #%d, expected #%d", s, th,
                  msg[1], next[s][th]);
            next[s][th]++;
        }
    } else if (rank != 0) {
        for (int k = 0; k < FAN; k++) {
            int msg[2] = {rank, k};
            MPI_OK(MPI_Send(msg, 2, MPI_INT, 0, t, fan_comm));
        }
    }
}

/* Matched probes: each thread probes and receives only its own tag from the left with
 * MPI_Mprobe/MPI_Mrecv, so no thread can take another's message between probe and receive. */
static void mprobe_traffic(int t)
{
    for (int it = 0; it < 20; it++) {
        int v = rank * 1000 + t * 100 + it;
        MPI_Request r;
        MPI_OK(MPI_Isend(&v, 1, MPI_INT, right, 100 + t, MPI_COMM_WORLD, &r));
        MPI_Message m;
        MPI_Status st;
        MPI_OK(MPI_Mprobe(left, 100 + t, MPI_COMM_WORLD, &m, &st));
        int got = -1;
        MPI_OK(MPI_Mrecv(&got, 1, MPI_INT, &m, MPI_STATUS_IGNORE));
        CHECK(got == left * 1000 + t * 100 + it, "thread %d: mrecv %d", t, got);
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
}

/* A blocking receive that only the next call of another thread of this rank can satisfy: thread 1
 * waits for its own rank's message, which thread 2 sends 30 ms later; thread 3 waits for a message
 * from the right that the right's thread 3 sends only after it got ours. A wait that kept the
 * library's lock would hang here. */
static void dependencies(int t)
{
    if (t == 1) {
        int v = -1;
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, rank, 7, dep_comm, MPI_STATUS_IGNORE));
        CHECK(v == rank + 7, "self dependency: got %d", v);
    } else if (t == 2) {
        sleep_ms(30);
        int v = rank + 7;
        MPI_OK(MPI_Send(&v, 1, MPI_INT, rank, 7, dep_comm));
    } else if (t == 3) {
        int v = rank, got = -1;
        if (rank % 2 == 0) {
            MPI_OK(MPI_Send(&v, 1, MPI_INT, left, 8, dep_comm));
            MPI_OK(MPI_Recv(&got, 1, MPI_INT, right, 8, dep_comm, MPI_STATUS_IGNORE));
        } else {
            MPI_OK(MPI_Recv(&got, 1, MPI_INT, right, 8, dep_comm, MPI_STATUS_IGNORE));
            MPI_OK(MPI_Send(&v, 1, MPI_INT, left, 8, dep_comm));
        }
        CHECK(got == right, "ring dependency: got %d from %d", got, right);
    }
}

/* Communicator creation in every thread at once, each over its own parent: the new communicators'
 * context ids are agreed concurrently and must differ, or the threads' traffic on them would mix
 * (the allreduce values and the ring tags tell the threads apart). */
static void creation(int t)
{
    for (int it = 0; it < 15; it++) {
        MPI_Comm d, sp, w;
        MPI_OK(MPI_Comm_dup(thread_comm[t], &d));
        MPI_OK(MPI_Comm_split(thread_comm[t], rank % 2, -rank, &sp));
        MPI_Group g;
        MPI_OK(MPI_Comm_group(thread_comm[t], &g));
        MPI_OK(MPI_Comm_create_group(thread_comm[t], g, it, &w));
        MPI_OK(MPI_Group_free(&g));
        MPI_Comm all[3] = {d, sp, w};
        for (int k = 0; k < 3; k++) {
            int n = 0, me = -1;
            MPI_OK(MPI_Comm_size(all[k], &n));
            MPI_OK(MPI_Comm_rank(all[k], &me));
            long v = t * 1000 + it * 10 + k, sum = -1;
            MPI_OK(MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, all[k]));
            CHECK(sum == v * n, "thread %d: allreduce on new communicator %d gave %ld, expected %ld",
                  t, k, sum, v * n);
            int out = t * 100 + it, in = -1;
            MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, (me + 1) % n, k, &in, 1, MPI_INT, (me + n - 1) % n,
                                k, all[k], MPI_STATUS_IGNORE));
            CHECK(in == out, "thread %d: ring on new communicator %d gave %d, expected %d", t, k, in,
                  out);
            MPI_OK(MPI_Comm_free(&all[k]));
        }
    }
}

static void *thread_main(void *arg)
{
    int t = (int)(intptr_t)arg;
    int flag = -1;
    MPI_OK(MPI_Is_thread_main(&flag));
    CHECK(flag == 0, "thread %d: MPI_Is_thread_main says %d", t, flag);
    ring_traffic(t);
    collectives(t);
    fan_in(t);
    mprobe_traffic(t);
    dependencies(t);
    creation(t);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1;
    MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    (void)tu_world_rank(); /* caches the rank before threads read it */
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d, expected MPI_THREAD_MULTIPLE", provided);
    CHECK(size <= 64, "at most 64 ranks");
    int q = -1, flag = -1;
    MPI_OK(MPI_Query_thread(&q));
    CHECK(q == MPI_THREAD_MULTIPLE, "MPI_Query_thread says %d", q);
    MPI_OK(MPI_Is_thread_main(&flag));
    CHECK(flag == 1, "MPI_Is_thread_main in main says %d", flag);
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    for (int t = 0; t < NT; t++)
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &thread_comm[t]));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &fan_comm));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dep_comm));

    pthread_t th[NT];
    for (int t = 1; t < NT; t++)
        CHECK(pthread_create(&th[t], NULL, thread_main, (void *)(intptr_t)t) == 0, "pthread_create");
    /* the main thread is thread 0 */
    ring_traffic(0);
    collectives(0);
    fan_in(0);
    mprobe_traffic(0);
    dependencies(0);
    creation(0);
    for (int t = 1; t < NT; t++)
        pthread_join(th[t], NULL);

    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int t = 0; t < NT; t++)
        MPI_OK(MPI_Comm_free(&thread_comm[t]));
    MPI_OK(MPI_Comm_free(&fan_comm));
    MPI_OK(MPI_Comm_free(&dep_comm));
    if (rank == 0)
        printf("threads: %d ranks x %d threads: ring, collectives, fan-in, mprobe, cross-thread "
               "waits and concurrent communicator creation passed\n", size, NT);
    MPI_Finalize();
    return 0;
}
