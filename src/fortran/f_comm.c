/* src/fortran/f_comm.c — Fortran bindings of communicators, groups, Cartesian topologies, the
 * communicator attribute query and info objects. */
#include <stdint.h>

#include "fortran/fbind.h"
#include "mpi/attr.h"

/* An array of n LOGICALs as C ints (0 or 1): on the stack up to F_LOCAL entries, else on the
 * heap. 0, or MPI_ERR_NO_MEM. */
struct f_logicals {
    int *v;
    int local[F_LOCAL];
};
static int f_logicals_alloc(struct f_logicals *l, int n)
{
    l->v = l->local;
    if (n > F_LOCAL && (l->v = malloc((size_t)n * sizeof *l->v)) == NULL)
        return MPI_ERR_NO_MEM;
    return 0;
}
static int f_logicals_in(struct f_logicals *l, int n, const MPI_Fint *f)
{
    if (f_logicals_alloc(l, n) != 0)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++)
        l->v[i] = f[i] != 0;
    return 0;
}
/* Copies the first n back (n may be 0) and frees. */
static void f_logicals_back(struct f_logicals *l, int n, MPI_Fint *f)
{
    for (int i = 0; i < n; i++)
        f[i] = f_logical(l->v[i]);
    if (l->v != l->local)
        free(l->v);
}

/* ---- communicators ---------------------------------------------------------------------------- */

void mpi_comm_rank_(MPI_Fint *comm, MPI_Fint *rank, MPI_Fint *ierr)
{
    *ierr = MPI_Comm_rank(C(comm), rank);
}
F_PMPI(comm_rank)

void mpi_comm_size_(MPI_Fint *comm, MPI_Fint *size, MPI_Fint *ierr)
{
    *ierr = MPI_Comm_size(C(comm), size);
}
F_PMPI(comm_size)

void mpi_comm_dup_(MPI_Fint *comm, MPI_Fint *newcomm, MPI_Fint *ierr)
{
    COMM_OUT(MPI_Comm_dup(C(comm), &c_));
}
F_PMPI(comm_dup)

void mpi_comm_split_(MPI_Fint *comm, MPI_Fint *color, MPI_Fint *key, MPI_Fint *newcomm,
                     MPI_Fint *ierr)
{
    COMM_OUT(MPI_Comm_split(C(comm), *color, *key, &c_));
}
F_PMPI(comm_split)

void mpi_comm_split_type_(MPI_Fint *comm, MPI_Fint *split_type, MPI_Fint *key, MPI_Fint *info,
                          MPI_Fint *newcomm, MPI_Fint *ierr)
{
    COMM_OUT(MPI_Comm_split_type(C(comm), *split_type, *key, I(info), &c_));
}
F_PMPI(comm_split_type)

void mpi_comm_create_(MPI_Fint *comm, MPI_Fint *group, MPI_Fint *newcomm, MPI_Fint *ierr)
{
    COMM_OUT(MPI_Comm_create(C(comm), G(group), &c_));
}
F_PMPI(comm_create)

/* The handle comes back as MPI_COMM_NULL's integer, 0. */
void mpi_comm_free_(MPI_Fint *comm, MPI_Fint *ierr)
{
    MPI_Comm c = C(comm);
    *ierr = MPI_Comm_free(&c);
    *comm = MPI_Comm_c2f(c);
}
F_PMPI(comm_free)

void mpi_comm_compare_(MPI_Fint *comm1, MPI_Fint *comm2, MPI_Fint *result, MPI_Fint *ierr)
{
    *ierr = MPI_Comm_compare(C(comm1), C(comm2), result);
}
F_PMPI(comm_compare)

void mpi_comm_group_(MPI_Fint *comm, MPI_Fint *group, MPI_Fint *ierr)
{
    MPI_Group g = MPI_GROUP_NULL;
    *ierr = MPI_Comm_group(C(comm), &g);
    *group = MPI_Group_c2f(g);
}
F_PMPI(comm_group)

void mpi_comm_test_inter_(MPI_Fint *comm, MPI_Fint *flag, MPI_Fint *ierr)
{
    int f = 0;
    *ierr = MPI_Comm_test_inter(C(comm), &f);
    *flag = f_logical(f);
}
F_PMPI(comm_test_inter)

void mpi_comm_remote_size_(MPI_Fint *comm, MPI_Fint *size, MPI_Fint *ierr)
{
    *ierr = MPI_Comm_remote_size(C(comm), size);
}
F_PMPI(comm_remote_size)

void mpi_comm_set_name_(MPI_Fint *comm, const char *comm_name, MPI_Fint *ierr, size_t comm_name_len)
{
    char *c = f_str_in(comm_name, comm_name_len);
    if (c == NULL) {
        *ierr = f_no_mem("MPI_Comm_set_name");
        return;
    }
    *ierr = MPI_Comm_set_name(C(comm), c);
    free(c);
}
F_PMPI(comm_set_name)

void mpi_comm_get_name_(MPI_Fint *comm, char *comm_name, MPI_Fint *resultlen, MPI_Fint *ierr,
                        size_t comm_name_len)
{
    char c[MPI_MAX_OBJECT_NAME + 1] = "";
    int n = 0;
    *ierr = MPI_Comm_get_name(C(comm), c, &n);
    f_str_result(comm_name, comm_name_len, c, n, resultlen);
}
F_PMPI(comm_get_name)

void mpi_comm_remote_group_(MPI_Fint *comm, MPI_Fint *group, MPI_Fint *ierr)
{
    MPI_Group g = MPI_GROUP_NULL;
    *ierr = MPI_Comm_remote_group(C(comm), &g);
    *group = MPI_Group_c2f(g);
}
F_PMPI(comm_remote_group)

void mpi_intercomm_create_(MPI_Fint *local_comm, MPI_Fint *local_leader, MPI_Fint *peer_comm,
                           MPI_Fint *remote_leader, MPI_Fint *tag, MPI_Fint *newintercomm,
                           MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    *ierr = MPI_Intercomm_create(C(local_comm), *local_leader, C(peer_comm), *remote_leader, *tag,
                                 &c);
    *newintercomm = MPI_Comm_c2f(c);
}
F_PMPI(intercomm_create)

void mpi_intercomm_merge_(MPI_Fint *intercomm, MPI_Fint *high, MPI_Fint *newintracomm,
                          MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    *ierr = MPI_Intercomm_merge(C(intercomm), *high != 0, &c);
    *newintracomm = MPI_Comm_c2f(c);
}
F_PMPI(intercomm_merge)

void mpi_comm_dup_with_info_(MPI_Fint *comm, MPI_Fint *info, MPI_Fint *newcomm, MPI_Fint *ierr)
{
    COMM_OUT(MPI_Comm_dup_with_info(C(comm), I(info), &c_));
}
F_PMPI(comm_dup_with_info)

void mpi_comm_create_group_(MPI_Fint *comm, MPI_Fint *group, MPI_Fint *tag, MPI_Fint *newcomm,
                            MPI_Fint *ierr)
{
    COMM_OUT(MPI_Comm_create_group(C(comm), G(group), *tag, &c_));
}
F_PMPI(comm_create_group)

/* The new handle is written at the call (credo builds the communicator there); it becomes usable
 * when the request completes. */
void mpi_comm_idup_(MPI_Fint *comm, MPI_Fint *newcomm, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request r = MPI_REQUEST_NULL;
    COMM_OUT(MPI_Comm_idup(C(comm), &c_, &r));
    *request = MPI_Request_c2f(r);
}
F_PMPI(comm_idup)

void mpi_comm_set_info_(MPI_Fint *comm, MPI_Fint *info, MPI_Fint *ierr)
{
    *ierr = MPI_Comm_set_info(C(comm), I(info));
}
F_PMPI(comm_set_info)

void mpi_comm_get_info_(MPI_Fint *comm, MPI_Fint *info_used, MPI_Fint *ierr)
{
    MPI_Info i = MPI_INFO_NULL;
    *ierr = MPI_Comm_get_info(C(comm), &i);
    *info_used = MPI_Info_c2f(i);
}
F_PMPI(comm_get_info)

/* ---- errors ----------------------------------------------------------------------------------- */

void mpi_comm_call_errhandler_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr)
{
    *ierr = MPI_Comm_call_errhandler(C(comm), *errorcode);
}
F_PMPI(comm_call_errhandler)

void mpi_add_error_class_(MPI_Fint *errorclass, MPI_Fint *ierr)
{
    *ierr = MPI_Add_error_class(errorclass);
}
F_PMPI(add_error_class)

void mpi_add_error_code_(MPI_Fint *errorclass, MPI_Fint *errorcode, MPI_Fint *ierr)
{
    *ierr = MPI_Add_error_code(*errorclass, errorcode);
}
F_PMPI(add_error_code)

void mpi_add_error_string_(MPI_Fint *errorcode, const char *string, MPI_Fint *ierr,
                           size_t string_len)
{
    char *c = f_str_in(string, string_len);
    if (c == NULL) {
        *ierr = f_no_mem("MPI_Add_error_string");
        return;
    }
    *ierr = MPI_Add_error_string(*errorcode, c);
    free(c);
}
F_PMPI(add_error_string)

/* ---- groups ----------------------------------------------------------------------------------- */

void mpi_group_size_(MPI_Fint *group, MPI_Fint *size, MPI_Fint *ierr)
{
    *ierr = MPI_Group_size(G(group), size);
}
F_PMPI(group_size)

void mpi_group_rank_(MPI_Fint *group, MPI_Fint *rank, MPI_Fint *ierr)
{
    *ierr = MPI_Group_rank(G(group), rank);
}
F_PMPI(group_rank)

void mpi_group_incl_(MPI_Fint *group, MPI_Fint *n, MPI_Fint *ranks, MPI_Fint *newgroup,
                     MPI_Fint *ierr)
{
    GROUP_OUT(MPI_Group_incl(G(group), *n, ranks, &g_));
}
F_PMPI(group_incl)

void mpi_group_excl_(MPI_Fint *group, MPI_Fint *n, MPI_Fint *ranks, MPI_Fint *newgroup,
                     MPI_Fint *ierr)
{
    GROUP_OUT(MPI_Group_excl(G(group), *n, ranks, &g_));
}
F_PMPI(group_excl)

/* The handle comes back as MPI_GROUP_NULL's integer, 0. */
void mpi_group_free_(MPI_Fint *group, MPI_Fint *ierr)
{
    MPI_Group g = G(group);
    *ierr = MPI_Group_free(&g);
    *group = MPI_Group_c2f(g);
}
F_PMPI(group_free)

void mpi_group_translate_ranks_(MPI_Fint *group1, MPI_Fint *n, MPI_Fint *ranks1, MPI_Fint *group2,
                                MPI_Fint *ranks2, MPI_Fint *ierr)
{
    *ierr = MPI_Group_translate_ranks(G(group1), *n, ranks1, G(group2), ranks2);
}
F_PMPI(group_translate_ranks)

void mpi_group_compare_(MPI_Fint *group1, MPI_Fint *group2, MPI_Fint *result, MPI_Fint *ierr)
{
    *ierr = MPI_Group_compare(G(group1), G(group2), result);
}
F_PMPI(group_compare)

/* Union, intersection and difference share their arguments. */
#define F_GROUP_SET(lower, Cname)                                                                  \
    void mpi_##lower##_(MPI_Fint *group1, MPI_Fint *group2, MPI_Fint *newgroup, MPI_Fint *ierr)    \
    {                                                                                              \
        GROUP_OUT(Cname(G(group1), G(group2), &g_));                                               \
    }                                                                                              \
    F_PMPI(lower)
F_GROUP_SET(group_union, MPI_Group_union)
F_GROUP_SET(group_intersection, MPI_Group_intersection)
F_GROUP_SET(group_difference, MPI_Group_difference)

/* RANGES is INTEGER RANGES(3, N): in memory the C int[n][3] of triplets. */
void mpi_group_range_incl_(MPI_Fint *group, MPI_Fint *n, MPI_Fint *ranges, MPI_Fint *newgroup,
                           MPI_Fint *ierr)
{
    GROUP_OUT(MPI_Group_range_incl(G(group), *n, (int (*)[3])ranges, &g_));
}
F_PMPI(group_range_incl)

void mpi_group_range_excl_(MPI_Fint *group, MPI_Fint *n, MPI_Fint *ranges, MPI_Fint *newgroup,
                           MPI_Fint *ierr)
{
    GROUP_OUT(MPI_Group_range_excl(G(group), *n, (int (*)[3])ranges, &g_));
}
F_PMPI(group_range_excl)

/* ---- Cartesian topologies --------------------------------------------------------------------- */

void mpi_cart_create_(MPI_Fint *comm_old, MPI_Fint *ndims, MPI_Fint *dims, MPI_Fint *periods,
                      MPI_Fint *reorder, MPI_Fint *comm_cart, MPI_Fint *ierr)
{
    struct f_logicals p;
    if (f_logicals_in(&p, *ndims, periods) != 0) {
        *ierr = f_no_mem("MPI_Cart_create");
        return;
    }
    MPI_Comm c = MPI_COMM_NULL;
    *ierr = MPI_Cart_create(C(comm_old), *ndims, dims, p.v, *reorder != 0, &c);
    *comm_cart = MPI_Comm_c2f(c);
    f_logicals_back(&p, 0, periods);
}
F_PMPI(cart_create)

void mpi_cart_coords_(MPI_Fint *comm, MPI_Fint *rank, MPI_Fint *maxdims, MPI_Fint *coords,
                      MPI_Fint *ierr)
{
    *ierr = MPI_Cart_coords(C(comm), *rank, *maxdims, coords);
}
F_PMPI(cart_coords)

void mpi_cart_rank_(MPI_Fint *comm, MPI_Fint *coords, MPI_Fint *rank, MPI_Fint *ierr)
{
    *ierr = MPI_Cart_rank(C(comm), coords, rank);
}
F_PMPI(cart_rank)

void mpi_cart_shift_(MPI_Fint *comm, MPI_Fint *direction, MPI_Fint *disp, MPI_Fint *rank_source,
                     MPI_Fint *rank_dest, MPI_Fint *ierr)
{
    *ierr = MPI_Cart_shift(C(comm), *direction, *disp, rank_source, rank_dest);
}
F_PMPI(cart_shift)

/* MPI_Cart_get fills min(maxdims, ndims) entries; only those periods are written back. */
void mpi_cart_get_(MPI_Fint *comm, MPI_Fint *maxdims, MPI_Fint *dims, MPI_Fint *periods,
                   MPI_Fint *coords, MPI_Fint *ierr)
{
    struct f_logicals p;
    if (f_logicals_alloc(&p, *maxdims) != 0) {
        *ierr = f_no_mem("MPI_Cart_get");
        return;
    }
    int n = 0;
    *ierr = MPI_Cart_get(C(comm), *maxdims, dims, p.v, coords);
    if (*ierr == MPI_SUCCESS && MPI_Cartdim_get(C(comm), &n) == MPI_SUCCESS && n > *maxdims)
        n = *maxdims;
    f_logicals_back(&p, *ierr == MPI_SUCCESS ? n : 0, periods);
}
F_PMPI(cart_get)

/* REMAIN_DIMS has one entry per dimension of comm, which the call does not pass: it is asked
 * for when comm is Cartesian; otherwise MPI_Cart_sub itself reports the error. */
void mpi_cart_sub_(MPI_Fint *comm, MPI_Fint *remain_dims, MPI_Fint *newcomm, MPI_Fint *ierr)
{
    MPI_Comm c = C(comm);
    int kind = MPI_UNDEFINED, n = 0;
    if (c != MPI_COMM_NULL && MPI_Topo_test(c, &kind) == MPI_SUCCESS && kind == MPI_CART &&
        MPI_Cartdim_get(c, &n) != MPI_SUCCESS)
        n = 0;
    struct f_logicals r;
    if (f_logicals_in(&r, n, remain_dims) != 0) {
        *ierr = f_no_mem("MPI_Cart_sub");
        return;
    }
    COMM_OUT(MPI_Cart_sub(c, r.v, &c_));
    f_logicals_back(&r, 0, remain_dims);
}
F_PMPI(cart_sub)

void mpi_cartdim_get_(MPI_Fint *comm, MPI_Fint *ndims, MPI_Fint *ierr)
{
    *ierr = MPI_Cartdim_get(C(comm), ndims);
}
F_PMPI(cartdim_get)

void mpi_dims_create_(MPI_Fint *nnodes, MPI_Fint *ndims, MPI_Fint *dims, MPI_Fint *ierr)
{
    *ierr = MPI_Dims_create(*nnodes, *ndims, dims);
}
F_PMPI(dims_create)

void mpi_topo_test_(MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr)
{
    *ierr = MPI_Topo_test(C(comm), status);
}
F_PMPI(topo_test)

void mpi_cart_map_(MPI_Fint *comm, MPI_Fint *ndims, MPI_Fint *dims, MPI_Fint *periods,
                   MPI_Fint *newrank, MPI_Fint *ierr)
{
    struct f_logicals p;
    if (f_logicals_in(&p, *ndims, periods) != 0) {
        *ierr = f_no_mem("MPI_Cart_map");
        return;
    }
    *ierr = MPI_Cart_map(C(comm), *ndims, dims, p.v, newrank);
    f_logicals_back(&p, 0, periods);
}
F_PMPI(cart_map)

/* ---- graph topologies ------------------------------------------------------------------------- */

void mpi_graph_create_(MPI_Fint *comm_old, MPI_Fint *nnodes, MPI_Fint *index, MPI_Fint *edges,
                       MPI_Fint *reorder, MPI_Fint *comm_graph, MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    *ierr = MPI_Graph_create(C(comm_old), *nnodes, index, edges, *reorder != 0, &c);
    *comm_graph = MPI_Comm_c2f(c);
}
F_PMPI(graph_create)

void mpi_graphdims_get_(MPI_Fint *comm, MPI_Fint *nnodes, MPI_Fint *nedges, MPI_Fint *ierr)
{
    *ierr = MPI_Graphdims_get(C(comm), nnodes, nedges);
}
F_PMPI(graphdims_get)

void mpi_graph_get_(MPI_Fint *comm, MPI_Fint *maxindex, MPI_Fint *maxedges, MPI_Fint *index,
                    MPI_Fint *edges, MPI_Fint *ierr)
{
    *ierr = MPI_Graph_get(C(comm), *maxindex, *maxedges, index, edges);
}
F_PMPI(graph_get)

void mpi_graph_neighbors_count_(MPI_Fint *comm, MPI_Fint *rank, MPI_Fint *nneighbors,
                                MPI_Fint *ierr)
{
    *ierr = MPI_Graph_neighbors_count(C(comm), *rank, nneighbors);
}
F_PMPI(graph_neighbors_count)

void mpi_graph_neighbors_(MPI_Fint *comm, MPI_Fint *rank, MPI_Fint *maxneighbors,
                          MPI_Fint *neighbors, MPI_Fint *ierr)
{
    *ierr = MPI_Graph_neighbors(C(comm), *rank, *maxneighbors, neighbors);
}
F_PMPI(graph_neighbors)

void mpi_graph_map_(MPI_Fint *comm, MPI_Fint *nnodes, MPI_Fint *index, MPI_Fint *edges,
                    MPI_Fint *newrank, MPI_Fint *ierr)
{
    *ierr = MPI_Graph_map(C(comm), *nnodes, index, edges, newrank);
}
F_PMPI(graph_map)

/* ---- distributed graph topologies ------------------------------------------------------------- */

/* A weights argument: mpif.h's MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY arrive as the addresses of
 * their common blocks and become C's sentinels; any other array is used as is. */
static int *f_weights(MPI_Fint *w)
{
    if (w == credo_unweighted_)
        return MPI_UNWEIGHTED;
    if (w == credo_weights_empty_)
        return MPI_WEIGHTS_EMPTY;
    return w;
}

void mpi_dist_graph_create_adjacent_(MPI_Fint *comm_old, MPI_Fint *indegree, MPI_Fint *sources,
                                     MPI_Fint *sourceweights, MPI_Fint *outdegree,
                                     MPI_Fint *destinations, MPI_Fint *destweights,
                                     MPI_Fint *info, MPI_Fint *reorder, MPI_Fint *comm_dist_graph,
                                     MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    *ierr = MPI_Dist_graph_create_adjacent(C(comm_old), *indegree, sources,
                                           f_weights(sourceweights), *outdegree, destinations,
                                           f_weights(destweights), I(info), *reorder != 0, &c);
    *comm_dist_graph = MPI_Comm_c2f(c);
}
F_PMPI(dist_graph_create_adjacent)

void mpi_dist_graph_create_(MPI_Fint *comm_old, MPI_Fint *n, MPI_Fint *sources, MPI_Fint *degrees,
                            MPI_Fint *destinations, MPI_Fint *weights, MPI_Fint *info,
                            MPI_Fint *reorder, MPI_Fint *comm_dist_graph, MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    *ierr = MPI_Dist_graph_create(C(comm_old), *n, sources, degrees, destinations,
                                  f_weights(weights), I(info), *reorder != 0, &c);
    *comm_dist_graph = MPI_Comm_c2f(c);
}
F_PMPI(dist_graph_create)

void mpi_dist_graph_neighbors_count_(MPI_Fint *comm, MPI_Fint *indegree, MPI_Fint *outdegree,
                                     MPI_Fint *weighted, MPI_Fint *ierr)
{
    int w = 0;
    *ierr = MPI_Dist_graph_neighbors_count(C(comm), indegree, outdegree, &w);
    *weighted = f_logical(w);
}
F_PMPI(dist_graph_neighbors_count)

void mpi_dist_graph_neighbors_(MPI_Fint *comm, MPI_Fint *maxindegree, MPI_Fint *sources,
                               MPI_Fint *sourceweights, MPI_Fint *maxoutdegree,
                               MPI_Fint *destinations, MPI_Fint *destweights, MPI_Fint *ierr)
{
    *ierr = MPI_Dist_graph_neighbors(C(comm), *maxindegree, sources, f_weights(sourceweights),
                                     *maxoutdegree, destinations, f_weights(destweights));
}
F_PMPI(dist_graph_neighbors)

/* ---- attributes ------------------------------------------------------------------------------- */

/* attr.c reads the value in the form it was set in (src/mpi/attr.h): a C pointer's address, a
 * Fortran integer's value, a predefined key's value. */
void mpi_comm_get_attr_(MPI_Fint *comm, MPI_Fint *comm_keyval, MPI_Aint *attribute_val,
                        MPI_Fint *flag, MPI_Fint *ierr)
{
    MPI_Aint v = 0;
    int f = 0;
    *ierr = mpi_attr_comm_fget(C(comm), *comm_keyval, &v, &f);
    *flag = f_logical(f);
    if (*ierr == MPI_SUCCESS && f)
        *attribute_val = v;
}
F_PMPI(comm_get_attr)

/* ---- info objects ----------------------------------------------------------------------------- */

/* An info key or value: in Fortran, leading and trailing blanks are stripped from both (MPI 4.0
 * §10). A NUL-terminated copy, or NULL when out of memory. */
static char *f_info_str(const char *s, size_t len)
{
    while (len > 0 && *s == ' ') {
        s++;
        len--;
    }
    return f_str_in(s, len);
}

void mpi_info_create_(MPI_Fint *info, MPI_Fint *ierr)
{
    MPI_Info i = MPI_INFO_NULL;
    *ierr = MPI_Info_create(&i);
    *info = MPI_Info_c2f(i);
}
F_PMPI(info_create)

/* The handle comes back as MPI_INFO_NULL's integer, 0. */
void mpi_info_free_(MPI_Fint *info, MPI_Fint *ierr)
{
    MPI_Info i = I(info);
    *ierr = MPI_Info_free(&i);
    *info = MPI_Info_c2f(i);
}
F_PMPI(info_free)

void mpi_info_set_(MPI_Fint *info, const char *key, const char *value, MPI_Fint *ierr,
                   size_t key_len, size_t value_len)
{
    char *k = f_info_str(key, key_len), *v = f_info_str(value, value_len);
    if (k == NULL || v == NULL) {
        free(k);
        free(v);
        *ierr = f_no_mem("MPI_Info_set");
        return;
    }
    *ierr = MPI_Info_set(I(info), k, v);
    free(k);
    free(v);
}
F_PMPI(info_set)

/* At most VALUELEN characters, and no more than VALUE holds, are copied; the rest of VALUE is
 * blank. MPI_Info_get writes valuelen characters and a terminator. */
void mpi_info_get_(MPI_Fint *info, const char *key, MPI_Fint *valuelen, char *value,
                   MPI_Fint *flag, MPI_Fint *ierr, size_t key_len, size_t value_len)
{
    int n = *valuelen;
    if (n > 0 && (size_t)n > value_len)
        n = (int)value_len;
    char *k = f_info_str(key, key_len), *v = malloc(n > 0 ? (size_t)n + 1 : 1);
    if (k == NULL || v == NULL) {
        free(k);
        free(v);
        *ierr = f_no_mem("MPI_Info_get");
        return;
    }
    int f = 0;
    v[0] = '\0';
    *ierr = MPI_Info_get(I(info), k, n, v, &f);
    *flag = f_logical(f);
    if (*ierr == MPI_SUCCESS && f)
        f_str_out(value, value_len, v);
    free(k);
    free(v);
}
F_PMPI(info_get)

void mpi_info_delete_(MPI_Fint *info, const char *key, MPI_Fint *ierr, size_t key_len)
{
    char *k = f_info_str(key, key_len);
    if (k == NULL) {
        *ierr = f_no_mem("MPI_Info_delete");
        return;
    }
    *ierr = MPI_Info_delete(I(info), k);
    free(k);
}
F_PMPI(info_delete)

void mpi_info_dup_(MPI_Fint *info, MPI_Fint *newinfo, MPI_Fint *ierr)
{
    MPI_Info i = MPI_INFO_NULL;
    *ierr = MPI_Info_dup(I(info), &i);
    *newinfo = MPI_Info_c2f(i);
}
F_PMPI(info_dup)

void mpi_info_get_nkeys_(MPI_Fint *info, MPI_Fint *nkeys, MPI_Fint *ierr)
{
    *ierr = MPI_Info_get_nkeys(I(info), nkeys);
}
F_PMPI(info_get_nkeys)

/* N counts from 0, as in C. */
void mpi_info_get_nthkey_(MPI_Fint *info, MPI_Fint *n, char *key, MPI_Fint *ierr, size_t key_len)
{
    char c[MPI_MAX_INFO_KEY + 1] = "";
    *ierr = MPI_Info_get_nthkey(I(info), *n, c);
    if (*ierr == MPI_SUCCESS)
        f_str_out(key, key_len, c);
}
F_PMPI(info_get_nthkey)

void mpi_info_get_valuelen_(MPI_Fint *info, const char *key, MPI_Fint *valuelen, MPI_Fint *flag,
                            MPI_Fint *ierr, size_t key_len)
{
    char *k = f_info_str(key, key_len);
    if (k == NULL) {
        *ierr = f_no_mem("MPI_Info_get_valuelen");
        return;
    }
    int f = 0;
    *ierr = MPI_Info_get_valuelen(I(info), k, valuelen, &f);
    *flag = f_logical(f);
    free(k);
}
F_PMPI(info_get_valuelen)

/* MPI 4.0 §10.2.2: BUFLEN counts characters, with no terminator. At most BUFLEN characters (and no
 * more than VALUE holds) are copied and the rest of VALUE is blank; BUFLEN 0 leaves VALUE as it
 * is. BUFLEN comes back as the value's length. */
void mpi_info_get_string_(MPI_Fint *info, const char *key, MPI_Fint *buflen, char *value,
                          MPI_Fint *flag, MPI_Fint *ierr, size_t key_len, size_t value_len)
{
    int n = *buflen;
    if (n > 0 && (size_t)n > value_len)
        n = (int)value_len;
    char *k = f_info_str(key, key_len), *v = malloc(n > 0 ? (size_t)n + 1 : 1);
    if (k == NULL || v == NULL) {
        free(k);
        free(v);
        *ierr = f_no_mem("MPI_Info_get_string");
        return;
    }
    int f = 0, cn = n > 0 ? n + 1 : n; /* C's length has room for the terminator */
    v[0] = '\0';
    *ierr = MPI_Info_get_string(I(info), k, &cn, v, &f);
    *flag = f_logical(f);
    if (*ierr == MPI_SUCCESS && f) {
        if (n > 0)
            f_str_out(value, value_len, v);
        *buflen = cn - 1;
    }
    free(k);
    free(v);
}
F_PMPI(info_get_string)

/* Fortran has no argc and argv: the info holds what credo knows without them. */
void mpi_info_create_env_(MPI_Fint *info, MPI_Fint *ierr)
{
    MPI_Info i = MPI_INFO_NULL;
    *ierr = MPI_Info_create_env(0, NULL, &i);
    *info = MPI_Info_c2f(i);
}
F_PMPI(info_create_env)

/* MPI-1's names for Comm_set_errhandler / Comm_get_errhandler (removed in MPI 3.0, kept as in C). */
void mpi_errhandler_set_(MPI_Fint *comm, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    *ierr = MPI_Errhandler_set(C(comm), MPI_Errhandler_f2c(*errhandler));
}
F_PMPI(errhandler_set)

void mpi_errhandler_get_(MPI_Fint *comm, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    MPI_Errhandler e = MPI_ERRHANDLER_NULL;
    *ierr = MPI_Errhandler_get(C(comm), &e);
    *errhandler = MPI_Errhandler_c2f(e);
}
F_PMPI(errhandler_get)
