!> A 2-D heat (Jacobi) iteration with the tessera Fortran module: the grid is spread in blocks,
!> the ghost layers are updated every step, half way through the domain is redistributed to uneven
!> strips of columns (values kept), and the gathered result must equal, bit for bit, the same
!> iteration run serially on rank 0. The program also checks that a gather into a buffer of the
!> wrong shape fails on every rank, that arguments of different lengths are refused with a message,
!> and that every handle was freed. It prints its success line
!> only if every rank agrees; otherwise it stops with an error.
program heat
  use, intrinsic :: iso_c_binding, only: c_double
  use mpi_f08
  use tessera
  implicit none
  integer, parameter :: nx = 37, ny = 23, steps = 30, switch_at = 12
  type(tessera_comm) :: comm
  type(tessera_grid) :: grid, strips_grid
  type(tessera_dist) :: blocks, strips, bad
  type(tessera_domain) :: dom
  type(tessera_array) :: u, unew, swap
  real(c_double), pointer :: a(:, :), b(:, :)
  real(c_double), allocatable :: gathered(:, :), wrong(:, :)
  real(c_double), allocatable, target :: ref(:, :)
  integer, allocatable :: cuts(:)
  integer :: rank, nranks, step, lo(2), hi(2), i, j, c, status, live
  real(c_double) :: total
  logical :: ok, all_ok
  character(:), allocatable :: message

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  ok = .true.

  ! Blocks over the grid tessera chooses; one layer of ghosts for the 5-point stencil.
  call tessera_comm_create(MPI_COMM_WORLD%MPI_VAL, comm)
  call tessera_grid_automatic(nranks, [nx, ny], grid)
  call tessera_dist_create(grid, [1, 1], [nx, ny], [tessera_block(), tessera_block()], blocks)
  call tessera_domain_create(comm, blocks, dom)
  call tessera_array_create(dom, u, ghosts=1)
  call tessera_array_create(dom, unew, ghosts=1)

  ! The strips of the redistribution: whole columns x, the first rank a third of the y range.
  allocate(cuts(nranks + 1))
  cuts(1) = 1
  do c = 1, nranks - 1
    cuts(c + 1) = 1 + ny / 3 + (c - 1) * (ny - ny / 3) / (nranks - 1)
  end do
  cuts(nranks + 1) = ny + 1
  call tessera_grid_create(nranks, [1, nranks], strips_grid)
  call tessera_dist_create(strips_grid, [1, 1], [nx, ny], [tessera_collapsed(), tessera_cut(cuts)], strips)

  call tessera_local(u, a)
  call tessera_owned(u, lo, hi)
  do j = lo(2), hi(2)
    do i = lo(1), hi(1)
      a(i, j) = initial(i, j)
    end do
  end do

  do step = 1, steps
    if (step == switch_at) call tessera_redistribute(dom, strips)  ! both arrays move; pointers go stale
    call tessera_update_ghosts(u)
    call tessera_local(u, a)
    call tessera_local(unew, b)
    call tessera_owned(u, lo, hi)
    do j = lo(2), hi(2)
      do i = lo(1), hi(1)
        b(i, j) = relaxed(a, i, j)
      end do
    end do
    swap = u
    u = unew
    unew = swap
  end do

  ! The serial reference, on rank 0 only.
  if (rank == 0) then
    allocate(gathered(nx, ny), ref(nx, ny))
    do j = 1, ny
      do i = 1, nx
        ref(i, j) = initial(i, j)
      end do
    end do
    do step = 1, steps
      call serial_step(ref)
    end do
  else
    allocate(gathered(0, 0), ref(0, 0))
  end if
  call tessera_gather(u, 0, gathered)
  if (rank == 0) ok = ok .and. all(gathered == ref)
  call tessera_sum(u, total)
  if (rank == 0) ok = ok .and. abs(total - sum(ref)) <= 1.0e-12_c_double * abs(sum(ref))

  ! A buffer of the transposed shape has the right size but not the right shape: refused everywhere.
  allocate(wrong(ny, nx))
  call tessera_gather(u, 0, wrong, status)
  ok = ok .and. status == TESSERA_ERR_INVALID_ARGUMENT
  message = tessera_last_error()
  if (rank == 0) ok = ok .and. index(message, 'not the domain''s shape') > 0
  ! Arguments of different lengths: refused with a message naming the routine.
  call tessera_dist_create(grid, [1], [nx, ny], [tessera_block(), tessera_block()], bad, status)
  message = tessera_last_error()
  ok = ok .and. status == TESSERA_ERR_INVALID_ARGUMENT .and. index(message, 'tessera_dist_create') > 0

  call tessera_free(u)
  call tessera_free(unew)
  call tessera_free(dom)
  call tessera_free(blocks)
  call tessera_free(strips)
  call tessera_free(grid)
  call tessera_free(strips_grid)
  call tessera_free(comm)
  call tessera_live_handles(live)
  ok = ok .and. live == 0

  call MPI_Allreduce(ok, all_ok, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD)
  if (rank == 0 .and. all_ok) then
    write(*, '(a, i0, a)') 'fortran heat: ', nranks, ' ranks, matches the serial reference bit for bit'
  end if
  if (.not. all_ok) then
    if (.not. ok) write(*, '(a, i0, a)') 'fortran heat: rank ', rank, ' disagrees with the serial reference'
    error stop 1
  end if
  call MPI_Finalize()

contains

  pure real(c_double) function initial(i, j)
    integer, intent(in) :: i, j
    initial = real(mod(7 * i + 13 * j, 17), c_double)
  end function

  ! The Jacobi update of point (i, j) of v, indexed globally (a pointer keeps its bounds); the edge
  ! of the domain is held fixed.
  real(c_double) function relaxed(v, i, j)
    real(c_double), pointer, intent(in) :: v(:, :)
    integer, intent(in) :: i, j
    if (i == 1 .or. i == nx .or. j == 1 .or. j == ny) then
      relaxed = v(i, j)
    else
      relaxed = 0.25_c_double * (v(i - 1, j) + v(i + 1, j) + v(i, j - 1) + v(i, j + 1))
    end if
  end function

  subroutine serial_step(v)
    real(c_double), intent(inout), target :: v(:, :)
    real(c_double), allocatable :: next(:, :)
    real(c_double), pointer :: pv(:, :)
    integer :: i, j
    pv => v
    allocate(next(nx, ny))
    do j = 1, ny
      do i = 1, nx
        next(i, j) = relaxed(pv, i, j)
      end do
    end do
    v = next
  end subroutine

end program heat
