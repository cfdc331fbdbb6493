/* src/sim/sim_engine.c — the discrete-event loop of credosim and the LogGOPS model (LogGOPSim's
 * semantics, with its known defects corrected): event queue, matching queues, dependencies. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/sim_internal.h"

void sim_loggops_default(sim_loggops *p)
{
    p->L = 2500;
    p->o = 1500;
    p->g = 1000;
    p->G = 6;
    p->O = 0;
    p->S = 65535;
}

int sim_fail(sim_engine *E, const char *fmt, ...)
{
    if (!E->failed && E->err && E->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(E->err, E->errlen, fmt, ap);
        va_end(ap);
    }
    E->failed = 1;
    return -1;
}

/* ---- event queue ------------------------------------------------------------------------- */

static inline int ev_less(const sim_event *a, const sim_event *b)
{
    return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

/* The heap keeps keys and payloads apart: node i's key is hk[i + 3] and hk is 64-byte aligned,
 * so the four children of a node (4i+1 .. 4i+4, at hk[4i+4 .. 4i+7]) are one cache line; the
 * payload (ref | hostkind << 32) moves along in hp. The cluster model's queue holds about 16K
 * events (channel heads, CPUs) and pops 142M times in a 1024-rank run: with 24-byte events
 * (children over two or three lines, a branch per comparison) sim_evq_pop was a third of its
 * profile (perf), a quarter after this change. */
#define HK(q, i) ((q)->hk[(i) + 3])

static inline int key_less(const sim_evkey *a, const sim_evkey *b)
{
    /* no branches: the outcome is close to random in a sift-down */
    return (a->time < b->time) | ((a->time == b->time) & (a->seq < b->seq));
}

static int heap_alloc(sim_evq *q, size_t cap)
{
    sim_evkey *hk = aligned_alloc(64, ((cap + 3) * sizeof *hk + 63) & ~(size_t)63);
    uint64_t *hp = hk ? realloc(q->hp, cap * sizeof *hp) : NULL;
    if (!hp) {
        free(hk);
        return -1;
    }
    if (q->hk)
        memcpy(hk, q->hk, (q->n + 3) * sizeof *hk);
    free(q->hk);
    q->hk = hk;
    q->hp = hp;
    q->cap = cap;
    return 0;
}

int sim_evq_init(sim_evq *q)
{
    memset(q, 0, sizeof *q);
    q->fcap = 1024;
    q->fifo = malloc(q->fcap * sizeof *q->fifo);
    return q->fifo && heap_alloc(q, 1024) == 0 ? 0 : -1;
}

void sim_evq_free(sim_evq *q)
{
    free(q->hk);
    free(q->hp);
    free(q->fifo);
    for (size_t b = 0; b < SIM_RB_N; b++)
        free(q->rb[b].e);
    memset(q, 0, sizeof *q);
}

/* Doubles the full ring with realloc (large blocks grow by remapping, without a second copy alive)
 * and moves the wrapped front [0, fhead) behind the old end. */
static int fifo_grow(sim_evq *q)
{
    size_t ocap = q->fcap, ncap = ocap * 2;
    sim_event *f = realloc(q->fifo, ncap * sizeof *f);
    if (!f)
        return -1;
    memcpy(f + ocap, f, q->fhead * sizeof *f);
    q->fifo = f;
    q->fcap = ncap;
    return 0;
}

/* ---- radix layout (cluster model) ----
 * Why: the cluster model's queue holds CPU steps and channel heads (about 630 events on average in
 * a 512-rank alltoall, 8192 at peak) and nearly every event of a run passes through it, so the
 * 4-ary heap's sift-down (five levels of 128-bit compares and moves) was a quarter of the run time.
 * A radix heap files an event by the highest bit in which its time differs from `last_time`, the
 * last time taken out: an append to one of 65 buckets. Bucket 0 holds the events of that time in
 * seq order (a push there is nearly always the highest seq so far: an append). When it runs empty
 * it is refilled from the lowest non-empty bucket: its earliest time becomes `last_time`, the
 * events of that time go to bucket 0 (sorted by seq) and the rest to strictly lower buckets, so an
 * event moves a few times at most and never takes part in a sift. Filing by time alone (an earlier
 * version filed by the 128-bit key (time, seq)) puts the many events that share a time straight
 * into bucket 0 instead of splitting them by their seq bits one refill at a time. The order is
 * exactly the heap's: time, then seq. Keys are unique except for identical copies of a stale wake
 * event, whose order among themselves cannot matter. */
static inline unsigned rb_index(uint64_t last_time, uint64_t time)
{
    uint64_t dt = time ^ last_time;
    return dt ? 64u - (unsigned)__builtin_clzll(dt) : 0; /* 1 + highest differing bit */
}

static inline int rb_reserve(sim_rbucket *B)
{
    if (B->n == B->cap) {
        uint32_t ncap = B->cap ? B->cap * 2 : 64;
        sim_event *ne = realloc(B->e, (size_t)ncap * sizeof *ne);
        if (!ne || ncap <= B->cap)
            return -1;
        B->e = ne;
        B->cap = ncap;
    }
    return 0;
}

static inline int rb_append(sim_evq *q, unsigned b, const sim_event *e)
{
    sim_rbucket *B = &q->rb[b];
    if (rb_reserve(B) != 0)
        return -1;
    B->e[B->n++] = *e;
    q->rmask[b >> 6] |= 1ull << (b & 63);
    return 0;
}

/* Puts x into e[lo .. n] after every lower seq; e[lo .. n - 1] is in seq order, e[n] is free. */
static inline void seq_place(sim_event *e, uint32_t lo, uint32_t n, const sim_event *x)
{
    while (n > lo && e[n - 1].seq > x->seq) {
        e[n] = e[n - 1];
        n--;
    }
    e[n] = *x;
}

/* An event at the current time: into bucket 0 at its seq's place. */
static int b0_insert(sim_evq *q, const sim_event *e)
{
    sim_rbucket *B = &q->rb[0];
    if (rb_reserve(B) != 0)
        return -1;
    seq_place(B->e, q->b0head, B->n++, e);
    q->rmask[0] |= 1;
    return 0;
}

static int seq_cmp(const void *a, const void *b)
{
    uint64_t x = ((const sim_event *)a)->seq, y = ((const sim_event *)b)->seq;
    return (x > y) - (x < y);
}

/* Bucket 0 is empty and the radix part is not: the lowest non-empty bucket's earliest time becomes
 * `last_time`; its events of that time go to bucket 0 in seq order, the others to lower buckets
 * (they agree with the new `last_time` on every bit above the one that put them there). Returns -1
 * out of memory: the queue is then no longer ordered, and the run fails (sim_run). */
static int rb_refill(sim_evq *q)
{
    unsigned w = q->rmask[0] ? 0 : 1;
    unsigned b = w * 64 + (unsigned)__builtin_ctzll(q->rmask[w]);
    sim_rbucket *B = &q->rb[b];
    sim_event *e = B->e;
    uint32_t n = B->n;
    if (n == 1) { /* the common case: moved to bucket 0 by swapping arrays */
        sim_rbucket t = q->rb[0];
        q->rb[0] = *B;
        *B = t;
        q->last_time = q->rb[0].e[0].time;
        q->rmask[w] &= ~(1ull << (b & 63));
        q->rmask[0] |= 1;
        return 0;
    }
    uint64_t mt = e[0].time;
    for (uint32_t i = 1; i < n; i++)
        mt = e[i].time < mt ? e[i].time : mt;
    q->last_time = mt;
    q->rmask[w] &= ~(1ull << (b & 63));
    B->n = 0;
    for (uint32_t i = 0; i < n; i++)
        if (rb_append(q, rb_index(q->last_time, e[i].time), &e[i]) != 0)
            return -1;
    /* bucket 0 came from one bucket whose order is the order of pushes and moves, not seq order */
    sim_rbucket *Z = &q->rb[0];
    if (Z->n > 16) {
        qsort(Z->e, Z->n, sizeof *Z->e, seq_cmp);
    } else {
        for (uint32_t i = 1; i < Z->n; i++) {
            sim_event x = Z->e[i];
            seq_place(Z->e, 0, i, &x);
        }
    }
    return 0;
}

int sim_evq_push(sim_evq *q, const sim_event *e)
{
    if (q->radix && e->time >= q->last_time) {
        unsigned b = rb_index(q->last_time, e->time);
        if ((b ? rb_append(q, b, e) : b0_insert(q, e)) != 0)
            return -1;
        q->rn++;
    } else if (!q->radix && (q->fcount == 0 || !ev_less(e, &q->fifo[(q->fhead + q->fcount - 1) & (q->fcap - 1)]))) {
        if (q->fcount == q->fcap && fifo_grow(q) != 0)
            return -1;
        q->fifo[(q->fhead + q->fcount) & (q->fcap - 1)] = *e;
        q->fcount++;
    } else {
        if (q->n == q->cap && heap_alloc(q, q->cap * 2) != 0)
            return -1;
        sim_evkey k = {e->time, e->seq};
        size_t i = q->n++;
        while (i > 0) {
            size_t p = (i - 1) / 4;
            if (!key_less(&k, &HK(q, p)))
                break;
            HK(q, i) = HK(q, p);
            q->hp[i] = q->hp[p];
            i = p;
        }
        HK(q, i) = k;
        q->hp[i] = (uint64_t)e->ref | (uint64_t)e->hostkind << 32;
        q->early += q->radix; /* radix layout: a push before `last_time` (not expected; counted for the tests) */
    }
    size_t sz = q->n + q->fcount + q->rn;
    if (sz > q->peak)
        q->peak = sz;
    return 0;
}

/* Pops the root. Among equal keys the lowest index wins, as in a linear scan of the children. */
static void heap_pop(sim_evq *q, sim_event *out)
{
    *out = (sim_event){HK(q, 0).time, HK(q, 0).seq, (uint32_t)q->hp[0], (uint32_t)(q->hp[0] >> 32)};
    size_t n = --q->n;
    sim_evkey last = HK(q, n);
    uint64_t lastp = q->hp[n];
    size_t i = 0;
    for (;;) {
        size_t c = 4 * i + 1;
        if (c >= n)
            break;
        size_t best;
        if (c + 4 <= n) {
            size_t b0 = c + key_less(&HK(q, c + 1), &HK(q, c));
            size_t b1 = c + 2 + key_less(&HK(q, c + 3), &HK(q, c + 2));
            best = key_less(&HK(q, b1), &HK(q, b0)) ? b1 : b0;
        } else {
            best = c;
            for (size_t k = c + 1; k < n; k++)
                if (key_less(&HK(q, k), &HK(q, best)))
                    best = k;
        }
        if (!key_less(&HK(q, best), &last))
            break;
        HK(q, i) = HK(q, best);
        q->hp[i] = q->hp[best];
        i = best;
    }
    if (n) {
        HK(q, i) = last;
        q->hp[i] = lastp;
    }
}

int sim_evq_pop(sim_evq *q, sim_event *out)
{
    if (q->radix && q->rn) {
        if (q->b0head == q->rb[0].n && rb_refill(q) != 0)
            return -1;
        sim_rbucket *B0 = &q->rb[0];
        const sim_event *top = &B0->e[q->b0head];
        if (q->n == 0 || !key_less(&HK(q, 0), &(sim_evkey){top->time, top->seq})) {
            *out = *top;
            if (++q->b0head == B0->n) {
                B0->n = q->b0head = 0;
                q->rmask[0] &= ~1ull;
            }
            q->rn--;
            return 1;
        }
    }
    if (q->fcount && (q->n == 0 || ev_less(&q->fifo[q->fhead], &(sim_event){HK(q, 0).time, HK(q, 0).seq, 0, 0}))) {
        *out = q->fifo[q->fhead];
        q->fhead = (q->fhead + 1) & (q->fcap - 1);
        q->fcount--;
        return 1;
    }
    if (q->n == 0)
        return 0;
    heap_pop(q, out);
    return 1;
}

int sim_push(sim_engine *E, uint64_t time, uint64_t seq, uint32_t ref, uint32_t host, uint32_t kind)
{
    /* Every step adds at most a few costs of at most SIM_STEP_MAX_NS each (check_magnitudes), so a
     * time that reaches SIM_TIME_MAX_NS stops the run here, long before anything could wrap. */
    if (__builtin_expect(time >= SIM_TIME_MAX_NS, 0))
        return sim_fail(E, "%s: simulated time reached %llu ns (2^62, 146 years): the parameters or sizes are too large",
                        E->s->name, (unsigned long long)time);
    sim_event e = {time, seq, ref, host | (kind << 28)};
    if (sim_evq_push(&E->q, &e) != 0)
        return sim_fail(E, "out of memory for the event queue (%zu events)", sim_evq_size(&E->q));
    return 0;
}

/* ---- message pool -------------------------------------------------------------------------- */

uint32_t sim_msg_new(sim_engine *E)
{
    if (E->mfree == SIM_NIL) {
        uint32_t ncap = E->mcap ? E->mcap * 2 : 1024;
        if (ncap <= E->mcap) {
            sim_fail(E, "more than 2^32 messages in flight");
            return SIM_NIL;
        }
        sim_msg *m = realloc(E->m, (size_t)ncap * sizeof *m);
        if (!m) {
            sim_fail(E, "out of memory for %u messages in flight", ncap);
            return SIM_NIL;
        }
        E->m = m;
        for (uint32_t i = ncap; i-- > E->mcap;) {
            m[i].bnext = E->mfree;
            E->mfree = i;
        }
        E->mcap = ncap;
    }
    uint32_t i = E->mfree;
    E->mfree = E->m[i].bnext;
    memset(&E->m[i], 0, sizeof E->m[i]);
    E->m[i].bnext = E->m[i].hprev = E->m[i].hnext = SIM_NIL;
    return i;
}

void sim_msg_free(sim_engine *E, uint32_t i)
{
    E->m[i].bnext = E->mfree;
    E->mfree = i;
}

/* ---- match buckets ------------------------------------------------------------------------- */

/* The queue bit is left out: a key's unexpected and posted buckets share a home slot, so the
 * receive that checks one and then creates the other probes the same cache lines. */
static inline uint64_t bhash(uint32_t hostq, int32_t src, int32_t tag)
{
    hostq &= SIM_BK_HOST;
    uint64_t x = ((uint64_t)hostq << 32 | (uint32_t)src) ^ ((uint64_t)(uint32_t)tag * 0x9e3779b97f4a7c15ull);
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 29;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 32;
    return x;
}

static int bk_grow(sim_engine *E);

/* A key's home slot. Where the receive counts of the hosts are balanced (bk_layout), hosts own
 * blocks of 4096 slots (64 KB) in rank order and a key's home is its host's block plus 12 hash
 * bits: hosts tend to be served in rank order (a barrier round's arrivals, the initial receives'
 * posting), so consecutive lookups stay within a few pages instead of missing the TLB at a random
 * slot of a table of up to 400 MB. Otherwise (small tables, schedules where one block would hold
 * far more than its share) the hash alone places the key. The table's size is not a power of two
 * (range reduction: home = hash * size / 2^32), so it is sized to 4/3 of its need, not up to 8/3.
 * The layout decides where a bucket is, never what it holds: matching is unchanged. */
static inline uint64_t bk_home(const sim_engine *E, uint32_t hostq, uint32_t h)
{
    if (!E->nblocks)
        return (uint64_t)h * E->bcap >> 32;
    uint64_t blk = (uint64_t)(hostq & SIM_BK_HOST) * E->blk_mul >> 32;
    return blk << SIM_BK_BLOCK_BITS | (h & ((1u << SIM_BK_BLOCK_BITS) - 1));
}

static inline uint64_t bk_next(const sim_engine *E, uint64_t i) { return i + 1 == E->bcap ? 0 : i + 1; }

/* Chooses the layout for a table of E->bcap slots: host blocks when every block's share of the
 * schedule's receives is at most 3/2 of the average (so no block overflows much at 3/4 load). */
static void bk_layout(sim_engine *E)
{
    E->nblocks = 0;
    uint64_t nb = E->bcap >> SIM_BK_BLOCK_BITS, n = E->s->nranks;
    if (E->hashed_only || nb < 16 || nb > n || !E->nrecv || E->nrecv_total == 0)
        return;
    /* host h's block is h * nb / n, by a multiplication (hosts < 2^28, mul <= 2^32: no overflow;
     * a division at every probe and deletion step cost several percent) */
    uint64_t mul = (nb << 32) / n, sum = 0, max = 0, blk = 0;
    for (uint64_t h = 0; h < n; h++) {
        uint64_t b = h * mul >> 32;
        if (b != blk) {
            max = sum > max ? sum : max;
            sum = 0;
            blk = b;
        }
        sum += E->nrecv[h];
    }
    max = sum > max ? sum : max;
    if (max * nb * 2 <= E->nrecv_total * 3) {
        E->nblocks = nb;
        E->blk_mul = mul;
    }
}

/* Whether a live bucket's key has this (src, tag): the key of its head entry (see sim_bucket). */
static inline int bk_key_is(const sim_engine *E, const sim_bucket *b, int32_t src, int32_t tag)
{
    if (b->hostq >> 31) {
        const sim_msg *m = &E->m[b->head];
        return (int32_t)m->src == src && m->tag == tag;
    }
    uint32_t host = b->hostq & SIM_BK_HOST;
    const sim_top *o = sim_top_of(E->s, host, b->head);
    return sim_top_peer(E->s, host, o) == src && o->tag == tag;
}

/* Returns the slot of (host, src, tag, q); creates it when `create` (may fail: SIM_NIL as 64-bit). */
static uint64_t bk_find(sim_engine *E, uint32_t host, int32_t src, int32_t tag, uint32_t q, int create)
{
    /* at most 3/4 full: linear probing stays short */
    if (create && (E->bcount + 1) * 4 > E->bcap * 3 && bk_grow(E) != 0)
        return UINT64_MAX;
    uint32_t hq = host | SIM_BK_LIVE | q << 31;
    uint32_t h = (uint32_t)bhash(hq, src, tag);
    uint64_t i = bk_home(E, hq, h);
    for (;;) {
        sim_bucket *b = &E->bk[i];
        if (b->hostq == 0) {
            if (!create)
                return UINT64_MAX;
            *b = (sim_bucket){hq, h, SIM_NIL, SIM_NIL};
            E->bcount++;
            return i;
        }
        if (b->hostq == hq && b->hash == h && bk_key_is(E, b, src, tag))
            return i;
        i = bk_next(E, i);
    }
}

static int bk_resize(sim_engine *E, uint64_t ncap);

static int bk_grow(sim_engine *E) { return bk_resize(E, E->bcap ? E->bcap * 2 : 1024); }

/* Room for `need` buckets in one step (a doubling series would rehash every entry again), sized to
 * 4/3 of it rounded up to whole 4096-slot blocks. */
static int bk_reserve(sim_engine *E, uint64_t need)
{
    if (need * 4 <= E->bcap * 3)
        return 0;
    uint64_t ncap = (need * 4 + 2) / 3 + 1;
    ncap = (ncap + (1u << SIM_BK_BLOCK_BITS) - 1) & ~(uint64_t)((1u << SIM_BK_BLOCK_BITS) - 1);
    return bk_resize(E, ncap);
}

static int bk_resize(sim_engine *E, uint64_t ncap)
{
    sim_bucket *old = E->bk;
    uint64_t ocap = E->bcap;
    /* home slots come from the 32 stored hash bits (64 GB of buckets: not reached in practice).
     * An empty bucket is all zero (hostq 0: live ones have SIM_BK_LIVE), so a large table comes
     * from calloc as fresh zero pages, without a pass that writes it. */
    E->bk = ncap <= (1ull << 32) ? calloc(ncap, sizeof *E->bk) : NULL;
    if (!E->bk) {
        E->bk = old;
        return sim_fail(E, "out of memory for matching queues");
    }
    E->bcap = ncap;
    E->bcount = 0;
    bk_layout(E);
    for (uint64_t i = 0; i < ocap; i++) {
        if (old[i].hostq == 0)
            continue;
        uint64_t j = bk_home(E, old[i].hostq, old[i].hash);
        while (E->bk[j].hostq != 0)
            j = bk_next(E, j);
        E->bk[j] = old[i];
        E->bcount++;
    }
    free(old);
    return 0;
}

/* Backward-shift deletion keeps probe chains intact without tombstones, so the table stays as
 * small as the number of live (host, src, tag) queues rather than every pair ever seen. */
static void bk_delete(sim_engine *E, uint64_t i)
{
    uint64_t j = i;
    E->bk[i].hostq = 0;
    E->bcount--;
    for (;;) {
        j = bk_next(E, j);
        if (E->bk[j].hostq == 0)
            return;
        uint64_t home = bk_home(E, E->bk[j].hostq, E->bk[j].hash);
        /* move j into the hole i if its home is not in (i, j] (cyclically) */
        int in_range = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!in_range) {
            E->bk[i] = E->bk[j];
            E->bk[j].hostq = 0;
            i = j;
        }
    }
}

static void bk_append(sim_engine *E, uint64_t b, uint32_t mi)
{
    sim_bucket *bk = &E->bk[b];
    E->m[mi].bnext = SIM_NIL;
    if (bk->tail == SIM_NIL)
        bk->head = mi;
    else
        E->m[bk->tail].bnext = mi;
    bk->tail = mi;
}

/* Pops the bucket head (the only entry ever removed from a bucket: all of its entries match the
 * same requests, so the earliest is always taken first). */
static void bk_pop_head(sim_engine *E, uint64_t b)
{
    sim_bucket *bk = &E->bk[b];
    uint32_t h = bk->head;
    bk->head = E->m[h].bnext;
    if (bk->head == SIM_NIL)
        bk_delete(E, b);
}

static void hl_append(sim_engine *E, uint32_t *head, uint32_t *tail, uint32_t mi)
{
    E->m[mi].hnext = SIM_NIL;
    E->m[mi].hprev = *tail;
    if (*tail == SIM_NIL)
        *head = mi;
    else
        E->m[*tail].hnext = mi;
    *tail = mi;
}

static void hl_remove(sim_engine *E, uint32_t *head, uint32_t *tail, uint32_t mi)
{
    sim_msg *m = &E->m[mi];
    if (m->hprev == SIM_NIL)
        *head = m->hnext;
    else
        E->m[m->hprev].hnext = m->hnext;
    if (m->hnext == SIM_NIL)
        *tail = m->hprev;
    else
        E->m[m->hnext].hprev = m->hprev;
}

/* Posted receives with an exact (source, tag) are not copied into a sim_msg: the bucket chains the
 * receive operations themselves. A started operation no longer needs its dependency fields, so
 * `ready` holds its posting seq and `pending` the next receive of its bucket; `done` = 2 marks it
 * posted. At 1M ranks a dissemination barrier posts 20M receives at time 0: 64 bytes less each. */
#define OP_POSTED SIM_OP_POSTED

/* Appends an already numbered exact receive to its (host, src, tag) bucket. */
static void bk_append_key(sim_engine *E, uint32_t host, int32_t src, int32_t tag, uint32_t op);
static void bk_append_op(sim_engine *E, uint32_t host, uint32_t op)
{
    const sim_top *o = sim_top_of(E->s, host, op);
    bk_append_key(E, host, sim_top_peer(E->s, host, o), o->tag, op);
}

void sim_post_recv(sim_engine *E, uint32_t host, uint32_t op)
{
    const sim_top *o = sim_top_of(E->s, host, op);
    sim_opst *st = &E->s->st[op];
    sim_op_set_done(E->s, op, OP_POSTED);
    if (o->peer == SIM_ANY || o->tag == SIM_ANY) {
        uint32_t mi = sim_msg_new(E);
        if (mi == SIM_NIL)
            return;
        sim_msg *r = &E->m[mi];
        r->seq = E->mseq++;
        r->op = op;
        r->dst = host;
        r->peer = sim_top_peer(E->s, host, o);
        r->tag = o->tag;
        hl_append(E, &E->wr_head[host], &E->wr_tail[host], mi);
        E->nwild++;
        return;
    }
    sim_st_set_ready(st, E->mseq++);
    st->pending = SIM_NIL;
    if (E->bulk) {
        E->bulk++; /* bucketed by bulk_post, in the same order; counted here (bulk - 1) */
        return;
    }
    bk_append_op(E, host, op);
}

/* Appends an exact receive, whose key the caller has at hand, to its bucket. */
static void bk_append_key(sim_engine *E, uint32_t host, int32_t src, int32_t tag, uint32_t op)
{
    uint64_t b = bk_find(E, host, src, tag, 0, 1);
    if (b == UINT64_MAX)
        return;
    sim_bucket *bk = &E->bk[b];
    if (bk->tail == SIM_NIL)
        bk->head = op;
    else
        E->s->st[bk->tail].pending = op;
    bk->tail = op;
}

/* Fills the buckets of the exact receives posted by the initial operations. Nothing matches while
 * those run (every message is still a queued event), so only the buckets' contents must come out
 * as if appended one by one: per (host, src, tag) in posting order, which is schedule order within
 * a host. Appended in schedule order they would write a table of up to 32M buckets (1M-rank
 * barrier: 20M receives) at random, a cache and TLB miss each; instead the table is sized once
 * (no doubling series that rehashes everything again) and the receives of a run of hosts (about
 * 2M operations at a time, so the scratch array stays small: first-touched memory is expensive)
 * are sorted by the top 12 bits of their home slot with one stable counting pass, the key carried
 * along, and inserted in that order: each stretch of inserts stays within a few hundred KB. */
typedef struct bulk_ent {
    uint32_t host, op;
    int32_t src, tag;
} bulk_ent;

static inline int bulk_exact(const sim_sched *s, uint32_t h, uint32_t i)
{
    const sim_top *o = sim_top_of(s, h, i);
    return o->kind == SIM_RECV && sim_op_done(s, i) == OP_POSTED && o->peer != SIM_ANY && o->tag != SIM_ANY;
}

static int bulk_post(sim_engine *E, uint64_t n)
{
    const sim_sched *s = E->s;
    if (n == 0)
        return 0;
    if (bk_reserve(E, E->bcount + n) != 0)
        return -1;
    enum { BULK_BITS = 12, BULK_CHUNK = 1 << 21 };
    size_t cap = n < BULK_CHUNK ? (size_t)n : BULK_CHUNK;
    /* the host-block layout is already in schedule order: no sort */
    bulk_ent *sorted = E->bcap > (1u << (BULK_BITS + 4)) && !E->nblocks ? malloc(cap * sizeof *sorted) : NULL;
    uint64_t *cnt = sorted ? malloc(((1u << BULK_BITS) + 1) * sizeof *cnt) : NULL;
    if (!cnt) { /* host blocks, small table (fits the cache anyway) or no memory for the sort:
                 * insert in order */
        free(sorted);
        for (uint32_t h = 0; h < s->nranks; h++)
            for (uint32_t i = s->rank_first[h]; i < s->rank_first[h + 1]; i++)
                if (bulk_exact(s, h, i))
                    bk_append_key(E, h, sim_top_peer(s, h, sim_top_of(s, h, i)), sim_top_of(s, h, i)->tag, i);
        return E->failed ? -1 : 0;
    }
    /* the home slot (hash * bcap / 2^32) is monotone in the hash: its top bits order the inserts */
    const unsigned shift = 32 - BULK_BITS;
    for (uint32_t h0 = 0, h1; h0 < s->nranks && !E->failed; h0 = h1) {
        for (h1 = h0 + 1; h1 < s->nranks && s->rank_first[h1 + 1] - s->rank_first[h0] <= BULK_CHUNK; h1++)
            ;
        memset(cnt, 0, ((1u << BULK_BITS) + 1) * sizeof *cnt);
        for (uint32_t h = h0; h < h1; h++)
            for (uint32_t i = s->rank_first[h]; i < s->rank_first[h + 1]; i++)
                if (bulk_exact(s, h, i))
                    cnt[((uint32_t)bhash(h | SIM_BK_LIVE, sim_top_peer(s, h, sim_top_of(s, h, i)), sim_top_of(s, h, i)->tag) >> shift) + 1]++;
        for (unsigned b = 0; b < (1u << BULK_BITS); b++)
            cnt[b + 1] += cnt[b];
        size_t m = cnt[1u << BULK_BITS];
        if (m > cap) { /* one host with more than BULK_CHUNK receives */
            bulk_ent *ns = realloc(sorted, m * sizeof *ns);
            if (!ns) {
                free(sorted);
                free(cnt);
                return -1;
            }
            sorted = ns;
            cap = m;
        }
        for (uint32_t h = h0; h < h1; h++)
            for (uint32_t i = s->rank_first[h]; i < s->rank_first[h + 1]; i++)
                if (bulk_exact(s, h, i)) {
                    const sim_top *o = sim_top_of(s, h, i);
                    int32_t src = sim_top_peer(s, h, o);
                    sorted[cnt[(uint32_t)bhash(h | SIM_BK_LIVE, src, o->tag) >> shift]++] = (bulk_ent){h, i, src, o->tag};
                }
        for (size_t k = 0; k < m; k++)
            bk_append_key(E, sorted[k].host, sorted[k].src, sorted[k].tag, sorted[k].op);
    }
    free(cnt);
    free(sorted);
    return E->failed ? -1 : 0;
}

/* First posted receive matching (src, tag) in posting order: the head of the exact bucket or the
 * first matching wildcard receive, whichever was posted first. Returns the receive's operation. */
uint32_t sim_match_posted(sim_engine *E, uint32_t host, uint32_t src, int32_t tag, int remove)
{
    sim_opst *ops = E->s->st;
    uint64_t b = bk_find(E, host, (int32_t)src, tag, 0, 0);
    uint32_t exact = b == UINT64_MAX ? SIM_NIL : E->bk[b].head;
    uint32_t wild = SIM_NIL;
    for (uint32_t w = E->nwild ? E->wr_head[host] : SIM_NIL; w != SIM_NIL; w = E->m[w].hnext) {
        const sim_msg *r = &E->m[w];
        if (exact != SIM_NIL && r->seq > sim_st_ready(&ops[exact]))
            break;
        if ((r->peer == SIM_ANY || r->peer == (int32_t)src) && (r->tag == SIM_ANY || r->tag == tag)) {
            wild = w;
            break;
        }
    }
    if (wild == SIM_NIL) {
        if (remove && exact != SIM_NIL) {
            sim_bucket *bk = &E->bk[b];
            bk->head = ops[exact].pending;
            ops[exact].pending = 0;
            if (bk->head == SIM_NIL)
                bk_delete(E, b);
        }
        return exact;
    }
    uint32_t op = E->m[wild].op;
    if (remove) {
        hl_remove(E, &E->wr_head[host], &E->wr_tail[host], wild);
        sim_msg_free(E, wild);
        E->nwild--;
    }
    return op;
}

void sim_file_unexpected(sim_engine *E, uint32_t mi)
{
    sim_msg *m = &E->m[mi];
    m->seq = E->mseq++;
    uint64_t b = bk_find(E, m->dst, (int32_t)m->src, m->tag, 1, 1);
    if (b == UINT64_MAX)
        return;
    bk_append(E, b, mi);
    hl_append(E, &E->uq_head[m->dst], &E->uq_tail[m->dst], mi);
    E->nunexp++;
}

uint32_t sim_match_unexpected(sim_engine *E, uint32_t host, int32_t src, int32_t tag)
{
    uint32_t pick = SIM_NIL;
    /* nothing unexpected anywhere (always so while the initial operations run) or at this host:
     * no probe of the bucket table */
    if (E->nunexp == 0 || E->uq_head[host] == SIM_NIL)
        return SIM_NIL;
    if (src != SIM_ANY && tag != SIM_ANY) {
        uint64_t b = bk_find(E, host, src, tag, 1, 0);
        if (b == UINT64_MAX)
            return SIM_NIL;
        pick = E->bk[b].head;
    } else {
        for (uint32_t u = E->uq_head[host]; u != SIM_NIL; u = E->m[u].hnext) {
            const sim_msg *m = &E->m[u];
            if ((src == SIM_ANY || (int32_t)m->src == src) && (tag == SIM_ANY || m->tag == tag)) {
                pick = u;
                break;
            }
        }
        if (pick == SIM_NIL)
            return SIM_NIL;
    }
    uint64_t b = bk_find(E, host, (int32_t)E->m[pick].src, E->m[pick].tag, 1, 0);
    bk_pop_head(E, b);
    hl_remove(E, &E->uq_head[host], &E->uq_tail[host], pick);
    E->nunexp--;
    return pick;
}

/* ---- dependencies ---------------------------------------------------------------------------- */

static void satisfy(sim_engine *E, uint32_t host, uint32_t op, uint64_t t)
{
    sim_opst *o = &E->s->st[op];
    if (sim_st_ready(o) < t)
        sim_st_set_ready(o, t);
    if (--o->pending == 0) {
        if (E->nfl == E->capfl) {
            size_t ncap = E->capfl ? E->capfl * 2 : 256;
            sim_freed *f = realloc(E->fl, ncap * sizeof *f);
            if (!f) {
                sim_fail(E, "out of memory");
                return;
            }
            E->fl = f;
            E->capfl = ncap;
        }
        E->fl[E->nfl++] = (sim_freed){host, op};
    }
}

void sim_op_started(sim_engine *E, uint32_t host, uint32_t op, uint64_t t)
{
    const sim_sched *s = E->s;
    const sim_top *o = sim_top_of(s, host, op);
    const uint32_t *sc = s->tsucc + o->succ + o->nreq;
    uint32_t base = s->rank_first[host];
    for (uint32_t i = 0; i < o->nireq; i++)
        satisfy(E, host, base + sc[i], t);
}

void sim_op_finished(sim_engine *E, uint32_t host, uint32_t op, uint64_t t)
{
    const sim_sched *s = E->s;
    const sim_top *o = sim_top_of(s, host, op);
    sim_op_set_done(E->s, op, SIM_OP_FINISHED);
    E->ops_done++;
    const uint32_t *sc = s->tsucc + o->succ;
    uint32_t base = s->rank_first[host];
    for (uint32_t i = 0; i < o->nreq; i++)
        satisfy(E, host, base + sc[i], t);
}

static inline uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* The time a freed operation first tries to start: when its dependencies allow (`ready`, which
 * LogGOPSim drops for dependencies across CPUs) and its CPU (and NIC, for sends) is free. */
static uint64_t start_time(sim_engine *E, uint32_t host, uint32_t op, const sim_top *o)
{
    uint64_t t = max64(sim_st_ready(&E->s->st[op]), E->nexto[(size_t)host * E->nc + o->cpu]);
    if (o->kind == SIM_SEND && !E->cl)
        t = max64(t, E->nextgs[(size_t)host * E->nn + o->nic]);
    return max64(t, E->now);
}

/* Queues the operations freed by the last event: hosts in ascending order, and within a host sends,
 * then receives, then calcs, each kind in the order it was freed (LogGOPSim sorts by kind with an
 * unstable sort, which reorders same-kind operations once more than 16 are freed at once). */
static void flush_freed(sim_engine *E)
{
    size_t n = E->nfl;
    if (n == 0)
        return;
    uint32_t lo = UINT32_MAX;
    for (size_t i = 0; i < n; i++)
        if (E->fl[i].host < lo)
            lo = E->fl[i].host;
    uint32_t h = lo;
    size_t left = n;
    while (left) {
        uint32_t nexth = UINT32_MAX;
        for (uint8_t k = SIM_SEND; k <= SIM_CALC; k++) {
            for (size_t i = 0; i < n; i++) {
                if (E->fl[i].host != h)
                    continue;
                const sim_top *o = sim_top_of(E->s, h, E->fl[i].op);
                if (o->kind != k)
                    continue;
                sim_push(E, start_time(E, h, E->fl[i].op, o), sim_next_seq(E), E->fl[i].op, h, EV_OP);
                left--;
            }
        }
        for (size_t i = 0; i < n; i++)
            if (E->fl[i].host > h && E->fl[i].host < nexth)
                nexth = E->fl[i].host;
        h = nexth;
    }
    E->nfl = 0;
}

/* ---- grouped deferral ---------------------------------------------------------------------------- */

enum { WK_CALC = 0, WK_SEND = 1, WK_MSG = 2 };

/* The time the resources of a wait class are free (one CPU, one NIC per host). */
static uint64_t wait_free(const sim_engine *E, uint32_t h, int wk)
{
    uint64_t t = E->nexto[h];
    if (wk == WK_SEND)
        t = max64(t, E->nextgs[h]);
    else if (wk == WK_MSG)
        t = max64(t, E->nextgr[h]);
    return t;
}

static void wait_push_wake(sim_engine *E, uint32_t wi, uint32_t h)
{
    sim_wait *w = &E->waits[wi];
    w->wake_seq = w->seq[0];
    w->wake_live = 1;
    sim_push(E, max64(wait_free(E, h, w->kind), E->now), w->wake_seq, wi, h, EV_WAKE);
}

/* Re-queues a busy event until `t`. With several CPUs or NICs per host an arrival's resources
 * depend on the receive it matches at each try, so those schedules keep LogGOPSim's one-by-one
 * re-queueing; otherwise the event joins its class and the class's wake event is kept at the
 * lowest seq. Results are identical either way (test_grouped_deferral_exact). */
static void defer(sim_engine *E, const sim_event *ev, uint64_t t, int wk)
{
    uint32_t h = EV_HOST(ev);
    if (E->nc != 1 || E->nn != 1 || !E->wait_of) {
        sim_push(E, t, ev->seq, ev->ref, h, EV_KIND(ev));
        return;
    }
    uint32_t *slot = &E->wait_of[(size_t)h * 3 + (size_t)wk];
    if (*slot == SIM_NIL) {
        if (E->nwaits == E->capwaits) {
            uint32_t cap = E->capwaits ? E->capwaits * 2 : 64;
            sim_wait *nw = realloc(E->waits, cap * sizeof *nw);
            if (!nw) {
                sim_fail(E, "out of memory for deferred events");
                return;
            }
            E->waits = nw;
            E->capwaits = cap;
        }
        E->waits[E->nwaits] = (sim_wait){.kind = (uint8_t)wk};
        *slot = E->nwaits++;
    }
    sim_wait *w = &E->waits[*slot];
    if (w->n == w->cap) {
        uint32_t cap = w->cap ? w->cap * 2 : 8;
        uint64_t *ns = realloc(w->seq, cap * sizeof *ns);
        if (ns)
            w->seq = ns;
        uint32_t *nr = ns ? realloc(w->ref, cap * sizeof *nr) : NULL;
        if (!nr) {
            sim_fail(E, "out of memory for deferred events");
            return;
        }
        w->ref = nr;
        w->cap = cap;
    }
    /* sift up */
    uint32_t i = w->n++;
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (w->seq[p] <= ev->seq)
            break;
        w->seq[i] = w->seq[p];
        w->ref[i] = w->ref[p];
        i = p;
    }
    w->seq[i] = ev->seq;
    w->ref[i] = ev->ref;
    if (!w->wake_live || ev->seq < w->wake_seq)
        wait_push_wake(E, *slot, h); /* an older wake becomes stale */
}

static void wait_pop(sim_wait *w, uint64_t *seq, uint32_t *ref)
{
    *seq = w->seq[0];
    *ref = w->ref[0];
    uint64_t ls = w->seq[--w->n];
    uint32_t lr = w->ref[w->n], i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= w->n)
            break;
        if (c + 1 < w->n && w->seq[c + 1] < w->seq[c])
            c++;
        if (ls <= w->seq[c])
            break;
        w->seq[i] = w->seq[c];
        w->ref[i] = w->ref[c];
        i = c;
    }
    if (w->n) {
        w->seq[i] = ls;
        w->ref[i] = lr;
    }
}

static void lg_op(sim_engine *E, const sim_event *ev);
static void lg_msg(sim_engine *E, const sim_event *ev);

/* A wake event: the class's lowest-seq member tries again, exactly as its own re-queued event
 * would have at this key; then the class gets a wake for its next member. */
static void wait_wake(sim_engine *E, const sim_event *ev)
{
    uint32_t wi = ev->ref, h = EV_HOST(ev);
    sim_wait *w = &E->waits[wi];
    if (!w->wake_live || ev->seq != w->wake_seq || w->n == 0)
        return; /* stale: a member with a lower seq joined after this wake was queued */
    w->wake_live = 0;
    sim_event m = {ev->time, 0, 0, h | ((uint32_t)(w->kind == WK_MSG ? EV_MSG : EV_OP) << 28)};
    wait_pop(w, &m.seq, &m.ref);
    if (w->kind == WK_MSG)
        lg_msg(E, &m);
    else
        lg_op(E, &m);
    w = &E->waits[wi]; /* defer() may have grown the array */
    if (w->n && !w->wake_live)
        wait_push_wake(E, wi, h);
}

/* ---- LogGOPS model ----------------------------------------------------------------------------- */

static inline uint64_t minus1(uint64_t s) { return s ? s - 1 : 0; }

/* A rendezvous send completes when its receive matches it. As in LogGOPSim the sender counts as
 * busy until then (its finish time includes the wait), but on the send's own CPU and NIC. */
static void rndv_release(sim_engine *E, const sim_msg *m, uint64_t t)
{
    uint64_t *o = &E->nexto[(size_t)m->src * E->nc + m->cpu];
    uint64_t *gs = &E->nextgs[(size_t)m->src * E->nn + m->nic];
    if (*o < t)
        *o = t;
    if (*gs < t)
        *gs = t;
    sim_op_finished(E, m->src, m->op, t);
}

static void lg_op(sim_engine *E, const sim_event *ev)
{
    const sim_loggops *p = &E->lg;
    uint32_t h = EV_HOST(ev), opi = ev->ref;
    const sim_top *o = sim_top_of(E->s, h, opi);
    uint64_t t = ev->time;
    uint64_t *cpu = &E->nexto[(size_t)h * E->nc + o->cpu];
    switch (o->kind) {
    case SIM_CALC:
        if (*cpu > t) {
            defer(E, ev, *cpu, WK_CALC);
            return;
        }
        *cpu = t + o->size;
        sim_op_started(E, h, opi, t);
        sim_op_finished(E, h, opi, t + o->size);
        return;
    case SIM_SEND: {
        if (E->cl) {
            sim_cl_send(E, h, opi, t);
            return;
        }
        uint64_t *gs = &E->nextgs[(size_t)h * E->nn + o->nic];
        if (*cpu > t || *gs > t) {
            defer(E, ev, max64(*cpu, *gs), WK_SEND);
            return;
        }
        sim_op_started(E, h, opi, t);
        *cpu = t + p->o + minus1(o->size) * p->O;
        *gs = t + p->g + minus1(o->size) * p->G;
        uint32_t mi = sim_msg_new(E);
        if (mi == SIM_NIL)
            return;
        sim_msg *m = &E->m[mi];
        m->size = o->size;
        m->time = t;
        m->op = opi;
        m->src = h;
        m->dst = (uint32_t)sim_top_peer(E->s, h, o);
        m->tag = o->tag;
        m->cpu = o->cpu;
        m->nic = o->nic;
        m->rndv = o->size > p->S;
        E->st.messages++;
        sim_push(E, t + p->o + p->L, sim_next_seq(E), mi, m->dst, EV_MSG);
        if (!m->rndv)
            sim_op_finished(E, h, opi, *cpu);
        return;
    }
    case SIM_RECV: {
        sim_op_started(E, h, opi, t);
        uint32_t mi = sim_match_unexpected(E, h, sim_top_peer(E->s, h, o), o->tag);
        if (mi == SIM_NIL) {
            sim_post_recv(E, h, opi);
            return;
        }
        if (E->cl) {
            sim_cl_recv_matched(E, h, opi, mi, t);
            return;
        }
        /* LogGOPSim decides rendezvous here by the receive's size; the sender's size decides. */
        if (E->m[mi].rndv)
            rndv_release(E, &E->m[mi], t);
        sim_msg_free(E, mi);
        sim_op_finished(E, h, opi, t);
        return;
    }
    }
}

static void lg_msg(sim_engine *E, const sim_event *ev)
{
    const sim_loggops *p = &E->lg;
    uint32_t h = EV_HOST(ev), mi = ev->ref;
    sim_msg *m = &E->m[mi];
    uint64_t t = ev->time;
    /* Arrival costs go to the CPU/NIC of the receive it matches (LogGOPSim charges the receiver's
     * CPU numbered like the sender's); an unexpected message is handled by CPU 0 / NIC 0. With one
     * CPU and NIC per host that is CPU 0 / NIC 0 either way: the match is looked up only once the
     * message is handled, not at every try of a deferred arrival. */
    int one = E->nc == 1 && E->nn == 1;
    uint32_t r = one ? SIM_NIL : sim_match_posted(E, h, m->src, m->tag, 0);
    uint8_t c = r == SIM_NIL ? 0 : sim_top_of(E->s, h, r)->cpu, n = r == SIM_NIL ? 0 : sim_top_of(E->s, h, r)->nic;
    uint64_t *cpu = &E->nexto[(size_t)h * E->nc + c];
    uint64_t *gr = &E->nextgr[(size_t)h * E->nn + n];
    if (*cpu > t || *gr > t) {
        defer(E, ev, max64(*cpu, *gr), WK_MSG);
        return;
    }
    uint64_t s1 = minus1(m->size);
    *cpu = t + p->o + max64(s1 * p->O, s1 * p->G);
    *gr = t + p->g + s1 * p->G;
    if (one)
        r = sim_match_posted(E, h, m->src, m->tag, 1);
    if (r == SIM_NIL) {
        sim_file_unexpected(E, mi);
        return;
    }
    if (!one)
        sim_match_posted(E, h, m->src, m->tag, 1);
    if (m->rndv)
        rndv_release(E, m, t);
    sim_op_finished(E, h, r, *cpu);
    sim_msg_free(E, mi);
}

/* ---- run --------------------------------------------------------------------------------------- */

/* Software prefetch for the events a few places ahead in the FIFO lane (where most events are, in
 * the order they will be handled): a message arrival needs its message record, then its bucket
 * (whose slot follows from the record's key), then its receive's run state (the bucket's head), an
 * operation its run state. Each is a likely cache miss at 1M ranks (an arrival costs about 250 ns
 * without this), so the loads are started PF_D, 2 PF_D and 3 PF_D events early, each stage using
 * the line the previous stage fetched. Only a hint: nothing here changes the simulation. It
 * counts its calls in E->prefetch_calls: GCC 12 treats __builtin_prefetch as free of side effects,
 * so a function of nothing but prefetches was judged pure and removed with its call. */
enum { PF_D = 4 };
static inline void prefetch_ahead(sim_engine *E)
{
    E->prefetch_calls++;
    const sim_evq *q = &E->q;
    size_t m = q->fcap - 1;
    if (q->fcount > 3 * PF_D) {
        const sim_event *e = &q->fifo[(q->fhead + 3 * PF_D) & m];
        if (EV_KIND(e) == EV_MSG)
            __builtin_prefetch(&E->m[e->ref]);
        else if (EV_KIND(e) == EV_OP)
            __builtin_prefetch(&E->s->st[e->ref]);
    }
    if (E->cl) /* prefetching the cluster model's channel heads and mailboxes was slower (measured) */
        return;
    /* the heap's next events: its root's four children are loaded ahead, the root's bucket from
     * its (by then usually present) message record */
    if (q->n) {
        for (size_t c = 1; c < 5 && c < q->n; c++)
            if ((uint32_t)(q->hp[c] >> 60) == EV_MSG)
                __builtin_prefetch(&E->m[(uint32_t)q->hp[c]]);
        if ((uint32_t)(q->hp[0] >> 60) == EV_MSG) {
            const sim_msg *msg = &E->m[(uint32_t)q->hp[0]];
            uint32_t hq = ((uint32_t)(q->hp[0] >> 32) & 0x0fffffffu) | SIM_BK_LIVE;
            __builtin_prefetch(&E->bk[bk_home(E, hq, (uint32_t)bhash(hq, (int32_t)msg->src, msg->tag))]);
        }
    }
    for (unsigned k = 1; k <= 2; k++) {
        if (q->fcount <= k * PF_D)
            return;
        const sim_event *e = &q->fifo[(q->fhead + k * PF_D) & m];
        if (EV_KIND(e) != EV_MSG)
            continue;
        const sim_msg *msg = &E->m[e->ref];
        uint32_t hq = EV_HOST(e) | SIM_BK_LIVE;
        uint32_t h = (uint32_t)bhash(hq, (int32_t)msg->src, msg->tag);
        const sim_bucket *b = &E->bk[bk_home(E, hq, h)];
        if (k == 2)
            __builtin_prefetch(b);
        else if (b->hostq == hq && b->hash == h && b->head != SIM_NIL)
            __builtin_prefetch(&E->s->st[b->head]);
    }
}

static const char *kname(uint8_t k) { return k == SIM_SEND ? "send" : k == SIM_RECV ? "recv" : "calc"; }

static int report_stuck(sim_engine *E)
{
    const sim_sched *s = E->s;
    uint64_t stuck = s->nops - E->ops_done;
    for (uint32_t r = 0; r < s->nranks; r++) {
        for (uint32_t i = s->rank_first[r]; i < s->rank_first[r + 1]; i++) {
            const sim_top *o = sim_top_of(s, r, i);
            const sim_opst *st = &s->st[i];
            unsigned done = sim_op_done(s, i);
            if (done == SIM_OP_FINISHED)
                continue;
            char what[96];
            if (o->kind == SIM_CALC)
                snprintf(what, sizeof what, "calc %llu", (unsigned long long)o->size);
            else
                snprintf(what, sizeof what, "%s %llub %s %d tag %d", kname(o->kind), (unsigned long long)o->size,
                         o->kind == SIM_SEND ? "to" : "from", sim_top_peer(s, r, o), o->tag);
            const char *why = st->pending && done != OP_POSTED ? "waits for a dependency that never finishes (cycle or unmatched op)"
                              : o->kind == SIM_RECV ? "no matching send"
                                                    : "no matching receive";
            return sim_fail(E, "%s:%u: schedule cannot complete: %llu of %llu operations never finish; first: rank %u, op %u (%s): %s",
                            s->name, s->line ? s->line[i] : 0, (unsigned long long)stuck,
                            (unsigned long long)s->nops, r, i - s->rank_first[r], what, why);
        }
    }
    return sim_fail(E, "%s: schedule cannot complete (unmatched messages left)", s->name);
}

/* Refuses costs that could make times wrap: L, o, g, a calc, and the largest message times the
 * per-byte costs must each be at most SIM_STEP_MAX_NS (2^50 ns, 13 days). */
static int check_magnitudes(sim_engine *E)
{
    const sim_sched *s = E->s;
    const sim_loggops *p = &E->lg;
    const char *const names[] = {"L", "o", "g"};
    const uint64_t vals[] = {p->L, p->o, p->g};
    for (int i = 0; i < 3; i++)
        if (vals[i] > SIM_STEP_MAX_NS)
            return sim_fail(E, "%s: -%s %llu is above the limit of %llu ns per step", s->name, names[i],
                            (unsigned long long)vals[i], (unsigned long long)SIM_STEP_MAX_NS);
    uint64_t maxb = 0, maxc = 0;
    for (uint64_t i = 0; i < s->ntops; i++) {
        const sim_top *t = &s->tops[i];
        if (t->kind == SIM_CALC)
            maxc = t->size > maxc ? t->size : maxc;
        else
            maxb = t->size > maxb ? t->size : maxb;
    }
    if (maxc > SIM_STEP_MAX_NS)
        return sim_fail(E, "%s: a calc of %llu ns is above the limit of %llu ns per operation", s->name,
                        (unsigned long long)maxc, (unsigned long long)SIM_STEP_MAX_NS);
    uint64_t perb = p->G > p->O ? p->G : p->O, x;
    if (E->cfg->cl.enabled) {
        const sim_cluster *c = &E->cfg->cl;
        uint64_t ps = c->rma_byte_ps > c->shm_byte_ps ? c->rma_byte_ps : c->shm_byte_ps;
        uint64_t ns = (ps + 999) / 1000;
        perb = ns > perb ? ns : perb;
    }
    if (__builtin_mul_overflow(maxb, perb, &x) || x > SIM_STEP_MAX_NS)
        return sim_fail(E, "%s: the largest message, %llu bytes, at %llu ns per byte (-G, -O) takes more than the "
                        "limit of %llu ns per step", s->name, (unsigned long long)maxb, (unsigned long long)perb,
                        (unsigned long long)SIM_STEP_MAX_NS);
    return 0;
}

int sim_run(sim_sched *s, const sim_config *cfg, uint64_t *finish, sim_stats *st, char *err, size_t errlen)
{
    sim_engine E;
    memset(&E, 0, sizeof E);
    E.s = s;
    E.cfg = cfg;
    E.lg = cfg->lg;
    E.err = err;
    E.errlen = errlen;
    E.mfree = SIM_NIL;
    if (err && errlen)
        err[0] = 0;
    if (s->nranks > SIM_MAX_RANKS)
        return sim_fail(&E, "%s: %u ranks is more than the simulator supports (2^28 - 1)", s->name, s->nranks);
    if (check_magnitudes(&E) != 0)
        return -1;
    E.nc = s->ncpus;
    E.nn = s->nnics;
    size_t nh = s->nranks;
    size_t ncpu = nh * E.nc + 1, nnic = nh * E.nn + 1;
    E.nexto = calloc(ncpu, sizeof(uint64_t));
    E.nextgs = calloc(nnic, sizeof(uint64_t));
    E.nextgr = calloc(nnic, sizeof(uint64_t));
    E.uq_head = malloc((nh ? nh : 1) * 4 * sizeof(uint32_t));
    int rc = -1;
    struct timespec t0, t1, c0, c1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    if (!E.nexto || !E.nextgs || !E.nextgr || !E.uq_head || sim_evq_init(&E.q) != 0) {
        sim_fail(&E, "out of memory for %u hosts", s->nranks);
        goto out;
    }
    const char *hashed = getenv("CREDOSIM_HASHED_BUCKETS");
    E.hashed_only = hashed && *hashed; /* CREDOSIM_HASHED_BUCKETS=1: no host blocks (to compare) */
    const char *ungrouped = getenv("CREDOSIM_UNGROUPED");
    if (E.nc == 1 && E.nn == 1 && (!ungrouped || !*ungrouped)) {
        /* CREDOSIM_UNGROUPED=1 keeps LogGOPSim's one-by-one re-queueing (to compare) */
        E.wait_of = malloc((nh ? nh : 1) * 3 * sizeof *E.wait_of);
        if (!E.wait_of) {
            sim_fail(&E, "out of memory for %u hosts", s->nranks);
            goto out;
        }
        memset(E.wait_of, 0xff, (nh ? nh : 1) * 3 * sizeof *E.wait_of);
    }
    E.uq_tail = E.uq_head + nh;
    E.wr_head = E.uq_tail + nh;
    E.wr_tail = E.wr_head + nh;
    memset(E.uq_head, 0xff, nh * 4 * sizeof(uint32_t));
    if (bk_grow(&E) != 0)
        goto out;
    if (cfg->sample && (!cfg->cl.enabled || cfg->sample_ns == 0 || cfg->sample_rank >= s->nranks)) {
        sim_fail(&E, "flow-control sampling needs the cluster model, a period above 0 and a rank below %u (got rank %u)",
                 s->nranks, cfg->sample_rank);
        goto out;
    }
    if (cfg->cl.enabled && sim_cl_init(&E) != 0)
        goto out;
    sim_sched_reset(s);

    /* Initial operations (per host, in schedule order, grouped by kind) take the first seqs at
     * time 0, so they are the first events popped, in exactly this order, whatever they push:
     * they are handled here directly instead of first filling the queue (21M events of 24 bytes
     * for a 1M-rank barrier). A host's list is taken before any of its operations runs: handling
     * one can free others, which then go through the queue as in LogGOPSim. It is taken host by
     * host, not for all hosts at once (84 MB at 1M ranks): dependencies are rank-local and no
     * message can match while these run (all are still queued events), so running one host's
     * initial operations cannot change which operations of a later host are initial. */
    E.nrecv = malloc((nh ? nh : 1) * sizeof *E.nrecv);
    uint32_t maxops = 0;
    for (uint32_t h = 0; E.nrecv && h < s->nranks; h++) {
        uint32_t a = s->rank_first[h], n = s->rank_first[h + 1] - a, nr = 0;
        const sim_top *t = n ? sim_top_of(s, h, a) : NULL;
        for (uint32_t i = 0; i < n; i++)
            nr += t[i].kind == SIM_RECV;
        E.nrecv[h] = nr;
        E.nrecv_total += nr;
        maxops = n > maxops ? n : maxops;
    }
    uint32_t *init = malloc((maxops ? maxops : 1) * sizeof *init);
    if (!E.nrecv || !init) {
        free(init);
        sim_fail(&E, "out of memory for %u hosts", s->nranks);
        goto out;
    }
    /* The cluster model's queue is a heap of CPU steps and channel heads whose pushes are never
     * in order (its FIFO lane took under 1 in 8 events): the radix layout serves it better.
     * CREDOSIM_HEAP=1 keeps the 4-ary heap (to compare; the order is the same). */
    const char *heap = getenv("CREDOSIM_HEAP");
    E.q.radix = E.cl && !(heap && *heap && strcmp(heap, "0") != 0);
    sim_event ev;
    E.bulk = 1;
    for (uint32_t h = 0; h < s->nranks && !E.failed; h++) {
        uint32_t a = s->rank_first[h], n = s->rank_first[h + 1] - a, ninit = 0;
        const sim_top *t = n ? sim_top_of(s, h, a) : NULL;
        for (uint8_t k = SIM_SEND; k <= SIM_CALC; k++)
            for (uint32_t i = 0; i < n; i++)
                if (s->st[a + i].pending == 0 && t[i].kind == k)
                    init[ninit++] = a + i;
        for (uint32_t x = 0; x < ninit && !E.failed; x++) {
            ev = (sim_event){0, sim_next_seq(&E), init[x], h | (uint32_t)EV_OP << 28};
            E.st.events++;
            lg_op(&E, &ev);
            flush_freed(&E);
        }
    }
    free(init);
    uint64_t nbulk = E.bulk - 1;
    E.bulk = 0;
    if (!E.failed && bulk_post(&E, nbulk) != 0) {
        sim_fail(&E, "out of memory for matching queues");
        goto out;
    }

    uint64_t tick = 0, next_sample = cfg->sample ? 0 : UINT64_MAX;
    int popped;
    while (!E.failed && (popped = sim_evq_pop(&E.q, &ev)) != 0) {
        if (popped < 0) {
            sim_fail(&E, "out of memory for the event queue (%zu events)", sim_evq_size(&E.q));
            break;
        }
        prefetch_ahead(&E);
        if (__builtin_expect(ev.time >= next_sample, 0)) {
            /* the state as it is before this event: one sample however long the quiet gap was */
            sim_cl_sample(&E, ev.time);
            next_sample = (ev.time / cfg->sample_ns + 1) * cfg->sample_ns;
        }
        E.now = ev.time;
        E.st.events++;
        switch (EV_KIND(&ev)) {
        case EV_OP:
            lg_op(&E, &ev);
            break;
        case EV_MSG:
            lg_msg(&E, &ev);
            break;
        case EV_WAKE:
            wait_wake(&E, &ev);
            break;
        default:
            sim_cl_event(&E, &ev);
            break;
        }
        flush_freed(&E);
        if (cfg->progress && ++tick == (1u << 20)) {
            tick = 0;
            cfg->progress(cfg->progress_arg, E.ops_done, s->nops);
        }
    }
    if (E.failed)
        goto out;
    if (cfg->sample)
        sim_cl_sample(&E, E.now);
    if (E.ops_done != s->nops) {
        report_stuck(&E);
        goto out;
    }
    for (uint32_t h = 0; h < s->nranks; h++)
        if (E.uq_head[h] != SIM_NIL) {
            const sim_msg *m = &E.m[E.uq_head[h]];
            sim_fail(&E, "%s: schedule cannot complete: message from rank %u to rank %u (tag %d, %llu bytes) was never received",
                     s->name, m->src, h, m->tag, (unsigned long long)m->size);
            goto out;
        }
    E.st.max_finish = 0;
    for (uint32_t h = 0; h < s->nranks; h++) {
        uint64_t f = 0;
        for (uint32_t c = 0; c < E.nc; c++)
            f = max64(f, E.nexto[(size_t)h * E.nc + c]);
        if (finish)
            finish[h] = f;
        if (f > E.st.max_finish || h == 0) {
            E.st.max_finish = f;
            E.st.max_host = h;
        }
    }
    if (E.cl)
        sim_cl_stats(&E);
    rc = 0;
out:
    clock_gettime(CLOCK_MONOTONIC, &t1);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    E.st.cpu_s = (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) * 1e-9;
    E.st.wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    E.st.peak_queue = E.q.peak;
    if (st)
        *st = E.st;
    if (E.cl)
        sim_cl_free(&E);
    sim_evq_free(&E.q);
    free(E.nexto);
    free(E.nextgs);
    free(E.nextgr);
    free(E.uq_head);
    free(E.nrecv);
    free(E.m);
    free(E.bk);
    free(E.fl);
    for (uint32_t i = 0; i < E.nwaits; i++) {
        free(E.waits[i].seq);
        free(E.waits[i].ref);
    }
    free(E.waits);
    free(E.wait_of);
    return rc;
}
