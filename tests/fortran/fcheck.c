/* tests/fortran/fcheck.c — the C side of the Fortran test: checks that the integer constants a
 * Fortran program gets from the mpi module are the C library's objects and addresses. */
#include <stdio.h>

#include "mpi.h"

#define WANT(cond)                                                                                 \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fcheck: %s does not hold\n", #cond);                                  \
            *ok = 0;                                                                               \
        }                                                                                          \
    } while (0)

void credo_ftest_handles_(MPI_Fint *world, MPI_Fint *self, MPI_Fint *integer, MPI_Fint *dp,
                          MPI_Fint *sum, MPI_Fint *errors_return, MPI_Fint *status_size,
                          MPI_Fint *status_ignore, MPI_Fint *ok);

void credo_ftest_handles_(MPI_Fint *world, MPI_Fint *self, MPI_Fint *integer, MPI_Fint *dp,
                          MPI_Fint *sum, MPI_Fint *errors_return, MPI_Fint *status_size,
                          MPI_Fint *status_ignore, MPI_Fint *ok)
{
    *ok = 1;
    WANT(MPI_Comm_f2c(*world) == MPI_COMM_WORLD);
    WANT(MPI_Comm_c2f(MPI_COMM_WORLD) == *world);
    WANT(MPI_Comm_f2c(*self) == MPI_COMM_SELF);
    WANT(MPI_Type_f2c(*integer) == MPI_INTEGER);
    WANT(MPI_Type_f2c(*dp) == MPI_DOUBLE_PRECISION);
    WANT(MPI_Op_f2c(*sum) == MPI_SUM);
    WANT(MPI_Errhandler_f2c(*errors_return) == MPI_ERRORS_RETURN);
    WANT(*status_size == MPI_F_STATUS_SIZE);
    WANT(status_ignore == MPI_F_STATUS_IGNORE);
}
