/* src/mpi/fpredef.h — the integer (Fortran) handles of the predefined objects: their fixed order.
 * fhandle.c gives entry k the integer k + 1; the mpif.h generator prints the same numbers. */
#ifndef CREDO_MPI_FPREDEF_H
#define CREDO_MPI_FPREDEF_H

/* X(Kind, NAME): Kind is the handle kind of fhandle.c (Comm, Type, ...), NAME the C constant.
 * Append only: the numbers are compiled into Fortran programs through mpif.h and mpi.mod, so a
 * reordering would change what an already-built program means by its constants. Null handles are
 * not listed: every kind's null is 0. */
#define CREDO_F_PREDEF(X)                                                                          \
    X(Comm, MPI_COMM_WORLD)                                                                        \
    X(Comm, MPI_COMM_SELF)                                                                         \
    X(Group, MPI_GROUP_EMPTY)                                                                      \
    X(Message, MPI_MESSAGE_NO_PROC)                                                                \
    X(Info, MPI_INFO_ENV)                                                                          \
    X(Errhandler, MPI_ERRORS_ARE_FATAL)                                                            \
    X(Errhandler, MPI_ERRORS_RETURN)                                                               \
    X(Errhandler, MPI_ERRORS_ABORT)                                                                \
    X(Op, MPI_MAX)                                                                                 \
    X(Op, MPI_MIN)                                                                                 \
    X(Op, MPI_SUM)                                                                                 \
    X(Op, MPI_PROD)                                                                                \
    X(Op, MPI_LAND)                                                                                \
    X(Op, MPI_BAND)                                                                                \
    X(Op, MPI_LOR)                                                                                 \
    X(Op, MPI_BOR)                                                                                 \
    X(Op, MPI_LXOR)                                                                                \
    X(Op, MPI_BXOR)                                                                                \
    X(Op, MPI_MAXLOC)                                                                              \
    X(Op, MPI_MINLOC)                                                                              \
    X(Op, MPI_REPLACE)                                                                             \
    X(Op, MPI_NO_OP)                                                                               \
    X(Type, MPI_INTEGER)                                                                           \
    X(Type, MPI_LOGICAL)                                                                           \
    X(Type, MPI_CHARACTER)                                                                         \
    X(Type, MPI_REAL)                                                                              \
    X(Type, MPI_DOUBLE_PRECISION)                                                                  \
    X(Type, MPI_COMPLEX)                                                                           \
    X(Type, MPI_DOUBLE_COMPLEX)                                                                    \
    X(Type, MPI_INTEGER1)                                                                          \
    X(Type, MPI_INTEGER2)                                                                          \
    X(Type, MPI_INTEGER4)                                                                          \
    X(Type, MPI_INTEGER8)                                                                          \
    X(Type, MPI_INTEGER16)                                                                         \
    X(Type, MPI_REAL4)                                                                             \
    X(Type, MPI_REAL8)                                                                             \
    X(Type, MPI_COMPLEX8)                                                                          \
    X(Type, MPI_COMPLEX16)                                                                         \
    X(Type, MPI_BYTE)                                                                              \
    X(Type, MPI_PACKED)                                                                            \
    X(Type, MPI_CHAR)                                                                              \
    X(Type, MPI_SIGNED_CHAR)                                                                       \
    X(Type, MPI_UNSIGNED_CHAR)                                                                     \
    X(Type, MPI_SHORT)                                                                             \
    X(Type, MPI_UNSIGNED_SHORT)                                                                    \
    X(Type, MPI_INT)                                                                               \
    X(Type, MPI_UNSIGNED)                                                                          \
    X(Type, MPI_LONG)                                                                              \
    X(Type, MPI_UNSIGNED_LONG)                                                                     \
    X(Type, MPI_LONG_LONG)                                                                         \
    X(Type, MPI_UNSIGNED_LONG_LONG)                                                                \
    X(Type, MPI_FLOAT)                                                                             \
    X(Type, MPI_DOUBLE)                                                                            \
    X(Type, MPI_LONG_DOUBLE)                                                                       \
    X(Type, MPI_WCHAR)                                                                             \
    X(Type, MPI_C_BOOL)                                                                            \
    X(Type, MPI_INT8_T)                                                                            \
    X(Type, MPI_INT16_T)                                                                           \
    X(Type, MPI_INT32_T)                                                                           \
    X(Type, MPI_INT64_T)                                                                           \
    X(Type, MPI_UINT8_T)                                                                           \
    X(Type, MPI_UINT16_T)                                                                          \
    X(Type, MPI_UINT32_T)                                                                          \
    X(Type, MPI_UINT64_T)                                                                          \
    X(Type, MPI_C_FLOAT_COMPLEX)                                                                   \
    X(Type, MPI_C_DOUBLE_COMPLEX)                                                                  \
    X(Type, MPI_C_LONG_DOUBLE_COMPLEX)                                                             \
    X(Type, MPI_FLOAT_INT)                                                                         \
    X(Type, MPI_DOUBLE_INT)                                                                        \
    X(Type, MPI_LONG_INT)                                                                          \
    X(Type, MPI_2INT)                                                                              \
    X(Type, MPI_SHORT_INT)                                                                         \
    X(Type, MPI_LONG_DOUBLE_INT)                                                                   \
    X(Type, MPI_AINT)                                                                              \
    X(Type, MPI_OFFSET)                                                                            \
    X(Type, MPI_COUNT)                                                                             \
    X(Type, MPI_CXX_BOOL)                                                                          \
    X(Type, MPI_CXX_FLOAT_COMPLEX)                                                                 \
    X(Type, MPI_CXX_DOUBLE_COMPLEX)                                                                \
    X(Type, MPI_CXX_LONG_DOUBLE_COMPLEX)                                                           \
    X(Type, MPI_2REAL)                                                                             \
    X(Type, MPI_2DOUBLE_PRECISION)                                                                 \
    X(Type, MPI_2INTEGER)

#endif
