! tests/fortran/fcheck_mod.f90 — the checks every Fortran test makes: check(cond, what) ends the
! job naming the program, the rank and the check; ok(ierr, what) checks a call's MPI_SUCCESS.
module fcheck
  use mpi
  implicit none
  character(len=32) :: fcheck_program = 'ftest' ! each program sets its name for the messages
contains
  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    integer :: rank, ierr
    if (.not. cond) then
      call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
      write (0, '(2a,i0,2a)') trim(fcheck_program), ': rank ', rank, ': check failed: ', what
      flush (0) ! gfortran buffers unit 0 when it is not a terminal; MPI_Abort does not return
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end subroutine check

  subroutine ok(ierr, what)
    integer, intent(in) :: ierr
    character(len=*), intent(in) :: what
    call check(ierr == MPI_SUCCESS, what)
  end subroutine ok
end module fcheck
