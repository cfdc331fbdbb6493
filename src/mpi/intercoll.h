/* src/mpi/intercoll.h — the blocking collectives on intercommunicators (MPI 3.1 5.2.3), called by
 * collective.c's bindings once their arguments are checked (hidden: not libcredo's interface). */
#ifndef CREDO_MPI_INTERCOLL_H
#define CREDO_MPI_INTERCOLL_H

#include "mpi/mpi_impl.h"

#define CREDO_IC_HIDDEN __attribute__((visibility("hidden")))

/* Every function takes arguments already checked where they are significant (collective.c),
 * MPI_IN_PLACE excluded, and returns MPI_SUCCESS or an MPI error class that the caller raises
 * through comm's handler: nothing here reports an error itself. Roots follow the standard: in the
 * root's group the root passes MPI_ROOT and the others MPI_PROC_NULL, in the other group every
 * process passes the root's rank in the remote group. Ranks in the counts and displacements
 * arrays are remote ranks: recvcounts of gatherv, allgatherv, alltoallv/w and sendcounts of
 * scatterv, alltoallv/w hold comm->remote_size entries; reduce_scatter's recvcounts holds
 * comm->size (the local group's blocks of the other group's result). */

CREDO_IC_HIDDEN int ic_barrier(MPI_Comm comm);
CREDO_IC_HIDDEN int ic_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm);
CREDO_IC_HIDDEN int ic_gather(const void *sb, int scount, MPI_Datatype st, void *rb, int rcount,
                              MPI_Datatype rt, int root, MPI_Comm comm);
CREDO_IC_HIDDEN int ic_gatherv(const void *sb, int scount, MPI_Datatype st, void *rb,
                               const int *rcounts, const int *displs, MPI_Datatype rt, int root,
                               MPI_Comm comm);
CREDO_IC_HIDDEN int ic_scatter(const void *sb, int scount, MPI_Datatype st, void *rb, int rcount,
                               MPI_Datatype rt, int root, MPI_Comm comm);
CREDO_IC_HIDDEN int ic_scatterv(const void *sb, const int *scounts, const int *displs,
                                MPI_Datatype st, void *rb, int rcount, MPI_Datatype rt, int root,
                                MPI_Comm comm);
CREDO_IC_HIDDEN int ic_allgather(const void *sb, int scount, MPI_Datatype st, void *rb,
                                 int rcount, MPI_Datatype rt, MPI_Comm comm);
CREDO_IC_HIDDEN int ic_allgatherv(const void *sb, int scount, MPI_Datatype st, void *rb,
                                  const int *rcounts, const int *displs, MPI_Datatype rt,
                                  MPI_Comm comm);
CREDO_IC_HIDDEN int ic_alltoall(const void *sb, int scount, MPI_Datatype st, void *rb, int rcount,
                                MPI_Datatype rt, MPI_Comm comm);
/* Alltoallv (sts == NULL: one type st a side, displacements in its extents) and Alltoallw (a
 * type per block in sts/rts, byte displacements; st and rt unused). */
CREDO_IC_HIDDEN int ic_alltoallvw(const void *sb, const int *scounts, const int *sdispls,
                                  MPI_Datatype st, const MPI_Datatype *sts, void *rb,
                                  const int *rcounts, const int *rdispls, MPI_Datatype rt,
                                  const MPI_Datatype *rts, MPI_Comm comm);
CREDO_IC_HIDDEN int ic_reduce(const void *sb, void *rb, int count, MPI_Datatype dt, MPI_Op op,
                              int root, MPI_Comm comm);
CREDO_IC_HIDDEN int ic_allreduce(const void *sb, void *rb, int count, MPI_Datatype dt, MPI_Op op,
                                 MPI_Comm comm);
/* recvcount elements per local process; the input vector holds recvcount * comm->size. */
CREDO_IC_HIDDEN int ic_reduce_scatter_block(const void *sb, void *rb, int recvcount,
                                            MPI_Datatype dt, MPI_Op op, MPI_Comm comm);
CREDO_IC_HIDDEN int ic_reduce_scatter(const void *sb, void *rb, const int *rcounts,
                                      MPI_Datatype dt, MPI_Op op, MPI_Comm comm);

#endif
