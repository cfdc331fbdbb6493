! tests/fortran/fmpi4.f90 — MPI 4.0 from Fortran with `use mpi`: a persistent collective started
! twice, partitioned communication around a ring, and a communicator made from a session's pset.
program fmpi4
  use fcheck
  implicit none
  integer, parameter :: nparts = 4, per = 8
  integer :: ierr, rank, nproc, req, sreq, rreq, i, round, n, plen, session, group, comm, sz
  integer :: sbuf(nparts * per), rbuf(nparts * per), val, total
  ! Buffers of persistent and partitioned operations are read and written outside the calls that
  ! take them (MPI_ASYNC_PROTECTS_NONBLOCKING is .FALSE.): VOLATILE keeps the compiler's copies honest.
  volatile :: sbuf, rbuf, val, total
  integer(kind=MPI_COUNT_KIND) :: cnt
  logical :: flag
  character(len=64) :: pset

  call MPI_Init(ierr)
  fcheck_program = 'fmpi4'
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)

  ! A persistent Allreduce, started twice with new data; the request stays allocated between.
  call MPI_Allreduce_init(val, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &
                          req, ierr)
  call check(ierr == MPI_SUCCESS .and. req /= MPI_REQUEST_NULL, 'Allreduce_init gives a request')
  do round = 1, 2
    val = rank * round
    call MPI_Start(req, ierr)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    call check(total == round * nproc * (nproc - 1) / 2, 'a persistent Allreduce round')
    call check(req /= MPI_REQUEST_NULL, 'a persistent request stays after Wait')
  end do
  call MPI_Request_free(req, ierr)
  call check(req == MPI_REQUEST_NULL, 'Request_free of the persistent request')

  ! Partitioned: each rank sends nparts partitions of per integers to its right neighbour.
  sbuf = [(rank * 1000 + i, i = 1, nparts * per)]
  rbuf = -1
  cnt = per
  call MPI_Precv_init(rbuf, nparts, cnt, MPI_INTEGER, mod(rank + nproc - 1, nproc), 5, &
                      MPI_COMM_WORLD, MPI_INFO_NULL, rreq, ierr)
  call MPI_Psend_init(sbuf, nparts, cnt, MPI_INTEGER, mod(rank + 1, nproc), 5, MPI_COMM_WORLD, &
                      MPI_INFO_NULL, sreq, ierr)
  call MPI_Start(rreq, ierr)
  call MPI_Start(sreq, ierr)
  do i = nparts - 1, 0, -1
    call MPI_Pready(i, sreq, ierr)
  end do
  call MPI_Wait(sreq, MPI_STATUS_IGNORE, ierr)
  call MPI_Wait(rreq, MPI_STATUS_IGNORE, ierr)
  call MPI_Parrived(rreq, 0, flag, ierr)
  call check(flag, 'Parrived after the receive completed')
  n = mod(rank + nproc - 1, nproc)
  call check(all(rbuf == [(n * 1000 + i, i = 1, nparts * per)]), 'partitioned data arrive')
  call MPI_Request_free(sreq, ierr)
  call MPI_Request_free(rreq, ierr)

  ! Sessions: mpi://WORLD as a communicator.
  call MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, session, ierr)
  call check(ierr == MPI_SUCCESS .and. session /= MPI_SESSION_NULL, 'Session_init')
  call MPI_Session_get_num_psets(session, MPI_INFO_NULL, n, ierr)
  call check(n >= 2, 'a session has at least two psets')
  plen = len(pset)
  pset = ' '
  call MPI_Session_get_nth_pset(session, MPI_INFO_NULL, 0, plen, pset, ierr)
  call check(pset == 'mpi://WORLD' .and. plen == len_trim('mpi://WORLD') + 1, 'the first pset')
  call MPI_Group_from_session_pset(session, 'mpi://WORLD', group, ierr)
  call MPI_Comm_create_from_group(group, 'credo.fmpi4', MPI_INFO_NULL, MPI_ERRORS_RETURN, comm, &
                                  ierr)
  call MPI_Comm_size(comm, sz, ierr)
  call check(sz == nproc, 'a communicator from mpi://WORLD has every rank')
  call MPI_Allreduce(1, n, 1, MPI_INTEGER, MPI_SUM, comm, ierr)
  call check(n == nproc, 'an Allreduce over the session''s communicator')
  call MPI_Comm_free(comm, ierr)
  call MPI_Group_free(group, ierr)
  call MPI_Session_finalize(session, ierr)
  call check(ierr == MPI_SUCCESS .and. session == MPI_SESSION_NULL, 'Session_finalize')

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) write (*, '(a,i0,a)') 'fmpi4: all checks passed on ', nproc, ' ranks'
  call MPI_Finalize(ierr)
end program fmpi4
