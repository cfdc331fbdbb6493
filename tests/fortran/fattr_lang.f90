! tests/fortran/fattr_lang.f90 — attributes across languages (MPI 4.0 §19.3.7): a value C sets is
! read by Fortran as the pointer's address; a value Fortran sets (MPI_COMM/TYPE/WIN_SET_ATTR, or
! MPI_ATTR_PUT's default INTEGER) is read by C through a pointer to the stored integer; MPI-2
! reads of an MPI-1 value sign-extend, MPI-1 reads truncate. Copy and delete callbacks, Fortran
! and C, get the value in their own language's form; predefined MPI_COMM_DUP_FN copies a value
! as it is; the predefined keys read the same from both languages. The C side is fattr_lang_c.c.
module fattr_util
  use fcheck
  implicit none
  integer, parameter :: K_COMM = 1, K_TYPE = 2, K_WIN = 3
  integer, parameter :: AS_PTR = 0, AS_AINT = 1, AS_FINT = 2
  integer, parameter :: ak = MPI_ADDRESS_KIND
  ! what the Fortran callbacks saw
  integer(kind=ak) :: f_copy_seen = 0, f_del_seen = 0
  integer :: f1_copy_seen = 0, f1_del_seen = 0
contains
  ! C reads (kind, obj, key) and must get what `how` says (fattr_lang_c.c, fl_c_check).
  subroutine ccheck(kind, obj, key, how, val, what)
    integer, intent(in) :: kind, obj, key, how
    integer(kind=ak), intent(in) :: val
    character(len=*), intent(in) :: what
    external :: fl_c_check
    integer :: ok
    call fl_c_check(kind, obj, key, how, val, ok)
    call check(ok == 1, what)
  end subroutine ccheck

  ! The Fortran MPI-2 read of a communicator attribute.
  subroutine fget2(comm, key, want, what)
    integer, intent(in) :: comm, key
    integer(kind=ak), intent(in) :: want
    character(len=*), intent(in) :: what
    integer(kind=ak) :: v
    logical :: flag
    integer :: ierr
    v = -1
    call MPI_Comm_get_attr(comm, key, v, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. flag .and. v == want, what)
  end subroutine fget2

  ! The Fortran MPI-1 read of a communicator attribute.
  subroutine fget1(comm, key, want, what)
    integer, intent(in) :: comm, key, want
    character(len=*), intent(in) :: what
    integer :: v, ierr
    logical :: flag
    v = -1
    call MPI_Attr_get(comm, key, v, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. flag .and. v == want, what)
  end subroutine fget1
end module fattr_util

! MPI-2 callbacks (communicators, datatypes, windows): the copy adds 1.
subroutine f2_copy(oldobj, keyval, extra, valin, valout, flag, ierr)
  use fattr_util
  implicit none
  integer :: oldobj, keyval, ierr
  integer(kind=ak) :: extra, valin, valout
  logical :: flag
  f_copy_seen = valin
  valout = valin + 1
  flag = .true.
  ierr = MPI_SUCCESS
end subroutine f2_copy

subroutine f2_delete(obj, keyval, val, extra, ierr)
  use fattr_util
  implicit none
  integer :: obj, keyval, ierr
  integer(kind=ak) :: val, extra
  f_del_seen = val
  ierr = MPI_SUCCESS
end subroutine f2_delete

! MPI-1 callbacks (MPI_KEYVAL_CREATE): default INTEGERs.
subroutine f1_copy(oldcomm, keyval, extra, valin, valout, flag, ierr)
  use fattr_util
  implicit none
  integer :: oldcomm, keyval, extra, valin, valout, ierr
  logical :: flag
  f1_copy_seen = valin
  valout = valin + 1
  flag = .true.
  ierr = MPI_SUCCESS
end subroutine f1_copy

subroutine f1_delete(comm, keyval, val, extra, ierr)
  use fattr_util
  implicit none
  integer :: comm, keyval, val, extra, ierr
  f1_del_seen = val
  ierr = MPI_SUCCESS
end subroutine f1_delete

program fattr_lang
  use fattr_util
  implicit none
  external :: f2_copy, f2_delete, f1_copy, f1_delete
  external :: fl_c_set, fl_c_keyvals, fl_c_seen, fl_c_predef
  integer :: ierr, rank, nproc, comm, dup, dtype, tdup, win
  integer :: k2, k1, kt, kw, kdup, kc2, kc1, kcdup, kct
  integer :: low, ival, ndel, tag_ub_c, disp_c
  integer(kind=ak) :: extra, addr, aval, v, w, cseen, cdel, cobj, base_c, size_c, bufaddr, wsize
  logical :: flag, flag1
  double precision :: buf(10)

  call MPI_Init(ierr)
  fcheck_program = 'fattr'
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, comm, ierr)
  call MPI_Type_contiguous(2, MPI_INTEGER, dtype, ierr)
  wsize = 80
  call MPI_Win_create(buf, wsize, 8, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_create')

  extra = 0
  call MPI_Comm_create_keyval(f2_copy, f2_delete, k2, extra, ierr)
  call MPI_Keyval_create(f1_copy, f1_delete, k1, 0, ierr)
  call MPI_Type_create_keyval(f2_copy, f2_delete, kt, extra, ierr)
  call MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, f2_delete, kw, extra, ierr)
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, kdup, extra, ierr)
  call check(ierr == MPI_SUCCESS, 'the Fortran keyvals')
  call fl_c_keyvals(kc2, kc1, kcdup, kct)

  ! ---- C sets a pointer: Fortran reads its address (MPI-2) or its low INTEGER (MPI-1) ----
  call fl_c_set(K_COMM, comm, k2, addr, low)
  call fget2(comm, k2, addr, 'C set, MPI_COMM_GET_ATTR gives the pointer''s address')
  call fget1(comm, k2, low, 'C set, MPI_ATTR_GET gives the address'' low INTEGER')
  call ccheck(K_COMM, comm, k2, AS_PTR, addr, 'C set, C gets the pointer itself')
  call MPI_Comm_dup(comm, dup, ierr)
  call check(f_copy_seen == addr, 'a Fortran copy procedure gets a C value as its address')
  call fget2(dup, k2, addr + 1, 'Comm_dup caches what the Fortran copy procedure returns')
  call ccheck(K_COMM, dup, k2, AS_AINT, addr + 1, 'C reads that copy through a pointer to MPI_Aint')
  call MPI_Comm_free(dup, ierr)
  call check(f_del_seen == addr + 1, 'Comm_free: the Fortran delete procedure gets the copy')
  call MPI_Comm_delete_attr(comm, k2, ierr)
  call check(f_del_seen == addr, 'delete_attr: a Fortran delete gets a C value''s address')

  call fl_c_set(K_TYPE, dtype, kt, addr, low)
  call MPI_Type_get_attr(dtype, kt, aval, flag, ierr)
  call check(flag .and. aval == addr, 'C set, MPI_TYPE_GET_ATTR gives the pointer''s address')
  call MPI_Type_dup(dtype, tdup, ierr)
  call check(f_copy_seen == addr, 'Type_dup: the Fortran copy procedure gets the address')
  call ccheck(K_TYPE, tdup, kt, AS_AINT, addr + 1, 'C reads the datatype copy as an MPI_Aint')
  call MPI_Type_free(tdup, ierr)
  call check(f_del_seen == addr + 1, 'Type_free: the Fortran delete procedure gets the copy')
  call MPI_Type_delete_attr(dtype, kt, ierr)
  call check(f_del_seen == addr, 'Type_delete_attr: the Fortran delete gets the address')

  call fl_c_set(K_WIN, win, kw, addr, low)
  call MPI_Win_get_attr(win, kw, aval, flag, ierr)
  call check(flag .and. aval == addr, 'C set, MPI_WIN_GET_ATTR gives the pointer''s address')
  call ccheck(K_WIN, win, kw, AS_PTR, addr, 'C set, C gets the window attribute''s pointer')
  call MPI_Win_delete_attr(win, kw, ierr)
  call check(f_del_seen == addr, 'Win_delete_attr: the Fortran delete gets the address')

  ! ---- Fortran sets an address-sized integer: C gets a pointer to an MPI_Aint holding it ----
  v = 8589934597_ak  ! 2**33 + 5: its low INTEGER is 5
  call MPI_Comm_set_attr(comm, k2, v, ierr)
  call ccheck(K_COMM, comm, k2, AS_AINT, v, 'Fortran set (MPI-2), C gets a pointer to the MPI_Aint')
  call fget2(comm, k2, v, 'Fortran set (MPI-2), MPI_COMM_GET_ATTR gives the value')
  call fget1(comm, k2, 5, 'Fortran set (MPI-2), MPI_ATTR_GET truncates to the low INTEGER')
  call MPI_Comm_set_attr(comm, k2, -v, ierr)
  call check(f_del_seen == v, 'setting again: the delete procedure gets the old value')
  call ccheck(K_COMM, comm, k2, AS_AINT, -v, 'C reads the new value')

  call MPI_Type_set_attr(dtype, kt, v, ierr)
  call ccheck(K_TYPE, dtype, kt, AS_AINT, v, 'MPI_TYPE_SET_ATTR: C gets a pointer to the MPI_Aint')
  call MPI_Type_get_attr(dtype, kt, aval, flag, ierr)
  call check(flag .and. aval == v, 'MPI_TYPE_GET_ATTR gives the value')
  call MPI_Type_dup(dtype, tdup, ierr)
  call check(f_copy_seen == v, 'Type_dup: the Fortran copy procedure gets the value')
  call MPI_Type_get_attr(tdup, kt, aval, flag, ierr)
  call check(flag .and. aval == v + 1, 'the datatype copy')
  call ccheck(K_TYPE, tdup, kt, AS_AINT, v + 1, 'C reads the datatype copy')
  call MPI_Type_free(tdup, ierr)
  call check(f_del_seen == v + 1, 'Type_free: the delete procedure gets the copy')

  call MPI_Win_set_attr(win, kw, v, ierr)
  call ccheck(K_WIN, win, kw, AS_AINT, v, 'MPI_WIN_SET_ATTR: C gets a pointer to the MPI_Aint')
  call MPI_Win_get_attr(win, kw, aval, flag, ierr)
  call check(flag .and. aval == v, 'MPI_WIN_GET_ATTR gives the value')

  ! ---- MPI_ATTR_PUT: C gets a pointer to the INTEGER; MPI-2 reads sign-extend ----
  call MPI_Attr_put(comm, k1, -7, ierr)
  call ccheck(K_COMM, comm, k1, AS_FINT, -7_ak, 'MPI_ATTR_PUT: C gets a pointer to the INTEGER')
  call fget2(comm, k1, -7_ak, 'MPI_ATTR_PUT, MPI_COMM_GET_ATTR sign-extends')
  call fget1(comm, k1, -7, 'MPI_ATTR_PUT, MPI_ATTR_GET gives the value')
  ! Comm_dup: the MPI-1 procedures get INTEGERs (k2 holds -v, its copy procedure runs too)
  call MPI_Comm_dup(comm, dup, ierr)
  call check(f1_copy_seen == -7, 'an MPI-1 copy procedure gets the INTEGER')
  call check(f_copy_seen == -v, 'the MPI-2 copy procedure of the other attribute')
  call fget1(dup, k1, -6, 'the MPI-1 copy')
  call ccheck(K_COMM, dup, k1, AS_FINT, -6_ak, 'C reads the MPI-1 copy as an INTEGER')
  call fget2(dup, k2, -v + 1, 'the MPI-2 copy')
  call MPI_Comm_free(dup, ierr)
  call check(f1_del_seen == -6, 'Comm_free: the MPI-1 delete procedure gets the INTEGER')
  ! an MPI-1 procedure handed an address-sized value gets its low INTEGER
  call MPI_Comm_set_attr(comm, k1, v, ierr)
  call check(f1_del_seen == -7, 'set_attr over MPI_ATTR_PUT: the MPI-1 delete gets the old value')
  call MPI_Comm_dup(comm, dup, ierr)
  call check(f1_copy_seen == 5, 'an MPI-1 copy procedure gets an MPI-2 value truncated')
  call fget2(dup, k1, 6_ak, 'its result is an INTEGER')
  call MPI_Comm_free(dup, ierr)
  ! an MPI-1 value under an MPI-2 keyval
  call MPI_Attr_put(comm, k2, -3, ierr)
  call fget2(comm, k2, -3_ak, 'MPI_ATTR_PUT under an MPI-2 keyval, read as MPI-2')
  call ccheck(K_COMM, comm, k2, AS_FINT, -3_ak, 'and read by C as an INTEGER')
  call MPI_Comm_delete_attr(comm, k2, ierr)
  call check(f_del_seen == -3, 'the MPI-2 delete procedure gets the INTEGER sign-extended')
  call MPI_Comm_delete_attr(comm, k1, ierr)
  call check(f1_del_seen == 5, 'the MPI-1 delete procedure gets the low INTEGER')

  ! ---- C callbacks: pointers to the Fortran integers; their copies are C pointers ----
  w = 1234567890123_ak
  call fl_c_seen(cseen, cdel, ndel, cobj)
  call MPI_Comm_set_attr(comm, kc2, w, ierr)
  call MPI_Comm_dup(comm, dup, ierr)
  call fl_c_seen(cseen, cdel, ndel, cobj)
  call check(cseen == w, 'a C copy callback gets a pointer to the Fortran MPI_Aint')
  call fget2(dup, kc2, cobj, 'the C copy callback''s result is a C pointer')
  call ccheck(K_COMM, dup, kc2, AS_PTR, cobj, 'which C gets as it is')
  call MPI_Comm_free(dup, ierr)
  call fl_c_seen(cseen, cdel, ndel, cobj)
  call check(ndel == 1 .and. cdel == 4242, 'Comm_free: the C delete callback gets the C pointer')
  call MPI_Comm_delete_attr(comm, kc2, ierr)
  call fl_c_seen(cseen, cdel, ndel, cobj)
  call check(ndel == 1 .and. cdel == w, 'a C delete callback gets a pointer to the MPI_Aint')

  call MPI_Attr_put(comm, kc1, -9, ierr)
  call MPI_Comm_dup(comm, dup, ierr)
  call fl_c_seen(cseen, cdel, ndel, cobj)
  call check(cseen == -9, 'a C copy callback gets a pointer to the Fortran INTEGER')
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_delete_attr(comm, kc1, ierr)
  call fl_c_seen(cseen, cdel, ndel, cobj)
  call check(ndel == 2 .and. cdel == -9, 'a C delete callback gets a pointer to the INTEGER')

  call MPI_Type_set_attr(dtype, kct, w, ierr)
  call MPI_Type_dup(dtype, tdup, ierr)
  call fl_c_seen(cseen, cdel, ndel, cobj)
  call check(cseen == w, 'a C datatype copy callback gets a pointer to the Fortran value')
  call MPI_Type_get_attr(tdup, kct, aval, flag, ierr)
  call check(flag .and. aval == cobj, 'the C datatype copy is a C pointer')
  call MPI_Type_free(tdup, ierr)
  call MPI_Type_delete_attr(dtype, kct, ierr)
  call fl_c_seen(cseen, cdel, ndel, cobj)
  call check(ndel == 2 .and. cdel == w, 'a C datatype delete callback gets the Fortran value')

  ! ---- MPI_COMM_DUP_FN copies a value as it is, whichever language set it ----
  call MPI_Comm_set_attr(comm, kdup, w, ierr)
  call MPI_Attr_put(comm, kcdup, 31, ierr)
  call MPI_Comm_dup(comm, dup, ierr)
  call fget2(dup, kdup, w, 'Fortran''s MPI_COMM_DUP_FN copies the value')
  call ccheck(K_COMM, dup, kdup, AS_AINT, w, 'and C reads the copy as an MPI_Aint')
  call fget1(dup, kcdup, 31, 'C''s MPI_COMM_DUP_FN copies an INTEGER')
  call ccheck(K_COMM, dup, kcdup, AS_FINT, 31_ak, 'and C reads the copy as an INTEGER')
  call MPI_Comm_free(dup, ierr)
  call fl_c_set(K_COMM, comm, kdup, addr, low)
  call fl_c_set(K_COMM, comm, kcdup, addr, low)
  call MPI_Comm_dup(comm, dup, ierr)
  call ccheck(K_COMM, dup, kdup, AS_PTR, addr, 'Fortran''s MPI_COMM_DUP_FN copies a C pointer')
  call ccheck(K_COMM, dup, kcdup, AS_PTR, addr, 'C''s MPI_COMM_DUP_FN copies a C pointer')
  call fget2(dup, kdup, addr, 'which Fortran reads as the address')
  call MPI_Comm_free(dup, ierr)

  ! ---- the predefined keys read the same from both languages ----
  call fl_c_predef(MPI_COMM_WORLD, win, tag_ub_c, base_c, size_c, disp_c)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, aval, flag, ierr)
  call MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, ival, flag1, ierr)
  call check(flag .and. flag1 .and. aval == tag_ub_c .and. ival == tag_ub_c .and. ival >= 32767, &
             'MPI_TAG_UB')
  call MPI_Get_address(buf, bufaddr, ierr)
  call MPI_Win_get_attr(win, MPI_WIN_BASE, aval, flag, ierr)
  call check(flag .and. aval == bufaddr .and. aval == base_c, 'MPI_WIN_BASE')
  call MPI_Win_get_attr(win, MPI_WIN_SIZE, aval, flag, ierr)
  call check(flag .and. aval == wsize .and. aval == size_c, 'MPI_WIN_SIZE')
  call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, aval, flag, ierr)
  call check(flag .and. aval == 8 .and. aval == disp_c, 'MPI_WIN_DISP_UNIT')
  call MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, aval, flag, ierr)
  call check(flag .and. aval == MPI_WIN_FLAVOR_CREATE, 'MPI_WIN_CREATE_FLAVOR')

  ! ---- freeing the objects runs the delete callbacks of what is left ----
  call MPI_Win_free(win, ierr)
  call check(f_del_seen == v, 'Win_free: the delete procedure gets the window attribute')
  call MPI_Comm_free(comm, ierr)
  call MPI_Type_free(dtype, ierr)
  call MPI_Comm_free_keyval(k2, ierr)
  call MPI_Keyval_free(k1, ierr)
  call MPI_Type_free_keyval(kt, ierr)
  call MPI_Win_free_keyval(kw, ierr)
  call MPI_Comm_free_keyval(kdup, ierr)
  call MPI_Comm_free_keyval(kc2, ierr)
  call MPI_Comm_free_keyval(kc1, ierr)
  call MPI_Comm_free_keyval(kcdup, ierr)
  call MPI_Type_free_keyval(kct, ierr)
  call check(ierr == MPI_SUCCESS .and. kct == MPI_KEYVAL_INVALID, 'the keyvals are freed')

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) write (*, '(a,i0,a)') 'fattr: all checks passed on ', nproc, ' ranks'
  call MPI_Finalize(ierr)
end program fattr_lang
