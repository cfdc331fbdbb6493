/* tests/xport/test_ofi.c — the libfabric transport (xport/ofi.c compiled in) between two forked
 * processes on loopback: packets byte-verified and in order, a flood under credits, RMA reads with
 * the registration cache, the wait fd, a peer that dies, and bad cards. ctest sets FI_PROVIDER
 * (tcp;ofi_rxm by default); the interface is forced to lo here, whatever the environment says. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "xport/ofi.h"

#define CHILD_LIMIT_S 50 /* a pair still running after this failed (hung) */

/* Children report with these: no cmocka in a forked process. */
#define CHECK(cond, ...)                                                                              \
    do {                                                                                              \
        if (!(cond)) {                                                                                \
            fprintf(stderr, "rank %d: %s:%d: check failed: %s: ", g_rank, __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                                             \
            fprintf(stderr, " [ofi: %s]\n", xofi_last_error());                                       \
            return 1;                                                                                 \
        }                                                                                             \
    } while (0)

static int g_rank;
static uint64_t g_seed;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* xorshift64*: both ranks run the same stream from the same seed. */
static uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

static void fill(unsigned char *p, size_t n, uint64_t *s)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(rnd(s) >> 56);
}

/* ---------------------------------------------------------------------------------------------- */
/* The pair harness: two children, a socketpair for cards and side-channel nudges. */

typedef int (*role_fn)(int peer_sock);

static int sock_write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

static int sock_read_all(int fd, void *p, size_t n)
{
    char *c = p;
    while (n) {
        ssize_t r = read(fd, c, n);
        if (r <= 0)
            return -1;
        c += r;
        n -= (size_t)r;
    }
    return 0;
}

static int child(int rank, int sock, size_t inflight, size_t max_packet, role_fn role)
{
    g_rank = rank;
    char err[512];
    xofi_params p = {.rank = rank, .size = 2, .inflight_bytes = inflight, .max_packet = max_packet};
    int rc = xofi_open(&p, err, sizeof err);
    CHECK(rc == 0, "xofi_open: %s", err);
    char card[1024], peer[1024];
    CHECK(xofi_card(card, sizeof card) == 0, "card");
    uint32_t n = (uint32_t)strlen(card) + 1, m = 0;
    CHECK(sock_write_all(sock, &n, 4) == 0 && sock_write_all(sock, card, n) == 0, "card out");
    CHECK(sock_read_all(sock, &m, 4) == 0 && m <= sizeof peer && sock_read_all(sock, peer, m) == 0, "card in");
    rc = xofi_connect(1 - rank, peer, err, sizeof err);
    CHECK(rc == 0, "xofi_connect: %s", err);
    rc = role(sock);
    xofi_close();
    xofi_close(); /* safe twice */
    return rc;
}

/* A forked child dies of its signals: cmocka's handlers would carry on with the parent's tests. */
static void child_signals(void)
{
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], SIG_DFL);
}

/* Runs role0 as rank 0 and role1 as rank 1 and returns both exit statuses. */
static void run_pair(size_t inflight, size_t max_packet, role_fn role0, role_fn role1, int st[2])
{
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    pid_t pid[2];
    fflush(stdout);
    for (int r = 0; r < 2; r++) {
        pid[r] = fork();
        assert_true(pid[r] >= 0);
        if (pid[r] == 0) {
            child_signals();
            close(sv[1 - r]);
            int rc = child(r, sv[r], inflight, max_packet, r ? role1 : role0);
            fflush(stdout);
            _exit(rc);
        }
    }
    close(sv[0]);
    close(sv[1]);
    uint64_t t0 = now_ns();
    for (int r = 0; r < 2; r++) {
        st[r] = -1;
        for (;;) {
            int ws;
            pid_t w = waitpid(pid[r], &ws, WNOHANG);
            if (w == pid[r]) {
                st[r] = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
                break;
            }
            if (now_ns() - t0 > CHILD_LIMIT_S * 1000000000ull) {
                fprintf(stderr, "rank %d hung: killed\n", r);
                kill(pid[r], SIGKILL);
                waitpid(pid[r], &ws, 0);
                st[r] = 99;
                break;
            }
            usleep(2000);
        }
    }
}

/* ---------------------------------------------------------------------------------------------- */
/* (a) random sizes, byte-verified, in order; then a ping-pong for the latency figure */

#define A_COUNT 10000
#define A_MAXPKT 8192
static int g_count = A_COUNT;        /* test (a)'s packets ... */
static size_t g_maxpkt = A_MAXPKT;   /* ... and their largest size */
static int g_pings = 300;            /* ping-pong round trips after them */

typedef struct {
    uint64_t stream;     /* the receiver's copy of the sender's PRNG */
    unsigned char *want; /* scratch for the expected bytes */
    long got, bad;
    int ack;             /* a 1-byte control packet arrived */
    int acks_only;       /* the sender's side: everything is an ack */
} rx_state;

static void rx_verify(const void *pkt, size_t len, void *arg)
{
    rx_state *s = arg;
    /* data first, then acks (a 1-byte data packet may well be 0xAC) */
    if (s->acks_only || s->got >= g_count) {
        s->ack++;
        return;
    }
    size_t n = 1 + rnd(&s->stream) % g_maxpkt;
    fill(s->want, n, &s->stream);
    if (n != len || memcmp(pkt, s->want, n) != 0) {
        if (!s->bad)
            fprintf(stderr, "rank %d: packet %ld: %zu B, expected %zu B%s (seed %llu)\n", g_rank, s->got, len, n,
                    n == len ? ", bytes differ" : "", (unsigned long long)g_seed);
        s->bad++;
    }
    s->got++;
}

static int wait_ack(rx_state *s, int acks, double limit_s)
{
    uint64_t t0 = now_ns();
    while (s->ack < acks) {
        int rc = xofi_progress(0, rx_verify, NULL, s);
        if (rc < 0)
            return rc;
        if (now_ns() - t0 > (uint64_t)(limit_s * 1e9))
            return -ETIMEDOUT;
    }
    return 0;
}

static int send_ack(void)
{
    unsigned char a = 0xAC;
    return xofi_send(1 - g_rank, &a, 1);
}

static int a_sender(int sock)
{
    uint64_t s = g_seed;
    unsigned char *pkt = malloc(g_maxpkt);
    rx_state st = {.acks_only = 1};
    uint64_t t0 = now_ns(), bytes = 0;
    for (int i = 0; i < g_count; i++) {
        size_t n = 1 + rnd(&s) % g_maxpkt;
        fill(pkt, n, &s);
        int rc = xofi_send(1, pkt, n);
        CHECK(rc == 0, "send %d: %d", i, rc);
        bytes += n;
        if (i % 16 == 0)
            CHECK(xofi_progress(0, rx_verify, NULL, &st) >= 0, "progress");
    }
    CHECK(wait_ack(&st, 1, 10) == 0, "no ack for the packets");
    double dt = (double)(now_ns() - t0) / 1e9;
    xofi_stats x;
    xofi_get_stats(&x);
    CHECK(x.packets_sent == (uint64_t)g_count, "packets_sent %llu", (unsigned long long)x.packets_sent);
    printf("ofi (%s): %d packets up to %zu B, %.1f MB in %.3f s: %.0f packets/s, %.0f MB/s; %llu sends queued\n",
           xofi_provider_name(), g_count, g_maxpkt, bytes / 1e6, dt, g_count / dt, bytes / 1e6 / dt,
           (unsigned long long)x.sends_queued);
    /* ping-pong: 8 B each way */
    const int iters = g_pings;
    t0 = now_ns();
    for (int i = 0; i < iters; i++) {
        CHECK(send_ack() == 0, "ping");
        CHECK(wait_ack(&st, 2 + i, 5) == 0, "pong %d", i);
    }
    printf("ofi (%s): ping-pong 1 B: %.1f us round trip\n", xofi_provider_name(),
           (double)(now_ns() - t0) / 1e3 / iters);
    free(pkt);
    (void)sock;
    return 0;
}

static int a_receiver(int sock)
{
    rx_state st = {.stream = g_seed, .want = malloc(g_maxpkt)};
    uint64_t t0 = now_ns();
    while (st.got < g_count) {
        int rc = xofi_progress(64, rx_verify, NULL, &st);
        CHECK(rc >= 0, "progress %d", rc);
        CHECK(now_ns() - t0 < 15000000000ull, "only %ld of %d packets in 15 s", st.got, g_count);
    }
    CHECK(st.bad == 0, "%ld packets wrong (seed %llu)", st.bad, (unsigned long long)g_seed);
    CHECK(send_ack() == 0, "ack");
    for (int i = 0; i < g_pings; i++) {
        CHECK(wait_ack(&st, 1 + i, 5) == 0, "ping %d", i);
        CHECK(send_ack() == 0, "pong");
    }
    xofi_stats x;
    xofi_get_stats(&x);
    CHECK(x.packets_received == (uint64_t)g_count + (uint64_t)g_pings, "packets_received %llu", (unsigned long long)x.packets_received);
    CHECK(x.rx_reposts > 0, "40 MB through %llu B buffers without a repost", (unsigned long long)x.rx_capacity);
    /* let the last pong leave before the endpoint closes */
    for (int i = 0; i < 100; i++)
        xofi_progress(0, rx_verify, NULL, &st);
    usleep(100000);
    free(st.want);
    (void)sock;
    return 0;
}

static void test_packets_in_order(void **unused)
{
    (void)unused;
    int st[2];
    run_pair(0, A_MAXPKT, a_sender, a_receiver, st);
    assert_int_equal(st[0], 0);
    assert_int_equal(st[1], 0);
}

/* Packets above rxm's default eager limit (16 KiB): rendezvous would complete them out of order,
 * so xofi_open raises the limit to max_packet (ofi.c, rxm_eager_limit). */
static void test_large_packets_in_order(void **unused)
{
    (void)unused;
    int st[2];
    g_count = 1500;
    g_maxpkt = 65536;
    g_pings = 100;
    run_pair(0, g_maxpkt, a_sender, a_receiver, st);
    g_count = A_COUNT;
    g_maxpkt = A_MAXPKT;
    g_pings = 300;
    assert_int_equal(st[0], 0);
    assert_int_equal(st[1], 0);
}

/* Echo: the receiver sends every packet back from inside on_rx, and both sides progress with a
 * small budget, so sends queue behind -FI_EAGAIN, xofi_send reads the CQ from inside a handler, and
 * completions wait across calls; the echoes must come back whole and in order. */
#define E_COUNT 1000
#define E_COPIES 8 /* echoes per packet: the way back carries more than the way out, and backs up */

static int g_echo_err;

static void echo_rx(const void *pkt, size_t len, void *arg)
{
    rx_verify(pkt, len, arg);
    rx_state *s = arg;
    if (s->ack)
        return;
    for (int k = 0; k < E_COPIES; k++) {
        int rc = xofi_send(1 - g_rank, pkt, len);
        if (rc && !g_echo_err)
            g_echo_err = rc;
    }
}

/* The sender's check of the echoes: each expected packet E_COPIES times in a row. */
typedef struct {
    rx_state v;
    int copy;
    size_t n;
} echo_state;

static void echo_check(const void *pkt, size_t len, void *arg)
{
    echo_state *e = arg;
    if (e->copy == 0) {
        e->n = 1 + rnd(&e->v.stream) % A_MAXPKT;
        fill(e->v.want, e->n, &e->v.stream);
    }
    if (len != e->n || memcmp(pkt, e->v.want, len) != 0) {
        if (!e->v.bad)
            fprintf(stderr, "rank %d: echo %ld copy %d: %zu B, expected %zu B (seed %llu)\n", g_rank, e->v.got,
                    e->copy, len, e->n, (unsigned long long)g_seed);
        e->v.bad++;
    }
    if (++e->copy == E_COPIES) {
        e->copy = 0;
        e->v.got++;
    }
}

static int echo_sender(int sock)
{
    uint64_t s = g_seed;
    unsigned char *pkt = malloc(A_MAXPKT);
    echo_state es = {.v = {.stream = g_seed, .want = malloc(A_MAXPKT)}};
    rx_state st = {.acks_only = 1};
    uint64_t t0 = now_ns();
    for (int i = 0; i < E_COUNT; i++) {
        size_t n = 1 + rnd(&s) % A_MAXPKT;
        fill(pkt, n, &s);
        CHECK(xofi_send(1, pkt, n) == 0, "send %d", i);
        CHECK(xofi_progress(5, echo_check, NULL, &es) >= 0, "progress");
        if (i % 250 == 125)
            usleep(150000); /* not reading: the echoes back up at the echoing side */
    }
    while (es.v.got < E_COUNT) {
        CHECK(xofi_progress(5, echo_check, NULL, &es) >= 0, "progress");
        CHECK(now_ns() - t0 < 25000000000ull, "%ld of %d echoes in 25 s", es.v.got, E_COUNT);
    }
    CHECK(es.v.bad == 0, "%ld echoes wrong (seed %llu)", es.v.bad, (unsigned long long)g_seed);
    free(es.v.want);
    xofi_stats x;
    xofi_get_stats(&x);
    printf("ofi echo (%s): %d packets and their echoes, %llu sends queued here\n", xofi_provider_name(), E_COUNT,
           (unsigned long long)x.sends_queued);
    unsigned char bye = 0xAC;
    CHECK(xofi_send(1, &bye, 1) == 0, "bye");
    while (xofi_progress(0, rx_verify, NULL, &st) > 0 || xofi_busy()) /* drain: until all is sent */
        ;
    free(pkt);
    free(st.want);
    return 0;
}

static int echo_receiver(int sock)
{
    rx_state st = {.stream = g_seed, .want = malloc(A_MAXPKT)};
    uint64_t t0 = now_ns();
    int saved = g_count;
    g_count = E_COUNT; /* rx_verify: data first, then acks */
    while (!st.ack) {
        CHECK(xofi_progress(3, echo_rx, NULL, &st) >= 0, "progress");
        CHECK(g_echo_err == 0, "echo send: %d", g_echo_err);
        CHECK(now_ns() - t0 < 25000000000ull, "%ld of %d packets in 25 s", st.got, E_COUNT);
    }
    g_count = saved;
    CHECK(st.got == E_COUNT && st.bad == 0, "%ld packets, %ld wrong (seed %llu)", st.got, st.bad,
          (unsigned long long)g_seed);
    xofi_stats x;
    xofi_get_stats(&x);
    printf("ofi echo (%s): %llu sends queued at the echoing side\n", xofi_provider_name(),
           (unsigned long long)x.sends_queued);
    CHECK(x.sends_queued > 0, "no echo was ever refused: the queue inside handlers went untested");
    while (xofi_progress(0, NULL, NULL, NULL) > 0 || xofi_busy())
        ;
    usleep(100000);
    free(st.want);
    return 0;
}

static void test_echo_from_handler(void **unused)
{
    (void)unused;
    int st[2];
    int saved = g_count;
    g_count = E_COUNT;
    /* small transmit queues, so that the provider refuses sends (-FI_EAGAIN) on both sides */
    setenv("FI_OFI_RXM_TX_SIZE", "16", 1);
    setenv("FI_OFI_RXM_MSG_TX_SIZE", "16", 1);
    run_pair(0, A_MAXPKT, echo_sender, echo_receiver, st);
    unsetenv("FI_OFI_RXM_TX_SIZE");
    unsetenv("FI_OFI_RXM_MSG_TX_SIZE");
    g_count = saved;
    assert_int_equal(st[0], 0);
    assert_int_equal(st[1], 0);
}

/* ---------------------------------------------------------------------------------------------- */
/* (b) a flood under credits: the receiver does not poll for a while, the sender sends what the
 * credits allow (inflight_bytes unacknowledged); no buffer may run dry. Then the same without the
 * bound: the counter must see the overrun, and every packet must still arrive. */

#define B_INFLIGHT (256u << 10)
#define B_TOTAL ((uint64_t)24 << 20)

typedef struct {
    uint64_t stream, consumed, acked_upto;
    unsigned char *want;
    long got, bad;
    uint64_t credit_back; /* (sender) bytes the receiver says it consumed */
} b_state;

static void b_rx(const void *pkt, size_t len, void *arg)
{
    b_state *s = arg;
    if (len == 9 && ((const unsigned char *)pkt)[0] == 0xCB) {
        uint64_t v;
        memcpy(&v, (const unsigned char *)pkt + 1, 8);
        s->credit_back = v;
        return;
    }
    size_t n = 1 + rnd(&s->stream) % A_MAXPKT;
    fill(s->want, n, &s->stream);
    if (n != len || memcmp(pkt, s->want, n) != 0)
        s->bad++;
    s->got++;
    s->consumed += len;
}

static int b_send_credit(uint64_t consumed)
{
    unsigned char c[9] = {0xCB};
    memcpy(c + 1, &consumed, 8);
    return xofi_send(1 - g_rank, c, sizeof c);
}

static int b_sender_common(int bounded)
{
    uint64_t s = g_seed, sent = 0;
    unsigned char *pkt = malloc(A_MAXPKT);
    b_state st = {0};
    uint64_t t0 = now_ns();
    while (sent < B_TOTAL) {
        size_t n = 1 + rnd(&s) % A_MAXPKT;
        fill(pkt, n, &s);
        /* credits: never more than B_INFLIGHT sent and not yet consumed */
        while (bounded && sent + n - st.credit_back > B_INFLIGHT) {
            CHECK(xofi_progress(0, b_rx, NULL, &st) >= 0, "progress");
            CHECK(now_ns() - t0 < 20000000000ull, "credits stuck at %llu of %llu", (unsigned long long)sent,
                  (unsigned long long)B_TOTAL);
        }
        CHECK(xofi_send(1, pkt, n) == 0, "send");
        sent += n;
        if (!bounded)
            CHECK(xofi_progress(0, b_rx, NULL, &st) >= 0, "progress");
    }
    while (st.credit_back < sent) {
        CHECK(xofi_progress(0, b_rx, NULL, &st) >= 0, "progress");
        CHECK(now_ns() - t0 < 20000000000ull, "final credit missing");
    }
    free(pkt);
    return 0;
}

static int b_receiver_common(int bounded)
{
    b_state st = {.stream = g_seed, .want = malloc(A_MAXPKT)};
    uint64_t t0 = now_ns(), nap_at = 0;
    usleep(300000); /* not polling: the sender runs into its credit bound (or floods) */
    while (st.consumed < B_TOTAL) {
        /* unlimited budget: each call ends with the CQ found empty, and credits go back only
         * between calls, as p2p's credit packets would after consuming */
        int rc = xofi_progress(0, b_rx, NULL, &st);
        CHECK(rc >= 0, "progress %d", rc);
        if (st.consumed >= st.acked_upto + B_INFLIGHT / 4 || st.consumed >= B_TOTAL) {
            CHECK(b_send_credit(st.consumed) == 0, "credit");
            st.acked_upto = st.consumed;
        }
        if (st.consumed >= nap_at + (4u << 20)) { /* look away again every 4 MiB */
            nap_at = st.consumed;
            usleep(bounded ? 50000 : 100000);
        }
        CHECK(now_ns() - t0 < 20000000000ull, "%llu of %llu B in 20 s", (unsigned long long)st.consumed,
              (unsigned long long)B_TOTAL);
    }
    xofi_stats x;
    xofi_get_stats(&x);
    printf("ofi flood (%s): %s, %llu B, capacity %llu B, peak %llu B, dry %llu, reposts %llu\n",
           bounded ? "credits" : "unbounded", xofi_provider_name(), (unsigned long long)st.consumed,
           (unsigned long long)x.rx_capacity, (unsigned long long)x.rx_peak_bytes, (unsigned long long)x.rx_dry,
           (unsigned long long)x.rx_reposts);
    CHECK(st.bad == 0, "%ld packets wrong (seed %llu)", st.bad, (unsigned long long)g_seed);
    CHECK(x.rx_capacity == B_INFLIGHT + A_MAXPKT, "capacity %llu", (unsigned long long)x.rx_capacity);
    CHECK(x.rx_reposts >= B_TOTAL / x.rx_capacity - 1, "only %llu reposts", (unsigned long long)x.rx_reposts);
    if (bounded) {
        CHECK(x.rx_dry == 0, "a buffer ran dry under credits: %llu", (unsigned long long)x.rx_dry);
        CHECK(x.rx_peak_bytes <= B_INFLIGHT, "peak %llu > inflight", (unsigned long long)x.rx_peak_bytes);
        CHECK(x.rx_peak_bytes > B_INFLIGHT / 2, "the flood never happened: peak %llu",
              (unsigned long long)x.rx_peak_bytes);
    } else {
        CHECK(x.rx_dry > 0, "an unbounded flood of %llu B went unnoticed", (unsigned long long)B_TOTAL);
    }
    for (int i = 0; i < 50; i++)
        xofi_progress(0, b_rx, NULL, &st);
    usleep(100000);
    free(st.want);
    return 0;
}

static int b_sender(int sock) { return b_sender_common(1); }
static int b_receiver(int sock) { return b_receiver_common(1); }
static int b_sender_unbounded(int sock) { return b_sender_common(0); }
static int b_receiver_unbounded(int sock) { return b_receiver_common(0); }

static void test_flood_under_credits(void **unused)
{
    (void)unused;
    int st[2];
    run_pair(B_INFLIGHT, A_MAXPKT, b_sender, b_receiver, st);
    assert_int_equal(st[0], 0);
    assert_int_equal(st[1], 0);
}

static void test_flood_unbounded_is_seen(void **unused)
{
    (void)unused;
    int st[2];
    run_pair(B_INFLIGHT, A_MAXPKT, b_sender_unbounded, b_receiver_unbounded, st);
    assert_int_equal(st[0], 0);
    assert_int_equal(st[1], 0);
}

/* ---------------------------------------------------------------------------------------------- */
/* (c) RMA reads of random ranges of a 16 MiB buffer, 4 outstanding, twice; then the cache's
 * eviction and invalidation */

#define C_BYTES ((size_t)16 << 20)
#define C_READS 200
#define C_MAXREAD ((size_t)1 << 20)

typedef struct {
    uint64_t key, raddr;
    int have_key, done;
} c_msg_state;

static void c_rx(const void *pkt, size_t len, void *arg)
{
    c_msg_state *s = arg;
    const unsigned char *p = pkt;
    if (len == 17 && p[0] == 0x4B) {
        memcpy(&s->key, p + 1, 8);
        memcpy(&s->raddr, p + 9, 8);
        s->have_key = 1;
    } else if (len == 1 && p[0] == 0xDD) {
        s->done = 1;
    }
}

typedef struct {
    int done, failed;
} c_read;

static void c_on_read(void *ctx, int status, void *arg)
{
    c_read *r = ctx;
    r->done = 1;
    r->failed = status;
}

static int c_owner(int sock)
{
    unsigned char *buf = aligned_alloc(4096, C_BYTES);
    uint64_t s = g_seed;
    fill(buf, C_BYTES, &s);
    xofi_mr *mr;
    uint64_t key, raddr;
    CHECK(xofi_mr_get(buf, C_BYTES, &mr, &key, &raddr) == 0, "mr_get");
    unsigned char m[17] = {0x4B};
    memcpy(m + 1, &key, 8);
    memcpy(m + 9, &raddr, 8);
    CHECK(xofi_send(1, m, sizeof m) == 0, "send key");
    c_msg_state st = {0};
    uint64_t t0 = now_ns();
    while (!st.done) { /* manual progress: the reads are served from here */
        CHECK(xofi_progress(0, c_rx, NULL, &st) >= 0, "progress");
        CHECK(now_ns() - t0 < 20000000000ull, "reader never finished");
    }
    xofi_mr_put(mr);
    free(buf);
    return 0;
}

static int c_pass(unsigned char *local, const unsigned char *ref, uint64_t key, uint64_t raddr, uint64_t seed,
                  c_msg_state *st)
{
    c_read rd[4] = {{1, 0}, {1, 0}, {1, 0}, {1, 0}};
    size_t off[4] = {0}, len[4] = {0};
    xofi_mr *mr[4] = {0};
    int issued = 0, completed = 0;
    uint64_t t0 = now_ns();
    /* Ranges may overlap: reads in flight write the same bytes, so the target is cleared once per
     * pass, not per read, and every finished read is checked before a new one starts. */
    memset(local, 0, C_BYTES);
    while (completed < C_READS) {
        for (int k = 0; k < 4; k++) {
            if (rd[k].done && mr[k]) { /* finished: check it */
                CHECK(rd[k].failed == 0, "read failed: %d", rd[k].failed);
                CHECK(memcmp(local + off[k], ref + off[k], len[k]) == 0, "read of %zu B at %zu differs (seed %llu)",
                      len[k], off[k], (unsigned long long)g_seed);
                xofi_mr_put(mr[k]);
                mr[k] = NULL;
                completed++;
            }
        }
        for (int k = 0; k < 4; k++) {
            if (!rd[k].done || issued == C_READS)
                continue;
            len[k] = 1 + rnd(&seed) % C_MAXREAD;
            off[k] = rnd(&seed) % (C_BYTES - len[k] + 1);
            uint64_t lk, lr;
            CHECK(xofi_mr_get(local + off[k], len[k], &mr[k], &lk, &lr) == 0, "local mr_get");
            rd[k].done = 0;
            int rc;
            while ((rc = xofi_read(1 - g_rank, local + off[k], len[k], mr[k], raddr + off[k], key, &rd[k])) ==
                   -EAGAIN)
                CHECK(xofi_progress(0, c_rx, c_on_read, st) >= 0, "progress");
            CHECK(rc == 0, "xofi_read: %d", rc);
            issued++;
        }
        CHECK(xofi_progress(0, c_rx, c_on_read, st) >= 0, "progress");
        CHECK(now_ns() - t0 < 20000000000ull, "%d of %d reads in 20 s", completed, C_READS);
    }
    return 0;
}

static int c_reader(int sock)
{
    unsigned char *ref = aligned_alloc(4096, C_BYTES), *local = aligned_alloc(4096, C_BYTES);
    uint64_t s = g_seed;
    fill(ref, C_BYTES, &s);
    c_msg_state st = {0};
    uint64_t t0 = now_ns();
    while (!st.have_key) {
        CHECK(xofi_progress(0, c_rx, c_on_read, &st) >= 0, "progress");
        CHECK(now_ns() - t0 < 5000000000ull, "no key");
    }
    /* the owner's raddr names buf: ranges are raddr + offset in both FI_MR_VIRT_ADDR and offset modes */
    t0 = now_ns();
    CHECK(c_pass(local, ref, st.key, st.raddr, g_seed * 7 + 1, &st) == 0, "pass 1");
    double dt = (double)(now_ns() - t0) / 1e9;
    xofi_stats a, b;
    xofi_get_stats(&a);
    CHECK(c_pass(local, ref, st.key, st.raddr, g_seed * 7 + 1, &st) == 0, "pass 2");
    xofi_get_stats(&b);
    printf("ofi rma (%s): %d reads, %.1f MB in %.3f s (%.0f MB/s); pass 1 %llu hits %llu misses, pass 2 %llu hits "
           "%llu misses\n",
           xofi_provider_name(), C_READS, a.read_bytes / 1e6, dt, a.read_bytes / 1e6 / dt,
           (unsigned long long)a.mr_hits, (unsigned long long)a.mr_misses,
           (unsigned long long)(b.mr_hits - a.mr_hits), (unsigned long long)(b.mr_misses - a.mr_misses));
    CHECK(a.reads_issued == C_READS && b.reads_issued == 2 * C_READS, "reads_issued %llu",
          (unsigned long long)b.reads_issued);
    CHECK(b.mr_hits - a.mr_hits == C_READS && b.mr_misses == a.mr_misses,
          "second pass: %llu hits, %llu misses (tcp keeps unreferenced entries)",
          (unsigned long long)(b.mr_hits - a.mr_hits), (unsigned long long)(b.mr_misses - a.mr_misses));

    /* Eviction: 300 separate pages (every other one) make 300 entries; the cache keeps 256. */
    unsigned char *pages = aligned_alloc(4096, 600 * 4096);
    xofi_stats c, d;
    xofi_get_stats(&c);
    for (int i = 0; i < 300; i++) {
        xofi_mr *m;
        CHECK(xofi_mr_get(pages + (size_t)i * 2 * 4096 + 100, 10, &m, NULL, NULL) == 0, "page %d", i);
        xofi_mr_put(m);
    }
    xofi_get_stats(&d);
    CHECK(d.mr_misses - c.mr_misses == 300, "misses %llu", (unsigned long long)(d.mr_misses - c.mr_misses));
    CHECK(d.mr_evictions - c.mr_evictions >= 300 + 1 - 256, "evictions %llu",
          (unsigned long long)(d.mr_evictions - c.mr_evictions));
    /* the newest page is still there, the oldest was evicted first */
    xofi_mr *m;
    CHECK(xofi_mr_get(pages + (size_t)299 * 2 * 4096, 1, &m, NULL, NULL) == 0, "newest");
    xofi_mr_put(m);
    xofi_get_stats(&c);
    CHECK(c.mr_hits == d.mr_hits + 1, "newest page missed");
    CHECK(xofi_mr_get(pages, 1, &m, NULL, NULL) == 0, "oldest");
    xofi_mr_put(m);
    xofi_get_stats(&d);
    CHECK(d.mr_misses == c.mr_misses + 1, "oldest page still cached after 300 newer");
    /* Invalidation: a held entry stays usable until its put, then is gone; a free one goes at once. */
    xofi_mr *held;
    CHECK(xofi_mr_get(pages + 4096 * 10, 100, &held, NULL, NULL) == 0, "held");
    CHECK(xofi_mr_invalidate(pages + 4096 * 10, 1) == 1, "invalidate one entry");
    xofi_get_stats(&c);
    CHECK(c.mr_invalidations == d.mr_invalidations + 1, "invalidations");
    CHECK(xofi_mr_get(pages + 4096 * 10, 100, &m, NULL, NULL) == 0, "after invalidate");
    xofi_get_stats(&d);
    CHECK(d.mr_misses == c.mr_misses + 1, "an invalidated entry was a hit");
    xofi_mr_put(m);
    xofi_mr_put(held);
    CHECK(xofi_mr_invalidate(pages, 600 * 4096) >= 1, "invalidate all");
    CHECK(xofi_mr_get(pages + 4096 * 10, 100, &m, NULL, NULL) == 0, "after invalidate all");
    xofi_get_stats(&c);
    CHECK(c.mr_misses == d.mr_misses + 1, "entry survived invalidation");
    xofi_mr_put(m);

    unsigned char dd = 0xDD;
    CHECK(xofi_send(1 - g_rank, &dd, 1) == 0, "done");
    for (int i = 0; i < 50; i++)
        xofi_progress(0, c_rx, c_on_read, &st);
    usleep(100000);
    free(pages);
    free(ref);
    free(local);
    return 0;
}

static void test_rma_reads_and_cache(void **unused)
{
    (void)unused;
    int st[2];
    run_pair(0, 4096, c_owner, c_reader, st);
    assert_int_equal(st[0], 0);
    assert_int_equal(st[1], 0);
}

/* ---------------------------------------------------------------------------------------------- */
/* (d) the wait fd wakes a sleeping process when a packet arrives */

static void count_rx(const void *pkt, size_t len, void *arg) { ++*(int *)arg; }

static int d_sleeper(int sock)
{
    int fd = xofi_wait_fd();
    CHECK(fd >= 0, "provider %s has no wait fd", xofi_provider_name());
    int got = 0;
    uint64_t t0 = now_ns();
    /* warm-up: one packet each way, so the connection exists before the timed sleep */
    CHECK(send_ack() == 0, "warm-up");
    while (got < 1) {
        CHECK(xofi_progress(0, count_rx, NULL, &got) >= 0, "progress");
        CHECK(now_ns() - t0 < 5000000000ull, "warm-up packet missing");
    }
    for (int i = 0; i < 20; i++) /* let the warm-up's completions settle */
        xofi_progress(0, count_rx, NULL, &got);
    char go = 'g';
    int sleeps = 0, spurious = 0;
    uint64_t t1 = now_ns(), woke_ns = 0;
    CHECK(sock_write_all(sock, &go, 1) == 0, "nudge");
    while (got < 2) {
        if (xofi_sleep_ok()) {
            struct pollfd pf = {.fd = fd, .events = POLLIN};
            sleeps++;
            uint64_t ts = now_ns();
            int n = poll(&pf, 1, 5000);
            CHECK(n >= 0, "poll: %s", strerror(errno));
            CHECK(n > 0, "slept through the packet: 5 s without a wake-up");
            if (now_ns() - ts < 100000000ull && got < 2)
                spurious++;
            if (!woke_ns)
                woke_ns = now_ns() - t1;
        }
        CHECK(xofi_progress(0, count_rx, NULL, &got) >= 0, "progress");
        CHECK(now_ns() - t1 < 5000000000ull, "packet not received in 5 s");
    }
    uint64_t total = now_ns() - t1;
    printf("ofi wait fd (%s): packet sent after 200 ms, first wake-up after %.1f ms, received after %.1f ms, "
           "%d sleeps (%d under 100 ms)\n",
           xofi_provider_name(), woke_ns / 1e6, total / 1e6, sleeps, spurious);
    CHECK(sleeps >= 1, "never slept: xofi_sleep_ok() was 0 all along");
    CHECK(total >= 150000000ull, "received before it was sent (%.1f ms)", total / 1e6);
    CHECK(total < 1000000000ull, "woke %.1f ms after a packet sent at 200 ms", total / 1e6);
    CHECK(sleeps < 50, "%d sleeps for one packet: the fd does not stay quiet", sleeps);
    CHECK(sock_write_all(sock, &go, 1) == 0, "bye");
    return 0;
}

static int d_waker(int sock)
{
    int got = 0;
    uint64_t t0 = now_ns();
    while (got < 1) {
        CHECK(xofi_progress(0, count_rx, NULL, &got) >= 0, "progress");
        CHECK(now_ns() - t0 < 5000000000ull, "warm-up packet missing");
    }
    CHECK(send_ack() == 0, "warm-up reply");
    char go;
    /* keep progressing until the sleeper says it is going to sleep (the reply must leave) */
    for (;;) {
        struct pollfd pf = {.fd = sock, .events = POLLIN};
        xofi_progress(0, count_rx, NULL, &got);
        if (poll(&pf, 1, 1) > 0)
            break;
    }
    CHECK(sock_read_all(sock, &go, 1) == 0, "nudge");
    usleep(200000);
    CHECK(send_ack() == 0, "the packet");
    for (;;) { /* progress until the sleeper is done */
        struct pollfd pf = {.fd = sock, .events = POLLIN};
        xofi_progress(0, count_rx, NULL, &got);
        if (poll(&pf, 1, 1) > 0)
            break;
        CHECK(now_ns() - t0 < 10000000000ull, "sleeper never finished");
    }
    return 0;
}

static void test_wait_fd_wakes(void **unused)
{
    (void)unused;
    int st[2];
    run_pair(0, 4096, d_sleeper, d_waker, st);
    assert_int_equal(st[0], 0);
    assert_int_equal(st[1], 0);
}

/* ---------------------------------------------------------------------------------------------- */
/* (e) a peer that exits mid-way: the survivor gets an error, not a hang */

static int e_survivor(int sock)
{
    /* rxm sometimes refuses every send to the dead peer without an error: the stall bound ends it */
    xofi_set_stall_timeout(2000);
    unsigned char pkt[2048];
    memset(pkt, 7, sizeof pkt);
    int got = 0, rc = 0;
    long sent = 0;
    char go;
    uint64_t t0 = now_ns(), dead_at = 0;
    while (rc >= 0) {
        rc = xofi_send(1, pkt, (size_t)(sent % 2 ? 2048 : 16));
        if (rc < 0)
            break;
        sent++;
        rc = xofi_progress(0, count_rx, NULL, &got);
        if (!dead_at) {
            struct pollfd pf = {.fd = sock, .events = POLLIN};
            if (poll(&pf, 1, 0) > 0 && sock_read_all(sock, &go, 1) == 0)
                dead_at = now_ns(); /* the peer is about to _exit */
        }
        if (now_ns() - t0 >= 25000000000ull) {
            xofi_stats x;
            xofi_get_stats(&x);
            CHECK(0, "no error 25 s into the run (%ld packets sent, %llu posted, %llu refused and queued)", sent,
                  (unsigned long long)x.packets_sent, (unsigned long long)x.sends_queued);
        }
        usleep(200);
    }
    CHECK(dead_at != 0, "error %d before the peer died: %s", rc, xofi_last_error());
    double after = (now_ns() - dead_at) / 1e6;
    printf("ofi dead peer (%s): error %d %.1f ms after the peer's exit: %s\n", xofi_provider_name(), rc, after,
           xofi_last_error());
    CHECK(after < 5000, "error only %.0f ms after the peer died", after);
    CHECK(strstr(xofi_last_error(), "rank 1") != NULL, "the error does not name the peer");
    /* A read from the dead peer fails too: at the call, or through on_read, not by hanging. */
    static unsigned char local[4096];
    xofi_mr *mr;
    CHECK(xofi_mr_get(local, sizeof local, &mr, NULL, NULL) == 0, "mr_get");
    c_read rd = {0, 0};
    uint64_t t1 = now_ns();
    int r;
    while ((r = xofi_read(1, local, sizeof local, mr, 0, 1, &rd)) == -EAGAIN) {
        xofi_progress(0, count_rx, c_on_read, NULL);
        CHECK(now_ns() - t1 < 5000000000ull, "read to a dead peer: -EAGAIN for 5 s (the stall bound is 2 s)");
    }
    while (r == 0 && !rd.done) {
        xofi_progress(0, count_rx, c_on_read, NULL);
        CHECK(now_ns() - t1 < 5000000000ull, "read to a dead peer: no completion in 5 s");
    }
    printf("ofi dead peer (%s): read %s after %.1f ms: %s\n", xofi_provider_name(),
           r ? "refused" : "failed", (now_ns() - t1) / 1e6, xofi_last_error());
    CHECK(r < 0 || rd.failed < 0, "a read from a dead peer succeeded");
    xofi_mr_put(mr);
    return 0;
}

static int e_victim(int sock)
{
    int got = 0;
    uint64_t t0 = now_ns();
    while (got < 200) {
        /* (generous: under load rxm has taken seconds to set a connection up) */
        CHECK(xofi_progress(0, count_rx, NULL, &got) >= 0, "progress");
        CHECK(now_ns() - t0 < 20000000000ull, "only %d packets in 20 s", got);
    }
    char go = 'x';
    sock_write_all(sock, &go, 1);
    fflush(stdout);
    _exit(0); /* mid-way, without closing anything */
}

static void test_dead_peer_errors(void **unused)
{
    (void)unused;
    int st[2];
    run_pair(0, 4096, e_survivor, e_victim, st);
    assert_int_equal(st[0], 0);
    assert_int_equal(st[1], 0);
}

/* ---------------------------------------------------------------------------------------------- */
/* (f) bad cards are rejected before they reach the address vector */

static int f_cards(void)
{
    g_rank = 0;
    char err[512], card[1024], bad[1100];
    xofi_params p = {.rank = 0, .size = 4, .inflight_bytes = 1 << 16, .max_packet = 1024};
    CHECK(xofi_open(&p, err, sizeof err) == 0, "open: %s", err);
    CHECK(xofi_card(card, sizeof card) == 0, "card");
    size_t n = strlen(card);
    CHECK(xofi_card(bad, n) == -ENOSPC, "a short card buffer was accepted");
    snprintf(bad, sizeof bad, "%.*s", (int)n - 1, card);
    CHECK(xofi_connect(1, bad, err, sizeof err) == -EINVAL, "odd length accepted");
    snprintf(bad, sizeof bad, "%.*s", (int)n - 2, card);
    CHECK(xofi_connect(1, bad, err, sizeof err) == -EINVAL, "short card accepted");
    snprintf(bad, sizeof bad, "%s00", card);
    CHECK(xofi_connect(1, bad, err, sizeof err) == -EINVAL, "long card accepted");
    snprintf(bad, sizeof bad, "%s", card);
    bad[5] = 'g';
    CHECK(xofi_connect(1, bad, err, sizeof err) == -EINVAL, "non-hex card accepted");
    CHECK(strstr(err, "hex") != NULL, "message: %s", err);
    snprintf(bad, sizeof bad, "%s", card);
    bad[0] = bad[0] == 'f' ? '0' : 'f'; /* another address family */
    CHECK(xofi_connect(1, bad, err, sizeof err) == -EINVAL, "foreign family accepted");
    char *huge = malloc(100000);
    memset(huge, 'a', 99999);
    huge[99999] = 0;
    CHECK(xofi_connect(1, huge, err, sizeof err) == -EINVAL, "huge card accepted");
    free(huge);
    CHECK(xofi_connect(1, NULL, err, sizeof err) == -EINVAL, "NULL card accepted");
    CHECK(xofi_connect(-1, card, err, sizeof err) == -EINVAL, "rank -1 accepted");
    CHECK(xofi_connect(4, card, err, sizeof err) == -EINVAL, "rank 4 of 4 accepted");
    CHECK(xofi_send(1, "x", 1) == -EINVAL, "send to an unconnected rank accepted");
    CHECK(xofi_connect(1, card, err, sizeof err) == 0, "a good card (our own) refused: %s", err);
    CHECK(xofi_send(1, "x", 0) == -EINVAL, "empty packet accepted");
    xofi_close();
    CHECK(xofi_send(1, "x", 1) < 0, "send after close");
    return 0;
}

static void test_bad_cards(void **unused)
{
    (void)unused;
    fflush(stdout);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int rc = f_cards();
        fflush(stdout);
        _exit(rc);
    }
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFEXITED(ws));
    assert_int_equal(WEXITSTATUS(ws), 0);
}

/* An unknown provider: one line naming FI_PROVIDER and what is offered. */
static int unknown_provider(void)
{
    setenv("FI_PROVIDER", "nosuchprovider", 1);
    char err[512];
    xofi_params p = {.rank = 0, .size = 1, .max_packet = 1024};
    int rc = xofi_open(&p, err, sizeof err);
    g_rank = 0;
    CHECK(rc < 0, "opened a provider that does not exist");
    CHECK(strstr(err, "nosuchprovider") != NULL && !strchr(err, '\n'), "message: %s", err);
    printf("unknown provider: %s\n", err);
    return 0;
}

static void test_unknown_provider(void **unused)
{
    (void)unused;
    fflush(stdout);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int rc = unknown_provider();
        fflush(stdout);
        _exit(rc);
    }
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFEXITED(ws));
    assert_int_equal(WEXITSTATUS(ws), 0);
}

int main(void)
{
    /* Loopback only, whatever the environment: this must never reach a real network. */
    setenv("FI_TCP_IFACE", "lo", 1);
    setenv("FI_UDP_IFACE", "lo", 1);
    setenv("FI_SOCKETS_IFACE", "lo", 1);
    setenv("FI_PROVIDER", "tcp;ofi_rxm", 0);
    const char *s = getenv("CREDO_TEST_SEED");
    g_seed = s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL) ^ (uint64_t)getpid() << 20;
    if (!g_seed)
        g_seed = 1;
    printf("seed %llu (CREDO_TEST_SEED repeats it), FI_PROVIDER=%s\n", (unsigned long long)g_seed,
           getenv("FI_PROVIDER"));
    fflush(stdout);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_cards),
        cmocka_unit_test(test_unknown_provider),
        cmocka_unit_test(test_packets_in_order),
        cmocka_unit_test(test_large_packets_in_order),
        cmocka_unit_test(test_echo_from_handler),
        cmocka_unit_test(test_flood_under_credits),
        cmocka_unit_test(test_flood_unbounded_is_seen),
        cmocka_unit_test(test_rma_reads_and_cache),
        cmocka_unit_test(test_wait_fd_wakes),
        cmocka_unit_test(test_dead_peer_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
