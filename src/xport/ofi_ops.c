/* src/xport/ofi_ops.c — the libfabric transport behind the ops table: the private views chunks are
 * written through, the packet framing check on receipt, and the table slots over xport/ofi.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xport/ofi.h"
#include "xport/xport.h"

static struct {
    int rank, size;
    uint32_t slot_size, slot_shift;
    unsigned char *tx;   /* MAX_SLOTS slots: every network peer's view writes here (one packet at a time) */
    mbox_ctl tx_ctl;     /* the views' control block: never shared, never read */
    uint8_t *peer;       /* [size] 1: connected over the network */
    const xport_upcalls *up;
    int rx_bad;          /* a received packet failed the framing check: progress reports -EPROTO */
    char err[256];
} N;

#define MAX_SLOTS 255u /* a chunk's slot count is one byte; a packet is at most one chunk's worth */

static int ofi_open(const xport_params *p, char *err, size_t errlen)
{
    N.rank = p->rank;
    N.size = p->size;
    N.rx_bad = 0;
    N.err[0] = 0;
    N.slot_size = p->slot_size;
    N.slot_shift = 0;
    while ((1u << N.slot_shift) < p->slot_size)
        N.slot_shift++;
    size_t max_packet = (size_t)MAX_SLOTS * p->slot_size;
    N.tx = aligned_alloc(MBOX_CACHELINE, max_packet);
    N.peer = calloc((size_t)p->size, 1);
    if (!N.tx || !N.peer) {
        snprintf(err, errlen, "out of memory for the network send buffer");
        return -ENOMEM;
    }
    xofi_params xp = {p->rank, p->size, p->inflight_bytes, max_packet};
    return xofi_open(&xp, err, errlen);
}

static int ofi_card(char *buf, size_t len)
{
    return xofi_card(buf, len);
}

static int ofi_connect(int rank, const char *card, mbox *view, char *err, size_t errlen)
{
    if (rank < 0 || rank >= N.size || rank == N.rank) {
        snprintf(err, errlen, "rank %d out of range", rank);
        return -EINVAL;
    }
    int rc = xofi_connect(rank, card, err, errlen);
    if (rc)
        return rc;
    /* A ring that starts at index 0 and never wraps: every chunk is written from slot 0 and post
     * sends the written slots as one packet. */
    *view = (mbox){.ctl = &N.tx_ctl, .slots = N.tx, .slot_size = N.slot_size, .slot_shift = N.slot_shift,
                   .mask = UINT32_MAX, .bound = UINT32_MAX, .ring_fd = -1};
    N.peer[rank] = 1;
    return 0;
}

static void ofi_ready(void)
{
}

static uint64_t ofi_reserve(mbox *view, uint32_t n)
{
    (void)view;
    (void)n;
    return 0;
}

static int ofi_post(int dest, mbox *view, uint64_t idx, uint32_t n)
{
    return xofi_send(dest, view->slots + ((size_t)idx << N.slot_shift), (size_t)n << N.slot_shift);
}

static int ofi_mr_get(const void *buf, size_t len, void **mr, uint64_t *key, uint64_t *raddr)
{
    return xofi_mr_get(buf, len, (xofi_mr **)mr, key, raddr);
}

static void ofi_mr_put(void *mr)
{
    if (mr)
        xofi_mr_put(mr);
}

static void ofi_mr_invalidate(const void *buf, size_t len)
{
    xofi_mr_invalidate(buf, len);
}

static int ofi_read(int peer, void *local, size_t len, void *local_mr, uint64_t raddr, uint64_t key, void *ctx)
{
    if (peer < 0 || peer >= N.size || !N.peer[peer])
        return -EINVAL;
    return xofi_read(peer, local, len, local_mr, raddr, key, ctx);
}

/* A packet: one or more chunks (a send batch), each exactly as it would sit in a ring. The framing
 * is checked before anything is handed up: whole slots, each chunk's source a peer this transport
 * carries, its slot count within what is left of the packet. A packet that fails is a peer speaking
 * another protocol or a corrupted stream: nothing in it is delivered and the error names it. */
static void ofi_rx(const void *pkt, size_t len, void *arg)
{
    (void)arg;
    if (N.rx_bad)
        return;
    const uint32_t shift = N.slot_shift;
    if (len == 0 || (len & (((size_t)1 << shift) - 1)) || (len >> shift) > MAX_SLOTS) {
        snprintf(N.err, sizeof N.err, "a network packet of %zu bytes is not a whole number of %u-byte slots "
                 "(at most %u)", len, N.slot_size, MAX_SLOTS);
        N.rx_bad = 1;
        return;
    }
    mbox view = {.ctl = &N.tx_ctl, .slots = (unsigned char *)(uintptr_t)pkt, .slot_size = N.slot_size,
                 .slot_shift = shift, .mask = UINT32_MAX, .bound = UINT32_MAX, .ring_fd = -1};
    uint32_t total = (uint32_t)(len >> shift);
    for (uint32_t idx = 0; idx < total;) {
        const mbox_slot_hdr *h = mbox_hdr(&view, idx);
        uint32_t ns = h->nslots ? h->nslots : 1;
        int src = h->src;
        if (src >= N.size || !N.peer[src] || ns > total - idx) {
            snprintf(N.err, sizeof N.err, "a network chunk from rank %d of %u slots in a packet of %u: %s", src, ns,
                     total, src >= N.size || !N.peer[src] ? "no such network peer" : "longer than its packet");
            N.rx_bad = 1;
            return;
        }
        N.up->chunk(&view, src, h->kind, idx, ns);
        idx += ns;
    }
}

static void ofi_read_done(void *ctx, int status, void *arg)
{
    (void)arg;
    N.up->read_done(ctx, status);
}

static int ofi_progress(int budget, const xport_upcalls *up)
{
    N.up = up;
    int n = xofi_progress(budget, up ? ofi_rx : NULL, up ? ofi_read_done : NULL, NULL);
    if (N.rx_bad)
        return -EPROTO;
    if (n < 0)
        snprintf(N.err, sizeof N.err, "%s", xofi_last_error());
    return n;
}

static int ofi_busy(void)
{
    return xofi_busy();
}

static int ofi_wait_fd(void)
{
    return xofi_wait_fd();
}

static int ofi_sleep_ok(void)
{
    return xofi_sleep_ok();
}

static const char *ofi_error(void)
{
    return N.err[0] && N.rx_bad ? N.err : xofi_last_error();
}

static void ofi_disconnect(int rank, mbox *view)
{
    if (rank >= 0 && rank < N.size && N.peer && N.peer[rank]) {
        N.peer[rank] = 0;
        *view = (mbox){0};
    }
}

static void ofi_close(void)
{
    xofi_close();
    free(N.tx);
    free(N.peer);
    N.tx = NULL;
    N.peer = NULL;
}

const xport_ops xport_ofi = {
    .name = "ofi",
    .caps = XPORT_CAP_ASYNC_READ,
    .open = ofi_open,
    .card = ofi_card,
    .connect = ofi_connect,
    .ready = ofi_ready,
    .reserve = ofi_reserve,
    .try_reserve = NULL, /* the provider buffers: the none scheme sends without a room check */
    .post = ofi_post,
    .mr_get = ofi_mr_get,
    .mr_put = ofi_mr_put,
    .mr_invalidate = ofi_mr_invalidate,
    .read = ofi_read,
    .progress = ofi_progress,
    .busy = ofi_busy,
    .wait_fd = ofi_wait_fd,
    .sleep_ok = ofi_sleep_ok,
    .error = ofi_error,
    .disconnect = ofi_disconnect,
    .close = ofi_close,
};
