/* tools/credosim/credosim.c — the credosim command line: reads a GOAL schedule or builds a pattern,
 * sets LogGOPS / cluster / flow-control parameters, runs src/sim and prints times and speed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "fc/fc.h"
#include "goal/goal_text.h"
#include "sim/sim.h"
#include "sim/sim_pattern.h"

int credosim_net_main(int argc, char **argv); /* net_cli.c: the packet-level network model */
void credosim_bar(uint64_t done, uint64_t total, const char *tail);

static void usage(FILE *f)
{
    fprintf(f,
            "usage: credosim run (--goal FILE | --pattern SPEC --ranks N) [options]\n"
            "       credosim export --pattern SPEC --ranks N      (writes the pattern as GOAL text)\n"
            "       credosim memory --ranks N --fc SCHEME --slots S  (bytes per receiver, from src/fc)\n"
            "       credosim net [options]   (packet-level Dragonfly; credosim net --help)\n"
            "LogGOPS (LogGOPSim's options and defaults):\n"
            "  -L NS (2500)  -o NS (1500)  -g NS (1000)  -G NS/B (6)  -O NS/B (0)  -S BYTES (65535)\n"
            "Cluster and flow-control model (any of these enables it):\n"
            "  --ppn K                 ranks per node (block mapping; intra-node = shared memory)\n"
            "  --topology T            flat | mesh:XxYxZ | torus:XxYxZ (nodes; dimension-order routing)\n"
            "  --fc none|static|dynamic   flow-control scheme of src/fc (default none)\n"
            "  --slots S               mailbox slots per sender (default 64)   --credit-slots C (2)\n"
            "  --no-piggyback          --eager BYTES (2048)\n"
            "  --hold-unexpected       keep an unexpected message's slots until it is matched, spill\n"
            "                          them when idle and a sender is blocked (as src/p2p)\n"
            "  --rr-packets            interleave messages packet by packet (default: message by\n"
            "                          message, as src/p2p writes them)\n"
            "Output: --csv (host,finish_ns per host)  --seed N  --quiet (no progress bar)\n"
            "Input: --max-goal-bytes N   largest GOAL file read (default 1073741824 = 1 GiB)\n"
            "  --sample-fc RANK:NS --sample-out FILE   every NS ns of simulated time, write RANK's\n"
            "                          flow-control view of every peer to FILE (CSV: t_ns, RANK's\n"
            "                          finished operations, peer, granted, intended, owed as a\n"
            "                          receiver, credits as a sender)\n"
            "Patterns: barrier, alltoall:B, pingpong:B, sendrecv:B, exchange:B, bcast:B, reduce:B,\n"
            "  allreduce:B, allgather:B, gather:B, scatter:B, phased:B[:REPS]; add :ITERS to repeat.\n"
            "  coll:NAME[:B[:ALG]]: src/coll's own schedule (barrier, bcast, reduce, allreduce, gather,\n"
            "  scatter, allgather, alltoall, reduce_scatter_block, scan, exscan; ALG: dissemination,\n"
            "  bruck, direct, binomial, scatter_allgather, recursive_doubling, ring, rabenseifner,\n"
            "  linear, linear_sync, pairwise).\n");
}

/* Option values are decimal digits only (strtoull alone takes "-1" as 2^64 - 1, and leading blanks
 * and '+'), within [min, max]; anything else gets one line naming the option and the range. */
static int digits_u64(const char *s, uint64_t max, uint64_t *out, const char **end)
{
    const char *p;
    unsigned long long v;
    if (sim_parse_dec(s, &p, max, &v) != 0)
        return -1;
    *out = v;
    if (end)
        *end = p;
    else if (*p)
        return -1;
    return 0;
}

static int parse_range(const char *opt, const char *s, uint64_t min, uint64_t max, const char *unit, uint64_t *out)
{
    uint64_t v;
    if (!s || digits_u64(s, max, &v, NULL) != 0 || v < min) {
        fprintf(stderr, "credosim: %s expects an integer %llu .. %llu%s, got '%s'\n", opt, (unsigned long long)min,
                (unsigned long long)max, unit, s ? s : "");
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_u64(const char *opt, const char *s, uint64_t *out)
{
    if (!s || digits_u64(s, UINT64_MAX, out, NULL) != 0) {
        fprintf(stderr, "credosim: %s expects a non-negative integer (0 .. 18446744073709551615), got '%s'\n", opt,
                s ? s : "");
        return -1;
    }
    return 0;
}

static int parse_topology(const char *s, sim_cluster *c)
{
    if (strcmp(s, "flat") == 0) {
        c->dims[0] = c->dims[1] = c->dims[2] = 0;
        return 0;
    }
    const char *d = NULL;
    if (strncmp(s, "mesh:", 5) == 0) {
        c->torus = 0;
        d = s + 5;
    } else if (strncmp(s, "torus:", 6) == 0) {
        c->torus = 1;
        d = s + 6;
    }
    /* 1 to 3 dimensions of 1 .. 65536 nodes each, digits only, at most SIM_MAX_RANKS nodes */
    uint64_t dim[3] = {0, 1, 1}, nodes = 1;
    int n = 0, ok = d != NULL;
    while (ok && n < 3) {
        const char *e;
        if (digits_u64(d, 65536, &dim[n], &e) != 0 || dim[n] == 0) {
            ok = 0;
            break;
        }
        nodes *= dim[n++];
        if (*e == 0)
            break;
        if (*e != 'x' || n == 3)
            ok = 0;
        d = e + 1;
    }
    if (!ok || nodes > SIM_MAX_RANKS) {
        fprintf(stderr, "credosim: --topology %s: expected flat, mesh:XxYxZ or torus:XxYxZ with each dimension "
                        "1 .. 65536 and at most %u nodes (e.g. mesh:4x4x4)\n", s, SIM_MAX_RANKS);
        return -1;
    }
    unsigned x = (unsigned)dim[0], y = (unsigned)dim[1], z = (unsigned)dim[2];
    c->dims[0] = x;
    c->dims[1] = y;
    c->dims[2] = z;
    return 0;
}

/* --sample-fc: one CSV line per peer per sample (src/fc's peer_view of the sampled rank). */
typedef struct fc_sampler {
    FILE *f;
    uint32_t nranks, rank;
    uint64_t samples;
} fc_sampler;

static void sample_fc(void *arg, uint64_t t, uint64_t fin, const struct fc_ops *ops, const struct fc_state *st)
{
    fc_sampler *sp = arg;
    fc_peer_view v;
    for (uint32_t p = 0; p < sp->nranks; p++)
        if (p != sp->rank && ops->peer_view(st, p, &v) == 0)
            fprintf(sp->f, "%llu,%llu,%u,%u,%u,%u,%u\n", (unsigned long long)t, (unsigned long long)fin, p,
                    v.granted, v.intended, v.owed, v.credits);
    sp->samples++;
}

/* The progress bar of both modes: 40 columns for done of total, then the mode's own figure. */
void credosim_bar(uint64_t done, uint64_t total, const char *tail)
{
    int w = 40, fill = total ? (int)((double)done / (double)total * w) : 0;
    char bar[41];
    for (int i = 0; i < w; i++)
        bar[i] = i < fill ? '#' : ' ';
    bar[w] = 0;
    fprintf(stderr, "\r[%s] %s", bar, tail);
}

static void progress_bar(void *arg, uint64_t done, uint64_t total)
{
    (void)arg;
    char pct[16];
    snprintf(pct, sizeof pct, "%3d%%", total ? (int)(100.0 * (double)done / (double)total) : 0);
    credosim_bar(done, total, pct);
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "net") == 0)
        return credosim_net_main(argc, argv);
    int export = strcmp(argv[1], "export") == 0, memory = strcmp(argv[1], "memory") == 0;
    if (!export && !memory && strcmp(argv[1], "run") != 0) {
        fprintf(stderr, "credosim: unknown command '%s' (expected run, export, memory or net)\n", argv[1]);
        usage(stderr);
        return 2;
    }
    sim_config cfg;
    memset(&cfg, 0, sizeof cfg);
    sim_loggops_default(&cfg.lg);
    sim_cluster_default(&cfg.cl);
    const char *goal = NULL, *pattern = NULL, *sample_spec = NULL, *sample_out = NULL;
    uint64_t ranks = 0, v, max_goal_bytes = GOAL_TXT_MAX_FILE_BYTES;
    int csv = 0, quiet = 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
#define NEEDVAL()                                                                                  \
    do {                                                                                           \
        if (!val) {                                                                                \
            fprintf(stderr, "credosim: %s expects a value\n", a);                                  \
            return 2;                                                                              \
        }                                                                                          \
        i++;                                                                                       \
    } while (0)
        if (strcmp(a, "--goal") == 0) {
            NEEDVAL();
            goal = val;
        } else if (strcmp(a, "--pattern") == 0) {
            NEEDVAL();
            pattern = val;
        } else if (strcmp(a, "--ranks") == 0) {
            NEEDVAL();
            if (parse_range(a, val, 1, SIM_MAX_RANKS, "", &ranks))
                return 2;
        } else if (strcmp(a, "--max-goal-bytes") == 0) {
            NEEDVAL();
            if (parse_range(a, val, 1, 1ull << 40, " bytes", &max_goal_bytes))
                return 2;
        } else if (a[0] == '-' && a[1] && strchr("LogGOS", a[1]) && a[2] == 0) {
            NEEDVAL();
            /* L, o, g: at most the engine's step limit; G, O: 1 s per byte; S: any threshold */
            int per_byte = a[1] == 'G' || a[1] == 'O';
            if (a[1] == 'S' ? parse_u64(a, val, &v)
                            : parse_range(a, val, 0, per_byte ? 1000000000ull : SIM_STEP_MAX_NS,
                                          per_byte ? " ns per byte" : " ns", &v))
                return 2;
            switch (a[1]) {
            case 'L': cfg.lg.L = v; break;
            case 'o': cfg.lg.o = v; break;
            case 'g': cfg.lg.g = v; break;
            case 'G': cfg.lg.G = v; break;
            case 'O': cfg.lg.O = v; break;
            case 'S': cfg.lg.S = v; break;
            }
        } else if (strcmp(a, "--ppn") == 0) {
            NEEDVAL();
            if (parse_range(a, val, 1, 65536, " ranks per node", &v))
                return 2;
            cfg.cl.ppn = (uint32_t)v;
            cfg.cl.enabled = 1;
        } else if (strcmp(a, "--topology") == 0) {
            NEEDVAL();
            if (parse_topology(val, &cfg.cl))
                return 2;
            cfg.cl.enabled = 1;
        } else if (strcmp(a, "--fc") == 0) {
            NEEDVAL();
            if (strcmp(val, "none") && strcmp(val, "static") && strcmp(val, "dynamic")) {
                fprintf(stderr, "credosim: --fc %s: expected none, static or dynamic\n", val);
                return 2;
            }
            cfg.cl.fc = val;
            cfg.cl.enabled = 1;
        } else if (strcmp(a, "--slots") == 0) {
            NEEDVAL();
            if (parse_range(a, val, 1, 1u << 24, " slots", &v))
                return 2;
            cfg.cl.slots_per_peer = (uint32_t)v;
            cfg.cl.enabled = 1;
        } else if (strcmp(a, "--credit-slots") == 0) {
            NEEDVAL();
            if (parse_range(a, val, 1, 1024, " slots", &v)) /* src/fc: static >= 1, dynamic 1 .. 255 */
                return 2;
            cfg.cl.credit_slots = (uint32_t)v;
        } else if (strcmp(a, "--eager") == 0) {
            NEEDVAL();
            if (parse_range(a, val, 0, 1u << 30, " bytes", &v))
                return 2;
            cfg.cl.eager_max = (uint32_t)v;
        } else if (strcmp(a, "--no-piggyback") == 0) {
            cfg.cl.piggyback = 0;
        } else if (strcmp(a, "--hold-unexpected") == 0) {
            cfg.cl.hold_unexpected = 1;
            cfg.cl.enabled = 1;
        } else if (strcmp(a, "--rr-packets") == 0) {
            cfg.cl.rr_packets = 1;
            cfg.cl.enabled = 1;
        } else if (strcmp(a, "--sample-fc") == 0) {
            NEEDVAL();
            sample_spec = val;
        } else if (strcmp(a, "--sample-out") == 0) {
            NEEDVAL();
            sample_out = val;
        } else if (strcmp(a, "--csv") == 0) {
            csv = 1;
        } else if (strcmp(a, "--quiet") == 0) {
            quiet = 1;
        } else if (strcmp(a, "--seed") == 0) {
            NEEDVAL();
            if (parse_u64(a, val, &cfg.seed))
                return 2;
        } else {
            fprintf(stderr, "credosim: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (memory) {
        /* thesis Eq. 7.1/7.2: flow-control state of one receiver (src/fc's own accounting) plus its
         * mailbox of 64-byte slots */
        if (!ranks) {
            fprintf(stderr, "credosim: memory needs --ranks N\n");
            return 2;
        }
        const fc_ops *ops = fc_lookup(cfg.cl.fc);
        fc_params p = {(uint32_t)ranks, 0, cfg.cl.slots_per_peer, cfg.cl.credit_slots};
        fc_state *st = NULL;
        char e[256];
        if (!ops || ops->create(&p, &st, e, sizeof e) != 0) {
            fprintf(stderr, "credosim: %s\n", ops ? e : "unknown scheme");
            return 1;
        }
        size_t sb = ops->state_bytes(st);
        uint64_t mb = (uint64_t)ops->mailbox_slots(&p) * 64;
        printf("ranks,fc,slots_per_peer,state_bytes,mailbox_bytes,total_mib\n%llu,%s,%u,%zu,%llu,%.3f\n",
               (unsigned long long)ranks, ops->name, cfg.cl.slots_per_peer, sb, (unsigned long long)mb,
               (double)(sb + mb) / 1048576.0);
        ops->destroy(st);
        return 0;
    }
    if (!!goal == !!pattern) {
        fprintf(stderr, "credosim: give exactly one of --goal FILE or --pattern SPEC\n");
        return 2;
    }
    if (pattern && !ranks) {
        fprintf(stderr, "credosim: --pattern needs --ranks N\n");
        return 2;
    }
    fc_sampler sampler = {0};
    if (!!sample_spec != !!sample_out) {
        fprintf(stderr, "credosim: --sample-fc RANK:NS and --sample-out FILE go together\n");
        return 2;
    }
    if (sample_spec) {
        uint64_t sr, sns;
        const char *e;
        if (digits_u64(sample_spec, SIM_MAX_RANKS - 1, &sr, &e) != 0 || *e != ':' ||
            digits_u64(e + 1, SIM_TIME_MAX_NS, &sns, NULL) != 0 || sns == 0) {
            fprintf(stderr, "credosim: --sample-fc %s: expected RANK:NS with RANK 0 .. %u and NS 1 .. %llu (e.g. 0:1000000)\n",
                    sample_spec, SIM_MAX_RANKS - 1, (unsigned long long)SIM_TIME_MAX_NS);
            return 2;
        }
        if (!cfg.cl.enabled) {
            fprintf(stderr, "credosim: --sample-fc samples the cluster model's flow control: give --fc (and --ppn)\n");
            return 2;
        }
        if (export || memory) {
            fprintf(stderr, "credosim: --sample-fc applies to run only\n");
            return 2;
        }
        cfg.sample_rank = (uint32_t)(sr > UINT32_MAX ? UINT32_MAX : sr);
        cfg.sample_ns = sns;
    }
    char err[512];
    sim_sched *s = NULL;
    int rc = goal ? sim_sched_from_goal_file_max(goal, max_goal_bytes, &s, err, sizeof err)
                  : sim_pattern_build(pattern, (uint32_t)ranks, &s, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "credosim: %s\n", err);
        return strncmp(err, "--pattern", 9) == 0 ? 2 : 1; /* a bad spec is a bad option */
    }
    if (export) {
        rc = sim_sched_write_goal(stdout, s);
        sim_sched_free(s);
        return rc ? 1 : 0;
    }
    if (sample_spec) {
        if (cfg.sample_rank >= s->nranks) {
            fprintf(stderr, "credosim: --sample-fc: rank %u is not below %u ranks\n", cfg.sample_rank, s->nranks);
            sim_sched_free(s);
            return 2;
        }
        sampler.f = fopen(sample_out, "w");
        if (!sampler.f) {
            fprintf(stderr, "credosim: --sample-out %s: %s\n", sample_out, strerror(errno));
            sim_sched_free(s);
            return 1;
        }
        fprintf(sampler.f, "t_ns,ops_finished,peer,granted,intended,owed,credits\n");
        sampler.nranks = s->nranks;
        sampler.rank = cfg.sample_rank;
        cfg.sample = sample_fc;
        cfg.sample_arg = &sampler;
    }
    if (!quiet && !csv && isatty(2))
        cfg.progress = progress_bar;
    uint64_t *finish = malloc((size_t)s->nranks * sizeof *finish);
    sim_stats st;
    if (!finish) {
        fprintf(stderr, "credosim: out of memory\n");
        return 1;
    }
    rc = sim_run(s, &cfg, finish, &st, err, sizeof err);
    if (cfg.progress)
        fprintf(stderr, "\r%60s\r", "");
    if (sampler.f && fclose(sampler.f) != 0 && rc == 0) {
        fprintf(stderr, "credosim: --sample-out %s: %s\n", sample_out, strerror(errno));
        rc = -1;
        snprintf(err, sizeof err, "samples not written completely");
    }
    if (rc != 0) {
        fprintf(stderr, "credosim: %s\n", err);
        free(finish);
        sim_sched_free(s);
        return 1;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    if (csv) {
        printf("host,finish_ns\n");
        for (uint32_t h = 0; h < s->nranks; h++)
            printf("%u,%llu\n", h, (unsigned long long)finish[h]);
    } else {
        printf("%s: %u ranks, %llu operations; L=%llu o=%llu g=%llu G=%llu O=%llu S=%llu%s\n", s->name, s->nranks,
               (unsigned long long)s->nops, (unsigned long long)cfg.lg.L, (unsigned long long)cfg.lg.o,
               (unsigned long long)cfg.lg.g, (unsigned long long)cfg.lg.G, (unsigned long long)cfg.lg.O,
               (unsigned long long)cfg.lg.S, cfg.cl.enabled ? " (cluster model)" : "");
        if (s->nranks <= 16)
            for (uint32_t h = 0; h < s->nranks; h++)
                printf("Host %u: %llu\n", h, (unsigned long long)finish[h]);
        printf("Maximum finishing time at host %u: %llu ns (%.6f s)\n", st.max_host, (unsigned long long)st.max_finish,
               (double)st.max_finish * 1e-9);
        if (cfg.cl.enabled)
            printf("cluster: fc=%s slots/peer=%u C=%u ppn=%u: data packets %llu, credit packets %llu, piggybacked %llu, "
                   "ctrl packets %llu, delayed messages %llu (%.2f%% of %llu eager inter-node), delayed packets %llu, "
                   "shm messages %llu, rendezvous %llu, max mailbox fill %llu, mailbox overflows %llu\n",
                   cfg.cl.fc, cfg.cl.slots_per_peer, cfg.cl.credit_slots, cfg.cl.ppn,
                   (unsigned long long)st.data_packets, (unsigned long long)st.credit_packets,
                   (unsigned long long)st.piggybacked, (unsigned long long)st.ctrl_packets,
                   (unsigned long long)st.delayed_msgs,
                   st.eager_msgs ? 100.0 * (double)st.delayed_msgs / (double)st.eager_msgs : 0.0,
                   (unsigned long long)st.eager_msgs, (unsigned long long)st.delayed_pkts,
                   (unsigned long long)st.shm_msgs, (unsigned long long)st.rndv_msgs,
                   (unsigned long long)st.max_mailbox, (unsigned long long)st.mailbox_overflows);
        if (sampler.f)
            printf("sampled: rank %u's flow-control view every %llu ns, %llu samples, in %s\n", sampler.rank,
                   (unsigned long long)cfg.sample_ns, (unsigned long long)sampler.samples, sample_out);
        if (cfg.cl.hold_unexpected)
            printf("held: %llu packets held until matched, %llu of them released by idle-time spills\n",
                   (unsigned long long)st.held_packets, (unsigned long long)st.spilled_packets);
        printf("events: %llu (%llu operations + %llu messages) in %.3f s CPU (%.3f s wall) = %.2f M events/s; "
               "peak queue %zu; schedule %.1f MB; peak RSS %.1f MB\n",
               (unsigned long long)st.events, (unsigned long long)s->nops, (unsigned long long)st.messages, st.cpu_s,
               st.wall_s, st.cpu_s > 0 ? (double)st.events / st.cpu_s * 1e-6 : 0.0,
               st.peak_queue, (double)sim_sched_bytes(s) / 1048576.0, (double)ru.ru_maxrss / 1024.0);
    }
    free(finish);
    sim_sched_free(s);
    return 0;
}
