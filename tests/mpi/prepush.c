/* tests/mpi/prepush.c — medium rendezvous messages (above the eager limit, up to 128 KiB) that travel
 * with their request: order, data, wildcards, reuse of the send buffer right after MPI_Send. np >= 3. */
#include "testutil.h"

#define NMSG 40
/* 131072 is MBOX_PREPUSH_MAX, 131073 just above it (it takes the usual rendezvous). */
static const size_t medium[] = {3073, 4096, 8191, 8192, 16384, 32768, 65536, 131072, 131073, 5000};
#define MAXLEN 131073
#define NMED (sizeof medium / sizeof medium[0])

static int rank, size;

/* Outstanding sends, all unexpected, received in reverse order by tag. In the area_64k run (64 units
 * of 1 KiB) they need more units than the area has, so the rest take the usual rendezvous. */
static void many_unexpected(void) {
    if (rank == 1) {
        char *buf[NMSG];
        MPI_Request rq[NMSG];
        for (int i = 0; i < NMSG; i++) {
            size_t n = medium[i % NMED];
            buf[i] = tu_xmalloc(n);
            tu_fill(buf[i], n, rank, 100u + (unsigned)i);
            MPI_OK(MPI_Isend(buf[i], (int)n, MPI_BYTE, 0, i, MPI_COMM_WORLD, &rq[i]));
        }
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Waitall(NMSG, rq, MPI_STATUSES_IGNORE));
        for (int i = 0; i < NMSG; i++)
            free(buf[i]);
    } else {
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 0) {
            char *buf = tu_xmalloc(MAXLEN);
            for (int i = NMSG - 1; i >= 0; i--) {
                size_t n = medium[i % NMED];
                MPI_Status st;
                MPI_OK(MPI_Recv(buf, MAXLEN, MPI_BYTE, 1, i, MPI_COMM_WORLD, &st));
                int cnt;
                MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
                CHECK((size_t)cnt == n, "message %d: %d bytes, expected %zu", i, cnt, n);
                size_t bad = tu_verify(buf, n, 1, 100u + (unsigned)i);
                CHECK(bad == (size_t)-1, "message %d (%zu bytes): byte %zu wrong", i, n, bad);
            }
            free(buf);
        }
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* Two senders, one MPI_ANY_SOURCE receiver: every message intact, each sender's in its order. */
static void any_source(void) {
    if (rank == 1 || rank == 2) {
        for (int i = 0; i < NMSG; i++) {
            size_t n = medium[(i + (unsigned)rank) % NMED];
            char *b = tu_xmalloc(n);
            tu_fill(b, n, rank, 300u + (unsigned)i);
            MPI_OK(MPI_Send(b, (int)n, MPI_BYTE, 0, i, MPI_COMM_WORLD));
            /* The buffer is the sender's again once MPI_Send returns: overwrite it at once. */
            memset(b, 0xEE, n);
            free(b);
        }
    } else if (rank == 0) {
        char *buf = tu_xmalloc(MAXLEN);
        int next[3] = {0, 0, 0};
        for (int k = 0; k < 2 * NMSG; k++) {
            MPI_Status st;
            MPI_OK(MPI_Recv(buf, MAXLEN, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            int s = st.MPI_SOURCE, i = st.MPI_TAG;
            CHECK(s == 1 || s == 2, "message from rank %d", s);
            CHECK(i == next[s], "from rank %d: tag %d arrived, expected %d (order)", s, i, next[s]);
            next[s]++;
            size_t n = medium[(i + (unsigned)s) % NMED];
            size_t bad = tu_verify(buf, n, s, 300u + (unsigned)i);
            CHECK(bad == (size_t)-1, "from rank %d message %d: byte %zu wrong", s, i, bad);
        }
        free(buf);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* A synchronous send of a medium message completes only after the receive matched it. */
static void sync_waits_for_match(void) {
    char b[8192];
    if (rank == 1) {
        tu_fill(b, sizeof b, rank, 500);
        MPI_Request rq;
        MPI_OK(MPI_Issend(b, (int)sizeof b, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &rq));
        int flag = 0;
        double t0 = MPI_Wtime();
        while (MPI_Wtime() - t0 < 0.05) {
            MPI_OK(MPI_Test(&rq, &flag, MPI_STATUS_IGNORE));
            CHECK(!flag, "MPI_Issend of 8192 bytes completed before the receive was posted");
        }
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    } else {
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 0) {
            MPI_OK(MPI_Recv(b, (int)sizeof b, MPI_BYTE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            size_t bad = tu_verify(b, sizeof b, 1, 500);
            CHECK(bad == (size_t)-1, "synchronous 8192-byte message: byte %zu wrong", bad);
        }
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* Empty synchronous sends are rendezvous too, from a NULL buffer here: they have nothing to prepush
 * and go as a plain RTS that the FIN completes. (Prepushed, they once copied from NULL, undefined
 * behaviour that UBSan reports, and their FIN of zero units aborted the receiver.) */
static void empty_sync_sends(void) {
    if (rank == 1) {
        MPI_Request rq;
        MPI_OK(MPI_Ssend(NULL, 0, MPI_BYTE, 0, 11, MPI_COMM_WORLD));
        MPI_OK(MPI_Issend(NULL, 0, MPI_BYTE, 0, 12, MPI_COMM_WORLD, &rq));
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    } else if (rank == 0) {
        for (int tag = 11; tag <= 12; tag++) {
            MPI_Status st;
            int cnt = -1;
            MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &st));
            MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
            CHECK(cnt == 0, "empty synchronous message %d: count %d", tag, cnt);
        }
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

#ifdef CREDO_STATS
/* credo only (MPI allows either): with a free prepush block, a standard-mode medium send is
 * buffered and returns before its receive is posted; rank 0 posts it after a later message. */
static void standard_send_buffered(void) {
    char b[8192];
    if (rank == 1) {
        tu_fill(b, sizeof b, rank, 700);
        MPI_OK(MPI_Send(b, (int)sizeof b, MPI_BYTE, 0, 1, MPI_COMM_WORLD));
        memset(b, 0, sizeof b);
        MPI_OK(MPI_Send(b, 1, MPI_BYTE, 0, 2, MPI_COMM_WORLD));
    } else if (rank == 0) {
        MPI_OK(MPI_Recv(b, 1, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Recv(b, (int)sizeof b, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        size_t bad = tu_verify(b, sizeof b, 1, 700);
        CHECK(bad == (size_t)-1, "buffered 8192-byte message: byte %zu wrong", bad);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* Stream prepush: eager-sized messages above 384 B (512 here, 10 mailbox slots eager) go eager in a
 * ping-pong, where the peer answers each one, and with prepush (one RTS slot) when sent back to
 * back. Rank 1 counts the mailbox packets it wrote for each phase; the data is checked either way. */
#define SMALL_N 50
#define SMALL_LEN 512
static uint64_t packets_sent(void) {
    credo_fc_stats fs;
    CHECK(credo_fc_stats_get(&fs) == 0, "credo_fc_stats_get failed");
    return fs.data_packets_sent;
}
static void stream_prepush(void) {
    static char b[SMALL_N][SMALL_LEN];
    if (rank == 1) {
        uint64_t p0 = packets_sent();
        for (int i = 0; i < SMALL_N; i++) {
            tu_fill(b[0], SMALL_LEN, rank, 800u + (unsigned)i);
            MPI_OK(MPI_Send(b[0], SMALL_LEN, MPI_BYTE, 0, 20, MPI_COMM_WORLD));
            MPI_OK(MPI_Recv(b[1], 1, MPI_BYTE, 0, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        uint64_t pingpong = packets_sent() - p0;
        MPI_Request rq[SMALL_N];
        p0 = packets_sent();
        for (int i = 0; i < SMALL_N; i++) {
            tu_fill(b[i], SMALL_LEN, rank, 900u + (unsigned)i);
            MPI_OK(MPI_Isend(b[i], SMALL_LEN, MPI_BYTE, 0, 22, MPI_COMM_WORLD, &rq[i]));
        }
        uint64_t stream = packets_sent() - p0;
        MPI_OK(MPI_Waitall(SMALL_N, rq, MPI_STATUSES_IGNORE));
        /* a ping-pong message is 10 slots eager; a streamed one 1 (a few may go eager if an answer
         * of rank 0 arrives in between, which it does not here) */
        CHECK(pingpong >= 9u * SMALL_N, "ping-pong of %d-byte messages wrote %llu packets: not eager",
              SMALL_LEN, (unsigned long long)pingpong);
        CHECK(stream <= 2u * SMALL_N, "stream of %d-byte messages wrote %llu packets: not prepushed",
              SMALL_LEN, (unsigned long long)stream);
    } else if (rank == 0) {
        for (int i = 0; i < SMALL_N; i++) {
            MPI_OK(MPI_Recv(b[0], SMALL_LEN, MPI_BYTE, 1, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            size_t bad = tu_verify(b[0], SMALL_LEN, 1, 800u + (unsigned)i);
            CHECK(bad == (size_t)-1, "ping-pong message %d: byte %zu wrong", i, bad);
            MPI_OK(MPI_Send(b[1], 1, MPI_BYTE, 1, 21, MPI_COMM_WORLD));
        }
        for (int i = 0; i < SMALL_N; i++) {
            MPI_Status st;
            int cnt = -1;
            MPI_OK(MPI_Recv(b[i], SMALL_LEN, MPI_BYTE, 1, 22, MPI_COMM_WORLD, &st));
            MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
            size_t bad = tu_verify(b[i], SMALL_LEN, 1, 900u + (unsigned)i);
            CHECK(cnt == SMALL_LEN && bad == (size_t)-1, "streamed message %d: %d bytes, byte %zu wrong", i,
                  cnt, bad);
        }
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}
#endif

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 3, "prepush needs at least 3 ranks");
    for (int round = 0; round < 3; round++) {
        many_unexpected();
        any_source();
        sync_waits_for_match();
        empty_sync_sends();
    }
    tu_note("%d medium messages unexpected and received out of order, %d by MPI_ANY_SOURCE from 2 "
            "senders, synchronous sends held until matched: data and order intact",
            3 * NMSG, 3 * 2 * NMSG);
#ifdef CREDO_STATS
    /* CMA for every rendezvous (CREDO_CMA_MIN=0, or its default with the progress thread) keeps
     * the single copy and sends no data with the request; CREDO_PREPUSH_BYTES=0 turns prepush off. */
    const char *cma_min = getenv("CREDO_CMA_MIN"), *pt = getenv("CREDO_PROGRESS_THREAD");
    const char *area = getenv("CREDO_PREPUSH_BYTES");
    if (!(cma_min && strcmp(cma_min, "0") == 0) && !(pt && strcmp(pt, "1") == 0 && !cma_min) &&
        !(area && strcmp(area, "0") == 0)) {
        standard_send_buffered();
        tu_note("a standard-mode 8192-byte send returned before its receive was posted");
        const char *eager = getenv("CREDO_EAGER_LIMIT");
        if (!eager || atoi(eager) <= 512) {
            stream_prepush();
            tu_note("%d-byte messages: eager in a ping-pong, prepushed back to back", SMALL_LEN);
        }
    }
#endif
    MPI_Finalize();
    return 0;
}
