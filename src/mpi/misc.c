/* src/mpi/misc.c — environment queries that need no communication: clocks, versions, processor
 * name, MPI_Comm_get_parent, MPI_Pcontrol, and MPI_Alloc_mem/MPI_Free_mem. */
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "credo_version.h"
#include "mpi/mpi_impl.h"

/* Creates (create != 0: O_EXCL, sized to len) or opens a POSIX shared-memory segment and maps len
 * bytes of it; NULL on failure, with a segment this call created unlinked again. Windows and files
 * share it. */
void *mpi_shm_map(const char *name, size_t len, int create)
{
    int fd = shm_open(name, O_RDWR | (create ? O_CREAT | O_EXCL : 0), 0600);
    if (fd < 0)
        return NULL;
    void *p = MAP_FAILED;
    if (!create || ftruncate(fd, (off_t)len) == 0)
        p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED && create)
        shm_unlink(name);
    return p == MAP_FAILED ? NULL : p;
}

double MPI_Wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double MPI_Wtick(void)
{
    struct timespec res;
    if (clock_getres(CLOCK_MONOTONIC, &res) != 0)
        return 1e-9;
    return (double)res.tv_sec + (double)res.tv_nsec * 1e-9;
}

int MPI_Get_processor_name(char *name, int *resultlen)
{
    if (name == NULL || resultlen == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, "MPI_Get_processor_name", "NULL argument");
    if (gethostname(name, MPI_MAX_PROCESSOR_NAME) != 0)
        snprintf(name, MPI_MAX_PROCESSOR_NAME, "localhost");
    name[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

/* credo starts no processes dynamically (no MPI_Comm_spawn), so no process has a parent. Libraries
 * call this to learn whether they were spawned. */
int MPI_Comm_get_parent(MPI_Comm *parent)
{
    if (parent == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, "MPI_Comm_get_parent", "parent is NULL");
    *parent = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

/* The profiling control hook: a profiling library defines MPI_Pcontrol and reads the level; the
 * library's own version does nothing, as the standard specifies. */
int MPI_Pcontrol(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}

int MPI_Get_version(int *version, int *subversion)
{
    if (version == NULL || subversion == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, "MPI_Get_version", "NULL argument");
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

int MPI_Get_library_version(char *version, int *resultlen)
{
    if (version == NULL || resultlen == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, "MPI_Get_library_version", "NULL argument");
    int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "credo %s (MPI %d.%d, %s)",
                     CREDO_VERSION_STRING, MPI_VERSION, MPI_SUBVERSION, CREDO_BUILD_OPTIONS);
    *resultlen = n < MPI_MAX_LIBRARY_VERSION_STRING ? n : MPI_MAX_LIBRARY_VERSION_STRING - 1;
    return MPI_SUCCESS;
}

int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    static const char fn[] = "MPI_Alloc_mem";
    if (size < 0 || baseptr == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "invalid size %ld or NULL baseptr", (long)size);
    /* Cache-line aligned, like the mailbox slots it will be copied to and from. */
    void *p = NULL;
    if (posix_memalign(&p, 64, size ? (size_t)size : 1) != 0)
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "cannot allocate %ld bytes", (long)size);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

int MPI_Free_mem(void *base)
{
    MPI_ENTER();
    /* The network transport's registration cache must not outlive the memory it names. */
    if (base)
        p2p_mem_released(base, malloc_usable_size(base));
    free(base);
    return MPI_SUCCESS;
}

CREDO_PMPI(MPI_Wtime)
CREDO_PMPI(MPI_Wtick)
CREDO_PMPI(MPI_Get_processor_name)
CREDO_PMPI(MPI_Comm_get_parent)
CREDO_PMPI(MPI_Pcontrol)
CREDO_PMPI(MPI_Get_version)
CREDO_PMPI(MPI_Get_library_version)
CREDO_PMPI(MPI_Alloc_mem)
CREDO_PMPI(MPI_Free_mem)
