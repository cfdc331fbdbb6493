/* examples/credo_demo.c — the main demo: ranks exchange messages under credit flow control, then
 * flood one busy rank, and rank 0 prints what flow control did on every rank. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <credo/stats.h>

#define RING_MSGS 2000
#define RING_BYTES 512 /* the default eager limit: every message goes through the mailbox */
#define FLOOD_MSGS 3000
#define FLOOD_BYTES 512

static void fill(unsigned char *b, size_t n, int src, int i)
{
    for (size_t k = 0; k < n; k++)
        b[k] = (unsigned char)(src * 31 + i * 7 + k);
}

static int check(const unsigned char *b, size_t n, int src, int i)
{
    for (size_t k = 0; k < n; k++)
        if (b[k] != (unsigned char)(src * 31 + i * 7 + k))
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static unsigned char sbuf[RING_BYTES], rbuf[RING_BYTES];
    long bad = 0;

    /* Phase 1: a ring, every rank streams to its right neighbour. */
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double t0 = MPI_Wtime();
    for (int i = 0; i < RING_MSGS; i++) {
        MPI_Request rq;
        MPI_Irecv(rbuf, RING_BYTES, MPI_BYTE, left, 1, MPI_COMM_WORLD, &rq);
        fill(sbuf, RING_BYTES, rank, i);
        MPI_Send(sbuf, RING_BYTES, MPI_BYTE, right, 1, MPI_COMM_WORLD);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        bad += !check(rbuf, RING_BYTES, left, i);
    }
    double t_ring = MPI_Wtime() - t0;

    /* Phase 2: everybody floods rank 0 while it is busy; its mailbox stays bounded by the credits. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        struct timespec ts = {0, 200 * 1000 * 1000};
        nanosleep(&ts, NULL); /* busy elsewhere: senders run out of credits and queue */
        for (int src = 1; src < size; src++)
            for (int i = 0; i < FLOOD_MSGS; i++) {
                MPI_Recv(rbuf, FLOOD_BYTES, MPI_BYTE, src, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                bad += !check(rbuf, FLOOD_BYTES, src, i);
            }
    } else {
        for (int i = 0; i < FLOOD_MSGS; i++) {
            fill(sbuf, FLOOD_BYTES, rank, i);
            MPI_Send(sbuf, FLOOD_BYTES, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
        }
    }

    credo_fc_stats st;
    memset(&st, 0, sizeof st);
    credo_fc_stats_get(&st);
    uint64_t mine[8] = {st.data_packets_sent, st.credit_packets_sent, st.piggybacked_credits, st.delayed_sends,
                        st.delay_ns / 1000, st.peak_occupancy, st.mailbox_slots, (uint64_t)bad};
    uint64_t all[8 * 64];
    int shown = size < 64 ? size : 64;
    if (rank < shown && rank != 0)
        MPI_Send(mine, 8, MPI_UINT64_T, 0, 3, MPI_COMM_WORLD);
    if (rank == 0) {
        memcpy(all, mine, sizeof mine);
        for (int r = 1; r < shown; r++)
            MPI_Recv(all + 8 * r, 8, MPI_UINT64_T, r, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("credo demo: %d ranks, flow control '%s'\n", size, st.scheme);
        printf("phase 1: ring of %d x %d B messages per rank in %.1f ms\n", RING_MSGS, RING_BYTES, t_ring * 1e3);
        printf("phase 2: %d ranks flooded rank 0 (asleep for 200 ms) with %d x %d B each\n\n", size - 1, FLOOD_MSGS,
               FLOOD_BYTES);
        printf("%4s %10s %8s %11s %8s %10s %13s %6s\n", "rank", "data_pkts", "credits", "piggybacked", "delayed",
               "delay_us", "peak/mailbox", "errors");
        long total_bad = 0, over = 0;
        for (int r = 0; r < shown; r++) {
            uint64_t *a = all + 8 * r;
            char occ[32];
            snprintf(occ, sizeof occ, "%llu/%llu", (unsigned long long)a[5], (unsigned long long)a[6]);
            printf("%4d %10llu %8llu %11llu %8llu %10llu %13s %6llu\n", r, (unsigned long long)a[0],
                   (unsigned long long)a[1], (unsigned long long)a[2], (unsigned long long)a[3],
                   (unsigned long long)a[4], occ, (unsigned long long)a[7]);
            total_bad += (long)a[7];
            over += a[5] > a[6];
        }
        printf("\n%s: %s; %s\n", total_bad || over ? "FAILED" : "OK",
               total_bad ? "some messages were NOT intact" : "every message arrived intact and in order",
               over ? "a mailbox exceeded its slots!" : "no mailbox held more than its slots.");
        bad = total_bad + over;
    }
    MPI_Finalize();
    return bad ? 1 : 0;
}
