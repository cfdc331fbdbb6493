/* src/mpi/datatype.c — datatypes: the predefined C types, derived type constructors flattened into
 * byte blocks, pack/unpack, and the size/extent/count queries. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "mpi/mpi_impl.h"
#include "mpi/op.h"

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
DT_BASIC(long_long, long long, B_LLONG, "MPI_LONG_LONG");
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
DT_BASIC(c_float_complex, _Complex float, B_CFLOAT, "MPI_C_FLOAT_COMPLEX");
DT_BASIC(c_double_complex, _Complex double, B_CDOUBLE, "MPI_C_DOUBLE_COMPLEX");
DT_BASIC(c_long_double_complex, _Complex long double, B_CLDOUBLE, "MPI_C_LONG_DOUBLE_COMPLEX");
DT_BASIC(aint, MPI_Aint, B_AINT, "MPI_AINT");
DT_BASIC(offset, MPI_Offset, B_OFFSET, "MPI_OFFSET");
DT_BASIC(count, MPI_Count, B_COUNT, "MPI_COUNT");
DT_BASIC(packed, unsigned char, B_PACKED, "MPI_PACKED");

/* (value, int) pairs for MAXLOC/MINLOC: the layout of the C struct, so padding is a hole and the
 * type is only dense when there is none. */
#define DT_PAIR(var, T, B, NAME)                                                                   \
    struct dtpair_##var {                                                                          \
        T v;                                                                                       \
        int i;                                                                                     \
    };                                                                                             \
    enum {                                                                                         \
        dense_##var = offsetof(struct dtpair_##var, i) == sizeof(T) &&                             \
                      sizeof(struct dtpair_##var) == sizeof(T) + sizeof(int)                       \
    };                                                                                             \
    static const dt_block blk_##var[2] = {                                                         \
        {0, dense_##var ? sizeof(T) + sizeof(int) : sizeof(T)},                                    \
        {offsetof(struct dtpair_##var, i), sizeof(int)}};                                         \
    struct credo_datatype credo_dt_##var = {                                                      \
        .magic = DT_MAGIC,                                                                         \
        .flags = DT_F_PREDEF | DT_F_COMMITTED | (dense_##var ? DT_F_DENSE : 0),                   \
        .basic = B, .size = sizeof(T) + sizeof(int), .lb = 0,                                      \
        .extent = sizeof(struct dtpair_##var), .true_lb = 0,                                       \
        .true_extent = offsetof(struct dtpair_##var, i) + sizeof(int),                             \
        .nblocks = dense_##var ? 1 : 2, .blocks = blk_##var,                                       \
        .elem_size = sizeof(T) == sizeof(int) ? sizeof(int) : 0, .elems = 2,                       \
        .align = _Alignof(struct dtpair_##var), .refcount = 1, .name = NAME}

DT_PAIR(float_int, float, B_FLOAT_INT, "MPI_FLOAT_INT");
DT_PAIR(double_int, double, B_DOUBLE_INT, "MPI_DOUBLE_INT");
DT_PAIR(long_int, long, B_LONG_INT, "MPI_LONG_INT");
DT_PAIR(2int, int, B_2INT, "MPI_2INT");
DT_PAIR(short_int, short, B_SHORT_INT, "MPI_SHORT_INT");
DT_PAIR(long_double_int, long double, B_LDOUBLE_INT, "MPI_LONG_DOUBLE_INT");

/* ---- pack / unpack ---- */

void dt_pack(const void *src, size_t count, MPI_Datatype dt, void *dst)
{
    const char *in = src;
    char *out = dst;
    if (dt->flags & DT_F_DENSE) {
        memcpy(out, BUF_AT(in, dt->lb), count * dt->size);
        return;
    }
    for (size_t i = 0; i < count; i++, in += dt->extent) {
        for (int b = 0; b < dt->nblocks; b++) {
            memcpy(out, in + dt->blocks[b].disp, dt->blocks[b].len);
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
        memcpy(BUF_AT(out, dt->lb), in, bytes);
        return;
    }
    for (size_t i = 0; i < count && bytes > 0; i++, out += dt->extent) {
        for (int b = 0; b < dt->nblocks && bytes > 0; b++) {
            size_t n = dt->blocks[b].len < bytes ? dt->blocks[b].len : bytes;
            memcpy(out + dt->blocks[b].disp, in, n);
            in += n;
            bytes -= n;
        }
    }
}

void dt_copy(const void *src, void *dst, size_t count, MPI_Datatype dt)
{
    if (dt->flags & DT_F_DENSE) {
        memmove(BUF_AT(dst, dt->lb), BUF_AT(src, dt->lb), count * dt->size);
        return;
    }
    for (size_t i = 0; i < count; i++) {
        MPI_Aint base = (MPI_Aint)i * dt->extent;
        for (int b = 0; b < dt->nblocks; b++)
            memmove(BUF_AT(dst, base + dt->blocks[b].disp), BUF_AT(src, base + dt->blocks[b].disp),
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
        free((void *)dt->blocks);
        free(dt);
    }
}

/* ---- derived type construction: append shifted copies of old types' blocks ---- */

typedef struct dt_builder {
    dt_block *blocks;
    int n, cap;
    int any;                     /* at least one element appended */
    int touched;                 /* at least one byte block appended */
    MPI_Aint lb, ub;             /* of the appended elements (using their lb/extent) */
    MPI_Aint tlb, tub;           /* of the bytes actually touched */
    size_t size, elems, align;
    int basic;                   /* common basic type, B_NONE if mixed */
    size_t elem_size;            /* common basic element size, 0 if mixed */
    int failed;
} dt_builder;

static void builder_init(dt_builder *b)
{
    memset(b, 0, sizeof *b);
    b->basic = -1;
    b->elem_size = (size_t)-1;
    b->align = 1;
}

static void builder_block(dt_builder *b, MPI_Aint disp, size_t len)
{
    if (len == 0)
        return;
    if (b->n > 0 && b->blocks[b->n - 1].disp + (MPI_Aint)b->blocks[b->n - 1].len == disp) {
        b->blocks[b->n - 1].len += len;
    } else {
        if (b->n == b->cap) {
            int cap = b->cap ? 2 * b->cap : 8;
            dt_block *nb = realloc(b->blocks, (size_t)cap * sizeof *nb);
            if (nb == NULL) {
                b->failed = 1;
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

/* Appends `reps` copies of `old` starting at disp, each old->extent apart. */
static void builder_add(dt_builder *b, MPI_Datatype old, MPI_Aint disp, int reps)
{
    if (reps <= 0)
        return;
    MPI_Aint first = disp + old->lb;
    MPI_Aint last = disp + (MPI_Aint)(reps - 1) * old->extent + old->lb;
    MPI_Aint lo = first < last ? first : last;
    MPI_Aint hi = (first > last ? first : last) + old->extent;
    if (!b->any || lo < b->lb)
        b->lb = lo;
    if (!b->any || hi > b->ub)
        b->ub = hi;
    b->any = 1;
    if (old->flags & DT_F_DENSE) {
        if (old->extent == (MPI_Aint)old->size)
            builder_block(b, first, (size_t)reps * old->size);
        else
            for (int r = 0; r < reps; r++)
                builder_block(b, disp + (MPI_Aint)r * old->extent + old->lb, old->size);
    } else {
        for (int r = 0; r < reps; r++)
            for (int k = 0; k < old->nblocks; k++)
                builder_block(b, disp + (MPI_Aint)r * old->extent + old->blocks[k].disp,
                              old->blocks[k].len);
    }
    b->size += (size_t)reps * old->size;
    b->elems += (size_t)reps * old->elems;
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

/* Turns the builder into a new (uncommitted) type; NULL when out of memory. */
static MPI_Datatype builder_finish(dt_builder *b)
{
    struct credo_datatype *dt = calloc(1, sizeof *dt);
    if (dt == NULL || b->failed) {
        free(dt);
        free(b->blocks);
        return NULL;
    }
    dt->magic = DT_MAGIC;
    dt->size = b->size;
    dt->lb = b->any ? b->lb : 0;
    dt->extent = b->any ? b->ub - b->lb : 0;
    dt->true_lb = b->n ? b->tlb : 0;
    dt->true_extent = b->n ? b->tub - b->tlb : 0;
    dt->nblocks = b->n;
    dt->blocks = b->blocks;
    dt->elems = b->elems;
    dt->align = b->align;
    dt->basic = (int16_t)(b->basic < 0 ? B_NONE : b->basic);
    dt->elem_size = b->elem_size == (size_t)-1 ? 0 : b->elem_size;
    dt->refcount = 1;
    if (b->n == 0 || (b->n == 1 && b->blocks[0].disp == dt->lb &&
                      (MPI_Aint)b->blocks[0].len == dt->extent))
        dt->flags |= DT_F_DENSE;
    return dt;
}

/* Recomputes DENSE after lb/extent change. */
static void dt_update_dense(struct credo_datatype *dt)
{
    dt->flags &= (uint16_t)~DT_F_DENSE;
    if (dt->nblocks == 0 || (dt->nblocks == 1 && dt->blocks[0].disp == dt->lb &&
                             (MPI_Aint)dt->blocks[0].len == dt->extent))
        dt->flags |= DT_F_DENSE;
}

/* Constructors accept committed or uncommitted (but live) old types. */
static int dt_live(MPI_Datatype d)
{
    return d != NULL && d->magic == DT_MAGIC;
}

static int new_type(const char *fn, dt_builder *b, MPI_Datatype *newtype)
{
    MPI_Datatype dt = builder_finish(b);
    if (dt == NULL)
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
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

int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_create_hvector";
    TYPE_ARGS_CHECK(fn, count, oldtype, newtype);
    if (blocklength < 0)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "negative blocklength %d", blocklength);
    dt_builder b;
    builder_init(&b);
    for (int i = 0; i < count; i++)
        builder_add(&b, oldtype, (MPI_Aint)i * stride, blocklength);
    if (count == 0 || blocklength == 0)
        b.basic = oldtype->basic;
    return new_type(fn, &b, newtype);
}

int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_contiguous";
    TYPE_ARGS_CHECK(fn, count, oldtype, newtype);
    dt_builder b;
    builder_init(&b);
    builder_add(&b, oldtype, 0, count);
    if (count == 0)
        b.basic = oldtype->basic;
    return new_type(fn, &b, newtype);
}

int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                    MPI_Datatype *newtype)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_vector";
    TYPE_ARGS_CHECK(fn, count, oldtype, newtype);
    return PMPI_Type_create_hvector(count, blocklength, (MPI_Aint)stride * oldtype->extent,
                                    oldtype, newtype);
}

int MPI_Type_indexed(int count, const int array_of_blocklengths[],
                     const int array_of_displacements[], MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_indexed";
    TYPE_ARGS_CHECK(fn, count, oldtype, newtype);
    if (count > 0 && (array_of_blocklengths == NULL || array_of_displacements == NULL))
        return mpi_error(NULL, MPI_ERR_ARG, fn, "NULL array");
    dt_builder b;
    builder_init(&b);
    for (int i = 0; i < count; i++) {
        if (array_of_blocklengths[i] < 0) {
            free(b.blocks);
            return mpi_error(NULL, MPI_ERR_ARG, fn, "negative blocklength %d",
                             array_of_blocklengths[i]);
        }
        builder_add(&b, oldtype, (MPI_Aint)array_of_displacements[i] * oldtype->extent,
                    array_of_blocklengths[i]);
    }
    if (b.basic == -1)
        b.basic = oldtype->basic;
    return new_type(fn, &b, newtype);
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
    if (newtype == NULL ||
        (count > 0 && (array_of_blocklengths == NULL || array_of_displacements == NULL ||
                       array_of_types == NULL)))
        return mpi_error(NULL, MPI_ERR_ARG, fn, "NULL argument");
    dt_builder b;
    builder_init(&b);
    for (int i = 0; i < count; i++) {
        if (!dt_live(array_of_types[i]) || array_of_blocklengths[i] < 0) {
            free(b.blocks);
            return mpi_error(NULL, dt_live(array_of_types[i]) ? MPI_ERR_ARG : MPI_ERR_TYPE, fn,
                             "invalid block %d", i);
        }
        builder_add(&b, array_of_types[i], array_of_displacements[i], array_of_blocklengths[i]);
    }
    /* Like a C struct, the extent is padded to the strictest member alignment. */
    if (b.any && b.align > 1) {
        MPI_Aint ext = b.ub - b.lb, a = (MPI_Aint)b.align;
        b.ub = b.lb + (ext + a - 1) / a * a;
    }
    return new_type(fn, &b, newtype);
}

int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                            MPI_Datatype *newtype)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_create_resized";
    TYPE_ARGS_CHECK(fn, 0, oldtype, newtype);
    dt_builder b;
    builder_init(&b);
    builder_add(&b, oldtype, 0, 1);
    b.lb = lb;
    b.ub = lb + extent;
    b.any = 1;
    int rc = new_type(fn, &b, newtype);
    if (rc == MPI_SUCCESS)
        dt_update_dense(*newtype);
    return rc;
}

int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_dup";
    TYPE_ARGS_CHECK(fn, 0, oldtype, newtype);
    struct credo_datatype *dt = malloc(sizeof *dt);
    dt_block *blocks = malloc((size_t)(oldtype->nblocks ? oldtype->nblocks : 1) * sizeof *blocks);
    if (dt == NULL || blocks == NULL) {
        free(dt);
        free(blocks);
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    *dt = *oldtype;
    memcpy(blocks, oldtype->blocks, (size_t)oldtype->nblocks * sizeof *blocks);
    dt->blocks = blocks;
    dt->flags &= (uint16_t)~DT_F_PREDEF;
    dt->refcount = 1;
    dt->name = NULL;
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
    dt_release(*datatype);
    *datatype = MPI_DATATYPE_NULL;
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
        if (datatype->elem_size != 0 && rest % (long long)datatype->elem_size == 0)
            n += rest / (long long)datatype->elem_size;
        else
            n = MPI_UNDEFINED;
    }
    *count = n;
    return MPI_SUCCESS;
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

int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Pack_size";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (!comm_ok(comm))
        return mpi_error(NULL, MPI_ERR_COMM, fn, "invalid communicator");
    if (!dt_ok(datatype))
        return mpi_error(comm, MPI_ERR_TYPE, fn, "invalid or uncommitted datatype");
    if (incount < 0)
        return mpi_error(comm, MPI_ERR_COUNT, fn, "negative count %d", incount);
    if (size == NULL)
        return mpi_error(comm, MPI_ERR_ARG, fn, "size is NULL");
    size_t n = (size_t)incount * datatype->size;
    *size = n > 0x7fffffff ? MPI_UNDEFINED : (int)n;
    return MPI_SUCCESS;
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
    size_t n = (size_t)incount * datatype->size;
    if ((size_t)*position + n > (size_t)outsize)
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
    size_t n = (size_t)outcount * datatype->size;
    if ((size_t)*position + n > (size_t)insize)
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
CREDO_PMPI(MPI_Get_address)
CREDO_PMPI(MPI_Get_count)
CREDO_PMPI(MPI_Get_elements_x)
CREDO_PMPI(MPI_Get_elements)
CREDO_PMPI(MPI_Pack_size)
CREDO_PMPI(MPI_Pack)
CREDO_PMPI(MPI_Unpack)
