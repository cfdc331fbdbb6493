/* tests/goal/test_goal_run.c — GOAL schedules executed on real ranks (run under credorun): rings,
 * scratchpad reductions, vector transfers, concurrent and repeated runs, long chains, text input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "credo/goal.h"
#include "goal/goal_exec.h"
#include "goal/goal_text.h"

static int me, np;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rank %d: %s:%d: check failed: %s: ", me, __FILE__, __LINE__, #cond);  \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static void run_wait(GOAL_Schedule s)
{
    GOAL_Handle h = GOAL_Run(s);
    CHECK(h != NULL, "run");
    int rc = GOAL_Wait(h);
    CHECK(rc == GOAL_SUCCESS, "wait: %s", GOAL_ErrorString(rc));
}

/* Ring shift with reuse: new send contents each run must arrive each run. */
static void test_ring(void)
{
    int right = (me + 1) % np, left = (me + np - 1) % np;
    int sbuf[256], rbuf[256];
    GOAL_Graph g = GOAL_CreateGraph();
    GOAL_Recv(g, rbuf, sizeof rbuf, left, 7, GOAL_USERSPACE);
    GOAL_Send(g, sbuf, sizeof sbuf, right, 7, GOAL_USERSPACE);
    GOAL_Schedule s = GOAL_Compile(g);
    CHECK(s, "compile");
    GOAL_FreeGraph(g);
    GOAL_MakeScheduleReusable(s);
    for (int rep = 0; rep < 5; rep++) {
        for (int i = 0; i < 256; i++)
            sbuf[i] = me * 1000 + rep * 7 + i;
        run_wait(s);
        for (int i = 0; i < 256; i++)
            CHECK(rbuf[i] == left * 1000 + rep * 7 + i, "rep %d i %d got %d", rep, i, rbuf[i]);
    }
    CHECK(GOAL_FreeSchedule(s) == 0, "free");
}

/* Ring allreduce of int64s through the scratchpad: np-1 steps of recv, add, forward. */
static void test_scratch_ring_sum(void)
{
    enum { N = 64 };
    int64_t mine[N], out[N];
    int right = (me + 1) % np, left = (me + np - 1) % np;
    GOAL_Graph g = GOAL_CreateGraph();
    /* scratch: [0] accumulator, [1] incoming; every step copies the accumulator out first so a
     * pending send never sees it change */
    size_t B = sizeof mine;
    GOAL_AllocateScratchpad(g, B * (size_t)(2 * np + 1));
    GOAL_Vertex prev = GOAL_LocalOp(g, mine, NULL, GOAL_SCRATCH(0), GOAL_COPY, GOAL_SINT, 64, N,
                                    GOAL_USERSPACE, GOAL_USERSPACE, GOAL_SCRATCHPAD);
    GOAL_Vertex fwd = GOAL_LocalOp(g, mine, NULL, GOAL_SCRATCH(2 * B), GOAL_COPY, GOAL_SINT, 64, N,
                                   GOAL_USERSPACE, GOAL_USERSPACE, GOAL_SCRATCHPAD);
    for (int step = 0; step < np - 1; step++) {
        size_t sendoff = (size_t)(2 + 2 * step) * B, recvoff = (size_t)(3 + 2 * step) * B;
        GOAL_Vertex snd = GOAL_Send(g, GOAL_SCRATCH(sendoff), (int)B, right, step, GOAL_SCRATCHPAD);
        GOAL_Vertex rcv = GOAL_Recv(g, GOAL_SCRATCH(recvoff), (int)B, left, step, GOAL_SCRATCHPAD);
        GOAL_Requires(g, fwd, snd);
        GOAL_Vertex add = GOAL_LocalOp(g, GOAL_SCRATCH(0), GOAL_SCRATCH(recvoff), GOAL_SCRATCH(0),
                                       GOAL_ADD, GOAL_SINT, 64, N, GOAL_SCRATCHPAD, GOAL_SCRATCHPAD,
                                       GOAL_SCRATCHPAD);
        GOAL_Requires(g, rcv, add);
        GOAL_Requires(g, prev, add);
        prev = add;
        if (step < np - 2) {
            /* forward what we received (not the sum) next step: value from rank left-step */
            fwd = GOAL_LocalOp(g, GOAL_SCRATCH(recvoff), NULL, GOAL_SCRATCH(sendoff + 2 * B), GOAL_COPY,
                               GOAL_SINT, 64, N, GOAL_SCRATCHPAD, GOAL_USERSPACE, GOAL_SCRATCHPAD);
            GOAL_Requires(g, rcv, fwd);
        }
    }
    GOAL_Vertex fin = GOAL_LocalOp(g, GOAL_SCRATCH(0), NULL, out, GOAL_COPY, GOAL_SINT, 64, N,
                                   GOAL_SCRATCHPAD, GOAL_USERSPACE, GOAL_USERSPACE);
    GOAL_Requires(g, prev, fin);
    CHECK(GOAL_GraphStatus(g) == 0, "build %d", GOAL_GraphStatus(g));
    GOAL_Schedule s = GOAL_Compile(g);
    CHECK(s, "compile %d", GOAL_GraphStatus(g));
    GOAL_FreeGraph(g);
    for (int rep = 0; rep < 3; rep++) {
        for (int i = 0; i < N; i++)
            mine[i] = (int64_t)(me + 1) * (i + 1) + rep;
        memset(out, 0, sizeof out);
        run_wait(s);
        for (int i = 0; i < N; i++) {
            int64_t want = (int64_t)np * (np + 1) / 2 * (i + 1) + (int64_t)rep * np;
            CHECK(out[i] == want, "rep %d i %d got %lld want %lld", rep, i, (long long)out[i],
                  (long long)want);
        }
    }
    GOAL_FreeSchedule(s);
}

/* Vector transfer: a 4x4 matrix sent by rows arrives by columns (transpose) at the right neighbour. */
static void test_vector_transpose(void)
{
    int right = (me + 1) % np, left = (me + np - 1) % np;
    int m[16], t[16];
    for (int i = 0; i < 16; i++)
        m[i] = me * 100 + i;
    void *soff[1] = {m};
    int slen[1] = {sizeof m};
    void *roff[16];
    int rlen[16];
    for (int i = 0; i < 16; i++) { /* element i of the stream (row i/4, col i%4) goes to t[col][row] */
        roff[i] = &t[(i % 4) * 4 + i / 4];
        rlen[i] = sizeof(int);
    }
    GOAL_Graph g = GOAL_CreateGraph();
    GOAL_SendVec(g, soff, slen, 1, right, 3, GOAL_USERSPACE);
    GOAL_RecvVec(g, roff, rlen, 16, left, 3, GOAL_USERSPACE);
    GOAL_Schedule s = GOAL_Compile(g);
    CHECK(s, "compile");
    GOAL_FreeGraph(g);
    run_wait(s);
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++)
            CHECK(t[c * 4 + r] == left * 100 + r * 4 + c, "t[%d][%d]", c, r);
    GOAL_FreeSchedule(s);
}

/* Two schedules with identical tags, and two runs of one schedule, all in flight at once. */
static void test_concurrent_runs(void)
{
    int right = (me + 1) % np, left = (me + np - 1) % np;
    int a_s = me + 1, a_r = -1, b_s = -(me + 1), b_r = 0;
    GOAL_Graph ga = GOAL_CreateGraph(), gb = GOAL_CreateGraph();
    /* A: receive first, then send (the receive is posted late on purpose) */
    GOAL_Vertex c = GOAL_Calc(ga, 20000);
    GOAL_Vertex r = GOAL_Recv(ga, &a_r, sizeof a_r, left, 0, GOAL_USERSPACE);
    GOAL_Requires(ga, c, r);
    GOAL_Send(ga, &a_s, sizeof a_s, right, 0, GOAL_USERSPACE);
    GOAL_Recv(gb, &b_r, sizeof b_r, left, 0, GOAL_USERSPACE);
    GOAL_Send(gb, &b_s, sizeof b_s, right, 0, GOAL_USERSPACE);
    GOAL_Schedule sa = GOAL_Compile(ga), sb = GOAL_Compile(gb);
    CHECK(sa && sb, "compile");
    GOAL_Handle h1 = GOAL_Run(sa), h2 = GOAL_Run(sb), h3 = GOAL_Run(sa);
    CHECK(h1 && h2 && h3, "run");
    if (!h1->done)
        CHECK(GOAL_FreeSchedule(sa) == GOAL_ERR_STATE, "free while running must be refused");
    CHECK(GOAL_Wait(h2) == 0, "wait b");
    CHECK(b_r == -(left + 1), "b got %d", b_r);
    int done = 0;
    while (done != 2) { /* Test releases the handle when it reports 1 */
        if (h1 && GOAL_Test(h1) == 1)
            h1 = NULL, done++;
        if (h3 && GOAL_Test(h3) == 1)
            h3 = NULL, done++;
    }
    CHECK(a_r == left + 1, "a got %d", a_r);
    CHECK(GOAL_FreeSchedule(sa) == 0 && GOAL_FreeSchedule(sb) == 0, "free");
    GOAL_FreeGraph(ga);
    GOAL_FreeGraph(gb);
}

/* 100,000-vertex dependency chain, with ping-pong messages along part of it. */
static void test_long_chain(void)
{
    const int n = 100000, msgs = 2000;
    int partner = me ^ 1;
    int active = partner < np;
    int v = 0;
    GOAL_Graph g = GOAL_CreateGraph();
    GOAL_Vertex prev = GOAL_INVALID_VERTEX;
    int one = 1;
    int nv = 0;
    /* message phase: the pair passes a counter back and forth, the receiver increments it */
    for (int k = 0; active && k < msgs; k++) {
        GOAL_Vertex x;
        if ((k & 1) == (me & 1)) {
            x = GOAL_Send(g, &v, sizeof v, partner, 1, GOAL_USERSPACE);
            nv++;
        } else {
            GOAL_Vertex r = GOAL_Recv(g, &v, sizeof v, partner, 1, GOAL_USERSPACE);
            x = GOAL_LocalOp(g, &v, &one, &v, GOAL_ADD, GOAL_SINT, 32, 1, GOAL_USERSPACE,
                             GOAL_USERSPACE, GOAL_USERSPACE);
            if (prev != GOAL_INVALID_VERTEX)
                GOAL_Requires(g, prev, r);
            prev = r;
            nv += 2;
        }
        if (prev != GOAL_INVALID_VERTEX)
            GOAL_Requires(g, prev, x);
        prev = x;
    }
    int base = nv;
    while (nv < n) { /* local phase */
        GOAL_Vertex x = GOAL_LocalOp(g, &v, &one, &v, GOAL_ADD, GOAL_SINT, 32, 1, GOAL_USERSPACE,
                                     GOAL_USERSPACE, GOAL_USERSPACE);
        if (prev != GOAL_INVALID_VERTEX)
            GOAL_Requires(g, prev, x);
        prev = x;
        nv++;
    }
    GOAL_Schedule s = GOAL_Compile(g);
    CHECK(s, "compile %d", GOAL_GraphStatus(g));
    GOAL_FreeGraph(g);
    run_wait(s);
    /* every vertex after the message phase added one; the messages carried the count across */
    /* the rank that sends the last message does not see its partner's last increment */
    int want = (active ? msgs - (((msgs - 1) & 1) == (me & 1)) : 0) + (n - base);
    CHECK(v == want, "v = %d want %d", v, want);
    GOAL_FreeSchedule(s);
}

/* A text schedule (dissemination barrier for np ranks) runs, and a size mismatch is reported. */
static void test_text_and_errors(void)
{
    char text[8192];
    size_t len = (size_t)snprintf(text, sizeof text, "num_ranks %d\n", np);
    for (int r = 0; r < np; r++) {
        len += (size_t)snprintf(text + len, sizeof text - len, "rank %d {\n", r);
        int k = 0;
        for (int d = 1; d < np; d *= 2, k++) {
            len += (size_t)snprintf(text + len, sizeof text - len,
                                    "s%d: send 4b to %d tag %d\nr%d: recv 4b from %d tag %d\n", k,
                                    (r + d) % np, k, k, (r - d + np) % np, k);
            if (k)
                len += (size_t)snprintf(text + len, sizeof text - len, "s%d requires r%d\n", k, k - 1);
        }
        len += (size_t)snprintf(text + len, sizeof text - len, "}\n");
    }
    goal_txt *t = NULL;
    char err[256];
    CHECK(goal_txt_read_mem(text, len, "barrier", &t, err, sizeof err) == 0, "%s", err);
    struct goal_graph g;
    goal_graph_init(&g);
    CHECK(goal_graph_from_txt(&g, goal_txt_rank_of(t, (uint32_t)me)) == 0, "from txt");
    struct goal_sched *s = NULL;
    CHECK(goal_compile(&g, &s) == 0, "compile");
    for (int rep = 0; rep < 3; rep++)
        run_wait(s);
    goal_sched_destroy(s);
    goal_graph_destroy(&g);
    goal_txt_free(t);

    /* mismatch: rank sends 8 bytes to itself, receives expecting 4 */
    char b8[8] = {0}, b4[4];
    GOAL_Graph eg = GOAL_CreateGraph();
    GOAL_Send(eg, b8, 8, me, 9, GOAL_USERSPACE);
    GOAL_Recv(eg, b4, 4, me, 9, GOAL_USERSPACE);
    GOAL_Schedule es = GOAL_Compile(eg);
    GOAL_Handle h = GOAL_Run(es);
    CHECK(h, "run");
    CHECK(GOAL_Wait(h) == GOAL_ERR_TRUNCATE, "mismatch not reported");
    GOAL_FreeSchedule(es);
    GOAL_FreeGraph(eg);

    /* peers beyond the group are refused at Run */
    eg = GOAL_CreateGraph();
    GOAL_Send(eg, b8, 8, np, 9, GOAL_USERSPACE);
    es = GOAL_Compile(eg);
    CHECK(es && GOAL_Run(es) == NULL, "out-of-group peer accepted");
    GOAL_FreeSchedule(es);
    GOAL_FreeGraph(eg);

    /* empty schedule completes at once */
    eg = GOAL_CreateGraph();
    es = GOAL_Compile(eg);
    h = GOAL_Run(es);
    CHECK(h && GOAL_Test(h) == 1, "empty run");
    GOAL_FreeSchedule(es);
    GOAL_FreeGraph(eg);
}

int main(void)
{
    CHECK(GOAL_IsFinalized() == 1, "not finalized before init");
    CHECK(GOAL_Init() == GOAL_SUCCESS, "init");
    CHECK(GOAL_Init() == GOAL_ERR_STATE, "second init must fail");
    CHECK(GOAL_IsInitialized() == 1, "initialized");
    me = GOAL_MyRank();
    np = GOAL_GroupSize();
    CHECK(np >= 1 && me >= 0 && me < np, "rank %d size %d", me, np);
    CHECK(GOAL_IsExtensionAvailable(GOAL_EXT_IREQUIRES), "ext");
    test_ring();
    test_scratch_ring_sum();
    if (getenv("GOAL_TEST_VERBOSE"))
        fprintf(stderr, "rank %d: test_scratch_ring_sum ok\n", me);
    test_vector_transpose();
    if (getenv("GOAL_TEST_VERBOSE"))
        fprintf(stderr, "rank %d: test_vector_transpose ok\n", me);
    test_concurrent_runs();
    if (getenv("GOAL_TEST_VERBOSE"))
        fprintf(stderr, "rank %d: test_concurrent_runs ok\n", me);
    test_long_chain();
    if (getenv("GOAL_TEST_VERBOSE"))
        fprintf(stderr, "rank %d: test_long_chain ok\n", me);
    test_text_and_errors();
    if (getenv("GOAL_TEST_VERBOSE"))
        fprintf(stderr, "rank %d: test_text_and_errors ok\n", me);
    /* final barrier via GOAL so nobody finalizes while a peer still sends */
    test_ring();
    CHECK(GOAL_Finalize() == 0, "finalize");
    CHECK(GOAL_IsFinalized() == 1, "finalized");
    if (me == 0)
        printf("goal_run: %d ranks ok\n", np);
    return 0;
}
