/* tools/credo-goal/credo_goal.c — runs LogGOPSim GOAL text schedules on real ranks (under
 * credorun) with real payloads and reports per-rank completion times; also checks and reformats. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "credo/goal.h"
#include "goal/goal_impl.h"
#include "goal/goal_text.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: credo-goal run [--reps N] file.goal   (under credorun -n <num_ranks>)\n"
               "       credo-goal check file.goal            (parse, validate, print a summary)\n"
               "       credo-goal cat file.goal              (parse and write back normalized)\n"
               "calc <time> is executed as a busy loop of <time> nanoseconds.\n");
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Dissemination barrier through the GOAL API. */
static GOAL_Schedule make_barrier(int me, int np)
{
    GOAL_Graph g = GOAL_CreateGraph();
    GOAL_Vertex prev = GOAL_INVALID_VERTEX;
    for (int k = 0, d = 1; d < np; d <<= 1, k++) {
        GOAL_Vertex s = GOAL_Send(g, NULL, 0, (me + d) % np, k, GOAL_USERSPACE);
        GOAL_Vertex r = GOAL_Recv(g, NULL, 0, (me - d + np) % np, k, GOAL_USERSPACE);
        if (prev != GOAL_INVALID_VERTEX)
            GOAL_Requires(g, prev, s);
        prev = r;
    }
    GOAL_Schedule s = GOAL_Compile(g);
    GOAL_FreeGraph(g);
    return s;
}

static int cmd_check(const char *path, int write_back)
{
    char err[512];
    goal_txt *t;
    if (goal_txt_read_file(path, &t, err, sizeof err)) {
        fprintf(stderr, "credo-goal: %s\n", err);
        return 1;
    }
    int rc = 0;
    uint64_t ops = 0, deps = 0, bytes = 0;
    for (uint32_t r = 0; r < t->nranks && !rc; r++) {
        struct goal_graph g;
        goal_graph_init(&g);
        struct goal_sched *s = NULL;
        int e = goal_graph_from_txt(&g, &t->ranks[r]);
        if (!e)
            e = goal_compile(&g, &s);
        if (e) {
            fprintf(stderr, "credo-goal: %s: rank %u: %s%s\n", path, r, GOAL_ErrorString(e),
                    e == GOAL_ERR_TAG ? " (tags above 65535 cannot run on credo)"
                    : e == GOAL_ERR_ARG ? " (wildcard source or tag cannot run on credo)" : "");
            rc = 1;
        }
        goal_sched_destroy(s);
        goal_graph_destroy(&g);
        ops += t->ranks[r].nops;
        deps += t->ranks[r].ndeps;
        for (uint32_t i = 0; i < t->ranks[r].nops; i++)
            if (t->ranks[r].ops[i].kind == GOAL_TXT_SEND)
                bytes += t->ranks[r].ops[i].size;
    }
    if (write_back)
        rc |= goal_txt_write(stdout, t) ? 1 : 0;
    else if (!rc)
        printf("%s: %u ranks, %llu operations, %llu dependencies, %llu bytes sent\n", path, t->nranks,
               (unsigned long long)ops, (unsigned long long)deps, (unsigned long long)bytes);
    goal_txt_free(t);
    return rc;
}

static int cmd_run(const char *path, int reps)
{
    if (GOAL_Init() != GOAL_SUCCESS) {
        fprintf(stderr, "credo-goal: cannot start GOAL (run under credorun)\n");
        return 1;
    }
    int me = GOAL_MyRank(), np = GOAL_GroupSize();
    char err[512];
    goal_txt *t;
    int ok = 1;
    if (goal_txt_read_file(path, &t, err, sizeof err)) {
        fprintf(stderr, "credo-goal: rank %d: %s\n", me, err);
        return 1; /* every rank parses the same file and fails the same way */
    }
    if ((int)t->nranks != np) {
        if (me == 0)
            fprintf(stderr, "credo-goal: %s has %u ranks, the job has %d (use credorun -n %u)\n",
                    path, t->nranks, np, t->nranks);
        goal_txt_free(t);
        return 1;
    }
    struct goal_graph g;
    goal_graph_init(&g);
    struct goal_sched *s = NULL;
    int e = goal_graph_from_txt(&g, &t->ranks[me]);
    if (!e)
        e = goal_compile(&g, &s);
    goal_graph_destroy(&g);
    goal_txt_free(t);
    if (e) {
        fprintf(stderr, "credo-goal: %s: rank %d: %s\n", path, me, GOAL_ErrorString(e));
        return 1;
    }
    GOAL_Schedule bar = make_barrier(me, np);
    double best = 1e30, total = 0;
    for (int rep = 0; rep < reps && ok; rep++) {
        GOAL_Wait(GOAL_Run(bar));
        double t0 = now_s();
        GOAL_Handle h = GOAL_Run(s);
        int rc = h ? GOAL_Wait(h) : GOAL_ERR_ARG;
        double dt = now_s() - t0;
        if (rc) {
            fprintf(stderr, "credo-goal: rank %d: run failed: %s\n", me, GOAL_ErrorString(rc));
            ok = 0;
        }
        total += dt;
        if (dt < best)
            best = dt;
    }
    /* Rank 0 collects (best, mean) of every rank through a GOAL gather. */
    double mine[2] = {best * 1e6, total / reps * 1e6};
    double *all = me == 0 ? calloc((size_t)np * 2, sizeof(double)) : NULL;
    GOAL_Graph gg = GOAL_CreateGraph();
    if (me == 0) {
        memcpy(all, mine, sizeof mine);
        for (int r = 1; r < np; r++)
            GOAL_Recv(gg, all + 2 * r, sizeof mine, r, 1, GOAL_USERSPACE);
    } else {
        GOAL_Send(gg, mine, sizeof mine, 0, 1, GOAL_USERSPACE);
    }
    GOAL_Schedule gs = GOAL_Compile(gg);
    GOAL_Wait(GOAL_Run(gs));
    if (me == 0) {
        printf("# %s: %d ranks, %d repetitions; completion time per rank (us)\n", path, np, reps);
        printf("# rank        best        mean\n");
        for (int r = 0; r < np; r++)
            printf("%6d %11.2f %11.2f\n", r, all[2 * r], all[2 * r + 1]);
        free(all);
    }
    GOAL_Wait(GOAL_Run(bar)); /* nobody leaves while a peer still sends */
    GOAL_FreeSchedule(gs);
    GOAL_FreeGraph(gg);
    GOAL_FreeSchedule(bar);
    GOAL_FreeSchedule(s);
    GOAL_Finalize();
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(stdout);
        return 0;
    }
    int reps = 1, i = 2;
    if (!strcmp(argv[1], "run") && i + 1 < argc && !strcmp(argv[i], "--reps")) {
        reps = atoi(argv[i + 1]);
        if (reps < 1) {
            fprintf(stderr, "credo-goal: --reps expects a positive number, got '%s'\n", argv[i + 1]);
            return 2;
        }
        i += 2;
    }
    if (i + 1 != argc) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "run"))
        return cmd_run(argv[i], reps);
    if (!strcmp(argv[1], "check"))
        return cmd_check(argv[i], 0);
    if (!strcmp(argv[1], "cat"))
        return cmd_check(argv[i], 1);
    usage(stderr);
    return 2;
}
