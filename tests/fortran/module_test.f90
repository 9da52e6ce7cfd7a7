!> The Fortran module beyond the example (examples/fortran/heat.f90): 1-D and 3-D arrays, a cyclic
!> dimension (local positions instead of global indices), periodic ghosts, scatter and gather in
!> Fortran order, grid shapes, a destructive redistribution, and errors from the module and from the
!> C library. Every value is checked against the formula that made it. Prints "fortran module test:
!> K ranks, all checks passed" on rank 0 only if every rank's checks hold; stops with an error
!> otherwise.
program module_test
  use, intrinsic :: iso_c_binding, only: c_double
  use mpi_f08
  use tessera
  use test_checks
  implicit none
  type(tessera_comm) :: comm
  integer :: rank, nranks, live

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  call tessera_comm_create(MPI_COMM_WORLD%MPI_VAL, comm)
  call three_dimensional_periodic()
  call one_dimensional_cyclic()
  call grids_and_errors()
  call tessera_free(comm)
  call tessera_live_handles(live)
  call expect(live == 0, 'every handle freed')

  call finish_checks('fortran module test')
  call MPI_Finalize()

contains

  pure real(c_double) function f3(i, j, k)
    integer, intent(in) :: i, j, k
    f3 = real(i + 10 * j + 100 * k, c_double)
  end function

  ! 5 x 4 x 3 in blocks, one ghost layer, periodic along x: scattered from rank 0, every stored
  ! element (ghosts too, wrapped along x) checked after a ghost update, then gathered back.
  subroutine three_dimensional_periodic()
    integer, parameter :: nx = 5, ny = 4, nz = 3
    type(tessera_grid) :: grid
    type(tessera_dist) :: dist
    type(tessera_domain) :: dom
    type(tessera_array) :: u
    real(c_double), pointer :: a(:, :, :)
    real(c_double), allocatable :: data(:, :, :), back(:, :, :)
    integer :: lo(3), hi(3), i, j, k
    logical :: good

    call tessera_grid_automatic(nranks, [nx, ny, nz], grid)
    call tessera_dist_create(grid, [1, 1, 1], [nx, ny, nz], [tessera_block(), tessera_block(), tessera_block()], dist)
    call tessera_domain_create(comm, dist, dom)
    call tessera_array_create(dom, u, ghosts=1, periodic=[.true., .false., .false.])
    if (rank == 0) then
      allocate(data(nx, ny, nz), back(nx, ny, nz))
      do k = 1, nz
        do j = 1, ny
          do i = 1, nx
            data(i, j, k) = f3(i, j, k)
          end do
        end do
      end do
    else
      allocate(data(0, 0, 0), back(0, 0, 0))
    end if
    call tessera_scatter(u, 0, data)
    call tessera_owned(u, lo, hi)
    call tessera_local(u, a)
    good = .true.
    do k = lo(3), hi(3)
      do j = lo(2), hi(2)
        do i = lo(1), hi(1)
          good = good .and. a(i, j, k) == f3(i, j, k)
        end do
      end do
    end do
    call expect(good, '3-D scatter: owned values in Fortran order')
    call expect(all(lbound(a) == lo - 1) .and. all(ubound(a) == hi + 1) .or. any(lo > hi), '3-D pointer bounds')

    call tessera_update_ghosts(u)
    good = .true.
    do k = max(lbound(a, 3), 1), min(ubound(a, 3), nz)
      do j = max(lbound(a, 2), 1), min(ubound(a, 2), ny)
        do i = lbound(a, 1), ubound(a, 1)
          good = good .and. a(i, j, k) == f3(modulo(i - 1, nx) + 1, j, k)
        end do
      end do
    end do
    call expect(good, '3-D ghosts, periodic along x, corners included')

    call tessera_gather(u, 0, back)
    if (rank == 0) call expect(all(back == data), '3-D gather equals the scattered array')

    call tessera_free(u)
    call tessera_free(dom)
    call tessera_free(dist)
    call tessera_free(grid)
  end subroutine

  ! 1..17 cyclic over every rank: local positions 1..count, the owned values are i*i for the
  ! owned i = rank+1, rank+1+nranks, ...; the sum and the gather agree with the serial ones; a
  ! destructive redistribution to blocks zeroes everything.
  subroutine one_dimensional_cyclic()
    integer, parameter :: n = 17
    type(tessera_grid) :: grid
    type(tessera_dist) :: cyclic, blocks
    type(tessera_domain) :: dom
    type(tessera_array) :: x
    real(c_double), pointer :: a(:)
    real(c_double), allocatable :: data(:), back(:)
    real(c_double) :: total
    integer :: lo(1), hi(1), i, owned
    logical :: good

    call tessera_grid_create(nranks, [nranks], grid)
    call tessera_dist_create(grid, [1], [n], [tessera_cyclic()], cyclic)
    call tessera_dist_create(grid, [1], [n], [tessera_block()], blocks)
    call tessera_domain_create(comm, cyclic, dom)
    call tessera_array_create(dom, x)
    allocate(data(n), back(n))
    data = [(real(i * i, c_double), i = 1, n)]
    call tessera_scatter(x, 0, data)
    call tessera_owned(x, lo, hi)
    call tessera_local(x, a)
    owned = max(hi(1) - lo(1) + 1, 0)
    call expect(lo(1) == 1 .and. owned == (n - rank + nranks - 1) / nranks, '1-D cyclic: positions 1..count')
    good = .true.
    do i = 1, owned
      good = good .and. a(i) == data(rank + 1 + (i - 1) * nranks)
    end do
    call expect(good, '1-D cyclic: owned values in increasing global order')
    call tessera_sum(x, total)
    call expect(total == sum(data), '1-D sum')
    call tessera_gather(x, nranks - 1, back)
    if (rank == nranks - 1) call expect(all(back == data), '1-D gather to the last rank')

    call tessera_redistribute(dom, blocks, mode=TESSERA_DESTRUCTIVE)
    call tessera_sum(x, total)
    call expect(total == 0, 'a destructive redistribution zeroes')
    call tessera_owned(x, lo, hi)
    call expect(lo(1) >= 1 .and. hi(1) <= n, '1-D blocks: global bounds after the redistribution')

    call tessera_free(x)
    call tessera_free(dom)
    call tessera_free(cyclic)
    call tessera_free(blocks)
    call tessera_free(grid)
  end subroutine

  ! Grid shapes in Fortran order; errors found by the module and by the C library.
  subroutine grids_and_errors()
    type(tessera_grid) :: grid, stale
    type(tessera_dist) :: dist
    type(tessera_domain) :: dom
    type(tessera_array) :: u
    real(c_double), pointer :: p2(:, :)
    integer :: shape2(2), shape3(3), status
    character(:), allocatable :: message

    call tessera_grid_create(nranks, [1, nranks], grid)
    call tessera_grid_shape(grid, shape2)
    call expect(all(shape2 == [1, nranks]), 'grid shape in Fortran order')
    call tessera_grid_shape(grid, shape3, status)
    message = tessera_last_error()
    call expect(status == TESSERA_ERR_INVALID_ARGUMENT .and. index(message, 'tessera_grid_shape') > 0, &
                'a shape of the wrong length is refused')

    call tessera_dist_create(grid, [0, 0], [3, 2 * nranks - 1], [tessera_collapsed(), tessera_block()], dist)
    call tessera_domain_create(comm, dist, dom)
    call tessera_array_create(dom, u, status, ghosts=1, periodic=[.true.])
    message = tessera_last_error()
    call expect(status == TESSERA_ERR_INVALID_ARGUMENT .and. index(message, 'periodic') > 0, &
                'periodic of the wrong length is refused')
    call tessera_array_create(dom, u, ghosts=1)
    call tessera_local(u, p2)
    call expect(lbound(p2, 1) == -1 .and. ubound(p2, 1) == 4, 'a domain from 0, ghosts below it')
    call expect(ubound(p2, 2) - lbound(p2, 2) == 3, 'two columns per rank and their ghosts')
    call tessera_free(u)
    call tessera_free(dom)
    call tessera_free(dist)

    stale = grid
    call tessera_free(grid)
    call tessera_grid_shape(stale, shape2, status)
    message = tessera_last_error()
    call expect(status == TESSERA_ERR_FREED_HANDLE .and. index(message, 'freed') > 0, &
                'a freed handle is refused with the C library''s message')
  end subroutine

end program module_test
