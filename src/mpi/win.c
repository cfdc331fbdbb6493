/* src/mpi/win.c — MPI windows: creation of the four flavors (per-node shared control and data
 * segments, CMA probe, network registration and key exchange), Win_free, shared_query,
 * attach/detach, names, info, error handlers, attributes. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/core.h"
#include "credo/stats.h"
#include "mpi/win_impl.h"

int win_error(MPI_Win win, int code, const char *fn, const char *fmt, ...)
{
    va_list ap;
    if (!win_ok(win)) {
        char msg[512];
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        return mpi_error(NULL, code, fn, "%s", msg);
    }
    MPI_Errhandler h = win->errh;
    if (h->kind == ERRH_RETURN)
        return code;
    if (h->kind == ERRH_USER) {
        /* A window handler is stored in the communicator handler's slot (same struct, so that
         * MPI_Errhandler_free works on both); cast back to the type it was created with. */
        MPI_Win w = win;
        int e = code;
        ((MPI_Win_errhandler_function *)(void (*)(void))h->fn)(&w, &e);
        return code;
    }
    va_start(ap, fmt);
    mpi_error_abort(code, fn, fmt, ap);
}

/* ---- creation ---- */

/* MPI_WIN_MODEL of every window: one copy of the memory, the origin writes it at the call. Not
 * const: the attribute hands out a plain pointer, and a program that writes through it must not
 * fault. */
static int win_model = MPI_WIN_UNIFIED;

/* Per-rank record of the creation allgather, in ints (64-bit values as two halves). */
enum { X_CTX, X_DU, X_SIZE, X_BASE = X_SIZE + 2, X_N = X_BASE + 2 };
/* The second record, once memory exists: the status, and the registration network peers use. */
enum { Y_ST, Y_KEY, Y_RADDR = Y_KEY + 2, Y_N = Y_RADDR + 2 };
enum { ST_OK = 0, ST_NOCMA = 1, ST_NOREG = 2, ST_SHM = 3 };

/* Whether p2p reaches job rank `job` over the network transport (credo_peer_transport: per peer,
 * the same choice p2p made; CREDO_XPORT=ofi makes every peer a network one, even on this node). */
static int peer_is_net(int job)
{
    char name[8];
    return credo_peer_transport(job, name, sizeof name) == 0 && strcmp(name, "ofi") == 0;
}

static void put64(int *p, uint64_t v)
{
    p[0] = (int)(uint32_t)v;
    p[1] = (int)(uint32_t)(v >> 32);
}

static uint64_t get64(const int *p)
{
    return (uint64_t)(uint32_t)p[0] | (uint64_t)(uint32_t)p[1] << 32;
}

/* The standard's defaults of the two hints with one (MPI 3.1 §11.2.1), which MPI_Win_get_info
 * reports until the program sets them. */
static int win_default_hints(MPI_Comm c)
{
    MPI_Info d;
    if (PMPI_Info_create(&d) != MPI_SUCCESS)
        return MPI_ERR_NO_MEM;
    int rc = PMPI_Info_set(d, "accumulate_ordering", "rar,raw,war,waw");
    if (rc == MPI_SUCCESS)
        rc = PMPI_Info_set(d, "accumulate_ops", "same_op_no_op");
    if (rc == MPI_SUCCESS)
        rc = mpi_comm_hints_merge(c, d);
    PMPI_Info_free(&d);
    return rc;
}

static void win_destroy(MPI_Win w)
{
    win_net_stop(w);
    if (w->mr != NULL)
        xofi_win_dereg(w->mr);
    for (int i = 0; i < w->nregions; i++)
        if (w->regions[i].mr != NULL)
            xofi_win_dereg(w->regions[i].mr);
    for (int i = 0; i < w->nretired; i++)
        xofi_win_dereg(w->retired[i]);
    free(w->retired);
    free(w->dyn);
    free(w->remote_held);
    free(w->am_buf);
    if (w->ctl != NULL)
        munmap(w->ctl, (size_t)w->size * sizeof(win_slot));
    if (w->data != NULL)
        munmap(w->data, w->data_len);
    if (w->comm != NULL)
        mpi_comm_release(w->comm);
    if (w->errh != NULL && w->errh->kind == ERRH_USER && --w->errh->refcount == 0) {
        w->errh->magic = DEAD_MAGIC;
        mpi_handle_del(w->errh);
        free(w->errh);
    }
    free(w->peer);
    free(w->lock_state);
    free(w->access);
    free(w->exposure);
    free(w->regions);
    for (int i = 0; i < 3; i++)
        free(w->scratch[i]);
    w->magic = DEAD_MAGIC;
    mpi_handle_del(w);
    free(w);
}

/* Shared by the four creation calls (collective over comm). For the allocate flavors base is
 * ignored and *baseptr receives this rank's part of the data segment. */
static int win_setup(const char *fn, MPI_Comm comm, int flavor, void *base, MPI_Aint size,
                     int disp_unit, MPI_Info info, void *baseptr, MPI_Win *win)
{
    COMM_CHECK(fn, comm);
    INTRA_CHECK(fn, comm);
    if (win == NULL)
        return mpi_error(comm, MPI_ERR_ARG, fn, "win is NULL");
    if (size < 0)
        return mpi_error(comm, MPI_ERR_SIZE, fn, "negative size %ld", (long)size);
    if (disp_unit <= 0)
        return mpi_error(comm, MPI_ERR_DISP, fn, "disp_unit %d is not positive", disp_unit);
    if (info != MPI_INFO_NULL && !mpi_info_ok(info))
        return mpi_error(comm, MPI_ERR_INFO, fn, "invalid info");
    int shm = flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED;
    if (shm && baseptr == NULL)
        return mpi_error(comm, MPI_ERR_ARG, fn, "baseptr is NULL");
    *win = MPI_WIN_NULL;
    int n = comm->size;
    struct credo_win *w = calloc(1, sizeof *w);
    int *all = malloc((size_t)n * X_N * sizeof(int));
    if (w == NULL || all == NULL ||
        (w->peer = calloc((size_t)n, sizeof *w->peer)) == NULL ||
        (w->lock_state = calloc((size_t)n, 1)) == NULL) {
        free(all);
        if (w != NULL)
            win_destroy(w);
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    w->magic = WIN_MAGIC;
    mpi_handle_add(w, HK_WIN);
    w->flavor = flavor;
    w->rank = comm->rank;
    w->size = n;
    w->naccess = w->nexposure = -1;
    w->errh = MPI_ERRORS_ARE_FATAL; /* MPI 3.1 §8.3: the default for windows */

    uint32_t ctx;
    size_t total;
    int rc;
    int mine[X_N];
    mine[X_CTX] = mpi_ctx_propose(comm->rank == 0);
    mine[X_DU] = disp_unit;
    put64(mine + X_SIZE, (uint64_t)size);
    put64(mine + X_BASE, (uint64_t)(uintptr_t)base);
    rc = mpi_coll_allgather_int(comm, mine, X_N, all);
    if (rc != MPI_SUCCESS) {
        free(all);
        win_destroy(w);
        return mpi_error(comm, rc, fn, "exchange of window sizes failed");
    }
    ctx = 0;
    total = 0;
    /* This node's ranks share a control segment (and, allocate flavors, a data segment) made by
     * the lowest of them, the lead; the others are reached over the network. */
    int my_node = p2p_node_of(comm->world_of[comm->rank]), lead = -1, shm_peers = 0, spans = -1;
    for (int r = 0; r < n; r++) {
        const int *a = all + (size_t)r * X_N;
        if ((uint32_t)a[X_CTX] > ctx)
            ctx = (uint32_t)a[X_CTX];
        w->peer[r] = (win_peer){(uintptr_t)get64(a + X_BASE), (MPI_Aint)get64(a + X_SIZE),
                                a[X_DU], (pid_t)p2p_pid(comm->world_of[r]), 0, 0, 0};
        int here = p2p_node_of(comm->world_of[r]) == my_node;
        if (!here && spans < 0)
            spans = r;
        if (here && lead < 0)
            lead = r;
        if (r != comm->rank && flavor != MPI_WIN_FLAVOR_SHARED &&
            peer_is_net(comm->world_of[r])) {
            w->peer[r].net = 1;
            w->peer[r].base = 0; /* an offset in its registration, from the key exchange */
            w->nnet++;
        } else if (r != comm->rank) {
            shm_peers++;
        }
        if (shm && here) {
            /* Each rank's part starts on its own cache line; base is its offset for now. */
            w->peer[r].base = total;
            total += ((size_t)w->peer[r].size + 63) & ~(size_t)63;
        }
    }
    /* MPI_Win_allocate_shared's memory is load/store memory of every member: one node only.
     * Nodes differ at every member or at none, so all members return this error together. */
    if (spans >= 0 && (flavor == MPI_WIN_FLAVOR_SHARED || !w->peer[spans].net)) {
        free(all);
        win_destroy(w);
        return mpi_error(comm, flavor == MPI_WIN_FLAVOR_SHARED ? MPI_ERR_RMA_SHARED
                                                                : MPI_ERR_UNSUPPORTED_OPERATION,
                         fn, "rank %d of the communicator runs on another node%s", spans,
                         flavor == MPI_WIN_FLAVOR_SHARED
                             ? ": MPI_Win_allocate_shared needs memory all members can load and store"
                             : ", and is not reached over the network");
    }
    mpi_ctx_settle(ctx, 2);
    w->comm = mpi_comm_hidden(comm, ctx);
    if (w->comm == NULL || win_default_hints(w->comm) != MPI_SUCCESS ||
        mpi_comm_hints_merge(w->comm, info) != MPI_SUCCESS) {
        free(all);
        win_destroy(w);
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    }

    /* Rank 0 creates the segments, the others map them after a barrier, and once everybody has
     * reported (the status allgather) rank 0 unlinks the names: nothing stays in /dev/shm. The
     * names carry the job, the job rank of rank 0 and the context id, which that process never
     * uses twice, so windows created at once on disjoint communicators cannot collide. */
    char ctl_name[256], data_name[256];
    snprintf(ctl_name, sizeof ctl_name, "/credo.%s.win.%d.%u.ctl", credo_rt.jobid,
             comm->world_of[lead], ctx);
    snprintf(data_name, sizeof data_name, "/credo.%s.win.%d.%u.data", credo_rt.jobid,
             comm->world_of[lead], ctx);
    size_t ctl_len = (size_t)n * sizeof(win_slot);
    int st = ST_OK, err = 0;
    if (w->rank == lead) {
        w->ctl = mpi_shm_map(ctl_name, ctl_len, 1);
        if (w->ctl != NULL && total > 0)
            w->data = mpi_shm_map(data_name, total, 1);
        if (w->ctl == NULL || (total > 0 && w->data == NULL))
            st = ST_SHM, err = errno;
    }
    rc = mpi_coll_barrier(w->comm);
    if (rc == MPI_SUCCESS && w->rank != lead) {
        w->ctl = mpi_shm_map(ctl_name, ctl_len, 0);
        if (w->ctl != NULL && total > 0)
            w->data = mpi_shm_map(data_name, total, 0);
        if (w->ctl == NULL || (total > 0 && w->data == NULL))
            st = ST_SHM, err = errno;
    }
    w->data_len = total;
    /* Windows on user memory are reached with process_vm_readv/writev: the runtime probed at
     * start-up whether the kernel allows it (CREDO_CMA=0: never). */
    if (!shm && shm_peers > 0 && st == ST_OK && !p2p_cma_ok())
        st = ST_NOCMA;
    /* Network peers write and read this rank's memory through a registration of it (dynamic
     * windows: of each attached region, at MPI_Win_attach). */
    void *mine_base = shm ? (void *)((uintptr_t)w->data + w->peer[w->rank].base) : base;
    uint64_t key = 0, raddr = 0;
    if (st == ST_OK && w->nnet > 0 && flavor != MPI_WIN_FLAVOR_DYNAMIC && size > 0 &&
        xofi_win_reg(mine_base, (size_t)size, &w->mr, &key, &raddr) != 0)
        st = ST_NOREG;
    if (st == ST_OK && w->nnet > 0 &&
        ((w->remote_held = calloc((size_t)n, 1)) == NULL ||
         (flavor == MPI_WIN_FLAVOR_DYNAMIC && (w->dyn = calloc((size_t)n, sizeof *w->dyn)) == NULL) ||
         win_net_listen(w) != MPI_SUCCESS))
        st = ST_SHM, err = ENOMEM;
    int worst = st;
    int yr[Y_N], *yall = malloc((size_t)n * Y_N * sizeof(int));
    yr[Y_ST] = st;
    put64(yr + Y_KEY, key);
    put64(yr + Y_RADDR, raddr);
    if (yall == NULL && rc == MPI_SUCCESS)
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = mpi_coll_allgather_int(w->comm, yr, Y_N, yall);
    for (int r = 0; rc == MPI_SUCCESS && r < n; r++) {
        const int *y = yall + (size_t)r * Y_N;
        if (y[Y_ST] > worst)
            worst = y[Y_ST];
        if (w->peer[r].net) {
            w->peer[r].key = get64(y + Y_KEY);
            w->peer[r].raddr = get64(y + Y_RADDR);
        }
    }
    free(yall);
    free(all);
    if (w->rank == lead) {
        if (w->ctl != NULL)
            shm_unlink(ctl_name);
        if (w->data != NULL)
            shm_unlink(data_name);
    }
    if (rc != MPI_SUCCESS || worst != ST_OK) {
        win_destroy(w);
        if (rc != MPI_SUCCESS)
            return mpi_error(comm, rc, fn, "window set-up exchange failed");
        if (worst == ST_NOCMA)
            return mpi_error(comm, MPI_ERR_OTHER, fn,
                             "Cross Memory Attach (process_vm_readv) is unavailable, so windows on "
                             "user memory cannot work; MPI_Win_allocate works");
        if (worst == ST_NOREG)
            return mpi_error(comm, MPI_ERR_OTHER, fn,
                             "cannot register the window's memory with the network transport%s%s",
                             st == ST_NOREG ? ": " : " (on another rank)",
                             st == ST_NOREG ? xofi_last_error() : "");
        return mpi_error(comm, MPI_ERR_NO_MEM, fn, "cannot create the window's shared memory%s%s",
                         st == ST_SHM ? ": " : " (on another rank)",
                         st == ST_SHM ? strerror(err) : "");
    }
    if (shm) {
        for (int r = 0; r < n; r++)
            if (w->peer[r].net)
                w->peer[r].base = 0; /* check_target: an offset in its registration */
            else if (p2p_node_of(comm->world_of[r]) == my_node)
                w->peer[r].base += (uintptr_t)w->data;
        base = (void *)w->peer[w->rank].base;
        *(void **)baseptr = base;
    }
    w->base = flavor == MPI_WIN_FLAVOR_DYNAMIC ? MPI_BOTTOM : base;
    w->my_size = size;
    w->my_disp_unit = disp_unit;
    *win = w;
    return MPI_SUCCESS;
}

int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                   MPI_Win *win)
{
    MPI_ENTER();
    return win_setup("MPI_Win_create", comm, MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info,
                     NULL, win);
}

int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                     MPI_Win *win)
{
    MPI_ENTER();
    return win_setup("MPI_Win_allocate", comm, MPI_WIN_FLAVOR_ALLOCATE, NULL, size, disp_unit,
                     info, baseptr, win);
}

int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                            void *baseptr, MPI_Win *win)
{
    MPI_ENTER();
    return win_setup("MPI_Win_allocate_shared", comm, MPI_WIN_FLAVOR_SHARED, NULL, size,
                     disp_unit, info, baseptr, win);
}

int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    MPI_ENTER();
    return win_setup("MPI_Win_create_dynamic", comm, MPI_WIN_FLAVOR_DYNAMIC, NULL, 0, 1, info,
                     NULL, win);
}

int MPI_Win_free(MPI_Win *win)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Win_free";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (win == NULL || !win_ok(*win))
        return win_error(NULL, MPI_ERR_WIN, fn, "invalid window");
    MPI_Win w = *win;
    /* Every operation completed at its call, so once all have reached this barrier nobody
     * touches the memory any more. */
    int rc = mpi_coll_barrier(w->comm);
    if (rc != MPI_SUCCESS)
        return win_error(w, rc, fn, "barrier failed");
    rc = mpi_attr_win_free(w);
    win_net_stop(w);
    for (int i = 0; i < w->nexposure; i++)
        p2p_req_free(w->exposure[i]);
    win_destroy(w);
    *win = MPI_WIN_NULL;
    if (rc != MPI_SUCCESS)
        return mpi_error(NULL, rc, fn, "an attribute delete callback failed (%d)", rc);
    return MPI_SUCCESS;
}

int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Win_shared_query";
    WIN_CHECK(fn, win);
    if (win->flavor != MPI_WIN_FLAVOR_SHARED)
        return win_error(win, MPI_ERR_RMA_FLAVOR, fn, "not a window of MPI_Win_allocate_shared");
    if (size == NULL || disp_unit == NULL || baseptr == NULL)
        return win_error(win, MPI_ERR_ARG, fn, "NULL argument");
    if (rank == MPI_PROC_NULL) {
        /* §11.2.3: the first rank, in rank order, that gave a size above zero. */
        for (rank = 0; rank < win->size - 1 && win->peer[rank].size == 0; rank++)
            ;
    } else if (rank < 0 || rank >= win->size) {
        return win_error(win, MPI_ERR_RANK, fn, "rank %d out of range (window of %d)", rank,
                         win->size);
    }
    *size = win->peer[rank].size;
    *disp_unit = win->peer[rank].disp_unit;
    *(void **)baseptr = *size > 0 ? (void *)win->peer[rank].base : NULL;
    return MPI_SUCCESS;
}

/* Dynamic windows: the regions are remembered for MPI_Win_detach and for network origins, whose
 * requests must fall inside one (win_net.c); a shared-memory origin reaches a target's memory by
 * absolute address and the kernel refuses unmapped ones (MPI_ERR_RMA_RANGE). */
int MPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Win_attach";
    WIN_CHECK(fn, win);
    if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return win_error(win, MPI_ERR_RMA_FLAVOR, fn, "not a window of MPI_Win_create_dynamic");
    if (size < 0)
        return win_error(win, MPI_ERR_SIZE, fn, "negative size %ld", (long)size);
    win_region *t = realloc(win->regions, (size_t)(win->nregions + 1) * sizeof *t);
    if (t == NULL)
        return win_error(win, MPI_ERR_NO_MEM, fn, "out of memory");
    win->regions = t;
    t[win->nregions] = (win_region){(uintptr_t)base, size, NULL, 0, 0};
    /* Registered for network origins, which look its key up when they first need it (win_net.c). */
    if (win->nnet > 0 && size > 0 &&
        xofi_win_reg(base, (size_t)size, &t[win->nregions].mr, &t[win->nregions].key,
                     &t[win->nregions].raddr) != 0)
        return win_error(win, MPI_ERR_OTHER, fn, "cannot register %ld bytes with the network transport: %s",
                         (long)size, xofi_last_error());
    win->nregions++;
    return MPI_SUCCESS;
}

int MPI_Win_detach(MPI_Win win, const void *base)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Win_detach";
    WIN_CHECK(fn, win);
    if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return win_error(win, MPI_ERR_RMA_FLAVOR, fn, "not a window of MPI_Win_create_dynamic");
    for (int i = win->nregions - 1; i >= 0; i--)
        if (win->regions[i].base == (uintptr_t)base) {
            /* Network origins may have cached its key. Where keys are stable (xofi_win_keys_stable)
             * the registration stays until MPI_Win_free: a cached key then reaches whatever is
             * attached at those addresses later, as an address would; elsewhere origins cache
             * nothing and it goes now. */
            xofi_win_mr *mr = win->regions[i].mr;
            if (mr != NULL && xofi_win_keys_stable()) {
                xofi_win_mr **r = realloc(win->retired, (size_t)(win->nretired + 1) * sizeof *r);
                if (r == NULL)
                    return win_error(win, MPI_ERR_NO_MEM, fn, "out of memory");
                win->retired = r;
                r[win->nretired++] = mr;
            } else if (mr != NULL) {
                xofi_win_dereg(mr);
            }
            win->regions[i] = win->regions[--win->nregions];
            return MPI_SUCCESS;
        }
    return win_error(win, MPI_ERR_RMA_ATTACH, fn, "%p is not attached", base);
}

int MPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    MPI_ENTER();
    WIN_CHECK("MPI_Win_get_group", win);
    if (group == NULL)
        return win_error(win, MPI_ERR_ARG, "MPI_Win_get_group", "group is NULL");
    int rc = PMPI_Comm_group(win->comm, group);
    return rc == MPI_SUCCESS ? rc : win_error(win, rc, "MPI_Win_get_group", "out of memory");
}

int MPI_Win_set_name(MPI_Win win, const char *win_name)
{
    MPI_ENTER();
    WIN_CHECK("MPI_Win_set_name", win);
    if (win_name == NULL)
        return win_error(win, MPI_ERR_ARG, "MPI_Win_set_name", "name is NULL");
    snprintf(win->name, sizeof win->name, "%s", win_name);
    return MPI_SUCCESS;
}

int MPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    MPI_ENTER();
    WIN_CHECK("MPI_Win_get_name", win);
    if (win_name == NULL || resultlen == NULL)
        return win_error(win, MPI_ERR_ARG, "MPI_Win_get_name", "NULL argument");
    *resultlen = snprintf(win_name, MPI_MAX_OBJECT_NAME, "%s", win->name);
    return MPI_SUCCESS;
}

/* Hints live on the hidden communicator, so they follow the communicator rules (info.c): every
 * hint the program set is returned. */
int MPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    MPI_ENTER();
    WIN_CHECK("MPI_Win_set_info", win);
    if (!mpi_info_ok(info))
        return win_error(win, MPI_ERR_INFO, "MPI_Win_set_info", "invalid info");
    if (mpi_comm_hints_merge(win->comm, info) != MPI_SUCCESS)
        return win_error(win, MPI_ERR_NO_MEM, "MPI_Win_set_info", "out of memory");
    return MPI_SUCCESS;
}

int MPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    MPI_ENTER();
    WIN_CHECK("MPI_Win_get_info", win);
    if (info_used == NULL)
        return win_error(win, MPI_ERR_ARG, "MPI_Win_get_info", "info_used is NULL");
    if (mpi_info_dup(win->comm->info, info_used) != MPI_SUCCESS)
        return win_error(win, MPI_ERR_NO_MEM, "MPI_Win_get_info", "out of memory");
    return MPI_SUCCESS;
}

/* ---- error handlers ---- */

int MPI_Win_create_errhandler(MPI_Win_errhandler_function *function, MPI_Errhandler *errhandler)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Win_create_errhandler";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (function == NULL || errhandler == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "NULL argument");
    struct credo_errhandler *h = mpi_errh_new((MPI_Comm_errhandler_function *)(void (*)(void))function);
    if (h == NULL)
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    *errhandler = h;
    return MPI_SUCCESS;
}

int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    MPI_ENTER();
    WIN_CHECK("MPI_Win_set_errhandler", win);
    if (!errh_live(errhandler))
        return win_error(win, MPI_ERR_ARG, "MPI_Win_set_errhandler", "invalid error handler");
    if (errhandler->kind == ERRH_USER)
        errhandler->refcount++;
    MPI_Errhandler old = win->errh;
    win->errh = errhandler;
    if (old->kind == ERRH_USER && --old->refcount == 0) {
        old->magic = DEAD_MAGIC;
        mpi_handle_del(old);
        free(old);
    }
    return MPI_SUCCESS;
}

int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    MPI_ENTER();
    WIN_CHECK("MPI_Win_get_errhandler", win);
    if (errhandler == NULL)
        return win_error(win, MPI_ERR_ARG, "MPI_Win_get_errhandler", "errhandler is NULL");
    if (win->errh->kind == ERRH_USER)
        win->errh->refcount++; /* released by MPI_Errhandler_free */
    *errhandler = win->errh;
    return MPI_SUCCESS;
}

int MPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    MPI_ENTER();
    WIN_CHECK("MPI_Win_call_errhandler", win);
    win_error(win, errorcode, "MPI_Win_call_errhandler", "error %d raised by the application",
              errorcode);
    return MPI_SUCCESS;
}

/* ---- the predefined attributes (the user ones are in attr.c) ---- */

int win_predefined_attr(MPI_Win win, int k, void *attribute_val)
{
    void **out = attribute_val;
    switch (k) {
    case MPI_WIN_BASE: *out = win->base; return 1;
    case MPI_WIN_SIZE: *out = &win->my_size; return 1;
    case MPI_WIN_DISP_UNIT: *out = &win->my_disp_unit; return 1;
    case MPI_WIN_CREATE_FLAVOR: *out = &win->flavor; return 1;
    case MPI_WIN_MODEL: *out = &win_model; return 1;
    default: return 0;
    }
}

CREDO_PMPI(MPI_Win_create)
CREDO_PMPI(MPI_Win_allocate)
CREDO_PMPI(MPI_Win_allocate_shared)
CREDO_PMPI(MPI_Win_create_dynamic)
CREDO_PMPI(MPI_Win_free)
CREDO_PMPI(MPI_Win_shared_query)
CREDO_PMPI(MPI_Win_attach)
CREDO_PMPI(MPI_Win_detach)
CREDO_PMPI(MPI_Win_get_group)
CREDO_PMPI(MPI_Win_set_name)
CREDO_PMPI(MPI_Win_get_name)
CREDO_PMPI(MPI_Win_set_info)
CREDO_PMPI(MPI_Win_get_info)
CREDO_PMPI(MPI_Win_create_errhandler)
CREDO_PMPI(MPI_Win_set_errhandler)
CREDO_PMPI(MPI_Win_get_errhandler)
CREDO_PMPI(MPI_Win_call_errhandler)
