/* tests/fc/fc_model.h — a pure-C model of P processes exchanging packets through per-process
 * rings under a flow-control scheme, with the invariant checks the fc tests rely on. */
#ifndef CREDO_FC_MODEL_H
#define CREDO_FC_MODEL_H

#include <stdint.h>

#include "fc/fc.h"

/* A packet as the model carries it (one mailbox slot). */
typedef struct mpkt {
    uint8_t kind;   /* 0 = data, else enum fc_ctrl_kind */
    uint32_t src;
    uint32_t value; /* control value, or piggybacked credits on a data packet */
} mpkt;

typedef struct mqueue { /* growable FIFO of packets (channels, rings) */
    mpkt *buf;
    uint32_t head, count, cap;
} mqueue;

typedef struct mproc {
    fc_state *fc;
    mqueue ring;          /* this process' mailbox, in arrival order */
    uint32_t *msg_left;   /* per dest: packets of the message being written (0 = none started) */
    uint32_t *msg_queued; /* per dest: whole messages waiting after the current one */
    uint32_t *msg_size;   /* per dest: size of the queued messages */
    uint32_t *msg_cur;    /* per dest: size of the message being written */
    uint32_t *held;       /* per src: data packets copied out as unexpected, not yet released */
    uint64_t *idle_since; /* per dest: step of the last data packet written (starvation watch) */
} mproc;

typedef struct fc_model {
    const fc_ops *ops;
    fc_params base;      /* nranks, S, C; self is set per process */
    uint32_t nprocs;
    uint32_t ring_slots; /* ops->mailbox_slots */
    mproc *procs;
    mqueue *chan;        /* nprocs*nprocs links, FIFO per ordered pair (in-order delivery) */
    struct pair_tally *tally; /* scratch for model_check, nprocs*nprocs */
    uint64_t step;
    uint64_t starve_steps; /* a link with backlog that sends nothing for this long fails (0 = off) */
    uint64_t max_ring;   /* high-water mark of any ring */
    uint64_t max_idle;   /* longest wait of a link with backlog, in steps */
    uint64_t data_sent, data_released;
    char why[256];       /* first violation */
    int failed;
} fc_model;

/* 0 on success; -1 with why[] filled if the scheme refused the parameters. */
int model_init(fc_model *m, const fc_ops *ops, uint32_t nprocs, uint32_t S, uint32_t C);
void model_free(fc_model *m);

/* Queues `count` messages of `size` packets from i to j. */
void model_queue(fc_model *m, uint32_t i, uint32_t j, uint32_t count, uint32_t size);

/* Actions; each returns 1 if it changed anything, 0 if it could not act. All check invariants
 * of the processes they touch and set m->failed on the first violation. */
int model_send(fc_model *m, uint32_t i, uint32_t j, uint32_t max_pkts); /* max_pkts 0 = all */
int model_deliver(fc_model *m, uint32_t i, uint32_t j);                  /* head of link i->j */
int model_retrieve(fc_model *m, uint32_t j, int hold);                   /* one packet of ring j */
int model_release(fc_model *m, uint32_t j, uint32_t src, uint32_t n);    /* held packets */

/* Full check: ring bounds, credit-region bound, conservation per pair, scheme self-check. */
int model_check(fc_model *m);
/* 1 when nothing is queued, in flight, in a ring or held. */
int model_quiet(const fc_model *m);
/* Packets still waiting to be written anywhere. */
uint64_t model_backlog(const fc_model *m);
/* Runs a fair round-robin schedule without new traffic until quiet; 0 if it got there within
 * max_steps, else -1 (deadlock) with why[] filled. */
int model_drain(fc_model *m, uint64_t max_steps);

#endif
