! tests/fortran/ftest_mpi.f90 — an MPI program in free-form Fortran with `use mpi`: point-to-point,
! requests, collectives, derived types, a Fortran reduction operator, topologies and error codes.
module ftest_util
  use fcheck
  implicit none
  integer :: deletes = 0
  integer(kind=MPI_ADDRESS_KIND) :: last_deleted = 0
end module ftest_util

! A user reduction: the largest absolute value. Fortran passes DATATYPE as an integer handle.
subroutine max_abs(invec, inoutvec, len, datatype)
  use ftest_util
  implicit none
  integer :: len, datatype, i
  integer :: invec(len), inoutvec(len)
  call check(datatype == MPI_INTEGER, 'user op gets MPI_INTEGER as its datatype')
  do i = 1, len
    if (abs(invec(i)) > abs(inoutvec(i))) inoutvec(i) = invec(i)
  end do
end subroutine max_abs

! Attribute callbacks: the copy adds 1 to the value; the delete counts its calls in a module variable.
subroutine copy_plus_one(oldcomm, keyval, extra, valin, valout, flag, ierr)
  use ftest_util
  implicit none
  integer :: oldcomm, keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout
  logical :: flag
  call check(extra == 77, 'the copy callback gets the keyval''s extra_state')
  valout = valin + 1
  flag = .true.
  ierr = MPI_SUCCESS
end subroutine copy_plus_one

subroutine count_deletes(comm, keyval, val, extra, ierr)
  use ftest_util
  implicit none
  integer :: comm, keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: val, extra
  deletes = deletes + 1
  last_deleted = val
  ierr = MPI_SUCCESS
end subroutine count_deletes

program ftest_mpi
  use ftest_util
  implicit none
  external :: max_abs, copy_plus_one, count_deletes
  integer :: keyval
  integer(kind=MPI_ADDRESS_KIND) :: extra, aval
  integer :: ierr, rank, nproc, left, right, i, j, k, n, same, idx, color
  integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 4), reqs(4)
  integer :: ibuf(100), ibuf2(100), isum, imax, vtype, stype, op, sub, cart, src, dst
  integer, allocatable :: vals(:), counts(:), displs(:)
  integer(kind=MPI_ADDRESS_KIND) :: addr, tag_ub, lb, extent
  double precision :: dbuf(50), dsum, t0, t1, dpair(2), dpair_out(2)
  real :: rpair(2)
  integer :: ipair(2)
  real :: a(4, 5)
  character(len=16) :: word
  character(len=MPI_MAX_PROCESSOR_NAME) :: host
  character(len=MPI_MAX_ERROR_STRING) :: errstr
  logical :: flag, periods(1)
  integer :: dims(1), blens(1), types(1)
  integer(kind=MPI_ADDRESS_KIND) :: disps(1)

  call MPI_Init(ierr)
  fcheck_program = 'ftest_mpi'
  call check(ierr == MPI_SUCCESS, 'MPI_Init returns MPI_SUCCESS')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  call check(nproc >= 2, 'at least 2 ranks')
  right = mod(rank + 1, nproc)
  left = mod(rank + nproc - 1, nproc)

  ! The module's constants are the C library's objects.
  call credo_ftest_handles(MPI_COMM_WORLD, MPI_COMM_SELF, MPI_INTEGER, MPI_DOUBLE_PRECISION, &
                           MPI_SUM, MPI_ERRORS_RETURN, MPI_STATUS_SIZE, MPI_STATUS_IGNORE, same)
  call check(same == 1, 'predefined handles and MPI_STATUS_IGNORE agree with C')

  ! Ring of integers with a status; then of doubles with Sendrecv.
  ibuf = [(rank * 1000 + i, i = 1, 100)]
  status(MPI_ERROR) = 12345
  if (mod(rank, 2) == 0) then
    call MPI_Send(ibuf, 100, MPI_INTEGER, right, 7, MPI_COMM_WORLD, ierr)
    call MPI_Recv(ibuf2, 100, MPI_INTEGER, left, 7, MPI_COMM_WORLD, status, ierr)
  else
    call MPI_Recv(ibuf2, 100, MPI_INTEGER, left, 7, MPI_COMM_WORLD, status, ierr)
    call MPI_Send(ibuf, 100, MPI_INTEGER, right, 7, MPI_COMM_WORLD, ierr)
  end if
  call check(status(MPI_SOURCE) == left .and. status(MPI_TAG) == 7, 'status names source and tag')
  call check(status(MPI_ERROR) == 12345, 'a successful receive leaves MPI_ERROR as it was')
  call MPI_Get_count(status, MPI_INTEGER, n, ierr)
  call check(n == 100, 'MPI_Get_count gives 100 integers')
  call check(all(ibuf2 == [(left * 1000 + i, i = 1, 100)]), 'ring integers arrive intact')

  dbuf = [(rank + i * 0.5d0, i = 1, 50)]
  call MPI_Sendrecv_replace(dbuf, 50, MPI_DOUBLE_PRECISION, right, 3, left, 3, MPI_COMM_WORLD, &
                            MPI_STATUS_IGNORE, ierr)
  call check(all(dbuf == [(left + i * 0.5d0, i = 1, 50)]), 'Sendrecv_replace of doubles')

  ! Non-blocking both ways, Waitall with statuses; the requests become MPI_REQUEST_NULL.
  call MPI_Irecv(ibuf2, 10, MPI_INTEGER, left, 11, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Irecv(dbuf, 5, MPI_DOUBLE_PRECISION, right, 12, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Isend(ibuf, 10, MPI_INTEGER, right, 11, MPI_COMM_WORLD, reqs(3), ierr)
  dbuf(41:45) = -rank
  call MPI_Isend(dbuf(41), 5, MPI_DOUBLE_PRECISION, left, 12, MPI_COMM_WORLD, reqs(4), ierr)
  call MPI_Waitall(4, reqs, statuses, ierr)
  call check(ierr == MPI_SUCCESS, 'Waitall succeeds')
  call check(all(reqs == MPI_REQUEST_NULL), 'Waitall frees the requests')
  call check(statuses(MPI_SOURCE, 1) == left .and. statuses(MPI_SOURCE, 2) == right, &
             'Waitall statuses name the sources')
  call check(statuses(MPI_TAG, 2) == 12, 'Waitall status carries the tag')
  call check(all(ibuf2(1:10) == [(left * 1000 + i, i = 1, 10)]), 'Irecv of integers')
  call check(all(dbuf(1:5) == -right), 'Irecv of doubles')

  ! Waitany's index is 1-based.
  reqs(1) = MPI_REQUEST_NULL
  call MPI_Irecv(ibuf2, 1, MPI_INTEGER, left, 13, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Send(rank, 1, MPI_INTEGER, right, 13, MPI_COMM_WORLD, ierr)
  call MPI_Waitany(2, reqs, idx, status, ierr)
  call check(idx == 2 .and. ibuf2(1) == left, 'Waitany returns the 1-based index')

  ! Probe, then a message from MPI_BOTTOM through an absolute struct type.
  if (rank == 0) then
    ibuf(1:3) = [4, 5, 6]
    call MPI_Get_address(ibuf, addr, ierr)
    blens(1) = 3
    disps(1) = addr
    types(1) = MPI_INTEGER
    call MPI_Type_create_struct(1, blens, disps, types, stype, ierr)
    call MPI_Type_commit(stype, ierr)
    call MPI_Send(MPI_BOTTOM, 1, stype, 1, 21, MPI_COMM_WORLD, ierr)
    call MPI_Type_free(stype, ierr)
    call check(stype == MPI_DATATYPE_NULL, 'Type_free sets the handle to MPI_DATATYPE_NULL')
  else if (rank == 1) then
    call MPI_Probe(0, 21, MPI_COMM_WORLD, status, ierr)
    call MPI_Get_count(status, MPI_INTEGER, n, ierr)
    call check(n == 3, 'Probe sees 3 integers')
    call MPI_Iprobe(0, 21, MPI_COMM_WORLD, flag, MPI_STATUS_IGNORE, ierr)
    call check(flag, 'Iprobe finds the message (LOGICAL true)')
    call MPI_Recv(ibuf2, 3, MPI_INTEGER, 0, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call check(all(ibuf2(1:3) == [4, 5, 6]), 'a send from MPI_BOTTOM arrives')
  end if
  call MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, flag, status, ierr)
  call check(.not. flag, 'Iprobe without a message gives .false.')

  ! Collectives.
  call MPI_Allreduce(rank + 1, isum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(isum == nproc * (nproc + 1) / 2, 'Allreduce MPI_SUM of integers')
  dsum = 0.25d0 * rank
  call MPI_Allreduce(MPI_IN_PLACE, dsum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(abs(dsum - 0.125d0 * nproc * (nproc - 1)) < 1d-12, 'Allreduce with MPI_IN_PLACE')
  call MPI_Reduce(rank, imax, 1, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) call check(imax == nproc - 1, 'Reduce MPI_MAX at the root')
  word = ' '
  if (rank == 0) word = 'credo fortran'
  call MPI_Bcast(word, 16, MPI_CHARACTER, 0, MPI_COMM_WORLD, ierr)
  call check(word == 'credo fortran', 'Bcast of a CHARACTER string')
  allocate (vals(nproc), counts(nproc), displs(nproc))
  call MPI_Gather(rank * 2, 1, MPI_INTEGER, vals, 1, MPI_INTEGER, nproc - 1, MPI_COMM_WORLD, ierr)
  if (rank == nproc - 1) call check(all(vals == [(2 * i, i = 0, nproc - 1)]), 'Gather')
  call MPI_Scatter(vals, 1, MPI_INTEGER, n, 1, MPI_INTEGER, nproc - 1, MPI_COMM_WORLD, ierr)
  call check(n == 2 * rank, 'Scatter')
  vals = [(rank * 100 + i, i = 0, nproc - 1)]
  call MPI_Alltoall(MPI_IN_PLACE, 1, MPI_INTEGER, vals, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check(all(vals == [(i * 100 + rank, i = 0, nproc - 1)]), 'Alltoall in place')
  counts = [(i + 1, i = 0, nproc - 1)]
  displs(1) = 0
  do i = 2, nproc
    displs(i) = displs(i - 1) + counts(i - 1)
  end do
  ibuf(1:rank + 1) = rank
  call MPI_Allgatherv(ibuf, rank + 1, MPI_INTEGER, ibuf2, counts, displs, MPI_INTEGER, &
                      MPI_COMM_WORLD, ierr)
  k = 0
  do i = 0, nproc - 1
    do j = 1, i + 1
      k = k + 1
      call check(ibuf2(k) == i, 'Allgatherv')
    end do
  end do
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  deallocate (vals, counts, displs)

  ! MAXLOC/MINLOC on Fortran's pair types (the index has the value's type in 2REAL, 2DOUBLE).
  dpair = [dble(mod(rank * 7, nproc)), dble(rank)]
  call MPI_Allreduce(dpair, dpair_out, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
  call check(dpair_out(1) == dble(nproc - 1), 'MAXLOC of MPI_2DOUBLE_PRECISION: the value')
  call check(mod(nint(dpair_out(2)) * 7, nproc) == nproc - 1, 'MAXLOC of MPI_2DOUBLE_PRECISION: the index')
  rpair = [real(10 - rank), real(rank)]
  call MPI_Allreduce(MPI_IN_PLACE, rpair, 1, MPI_2REAL, MPI_MINLOC, MPI_COMM_WORLD, ierr)
  call check(rpair(1) == real(11 - nproc) .and. rpair(2) == real(nproc - 1), 'MINLOC of MPI_2REAL')
  ipair = [5, rank]
  call MPI_Allreduce(MPI_IN_PLACE, ipair, 1, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
  call check(ipair(1) == 5 .and. ipair(2) == 0, 'MAXLOC of MPI_2INTEGER: a tie keeps the lower index')

  ! A Fortran user operator.
  call MPI_Op_create(max_abs, .true., op, ierr)
  n = rank
  if (mod(rank, 2) == 1) n = -rank
  call MPI_Allreduce(n, imax, 1, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  k = nproc - 1
  if (mod(k, 2) == 1) k = -k
  call check(imax == k, 'Allreduce with a Fortran MPI_Op_create operator')
  call MPI_Op_free(op, ierr)
  call check(op == MPI_OP_NULL, 'Op_free sets the handle to MPI_OP_NULL')

  ! A row of a column-major array through a vector type.
  a = reshape([(real(rank * 100 + i), i = 1, 20)], [4, 5])
  call MPI_Type_vector(5, 1, 4, MPI_REAL, vtype, ierr)
  call MPI_Type_commit(vtype, ierr)
  call MPI_Type_get_extent(vtype, lb, extent, ierr)
  call check(lb == 0 .and. extent == 17 * 4, 'Type_get_extent of the vector')
  call MPI_Sendrecv(a(2, 1), 1, vtype, right, 5, a(3, 1), 1, vtype, left, 5, MPI_COMM_WORLD, &
                    status, ierr)
  call check(all(a(3, :) == [(real(left * 100 + 2 + 4 * j), j = 0, 4)]), 'a row through Type_vector')
  call MPI_Type_extent(vtype, k, ierr)
  call check(k == 17 * 4, 'the MPI-1 MPI_TYPE_EXTENT')
  call MPI_Get_address(a(1, 1), lb, ierr)
  call MPI_Get_address(a(1, 2), extent, ierr)
  call check(MPI_Aint_diff(extent, lb) == 16 .and. MPI_Aint_add(lb, 16_MPI_ADDRESS_KIND) == extent, &
             'MPI_AINT_DIFF and MPI_AINT_ADD')
  call MPI_Type_free(vtype, ierr)

  ! Communicators and a periodic ring topology.
  color = mod(rank, 2)
  call MPI_Comm_split(MPI_COMM_WORLD, color, rank, sub, ierr)
  call MPI_Comm_size(sub, n, ierr)
  call check(n == (nproc + 1 - color) / 2, 'Comm_split sizes')
  call MPI_Comm_free(sub, ierr)
  call check(sub == MPI_COMM_NULL, 'Comm_free sets the handle to MPI_COMM_NULL')
  dims(1) = nproc
  periods(1) = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., cart, ierr)
  call MPI_Cart_shift(cart, 0, 1, src, dst, ierr)
  call check(src == left .and. dst == right, 'Cart_shift on a periodic ring')
  ipair = -1
  call MPI_Neighbor_allgather(rank, 1, MPI_INTEGER, ipair, 1, MPI_INTEGER, cart, ierr)
  call check(ipair(1) == left .and. ipair(2) == right, 'Neighbor_allgather on the ring')
  call MPI_Comm_free(cart, ierr)

  ! Attribute caching with Fortran callbacks: Comm_dup runs the copy, Comm_free the delete.
  extra = 77
  call MPI_Comm_create_keyval(copy_plus_one, count_deletes, keyval, extra, ierr)
  aval = 2_MPI_ADDRESS_KIND**40 + 5
  call MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, aval, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, sub, ierr)
  call MPI_Comm_get_attr(sub, keyval, aval, flag, ierr)
  call check(flag .and. aval == 2_MPI_ADDRESS_KIND**40 + 6, 'a Fortran copy callback on Comm_dup')
  call MPI_Comm_free(sub, ierr)
  call check(deletes == 1 .and. last_deleted == 2_MPI_ADDRESS_KIND**40 + 6, &
             'a Fortran delete callback on Comm_free')
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval, ierr)
  call check(deletes == 2, 'a Fortran delete callback on Comm_delete_attr')
  call MPI_Comm_free_keyval(keyval, ierr)
  call check(keyval == MPI_KEYVAL_INVALID, 'Comm_free_keyval resets the keyval')

  ! Attributes, names, time.
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, tag_ub, flag, ierr)
  call check(flag .and. tag_ub >= 32767, 'MPI_TAG_UB is set and at least 32767')
  call MPI_Get_processor_name(host, n, ierr)
  call check(n > 0 .and. len_trim(host) == n, 'processor name and its length')
  t0 = MPI_Wtime()
  t1 = MPI_Wtime()
  call check(t1 >= t0 .and. MPI_Wtick() > 0d0, 'MPI_Wtime and MPI_Wtick')

  ! Errors come back as codes under MPI_ERRORS_RETURN.
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Send(ibuf, 1, MPI_INTEGER, nproc + 5, 0, MPI_COMM_WORLD, ierr)
  call check(ierr /= MPI_SUCCESS, 'a send to a rank out of range fails')
  call MPI_Error_class(ierr, k, ierr)
  call check(k == MPI_ERR_RANK, 'its error class is MPI_ERR_RANK')
  call MPI_Error_string(MPI_ERR_RANK, errstr, n, ierr)
  call check(n > 0 .and. len_trim(errstr) == n, 'Error_string gives a message')

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) write (*, '(a,i0,a)') 'ftest_mpi: all checks passed on ', nproc, ' ranks'
  call MPI_Finalize(ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Finalize returns MPI_SUCCESS')
end program ftest_mpi
