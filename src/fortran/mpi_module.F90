! src/fortran/mpi_module.F90 — the mpi module: mpif.h's constants, and explicit interfaces for the
! routines with choice buffers, whose buffers take any type, kind and rank (gfortran's NO_ARG_CHECK).
! The other routines stay implicit externals, as with mpif.h. The interfaces spare a program the
! "type mismatch" errors gfortran gives when one routine gets buffers of several types.
module mpi
  implicit none
  include 'mpif.h'
  ! functions of MPI 3.1 that mpif.h leaves for the program to declare (as MPICH's does)
  integer(kind=MPI_ADDRESS_KIND), external :: MPI_Aint_add, MPI_Aint_diff
  interface
    subroutine MPI_Send(buf, count, datatype, dest, tag, comm, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*), intent(in) :: buf
      integer, intent(in) :: count, datatype, dest, tag, comm
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Ssend(buf, count, datatype, dest, tag, comm, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*), intent(in) :: buf
      integer, intent(in) :: count, datatype, dest, tag, comm
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Rsend(buf, count, datatype, dest, tag, comm, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*), intent(in) :: buf
      integer, intent(in) :: count, datatype, dest, tag, comm
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Bsend(buf, count, datatype, dest, tag, comm, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*), intent(in) :: buf
      integer, intent(in) :: count, datatype, dest, tag, comm
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Isend(buf, count, datatype, dest, tag, comm, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*), intent(in) :: buf
      integer, intent(in) :: count, datatype, dest, tag, comm
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Issend(buf, count, datatype, dest, tag, comm, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*), intent(in) :: buf
      integer, intent(in) :: count, datatype, dest, tag, comm
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Irsend(buf, count, datatype, dest, tag, comm, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*), intent(in) :: buf
      integer, intent(in) :: count, datatype, dest, tag, comm
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Ibsend(buf, count, datatype, dest, tag, comm, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*), intent(in) :: buf
      integer, intent(in) :: count, datatype, dest, tag, comm
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Send_init(buf, count, datatype, dest, tag, comm, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*), intent(in) :: buf
      integer, intent(in) :: count, datatype, dest, tag, comm
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Ssend_init(buf, count, datatype, dest, tag, comm, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*), intent(in) :: buf
      integer, intent(in) :: count, datatype, dest, tag, comm
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Rsend_init(buf, count, datatype, dest, tag, comm, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*), intent(in) :: buf
      integer, intent(in) :: count, datatype, dest, tag, comm
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Bsend_init(buf, count, datatype, dest, tag, comm, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*), intent(in) :: buf
      integer, intent(in) :: count, datatype, dest, tag, comm
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Recv(buf, count, datatype, source, tag, comm, status, ierror)
      import :: MPI_STATUS_SIZE
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*) :: buf
      integer, intent(in) :: count, datatype, source, tag, comm
      integer :: status(MPI_STATUS_SIZE)
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Irecv(buf, count, datatype, source, tag, comm, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*) :: buf
      integer, intent(in) :: count, datatype, source, tag, comm
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Recv_init(buf, count, datatype, source, tag, comm, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*) :: buf
      integer, intent(in) :: count, datatype, source, tag, comm
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, &
        recvtype, source, recvtag, comm, status, ierror)
      import :: MPI_STATUS_SIZE
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendcount, sendtype, dest, sendtag, recvcount, recvtype, source, recvtag, comm
      integer :: status(MPI_STATUS_SIZE)
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, &
        status, ierror)
      import :: MPI_STATUS_SIZE
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*) :: buf
      integer, intent(in) :: count, datatype, dest, sendtag, source, recvtag, comm
      integer :: status(MPI_STATUS_SIZE)
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Buffer_attach(buffer, size, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buffer
      type(*), dimension(*) :: buffer
      integer, intent(in) :: size
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Buffer_detach(buffer, size, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buffer
      type(*), dimension(*) :: buffer
      integer, intent(out) :: size
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Bcast(buffer, count, datatype, root, comm, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buffer
      type(*), dimension(*) :: buffer
      integer, intent(in) :: count, datatype, root, comm
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Ibcast(buffer, count, datatype, root, comm, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buffer
      type(*), dimension(*) :: buffer
      integer, intent(in) :: count, datatype, root, comm
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: count, datatype, op, root, comm
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: count, datatype, op, root, comm
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: count, datatype, op, comm
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: count, datatype, op, comm
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Scan(sendbuf, recvbuf, count, datatype, op, comm, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: count, datatype, op, comm
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Iscan(sendbuf, recvbuf, count, datatype, op, comm, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: count, datatype, op, comm
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Exscan(sendbuf, recvbuf, count, datatype, op, comm, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: count, datatype, op, comm
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Iexscan(sendbuf, recvbuf, count, datatype, op, comm, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: count, datatype, op, comm
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: recvcount, datatype, op, comm
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, &
        request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: recvcount, datatype, op, comm
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: datatype, op, comm
      integer, intent(in) :: recvcounts(*)
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Reduce_local(inbuf, inoutbuf, count, datatype, op, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: inbuf
      type(*), dimension(*), intent(in) :: inbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: inoutbuf
      type(*), dimension(*) :: inoutbuf
      integer, intent(in) :: count, datatype, op
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &
        ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendcount, sendtype, recvcount, recvtype, root, comm
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, &
        comm, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendcount, sendtype, recvcount, recvtype, root, comm
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, &
        comm, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendcount, sendtype, recvcount, recvtype, root, comm
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, &
        comm, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendcount, sendtype, recvcount, recvtype, root, comm
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &
        ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendcount, sendtype, recvcount, recvtype, comm
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &
        request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendcount, sendtype, recvcount, recvtype, comm
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &
        ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendcount, sendtype, recvcount, recvtype, comm
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &
        request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendcount, sendtype, recvcount, recvtype, comm
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, &
        root, comm, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendcount, sendtype, recvtype, root, comm
      integer, intent(in) :: recvcounts(*)
      integer, intent(in) :: displs(*)
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, &
        root, comm, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendtype, recvcount, recvtype, root, comm
      integer, intent(in) :: sendcounts(*)
      integer, intent(in) :: displs(*)
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, &
        recvtype, comm, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendcount, sendtype, recvtype, comm
      integer, intent(in) :: recvcounts(*)
      integer, intent(in) :: displs(*)
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, &
        rdispls, recvtype, comm, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendtype, recvtype, comm
      integer, intent(in) :: sendcounts(*)
      integer, intent(in) :: sdispls(*)
      integer, intent(in) :: recvcounts(*)
      integer, intent(in) :: rdispls(*)
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Get_address(location, address, ierror)
      import :: MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: location
      type(*), dimension(*), intent(in) :: location
      integer(kind=MPI_ADDRESS_KIND), intent(out) :: address
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Pack(inbuf, incount, datatype, outbuf, outsize, position, comm, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: inbuf
      type(*), dimension(*), intent(in) :: inbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: outbuf
      type(*), dimension(*) :: outbuf
      integer, intent(in) :: incount, datatype, outsize, comm
      integer, intent(inout) :: position
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Unpack(inbuf, insize, position, outbuf, outcount, datatype, comm, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: inbuf
      type(*), dimension(*), intent(in) :: inbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: outbuf
      type(*), dimension(*) :: outbuf
      integer, intent(in) :: insize, outcount, datatype, comm
      integer, intent(inout) :: position
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, &
        comm, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendcount, sendtype, recvcount, recvtype, comm
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, &
        recvtype, comm, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendcount, sendtype, recvcount, recvtype, comm
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, &
        comm, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendcount, sendtype, recvcount, recvtype, comm
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, &
        comm, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendcount, sendtype, recvcount, recvtype, comm
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, &
        recvtype, comm, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendcount, sendtype, recvtype, comm
      integer, intent(in) :: recvcounts(*)
      integer, intent(in) :: displs(*)
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, &
        displs, recvtype, comm, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendcount, sendtype, recvtype, comm
      integer, intent(in) :: recvcounts(*)
      integer, intent(in) :: displs(*)
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, &
        recvcounts, rdispls, recvtype, comm, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendtype, recvtype, comm
      integer, intent(in) :: sendcounts(*)
      integer, intent(in) :: sdispls(*)
      integer, intent(in) :: recvcounts(*)
      integer, intent(in) :: rdispls(*)
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, &
        recvcounts, rdispls, recvtype, comm, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendtype, recvtype, comm
      integer, intent(in) :: sendcounts(*)
      integer, intent(in) :: sdispls(*)
      integer, intent(in) :: recvcounts(*)
      integer, intent(in) :: rdispls(*)
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Bcast_init(buffer, count, datatype, root, comm, info, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buffer
      type(*), dimension(*) :: buffer
      integer, intent(in) :: count, datatype, root, comm, info
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Reduce_init(sendbuf, recvbuf, count, datatype, op, root, comm, info, request, &
        ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: count, datatype, op, root, comm, info
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Allreduce_init(sendbuf, recvbuf, count, datatype, op, comm, info, request, &
        ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: count, datatype, op, comm, info
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Scan_init(sendbuf, recvbuf, count, datatype, op, comm, info, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: count, datatype, op, comm, info
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Exscan_init(sendbuf, recvbuf, count, datatype, op, comm, info, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: count, datatype, op, comm, info
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Reduce_scatter_block_init(sendbuf, recvbuf, recvcount, datatype, op, comm, &
        info, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: recvcount, datatype, op, comm, info
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Reduce_scatter_init(sendbuf, recvbuf, recvcounts, datatype, op, comm, info, &
        request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: datatype, op, comm, info
      integer, intent(in) :: recvcounts(*)
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Gather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, &
        comm, info, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendcount, sendtype, recvcount, recvtype, root, comm, info
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Scatter_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, &
        comm, info, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendcount, sendtype, recvcount, recvtype, root, comm, info
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Allgather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, &
        comm, info, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendcount, sendtype, recvcount, recvtype, comm, info
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, &
        comm, info, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendcount, sendtype, recvcount, recvtype, comm, info
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Gatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, &
        recvtype, root, comm, info, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendcount, sendtype, recvtype, root, comm, info
      integer, intent(in) :: recvcounts(*)
      integer, intent(in) :: displs(*)
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Scatterv_init(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, &
        recvtype, root, comm, info, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendtype, recvcount, recvtype, root, comm, info
      integer, intent(in) :: sendcounts(*)
      integer, intent(in) :: displs(*)
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Allgatherv_init(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, &
        recvtype, comm, info, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendcount, sendtype, recvtype, comm, info
      integer, intent(in) :: recvcounts(*)
      integer, intent(in) :: displs(*)
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, &
        rdispls, recvtype, comm, info, request, ierror)
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*), intent(in) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer, intent(in) :: sendtype, recvtype, comm, info
      integer, intent(in) :: sendcounts(*)
      integer, intent(in) :: sdispls(*)
      integer, intent(in) :: recvcounts(*)
      integer, intent(in) :: rdispls(*)
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Psend_init(buf, partitions, count, datatype, dest, tag, comm, info, request, &
        ierror)
      import :: MPI_COUNT_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*), intent(in) :: buf
      integer, intent(in) :: partitions, datatype, dest, tag, comm, info
      integer(kind=MPI_COUNT_KIND), intent(in) :: count
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
    subroutine MPI_Precv_init(buf, partitions, count, datatype, source, tag, comm, info, request, &
        ierror)
      import :: MPI_COUNT_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*) :: buf
      integer, intent(in) :: partitions, datatype, source, tag, comm, info
      integer(kind=MPI_COUNT_KIND), intent(in) :: count
      integer, intent(out) :: request
      integer, intent(out) :: ierror
    end subroutine
  end interface
  ! The choice-buffer routines of MPI-IO and one-sided communication, in files of their own.
  include 'mpi_iface_io.inc'
  include 'mpi_iface_rma.inc'
end module mpi
