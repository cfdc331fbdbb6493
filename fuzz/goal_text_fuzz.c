/* fuzz/goal_text_fuzz.c — libFuzzer target for the GOAL text reader (src/goal/goal_text.c) and what
 * the tools do with its result: the static matching check, the writer (a written schedule must read
 * back to the same structure), and text-to-graph plus compile for every block (credo-goal check).
 * A rejected input must come with a "fuzz:<line>: " message. Memory must follow the input: the
 * Makefile runs this with -rss_limit_mb / -malloc_limit_mb far below what a declared count could ask.
 * Build and run: make fuzz [FUZZ_SECONDS=600] (fuzz/README.md). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "goal/goal_impl.h"
#include "goal/goal_text.h"

static void same_or_abort(const goal_txt *a, const goal_txt *b)
{
    if (a->nranks != b->nranks || a->nblocks != b->nblocks)
        abort();
    for (uint32_t k = 0; k < a->nblocks; k++) {
        const goal_txt_rank *x = &a->blocks[k], *y = &b->blocks[k];
        if (x->rank != y->rank || x->nops != y->nops || x->ndeps != y->ndeps)
            abort();
        for (uint32_t i = 0; i < x->nops; i++) {
            const goal_txt_op *p = &x->ops[i], *q = &y->ops[i];
            if (p->kind != q->kind || p->cpu != q->cpu || p->nic != q->nic || p->peer != q->peer ||
                p->tag != q->tag || p->size != q->size)
                abort();
        }
        for (uint32_t i = 0; i < x->ndeps; i++)
            if (x->deps[i].op != y->deps[i].op || x->deps[i].on != y->deps[i].on ||
                x->deps[i].kind != y->deps[i].kind)
                abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    goal_txt *g = NULL;
    if (goal_txt_read_mem((const char *)data, size, "fuzz", &g, err, sizeof err) != 0) {
        if (g || strncmp(err, "fuzz:", 5) != 0 || !strstr(err, ": expected"))
            abort(); /* every refusal names the input, a line and what was expected */
        return 0;
    }
    /* the static matching check: any answer, but a message when it refuses */
    if (goal_txt_check_matching(g, "fuzz", err, sizeof err) != 0 && strncmp(err, "fuzz:", 5) != 0)
        abort();
    /* blocks sorted, unique, in range; goal_txt_rank_of finds each */
    for (uint32_t k = 0; k < g->nblocks; k++) {
        if (g->blocks[k].rank >= g->nranks || (k && g->blocks[k - 1].rank >= g->blocks[k].rank))
            abort();
        if (goal_txt_rank_of(g, g->blocks[k].rank) != &g->blocks[k])
            abort();
    }
    /* write, read back, compare */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        abort();
    if (goal_txt_write(f, g) != 0)
        abort();
    fclose(f);
    goal_txt *h = NULL;
    if (goal_txt_read_mem(buf, len, "written", &h, err, sizeof err) != 0) {
        fprintf(stderr, "written text does not read back: %s\n%s\n", err, buf);
        abort();
    }
    same_or_abort(g, h);
    goal_txt_free(h);
    free(buf);
    /* what credo-goal check does per block */
    for (uint32_t k = 0; k < g->nblocks; k++) {
        struct goal_graph gr;
        goal_graph_init(&gr);
        struct goal_sched *s = NULL;
        if (goal_graph_from_txt(&gr, &g->blocks[k]) == GOAL_SUCCESS && goal_compile(&gr, &s) == GOAL_SUCCESS)
            goal_sched_destroy(s);
        goal_graph_destroy(&gr);
    }
    goal_txt_free(g);
    return 0;
}
