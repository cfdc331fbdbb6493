/* src/fc/fc_impl.h — helpers shared by the scheme implementations (not part of the fc.h contract):
 * mailbox sizing and the parameter checks every scheme starts with. */
#ifndef CREDO_FC_IMPL_H
#define CREDO_FC_IMPL_H

#include <stdarg.h>
#include <stdio.h>

#include "fc/fc.h"

/* (nranks-1)*S slots, at least one share of S so a 1-rank job still has a ring; saturates
 * instead of wrapping so an absurd S is caught by fc_check_common, not silently shrunk. */
static inline uint64_t fc_ring_slots64(const fc_params *p)
{
    uint64_t senders = p->nranks > 1 ? p->nranks - 1 : 1;
    return senders * p->slots_per_peer;
}

static inline uint32_t fc_ring_slots(const fc_params *p)
{
    uint64_t s = fc_ring_slots64(p);
    return s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
}

static inline int fc_fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* A scheme's acquire_piggyback (fc.h), composed of its own functions: direct calls the compiler
 * inlines. `prefix` names the scheme's functions (prefix##_acquire, prefix##_piggyback_take). */
#define FC_DEFINE_ACQUIRE_PIGGYBACK(prefix)                                                        \
    static uint32_t prefix##_acquire_piggyback(fc_state *st, uint32_t dest, uint32_t want,         \
                                               uint32_t *piggy)                                    \
    {                                                                                              \
        uint32_t got = prefix##_acquire(st, dest, want);                                           \
        *piggy = got ? prefix##_piggyback_take(st, dest) : 0;                                      \
        return got;                                                                                \
    }

/* Checks that hold for every scheme; 0 or -1 with a one-line reason in err. */
static inline int fc_check_common(const char *scheme, const fc_params *p, char *err, size_t errlen)
{
    if (!p)
        return fc_fail(err, errlen, "%s flow control: no parameters given", scheme);
    if (p->nranks == 0)
        return fc_fail(err, errlen, "%s flow control: nranks must be >= 1", scheme);
    if (p->self >= p->nranks)
        return fc_fail(err, errlen, "%s flow control: rank %u out of range for %u ranks", scheme,
                       p->self, p->nranks);
    if (p->slots_per_peer == 0)
        return fc_fail(err, errlen, "%s flow control: slots per peer (CREDO_SLOTS_PER_PEER) must be >= 1",
                       scheme);
    if (fc_ring_slots64(p) > (uint64_t)INT32_MAX)
        return fc_fail(err, errlen,
                       "%s flow control: mailbox of %u peers x %u slots is too large (max %d slots)",
                       scheme, p->nranks > 1 ? p->nranks - 1 : 1, p->slots_per_peer, INT32_MAX);
    return 0;
}

#endif
