/* src/coll/coll.c — running collectives: the algorithm choice (with CREDO_COLL_<NAME> overrides),
 * the per-communicator schedule cache, and starting runs behind p2p generic requests. */
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "base/config.h"
#include "xport/copy.h"

/* Everything that selects a schedule; zero-filled before use so memcmp compares it. */
typedef struct coll_key {
    int kind, root, alg, commute;
    const void *sb;
    void *rb;
    size_t count, esize;
    coll_reduce_fn fn;
    void *op, *dt;
} coll_key;

typedef struct coll_args {
    coll_key k;
    const int *scounts, *sdispls, *rcounts, *rdispls; /* v-variants (not cached) */
    size_t scount;
    int nsend, nrecv; /* neighbourhood exchange (not cached) */
    const coll_nbr *sends, *recvs;
} coll_args;

/* A compiled collective: the schedule and the op its callbacks point at. */
typedef struct coll_sched {
    struct goal_sched *s;
    coll_key key;
    coll_op op;
    int cached;
    coll_nbr *nbr; /* cached neighbourhood exchange: its sends then its receives (key: sizes, hash) */
} coll_sched;

#define COLL_CACHE_SLOTS 32
struct coll_cache {
    coll_sched *e[COLL_CACHE_SLOTS];
    unsigned next_victim;
    unsigned last_hit;
};

/* ---------------------------------------------------------------------------------------------
 * Algorithm choice: the table of coll_build.c, overridable by CREDO_COLL_<COLLECTIVE>=<algorithm>
 * (validated at start-up: an unknown name stops MPI_Init with a message). */

static int choose(int kind, size_t bytes, int p, int commute, size_t count)
{
    /* the settings were read and validated once at MPI_Init (src/core/config.c) */
    const char *v = kind == CK_BCAST       ? credo_cfg.coll_bcast
                    : kind == CK_BARRIER   ? credo_cfg.coll_barrier
                    : kind == CK_REDUCE    ? credo_cfg.coll_reduce
                    : kind == CK_GATHER    ? credo_cfg.coll_gather
                    : kind == CK_ALLREDUCE ? credo_cfg.coll_allreduce
                    : kind == CK_ALLGATHER ? credo_cfg.coll_allgather
                    : kind == CK_ALLTOALL  ? credo_cfg.coll_alltoall
                    : kind == CK_RS || kind == CK_RSB ? credo_cfg.coll_reduce_scatter
                                           : NULL;
    return coll_choose(kind, bytes, p, commute, count, v && *v ? coll_algo_by_name(v) : COLL_ALG_AUTO);
}

/* ---------------------------------------------------------------------------------------------
 * Schedules: build (coll_build.c), cache. */

static int build(coll_comm *c, const coll_args *a, coll_sched *cs)
{
    const coll_key *k = &a->k;
    coll_spec sp = {.kind = k->kind, .alg = k->alg, .root = k->root, .commute = k->commute,
                    .sb = k->sb, .rb = k->rb, .count = k->count, .esize = k->esize,
                    .scount = a->scount, .scounts = a->scounts, .sdispls = a->sdispls,
                    .rcounts = a->rcounts, .rdispls = a->rdispls, .op = &cs->op,
                    .nsend = a->nsend, .nrecv = a->nrecv, .sends = a->sends, .recvs = a->recvs};
    return coll_build(&sp, c->grp.size, c->grp.rank, &cs->s);
}

static void sched_free(coll_sched *cs)
{
    if (cs) {
        goal_sched_destroy(cs->s);
        free(cs->nbr);
        free(cs);
    }
}

static int nbr_same(const coll_nbr *x, const coll_nbr *y, int n)
{
    for (int i = 0; i < n; i++)
        if (x[i].peer != y[i].peer || x[i].tag != y[i].tag || x[i].off != y[i].off ||
            x[i].bytes != y[i].bytes)
            return 0;
    return 1;
}

/* A cached schedule matches a key; a neighbourhood exchange's key holds only a hash of its lists,
 * so they are compared in full. */
static int sched_matches(const coll_sched *cs, const coll_args *a)
{
    if (memcmp(&cs->key, &a->k, sizeof a->k))
        return 0;
    return a->k.kind != CK_NEIGHBOR || (nbr_same(cs->nbr, a->sends, a->nsend) &&
                                        nbr_same(cs->nbr + a->nsend, a->recvs, a->nrecv));
}

/* Finds or builds the schedule; v-variants (argument arrays) are never cached. */
static int get_sched(coll_comm *c, const coll_args *a, const coll_op *op, int cacheable,
                     coll_sched **out)
{
    struct coll_cache *cc = c->cache;
    if (cacheable && cc) {
        /* Loops repeat one collective: the last hit is checked first. */
        coll_sched *last = cc->e[cc->last_hit];
        if (last && sched_matches(last, a)) {
            *out = last;
            return GOAL_SUCCESS;
        }
        for (unsigned i = 0; i < COLL_CACHE_SLOTS; i++)
            if (cc->e[i] && sched_matches(cc->e[i], a)) {
                cc->last_hit = i;
                *out = cc->e[i];
                return GOAL_SUCCESS;
            }
    }
    coll_sched *cs = calloc(1, sizeof *cs);
    if (!cs)
        return GOAL_ERR_NOMEM;
    cs->key = a->k;
    if (op)
        cs->op = *op;
    if (cacheable && a->k.kind == CK_NEIGHBOR) {
        size_t n = (size_t)a->nsend + (size_t)a->nrecv;
        if (!(cs->nbr = malloc(n * sizeof(coll_nbr) + 1))) {
            free(cs);
            return GOAL_ERR_NOMEM;
        }
        if (a->nsend)
            memcpy(cs->nbr, a->sends, (size_t)a->nsend * sizeof(coll_nbr));
        if (a->nrecv)
            memcpy(cs->nbr + a->nsend, a->recvs, (size_t)a->nrecv * sizeof(coll_nbr));
    }
    int rc = build(c, a, cs);
    if (rc) {
        free(cs->nbr);
        free(cs);
        return rc;
    }
    if (cacheable && cc) { /* take a free slot, else evict one that is not running */
        for (int n = 0; n < COLL_CACHE_SLOTS; n++) {
            unsigned i = (cc->next_victim + (unsigned)n) % COLL_CACHE_SLOTS;
            if (!cc->e[i] || !cc->e[i]->s->active_runs) {
                sched_free(cc->e[i]);
                cc->e[i] = cs;
                cs->cached = 1;
                cc->next_victim = (i + 1) % COLL_CACHE_SLOTS;
                break;
            }
        }
    }
    *out = cs;
    return GOAL_SUCCESS;
}

/* run->upper is the request, run->upper2 the schedule: no per-call context to allocate. */
static void on_run_done(struct goal_run *run)
{
    p2p_req *req = run->upper;
    coll_sched *cs = run->upper2;
    req->status.error = run->error;
    goal_exec_free(run);
    if (!cs->cached)
        sched_free(cs);
    p2p_req_complete(req);
}

static int start(coll_comm *c, const coll_args *a, const coll_op *op, int cacheable, p2p_req **req)
{
    *req = NULL;
    coll_sched *cs;
    int rc = get_sched(c, a, op, cacheable, &cs);
    if (rc)
        return rc;
    p2p_req *r = p2p_req_generic();
    if (!r) {
        if (!cs->cached)
            sched_free(cs);
        return GOAL_ERR_NOMEM;
    }
    r->status.error = 0;
    *req = r;
    struct goal_run *run;
    rc = goal_exec_start_ex(cs->s, &c->grp, on_run_done, r, cs, &run);
    if (rc) {
        p2p_req_free(r);
        *req = NULL;
        if (!cs->cached)
            sched_free(cs);
        return rc;
    }
    return GOAL_SUCCESS;
}

static coll_args args(int kind, const void *sb, void *rb, size_t count, size_t esize, int root,
                      const coll_op *op)
{
    coll_args a;
    memset(&a, 0, sizeof a);
    a.k.kind = kind;
    a.k.sb = sb;
    a.k.rb = rb;
    a.k.count = count;
    a.k.esize = esize;
    a.k.root = root;
    if (op) {
        a.k.fn = op->fn;
        a.k.op = op->op;
        a.k.dt = op->dt;
        a.k.commute = op->commute;
    }
    return a;
}

static int root_ok(coll_comm *c, int root)
{
    return root >= 0 && root < c->grp.size;
}

/* ---------------------------------------------------------------------------------------------
 * Public entry points. */

int coll_comm_init(coll_comm *c, int size, int rank, const int *job_of, uint32_t ctx)
{
    if (!c || size <= 0 || rank < 0 || rank >= size)
        return GOAL_ERR_ARG;
    memset(c, 0, sizeof *c);
    c->grp = (goal_group){.size = size, .rank = rank, .job_of = job_of, .ctx = ctx};
    c->cache = calloc(1, sizeof *c->cache);
    return c->cache ? GOAL_SUCCESS : GOAL_ERR_NOMEM;
}

void coll_comm_destroy(coll_comm *c)
{
    if (!c || !c->cache)
        return;
    for (int i = 0; i < COLL_CACHE_SLOTS; i++)
        sched_free(c->cache->e[i]);
    free(c->cache);
    c->cache = NULL;
}

int coll_ibarrier(coll_comm *c, p2p_req **req)
{
    coll_args a = args(CK_BARRIER, NULL, NULL, 0, 0, 0, NULL);
    a.k.alg = choose(CK_BARRIER, 0, c->grp.size, 1, 0);
    return start(c, &a, NULL, 1, req);
}

int coll_ibcast(void *buf, size_t count, size_t esize, int root, coll_comm *c, p2p_req **req)
{
    if (!root_ok(c, root))
        return GOAL_ERR_ARG;
    coll_args a = args(CK_BCAST, NULL, buf, count, esize, root, NULL);
    a.k.alg = choose(CK_BCAST, count * esize, c->grp.size, 1, count);
    return start(c, &a, NULL, 1, req);
}

int coll_ireduce(const void *sb, void *rb, size_t count, size_t esize, const coll_op *op, int root,
                 coll_comm *c, p2p_req **req)
{
    if (!root_ok(c, root) || !op)
        return GOAL_ERR_ARG;
    if (c->grp.rank != root)
        rb = NULL; /* insignificant: keeps the cache key stable */
    coll_args a = args(CK_REDUCE, sb, rb, count, esize, root, op);
    a.k.alg = choose(CK_REDUCE, count * esize, c->grp.size, op->commute, count);
    return start(c, &a, op, 1, req);
}

int coll_iallreduce(const void *sb, void *rb, size_t count, size_t esize, const coll_op *op,
                    coll_comm *c, p2p_req **req)
{
    if (!op)
        return GOAL_ERR_ARG;
    coll_args a = args(CK_ALLREDUCE, sb, rb, count, esize, 0, op);
    a.k.alg = choose(CK_ALLREDUCE, count * esize, c->grp.size, op->commute, count);
    return start(c, &a, op, 1, req);
}

int coll_igather(const void *sb, void *rb, size_t count, size_t esize, int root, coll_comm *c,
                 p2p_req **req)
{
    if (!root_ok(c, root))
        return GOAL_ERR_ARG;
    if (c->grp.rank != root)
        rb = NULL;
    coll_args a = args(CK_GATHER, sb, rb, count, esize, root, NULL);
    a.k.alg = choose(CK_GATHER, count * esize, c->grp.size, 1, count);
    return start(c, &a, NULL, 1, req);
}

int coll_igatherv(const void *sb, size_t scount, void *rb, const int *rcounts, const int *displs,
                  size_t esize, int root, coll_comm *c, p2p_req **req)
{
    if (!root_ok(c, root) || (c->grp.rank == root && (!rcounts || !displs)))
        return GOAL_ERR_ARG;
    coll_args a = args(CK_GATHERV, sb, rb, 0, esize, root, NULL);
    a.scount = scount;
    a.rcounts = rcounts;
    a.rdispls = displs;
    return start(c, &a, NULL, 0, req);
}

int coll_iscatter(const void *sb, void *rb, size_t count, size_t esize, int root, coll_comm *c,
                  p2p_req **req)
{
    if (!root_ok(c, root))
        return GOAL_ERR_ARG;
    if (c->grp.rank != root)
        sb = NULL;
    coll_args a = args(CK_SCATTER, sb, rb, count, esize, root, NULL);
    return start(c, &a, NULL, 1, req);
}

int coll_iscatterv(const void *sb, const int *scounts, const int *displs, void *rb, size_t rcount,
                   size_t esize, int root, coll_comm *c, p2p_req **req)
{
    if (!root_ok(c, root) || (c->grp.rank == root && (!scounts || !displs)))
        return GOAL_ERR_ARG;
    coll_args a = args(CK_SCATTERV, sb, rb, 0, esize, root, NULL);
    a.scount = rcount;
    a.scounts = scounts;
    a.sdispls = displs;
    return start(c, &a, NULL, 0, req);
}

int coll_iallgather(const void *sb, void *rb, size_t count, size_t esize, coll_comm *c,
                    p2p_req **req)
{
    coll_args a = args(CK_ALLGATHER, sb, rb, count, esize, 0, NULL);
    a.k.alg = choose(CK_ALLGATHER, count * esize, c->grp.size, 1, count);
    return start(c, &a, NULL, 1, req);
}

int coll_iallgatherv(const void *sb, size_t scount, void *rb, const int *rcounts, const int *displs,
                     size_t esize, coll_comm *c, p2p_req **req)
{
    if (!rcounts || !displs)
        return GOAL_ERR_ARG;
    coll_args a = args(CK_ALLGATHERV, sb, rb, 0, esize, 0, NULL);
    a.scount = scount;
    a.rcounts = rcounts;
    a.rdispls = displs;
    return start(c, &a, NULL, 0, req);
}

int coll_ialltoall(const void *sb, void *rb, size_t count, size_t esize, coll_comm *c,
                   p2p_req **req)
{
    coll_args a = args(CK_ALLTOALL, sb, rb, count, esize, 0, NULL);
    a.k.alg = choose(CK_ALLTOALL, count * esize, c->grp.size, 1, count);
    return start(c, &a, NULL, 1, req);
}

int coll_ialltoallv(const void *sb, const int *scounts, const int *sdispls, void *rb,
                    const int *rcounts, const int *rdispls, size_t esize, coll_comm *c,
                    p2p_req **req)
{
    if ((sb != COLL_IN_PLACE && (!scounts || !sdispls)) || !rcounts || !rdispls)
        return GOAL_ERR_ARG;
    coll_args a = args(CK_ALLTOALLV, sb, rb, 0, esize, 0, NULL);
    a.scounts = scounts;
    a.sdispls = sdispls;
    a.rcounts = rcounts;
    a.rdispls = rdispls;
    a.k.alg = COLL_ALG_LINEAR;
    return start(c, &a, NULL, 0, req);
}

int coll_ireduce_scatter_block(const void *sb, void *rb, size_t count, size_t esize,
                               const coll_op *op, coll_comm *c, p2p_req **req)
{
    if (!op)
        return GOAL_ERR_ARG;
    coll_args a = args(CK_RSB, sb, rb, count, esize, 0, op);
    a.k.alg = choose(CK_RSB, count * esize, c->grp.size, op->commute, count);
    return start(c, &a, op, 1, req);
}

int coll_ireduce_scatter(const void *sb, void *rb, const int *rcounts, size_t esize,
                         const coll_op *op, coll_comm *c, p2p_req **req)
{
    if (!op || !rcounts)
        return GOAL_ERR_ARG;
    coll_args a = args(CK_RS, sb, rb, 0, esize, 0, op);
    a.rcounts = rcounts;
    size_t total = 0;
    for (int i = 0; i < c->grp.size; i++)
        total += (size_t)rcounts[i];
    /* the table looks at the mean block */
    a.k.alg = choose(CK_RS, total * esize / (size_t)c->grp.size, c->grp.size, op->commute, total);
    return start(c, &a, op, 0, req);
}

int coll_iscan(const void *sb, void *rb, size_t count, size_t esize, const coll_op *op,
               coll_comm *c, p2p_req **req)
{
    if (!op)
        return GOAL_ERR_ARG;
    coll_args a = args(CK_SCAN, sb, rb, count, esize, 0, op);
    return start(c, &a, op, 1, req);
}

int coll_iexscan(const void *sb, void *rb, size_t count, size_t esize, const coll_op *op,
                 coll_comm *c, p2p_req **req)
{
    if (!op)
        return GOAL_ERR_ARG;
    coll_args a = args(CK_EXSCAN, sb, rb, count, esize, 0, op);
    return start(c, &a, op, 1, req);
}

/* FNV-1a over the fields of the message lists (field by field: no padding bytes involved). */
static size_t nbr_hash(const coll_nbr *m, int n, uint64_t h)
{
    for (int i = 0; i < n; i++) {
        uint64_t f[4] = {(uint64_t)(uint32_t)m[i].peer, (uint64_t)(uint32_t)m[i].tag, m[i].off,
                         m[i].bytes};
        for (int j = 0; j < 4; j++)
            h = (h ^ f[j]) * 0x100000001b3ull;
    }
    return (size_t)h;
}

int coll_ineighbor(const void *sb, int nsend, const coll_nbr *sends, void *rb, int nrecv,
                   const coll_nbr *recvs, int cacheable, coll_comm *c, p2p_req **req)
{
    if (nsend < 0 || nrecv < 0 || (nsend && !sends) || (nrecv && !recvs))
        return GOAL_ERR_ARG;
    /* Checked here rather than left to the graph: a bad peer would otherwise surface only when the
     * run starts (max_peer), a bad tag as a graph error. */
    for (int i = 0; i < nsend + nrecv; i++) {
        const coll_nbr *m = i < nsend ? &sends[i] : &recvs[i - nsend];
        if (m->peer < 0 || m->peer >= c->grp.size || m->tag < 0 || m->tag > GOAL_TAG_UB)
            return GOAL_ERR_ARG;
    }
    /* The key: both list sizes, the buffers and a hash of the lists (compared in full on a hit). */
    coll_args a = args(CK_NEIGHBOR, sb, rb, 0, 1, nsend, NULL);
    a.k.alg = nrecv;
    if (cacheable)
        a.k.count = nbr_hash(recvs, nrecv, nbr_hash(sends, nsend, 0xcbf29ce484222325ull));
    a.nsend = nsend;
    a.nrecv = nrecv;
    a.sends = sends;
    a.recvs = recvs;
    return start(c, &a, NULL, cacheable, req);
}

int coll_wait(p2p_req *req)
{
    p2p_wait(req);
    int err = req->status.error;
    p2p_req_free(req);
    return err;
}

/* The blocking direct barrier skips the schedule: the same p - 1 zero-byte sends and receives go
 * straight through p2p's blocking calls (no run, no request when the message is at the ring's
 * head), which is most of the cost at np 2. Its tag has bit 30 clear, so it never matches a GOAL
 * run's messages (GOAL_P2P_TAG sets it) in this context: an Ibarrier still in flight stays apart.
 * Barrier k + 1's message from a rank cannot overtake its barrier-k message (non-overtaking), so
 * one tag serves every blocking barrier. Sending to all before receiving cannot deadlock (see
 * direct_exchange). */
enum {
    COLL_BARRIER_DIRECT_TAG = 1,
    COLL_ALLREDUCE_DIRECT_TAG = 2,
    COLL_BCAST_DIRECT_TAG = 3,
    COLL_GATHER_DIRECT_TAG = 4,
    COLL_SCATTER_DIRECT_TAG = 5
};

static int job_rank(const goal_group *g, int r)
{
    return g->job_of ? g->job_of[r] : r;
}

static int goal_err_of_p2p(int e)
{
    return e == P2P_ERR_NOMEM ? GOAL_ERR_NOMEM : e == P2P_ERR_TRUNCATE ? GOAL_ERR_TRUNCATE : GOAL_ERR_COMM;
}

/* The direct paths' sends: blocking, or non-blocking into sends[(*posted)++] where a blocking
 * rendezvous could wait for a receiver that is itself still sending. Returns a p2p code. */
static int direct_send(const void *buf, size_t n, int to, int tag, uint32_t ctx, int nonblocking,
                       p2p_req **sends, int *posted)
{
    if (!nonblocking)
        return p2p_send(buf, n, to, tag, ctx, P2P_MODE_STANDARD);
    int rc = p2p_isend(buf, n, to, tag, ctx, P2P_MODE_STANDARD, &sends[*posted]);
    if (!rc)
        (*posted)++;
    return rc;
}

/* Waits for the posted sends and turns the outcome (first p2p error, truncated receive) into a
 * GOAL code. */
static int direct_finish(p2p_req **sends, int posted, int rc, int trunc)
{
    p2p_waiting_begin(); /* one wait over all the sends (p2p.h) */
    for (int i = 0; i < posted; i++) {
        p2p_wait(sends[i]);
        if (!rc)
            rc = sends[i]->status.error;
        p2p_req_free(sends[i]);
    }
    p2p_waiting_end();
    return rc ? goal_err_of_p2p(rc) : trunc ? GOAL_ERR_TRUNCATE : GOAL_SUCCESS;
}

/* One direct round: `mine` (n bytes) to every other rank, then rank i's n bytes into rows[i]
 * (mine and rows NULL: zero-byte messages, the barrier). Every rank sends before it receives. An
 * eager send returns once its message is in the peer's ring, but a rendezvous send (n above
 * CREDO_EAGER_LIMIT, which a user may set below COLL_DIRECT_MAX_BYTES) can wait for its match, and
 * with every rank waiting in its sends nobody would receive: those sends go non-blocking. */
static int direct_exchange(coll_comm *c, int tag, const void *mine, size_t n,
                           unsigned char (*rows)[COLL_DIRECT_MAX_BYTES])
{
    static unsigned char empty_msg; /* p2p wants a buffer even for zero bytes */
    const goal_group *g = &c->grp;
    int p = g->size, r = g->rank;
    p2p_req *sends[COLL_DIRECT_MAX_RANKS];
    int nonblocking = n > credo_cfg.eager_limit && p <= COLL_DIRECT_MAX_RANKS, posted = 0, rc = 0, trunc = 0;
    if (!mine)
        mine = &empty_msg;
    for (int d = 1; d < p && !rc; d++)
        rc = direct_send(mine, n, job_rank(g, (r + d) % p), tag, g->ctx, nonblocking, sends, &posted);
    for (int d = 1; d < p && !rc && !trunc; d++) {
        int from = (r - d + p) % p;
        p2p_status st;
        rc = p2p_recv(rows ? rows[from] : &empty_msg, n, job_rank(g, from), tag, g->ctx, &st);
        trunc = !rc && st.bytes != n; /* sizes must agree, as in a schedule */
    }
    return direct_finish(sends, posted, rc, trunc);
}

int coll_barrier(coll_comm *c)
{
    if (choose(CK_BARRIER, 0, c->grp.size, 1, 0) == COLL_ALG_DIRECT)
        return direct_exchange(c, COLL_BARRIER_DIRECT_TAG, NULL, 0, NULL);
    p2p_req *r;
    int rc = coll_ibarrier(c, &r);
    return rc ? rc : coll_wait(r);
}

/* The blocking binomial bcast without a schedule: receive from the parent, then send to the
 * children, through p2p's calls (tag as for the direct barrier: one message per parent-child pair
 * and bcast, in order, so one tag serves every blocking bcast). A small bcast at np 2 took 0.86 us
 * through a run against 0.41 us for Open MPI's. Children's sends go non-blocking above the eager
 * limit, so a rendezvous to one child does not hold up the next. */
static int direct_bcast(coll_comm *c, void *buf, size_t n, int root)
{
    static unsigned char empty_msg; /* p2p wants a buffer even for zero bytes */
    const goal_group *g = &c->grp;
    int p = g->size, vr = (g->rank - root + p) % p, rc = 0, trunc = 0, mask = 1, posted = 0;
    if (!buf)
        buf = &empty_msg;
    for (; mask < p; mask <<= 1) {
        if (vr & mask) {
            p2p_status st;
            rc = p2p_recv(buf, n, job_rank(g, (vr - mask + root) % p), COLL_BCAST_DIRECT_TAG, g->ctx, &st);
            trunc = !rc && st.bytes != n; /* sizes must agree, as in a schedule */
            break;
        }
    }
    p2p_req *sends[32];
    int nonblocking = n > credo_cfg.eager_limit;
    for (mask >>= 1; mask > 0 && !rc && !trunc; mask >>= 1) {
        if (vr + mask >= p)
            continue;
        rc = direct_send(buf, n, job_rank(g, (vr + mask + root) % p), COLL_BCAST_DIRECT_TAG, g->ctx,
                         nonblocking, sends, &posted);
    }
    return direct_finish(sends, posted, rc, trunc);
}

int coll_bcast(void *buf, size_t count, size_t esize, int root, coll_comm *c)
{
    if (!root_ok(c, root))
        return GOAL_ERR_ARG;
    if (choose(CK_BCAST, count * esize, c->grp.size, 1, count) == COLL_ALG_BINOMIAL)
        return direct_bcast(c, buf, count * esize, root);
    p2p_req *r;
    int rc = coll_ibcast(buf, count, esize, root, c, &r);
    return rc ? rc : coll_wait(r);
}

/* Blocking linear gather and scatter of eager-sized blocks without a schedule: the schedule's
 * messages through p2p's calls (tags as for the direct barrier: one message per rank and call, in
 * order). At np 2 an 8-byte gather or scatter took 0.80-0.84 us through a run, against 0.37 us
 * for Open MPI's. Larger blocks, and the binomial gather, keep the schedule. */
static int direct_linear(coll_comm *c, int gather, const void *sb, void *rb, size_t n, int root)
{
    static unsigned char empty_msg; /* p2p wants a buffer even for zero bytes */
    const goal_group *g = &c->grp;
    int p = g->size, r = g->rank, tag = gather ? COLL_GATHER_DIRECT_TAG : COLL_SCATTER_DIRECT_TAG;
    int rc = 0, trunc = 0;
    p2p_status st;
    if (r != root) {
        if (gather) {
            rc = p2p_send(n ? sb : &empty_msg, n, job_rank(g, root), tag, g->ctx, P2P_MODE_STANDARD);
        } else {
            rc = p2p_recv(n ? rb : &empty_msg, n, job_rank(g, root), tag, g->ctx, &st);
            trunc = !rc && st.bytes != n;
        }
        return direct_finish(NULL, 0, rc, trunc);
    }
    const unsigned char *s = sb;
    unsigned char *d = rb;
    if (gather && sb != COLL_IN_PLACE && n)
        credo_copy(d + (size_t)r * n, sb, n);
    if (!gather && rb != COLL_IN_PLACE && n)
        credo_copy(rb, s + (size_t)r * n, n);
    for (int d_ = 1; d_ < p && !rc && !trunc; d_++) {
        int i = (root + d_) % p;
        if (gather) {
            rc = p2p_recv(n ? d + (size_t)i * n : &empty_msg, n, job_rank(g, i), tag, g->ctx, &st);
            trunc = !rc && st.bytes != n;
        } else {
            rc = p2p_send(n ? s + (size_t)i * n : &empty_msg, n, job_rank(g, i), tag, g->ctx,
                          P2P_MODE_STANDARD);
        }
    }
    return direct_finish(NULL, 0, rc, trunc);
}

int coll_gather(const void *sb, void *rb, size_t count, size_t esize, int root, coll_comm *c)
{
    if (!root_ok(c, root))
        return GOAL_ERR_ARG;
    size_t n = count * esize;
    if (n <= credo_cfg.eager_limit && choose(CK_GATHER, n, c->grp.size, 1, count) == COLL_ALG_LINEAR)
        return direct_linear(c, 1, sb, rb, n, root);
    p2p_req *r;
    int rc = coll_igather(sb, rb, count, esize, root, c, &r);
    return rc ? rc : coll_wait(r);
}

int coll_scatter(const void *sb, void *rb, size_t count, size_t esize, int root, coll_comm *c)
{
    if (!root_ok(c, root))
        return GOAL_ERR_ARG;
    size_t n = count * esize;
    if (n <= credo_cfg.eager_limit)
        return direct_linear(c, 0, sb, rb, n, root);
    p2p_req *r;
    int rc = coll_iscatter(sb, rb, count, esize, root, c, &r);
    return rc ? rc : coll_wait(r);
}

int coll_reduce(const void *sb, void *rb, size_t count, size_t esize, const coll_op *op, int root,
                coll_comm *c)
{
    p2p_req *r;
    int rc = coll_ireduce(sb, rb, count, esize, op, root, c, &r);
    return rc ? rc : coll_wait(r);
}

/* The blocking direct allreduce, for the sizes the table gives it (COLL_DIRECT_MAX_*): the direct
 * schedule's messages through direct_exchange (see above for the tag and the send-first order),
 * and the same fold in rank order, so blocking and non-blocking give the same bits. Whether it applies depends only on (p, bytes, setting), never on one rank's buffers, so all
 * ranks take the same path. */
static int allreduce_direct_blocking(const void *sb, void *rb, size_t count, size_t esize,
                                     const coll_op *op, coll_comm *c)
{
    int p = c->grp.size, r = c->grp.rank;
    size_t n = count * esize;
    /* rows stay 16-byte aligned (256 B each): the op reads them as arrays of the element type */
    _Static_assert(COLL_DIRECT_MAX_BYTES % 16 == 0, "rows must stay aligned");
    _Alignas(16) unsigned char v[COLL_DIRECT_MAX_RANKS][COLL_DIRECT_MAX_BYTES];
    if (!n)
        return GOAL_SUCCESS; /* every rank has count 0: nothing to agree on */
    const void *src = sb == COLL_IN_PLACE ? rb : sb;
    credo_copy(v[r], src, n);
    int rc = direct_exchange(c, COLL_ALLREDUCE_DIRECT_TAG, v[r], n, v);
    if (rc)
        return rc;
    credo_copy(rb, v[p - 1], n);
    for (int i = p - 2; i >= 0; i--)
        op->fn(v[i], rb, count, op->op, op->dt); /* rb = v_i op rb */
    return GOAL_SUCCESS;
}

int coll_allreduce(const void *sb, void *rb, size_t count, size_t esize, const coll_op *op,
                   coll_comm *c)
{
    if (op && c->grp.size <= COLL_DIRECT_MAX_RANKS && count * esize <= COLL_DIRECT_MAX_BYTES &&
        choose(CK_ALLREDUCE, count * esize, c->grp.size, op->commute, count) == COLL_ALG_DIRECT)
        return allreduce_direct_blocking(sb, rb, count, esize, op, c);
    p2p_req *r;
    int rc = coll_iallreduce(sb, rb, count, esize, op, c, &r);
    return rc ? rc : coll_wait(r);
}
