/* tools/credosim/net_cli.c — `credosim net`: options of the packet-level network model (src/sim/net.c),
 * one run, a summary ending in `normalized_throughput <x>`, and the full measurement as CSV. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "sim/net.h"
#include "sim/sim_pattern.h"

int credosim_net_main(int argc, char **argv);

static void net_usage(FILE *f)
{
    fprintf(f,
            "usage: credosim net [options]   (packet-level Dragonfly, docs/SIMULATOR.md \"Network model\")\n"
            "  --topology dragonfly:P,A,H   nodes per router, routers per group, global links per router\n"
            "                               (default dragonfly:2,4,2 = 72 nodes; 6,12,6 = 5,256 nodes)\n"
            "  --routing min|valiant|ugal|par   (par)    --bias B (2)  --threshold T (30 flits)\n"
            "  --ugal-booksim               UGAL exactly as stock Booksim's ugal_dragonflynew (intermediate\n"
            "                               router, VC = phase; for the outside check only)\n"
            "  --traffic pairwise|randperm|uniform   (pairwise)   --load X  offered flits/cycle/node\n"
            "                               (Bernoulli packets; default: always backlogged)\n"
            "  --slow N:S | PCT%%:S          N (or PCT %% of the nodes, at least 1) sinks at 1/S flit/cycle\n"
            "  --transfer big|rdrp:W        one endless transfer, or RDRP gets of one packet, W outstanding\n"
            "  --cc none|fecn|fecn-aggressive\n"
            "  --seed N (1)  --csv FILE (- = stdout)  --quiet  --check (flit conservation every cycle)\n"
            "  --windows FILE   every window's throughput (CSV: cycle, throughput, measured)\n"
            "  model: --vc-flits 256 --packet-flits 16 --speedup 2.4 --lat-local 2 --lat-global 10\n"
            "         --lat-term 1 --router-delay 1 --credit-delay 2 --nic-flits 256\n"
            "  measurement: --window 2000 --warmup-min 20 --meas-min 10 --conv 0.05 --max-cycles 1000000\n"
            "  --stall-cycles 100000 (deadlock report)  --vcs N (fewer VCs than the routing needs: tests only)\n");
}

static int num(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    const char *e;
    unsigned long long v;
    if (!s || sim_parse_dec(s, &e, max, &v) != 0 || *e || v < min) {
        fprintf(stderr, "credosim: %s expects an integer %llu .. %llu, got '%s'\n", opt, (unsigned long long)min,
                (unsigned long long)max, s ? s : "");
        return -1;
    }
    *out = v;
    return 0;
}

static int real(const char *opt, const char *s, double min, double max, double *out)
{
    char *e;
    errno = 0;
    double v = s ? strtod(s, &e) : 0;
    if (!s || !*s || *e || errno || !(v >= min && v <= max)) {
        fprintf(stderr, "credosim: %s expects a number %g .. %g, got '%s'\n", opt, min, max, s ? s : "");
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_dragonfly(const char *s, net_config *c)
{
    unsigned long long v[3];
    const char *d = strncmp(s, "dragonfly:", 10) == 0 ? s + 10 : NULL;
    for (int i = 0; d && i < 3; i++) {
        if (sim_parse_dec(d, &d, 256, &v[i]) != 0 || v[i] == 0 || *d != (i < 2 ? ',' : 0))
            d = NULL;
        else if (i < 2)
            d++;
    }
    if (!d) {
        fprintf(stderr, "credosim: --topology %s: expected dragonfly:P,A,H (e.g. dragonfly:6,12,6); the "
                        "mesh and torus of the cluster model are not in the network model\n", s);
        return -1;
    }
    c->p = (uint32_t)v[0];
    c->a = (uint32_t)v[1];
    c->h = (uint32_t)v[2];
    return 0;
}

/* --slow N:S or PCT%:S; the count is resolved once the topology is known */
static int parse_slow(const char *s, double *pct, uint64_t *count, uint64_t *sd)
{
    const char *colon = s ? strchr(s, ':') : NULL;
    char head[64];
    if (!colon || (size_t)(colon - s) >= sizeof head)
        goto bad;
    memcpy(head, s, (size_t)(colon - s));
    head[colon - s] = 0;
    size_t hl = strlen(head);
    if (hl && head[hl - 1] == '%') {
        head[hl - 1] = 0;
        char *e;
        *pct = strtod(head, &e);
        if (!*head || *e || !(*pct >= 0 && *pct <= 100))
            goto bad;
        *count = UINT64_MAX;
    } else {
        const char *e;
        unsigned long long v;
        if (sim_parse_dec(head, &e, 1u << 24, &v) != 0 || *e)
            goto bad;
        *count = v;
    }
    {
        const char *e;
        unsigned long long v;
        if (sim_parse_dec(colon + 1, &e, 64, &v) != 0 || *e || v < 1)
            goto bad;
        *sd = v;
    }
    return 0;
bad:
    fprintf(stderr, "credosim: --slow %s: expected N:S or PCT%%:S with S 1 .. 64 (e.g. 1%%:8 or 5:2)\n",
            s ? s : "");
    return -1;
}

void credosim_bar(uint64_t done, uint64_t total, const char *tail); /* credosim.c */

static void net_progress(void *arg, uint64_t done, uint64_t total)
{
    (void)arg;
    char cycles[48];
    snprintf(cycles, sizeof cycles, "%llu cycles (at most)", (unsigned long long)done);
    credosim_bar(done, total, cycles);
}

static void net_window(void *arg, uint64_t cycle, double thr, int measured)
{
    FILE *f = *(FILE **)arg;
    if (f)
        fprintf(f, "%llu,%.6f,%d\n", (unsigned long long)cycle, thr, measured);
}

static const char *routing_name[] = {"min", "valiant", "ugal", "par"};
static const char *traffic_name[] = {"pairwise", "randperm", "uniform"};
static const char *cc_name[] = {"none", "fecn", "fecn-aggressive"};

int credosim_net_main(int argc, char **argv)
{
    net_config c;
    net_config_default(&c);
    const char *csv = NULL, *windows = NULL;
    int quiet = 0;
    double slow_pct = 0;
    uint64_t slow_count = 0, v;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = strcmp(a, "--quiet") && strcmp(a, "--check") && strcmp(a, "-h") && strcmp(a, "--help") &&
                    strcmp(a, "--ugal-booksim");
        if (takes && !val) {
            fprintf(stderr, "credosim: %s expects a value\n", a);
            return 2;
        }
        if (takes)
            i++;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            net_usage(stdout);
            return 0;
        } else if (!strcmp(a, "--quiet")) {
            quiet = 1;
        } else if (!strcmp(a, "--check")) {
            c.check = 1;
        } else if (!strcmp(a, "--ugal-booksim")) {
            c.ugal_booksim = 1;
            c.routing = NET_ROUTE_UGAL;
        } else if (!strcmp(a, "--topology")) {
            if (parse_dragonfly(val, &c))
                return 2;
        } else if (!strcmp(a, "--routing")) {
            int k = -1;
            for (int j = 0; j < 4; j++)
                if (!strcmp(val, routing_name[j]))
                    k = j;
            if (k < 0) {
                fprintf(stderr, "credosim: --routing %s: expected min, valiant, ugal or par\n", val);
                return 2;
            }
            c.routing = (net_routing)k;
        } else if (!strcmp(a, "--traffic")) {
            int k = -1;
            for (int j = 0; j < 3; j++)
                if (!strcmp(val, traffic_name[j]))
                    k = j;
            if (k < 0) {
                fprintf(stderr, "credosim: --traffic %s: expected pairwise, randperm or uniform\n", val);
                return 2;
            }
            c.traffic = (net_traffic)k;
        } else if (!strcmp(a, "--cc")) {
            int k = -1;
            for (int j = 0; j < 3; j++)
                if (!strcmp(val, cc_name[j]))
                    k = j;
            if (k < 0) {
                fprintf(stderr, "credosim: --cc %s: expected none, fecn or fecn-aggressive\n", val);
                return 2;
            }
            c.cc = (net_cc)k;
        } else if (!strcmp(a, "--transfer")) {
            if (!strcmp(val, "big")) {
                c.transfer = NET_XFER_BIG;
            } else if (!strncmp(val, "rdrp:", 5)) {
                if (num("--transfer rdrp:W", val + 5, 1, 4096, &v))
                    return 2;
                c.transfer = NET_XFER_RDRP;
                c.rdrp_window = (uint32_t)v;
            } else {
                fprintf(stderr, "credosim: --transfer %s: expected big or rdrp:W (e.g. rdrp:30)\n", val);
                return 2;
            }
        } else if (!strcmp(a, "--slow")) {
            if (parse_slow(val, &slow_pct, &slow_count, &v))
                return 2;
            c.slowdown = (uint32_t)v;
        } else if (!strcmp(a, "--load")) {
            if (real(a, val, 0, 1, &c.load))
                return 2;
        } else if (!strcmp(a, "--speedup")) {
            double s;
            if (real(a, val, 1, 10, &s))
                return 2;
            c.speedup_x10 = (uint32_t)(s * 10 + 0.5);
        } else if (!strcmp(a, "--conv")) {
            if (real(a, val, 0.001, 1, &c.conv))
                return 2;
        } else if (!strcmp(a, "--csv")) {
            csv = val;
        } else if (!strcmp(a, "--windows")) {
            windows = val;
        } else {
            static const struct {
                const char *name;
                uint64_t min, max;
                size_t off;
                int wide;
            } ints[] = {
                {"--seed", 0, UINT64_MAX, offsetof(net_config, seed), 1},
                {"--max-cycles", 10, 1ull << 40, offsetof(net_config, max_cycles), 1},
                {"--bias", 0, 1000, offsetof(net_config, ugal_bias), 0},
                {"--threshold", 0, 100000, offsetof(net_config, ugal_threshold), 0},
                {"--vc-flits", 1, 65536, offsetof(net_config, vc_flits), 0},
                {"--packet-flits", 1, 255, offsetof(net_config, pkt_flits), 0},
                {"--nic-flits", 1, 65536, offsetof(net_config, nic_flits), 0},
                {"--lat-local", 1, 255, offsetof(net_config, lat_local), 0},
                {"--lat-global", 1, 255, offsetof(net_config, lat_global), 0},
                {"--lat-term", 1, 255, offsetof(net_config, lat_term), 0},
                {"--router-delay", 0, 255, offsetof(net_config, router_delay), 0},
                {"--credit-delay", 0, 255, offsetof(net_config, credit_delay), 0},
                {"--window", 10, 1u << 30, offsetof(net_config, window), 0},
                {"--warmup-min", 0, 1u << 20, offsetof(net_config, warm_min), 0},
                {"--meas-min", 2, 1u << 20, offsetof(net_config, meas_min), 0},
                {"--vcs", 1, 16, offsetof(net_config, vcs), 0},
                {"--stall-cycles", 1, 1ull << 40, offsetof(net_config, stall_cycles), 1},
            };
            size_t j = 0;
            while (j < sizeof ints / sizeof ints[0] && strcmp(a, ints[j].name))
                j++;
            if (j == sizeof ints / sizeof ints[0]) {
                fprintf(stderr, "credosim: unknown option '%s'\n", a);
                net_usage(stderr);
                return 2;
            }
            if (num(a, val, ints[j].min, ints[j].max, &v))
                return 2;
            if (ints[j].wide)
                *(uint64_t *)((char *)&c + ints[j].off) = v;
            else
                *(uint32_t *)((char *)&c + ints[j].off) = (uint32_t)v;
        }
    }
    uint32_t nodes = net_nodes_of(&c);
    if (slow_count == UINT64_MAX) {
        /* PCT % of the nodes, rounded, and at least one when PCT > 0 */
        double x = slow_pct * nodes / 100.0;
        slow_count = (uint64_t)(x + 0.5);
        if (slow_pct > 0 && slow_count == 0)
            slow_count = 1;
    }
    if (slow_count > nodes) {
        fprintf(stderr, "credosim: --slow: %llu slow nodes of %u\n", (unsigned long long)slow_count, nodes);
        return 2;
    }
    c.slow_nodes = (uint32_t)slow_count;
    if (!quiet && isatty(2))
        c.progress = net_progress;
    FILE *wf = NULL;
    if (windows) {
        wf = fopen(windows, "w");
        if (!wf) {
            fprintf(stderr, "credosim: --windows %s: %s\n", windows, strerror(errno));
            return 1;
        }
        fprintf(wf, "cycle,throughput,measured\n");
        c.on_window = net_window;
    }
    c.progress_arg = &wf;
    net_result r;
    char err[256];
    int rc = net_run(&c, &r, err, sizeof err);
    if (c.progress)
        fprintf(stderr, "\r%70s\r", "");
    if (wf)
        fclose(wf);
    if (rc != 0) {
        fprintf(stderr, "credosim: %s\n", err);
        return strncmp(err, "net: deadlock", 13) && strncmp(err, "net: flit", 9) ? 2 : 1;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    char xfer[32];
    snprintf(xfer, sizeof xfer, c.transfer == NET_XFER_RDRP ? "rdrp:%u" : "big", c.rdrp_window);
    if (csv) {
        FILE *f = strcmp(csv, "-") ? fopen(csv, "w") : stdout;
        if (!f) {
            fprintf(stderr, "credosim: --csv %s: %s\n", csv, strerror(errno));
            return 1;
        }
        fprintf(f, "p,a,h,nodes,routing,traffic,load,slow_nodes,slowdown,transfer,cc,seed,cycles,warmup_cycles,"
                   "meas_cycles,converged,throughput,thr_to_slow,thr_victim,thr_from_slow,n_to_slow,n_victim,"
                   "n_from_slow,vc_over50,vc_over90,lat_mean,lat_p99,rdrp_inflight_mean,rdrp_inflight_max,"
                   "fecn_marked,becn_mean,events,cpu_s,cycles_per_s,model_mb,peak_rss_mb\n");
        fprintf(f, "%u,%u,%u,%u,%s,%s,%g,%u,%u,%s,%s,%llu,%llu,%llu,%llu,%d,%.6f,%.6f,%.6f,%.6f,%u,%u,%u,%.6f,%.6f,"
                   "%.2f,%llu,%.1f,%llu,%.6f,%.4f,%llu,%.3f,%.0f,%.1f,%.1f\n",
                c.p, c.a, c.h, r.nodes, routing_name[c.routing], traffic_name[c.traffic], c.load, c.slow_nodes,
                c.slowdown, xfer, cc_name[c.cc], (unsigned long long)c.seed, (unsigned long long)r.cycles,
                (unsigned long long)r.warmup_cycles, (unsigned long long)r.meas_cycles, r.converged, r.throughput,
                r.thr_to_slow, r.thr_victim, r.thr_from_slow, r.n_to_slow, r.n_victim, r.n_from_slow, r.vc_over50,
                r.vc_over90, r.lat_mean, (unsigned long long)r.lat_p99, r.rdrp_inflight_mean,
                (unsigned long long)r.rdrp_inflight_max, r.fecn_marked, r.becn_mean, (unsigned long long)r.events,
                r.cpu_s, r.cpu_s > 0 ? (double)r.cycles / r.cpu_s : 0.0, (double)r.bytes / 1048576.0,
                (double)ru.ru_maxrss / 1024.0);
        if (f != stdout && fclose(f) != 0) {
            fprintf(stderr, "credosim: --csv %s: %s\n", csv, strerror(errno));
            return 1;
        }
    }
    if (!csv || strcmp(csv, "-")) {
        printf("dragonfly:%u,%u,%u: %u nodes, %u routers in %u groups, radix %u, %u VCs of %u flits; routing %s, "
               "traffic %s%s, %u slow sinks at 1/%u, transfer %s, cc %s, seed %llu\n",
               c.p, c.a, c.h, r.nodes, r.routers, r.groups, r.radix, r.vcs, c.vc_flits, routing_name[c.routing],
               traffic_name[c.traffic], c.load > 0 ? " (offered load)" : " (backlogged)", c.slow_nodes, c.slowdown,
               xfer, cc_name[c.cc], (unsigned long long)c.seed);
        printf("cycles %llu (warm-up %llu, measured %llu, %s)\n", (unsigned long long)r.cycles,
               (unsigned long long)r.warmup_cycles, (unsigned long long)r.meas_cycles,
               r.converged ? "converged" : "NOT converged");
        printf("throughput per flow: to slow sinks %.4f (%u), victims %.4f (%u), from slow nodes %.4f (%u)\n",
               r.thr_to_slow, r.n_to_slow, r.thr_victim, r.n_victim, r.thr_from_slow, r.n_from_slow);
        printf("VC buffers over 50%%: %.4f, over 90%%: %.4f; latency mean %.1f p99 %llu cycles (%llu packets)\n",
               r.vc_over50, r.vc_over90, r.lat_mean, (unsigned long long)r.lat_p99,
               (unsigned long long)r.lat_samples);
        if (c.transfer == NET_XFER_RDRP)
            printf("RDRP in flight per receiver: mean %.0f bytes, max %llu bytes\n", r.rdrp_inflight_mean,
                   (unsigned long long)r.rdrp_inflight_max);
        if (c.cc != NET_CC_NONE)
            printf("FECN-marked packets %.4f, mean BECN counter %.2f\n", r.fecn_marked, r.becn_mean);
        printf("speed: %llu events in %.2f s CPU = %.0f cycles/s; model %.1f MB, peak RSS %.1f MB\n",
               (unsigned long long)r.events, r.cpu_s, r.cpu_s > 0 ? (double)r.cycles / r.cpu_s : 0.0,
               (double)r.bytes / 1048576.0, (double)ru.ru_maxrss / 1024.0);
        printf("normalized_throughput %.4f\n", r.throughput);
    }
    return 0;
}
