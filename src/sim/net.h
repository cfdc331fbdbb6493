/* src/sim/net.h — credosim's packet-level network model (issue 30): a Dragonfly of input-queued
 * routers with finite VC buffers and credit flow control, slow sinks, FECN/BECN and the RDRP window. */
#ifndef CREDO_SIM_NET_H
#define CREDO_SIM_NET_H

#include <stddef.h>
#include <stdint.h>

/* Routing: minimal; Valiant (always through a random intermediate group); UGAL (the source router
 * picks minimal iff q_min <= bias * q_nonmin + threshold, q = used credits of the candidate output
 * port, as Booksim's ugal_dragonflynew); PAR (UGAL, and a minimal packet re-decides at the next
 * router while it is still in its source group). */
typedef enum { NET_ROUTE_MIN, NET_ROUTE_VALIANT, NET_ROUTE_UGAL, NET_ROUTE_PAR } net_routing;
typedef enum { NET_TRAFFIC_PAIRWISE, NET_TRAFFIC_RANDPERM, NET_TRAFFIC_UNIFORM } net_traffic;
typedef enum { NET_XFER_BIG, NET_XFER_RDRP } net_transfer;
typedef enum { NET_CC_NONE, NET_CC_FECN, NET_CC_FECN_AGGR } net_cc;

typedef struct net_config {
    /* topology dragonfly:p,a,h: p nodes per router, a routers per group, h global links per router,
     * g = a*h + 1 groups, one global link between every pair of groups */
    uint32_t p, a, h;
    uint32_t vc_flits;       /* buffer of one VC at a router input (256) */
    uint32_t pkt_flits;      /* data packet (16); a get request is 1 flit */
    uint32_t speedup_x10;    /* internal speedup x 10 (24 = 2.4x) */
    uint32_t lat_local, lat_global, lat_term; /* link latencies, cycles (2, 10, 1) */
    uint32_t router_delay;   /* cycles from a head's arrival to its earliest departure (1: Booksim's
                              * 3 pipeline stages at the 2.4x internal clock, 1.25 cycles) */
    uint32_t credit_delay;   /* extra cycles a credit takes back to the upstream router (2) */
    uint32_t nic_flits;      /* a node's receive buffer in front of its sink (256) */
    uint32_t flit_bytes;     /* bytes per flit, for in-flight bytes only (16) */
    net_routing routing;
    uint32_t ugal_bias, ugal_threshold; /* 2, 30 */
    int ugal_booksim;        /* UGAL as stock Booksim's ugal_dragonflynew (intermediate router, phase
                              * VCs): for the comparison with Booksim only */
    net_traffic traffic;
    double load;             /* offered flits/cycle/node (Bernoulli packets); 0 = always backlogged */
    uint32_t slow_nodes;     /* number of slow sinks, chosen at random by the seed */
    uint32_t slowdown;       /* s: a slow sink takes 1/s flit per cycle (1 = none) */
    net_transfer transfer;
    uint32_t rdrp_window;    /* W: gets of one packet outstanding per receiver */
    net_cc cc;
    uint64_t seed;
    /* measurement: windows of `window` cycles; warm-up ends after at least warm_min windows when
     * the last three are within conv (5 %) of their mean; then at least meas_min windows, until the
     * halves of the measurement agree within conv, or max_cycles */
    uint32_t window, warm_min, meas_min;
    double conv;
    uint64_t max_cycles;
    int check;               /* 1: check flit conservation every cycle (on in debug builds) */
    uint64_t stall_cycles;   /* deadlock: nothing moved this long with flits in the network (100,000) */
    uint32_t vcs;            /* 0: as the routing's VC scheme needs; fewer merges the top classes
                              * (only to show the deadlock check fires) */
    void (*progress)(void *arg, uint64_t done, uint64_t total);
    /* called at the end of every window: its last cycle + 1, its throughput, 1 when measured */
    void (*on_window)(void *arg, uint64_t cycle, double throughput, int measured);
    void *progress_arg;
} net_config;

/* One run's measurement. Throughputs are flits/cycle accepted by the sinks, normalized to the
 * injection bandwidth (1 flit/cycle): the mean over all flows, and over three kinds of flow
 * (a node is the source of exactly one flow in the permutations). */
typedef struct net_result {
    uint32_t nodes, routers, groups, radix, vcs;
    uint64_t cycles, warmup_cycles, meas_cycles;
    int converged;
    double throughput;       /* normalized average throughput */
    double thr_to_slow;      /* flows into slow sinks (ideal 1/s) */
    double thr_victim;       /* flows between fast nodes */
    double thr_from_slow;    /* flows out of slow nodes */
    uint32_t n_to_slow, n_victim, n_from_slow;
    double vc_over50, vc_over90; /* fraction of router-to-router VC buffers > 50 % / > 90 % full */
    double lat_mean;         /* packet latency (creation to tail at the destination), cycles */
    uint64_t lat_p99;
    uint64_t lat_samples;
    double rdrp_inflight_mean;    /* bytes requested and not yet sunk, per RDRP receiver */
    uint64_t rdrp_inflight_max;
    double fecn_marked;      /* fraction of data packets delivered with FECN set */
    double becn_mean;        /* mean BECN counter over nodes (sampled) */
    uint64_t flits_injected, flits_ejected;
    uint64_t events;
    double cpu_s;
    size_t bytes;            /* memory the model allocated */
} net_result;

void net_config_default(net_config *c);

/* Runs the model. Returns 0, or -1 with a message in err (bad parameters, or a deadlock: nothing
 * moved for stall_cycles with flits in the network). */
int net_run(const net_config *c, net_result *r, char *err, size_t errlen);

/* Per-window throughputs of the last run are not kept; the node map is exposed for tests. */
uint32_t net_nodes_of(const net_config *c);

#endif
