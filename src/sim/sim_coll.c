/* src/sim/sim_coll.c — credosim's `coll:` patterns: each rank's schedule is built and compiled by
 * src/coll's pure builder (coll_build), the same code the MPI library runs, then converted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll_build.h"
#include "goal/goal_impl.h"
#include "sim/sim_pattern.h"

/* Never called: the simulator only needs the schedule's shape. coll_build requires a function. */
static void no_reduce(const void *in, void *inout, size_t count, void *op, void *dt)
{
    (void)in, (void)inout, (void)count, (void)op, (void)dt;
}

/* Buffers are recorded, never touched: any non-NULL address that is not COLL_IN_PLACE will do. */
#define PLACEHOLDER ((void *)(uintptr_t)0x10000)

/* Appends one compiled rank schedule. Sends and receives keep peer, tag and byte size; local
 * operations and reduction callbacks become zero-time calcs (credosim models communication; a
 * reduction cost model would go here), GOAL calcs keep their nanoseconds. Dependencies are added
 * per prerequisite in successor order, `requires` before `irequires`, which is the order
 * `credosim export` writes them: the text round trip yields the identical engine input. */
static int add_rank(sim_builder *b, const struct goal_sched *s)
{
    for (uint32_t i = 0; i < s->nops; i++) {
        const goal_vop *o = &s->ops[i];
        uint8_t kind = o->kind == GK_SEND ? SIM_SEND : o->kind == GK_RECV ? SIM_RECV : SIM_CALC;
        uint64_t size = kind == SIM_CALC ? (o->kind == GK_CALC ? o->size : 0)
                                         : goal_operand_bytes(s, o, 0);
        if (sim_builder_op(b, kind, o->peer, o->tag, size, o->cpu, 0, 0) < 0)
            return -1;
    }
    for (uint32_t i = 0; i < s->nops; i++) {
        for (uint32_t k = s->succ_off[i]; k < s->succ_off[i + 1]; k++)
            if (sim_builder_dep(b, s->succ[k], i, SIM_REQUIRES) != 0)
                return -1;
        for (uint32_t k = s->isucc_off[i]; k < s->isucc_off[i + 1]; k++)
            if (sim_builder_dep(b, s->isucc[k], i, SIM_IREQUIRES) != 0)
                return -1;
    }
    return 0;
}

int sim_coll_build(const char *spec, uint32_t nranks, sim_sched **out, char *err, size_t errlen)
{
    *out = NULL;
    /* coll:NAME[:BYTES[:ALGORITHM]] */
    char buf[128];
    snprintf(buf, sizeof buf, "%s", spec);
    char *save = NULL, *tok = strtok_r(buf, ":", &save); /* "coll" */
    char *name = strtok_r(NULL, ":", &save), *sbytes = strtok_r(NULL, ":", &save),
         *salg = strtok_r(NULL, ":", &save);
    int kind = coll_kind_by_name(name);
    if (!tok || !kind) {
        snprintf(err, errlen,
                 "--pattern %s: expected coll:NAME[:BYTES[:ALGORITHM]] with NAME one of barrier, bcast, "
                 "reduce, allreduce, gather, scatter, allgather, alltoall, reduce_scatter_block, scan, "
                 "exscan", spec);
        return -1;
    }
    unsigned long long bytes = 0;
    if (sbytes) {
        /* digits only: strtoull alone would take "-1" (as 2^64 - 1), blanks and a '+' */
        const char *d = sbytes;
        while (*d >= '0' && *d <= '9' && bytes <= 0x7fffffffULL)
            bytes = bytes * 10 + (unsigned long long)(*d++ - '0');
        if (d == sbytes || *d || bytes > 0x7fffffffULL) {
            snprintf(err, errlen, "--pattern %s: expected BYTES as an integer 0 .. 2147483647, got '%s'", spec, sbytes);
            return -1;
        }
    }
    int req = COLL_ALG_AUTO;
    if (salg && !(req = coll_algo_by_name(salg))) {
        snprintf(err, errlen,
                 "--pattern %s: unknown algorithm '%s' (expected dissemination, bruck, direct, "
                 "binomial, scatter_allgather, recursive_doubling, ring, rabenseifner, linear, "
                 "linear_sync or pairwise)", spec, salg);
        return -1;
    }
    if (nranks == 0 || nranks > 0x7fffffffu) {
        snprintf(err, errlen, "--pattern %s: bad rank count %u", spec, nranks);
        return -1;
    }
    /* count = BYTES elements of one byte; reductions are commutative (the IMB case) */
    static const coll_op op = {no_reduce, NULL, NULL, 1};
    coll_spec cs = {.kind = kind, .root = 0, .commute = 1, .sb = PLACEHOLDER, .rb = PLACEHOLDER,
                    .count = (size_t)bytes, .esize = 1, .op = &op};
    cs.alg = coll_choose(kind, (size_t)bytes, (int)nranks, 1, (size_t)bytes, req);
    /* operations with a single algorithm: coll_choose says AUTO, the builder's one is implied */
    int implied = kind == CK_BARRIER ? COLL_ALG_DISSEMINATION
                  : kind == CK_REDUCE ? COLL_ALG_BINOMIAL
                  : kind == CK_GATHER || kind == CK_SCATTER ? COLL_ALG_LINEAR
                  : kind == CK_SCAN || kind == CK_EXSCAN ? COLL_ALG_RECDBL
                                                          : COLL_ALG_AUTO;
    if (req && (cs.alg ? cs.alg : implied) != req) {
        snprintf(err, errlen, "--pattern %s: algorithm '%s' is not valid for %s here (src/coll "
                 "would use its default)", spec, salg, name);
        return -1;
    }
    sim_builder *b = sim_builder_new(nranks, spec);
    if (!b) {
        snprintf(err, errlen, "%s: out of memory", spec);
        return -1;
    }
    for (uint32_t r = 0; r < nranks; r++) {
        struct goal_sched *s = NULL;
        int rc = coll_build(&cs, (int)nranks, (int)r, &s);
        if (rc != GOAL_SUCCESS) {
            snprintf(err, errlen, "--pattern %s: src/coll could not build rank %u (GOAL error %d)",
                     spec, r, rc);
            sim_builder_abort(b);
            return -1;
        }
        int bad = sim_builder_begin_rank(b, r) != 0 || add_rank(b, s) != 0;
        goal_sched_destroy(s);
        if (bad)
            break; /* sim_builder_finish reports the builder's message */
    }
    return sim_builder_finish(b, out, err, errlen);
}
