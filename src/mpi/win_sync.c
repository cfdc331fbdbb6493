/* src/mpi/win_sync.c — RMA synchronization: fence, passive target (lock/unlock on the shared lock
 * words, or by request for a network target; lock_all, flush, sync) and general active target
 * (post/start/complete/wait/test). */
#include <stdlib.h>

#include "mpi/win_impl.h"

/* Every operation is complete when its call returns, so synchronization only has to order
 * memory (the unified model: the fences) and processes (barrier, lock words, PSCW messages). */

/* PSCW messages: zero bytes on the hidden communicator's own context, never the program's. */
enum { TAG_POST = 1, TAG_DONE = 2 };
static char pscw_byte;

#define sync_error(w, fn, ...) win_error(w, MPI_ERR_RMA_SYNC, fn, __VA_ARGS__)

int MPI_Win_fence(int assert, MPI_Win win)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Win_fence";
    WIN_CHECK(fn, win);
    if (!win_assert_ok(assert))
        return win_error(win, MPI_ERR_ASSERT, fn, "invalid assert %#x", (unsigned)assert);
    atomic_thread_fence(memory_order_seq_cst);
    int rc = mpi_coll_barrier(win->comm);
    atomic_thread_fence(memory_order_seq_cst);
    return rc == MPI_SUCCESS ? rc : win_error(win, rc, fn, "barrier failed");
}

/* ---- passive target ---- */

/* 0, or the MPI error class of a network target's refusal (raised by the caller). */
static int rw_lock(MPI_Win w, int t, int exclusive)
{
    if (w->peer[t].net)
        return win_net_lock(w, t, exclusive);
    _Atomic uint32_t *l = &w->ctl[t].rw;
    unsigned spins = 0;
    for (;;) {
        uint32_t v = atomic_load_explicit(l, memory_order_relaxed);
        if (exclusive ? v == 0 : !(v & WIN_WRITER)) {
            if (atomic_compare_exchange_weak_explicit(l, &v, exclusive ? WIN_WRITER : v + 1,
                                                      memory_order_acquire, memory_order_relaxed))
                return MPI_SUCCESS;
            continue;
        }
        win_spin(&spins);
    }
}

static int rw_unlock(MPI_Win w, int t, int state)
{
    if (w->peer[t].net && !(state & WL_NOCHECK))
        return win_net_unlock(w, t, state);
    if (state & WL_NOCHECK)
        atomic_thread_fence(memory_order_release);
    else if (state & WL_EXCL)
        atomic_store_explicit(&w->ctl[t].rw, 0, memory_order_release);
    else
        atomic_fetch_sub_explicit(&w->ctl[t].rw, 1, memory_order_release);
    return MPI_SUCCESS;
}

static int net_sync_error(MPI_Win w, int rc, const char *fn, int t)
{
    return win_error(w, rc, fn, "passive-target lock of rank %d over the network: %s", t,
                     win_net_reason());
}

static int lock_args(MPI_Win w, const char *fn, int rank, int assert)
{
    if (rank != MPI_PROC_NULL && (rank < 0 || rank >= w->size))
        return win_error(w, MPI_ERR_RANK, fn, "rank %d out of range (window of %d)", rank, w->size);
    if (!win_assert_ok(assert))
        return win_error(w, MPI_ERR_ASSERT, fn, "invalid assert %#x", (unsigned)assert);
    return MPI_SUCCESS;
}

int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Win_lock";
    WIN_CHECK(fn, win);
    win_net_poll(win);
    if (lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED)
        return win_error(win, MPI_ERR_LOCKTYPE, fn, "invalid lock type %d", lock_type);
    int rc = lock_args(win, fn, rank, assert);
    if (rc != MPI_SUCCESS || rank == MPI_PROC_NULL)
        return rc;
    if (win->lock_state[rank] != WL_NONE || win->lock_all)
        return sync_error(win, fn, "rank %d is already locked by this process", rank);
    int excl = lock_type == MPI_LOCK_EXCLUSIVE;
    if (assert & MPI_MODE_NOCHECK)
        atomic_thread_fence(memory_order_acquire);
    else if ((rc = rw_lock(win, rank, excl)) != MPI_SUCCESS)
        return net_sync_error(win, rc, fn, rank);
    win->lock_state[rank] = (uint8_t)((excl ? WL_EXCL : WL_SHARED) |
                                      (assert & MPI_MODE_NOCHECK ? WL_NOCHECK : 0));
    return MPI_SUCCESS;
}

int MPI_Win_unlock(int rank, MPI_Win win)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Win_unlock";
    WIN_CHECK(fn, win);
    win_net_poll(win);
    int rc = lock_args(win, fn, rank, 0);
    if (rc != MPI_SUCCESS || rank == MPI_PROC_NULL)
        return rc;
    if (win->lock_state[rank] == WL_NONE)
        return sync_error(win, fn, "rank %d is not locked by this process", rank);
    rc = rw_unlock(win, rank, win->lock_state[rank]);
    win->lock_state[rank] = WL_NONE;
    return rc == MPI_SUCCESS ? rc : net_sync_error(win, rc, fn, rank);
}

static int any_lock(MPI_Win w)
{
    for (int r = 0; r < w->size; r++)
        if (w->lock_state[r] != WL_NONE)
            return 1;
    return 0;
}

int MPI_Win_lock_all(int assert, MPI_Win win)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Win_lock_all";
    WIN_CHECK(fn, win);
    win_net_poll(win);
    int rc = lock_args(win, fn, MPI_PROC_NULL, assert);
    if (rc != MPI_SUCCESS)
        return rc;
    if (win->lock_all || any_lock(win))
        return sync_error(win, fn, "%s", win->lock_all ? "already in a lock_all epoch"
                                                         : "a lock is already held");
    /* Shared locks, taken in rank order: holders of shared locks never wait for one another. */
    if (assert & MPI_MODE_NOCHECK)
        atomic_thread_fence(memory_order_acquire);
    else
        for (int r = 0; r < win->size; r++)
            if ((rc = rw_lock(win, r, 0)) != MPI_SUCCESS) {
                for (int q = 0; q < r; q++)
                    rw_unlock(win, q, WL_SHARED);
                return net_sync_error(win, rc, fn, r);
            }
    win->lock_all = WL_SHARED | (assert & MPI_MODE_NOCHECK ? WL_NOCHECK : 0);
    return MPI_SUCCESS;
}

int MPI_Win_unlock_all(MPI_Win win)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Win_unlock_all";
    WIN_CHECK(fn, win);
    win_net_poll(win);
    if (!win->lock_all)
        return sync_error(win, fn, "%s", "no lock_all epoch to end");
    int rc = MPI_SUCCESS, bad = -1;
    for (int r = 0; r < win->size; r++)
        if (rw_unlock(win, r, win->lock_all) != MPI_SUCCESS && bad < 0)
            bad = r, rc = MPI_ERR_OTHER;
    win->lock_all = 0;
    return rc == MPI_SUCCESS ? rc : net_sync_error(win, rc, fn, bad);
}

/* The flushes: operations are complete already; what is left is the memory order. */
static int flush(const char *fn, int rank, int all, MPI_Win win)
{
    WIN_CHECK(fn, win);
    win_net_poll(win);
    int rc = lock_args(win, fn, rank, 0);
    if (rc != MPI_SUCCESS || (!all && rank == MPI_PROC_NULL))
        return rc;
    if (!win->lock_all && (all ? !any_lock(win) : win->lock_state[rank] == WL_NONE))
        return sync_error(win, fn, "no passive target epoch (rank %d)", rank);
    atomic_thread_fence(memory_order_seq_cst);
    return MPI_SUCCESS;
}

int MPI_Win_flush(int rank, MPI_Win win)
{
    MPI_ENTER();
    return flush("MPI_Win_flush", rank, 0, win);
}

int MPI_Win_flush_local(int rank, MPI_Win win)
{
    MPI_ENTER();
    return flush("MPI_Win_flush_local", rank, 0, win);
}

int MPI_Win_flush_all(MPI_Win win)
{
    MPI_ENTER();
    return flush("MPI_Win_flush_all", MPI_PROC_NULL, 1, win);
}

int MPI_Win_flush_local_all(MPI_Win win)
{
    MPI_ENTER();
    return flush("MPI_Win_flush_local_all", MPI_PROC_NULL, 1, win);
}

int MPI_Win_sync(MPI_Win win)
{
    MPI_ENTER();
    WIN_CHECK("MPI_Win_sync", win);
    win_net_poll(win);
    atomic_thread_fence(memory_order_seq_cst);
    return MPI_SUCCESS;
}

/* ---- general active target ---- */

/* The window ranks of group's members into *out (malloc'ed, count in *n): 0 or the raised error. */
static int group_ranks(MPI_Win w, const char *fn, MPI_Group group, int **out, int *n)
{
    if (!group_ok(group))
        return win_error(w, MPI_ERR_GROUP, fn, "invalid group");
    int *r = malloc((size_t)(group->size ? group->size : 1) * sizeof *r);
    if (r == NULL)
        return win_error(w, MPI_ERR_NO_MEM, fn, "out of memory");
    for (int i = 0; i < group->size; i++) {
        r[i] = w->comm->comm_of[group->world_of[i]];
        if (r[i] < 0) {
            free(r);
            return win_error(w, MPI_ERR_GROUP, fn, "group member %d is not in the window", i);
        }
    }
    *out = r;
    *n = group->size;
    return MPI_SUCCESS;
}

int MPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Win_post";
    WIN_CHECK(fn, win);
    if (!win_assert_ok(assert))
        return win_error(win, MPI_ERR_ASSERT, fn, "invalid assert %#x", (unsigned)assert);
    if (win->nexposure >= 0)
        return sync_error(win, fn, "%s", "an exposure epoch is already open");
    int *origins, n;
    int rc = group_ranks(win, fn, group, &origins, &n);
    if (rc != MPI_SUCCESS)
        return rc;
    p2p_req **reqs = malloc((size_t)(n ? n : 1) * sizeof *reqs);
    if (reqs == NULL) {
        free(origins);
        return win_error(win, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    /* The receives of the origins' completions are posted first, so MPI_Win_test only polls. */
    atomic_thread_fence(memory_order_seq_cst);
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        int job = win->comm->world_of[origins[i]];
        if (p2p_irecv(&pscw_byte, 0, job, TAG_DONE, win->comm->ctx, &reqs[i]) != P2P_OK)
            rc = MPI_ERR_NO_MEM, n = i;
    }
    for (int i = 0; i < n && rc == MPI_SUCCESS && !(assert & MPI_MODE_NOCHECK); i++)
        if (p2p_send(&pscw_byte, 0, win->comm->world_of[origins[i]], TAG_POST, win->comm->ctx,
                     P2P_MODE_STANDARD) != P2P_OK)
            rc = MPI_ERR_OTHER;
    free(origins);
    win->exposure = reqs;
    win->nexposure = n;
    return rc == MPI_SUCCESS ? rc : win_error(win, rc, fn, "cannot notify the origins");
}

int MPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Win_start";
    WIN_CHECK(fn, win);
    if (!win_assert_ok(assert))
        return win_error(win, MPI_ERR_ASSERT, fn, "invalid assert %#x", (unsigned)assert);
    if (win->naccess >= 0)
        return sync_error(win, fn, "%s", "an access epoch is already open");
    int rc = group_ranks(win, fn, group, &win->access, &win->naccess);
    if (rc != MPI_SUCCESS)
        return rc;
    /* MPI_MODE_NOCHECK: the program guarantees that the matching posts happened (and gave the
     * same assert, so they sent nothing). */
    for (int i = 0; i < win->naccess && !(assert & MPI_MODE_NOCHECK); i++)
        if (p2p_recv(&pscw_byte, 0, win->comm->world_of[win->access[i]], TAG_POST,
                     win->comm->ctx, NULL) != P2P_OK)
            return win_error(win, MPI_ERR_OTHER, fn, "waiting for rank %d's post failed",
                             win->access[i]);
    atomic_thread_fence(memory_order_seq_cst);
    return MPI_SUCCESS;
}

int MPI_Win_complete(MPI_Win win)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Win_complete";
    WIN_CHECK(fn, win);
    if (win->naccess < 0)
        return sync_error(win, fn, "%s", "no access epoch (MPI_Win_start) to complete");
    atomic_thread_fence(memory_order_seq_cst);
    int rc = MPI_SUCCESS;
    for (int i = 0; i < win->naccess; i++)
        if (p2p_send(&pscw_byte, 0, win->comm->world_of[win->access[i]], TAG_DONE,
                     win->comm->ctx, P2P_MODE_STANDARD) != P2P_OK)
            rc = MPI_ERR_OTHER;
    free(win->access);
    win->access = NULL;
    win->naccess = -1;
    return rc == MPI_SUCCESS ? rc : win_error(win, rc, fn, "cannot notify the targets");
}

/* Ends the exposure epoch once every origin completed: 1, else 0 (block: wait for them). */
static int exposure_end(MPI_Win w, int block)
{
    for (int i = 0; i < w->nexposure; i++) {
        if (block)
            p2p_wait(w->exposure[i]);
        else if (!w->exposure[i]->done)
            return 0;
    }
    for (int i = 0; i < w->nexposure; i++)
        p2p_req_free(w->exposure[i]);
    free(w->exposure);
    w->exposure = NULL;
    w->nexposure = -1;
    atomic_thread_fence(memory_order_seq_cst);
    return 1;
}

int MPI_Win_wait(MPI_Win win)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Win_wait";
    WIN_CHECK(fn, win);
    if (win->nexposure < 0)
        return sync_error(win, fn, "%s", "no exposure epoch (MPI_Win_post) to wait for");
    exposure_end(win, 1);
    return MPI_SUCCESS;
}

int MPI_Win_test(MPI_Win win, int *flag)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Win_test";
    WIN_CHECK(fn, win);
    if (flag == NULL)
        return win_error(win, MPI_ERR_ARG, fn, "flag is NULL");
    if (win->nexposure < 0)
        return sync_error(win, fn, "%s", "no exposure epoch (MPI_Win_post) to test");
    p2p_progress();
    *flag = exposure_end(win, 0);
    return MPI_SUCCESS;
}

CREDO_PMPI(MPI_Win_fence)
CREDO_PMPI(MPI_Win_lock)
CREDO_PMPI(MPI_Win_unlock)
CREDO_PMPI(MPI_Win_lock_all)
CREDO_PMPI(MPI_Win_unlock_all)
CREDO_PMPI(MPI_Win_flush)
CREDO_PMPI(MPI_Win_flush_all)
CREDO_PMPI(MPI_Win_flush_local)
CREDO_PMPI(MPI_Win_flush_local_all)
CREDO_PMPI(MPI_Win_sync)
CREDO_PMPI(MPI_Win_post)
CREDO_PMPI(MPI_Win_start)
CREDO_PMPI(MPI_Win_complete)
CREDO_PMPI(MPI_Win_wait)
CREDO_PMPI(MPI_Win_test)
