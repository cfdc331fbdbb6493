/* src/p2p/p2p_proto.h — the wire protocol of the point-to-point engine: packet kinds, the message
 * header, the rendezvous descriptor and the chunk layout, the same over every transport. */
#ifndef CREDO_P2P_PROTO_H
#define CREDO_P2P_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "xport/shm_mbox.h"

/* A chunk is one or more slots; every slot starts with the transport's 8-byte framing header
 * (mbox_slot_hdr: sequence word, source rank, kind, slot count), whose `kind` byte is one of these.
 * A transport moves chunks without reading past that header: the rest of each slot is the
 * protocol's. The shared-memory mailbox is a ring of such slots; a network packet is a run of them
 * (xport/xport.h). */
enum p2p_pkt_kind {
    P2P_PKT_EAGER = 1,      /* first chunk of an eager message: msg header + payload */
    P2P_PKT_EAGER_CONT = 2, /* further chunk of the current eager message of that sender */
    P2P_PKT_RTS = 3,        /* rendezvous request-to-send: msg header + rndv descriptor */
    P2P_PKT_FIN = 4,        /* receiver finished pulling: completes the send request */
    P2P_PKT_CTS = 5,        /* receiver asks for the pipelined shm copy (CMA unavailable) */
    P2P_PKT_COPY_DATA = 6,  /* sender staged a chunk for the pipelined copy */
    P2P_PKT_COPY_ACK = 7,   /* receiver consumed a staged chunk */
    P2P_PKT_FC_CREDIT = 8,  /* flow control: explicit credit return (consumes no credit) */
    P2P_PKT_FC_REQUEST = 9, /* flow control: compulsory return request (dynamic) */
    P2P_PKT_FC_RESPONSE = 10, /* flow control: compulsory return response (dynamic) */
    P2P_PKT_CANCEL = 11,      /* sender cancels a rendezvous send whose request-to-send is out */
    P2P_PKT_CANCEL_ACK = 12,  /* receiver's answer: dropped unmatched (cancelled), or matched */
    P2P_PKT_COPY_END = 13,    /* sender ends a pipelined copy the receiver took over with CMA */
};

/* Message header in the first slot of EAGER and RTS chunks (16 bytes, as in the thesis' MPI header). */
typedef struct p2p_msg_hdr {
    int32_t tag;
    uint32_t ctx;
    uint32_t len;      /* total message bytes (RTS: low 32 bits; see rts descriptor) */
    uint16_t piggy;    /* credits returned to the receiver of this message (flow control) */
    uint16_t flags;
} p2p_msg_hdr;

#define P2P_MSG_SYNC 0x1u /* RTS of a synchronous send */

/* Rendezvous descriptor following the msg header in an RTS slot. */
typedef struct p2p_rts {
    uint64_t addr;   /* sender's buffer (its virtual address, for process_vm_readv), or
                      * P2P_RTS_PREPUSHED | unit: the sender already copied the message into
                      * its segment's prepush area from that unit on, so the receiver copies it
                      * from there and no CTS round trip is needed */
    uint64_t len;    /* full length */
    uint64_t sreq;   /* sender's request, echoed in FIN/CTS */
    uint64_t key;    /* network peers: the registration key of the buffer at addr (0 in shared memory) */
} p2p_rts;

/* User-space addresses never have bit 63 set, so it marks a prepushed RTS. */
#define P2P_RTS_PREPUSHED (1ull << 63)
/* The longest eager message a sender may write (the cap of CREDO_EAGER_LIMIT, src/core/config.c):
 * a receiver refuses a longer one before it allocates for it. */
#define P2P_EAGER_MAX ((size_t)1 << 20)

/* Payload offsets: a first slot carries the message header, a network RTS also its descriptor and
 * then the message's first bytes; every other slot carries payload after the framing header. */
#define FIRST_OFF (sizeof(mbox_slot_hdr) + sizeof(p2p_msg_hdr)) /* 24 */
#define CONT_OFF (sizeof(mbox_slot_hdr))                        /* 8 */
#define RTS_OFF (FIRST_OFF + sizeof(p2p_rts))                   /* 56 */
#define MAX_CHUNK_SLOTS 255u                                     /* nslots is one byte */

_Static_assert(sizeof(p2p_msg_hdr) == 16, "message header is 16 bytes, as in the thesis");
_Static_assert(8 + 16 + sizeof(p2p_rts) <= 64, "an RTS fits one 64-byte slot");

#endif
