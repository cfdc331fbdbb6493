/* tests/mpi/nbhd.h — the neighbourhood of a process in the order the neighbourhood collectives
 * use, and how a Cartesian grid's is found; shared by neighbor.c and alltoallw.c. */
#ifndef CREDO_TESTS_MPI_NBHD_H
#define CREDO_TESTS_MPI_NBHD_H

#include "testutil.h"

/* The neighbourhood of this process as the standard orders it. For a grid: for each dimension the
 * -1 then the +1 neighbour (Cart_shift with disp 1: source, dest). peer_slot[i]: the out-slot of
 * in[i] whose block this process receives in block i. */
typedef struct nbhd {
    int nin, nout, in[16], out[16], peer_slot[16];
} nbhd;

static TU_UNUSED void cart_nbhd(MPI_Comm c, nbhd *nb) {
    int nd;
    MPI_OK(MPI_Cartdim_get(c, &nd));
    nb->nin = nb->nout = 2 * nd;
    for (int d = 0; d < nd; d++) {
        MPI_OK(MPI_Cart_shift(c, d, 1, &nb->in[2 * d], &nb->in[2 * d + 1]));
        nb->out[2 * d] = nb->in[2 * d];
        nb->out[2 * d + 1] = nb->in[2 * d + 1];
        /* my -1 neighbour sent me its +1 block, my +1 neighbour its -1 block */
        nb->peer_slot[2 * d] = 2 * d + 1;
        nb->peer_slot[2 * d + 1] = 2 * d;
    }
}

#endif
