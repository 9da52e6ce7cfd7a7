!> What the module `tessera` and its submodule box_sets share: the error state and how a status is
!> handed back, number formatting for messages, and the turn from Fortran's inclusive, first-index-
!> fastest bounds to C's half-open, row-major boxes. Internal to libtessera_fortran: programs use
!> `tessera`, which keeps all of this private. (A module of its own rather than private procedures
!> of `tessera`: gfortran gives a module's private procedures local linkage, so its submodule's
!> object file could not call them.)
module tessera_fortran_support
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: error_unit
  use tessera_c_api
  implicit none
  private
  public :: last_error_message, c_message, finish, fail, with_terms, str, str_list, reversed, to_c_box, point_to_c

  integer(c_int), parameter :: ok = 0, invalid_argument = 1  ! TESSERA_OK, TESSERA_ERR_INVALID_ARGUMENT

  ! The message of the last failure the module found itself, before calling C (one per program:
  ! call the module from one thread at a time).
  character(:), allocatable, save :: own_error
  logical, save :: failed_here = .false.

contains

  !> The message of the last failing call on this thread ("" if none failed).
  function last_error_message() result(message)
    character(:), allocatable :: message
    if (allocated(own_error)) then
      message = own_error
    else
      message = c_message()
    end if
  end function

  ! The C library's message of its last failure (whatever this module found itself since).
  function c_message() result(message)
    character(:), allocatable :: message
    type(c_ptr) :: p
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    p = c_last_error()
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate(character(n) :: message)
    do i = 1, n
      message(i:i) = chars(i)
    end do
  end function

  ! Hands a C status to the caller, or stops with the library's message if the caller took none.
  subroutine finish(s, status)
    integer(c_int), intent(in) :: s
    integer, intent(out), optional :: status
    ! A failure of the C library replaces a message of this module's own.
    if (s /= ok .and. .not. failed_here .and. allocated(own_error)) deallocate(own_error)
    failed_here = .false.
    if (present(status)) then
      status = int(s)
    else if (s /= ok) then
      write(error_unit, '(a)') 'tessera: ' // last_error_message()
      error stop 1
    end if
  end subroutine

  ! A failure this module detects itself (a Fortran argument of the wrong size): its status, with
  ! the message last_error_message() will give.
  function fail(code, message) result(s)
    integer(c_int), intent(in) :: code
    character(*), intent(in) :: message
    integer(c_int) :: s
    own_error = message
    failed_here = .true.
    s = code
  end function

  ! A C status, with `terms` (how to read the C library's terms in Fortran's) appended to its
  ! message when it is a failure.
  function with_terms(s, terms) result(r)
    integer(c_int), intent(in) :: s
    character(*), intent(in) :: terms
    integer(c_int) :: r
    r = s
    if (s /= ok) r = fail(s, c_message() // terms)
  end function

  pure function str(i) result(text)
    integer, intent(in) :: i
    character(:), allocatable :: text
    character(24) :: buffer
    write(buffer, '(i0)') i
    text = trim(buffer)
  end function

  pure function str_list(values) result(text)
    integer, intent(in) :: values(:)
    character(:), allocatable :: text
    integer :: k
    text = ''
    do k = 1, size(values)
      if (k > 1) text = text // ', '
      text = text // str(values(k))
    end do
  end function

  pure function reversed(a) result(r)
    integer(c_int64_t), intent(in) :: a(:)
    integer(c_int64_t) :: r(size(a))
    r = a(size(a):1:-1)
  end function

  ! Inclusive Fortran-order bounds to tessera's half-open box in C order.
  subroutine to_c_box(lo, hi, box)
    integer, intent(in) :: lo(:), hi(:)
    type(c_box), intent(out) :: box
    integer :: n
    n = size(lo)
    box%lo = 0
    box%hi = 0
    box%lo(1:n) = reversed(int(lo, c_int64_t))
    box%hi(1:n) = reversed(int(hi, c_int64_t)) + 1
  end subroutine

  ! A point (Fortran order) in C's order, checked against the `ndim` dimensions of `what` (named in
  ! the message: 'the array', 'the distribution').
  function point_to_c(point, ndim, caller, what, c_point) result(s)
    integer, intent(in) :: point(:)
    integer, intent(in) :: ndim
    character(*), intent(in) :: caller, what
    integer(c_int64_t), intent(out) :: c_point(C_TESSERA_MAX_DIM)
    integer(c_int) :: s
    s = ok
    c_point = 0
    if (size(point) /= ndim) then
      s = fail(invalid_argument, caller // ': point has ' // str(size(point)) // ' entries, ' // what // ' ' // &
                                 str(ndim) // ' dimensions')
    else
      c_point(1:ndim) = reversed(int(point, c_int64_t))
    end if
  end function

end module tessera_fortran_support
