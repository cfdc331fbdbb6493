/* src/mpi/win_impl.h — internal layout of an MPI window (one-sided communication) and the helpers
 * the win_*.c files share: checks, error reporting through the window's handler, locks, the
 * network path's entry points (win_net.c). */
#ifndef CREDO_MPI_WIN_IMPL_H
#define CREDO_MPI_WIN_IMPL_H

#include <sched.h>
#include <stdatomic.h>
#include <sys/types.h>

#include "mpi/mpi_impl.h"
#include "xport/ofi.h"

#define WIN_MAGIC 0x57696e21u

/* One cache line per rank of the window in the shared control segment: the lock word of
 * MPI_Win_lock (WIN_WRITER bit | count of shared holders) and the spinlock that makes accumulate
 * operations on that rank's memory element-wise atomic. */
#define WIN_WRITER 0x80000000u
typedef struct win_slot {
    _Atomic uint32_t rw;
    _Atomic uint32_t acc;
    char pad[56];
} win_slot;

/* What an origin knows of each target: where its memory is (a pointer into this process' mapping
 * of its node's shared data segment for the allocate flavors; an address in the target's address
 * space, reached with Cross Memory Attach, for create; nothing for dynamic), its size, disp unit
 * and pid. A target reached over the network (net: p2p's transport to it is the network, and the
 * window is not MPI_Win_allocate_shared's) is written and read with RMA at (raddr, key) of its
 * registered memory, and everything else goes to it as a request it serves (win_net.c). */
typedef struct win_peer {
    uintptr_t base;
    MPI_Aint size;
    int disp_unit;
    pid_t pid;
    int net;
    uint64_t key, raddr;
} win_peer;

/* Passive-target state of this process towards one target (lock_state). */
enum { WL_NONE = 0, WL_SHARED = 1, WL_EXCL = 2, WL_NOCHECK = 4 };

typedef struct win_region {
    uintptr_t base;
    MPI_Aint size;
    xofi_win_mr *mr; /* registered for network origins (NULL without any, or for size 0) */
    uint64_t key, raddr;
} win_region;

/* A network origin's knowledge of a dynamic target's attached regions, looked up on demand
 * (win_net.c): RMA reaches [base, base + size) of the target through (raddr, key). */
enum { WIN_DYN_CACHE = 8 };
typedef struct win_dyn {
    struct {
        uint64_t base, size, key, raddr;
    } e[WIN_DYN_CACHE];
    int n, next;
} win_dyn;

struct credo_win {
    uint32_t magic;
    int flavor;              /* MPI_WIN_FLAVOR_* */
    MPI_Comm comm;           /* hidden duplicate: PSCW messages, fence barriers, the group */
    int rank, size;
    void *base;              /* this process' memory (MPI_WIN_BASE) */
    MPI_Aint my_size;        /* MPI_WIN_SIZE */
    int my_disp_unit;        /* MPI_WIN_DISP_UNIT */
    win_peer *peer;          /* [size] */
    win_slot *ctl;           /* this node's control segment, [size]; only this node's ranks' slots used */
    void *data;              /* this node's data segment (allocate flavors) or NULL */
    size_t data_len;
    uint8_t *lock_state;     /* [size] WL_* */
    int lock_all;            /* in a lock_all epoch; WL_NOCHECK if it skipped the locks */
    int *access;             /* PSCW: targets of the current access epoch (window ranks) */
    int naccess;             /* -1: no access epoch */
    p2p_req **exposure;      /* PSCW: one receive per origin of the current exposure epoch */
    int nexposure;           /* -1: no exposure epoch */
    win_region *regions;     /* dynamic: attached memory */
    int nregions;
    void *scratch[3];        /* win_ops.c's staging buffers, kept between calls (WS_*) */
    size_t scratch_len[3];
    /* The network path (win_net.c): peers reached over the network, this rank's registration of
     * its memory, the listening receive for their requests and its buffer, the origin's sequence
     * number of requests, and the passive-target locks network origins hold on our lock word. */
    int nnet;
    xofi_win_mr *mr;
    p2p_req *am_listen;
    unsigned char *am_buf;
    int closing;
    uint32_t am_seq;
    uint8_t *remote_held;    /* [size] WL_* per origin */
    win_dyn *dyn;            /* [size], dynamic windows with network peers: the regions looked up */
    xofi_win_mr **retired;   /* registrations of detached regions, kept until MPI_Win_free */
    int nretired;
    uint64_t net_ops;        /* operations this origin sent over the network (requests + RMA) */
    MPI_Errhandler errh;
    char name[MPI_MAX_OBJECT_NAME];
    struct credo_attr *attrs; /* cached user attributes (attr.c) */
};

static inline int win_ok(MPI_Win w)
{
    return likely(mpi_handle_live(w, HK_WIN)) && likely(w->magic == WIN_MAGIC);
}

/* Reports `code` raised in `fn` through win's error handler (the world's if win is not valid).
 * Returns the code when the handler returns. */
int win_error(MPI_Win win, int code, const char *fn, const char *fmt, ...)
    __attribute__((cold, format(printf, 4, 5)));

/* For MPI_Win_get_attr (attr.c): 1 and *(void **)attribute_val set if k is one of the five
 * predefined window keys, else 0. */
int win_predefined_attr(MPI_Win win, int k, void *attribute_val);
/* MPI_Win_free's deletion of the user attributes (attr.c): 0 or the first callback's error. */
int mpi_attr_win_free(MPI_Win win);

#define WIN_CHECK(fn, win)                                                                         \
    do {                                                                                           \
        if (!MPI_READY())                                                                          \
            return mpi_not_ready(fn);                                                              \
        if (!win_ok(win))                                                                          \
            return win_error(NULL, MPI_ERR_WIN, fn, "invalid window");                             \
    } while (0)

/* Every wait on another process' lock word: keep the engine moving (our own mailbox must drain
 * for the holder's sends to finish) and give the core away after a few spins, since ranks often
 * outnumber cores. */
static inline void win_spin(unsigned *spins)
{
    p2p_progress();
    if (++*spins >= 16) {
        *spins = 0;
        sched_yield();
    }
}

static inline void win_acc_lock(MPI_Win w, int t)
{
    unsigned spins = 0;
    uint32_t z = 0;
    while (!atomic_compare_exchange_weak_explicit(&w->ctl[t].acc, &z, 1, memory_order_acquire,
                                                  memory_order_relaxed)) {
        z = 0;
        win_spin(&spins);
    }
}

static inline void win_acc_unlock(MPI_Win w, int t)
{
    atomic_store_explicit(&w->ctl[t].acc, 0, memory_order_release);
}

/* ---- the network path (win_net.c) ----
 * Requests a target serves for a network origin, on the hidden communicator's context. */
enum { WN_PUT = 1, WN_GET, WN_ACC, WN_GACC, WN_CAS, WN_LOCK, WN_UNLOCK, WN_DYNQ, WN_KIND_END };

/* Starts serving network origins' requests (window creation, once w->comm exists); stops it
 * (MPI_Win_free, after its barrier). 0 or an MPI error class. */
int win_net_listen(MPI_Win w);
void win_net_stop(MPI_Win w);
/* One request to network target t, answered before it returns: kind WN_*, op the accumulate op
 * (NULL for the others), data/dlen the packed operand (CAS: origin value then compare value),
 * count elements of tdt at target displacement disp (an absolute address for dynamic windows),
 * result/rlen the packed bytes fetched (GET, GACC, CAS), lock the lock type (LOCK, UNLOCK);
 * *granted: the lock was taken. 0 or an MPI error class, raised by the caller. */
int win_net_request(MPI_Win w, int t, int kind, MPI_Op op, const void *data, size_t dlen, int count,
                    MPI_Datatype tdt, MPI_Aint disp, void *result, size_t rlen, int lock,
                    int *granted);
/* Put (write = 1) or Get of count elements of tdt at byte offset off of network target t's
 * window with RMA on its registered memory, packed the origin's side. 0, MPI_ERR_UNSUPPORTED_
 * OPERATION when the provider cannot or the type would make many small pieces (the caller then
 * sends a request), or an MPI error class. */
int win_net_rma(MPI_Win w, int t, int write, void *packed, int count, MPI_Datatype tdt, MPI_Aint off);
/* The same on a dynamic window (addr: the target's absolute address): RMA through the key of the
 * attached region that holds the footprint, looked up on demand and cached; MPI_ERR_UNSUPPORTED_
 * OPERATION when no region holds it (the request path then reports the range error) or keys cannot
 * be cached on this provider. */
int win_net_rma_dyn(MPI_Win w, int t, int write, void *packed, int count, MPI_Datatype tdt,
                    MPI_Aint addr);
/* Why the last network operation of this process failed (for the error message). */
const char *win_net_reason(void);
/* The passive-target lock of network target t taken (retrying while it is held) / given back. */
int win_net_lock(MPI_Win w, int t, int exclusive);
int win_net_unlock(MPI_Win w, int t, int state);

/* Every RMA and synchronization call of a window with network peers drives the engine once: a
 * network origin's RMA on our memory and its requests need this process' progress (the provider
 * moves data in our calls), and a program may spin on calls that never wait for anything, such
 * as a Compare_and_swap on its own memory, while a peer's operation on us is in flight. */
static inline void win_net_poll(MPI_Win w)
{
    if (w->nnet > 0)
        p2p_progress();
}

/* Shared with win_net.c's target side (win_ops.c). */
int win_apply_packed(MPI_Op op, const void *in, void *inout, size_t bytes, int basic,
                     size_t elem_size);
/* The accumulate lock of this rank's own memory, taken from a completion hook (inside p2p's
 * progress, which must not be re-entered: it only yields while the holder finishes). */
static inline void win_acc_lock_hook(MPI_Win w, int t)
{
    uint32_t z = 0;
    /* acquire: the holder's updates of the memory happen before ours */
    while (!atomic_compare_exchange_weak_explicit(&w->ctl[t].acc, &z, 1, memory_order_acquire,
                                                  memory_order_relaxed)) {
        z = 0;
        sched_yield();
    }
}

/* 0, or MPI_ERR_ASSERT if assert has bits beyond the MPI_MODE_* ones. */
static inline int win_assert_ok(int assert)
{
    return (assert & ~(MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE |
                       MPI_MODE_NOSUCCEED)) == 0;
}

#endif
