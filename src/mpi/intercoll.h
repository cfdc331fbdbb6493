/* src/mpi/intercoll.h — the collectives on intercommunicators (MPI 3.1 5.2.3), blocking and not,
 * called by collective.c's bindings once their arguments are checked (hidden: not libcredo's). */
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

/* The non-blocking forms: the same arguments (taken where the blocking form takes them) and a
 * request, which they hand out unless they return an error. They only post their first messages
 * and return; the request completes with the first p2p error of the collective, if any. Buffers,
 * counts and types must stay as they are until it completes, as MPI requires, except the counts
 * and displacement arrays, which are read in the call; datatypes and ops may be freed. */
CREDO_IC_HIDDEN int icnb_barrier(MPI_Comm comm, MPI_Request *req);
CREDO_IC_HIDDEN int icnb_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                               MPI_Request *req);
CREDO_IC_HIDDEN int icnb_gather(const void *sb, int scount, MPI_Datatype st, void *rb, int rcount,
                                MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *req);
CREDO_IC_HIDDEN int icnb_gatherv(const void *sb, int scount, MPI_Datatype st, void *rb,
                                 const int *rcounts, const int *displs, MPI_Datatype rt, int root,
                                 MPI_Comm comm, MPI_Request *req);
CREDO_IC_HIDDEN int icnb_scatter(const void *sb, int scount, MPI_Datatype st, void *rb,
                                 int rcount, MPI_Datatype rt, int root, MPI_Comm comm,
                                 MPI_Request *req);
CREDO_IC_HIDDEN int icnb_scatterv(const void *sb, const int *scounts, const int *displs,
                                  MPI_Datatype st, void *rb, int rcount, MPI_Datatype rt, int root,
                                  MPI_Comm comm, MPI_Request *req);
CREDO_IC_HIDDEN int icnb_allgather(const void *sb, int scount, MPI_Datatype st, void *rb,
                                   int rcount, MPI_Datatype rt, MPI_Comm comm, MPI_Request *req);
CREDO_IC_HIDDEN int icnb_allgatherv(const void *sb, int scount, MPI_Datatype st, void *rb,
                                    const int *rcounts, const int *displs, MPI_Datatype rt,
                                    MPI_Comm comm, MPI_Request *req);
CREDO_IC_HIDDEN int icnb_alltoall(const void *sb, int scount, MPI_Datatype st, void *rb,
                                  int rcount, MPI_Datatype rt, MPI_Comm comm, MPI_Request *req);
CREDO_IC_HIDDEN int icnb_alltoallvw(const void *sb, const int *scounts, const int *sdispls,
                                    MPI_Datatype st, const MPI_Datatype *sts, void *rb,
                                    const int *rcounts, const int *rdispls, MPI_Datatype rt,
                                    const MPI_Datatype *rts, MPI_Comm comm, MPI_Request *req);
CREDO_IC_HIDDEN int icnb_reduce(const void *sb, void *rb, int count, MPI_Datatype dt, MPI_Op op,
                                int root, MPI_Comm comm, MPI_Request *req);
CREDO_IC_HIDDEN int icnb_allreduce(const void *sb, void *rb, int count, MPI_Datatype dt,
                                   MPI_Op op, MPI_Comm comm, MPI_Request *req);
CREDO_IC_HIDDEN int icnb_reduce_scatter_block(const void *sb, void *rb, int recvcount,
                                              MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                                              MPI_Request *req);
CREDO_IC_HIDDEN int icnb_reduce_scatter(const void *sb, void *rb, const int *rcounts,
                                        MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                                        MPI_Request *req);

/* Non-blocking: every member of both groups gets val of the chooser group's leader (chooser: 1 in
 * that group, 0 in the other), then done(arg, val, ok) runs (ok: the sharing succeeded) and its
 * return value, a p2p error code, becomes the request's error. For MPI_Comm_idup. */
CREDO_IC_HIDDEN int icnb_share_u32(MPI_Comm comm, int chooser, uint32_t val,
                                   int (*done)(void *arg, uint32_t val, int ok), void *arg,
                                   MPI_Request *req);

#endif
