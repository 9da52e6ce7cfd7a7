!> Processor groups from the Fortran module (ZPL's disjoint grids): from 3 ranks on the last rank is
!> in no group (it takes part in the copies all the same); of the others, group 0 holds the first
!> half (rounded up) and group 1 the rest; each group's own communicator and domain; an array
!> scattered on group 0 copied into a differently distributed array of group 1 and checked there,
!> value by value, against the formula; bad calls failing on every rank. On 1 rank: one group, and a
!> copy between one group and itself refused. Prints "fortran groups test: K ranks, all checks
!> passed" on rank 0 only if every rank's checks hold.
program groups_test
  use, intrinsic :: iso_c_binding, only: c_double
  use mpi_f08
  use tessera
  use test_checks
  implicit none
  integer, parameter :: nx = 7, ny = 5
  type(tessera_comm) :: world
  integer :: rank, nranks, live

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  call tessera_comm_create(MPI_COMM_WORLD%MPI_VAL, world)
  if (nranks == 1) then
    call one_group()
  else
    call two_groups()
  end if
  call tessera_free(world)
  call tessera_live_handles(live)
  call expect(live == 0, 'every handle freed')

  call finish_checks('fortran groups test')
  call MPI_Finalize()

contains

  pure real(c_double) function f(i, j)
    integer, intent(in) :: i, j
    f = real(i + 100 * j, c_double)
  end function

  ! A block distribution of the nx x ny domain over `size` ranks, cyclic along y when `cyclic_y`.
  subroutine make_dist(size, cyclic_y, grid, dist)
    integer, intent(in) :: size
    logical, intent(in) :: cyclic_y
    type(tessera_grid), intent(out) :: grid
    type(tessera_dist), intent(out) :: dist
    if (cyclic_y) then
      call tessera_grid_create(size, [1, size], grid)
      call tessera_dist_create(grid, [1, 1], [nx, ny], [tessera_block(), tessera_cyclic()], dist)
    else
      call tessera_grid_create(size, [size, 1], grid)
      call tessera_dist_create(grid, [1, 1], [nx, ny], [tessera_block(), tessera_block()], dist)
    end if
  end subroutine

  subroutine two_groups()
    type(tessera_groups) :: groups, bad
    type(tessera_grid) :: grid0, grid1
    type(tessera_dist) :: from, to
    type(tessera_comm) :: mine
    type(tessera_domain) :: dom
    type(tessera_array) :: u
    real(c_double), pointer :: a(:, :)
    real(c_double), allocatable :: data(:, :), back(:, :)
    integer :: used, size0, size1, group, count, k, i, j, s, lo(2), hi(2)
    integer :: ranks(nranks)
    logical :: good

    used = nranks
    if (nranks >= 3) used = nranks - 1  ! the last rank in no group
    size0 = (used + 1) / 2
    size1 = used - size0
    ranks = [(k, k = 0, nranks - 1)]
    call tessera_groups_create(world, ranks(1:size0 + size1), [size0, size1], groups)
    call tessera_groups_count(groups, count)
    call expect(count == 2, 'two groups')
    call tessera_groups_my_group(groups, group)
    if (rank < size0) then
      call expect(group == 0, 'the first ranks are group 0')
    else if (rank < size0 + size1) then
      call expect(group == 1, 'the next ranks are group 1')
    else
      call expect(group == -1, 'the last rank is in no group')
    end if
    call tessera_groups_group_of(groups, nranks - 1, k)
    call expect(k == merge(-1, 1, nranks >= 3), 'group_of the last rank')

    ! Both distributions on every rank (the copy names them alike everywhere).
    call make_dist(size0, .false., grid0, from)
    call make_dist(size1, .true., grid1, to)

    if (group >= 0) then
      call tessera_groups_comm(groups, mine)
      call tessera_domain_create(mine, merge(from, to, group == 0), dom)
      call tessera_array_create(dom, u)
    end if
    if (group == 0) then
      ! Scattered from group rank 0 (parent rank 0) over group 0's domain.
      if (rank == 0) then
        allocate(data(nx, ny))
        do j = 1, ny
          do i = 1, nx
            data(i, j) = f(i, j)
          end do
        end do
      else
        allocate(data(0, 0))
      end if
      call tessera_scatter(u, 0, data)
      call tessera_copy_between_groups(groups, 0, from, 1, to, src=u)
    else if (group == 1) then
      call tessera_copy_between_groups(groups, 0, from, 1, to, dst=u)
      ! The cyclic axis: local positions 1..count hold every size1-th index.
      call tessera_owned(u, lo, hi)
      call tessera_local(u, a)
      good = .true.
      do j = lo(2), hi(2)
        do i = lo(1), hi(1)
          good = good .and. a(i, j) == f(i, (rank - size0) + 1 + (j - 1) * size1)
        end do
      end do
      call expect(good, 'group 1 holds what group 0 held, in its own distribution')
      if (rank == size0) then
        allocate(back(nx, ny))
      else
        allocate(back(0, 0))
      end if
      call tessera_gather(u, 0, back)
      if (rank == size0) then
        good = .true.
        do j = 1, ny
          do i = 1, nx
            good = good .and. back(i, j) == f(i, j)
          end do
        end do
        call expect(good, 'the copy gathered on group 1')
      end if
    else
      call tessera_copy_between_groups(groups, 0, from, 1, to)  ! in neither group: takes part all the same
    end if

    ! Bad calls fail on every rank, before anything moves.
    call tessera_copy_between_groups(groups, 0, from, 0, from, status=s)
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'the same group twice')
    call tessera_copy_between_groups(groups, 0, from, 2, to, status=s)
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'a group that does not exist')
    if (group == 0) then
      call tessera_copy_between_groups(groups, 0, from, 1, to, status=s)  ! src missing on group 0
    else if (group == 1) then
      call tessera_copy_between_groups(groups, 0, from, 1, to, status=s, dst=u)
    else
      call tessera_copy_between_groups(groups, 0, from, 1, to, status=s)
    end if
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'an array missing on group 0')
    call tessera_groups_create(world, [0, 0], [1, 1], bad, status=s)
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'a rank in two groups')

    if (group >= 0) then
      call tessera_free(u)
      call tessera_free(dom)
      call tessera_free(mine)
    end if
    call tessera_free(from)
    call tessera_free(to)
    call tessera_free(grid0)
    call tessera_free(grid1)
    call tessera_free(groups)
  end subroutine

  subroutine one_group()
    type(tessera_groups) :: groups, bad
    type(tessera_grid) :: grid
    type(tessera_dist) :: dist
    type(tessera_comm) :: mine
    integer :: group, count, s, size
    call tessera_groups_create(world, [0], [1], groups)
    call tessera_groups_count(groups, count)
    call tessera_groups_my_group(groups, group)
    call expect(count == 1 .and. group == 0, 'one group of the one rank')
    call tessera_groups_comm(groups, mine)
    call tessera_comm_size(mine, size)
    call expect(size == 1, "the group's communicator")
    call make_dist(1, .false., grid, dist)
    call tessera_copy_between_groups(groups, 0, dist, 0, dist, status=s)
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'a copy from a group to itself')
    call tessera_groups_create(world, [integer ::], [0], bad, status=s)
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'an empty group')
    call tessera_free(mine)
    call tessera_free(dist)
    call tessera_free(grid)
    call tessera_free(groups)
  end subroutine

end program
