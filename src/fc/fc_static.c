/* src/fc/fc_static.c — the static credit scheme of thesis ch. 5: Q = S - C credits per sender,
 * accumulated credit return at threshold T = Q div (C+1) + 1, credit packets need no credit. */
#include <stdlib.h>

#include "fc/fc_impl.h"

/* Per-peer state lives in flat arrays carved out of the one allocation made by create, so the
 * hot path (acquire, on_retrieved) is an index and an add, and nothing allocates afterwards. */
struct fc_state {
    uint32_t nranks;
    uint32_t quota;     /* Q: credits each sender owns at this receiver */
    uint32_t threshold; /* T of Eq. 5.1, the same for every sender */
    uint32_t pend_head; /* ring of peers owed an explicit credit packet */
    uint32_t pend_count;
    fc_counters counters;
    uint32_t *credit;    /* sender side: credits left towards each receiver */
    uint32_t *retrieved; /* receiver side: data packets released since the last return */
    uint32_t *pend_ring; /* nranks entries: each peer is queued at most once */
    uint8_t *pending;    /* 1 while the peer sits in pend_ring */
};

static uint32_t static_mailbox_slots(const fc_params *p) { return fc_ring_slots(p); }

static int static_create(const fc_params *p, fc_state **out, char *err, size_t errlen)
{
    if (fc_check_common("static", p, err, errlen))
        return -1;
    uint32_t c = p->credit_slots;
    if (c < 1)
        return fc_fail(err, errlen, "static flow control: credit slots C (CREDO_CREDIT_SLOTS) must be >= 1, got %u",
                       c);
    /* Q >= C+1 ([S] eq. 2, ambiguity A5): the threshold is then >= 2, so a credit packet always
     * carries at least two credits; Q = C would return one credit per packet and is refused. */
    if (p->slots_per_peer <= c || p->slots_per_peer - c < c + 1)
        return fc_fail(err, errlen,
                       "static flow control: quota Q = S - C = %d is below C + 1 = %u "
                       "(S = CREDO_SLOTS_PER_PEER = %u, C = %u); use S >= %u",
                       (int)p->slots_per_peer - (int)c, c + 1, p->slots_per_peer, c, 2 * c + 1);

    size_t n = p->nranks;
    size_t bytes = sizeof(fc_state) + n * (3 * sizeof(uint32_t) + sizeof(uint8_t));
    fc_state *st = calloc(1, bytes);
    if (!st)
        return fc_fail(err, errlen, "static flow control: out of memory for %u peers", p->nranks);
    st->nranks = p->nranks;
    st->quota = p->slots_per_peer - c;
    st->threshold = fc_static_threshold(st->quota, c);
    st->credit = (uint32_t *)(st + 1);
    st->retrieved = st->credit + n;
    st->pend_ring = st->retrieved + n;
    st->pending = (uint8_t *)(st->pend_ring + n);
    for (size_t i = 0; i < n; i++)
        st->credit[i] = st->quota;
    *out = st;
    return 0;
}

static void static_destroy(fc_state *st) { free(st); }

static uint32_t static_acquire(fc_state *st, uint32_t dest, uint32_t want)
{
    if (dest >= st->nranks) {
        st->counters.protocol_errors++;
        return 0;
    }
    uint32_t have = st->credit[dest];
    uint32_t grant = want < have ? want : have;
    st->credit[dest] = have - grant;
    st->counters.data_packets_sent += grant;
    return grant;
}

/* Returns everything retrieved so far (up to the 16-bit field) and resets the count: this only
 * delays the next threshold crossing, which is conservative for the credit region (notes 2.7). */
static uint32_t static_piggyback_take(fc_state *st, uint32_t dest)
{
    if (dest >= st->nranks)
        return 0;
    uint32_t r = st->retrieved[dest];
    if (r == 0)
        return 0;
    uint32_t take = r < FC_PIGGYBACK_MAX ? r : FC_PIGGYBACK_MAX;
    st->retrieved[dest] = r - take;
    st->counters.piggybacked_returns++;
    st->counters.piggybacked_credits += take;
    return take;
}

static void static_on_ctrl(fc_state *st, uint32_t from, uint8_t kind, uint32_t value, int piggyback)
{
    if (from >= st->nranks || kind != FC_CTRL_CREDIT) {
        st->counters.protocol_errors++;
        return;
    }
    /* A sender never holds more than its quota; more means the peer runs another scheme or other
     * parameters. Clamp so that this process still cannot overrun the peer's ring. */
    uint64_t c = (uint64_t)st->credit[from] + value;
    if (c > st->quota) {
        st->counters.protocol_errors++;
        c = st->quota;
    }
    st->credit[from] = (uint32_t)c;
}

static int static_on_retrieved(fc_state *st, uint32_t src, uint32_t npkts)
{
    if (src >= st->nranks) {
        st->counters.protocol_errors++;
        return st->pend_count != 0;
    }
    st->counters.retrieved_packets += npkts;
    uint32_t r = st->retrieved[src] + npkts;
    st->retrieved[src] = r;
    if (r >= st->threshold && !st->pending[src]) {
        st->pending[src] = 1;
        st->pend_ring[(st->pend_head + st->pend_count) % st->nranks] = src;
        st->pend_count++;
    }
    return st->pend_count != 0;
}

/* A queued peer is sent a packet only if its count is still >= T when drained: a piggyback may
 * have returned the credits meanwhile, and a packet with fewer than T credits would break the
 * "C+1 packets need more than Q retrievals" argument that keeps the credit region from overflowing. */
static int static_next_ctrl(fc_state *st, fc_ctrl *out)
{
    while (st->pend_count) {
        uint32_t peer = st->pend_ring[st->pend_head];
        st->pend_head = (st->pend_head + 1) % st->nranks;
        st->pend_count--;
        st->pending[peer] = 0;
        uint32_t r = st->retrieved[peer];
        if (r >= st->threshold) {
            st->retrieved[peer] = 0;
            out->peer = peer;
            out->value = r;
            out->kind = FC_CTRL_CREDIT;
            st->counters.credit_packets_sent++;
            return 1;
        }
    }
    return 0;
}

static const fc_counters *static_counters(const fc_state *st) { return &st->counters; }

static size_t static_state_bytes(const fc_state *st)
{
    return sizeof *st + (size_t)st->nranks * (3 * sizeof(uint32_t) + sizeof(uint8_t));
}

static int static_peer_view(const fc_state *st, uint32_t peer, fc_peer_view *out)
{
    if (peer >= st->nranks)
        return -1;
    out->credits = st->credit[peer];
    out->owed = st->retrieved[peer];
    out->granted = st->quota;
    out->intended = st->quota;
    return 0;
}

static int static_check(const fc_state *st, char *err, size_t errlen)
{
    for (uint32_t i = 0; i < st->nranks; i++) {
        if (st->credit[i] > st->quota)
            return fc_fail(err, errlen, "static: %u credits towards rank %u exceed quota %u", st->credit[i], i,
                           st->quota);
        if (st->retrieved[i] > st->quota)
            return fc_fail(err, errlen, "static: %u packets owed to rank %u exceed quota %u", st->retrieved[i],
                           i, st->quota);
    }
    return 0;
}

FC_DEFINE_ACQUIRE_PIGGYBACK(static)

const fc_ops fc_static_ops = {
    .name = "static",
    .mailbox_slots = static_mailbox_slots,
    .create = static_create,
    .destroy = static_destroy,
    .acquire = static_acquire,
    .piggyback_take = static_piggyback_take,
    .on_ctrl = static_on_ctrl,
    .on_retrieved = static_on_retrieved,
    .acquire_piggyback = static_acquire_piggyback,
    .next_ctrl = static_next_ctrl,
    .counters = static_counters,
    .state_bytes = static_state_bytes,
    .peer_view = static_peer_view,
    .check = static_check,
};
