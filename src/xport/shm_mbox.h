/* src/xport/shm_mbox.h — the per-process ring mailbox in shared memory: segment layout, slot format,
 * reservation and publication (writer side), polling (owner side), and the futex doorbell. */
#ifndef CREDO_SHM_MBOX_H
#define CREDO_SHM_MBOX_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "xport/copy.h"

#define MBOX_CACHELINE 64
#define MBOX_MAGIC 0x6372656430626f78ull /* "cred0box" */
#define MBOX_VERSION 7u

/* Every slot starts with this 8-byte header. `seq` is written last (release) and equals the low 32 bits
 * of the slot's absolute ring index + 1: the owner polls exactly one word and never has to clear a slot,
 * so it only ever reads lines that writers own (UCX's owner-bit idea, with a full sequence number so a
 * stale slot from an earlier lap can never look ready whatever payload bytes it holds). */
typedef struct mbox_slot_hdr {
    _Atomic uint32_t seq;
    uint16_t src;    /* sender's job rank */
    uint8_t kind;    /* the protocol's packet kind (p2p/p2p_proto.h): opaque to the mailbox */
    uint8_t nslots;  /* slots in this chunk (first slot of a chunk only) */
} mbox_slot_hdr;


/* The prepush area: up to MBOX_PREPUSH_UNITS units of at least MBOX_PREPUSH_MIN_UNIT bytes right
 * after the staging halves (to the end of the segment), owned by the segment's rank as a sender; a
 * message of up to MBOX_PREPUSH_MAX bytes takes ceil(len / unit) adjacent units within one group of
 * 64 (one word of the sender's bitmap). Both sides derive the unit from the segment's layout.
 * Why 512 units and not 64 (of 8 KiB, as before): a window of 64 messages of 1-2 KiB each way
 * (bidirectional bandwidth) used up 64 units before the receiver's FINs came back, and the sends
 * that found none took the CTS round trip: 1.5 GB/s at 1 KiB with a window of 64 against 3.2 with
 * a window of 32. Why 128 KiB:
 * up to there a message went faster with its request than through the pipelined copy's CTS round
 * trip and chunk handshakes (ping-pong at 64 KiB 6.3 against 5.0 us, at 128 KiB 9.9 against 8.7). */
#define MBOX_PREPUSH_UNITS 512u
#define MBOX_PREPUSH_MIN_UNIT ((size_t)1024)
#define MBOX_PREPUSH_MAX ((size_t)131072)
/* Shared control block at the start of each segment. Writers touch line `tail` (reservation and the
 * doorbell flag), only the owner writes line `head`. Separate lines keep writer traffic off the
 * owner's line and vice versa. */
typedef struct mbox_ctl {
    uint64_t magic;
    uint32_t version;
    uint32_t slot_size;
    uint32_t cap;         /* physical slots, a power of two */
    uint32_t bound;       /* logical slots (flow control keeps occupancy <= bound) */
    uint64_t seg_bytes;
    uint64_t staging_off; /* pipelined-copy staging buffers (owned by this rank as a sender) */
    uint64_t staging_bytes;
    int32_t owner_pid;
    int32_t owner_rank;
    uint64_t claims_off;  /* the copy done words, one per sender (mbox.copy_done) */
    _Alignas(MBOX_CACHELINE) _Atomic uint64_t tail;
    /* Owner threads (about to be) asleep: in futex_wait on `bell` (low 16 bits, one each), or in
     * ppoll on the owner's eventfd with other wait objects (MBOX_POLL_SLEEPER each: a rank that also
     * waits for the network), which writers reach through mbox.ring_fd. */
    _Atomic uint32_t sleepers;
    _Atomic uint32_t bell;     /* futex word: writers bump it to wake the sleepers */
    char pad1[MBOX_CACHELINE - 16];
    _Alignas(MBOX_CACHELINE) _Atomic uint64_t head;
    char pad2[MBOX_CACHELINE - 8];
    /* 1 while the owner waits inside a blocking MPI call (its progress loop), written only by the
     * owner; a receiver reads it once per rendezvous it pulls, so the line stays with the owner. */
    _Alignas(MBOX_CACHELINE) _Atomic uint32_t in_wait;
    char pad3[MBOX_CACHELINE - 4];
} mbox_ctl;

/* The prepush area of the segment behind ctl, and the bytes per unit (0: it has no such area). */
static inline unsigned char *mbox_prepush_area(const mbox_ctl *ctl)
{
    return (unsigned char *)(uintptr_t)ctl + ctl->staging_off + ctl->staging_bytes;
}
static inline size_t mbox_prepush_unit(const mbox_ctl *ctl)
{
    size_t area = (size_t)(ctl->seg_bytes - ctl->staging_off - ctl->staging_bytes);
    size_t unit = (area / MBOX_PREPUSH_UNITS) & ~(size_t)63;
    if (area < MBOX_PREPUSH_MIN_UNIT)
        return 0;
    return unit < MBOX_PREPUSH_MIN_UNIT ? MBOX_PREPUSH_MIN_UNIT : unit;
}
/* How many units the area holds (at most MBOX_PREPUSH_UNITS). */
static inline size_t mbox_prepush_nunits(const mbox_ctl *ctl)
{
    size_t unit = mbox_prepush_unit(ctl);
    return unit ? (size_t)(ctl->seg_bytes - ctl->staging_off - ctl->staging_bytes) / unit : 0;
}

typedef struct mbox {
    mbox_ctl *ctl;
    unsigned char *slots;
    uint32_t slot_size;
    uint32_t slot_shift;
    uint32_t mask;
    uint32_t bound;
    size_t seg_bytes;
    /* The owner's prepush layout, read once at create/attach: a receiver of prepushed messages
     * (up to millions a second at 512 B) would otherwise redo two divisions per message. */
    unsigned char *pp_area;
    size_t pp_unit;   /* 0: the owner has prepush off */
    size_t pp_nunits;
    _Atomic uint64_t *copy_done; /* one per rank (mbox_create's nclaims), in the owner's segment */
    int ring_fd;      /* writer: the owner's eventfd in this process (pidfd_getfd), -1 if none */
} mbox;

#define MBOX_POLL_SLEEPER 0x10000u

/* Copy done words: a pipelined copy from sender s to receiver r needs both progress engines; when s
 * stops calling MPI in the middle, r reads the rest from s's buffer with CMA (p2p_rndv.c, copy_takeover).
 * copy_done[s] in r's segment is then the number of the latest transfer from s that r took over and
 * read completely (both sides number r's CTSs to s, which s serves in order; 0: none). Only r writes
 * it, with release, after its read; s reads it with acquire and may then complete that send and every
 * earlier one, and stage its next transfer into the halves: r copies nothing of a transfer it took
 * over, and finishes each transfer of s (every chunk copied, or taken over) before it takes a later
 * one. Who may write what, for the whole pipelined copy (docs/ARCHITECTURE.md, rendezvous):
 *   - staging half h of s: written by s only while h is free, that is before it announced h with
 *     COPY_DATA or after r's COPY_ACK for h or after copy_done[s] reached the transfer; read by r
 *     only between that COPY_DATA and its COPY_ACK, and never for a transfer it took over;
 *   - r's receive buffer: written by r alone (chunks, or its CMA read);
 *   - s's send buffer: read by s (staging) and by r (CMA) until the send completes, which needs
 *     every chunk acknowledged, or r's answer marked taken, or copy_done[s] at the transfer. */
/* Owner: create and map this rank's segment; name is "/credo.<jobid>.<rank>". Layout: control lines,
 * ring, copy done words (nclaims words), staging halves (staging_bytes), prepush area (prepush_bytes, up
 * to the end of the segment). */
int mbox_create(mbox *mb, const char *name, uint32_t slot_size, uint32_t bound, uint32_t nclaims,
                size_t staging_bytes, size_t prepush_bytes, int rank, char *err, size_t errlen);
/* Peer: map another rank's segment for writing. */
int mbox_attach(mbox *mb, const char *name, char *err, size_t errlen);
void mbox_detach(mbox *mb);

static inline unsigned char *mbox_slot(const mbox *mb, uint64_t idx)
{
    return mb->slots + ((size_t)(idx & mb->mask) << mb->slot_shift);
}

static inline mbox_slot_hdr *mbox_hdr(const mbox *mb, uint64_t idx)
{
    return (mbox_slot_hdr *)mbox_slot(mb, idx);
}

/* Writer: reserve n contiguous slots. With credits the flow-control scheme already guarantees room, so
 * a plain fetch_add suffices (relaxed: the slot contents are published by each slot's seq store, not by
 * the tail). */
static inline uint64_t mbox_reserve(mbox *mb, uint32_t n)
{
    return atomic_fetch_add_explicit(&mb->ctl->tail, n, memory_order_relaxed);
}

/* Writer without credits (CREDO_FC=none): reserve up to `want` slots, as many as the ring has room
 * for, judged against the owner's published head; returns how many (0 = full). *cached_head avoids
 * reading the owner's line on every send. */
static inline uint32_t mbox_try_reserve(mbox *mb, uint32_t want, uint64_t *cached_head, uint64_t *out)
{
    uint64_t t = atomic_load_explicit(&mb->ctl->tail, memory_order_relaxed);
    for (;;) {
        uint64_t used = t - *cached_head;
        if (used + want > mb->bound) {
            /* acquire pairs with the owner's release of head: the owner finished reading those slots */
            *cached_head = atomic_load_explicit(&mb->ctl->head, memory_order_acquire);
            used = t - *cached_head;
        }
        uint32_t n = used >= mb->bound ? 0 : (uint32_t)(mb->bound - used < want ? mb->bound - used : want);
        if (n == 0)
            return 0;
        if (atomic_compare_exchange_weak_explicit(&mb->ctl->tail, &t, t + n, memory_order_relaxed,
                                                  memory_order_relaxed)) {
            *out = t;
            return n;
        }
    }
}

/* Writer: fill the header of slot idx (not yet visible). */
static inline void mbox_fill_hdr(mbox *mb, uint64_t idx, uint16_t src, uint8_t kind, uint8_t nslots)
{
    mbox_slot_hdr *h = mbox_hdr(mb, idx);
    h->src = src;
    h->kind = kind;
    h->nslots = nslots;
}

/* Writer: make slot idx visible. Release: the payload and header stores above must be visible before
 * the owner can observe the new seq. Slots of a chunk after the first are published relaxed before the
 * first slot's release store, so one acquire by the owner covers the whole chunk. */
static inline void mbox_publish(mbox *mb, uint64_t idx)
{
    atomic_store_explicit(&mbox_hdr(mb, idx)->seq, (uint32_t)idx + 1u, memory_order_release);
}

static inline void mbox_mark(mbox *mb, uint64_t idx)
{
    atomic_store_explicit(&mbox_hdr(mb, idx)->seq, (uint32_t)idx + 1u, memory_order_relaxed);
}

/* Owner: is the chunk starting at idx ready? acquire pairs with the writer's release in mbox_publish. */
static inline int mbox_ready(const mbox *mb, uint64_t idx)
{
    return atomic_load_explicit(&mbox_hdr(mb, idx)->seq, memory_order_acquire) == (uint32_t)idx + 1u;
}

/* Copy `len` payload bytes into a chunk that starts at slot idx, beginning `off` bytes into the first
 * slot; later slots carry payload after their 8-byte header. Wraps around the ring. The
 * variable-size copies go through credo_copy: with CREDO_SLOT_SIZE up to 4096 a slot's payload is
 * large enough for libc's `rep movsb` and its misalignment cliff (xport/copy.h). */
static inline void mbox_put_bytes(mbox *mb, uint64_t idx, size_t off, const void *src, size_t len)
{
    const unsigned char *p = src;
    size_t room = mb->slot_size - off;
    size_t n = len < room ? len : room;
    credo_copy(mbox_slot(mb, idx) + off, p, n);
    p += n;
    len -= n;
    idx++;
    if (mb->slot_size == 64) {
        /* The default 64-byte slot carries 56 bytes: a constant-size copy the compiler inlines as
         * a few vector moves, instead of a libc call per slot (37 of them for a 2 KB message). */
        for (; len >= 56; len -= 56, p += 56, idx++)
            memcpy(mbox_slot(mb, idx) + sizeof(mbox_slot_hdr), p, 56);
    }
    room = mb->slot_size - sizeof(mbox_slot_hdr);
    while (len) {
        n = len < room ? len : room;
        credo_copy(mbox_slot(mb, idx) + sizeof(mbox_slot_hdr), p, n);
        p += n;
        len -= n;
        idx++;
    }
}

/* Slots after the first that `len` bytes starting `off` bytes into slot idx reach into. */
static inline size_t mbox_more_slots(const mbox *mb, size_t off, size_t len)
{
    size_t room = mb->slot_size - off, per = mb->slot_size - sizeof(mbox_slot_hdr);
    return len > room ? (len - room + per - 1) / per : 0;
}

static inline void mbox_get_bytes(const mbox *mb, uint64_t idx, size_t off, void *dst, size_t len)
{
    unsigned char *p = dst;
    size_t room = mb->slot_size - off;
    size_t n = len < room ? len : room;
    /* Each slot is its own line, written by another core: ask for all of them (up to 64) before
     * the copy, so their misses overlap instead of following one another (-10 to -17 % latency at
     * 512 B - 2 KB ping-pong). */
    size_t more = mbox_more_slots(mb, off, len);
    for (size_t k = 1; k <= more && k <= 64; k++)
        __builtin_prefetch(mbox_slot(mb, idx + k), 0, 3);
    credo_copy(p, mbox_slot(mb, idx) + off, n);
    p += n;
    len -= n;
    idx++;
    if (mb->slot_size == 64) { /* see mbox_put_bytes */
        for (; len >= 56; len -= 56, p += 56, idx++)
            memcpy(p, mbox_slot(mb, idx) + sizeof(mbox_slot_hdr), 56);
    }
    room = mb->slot_size - sizeof(mbox_slot_hdr);
    while (len) {
        n = len < room ? len : room;
        credo_copy(p, mbox_slot(mb, idx) + sizeof(mbox_slot_hdr), n);
        p += n;
        len -= n;
        idx++;
    }
}

/* Slots needed for `len` payload bytes when the first slot has `first_off` bytes of headers. */
static inline uint32_t mbox_slots_for(const mbox *mb, size_t first_off, size_t len)
{
    size_t first_room = mb->slot_size - first_off;
    if (len <= first_room)
        return 1;
    size_t per = mb->slot_size - sizeof(mbox_slot_hdr);
    return 1u + (uint32_t)((len - first_room + per - 1) / per);
}

/* Bytes of payload a chunk of n slots carries. */
static inline size_t mbox_chunk_bytes(const mbox *mb, size_t first_off, uint32_t n)
{
    return (mb->slot_size - first_off) + (size_t)(n - 1) * (mb->slot_size - sizeof(mbox_slot_hdr));
}

/* Doorbell: wake the owner's sleeping threads, if any: futex sleepers by the bell, poll sleepers by
 * their eventfd. An event count rather than one flag, since two threads of the owner (application
 * and progress thread) may sleep at once: a flag cleared by the first to wake would hide the second
 * from every writer. */
void mbox_ring_doorbell(mbox *mb);
static inline void mbox_doorbell(mbox *mb)
{
    if (__builtin_expect(atomic_load_explicit(&mb->ctl->sleepers, memory_order_relaxed) != 0, 0))
        mbox_ring_doorbell(mb);
}
/* Owner: sleep until a writer rings or timeout_us passes (bounded: a wake-up can be missed because
 * the writer's check is not fenced, see docs/ARCHITECTURE.md, so sleeps are short). */
void mbox_sleep(mbox *mb, uint64_t next_idx, uint32_t timeout_us);
/* The same sleep in two halves, for a thread that must let go of a lock in between: begin counts
 * the sleeper and reads the bell (under the lock), end waits unless the bell moved since or the
 * chunk at next_idx is ready, then uncounts. A ring by a thread of this process that took the lock
 * after begin (it completed what the sleeper waits for) changes the bell, so it cannot be lost. */
uint32_t mbox_sleep_begin(mbox *mb);
void mbox_sleep_end(mbox *mb, uint64_t next_idx, uint32_t bell, uint32_t timeout_us);
/* A poll sleeper (who also waits on other file descriptors): begin counts it (seq_cst, as
 * mbox_sleep_begin) and returns 0 when the chunk at next_idx is ready already (do not sleep), end
 * uncounts it. Between them the owner sleeps in poll on the eventfd the writers' ring_fd names. */
int mbox_poll_sleep_begin(mbox *mb, uint64_t next_idx);
void mbox_poll_sleep_end(mbox *mb);

#endif
