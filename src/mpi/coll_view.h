/* src/mpi/coll_view.h — collective.c's dense views of datatype buffers and its request plumbing,
 * shared with the neighbourhood collectives of topo.c (hidden: not part of libcredo's interface). */
#ifndef CREDO_MPI_COLL_VIEW_H
#define CREDO_MPI_COLL_VIEW_H

#include "mpi/mpi_impl.h"

#define CREDO_HIDDEN __attribute__((visibility("hidden")))

/* Per-call temporaries of one collective (packed copies, unpack targets); NULL while none. */
typedef struct mcoll mcoll;

/* Dense input of count elements: the buffer itself or a packed copy. */
CREDO_HIDDEN int view_in(const void *buf, int count, MPI_Datatype dt, mcoll **xp, const void **out);
/* Dense output of blocks (cnt/disp in elements; cnt == NULL: one block of cnt1 at 0); byte counts
 * and displacements of the blocks in the view go to bcnt/bdisp when given. */
CREDO_HIDDEN int view_out(void *buf, MPI_Datatype dt, int nblk, const int *cnt, const int *disp,
                          int cnt1, int prefill, mcoll **xp, void **out, int *bcnt, int *bdisp);
/* Dense input of blocks (v-variants). */
CREDO_HIDDEN int view_vin(const void *buf, MPI_Datatype dt, int nblk, const int *cnt,
                          const int *disp, mcoll **xp, const void **out, int *bcnt, int *bdisp);
/* The blocks of one side of a w-form (Alltoallw, Neighbor_alltoallw): block i is cnt[i] elements
 * of dt[i] at byte displacement idisp[i] (Alltoallw's ints) or adisp[i] (the neighbour forms'
 * MPI_Aint; the other is NULL) from the buffer. */
typedef struct view_w {
    int n;
    const int *cnt;
    const int *idisp;
    const MPI_Aint *adisp;
    const MPI_Datatype *dt;
} view_w;
/* Argument checks of one side: arrays present (MPI_ERR_ARG), counts >= 0 (MPI_ERR_COUNT), the
 * types of non-empty blocks valid and committed (MPI_ERR_TYPE), the side's bytes within an int
 * (MPI_ERR_COUNT). side names it in messages ("send"), who the peers ("rank", "neighbour"). */
CREDO_HIDDEN int mc_check_w(const char *fn, MPI_Comm comm, const view_w *w, const char *side,
                            const char *who);
/* NULL buffers of the v- and w-forms, by mpi_check_buf's rule: refused (MPI_ERR_BUFFER) only where
 * a block of a predefined type holds bytes. A NULL buffer with nothing to move is valid, and a
 * derived type may hold absolute addresses from MPI_BOTTOM, which is NULL; so may the MPI_Aint
 * displacements of Neighbor_alltoallw, which are therefore not checked. Called after the counts and
 * types are checked. */
CREDO_HIDDEN int mc_check_vbuf(const char *fn, MPI_Comm comm, const char *side, const char *who,
                               const void *buf, int n, const int *cnt, MPI_Datatype dt);
CREDO_HIDDEN int mc_check_wbuf(const char *fn, MPI_Comm comm, const view_w *w, const char *side,
                               const char *who, const void *buf);
/* Whether the blocks of one side hold a byte: one buffer as both sides aliases only then. */
CREDO_HIDDEN int mc_any_v(int n, const int *cnt, MPI_Datatype dt);
CREDO_HIDDEN int mc_any_w(const view_w *w);
/* Dense views of w-blocks: byte counts and offsets in the view go to bcnt/boff (n each). Either the
 * user buffer itself or a packed temporary (unpacked block by block on completion by view_wout;
 * prefill: MPI_IN_PLACE, the temporary starts with the buffer's blocks). */
CREDO_HIDDEN int view_win(const void *buf, const view_w *w, mcoll **xp, const void **out,
                          int *bcnt, int *boff);
CREDO_HIDDEN int view_wout(void *buf, const view_w *w, int prefill, mcoll **xp, void **out,
                           int *bcnt, int *boff);
/* Ends a binding: reports a start error (mrc: MPI code, grc: GOAL code), else ties r to comm and
 * hands it out (req != NULL) or waits for it. */
CREDO_HIDDEN int mc_finish(const char *fn, MPI_Comm comm, int grc, int mrc, p2p_req *r, mcoll *x,
                           MPI_Request *req);

/* Non-blocking bindings reject a NULL request before anything else: the do_* helpers (and
 * topo.c's do_neighbor) take a NULL request to mean the blocking form. */
#define NB_REQ(fn, comm, request)                                                                  \
    do {                                                                                           \
        if (request == NULL)                                                                       \
            return mpi_error(comm_ok(comm) ? comm : NULL, MPI_ERR_REQUEST, fn,                     \
                             "request is NULL");                                                   \
    } while (0)

#endif
