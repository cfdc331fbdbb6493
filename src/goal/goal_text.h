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

/* ops are in order of appearance in the rank block; deps in order of appearance too. */
typedef struct goal_txt_rank {
    uint32_t nops, ndeps;
    goal_txt_op *ops;
    goal_txt_dep *deps;
} goal_txt_rank;

typedef struct goal_txt {
    uint32_t nranks;
    goal_txt_rank *ranks; /* nranks entries; a rank without a block is empty */
} goal_txt;

/* Readers return 0 and a new goal_txt in *out (free with goal_txt_free), or -1 with *out = NULL and
 * a message "name:line: expected ..., got ..." in err (truncated to errlen; err may be NULL).
 * They are reentrant: no static state. Checks: ranks in range and not repeated, peers in range,
 * tag -1 / peer -1 only on recv, cpu/nic <= 255, labels defined once and every used label defined. */
int goal_txt_read_file(const char *path, goal_txt **out, char *err, size_t errlen);
int goal_txt_read_mem(const char *text, size_t len, const char *name, goal_txt **out, char *err,
                      size_t errlen);
/* Writes g in the text format (labels l0, l1, ... = op indices). 0, or -1 on a write error. */
int goal_txt_write(FILE *f, const goal_txt *g);
void goal_txt_free(goal_txt *g);

#endif
