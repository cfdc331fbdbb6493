/* src/mpi/attr.h — attribute caching as the Fortran bindings (src/fortran/f_attr.c, f_comm.c,
 * f_win.c) need it: values set and read in the Fortran forms, and keyvals whose callbacks are
 * Fortran procedures.
 *
 * Each cached attribute remembers the form it was set in (MPI 4.0 §19.3.7, MPI 3.1 §17.2.7):
 *   ATTR_C      a C void * (MPI_*_set_attr, MPI_Attr_put from C);
 *   ATTR_FINT   a default INTEGER (Fortran's MPI_ATTR_PUT);
 *   ATTR_FAINT  an INTEGER(KIND=MPI_ADDRESS_KIND) (Fortran's MPI_COMM/TYPE/WIN_SET_ATTR).
 * A Fortran value is stored in the attribute itself: C's get calls hand out a pointer to it (an
 * MPI_Fint * or MPI_Aint *, valid while the attribute stays cached); Fortran's get calls
 * (mpi_attr_*_fget) give a C pointer's address as an integer, an INTEGER sign-extended and an
 * address-sized value as it is (the MPI-1 binding then truncates to a default INTEGER).
 *
 * Copy and delete callbacks get the value in their own language's form, as a get call of that
 * language would return it: a C callback the void * (a pointer to the stored integer for a value
 * Fortran set); the callbacks of a keyval marked by mpi_attr_keyval_fortran (the bindings'
 * trampolines) a pointer to the value as an MPI_Aint, and their copy callback writes the new value
 * as an MPI_Aint through attribute_val_out. A copy is cached in the copy callback's form (the C
 * form for a C callback, the keyval's Fortran form for a Fortran one), as if the callback had set
 * it; the predefined MPI_*_DUP_FN copy the value in whatever form it has. */
#ifndef CREDO_MPI_ATTR_H
#define CREDO_MPI_ATTR_H

#include "mpi.h"

#define CREDO_ATTR_HIDDEN __attribute__((visibility("hidden")))

enum attr_form { ATTR_C, ATTR_FINT, ATTR_FAINT };

/* Marks keyval k, just created by a Fortran binding, as having Fortran callbacks of `form`
 * (ATTR_FINT: MPI_KEYVAL_CREATE, ATTR_FAINT: the MPI-2 create_keyval calls). Under the big lock. */
CREDO_ATTR_HIDDEN void mpi_attr_keyval_fortran(int k, enum attr_form form);

/* The set calls from Fortran: MPI_ATTR_PUT (form ATTR_FINT) and MPI_COMM_SET_ATTR (ATTR_FAINT);
 * MPI_TYPE_SET_ATTR and MPI_WIN_SET_ATTR. The value is the INTEGER or address-sized integer.
 * Checks and errors as the C calls'. */
CREDO_ATTR_HIDDEN int mpi_attr_comm_fset(MPI_Comm comm, int k, enum attr_form form, MPI_Aint val);
CREDO_ATTR_HIDDEN int mpi_attr_type_fset(MPI_Datatype dt, int k, MPI_Aint val);
CREDO_ATTR_HIDDEN int mpi_attr_win_fset(MPI_Win win, int k, MPI_Aint val);

/* The get calls from Fortran: MPI_COMM_GET_ATTR and MPI_ATTR_GET (which truncates *val to a
 * default INTEGER), MPI_TYPE_GET_ATTR and MPI_WIN_GET_ATTR. *val gets the value as an
 * address-sized integer (the predefined keys' values too), *flag whether one is cached; checks
 * and errors as the C calls'. */
CREDO_ATTR_HIDDEN int mpi_attr_comm_fget(MPI_Comm comm, int k, MPI_Aint *val, int *flag);
CREDO_ATTR_HIDDEN int mpi_attr_type_fget(MPI_Datatype dt, int k, MPI_Aint *val, int *flag);
CREDO_ATTR_HIDDEN int mpi_attr_win_fget(MPI_Win win, int k, MPI_Aint *val, int *flag);

#endif
