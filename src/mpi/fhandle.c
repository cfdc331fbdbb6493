/* src/mpi/fhandle.c — MPI_*_c2f / MPI_*_f2c: the integer form of every handle kind (one table of
 * converted handles), and MPI_Status_c2f / MPI_Status_f2c. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/fpredef.h"
#include "mpi/mpi_impl.h"

/* credo's C handles are pointers. An integer handle is an index + 1 into one table of the
 * pointers c2f was asked for, tagged with their kind, so f2c is an array load; a hash from
 * (pointer, kind) to index makes c2f of a handle converted before return the same integer.
 * Entries stay when an object is freed: an integer handle of a freed object is erroneous to use,
 * as in C, and a new object at the same address gets the old integer back, so the table grows with
 * the number of distinct objects, not of calls. Requests are not in it: a C request handle is a
 * slot of the request table and a generation (mpi_impl.h), which change with every request, so
 * their integers are computed from the handle instead (below).
 * The predefined objects come first, in fpredef.h's order, so their integers are the constants of
 * mpif.h whichever handle a program converts first. */
enum fh_kind { FH_Comm = 1, FH_Type, FH_Group, FH_Request, FH_Op, FH_Info, FH_Errhandler, FH_Message,
               FH_Win, FH_File, FH_Session };

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

static int fh_append(const void *ptr, int kind)
{
    if (fh.n >= (uint32_t)INT32_MAX - 1 || fh_grow() != 0)
        return -1;
    fh.v[fh.n] = (struct fh_entry){ptr, kind};
    uint32_t s = fh_slot(ptr, kind);
    while (fh.hash[s])
        s = (s + 1) & (fh.hcap - 1);
    fh.hash[s] = ++fh.n;
    return 0;
}

/* Called under the lock before the first conversion. An alias (MPI_LONG_LONG_INT) is the same
 * object, so it is not listed and gets its original's integer. */
static int fh_seed_predefined(void)
{
#define FH_SEED(Kind, NAME)                                                                        \
    if (fh_append((const void *)NAME, FH_##Kind) != 0)                                             \
        return -1;
    CREDO_F_PREDEF(FH_SEED)
#undef FH_SEED
    return 0;
}

static MPI_Fint fh_c2f(const void *ptr, int kind, const char *fn)
{
    if (ptr == NULL)
        return 0;
    MPI_ENTER();
    if (fh.n == 0 && fh_seed_predefined() != 0)
        goto nomem;
    if (fh.hcap) {
        for (uint32_t s = fh_slot(ptr, kind); fh.hash[s]; s = (s + 1) & (fh.hcap - 1)) {
            const struct fh_entry *e = &fh.v[fh.hash[s] - 1];
            if (e->ptr == ptr && e->kind == kind)
                return (MPI_Fint)fh.hash[s];
        }
    }
    if (fh_append(ptr, kind) == 0)
        return (MPI_Fint)fh.n;
nomem:
    /* the functions return no error code: report it, then hand out the null handle */
    mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory for the integer handle table (%u entries)", fh.n);
    return 0;
}

static void *fh_f2c(MPI_Fint f, int kind)
{
    MPI_ENTER();
    if (fh.n == 0 && fh_seed_predefined() != 0)
        return NULL;
    if (f <= 0 || (uint32_t)f > fh.n || fh.v[f - 1].kind != kind)
        return NULL;
    return (void *)(uintptr_t)fh.v[f - 1].ptr;
}

#define FH_PAIR(Name, CType)                                                                       \
    MPI_Fint MPI_##Name##_c2f(CType h) { return fh_c2f((const void *)h, FH_##Name, "MPI_" #Name "_c2f"); } \
    CType MPI_##Name##_f2c(MPI_Fint f) { return (CType)fh_f2c(f, FH_##Name); }                     \
    CREDO_PMPI(MPI_##Name##_c2f)                                                                   \
    CREDO_PMPI(MPI_##Name##_f2c)

FH_PAIR(Comm, MPI_Comm)
FH_PAIR(Type, MPI_Datatype)
FH_PAIR(Group, MPI_Group)

/* A request's integer is its slot + 1 with the low FREQ_GEN_BITS of its generation above it, so
 * both ways are arithmetic. An integer of a slot that exists but no longer holds that request (a
 * stale copy) converts to a handle that names nothing, which the C call refuses with
 * MPI_ERR_REQUEST (unless the slot was reused exactly a multiple of 2^FREQ_GEN_BITS times since);
 * an integer no c2f could have returned (no such slot, negative) converts to MPI_REQUEST_NULL as
 * for the other kinds. The integer of a C handle that names no request is -1. */
#define FREQ_SLOT_BITS 24
#define FREQ_GEN_BITS 7
#define FREQ_SLOT_MASK ((1u << FREQ_SLOT_BITS) - 1)
#define FREQ_GEN_LOW ((1u << FREQ_GEN_BITS) - 1)

MPI_Fint MPI_Request_c2f(MPI_Request request)
{
    if (request == MPI_REQUEST_NULL)
        return 0;
    MPI_ENTER();
    uint64_t v = (uint64_t)(uintptr_t)request;
    uint32_t slot = (uint32_t)v, gen = (uint32_t)(v >> 32) & RH_GEN_MASK;
    if ((v & RH_TAG_MASK) != RH_TAG || (v & RH_RETIRED) != 0)
        return -1;
    if (slot >= FREQ_SLOT_MASK) {
        mpi_error(NULL, MPI_ERR_INTERN, "MPI_Request_c2f",
                  "request slot %u has no integer handle (at most %u requests at once)", slot,
                  FREQ_SLOT_MASK - 1);
        return -1;
    }
    return (MPI_Fint)((gen & FREQ_GEN_LOW) << FREQ_SLOT_BITS | (slot + 1));
}

MPI_Request MPI_Request_f2c(MPI_Fint request)
{
    if (request == 0)
        return MPI_REQUEST_NULL;
    MPI_ENTER();
    uint32_t slot = ((uint32_t)request & FREQ_SLOT_MASK) - 1, gen = (uint32_t)request >> FREQ_SLOT_BITS;
    if (request < 0 || slot >= credo_rtab.cap)
        return MPI_REQUEST_NULL;
    uint64_t h = credo_rtab.v[slot].h & ~RH_RETIRED;
    if (h != 0 && ((h >> 32) & FREQ_GEN_LOW) == gen)
        return (MPI_Request)(uintptr_t)h;
    /* the slot is free or holds a later request: generation `gen` is not its live one */
    return (MPI_Request)(uintptr_t)(RH_TAG | (uint64_t)gen << 32 | slot);
}
CREDO_PMPI(MPI_Request_c2f)
CREDO_PMPI(MPI_Request_f2c)
FH_PAIR(Op, MPI_Op)
FH_PAIR(Info, MPI_Info)
FH_PAIR(Errhandler, MPI_Errhandler)
FH_PAIR(Message, MPI_Message)
FH_PAIR(Win, MPI_Win)
FH_PAIR(File, MPI_File)
FH_PAIR(Session, MPI_Session)

/* Fortran's MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE: arrays in common blocks of mpif.h
 * (COMMON /CREDO_STATUS_IGNORE/, /CREDO_STATUSES_IGNORE/; gfortran names a block in lower case
 * with an underscore). This is their storage, so a Fortran program's constant and C's
 * MPI_F_STATUS_IGNORE are the same address. */
MPI_Fint credo_status_ignore_[MPI_F_STATUS_SIZE], credo_statuses_ignore_[MPI_F_STATUS_SIZE];
MPI_Fint *credo_f_status_ignore = credo_status_ignore_, *credo_f_statuses_ignore = credo_statuses_ignore_;

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
