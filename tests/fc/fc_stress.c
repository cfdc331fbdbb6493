/* tests/fc/fc_stress.c — randomized state-machine harness for the flow-control schemes: N senders
 * and one receiver in the packet model, random bursts, delays, holds and phases, checked each step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc/fc.h"
#include "fc_model.h"

static uint64_t rng_state;
static fc_counters totals; /* over all epochs, printed at the end */
static uint64_t max_idle;  /* longest a link with backlog waited, over all epochs */

static uint64_t rnd(void) /* xorshift64*: reproducible from the seed alone */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}

static uint32_t below(uint32_t n) { return n ? (uint32_t)((rnd() >> 32) % n) : 0; }
static int chance(uint32_t percent) { return below(100) < percent; }

typedef struct epoch_cfg {
    uint32_t procs, S, C;
} epoch_cfg;

/* Parameters vary per epoch: small rings (where bugs live) most of the time, C from 1 to 3. */
static epoch_cfg pick_cfg(const fc_ops *ops)
{
    epoch_cfg c;
    c.procs = 2 + below(7);
    c.C = 1 + below(3);
    uint32_t min_s = 2 * c.C + 1; /* static needs Q >= C+1; dynamic needs a static region too */
    c.S = min_s + (chance(70) ? below(6) : below(40));
    (void)ops;
    return c;
}

/* One epoch: `steps` random actions in phases, then a fair drain that must reach quiescence. */
static int run_epoch(const fc_ops *ops, uint64_t steps, int verbose, uint64_t *done)
{
    epoch_cfg cfg = pick_cfg(ops);
    fc_model m;
    if (model_init(&m, ops, cfg.procs, cfg.S, cfg.C) != 0) {
        fprintf(stderr, "fc_stress: %s refused P=%u S=%u C=%u: %s\n", ops->name, cfg.procs, cfg.S, cfg.C, m.why);
        model_free(&m);
        return -1;
    }
    uint32_t P = cfg.procs;
    m.starve_steps = 100000; /* over 3x the longest wait (about 29k steps) in 50M-step runs */
    uint8_t *active = calloc(P, 1);
    uint32_t phase_left = 0, hold_pct = 0, recv_pct = 0, back_pct = 0, burst_pct = 0;
    uint64_t start = m.step;
    while (!m.failed && m.step - start < steps) {
        if (phase_left == 0) {
            /* A phase: which senders are active, how often the receiver reads (consumption
             * delay), how much arrives as unexpected, how much the receiver sends back. */
            phase_left = 200 + below(5000);
            for (uint32_t i = 1; i < P; i++)
                active[i] = chance(50);
            active[1 + below(P - 1)] = 1;
            hold_pct = chance(30) ? below(60) : below(5);
            recv_pct = 5 + below(60);
            back_pct = chance(50) ? below(20) : 0;
            burst_pct = 1 + below(10);
        }
        phase_left--;
        /* New traffic: bursts from active senders to rank 0, some replies from 0 (piggybacks,
         * and in dynamic the request/response paths in both directions), rare side traffic. */
        if (chance(burst_pct)) {
            uint32_t s = 1 + below(P - 1);
            if (active[s] && model_backlog(&m) < 50ull * cfg.S * P)
                model_queue(&m, s, 0, 1 + below(4), 1 + below(2 * cfg.S));
        }
        if (back_pct && chance(back_pct) && model_backlog(&m) < 50ull * cfg.S * P)
            model_queue(&m, 0, 1 + below(P - 1), 1, 1 + below(cfg.S));
        if (P > 2 && chance(1))
            model_queue(&m, 1 + below(P - 1), 1 + below(P - 1), 1, 1 + below(cfg.S));

        uint32_t a = below(100);
        if (a < 30) {
            uint32_t i = below(P), j = below(P);
            model_send(&m, i, j, chance(50) ? 0 : 1 + below(cfg.S));
        } else if (a < 60) {
            model_deliver(&m, below(P), below(P));
        } else if (a < 90) {
            uint32_t j = below(P);
            /* The receiver (rank 0) reads at the phase's pace; senders read their credits often. */
            if (j != 0 || chance(recv_pct))
                model_retrieve(&m, j, chance(hold_pct));
        } else {
            uint32_t j = below(P);
            if (j != 0 || chance(recv_pct))
                model_release(&m, j, below(P), chance(50) ? 0 : 1 + below(3));
        }
    }
    if (!m.failed)
        model_drain(&m, 20000000);
    if (!m.failed && m.data_sent != m.data_released) {
        snprintf(m.why, sizeof m.why, "lost packets: %llu sent, %llu released", (unsigned long long)m.data_sent,
                 (unsigned long long)m.data_released);
        m.failed = 1;
    }
    fc_counters sum = {0};
    for (uint32_t i = 0; i < P; i++) {
        const fc_counters *c = ops->counters(m.procs[i].fc);
        sum.credit_packets_sent += c->credit_packets_sent;
        sum.piggybacked_returns += c->piggybacked_returns;
        sum.compulsory_requests += c->compulsory_requests;
        sum.compulsory_responses += c->compulsory_responses;
        sum.credits_stolen += c->credits_stolen;
        sum.monitoring_points += c->monitoring_points;
    }
    totals.credit_packets_sent += sum.credit_packets_sent;
    totals.piggybacked_returns += sum.piggybacked_returns;
    totals.compulsory_requests += sum.compulsory_requests;
    totals.compulsory_responses += sum.compulsory_responses;
    totals.credits_stolen += sum.credits_stolen;
    totals.monitoring_points += sum.monitoring_points;
    totals.data_packets_sent += m.data_sent;
    if (m.max_idle > max_idle)
        max_idle = m.max_idle;
    if (verbose || m.failed)
        fprintf(m.failed ? stderr : stdout,
                "fc_stress: %s P=%u S=%u C=%u steps=%llu data=%llu ring-max=%llu/%u credit-pkts=%llu "
                "piggybacks=%llu requests=%llu responses=%llu stolen=%llu monitoring=%llu %s%s\n",
                ops->name, P, cfg.S, cfg.C, (unsigned long long)(m.step - start), (unsigned long long)m.data_sent,
                (unsigned long long)m.max_ring, m.ring_slots, (unsigned long long)sum.credit_packets_sent,
                (unsigned long long)sum.piggybacked_returns, (unsigned long long)sum.compulsory_requests,
                (unsigned long long)sum.compulsory_responses, (unsigned long long)sum.credits_stolen,
                (unsigned long long)sum.monitoring_points, m.failed ? "FAILED: " : "ok", m.failed ? m.why : "");
    *done += m.step - start;
    int rc = m.failed ? -1 : 0;
    free(active);
    model_free(&m);
    return rc;
}

static void usage(void)
{
    fprintf(stderr, "usage: fc_stress [--scheme none|static|dynamic] [--steps N] [--seed N] [--epoch N] [-v]\n");
}

int main(int argc, char **argv)
{
    const char *scheme = "static";
    uint64_t steps = 1000000, seed = 1, epoch = 200000;
    int verbose = 0;
    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--scheme") && k + 1 < argc)
            scheme = argv[++k];
        else if (!strcmp(argv[k], "--steps") && k + 1 < argc)
            steps = strtoull(argv[++k], NULL, 10);
        else if (!strcmp(argv[k], "--seed") && k + 1 < argc)
            seed = strtoull(argv[++k], NULL, 10);
        else if (!strcmp(argv[k], "--epoch") && k + 1 < argc)
            epoch = strtoull(argv[++k], NULL, 10);
        else if (!strcmp(argv[k], "-v"))
            verbose = 1;
        else {
            usage();
            return 2;
        }
    }
    const fc_ops *ops = fc_lookup(scheme);
    if (!ops || epoch == 0) {
        usage();
        return 2;
    }
    uint64_t done = 0;
    unsigned epochs = 0;
    while (done < steps) {
        /* Each epoch has its own seed so a failure can be replayed alone with --seed. */
        uint64_t eseed = seed * 1000003ull + epochs;
        rng_state = eseed * 0x9E3779B97F4A7C15ull + 1;
        uint64_t n = steps - done < epoch ? steps - done : epoch;
        if (run_epoch(ops, n, verbose, &done) != 0) {
            fprintf(stderr, "fc_stress: violation in epoch %u (replay: --seed %llu --epoch %llu, epoch index %u)\n",
                    epochs, (unsigned long long)seed, (unsigned long long)epoch, epochs);
            return 1;
        }
        epochs++;
    }
    printf("fc_stress: %s: %llu steps in %u epochs, no violation (longest wait %llu steps; data %llu, credit "
           "packets %llu, piggybacks %llu, requests %llu, responses %llu, stolen %llu, monitoring points %llu)\n",
           scheme, (unsigned long long)done, epochs, (unsigned long long)max_idle, (unsigned long long)totals.data_packets_sent,
           (unsigned long long)totals.credit_packets_sent, (unsigned long long)totals.piggybacked_returns,
           (unsigned long long)totals.compulsory_requests, (unsigned long long)totals.compulsory_responses,
           (unsigned long long)totals.credits_stolen, (unsigned long long)totals.monitoring_points);
    /* A run that never exercised the mechanism under test proves nothing. */
    if (!strcmp(scheme, "dynamic") && steps >= 1000000 &&
        (!totals.compulsory_requests || !totals.credits_stolen || !totals.piggybacked_returns)) {
        fprintf(stderr, "fc_stress: dynamic run never stole, requested or piggybacked\n");
        return 1;
    }
    return 0;
}
