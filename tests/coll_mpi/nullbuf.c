/* tests/coll_mpi/nullbuf.c — NULL buffers with nothing to send or receive (issue 27).
 *
 * The standard lets a program pass NULL for a buffer of zero elements (mpi4py does, and Open MPI
 * and MPICH accept it): a NULL buffer is an error only when the call would read or write bytes
 * through it. Every call that checks buffers is run here with NULL buffers and zero counts under
 * MPI_ERRORS_RETURN and must give MPI_SUCCESS: the collectives (blocking, non-blocking, persistent
 * and large-count forms), the neighbourhood collectives on a periodic ring, the intercommunicator
 * collectives, point to point, one-sided and pack calls. A NULL buffer with a nonzero count of a
 * predefined type must still give MPI_ERR_BUFFER, and MPI_IN_PLACE keeps its meaning. One pointer
 * as both buffers with zero counts (a binding's placeholder for every empty buffer) is no alias.
 * Before the fix the v/w all-to-alls and the neighbourhood alltoall refused that alias, and a NULL
 * buffer with a nonzero count was MPI_ERR_ARG in Alltoallv and a segfault on an intercommunicator.
 *
 * Every mismatch is printed (rank, call, error string) and the run goes on, so one run lists all of
 * them; the job fails at the end. Only calls that every rank refuses alike are run with nonzero
 * counts, so a refusal never leaves the other ranks inside a collective. */
#include "cmtest.h"

#define NMAX 64
#define N NULL
#define INT MPI_INT

static int rank, size, failures;
static int zc[NMAX], zd[NMAX], oc[NMAX];
static MPI_Count zcc[NMAX];
static MPI_Aint za[NMAX];
static MPI_Datatype ti[NMAX];

/* Reports a result other than want; 1 when the call succeeded (so its request may be waited on). */
static int expect(int rc, int want, const char *what, int line)
{
    if (rc != want) {
        char s[MPI_MAX_ERROR_STRING] = "";
        int len = 0, cls = -1;
        MPI_Error_class(rc, &cls);
        if (rc != MPI_SUCCESS)
            MPI_Error_string(rc, s, &len);
        if (cls != want) {
            fprintf(stderr, "rank %d: line %d: %s gave %d (%s), expected %s\n", rank, line, what, rc,
                    rc == MPI_SUCCESS ? "MPI_SUCCESS" : s,
                    want == MPI_SUCCESS ? "MPI_SUCCESS" : "MPI_ERR_BUFFER");
            failures++;
        }
    }
    return rc == MPI_SUCCESS;
}
#define OKAY(call) expect((call), MPI_SUCCESS, #call, __LINE__)
#define REFUSED(call) expect((call), MPI_ERR_BUFFER, #call, __LINE__)

/* The blocking form, the non-blocking one (then waited on) and the persistent one (started twice). */
#define RUN3(bf, nf, pf, ...)                                                                      \
    do {                                                                                           \
        MPI_Request r_ = MPI_REQUEST_NULL;                                                         \
        expect(bf(__VA_ARGS__), MPI_SUCCESS, #bf, __LINE__);                                       \
        if (expect(nf(__VA_ARGS__, &r_), MPI_SUCCESS, #nf, __LINE__))                              \
            expect(MPI_Wait(&r_, MPI_STATUS_IGNORE), MPI_SUCCESS, "MPI_Wait of " #nf, __LINE__);   \
        r_ = MPI_REQUEST_NULL;                                                                     \
        if (expect(pf(__VA_ARGS__, MPI_INFO_NULL, &r_), MPI_SUCCESS, #pf, __LINE__)) {             \
            for (int k_ = 0; k_ < 2; k_++)                                                         \
                if (expect(MPI_Start(&r_), MPI_SUCCESS, "MPI_Start of " #pf, __LINE__))            \
                    expect(MPI_Wait(&r_, MPI_STATUS_IGNORE), MPI_SUCCESS, "MPI_Wait of " #pf,      \
                           __LINE__);                                                              \
            MPI_Request_free(&r_);                                                                 \
        }                                                                                          \
    } while (0)

/* The blocking and non-blocking forms (intercommunicators). */
#define RUN2(bf, nf, ...)                                                                          \
    do {                                                                                           \
        MPI_Request r_ = MPI_REQUEST_NULL;                                                         \
        expect(bf(__VA_ARGS__), MPI_SUCCESS, #bf, __LINE__);                                       \
        if (expect(nf(__VA_ARGS__, &r_), MPI_SUCCESS, #nf, __LINE__))                              \
            expect(MPI_Wait(&r_, MPI_STATUS_IGNORE), MPI_SUCCESS, "MPI_Wait of " #nf, __LINE__);   \
    } while (0)

/* Both forms refused alike (no request is made). */
#define REFUSED2(bf, nf, ...)                                                                      \
    do {                                                                                           \
        MPI_Request r_ = MPI_REQUEST_NULL;                                                         \
        expect(bf(__VA_ARGS__), MPI_ERR_BUFFER, #bf, __LINE__);                                    \
        if (expect(nf(__VA_ARGS__, &r_), MPI_ERR_BUFFER, #nf, __LINE__))                           \
            MPI_Wait(&r_, MPI_STATUS_IGNORE);                                                      \
    } while (0)

static void intra(MPI_Comm c)
{
    MPI_Op op = MPI_SUM;
    RUN3(MPI_Bcast, MPI_Ibcast, MPI_Bcast_init, N, 0, INT, 0, c);
    RUN3(MPI_Reduce, MPI_Ireduce, MPI_Reduce_init, N, N, 0, INT, op, 0, c);
    RUN3(MPI_Allreduce, MPI_Iallreduce, MPI_Allreduce_init, N, N, 0, INT, op, c);
    RUN3(MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block, MPI_Reduce_scatter_block_init, N, N,
         0, INT, op, c);
    RUN3(MPI_Reduce_scatter, MPI_Ireduce_scatter, MPI_Reduce_scatter_init, N, N, zc, INT, op, c);
    RUN3(MPI_Scan, MPI_Iscan, MPI_Scan_init, N, N, 0, INT, op, c);
    RUN3(MPI_Exscan, MPI_Iexscan, MPI_Exscan_init, N, N, 0, INT, op, c);
    RUN3(MPI_Gather, MPI_Igather, MPI_Gather_init, N, 0, INT, N, 0, INT, 0, c);
    RUN3(MPI_Gatherv, MPI_Igatherv, MPI_Gatherv_init, N, 0, INT, N, zc, zd, INT, 0, c);
    RUN3(MPI_Scatter, MPI_Iscatter, MPI_Scatter_init, N, 0, INT, N, 0, INT, 0, c);
    RUN3(MPI_Scatterv, MPI_Iscatterv, MPI_Scatterv_init, N, zc, zd, INT, N, 0, INT, 0, c);
    RUN3(MPI_Allgather, MPI_Iallgather, MPI_Allgather_init, N, 0, INT, N, 0, INT, c);
    RUN3(MPI_Allgatherv, MPI_Iallgatherv, MPI_Allgatherv_init, N, 0, INT, N, zc, zd, INT, c);
    RUN3(MPI_Alltoall, MPI_Ialltoall, MPI_Alltoall_init, N, 0, INT, N, 0, INT, c);
    RUN3(MPI_Alltoallv, MPI_Ialltoallv, MPI_Alltoallv_init, N, zc, zd, INT, N, zc, zd, INT, c);
    RUN3(MPI_Alltoallw, MPI_Ialltoallw, MPI_Alltoallw_init, N, zc, zd, ti, N, zc, zd, ti, c);

    /* the same buffer as both sides is no alias when neither side holds a byte */
    static int one;
    RUN3(MPI_Alltoallv, MPI_Ialltoallv, MPI_Alltoallv_init, &one, zc, zd, INT, &one, zc, zd, INT,
         c);
    RUN3(MPI_Alltoallw, MPI_Ialltoallw, MPI_Alltoallw_init, &one, zc, zd, ti, &one, zc, zd, ti, c);
    RUN3(MPI_Allgatherv, MPI_Iallgatherv, MPI_Allgatherv_init, &one, 0, INT, &one, zc, zd, INT, c);

    /* MPI_IN_PLACE keeps its meaning next to a NULL buffer */
    RUN3(MPI_Allreduce, MPI_Iallreduce, MPI_Allreduce_init, MPI_IN_PLACE, N, 0, INT, op, c);
    RUN3(MPI_Alltoallv, MPI_Ialltoallv, MPI_Alltoallv_init, MPI_IN_PLACE, zc, zd, INT, N, zc, zd,
         INT, c);
    RUN3(MPI_Alltoallw, MPI_Ialltoallw, MPI_Alltoallw_init, MPI_IN_PLACE, zc, zd, ti, N, zc, zd,
         ti, c);
    RUN3(MPI_Allgatherv, MPI_Iallgatherv, MPI_Allgatherv_init, MPI_IN_PLACE, 0, INT, N, zc, zd,
         INT, c);
    RUN3(MPI_Gatherv, MPI_Igatherv, MPI_Gatherv_init, rank == 0 ? MPI_IN_PLACE : N, 0, INT, N, zc,
         zd, INT, 0, c);
    RUN3(MPI_Scatterv, MPI_Iscatterv, MPI_Scatterv_init, N, zc, zd, INT,
         rank == 0 ? MPI_IN_PLACE : N, 0, INT, 0, c);
    RUN3(MPI_Reduce_scatter, MPI_Ireduce_scatter, MPI_Reduce_scatter_init, MPI_IN_PLACE, N, zc,
         INT, op, c);

    /* large-count forms */
    RUN3(MPI_Bcast_c, MPI_Ibcast_c, MPI_Bcast_init_c, N, 0, INT, 0, c);
    RUN3(MPI_Reduce_c, MPI_Ireduce_c, MPI_Reduce_init_c, N, N, 0, INT, op, 0, c);
    RUN3(MPI_Allreduce_c, MPI_Iallreduce_c, MPI_Allreduce_init_c, N, N, 0, INT, op, c);
    RUN3(MPI_Reduce_scatter_block_c, MPI_Ireduce_scatter_block_c, MPI_Reduce_scatter_block_init_c,
         N, N, 0, INT, op, c);
    RUN3(MPI_Reduce_scatter_c, MPI_Ireduce_scatter_c, MPI_Reduce_scatter_init_c, N, N, zcc, INT, op,
         c);
    RUN3(MPI_Scan_c, MPI_Iscan_c, MPI_Scan_init_c, N, N, 0, INT, op, c);
    RUN3(MPI_Exscan_c, MPI_Iexscan_c, MPI_Exscan_init_c, N, N, 0, INT, op, c);
    RUN3(MPI_Gather_c, MPI_Igather_c, MPI_Gather_init_c, N, 0, INT, N, 0, INT, 0, c);
    RUN3(MPI_Gatherv_c, MPI_Igatherv_c, MPI_Gatherv_init_c, N, 0, INT, N, zcc, za, INT, 0, c);
    RUN3(MPI_Scatter_c, MPI_Iscatter_c, MPI_Scatter_init_c, N, 0, INT, N, 0, INT, 0, c);
    RUN3(MPI_Scatterv_c, MPI_Iscatterv_c, MPI_Scatterv_init_c, N, zcc, za, INT, N, 0, INT, 0, c);
    RUN3(MPI_Allgather_c, MPI_Iallgather_c, MPI_Allgather_init_c, N, 0, INT, N, 0, INT, c);
    RUN3(MPI_Allgatherv_c, MPI_Iallgatherv_c, MPI_Allgatherv_init_c, N, 0, INT, N, zcc, za, INT, c);
    RUN3(MPI_Alltoall_c, MPI_Ialltoall_c, MPI_Alltoall_init_c, N, 0, INT, N, 0, INT, c);
    RUN3(MPI_Alltoallv_c, MPI_Ialltoallv_c, MPI_Alltoallv_init_c, N, zcc, za, INT, N, zcc, za, INT,
         c);
    RUN3(MPI_Alltoallw_c, MPI_Ialltoallw_c, MPI_Alltoallw_init_c, N, zcc, za, ti, N, zcc, za, ti,
         c);

    /* a NULL buffer with something in it: refused by every rank alike */
    REFUSED2(MPI_Bcast, MPI_Ibcast, N, 1, INT, 0, c);
    REFUSED2(MPI_Allreduce, MPI_Iallreduce, N, N, 1, INT, op, c);
    REFUSED2(MPI_Allgather, MPI_Iallgather, N, 1, INT, N, 1, INT, c);
    REFUSED2(MPI_Alltoall, MPI_Ialltoall, N, 1, INT, N, 1, INT, c);
    REFUSED2(MPI_Alltoallv, MPI_Ialltoallv, N, oc, zd, INT, N, oc, zd, INT, c);
    REFUSED2(MPI_Allgatherv, MPI_Iallgatherv, N, 1, INT, N, oc, zd, INT, c);
    REFUSED2(MPI_Reduce_scatter, MPI_Ireduce_scatter, N, N, oc, INT, op, c);
    REFUSED2(MPI_Bcast_c, MPI_Ibcast_c, N, 1, INT, 0, c);
}

static void neighbours(MPI_Comm world)
{
    int dims[1] = {size}, periods[1] = {1};
    MPI_Comm c;
    OKAY(MPI_Cart_create(world, 1, dims, periods, 0, &c));
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    RUN3(MPI_Neighbor_allgather, MPI_Ineighbor_allgather, MPI_Neighbor_allgather_init, N, 0, INT, N,
         0, INT, c);
    RUN3(MPI_Neighbor_allgatherv, MPI_Ineighbor_allgatherv, MPI_Neighbor_allgatherv_init, N, 0, INT,
         N, zc, zd, INT, c);
    RUN3(MPI_Neighbor_alltoall, MPI_Ineighbor_alltoall, MPI_Neighbor_alltoall_init, N, 0, INT, N, 0,
         INT, c);
    RUN3(MPI_Neighbor_alltoallv, MPI_Ineighbor_alltoallv, MPI_Neighbor_alltoallv_init, N, zc, zd,
         INT, N, zc, zd, INT, c);
    RUN3(MPI_Neighbor_alltoallw, MPI_Ineighbor_alltoallw, MPI_Neighbor_alltoallw_init, N, zc, za,
         ti, N, zc, za, ti, c);
    static int one;
    RUN3(MPI_Neighbor_alltoall, MPI_Ineighbor_alltoall, MPI_Neighbor_alltoall_init, &one, 0, INT,
         &one, 0, INT, c);
    RUN3(MPI_Neighbor_allgather_c, MPI_Ineighbor_allgather_c, MPI_Neighbor_allgather_init_c, N, 0,
         INT, N, 0, INT, c);
    RUN3(MPI_Neighbor_allgatherv_c, MPI_Ineighbor_allgatherv_c, MPI_Neighbor_allgatherv_init_c, N,
         0, INT, N, zcc, za, INT, c);
    RUN3(MPI_Neighbor_alltoall_c, MPI_Ineighbor_alltoall_c, MPI_Neighbor_alltoall_init_c, N, 0, INT,
         N, 0, INT, c);
    RUN3(MPI_Neighbor_alltoallv_c, MPI_Ineighbor_alltoallv_c, MPI_Neighbor_alltoallv_init_c, N, zcc,
         za, INT, N, zcc, za, INT, c);
    RUN3(MPI_Neighbor_alltoallw_c, MPI_Ineighbor_alltoallw_c, MPI_Neighbor_alltoallw_init_c, N, zcc,
         za, ti, N, zcc, za, ti, c);
    REFUSED2(MPI_Neighbor_allgather, MPI_Ineighbor_allgather, N, 1, INT, N, 1, INT, c);
    REFUSED2(MPI_Neighbor_alltoall, MPI_Ineighbor_alltoall, N, 1, INT, N, 1, INT, c);
    REFUSED2(MPI_Neighbor_alltoallv, MPI_Ineighbor_alltoallv, N, oc, zd, INT, N, oc, zd, INT, c);
    MPI_Comm_free(&c);
}

/* Group A is world rank 0, group B the others; in the rooted calls rank 0 of A is the root. */
static void inter(MPI_Comm world)
{
    int a = rank == 0;
    MPI_Comm local, c;
    OKAY(MPI_Comm_split(world, a, rank, &local));
    OKAY(MPI_Intercomm_create(local, 0, world, a ? 1 : 0, 27, &c));
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    int root = a ? MPI_ROOT : 0;
    MPI_Op op = MPI_SUM;
    RUN2(MPI_Bcast, MPI_Ibcast, N, 0, INT, root, c);
    RUN2(MPI_Reduce, MPI_Ireduce, N, N, 0, INT, op, root, c);
    RUN2(MPI_Allreduce, MPI_Iallreduce, N, N, 0, INT, op, c);
    RUN2(MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block, N, N, 0, INT, op, c);
    RUN2(MPI_Reduce_scatter, MPI_Ireduce_scatter, N, N, zc, INT, op, c);
    RUN2(MPI_Gather, MPI_Igather, N, 0, INT, N, 0, INT, root, c);
    RUN2(MPI_Gatherv, MPI_Igatherv, N, 0, INT, N, zc, zd, INT, root, c);
    RUN2(MPI_Scatter, MPI_Iscatter, N, 0, INT, N, 0, INT, root, c);
    RUN2(MPI_Scatterv, MPI_Iscatterv, N, zc, zd, INT, N, 0, INT, root, c);
    RUN2(MPI_Allgather, MPI_Iallgather, N, 0, INT, N, 0, INT, c);
    RUN2(MPI_Allgatherv, MPI_Iallgatherv, N, 0, INT, N, zc, zd, INT, c);
    RUN2(MPI_Alltoall, MPI_Ialltoall, N, 0, INT, N, 0, INT, c);
    RUN2(MPI_Alltoallv, MPI_Ialltoallv, N, zc, zd, INT, N, zc, zd, INT, c);
    RUN2(MPI_Alltoallw, MPI_Ialltoallw, N, zc, zd, ti, N, zc, zd, ti, c);
    RUN2(MPI_Alltoallv_c, MPI_Ialltoallv_c, N, zcc, za, INT, N, zcc, za, INT, c);
    RUN2(MPI_Gatherv_c, MPI_Igatherv_c, N, 0, INT, N, zcc, za, INT, root, c);
    REFUSED2(MPI_Allgather, MPI_Iallgather, N, 1, INT, N, 1, INT, c);
    REFUSED2(MPI_Alltoallv, MPI_Ialltoallv, N, oc, zd, INT, N, oc, zd, INT, c);
    MPI_Comm_free(&c);
    MPI_Comm_free(&local);
}

static void p2p(MPI_Comm c)
{
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Request r[2];
    OKAY(MPI_Sendrecv(N, 0, INT, peer, 1, N, 0, INT, from, 1, c, MPI_STATUS_IGNORE));
    OKAY(MPI_Sendrecv_replace(N, 0, INT, peer, 2, from, 2, c, MPI_STATUS_IGNORE));
    OKAY(MPI_Sendrecv_c(N, 0, INT, peer, 3, N, 0, INT, from, 3, c, MPI_STATUS_IGNORE));
    OKAY(MPI_Irecv(N, 0, INT, from, 4, c, &r[0]));
    OKAY(MPI_Isend(N, 0, INT, peer, 4, c, &r[1]));
    OKAY(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    OKAY(MPI_Irecv(N, 0, INT, from, 5, c, &r[0]));
    OKAY(MPI_Ssend(N, 0, INT, peer, 5, c));
    OKAY(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    OKAY(MPI_Recv_init(N, 0, INT, from, 6, c, &r[0]));
    OKAY(MPI_Send_init(N, 0, INT, peer, 6, c, &r[1]));
    OKAY(MPI_Startall(2, r));
    OKAY(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);
    OKAY(MPI_Isendrecv(N, 0, INT, peer, 7, N, 0, INT, from, 7, c, &r[0]));
    OKAY(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    OKAY(MPI_Isendrecv_replace(N, 0, INT, peer, 8, from, 8, c, &r[0]));
    OKAY(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    MPI_Message m;
    OKAY(MPI_Isend(N, 0, INT, peer, 9, c, &r[0]));
    OKAY(MPI_Mprobe(from, 9, c, &m, MPI_STATUS_IGNORE));
    OKAY(MPI_Mrecv(N, 0, INT, &m, MPI_STATUS_IGNORE));
    OKAY(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    REFUSED(MPI_Send(N, 1, INT, peer, 10, c));
    REFUSED(MPI_Isend(N, 1, INT, peer, 10, c, &r[0]));
    REFUSED(MPI_Recv(N, 1, INT, from, 10, c, MPI_STATUS_IGNORE));
}

static void rma(MPI_Comm c)
{
    MPI_Win w;
    void *base = NULL;
    OKAY(MPI_Win_allocate(0, 1, MPI_INFO_NULL, c, &base, &w));
    MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
    int peer = (rank + 1) % size;
    OKAY(MPI_Win_fence(0, w));
    OKAY(MPI_Put(N, 0, INT, peer, 0, 0, INT, w));
    OKAY(MPI_Get(N, 0, INT, peer, 0, 0, INT, w));
    OKAY(MPI_Accumulate(N, 0, INT, peer, 0, 0, INT, MPI_SUM, w));
    OKAY(MPI_Get_accumulate(N, 0, INT, N, 0, INT, peer, 0, 0, INT, MPI_SUM, w));
    OKAY(MPI_Win_fence(0, w));
    MPI_Win_free(&w);
}

static void pack(MPI_Comm c)
{
    int pos = 0;
    OKAY(MPI_Pack(N, 0, INT, N, 0, &pos, c));
    pos = 0;
    OKAY(MPI_Unpack(N, 0, &pos, N, 0, INT, c));
    MPI_Aint xpos = 0;
    OKAY(MPI_Pack_external("external32", N, 0, INT, N, 0, &xpos));
    xpos = 0;
    OKAY(MPI_Unpack_external("external32", N, 0, &xpos, N, 0, INT));
    OKAY(MPI_Reduce_local(N, N, 0, INT, MPI_SUM));
    char out[16];
    pos = 0;
    REFUSED(MPI_Pack(N, 1, INT, out, (int)sizeof out, &pos, c));
    REFUSED(MPI_Reduce_local(N, N, 1, INT, MPI_SUM));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    CHECK(size <= NMAX, "at most %d ranks", NMAX);
    for (int i = 0; i < NMAX; i++) {
        ti[i] = MPI_INT;
        oc[i] = 1;
    }
    intra(MPI_COMM_WORLD);
    neighbours(MPI_COMM_WORLD);
    if (size > 1)
        inter(MPI_COMM_WORLD);
    p2p(MPI_COMM_WORLD);
    rma(MPI_COMM_WORLD);
    pack(MPI_COMM_WORLD);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("nullbuf: %d ranks, %d unexpected results\n", size, all);
    MPI_Finalize();
    return all != 0;
}
