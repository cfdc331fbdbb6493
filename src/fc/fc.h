/* src/fc/fc.h — the contract of an end-to-end credit flow-control scheme (none, static, dynamic).
 * Schemes are pure state machines: no I/O, no clock, no transport headers; the same code runs in
 * libcredo (driven by the shm transport) and in credosim (driven by simulated events). */
#ifndef CREDO_FC_H
#define CREDO_FC_H

#include <stddef.h>
#include <stdint.h>

/* Units: one credit = one mailbox slot. Peers are identified by job rank (0..nranks-1); a rank
 * never sends to itself through the mailbox, so a scheme may ignore peer == self. */

typedef struct fc_params {
    uint32_t nranks;         /* processes in the job (potential senders per receiver = nranks-1) */
    uint32_t self;           /* this process' rank */
    uint32_t slots_per_peer; /* S: receive-buffer slots per potential sender, data + credit region */
    uint32_t credit_slots;   /* C: credit-region slots per peer (thesis default 2) */
} fc_params;

/* Control packets a scheme asks the transport to send. */
enum fc_ctrl_kind {
    FC_CTRL_CREDIT = 1,   /* explicit credit return; consumes no credit, lands in the credit region */
    FC_CTRL_REQUEST = 2,  /* dynamic: compulsory credit return request (needs a credit) */
    FC_CTRL_RESPONSE = 3, /* dynamic: compulsory credit return response (needs a credit) */
};

typedef struct fc_ctrl {
    uint32_t peer;  /* destination of the control packet */
    uint32_t value; /* credits returned / requested amount */
    uint8_t kind;   /* enum fc_ctrl_kind */
} fc_ctrl;

/* Counters a scheme keeps itself (the transport adds time-based ones). */
typedef struct fc_counters {
    uint64_t data_packets_sent;     /* data packets that consumed a credit */
    uint64_t credit_packets_sent;   /* explicit FC_CTRL_CREDIT packets emitted */
    uint64_t piggybacked_returns;   /* data messages that carried returned credits */
    uint64_t piggybacked_credits;   /* credits returned that way */
    uint64_t compulsory_requests;   /* dynamic only */
    uint64_t compulsory_responses;  /* dynamic only */
    uint64_t credits_stolen;        /* dynamic only */
    uint64_t monitoring_points;     /* dynamic only */
    uint64_t retrieved_packets;     /* data packets released by the receiver side */
    uint64_t protocol_errors;       /* control input the scheme could not accept (ignored, not fatal) */
} fc_counters;

typedef struct fc_state fc_state; /* opaque, allocated by fc_create */

/* What one process' scheme knows about one peer (for tests, credo_info and debugging; not for
 * the hot path). Conservation law the tests check, for sender s and receiver r:
 *   view(r, s).granted == view(s, r).credits + packets of s on their way to or in r's ring
 *                         + packets of s held unexpected at r + view(r, s).owed
 *                         + credits on their way back from r to s (credit packets, piggybacks, responses). */
typedef struct fc_peer_view {
    uint32_t credits;  /* sender side: credits this process holds towards the peer */
    uint32_t owed;     /* receiver side: packets released from the peer and not yet returned */
    uint32_t granted;  /* receiver side: slots the peer's credits currently stand for (static: Q) */
    uint32_t intended; /* receiver side: quota the scheme aims at for the peer (static: Q) */
} fc_peer_view;

typedef struct fc_ops {
    const char *name;
    /* Mailbox slots a receiver needs for these parameters (the logical bound on occupancy). */
    uint32_t (*mailbox_slots)(const fc_params *p);
    /* Returns 0 and a new state, or -1 on invalid parameters (err gets a one-line reason). */
    int (*create)(const fc_params *p, fc_state **out, char *err, size_t errlen);
    void (*destroy)(fc_state *st);

    /* Sender side. Grants up to `want` data packets to `dest` now and consumes their credits;
     * returns how many were granted (0 = the send must be delayed). */
    uint32_t (*acquire)(fc_state *st, uint32_t dest, uint32_t want);
    /* Sender side of a data message to `dest`: credits (owed by this process as a receiver of
     * `dest`) to piggyback on it; the scheme treats them as returned. 0 = nothing to piggyback. */
    uint32_t (*piggyback_take)(fc_state *st, uint32_t dest);

    /* A control packet (kind, value) from `from` was retrieved from this process' mailbox.
     * Piggybacked credits are delivered as kind FC_CTRL_CREDIT too (with piggyback = 1).
     * REQUEST and RESPONSE occupy a data slot: the transport calls on_retrieved(from, 1) for that
     * slot right after on_ctrl returns (on_ctrl itself does not count the slot). */
    void (*on_ctrl)(fc_state *st, uint32_t from, uint8_t kind, uint32_t value, int piggyback);
    /* Receiver side: `npkts` data packets from `src` were retrieved *and released* (their data no
     * longer needs to be held on the sender's quota). May queue control packets. Returns nonzero
     * when control packets wait for next_ctrl (queued by this call or earlier), so a transport
     * can skip the drain, an indirect call per message, in the common case that nothing waits. */
    int (*on_retrieved)(fc_state *st, uint32_t src, uint32_t npkts);

    /* The pair the transport's one-slot send makes, in one call, so an eager message costs one
     * indirect call instead of two: acquire(dest, want), then, if anything was granted,
     * *piggy = piggyback_take(dest) (else 0); returns the grant. Every scheme defines it with
     * FC_DEFINE_ACQUIRE_PIGGYBACK (fc_impl.h). */
    uint32_t (*acquire_piggyback)(fc_state *st, uint32_t dest, uint32_t want, uint32_t *piggy);

    /* Pops the next control packet to send; returns 1 if *out was filled, 0 if none. Packets that
     * need a credit (REQUEST/RESPONSE) are only emitted once the scheme has taken that credit. */
    int (*next_ctrl)(fc_state *st, fc_ctrl *out);

    const fc_counters *(*counters)(const fc_state *st);
    /* Bytes of flow-control state held by this process (for the thesis' 4n+2 / 150n comparison). */
    size_t (*state_bytes)(const fc_state *st);

    /* Fills *out for `peer`; returns 0, or -1 if peer is out of range. */
    int (*peer_view)(const fc_state *st, uint32_t peer, fc_peer_view *out);
    /* Checks the scheme's internal invariants (dynamic: I1 and slot conservation); 0 if they hold,
     * else -1 with a one-line reason. Cost O(nranks): for tests and debug builds only. */
    int (*check)(const fc_state *st, char *err, size_t errlen);

    /* Optional (NULL = not needed; callers test it). Receiver side: `npkts` data packets from `src`
     * were retrieved but are *held* (unexpected, not yet matched), so on_retrieved comes only later.
     * An activity signal only: it changes no slot accounting and queues no control packet. The
     * dynamic scheme uses it to tell a sender whose messages wait unmatched from an idle one. */
    void (*on_arrived)(fc_state *st, uint32_t src, uint32_t npkts);
} fc_ops;

extern const fc_ops fc_none_ops;
extern const fc_ops fc_static_ops;
extern const fc_ops fc_dynamic_ops; /* may be absent until the dynamic scheme lands */

/* Looks a scheme up by name ("none", "static", "dynamic"); NULL if unknown. */
const fc_ops *fc_lookup(const char *name);

/* Largest credit count one piggyback can carry: the field in the message header is 16 bits wide.
 * piggyback_take never returns more; the rest stays owed and goes back later. */
#define FC_PIGGYBACK_MAX 65535u

/* Eq. 5.1 of the thesis: threshold = (Q div (C+1)) + 1. */
static inline uint32_t fc_static_threshold(uint32_t quota, uint32_t credit_slots)
{
    return quota / (credit_slots + 1u) + 1u;
}

#endif
