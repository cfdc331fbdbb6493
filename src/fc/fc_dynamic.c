/* src/fc/fc_dynamic.c — the dynamic credit scheme of thesis ch. 6: a static region of C slots per
 * sender plus a shared dynamic region lent to active senders (activity lists, monitoring, stealing). */
#include <assert.h>
#include <stdlib.h>

#include "fc/fc_impl.h"

/* Decisions (thesis sections and the notes' resolutions R1-R4) are in docs/FLOW_CONTROL.md. The
 * invariant every receiver-side event keeps, per sender s (notes 3.13, I1 with a bounded excess):
 *     sum(fifo[s]) == current[s] + retrieved[s] + 1 + excess[s],  every element >= 1,  excess < C
 * and for the whole receiver: sum(current) + available == data region, sum(intended) == data region. */

enum { LVL_HIGH, LVL_MEDIUM, LVL_LOW, LVL_NULL, NLISTS };

enum {
    F_BLOCKED = 1u << 0,    /* receiver side: a compulsory request to s is unanswered */
    F_REQ_WAIT = 1u << 1,   /* sender side: a request to s waits for a credit */
    F_RESP_WAIT = 1u << 2,  /* sender side: a response to s waits for a credit */
    F_REQ_READY = 1u << 3,  /* credit taken, request to s ready for next_ctrl */
    F_RESP_READY = 1u << 4, /* credit taken, response to s ready for next_ctrl */
    F_IN_CTRLQ = 1u << 5,
    F_IN_DEFERQ = 1u << 6,
    F_QUIET = 1u << 7,      /* receiver side: robbed, and no packet of s arrived or was released since */
};

/* Receiver-side state for one sender, plus this process' control flags towards that peer. One
 * 40-byte record keeps what an event touches in one cache line. */
typedef struct dyn_peer {
    uint32_t current;     /* credits granted: held by s, in flight, in the ring or held, or returning */
    uint32_t intended;    /* the quota s should converge to */
    uint32_t retrieved;   /* threshold counter: packets counted towards the head threshold */
    uint32_t piggybacked; /* credits piggybacked since the last threshold event */
    uint32_t pend_credit; /* credits decided and not yet handed out by next_ctrl */
    uint32_t resp_amount; /* amount carried by the ready response */
    uint32_t prev, next;  /* activity list links (UINT32_MAX = none) */
    uint16_t fifo_head;   /* index of current_threshold in this sender's FIFO */
    uint16_t excess;      /* sum(fifo) above current + retrieved + 1 (after a response, < C) */
    uint16_t events;      /* threshold events since the last monitoring point */
    uint8_t list;         /* physical list holding s */
    uint8_t flags;
} dyn_peer;

#define NONE UINT32_MAX

struct fc_state {
    uint32_t nranks, self, c; /* c = C = credit slots = static_slots */
    uint32_t data_region;     /* (nranks-1) * (S - C): static + dynamic region */
    uint32_t available;       /* ungranted data slots */
    uint32_t level_list[3];   /* physical list for HIGH, MEDIUM, LOW (rotated, never copied) */
    uint32_t head[NLISTS], tail[NLISTS], len[NLISTS];
    uint32_t ctrlq_head, ctrlq_count, deferq_head, deferq_count;
    fc_counters counters;
    uint32_t *credit; /* sender side: credits towards each receiver (hot path of acquire) */
    dyn_peer *peer;
    uint32_t *fifo;   /* (C+1) thresholds per sender */
    uint32_t *ctrlq;  /* peers with a control packet ready */
    uint32_t *deferq; /* senders owed a threshold event while the dynamic region was empty */
};

/* ---- activity lists -------------------------------------------------------------------------- */

static void list_remove(fc_state *st, uint32_t s)
{
    dyn_peer *p = &st->peer[s];
    uint32_t l = p->list;
    if (p->prev != NONE)
        st->peer[p->prev].next = p->next;
    else
        st->head[l] = p->next;
    if (p->next != NONE)
        st->peer[p->next].prev = p->prev;
    else
        st->tail[l] = p->prev;
    st->len[l]--;
}

static void list_push_front(fc_state *st, uint32_t l, uint32_t s)
{
    dyn_peer *p = &st->peer[s];
    p->list = (uint8_t)l;
    p->prev = NONE;
    p->next = st->head[l];
    if (st->head[l] != NONE)
        st->peer[st->head[l]].prev = s;
    else
        st->tail[l] = s;
    st->head[l] = s;
    st->len[l]++;
}

static void list_move_front(fc_state *st, uint32_t l, uint32_t s)
{
    list_remove(st, s);
    list_push_front(st, l, s);
}

static uint32_t level_of(const fc_state *st, uint32_t s)
{
    uint32_t l = st->peer[s].list;
    for (uint32_t v = 0; v < 3; v++)
        if (st->level_list[v] == l)
            return v;
    return LVL_NULL;
}

/* ---- queues of peers ------------------------------------------------------------------------- */

static void ctrlq_add(fc_state *st, uint32_t s)
{
    if (st->peer[s].flags & F_IN_CTRLQ)
        return;
    st->peer[s].flags |= F_IN_CTRLQ;
    st->ctrlq[(st->ctrlq_head + st->ctrlq_count) % st->nranks] = s;
    st->ctrlq_count++;
}

static void deferq_add(fc_state *st, uint32_t s)
{
    if (st->peer[s].flags & F_IN_DEFERQ)
        return;
    st->peer[s].flags |= F_IN_DEFERQ;
    st->deferq[(st->deferq_head + st->deferq_count) % st->nranks] = s;
    st->deferq_count++;
}

/* ---- the thresholds FIFO --------------------------------------------------------------------- */

/* The FIFO array is not part of the const-ness of the state record: check() reads it through a
 * const state, events write it. */
static inline uint32_t *fifo_of(const fc_state *st, uint32_t s) { return st->fifo + (size_t)s * (st->c + 1); }

static inline uint32_t fifo_head(const fc_state *st, uint32_t s) { return fifo_of(st, s)[st->peer[s].fifo_head]; }

/* Pops the head and pushes x (the FIFO is always full, so the new tail takes the head's place).
 * Excess left by a response is shed here, keeping every element >= 1. */
static void fifo_replace_head(fc_state *st, uint32_t s, uint32_t x)
{
    dyn_peer *p = &st->peer[s];
    if (p->excess && x > 1) {
        uint32_t d = p->excess < x - 1 ? p->excess : x - 1;
        x -= d;
        p->excess = (uint16_t)(p->excess - d);
    }
    fifo_of(st, s)[p->fifo_head] = x;
    p->fifo_head = (uint16_t)((p->fifo_head + 1) % (st->c + 1));
}

static int i1_holds(const fc_state *st, uint32_t s)
{
    const dyn_peer *p = &st->peer[s];
    uint64_t sum = 0;
    for (uint32_t k = 0; k <= st->c; k++) {
        uint32_t v = fifo_of(st, s)[k];
        if (v == 0)
            return 0;
        sum += v;
    }
    return sum == (uint64_t)p->current + p->retrieved + 1 + p->excess && p->excess < st->c;
}

/* ---- control packets that need a credit (thesis 6.1, 6.5.4) ---------------------------------- */

static void send_request(fc_state *st, uint32_t v)
{
    dyn_peer *p = &st->peer[v];
    if (st->credit[v]) {
        st->credit[v]--;
        p->flags |= F_REQ_READY;
        ctrlq_add(st, v);
    } else {
        p->flags |= F_REQ_WAIT;
    }
}

/* Amount computed when the response is sent (A19): everything above static_slots, then one credit
 * pays for the response packet (6.5.4), leaving static_slots - 1; the receiver returns that slot's
 * credit when it retrieves the response, so the sender settles at its static part. */
static void make_response(fc_state *st, uint32_t r)
{
    dyn_peer *p = &st->peer[r];
    uint32_t c = st->credit[r]; /* >= 1 here */
    uint32_t amount = c > st->c ? c - st->c : 0;
    st->credit[r] = c - amount - 1;
    p->resp_amount = amount;
    p->flags = (uint8_t)((p->flags & ~F_RESP_WAIT) | F_RESP_READY);
    ctrlq_add(st, r);
}

/* Queued requests and responses take the first credits that arrive (priority over data). */
static void flush_waiting(fc_state *st, uint32_t r)
{
    dyn_peer *p = &st->peer[r];
    if ((p->flags & F_REQ_WAIT) && st->credit[r]) {
        st->credit[r]--;
        p->flags = (uint8_t)((p->flags & ~F_REQ_WAIT) | F_REQ_READY);
        ctrlq_add(st, r);
    }
    if ((p->flags & F_RESP_WAIT) && st->credit[r])
        make_response(st, r);
}

/* ---- activity control (thesis 6.5.2, Fig. 6.2 and 6.3) --------------------------------------- */

static void steal_for(fc_state *st, uint32_t s)
{
    uint32_t low = st->level_list[LVL_LOW];
    if (st->len[low] == 0)
        return;
    uint32_t v = st->tail[low]; /* least recently promoted: the oldest activity */
    dyn_peer *ps = &st->peer[s], *pv = &st->peer[v];
    uint32_t diff = ps->intended > pv->intended ? ps->intended - pv->intended : pv->intended - ps->intended;
    uint32_t cred = diff / 2 > st->c + 1 ? diff / 2 : st->c + 1; /* Eq. 6.1 */
    /* A victim granted no more than its static part holds no dynamic credit: its intended quota
     * beyond that is only a promise, so all of it moves at once (no request is needed, and from
     * NULL the victim regains quota at its first monitoring point if it becomes active). */
    if (pv->current <= st->c)
        cred = pv->intended - st->c;
    /* A victim robbed before with no packet arrived (held or not) and none released since is idle.
     * When the free pool cannot pay what the robber is still owed (its intended quota above the
     * credits it was granted), the victim loses its whole dynamic quota, and a request (6.5.4)
     * below makes it return the credits it still holds, so they reach the active senders at once
     * instead of over several robberies. While the pool can pay, the victim's credits are not
     * needed yet: taking them would cost two control packets now and the victim's quota when it
     * sends again (the senders of an alltoall look quiet between their messages to one receiver;
     * docs/FLOW_CONTROL.md, section 4.4). */
    uint32_t owed = ps->intended > ps->current ? ps->intended - ps->current : 0;
    if ((pv->flags & F_QUIET) && st->available < owed)
        cred = pv->intended - st->c;
    if (cred > pv->intended - st->c)
        cred = pv->intended - st->c; /* never into the static part */
    ps->intended += cred;
    pv->intended -= cred;
    st->counters.credits_stolen += cred;
    if (pv->intended == st->c) {
        if (pv->current > pv->intended && !(pv->flags & F_BLOCKED)) {
            pv->flags |= F_BLOCKED;
            send_request(st, v);
        }
        list_move_front(st, LVL_NULL, v);
    } else {
        list_move_front(st, st->level_list[LVL_MEDIUM], v);
    }
    pv->flags |= F_QUIET;
}

static void monitoring_point(fc_state *st, uint32_t s)
{
    st->counters.monitoring_points++;
    uint32_t lvl = level_of(st, s);
    if (lvl == LVL_LOW) {
        list_move_front(st, st->level_list[LVL_MEDIUM], s);
    } else if (lvl == LVL_MEDIUM) {
        list_move_front(st, st->level_list[LVL_HIGH], s);
    } else { /* HIGH, or NULL treated like HIGH so a reclaimed sender regains credits fast */
        if (st->len[st->level_list[LVL_LOW]] == 0) {
            /* HIGH becomes MEDIUM, MEDIUM becomes LOW, the empty LOW is the new HIGH. */
            uint32_t old_low = st->level_list[LVL_LOW];
            st->level_list[LVL_LOW] = st->level_list[LVL_MEDIUM];
            st->level_list[LVL_MEDIUM] = st->level_list[LVL_HIGH];
            st->level_list[LVL_HIGH] = old_low;
        }
        list_move_front(st, st->level_list[LVL_HIGH], s);
        steal_for(st, s);
    }
}

/* Every (C+1)-th unblocked threshold event of s is a monitoring point (A13). */
static void count_event(fc_state *st, uint32_t s)
{
    dyn_peer *p = &st->peer[s];
    if (++p->events >= st->c + 1) {
        p->events = 0;
        monitoring_point(st, s);
    } else if (p->list == st->level_list[LVL_LOW]) {
        /* Between monitoring points an event still refreshes s within LOW, so the tail, where
         * victims are taken, is the LOW sender whose last activity is oldest. */
        list_move_front(st, p->list, s);
    }
}

static inline uint32_t next_threshold(const fc_state *st, const dyn_peer *p)
{
    return p->intended / (st->c + 1) + 1; /* Eq. 5.1 with the intended quota */
}

static void emit_credit(fc_state *st, uint32_t s, uint32_t k)
{
    st->peer[s].pend_credit += k;
    ctrlq_add(st, s);
}

/* Regular-way event (needs available >= 1). The pushed value is what was actually returned (R1);
 * the count above the popped head carries over (R2, '>=' comparison). */
static void regular_event(fc_state *st, uint32_t s)
{
    dyn_peer *p = &st->peer[s];
    uint32_t h = fifo_head(st, s);
    count_event(st, s);
    uint32_t t = next_threshold(st, p);
    uint32_t k = t < st->available ? t : st->available;
    st->available -= k;
    p->current += k;
    p->retrieved -= h;
    p->piggybacked = 0;
    fifo_replace_head(st, s, k);
    emit_credit(st, s, k);
}

/* Blocked flow (R4): one credit when s is below its static part, nothing otherwise; not counted
 * as activity. */
static void blocked_event(fc_state *st, uint32_t s)
{
    dyn_peer *p = &st->peer[s];
    uint32_t h = fifo_head(st, s);
    st->available--;
    p->current++;
    p->retrieved -= h;
    fifo_replace_head(st, s, 1);
    emit_credit(st, s, 1);
}

static inline int needs_event(const fc_state *st, uint32_t s)
{
    const dyn_peer *p = &st->peer[s];
    return p->retrieved >= fifo_head(st, s) && (!(p->flags & F_BLOCKED) || p->current < st->c);
}

/* Runs every threshold event s has reached; if the dynamic region is empty the event waits in the
 * deferred queue and takes the next slot that comes back (never an empty credit packet). */
static void service(fc_state *st, uint32_t s)
{
    while (needs_event(st, s)) {
        if (st->available == 0) {
            deferq_add(st, s);
            return;
        }
        if (st->peer[s].flags & F_BLOCKED)
            blocked_event(st, s);
        else
            regular_event(st, s);
    }
}

static void serve_deferred(fc_state *st)
{
    while (st->deferq_count && st->available) {
        uint32_t s = st->deferq[st->deferq_head];
        st->deferq_head = (st->deferq_head + 1) % st->nranks;
        st->deferq_count--;
        st->peer[s].flags &= (uint8_t)~F_IN_DEFERQ;
        service(st, s);
    }
}

#ifndef NDEBUG
#define DYN_ASSERT_I1(st, s) assert(i1_holds((st), (s)))
#else
#define DYN_ASSERT_I1(st, s) ((void)0)
#endif

/* ---- ops ------------------------------------------------------------------------------------- */

static uint32_t dyn_mailbox_slots(const fc_params *p) { return fc_ring_slots(p); }

static int dyn_create(const fc_params *p, fc_state **out, char *err, size_t errlen)
{
    if (fc_check_common("dynamic", p, err, errlen))
        return -1;
    uint32_t c = p->credit_slots;
    if (c < 1 || c > 255)
        return fc_fail(err, errlen,
                       "dynamic flow control: credit slots C (CREDO_CREDIT_SLOTS) must be in 1..255, got %u", c);
    if (p->slots_per_peer < 2 * c)
        return fc_fail(err, errlen,
                       "dynamic flow control: S = CREDO_SLOTS_PER_PEER = %u leaves no static region: each sender "
                       "needs C credit slots + C static slots, use S >= %u",
                       p->slots_per_peer, 2 * c);
    size_t n = p->nranks;
    size_t bytes = sizeof(fc_state) + n * sizeof(dyn_peer) + n * sizeof(uint32_t) * (1 + (c + 1) + 2);
    fc_state *st = calloc(1, bytes);
    if (!st)
        return fc_fail(err, errlen, "dynamic flow control: out of memory for %u peers", p->nranks);
    st->nranks = p->nranks;
    st->self = p->self;
    st->c = c;
    uint32_t senders = p->nranks - 1;
    st->data_region = senders * (p->slots_per_peer - c);
    st->available = senders * (p->slots_per_peer - 2 * c); /* the dynamic region */
    st->peer = (dyn_peer *)(st + 1);
    st->credit = (uint32_t *)(st->peer + n);
    st->fifo = st->credit + n;
    st->ctrlq = st->fifo + n * (c + 1);
    st->deferq = st->ctrlq + n;
    for (uint32_t l = 0; l < NLISTS; l++)
        st->head[l] = st->tail[l] = NONE;
    for (uint32_t v = 0; v < 3; v++)
        st->level_list[v] = v;
    /* All senders start in LOW by increasing rank: pushing in decreasing order leaves the lowest
     * rank at the head, so the first victims (taken at the tail) are the highest ranks. */
    for (uint32_t i = p->nranks; i-- > 0;) {
        dyn_peer *q = &st->peer[i];
        q->prev = q->next = NONE;
        st->credit[i] = i == p->self ? 0 : c;
        if (i == p->self)
            continue;
        q->current = c;
        q->intended = p->slots_per_peer - c; /* data region / senders */
        for (uint32_t k = 0; k <= c; k++)
            fifo_of(st, i)[k] = 1;
        list_push_front(st, LVL_LOW, i);
    }
    *out = st;
    return 0;
}

static void dyn_destroy(fc_state *st) { free(st); }

static uint32_t dyn_acquire(fc_state *st, uint32_t dest, uint32_t want)
{
    if (dest >= st->nranks || dest == st->self) {
        st->counters.protocol_errors++;
        return 0;
    }
    uint32_t have = st->credit[dest];
    uint32_t grant = want < have ? want : have;
    st->credit[dest] = have - grant;
    st->counters.data_packets_sent += grant;
    return grant;
}

/* Thesis 6.6: the piggyback way reaches the threshold at send time when retrieved + piggybacked
 * >= head (deficit: return the rest; excess: return nothing); otherwise an ordinary piggyback
 * returns the retrieved count. Both capped by available slots (A21) and by the 16-bit field. */
static uint32_t dyn_piggyback_take(fc_state *st, uint32_t s)
{
    if (s >= st->nranks || s == st->self)
        return 0;
    dyn_peer *p = &st->peer[s];
    if (p->flags & F_BLOCKED) /* A24: a blocked sender only gets the blocked flow's credits */
        return 0;
    uint32_t r = p->retrieved, pb = p->piggybacked, h = fifo_head(st, s);
    uint32_t k = 0;
    if ((uint64_t)r + pb >= h && (pb > 0 || st->available > 0)) {
        count_event(st, s);
        uint32_t t = next_threshold(st, p);
        if (t >= pb) {
            k = t - pb;
            if (k > st->available)
                k = st->available;
            if (k > FC_PIGGYBACK_MAX)
                k = FC_PIGGYBACK_MAX;
        }
        /* Push k + pb and carry the overshoot r + pb - h: this keeps I1 exact (R2) and is the
         * thesis' "push T_new" in the deficit case; in the excess case the thesis raises the
         * new head instead, the same sum one position earlier. */
        fifo_replace_head(st, s, k + pb);
        p->retrieved = r + pb - h;
        p->piggybacked = 0;
    } else if (r > 0 && st->available > 0) {
        k = r < st->available ? r : st->available;
        if (k > FC_PIGGYBACK_MAX)
            k = FC_PIGGYBACK_MAX;
        p->retrieved -= k;
        p->piggybacked += k;
    }
    st->available -= k;
    p->current += k;
    if (k) {
        st->counters.piggybacked_returns++;
        st->counters.piggybacked_credits += k;
    }
    service(st, s); /* the carry may already reach the next head */
    serve_deferred(st);
    DYN_ASSERT_I1(st, s);
    return k;
}

/* Subtracts a returned amount from the FIFO, head first, keeping every element >= 1 (R3). Taking
 * it from the head side only shortens the windows the sender's supply shrank by the same amount,
 * so the credit-region argument still holds; what cannot be taken becomes excess. */
static void fifo_give_back(fc_state *st, uint32_t s, uint32_t amount)
{
    dyn_peer *p = &st->peer[s];
    uint32_t *f = fifo_of(st, s);
    for (uint32_t k = 0; k <= st->c && amount; k++) {
        uint32_t *e = &f[(p->fifo_head + k) % (st->c + 1)];
        uint32_t d = *e - 1 < amount ? *e - 1 : amount;
        *e -= d;
        amount -= d;
    }
    p->excess = (uint16_t)(p->excess + amount);
}

static void dyn_on_ctrl(fc_state *st, uint32_t from, uint8_t kind, uint32_t value, int piggyback)
{
    if (from >= st->nranks || from == st->self) {
        st->counters.protocol_errors++;
        return;
    }
    dyn_peer *p = &st->peer[from];
    switch (kind) {
    case FC_CTRL_CREDIT: { /* sender side: credits back from receiver `from` */
        uint64_t c = (uint64_t)st->credit[from] + value;
        if (c > st->data_region) { /* more than any receiver can grant: clamp, count */
            st->counters.protocol_errors++;
            c = st->data_region;
        }
        st->credit[from] = (uint32_t)c;
        flush_waiting(st, from);
        break;
    }
    case FC_CTRL_REQUEST: /* sender side: receiver `from` wants its excess back */
        if (p->flags & (F_RESP_WAIT | F_RESP_READY)) {
            st->counters.protocol_errors++;
            break;
        }
        if (st->credit[from])
            make_response(st, from);
        else
            p->flags |= F_RESP_WAIT;
        break;
    case FC_CTRL_RESPONSE: /* receiver side: sender `from` gave back `value` credits */
        if (!(p->flags & F_BLOCKED) || value >= p->current) {
            /* Unasked, or more than granted (the response packet itself is still counted). */
            st->counters.protocol_errors++;
            break;
        }
        p->current -= value;
        st->available += value;
        p->flags &= (uint8_t)~F_BLOCKED;
        p->events = 0; /* A13: activity counted before it became a victim is stale */
        fifo_give_back(st, from, value);
        service(st, from); /* R3: re-run the check at once, a reclaimed sender may hold nothing */
        serve_deferred(st);
        DYN_ASSERT_I1(st, from);
        break;
    default:
        st->counters.protocol_errors++;
    }
}

static int dyn_on_retrieved(fc_state *st, uint32_t src, uint32_t npkts)
{
    if (src >= st->nranks || src == st->self) {
        st->counters.protocol_errors++;
        return st->ctrlq_count != 0;
    }
    dyn_peer *p = &st->peer[src];
    if (npkts > p->current) { /* more packets than credits granted: a peer bug, not ours */
        st->counters.protocol_errors++;
        npkts = p->current;
    }
    st->counters.retrieved_packets += npkts;
    if (npkts)
        p->flags &= (uint8_t)~F_QUIET;
    /* Slot management (6.5.1) then activity control per packet, so each event sees the slot
     * just freed in available_slots ("at least 1 credit"). */
    for (uint32_t k = 0; k < npkts; k++) {
        st->available++;
        p->retrieved++;
        p->current--;
        service(st, src);
    }
    serve_deferred(st);
    DYN_ASSERT_I1(st, src);
    return st->ctrlq_count != 0;
}

/* Activity only (fc.h): packets of src are held unexpected, so src is not idle even though nothing
 * of it was released. It clears the quiet mark and refreshes src within LOW like an event does, so
 * the victim taken at LOW's tail is an idle sender, not one whose messages wait unmatched. Only the
 * list order and a flag change, so I1 and the sums are untouched. */
static void dyn_on_arrived(fc_state *st, uint32_t src, uint32_t npkts)
{
    if (src >= st->nranks || src == st->self) {
        st->counters.protocol_errors++;
        return;
    }
    if (!npkts)
        return;
    dyn_peer *p = &st->peer[src];
    p->flags &= (uint8_t)~F_QUIET;
    if (p->list == st->level_list[LVL_LOW])
        list_move_front(st, p->list, src);
}

static int dyn_next_ctrl(fc_state *st, fc_ctrl *out)
{
    while (st->ctrlq_count) {
        uint32_t s = st->ctrlq[st->ctrlq_head];
        dyn_peer *p = &st->peer[s];
        out->peer = s;
        if (p->flags & F_REQ_READY) { /* requests first (thesis 6.5.4) */
            p->flags &= (uint8_t)~F_REQ_READY;
            out->kind = FC_CTRL_REQUEST;
            out->value = 0;
            st->counters.compulsory_requests++;
            return 1;
        }
        if (p->flags & F_RESP_READY) {
            p->flags &= (uint8_t)~F_RESP_READY;
            out->kind = FC_CTRL_RESPONSE;
            out->value = p->resp_amount;
            st->counters.compulsory_responses++;
            return 1;
        }
        if (p->pend_credit) {
            out->kind = FC_CTRL_CREDIT;
            out->value = p->pend_credit;
            p->pend_credit = 0;
            st->counters.credit_packets_sent++;
            return 1;
        }
        st->ctrlq_head = (st->ctrlq_head + 1) % st->nranks;
        st->ctrlq_count--;
        p->flags &= (uint8_t)~F_IN_CTRLQ;
    }
    return 0;
}

static const fc_counters *dyn_counters(const fc_state *st) { return &st->counters; }

static size_t dyn_state_bytes(const fc_state *st)
{
    return sizeof *st + (size_t)st->nranks * (sizeof(dyn_peer) + sizeof(uint32_t) * (1 + (st->c + 1) + 2));
}

static int dyn_peer_view(const fc_state *st, uint32_t peer, fc_peer_view *out)
{
    if (peer >= st->nranks)
        return -1;
    const dyn_peer *p = &st->peer[peer];
    out->credits = st->credit[peer];
    /* Released slots go back to the pool, not to the sender: only decided, unsent credits are owed. */
    out->owed = p->pend_credit;
    out->granted = p->current;
    out->intended = p->intended;
    return 0;
}

static int dyn_check(const fc_state *st, char *err, size_t errlen)
{
    uint64_t sum_cur = st->available, sum_int = 0, in_lists = 0;
    for (uint32_t s = 0; s < st->nranks; s++) {
        if (s == st->self)
            continue;
        const dyn_peer *p = &st->peer[s];
        if (!i1_holds(st, s)) {
            uint64_t sum = 0;
            for (uint32_t k = 0; k <= st->c; k++)
                sum += fifo_of(st, s)[k];
            return fc_fail(err, errlen,
                           "dynamic: I1 broken for sender %u: fifo sum %llu, current %u + retrieved %u + 1 + "
                           "excess %u",
                           s, (unsigned long long)sum, p->current, p->retrieved, p->excess);
        }
        if (p->intended < st->c)
            return fc_fail(err, errlen, "dynamic: intended quota %u of sender %u below static part %u", p->intended,
                           s, st->c);
        if ((p->flags & F_BLOCKED) && p->list != LVL_NULL)
            return fc_fail(err, errlen, "dynamic: blocked sender %u is not in the NULL list", s);
        sum_cur += p->current;
        sum_int += p->intended;
    }
    if (sum_cur != st->data_region)
        return fc_fail(err, errlen, "dynamic: granted + available = %llu, data region %u", (unsigned long long)sum_cur,
                       st->data_region);
    if (sum_int != st->data_region)
        return fc_fail(err, errlen, "dynamic: intended quotas sum to %llu, data region %u",
                       (unsigned long long)sum_int, st->data_region);
    for (uint32_t l = 0; l < NLISTS; l++) {
        uint32_t cnt = 0;
        for (uint32_t s = st->head[l]; s != NONE; s = st->peer[s].next) {
            if (st->peer[s].list != l || ++cnt > st->nranks)
                return fc_fail(err, errlen, "dynamic: activity list %u is corrupt", l);
        }
        if (cnt != st->len[l])
            return fc_fail(err, errlen, "dynamic: activity list %u holds %u, length says %u", l, cnt, st->len[l]);
        in_lists += cnt;
    }
    if (in_lists != st->nranks - 1u)
        return fc_fail(err, errlen, "dynamic: %llu senders in activity lists, expected %u",
                       (unsigned long long)in_lists, st->nranks - 1u);
    return 0;
}

FC_DEFINE_ACQUIRE_PIGGYBACK(dyn)

const fc_ops fc_dynamic_ops = {
    .name = "dynamic",
    .mailbox_slots = dyn_mailbox_slots,
    .create = dyn_create,
    .destroy = dyn_destroy,
    .acquire = dyn_acquire,
    .piggyback_take = dyn_piggyback_take,
    .on_ctrl = dyn_on_ctrl,
    .on_retrieved = dyn_on_retrieved,
    .acquire_piggyback = dyn_acquire_piggyback,
    .next_ctrl = dyn_next_ctrl,
    .counters = dyn_counters,
    .state_bytes = dyn_state_bytes,
    .peer_view = dyn_peer_view,
    .check = dyn_check,
    .on_arrived = dyn_on_arrived,
};
