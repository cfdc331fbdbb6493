/* tests/mpi/pcoll.c — MPI-4 persistent collectives: every *_init started several times with new
 * data each time, checked against the blocking collective; starts out of init order; Startall,
 * freed types and ops, Request_free, the inactive state, and the errors. np >= 1. */
#include "testutil.h"

static int rank, size;

#define N 5          /* elements per block */
#define MAXP 16
#define ROUNDS 4

static void fill(int *b, int n, int round, int salt) {
    for (int i = 0; i < n; i++)
        b[i] = (rank + 1) * 1000 + round * 100 + salt * 10 + i;
}

static void expect_same(const int *got, const int *want, int n, const char *what, int round) {
    for (int i = 0; i < n; i++)
        CHECK(got[i] == want[i], "%s round %d: element %d is %d, expected %d", what, round, i,
              got[i], want[i]);
}

/* Starts req (alone or through Startall), waits, checks the status' error is success and the
 * request is inactive again (a second wait returns at once with an empty status). */
static void run(MPI_Request *req, int round) {
    if (round % 2)
        MPI_OK(MPI_Start(req));
    else
        MPI_OK(MPI_Startall(1, req));
    MPI_Status st;
    if (round == 3) {
        int flag = 0;
        while (!flag)
            MPI_OK(MPI_Test(req, &flag, &st));
    } else {
        MPI_OK(MPI_Wait(req, &st));
    }
    CHECK(*req != MPI_REQUEST_NULL, "a persistent request was set to MPI_REQUEST_NULL");
    MPI_OK(MPI_Wait(req, &st));
    CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG,
          "waiting on an inactive request gave source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
}

static void user_max(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    for (int i = 0; i < *len; i++)
        if (((int *)in)[i] > ((int *)inout)[i])
            ((int *)inout)[i] = ((int *)in)[i];
}

static void check_reductions(void) {
    int sb[N * MAXP], rb[N * MAXP], want[N * MAXP], counts[MAXP];
    MPI_Op umax;
    MPI_OK(MPI_Op_create(user_max, 1, &umax));
    MPI_Datatype pair; /* a derived contiguous type, freed right after the inits */
    MPI_OK(MPI_Type_contiguous(1, MPI_INT, &pair));
    MPI_OK(MPI_Type_commit(&pair));
    MPI_Request r[7];
    int root = size - 1;
    MPI_OK(MPI_Allreduce_init(sb, rb, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]));
    MPI_OK(MPI_Reduce_init(sb, rb, N, pair, umax, root, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]));
    MPI_OK(MPI_Scan_init(sb, rb, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[2]));
    MPI_OK(MPI_Exscan_init(sb, rb, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[3]));
    MPI_OK(MPI_Reduce_scatter_block_init(sb, rb, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                         MPI_INFO_NULL, &r[4]));
    for (int i = 0; i < size; i++)
        counts[i] = 1 + (i % 3);
    MPI_OK(MPI_Reduce_scatter_init(sb, rb, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                   MPI_INFO_NULL, &r[5]));
    MPI_OK(MPI_Allreduce_init(MPI_IN_PLACE, rb, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL,
                              &r[6]));
    /* MPI 3.1 2.5.1: freeing them only marks them; the requests still use them */
    MPI_OK(MPI_Op_free(&umax));
    MPI_OK(MPI_Type_free(&pair));
    int total = 0;
    for (int i = 0; i < size; i++)
        total += counts[i];
    for (int round = 0; round < ROUNDS; round++) {
        fill(sb, N * size, round, 1);
        memset(rb, 0xff, sizeof rb);
        run(&r[0], round);
        MPI_OK(MPI_Allreduce(sb, want, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        expect_same(rb, want, N, "Allreduce_init", round);

        memset(rb, 0xff, sizeof rb);
        run(&r[1], round);
        MPI_OK(MPI_Reduce(sb, want, N, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD));
        if (rank == root)
            expect_same(rb, want, N, "Reduce_init (freed user op and type)", round);

        memset(rb, 0xff, sizeof rb);
        run(&r[2], round);
        MPI_OK(MPI_Scan(sb, want, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        expect_same(rb, want, N, "Scan_init", round);

        memset(rb, 0xff, sizeof rb);
        run(&r[3], round);
        MPI_OK(MPI_Exscan(sb, want, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        if (rank > 0)
            expect_same(rb, want, N, "Exscan_init", round);

        memset(rb, 0xff, sizeof rb);
        run(&r[4], round);
        MPI_OK(MPI_Reduce_scatter_block(sb, want, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        expect_same(rb, want, N, "Reduce_scatter_block_init", round);

        memset(rb, 0xff, sizeof rb);
        fill(sb, total, round, 2);
        run(&r[5], round);
        MPI_OK(MPI_Reduce_scatter(sb, want, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        expect_same(rb, want, counts[rank], "Reduce_scatter_init", round);

        fill(rb, N, round, 3);
        MPI_OK(MPI_Allreduce(rb, want, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
        run(&r[6], round);
        expect_same(rb, want, N, "Allreduce_init in place", round);
    }
    for (int i = 0; i < 7; i++) {
        MPI_OK(MPI_Request_free(&r[i]));
        CHECK(r[i] == MPI_REQUEST_NULL, "Request_free did not reset the handle");
    }
}

static void check_data_movement(void) {
    int sb[N * MAXP], rb[N * MAXP], want[N * MAXP];
    int counts[MAXP], displs[MAXP];
    int root = size > 1 ? 1 : 0;
    for (int i = 0; i < size; i++) {
        counts[i] = 1 + (i % N);
        displs[i] = (size - 1 - i) * N; /* reversed blocks */
    }
    MPI_Request r[10];
    MPI_Comm c = MPI_COMM_WORLD;
    MPI_Info ni = MPI_INFO_NULL;
    MPI_OK(MPI_Barrier_init(c, ni, &r[0]));
    MPI_OK(MPI_Bcast_init(rb, N, MPI_INT, root, c, ni, &r[1]));
    MPI_OK(MPI_Gather_init(sb, N, MPI_INT, rb, N, MPI_INT, root, c, ni, &r[2]));
    MPI_OK(MPI_Gatherv_init(sb, counts[rank], MPI_INT, rb, counts, displs, MPI_INT, root, c, ni,
                            &r[3]));
    MPI_OK(MPI_Scatter_init(sb, N, MPI_INT, rb, N, MPI_INT, root, c, ni, &r[4]));
    MPI_OK(MPI_Scatterv_init(sb, counts, displs, MPI_INT, rb, counts[rank], MPI_INT, root, c, ni,
                             &r[5]));
    MPI_OK(MPI_Allgather_init(sb, N, MPI_INT, rb, N, MPI_INT, c, ni, &r[6]));
    MPI_OK(MPI_Allgatherv_init(sb, counts[rank], MPI_INT, rb, counts, displs, MPI_INT, c, ni,
                               &r[7]));
    MPI_OK(MPI_Alltoall_init(sb, N, MPI_INT, rb, N, MPI_INT, c, ni, &r[8]));
    int sc[MAXP], sd[MAXP], rc[MAXP], rd[MAXP];
    for (int i = 0; i < size; i++) {
        sc[i] = 1 + (rank + i) % 3;
        sd[i] = i * N;
        rc[i] = 1 + (rank + i) % 3;
        rd[i] = (size - 1 - i) * N;
    }
    MPI_OK(MPI_Alltoallv_init(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, c, ni, &r[9]));
    const char *names[10] = {"Barrier_init",   "Bcast_init",     "Gather_init",    "Gatherv_init",
                             "Scatter_init",   "Scatterv_init",  "Allgather_init", "Allgatherv_init",
                             "Alltoall_init",  "Alltoallv_init"};
    for (int round = 0; round < ROUNDS; round++) {
        for (int k = 0; k < 10; k++) {
            fill(sb, N * size, round, k);
            if (k == 1)
                fill(rb, N, round, k); /* bcast: the root's buffer is the data */
            else
                memset(rb, 0xff, sizeof rb);
            memcpy(want, rb, sizeof want);
            run(&r[k], round);
            int n = N * size;
            switch (k) {
            case 0:
                n = 0;
                break;
            case 1:
                MPI_OK(MPI_Bcast(want, N, MPI_INT, root, c));
                n = N;
                break;
            case 2:
                MPI_OK(MPI_Gather(sb, N, MPI_INT, want, N, MPI_INT, root, c));
                n = rank == root ? n : 0;
                break;
            case 3:
                MPI_OK(MPI_Gatherv(sb, counts[rank], MPI_INT, want, counts, displs, MPI_INT, root,
                                   c));
                n = rank == root ? n : 0;
                break;
            case 4:
                MPI_OK(MPI_Scatter(sb, N, MPI_INT, want, N, MPI_INT, root, c));
                n = N;
                break;
            case 5:
                MPI_OK(MPI_Scatterv(sb, counts, displs, MPI_INT, want, counts[rank], MPI_INT, root,
                                    c));
                n = counts[rank];
                break;
            case 6:
                MPI_OK(MPI_Allgather(sb, N, MPI_INT, want, N, MPI_INT, c));
                break;
            case 7:
                MPI_OK(MPI_Allgatherv(sb, counts[rank], MPI_INT, want, counts, displs, MPI_INT, c));
                break;
            case 8:
                MPI_OK(MPI_Alltoall(sb, N, MPI_INT, want, N, MPI_INT, c));
                break;
            case 9:
                MPI_OK(MPI_Alltoallv(sb, sc, sd, MPI_INT, want, rc, rd, MPI_INT, c));
                break;
            }
            expect_same(rb, want, n, names[k], round);
        }
    }
    /* all ten at once, then a Waitall (the standard orders starts, not completions) */
    fill(sb, N * size, 9, 0);
    fill(rb, N, 9, 1);
    MPI_OK(MPI_Startall(1, &r[0]));
    MPI_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    MPI_OK(MPI_Startall(2, &r[6])); /* allgather and allgatherv write the same rb: one at a time */
    MPI_OK(MPI_Waitall(2, &r[6], MPI_STATUSES_IGNORE));
    for (int i = 0; i < 10; i++)
        MPI_OK(MPI_Request_free(&r[i]));
}

/* a neighbourhood collective on a ring */
static void check_neighbor(void) {
    int dims[1] = {size}, periods[1] = {1};
    MPI_Comm ring;
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    int sb[N], rb[2 * N], want[2 * N];
    MPI_Request r;
    MPI_OK(MPI_Neighbor_allgather_init(sb, N, MPI_INT, rb, N, MPI_INT, ring, MPI_INFO_NULL, &r));
    for (int round = 0; round < ROUNDS; round++) {
        fill(sb, N, round, 4);
        run(&r, round);
        MPI_OK(MPI_Neighbor_allgather(sb, N, MPI_INT, want, N, MPI_INT, ring));
        expect_same(rb, want, 2 * N, "Neighbor_allgather_init", round);
    }
    MPI_OK(MPI_Request_free(&r));
    MPI_OK(MPI_Comm_free(&ring));
}

/* MPI 4.0: persistent collectives match in the order of their inits, whatever order the ranks
 * start them in (MPICH's coll/p_order). Rank 0 starts them in init order, the others reversed. */
static void check_start_order(void) {
    for (int round = 0; round < ROUNDS; round++) {
        int a = -1, sum = -1, g[MAXP];
        MPI_Request r[4];
        MPI_OK(MPI_Bcast_init(&a, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]));
        MPI_OK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]));
        MPI_OK(MPI_Allreduce_init(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                                  &r[2]));
        MPI_OK(MPI_Allgather_init(&rank, 1, MPI_INT, g, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                                  &r[3]));
        if (rank == 0)
            a = 42 + round;
        for (int i = 0; i < 4; i++)
            MPI_OK(MPI_Start(&r[rank == 0 ? i : 3 - i]));
        MPI_OK(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
        CHECK(a == 42 + round && sum == size * (size - 1) / 2,
              "started out of init order: bcast %d, allreduce %d", a, sum);
        for (int i = 0; i < size; i++)
            CHECK(g[i] == i, "started out of init order: allgather[%d] = %d", i, g[i]);
        for (int i = 0; i < 4; i++)
            MPI_OK(MPI_Request_free(&r[i]));
    }
}

/* On an intercommunicator (even/odd world ranks): Allreduce_init gives each group the sum over the
 * other group, Bcast_init from rank 0 of the even group; the odd group starts them in the reverse
 * of init order. */
static void check_inter(void) {
    if (size < 2)
        return;
    MPI_Comm local, inter;
    int even = rank % 2 == 0;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, !even, rank, &local));
    MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, even ? 1 : 0, 6, &inter));
    int lr;
    MPI_OK(MPI_Comm_rank(inter, &lr));
    int mine = 0, sum = -1, b = -1, want = 0;
    for (int w = 0; w < size; w++)
        if ((w % 2 == 0) != even)
            want += w;
    MPI_Request r[3];
    MPI_OK(MPI_Allreduce_init(&mine, &sum, 1, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL, &r[0]));
    int root = even ? (lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_OK(MPI_Bcast_init(&b, 1, MPI_INT, root, inter, MPI_INFO_NULL, &r[1]));
    MPI_OK(MPI_Barrier_init(inter, MPI_INFO_NULL, &r[2]));
    for (int round = 0; round < ROUNDS; round++) {
        mine = rank;
        sum = b = -1;
        if (even && lr == 0)
            b = 700 + round;
        for (int i = 0; i < 3; i++)
            MPI_OK(MPI_Start(&r[even ? i : 2 - i]));
        MPI_OK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
        CHECK(sum == want, "intercommunicator Allreduce_init round %d: %d, expected %d", round,
              sum, want);
        if (!even)
            CHECK(b == 700 + round, "intercommunicator Bcast_init round %d: %d", round, b);
    }
    for (int i = 0; i < 3; i++)
        MPI_OK(MPI_Request_free(&r[i]));
    MPI_OK(MPI_Comm_free(&inter));
    MPI_OK(MPI_Comm_free(&local));
}

static void check_errors(void) {
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int cls = -1, v = 0;
    MPI_Request r;
    MPI_Error_class(MPI_Allreduce_init(&v, &v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                                       NULL),
                    &cls);
    CHECK(cls == MPI_ERR_REQUEST, "Allreduce_init with a NULL request gave class %d", cls);
    MPI_Error_class(MPI_Barrier_init(MPI_COMM_NULL, MPI_INFO_NULL, &r), &cls);
    CHECK(cls == MPI_ERR_COMM, "Barrier_init(MPI_COMM_NULL) gave class %d", cls);
    /* a bad count is found when the collective starts; the request stays inactive */
    int out = 0;
    MPI_OK(MPI_Allreduce_init(&v, &out, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    MPI_Error_class(MPI_Start(&r), &cls);
    CHECK(cls == MPI_ERR_COUNT, "starting an Allreduce_init of count -1 gave class %d", cls);
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Request_free(&r));
    /* starting an active request */
    MPI_OK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    MPI_OK(MPI_Start(&r));
    MPI_Error_class(MPI_Start(&r), &cls);
    CHECK(cls == MPI_ERR_REQUEST, "starting an active request gave class %d", cls);
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Request_free(&r));
    /* Scan is not defined on an intercommunicator: the start reports it */
    if (size >= 2) {
        MPI_Comm local, inter;
        MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &local));
        MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 5, &inter));
        MPI_OK(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
        MPI_OK(MPI_Scan_init(&v, &out, 1, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL, &r));
        MPI_Error_class(MPI_Start(&r), &cls);
        CHECK(cls == MPI_ERR_COMM, "starting a Scan_init on an intercommunicator gave class %d",
              cls);
        MPI_OK(MPI_Request_free(&r));
        MPI_OK(MPI_Comm_free(&inter));
        MPI_OK(MPI_Comm_free(&local));
    }
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= MAXP, "at most %d processes", MAXP);
    check_reductions();
    check_data_movement();
    check_neighbor();
    check_start_order();
    check_inter();
    check_errors();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("pcoll: OK (%d processes)\n", size);
    MPI_Finalize();
    return 0;
}
