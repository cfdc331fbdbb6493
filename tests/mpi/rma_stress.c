/* tests/mpi/rma_stress.c — randomized one-sided communication checked byte for byte: random
 * targets, sizes (up to 1.5 MiB), datatypes (contiguous, vector, indexed, resized; origin
 * contiguous or strided), every operation kind and its request form, every synchronization (fence,
 * lock_all with flushes, per-operation shared or exclusive locks, PSCW), computation in between,
 * on MPI_Win_allocate, MPI_Win_create and dynamic windows. Every rank replays every operation in a
 * model of all windows and compares its own window and what its operations fetched with it.
 *
 * The operations of one round are generated from (seed, round) identically on all ranks; each
 * touches a region of its target no other operation of the round touches (the model's order then
 * does not matter), except one region per round that every rank adds into (MPI_SUM on unsigned:
 * the total does not depend on the order either). Each base type has its own zone of every window,
 * so no bytes are ever read as another type (no NaNs from random bytes).
 *
 * Sizes: most operations move up to 64 elements, some up to 4096, one in 20 a quarter to half of
 * its zone (bytes: 768 KiB to 1.5 MiB, the other types 192 to 384 KiB).
 *
 * Usage: mpit_rma_stress [seed [rounds per flavor]] (RMA_STRESS_SEED sets the seed too); a failure
 * prints the seed, which replays the run. With CREDO_STATS and CREDO_XPORT=ofi it also checks that
 * every peer is on the network transport and that the run sent packets over it. */
#include <stdint.h>
#include <time.h>

#include "testutil.h"

/* Zones: the bytes' is 3 MiB (transfers beyond the network path's 1 MiB pieces), the others 768 KiB. */
enum { BZONE = 3 << 20, ZONE = 768 << 10, NZONE = 5, W = BZONE + 4 * ZONE, MAX_OPS = 64, MAX_NB = 8 };
enum { T_BYTE, T_INT, T_UINT, T_DOUBLE, T_2INT };
enum { K_PUT, K_GET, K_ACC, K_GACC, K_FOP, K_CAS, K_SHARED, K_N };
enum { S_CONTIG, S_VECTOR, S_INDEXED, S_RESIZED };
enum { E_FENCE, E_LOCKALL, E_LOCK, E_PSCW, E_N };
enum { F_ALLOCATE, F_CREATE, F_DYNAMIC, F_N };

static const size_t bsize[] = {1, 4, 4, 8, 8};
static size_t zone_len(int z) { return z == 0 ? (size_t)BZONE : (size_t)ZONE; }
static size_t zone_off(int z) { return z == 0 ? 0 : (size_t)BZONE + (size_t)(z - 1) * ZONE; }
static MPI_Datatype btype(int b)
{
    switch (b) {
    case T_BYTE: return MPI_BYTE;
    case T_INT: return MPI_INT;
    case T_UINT: return MPI_UNSIGNED;
    case T_DOUBLE: return MPI_DOUBLE;
    default: return MPI_2INT;
    }
}

typedef struct op {
    int origin, target, kind, base, shape, req, lock_excl, flush, compute_us;
    int nb, bl, stride, count, ostrided;
    long ext;            /* extent of one target element, bytes */
    int disp[MAX_NB];    /* block displacements, base elements */
    MPI_Op mop;
    size_t off;          /* region offset in the target's window */
    size_t nelem;        /* base elements moved */
    uint64_t vseed;      /* origin values */
    int cas_match;
} op;

static int rank, size;
static uint64_t seed;

/* Every failing call names the seed too. */
#undef MPI_OK
#define MPI_OK(call)                                                                               \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != MPI_SUCCESS)                                                                    \
            FAIL("seed %llu: %s returned %d", (unsigned long long)seed, #call, rc_);               \
    } while (0)

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
static uint64_t rnd(uint64_t *s) { return mix(*s += 0x2545f4914f6cdd1dull); }
static int rn(uint64_t *s, int n) { return (int)(rnd(s) % (uint64_t)n); }

/* Initial value of base element i of zone z of rank r's window. */
static void init_elem(int z, int r, size_t i, unsigned char *p)
{
    uint64_t h = mix(seed ^ ((uint64_t)r << 40) ^ ((uint64_t)z << 56) ^ i);
    switch (z) {
    case T_BYTE: *p = (unsigned char)h; break;
    case T_INT: { int v = (int)(h % 2001) - 1000; memcpy(p, &v, 4); break; }
    case T_UINT: { unsigned v = (unsigned)h; memcpy(p, &v, 4); break; }
    case T_DOUBLE: { double v = (double)((int)(h % 2001) - 1000); memcpy(p, &v, 8); break; }
    default: { int v[2] = {(int)(h % 101) - 50, (int)((h >> 20) % 100)}; memcpy(p, v, 8); break; }
    }
}

static void init_window(unsigned char *w, int r)
{
    memset(w, 0, W);
    for (int z = 0; z < NZONE; z++)
        for (size_t i = 0; (i + 1) * bsize[z] <= zone_len(z); i++)
            init_elem(z, r, i, w + zone_off(z) + i * bsize[z]);
}

/* Origin value k of an operation (any base element is a valid value of its type). */
static void origin_elem(const op *o, size_t k, unsigned char *p)
{
    uint64_t h = mix(o->vseed ^ (k * 0x9e3779b97f4a7c15ull));
    switch (o->base) {
    case T_BYTE: *p = (unsigned char)h; break;
    case T_INT: { int v = (int)(h % 2001) - 1000; memcpy(p, &v, 4); break; }
    case T_UINT: { unsigned v = o->kind == K_SHARED ? (unsigned)(h % 1000) : (unsigned)h; memcpy(p, &v, 4); break; }
    case T_DOUBLE: { double v = (double)((int)(h % 2001) - 1000); memcpy(p, &v, 8); break; }
    default: { int v[2] = {(int)(h % 101) - 50, (int)((h >> 20) % 100)}; memcpy(p, v, 8); break; }
    }
}

/* Byte offset (from the region's start) of base element k of the target footprint. */
static size_t elem_off(const op *o, size_t k)
{
    if (o->shape == S_CONTIG)
        return k * bsize[o->base];
    size_t per = (size_t)o->nb * o->bl, e = k / per, r = k % per;
    return e * (size_t)o->ext + ((size_t)o->disp[r / o->bl] + r % o->bl) * bsize[o->base];
}

static size_t footprint(const op *o)
{
    return o->nelem ? elem_off(o, o->nelem - 1) + bsize[o->base] : 0;
}

/* The model's accumulate of one element: t = src op t. */
static void apply(const op *o, const unsigned char *src, unsigned char *t)
{
    MPI_Op m = o->mop;
    if (m == MPI_REPLACE) {
        memcpy(t, src, bsize[o->base]);
        return;
    }
    if (m == MPI_NO_OP)
        return;
    switch (o->base) {
    case T_INT: {
        int a, b;
        memcpy(&a, src, 4), memcpy(&b, t, 4);
        b = m == MPI_SUM ? a + b : m == MPI_MAX ? (a > b ? a : b) : m == MPI_MIN ? (a < b ? a : b) : a ^ b;
        memcpy(t, &b, 4);
        break;
    }
    case T_UINT: {
        unsigned a, b;
        memcpy(&a, src, 4), memcpy(&b, t, 4);
        b = m == MPI_SUM ? a + b : m == MPI_BXOR ? a ^ b : m == MPI_BAND ? a & b : m == MPI_BOR ? a | b : a > b ? a : b;
        memcpy(t, &b, 4);
        break;
    }
    case T_DOUBLE: {
        double a, b;
        memcpy(&a, src, 8), memcpy(&b, t, 8);
        b = m == MPI_SUM ? a + b : m == MPI_MAX ? (a > b ? a : b) : (a < b ? a : b);
        memcpy(t, &b, 8);
        break;
    }
    case T_2INT: {
        int a[2], b[2];
        memcpy(a, src, 8), memcpy(b, t, 8);
        int take = m == MPI_MAXLOC ? (a[0] > b[0] || (a[0] == b[0] && a[1] < b[1]))
                                   : (a[0] < b[0] || (a[0] == b[0] && a[1] < b[1]));
        if (take)
            memcpy(t, a, 8);
        break;
    }
    default: break; /* bytes: REPLACE only */
    }
}

static MPI_Op pick_op(uint64_t *s, int base, int kind)
{
    static const MPI_Op ints[] = {MPI_SUM, MPI_MAX, MPI_MIN, MPI_BXOR, MPI_REPLACE};
    static const MPI_Op uints[] = {MPI_SUM, MPI_BXOR, MPI_BAND, MPI_BOR, MPI_MAX, MPI_REPLACE};
    static const MPI_Op dbls[] = {MPI_SUM, MPI_MAX, MPI_MIN, MPI_REPLACE};
    static const MPI_Op pairs[] = {MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE};
    if (kind == K_GACC || kind == K_FOP)
        if (rn(s, 6) == 0)
            return MPI_NO_OP;
    switch (base) {
    case T_INT: return ints[rn(s, 5)];
    case T_UINT: return uints[rn(s, 6)];
    case T_DOUBLE: return dbls[rn(s, 4)];
    case T_2INT: return pairs[rn(s, 3)];
    default: return MPI_REPLACE;
    }
}

/* The round's operations; the same on every rank. cursor[t][zone] hands out disjoint regions. */
static int gen_round(uint64_t *s, int epoch, op *ops, size_t (*cursor)[NZONE])
{
    int n = 0, want = 2 + rn(s, 3 * size + 6);
    for (int i = 0; i < want && n < MAX_OPS; i++) {
        op o;
        memset(&o, 0, sizeof o);
        o.origin = rn(s, size);
        o.target = rn(s, size);
        o.kind = rn(s, K_SHARED);
        o.base = rn(s, 5);
        if (o.base == T_BYTE && o.kind != K_PUT && o.kind != K_GET)
            o.kind = rn(s, 2) ? K_PUT : K_ACC;
        if (o.kind == K_CAS && (o.base == T_DOUBLE || o.base == T_2INT))
            o.base = T_INT;
        if (o.kind == K_FOP && o.base == T_2INT)
            o.base = T_DOUBLE;
        o.shape = o.kind == K_FOP || o.kind == K_CAS || o.base == T_2INT ? S_CONTIG : rn(s, 4);
        o.req = epoch != E_FENCE && epoch != E_PSCW && o.kind != K_FOP && o.kind != K_CAS && rn(s, 3) == 0;
        o.lock_excl = rn(s, 2);
        o.flush = rn(s, 4);
        o.compute_us = rn(s, 5) == 0 ? rn(s, 300) : 0;
        o.ostrided = o.shape != S_CONTIG && rn(s, 4) == 0;
        o.vseed = rnd(s);
        o.cas_match = rn(s, 2);
        o.mop = o.kind == K_ACC || o.kind == K_GACC || o.kind == K_FOP ? pick_op(s, o.base, o.kind) : MPI_REPLACE;
        if (o.base == T_BYTE && o.kind == K_ACC)
            o.mop = MPI_REPLACE;
        /* element count: mostly small, sometimes medium, now and then large */
        int sz = rn(s, 20);
        size_t maxe = zone_len(o.base) / 2 / bsize[o.base];
        size_t n_el = sz < 15 ? 1 + (size_t)rn(s, 64) : sz < 19 ? 64 + (size_t)rn(s, 4096) : maxe / 2 + (size_t)rn(s, (int)(maxe / 2));
        if (o.kind == K_FOP || o.kind == K_CAS)
            n_el = 1;
        if (o.shape != S_CONTIG) {
            o.nb = 1 + rn(s, MAX_NB);
            o.bl = 1 + rn(s, 4);
            o.stride = o.bl + 1 + rn(s, 3);
            for (int j = 0; j < o.nb; j++)
                o.disp[j] = j * o.stride + (o.shape == S_INDEXED && j > 0 ? rn(s, 2) : 0);
            o.ext = (long)((o.disp[o.nb - 1] + o.bl) * bsize[o.base]);
            if (o.shape == S_RESIZED)
                o.ext += (long)(bsize[o.base] * (size_t)(1 + rn(s, 3)));
            size_t per = (size_t)o.nb * o.bl;
            o.count = (int)((n_el + per - 1) / per);
            n_el = (size_t)o.count * per;
            /* the footprint is up to ext/per bytes per element: keep it in half a zone */
            while (o.count > 1 && (size_t)o.count * (size_t)o.ext > zone_len(o.base) / 2)
                o.count /= 2, n_el = (size_t)o.count * per;
        } else {
            o.count = (int)n_el;
        }
        o.nelem = n_el;
        if (epoch == E_PSCW && o.origin == o.target)
            continue;
        size_t fp = footprint(&o), *c = &cursor[o.target][o.base];
        size_t at = (*c + (size_t)rn(s, 64) + 7) & ~(size_t)7;
        if (at + fp > zone_len(o.base))
            continue;
        *c = at + fp;
        o.off = zone_off(o.base) + at;
        ops[n++] = o;
    }
    /* one region every rank adds into */
    if (rn(s, 2) && n + size <= MAX_OPS && epoch != E_PSCW) {
        int t = rn(s, size);
        size_t nel = 1 + (size_t)rn(s, 256);
        size_t *c = &cursor[t][T_UINT];
        size_t at = (*c + 7) & ~(size_t)7;
        if (at + nel * 4 <= zone_len(T_UINT)) {
            *c = at + nel * 4;
            for (int r = 0; r < size; r++) {
                op o;
                memset(&o, 0, sizeof o);
                o.origin = r, o.target = t, o.kind = K_SHARED, o.base = T_UINT, o.shape = S_CONTIG;
                o.count = (int)nel, o.nelem = nel, o.mop = MPI_SUM, o.vseed = rnd(s);
                o.lock_excl = rn(s, 2), o.off = zone_off(T_UINT) + at;
                ops[n++] = o;
            }
        }
    }
    return n;
}

static MPI_Datatype make_type(const op *o)
{
    MPI_Datatype b = btype(o->base), t, v;
    if (o->shape == S_CONTIG)
        return b;
    if (o->shape == S_INDEXED) {
        MPI_OK(MPI_Type_create_indexed_block(o->nb, o->bl, o->disp, b, &t));
    } else {
        MPI_OK(MPI_Type_vector(o->nb, o->bl, o->stride, b, &v));
        if (o->shape == S_RESIZED) {
            MPI_OK(MPI_Type_create_resized(v, 0, o->ext, &t));
            MPI_OK(MPI_Type_free(&v));
        } else {
            t = v;
        }
    }
    MPI_OK(MPI_Type_commit(&t));
    return t;
}

static void busy(int us)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

/* Runs this rank's operation o; res receives what it fetches (packed, nelem elements). */
static void run_op(const op *o, MPI_Win win, MPI_Aint tbase, unsigned char *res)
{
    size_t bs = bsize[o->base], n = o->nelem;
    MPI_Datatype b = btype(o->base), tt = make_type(o), ot = b;
    int ocount = (int)n;
    unsigned char *src = malloc(2 * n * bs), *dst = malloc(2 * n * bs);
    if (!src || !dst)
        FAIL("out of memory");
    /* origin side: packed, or every other element (a strided origin) */
    for (size_t k = 0; k < n; k++)
        origin_elem(o, k, src + (o->ostrided ? 2 * k : k) * bs);
    if (o->ostrided) {
        MPI_OK(MPI_Type_vector(ocount, 1, 2, b, &ot));
        MPI_OK(MPI_Type_commit(&ot));
        ocount = 1;
    }
    MPI_Aint disp = tbase + (MPI_Aint)o->off;
    int tcount = o->count;
    MPI_Request rq = MPI_REQUEST_NULL;
    switch (o->kind) {
    case K_PUT:
        if (o->req)
            MPI_OK(MPI_Rput(src, ocount, ot, o->target, disp, tcount, tt, win, &rq));
        else
            MPI_OK(MPI_Put(src, ocount, ot, o->target, disp, tcount, tt, win));
        break;
    case K_GET:
        if (o->req)
            MPI_OK(MPI_Rget(dst, ocount, ot, o->target, disp, tcount, tt, win, &rq));
        else
            MPI_OK(MPI_Get(dst, ocount, ot, o->target, disp, tcount, tt, win));
        break;
    case K_ACC:
    case K_SHARED:
        if (o->req)
            MPI_OK(MPI_Raccumulate(src, ocount, ot, o->target, disp, tcount, tt, o->mop, win, &rq));
        else
            MPI_OK(MPI_Accumulate(src, ocount, ot, o->target, disp, tcount, tt, o->mop, win));
        break;
    case K_GACC:
        if (o->req)
            MPI_OK(MPI_Rget_accumulate(src, ocount, ot, dst, ocount, ot, o->target, disp, tcount, tt, o->mop,
                                       win, &rq));
        else
            MPI_OK(MPI_Get_accumulate(src, ocount, ot, dst, ocount, ot, o->target, disp, tcount, tt, o->mop,
                                      win));
        break;
    case K_FOP:
        MPI_OK(MPI_Fetch_and_op(src, dst, b, o->target, disp, o->mop, win));
        break;
    case K_CAS:
        /* compare value: the model's current value (res holds it) or a different one */
        memcpy(src + bs, res, bs);
        if (!o->cas_match)
            src[bs] ^= 1;
        MPI_OK(MPI_Compare_and_swap(src, src + bs, dst, b, o->target, disp, win));
        break;
    }
    if (rq != MPI_REQUEST_NULL)
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    /* fetched values, packed */
    for (size_t k = 0; k < n; k++)
        memcpy(res + k * bs, dst + ((o->ostrided && o->kind != K_FOP && o->kind != K_CAS) ? 2 * k : k) * bs, bs);
    if (o->ostrided)
        MPI_OK(MPI_Type_free(&ot));
    if (tt != b)
        MPI_OK(MPI_Type_free(&tt));
    free(src);
    free(dst);
}

static int fetches(int kind)
{
    return kind == K_GET || kind == K_GACC || kind == K_FOP || kind == K_CAS;
}

/* The model: expected fetch of o (before the round: its region is its own) into exp, then o's
 * effect on the target's shadow. */
static void model(const op *o, unsigned char *shadow, unsigned char *exp)
{
    size_t bs = bsize[o->base];
    unsigned char v[16], *t;
    for (size_t k = 0; k < o->nelem; k++) {
        t = shadow + o->off + elem_off(o, k);
        if (exp)
            memcpy(exp + k * bs, t, bs);
        origin_elem(o, k, v);
        switch (o->kind) {
        case K_PUT: memcpy(t, v, bs); break;
        case K_GET: break;
        case K_CAS:
            if (o->cas_match)
                memcpy(t, v, bs);
            break;
        default: apply(o, v, t); break;
        }
    }
}

static void run_flavor(int flavor, int rounds, uint64_t *s)
{
    unsigned char *mem = NULL;
    MPI_Win win;
    MPI_Aint *bases = calloc((size_t)size, sizeof *bases);
    unsigned char *shadow = malloc((size_t)size * W);
    if (!bases || !shadow)
        FAIL("out of memory");
    if (flavor == F_ALLOCATE) {
        MPI_OK(MPI_Win_allocate(W, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    } else {
        mem = malloc(W);
        if (!mem)
            FAIL("out of memory");
        if (flavor == F_CREATE) {
            MPI_OK(MPI_Win_create(mem, W, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        } else {
            MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
            MPI_OK(MPI_Win_attach(win, mem, W));
            MPI_Aint a;
            MPI_OK(MPI_Get_address(mem, &a));
            MPI_OK(MPI_Allgather(&a, 1, MPI_AINT, bases, 1, MPI_AINT, MPI_COMM_WORLD));
        }
    }
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    init_window(mem, rank);
    for (int r = 0; r < size; r++)
        init_window(shadow + (size_t)r * W, r);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Group world, others;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    MPI_OK(MPI_Group_excl(world, 1, &rank, &others));
    op *ops = malloc(MAX_OPS * sizeof *ops);
    unsigned char *res = malloc(W), *exp = malloc(W);
    size_t (*cursor)[NZONE] = malloc((size_t)size * sizeof *cursor);
    if (!ops || !res || !exp || !cursor)
        FAIL("out of memory");
    for (int round = 0; round < rounds; round++) {
        int epoch = rn(s, E_N);
        memset(cursor, 0, (size_t)size * sizeof *cursor);
        int n = gen_round(s, epoch, ops, cursor);
        if (epoch == E_FENCE)
            MPI_OK(MPI_Win_fence(0, win));
        else if (epoch == E_LOCKALL)
            MPI_OK(MPI_Win_lock_all(0, win));
        else if (epoch == E_PSCW) {
            MPI_OK(MPI_Win_post(others, 0, win));
            MPI_OK(MPI_Win_start(others, 0, win));
        }
        for (int i = 0; i < n; i++) {
            op *o = &ops[i];
            if (o->origin != rank)
                continue;
            if (o->compute_us)
                busy(o->compute_us);
            if (epoch == E_LOCK)
                MPI_OK(MPI_Win_lock(o->lock_excl ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, o->target, 0, win));
            /* CAS compares with the model's current value: only this op touches that element */
            if (o->kind == K_CAS)
                memcpy(res, shadow + (size_t)o->target * W + o->off, bsize[o->base]);
            run_op(o, win, flavor == F_DYNAMIC ? bases[o->target] : 0, res);
            if (epoch == E_LOCKALL && o->flush == 0)
                MPI_OK(MPI_Win_flush(o->target, win));
            else if (epoch == E_LOCKALL && o->flush == 1)
                MPI_OK(MPI_Win_flush_all(win));
            else if (epoch == E_LOCK && o->flush == 0)
                MPI_OK(MPI_Win_flush_local(o->target, win));
            if (epoch == E_LOCK)
                MPI_OK(MPI_Win_unlock(o->target, win));
            /* what it fetched, against the model (before the round: the region is its own) */
            if (fetches(o->kind)) {
                unsigned char *want = shadow + (size_t)o->target * W + o->off;
                size_t bs = bsize[o->base];
                for (size_t k = 0; k < o->nelem; k++)
                    if (memcmp(res + k * bs, want + elem_off(o, k), bs) != 0)
                        FAIL("seed %llu flavor %d round %d op %d (kind %d base %d shape %d, %zu elements, target %d): "
                             "fetched element %zu differs",
                             (unsigned long long)seed, flavor, round, i, o->kind, o->base, o->shape, o->nelem,
                             o->target, k);
            }
        }
        if (epoch == E_FENCE)
            MPI_OK(MPI_Win_fence(0, win));
        else if (epoch == E_LOCKALL)
            MPI_OK(MPI_Win_unlock_all(win));
        else if (epoch == E_PSCW) {
            MPI_OK(MPI_Win_complete(win));
            MPI_OK(MPI_Win_wait(win));
        }
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        for (int i = 0; i < n; i++)
            model(&ops[i], shadow + (size_t)ops[i].target * W, NULL);
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
        int bad = memcmp(mem, shadow + (size_t)rank * W, W);
        if (bad) {
            size_t at = 0;
            while (mem[at] == shadow[(size_t)rank * W + at])
                at++;
            int who = -1;
            for (int i = 0; i < n; i++)
                if (ops[i].target == rank && at >= ops[i].off && at < ops[i].off + footprint(&ops[i]))
                    who = i;
            FAIL("seed %llu flavor %d round %d (epoch %d): window byte %zu is %u, expected %u (op %d)",
                 (unsigned long long)seed, flavor, round, epoch, at, mem[at], shadow[(size_t)rank * W + at], who);
        }
        MPI_OK(MPI_Win_unlock(rank, win));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    MPI_OK(MPI_Group_free(&others));
    MPI_OK(MPI_Group_free(&world));
    if (flavor == F_DYNAMIC)
        MPI_OK(MPI_Win_detach(win, mem));
    MPI_OK(MPI_Win_free(&win));
    if (flavor != F_ALLOCATE)
        free(mem);
    free(ops), free(res), free(exp), free(cursor), free(shadow), free(bases);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned long long sd = (unsigned long long)time(NULL) * 2654435761ull;
    const char *e = getenv("RMA_STRESS_SEED");
    if (argc > 1)
        sd = strtoull(argv[1], NULL, 0);
    else if (e && *e)
        sd = strtoull(e, NULL, 0);
    int rounds = argc > 2 ? atoi(argv[2]) : 10;
    MPI_OK(MPI_Bcast(&sd, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD));
    seed = sd;
    tu_note("seed %llu (replay: mpit_rma_stress %llu %d)", sd, sd, rounds);
#ifdef CREDO_STATS
    credo_net_stats n0, n1;
    const char *x = getenv("CREDO_XPORT");
    int net = x && strcmp(x, "ofi") == 0;
    /* RMA_STRESS_TRANSPORTS=1 (tests/net/rma_hosts.sh): which transport reaches each peer, and
     * this rank's host, for a script that placed the ranks on hosts to check */
    if (getenv("RMA_STRESS_TRANSPORTS")) {
        char host[MPI_MAX_PROCESSOR_NAME];
        int hl = 0;
        MPI_OK(MPI_Get_processor_name(host, &hl));
        for (int p = 0; p < size; p++) {
            char name[16];
            CHECK(credo_peer_transport(p, name, sizeof name) == 0, "credo_peer_transport(%d)", p);
            printf("rma_stress: rank %d host %s peer %d transport %s\n", rank, host, p, name);
        }
        fflush(stdout);
    }
    if (net) {
        for (int p = 0; p < size; p++) {
            char name[16];
            CHECK(credo_peer_transport(p, name, sizeof name) == 0, "credo_peer_transport(%d)", p);
            CHECK(strcmp(name, p == rank ? "self" : "ofi") == 0, "peer %d is on %s", p, name);
        }
        CHECK(credo_net_stats_get(&n0) == 0, "credo_net_stats_get");
    }
#endif
    /* MPI_Win_allocate_shared: works on one node, refused (MPI_ERR_RMA_SHARED) over several */
    MPI_Comm node;
    int nodesize, cls = -1;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_OK(MPI_Comm_size(node, &nodesize));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    void *sbase = NULL;
    MPI_Win swin = MPI_WIN_NULL;
    int src = MPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &sbase, &swin);
    MPI_Error_class(src, &cls);
    if (nodesize == size) {
        CHECK(src == MPI_SUCCESS, "MPI_Win_allocate_shared on one node failed (%d)", src);
        MPI_OK(MPI_Win_free(&swin));
    } else {
        CHECK(cls == MPI_ERR_RMA_SHARED, "MPI_Win_allocate_shared across nodes: class %d", cls);
        tu_note("MPI_Win_allocate_shared across %d-rank nodes of %d ranks refused", nodesize, size);
    }
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    MPI_OK(MPI_Comm_free(&node));
    uint64_t s = mix(seed);
    for (int f = 0; f < F_N; f++) {
        run_flavor(f, rounds, &s);
        tu_note("%s: %d rounds", f == F_ALLOCATE ? "MPI_Win_allocate" : f == F_CREATE ? "MPI_Win_create" : "dynamic",
                rounds);
    }
    /* Refusals: a dynamic window with nothing attached at an address (4096 is never mapped);
     * the target's own check (network) or the kernel (CMA) refuses with MPI_ERR_RMA_RANGE, raised
     * through the window's handler. */
    {
        MPI_Win dw;
        MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dw));
        MPI_OK(MPI_Win_set_errhandler(dw, MPI_ERRORS_RETURN));
        int peer = (rank + 1) % size, one = 1, got = 0, c = -1;
        MPI_OK(MPI_Win_lock_all(0, dw));
        int rcs[4] = {MPI_Put(&one, 1, MPI_INT, peer, 4096, 1, MPI_INT, dw),
                      MPI_Get(&got, 1, MPI_INT, peer, 4096, 1, MPI_INT, dw),
                      MPI_Accumulate(&one, 1, MPI_INT, peer, 4096, 1, MPI_INT, MPI_SUM, dw),
                      MPI_Fetch_and_op(&one, &got, MPI_INT, peer, 4096, MPI_SUM, dw)};
        for (int i = 0; i < 4; i++) {
            MPI_Error_class(rcs[i], &c);
            CHECK(c == MPI_ERR_RMA_RANGE, "call %d on an unattached address of rank %d: class %d", i, peer, c);
        }
        MPI_OK(MPI_Win_unlock_all(dw));
        MPI_OK(MPI_Win_free(&dw));
        tu_note("unattached addresses refused");
    }
#ifdef CREDO_STATS
    if (net && size > 1) {
        CHECK(credo_net_stats_get(&n1) == 0, "credo_net_stats_get");
        CHECK(n1.packets_sent > n0.packets_sent, "no packets over the network (%llu)",
              (unsigned long long)n1.packets_sent);
    }
#endif
    MPI_Finalize();
    return 0;
}
