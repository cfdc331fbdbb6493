/* tests/mpi/busy_sender.c — a rendezvous message whose sender makes no MPI call after MPI_Isend (it
 * computes), or stops making them in the middle of a pipelined copy, still reaches the receiver that
 * waits for it: credo then pulls it, or the rest of it, with CMA; and a sender whose receiver stops
 * in mid-copy writes the rest with CMA. And the other side of that rule: a
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

    /* The sender leaves MPI in the middle of a pipelined copy: it waits in a blocking receive when
     * rank 1 matches the message (so the copy is chosen and its first chunks go), then computes. The
     * receiver takes the rest over with CMA instead of waiting for the sender's next MPI call. Which
     * path rank 1 takes depends on timing (a sender that is not inside its receive yet gets the whole
     * message read with CMA, which completes at once), so a round is repeated, up to 5 times, until
     * the copy was taken. */
    static const size_t big[] = {4 << 20, 16 << 20};
    int copied = 0;
    for (int i = 0; i < 2; i++) {
        size_t n = big[i];
        char *buf = tu_xmalloc(n);
        if (rank == 0)
            tu_fill(buf, n, rank, 50u + (unsigned)i);
        for (int attempt = 0; attempt < 5; attempt++) {
            int tag = 10 + i, token = 0; /* token: 1 = the message arrived at once (no copy) */
            credo_fc_stats before, after;
            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
            MPI_OK(credo_fc_stats_get(&before) == 0 ? MPI_SUCCESS : MPI_ERR_OTHER);
            if (rank == 0) {
                MPI_Request rq;
                MPI_OK(MPI_Isend(buf, (int)n, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &rq));
                MPI_OK(MPI_Recv(&token, 1, MPI_INT, 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                if (!token) {
                    double t0 = now_s();
                    while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != 10 + i && now_s() - t0 < 20.0)
                        ;
                    CHECK(__atomic_load_n(flag, __ATOMIC_ACQUIRE) == 10 + i,
                          "a %zu-byte message in mid-copy waited for its sender to call MPI again (20 s)", n);
                }
                MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
                if (!token)
                    __atomic_store_n(flag, 20 + i, __ATOMIC_RELEASE);
            } else {
                MPI_Request rq;
                usleep(20000); /* rank 0 is inside MPI_Recv by now, unless the machine is loaded */
                memset(buf, 0, n);
                MPI_OK(MPI_Irecv(buf, (int)n, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &rq));
                MPI_OK(MPI_Test(&rq, &token, MPI_STATUS_IGNORE)); /* matches the request-to-send now */
                MPI_OK(MPI_Send(&token, 1, MPI_INT, 0, tag, MPI_COMM_WORLD));
                if (!token)
                    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
                size_t bad = tu_verify(buf, n, 0, 50u + (unsigned)i);
                CHECK(bad == (size_t)-1, "%zu-byte message in mid-copy: byte %zu wrong", n, bad);
                if (!token) {
                    __atomic_store_n(flag, 10 + i, __ATOMIC_RELEASE);
                    /* and now rank 1 computes: rank 0's send, whose chunks it has not acknowledged,
                     * must complete without its next MPI call, as it has read everything */
                    double t0 = now_s();
                    while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != 20 + i && now_s() - t0 < 20.0)
                        ;
                    CHECK(__atomic_load_n(flag, __ATOMIC_ACQUIRE) == 20 + i,
                          "a %zu-byte send whose receiver read the rest itself waited for the receiver's next MPI "
                          "call (20 s)", n);
                }
            }
            MPI_OK(MPI_Bcast(&token, 1, MPI_INT, 1, MPI_COMM_WORLD));
            MPI_OK(credo_fc_stats_get(&after) == 0 ? MPI_SUCCESS : MPI_ERR_OTHER);
            if (!token) {
                /* the counters say which side finished it: at most one. Mostly rank 1 reads the rest
                 * (rank 0 computes); on a loaded machine rank 1 may lose its core between its
                 * MPI_Test and its MPI_Wait while rank 0 still waits for the token, and then rank 0
                 * writes it, which is as good. Neither, when rank 0 stayed inside MPI_Recv until the
                 * copy was done (seen under ctest -j3): the sender never left mid-copy, so the round
                 * is repeated like one that CMA read whole. A sender that left and was never relieved
                 * fails the 20 s checks above. */
                unsigned long long d[2] = {after.copy_takeovers - before.copy_takeovers,
                                           after.copy_pushes - before.copy_pushes}, sum[2];
                MPI_OK(MPI_Allreduce(d, sum, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
                CHECK(sum[0] + sum[1] <= 1, "%zu-byte copy finished by %llu takeovers and %llu pushes", n, sum[0],
                      sum[1]);
                if (sum[0] + sum[1] == 1) {
                    copied++;
                    break;
                }
            }
        }
        free(buf);
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    if (copied == 2)
        tu_note("4 MiB and 16 MiB messages arrived after their sender left MPI in mid-copy, and the sends "
                "completed while the receiver computed");
    else
        tu_note("%d of 2 sizes took the copy (the others were read whole with CMA, as the machine was busy)", copied);

    /* The mirror: the receiver matches the message in MPI_Test while its sender waits inside
     * MPI_Send (so the copy is chosen and its first chunks go), then computes. The sender writes the
     * rest into the receiver's buffer itself instead of waiting for the receiver's next MPI call, so
     * its MPI_Send returns while rank 1 still computes. As above, a round whose MPI_Test already
     * completed the receive (rank 0 was not waiting yet: CMA read it whole) is repeated. */
    int pushed = 0;
    for (int i = 0; i < 2; i++) {
        size_t n = big[i];
        char *buf = tu_xmalloc(n);
        if (rank == 0)
            tu_fill(buf, n, rank, 60u + (unsigned)i);
        for (int attempt = 0; attempt < 5; attempt++) {
            int tag = 30 + i, done = 0, mark = 100 + 10 * i + attempt;
            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
            credo_fc_stats before, after;
            MPI_OK(credo_fc_stats_get(&before) == 0 ? MPI_SUCCESS : MPI_ERR_OTHER);
            if (rank == 0) {
                MPI_OK(MPI_Send(buf, (int)n, MPI_BYTE, 1, tag, MPI_COMM_WORLD));
                __atomic_store_n(flag, mark, __ATOMIC_RELEASE);
            } else {
                MPI_Request rq;
                usleep(20000); /* rank 0 is inside MPI_Send by now, unless the machine is loaded */
                memset(buf, 0, n);
                MPI_OK(MPI_Irecv(buf, (int)n, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &rq));
                MPI_OK(MPI_Test(&rq, &done, MPI_STATUS_IGNORE)); /* matches the request-to-send now */
                if (!done) {
                    /* "compute": no MPI call until rank 0's send is complete, or give up after 20 s */
                    double t0 = now_s();
                    while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != mark && now_s() - t0 < 20.0)
                        ;
                    CHECK(__atomic_load_n(flag, __ATOMIC_ACQUIRE) == mark,
                          "a %zu-byte MPI_Send waited for its receiver, which matched it and then computed, to "
                          "call MPI again (20 s)", n);
                    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
                }
                size_t bad = tu_verify(buf, n, 0, 60u + (unsigned)i);
                CHECK(bad == (size_t)-1, "%zu-byte message written by its sender: byte %zu wrong", n, bad);
            }
            MPI_OK(MPI_Bcast(&done, 1, MPI_INT, 1, MPI_COMM_WORLD));
            MPI_OK(credo_fc_stats_get(&after) == 0 ? MPI_SUCCESS : MPI_ERR_OTHER);
            if (!done) {
                /* the counters say which side finished it: rank 0 wrote the rest */
                if (rank == 0)
                    CHECK(after.copy_pushes == before.copy_pushes + 1, "copy_pushes went from %llu to %llu",
                          (unsigned long long)before.copy_pushes, (unsigned long long)after.copy_pushes);
                else
                    CHECK(after.rndv_copies == before.rndv_copies + 1 && after.copy_takeovers == before.copy_takeovers,
                          "rank 1: copies %llu -> %llu, takeovers %llu -> %llu", (unsigned long long)before.rndv_copies,
                          (unsigned long long)after.rndv_copies, (unsigned long long)before.copy_takeovers,
                          (unsigned long long)after.copy_takeovers);
                pushed++;
                break;
            }
        }
        free(buf);
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    if (pushed == 2)
        tu_note("4 MiB and 16 MiB sends completed while their receiver computed after matching them");
    else
        tu_note("%d of 2 sizes took the copy (the others were read whole with CMA, as the machine was busy)", pushed);
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
