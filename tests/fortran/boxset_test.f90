!> Box sets and local layouts from the Fortran module: a 9 x 7 domain of five boxes with a hole,
!> owned round robin. Each rank sets its boxes through tessera_local(patch=), then every stored
!> value after a ghost update (box cells: the formula; holes and outside: untouched), the gather
!> (holes keep the buffer's value), the sum, get and set; the box list read back; tessera_assign_boxes
!> and D3-ARC's step (delta 0 and 1) with a redistribution to the step's owners. Then each local
!> order (column-major, row-major, padded 4, tiled 2): values written through tessera_storage at
!> tessera_dist_storage_index, the index pattern each order promises checked box by box against a
!> serial computation, gather, sum, and a move back to the plain box set. Bad calls fail with the
!> expected status. Prints "fortran box set test: K ranks, all checks passed" on rank 0 only if every
!> rank's checks hold.
program boxset_test
  use, intrinsic :: iso_c_binding, only: c_double, c_int64_t
  use mpi_f08
  use tessera
  use test_checks
  implicit none
  integer, parameter :: nx = 9, ny = 7, nboxes = 5
  ! Box b (from 0) is lo(:, b+1):hi(:, b+1); the cells (4, 4:7) and (5, 5:7) are in no box.
  integer, parameter :: lo(2, nboxes) = reshape([1, 1, 5, 1, 5, 3, 1, 4, 6, 5], [2, nboxes])
  integer, parameter :: hi(2, nboxes) = reshape([4, 3, 9, 2, 9, 4, 3, 7, 9, 7], [2, nboxes])
  real(c_double), parameter :: untouched = -7
  type(tessera_comm) :: world
  type(tessera_dist) :: dist
  integer :: rank, nranks, live, b, owners(nboxes)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  call tessera_comm_create(MPI_COMM_WORLD%MPI_VAL, world)
  owners = [(mod(b, nranks), b = 0, nboxes - 1)]
  call tessera_dist_from_boxes(nranks, lo, hi, owners, dist)

  call patches_and_ghosts()
  call box_list_and_balance()
  call local_orders()
  call bad_calls()

  call tessera_free(dist)
  call tessera_free(world)
  call tessera_live_handles(live)
  call expect(live == 0, 'every handle freed')
  call finish_checks('fortran box set test')
  call MPI_Finalize()

contains

  pure real(c_double) function f(i, j)
    integer, intent(in) :: i, j
    f = real(i + 100 * j, c_double)
  end function

  ! The box holding (i, j) (from 0), or -1 for a hole or a cell outside the domain.
  pure integer function box_of(i, j)
    integer, intent(in) :: i, j
    integer :: k
    box_of = -1
    do k = 1, nboxes
      if (all([i, j] >= lo(:, k)) .and. all([i, j] <= hi(:, k))) box_of = k - 1
    end do
  end function

  real(c_double) function serial_sum()
    integer :: i, j
    serial_sum = 0
    do j = 1, ny
      do i = 1, nx
        if (box_of(i, j) >= 0) serial_sum = serial_sum + f(i, j)
      end do
    end do
  end function

  ! The gathered image on root 0 against the formula (holes keep `untouched`).
  subroutine check_gather(u, what)
    type(tessera_array), intent(in) :: u
    character(*), intent(in) :: what
    real(c_double), allocatable :: whole(:, :)
    integer :: i, j
    logical :: good
    if (rank == 0) then
      allocate(whole(nx, ny))
    else
      allocate(whole(0, 0))
    end if
    whole = untouched
    call tessera_gather(u, 0, whole)
    if (rank /= 0) return
    good = .true.
    do j = 1, ny
      do i = 1, nx
        if (box_of(i, j) >= 0) then
          good = good .and. whole(i, j) == f(i, j)
        else
          good = good .and. whole(i, j) == untouched
        end if
      end do
    end do
    call expect(good, what // ': the gather holds the formula on every box cell, the holes untouched')
  end subroutine

  ! Every patch's owned cells against the formula, through tessera_local(patch=).
  subroutine check_patches(u, owners_now, what)
    type(tessera_array), intent(in) :: u
    integer, intent(in) :: owners_now(:)
    character(*), intent(in) :: what
    real(c_double), pointer :: a(:, :)
    integer :: p, count, plo(2), phi(2), k
    logical :: good, found
    call tessera_patch_count(u, count)
    call expect(count == count_of(owners_now, rank), what // ': one patch per box this rank owns')
    good = .true.
    do p = 0, count - 1
      call tessera_local(u, a, patch=p)
      call tessera_owned(u, plo, phi, patch=p)
      found = .false.
      do k = 1, nboxes
        if (owners_now(k) == rank .and. all(plo == lo(:, k)) .and. all(phi == hi(:, k))) found = .true.
      end do
      good = good .and. found .and. all(a(plo(1):phi(1), plo(2):phi(2)) == block_of_f(plo, phi))
    end do
    call expect(good, what // ': each patch is one of this rank''s boxes and holds the formula')
  end subroutine

  ! Sets the owned cells of every patch of `u` (one ghost layer) to the formula, checking the views'
  ! bounds on the way.
  subroutine fill_patches(u)
    type(tessera_array), intent(in) :: u
    real(c_double), pointer :: a(:, :)
    integer :: p, count, plo(2), phi(2)
    call tessera_patch_count(u, count)
    do p = 0, count - 1
      call tessera_local(u, a, patch=p)
      call tessera_owned(u, plo, phi, patch=p)
      call expect(lbound(a, 1) == plo(1) - 1 .and. ubound(a, 2) == phi(2) + 1, &
                  'a patch''s view has one ghost layer around its box, global indices')
      a(plo(1):phi(1), plo(2):phi(2)) = block_of_f(plo, phi)
    end do
  end subroutine

  pure integer function count_of(list, value)
    integer, intent(in) :: list(:), value
    count_of = count(list == value)
  end function

  pure function block_of_f(l, h) result(v)
    integer, intent(in) :: l(2), h(2)
    real(c_double) :: v(l(1):h(1), l(2):h(2))
    integer :: i, j
    do j = l(2), h(2)
      do i = l(1), h(1)
        v(i, j) = f(i, j)
      end do
    end do
  end function

  subroutine patches_and_ghosts()
    type(tessera_domain) :: dom
    type(tessera_array) :: u
    real(c_double), pointer :: a(:, :)
    real(c_double) :: total, value
    integer :: p, count, plo(2), phi(2), i, j, s
    logical :: good

    call tessera_domain_create(world, dist, dom)
    call tessera_array_create(dom, u, ghosts=1)
    call fill_patches(u)
    call tessera_patch_count(u, count)
    call check_patches(u, owners, 'box set')

    ! Ghosts: a cell of some box holds the formula, one over a hole or outside keeps 0.
    call tessera_update_ghosts(u)
    good = .true.
    do p = 0, count - 1
      call tessera_local(u, a, patch=p)
      do j = lbound(a, 2), ubound(a, 2)
        do i = lbound(a, 1), ubound(a, 1)
          if (box_of(i, j) >= 0) then
            good = good .and. a(i, j) == f(i, j)
          else
            good = good .and. a(i, j) == 0
          end if
        end do
      end do
    end do
    call expect(good, 'after the ghost update every stored cell of a box holds the formula, the others 0')

    call tessera_sum(u, total)
    call expect(total == serial_sum(), 'the sum is the serial sum over the boxes')
    call check_gather(u, 'box set')

    ! get and set: the owner of box 2's first cell writes it, reads it back, and sees it in its view.
    if (owners(3) == rank) then
      call tessera_set(u, lo(:, 3), -1.0_c_double)
      call tessera_get(u, lo(:, 3), value)
      call expect(value == -1, 'tessera_get reads what tessera_set wrote')
      call tessera_get(u, [lo(1, 3) + 1, lo(2, 3)], value)
      call expect(value == f(lo(1, 3) + 1, lo(2, 3)), 'tessera_get of an owned cell is its value')
      call tessera_set(u, lo(:, 3), f(lo(1, 3), lo(2, 3)))
    end if
    call tessera_get(u, [20, 20], value, status=s)
    call expect(s == TESSERA_ERR_OUT_OF_RANGE, 'tessera_get of a cell no rank stores: OUT_OF_RANGE')
    call tessera_get(u, [1, 1, 1], value, status=s)
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'tessera_get with three coordinates for 2-D: INVALID_ARGUMENT')

    ! A rank with several patches must say which; a patch it does not have is out of range.
    if (count > 1) then
      call tessera_local(u, a, status=s)
      call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'tessera_local without patch= over several patches')
      call expect(index(tessera_last_error(), 'patch=') > 0, 'the message says to pass patch=')
    end if
    call tessera_local(u, a, status=s, patch=count)
    call expect(s == TESSERA_ERR_OUT_OF_RANGE, 'tessera_local of a patch this rank does not store')
    call tessera_owned(u, plo, phi, status=s, patch=-1)
    call expect(s == TESSERA_ERR_OUT_OF_RANGE, 'tessera_owned of patch -1')

    call tessera_free(u)
    call tessera_free(dom)
  end subroutine

  subroutine box_list_and_balance()
    integer, allocatable :: blo(:, :), bhi(:, :), bowners(:)
    integer :: target(nboxes), stepped(nboxes), moved, k
    real(c_double) :: before, after
    type(tessera_dist) :: balanced
    type(tessera_domain) :: dom
    type(tessera_array) :: u

    call tessera_dist_box_set(dist, blo, bhi, bowners)
    call expect(all(shape(blo) == [2, nboxes]) .and. all(blo == lo) .and. all(bhi == hi) .and. &
                all(bowners == owners), 'tessera_dist_box_set gives back the boxes and owners')

    call tessera_assign_boxes(nranks, lo, hi, TESSERA_ASSIGN_KNAPSACK, target)
    call expect(all(target >= 0 .and. target < nranks), 'the knapsack assigns every box to a rank')
    if (nranks == 1) call expect(all(target == 0), 'on one rank every box goes to rank 0')
    call tessera_assign_boxes(nranks, lo, hi, TESSERA_ASSIGN_MORTON, stepped, weights=[(1.0_c_double, k = 1, nboxes)])
    call expect(all(stepped >= 0 .and. stepped < nranks), 'the Morton assignment with weights too')

    call tessera_incremental_box_step(nranks, lo, hi, owners, target, 0.0_c_double, stepped, moved=moved)
    call expect(all(stepped == owners) .and. moved == 0, 'a step of delta 0 moves nothing')
    call tessera_incremental_box_step(nranks, lo, hi, owners, target, 1.0_c_double, stepped, moved=moved, &
                                      excess_before=before, excess_after=after)
    call expect(moved == count(stepped /= owners), 'moved counts the boxes that change owner')
    call expect(all(stepped == owners .or. stepped == target), 'a box stays or goes to its target owner')
    call expect(after <= before, 'the step does not add excess load')

    ! The arrays follow the step's owners (a redistribution between two box sets).
    call tessera_domain_create(world, dist, dom)
    call tessera_array_create(dom, u, ghosts=1)
    call fill_patches(u)
    call tessera_dist_from_boxes(nranks, lo, hi, stepped, balanced)
    call tessera_redistribute(dom, balanced)
    call check_patches(u, stepped, 'after the step')
    call check_gather(u, 'after the step')
    call tessera_free(u)
    call tessera_free(dom)
    call tessera_free(balanced)
  end subroutine

  ! Writes every box cell this rank owns through the storage and checks each order's index pattern.
  subroutine local_orders()
    integer, parameter :: orders(4) = [TESSERA_LOCAL_COLUMN_MAJOR, TESSERA_LOCAL_ROW_MAJOR, TESSERA_LOCAL_PADDED, &
                                       TESSERA_LOCAL_TILED]
    integer, parameter :: sizes(4) = [1, 1, 4, 2]
    character(*), parameter :: names(4) = ['column-major', 'row-major   ', 'padded 4    ', 'tiled 2     ']
    type(tessera_dist) :: ldist
    type(tessera_domain) :: dom
    type(tessera_array) :: v
    real(c_double), pointer :: st(:), a(:, :)
    real(c_double) :: total, value
    integer(c_int64_t) :: at, next, storage_size, expected_size
    integer(c_int64_t), allocatable :: seen(:)
    integer :: o, k, i, j, s, owner
    logical :: has, good, pattern

    call tessera_dist_has_local_layout(dist, has)
    call expect(.not. has, 'a plain box set has no local layout')
    do o = 1, 4
      call tessera_dist_with_local_order(dist, orders(o), ldist, size=sizes(o))
      call tessera_dist_has_local_layout(ldist, has)
      call expect(has, trim(names(o)) // ': the distribution has a local layout')
      call tessera_domain_create(world, ldist, dom)
      call tessera_array_create(dom, v)
      call tessera_storage(v, st)
      call tessera_dist_local_storage_size(ldist, rank, storage_size)
      call expect(size(st, kind=c_int64_t) == storage_size, trim(names(o)) // ': the storage has the size promised')
      expected_size = 0
      do k = 1, nboxes
        if (owners(k) /= rank) cycle
        if (orders(o) == TESSERA_LOCAL_PADDED) then
          expected_size = expected_size + round_up(hi(1, k) - lo(1, k) + 1, sizes(o)) * (hi(2, k) - lo(2, k) + 1)
        else
          expected_size = expected_size + product(hi(:, k) - lo(:, k) + 1)
        end if
      end do
      call expect(storage_size == expected_size, trim(names(o)) // ': storage size against a serial count')

      ! Every box cell: its index is inside its owner's storage; the owner writes the formula there.
      good = .true.
      pattern = .true.
      do k = 1, nboxes
        owner = owners(k)
        call tessera_dist_local_storage_size(ldist, owner, expected_size)
        allocate(seen(0))
        do j = lo(2, k), hi(2, k)
          do i = lo(1, k), hi(1, k)
            call tessera_dist_storage_index(ldist, [i, j], at)
            good = good .and. at >= 1 .and. at <= expected_size
            if (owner == rank .and. at >= 1 .and. at <= size(st)) st(at) = f(i, j)
            seen = [seen, at]
            ! The pattern each order promises, one step along each dimension inside the box.
            if (i < hi(1, k) .and. orders(o) /= TESSERA_LOCAL_ROW_MAJOR .and. &
                (orders(o) /= TESSERA_LOCAL_TILED .or. mod(i - lo(1, k) + 1, sizes(o)) /= 0)) then
              call tessera_dist_storage_index(ldist, [i + 1, j], next)
              pattern = pattern .and. next == at + 1
            end if
            if (j < hi(2, k) .and. orders(o) == TESSERA_LOCAL_ROW_MAJOR) then
              call tessera_dist_storage_index(ldist, [i, j + 1], next)
              pattern = pattern .and. next == at + 1
            end if
            if (j < hi(2, k) .and. orders(o) == TESSERA_LOCAL_PADDED) then
              call tessera_dist_storage_index(ldist, [i, j + 1], next)
              pattern = pattern .and. next == at + round_up(hi(1, k) - lo(1, k) + 1, sizes(o))
            end if
          end do
        end do
        good = good .and. all_different(seen)
        deallocate(seen)
      end do
      call expect(good, trim(names(o)) // ': indices inside the owner''s storage, one per cell')
      call expect(pattern, trim(names(o)) // ': the index steps the order promises (first index fastest, ...)')

      call check_gather(v, trim(names(o)))
      call tessera_sum(v, total)
      call expect(total == serial_sum(), trim(names(o)) // ': the sum is the serial sum')
      if (owners(1) == rank) then
        call tessera_get(v, [2, 3], value)
        call expect(value == f(2, 3), trim(names(o)) // ': tessera_get reads through the layout')
      end if
      call tessera_local(v, a, status=s)
      call expect(s == TESSERA_ERR_INVALID_ARGUMENT, trim(names(o)) // ': tessera_local refuses a local layout')

      ! Back to the plain box set: patches again, values kept.
      call tessera_redistribute(dom, dist)
      call check_patches(v, owners, trim(names(o)) // ' moved to the plain box set')
      call tessera_free(v)
      call tessera_free(dom)
      call tessera_free(ldist)
    end do
  end subroutine

  pure integer function round_up(n, m)
    integer, intent(in) :: n, m
    round_up = (n + m - 1) / m * m
  end function

  pure logical function all_different(list)
    integer(c_int64_t), intent(in) :: list(:)
    integer :: a
    all_different = .true.
    do a = 2, size(list)
      if (any(list(1:a - 1) == list(a))) all_different = .false.
    end do
  end function

  subroutine bad_calls()
    type(tessera_dist) :: d, ldist
    type(tessera_grid) :: grid
    type(tessera_domain) :: dom
    integer, allocatable :: blo(:, :), bhi(:, :), bowners(:)
    integer :: s, assigned(nboxes)
    integer(c_int64_t) :: at
    integer :: overlapping_hi(2, nboxes)

    overlapping_hi = hi
    overlapping_hi(:, 1) = [5, 3]  ! box 0 now reaches into box 1
    call tessera_dist_from_boxes(nranks, lo, overlapping_hi, owners, d, status=s)
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'overlapping boxes: INVALID_ARGUMENT')
    call expect(index(tessera_last_error(), 'in C''s terms') > 0, 'the message says how to read C''s terms')
    call tessera_dist_from_boxes(nranks, lo, hi, [owners(1:4), nranks], d, status=s)
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'an owner outside the ranks: INVALID_ARGUMENT')
    call tessera_dist_from_boxes(nranks, lo, hi, owners(1:4), d, status=s)
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'owners shorter than the boxes: INVALID_ARGUMENT')
    call tessera_dist_from_boxes(nranks, lo, hi(:, 1:4), owners, d, status=s)
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'lo and hi of different shapes: INVALID_ARGUMENT')
    call tessera_dist_from_boxes(nranks, lo, hi, owners, d, status=s, domain_lo=[1, 1])
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'domain_lo without domain_hi: INVALID_ARGUMENT')
    call tessera_dist_from_boxes(nranks, lo, hi, owners, d, status=s, domain_lo=[1, 1], domain_hi=[8, 7])
    call expect(s == TESSERA_ERR_OUT_OF_RANGE, 'a box outside the domain: OUT_OF_RANGE')
    call tessera_assign_boxes(nranks, lo, hi, TESSERA_ASSIGN_KNAPSACK, assigned, status=s, weights=[1.0_c_double])
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'one weight for five boxes: INVALID_ARGUMENT')
    call tessera_assign_boxes(nranks, lo, hi, TESSERA_ASSIGN_KNAPSACK, assigned, status=s, &
                              weights=[1.0_c_double, -1.0_c_double, 1.0_c_double, 1.0_c_double, 1.0_c_double])
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'a negative weight: INVALID_ARGUMENT')

    ! Local orders: only for box sets, once, with a size that means something.
    call tessera_grid_create(nranks, [nranks, 1], grid)
    call tessera_dist_create(grid, [1, 1], [nx, ny], [tessera_block(), tessera_block()], d)
    call tessera_dist_with_local_order(d, TESSERA_LOCAL_COLUMN_MAJOR, ldist, status=s)
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'a local order on a dimensional distribution: INVALID_ARGUMENT')
    call tessera_dist_box_set(d, blo, bhi, bowners, status=s)
    call expect(s == TESSERA_ERR_MISMATCH .and. size(bowners) == 0, 'the box list of a dimensional distribution')
    call tessera_free(d)
    call tessera_free(grid)
    call tessera_dist_with_local_order(dist, TESSERA_LOCAL_COLUMN_MAJOR, ldist, status=s, size=2)
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'column-major with size 2: INVALID_ARGUMENT')
    call tessera_dist_with_local_order(dist, TESSERA_LOCAL_TILED, ldist, status=s, size=0)
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'tiles of side 0: INVALID_ARGUMENT')
    call tessera_dist_with_local_order(dist, 7, ldist, status=s)
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'an order that does not exist: INVALID_ARGUMENT')
    call tessera_dist_with_local_order(dist, TESSERA_LOCAL_PADDED, ldist, size=3)
    call tessera_dist_with_local_order(ldist, TESSERA_LOCAL_COLUMN_MAJOR, d, status=s)
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'a second local order: INVALID_ARGUMENT')
    call tessera_dist_storage_index(ldist, [4, 5], at, status=s)
    call expect(s == TESSERA_ERR_OUT_OF_RANGE, 'the storage index of a hole: OUT_OF_RANGE')
    call tessera_dist_storage_index(ldist, [4], at, status=s)
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'a point of one coordinate in 2-D: INVALID_ARGUMENT')
    call tessera_domain_create(world, ldist, dom)
    call local_layout_ghosts(dom)
    call tessera_free(dom)
    call tessera_free(ldist)
  end subroutine

  ! Ghost layers under a local layout (here padded 3): they live in ghost slabs after the owned
  ! points. After an update every ghost cell around each of this rank's boxes, read with tessera_get,
  ! holds the formula where a box holds it and 0 over the hole and outside; tessera_local is refused.
  subroutine local_layout_ghosts(dom)
    type(tessera_domain), intent(in) :: dom
    type(tessera_array) :: v
    real(c_double), pointer :: a(:, :), u(:)
    real(c_double) :: value
    integer(c_int64_t) :: at
    integer :: b, i, j, s
    logical :: good
    call tessera_array_create(dom, v, status=s, ghosts=1)
    call expect(s == TESSERA_OK, 'ghosts under a local layout: the array is made')
    do b = 1, nboxes
      if (owners(b) /= rank) cycle
      do j = lo(2, b), hi(2, b)
        do i = lo(1, b), hi(1, b)
          call tessera_set(v, [i, j], f(i, j))
        end do
      end do
    end do
    call tessera_update_ghosts(v)
    call tessera_storage(v, u)
    good = .true.
    do b = 1, nboxes
      if (owners(b) /= rank) cycle
      do j = lo(2, b) - 1, hi(2, b) + 1
        do i = lo(1, b) - 1, hi(1, b) + 1
          call tessera_get(v, [i, j], value)
          call tessera_storage_index(v, [i, j], at)
          good = good .and. u(at) == value
          if (box_of(i, j) >= 0) then
            good = good .and. value == f(i, j)
          else
            good = good .and. value == 0
          end if
        end do
      end do
    end do
    call expect(good, 'ghosts under a local layout: every ghost cell around this rank''s boxes after an update, ' // &
                'through tessera_get and at tessera_storage_index')
    call tessera_storage_index(v, [-5, -5], at, status=s)
    call expect(s == TESSERA_ERR_OUT_OF_RANGE, 'tessera_storage_index of a cell no rank stores here: OUT_OF_RANGE')
    call tessera_local(v, a, status=s)
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'tessera_local under a local layout with ghosts: INVALID_ARGUMENT')
    call tessera_free(v)
  end subroutine

end program
