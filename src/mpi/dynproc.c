/* src/mpi/dynproc.c — process creation and management (MPI 4.0 chapter 11): MPI_Comm_disconnect,
 * and the calls a fixed set of ranks cannot honour, which fail with a clear error instead of a link error. */
#include <string.h>

#include "mpi/mpi_impl.h"

/* Why these exist at all: libraries and bindings (mpi4py, PETSc's optional paths) reference the
 * whole chapter, so without the symbols such programs do not link even when they never spawn.
 * credorun, Slurm and hydra start every rank at launch and credo has no way to add ranks or to
 * reach another job's mailboxes, so each call below raises its error through the usual handler
 * (MPI_ERRORS_ARE_FATAL by default: a message naming the rank and the call). */
static const char no_spawn[] = "credo runs the fixed set of ranks its launcher started and cannot start "
                               "processes at run time";
static const char no_ports[] = "credo connects only the ranks of one job (no ports, name service or "
                               "socket joins)";

static int spawn_args(const char *fn, int root, MPI_Comm comm, MPI_Comm *intercomm)
{
    COMM_CHECK(fn, comm);
    if (intercomm == NULL)
        return mpi_error(comm, MPI_ERR_ARG, fn, "intercomm is NULL");
    *intercomm = MPI_COMM_NULL;
    INTRA_CHECK(fn, comm);
    if (root < 0 || root >= comm->size)
        return mpi_error(comm, MPI_ERR_ROOT, fn, "root %d is not a rank of the communicator (size %d)", root,
                         comm->size);
    return MPI_SUCCESS;
}

/* The root learns one code per process it asked for (MPI 4.0 §11.8.2); the others know no count. */
static void spawn_codes(MPI_Comm comm, int root, int n, int *codes)
{
    if (codes != MPI_ERRCODES_IGNORE && comm->rank == root)
        for (int i = 0; i < n; i++)
            codes[i] = MPI_ERR_SPAWN;
}

int MPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm,
                   MPI_Comm *intercomm, int array_of_errcodes[])
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_spawn";
    (void)argv;
    (void)info;
    int rc = spawn_args(fn, root, comm, intercomm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (comm->rank == root && (command == NULL || maxprocs < 0))
        return mpi_error(comm, MPI_ERR_ARG, fn, "command is NULL or maxprocs (%d) is negative", maxprocs);
    spawn_codes(comm, root, maxprocs, array_of_errcodes);
    if (comm->rank == root)
        return mpi_error(comm, MPI_ERR_SPAWN, fn, "%s (asked for %d of '%s')", no_spawn, maxprocs, command);
    return mpi_error(comm, MPI_ERR_SPAWN, fn, "%s (root %d asked)", no_spawn, root);
}

int MPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                            const int array_of_maxprocs[], const MPI_Info array_of_info[], int root,
                            MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_spawn_multiple";
    (void)array_of_argv;
    (void)array_of_info;
    int rc = spawn_args(fn, root, comm, intercomm);
    if (rc != MPI_SUCCESS)
        return rc;
    int total = 0;
    if (comm->rank == root) {
        if (count <= 0 || array_of_commands == NULL || array_of_maxprocs == NULL)
            return mpi_error(comm, MPI_ERR_ARG, fn, "count (%d) is not positive or an array is NULL", count);
        for (int i = 0; i < count; i++) {
            if (array_of_commands[i] == NULL || array_of_maxprocs[i] < 0)
                return mpi_error(comm, MPI_ERR_ARG, fn, "command %d is NULL or its maxprocs is negative", i);
            total += array_of_maxprocs[i];
        }
    }
    spawn_codes(comm, root, total, array_of_errcodes);
    return mpi_error(comm, MPI_ERR_SPAWN, fn, "%s", no_spawn);
}

int MPI_Open_port(MPI_Info info, char *port_name)
{
    static const char fn[] = "MPI_Open_port";
    (void)info;
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (port_name == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "port_name is NULL");
    port_name[0] = '\0';
    return mpi_error(NULL, MPI_ERR_UNSUPPORTED_OPERATION, fn, "%s", no_ports);
}

int MPI_Close_port(const char *port_name)
{
    static const char fn[] = "MPI_Close_port";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    /* no port was ever opened (MPI_Open_port fails), so every name is one we did not give out */
    return mpi_error(NULL, MPI_ERR_PORT, fn, "'%s' is not an open port: %s", port_name ? port_name : "(null)",
                     no_ports);
}

static int connect_side(const char *fn, const char *port_name, int root, MPI_Comm comm, MPI_Comm *newcomm)
{
    COMM_CHECK(fn, comm);
    if (newcomm == NULL)
        return mpi_error(comm, MPI_ERR_ARG, fn, "newcomm is NULL");
    *newcomm = MPI_COMM_NULL;
    if (root < 0 || root >= comm->size)
        return mpi_error(comm, MPI_ERR_ROOT, fn, "root %d is not a rank of the communicator (size %d)", root,
                         comm->size);
    return mpi_error(comm, MPI_ERR_PORT, fn, "cannot use port '%s': %s",
                     comm->rank == root && port_name ? port_name : "", no_ports);
}

int MPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm)
{
    MPI_ENTER();
    (void)info;
    return connect_side("MPI_Comm_accept", port_name, root, comm, newcomm);
}

int MPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm)
{
    MPI_ENTER();
    (void)info;
    return connect_side("MPI_Comm_connect", port_name, root, comm, newcomm);
}

static int name_service(const char *fn, const char *service_name, const char *port_name, int lookup)
{
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (service_name == NULL || port_name == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "service_name or port_name is NULL");
    /* Lookup of a name nobody could publish: the standard's class for that is MPI_ERR_NAME. */
    return mpi_error(NULL, lookup ? MPI_ERR_NAME : MPI_ERR_UNSUPPORTED_OPERATION, fn, "service '%s': %s",
                     service_name, no_ports);
}

int MPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    (void)info;
    return name_service("MPI_Publish_name", service_name, port_name, 0);
}

int MPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    (void)info;
    return name_service("MPI_Unpublish_name", service_name, port_name, 0);
}

int MPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    (void)info;
    if (port_name != NULL)
        port_name[0] = '\0';
    return name_service("MPI_Lookup_name", service_name, port_name, 1);
}

int MPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    static const char fn[] = "MPI_Comm_join";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (intercomm == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "intercomm is NULL");
    *intercomm = MPI_COMM_NULL;
    return mpi_error(NULL, MPI_ERR_UNSUPPORTED_OPERATION, fn, "socket %d: %s", fd, no_ports);
}

/* MPI 4.0 §11.10.4: collective; returns once all pending communication on comm is complete, then
 * frees it. The standard allows the call only when all communication on comm is complete and
 * matched, so what can still be in flight is the transport's side of completed requests (a
 * rendezvous FIN, a buffered send): a barrier over the communicator orders the free after every
 * member's sends, and each rank's barrier messages travel behind its earlier packets in the
 * same rings. Works on intra- and intercommunicators alike. */
int MPI_Comm_disconnect(MPI_Comm *comm)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Comm_disconnect";
    if (!MPI_READY())
        return mpi_not_ready(fn);
    if (comm == NULL || !comm_ok(*comm))
        return mpi_error(NULL, MPI_ERR_COMM, fn, "invalid communicator");
    if ((*comm)->predefined)
        return mpi_error(*comm, MPI_ERR_COMM, fn, "cannot disconnect %s", (*comm)->name);
    int rc = PMPI_Barrier(*comm);
    if (rc != MPI_SUCCESS)
        return rc;
    return PMPI_Comm_free(comm);
}

CREDO_PMPI(MPI_Comm_spawn)
CREDO_PMPI(MPI_Comm_spawn_multiple)
CREDO_PMPI(MPI_Open_port)
CREDO_PMPI(MPI_Close_port)
CREDO_PMPI(MPI_Comm_accept)
CREDO_PMPI(MPI_Comm_connect)
CREDO_PMPI(MPI_Publish_name)
CREDO_PMPI(MPI_Unpublish_name)
CREDO_PMPI(MPI_Lookup_name)
CREDO_PMPI(MPI_Comm_join)
CREDO_PMPI(MPI_Comm_disconnect)
