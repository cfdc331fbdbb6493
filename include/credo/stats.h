/* credo/stats.h — credo's flow-control statistics for applications and tools (credo extension).
 * Counters are per process (this rank); they are also printed at finalize with CREDO_FC_REPORT=1. */
#ifndef CREDO_STATS_H
#define CREDO_STATS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct credo_fc_stats {
    char scheme[16];                /* "none", "static", "dynamic" */
    uint64_t mailbox_slots;         /* the logical bound on this rank's mailbox occupancy */
    uint64_t peak_occupancy;        /* highest occupancy observed (slots; sampled by the owner) */
    uint64_t data_packets_sent;     /* mailbox packets that needed a credit */
    uint64_t credit_packets_sent;   /* explicit credit packets */
    uint64_t piggybacked_returns;   /* messages that carried returned credits */
    uint64_t piggybacked_credits;   /* credits returned that way */
    uint64_t delayed_sends;         /* sends that found no credit (or no ring space) and were queued */
    uint64_t delay_ns;              /* total time those sends spent queued */
    uint64_t unexpected_peak_bytes; /* highest payload bytes held in unexpected messages */
    uint64_t packets_received;      /* mailbox packets retrieved by this rank */
    uint64_t held_peak_slots;       /* highest number of slots charged to unmatched messages */
    uint64_t compulsory_requests;   /* dynamic scheme */
    uint64_t compulsory_responses;  /* dynamic scheme */
    uint64_t credits_stolen;        /* dynamic scheme */
    uint64_t monitoring_points;     /* dynamic scheme */
    uint64_t fc_state_bytes;        /* bytes of flow-control state in this process */
    uint64_t spilled_slots;         /* credits released early to break a matching deadlock */
    uint64_t occupancy_samples;     /* how many times the owner sampled its mailbox occupancy */
    uint64_t occupancy_sum;         /* sum of those samples: mean occupancy = sum / samples */
    /* How this rank's large (rendezvous) receives and sends went (docs/ARCHITECTURE.md, rendezvous):
     * the path depends on sizes, settings and on whether the peer was inside MPI at the time. */
    uint64_t rndv_prepushed;        /* received from the sender's prepush area (one copy, no CTS) */
    uint64_t rndv_cma_pulls;        /* received with one CMA read of the sender's buffer */
    uint64_t rndv_copies;           /* received through the pipelined copy (a CTS sent) */
    uint64_t copy_takeovers;        /* of those, finished by reading the rest with CMA (sender left MPI) */
} credo_fc_stats;

/* Fills *out with this rank's counters; 0 on success, -1 if credo is not initialised. */
int credo_fc_stats_get(credo_fc_stats *out);

/* What flow control knows about one peer (a job rank), seen from this rank. */
typedef struct credo_fc_peer_stats {
    uint32_t credits;       /* as a sender: credits this rank holds towards the peer now */
    uint32_t granted;       /* as a receiver: slots the peer's credits stand for (static: the quota Q) */
    uint32_t intended;      /* as a receiver: quota the scheme aims at for the peer (dynamic moves it) */
    uint32_t owed;          /* as a receiver: packets released from the peer, credits not yet returned */
    uint32_t held_slots;    /* slots charged to the peer's unmatched (unexpected) messages here */
    uint32_t queued_sends;  /* messages to the peer waiting for credits or ring room */
} credo_fc_peer_stats;

/* Fills *out for job rank `peer`; 0 on success, -1 if credo is not initialised or peer is out of range
 * (or is this rank). */
int credo_fc_peer_stats_get(int peer, credo_fc_peer_stats *out);

/* Transports (credo extension, docs/ARCHITECTURE.md "Transports"). credo_peer_transport writes the
 * name of the transport that carries this rank's traffic to job rank `peer`: "self", "shm" (shared
 * memory on this node) or "ofi" (the libfabric network transport); 0 on success, -1 if credo is not
 * initialised or peer is out of range. */
#define CREDO_HAVE_PEER_TRANSPORT 1
#include <stddef.h>
int credo_peer_transport(int peer, char *name, size_t len);

/* The network transport's counters for this rank (all 0 when no peer is on another node). */
typedef struct credo_net_stats {
    char provider[64];            /* libfabric provider, e.g. "tcp;ofi_rxm" ("" if not in use) */
    uint32_t net_peers;           /* peers reached over the network */
    uint64_t packets_sent, bytes_sent, packets_received, bytes_received;
    uint64_t rx_capacity;         /* bytes of one multi-receive buffer (the network mailbox) */
    uint64_t rx_peak_bytes;       /* most received bytes not yet consumed at once */
    uint64_t rx_dry;              /* moments no receive buffer was posted (0 under credit flow control) */
    uint64_t rndv_pulls;          /* rendezvous messages received with the chunked pull */
    uint64_t rndv_reads;          /* RMA reads issued for them */
    uint64_t rndv_read_bytes;     /* bytes those reads moved */
    uint64_t rndv_max_outstanding;/* most reads outstanding at once over all pulls (<= CREDO_RNDV_WINDOW per pull) */
    uint64_t mr_hits, mr_misses, mr_evictions, mr_invalidations; /* registration cache */
    uint64_t sleeps;              /* waits that slept in poll on the network's wait fd and our eventfd */
    uint64_t sleeps_rung;         /* of those, ended by our eventfd: a shared-memory peer's doorbell or a
                                   * thread of ours (the rest: the network, or the sleep's bound) */
} credo_net_stats;
int credo_net_stats_get(credo_net_stats *out);

#ifdef __cplusplus
}
#endif
#endif
