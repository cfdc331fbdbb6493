/* src/xport/shm.c — the shared-memory transport behind the ops table: the mailbox segments (create,
 * attach, names), Cross Memory Attach reads, and the table slots over shm.h's fast paths. */
#include "xport/shm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/uio.h>
#include <unistd.h>

static struct {
    int rank, size;
    char jobid[96];
    mbox *self;
    pid_t *pid;        /* [size] connected peers' processes */
    uint64_t *ctl;     /* [size] their control blocks' addresses in their own processes (CMA probe) */
    int probe_peer;    /* first peer connected (-1: none) */
    int cma_ok;
    int named;         /* our segment still has its name */
    int wake_fd;       /* eventfd: our poll sleepers wake on it; peers ring it through their dup */
    xshm_rx rx;
    char err[256];
} S = {.probe_peer = -1, .wake_fd = -1};

static void seg_name(char *buf, size_t len, int rank)
{
    snprintf(buf, len, "/credo.%s.%d", S.jobid, rank);
}

static int shm_open_(const xport_params *p, char *err, size_t errlen)
{
    S.rank = p->rank;
    S.size = p->size;
    S.self = p->self;
    S.probe_peer = -1;
    S.rx = (xshm_rx){0};
    snprintf(S.jobid, sizeof S.jobid, "%s", p->jobid);
    S.pid = calloc((size_t)p->size, sizeof *S.pid);
    S.ctl = calloc((size_t)p->size, sizeof *S.ctl);
    if (!S.pid || !S.ctl) {
        snprintf(err, errlen, "out of memory for %d peers", p->size);
        return -ENOMEM;
    }
    S.pid[p->rank] = getpid();
    S.wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (S.wake_fd < 0) {
        snprintf(err, errlen, "eventfd: %s", strerror(errno));
        return -errno;
    }
    char name[200];
    seg_name(name, sizeof name, p->rank);
    if (mbox_create(p->self, name, p->slot_size, p->bound, (uint32_t)p->size, p->staging_bytes, p->prepush_bytes,
                    p->rank, err, errlen))
        return -EIO;
    S.named = 1;
    return 0;
}

/* pid, the control block's address (the CMA probe reads its magic word there) and the wake eventfd's
 * number (peers take a copy of it with pidfd_getfd) */
static int shm_card(char *buf, size_t len)
{
    int n = snprintf(buf, len, "%d,%llx,%d", (int)getpid(), (unsigned long long)(uintptr_t)S.self->ctl, S.wake_fd);
    return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

static int shm_connect(int rank, const char *card, mbox *view, char *err, size_t errlen)
{
    int pid, fd;
    unsigned long long ctl;
    if (rank < 0 || rank >= S.size || rank == S.rank || sscanf(card, "%d,%llx,%d", &pid, &ctl, &fd) != 3 || pid <= 0) {
        snprintf(err, errlen, "bad shared-memory card '%.60s' for rank %d", card, rank);
        return -EINVAL;
    }
    char name[200];
    seg_name(name, sizeof name, rank);
    if (mbox_attach(view, name, err, errlen))
        return -EIO;
    S.pid[rank] = pid;
    S.ctl[rank] = ctl;
    /* The peer's eventfd, to wake it when it sleeps in poll (it also waits for the network). Needs
     * the permission CMA needs; without it the peer's poll sleeps end at their bound instead. */
    int pfd = fd >= 0 ? pidfd_open(pid, 0) : -1;
    if (pfd >= 0) {
        view->ring_fd = pidfd_getfd(pfd, fd, 0);
        close(pfd);
    }
    if (S.probe_peer < 0)
        S.probe_peer = rank;
    return 0;
}

/* CMA works if we can read the magic word of a peer's control block from its address space. */
static int cma_probe(int peer)
{
    uint64_t magic = 0;
    struct iovec l = {&magic, sizeof magic}, r = {(void *)(uintptr_t)S.ctl[peer], sizeof magic};
    ssize_t n = process_vm_readv(S.pid[peer], &l, 1, &r, 1, 0);
    if (n != (ssize_t)sizeof magic || magic != MBOX_MAGIC) {
        snprintf(S.err, sizeof S.err, "CMA unavailable (%s)", n < 0 ? strerror(errno) : "short read");
        return 0;
    }
    return 1;
}

/* Every rank mapped every segment (the caller's fence): the names go now, so nothing is left behind
 * after a crash. Every rank unlinks every name, not only its own: the first rank out of the fence
 * may abort or crash at once, and a launcher that then kills the others (MPICH's hydra does) can catch
 * a rank that has not yet returned from the fence, whose name would stay in /dev/shm. So no rank
 * leaves start-up before all names are gone (the others' unlinks then fail with ENOENT). */
static void shm_ready(void)
{
    char name[200];
    for (int i = 0; i < S.size; i++) {
        seg_name(name, sizeof name, (S.rank + i) % S.size);
        shm_unlink(name);
    }
    S.named = 0;
    S.cma_ok = S.probe_peer >= 0 && cma_probe(S.probe_peer);
}

static uint64_t shm_reserve(mbox *view, uint32_t n)
{
    return xshm_reserve(view, n);
}

static uint32_t shm_try_reserve(mbox *view, uint32_t want, uint64_t *cached_head, uint64_t *idx)
{
    return xshm_try_reserve(view, want, cached_head, idx);
}

static int shm_post(int dest, mbox *view, uint64_t idx, uint32_t n)
{
    (void)dest;
    return xshm_post(view, idx, n);
}

static int shm_mr_get(const void *buf, size_t len, void **mr, uint64_t *key, uint64_t *raddr)
{
    (void)len;
    *mr = NULL; /* CMA reads any mapped page: nothing to register */
    *key = 0;
    *raddr = (uint64_t)(uintptr_t)buf;
    return 0;
}

static void shm_mr_put(void *mr)
{
    (void)mr;
}

static void shm_mr_invalidate(const void *buf, size_t len)
{
    (void)buf;
    (void)len;
}

/* CMA: one process_vm_readv per call the kernel allows (about 1 GiB), synchronous. */
static int shm_read(int peer, void *local, size_t len, void *local_mr, uint64_t raddr, uint64_t key, void *ctx)
{
    (void)local_mr;
    (void)key;
    (void)ctx;
    if (peer < 0 || peer >= S.size || !S.pid[peer])
        return -EINVAL;
    size_t done = 0;
    while (done < len) {
        struct iovec l = {(unsigned char *)local + done, len - done};
        struct iovec rem = {(void *)(uintptr_t)(raddr + done), len - done};
        ssize_t got = process_vm_readv(S.pid[peer], &l, 1, &rem, 1, 0);
        if (got > 0) {
            done += (size_t)got;
            continue;
        }
        if (got < 0 && errno == EINTR)
            continue;
        int e = got < 0 ? errno : EIO;
        snprintf(S.err, sizeof S.err, "process_vm_readv from rank %d: %s", peer,
                 got < 0 ? strerror(e) : "no progress");
        if (done == 0 && (e == EPERM || e == ENOSYS || e == EACCES)) {
            S.cma_ok = 0;
            return -EPERM;
        }
        return -e;
    }
    return XPORT_READ_DONE;
}

static int shm_progress(int budget, const xport_upcalls *up)
{
    return xshm_poll(S.self, &S.rx, S.rank, S.size, budget, up->chunk);
}

static int shm_busy(void)
{
    return 0; /* a post is complete when it returns */
}

static int shm_wait_fd(void)
{
    return -1; /* the futex doorbell (mbox_sleep) */
}

static int shm_sleep_ok(void)
{
    return 1;
}

static const char *shm_error(void)
{
    return S.err;
}

static void shm_disconnect(int rank, mbox *view)
{
    if (rank >= 0 && rank < S.size && S.pid && S.pid[rank]) {
        if (view->ring_fd >= 0)
            close(view->ring_fd);
        view->ring_fd = -1;
        mbox_detach(view);
        S.pid[rank] = 0;
    }
}

static void shm_close(void)
{
    if (S.named) {
        char name[200];
        seg_name(name, sizeof name, S.rank);
        shm_unlink(name);
        S.named = 0;
    }
    if (S.self)
        mbox_detach(S.self);
    if (S.wake_fd >= 0)
        close(S.wake_fd);
    S.wake_fd = -1;
    free(S.pid);
    free(S.ctl);
    S.pid = NULL;
    S.ctl = NULL;
    S.self = NULL;
}

int xshm_pid(int rank)
{
    return S.pid && rank >= 0 && rank < S.size ? (int)S.pid[rank] : 0;
}

int xshm_cma_ok(void)
{
    return S.cma_ok;
}

xshm_rx *xshm_rx_state(void)
{
    return &S.rx;
}

int xshm_wake_fd(void)
{
    return S.wake_fd;
}

const xport_ops xport_shm = {
    .name = "shm",
    .caps = XPORT_CAP_MAPPED,
    .open = shm_open_,
    .card = shm_card,
    .connect = shm_connect,
    .ready = shm_ready,
    .reserve = shm_reserve,
    .try_reserve = shm_try_reserve,
    .post = shm_post,
    .mr_get = shm_mr_get,
    .mr_put = shm_mr_put,
    .mr_invalidate = shm_mr_invalidate,
    .read = shm_read,
    .progress = shm_progress,
    .busy = shm_busy,
    .wait_fd = shm_wait_fd,
    .sleep_ok = shm_sleep_ok,
    .error = shm_error,
    .disconnect = shm_disconnect,
    .close = shm_close,
};
