/* src/mpi/largecount.h — what the MPI 4.0 large-count files (largecount*.c) share: turning an
 * MPI_Count and a datatype into an int count the existing bindings take, and count arrays into ints. */
#ifndef CREDO_MPI_LARGECOUNT_H
#define CREDO_MPI_LARGECOUNT_H

#include <limits.h>

#include "mpi/mpi_impl.h"

/* The _c functions are thin: a count that fits in int goes to the int binding unchanged (so both
 * forms share every check and fast path). A larger count of a contiguous (dense) datatype becomes
 * one element of a contiguous type of that many elements, built for the call and freed after it:
 * the message, its byte count and the status are the same, and the int bindings already hold a
 * reference on the types their pending requests use. A larger count of a non-contiguous type is
 * refused with MPI_ERR_COUNT (its flattened form would need one block per element). */
typedef struct lc_arg {
    int n;               /* the int count to pass */
    MPI_Datatype dt;     /* the datatype to pass */
    MPI_Datatype tmp;    /* the contiguous type built for the call, or NULL */
} lc_arg;

/* Fills a from (count, dt); MPI_SUCCESS or the error raised as fn's through comm's handler
 * (comm may be NULL or invalid: the world's handler then). */
int lc_arg_of(const char *fn, MPI_Comm comm, MPI_Count count, MPI_Datatype dt, lc_arg *a);
/* Frees a's temporary type, if any (the call that used it keeps its own reference). */
void lc_arg_done(lc_arg *a);

/* A contiguous type of count elements of old, count beyond int allowed (MPI_Type_contiguous_c),
 * not committed; errors are raised as fn's. */
int lc_contiguous(const char *fn, MPI_Count count, MPI_Datatype old, MPI_Datatype *newtype);

/* Copies n counts (what: "count" or "displacement", for the message) into out as ints; an entry
 * outside int (or a negative count) is MPI_ERR_COUNT raised as fn's. src NULL: nothing to do. */
int lc_counts_to_int(const char *fn, MPI_Comm comm, const char *what, int n,
                     const MPI_Count *src, int *out);

/* The same for MPI_Aint displacements (all values must fit). */
int lc_aints_to_int(const char *fn, MPI_Comm comm, int n, const MPI_Aint *src, int *out);

static inline int lc_fits_int(MPI_Count v)
{
    return v >= INT_MIN && v <= INT_MAX;
}

#endif
