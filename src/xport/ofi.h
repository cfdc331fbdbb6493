/* src/xport/ofi.h — the network transport on libfabric: one FI_EP_RDM endpoint per rank, the network
 * mailbox (FI_MULTI_RECV receive buffers shared by all remote senders), copied packet sends, RMA reads
 * for the rendezvous pull, a memory-registration cache, and a wait fd for sleeping. It carries opaque
 * packets: it knows no matching, no credits and no packet kinds (those are p2p's).
 *
 * Error convention: 0 on success, a negative errno-style value on failure with a one-line reason in
 * err where the call takes one (else xofi_last_error()). Single-threaded: the caller (p2p) holds the
 * library lock around every call. Without libfabric at build time every call fails with -ENOSYS and
 * xofi_last_error() says the library was built without it. */
#ifndef CREDO_XPORT_OFI_H
#define CREDO_XPORT_OFI_H

#include <stddef.h>
#include <stdint.h>

typedef struct xofi_params {
    int rank, size;
    /* Bytes all remote senders together may have in flight to this rank at once (flow control's
     * bound: credits x slot size), 0 when the scheme bounds nothing (none). Each multi-receive
     * buffer holds this much plus one max_packet, so one buffer always has room while the other is
     * being consumed: the provider's own unexpected-message queue is never needed under credits. */
    size_t inflight_bytes;
    size_t max_packet; /* largest packet p2p sends (bytes) */
} xofi_params;

/* Transport counters (credo_info, tests, the flood test's "never overrun" proof). */
typedef struct xofi_stats {
    uint64_t packets_sent, bytes_sent, packets_received, bytes_received;
    uint64_t sends_queued;       /* sends the provider refused with -FI_EAGAIN, kept and retried */
    uint64_t rx_reposts;         /* multi-receive buffers handed back to the provider */
    /* Times the provider may have been left with no receive buffer posted (must stay 0 under
     * credits): a buffer released while none other was posted, or a backlog (below) that grew past
     * what the other buffers hold, which a dry spell always causes (docs/OFI.md, Counters). */
    uint64_t rx_dry;
    /* Most received-but-not-consumed bytes at once, as the transport can see them: packet bytes
     * taken from the completion queue since it was last found empty (an upper bound). */
    uint64_t rx_peak_bytes;
    uint64_t rx_capacity;        /* bytes of one multi-receive buffer */
    uint64_t reads_issued, read_bytes;
    uint64_t mr_hits, mr_misses, mr_evictions, mr_invalidations;
} xofi_stats;

/* Opens the endpoint: fi_getinfo for FI_EP_RDM with FI_MSG | FI_RMA | FI_MULTI_RECV (provider from
 * libfabric's FI_PROVIDER as usual), fabric, domain, address vector, completion queue with a wait fd
 * if the provider has one, and posts the multi-receive buffers. An unknown or missing provider gives
 * one line in err naming FI_PROVIDER and the providers libfabric offers. */
int xofi_open(const xofi_params *p, char *err, size_t errlen);
/* The endpoint's address as printable text (for the boot layer's key-value store, no spaces or ';'). */
int xofi_card(char *buf, size_t len);
/* Inserts rank's address (its card) into the address vector; before any send to or read from it. */
int xofi_connect(int rank, const char *card, char *err, size_t errlen);
/* Sends len bytes (len <= max_packet) to dest. Copied form: the transport owns a copy when this
 * returns, so the caller may reuse pkt at once. Never fails transiently: when the provider is busy
 * the packet is queued and sent by a later xofi_progress, in order. Packets to one destination arrive
 * in the order they were sent. Negative only for a fatal error (the peer is gone). */
int xofi_send(int dest, const void *pkt, size_t len);

/* A packet arrived: pkt is valid only during the call (its buffer is reposted afterwards). */
typedef void (*xofi_rx_fn)(const void *pkt, size_t len, void *arg);
/* A read posted with xofi_read completed (status 0) or failed (negative: the peer is gone). */
typedef void (*xofi_read_fn)(void *ctx, int status, void *arg);
/* Drives the provider, hands out at most budget received packets and read completions (budget <= 0:
 * no bound) in arrival order, and sends what xofi_send queued. on_rx NULL drops what arrives (only
 * for draining at finalize). Returns events handled (packets, reads, send completions, queued sends
 * posted; a send merely not yet complete is not one, so a caller that loops while > 0 does not spin
 * on the provider's writing), negative on a fatal error (a send or receive failed, or the stall bound
 * below: the peer is gone; xofi_last_error() names its rank). */
int xofi_progress(int budget, xofi_rx_fn on_rx, xofi_read_fn on_read, void *arg);
/* 1 while copied sends are queued or not yet completed by the provider: drain with
 * "while (xofi_progress(...) > 0 || xofi_busy())" (an injected packet, up to the inject size, leaves
 * the provider during the progress call after it). */
int xofi_busy(void);

/* Registration cache: a registration of [buf, buf + len) for remote reads (sender side) or as a
 * read's local target (receiver side, providers with FI_MR_LOCAL). A range inside a cached
 * registration is a hit; unreferenced entries are evicted least recently used first beyond 256
 * entries or 1 GiB. Nothing notices free()/munmap() by itself: the cache keeps unreferenced entries
 * only on providers where a stale one is harmless (tcp, udp, sockets, shm: no pinning), elsewhere it
 * deregisters at the last put (docs/OFI.md).
 * *key and *raddr are what a peer needs to read the range: raddr is buf's address for providers with
 * FI_MR_VIRT_ADDR, else its offset in the registration. The returned handle stays valid until
 * xofi_mr_put. */
typedef struct xofi_mr xofi_mr;
int xofi_mr_get(const void *buf, size_t len, xofi_mr **mr, uint64_t *key, uint64_t *raddr);
void xofi_mr_put(xofi_mr *mr);
/* The memory [buf, buf + len) is going away (munmap, MPI_Free_mem): cached registrations touching it
 * are dropped (at their last put when still referenced). Returns how many were invalidated. */
int xofi_mr_invalidate(const void *buf, size_t len);
/* Posts an RMA read of len bytes at (raddr, key) of peer into local (registered as local_mr, which
 * may be NULL if the provider needs no local registration). ctx comes back in on_read. -EAGAIN when
 * the provider's queue is full (retry after progress). */
int xofi_read(int peer, void *local, size_t len, xofi_mr *local_mr, uint64_t raddr, uint64_t key, void *ctx);

/* A file descriptor that becomes readable when the completion queue may have work (poll/epoll it),
 * or -1 when the provider has none; before sleeping on it call xofi_sleep_ok(). */
int xofi_wait_fd(void);
/* 1 when nothing is pending that only progress would find (fi_trywait succeeded): safe to sleep. */
int xofi_sleep_ok(void);

/* A queued packet the provider keeps refusing for ms milliseconds is a fatal error of
 * xofi_send / xofi_progress naming its destination, and so is a read refused (-EAGAIN) that long
 * (xofi_read then returns -ETIMEDOUT): rxm over tcp can refuse everything to a dead peer without
 * ever reporting an error. 0 restores the default, 30 s. It must exceed the longest
 * time a live peer may go without progress while this rank's sends to it fill the provider's queues
 * (rare under credits: what they allow in flight fits the socket buffers). Kept across open/close. */
void xofi_set_stall_timeout(unsigned ms);

void xofi_get_stats(xofi_stats *out);
const char *xofi_provider_name(void);
const char *xofi_last_error(void);
/* Whether this build has the transport (libfabric found at configure time). */
int xofi_built(void);
/* Cancels what is outstanding, closes everything, frees the buffers. Safe to call twice. */
void xofi_close(void);

/* ---- Windows (one-sided communication across nodes, src/mpi/win_net.c) ----
 * A long-lived registration of a window's memory [buf, buf + len) that peers may write and read:
 * not cached and not shared with xofi_mr_get's entries. *key and *raddr are what a peer needs (raddr
 * as for xofi_mr_get: buf's address with FI_MR_VIRT_ADDR, else 0, the offset of buf). */
typedef struct xofi_win_mr xofi_win_mr;
int xofi_win_reg(void *buf, size_t len, xofi_win_mr **mr, uint64_t *key, uint64_t *raddr);
void xofi_win_dereg(xofi_win_mr *mr);
/* Blocking RMA with peer: for each piece, len bytes at local written to (raddr, key) (write = 1) or
 * read from there into local. Returns when every piece is complete: a write once its data is in the
 * target's memory (FI_DELIVERY_COMPLETE), a read once it is in local. It drives the completion
 * queue itself and keeps what it reads for p2p in order for the next xofi_progress (which must not
 * run meanwhile: the caller holds the library lock). 0, or negative with xofi_last_error() naming
 * the rank; -ENOTSUP for writes when the provider has no delivery-complete writes; -EPIPE when one
 * of p2p's operations failed meanwhile (its error completion was read here, and p2p will not see
 * it: fatal, as p2p's own progress would make it). */
typedef struct xofi_rma_piece {
    void *local;
    size_t len;
    uint64_t raddr;
} xofi_rma_piece;
int xofi_rma_sync(int peer, int write, const xofi_rma_piece *pieces, size_t n, uint64_t key);
/* 1 when the provider pins nothing and checks a key's address range at each access (tcp, udp,
 * sockets, shm: the registration cache's "safe" providers, docs/OFI.md): a registration kept after
 * its memory was released then names whatever is mapped at those addresses later, so a peer may
 * cache a key for an address range; 0 otherwise (or when the transport is not open). */
int xofi_win_keys_stable(void);
/* Operations posted by xofi_rma_sync (writes, reads) and the bytes they moved, since start-up. */
void xofi_win_stats(uint64_t *writes, uint64_t *reads, uint64_t *bytes);

#endif
