/* src/mpi/removed.c — the MPI-1 functions MPI 3.0 removed (MPI_Address, MPI_Type_extent, ...), kept
 * for old programs as thin forwards to their MPI-2 replacements. */
#include "mpi/mpi_impl.h"

/* Each is exactly its replacement (MPI 3.1 §17.2 lists the pairs); errors are reported by the
 * replacement, under its name. MPI_LB and MPI_UB, the removed bound markers, are not provided:
 * MPI_Type_create_resized replaces them. */

int MPI_Address(void *location, MPI_Aint *address)
{
    return PMPI_Get_address(location, address);
}

int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent)
{
    MPI_Aint lb;
    return PMPI_Type_get_extent(datatype, &lb, extent);
}

int MPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement)
{
    MPI_Aint extent;
    return PMPI_Type_get_extent(datatype, displacement, &extent);
}

int MPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement)
{
    MPI_Aint lb = 0, extent = 0;
    int rc = PMPI_Type_get_extent(datatype, &lb, &extent);
    if (rc == MPI_SUCCESS && displacement != NULL)
        *displacement = lb + extent;
    return rc;
}

int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    return PMPI_Type_create_hvector(count, blocklength, stride, oldtype, newtype);
}

int MPI_Type_hindexed(int count, int *array_of_blocklengths, MPI_Aint *array_of_displacements,
                      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return PMPI_Type_create_hindexed(count, array_of_blocklengths, array_of_displacements, oldtype,
                                     newtype);
}

int MPI_Type_struct(int count, int *array_of_blocklengths, MPI_Aint *array_of_displacements,
                    MPI_Datatype *array_of_types, MPI_Datatype *newtype)
{
    return PMPI_Type_create_struct(count, array_of_blocklengths, array_of_displacements,
                                   array_of_types, newtype);
}

int MPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler)
{
    return PMPI_Comm_create_errhandler(function, errhandler);
}

int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return PMPI_Comm_set_errhandler(comm, errhandler);
}

int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return PMPI_Comm_get_errhandler(comm, errhandler);
}

CREDO_PMPI(MPI_Address)
CREDO_PMPI(MPI_Type_extent)
CREDO_PMPI(MPI_Type_lb)
CREDO_PMPI(MPI_Type_ub)
CREDO_PMPI(MPI_Type_hvector)
CREDO_PMPI(MPI_Type_hindexed)
CREDO_PMPI(MPI_Type_struct)
CREDO_PMPI(MPI_Errhandler_create)
CREDO_PMPI(MPI_Errhandler_set)
CREDO_PMPI(MPI_Errhandler_get)
