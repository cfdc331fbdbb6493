/* src/xport/ofi.c — the libfabric network transport behind ofi.h: endpoint set-up, the FI_MULTI_RECV
 * mailbox, copied sends with an in-order pending queue, RMA reads and the registration cache.
 *
 * One transport per process, kept in the file-static `g` (the caller holds the library lock around
 * every call, ofi.h). Every posted operation's context starts with a struct fi_context2 (so providers
 * that ask for FI_CONTEXT / FI_CONTEXT2 own scratch space) followed by a kind tag, which is how a
 * completion, or an error completion, finds its way back to a send buffer, a receive buffer or a read.
 *
 * Findings that shaped this file (tcp;ofi_rxm, libfabric 1.17; docs/OFI.md has the rest):
 * - rxm asks for no memory-registration mode bits (mr_mode comes back empty): no local descriptors,
 *   requested keys (not provider keys), and remote addresses are offsets into the registration (no
 *   FI_MR_VIRT_ADDR). The code handles every bit anyway, because verbs;ofi_rxm sets all of them.
 * - Completions of one receive buffer arrive in order, and the one carrying FI_MULTI_RECV is the
 *   buffer's last, so "repost after the release completion's packet was handed out" is exact, as
 *   long as every packet goes eager (rendezvous completes out of order: rxm_eager_limit).
 * - A dead peer can make rxm refuse every send and read without an error: the stall bound
 *   (xofi_set_stall_timeout, pend_flush) turns that into a fatal error naming the rank. */
#include "xport/ofi.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#define OFI_VERSION FI_VERSION(1, 17)
#define OFI_NRXBUF 2                       /* multi-receive buffers: one fills while one is consumed */
#define OFI_DEFAULT_INFLIGHT ((size_t)4 << 20)
#define OFI_MAX_ADDR 256                   /* longest endpoint name we accept (sockaddr_in6 is 28) */
#define OFI_MR_MAX_ENTRIES 256             /* cached registrations beyond this evict the LRU unused */
#define OFI_MR_MAX_BYTES ((size_t)1 << 30) /* ... and so do cached bytes beyond this */
#define OFI_CQ_BATCH 32
#define OFI_SBUF_KEEP 64 /* idle send buffers kept for reuse; more are freed at completion */
#define OFI_DEFAULT_STALL_MS 30000u

enum op_kind { OP_SEND = 1, OP_RECV, OP_READ };

/* The head of every operation context (see the file comment). */
typedef struct op_hdr {
    struct fi_context2 fctx;
    int kind;
} op_hdr;

/* A copied send: the packet, its destination, and (FI_MR_LOCAL) its buffer's registration. Pool
 * buffers are kept on a free list and reused, so a registration is paid once per buffer. */
typedef struct sbuf {
    op_hdr h;
    struct sbuf *next; /* free list or pending queue */
    struct sbuf *all, *all_prev; /* every buffer, for xofi_close (some are the provider's then) */
    int dest;
    size_t len;
    struct fid_mr *mr;
    void *desc;
    unsigned char data[];
} sbuf;

/* One multi-receive buffer. */
typedef struct rbuf {
    op_hdr h;
    unsigned char *mem;
    struct fid_mr *mr;
    void *desc;
    int posted;      /* handed to the provider and not yet released */
    int need_repost; /* released, but the repost met -FI_EAGAIN: retried by progress */
} rbuf;

/* A read in flight. */
typedef struct rop {
    op_hdr h;
    struct rop *next;
    struct rop *all;
    void *ctx;
    int peer;
    size_t len;
} rop;

/* A cached registration of the page-aligned range [start, end). */
struct xofi_mr {
    uintptr_t start, end;
    struct fid_mr *mr;
    uint64_t key;
    void *desc;
    int refs;
    int stale;      /* invalidated while referenced: deregistered at the last put */
    uint64_t stamp; /* LRU clock of the last get */
};

static struct {
    int open;
    xofi_params p;
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    int wait_fd;
    uint64_t mr_mode;
    size_t inject_size;
    unsigned char addr[OFI_MAX_ADDR];
    size_t addrlen;
    fi_addr_t *peers; /* rank -> address vector entry, FI_ADDR_NOTAVAIL until connected */
    /* receive side */
    rbuf rx[OFI_NRXBUF];
    size_t rx_bytes;   /* bytes of one receive buffer */
    uint64_t backlog;  /* packet bytes read from the CQ since it was last found empty */
    /* completions read by xofi_send while it drove the provider, delivered by the next progress */
    struct fi_cq_data_entry *stash;
    size_t stash_head, stash_n, stash_cap;
    /* send side */
    sbuf *free_sbufs, *all_sbufs;
    /* Packets the provider refused, one FIFO per destination (sent before anything newer to it;
     * one slow peer does not hold up the others), and the destinations with a non-empty one. */
    struct pend_q {
        sbuf *head, *tail;
        uint64_t refused_ns; /* when the provider first refused the current head (0: not yet) */
    } *pend;
    int *pend_dests;
    int npend_dests;
    uint64_t read_refused_ns;    /* when it first refused a read, since the last one it took */
    size_t sbufs_live;   /* buffers queued or owned by the provider (sends not yet complete) */
    size_t sbufs_free;   /* on the free list */
    int send_events;     /* send completions and queued sends posted, for xofi_progress's count */
    /* reads */
    rop *free_rops, *all_rops;
    size_t reads_out;
    /* registration cache: sorted by start */
    struct xofi_mr **mrs;
    size_t nmrs, mrs_cap, mr_bytes;
    uint64_t mr_clock, next_key;
    int mr_cache_safe; /* a stale cached entry cannot read the wrong memory (see mr_cache_policy) */
    size_t page;
    xofi_stats st;
    char prov[64];
} g = {.wait_fd = -1};

static char last_err[512];
static unsigned stall_ms = OFI_DEFAULT_STALL_MS; /* xofi_set_stall_timeout */

static void seterr(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_err, sizeof last_err, fmt, ap);
    va_end(ap);
    if (err && errlen)
        snprintf(err, errlen, "%s", last_err);
}

/* libfabric's negative FI_E* values are negative errno values for the common ones; keep the value. */
static int ofi_errno(ssize_t rc) { return rc < 0 ? (int)rc : -EIO; }

/* ---------------------------------------------------------------------------------------------- */
/* Registration helpers */

/* Registers [buf, buf+len) with access; a requested key unless the provider hands out its own; binds
 * and enables it for FI_MR_ENDPOINT providers. */
static int reg(void *buf, size_t len, uint64_t access, struct fid_mr **mr, void **desc)
{
    struct iovec iov = {.iov_base = buf, .iov_len = len};
    struct fi_mr_attr attr = {.mr_iov = &iov, .iov_count = 1, .access = access};
    if (!(g.mr_mode & FI_MR_PROV_KEY))
        attr.requested_key = ++g.next_key;
    int rc = fi_mr_regattr(g.domain, &attr, 0, mr);
    if (rc)
        return rc;
    if (g.mr_mode & FI_MR_ENDPOINT) {
        rc = fi_mr_bind(*mr, &g.ep->fid, 0);
        if (!rc)
            rc = fi_mr_enable(*mr);
        if (rc) {
            fi_close(&(*mr)->fid);
            *mr = NULL;
            return rc;
        }
    }
    if (desc)
        *desc = fi_mr_desc(*mr);
    return 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* Receive buffers */

static int rx_post(rbuf *b)
{
    struct iovec iov = {.iov_base = b->mem, .iov_len = g.rx_bytes};
    void *desc = b->desc;
    struct fi_msg msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = FI_ADDR_UNSPEC,
                         .context = &b->h.fctx};
    ssize_t rc = fi_recvmsg(g.ep, &msg, FI_MULTI_RECV);
    if (rc == -FI_EAGAIN) {
        b->need_repost = 1;
        return 0;
    }
    if (rc) {
        seterr(NULL, 0, "ofi: posting a receive buffer failed: %s", fi_strerror((int)-rc));
        return ofi_errno(rc);
    }
    b->posted = 1;
    b->need_repost = 0;
    return 0;
}

static int rx_posted_count(void)
{
    int n = 0;
    for (int i = 0; i < OFI_NRXBUF; i++)
        n += g.rx[i].posted;
    return n;
}

/* ---------------------------------------------------------------------------------------------- */
/* Send buffers and the pending queue */

static sbuf *sbuf_get(void)
{
    sbuf *s = g.free_sbufs;
    if (s) {
        g.free_sbufs = s->next;
        g.sbufs_free--;
    } else {
        /* The pool grows on demand: its size is the most sends ever in flight at once. */
        s = calloc(1, sizeof *s + g.p.max_packet);
        if (!s)
            return NULL;
        s->h.kind = OP_SEND;
        if ((g.mr_mode & FI_MR_LOCAL) && reg(s->data, g.p.max_packet, FI_SEND, &s->mr, &s->desc)) {
            free(s);
            return NULL;
        }
        s->all = g.all_sbufs;
        if (g.all_sbufs)
            g.all_sbufs->all_prev = s;
        g.all_sbufs = s;
    }
    s->next = NULL;
    g.sbufs_live++;
    return s;
}

static void sbuf_free(sbuf *s)
{
    if (s->mr)
        fi_close(&s->mr->fid);
    free(s);
}

/* A send completed (or was injected): its buffer goes back to the pool, or away when a burst has
 * left more idle buffers than are worth keeping. */
static void sbuf_put(sbuf *s)
{
    g.sbufs_live--;
    if (g.sbufs_free >= OFI_SBUF_KEEP) {
        if (s->all_prev)
            s->all_prev->all = s->all;
        else
            g.all_sbufs = s->all;
        if (s->all)
            s->all->all_prev = s->all_prev;
        sbuf_free(s);
        return;
    }
    s->next = g.free_sbufs;
    g.free_sbufs = s;
    g.sbufs_free++;
}

/* Posts one packet held in s. 0 posted (s now belongs to the provider, or was injected and freed),
 * -FI_EAGAIN busy, else a fatal error. */
static ssize_t sbuf_post(sbuf *s)
{
    fi_addr_t to = g.peers[s->dest];
    size_t len = s->len;
    ssize_t rc;
    if (len <= g.inject_size) {
        rc = fi_inject(g.ep, s->data, len, to);
        if (rc == 0)
            sbuf_put(s); /* may free s */
    } else {
        rc = fi_send(g.ep, s->data, len, s->desc, to, &s->h.fctx);
    }
    if (rc == 0) {
        g.st.packets_sent++;
        g.st.bytes_sent += len;
    }
    return rc;
}

static int fatal_send(int dest, ssize_t rc)
{
    seterr(NULL, 0, "ofi: sending to rank %d failed: %s", dest, fi_strerror((int)-rc));
    return ofi_errno(rc);
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void pend_push(sbuf *s)
{
    struct pend_q *q = &g.pend[s->dest];
    if (q->tail) {
        q->tail->next = s;
    } else {
        q->head = s;
        q->refused_ns = 0;
        g.pend_dests[g.npend_dests++] = s->dest;
    }
    q->tail = s;
}

/* Sends one destination's queued packets, oldest first, until the provider refuses one. A head
 * refused for stall_ms is fatal: when the send that meets a dead peer's reset is an inject, rxm
 * over tcp reports the error to nobody (injects have no completion), then retries the connection
 * every 2 s, refused, and answers -FI_EAGAIN to every send and read meanwhile (FI_LOG_LEVEL=warn
 * shows it; about one run in ten of xport.ofi's dead peer under load). */
static int pend_flush_dest(int dest)
{
    struct pend_q *q = &g.pend[dest];
    while (q->head) {
        sbuf *s = q->head;
        sbuf *next = s->next;
        ssize_t rc = sbuf_post(s);
        if (rc == -FI_EAGAIN) {
            uint64_t now = now_ns();
            if (!q->refused_ns)
                q->refused_ns = now;
            else if (now - q->refused_ns > (uint64_t)stall_ms * 1000000u) {
                seterr(NULL, 0, "ofi: the provider has refused every send to rank %d for %u ms: the peer is gone, "
                       "or its connection is stuck", dest, stall_ms);
                return -ETIMEDOUT;
            }
            return 0;
        }
        q->refused_ns = 0;
        q->head = next;
        if (!next)
            q->tail = NULL;
        g.send_events++;
        if (rc) {
            sbuf_put(s);
            return fatal_send(dest, rc);
        }
    }
    return 0;
}

/* Every destination with queued packets gets its turn; emptied ones leave the list. */
static int pend_flush(void)
{
    for (int i = 0; i < g.npend_dests;) {
        int dest = g.pend_dests[i];
        int rc = pend_flush_dest(dest);
        if (rc)
            return rc;
        if (!g.pend[dest].head)
            g.pend_dests[i] = g.pend_dests[--g.npend_dests];
        else
            i++;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* Completions */

/* Makes room for n more stashed entries before entries are taken out of the CQ, so that nothing
 * read from it can be lost to a failed allocation. */
static int stash_reserve(size_t n)
{
    if (g.stash_head && g.stash_head + g.stash_n + n > g.stash_cap) {
        memmove(g.stash, g.stash + g.stash_head, g.stash_n * sizeof *g.stash);
        g.stash_head = 0;
    }
    if (g.stash_n + n > g.stash_cap) {
        size_t cap = g.stash_cap ? 2 * g.stash_cap : 64;
        while (cap < g.stash_n + n)
            cap *= 2;
        void *p = realloc(g.stash, cap * sizeof *g.stash);
        if (!p)
            return -ENOMEM;
        g.stash = p;
        g.stash_cap = cap;
    }
    return 0;
}

static void stash_push(const struct fi_cq_data_entry *e) { g.stash[g.stash_head + g.stash_n++] = *e; }

/* Handles one successful completion: a packet goes to on_rx (NULL drops it: the finalize drain), a
 * read to on_read, a send's buffer back to the pool. Returns 1 for a packet or read handed out. */
static int complete(const struct fi_cq_data_entry *e, xofi_rx_fn on_rx, xofi_read_fn on_read, void *arg,
                    int *fatal)
{
    op_hdr *h = e->op_context;
    if (!h)
        return 0;
    switch (h->kind) {
    case OP_SEND:
        sbuf_put((sbuf *)h);
        g.send_events++;
        return 0;
    case OP_READ: {
        rop *r = (rop *)h;
        void *ctx = r->ctx;
        r->next = g.free_rops;
        g.free_rops = r;
        g.reads_out--;
        if (on_read)
            on_read(ctx, 0, arg);
        return 1;
    }
    case OP_RECV: {
        rbuf *b = (rbuf *)h;
        int n = 0;
        if ((e->flags & FI_RECV) && e->len) {
            g.st.packets_received++;
            g.st.bytes_received += e->len;
            g.backlog += e->len;
            if (g.backlog > g.st.rx_peak_bytes)
                g.st.rx_peak_bytes = g.backlog;
            /* The bytes that piled up unread passed what the other buffers hold before a release:
             * a dry spell always shows this way, since the buffer being consumed is reposted in
             * this very stretch (docs/OFI.md, Counters); counted once per stretch. */
            if (g.backlog > (uint64_t)(OFI_NRXBUF - 1) * (g.rx_bytes - g.p.max_packet) &&
                g.backlog - e->len <= (uint64_t)(OFI_NRXBUF - 1) * (g.rx_bytes - g.p.max_packet))
                g.st.rx_dry++;
            if (on_rx)
                on_rx(e->buf, e->len, arg);
            n = 1;
        }
        if (e->flags & FI_MULTI_RECV) {
            /* Released: every packet placed in it has been handed out (in order, this one last). */
            b->posted = 0;
            if (rx_posted_count() == 0)
                g.st.rx_dry++;
            int rc = rx_post(b);
            if (rc)
                *fatal = rc;
            else
                g.st.rx_reposts++;
        }
        return n;
    }
    }
    return 0;
}

/* Takes the next error completion into *ee: 1, or 0 when there is none after all, or a negative errno
 * when reading it failed (complete_err, win_drive). */
static int read_err_entry(struct fi_cq_err_entry *ee)
{
    *ee = (struct fi_cq_err_entry){0};
    ssize_t rc = fi_cq_readerr(g.cq, ee, 0);
    if (rc == -FI_EAGAIN)
        return 0;
    if (rc < 0) {
        seterr(NULL, 0, "ofi: reading an error completion failed: %s", fi_strerror((int)-rc));
        return ofi_errno(rc);
    }
    return 1;
}

/* An error completion: a failed read goes to on_read with -EIO; anything else is fatal. */
static int complete_err(xofi_read_fn on_read, void *arg)
{
    struct fi_cq_err_entry ee;
    int got = read_err_entry(&ee);
    if (got <= 0)
        return got;
    op_hdr *h = ee.op_context;
    char why[128];
    snprintf(why, sizeof why, "%s", fi_strerror(ee.err));
    if (h && h->kind == OP_READ) {
        rop *r = (rop *)h;
        void *ctx = r->ctx;
        seterr(NULL, 0, "ofi: a read of %zu B from rank %d failed: %s", r->len, r->peer, why);
        r->next = g.free_rops;
        g.free_rops = r;
        g.reads_out--;
        if (on_read)
            on_read(ctx, -EIO, arg);
        return 1;
    }
    if (h && h->kind == OP_SEND) {
        sbuf *s = (sbuf *)h;
        seterr(NULL, 0, "ofi: a send of %zu B to rank %d failed: %s", s->len, s->dest, why);
        sbuf_put(s);
        return -ECONNRESET;
    }
    if (h && h->kind == OP_RECV) {
        rbuf *b = (rbuf *)h;
        seterr(NULL, 0, "ofi: a receive failed: %s", why);
        if (ee.flags & FI_MULTI_RECV)
            b->posted = 0;
        return -EIO;
    }
    seterr(NULL, 0, "ofi: an operation failed: %s", why);
    return -EIO;
}

/* One fi_cq_read of up to n entries into out: count read, 0 when empty (the backlog ends there if
 * nothing waits in the stash either), or -FI_EAVAIL / a negative error. */
static ssize_t cq_read(struct fi_cq_data_entry *out, size_t n)
{
    int stash_empty = g.stash_n == 0;
    ssize_t got = fi_cq_read(g.cq, out, n);
    if (got == -FI_EAGAIN) {
        /* everything placed so far has been handed out: the stretch of unread bytes ends */
        if (stash_empty)
            g.backlog = 0;
        return 0;
    }
    return got;
}

/* ---------------------------------------------------------------------------------------------- */
/* Opening */

static void list_providers(char *out, size_t len)
{
    struct fi_info *all = NULL;
    size_t used = 0;
    out[0] = 0;
    if (fi_getinfo(OFI_VERSION, NULL, NULL, 0, NULL, &all) == 0) {
        for (struct fi_info *i = all; i; i = i->next) {
            const char *name = i->fabric_attr && i->fabric_attr->prov_name ? i->fabric_attr->prov_name : "?";
            /* distinct names only: the same provider appears once per interface and format */
            int seen = 0;
            for (struct fi_info *j = all; j != i; j = j->next)
                if (j->fabric_attr && j->fabric_attr->prov_name && !strcmp(j->fabric_attr->prov_name, name))
                    seen = 1;
            if (!seen && used + strlen(name) + 3 < len)
                used += (size_t)snprintf(out + used, len - used, "%s%s", used ? ", " : "", name);
        }
        fi_freeinfo(all);
    }
    if (!out[0])
        snprintf(out, len, "none (FI_PROVIDER filters all out; `fi_info -l` lists the installed ones)");
}

static struct fi_info *make_hints(void)
{
    struct fi_info *h = fi_allocinfo();
    if (!h)
        return NULL;
    h->ep_attr->type = FI_EP_RDM;
    /* FI_WRITE | FI_REMOTE_WRITE: one-sided Put over the network (src/mpi/win_net.c, fi_write) */
    h->caps = FI_MSG | FI_RMA | FI_MULTI_RECV | FI_SEND | FI_RECV | FI_READ | FI_REMOTE_READ | FI_WRITE |
              FI_REMOTE_WRITE;
    /* We give every operation a struct fi_context2, so providers may ask for either. */
    h->mode = FI_CONTEXT | FI_CONTEXT2;
    /* Packets to one destination must arrive in send order (p2p's matching relies on it). */
    h->tx_attr->msg_order = FI_ORDER_SAS;
    h->rx_attr->msg_order = FI_ORDER_SAS;
    h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    h->domain_attr->threading = FI_THREAD_DOMAIN;
    /* Manual progress is fine: p2p calls xofi_progress whenever it polls. */
    h->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    return h;
}

/* Whether a cached registration that outlived its memory is harmless (see docs/OFI.md): providers
 * that move data with ordinary system calls or CPU copies from the target's virtual addresses, at
 * the time of each read, pin nothing; a stale entry then names an address range, and a read of it
 * (which p2p only posts for a buffer the peer is currently sending, hence mapped) sees the current
 * contents. A provider that pins pages (verbs, efa, psm) would read the old physical pages after a
 * free + remap at the same address, so there the cache only shares registrations while referenced,
 * and the provider's own cache (with its memory monitor) does the reuse. */
static int mr_cache_policy(const char *prov)
{
    static const char *const software[] = {"tcp", "udp", "sockets", "net", "shm"};
    char core[64];
    snprintf(core, sizeof core, "%s", prov);
    char *semi = strchr(core, ';');
    if (semi)
        *semi = 0;
    for (size_t i = 0; i < sizeof software / sizeof software[0]; i++)
        if (!strcmp(core, software[i]))
            return 1;
    return 0;
}

/* rxm sends a message larger than its eager limit (16 KiB by default) by rendezvous, and then
 * completes it after smaller messages sent later (seen in multi-receive buffers: a 45 KiB packet
 * completing after the 9 KiB one behind it). Per-destination order holds only if every packet goes
 * eager, so the limit is raised to max_packet. libfabric reads the variable when rxm initializes,
 * at the process's first fi_getinfo; a limit the user set below max_packet is refused instead. */
static int rxm_eager_limit(char *err, size_t errlen)
{
    const char *names[] = {"FI_OFI_RXM_EAGER_LIMIT", "FI_OFI_RXM_BUFFER_SIZE"};
    for (int i = 0; i < 2; i++) {
        const char *v = getenv(names[i]);
        if (v && *v) {
            char *end;
            unsigned long long lim = strtoull(v, &end, 0);
            if (*end || lim < g.p.max_packet) {
                seterr(err, errlen, "ofi: %s=%s is below the largest packet (%zu B): packets would lose their order",
                       names[i], v, g.p.max_packet);
                return -EINVAL;
            }
            return 0;
        }
    }
    if (g.p.max_packet > 16384) {
        char v[32];
        snprintf(v, sizeof v, "%zu", g.p.max_packet);
        setenv("FI_OFI_RXM_EAGER_LIMIT", v, 0);
    }
    return 0;
}

/* rxm preposts its own eager bounce buffers on every connection, 128 by default: 7 peers cost rank 0
 * of the 8-rank flood 83-86 MiB resident, more than the test's 64 MiB bound, and the cost grows with
 * the peers, whatever our credits allow in flight. Under credit flow control a sender has at most
 * its share of our mailbox in flight (a few KiB at the default slots), so 16 per connection hold
 * it and the socket's own buffer back-pressures the rest: rank 0 peaked at 27 MiB with 16 (static
 * and dynamic alike). A value the user set is kept. */
static void rxm_queue_sizes(void)
{
    setenv("FI_OFI_RXM_MSG_RX_SIZE", "16", 0);
    setenv("FI_OFI_RXM_MSG_TX_SIZE", "16", 0);
}

/* CREDO_NET_IF (credorun's --iface, set by hand under other launchers) names the interface the network
 * transport uses: the TCP providers' own variables get it unless the user set them. Without any, the
 * provider takes its first interface (here a bridge, then eth0). Read before the first fi_getinfo. */
static void net_interface(void)
{
    const char *v = getenv("CREDO_NET_IF");
    if (!v || !*v)
        return;
    setenv("FI_TCP_IFACE", v, 0);
    setenv("FI_NET_IFACE", v, 0);
    setenv("FI_SOCKETS_IFACE", v, 0);
}

int xofi_open(const xofi_params *p, char *err, size_t errlen)
{
    if (g.open) {
        seterr(err, errlen, "ofi: already open");
        return -EBUSY;
    }
    if (!p || p->size <= 0 || p->rank < 0 || p->rank >= p->size || p->max_packet == 0) {
        seterr(err, errlen, "ofi: bad parameters");
        return -EINVAL;
    }
    int rc0;
    memset(&g.st, 0, sizeof g.st);
    g.p = *p;
    if (g.p.inflight_bytes == 0)
        g.p.inflight_bytes = OFI_DEFAULT_INFLIGHT;
    long pg = sysconf(_SC_PAGESIZE);
    g.page = pg > 0 ? (size_t)pg : 4096;
    g.wait_fd = -1;
    g.open = 1; /* from here on xofi_close undoes whatever was made */

    rxm_queue_sizes();
    net_interface();
    if ((rc0 = rxm_eager_limit(err, errlen)) != 0) {
        xofi_close();
        return rc0;
    }
    struct fi_info *hints = make_hints();
    if (!hints) {
        seterr(err, errlen, "ofi: out of memory");
        xofi_close();
        return -ENOMEM;
    }
    int rc = fi_getinfo(OFI_VERSION, NULL, NULL, 0, hints, &g.info);
    fi_freeinfo(hints);
    if (rc) {
        char provs[160];
        const char *env = getenv("FI_PROVIDER");
        list_providers(provs, sizeof provs);
        seterr(err, errlen,
               "ofi: no provider for FI_PROVIDER=%s%s%s has FI_EP_RDM with FI_MSG, FI_RMA, FI_MULTI_RECV "
               "and FI_ORDER_SAS; offered: %s",
               env ? "\"" : "", env ? env : "unset", env ? "\"" : "", provs);
        g.info = NULL;
        xofi_close();
        return -ENODEV;
    }
    struct fi_info *fi = g.info;
    snprintf(g.prov, sizeof g.prov, "%s", fi->fabric_attr->prov_name ? fi->fabric_attr->prov_name : "?");
    g.mr_mode = fi->domain_attr->mr_mode;
    g.inject_size = fi->tx_attr->inject_size;
    g.mr_cache_safe = mr_cache_policy(g.prov);
    if (!(fi->tx_attr->msg_order & FI_ORDER_SAS)) {
        seterr(err, errlen, "ofi: provider %s does not keep send-after-send order", g.prov);
        xofi_close();
        return -ENODEV;
    }

    const char *step = "fi_fabric";
    rc = fi_fabric(fi->fabric_attr, &g.fabric, NULL);
    if (!rc) {
        step = "fi_domain";
        rc = fi_domain(g.fabric, fi, &g.domain, NULL);
    }
    if (!rc) {
        step = "fi_av_open";
        struct fi_av_attr av = {.type = fi->domain_attr->av_type == FI_AV_UNSPEC ? FI_AV_TABLE
                                                                                    : fi->domain_attr->av_type,
                                .count = (size_t)p->size};
        rc = fi_av_open(g.domain, &av, &g.av, NULL);
    }
    if (!rc) {
        step = "fi_cq_open";
        struct fi_cq_attr cq = {.format = FI_CQ_FORMAT_DATA, .wait_obj = FI_WAIT_FD};
        rc = fi_cq_open(g.domain, &cq, &g.cq, NULL);
        if (rc) {
            /* no fd from this provider: poll only, xofi_wait_fd() says -1 */
            cq.wait_obj = FI_WAIT_NONE;
            rc = fi_cq_open(g.domain, &cq, &g.cq, NULL);
        } else if (fi_control(&g.cq->fid, FI_GETWAIT, &g.wait_fd) != 0) {
            g.wait_fd = -1;
        }
    }
    if (!rc) {
        step = "fi_endpoint";
        rc = fi_endpoint(g.domain, fi, &g.ep, NULL);
    }
    if (!rc) {
        step = "fi_ep_bind(av)";
        rc = fi_ep_bind(g.ep, &g.av->fid, 0);
    }
    if (!rc) {
        step = "fi_ep_bind(cq)";
        rc = fi_ep_bind(g.ep, &g.cq->fid, FI_TRANSMIT | FI_RECV);
    }
    if (!rc) {
        /* A buffer is released once less than one largest packet is left in it. */
        step = "fi_setopt(FI_OPT_MIN_MULTI_RECV)";
        size_t min = g.p.max_packet;
        rc = fi_setopt(&g.ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, &min, sizeof min);
    }
    if (!rc) {
        step = "fi_enable";
        rc = fi_enable(g.ep);
    }
    if (!rc) {
        step = "fi_getname";
        g.addrlen = sizeof g.addr;
        rc = fi_getname(&g.ep->fid, g.addr, &g.addrlen);
    }
    if (rc) {
        seterr(err, errlen, "ofi: %s failed on provider %s: %s", step, g.prov, fi_strerror(-rc));
        xofi_close();
        return ofi_errno(rc);
    }

    g.peers = malloc((size_t)p->size * sizeof *g.peers);
    g.pend = calloc((size_t)p->size, sizeof *g.pend);
    g.pend_dests = malloc((size_t)p->size * sizeof *g.pend_dests);
    if (!g.peers || !g.pend || !g.pend_dests) {
        seterr(err, errlen, "ofi: out of memory");
        xofi_close();
        return -ENOMEM;
    }
    for (int i = 0; i < p->size; i++)
        g.peers[i] = FI_ADDR_NOTAVAIL;

    /* Under credits at most inflight_bytes are unconsumed at any time, so a buffer that also holds
     * one largest packet past that is never released while the other still waits to be reposted. */
    g.rx_bytes = g.p.inflight_bytes + g.p.max_packet;
    g.st.rx_capacity = g.rx_bytes;
    for (int i = 0; i < OFI_NRXBUF; i++) {
        rbuf *b = &g.rx[i];
        b->h.kind = OP_RECV;
        b->mem = aligned_alloc(g.page, (g.rx_bytes + g.page - 1) / g.page * g.page);
        if (!b->mem) {
            seterr(err, errlen, "ofi: out of memory for %zu B receive buffers", g.rx_bytes);
            xofi_close();
            return -ENOMEM;
        }
        if ((g.mr_mode & FI_MR_LOCAL) && (rc = reg(b->mem, g.rx_bytes, FI_RECV, &b->mr, &b->desc))) {
            seterr(err, errlen, "ofi: registering a receive buffer failed: %s", fi_strerror(-rc));
            xofi_close();
            return ofi_errno(rc);
        }
        if ((rc = rx_post(b))) {
            snprintf(err, errlen, "%s", last_err);
            xofi_close();
            return rc;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* Cards */

int xofi_card(char *buf, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    if (!g.ep) {
        seterr(NULL, 0, "ofi: not open");
        return -EINVAL;
    }
    if (len < 2 * g.addrlen + 1) {
        seterr(NULL, 0, "ofi: a card needs %zu B", 2 * g.addrlen + 1);
        return -ENOSPC;
    }
    for (size_t i = 0; i < g.addrlen; i++) {
        buf[2 * i] = hex[g.addr[i] >> 4];
        buf[2 * i + 1] = hex[g.addr[i] & 15];
    }
    buf[2 * g.addrlen] = 0;
    return 0;
}

static int unhex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int xofi_connect(int rank, const char *card, char *err, size_t errlen)
{
    if (!g.ep) {
        seterr(err, errlen, "ofi: not open");
        return -EINVAL;
    }
    if (rank < 0 || rank >= g.p.size) {
        seterr(err, errlen, "ofi: rank %d is outside 0..%d", rank, g.p.size - 1);
        return -EINVAL;
    }
    if (!card) {
        seterr(err, errlen, "ofi: rank %d has no card", rank);
        return -EINVAL;
    }
    /* Bounded before trusted: every endpoint of one provider has a name of our own length. */
    size_t n = strnlen(card, 2 * OFI_MAX_ADDR + 1);
    if (n != 2 * g.addrlen) {
        seterr(err, errlen, "ofi: rank %d's card has %s%zu characters, expected %zu", rank,
               n > 2 * OFI_MAX_ADDR ? "more than " : "", n > 2 * OFI_MAX_ADDR ? (size_t)2 * OFI_MAX_ADDR : n,
               2 * g.addrlen);
        return -EINVAL;
    }
    unsigned char addr[OFI_MAX_ADDR];
    for (size_t i = 0; i < g.addrlen; i++) {
        int hi = unhex(card[2 * i]), lo = unhex(card[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            seterr(err, errlen, "ofi: rank %d's card is not hex at character %zu", rank, 2 * i + (hi < 0 ? 0 : 1));
            return -EINVAL;
        }
        addr[i] = (unsigned char)(hi << 4 | lo);
    }
    /* Socket addresses carry their family first: a card of another family is not one of ours. */
    if ((g.info->addr_format == FI_SOCKADDR_IN || g.info->addr_format == FI_SOCKADDR_IN6) &&
        memcmp(addr, g.addr, sizeof(sa_family_t)) != 0) {
        seterr(err, errlen, "ofi: rank %d's card names another address family", rank);
        return -EINVAL;
    }
    fi_addr_t fa = FI_ADDR_NOTAVAIL;
    int rc = fi_av_insert(g.av, addr, 1, &fa, 0, NULL);
    if (rc != 1) {
        seterr(err, errlen, "ofi: inserting rank %d's address failed: %s", rank,
               rc < 0 ? fi_strerror(-rc) : "not inserted");
        return rc < 0 ? rc : -EINVAL;
    }
    g.peers[rank] = fa;
    return 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* Sending and progress */

/* Drives the provider from xofi_send: send completions free their buffers at once, everything else
 * waits in the stash for the next xofi_progress (xofi_send has no handlers to call). */
static void drive_from_send(void)
{
    struct fi_cq_data_entry e[OFI_CQ_BATCH];
    if (stash_reserve(OFI_CQ_BATCH))
        return; /* no room to keep what we would read: leave it in the CQ */
    ssize_t got = cq_read(e, OFI_CQ_BATCH);
    for (ssize_t i = 0; i < got; i++) {
        op_hdr *h = e[i].op_context;
        if (h && h->kind == OP_SEND)
            sbuf_put((sbuf *)h); /* order among send completions does not matter */
        else
            stash_push(&e[i]); /* behind anything xofi_progress has not handed out yet */
    }
}

int xofi_send(int dest, const void *pkt, size_t len)
{
    if (!g.ep)
        return -EINVAL;
    if (dest < 0 || dest >= g.p.size || g.peers[dest] == FI_ADDR_NOTAVAIL || len > g.p.max_packet || !len) {
        /* (an empty packet would complete as an empty receive, which is not handed out) */
        seterr(NULL, 0, "ofi: send of %zu B to rank %d: %s", len, dest,
               len > g.p.max_packet ? "larger than max_packet"
               : !len               ? "empty packet"
                                    : "rank not connected");
        return -EINVAL;
    }
    ssize_t rc;
    int queued = g.pend[dest].head != NULL;
    if (!queued) {
        if (len <= g.inject_size) {
            rc = fi_inject(g.ep, pkt, len, g.peers[dest]);
            if (rc == 0) {
                g.st.packets_sent++;
                g.st.bytes_sent += len;
                return 0;
            }
            if (rc != -FI_EAGAIN)
                return fatal_send(dest, rc);
        }
    }
    sbuf *s = sbuf_get();
    if (!s) {
        seterr(NULL, 0, "ofi: out of memory for a send buffer");
        return -ENOMEM;
    }
    s->dest = dest;
    s->len = len;
    memcpy(s->data, pkt, len);
    if (!queued && len > g.inject_size) {
        rc = sbuf_post(s);
        if (rc == 0)
            return 0;
        if (rc != -FI_EAGAIN) {
            sbuf_put(s);
            return fatal_send(dest, rc);
        }
    }
    /* Busy, or older packets to dest are still waiting: this one queues behind them. */
    g.st.sends_queued++;
    pend_push(s);
    drive_from_send();
    return pend_flush();
}

int xofi_progress(int budget, xofi_rx_fn on_rx, xofi_read_fn on_read, void *arg)
{
    if (!g.ep)
        return -EINVAL;
    if (budget <= 0)
        budget = 1 << 30;
    int done = 0, fatal = 0;
    g.send_events = 0;
    int rc = pend_flush();
    if (rc)
        return rc;
    for (int i = 0; i < OFI_NRXBUF; i++)
        if (g.rx[i].need_repost && (rc = rx_post(&g.rx[i])) != 0)
            return rc;
    for (;;) {
        /* Everything read from the CQ passes through the stash, oldest first: what xofi_send read
         * earlier came out before anything still in the CQ, and a handler that sends may read newer
         * completions (drive_from_send), which must queue behind the ones not yet handed out. The
         * entry is copied out before its handler runs (a nested read may move the stash). */
        while (g.stash_n && done < budget && !fatal) {
            struct fi_cq_data_entry e = g.stash[g.stash_head++];
            g.stash_n--;
            if (!g.stash_n)
                g.stash_head = 0;
            done += complete(&e, on_rx, on_read, arg, &fatal);
        }
        if (g.stash_n || done >= budget || fatal)
            break; /* what is left waits, in order, for the next call */
        size_t want = (size_t)(budget - done) < OFI_CQ_BATCH ? (size_t)(budget - done) : OFI_CQ_BATCH;
        if (stash_reserve(want))
            return -ENOMEM;
        ssize_t got = cq_read(g.stash + g.stash_head, want); /* the stash is empty: head 0 */
        if (got == -FI_EAVAIL) {
            rc = complete_err(on_read, arg);
            if (rc < 0)
                return rc;
            done += rc;
            continue;
        }
        if (got < 0) {
            seterr(NULL, 0, "ofi: reading the completion queue failed: %s", fi_strerror((int)-got));
            return ofi_errno(got);
        }
        if (got == 0)
            break;
        g.stash_n = (size_t)got;
    }
    if (fatal)
        return fatal;
    rc = pend_flush();
    if (rc)
        return rc;
    /* Send-side work counts too. Sends not yet complete do not: a caller that treats a positive
     * count as "keep going" (a real-time progress thread) would spin while the provider writes
     * them; xofi_busy() says whether any are left (finalize drains until it says no). */
    done += g.send_events;
    return done;
}

int xofi_busy(void)
{
    return g.ep && g.sbufs_live > 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* Registration cache */

/* Index of the first entry whose start is > addr. */
static size_t mr_upper(uintptr_t addr)
{
    size_t lo = 0, hi = g.nmrs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (g.mrs[mid]->start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void mr_remove_at(size_t i)
{
    struct xofi_mr *m = g.mrs[i];
    memmove(g.mrs + i, g.mrs + i + 1, (g.nmrs - i - 1) * sizeof *g.mrs);
    g.nmrs--;
    g.mr_bytes -= m->end - m->start;
    if (m->mr)
        fi_close(&m->mr->fid);
    free(m);
}

/* Drops least recently used unreferenced entries while the cache is over its bounds. */
static void mr_evict(void)
{
    while (g.nmrs > OFI_MR_MAX_ENTRIES || g.mr_bytes > OFI_MR_MAX_BYTES) {
        size_t victim = g.nmrs;
        for (size_t i = 0; i < g.nmrs; i++)
            if (g.mrs[i]->refs == 0 && (victim == g.nmrs || g.mrs[i]->stamp < g.mrs[victim]->stamp))
                victim = i;
        if (victim == g.nmrs)
            return; /* everything is in use: over the bound until puts */
        mr_remove_at(victim);
        g.st.mr_evictions++;
    }
}

int xofi_mr_get(const void *buf, size_t len, xofi_mr **out, uint64_t *key, uint64_t *raddr)
{
    if (!g.domain)
        return -EINVAL;
    if (!buf || !len || !out) {
        seterr(NULL, 0, "ofi: registration of an empty range");
        return -EINVAL;
    }
    uintptr_t a = (uintptr_t)buf, b = a + len;
    /* Entries may overlap (a referenced entry is never merged away), so every entry starting at or
     * before a is a candidate; the newest fitting one wins. */
    struct xofi_mr *m = NULL;
    for (size_t i = mr_upper(a); i-- > 0;)
        if (g.mrs[i]->end >= b && !g.mrs[i]->stale) {
            m = g.mrs[i];
            break;
        }
    if (m) {
        g.st.mr_hits++;
    } else {
        g.st.mr_misses++;
        uintptr_t s = a & ~(uintptr_t)(g.page - 1), e = (b + g.page - 1) & ~(uintptr_t)(g.page - 1);
        /* Unreferenced entries that overlap are folded into the new one, so neighbouring requests
         * grow one registration instead of piling up overlapping ones. */
        for (size_t i = 0; i < g.nmrs;) {
            struct xofi_mr *o = g.mrs[i];
            if (o->refs == 0 && o->start < e && o->end > s) {
                if (o->start < s)
                    s = o->start;
                if (o->end > e)
                    e = o->end;
                mr_remove_at(i);
                continue;
            }
            i++;
        }
        m = calloc(1, sizeof *m);
        if (!m)
            return -ENOMEM;
        m->start = s;
        m->end = e;
        int rc = reg((void *)s, e - s, FI_READ | FI_REMOTE_READ | FI_SEND | FI_RECV, &m->mr, &m->desc);
        if (rc) {
            free(m);
            seterr(NULL, 0, "ofi: registering %zu B failed: %s", (size_t)(e - s), fi_strerror(-rc));
            return ofi_errno(rc);
        }
        m->key = fi_mr_key(m->mr);
        if (g.nmrs == g.mrs_cap) {
            size_t cap = g.mrs_cap ? 2 * g.mrs_cap : 64;
            void *p = realloc(g.mrs, cap * sizeof *g.mrs);
            if (!p) {
                fi_close(&m->mr->fid);
                free(m);
                return -ENOMEM;
            }
            g.mrs = p;
            g.mrs_cap = cap;
        }
        size_t at = mr_upper(s);
        memmove(g.mrs + at + 1, g.mrs + at, (g.nmrs - at) * sizeof *g.mrs);
        g.mrs[at] = m;
        g.nmrs++;
        g.mr_bytes += e - s;
    }
    m->refs++;
    m->stamp = ++g.mr_clock;
    if (g.nmrs > OFI_MR_MAX_ENTRIES || g.mr_bytes > OFI_MR_MAX_BYTES)
        mr_evict();
    *out = m;
    if (key)
        *key = m->key;
    if (raddr)
        *raddr = (g.mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)a : (uint64_t)(a - m->start);
    return 0;
}

void xofi_mr_put(xofi_mr *m)
{
    if (!m || m->refs <= 0)
        return;
    if (--m->refs)
        return;
    /* Where a stale entry could read the wrong pages, nothing stays registered unreferenced. */
    if (m->stale || !g.mr_cache_safe) {
        for (size_t i = 0; i < g.nmrs; i++)
            if (g.mrs[i] == m) {
                mr_remove_at(i);
                return;
            }
    }
}

int xofi_mr_invalidate(const void *buf, size_t len)
{
    uintptr_t a = (uintptr_t)buf, b = a + len;
    int n = 0;
    for (size_t i = 0; i < g.nmrs;) {
        struct xofi_mr *m = g.mrs[i];
        if (m->start < b && m->end > a && !m->stale) {
            g.st.mr_invalidations++;
            n++;
            if (m->refs == 0) {
                mr_remove_at(i);
                continue;
            }
            m->stale = 1;
        }
        i++;
    }
    return n;
}

int xofi_read(int peer, void *local, size_t len, xofi_mr *local_mr, uint64_t raddr, uint64_t key, void *ctx)
{
    if (!g.ep)
        return -EINVAL;
    if (peer < 0 || peer >= g.p.size || g.peers[peer] == FI_ADDR_NOTAVAIL) {
        seterr(NULL, 0, "ofi: read from rank %d: rank not connected", peer);
        return -EINVAL;
    }
    if ((g.mr_mode & FI_MR_LOCAL) && !local_mr) {
        seterr(NULL, 0, "ofi: provider %s needs the read's local buffer registered", g.prov);
        return -EINVAL;
    }
    rop *r = g.free_rops;
    if (r) {
        g.free_rops = r->next;
    } else {
        r = calloc(1, sizeof *r);
        if (!r)
            return -ENOMEM;
        r->h.kind = OP_READ;
        r->all = g.all_rops;
        g.all_rops = r;
    }
    r->ctx = ctx;
    r->peer = peer;
    r->len = len;
    ssize_t rc = fi_read(g.ep, local, len, local_mr ? local_mr->desc : NULL, g.peers[peer], raddr, key, &r->h.fctx);
    if (rc) {
        r->next = g.free_rops;
        g.free_rops = r;
        if (rc == -FI_EAGAIN) {
            /* the same silent refusal as for sends (pend_flush) when the peer is gone */
            uint64_t now = now_ns();
            if (!g.read_refused_ns)
                g.read_refused_ns = now;
            else if (now - g.read_refused_ns > (uint64_t)stall_ms * 1000000u) {
                seterr(NULL, 0, "ofi: the provider has refused every read for %u ms (the last from rank %d): the "
                       "peer is gone?", stall_ms, peer);
                return -ETIMEDOUT;
            }
            return -EAGAIN;
        }
        seterr(NULL, 0, "ofi: read of %zu B from rank %d failed: %s", len, peer, fi_strerror((int)-rc));
        return ofi_errno(rc);
    }
    g.read_refused_ns = 0;
    g.reads_out++;
    g.st.reads_issued++;
    g.st.read_bytes += len;
    return 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* Sleeping, queries, closing */

int xofi_wait_fd(void) { return g.ep ? g.wait_fd : -1; }

int xofi_sleep_ok(void)
{
    if (!g.ep || g.wait_fd < 0 || g.stash_n || g.npend_dests)
        return 0;
    for (int i = 0; i < OFI_NRXBUF; i++)
        if (g.rx[i].need_repost)
            return 0;
    struct fid *f = &g.cq->fid;
    return fi_trywait(g.fabric, &f, 1) == 0;
}

void xofi_set_stall_timeout(unsigned ms) { stall_ms = ms ? ms : OFI_DEFAULT_STALL_MS; }

void xofi_get_stats(xofi_stats *out)
{
    if (out)
        *out = g.st;
}

const char *xofi_provider_name(void) { return g.prov[0] ? g.prov : "none"; }

const char *xofi_last_error(void) { return last_err[0] ? last_err : "no error"; }

int xofi_built(void) { return 1; }

void xofi_close(void)
{
    if (!g.open)
        return;
    if (g.ep)
        fi_close(&g.ep->fid); /* cancels the posted receives and whatever is in flight */
    while (g.nmrs)
        mr_remove_at(g.nmrs - 1);
    free(g.mrs);
    for (int i = 0; i < OFI_NRXBUF; i++) {
        if (g.rx[i].mr)
            fi_close(&g.rx[i].mr->fid);
        free(g.rx[i].mem);
    }
    /* Buffers in flight at close were the provider's; with the endpoint gone they are ours again. */
    for (sbuf *s = g.all_sbufs, *n; s; s = n) {
        n = s->all;
        sbuf_free(s);
    }
    for (rop *r = g.all_rops, *n; r; r = n) {
        n = r->all;
        free(r);
    }
    if (g.cq)
        fi_close(&g.cq->fid);
    if (g.av)
        fi_close(&g.av->fid);
    if (g.domain)
        fi_close(&g.domain->fid);
    if (g.fabric)
        fi_close(&g.fabric->fid);
    if (g.info)
        fi_freeinfo(g.info);
    free(g.peers);
    free(g.pend);
    free(g.pend_dests);
    free(g.stash);
    char prov[sizeof g.prov];
    memcpy(prov, g.prov, sizeof prov);
    memset(&g, 0, sizeof g);
    g.wait_fd = -1;
    memcpy(g.prov, prov, sizeof prov); /* still named after close, for reports */
}

/* ---------------------------------------------------------------------------------------------- */
/* One-sided windows (ofi.h, "Windows"): long-lived registrations of window memory that peers may
 * write and read, and blocking RMA of the origin's pieces that never hands a completion to p2p.
 *
 * The window's operations share p2p's completion queue. Their contexts carry a kind of their own
 * (OP_WIN), which complete() does not know and would ignore: so xofi_rma_sync reads the queue
 * itself until its operations are complete and returns only then, never leaving one for
 * xofi_progress; what it reads for p2p goes to the stash in order, as drive_from_send does. */

#define OP_WIN 0x57494e                /* a window operation's context (op_hdr.kind) */
#define OFI_WIN_OUTSTANDING 16         /* window operations posted at once by one call */
#define OFI_WIN_CHUNK ((size_t)1 << 20) /* bytes per posted operation */

struct xofi_win_mr {
    struct fid_mr *mr;
    void *desc;
};

/* A window operation in flight. Static: a context stays valid whatever happens to the call that
 * posted it (an operation is never abandoned while the process goes on: failures are fatal). */
typedef struct wop {
    op_hdr h;
    int busy;
    int err;     /* 0, or the negative error of its error completion */
    size_t len;
} wop;
static wop win_ops[OFI_WIN_OUTSTANDING];
static int win_writes_ok = -1; /* -1 unknown; 0 once the provider refused FI_DELIVERY_COMPLETE */
static uint64_t win_stat_writes, win_stat_reads, win_stat_bytes;

int xofi_win_reg(void *buf, size_t len, xofi_win_mr **out, uint64_t *key, uint64_t *raddr)
{
    if (!g.domain || !out)
        return -EINVAL;
    if (!buf || !len) {
        seterr(NULL, 0, "ofi: registration of an empty window");
        return -EINVAL;
    }
    xofi_win_mr *m = calloc(1, sizeof *m);
    if (!m)
        return -ENOMEM;
    int rc = reg(buf, len, FI_REMOTE_READ | FI_REMOTE_WRITE | FI_READ | FI_WRITE, &m->mr, &m->desc);
    if (rc) {
        free(m);
        seterr(NULL, 0, "ofi: registering a window of %zu B failed: %s", len, fi_strerror(-rc));
        return ofi_errno(rc);
    }
    *out = m;
    if (key)
        *key = fi_mr_key(m->mr);
    if (raddr)
        *raddr = (g.mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)buf : 0;
    return 0;
}

void xofi_win_dereg(xofi_win_mr *m)
{
    if (!m)
        return;
    if (m->mr && g.domain)
        fi_close(&m->mr->fid);
    free(m);
}

/* Reads the completion queue once for xofi_rma_sync: our operations are finished here, send
 * completions free their buffers, everything else is stashed for the next xofi_progress. */
static int win_drive(int peer)
{
    struct fi_cq_data_entry e[OFI_CQ_BATCH];
    if (stash_reserve(OFI_CQ_BATCH))
        return -ENOMEM;
    ssize_t got = cq_read(e, OFI_CQ_BATCH);
    if (got == -FI_EAVAIL) {
        struct fi_cq_err_entry ee;
        int e = read_err_entry(&ee);
        if (e <= 0)
            return e;
        op_hdr *h = ee.op_context;
        if (h && h->kind == OP_WIN) {
            wop *w = (wop *)h;
            seterr(NULL, 0, "ofi: a one-sided %s of %zu B with rank %d failed: %s", "transfer", w->len, peer,
                   fi_strerror(ee.err));
            w->err = -EIO;
            w->busy = 0;
            return 0;
        }
        /* p2p's, which it will never see: named as complete_err would, and -EPIPE, which the caller
         * must treat as p2p treats a failed send or read (fatal) */
        if (h && h->kind == OP_SEND)
            seterr(NULL, 0, "ofi: a send of %zu B to rank %d failed: %s", ((sbuf *)h)->len, ((sbuf *)h)->dest,
                   fi_strerror(ee.err));
        else if (h && h->kind == OP_READ)
            seterr(NULL, 0, "ofi: a read of %zu B from rank %d failed: %s", ((rop *)h)->len, ((rop *)h)->peer,
                   fi_strerror(ee.err));
        else
            seterr(NULL, 0, "ofi: an operation failed during a one-sided transfer with rank %d: %s", peer,
                   fi_strerror(ee.err));
        return -EPIPE;
    }
    if (got < 0) {
        seterr(NULL, 0, "ofi: reading the completion queue failed: %s", fi_strerror((int)-got));
        return ofi_errno(got);
    }
    for (ssize_t i = 0; i < got; i++) {
        op_hdr *h = e[i].op_context;
        if (h && h->kind == OP_WIN)
            ((wop *)h)->busy = 0;
        else if (h && h->kind == OP_SEND)
            sbuf_put((sbuf *)h);
        else
            stash_push(&e[i]);
    }
    return 0;
}

static wop *win_op_get(void)
{
    for (int i = 0; i < OFI_WIN_OUTSTANDING; i++)
        if (!win_ops[i].busy)
            return &win_ops[i];
    return NULL;
}

static int win_busy(void)
{
    for (int i = 0; i < OFI_WIN_OUTSTANDING; i++)
        if (win_ops[i].busy)
            return 1;
    return 0;
}

int xofi_rma_sync(int peer, int write, const xofi_rma_piece *pc, size_t n, uint64_t key)
{
    if (!g.ep)
        return -EINVAL;
    if (peer < 0 || peer >= g.p.size || g.peers[peer] == FI_ADDR_NOTAVAIL) {
        seterr(NULL, 0, "ofi: one-sided transfer with rank %d: rank not connected", peer);
        return -EINVAL;
    }
    if (win_busy()) {
        seterr(NULL, 0, "ofi: one-sided transfers are not reentrant");
        return -EBUSY;
    }
    if (write && win_writes_ok == 0) {
        seterr(NULL, 0, "ofi: provider %s has no delivery-complete writes", g.prov);
        return -ENOTSUP;
    }
    size_t chunk = g.info && g.info->ep_attr->max_msg_size && g.info->ep_attr->max_msg_size < OFI_WIN_CHUNK
                       ? g.info->ep_attr->max_msg_size
                       : OFI_WIN_CHUNK;
    int rc = 0;
    size_t i = 0, off = 0;
    uint64_t refused = 0;
    for (int k = 0; k < OFI_WIN_OUTSTANDING; k++)
        win_ops[k].err = 0;
    while (rc == 0 && (i < n || win_busy())) {
        /* post what fits */
        while (i < n) {
            if (off >= pc[i].len) {
                i++;
                off = 0;
                continue;
            }
            wop *w = win_op_get();
            if (!w)
                break;
            size_t len = pc[i].len - off < chunk ? pc[i].len - off : chunk;
            char *local = (char *)pc[i].local + off;
            struct fid_mr *lmr = NULL;
            void *desc = NULL;
            if ((g.mr_mode & FI_MR_LOCAL) && (rc = reg(local, len, write ? FI_WRITE : FI_READ, &lmr, &desc)) != 0) {
                seterr(NULL, 0, "ofi: registering %zu B for a one-sided transfer failed: %s", len, fi_strerror(-rc));
                rc = ofi_errno(rc);
                break;
            }
            struct iovec iov = {.iov_base = local, .iov_len = len};
            struct fi_rma_iov rma = {.addr = pc[i].raddr + off, .len = len, .key = key};
            struct fi_msg_rma msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = g.peers[peer],
                                     .rma_iov = &rma, .rma_iov_count = 1, .context = &w->h.fctx};
            w->h.kind = OP_WIN;
            w->len = len;
            w->err = 0;
            w->busy = 1;
            ssize_t prc = write ? fi_writemsg(g.ep, &msg, FI_COMPLETION | FI_DELIVERY_COMPLETE)
                                : fi_readmsg(g.ep, &msg, FI_COMPLETION);
            if (prc == 0 && lmr) {
                /* FI_MR_LOCAL providers: the registration must outlive the operation; wait for it */
                while (w->busy && (rc = win_drive(peer)) == 0)
                    ;
                fi_close(&lmr->fid);
            } else if (lmr) {
                fi_close(&lmr->fid);
            }
            if (prc == -FI_EAGAIN) {
                w->busy = 0;
                uint64_t now = now_ns();
                if (!refused)
                    refused = now;
                else if (now - refused > (uint64_t)stall_ms * 1000000u) {
                    seterr(NULL, 0, "ofi: the provider has refused a one-sided %s with rank %d for %u ms: the peer "
                           "is gone?", write ? "write" : "read", peer, stall_ms);
                    rc = -ETIMEDOUT;
                }
                break;
            }
            if (prc != 0) {
                w->busy = 0;
                if (write && (prc == -FI_EBADFLAGS || prc == -FI_EOPNOTSUPP || prc == -FI_ENOSYS))
                    win_writes_ok = 0;
                seterr(NULL, 0, "ofi: one-sided %s of %zu B with rank %d failed: %s", write ? "write" : "read", len,
                       peer, fi_strerror((int)-prc));
                rc = ofi_errno(prc);
                break;
            }
            if (write)
                win_writes_ok = 1;
            refused = 0;
            off += len;
            if (write)
                win_stat_writes++;
            else
                win_stat_reads++;
            win_stat_bytes += len;
        }
        if (rc)
            break;
        rc = win_drive(peer); /* also when only refused: the provider needs progress to take more */
        for (int k = 0; rc == 0 && k < OFI_WIN_OUTSTANDING; k++)
            if (win_ops[k].err)
                rc = win_ops[k].err;
    }
    if (rc) {
        /* Whatever is still posted must not be left to p2p's progress (it would drop the completion,
         * harmlessly, but the data may still move): wait for it, bounded by the stall timeout. */
        uint64_t t0 = now_ns();
        while (win_busy() && now_ns() - t0 < (uint64_t)stall_ms * 1000000u && win_drive(peer) == 0)
            ;
    }
    return rc;
}

void xofi_win_stats(uint64_t *writes, uint64_t *reads, uint64_t *bytes)
{
    if (writes)
        *writes = win_stat_writes;
    if (reads)
        *reads = win_stat_reads;
    if (bytes)
        *bytes = win_stat_bytes;
}

int xofi_win_keys_stable(void)
{
    return g.domain ? g.mr_cache_safe : 0;
}
