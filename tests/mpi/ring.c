/* tests/mpi/ring.c — job-size coverage (registered at np 1, 2, 3, 8, 16): a token ring both ways,
 * all-pairs exchanges (self included) with fixed and wildcard sources, and Sendrecv shifts. */
#include "testutil.h"

static int rank, size;

/* The token travels 0 -> 1 -> ... -> 0 (step +1) or the other way (step -1); every rank adds
 * rank + 1 to it, and the payload around it must arrive intact at each hop. */
static void token_ring(int step, size_t bytes, unsigned salt) {
    int right = (rank + step + size) % size, left = (rank - step + size) % size;
    unsigned char *buf = tu_xmalloc(bytes + sizeof(long));
    long token;
    MPI_Status st;
    if (rank == 0) {
        MPI_Request rq;
        token = 1;
        memcpy(buf, &token, sizeof token);
        tu_fill(buf + sizeof token, bytes, 0, salt);
        MPI_OK(MPI_Isend(buf, (int)(bytes + sizeof token), MPI_BYTE, right, 1, MPI_COMM_WORLD,
                         &rq));
        unsigned char *in = tu_xmalloc(bytes + sizeof token);
        MPI_OK(MPI_Recv(in, (int)(bytes + sizeof token), MPI_BYTE, left, 1, MPI_COMM_WORLD, &st));
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        memcpy(&token, in, sizeof token);
        long want = (long)size * (size + 1) / 2; /* rank 0 started it at 0 + 1 */
        CHECK(token == want, "ring (step %d, %zu B): token %ld, expected %ld", step, bytes, token,
              want);
        CHECK(tu_verify(in + sizeof token, bytes, 0, salt) == TU_OK_INDEX,
              "ring (step %d, %zu B): payload corrupt after a full round", step, bytes);
        free(in);
    } else {
        MPI_OK(MPI_Recv(buf, (int)(bytes + sizeof(long)), MPI_BYTE, left, 1, MPI_COMM_WORLD, &st));
        CHECK(st.MPI_SOURCE == left, "ring: message from %d, expected %d", st.MPI_SOURCE, left);
        CHECK(tu_verify(buf + sizeof token, bytes, 0, salt) == TU_OK_INDEX,
              "ring (step %d, %zu B): payload corrupt at hop %d", step, bytes, rank);
        memcpy(&token, buf, sizeof token);
        token += rank + 1;
        memcpy(buf, &token, sizeof token);
        MPI_OK(MPI_Send(buf, (int)(bytes + sizeof(long)), MPI_BYTE, right, 1, MPI_COMM_WORLD));
    }
    free(buf);
}

/* Message size from `src` to `dst`: distinct per pair, small or rendezvous-sized. */
static size_t pair_bytes(int src, int dst, int large) {
    size_t n = 100 + (size_t)((src * 31 + dst * 17) % 57);
    return large ? n + 40000 : n;
}

/* Everyone sends to everyone (itself included); `any` receives with MPI_ANY_SOURCE and sorts the
 * messages out by status. */
static void all_pairs(int large, int any, unsigned salt) {
    unsigned char **in = tu_xmalloc((size_t)size * sizeof *in),
                  **out = tu_xmalloc((size_t)size * sizeof *out);
    MPI_Request *rq = tu_xmalloc(2 * (size_t)size * sizeof *rq);
    MPI_Status *st = tu_xmalloc(2 * (size_t)size * sizeof *st);
    size_t maxn = pair_bytes(0, 0, large) + 64;
    for (int p = 0; p < size; p++) {
        in[p] = tu_xmalloc(maxn);
        out[p] = tu_xmalloc(pair_bytes(rank, p, large));
        tu_fill(out[p], pair_bytes(rank, p, large), rank, salt + (unsigned)p);
        MPI_OK(MPI_Irecv(in[p], (int)maxn, MPI_BYTE, any ? MPI_ANY_SOURCE : p, 2, MPI_COMM_WORLD,
                         &rq[p]));
    }
    for (int i = 0; i < size; i++) {
        int p = (rank + i) % size; /* staggered so not everyone hits rank 0 first */
        MPI_OK(MPI_Isend(out[p], (int)pair_bytes(rank, p, large), MPI_BYTE, p, 2, MPI_COMM_WORLD,
                         &rq[size + p]));
    }
    MPI_OK(MPI_Waitall(2 * size, rq, st));
    int *seen = tu_xcalloc((size_t)size, sizeof *seen);
    for (int p = 0; p < size; p++) {
        int src = st[p].MPI_SOURCE, count;
        CHECK(src >= 0 && src < size && !seen[src]++, "all-pairs: source %d twice or invalid",
              src);
        CHECK(any || src == p, "all-pairs: receive for %d got a message from %d", p, src);
        MPI_OK(MPI_Get_count(&st[p], MPI_BYTE, &count));
        size_t n = pair_bytes(src, rank, large);
        CHECK((size_t)count == n, "all-pairs %d->%d: %d bytes, expected %zu", src, rank, count, n);
        size_t bad = tu_verify(in[p], n, src, salt + (unsigned)rank);
        CHECK(bad == TU_OK_INDEX, "all-pairs %d->%d: wrong byte at %zu", src, rank, bad);
    }
    for (int p = 0; p < size; p++) {
        free(in[p]);
        free(out[p]);
    }
    free(seen);
    free(in);
    free(out);
    free(rq);
    free(st);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* keeps the next round out of this round's wildcards */
}

static void shifts(void) {
    for (int k = 1; k < size; k++) {
        int dst = (rank + k) % size, src = (rank - k + size) % size;
        int out[2] = {rank, k}, in[2] = {-1, -1};
        MPI_Status st;
        MPI_OK(MPI_Sendrecv(out, 2, MPI_INT, dst, 3, in, 2, MPI_INT, src, 3, MPI_COMM_WORLD, &st));
        CHECK(in[0] == src && in[1] == k && st.MPI_SOURCE == src, "shift %d: got %d/%d from %d",
              k, in[0], in[1], st.MPI_SOURCE);
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int step = 1; step >= -1; step -= 2) {
        token_ring(step, 16, 10);
        token_ring(step, 100000, 11);
    }
    tu_note("token ring both ways, 16 B and 100000 B payloads, %d ranks", size);
    unsigned salt = 100;
    for (int large = 0; large <= 1; large++)
        for (int any = 0; any <= 1; any++, salt += 100)
            all_pairs(large, any, salt);
    tu_note("all-pairs incl. self, eager and rendezvous, fixed and ANY_SOURCE receives");
    shifts();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    tu_note("Sendrecv shifts by 1..%d", size - 1);
    tu_note("ring: all checks passed on %d ranks", size);
    MPI_Finalize();
    return 0;
}
