/* src/goal/goal_graph.c — building GOAL graphs: the public builder calls (CreateGraph, Send, Recv,
 * vector variants, LocalOp, Requires, scratchpad) with argument checks, and text-to-graph. */
#include <stdlib.h>
#include <string.h>

#include "goal/goal_impl.h"

void goal_graph_init(struct goal_graph *g)
{
    memset(g, 0, sizeof *g);
}

void goal_graph_destroy(struct goal_graph *g)
{
    free(g->ops);
    free(g->edges);
    free(g->app);
    free(g->cbs);
    memset(g, 0, sizeof *g);
}

static int set_err(struct goal_graph *g, int code)
{
    if (g && g->status == GOAL_SUCCESS)
        g->status = code;
    return code;
}

static int grow(void **arr, uint32_t *cap, uint64_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    if (need > INT32_MAX) /* vertices are int32 */
        return -1;
    uint64_t nc = *cap ? (uint64_t)*cap * 2 : 16;
    while (nc < need)
        nc *= 2;
    void *n = realloc(*arr, (size_t)nc * elem);
    if (!n)
        return -1;
    *arr = n;
    *cap = (uint32_t)(nc > UINT32_MAX ? UINT32_MAX : nc);
    return 0;
}

GOAL_Vertex goal_graph_add(struct goal_graph *g, const goal_vop *op)
{
    if (grow((void **)&g->ops, &g->ops_cap, (uint64_t)g->nops + 1, sizeof *g->ops)) {
        set_err(g, GOAL_ERR_NOMEM);
        return GOAL_INVALID_VERTEX;
    }
    g->ops[g->nops] = *op;
    return (GOAL_Vertex)g->nops++;
}

int goal_graph_edge(struct goal_graph *g, GOAL_Vertex prereq, GOAL_Vertex target, uint8_t kind)
{
    if (prereq < 0 || target < 0 || (uint32_t)prereq >= g->nops || (uint32_t)target >= g->nops ||
        prereq == target)
        return set_err(g, GOAL_ERR_ARG);
    if (grow((void **)&g->edges, &g->edges_cap, (uint64_t)g->nedges + 1, sizeof *g->edges))
        return set_err(g, GOAL_ERR_NOMEM);
    g->edges[g->nedges++] = (goal_edge){.from = (uint32_t)prereq, .to = (uint32_t)target, .kind = kind};
    return GOAL_SUCCESS;
}

int64_t goal_graph_blocks(struct goal_graph *g, void *const *addr, const int *len, int n)
{
    if (n <= 0 || !addr || !len) {
        set_err(g, GOAL_ERR_ARG);
        return -1;
    }
    for (int i = 0; i < n; i++)
        if (len[i] < 0) {
            set_err(g, GOAL_ERR_ARG);
            return -1;
        }
    if (grow((void **)&g->app, &g->app_cap, (uint64_t)g->napp + (uint64_t)n, sizeof *g->app)) {
        set_err(g, GOAL_ERR_NOMEM);
        return -1;
    }
    int64_t first = g->napp;
    for (int i = 0; i < n; i++)
        g->app[g->napp++] = (goal_blk){.addr = (uintptr_t)addr[i], .len = (uint64_t)len[i]};
    return first;
}

/* ---- public builder API ---- */

GOAL_Graph GOAL_CreateGraph(void)
{
    struct goal_graph *g = malloc(sizeof *g);
    if (g)
        goal_graph_init(g);
    return g;
}

int GOAL_FreeGraph(GOAL_Graph graph)
{
    if (!graph)
        return GOAL_ERR_ARG;
    goal_graph_destroy(graph);
    free(graph);
    return GOAL_SUCCESS;
}

int GOAL_GraphStatus(GOAL_Graph graph)
{
    return graph ? graph->status : GOAL_ERR_ARG;
}

static int mem_ok(int m)
{
    return m == GOAL_USERSPACE || m == GOAL_SCRATCHPAD;
}

static GOAL_Vertex add_xfer(GOAL_Graph g, int kind, const void *buf, int count, int peer, int tag,
                            GOAL_MemType mem)
{
    if (!g)
        return GOAL_INVALID_VERTEX;
    if (count < 0 || peer < 0 || !mem_ok(mem) || (count > 0 && !buf && mem == GOAL_USERSPACE)) {
        set_err(g, GOAL_ERR_ARG);
        return GOAL_INVALID_VERTEX;
    }
    if (tag < 0 || tag > GOAL_TAG_UB) {
        set_err(g, GOAL_ERR_TAG);
        return GOAL_INVALID_VERTEX;
    }
    goal_vop op = {.kind = (uint8_t)kind, .peer = peer, .tag = tag, .size = (uint64_t)count,
                   .mem = {(uint8_t)mem}, .buf = {(uintptr_t)buf}};
    return goal_graph_add(g, &op);
}

GOAL_Vertex GOAL_Send(GOAL_Graph graph, const void *buf, int count, int dest, int tag,
                      GOAL_MemType mem)
{
    return add_xfer(graph, GK_SEND, buf, count, dest, tag, mem);
}

GOAL_Vertex GOAL_Recv(GOAL_Graph graph, void *buf, int count, int source, int tag, GOAL_MemType mem)
{
    return add_xfer(graph, GK_RECV, buf, count, source, tag, mem);
}

static GOAL_Vertex add_xfer_vec(GOAL_Graph g, int kind, void *const *offsets, const int *lengths,
                                int n, int peer, int tag, GOAL_MemType mem)
{
    if (!g)
        return GOAL_INVALID_VERTEX;
    int64_t first = goal_graph_blocks(g, offsets, lengths, n);
    if (first < 0)
        return GOAL_INVALID_VERTEX;
    uint64_t total = 0;
    for (int i = 0; i < n; i++)
        total += (uint64_t)lengths[i];
    if (peer < 0 || !mem_ok(mem) || total > INT32_MAX) {
        set_err(g, GOAL_ERR_ARG);
        return GOAL_INVALID_VERTEX;
    }
    if (tag < 0 || tag > GOAL_TAG_UB) {
        set_err(g, GOAL_ERR_TAG);
        return GOAL_INVALID_VERTEX;
    }
    goal_vop op = {.kind = (uint8_t)kind, .peer = peer, .tag = tag, .size = total,
                   .mem = {(uint8_t)mem}, .buf = {(uintptr_t)first}, .nblk = {(uint32_t)n}};
    return goal_graph_add(g, &op);
}

GOAL_Vertex GOAL_SendVec(GOAL_Graph graph, void *const *offsets, const int *lengths,
                         int num_elements, int dest, int tag, GOAL_MemType mem)
{
    return add_xfer_vec(graph, GK_SEND, offsets, lengths, num_elements, dest, tag, mem);
}

GOAL_Vertex GOAL_RecvVec(GOAL_Graph graph, void *const *offsets, const int *lengths,
                         int num_elements, int source, int tag, GOAL_MemType mem)
{
    return add_xfer_vec(graph, GK_RECV, offsets, lengths, num_elements, source, tag, mem);
}

/* Binary ops read b2; COPY and WTIME do not. */
static int lop_reads_b2(int op)
{
    return op != GOAL_COPY && op != GOAL_WTIME;
}

GOAL_Vertex GOAL_LocalOp(GOAL_Graph graph, const void *b1, const void *b2, void *bres, GOAL_Op op,
                         GOAL_DataType dt, int element_width, int num_elements,
                         GOAL_MemType b1_mem, GOAL_MemType b2_mem, GOAL_MemType bres_mem)
{
    if (!graph)
        return GOAL_INVALID_VERTEX;
    if (op == GOAL_WTIME) { /* no type checking: one double into bres */
        element_width = 64;
        num_elements = 1;
        dt = GOAL_FLOAT;
    }
    if (num_elements < 0 || !mem_ok(b1_mem) || !mem_ok(b2_mem) || !mem_ok(bres_mem) ||
        (int)op < GOAL_MAX || op > GOAL_WTIME) {
        set_err(graph, GOAL_ERR_ARG);
        return GOAL_INVALID_VERTEX;
    }
    if (!goal_lop_valid(op, dt, element_width)) {
        set_err(graph, GOAL_ERR_TYPE);
        return GOAL_INVALID_VERTEX;
    }
    int need1 = op != GOAL_WTIME, need2 = lop_reads_b2(op);
    if (num_elements > 0 && ((need1 && !b1 && b1_mem == GOAL_USERSPACE) ||
                             (need2 && !b2 && b2_mem == GOAL_USERSPACE) ||
                             (!bres && bres_mem == GOAL_USERSPACE))) {
        set_err(graph, GOAL_ERR_ARG);
        return GOAL_INVALID_VERTEX;
    }
    goal_vop v = {.kind = GK_LOCALOP, .lop = (uint8_t)op, .dtype = (uint8_t)dt,
                  .width = (uint8_t)element_width, .size = (uint64_t)num_elements,
                  .mem = {(uint8_t)b1_mem, (uint8_t)b2_mem, (uint8_t)bres_mem},
                  .buf = {(uintptr_t)b1, (uintptr_t)b2, (uintptr_t)bres}};
    if (!need1)
        v.buf[0] = 0, v.mem[0] = GOAL_USERSPACE;
    if (!need2)
        v.buf[1] = 0, v.mem[1] = GOAL_USERSPACE;
    return goal_graph_add(graph, &v);
}

GOAL_Vertex GOAL_LocalOpVec(GOAL_Graph graph, void *const *buf1, const int *lengths1, int n1,
                            void *const *buf2, const int *lengths2, int n2, void *const *buf3,
                            const int *lengths3, int n3, GOAL_DataType dt, int element_width,
                            GOAL_Op op, GOAL_MemType b1_mem, GOAL_MemType b2_mem,
                            GOAL_MemType b3_mem)
{
    if (!graph)
        return GOAL_INVALID_VERTEX;
    if (op == GOAL_WTIME || (int)op < GOAL_MAX || op > GOAL_WTIME || !mem_ok(b1_mem) ||
        !mem_ok(b2_mem) || !mem_ok(b3_mem)) {
        set_err(graph, GOAL_ERR_ARG); /* WTIME has nothing to vectorize */
        return GOAL_INVALID_VERTEX;
    }
    if (!goal_lop_valid(op, dt, element_width) || element_width == 1) {
        set_err(graph, GOAL_ERR_TYPE); /* bit vectors need whole-byte blocks: use LocalOp */
        return GOAL_INVALID_VERTEX;
    }
    uint64_t tot[3] = {0, 0, 0};
    const int *lens[3] = {lengths1, lengths2, lengths3};
    int ns[3] = {n1, n2, n3};
    int need2 = lop_reads_b2(op);
    for (int k = 0; k < 3; k++) {
        if (k == 1 && !need2)
            continue;
        if (ns[k] <= 0 || !lens[k]) {
            set_err(graph, GOAL_ERR_ARG);
            return GOAL_INVALID_VERTEX;
        }
        for (int i = 0; i < ns[k]; i++) {
            if (lens[k][i] < 0 || lens[k][i] % (element_width / 8)) {
                set_err(graph, GOAL_ERR_ARG); /* blocks hold whole elements */
                return GOAL_INVALID_VERTEX;
            }
            tot[k] += (uint64_t)lens[k][i];
        }
    }
    if (tot[0] != tot[2] || (need2 && tot[1] != tot[2])) {
        set_err(graph, GOAL_ERR_ARG);
        return GOAL_INVALID_VERTEX;
    }
    int64_t f1 = goal_graph_blocks(graph, buf1, lengths1, n1);
    int64_t f2 = need2 ? goal_graph_blocks(graph, buf2, lengths2, n2) : 0;
    int64_t f3 = goal_graph_blocks(graph, buf3, lengths3, n3);
    if (f1 < 0 || f2 < 0 || f3 < 0)
        return GOAL_INVALID_VERTEX;
    goal_vop v = {.kind = GK_LOCALOP, .lop = (uint8_t)op, .dtype = (uint8_t)dt,
                  .width = (uint8_t)element_width, .size = tot[2] / (uint64_t)(element_width / 8),
                  .mem = {(uint8_t)b1_mem, (uint8_t)(need2 ? b2_mem : GOAL_USERSPACE), (uint8_t)b3_mem},
                  .buf = {(uintptr_t)f1, (uintptr_t)f2, (uintptr_t)f3},
                  .nblk = {(uint32_t)n1, need2 ? (uint32_t)n2 : 0, (uint32_t)n3}};
    return goal_graph_add(graph, &v);
}

int GOAL_Requires(GOAL_Graph graph, GOAL_Vertex prereq, GOAL_Vertex target)
{
    if (!graph)
        return GOAL_ERR_ARG;
    return goal_graph_edge(graph, prereq, target, GOAL_TXT_REQUIRES);
}

int GOAL_IRequires(GOAL_Graph graph, GOAL_Vertex prereq, GOAL_Vertex target)
{
    if (!graph)
        return GOAL_ERR_ARG;
    return goal_graph_edge(graph, prereq, target, GOAL_TXT_IREQUIRES);
}

GOAL_Vertex GOAL_Calc(GOAL_Graph graph, uint64_t nanoseconds)
{
    if (!graph)
        return GOAL_INVALID_VERTEX;
    goal_vop v = {.kind = GK_CALC, .size = nanoseconds};
    return goal_graph_add(graph, &v);
}

GOAL_Vertex GOAL_Callback(GOAL_Graph graph, GOAL_CallbackFn fn, void *arg, const void *in,
                          GOAL_MemType in_mem, void *inout, GOAL_MemType inout_mem, size_t count)
{
    if (!graph)
        return GOAL_INVALID_VERTEX;
    if (!fn || !mem_ok(in_mem) || !mem_ok(inout_mem)) {
        set_err(graph, GOAL_ERR_ARG);
        return GOAL_INVALID_VERTEX;
    }
    if (grow((void **)&graph->cbs, &graph->cbs_cap, (uint64_t)graph->ncbs + 1, sizeof *graph->cbs)) {
        set_err(graph, GOAL_ERR_NOMEM);
        return GOAL_INVALID_VERTEX;
    }
    graph->cbs[graph->ncbs] = (goal_cb){fn, arg};
    goal_vop v = {.kind = GK_CALLBACK, .size = count,
                  .mem = {(uint8_t)in_mem, (uint8_t)inout_mem},
                  .buf = {(uintptr_t)in, (uintptr_t)inout, graph->ncbs}};
    graph->ncbs++;
    return goal_graph_add(graph, &v);
}

int GOAL_AllocateScratchpad(GOAL_Graph graph, size_t bytes)
{
    if (!graph)
        return GOAL_ERR_ARG;
    if (bytes > graph->scratch)
        graph->scratch = bytes;
    return GOAL_SUCCESS;
}

int goal_graph_from_txt(struct goal_graph *g, const goal_txt_rank *r)
{
    uint64_t scratch = 0;
    for (uint32_t i = 0; i < r->nops; i++) {
        const goal_txt_op *t = &r->ops[i];
        goal_vop v = {.cpu = t->cpu};
        if (t->kind == GOAL_TXT_CALC) {
            v.kind = GK_CALC;
            v.size = t->size;
        } else {
            if (t->peer < 0 || t->tag < 0)
                return set_err(g, GOAL_ERR_ARG); /* wildcards are not executable on real ranks */
            if (t->tag > GOAL_TAG_UB)
                return set_err(g, GOAL_ERR_TAG);
            v.kind = t->kind == GOAL_TXT_SEND ? GK_SEND : GK_RECV;
            v.peer = t->peer;
            v.tag = t->tag;
            v.size = t->size;
            v.mem[0] = GOAL_SCRATCHPAD;
            if (t->size > scratch)
                scratch = t->size;
        }
        if (goal_graph_add(g, &v) == GOAL_INVALID_VERTEX)
            return g->status;
    }
    for (uint32_t i = 0; i < r->ndeps; i++)
        if (goal_graph_edge(g, (GOAL_Vertex)r->deps[i].on, (GOAL_Vertex)r->deps[i].op,
                            r->deps[i].kind))
            return g->status;
    if (scratch > SIZE_MAX)
        return set_err(g, GOAL_ERR_NOMEM);
    g->scratch = (size_t)scratch;
    return GOAL_SUCCESS;
}

const char *GOAL_ErrorString(int code)
{
    switch (code) {
    case GOAL_SUCCESS: return "success";
    case GOAL_ERR_ARG: return "invalid argument";
    case GOAL_ERR_NOMEM: return "out of memory";
    case GOAL_ERR_STATE: return "GOAL not initialized, already initialized, or object in use";
    case GOAL_ERR_CYCLE: return "dependency cycle";
    case GOAL_ERR_RANGE: return "scratchpad access out of range";
    case GOAL_ERR_TYPE: return "operation not defined for this type and width";
    case GOAL_ERR_COMM: return "communication error";
    case GOAL_ERR_TRUNCATE: return "message size mismatch";
    case GOAL_ERR_TAG: return "tag out of range";
    default: return "unknown GOAL error";
    }
}
