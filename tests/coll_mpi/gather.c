/* tests/coll_mpi/gather.c — the data-movement collectives (Bcast, Gather(v), Scatter(v),
 * Allgather(v), Alltoall(v) and their I-variants) against the expected layout, for roots 0, 1 and
 * np-1, MPI_IN_PLACE, zero counts, mixed send/receive types and a non-contiguous type. */
#include "cmtest.h"

static int me, np;

/* The value rank r contributes at position i for destination d. */
static int V(int r, int i, int d)
{
    return r * 10000 + d * 100 + i;
}

static void test_rooted(int root, int nb)
{
    enum { C = 3 };
    int *rb = malloc(sizeof(int) * (size_t)(np * C * 4 + 8));
    int *sb = malloc(sizeof(int) * (size_t)(np * C * 4 + 8));
    int cnt[64], dsp[64], tot = 0;
    MPI_Request rq = MPI_REQUEST_NULL;
#define RUN(call_b, call_nb)                                                                       \
    do {                                                                                           \
        if (nb) {                                                                                  \
            OK(call_nb);                                                                           \
            OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));                                                  \
        } else {                                                                                   \
            OK(call_b);                                                                            \
        }                                                                                          \
    } while (0)
    /* Bcast, count C and 0 */
    for (int i = 0; i < C; i++)
        rb[i] = me == root ? V(root, i, 0) : -1;
    RUN(MPI_Bcast(rb, C, MPI_INT, root, MPI_COMM_WORLD),
        MPI_Ibcast(rb, C, MPI_INT, root, MPI_COMM_WORLD, &rq));
    for (int i = 0; i < C; i++)
        CHECK(rb[i] == V(root, i, 0), "Bcast root %d i %d", root, i);
    RUN(MPI_Bcast(NULL, 0, MPI_INT, root, MPI_COMM_WORLD),
        MPI_Ibcast(NULL, 0, MPI_INT, root, MPI_COMM_WORLD, &rq));
    /* Gather: C ints sent, received as C ints; then in place at the root */
    for (int i = 0; i < C; i++)
        sb[i] = V(me, i, root);
    memset(rb, 0xff, sizeof(int) * (size_t)(np * C));
    RUN(MPI_Gather(sb, C, MPI_INT, rb, C, MPI_INT, root, MPI_COMM_WORLD),
        MPI_Igather(sb, C, MPI_INT, rb, C, MPI_INT, root, MPI_COMM_WORLD, &rq));
    for (int q = 0; me == root && q < np; q++)
        for (int i = 0; i < C; i++)
            CHECK(rb[q * C + i] == V(q, i, root), "Gather root %d from %d i %d", root, q, i);
    if (me == root) {
        memset(rb, 0xff, sizeof(int) * (size_t)(np * C));
        for (int i = 0; i < C; i++)
            rb[root * C + i] = V(me, i, root);
    }
    RUN(MPI_Gather(me == root ? MPI_IN_PLACE : sb, C, MPI_INT, rb, C, MPI_INT, root,
                   MPI_COMM_WORLD),
        MPI_Igather(me == root ? MPI_IN_PLACE : sb, C, MPI_INT, rb, C, MPI_INT, root,
                    MPI_COMM_WORLD, &rq));
    for (int q = 0; me == root && q < np; q++)
        for (int i = 0; i < C; i++)
            CHECK(rb[q * C + i] == V(q, i, root), "Gather in place from %d i %d", q, i);
    /* Gatherv: rank q sends q % 3 ints, placed in reverse rank order with a gap of one */
    tot = 0;
    for (int q = np - 1; q >= 0; q--) {
        cnt[q] = q % 3;
        dsp[q] = tot;
        tot += cnt[q] + 1;
    }
    for (int i = 0; i < me % 3; i++)
        sb[i] = V(me, i, root);
    for (int i = 0; i < tot; i++)
        rb[i] = -7;
    RUN(MPI_Gatherv(sb, me % 3, MPI_INT, rb, cnt, dsp, MPI_INT, root, MPI_COMM_WORLD),
        MPI_Igatherv(sb, me % 3, MPI_INT, rb, cnt, dsp, MPI_INT, root, MPI_COMM_WORLD, &rq));
    for (int q = 0; me == root && q < np; q++) {
        for (int i = 0; i < cnt[q]; i++)
            CHECK(rb[dsp[q] + i] == V(q, i, root), "Gatherv from %d i %d", q, i);
        CHECK(rb[dsp[q] + cnt[q]] == -7, "Gatherv gap after %d written", q);
    }
    /* Scatter: root sends C per rank; received as one contiguous(C) element */
    MPI_Datatype cC;
    OK(MPI_Type_contiguous(C, MPI_INT, &cC));
    OK(MPI_Type_commit(&cC));
    for (int q = 0; me == root && q < np; q++)
        for (int i = 0; i < C; i++)
            sb[q * C + i] = V(root, i, q);
    memset(rb, 0xff, sizeof(int) * C);
    RUN(MPI_Scatter(sb, C, MPI_INT, rb, 1, cC, root, MPI_COMM_WORLD),
        MPI_Iscatter(sb, C, MPI_INT, rb, 1, cC, root, MPI_COMM_WORLD, &rq));
    for (int i = 0; i < C; i++)
        CHECK(rb[i] == V(root, i, me), "Scatter root %d i %d", root, i);
    /* Scatter in place at the root: its block stays where it is */
    RUN(MPI_Scatter(sb, C, MPI_INT, me == root ? MPI_IN_PLACE : rb, C, MPI_INT, root,
                    MPI_COMM_WORLD),
        MPI_Iscatter(sb, C, MPI_INT, me == root ? MPI_IN_PLACE : rb, C, MPI_INT, root,
                     MPI_COMM_WORLD, &rq));
    for (int i = 0; me != root && i < C; i++)
        CHECK(rb[i] == V(root, i, me), "Scatter in place i %d", i);
    /* Scatterv with the Gatherv layout */
    for (int q = 0; me == root && q < np; q++)
        for (int i = 0; i < cnt[q]; i++)
            sb[dsp[q] + i] = V(root, i, q);
    RUN(MPI_Scatterv(sb, cnt, dsp, MPI_INT, rb, me % 3, MPI_INT, root, MPI_COMM_WORLD),
        MPI_Iscatterv(sb, cnt, dsp, MPI_INT, rb, me % 3, MPI_INT, root, MPI_COMM_WORLD, &rq));
    for (int i = 0; i < me % 3; i++)
        CHECK(rb[i] == V(root, i, me), "Scatterv i %d", i);
    /* Non-contiguous receive type: every other int */
    MPI_Datatype every2;
    OK(MPI_Type_vector(C, 1, 2, MPI_INT, &every2));
    OK(MPI_Type_commit(&every2));
    for (int i = 0; i < 2 * C; i++)
        rb[i] = -3;
    for (int q = 0; me == root && q < np; q++)
        for (int i = 0; i < C; i++)
            sb[q * C + i] = V(root, i, q);
    RUN(MPI_Scatter(sb, C, MPI_INT, rb, 1, every2, root, MPI_COMM_WORLD),
        MPI_Iscatter(sb, C, MPI_INT, rb, 1, every2, root, MPI_COMM_WORLD, &rq));
    for (int i = 0; i < C; i++) {
        CHECK(rb[2 * i] == V(root, i, me), "Scatter into a vector i %d", i);
        CHECK(rb[2 * i + 1] == -3, "Scatter into a vector: gap %d written", i);
    }
    OK(MPI_Type_free(&every2));
    OK(MPI_Type_free(&cC));
    free(rb);
    free(sb);
}

static void test_all(int nb)
{
    enum { C = 2 };
    int *rb = malloc(sizeof(int) * (size_t)(np * np * C + 8));
    int *sb = malloc(sizeof(int) * (size_t)(np * np * C + 8));
    int cnt[64], dsp[64], scnt[64], sdsp[64], tot = 0;
    MPI_Request rq = MPI_REQUEST_NULL;
    /* Allgather, also in place */
    for (int i = 0; i < C; i++)
        sb[i] = V(me, i, 0);
    RUN(MPI_Allgather(sb, C, MPI_INT, rb, C, MPI_INT, MPI_COMM_WORLD),
        MPI_Iallgather(sb, C, MPI_INT, rb, C, MPI_INT, MPI_COMM_WORLD, &rq));
    for (int q = 0; q < np; q++)
        for (int i = 0; i < C; i++)
            CHECK(rb[q * C + i] == V(q, i, 0), "Allgather from %d i %d", q, i);
    memset(rb, 0xff, sizeof(int) * (size_t)(np * C));
    for (int i = 0; i < C; i++)
        rb[me * C + i] = V(me, i, 0);
    RUN(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, C, MPI_INT, MPI_COMM_WORLD),
        MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, C, MPI_INT, MPI_COMM_WORLD, &rq));
    for (int q = 0; q < np; q++)
        for (int i = 0; i < C; i++)
            CHECK(rb[q * C + i] == V(q, i, 0), "Allgather in place from %d i %d", q, i);
    /* Allgather into a strided (non-contiguous) receive type: ints at even positions */
    MPI_Datatype every2;
    int *wide = malloc(sizeof(int) * (size_t)(2 * np * C));
    for (int i = 0; i < 2 * np * C; i++)
        wide[i] = -5;
    MPI_Datatype blk;
    OK(MPI_Type_vector(C, 1, 2, MPI_INT, &blk));
    OK(MPI_Type_create_resized(blk, 0, (MPI_Aint)(2 * C * sizeof(int)), &every2));
    OK(MPI_Type_commit(&every2));
    RUN(MPI_Allgather(sb, C, MPI_INT, wide, 1, every2, MPI_COMM_WORLD),
        MPI_Iallgather(sb, C, MPI_INT, wide, 1, every2, MPI_COMM_WORLD, &rq));
    for (int q = 0; q < np; q++)
        for (int i = 0; i < C; i++) {
            CHECK(wide[2 * (q * C + i)] == V(q, i, 0), "Allgather strided from %d i %d", q, i);
            CHECK(wide[2 * (q * C + i) + 1] == -5, "Allgather strided gap written");
        }
    free(wide);
    OK(MPI_Type_free(&every2));
    OK(MPI_Type_free(&blk));
    /* Allgatherv, reverse order, q % 3 ints each */
    tot = 0;
    for (int q = np - 1; q >= 0; q--) {
        cnt[q] = q % 3;
        dsp[q] = tot;
        tot += cnt[q];
    }
    for (int i = 0; i < me % 3; i++)
        sb[i] = V(me, i, 1);
    RUN(MPI_Allgatherv(sb, me % 3, MPI_INT, rb, cnt, dsp, MPI_INT, MPI_COMM_WORLD),
        MPI_Iallgatherv(sb, me % 3, MPI_INT, rb, cnt, dsp, MPI_INT, MPI_COMM_WORLD, &rq));
    for (int q = 0; q < np; q++)
        for (int i = 0; i < cnt[q]; i++)
            CHECK(rb[dsp[q] + i] == V(q, i, 1), "Allgatherv from %d i %d", q, i);
    /* Alltoall, also in place */
    for (int q = 0; q < np; q++)
        for (int i = 0; i < C; i++)
            sb[q * C + i] = V(me, i, q);
    RUN(MPI_Alltoall(sb, C, MPI_INT, rb, C, MPI_INT, MPI_COMM_WORLD),
        MPI_Ialltoall(sb, C, MPI_INT, rb, C, MPI_INT, MPI_COMM_WORLD, &rq));
    for (int q = 0; q < np; q++)
        for (int i = 0; i < C; i++)
            CHECK(rb[q * C + i] == V(q, i, me), "Alltoall from %d i %d", q, i);
    memcpy(rb, sb, sizeof(int) * (size_t)(np * C));
    RUN(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, C, MPI_INT, MPI_COMM_WORLD),
        MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, C, MPI_INT, MPI_COMM_WORLD, &rq));
    for (int q = 0; q < np; q++)
        for (int i = 0; i < C; i++)
            CHECK(rb[q * C + i] == V(q, i, me), "Alltoall in place from %d i %d", q, i);
    /* Alltoallv: me sends (me + q) % 3 ints to q, blocks in reverse order */
    int st = 0, rt = 0;
    for (int q = np - 1; q >= 0; q--) {
        scnt[q] = (me + q) % 3;
        sdsp[q] = st;
        st += scnt[q];
        cnt[q] = (q + me) % 3;
        dsp[q] = rt;
        rt += cnt[q];
    }
    for (int q = 0; q < np; q++)
        for (int i = 0; i < scnt[q]; i++)
            sb[sdsp[q] + i] = V(me, i, q);
    RUN(MPI_Alltoallv(sb, scnt, sdsp, MPI_INT, rb, cnt, dsp, MPI_INT, MPI_COMM_WORLD),
        MPI_Ialltoallv(sb, scnt, sdsp, MPI_INT, rb, cnt, dsp, MPI_INT, MPI_COMM_WORLD, &rq));
    for (int q = 0; q < np; q++)
        for (int i = 0; i < cnt[q]; i++)
            CHECK(rb[dsp[q] + i] == V(q, i, me), "Alltoallv from %d i %d", q, i);
    free(rb);
    free(sb);
}

/* Several non-blocking data-movement collectives outstanding together with point-to-point. */
static void test_overlap(void)
{
    int a[64], g[64], b = me == 0 ? 99 : -1, x[64], y[64], tok = -1;
    MPI_Request q[5];
    for (int i = 0; i < np; i++)
        x[i] = V(me, 0, i);
    a[0] = me;
    OK(MPI_Irecv(&tok, 1, MPI_INT, (me + np - 1) % np, 3, MPI_COMM_WORLD, &q[0]));
    OK(MPI_Iallgather(a, 1, MPI_INT, g, 1, MPI_INT, MPI_COMM_WORLD, &q[1]));
    OK(MPI_Ibcast(&b, 1, MPI_INT, 0, MPI_COMM_WORLD, &q[2]));
    OK(MPI_Ialltoall(x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD, &q[3]));
    OK(MPI_Send(&me, 1, MPI_INT, (me + 1) % np, 3, MPI_COMM_WORLD));
    OK(MPI_Waitall(4, q, MPI_STATUSES_IGNORE));
    CHECK(tok == (me + np - 1) % np, "token");
    CHECK(b == 99, "Ibcast");
    for (int i = 0; i < np; i++) {
        CHECK(g[i] == i, "Iallgather %d", i);
        CHECK(y[i] == V(i, 0, me), "Ialltoall %d", i);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int roots[3] = {0, 1 % np, np - 1};
    for (int nb = 0; nb < 2; nb++) {
        for (int k = 0; k < 3; k++)
            if (k == 0 || (roots[k] != roots[k - 1] && roots[k] != roots[0]))
                test_rooted(roots[k], nb);
        test_all(nb);
    }
    for (int rep = 0; rep < 3; rep++)
        test_overlap();
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0)
        printf("coll_mpi gather: np %d ok\n", np);
    MPI_Finalize();
    return 0;
}
