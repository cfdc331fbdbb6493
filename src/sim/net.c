/* src/sim/net.c — the packet-level Dragonfly of credosim net: routers, VC buffers, credits, routing,
 * nodes (traffic, slow sinks, FECN/BECN, the RDRP window of src/fc/rdrp.h) and the measurement. */
#include "sim/net.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fc/rdrp.h"

/* Modelling choices (docs/SIMULATOR.md, "Network model"):
 * - Virtual cut-through at packet granularity: a packet leaves an input VC only when the downstream
 *   VC has room for all of it (credits >= its flits), and then holds the output link for one cycle
 *   per flit. Its head reaches the next router `latency` cycles later and may leave again after
 *   router_delay cycles, before its tail arrived (cut-through), which at equal link rates never
 *   overtakes the upstream serialization.
 * - Speedup (Booksim's iq router with internal speedup and unbounded output buffers): the crossbar
 *   moves a packet in flits / speedup cycles, both out of its input port and into the output's
 *   queue, which the link sends at 1 flit per cycle. Downstream credits are taken when the packet
 *   crosses, so they bound that queue. Each output serves the input VCs waiting for it in arrival
 *   order (a FIFO arbiter). Without the output queue (the link held per packet) head-of-line
 *   blocking kept uniform traffic at 0.68 of Booksim's 0.93 (docs/SIMULATOR.md).
 * - A node injects into any VC of its router's terminal input with room (a random one).
 * - Credits for a packet's buffer space go back upstream when its last flit has left the input
 *   (flits / speedup cycles after it started), plus the link latency and credit_delay.
 * - Time is an integer cycle; events of one cycle run in the order they were scheduled, so a run is
 *   a function of its configuration and seed. */

#define NONE UINT32_MAX
#define WHEEL 8192u /* calendar of cycles: every delay the model schedules is below this */
#define LAT_BINS 65536u

enum { EV_HEAD, EV_TRY, EV_CREDIT, EV_NCREDIT, EV_EJECT, EV_SINK, EV_INJ, EV_GEN };
enum { PK_DATA, PK_REQ };
enum { PF_FECN = 1, PF_BECN = 2, PF_REACHED = 4, PF_PAR_OPEN = 8 };

typedef struct pkt {
    uint32_t next;
    uint32_t src, dst;
    uint32_t intm;   /* intermediate group, or NONE */
    uint64_t born;
    uint16_t out;    /* output port at the current router (set when the packet is a VC's head) */
    uint8_t size, kind, flags, ghops, extra, ovc;
} pkt;

typedef struct ev {
    uint32_t a; /* type << 28 | id */
    uint32_t b;
} ev;

/* The calendar's events live in blocks from one pool: a slot holds a chain of blocks, which go back
 * to the pool once the slot's cycle ran, so memory follows the events pending, not the busiest
 * cycle times the number of slots. */
#define EVBLK 254
typedef struct evblk {
    struct evblk *next;
    uint32_t n, pad;
    ev v[EVBLK];
} evblk;

typedef struct slot {
    evblk *head, *tail;
} slot;

typedef struct ivc { /* one input VC of a router */
    uint32_t head, tail, wait_next;
    uint32_t flits;
} ivc;

typedef struct node {
    uint32_t partner;
    uint32_t slow;
    uint64_t inj_busy, inj_at;
    int32_t inj_credits[16]; /* per VC of the router's terminal input */
    uint64_t sink_busy;
    uint32_t sq_head, sq_tail; /* packets in the receive buffer, the head being sunk */
    uint32_t nic_flits;
    uint32_t pend_req, pend_reply;
    rdrp_win win;
    int32_t cc;
    uint64_t cc_t, cc_next;
    uint32_t becn_owed;
    uint64_t *q; /* creation times of queued packets (offered-load mode) */
    uint32_t q_head, q_n, q_cap;
    uint64_t flow_flits; /* flits of this node's flow sunk during the measurement */
} node;

typedef struct net {
    net_config c;
    uint32_t P, A, G, R, N, V, S; /* ports per router, routers per group, groups, routers, nodes, VCs, speedup x10 */
    uint64_t now;
    /* per output (router * P + port) */
    uint32_t *out_dst;   /* input id (router * P + port) at the far end, or the node */
    uint8_t *out_lat;
    uint64_t *busy, *try_at; /* the link's next free cycle; the pending try */
    uint64_t *xbar;          /* the crossbar's next free time into this output, 1/S cycles */
    uint32_t *wait_head, *wait_tail;
    int32_t *credits;    /* per output * V + vc */
    /* per input (router * P + port) */
    uint64_t *in_free;   /* in units of 1/S cycles */
    uint32_t *in_up;     /* the output feeding it, or the node for a terminal port */
    ivc *iv;             /* per input * V + vc */
    node *nodes;
    pkt *pk;
    uint32_t npk, pk_cap, pk_free;
    slot wheel[WHEEL];
    evblk *blk_free;
    uint64_t rng;
    /* conservation: injected = sunk + requests absorbed + on wires + in VCs + in receive buffers */
    uint64_t injected, sunk, absorbed, wire, nicq;
    uint64_t events, last_move;
    /* measurement */
    int measuring;
    uint64_t win_flits;
    uint64_t *lat_hist, lat_over, lat_sum, lat_n, data_n, fecn_n;
    uint64_t occ_samples, occ50, occ90, occ_total;
    double becn_sum, infl_sum;
    uint64_t infl_n, infl_max;
    size_t bytes;
} net;

static uint64_t rnd(net *n)
{
    /* splitmix64: one state, good enough for routing choices and permutations */
    uint64_t z = (n->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint32_t rnd_below(net *n, uint32_t k)
{
    return (uint32_t)(((rnd(n) >> 32) * (uint64_t)k) >> 32);
}

static double rnd_unit(net *n)
{
    return (double)(rnd(n) >> 11) * (1.0 / 9007199254740992.0);
}

static void *zalloc(net *n, size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size);
    n->bytes += count * size;
    return p;
}

static void sched(net *n, uint64_t t, uint32_t type, uint32_t id, uint32_t b)
{
    slot *s = &n->wheel[t & (WHEEL - 1)];
    evblk *k = s->tail;
    if (!k || k->n == EVBLK) {
        k = n->blk_free;
        if (k) {
            n->blk_free = k->next;
        } else {
            k = malloc(sizeof *k);
            if (!k)
                abort(); /* the model cannot continue without its calendar */
            n->bytes += sizeof *k;
        }
        k->next = NULL;
        k->n = 0;
        if (s->tail)
            s->tail->next = k;
        else
            s->head = k;
        s->tail = k;
    }
    k->v[k->n++] = (ev){type << 28 | id, b};
}

static uint32_t pkt_new(net *n)
{
    if (n->pk_free != NONE) {
        uint32_t i = n->pk_free;
        n->pk_free = n->pk[i].next;
        return i;
    }
    if (n->npk == n->pk_cap) {
        uint32_t cap = n->pk_cap ? n->pk_cap * 2 : 4096;
        pkt *p = realloc(n->pk, (size_t)cap * sizeof *p);
        if (!p)
            abort();
        n->bytes += (size_t)(cap - n->pk_cap) * sizeof *p;
        n->pk = p;
        n->pk_cap = cap;
    }
    return n->npk++;
}

static void pkt_free(net *n, uint32_t i)
{
    n->pk[i].next = n->pk_free;
    n->pk_free = i;
}

/* ---- topology (Booksim's dragonflynew numbering, so routes can be compared hop by hop) ----
 * Router r is router r % A of group r / A; node x hangs on router x / p, port x % p. Ports 0 .. p-1
 * are terminals, p .. p+A-2 local (to the other A-1 routers of the group, in order), then h global.
 * Global channel c = (r % A) * h + j of group G leads to group c < G ? c : c + 1. */

static int is_term(const net *n, uint32_t port) { return port < n->c.p; }
static int is_global(const net *n, uint32_t port) { return port >= n->c.p + n->A - 1; }

static uint32_t local_port(const net *n, uint32_t from_li, uint32_t to_li)
{
    return n->c.p + (to_li < from_li ? to_li : to_li - 1);
}

/* The port of router r on the way to group tg (tg != r's group). */
static uint32_t port_to_group(const net *n, uint32_t r, uint32_t tg)
{
    uint32_t grp = r / n->A, li = r % n->A;
    uint32_t c = tg < grp ? tg : tg - 1;
    uint32_t gr = c / n->c.h;
    if (gr == li)
        return n->c.p + n->A - 1 + c % n->c.h;
    return local_port(n, li, gr);
}

static void build_links(net *n)
{
    uint32_t p = n->c.p, h = n->c.h;
    for (uint32_t r = 0; r < n->R; r++) {
        uint32_t grp = r / n->A, li = r % n->A;
        for (uint32_t o = 0; o < n->P; o++) {
            uint32_t id = r * n->P + o;
            if (o < p) {
                uint32_t x = r * p + o;
                n->out_dst[id] = x;
                n->out_lat[id] = (uint8_t)n->c.lat_term;
                n->in_up[id] = x;
            } else if (o < p + n->A - 1) {
                uint32_t j = o - p, t = j < li ? j : j + 1;
                uint32_t r2 = grp * n->A + t;
                uint32_t in2 = r2 * n->P + local_port(n, t, li);
                n->out_dst[id] = in2;
                n->out_lat[id] = (uint8_t)n->c.lat_local;
                n->in_up[in2] = id;
            } else {
                uint32_t c = li * h + (o - p - n->A + 1);
                uint32_t d = c < grp ? c : c + 1;
                uint32_t c2 = grp < d ? grp : grp - 1;
                uint32_t r2 = d * n->A + c2 / h;
                uint32_t in2 = r2 * n->P + p + n->A - 1 + c2 % h;
                n->out_dst[id] = in2;
                n->out_lat[id] = (uint8_t)n->c.lat_global;
                n->in_up[in2] = id;
            }
        }
    }
}

/* Used credits of an output port, summed over its VCs (Booksim's GetUsedCredit). */
static uint32_t used_credits(const net *n, uint32_t out)
{
    uint32_t u = 0;
    for (uint32_t v = 0; v < n->V; v++)
        u += n->c.vc_flits - (uint32_t)n->credits[out * n->V + v];
    return u;
}

static uint32_t random_intm(net *n, uint32_t g1, uint32_t g2)
{
    /* a group other than the source's and the destination's, uniformly */
    uint32_t k = n->G - (g1 == g2 ? 1 : 2), x = rnd_below(n, k);
    uint32_t lo = g1 < g2 ? g1 : g2, hi = g1 < g2 ? g2 : g1;
    if (x >= lo)
        x++;
    if (g1 != g2 && x >= hi)
        x++;
    return x;
}

/* VC scheme (deadlock freedom): a packet's class is the number of global hops it took plus 1 if it
 * took a second local hop in its source group (only PAR's re-routing does). A local channel of
 * class k is followed only by a global channel of class k, or by a class k+1 channel; a global
 * channel is always followed by class k+1 or the ejection. So the only same-class dependency is
 * local -> global, the channel dependency graph is acyclic, and classes fit in: minimal 2,
 * Valiant and UGAL 3, PAR 4 VCs. VC = class. */
/* The port of router r toward router x. */
static uint32_t port_to_router(const net *n, uint32_t r, uint32_t x)
{
    if (x / n->A != r / n->A)
        return port_to_group(n, r, x / n->A);
    return local_port(n, r % n->A, x % n->A);
}

/* Stock Booksim's ugal_dragonflynew, for the outside check only (--ugal-booksim): the intermediate
 * is a random router of the whole network (its own group or the destination's make the route
 * minimal), and the VC is the phase: 0 toward the intermediate router, 1 after it (or minimal from
 * the source), 2 from the minimal global hop on. Booksim's scheme, not this model's: phase 0
 * carries local -> global -> local, so it is not covered by the argument above. */
static void route_booksim(net *n, pkt *k, uint32_t r, int at_source)
{
    uint32_t grp = r / n->A, dgrp = k->dst / (n->A * n->c.p), drouter = k->dst / n->c.p;
    if (at_source) {
        if (dgrp == grp) {
            k->extra = 2;
        } else {
            uint32_t im = rnd_below(n, n->N) / n->c.p;
            if (im / n->A == grp) {
                k->extra = 1;
            } else {
                uint32_t qmin = used_credits(n, r * n->P + port_to_router(n, r, drouter));
                uint32_t qnon = used_credits(n, r * n->P + port_to_router(n, r, im));
                k->extra = qmin <= n->c.ugal_bias * qnon + n->c.ugal_threshold ? 1 : 0;
                k->intm = im;
            }
        }
    }
    if (k->extra == 0 && r == k->intm)
        k->extra = 1;
    if (k->extra == 0) {
        k->out = (uint16_t)port_to_router(n, r, k->intm);
    } else if (r == drouter) {
        k->out = (uint16_t)(k->dst % n->c.p);
        k->ovc = 0;
        return;
    } else {
        k->out = (uint16_t)port_to_router(n, r, drouter);
    }
    if (k->extra == 1 && is_global(n, k->out))
        k->extra = 2;
    k->ovc = k->extra;
}

static void route(net *n, pkt *k, uint32_t r, int at_source)
{
    uint32_t grp = r / n->A;
    uint32_t dgrp = k->dst / (n->A * n->c.p), drouter = k->dst / n->c.p;
    net_routing rt = n->c.routing;
    if (n->c.ugal_booksim) {
        route_booksim(n, k, r, at_source);
        return;
    }
    if (at_source && dgrp != grp && n->G > 2) {
        if (rt == NET_ROUTE_VALIANT) {
            k->intm = random_intm(n, grp, dgrp);
        } else if (rt == NET_ROUTE_UGAL || rt == NET_ROUTE_PAR) {
            uint32_t im = random_intm(n, grp, dgrp);
            uint32_t qmin = used_credits(n, r * n->P + port_to_group(n, r, dgrp));
            uint32_t qnon = used_credits(n, r * n->P + port_to_group(n, r, im));
            if (qmin <= n->c.ugal_bias * qnon + n->c.ugal_threshold) {
                if (rt == NET_ROUTE_PAR)
                    k->flags |= PF_PAR_OPEN;
            } else {
                k->intm = im;
            }
        }
    } else if (!at_source && (k->flags & PF_PAR_OPEN)) {
        /* PAR: the minimal packet took a local hop and is still in its source group; it may turn
         * to Valiant once, with the same rule, at the cost of one class (extra) */
        k->flags &= (uint8_t)~PF_PAR_OPEN;
        if (grp != dgrp && k->ghops == 0) {
            uint32_t im = random_intm(n, grp, dgrp);
            uint32_t qmin = used_credits(n, r * n->P + port_to_group(n, r, dgrp));
            uint32_t qnon = used_credits(n, r * n->P + port_to_group(n, r, im));
            if (qmin > n->c.ugal_bias * qnon + n->c.ugal_threshold) {
                k->intm = im;
                if (!is_global(n, port_to_group(n, r, im)))
                    k->extra = 1;
            }
        }
    }
    if (k->intm != NONE && !(k->flags & PF_REACHED) && grp == k->intm)
        k->flags |= PF_REACHED;
    uint32_t tg = (k->intm != NONE && !(k->flags & PF_REACHED)) ? k->intm : dgrp;
    if (tg == grp) {
        if (r == drouter) {
            k->out = (uint16_t)(k->dst % n->c.p);
            k->ovc = 0;
            return;
        }
        k->out = (uint16_t)local_port(n, r % n->A, drouter % n->A);
    } else {
        k->out = (uint16_t)port_to_group(n, r, tg);
    }
    uint32_t cls = k->ghops + k->extra;
    k->ovc = (uint8_t)(cls < n->V ? cls : n->V - 1);
}

static uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

static void sched_try(net *n, uint32_t out, uint64_t t)
{
    /* one pending try per output is enough when it is the earliest; a later one would only repeat */
    if (n->try_at[out] != UINT64_MAX && n->try_at[out] >= n->now && n->try_at[out] <= t)
        return;
    n->try_at[out] = t;
    sched(n, t, EV_TRY, out, 0);
}

static void sched_inj(net *n, uint32_t x, uint64_t t)
{
    node *d = &n->nodes[x];
    if (d->inj_at != UINT64_MAX && d->inj_at >= n->now && d->inj_at <= t)
        return;
    d->inj_at = t;
    sched(n, t, EV_INJ, x, 0);
}

static void wait_for(net *n, uint32_t out, uint32_t ivid)
{
    n->iv[ivid].wait_next = NONE;
    if (n->wait_head[out] == NONE)
        n->wait_head[out] = ivid;
    else
        n->iv[n->wait_tail[out]].wait_next = ivid;
    n->wait_tail[out] = ivid;
}

static void cc_decay(net *n, node *d)
{
    uint32_t period = n->c.cc == NET_CC_FECN_AGGR ? 50 : 4;
    uint64_t steps = (n->now - d->cc_t) / period;
    d->cc_t += steps * period;
    d->cc = steps >= (uint64_t)d->cc ? 0 : d->cc - (int32_t)steps;
}

static void grant(net *n, uint32_t out, uint32_t ivid)
{
    uint32_t in = ivid / n->V, vc = ivid % n->V, r = out / n->P, port = out % n->P;
    ivc *q = &n->iv[ivid];
    uint32_t ki = q->head;
    pkt *k = &n->pk[ki];
    q->head = k->next;
    if (q->head == NONE)
        q->tail = NONE;
    q->flits -= k->size;
    uint64_t xfer = (uint64_t)k->size * 10; /* crossbar time in units of 1/S cycles */
    n->in_free[in] = n->now * n->S + xfer;
    uint64_t drained = n->now + ceil_div(xfer, n->S);
    /* the crossbar moves the packet into the output's queue in flits / speedup cycles; the link
     * sends that queue at 1 flit per cycle (Booksim's iq router with internal speedup and
     * unbounded output buffers: the downstream credits, taken now, bound the queue) */
    n->xbar[out] = n->now * n->S + xfer;
    uint64_t start = n->busy[out] > n->now ? n->busy[out] : n->now;
    n->busy[out] = start + k->size;
    int32_t *cr = &n->credits[out * n->V + k->ovc];
    uint32_t cap = is_term(n, port) ? n->c.nic_flits : n->c.vc_flits;
    if (n->c.cc != NET_CC_NONE && k->kind == PK_DATA && !(k->flags & PF_FECN)) {
        /* FECN: marking probability rises linearly from 0 at 50 % to 1 at 100 % of the queue the
         * packet enters (the output's remote VC, as the credits see it); aggressive doubles it */
        double occ = (double)(cap - (uint32_t)*cr) / cap, pm = 2.0 * (occ - 0.5);
        if (n->c.cc == NET_CC_FECN_AGGR)
            pm *= 2.0;
        if (pm > 0 && (pm >= 1.0 || rnd_unit(n) < pm))
            k->flags |= PF_FECN;
    }
    *cr -= k->size;
    /* the freed space goes back to whoever feeds this input */
    uint32_t up = n->in_up[in];
    if (is_term(n, in % n->P))
        sched(n, drained + n->c.lat_term + n->c.credit_delay, EV_NCREDIT, up, vc << 16 | k->size);
    else
        sched(n, drained + n->out_lat[up] + n->c.credit_delay, EV_CREDIT, up * n->V + vc, k->size);
    n->wire += k->size;
    if (is_term(n, port)) {
        sched(n, start + n->out_lat[out] + k->size - 1, EV_EJECT, n->out_dst[out], ki);
    } else {
        if (is_global(n, port))
            k->ghops++;
        sched(n, start + n->out_lat[out] + n->c.router_delay, EV_HEAD, n->out_dst[out] * n->V + k->ovc, ki);
    }
    n->last_move = n->now;
    sched_try(n, out, ceil_div(n->xbar[out], n->S));
    if (q->head != NONE) {
        pkt *h = &n->pk[q->head];
        route(n, h, r, in % n->P < n->c.p);
        uint32_t o2 = r * n->P + h->out;
        wait_for(n, o2, ivid);
        sched_try(n, o2, n->now);
    }
}

static void try_output(net *n, uint32_t out)
{
    uint64_t earliest = UINT64_MAX, nowu = n->now * n->S;
    if (n->xbar[out] > nowu) {
        sched_try(n, out, ceil_div(n->xbar[out], n->S));
        return;
    }
    uint32_t prev = NONE;
    for (uint32_t w = n->wait_head[out]; w != NONE; prev = w, w = n->iv[w].wait_next) {
        pkt *k = &n->pk[n->iv[w].head];
        if (n->credits[out * n->V + k->ovc] < (int32_t)k->size)
            continue; /* a credit event retries */
        uint64_t f = n->in_free[w / n->V];
        if (f > nowu) {
            uint64_t t = ceil_div(f, n->S);
            if (t < earliest)
                earliest = t;
            continue;
        }
        uint32_t nx = n->iv[w].wait_next;
        if (prev == NONE)
            n->wait_head[out] = nx;
        else
            n->iv[prev].wait_next = nx;
        if (n->wait_tail[out] == w)
            n->wait_tail[out] = prev;
        grant(n, out, w);
        return;
    }
    if (earliest != UINT64_MAX)
        sched_try(n, out, earliest);
}

static void on_head(net *n, uint32_t ivid, uint32_t ki)
{
    pkt *k = &n->pk[ki];
    ivc *q = &n->iv[ivid];
    n->wire -= k->size;
    k->next = NONE;
    int was_empty = q->head == NONE;
    if (was_empty)
        q->head = ki;
    else
        n->pk[q->tail].next = ki;
    q->tail = ki;
    q->flits += k->size;
    if (was_empty) {
        uint32_t in = ivid / n->V, r = in / n->P;
        route(n, k, r, in % n->P < n->c.p);
        uint32_t out = r * n->P + k->out;
        wait_for(n, out, ivid);
        try_output(n, out);
    }
}

static void issue_gets(net *n, uint32_t x)
{
    node *d = &n->nodes[x];
    uint64_t off;
    uint32_t len, any = 0;
    while (rdrp_next(&d->win, &off, &len)) {
        rdrp_issued(&d->win, len);
        d->pend_req++;
        any = 1;
    }
    if (any)
        sched_inj(n, x, n->now);
}

static uint32_t dest_of(net *n, uint32_t x)
{
    if (n->c.traffic == NET_TRAFFIC_UNIFORM)
        return rnd_below(n, n->N); /* as Booksim's uniform: any node, itself included */
    return n->nodes[x].partner;
}

static void on_inj(net *n, uint32_t x)
{
    node *d = &n->nodes[x];
    if (d->inj_at == n->now)
        d->inj_at = UINT64_MAX;
    if (d->inj_busy > n->now) {
        sched_inj(n, x, d->inj_busy);
        return;
    }
    uint32_t kind = PK_DATA, size = n->c.pkt_flits;
    uint64_t born = n->now;
    if (n->c.transfer == NET_XFER_RDRP) {
        if (d->pend_req)
            kind = PK_REQ, size = 1;
        else if (!d->pend_reply)
            return;
    } else if (n->c.load > 0 && !d->q_n) {
        return;
    }
    /* the node may use any VC of its router's terminal input (the first network hop decides the
     * class): a random one with room, as Booksim's random injection VC, so that one packet waiting
     * for its output does not hold up the node's others (head-of-line blocking at injection) */
    uint32_t room[16], nroom = 0;
    for (uint32_t v = 0; v < n->V; v++)
        if (d->inj_credits[v] >= (int32_t)size)
            room[nroom++] = v;
    if (!nroom)
        return; /* the credit's arrival retries */
    if (kind == PK_DATA && n->c.cc != NET_CC_NONE) {
        cc_decay(n, d);
        if (d->cc >= 20) {
            sched_inj(n, x, d->cc_t + (n->c.cc == NET_CC_FECN_AGGR ? 50 : 4));
            return;
        }
        if (d->cc_next > n->now) {
            sched_inj(n, x, d->cc_next);
            return;
        }
    }
    uint32_t ki = pkt_new(n);
    pkt *k = &n->pk[ki];
    if (kind == PK_REQ) {
        d->pend_req--;
    } else if (n->c.transfer == NET_XFER_RDRP) {
        d->pend_reply--;
    } else if (n->c.load > 0) {
        born = d->q[d->q_head];
        d->q_head = (d->q_head + 1) % d->q_cap;
        d->q_n--;
    }
    *k = (pkt){.next = NONE, .src = x, .dst = kind == PK_DATA && n->c.transfer != NET_XFER_RDRP ? dest_of(n, x) : d->partner,
               .intm = NONE, .born = born, .size = (uint8_t)size, .kind = (uint8_t)kind};
    if (d->becn_owed) {
        /* BECN: one mark back per FECN received, on the next packet to the partner */
        k->flags |= PF_BECN;
        d->becn_owed--;
    }
    if (kind == PK_DATA && n->c.cc != NET_CC_NONE && d->cc > 0)
        d->cc_next = n->now + (uint64_t)size * 20 / (uint64_t)(20 - d->cc); /* rate 1 - C/20 */
    uint32_t ivc = room[nroom > 1 ? rnd_below(n, nroom) : 0];
    d->inj_credits[ivc] -= (int32_t)size;
    d->inj_busy = n->now + size;
    n->injected += size;
    n->wire += size;
    uint32_t r = x / n->c.p, port = x % n->c.p;
    sched(n, n->now + n->c.lat_term + n->c.router_delay, EV_HEAD, (r * n->P + port) * n->V + ivc, ki);
    n->last_move = n->now;
    sched_inj(n, x, d->inj_busy);
}

static void sink_start(net *n, uint32_t x)
{
    node *d = &n->nodes[x];
    uint32_t s = d->slow ? n->c.slowdown : 1;
    d->sink_busy = n->now + (uint64_t)n->pk[d->sq_head].size * s;
    sched(n, d->sink_busy, EV_SINK, x, 0);
}

static void on_eject(net *n, uint32_t x, uint32_t ki)
{
    node *d = &n->nodes[x];
    pkt *k = &n->pk[ki];
    n->wire -= k->size;
    n->last_move = n->now;
    uint32_t out = (x / n->c.p) * n->P + x % n->c.p;
    if (n->c.cc != NET_CC_NONE) {
        /* BECN counter: +8 for a packet with BECN, -1 for one without, any kind of packet */
        cc_decay(n, d);
        if (k->flags & PF_BECN)
            d->cc = d->cc + 8 > 20 ? 20 : d->cc + 8;
        else if (d->cc > 0)
            d->cc--;
        if (k->flags & PF_FECN) {
            d->becn_owed++;
            sched_inj(n, x, n->now);
        }
    }
    if (k->kind == PK_REQ) {
        /* a get request: the NIC answers it with one packet of data, no sink involved */
        n->absorbed += k->size;
        sched(n, n->now + n->c.lat_term + n->c.credit_delay, EV_CREDIT, out * n->V, k->size);
        d->pend_reply++;
        sched_inj(n, x, n->now);
        pkt_free(n, ki);
        return;
    }
    if (n->measuring) {
        uint64_t l = n->now - k->born;
        n->lat_sum += l;
        n->lat_n++;
        if (l < LAT_BINS)
            n->lat_hist[l]++;
        else
            n->lat_over++;
        n->data_n++;
        if (k->flags & PF_FECN)
            n->fecn_n++;
    }
    k->next = NONE;
    n->nicq += k->size;
    if (d->sq_head == NONE) {
        d->sq_head = d->sq_tail = ki;
        sink_start(n, x);
    } else {
        n->pk[d->sq_tail].next = ki;
        d->sq_tail = ki;
    }
}

static void on_sink(net *n, uint32_t x)
{
    node *d = &n->nodes[x];
    uint32_t ki = d->sq_head;
    pkt *k = &n->pk[ki];
    d->sq_head = k->next;
    n->nicq -= k->size;
    n->sunk += k->size;
    n->last_move = n->now;
    if (n->measuring) {
        n->win_flits += k->size;
        n->nodes[k->src].flow_flits += k->size;
    } else {
        n->win_flits += k->size;
    }
    uint32_t out = (x / n->c.p) * n->P + x % n->c.p;
    sched(n, n->now + n->c.lat_term + n->c.credit_delay, EV_CREDIT, out * n->V, k->size);
    uint32_t size = k->size;
    pkt_free(n, ki);
    if (n->c.transfer == NET_XFER_RDRP) {
        /* the data are in memory: the get completes and frees its place in the window */
        rdrp_completed(&d->win, size * n->c.flit_bytes);
        issue_gets(n, x);
    }
    if (d->sq_head != NONE)
        sink_start(n, x);
}

static uint64_t geometric(net *n, double p)
{
    /* cycles to the next Bernoulli(p) success, >= 1 */
    if (p >= 1.0)
        return 1;
    double u = rnd_unit(n);
    if (u <= 0)
        u = 1e-300;
    double g = floor(log(u) / log1p(-p)) + 1;
    return g > 1e15 ? (uint64_t)1e15 : (uint64_t)g;
}

static void on_gen(net *n, uint32_t x)
{
    node *d = &n->nodes[x];
    if (d->q_n == d->q_cap) {
        uint32_t cap = d->q_cap ? d->q_cap * 2 : 16;
        uint64_t *q = malloc(cap * sizeof *q);
        if (!q)
            abort();
        for (uint32_t i = 0; i < d->q_n; i++)
            q[i] = d->q[(d->q_head + i) % (d->q_cap ? d->q_cap : 1)];
        free(d->q);
        n->bytes += (cap - d->q_cap) * sizeof *q;
        d->q = q;
        d->q_head = 0;
        d->q_cap = cap;
    }
    d->q[(d->q_head + d->q_n) % d->q_cap] = n->now;
    d->q_n++;
    sched_inj(n, x, n->now);
    uint64_t dt = geometric(n, n->c.load / n->c.pkt_flits);
    if (dt >= WHEEL)
        dt = WHEEL - 1; /* rare at the loads measured; keeps the calendar bounded */
    sched(n, n->now + dt, EV_GEN, x, 0);
}

static void dispatch(net *n, ev e)
{
    uint32_t id = e.a & 0x0fffffffu;
    n->events++;
    switch (e.a >> 28) {
    case EV_HEAD: on_head(n, id, e.b); break;
    case EV_TRY:
        if (n->try_at[id] == n->now)
            n->try_at[id] = UINT64_MAX;
        try_output(n, id);
        break;
    case EV_CREDIT:
        n->credits[id] += (int32_t)e.b;
        try_output(n, id / n->V);
        break;
    case EV_NCREDIT:
        n->nodes[id].inj_credits[e.b >> 16] += (int32_t)(e.b & 0xffff);
        sched_inj(n, id, n->now);
        break;
    case EV_EJECT: on_eject(n, id, e.b); break;
    case EV_SINK: on_sink(n, id); break;
    case EV_INJ: on_inj(n, id); break;
    case EV_GEN: on_gen(n, id); break;
    }
}

/* Every flit injected is sunk, absorbed (a get request), on a wire, in a VC or in a receive buffer. */
static int conserved(const net *n)
{
    uint64_t q = 0;
    for (uint64_t i = 0; i < (uint64_t)n->R * n->P * n->V; i++)
        q += n->iv[i].flits;
    return n->injected == n->sunk + n->absorbed + n->wire + q + n->nicq;
}

static void sample(net *n)
{
    uint64_t o50 = 0, o90 = 0, tot = 0;
    for (uint32_t r = 0; r < n->R; r++)
        for (uint32_t o = n->c.p; o < n->P; o++)
            for (uint32_t v = 0; v < n->V; v++) {
                uint32_t used = n->c.vc_flits - (uint32_t)n->credits[(r * n->P + o) * n->V + v];
                o50 += used * 2 > n->c.vc_flits;
                o90 += used * 10 > n->c.vc_flits * 9;
                tot++;
            }
    n->occ50 += o50;
    n->occ90 += o90;
    n->occ_total += tot;
    n->occ_samples++;
    double b = 0;
    for (uint32_t x = 0; x < n->N; x++) {
        node *d = &n->nodes[x];
        if (n->c.cc != NET_CC_NONE) {
            cc_decay(n, d);
            b += d->cc;
        }
        if (n->c.transfer == NET_XFER_RDRP) {
            uint64_t f = (uint64_t)d->win.outstanding * n->c.pkt_flits * n->c.flit_bytes;
            n->infl_sum += (double)f;
            n->infl_n++;
            if (f > n->infl_max)
                n->infl_max = f;
        }
    }
    n->becn_sum += b / n->N;
}

void net_config_default(net_config *c)
{
    *c = (net_config){.p = 2, .a = 4, .h = 2, .vc_flits = 256, .pkt_flits = 16, .speedup_x10 = 24,
                      .lat_local = 2, .lat_global = 10, .lat_term = 1, .router_delay = 1, .credit_delay = 2,
                      .nic_flits = 256, .flit_bytes = 16, .routing = NET_ROUTE_PAR, .ugal_bias = 2,
                      .ugal_threshold = 30, .traffic = NET_TRAFFIC_PAIRWISE, .slowdown = 1,
                      .transfer = NET_XFER_BIG, .rdrp_window = 30, .cc = NET_CC_NONE, .seed = 1,
                      .window = 2000, .warm_min = 20, .meas_min = 10, .conv = 0.05, .max_cycles = 1000000,
                      .stall_cycles = 100000,
#ifndef NDEBUG
                      .check = 1,
#endif
    };
}

uint32_t net_nodes_of(const net_config *c)
{
    return c->p * c->a * (c->a * c->h + 1);
}

static void net_free(net *n)
{
    for (uint32_t i = 0; i < WHEEL; i++)
        for (evblk *k = n->wheel[i].head, *nx; k; k = nx) {
            nx = k->next;
            free(k);
        }
    for (evblk *k = n->blk_free, *nx; k; k = nx) {
        nx = k->next;
        free(k);
    }
    if (n->nodes)
        for (uint32_t x = 0; x < n->N; x++)
            free(n->nodes[x].q);
    free(n->out_dst);
    free(n->out_lat);
    free(n->busy);
    free(n->xbar);
    free(n->try_at);
    free(n->wait_head);
    free(n->wait_tail);
    free(n->credits);
    free(n->in_free);
    free(n->in_up);
    free(n->iv);
    free(n->nodes);
    free(n->pk);
    free(n->lat_hist);
    free(n);
}

static int check_config(const net_config *c, char *err, size_t errlen)
{
    const char *bad = NULL;
    if (c->p < 1 || c->a < 1 || c->h < 1 || c->p > 64 || c->a > 256 || c->h > 64)
        bad = "dragonfly p, a, h must be 1 .. 64, 1 .. 256, 1 .. 64";
    else if ((uint64_t)c->p * c->a * (c->a * c->h + 1) > (1u << 24))
        bad = "more than 16,777,216 nodes";
    else if (c->pkt_flits < 1 || c->pkt_flits > 255 || c->vc_flits < c->pkt_flits || c->nic_flits < c->pkt_flits)
        bad = "packets must be 1 .. 255 flits and fit a VC buffer and the receive buffer";
    else if (c->speedup_x10 < 10 || c->speedup_x10 > 100)
        bad = "speedup must be 1.0 .. 10.0";
    else if (c->lat_local < 1 || c->lat_global < 1 || c->lat_term < 1 || c->lat_local > 255 || c->lat_global > 255 ||
             c->lat_term > 255 || c->router_delay > 255 || c->credit_delay > 255)
        bad = "latencies must be 1 .. 255 cycles, delays 0 .. 255";
    else if (c->slowdown < 1 || c->slowdown > 64 || c->pkt_flits * c->slowdown >= WHEEL / 2)
        bad = "slowdown must be 1 .. 64, and a packet's sinking shorter than 4096 cycles";
    else if (c->rdrp_window < 1 || c->rdrp_window > 4096)
        bad = "RDRP window must be 1 .. 4096";
    else if (c->window < 10 || c->conv <= 0 || c->meas_min < 2 || c->max_cycles < c->window)
        bad = "measurement windows of at least 10 cycles, at least 2 measured, max cycles >= window";
    else if (c->vcs > 16 || c->stall_cycles < 1)
        bad = "at most 16 VCs, and a stall bound of at least 1 cycle";
    else if (c->load < 0 || c->load > 1)
        bad = "offered load must be 0 (backlogged) .. 1 flit/cycle";
    else if (c->transfer == NET_XFER_RDRP && (c->traffic != NET_TRAFFIC_PAIRWISE || c->load > 0))
        bad = "RDRP needs backlogged pairwise traffic (the get goes to the partner)";
    else if (c->traffic == NET_TRAFFIC_PAIRWISE && net_nodes_of(c) % 2)
        bad = "pairwise traffic needs an even number of nodes";
    else if (c->slow_nodes > net_nodes_of(c))
        bad = "more slow nodes than nodes";
    if (bad) {
        snprintf(err, errlen, "net: %s", bad);
        return -1;
    }
    return 0;
}

int net_run(const net_config *cfg, net_result *res, char *err, size_t errlen)
{
    if (check_config(cfg, err, errlen) != 0)
        return -1;
    clock_t c0 = clock();
    net *n = calloc(1, sizeof *n);
    if (!n) {
        snprintf(err, errlen, "net: out of memory");
        return -1;
    }
    n->c = *cfg;
    n->A = cfg->a;
    n->G = cfg->a * cfg->h + 1;
    n->R = n->A * n->G;
    n->P = cfg->p + cfg->a - 1 + cfg->h;
    n->N = n->R * cfg->p;
    n->V = cfg->routing == NET_ROUTE_MIN ? 2 : cfg->routing == NET_ROUTE_PAR ? 4 : 3;
    if (cfg->vcs)
        n->V = cfg->vcs;
    n->S = cfg->speedup_x10;
    n->rng = cfg->seed * 0x2545f4914f6cdd1dull + 0x1234567ull;
    uint32_t ports = n->R * n->P;
    n->out_dst = zalloc(n, ports, sizeof *n->out_dst);
    n->out_lat = zalloc(n, ports, sizeof *n->out_lat);
    n->busy = zalloc(n, ports, sizeof *n->busy);
    n->xbar = zalloc(n, ports, sizeof *n->xbar);
    n->try_at = zalloc(n, ports, sizeof *n->try_at);
    n->wait_head = zalloc(n, ports, sizeof *n->wait_head);
    n->wait_tail = zalloc(n, ports, sizeof *n->wait_tail);
    n->credits = zalloc(n, (size_t)ports * n->V, sizeof *n->credits);
    n->in_free = zalloc(n, ports, sizeof *n->in_free);
    n->in_up = zalloc(n, ports, sizeof *n->in_up);
    n->iv = zalloc(n, (size_t)ports * n->V, sizeof *n->iv);
    n->nodes = zalloc(n, n->N, sizeof *n->nodes);
    n->lat_hist = zalloc(n, LAT_BINS, sizeof *n->lat_hist);
    if (!n->out_dst || !n->out_lat || !n->busy || !n->xbar || !n->try_at || !n->wait_head || !n->wait_tail || !n->credits ||
        !n->in_free || !n->in_up || !n->iv || !n->nodes || !n->lat_hist) {
        net_free(n);
        snprintf(err, errlen, "net: out of memory");
        return -1;
    }
    n->pk_free = NONE;
    build_links(n);
    for (uint32_t i = 0; i < ports; i++) {
        n->try_at[i] = UINT64_MAX;
        n->wait_head[i] = n->wait_tail[i] = NONE;
        for (uint32_t v = 0; v < n->V; v++)
            n->credits[i * n->V + v] = (int32_t)(is_term(n, i % n->P) ? cfg->nic_flits : cfg->vc_flits);
    }
    for (uint64_t i = 0; i < (uint64_t)ports * n->V; i++)
        n->iv[i] = (ivc){NONE, NONE, NONE, 0};
    /* the permutation, then the slow set, both from the seed */
    uint32_t *perm = malloc(n->N * sizeof *perm);
    if (!perm) {
        net_free(n);
        snprintf(err, errlen, "net: out of memory");
        return -1;
    }
    for (uint32_t i = 0; i < n->N; i++)
        perm[i] = i;
    for (uint32_t i = n->N - 1; i > 0; i--) {
        uint32_t j = rnd_below(n, i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (uint32_t i = 0; i < n->N; i++) {
        node *d = &n->nodes[i];
        d->inj_at = UINT64_MAX;
        for (uint32_t v = 0; v < n->V; v++)
            d->inj_credits[v] = (int32_t)cfg->vc_flits;
        d->sq_head = d->sq_tail = NONE;
    }
    if (cfg->traffic == NET_TRAFFIC_PAIRWISE) {
        /* involutive: consecutive entries of a random shuffle are partners, A -> B and B -> A */
        for (uint32_t i = 0; i + 1 < n->N; i += 2) {
            n->nodes[perm[i]].partner = perm[i + 1];
            n->nodes[perm[i + 1]].partner = perm[i];
        }
    } else {
        for (uint32_t i = 0; i < n->N; i++)
            n->nodes[i].partner = perm[i];
    }
    for (uint32_t i = 0; i < n->N; i++)
        perm[i] = i;
    for (uint32_t i = 0; i < cfg->slow_nodes; i++) {
        uint32_t j = i + rnd_below(n, n->N - i), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
        n->nodes[perm[i]].slow = 1;
    }
    free(perm);
    for (uint32_t x = 0; x < n->N; x++) {
        node *d = &n->nodes[x];
        if (cfg->transfer == NET_XFER_RDRP) {
            /* an endless pull from the partner, one packet per get: the same window code as p2p */
            rdrp_init(&d->win, UINT64_MAX / 2, 0, cfg->pkt_flits * cfg->flit_bytes, cfg->rdrp_window);
            issue_gets(n, x);
        } else if (cfg->load > 0) {
            sched(n, geometric(n, cfg->load / cfg->pkt_flits) % WHEEL, EV_GEN, x, 0);
        } else {
            sched_inj(n, x, 0);
        }
    }

    /* the cycle loop with warm-up and measurement windows */
    enum { WARM, MEAS } phase = WARM;
    double hist[3] = {0, 0, 0};
    uint32_t nwin = 0, nmeas = 0;
    double *meas = malloc(sizeof(double) * (size_t)(cfg->max_cycles / cfg->window + 1));
    uint64_t meas_start = 0;
    int rc = 0, converged = 0;
    if (!meas) {
        net_free(n);
        snprintf(err, errlen, "net: out of memory");
        return -1;
    }
    for (n->now = 0; n->now < cfg->max_cycles; n->now++) {
        /* events scheduled for this cycle while it runs join its chain and run too */
        slot *s = &n->wheel[n->now & (WHEEL - 1)];
        for (evblk *k = s->head; k; k = s->head) {
            for (uint32_t i = 0; i < k->n; i++)
                dispatch(n, k->v[i]);
            s->head = k->next;
            if (!s->head)
                s->tail = NULL;
            k->next = n->blk_free;
            n->blk_free = k;
        }
        if (cfg->check && !conserved(n)) {
            snprintf(err, errlen, "net: flit conservation broken at cycle %llu", (unsigned long long)n->now);
            rc = -1;
            break;
        }
        if (n->now - n->last_move > cfg->stall_cycles && n->injected - n->sunk - n->absorbed > 0) {
            snprintf(err, errlen, "net: deadlock: nothing moved for %llu cycles (cycle %llu)",
                     (unsigned long long)cfg->stall_cycles, (unsigned long long)n->now);
            rc = -1;
            break;
        }
        if (n->measuring && n->now % 256 == 0)
            sample(n);
        if ((n->now + 1) % cfg->window)
            continue;
        if (cfg->progress && nwin % 8 == 0)
            cfg->progress(cfg->progress_arg, n->now + 1, cfg->max_cycles);
        double thr = (double)n->win_flits / ((double)n->N * cfg->window);
        n->win_flits = 0;
        nwin++;
        if (cfg->on_window)
            cfg->on_window(cfg->progress_arg, n->now + 1, thr, phase == MEAS);
        if (phase == WARM) {
            hist[0] = hist[1];
            hist[1] = hist[2];
            hist[2] = thr;
            double m = (hist[0] + hist[1] + hist[2]) / 3;
            int steady = nwin >= 3 && m > 0;
            for (int i = 0; steady && i < 3; i++)
                steady = fabs(hist[i] - m) <= cfg->conv * m;
            /* a warm-up that never settles is cut at half the budget (reported as not converged) */
            if ((nwin >= cfg->warm_min && (steady || m == 0)) || n->now + 1 >= cfg->max_cycles / 2) {
                phase = MEAS;
                n->measuring = 1;
                meas_start = n->now + 1;
                for (uint32_t x = 0; x < n->N; x++)
                    n->nodes[x].flow_flits = 0;
            }
            continue;
        }
        meas[nmeas++] = thr;
        if (nmeas >= cfg->meas_min) {
            double a = 0, b = 0;
            uint32_t h = nmeas / 2;
            for (uint32_t i = 0; i < h; i++)
                a += meas[i];
            for (uint32_t i = nmeas - h; i < nmeas; i++)
                b += meas[i];
            if (fabs(a - b) <= cfg->conv * (a > b ? a : b) || (a == 0 && b == 0)) {
                converged = 1;
                n->now++;
                break;
            }
        }
    }
    free(meas);
    if (rc == 0 && !n->measuring) {
        snprintf(err, errlen, "net: warm-up did not end within %llu cycles", (unsigned long long)cfg->max_cycles);
        rc = -1;
    }
    if (rc == 0) {
        memset(res, 0, sizeof *res);
        res->nodes = n->N;
        res->routers = n->R;
        res->groups = n->G;
        res->radix = n->P;
        res->vcs = n->V;
        res->cycles = n->now;
        res->warmup_cycles = meas_start;
        res->meas_cycles = n->now - meas_start;
        res->converged = converged;
        double mc = res->meas_cycles ? (double)res->meas_cycles : 1.0, tot = 0, ts = 0, tv = 0, tf = 0;
        for (uint32_t x = 0; x < n->N; x++) {
            node *d = &n->nodes[x];
            double f = (double)d->flow_flits / mc;
            tot += f;
            if (n->c.traffic == NET_TRAFFIC_UNIFORM)
                continue;
            int dslow = n->nodes[d->partner].slow;
            if (dslow)
                ts += f, res->n_to_slow++;
            if (d->slow)
                tf += f, res->n_from_slow++;
            if (!dslow && !d->slow)
                tv += f, res->n_victim++;
        }
        res->throughput = tot / n->N;
        res->thr_to_slow = res->n_to_slow ? ts / res->n_to_slow : 0;
        res->thr_victim = res->n_victim ? tv / res->n_victim : 0;
        res->thr_from_slow = res->n_from_slow ? tf / res->n_from_slow : 0;
        res->vc_over50 = n->occ_total ? (double)n->occ50 / n->occ_total : 0;
        res->vc_over90 = n->occ_total ? (double)n->occ90 / n->occ_total : 0;
        res->lat_samples = n->lat_n;
        res->lat_mean = n->lat_n ? (double)n->lat_sum / n->lat_n : 0;
        uint64_t want = n->lat_n - n->lat_n / 100, acc = 0; /* p99: the smallest l with 99 % <= l */
        res->lat_p99 = LAT_BINS;
        for (uint32_t l = 0; l < LAT_BINS && n->lat_n; l++) {
            acc += n->lat_hist[l];
            if (acc >= want) {
                res->lat_p99 = l;
                break;
            }
        }
        res->rdrp_inflight_mean = n->infl_n ? n->infl_sum / n->infl_n : 0;
        res->rdrp_inflight_max = n->infl_max;
        res->fecn_marked = n->data_n ? (double)n->fecn_n / n->data_n : 0;
        res->becn_mean = n->occ_samples ? n->becn_sum / n->occ_samples : 0;
        res->flits_injected = n->injected;
        res->flits_ejected = n->sunk;
        res->events = n->events;
        res->bytes = n->bytes + sizeof *n;
        res->cpu_s = (double)(clock() - c0) / CLOCKS_PER_SEC;
    }
    net_free(n);
    return rc;
}
