/* tests/goal/test_goal_mpi.c — GOAL runs inside an MPI program, interleaved with MPI calls, while
 * MPI's progress thread (CREDO_PROGRESS_THREAD=1, registered with and without CREDO_PROGRESS_RT)
 * drives the same engine: the GOAL run calls must serialize with it as the MPI bindings do. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "credo/goal.h"

static int me, np;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rank %d: %s:%d: check failed: %s: ", me, __FILE__, __LINE__, #cond);  \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

/* Ring: each rank sends its vector to the right neighbour (an eager and a rendezvous size) and adds
 * what the left one sent into its result: result = mine + left's. */
#define SMALL 64                /* int32 elements: 256 B, eager */
#define LARGE (64 * 1024)       /* int32 elements: 256 KiB, rendezvous */

typedef struct ring {
    int32_t *mine, *left, *res;
    int n;
    GOAL_Schedule s;
} ring;

static void ring_build(ring *r, int n, int tag)
{
    r->n = n;
    r->mine = malloc((size_t)n * 4);
    r->left = malloc((size_t)n * 4);
    r->res = malloc((size_t)n * 4);
    CHECK(r->mine && r->left && r->res, "out of memory");
    GOAL_Graph g = GOAL_CreateGraph();
    int right = (me + 1) % np, from = (me + np - 1) % np;
    GOAL_Send(g, r->mine, n * 4, right, tag, GOAL_USERSPACE);
    GOAL_Vertex rv = GOAL_Recv(g, r->left, n * 4, from, tag, GOAL_USERSPACE);
    GOAL_Vertex add = GOAL_LocalOp(g, r->mine, r->left, r->res, GOAL_ADD, GOAL_SINT, 32, n,
                                   GOAL_USERSPACE, GOAL_USERSPACE, GOAL_USERSPACE);
    GOAL_Requires(g, rv, add);
    CHECK(GOAL_GraphStatus(g) == GOAL_SUCCESS, "graph");
    r->s = GOAL_Compile(g);
    CHECK(r->s != NULL, "compile");
    GOAL_FreeGraph(g);
}

static void ring_fill(ring *r, int iter)
{
    for (int i = 0; i < r->n; i++)
        r->mine[i] = me * 1000003 + iter * 31 + i;
    memset(r->res, 0, (size_t)r->n * 4);
}

static void ring_check(const ring *r, int iter)
{
    int from = (me + np - 1) % np;
    for (int i = 0; i < r->n; i++) {
        int32_t want = (me * 1000003 + iter * 31 + i) + (from * 1000003 + iter * 31 + i);
        CHECK(r->res[i] == want, "iteration %d, n %d, element %d: %d, want %d", iter, r->n, i,
              r->res[i], want);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    CHECK(GOAL_Init() == GOAL_SUCCESS, "GOAL_Init after MPI_Init");
    ring small, large;
    ring_build(&small, SMALL, 1);
    ring_build(&large, LARGE, 2);
    for (int iter = 0; iter < 1000; iter++) {
        ring_fill(&small, iter);
        ring_fill(&large, iter);
        /* two runs in flight at once, completed in either order, with MPI traffic in between */
        GOAL_Handle hl = GOAL_Run(large.s), hs = GOAL_Run(small.s);
        CHECK(hl && hs, "run");
        int v = me, sum = -1;
        CHECK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS, "allreduce");
        CHECK(sum == np * (np - 1) / 2, "allreduce %d", sum);
        if (iter & 1) {
            int rc;
            while ((rc = GOAL_Test(hs)) == 0)
                ;
            CHECK(rc == 1, "test: %s", GOAL_ErrorString(rc));
            CHECK(GOAL_Wait(hl) == GOAL_SUCCESS, "wait large");
        } else {
            CHECK(GOAL_Wait(hl) == GOAL_SUCCESS, "wait large");
            CHECK(GOAL_Wait(hs) == GOAL_SUCCESS, "wait small");
        }
        ring_check(&small, iter);
        ring_check(&large, iter);
    }
    CHECK(GOAL_FreeSchedule(small.s) == GOAL_SUCCESS, "free");
    CHECK(GOAL_FreeSchedule(large.s) == GOAL_SUCCESS, "free");
    CHECK(GOAL_Finalize() == GOAL_SUCCESS, "GOAL_Finalize");
    if (me == 0)
        printf("goal_mpi: np %d ok\n", np);
    free(small.mine), free(small.left), free(small.res);
    free(large.mine), free(large.left), free(large.res);
    MPI_Finalize();
    return 0;
}
