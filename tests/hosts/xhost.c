/* tests/hosts/xhost.c — a job whose ranks span hosts (tests/hosts/two_hosts.sh starts some of them in
 * network namespaces): every pair, itself included, exchanges messages of 0 B to 8 MiB with random
 * contents checked byte for byte (and the bytes past the end untouched); then wildcard receives, the
 * non-overtaking order of one sender's messages under MPI_ANY_SOURCE, a barrier, an allreduce and a
 * bcast from every root. Last, every rank prints which transport carries each peer:
 *     xhost: rank R host H peer P transport T
 * (T from credo_peer_transport: "shm", "ofi" or "self"; "unknown" when credo has no such call), and
 *     xhost: rank R verified M messages, 0 errors
 * The seed of the contents is argv[1] (or XHOST_SEED, else time and pid), printed by rank 0 at the
 * start and by any rank that finds a difference. XHOST_TRACE=1: every rank notes on stderr each step it
 * finishes, with the time since the start (where a job that hangs or crawls got to). Exit status: 0 when
 * no rank found an error. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <credo/stats.h>

#define GUARD 64            /* bytes past each receive that must stay untouched */
#define GUARD_BYTE 0xa5
#define ORDER_MSGS 64       /* messages per sender in the ordering round */

static const size_t sizes[] = {0, 1, 8, 4096, 65536, 1 << 20, 8 << 20};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static int me, np;
static uint64_t seed;
static long errors, verified;
static char host[256];
static int tracing;
static double t0;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void trace(const char *what, long arg)
{
    if (tracing) {
        fprintf(stderr, "xhost: rank %d: %s %ld done at %.3f s\n", me, what, arg, now() - t0);
        fflush(stderr);
    }
}

/* splitmix64: the contents of message (src, dst, tag, size) are a pure function of those and the seed. */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static uint64_t stream_of(int src, int dst, int tag, size_t size)
{
    return mix(seed ^ mix(((uint64_t)src << 48) ^ ((uint64_t)dst << 32) ^ ((uint64_t)(unsigned)tag << 8)) ^
               mix(size));
}

static void fill(unsigned char *b, size_t n, int src, int dst, int tag)
{
    uint64_t s = stream_of(src, dst, tag, n);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t v = mix(s + i);
        memcpy(b + i, &v, 8);
    }
    if (i < n) {
        uint64_t v = mix(s + i);
        memcpy(b + i, &v, n - i);
    }
}

static void fail(const char *what, int src, int dst, int tag, size_t size, const char *detail)
{
    errors++;
    fprintf(stderr, "xhost: rank %d (host %s) FAIL %s: message %d -> %d tag %d size %zu: %s (seed %llu)\n", me,
            host, what, src, dst, tag, size, detail, (unsigned long long)seed);
}

/* Checks buf (size bytes received, GUARD more after it) against what src sent and the status. */
static void check(const unsigned char *buf, size_t size, int src, int dst, int tag, const MPI_Status *st,
                  const char *what)
{
    char d[160];
    int count = -1;
    if (st) {
        MPI_Get_count(st, MPI_BYTE, &count);
        if (count != (int)size || st->MPI_SOURCE != src || st->MPI_TAG != tag) {
            snprintf(d, sizeof d, "status says source %d tag %d count %d", st->MPI_SOURCE, st->MPI_TAG, count);
            fail(what, src, dst, tag, size, d);
            return;
        }
    }
    unsigned char *want = malloc(size ? size : 1);
    fill(want, size, src, dst, tag);
    if (size && memcmp(buf, want, size) != 0) {
        size_t i = 0;
        while (buf[i] == want[i])
            i++;
        snprintf(d, sizeof d, "first difference at byte %zu: got 0x%02x, expected 0x%02x", i, buf[i], want[i]);
        fail(what, src, dst, tag, size, d);
    } else {
        for (size_t g = 0; g < GUARD; g++)
            if (buf[size + g] != GUARD_BYTE) {
                snprintf(d, sizeof d, "byte %zu past the end was overwritten", g);
                fail(what, src, dst, tag, size, d);
                break;
            }
    }
    verified++;
    free(want);
}

static unsigned char *rbuf_alloc(size_t size)
{
    unsigned char *b = malloc(size + GUARD);
    if (!b) {
        fprintf(stderr, "xhost: rank %d: out of memory\n", me);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(b, GUARD_BYTE, size + GUARD);
    return b;
}

/* Every size: each rank sends to every rank (itself too) and receives from every rank at once, with
 * the receive posted by source and tag. */
static void pairs(void)
{
    unsigned char **sb = calloc((size_t)np, sizeof *sb), **rb = calloc((size_t)np, sizeof *rb);
    MPI_Request *rq = malloc(2 * (size_t)np * sizeof *rq);
    MPI_Status *st = malloc(2 * (size_t)np * sizeof *st);
    for (size_t s = 0; s < NSIZES; s++) {
        size_t n = sizes[s];
        int tag = 100 + (int)s;
        for (int p = 0; p < np; p++) {
            rb[p] = rbuf_alloc(n);
            MPI_Irecv(rb[p], (int)n, MPI_BYTE, p, tag, MPI_COMM_WORLD, &rq[p]);
        }
        for (int i = 0; i < np; i++) {
            int p = (me + i) % np; /* staggered, so no rank is everybody's first target */
            sb[p] = malloc(n ? n : 1);
            fill(sb[p], n, me, p, tag);
            MPI_Isend(sb[p], (int)n, MPI_BYTE, p, tag, MPI_COMM_WORLD, &rq[np + p]);
        }
        MPI_Waitall(2 * np, rq, st);
        for (int p = 0; p < np; p++) {
            check(rb[p], n, p, me, tag, &st[p], "pairwise exchange");
            free(rb[p]);
            free(sb[p]);
        }
        trace("pairwise exchange of size", (long)n);
    }
    free(sb);
    free(rb);
    free(rq);
    free(st);
}

/* Wildcard receives: every rank sends each other rank one message per round, of a size that depends on
 * the pair and the round; the receiver takes them with MPI_ANY_SOURCE and MPI_ANY_TAG (round 0), a
 * source with MPI_ANY_TAG (round 1), MPI_ANY_SOURCE with the tag (round 2), after MPI_Probe (round 3). */
static void wildcards(void)
{
    size_t max = sizes[NSIZES - 1];
    unsigned char *rb = rbuf_alloc(max), **sb = calloc((size_t)np, sizeof *sb);
    MPI_Request *rq = malloc((size_t)np * sizeof *rq);
    int *seen = calloc((size_t)np, sizeof *seen);
    for (int round = 0; round < 4; round++) {
        int tag = 200 + round;
        for (int p = 0; p < np; p++) {
            rq[p] = MPI_REQUEST_NULL;
            if (p == me)
                continue;
            size_t n = sizes[(size_t)(me * 3 + p + round) % NSIZES];
            sb[p] = malloc(n ? n : 1);
            fill(sb[p], n, me, p, tag);
            MPI_Isend(sb[p], (int)n, MPI_BYTE, p, tag, MPI_COMM_WORLD, &rq[p]);
        }
        memset(seen, 0, (size_t)np * sizeof *seen);
        for (int k = 0; k < np - 1; k++) {
            MPI_Status st;
            int from = (me + 1 + k) % np;
            memset(rb, GUARD_BYTE, max + GUARD);
            if (round == 0)
                MPI_Recv(rb, (int)max, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            else if (round == 1)
                MPI_Recv(rb, (int)max, MPI_BYTE, from, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            else if (round == 2)
                MPI_Recv(rb, (int)max, MPI_BYTE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st);
            else {
                int count;
                MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                MPI_Get_count(&st, MPI_BYTE, &count);
                free(rb);
                rb = rbuf_alloc((size_t)count);
                MPI_Recv(rb, count, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
            }
            int src = st.MPI_SOURCE;
            if (src < 0 || src >= np || src == me || seen[src]++) {
                char d[64];
                snprintf(d, sizeof d, "unexpected source %d", src);
                fail("wildcard receive", src, me, tag, 0, d);
                continue;
            }
            size_t n = sizes[(size_t)(src * 3 + me + round) % NSIZES];
            check(rb, n, src, me, tag, &st, "wildcard receive");
            if (round == 3) {
                free(rb);
                rb = rbuf_alloc(max);
            }
        }
        MPI_Waitall(np, rq, MPI_STATUSES_IGNORE);
        for (int p = 0; p < np; p++)
            if (p != me)
                free(sb[p]);
        /* No rank sends round r + 1 before all took round r: a wildcard must not match the next round. */
        MPI_Barrier(MPI_COMM_WORLD);
        trace("wildcard round", round);
    }
    free(rb);
    free(sb);
    free(rq);
    free(seen);
}

/* Non-overtaking: ORDER_MSGS messages from each sender (same tag, small and large mixed) must be
 * received in the order sent, also when taken with MPI_ANY_SOURCE. */
static void ordering(void)
{
    int tag = 300, total = (np - 1) * ORDER_MSGS;
    MPI_Request *rq = malloc((size_t)total * sizeof *rq);
    unsigned char **sb = calloc((size_t)total, sizeof *sb);
    int *next = calloc((size_t)np, sizeof *next), k = 0;
    for (int i = 0; i < ORDER_MSGS; i++)
        for (int p = 0; p < np; p++) {
            if (p == me)
                continue;
            size_t n = (i % 8 == 7) ? 65536 + (size_t)i : 8 + (size_t)i; /* every 8th one rendezvous-sized */
            sb[k] = malloc(n);
            fill(sb[k], n, me, p, tag + i);
            memcpy(sb[k], &i, sizeof i); /* the sequence number leads */
            MPI_Isend(sb[k], (int)n, MPI_BYTE, p, tag, MPI_COMM_WORLD, &rq[k]);
            k++;
        }
    unsigned char *rb = rbuf_alloc(65536 + ORDER_MSGS);
    for (int j = 0; j < total; j++) {
        MPI_Status st;
        int count, seq;
        MPI_Recv(rb, 65536 + ORDER_MSGS, MPI_BYTE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_BYTE, &count);
        int src = st.MPI_SOURCE;
        memcpy(&seq, rb, sizeof seq);
        if (src < 0 || src >= np || src == me || seq != next[src]) {
            char d[96];
            snprintf(d, sizeof d, "from source %d: sequence number %d, expected %d", src, seq,
                     src >= 0 && src < np ? next[src] : -1);
            fail("ordering", src, me, tag, (size_t)count, d);
            continue;
        }
        next[src]++;
        size_t n = (seq % 8 == 7) ? 65536 + (size_t)seq : 8 + (size_t)seq;
        unsigned char *want = malloc(n);
        fill(want, n, src, me, tag + seq);
        memcpy(want, &seq, sizeof seq);
        if ((size_t)count != n || memcmp(rb, want, n) != 0)
            fail("ordering", src, me, tag, n, "contents or length differ");
        verified++;
        free(want);
    }
    MPI_Waitall(total, rq, MPI_STATUSES_IGNORE);
    trace("ordering, messages per sender", ORDER_MSGS);
    for (int j = 0; j < total; j++)
        free(sb[j]);
    free(sb);
    free(rq);
    free(next);
    free(rb);
}

static void collectives(void)
{
    enum { N = 1000 };
    MPI_Barrier(MPI_COMM_WORLD);
    long in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = (long)(me + 1) * (i + 1);
    MPI_Allreduce(in, out, N, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        if (out[i] != (long)np * (np + 1) / 2 * (i + 1)) {
            char d[96];
            snprintf(d, sizeof d, "element %d is %ld, expected %ld", i, out[i], (long)np * (np + 1) / 2 * (i + 1));
            fail("allreduce", -1, me, 0, N * sizeof(long), d);
            break;
        }
    verified++;
    size_t n = 1 << 20;
    unsigned char *b = rbuf_alloc(n);
    for (int root = 0; root < np; root++) {
        memset(b, GUARD_BYTE, n + GUARD);
        if (me == root)
            fill(b, n, root, -1, 400);
        MPI_Bcast(b, (int)n, MPI_BYTE, root, MPI_COMM_WORLD);
        check(b, n, root, -1, 400, NULL, "bcast");
        trace("bcast from root", root);
    }
    free(b);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void transports(void)
{
    for (int p = 0; p < np; p++) {
        char name[32] = "unknown";
#ifdef CREDO_HAVE_PEER_TRANSPORT
        if (credo_peer_transport(p, name, sizeof name) != 0)
            snprintf(name, sizeof name, "error");
#endif
        printf("xhost: rank %d host %s peer %d transport %s\n", me, host, p, name);
    }
    fflush(stdout);
}

int main(int argc, char **argv)
{
    t0 = now();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    tracing = getenv("XHOST_TRACE") && atoi(getenv("XHOST_TRACE")) > 0;
    if (gethostname(host, sizeof host - 1) != 0)
        snprintf(host, sizeof host, "?");
    unsigned long long s = 0;
    if (me == 0) {
        const char *e = argc > 1 ? argv[1] : getenv("XHOST_SEED");
        s = e && *e ? strtoull(e, NULL, 0) : (unsigned long long)time(NULL) * 1000003ULL ^ (unsigned long long)getpid();
        printf("xhost: %d ranks, seed %llu\n", np, s);
        fflush(stdout);
    }
    MPI_Bcast(&s, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    seed = s;
    trace("start-up (MPI_Init, bcast)", 0);

    pairs();
    wildcards();
    ordering();
    collectives();

    long all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    transports();
    printf("xhost: rank %d verified %ld messages, %ld errors\n", me, verified, errors);
    fflush(stdout);
    MPI_Finalize();
    return all != 0;
}
