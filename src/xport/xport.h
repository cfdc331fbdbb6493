/* src/xport/xport.h — the contract between the point-to-point protocol (src/p2p) and a transport: one
 * const ops table per transport, chosen per peer (xport/shm.c: shared memory; xport/ofi_ops.c: libfabric).
 *
 * What moves. A transport carries chunks: runs of fixed-size slots, each slot starting with the 8-byte
 * framing header of xport/shm_mbox.h (sequence word, source rank, kind, slot count). It reads the
 * framing (to deliver whole chunks, and to refuse a run that is not one) and nothing after it: packet
 * kinds, message headers, matching and credits are the protocol's (p2p/p2p_proto.h). Chunks are written
 * in place: the protocol asks for n slots of a destination's view, writes them, and posts them; on
 * shared memory the view is the destination's ring itself (no copy), on the network a private buffer
 * sent as one packet.
 *
 * Rules for every slot below:
 *   - Threads: the caller holds the library lock (p2p's); no slot is called concurrently with another.
 *   - Blocking: nothing blocks or sleeps except where a slot says so; the waiting code sleeps on
 *     wait_fd (or the shared-memory doorbell) itself.
 *   - Errors: 0 (or the documented non-negative value) on success, a negative errno value on failure;
 *     xport_last_error() of the transport (its `error` slot) gives one line on the last one. A transport
 *     never ends the process: the protocol decides, and names the peer and the operation.
 *   - Peers: ranks are job ranks; a transport only sees the peers it was connected to.
 *   - Values from the wire (framing of a received run) are checked before they are used. */
#ifndef CREDO_XPORT_H
#define CREDO_XPORT_H

#include <stddef.h>
#include <stdint.h>

#include "xport/shm_mbox.h"

/* What start-up tells a transport. Each transport reads the fields it needs. */
typedef struct xport_params {
    int rank, size;
    const char *jobid;      /* names this job's shared objects (shm) */
    uint32_t slot_size;     /* bytes per slot, a power of two (>= 64) */
    uint32_t bound;         /* slots flow control lets all senders together occupy in our mailbox */
    size_t inflight_bytes;  /* bound x slot size, 0 when the scheme bounds nothing (ofi: receive buffers) */
    size_t staging_bytes;   /* shm: the pipelined copy's staging halves in our segment */
    size_t prepush_bytes;   /* shm: the prepush area of our segment */
    mbox *self;             /* shm: filled with the view of our own mailbox (the protocol polls it) */
} xport_params;

/* Capabilities: which protocol mechanisms a transport allows. */
enum {
    /* The peer's segment is mapped here (shm): prepush, the pipelined copy's staging halves, the
     * peer's in_wait hint and its copy done words can be used, and the read slot is synchronous. */
    XPORT_CAP_MAPPED = 1u << 0,
    /* Reads complete later, through the read_done upcall (the receiver-driven chunked pull). */
    XPORT_CAP_ASYNC_READ = 1u << 1,
};

/* What progress hands back to the protocol. */
typedef struct xport_upcalls {
    /* One chunk of ns slots (ns >= 1, the framing checked: the run holds all ns slots) starting at
     * slot idx of view, from src (0 <= src < size, src != rank, a peer this transport carries).
     * view and the slots are valid only during the call. kind is not checked: the protocol does. */
    void (*chunk)(const mbox *view, int src, uint8_t kind, uint64_t idx, uint32_t ns);
    /* A read posted with `read` (XPORT_CAP_ASYNC_READ) completed: status 0, or negative (the peer is gone). */
    void (*read_done)(void *ctx, int status);
} xport_upcalls;

/* A read that completed within the call (synchronous transports). */
#define XPORT_READ_DONE 1

typedef struct xport_ops {
    const char *name; /* "shm", "ofi": what credo_peer_transport reports */
    unsigned caps;    /* XPORT_CAP_* */

    /* Start-up (each once, in this order, every rank of the job; the boot layer's key-value store
     * carries what card writes, under a key of the transport's name and the rank):
     * open creates this rank's endpoint (and receive memory); card prints its address (no spaces,
     * no ':' and no ';'); connect makes rank reachable from its card and fills view, the protocol's
     * place to write chunks for rank; ready is called when every rank connected (after a fence). */
    int (*open)(const xport_params *p, char *err, size_t errlen);
    int (*card)(char *buf, size_t len);
    int (*connect)(int rank, const char *card, mbox *view, char *err, size_t errlen);
    void (*ready)(void);

    /* Sending. reserve: n (1..255) slots at dest once flow control granted them (room is guaranteed)
     * and returns the index of the first in view. try_reserve (NULL when the transport buffers itself,
     * so the none scheme needs no room check): up to want slots judged against the owner's head,
     * returns how many (0: full), *cached_head is the caller's per-destination cache. post: the slots
     * [idx, idx + n) of view hold whole chunks, every slot but each chunk's first marked; post makes
     * them visible to dest in order (one packet where the transport has packets) and takes them back:
     * the view's slots belong to the transport afterwards. Never fails transiently: a busy network
     * queues the packet; a negative value is fatal (the peer is gone). */
    uint64_t (*reserve)(mbox *view, uint32_t n);
    uint32_t (*try_reserve)(mbox *view, uint32_t want, uint64_t *cached_head, uint64_t *idx);
    int (*post)(int dest, mbox *view, uint64_t idx, uint32_t n);

    /* Memory for the rendezvous. mr_get: [buf, buf + len) made readable by peers (sender) or a
     * read's local target (receiver); *key and *raddr are what a peer's read names. The handle stays
     * valid until mr_put. mr_invalidate: the range is going away (free, munmap). read: len bytes at
     * (raddr, key) of peer into local; XPORT_READ_DONE when done within the call (XPORT_CAP_MAPPED),
     * 0 when posted (read_done comes from a later progress, ctx echoed), -EAGAIN when the transport
     * is full (retry after progress), -EPERM when the kernel refuses the read (shm without CMA: the
     * protocol falls back to the pipelined copy), other negatives fatal. */
    int (*mr_get)(const void *buf, size_t len, void **mr, uint64_t *key, uint64_t *raddr);
    void (*mr_put)(void *mr);
    void (*mr_invalidate)(const void *buf, size_t len);
    int (*read)(int peer, void *local, size_t len, void *local_mr, uint64_t raddr, uint64_t key, void *ctx);

    /* Progress: hands at most budget chunks and read completions to up, in arrival order, and drives
     * queued sends. Returns the events handled (0: nothing to do), negative on a fatal error. */
    int (*progress)(int budget, const xport_upcalls *up);
    /* 1 while sends are queued or not yet completed (drain before close). */
    int (*busy)(void);
    /* Waiting: a file descriptor that becomes readable when progress may have work (-1: none; shm
     * wakes futex sleepers with its doorbell, and poll sleepers through xshm_wake_fd), and sleep_ok,
     * which arms it and says whether sleeping is safe now (1) or progress has work pending (0). */
    int (*wait_fd)(void);
    int (*sleep_ok)(void);

    /* One line on the last error. */
    const char *(*error)(void);
    /* Detaches from rank's view (its connect undone), then, after every detach, closes the endpoint
     * and frees everything; safe to call twice. */
    void (*disconnect)(int rank, mbox *view);
    void (*close)(void);
} xport_ops;

extern const xport_ops xport_shm;
extern const xport_ops xport_ofi;

#endif
