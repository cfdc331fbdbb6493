/* src/mpi/dt_build.h — what the datatype files share: the builder that flattens a new type into
 * byte blocks, the record of constructor arguments behind MPI_Type_get_contents, and the hooks of
 * attribute caching (attr.c) into a type's life. */
#ifndef CREDO_MPI_DT_BUILD_H
#define CREDO_MPI_DT_BUILD_H

#include <stdint.h>

#include "mpi/mpi_impl.h"

/* A flattened type may hold at most this many blocks (16 bytes each: 1 GiB). The builder counts
 * the blocks appends ask for before merging, so this also bounds a constructor's work: a type
 * needing more is rejected with MPI_ERR_COUNT instead of exhausting memory or time. */
#define DT_MAX_BLOCKS ((int64_t)1 << 26)

enum { BF_NOMEM = 1, BF_OVERFLOW = 2, BF_BLOCKS = 3 };

typedef struct dt_builder {
    dt_block *blocks;
    int n, cap;
    int any;                     /* at least one element appended */
    int touched;                 /* at least one byte block appended */
    MPI_Aint lb, ub;             /* from the appended non-sticky elements' lb/extent */
    int sticky;                  /* a sticky (explicit) lb/ub pair was appended or set */
    MPI_Aint slb, sub;           /* min of the sticky lbs, max of the sticky ubs */
    MPI_Aint tlb, tub;           /* of the bytes actually touched */
    size_t size, elems, align;
    int basic;                   /* common basic type, B_NONE if mixed, -1 before the first */
    size_t elem_size;            /* common basic element size, 0 if mixed */
    int64_t planned;             /* blocks asked for so far (bounded by DT_MAX_BLOCKS) */
    int failed;                  /* BF_* */
} dt_builder;

void dt_builder_init(dt_builder *b);
/* Blocks dt_builder_add(b, old, disp, reps) asks for (INT64_MAX on overflow). */
int64_t dt_add_cost(MPI_Datatype old, int64_t reps);
/* Fails the builder with BF_BLOCKS when a constructor's estimate exceeds DT_MAX_BLOCKS: the
 * constructors check up front so that a too large type costs neither memory nor time. */
void dt_builder_plan(dt_builder *b, int64_t blocks);
/* Appends `reps` copies of `old` starting at disp, each old->extent apart. */
void dt_builder_add(dt_builder *b, MPI_Datatype old, MPI_Aint disp, int64_t reps);
/* MPI_Type_create_struct's end: like a C struct, the extent is padded to the strictest member
 * alignment (the standard's epsilon), unless a member carries an explicit upper bound. */
void dt_builder_pad_struct(dt_builder *b);
/* Sets explicit (sticky) bounds, as MPI_Type_create_resized does: they replace the computed ones. */
void dt_builder_set_bounds(dt_builder *b, MPI_Aint lb, MPI_Aint ub);

/* The arguments a type was built from (MPI_Type_get_envelope / MPI_Type_get_contents). The types
 * are retained while the record lives. */
typedef struct dt_contents {
    int combiner;
    int ni, na, nd;
    int *ints;
    MPI_Aint *aints;
    MPI_Datatype *types;
    /* MPI 4.0 large counts: only a _c constructor given a value beyond int records them (nl > 0,
     * largecount.c); the int-count introspection calls then refuse the type. */
    int nl;
    MPI_Count *larges;
} dt_contents;

/* A record with room for ni ints, na addresses and nd types; NULL when out of memory or when a
 * count is negative (too large for an int). */
dt_contents *dt_contents_new(int combiner, int64_t ni, int64_t na, int64_t nd);
void dt_contents_free(dt_contents *c);
/* Both MPI_Type_get_contents forms: large is 0 for the int form, which refuses a record holding
 * large counts (larges and max_large are then unused). */
int dt_get_contents(const char *fn, MPI_Datatype datatype, int large, MPI_Count max_integers,
                    MPI_Count max_addresses, MPI_Count max_large, MPI_Count max_datatypes,
                    int array_of_integers[], MPI_Aint array_of_addresses[],
                    MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[]);

/* Turns the builder into *newtype with contents c attached (ownership passes, also on failure);
 * raises MPI_ERR_NO_MEM or MPI_ERR_COUNT through mpi_error on failure. */
int dt_new_type(const char *fn, dt_builder *b, dt_contents *c, MPI_Datatype *newtype);

/* a * b and a + b in MPI_Aint; 0 on overflow. */
static inline int dt_aint_mul(MPI_Aint a, int64_t b, MPI_Aint *out)
{
    return !__builtin_mul_overflow(a, b, out);
}
static inline int dt_aint_add(MPI_Aint a, MPI_Aint b, MPI_Aint *out)
{
    return !__builtin_add_overflow(a, b, out);
}

/* ---- attributes on datatypes (attr.c); returns are MPI classes, not reported ----
 * A type's attributes live in attr.c's side table, keyed by handle. They belong to the object, and
 * credo's handles are the objects: MPI_Type_get_contents hands out the same object again, so
 * attr.c counts the handles it added, and MPI_Type_free deletes the attributes (running their
 * callbacks) only when it frees the last live handle. */

/* A flag of credo_datatype.flags next to mpi_impl.h's DT_F_*: every handle to the object was
 * freed (it lives on for types built from it or pending requests). */
enum { DT_F_FREED = 32 };

/* MPI_Type_dup: runs old's copy callbacks for its duplicate dup. 0 or the first callback's error;
 * dup then keeps what was copied so far, for dt_attr_free to delete. */
int dt_attr_copy(MPI_Datatype old, MPI_Datatype dup);
/* MPI_Type_free of a handle to dt, before its release: 0 or the first delete callback's error. */
int dt_attr_free(MPI_Datatype dt);
/* MPI_Type_get_contents hands out one more handle to dt: 0 or MPI_ERR_NO_MEM. */
int dt_attr_handle_add(MPI_Datatype dt);
/* dt is destroyed: drops whatever attr.c still holds for it, without callbacks. */
void dt_attr_forget(MPI_Datatype dt);

/* Constructors accept committed or uncommitted (but live) old types: dt_live (mpi_impl.h). */

/* external32 (pack_external.c) for MPI-IO views. dt_ext32_size: the external32 bytes of one element
 * of dt (MPI_ERR_TYPE for a type map it cannot walk). dt_ext32_file: count elements of dt at user
 * to (to_ext) or from `bytes` of external32 at ext, for a dt whose every scalar has the same size
 * in both forms; MPI_SUCCESS, MPI_ERR_NO_MEM or MPI_ERR_TYPE. */
int dt_ext32_size(MPI_Datatype dt, MPI_Aint *size);
int dt_ext32_file(int to_ext, void *user, MPI_Datatype dt, size_t count, void *ext, size_t bytes);

#endif
