/* src/mpi/win_impl.h — internal layout of an MPI window (one-sided communication) and the helpers
 * the three win_*.c files share: checks, error reporting through the window's handler, locks. */
#ifndef CREDO_MPI_WIN_IMPL_H
#define CREDO_MPI_WIN_IMPL_H

#include <sched.h>
#include <stdatomic.h>
#include <sys/types.h>

#include "mpi/mpi_impl.h"

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
 * of the shared data segment for the allocate flavors; an address in the target's address
 * space, reached with Cross Memory Attach, for create; nothing for dynamic), its size, disp unit
 * and pid. */
typedef struct win_peer {
    uintptr_t base;
    MPI_Aint size;
    int disp_unit;
    pid_t pid;
} win_peer;

/* Passive-target state of this process towards one target (lock_state). */
enum { WL_NONE = 0, WL_SHARED = 1, WL_EXCL = 2, WL_NOCHECK = 4 };

typedef struct win_region {
    uintptr_t base;
    MPI_Aint size;
} win_region;

struct credo_win {
    uint32_t magic;
    int flavor;              /* MPI_WIN_FLAVOR_* */
    MPI_Comm comm;           /* hidden duplicate: PSCW messages, fence barriers, the group */
    int rank, size;
    void *base;              /* this process' memory (MPI_WIN_BASE) */
    MPI_Aint my_size;        /* MPI_WIN_SIZE */
    int my_disp_unit;        /* MPI_WIN_DISP_UNIT */
    win_peer *peer;          /* [size] */
    win_slot *ctl;           /* mapped control segment, [size] */
    void *data;              /* mapped data segment (allocate flavors) or NULL */
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

/* 0, or MPI_ERR_ASSERT if assert has bits beyond the MPI_MODE_* ones. */
static inline int win_assert_ok(int assert)
{
    return (assert & ~(MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE |
                       MPI_MODE_NOSUCCEED)) == 0;
}

#endif
