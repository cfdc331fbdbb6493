/* tools/credo-goal/credo_goal.c — runs LogGOPSim GOAL text schedules on real ranks (under
 * credorun) with real payloads and reports per-rank completion times; also checks and reformats. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "credo/goal.h"
#include "goal/goal_impl.h"
#include "goal/goal_text.h"

/* The largest job credo runs: the mailbox slot header's source field has 16 bits (src/core/init.c). */
#define CREDO_MAX_RANKS 65535u

static void usage(FILE *f)
{
    fprintf(f, "usage: credo-goal run [--reps N] file.goal   (under credorun -n <num_ranks>)\n"
               "       credo-goal check file.goal            (parse, validate, print a summary)\n"
               "       credo-goal cat file.goal              (parse and write back normalized)\n"
               "options: --reps N (1 .. 1000000, run only), --max-bytes N (largest file read,\n"
               "         1 .. 1099511627776, default 1073741824 = 1 GiB)\n"
               "calc <time> is executed as a busy loop of <time> nanoseconds.\n");
}

/* Decimal digits only, in [min, max]; -1 otherwise. */
static int parse_count(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    const char *p = s;
    while (*p >= '0' && *p <= '9') {
        unsigned d = (unsigned)(*p++ - '0');
        if (v > (max - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    if (p == s || *p || v < min)
        return -1;
    *out = v;
    return 0;
}

/* What running on credo needs beyond a valid file: a job size credo can start, and a partner for
 * every message (credosim refuses unmatched ones the same way). 0, or -1 with a message. */
static int check_runnable(const goal_txt *t, const char *path, char *err, size_t errlen)
{
    if (t->nranks > CREDO_MAX_RANKS) {
        snprintf(err, errlen, "%s:%u: expected num_ranks <= %u (the largest job credo runs), got %u", path,
                 t->nranks_line, CREDO_MAX_RANKS, t->nranks);
        return -1;
    }
    return goal_txt_check_matching(t, path, err, errlen);
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

static int cmd_check(const char *path, int write_back, uint64_t max_bytes)
{
    char err[512];
    goal_txt *t;
    if (goal_txt_read_file_max(path, max_bytes, &t, err, sizeof err)) {
        fprintf(stderr, "credo-goal: %s\n", err);
        return 1;
    }
    /* cat only normalizes (any schedule the reader takes); check asks whether credo can run it */
    if (!write_back && check_runnable(t, path, err, sizeof err)) {
        fprintf(stderr, "credo-goal: %s\n", err);
        goal_txt_free(t);
        return 1;
    }
    int rc = 0;
    uint64_t ops = 0, deps = 0, bytes = 0;
    for (uint32_t b = 0; b < t->nblocks && !rc; b++) {
        const goal_txt_rank *tr = &t->blocks[b];
        uint32_t r = tr->rank;
        struct goal_graph g;
        goal_graph_init(&g);
        struct goal_sched *s = NULL;
        int e = goal_graph_from_txt(&g, tr);
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
        ops += tr->nops;
        deps += tr->ndeps;
        for (uint32_t i = 0; i < tr->nops; i++)
            if (tr->ops[i].kind == GOAL_TXT_SEND)
                bytes += tr->ops[i].size;
    }
    if (write_back)
        rc |= goal_txt_write(stdout, t) ? 1 : 0;
    else if (!rc)
        printf("%s: %u ranks, %llu operations, %llu dependencies, %llu bytes sent\n", path, t->nranks,
               (unsigned long long)ops, (unsigned long long)deps, (unsigned long long)bytes);
    goal_txt_free(t);
    return rc;
}

static int cmd_run(const char *path, int reps, uint64_t max_bytes)
{
    if (GOAL_Init() != GOAL_SUCCESS) {
        fprintf(stderr, "credo-goal: cannot start GOAL (run under credorun)\n");
        return 1;
    }
    int me = GOAL_MyRank(), np = GOAL_GroupSize();
    char err[512];
    goal_txt *t;
    int ok = 1;
    /* Every rank reads the same file and takes the same way out of these three checks, so each
     * finalizes (rank 0's message is not cut short by a peer's early exit killing the job). */
    if (goal_txt_read_file_max(path, max_bytes, &t, err, sizeof err)) {
        if (me == 0)
            fprintf(stderr, "credo-goal: %s\n", err);
        GOAL_Finalize();
        return 1;
    }
    if ((int64_t)t->nranks != np) {
        if (me == 0)
            fprintf(stderr, "credo-goal: %s has %u ranks, the job has %d (use credorun -n %u)\n",
                    path, t->nranks, np, t->nranks);
        goal_txt_free(t);
        GOAL_Finalize();
        return 1;
    }
    if (check_runnable(t, path, err, sizeof err)) { /* a lone send would leave its peer waiting */
        if (me == 0)
            fprintf(stderr, "credo-goal: %s\n", err);
        goal_txt_free(t);
        GOAL_Finalize();
        return 1;
    }
    struct goal_graph g;
    goal_graph_init(&g);
    struct goal_sched *s = NULL;
    const goal_txt_rank *own = goal_txt_rank_of(t, (uint32_t)me);
    goal_txt_rank none = {.rank = (uint32_t)me};
    int e = goal_graph_from_txt(&g, own ? own : &none);
    if (!e)
        e = goal_compile(&g, &s);
    /* the scratchpad resident before the first timed run, and no zero fill inside each run: a
     * 1 GB message otherwise took 262,144 page faults inside the timed run (docs/GOAL.md) */
    if (!e)
        e = goal_sched_prepare_scratch(s);
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
    int run = !strcmp(argv[1], "run"), check = !strcmp(argv[1], "check"), cat = !strcmp(argv[1], "cat");
    if (!run && !check && !cat) {
        fprintf(stderr, "credo-goal: unknown command '%s' (expected run, check or cat)\n", argv[1]);
        usage(stderr);
        return 2;
    }
    uint64_t reps = 1, max_bytes = GOAL_TXT_MAX_FILE_BYTES;
    int i = 2;
    for (; i + 1 < argc && !strncmp(argv[i], "--", 2); i += 2) {
        if (run && !strcmp(argv[i], "--reps")) {
            if (parse_count(argv[i + 1], 1, 1000000, &reps)) {
                fprintf(stderr, "credo-goal: --reps expects an integer 1 .. 1000000, got '%s'\n", argv[i + 1]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--max-bytes")) {
            if (parse_count(argv[i + 1], 1, 1ull << 40, &max_bytes)) {
                fprintf(stderr, "credo-goal: --max-bytes expects an integer 1 .. 1099511627776, got '%s'\n",
                        argv[i + 1]);
                return 2;
            }
        } else {
            fprintf(stderr, "credo-goal: unknown option '%s' for %s\n", argv[i], argv[1]);
            usage(stderr);
            return 2;
        }
    }
    if (i + 1 != argc) {
        usage(stderr);
        return 2;
    }
    if (run)
        return cmd_run(argv[i], (int)reps, max_bytes);
    return cmd_check(argv[i], cat, max_bytes);
}
