!> Box sets (KeLP's FloorPlan: a domain that is a list of disjoint boxes, each owned by a rank), their
!> chopping and user-defined local layouts (Chapel's LocalLayout) for the module `tessera`, whose interface block
!> declares every routine here (docs/fortran.md, "Box sets and local layouts"). A submodule, so that
!> it sees the module's handles and helpers while tessera.f90 stays the module's table of contents.
!>
!> Boxes are columns of lo and hi (shape (ndim, count)), inclusive, in Fortran order, numbered from
!> 0 (box b is column b + 1); the C API takes them as [lo, hi) in C's axis order (to_c_boxes).
submodule (tessera) box_sets
  implicit none

  ! Appended to the C library's messages about boxes, which speak C's terms.
  character(*), parameter :: box_terms = ' [in C''s terms: C axis d is Fortran dimension ndim - d, boxes are ' // &
                                         '[lo, hi) in C order, box b is column b + 1 of lo and hi]'

contains

  ! Checks the shapes of a box list (lo, hi: (ndim, count); `per_box` lists of count entries each,
  ! named in `names`) and turns it into C boxes. `caller` starts the messages.
  function to_c_boxes(lo, hi, caller, boxes, ndim) result(s)
    integer, intent(in) :: lo(:, :), hi(:, :)
    character(*), intent(in) :: caller
    type(c_box), allocatable, intent(out) :: boxes(:)
    integer, intent(out) :: ndim
    integer(c_int) :: s
    integer :: b
    s = TESSERA_OK
    ndim = size(lo, 1)
    ! One spare entry: C reads none of an empty list, but Fortran passes an address.
    allocate(boxes(max(size(lo, 2), 1)))
    if (ndim < 1 .or. ndim > TESSERA_MAX_DIM .or. any(shape(hi) /= shape(lo))) then
      s = fail(TESSERA_ERR_INVALID_ARGUMENT, caller // ': lo has shape (' // str_list(shape(lo)) // '), hi (' // &
                                             str_list(shape(hi)) // '); both must be (ndim, number of boxes), ' // &
                                             'ndim 1 to 3')
      return
    end if
    do b = 1, size(lo, 2)
      call to_c_box(lo(:, b), hi(:, b), boxes(b))
    end do
  end function

  ! Fails unless `list` has one entry per box.
  function one_per_box(list_size, count, caller, name) result(s)
    integer, intent(in) :: list_size, count
    character(*), intent(in) :: caller, name
    integer(c_int) :: s
    s = TESSERA_OK
    if (list_size /= count) s = fail(TESSERA_ERR_INVALID_ARGUMENT, caller // ': ' // name // ' has ' // &
                                     str(list_size) // ' entries, one per box (' // str(count) // ') needed')
  end function

  ! The C library's failure with how to read its terms appended.
  function in_fortran_terms(s) result(r)
    integer(c_int), intent(in) :: s
    integer(c_int) :: r
    r = with_terms(s, box_terms)
  end function

  ! The weights, when given, copied for C once their length is checked (`w` stays unallocated
  ! without them: C then takes the boxes' cell counts).
  function copy_weights(weights, count, caller, w) result(s)
    real(c_double), intent(in), optional :: weights(:)
    integer, intent(in) :: count
    character(*), intent(in) :: caller
    real(c_double), allocatable, intent(out) :: w(:)
    integer(c_int) :: s
    s = TESSERA_OK
    if (.not. present(weights)) return
    s = one_per_box(size(weights), count, caller, 'weights')
    if (s == TESSERA_OK) w = weights
  end function

  ! The address C reads weights from: NULL for none.
  function address_of_weights(w) result(p)
    real(c_double), allocatable, target, intent(in) :: w(:)
    type(c_ptr) :: p
    p = c_null_ptr
    if (allocated(w)) then
      if (size(w) > 0) p = c_loc(w)
    end if
  end function

  module procedure tessera_dist_from_boxes
    type(c_box), allocatable :: boxes(:)
    type(c_box), target :: domain
    type(c_ptr) :: domain_ptr
    integer(c_int) :: s, c_owners(max(size(owners), 1))
    integer :: ndim
    character(*), parameter :: caller = 'tessera_dist_from_boxes'
    domain_ptr = c_null_ptr
    c_owners = 0
    s = to_c_boxes(lo, hi, caller, boxes, ndim)
    if (s == TESSERA_OK) s = one_per_box(size(owners), size(lo, 2), caller, 'owners')
    if (s == TESSERA_OK .and. (present(domain_lo) .neqv. present(domain_hi))) then
      s = fail(TESSERA_ERR_INVALID_ARGUMENT, caller // ': give both domain_lo and domain_hi, or neither')
    end if
    if (s == TESSERA_OK .and. present(domain_lo)) then
      if (size(domain_lo) /= ndim .or. size(domain_hi) /= ndim) then
        s = fail(TESSERA_ERR_INVALID_ARGUMENT, caller // ': domain_lo and domain_hi have ' // str(size(domain_lo)) // &
                                               ' and ' // str(size(domain_hi)) // ' entries, the boxes ' // &
                                               str(ndim) // ' dimensions')
      else
        call to_c_box(domain_lo, domain_hi, domain)
        domain_ptr = c_loc(domain)
      end if
    end if
    if (s == TESSERA_OK) then
      c_owners(1:size(owners)) = int(owners, c_int)
      s = in_fortran_terms(c_dist_from_boxes(int(ndim, c_int), int(comm_size, c_int), domain_ptr, boxes, &
                                             size(lo, 2, kind=c_size_t), c_owners, dist%h))
    end if
    call finish(s, status)
  end procedure

  module procedure tessera_assign_boxes
    type(c_box), allocatable :: boxes(:)
    real(c_double), allocatable, target :: w(:)
    integer(c_int) :: s, c_owners(max(size(lo, 2), 1))
    integer :: ndim
    character(*), parameter :: caller = 'tessera_assign_boxes'
    s = to_c_boxes(lo, hi, caller, boxes, ndim)
    if (s == TESSERA_OK) s = one_per_box(size(owners), size(lo, 2), caller, 'owners')
    if (s == TESSERA_OK) s = copy_weights(weights, size(lo, 2), caller, w)
    if (s == TESSERA_OK) then
      s = in_fortran_terms(c_assign_boxes(int(ndim, c_int), int(comm_size, c_int), boxes, size(lo, 2, kind=c_size_t), &
                                          int(policy, c_int), address_of_weights(w), c_owners))
    end if
    if (s == TESSERA_OK) owners = int(c_owners(1:size(owners)))
    call finish(s, status)
  end procedure

  module procedure tessera_incremental_box_step
    type(c_box), allocatable :: boxes(:)
    real(c_double), allocatable, target :: w(:)
    integer(c_int) :: s
    integer(c_int) :: c_current(max(size(lo, 2), 1)), c_target(max(size(lo, 2), 1)), c_owners(max(size(lo, 2), 1))
    integer(c_size_t) :: c_moved
    integer(c_int64_t) :: cells
    real(c_double) :: before, after
    integer :: ndim, n
    character(*), parameter :: caller = 'tessera_incremental_box_step'
    n = size(lo, 2)
    c_current = 0
    c_target = 0
    s = to_c_boxes(lo, hi, caller, boxes, ndim)
    if (s == TESSERA_OK) s = one_per_box(size(current), n, caller, 'current')
    if (s == TESSERA_OK) s = one_per_box(size(target), n, caller, 'target')
    if (s == TESSERA_OK) s = one_per_box(size(owners), n, caller, 'owners')
    if (s == TESSERA_OK) s = copy_weights(weights, n, caller, w)
    if (s == TESSERA_OK) then
      c_current(1:n) = int(current, c_int)
      c_target(1:n) = int(target, c_int)
      s = in_fortran_terms(c_incremental_box_step(int(ndim, c_int), int(comm_size, c_int), boxes, int(n, c_size_t), &
                                                  c_current, c_target, delta, address_of_weights(w), c_owners, &
                                                  c_moved, cells, before, after))
    end if
    if (s == TESSERA_OK) then
      owners = int(c_owners(1:n))
      if (present(moved)) moved = int(c_moved)
      if (present(excess_before)) excess_before = before
      if (present(excess_after)) excess_after = after
    end if
    call finish(s, status)
  end procedure

  module procedure tessera_chop_boxes
    type(c_box), allocatable :: boxes(:)
    type(c_box), allocatable, target :: pieces(:)
    integer(c_int64_t) :: c_max(TESSERA_MAX_DIM)
    integer(c_size_t) :: count, again
    integer(c_int) :: s
    integer :: ndim, b
    character(*), parameter :: caller = 'tessera_chop_boxes'
    count = 0
    c_max = 1
    s = to_c_boxes(lo, hi, caller, boxes, ndim)
    if (s == TESSERA_OK .and. size(max_extent) /= ndim) then
      s = fail(TESSERA_ERR_INVALID_ARGUMENT, caller // ': max_extent has ' // str(size(max_extent)) // &
                                             ' entries, the boxes ' // str(ndim) // ' dimensions')
    end if
    if (s == TESSERA_OK) then
      c_max(1:ndim) = reversed(int(max_extent, c_int64_t))
      ! Once to count the pieces, once to have them.
      s = in_fortran_terms(c_chop_boxes(int(ndim, c_int), boxes, size(lo, 2, kind=c_size_t), c_max, c_null_ptr, &
                                        0_c_size_t, count))
    end if
    if (s == TESSERA_OK) then
      allocate(pieces(max(count, 1_c_size_t)))
      s = in_fortran_terms(c_chop_boxes(int(ndim, c_int), boxes, size(lo, 2, kind=c_size_t), c_max, c_loc(pieces), &
                                        count, again))
    end if
    if (s == TESSERA_OK) then
      allocate(pieces_lo(ndim, count), pieces_hi(ndim, count))
      do b = 1, int(count)
        pieces_lo(:, b) = int(reversed(pieces(b)%lo(1:ndim)))
        pieces_hi(:, b) = int(reversed(pieces(b)%hi(1:ndim))) - 1
      end do
    else
      allocate(pieces_lo(max(ndim, 0), 0), pieces_hi(max(ndim, 0), 0))
    end if
    call finish(s, status)
  end procedure

  module procedure tessera_dist_box_set
    type(c_box), allocatable, target :: boxes(:)
    integer(c_int), allocatable, target :: c_owners(:)
    integer(c_size_t) :: count, again
    integer(c_int) :: s, ndim
    integer :: b
    s = c_dist_box_set(dist%h, c_null_ptr, c_null_ptr, 0_c_size_t, count)
    if (s == TESSERA_OK) s = c_dist_ndim(dist%h, ndim)
    if (s == TESSERA_OK) then
      allocate(boxes(max(count, 1_c_size_t)), c_owners(max(count, 1_c_size_t)))
      s = c_dist_box_set(dist%h, c_loc(boxes), c_loc(c_owners), count, again)
    end if
    if (s == TESSERA_OK) then
      allocate(lo(ndim, count), hi(ndim, count), owners(count))
      do b = 1, int(count)
        lo(:, b) = int(reversed(boxes(b)%lo(1:ndim)))
        hi(:, b) = int(reversed(boxes(b)%hi(1:ndim))) - 1
      end do
      owners = int(c_owners(1:count))
    else
      allocate(lo(0, 0), hi(0, 0), owners(0))
    end if
    call finish(s, status)
  end procedure

  ! An array's point in C's order (the array's dimension from the library).
  function array_point(array, point, caller, c_point) result(s)
    type(tessera_array), intent(in) :: array
    integer, intent(in) :: point(:)
    character(*), intent(in) :: caller
    integer(c_int64_t), intent(out) :: c_point(TESSERA_MAX_DIM)
    integer(c_int) :: s, ndim
    c_point = 0
    s = c_array_ndim(array%h, ndim)
    if (s == TESSERA_OK) s = point_to_c(point, int(ndim), caller, 'the array', c_point)
  end function

  module procedure tessera_get
    integer(c_int64_t) :: c_point(TESSERA_MAX_DIM)
    integer(c_int) :: s
    value = 0
    s = array_point(array, point, 'tessera_get', c_point)
    if (s == TESSERA_OK) s = c_array_get(array%h, c_point, C_TESSERA_DOUBLE, c_loc(value))
    call finish(s, status)
  end procedure

  module procedure tessera_set
    integer(c_int64_t) :: c_point(TESSERA_MAX_DIM)
    integer(c_int) :: s
    s = array_point(array, point, 'tessera_set', c_point)
    if (s == TESSERA_OK) s = c_array_set(array%h, c_point, C_TESSERA_DOUBLE, c_loc(value))
    call finish(s, status)
  end procedure

  module procedure tessera_dist_with_local_order
    integer(c_int64_t) :: side
    side = 1
    if (present(size)) side = int(size, c_int64_t)
    ! The library checks the order and the size (a bad one is INVALID_ARGUMENT, no handle made).
    call finish(c_dist_with_local_order(dist%h, int(order, c_int), side, out%h), status)
  end procedure

  module procedure tessera_dist_has_local_layout
    integer(c_int) :: h
    h = 0
    call finish(c_dist_has_local_layout(dist%h, h), status)
    has = h /= 0
  end procedure

  module procedure tessera_dist_storage_index
    integer(c_int64_t) :: c_point(TESSERA_MAX_DIM), offset
    integer(c_int) :: s, ndim
    index = 0
    s = c_dist_ndim(dist%h, ndim)
    if (s == TESSERA_OK) s = point_to_c(point, int(ndim), 'tessera_dist_storage_index', 'the distribution', c_point)
    if (s == TESSERA_OK) s = c_dist_local_offset(dist%h, c_point, offset)
    if (s == TESSERA_OK) index = offset + 1  ! C's offsets count from 0, u(:) from 1
    call finish(s, status)
  end procedure

  module procedure tessera_dist_local_storage_size
    size = 0
    call finish(c_dist_local_storage_size(dist%h, int(rank, c_int), size), status)
  end procedure

  module procedure tessera_storage_index
    integer(c_int64_t) :: c_point(TESSERA_MAX_DIM), offset
    integer(c_int) :: s
    index = 0
    s = array_point(array, point, 'tessera_storage_index', c_point)
    if (s == TESSERA_OK) s = c_array_storage_offset(array%h, c_point, offset)
    if (s == TESSERA_OK) index = offset + 1  ! C's offsets count from 0, u(:) from 1
    call finish(s, status)
  end procedure

  module procedure tessera_storage
    type(c_ptr) :: data
    integer(c_int64_t) :: n
    integer(c_int) :: s
    u => nothing
    s = c_array_storage(array%h, C_TESSERA_DOUBLE, data, n)
    if (s == TESSERA_OK .and. c_associated(data) .and. n > 0) call c_f_pointer(data, u, [n])
    call finish(s, status)
  end procedure

end submodule box_sets
