/* src/xport/ofi_none.c — the network transport's stand-in when credo is built without libfabric
 * (not found, or CREDO_OFI=OFF): every call of ofi.h fails with -ENOSYS and says why. */
#include "xport/ofi.h"

#include <errno.h>
#include <stdio.h>

static const char no_ofi[] = "this credo was built without libfabric (install libfabric-dev and rebuild)";

static int none(char *err, size_t errlen)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", no_ofi);
    return -ENOSYS;
}

int xofi_open(const xofi_params *p, char *err, size_t errlen) { return none(err, errlen); }
int xofi_card(char *buf, size_t len) { return -ENOSYS; }
int xofi_connect(int rank, const char *card, char *err, size_t errlen) { return none(err, errlen); }
int xofi_send(int dest, const void *pkt, size_t len) { return -ENOSYS; }
int xofi_progress(int budget, xofi_rx_fn on_rx, xofi_read_fn on_read, void *arg) { return -ENOSYS; }
int xofi_busy(void) { return 0; }
int xofi_mr_get(const void *buf, size_t len, xofi_mr **mr, uint64_t *key, uint64_t *raddr) { return -ENOSYS; }
void xofi_mr_put(xofi_mr *mr) {}
int xofi_mr_invalidate(const void *buf, size_t len) { return 0; }
int xofi_read(int peer, void *local, size_t len, xofi_mr *local_mr, uint64_t raddr, uint64_t key, void *ctx)
{
    return -ENOSYS;
}
int xofi_wait_fd(void) { return -1; }
int xofi_sleep_ok(void) { return 0; }
void xofi_set_stall_timeout(unsigned ms) {}
void xofi_get_stats(xofi_stats *out)
{
    if (out)
        *out = (xofi_stats){0};
}
const char *xofi_provider_name(void) { return "none"; }
const char *xofi_last_error(void) { return no_ofi; }
int xofi_built(void) { return 0; }
void xofi_close(void) {}
int xofi_win_reg(void *buf, size_t len, xofi_win_mr **mr, uint64_t *key, uint64_t *raddr) { return -ENOSYS; }
void xofi_win_dereg(xofi_win_mr *mr) {}
int xofi_rma_sync(int peer, int write, const xofi_rma_piece *pieces, size_t n, uint64_t key) { return -ENOSYS; }
void xofi_win_stats(uint64_t *writes, uint64_t *reads, uint64_t *bytes)
{
    if (writes)
        *writes = 0;
    if (reads)
        *reads = 0;
    if (bytes)
        *bytes = 0;
}
int xofi_win_keys_stable(void) { return 0; }
