/* src/mpi/group.c — the group constructors beyond incl/excl: set operations (union, intersection,
 * difference) and the strided range forms (range_incl, range_excl). Basics live in comm.c. */
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_impl.h"

/* Hands out a group built from n job ranks. Every empty result is MPI_GROUP_EMPTY itself, so
 * programs that compare handles with it (and free it) behave as under other implementations. */
static int group_out(const char *fn, const int *job, int n, MPI_Group *newgroup)
{
    if (n == 0) {
        *newgroup = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    struct credo_group *g = group_new(n);
    if (g == NULL)
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    memcpy(g->world_of, job, (size_t)n * sizeof(int));
    group_index(g);
    *newgroup = g;
    return MPI_SUCCESS;
}

enum set_op { SET_UNION, SET_INTERSECTION, SET_DIFFERENCE };

/* The standard's orders: union is group1 then the members of group2 not in group1 (in group2's
 * order); intersection and difference keep group1's order. */
static int group_set_op(const char *fn, enum set_op op, MPI_Group g1, MPI_Group g2,
                        MPI_Group *newgroup)
{
    GROUP_CHECK(fn, g1);
    GROUP_CHECK(fn, g2);
    if (newgroup == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "newgroup is NULL");
    char *in2 = calloc((size_t)credo_mpi.job_size, 1);
    int *job = malloc((size_t)(g1->size + g2->size + 1) * sizeof(int));
    if (in2 == NULL || job == NULL) {
        free(in2);
        free(job);
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    for (int i = 0; i < g2->size; i++)
        in2[g2->world_of[i]] = 1;
    int n = 0;
    for (int i = 0; i < g1->size; i++) {
        int j = g1->world_of[i];
        if (op == SET_UNION || (op == SET_INTERSECTION) == (in2[j] != 0))
            job[n++] = j;
    }
    if (op == SET_UNION) {
        /* Reuse in2 as "already in the result" for group2's pass. */
        memset(in2, 0, (size_t)credo_mpi.job_size);
        for (int i = 0; i < g1->size; i++)
            in2[g1->world_of[i]] = 1;
        for (int i = 0; i < g2->size; i++)
            if (!in2[g2->world_of[i]])
                job[n++] = g2->world_of[i];
    }
    int rc = group_out(fn, job, n, newgroup);
    free(in2);
    free(job);
    return rc;
}

int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    MPI_ENTER();
    return group_set_op("MPI_Group_union", SET_UNION, group1, group2, newgroup);
}

int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    MPI_ENTER();
    return group_set_op("MPI_Group_intersection", SET_INTERSECTION, group1, group2, newgroup);
}

int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    MPI_ENTER();
    return group_set_op("MPI_Group_difference", SET_DIFFERENCE, group1, group2, newgroup);
}

/* Expands n (first, last, stride) triplets into the ranks they name, in order, into *out
 * (allocated; *count set). Every computed rank must be a rank of g and appear once. A stride of 0
 * is an error, and so is a triplet whose stride points away from `last` (first > last with a
 * positive stride or first < last with a negative one): the standard's formula gives no ranks
 * there, and other implementations reject it too, so it is most likely a mistake. */
static int expand_ranges(const char *fn, MPI_Group g, int n, int ranges[][3], int **out,
                         int *count)
{
    if (n < 0 || (n > 0 && ranges == NULL))
        return mpi_error(NULL, MPI_ERR_ARG, fn, "invalid range list (n = %d)", n);
    long long total = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0)
            return mpi_error(NULL, MPI_ERR_ARG, fn, "range %d has stride 0", i);
        if ((stride > 0 && first > last) || (stride < 0 && first < last))
            return mpi_error(NULL, MPI_ERR_ARG, fn, "range %d (%d, %d, %d) does not reach its end",
                             i, first, last, stride);
        if (first < 0 || first >= g->size)
            return mpi_error(NULL, MPI_ERR_RANK, fn,
                             "range %d starts at invalid rank %d (group size %d)", i, first,
                             g->size);
        total += ((long long)last - first) / stride + 1;
        if (total > g->size)
            return mpi_error(NULL, MPI_ERR_RANK, fn,
                             "ranges name more ranks than the group has (%d)", g->size);
    }
    int *ranks = malloc((size_t)(total ? total : 1) * sizeof(int));
    char *seen = calloc((size_t)(g->size ? g->size : 1), 1);
    if (ranks == NULL || seen == NULL) {
        free(ranks);
        free(seen);
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    int m = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        long long k = ((long long)last - first) / stride + 1;
        for (long long j = 0; j < k; j++) {
            long long r = first + j * stride;
            if (r < 0 || r >= g->size || seen[r]) {
                free(ranks);
                free(seen);
                return mpi_error(NULL, MPI_ERR_RANK, fn,
                                 "range %d names %s rank %lld (group size %d)", i,
                                 r < 0 || r >= g->size ? "invalid" : "repeated", r, g->size);
            }
            seen[r] = 1;
            ranks[m++] = (int)r;
        }
    }
    free(seen);
    *out = ranks;
    *count = m;
    return MPI_SUCCESS;
}

/* What range_incl and range_excl check first; on success *ranks (the caller frees it) lists the
 * *m group ranks the ranges name. */
static int range_args(const char *fn, MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup,
                      int **ranks, int *m)
{
    GROUP_CHECK(fn, group);
    if (newgroup == NULL)
        return mpi_error(NULL, MPI_ERR_ARG, fn, "newgroup is NULL");
    return expand_ranges(fn, group, n, ranges, ranks, m);
}

int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Group_range_incl";
    int *ranks, m;
    int rc = range_args(fn, group, n, ranges, newgroup, &ranks, &m);
    if (rc != MPI_SUCCESS)
        return rc;
    for (int i = 0; i < m; i++)
        ranks[i] = group->world_of[ranks[i]];
    rc = group_out(fn, ranks, m, newgroup);
    free(ranks);
    return rc;
}

int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    MPI_ENTER();
    static const char fn[] = "MPI_Group_range_excl";
    int *ranks, m;
    int rc = range_args(fn, group, n, ranges, newgroup, &ranks, &m);
    if (rc != MPI_SUCCESS)
        return rc;
    char *drop = calloc((size_t)(group->size ? group->size : 1), 1);
    int *job = malloc((size_t)(group->size ? group->size : 1) * sizeof(int));
    if (drop == NULL || job == NULL) {
        free(ranks);
        free(drop);
        free(job);
        return mpi_error(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    for (int i = 0; i < m; i++)
        drop[ranks[i]] = 1;
    int k = 0;
    for (int r = 0; r < group->size; r++)
        if (!drop[r])
            job[k++] = group->world_of[r];
    rc = group_out(fn, job, k, newgroup);
    free(ranks);
    free(drop);
    free(job);
    return rc;
}

CREDO_PMPI(MPI_Group_union)
CREDO_PMPI(MPI_Group_intersection)
CREDO_PMPI(MPI_Group_difference)
CREDO_PMPI(MPI_Group_range_incl)
CREDO_PMPI(MPI_Group_range_excl)
