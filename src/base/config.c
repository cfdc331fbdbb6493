/* src/base/config.c — the table of CREDO_* settings and its parser.
 * One entry per variable: name, type, default, one line of documentation and the values it accepts,
 * used everywhere else. A value that is empty, has blanks around it or is not among the accepted ones
 * stops MPI_Init with one line naming the variable, the value and what is accepted; a CREDO_*
 * variable that is neither a setting nor read by credo's tools is reported by config_unknown. */
#include "base/config.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

credo_config credo_cfg;

/* What the table's value types accept (booleans: CONFIG_BOOL's words, see parse_bool). */
#define BOOL_ACCEPTS "0 or 1 (also no/yes, off/on, false/true)"
#define INT_ACCEPTS "an integer from 0 to 2147483647"
#define SIZE_SUFFIXES " (digits, optionally followed by k, m or g)"

const config_var credo_config_vars[] = {
    {"CREDO_FC", CONFIG_STRING, "static", "flow-control scheme: none, static or dynamic", "none, static or dynamic"},
    {"CREDO_SLOT_SIZE", CONFIG_INT, "64", "bytes per mailbox slot (power of two, 64..4096); 1 credit = 1 slot",
     "a power of two from 64 to 4096"},
    {"CREDO_SLOTS_PER_PEER", CONFIG_INT, "0",
     "receive buffer per potential sender, S (data + credit region); 0 = auto: the thesis' 57 for C=2, "
     "raised at small rank counts so the mailbox has at least 256 slots",
     "0 (auto) or 2..65535"},
    {"CREDO_CREDIT_SLOTS", CONFIG_INT, "2", "credit-region slots per peer, C", "1..255"},
    {"CREDO_FC_REPORT", CONFIG_BOOL, "0", "print a per-rank flow-control summary at finalize", BOOL_ACCEPTS},
    {"CREDO_EAGER_LIMIT", CONFIG_SIZE, "512",
     "largest message sent eagerly through the mailbox, bytes (larger ones: rendezvous, up to 128 KiB with the data)",
     "0..1m bytes" SIZE_SUFFIXES},
    {"CREDO_CMA", CONFIG_BOOL, "1",
     "pull rendezvous data of CREDO_CMA_MIN bytes or more with process_vm_readv (single copy); 0 forces the pipelined shm copy",
     BOOL_ACCEPTS},
    {"CREDO_CMA_MIN", CONFIG_STRING, "auto",
     "smallest rendezvous message pulled with CMA, smaller ones use the pipelined shm copy (0 = CMA for all; "
     "auto = the copy only below 32 MiB while both sides wait inside MPI, or 0 with CREDO_PROGRESS_THREAD=1)",
     "auto or a size in bytes" SIZE_SUFFIXES},
    {"CREDO_COPY_CHUNK", CONFIG_SIZE, "131072", "chunk of the pipelined shm copy used when CMA is unavailable",
     "4k..64m bytes" SIZE_SUFFIXES},
    {"CREDO_COPY", CONFIG_STRING, "auto",
     "how copies of 2 KiB and more are made: memcpy (libc), loop (credo's own vector loop) or auto (timed at the first one)",
     "auto, memcpy or loop"},
    {"CREDO_PREPUSH_BYTES", CONFIG_SIZE, "2097152",
     "per-rank area (up to 512 units of at least 1 KiB) through which rendezvous messages up to 128 KiB travel "
     "with their request; 0 = off",
     "0 (off) or 64k..64m bytes" SIZE_SUFFIXES},
    {"CREDO_SPIN_POLLS", CONFIG_INT, "0",
     "idle polls before a waiting rank starts yielding (0 = auto: 200000 when ranks <= cores, else 1)",
     INT_ACCEPTS},
    {"CREDO_YIELD_US", CONFIG_INT, "2000", "idle time a waiting rank yields before it sleeps on its doorbell",
     INT_ACCEPTS},
    {"CREDO_SEND_BATCH", CONFIG_INT, "32",
     "most slots of small back-to-back isends to one destination written with one reservation (0 = off)",
     "0..255"},
    {"CREDO_DEBUG", CONFIG_BOOL, "0", "print transport set-up details to stderr", BOOL_ACCEPTS},
    {"CREDO_PROGRESS_THREAD", CONFIG_BOOL, "0",
     "1: a background thread drives progress (non-blocking collectives advance while the application computes)",
     BOOL_ACCEPTS},
    {"CREDO_PROGRESS_RT", CONFIG_BOOL, "0",
     "1: a progress thread (implies CREDO_PROGRESS_THREAD=1) that runs at real-time priority (SCHED_FIFO 1; needs CAP_SYS_NICE or RLIMIT_RTPRIO) "
     "and sleeps on the rank's doorbell when idle, so arriving messages preempt the computation",
     BOOL_ACCEPTS},
    {"CREDO_COLL_BCAST", CONFIG_STRING, "auto",
     "Bcast algorithm: auto (table in docs/GOAL.md), binomial or scatter_allgather", NULL},
    {"CREDO_COLL_BARRIER", CONFIG_STRING, "auto", "Barrier algorithm: auto, dissemination, bruck or direct", NULL},
    {"CREDO_COLL_REDUCE", CONFIG_STRING, "auto", "Reduce algorithm: auto, binomial or rabenseifner", NULL},
    {"CREDO_COLL_ALLREDUCE", CONFIG_STRING, "auto", "Allreduce algorithm: auto, recdbl, ring, rabenseifner or direct", NULL},
    {"CREDO_COLL_GATHER", CONFIG_STRING, "auto", "Gather algorithm: auto, linear, binomial or linear_sync", NULL},
    {"CREDO_COLL_ALLGATHER", CONFIG_STRING, "auto", "Allgather algorithm: auto, recdbl, ring or bruck", NULL},
    {"CREDO_COLL_ALLTOALL", CONFIG_STRING, "auto", "Alltoall algorithm: auto, linear, pairwise or bruck", NULL},
    {"CREDO_COLL_REDUCE_SCATTER", CONFIG_STRING, "auto",
     "Reduce_scatter(_block) algorithm: auto, binomial (reduce to rank 0, then scatter) or pairwise (commutative ops)", NULL},
    {"CREDO_XPORT", CONFIG_STRING, "auto",
     "transport per peer: auto (shared memory on the same node, the libfabric network transport across nodes), "
     "shm (shared memory only: every rank on one node) or ofi (the network transport for every peer, even on one node)",
     "auto, shm or ofi"},
    {"CREDO_NET_EAGER_LIMIT", CONFIG_STRING, "auto",
     "largest message sent eagerly to a peer on the network transport (auto: what one sender's credit quota "
     "carries in one chunk, at most 16 KiB)",
     "auto or 0..1m bytes" SIZE_SUFFIXES},
    {"CREDO_RNDV_CHUNK", CONFIG_SIZE, "524288",
     "network rendezvous: bytes per RMA read of the receiver-driven chunked pull",
     "4k..64m bytes" SIZE_SUFFIXES},
    {"CREDO_RNDV_WINDOW", CONFIG_INT, "2",
     "network rendezvous: most RMA reads one pull keeps outstanding (c); a landed chunk releases the next",
     "1..256"},
    {"CREDO_PMI", CONFIG_STRING, "1", "PMI wire protocol spoken to the launcher: 1 or 2", "1 or 2"},
    {NULL, 0, NULL, NULL, NULL},
};

/* CREDO_CMA_MIN=auto pulls messages of this size and more with CMA whoever waits (see below). */
#define CMA_AUTO_MIN ((size_t)32 << 20)

/* Accepted values of the CREDO_COLL_* settings, "auto" first. */
static const struct {
    const char *var;
    const char *choices[6];
    size_t off;
} coll_choices[] = {
    {"CREDO_COLL_BCAST", {"auto", "binomial", "scatter_allgather", NULL}, offsetof(credo_config, coll_bcast)},
    {"CREDO_COLL_BARRIER", {"auto", "dissemination", "bruck", "direct", NULL}, offsetof(credo_config, coll_barrier)},
    {"CREDO_COLL_REDUCE", {"auto", "binomial", "rabenseifner", NULL}, offsetof(credo_config, coll_reduce)},
    {"CREDO_COLL_ALLREDUCE", {"auto", "recdbl", "ring", "rabenseifner", "direct", NULL}, offsetof(credo_config, coll_allreduce)},
    {"CREDO_COLL_GATHER", {"auto", "linear", "binomial", "linear_sync", NULL}, offsetof(credo_config, coll_gather)},
    {"CREDO_COLL_ALLGATHER", {"auto", "recdbl", "ring", "bruck", NULL}, offsetof(credo_config, coll_allgather)},
    {"CREDO_COLL_ALLTOALL", {"auto", "linear", "pairwise", "bruck", NULL}, offsetof(credo_config, coll_alltoall)},
    {"CREDO_COLL_REDUCE_SCATTER", {"auto", "binomial", "pairwise", NULL}, offsetof(credo_config, coll_reduce_scatter)},
};

const char *config_accepted(const config_var *v, char *buf, size_t len)
{
    if (v->accepts)
        return v->accepts;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof coll_choices / sizeof coll_choices[0]; i++) {
        if (strcmp(coll_choices[i].var, v->name) != 0)
            continue;
        int n = snprintf(buf, len, "%s", coll_choices[i].choices[0]);
        for (int k = 1; coll_choices[i].choices[k] && n > 0 && (size_t)n < len; k++)
            n += snprintf(buf + n, len - (size_t)n, "%s%s", coll_choices[i].choices[k + 1] ? ", " : " or ",
                          coll_choices[i].choices[k]);
    }
    return buf;
}

/* Refuses v's value: "NAME=value: expected <accepted values>". */
static int refuse(const config_var *v, const char *text, char *err, size_t errlen)
{
    char buf[160];
    snprintf(err, errlen, "%s=%s: expected %s", v->name, text, config_accepted(v, buf, sizeof buf));
    return -1;
}

/* Stores a CREDO_COLL_* value ("" for auto); -1 with a message naming the choices if unknown. */
static int set_coll_choice(credo_config *c, const config_var *v, const char *text, char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof coll_choices / sizeof coll_choices[0]; i++) {
        if (strcmp(coll_choices[i].var, v->name) != 0)
            continue;
        char *dst = (char *)c + coll_choices[i].off;
        for (int k = 0; coll_choices[i].choices[k]; k++)
            if (strcmp(text, coll_choices[i].choices[k]) == 0) {
                snprintf(dst, 24, "%s", k == 0 ? "" : text);
                return 0;
            }
        return refuse(v, text, err, errlen);
    }
    return 0;
}

/* Digits, then for sizes an optional k/m/g suffix (KiB, MiB, GiB); nothing else: no sign, no
 * blank, no overflow. */
static int parse_size(const char *s, size_t *out)
{
    if (*s < '0' || *s > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    int shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if (*end != '\0' || v > (SIZE_MAX >> shift))
        return -1;
    *out = (size_t)(v << shift);
    return 0;
}

static const char *var_text(const config_var *v)
{
    const char *e = getenv(v->name);
    return e ? e : v->defval;
}

/* Booleans: 0 or 1, and the words no/yes, off/on, false/true (lower case). -1 for anything else. */
static int parse_bool(const char *text)
{
    static const char *const off[] = {"0", "no", "off", "false"}, *const on[] = {"1", "yes", "on", "true"};
    for (int i = 0; i < 4; i++) {
        if (strcmp(text, off[i]) == 0)
            return 0;
        if (strcmp(text, on[i]) == 0)
            return 1;
    }
    return -1;
}

/* A value set but empty, or with blanks around it, is refused before it is parsed: otherwise an
 * empty value read as the default and " 64" as 64, silently. */
static int check_shape(const config_var *v, const char *e, char *err, size_t errlen)
{
    char buf[160];
    size_t n = strlen(e);
    if (n == 0) {
        snprintf(err, errlen, "%s is set but empty: expected %s (unset it for the default, %s)", v->name,
                 config_accepted(v, buf, sizeof buf), v->defval);
        return -1;
    }
    if (isspace((unsigned char)e[0]) || isspace((unsigned char)e[n - 1])) {
        snprintf(err, errlen, "%s=\"%s\": blanks around the value; expected %s", v->name, e,
                 config_accepted(v, buf, sizeof buf));
        return -1;
    }
    return 0;
}

int config_load(char *err, size_t errlen)
{
    credo_config c;
    memset(&c, 0, sizeof c);
    int cma_min_auto = 1;
    for (const config_var *v = credo_config_vars; v->name; v++) {
        const char *text = var_text(v);
        if (text != v->defval && check_shape(v, text, err, errlen))
            return -1;
        size_t num = 0;
        if (v->type == CONFIG_BOOL) {
            int b = parse_bool(text);
            if (b < 0)
                return refuse(v, text, err, errlen);
            num = (size_t)b;
        } else if (v->type == CONFIG_INT || v->type == CONFIG_SIZE) {
            if (parse_size(text, &num) != 0 || (v->type == CONFIG_INT && num > 0x7fffffffu))
                return refuse(v, text, err, errlen);
        }
        if (strcmp(v->name, "CREDO_FC") == 0) {
            if (strcmp(text, "none") && strcmp(text, "static") && strcmp(text, "dynamic"))
                return refuse(v, text, err, errlen);
            snprintf(c.fc, sizeof c.fc, "%s", text);
        } else if (strcmp(v->name, "CREDO_SLOT_SIZE") == 0) {
            if (num < 64 || num > 4096 || (num & (num - 1)))
                return refuse(v, text, err, errlen);
            c.slot_size = (uint32_t)num;
        } else if (strcmp(v->name, "CREDO_SLOTS_PER_PEER") == 0) {
            if (num == 1 || num > 65535)
                return refuse(v, text, err, errlen);
            c.slots_per_peer = (uint32_t)num;
        } else if (strcmp(v->name, "CREDO_CREDIT_SLOTS") == 0) {
            if (num < 1 || num > 255)
                return refuse(v, text, err, errlen);
            c.credit_slots = (uint32_t)num;
        } else if (strcmp(v->name, "CREDO_FC_REPORT") == 0) {
            c.fc_report = (int)num;
        } else if (strcmp(v->name, "CREDO_EAGER_LIMIT") == 0) {
            if (num > (1u << 20))
                return refuse(v, text, err, errlen);
            c.eager_limit = num;
        } else if (strcmp(v->name, "CREDO_CMA") == 0) {
            c.cma = (int)num;
        } else if (strcmp(v->name, "CREDO_CMA_MIN") == 0) {
            cma_min_auto = strcmp(text, "auto") == 0;
            if (!cma_min_auto && parse_size(text, &c.cma_min) != 0)
                return refuse(v, text, err, errlen);
        } else if (strcmp(v->name, "CREDO_COPY_CHUNK") == 0) {
            if (num < 4096 || num > (64u << 20))
                return refuse(v, text, err, errlen);
            c.copy_chunk = num;
        } else if (strcmp(v->name, "CREDO_COPY") == 0) {
            /* read by src/xport/copy.c itself, at the first large copy */
            if (strcmp(text, "auto") && strcmp(text, "memcpy") && strcmp(text, "loop"))
                return refuse(v, text, err, errlen);
        } else if (strcmp(v->name, "CREDO_PREPUSH_BYTES") == 0) {
            if (num != 0 && (num < (64u << 10) || num > (64u << 20)))
                return refuse(v, text, err, errlen);
            c.prepush_bytes = num;
        } else if (strcmp(v->name, "CREDO_SPIN_POLLS") == 0) {
            c.spin_polls = (uint32_t)num;
        } else if (strcmp(v->name, "CREDO_YIELD_US") == 0) {
            c.yield_us = (uint32_t)num;
        } else if (strcmp(v->name, "CREDO_SEND_BATCH") == 0) {
            if (num > 255)
                return refuse(v, text, err, errlen);
            c.send_batch = (uint32_t)num;
        } else if (strncmp(v->name, "CREDO_COLL_", 11) == 0) {
            if (set_coll_choice(&c, v, text, err, errlen))
                return -1;
        } else if (strcmp(v->name, "CREDO_XPORT") == 0) {
            if (strcmp(text, "auto") && strcmp(text, "shm") && strcmp(text, "ofi"))
                return refuse(v, text, err, errlen);
            c.xport = text[0] == 'a' ? CONFIG_XPORT_AUTO : text[0] == 's' ? CONFIG_XPORT_SHM : CONFIG_XPORT_OFI;
        } else if (strcmp(v->name, "CREDO_NET_EAGER_LIMIT") == 0) {
            c.net_eager_limit = SIZE_MAX;
            if (strcmp(text, "auto") != 0 && (parse_size(text, &c.net_eager_limit) != 0 || c.net_eager_limit > (1u << 20)))
                return refuse(v, text, err, errlen);
        } else if (strcmp(v->name, "CREDO_RNDV_CHUNK") == 0) {
            if (num < 4096 || num > (64u << 20))
                return refuse(v, text, err, errlen);
            c.rndv_chunk = num;
        } else if (strcmp(v->name, "CREDO_RNDV_WINDOW") == 0) {
            if (num < 1 || num > 64) /* one bit per outstanding read (p2p_impl.h, NET_PULL_MAX_WINDOW) */
                return refuse(v, text, err, errlen);
            c.rndv_window = (uint32_t)num;
        } else if (strcmp(v->name, "CREDO_PMI") == 0) {
            if (strcmp(text, "1") && strcmp(text, "2"))
                return refuse(v, text, err, errlen);
        } else if (strcmp(v->name, "CREDO_DEBUG") == 0) {
            c.debug = (int)num;
        } else if (strcmp(v->name, "CREDO_PROGRESS_THREAD") == 0) {
            c.progress_thread = (int)num;
        } else if (strcmp(v->name, "CREDO_PROGRESS_RT") == 0) {
            c.progress_rt = (int)num;
        }
    }
    /* The real-time variant is a kind of progress thread: asking for it asks for the thread. */
    if (c.progress_rt)
        c.progress_thread = 1;
    /* auto: the pipelined copy was faster than CMA at every size measured on the development VM
     * when both sides call MPI (4-64 MiB ping-pong 2-2.5x), so it takes every rendezvous whose
     * sender waits inside MPI (cma_auto; CMA for the others, src/p2p rndv_pull). But it
     * needs the sender's progress engine for every chunk; with a progress thread the application
     * asked for transfers that advance while it computes, and the receiver-only CMA pull overlapped
     * better (1 MiB Iallreduce at np 2: 50-73 % against 39-62 %, docs/ARCHITECTURE.md). From
     * 32 MiB on CMA all the same: the copy hands every 128 KiB chunk between two processes, so it
     * is only fast while both have a core, and on a loaded machine it fell far behind (ping-pong at
     * load 6-8: 64 MiB 25-112 ms against 23-24 with CMA, 256 MiB 127-449 against 64-68; a 2 GiB
     * message took minutes in mpi.largecount); at 16 MiB the two were close. */
    if (cma_min_auto)
        c.cma_min = c.progress_thread ? 0 : CMA_AUTO_MIN;
    c.cma_auto = cma_min_auto;
    if (c.slots_per_peer && c.slots_per_peer <= c.credit_slots && strcmp(c.fc, "none") != 0) {
        snprintf(err, errlen, "CREDO_SLOTS_PER_PEER=%u must exceed CREDO_CREDIT_SLOTS=%u", c.slots_per_peer,
                 c.credit_slots);
        return -1;
    }
    credo_cfg = c;
    return 0;
}

const char *config_value(const char *name, char *buf, size_t len)
{
    for (const config_var *v = credo_config_vars; v->name; v++)
        if (strcmp(v->name, name) == 0) {
            const char *rt = getenv("CREDO_PROGRESS_RT");
            /* the value in effect: CREDO_PROGRESS_RT implies the thread (config_load) */
            if (strcmp(name, "CREDO_PROGRESS_THREAD") == 0 && rt && parse_bool(rt) == 1)
                snprintf(buf, len, "1");
            else
                snprintf(buf, len, "%s", var_text(v));
            return buf;
        }
    return NULL;
}

uint32_t config_slots_per_peer(uint32_t nranks)
{
    if (credo_cfg.slots_per_peer)
        return credo_cfg.slots_per_peer;
    uint32_t s = 57;
    if (nranks > 1) {
        uint32_t fill = (CONFIG_MIN_MAILBOX_SLOTS + nranks - 2) / (nranks - 1);
        if (fill > s)
            s = fill;
    }
    if (s <= credo_cfg.credit_slots)
        s = credo_cfg.credit_slots + 2;
    return s;
}

/* CREDO_* variables that are not run-time settings but are read by credo's tools (credocc: the
 * compilers mpicc, mpicxx and mpifort wrap; credorun: the launch agent), by the network transport
 * (CREDO_NET_IF, src/xport/ofi.c: the interface, as libfabric's own variables) or by its test suite
 * (tests/goal/bounded.sh: a sanitized build), so no program warns about them. */
static const char *const tool_vars[] = {"CREDO_CC", "CREDO_CXX", "CREDO_FORTRAN_COMPILER", "CREDO_LAUNCH_AGENT",
                                        "CREDO_NET_IF", "CREDO_TEST_SANITIZED"};

/* Edit distance (insertions, deletions, substitutions; letters compared without case). */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63)
        la = 63;
    if (lb > 63)
        lb = 63;
    size_t row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t sub = diag + (toupper((unsigned char)a[i - 1]) != toupper((unsigned char)b[j - 1]));
            size_t best = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
            row[j] = sub < best ? sub : best;
            diag = up;
        }
    }
    return row[lb];
}

static int known_name(const char *name, size_t len)
{
    for (const config_var *v = credo_config_vars; v->name; v++)
        if (strlen(v->name) == len && strncmp(v->name, name, len) == 0)
            return 1;
    for (size_t i = 0; i < sizeof tool_vars / sizeof tool_vars[0]; i++)
        if (strlen(tool_vars[i]) == len && strncmp(tool_vars[i], name, len) == 0)
            return 1;
    return 0;
}

extern char **environ;

int config_unknown(void (*report)(const char *msg, void *arg), void *arg)
{
    int count = 0;
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "CREDO_", 6) != 0)
            continue;
        const char *eq = strchr(*e, '=');
        size_t len = eq ? (size_t)(eq - *e) : strlen(*e);
        if (known_name(*e, len))
            continue;
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name - 1 ? len : sizeof name - 1), *e);
        const char *best = NULL;
        size_t best_d = (size_t)-1;
        for (const config_var *v = credo_config_vars; v->name; v++) {
            size_t d = edit_distance(name, v->name);
            if (d < best_d) {
                best_d = d;
                best = v->name;
            }
        }
        for (size_t i = 0; i < sizeof tool_vars / sizeof tool_vars[0]; i++) {
            size_t d = edit_distance(name, tool_vars[i]);
            if (d < best_d) {
                best_d = d;
                best = tool_vars[i];
            }
        }
        char msg[192];
        snprintf(msg, sizeof msg, "%s is not a credo setting and is ignored (did you mean %s?)", name, best);
        report(msg, arg);
        count++;
    }
    return count;
}
