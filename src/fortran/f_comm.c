/* src/fortran/f_comm.c — Fortran bindings of communicators, groups, Cartesian topologies, the
 * communicator attribute query and info objects. */
#include <stdint.h>

#include "fortran/fbind.h"

#define C(f) MPI_Comm_f2c(*(f))
#define G(f) MPI_Group_f2c(*(f))
#define I(f) MPI_Info_f2c(*(f))

/* A constructor's new communicator or group goes back as its integer. */
#define COMM_OUT(call)                                                                             \
    do {                                                                                           \
        MPI_Comm c_ = MPI_COMM_NULL;                                                               \
        *ierr = (call);                                                                            \
        *newcomm = MPI_Comm_c2f(c_);                                                               \
    } while (0)
#define GROUP_OUT(call)                                                                            \
    do {                                                                                           \
        MPI_Group g_ = MPI_GROUP_NULL;                                                             \
        *ierr = (call);                                                                            \
        *newgroup = MPI_Group_c2f(g_);                                                             \
    } while (0)

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
    f_str_out(comm_name, comm_name_len, c);
    *resultlen = n < (int)comm_name_len ? n : (int)comm_name_len;
}
F_PMPI(comm_get_name)

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

/* ---- attributes ------------------------------------------------------------------------------- */

/* C hands out a pointer: for the predefined keys, to an int, whose value the Fortran caller gets;
 * for the others, the attribute value itself, which is returned as an integer. */
void mpi_comm_get_attr_(MPI_Fint *comm, MPI_Fint *comm_keyval, MPI_Aint *attribute_val,
                        MPI_Fint *flag, MPI_Fint *ierr)
{
    void *v = NULL;
    int f = 0;
    *ierr = MPI_Comm_get_attr(C(comm), *comm_keyval, &v, &f);
    *flag = f_logical(f);
    if (*ierr != MPI_SUCCESS || !f)
        return;
    switch (*comm_keyval) {
    case MPI_TAG_UB:
    case MPI_HOST:
    case MPI_IO:
    case MPI_WTIME_IS_GLOBAL:
    case MPI_APPNUM:
    case MPI_UNIVERSE_SIZE:
    case MPI_LASTUSEDCODE:
        *attribute_val = *(const int *)v;
        break;
    default:
        *attribute_val = (MPI_Aint)(intptr_t)v;
        break;
    }
}
F_PMPI(comm_get_attr)

/* ---- info objects ----------------------------------------------------------------------------- */

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
    char *k = f_str_in(key, key_len), *v = f_str_in(value, value_len);
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
    char *k = f_str_in(key, key_len), *v = malloc(n > 0 ? (size_t)n + 1 : 1);
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
