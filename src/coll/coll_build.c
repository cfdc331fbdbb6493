/* src/coll/coll_build.c — collective schedules as pure data: one builder per algorithm, the
 * algorithm table and build-and-compile of one rank's GOAL schedule (no p2p: credosim uses it too). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "coll/coll_build.h"
#include "goal/goal_impl.h"

/* ---------------------------------------------------------------------------------------------
 * Building blocks: a buffer is a user pointer or a scratchpad offset. */

typedef struct loc {
    uintptr_t a;
    uint8_t m; /* GOAL_USERSPACE or GOAL_SCRATCHPAD */
} loc;

static loc U(const void *p)
{
    return (loc){(uintptr_t)p, GOAL_USERSPACE};
}

static loc at(loc l, size_t off)
{
    l.a += off;
    return l;
}


typedef struct bld {
    GOAL_Graph g;
    size_t scratch;
    void *op; /* the coll_op reduction callbacks receive */
    int p, r;
    int err; /* builder-side failure (out of memory) */
} bld;

static size_t salloc(bld *b, size_t n)
{
    size_t o = (b->scratch + 15) & ~(size_t)15;
    b->scratch = o + n;
    return o;
}

static loc S(bld *b, size_t n)
{
    return (loc){salloc(b, n), GOAL_SCRATCHPAD};
}

/* GOAL counts are int: collectives beyond 2 GiB per message fail the graph with GOAL_ERR_ARG. */
static int bytes_int(size_t n)
{
    return n > INT_MAX ? -1 : (int)n;
}

static GOAL_Vertex vsend(bld *b, loc l, size_t n, int peer, int tag)
{
    return GOAL_Send(b->g, (const void *)l.a, bytes_int(n), peer, tag, l.m);
}

static GOAL_Vertex vrecv(bld *b, loc l, size_t n, int peer, int tag)
{
    return GOAL_Recv(b->g, (void *)l.a, bytes_int(n), peer, tag, l.m);
}

static GOAL_Vertex vcopy(bld *b, loc src, loc dst, size_t n)
{
    return GOAL_LocalOp(b->g, (const void *)src.a, NULL, (void *)dst.a, GOAL_COPY, GOAL_UINT, 8,
                        bytes_int(n), src.m, GOAL_USERSPACE, dst.m);
}

static void coll_cb(const void *in, void *inout, size_t count, void *arg)
{
    const coll_op *o = arg;
    o->fn(in, inout, count, o->op, o->dt);
}

/* inout = in op inout */
static GOAL_Vertex vred(bld *b, loc in, loc inout, size_t count)
{
    return GOAL_Callback(b->g, coll_cb, b->op, (const void *)in.a, in.m, (void *)inout.a, inout.m,
                         count);
}

static void dep(bld *b, GOAL_Vertex prereq, GOAL_Vertex target)
{
    if (prereq != GOAL_INVALID_VERTEX && target != GOAL_INVALID_VERTEX)
        GOAL_Requires(b->g, prereq, target);
}

/* Receives count elements from peer into fresh scratch and folds them into `into`
 * (into = received op into) once `after` finished too; returns the reduction. */
static GOAL_Vertex vrecv_fold(bld *b, size_t count, size_t esize, int peer, int tag, loc into,
                              GOAL_Vertex after)
{
    loc t = S(b, count * esize);
    GOAL_Vertex rv = vrecv(b, t, count * esize, peer, tag);
    GOAL_Vertex red = vred(b, t, into, count);
    dep(b, after, red);
    dep(b, rv, red);
    return red;
}

/* Receives count elements from peer straight into `into` and folds `in` into them (into = in op
 * received) once `after` finished too: the first step of a reduction whose input is still in the
 * user's buffer, without copying it to the accumulator first. The operands are in the other order
 * than vrecv_fold's, so only for commutative ops. */
static GOAL_Vertex vrecv_fold_from(bld *b, size_t count, size_t esize, int peer, int tag, loc in, loc into,
                                   GOAL_Vertex after)
{
    GOAL_Vertex rv = vrecv(b, into, count * esize, peer, tag);
    GOAL_Vertex red = vred(b, in, into, count);
    dep(b, after, rv);
    dep(b, rv, red);
    return red;
}

/* A vertex that finishes once all of v[0..n) finished (a zero-time calc). */
static GOAL_Vertex join(bld *b, const GOAL_Vertex *v, int n, GOAL_Vertex also)
{
    GOAL_Vertex j = GOAL_Calc(b->g, 0);
    for (int i = 0; i < n; i++)
        dep(b, v[i], j);
    dep(b, also, j);
    return j;
}

static int pof2_floor(int p)
{
    int q = 1;
    while (q * 2 <= p)
        q *= 2;
    return q;
}

static int mod(int a, int p)
{
    return ((a % p) + p) % p;
}

/* ---------------------------------------------------------------------------------------------
 * Algorithm choice: defaults by size and np, overridable by CREDO_COLL_<COLLECTIVE>=<algorithm>. */

#define COLL_RING_MIN_BYTES (64 * 1024)
#define COLL_BCAST_SA_MIN_BYTES (128 * 1024)
#define COLL_PAIRWISE_MIN_BYTES (8 * 1024)
#define COLL_RABENSEIFNER_MIN_BYTES (8 * 1024)      /* allreduce; reduce from COLL_RING_MIN_BYTES */
#define COLL_ALLTOALL_BRUCK_MAX_BYTES 256           /* per block, and only from 8 ranks on */
#define COLL_GATHER_BINOMIAL_MAX_BYTES (2 * 1024)   /* per block, and only from 4 ranks on */


int coll_choose(int kind, size_t bytes, int p, int commute, size_t count, int requested)
{
    int a = requested;
    switch (kind) {
    case CK_BARRIER:
        if (a == COLL_ALG_BRUCK || a == COLL_ALG_DIRECT || a == COLL_ALG_DISSEMINATION)
            return a;
        return p <= COLL_DIRECT_MAX_RANKS ? COLL_ALG_DIRECT : COLL_ALG_DISSEMINATION;
    case CK_BCAST:
        if (a == COLL_ALG_BINOMIAL || a == COLL_ALG_SCATTER_ALLGATHER)
            return a;
        return bytes >= COLL_BCAST_SA_MIN_BYTES && p > 2 && count >= (size_t)p
                   ? COLL_ALG_SCATTER_ALLGATHER : COLL_ALG_BINOMIAL;
    case CK_REDUCE:
        /* Rabenseifner splits the vector into one chunk per power-of-two rank and reorders
         * operands: commutative ops with enough elements only. */
        if (a == COLL_ALG_RABENSEIFNER && commute && count >= (size_t)pof2_floor(p))
            return a;
        if (a == COLL_ALG_BINOMIAL)
            return a;
        return commute && bytes >= COLL_RING_MIN_BYTES && count >= (size_t)p && p > 2
                   ? COLL_ALG_RABENSEIFNER : COLL_ALG_BINOMIAL;
    case CK_ALLREDUCE:
        if (a == COLL_ALG_RING && commute && count >= (size_t)p)
            return a;
        if (a == COLL_ALG_RABENSEIFNER && commute && count >= (size_t)pof2_floor(p))
            return a;
        if (a == COLL_ALG_RECDBL || a == COLL_ALG_DIRECT)
            return a;
        if (p <= COLL_DIRECT_MAX_RANKS && bytes <= COLL_DIRECT_MAX_BYTES)
            return COLL_ALG_DIRECT;
        if (!commute || count < (size_t)p || p <= 2 || bytes < COLL_RABENSEIFNER_MIN_BYTES)
            return COLL_ALG_RECDBL;
        return COLL_ALG_RABENSEIFNER;
    case CK_GATHER:
        if (a == COLL_ALG_LINEAR || a == COLL_ALG_BINOMIAL || a == COLL_ALG_LINEAR_SYNC)
            return a;
        return bytes <= COLL_GATHER_BINOMIAL_MAX_BYTES && p >= 4 ? COLL_ALG_BINOMIAL
                                                                 : COLL_ALG_LINEAR;
    case CK_ALLGATHER:
        if (a == COLL_ALG_RECDBL && !(p & (p - 1)))
            return a;
        if (a == COLL_ALG_RING || a == COLL_ALG_BRUCK)
            return a;
        if (bytes * (size_t)p >= COLL_RING_MIN_BYTES)
            return COLL_ALG_RING;
        return !(p & (p - 1)) ? COLL_ALG_RECDBL : COLL_ALG_BRUCK;
    case CK_RS:
    case CK_RSB:
        /* Pairwise folds the blocks in arrival order: commutative ops only. */
        if (a == COLL_ALG_BINOMIAL || (a == COLL_ALG_PAIRWISE && commute))
            return a;
        return commute ? COLL_ALG_PAIRWISE : COLL_ALG_BINOMIAL;
    case CK_ALLTOALL:
        if (a == COLL_ALG_LINEAR || a == COLL_ALG_PAIRWISE || a == COLL_ALG_BRUCK)
            return a;
        if (bytes <= COLL_ALLTOALL_BRUCK_MAX_BYTES && p >= 8)
            return COLL_ALG_BRUCK;
        return bytes >= COLL_PAIRWISE_MIN_BYTES ? COLL_ALG_PAIRWISE : COLL_ALG_LINEAR;
    default:
        return COLL_ALG_AUTO;
    }
}

/* ---------------------------------------------------------------------------------------------
 * Builders. Each adds this rank's part to b->g. Tags only need to be distinct per (peer, phase)
 * inside one schedule: runs are told apart by the sequence number. */

/* Dissemination: round k sends to r + 2^k and receives from r - 2^k. A round's send must follow
 * every earlier round's receive, not only the last one: receives are posted at once and may finish
 * out of order, and a send that carried only the last round's news would let a rank out before all
 * others entered. Chaining each send after the previous send (which followed the earlier receives)
 * does that at no cost: zero-byte sends finish as soon as they are in the ring. */
static void build_barrier(bld *b)
{
    GOAL_Vertex prev_s = GOAL_INVALID_VERTEX, prev_r = GOAL_INVALID_VERTEX;
    for (int k = 0, d = 1; d < b->p; d <<= 1, k++) {
        GOAL_Vertex s = vsend(b, U(NULL), 0, (b->r + d) % b->p, k);
        GOAL_Vertex rv = vrecv(b, U(NULL), 0, mod(b->r - d, b->p), k);
        dep(b, prev_r, s);
        dep(b, prev_s, s);
        prev_s = s;
        prev_r = rv;
    }
}

/* Direct barrier: one round in which every rank sends to every other and waits for all of them.
 * p - 1 messages per rank instead of ceil(log2 p), but a single hop on the critical path: the last
 * rank to arrive releases everyone at once. That hop count is what costs when ranks share CPUs
 * (every hop whose receiver is descheduled waits for a context switch, about 5 us on a VM), and
 * for small p the extra zero-byte messages are cheaper than a second round. */
static void build_barrier_direct(bld *b)
{
    for (int i = 1; i < b->p; i++) {
        vsend(b, U(NULL), 0, (b->r + i) % b->p, 0);
        vrecv(b, U(NULL), 0, mod(b->r - i, b->p), 0);
    }
}

/* Bruck's k-port barrier (1997) with radix 3: in round i a rank sends to r + j * 3^i and receives
 * from r - j * 3^i for j = 1, 2, so ceil(log3 p) rounds of two messages instead of ceil(log2 p)
 * rounds of one. With radix 2 it is the dissemination barrier (which Open MPI calls "bruck"). */
static void build_barrier_bruck(bld *b)
{
    enum { RADIX = 3 };
    /* a round's sends follow all earlier receives (see build_barrier): the join of the last
     * round's receives and the previous join */
    GOAL_Vertex gate = GOAL_INVALID_VERTEX;
    for (int k = 0, d = 1; d < b->p; d *= RADIX, k++) {
        GOAL_Vertex rv[RADIX - 1];
        for (int j = 1; j < RADIX; j++) {
            rv[j - 1] = GOAL_INVALID_VERTEX;
            if ((long)j * d >= b->p)
                continue;
            int off = j * d;
            GOAL_Vertex s = vsend(b, U(NULL), 0, (b->r + off) % b->p, k * RADIX + j);
            rv[j - 1] = vrecv(b, U(NULL), 0, mod(b->r - off, b->p), k * RADIX + j);
            dep(b, gate, s);
        }
        if ((long)d * RADIX < b->p)
            gate = join(b, rv, RADIX - 1, gate);
    }
}

/* Binomial tree broadcast of n bytes at buf from root; `after` gates the root's sends. Returns
 * the receive vertex (or GOAL_INVALID_VERTEX at the root). */
static GOAL_Vertex build_bcast_binomial(bld *b, loc buf, size_t n, int root, int tag,
                                        GOAL_Vertex after)
{
    int p = b->p, vr = mod(b->r - root, p), mask = 1;
    GOAL_Vertex rv = after;
    while (mask < p) {
        if (vr & mask) {
            rv = vrecv(b, buf, n, mod(vr - mask + root, p), tag);
            dep(b, after, rv);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < p)
            dep(b, rv, vsend(b, buf, n, (vr + mask + root) % p, tag));
    return rv;
}

/* Element-aligned split of count elements into p chunks. */
static void chunk(size_t count, int p, int i, size_t *off, size_t *cnt)
{
    size_t q = count / (size_t)p, rem = count % (size_t)p;
    *cnt = q + ((size_t)i < rem);
    *off = q * (size_t)i + ((size_t)i < rem ? (size_t)i : rem);
}

/* Ring allgather of chunks i (chunk i lives at buf + off_i); `ready` gates the first send, and
 * before_recv[i] (optional) must finish before chunk i is overwritten. Chunk `have` is local. */
static GOAL_Vertex build_ring_allgather_chunks(bld *b, loc buf, size_t count, size_t esize,
                                               int have, GOAL_Vertex ready, int tagbase,
                                               const GOAL_Vertex *before_recv)
{
    int p = b->p, right = (b->r + 1) % p, left = mod(b->r - 1, p);
    GOAL_Vertex prev = ready;
    for (int k = 0; k < p - 1; k++) {
        size_t so, sc, ro, rc;
        int sidx = mod(have - k, p), ridx = mod(have - k - 1, p);
        chunk(count, p, sidx, &so, &sc);
        chunk(count, p, ridx, &ro, &rc);
        GOAL_Vertex s = vsend(b, at(buf, so * esize), sc * esize, right, tagbase + k);
        GOAL_Vertex rv = vrecv(b, at(buf, ro * esize), rc * esize, left, tagbase + k);
        dep(b, prev, s);
        if (before_recv)
            dep(b, before_recv[ridx], rv);
        dep(b, ready, rv);
        prev = rv;
    }
    return prev;
}

/* Large broadcast: the root's chunks are scattered along a binomial tree, then ring allgather. */
static void build_bcast_scatter_allgather(bld *b, loc buf, size_t count, size_t esize, int root)
{
    int p = b->p, vr = mod(b->r - root, p);
    /* binomial scatter in virtual ranks: vr owns virtual chunks [vr, vr + span) */
    int mask = 1;
    GOAL_Vertex rv = GOAL_INVALID_VERTEX;
    while (mask < p) {
        if (vr & mask) {
            int span = mask < p - vr ? mask : p - vr;
            size_t o0, c0, o1, c1;
            chunk(count, p, vr, &o0, &c0);
            chunk(count, p, vr + span - 1, &o1, &c1);
            /* virtual chunk v is real chunk (v + root) % p only when contiguous; keep it simple:
             * virtual chunk v lives at its own offset chunk(v) - the allgather uses the same map */
            rv = vrecv(b, at(buf, o0 * esize), (o1 + c1 - o0) * esize, mod(vr - mask + root, p), 1000);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vr + mask < p) {
            int span = mask < p - vr - mask ? mask : p - vr - mask;
            size_t o0, c0, o1, c1;
            chunk(count, p, vr + mask, &o0, &c0);
            chunk(count, p, vr + mask + span - 1, &o1, &c1);
            dep(b, rv, vsend(b, at(buf, o0 * esize), (o1 + c1 - o0) * esize, (vr + mask + root) % p,
                             1000));
        }
    }
    /* Ring allgather over virtual ranks: chunk index = virtual rank. Neighbours in virtual order
     * are neighbours in real order too (rotation), so the ring helper's peers are right. */
    build_ring_allgather_chunks(b, buf, count, esize, vr, rv, 0, NULL);
}

/* Binomial reduce of count elements from src; returns the vertex after which *acc holds the result
 * at the tree root (virtual rank 0 = vroot). Non-roots send. Each fold writes the received buffer
 * (t = acc op t, lower ranks first), so the accumulator starts as src itself and nothing is copied:
 * leaves send their input directly. With `into` (at the root only, not aliasing src) the root's
 * last child is received there, so the result lands in place without a final copy. */
static GOAL_Vertex build_reduce_tree(bld *b, loc src, size_t count, size_t esize, int vroot,
                                     loc *acc_out, int tag, const loc *into)
{
    int p = b->p, vr = mod(b->r - vroot, p);
    size_t n = count * esize;
    loc acc = src;
    GOAL_Vertex last = GOAL_INVALID_VERTEX;
    for (int mask = 1; mask < p; mask <<= 1) {
        if (vr & mask) {
            GOAL_Vertex s = vsend(b, acc, n, mod(vr - mask + vroot, p), tag);
            dep(b, last, s);
            last = s;
            break;
        }
        if (vr + mask < p) {
            loc t = into && vr == 0 && mask * 2 >= p ? *into : S(b, n);
            GOAL_Vertex rv = vrecv(b, t, n, (vr + mask + vroot) % p, tag);
            GOAL_Vertex red = vred(b, acc, t, count); /* t = acc op t: lower ranks first */
            dep(b, last, red);
            dep(b, rv, red);
            last = red;
            acc = t;
        }
    }
    *acc_out = acc;
    return last;
}

static int same_loc(loc x, loc y)
{
    return x.a == y.a && x.m == y.m;
}

static void build_reduce(bld *b, const coll_spec *a)
{
    const coll_spec *k = a;
    size_t n = k->count * k->esize;
    int root = k->root;
    int vroot = k->commute ? root : 0; /* rotating the tree would reorder a non-commutative op */
    int inplace = k->sb == COLL_IN_PLACE;
    loc rb = U(k->rb), src = inplace ? rb : U(k->sb);
    loc acc;
    GOAL_Vertex last = build_reduce_tree(b, src, k->count, k->esize, vroot, &acc, 0,
                                         b->r == root && root == vroot && !inplace ? &rb : NULL);
    if (b->r == vroot) {
        if (root == vroot) {
            if (!same_loc(acc, rb))
                dep(b, last, vcopy(b, acc, rb, n));
        } else {
            dep(b, last, vsend(b, acc, n, root, 1));
        }
    }
    if (b->r == root && root != vroot) {
        GOAL_Vertex rv = vrecv(b, rb, n, vroot, 1);
        if (inplace)
            dep(b, last, rv); /* our send read rb itself */
    }
}

/* Recursive doubling with the non-power-of-two fold (first 2*rem ranks pair up); keeps the rank
 * order of operands, so it serves non-commutative ops. Result lands in dst.
 * The accumulator starts as src itself: sends read src directly, and only a rank whose next step
 * writes its accumulator in place (its partner is the lower rank) copies src into scratch, and
 * only once the partner's data arrived. So starting the schedule copies nothing, which matters for
 * overlap (a non-blocking start returns sooner; the copy happens in progress) and saves a vertex. */
static void build_allreduce_recdbl(bld *b, loc src, loc dst, size_t count, size_t esize)
{
    int p = b->p, r = b->r;
    size_t n = count * esize;
    loc acc = src;
    int acc_is_src = 1;
    /* Out of place, the last round can produce its result in dst itself (no final copy). */
    int into_dst = !(src.a == dst.a && src.m == dst.m);
    GOAL_Vertex last = GOAL_INVALID_VERTEX, src_send = GOAL_INVALID_VERTEX;
    int pof2 = pof2_floor(p), rem = p - pof2, newrank;
    if (r < 2 * rem) {
        if (!(r & 1)) {
            src_send = vsend(b, acc, n, r + 1, 100);
            newrank = -1;
        } else {
            loc t = S(b, n), m = S(b, n);
            GOAL_Vertex rv = vrecv(b, t, n, r - 1, 100);
            GOAL_Vertex cp = vcopy(b, src, m, n);
            dep(b, rv, cp);
            GOAL_Vertex red = vred(b, t, m, count); /* m = t op m: the lower rank's data first */
            dep(b, cp, red);
            last = red;
            acc = m;
            acc_is_src = 0;
            newrank = r / 2;
        }
    } else {
        newrank = r - rem;
    }
    if (newrank >= 0) {
        for (int mask = 1, k = 0; mask < pof2; mask <<= 1, k++) {
            int nd = newrank ^ mask;
            int dst_rank = nd < rem ? nd * 2 + 1 : nd + rem;
            int final = into_dst && mask * 2 >= pof2;
            loc t = final && dst_rank > r ? dst : S(b, n);
            GOAL_Vertex s = vsend(b, acc, n, dst_rank, k);
            GOAL_Vertex rv = vrecv(b, t, n, dst_rank, k);
            dep(b, last, s);
            if (acc_is_src)
                src_send = s;
            GOAL_Vertex red;
            if (dst_rank < r && acc_is_src) {
                loc m = final ? dst : S(b, n); /* src must stay intact: reduce into a copy of it */
                GOAL_Vertex cp = vcopy(b, src, m, n);
                dep(b, rv, cp);
                red = vred(b, t, m, count);
                dep(b, cp, red);
                acc = m;
            } else if (dst_rank < r) {
                red = vred(b, t, acc, count); /* acc = t op acc, after acc was sent */
                dep(b, s, red);
            } else {
                red = vred(b, acc, t, count); /* t = acc op t; acc moves to t */
                acc = t;
            }
            acc_is_src = 0;
            dep(b, last, red);
            dep(b, rv, red);
            last = red;
        }
    }
    if (r < 2 * rem) {
        if (r & 1) {
            dep(b, last, vsend(b, acc, n, r - 1, 101));
        } else {
            loc t = into_dst ? dst : S(b, n);
            last = vrecv(b, t, n, r + 1, 101);
            acc = t;
            acc_is_src = 0;
        }
    }
    if (acc.a == dst.a && acc.m == dst.m)
        return; /* the result is in dst already (or one rank, in place) */
    GOAL_Vertex cp = vcopy(b, acc, dst, n);
    dep(b, last, cp);
    if (src.a == dst.a && src.m == dst.m)
        dep(b, src_send, cp); /* in place: a rendezvous send may still be reading src = dst */
}


/* Rabenseifner's reduce-scatter by recursive halving, the first half of his allreduce and reduce
 * (commutative ops only: halving reorders the operands). The vector (count elements at src) is
 * split into pof2 chunks; after the non-power-of-two fold (the first 2*rem ranks pair up, the even
 * one hands its vector to the odd one and drops out) newrank v ends up with the full reduction of
 * chunk v in acc. The first step reads src and receives straight into acc, so src is never copied
 * to acc (a 1 MiB allreduce at np 4 spent 25-30 us of its start in that copy); pass src = acc when
 * acc holds the input already (in place). Returns the last vertex, -1 in *newrank for ranks that
 * dropped out; each send of this phase is appended to sends[] (*nsends) so the caller can order
 * later writes of acc after them. */
static GOAL_Vertex build_rs_halving(bld *b, loc src, loc acc, GOAL_Vertex last, size_t count, size_t esize,
                                    int *newrank, GOAL_Vertex *sends, int *nsends)
{
    int p = b->p, r = b->r, pof2 = pof2_floor(p), rem = p - pof2;
    size_t n = count * esize;
    int from_src = src.a != acc.a || src.m != acc.m; /* the next step still reads src */
    *nsends = 0;
    *newrank = r < 2 * rem ? ((r & 1) ? r / 2 : -1) : r - rem;
    if (r < 2 * rem) {
        if (!(r & 1)) {
            GOAL_Vertex s = vsend(b, src, n, r + 1, 300);
            dep(b, last, s);
            sends[(*nsends)++] = s;
            return s;
        }
        last = from_src ? vrecv_fold_from(b, count, esize, r - 1, 300, src, acc, last)
                        : vrecv_fold(b, count, esize, r - 1, 300, acc, last);
        from_src = 0;
    }
    int v = *newrank, lo = 0, hi = pof2;
    for (int dist = pof2 / 2, k = 0; dist >= 1; dist /= 2, k++) {
        int nd = v ^ dist, peer = nd < rem ? nd * 2 + 1 : nd + rem, mid = (lo + hi) / 2;
        int klo = (v & dist) ? mid : lo, khi = (v & dist) ? hi : mid; /* kept half */
        int slo = (v & dist) ? lo : mid, shi = (v & dist) ? mid : hi; /* sent half */
        size_t so, sc, ko, kc, eo, ec;
        chunk(count, pof2, slo, &so, &sc);
        chunk(count, pof2, shi - 1, &eo, &ec);
        size_t sn = (eo + ec - so) * esize;
        chunk(count, pof2, klo, &ko, &kc);
        chunk(count, pof2, khi - 1, &eo, &ec);
        size_t kn = eo + ec - ko;
        GOAL_Vertex s = vsend(b, at(from_src ? src : acc, so * esize), sn, peer, 310 + k);
        dep(b, last, s);
        sends[(*nsends)++] = s;
        if (from_src)
            last = vrecv_fold_from(b, kn, esize, peer, 310 + k, at(src, ko * esize), at(acc, ko * esize),
                                   last);
        else
            last = vrecv_fold(b, kn, esize, peer, 310 + k, at(acc, ko * esize), last);
        from_src = 0;
        lo = klo;
        hi = khi;
    }
    if (from_src) { /* one rank: no step read src */
        GOAL_Vertex cp = vcopy(b, src, acc, n);
        dep(b, last, cp);
        last = cp;
    }
    return last;
}

/* Byte range [off, off + len) of chunks [c0, c1) of count elements split into pof2 chunks. */
static void chunk_range(size_t count, int pof2, int c0, int c1, size_t esize, size_t *off, size_t *len)
{
    size_t o0, n0, o1, n1;
    chunk(count, pof2, c0, &o0, &n0);
    chunk(count, pof2, c1 - 1, &o1, &n1);
    *off = o0 * esize;
    *len = (o1 + n1 - o0) * esize;
}

/* Rabenseifner allreduce: reduce-scatter by recursive halving, then allgather by recursive
 * doubling, in dst (the first halving step reads src, so nothing is copied); ranks that dropped
 * out of the fold get the result from their partner. */
static void build_allreduce_rabenseifner(bld *b, loc src, loc dst, size_t count, size_t esize)
{
    int p = b->p, r = b->r, pof2 = pof2_floor(p), rem = p - pof2, v;
    size_t n = count * esize;
    GOAL_Vertex sends[40];
    int nsends;
    GOAL_Vertex last = build_rs_halving(b, src, dst, GOAL_INVALID_VERTEX, count, esize, &v, sends, &nsends);
    if (v >= 0) {
        /* Allgather: receives overwrite parts of dst this rank sent while halving. */
        GOAL_Vertex gate = join(b, sends, nsends, last);
        int lo = v, hi = v + 1;
        for (int dist = 1, k = 0; dist < pof2; dist *= 2, k++) {
            int nd = v ^ dist, peer = nd < rem ? nd * 2 + 1 : nd + rem;
            int plo = (v & dist) ? lo - dist : hi, phi = plo + dist;
            size_t mo, ml, po, pl;
            chunk_range(count, pof2, lo, hi, esize, &mo, &ml);
            chunk_range(count, pof2, plo, phi, esize, &po, &pl);
            GOAL_Vertex s = vsend(b, at(dst, mo), ml, peer, 340 + k);
            GOAL_Vertex rv = vrecv(b, at(dst, po), pl, peer, 340 + k);
            dep(b, gate, s);
            dep(b, gate, rv);
            GOAL_Vertex both[2] = {s, rv};
            gate = join(b, both, 2, GOAL_INVALID_VERTEX);
            lo = lo < plo ? lo : plo;
            hi = hi > phi ? hi : phi;
        }
        last = gate;
    }
    if (r < 2 * rem) {
        if (r & 1)
            dep(b, last, vsend(b, dst, n, r - 1, 301));
        else
            dep(b, last, vrecv(b, dst, n, r + 1, 301)); /* after our own send of dst */
    }
}

/* Rabenseifner reduce: reduce-scatter by recursive halving into a scratch copy, binomial gather of
 * the chunks to newrank 0, which hands the result to the root if that is another rank. */
static void build_reduce_rabenseifner(bld *b, const coll_spec *k)
{
    int p = b->p, r = b->r, pof2 = pof2_floor(p), rem = p - pof2, v;
    size_t count = k->count, esize = k->esize, n = count * esize;
    loc src = k->sb == COLL_IN_PLACE ? U(k->rb) : U(k->sb);
    loc acc = S(b, n);
    GOAL_Vertex sends[40];
    int nsends;
    GOAL_Vertex last = build_rs_halving(b, src, acc, GOAL_INVALID_VERTEX, count, esize, &v, sends, &nsends);
    int gatherer = rem > 0 ? 1 : 0; /* real rank of newrank 0 */
    if (v >= 0) {
        /* Binomial gather over newranks: v holds chunks [v, v + mask) before step mask. */
        GOAL_Vertex gate = join(b, sends, nsends, last);
        for (int mask = 1, k2 = 0; mask < pof2; mask *= 2, k2++) {
            if (v & mask) {
                int nd = v - mask, peer = nd < rem ? nd * 2 + 1 : nd + rem;
                size_t o, l;
                chunk_range(count, pof2, v, v + mask, esize, &o, &l);
                dep(b, gate, vsend(b, at(acc, o), l, peer, 360 + k2));
                break;
            }
            int nd = v + mask, peer = nd < rem ? nd * 2 + 1 : nd + rem;
            size_t o, l;
            chunk_range(count, pof2, v + mask, v + 2 * mask, esize, &o, &l);
            GOAL_Vertex rv = vrecv(b, at(acc, o), l, peer, 360 + k2);
            dep(b, gate, rv);
            gate = join(b, &rv, 1, gate);
        }
        last = gate;
    }
    if (r == gatherer) {
        if (k->root == r)
            dep(b, last, vcopy(b, acc, U(k->rb), n));
        else
            dep(b, last, vsend(b, acc, n, k->root, 380));
    } else if (r == k->root) {
        dep(b, last, vrecv(b, U(k->rb), n, gatherer, 380)); /* in place: after rb was read */
    }
}

/* Ring: reduce-scatter then allgather, p-1 steps each, chunks of count/p elements, in dst. */
static void build_allreduce_ring(bld *b, loc src, loc dst, size_t count, size_t esize,
                                 int src_is_dst)
{
    int p = b->p, r = b->r, right = (r + 1) % p, left = mod(r - 1, p);
    GOAL_Vertex last = src_is_dst ? GOAL_INVALID_VERTEX : vcopy(b, src, dst, count * esize);
    GOAL_Vertex *sent = calloc((size_t)p, sizeof *sent); /* last send of each chunk */
    if (!sent) {
        b->err = GOAL_ERR_NOMEM;
        return;
    }
    for (int i = 0; i < p; i++)
        sent[i] = GOAL_INVALID_VERTEX;
    GOAL_Vertex prev_red = last;
    for (int k = 0; k < p - 1; k++) {
        int sidx = mod(r - k, p), ridx = mod(r - k - 1, p);
        size_t so, sc, ro, rc;
        chunk(count, p, sidx, &so, &sc);
        chunk(count, p, ridx, &ro, &rc);
        GOAL_Vertex s = vsend(b, at(dst, so * esize), sc * esize, right, 200 + k);
        dep(b, prev_red, s);
        sent[sidx] = s;
        prev_red = vrecv_fold(b, rc, esize, left, 200 + k, at(dst, ro * esize), last);
    }
    /* now chunk (r + 1) % p is complete here */
    build_ring_allgather_chunks(b, dst, count, esize, (r + 1) % p, prev_red, 400, sent);
    free(sent);
}

/* Direct allreduce for small vectors and few ranks: every rank sends its vector to every other,
 * then folds all p vectors itself in rank order, v0 op (v1 op (... op v[p-1])), so every rank
 * computes the same result (bit for bit, also for floating point) and non-commutative ops keep
 * MPI's canonical order. One hop on the critical path, as the direct barrier. */
static void build_allreduce_direct(bld *b, loc src, loc dst, size_t count, size_t esize,
                                   int inplace)
{
    int p = b->p, r = b->r;
    size_t n = count * esize;
    GOAL_Vertex *sent = calloc((size_t)p, sizeof *sent);
    loc *in = calloc((size_t)p, sizeof *in);
    GOAL_Vertex *got = calloc((size_t)p, sizeof *got);
    if (!sent || !in || !got) {
        b->err = GOAL_ERR_NOMEM;
        goto out;
    }
    for (int i = 0; i < p; i++) {
        got[i] = GOAL_INVALID_VERTEX;
        sent[i] = GOAL_INVALID_VERTEX;
        in[i] = src;
    }
    for (int d = 1; d < p; d++) {
        int to = (r + d) % p, from = mod(r - d, p);
        sent[to] = vsend(b, src, n, to, 0);
        in[from] = S(b, n);
        got[from] = vrecv(b, in[from], n, from, 0);
    }
    /* In place the sends read dst itself: fold in scratch and copy back once they are done. */
    loc acc = inplace ? S(b, n) : dst;
    GOAL_Vertex last = vcopy(b, in[p - 1], acc, n);
    dep(b, got[p - 1], last);
    for (int i = p - 2; i >= 0; i--) {
        GOAL_Vertex red = vred(b, in[i], acc, count); /* acc = v_i op acc */
        dep(b, got[i], red);
        dep(b, last, red);
        last = red;
    }
    if (inplace) {
        GOAL_Vertex cp = vcopy(b, acc, dst, n);
        dep(b, last, cp);
        for (int i = 0; i < p; i++)
            dep(b, sent[i], cp);
    }
out:
    free(sent);
    free(in);
    free(got);
}

static void build_allreduce(bld *b, const coll_spec *a, int alg)
{
    const coll_spec *k = a;
    int inplace = k->sb == COLL_IN_PLACE;
    loc src = inplace ? U(k->rb) : U(k->sb);
    if (alg == COLL_ALG_RING)
        build_allreduce_ring(b, src, U(k->rb), k->count, k->esize, inplace);
    else if (alg == COLL_ALG_RABENSEIFNER)
        build_allreduce_rabenseifner(b, src, U(k->rb), k->count, k->esize);
    else if (alg == COLL_ALG_DIRECT)
        build_allreduce_direct(b, src, U(k->rb), k->count, k->esize, inplace);
    else
        build_allreduce_recdbl(b, src, U(k->rb), k->count, k->esize);
}

static void build_gatherv(bld *b, const void *sb, size_t scount, void *rb, const int *rcounts,
                          const int *displs, size_t count, size_t esize, int root)
{
    if (b->r != root) {
        vsend(b, U(sb), scount * esize, root, 0);
        return;
    }
    for (int i = 0; i < b->p; i++) {
        size_t c = rcounts ? (size_t)rcounts[i] : count;
        size_t d = displs ? (size_t)displs[i] : count * (size_t)i;
        loc dst = at(U(rb), d * esize);
        if (i == root) {
            if (sb != COLL_IN_PLACE)
                vcopy(b, U(sb), dst, c * esize);
        } else {
            vrecv(b, dst, c * esize, i, 0);
        }
    }
}

/* Binomial gather of n-byte blocks to root, in virtual ranks vr = r - root: vr collects the blocks
 * of its subtree [vr, vr + span) in scratch (the root: straight into rb) and passes them up in one
 * piece, or two where the subtree's real ranks wrap past p - 1 (both sides split it alike). */
static void gather_pieces(bld *b, int is_send, loc base, int vbase, int a, int e, size_t n,
                          int root, int peer, GOAL_Vertex after, GOAL_Vertex *v)
{
    int p = b->p, v0 = p - root; /* virtual rank of real rank 0 */
    int cut = (root > 0 && a < v0 && v0 < e) ? v0 : e;
    int ends[2][2] = {{a, cut}, {cut, e}};
    for (int i = 0; i < 2; i++) {
        v[i] = GOAL_INVALID_VERTEX;
        if (ends[i][0] >= ends[i][1])
            continue;
        /* the root addresses rb by real rank, inner nodes their scratch by virtual offset */
        size_t off = vbase < 0 ? (size_t)((ends[i][0] + root) % p) * n
                               : (size_t)(ends[i][0] - vbase) * n;
        size_t len = (size_t)(ends[i][1] - ends[i][0]) * n;
        v[i] = is_send ? vsend(b, at(base, off), len, peer, 600 + i)
                       : vrecv(b, at(base, off), len, peer, 600 + i);
        dep(b, after, v[i]);
    }
}

static void build_gather_binomial(bld *b, const void *sb, void *rb, size_t n, int root)
{
    int p = b->p, vr = mod(b->r - root, p), low = 1;
    while (low < p && !(vr & low))
        low <<= 1;
    int span = vr == 0 ? p : (low < p - vr ? low : p - vr);
    if (span == 1) { /* leaf: its own block straight from sb */
        if (vr != 0)
            vsend(b, U(sb), n, mod(vr - low + root, p), 600);
        else if (sb != COLL_IN_PLACE)
            vcopy(b, U(sb), at(U(rb), (size_t)root * n), n);
        return;
    }
    loc base = vr == 0 ? U(rb) : S(b, (size_t)span * n);
    GOAL_Vertex own = GOAL_INVALID_VERTEX;
    if (vr != 0)
        own = vcopy(b, U(sb), base, n);
    else if (sb != COLL_IN_PLACE)
        own = vcopy(b, U(sb), at(base, (size_t)root * n), n);
    GOAL_Vertex *got = malloc(2 * 32 * sizeof *got);
    if (!got) {
        b->err = GOAL_ERR_NOMEM;
        return;
    }
    int ng = 0;
    for (int mask = 1; mask < span; mask <<= 1) {
        int c = vr + mask, ce = c + mask < vr + span ? c + mask : vr + span;
        gather_pieces(b, 0, base, vr == 0 ? -1 : vr, c, ce, n, root, (c + root) % p,
                      GOAL_INVALID_VERTEX, &got[ng]);
        ng += 2;
    }
    if (vr != 0) {
        GOAL_Vertex all = join(b, got, ng, own), s[2];
        gather_pieces(b, 1, base, vr, vr, vr + span, n, root, mod(vr - low + root, p), all, s);
    }
    free(got);
}

/* linear_sync: every rank waits for a zero-byte go-ahead from the root before it sends its block,
 * and the root sends the next go-ahead only when the previous block arrived. At most one block is
 * on its way to the root at a time, so large gathers never pile up at the root (all its receives
 * are posted up front, so the block goes straight to its place). */
static void build_gather_linear_sync(bld *b, const void *sb, void *rb, size_t n, int root)
{
    int p = b->p;
    if (b->r != root) {
        GOAL_Vertex go = vrecv(b, U(NULL), 0, root, 700);
        dep(b, go, vsend(b, U(sb), n, root, 701));
        return;
    }
    if (sb != COLL_IN_PLACE)
        vcopy(b, U(sb), at(U(rb), (size_t)root * n), n);
    GOAL_Vertex prev = GOAL_INVALID_VERTEX;
    for (int k = 1; k < p; k++) {
        int i = (root + k) % p;
        GOAL_Vertex go = vsend(b, U(NULL), 0, i, 700);
        dep(b, prev, go);
        prev = vrecv(b, at(U(rb), (size_t)i * n), n, i, 701);
    }
}

static void build_scatterv(bld *b, const void *sb, const int *scounts, const int *displs,
                           void *rb, size_t rcount, size_t count, size_t esize, int root)
{
    if (b->r != root) {
        vrecv(b, U(rb), rcount * esize, root, 0);
        return;
    }
    for (int i = 0; i < b->p; i++) {
        size_t c = scounts ? (size_t)scounts[i] : count;
        size_t d = displs ? (size_t)displs[i] : count * (size_t)i;
        loc src = at(U(sb), d * esize);
        if (i == root) {
            if (rb != COLL_IN_PLACE)
                vcopy(b, src, U(rb), c * esize);
        } else {
            vsend(b, src, c * esize, i, 0);
        }
    }
}

/* Ring allgather(v): block i of rcounts[i] elements at displs[i]. */
static void build_allgatherv_ring(bld *b, const void *sb, size_t scount, void *rb,
                                  const int *rcounts, const int *displs, size_t count, size_t esize)
{
    int p = b->p, r = b->r, right = (r + 1) % p, left = mod(r - 1, p);
#define BC(i) (rcounts ? (size_t)rcounts[i] : count)
#define BD(i) (displs ? (size_t)displs[i] : count * (size_t)(i))
    GOAL_Vertex prev = GOAL_INVALID_VERTEX;
    if (sb != COLL_IN_PLACE)
        prev = vcopy(b, U(sb), at(U(rb), BD(r) * esize), scount * esize);
    for (int k = 0; k < p - 1; k++) {
        int si = mod(r - k, p), ri = mod(r - k - 1, p);
        GOAL_Vertex s = vsend(b, at(U(rb), BD(si) * esize), BC(si) * esize, right, k);
        GOAL_Vertex rv = vrecv(b, at(U(rb), BD(ri) * esize), BC(ri) * esize, left, k);
        dep(b, prev, s);
        prev = rv;
    }
#undef BC
#undef BD
}

/* Bruck allgather (any p, ceil(log2 p) rounds): in the rotated view block i of a rank is the block
 * of rank (r + i) mod p; round d sends the first min(d, p - d) blocks to r - d and receives as many
 * from r + d behind them. Rotated block i is simply rb's block (r + i) mod p, so the rounds work in
 * rb directly and no final rotation is needed: a run of blocks that wraps past the last rank
 * travels as two messages (both sides split it at the same place). */
static void xfer_wrapped(bld *b, int is_send, void *rb, int first, int nblk, size_t n, int peer,
                         int tag, GOAL_Vertex *v)
{
    int p = b->p, run1 = first + nblk <= p ? nblk : p - first;
    loc base = U(rb);
    v[0] = is_send ? vsend(b, at(base, (size_t)first * n), (size_t)run1 * n, peer, tag)
                   : vrecv(b, at(base, (size_t)first * n), (size_t)run1 * n, peer, tag);
    v[1] = GOAL_INVALID_VERTEX;
    if (run1 < nblk)
        v[1] = is_send ? vsend(b, base, (size_t)(nblk - run1) * n, peer, tag + 1)
                       : vrecv(b, base, (size_t)(nblk - run1) * n, peer, tag + 1);
}

static void build_allgather_bruck(bld *b, const void *sb, void *rb, size_t count, size_t esize)
{
    int p = b->p, r = b->r;
    size_t n = count * esize;
    GOAL_Vertex gate = GOAL_INVALID_VERTEX;
    if (sb != COLL_IN_PLACE)
        gate = vcopy(b, U(sb), at(U(rb), (size_t)r * n), n);
    for (int d = 1, k = 0; d < p; d *= 2, k++) {
        int nblk = d < p - d ? d : p - d;
        GOAL_Vertex s[2], rv[2];
        xfer_wrapped(b, 1, rb, r, nblk, n, mod(r - d, p), 2 * k, s);
        xfer_wrapped(b, 0, rb, (r + d) % p, nblk, n, (r + d) % p, 2 * k, rv);
        for (int i = 0; i < 2; i++)
            dep(b, gate, s[i]);
        /* the next round sends what this one received; receives land on blocks never sent yet */
        gate = join(b, rv, 2, gate);
    }
}

/* Bruck alltoall for small blocks (ceil(log2 p) rounds of about p/2 blocks each instead of p - 1
 * messages): rotate the send blocks so block i goes to rank r + i, then in round d send every block
 * whose index has bit d set to r + d and receive the same positions from r - d; finally block i
 * came from rank r - i. Blocks travel as one vector message per round; the received one lands in
 * scratch and is copied into place once this round's send has read the old blocks. */
static void build_alltoall_bruck(bld *b, const void *sb, void *rb, size_t count, size_t esize)
{
    int p = b->p, r = b->r;
    size_t n = count * esize;
    loc src = sb == COLL_IN_PLACE ? U(rb) : U(sb);
    loc tmp = S(b, (size_t)p * n);
    /* rotation: tmp block i = src block (r + i) mod p: two runs */
    GOAL_Vertex c1 = vcopy(b, at(src, (size_t)r * n), tmp, (size_t)(p - r) * n);
    GOAL_Vertex c2 = r ? vcopy(b, src, at(tmp, (size_t)(p - r) * n), (size_t)r * n)
                       : GOAL_INVALID_VERTEX;
    GOAL_Vertex both[2] = {c1, c2};
    GOAL_Vertex gate = join(b, both, 2, GOAL_INVALID_VERTEX);
    void **addr = malloc((size_t)p * sizeof *addr);
    int *len = malloc((size_t)p * sizeof *len);
    GOAL_Vertex *done = malloc(((size_t)p + 2) * sizeof *done);
    if (!addr || !len || !done) {
        free(addr), free(len), free(done);
        b->err = GOAL_ERR_NOMEM;
        return;
    }
    if (n > INT_MAX)
        b->err = GOAL_ERR_ARG;
    for (int d = 1, k = 0; d < p; d *= 2, k++) {
        int m = 0;
        for (int i = 1; i < p; i++)
            if (i & d) {
                addr[m] = (void *)(tmp.a + (size_t)i * n);
                len[m++] = (int)n;
            }
        GOAL_Vertex s = GOAL_SendVec(b->g, addr, len, m, (r + d) % p, 500 + k, GOAL_SCRATCHPAD);
        loc in = S(b, (size_t)m * n);
        GOAL_Vertex rv = vrecv(b, in, (size_t)m * n, mod(r - d, p), 500 + k);
        dep(b, gate, s);
        dep(b, gate, rv);
        int nd = 0;
        done[nd++] = s;
        done[nd++] = rv;
        for (int i = 1, j = 0; i < p; i++)
            if (i & d) {
                GOAL_Vertex cp = vcopy(b, at(in, (size_t)j++ * n), at(tmp, (size_t)i * n), n);
                dep(b, s, cp);
                dep(b, rv, cp);
                done[nd++] = cp;
            }
        gate = join(b, done, nd, GOAL_INVALID_VERTEX); /* next round reads the copied blocks */
    }
    free(addr), free(len), free(done);
    /* inverse rotation: rb block (r - i) mod p = tmp block i */
    for (int i = 0; i < p; i++)
        dep(b, gate, vcopy(b, at(tmp, (size_t)i * n), at(U(rb), (size_t)mod(r - i, p) * n), n));
}

/* Recursive doubling allgather for power-of-two p: blocks stay contiguous by rank. */
static void build_allgather_recdbl(bld *b, const void *sb, void *rb, size_t count, size_t esize)
{
    int r = b->r;
    size_t n = count * esize;
    GOAL_Vertex prev = GOAL_INVALID_VERTEX;
    if (sb != COLL_IN_PLACE)
        prev = vcopy(b, U(sb), at(U(rb), (size_t)r * n), n);
    for (int mask = 1, k = 0; mask < b->p; mask <<= 1, k++) {
        int partner = r ^ mask;
        size_t mybase = (size_t)(r & ~(mask - 1)), pbase = (size_t)(partner & ~(mask - 1));
        GOAL_Vertex s = vsend(b, at(U(rb), mybase * n), (size_t)mask * n, partner, k);
        GOAL_Vertex rv = vrecv(b, at(U(rb), pbase * n), (size_t)mask * n, partner, k);
        dep(b, prev, s);
        dep(b, prev, rv);
        GOAL_Vertex j = GOAL_Calc(b->g, 0); /* both halves present */
        dep(b, s, j);
        dep(b, rv, j);
        prev = j;
    }
}

static void build_alltoallv(bld *b, const void *sb, const int *scounts, const int *sdispls,
                            void *rb, const int *rcounts, const int *rdispls, size_t count,
                            size_t esize, int alg)
{
    int p = b->p, r = b->r;
#define SC(i) (scounts ? (size_t)scounts[i] : count)
#define SD(i) (sdispls ? (size_t)sdispls[i] : count * (size_t)(i))
#define RC(i) (rcounts ? (size_t)rcounts[i] : count)
#define RD(i) (rdispls ? (size_t)rdispls[i] : count * (size_t)(i))
    loc src = U(sb);
    GOAL_Vertex start = GOAL_INVALID_VERTEX;
    if (sb == COLL_IN_PLACE) { /* send from a copy of rb: receives overwrite rb */
        size_t span = 0;
        for (int i = 0; i < p; i++)
            if ((RD(i) + RC(i)) * esize > span)
                span = (RD(i) + RC(i)) * esize;
        src = S(b, span);
        start = vcopy(b, U(rb), src, span);
        scounts = rcounts;
        sdispls = rdispls;
    }
    GOAL_Vertex self = vcopy(b, at(src, SD(r) * esize), at(U(rb), RD(r) * esize), RC(r) * esize);
    dep(b, start, self);
    GOAL_Vertex prev = start;
    for (int k = 1; k < p; k++) {
        int to = (r + k) % p, from = mod(r - k, p);
        GOAL_Vertex s = vsend(b, at(src, SD(to) * esize), SC(to) * esize, to, 0);
        GOAL_Vertex rv = vrecv(b, at(U(rb), RD(from) * esize), RC(from) * esize, from, 0);
        dep(b, start, s);
        dep(b, start, rv);
        if (alg == COLL_ALG_PAIRWISE) { /* one exchange at a time bounds unexpected data */
            dep(b, prev, s);
            dep(b, prev, rv);
            GOAL_Vertex j = GOAL_Calc(b->g, 0);
            dep(b, s, j);
            dep(b, rv, j);
            prev = j;
        }
    }
#undef SC
#undef SD
#undef RC
#undef RD
}

/* Reduce to rank 0 (order-preserving tree), then scatter blocks of rcounts[i] (or count). */
static void build_reduce_scatter(bld *b, const coll_spec *a)
{
    const coll_spec *k = a;
    int p = b->p;
    size_t total = 0;
    for (int i = 0; i < p; i++)
        total += a->rcounts ? (size_t)a->rcounts[i] : k->count;
    size_t mycount = a->rcounts ? (size_t)a->rcounts[b->r] : k->count;
    loc src = k->sb == COLL_IN_PLACE ? U(k->rb) : U(k->sb);
    loc acc;
    GOAL_Vertex last = build_reduce_tree(b, src, total, k->esize, 0, &acc, 0, NULL);
    if (b->r == 0) {
        size_t off = 0;
        for (int i = 0; i < p; i++) {
            size_t c = a->rcounts ? (size_t)a->rcounts[i] : k->count;
            GOAL_Vertex v = GOAL_INVALID_VERTEX;
            if (i != 0)
                v = vsend(b, at(acc, off * k->esize), c * k->esize, i, 1);
            else if (!same_loc(acc, U(k->rb)))
                v = vcopy(b, at(acc, off * k->esize), U(k->rb), c * k->esize);
            dep(b, last, v);
            off += c;
        }
    } else {
        GOAL_Vertex rv = vrecv(b, U(k->rb), mycount * k->esize, 0, 1);
        if (k->sb == COLL_IN_PLACE)
            dep(b, last, rv); /* our send read rb itself */
    }
}

/* Pairwise reduce-scatter (commutative ops): in step i every rank sends the block of rank r + i
 * and receives its own block's part from rank r - i, so each rank moves and folds only its own
 * block's p - 1 parts, all in parallel, instead of the whole vector meeting at rank 0. The first
 * part is received straight into the accumulator (the receive buffer, out of place) and the input's
 * own block folded into it, so nothing is copied out of place; in place the accumulator is scratch,
 * copied back once every send has read the input. */
static void build_reduce_scatter_pairwise(bld *b, const coll_spec *a)
{
    const coll_spec *k = a;
    int p = b->p, r = b->r;
    size_t es = k->esize, off_r = 0, total = 0;
    size_t *off = calloc((size_t)p, sizeof *off);
    GOAL_Vertex *sent = calloc((size_t)p, sizeof *sent);
    if (!off || !sent) {
        b->err = GOAL_ERR_NOMEM;
        goto out;
    }
    for (int i = 0; i < p; i++) {
        off[i] = total;
        total += a->rcounts ? (size_t)a->rcounts[i] : k->count;
    }
    off_r = off[r];
    size_t my = (a->rcounts ? (size_t)a->rcounts[r] : k->count);
    int inplace = k->sb == COLL_IN_PLACE;
    loc rb = U(k->rb), src = inplace ? rb : U(k->sb);
    loc acc = inplace && p > 1 ? S(b, my * es) : rb;
    GOAL_Vertex last = GOAL_INVALID_VERTEX;
    if (p == 1 && !inplace)
        last = vcopy(b, src, rb, my * es);
    for (int i = 1; i < p; i++) {
        int to = (r + i) % p, from = mod(r - i, p);
        size_t tc = a->rcounts ? (size_t)a->rcounts[to] : k->count;
        sent[i] = vsend(b, at(src, off[to] * es), tc * es, to, 0);
        loc t = i == 1 ? acc : S(b, my * es);
        GOAL_Vertex rv = vrecv(b, t, my * es, from, 0);
        /* first part: acc = (our own block) op acc; later ones: acc = part op acc */
        GOAL_Vertex red = i == 1 ? vred(b, at(src, off_r * es), acc, my) : vred(b, t, acc, my);
        dep(b, rv, red);
        dep(b, last, red);
        last = red;
    }
    if (inplace && p > 1) {
        GOAL_Vertex cp = vcopy(b, acc, rb, my * es);
        dep(b, last, cp);
        for (int i = 1; i < p; i++)
            dep(b, sent[i], cp);
    }
out:
    free(off);
    free(sent);
}

/* Whether rank x exchanges again after step `mask` of the recursive-doubling scan (its partial P is
 * needed later). Both partners of a step evaluate it for the lower one, so they agree on whether
 * the upper one sends its P down. */
static int scan_has_later_step(int x, int mask, int p)
{
    for (int m = mask << 1; m < p; m <<= 1)
        if ((x ^ m) < p)
            return 1;
    return 0;
}

/* Recursive-doubling scan: P covers a block of ranks around r, A is the prefix through r
 * (exclusive: up to r-1, absent until a lower partner contributes). A lives in the receive buffer
 * and P starts as the input itself, so copies happen only where a buffer must change: the input
 * into the receive buffer (inclusive, out of place), P's first update, and in place one copy of the
 * input. A step's upper rank sends its P down only if the lower one exchanges again, and the last
 * update of P is skipped: at np 2 the exclusive scan is one message into the receive buffer. */
static void build_scan(bld *b, const coll_spec *a, int exclusive)
{
    const coll_spec *k = a;
    int p = b->p, r = b->r;
    size_t n = k->count * k->esize;
    int inplace = k->sb == COLL_IN_PLACE;
    loc rb = U(k->rb);
    loc P = inplace ? rb : U(k->sb);
    int p_owned = 0; /* P is scratch of ours (else the input, read-only) */
    GOAL_Vertex lastP = GOAL_INVALID_VERTEX, lastA = GOAL_INVALID_VERTEX;
    if (inplace && p > 1) { /* A is written in rb, which P would otherwise still be read from */
        loc c = S(b, n);
        lastP = vcopy(b, P, c, n);
        lastA = lastP; /* no write of rb before the copy read it */
        P = c;
        p_owned = 1;
    }
    int have_a = !exclusive;
    if (!exclusive && !inplace)
        lastA = vcopy(b, U(k->sb), rb, n);
    for (int mask = 1, step = 0; mask < p; mask <<= 1, step++) {
        int partner = r ^ mask;
        if (partner >= p)
            continue;
        int need_p = scan_has_later_step(r, mask, p);
        if (partner < r) {
            GOAL_Vertex s = GOAL_INVALID_VERTEX;
            if (scan_has_later_step(partner, mask, p)) {
                s = vsend(b, P, n, partner, step);
                dep(b, lastP, s);
            }
            loc T; /* the lower block's partial */
            int t_is_rb = !have_a;
            if (!have_a) { /* exclusive, first contribution: it is A, straight into rb */
                T = rb;
                GOAL_Vertex rv = vrecv(b, rb, n, partner, step);
                dep(b, lastA, rv);
                lastA = rv;
                have_a = 1;
            } else {
                T = S(b, n);
                GOAL_Vertex rv = vrecv(b, T, n, partner, step);
                GOAL_Vertex ua = vred(b, T, rb, k->count); /* A = T op A */
                dep(b, rv, ua);
                dep(b, lastA, ua);
                lastA = ua;
            }
            if (!need_p)
                continue;
            if (!p_owned) { /* P = T op P must write: move P off the input first */
                loc c = S(b, n);
                GOAL_Vertex cp = vcopy(b, P, c, n);
                dep(b, lastP, cp);
                lastP = cp;
                P = c;
                p_owned = 1;
            }
            GOAL_Vertex up = vred(b, T, P, k->count); /* P = T op P, after P was sent */
            dep(b, lastA, up); /* T is complete (received, or folded into A) */
            dep(b, s, up);
            dep(b, lastP, up);
            lastP = up;
            if (t_is_rb)
                lastA = up; /* later updates of A (rb) wait until this one read it */
        } else {
            GOAL_Vertex s = vsend(b, P, n, partner, step);
            dep(b, lastP, s);
            if (!need_p)
                continue;
            loc T = S(b, n);
            GOAL_Vertex rv = vrecv(b, T, n, partner, step);
            GOAL_Vertex up = vred(b, P, T, k->count); /* T = P op T; P moves to T */
            dep(b, rv, up);
            dep(b, lastP, up);
            lastP = up;
            P = T;
            p_owned = 1;
        }
    }
}

/* Neighbourhood exchange: every send and receive is posted at once, none depends on another (a
 * stencil's halo messages are independent); the caller's tags keep repeated peers apart. */
static void build_neighbor(bld *b, const coll_spec *a)
{
    for (int i = 0; i < a->nsend; i++)
        vsend(b, at(U(a->sb), a->sends[i].off), a->sends[i].bytes, a->sends[i].peer,
              a->sends[i].tag);
    for (int i = 0; i < a->nrecv; i++)
        vrecv(b, at(U(a->rb), a->recvs[i].off), a->recvs[i].bytes, a->recvs[i].peer,
              a->recvs[i].tag);
}

int coll_algo_by_name(const char *v)
{
    static const struct { const char *name; int alg; } names[] = {
        {"dissemination", COLL_ALG_DISSEMINATION}, {"binomial", COLL_ALG_BINOMIAL},
        {"scatter_allgather", COLL_ALG_SCATTER_ALLGATHER}, {"recursive_doubling", COLL_ALG_RECDBL},
        {"recdbl", COLL_ALG_RECDBL}, {"ring", COLL_ALG_RING}, {"linear", COLL_ALG_LINEAR},
        {"pairwise", COLL_ALG_PAIRWISE}, {"bruck", COLL_ALG_BRUCK},
        {"rabenseifner", COLL_ALG_RABENSEIFNER}, {"linear_sync", COLL_ALG_LINEAR_SYNC},
        {"direct", COLL_ALG_DIRECT}};
    for (size_t i = 0; v && i < sizeof names / sizeof names[0]; i++)
        if (!strcasecmp(v, names[i].name))
            return names[i].alg;
    return COLL_ALG_AUTO;
}

int coll_kind_by_name(const char *v)
{
    static const struct { const char *name; int kind; } names[] = {
        {"barrier", CK_BARRIER}, {"bcast", CK_BCAST}, {"reduce", CK_REDUCE},
        {"allreduce", CK_ALLREDUCE}, {"gather", CK_GATHER}, {"scatter", CK_SCATTER},
        {"allgather", CK_ALLGATHER}, {"alltoall", CK_ALLTOALL},
        {"reduce_scatter_block", CK_RSB}, {"scan", CK_SCAN}, {"exscan", CK_EXSCAN}};
    for (size_t i = 0; v && i < sizeof names / sizeof names[0]; i++)
        if (!strcasecmp(v, names[i].name))
            return names[i].kind;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * One rank's schedule: build the graph, compile it. */

int coll_build(const coll_spec *a, int size, int rank, struct goal_sched **out)
{
    *out = NULL;
    if (!a || size <= 0 || rank < 0 || rank >= size)
        return GOAL_ERR_ARG;
    /* the callbacks' argument is the caller's coll_op; GOAL's callback API takes it as void * */
    bld b = {.g = GOAL_CreateGraph(), .op = (void *)(uintptr_t)a->op, .p = size, .r = rank};
    if (!b.g)
        return GOAL_ERR_NOMEM;
    const coll_spec *k = a;
    switch (k->kind) {
    case CK_BARRIER:
        if (k->alg == COLL_ALG_BRUCK)
            build_barrier_bruck(&b);
        else if (k->alg == COLL_ALG_DIRECT)
            build_barrier_direct(&b);
        else
            build_barrier(&b);
        break;
    case CK_BCAST:
        if (k->alg == COLL_ALG_SCATTER_ALLGATHER)
            build_bcast_scatter_allgather(&b, U(k->rb), k->count, k->esize, k->root);
        else
            build_bcast_binomial(&b, U(k->rb), k->count * k->esize, k->root, 0, GOAL_INVALID_VERTEX);
        break;
    case CK_REDUCE:
        if (k->alg == COLL_ALG_RABENSEIFNER)
            build_reduce_rabenseifner(&b, a);
        else
            build_reduce(&b, a);
        break;
    case CK_ALLREDUCE: build_allreduce(&b, a, k->alg); break;
    case CK_GATHER:
    case CK_GATHERV:
        if (k->kind == CK_GATHER && k->alg == COLL_ALG_BINOMIAL)
            build_gather_binomial(&b, k->sb, k->rb, k->count * k->esize, k->root);
        else if (k->kind == CK_GATHER && k->alg == COLL_ALG_LINEAR_SYNC)
            build_gather_linear_sync(&b, k->sb, k->rb, k->count * k->esize, k->root);
        else
            build_gatherv(&b, k->sb, k->kind == CK_GATHER ? k->count : a->scount, k->rb,
                          a->rcounts, a->rdispls, k->count, k->esize, k->root);
        break;
    case CK_SCATTER:
    case CK_SCATTERV:
        build_scatterv(&b, k->sb, a->scounts, a->sdispls, k->rb,
                       k->kind == CK_SCATTER ? k->count : a->scount, k->count, k->esize, k->root);
        break;
    case CK_ALLGATHER:
        if (k->alg == COLL_ALG_RECDBL)
            build_allgather_recdbl(&b, k->sb, k->rb, k->count, k->esize);
        else if (k->alg == COLL_ALG_BRUCK)
            build_allgather_bruck(&b, k->sb, k->rb, k->count, k->esize);
        else
            build_allgatherv_ring(&b, k->sb, k->count, k->rb, NULL, NULL, k->count, k->esize);
        break;
    case CK_ALLGATHERV:
        build_allgatherv_ring(&b, k->sb, a->scount, k->rb, a->rcounts, a->rdispls, k->count, k->esize);
        break;
    case CK_ALLTOALL:
    case CK_ALLTOALLV:
        if (k->kind == CK_ALLTOALL && k->alg == COLL_ALG_BRUCK)
            build_alltoall_bruck(&b, k->sb, k->rb, k->count, k->esize);
        else
            build_alltoallv(&b, k->sb, a->scounts, a->sdispls, k->rb, a->rcounts, a->rdispls,
                            k->count, k->esize, k->alg);
        break;
    case CK_RSB:
    case CK_RS:
        if (k->alg == COLL_ALG_PAIRWISE)
            build_reduce_scatter_pairwise(&b, a);
        else
            build_reduce_scatter(&b, a);
        break;
    case CK_SCAN: build_scan(&b, a, 0); break;
    case CK_EXSCAN: build_scan(&b, a, 1); break;
    case CK_NEIGHBOR: build_neighbor(&b, a); break;
    }
    GOAL_AllocateScratchpad(b.g, b.scratch);
    int rc = b.err ? b.err : goal_compile(b.g, out);
    GOAL_FreeGraph(b.g);
    /* Every builder above writes a scratch area (copy or receive) before any vertex reads it. */
    if (rc == GOAL_SUCCESS)
        (*out)->scratch_dirty_ok = 1;
    return rc;
}
