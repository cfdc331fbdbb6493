/* src/fc/rdrp.h — the window of a receiver-driven chunked rendezvous pull (seed 002's RDRP): which
 * chunk to read next and whether the window has room. Pure state, shared by p2p and credosim. */
#ifndef CREDO_FC_RDRP_H
#define CREDO_FC_RDRP_H

#include <stdint.h>

/* One pull of `total` bytes, of which the first `have` already arrived (the RTS's inline chunk),
 * read in chunks of at most `chunk` bytes with at most `window` reads outstanding. A read's
 * completion (its data landed in the receive buffer) frees its place, so the transfer runs at the
 * pace of the receiver's sink. The caller issues the reads; this only does the book-keeping.
 *
 * Invariants (the tests check them): done <= issued <= total; outstanding <= window;
 * outstanding == 0 when issued == done; every byte in [have, total) is issued exactly once, in
 * order, in pieces of `chunk` bytes except the last. */
typedef struct rdrp_win {
    uint64_t total;          /* bytes of the message */
    uint64_t issued;         /* bytes handed to reads so far (starts at have) */
    uint64_t done;           /* bytes whose reads completed (starts at have) */
    uint32_t chunk;          /* S: bytes per read, >= 1 */
    uint32_t window;         /* c: reads outstanding at most, >= 1 */
    uint32_t outstanding;    /* reads issued and not completed */
    uint32_t max_outstanding; /* the most outstanding at any time (a counter) */
} rdrp_win;

/* Starts a pull; chunk and window of 0 are taken as 1, have > total as total. */
static inline void rdrp_init(rdrp_win *w, uint64_t total, uint64_t have, uint32_t chunk, uint32_t window)
{
    if (have > total)
        have = total;
    *w = (rdrp_win){.total = total, .issued = have, .done = have, .chunk = chunk ? chunk : 1,
                    .window = window ? window : 1};
}

/* 1 when the window has room and bytes are left to read: *off and *len name the next read (which
 * the caller posts, then calls rdrp_issued); 0 otherwise. */
static inline int rdrp_next(const rdrp_win *w, uint64_t *off, uint32_t *len)
{
    if (w->issued >= w->total || w->outstanding >= w->window)
        return 0;
    uint64_t left = w->total - w->issued;
    *off = w->issued;
    *len = left < w->chunk ? (uint32_t)left : w->chunk;
    return 1;
}

/* The read rdrp_next named was posted. */
static inline void rdrp_issued(rdrp_win *w, uint32_t len)
{
    w->issued += len;
    if (++w->outstanding > w->max_outstanding)
        w->max_outstanding = w->outstanding;
}

/* A read of len bytes completed. Returns 1 when the whole message has arrived (the FIN may go). */
static inline int rdrp_completed(rdrp_win *w, uint32_t len)
{
    w->outstanding--;
    w->done += len;
    return w->done >= w->total && w->outstanding == 0;
}

#endif
