/* include/credo/goal.h — the public GOAL API: build a dependency graph of sends, receives and local
 * operations, compile it once into a schedule, run it many times without blocking. */
#ifndef CREDO_GOAL_H
#define CREDO_GOAL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes: GOAL_SUCCESS or a negative error. Constructors (vertices, graphs, schedules,
 * handles) return a sentinel instead (GOAL_INVALID_VERTEX or NULL); a graph remembers the first
 * error of a builder call, see GOAL_GraphStatus. */
enum {
    GOAL_SUCCESS = 0,
    GOAL_ERR_ARG = -1,      /* bad argument (NULL, negative count, rank out of range, bad vertex) */
    GOAL_ERR_NOMEM = -2,
    GOAL_ERR_STATE = -3,    /* not initialized, already initialized, finalized, or handle reused */
    GOAL_ERR_CYCLE = -4,    /* Compile: the dependencies form a cycle */
    GOAL_ERR_RANGE = -5,    /* Compile: a scratchpad access lies beyond the scratchpad */
    GOAL_ERR_TYPE = -6,     /* LocalOp: operation not defined for this type and width */
    GOAL_ERR_COMM = -7,     /* transport error during a run */
    GOAL_ERR_TRUNCATE = -8, /* a received message was longer than its receive */
    GOAL_ERR_TAG = -9,      /* tag outside 0..GOAL_TAG_UB */
};

/* Tags are 0..GOAL_TAG_UB: the run sequence number shares the transport tag (docs/GOAL.md). */
#define GOAL_TAG_UB 0xffff

typedef struct goal_graph *GOAL_Graph;
typedef struct goal_sched *GOAL_Schedule;
typedef struct goal_run *GOAL_Handle;
typedef int32_t GOAL_Vertex; /* index in its graph */
#define GOAL_INVALID_VERTEX ((GOAL_Vertex)-1)

typedef enum { GOAL_USERSPACE = 0, GOAL_SCRATCHPAD = 1 } GOAL_MemType;
typedef enum { GOAL_SINT = 0, GOAL_UINT = 1, GOAL_FLOAT = 2 } GOAL_DataType;
typedef enum {
    GOAL_MAX = 0, GOAL_MIN, GOAL_ADD, GOAL_SUB, GOAL_DIV, GOAL_MUL, GOAL_COPY,
    GOAL_AND, GOAL_OR, GOAL_XOR, GOAL_WTIME
} GOAL_Op;
typedef enum {
    GOAL_EXT_IREQUIRES = 1, /* GOAL_IRequires: start after the prerequisite started */
    GOAL_EXT_CALC = 2,      /* GOAL_Calc: a busy compute vertex (LogGOPSim "calc") */
    GOAL_EXT_GROUP = 3,     /* GOAL_InitGroup: GOAL over a subset of ranks (a communicator) */
    GOAL_EXT_CALLBACK = 4,  /* GOAL_Callback: a user function as a local operation */
} GOAL_ExtensionId;

/* Scratchpad addressing: pass GOAL_SCRATCH(offset) as the buffer with GOAL_SCRATCHPAD. */
#define GOAL_SCRATCH(off) ((void *)(uintptr_t)(off))

/* ---- start-up: one GOAL group per process; all calls below need it ---- */
/* Binds GOAL to all ranks of the job (MPI_COMM_WORLD); brings credo up if MPI has not. */
int GOAL_Init(void);
/* Binds GOAL to `size` ranks: job_ranks[i] is the job rank of group rank i (NULL = identity),
 * `rank` is this process' group rank, and `context` a transport context no one else uses (an MPI
 * communicator's collective context). The MPI binding GOAL_Init_comm is built on this. */
int GOAL_InitGroup(int size, int rank, const int *job_ranks, uint32_t context);
int GOAL_IsInitialized(void);
int GOAL_GroupSize(void);
int GOAL_MyRank(void);
/* Frees GOAL's state; all runs must have been waited for. */
int GOAL_Finalize(void);
/* 1 if finalized or never initialized. */
int GOAL_IsFinalized(void);

/* ---- graphs (no group needed: graphs are plain data) ---- */
GOAL_Graph GOAL_CreateGraph(void);
int GOAL_FreeGraph(GOAL_Graph graph);
/* The first error any builder call on this graph hit, or GOAL_SUCCESS. */
int GOAL_GraphStatus(GOAL_Graph graph);

/* count/lengths are bytes; dest/source are group ranks (may be the caller); 0 <= tag <= GOAL_TAG_UB.
 * Messages match on (source, tag) in order of posting; sizes must agree. */
GOAL_Vertex GOAL_Send(GOAL_Graph graph, const void *buf, int count, int dest, int tag,
                      GOAL_MemType mem);
GOAL_Vertex GOAL_Recv(GOAL_Graph graph, void *buf, int count, int source, int tag,
                      GOAL_MemType mem);
/* Block lists are copied at call time; blocks travel back to back. */
GOAL_Vertex GOAL_SendVec(GOAL_Graph graph, void *const *offsets, const int *lengths,
                         int num_elements, int dest, int tag, GOAL_MemType mem);
GOAL_Vertex GOAL_RecvVec(GOAL_Graph graph, void *const *offsets, const int *lengths,
                         int num_elements, int source, int tag, GOAL_MemType mem);
/* bres[i] = b1[i] op b2[i] (COPY: bres[i] = b1[i]; WTIME: one double of seconds into bres).
 * element_width is in bits. Legal: SINT/UINT 8..64 all ops; FLOAT 32/64 MAX MIN ADD SUB DIV MUL
 * COPY; UINT 1 (bit vectors) AND OR XOR COPY; COPY any; WTIME ignores type and width. */
GOAL_Vertex GOAL_LocalOp(GOAL_Graph graph, const void *b1, const void *b2, void *bres, GOAL_Op op,
                         GOAL_DataType dt, int element_width, int num_elements,
                         GOAL_MemType b1_mem, GOAL_MemType b2_mem, GOAL_MemType bres_mem);
/* The same over concatenated block lists (lengths in bytes); element counts must agree. */
GOAL_Vertex GOAL_LocalOpVec(GOAL_Graph graph, void *const *buf1, const int *lengths1, int n1,
                            void *const *buf2, const int *lengths2, int n2, void *const *buf3,
                            const int *lengths3, int n3, GOAL_DataType dt, int element_width,
                            GOAL_Op op, GOAL_MemType b1_mem, GOAL_MemType b2_mem,
                            GOAL_MemType b3_mem);
/* target starts after prereq finished. */
int GOAL_Requires(GOAL_Graph graph, GOAL_Vertex prereq, GOAL_Vertex target);
/* Extension GOAL_EXT_IREQUIRES: target starts after prereq started. */
int GOAL_IRequires(GOAL_Graph graph, GOAL_Vertex prereq, GOAL_Vertex target);
/* Extension GOAL_EXT_CALC: a vertex that computes (spins) for `nanoseconds`. */
GOAL_Vertex GOAL_Calc(GOAL_Graph graph, uint64_t nanoseconds);
/* Extension GOAL_EXT_CALLBACK: fn(in, inout, count, arg) as a local operation; `in` and `inout`
 * follow the usual addressing. Used by the collectives for MPI reductions. */
typedef void (*GOAL_CallbackFn)(const void *in, void *inout, size_t count, void *arg);
GOAL_Vertex GOAL_Callback(GOAL_Graph graph, GOAL_CallbackFn fn, void *arg, const void *in,
                          GOAL_MemType in_mem, void *inout, GOAL_MemType inout_mem,
                          size_t count);
/* Runs need `bytes` of zero-filled scratch space each; repeated calls keep the maximum. */
int GOAL_AllocateScratchpad(GOAL_Graph graph, size_t bytes);

/* ---- schedules ---- */
/* NULL on error (cycle, scratchpad range, earlier builder error): see GOAL_GraphStatus. */
GOAL_Schedule GOAL_Compile(GOAL_Graph graph);
/* Schedules are never consumed by a run: always valid until freed. */
int GOAL_IsScheduleValid(GOAL_Schedule sched);
void GOAL_MakeScheduleReusable(GOAL_Schedule sched);
/* GOAL_ERR_STATE while runs of it are unfinished (the schedule is kept). */
int GOAL_FreeSchedule(GOAL_Schedule sched);

/* Starts one run; every rank of the group must start its runs in the same order (the run number
 * is part of the match key, so several runs, of one schedule or of several, may overlap). */
GOAL_Handle GOAL_Run(GOAL_Schedule sched);
/* 1 = finished (handle released), 0 = not yet, < 0 = the run failed (handle released). */
int GOAL_Test(GOAL_Handle handle);
/* Waits for the run, releases the handle; GOAL_SUCCESS or the run's error. */
int GOAL_Wait(GOAL_Handle handle);

int GOAL_IsExtensionAvailable(GOAL_ExtensionId ext);
const char *GOAL_ErrorString(int code);

#ifdef __cplusplus
}
#endif
#endif
