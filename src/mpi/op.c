/* src/mpi/op.c — reduction operations: the predefined MPI_Op objects, the kernel table indexed by
 * (operation, basic type), user-defined operations (Op_create/Op_free) and MPI_Reduce_local. */
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "mpi/mpi_impl.h"
#include "mpi/op.h"

typedef void (*op_kernel)(const void *in, void *inout, size_t n);

/* One loop per (op, type): inout[i] = in[i] op inout[i]. */
#define KERNEL(opn, T, tn, expr)                                                                  \
    static void k_##opn##_##tn(const void *in_, void *io_, size_t n)                               \
    {                                                                                              \
        const T *in = in_;                                                                         \
        T *io = io_;                                                                               \
        for (size_t i = 0; i < n; i++) {                                                           \
            T a = in[i], b = io[i];                                                                \
            io[i] = (expr);                                                                        \
        }                                                                                          \
    }

/* C integer types, with the unsigned type their sums and products are computed in: signed
 * overflow wraps instead of being undefined (and tripping UBSan). */
#define INT_TYPES(X)                                                                               \
    X(char, unsigned, char, B_CHAR)                                                                \
    X(signed char, unsigned, schar, B_SCHAR)                                                       \
    X(unsigned char, unsigned, uchar, B_UCHAR)                                                     \
    X(short, unsigned, short, B_SHORT)                                                             \
    X(unsigned short, unsigned, ushort, B_USHORT)                                                  \
    X(int, unsigned, int, B_INT)                                                                   \
    X(unsigned, unsigned, uint, B_UINT)                                                            \
    X(long, unsigned long, long, B_LONG)                                                           \
    X(unsigned long, unsigned long, ulong, B_ULONG)                                                \
    X(long long, unsigned long long, llong, B_LLONG)                                               \
    X(unsigned long long, unsigned long long, ullong, B_ULLONG)                                    \
    X(wchar_t, unsigned long long, wchar, B_WCHAR)                                                 \
    X(int8_t, unsigned, int8, B_INT8)                                                              \
    X(int16_t, unsigned, int16, B_INT16)                                                           \
    X(int32_t, uint32_t, int32, B_INT32)                                                           \
    X(int64_t, uint64_t, int64, B_INT64)                                                           \
    X(uint8_t, unsigned, uint8, B_UINT8)                                                           \
    X(uint16_t, unsigned, uint16, B_UINT16)                                                        \
    X(uint32_t, uint32_t, uint32, B_UINT32)                                                        \
    X(uint64_t, uint64_t, uint64, B_UINT64)                                                        \
    X(credo_int128, credo_uint128, int128, B_INT128)                                               \
    X(MPI_Aint, uintptr_t, aint, B_AINT)                                                           \
    X(MPI_Offset, unsigned long long, offset, B_OFFSET)                                            \
    X(MPI_Count, unsigned long long, count, B_COUNT)

#define FLOAT_TYPES(X)                                                                             \
    X(float, flt, B_FLOAT)                                                                         \
    X(double, dbl, B_DOUBLE)                                                                       \
    X(long double, ldbl, B_LDOUBLE)

#define COMPLEX_TYPES(X)                                                                           \
    X(_Complex float, cflt, B_CFLOAT)                                                              \
    X(_Complex double, cdbl, B_CDOUBLE)                                                            \
    X(_Complex long double, cldbl, B_CLDOUBLE)

#define DEF_INT(T, U, tn, B)                                                                       \
    KERNEL(max, T, tn, a > b ? a : b)                                                              \
    KERNEL(min, T, tn, a < b ? a : b)                                                              \
    KERNEL(sum, T, tn, (T)((U)a + (U)b))                                                           \
    KERNEL(prod, T, tn, (T)((U)a * (U)b))                                                          \
    KERNEL(land, T, tn, (T)(a && b))                                                               \
    KERNEL(lor, T, tn, (T)(a || b))                                                                \
    KERNEL(lxor, T, tn, (T)(!a != !b))                                                             \
    KERNEL(band, T, tn, (T)(a & b))                                                                \
    KERNEL(bor, T, tn, (T)(a | b))                                                                 \
    KERNEL(bxor, T, tn, (T)(a ^ b))
INT_TYPES(DEF_INT)

#define DEF_FLOAT(T, tn, B)                                                                        \
    KERNEL(max, T, tn, a > b ? a : b)                                                              \
    KERNEL(min, T, tn, a < b ? a : b)                                                              \
    KERNEL(sum, T, tn, a + b)                                                                      \
    KERNEL(prod, T, tn, a * b)
FLOAT_TYPES(DEF_FLOAT)

#define DEF_COMPLEX(T, tn, B)                                                                      \
    KERNEL(sum, T, tn, a + b)                                                                      \
    KERNEL(prod, T, tn, a * b)
COMPLEX_TYPES(DEF_COMPLEX)

KERNEL(land, _Bool, bool, a && b)
KERNEL(lor, _Bool, bool, a || b)
KERNEL(lxor, _Bool, bool, a != b)
KERNEL(band, unsigned char, byte, (unsigned char)(a & b))
KERNEL(bor, unsigned char, byte, (unsigned char)(a | b))
KERNEL(bxor, unsigned char, byte, (unsigned char)(a ^ b))

/* MAXLOC/MINLOC on the (value, index) pair types; ties keep the smaller index. The index is an
 * int, except in Fortran's MPI_2REAL and MPI_2DOUBLE_PRECISION, where it has the value's type. */
#define PAIR_TYPES(X)                                                                              \
    X(float, int, flt_int, B_FLOAT_INT)                                                            \
    X(double, int, dbl_int, B_DOUBLE_INT)                                                          \
    X(long, int, long_int, B_LONG_INT)                                                             \
    X(int, int, int_int, B_2INT)                                                                   \
    X(short, int, short_int, B_SHORT_INT)                                                          \
    X(long double, int, ldbl_int, B_LDOUBLE_INT)                                                   \
    X(float, float, flt_flt, B_2REAL)                                                              \
    X(double, double, dbl_dbl, B_2DOUBLE)

#define DEF_PAIR(T, I, tn, B)                                                                      \
    struct pair_##tn {                                                                             \
        T v;                                                                                       \
        I i;                                                                                       \
    };                                                                                             \
    static void k_maxloc_##tn(const void *in_, void *io_, size_t n)                                \
    {                                                                                              \
        const struct pair_##tn *in = in_;                                                          \
        struct pair_##tn *io = io_;                                                                \
        for (size_t i = 0; i < n; i++) {                                                           \
            if (in[i].v > io[i].v) {                                                               \
                io[i].v = in[i].v; /* fieldwise: the padding may lie outside the buffer */        \
                io[i].i = in[i].i;                                                                 \
            } else if (in[i].v == io[i].v && in[i].i < io[i].i)                                    \
                io[i].i = in[i].i;                                                                 \
        }                                                                                          \
    }                                                                                              \
    static void k_minloc_##tn(const void *in_, void *io_, size_t n)                                \
    {                                                                                              \
        const struct pair_##tn *in = in_;                                                          \
        struct pair_##tn *io = io_;                                                                \
        for (size_t i = 0; i < n; i++) {                                                           \
            if (in[i].v < io[i].v) {                                                               \
                io[i].v = in[i].v;                                                                 \
                io[i].i = in[i].i;                                                                 \
            } else if (in[i].v == io[i].v && in[i].i < io[i].i)                                    \
                io[i].i = in[i].i;                                                                 \
        }                                                                                          \
    }
PAIR_TYPES(DEF_PAIR)

/* Table rows: which types each predefined operation accepts (MPI-3.1 section 5.9.2). */
#define E_max(T, U, tn, B) [B] = k_max_##tn,
#define E_min(T, U, tn, B) [B] = k_min_##tn,
#define E_sum(T, U, tn, B) [B] = k_sum_##tn,
#define E_prod(T, U, tn, B) [B] = k_prod_##tn,
#define E_land(T, U, tn, B) [B] = k_land_##tn,
#define E_lor(T, U, tn, B) [B] = k_lor_##tn,
#define E_lxor(T, U, tn, B) [B] = k_lxor_##tn,
#define E_band(T, U, tn, B) [B] = k_band_##tn,
#define E_bor(T, U, tn, B) [B] = k_bor_##tn,
#define E_bxor(T, U, tn, B) [B] = k_bxor_##tn,
#define F_max(T, tn, B) [B] = k_max_##tn,
#define F_min(T, tn, B) [B] = k_min_##tn,
#define F_sum(T, tn, B) [B] = k_sum_##tn,
#define F_prod(T, tn, B) [B] = k_prod_##tn,
#define P_maxloc(T, I, tn, B) [B] = k_maxloc_##tn,
#define P_minloc(T, I, tn, B) [B] = k_minloc_##tn,

static const op_kernel kernels[OP_PREDEF_COUNT][B_COUNT_OF] = {
    [OP_MAX] = {INT_TYPES(E_max) FLOAT_TYPES(F_max)},
    [OP_MIN] = {INT_TYPES(E_min) FLOAT_TYPES(F_min)},
    [OP_SUM] = {INT_TYPES(E_sum) FLOAT_TYPES(F_sum) COMPLEX_TYPES(F_sum)},
    [OP_PROD] = {INT_TYPES(E_prod) FLOAT_TYPES(F_prod) COMPLEX_TYPES(F_prod)},
    [OP_LAND] = {INT_TYPES(E_land)[B_BOOL] = k_land_bool},
    [OP_LOR] = {INT_TYPES(E_lor)[B_BOOL] = k_lor_bool},
    [OP_LXOR] = {INT_TYPES(E_lxor)[B_BOOL] = k_lxor_bool},
    [OP_BAND] = {INT_TYPES(E_band)[B_BYTE] = k_band_byte},
    [OP_BOR] = {INT_TYPES(E_bor)[B_BYTE] = k_bor_byte},
    [OP_BXOR] = {INT_TYPES(E_bxor)[B_BYTE] = k_bxor_byte},
    [OP_MAXLOC] = {PAIR_TYPES(P_maxloc)},
    [OP_MINLOC] = {PAIR_TYPES(P_minloc)},
};

/* Bytes of one kernel element of each basic type (a whole pair for the pair types). */
#define SZ_INT(T, U, tn, B) [B] = sizeof(T),
#define SZ_F(T, tn, B) [B] = sizeof(T),
#define SZ_P(T, I, tn, B) [B] = sizeof(struct pair_##tn),
static const unsigned char kernel_elem_size[B_COUNT_OF] = {
    INT_TYPES(SZ_INT) FLOAT_TYPES(SZ_F) COMPLEX_TYPES(SZ_F) PAIR_TYPES(SZ_P)
    [B_BOOL] = sizeof(_Bool),
    [B_BYTE] = 1,
};

#define PREDEF_OP(var, id) struct credo_op credo_op_##var = {OP_MAGIC, id, 1, 1, NULL}
PREDEF_OP(max, OP_MAX);
PREDEF_OP(min, OP_MIN);
PREDEF_OP(sum, OP_SUM);
PREDEF_OP(prod, OP_PROD);
PREDEF_OP(land, OP_LAND);
PREDEF_OP(band, OP_BAND);
PREDEF_OP(lor, OP_LOR);
PREDEF_OP(bor, OP_BOR);
PREDEF_OP(lxor, OP_LXOR);
PREDEF_OP(bxor, OP_BXOR);
PREDEF_OP(maxloc, OP_MAXLOC);
PREDEF_OP(minloc, OP_MINLOC);
PREDEF_OP(replace, OP_REPLACE);
PREDEF_OP(no_op, OP_NO_OP);

static const char *const op_names[OP_PREDEF_COUNT] = {
    "MPI_MAX", "MPI_MIN", "MPI_SUM", "MPI_PROD", "MPI_LAND", "MPI_BAND", "MPI_LOR",
    "MPI_BOR", "MPI_LXOR", "MPI_BXOR", "MPI_MAXLOC", "MPI_MINLOC", "MPI_REPLACE", "MPI_NO_OP",
};

const char *op_name(MPI_Op op)
{
    if (op->id >= 0 && op->id < OP_PREDEF_COUNT)
        return op_names[op->id];
    return "user-defined op";
}

static int is_pair(int basic)
{
    return basic >= B_FLOAT_INT && basic <= B_2DOUBLE;
}

int op_check(MPI_Op op, MPI_Datatype dt)
{
    if (!op_live(op))
        return MPI_ERR_OP;
    if (op->id == OP_USER)
        return MPI_SUCCESS;
    /* REPLACE and NO_OP exist for one-sided accumulate only. */
    if (op->id == OP_REPLACE || op->id == OP_NO_OP)
        return MPI_ERR_OP;
    if (dt->basic == B_NONE)
        return MPI_ERR_TYPE;
    if (kernels[op->id][dt->basic] == NULL)
        return MPI_ERR_OP;
    /* Derived types: the kernel must see whole elements in each block. */
    if (!(dt->flags & DT_F_PREDEF) && is_pair(dt->basic) && !(dt->flags & DT_F_DENSE))
        return MPI_ERR_TYPE;
    return MPI_SUCCESS;
}

/* A user op with its reference count, kept out of struct credo_op so that the predefined ops,
 * which programs link against (MPI_SUM is &credo_op_sum), keep their size. */
typedef struct user_op {
    struct credo_op op; /* first: an MPI_Op of a user op points here */
    int refcount;       /* the handle (until MPI_Op_free) + pending non-blocking reductions */
    MPI_User_function_c *fn_c; /* MPI_Op_create_c's function (op.fn is then NULL) */
    int fortran;        /* op.fn is a Fortran subroutine: its datatype argument is an integer */
} user_op;

void op_apply(MPI_Op op, const void *in, void *inout, int count, MPI_Datatype dt)
{
    if (count <= 0)
        return;
    if (op->id == OP_USER) {
        MPI_Datatype d = dt;
        const user_op *u = (const user_op *)op;
        if (u->fn_c != NULL) {
            MPI_Count len = count;
            u->fn_c((void *)in, inout, &len, &d);
        } else if (u->fortran) {
            int len = count;
            MPI_Fint fd = MPI_Type_c2f(dt);
            op->fn((void *)in, inout, &len, (MPI_Datatype *)(void *)&fd);
        } else {
            int len = count;
            op->fn((void *)in, inout, &len, &d);
        }
        return;
    }
    op_kernel k = kernels[op->id][dt->basic];
    if (dt->flags & DT_F_PREDEF) {
        /* Predefined types are arrays of their C type (pair types: of their struct). */
        k(in, inout, (size_t)count);
        return;
    }
    size_t esz = kernel_elem_size[dt->basic];
    if (dt->flags & DT_F_DENSE) {
        k((const char *)in + dt->lb, (char *)inout + dt->lb, (size_t)count * dt->size / esz);
        return;
    }
    for (int i = 0; i < count; i++) {
        MPI_Aint base = (MPI_Aint)i * dt->extent;
        for (int b = 0; b < dt->nblocks; b++) {
            MPI_Aint off = base + dt->blocks[b].disp;
            k((const char *)in + off, (char *)inout + off, dt->blocks[b].len / esz);
        }
    }
}


int mpi_op_new(const char *fn, MPI_User_function *user_fn, MPI_User_function_c *user_fn_c,
               int commute, MPI_Op *op)
{
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if ((user_fn == NULL && user_fn_c == NULL) || op == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "%s is NULL", op == NULL ? "op" : "function");
    user_op *u = calloc(1, sizeof *u);
    if (u == NULL)
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    struct credo_op *o = &u->op;
    o->magic = OP_MAGIC;
    mpi_handle_add(o, HK_OP);
    o->id = OP_USER;
    o->commute = commute != 0;
    o->fn = user_fn;
    u->fn_c = user_fn_c;
    u->refcount = 1;
    *op = o;
    return MPI_SUCCESS;
}

void mpi_op_set_fortran(MPI_Op op)
{
    ((user_op *)op)->fortran = 1;
}

int MPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    MPI_ENTER();
    return mpi_op_new("MPI_Op_create", user_fn, NULL, commute, op);
}

void op_retain(MPI_Op op)
{
    if (!op->predefined)
        ((user_op *)op)->refcount++;
}

void op_release(MPI_Op op)
{
    if (!op->predefined && --((user_op *)op)->refcount == 0) {
        op->magic = DEAD_MAGIC;
        mpi_handle_del(op);
        free(op);
    }
}

int MPI_Op_free(MPI_Op *op)
{
    MPI_ENTER();
    if (!MPI_READY())
        return mpi_not_ready("MPI_Op_free");
    if (op == NULL || !op_live(*op))
        return mpi_error(NULL, MPI_ERR_OP, "MPI_Op_free", "invalid op");
    if ((*op)->predefined)
        return mpi_error(NULL, MPI_ERR_OP, "MPI_Op_free", "cannot free predefined %s",
                         op_name(*op));
    /* only marks it: a pending non-blocking reduction still holds it (mc_hold_reduction) */
    op_release(*op);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

int MPI_Op_commutative(MPI_Op op, int *commute)
{
    MPI_ENTER();
    if (!op_live(op))
        return mpi_error(NULL, MPI_ERR_OP, "MPI_Op_commutative", "invalid op");
    if (commute == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, "MPI_Op_commutative", "commute is NULL");
    *commute = op->commute;
    return MPI_SUCCESS;
}

int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                     MPI_Op op)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Reduce_local";
    int rc;
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if ((rc = mpi_check_buf(NULL, fn, inbuf, count, datatype)) != MPI_SUCCESS ||
        (rc = mpi_check_buf(NULL, fn, inoutbuf, count, datatype)) != MPI_SUCCESS)
        return rc;
    if ((rc = op_check(op, datatype)) != MPI_SUCCESS)
        return mpi_error(NULL, rc, fn, "operation not defined for datatype %s",
                         datatype->name ? datatype->name : "(derived)");
    op_apply(op, inbuf, inoutbuf, count, datatype);
    return MPI_SUCCESS;
}

CREDO_PMPI(MPI_Op_create)
CREDO_PMPI(MPI_Op_free)
CREDO_PMPI(MPI_Op_commutative)
CREDO_PMPI(MPI_Reduce_local)
