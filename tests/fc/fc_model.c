/* tests/fc/fc_model.c — the packet-level model behind the fc unit tests and the randomized
 * harness: rings, in-order links, unexpected holds, and the invariant checks after every action. */
#include "fc_model.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Tally of what is on the way, per ordered pair (sender s, receiver r), index s*P + r. */
typedef struct pair_tally {
    uint32_t pkts;        /* packets of s that consumed a credit towards r (data, request, response) */
    uint64_t returning;   /* credits of pair (s,r) travelling back towards s, or as response amounts */
    uint32_t credit_pkts; /* explicit credit packets r->s not yet read by s */
} pair_tally;

static void q_push(mqueue *q, mpkt p)
{
    if (q->count == q->cap) {
        uint32_t ncap = q->cap ? q->cap * 2 : 16;
        mpkt *nb = malloc(ncap * sizeof *nb);
        if (!nb)
            abort();
        for (uint32_t k = 0; k < q->count; k++)
            nb[k] = q->buf[(q->head + k) % q->cap];
        free(q->buf);
        q->buf = nb;
        q->head = 0;
        q->cap = ncap;
    }
    q->buf[(q->head + q->count) % q->cap] = p;
    q->count++;
}

static mpkt q_pop(mqueue *q)
{
    mpkt p = q->buf[q->head];
    q->head = (q->head + 1) % q->cap;
    q->count--;
    return p;
}

static const mpkt *q_at(const mqueue *q, uint32_t k) { return &q->buf[(q->head + k) % q->cap]; }

static int fail(fc_model *m, const char *fmt, ...)
{
    if (m->failed)
        return 0;
    m->failed = 1;
    int n = snprintf(m->why, sizeof m->why, "step %llu: ", (unsigned long long)m->step);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->why + n, sizeof m->why - (size_t)n, fmt, ap);
    va_end(ap);
    return 0;
}

int model_init(fc_model *m, const fc_ops *ops, uint32_t nprocs, uint32_t S, uint32_t C)
{
    memset(m, 0, sizeof *m);
    m->ops = ops;
    m->nprocs = nprocs;
    m->base = (fc_params){.nranks = nprocs, .self = 0, .slots_per_peer = S, .credit_slots = C};
    m->ring_slots = ops->mailbox_slots(&m->base);
    m->procs = calloc(nprocs, sizeof *m->procs);
    m->chan = calloc((size_t)nprocs * nprocs, sizeof *m->chan);
    m->tally = calloc((size_t)nprocs * nprocs, sizeof(pair_tally));
    for (uint32_t i = 0; i < nprocs; i++) {
        mproc *p = &m->procs[i];
        fc_params prm = m->base;
        prm.self = i;
        if (ops->create(&prm, &p->fc, m->why, sizeof m->why) != 0) {
            m->failed = 1;
            return -1;
        }
        p->msg_left = calloc(nprocs, sizeof(uint32_t));
        p->msg_queued = calloc(nprocs, sizeof(uint32_t));
        p->msg_size = calloc(nprocs, sizeof(uint32_t));
        p->msg_cur = calloc(nprocs, sizeof(uint32_t));
        p->held = calloc(nprocs, sizeof(uint32_t));
        p->idle_since = calloc(nprocs, sizeof(uint64_t));
    }
    return 0;
}

void model_free(fc_model *m)
{
    for (uint32_t i = 0; m->procs && i < m->nprocs; i++) {
        mproc *p = &m->procs[i];
        if (p->fc)
            m->ops->destroy(p->fc);
        free(p->ring.buf);
        free(p->msg_left);
        free(p->msg_queued);
        free(p->msg_size);
        free(p->msg_cur);
        free(p->held);
        free(p->idle_since);
    }
    for (uint32_t k = 0; m->chan && k < m->nprocs * m->nprocs; k++)
        free(m->chan[k].buf);
    free(m->procs);
    free(m->chan);
    free(m->tally);
    m->tally = NULL;
    m->procs = NULL;
    m->chan = NULL;
}

static mqueue *link_of(fc_model *m, uint32_t i, uint32_t j) { return &m->chan[(size_t)i * m->nprocs + j]; }

static uint64_t link_backlog(const mproc *p, uint32_t j)
{
    return (uint64_t)p->msg_left[j] + (uint64_t)p->msg_queued[j] * p->msg_size[j];
}

void model_queue(fc_model *m, uint32_t i, uint32_t j, uint32_t count, uint32_t size)
{
    mproc *p = &m->procs[i];
    if (i == j || count == 0 || size == 0)
        return;
    if (link_backlog(p, j) == 0)
        p->idle_since[j] = m->step;
    if (p->msg_queued[j] && p->msg_size[j] != size) {
        /* One size per link keeps the model small: finish the old batch size first. */
        size = p->msg_size[j];
    }
    p->msg_size[j] = size;
    p->msg_queued[j] += count;
}

/* Sends what the scheme wants sent; REQUEST/RESPONSE credits were taken by the scheme. */
static void drain_ctrl(fc_model *m, uint32_t i)
{
    fc_ctrl c;
    int guard = 0;
    while (m->ops->next_ctrl(m->procs[i].fc, &c)) {
        if (c.peer >= m->nprocs || c.peer == i)
            fail(m, "rank %u emitted a control packet to invalid peer %u", i, c.peer);
        else if (c.kind < FC_CTRL_CREDIT || c.kind > FC_CTRL_RESPONSE)
            fail(m, "rank %u emitted control kind %u", i, c.kind);
        else if (c.kind == FC_CTRL_CREDIT && c.value == 0)
            fail(m, "rank %u emitted an empty credit packet to %u", i, c.peer);
        else
            q_push(link_of(m, i, c.peer), (mpkt){c.kind, i, c.value});
        if (++guard > 1000000) {
            fail(m, "rank %u: next_ctrl never runs dry", i);
            return;
        }
    }
}

int model_send(fc_model *m, uint32_t i, uint32_t j, uint32_t max_pkts)
{
    mproc *p = &m->procs[i];
    m->step++;
    if (i == j)
        return 0;
    if (p->msg_left[j] == 0) {
        if (p->msg_queued[j] == 0)
            return 0;
        p->msg_queued[j]--;
        p->msg_left[j] = p->msg_cur[j] = p->msg_size[j];
    }
    uint32_t want = p->msg_left[j];
    if (max_pkts && max_pkts < want)
        want = max_pkts;
    if (m->ops == &fc_none_ops) {
        /* Back-pressure: the writer reserves ring slots first and waits while the ring is full. */
        uint64_t used = m->procs[j].ring.count;
        for (uint32_t k = 0; k < m->nprocs; k++)
            used += link_of(m, k, j)->count;
        uint32_t room = used >= m->ring_slots ? 0 : m->ring_slots - (uint32_t)used;
        if (want > room)
            want = room;
        if (want == 0)
            return 0;
    }
    uint32_t got = m->ops->acquire(p->fc, j, want);
    if (got > want)
        return fail(m, "acquire(%u->%u) granted %u of %u", i, j, got, want);
    for (uint32_t k = 0; k < got; k++) {
        uint32_t pb = 0;
        if (p->msg_left[j] == p->msg_cur[j]) {
            pb = m->ops->piggyback_take(p->fc, j);
            if (pb > FC_PIGGYBACK_MAX)
                fail(m, "piggyback of %u credits does not fit the header", pb);
        }
        q_push(link_of(m, i, j), (mpkt){0, i, pb});
        p->msg_left[j]--;
    }
    if (got) {
        p->idle_since[j] = m->step;
        m->data_sent += got;
    }
    drain_ctrl(m, i);
    model_check(m);
    return got > 0;
}

int model_deliver(fc_model *m, uint32_t i, uint32_t j)
{
    mqueue *l = link_of(m, i, j);
    m->step++;
    if (l->count == 0)
        return 0;
    mproc *r = &m->procs[j];
    /* Under "none" slots were reserved at send time; the credit schemes reserve nothing, so for
     * them a ring beyond its slots is a violation, caught by model_check. */
    q_push(&r->ring, q_pop(l));
    if (r->ring.count > m->max_ring)
        m->max_ring = r->ring.count;
    model_check(m);
    return 1;
}

int model_retrieve(fc_model *m, uint32_t j, int hold)
{
    mproc *r = &m->procs[j];
    m->step++;
    if (r->ring.count == 0)
        return 0;
    mpkt p = q_pop(&r->ring);
    if (p.kind != 0) {
        m->ops->on_ctrl(r->fc, p.src, p.kind, p.value, 0);
        if (p.kind != FC_CTRL_CREDIT) /* requests and responses sit in data slots */
            m->ops->on_retrieved(r->fc, p.src, 1);
    } else {
        if (p.value)
            m->ops->on_ctrl(r->fc, p.src, FC_CTRL_CREDIT, p.value, 1);
        if (hold) {
            r->held[p.src]++;
            if (m->ops->on_arrived) /* held as unexpected: activity, released later */
                m->ops->on_arrived(r->fc, p.src, 1);
        } else {
            m->ops->on_retrieved(r->fc, p.src, 1);
            m->data_released++;
        }
    }
    drain_ctrl(m, j);
    model_check(m);
    return 1;
}

int model_release(fc_model *m, uint32_t j, uint32_t src, uint32_t n)
{
    mproc *r = &m->procs[j];
    m->step++;
    if (n == 0 || n > r->held[src])
        n = r->held[src];
    if (n == 0)
        return 0;
    r->held[src] -= n;
    m->ops->on_retrieved(r->fc, src, n);
    m->data_released += n;
    drain_ctrl(m, j);
    model_check(m);
    return 1;
}

uint64_t model_backlog(const fc_model *m)
{
    uint64_t b = 0;
    for (uint32_t i = 0; i < m->nprocs; i++)
        for (uint32_t j = 0; j < m->nprocs; j++)
            b += link_backlog(&m->procs[i], j);
    return b;
}

int model_quiet(const fc_model *m)
{
    if (model_backlog(m))
        return 0;
    for (uint32_t i = 0; i < m->nprocs; i++) {
        if (m->procs[i].ring.count)
            return 0;
        for (uint32_t j = 0; j < m->nprocs; j++)
            if (m->procs[i].held[j] || m->chan[(size_t)i * m->nprocs + j].count)
                return 0;
    }
    return 1;
}


static void tally_packet(fc_model *m, pair_tally *t, const mpkt *p, uint32_t at)
{
    uint32_t P = m->nprocs, src = p->src;
    switch (p->kind) {
    case 0: /* data from src to at; a piggyback returns credits of pair (at, src) */
        t[src * P + at].pkts++;
        t[at * P + src].returning += p->value;
        break;
    case FC_CTRL_CREDIT: /* credits of pair (at, src) */
        t[at * P + src].returning += p->value;
        t[at * P + src].credit_pkts++;
        break;
    case FC_CTRL_REQUEST: /* src (as a receiver) asks at; the packet itself used a credit src->at */
        t[src * P + at].pkts++;
        break;
    case FC_CTRL_RESPONSE: /* src (as a sender) gives back credits of pair (src, at) */
        t[src * P + at].pkts++;
        t[src * P + at].returning += p->value;
        break;
    }
}

int model_check(fc_model *m)
{
    if (m->failed)
        return -1;
    uint32_t P = m->nprocs;
    int counted = m->ops != &fc_none_ops;
    pair_tally *t = m->tally;
    memset(t, 0, (size_t)P * P * sizeof *t);
    for (uint32_t j = 0; j < P; j++) {
        const mqueue *ring = &m->procs[j].ring;
        if (ring->count > m->ring_slots)
            fail(m, "ring of rank %u holds %u packets, mailbox has %u slots", j, ring->count, m->ring_slots);
        for (uint32_t k = 0; k < ring->count; k++)
            tally_packet(m, t, q_at(ring, k), j);
        for (uint32_t i = 0; i < P; i++) {
            const mqueue *l = &m->chan[(size_t)i * P + j];
            for (uint32_t k = 0; k < l->count; k++)
                tally_packet(m, t, q_at(l, k), j);
        }
    }
    char err[200];
    for (uint32_t i = 0; i < P && counted; i++) {
        mproc *pi = &m->procs[i];
        const fc_counters *c = m->ops->counters(pi->fc);
        if (c->protocol_errors)
            fail(m, "rank %u counted %llu protocol errors", i, (unsigned long long)c->protocol_errors);
        if (m->ops->check && m->ops->check(pi->fc, err, sizeof err))
            fail(m, "rank %u: %s", i, err);
        for (uint32_t r = 0; r < P; r++) {
            if (r == i)
                continue;
            const pair_tally *pt = &t[i * P + r];
            fc_peer_view vs, vr;
            m->ops->peer_view(pi->fc, r, &vs);
            m->ops->peer_view(m->procs[r].fc, i, &vr);
            uint64_t sum = (uint64_t)vs.credits + pt->pkts + m->procs[r].held[i] + vr.owed + pt->returning;
            if (sum != vr.granted)
                fail(m,
                     "credit conservation %u->%u: %u held + %u in flight + %u unexpected + %u owed + "
                     "%llu returning != %u granted",
                     i, r, vs.credits, pt->pkts, m->procs[r].held[i], vr.owed,
                     (unsigned long long)pt->returning, vr.granted);
            if (pt->credit_pkts > m->base.credit_slots)
                fail(m, "credit region of rank %u: %u unread credit packets from %u (C = %u)", i,
                     pt->credit_pkts, r, m->base.credit_slots);
        }
    }
    for (uint32_t i = 0; i < P; i++)
        for (uint32_t j = 0; j < P; j++) {
            if (!link_backlog(&m->procs[i], j))
                continue;
            uint64_t idle = m->step - m->procs[i].idle_since[j];
            if (idle > m->max_idle)
                m->max_idle = idle;
            if (m->starve_steps && idle > m->starve_steps)
                fail(m, "starvation: %u->%u has %llu packets queued and sent none for %llu steps", i, j,
                     (unsigned long long)link_backlog(&m->procs[i], j),
                     (unsigned long long)(m->step - m->procs[i].idle_since[j]));
        }
    return m->failed ? -1 : 0;
}

int model_drain(fc_model *m, uint64_t max_steps)
{
    uint64_t start = m->step;
    uint32_t P = m->nprocs;
    while (!m->failed && !model_quiet(m)) {
        int moved = 0;
        for (uint32_t j = 0; j < P; j++) {
            for (uint32_t i = 0; i < P; i++)
                while (model_deliver(m, i, j))
                    moved = 1;
            while (model_retrieve(m, j, 0))
                moved = 1;
            for (uint32_t s = 0; s < P; s++)
                moved |= model_release(m, j, s, 0);
            for (uint32_t d = 0; d < P; d++)
                moved |= model_send(m, j, d, 0);
        }
        if (!moved) {
            fail(m, "deadlock: no action possible with %llu packets still queued",
                 (unsigned long long)model_backlog(m));
            return -1;
        }
        if (m->step - start > max_steps) {
            fail(m, "no quiescence after %llu drain steps", (unsigned long long)max_steps);
            return -1;
        }
    }
    return m->failed ? -1 : 0;
}
