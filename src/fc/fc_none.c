/* src/fc/fc_none.c — the "none" scheme: every send is granted, no control packets.
 * Correctness then rests on the transport blocking on a full ring (back-pressure). */
#include <stdlib.h>

#include "fc/fc_impl.h"

struct fc_state {
    fc_counters counters;
};

static uint32_t none_mailbox_slots(const fc_params *p) { return fc_ring_slots(p); }

static int none_create(const fc_params *p, fc_state **out, char *err, size_t errlen)
{
    if (fc_check_common("none", p, err, errlen))
        return -1;
    fc_state *st = calloc(1, sizeof *st);
    if (!st)
        return fc_fail(err, errlen, "none flow control: out of memory");
    *out = st;
    return 0;
}

static void none_destroy(fc_state *st) { free(st); }

static uint32_t none_acquire(fc_state *st, uint32_t dest, uint32_t want)
{
    st->counters.data_packets_sent += want;
    return want;
}

static uint32_t none_piggyback_take(fc_state *st, uint32_t dest) { return 0; }

static void none_on_ctrl(fc_state *st, uint32_t from, uint8_t kind, uint32_t value, int piggyback)
{
    /* Nobody running "none" sends control packets; a non-zero value means mixed schemes. */
    if (value != 0 || !piggyback)
        st->counters.protocol_errors++;
}

static int none_on_retrieved(fc_state *st, uint32_t src, uint32_t npkts)
{
    st->counters.retrieved_packets += npkts;
    return 0;
}

static int none_next_ctrl(fc_state *st, fc_ctrl *out) { return 0; }

static const fc_counters *none_counters(const fc_state *st) { return &st->counters; }

static size_t none_state_bytes(const fc_state *st) { return sizeof *st; }

static int none_peer_view(const fc_state *st, uint32_t peer, fc_peer_view *out)
{
    /* Nothing is counted: report zeros so the conservation law holds trivially. */
    *out = (fc_peer_view){0, 0, 0, 0};
    return 0;
}

static int none_check(const fc_state *st, char *err, size_t errlen) { return 0; }

FC_DEFINE_ACQUIRE_PIGGYBACK(none)

const fc_ops fc_none_ops = {
    .name = "none",
    .mailbox_slots = none_mailbox_slots,
    .create = none_create,
    .destroy = none_destroy,
    .acquire = none_acquire,
    .piggyback_take = none_piggyback_take,
    .on_ctrl = none_on_ctrl,
    .on_retrieved = none_on_retrieved,
    .acquire_piggyback = none_acquire_piggyback,
    .next_ctrl = none_next_ctrl,
    .counters = none_counters,
    .state_bytes = none_state_bytes,
    .peer_view = none_peer_view,
    .check = none_check,
};
