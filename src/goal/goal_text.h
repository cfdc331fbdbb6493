/* src/goal/goal_text.h — reader and writer of the LogGOPSim GOAL text format (num_ranks, rank
 * blocks, send/recv/calc with requires/irequires); a flat, memory-lean form shared with credosim. */
#ifndef CREDO_GOAL_TEXT_H
#define CREDO_GOAL_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Format (one statement per line by convention; the reader treats newlines as blanks):
 *   num_ranks N
 *   rank R {
 *     [label:] send <bytes>[b] to <rank> [tag <t>] [cpu <c>] [nic <n>]
 *     [label:] recv <bytes>[b] from <rank|-1> [tag <t|-1>] [cpu <c>] [nic <n>]
 *     [label:] calc <time> [cpu <c>] [nic <n>]
 *     A requires B      (A starts after B finished)
 *     A irequires B     (A starts after B started)
 *   }
 * Comments: // to end of line and C-style block comments. Labels are per rank, may be used before
 * they are defined within the same rank block, and the tag defaults to 0. */

enum goal_txt_kind { GOAL_TXT_SEND = 0, GOAL_TXT_RECV = 1, GOAL_TXT_CALC = 2 };

typedef struct goal_txt_op {
    uint8_t kind;  /* enum goal_txt_kind */
    uint8_t cpu;
    uint8_t nic;
    int32_t peer;  /* -1 = any for recv; unused (0) for calc */
    int32_t tag;   /* -1 = any (recv only) */
    uint64_t size; /* bytes, or time for calc */
    uint32_t line; /* source line of the operation (0 when built in memory) */
} goal_txt_op;

enum goal_txt_dep_kind { GOAL_TXT_REQUIRES = 0, GOAL_TXT_IREQUIRES = 1 };

typedef struct goal_txt_dep {
    uint32_t op; /* ops[op] requires ops[on] */
    uint32_t on;
    uint8_t kind; /* enum goal_txt_dep_kind */
} goal_txt_dep;

/* One rank block of the file: ops in order of appearance, deps in order of appearance too. */
typedef struct goal_txt_rank {
    uint32_t rank; /* the rank this block describes */
    uint32_t nops, ndeps;
    goal_txt_op *ops;
    goal_txt_dep *deps;
} goal_txt_rank;

/* Storage follows what the file holds, not what it declares: only ranks with a block get one, so
 * `num_ranks 2000000000` with two blocks costs two blocks. A rank without a block is empty. */
typedef struct goal_txt {
    uint32_t nranks;        /* declared by num_ranks (1 .. GOAL_TXT_MAX_RANKS) */
    uint32_t nranks_line;   /* source line of num_ranks (0 when built in memory) */
    uint32_t nblocks;       /* rank blocks, in increasing rank order, each rank at most once */
    goal_txt_rank *blocks;
} goal_txt;

/* Limits of the reader. Ranks and peers are int32 in the in-memory form; the operations and the
 * dependencies of one rank are counted in 32 bits. A file is read whole, so the file reader refuses
 * files above a byte limit (GOAL_TXT_MAX_FILE_BYTES unless the caller gives another) instead of
 * reading without end (`--goal /dev/zero`); a NUL byte is refused at once (not text). */
#define GOAL_TXT_MAX_RANKS 2147483647u
#define GOAL_TXT_MAX_OPS_PER_RANK 4294967294u
#define GOAL_TXT_MAX_FILE_BYTES (1ull << 30)

/* Readers return 0 and a new goal_txt in *out (free with goal_txt_free), or -1 with *out = NULL and
 * a message "name:line: expected ..., got ..." in err (truncated to errlen; err may be NULL).
 * They are reentrant: no static state. Checks: every number is decimal, in range and followed by
 * nothing but its unit ('b' on sizes); ranks in range and not repeated, peers in range, tag -1 /
 * peer -1 only on recv, cpu/nic <= 255, labels defined once and every used label defined, no byte
 * outside printable ASCII and blanks. Memory is proportional to the text, whatever it declares. */
int goal_txt_read_file(const char *path, goal_txt **out, char *err, size_t errlen);
/* The same with a byte limit of the caller's (0 = GOAL_TXT_MAX_FILE_BYTES). */
int goal_txt_read_file_max(const char *path, uint64_t max_bytes, goal_txt **out, char *err,
                           size_t errlen);
int goal_txt_read_mem(const char *text, size_t len, const char *name, goal_txt **out, char *err,
                      size_t errlen);
/* The block of `rank`, or NULL when the file has none (the rank is empty). O(log nblocks). */
const goal_txt_rank *goal_txt_rank_of(const goal_txt *g, uint32_t rank);
/* Whether every message can find its partner, counted per (source, destination, tag): a send
 * nobody receives, or a receive nobody sends to, makes the schedule unable to complete. Wildcard
 * receives (peer or tag -1) may take any message sent to their rank, so for a rank that has them
 * only the totals are compared (the rest is left to whoever runs the schedule). Memory: 24 bytes
 * per send and receive. 0, or -1 with "name:line: schedule cannot complete: ..." in err. */
int goal_txt_check_matching(const goal_txt *g, const char *name, char *err, size_t errlen);
/* Writes g in the text format (labels l0, l1, ... = op indices; only the blocks g holds). 0, or -1
 * on a write error. */
int goal_txt_write(FILE *f, const goal_txt *g);
void goal_txt_free(goal_txt *g);

#endif
