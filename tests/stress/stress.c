/* tests/stress/stress.c — the randomized, byte-verified stress test of every point-to-point path:
 * random sizes across every protocol boundary, random peers, modes, wildcards, cancels and offsets.
 *
 * Every rank draws the same plan for a round from (seed, round): who sends how many bytes to whom, at
 * which buffer offsets, with which send call (Isend, Issend, Send, Ssend) and which receive (posted
 * before the sends or after them; specific, MPI_ANY_SOURCE, Probe + Recv, Mprobe + Mrecv, Irecv that
 * is cancelled and posted again). Sizes cluster at credo's protocol boundaries: the eager limit, the
 * prepush limit, the pipelined copy's chunk and its multiples, up to several MiB, so each round moves
 * messages over every path at once; ranks compute (or sleep) for random times between MPI_Testall
 * calls, which sends large messages down the paths that depend on whether a peer is inside MPI. A
 * collective (Bcast, Allreduce, Alltoallv, Allgather; verified too) runs while the round's receives
 * are posted. Every byte of every message is compared with a pattern that depends on seed, round,
 * sender and message, and the bytes around each receive buffer must stay untouched.
 *
 * A corrupt message is counted, the first few are described (which bytes, and whether they are
 * another message's), and the run ends with a non-zero status and the seed that replays it. Standard
 * MPI C: it builds against Open MPI and MPICH too; credo's own path counters come with CREDO_STATS. */
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef CREDO_STATS
#include <credo/stats.h>
#endif

#define PAGE 4096u
#define GUARD 64u     /* bytes checked on each side of a receive buffer */
#define GUARD_BYTE 0x5a
#define MAX_REPORTS 8 /* corrupt messages described per rank */

static int rank, np;
static uint64_t seed;

/* ---- deterministic randomness (splitmix64) ---- */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
typedef struct {
    uint64_t s;
} rng;
static uint64_t rnext(rng *r) { return mix(r->s++ * 0x2545f4914f6cdd1dull); }
static uint64_t rbelow(rng *r, uint64_t n) { return n ? rnext(r) % n : 0; }
static int chance(rng *r, unsigned percent) { return rbelow(r, 100) < percent; }

/* ---- the byte pattern: word i of message `key` is mix(key + i) ---- */
static void pattern_fill(unsigned char *p, size_t n, uint64_t key)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w = mix(key + i / 8);
        memcpy(p + i, &w, 8);
    }
    if (i < n) {
        uint64_t w = mix(key + i / 8);
        memcpy(p + i, &w, n - i);
    }
}

/* ---- the plan ---- */
enum { S_ISEND, S_ISSEND, S_SEND, S_SSEND, S_KINDS };
enum { R_PRE, R_PRE_ANY, R_PRE_CANCEL, R_LATE_RECV, R_LATE_ANY, R_LATE_PROBE, R_LATE_MPROBE, R_LATE_IRECV };
static const char *const send_name[] = {"Isend", "Issend", "Send", "Ssend"};
static const char *const recv_name[] = {"Irecv before", "Irecv(ANY_SOURCE) before", "Irecv+Cancel",
                                        "Recv after", "Recv(ANY_SOURCE) after", "Probe+Recv after",
                                        "Mprobe+Mrecv after", "Irecv+Wait after"};

typedef struct {
    int src, dst, tag;
    size_t size;
    unsigned soff, roff; /* buffer offsets from a page boundary */
    int smode, rmode;
    uint64_t key;
} msg;

static size_t max_size = 4u << 20, min_size = 0;
static int max_msgs = 4;
static int sleepy = 1; /* some compute phases sleep (a rank away from MPI for a while) */

/* A size near one of credo's protocol boundaries, or anywhere up to max_size. */
static size_t draw_size(rng *r)
{
    static const size_t edges[] = {512, 131072, 262144, 393216, 524288, 1048576, 2097152};
    size_t s;
    switch (rbelow(r, 10)) {
    case 0: s = rbelow(r, 3) ? rbelow(r, 65) : 0; break;                    /* tiny, often 0 */
    case 1: s = 448 + rbelow(r, 129); break;                                /* eager limit */
    case 2: s = 513 + rbelow(r, 16 * 1024); break;                          /* small rendezvous */
    case 3: s = 16 * 1024 + rbelow(r, 112 * 1024); break;                   /* prepush range */
    case 4: { size_t e = edges[rbelow(r, sizeof edges / sizeof *edges)];     /* an edge, +- a few */
        s = e + rbelow(r, 129) - 64; break; }
    case 5: s = (size_t)1 << rbelow(r, 23); break;                          /* powers of two */
    case 6: case 7: s = 128 * 1024 + rbelow(r, 2 * 1024 * 1024); break;    /* the pipelined copy */
    default: s = rbelow(r, max_size + 1); break;
    }
    if (s > max_size)
        s = max_size;
    if (s < min_size)
        s = min_size + rbelow(r, max_size - min_size + 1);
    return s;
}

/* Offsets: mostly the first cache line of a page (malloc gives +16), sometimes just before a page
 * boundary, so a buffer's head and tail cross pages differently on both sides. */
static unsigned draw_offset(rng *r)
{
    switch (rbelow(r, 4)) {
    case 0: return 0;
    case 1: return 16;
    case 2: return (unsigned)rbelow(r, 64);
    default: return PAGE - 1 - (unsigned)rbelow(r, 64);
    }
}

static int plan_round(uint64_t round, msg **out)
{
    rng r = {mix(seed ^ mix(round + 1))};
    int cap = np * max_msgs, n = 0;
    msg *m = calloc((size_t)cap, sizeof *m);
    if (!m) {
        fprintf(stderr, "stress: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int s = 0; s < np; s++) {
        int k = 1 + (int)rbelow(&r, (uint64_t)max_msgs);
        for (int i = 0; i < k; i++, n++) {
            msg *x = &m[n];
            x->src = s;
            x->dst = chance(&r, 5) ? s : (np > 1 ? (s + 1 + (int)rbelow(&r, (uint64_t)np - 1)) % np : s);
            x->tag = n;
            x->size = draw_size(&r);
            x->soff = draw_offset(&r);
            x->roff = draw_offset(&r);
            x->rmode = (int)rbelow(&r, 8);
            /* a blocking send only towards a receive posted before the sends (and never to self,
             * where nothing else would post it) */
            int pre = x->rmode <= R_PRE_CANCEL;
            x->smode = (int)rbelow(&r, pre && x->dst != s ? S_KINDS : 2);
            x->key = mix(seed * 0x100000001b3ull ^ mix(round << 20 | (uint64_t)n));
        }
    }
    *out = m;
    return n;
}

/* ---- compute between tests ---- */
static volatile uint64_t sink;
static void compute(rng *r)
{
    uint64_t kind = rbelow(r, 100);
    if (kind < 40)
        return;
    if (sleepy && kind >= 97) { /* away from MPI for long: the peer must not wait for us */
        usleep((useconds_t)(200 + rbelow(r, 2000)));
        return;
    }
    uint64_t n = 1000 + rbelow(r, 60000), x = 0;
    for (uint64_t i = 0; i < n; i++)
        x = x * 6364136223846793005ull + i;
    sink = x;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *xalloc(size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, PAGE, n ? n : 1)) {
        fprintf(stderr, "stress rank %d: out of memory (%zu bytes)\n", rank, n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

#define MPI_OK(call)                                                                               \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != MPI_SUCCESS) {                                                                  \
            fprintf(stderr, "stress rank %d: %s returned %d (seed %llu)\n", rank, #call, rc_,      \
                    (unsigned long long)seed);                                                     \
            MPI_Abort(MPI_COMM_WORLD, 2);                                                          \
        }                                                                                          \
    } while (0)

/* ---- verification ---- */
static uint64_t corrupt, reports;

static void __attribute__((format(printf, 2, 3))) report(uint64_t round, const char *fmt, ...)
{
    corrupt++;
    if (reports++ >= MAX_REPORTS)
        return;
    char line[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    printf("CORRUPT rank %d round %llu: %s\n", rank, (unsigned long long)round, line);
    fflush(stdout);
}

/* Whose bytes are these? Looks for the wrong block's first word at the start of another message of
 * the round (the corruption issue 27 found delivered the next message's head). */
static int whose(const msg *m, int n, const unsigned char *bad)
{
    uint64_t w;
    memcpy(&w, bad, 8);
    for (int i = 0; i < n; i++)
        if (m[i].size >= 8 && w == mix(m[i].key))
            return i;
    return -1;
}

static void verify(uint64_t round, const msg *m, int n, const msg *x, const unsigned char *base, const MPI_Status *st,
                   unsigned char *scratch)
{
    const unsigned char *buf = base + x->roff;
    int count = -1;
    MPI_Get_count(st, MPI_BYTE, &count);
    if (st->MPI_SOURCE != x->src || st->MPI_TAG != x->tag || count != (int)x->size)
        report(round, "message %d -> %d tag %d (%zu bytes): status says source %d tag %d count %d", x->src, x->dst,
               x->tag, x->size, st->MPI_SOURCE, st->MPI_TAG, count);
    for (unsigned i = 0; i < GUARD; i++)
        if (buf[-1 - (int)i] != GUARD_BYTE || buf[x->size + i] != GUARD_BYTE) {
            report(round, "message %d -> %d tag %d (%zu bytes, offset %u): bytes around the buffer overwritten",
                   x->src, x->dst, x->tag, x->size, x->roff);
            break;
        }
    pattern_fill(scratch, x->size, x->key);
    if (memcmp(buf, scratch, x->size) == 0)
        return;
    size_t first = 0, last = x->size - 1, bad = 0;
    while (buf[first] == scratch[first])
        first++;
    while (buf[last] == scratch[last])
        last--;
    for (size_t i = first; i <= last; i++)
        bad += buf[i] != scratch[i];
    int other = last - first >= 8 ? whose(m, n, buf + first) : -1;
    char also[120] = "";
    if (other >= 0)
        snprintf(also, sizeof also, "; they start with message %d -> %d tag %d's first bytes", m[other].src,
                 m[other].dst, m[other].tag);
    report(round,
           "message %d -> %d tag %d, %zu bytes (%s / %s, offsets %u / %u): %zu wrong bytes in [%zu, %zu]%s",
           x->src, x->dst, x->tag, x->size, send_name[x->smode], recv_name[x->rmode], x->soff, x->roff, bad, first,
           last, also);
}

/* ---- one round ---- */
typedef struct {
    unsigned char *base; /* allocation; the message starts at base + GUARD + offset */
    MPI_Request req;
    MPI_Status st;
    int done;
} slot;

static size_t alloc_bytes(const msg *x) { return GUARD + x->roff + x->size + GUARD + PAGE; }
static unsigned char *rbuf(slot *s, const msg *x) { return s->base + GUARD + x->roff; }

static void collective(uint64_t round, rng *r, unsigned char *scratch)
{
    int kind = (int)rbelow(r, 5);
    if (kind == 0) { /* Bcast of up to 1 MiB from a random root */
        size_t n = rbelow(r, 1u << 20);
        int root = (int)rbelow(r, (uint64_t)np);
        unsigned char *b = xalloc(n + 64);
        uint64_t key = mix(round * 7 + 1);
        if (rank == root)
            pattern_fill(b + 8, n, key);
        MPI_OK(MPI_Bcast(b + 8, (int)n, MPI_BYTE, root, MPI_COMM_WORLD));
        pattern_fill(scratch, n, key);
        if (memcmp(b + 8, scratch, n))
            report(round, "MPI_Bcast of %zu bytes from %d delivered wrong bytes", n, root);
        free(b);
    } else if (kind == 1) { /* Allreduce of a few thousand longs */
        int n = 1 + (int)rbelow(r, 5000);
        long *in = malloc((size_t)n * sizeof *in), *out = malloc((size_t)n * sizeof *out);
        for (int i = 0; i < n; i++)
            in[i] = (long)(mix(round + (uint64_t)i) % 1000) * (rank + 1);
        MPI_OK(MPI_Allreduce(in, out, n, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
        for (int i = 0; i < n; i++)
            if (out[i] != (long)(mix(round + (uint64_t)i) % 1000) * np * (np + 1) / 2) {
                report(round, "MPI_Allreduce of %d longs: element %d is %ld", n, i, out[i]);
                break;
            }
        free(in);
        free(out);
    } else if (kind == 2) { /* Alltoallv with random counts (same on every rank: drawn from r) */
        int *cnt = malloc((size_t)np * np * sizeof *cnt);
        for (int i = 0; i < np * np; i++)
            cnt[i] = chance(r, 20) ? 0 : (int)rbelow(r, 300000);
        int *sc = malloc((size_t)np * sizeof *sc), *sd = malloc((size_t)np * sizeof *sd);
        int *rc = malloc((size_t)np * sizeof *rc), *rd = malloc((size_t)np * sizeof *rd);
        size_t st = 0, rt = 0;
        for (int j = 0; j < np; j++) {
            sc[j] = cnt[rank * np + j], sd[j] = (int)st, st += (size_t)sc[j];
            rc[j] = cnt[j * np + rank], rd[j] = (int)rt, rt += (size_t)rc[j];
        }
        unsigned char *sb = xalloc(st + 1), *rb = xalloc(rt + 1);
        for (int j = 0; j < np; j++)
            pattern_fill(sb + sd[j], (size_t)sc[j], mix(round ^ (uint64_t)(rank * np + j) << 32));
        MPI_OK(MPI_Alltoallv(sb, sc, sd, MPI_BYTE, rb, rc, rd, MPI_BYTE, MPI_COMM_WORLD));
        for (int j = 0; j < np; j++) {
            pattern_fill(scratch, (size_t)rc[j], mix(round ^ (uint64_t)(j * np + rank) << 32));
            if (memcmp(rb + rd[j], scratch, (size_t)rc[j])) {
                report(round, "MPI_Alltoallv: %d bytes from %d wrong", rc[j], j);
                break;
            }
        }
        free(sb), free(rb), free(cnt), free(sc), free(sd), free(rc), free(rd);
    } else if (kind == 3) { /* Allgather of up to 64 KiB per rank */
        size_t n = rbelow(r, 65536);
        unsigned char *sb = xalloc(n + 1), *rb = xalloc(n * (size_t)np + 1);
        pattern_fill(sb, n, mix(round * 31 + (uint64_t)rank));
        MPI_OK(MPI_Allgather(sb, (int)n, MPI_BYTE, rb, (int)n, MPI_BYTE, MPI_COMM_WORLD));
        for (int j = 0; j < np; j++) {
            pattern_fill(scratch, n, mix(round * 31 + (uint64_t)j));
            if (memcmp(rb + (size_t)j * n, scratch, n)) {
                report(round, "MPI_Allgather: %zu bytes from %d wrong", n, j);
                break;
            }
        }
        free(sb), free(rb);
    } /* kind 4: none this round */
}

static uint64_t moved_msgs, moved_bytes, cancelled;

/* Completes what it can of reqs (blocking: at least one, with MPI_Waitsome, else MPI_Testsome, or
 * MPI_Waitall now and then) and keeps each receive's status; returns 0 once none is left. */
static int drain(MPI_Request *reqs, const int *which, int nreq, slot *sl, int block)
{
    int out = 0, left = 0;
    for (int k = 0; k < nreq; k++)
        left += reqs[k] != MPI_REQUEST_NULL;
    if (!left)
        return 0;
    int *idx = malloc((size_t)nreq * sizeof *idx);
    MPI_Status *st = malloc((size_t)nreq * sizeof *st);
    if (block && left <= 2) {
        MPI_OK(MPI_Waitall(nreq, reqs, st)); /* null entries get an empty status: skip those */
        for (int k = 0; k < nreq; k++)
            if (which[k] >= 0 && !sl[which[k]].done) {
                sl[which[k]].st = st[k];
                sl[which[k]].done = 1;
            }
        out = 0;
    } else {
        if (block)
            MPI_OK(MPI_Waitsome(nreq, reqs, &out, idx, st));
        else
            MPI_OK(MPI_Testsome(nreq, reqs, &out, idx, st));
        for (int j = 0; j < out && out != MPI_UNDEFINED; j++)
            if (which[idx[j]] >= 0) {
                sl[which[idx[j]]].st = st[j];
                sl[which[idx[j]]].done = 1;
            }
    }
    free(idx), free(st);
    for (int k = 0; k < nreq; k++)
        if (reqs[k] != MPI_REQUEST_NULL)
            return 1;
    return 0;
}

static void round_run(uint64_t round, unsigned char *scratch)
{
    msg *m;
    int n = plan_round(round, &m);
    slot *sl = calloc((size_t)n, sizeof *sl);
    MPI_Request *reqs = malloc((size_t)n * 2 * sizeof *reqs);
    int *which = malloc((size_t)n * 2 * sizeof *which);
    int nreq = 0;
    rng r = {mix(seed + round * 1000003u + (uint64_t)rank * 7919u)}; /* this rank's own choices */

    /* receives posted before anything is sent */
    for (int i = 0; i < n; i++) {
        msg *x = &m[i];
        if (x->dst != rank)
            continue;
        sl[i].base = xalloc(alloc_bytes(x));
        memset(sl[i].base, GUARD_BYTE, alloc_bytes(x));
        if (x->rmode <= R_PRE_CANCEL) {
            int src = x->rmode == R_PRE_ANY ? MPI_ANY_SOURCE : x->src;
            MPI_OK(MPI_Irecv(rbuf(&sl[i], x), (int)x->size, MPI_BYTE, src, x->tag, MPI_COMM_WORLD, &sl[i].req));
            reqs[nreq] = sl[i].req, which[nreq++] = i;
        }
    }
    collective(round, &(rng){mix(seed ^ round * 77)}, scratch);

    /* sends, in plan order; compute now and then */
    unsigned char **sbuf = calloc((size_t)n, sizeof *sbuf);
    for (int i = 0; i < n; i++) {
        msg *x = &m[i];
        if (x->src != rank)
            continue;
        sbuf[i] = xalloc(x->soff + x->size + 1);
        pattern_fill(sbuf[i] + x->soff, x->size, x->key);
        void *b = sbuf[i] + x->soff;
        int c = (int)x->size;
        switch (x->smode) {
        case S_ISEND:
            MPI_OK(MPI_Isend(b, c, MPI_BYTE, x->dst, x->tag, MPI_COMM_WORLD, &reqs[nreq]));
            which[nreq++] = -1 - i;
            break;
        case S_ISSEND:
            MPI_OK(MPI_Issend(b, c, MPI_BYTE, x->dst, x->tag, MPI_COMM_WORLD, &reqs[nreq]));
            which[nreq++] = -1 - i;
            break;
        case S_SEND: MPI_OK(MPI_Send(b, c, MPI_BYTE, x->dst, x->tag, MPI_COMM_WORLD)); break;
        default: MPI_OK(MPI_Ssend(b, c, MPI_BYTE, x->dst, x->tag, MPI_COMM_WORLD)); break;
        }
        if (chance(&r, 30))
            compute(&r);
    }

    /* receives posted after the sends (their senders used Isend or Issend, so nothing blocks on
     * them), with tests of the outstanding requests and compute between */
    for (int i = 0; i < n; i++) {
        msg *x = &m[i];
        if (x->dst != rank || x->rmode <= R_PRE_CANCEL)
            continue;
        void *b = rbuf(&sl[i], x);
        int c = (int)x->size;
        if (chance(&r, 30)) {
            compute(&r);
            drain(reqs, which, nreq, sl, 0);
        }
        switch (x->rmode) {
        case R_LATE_RECV: MPI_OK(MPI_Recv(b, c, MPI_BYTE, x->src, x->tag, MPI_COMM_WORLD, &sl[i].st)); break;
        case R_LATE_ANY: MPI_OK(MPI_Recv(b, c, MPI_BYTE, MPI_ANY_SOURCE, x->tag, MPI_COMM_WORLD, &sl[i].st)); break;
        case R_LATE_PROBE: {
            MPI_Status ps;
            MPI_OK(MPI_Probe(MPI_ANY_SOURCE, x->tag, MPI_COMM_WORLD, &ps));
            int pc = -1;
            MPI_Get_count(&ps, MPI_BYTE, &pc);
            if (ps.MPI_SOURCE != x->src || pc != c)
                report(round, "MPI_Probe for tag %d found source %d, %d bytes; expected %d, %d", x->tag, ps.MPI_SOURCE,
                       pc, x->src, c);
            MPI_OK(MPI_Recv(b, c, MPI_BYTE, ps.MPI_SOURCE, x->tag, MPI_COMM_WORLD, &sl[i].st));
            break;
        }
        case R_LATE_MPROBE: {
            MPI_Message mh;
            MPI_Status ps;
            MPI_OK(MPI_Mprobe(x->src, x->tag, MPI_COMM_WORLD, &mh, &ps));
            MPI_OK(MPI_Mrecv(b, c, MPI_BYTE, &mh, &sl[i].st));
            break;
        }
        default: {
            MPI_Request q;
            MPI_OK(MPI_Irecv(b, c, MPI_BYTE, x->src, x->tag, MPI_COMM_WORLD, &q));
            if (chance(&r, 50))
                compute(&r);
            MPI_OK(MPI_Wait(&q, &sl[i].st));
        }
        }
        sl[i].done = 1;
    }

    /* cancel some pre-posted receives: a cancelled one is received again */
    for (int k = 0; k < nreq; k++) {
        int i = which[k];
        if (i < 0 || m[i].rmode != R_PRE_CANCEL || reqs[k] == MPI_REQUEST_NULL)
            continue;
        compute(&r);
        MPI_OK(MPI_Cancel(&reqs[k]));
        MPI_OK(MPI_Wait(&reqs[k], &sl[i].st));
        int was = 0;
        MPI_Test_cancelled(&sl[i].st, &was);
        if (was) {
            cancelled++;
            MPI_OK(MPI_Recv(rbuf(&sl[i], &m[i]), (int)m[i].size, MPI_BYTE, MPI_ANY_SOURCE, m[i].tag, MPI_COMM_WORLD,
                            &sl[i].st));
        }
        sl[i].done = 1;
    }

    /* tests with compute between them, then waits */
    int tries = (int)rbelow(&r, 6);
    for (int t = 0; t < tries; t++) {
        compute(&r);
        drain(reqs, which, nreq, sl, 0);
    }
    while (drain(reqs, which, nreq, sl, 1))
        if (chance(&r, 50))
            compute(&r);

    for (int i = 0; i < n; i++) {
        if (m[i].dst == rank) {
            verify(round, m, n, &m[i], sl[i].base + GUARD, &sl[i].st, scratch);
            moved_msgs++;
            moved_bytes += m[i].size;
            free(sl[i].base);
        }
        free(sbuf[i]);
    }
    free(sbuf), free(sl), free(reqs), free(which), free(m);
}

static void usage(void)
{
    fprintf(stderr, "usage: stress [--seed N] [--seconds S] [--rounds R] [--max-size BYTES] [--min-size BYTES]\n"
                    "              [--max-msgs K] [--no-sleep]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    double seconds = 10;
    uint64_t max_rounds = UINT64_MAX;
    seed = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 16;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (!strcmp(a, "--no-sleep")) {
            sleepy = 0;
            continue;
        }
        if (!v)
            usage();
        i++;
        unsigned long long x = strtoull(v, &end, 0);
        if (!*v || *end)
            usage();
        if (!strcmp(a, "--seed"))
            seed = x;
        else if (!strcmp(a, "--seconds"))
            seconds = (double)x;
        else if (!strcmp(a, "--rounds"))
            max_rounds = x;
        else if (!strcmp(a, "--max-size"))
            max_size = x;
        else if (!strcmp(a, "--min-size"))
            min_size = x;
        else if (!strcmp(a, "--max-msgs") && x >= 1 && x <= 64)
            max_msgs = (int)x;
        else
            usage();
    }
    if (min_size > max_size || max_size > (1u << 30))
        usage();
    MPI_OK(MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD)); /* rank 0's seed for all */
    if (rank == 0) {
        printf("stress: np %d, seed %llu, sizes %zu..%zu, up to %d messages per rank per round, %g s\n", np,
               (unsigned long long)seed, min_size, max_size, max_msgs, seconds);
        fflush(stdout);
    }
    unsigned char *scratch = xalloc(max_size > (1u << 20) ? max_size : (1u << 20));
    double t0 = now_s();
    uint64_t round = 0;
    for (int go = 1; go; round++) {
        round_run(round, scratch);
        /* end of round: every receive is complete; rank 0 says whether another follows */
        long in[2] = {(long)corrupt, rank == 0 && round + 1 < max_rounds && now_s() - t0 < seconds}, out[2];
        MPI_OK(MPI_Allreduce(in, out, 2, MPI_LONG, MPI_MAX, MPI_COMM_WORLD));
        go = (int)out[1];
    }
    free(scratch);

    unsigned long long tot[4], mine[4] = {moved_msgs, moved_bytes, corrupt, cancelled};
    MPI_OK(MPI_Reduce(mine, tot, 4, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
#ifdef CREDO_STATS
    credo_fc_stats fs;
    unsigned long long path[4] = {0}, sum[4];
    if (credo_fc_stats_get(&fs) == 0) {
        path[0] = fs.rndv_prepushed, path[1] = fs.rndv_cma_pulls, path[2] = fs.rndv_copies;
        path[3] = fs.copy_takeovers;
    }
    MPI_OK(MPI_Reduce(path, sum, 4, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
#endif
    int failed = 0;
    if (rank == 0) {
        printf("stress: %llu rounds, %llu messages, %.1f MiB, %llu receives cancelled and posted again, %.1f s\n",
               (unsigned long long)round, tot[0], (double)tot[1] / 1048576.0, tot[3], now_s() - t0);
#ifdef CREDO_STATS
        printf("stress: rendezvous paths: %llu prepushed, %llu CMA pulls, %llu pipelined copies (%llu taken over "
               "by the receiver)\n",
               sum[0], sum[1], sum[2], sum[3]);
#endif
        if (tot[2]) {
            printf("stress: FAILED: %llu corrupt messages; replay with --seed %llu\n", tot[2],
                   (unsigned long long)seed);
            failed = 1;
        } else {
            printf("stress: OK, every byte verified\n");
        }
        fflush(stdout);
    }
    MPI_OK(MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD));
    MPI_Finalize();
    return failed;
}
