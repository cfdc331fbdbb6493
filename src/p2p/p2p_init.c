/* src/p2p/p2p_init.c — wiring the engine at start-up: flow-control scheme, own mailbox, business-card
 * exchange, attaching peers' mailboxes, CMA detection; and the orderly teardown with the FC report. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "boot/boot.h"
#include "base/config.h"
#include "base/base.h"
#include "base/lock.h"
#include "p2p/p2p_impl.h"
#include "xport/ofi.h" /* the network transport's own statistics, provider name and build status */

#define POLL_FLUSH_BUDGET 64
#define NET_SPIN_POLLS 200u
#define NET_EAGER_AUTO_MAX ((size_t)16384)

int p2p_rank(void)
{
    return P.rank;
}

int p2p_size(void)
{
    return P.size;
}

int p2p_cma_ok(void)
{
    return P.cma_ok;
}

int p2p_node_of(int job_rank)
{
    return P.node ? P.node[job_rank] : 0;
}

void p2p_mem_released(const void *base, size_t len)
{
    if (P.xnet && len)
        P.xnet->mr_invalidate(base, len);
}

int p2p_pid(int job_rank)
{
    return (int)P.pid[job_rank];
}

/* This rank's node, as transports see it: the kernel's boot id and the identity of /dev/shm. Ranks
 * share a node exactly when they can attach each other's mailboxes: a rank in a container or
 * namespace with a /dev/shm of its own is another node, one that only has another host name (a UTS
 * namespace) is not, and two machines differ by boot id even if their tmpfs numbers agree. The host
 * name goes on the card only for messages. */
static void node_id(char *buf, size_t len)
{
    char boot[64] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(boot, sizeof boot, f))
            boot[0] = 0;
        fclose(f);
    }
    boot[strcspn(boot, "\n")] = 0;
    if (!boot[0]) /* no /proc: the host name stands in */
        gethostname(boot, sizeof boot - 1);
    for (char *c = boot; *c; c++)
        if (*c == ':' || *c == ' ' || *c == ';')
            *c = '_';
    struct stat st;
    if (stat("/dev/shm", &st) != 0)
        memset(&st, 0, sizeof st);
    snprintf(buf, len, "%s.%llx.%llx", boot, (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
}

static void host_name(char *buf, size_t len)
{
    if (gethostname(buf, len - 1) != 0 || !buf[0])
        snprintf(buf, len, "?");
    buf[len - 1] = 0;
    for (char *c = buf; *c; c++)
        if (*c == ':' || *c == ' ' || *c == ';')
            *c = '_';
}

/* Publishes this rank's card of transport xo under "credo.<name>.<rank>" (or "-" when open failed:
 * the others must not wait for it) and meets the others. */
static int publish_card(const xport_ops *xo, int opened)
{
    char key[64], card[512];
    if (opened && xo->card(card, sizeof card) != 0) {
        fprintf(stderr, "credo: rank %d: the %s transport has no printable address: %s\n", P.rank, xo->name,
                xo->error());
        opened = 0;
    }
    if (!opened)
        snprintf(card, sizeof card, "-");
    snprintf(key, sizeof key, "credo.%s.%d", xo->name, P.rank);
    if (boot_put(key, card) || boot_fence()) {
        fprintf(stderr, "credo: rank %d: %s address exchange failed\n", P.rank, xo->name);
        return -1;
    }
    return opened ? 0 : -1;
}

/* Connects rank r over xo from the card r published; its view goes to P.peer[r]. */
static int connect_peer(const xport_ops *xo, int r)
{
    char key[64], card[512], err[256];
    snprintf(key, sizeof key, "credo.%s.%d", xo->name, r);
    if (boot_get(r, key, card, sizeof card) || strcmp(card, "-") == 0) {
        fprintf(stderr, "credo: rank %d: rank %d published no %s address\n", P.rank, r, xo->name);
        return -1;
    }
    if (xo->connect(r, card, &P.peer[r], err, sizeof err)) {
        fprintf(stderr, "credo: rank %d: cannot reach rank %d over the %s transport: %s\n", P.rank, r, xo->name, err);
        return -1;
    }
    return 0;
}

/* Opens the network transport for the peers P.xo names for it (every rank calls it when any does:
 * publish_card's fence is collective). */
static int net_open(int n, uint32_t bound)
{
    char err[256];
    const xport_ops *xo = P.xnet;
    xport_params xp = {.rank = P.rank, .size = n, .jobid = credo_rt.jobid, .slot_size = P.self.slot_size,
                       .bound = bound, .inflight_bytes = P.fc_credits ? (size_t)bound * P.self.slot_size : 0};
    int rc = xo->open(&xp, err, sizeof err);
    if (rc)
        fprintf(stderr, "credo: rank %d: the network transport cannot start: %s\n", P.rank, err);
    if (publish_card(xo, rc == 0))
        return -1;
    for (int r = 0; r < n; r++) {
        if (r == P.rank || P.xo[r] != xo)
            continue;
        if (connect_peer(xo, r))
            return -1;
        P.nnet++;
    }
    /* A poll of the network is a system call (the provider's epoll), some 1-10 us, where a look at
     * the ring is a load: 200,000 idle polls would spin for seconds before the rank yields or sleeps
     * on the completion queue's fd, which wakes it on arrival (docs/ARCHITECTURE.md, Transports). */
    if (P.nnet && !credo_cfg.spin_polls && P.spin_polls > NET_SPIN_POLLS)
        P.spin_polls = NET_SPIN_POLLS;
    snprintf(P.nst.provider, sizeof P.nst.provider, "%s", xofi_provider_name());
    P.nst.net_peers = (uint32_t)P.nnet;
    return 0;
}

/* The network's message limits, in what a sender's credit quota Q = S - C (at most one chunk of 255
 * slots) carries, measured with the mailbox's own chunk arithmetic (mbox_chunk_bytes). */
static void net_limits(const fc_params *fp)
{
    uint32_t q = fp->slots_per_peer > fp->credit_slots ? fp->slots_per_peer - fp->credit_slots : 2;
    /* The first chunk goes with the RTS, within half the quota (the rest keeps eager messages moving
     * behind it), at most one pull chunk. */
    uint32_t half = q / 2 ? q / 2 : 1;
    if (half > 255)
        half = 255;
    if (q > 255)
        q = 255;
    P.rts_inline_max = mbox_chunk_bytes(&P.self, RTS_OFF, half);
    if (P.rts_inline_max > P.rndv_chunk)
        P.rts_inline_max = P.rndv_chunk;
    /* auto: what the whole quota carries as one chunk, at most 16 KiB. A network eager message
     * completes its send at once, where a rendezvous one waits a round trip for the FIN (at 1-16 KiB
     * over tcp;ofi_rxm on loopback 23-43 us against 11-12 us eager, docs/ARCHITECTURE.md); beyond one
     * quota an eager message waits for credits to come back instead. */
    if (credo_cfg.net_eager_limit != SIZE_MAX) {
        P.net_eager_limit = credo_cfg.net_eager_limit;
        return;
    }
    size_t quota = mbox_chunk_bytes(&P.self, FIRST_OFF, q);
    P.net_eager_limit = quota < NET_EAGER_AUTO_MAX ? quota : NET_EAGER_AUTO_MAX;
    if (P.net_eager_limit < credo_cfg.eager_limit)
        P.net_eager_limit = credo_cfg.eager_limit;
}

int p2p_init(void)
{
    char err[256];
    memset(&P, 0, sizeof P);
    P.wake_fd = -1;
    P.rank = credo_rt.rank;
    P.size = credo_rt.size;
    int n = P.size;
    P.fc = fc_lookup(credo_cfg.fc);
    if (!P.fc) {
        fprintf(stderr, "credo: rank %d: flow-control scheme '%s' is not available in this build\n", P.rank,
                credo_cfg.fc);
        return -1;
    }
    fc_params fp = {(uint32_t)n, (uint32_t)P.rank, config_slots_per_peer((uint32_t)n), credo_cfg.credit_slots};
    if (P.fc->create(&fp, &P.fcs, err, sizeof err) != 0) {
        fprintf(stderr, "credo: rank %d: CREDO_FC=%s: %s\n", P.rank, credo_cfg.fc, err);
        return -1;
    }
    P.fc_credits = strcmp(P.fc->name, "none") != 0;
    uint32_t bound = P.fc->mailbox_slots(&fp);
    if (bound < 2)
        bound = 2;
    P.eager_limit = credo_cfg.eager_limit;
    P.first_room = credo_cfg.slot_size - sizeof(mbox_slot_hdr) - sizeof(p2p_msg_hdr);
    P.copy_chunk = credo_cfg.copy_chunk;
    P.cma_ok = credo_cfg.cma;
    P.cma_min = credo_cfg.cma_min;
    P.cma_idle = credo_cfg.cma_auto;
    P.stream_min = credo_cfg.eager_limit <= STREAM_PREPUSH_EAGER_MAX ? STREAM_PREPUSH_MIN : SIZE_MAX;
    P.yield_ns = (uint64_t)credo_cfg.yield_us * 1000u;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    /* Oversubscribed ranks must give the CPU away quickly: the peer they wait for may need it. */
    /* Oversubscribed: yield at the first idle poll (as Open MPI's yield_when_idle does); measured
     * at np 4 on 2 cores, interleaved: barrier 72.0 -> 40.2 us, 8 B allreduce 105.3 -> 62.6 us. */
    P.oversubscribed = n > cpus;
    P.spin_polls = credo_cfg.spin_polls ? credo_cfg.spin_polls : (P.oversubscribed ? 1u : 200000u);

    P.peer = calloc((size_t)n, sizeof *P.peer);
    P.cached_head = calloc((size_t)n, sizeof *P.cached_head);
    P.uq = calloc((size_t)n, sizeof *P.uq);
    P.rs = calloc((size_t)n, sizeof *P.rs);
    P.dq = calloc((size_t)n, sizeof *P.dq);
    P.active = calloc((size_t)n, sizeof *P.active);
    P.held_src = calloc((size_t)n, sizeof *P.held_src);
    P.active_from = calloc((size_t)n, sizeof *P.active_from);
    P.fin_wait = calloc((size_t)n, sizeof *P.fin_wait);
    P.xo = calloc((size_t)n, sizeof *P.xo);
    P.pid = calloc((size_t)n, sizeof *P.pid);
    P.node = calloc((size_t)n, sizeof *P.node);
    P.rndv_chunk = credo_cfg.rndv_chunk;
    P.rndv_window = credo_cfg.rndv_window;
    P.debug = credo_cfg.debug;
    P.probe_src = -2;
    P.last_isend_dest = -1;
    /* Batching needs credits: without them (none) a staged message could find the ring full. */
    P.send_batch = P.fc_credits ? credo_cfg.send_batch : 0;
    if (P.send_batch) {
        P.stage = aligned_alloc(MBOX_CACHELINE, (size_t)P.send_batch * credo_cfg.slot_size);
        P.stage_used = calloc(P.send_batch, sizeof *P.stage_used);
        P.stage_req = calloc(P.send_batch, sizeof *P.stage_req);
        P.stage_chunk_slots = calloc(P.send_batch, sizeof *P.stage_chunk_slots);
        if (!P.stage || !P.stage_used || !P.stage_req || !P.stage_chunk_slots) {
            fprintf(stderr, "credo: rank %d: out of memory for the send batch\n", P.rank);
            return -1;
        }
    }
    if (!P.held_src || !P.active_from || !P.fin_wait || !P.peer || !P.pid || !P.cached_head || !P.uq || !P.rs || !P.dq ||
        !P.active || !P.xo || !P.node) {
        fprintf(stderr, "credo: rank %d: out of memory for %d peers\n", P.rank, n);
        return -1;
    }

    /* Shared memory is always open: our mailbox is the ring every peer of this node writes into. */
    for (int r = 0; r < n; r++)
        P.xo[r] = &xport_shm;
    xport_params sp = {.rank = P.rank, .size = n, .jobid = credo_rt.jobid, .slot_size = credo_cfg.slot_size,
                       .bound = bound, .staging_bytes = 2 * P.copy_chunk, .prepush_bytes = credo_cfg.prepush_bytes,
                       .self = &P.self};
    if (xport_shm.open(&sp, err, sizeof err)) {
        fprintf(stderr, "credo: rank %d: cannot create its mailbox: %s\n", P.rank, err);
        xport_shm.close();
        return -1;
    }
    P.rx = xshm_rx_state();
    P.wake_fd = xshm_wake_fd();
    P.pid[P.rank] = getpid();
    P.staging = (unsigned char *)P.self.ctl + P.self.ctl->staging_off;
    net_limits(&fp);
    size_t nunits = P.self.pp_nunits;
    P.prepush_words = (unsigned)((nunits + 63) / 64);
    for (size_t u = 0; u < nunits; u++)
        P.prepush_free[u / 64] |= (uint64_t)1 << (u % 64);
    P.st.mailbox_slots = bound;
    snprintf(P.st.scheme, sizeof P.st.scheme, "%s", P.fc->name);

    if (n > 1) {
        /* The card: the node (its identity and host name), which chooses each peer's transport; the
         * shared-memory transport's own card goes with it (one fence for both). */
        char key[64], val[200], node[120], peer_node[200], host[65], peer_host[65];
        node_id(node, sizeof node);
        host_name(host, sizeof host);
        snprintf(key, sizeof key, "credo.card.%d", P.rank);
        snprintf(val, sizeof val, "%d:%s:%s", (int)getpid(), node, host);
        char shm_card[128];
        if (xport_shm.card(shm_card, sizeof shm_card) || boot_put(key, val)) {
            fprintf(stderr, "credo: rank %d: business-card exchange failed\n", P.rank);
            goto fail;
        }
        snprintf(key, sizeof key, "credo.shm.%d", P.rank);
        if (boot_put(key, shm_card) || boot_fence()) {
            fprintf(stderr, "credo: rank %d: business-card exchange failed\n", P.rank);
            goto fail;
        }
        int nodes_differ = 0;
        char (*nodes)[200] = calloc((size_t)n, sizeof *nodes);
        if (!nodes)
            goto fail;
        snprintf(nodes[P.rank], sizeof nodes[P.rank], "%s", node);
        for (int r = 0; r < n; r++) {
            if (r == P.rank)
                continue;
            snprintf(key, sizeof key, "credo.card.%d", r);
            int pid, used = 0;
            if (boot_get(r, key, val, sizeof val) || sscanf(val, "%d:%n", &pid, &used) < 1 || !used) {
                fprintf(stderr, "credo: rank %d: no business card from rank %d\n", P.rank, r);
                free(nodes);
                goto fail;
            }
            P.pid[r] = pid;
            snprintf(peer_node, sizeof peer_node, "%s", val + used);
            char *colon = strchr(peer_node, ':');
            snprintf(peer_host, sizeof peer_host, "%s", colon ? colon + 1 : "?");
            if (colon)
                *colon = 0;
            snprintf(nodes[r], sizeof nodes[r], "%s", peer_node);
            int same = strcmp(peer_node, node) == 0;
            if (!same)
                nodes_differ = 1;
            P.xo[r] = credo_cfg.xport == CONFIG_XPORT_OFI || !same ? &xport_ofi : &xport_shm;
            if (!same && credo_cfg.xport == CONFIG_XPORT_SHM) {
                fprintf(stderr, "credo: rank %d (host %s) and rank %d (host %s) share no node (boot id and /dev/shm "
                        "differ), and CREDO_XPORT=shm allows only shared memory: unset CREDO_XPORT (auto) to reach "
                        "rank %d over the network\n", P.rank, host, r, peer_host, r);
                free(nodes);
                goto fail;
            }
        }
        /* A node's number is its lowest rank: the same at every rank (MPI_COMM_TYPE_SHARED). */
        for (int r = 0; r < n; r++) {
            P.node[r] = r;
            for (int q = 0; q < r; q++)
                if (strcmp(nodes[q], nodes[r]) == 0) {
                    P.node[r] = q;
                    break;
                }
        }
        free(nodes);
        /* Every rank sees the same cards, so all agree whether the network is needed (if nodes
         * differ, every rank has a peer elsewhere): net_open's fence is reached by all or none. */
        if ((nodes_differ && credo_cfg.xport == CONFIG_XPORT_AUTO) || credo_cfg.xport == CONFIG_XPORT_OFI) {
            if (!xofi_built()) {
                fprintf(stderr, "credo: rank %d: %s needs the network transport, but %s\n", P.rank,
                        credo_cfg.xport == CONFIG_XPORT_OFI ? "CREDO_XPORT=ofi" : "a job whose ranks run on several nodes",
                        xofi_last_error());
                goto fail;
            }
            P.xnet = &xport_ofi;
            if (net_open(n, bound))
                goto fail;
        }
        int nshm = 0;
        for (int r = 0; r < n; r++)
            if (r != P.rank && P.xo[r] == &xport_shm) {
                if (connect_peer(&xport_shm, r))
                    goto fail;
                nshm++;
            }
        /* Everybody connected everything: the transports may drop what start-up needed (the shared
         * segments' names, so nothing is left behind after a crash). */
        if (boot_fence()) {
            fprintf(stderr, "credo: rank %d: bootstrap barrier failed\n", P.rank);
            goto fail;
        }
        xport_shm.ready();
        if (P.xnet)
            P.xnet->ready();
        if (P.cma_ok && nshm && !xshm_cma_ok()) { /* probed on a shared-memory peer, if there is one */
            if (credo_cfg.debug)
                fprintf(stderr, "credo: rank %d: %s: using the pipelined shm copy\n", P.rank, xport_shm.error());
            P.cma_ok = 0;
        }
    }
    else
        xport_shm.ready();
    return 0;
fail:
    xport_shm.close(); /* our segment's name goes: nothing is left in /dev/shm */
    return -1;
}

/* The public readers take the progress thread's lock: the thread updates these counters and lists. */
int credo_fc_stats_get(credo_fc_stats *out)
{
    CREDO_LOCK_ENTER();
    if (!credo_rt.initialized || !P.fc)
        return -1;
    *out = P.st;
    if (P.rx) { /* our ring's occupancy, sampled by the shared-memory transport's poll */
        out->occupancy_samples = P.rx->occ_samples;
        out->occupancy_sum = P.rx->occ_sum;
        out->peak_occupancy = P.rx->occ_peak;
    }
    const fc_counters *c = P.fc->counters(P.fcs);
    out->credit_packets_sent = c->credit_packets_sent;
    out->piggybacked_returns = c->piggybacked_returns;
    out->piggybacked_credits = c->piggybacked_credits;
    out->compulsory_requests = c->compulsory_requests;
    out->compulsory_responses = c->compulsory_responses;
    out->credits_stolen = c->credits_stolen;
    out->monitoring_points = c->monitoring_points;
    out->fc_state_bytes = P.fc->state_bytes(P.fcs);
    return 0;
}

int credo_fc_peer_stats_get(int peer, credo_fc_peer_stats *out)
{
    CREDO_LOCK_ENTER();
    if (!credo_rt.initialized || !P.fc || peer < 0 || peer >= P.size || peer == P.rank)
        return -1;
    fc_peer_view v;
    if (P.fc->peer_view(P.fcs, (uint32_t)peer, &v))
        return -1;
    uint32_t queued = 0;
    for (const preq *r = P.dq[peer].head; r; r = r->next)
        queued++;
    *out = (credo_fc_peer_stats){v.credits, v.granted, v.intended, v.owed, P.held_src[peer], queued};
    return 0;
}

int credo_peer_transport(int peer, char *name, size_t len)
{
    CREDO_LOCK_ENTER();
    if (!credo_rt.initialized || !P.xo || peer < 0 || peer >= P.size || !name || len == 0)
        return -1;
    snprintf(name, len, "%s", peer == P.rank ? "self" : P.xo[peer]->name);
    return 0;
}

int credo_net_stats_get(credo_net_stats *out)
{
    CREDO_LOCK_ENTER();
    if (!credo_rt.initialized || !out)
        return -1;
    *out = P.nst;
    if (P.nnet) {
        xofi_stats x;
        xofi_get_stats(&x);
        out->packets_sent = x.packets_sent;
        out->bytes_sent = x.bytes_sent;
        out->packets_received = x.packets_received;
        out->bytes_received = x.bytes_received;
        out->rx_capacity = x.rx_capacity;
        out->rx_peak_bytes = x.rx_peak_bytes;
        out->rx_dry = x.rx_dry;
        out->mr_hits = x.mr_hits;
        out->mr_misses = x.mr_misses;
        out->mr_evictions = x.mr_evictions;
        out->mr_invalidations = x.mr_invalidations;
    }
    return 0;
}

static void fc_report(void)
{
    credo_fc_stats s;
    if (credo_fc_stats_get(&s))
        return;
    char line[1024];
    int len = snprintf(line, sizeof line,
                       "credo fc rank %d: scheme=%s mailbox=%llu slots peak=%llu mean=%.1f data_pkts=%llu credit_pkts=%llu "
                       "piggybacked=%llu (%llu credits) delayed_sends=%llu delay=%.3f ms recv_pkts=%llu "
                       "unexpected_peak=%llu B held_peak=%llu slots spilled=%llu fc_state=%llu B",
                       P.rank, s.scheme, (unsigned long long)s.mailbox_slots, (unsigned long long)s.peak_occupancy,
                       s.occupancy_samples ? (double)s.occupancy_sum / (double)s.occupancy_samples : 0.0,
                       (unsigned long long)s.data_packets_sent, (unsigned long long)s.credit_packets_sent,
                       (unsigned long long)s.piggybacked_returns, (unsigned long long)s.piggybacked_credits,
                       (unsigned long long)s.delayed_sends, (double)s.delay_ns / 1e6,
                       (unsigned long long)s.packets_received, (unsigned long long)s.unexpected_peak_bytes,
                       (unsigned long long)s.held_peak_slots, (unsigned long long)s.spilled_slots,
                       (unsigned long long)s.fc_state_bytes);
    if (strcmp(s.scheme, "dynamic") == 0 && len > 0 && (size_t)len < sizeof line)
        len += snprintf(line + len, sizeof line - (size_t)len,
                        " stolen=%llu requests=%llu responses=%llu monitoring_points=%llu",
                        (unsigned long long)s.credits_stolen, (unsigned long long)s.compulsory_requests,
                        (unsigned long long)s.compulsory_responses, (unsigned long long)s.monitoring_points);
    if (s.rndv_prepushed + s.rndv_cma_pulls + s.rndv_copies && len > 0 && (size_t)len < sizeof line)
        len += snprintf(line + len, sizeof line - (size_t)len,
                        " rndv_recv: prepushed=%llu cma=%llu copy=%llu (taken_over=%llu)",
                        (unsigned long long)s.rndv_prepushed, (unsigned long long)s.rndv_cma_pulls,
                        (unsigned long long)s.rndv_copies, (unsigned long long)s.copy_takeovers);
    if (len < 0 || (size_t)len >= sizeof line - 1)
        len = (int)sizeof line - 2;
    line[len++] = '\n';
    /* one write per rank so reports of different ranks never interleave within a line */
    ssize_t w = write(2, line, (size_t)len);
    (void)w;
}

void p2p_finalize(void)
{
    p2p_progress(); /* writes a staged send batch */
    /* Flush what flow control still owes (credit packets need no credit and never wait). */
    p2p_waiter w = P2P_WAITER_INIT;
    while (P.nactive)
        p2p_wait_step(&w);
    if (credo_cfg.fc_report)
        fc_report();
    if (P.xnet) {
        /* Nothing may be in flight when the endpoints close: every rank drives its network sends
         * out, then all meet (a peer still sending to a closed endpoint would see the job fail). */
        while (P.xnet->progress(POLL_FLUSH_BUDGET, NULL) > 0 || P.xnet->busy())
            ;
        if (boot_fence())
            fprintf(stderr, "credo: rank %d: the finalize barrier of the network transport failed\n", P.rank);
    }
    for (int r = 0; r < P.size; r++)
        if (r != P.rank && P.xo[r])
            P.xo[r]->disconnect(r, &P.peer[r]);
    if (P.xnet)
        P.xnet->close();
    xport_shm.close();
    free(P.xo);
    free(P.node);
    for (int s = 0; s < P.size; s++)
        for (uexp *u = P.uq[s].head, *nx; u; u = nx) {
            nx = u->next;
            free(u);
        }
    while (P.crecv_head) { /* taken-over copies whose sender never finished (it did not wait) */
        copy_recv *c = P.crecv_head;
        P.crecv_head = c->next;
        free(c);
    }
    while (P.free_reqs) {
        preq *r = P.free_reqs;
        P.free_reqs = r->next;
        free(r);
    }
    free(P.req_tab); /* requests still in use stay allocated, as before the table */
    P.req_tab = NULL;
    P.req_tab_n = P.req_tab_cap = 0;
    if (P.fcs)
        P.fc->destroy(P.fcs);
    free(P.peer);
    free(P.pid);
    free(P.cached_head);
    free(P.uq);
    free(P.rs);
    free(P.dq);
    free(P.active);
    free(P.held_src);
    free(P.active_from);
    free(P.fin_wait);
    free(P.stage);
    free(P.stage_used);
    free(P.stage_req);
    free(P.stage_chunk_slots);
    memset(&P, 0, sizeof P);
}
