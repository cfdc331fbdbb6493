/* src/mpi/datatype.c — datatypes: the predefined C types, derived type constructors flattened into
 * byte blocks, pack/unpack, and the size/extent/count queries. */
#include <float.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "mpi/dt_build.h"
#include "mpi/mpi_impl.h"
#include "mpi/op.h"
#include "xport/copy.h"

/* ---- predefined types ---- */

#define DT_BASIC(var, T, B, NAME)                                                                  \
    static const dt_block blk_##var[1] = {{0, sizeof(T)}};                                         \
    struct credo_datatype credo_dt_##var = {                                                      \
        .magic = DT_MAGIC, .flags = DT_F_PREDEF | DT_F_COMMITTED | DT_F_DENSE, .basic = B,        \
        .size = sizeof(T), .lb = 0, .extent = sizeof(T), .true_lb = 0, .true_extent = sizeof(T),  \
        .nblocks = 1, .blocks = blk_##var, .elem_size = sizeof(T), .elems = 1,                    \
        .align = _Alignof(T), .refcount = 1, .name = NAME}

DT_BASIC(char, char, B_CHAR, "MPI_CHAR");
DT_BASIC(signed_char, signed char, B_SCHAR, "MPI_SIGNED_CHAR");
DT_BASIC(unsigned_char, unsigned char, B_UCHAR, "MPI_UNSIGNED_CHAR");
DT_BASIC(byte, unsigned char, B_BYTE, "MPI_BYTE");
DT_BASIC(short, short, B_SHORT, "MPI_SHORT");
DT_BASIC(unsigned_short, unsigned short, B_USHORT, "MPI_UNSIGNED_SHORT");
DT_BASIC(int, int, B_INT, "MPI_INT");
DT_BASIC(unsigned, unsigned, B_UINT, "MPI_UNSIGNED");
DT_BASIC(long, long, B_LONG, "MPI_LONG");
DT_BASIC(unsigned_long, unsigned long, B_ULONG, "MPI_UNSIGNED_LONG");
DT_BASIC(long_long, long long, B_LLONG, "MPI_LONG_LONG_INT"); /* MPI_LONG_LONG is its synonym */
DT_BASIC(unsigned_long_long, unsigned long long, B_ULLONG, "MPI_UNSIGNED_LONG_LONG");
DT_BASIC(float, float, B_FLOAT, "MPI_FLOAT");
DT_BASIC(double, double, B_DOUBLE, "MPI_DOUBLE");
DT_BASIC(long_double, long double, B_LDOUBLE, "MPI_LONG_DOUBLE");
DT_BASIC(wchar, wchar_t, B_WCHAR, "MPI_WCHAR");
DT_BASIC(c_bool, _Bool, B_BOOL, "MPI_C_BOOL");
DT_BASIC(int8_t, int8_t, B_INT8, "MPI_INT8_T");
DT_BASIC(int16_t, int16_t, B_INT16, "MPI_INT16_T");
DT_BASIC(int32_t, int32_t, B_INT32, "MPI_INT32_T");
DT_BASIC(int64_t, int64_t, B_INT64, "MPI_INT64_T");
DT_BASIC(uint8_t, uint8_t, B_UINT8, "MPI_UINT8_T");
DT_BASIC(uint16_t, uint16_t, B_UINT16, "MPI_UINT16_T");
DT_BASIC(uint32_t, uint32_t, B_UINT32, "MPI_UINT32_T");
DT_BASIC(uint64_t, uint64_t, B_UINT64, "MPI_UINT64_T");
DT_BASIC(c_float_complex, _Complex float, B_CFLOAT, "MPI_C_COMPLEX"); /* = MPI_C_FLOAT_COMPLEX */
DT_BASIC(c_double_complex, _Complex double, B_CDOUBLE, "MPI_C_DOUBLE_COMPLEX");
DT_BASIC(c_long_double_complex, _Complex long double, B_CLDOUBLE, "MPI_C_LONG_DOUBLE_COMPLEX");
DT_BASIC(aint, MPI_Aint, B_AINT, "MPI_AINT");
DT_BASIC(offset, MPI_Offset, B_OFFSET, "MPI_OFFSET");
DT_BASIC(count, MPI_Count, B_COUNT, "MPI_COUNT");
DT_BASIC(packed, unsigned char, B_PACKED, "MPI_PACKED");
DT_BASIC(cxx_bool, _Bool, B_BOOL, "MPI_CXX_BOOL");
DT_BASIC(cxx_float_complex, _Complex float, B_CFLOAT, "MPI_CXX_FLOAT_COMPLEX");
DT_BASIC(cxx_double_complex, _Complex double, B_CDOUBLE, "MPI_CXX_DOUBLE_COMPLEX");
DT_BASIC(cxx_long_double_complex, _Complex long double, B_CLDOUBLE, "MPI_CXX_LONG_DOUBLE_COMPLEX");
/* Fortran's named types, usable from C (for data that Fortran code laid out): the default kinds of
 * gfortran on this ABI (INTEGER and LOGICAL 4 bytes, REAL 4, DOUBLE PRECISION 8). LOGICAL is a C
 * int here, so the logical reductions apply to it as to C integers. REAL16 and COMPLEX32 (a
 * 16-byte real) have no C type here and are MPI_DATATYPE_NULL, as MPI allows for optional types. */
DT_BASIC(f_integer, int, B_INT, "MPI_INTEGER");
DT_BASIC(f_logical, int, B_INT, "MPI_LOGICAL");
DT_BASIC(f_character, char, B_CHAR, "MPI_CHARACTER");
DT_BASIC(f_real, float, B_FLOAT, "MPI_REAL");
DT_BASIC(f_double_precision, double, B_DOUBLE, "MPI_DOUBLE_PRECISION");
DT_BASIC(f_complex, _Complex float, B_CFLOAT, "MPI_COMPLEX");
DT_BASIC(f_double_complex, _Complex double, B_CDOUBLE, "MPI_DOUBLE_COMPLEX");
DT_BASIC(f_integer1, int8_t, B_INT8, "MPI_INTEGER1");
DT_BASIC(f_integer2, int16_t, B_INT16, "MPI_INTEGER2");
DT_BASIC(f_integer4, int32_t, B_INT32, "MPI_INTEGER4");
DT_BASIC(f_integer8, int64_t, B_INT64, "MPI_INTEGER8");
DT_BASIC(f_integer16, credo_int128, B_INT128, "MPI_INTEGER16"); /* gfortran's INTEGER(16) */
DT_BASIC(f_real4, float, B_FLOAT, "MPI_REAL4");
DT_BASIC(f_real8, double, B_DOUBLE, "MPI_REAL8");
DT_BASIC(f_complex8, _Complex float, B_CFLOAT, "MPI_COMPLEX8");
DT_BASIC(f_complex16, _Complex double, B_CDOUBLE, "MPI_COMPLEX16");

/* (value, index) pairs for MAXLOC/MINLOC: the layout of the C struct, so padding is a hole and the
 * type is only dense when there is none. */
#define DT_PAIR(var, T, I, B, NAME)                                                                 \
    struct dtpair_##var {                                                                          \
        T v;                                                                                       \
        I i;                                                                                       \
    };                                                                                             \
    enum {                                                                                         \
        dense_##var = offsetof(struct dtpair_##var, i) == sizeof(T) &&                             \
                      sizeof(struct dtpair_##var) == sizeof(T) + sizeof(I)                       \
    };                                                                                             \
    static const dt_block blk_##var[2] = {                                                         \
        {0, dense_##var ? sizeof(T) + sizeof(I) : sizeof(T)},                                    \
        {offsetof(struct dtpair_##var, i), sizeof(I)}};                                         \
    struct credo_datatype credo_dt_##var = {                                                      \
        .magic = DT_MAGIC,                                                                         \
        .flags = DT_F_PREDEF | DT_F_COMMITTED | (dense_##var ? DT_F_DENSE : 0),                   \
        .basic = B, .size = sizeof(T) + sizeof(I), .lb = 0,                                      \
        .extent = sizeof(struct dtpair_##var), .true_lb = 0,                                       \
        .true_extent = offsetof(struct dtpair_##var, i) + sizeof(I),                             \
        .nblocks = dense_##var ? 1 : 2, .blocks = blk_##var,                                       \
        .elem_size = sizeof(T) == sizeof(I) ? sizeof(I) : 0, .elems = 2,                       \
        .align = _Alignof(struct dtpair_##var), .refcount = 1, .name = NAME}

DT_PAIR(float_int, float, int, B_FLOAT_INT, "MPI_FLOAT_INT");
DT_PAIR(double_int, double, int, B_DOUBLE_INT, "MPI_DOUBLE_INT");
DT_PAIR(long_int, long, int, B_LONG_INT, "MPI_LONG_INT");
DT_PAIR(2int, int, int, B_2INT, "MPI_2INT");
DT_PAIR(short_int, short, int, B_SHORT_INT, "MPI_SHORT_INT");
DT_PAIR(long_double_int, long double, int, B_LDOUBLE_INT, "MPI_LONG_DOUBLE_INT");
/* Fortran's MAXLOC/MINLOC pairs: two REALs, two DOUBLE PRECISIONs (the index a number too). */
DT_PAIR(f_2real, float, float, B_2REAL, "MPI_2REAL");
DT_PAIR(f_2double_precision, double, double, B_2DOUBLE, "MPI_2DOUBLE_PRECISION");
/* Two default INTEGERs: C's two ints, so MPI_2INT's basic type and MAXLOC/MINLOC kernels. */
DT_PAIR(f_2integer, int, int, B_2INT, "MPI_2INTEGER");

/* ---- pack / unpack ---- */

void dt_pack(const void *src, size_t count, MPI_Datatype dt, void *dst)
{
    const char *in = src;
    char *out = dst;
    if (dt->flags & DT_F_DENSE) {
        credo_copy(out, BUF_AT(in, dt->lb), count * dt->size);
        return;
    }
    for (size_t i = 0; i < count; i++, in += dt->extent) {
        for (int b = 0; b < dt->nblocks; b++) {
            credo_copy(out, in + dt->blocks[b].disp, dt->blocks[b].len);
            out += dt->blocks[b].len;
        }
    }
}

void dt_unpack(const void *src, size_t bytes, size_t count, MPI_Datatype dt, void *dst)
{
    const char *in = src;
    char *out = dst;
    if (bytes > count * dt->size)
        bytes = count * dt->size;
    if (dt->flags & DT_F_DENSE) {
        credo_copy(BUF_AT(out, dt->lb), in, bytes);
        return;
    }
    for (size_t i = 0; i < count && bytes > 0; i++, out += dt->extent) {
        for (int b = 0; b < dt->nblocks && bytes > 0; b++) {
            size_t n = dt->blocks[b].len < bytes ? dt->blocks[b].len : bytes;
            credo_copy(out + dt->blocks[b].disp, in, n);
            in += n;
            bytes -= n;
        }
    }
}

void dt_copy(const void *src, void *dst, size_t count, MPI_Datatype dt)
{
    if (dt->flags & DT_F_DENSE) {
        credo_move(BUF_AT(dst, dt->lb), BUF_AT(src, dt->lb), count * dt->size);
        return;
    }
    for (size_t i = 0; i < count; i++) {
        MPI_Aint base = (MPI_Aint)i * dt->extent;
        for (int b = 0; b < dt->nblocks; b++)
            credo_move(BUF_AT(dst, base + dt->blocks[b].disp), BUF_AT(src, base + dt->blocks[b].disp),
                       dt->blocks[b].len);
    }
}

void dt_retain(MPI_Datatype dt)
{
    if (!(dt->flags & DT_F_PREDEF))
        dt->refcount++;
}

void dt_release(MPI_Datatype dt)
{
    if (dt->flags & DT_F_PREDEF)
        return;
    if (--dt->refcount == 0) {
        dt->magic = DEAD_MAGIC;
        mpi_handle_del(dt);
        /* A later type may get this address: attr.c's side table must not outlive the object. */
        dt_attr_forget(dt);
        /* Releases the component types the constructor arguments hold. */
        dt_contents_free(dt->contents);
        if (dt->flags & DT_F_NAME_OWNED)
            free((void *)dt->name);
        free((void *)dt->blocks);
        free(dt);
    }
}

/* ---- derived type construction: append shifted copies of old types' blocks ----
 * Bounds follow the standard's marker rules: a type made by resized/subarray/darray has explicit
 * ("sticky") lb and ub, and so has every type built from one; where any component is sticky, the
 * new lb/ub are the extremes of the sticky components' lb/ub alone, otherwise of all components. */

void dt_builder_init(dt_builder *b)
{
    memset(b, 0, sizeof *b);
    b->basic = -1;
    b->elem_size = (size_t)-1;
    b->align = 1;
}

/* The caller guarantees disp + len is representable (dt_builder_add checks the extremes). */
static void builder_block(dt_builder *b, MPI_Aint disp, size_t len)
{
    if (len == 0 || b->failed)
        return;
    /* Merge with the previous block only: the order of the blocks is the typemap's order, which
     * pack and unpack follow. */
    if (b->n > 0 && b->blocks[b->n - 1].disp + (MPI_Aint)b->blocks[b->n - 1].len == disp) {
        b->blocks[b->n - 1].len += len;
    } else {
        if (b->n == b->cap) {
            /* planned <= DT_MAX_BLOCKS bounds n, so cap cannot overflow an int. */
            int cap = b->cap ? 2 * b->cap : 8;
            dt_block *nb = realloc(b->blocks, (size_t)cap * sizeof *nb);
            if (nb == NULL) {
                b->failed = BF_NOMEM;
                return;
            }
            b->blocks = nb;
            b->cap = cap;
        }
        b->blocks[b->n].disp = disp;
        b->blocks[b->n].len = len;
        b->n++;
    }
    if (!b->touched) {
        b->touched = 1;
        b->tlb = disp;
        b->tub = disp + (MPI_Aint)len;
    } else {
        if (disp < b->tlb)
            b->tlb = disp;
        if (disp + (MPI_Aint)len > b->tub)
            b->tub = disp + (MPI_Aint)len;
    }
}

int64_t dt_add_cost(MPI_Datatype old, int64_t reps)
{
    int64_t cost = 1;
    if (reps <= 0)
        return 0;
    if ((old->flags & DT_F_DENSE) && old->extent == (MPI_Aint)old->size)
        return 1; /* one block however many copies */
    if (old->size > 0 &&
        __builtin_mul_overflow(reps, (old->flags & DT_F_DENSE) ? 1 : old->nblocks, &cost))
        cost = INT64_MAX;
    return cost;
}

void dt_builder_plan(dt_builder *b, int64_t blocks)
{
    if (blocks > DT_MAX_BLOCKS && !b->failed)
        b->failed = BF_BLOCKS;
}

void dt_builder_add(dt_builder *b, MPI_Datatype old, MPI_Aint disp, int64_t reps)
{
    if (reps <= 0 || b->failed)
        return;
    const MPI_Aint ext = old->extent;
    const int dense = (old->flags & DT_F_DENSE) != 0;
    const int contig = dense && ext == (MPI_Aint)old->size;
    /* Blocks this append asks for before merging; counting them bounds memory and time. */
    int64_t cost = dt_add_cost(old, reps);
    if (cost > DT_MAX_BLOCKS - b->planned) {
        b->failed = BF_BLOCKS;
        return;
    }
    b->planned += cost;
    /* Copies r = 0 .. reps-1 sit at disp + r * ext. Checking the first and last copies' bounds
     * and data extremes makes every offset computed below representable. */
    MPI_Aint step, first, last, lo, hi, tfirst, tlast, t;
    size_t bytes, elems;
    if (!dt_aint_mul(ext, reps - 1, &step) || !dt_aint_add(disp, old->lb, &first) ||
        !dt_aint_add(first, step, &last) || !dt_aint_add(first > last ? first : last, ext, &hi) ||
        !dt_aint_add(first < last ? first : last, ext, &t) ||
        !dt_aint_add(disp, old->true_lb, &tfirst) || !dt_aint_add(tfirst, step, &tlast) ||
        !dt_aint_add(tfirst, old->true_extent, &t) || !dt_aint_add(tlast, old->true_extent, &t) ||
        __builtin_mul_overflow((size_t)reps, old->size, &bytes) ||
        __builtin_add_overflow(b->size, bytes, &b->size) || b->size > (size_t)INT64_MAX ||
        __builtin_mul_overflow((size_t)reps, old->elems, &elems) ||
        __builtin_add_overflow(b->elems, elems, &b->elems)) {
        b->failed = BF_OVERFLOW;
        return;
    }
    lo = first < last ? first : last;
    if (old->flags & DT_F_STICKY) {
        if (!b->sticky || lo < b->slb)
            b->slb = lo;
        if (!b->sticky || hi > b->sub)
            b->sub = hi;
        b->sticky = 1;
    } else {
        if (!b->any || lo < b->lb)
            b->lb = lo;
        if (!b->any || hi > b->ub)
            b->ub = hi;
    }
    b->any = 1;
    if (old->size > 0) {
        if (contig) {
            builder_block(b, first, bytes);
        } else if (dense) {
            /* One block of size bytes at lb per copy (a resized contiguous type). */
            for (int64_t r = 0; r < reps && !b->failed; r++)
                builder_block(b, first + (MPI_Aint)r * ext, old->size);
        } else {
            for (int64_t r = 0; r < reps && !b->failed; r++) {
                MPI_Aint base = tfirst + (MPI_Aint)r * ext;
                for (int k = 0; k < old->nblocks; k++)
                    builder_block(b, base + (old->blocks[k].disp - old->true_lb),
                                  old->blocks[k].len);
            }
        }
    }
    if (old->align > b->align)
        b->align = old->align;
    if (b->basic == -1)
        b->basic = old->basic;
    else if (b->basic != old->basic)
        b->basic = B_NONE;
    if (b->elem_size == (size_t)-1)
        b->elem_size = old->elem_size;
    else if (b->elem_size != old->elem_size)
        b->elem_size = 0;
}

void dt_builder_set_bounds(dt_builder *b, MPI_Aint lb, MPI_Aint ub)
{
    b->sticky = 1;
    b->slb = lb;
    b->sub = ub;
}

/* A type with no data element takes its old type's basic type, so that reductions over an empty
 * vector of ints still see ints. */
static void builder_default_basic(dt_builder *b, MPI_Datatype old)
{
    if (b->basic == -1) {
        b->basic = old->basic;
        b->elem_size = old->elem_size;
    }
}

/* Frees a record whose types were never retained (the type was not created). */
static void contents_discard(dt_contents *c)
{
    if (c != NULL)
        c->nd = 0;
    dt_contents_free(c);
}

int dt_new_type(const char *fn, dt_builder *b, dt_contents *c, MPI_Datatype *newtype)
{
    MPI_Aint lb = 0, ub = 0, extent = 0;
    if (b->sticky) {
        lb = b->slb;
        ub = b->sub;
    } else if (b->any) {
        lb = b->lb;
        ub = b->ub;
    }
    if (!b->failed && __builtin_sub_overflow(ub, lb, &extent))
        b->failed = BF_OVERFLOW;
    struct credo_datatype *dt = NULL;
    if (!b->failed && c != NULL)
        dt = calloc(1, sizeof *dt);
    if (dt == NULL) {
        int failed = b->failed;
        free(b->blocks);
        contents_discard(c);
        if (failed == BF_OVERFLOW)
            return mpi_error(NULL, MPI_ERR_COUNT, fn,
                             "type too large: its size or byte offsets overflow MPI_Aint");
        if (failed == BF_BLOCKS)
            return mpi_error(NULL, MPI_ERR_COUNT, fn,
                             "type too large: more than %lld non-contiguous blocks",
                             (long long)DT_MAX_BLOCKS);
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    /* Give back the slack of the doubling growth: types can live long. */
    if (b->n > 0 && b->n < b->cap) {
        dt_block *nb = realloc(b->blocks, (size_t)b->n * sizeof *nb);
        if (nb != NULL)
            b->blocks = nb;
    }
    dt->magic = DT_MAGIC;
    mpi_handle_add(dt, HK_TYPE);
    dt->flags = b->sticky ? DT_F_STICKY : 0;
    dt->size = b->size;
    dt->lb = lb;
    dt->extent = extent;
    dt->true_lb = b->n ? b->tlb : 0;
    dt->true_extent = b->n ? b->tub - b->tlb : 0;
    dt->nblocks = b->n;
    dt->blocks = b->blocks;
    dt->elems = b->elems;
    dt->align = b->align;
    dt->basic = (int16_t)(b->basic < 0 ? B_NONE : b->basic);
    dt->elem_size = b->elem_size == (size_t)-1 ? 0 : b->elem_size;
    dt->refcount = 1;
    /* DENSE: count elements are count * size contiguous bytes from lb (the fast paths). */
    if (b->n == 0 || (b->n == 1 && b->blocks[0].disp == lb && (MPI_Aint)b->blocks[0].len == extent))
        dt->flags |= DT_F_DENSE;
    for (int i = 0; i < c->nd; i++)
        dt_retain(c->types[i]);
    dt->contents = c;
    *newtype = dt;
    return MPI_SUCCESS;
}

#define TYPE_ARGS_CHECK(fn, count, old, newtype)                                                   \
    do {                                                                                           \
        if (!MPI_READY())                                                                          \
            return mpi_not_ready(fn);                                                              \
        if ((count) < 0)                                                                           \
            return mpi_error(NULL, MPI_ERR_COUNT, fn, "negative count %d", (int)(count));          \
        if (!dt_live(old))                                                                         \
            return mpi_error(NULL, MPI_ERR_TYPE, fn, "invalid datatype");                          \
        if ((newtype) == NULL)                                                                     \
            return mpi_error(NULL, MPI_ERR_ARG, fn, "newtype is NULL");                            \
    } while (0)

/* The argument arrays of the indexed/struct constructors: non-NULL when count > 0, blocklengths
 * non-negative, and count small enough that the recorded integers (per_count * count + extra)
 * fit an int, as MPI_Type_get_envelope reports them in one. */
static int check_blocks(const char *fn, int count, const int *bl, const void *disp, int per_count,
                        int extra)
{
    if (count > 0 && (bl == NULL || disp == NULL))
        return mpi_error(NULL, MPI_ERR_ARG, fn, "NULL array");
    if ((int64_t)count * per_count + extra > INT_MAX)
        return mpi_error(NULL, MPI_ERR_COUNT, fn, "count %d too large", count);
    for (int i = 0; i < count; i++)
        if (bl[i] < 0)
            return mpi_error(NULL, MPI_ERR_ARG, fn, "negative blocklength %d in block %d", bl[i],
                             i);
    return MPI_SUCCESS;
}

/* Fails the builder early when the blocks of count entries (blocklength bl[i] or bl1 when bl is
 * NULL; type types[i] or old) exceed DT_MAX_BLOCKS, before any is appended. */
static void plan_entries(dt_builder *b, int count, const int *bl, int bl1, MPI_Datatype old,
                         const MPI_Datatype *types)
{
    int64_t total = 0;
    for (int i = 0; i < count && total <= DT_MAX_BLOCKS; i++) {
        int64_t c = dt_add_cost(types ? types[i] : old, bl ? bl[i] : bl1);
        total = c > DT_MAX_BLOCKS ? INT64_MAX : total + c; /* no overflow: total <= the limit */
    }
    dt_builder_plan(b, total);
}

/* count blocks of bl old elements, stride bytes apart. */
static void build_hvector(dt_builder *b, int count, int bl, MPI_Aint stride, MPI_Datatype old)
{
    MPI_Aint packed_stride;
    if (count == 0 || bl == 0)
        return;
    if (dt_aint_mul(old->extent, bl, &packed_stride) && stride == packed_stride) {
        /* Blocks that follow each other: the typemap is contiguous(count * bl)'s, built in one
         * append (one block when old is contiguous) instead of count. */
        dt_builder_add(b, old, 0, (int64_t)count * bl);
        return;
    }
    int64_t cost;
    if (__builtin_mul_overflow(dt_add_cost(old, bl), (int64_t)count, &cost))
        cost = INT64_MAX;
    dt_builder_plan(b, cost);
    for (int i = 0; i < count && !b->failed; i++) {
        MPI_Aint d;
        if (!dt_aint_mul(stride, i, &d)) {
            b->failed = BF_OVERFLOW;
            return;
        }
        dt_builder_add(b, old, d, bl);
    }
}

int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_create_hvector";
    TYPE_ARGS_CHECK(fn, count, oldtype, newtype);
    if (blocklength < 0)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "negative blocklength %d", blocklength);
    dt_contents *c = dt_contents_new(MPI_COMBINER_HVECTOR, 2, 1, 1);
    if (c != NULL) {
        c->ints[0] = count;
        c->ints[1] = blocklength;
        c->aints[0] = stride;
        c->types[0] = oldtype;
    }
    dt_builder b;
    dt_builder_init(&b);
    build_hvector(&b, count, blocklength, stride, oldtype);
    builder_default_basic(&b, oldtype);
    return dt_new_type(fn, &b, c, newtype);
}

int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_contiguous";
    TYPE_ARGS_CHECK(fn, count, oldtype, newtype);
    dt_contents *c = dt_contents_new(MPI_COMBINER_CONTIGUOUS, 1, 0, 1);
    if (c != NULL) {
        c->ints[0] = count;
        c->types[0] = oldtype;
    }
    dt_builder b;
    dt_builder_init(&b);
    dt_builder_add(&b, oldtype, 0, count);
    builder_default_basic(&b, oldtype);
    return dt_new_type(fn, &b, c, newtype);
}

int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                    MPI_Datatype *newtype)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_vector";
    TYPE_ARGS_CHECK(fn, count, oldtype, newtype);
    if (blocklength < 0)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "negative blocklength %d", blocklength);
    dt_contents *c = dt_contents_new(MPI_COMBINER_VECTOR, 3, 0, 1);
    if (c != NULL) {
        c->ints[0] = count;
        c->ints[1] = blocklength;
        c->ints[2] = stride;
        c->types[0] = oldtype;
    }
    dt_builder b;
    dt_builder_init(&b);
    MPI_Aint bstride;
    if (dt_aint_mul(oldtype->extent, stride, &bstride))
        build_hvector(&b, count, blocklength, bstride, oldtype);
    else if (count > 1 && blocklength > 0)
        b.failed = BF_OVERFLOW;
    else
        build_hvector(&b, count, blocklength, 0, oldtype);
    builder_default_basic(&b, oldtype);
    return dt_new_type(fn, &b, c, newtype);
}

int MPI_Type_indexed(int count, const int array_of_blocklengths[],
                     const int array_of_displacements[], MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_indexed";
    TYPE_ARGS_CHECK(fn, count, oldtype, newtype);
    int rc = check_blocks(fn, count, array_of_blocklengths, array_of_displacements, 2, 1);
    if (rc != MPI_SUCCESS)
        return rc;
    dt_contents *c = dt_contents_new(MPI_COMBINER_INDEXED, 2 * (int64_t)count + 1, 0, 1);
    if (c != NULL) {
        c->ints[0] = count;
        for (int i = 0; i < count; i++) {
            c->ints[1 + i] = array_of_blocklengths[i];
            c->ints[1 + count + i] = array_of_displacements[i];
        }
        c->types[0] = oldtype;
    }
    dt_builder b;
    dt_builder_init(&b);
    plan_entries(&b, count, array_of_blocklengths, 0, oldtype, NULL);
    for (int i = 0; i < count && !b.failed; i++) {
        MPI_Aint d;
        if (!dt_aint_mul(oldtype->extent, array_of_displacements[i], &d))
            b.failed = BF_OVERFLOW;
        else
            dt_builder_add(&b, oldtype, d, array_of_blocklengths[i]);
    }
    builder_default_basic(&b, oldtype);
    return dt_new_type(fn, &b, c, newtype);
}

int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                             const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_create_hindexed";
    TYPE_ARGS_CHECK(fn, count, oldtype, newtype);
    int rc = check_blocks(fn, count, array_of_blocklengths, array_of_displacements, 1, 1);
    if (rc != MPI_SUCCESS)
        return rc;
    dt_contents *c = dt_contents_new(MPI_COMBINER_HINDEXED, (int64_t)count + 1, count, 1);
    if (c != NULL) {
        c->ints[0] = count;
        for (int i = 0; i < count; i++) {
            c->ints[1 + i] = array_of_blocklengths[i];
            c->aints[i] = array_of_displacements[i];
        }
        c->types[0] = oldtype;
    }
    dt_builder b;
    dt_builder_init(&b);
    plan_entries(&b, count, array_of_blocklengths, 0, oldtype, NULL);
    for (int i = 0; i < count && !b.failed; i++)
        dt_builder_add(&b, oldtype, array_of_displacements[i], array_of_blocklengths[i]);
    builder_default_basic(&b, oldtype);
    return dt_new_type(fn, &b, c, newtype);
}

int MPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_create_indexed_block";
    TYPE_ARGS_CHECK(fn, count, oldtype, newtype);
    if (blocklength < 0)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "negative blocklength %d", blocklength);
    if (count > 0 && array_of_displacements == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "NULL array");
    if (count > INT_MAX - 2)
        return mpi_error(NULL, MPI_ERR_COUNT, fn, "count %d too large", count);
    dt_contents *c = dt_contents_new(MPI_COMBINER_INDEXED_BLOCK, (int64_t)count + 2, 0, 1);
    if (c != NULL) {
        c->ints[0] = count;
        c->ints[1] = blocklength;
        /* count 0 allows a NULL array, which memcpy must not see even for 0 bytes. */
        if (count > 0)
            memcpy(c->ints + 2, array_of_displacements, (size_t)count * sizeof(int));
        c->types[0] = oldtype;
    }
    dt_builder b;
    dt_builder_init(&b);
    plan_entries(&b, count, NULL, blocklength, oldtype, NULL);
    for (int i = 0; i < count && blocklength > 0 && !b.failed; i++) {
        MPI_Aint d;
        if (!dt_aint_mul(oldtype->extent, array_of_displacements[i], &d))
            b.failed = BF_OVERFLOW;
        else
            dt_builder_add(&b, oldtype, d, blocklength);
    }
    builder_default_basic(&b, oldtype);
    return dt_new_type(fn, &b, c, newtype);
}

int MPI_Type_create_hindexed_block(int count, int blocklength,
                                   const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype *newtype)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_create_hindexed_block";
    TYPE_ARGS_CHECK(fn, count, oldtype, newtype);
    if (blocklength < 0)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "negative blocklength %d", blocklength);
    if (count > 0 && array_of_displacements == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "NULL array");
    dt_contents *c = dt_contents_new(MPI_COMBINER_HINDEXED_BLOCK, 2, count, 1);
    if (c != NULL) {
        c->ints[0] = count;
        c->ints[1] = blocklength;
        if (count > 0) /* as above; c->aints is NULL too then */
            memcpy(c->aints, array_of_displacements, (size_t)count * sizeof(MPI_Aint));
        c->types[0] = oldtype;
    }
    dt_builder b;
    dt_builder_init(&b);
    plan_entries(&b, count, NULL, blocklength, oldtype, NULL);
    for (int i = 0; i < count && blocklength > 0 && !b.failed; i++)
        dt_builder_add(&b, oldtype, array_of_displacements[i], blocklength);
    builder_default_basic(&b, oldtype);
    return dt_new_type(fn, &b, c, newtype);
}

int MPI_Type_create_struct(int count, const int array_of_blocklengths[],
                           const MPI_Aint array_of_displacements[],
                           const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_create_struct";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (count < 0)
        return mpi_error(NULL, MPI_ERR_COUNT, fn, "negative count %d", count);
    if (newtype == NULL || (count > 0 && array_of_types == NULL))
        return mpi_error(NULL, MPI_ERR_ARG, fn, "NULL argument");
    int rc = check_blocks(fn, count, array_of_blocklengths, array_of_displacements, 1, 1);
    if (rc != MPI_SUCCESS)
        return rc;
    for (int i = 0; i < count; i++)
        if (!dt_live(array_of_types[i]))
            return mpi_error(NULL, MPI_ERR_TYPE, fn, "invalid datatype in block %d", i);
    dt_contents *c = dt_contents_new(MPI_COMBINER_STRUCT, (int64_t)count + 1, count, count);
    if (c != NULL) {
        c->ints[0] = count;
        for (int i = 0; i < count; i++) {
            c->ints[1 + i] = array_of_blocklengths[i];
            c->aints[i] = array_of_displacements[i];
            c->types[i] = array_of_types[i];
        }
    }
    dt_builder b;
    dt_builder_init(&b);
    plan_entries(&b, count, array_of_blocklengths, 0, NULL, array_of_types);
    for (int i = 0; i < count && !b.failed; i++)
        dt_builder_add(&b, array_of_types[i], array_of_displacements[i], array_of_blocklengths[i]);
    dt_builder_pad_struct(&b);
    return dt_new_type(fn, &b, c, newtype);
}

void dt_builder_pad_struct(dt_builder *b)
{
    if (b->any && !b->sticky && b->align > 1 && !b->failed) {
        MPI_Aint ext = b->ub - b->lb, a = (MPI_Aint)b->align, padded;
        if (!dt_aint_add(ext, a - 1, &padded) || !dt_aint_add(b->lb, padded / a * a, &b->ub))
            b->failed = BF_OVERFLOW;
    }
}

int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                            MPI_Datatype *newtype)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_create_resized";
    TYPE_ARGS_CHECK(fn, 0, oldtype, newtype);
    dt_contents *c = dt_contents_new(MPI_COMBINER_RESIZED, 0, 2, 1);
    if (c != NULL) {
        c->aints[0] = lb;
        c->aints[1] = extent;
        c->types[0] = oldtype;
    }
    dt_builder b;
    dt_builder_init(&b);
    dt_builder_add(&b, oldtype, 0, 1);
    MPI_Aint ub;
    if (!dt_aint_add(lb, extent, &ub))
        b.failed = BF_OVERFLOW;
    dt_builder_set_bounds(&b, lb, ub);
    return dt_new_type(fn, &b, c, newtype);
}

int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_dup";
    TYPE_ARGS_CHECK(fn, 0, oldtype, newtype);
    struct credo_datatype *dt = malloc(sizeof *dt);
    dt_block *blocks = malloc((size_t)(oldtype->nblocks ? oldtype->nblocks : 1) * sizeof *blocks);
    dt_contents *c = dt_contents_new(MPI_COMBINER_DUP, 0, 0, 1);
    if (dt == NULL || blocks == NULL || c == NULL) {
        free(dt);
        free(blocks);
        contents_discard(c);
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    *dt = *oldtype;
    mpi_handle_add(dt, HK_TYPE);
    memcpy(blocks, oldtype->blocks, (size_t)oldtype->nblocks * sizeof *blocks);
    dt->blocks = blocks;
    /* Same typemap, bounds and committed state; not the name (set per handle) nor the record. */
    dt->flags &= (uint16_t) ~(DT_F_PREDEF | DT_F_NAME_OWNED | DT_F_FREED);
    dt->refcount = 1;
    dt->name = NULL;
    c->types[0] = oldtype;
    dt_retain(oldtype);
    dt->contents = c;
    /* The copy callbacks decide which attributes the duplicate gets (MPI 3.1 §6.7.4). When one
     * fails, the copies made so far are deleted with the duplicate and newtype is
     * MPI_DATATYPE_NULL, as a failed MPI_Comm_dup leaves MPI_COMM_NULL. */
    int rc = dt_attr_copy(oldtype, dt);
    if (rc != MPI_SUCCESS) {
        dt_attr_free(dt);
        dt_release(dt);
        *newtype = MPI_DATATYPE_NULL;
        return mpi_error(NULL, rc, fn, "attribute copy callback failed (%d)", rc);
    }
    *newtype = dt;
    return MPI_SUCCESS;
}

int MPI_Type_commit(MPI_Datatype *datatype)
{
    MPI_ENTER();
    if (!MPI_READY())
        return mpi_not_ready("MPI_Type_commit");
    if (datatype == NULL || !dt_live(*datatype))
        return mpi_error(NULL, MPI_ERR_TYPE, "MPI_Type_commit", "invalid datatype");
    (*datatype)->flags |= DT_F_COMMITTED;
    return MPI_SUCCESS;
}

int MPI_Type_free(MPI_Datatype *datatype)
{
    MPI_ENTER();
    if (!MPI_READY())
        return mpi_not_ready("MPI_Type_free");
    if (datatype == NULL || !dt_live(*datatype))
        return mpi_error(NULL, MPI_ERR_TYPE, "MPI_Type_free", "invalid datatype");
    if ((*datatype)->flags & DT_F_PREDEF)
        return mpi_error(NULL, MPI_ERR_TYPE, "MPI_Type_free", "cannot free predefined %s",
                         (*datatype)->name);
    /* Delete callbacks see a valid type; they all run even if one fails, and the type is freed
     * either way (as MPI_Comm_free does). */
    int rc = dt_attr_free(*datatype);
    dt_release(*datatype);
    *datatype = MPI_DATATYPE_NULL;
    if (rc != MPI_SUCCESS)
        return mpi_error(NULL, rc, "MPI_Type_free", "attribute delete callback failed (%d)", rc);
    return MPI_SUCCESS;
}

/* ---- queries ---- */

#define QUERY_CHECK(fn, dt, out)                                                                   \
    do {                                                                                           \
        if (!dt_live(dt))                                                                          \
            return mpi_error(NULL, MPI_ERR_TYPE, fn, "invalid datatype");                          \
        if ((out) == NULL)                                                                         \
            return mpi_error(NULL, MPI_ERR_ARG, fn, "NULL output argument");                       \
    } while (0)

int MPI_Type_size(MPI_Datatype datatype, int *size)
{
    MPI_ENTER();
    QUERY_CHECK("MPI_Type_size", datatype, size);
    *size = datatype->size > 0x7fffffff ? MPI_UNDEFINED : (int)datatype->size;
    return MPI_SUCCESS;
}

int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    MPI_ENTER();
    QUERY_CHECK("MPI_Type_size_x", datatype, size);
    *size = (MPI_Count)datatype->size;
    return MPI_SUCCESS;
}

int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    MPI_ENTER();
    QUERY_CHECK("MPI_Type_get_extent", datatype, lb);
    QUERY_CHECK("MPI_Type_get_extent", datatype, extent);
    *lb = datatype->lb;
    *extent = datatype->extent;
    return MPI_SUCCESS;
}

int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    MPI_ENTER();
    QUERY_CHECK("MPI_Type_get_true_extent", datatype, true_lb);
    QUERY_CHECK("MPI_Type_get_true_extent", datatype, true_extent);
    *true_lb = datatype->true_lb;
    *true_extent = datatype->true_extent;
    return MPI_SUCCESS;
}

int MPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    MPI_ENTER();
    QUERY_CHECK("MPI_Type_get_name", datatype, type_name);
    QUERY_CHECK("MPI_Type_get_name", datatype, resultlen);
    const char *n = datatype->name ? datatype->name : "";
    size_t len = strlen(n);
    if (len >= MPI_MAX_OBJECT_NAME)
        len = MPI_MAX_OBJECT_NAME - 1;
    memcpy(type_name, n, len);
    type_name[len] = '\0';
    *resultlen = (int)len;
    return MPI_SUCCESS;
}

int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    MPI_ENTER();
    QUERY_CHECK("MPI_Type_get_extent_x", datatype, lb);
    QUERY_CHECK("MPI_Type_get_extent_x", datatype, extent);
    *lb = datatype->lb;
    *extent = datatype->extent;
    return MPI_SUCCESS;
}

int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    MPI_ENTER();
    QUERY_CHECK("MPI_Type_get_true_extent_x", datatype, true_lb);
    QUERY_CHECK("MPI_Type_get_true_extent_x", datatype, true_extent);
    *true_lb = datatype->true_lb;
    *true_extent = datatype->true_extent;
    return MPI_SUCCESS;
}

/* Predefined types may be renamed too (the standard allows it); their new name is then owned like
 * a derived type's and never freed, as the type itself is never freed. Longer names are truncated
 * to MPI_MAX_OBJECT_NAME - 1 characters, as MPI_Comm_set_name does. */
int MPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_set_name";
    if (!dt_live(datatype))
        return mpi_error(NULL, MPI_ERR_TYPE, fn, "invalid datatype");
    if (type_name == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "name is NULL");
    size_t len = strlen(type_name);
    if (len >= MPI_MAX_OBJECT_NAME)
        len = MPI_MAX_OBJECT_NAME - 1;
    char *copy = malloc(len + 1);
    if (copy == NULL)
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    memcpy(copy, type_name, len);
    copy[len] = '\0';
    if (datatype->flags & DT_F_NAME_OWNED)
        free((void *)datatype->name);
    datatype->name = copy;
    datatype->flags |= DT_F_NAME_OWNED;
    return MPI_SUCCESS;
}

/* credo has no Fortran types, so the match is the C type of that class and size: the exact-width
 * integers, float/double/long double and their complex types. */
int MPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_match_size";
    static const MPI_Datatype integers[] = {MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_INTEGER16};
    static const MPI_Datatype reals[] = {MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE};
    static const MPI_Datatype complexes[] = {MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
                                             MPI_C_LONG_DOUBLE_COMPLEX};
    const MPI_Datatype *set;
    size_t n;
    if (datatype == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "datatype is NULL");
    switch (typeclass) {
#define LIST(a) set = a, n = sizeof a / sizeof a[0]
    case MPI_TYPECLASS_INTEGER: LIST(integers); break;
    case MPI_TYPECLASS_REAL: LIST(reals); break;
    case MPI_TYPECLASS_COMPLEX: LIST(complexes); break;
#undef LIST
    default: return mpi_error(NULL, MPI_ERR_ARG, fn, "invalid typeclass %d", typeclass);
    }
    for (size_t i = 0; i < n; i++)
        if (size >= 0 && set[i]->size == (size_t)size) {
            *datatype = set[i];
            return MPI_SUCCESS;
        }
    return mpi_error(NULL, MPI_ERR_ARG, fn, "no type of class %d has size %d", typeclass, size);
}

/* MPI_Type_create_f90_real/_complex/_integer (MPI 4.0 §19.1.9): a type of the Fortran kind that
 * SELECTED_REAL_KIND(p, r) or SELECTED_INT_KIND(r) would pick, i.e. the one of least precision
 * (range) meeting the request. credo has no Fortran compiler to ask, so the kinds are the C types it
 * has, with precision and range as Fortran's PRECISION and RANGE define them: <float.h>'s *_DIG, and
 * the smaller of the two decimal exponent limits. On x86-64 that is REAL4 (6, 37), REAL8 (15, 307)
 * and long double (18, 4931); a 16-byte quad real has no type here (MPI_REAL16 is
 * MPI_DATATYPE_NULL), so more precision or range is MPI_ERR_ARG, as when no Fortran kind exists.
 *
 * The standard makes the result predefined but not named: MPI_Type_free refuses it, while
 * MPI_Type_get_envelope reports MPI_COMBINER_F90_REAL/_COMPLEX/_INTEGER with the p and r asked for
 * (get_contents hands them back as given, MPI_UNDEFINED included), and a repeated request returns
 * the same handle. So each distinct (combiner, p, r) gets one copy of the named type it maps to,
 * kept in the cache below until the runtime shuts down: the same typemap, basic type and flags
 * (DT_F_PREDEF included, so that data, matching, reductions, RMA and external32 treat it as the
 * named type, and retain/release leave it alone), plus a constructor record of that combiner with
 * the integers and no types, and a name of its own. */
#define F90_RANGE(min10, max10) ((-(min10)) < (max10) ? -(min10) : (max10))

static const struct f90_real_kind {
    int precision, range;
    MPI_Datatype real, complex;
} f90_reals[] = {
    {FLT_DIG, F90_RANGE(FLT_MIN_10_EXP, FLT_MAX_10_EXP), MPI_REAL4, MPI_COMPLEX8},
    {DBL_DIG, F90_RANGE(DBL_MIN_10_EXP, DBL_MAX_10_EXP), MPI_REAL8, MPI_COMPLEX16},
    {LDBL_DIG, F90_RANGE(LDBL_MIN_10_EXP, LDBL_MAX_10_EXP), MPI_LONG_DOUBLE, MPI_C_LONG_DOUBLE_COMPLEX},
};

/* The types handed out so far, one per distinct request (p is 0 for integers). Programs ask for a
 * handful of kinds, so a linear search is enough; the entries live until mpi_dt_finalize. */
static struct f90_entry {
    int combiner, p, r;
    MPI_Datatype type;
} *f90_cache;
static size_t f90_n, f90_cap;

static void f90_param(char *buf, size_t n, int v)
{
    if (v == MPI_UNDEFINED)
        snprintf(buf, n, "MPI_UNDEFINED");
    else
        snprintf(buf, n, "%d", v);
}

/* The cached type of (combiner, p, r), made from named on first request. Called under the lock. */
static int f90_type(const char *fn, int combiner, int p, int r, MPI_Datatype named,
                    MPI_Datatype *newtype)
{
    for (size_t i = 0; i < f90_n; i++)
        if (f90_cache[i].combiner == combiner && f90_cache[i].p == p && f90_cache[i].r == r) {
            *newtype = f90_cache[i].type;
            return MPI_SUCCESS;
        }
    if (f90_n == f90_cap) {
        size_t cap = f90_cap ? 2 * f90_cap : 8;
        struct f90_entry *v = realloc(f90_cache, cap * sizeof *v);
        if (v == NULL)
            return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
        f90_cache = v;
        f90_cap = cap;
    }
    const int is_int = combiner == MPI_COMBINER_F90_INTEGER;
    struct credo_datatype *dt = malloc(sizeof *dt);
    dt_block *blocks = malloc((size_t)(named->nblocks ? named->nblocks : 1) * sizeof *blocks);
    char *name = malloc(MPI_MAX_OBJECT_NAME);
    dt_contents *c = dt_contents_new(combiner, is_int ? 1 : 2, 0, 0);
    if (dt == NULL || blocks == NULL || name == NULL || c == NULL) {
        free(dt);
        free(blocks);
        free(name);
        dt_contents_free(c);
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    char ps[16], rs[16];
    f90_param(ps, sizeof ps, p);
    f90_param(rs, sizeof rs, r);
    /* The named type's standard name (not named->name, which a program may have changed), then
     * the call: "MPI_REAL8 from f90_real(15, MPI_UNDEFINED)", at most 61 characters for the
     * values MPI_Type_create_f90_* accepts. */
    static const struct {
        MPI_Datatype type;
        const char *name;
    } names[] = {{MPI_REAL4, "MPI_REAL4"}, {MPI_REAL8, "MPI_REAL8"},
                 {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE"}, {MPI_COMPLEX8, "MPI_COMPLEX8"},
                 {MPI_COMPLEX16, "MPI_COMPLEX16"},
                 {MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX"},
                 {MPI_INTEGER1, "MPI_INTEGER1"}, {MPI_INTEGER2, "MPI_INTEGER2"},
                 {MPI_INTEGER4, "MPI_INTEGER4"}, {MPI_INTEGER8, "MPI_INTEGER8"},
                 {MPI_INTEGER16, "MPI_INTEGER16"}};
    const char *base = "";
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].type == named)
            base = names[i].name;
    /* The return value is checked, which also tells -O3's format-truncation check that a cut
     * would be deliberate: ps and rs are sized for any int, but accepted p and r fit 64 bytes. */
    const int name_len =
        is_int ? snprintf(name, MPI_MAX_OBJECT_NAME, "%s from f90_integer(%s)", base, rs)
               : snprintf(name, MPI_MAX_OBJECT_NAME, "%s from f90_%s(%s, %s)", base,
                          combiner == MPI_COMBINER_F90_REAL ? "real" : "complex", ps, rs);
    if (name_len < 0)
        name[0] = '\0';
    *dt = *named;
    mpi_handle_add(dt, HK_TYPE);
    memcpy(blocks, named->blocks, (size_t)named->nblocks * sizeof *blocks);
    dt->blocks = blocks;
    dt->flags = (uint16_t)((named->flags & ~(DT_F_NAME_OWNED | DT_F_FREED)) | DT_F_PREDEF |
                           DT_F_COMMITTED | DT_F_NAME_OWNED);
    dt->refcount = 1;
    dt->name = name;
    if (is_int) {
        c->ints[0] = r;
    } else {
        c->ints[0] = p;
        c->ints[1] = r;
    }
    dt->contents = c;
    f90_cache[f90_n++] = (struct f90_entry){combiner, is_int ? 0 : p, r, dt};
    *newtype = dt;
    return MPI_SUCCESS;
}

/* The runtime shuts down (MPI_Finalize or the last MPI_Session_finalize): the cached types go,
 * before the attribute tables (dt_release drops the type's attributes from them). */
void mpi_dt_finalize(void)
{
    for (size_t i = 0; i < f90_n; i++) {
        struct credo_datatype *dt = f90_cache[i].type;
        dt->flags &= (uint16_t)~DT_F_PREDEF; /* so that dt_release destroys it */
        dt->refcount = 1;
        dt_release(dt);
    }
    free(f90_cache);
    f90_cache = NULL;
    f90_n = f90_cap = 0;
}

/* p or r may be MPI_UNDEFINED (no constraint), not both; like SELECTED_REAL_KIND, a value below
 * every kind's (a negative one) constrains nothing either. */
static int f90_real_kind(const char *fn, int p, int r, int want_complex, MPI_Datatype *newtype)
{
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (newtype == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "newtype is NULL");
    if (p == MPI_UNDEFINED && r == MPI_UNDEFINED)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "p and r are both MPI_UNDEFINED");
    for (size_t i = 0; i < sizeof f90_reals / sizeof f90_reals[0]; i++)
        if ((p == MPI_UNDEFINED || p <= f90_reals[i].precision) &&
            (r == MPI_UNDEFINED || r <= f90_reals[i].range))
            return f90_type(fn, want_complex ? MPI_COMBINER_F90_COMPLEX : MPI_COMBINER_F90_REAL,
                            p, r, want_complex ? f90_reals[i].complex : f90_reals[i].real,
                            newtype);
    return mpi_error(NULL, MPI_ERR_ARG, fn, "no %s type has precision %d and range %d",
                     want_complex ? "complex" : "real", p, r);
}

int MPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    MPI_ENTER();
    return f90_real_kind("MPI_Type_create_f90_real", p, r, 0, newtype);
}

int MPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    MPI_ENTER();
    return f90_real_kind("MPI_Type_create_f90_complex", p, r, 1, newtype);
}

/* SELECTED_INT_KIND(r): the smallest integer holding every value of -10^r < n < 10^r. r has no
 * MPI_UNDEFINED form here (the standard gives it none). */
int MPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_create_f90_integer";
    static const struct {
        int range;
        MPI_Datatype type;
    } ints[] = {{2, MPI_INTEGER1}, {4, MPI_INTEGER2}, {9, MPI_INTEGER4}, {18, MPI_INTEGER8}, {38, MPI_INTEGER16}};
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (newtype == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "newtype is NULL");
    if (r == MPI_UNDEFINED)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "r is MPI_UNDEFINED");
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (r <= ints[i].range)
            return f90_type(fn, MPI_COMBINER_F90_INTEGER, 0, r, ints[i].type, newtype);
    return mpi_error(NULL, MPI_ERR_ARG, fn, "no integer type has range %d", r);
}

/* Address arithmetic: plain integer arithmetic on credo's flat address space. Like
 * MPI_Get_address they work before MPI_Init. */
MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}

MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}

int MPI_Get_address(const void *location, MPI_Aint *address)
{
    MPI_ENTER();
    if (address == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, "MPI_Get_address", "address is NULL");
    *address = (MPI_Aint)location;
    return MPI_SUCCESS;
}

int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPI_ENTER();
    QUERY_CHECK("MPI_Get_count", datatype, count);
    if (status == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, "MPI_Get_count", "status is NULL");
    long long bytes = status->credo_count_bytes;
    if (datatype->size == 0) {
        *count = 0;
        return MPI_SUCCESS;
    }
    if (bytes % (long long)datatype->size != 0 || bytes / (long long)datatype->size > 0x7fffffff)
        *count = MPI_UNDEFINED;
    else
        *count = (int)(bytes / (long long)datatype->size);
    return MPI_SUCCESS;
}

/* Basic elements wholly inside the first `bytes` packed bytes (bytes < dt->size) of one dt, or -1
 * if the type map cannot be walked. Types whose elements all have one size divide; others are
 * walked through their constructor arguments in type-map order: a struct's blocks one after the
 * other, any other constructor's copies of its single old type; a predefined pair (MPI_DOUBLE_INT
 * ...) is its value, then an int. */
static long long elems_in_prefix(MPI_Datatype dt, long long bytes)
{
    if (dt->elem_size != 0)
        return bytes / (long long)dt->elem_size;
    const dt_contents *c = dt->contents;
    if (c == NULL || c->nd == 0) /* a predefined pair, or a record without types (F90 kinds) */
        return (dt->flags & DT_F_PREDEF) ? bytes >= (long long)(dt->size - sizeof(int)) : -1;
    int pieces = c->combiner == MPI_COMBINER_STRUCT ? c->ints[0] : 1;
    long long n = 0;
    for (int i = 0; i < pieces; i++) {
        MPI_Datatype t = c->types[i];
        long long k = c->combiner == MPI_COMBINER_STRUCT ? c->ints[1 + i]
                      : t->size ? (long long)(dt->size / t->size) : 0;
        long long piece = k * (long long)t->size;
        if (bytes < piece) {
            long long rest = elems_in_prefix(t, bytes % (long long)t->size);
            return rest < 0 ? -1 : n + bytes / (long long)t->size * (long long)t->elems + rest;
        }
        n += k * (long long)t->elems;
        bytes -= piece;
    }
    return n;
}

int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    MPI_ENTER();
    QUERY_CHECK("MPI_Get_elements", datatype, count);
    if (status == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, "MPI_Get_elements", "status is NULL");
    long long bytes = status->credo_count_bytes;
    if (datatype->size == 0) {
        *count = 0;
        return MPI_SUCCESS;
    }
    long long full = bytes / (long long)datatype->size;
    long long rest = bytes % (long long)datatype->size;
    long long n = full * (long long)datatype->elems;
    if (rest != 0) {
        /* a partial item: count its basic elements that arrived whole (MPI 3.1 4.1.11); bytes that
         * end inside a basic element mean the sender's type did not match */
        long long part = elems_in_prefix(datatype, rest);
        long long whole_bytes = -1;
        if (part >= 0 && datatype->elem_size != 0)
            whole_bytes = part * (long long)datatype->elem_size;
        if (part < 0 || (whole_bytes >= 0 && whole_bytes != rest))
            n = MPI_UNDEFINED;
        else
            n += part;
    }
    *count = n;
    return MPI_SUCCESS;
}

/* MPI 3.1 12.3 (usable without generalized requests): makes MPI_Get_elements(status, datatype)
 * answer count, and MPI_Get_count answer what count elements of datatype are. The status stores
 * bytes: whole items, then the bytes of the first count % elems basic elements of one more item
 * (the smallest prefix that holds them). */
int MPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Status_set_elements";
    if (status == NULL || status == MPI_STATUS_IGNORE)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "status is NULL");
    if (!dt_live(datatype))
        return mpi_error(NULL, MPI_ERR_TYPE, fn, "invalid datatype");
    if (count < 0)
        return mpi_error(NULL, MPI_ERR_COUNT, fn, "count %lld is negative", (long long)count);
    if (datatype->size == 0 || datatype->elems == 0) {
        if (count != 0)
            return mpi_error(NULL, MPI_ERR_COUNT, fn, "a datatype of size 0 holds no elements");
        status->credo_count_bytes = 0;
        return MPI_SUCCESS;
    }
    long long items = count / (long long)datatype->elems, part = count % (long long)datatype->elems;
    if (items > LLONG_MAX / (long long)datatype->size)
        return mpi_error(NULL, MPI_ERR_COUNT, fn, "count %lld is too large", (long long)count);
    long long lo = 0, hi = (long long)datatype->size; /* smallest prefix holding `part` elements */
    while (part && lo < hi) {
        long long mid = lo + (hi - lo) / 2;
        long long e = elems_in_prefix(datatype, mid);
        if (e < 0)
            return mpi_error(NULL, MPI_ERR_TYPE, fn, "cannot walk the type map of this datatype");
        if (e >= part)
            hi = mid;
        else
            lo = mid + 1;
    }
    status->credo_count_bytes = items * (long long)datatype->size + (part ? lo : 0);
    return MPI_SUCCESS;
}

int MPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    return PMPI_Status_set_elements_x(status, datatype, count);
}

int MPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPI_ENTER();
    if (count == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, "MPI_Get_elements", "count is NULL");
    MPI_Count n = 0;
    int rc = PMPI_Get_elements_x(status, datatype, &n);
    if (rc == MPI_SUCCESS)
        *count = n > 0x7fffffff ? MPI_UNDEFINED : (int)n;
    return rc;
}

/* ---- MPI_Pack / MPI_Unpack: the packed format is the flattened bytes (one host, no conversion) */

/* The checks of MPI_Pack_size and MPI_Pack_size_c and the byte count (-1 when incount * size
 * overflows MPI_Count; each form reports that its own way). */
int mpi_pack_size_bytes(const char *fn, MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
                        const void *size, long long *bytes)
{
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (!comm_ok(comm))
        return mpi_error(NULL, MPI_ERR_COMM, fn, "invalid communicator");
    if (!dt_ok(datatype))
        return mpi_error(comm, MPI_ERR_TYPE, fn, "invalid or uncommitted datatype");
    if (incount < 0)
        return mpi_error(comm, MPI_ERR_COUNT, fn, "negative count %lld", (long long)incount);
    if (size == NULL)
        return mpi_error(comm, MPI_ERR_ARG, fn, "size is NULL");
    if (__builtin_mul_overflow((long long)incount, (long long)datatype->size, bytes))
        *bytes = -1;
    return MPI_SUCCESS;
}

int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    MPI_ENTER();
    long long n = 0;
    int rc = mpi_pack_size_bytes("MPI_Pack_size", incount, datatype, comm, size, &n);
    if (rc == MPI_SUCCESS)
        *size = n < 0 || n > 0x7fffffff ? MPI_UNDEFINED : (int)n;
    return rc;
}

int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
             int *position, MPI_Comm comm)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Pack";
    int rc;
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (!comm_ok(comm))
        return mpi_error(NULL, MPI_ERR_COMM, fn, "invalid communicator");
    if ((rc = mpi_check_buf(comm, fn, inbuf, incount, datatype)) != MPI_SUCCESS)
        return rc;
    if (position == NULL || *position < 0 || outsize < 0 || (outbuf == NULL && outsize > 0))
        return mpi_error(comm, MPI_ERR_ARG, fn, "invalid output buffer or position");
    size_t n;
    if (__builtin_mul_overflow((size_t)incount, datatype->size, &n))
        n = SIZE_MAX; /* cannot fit: reported as truncation below */
    if (n > (size_t)outsize - (size_t)*position || *position > outsize)
        return mpi_error(comm, MPI_ERR_TRUNCATE, fn, "%zu bytes do not fit at position %d of %d",
                         n, *position, outsize);
    dt_pack(inbuf, (size_t)incount, datatype, (char *)outbuf + *position);
    *position += (int)n;
    return MPI_SUCCESS;
}

int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
               MPI_Datatype datatype, MPI_Comm comm)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Unpack";
    int rc;
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (!comm_ok(comm))
        return mpi_error(NULL, MPI_ERR_COMM, fn, "invalid communicator");
    if ((rc = mpi_check_buf(comm, fn, outbuf, outcount, datatype)) != MPI_SUCCESS)
        return rc;
    if (position == NULL || *position < 0 || insize < 0 || (inbuf == NULL && insize > 0))
        return mpi_error(comm, MPI_ERR_ARG, fn, "invalid input buffer or position");
    size_t n;
    if (__builtin_mul_overflow((size_t)outcount, datatype->size, &n))
        n = SIZE_MAX; /* cannot fit: reported as truncation below */
    if (n > (size_t)insize - (size_t)*position || *position > insize)
        return mpi_error(comm, MPI_ERR_TRUNCATE, fn, "%zu bytes requested at position %d of %d",
                         n, *position, insize);
    dt_unpack((const char *)inbuf + *position, n, (size_t)outcount, datatype, outbuf);
    *position += (int)n;
    return MPI_SUCCESS;
}

CREDO_PMPI(MPI_Type_create_hvector)
CREDO_PMPI(MPI_Type_contiguous)
CREDO_PMPI(MPI_Type_vector)
CREDO_PMPI(MPI_Type_indexed)
CREDO_PMPI(MPI_Type_create_struct)
CREDO_PMPI(MPI_Type_create_resized)
CREDO_PMPI(MPI_Type_dup)
CREDO_PMPI(MPI_Type_commit)
CREDO_PMPI(MPI_Type_free)
CREDO_PMPI(MPI_Type_size)
CREDO_PMPI(MPI_Type_size_x)
CREDO_PMPI(MPI_Type_get_extent)
CREDO_PMPI(MPI_Type_get_true_extent)
CREDO_PMPI(MPI_Type_get_name)
CREDO_PMPI(MPI_Type_create_hindexed)
CREDO_PMPI(MPI_Type_create_indexed_block)
CREDO_PMPI(MPI_Type_create_hindexed_block)
CREDO_PMPI(MPI_Type_get_extent_x)
CREDO_PMPI(MPI_Type_get_true_extent_x)
CREDO_PMPI(MPI_Type_set_name)
CREDO_PMPI(MPI_Type_match_size)
CREDO_PMPI(MPI_Type_create_f90_real)
CREDO_PMPI(MPI_Type_create_f90_complex)
CREDO_PMPI(MPI_Type_create_f90_integer)
CREDO_PMPI(MPI_Aint_add)
CREDO_PMPI(MPI_Aint_diff)
CREDO_PMPI(MPI_Get_address)
CREDO_PMPI(MPI_Get_count)
CREDO_PMPI(MPI_Get_elements_x)
CREDO_PMPI(MPI_Get_elements)
CREDO_PMPI(MPI_Status_set_elements_x)
CREDO_PMPI(MPI_Status_set_elements)
CREDO_PMPI(MPI_Pack_size)
CREDO_PMPI(MPI_Pack)
CREDO_PMPI(MPI_Unpack)
