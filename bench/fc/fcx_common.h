/* bench/fc/fcx_common.h — shared pieces of the flow-control experiments (fcx_*): options, timing, and the
 * MPI_T reading of flow-control counters over the timed region only; one result line per run. */
#ifndef CREDO_FCX_COMMON_H
#define CREDO_FCX_COMMON_H

/* Standard MPI plus the standard MPI_T interface; counters are looked up by name suffix, so on an MPI
 * without credo's variables the result line simply carries no counters. */
#include <mpi.h>
#ifdef CREDO_MPI
#include <credo/mpi_t.h> /* guarded: harmless once mpi.h includes it itself */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FCX_MSG 2048 /* the thesis' message size: 37 slots of 64 B with credo's headers */

typedef struct fcx_opts {
    long iters;  /* -i: iterations (experiment-specific unit) */
    int active;  /* -a: active pairs (multipingpong) */
    int group;   /* -g: group size (phased alltoall) */
    int phase;   /* -p: iterations per phase (phased alltoall) */
    int burst;   /* -b: messages per sender per iteration (incast) */
    size_t size; /* -s: message bytes */
} fcx_opts;

static inline void fcx_parse(int argc, char **argv, fcx_opts *o)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        long v = strtol(argv[i + 1], NULL, 10);
        if (strcmp(argv[i], "-i") == 0)
            o->iters = v;
        else if (strcmp(argv[i], "-a") == 0)
            o->active = (int)v;
        else if (strcmp(argv[i], "-g") == 0)
            o->group = (int)v;
        else if (strcmp(argv[i], "-p") == 0)
            o->phase = (int)v;
        else if (strcmp(argv[i], "-b") == 0)
            o->burst = (int)v;
        else if (strcmp(argv[i], "-s") == 0)
            o->size = (size_t)v;
        else {
            fprintf(stderr,
                    "usage: %s [-i iters] [-a active-pairs] [-g group] [-p phase-len] [-b burst] [-s bytes]\n",
                    argv[0]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (o->iters < 1 || o->size < 1) {
        fprintf(stderr, "%s: iterations and size must be positive\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

/* ---- counters through MPI_T ---- */

enum { FCX_DATA, FCX_CREDIT, FCX_PIGGY, FCX_DELAYED, FCX_DELAY_NS, FCX_STOLEN, FCX_REQUESTS, FCX_MAILBOX, FCX_NC };
static const char *const fcx_cnames[FCX_NC] = {"data_packets_sent", "credit_packets_sent", "piggybacked_returns",
                                               "delayed_sends",     "delay_ns",            "credits_stolen",
                                               "compulsory_requests", "mailbox_slots"};

typedef struct fcx_stats {
    int on;
    MPI_T_pvar_session ses;
    MPI_T_pvar_handle h[FCX_NC];
    unsigned long long v[FCX_NC];
} fcx_stats;

/* Called after MPI_Init: allocates one handle per counter found (others stay NULL). */
static inline void fcx_stats_init(fcx_stats *s)
{
    memset(s, 0, sizeof *s);
    int provided, n;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
        return;
    if (MPI_T_pvar_session_create(&s->ses) != MPI_SUCCESS || MPI_T_pvar_get_num(&n) != MPI_SUCCESS)
        return;
    for (int i = 0; i < n; i++) {
        char name[256];
        int len = sizeof name, cls, bind, count;
        MPI_Datatype dt;
        if (MPI_T_pvar_get_info(i, name, &len, NULL, &cls, &dt, NULL, NULL, NULL, &bind, NULL, NULL, NULL) !=
                MPI_SUCCESS ||
            dt != MPI_UNSIGNED_LONG_LONG || bind != MPI_T_BIND_NO_OBJECT)
            continue;
        size_t nl = strlen(name);
        for (int c = 0; c < FCX_NC; c++) {
            size_t cl = strlen(fcx_cnames[c]);
            if (s->h[c] == NULL && nl >= cl && strcmp(name + nl - cl, fcx_cnames[c]) == 0 &&
                (nl == cl || name[nl - cl - 1] == '_'))
                if (MPI_T_pvar_handle_alloc(s->ses, i, NULL, &s->h[c], &count) != MPI_SUCCESS || count != 1)
                    s->h[c] = NULL;
        }
    }
    s->on = 1;
}

/* The thesis' experiments send their messages through the mailbox (eagerly). credo's default eager
 * limit (512 B) sends a 2 KB message as a one-slot rendezvous request instead, which measures
 * something else: say so on rank 0 when the limit, read through MPI_T, is below the message size.
 * Other MPIs have no such control variable and stay silent. */
static inline void fcx_check_eager(const fcx_stats *s, size_t msg)
{
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (!s->on || rank != 0 || MPI_T_cvar_get_num(&n) != MPI_SUCCESS)
        return;
    for (int i = 0; i < n; i++) {
        char name[256];
        int len = sizeof name, verb, bind, scope, count;
        MPI_Datatype dt;
        MPI_T_cvar_handle h;
        unsigned long long limit;
        if (MPI_T_cvar_get_info(i, name, &len, &verb, &dt, NULL, NULL, NULL, &bind, &scope) != MPI_SUCCESS ||
            strcmp(name, "CREDO_EAGER_LIMIT") != 0 || dt != MPI_UNSIGNED_LONG_LONG)
            continue;
        if (MPI_T_cvar_handle_alloc(i, NULL, &h, &count) != MPI_SUCCESS)
            return;
        if (count == 1 && MPI_T_cvar_read(h, &limit) == MPI_SUCCESS && msg > limit)
            fprintf(stderr,
                    "fcx: note: CREDO_EAGER_LIMIT=%llu < %zu B: messages go as rendezvous requests, not through "
                    "the mailbox as in the thesis (run with --eager-limit 3072)\n",
                    limit, msg);
        MPI_T_cvar_handle_free(&h);
        return;
    }
}

/* Counters count from here (the timed region starts right after a barrier). */
static inline void fcx_stats_start(fcx_stats *s)
{
    if (s->on)
        MPI_T_pvar_start(s->ses, MPI_T_PVAR_ALL_HANDLES);
}

static inline void fcx_stats_stop(fcx_stats *s)
{
    if (!s->on)
        return;
    MPI_T_pvar_stop(s->ses, MPI_T_PVAR_ALL_HANDLES);
    for (int c = 0; c < FCX_NC; c++)
        if (s->h[c] == NULL || MPI_T_pvar_read(s->ses, s->h[c], &s->v[c]) != MPI_SUCCESS)
            s->v[c] = 0;
}

/* One line on rank 0 with totals over all ranks (mailbox slots: the largest single mailbox).
 * `msgs` is this rank's number of messages sent in the timed region, `t` its duration. */
static inline void fcx_report(const char *name, fcx_stats *s, long iters, unsigned long long msgs, double t)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned long long mine[FCX_NC + 1], tot[FCX_NC + 1], mbox = s->v[FCX_MAILBOX], mbox_max = 0;
    memcpy(mine, s->v, sizeof s->v);
    mine[FCX_NC] = msgs;
    MPI_Reduce(mine, tot, FCX_NC + 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mbox, &mbox_max, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    double tmax = 0;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank != 0)
        return;
    /* The key=value line is what run_fc_experiments.sh parses. */
    printf("fcx exp=%s np=%d iters=%ld time_us=%.1f per_iter_us=%.3f msgs=%llu data_pkts=%llu "
           "credit_pkts=%llu piggybacked=%llu delayed=%llu delay_us=%.1f stolen=%llu requests=%llu "
           "mailbox_slots=%llu counters=%d\n",
           name, size, iters, tmax * 1e6, tmax * 1e6 / (double)iters, tot[FCX_NC], tot[FCX_DATA], tot[FCX_CREDIT],
           tot[FCX_PIGGY], tot[FCX_DELAYED], (double)tot[FCX_DELAY_NS] / 1e3, tot[FCX_STOLEN], tot[FCX_REQUESTS],
           mbox_max, s->h[FCX_DELAYED] != NULL);
    fflush(stdout);
}

static inline void fcx_stats_free(fcx_stats *s)
{
    if (!s->on)
        return;
    MPI_T_pvar_session_free(&s->ses);
    MPI_T_finalize();
}

/* All-to-all among `members` (sorted ranks, this rank included) with point-to-point only: post nothing
 * in advance, send to everyone, then receive from everyone — the thesis' pattern, which leaves most
 * messages unexpected and so stresses the mailboxes. Sends are non-blocking so a quota smaller than one
 * message cannot deadlock two ranks that both wait in a send. Returns messages sent. */
static inline unsigned long long fcx_alltoall(const int *members, int n, int me_idx, char *sbuf, char *rbuf,
                                             size_t size, MPI_Request *rq)
{
    int k = 0;
    for (int d = 1; d < n; d++) {
        int peer = members[(me_idx + d) % n];
        MPI_Isend(sbuf, (int)size, MPI_CHAR, peer, 11, MPI_COMM_WORLD, &rq[k++]);
    }
    for (int d = 1; d < n; d++) {
        int peer = members[(me_idx + n - d) % n];
        MPI_Recv(rbuf, (int)size, MPI_CHAR, peer, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Waitall(k, rq, MPI_STATUSES_IGNORE);
    return (unsigned long long)k;
}

#endif
