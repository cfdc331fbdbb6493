/* src/mpi/handle.c — handle validation: the request table (an MPI_Request is a slot index with a
 * generation, not a pointer) and the registry of live objects of every other handle kind (their
 * handles are pointers, checked against the registry before anything reads through them). See
 * mpi_impl.h, "handle validation", and docs/MPI.md. */
#include <stdlib.h>

#include "core/core.h"
#include "mpi/mpi_impl.h"

/* ---- the registry: an open-addressing hash set of (address, kind) ---- */

/* Room for the predefined objects and a few hundred more before the first growth; never freed. */
#define HREG_INITIAL 1024u

static mpi_hreg_ent hreg_initial[HREG_INITIAL];
mpi_hreg credo_hreg = {hreg_initial, HREG_INITIAL - 1, 0, 0};
const void *credo_hreg_hit[HK_MSG + 1];

/* obj's registration changes: no kind's last hit may name it any more. */
static void hreg_forget_hit(const void *obj)
{
    for (int k = 0; k <= HK_MSG; k++)
        if (credo_hreg_hit[k] == obj)
            credo_hreg_hit[k] = NULL;
}

static void hreg_put(mpi_hreg_ent *tab, uintptr_t mask, uintptr_t key, uintptr_t kind)
{
    uintptr_t i = mpi_hreg_hash(key) & mask;
    while (tab[i].key != 0)
        i = (i + 1) & mask;
    tab[i].key = key;
    tab[i].kind = kind;
}

/* Makes room for one more entry: a table at most half full (tombstones count), twice the live
 * entries' room (the same size again when tombstones filled it: a program that creates and frees
 * objects in a loop). Every call that checks a handle holds the big lock, as registration does. */
static void hreg_reserve(void)
{
    uintptr_t cap = credo_hreg.mask + 1;
    if (2 * (credo_hreg.used + 1) <= cap)
        return;
    while (4 * (credo_hreg.live + 1) > cap)
        cap *= 2;
    mpi_hreg_ent *t = calloc(cap, sizeof *t);
    if (t == NULL)
        credo_abort(MPI_ERR_NO_MEM, "out of memory for the handle registry (%zu entries)",
                    (size_t)cap);
    const mpi_hreg_ent *old = credo_hreg.tab;
    for (uintptr_t i = 0; i <= credo_hreg.mask; i++)
        if (old[i].key > HREG_TOMB)
            hreg_put(t, cap - 1, old[i].key, old[i].kind);
    /* Table first, then the larger mask: a reader loads the mask first, so it never probes past
     * the end of the table it then loads. */
    __atomic_store_n(&credo_hreg.tab, t, __ATOMIC_RELEASE);
    __atomic_store_n(&credo_hreg.mask, cap - 1, __ATOMIC_RELEASE);
    credo_hreg.used = credo_hreg.live;
    if (old != hreg_initial)
        free((void *)old);
}

void mpi_handle_add(const void *obj, enum mpi_hkind kind)
{
    uintptr_t key = (uintptr_t)obj;
    if (key <= HREG_TOMB)
        return;
    hreg_forget_hit(obj);
    mpi_hreg_ent *tab = credo_hreg.tab;
    uintptr_t mask = credo_hreg.mask;
    for (uintptr_t i = mpi_hreg_hash(key) & mask; tab[i].key != 0; i = (i + 1) & mask)
        if (tab[i].key == key) { /* registered already (an object made again at its address) */
            tab[i].kind = kind;
            return;
        }
    hreg_reserve();
    hreg_put(credo_hreg.tab, credo_hreg.mask, key, kind);
    credo_hreg.used++;
    credo_hreg.live++;
}

void mpi_handle_del(const void *obj)
{
    uintptr_t key = (uintptr_t)obj;
    if (key <= HREG_TOMB)
        return;
    hreg_forget_hit(obj);
    mpi_hreg_ent *tab = credo_hreg.tab;
    uintptr_t mask = credo_hreg.mask;
    for (uintptr_t i = mpi_hreg_hash(key) & mask; tab[i].key != 0; i = (i + 1) & mask)
        if (tab[i].key == key) {
            tab[i].kind = 0;
            tab[i].key = HREG_TOMB;
            credo_hreg.live--;
            return;
        }
}

/* The predefined objects are registered when the library is loaded, so they are valid before
 * MPI_Init too (the info calls, MPI_Comm_c2f, ...). The list is mpi.h's constants. */
__attribute__((constructor)) static void hreg_predefined(void)
{
    static const struct {
        const void *obj;
        enum mpi_hkind kind;
    } predef[] = {
#define P_(k, h) {(const void *)(h), k},
        P_(HK_COMM, MPI_COMM_WORLD) P_(HK_COMM, MPI_COMM_SELF)
        P_(HK_GROUP, MPI_GROUP_EMPTY)
        P_(HK_MSG, MPI_MESSAGE_NO_PROC)
        P_(HK_INFO, MPI_INFO_ENV)
        P_(HK_ERRH, MPI_ERRORS_ARE_FATAL) P_(HK_ERRH, MPI_ERRORS_RETURN)
        P_(HK_ERRH, MPI_ERRORS_ABORT)
        P_(HK_OP, MPI_MAX) P_(HK_OP, MPI_MIN) P_(HK_OP, MPI_SUM) P_(HK_OP, MPI_PROD)
        P_(HK_OP, MPI_LAND) P_(HK_OP, MPI_BAND) P_(HK_OP, MPI_LOR) P_(HK_OP, MPI_BOR)
        P_(HK_OP, MPI_LXOR) P_(HK_OP, MPI_BXOR) P_(HK_OP, MPI_MAXLOC) P_(HK_OP, MPI_MINLOC)
        P_(HK_OP, MPI_REPLACE) P_(HK_OP, MPI_NO_OP)
        P_(HK_TYPE, MPI_CHAR) P_(HK_TYPE, MPI_SIGNED_CHAR) P_(HK_TYPE, MPI_UNSIGNED_CHAR)
        P_(HK_TYPE, MPI_BYTE) P_(HK_TYPE, MPI_SHORT) P_(HK_TYPE, MPI_UNSIGNED_SHORT)
        P_(HK_TYPE, MPI_INT) P_(HK_TYPE, MPI_UNSIGNED) P_(HK_TYPE, MPI_LONG)
        P_(HK_TYPE, MPI_UNSIGNED_LONG) P_(HK_TYPE, MPI_LONG_LONG_INT)
        P_(HK_TYPE, MPI_UNSIGNED_LONG_LONG) P_(HK_TYPE, MPI_FLOAT) P_(HK_TYPE, MPI_DOUBLE)
        P_(HK_TYPE, MPI_LONG_DOUBLE) P_(HK_TYPE, MPI_WCHAR) P_(HK_TYPE, MPI_C_BOOL)
        P_(HK_TYPE, MPI_INT8_T) P_(HK_TYPE, MPI_INT16_T) P_(HK_TYPE, MPI_INT32_T)
        P_(HK_TYPE, MPI_INT64_T) P_(HK_TYPE, MPI_UINT8_T) P_(HK_TYPE, MPI_UINT16_T)
        P_(HK_TYPE, MPI_UINT32_T) P_(HK_TYPE, MPI_UINT64_T) P_(HK_TYPE, MPI_C_COMPLEX)
        P_(HK_TYPE, MPI_C_DOUBLE_COMPLEX) P_(HK_TYPE, MPI_C_LONG_DOUBLE_COMPLEX)
        P_(HK_TYPE, MPI_AINT) P_(HK_TYPE, MPI_OFFSET) P_(HK_TYPE, MPI_COUNT)
        P_(HK_TYPE, MPI_PACKED) P_(HK_TYPE, MPI_CXX_BOOL) P_(HK_TYPE, MPI_CXX_FLOAT_COMPLEX)
        P_(HK_TYPE, MPI_CXX_DOUBLE_COMPLEX) P_(HK_TYPE, MPI_CXX_LONG_DOUBLE_COMPLEX)
        P_(HK_TYPE, MPI_INTEGER) P_(HK_TYPE, MPI_LOGICAL) P_(HK_TYPE, MPI_CHARACTER)
        P_(HK_TYPE, MPI_REAL) P_(HK_TYPE, MPI_DOUBLE_PRECISION) P_(HK_TYPE, MPI_COMPLEX)
        P_(HK_TYPE, MPI_DOUBLE_COMPLEX) P_(HK_TYPE, MPI_INTEGER1) P_(HK_TYPE, MPI_INTEGER2)
        P_(HK_TYPE, MPI_INTEGER4) P_(HK_TYPE, MPI_INTEGER8) P_(HK_TYPE, MPI_INTEGER16)
        P_(HK_TYPE, MPI_REAL4) P_(HK_TYPE, MPI_REAL8) P_(HK_TYPE, MPI_COMPLEX8)
        P_(HK_TYPE, MPI_COMPLEX16)
        P_(HK_TYPE, MPI_FLOAT_INT) P_(HK_TYPE, MPI_DOUBLE_INT) P_(HK_TYPE, MPI_LONG_INT)
        P_(HK_TYPE, MPI_2INT) P_(HK_TYPE, MPI_SHORT_INT) P_(HK_TYPE, MPI_LONG_DOUBLE_INT)
        P_(HK_TYPE, MPI_2REAL) P_(HK_TYPE, MPI_2DOUBLE_PRECISION) P_(HK_TYPE, MPI_2INTEGER)
#undef P_
    };
    for (size_t i = 0; i < sizeof predef / sizeof predef[0]; i++)
        mpi_handle_add(predef[i].obj, predef[i].kind);
}

/* ---- the request table ---- */

mpi_rtab credo_rtab = {NULL, 0, RH_NO_SLOT};

uint32_t mpi_rtab_grow(void)
{
    uint32_t cap = credo_rtab.cap ? credo_rtab.cap * 2 : 256;
    if (cap > RH_MAX_SLOTS || cap < credo_rtab.cap)
        credo_abort(MPI_ERR_NO_MEM, "more than %u requests at once", (unsigned)RH_MAX_SLOTS);
    mpi_rslot *v = realloc(credo_rtab.v, (size_t)cap * sizeof *v);
    if (v == NULL)
        credo_abort(MPI_ERR_NO_MEM, "out of memory for the request table (%u requests)", cap);
    /* the new slots go on the free list in index order, after the (empty) current one */
    for (uint32_t i = credo_rtab.cap; i < cap; i++)
        v[i] = (mpi_rslot){0, NULL, 0, i + 1 < cap ? i + 1 : RH_NO_SLOT};
    uint32_t first = credo_rtab.cap;
    credo_rtab.v = v;
    credo_rtab.cap = cap;
    credo_rtab.free = first;
    return first;
}

const char *mpi_req_handle_why(MPI_Request h)
{
    uint64_t v = (uint64_t)(uintptr_t)h;
    if ((v & RH_TAG_MASK) != RH_TAG)
        return "not a request handle (garbage, or a handle of another kind)";
    uint32_t i = (uint32_t)v;
    if (i >= credo_rtab.cap)
        return "not a request handle (no such request)";
    return "a request that was completed or freed already";
}
