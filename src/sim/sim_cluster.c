/* src/sim/sim_cluster.c — credosim's cluster and flow-control model: nodes of ppn ranks, shared
 * memory inside a node, mailbox packets with credits from src/fc between nodes, mesh/torus links. */
#include <stdlib.h>
#include <string.h>

#include "fc/fc.h"
#include "sim/sim_internal.h"

/* Defaults calibrated against the thesis' reference times (docs/SIMULATOR.md, "Calibration"):
 * the node's NIC/host interface serialises about 2.5 packets/us, the rest is CPU time per packet. */
void sim_cluster_default(sim_cluster *c)
{
    *c = (sim_cluster){0};
    c->ppn = 1;
    c->fc = "none";
    c->slots_per_peer = 64;
    c->credit_slots = 2;
    c->piggyback = 1;
    c->eager_max = 2048;
    c->pkt_payload = 56;
    c->mpi_header = 16;
    c->pio_ns = 150;
    c->retrieve_ns = 150;
    c->fc_ns = 20;
    c->msg_o_ns = 500;
    c->nic_gap_ns = 400;
    c->link_pkt_ns = 100;
    c->hop_ns = 87;
    c->wire_ns = 600;
    c->rma_byte_ps = 2500;
    c->shm_o_ns = 500;
    c->shm_byte_ps = 250;
    c->shm_L_ns = 200;
}

enum pkt_kind { PK_DATA = 0, PK_CREDIT = 1, PK_REQUEST = 2, PK_RESPONSE = 3, PK_SHM = 4 };

/* A packet's contents, copied by value: into its channel while in flight, then into the receiver's
 * mailbox ring. Only shared-memory packets (and out-of-order ones, never seen) wait in the pool. */
typedef struct sim_pkt {
    uint32_t src;   /* sending rank; pool free list while free */
    uint32_t msg;   /* data: message; SIM_NIL for control */
    uint32_t value; /* control: credits; data: piggybacked credits */
    uint8_t kind;
    uint8_t last;   /* last packet of its message */
} sim_pkt;

/* A packet in flight on a channel, with the event key it would have in the queue: 32 bytes, kept
 * in a chain of chunks per channel so the next head is next to the last one in memory. */
typedef struct sim_chent {
    uint64_t at, seq;
    uint32_t src, msg, value;
    uint32_t to_kind; /* receiving rank | kind << 28 | last << 31 (ranks < 2^28) */
} sim_chent;

/* Channels are FIFO chains of 1 KB chunks from one free list (LIFO, so a chunk is reused while it
 * is still in cache) instead of a ring per channel. Why: per-channel rings grew to each channel's
 * own peak and kept it, and a channel peaks when the alltoall's phase targets its node, at a
 * different time from the others; the sum of those peaks was several times the packets ever in
 * flight at once, and on this VM every new page costs about 3.5 ms per MB at first touch, plus the
 * copy of each doubling (perf: about a tenth of a 512-rank dynamic alltoall). With chunks the
 * memory follows the packets in flight at once, and an empty channel holds none. */
enum { CH_CHUNK = 31 }; /* entries per chunk: 31 x 32 bytes + the link, 1 KB aligned to 64 so
                          that entries 2k and 2k + 1 share a cache line */
typedef struct sim_chunk {
    sim_chent e[CH_CHUNK];
    struct sim_chunk *next;
    char pad[1024 - CH_CHUNK * sizeof(sim_chent) - sizeof(struct sim_chunk *)];
} sim_chunk;

typedef struct sim_chan {
    sim_chunk *hc, *tc; /* head and tail chunk (NULL when empty) */
    uint32_t hi, ti;    /* next entry to land in hc, next free entry in tc */
    uint32_t n;
} sim_chan;

/* A message being injected packet by packet. Jobs to one destination stay in order: a job blocked
 * on credits blocks the later jobs to the same destination, not the others. */
typedef struct sim_job {
    uint32_t next;
    uint32_t msg;
    uint32_t dst;   /* the message's destination, kept here so that injecting a packet does not
                       touch the 72-byte message record (a cache miss per packet: perf showed a
                       fifth of the event handlers' time on its load) until the last packet */
    uint32_t left;  /* packets still to inject */
    uint32_t total;
    uint8_t delayed;
} sim_job;

typedef struct sim_rank {
    fc_state *fc;
    sim_pkt *mb;                        /* mailbox ring of arrived packets ... */
    uint32_t mb_head, mb_n, mb_cap;     /* ... (mb_cap 0 or a power of two) */
    uint32_t mb_fill;                   /* of which inter-node (slot-holding) packets */
    uint32_t run_head, run_tail;        /* jobs ready to inject */
    uint32_t held_total, epoch;         /* --hold-unexpected: slots held; spills so far */
    uint8_t cpu_armed;                  /* an EV_CPU is queued */
} sim_rank;

typedef struct sim_cl {
    const fc_ops *ops;
    sim_rank *rk;
    uint32_t nnodes;
    uint64_t *nic_free;   /* per node */
    uint32_t *node;       /* per rank: its node (rank / ppn), looked up instead of divided: a packet
                             needed a dozen integer divisions (node, coordinates, ring steps) */
    uint32_t (*xyz)[3];   /* per node: mesh/torus coordinates (NULL when flat) */
    uint64_t *link_free;  /* per node x 6 directions */
    uint32_t *blk_head, *blk_tail; /* per (rank, dest): blocked jobs, nranks*nranks */
    sim_chan *ch;                  /* per (source node, destination node): packets in flight */
    sim_chunk *chfree;             /* free chunks (LIFO) */
    sim_chunk **slabs;             /* chunks are allocated 64 at a time; freed at the end */
    uint32_t nslabs, capslabs;
    int no_channels;               /* CREDOSIM_NO_CHANNELS=1: every packet its own event (to compare) */
    uint64_t nic_room;             /* CREDOSIM_NIC_DEPTH=n: n packets' worth of NIC time (ns), 0 = unbounded */
    uint32_t *held_from;           /* --hold-unexpected: per (receiver, sender) slots held, n*n */
    sim_pkt *pk;
    uint32_t pkcap, pkfree;
    sim_job *jb;
    uint32_t jbcap, jbfree;
    fc_ctrl *ctrlq;       /* scratch */
    uint32_t mailbox_cap;
    uint64_t overflows;
} sim_cl;

static inline uint32_t node_of(const sim_engine *E, uint32_t r) { return E->cl->node[r]; }
int sim_cl_is_remote(sim_engine *E, uint32_t a, uint32_t b) { return node_of(E, a) != node_of(E, b); }

/* Operations of the sampled rank that finished are counted here, by their done bits, rather than
 * by a counter in the engine's hot path that every run would pay for. */
void sim_cl_sample(sim_engine *E, uint64_t t)
{
    const sim_config *cfg = E->cfg;
    const sim_sched *s = E->s;
    uint64_t fin = 0;
    for (uint64_t op = s->rank_first[cfg->sample_rank]; op < s->rank_first[cfg->sample_rank + 1]; op++)
        fin += sim_op_done(s, op) == SIM_OP_FINISHED;
    cfg->sample(cfg->sample_arg, t, fin, E->cl->ops, E->cl->rk[cfg->sample_rank].fc);
}

static uint32_t pkt_new(sim_engine *E)
{
    sim_cl *C = E->cl;
    if (C->pkfree == SIM_NIL) {
        uint32_t ncap = C->pkcap ? C->pkcap * 2 : 4096;
        sim_pkt *p = realloc(C->pk, (size_t)ncap * sizeof *p);
        if (!p) {
            sim_fail(E, "out of memory for %u packets", ncap);
            return SIM_NIL;
        }
        C->pk = p;
        for (uint32_t i = ncap; i-- > C->pkcap;) {
            p[i].src = C->pkfree;
            C->pkfree = i;
        }
        C->pkcap = ncap;
    }
    uint32_t i = C->pkfree;
    C->pkfree = C->pk[i].src; /* every caller assigns the whole packet */
    return i;
}

static void pkt_free(sim_cl *C, uint32_t i)
{
    C->pk[i].src = C->pkfree;
    C->pkfree = i;
}

static uint32_t job_new(sim_engine *E)
{
    sim_cl *C = E->cl;
    if (C->jbfree == SIM_NIL) {
        uint32_t ncap = C->jbcap ? C->jbcap * 2 : 4096;
        sim_job *j = realloc(C->jb, (size_t)ncap * sizeof *j);
        if (!j) {
            sim_fail(E, "out of memory for %u send jobs", ncap);
            return SIM_NIL;
        }
        C->jb = j;
        for (uint32_t i = ncap; i-- > C->jbcap;) {
            j[i].next = C->jbfree;
            C->jbfree = i;
        }
        C->jbcap = ncap;
    }
    uint32_t i = C->jbfree;
    C->jbfree = C->jb[i].next;
    memset(&C->jb[i], 0, sizeof C->jb[i]);
    C->jb[i].next = SIM_NIL;
    return i;
}

int sim_cl_init(sim_engine *E)
{
    const sim_cluster *c = &E->cfg->cl;
    uint32_t n = E->s->nranks;
    if (c->ppn == 0 || c->pkt_payload <= c->mpi_header)
        return sim_fail(E, "cluster model: ppn must be >= 1 and the packet payload larger than the MPI header");
    sim_cl *C = calloc(1, sizeof *C);
    if (!C)
        return sim_fail(E, "out of memory");
    E->cl = C;
    C->pkfree = C->jbfree = SIM_NIL;
    const char *noch = getenv("CREDOSIM_NO_CHANNELS");
    C->no_channels = noch && *noch && strcmp(noch, "0") != 0;
    /* A NIC that accepts a PIO write only while it holds at most n packets (docs/SIMULATOR.md,
     * "PIO back-pressure"). Off by default, so every documented result and golden test stands. */
    const char *depth = getenv("CREDOSIM_NIC_DEPTH");
    if (depth && *depth) {
        uint64_t v = 0;
        const char *d = depth;
        while (*d >= '0' && *d <= '9' && v <= (1u << 20))
            v = v * 10 + (uint64_t)(*d++ - '0');
        if (*d || v > (1u << 20))
            return sim_fail(E, "CREDOSIM_NIC_DEPTH=%s: expected a packet count 0 .. 1048576", depth);
        C->nic_room = v * c->nic_gap_ns;
    }
    C->ops = fc_lookup(c->fc ? c->fc : "none");
    if (!C->ops)
        return sim_fail(E, "--fc %s: unknown flow-control scheme (expected none, static or dynamic)", c->fc);
    C->nnodes = (n + c->ppn - 1) / c->ppn;
    uint64_t cap = c->dims[0] ? (uint64_t)c->dims[0] * c->dims[1] * c->dims[2] : 0;
    if (cap && cap < C->nnodes)
        return sim_fail(E, "--topology %ux%ux%u has %llu nodes, but %u ranks at --ppn %u need %u", c->dims[0], c->dims[1],
                        c->dims[2], (unsigned long long)cap, n, c->ppn, C->nnodes);
    if ((uint64_t)n * n > (1ull << 31))
        return sim_fail(E, "cluster model: %u ranks is too many for per-pair flow-control state (max 46340)", n);
    C->rk = calloc(n, sizeof *C->rk);
    C->node = malloc((n ? n : 1) * sizeof *C->node);
    if (cap)
        C->xyz = malloc(cap * sizeof *C->xyz);
    if (!C->node || (cap && !C->xyz))
        return sim_fail(E, "out of memory for the cluster model of %u ranks", n);
    for (uint32_t r = 0; r < n; r++)
        C->node[r] = r / c->ppn;
    for (uint64_t a = 0; a < cap; a++) {
        C->xyz[a][0] = (uint32_t)(a % c->dims[0]);
        C->xyz[a][1] = (uint32_t)((a / c->dims[0]) % c->dims[1]);
        C->xyz[a][2] = (uint32_t)(a / ((uint64_t)c->dims[0] * c->dims[1]));
    }
    C->nic_free = calloc(C->nnodes, sizeof *C->nic_free);
    C->link_free = calloc((size_t)(cap ? cap : 1) * 6, sizeof *C->link_free);
    C->blk_head = malloc((size_t)n * n * sizeof *C->blk_head);
    C->blk_tail = malloc((size_t)n * n * sizeof *C->blk_tail);
    size_t nch = (size_t)C->nnodes * C->nnodes;
    C->ch = calloc(nch, sizeof *C->ch);
    if (c->hold_unexpected && strcmp(C->ops->name, "none") != 0) { /* no credits to hold without fc */
        C->held_from = calloc((size_t)n * n, sizeof *C->held_from);
        if (!C->held_from)
            return sim_fail(E, "out of memory for the cluster model of %u ranks", n);
    }
    if (!C->rk || !C->nic_free || !C->link_free || !C->blk_head || !C->blk_tail || !C->ch)
        return sim_fail(E, "out of memory for the cluster model of %u ranks", n);
    memset(C->blk_head, 0xff, (size_t)n * n * sizeof *C->blk_head);
    memset(C->blk_tail, 0xff, (size_t)n * n * sizeof *C->blk_tail);
    char err[256];
    for (uint32_t r = 0; r < n; r++) {
        fc_params p = {n, r, c->slots_per_peer, c->credit_slots};
        if (C->ops->create(&p, &C->rk[r].fc, err, sizeof err) != 0)
            return sim_fail(E, "%s", err);
        C->rk[r].run_head = C->rk[r].run_tail = SIM_NIL;
        if (r == 0) {
            fc_params q = p;
            C->mailbox_cap = C->ops->mailbox_slots(&q);
        }
    }
    return 0;
}

void sim_cl_free(sim_engine *E)
{
    sim_cl *C = E->cl;
    if (!C)
        return;
    for (uint32_t r = 0; C->rk && r < E->s->nranks; r++)
    {
        if (C->rk[r].fc)
            C->ops->destroy(C->rk[r].fc);
        free(C->rk[r].mb);
    }
    free(C->rk);
    free(C->node);
    free(C->xyz);
    free(C->nic_free);
    free(C->link_free);
    free(C->blk_head);
    free(C->blk_tail);
    for (uint32_t i = 0; i < C->nslabs; i++)
        free(C->slabs[i]);
    free(C->slabs);
    free(C->ch);
    free(C->held_from);
    free(C->pk);
    free(C->jb);
    free(C);
    E->cl = NULL;
}

void sim_cl_stats(sim_engine *E)
{
    sim_cl *C = E->cl;
    for (uint32_t r = 0; r < E->s->nranks; r++) {
        const fc_counters *k = C->ops->counters(C->rk[r].fc);
        E->st.credit_packets += k->credit_packets_sent;
        E->st.piggybacked += k->piggybacked_returns;
        E->st.ctrl_packets += k->compulsory_requests + k->compulsory_responses;
    }
    E->st.mailbox_overflows = C->overflows;
}

static void arm_cpu(sim_engine *E, uint32_t r)
{
    sim_rank *R = &E->cl->rk[r];
    if (R->cpu_armed)
        return;
    R->cpu_armed = 1;
    uint64_t t = E->nexto[(size_t)r * E->nc];
    sim_push(E, t > E->now ? t : E->now, sim_next_seq(E), 0, r, EV_CPU);
}

/* Network time of one packet injected by `from` at t: NIC serialisation at the source node, then
 * dimension-order routing over mesh/torus links that each carry one packet per link_pkt_ns. */
static uint64_t route(sim_engine *E, uint32_t from, uint32_t to, uint64_t t, uint64_t occupancy)
{
    const sim_cluster *c = &E->cfg->cl;
    sim_cl *C = E->cl;
    uint32_t a = node_of(E, from), b = node_of(E, to);
    uint64_t *nic = &C->nic_free[a];
    uint64_t d = t > *nic ? t : *nic;
    *nic = d + (occupancy ? occupancy : c->nic_gap_ns);
    if (!c->dims[0])
        return d + c->wire_ns + c->hop_ns;
    uint32_t pa[3] = {C->xyz[a][0], C->xyz[a][1], C->xyz[a][2]};
    const uint32_t *pb = C->xyz[b];
    uint64_t tm = d, occ = occupancy ? occupancy : c->link_pkt_ns;
    uint32_t cur = a, stride = 1; /* cur: the node at pa, stepped by stride along dim */
    for (int dim = 0; dim < 3; dim++) {
        uint32_t k = c->dims[dim];
        if (pa[dim] != pb[dim]) {
            /* the direction is fixed for the whole dimension: the torus's shorter way (ties go
               up) or, on a mesh, towards pb */
            int up;
            if (c->torus) {
                uint32_t fwd = pb[dim] >= pa[dim] ? pb[dim] - pa[dim] : pb[dim] + k - pa[dim];
                up = fwd <= k - fwd;
            } else {
                up = pb[dim] > pa[dim];
            }
            size_t dir = (size_t)dim * 2 + (up ? 0 : 1);
            do {
                uint64_t *lf = &C->link_free[(size_t)cur * 6 + dir];
                uint64_t st = tm > *lf ? tm : *lf;
                *lf = st + occ;
                tm = st + c->hop_ns;
                if (up) {
                    if (++pa[dim] == k) { /* torus wrap */
                        pa[dim] = 0;
                        cur -= (k - 1) * stride;
                    } else {
                        cur += stride;
                    }
                } else if (pa[dim] == 0) {
                    pa[dim] = k - 1;
                    cur += (k - 1) * stride;
                } else {
                    pa[dim]--;
                    cur -= stride;
                }
            } while (pa[dim] != pb[dim]);
        }
        stride *= k;
    }
    return tm + c->wire_ns;
}

/* Packets between two nodes arrive in the order they were routed (the NIC and every link on their
 * fixed path hand out non-decreasing times), and later packets take larger seqs: each node pair's
 * in-flight packets form a sorted channel, and only its head needs to be in the event queue. The
 * pop order is exactly that of queueing every packet, but the queue holds at most one event per
 * node pair instead of every packet in flight (37 M at 1024 ranks), so it stays in cache. */
static inline size_t chan_of(const sim_engine *E, uint32_t from, uint32_t to)
{
    return (size_t)node_of(E, from) * E->cl->nnodes + node_of(E, to);
}

/* Doubles a full power-of-two ring of `esz`-byte entries (first capacity `first`): returns the new
 * array with the n entries unwrapped to its front (head 0, *cap doubled, the old array freed), or
 * NULL if out of memory (the ring unchanged). */
static void *ring_grow(void *ring, size_t esz, uint32_t *head, uint32_t n, uint32_t *cap, uint32_t first)
{
    uint32_t ncap = *cap ? *cap * 2 : first;
    unsigned char *ne = malloc((size_t)ncap * esz);
    if (!ne)
        return NULL;
    if (n) { /* at most two runs: head .. end of the old array, then its start */
        uint32_t run = *cap - *head < n ? *cap - *head : n;
        memcpy(ne, (unsigned char *)ring + (size_t)*head * esz, (size_t)run * esz);
        memcpy(ne + (size_t)run * esz, ring, (size_t)(n - run) * esz);
    }
    free(ring);
    *head = 0;
    *cap = ncap;
    return ne;
}

enum { CH_SLAB = 64 };
static sim_chunk *chunk_get(sim_engine *E)
{
    sim_cl *C = E->cl;
    if (!C->chfree) {
        if (C->nslabs == C->capslabs) {
            uint32_t cap = C->capslabs ? C->capslabs * 2 : 64;
            sim_chunk **ns = realloc(C->slabs, (size_t)cap * sizeof *ns);
            if (!ns)
                return NULL;
            C->slabs = ns;
            C->capslabs = cap;
        }
        sim_chunk *sl = aligned_alloc(64, CH_SLAB * sizeof *sl);
        if (!sl)
            return NULL;
        C->slabs[C->nslabs++] = sl;
        for (uint32_t i = CH_SLAB; i-- > 0;) {
            sl[i].next = C->chfree;
            C->chfree = &sl[i];
        }
    }
    sim_chunk *k = C->chfree;
    C->chfree = k->next;
    k->next = NULL;
    return k;
}

static inline void chunk_put(sim_cl *C, sim_chunk *k)
{
    k->next = C->chfree;
    C->chfree = k;
}

static void send_pkt(sim_engine *E, uint32_t from, uint32_t to, const sim_pkt *p, uint64_t t)
{
    sim_cl *C = E->cl;
    uint64_t arr = route(E, from, to, t, 0), seq = sim_next_seq(E);
    size_t c = chan_of(E, from, to);
    sim_chan *ch = &C->ch[c];
    if (C->no_channels || (ch->n && ch->tc->e[ch->ti - 1].at > arr)) {
        /* out of order is not expected (route() is monotone per node pair); the order stays
         * exact regardless */
        uint32_t pi = pkt_new(E);
        if (pi == SIM_NIL)
            return;
        C->pk[pi] = *p;
        sim_push(E, arr, seq, pi, to, EV_PKT);
        return;
    }
    if (ch->n == 0 || ch->ti == CH_CHUNK) {
        sim_chunk *k = chunk_get(E);
        if (!k) {
            sim_fail(E, "out of memory for packets in flight");
            return;
        }
        if (ch->n == 0)
            ch->hc = k;
        else
            ch->tc->next = k;
        ch->tc = k;
        ch->ti = 0;
        if (ch->n == 0)
            ch->hi = 0;
    }
    ch->tc->e[ch->ti++] =
        (sim_chent){arr, seq, p->src, p->msg, p->value, to | (uint32_t)p->kind << 28 | (uint32_t)p->last << 31};
    if (ch->n++ == 0)
        sim_push(E, arr, seq, (uint32_t)c, to, EV_CHAN);
}

/* A packet lands in `to`'s mailbox. */
static void land(sim_engine *E, uint32_t to, const sim_pkt *p)
{
    sim_cl *C = E->cl;
    sim_rank *R = &C->rk[to];
    if (R->mb_n == R->mb_cap) {
        sim_pkt *nb = ring_grow(R->mb, sizeof *nb, &R->mb_head, R->mb_n, &R->mb_cap, 16);
        if (!nb) {
            sim_fail(E, "out of memory for a mailbox of %u packets", R->mb_cap ? R->mb_cap * 2 : 16);
            return;
        }
        R->mb = nb;
    }
    R->mb[(R->mb_head + R->mb_n++) & (R->mb_cap - 1)] = *p;
    if (p->kind != PK_SHM) {
        R->mb_fill++;
        if (R->mb_fill > E->st.max_mailbox)
            E->st.max_mailbox = R->mb_fill;
        if (R->mb_fill > C->mailbox_cap && strcmp(C->ops->name, "none") != 0)
            C->overflows++;
    }
    arm_cpu(E, to);
}

/* Channel c's head landed: its successor becomes the channel's event. */
static void chan_land(sim_engine *E, uint32_t c)
{
    sim_cl *C = E->cl;
    sim_chan *ch = &C->ch[c];
    const sim_chent *e = &ch->hc->e[ch->hi];
    sim_pkt p = {e->src, e->msg, e->value, (uint8_t)(e->to_kind >> 28 & 7), (uint8_t)(e->to_kind >> 31)};
    uint32_t to = e->to_kind & 0x0fffffffu;
    if (--ch->n == 0) {
        chunk_put(C, ch->hc);
        ch->hc = ch->tc = NULL;
    } else {
        if (++ch->hi == CH_CHUNK) {
            sim_chunk *nx = ch->hc->next;
            chunk_put(C, ch->hc);
            ch->hc = nx;
            ch->hi = 0;
        }
        const sim_chent *nx = &ch->hc->e[ch->hi];
        /* the entry after it is read when it lands (a likely miss: it was written when the packet
           was routed, long before): start loading it now */
        if (ch->hi + 1 < CH_CHUNK)
            __builtin_prefetch(nx + 1);
        sim_push(E, nx->at, nx->seq, c, nx->to_kind & 0x0fffffffu, EV_CHAN);
    }
    land(E, to, &p);
}

/* Eager data arrives whole at retrieval of its last packet: match it or file it unexpected. */
static void deliver(sim_engine *E, uint32_t mi, uint64_t t)
{
    sim_msg *m = &E->m[mi];
    uint32_t r = sim_match_posted(E, m->dst, m->src, m->tag, 1);
    if (r == SIM_NIL) {
        sim_file_unexpected(E, mi);
        return;
    }
    sim_cl_recv_matched(E, m->dst, r, mi, t);
}

/* Rendezvous: the receiver gets the data with an RMA GET; both sides complete when it lands. */
static void drain_ctrl(sim_engine *E, uint32_t r);

/* --hold-unexpected: a data packet retrieved at r is held (returns 1) when its message found no
 * posted receive at its first packet and no spill has released the message's slots since. */
static int hold_pkt(sim_engine *E, uint32_t r, const sim_pkt *p)
{
    sim_cl *C = E->cl;
    sim_msg *m = &E->m[p->msg];
    if (!C->held_from || m->rndv)
        return 0;
    sim_rank *R = &C->rk[r];
    if (m->hold == 0) {
        m->hold = sim_match_posted(E, r, m->src, m->tag, 0) == SIM_NIL ? 1 : 2;
        m->hold_epoch = R->epoch;
        m->held = 0;
    }
    if (m->hold != 1 || m->hold_epoch != R->epoch)
        return 0;
    m->held++;
    E->st.held_packets++;
    C->held_from[(size_t)r * E->s->nranks + p->src]++;
    R->held_total++;
    if (C->ops->on_arrived) /* as src/p2p's held_add: the sender counts as active */
        C->ops->on_arrived(R->fc, p->src, 1);
    return 1;
}

/* A receive matched m at host: its held slots are released with one on_retrieved, as src/p2p. */
static void release_held(sim_engine *E, uint32_t host, sim_msg *m)
{
    sim_cl *C = E->cl;
    sim_rank *R = &C->rk[host];
    if (m->hold == 1 && m->hold_epoch == R->epoch && m->held) {
        C->ops->on_retrieved(R->fc, m->src, m->held);
        C->held_from[(size_t)host * E->s->nranks + m->src] -= m->held;
        R->held_total -= m->held;
        m->held = 0;
        drain_ctrl(E, host);
    }
    m->hold = 2;
}

/* The receiver has nothing to do (every operation it runs waits): every held slot is released, as
 * src/p2p's idle-time spill rule does for the sources its waits depend on (all of them once its
 * own sends are stuck; the model does not tell them apart). A schedule can then never wait on
 * slots its receiver is sitting on. */
static void spill(sim_engine *E, uint32_t r)
{
    sim_cl *C = E->cl;
    sim_rank *R = &C->rk[r];
    uint32_t n = E->s->nranks;
    for (uint32_t src = 0; src < n && R->held_total; src++) {
        uint32_t *h = &C->held_from[(size_t)r * n + src];
        if (*h) {
            C->ops->on_retrieved(R->fc, src, *h);
            E->st.spilled_packets += *h;
            R->held_total -= *h;
            *h = 0;
        }
    }
    R->epoch++;
    drain_ctrl(E, r);
}

void sim_cl_recv_matched(sim_engine *E, uint32_t host, uint32_t recv_op, uint32_t mi, uint64_t t)
{
    const sim_cluster *c = &E->cfg->cl;
    sim_msg *m = &E->m[mi];
    if (E->cl->held_from)
        release_held(E, host, m);
    if (m->rndv) {
        m->op = m->op; /* send op stays in the message; the receive rides in `time` */
        m->time = recv_op;
        uint64_t xfer = m->size * c->rma_byte_ps / 1000;
        uint64_t done = route(E, m->src, host, t, xfer) + xfer;
        sim_push(E, done, sim_next_seq(E), mi, host, EV_RMA);
        return;
    }
    sim_op_finished(E, host, recv_op, t);
    sim_msg_free(E, mi);
}

static void block_job(sim_engine *E, uint32_t r, uint32_t dest, uint32_t ji)
{
    sim_cl *C = E->cl;
    size_t k = (size_t)r * E->s->nranks + dest;
    C->jb[ji].next = SIM_NIL;
    if (C->blk_tail[k] == SIM_NIL)
        C->blk_head[k] = ji;
    else
        C->jb[C->blk_tail[k]].next = ji;
    C->blk_tail[k] = ji;
}

static void run_append(sim_engine *E, uint32_t r, uint32_t ji)
{
    sim_cl *C = E->cl;
    sim_rank *R = &C->rk[r];
    C->jb[ji].next = SIM_NIL;
    if (R->run_tail == SIM_NIL)
        R->run_head = ji;
    else
        C->jb[R->run_tail].next = ji;
    R->run_tail = ji;
}

/* Credits from `from` arrived at r: jobs to `from` may run again, in their order. */
static void unblock(sim_engine *E, uint32_t r, uint32_t from)
{
    sim_cl *C = E->cl;
    size_t k = (size_t)r * E->s->nranks + from;
    uint32_t j = C->blk_head[k];
    if (j == SIM_NIL)
        return;
    C->blk_head[k] = C->blk_tail[k] = SIM_NIL;
    while (j != SIM_NIL) {
        uint32_t nx = C->jb[j].next;
        run_append(E, r, j);
        j = nx;
    }
    arm_cpu(E, r);
}

void sim_cl_send(sim_engine *E, uint32_t host, uint32_t op, uint64_t t)
{
    const sim_cluster *c = &E->cfg->cl;
    const sim_top *o = sim_top_of(E->s, host, op);
    uint64_t *cpu = &E->nexto[(size_t)host * E->nc + o->cpu];
    sim_op_started(E, host, op, t);
    uint32_t mi = sim_msg_new(E);
    if (mi == SIM_NIL)
        return;
    sim_msg *m = &E->m[mi];
    m->size = o->size;
    m->op = op;
    m->src = host;
    m->dst = (uint32_t)sim_top_peer(E->s, host, o);
    m->tag = o->tag;
    E->st.messages++;
    if (!sim_cl_is_remote(E, host, m->dst)) {
        /* shared memory (the thesis' LiMIC path): one copy, no credits, no mailbox slot */
        uint64_t start = *cpu > t ? *cpu : t;
        uint64_t cost = c->shm_o_ns + o->size * c->shm_byte_ps / 1000;
        *cpu = start + cost;
        E->st.shm_msgs++;
        uint32_t pi = pkt_new(E);
        if (pi == SIM_NIL)
            return;
        E->cl->pk[pi] = (sim_pkt){.src = host, .msg = mi, .kind = PK_SHM, .last = 1};
        sim_push(E, *cpu + c->shm_L_ns, sim_next_seq(E), pi, m->dst, EV_PKT);
        sim_op_finished(E, host, op, *cpu);
        return;
    }
    m->rndv = o->size > c->eager_max;
    uint32_t ji = job_new(E);
    if (ji == SIM_NIL)
        return;
    sim_job *j = &E->cl->jb[ji];
    j->msg = mi;
    j->dst = m->dst;
    j->total = j->left = m->rndv ? 1 : (uint32_t)((o->size + c->mpi_header + c->pkt_payload - 1) / c->pkt_payload);
    if (m->rndv)
        E->st.rndv_msgs++;
    else
        E->st.eager_msgs++;
    /* keep per-destination order behind jobs already waiting for credits */
    size_t k = (size_t)host * E->s->nranks + m->dst;
    if (E->cl->blk_head[k] != SIM_NIL)
        block_job(E, host, m->dst, ji);
    else
        run_append(E, host, ji);
    *cpu = (*cpu > t ? *cpu : t) + c->msg_o_ns;
    arm_cpu(E, host);
}

/* PIO back-pressure (CREDOSIM_NIC_DEPTH): without it a rank can book its node's NIC arbitrarily far
 * ahead (route() only advances nic_free), and every later packet of the node's other ranks, credit
 * packets included, waits behind that whole burst. A real NIC has a small input FIFO and stalls the
 * CPU's PIO write when it is full, and credo's shared-memory transport has no shared queue at all;
 * so with a depth, a write waits (holding its CPU) until the NIC holds at most `depth` packets. */
static inline uint64_t pio_room(sim_engine *E, uint32_t r, uint64_t t)
{
    sim_cl *C = E->cl;
    if (!C->nic_room)
        return t;
    uint64_t nf = C->nic_free[node_of(E, r)];
    return nf > t + C->nic_room ? nf - C->nic_room : t;
}

static void drain_ctrl(sim_engine *E, uint32_t r)
{
    sim_cl *C = E->cl;
    fc_ctrl out;
    while (C->ops->next_ctrl(C->rk[r].fc, &out)) {
        uint8_t kind = out.kind == FC_CTRL_CREDIT ? PK_CREDIT : out.kind == FC_CTRL_REQUEST ? PK_REQUEST : PK_RESPONSE;
        sim_pkt pk = {.src = r, .msg = SIM_NIL, .value = out.value, .kind = kind, .last = 1};
        /* control packets are injected right away at PIO cost: the scheme already holds the
         * credit a request/response needs, and credit packets need none */
        uint64_t *cpu = &E->nexto[(size_t)r * E->nc];
        uint64_t st = pio_room(E, r, *cpu > E->now ? *cpu : E->now);
        *cpu = st + E->cfg->cl.pio_ns;
        if (kind != PK_CREDIT)
            E->st.ctrl_packets++;
        send_pkt(E, r, out.peer, &pk, *cpu);
    }
}

/* The receiver's progress engine: one unit of work per EV_CPU, mailbox first, then injection. */
static void cpu_step(sim_engine *E, uint32_t r)
{
    const sim_cluster *c = &E->cfg->cl;
    sim_cl *C = E->cl;
    sim_rank *R = &C->rk[r];
    uint64_t *cpu = &E->nexto[(size_t)r * E->nc];
    uint64_t t = E->now;
    R->cpu_armed = 0;
    if (*cpu > t) {
        arm_cpu(E, r);
        return;
    }
    if (R->mb_n) {
        sim_pkt pk = R->mb[R->mb_head], *p = &pk;
        R->mb_head = (R->mb_head + 1) & (R->mb_cap - 1);
        R->mb_n--;
        if (p->kind != PK_SHM)
            R->mb_fill--;
        uint64_t cost = c->retrieve_ns;
        switch (p->kind) {
        case PK_SHM:
            cost = c->shm_o_ns + E->m[p->msg].size * c->shm_byte_ps / 1000;
            *cpu = t + cost;
            deliver(E, p->msg, *cpu);
            break;
        case PK_DATA:
            cost += c->fc_ns;
            *cpu = t + cost;
            /* As src/p2p: piggybacked credits first, then the slot is released — at retrieval by
             * default; with --hold-unexpected, for an unexpected message, when a receive matches
             * it (or an idle-time spill, see spill()). */
            if (p->value)
                C->ops->on_ctrl(R->fc, p->src, FC_CTRL_CREDIT, p->value, 1);
            if (!hold_pkt(E, r, p))
                C->ops->on_retrieved(R->fc, p->src, 1);
            if (p->last)
                deliver(E, p->msg, *cpu);
            if (p->value)
                unblock(E, r, p->src);
            break;
        case PK_CREDIT:
            cost += c->fc_ns;
            *cpu = t + cost;
            C->ops->on_ctrl(R->fc, p->src, FC_CTRL_CREDIT, p->value, 0);
            unblock(E, r, p->src);
            break;
        default:
            cost += c->fc_ns;
            *cpu = t + cost;
            C->ops->on_retrieved(R->fc, p->src, 1);
            C->ops->on_ctrl(R->fc, p->src, p->kind == PK_REQUEST ? FC_CTRL_REQUEST : FC_CTRL_RESPONSE, p->value, 0);
            unblock(E, r, p->src);
            break;
        }
        drain_ctrl(E, r);
    } else if (R->run_head != SIM_NIL) {
        uint64_t ready = pio_room(E, r, t);
        if (ready > t) { /* the NIC is full: the write would stall the CPU until there is room */
            *cpu = ready;
            arm_cpu(E, r);
            return;
        }
        uint32_t ji = R->run_head;
        sim_job *j = &C->jb[ji];
        uint32_t dst = j->dst;
        R->run_head = j->next;
        if (R->run_head == SIM_NIL)
            R->run_tail = SIM_NIL;
        if (C->ops->acquire(R->fc, dst, 1) == 0) {
            if (!j->delayed) {
                j->delayed = 1;
                E->st.delayed_msgs++;
            }
            E->st.delayed_pkts++;
            *cpu = t + c->fc_ns;
            block_job(E, r, dst, ji);
        } else {
            int first = j->left == j->total;
            j->left--;
            int last = j->left == 0;
            sim_pkt pk = {.src = r, .msg = j->msg, .kind = PK_DATA, .last = (uint8_t)last};
            /* As src/p2p: returned credits ride in the MPI header, i.e. on the first packet. */
            if (first && c->piggyback)
                pk.value = C->ops->piggyback_take(R->fc, dst);
            *cpu = t + c->pio_ns + c->fc_ns;
            E->st.data_packets++;
            send_pkt(E, r, dst, &pk, *cpu);
            if (last) {
                const sim_msg *m = &E->m[j->msg];
                if (!m->rndv)
                    sim_op_finished(E, r, m->op, *cpu);
                C->jb[ji].next = C->jbfree;
                C->jbfree = ji;
            } else if (E->cfg->cl.rr_packets) {
                /* round-robin: the message goes to the back so other destinations progress */
                run_append(E, r, ji);
            } else {
                /* as src/p2p's send_push: a message is written as far as its credits go before the
                 * next one starts, so a receiver sees its senders' messages one after another
                 * instead of every sender's every message interleaved packet by packet */
                j->next = R->run_head;
                R->run_head = ji;
                if (R->run_tail == SIM_NIL)
                    R->run_tail = ji;
            }
        }
        drain_ctrl(E, r);
    } else {
        if (R->held_total)
            spill(E, r);
        return; /* idle until a packet or a send arrives */
    }
    /* with slots held, the step after the last piece of work is the idle check that spills them */
    if (R->mb_n || R->run_head != SIM_NIL || R->held_total)
        arm_cpu(E, r);
}

void sim_cl_event(sim_engine *E, const sim_event *ev)
{
    sim_cl *C = E->cl;
    uint32_t h = EV_HOST(ev);
    switch (EV_KIND(ev)) {
    case EV_PKT: {
        sim_pkt p = C->pk[ev->ref];
        pkt_free(C, ev->ref);
        land(E, h, &p);
        break;
    }
    case EV_CHAN:
        chan_land(E, ev->ref);
        break;
    case EV_CPU:
        cpu_step(E, h);
        break;
    case EV_RMA: {
        sim_msg *m = &E->m[ev->ref];
        sim_op_finished(E, h, (uint32_t)m->time, ev->time);
        sim_op_finished(E, m->src, m->op, ev->time);
        sim_msg_free(E, ev->ref);
        break;
    }
    default:
        sim_fail(E, "internal error: unknown event kind %u", EV_KIND(ev));
    }
}
