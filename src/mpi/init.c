/* src/mpi/init.c — MPI start-up and shut-down: Init/Init_thread/Finalize and their queries,
 * MPI_Abort, and the thread level this process runs at. */
#include <pthread.h>
#include <stdio.h>

#include "core/core.h"
#include "mpi/mpi_impl.h"

credo_mpi_state credo_mpi;
static pthread_t main_thread;

/* Starts the runtime for the world model or the first session; a no-op while it runs. Bootstrap and
 * mailboxes cannot be set up twice in one process, so a start after the shut-down is refused. */
int mpi_runtime_up(const char *fn, int required)
{
    if (credo_mpi.state == MPI_STATE_READY)
        return MPI_SUCCESS;
    if (credo_mpi.state == MPI_STATE_DONE) {
        fprintf(stderr, "credo: %s: MPI was finalized in this process and credo cannot start it again\n",
                fn);
        return MPI_ERR_OTHER;
    }
    if (credo_init() != 0)
        credo_abort(MPI_ERR_OTHER, "%s: runtime start-up failed (see the message above)", fn);
    if (mpi_comm_init_predefined() != 0)
        credo_abort(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    credo_mpi.thread_level = required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE : required;
    if (credo_mpi.thread_level < MPI_THREAD_SINGLE)
        credo_mpi.thread_level = MPI_THREAD_SINGLE;
    mpi_thread_level_raise(credo_mpi.thread_level);
    main_thread = pthread_self();
    if (credo_progress_thread_start() != 0)
        credo_abort(MPI_ERR_OTHER, "%s: cannot start the progress thread", fn);
    credo_mpi.state = MPI_STATE_READY;
    return MPI_SUCCESS;
}

/* MPI_THREAD_MULTIPLE: every entry point takes the big lock from now on, and waits let other
 * threads in (core/biglock.c). Called with no other thread inside the library (start-up, or a
 * session opened by the only thread that calls MPI so far); the lock stays on until shut-down. */
void mpi_thread_level_raise(int level)
{
    if (level >= MPI_THREAD_MULTIPLE && !(credo_lock_on & CREDO_LOCK_FOR_THREADS))
        credo_lock_set(CREDO_LOCK_FOR_THREADS, 1);
}

/* Shuts the runtime down once neither the world model nor a session needs it. Every process gets
 * here exactly once, from MPI_Finalize or from its last MPI_Session_finalize, so the barrier over
 * the job matches whichever call each process ends with; after it no peer writes to our mailbox. */
int mpi_runtime_down(const char *fn)
{
    /* Buffered sends must leave before the barrier. */
    mpi_bsend_drain();
    int rc = mpi_coll_barrier(MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS)
        return mpi_error(MPI_COMM_WORLD, rc, fn, "closing barrier failed");
    credo_mpi.state = MPI_STATE_DONE;
    credo_progress_thread_stop();
    /* the calling thread's guard still unlocks on its way out: it took the lock on entry */
    credo_lock_set(CREDO_LOCK_FOR_THREADS, 0);
    mpi_comm_finalize();
    mpi_dt_finalize();
    mpi_attr_finalize();
    if (credo_finalize() != 0)
        return MPI_ERR_OTHER;
    return MPI_SUCCESS;
}

static int init_common(const char *fn, int required)
{
    if (credo_mpi.world != MPI_WORLD_NONE) {
        fprintf(stderr, "credo: %s: MPI was already %s\n", fn,
                credo_mpi.world == MPI_WORLD_ACTIVE ? "initialized" : "finalized");
        return MPI_ERR_OTHER;
    }
    int rc = mpi_runtime_up(fn, required);
    if (rc != MPI_SUCCESS)
        return rc;
    credo_mpi.world = MPI_WORLD_ACTIVE;
    return MPI_SUCCESS;
}

int MPI_Init(int *argc, char ***argv)
{
    return init_common("MPI_Init", MPI_THREAD_SINGLE);
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    if (provided == NULL) {
        fprintf(stderr, "credo: MPI_Init_thread: provided is NULL\n");
        return MPI_ERR_ARG;
    }
    int rc = init_common("MPI_Init_thread", required);
    if (rc == MPI_SUCCESS)
        *provided = credo_mpi.thread_level;
    return rc;
}

int MPI_Initialized(int *flag)
{
    if (flag == NULL)
        return MPI_ERR_ARG;
    *flag = credo_mpi.world != MPI_WORLD_NONE;
    return MPI_SUCCESS;
}

int MPI_Finalized(int *flag)
{
    if (flag == NULL)
        return MPI_ERR_ARG;
    *flag = credo_mpi.world == MPI_WORLD_DONE;
    return MPI_SUCCESS;
}

int MPI_Query_thread(int *provided)
{
    if (!MPI_READY())
        return mpi_not_ready("MPI_Query_thread");
    if (provided == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, "MPI_Query_thread", "provided is NULL");
    *provided = credo_mpi.thread_level;
    return MPI_SUCCESS;
}

int MPI_Is_thread_main(int *flag)
{
    if (!MPI_READY())
        return mpi_not_ready("MPI_Is_thread_main");
    if (flag == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, "MPI_Is_thread_main", "flag is NULL");
    *flag = pthread_equal(main_thread, pthread_self()) != 0;
    return MPI_SUCCESS;
}

int MPI_Finalize(void)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Finalize";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (credo_mpi.world != MPI_WORLD_ACTIVE) /* only sessions keep MPI up */
        return mpi_error(NULL, MPI_ERR_OTHER, fn, "%s", credo_mpi.world == MPI_WORLD_DONE
                                                            ? "MPI_Finalize was already called"
                                                            : "MPI_Init was not called");
    /* Attribute delete callbacks first, MPI still usable: libraries use COMM_SELF's as their
     * finalize hook (attr.c). A failing callback is reported but does not stop the shutdown. */
    int arc = mpi_attr_finalize_comms();
    if (arc != MPI_SUCCESS)
        mpi_error(MPI_COMM_WORLD, arc, fn, "attribute delete callback failed (%d)", arc);
    credo_mpi.world = MPI_WORLD_DONE;
    /* Open sessions keep the runtime (MPI 4.0 sessions outlive the world model). */
    return credo_mpi.sessions > 0 ? MPI_SUCCESS : mpi_runtime_down(fn);
}

int MPI_Abort(MPI_Comm comm, int errorcode)
{
    fflush(stdout);
    credo_abort(errorcode, "MPI_Abort(%s, %d) called",
                comm_ok(comm) && comm->name[0] ? comm->name : "comm", errorcode);
}

CREDO_PMPI(MPI_Init)
CREDO_PMPI(MPI_Init_thread)
CREDO_PMPI(MPI_Initialized)
CREDO_PMPI(MPI_Finalized)
CREDO_PMPI(MPI_Query_thread)
CREDO_PMPI(MPI_Is_thread_main)
CREDO_PMPI(MPI_Finalize)
CREDO_PMPI(MPI_Abort)
