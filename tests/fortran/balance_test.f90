!> Boundary rules and balancers from the Fortran module, each against a serial reference:
!> - side rules (reflect, odd reflect, constant, extrapolation) on a block-distributed 11 x 7 array
!>   with two ghost layers: every stored cell after a ghost update against the rules applied to a
!>   serial image in the documented order (the last dimension's first, so corners follow dimension
!>   1's rule);
!> - hole rules (constant, odd reflect) on a box set with a hole: every ghost cell over the hole
!>   against the box's own cells mirrored about the faces it lies beyond;
!> - a balancer over rows: a remap point after rank 0 reports ten times the others' time moves rows
!>   off rank 0, values kept; AMP's processor-set changes by a list of ranks and by an availability
!>   file (the last rank withdrawn, then back), values kept each time; the timer's call order;
!> - chopping (counts, cuts and coverage against a serial computation) and a box balancer that
!>   spreads the pieces of a 16 x 16 domain from rank 0 by their timed cells, values kept;
!> - bad calls, each with its status.
!> Prints "fortran balance test: K ranks, all checks passed" on rank 0 only if every rank's checks hold.
program balance_test
  use, intrinsic :: iso_c_binding, only: c_double, c_int64_t
  use mpi_f08
  use tessera
  use test_checks
  implicit none
  type(tessera_comm) :: world
  integer :: rank, nranks, live

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  call tessera_comm_create(MPI_COMM_WORLD%MPI_VAL, world)

  call side_rules()
  call hole_rules()
  call policies()
  call row_balancer()
  call processor_sets()
  call chopping()
  call box_balancer()

  call tessera_free(world)
  call tessera_live_handles(live)
  call expect(live == 0, 'every handle freed')
  call finish_checks('fortran balance test')
  call MPI_Finalize()

contains

  pure real(c_double) function g(i, j)
    integer, intent(in) :: i, j
    g = real(i * i + 3 * j * j + i * j, c_double)
  end function

  ! Every owned cell of every patch of `u` set to g.
  subroutine fill_patches(u)
    type(tessera_array), intent(in) :: u
    real(c_double), pointer :: a(:, :)
    integer :: p, count, plo(2), phi(2), i, j
    call tessera_patch_count(u, count)
    do p = 0, count - 1
      call tessera_local(u, a, patch=p)
      call tessera_owned(u, plo, phi, patch=p)
      do j = plo(2), phi(2)
        do i = plo(1), phi(1)
          a(i, j) = g(i, j)
        end do
      end do
    end do
  end subroutine

  ! ---------------------------------------------------------------------------------------------

  subroutine side_rules()
    integer, parameter :: nx = 11, ny = 7, w = 2
    real(c_double), parameter :: wall = -5
    type(tessera_grid) :: grid
    type(tessera_dist) :: dist
    type(tessera_domain) :: dom
    type(tessera_array) :: u, p
    real(c_double), pointer :: a(:, :)
    real(c_double) :: ref(1 - w:nx + w, 1 - w:ny + w)
    integer :: olo(2), ohi(2), i, j, k, s
    logical :: good

    call tessera_grid_automatic(nranks, [nx, ny], grid)
    call tessera_dist_create(grid, [1, 1], [nx, ny], [tessera_block(), tessera_block()], dist)
    call tessera_domain_create(world, dist, dom)
    call tessera_array_create(dom, u, ghosts=w)
    call fill_patches(u)
    call tessera_local(u, a)
    call tessera_owned(u, olo, ohi)
    call tessera_set_boundary(u, 1, .false., TESSERA_BOUNDARY_REFLECT)
    call tessera_set_boundary(u, 1, .true., TESSERA_BOUNDARY_REFLECT_ODD)
    call tessera_set_boundary(u, 2, .false., TESSERA_BOUNDARY_CONSTANT, value=wall)
    call tessera_set_boundary(u, 2, .true., TESSERA_BOUNDARY_EXTRAPOLATE)
    call tessera_update_ghosts(u)

    ! The serial image: the domain, then dimension 2's rules over every i, then dimension 1's over
    ! every j (C's axis order: the last Fortran dimension first).
    ref = 0
    do j = 1, ny
      do i = 1, nx
        ref(i, j) = g(i, j)
      end do
    end do
    do k = 1, w
      ref(:, 1 - k) = wall
      ref(:, ny + k) = ref(:, ny) + k * (ref(:, ny) - ref(:, ny - 1))
    end do
    do k = 1, w
      ref(1 - k, :) = ref(k, :)
      ref(nx + k, :) = -ref(nx + 1 - k, :)
    end do
    good = lbound(a, 1) == olo(1) - w .and. ubound(a, 2) == ohi(2) + w
    do j = lbound(a, 2), ubound(a, 2)
      do i = lbound(a, 1), ubound(a, 1)
        good = good .and. a(i, j) == ref(i, j)
      end do
    end do
    call expect(good, 'side rules: every stored cell, ghosts and corners, matches the serial image')

    ! Setting a rule back to NONE leaves those ghosts as the program wrote them.
    call tessera_set_boundary(u, 2, .false., TESSERA_BOUNDARY_NONE)
    if (olo(2) == 1) a(olo(1), 0) = 42
    call tessera_update_ghosts(u)
    if (olo(2) == 1) call expect(a(olo(1), 0) == 42, 'side rules: NONE leaves the ghost cell alone')

    ! Bad calls: a dimension the array lacks, a constant without its value, a rule along a periodic
    ! dimension, a rule that is none.
    call tessera_set_boundary(u, 3, .false., TESSERA_BOUNDARY_REFLECT, status=s)
    call expect(refused(s, TESSERA_ERR_INVALID_ARGUMENT, 'dim = 3'), &
                'tessera_set_boundary: dimension 3 of a 2-D array is INVALID_ARGUMENT, named')
    call tessera_set_boundary(u, 1, .true., TESSERA_BOUNDARY_CONSTANT, status=s)
    call expect(refused(s, TESSERA_ERR_INVALID_ARGUMENT, 'value='), &
                'tessera_set_boundary: a constant without value= is INVALID_ARGUMENT')
    call tessera_set_boundary(u, 1, .true., 17, status=s)
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'tessera_set_boundary: rule 17 is INVALID_ARGUMENT')
    call tessera_array_create(dom, p, ghosts=1, periodic=[.true., .false.])
    call tessera_set_boundary(p, 1, .false., TESSERA_BOUNDARY_REFLECT, status=s)
    call expect(refused(s, TESSERA_ERR_INVALID_ARGUMENT, 'Fortran dimension'), &
                'tessera_set_boundary: a rule along a periodic dimension is INVALID_ARGUMENT, in Fortran terms')
    call tessera_set_boundary(p, 2, .false., TESSERA_BOUNDARY_REFLECT, status=s)
    call expect(s == TESSERA_OK, 'tessera_set_boundary: the other dimension of a periodic array takes a rule')

    call tessera_free(p)
    call tessera_free(u)
    call tessera_free(dom)
    call tessera_free(dist)
    call tessera_free(grid)
  end subroutine

  ! ---------------------------------------------------------------------------------------------

  subroutine hole_rules()
    ! 8 x 8 less the hole 5:8 x 5:8, in four boxes owned round robin.
    integer, parameter :: n = 8, nboxes = 4
    integer, parameter :: lo(2, nboxes) = reshape([1, 1, 1, 5, 5, 1, 5, 3], [2, nboxes])
    integer, parameter :: hi(2, nboxes) = reshape([4, 4, 4, 8, 8, 2, 8, 4], [2, nboxes])
    real(c_double), parameter :: wall = -3
    type(tessera_dist) :: dist
    type(tessera_domain) :: dom
    type(tessera_array) :: u
    real(c_double), pointer :: a(:, :)
    integer :: owners(nboxes), b, p, count, plo(2), phi(2), i, j, s
    logical :: good_constant, good_odd

    owners = [(mod(b, nranks), b = 0, nboxes - 1)]
    call tessera_dist_from_boxes(nranks, lo, hi, owners, dist, domain_lo=[1, 1], domain_hi=[n, n])
    call tessera_domain_create(world, dist, dom)
    call tessera_array_create(dom, u, ghosts=1)
    call fill_patches(u)
    call tessera_patch_count(u, count)

    call tessera_set_hole_boundary(u, TESSERA_BOUNDARY_CONSTANT, value=wall)
    call tessera_update_ghosts(u)
    good_constant = .true.
    do p = 0, count - 1
      call tessera_local(u, a, patch=p)
      do j = lbound(a, 2), ubound(a, 2)
        do i = lbound(a, 1), ubound(a, 1)
          if (in_hole(i, j)) then
            good_constant = good_constant .and. a(i, j) == wall
          else if (inside(i, j)) then
            good_constant = good_constant .and. a(i, j) == g(i, j)
          end if
        end do
      end do
    end do
    call expect(good_constant, 'hole rules: a constant fills every ghost cell over the hole, the rest hold the formula')

    call tessera_set_hole_boundary(u, TESSERA_BOUNDARY_REFLECT_ODD)
    call tessera_update_ghosts(u)
    good_odd = .true.
    do p = 0, count - 1
      call tessera_local(u, a, patch=p)
      call tessera_owned(u, plo, phi, patch=p)
      do j = lbound(a, 2), ubound(a, 2)
        do i = lbound(a, 1), ubound(a, 1)
          if (in_hole(i, j)) good_odd = good_odd .and. a(i, j) == -g(mirror(i, plo(1), phi(1)), mirror(j, plo(2), phi(2)))
        end do
      end do
    end do
    call expect(good_odd, 'hole rules: an odd reflection gives each ghost over the hole its box''s mirrored cell, negated')

    call tessera_set_hole_boundary(u, TESSERA_BOUNDARY_EXTRAPOLATE, status=s)
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'tessera_set_hole_boundary: an extrapolation is INVALID_ARGUMENT')
    call tessera_set_hole_boundary(u, TESSERA_BOUNDARY_CONSTANT, status=s)
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'tessera_set_hole_boundary: a constant without value= is refused')

    call tessera_free(u)
    call tessera_free(dom)
    call tessera_free(dist)
  end subroutine

  ! In hole_rules' 8 x 8 domain; in its hole.
  pure logical function inside(i, j)
    integer, intent(in) :: i, j
    inside = i >= 1 .and. i <= 8 .and. j >= 1 .and. j <= 8
  end function
  pure logical function in_hole(i, j)
    integer, intent(in) :: i, j
    in_hole = i >= 5 .and. i <= 8 .and. j >= 5 .and. j <= 8
  end function
  ! Index i mirrored about the face of l:h it lies beyond (itself inside).
  pure integer function mirror(i, l, h)
    integer, intent(in) :: i, l, h
    mirror = i
    if (i < l) mirror = 2 * l - 1 - i
    if (i > h) mirror = 2 * h + 1 - i
  end function

  ! ---------------------------------------------------------------------------------------------

  subroutine policies()
    type(tessera_policy) :: policy
    integer :: kind, s
    logical :: good
    good = .true.
    do kind = TESSERA_POLICY_NONE, TESSERA_POLICY_HORIZON
      call tessera_policy_defaults(kind, policy, status=s)
      good = good .and. s == TESSERA_OK .and. policy%kind == kind
    end do
    call expect(good, 'tessera_policy_defaults: every kind, its own kind filled in')
    call tessera_policy_defaults(TESSERA_POLICY_STATIC, policy)
    call expect(policy%delta > 0 .and. policy%delta <= 1, 'the static policy''s default delta is in (0, 1]')
    call tessera_policy_defaults(8, policy, status=s)
    call expect(refused(s, TESSERA_ERR_INVALID_ARGUMENT, '''kind'' = 8'), &
                'tessera_policy_defaults: kind 8 is INVALID_ARGUMENT, named')
  end subroutine

  ! Rows over every rank (grid 1 x nranks: Fortran dimension 2 split), 4 columns, 8 rows a rank.
  subroutine make_rows(dom, dist, grid, u, ny)
    type(tessera_domain), intent(out) :: dom
    type(tessera_dist), intent(out) :: dist
    type(tessera_grid), intent(out) :: grid
    type(tessera_array), intent(out) :: u
    integer, intent(in) :: ny
    call tessera_grid_create(nranks, [1, nranks], grid)
    call tessera_dist_create(grid, [1, 1], [4, ny], [tessera_block(), tessera_block()], dist)
    call tessera_domain_create(world, dist, dom)
    call tessera_array_create(dom, u)
    call fill_patches(u)
  end subroutine

  ! Every owned value (through a fresh tessera_local) and the gathered image against the formula.
  subroutine expect_rows_kept(u, ny, what)
    type(tessera_array), intent(in) :: u
    integer, intent(in) :: ny
    character(*), intent(in) :: what
    real(c_double), pointer :: a(:, :)
    real(c_double), allocatable :: whole(:, :)
    integer :: olo(2), ohi(2), i, j, count
    logical :: good
    good = .true.
    call tessera_patch_count(u, count)
    if (count > 0) then
      call tessera_local(u, a)
      call tessera_owned(u, olo, ohi)
      do j = olo(2), ohi(2)
        do i = olo(1), ohi(1)
          good = good .and. a(i, j) == g(i, j)
        end do
      end do
    end if
    allocate(whole(4, ny))
    whole = -1
    call tessera_gather(u, 0, whole)
    if (rank == 0) then
      do j = 1, ny
        do i = 1, 4
          good = good .and. whole(i, j) == g(i, j)
        end do
      end do
    end if
    call expect(good, what // ': every value kept (owned views and the gathered image)')
  end subroutine

  ! The rows this rank owns (0 when it owns nothing).
  integer function rows_owned(u)
    type(tessera_array), intent(in) :: u
    integer :: olo(2), ohi(2), count
    call tessera_patch_count(u, count)
    rows_owned = 0
    if (count == 0) return
    call tessera_owned(u, olo, ohi)
    rows_owned = max(ohi(2) - olo(2) + 1, 0)
  end function

  subroutine row_balancer()
    type(tessera_grid) :: grid
    type(tessera_dist) :: dist
    type(tessera_domain) :: dom
    type(tessera_array) :: u
    type(tessera_policy) :: policy
    type(tessera_balancer) :: bal
    type(tessera_balance_step) :: step
    integer :: ny, s

    ny = 8 * nranks
    call make_rows(dom, dist, grid, u, ny)
    call tessera_policy_defaults(TESSERA_POLICY_STATIC, policy)
    policy%delta = 1
    call tessera_balancer_create(dom, policy, bal, interval=2, weights=TESSERA_WEIGHTS_INVERSE_TIME)

    ! The timer's call order.
    call tessera_balancer_timer_stop(bal, status=s)
    call expect(s == TESSERA_ERR_CALL_ORDER, 'tessera_balancer_timer_stop before a start: CALL_ORDER')
    call tessera_balancer_timer_start(bal)
    call tessera_balancer_timer_start(bal, status=s)
    call expect(s == TESSERA_ERR_CALL_ORDER, 'tessera_balancer_timer_start twice: CALL_ORDER')
    call tessera_balancer_step(bal, status=s)
    call expect(s == TESSERA_ERR_CALL_ORDER, 'tessera_balancer_step while the timer runs: CALL_ORDER')
    call tessera_balancer_timer_stop(bal)
    call tessera_balancer_step(bal, step=step)
    call expect(step%iteration == 1 .and. step%remap_point == 0, 'the first step is no remap point')
    call expect(rows_owned(u) == 8, 'nothing moved before the remap point')

    ! The second step is a remap point: rank 0 reports ten times the others' time.
    if (rank == 0) then
      call tessera_balancer_step(bal, step=step, seconds=0.1_c_double)
    else
      call tessera_balancer_step(bal, step=step, seconds=0.01_c_double)
    end if
    call expect(step%remap_point == 1 .and. step%active_ranks == nranks, 'the second step is a remap point')
    if (nranks > 1) then
      call expect(step%imbalance > 0.05 .and. step%delta == 1 .and. step%elements > 0 .and. &
                  step%bytes == 8 * step%elements, 'an imbalanced remap point moves rows: elements and bytes reported')
      if (rank == 0) call expect(rows_owned(u) < 8, 'the slow rank 0 owns fewer rows after the remap point')
    else
      call expect(step%elements == 0, 'one rank: nothing to move')
    end if
    call expect_rows_kept(u, ny, 'after the remap point')

    call tessera_balancer_step(bal, status=s, seconds=-1.0_c_double)
    call expect(refused(s, TESSERA_ERR_INVALID_ARGUMENT, '''seconds'' = -1'), &
                'tessera_balancer_step: negative seconds are INVALID_ARGUMENT, named')

    call tessera_free(bal)
    ! A bad policy and bad options: nothing made.
    policy%delta = 2
    call tessera_balancer_create(dom, policy, bal, status=s)
    call expect(refused(s, TESSERA_ERR_INVALID_ARGUMENT, '''delta'' = 2'), &
                'tessera_balancer_create: delta 2 is INVALID_ARGUMENT, named')
    policy%delta = 1
    call tessera_balancer_create(dom, policy, bal, status=s, interval=0)
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'tessera_balancer_create: interval 0 is INVALID_ARGUMENT')
    call tessera_balancer_create(dom, policy, bal, status=s, weights=9)
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'tessera_balancer_create: weights 9 is INVALID_ARGUMENT')
    call tessera_balancer_create(dom, policy, bal, status=s, weights=TESSERA_WEIGHTS_D3ARC, lb=0.0_c_double)
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'tessera_balancer_create: D3-ARC weights with lb 0 are refused')

    call tessera_free(u)
    call tessera_free(dom)
    call tessera_free(dist)
    call tessera_free(grid)
  end subroutine

  subroutine processor_sets()
    type(tessera_grid) :: grid
    type(tessera_dist) :: dist
    type(tessera_domain) :: dom
    type(tessera_array) :: u
    type(tessera_policy) :: policy
    type(tessera_balancer) :: bal
    type(tessera_balance_step) :: step
    character(:), allocatable :: pattern, mine
    integer :: ny, r, s, unit, stamp(1)
    real(c_double) :: seconds

    ny = 8 * nranks
    call make_rows(dom, dist, grid, u, ny)
    call tessera_policy_defaults(TESSERA_POLICY_NONE, policy)
    call tessera_balancer_create(dom, policy, bal, interval=1)

    ! Only rank 0 holds data; the others become skeletons; then everybody again.
    call tessera_balancer_set_active_ranks(bal, [0], seconds=seconds)
    call expect(seconds >= 0, 'tessera_balancer_set_active_ranks reports its time')
    if (rank == 0) then
      call expect(rows_owned(u) == ny, 'rank 0 alone holds every row')
    else
      call expect(rows_owned(u) == 0, 'a withdrawn rank holds nothing')
    end if
    call expect_rows_kept(u, ny, 'rank 0 alone')
    call tessera_balancer_set_active_ranks(bal, [(r, r = 0, nranks - 1)])
    call expect(rows_owned(u) > 0, 'every rank holds rows again')
    call expect_rows_kept(u, ny, 'every rank again')

    ! An availability file withdraws the last rank at the next remap point while it exists.
    stamp(1) = 0
    if (rank == 0) call system_clock(stamp(1))
    call MPI_Bcast(stamp, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
    pattern = '/tmp/tessera-fortran-balance-' // text_of(stamp(1)) // '-{rank}'
    mine = '/tmp/tessera-fortran-balance-' // text_of(stamp(1)) // '-' // text_of(rank)
    call tessera_balancer_set_availability_file(bal, pattern)
    if (rank == nranks - 1 .and. nranks > 1) then
      open(newunit=unit, file=mine, status='replace')
      close(unit)
    end if
    call tessera_balancer_step(bal, step=step, seconds=0.01_c_double)
    if (nranks > 1) then
      call expect(step%processor_set_changed == 1 .and. step%active_ranks == nranks - 1, &
                  'the file withdraws the last rank at the remap point')
      if (rank == nranks - 1) call expect(rows_owned(u) == 0, 'the withdrawn rank holds nothing')
    end if
    call expect_rows_kept(u, ny, 'last rank withdrawn')
    if (rank == nranks - 1 .and. nranks > 1) then
      open(newunit=unit, file=mine, status='old')
      close(unit, status='delete')
    end if
    call tessera_balancer_step(bal, step=step, seconds=0.01_c_double)
    call expect(step%active_ranks == nranks, 'the file gone, the last rank is back at the next remap point')
    call expect_rows_kept(u, ny, 'last rank back')
    call tessera_balancer_set_slowdown_threshold(bal, 3.0_c_double, 2)

    ! Bad calls.
    call tessera_balancer_set_active_ranks(bal, [0, 0], status=s)
    call expect(refused(s, TESSERA_ERR_INVALID_ARGUMENT, 'repeats'), &
                'tessera_balancer_set_active_ranks: a repeated rank is INVALID_ARGUMENT')
    call tessera_balancer_set_availability_file(bal, '', status=s)
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'tessera_balancer_set_availability_file: an empty pattern is refused')
    call tessera_balancer_set_slowdown_threshold(bal, 0.5_c_double, 2, status=s)
    call expect(refused(s, TESSERA_ERR_INVALID_ARGUMENT, '''factor'' = 0.5'), &
                'tessera_balancer_set_slowdown_threshold: factor 0.5 is INVALID_ARGUMENT, named')
    call expect_rows_kept(u, ny, 'after the refused calls')

    call tessera_free(bal)
    call tessera_balancer_step(bal, status=s)
    call expect(s == TESSERA_ERR_NULL_HANDLE, 'a freed balancer handle is NULL')
    call tessera_free(u)
    call tessera_free(dom)
    call tessera_free(dist)
    call tessera_free(grid)
  end subroutine

  ! ---------------------------------------------------------------------------------------------

  subroutine chopping()
    integer, allocatable :: plo(:, :), phi(:, :)
    integer :: s, k, volume
    logical :: good
    ! 1:10 x 1:3 with no piece over 4 x 3: 4 + 3 + 3 along dimension 1, one piece along 2.
    call tessera_chop_boxes(reshape([1, 1], [2, 1]), reshape([10, 3], [2, 1]), [4, 3], plo, phi)
    call expect(size(plo, 2) == 3 .and. all(plo(1, :) == [1, 5, 8]) .and. all(phi(1, :) == [4, 7, 10]) .and. &
                all(plo(2, :) == 1) .and. all(phi(2, :) == 3), 'tessera_chop_boxes: 10 cells cut 4 + 3 + 3')
    ! 1:9 x 1:7 with no piece over 4 x 3: ceil(9/4) x ceil(7/3) = 3 x 3 pieces, dimension 1 fastest,
    ! covering the box (volumes add up, none too big, none outside).
    call tessera_chop_boxes(reshape([1, 1], [2, 1]), reshape([9, 7], [2, 1]), [4, 3], plo, phi)
    good = size(plo, 2) == 9
    volume = 0
    do k = 1, size(plo, 2)
      good = good .and. all(plo(:, k) >= 1) .and. phi(1, k) <= 9 .and. phi(2, k) <= 7 .and. &
             all(phi(:, k) - plo(:, k) + 1 <= [4, 3]) .and. all(phi(:, k) >= plo(:, k))
      volume = volume + product(phi(:, k) - plo(:, k) + 1)
    end do
    good = good .and. volume == 63 .and. all(plo(1, 1:3) == [1, 4, 7]) .and. all(plo(2, 1:3) == 1) .and. plo(2, 4) == 4
    call expect(good, 'tessera_chop_boxes: 9 x 7 in 3 x 3 pieces, dimension 1 fastest, covering the box')
    call tessera_chop_boxes(reshape([1, 1], [2, 1]), reshape([9, 7], [2, 1]), [4, 0], plo, phi, status=s)
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT .and. size(plo, 2) == 0, &
                'tessera_chop_boxes: a maximum of 0 is INVALID_ARGUMENT, no pieces')
    call tessera_chop_boxes(reshape([1, 1], [2, 1]), reshape([9, 7], [2, 1]), [4], plo, phi, status=s)
    call expect(refused(s, TESSERA_ERR_INVALID_ARGUMENT, 'max_extent has 1'), &
                'tessera_chop_boxes: one maximum for two dimensions is INVALID_ARGUMENT, named')
  end subroutine

  subroutine box_balancer()
    integer, parameter :: n = 16
    type(tessera_dist) :: dist, now, plain
    type(tessera_grid) :: grid
    type(tessera_domain) :: dom, plain_dom
    type(tessera_array) :: u
    type(tessera_policy) :: policy
    type(tessera_box_balancer) :: bal
    type(tessera_balance_step) :: step
    integer, allocatable :: plo(:, :), phi(:, :), back_lo(:, :), back_hi(:, :), owners(:), zeros(:)
    real(c_double), pointer :: a(:, :)
    real(c_double), allocatable :: whole(:, :)
    integer :: p, npatches, box, olo(2), ohi(2), i, j, s
    logical :: good, consistent

    ! The domain in 4 x 8 pieces, every one on rank 0.
    call tessera_chop_boxes(reshape([1, 1], [2, 1]), reshape([n, n], [2, 1]), [4, 8], plo, phi)
    call expect(size(plo, 2) == 8, 'tessera_chop_boxes: 16 x 16 in eight 4 x 8 pieces')
    allocate(zeros(size(plo, 2)))
    zeros = 0
    call tessera_dist_from_boxes(nranks, plo, phi, zeros, dist)
    call tessera_domain_create(world, dist, dom)
    call tessera_array_create(dom, u)
    call fill_patches(u)
    call tessera_patch_count(u, npatches)

    call tessera_policy_defaults(TESSERA_POLICY_STATIC, policy)
    policy%delta = 1
    call tessera_box_balancer_create(dom, policy, bal, interval=1)
    good = .true.
    do p = 0, npatches - 1
      call tessera_box_balancer_box_of_patch(bal, p, box)
      good = good .and. box == p  ! rank 0 holds every box, in box order
      call tessera_box_balancer_timer_add(bal, p, 32 * 1e-3_c_double)
    end do
    call expect(good, 'tessera_box_balancer_box_of_patch: rank 0''s patches are the boxes in order')
    call tessera_box_balancer_timer_start(bal, npatches, status=s)
    call expect(s == TESSERA_ERR_OUT_OF_RANGE, 'tessera_box_balancer_timer_start: a patch past the last is OUT_OF_RANGE')
    call tessera_box_balancer_timer_add(bal, -1, 1.0_c_double, status=s)
    call expect(s == TESSERA_ERR_OUT_OF_RANGE, 'tessera_box_balancer_timer_add: patch -1 is OUT_OF_RANGE')

    call tessera_box_balancer_step(bal, step=step)
    call expect(step%remap_point == 1 .and. (step%blocks > 0 .eqv. nranks > 1), &
                'the box balancer''s remap point moves boxes off rank 0 (when there are other ranks)')
    ! The owners now: spread, and each patch's box owned by this rank.
    call tessera_domain_dist(dom, now)
    call tessera_dist_box_set(now, back_lo, back_hi, owners)
    if (nranks > 1) call expect(count(owners /= 0) > 0, 'boxes now live on other ranks than 0')
    call tessera_patch_count(u, npatches)
    consistent = npatches == count_where(owners, rank)
    good = .true.
    do p = 0, npatches - 1
      call tessera_box_balancer_box_of_patch(bal, p, box)
      call tessera_local(u, a, patch=p)
      call tessera_owned(u, olo, ohi, patch=p)
      consistent = consistent .and. owners(box + 1) == rank .and. all(olo == back_lo(:, box + 1)) .and. &
                   all(ohi == back_hi(:, box + 1))
      do j = olo(2), ohi(2)
        do i = olo(1), ohi(1)
          good = good .and. a(i, j) == g(i, j)
        end do
      end do
    end do
    call expect(consistent, 'each patch stores the box box_of_patch names, owned by this rank in the new set')
    allocate(whole(n, n))
    whole = -1
    call tessera_gather(u, 0, whole)
    if (rank == 0) then
      do j = 1, n
        do i = 1, n
          good = good .and. whole(i, j) == g(i, j)
        end do
      end do
    end if
    call expect(good, 'the box balancer keeps every value (patches and the gathered image)')

    ! A timer running on some rank at a remap point: refused on every rank, nothing moved.
    ! (Some rank holds the eight boxes, so every rank must see the refusal.)
    if (npatches > 0) call tessera_box_balancer_timer_start(bal, 0)
    call tessera_box_balancer_step(bal, status=s)
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'a timer running at a remap point: INVALID_ARGUMENT on every rank')
    if (npatches > 0) call tessera_box_balancer_timer_stop(bal, 0)

    ! Not a box set; a byte budget below 0.
    call tessera_grid_automatic(nranks, [n, n], grid)
    call tessera_dist_create(grid, [1, 1], [n, n], [tessera_block(), tessera_block()], plain)
    call tessera_domain_create(world, plain, plain_dom)
    call tessera_free(bal)
    call tessera_box_balancer_create(plain_dom, policy, bal, status=s)
    call expect(refused(s, TESSERA_ERR_INVALID_ARGUMENT, 'not a box set'), &
                'tessera_box_balancer_create: a block distribution is INVALID_ARGUMENT')
    call tessera_box_balancer_create(dom, policy, bal, status=s, max_bytes_per_step=-1_c_int64_t)
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'tessera_box_balancer_create: a negative byte budget is refused')
    call tessera_box_balancer_create(dom, policy, bal, status=s, target=TESSERA_ASSIGN_HILBERT)
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'tessera_box_balancer_create: a Hilbert target is refused')

    call tessera_free(plain_dom)
    call tessera_free(plain)
    call tessera_free(grid)
    call tessera_free(now)
    call tessera_free(u)
    call tessera_free(dom)
    call tessera_free(dist)
  end subroutine

  pure integer function count_where(list, value)
    integer, intent(in) :: list(:), value
    count_where = count(list == value)
  end function

end program balance_test
