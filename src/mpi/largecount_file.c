/* src/mpi/largecount_file.c — the MPI 4.0 large-count (_c) forms of MPI-IO data access and of
 * MPI_File_get_type_extent: the int forms' own path (file_io.c), which counts in MPI_Count. */
#include "mpi/file_impl.h"

/* Unlike the _c forms of largecount.c these need no contiguous detour: the access computes its
 * bytes in size_t, so a count beyond INT_MAX of any committed datatype is taken as it is (io_check
 * refuses only one whose bytes would overflow a file offset, with MPI_ERR_COUNT). */

int MPI_File_read_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                       MPI_Datatype datatype, MPI_Status *status)
{
    MPI_ENTER();
    return file_io_blocking("MPI_File_read_at_c", fh, K_AT, offset, buf, count, datatype, 0,
                            status);
}

int MPI_File_write_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Status *status)
{
    MPI_ENTER();
    return file_io_blocking("MPI_File_write_at_c", fh, K_AT, offset, (void *)buf, count, datatype,
                            1, status);
}

int MPI_File_read_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                           MPI_Datatype datatype, MPI_Status *status)
{
    MPI_ENTER();
    return file_io_blocking("MPI_File_read_at_all_c", fh, K_AT, offset, buf, count, datatype, 0,
                            status);
}

int MPI_File_write_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Status *status)
{
    MPI_ENTER();
    return file_io_blocking("MPI_File_write_at_all_c", fh, K_AT, offset, (void *)buf, count,
                            datatype, 1, status);
}

int MPI_File_read_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Status *status)
{
    MPI_ENTER();
    return file_io_blocking("MPI_File_read_c", fh, K_INDIV, 0, buf, count, datatype, 0, status);
}

int MPI_File_write_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Status *status)
{
    MPI_ENTER();
    return file_io_blocking("MPI_File_write_c", fh, K_INDIV, 0, (void *)buf, count, datatype, 1,
                            status);
}

int MPI_File_read_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Status *status)
{
    MPI_ENTER();
    return file_io_blocking("MPI_File_read_all_c", fh, K_INDIV, 0, buf, count, datatype, 0, status);
}

int MPI_File_write_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Status *status)
{
    MPI_ENTER();
    return file_io_blocking("MPI_File_write_all_c", fh, K_INDIV, 0, (void *)buf, count, datatype, 1,
                            status);
}

int MPI_File_read_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                           MPI_Status *status)
{
    MPI_ENTER();
    return file_io_blocking("MPI_File_read_shared_c", fh, K_SHARED, 0, buf, count, datatype, 0,
                            status);
}

int MPI_File_write_shared_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                            MPI_Status *status)
{
    MPI_ENTER();
    return file_io_blocking("MPI_File_write_shared_c", fh, K_SHARED, 0, (void *)buf, count,
                            datatype, 1, status);
}

int MPI_File_iread_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Request *request)
{
    MPI_ENTER();
    return file_io_nonblocking("MPI_File_iread_at_c", fh, K_AT, offset, buf, count, datatype, 0,
                               request);
}

int MPI_File_iwrite_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Request *request)
{
    MPI_ENTER();
    return file_io_nonblocking("MPI_File_iwrite_at_c", fh, K_AT, offset, (void *)buf, count,
                               datatype, 1, request);
}

int MPI_File_iread_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Request *request)
{
    MPI_ENTER();
    return file_io_nonblocking("MPI_File_iread_at_all_c", fh, K_AT, offset, buf, count, datatype, 0,
                               request);
}

int MPI_File_iwrite_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Request *request)
{
    MPI_ENTER();
    return file_io_nonblocking("MPI_File_iwrite_at_all_c", fh, K_AT, offset, (void *)buf, count,
                               datatype, 1, request);
}

int MPI_File_iread_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Request *request)
{
    MPI_ENTER();
    return file_io_nonblocking("MPI_File_iread_c", fh, K_INDIV, 0, buf, count, datatype, 0,
                               request);
}

int MPI_File_iwrite_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Request *request)
{
    MPI_ENTER();
    return file_io_nonblocking("MPI_File_iwrite_c", fh, K_INDIV, 0, (void *)buf, count, datatype, 1,
                               request);
}

int MPI_File_iread_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Request *request)
{
    MPI_ENTER();
    return file_io_nonblocking("MPI_File_iread_all_c", fh, K_INDIV, 0, buf, count, datatype, 0,
                               request);
}

int MPI_File_iwrite_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Request *request)
{
    MPI_ENTER();
    return file_io_nonblocking("MPI_File_iwrite_all_c", fh, K_INDIV, 0, (void *)buf, count,
                               datatype, 1, request);
}

int MPI_File_iread_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                            MPI_Request *request)
{
    MPI_ENTER();
    return file_io_nonblocking("MPI_File_iread_shared_c", fh, K_SHARED, 0, buf, count, datatype, 0,
                               request);
}

int MPI_File_iwrite_shared_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Request *request)
{
    MPI_ENTER();
    return file_io_nonblocking("MPI_File_iwrite_shared_c", fh, K_SHARED, 0, (void *)buf, count,
                               datatype, 1, request);
}

int MPI_File_read_ordered_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                            MPI_Status *status)
{
    MPI_ENTER();
    return file_io_ordered("MPI_File_read_ordered_c", fh, buf, count, datatype, 0, status);
}

int MPI_File_write_ordered_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Status *status)
{
    MPI_ENTER();
    return file_io_ordered("MPI_File_write_ordered_c", fh, (void *)buf, count, datatype, 1, status);
}

int MPI_File_read_at_all_begin_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                                 MPI_Datatype datatype)
{
    MPI_ENTER();
    return file_split_begin("MPI_File_read_at_all_begin_c", fh, SPLIT_READ_AT, offset, buf, count,
                            datatype);
}

int MPI_File_write_at_all_begin_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                                  MPI_Datatype datatype)
{
    MPI_ENTER();
    return file_split_begin("MPI_File_write_at_all_begin_c", fh, SPLIT_WRITE_AT, offset,
                            (void *)buf, count, datatype);
}

int MPI_File_read_all_begin_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype)
{
    MPI_ENTER();
    return file_split_begin("MPI_File_read_all_begin_c", fh, SPLIT_READ, 0, buf, count, datatype);
}

int MPI_File_write_all_begin_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype)
{
    MPI_ENTER();
    return file_split_begin("MPI_File_write_all_begin_c", fh, SPLIT_WRITE, 0, (void *)buf, count,
                            datatype);
}

int MPI_File_read_ordered_begin_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype)
{
    MPI_ENTER();
    return file_split_begin("MPI_File_read_ordered_begin_c", fh, SPLIT_READ_ORD, 0, buf, count,
                            datatype);
}

int MPI_File_write_ordered_begin_c(MPI_File fh, const void *buf, MPI_Count count,
                                   MPI_Datatype datatype)
{
    MPI_ENTER();
    return file_split_begin("MPI_File_write_ordered_begin_c", fh, SPLIT_WRITE_ORD, 0, (void *)buf,
                            count, datatype);
}

int MPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent)
{
    MPI_ENTER();
    static const char fn[] = "MPI_File_get_type_extent_c";
    FILE_CHECK(fn, fh);
    if (extent == NULL)
        return file_error(fh, MPI_ERR_ARG, fn, "extent is NULL");
    return file_type_extent(fn, fh, datatype, extent);
}

CREDO_PMPI(MPI_File_read_at_c)
CREDO_PMPI(MPI_File_write_at_c)
CREDO_PMPI(MPI_File_read_at_all_c)
CREDO_PMPI(MPI_File_write_at_all_c)
CREDO_PMPI(MPI_File_read_c)
CREDO_PMPI(MPI_File_write_c)
CREDO_PMPI(MPI_File_read_all_c)
CREDO_PMPI(MPI_File_write_all_c)
CREDO_PMPI(MPI_File_read_shared_c)
CREDO_PMPI(MPI_File_write_shared_c)
CREDO_PMPI(MPI_File_iread_at_c)
CREDO_PMPI(MPI_File_iwrite_at_c)
CREDO_PMPI(MPI_File_iread_at_all_c)
CREDO_PMPI(MPI_File_iwrite_at_all_c)
CREDO_PMPI(MPI_File_iread_c)
CREDO_PMPI(MPI_File_iwrite_c)
CREDO_PMPI(MPI_File_iread_all_c)
CREDO_PMPI(MPI_File_iwrite_all_c)
CREDO_PMPI(MPI_File_iread_shared_c)
CREDO_PMPI(MPI_File_iwrite_shared_c)
CREDO_PMPI(MPI_File_read_ordered_c)
CREDO_PMPI(MPI_File_write_ordered_c)
CREDO_PMPI(MPI_File_read_at_all_begin_c)
CREDO_PMPI(MPI_File_write_at_all_begin_c)
CREDO_PMPI(MPI_File_read_all_begin_c)
CREDO_PMPI(MPI_File_write_all_begin_c)
CREDO_PMPI(MPI_File_read_ordered_begin_c)
CREDO_PMPI(MPI_File_write_ordered_begin_c)
CREDO_PMPI(MPI_File_get_type_extent_c)
