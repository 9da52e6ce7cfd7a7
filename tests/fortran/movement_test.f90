!> Copies, transposes, reductions, scans and checkpoints from the Fortran module, each against a
!> serial reference computed on every rank:
!> - a copy from blocks into a cyclic distribution and a shifted section copy (src may be dst);
!> - 2-D and 3-D transposes (perm = [2, 1] and [3, 1, 2]) onto other distributions;
!> - min, max, product and sum, bit for bit;
!> - scans over the whole array (Fortran's element order) and along each dimension, inclusive and
!>   exclusive, with exact (integer-valued) sums and max;
!> - a checkpoint saved from blocks and loaded into a cyclic distribution;
!> - bad calls, each with its status.
!> Prints "fortran movement test: K ranks, all checks passed" on rank 0 only if every rank's checks hold.
program movement_test
  use, intrinsic :: iso_c_binding, only: c_double
  use mpi_f08
  use tessera
  use test_checks
  implicit none
  integer, parameter :: nx = 9, ny = 7, nz = 4
  type(tessera_comm) :: world
  type(tessera_grid) :: grid2, grid3
  type(tessera_dist) :: blocks, cyclic, blocks_t, blocks3, blocks3_t
  type(tessera_domain) :: dom, dom_cyclic, dom_t, dom3, dom3_t
  integer :: rank, nranks, live

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  call tessera_comm_create(MPI_COMM_WORLD%MPI_VAL, world)
  call tessera_grid_automatic(nranks, [nx, ny], grid2)
  call tessera_grid_automatic(nranks, [nx, ny, nz], grid3)
  call tessera_dist_create(grid2, [1, 1], [nx, ny], [tessera_block(), tessera_block()], blocks)
  call tessera_dist_create(grid2, [1, 1], [nx, ny], [tessera_cyclic(), tessera_block_cyclic(2)], cyclic)
  call tessera_dist_create(grid2, [1, 1], [ny, nx], [tessera_block(), tessera_block()], blocks_t)
  call tessera_dist_create(grid3, [1, 1, 1], [nx, ny, nz], [tessera_block(), tessera_block(), tessera_block()], blocks3)
  call tessera_dist_create(grid3, [1, 1, 1], [nz, nx, ny], [tessera_block(), tessera_cyclic(), tessera_block()], &
                           blocks3_t)
  call tessera_domain_create(world, blocks, dom)
  call tessera_domain_create(world, cyclic, dom_cyclic)
  call tessera_domain_create(world, blocks_t, dom_t)
  call tessera_domain_create(world, blocks3, dom3)
  call tessera_domain_create(world, blocks3_t, dom3_t)

  call copies()
  call transposes()
  call reductions()
  call scans()
  call checkpoints()

  call tessera_free(dom3_t)
  call tessera_free(dom3)
  call tessera_free(dom_t)
  call tessera_free(dom_cyclic)
  call tessera_free(dom)
  call tessera_free(blocks3_t)
  call tessera_free(blocks3)
  call tessera_free(blocks_t)
  call tessera_free(cyclic)
  call tessera_free(blocks)
  call tessera_free(grid3)
  call tessera_free(grid2)
  call tessera_free(world)
  call tessera_live_handles(live)
  call expect(live == 0, 'every handle freed')
  call finish_checks('fortran movement test')
  call MPI_Finalize()

contains

  pure real(c_double) function f(i, j)
    integer, intent(in) :: i, j
    f = real(i + 100 * j, c_double)
  end function

  pure real(c_double) function f3(i, j, k)
    integer, intent(in) :: i, j, k
    f3 = real(i + 10 * j + 100 * k, c_double)
  end function

  ! The whole nx x ny image of f.
  function image() result(v)
    real(c_double) :: v(nx, ny)
    integer :: i, j
    do j = 1, ny
      do i = 1, nx
        v(i, j) = f(i, j)
      end do
    end do
  end function

  ! A new array over `d` holding f, scattered from rank 0.
  subroutine array_of_f(d, u)
    type(tessera_domain), intent(in) :: d
    type(tessera_array), intent(out) :: u
    call tessera_array_create(d, u)
    call tessera_scatter(u, 0, image())
  end subroutine

  ! `u` (nx x ny) gathered on every rank's turn as root 0, compared on rank 0 with `want`.
  subroutine expect_image(u, want, what)
    type(tessera_array), intent(in) :: u
    real(c_double), intent(in) :: want(:, :)
    character(*), intent(in) :: what
    real(c_double), allocatable :: whole(:, :)
    allocate(whole(size(want, 1), size(want, 2)))
    whole = -1
    call tessera_gather(u, 0, whole)
    if (rank == 0) call expect(all(whole == want), what)
  end subroutine

  subroutine copies()
    type(tessera_array) :: u, v
    real(c_double) :: want(nx, ny)
    integer :: s
    call array_of_f(dom, u)
    call tessera_array_create(dom_cyclic, v)
    call tessera_copy(u, v)
    call expect_image(v, image(), 'tessera_copy: blocks into cyclic x block-cyclic(2), every value')

    ! v(3:9, 2:7) = u(1:7, 1:6); the rest of v keeps the copy above. Then within u itself.
    call tessera_copy_section(u, [1, 1], [7, 6], v, [3, 2])
    want = image()
    want(3:9, 2:7) = image_part(1, 7, 1, 6)
    call expect_image(v, want, 'tessera_copy_section: a shifted box, the rest untouched')
    call tessera_copy_section(u, [2, 1], [nx, ny], u, [1, 1])
    want = image()
    want(1:nx - 1, :) = image_part(2, nx, 1, ny)
    call expect_image(u, want, 'tessera_copy_section: within one array (a shift by one along dimension 1)')

    ! Bad calls: nothing written.
    call tessera_copy_section(u, [1, 1], [7, 6], v, [4, 2], status=s)
    call expect(s == TESSERA_ERR_OUT_OF_RANGE .or. s == TESSERA_ERR_INVALID_ARGUMENT, &
                'tessera_copy_section: a target box leaving the domain is refused')
    call tessera_copy_section(u, [1, 1], [7, 6], v, [4], status=s)
    call expect(refused(s, TESSERA_ERR_INVALID_ARGUMENT, 'dst_lo has 1'), &
                'tessera_copy_section: a dst_lo of the wrong length is refused, named')
    call expect_image(v, image_with_section(), 'the refused copies wrote nothing')
    call tessera_free(v)
    call tessera_array_create(dom_t, v)
    call tessera_copy(u, v, status=s)
    call expect(s /= TESSERA_OK, 'tessera_copy: arrays over different boxes are refused')
    call tessera_free(v)
    call tessera_free(u)
  end subroutine

  function image_part(i0, i1, j0, j1) result(v)
    integer, intent(in) :: i0, i1, j0, j1
    real(c_double) :: v(i1 - i0 + 1, j1 - j0 + 1)
    real(c_double) :: whole(nx, ny)
    whole = image()
    v = whole(i0:i1, j0:j1)
  end function

  function image_with_section() result(v)
    real(c_double) :: v(nx, ny)
    v = image()
    v(3:9, 2:7) = image_part(1, 7, 1, 6)
  end function

  subroutine transposes()
    type(tessera_array) :: u, t, u3, t3
    real(c_double), allocatable :: whole3(:, :, :)
    real(c_double) :: want(ny, nx)
    integer :: i, j, k, s
    logical :: good
    call array_of_f(dom, u)
    call tessera_array_create(dom_t, t)
    call tessera_transpose(u, t, [2, 1])
    want = transpose(image())
    call expect_image(t, want, 'tessera_transpose [2, 1]: t(j, i) = u(i, j)')
    call tessera_transpose(u, t, [1, 1], status=s)
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'tessera_transpose: [1, 1] is refused')
    call tessera_transpose(u, t, [3, 1], status=s)
    call expect(refused(s, TESSERA_ERR_INVALID_ARGUMENT, 'not a permutation'), &
                'tessera_transpose: [3, 1] is refused, named')
    call tessera_transpose(u, t, [1, 2], status=s)
    call expect(s /= TESSERA_OK, 'tessera_transpose: the identity onto a transposed box is refused')

    ! 3-D: dimension 1 of t3 runs along dimension 3 of u3, 2 along 1, 3 along 2: t3(k, i, j) = u3(i, j, k).
    call tessera_array_create(dom3, u3)
    call tessera_array_create(dom3_t, t3)
    allocate(whole3(nx, ny, nz))
    do k = 1, nz
      do j = 1, ny
        do i = 1, nx
          whole3(i, j, k) = f3(i, j, k)
        end do
      end do
    end do
    call tessera_scatter(u3, 0, whole3)
    call tessera_transpose(u3, t3, [3, 1, 2])
    deallocate(whole3)
    allocate(whole3(nz, nx, ny))
    whole3 = -1
    call tessera_gather(t3, 0, whole3)
    if (rank == 0) then
      good = .true.
      do k = 1, nz
        do j = 1, ny
          do i = 1, nx
            good = good .and. whole3(k, i, j) == f3(i, j, k)
          end do
        end do
      end do
      call expect(good, 'tessera_transpose [3, 1, 2]: t3(k, i, j) = u3(i, j, k), onto blocks x cyclic x blocks')
    end if
    call tessera_free(t3)
    call tessera_free(u3)
    call tessera_free(t)
    call tessera_free(u)
  end subroutine

  subroutine reductions()
    type(tessera_array) :: u
    real(c_double) :: r, whole(nx, ny)
    integer :: s
    whole = image()
    call array_of_f(dom_cyclic, u)
    call tessera_reduce(u, TESSERA_OP_MAX, r)
    call expect(r == maxval(whole), 'tessera_reduce MAX is the serial maximum')
    call tessera_reduce(u, TESSERA_OP_MIN, r)
    call expect(r == minval(whole), 'tessera_reduce MIN is the serial minimum')
    call tessera_reduce(u, TESSERA_OP_ADD, r)
    call expect(r == sum(whole), 'tessera_reduce ADD is the serial sum (integers: exact)')
    call tessera_scatter(u, 0, reshape([(real(1 + mod(s, 3), c_double), s = 1, nx * ny)], [nx, ny]))
    call tessera_reduce(u, TESSERA_OP_MULTIPLY, r)
    call expect(r == product(reshape([(real(1 + mod(s, 3), c_double), s = 1, nx * ny)], [nx, ny])), &
                'tessera_reduce MULTIPLY is the serial product (powers of 2 and 3: exact)')
    call tessera_reduce(u, 17, r, status=s)
    call expect(s == TESSERA_ERR_INVALID_ARGUMENT, 'tessera_reduce: op 17 is refused')
    call tessera_free(u)
  end subroutine

  subroutine scans()
    type(tessera_array) :: u, out
    real(c_double) :: whole(nx, ny), want(nx, ny), flat(nx * ny), run
    integer :: i, j, n, s
    whole = image()
    call array_of_f(dom, u)
    call tessera_array_create(dom, out)

    ! The whole array in Fortran's element order, inclusive sums.
    call tessera_scan(u, out, TESSERA_OP_ADD)
    flat = reshape(whole, [nx * ny])
    run = 0
    do n = 1, nx * ny
      run = run + flat(n)
      flat(n) = run
    end do
    call expect_image(out, reshape(flat, [nx, ny]), 'tessera_scan ADD over the whole array, dimension 1 fastest')

    ! Along dimension 1, exclusive sums (0 first); along dimension 2, inclusive max of a zig-zag.
    call tessera_scan(u, out, TESSERA_OP_ADD, dim=1, exclusive=.true.)
    do j = 1, ny
      run = 0
      do i = 1, nx
        want(i, j) = run
        run = run + whole(i, j)
      end do
    end do
    call expect_image(out, want, 'tessera_scan ADD along dimension 1, exclusive')
    do j = 1, ny
      do i = 1, nx
        whole(i, j) = real(mod(7 * i + 5 * j, 11), c_double)
      end do
    end do
    call tessera_scatter(u, 0, whole)
    call tessera_scan(u, u, TESSERA_OP_MAX, dim=2)  ! in place
    do i = 1, nx
      run = -huge(run)
      do j = 1, ny
        run = max(run, whole(i, j))
        want(i, j) = run
      end do
    end do
    call expect_image(u, want, 'tessera_scan MAX along dimension 2, inclusive, in place')

    call tessera_scan(u, out, TESSERA_OP_ADD, status=s, dim=3)
    call expect(refused(s, TESSERA_ERR_INVALID_ARGUMENT, 'dim = 3'), &
                'tessera_scan: dimension 3 of a 2-D array is refused, named')
    call tessera_free(out)
    call tessera_array_create(dom_cyclic, out)
    call tessera_scan(u, out, TESSERA_OP_ADD, status=s)
    call expect(s /= TESSERA_OK, 'tessera_scan: out over another distribution is refused')
    call tessera_free(out)
    call tessera_free(u)
  end subroutine

  subroutine checkpoints()
    type(tessera_array) :: u, v
    character(:), allocatable :: path
    integer :: stamp(1), s, unit
    stamp(1) = 0
    if (rank == 0) call system_clock(stamp(1))
    call MPI_Bcast(stamp, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
    path = '/tmp/tessera-fortran-movement-' // text_of(stamp(1)) // '.h5'
    call array_of_f(dom, u)
    call tessera_checkpoint_save(path, u, 'u')
    call tessera_array_create(dom_cyclic, v)
    call tessera_checkpoint_load(path, v, 'u')
    call expect_image(v, image(), 'a checkpoint saved from blocks loads into cyclic x block-cyclic(2)')
    call tessera_checkpoint_load(path, v, 'no such dataset', status=s)
    call expect(s == TESSERA_ERR_IO .or. s == TESSERA_ERR_MISMATCH, 'tessera_checkpoint_load: a missing dataset is refused')
    call tessera_checkpoint_load(path // '.missing', v, 'u', status=s)
    call expect(s == TESSERA_ERR_IO, 'tessera_checkpoint_load: a missing file is TESSERA_ERR_IO')
    call expect_image(v, image(), 'the refused loads changed nothing')
    call MPI_Barrier(MPI_COMM_WORLD)
    if (rank == 0) then
      open(newunit=unit, file=path, status='old')
      close(unit, status='delete')
    end if
    call tessera_free(v)
    call tessera_free(u)
  end subroutine

end program movement_test
