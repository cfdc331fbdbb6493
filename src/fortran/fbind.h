/* src/fortran/fbind.h — what every Fortran binding does to its arguments: integer handles,
 * choice buffers (MPI_BOTTOM, MPI_IN_PLACE), statuses, arrays of requests, logicals, strings. */
#ifndef CREDO_FORTRAN_FBIND_H
#define CREDO_FORTRAN_FBIND_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"

/* gfortran's name for an external procedure: lower case and one trailing underscore. Each
 * binding also answers to the profiling name (PMPI_SEND -> pmpi_send_). */
#define F_PMPI(lower) extern __typeof__(mpi_##lower##_) pmpi_##lower##_ __attribute__((alias("mpi_" #lower "_")));

/* Integer handles as C handles, for the bindings' argument lists (these short names are for the
 * files of src/fortran only, which alone include this header). */
#define T(f) MPI_Type_f2c(*(f))
#define C(f) MPI_Comm_f2c(*(f))
#define O(f) MPI_Op_f2c(*(f))
#define I(f) MPI_Info_f2c(*(f))
#define G(f) MPI_Group_f2c(*(f))
#define W(f) MPI_Win_f2c(*(f))
#define FH(f) MPI_File_f2c(*(f))

/* A call that makes a handle, given as &r_ (&c_, &g_, &t_): the handle goes back as its integer
 * (the null handle's 0 when the call fails). */
#define F_HANDLE_OUT(CType, var, out, conv, call)                                                  \
    do {                                                                                           \
        CType var = (CType)0;                                                                      \
        *ierr = (call);                                                                            \
        *(out) = conv(var);                                                                        \
    } while (0)
#define REQ_OUT(call) F_HANDLE_OUT(MPI_Request, r_, request, MPI_Request_c2f, call)
#define COMM_OUT(call) F_HANDLE_OUT(MPI_Comm, c_, newcomm, MPI_Comm_c2f, call)
#define GROUP_OUT(call) F_HANDLE_OUT(MPI_Group, g_, newgroup, MPI_Group_c2f, call)
#define TYPE_OUT(call) F_HANDLE_OUT(MPI_Datatype, t_, newtype, MPI_Type_c2f, call)

/* Storage of mpif.h's common blocks (gfortran: /NAME/ -> name_). A binding compares an argument's
 * address with these; the values are never read. */
extern MPI_Fint credo_bottom_, credo_in_place_, credo_errcodes_ignore_[1], credo_unweighted_[1],
    credo_weights_empty_[1];
extern MPI_Fint credo_status_ignore_[], credo_statuses_ignore_[];

static inline void *f_buf(const void *p)
{
    if (p == &credo_bottom_)
        return MPI_BOTTOM;
    if (p == &credo_in_place_)
        return MPI_IN_PLACE;
    return (void *)p;
}

/* A Fortran status is the C status' bytes (fhandle.c); copied through a C status because the
 * Fortran array is only 4-byte aligned. The copy starts from the Fortran status: a call that
 * succeeds leaves MPI_ERROR as it was, in Fortran as in C. */
static inline MPI_Status *f_status_arg(MPI_Fint *f, MPI_Status *c)
{
    if (f == credo_status_ignore_)
        return MPI_STATUS_IGNORE;
    memcpy(c, f, sizeof *c);
    return c;
}
static inline void f_status_back(MPI_Fint *f, const MPI_Status *c)
{
    if (f != credo_status_ignore_)
        memcpy(f, c, sizeof *c);
}

/* gfortran's LOGICAL: .TRUE. is 1, and any non-zero value reads as true. */
static inline MPI_Fint f_logical(int b) { return b ? 1 : 0; }

/* Arrays of n handles or statuses: on the stack up to F_LOCAL entries, else on the heap. */
enum { F_LOCAL = 32 };
struct f_reqs {
    MPI_Request *v;
    MPI_Request local[F_LOCAL];
};
struct f_stats {
    MPI_Status *v; /* MPI_STATUSES_IGNORE when the Fortran argument is */
    MPI_Status local[F_LOCAL];
};
/* 0, or MPI_ERR_NO_MEM when the array cannot be had. */
int f_reqs_in(struct f_reqs *r, int n, const MPI_Fint *f);
void f_reqs_back(struct f_reqs *r, int n, MPI_Fint *f);
int f_stats_in(struct f_stats *s, int n, MPI_Fint *f);
void f_stats_back(struct f_stats *s, int n, MPI_Fint *f);
/* Copies of n integers as C ints (MPI_Fint is int: the Fortran array is used as is) and of n
 * integer handles as C handles. */
int f_types_in(MPI_Datatype **out, MPI_Datatype *local, int n, const MPI_Fint *f);

/* A CHARACTER argument: a trimmed, NUL-terminated copy (NULL when out of memory), and the
 * blank-padded copy of a C string into one. */
char *f_str_in(const char *s, size_t len);
void f_str_out(char *dst, size_t len, const char *src);
/* The same for a name C returned with its length n, which goes to *resultlen (at most len). */
void f_str_result(char *dst, size_t len, const char *src, int n, MPI_Fint *resultlen);

/* The error a binding returns when it cannot allocate its temporaries. */
int f_no_mem(const char *fn);

#endif
