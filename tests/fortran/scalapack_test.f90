!> ScaLAPACK from the Fortran module (docs/scalapack.md): the module's 2-D block-cyclic arrays are
!> ScaLAPACK's local arrays as they are (Fortran order); the BLACS grid comes from
!> tessera_blacs_process_map, the descriptors from tessera_scalapack_descriptor. pdgemm of
!> non-square matrices (A B, not B A) on every grid shape of the rank count and blocks 1, 7, 32,
!> checked on rank 0 against matmul. Prints "fortran scalapack test: K ranks, all checks passed"
!> on rank 0 only if every check holds.
program scalapack_test
  use, intrinsic :: iso_c_binding, only: c_double
  use mpi_f08
  use tessera
  use test_checks
  implicit none
  integer, parameter :: m = 37, k = 23, n = 29
  integer, parameter :: blocks(3) = [1, 7, 32]
  type(tessera_comm) :: comm
  real(c_double), allocatable :: a_whole(:, :), b_whole(:, :), c_whole(:, :), want(:, :)
  integer :: rank, nranks, nprow, b, i, j
  external :: blacs_get, blacs_gridmap, blacs_gridexit, pdgemm

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  call tessera_comm_create(MPI_COMM_WORLD%MPI_VAL, comm)
  if (rank == 0) then
    allocate(a_whole(m, k), b_whole(k, n), c_whole(m, n))
    do j = 1, k
      do i = 1, m
        a_whole(i, j) = real(mod(i * 7 + j * 3, 11), c_double) - 5
      end do
    end do
    do j = 1, n
      do i = 1, k
        b_whole(i, j) = real(mod(i * 5 + j * 2, 13), c_double) - 6
      end do
    end do
    want = matmul(a_whole, b_whole)
  else
    allocate(a_whole(0, 0), b_whole(0, 0), c_whole(0, 0))
  end if
  do nprow = 1, nranks
    if (mod(nranks, nprow) /= 0) cycle
    do b = 1, size(blocks)
      call multiply_on(nprow, nranks / nprow, blocks(b))
    end do
  end do
  call tessera_free(comm)

  call finish_checks('fortran scalapack test')
  call MPI_Finalize()

contains

  subroutine multiply_on(rows, cols, block)
    integer, intent(in) :: rows, cols, block
    type(tessera_grid) :: grid
    type(tessera_dist) :: da, db, dc
    type(tessera_domain) :: doma, domb, domc
    type(tessera_array) :: a, bb, c
    real(c_double), pointer :: la(:, :), lb(:, :), lc(:, :)
    integer :: map(64), map_rows, map_cols, context, desca(9), descb(9), descc(9)
    character(64) :: what

    call tessera_grid_create(nranks, [rows, cols], grid)
    call tessera_dist_create(grid, [1, 1], [m, k], [tessera_block_cyclic(block), tessera_block_cyclic(block)], da)
    call tessera_dist_create(grid, [1, 1], [k, n], [tessera_block_cyclic(block), tessera_block_cyclic(block)], db)
    call tessera_dist_create(grid, [1, 1], [m, n], [tessera_block_cyclic(block), tessera_block_cyclic(block)], dc)
    call tessera_domain_create(comm, da, doma)
    call tessera_domain_create(comm, db, domb)
    call tessera_domain_create(comm, dc, domc)
    call tessera_array_create(doma, a)
    call tessera_array_create(domb, bb)
    call tessera_array_create(domc, c)
    call tessera_scatter(a, 0, a_whole)
    call tessera_scatter(bb, 0, b_whole)

    call tessera_blacs_process_map(a, map, map_rows, map_cols)
    write(what, '(i0, a, i0, a, i0)') rows, ' x ', cols, ' grid, block ', block
    call expect(map_rows == rows .and. map_cols == cols, 'BLACS grid shape, ' // trim(what))
    call blacs_get(-1, 0, context)
    call blacs_gridmap(context, map, map_rows, map_rows, map_cols)
    call tessera_scalapack_descriptor(a, context, desca)
    call tessera_scalapack_descriptor(bb, context, descb)
    call tessera_scalapack_descriptor(c, context, descc)
    call expect(desca(3) == m .and. desca(4) == k .and. desca(5) == block, 'descriptor of A, ' // trim(what))
    call tessera_local(a, la)
    call tessera_local(bb, lb)
    call tessera_local(c, lc)
    call pdgemm('N', 'N', m, n, k, 1.0_c_double, la, 1, 1, desca, lb, 1, 1, descb, 0.0_c_double, lc, 1, 1, descc)
    call blacs_gridexit(context)

    call tessera_gather(c, 0, c_whole)
    if (rank == 0) call expect(all(c_whole == want), 'pdgemm = matmul, ' // trim(what))
    call tessera_free(c)
    call tessera_free(bb)
    call tessera_free(a)
    call tessera_free(domc)
    call tessera_free(domb)
    call tessera_free(doma)
    call tessera_free(dc)
    call tessera_free(db)
    call tessera_free(da)
    call tessera_free(grid)
  end subroutine

end program
