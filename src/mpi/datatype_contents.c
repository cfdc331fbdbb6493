/* src/mpi/datatype_contents.c — the record of each derived type's constructor arguments, and the
 * introspection built on it: MPI_Type_get_envelope and MPI_Type_get_contents. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/dt_build.h"
#include "mpi/mpi_impl.h"

/* Every constructor records its arguments verbatim when it builds a type (the flattened blocks
 * cannot give them back), and the record holds a reference on each component type: get_contents
 * can hand those out even after the user freed them. */

dt_contents *dt_contents_new(int combiner, int64_t ni, int64_t na, int64_t nd)
{
    if (ni < 0 || na < 0 || nd < 0 || ni > INT_MAX || na > INT_MAX || nd > INT_MAX)
        return NULL;
    dt_contents *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    c->combiner = combiner;
    c->ni = (int)ni;
    c->na = (int)na;
    c->nd = (int)nd;
    if ((ni > 0 && (c->ints = malloc((size_t)ni * sizeof *c->ints)) == NULL) ||
        (na > 0 && (c->aints = malloc((size_t)na * sizeof *c->aints)) == NULL) ||
        (nd > 0 && (c->types = calloc((size_t)nd, sizeof *c->types)) == NULL)) {
        c->nd = 0;
        dt_contents_free(c);
        return NULL;
    }
    return c;
}

void dt_contents_free(dt_contents *c)
{
    if (c == NULL)
        return;
    for (int i = 0; i < c->nd; i++)
        if (c->types[i] != NULL)
            dt_release(c->types[i]);
    free(c->ints);
    free(c->aints);
    free(c->larges);
    free(c->types);
    free(c);
}

int MPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                          int *num_datatypes, int *combiner)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Type_get_envelope";
    if (!dt_live(datatype))
        return mpi_error(NULL, MPI_ERR_TYPE, fn, "invalid datatype");
    if (num_integers == NULL || num_addresses == NULL || num_datatypes == NULL || combiner == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "NULL output argument");
    const dt_contents *c = datatype->contents;
    if (c == NULL) {
        /* Predefined types (also the pair types such as MPI_DOUBLE_INT) are named. */
        *num_integers = *num_addresses = *num_datatypes = 0;
        *combiner = MPI_COMBINER_NAMED;
        return MPI_SUCCESS;
    }
    if (c->nl > 0)
        return mpi_error(NULL, MPI_ERR_TYPE, fn, "the datatype was built with counts beyond int: "
                         "use MPI_Type_get_envelope_c");
    *num_integers = c->ni;
    *num_addresses = c->na;
    *num_datatypes = c->nd;
    *combiner = c->combiner;
    return MPI_SUCCESS;
}

int dt_get_contents(const char *fn, MPI_Datatype datatype, int large, MPI_Count max_integers,
                    MPI_Count max_addresses, MPI_Count max_large, MPI_Count max_datatypes,
                    int array_of_integers[], MPI_Aint array_of_addresses[],
                    MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[])
{
    if (!dt_live(datatype))
        return mpi_error(NULL, MPI_ERR_TYPE, fn, "invalid datatype");
    const dt_contents *c = datatype->contents;
    if (c == NULL)
        return mpi_error(NULL, MPI_ERR_TYPE, fn, "%s is a named type: it has no contents",
                         datatype->name ? datatype->name : "the datatype");
    if (!large && c->nl > 0)
        return mpi_error(NULL, MPI_ERR_TYPE, fn, "the datatype was built with counts beyond int: "
                         "use MPI_Type_get_contents_c");
    if (max_integers < c->ni || max_addresses < c->na || max_datatypes < c->nd ||
        (large && max_large < c->nl))
        return mpi_error(NULL, MPI_ERR_ARG, fn,
                         "arrays too small: %lld/%lld/%lld/%lld entries for %d integers, "
                         "%d addresses, %d large counts, %d datatypes", (long long)max_integers,
                         (long long)max_addresses, (long long)max_large,
                         (long long)max_datatypes, c->ni, c->na, c->nl, c->nd);
    if ((c->ni > 0 && array_of_integers == NULL) || (c->na > 0 && array_of_addresses == NULL) ||
        (c->nl > 0 && array_of_large_counts == NULL) || (c->nd > 0 && array_of_datatypes == NULL))
        return mpi_error(NULL, MPI_ERR_ARG, fn, "NULL output array");
    if (c->ni > 0)
        memcpy(array_of_integers, c->ints, (size_t)c->ni * sizeof *c->ints);
    if (c->na > 0)
        memcpy(array_of_addresses, c->aints, (size_t)c->na * sizeof *c->aints);
    if (c->nl > 0)
        memcpy(array_of_large_counts, c->larges, (size_t)c->nl * sizeof *c->larges);
    /* A derived type comes back as a new reference the caller frees with MPI_Type_free (handles
     * are the objects, so the "new" handle is the same object with its count raised, and attr.c
     * counts it so that freeing it leaves the attributes to the other handles); a predefined
     * type comes back as itself. */
    for (int i = 0; i < c->nd; i++) {
        if (dt_attr_handle_add(c->types[i]) != MPI_SUCCESS) {
            while (i-- > 0)
                dt_attr_free(c->types[i]); /* only drops the count just added: no callbacks */
            return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
        }
    }
    for (int i = 0; i < c->nd; i++) {
        dt_retain(c->types[i]);
        array_of_datatypes[i] = c->types[i];
    }
    return MPI_SUCCESS;
}

int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                          int max_datatypes, int array_of_integers[],
                          MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
{
    MPI_ENTER();
    return dt_get_contents("MPI_Type_get_contents", datatype, 0, max_integers, max_addresses, 0,
                           max_datatypes, array_of_integers, array_of_addresses, NULL,
                           array_of_datatypes);
}

CREDO_PMPI(MPI_Type_get_envelope)
CREDO_PMPI(MPI_Type_get_contents)
