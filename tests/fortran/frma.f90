! tests/fortran/frma.f90 — one-sided communication and generalized requests from Fortran, with
! `use mpi`, at 2 to 4 ranks: Put/Get/Accumulate between fences, window attributes, names, groups
! and error handlers, general active target (post/start/complete/test), passive target (lock,
! lock_all, flush, Fetch_and_op, Compare_and_swap, Get_accumulate and the request forms), dynamic
! windows, Win_allocate and Win_allocate_shared memory reached through c_f_pointer, and a
! generalized request with Fortran query, free and cancel procedures.
module frma_util
  use fcheck
  implicit none
  integer :: queries = 0, frees = 0, cancels = 0
  logical :: last_complete = .true.
end module frma_util

! The generalized request's procedures. EXTRA_STATE is the program's variable: the query reports
! it as the status' source, the free procedure adds 1000 to it.
subroutine greq_query(extra_state, status, ierr)
  use frma_util
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra_state
  integer :: status(MPI_STATUS_SIZE), ierr
  queries = queries + 1
  status(MPI_SOURCE) = int(extra_state)
  status(MPI_TAG) = 42
  call MPI_Status_set_elements(status, MPI_INTEGER, 3, ierr)
  call ok(ierr, 'MPI_Status_set_elements in the query procedure')
  call MPI_Status_set_cancelled(status, .false., ierr)
  ierr = MPI_SUCCESS
end subroutine greq_query

subroutine greq_free(extra_state, ierr)
  use frma_util
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra_state
  integer :: ierr
  frees = frees + 1
  extra_state = extra_state + 1000
  ierr = MPI_SUCCESS
end subroutine greq_free

subroutine greq_cancel(extra_state, complete, ierr)
  use frma_util
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra_state
  logical :: complete
  integer :: ierr
  cancels = cancels + 1
  last_complete = complete
  ierr = MPI_SUCCESS
end subroutine greq_cancel

program frma
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  use frma_util
  implicit none
  external :: greq_query, greq_free, greq_cancel
  integer, parameter :: ak = MPI_ADDRESS_KIND
  integer :: ierr, rank, nprocs, left, right, win, i, n, res, grp, wgrp, eh
  integer :: req, req2, old, one, cmp, mine, winners, winner, x, v, shm, shm_rank, shm_size
  integer :: status(MPI_STATUS_SIZE), cnt
  ! VOLATILE: MPI writes these outside the calls that receive them (at a fence, an unlock, a
  ! flush), so an optimising compiler must not keep their values in registers across MPI calls.
  integer, allocatable, volatile :: wbuf(:), gbuf(:), olds(:), dbuf(:)
  integer, pointer, volatile :: mem(:), peer(:)
  volatile :: old, res, x, cmp, v, one
  integer(kind=ak) :: val, addr, wsize, baseptr, extra, qsize
  integer(kind=ak), allocatable :: addrs(:)
  integer :: qdisp
  logical :: flag
  character(len=MPI_MAX_OBJECT_NAME) :: name
  type(c_ptr) :: cp

  call MPI_Init(ierr)
  fcheck_program = 'frma'
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  n = nprocs
  left = mod(rank + n - 1, n)
  right = mod(rank + 1, n)

  ! ---- Win_create: Put, Get and Accumulate between fences ---------------------------------------
  ! slots 0..n-1 take the Puts, slot n the Accumulates
  allocate (wbuf(0:n), gbuf(0:n - 1), olds(0:n - 1))
  wbuf = -1
  wsize = (n + 1) * 4
  call MPI_Win_create(wbuf, wsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call ok(ierr, 'MPI_Win_create')
  call check(win /= MPI_WIN_NULL, 'MPI_Win_create gives a window')
  wbuf(n) = 0
  call MPI_Win_fence(0, win, ierr)
  call ok(ierr, 'MPI_Win_fence')
  v = rank * 10
  do i = 0, n - 1
    call MPI_Put(v, 1, MPI_INTEGER, i, int(rank, ak), 1, MPI_INTEGER, win, ierr)
    call ok(ierr, 'MPI_Put')
  end do
  call MPI_Win_fence(0, win, ierr)
  do i = 0, n - 1
    call check(wbuf(i) == i * 10, 'Put between fences')
  end do
  gbuf = -1
  call MPI_Get(gbuf, n, MPI_INTEGER, right, 0_ak, n, MPI_INTEGER, win, ierr)
  call ok(ierr, 'MPI_Get')
  v = rank + 1
  do i = 0, n - 1
    call MPI_Accumulate(v, 1, MPI_INTEGER, i, int(n, ak), 1, MPI_INTEGER, MPI_SUM, win, ierr)
    call ok(ierr, 'MPI_Accumulate')
  end do
  call MPI_Win_fence(0, win, ierr)
  do i = 0, n - 1
    call check(gbuf(i) == i * 10, 'Get between fences')
  end do
  call check(wbuf(n) == n * (n + 1) / 2, 'Accumulate(MPI_SUM) between fences')

  ! attributes
  call MPI_Win_get_attr(win, MPI_WIN_SIZE, val, flag, ierr)
  call ok(ierr, 'MPI_Win_get_attr(MPI_WIN_SIZE)')
  call check(flag .and. val == wsize, 'MPI_WIN_SIZE is the size given')
  call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, val, flag, ierr)
  call check(flag .and. val == 4, 'MPI_WIN_DISP_UNIT is 4')
  call MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, val, flag, ierr)
  call check(flag .and. val == MPI_WIN_FLAVOR_CREATE, 'MPI_WIN_CREATE_FLAVOR of MPI_Win_create')
  call MPI_Win_get_attr(win, MPI_WIN_MODEL, val, flag, ierr)
  call check(flag .and. (val == MPI_WIN_UNIFIED .or. val == MPI_WIN_SEPARATE), 'MPI_WIN_MODEL')
  call MPI_Win_get_attr(win, MPI_WIN_BASE, val, flag, ierr)
  call MPI_Get_address(wbuf, addr, ierr)
  call check(flag .and. val == addr, 'MPI_WIN_BASE is the address of the window''s buffer')

  ! name, group, error handler
  call MPI_Win_set_name(win, 'fence window', ierr)
  call ok(ierr, 'MPI_Win_set_name')
  name = 'x'
  call MPI_Win_get_name(win, name, res, ierr)
  call check(ierr == MPI_SUCCESS .and. name == 'fence window' .and. res == 12, 'MPI_Win_get_name')
  call MPI_Win_get_group(win, wgrp, ierr)
  call MPI_Comm_group(MPI_COMM_WORLD, grp, ierr)
  call MPI_Group_compare(wgrp, grp, res, ierr)
  call check(res == MPI_IDENT, 'MPI_Win_get_group is the communicator''s group')
  call MPI_Group_free(wgrp, ierr)
  call MPI_Group_free(grp, ierr)
  call MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN, ierr)
  call ok(ierr, 'MPI_Win_set_errhandler')
  call MPI_Win_get_errhandler(win, eh, ierr)
  call check(ierr == MPI_SUCCESS .and. eh == MPI_ERRORS_RETURN, 'MPI_Win_get_errhandler')
  call MPI_Errhandler_free(eh, ierr)
  call MPI_Win_fence(0, win, ierr)
  call MPI_Put(v, 1, MPI_INTEGER, n, 0_ak, 1, MPI_INTEGER, win, ierr)
  call check(ierr /= MPI_SUCCESS, 'MPI_Put to a rank outside the window fails under MPI_ERRORS_RETURN')
  call MPI_Win_fence(0, win, ierr)

  ! general active target: each rank exposes its window to its left neighbour and puts into its
  ! right one's
  call MPI_Comm_group(MPI_COMM_WORLD, grp, ierr)
  call MPI_Group_incl(grp, 1, [left], wgrp, ierr)
  call MPI_Win_post(wgrp, 0, win, ierr)
  call ok(ierr, 'MPI_Win_post')
  call MPI_Group_free(wgrp, ierr)
  call MPI_Group_incl(grp, 1, [right], wgrp, ierr)
  call MPI_Win_start(wgrp, 0, win, ierr)
  call ok(ierr, 'MPI_Win_start')
  v = rank + 100
  call MPI_Put(v, 1, MPI_INTEGER, right, 0_ak, 1, MPI_INTEGER, win, ierr)
  call MPI_Win_complete(win, ierr)
  call ok(ierr, 'MPI_Win_complete')
  flag = .false.
  do while (.not. flag)
    call MPI_Win_test(win, flag, ierr)
    call ok(ierr, 'MPI_Win_test')
  end do
  call check(wbuf(0) == left + 100, 'Put in a post/start epoch')
  call MPI_Group_free(wgrp, ierr)
  call MPI_Win_post(grp, 0, win, ierr)
  call MPI_Win_start(grp, 0, win, ierr)
  call MPI_Win_complete(win, ierr)
  call MPI_Win_wait(win, ierr)
  call ok(ierr, 'MPI_Win_wait')
  call MPI_Group_free(grp, ierr)

  call MPI_Win_free(win, ierr)
  call ok(ierr, 'MPI_Win_free')
  call check(win == MPI_WIN_NULL, 'MPI_Win_free sets MPI_WIN_NULL')

  ! ---- Win_allocate and passive target -----------------------------------------------------------
  ! slots: 0 the left neighbour's rank (Put), 1 a Fetch_and_op counter, 2 a Compare_and_swap
  ! cell, 3 an Rput, 4 a Raccumulate sum (the last three on rank 0)
  call MPI_Win_allocate(5_ak * 4, 4, MPI_INFO_NULL, MPI_COMM_WORLD, baseptr, win, ierr)
  call ok(ierr, 'MPI_Win_allocate')
  call check(baseptr /= 0, 'MPI_Win_allocate gives an address')
  cp = transfer(baseptr, cp)
  call c_f_pointer(cp, mem, [5])
  call MPI_Win_get_attr(win, MPI_WIN_BASE, val, flag, ierr)
  call check(flag .and. val == baseptr, 'MPI_WIN_BASE of MPI_Win_allocate is BASEPTR')
  call MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, val, flag, ierr)
  call check(flag .and. val == MPI_WIN_FLAVOR_ALLOCATE, 'MPI_WIN_CREATE_FLAVOR of MPI_Win_allocate')
  call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win, ierr)
  mem = [-1, 0, -1, -1, 0]
  call MPI_Win_unlock(rank, win, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win, ierr)
  call ok(ierr, 'MPI_Win_lock')
  call MPI_Put(rank, 1, MPI_INTEGER, right, 0_ak, 1, MPI_INTEGER, win, ierr)
  call MPI_Win_unlock(right, win, ierr)
  call ok(ierr, 'MPI_Win_unlock')

  one = 1
  call MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win, ierr)
  call MPI_Fetch_and_op(one, old, MPI_INTEGER, 0, 1_ak, MPI_SUM, win, ierr)
  call ok(ierr, 'MPI_Fetch_and_op')
  call MPI_Win_flush(0, win, ierr)
  call ok(ierr, 'MPI_Win_flush')
  cmp = -1
  call MPI_Compare_and_swap(rank, cmp, res, MPI_INTEGER, 0, 2_ak, win, ierr)
  call ok(ierr, 'MPI_Compare_and_swap')
  call MPI_Win_flush_local(0, win, ierr)
  call ok(ierr, 'MPI_Win_flush_local')
  call MPI_Win_unlock(0, win, ierr)
  call MPI_Allgather(old, 1, MPI_INTEGER, olds, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do i = 0, n - 1
    call check(count(olds == i) == 1, 'Fetch_and_op hands out each count once')
  end do
  mine = merge(1, 0, res == -1)
  call MPI_Allreduce(mine, winners, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(winners == 1, 'one Compare_and_swap finds the cell unset')
  mine = merge(rank, 0, res == -1)
  call MPI_Allreduce(mine, winner, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)

  call MPI_Win_lock_all(0, win, ierr)
  call ok(ierr, 'MPI_Win_lock_all')
  x = -5
  call MPI_Rget(x, 1, MPI_INTEGER, right, 0_ak, 1, MPI_INTEGER, win, req, ierr)
  call ok(ierr, 'MPI_Rget')
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call check(x == rank .and. req == MPI_REQUEST_NULL, 'Rget reads the Put of the lock epoch')
  if (rank == n - 1) then
    v = 77
    call MPI_Rput(v, 1, MPI_INTEGER, 0, 3_ak, 1, MPI_INTEGER, win, req, ierr)
    call ok(ierr, 'MPI_Rput')
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  end if
  v = rank + 1
  call MPI_Raccumulate(v, 1, MPI_INTEGER, 0, 4_ak, 1, MPI_INTEGER, MPI_SUM, win, req, ierr)
  call ok(ierr, 'MPI_Raccumulate')
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Win_flush_all(win, ierr)
  call ok(ierr, 'MPI_Win_flush_all')
  call MPI_Win_flush_local_all(win, ierr)
  call ok(ierr, 'MPI_Win_flush_local_all')
  call MPI_Win_sync(win, ierr)
  call ok(ierr, 'MPI_Win_sync')
  call MPI_Win_unlock_all(win, ierr)
  call ok(ierr, 'MPI_Win_unlock_all')
  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  call MPI_Win_lock_all(0, win, ierr)
  x = -5
  v = 0
  call MPI_Get_accumulate(v, 1, MPI_INTEGER, x, 1, MPI_INTEGER, 0, 4_ak, 1, MPI_INTEGER, &
                          MPI_NO_OP, win, ierr)
  call ok(ierr, 'MPI_Get_accumulate')
  call MPI_Win_flush(0, win, ierr)
  call check(x == n * (n + 1) / 2, 'Get_accumulate(MPI_NO_OP) reads the Raccumulate sum')
  x = -5
  call MPI_Rget_accumulate(v, 1, MPI_INTEGER, x, 1, MPI_INTEGER, 0, 1_ak, 1, MPI_INTEGER, &
                           MPI_NO_OP, win, req, ierr)
  call ok(ierr, 'MPI_Rget_accumulate')
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call check(x == n, 'Rget_accumulate(MPI_NO_OP) reads the Fetch_and_op count')
  call MPI_Win_unlock_all(win, ierr)

  call MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win, ierr)
  call check(mem(1) == left, 'passive-target Put seen through the Win_allocate address')
  if (rank == 0) then
    call check(mem(2) == n, 'Fetch_and_op count seen through the Win_allocate address')
    call check(mem(3) == winner, 'Compare_and_swap cell holds the winner''s rank')
    call check(mem(4) == 77, 'Rput seen through the Win_allocate address')
    call check(mem(5) == n * (n + 1) / 2, 'Raccumulate sum')
  end if
  call MPI_Win_unlock(rank, win, ierr)
  call MPI_Win_free(win, ierr)
  call check(ierr == MPI_SUCCESS .and. win == MPI_WIN_NULL, 'MPI_Win_free of MPI_Win_allocate')

  ! ---- dynamic windows ---------------------------------------------------------------------------
  allocate (dbuf(4), addrs(0:n - 1))
  dbuf = -1
  call MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call ok(ierr, 'MPI_Win_create_dynamic')
  call MPI_Win_attach(win, dbuf, 16_ak, ierr)
  call ok(ierr, 'MPI_Win_attach')
  call MPI_Get_address(dbuf(2), addr, ierr)
  call MPI_Allgather(addr, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD, ierr)
  call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win, ierr)
  v = rank + 500
  call MPI_Put(v, 1, MPI_INTEGER, right, addrs(right), 1, MPI_INTEGER, win, ierr)
  call ok(ierr, 'MPI_Put to an attached region')
  call MPI_Win_unlock(right, win, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win, ierr)
  call check(dbuf(2) == left + 500 .and. dbuf(1) == -1 .and. dbuf(3) == -1, &
             'Put at an absolute address in a dynamic window')
  call MPI_Win_unlock(rank, win, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Win_detach(win, dbuf, ierr)
  call ok(ierr, 'MPI_Win_detach')
  call MPI_Win_free(win, ierr)

  ! ---- Win_allocate_shared and Win_shared_query --------------------------------------------------
  call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, shm, ierr)
  call MPI_Comm_rank(shm, shm_rank, ierr)
  call MPI_Comm_size(shm, shm_size, ierr)
  call MPI_Win_allocate_shared(4_ak * 4, 4, MPI_INFO_NULL, shm, baseptr, win, ierr)
  call ok(ierr, 'MPI_Win_allocate_shared')
  call MPI_Win_get_attr(win, MPI_WIN_SIZE, val, flag, ierr)
  call check(flag .and. val == 16, 'MPI_WIN_SIZE of MPI_Win_allocate_shared')
  call MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, val, flag, ierr)
  call check(flag .and. val == MPI_WIN_FLAVOR_SHARED, 'MPI_WIN_CREATE_FLAVOR of a shared window')
  cp = transfer(baseptr, cp)
  call c_f_pointer(cp, mem, [4])
  call MPI_Win_shared_query(win, shm_rank, qsize, qdisp, addr, ierr)
  call ok(ierr, 'MPI_Win_shared_query of this rank')
  call check(qsize == 16 .and. qdisp == 4 .and. addr == baseptr, &
             'MPI_Win_shared_query of this rank gives BASEPTR')
  call MPI_Win_lock_all(MPI_MODE_NOCHECK, win, ierr)
  do i = 1, 4
    mem(i) = shm_rank * 100 + i
  end do
  call MPI_Win_sync(win, ierr)
  call MPI_Barrier(shm, ierr)
  call MPI_Win_sync(win, ierr)
  do i = 0, shm_size - 1
    call MPI_Win_shared_query(win, i, qsize, qdisp, addr, ierr)
    call ok(ierr, 'MPI_Win_shared_query')
    call check(qsize == 16 .and. qdisp == 4 .and. addr /= 0, 'MPI_Win_shared_query size and unit')
    cp = transfer(addr, cp)
    call c_f_pointer(cp, peer, [4])
    call check(all(peer == i * 100 + [1, 2, 3, 4]), &
               'a peer''s shared memory read through the Win_shared_query address')
  end do
  call MPI_Win_unlock_all(win, ierr)
  call MPI_Win_free(win, ierr)
  call ok(ierr, 'MPI_Win_free of a shared window')
  call MPI_Comm_free(shm, ierr)

  ! ---- generalized requests ----------------------------------------------------------------------
  extra = 3
  call MPI_Grequest_start(greq_query, greq_free, greq_cancel, extra, req, ierr)
  call ok(ierr, 'MPI_Grequest_start')
  call MPI_Test(req, flag, status, ierr)
  call check(ierr == MPI_SUCCESS .and. .not. flag, 'a generalized request is pending until complete')
  call MPI_Grequest_complete(req, ierr)
  call ok(ierr, 'MPI_Grequest_complete')
  status = -7
  call MPI_Wait(req, status, ierr)
  call ok(ierr, 'MPI_Wait of a generalized request')
  call check(req == MPI_REQUEST_NULL, 'MPI_Wait frees the generalized request')
  call check(status(MPI_SOURCE) == 3 .and. status(MPI_TAG) == 42, &
             'the query procedure sets the status'' MPI_SOURCE and MPI_TAG')
  call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
  call check(cnt == 3, 'the query procedure''s MPI_Status_set_elements')
  call check(queries >= 1 .and. frees == 1 .and. cancels == 0, 'query and free procedures called')
  call check(extra == 1003, 'the free procedure changes the program''s EXTRA_STATE')

  ! cancel before completion: the cancel procedure gets COMPLETE = .false.
  extra = 5
  call MPI_Grequest_start(greq_query, greq_free, greq_cancel, extra, req, ierr)
  call MPI_Cancel(req, ierr)
  call ok(ierr, 'MPI_Cancel of a generalized request')
  call check(cancels == 1 .and. .not. last_complete, 'the cancel procedure, COMPLETE false')
  call MPI_Grequest_complete(req, ierr)
  call MPI_Wait(req, status, ierr)
  call check(status(MPI_SOURCE) == 5 .and. frees == 2, 'cancelled generalized request')

  ! freed before completion: the free procedure runs at MPI_Grequest_complete
  extra = 6
  call MPI_Grequest_start(greq_query, greq_free, greq_cancel, extra, req, ierr)
  req2 = req
  call MPI_Request_free(req, ierr)
  call ok(ierr, 'MPI_Request_free of a pending generalized request')
  call check(frees == 2, 'no free procedure before the request completes')
  call MPI_Grequest_complete(req2, ierr)
  call ok(ierr, 'MPI_Grequest_complete of a freed request')
  call check(frees == 3 .and. extra == 1006, 'the free procedure runs at completion')

  deallocate (wbuf, gbuf, olds, dbuf, addrs)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) write (*, '(a,i0,a)') 'frma: all checks passed on ', nprocs, ' ranks'
  call MPI_Finalize(ierr)
end program frma
