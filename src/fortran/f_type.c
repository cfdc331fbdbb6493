/* src/fortran/f_type.c — Fortran bindings of the derived datatypes (constructors, commit, free,
 * extents, names), of MPI_Get_address, packing, and user-defined reduction operations. */
#include <stdint.h>

#include "fortran/fbind.h"
#include "mpi/mpi_impl.h"
#include "mpi/op.h"

/* ---- constructors ----------------------------------------------------------------------------- */

void mpi_type_contiguous_(MPI_Fint *count, MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierr)
{
    TYPE_OUT(MPI_Type_contiguous(*count, T(oldtype), &t_));
}
F_PMPI(type_contiguous)

void mpi_type_vector_(MPI_Fint *count, MPI_Fint *blocklength, MPI_Fint *stride, MPI_Fint *oldtype,
                      MPI_Fint *newtype, MPI_Fint *ierr)
{
    TYPE_OUT(MPI_Type_vector(*count, *blocklength, *stride, T(oldtype), &t_));
}
F_PMPI(type_vector)

/* MPI-1's MPI_TYPE_HVECTOR takes the stride in bytes as a default INTEGER (MPI 1.3 §3.12.1);
 * MPI_TYPE_CREATE_HVECTOR takes it as INTEGER(KIND=MPI_ADDRESS_KIND). */
void mpi_type_hvector_(MPI_Fint *count, MPI_Fint *blocklength, MPI_Fint *stride, MPI_Fint *oldtype,
                       MPI_Fint *newtype, MPI_Fint *ierr)
{
    TYPE_OUT(MPI_Type_hvector(*count, *blocklength, (MPI_Aint)*stride, T(oldtype), &t_));
}
F_PMPI(type_hvector)

void mpi_type_create_hvector_(MPI_Fint *count, MPI_Fint *blocklength, MPI_Aint *stride,
                              MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierr)
{
    TYPE_OUT(MPI_Type_create_hvector(*count, *blocklength, *stride, T(oldtype), &t_));
}
F_PMPI(type_create_hvector)

void mpi_type_indexed_(MPI_Fint *count, MPI_Fint *array_of_blocklengths,
                       MPI_Fint *array_of_displacements, MPI_Fint *oldtype, MPI_Fint *newtype,
                       MPI_Fint *ierr)
{
    TYPE_OUT(MPI_Type_indexed(*count, array_of_blocklengths, array_of_displacements, T(oldtype),
                              &t_));
}
F_PMPI(type_indexed)

void mpi_type_create_hindexed_(MPI_Fint *count, MPI_Fint *array_of_blocklengths,
                               MPI_Aint *array_of_displacements, MPI_Fint *oldtype,
                               MPI_Fint *newtype, MPI_Fint *ierr)
{
    TYPE_OUT(MPI_Type_create_hindexed(*count, array_of_blocklengths, array_of_displacements,
                                      T(oldtype), &t_));
}
F_PMPI(type_create_hindexed)

/* MPI-1's MPI_TYPE_HINDEXED takes the byte displacements as default INTEGERs (MPI 1.3 §3.12.1):
 * they are widened into an MPI_Aint array. */
void mpi_type_hindexed_(MPI_Fint *count, MPI_Fint *array_of_blocklengths,
                        MPI_Fint *array_of_displacements, MPI_Fint *oldtype, MPI_Fint *newtype,
                        MPI_Fint *ierr)
{
    MPI_Aint local[F_LOCAL], *d = local;
    int n = *count > 0 ? *count : 0;
    if (n > F_LOCAL && (d = malloc((size_t)n * sizeof *d)) == NULL) {
        *ierr = f_no_mem("MPI_Type_hindexed");
        return;
    }
    for (int i = 0; i < n; i++)
        d[i] = (MPI_Aint)array_of_displacements[i];
    TYPE_OUT(MPI_Type_hindexed(*count, array_of_blocklengths, d, T(oldtype), &t_));
    if (d != local)
        free(d);
}
F_PMPI(type_hindexed)

void mpi_type_create_hindexed_block_(MPI_Fint *count, MPI_Fint *blocklength,
                                     MPI_Aint *array_of_displacements, MPI_Fint *oldtype,
                                     MPI_Fint *newtype, MPI_Fint *ierr)
{
    TYPE_OUT(MPI_Type_create_hindexed_block(*count, *blocklength, array_of_displacements,
                                            T(oldtype), &t_));
}
F_PMPI(type_create_hindexed_block)

void mpi_type_create_indexed_block_(MPI_Fint *count, MPI_Fint *blocklength,
                                    MPI_Fint *array_of_displacements, MPI_Fint *oldtype,
                                    MPI_Fint *newtype, MPI_Fint *ierr)
{
    TYPE_OUT(MPI_Type_create_indexed_block(*count, *blocklength, array_of_displacements,
                                           T(oldtype), &t_));
}
F_PMPI(type_create_indexed_block)

void mpi_type_create_struct_(MPI_Fint *count, MPI_Fint *array_of_blocklengths,
                             MPI_Aint *array_of_displacements, MPI_Fint *array_of_types,
                             MPI_Fint *newtype, MPI_Fint *ierr)
{
    MPI_Datatype local[F_LOCAL], *types;
    if (f_types_in(&types, local, *count, array_of_types) != 0) {
        *ierr = f_no_mem("MPI_Type_create_struct");
        return;
    }
    TYPE_OUT(MPI_Type_create_struct(*count, array_of_blocklengths, array_of_displacements, types,
                                    &t_));
    if (types != local)
        free(types);
}
F_PMPI(type_create_struct)

void mpi_type_create_subarray_(MPI_Fint *ndims, MPI_Fint *array_of_sizes,
                               MPI_Fint *array_of_subsizes, MPI_Fint *array_of_starts,
                               MPI_Fint *order, MPI_Fint *oldtype, MPI_Fint *newtype,
                               MPI_Fint *ierr)
{
    TYPE_OUT(MPI_Type_create_subarray(*ndims, array_of_sizes, array_of_subsizes, array_of_starts,
                                      *order, T(oldtype), &t_));
}
F_PMPI(type_create_subarray)

void mpi_type_create_resized_(MPI_Fint *oldtype, MPI_Aint *lb, MPI_Aint *extent, MPI_Fint *newtype,
                              MPI_Fint *ierr)
{
    TYPE_OUT(MPI_Type_create_resized(T(oldtype), *lb, *extent, &t_));
}
F_PMPI(type_create_resized)

void mpi_type_dup_(MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierr)
{
    TYPE_OUT(MPI_Type_dup(T(oldtype), &t_));
}
F_PMPI(type_dup)

/* Predefined types (not duplicates): MPI_TYPE_MATCH_SIZE and the parameterised Fortran 90 types. */
void mpi_type_match_size_(MPI_Fint *typeclass, MPI_Fint *size, MPI_Fint *datatype, MPI_Fint *ierr)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    *ierr = MPI_Type_match_size(*typeclass, *size, &t);
    *datatype = MPI_Type_c2f(t);
}
F_PMPI(type_match_size)

void mpi_type_create_f90_integer_(MPI_Fint *r, MPI_Fint *newtype, MPI_Fint *ierr)
{
    TYPE_OUT(MPI_Type_create_f90_integer(*r, &t_));
}
F_PMPI(type_create_f90_integer)

void mpi_type_create_f90_real_(MPI_Fint *p, MPI_Fint *r, MPI_Fint *newtype, MPI_Fint *ierr)
{
    TYPE_OUT(MPI_Type_create_f90_real(*p, *r, &t_));
}
F_PMPI(type_create_f90_real)

void mpi_type_create_f90_complex_(MPI_Fint *p, MPI_Fint *r, MPI_Fint *newtype, MPI_Fint *ierr)
{
    TYPE_OUT(MPI_Type_create_f90_complex(*p, *r, &t_));
}
F_PMPI(type_create_f90_complex)

/* ---- commit, free, queries -------------------------------------------------------------------- */

void mpi_type_commit_(MPI_Fint *datatype, MPI_Fint *ierr)
{
    MPI_Datatype t = T(datatype);
    *ierr = MPI_Type_commit(&t);
    *datatype = MPI_Type_c2f(t);
}
F_PMPI(type_commit)

/* The handle comes back as MPI_DATATYPE_NULL's integer, 0. */
void mpi_type_free_(MPI_Fint *datatype, MPI_Fint *ierr)
{
    MPI_Datatype t = T(datatype);
    *ierr = MPI_Type_free(&t);
    *datatype = MPI_Type_c2f(t);
}
F_PMPI(type_free)

void mpi_type_size_(MPI_Fint *datatype, MPI_Fint *size, MPI_Fint *ierr)
{
    *ierr = MPI_Type_size(T(datatype), size);
}
F_PMPI(type_size)

void mpi_type_get_extent_(MPI_Fint *datatype, MPI_Aint *lb, MPI_Aint *extent, MPI_Fint *ierr)
{
    *ierr = MPI_Type_get_extent(T(datatype), lb, extent);
}
F_PMPI(type_get_extent)

void mpi_type_get_true_extent_(MPI_Fint *datatype, MPI_Aint *true_lb, MPI_Aint *true_extent,
                               MPI_Fint *ierr)
{
    *ierr = MPI_Type_get_true_extent(T(datatype), true_lb, true_extent);
}
F_PMPI(type_get_true_extent)

void mpi_type_get_envelope_(MPI_Fint *datatype, MPI_Fint *num_integers, MPI_Fint *num_addresses,
                            MPI_Fint *num_datatypes, MPI_Fint *combiner, MPI_Fint *ierr)
{
    *ierr = MPI_Type_get_envelope(T(datatype), num_integers, num_addresses, num_datatypes,
                                  combiner);
}
F_PMPI(type_get_envelope)

/* The integers and addresses are written in place (INTEGER, INTEGER(KIND=MPI_ADDRESS_KIND)); the
 * datatypes go through a C array of max_datatypes and come back as integer handles. */
void mpi_type_get_contents_(MPI_Fint *datatype, MPI_Fint *max_integers, MPI_Fint *max_addresses,
                            MPI_Fint *max_datatypes, MPI_Fint *array_of_integers,
                            MPI_Aint *array_of_addresses, MPI_Fint *array_of_datatypes,
                            MPI_Fint *ierr)
{
    MPI_Datatype local[F_LOCAL], *types = local;
    int n = *max_datatypes > 0 ? *max_datatypes : 0;
    if (n > F_LOCAL && (types = malloc((size_t)n * sizeof *types)) == NULL) {
        *ierr = f_no_mem("MPI_Type_get_contents");
        return;
    }
    int nint = 0, naddr = 0, ntype = 0, comb = 0;
    *ierr = MPI_Type_get_contents(T(datatype), *max_integers, *max_addresses, *max_datatypes,
                                  array_of_integers, array_of_addresses, types);
    if (*ierr == MPI_SUCCESS &&
        MPI_Type_get_envelope(T(datatype), &nint, &naddr, &ntype, &comb) == MPI_SUCCESS) {
        if (ntype > n)
            ntype = n;
        for (int i = 0; i < ntype; i++)
            array_of_datatypes[i] = MPI_Type_c2f(types[i]);
    }
    if (types != local)
        free(types);
}
F_PMPI(type_get_contents)

void mpi_type_set_name_(MPI_Fint *datatype, const char *type_name, MPI_Fint *ierr,
                        size_t type_name_len)
{
    char *c = f_str_in(type_name, type_name_len);
    if (c == NULL) {
        *ierr = f_no_mem("MPI_Type_set_name");
        return;
    }
    *ierr = MPI_Type_set_name(T(datatype), c);
    free(c);
}
F_PMPI(type_set_name)

void mpi_type_get_name_(MPI_Fint *datatype, char *type_name, MPI_Fint *resultlen, MPI_Fint *ierr,
                        size_t type_name_len)
{
    char c[MPI_MAX_OBJECT_NAME + 1] = "";
    int n = 0;
    *ierr = MPI_Type_get_name(T(datatype), c, &n);
    f_str_result(type_name, type_name_len, c, n, resultlen);
}
F_PMPI(type_get_name)

void mpi_get_address_(const void *location, MPI_Aint *address, MPI_Fint *ierr)
{
    *ierr = MPI_Get_address(f_buf(location), address);
}
F_PMPI(get_address)

/* ---- packing ---------------------------------------------------------------------------------- */

void mpi_pack_(const void *inbuf, MPI_Fint *incount, MPI_Fint *datatype, void *outbuf,
               MPI_Fint *outsize, MPI_Fint *position, MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Pack(f_buf(inbuf), *incount, T(datatype), f_buf(outbuf), *outsize, position,
                     C(comm));
}
F_PMPI(pack)

void mpi_unpack_(const void *inbuf, MPI_Fint *insize, MPI_Fint *position, void *outbuf,
                 MPI_Fint *outcount, MPI_Fint *datatype, MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Unpack(f_buf(inbuf), *insize, position, f_buf(outbuf), *outcount, T(datatype),
                       C(comm));
}
F_PMPI(unpack)

void mpi_pack_size_(MPI_Fint *incount, MPI_Fint *datatype, MPI_Fint *comm, MPI_Fint *size,
                    MPI_Fint *ierr)
{
    *ierr = MPI_Pack_size(*incount, T(datatype), C(comm), size);
}
F_PMPI(pack_size)

/* The portable representation: DATAREP is a CHARACTER argument; sizes and positions are
 * INTEGER(KIND=MPI_ADDRESS_KIND). */
void mpi_pack_external_(const char *datarep, const void *inbuf, MPI_Fint *incount,
                        MPI_Fint *datatype, void *outbuf, MPI_Aint *outsize, MPI_Aint *position,
                        MPI_Fint *ierr, size_t datarep_len)
{
    char *d = f_str_in(datarep, datarep_len);
    if (d == NULL) {
        *ierr = f_no_mem("MPI_Pack_external");
        return;
    }
    *ierr = MPI_Pack_external(d, f_buf(inbuf), *incount, T(datatype), f_buf(outbuf), *outsize,
                              position);
    free(d);
}
F_PMPI(pack_external)

void mpi_unpack_external_(const char *datarep, const void *inbuf, MPI_Aint *insize,
                          MPI_Aint *position, void *outbuf, MPI_Fint *outcount, MPI_Fint *datatype,
                          MPI_Fint *ierr, size_t datarep_len)
{
    char *d = f_str_in(datarep, datarep_len);
    if (d == NULL) {
        *ierr = f_no_mem("MPI_Unpack_external");
        return;
    }
    *ierr = MPI_Unpack_external(d, f_buf(inbuf), *insize, position, f_buf(outbuf), *outcount,
                                T(datatype));
    free(d);
}
F_PMPI(unpack_external)

void mpi_pack_external_size_(const char *datarep, MPI_Fint *incount, MPI_Fint *datatype,
                             MPI_Aint *size, MPI_Fint *ierr, size_t datarep_len)
{
    char *d = f_str_in(datarep, datarep_len);
    if (d == NULL) {
        *ierr = f_no_mem("MPI_Pack_external_size");
        return;
    }
    *ierr = MPI_Pack_external_size(d, *incount, T(datatype), size);
    free(d);
}
F_PMPI(pack_external_size)

/* ---- user-defined operations ------------------------------------------------------------------ */

/* The Fortran SUBROUTINE FUNCTION(INVEC, INOUTVEC, LEN, DATATYPE) takes everything by reference,
 * as MPI_User_function does, but its DATATYPE is an integer handle: the op is marked so that
 * op_apply passes one (mpi_op_set_fortran). */
void mpi_op_create_(MPI_User_function *function, MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierr)
{
    MPI_Op o = MPI_OP_NULL;
    *ierr = MPI_Op_create(function, *commute != 0, &o);
    if (*ierr == MPI_SUCCESS)
        mpi_op_set_fortran(o);
    *op = MPI_Op_c2f(o);
}
F_PMPI(op_create)

void mpi_op_free_(MPI_Fint *op, MPI_Fint *ierr)
{
    MPI_Op o = MPI_Op_f2c(*op);
    *ierr = MPI_Op_free(&o);
    *op = MPI_Op_c2f(o);
}
F_PMPI(op_free)

/* ---- addresses as functions (MPI 3.1): INTEGER(KIND=MPI_ADDRESS_KIND) MPI_AINT_ADD(BASE, DISP) */

MPI_Aint mpi_aint_add_(MPI_Aint *base, MPI_Aint *disp) { return MPI_Aint_add(*base, *disp); }
F_PMPI(aint_add)
MPI_Aint mpi_aint_diff_(MPI_Aint *addr1, MPI_Aint *addr2) { return MPI_Aint_diff(*addr1, *addr2); }
F_PMPI(aint_diff)

/* ---- the MPI-1 forms MPI 3.0 removed, kept for old programs as in C (removed.c): their
 * addresses and extents are default INTEGERs ------------------------------------------------------ */

/* A value for a default INTEGER, or an MPI_ERR_ARG naming the call when it does not fit (an
 * absolute address on a 64-bit machine usually does not: MPI_GET_ADDRESS is the replacement). */
static int f_aint_to_fint(const char *fn, MPI_Aint v, MPI_Fint *out)
{
    if (v < INT32_MIN || v > INT32_MAX)
        return mpi_error(NULL, MPI_ERR_ARG, fn,
                         "%ld does not fit a default INTEGER (use the MPI-2 routine, whose result "
                         "is INTEGER(KIND=MPI_ADDRESS_KIND))", (long)v);
    *out = (MPI_Fint)v;
    return MPI_SUCCESS;
}

void mpi_address_(const void *location, MPI_Fint *address, MPI_Fint *ierr)
{
    MPI_Aint a = 0;
    *ierr = MPI_Get_address(f_buf(location), &a);
    if (*ierr == MPI_SUCCESS)
        *ierr = f_aint_to_fint("MPI_Address", a, address);
}
F_PMPI(address)

#define F_TYPE_AINT1(lower, Cname)                                                                 \
    void mpi_##lower##_(MPI_Fint *datatype, MPI_Fint *value, MPI_Fint *ierr)                       \
    {                                                                                              \
        MPI_Aint v = 0;                                                                            \
        *ierr = Cname(T(datatype), &v);                                                            \
        if (*ierr == MPI_SUCCESS)                                                                  \
            *ierr = f_aint_to_fint(#Cname, v, value);                                              \
    }                                                                                              \
    F_PMPI(lower)
F_TYPE_AINT1(type_extent, MPI_Type_extent)
F_TYPE_AINT1(type_lb, MPI_Type_lb)
F_TYPE_AINT1(type_ub, MPI_Type_ub)

void mpi_type_struct_(MPI_Fint *count, MPI_Fint *array_of_blocklengths,
                      MPI_Fint *array_of_displacements, MPI_Fint *array_of_types, MPI_Fint *newtype,
                      MPI_Fint *ierr)
{
    int n = *count > 0 ? *count : 0;
    MPI_Aint dlocal[F_LOCAL], *d = dlocal;
    MPI_Datatype tlocal[F_LOCAL], *t = tlocal;
    if ((n > F_LOCAL && (d = malloc((size_t)n * sizeof *d)) == NULL) ||
        f_types_in(&t, tlocal, n, array_of_types) != 0) {
        if (d != dlocal)
            free(d);
        *ierr = f_no_mem("MPI_Type_struct");
        return;
    }
    for (int i = 0; i < n; i++)
        d[i] = array_of_displacements[i];
    TYPE_OUT(MPI_Type_struct(*count, array_of_blocklengths, d, t, &t_));
    if (d != dlocal)
        free(d);
    if (t != tlocal)
        free(t);
}
F_PMPI(type_struct)

/* ---- MPI_Count forms (INTEGER(KIND=MPI_COUNT_KIND)) and distributed arrays ------------------- */

void mpi_type_size_x_(MPI_Fint *datatype, MPI_Count *size, MPI_Fint *ierr)
{
    *ierr = MPI_Type_size_x(T(datatype), size);
}
F_PMPI(type_size_x)

void mpi_type_get_extent_x_(MPI_Fint *datatype, MPI_Count *lb, MPI_Count *extent, MPI_Fint *ierr)
{
    *ierr = MPI_Type_get_extent_x(T(datatype), lb, extent);
}
F_PMPI(type_get_extent_x)

void mpi_type_get_true_extent_x_(MPI_Fint *datatype, MPI_Count *true_lb, MPI_Count *true_extent,
                                 MPI_Fint *ierr)
{
    *ierr = MPI_Type_get_true_extent_x(T(datatype), true_lb, true_extent);
}
F_PMPI(type_get_true_extent_x)

void mpi_get_elements_x_(MPI_Fint *status, MPI_Fint *datatype, MPI_Count *count, MPI_Fint *ierr)
{
    MPI_Status s;
    memcpy(&s, status, sizeof s);
    *ierr = MPI_Get_elements_x(&s, T(datatype), count);
}
F_PMPI(get_elements_x)

void mpi_type_create_darray_(MPI_Fint *size, MPI_Fint *rank, MPI_Fint *ndims,
                             MPI_Fint *array_of_gsizes, MPI_Fint *array_of_distribs,
                             MPI_Fint *array_of_dargs, MPI_Fint *array_of_psizes, MPI_Fint *order,
                             MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierr)
{
    TYPE_OUT(MPI_Type_create_darray(*size, *rank, *ndims, array_of_gsizes, array_of_distribs,
                                    array_of_dargs, array_of_psizes, *order, T(oldtype), &t_));
}
F_PMPI(type_create_darray)
