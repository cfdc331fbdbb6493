/* src/mpi/op.h — reduction kernels: the table of predefined operation x basic type, and the entry
 * points the collectives call. Shared by the simple collectives and the GOAL schedules. */
#ifndef CREDO_MPI_OP_H
#define CREDO_MPI_OP_H

#include <stddef.h>

#include "mpi.h"

/* The basic element type of a datatype; indexes the kernel table. */
enum credo_basic {
    B_NONE = 0,
    B_CHAR, B_SCHAR, B_UCHAR, B_SHORT, B_USHORT, B_INT, B_UINT, B_LONG, B_ULONG, B_LLONG,
    B_ULLONG, B_WCHAR, B_INT8, B_INT16, B_INT32, B_INT64, B_UINT8, B_UINT16, B_UINT32, B_UINT64,
    B_INT128,                            /* MPI_INTEGER16 (GCC's __int128) */
    B_AINT, B_OFFSET, B_COUNT,           /* C integers end here */
    B_BYTE, B_BOOL,
    B_FLOAT, B_DOUBLE, B_LDOUBLE,
    B_CFLOAT, B_CDOUBLE, B_CLDOUBLE,
    B_FLOAT_INT, B_DOUBLE_INT, B_LONG_INT, B_2INT, B_SHORT_INT, B_LDOUBLE_INT,
    B_2REAL, B_2DOUBLE,                  /* Fortran's pairs: the index has the value's type */
    B_PACKED,
    B_COUNT_OF
};

/* Fortran's INTEGER(16): GCC's 128-bit integer, which ISO C does not name (hence __extension__). */
__extension__ typedef __int128 credo_int128;
__extension__ typedef unsigned __int128 credo_uint128;

enum credo_op_id {
    OP_MAX, OP_MIN, OP_SUM, OP_PROD, OP_LAND, OP_BAND, OP_LOR, OP_BOR, OP_LXOR, OP_BXOR,
    OP_MAXLOC, OP_MINLOC, OP_REPLACE, OP_NO_OP, OP_PREDEF_COUNT,
    OP_USER = 100
};

/* MPI_SUCCESS if op may reduce dt, else MPI_ERR_OP (op/type mismatch) or MPI_ERR_TYPE. */
int op_check(MPI_Op op, MPI_Datatype dt);
/* inout[i] = in[i] op inout[i] for count elements of dt laid out as in user memory; in comes
 * from the lower ranks (matters for non-commutative user ops). op_check must have passed. */
void op_apply(MPI_Op op, const void *in, void *inout, int count, MPI_Datatype dt);
const char *op_name(MPI_Op op);
/* A user op calling user_fn (MPI_Op_create) or user_fn_c (MPI_Op_create_c, largecount.c), the
 * other NULL; errors are raised as fn's. */
int mpi_op_new(const char *fn, MPI_User_function *user_fn, MPI_User_function_c *user_fn_c,
               int commute, MPI_Op *op);
/* Marks a user op made by the Fortran binding of MPI_Op_create: its function gets the datatype as
 * an integer handle (SUBROUTINE USER_FUNCTION(INVEC, INOUTVEC, LEN, DATATYPE)). */
void mpi_op_set_fortran(MPI_Op op);

#endif
