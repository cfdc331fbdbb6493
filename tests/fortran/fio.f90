! tests/fortran/fio.f90 — MPI-IO and error handlers with Fortran procedures, from Fortran with
! `use mpi`, at 1 or more ranks: File_write_at/read_at (blocking and non-blocking) through the
! default view and through a view with MPI_INTEGER as the etype, File_get_size, get_view,
! get_byte_offset, seek/get_position, atomicity, the default file handler (MPI_ERRORS_RETURN), and
! handlers made by Comm_create_errhandler and File_create_errhandler from Fortran subroutines,
! which get the integer handle and the code, and after which the failing call returns the code.
module fio_util
  use fcheck
  implicit none
  ! what the last handler call saw
  integer :: comm_calls = 0, comm_seen = -1, comm_code = -1
  integer :: file_calls = 0, file_seen = -1, file_code = -1
end module fio_util

! SUBROUTINE HANDLER(COMM, ERROR_CODE) and SUBROUTINE HANDLER(FILE, ERROR_CODE).
subroutine comm_handler(comm, code)
  use fio_util
  implicit none
  integer :: comm, code
  comm_calls = comm_calls + 1
  comm_seen = comm
  comm_code = code
end subroutine comm_handler

subroutine file_handler(file, code)
  use fio_util
  implicit none
  integer :: file, code
  file_calls = file_calls + 1
  file_seen = file
  file_code = code
end subroutine file_handler

program fio
  use fio_util
  implicit none
  external :: comm_handler, file_handler
  integer, parameter :: n = 10
  integer :: rank, nranks, ierr, i, other, cls, amode, pid
  integer :: comm, eh, eh2, qeh, feh, fh, fh2, req, cnt, etype, ftype
  integer :: status(MPI_STATUS_SIZE)
  integer :: wbuf(n), rbuf(n)
  integer(kind=MPI_OFFSET_KIND) :: off, fsize, disp, pos
  integer(kind=MPI_ADDRESS_KIND) :: extent
  logical :: flag
  character(len=64) :: fname
  character(len=MPI_MAX_DATAREP_STRING) :: datarep

  call MPI_Init(ierr)
  fcheck_program = 'fio'
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  other = mod(rank + 1, nranks)

  ! ---- a communicator handler that is a Fortran subroutine ----
  call MPI_Comm_create_errhandler(comm_handler, eh, ierr)
  call ok(ierr, 'Comm_create_errhandler')
  ! the same procedure again: another handler (the binding reuses its slot)
  call MPI_Comm_create_errhandler(comm_handler, eh2, ierr)
  call ok(ierr, 'Comm_create_errhandler, the same procedure again')
  call check(eh2 /= eh, 'two creations give two handlers')
  call MPI_Errhandler_free(eh2, ierr)
  call check(eh2 == MPI_ERRHANDLER_NULL, 'Errhandler_free sets MPI_ERRHANDLER_NULL')
  call MPI_Comm_dup(MPI_COMM_WORLD, comm, ierr)
  call MPI_Comm_set_errhandler(comm, eh, ierr)
  call ok(ierr, 'Comm_set_errhandler')
  call MPI_Comm_get_errhandler(comm, qeh, ierr)
  call check(qeh == eh, 'Comm_get_errhandler returns the handler set')
  call MPI_Errhandler_free(qeh, ierr)
  call MPI_Errhandler_free(eh, ierr) ! the communicator keeps it
  ! a send to a rank that does not exist: the handler gets comm's integer and the code, and
  ! returning from it makes the send return that code
  wbuf = 0
  call MPI_Send(wbuf, 1, MPI_INTEGER, nranks, 0, comm, ierr)
  call check(comm_calls == 1, 'the Fortran handler is called once for the bad send')
  call check(comm_seen == comm, 'the handler gets the communicator''s integer handle')
  call check(ierr /= MPI_SUCCESS .and. ierr == comm_code, 'the send returns the handler''s code')
  call MPI_Error_class(ierr, cls, i)
  call check(cls == MPI_ERR_RANK, 'the bad send''s code is of class MPI_ERR_RANK')
  call MPI_Comm_call_errhandler(comm, MPI_ERR_OTHER, ierr)
  call check(comm_calls == 2 .and. comm_code == MPI_ERR_OTHER .and. comm_seen == comm, &
             'Comm_call_errhandler calls the Fortran handler with the code')

  ! ---- a file written with File_write_at and read back ----
  pid = 0
  if (rank == 0) pid = getpid()
  call MPI_Bcast(pid, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  write (fname, '(a,i0,a)') 'fio_test_', pid, '.dat'
  amode = ior(MPI_MODE_CREATE, MPI_MODE_RDWR)
  call MPI_File_open(MPI_COMM_WORLD, fname, amode, MPI_INFO_NULL, fh, ierr)
  call ok(ierr, 'File_open')
  call check(fh /= MPI_FILE_NULL, 'File_open gives a handle')
  call MPI_File_get_amode(fh, i, ierr)
  call check(i == amode, 'File_get_amode')
  call MPI_File_set_size(fh, 0_MPI_OFFSET_KIND, ierr)
  call ok(ierr, 'File_set_size')
  do i = 1, n
    wbuf(i) = 1000 * rank + i
  end do
  off = int(rank, MPI_OFFSET_KIND) * n * 4
  call MPI_File_write_at(fh, off, wbuf, n, MPI_INTEGER, status, ierr)
  call ok(ierr, 'File_write_at')
  call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
  call check(cnt == n, 'File_write_at''s status counts the integers written')
  call MPI_File_sync(fh, ierr)
  call ok(ierr, 'File_sync')
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_File_sync(fh, ierr)
  call MPI_File_get_size(fh, fsize, ierr)
  call ok(ierr, 'File_get_size')
  call check(fsize == int(nranks, MPI_OFFSET_KIND) * n * 4, 'File_get_size: every rank''s block')
  rbuf = -1
  off = int(other, MPI_OFFSET_KIND) * n * 4
  call MPI_File_read_at(fh, off, rbuf, n, MPI_INTEGER, status, ierr)
  call ok(ierr, 'File_read_at')
  call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
  call check(cnt == n, 'File_read_at''s status counts the integers read')
  do i = 1, n
    call check(rbuf(i) == 1000 * other + i, 'File_read_at reads the next rank''s block')
  end do
  ! past the end: nothing read
  call MPI_File_read_at(fh, fsize, rbuf, n, MPI_INTEGER, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
  call check(ierr == MPI_SUCCESS .and. cnt == 0, 'File_read_at at the end reads nothing')
  ! non-blocking, with MPI_STATUS_IGNORE
  rbuf = -1
  call MPI_File_iread_at(fh, off, rbuf, n, MPI_INTEGER, req, ierr)
  call ok(ierr, 'File_iread_at')
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call check(req == MPI_REQUEST_NULL .and. rbuf(n) == 1000 * other + n, 'File_iread_at + Wait')

  ! ---- a view of integers: offsets count MPI_INTEGERs ----
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'native', &
                         MPI_INFO_NULL, ierr)
  call ok(ierr, 'File_set_view')
  call MPI_File_get_view(fh, disp, etype, ftype, datarep, ierr)
  call ok(ierr, 'File_get_view')
  call check(disp == 0 .and. etype == MPI_INTEGER .and. ftype == MPI_INTEGER, &
             'File_get_view: displacement, etype and filetype')
  call check(datarep == 'native', 'File_get_view: datarep, blank-padded')
  call MPI_File_get_byte_offset(fh, 3_MPI_OFFSET_KIND, disp, ierr)
  call check(ierr == MPI_SUCCESS .and. disp == 12, 'File_get_byte_offset of 3 integers')
  call MPI_File_get_type_extent(fh, MPI_INTEGER, extent, ierr)
  call check(ierr == MPI_SUCCESS .and. extent == 4, 'File_get_type_extent(MPI_INTEGER)')
  rbuf = -1
  call MPI_File_read_at(fh, int(other * n + 2, MPI_OFFSET_KIND), rbuf, 3, MPI_INTEGER, status, ierr)
  call ok(ierr, 'File_read_at through the integer view')
  call check(rbuf(1) == 1000 * other + 3 .and. rbuf(3) == 1000 * other + 5 .and. rbuf(4) == -1, &
             'File_read_at through the view: offsets in integers')
  ! the individual file pointer: seek, read, position
  call MPI_File_seek(fh, int(other * n, MPI_OFFSET_KIND), MPI_SEEK_SET, ierr)
  call ok(ierr, 'File_seek')
  rbuf = -1
  call MPI_File_read(fh, rbuf, n, MPI_INTEGER, status, ierr)
  call ok(ierr, 'File_read')
  call check(rbuf(1) == 1000 * other + 1 .and. rbuf(n) == 1000 * other + n, 'File_read after seek')
  call MPI_File_get_position(fh, pos, ierr)
  call check(pos == int(other * n + n, MPI_OFFSET_KIND), 'File_get_position after the read')
  call MPI_File_set_atomicity(fh, .true., ierr)
  call MPI_File_get_atomicity(fh, flag, ierr)
  call check(ierr == MPI_SUCCESS .and. flag, 'File_set/get_atomicity')
  call MPI_File_set_atomicity(fh, .false., ierr)

  ! ---- a file handler that is a Fortran subroutine ----
  call MPI_File_get_errhandler(fh, qeh, ierr)
  call check(qeh == MPI_ERRORS_RETURN, 'a new file has MPI_ERRORS_RETURN')
  call MPI_Errhandler_free(qeh, ierr)
  call MPI_File_create_errhandler(file_handler, feh, ierr)
  call ok(ierr, 'File_create_errhandler')
  call MPI_File_set_errhandler(fh, feh, ierr)
  call ok(ierr, 'File_set_errhandler')
  call MPI_File_write_at(fh, -1_MPI_OFFSET_KIND, wbuf, 1, MPI_INTEGER, status, ierr)
  call check(file_calls == 1, 'the Fortran file handler is called for a negative offset')
  call check(file_seen == fh, 'the file handler gets the file''s integer handle')
  call check(ierr /= MPI_SUCCESS .and. ierr == file_code, 'the write returns the handler''s code')
  call MPI_File_call_errhandler(fh, MPI_ERR_IO, ierr)
  call check(file_calls == 2 .and. file_code == MPI_ERR_IO, 'File_call_errhandler')
  call MPI_Errhandler_free(feh, ierr)

  call MPI_File_close(fh, ierr)
  call ok(ierr, 'File_close')
  call check(fh == MPI_FILE_NULL, 'File_close sets MPI_FILE_NULL')
  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  ! ---- errors outside a file go through MPI_FILE_NULL's handler, MPI_ERRORS_RETURN ----
  call MPI_File_open(MPI_COMM_SELF, 'fio_no_such_dir/none.dat', MPI_MODE_RDONLY, MPI_INFO_NULL, &
                     fh2, ierr)
  call check(ierr /= MPI_SUCCESS .and. fh2 == MPI_FILE_NULL, 'File_open of a missing file fails')
  call MPI_Error_class(ierr, cls, i)
  call check(cls == MPI_ERR_NO_SUCH_FILE, 'a missing file is MPI_ERR_NO_SUCH_FILE')

  if (rank == 0) then
    call MPI_File_delete(fname, MPI_INFO_NULL, ierr)
    call ok(ierr, 'File_delete')
  end if
  call MPI_Comm_free(comm, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) write (*, '(a,i0,a)') 'fio: all checks passed on ', nranks, ' ranks'
  call MPI_Finalize(ierr)
end program fio
