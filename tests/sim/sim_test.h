/* tests/sim/sim_test.h — helpers shared by the credosim unit tests: a spec run with an engine
 * switch on or off and the checks that both ways agree, and a schedule's GOAL text. */
#ifndef CREDO_SIM_TEST_H
#define CREDO_SIM_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"
#include "sim/sim_pattern.h"

/* Builds `spec` at n ranks and runs it with the environment switch `var` set to "1" (on) or unset
 * (off; left unset afterwards). Returns the finish times (malloc'd); *st gets the statistics. */
static inline uint64_t *run_spec_switch(const char *spec, uint32_t n, const sim_config *c, const char *var,
                                        int on, sim_stats *st)
{
    if (on)
        setenv(var, "1", 1);
    else
        unsetenv(var);
    sim_sched *s = NULL;
    char err[256];
    if (sim_pattern_build(spec, n, &s, err, sizeof err) != 0)
        fail_msg("%s: %s", spec, err);
    uint64_t *f = calloc(n, sizeof *f);
    assert_non_null(f);
    if (sim_run(s, c, f, st, err, sizeof err) != 0)
        fail_msg("%s: %s", spec, err);
    sim_sched_free(s);
    unsetenv(var);
    return f;
}

/* Fails unless runs f[0] (variant a) and f[1] (variant b) finished each of the n hosts at the same
 * time; `what` names the run in the message. Frees both. */
static inline void expect_same_finish(const char *what, uint64_t *f[2], uint32_t n, const char *a, const char *b)
{
    for (uint32_t r = 0; r < n; r++)
        if (f[0][r] != f[1][r])
            fail_msg("%s: host %u: %s %llu ns, %s %llu ns", what, r, a, (unsigned long long)f[0][r], b,
                     (unsigned long long)f[1][r]);
    free(f[0]);
    free(f[1]);
}

/* Fails unless two cluster-model runs processed the same events and moved the same packets. */
static inline void expect_same_cluster_counts(const sim_stats st[2])
{
    assert_int_equal(st[0].events, st[1].events);
    assert_int_equal(st[0].data_packets, st[1].data_packets);
    assert_int_equal(st[0].credit_packets, st[1].credit_packets);
    assert_int_equal(st[0].delayed_pkts, st[1].delayed_pkts);
    assert_int_equal(st[0].max_mailbox, st[1].max_mailbox);
}

/* The schedule as GOAL text (malloc'd, *len bytes, NUL-terminated). */
static inline char *goal_text_of(const sim_sched *s, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    assert_non_null(f);
    assert_int_equal(sim_sched_write_goal(f, s), 0);
    fclose(f);
    /* a copy the caller owns: GCC 12 at -O3 inlines this and then takes pointers into the text for
       pointers to `buf` itself (-Wdangling-pointer, a false positive) */
    char *text = malloc(*len + 1);
    assert_non_null(text);
    memcpy(text, buf, *len + 1);
    free(buf);
    return text;
}

#endif
