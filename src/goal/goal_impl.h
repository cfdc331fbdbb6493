/* src/goal/goal_impl.h — GOAL's internal data: graph vertices and edges, the compiled schedule
 * (CSR successor lists), local-op kernels and the per-run dependency counters (pure, no transport). */
#ifndef CREDO_GOAL_IMPL_H
#define CREDO_GOAL_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "credo/goal.h"
#include "goal/goal_text.h"

enum goal_kind {
    GK_SEND = 0,
    GK_RECV = 1,
    GK_CALC = 2,     /* spin for size nanoseconds */
    GK_LOCALOP = 3,  /* lop over size elements of dtype/width */
    GK_CALLBACK = 4, /* cbs[buf[2]].fn(buf[0], buf[1], size) */
};

/* One operand of a vertex: a pointer, or a scratchpad offset (mem = GOAL_SCRATCHPAD), or, when
 * nblk > 0, the first of nblk entries of the appendix. */
typedef struct goal_vop {
    uint8_t kind;    /* enum goal_kind */
    uint8_t lop;     /* GOAL_Op */
    uint8_t dtype;   /* GOAL_DataType */
    uint8_t width;   /* bits */
    uint8_t mem[3];  /* GOAL_MemType of buf[0..2] */
    uint8_t cpu;     /* from the text format; kept for writers and the simulator */
    int32_t peer;    /* send/recv: group rank */
    int32_t tag;
    uint32_t nblk[3];
    uint64_t size;   /* send/recv: bytes; localop: elements; calc: ns; callback: count */
    uintptr_t buf[3];
} goal_vop;

typedef struct goal_blk {
    uintptr_t addr; /* pointer or scratch offset, per the vertex operand's mem */
    uint64_t len;   /* bytes */
} goal_blk;

typedef struct goal_cb {
    GOAL_CallbackFn fn;
    void *arg;
} goal_cb;

typedef struct goal_edge {
    uint32_t from, to;
    uint8_t kind; /* GOAL_TXT_REQUIRES or GOAL_TXT_IREQUIRES */
} goal_edge;

struct goal_graph {
    goal_vop *ops;
    uint32_t nops, ops_cap;
    goal_edge *edges;
    uint32_t nedges, edges_cap;
    goal_blk *app;
    uint32_t napp, app_cap;
    goal_cb *cbs;
    uint32_t ncbs, cbs_cap;
    size_t scratch;
    int status; /* first builder error */
};

/* Compiled schedule: immutable after goal_compile, shared by all runs. */
struct goal_sched {
    uint32_t nops;
    goal_vop *ops;
    goal_blk *app;
    goal_cb *cbs;
    uint32_t *succ_off, *succ;   /* finish -> start edges, CSR over ops */
    uint32_t *isucc_off, *isucc; /* start -> start edges */
    uint32_t *indeg;             /* incoming edges of both kinds */
    uint32_t *roots;             /* ops with indeg 0, in op order */
    uint32_t nroots;
    size_t scratch;
    void *scratch_cache;         /* a finished run's scratchpad, reused by the next run */
    int scratch_dirty_ok;        /* set by builders that write before they read (src/coll): runs
                                  * then skip zero-filling it, which costs as much as a copy */
    int32_t max_peer;            /* highest peer rank used, -1 if none */
    int reusable;
    int active_runs;             /* maintained by the executor */
    uint64_t id;                 /* for caches and debugging */
};

/* ---- graph building (goal_graph.c) ---- */
void goal_graph_init(struct goal_graph *g);
void goal_graph_destroy(struct goal_graph *g);
/* Appends a vertex; returns its index or GOAL_INVALID_VERTEX (and sets g->status). */
GOAL_Vertex goal_graph_add(struct goal_graph *g, const goal_vop *op);
int goal_graph_edge(struct goal_graph *g, GOAL_Vertex prereq, GOAL_Vertex target, uint8_t kind);
/* Copies n (pointer, length) blocks into the appendix; returns the first index or -1. */
int64_t goal_graph_blocks(struct goal_graph *g, void *const *addr, const int *len, int n);
/* Builds a graph from one rank of a text schedule (calc = spin nanoseconds). Buffers: sends read
 * from scratchpad offset 0, receives write to offset 0; the scratchpad is the largest message. */
int goal_graph_from_txt(struct goal_graph *g, const goal_txt_rank *r);

/* ---- compile (goal_compile.c) ---- */
/* GOAL_SUCCESS and a new schedule, or an error code (cycle, range, nomem, earlier graph error). */
int goal_compile(const struct goal_graph *g, struct goal_sched **out);
void goal_sched_destroy(struct goal_sched *s);
/* Makes s's scratchpad resident now, zero-filled, and keeps runs from zero-filling it again (each
 * then starts from the bytes the previous run left). For tools that time runs whose payloads carry
 * no meaning (credo-goal run): a fresh scratchpad costs a page fault per 4 KiB inside the first
 * run (262,144 for 1 GB, seconds on a VM), and a zero fill per run costs a pass over it. Only while
 * no run of s is active (else GOAL_ERR_STATE); GOAL_SUCCESS or GOAL_ERR_NOMEM. */
int goal_sched_prepare_scratch(struct goal_sched *s);
/* Total byte length of operand i of op (blocks summed). */
uint64_t goal_operand_bytes(const struct goal_sched *s, const goal_vop *op, int i);

/* ---- local operations (goal_localop.c) ---- */
int goal_lop_valid(int op, int dtype, int width);
/* Contiguous kernel: n elements (bits for width 1). b may be NULL for COPY and WTIME. */
void goal_lop_apply(int op, int dtype, int width, const void *a, const void *b, void *r, uint64_t n);
/* Bytes taken by n elements of `width` bits. */
static inline uint64_t goal_lop_bytes(int op, int width, uint64_t n)
{
    if (op == GOAL_WTIME)
        return sizeof(double);
    return width == 1 ? (n + 7) / 8 : n * (uint64_t)(width / 8);
}
void goal_spin_ns(uint64_t ns);

/* ---- per-run dependency bookkeeping (goal_compile.c), shared with credosim ----
 * No recursion: finishing an op only decrements counters and appends to the ready queue; the
 * caller loops goal_rs_next until it is empty. Each op enters the queue exactly once. */
typedef struct goal_rs {
    const struct goal_sched *s;
    uint32_t *cnt;    /* remaining prerequisites per op */
    uint32_t *ready;  /* FIFO of startable ops, nops slots */
    uint32_t head, tail;
    uint32_t remaining; /* ops not finished yet */
} goal_rs;

int goal_rs_init(goal_rs *rs, const struct goal_sched *s);
/* The same on caller memory (nops entries each); nothing to destroy afterwards. */
void goal_rs_init_in(goal_rs *rs, const struct goal_sched *s, uint32_t *cnt, uint32_t *ready);
void goal_rs_destroy(goal_rs *rs);
static inline int goal_rs_next(goal_rs *rs, uint32_t *op)
{
    if (rs->head == rs->tail)
        return 0;
    *op = rs->ready[rs->head++];
    return 1;
}
/* Call once when op starts (releases irequires successors) and once when it finishes. */
void goal_rs_started(goal_rs *rs, uint32_t op);
void goal_rs_finished(goal_rs *rs, uint32_t op);

#endif
