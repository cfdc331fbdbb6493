/* tests/net/rdrp.c — the receiver-driven chunked rendezvous over the network transport: data
 * integrity at every chunk boundary, both directions, and the window bound (reads outstanding never
 * exceed CREDO_RNDV_WINDOW), read from credo's own counters. Run with CREDO_XPORT=ofi, 2 ranks.
 * usage: rdrp [seed]  (a failure prints the seed that replays it) */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <credo/stats.h>

static uint64_t rng;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void fill(unsigned char *p, size_t n, uint64_t key)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)((i * 131u + key * 7u + (i >> 12)) ^ (key >> 3));
}

static size_t env_size(const char *name, size_t def)
{
    const char *e = getenv(name);
    if (!e || !*e)
        return def;
    char *end;
    unsigned long long v = strtoull(e, &end, 10);
    if (*end == 'k' || *end == 'K')
        v <<= 10;
    else if (*end == 'm' || *end == 'M')
        v <<= 20;
    return (size_t)v;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 0x5eed0001u;
    rng = seed | 1;
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "rdrp: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char tr[16] = "";
    credo_peer_transport(1 - rank, tr, sizeof tr);
    if (strcmp(tr, "ofi") != 0) {
        fprintf(stderr, "rdrp: rank %d reaches its peer over %s, not the network (set CREDO_XPORT=ofi)\n", rank, tr);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t S = env_size("CREDO_RNDV_CHUNK", 524288), c = env_size("CREDO_RNDV_WINDOW", 2);
    /* the network eager limit: set by the test, or auto, which is at most 16 KiB */
    const char *ne = getenv("CREDO_NET_EAGER_LIMIT");
    size_t eager = ne && strcmp(ne, "auto") ? env_size("CREDO_NET_EAGER_LIMIT", 16384) : 16384;
    /* every chunk boundary of the first c + 2 chunks (the window fills, then slides), and around
     * the eager limit, then random sizes up to 24 chunks */
    size_t sizes[256];
    int ns = 0;
    sizes[ns++] = eager + 1;
    sizes[ns++] = eager + 2;
    for (size_t k = 1; k <= c + 2; k++) {
        sizes[ns++] = k * S - 1;
        sizes[ns++] = k * S;
        sizes[ns++] = k * S + 1;
    }
    while (ns < 60)
        sizes[ns++] = eager + 1 + (size_t)(next_rand() % (24 * S));
    size_t max = 0;
    for (int i = 0; i < ns; i++)
        if (sizes[i] > max)
            max = sizes[i];
    unsigned char *sbuf = malloc(max), *rbuf = malloc(max + 64), *want = malloc(max);
    if (!sbuf || !rbuf || !want)
        MPI_Abort(MPI_COMM_WORLD, 3);
    int errors = 0;
    for (int dir = 0; dir < 2; dir++) {
        int sender = dir;
        for (int i = 0; i < ns; i++) {
            size_t n = sizes[i];
            uint64_t key = seed + (uint64_t)i * 977 + (uint64_t)dir;
            if (rank == sender) {
                fill(sbuf, n, key);
                MPI_Send(sbuf, (int)n, MPI_BYTE, 1 - rank, i, MPI_COMM_WORLD);
            } else {
                memset(rbuf, 0xA5, n + 64);
                MPI_Status st;
                /* every other message arrives before its receive is posted (unexpected RTS) */
                if (i & 1)
                    MPI_Probe(1 - rank, i, MPI_COMM_WORLD, &st);
                MPI_Recv(rbuf, (int)n + 64, MPI_BYTE, 1 - rank, i, MPI_COMM_WORLD, &st);
                int got;
                MPI_Get_count(&st, MPI_BYTE, &got);
                fill(want, n, key);
                size_t bad = n;
                for (size_t k = 0; k < n; k++)
                    if (rbuf[k] != want[k]) {
                        bad = k;
                        break;
                    }
                int tail_ok = 1;
                for (size_t k = n; k < n + 64; k++)
                    tail_ok &= rbuf[k] == 0xA5;
                if ((size_t)got != n || bad != n || !tail_ok) {
                    fprintf(stderr, "rdrp: seed %#llx: message %d of %zu bytes from rank %d: count %d, first bad "
                            "byte %zu, bytes after it %s\n", (unsigned long long)seed, i, n, sender, got,
                            bad, tail_ok ? "untouched" : "overwritten");
                    errors++;
                }
            }
        }
    }
    /* Several pulls at once: each keeps its own window. */
    enum { NPAR = 4 };
    size_t pn = 5 * S + 17;
    unsigned char *pb[NPAR];
    MPI_Request rq[NPAR];
    for (int k = 0; k < NPAR; k++) {
        pb[k] = malloc(pn);
        if (!pb[k])
            MPI_Abort(MPI_COMM_WORLD, 3);
        if (rank == 0) {
            fill(pb[k], pn, seed + 1000 + (uint64_t)k);
            MPI_Isend(pb[k], (int)pn, MPI_BYTE, 1, 500 + k, MPI_COMM_WORLD, &rq[k]);
        } else {
            MPI_Irecv(pb[k], (int)pn, MPI_BYTE, 0, 500 + k, MPI_COMM_WORLD, &rq[k]);
        }
    }
    MPI_Waitall(NPAR, rq, MPI_STATUSES_IGNORE);
    if (rank == 1)
        for (int k = 0; k < NPAR; k++) {
            fill(want, pn, seed + 1000 + (uint64_t)k);
            if (memcmp(pb[k], want, pn) != 0) {
                fprintf(stderr, "rdrp: seed %#llx: concurrent pull %d corrupt\n", (unsigned long long)seed, k);
                errors++;
            }
        }
    for (int k = 0; k < NPAR; k++)
        free(pb[k]);

    credo_net_stats ns_;
    if (credo_net_stats_get(&ns_) != 0) {
        fprintf(stderr, "rdrp: rank %d: no network statistics\n", rank);
        errors++;
    } else {
        /* Each rank received ns messages of its own direction, plus the concurrent ones at rank 1.
         * A message that fits the RTS's first chunk (at most one chunk S) needs no pull; every
         * longer one does. */
        uint64_t most = (uint64_t)ns + (rank == 1 ? NPAR : 0), least = rank == 1 ? NPAR : 0;
        for (int i = 0; i < ns; i++)
            least += sizes[i] > S && sizes[i] > eager;
        if (ns_.rndv_pulls < least || ns_.rndv_pulls > most || ns_.rndv_reads < ns_.rndv_pulls) {
            fprintf(stderr, "rdrp: rank %d: %llu pulls and %llu reads, expected %llu to %llu pulls\n", rank,
                    (unsigned long long)ns_.rndv_pulls, (unsigned long long)ns_.rndv_reads,
                    (unsigned long long)least, (unsigned long long)most);
            errors++;
        }
        if (ns_.rndv_max_outstanding > c || ns_.rndv_max_outstanding == 0) {
            fprintf(stderr, "rdrp: rank %d: %llu reads outstanding at once in one pull, window is %zu\n", rank,
                    (unsigned long long)ns_.rndv_max_outstanding, c);
            errors++;
        }
        if (ns_.rx_dry) {
            fprintf(stderr, "rdrp: rank %d: the network mailbox ran dry %llu times\n", rank,
                    (unsigned long long)ns_.rx_dry);
            errors++;
        }
        printf("rdrp rank %d: provider %s, %llu pulls, %llu reads (%llu bytes), max outstanding %llu of %zu, "
               "mr hits %llu misses %llu\n", rank, ns_.provider, (unsigned long long)ns_.rndv_pulls,
               (unsigned long long)ns_.rndv_reads, (unsigned long long)ns_.rndv_read_bytes,
               (unsigned long long)ns_.rndv_max_outstanding, c, (unsigned long long)ns_.mr_hits,
               (unsigned long long)ns_.mr_misses);
    }
    int all;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    free(sbuf);
    free(rbuf);
    free(want);
    MPI_Finalize();
    if (rank == 0 && all == 0)
        printf("rdrp: OK (seed %#llx)\n", (unsigned long long)seed);
    return all != 0;
}
