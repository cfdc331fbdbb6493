/* tests/mpi/busy_sender.c — a rendezvous message whose sender makes no MPI call after MPI_Isend (it
 * computes), or stops making them in the middle of a pipelined copy, still reaches the receiver that
 * waits for it: credo then pulls it, or the rest of it, with CMA; and a receiver that matches a
 * message outside a wait reads it whole at once, so its sender need not wait for the receiver's next
 * MPI call. And the other side of that rule: a
 * blocking MPI_Send is seen as waiting from its RTS on, so every message of a ping-pong takes the
 * same path. np 2. */
#include "testutil.h"

#include <errno.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "busy_sender needs 2 ranks");
#ifdef CREDO_STATS
    /* The property holds for credo's default (CREDO_CMA_MIN=auto) wherever the kernel lets one rank
     * read another's memory; find that out the way the library does, with one small read. */
    static char probe[64] = "credo";
    uint64_t addr = (uint64_t)(uintptr_t)probe;
    int pid = (int)getpid(), peer_pid = 0, ok = 1;
    MPI_OK(MPI_Sendrecv(&pid, 1, MPI_INT, 1 - rank, 0, &peer_pid, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
    uint64_t peer_addr = 0;
    MPI_OK(MPI_Sendrecv(&addr, 1, MPI_UINT64_T, 1 - rank, 1, &peer_addr, 1, MPI_UINT64_T, 1 - rank, 1,
                        MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    char got[64];
    struct iovec l = {got, sizeof got}, r = {(void *)(uintptr_t)peer_addr, sizeof got};
    if (process_vm_readv(peer_pid, &l, 1, &r, 1, 0) != (ssize_t)sizeof got)
        ok = 0;
    int all = 0;
    MPI_OK(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
    const char *cma = getenv("CREDO_CMA"), *cma_min = getenv("CREDO_CMA_MIN");
    if (!all || (cma && strcmp(cma, "0") == 0) || (cma_min && strcmp(cma_min, "auto") != 0)) {
        tu_note("skipped: CMA %s", all ? "turned off or given a threshold" : "refused by the kernel");
        MPI_Finalize();
        return 0;
    }

    /* rank 1 tells rank 0 through shared memory, not MPI, that a message arrived */
    MPI_Win win;
    volatile int *flag;
    MPI_OK(MPI_Win_allocate_shared(rank == 0 ? (MPI_Aint)sizeof(int) : 0, (int)sizeof(int), MPI_INFO_NULL,
                                   MPI_COMM_WORLD, (void *)&flag, &win));
    MPI_Aint wsize;
    int disp;
    MPI_OK(MPI_Win_shared_query(win, 0, &wsize, &disp, (void *)&flag));
    if (rank == 0)
        *flag = 0;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    static const size_t sizes[] = {262144, 1 << 20, 4 << 20};
    for (int i = 0; i < 3; i++) {
        size_t n = sizes[i];
        char *buf = tu_xmalloc(n);
        if (rank == 0) {
            tu_fill(buf, n, rank, 40u + (unsigned)i);
            MPI_Request rq;
            MPI_OK(MPI_Isend(buf, (int)n, MPI_BYTE, 1, i, MPI_COMM_WORLD, &rq));
            /* "compute": no MPI call until rank 1 has the message, or give up after 20 s */
            double t0 = now_s();
            while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != i + 1 && now_s() - t0 < 20.0)
                ;
            CHECK(__atomic_load_n(flag, __ATOMIC_ACQUIRE) == i + 1,
                  "a %zu-byte message waited for its sender to call MPI again (20 s)", n);
            MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        } else {
            MPI_OK(MPI_Recv(buf, (int)n, MPI_BYTE, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            size_t bad = tu_verify(buf, n, 0, 40u + (unsigned)i);
            CHECK(bad == (size_t)-1, "%zu-byte message: byte %zu wrong", n, bad);
            __atomic_store_n(flag, i + 1, __ATOMIC_RELEASE);
        }
        free(buf);
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    tu_note("256 KiB, 1 MiB and 4 MiB messages arrived while their sender made no MPI call");

    /* The sender leaves MPI in the middle of a pipelined copy: rank 1 posts its receive first and
     * matches the request-to-send inside MPI_Wait while rank 0 waits in a blocking receive, so the
     * copy is chosen and its first chunks go; then rank 0 gets its token and computes. The receiver
     * takes the rest over with CMA instead of waiting for the sender's next MPI call, and the send
     * completes while the receiver computes in turn. Which path rank 1 takes depends on timing (a
     * sender that is not inside its receive yet gets the whole message read with CMA, which
     * completes at once, and a sender that stays in MPI_Recv until the copy is done needs no
     * takeover), so a round is repeated, up to 5 times, until the copy was taken over. */
    static const size_t big[] = {4 << 20, 16 << 20};
    int copied = 0;
    for (int i = 0; i < 2; i++) {
        size_t n = big[i];
        char *buf = tu_xmalloc(n);
        if (rank == 0)
            tu_fill(buf, n, rank, 50u + (unsigned)i);
        for (int attempt = 0; attempt < 5; attempt++) {
            int tag = 10 + i, token = 0, mark = 100 + 10 * i + attempt;
            credo_fc_stats before, after;
            MPI_Request rq = MPI_REQUEST_NULL, tq;
            if (rank == 1) {
                memset(buf, 0, n);
                MPI_OK(MPI_Irecv(buf, (int)n, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &rq));
            }
            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
            MPI_OK(credo_fc_stats_get(&before) == 0 ? MPI_SUCCESS : MPI_ERR_OTHER);
            if (rank == 0) {
                MPI_OK(MPI_Isend(buf, (int)n, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &rq));
                MPI_OK(MPI_Recv(&token, 1, MPI_INT, 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                /* "compute": no MPI call until rank 1 has the message, or give up after 20 s */
                double t0 = now_s();
                while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != mark && now_s() - t0 < 20.0)
                    ;
                CHECK(__atomic_load_n(flag, __ATOMIC_ACQUIRE) == mark,
                      "a %zu-byte message in mid-copy waited for its sender to call MPI again (20 s)", n);
                MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
                __atomic_store_n(flag, mark + 1, __ATOMIC_RELEASE);
            } else {
                usleep(20000); /* rank 0 is inside MPI_Recv by now, unless the machine is loaded */
                MPI_OK(MPI_Isend(&token, 1, MPI_INT, 0, tag, MPI_COMM_WORLD, &tq)); /* no progress here */
                MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE)); /* matches the request-to-send in a wait */
                MPI_OK(MPI_Wait(&tq, MPI_STATUS_IGNORE));
                size_t bad = tu_verify(buf, n, 0, 50u + (unsigned)i);
                CHECK(bad == (size_t)-1, "%zu-byte message in mid-copy: byte %zu wrong", n, bad);
                credo_fc_stats mid;
                MPI_OK(credo_fc_stats_get(&mid) == 0 ? MPI_SUCCESS : MPI_ERR_OTHER);
                __atomic_store_n(flag, mark, __ATOMIC_RELEASE);
                if (mid.copy_takeovers > before.copy_takeovers) {
                    /* we took the rest over and now compute: rank 0's send, whose chunks we have not
                     * all acknowledged, must complete without our next MPI call, as we read
                     * everything (the copy done word). Otherwise its completion may wait for an
                     * answer that our next call sends (a FIN short of credits): nothing to check. */
                    double t0 = now_s();
                    while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != mark + 1 && now_s() - t0 < 20.0)
                        ;
                    CHECK(__atomic_load_n(flag, __ATOMIC_ACQUIRE) == mark + 1,
                          "a %zu-byte send whose receiver read the rest itself waited for the receiver's next MPI "
                          "call (20 s)", n);
                }
            }
            MPI_OK(credo_fc_stats_get(&after) == 0 ? MPI_SUCCESS : MPI_ERR_OTHER);
            unsigned long long d = after.copy_takeovers - before.copy_takeovers, sum = 0;
            MPI_OK(MPI_Allreduce(&d, &sum, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
            CHECK(sum <= 1, "%zu-byte copy taken over %llu times", n, sum);
            if (sum == 1) {
                copied++;
                break;
            }
        }
        free(buf);
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    if (copied == 2)
        tu_note("4 MiB and 16 MiB messages arrived after their sender left MPI in mid-copy, and the sends "
                "completed while the receiver computed");
    else
        tu_note("%d of 2 sizes were taken over (the others were read whole with CMA, or the sender stayed "
                "inside MPI, as the machine was busy)", copied);

    /* The mirror: a receiver that matches the message outside a wait (MPI_Irecv of a message that
     * has arrived) while its sender waits inside MPI_Send reads it whole with CMA at once. The copy
     * would leave the sender's MPI_Send waiting for the receiver's next MPI call if the receiver then
     * computed (credo once had the sender write the rest itself in that case, a fifth rendezvous
     * variant, removed with issue 27). */
    for (int i = 0; i < 2; i++) {
        size_t n = big[i];
        char *buf = tu_xmalloc(n);
        if (rank == 0)
            tu_fill(buf, n, rank, 60u + (unsigned)i);
        int tag = 30 + i, done = 0, mark = 200 + i;
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        credo_fc_stats before, after;
        MPI_OK(credo_fc_stats_get(&before) == 0 ? MPI_SUCCESS : MPI_ERR_OTHER);
        if (rank == 0) {
            MPI_OK(MPI_Send(buf, (int)n, MPI_BYTE, 1, tag, MPI_COMM_WORLD));
            __atomic_store_n(flag, mark, __ATOMIC_RELEASE);
        } else {
            MPI_Request rq;
            int there = 0;
            while (!there) /* the request-to-send has arrived (probing matches nothing) */
                MPI_OK(MPI_Iprobe(0, tag, MPI_COMM_WORLD, &there, MPI_STATUS_IGNORE));
            memset(buf, 0, n);
            MPI_OK(MPI_Irecv(buf, (int)n, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &rq));
            MPI_OK(MPI_Test(&rq, &done, MPI_STATUS_IGNORE));
            CHECK(done, "a %zu-byte receive matched in MPI_Irecv was not complete at the next MPI_Test", n);
            /* "compute": rank 0's MPI_Send completes without our next MPI call */
            double t0 = now_s();
            while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != mark && now_s() - t0 < 20.0)
                ;
            CHECK(__atomic_load_n(flag, __ATOMIC_ACQUIRE) == mark,
                  "a %zu-byte MPI_Send waited for its receiver, which matched it and then computed, to call MPI "
                  "again (20 s)", n);
            size_t bad = tu_verify(buf, n, 0, 60u + (unsigned)i);
            CHECK(bad == (size_t)-1, "%zu-byte message: byte %zu wrong", n, bad);
            MPI_OK(credo_fc_stats_get(&after) == 0 ? MPI_SUCCESS : MPI_ERR_OTHER);
            CHECK(after.rndv_cma_pulls == before.rndv_cma_pulls + 1 && after.rndv_copies == before.rndv_copies,
                  "rank 1: CMA reads %llu -> %llu, copies %llu -> %llu", (unsigned long long)before.rndv_cma_pulls,
                  (unsigned long long)after.rndv_cma_pulls, (unsigned long long)before.rndv_copies,
                  (unsigned long long)after.rndv_copies);
        }
        free(buf);
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    tu_note("4 MiB and 16 MiB receives matched outside a wait were read whole at once, and their senders' MPI_Send "
            "returned while the receiver computed");
    MPI_OK(MPI_Win_free(&win));

    /* A blocking ping-pong: each MPI_Send waits right after its RTS, so the receiver must see its
     * sender as waiting and take the same path for every message (the copy: CTS, chunks and their
     * acknowledgements; CMA would be one FIN). Rank 0 counts the packets it writes per round trip;
     * when the flag went up only after the RTS, about one message in six took CMA and the count
     * moved. */
    enum { PP_BYTES = 512 * 1024, PP_ROUNDS = 200 };
    char *pp = tu_xmalloc(PP_BYTES);
    memset(pp, rank, PP_BYTES);
    uint64_t lo = UINT64_MAX, hi = 0;
    credo_fc_stats st0, st1;
    for (int k = 0; k < PP_ROUNDS; k++) {
        if (rank == 0) {
            MPI_OK(credo_fc_stats_get(&st0) == 0 ? MPI_SUCCESS : MPI_ERR_OTHER);
            MPI_OK(MPI_Send(pp, PP_BYTES, MPI_BYTE, 1, 20, MPI_COMM_WORLD));
            MPI_OK(MPI_Recv(pp, PP_BYTES, MPI_BYTE, 1, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            MPI_OK(credo_fc_stats_get(&st1) == 0 ? MPI_SUCCESS : MPI_ERR_OTHER);
            uint64_t d = st1.data_packets_sent - st0.data_packets_sent;
            lo = d < lo ? d : lo;
            hi = d > hi ? d : hi;
        } else {
            MPI_OK(MPI_Recv(pp, PP_BYTES, MPI_BYTE, 0, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            MPI_OK(MPI_Send(pp, PP_BYTES, MPI_BYTE, 0, 21, MPI_COMM_WORLD));
        }
    }
    if (rank == 0) {
        CHECK(lo == hi, "ping-pong of %d-byte blocking sends: %llu to %llu packets per round trip (a receiver "
              "saw a blocking sender as not waiting)", PP_BYTES, (unsigned long long)lo, (unsigned long long)hi);
        tu_note("%d blocking 512 KiB round trips took %llu packets each", PP_ROUNDS, (unsigned long long)lo);
    }
    free(pp);

    /* The same for a wait loop of the MPI layer: rank 0 posts its rendezvous sends and then waits in
     * MPI_Waitany for a message that rank 1 sends only after it received them all, one by one. Rank
     * 0 is inside MPI the whole time, so each receive must take the copy and cost rank 1 the same
     * packets. When the flag went up only during each step of the loop (not between two, where
     * the loop looks at its requests), it read as down now and then, most often right after a
     * completion woke the loop, and those messages took CMA. */
    enum { WA_BYTES = 512 * 1024, WA_MSGS = 40 };
    char *wa = tu_xmalloc((size_t)WA_BYTES * WA_MSGS);
    memset(wa, rank + 1, (size_t)WA_BYTES * WA_MSGS);
    if (rank == 0) {
        MPI_Request sreq[WA_MSGS];
        for (int k = 0; k < WA_MSGS; k++)
            MPI_OK(MPI_Isend(wa + (size_t)k * WA_BYTES, WA_BYTES, MPI_BYTE, 1, 100 + k, MPI_COMM_WORLD, &sreq[k]));
        /* the wait's array is long, as an application's array of receives from its neighbours may
         * be, so the loop spends most of its spinning time looking at the array */
        enum { WA_SLOTS = 512 };
        MPI_Request wait_on[WA_SLOTS];
        for (int k = 0; k < WA_SLOTS; k++)
            wait_on[k] = MPI_REQUEST_NULL;
        int token = 0, idx = -1;
        MPI_OK(MPI_Irecv(&token, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, &wait_on[WA_SLOTS - 1]));
        MPI_OK(MPI_Send(&token, 1, MPI_INT, 1, 97, MPI_COMM_WORLD)); /* the sends are out */
        MPI_OK(MPI_Waitany(WA_SLOTS, wait_on, &idx, MPI_STATUS_IGNORE));
        CHECK(idx == WA_SLOTS - 1 && token == WA_MSGS, "Waitany returned index %d, token %d", idx, token);
        MPI_OK(MPI_Waitall(WA_MSGS, sreq, MPI_STATUSES_IGNORE));
        uint64_t range[2];
        MPI_OK(MPI_Recv(range, 2, MPI_UINT64_T, 1, 98, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(range[0] == range[1], "receives from a sender in MPI_Waitany: %llu to %llu packets each (the "
              "receiver saw it as not waiting)", (unsigned long long)range[0], (unsigned long long)range[1]);
        tu_note("%d 512 KiB receives from a sender in MPI_Waitany took %llu packets each", WA_MSGS,
                (unsigned long long)range[0]);
    } else {
        int ready;
        MPI_OK(MPI_Recv(&ready, 1, MPI_INT, 0, 97, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        usleep(20000); /* rank 0 is inside MPI_Waitany by now, unless the machine is loaded */
        lo = UINT64_MAX, hi = 0;
        for (int k = 0; k < WA_MSGS; k++) {
            MPI_OK(credo_fc_stats_get(&st0) == 0 ? MPI_SUCCESS : MPI_ERR_OTHER);
            MPI_OK(MPI_Recv(wa + (size_t)k * WA_BYTES, WA_BYTES, MPI_BYTE, 0, 100 + k, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
            MPI_OK(credo_fc_stats_get(&st1) == 0 ? MPI_SUCCESS : MPI_ERR_OTHER);
            uint64_t d = st1.data_packets_sent - st0.data_packets_sent;
            lo = d < lo ? d : lo;
            hi = d > hi ? d : hi;
            CHECK(wa[(size_t)k * WA_BYTES] == 1 && wa[(size_t)(k + 1) * WA_BYTES - 1] == 1,
                  "message %d arrived corrupted", k);
        }
        int token = WA_MSGS;
        MPI_OK(MPI_Send(&token, 1, MPI_INT, 0, 99, MPI_COMM_WORLD));
        uint64_t range[2] = {lo, hi};
        MPI_OK(MPI_Send(range, 2, MPI_UINT64_T, 0, 98, MPI_COMM_WORLD));
    }
    free(wa);
#else
    tu_note("credo-specific: nothing to check under another MPI");
#endif
    MPI_Finalize();
    return 0;
}
