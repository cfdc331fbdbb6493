/* src/mpi/fhandle.c — MPI_*_c2f / MPI_*_f2c: the integer form of every handle kind (one table of
 * converted handles), and MPI_Status_c2f / MPI_Status_f2c. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_impl.h"

/* credo's C handles are pointers. An integer handle is an index + 1 into one table of the
 * pointers c2f was asked for, tagged with their kind, so f2c is an array load; a hash from
 * (pointer, kind) to index makes c2f of a handle converted before return the same integer.
 * Entries stay when an object is freed: an integer handle of a freed object is erroneous to use,
 * as in C, and a new object at the same address gets the old integer back. Requests are recycled
 * by credo's pools, so the table grows with the number of distinct objects, not of calls. */
enum fh_kind { FH_COMM = 1, FH_TYPE, FH_GROUP, FH_REQUEST, FH_OP, FH_INFO, FH_ERRH, FH_MESSAGE, FH_WIN,
               FH_FILE, FH_SESSION };

struct fh_entry {
    const void *ptr;
    int kind;
};

static struct {
    struct fh_entry *v; /* index -> handle */
    uint32_t n, cap;
    uint32_t *hash;     /* open addressing: index + 1, 0 = empty */
    uint32_t hcap;      /* a power of two, at least twice n */
} fh;

static uint32_t fh_slot(const void *ptr, int kind)
{
    uint64_t x = (uint64_t)(uintptr_t)ptr ^ ((uint64_t)kind << 56);
    x *= 0x9e3779b97f4a7c15ull; /* Fibonacci hashing: the top bits mix every input bit */
    return (uint32_t)(x >> 32) & (fh.hcap - 1);
}

static int fh_grow(void)
{
    if (fh.n == fh.cap) {
        uint32_t cap = fh.cap ? fh.cap * 2 : 64;
        struct fh_entry *v = realloc(fh.v, cap * sizeof *v);
        if (!v)
            return -1;
        fh.v = v;
        fh.cap = cap;
    }
    if (2 * (fh.n + 1) > fh.hcap) {
        uint32_t hcap = fh.hcap ? fh.hcap * 2 : 128;
        uint32_t *h = calloc(hcap, sizeof *h);
        if (!h)
            return -1;
        free(fh.hash);
        fh.hash = h;
        fh.hcap = hcap;
        for (uint32_t i = 0; i < fh.n; i++) {
            uint32_t s = fh_slot(fh.v[i].ptr, fh.v[i].kind);
            while (fh.hash[s])
                s = (s + 1) & (hcap - 1);
            fh.hash[s] = i + 1;
        }
    }
    return 0;
}

static MPI_Fint fh_c2f(const void *ptr, int kind, const char *fn)
{
    if (ptr == NULL)
        return 0;
    MPI_ENTER();
    if (fh.hcap) {
        for (uint32_t s = fh_slot(ptr, kind); fh.hash[s]; s = (s + 1) & (fh.hcap - 1)) {
            const struct fh_entry *e = &fh.v[fh.hash[s] - 1];
            if (e->ptr == ptr && e->kind == kind)
                return (MPI_Fint)fh.hash[s];
        }
    }
    if (fh.n >= (uint32_t)INT32_MAX - 1 || fh_grow() != 0) {
        /* the functions return no error code: report it, then hand out the null handle */
        mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory for the integer handle table (%u entries)", fh.n);
        return 0;
    }
    fh.v[fh.n] = (struct fh_entry){ptr, kind};
    uint32_t s = fh_slot(ptr, kind);
    while (fh.hash[s])
        s = (s + 1) & (fh.hcap - 1);
    fh.hash[s] = ++fh.n;
    return (MPI_Fint)fh.n;
}

static void *fh_f2c(MPI_Fint f, int kind)
{
    MPI_ENTER();
    if (f <= 0 || (uint32_t)f > fh.n || fh.v[f - 1].kind != kind)
        return NULL;
    return (void *)(uintptr_t)fh.v[f - 1].ptr;
}

#define FH_PAIR(Name, CType, kind)                                                                 \
    MPI_Fint MPI_##Name##_c2f(CType h) { return fh_c2f((const void *)h, kind, "MPI_" #Name "_c2f"); } \
    CType MPI_##Name##_f2c(MPI_Fint f) { return (CType)fh_f2c(f, kind); }                          \
    CREDO_PMPI(MPI_##Name##_c2f)                                                                   \
    CREDO_PMPI(MPI_##Name##_f2c)

FH_PAIR(Comm, MPI_Comm, FH_COMM)
FH_PAIR(Type, MPI_Datatype, FH_TYPE)
FH_PAIR(Group, MPI_Group, FH_GROUP)
FH_PAIR(Request, MPI_Request, FH_REQUEST)
FH_PAIR(Op, MPI_Op, FH_OP)
FH_PAIR(Info, MPI_Info, FH_INFO)
FH_PAIR(Errhandler, MPI_Errhandler, FH_ERRH)
FH_PAIR(Message, MPI_Message, FH_MESSAGE)
FH_PAIR(Win, MPI_Win, FH_WIN)
FH_PAIR(File, MPI_File, FH_FILE)
FH_PAIR(Session, MPI_Session, FH_SESSION)

/* Two distinct addresses no caller owns, for comparisons with the Fortran "ignore" arguments. */
static MPI_Fint f_ignore[2];
MPI_Fint *credo_f_status_ignore = &f_ignore[0], *credo_f_statuses_ignore = &f_ignore[1];

/* A Fortran status is the C status' bytes as MPI_F_STATUS_SIZE integers: SOURCE, TAG and ERROR
 * first (MPI_F_SOURCE, MPI_F_TAG, MPI_F_ERROR), then credo's private fields, so a round trip
 * keeps the count and the cancelled flag. */
static int status_pair_bad(const MPI_Status *c_status, const MPI_Fint *f_status)
{
    return c_status == NULL || c_status == MPI_STATUS_IGNORE || c_status == MPI_STATUSES_IGNORE ||
           f_status == NULL || f_status == MPI_F_STATUS_IGNORE || f_status == MPI_F_STATUSES_IGNORE;
}

int MPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    if (status_pair_bad(c_status, f_status))
        return mpi_error(NULL, MPI_ERR_ARG, "MPI_Status_c2f", "a status is NULL or an IGNORE constant");
    memcpy(f_status, c_status, sizeof *c_status);
    return MPI_SUCCESS;
}

int MPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    if (status_pair_bad(c_status, f_status))
        return mpi_error(NULL, MPI_ERR_ARG, "MPI_Status_f2c", "a status is NULL or an IGNORE constant");
    memcpy(c_status, f_status, sizeof *c_status);
    return MPI_SUCCESS;
}

CREDO_PMPI(MPI_Status_c2f)
CREDO_PMPI(MPI_Status_f2c)
