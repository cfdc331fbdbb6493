/* tests/p2p/p2p_smoke.c — the p2p engine alone (no MPI layer): every size class between two ranks with
 * data verified, unexpected and expected arrival, and an 8-byte ping-pong timing printed (not asserted). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/core.h"
#include "credo/stats.h"
#include "p2p/p2p.h"

#define CHECK(c, ...)                                                                                      \
    do {                                                                                                   \
        if (!(c)) {                                                                                        \
            fprintf(stderr, "FAIL rank %d line %d: ", credo_rt.rank, __LINE__);                            \
            fprintf(stderr, __VA_ARGS__);                                                                  \
            fputc('\n', stderr);                                                                           \
            credo_abort(1, "test failed");                                                                 \
        }                                                                                                  \
    } while (0)

static unsigned char pat(size_t size, int src, size_t i)
{
    return (unsigned char)(size * 13 + (size_t)src * 101 + i * 7 + (i >> 8));
}

static void barrier(void)
{
    /* crude barrier over p2p: everyone to 0, 0 to everyone */
    int me = credo_rt.rank, n = credo_rt.size;
    char b = 0;
    if (me == 0) {
        for (int r = 1; r < n; r++)
            p2p_recv(&b, 1, r, 999, 7, NULL);
        for (int r = 1; r < n; r++)
            p2p_send(&b, 1, r, 999, 7, 0);
    } else {
        p2p_send(&b, 1, 0, 999, 7, 0);
        p2p_recv(&b, 1, 0, 999, 7, NULL);
    }
}

int main(int argc, char **argv)
{
    if (credo_init())
        return 1;
    int me = credo_rt.rank, n = credo_rt.size;
    CHECK(n >= 2 && n % 2 == 0, "needs an even number of ranks (pairs; the unexpected-message phase has a barrier inside the pair code), got %d", n);
    size_t sizes[] = {0, 1, 8, 39, 40, 41, 96, 1000, 2047, 4096, 4097, 65536, 1 << 20, (16 << 20) + 3};
    int ns = (int)(sizeof sizes / sizeof sizes[0]);
    unsigned char *s = malloc((16 << 20) + 16), *r = malloc((16 << 20) + 16);
    int peer = me ^ 1;
    if (peer < n) {
        for (int k = 0; k < ns; k++) {
            size_t sz = sizes[k];
            for (size_t i = 0; i < sz; i++)
                s[i] = pat(sz, me, i);
            /* expected: post the receive first */
            p2p_req *rq, *sq;
            p2p_irecv(r, sz, peer, (int)k, 1, &rq);
            p2p_isend(s, sz, peer, (int)k, 1, 0, &sq);
            p2p_wait(sq);
            p2p_wait(rq);
            CHECK(rq->status.bytes == sz && rq->status.error == 0 && rq->status.source == peer, "status size %zu", sz);
            for (size_t i = 0; i < sz; i++)
                CHECK(r[i] == pat(sz, peer, i), "size %zu byte %zu", sz, i);
            p2p_req_free(rq);
            p2p_req_free(sq);
        }
        /* unexpected: send everything, then receive in reverse tag order */
        p2p_req *sq[32];
        for (size_t i = 0; i < 65536; i++)
            s[i] = pat(65536, me, i);
        for (int k = 0; k < ns; k++)
            if (sizes[k] <= 65536)
                p2p_isend(s, sizes[k], peer, 100 + k, 1, 0, &sq[k]);
        barrier();
        for (int k = ns - 1; k >= 0; k--) {
            if (sizes[k] > 65536)
                continue;
            p2p_status st;
            memset(r, 0xee, sizes[k] + 1);
            CHECK(p2p_recv(r, sizes[k], P2P_ANY_SOURCE, 100 + k, 1, &st) == 0, "recv");
            CHECK(st.bytes == sizes[k] && st.source == peer, "unexpected status %zu", sizes[k]);
            for (size_t i = 0; i < sizes[k]; i++)
                CHECK(r[i] == pat(65536, peer, i), "unexpected size %zu byte %zu", sizes[k], i);
            CHECK(r[sizes[k]] == 0xee, "overrun");
        }
        for (int k = 0; k < ns; k++)
            if (sizes[k] <= 65536) {
                p2p_wait(sq[k]);
                p2p_req_free(sq[k]);
            }
        /* ping-pong timing */
        int iters = argc > 1 ? atoi(argv[1]) : 20000;
        char b[8] = {0};
        struct timespec t0, t1;
        for (int rep = 0; rep < 2; rep++) {
            clock_gettime(CLOCK_MONOTONIC, &t0);
            for (int i = 0; i < iters; i++) {
                if (me < peer) {
                    p2p_send(b, 8, peer, 5, 1, 0);
                    p2p_recv(b, 8, peer, 5, 1, NULL);
                } else {
                    p2p_recv(b, 8, peer, 5, 1, NULL);
                    p2p_send(b, 8, peer, 5, 1, 0);
                }
            }
            clock_gettime(CLOCK_MONOTONIC, &t1);
        }
        double us = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e3 / iters / 2;
        if (me == 0)
            printf("p2p 8-byte half round trip: %.3f us\n", us);
    }
    barrier();
    if (peer < n) {
        /* everything was received: nothing is held unexpected here, nothing waits to be sent */
        credo_fc_peer_stats ps;
        CHECK(credo_fc_peer_stats_get(peer, &ps) == 0, "peer stats");
        CHECK(ps.held_slots == 0 && ps.queued_sends == 0, "held %u queued %u", ps.held_slots, ps.queued_sends);
        CHECK(credo_fc_peer_stats_get(me, &ps) == -1 && credo_fc_peer_stats_get(n, &ps) == -1, "bad peer accepted");
    }
    if (me == 0)
        printf("p2p smoke: %d ranks OK\n", n);
    free(s);
    free(r);
    credo_finalize();
    return 0;
}
