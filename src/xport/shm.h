/* src/xport/shm.h — the shared-memory transport's fast paths, inline: reserving and posting slots in
 * a peer's ring and polling our own. The table (xport_shm, xport/shm.c) calls the same functions. */
#ifndef CREDO_XPORT_SHM_H
#define CREDO_XPORT_SHM_H

#include <errno.h>
#include <stdint.h>

#include "xport/shm_mbox.h"
#include "xport/xport.h"

/* Why inline beside a table: the protocol's hot paths reach shared-memory peers through these
 * directly when the peer's table is xport_shm (the Linux kernel's INDIRECT_CALL idiom): an eager
 * message is a reservation, a few stores and a publication, and an indirect call per step would be
 * a visible part of its 8-byte latency. Every other transport goes through its table. */

static inline uint64_t xshm_reserve(mbox *view, uint32_t n)
{
    return mbox_reserve(view, n);
}

static inline uint32_t xshm_try_reserve(mbox *view, uint32_t want, uint64_t *cached_head, uint64_t *idx)
{
    return mbox_try_reserve(view, want, cached_head, idx);
}

/* Publishes the chunks in [idx, idx + n), each by its first slot's release store, then rings the
 * doorbell once. A chunk's slot count is read before its publication: once published, the owner may
 * consume it and a later lap's writer reuse its slot. */
static inline int xshm_post(mbox *view, uint64_t idx, uint32_t n)
{
    uint64_t end = idx + n;
    while (idx < end) {
        uint32_t ns = mbox_hdr(view, idx)->nslots;
        mbox_publish(view, idx);
        idx += ns ? ns : 1;
    }
    mbox_doorbell(view);
    return 0;
}

/* Our own ring's receive side: where the next chunk starts, and occupancy samples. */
typedef struct xshm_rx {
    uint64_t head;          /* next slot to read */
    uint64_t polls;         /* chunks seen, for the sampling below */
    uint64_t occ_samples, occ_sum, occ_peak;
    uint64_t slots;         /* slots received */
    int bad_src;            /* the framing of a refused chunk (xshm_poll returned -EPROTO) */
    uint32_t bad_ns;
} xshm_rx;

typedef void (*xshm_chunk_fn)(const mbox *view, int src, uint8_t kind, uint64_t idx, uint32_t ns);

/* Hands at most budget ready chunks of our ring to fn, in order, releasing each after fn returns.
 * -EPROTO (rx->bad_*) for a slot header naming a rank out of range, ourselves, or more slots than the
 * ring. With a constant fn the compiler inlines it here (the protocol's receive path). */
static inline __attribute__((always_inline)) int xshm_poll(mbox *mb, xshm_rx *rx, int rank, int size, int budget,
                                                           xshm_chunk_fn fn)
{
    int n = 0;
    while (n < budget) {
        uint64_t idx = rx->head;
        if (!mbox_ready(mb, idx))
            break;
        mbox_slot_hdr *h = mbox_hdr(mb, idx);
        uint32_t ns = h->nslots ? h->nslots : 1;
        int src = h->src;
        uint8_t kind = h->kind;
        /* the two fields that index the protocol's tables (per source) and the ring are checked
         * before any use */
        if (__builtin_expect(src >= size || src == rank || ns > mb->mask + 1, 0)) {
            rx->bad_src = src;
            rx->bad_ns = ns;
            return -EPROTO;
        }
        /* In a stream the next chunk is usually written already: start its miss now, overlapped with
         * handling this one, instead of after it. */
        __builtin_prefetch(mbox_slot(mb, idx + ns), 0, 3);
        /* Occupancy is sampled rarely: reading `tail` pulls the writers' line away from them, which a
         * ping-pong or a stream would pay on every message. Every 16th chunk of a backlog (several
         * chunks in one pass) and every 64th poll still catch the peaks of a flood. */
        if (__builtin_expect((n & 15) == 1 || (++rx->polls & 63) == 0, 0)) {
            uint64_t occ = atomic_load_explicit(&mb->ctl->tail, memory_order_relaxed) - idx;
            rx->occ_samples++;
            rx->occ_sum += occ;
            if (occ > rx->occ_peak)
                rx->occ_peak = occ;
        }
        fn(mb, src, kind, idx, ns);
        rx->slots += ns;
        rx->head = idx + ns;
        /* release: writers that check ring room (none scheme) must see our reads of these slots done */
        atomic_store_explicit(&mb->ctl->head, rx->head, memory_order_release);
        n++;
    }
    return n;
}

/* Shared-memory specifics the protocol's mapped paths use (XPORT_CAP_MAPPED). */
int xshm_pid(int rank);     /* the peer's process (CMA), 0 when not connected */
int xshm_cma_ok(void);      /* CMA reads of a peer's memory work here (probed by ready) */
xshm_rx *xshm_rx_state(void); /* our ring's receive side (xshm_poll) */
/* An eventfd that becomes readable when a peer rings our doorbell while one of our threads sleeps in
 * poll (mbox_poll_sleep_begin), or when another of our threads writes it (local wake-ups). */
int xshm_wake_fd(void);

#endif
