/* fuzz/p2p_wire_fuzz.c — libFuzzer target for the packets the point-to-point progress engine parses:
 * everything a peer writes into this rank's ring mailbox (slot header, message header, RTS
 * descriptor, the four words of FIN / CTS / COPY_* / CANCEL*, flow-control values).
 *
 * The engine under test is the real one: this file #includes the engine (src/p2p/p2p_*.c but p2p_init.c), so its static functions
 * run unchanged, and links the real mailbox (src/xport/shm_mbox.c) and flow control (src/fc). What
 * is replaced is what lies above or beside p2p: boot and PMI (a fixed in-process world of 2-4 ranks
 * in which this process is rank 0 and every peer's segment is created here with mbox_create and
 * mapped again with mbox_attach, as p2p_init does), credo_abort (it longjmps back here: ending the
 * job with "protocol error: ..." is the right answer to a bad packet), the clock (a virtual one the
 * input advances, so the pipelined-copy takeover's 50 us rules are reproducible) and malloc/free of
 * the engine (counted, so everything the engine holds is freed between inputs, and an input that makes
 * it hold more than FZ_LIVE_MAX bytes is reported as an allocation without bound).
 *
 * An input is one configuration byte (world, CMA, rendezvous path, send batching, eager limit) and
 * then a sequence of operations: packets written into our ring as peers 1..N-1 would write them
 * (through a writer's mapping of our segment: reserve, fill, mark, publish), this rank's own
 * irecv / isend / cancel / request free / probe / matched probe, waits (in_wait up), the peers'
 * in_wait and copy done words, time passing, and progress passes. Words that name one of our
 * requests or copies can be drawn from the engine's real names (req_handle, copy_recv ids and
 * transfer numbers), so FIN, CTS, COPY_DATA, COPY_ACK, COPY_END and CANCEL_ACK reach matching
 * requests; any other value is reachable raw. A rendezvous descriptor's address can point into a
 * buffer of this process (CMA then reads it: every peer's pid is ours), at a prepush unit, or
 * anywhere (process_vm_readv then fails with EFAULT and the engine aborts). Reading our own
 * address space with CMA is safe: it only copies into a receive buffer of the size the engine
 * bounds it to, and AddressSanitizer checks that write (its process_vm_readv interceptor).
 *
 * Besides the sanitizers, the harness reports: a request completed twice, a progress loop that
 * never goes idle, and the engine's live heap above FZ_LIVE_MAX. User buffers are malloc'd to their
 * exact length and freed when the program would free them (its request completed and freed), so an
 * engine that reads or writes a buffer it no longer owns is caught as an overflow or a use after
 * free. Our segment gets a PROT_NONE page right after its end, so a prepush unit past the area
 * faults.
 *
 * Build and run: make fuzz [FUZZ_SECONDS=600] (fuzz/README.md). */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "core/core.h"
/* The engine's clock (now_ns, inline in p2p_impl.h) is the virtual one below. */
static int fz_clock_gettime(clockid_t c, struct timespec *ts);
#define clock_gettime(c, ts) fz_clock_gettime(c, ts)
#include "p2p/p2p_impl.h"
#include "xport/ofi.h" /* the libfabric layer the harness stands in for */

/* ------------------------------------------------------------------------------------------------
 * What the engine gets instead of libc's allocator and clock */

#define FZ_LIVE_MAX ((size_t)256 << 20)

typedef struct fz_blk {
    struct fz_blk *prev, *next;
    size_t size;
    size_t pad; /* 32 bytes: the block stays 16-byte aligned */
} fz_blk;

static fz_blk fz_live = {&fz_live, &fz_live, 0, 0};
static size_t fz_live_bytes;

static void *fz_malloc(size_t n)
{
    if (n > FZ_LIVE_MAX || fz_live_bytes + n > FZ_LIVE_MAX) {
        fprintf(stderr, "p2p_wire_fuzz: the engine holds %zu bytes and asks for %zu more: allocation without bound\n",
                fz_live_bytes, n);
        abort();
    }
    fz_blk *b = malloc(sizeof *b + n);
    if (!b)
        return NULL;
    b->size = n;
    b->next = fz_live.next;
    b->prev = &fz_live;
    fz_live.next->prev = b;
    fz_live.next = b;
    fz_live_bytes += n;
    return b + 1;
}

static void *fz_calloc(size_t a, size_t b)
{
    if (b && a > SIZE_MAX / b)
        return NULL;
    void *p = fz_malloc(a * b);
    if (p)
        memset(p, 0, a * b);
    return p;
}

static void fz_free(void *p)
{
    if (!p)
        return;
    fz_blk *b = (fz_blk *)p - 1;
    b->prev->next = b->next;
    b->next->prev = b->prev;
    fz_live_bytes -= b->size;
    free(b);
}

static void *fz_realloc(void *p, size_t n)
{
    if (!p)
        return fz_malloc(n);
    fz_blk *b = (fz_blk *)p - 1;
    void *q = fz_malloc(n);
    if (!q)
        return NULL;
    memcpy(q, p, b->size < n ? b->size : n);
    fz_free(p);
    return q;
}

static void fz_free_all(void)
{
    while (fz_live.next != &fz_live)
        fz_free(fz_live.next + 1);
}

static uint64_t fz_now_ns = 1000000000ull;

static int fz_clock_gettime(clockid_t c, struct timespec *ts)
{
    (void)c;
    fz_now_ns += 100; /* every look at the clock takes a little time */
    ts->tv_sec = (time_t)(fz_now_ns / 1000000000ull);
    ts->tv_nsec = (long)(fz_now_ns % 1000000000ull);
    return 0;
}

#define malloc(n) fz_malloc(n)
#define calloc(a, b) fz_calloc(a, b)
#define realloc(p, n) fz_realloc(p, n)
#define free(p) fz_free(p)
#include "../src/p2p/p2p_req.c"
#include "../src/p2p/p2p_eager.c"
#include "../src/p2p/p2p_rndv.c"
#include "../src/p2p/p2p_ctrl.c"
#include "../src/p2p/p2p_progress.c"
#undef malloc
#undef calloc
#undef realloc
#undef free
#undef clock_gettime
/* The shared-memory transport too, for its state (the peers' pids for CMA reads, our ring's
 * receive side), which the harness sets up as xport_shm.open and connect would. */
#include "../src/xport/shm.c"

/* ------------------------------------------------------------------------------------------------
 * libfabric as the network transport's table (xport/ofi_ops.c, the real one) sees it
 * (P2P_FUZZ_NET): packets sent vanish, registrations succeed, a posted read completes at the next
 * progress pass (its ctx handed back, as the real transport does), nothing arrives but the packet
 * fz_packet leaves in fz_rx_pkt, which the next progress hands to the table's receive path: its
 * framing check, then the engine's chunk handlers. */
enum { FZ_READS = 1024 };
static void *fz_read_ctx[FZ_READS];
static int fz_nreads;
static int fz_reads_reversed; /* the last pass completed its reads newest first */
static const unsigned char *fz_rx_pkt;
static size_t fz_rx_len;
int xofi_open(const xofi_params *p, char *err, size_t errlen) { return 0; }
int xofi_card(char *buf, size_t len) { return snprintf(buf, len, "fz") < 0 ? -1 : 0; }
int xofi_connect(int rank, const char *card, char *err, size_t errlen) { return rank == 1 ? 0 : -EINVAL; }
void xofi_close(void) {}
int xofi_send(int dest, const void *pkt, size_t len)
{
    return dest == 1 && len > 0 ? 0 : -EINVAL;
}
int xofi_progress(int budget, xofi_rx_fn on_rx, xofi_read_fn on_read, void *arg)
{
    if (fz_rx_pkt && on_rx) {
        const unsigned char *pkt = fz_rx_pkt;
        fz_rx_pkt = NULL;
        on_rx(pkt, fz_rx_len, arg);
    }
    int n = fz_nreads;
    void *ctx[FZ_READS];
    memcpy(ctx, fz_read_ctx, (size_t)n * sizeof *ctx);
    fz_nreads = 0;
    /* Read completions may come in any order (xport.h): every other pass hands them back newest
     * first, so a window of reads completes out of order. */
    if (fz_reads_reversed ^= 1)
        for (int i = 0; i < n / 2; i++) {
            void *t = ctx[i];
            ctx[i] = ctx[n - 1 - i];
            ctx[n - 1 - i] = t;
        }
    for (int i = 0; i < n; i++)
        if (on_read)
            on_read(ctx[i], 0, arg);
    return n;
}
int xofi_busy(void) { return 0; }
int xofi_mr_get(const void *buf, size_t len, xofi_mr **mr, uint64_t *key, uint64_t *raddr)
{
    *mr = NULL;
    *key = 7;
    *raddr = (uint64_t)(uintptr_t)buf;
    return 0;
}
void xofi_mr_put(xofi_mr *mr) { (void)mr; }
int xofi_mr_invalidate(const void *buf, size_t len) { return 0; }
int xofi_read(int peer, void *local, size_t len, xofi_mr *local_mr, uint64_t raddr, uint64_t key, void *ctx)
{
    if (peer != 1 || len == 0 || fz_nreads == FZ_READS)
        return -EINVAL;
    fz_read_ctx[fz_nreads++] = ctx;
    return 0;
}
int xofi_wait_fd(void) { return -1; }
int xofi_sleep_ok(void) { return 1; }
const char *xofi_last_error(void) { return "the fuzz harness's transport"; }

/* ------------------------------------------------------------------------------------------------
 * The environment the engine needs from the layers above it */

credo_runtime credo_rt;
static jmp_buf fz_jmp;
static int fz_armed;
static char fz_abort_msg[512];

_Noreturn void credo_abort(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fz_abort_msg, sizeof fz_abort_msg, fmt, ap);
    va_end(ap);
    (void)code;
    if (!fz_armed) {
        fprintf(stderr, "p2p_wire_fuzz: credo_abort outside an input: %s\n", fz_abort_msg);
        abort();
    }
    longjmp(fz_jmp, 1);
}

uint64_t credo_now_ns(void)
{
    return fz_now_ns;
}

/* ------------------------------------------------------------------------------------------------
 * The worlds: fixed jobs of 2-4 ranks with real segments, set up once */

typedef struct fz_world_cfg {
    int nranks;
    const char *fc;
    uint32_t slot_size, slots_per_peer, credit_slots;
    size_t copy_chunk, prepush_bytes;
} fz_world_cfg;

/* Valid CREDO_* settings (src/core/config.c): 100k and 200k prepush areas are cut into 100 and 200
 * units of 1 KiB, so the last bitmap word is only partly backed by the area. */
static const fz_world_cfg fz_cfgs[4] = {
    {2, "static", 64, 256, 2, 4096, 64 << 10},
    {3, "dynamic", 128, 16, 2, 8192, 100 << 10},
    {2, "none", 64, 8, 2, 4096, 0},
    {4, "static", 64, 8, 2, 4096, 200 << 10},
};

typedef struct fz_world {
    const fz_world_cfg *cfg;
    const fc_ops *fc;
    fc_params fp;
    uint32_t bound;
    mbox seg[4];   /* each rank's segment as its owner created it (seg[0] is ours) */
    mbox view[4];  /* our mappings of the peers' segments (p2p_init's mbox_attach); view[0]: zero */
    mbox writer;   /* a peer's mapping of our segment: the packets are written through it */
} fz_world;

static fz_world fz_worlds[4];

static void fz_die(const char *what, const char *err)
{
    fprintf(stderr, "p2p_wire_fuzz: %s: %s\n", what, err);
    exit(2);
}

static void fz_world_init(int w)
{
    fz_world *W = &fz_worlds[w];
    const fz_world_cfg *c = &fz_cfgs[w];
    char err[256], name[96];
    W->cfg = c;
    W->fc = fc_lookup(c->fc);
    if (!W->fc)
        fz_die(c->fc, "no such flow-control scheme");
    W->fp = (fc_params){(uint32_t)c->nranks, 0, c->slots_per_peer, c->credit_slots};
    W->bound = W->fc->mailbox_slots(&W->fp);
    if (W->bound < 2)
        W->bound = 2;
    for (int r = 0; r < c->nranks; r++) {
        snprintf(name, sizeof name, "/credo.p2pfuzz.%d.%d.%d", (int)getpid(), w, r);
        shm_unlink(name);
        if (mbox_create(&W->seg[r], name, c->slot_size, W->bound, (uint32_t)c->nranks, 2 * c->copy_chunk,
                        c->prepush_bytes, r, err, sizeof err))
            fz_die("mbox_create", err);
        if (r == 0) {
            if (mbox_attach(&W->writer, name, err, sizeof err))
                fz_die("mbox_attach", err);
        } else if (mbox_attach(&W->view[r], name, err, sizeof err)) {
            fz_die("mbox_attach", err);
        }
        shm_unlink(name);
    }
    /* A page nobody may touch right after our segment, so a prepush copy past the area faults
     * instead of landing in whatever the kernel mapped next (another segment, here): the harness
     * moves the owner's mapping into a reserved range whose last page stays PROT_NONE. */
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    size_t len = (W->seg[0].seg_bytes + pg - 1) & ~(pg - 1);
    unsigned char *res = mmap(NULL, len + pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (res == MAP_FAILED)
        fz_die("mmap", strerror(errno));
    unsigned char *old = (unsigned char *)W->seg[0].ctl;
    unsigned char *moved = mremap(old, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, res);
    if (moved == MAP_FAILED)
        fz_die("mremap", strerror(errno));
    mbox *m = &W->seg[0];
    m->ctl = (mbox_ctl *)(void *)moved;
    m->slots = moved + (m->slots - old);
    m->pp_area = moved + (m->pp_area - old);
    m->copy_done = (_Atomic uint64_t *)(void *)(moved + ((unsigned char *)m->copy_done - old));
}

/* ------------------------------------------------------------------------------------------------
 * Requests and buffers of "the program" (this rank) */

#define FZ_NREQ 32
#define FZ_MAX_BUF ((size_t)256 << 10)

typedef struct fz_rec {
    int completions; /* on_complete calls: more than one is a finding */
} fz_rec;

typedef struct fz_slot {
    p2p_req *req;
    unsigned char *buf;
    size_t len;
    fz_rec *rec;
    int is_send;
} fz_slot;

static fz_slot fz_reqs[FZ_NREQ];
/* buffers of requests the program freed before they completed: MPI forbids reusing them until the
 * operation is over, which the program cannot see, so they live until the input ends */
static unsigned char **fz_zombie;
static int fz_nzombie, fz_zombie_cap;
static fz_rec *fz_recs[4 * FZ_NREQ + 64];
static int fz_nrecs;
static p2p_msg *fz_msgs[4];
static int fz_block_left;           /* yields a blocking call may still make (fz_block) */
static unsigned char *fz_block_buf; /* its buffer */
static unsigned char fz_peer_mem[256 << 10]; /* what RTS addresses point into for CMA reads */
static _Alignas(64) unsigned char fz_stage[32 * 128];
static unsigned char *fz_pkt; /* the packet the transport's receive path reads, of its exact length; kept reachable
                               * (freed at the next packet) when the engine aborts in the middle */

static void fz_on_complete(p2p_req *req)
{
    fz_rec *r = req->upper;
    if (r && ++r->completions > 1) {
        fprintf(stderr, "p2p_wire_fuzz: a request completed twice (kind %d)\n", req->kind);
        abort();
    }
}

static fz_rec *fz_new_rec(void)
{
    if (fz_nrecs == (int)(sizeof fz_recs / sizeof fz_recs[0]))
        return NULL;
    fz_rec *r = calloc(1, sizeof *r);
    fz_recs[fz_nrecs++] = r;
    return r;
}

static void fz_hook(p2p_req *req, fz_rec *rec)
{
    /* a request that completed inside the call that made it ran no hook */
    if (req->done && rec)
        rec->completions = 1;
    req->upper = rec;
    req->on_complete = fz_on_complete;
}

/* ------------------------------------------------------------------------------------------------
 * The input */

typedef struct fz_in {
    const uint8_t *p;
    size_t n;
} fz_in;

static uint8_t g8(fz_in *in)
{
    if (!in->n)
        return 0;
    in->n--;
    return *in->p++;
}

static uint16_t g16(fz_in *in)
{
    return (uint16_t)(g8(in) | (uint16_t)g8(in) << 8);
}

static uint32_t g32(fz_in *in)
{
    return (uint32_t)g16(in) | (uint32_t)g16(in) << 16;
}

static uint64_t g64(fz_in *in)
{
    return (uint64_t)g32(in) | (uint64_t)g32(in) << 32;
}

/* Lengths: the sizes where the engine changes path (one slot, eager limit, stream prepush, prepush
 * units and limit, copy chunks) are one byte away. */
static const uint64_t fz_sizes[48] = {
    0, 1, 7, 8, 32, 40, 41, 56, 57, 96, 97, 104, 105, 120, 152, 208, 209, 384, 385, 448, 512, 513, 1000, 1024,
    1025, 2048, 3072, 3073, 4095, 4096, 4097, 8191, 8192, 8193, 12288, 16384, 32768, 65535, 65536, 65537,
    100000, 131071, 131072, 131073, 262144, 1048576, 1048577, 0xffffffffull,
};

static uint64_t g_len(fz_in *in)
{
    uint8_t b = g8(in);
    if (b < 0x80)
        return b;
    if (b < 0xa0)
        return (uint64_t)(b - 0x80) << 8 | g8(in);
    if (b < 0xc0)
        return (uint64_t)(b - 0xa0) << 16 | g16(in);
    if (b < 0xf0)
        return fz_sizes[(b - 0xc0) % 48];
    if (b < 0xf8)
        return g32(in);
    return g64(in);
}

static int32_t g_tag(fz_in *in)
{
    uint8_t b = g8(in);
    if (b < 0xf0)
        return b & 7;
    if (b == 0xff)
        return (int32_t)g32(in);
    return -1 - (b & 7);
}

static preq *fz_preq(int k)
{
    return fz_reqs[k % FZ_NREQ].req ? (preq *)fz_reqs[k % FZ_NREQ].req : NULL;
}

static copy_recv *fz_crecv(int k)
{
    copy_recv *c = P.crecv_head;
    while (c && k--)
        c = c->next;
    return c;
}

/* One 64-bit word of a control packet: small numbers, the engine's own names for our requests and
 * copies (possibly one off), lengths, or raw bits. */
static uint64_t g_word(fz_in *in, int src)
{
    uint8_t s = g8(in);
    if (s < 0x40)
        return s;
    if (s < 0x60) { /* the handle of one of our requests, sometimes with a generation off by one */
        preq *r = fz_preq(s & 31);
        if (!r)
            return 0;
        uint64_t h = req_handle(r);
        uint8_t v = g8(in);
        return v < 0xf0 ? h : v < 0xf8 ? h + (1ull << 32) : h - (1ull << 32);
    }
    if (s < 0x68) {
        copy_recv *c = fz_crecv(s & 7);
        return c ? c->id : 0;
    }
    if (s < 0x70) {
        copy_recv *c = fz_crecv(s & 7);
        return c ? c->seq : 0;
    }
    if (s < 0x78) { /* our copy to src: its transfer number, its length, the offset of its last
                     * staged chunk; or src's CTS count around the last one */
        copy_job *j = P.copy_head;
        if ((s & 7) == 0)
            return j ? j->seq : 0;
        if ((s & 7) == 1)
            return j ? j->total : 0;
        if ((s & 7) == 2)
            return j ? j->staged - (j->staged ? (j->staged - 1) % P.copy_chunk + 1 : 0) : 0;
        return src >= 0 && src < P.size ? P.dq[src].cts_got + (s & 7) - 4 : 0;
    }
    if (s < 0x80) { /* a prepush unit, + 1 as FIN and CANCEL_ACK carry it */
        return (uint64_t)g8(in) + (s & 1);
    }
    if (s < 0xa0) { /* the length of one of our buffers, possibly one more */
        fz_slot *f = &fz_reqs[s & 31];
        return f->req ? f->len + (g8(in) & 1) : 0;
    }
    if (s < 0xf0)
        return g_len(in);
    if (s < 0xf8)
        return g32(in);
    return g64(in);
}

static int fz_n; /* ranks of the current world */
/* P2P_FUZZ_NET=1: peer 1 is on the network transport. Its chunks arrive as network packets through
 * the transport's receive path (the packet's length drawn from the input too), the others through
 * the ring; what the engine sends to it goes to the transport's stand-in, whose refusal ends the
 * input like an abort. */
static int fz_net;
static uint64_t fz_eager_left[4]; /* bytes of each peer's current eager message not yet written */

/* Findings reported against src/p2p that the fuzzer should step around until they are fixed, so a
 * run can look for others: P2P_FUZZ_AVOID=name,name (fuzz/README.md lists them). Each one changes
 * only what the harness's peers write, never the engine. */
enum {
    FZ_AVOID_SELF_SRC = 1,  /* a slot header naming this rank */
    FZ_AVOID_CTS_LEN = 2,   /* a CTS asking for more bytes than the send has */
    FZ_AVOID_FIN_STATE = 4, /* a FIN, or a CANCEL_ACK saying "dropped", for a send not waiting for one */
    FZ_AVOID_PP_UNITS = 8,  /* a FIN or CANCEL_ACK returning prepush units past the area */
    FZ_AVOID_MIDWAY = 16,   /* a new EAGER or RTS while that peer's eager message is incomplete */
};
static unsigned fz_avoid;

static void fz_avoid_parse(const char *list)
{
    static const struct {
        const char *name;
        unsigned bit;
    } names[] = {{"self_src", FZ_AVOID_SELF_SRC},
                   {"cts_len", FZ_AVOID_CTS_LEN},
                   {"fin_state", FZ_AVOID_FIN_STATE},
                   {"prepush_units", FZ_AVOID_PP_UNITS},
                   {"midway", FZ_AVOID_MIDWAY}};
    for (const char *p = list; p && *p;) {
        size_t n = strcspn(p, ",");
        unsigned k;
        for (k = 0; k < sizeof names / sizeof names[0]; k++)
            if (strlen(names[k].name) == n && strncmp(p, names[k].name, n) == 0)
                break;
        if (k == sizeof names / sizeof names[0]) {
            fprintf(stderr, "p2p_wire_fuzz: P2P_FUZZ_AVOID: unknown name '%.*s'\n", (int)n, p);
            exit(2);
        }
        fz_avoid |= names[k].bit;
        p += n + (p[n] == ',');
    }
}

/* A slot header's rank: usually a peer, sometimes this rank or any 16-bit value. */
static int g_src(fz_in *in)
{
    uint8_t b = g8(in);
    int src = b < 0xf0 ? 1 + b % (fz_n - 1) : b < 0xf8 ? 0 : g16(in);
    return src == 0 && (fz_avoid & FZ_AVOID_SELF_SRC) ? 1 : src;
}

/* ------------------------------------------------------------------------------------------------
 * Engine state: a fresh p2p_init for rank 0 of the chosen world, per input */

static fz_world *W;
static int fz_verbose; /* P2P_FUZZ_VERBOSE set: one line per input (how it ended, what it reached) */

static void fz_engine_reset(int w, uint8_t cfg)
{
    W = &fz_worlds[w];
    const fz_world_cfg *c = W->cfg;
    fz_n = c->nranks;
    /* the segments as freshly created: every seq 0, tail and head 0, flags and done words clear */
    for (int r = 0; r < c->nranks; r++) {
        mbox *m = &W->seg[r];
        memset(m->slots, 0, ((size_t)m->mask + 1) << m->slot_shift);
        atomic_store(&m->ctl->tail, 0);
        atomic_store(&m->ctl->head, 0);
        atomic_store(&m->ctl->sleepers, 0);
        atomic_store(&m->ctl->in_wait, 0);
        for (int k = 0; k < c->nranks; k++)
            atomic_store(&m->copy_done[k], 0);
    }
    memset(&P, 0, sizeof P);
    fz_nreads = 0; /* reads of an earlier input (that one may have ended in an abort) */
    fz_reads_reversed = 0;
    atomic_store(&app_in_wait_step, 0);
    P.rank = 0;
    P.size = c->nranks;
    P.fc = W->fc;
    char err[256];
    if (P.fc->create(&W->fp, &P.fcs, err, sizeof err))
        fz_die("flow control", err);
    P.fc_credits = strcmp(P.fc->name, "none") != 0;
    static const size_t eager[4] = {512, 3072, 0, 100};
    P.eager_limit = eager[cfg >> 6];
    P.first_room = c->slot_size - sizeof(mbox_slot_hdr) - sizeof(p2p_msg_hdr);
    P.copy_chunk = c->copy_chunk;
    P.cma_ok = (cfg >> 2) & 1;
    switch ((cfg >> 3) & 3) {
    case 0: /* auto */
        P.cma_min = SIZE_MAX;
        P.cma_idle = 1;
        break;
    case 1: /* CMA for every rendezvous */
        P.cma_min = 0;
        break;
    case 2: /* the copy for every one */
        P.cma_min = SIZE_MAX;
        break;
    default:
        P.cma_min = 4096;
    }
    P.stream_min = P.eager_limit <= STREAM_PREPUSH_EAGER_MAX ? STREAM_PREPUSH_MIN : SIZE_MAX;
    P.yield_ns = 2000000;
    P.spin_polls = 1;
    int n = c->nranks;
    P.peer = fz_calloc((size_t)n, sizeof *P.peer);
    P.cached_head = fz_calloc((size_t)n, sizeof *P.cached_head);
    P.uq = fz_calloc((size_t)n, sizeof *P.uq);
    P.rs = fz_calloc((size_t)n, sizeof *P.rs);
    P.dq = fz_calloc((size_t)n, sizeof *P.dq);
    P.active = fz_calloc((size_t)n, sizeof *P.active);
    P.held_src = fz_calloc((size_t)n, sizeof *P.held_src);
    P.active_from = fz_calloc((size_t)n, sizeof *P.active_from);
    P.fin_wait = fz_calloc((size_t)n, sizeof *P.fin_wait);
    P.xo = fz_calloc((size_t)n, sizeof *P.xo);
    P.node = fz_calloc((size_t)n, sizeof *P.node);
    for (int r = 0; r < n; r++)
        P.xo[r] = fz_net && r == 1 ? &xport_ofi : &xport_shm;
    if (fz_net) {
        P.nnet = 1;
        P.xnet = &xport_ofi;
        P.net_eager_limit = P.eager_limit ? 4 * P.eager_limit : 1024;
        P.rts_inline_max = 1024;
        P.rndv_chunk = 4096;
        P.rndv_window = 2;
    }
    P.wake_fd = -1;
    P.probe_src = -2;
    P.last_isend_dest = -1;
    P.send_batch = P.fc_credits && (cfg & 0x20) ? 32 : 0;
    if (P.send_batch) {
        P.stage = fz_stage;
        P.stage_used = fz_calloc(P.send_batch, sizeof *P.stage_used);
        P.stage_req = fz_calloc(P.send_batch, sizeof *P.stage_req);
        P.stage_chunk_slots = fz_calloc(P.send_batch, sizeof *P.stage_chunk_slots);
    }
    P.self = W->seg[0];
    for (int r = 1; r < n; r++)
        P.peer[r] = W->view[r]; /* P.peer[0] stays zero, as p2p_init leaves it */
    P.staging = (unsigned char *)P.self.ctl + P.self.ctl->staging_off;
    size_t nunits = P.self.pp_nunits;
    P.prepush_words = (unsigned)((nunits + 63) / 64);
    for (size_t u = 0; u < nunits; u++)
        P.prepush_free[u / 64] |= (uint64_t)1 << (u % 64);
    /* the shared-memory transport's state, as its open and connects leave it */
    S.rank = 0;
    S.size = n;
    S.self = &P.self;
    S.pid = fz_calloc((size_t)n, sizeof *S.pid);
    S.ctl = NULL;
    for (int r = 0; r < n; r++)
        S.pid[r] = getpid(); /* CMA reads of any peer read this process */
    S.rx = (xshm_rx){0};
    S.cma_ok = P.cma_ok;
    P.rx = &S.rx;
    if (fz_net) {
        xport_params xp = {.rank = 0, .size = n, .slot_size = P.self.slot_size, .bound = W->bound};
        if (xport_ofi.open(&xp, err, sizeof err) || xport_ofi.connect(1, "fz", &P.peer[1], err, sizeof err))
            fz_die("the network transport's table", err);
    }
    P.st.mailbox_slots = W->bound;
}

static void fz_engine_teardown(void)
{
    if (P.fcs)
        P.fc->destroy(P.fcs);
    if (fz_net)
        xport_ofi.close();
    fz_rx_pkt = NULL;
    S.pid = NULL; /* fz_free_all frees it */
    memset(&P, 0, sizeof P);
    fz_free_all(); /* every request, queue entry, copy record and table the engine held */
    for (int k = 0; k < FZ_NREQ; k++) {
        free(fz_reqs[k].buf);
        fz_reqs[k] = (fz_slot){0};
    }
    free(fz_block_buf);
    fz_block_buf = NULL;
    for (int k = 0; k < fz_nzombie; k++)
        free(fz_zombie[k]);
    fz_nzombie = 0;
    for (int k = 0; k < fz_nrecs; k++)
        free(fz_recs[k]);
    fz_nrecs = 0;
    memset(fz_msgs, 0, sizeof fz_msgs);
}

/* ------------------------------------------------------------------------------------------------
 * Operations */

#define FZ_IDLE_PASSES 4096

/* Progress until a pass finds nothing to do; a loop that never gets there is a finding. */
static void fz_progress_idle(void)
{
    for (int i = 0; i < FZ_IDLE_PASSES; i++)
        if (p2p_progress() == 0)
            return;
    fprintf(stderr, "p2p_wire_fuzz: %d progress passes and still busy\n", FZ_IDLE_PASSES);
    abort();
}

/* A peer writes one chunk into our ring, as send_push and try_write_ctrl do. Returns 0 when the
 * peers stop (the ring stays full). */
static int fz_packet(fz_in *in)
{
    mbox *wm = &W->writer;
    uint32_t cap = wm->mask + 1, ss = wm->slot_size;
    int src = g_src(in);
    uint8_t kb = g8(in);
    uint8_t kind = kb < 0xf0 ? (uint8_t)(1 + kb % 13) : (uint8_t)(kb == 0xff ? g8(in) : 0);
    /* the peers' own view of their eager messages (the engine may not have polled them yet) */
    uint64_t *rem = src < (int)(sizeof fz_eager_left / sizeof fz_eager_left[0]) ? &fz_eager_left[src] : NULL;
    if ((fz_avoid & FZ_AVOID_MIDWAY) && (kind == P2P_PKT_EAGER || kind == P2P_PKT_RTS) && rem && *rem)
        kind = P2P_PKT_EAGER_CONT;
    uint8_t nsb = 1;
    if (kind == P2P_PKT_EAGER || kind == P2P_PKT_EAGER_CONT)
        nsb = g8(in);
    uint32_t ns = nsb ? nsb : 1;
    if (ns > cap) /* the engine refuses it; the writer could not write more than the ring anyway */
        ns = cap;
    /* room: the owner reads every ready chunk, so progress makes some unless it is stuck */
    for (int tries = 0; atomic_load(&wm->ctl->tail) + ns - P.rx->head > cap; tries++) {
        uint64_t h = P.rx->head;
        p2p_progress();
        if (P.rx->head == h && tries > 8)
            return 0;
    }
    unsigned char img[4096];
    memset(img, 0x5a, ss);
    unsigned char *pl = img + sizeof(mbox_slot_hdr);
    switch (kind) {
    case P2P_PKT_EAGER:
    case P2P_PKT_RTS: {
        p2p_msg_hdr mh;
        mh.tag = g_tag(in);
        mh.ctx = g8(in) & 3;
        uint64_t len = g_len(in);
        uint8_t pb = g8(in);
        mh.piggy = pb < 0xf0 ? pb & 3 : g16(in);
        uint8_t fb = g8(in);
        mh.flags = fb < 0xf0 ? fb & 1 : g16(in);
        p2p_rts rd = {0, len, 0, 0};
        if (kind == P2P_PKT_RTS) {
            uint8_t a = g8(in);
            if (a < 0x80) /* into fz_peer_mem */
                rd.addr = (uint64_t)(uintptr_t)fz_peer_mem + (uint64_t)(a & 0x3f) * 4096;
            else if (a < 0xc0) /* a prepushed unit */
                rd.addr = P2P_RTS_PREPUSHED | (uint64_t)(a & 0x3f) * (a & 0x40 ? 2 : 1);
            else if (a < 0xe0) /* nowhere */
                rd.addr = 0x1000 * (uint64_t)(a & 0x1f);
            else
                rd.addr = g64(in);
            rd.sreq = g_word(in, src);
            memcpy(pl + sizeof mh, &rd, sizeof rd);
        }
        mh.len = (uint32_t)len;
        memcpy(pl, &mh, sizeof mh);
        if (kind == P2P_PKT_EAGER && rem) {
            size_t chunk = mbox_chunk_bytes(wm, FIRST_OFF, ns);
            *rem = mh.len > chunk ? mh.len - chunk : 0;
        }
        break;
    }
    case P2P_PKT_EAGER_CONT:
        if (rem) {
            size_t chunk = mbox_chunk_bytes(wm, CONT_OFF, ns);
            *rem = *rem > chunk ? *rem - chunk : 0;
        }
        break;
    case P2P_PKT_FC_CREDIT:
    case P2P_PKT_FC_REQUEST:
    case P2P_PKT_FC_RESPONSE: {
        uint8_t b = g8(in);
        uint32_t v = b < 0xf0 ? b : g32(in);
        memcpy(pl, &v, sizeof v);
        break;
    }
    case P2P_PKT_FIN:
    case P2P_PKT_CTS:
    case P2P_PKT_COPY_DATA:
    case P2P_PKT_COPY_ACK:
    case P2P_PKT_CANCEL:
    case P2P_PKT_CANCEL_ACK:
    case P2P_PKT_COPY_END: {
        uint64_t w4[4];
        for (int k = 0; k < 4; k++)
            w4[k] = g_word(in, src);
        preq *s = src < P.size ? req_from_handle(w4[0], src) : NULL;
        if (kind == P2P_PKT_CTS && (fz_avoid & FZ_AVOID_CTS_LEN) && s && w4[2] > s->len)
            w4[2] = s->len;
        if ((fz_avoid & FZ_AVOID_FIN_STATE) && s && s->state != PREQ_SEND_WAIT_FIN) {
            if (kind == P2P_PKT_FIN)
                w4[0] = 0;
            if (kind == P2P_PKT_CANCEL_ACK)
                w4[1] = 0;
        }
        if ((fz_avoid & FZ_AVOID_PP_UNITS) && (kind == P2P_PKT_FIN || kind == P2P_PKT_CANCEL_ACK)) {
            uint64_t *first = &w4[kind == P2P_PKT_FIN ? 1 : 2];
            if (*first && *first - 1 + w4[kind == P2P_PKT_FIN ? 2 : 3] > P.self.pp_nunits)
                *first = 0;
        }
        memcpy(pl, w4, sizeof w4);
        break;
    }
    default: /* unknown kinds: raw payload */
        for (uint32_t k = 0; k < 32 && in->n; k++)
            pl[k] = g8(in);
    }
    if (fz_net && src == 1) {
        /* the same chunk as one network packet: slots 0..ns-1 of a contiguous buffer, its length
         * usually exact, sometimes what the input says (short, ragged, longer than the chunk) */
        static unsigned char pkt[255 * 4096 + 64];
        size_t plen = (size_t)ns * ss;
        uint8_t lb = g8(in);
        if (lb >= 0xf8)
            plen = (size_t)g16(in) % (sizeof pkt + 1);
        memset(pkt, 0xa5, plen < sizeof pkt ? plen : sizeof pkt);
        memcpy(pkt, img, ss < plen ? ss : plen);
        if (plen >= sizeof(mbox_slot_hdr)) {
            mbox_slot_hdr h = {0, (uint16_t)src, kind, nsb};
            memcpy(pkt, &h, sizeof h);
        }
        free(fz_pkt);
        fz_pkt = malloc(plen ? plen : 1); /* exact size: ASan sees any read past it */
        memcpy(fz_pkt, pkt, plen);
        fz_rx_pkt = fz_pkt;
        fz_rx_len = plen;
        net_progress(); /* the transport's framing check, then the engine's handlers */
        free(fz_pkt);
        fz_pkt = NULL;
        return 1;
    }
    uint64_t idx = mbox_reserve(wm, ns);
    memcpy(mbox_slot(wm, idx) + sizeof(mbox_slot_hdr), pl, ss - sizeof(mbox_slot_hdr));
    for (uint32_t k = 1; k < ns; k++) {
        memset(mbox_slot(wm, idx + k) + sizeof(mbox_slot_hdr), 0xa5, ss - sizeof(mbox_slot_hdr));
        mbox_mark(wm, idx + k);
    }
    mbox_fill_hdr(wm, idx, (uint16_t)src, kind, nsb);
    mbox_publish(wm, idx);
    return 1;
}

static int fz_free_slot_index(void)
{
    for (int k = 0; k < FZ_NREQ; k++)
        if (!fz_reqs[k].req)
            return k;
    return -1;
}

static void fz_send(fz_in *in, int batchable)
{
    int k = fz_free_slot_index();
    int dest = g8(in) % fz_n;
    int tag = g8(in) & 7;
    uint32_t ctx = g8(in) & 3;
    size_t len = (size_t)g_len(in);
    int mode = g8(in) % 3;
    if (k < 0 || len > FZ_MAX_BUF)
        return;
    fz_slot *f = &fz_reqs[k];
    f->buf = malloc(len);
    f->len = len;
    if (len)
        memset(f->buf, 0x3c, len);
    p2p_req *r = NULL;
    int rc = batchable ? p2p_isend_batchable(f->buf, len, dest, tag, ctx, mode, &r)
                       : p2p_isend(f->buf, len, dest, tag, ctx, mode, &r);
    if (rc) {
        free(f->buf);
        *f = (fz_slot){0};
        return;
    }
    f->req = r;
    f->is_send = 1;
    f->rec = fz_new_rec();
    fz_hook(r, f->rec);
}

static void fz_recv(fz_in *in)
{
    int k = fz_free_slot_index();
    uint8_t sb = g8(in);
    int src = sb >= 0xf0 ? P2P_ANY_SOURCE : sb % fz_n;
    uint8_t tb = g8(in);
    int tag = tb >= 0xf0 ? P2P_ANY_TAG : tb & 7;
    uint32_t ctx = g8(in) & 3;
    size_t len = (size_t)g_len(in);
    if (k < 0 || len > FZ_MAX_BUF)
        return;
    fz_slot *f = &fz_reqs[k];
    f->buf = malloc(len);
    f->len = len;
    p2p_req *r = NULL;
    if (p2p_irecv(f->buf, len, src, tag, ctx, &r)) {
        free(f->buf);
        *f = (fz_slot){0};
        return;
    }
    f->req = r;
    f->rec = fz_new_rec();
    fz_hook(r, f->rec);
}

/* The program frees a request (MPI_Request_free, or MPI_Wait's release): the buffer goes back to
 * the heap when the request is complete, else it stays until the input ends. */
static void fz_release(int k)
{
    fz_slot *f = &fz_reqs[k];
    if (!f->req)
        return;
    int done = f->req->done;
    p2p_req_free(f->req);
    if (done) {
        free(f->buf);
    } else {
        if (fz_nzombie == fz_zombie_cap) {
            fz_zombie_cap = fz_zombie_cap ? 2 * fz_zombie_cap : 64;
            fz_zombie = realloc(fz_zombie, (size_t)fz_zombie_cap * sizeof *fz_zombie);
            if (!fz_zombie)
                abort();
        }
        fz_zombie[fz_nzombie++] = f->buf;
    }
    *f = (fz_slot){0};
}

static void fz_probe(fz_in *in)
{
    uint8_t b = g8(in);
    int src = (b & 0x70) == 0x70 ? P2P_ANY_SOURCE : (b >> 4) % fz_n;
    int tag = b & 8 ? P2P_ANY_TAG : b & 7;
    uint32_t ctx = g8(in) & 3;
    int flag = 0;
    p2p_status st;
    uint8_t what = g8(in) % 3;
    if (what == 0) {
        p2p_iprobe(src, tag, ctx, &flag, &st);
    } else if (what == 1) {
        int m = g8(in) & 3;
        p2p_msg *msg = NULL;
        if (!fz_msgs[m]) {
            p2p_improbe(src, tag, ctx, &flag, &st, &msg);
            if (flag)
                fz_msgs[m] = msg;
        }
    } else {
        int m = g8(in) & 3;
        int k = fz_free_slot_index();
        size_t len = (size_t)g_len(in);
        if (!fz_msgs[m] || k < 0 || len > FZ_MAX_BUF)
            return;
        fz_slot *f = &fz_reqs[k];
        f->buf = malloc(len);
        f->len = len;
        p2p_req *r = NULL;
        if (p2p_imrecv(fz_msgs[m], f->buf, len, &r)) {
            free(f->buf);
            *f = (fz_slot){0};
            return;
        }
        fz_msgs[m] = NULL;
        f->req = r;
        f->rec = fz_new_rec();
        fz_hook(r, f->rec);
    }
}

/* Blocking calls (p2p_recv, p2p_send, p2p_wait) run the engine's real wait loop (wait_step: the
 * blocking receive's direct path, progress, the spill rule). A wait that stays idle reaches the
 * yield phase, which calls the lock hooks' drop: after a few of those the program is taken to
 * wait forever (no peer packet comes in the middle of a call), and the input ends there. */
static int fz_hook_drop(void)
{
    if (--fz_block_left <= 0)
        longjmp(fz_jmp, 2);
    return 0;
}

static void fz_hook_take(int held)
{
    (void)held;
}

static void fz_block(fz_in *in)
{
    uint8_t what = g8(in);
    fz_block_left = 1 + (what >> 2) % 4;
    int peer = g8(in) % fz_n;
    int tag = g8(in) & 7;
    uint32_t ctx = g8(in) & 3;
    size_t len = (size_t)g_len(in);
    if (len > FZ_MAX_BUF)
        return;
    if (what % 3 == 2) { /* MPI_Wait on one of the program's requests */
        fz_slot *f = &fz_reqs[peer % FZ_NREQ];
        if (f->req)
            p2p_wait(f->req);
        return;
    }
    fz_block_buf = malloc(len); /* stays until the input ends if the call never returns */
    if (what % 3 == 0) {
        p2p_status st;
        p2p_recv(fz_block_buf, len, tag & 4 ? P2P_ANY_SOURCE : peer, tag, ctx, &st);
    } else {
        memset(fz_block_buf, 0x77, len);
        p2p_send(fz_block_buf, len, peer, tag, ctx, what & 0x80 ? P2P_MODE_SYNC : P2P_MODE_STANDARD);
    }
    free(fz_block_buf);
    fz_block_buf = NULL;
}

static void fz_run(fz_in *in)
{
    int waits = 0;
    while (in->n) {
        uint8_t op = g8(in);
        switch (op & 15) {
        case 0:
        case 1:
        case 2:
        case 3:
            if (!fz_packet(in))
                return;
            if (op & 0x80) /* the owner notices at once */
                p2p_progress();
            break;
        case 4:
        case 5:
            fz_recv(in);
            break;
        case 6:
            fz_send(in, 0);
            break;
        case 7:
            fz_send(in, 1);
            break;
        case 8: {
            fz_slot *f = &fz_reqs[g8(in) % FZ_NREQ];
            if (f->req)
                p2p_cancel(f->req);
            break;
        }
        case 9:
            fz_release(g8(in) % FZ_NREQ);
            break;
        case 10:
            fz_progress_idle();
            break;
        case 11: /* time passes */
            fz_now_ns += (uint64_t)(g8(in) + 1) * 1000u;
            break;
        case 12: /* a blocking call; or this rank enters or leaves a wait (in_wait, path choice) */
            if (op & 0x40) {
                fz_block(in);
            } else if (op & 0x80) {
                if (waits) {
                    p2p_waiting_end();
                    waits--;
                }
            } else if (waits < 4) {
                p2p_waiting_begin();
                waits++;
            }
            break;
        case 13: { /* a peer's shared words: its in_wait flag, or its copy done word for us */
            int r = 1 + g8(in) % (fz_n - 1);
            if (!mapped(r)) /* a network peer shares no words with us */
                break;
            if (op & 0x80)
                atomic_store(&P.peer[r].copy_done[0], g_word(in, r));
            else
                atomic_store(&P.peer[r].ctl->in_wait, (op >> 4) & 1);
            break;
        }
        case 14:
            fz_probe(in);
            break;
        case 15:
            p2p_set_defer_pulls(op & 0x80 ? 0 : (size_t)g_len(in));
            break;
        }
    }
    fz_progress_idle();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    for (int w = 0; w < 4; w++)
        fz_world_init(w);
    for (size_t k = 0; k < sizeof fz_peer_mem; k++)
        fz_peer_mem[k] = (unsigned char)k;
    static const p2p_lock_hooks hooks = {fz_hook_drop, fz_hook_take, NULL, 0};
    p2p_set_lock_hooks(&hooks);
    fz_verbose = getenv("P2P_FUZZ_VERBOSE") != NULL;
    fz_avoid_parse(getenv("P2P_FUZZ_AVOID"));
    const char *net = getenv("P2P_FUZZ_NET");
    fz_net = net && strcmp(net, "0") != 0;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    fz_in in = {data + 1, size - 1};
    uint8_t cfg = data[0];
    fz_now_ns = 1000000000ull;
    memset(fz_eager_left, 0, sizeof fz_eager_left);
    fz_engine_reset(cfg & 3, cfg);
    fz_armed = 1;
    int aborted = setjmp(fz_jmp);
    if (!aborted)
        fz_run(&in);
    int blocked = aborted == 2; /* a blocking call that waits forever: not an error */
    if (blocked)
        aborted = 0;
    if (fz_verbose) {
        int done = 0;
        for (int k = 0; k < fz_nrecs; k++)
            done += fz_recs[k]->completions;
        fprintf(stderr,
                "p2p_wire_fuzz: world %d: %s%s; packets %llu, completions %d, rendezvous: cma %llu prepushed %llu "
                "copy %llu taken over %llu\n",
                cfg & 3, aborted ? "aborted: " : blocked ? "blocked in a wait" : "ran to the end", aborted ? fz_abort_msg : "",
                (unsigned long long)P.st.packets_received, done, (unsigned long long)P.st.rndv_cma_pulls,
                (unsigned long long)P.st.rndv_prepushed, (unsigned long long)P.st.rndv_copies,
                (unsigned long long)P.st.copy_takeovers);
    }
    fz_armed = 0;
    fz_engine_teardown();
    return 0;
}
