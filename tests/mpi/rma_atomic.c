/* tests/mpi/rma_atomic.c — the atomic RMA operations under lock_all, on a shared-memory window
 * (MPI_Win_allocate) and on user memory (MPI_Win_create, Cross Memory Attach): concurrent
 * MPI_SUM accumulates give the exact total, strided and MAXLOC accumulates, Fetch_and_op tickets
 * are distinct, a Compare_and_swap spinlock protects a non-atomic update, Get_accumulate with
 * MPI_NO_OP and MPI_REPLACE. */
#include "testutil.h"

enum { ITER = 200, TICKETS = 50, CS_ITER = 20 };
/* element layout of each rank's window of longs */
enum { E_SUM = 0, E_STRIDED = 8, E_TICKET = 24, E_MUTEX = 25, E_CS = 26, E_SWAP = 27, E_DBL = 28,
       E_MAXLOC = 30, E_N = 32 };

static int rank, size;

static void run(int create) {
    long *mem;
    MPI_Win win;
    if (create) {
        mem = tu_xmalloc(E_N * sizeof(long));
        MPI_OK(MPI_Win_create(mem, E_N * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    } else {
        MPI_OK(MPI_Win_allocate(E_N * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    }
    for (int i = 0; i < E_N; i++)
        mem[i] = 0;
    mem[E_SWAP] = -1;
    *(double *)&mem[E_DBL] = 0.25;
    int *ml = (int *)&mem[E_MAXLOC];
    ml[0] = -1, ml[1] = -1;
    MPI_Datatype every2;
    MPI_Type_vector(4, 1, 2, MPI_LONG, &every2);
    MPI_Type_commit(&every2);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    int last = size - 1;

    MPI_OK(MPI_Win_lock_all(0, win));
    /* every rank adds (rank + 1 + j) to elements j = 0..3 of ranks 0 and last, ITER times, and its
     * rank to the strided elements 8, 10, 12, 14 of rank 0; a double sum into rank last */
    long v[4];
    for (int j = 0; j < 4; j++)
        v[j] = rank + 1 + j;
    double dv = 0.5;
    for (int it = 0; it < ITER; it++) {
        MPI_OK(MPI_Accumulate(v, 4, MPI_LONG, 0, E_SUM, 4, MPI_LONG, MPI_SUM, win));
        MPI_OK(MPI_Accumulate(v, 4, MPI_LONG, last, E_SUM, 4, MPI_LONG, MPI_SUM, win));
        long r4[4] = {rank, rank, rank, rank};
        MPI_OK(MPI_Accumulate(r4, 4, MPI_LONG, 0, E_STRIDED, 1, every2, MPI_SUM, win));
        MPI_OK(MPI_Accumulate(&dv, 1, MPI_DOUBLE, last, E_DBL, 1, MPI_DOUBLE, MPI_SUM, win));
    }
    /* MAXLOC over (value, rank) pairs: the largest value wins, the lowest rank on ties */
    int pair[2] = {(rank * 3) % 7, rank};
    MPI_OK(MPI_Accumulate(pair, 1, MPI_2INT, 0, E_MAXLOC, 1, MPI_2INT, MPI_MAXLOC, win));
    /* tickets from a shared counter at rank last */
    long tickets[TICKETS], one = 1;
    for (int i = 0; i < TICKETS; i++)
        MPI_OK(MPI_Fetch_and_op(&one, &tickets[i], MPI_LONG, last, E_TICKET, MPI_SUM, win));
    /* a spinlock made of Compare_and_swap at rank 0; inside it a Get, increment, Put that would
     * lose updates without it */
    for (int i = 0; i < CS_ITER; i++) {
        long want = rank + 1, zero = 0, got;
        do {
            MPI_OK(MPI_Compare_and_swap(&want, &zero, &got, MPI_LONG, 0, E_MUTEX, win));
        } while (got != 0);
        long c;
        MPI_OK(MPI_Get(&c, 1, MPI_LONG, 0, E_CS, 1, MPI_LONG, win));
        MPI_OK(MPI_Win_flush(0, win));
        c++;
        MPI_OK(MPI_Put(&c, 1, MPI_LONG, 0, E_CS, 1, MPI_LONG, win));
        MPI_OK(MPI_Win_flush(0, win));
        MPI_OK(MPI_Compare_and_swap(&zero, &want, &got, MPI_LONG, 0, E_MUTEX, win));
        CHECK(got == want, "mutex held by %ld while rank %d owned it", got, rank);
    }
    /* swap our rank into rank 0's E_SWAP: the values taken out, with the one left, are -1 and
     * every rank exactly once */
    long mine = rank, old = -2, peek = -2;
    MPI_OK(MPI_Get_accumulate(&mine, 1, MPI_LONG, &old, 1, MPI_LONG, 0, E_SWAP, 1, MPI_LONG, MPI_REPLACE,
                              win));
    MPI_OK(MPI_Get_accumulate(NULL, 0, MPI_LONG, &peek, 1, MPI_LONG, 0, E_SWAP, 1, MPI_LONG, MPI_NO_OP,
                              win));
    CHECK(peek >= 0 && peek < size, "NO_OP read %ld", peek);
    MPI_Request req;
    long rold = -3;
    MPI_OK(MPI_Rget_accumulate(NULL, 0, MPI_LONG, &rold, 1, MPI_LONG, last, E_SUM, 1, MPI_LONG, MPI_NO_OP,
                               win, &req));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(rold >= ITER, "Rget_accumulate NO_OP read %ld", rold);
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    long sumr = (long)size * (size + 1) / 2;
    if (rank == 0 || rank == last)
        for (int j = 0; j < 4; j++) {
            long want = ITER * (sumr + (long)size * j);
            CHECK(mem[E_SUM + j] == want, "create %d: sum %d is %ld, expected %ld", create, j, mem[E_SUM + j],
                  want);
        }
    if (rank == 0) {
        for (int j = 0; j < 8; j++) {
            long want = j % 2 ? 0 : ITER * (sumr - size);
            CHECK(mem[E_STRIDED + j] == want, "strided %d: %ld, expected %ld", j, mem[E_STRIDED + j], want);
        }
        CHECK(mem[E_CS] == (long)size * CS_ITER && mem[E_MUTEX] == 0, "critical section count %ld (mutex %ld)",
              mem[E_CS], mem[E_MUTEX]);
        int bv = -1, br = -1;
        for (int r = 0; r < size; r++)
            if ((r * 3) % 7 > bv)
                bv = (r * 3) % 7, br = r;
        CHECK(ml[0] == bv && ml[1] == br, "MAXLOC (%d, %d), expected (%d, %d)", ml[0], ml[1], bv, br);
    }
    if (rank == last) {
        double want = 0.25 + 0.5 * ITER * size;
        CHECK(*(double *)&mem[E_DBL] == want, "double sum %g, expected %g", *(double *)&mem[E_DBL], want);
        CHECK(mem[E_TICKET] == (long)size * TICKETS, "counter %ld", mem[E_TICKET]);
    }
    long *all = tu_xmalloc((size_t)size * TICKETS * sizeof(long));
    MPI_OK(MPI_Gather(tickets, TICKETS, MPI_LONG, all, TICKETS, MPI_LONG, 0, MPI_COMM_WORLD));
    long *olds = tu_xmalloc((size_t)size * sizeof(long));
    MPI_OK(MPI_Gather(&old, 1, MPI_LONG, olds, 1, MPI_LONG, 0, MPI_COMM_WORLD));
    if (rank == 0) {
        char *seen = tu_xcalloc((size_t)size * TICKETS, 1);
        for (int i = 0; i < size * TICKETS; i++) {
            CHECK(all[i] >= 0 && all[i] < size * TICKETS && !seen[all[i]], "ticket %ld twice or out of range",
                  all[i]);
            seen[all[i]] = 1;
        }
        free(seen);
        char *taken = tu_xcalloc((size_t)size + 1, 1);
        taken[mem[E_SWAP] + 1] = 1;
        for (int r = 0; r < size; r++) {
            CHECK(olds[r] >= -1 && olds[r] < size && !taken[olds[r] + 1], "swap gave %ld twice", olds[r]);
            taken[olds[r] + 1] = 1;
        }
        free(taken);
    }
    free(all);
    free(olds);
    MPI_Type_free(&every2);
    MPI_OK(MPI_Win_free(&win));
    if (create)
        free(mem);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    run(0);
    tu_note("atomics on MPI_Win_allocate");
    run(1);
    tu_note("atomics on MPI_Win_create");
    MPI_Finalize();
    return 0;
}
