/* src/sim/sim_pattern.h — communication patterns credosim builds in process: its own generators
 * (barrier, alltoall, multi-pingpong, IMB-like kernels, phased alltoall) and src/coll's schedules. */
#ifndef CREDO_SIM_PATTERN_H
#define CREDO_SIM_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#include "sim/sim.h"

/* spec: "barrier[:ITERS]"               dissemination barrier (the GOAL files' structure)
 *       "alltoall:BYTES[:ITERS]"        linear alltoall, send to r+i / recv from r-i, all posted at once
 *       "pingpong:BYTES[:ITERS]"        multi-pingpong: rank i < N/2 ping-pongs with i + N/2
 *       "bcast:BYTES"                   binomial-tree broadcast from rank 0
 *       "phased:BYTES[:REPS]"           thesis E8: alltoalls among all, 1/4, 1/2, all, 1/2, 1/4, all of
 *                                       the ranks, REPS per phase, a barrier after each phase
 *       "farpingpong:BYTES[:ITERS]"     the first 16 ranks ping-pong with the last 16 (distance test)
 *       "sendrecv|exchange|reduce|allreduce|allgather|gather|scatter:BYTES[:ITERS]"  IMB-like kernels
 *       "coll:NAME[:BYTES[:ALG]]"       src/coll's schedule for NAME (barrier, bcast, allreduce, ...),
 *                                       built rank by rank by coll_build (sim_coll.c)
 * Returns 0 and a schedule, or -1 with a message naming what was expected. */
/* Largest BYTES of a pattern (1 TiB); ITERS x ranks must stay below 2^32. Numbers are digits only:
 * a sign, a blank or anything after the number is refused with a message naming the spec. */
#define SIM_PATTERN_MAX_BYTES (1ull << 40)
int sim_pattern_build(const char *spec, uint32_t nranks, sim_sched **out, char *err, size_t errlen);

/* A decimal number of digits only (no sign, blank or '+'), at most max: 0 with *out and *end (the
 * first non-digit), or -1 (no digit, or above max). Shared by the pattern specs and credosim's
 * option parser. */
int sim_parse_dec(const char *s, const char **end, unsigned long long max, unsigned long long *out);
/* The coll: patterns alone. BYTES = count of one-byte elements (per peer for alltoall, per rank
 * for gather/scatter/allgather), root 0, commutative reductions; ALG as CREDO_COLL_<NAME> takes
 * it, default: src/coll's table. Local operations and reductions cost 0 ns. */
int sim_coll_build(const char *spec, uint32_t nranks, sim_sched **out, char *err, size_t errlen);

#endif
