/* tests/mpi/dtypes.c — derived datatypes: every constructor's bounds and typemap (checked through
 * Pack/Unpack against hand-computed layouts), subarray halo exchanges (2-D and 3-D, C and Fortran
 * order, faces above the eager limit), a collective with derived types, envelope/contents round
 * trips for every combiner, Type_match_size, names, and argument errors. np 2-4. */
#include "testutil.h"

#include <limits.h>
#include <stddef.h>

static int rank, size;
static MPI_Comm W;

/* ---- layouts ------------------------------------------------------------------------------ */

/* Address `off` bytes from p, without pointer arithmetic outside the allocation. */
static void *at(void *p, MPI_Aint off) {
    return (void *)((uintptr_t)p + (uintptr_t)off);
}

/* count elements of dt must be exactly the bytes (off[k], len[k]) of one element, in this order,
 * shifted by c * ext for element c: Pack must produce them from a patterned buffer, Unpack must
 * write them back and nothing else. */
static void check_layout(MPI_Datatype dt, int count, MPI_Aint ext, int n, const MPI_Aint *off,
                         const int *len, const char *what) {
    MPI_Aint lo = 0, hi = 0;
    size_t total = 0;
    for (int c = 0; c < count; c++)
        for (int k = 0; k < n; k++) {
            MPI_Aint a = c * ext + off[k];
            if (total == 0 || a < lo)
                lo = a;
            if (total == 0 || a + len[k] > hi)
                hi = a + len[k];
            total += (size_t)len[k];
        }
    size_t span = (size_t)(hi - lo) + 64;
    unsigned char *src = tu_xmalloc(span), *dst = tu_xmalloc(span), *mask = tu_xcalloc(span, 1);
    unsigned char *packed = tu_xmalloc(total + 1), *expect = tu_xmalloc(total + 1);
    MPI_Aint org = 32 - lo; /* index of address 0 of the element buffer */
    tu_fill(src, span, rank, 7);
    size_t pos = 0;
    for (int c = 0; c < count; c++)
        for (int k = 0; k < n; k++) {
            MPI_Aint a = org + c * ext + off[k];
            memcpy(expect + pos, src + a, (size_t)len[k]);
            memset(mask + a, 1, (size_t)len[k]);
            pos += (size_t)len[k];
        }
    int tsize = -1, psize = -1, p = 0;
    MPI_OK(MPI_Type_size(dt, &tsize));
    CHECK((size_t)tsize * (size_t)count == total, "%s: Type_size %d, expected %zu", what, tsize,
          total / (size_t)(count ? count : 1));
    MPI_OK(MPI_Pack_size(count, dt, W, &psize));
    CHECK((size_t)psize >= total, "%s: Pack_size %d < %zu", what, psize, total);
    MPI_OK(MPI_Pack(at(src, org), count, dt, packed, psize, &p, W));
    CHECK((size_t)p == total, "%s: Pack advanced position to %d, expected %zu", what, p, total);
    for (size_t i = 0; i < total; i++)
        CHECK(packed[i] == expect[i], "%s: packed byte %zu is %u, expected %u", what, i, packed[i],
              expect[i]);
    memset(dst, TU_CANARY, span);
    p = 0;
    MPI_OK(MPI_Unpack(packed, (int)total, &p, at(dst, org), count, dt, W));
    CHECK((size_t)p == total, "%s: Unpack advanced position to %d, expected %zu", what, p, total);
    for (size_t i = 0; i < span; i++) {
        if (mask[i])
            CHECK(dst[i] == src[i], "%s: unpacked byte at %lld is %u, expected %u", what,
                  (long long)((MPI_Aint)i - org), dst[i], src[i]);
        else
            CHECK(dst[i] == TU_CANARY, "%s: Unpack wrote byte at offset %lld outside the typemap",
                  what, (long long)((MPI_Aint)i - org));
    }
    free(src);
    free(dst);
    free(mask);
    free(packed);
    free(expect);
}

/* Bounds (also through the _x queries) and the layout of 1 and 3 elements. */
static void check_type(MPI_Datatype dt, const char *what, MPI_Aint lb, MPI_Aint ext, MPI_Aint tlb,
                       MPI_Aint text, int n, const MPI_Aint *off, const int *len) {
    MPI_Aint l, e;
    MPI_Count lx, ex;
    MPI_OK(MPI_Type_get_extent(dt, &l, &e));
    CHECK(l == lb && e == ext, "%s: lb/extent %lld/%lld, expected %lld/%lld", what, (long long)l,
          (long long)e, (long long)lb, (long long)ext);
    MPI_OK(MPI_Type_get_true_extent(dt, &l, &e));
    CHECK(l == tlb && e == text, "%s: true lb/extent %lld/%lld, expected %lld/%lld", what,
          (long long)l, (long long)e, (long long)tlb, (long long)text);
    MPI_OK(MPI_Type_get_extent_x(dt, &lx, &ex));
    CHECK(lx == lb && ex == ext, "%s: extent_x %lld/%lld", what, lx, ex);
    MPI_OK(MPI_Type_get_true_extent_x(dt, &lx, &ex));
    CHECK(lx == tlb && ex == text, "%s: true_extent_x %lld/%lld", what, lx, ex);
    check_layout(dt, 1, ext, n, off, len, what);
    check_layout(dt, 3, ext, n, off, len, what);
}

#define OFFS(...) ((const MPI_Aint[]){__VA_ARGS__})
#define LENS(...) ((const int[]){__VA_ARGS__})
#define NARGS(...) ((int)(sizeof((const MPI_Aint[]){__VA_ARGS__}) / sizeof(MPI_Aint)))

static MPI_Datatype commit(MPI_Datatype t) {
    MPI_OK(MPI_Type_commit(&t));
    return t;
}

/* Two types with the same typemap and bounds: equal sizes and extents, and 2 elements pack to
 * the same bytes and unpack to the same buffer. */
static void same_typemap(MPI_Datatype a, MPI_Datatype b, const char *what) {
    MPI_Aint la, ea, lb, eb, tla, tea, tlb, teb;
    int sa, sb;
    MPI_OK(MPI_Type_get_extent(a, &la, &ea));
    MPI_OK(MPI_Type_get_extent(b, &lb, &eb));
    MPI_OK(MPI_Type_get_true_extent(a, &tla, &tea));
    MPI_OK(MPI_Type_get_true_extent(b, &tlb, &teb));
    MPI_OK(MPI_Type_size(a, &sa));
    MPI_OK(MPI_Type_size(b, &sb));
    CHECK(la == lb && ea == eb && tla == tlb && tea == teb && sa == sb,
          "%s: bounds differ (%lld/%lld/%lld/%lld/%d vs %lld/%lld/%lld/%lld/%d)", what,
          (long long)la, (long long)ea, (long long)tla, (long long)tea, sa, (long long)lb,
          (long long)eb, (long long)tlb, (long long)teb, sb);
    MPI_Aint lo = tla < tla + ea ? tla : tla + ea, hi = (tla > tla + ea ? tla : tla + ea) + tea;
    size_t span = (size_t)(hi - lo) + 64;
    unsigned char *src = tu_xmalloc(span), *da = tu_xmalloc(span), *db = tu_xmalloc(span);
    unsigned char *pa = tu_xmalloc(2 * (size_t)sa + 1), *pb = tu_xmalloc(2 * (size_t)sa + 1);
    MPI_Aint org = 32 - lo;
    tu_fill(src, span, rank, 11);
    int qa = 0, qb = 0;
    MPI_OK(MPI_Pack(at(src, org), 2, a, pa, 2 * sa, &qa, W));
    MPI_OK(MPI_Pack(at(src, org), 2, b, pb, 2 * sa, &qb, W));
    CHECK(qa == qb && memcmp(pa, pb, (size_t)qa) == 0, "%s: packed bytes differ", what);
    memset(da, TU_CANARY, span);
    memset(db, TU_CANARY, span);
    qa = qb = 0;
    MPI_OK(MPI_Unpack(pa, 2 * sa, &qa, at(da, org), 2, a, W));
    MPI_OK(MPI_Unpack(pa, 2 * sa, &qb, at(db, org), 2, b, W));
    CHECK(memcmp(da, db, span) == 0, "%s: unpacked buffers differ", what);
    free(src);
    free(da);
    free(db);
    free(pa);
    free(pb);
}

/* ---- array index helpers (C: last index fastest; Fortran: first index fastest) ------------- */

static long lin_of(const int *idx, const int *sizes, int nd, int order) {
    long l = 0;
    if (order == MPI_ORDER_C)
        for (int d = 0; d < nd; d++)
            l = l * sizes[d] + idx[d];
    else
        for (int d = nd - 1; d >= 0; d--)
            l = l * sizes[d] + idx[d];
    return l;
}

static void idx_of(long lin, int *idx, const int *sizes, int nd, int order) {
    if (order == MPI_ORDER_C)
        for (int d = nd - 1; d >= 0; d--) {
            idx[d] = (int)(lin % sizes[d]);
            lin /= sizes[d];
        }
    else
        for (int d = 0; d < nd; d++) {
            idx[d] = (int)(lin % sizes[d]);
            lin /= sizes[d];
        }
}

static long prod(const int *v, int n) {
    long p = 1;
    for (int i = 0; i < n; i++)
        p *= v[i];
    return p;
}

/* The elements (of esz bytes) a predicate selects, in memory order, as a layout. */
typedef int (*elem_pred)(const int *idx, const void *arg);
static int layout_of(const int *sizes, int nd, int order, int esz, elem_pred sel, const void *arg,
                     MPI_Aint **off, int **len) {
    long total = prod(sizes, nd);
    *off = tu_xmalloc((size_t)total * sizeof **off);
    *len = tu_xmalloc((size_t)total * sizeof **len);
    int n = 0, idx[8];
    for (long l = 0; l < total; l++) {
        idx_of(l, idx, sizes, nd, order);
        if (sel(idx, arg)) {
            (*off)[n] = (MPI_Aint)l * esz;
            (*len)[n] = esz;
            n++;
        }
    }
    return n;
}

typedef struct sub_arg {
    int nd;
    const int *sub, *start;
} sub_arg;
static int in_subarray(const int *idx, const void *argv) {
    const sub_arg *a = argv;
    for (int d = 0; d < a->nd; d++)
        if (idx[d] < a->start[d] || idx[d] >= a->start[d] + a->sub[d])
            return 0;
    return 1;
}

/* darray ownership straight from the distribution definitions: the owner coordinate of index i
 * is i / darg (block) or (i / darg) mod p (cyclic); the process grid is row-major. */
typedef struct darr_arg {
    int nd, rank;
    const int *gsizes, *distribs, *dargs, *psizes;
} darr_arg;
static int owned(const int *idx, const void *argv) {
    const darr_arg *a = argv;
    int r = a->rank;
    for (int d = a->nd - 1; d >= 0; d--) {
        int coord = r % a->psizes[d], g = a->gsizes[d], p = a->psizes[d], darg = a->dargs[d];
        r /= a->psizes[d];
        int owner;
        if (a->distribs[d] == MPI_DISTRIBUTE_NONE) {
            owner = 0;
        } else if (a->distribs[d] == MPI_DISTRIBUTE_BLOCK) {
            if (darg == MPI_DISTRIBUTE_DFLT_DARG)
                darg = (g + p - 1) / p;
            owner = idx[d] / darg;
        } else {
            if (darg == MPI_DISTRIBUTE_DFLT_DARG)
                darg = 1;
            owner = (idx[d] / darg) % p;
        }
        if (owner != coord)
            return 0;
    }
    return 1;
}

/* ---- constructors: bounds and typemaps against hand-computed values ------------------------ */

static void test_constructors(void) {
    MPI_Datatype t;
    const MPI_Aint I = sizeof(int), D = sizeof(double), S = sizeof(short);

    MPI_OK(MPI_Type_contiguous(3, MPI_INT, &t));
    t = commit(t);
    check_type(t, "contiguous(3, int)", 0, 3 * I, 0, 3 * I, 1, OFFS(0), LENS(3 * I));
    MPI_OK(MPI_Type_free(&t));
    CHECK(t == MPI_DATATYPE_NULL, "Type_free did not reset the handle");

    MPI_OK(MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &t));
    t = commit(t);
    check_type(t, "vector(3,2,4,double)", 0, 10 * D, 0, 10 * D, 3, OFFS(0, 4 * D, 8 * D),
               LENS(2 * D, 2 * D, 2 * D));
    MPI_OK(MPI_Type_free(&t));

    /* Negative stride: the second block lies below the first. */
    MPI_OK(MPI_Type_create_hvector(2, 3, -40, MPI_INT, &t));
    t = commit(t);
    check_type(t, "hvector(2,3,-40,int)", -40, 40 + 3 * I, -40, 40 + 3 * I, 2, OFFS(0, -40),
               LENS(3 * I, 3 * I));
    MPI_OK(MPI_Type_free(&t));

    /* A vector whose blocks touch is one block (stride == blocklength). */
    MPI_OK(MPI_Type_vector(4, 2, 2, MPI_INT, &t));
    t = commit(t);
    check_type(t, "vector(4,2,2,int)", 0, 8 * I, 0, 8 * I, 1, OFFS(0), LENS(8 * I));
    MPI_OK(MPI_Type_free(&t));

    MPI_OK(MPI_Type_indexed(3, (int[]){2, 1, 3}, (int[]){4, 0, 10}, MPI_INT, &t));
    t = commit(t);
    check_type(t, "indexed", 0, 13 * I, 0, 13 * I, 3, OFFS(4 * I, 0, 10 * I),
               LENS(2 * I, I, 3 * I));
    MPI_OK(MPI_Type_free(&t));

    /* Adjacent blocks in typemap order merge; the zero-length block is no element. */
    MPI_OK(MPI_Type_indexed(4, (int[]){2, 0, 3, 1}, (int[]){0, 9, 2, 7}, MPI_INT, &t));
    t = commit(t);
    check_type(t, "indexed adjacent", 0, 8 * I, 0, 8 * I, 2, OFFS(0, 7 * I), LENS(5 * I, I));
    MPI_OK(MPI_Type_free(&t));

    MPI_OK(MPI_Type_create_hindexed(2, (int[]){1, 2}, (MPI_Aint[]){-16, 8}, MPI_DOUBLE, &t));
    t = commit(t);
    check_type(t, "hindexed", -16, 24 + 16, -16, 40, 2, OFFS(-16, 8), LENS(D, 2 * D));
    MPI_OK(MPI_Type_free(&t));

    MPI_OK(MPI_Type_create_indexed_block(3, 2, (int[]){5, 1, -2}, MPI_SHORT, &t));
    t = commit(t);
    check_type(t, "indexed_block", -2 * S, 9 * S, -2 * S, 9 * S, 3, OFFS(5 * S, S, -2 * S),
               LENS(2 * S, 2 * S, 2 * S));
    MPI_OK(MPI_Type_free(&t));

    MPI_OK(MPI_Type_create_hindexed_block(2, 1, (MPI_Aint[]){0, 100}, MPI_INT, &t));
    t = commit(t);
    check_type(t, "hindexed_block", 0, 100 + I, 0, 100 + I, 2, OFFS(0, 100), LENS(I, I));
    MPI_OK(MPI_Type_free(&t));

    /* count 0 with no displacement array at all (the UB sanitizer caught memcpy from NULL). */
    int zsz = -1;
    MPI_OK(MPI_Type_create_indexed_block(0, 2, NULL, MPI_INT, &t));
    MPI_OK(MPI_Type_size(t, &zsz));
    CHECK(zsz == 0, "indexed_block of 0 blocks has size %d", zsz);
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_create_hindexed_block(0, 2, NULL, MPI_INT, &t));
    MPI_OK(MPI_Type_size(t, &zsz));
    CHECK(zsz == 0, "hindexed_block of 0 blocks has size %d", zsz);
    MPI_OK(MPI_Type_free(&t));

    /* C-struct-like: the extent is padded to the alignment of double (that of struct s). */
    struct s {
        int i;
        double d;
        char c;
    };
    MPI_OK(MPI_Type_create_struct(3, (int[]){1, 1, 1},
                                  (MPI_Aint[]){offsetof(struct s, i), offsetof(struct s, d),
                                                offsetof(struct s, c)},
                                  (MPI_Datatype[]){MPI_INT, MPI_DOUBLE, MPI_CHAR}, &t));
    t = commit(t);
    check_type(t, "struct{int,double,char}", 0, sizeof(struct s), 0, offsetof(struct s, c) + 1, 3,
               OFFS(offsetof(struct s, i), offsetof(struct s, d), offsetof(struct s, c)),
               LENS(I, D, 1));
    MPI_OK(MPI_Type_free(&t));

    /* resized: lb -4, extent 16 around one int at 0. */
    MPI_Datatype r16;
    MPI_OK(MPI_Type_create_resized(MPI_INT, -4, 16, &r16));
    r16 = commit(r16);
    check_type(r16, "resized(int,-4,16)", -4, 16, 0, I, 1, OFFS(0), LENS(I));
    MPI_OK(MPI_Type_contiguous(2, r16, &t));
    t = commit(t);
    check_type(t, "contiguous(2,resized)", -4, 32, 0, 16 + I, 2, OFFS(0, 16), LENS(I, I));
    MPI_OK(MPI_Type_free(&t));
    /* The resized bounds are explicit: in a struct they hide the int at -100 from the lb and the
     * extent gets no alignment padding. */
    MPI_OK(MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, -100},
                                  (MPI_Datatype[]){r16, MPI_INT}, &t));
    t = commit(t);
    check_type(t, "struct{resized,int at -100}", -4, 16, -100, 100 + I, 2, OFFS(0, -100),
               LENS(I, I));
    MPI_OK(MPI_Type_free(&t));
    /* A resized contiguous type (dense data, holes between elements). */
    MPI_Datatype c2;
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &c2));
    MPI_OK(MPI_Type_create_resized(c2, 0, 3 * I, &t));
    t = commit(t);
    check_type(t, "resized(contiguous(2,int),0,12)", 0, 3 * I, 0, 2 * I, 1, OFFS(0), LENS(2 * I));
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_free(&c2));

    /* dup: the same typemap and bounds. */
    MPI_OK(MPI_Type_dup(r16, &t));
    check_type(t, "dup(resized)", -4, 16, 0, I, 1, OFFS(0), LENS(I));
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_free(&r16));

    /* subarray 6x8 ints, 2x3 at (1,2): C order rows of 3, Fortran order columns of 2. */
    MPI_OK(MPI_Type_create_subarray(2, (int[]){6, 8}, (int[]){2, 3}, (int[]){1, 2}, MPI_ORDER_C,
                                    MPI_INT, &t));
    t = commit(t);
    check_type(t, "subarray C", 0, 48 * I, 10 * I, 11 * I, 2, OFFS(10 * I, 18 * I),
               LENS(3 * I, 3 * I));
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_create_subarray(2, (int[]){6, 8}, (int[]){2, 3}, (int[]){1, 2},
                                    MPI_ORDER_FORTRAN, MPI_INT, &t));
    t = commit(t);
    check_type(t, "subarray Fortran", 0, 48 * I, 13 * I, 14 * I, 3, OFFS(13 * I, 19 * I, 25 * I),
               LENS(2 * I, 2 * I, 2 * I));
    MPI_OK(MPI_Type_free(&t));
    /* Full rows are one block; the whole array is dense. */
    MPI_OK(MPI_Type_create_subarray(3, (int[]){3, 4, 5}, (int[]){2, 4, 5}, (int[]){1, 0, 0},
                                    MPI_ORDER_C, MPI_DOUBLE, &t));
    t = commit(t);
    check_type(t, "subarray full rows", 0, 60 * D, 20 * D, 40 * D, 1, OFFS(20 * D), LENS(40 * D));
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_create_subarray(2, (int[]){3, 4}, (int[]){3, 4}, (int[]){0, 0}, MPI_ORDER_C,
                                    MPI_INT, &t));
    t = commit(t);
    check_type(t, "subarray whole", 0, 12 * I, 0, 12 * I, 1, OFFS(0), LENS(12 * I));
    MPI_OK(MPI_Type_free(&t));

    /* 3-D subarrays of a non-contiguous old type (a resized pair), both orders, brute force. */
    MPI_Datatype pair;
    MPI_OK(MPI_Type_create_resized(MPI_SHORT, 0, 2 * S, &pair));
    for (int order = 0; order < 2; order++) {
        int ord = order ? MPI_ORDER_FORTRAN : MPI_ORDER_C;
        int sizes[3] = {4, 5, 6}, sub[3] = {2, 3, 4}, start[3] = {1, 2, 0};
        MPI_OK(MPI_Type_create_subarray(3, sizes, sub, start, ord, pair, &t));
        t = commit(t);
        MPI_Aint *off;
        int *len;
        sub_arg a = {3, sub, start};
        int n = layout_of(sizes, 3, ord, (int)(2 * S), in_subarray, &a, &off, &len);
        for (int k = 0; k < n; k++)
            len[k] = (int)S; /* the short at the start of each pair */
        MPI_Aint tl = off[0], te = off[n - 1] + S - off[0];
        check_type(t, order ? "subarray 3-D Fortran of pairs" : "subarray 3-D C of pairs", 0,
                   120 * 2 * S, tl, te, n, off, len);
        free(off);
        free(len);
        MPI_OK(MPI_Type_free(&t));
    }
    MPI_OK(MPI_Type_free(&pair));

    /* Struct of two subarrays (a 2x2 corner of a 4x4 and a 1x2 row of a 3x3 at byte 1000): the
     * subarrays' explicit bounds give lb 0 and ub 1000 + 9 ints. */
    MPI_Datatype sa, sb;
    MPI_OK(MPI_Type_create_subarray(2, (int[]){4, 4}, (int[]){2, 2}, (int[]){2, 2}, MPI_ORDER_C,
                                    MPI_INT, &sa));
    MPI_OK(MPI_Type_create_subarray(2, (int[]){3, 3}, (int[]){1, 2}, (int[]){1, 0}, MPI_ORDER_C,
                                    MPI_INT, &sb));
    MPI_OK(MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 1000},
                                  (MPI_Datatype[]){sa, sb}, &t));
    MPI_OK(MPI_Type_free(&sa)); /* the struct keeps its own reference */
    MPI_OK(MPI_Type_free(&sb));
    t = commit(t);
    check_type(t, "struct of subarrays", 0, 1000 + 9 * I, 10 * I, 1000 + 5 * I - 10 * I, 3,
               OFFS(10 * I, 14 * I, 1000 + 3 * I), LENS(2 * I, 2 * I, 2 * I));
    MPI_OK(MPI_Type_free(&t));

    /* darray: every rank of a 2x2 grid over 8x6 (block rows, cyclic(2) columns, C order) and of a
     * 3x1 grid over 7x5 (cyclic rows, none columns, Fortran order), against brute force. */
    struct {
        int nprocs, order, g[2], dist[2], darg[2], ps[2];
    } cases[] = {
        {4, MPI_ORDER_C, {8, 6}, {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
         {MPI_DISTRIBUTE_DFLT_DARG, 2}, {2, 2}},
        {3, MPI_ORDER_FORTRAN, {7, 5}, {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE},
         {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, {3, 1}},
        /* the third column block starts at 6: those ranks own nothing */
        {6, MPI_ORDER_C, {5, 6}, {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK},
         {MPI_DISTRIBUTE_DFLT_DARG, 3}, {2, 3}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        long covered = 0;
        for (int r = 0; r < cases[c].nprocs; r++) {
            MPI_OK(MPI_Type_create_darray(cases[c].nprocs, r, 2, cases[c].g, cases[c].dist,
                                          cases[c].darg, cases[c].ps, cases[c].order, MPI_INT,
                                          &t));
            t = commit(t);
            darr_arg a = {2, r, cases[c].g, cases[c].dist, cases[c].darg, cases[c].ps};
            MPI_Aint *off;
            int *len;
            int n = layout_of(cases[c].g, 2, cases[c].order, (int)I, owned, &a, &off, &len);
            char what[64];
            snprintf(what, sizeof what, "darray case %zu rank %d", c, r);
            MPI_Aint tl = n ? off[0] : 0, te = n ? off[n - 1] + I - off[0] : 0;
            check_type(t, what, 0, prod(cases[c].g, 2) * I, tl, te, n, off, len);
            covered += n;
            free(off);
            free(len);
            MPI_OK(MPI_Type_free(&t));
        }
        CHECK(covered == prod(cases[c].g, 2), "darray case %zu: ranks own %ld of %ld elements", c,
              covered, prod(cases[c].g, 2));
    }
    tu_note("constructors: bounds and typemaps of every constructor");
}

/* ---- halo exchanges with subarray faces ---------------------------------------------------- */

static double cell(int r, long lin) {
    return r * 16777216.0 + (double)lin;
}

/* Each rank sends the last interior plane of dimension fd to its right neighbour, which receives
 * it into its ghost plane 0 of that dimension; every element of the array is then checked. */
static void halo(int nd, const int *sizes, int order, int fd, int nonblocking) {
    long total = prod(sizes, nd);
    double *a = tu_xmalloc((size_t)total * sizeof *a);
    for (long l = 0; l < total; l++)
        a[l] = cell(rank, l);
    int sub[3], ssend[3], srecv[3];
    for (int d = 0; d < nd; d++) {
        sub[d] = sizes[d] - 2;
        ssend[d] = srecv[d] = 1;
    }
    sub[fd] = 1;
    ssend[fd] = sizes[fd] - 2;
    srecv[fd] = 0;
    MPI_Datatype ts, tr;
    MPI_OK(MPI_Type_create_subarray(nd, sizes, sub, ssend, order, MPI_DOUBLE, &ts));
    MPI_OK(MPI_Type_create_subarray(nd, sizes, sub, srecv, order, MPI_DOUBLE, &tr));
    ts = commit(ts);
    tr = commit(tr);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Status st;
    if (nonblocking) {
        MPI_Request rq[2];
        MPI_OK(MPI_Irecv(a, 1, tr, left, 5, W, &rq[0]));
        MPI_OK(MPI_Isend(a, 1, ts, right, 5, W, &rq[1]));
        MPI_Status sts[2];
        MPI_OK(MPI_Waitall(2, rq, sts));
        st = sts[0];
    } else {
        MPI_OK(MPI_Sendrecv(a, 1, ts, right, 5, a, 1, tr, left, 5, W, &st));
    }
    long face = prod(sub, nd);
    int cnt = -1, elems = -1;
    MPI_OK(MPI_Get_count(&st, tr, &cnt));
    MPI_OK(MPI_Get_elements(&st, tr, &elems));
    char what[96];
    snprintf(what, sizeof what, "%d-D %s halo, face dim %d, %ld doubles%s", nd,
             order == MPI_ORDER_C ? "C" : "Fortran", fd, face, nonblocking ? " (nonblocking)" : "");
    CHECK(cnt == 1 && elems == face, "%s: Get_count %d, Get_elements %d", what, cnt, elems);
    int idx[3];
    for (long l = 0; l < total; l++) {
        idx_of(l, idx, sizes, nd, order);
        int in_face = idx[fd] == 0;
        for (int d = 0; d < nd && in_face; d++)
            if (d != fd && (idx[d] < 1 || idx[d] > sizes[d] - 2))
                in_face = 0;
        double expect = cell(rank, l);
        if (in_face) {
            idx[fd] = sizes[fd] - 2;
            expect = cell(left, lin_of(idx, sizes, nd, order));
        }
        CHECK(a[l] == expect, "%s: element %ld is %.0f, expected %.0f", what, l, a[l], expect);
    }
    MPI_OK(MPI_Type_free(&ts));
    MPI_OK(MPI_Type_free(&tr));
    free(a);
    tu_note("%s", what);
}

static void test_halos(void) {
    for (int fd = 0; fd < 2; fd++) {
        halo(2, (int[]){8, 7}, MPI_ORDER_C, fd, fd);
        halo(2, (int[]){8, 7}, MPI_ORDER_FORTRAN, fd, !fd);
    }
    for (int fd = 0; fd < 3; fd++) {
        halo(3, (int[]){6, 5, 4}, MPI_ORDER_C, fd, 0);
        halo(3, (int[]){6, 5, 4}, MPI_ORDER_FORTRAN, fd, 1);
    }
    /* 256x256 double planes (512 KiB, far above the eager limit) with the fastest dimension
     * fixed: 65536 separate doubles per face through the rendezvous path. */
    halo(3, (int[]){258, 258, 4}, MPI_ORDER_C, 2, 0);
    halo(3, (int[]){4, 258, 258}, MPI_ORDER_FORTRAN, 0, 1);
    halo(3, (int[]){258, 4, 258}, MPI_ORDER_C, 1, 1);
}

/* ---- collectives with derived types ------------------------------------------------------- */

static void test_collectives(void) {
    /* Allgather of each rank's 2x3 interior of a 4x5 array into the columns 3r..3r+2 of a
     * 2 x 3*size array: a subarray send type and a resized subarray receive type. */
    int loc[4][5];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 5; j++)
            loc[i][j] = rank * 100 + i * 5 + j;
    MPI_Datatype st, blk, rt;
    MPI_OK(MPI_Type_create_subarray(2, (int[]){4, 5}, (int[]){2, 3}, (int[]){1, 1}, MPI_ORDER_C,
                                    MPI_INT, &st));
    st = commit(st);
    MPI_OK(MPI_Type_create_subarray(2, (int[]){2, 3 * size}, (int[]){2, 3}, (int[]){0, 0},
                                    MPI_ORDER_C, MPI_INT, &blk));
    MPI_OK(MPI_Type_create_resized(blk, 0, 3 * sizeof(int), &rt));
    rt = commit(rt);
    int *glob = tu_xmalloc((size_t)6 * size * sizeof(int));
    for (int i = 0; i < 6 * size; i++)
        glob[i] = -1;
    MPI_OK(MPI_Allgather(loc, 1, st, glob, 1, rt, W));
    for (int r = 0; r < size; r++)
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 3; j++) {
                int got = glob[i * 3 * size + 3 * r + j], want = r * 100 + (i + 1) * 5 + j + 1;
                CHECK(got == want, "Allgather subarray: rank %d block (%d,%d) is %d, expected %d",
                      r, i, j, got, want);
            }
    /* The same with a plain receive type. */
    for (int i = 0; i < 6 * size; i++)
        glob[i] = -1;
    MPI_OK(MPI_Allgather(loc, 1, st, glob, 6, MPI_INT, W));
    for (int r = 0; r < size; r++)
        for (int k = 0; k < 6; k++) {
            int want = r * 100 + (k / 3 + 1) * 5 + k % 3 + 1;
            CHECK(glob[6 * r + k] == want, "Allgather to ints: [%d] is %d, expected %d", 6 * r + k,
                  glob[6 * r + k], want);
        }
    free(glob);
    MPI_OK(MPI_Type_free(&st));
    MPI_OK(MPI_Type_free(&blk));
    MPI_OK(MPI_Type_free(&rt));

    /* Bcast of a 256x256 face (non-contiguous, above the eager limit) from rank 0. */
    int sizes[3] = {258, 258, 4};
    long total = prod(sizes, 3);
    double *a = tu_xmalloc((size_t)total * sizeof *a);
    for (long l = 0; l < total; l++)
        a[l] = cell(rank, l);
    MPI_Datatype face;
    MPI_OK(MPI_Type_create_subarray(3, sizes, (int[]){256, 256, 1}, (int[]){1, 1, 3}, MPI_ORDER_C,
                                    MPI_DOUBLE, &face));
    face = commit(face);
    MPI_OK(MPI_Bcast(a, 1, face, 0, W));
    int idx[3];
    for (long l = 0; l < total; l++) {
        idx_of(l, idx, sizes, 3, MPI_ORDER_C);
        int in = idx[2] == 3 && idx[0] >= 1 && idx[0] <= 256 && idx[1] >= 1 && idx[1] <= 256;
        double want = cell(in ? 0 : rank, l);
        CHECK(a[l] == want, "Bcast face: element %ld is %.0f, expected %.0f", l, a[l], want);
    }
    MPI_OK(MPI_Type_free(&face));
    free(a);

    /* Allreduce (sum) over the 3x2 interior of a 5x4 array of doubles; the border is untouched. */
    double in[5][4], out[5][4];
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 4; j++) {
            in[i][j] = (rank + 1) * 10.0 + i * 4 + j;
            out[i][j] = -1.0;
        }
    MPI_Datatype inner;
    MPI_OK(MPI_Type_create_subarray(2, (int[]){5, 4}, (int[]){3, 2}, (int[]){1, 1}, MPI_ORDER_C,
                                    MPI_DOUBLE, &inner));
    inner = commit(inner);
    MPI_OK(MPI_Allreduce(in, out, 1, inner, MPI_SUM, W));
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 4; j++) {
            int interior = i >= 1 && i <= 3 && j >= 1 && j <= 2;
            double want = interior ? 10.0 * size * (size + 1) / 2 + size * (i * 4 + j) : -1.0;
            CHECK(out[i][j] == want, "Allreduce subarray: [%d][%d] is %g, expected %g", i, j,
                  out[i][j], want);
        }
    MPI_OK(MPI_Type_free(&inner));
    tu_note("collectives: Allgather of subarrays, Bcast of a 256x256 face, Allreduce of a subarray");
}

/* ---- Pack / Unpack sequences ------------------------------------------------------------------ */

/* Several types packed one after the other into one buffer and unpacked in the same order: the
 * positions add up and every value comes back. */
static void test_pack_sequence(void) {
    int head = 41 + rank;
    int grid[4][6];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 6; j++)
            grid[i][j] = 1000 * rank + 10 * i + j;
    double vals[3] = {1.5, -2.25, 3.125};
    MPI_Datatype col, every2;
    MPI_OK(MPI_Type_create_subarray(2, (int[]){4, 6}, (int[]){3, 1}, (int[]){1, 4}, MPI_ORDER_C,
                                    MPI_INT, &col));
    col = commit(col);
    /* One double out of each 16 bytes, the first element at byte -16 (lb moved below 0). */
    MPI_OK(MPI_Type_create_resized(MPI_DOUBLE, -16, 16, &every2));
    every2 = commit(every2);
    int s1, s2, s3;
    MPI_OK(MPI_Pack_size(1, MPI_INT, W, &s1));
    MPI_OK(MPI_Pack_size(2, col, W, &s2));
    MPI_OK(MPI_Pack_size(2, every2, W, &s3));
    int cap = s1 + s2 + s3, pos = 0;
    char *buf = tu_xmalloc((size_t)cap);
    /* every2 elements sit 16 bytes apart from &vals[0]: the doubles vals[0] and vals[2]. */
    double *v0 = &vals[0];
    MPI_OK(MPI_Pack(&head, 1, MPI_INT, buf, cap, &pos, W));
    MPI_OK(MPI_Pack(grid, 1, col, buf, cap, &pos, W));
    MPI_OK(MPI_Pack(&grid[0][1], 1, col, buf, cap, &pos, W));
    MPI_OK(MPI_Pack(v0, 2, every2, buf, cap, &pos, W));
    CHECK(pos == (int)(sizeof(int) + 6 * sizeof(int) + 2 * sizeof(double)),
          "pack sequence ended at %d", pos);
    int h2 = 0, g2[4][6];
    double w2[3] = {0, 0, 0};
    memset(g2, 0, sizeof g2);
    int end = pos;
    pos = 0;
    MPI_OK(MPI_Unpack(buf, end, &pos, &h2, 1, MPI_INT, W));
    MPI_OK(MPI_Unpack(buf, end, &pos, g2, 1, col, W));
    MPI_OK(MPI_Unpack(buf, end, &pos, &g2[0][1], 1, col, W));
    MPI_OK(MPI_Unpack(buf, end, &pos, &w2[0], 2, every2, W));
    CHECK(pos == end, "unpack sequence ended at %d of %d", pos, end);
    CHECK(h2 == head, "unpacked head %d", h2);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 6; j++) {
            int want = i >= 1 && (j == 4 || j == 5) ? grid[i][j] : 0;
            CHECK(g2[i][j] == want, "unpacked grid[%d][%d] = %d, expected %d", i, j, g2[i][j],
                  want);
        }
    CHECK(w2[0] == vals[0] && w2[1] == 0 && w2[2] == vals[2], "unpacked every2: %g %g %g", w2[0],
          w2[1], w2[2]);
    free(buf);
    MPI_OK(MPI_Type_free(&col));
    MPI_OK(MPI_Type_free(&every2));
    tu_note("Pack/Unpack sequences with subarray and resized types");
}

/* ---- MPI_BOTTOM with absolute addresses ------------------------------------------------------ */

static void test_bottom(void) {
    int x = rank * 7 + 1;
    double y = rank * 0.5 + 2.0;
    MPI_Aint ax, ay;
    MPI_OK(MPI_Get_address(&x, &ax));
    MPI_OK(MPI_Get_address(&y, &ay));
    MPI_Datatype t;
    MPI_OK(MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){ax, ay},
                                  (MPI_Datatype[]){MPI_INT, MPI_DOUBLE}, &t));
    t = commit(t);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    struct {
        int x;
        double y;
    } in;
    MPI_Datatype rt;
    MPI_OK(MPI_Type_create_struct(2, (int[]){1, 1},
                                  (MPI_Aint[]){offsetof(__typeof__(in), x),
                                               offsetof(__typeof__(in), y)},
                                  (MPI_Datatype[]){MPI_INT, MPI_DOUBLE}, &rt));
    rt = commit(rt);
    MPI_OK(MPI_Sendrecv(MPI_BOTTOM, 1, t, right, 9, &in, 1, rt, left, 9, W, MPI_STATUS_IGNORE));
    CHECK(in.x == left * 7 + 1 && in.y == left * 0.5 + 2.0, "MPI_BOTTOM struct: got %d %g", in.x,
          in.y);
    /* Collectives too: a Bcast into MPI_BOTTOM with the (non-dense) struct of absolute addresses
     * goes through a packed temporary that must be unpacked into the addresses at completion. */
    if (rank != 0) {
        x = -1;
        y = -1.0;
    }
    MPI_OK(MPI_Bcast(MPI_BOTTOM, 1, t, 0, W));
    CHECK(x == 1 && y == 2.0, "Bcast into MPI_BOTTOM: got %d %g", x, y);
    x = rank * 3;
    y = -2.0;
    MPI_Request rq;
    MPI_OK(MPI_Ibcast(MPI_BOTTOM, 1, t, size - 1, W, &rq));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK(x == (size - 1) * 3 && y == -2.0, "Ibcast into MPI_BOTTOM: got %d %g", x, y);
    /* MPI_Aint_add / MPI_Aint_diff are address arithmetic. */
    double arr[8];
    MPI_Aint a0, a5;
    MPI_OK(MPI_Get_address(&arr[0], &a0));
    MPI_OK(MPI_Get_address(&arr[5], &a5));
    CHECK(MPI_Aint_diff(a5, a0) == (MPI_Aint)(5 * sizeof(double)), "Aint_diff %lld",
          (long long)MPI_Aint_diff(a5, a0));
    CHECK(MPI_Aint_add(a0, 5 * sizeof(double)) == a5, "Aint_add");
    CHECK(MPI_Aint_add(a5, -(MPI_Aint)(5 * sizeof(double))) == a0, "Aint_add negative");
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_free(&rt));
    tu_note("MPI_BOTTOM with absolute addresses, Aint_add/diff");
}

/* ---- envelope / contents ------------------------------------------------------------------- */

static int is_named(MPI_Datatype t) {
    int ni, na, nd, comb;
    MPI_OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    return comb == MPI_COMBINER_NAMED;
}

/* The type the constructor named by `comb` builds from the recorded arguments. */
static MPI_Datatype rebuild(int comb, const int *i, const MPI_Aint *a, const MPI_Datatype *d) {
    MPI_Datatype t = MPI_DATATYPE_NULL;
    switch (comb) {
    case MPI_COMBINER_DUP: MPI_OK(MPI_Type_dup(d[0], &t)); break;
    case MPI_COMBINER_CONTIGUOUS: MPI_OK(MPI_Type_contiguous(i[0], d[0], &t)); break;
    case MPI_COMBINER_VECTOR: MPI_OK(MPI_Type_vector(i[0], i[1], i[2], d[0], &t)); break;
    case MPI_COMBINER_HVECTOR: MPI_OK(MPI_Type_create_hvector(i[0], i[1], a[0], d[0], &t)); break;
    case MPI_COMBINER_INDEXED:
        MPI_OK(MPI_Type_indexed(i[0], i + 1, i + 1 + i[0], d[0], &t));
        break;
    case MPI_COMBINER_HINDEXED: MPI_OK(MPI_Type_create_hindexed(i[0], i + 1, a, d[0], &t)); break;
    case MPI_COMBINER_INDEXED_BLOCK:
        MPI_OK(MPI_Type_create_indexed_block(i[0], i[1], i + 2, d[0], &t));
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        MPI_OK(MPI_Type_create_hindexed_block(i[0], i[1], a, d[0], &t));
        break;
    case MPI_COMBINER_STRUCT: MPI_OK(MPI_Type_create_struct(i[0], i + 1, a, d, &t)); break;
    case MPI_COMBINER_SUBARRAY: {
        int n = i[0];
        MPI_OK(MPI_Type_create_subarray(n, i + 1, i + 1 + n, i + 1 + 2 * n, i[1 + 3 * n], d[0], &t));
        break;
    }
    case MPI_COMBINER_DARRAY: {
        int n = i[2];
        MPI_OK(MPI_Type_create_darray(i[0], i[1], n, i + 3, i + 3 + n, i + 3 + 2 * n,
                                      i + 3 + 3 * n, i[3 + 4 * n], d[0], &t));
        break;
    }
    case MPI_COMBINER_RESIZED: MPI_OK(MPI_Type_create_resized(d[0], a[0], a[1], &t)); break;
    default: FAIL("unexpected combiner %d", comb);
    }
    return t;
}

/* t's envelope must say `comb` with (ni, na, nd) entries; its contents rebuild the same typemap.
 * Returns the contents' integers (caller frees) for argument checks. */
static int *roundtrip(MPI_Datatype t, int comb, int ni, int na, int nd, const char *what) {
    int gi, ga, gd, gc;
    MPI_OK(MPI_Type_get_envelope(t, &gi, &ga, &gd, &gc));
    CHECK(gc == comb && gi == ni && ga == na && gd == nd,
          "%s: envelope combiner %d (%d/%d/%d), expected %d (%d/%d/%d)", what, gc, gi, ga, gd, comb,
          ni, na, nd);
    int *ints = tu_xmalloc((size_t)(ni + 1) * sizeof *ints);
    MPI_Aint *aints = tu_xmalloc((size_t)(na + 1) * sizeof *aints);
    MPI_Datatype *types = tu_xmalloc((size_t)(nd + 1) * sizeof *types);
    MPI_OK(MPI_Type_get_contents(t, ni, na, nd, ints, aints, types));
    MPI_Datatype r = commit(rebuild(comb, ints, aints, types));
    same_typemap(commit(t), r, what);
    MPI_OK(MPI_Type_free(&r));
    for (int k = 0; k < nd; k++)
        if (!is_named(types[k]))
            MPI_OK(MPI_Type_free(&types[k]));
    free(aints);
    free(types);
    return ints;
}

static void test_contents(void) {
    int ni, na, nd, comb;
    MPI_OK(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0, "MPI_INT not NAMED");
    MPI_OK(MPI_Type_get_envelope(MPI_DOUBLE_INT, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_NAMED, "MPI_DOUBLE_INT not NAMED (%d)", comb);

    MPI_Datatype vec, t;
    int *iv;
    MPI_OK(MPI_Type_vector(3, 2, 5, MPI_INT, &vec));
    iv = roundtrip(vec, MPI_COMBINER_VECTOR, 3, 0, 1, "vector");
    CHECK(iv[0] == 3 && iv[1] == 2 && iv[2] == 5, "vector contents %d %d %d", iv[0], iv[1], iv[2]);
    free(iv);

    MPI_OK(MPI_Type_dup(vec, &t));
    free(roundtrip(t, MPI_COMBINER_DUP, 0, 0, 1, "dup"));
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_dup(MPI_FLOAT, &t));
    free(roundtrip(t, MPI_COMBINER_DUP, 0, 0, 1, "dup of a named type"));
    MPI_Datatype got[1];
    MPI_OK(MPI_Type_get_contents(t, 0, 0, 1, NULL, NULL, got));
    CHECK(got[0] == MPI_FLOAT, "dup(MPI_FLOAT) contents is not MPI_FLOAT");
    MPI_OK(MPI_Type_free(&t));

    /* A component freed by the user stays usable through get_contents. */
    MPI_OK(MPI_Type_contiguous(2, vec, &t));
    MPI_OK(MPI_Type_free(&vec));
    iv = roundtrip(t, MPI_COMBINER_CONTIGUOUS, 1, 0, 1, "contiguous of a freed vector");
    CHECK(iv[0] == 2, "contiguous contents %d", iv[0]);
    free(iv);
    MPI_OK(MPI_Type_get_contents(t, 1, 0, 1, (int[1]){0}, NULL, got));
    MPI_OK(MPI_Type_commit(&got[0]));
    MPI_OK(MPI_Type_vector(3, 2, 5, MPI_INT, &vec));
    vec = commit(vec);
    same_typemap(got[0], vec, "vector from contents");
    MPI_OK(MPI_Type_free(&got[0]));
    MPI_OK(MPI_Type_free(&t));

    MPI_OK(MPI_Type_create_hvector(2, 1, -24, vec, &t));
    free(roundtrip(t, MPI_COMBINER_HVECTOR, 2, 1, 1, "hvector"));
    MPI_OK(MPI_Type_free(&t));

    MPI_OK(MPI_Type_indexed(2, (int[]){1, 3}, (int[]){7, -2}, MPI_SHORT, &t));
    iv = roundtrip(t, MPI_COMBINER_INDEXED, 5, 0, 1, "indexed");
    CHECK(iv[0] == 2 && iv[1] == 1 && iv[2] == 3 && iv[3] == 7 && iv[4] == -2,
          "indexed contents");
    free(iv);
    MPI_OK(MPI_Type_free(&t));

    MPI_OK(MPI_Type_create_hindexed(2, (int[]){2, 1}, (MPI_Aint[]){40, 0}, vec, &t));
    free(roundtrip(t, MPI_COMBINER_HINDEXED, 3, 2, 1, "hindexed"));
    MPI_OK(MPI_Type_free(&t));

    MPI_OK(MPI_Type_create_indexed_block(3, 2, (int[]){0, 5, 3}, MPI_DOUBLE, &t));
    iv = roundtrip(t, MPI_COMBINER_INDEXED_BLOCK, 5, 0, 1, "indexed_block");
    CHECK(iv[0] == 3 && iv[1] == 2 && iv[2] == 0 && iv[3] == 5 && iv[4] == 3,
          "indexed_block contents");
    free(iv);
    MPI_OK(MPI_Type_free(&t));

    MPI_OK(MPI_Type_create_hindexed_block(2, 3, (MPI_Aint[]){-8, 64}, MPI_CHAR, &t));
    free(roundtrip(t, MPI_COMBINER_HINDEXED_BLOCK, 2, 2, 1, "hindexed_block"));
    MPI_OK(MPI_Type_free(&t));

    MPI_OK(MPI_Type_create_struct(3, (int[]){1, 2, 1}, (MPI_Aint[]){0, 8, 200},
                                  (MPI_Datatype[]){MPI_INT, MPI_DOUBLE, vec}, &t));
    free(roundtrip(t, MPI_COMBINER_STRUCT, 4, 3, 3, "struct"));
    MPI_Datatype three[3];
    MPI_OK(MPI_Type_get_contents(t, 4, 3, 3, (int[4]){0}, (MPI_Aint[3]){0}, three));
    CHECK(three[0] == MPI_INT && three[1] == MPI_DOUBLE, "struct contents: named types changed");
    MPI_OK(MPI_Type_free(&three[2]));
    MPI_OK(MPI_Type_free(&t));

    MPI_OK(MPI_Type_create_subarray(3, (int[]){5, 6, 7}, (int[]){2, 3, 4}, (int[]){1, 0, 3},
                                    MPI_ORDER_FORTRAN, MPI_FLOAT, &t));
    iv = roundtrip(t, MPI_COMBINER_SUBARRAY, 11, 0, 1, "subarray");
    CHECK(iv[0] == 3 && iv[1] == 5 && iv[4] == 2 && iv[7] == 1 && iv[9] == 3 &&
              iv[10] == MPI_ORDER_FORTRAN,
          "subarray contents");
    free(iv);
    MPI_OK(MPI_Type_free(&t));

    MPI_OK(MPI_Type_create_darray(4, 2, 2, (int[]){9, 10},
                                  (int[]){MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK},
                                  (int[]){2, MPI_DISTRIBUTE_DFLT_DARG}, (int[]){2, 2}, MPI_ORDER_C,
                                  vec, &t));
    iv = roundtrip(t, MPI_COMBINER_DARRAY, 12, 0, 1, "darray");
    CHECK(iv[0] == 4 && iv[1] == 2 && iv[2] == 2 && iv[7] == 2 &&
              iv[8] == MPI_DISTRIBUTE_DFLT_DARG && iv[11] == MPI_ORDER_C,
          "darray contents");
    free(iv);
    MPI_OK(MPI_Type_free(&t));

    MPI_OK(MPI_Type_create_resized(vec, -8, 100, &t));
    free(roundtrip(t, MPI_COMBINER_RESIZED, 0, 2, 1, "resized"));
    MPI_Aint ra[2];
    MPI_OK(MPI_Type_get_contents(t, 0, 2, 1, NULL, ra, got));
    CHECK(ra[0] == -8 && ra[1] == 100, "resized contents %lld %lld", (long long)ra[0],
          (long long)ra[1]);
    MPI_OK(MPI_Type_free(&got[0]));
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_free(&vec));
    tu_note("envelope/contents round trip for every combiner");
}

/* ---- names, match_size ---------------------------------------------------------------------- */

static void test_names_match(void) {
    MPI_Datatype t, d;
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &t));
    MPI_OK(MPI_Type_get_name(t, name, &len));
    CHECK(len == 0 && name[0] == '\0', "unnamed type has name \"%s\"", name);
    MPI_OK(MPI_Type_set_name(t, "halo_face"));
    MPI_OK(MPI_Type_get_name(t, name, &len));
    CHECK(len == 9 && strcmp(name, "halo_face") == 0, "name \"%s\" (%d)", name, len);
    MPI_OK(MPI_Type_set_name(t, "renamed"));
    MPI_OK(MPI_Type_get_name(t, name, &len));
    CHECK(strcmp(name, "renamed") == 0, "renamed name \"%s\"", name);
    char longname[200];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    MPI_OK(MPI_Type_set_name(t, longname));
    MPI_OK(MPI_Type_get_name(t, name, &len));
    CHECK(len == MPI_MAX_OBJECT_NAME - 1 && (int)strlen(name) == len, "long name length %d", len);
    MPI_OK(MPI_Type_dup(t, &d));
    MPI_OK(MPI_Type_get_name(d, name, &len));
    CHECK(len == 0, "dup inherited the name \"%s\"", name);
    MPI_OK(MPI_Type_free(&d));
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_get_name(MPI_DOUBLE, name, &len));
    CHECK(strcmp(name, "MPI_DOUBLE") == 0, "MPI_DOUBLE is named \"%s\"", name);

    struct {
        int cls, size;
    } ok[] = {{MPI_TYPECLASS_INTEGER, 1}, {MPI_TYPECLASS_INTEGER, 2}, {MPI_TYPECLASS_INTEGER, 4},
              {MPI_TYPECLASS_INTEGER, 8}, {MPI_TYPECLASS_INTEGER, 16}, {MPI_TYPECLASS_REAL, 4}, {MPI_TYPECLASS_REAL, 8},
              {MPI_TYPECLASS_COMPLEX, 8}, {MPI_TYPECLASS_COMPLEX, 16}};
    for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) {
        MPI_Datatype m = MPI_DATATYPE_NULL;
        int sz = -1;
        MPI_OK(MPI_Type_match_size(ok[k].cls, ok[k].size, &m));
        MPI_OK(MPI_Type_size(m, &sz));
        CHECK(sz == ok[k].size && is_named(m), "match_size(%d, %d) gave a type of size %d",
              ok[k].cls, ok[k].size, sz);
    }
#ifdef CREDO_MPI
    /* credo has no Fortran types: the matches are the C ones. */
    MPI_Datatype m;
    MPI_OK(MPI_Type_match_size(MPI_TYPECLASS_REAL, sizeof(double), &m));
    CHECK(m == MPI_DOUBLE, "match_size(REAL, 8) is not MPI_DOUBLE");
    MPI_OK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &m));
    CHECK(m == MPI_INT32_T, "match_size(INTEGER, 4) is not MPI_INT32_T");
    MPI_OK(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 2 * sizeof(float), &m));
    CHECK(m == MPI_C_FLOAT_COMPLEX, "match_size(COMPLEX, 8) is not MPI_C_FLOAT_COMPLEX");
#endif
    tu_note("names and Type_match_size");
}

/* ---- errors ----------------------------------------------------------------------------------- */

static void expect(int rc, int cls, int alt, const char *what) {
    CHECK(rc != MPI_SUCCESS, "%s: returned MPI_SUCCESS, expected an error", what);
    int got = tu_class(rc);
    CHECK(got == cls || (alt >= 0 && got == alt), "%s: error class %d, expected %d", what, got, cls);
}

static void test_errors(void) {
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MPI_Datatype t = MPI_DATATYPE_NULL;
    const int ARG = MPI_ERR_ARG;
    expect(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT, ARG, "contiguous count -1");
    expect(MPI_Type_vector(2, -1, 3, MPI_INT, &t), ARG, MPI_ERR_COUNT, "vector blocklength -1");
    expect(MPI_Type_create_hindexed(2, (int[]){1, -2}, (MPI_Aint[]){0, 8}, MPI_INT, &t), ARG,
           MPI_ERR_COUNT, "hindexed blocklength -2");
    expect(MPI_Type_create_indexed_block(1, 1, (int[]){0}, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE,
           -1, "indexed_block of MPI_DATATYPE_NULL");
    expect(MPI_Type_create_hindexed_block(-3, 1, NULL, MPI_INT, &t), MPI_ERR_COUNT, ARG,
           "hindexed_block count -3");
    expect(MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 4},
                                  (MPI_Datatype[]){MPI_INT, MPI_DATATYPE_NULL}, &t),
           MPI_ERR_TYPE, -1, "struct with MPI_DATATYPE_NULL");
    expect(MPI_Type_create_subarray(0, (int[]){1}, (int[]){1}, (int[]){0}, MPI_ORDER_C, MPI_INT,
                                    &t),
           ARG, MPI_ERR_DIMS, "subarray ndims 0");
    expect(MPI_Type_create_subarray(2, (int[]){4, 4}, (int[]){2, 3}, (int[]){1, 2}, MPI_ORDER_C,
                                    MPI_INT, &t),
           ARG, -1, "subarray start + subsize > size");
    expect(MPI_Type_create_subarray(1, (int[]){4}, (int[]){5}, (int[]){0}, MPI_ORDER_C, MPI_INT, &t),
           ARG, -1, "subarray subsize > size");
    expect(MPI_Type_create_subarray(1, (int[]){4}, (int[]){2}, (int[]){-1}, MPI_ORDER_C, MPI_INT,
                                    &t),
           ARG, -1, "subarray negative start");
    expect(MPI_Type_create_subarray(1, (int[]){4}, (int[]){2}, (int[]){0}, 12345, MPI_INT, &t), ARG,
           -1, "subarray bad order");
    const int blk[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK};
    const int dflt[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
    expect(MPI_Type_create_darray(4, 0, 2, (int[]){8, 8}, blk, dflt, (int[]){2, 3}, MPI_ORDER_C,
                                  MPI_INT, &t),
           ARG, -1, "darray grid of 6 for size 4");
    expect(MPI_Type_create_darray(4, 4, 2, (int[]){8, 8}, blk, dflt, (int[]){2, 2}, MPI_ORDER_C,
                                  MPI_INT, &t),
           ARG, MPI_ERR_RANK, "darray rank == size");
    expect(MPI_Type_create_darray(2, 0, 1, (int[]){8}, (int[]){MPI_DISTRIBUTE_NONE}, dflt,
                                  (int[]){2}, MPI_ORDER_C, MPI_INT, &t),
           ARG, -1, "darray NONE over 2 processes");
    expect(MPI_Type_create_darray(2, 0, 1, (int[]){8}, blk, (int[]){3}, (int[]){2}, MPI_ORDER_C,
                                  MPI_INT, &t),
           ARG, -1, "darray 2 blocks of 3 for 8 elements");
    expect(MPI_Type_create_darray(2, 0, 1, (int[]){8}, (int[]){77}, dflt, (int[]){2}, MPI_ORDER_C,
                                  MPI_INT, &t),
           ARG, -1, "darray bad distribution");
    int ni, na, nd, comb;
    expect(MPI_Type_get_envelope(MPI_DATATYPE_NULL, &ni, &na, &nd, &comb), MPI_ERR_TYPE, ARG,
           "envelope of MPI_DATATYPE_NULL");
    expect(MPI_Type_get_contents(MPI_INT, 0, 0, 0, NULL, NULL, NULL), MPI_ERR_TYPE, ARG,
           "contents of MPI_INT");
    MPI_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &t));
    expect(MPI_Type_get_contents(t, 2, 0, 1, (int[3]){0}, NULL, (MPI_Datatype[1]){0}), ARG, -1,
           "contents into too small arrays");
    MPI_OK(MPI_Type_free(&t));
    expect(MPI_Type_set_name(MPI_DATATYPE_NULL, "x"), MPI_ERR_TYPE, ARG, "set_name of NULL type");
    MPI_Datatype m;
    expect(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &m), ARG, -1, "match_size REAL 3");
    expect(MPI_Type_match_size(999, 4, &m), ARG, -1, "match_size bad class");
#ifdef CREDO_MPI
    /* Sizes and offsets that overflow, and types too large to flatten, fail cleanly at once. */
    MPI_Datatype big;
    MPI_OK(MPI_Type_contiguous(INT_MAX, MPI_DOUBLE, &big));
    MPI_Count bsz = 0;
    MPI_OK(MPI_Type_size_x(big, &bsz));
    CHECK(bsz == (MPI_Count)INT_MAX * 8, "Type_size_x of 2^31 doubles is %lld", bsz);
    int isz = 0;
    MPI_OK(MPI_Type_size(big, &isz));
    CHECK(isz == MPI_UNDEFINED, "Type_size of 16 GiB is %d, expected MPI_UNDEFINED", isz);
    expect(MPI_Type_contiguous(INT_MAX, big, &t), MPI_ERR_COUNT, -1, "contiguous size overflow");
    expect(MPI_Type_vector(3, 1, INT_MAX, big, &t), MPI_ERR_COUNT, -1, "vector stride overflow");
    expect(MPI_Type_create_hvector(2, 1, (MPI_Aint)(INTPTR_MAX - 2), MPI_INT, &t), MPI_ERR_COUNT,
           -1, "hvector offset overflow");
    expect(MPI_Type_create_resized(MPI_INT, INTPTR_MAX - 4, 16, &t), MPI_ERR_COUNT, -1,
           "resized ub overflow");
    expect(MPI_Type_vector(INT_MAX, 1, 2, MPI_INT, &t), MPI_ERR_COUNT, -1,
           "vector of 2^31 separate ints");
    expect(MPI_Type_create_subarray(3, (int[]){INT_MAX, INT_MAX, INT_MAX}, (int[]){1, 1, 1},
                                    (int[]){0, 0, 0}, MPI_ORDER_C, MPI_INT, &t),
           MPI_ERR_COUNT, -1, "subarray extent overflow");
    expect(MPI_Type_create_subarray(3, (int[]){1 << 14, 1 << 14, 2}, (int[]){1 << 14, 1 << 14, 1},
                                    (int[]){0, 0, 0}, MPI_ORDER_C, MPI_INT, &t),
           MPI_ERR_COUNT, -1, "subarray of 2^28 separate ints");
    MPI_OK(MPI_Type_free(&big));
    /* A NULL buffer with a predefined type is still an error (MPI_BOTTOM needs a derived type). */
    expect(MPI_Send(NULL, 1, MPI_INT, rank, 0, W), MPI_ERR_BUFFER, -1, "Send NULL int buffer");
#endif
    CHECK(t == MPI_DATATYPE_NULL, "a failed constructor wrote the handle");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
    tu_note("argument errors");
}

/* MPI 3.1 4.1.11: after a receive that filled only part of an item, MPI_Get_elements counts the
 * basic elements that arrived, also when the type mixes element sizes (MPICH's
 * datatype/getpartelm found MPI_UNDEFINED here). Rank 0 sends `bytes` raw bytes to rank 1. */
static void expect_partial_elements(MPI_Datatype t, int count, int bytes, int want, const char *what) {
    char buf[4096] = {0};
    int elems = -2, peer = rank == 0 ? 1 : 0;
    if (rank == 0) {
        MPI_OK(MPI_Send(buf, bytes, MPI_BYTE, peer, 71, W));
    } else if (rank == 1) {
        MPI_Status st;
        MPI_OK(MPI_Recv(buf, count, t, peer, 71, W, &st));
        MPI_OK(MPI_Get_elements(&st, t, &elems));
        CHECK(elems == want, "%s: Get_elements %d after %d bytes, expected %d", what, elems, bytes, want);
        MPI_Count x = -2;
        MPI_OK(MPI_Get_elements_x(&st, t, &x));
        CHECK(x == want, "%s: Get_elements_x %lld, expected %d", what, (long long)x, want);
    }
}

static void test_partial_elements(void) {
    if (rank > 1)
        return;
    int bl[3] = {1, 256, 2};
    MPI_Aint off[3] = {0, sizeof(int), 300};
    MPI_Datatype ty[3] = {MPI_INT, MPI_CHAR, MPI_DOUBLE}, st, vec, mixed;
    MPI_OK(MPI_Type_create_struct(2, bl, off, ty, &st));
    MPI_OK(MPI_Type_commit(&st));
    expect_partial_elements(st, 1, (int)sizeof(int) + 16, 17, "struct {int, char[256]}, int + 16 chars");
    expect_partial_elements(st, 1, 2, 0, "struct {int, char[256]}, half an int");
    expect_partial_elements(st, 2, (int)sizeof(int) + 256 + (int)sizeof(int) + 3, 257 + 4,
                            "2 x struct {int, char[256]}, one item + int + 3 chars");
    /* nested: a vector of 2 such structs inside a struct after a double */
    MPI_OK(MPI_Type_vector(2, 1, 1, st, &vec));
    MPI_Datatype ty2[2] = {MPI_DOUBLE, vec};
    int bl2[2] = {1, 1};
    MPI_Aint off2[2] = {0, 8};
    MPI_OK(MPI_Type_create_struct(2, bl2, off2, ty2, &mixed));
    MPI_OK(MPI_Type_commit(&mixed));
    expect_partial_elements(mixed, 1, 8 + 260 + 4 + 10, 1 + 257 + 1 + 10, "struct {double, vector of 2 structs}");
    /* a predefined pair with members of two sizes: the value, not yet its int */
    expect_partial_elements(MPI_DOUBLE_INT, 2, 12 + 8, 3, "2 x MPI_DOUBLE_INT, one pair + a double");
    /* one element size: a partial element is still MPI_UNDEFINED */
    expect_partial_elements(MPI_INT, 4, 6, MPI_UNDEFINED, "MPI_INT, 6 bytes");
    MPI_OK(MPI_Type_free(&mixed));
    MPI_OK(MPI_Type_free(&vec));
    MPI_OK(MPI_Type_free(&st));
}

/* MPI 3.1 12.3: MPI_Status_set_elements(_x) makes Get_elements answer the count it was given and
 * Get_count what that many elements are; MPI_Status_set_cancelled sets what Test_cancelled says. */
static void test_status_setters(void) {
    MPI_Status st;
    int n = -1;
    MPI_Count x = -1;
    MPI_OK(MPI_Status_set_elements(&st, MPI_INT, 7));
    MPI_OK(MPI_Get_elements(&st, MPI_INT, &n));
    CHECK(n == 7, "Get_elements after set_elements(7 MPI_INT): %d", n);
    n = -1;
    MPI_OK(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(n == 7, "Get_count after set_elements(7 MPI_INT): %d", n);
    MPI_Datatype three;
    MPI_OK(MPI_Type_contiguous(3, MPI_SHORT, &three));
    MPI_OK(MPI_Type_commit(&three));
    MPI_OK(MPI_Status_set_elements_x(&st, three, 7)); /* 2 items + 1 short */
    MPI_OK(MPI_Get_elements_x(&st, three, &x));
    MPI_OK(MPI_Get_count(&st, three, &n));
    CHECK(x == 7 && n == MPI_UNDEFINED, "3 x short: elements %lld, count %d", (long long)x, n);
    int bl[2] = {1, 3};
    MPI_Aint off[2] = {0, 8};
    MPI_Datatype ty[2] = {MPI_DOUBLE, MPI_CHAR}, mixed;
    MPI_OK(MPI_Type_create_struct(2, bl, off, ty, &mixed));
    MPI_OK(MPI_Type_commit(&mixed));
    for (int k = 0; k <= 9; k++) {
        MPI_OK(MPI_Status_set_elements(&st, mixed, k));
        MPI_OK(MPI_Get_elements(&st, mixed, &n));
        CHECK(n == k, "struct {double, char[3]}: set %d elements, Get_elements %d", k, n);
    }
    MPI_OK(MPI_Status_set_elements(&st, mixed, 8));
    MPI_OK(MPI_Get_count(&st, mixed, &n));
    CHECK(n == 2, "struct {double, char[3]}: 8 elements are %d items", n);
    int flag = -1;
    MPI_OK(MPI_Status_set_cancelled(&st, 1));
    MPI_OK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 1, "Test_cancelled after set_cancelled(1): %d", flag);
    MPI_OK(MPI_Status_set_cancelled(&st, 0));
    MPI_OK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 0, "Test_cancelled after set_cancelled(0): %d", flag);
    MPI_OK(MPI_Comm_set_errhandler(W, MPI_ERRORS_RETURN));
    int rc = MPI_Status_set_elements(&st, MPI_INT, -1), cls = -1;
    MPI_OK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_COUNT, "set_elements(-1) gave class %d", cls);
    MPI_OK(MPI_Comm_set_errhandler(W, MPI_ERRORS_ARE_FATAL));
    MPI_OK(MPI_Type_free(&mixed));
    MPI_OK(MPI_Type_free(&three));
}

/* The C++ types are usable from C (MPI 3.1 3.2.2): named, and reducible as their C twins. */
static void test_cxx_types(void) {
    struct {
        MPI_Datatype t;
        const char *name;
        size_t size;
    } cx[] = {{MPI_CXX_BOOL, "MPI_CXX_BOOL", sizeof(_Bool)},
              {MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", sizeof(_Complex float)},
              {MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", sizeof(_Complex double)},
              {MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX", sizeof(_Complex long double)}};
    for (size_t i = 0; i < sizeof cx / sizeof cx[0]; i++) {
        char name[MPI_MAX_OBJECT_NAME];
        int len, sz;
        MPI_OK(MPI_Type_get_name(cx[i].t, name, &len));
        MPI_OK(MPI_Type_size(cx[i].t, &sz));
        CHECK(strcmp(name, cx[i].name) == 0 && (size_t)sz == cx[i].size, "%s: name %s size %d", cx[i].name, name, sz);
    }
    double in[2] = {rank, 1.0}, out[2] = {0, 0}; /* (real, imaginary): the layout of _Complex double */
    MPI_OK(MPI_Allreduce(in, out, 1, MPI_CXX_DOUBLE_COMPLEX, MPI_SUM, W));
    CHECK(out[0] == size * (size - 1) / 2.0 && out[1] == size, "complex sum %g%+gi", out[0], out[1]);
    _Bool b = rank == 0, any = 0;
    MPI_OK(MPI_Allreduce(&b, &any, 1, MPI_CXX_BOOL, MPI_LOR, W));
    CHECK(any, "MPI_LOR over MPI_CXX_BOOL");
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    W = MPI_COMM_WORLD;
    MPI_Comm_rank(W, &rank);
    MPI_Comm_size(W, &size);
    test_constructors();
    test_halos();
    test_collectives();
    test_pack_sequence();
    test_bottom();
    test_contents();
    test_names_match();
    test_partial_elements();
    test_status_setters();
    test_cxx_types();
    test_errors();
    MPI_OK(MPI_Barrier(W));
    tu_note("dtypes: all checks passed on %d ranks", size);
    MPI_Finalize();
    return 0;
}
