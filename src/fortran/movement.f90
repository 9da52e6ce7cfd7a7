!> Copies between arrays (whole, shifted sections, transposes), whole-array reductions, scans and
!> checkpoints for the module `tessera`, whose interface block declares every routine here
!> (docs/fortran.md, "Copies, transposes, scans and checkpoints"). A submodule, like box_sets.f90.
!>
!> Dimensions, bounds and permutations are Fortran's: dimension k is C axis ndim - k, bounds are
!> inclusive, permutations count from 1.
submodule (tessera) movement
  implicit none

  ! Appended to the C library's messages, which speak C's terms.
  character(*), parameter :: axis_terms = ' [in C''s terms: C axis d is Fortran dimension ndim - d, ' // &
                                          'C boxes are [lo, hi) in C order]'

contains

  ! The C library's failure with how to read its terms appended.
  function in_fortran_terms(s) result(r)
    integer(c_int), intent(in) :: s
    integer(c_int) :: r
    r = with_terms(s, axis_terms)
  end function

  ! The dimensions of an array, from the library.
  function ndim_of(array, ndim) result(s)
    type(tessera_array), intent(in) :: array
    integer, intent(out) :: ndim
    integer(c_int) :: s, n
    n = 0
    s = c_array_ndim(array%h, n)
    ndim = int(n)
  end function

  ! Fails unless `list` has one entry per dimension of the array.
  function one_per_dim(list_size, ndim, caller, name) result(s)
    integer, intent(in) :: list_size, ndim
    character(*), intent(in) :: caller, name
    integer(c_int) :: s
    s = TESSERA_OK
    if (list_size /= ndim) s = fail(TESSERA_ERR_INVALID_ARGUMENT, caller // ': ' // name // ' has ' // &
                                    str(list_size) // ' entries, the array ' // str(ndim) // ' dimensions')
  end function

  module procedure tessera_copy
    call finish(c_copy(src%h, dst%h), status)
  end procedure

  module procedure tessera_copy_section
    type(c_box) :: box
    integer(c_int64_t) :: c_lo(TESSERA_MAX_DIM)
    integer(c_int) :: s
    integer :: ndim
    character(*), parameter :: caller = 'tessera_copy_section'
    c_lo = 0
    s = ndim_of(src, ndim)
    if (s == TESSERA_OK) s = one_per_dim(size(src_lo), ndim, caller, 'src_lo')
    if (s == TESSERA_OK) s = one_per_dim(size(src_hi), ndim, caller, 'src_hi')
    if (s == TESSERA_OK) s = one_per_dim(size(dst_lo), ndim, caller, 'dst_lo')
    if (s == TESSERA_OK) then
      call to_c_box(src_lo, src_hi, box)
      c_lo(1:ndim) = reversed(int(dst_lo, c_int64_t))
      s = in_fortran_terms(c_copy_section(src%h, box, dst%h, c_lo))
    end if
    call finish(s, status)
  end procedure

  module procedure tessera_transpose
    integer(c_int) :: c_perm(TESSERA_MAX_DIM), s
    integer :: ndim, d
    character(*), parameter :: caller = 'tessera_transpose'
    c_perm = 0
    s = ndim_of(src, ndim)
    if (s == TESSERA_OK) s = one_per_dim(size(perm), ndim, caller, 'perm')
    if (s == TESSERA_OK .and. any(perm < 1 .or. perm > ndim)) then
      s = fail(TESSERA_ERR_INVALID_ARGUMENT, caller // ': perm = [' // str_list(perm) // '] is not a permutation of 1 to ' // &
                                             str(ndim))
    end if
    if (s == TESSERA_OK) then
      ! dst's C axis d is Fortran dimension ndim - d, which runs along src's Fortran dimension
      ! perm(ndim - d), C axis ndim - perm(ndim - d). (A repeated entry is the library's to refuse.)
      do d = 0, ndim - 1
        c_perm(d + 1) = int(ndim - perm(ndim - d), c_int)
      end do
      s = in_fortran_terms(c_transpose(src%h, dst%h, c_perm))
    end if
    call finish(s, status)
  end procedure

  module procedure tessera_reduce
    result = 0
    call finish(c_array_reduce(array%h, int(op, c_int), C_TESSERA_DOUBLE, c_loc(result)), status)
  end procedure

  module procedure tessera_scan
    integer(c_int) :: s, axis, excl
    integer :: ndim
    axis = -1
    excl = 0
    s = ndim_of(in, ndim)
    if (present(exclusive)) then
      if (exclusive) excl = 1
    end if
    if (s == TESSERA_OK .and. present(dim)) then
      if (dim < 1 .or. dim > ndim) then
        s = fail(TESSERA_ERR_INVALID_ARGUMENT, 'tessera_scan: dim = ' // str(dim) // ', the array has dimensions 1 to ' // &
                                               str(ndim))
      else
        axis = int(ndim - dim, c_int)
      end if
    end if
    ! Without `dim`: C's row-major order of the box is Fortran's array-element order.
    if (s == TESSERA_OK) s = in_fortran_terms(c_array_scan(in%h, axis, excl, int(op, c_int), out%h))
    call finish(s, status)
  end procedure

  module procedure tessera_checkpoint_save
    call finish(c_checkpoint_save(path // c_null_char, array%h, name // c_null_char), status)
  end procedure

  module procedure tessera_checkpoint_load
    call finish(c_checkpoint_load(path // c_null_char, array%h, name // c_null_char), status)
  end procedure

end submodule movement
