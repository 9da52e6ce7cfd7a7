!> Multiblock domains from the Fortran module, in Fortran order with indices from 1: block 0 is
!> 8 x 6 in strips along x, block 1 is 5 x 8 in strips along y, block 2 is 4 x 6 cyclic along y (a
!> patch per owned row). Block 0's upper face of y is glued to block 1's upper face of x with a turn:
!> dimension 1 of block 0 runs along dimension 2 of block 1, dimension 2 along dimension 1 reversed
!> (perm = [2, 1], flip = [.false., .true.]), so block 0's ghost (x, 6 + g) is block 1's cell
!> (6 - g, x) -- the C API's example (block 0's ghost (6, j) is block 1's (j, 4), 0-based, C order)
!> shifted to indices from 1 and reversed. Block 1 is glued to itself along y: periodic. Checked:
!> every stored value (owned and ghost) after a blocking and a split-phase ghost update against
!> the interfaces' rules, and the glued ghosts by hand on the face cells each rank owns; an
!> accumulation (every ghost added into the cell it mirrors: conserved, and exact on 1 rank);
!> gathered blocks against a serial image on every rank and on the last; reductions; a strided,
!> turned section move; a redistribution that keeps every value; bad input failing on every rank
!> with a status and a message; and in 3-D, where reversing the axes changes a permutation, a
!> block copied onto another turned and reversed, through 3-D views and gathers. Prints "fortran
!> multiblock test: K ranks, all checks passed" on rank 0 only if every rank's checks hold.
program multiblock_test
  use, intrinsic :: iso_c_binding, only: c_double
  use mpi_f08
  use tessera
  use test_checks
  implicit none
  integer, parameter :: W = 2  ! ghost width, and the domain's max_ghost_width
  ! Block b's extents: ext(:, b).
  integer, parameter :: ext(2, 0:2) = reshape([8, 6, 5, 8, 4, 6], [2, 3])
  real(c_double), parameter :: unfilled = -1  ! what ghosts hold where no update writes
  type(tessera_comm) :: world
  type(tessera_grid) :: along_x, along_y
  type(tessera_dist) :: blocks(3)
  type(tessera_block_interface) :: glue(2)
  type(tessera_multiblock) :: mb
  integer :: rank, nranks, live

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  call tessera_comm_create(MPI_COMM_WORLD%MPI_VAL, world)
  call tessera_grid_create(nranks, [nranks, 1], along_x)
  call tessera_grid_create(nranks, [1, nranks], along_y)
  call tessera_dist_create(along_x, [1, 1], ext(:, 0), [tessera_block(), tessera_block()], blocks(1))
  call tessera_dist_create(along_y, [1, 1], ext(:, 1), [tessera_block(), tessera_block()], blocks(2))
  call tessera_dist_create(along_y, [1, 1], ext(:, 2), [tessera_block(), tessera_cyclic()], blocks(3))
  glue(1) = tessera_block_interface(a=tessera_block_face(block=0, axis=2, upper=.true.), &
                                    b=tessera_block_face(block=1, axis=1, upper=.true.), &
                                    perm=[2, 1], flip=[.false., .true.])
  glue(2) = tessera_block_interface(a=tessera_block_face(block=1, axis=2, upper=.true.), &
                                    b=tessera_block_face(block=1, axis=2, upper=.false.))
  call tessera_multiblock_create(world, blocks, glue, W, mb)

  call what_the_domain_holds()
  call ghost_updates_and_accumulation()
  call gathers_and_reductions()
  call section_move()
  call redistribution()
  call bad_input()
  call three_dimensions()

  call tessera_free(mb)
  call tessera_free(blocks(1))
  call tessera_free(blocks(2))
  call tessera_free(blocks(3))
  call tessera_free(along_x)
  call tessera_free(along_y)
  call tessera_free(world)
  call tessera_live_handles(live)
  call expect(live == 0, 'every handle freed')

  call finish_checks('fortran multiblock test')
  call MPI_Finalize()

contains

  ! Block b's cell (x, y) holds code(b, x, y) (distinct, exact in a double).
  pure real(c_double) function code(b, x, y)
    integer, intent(in) :: b, x, y
    code = real(10000 * (b + 1) + 100 * x + y, c_double)
  end function

  ! Block b as a serial image: image(x, y) = code(b, x, y).
  pure function image_of(b) result(image)
    integer, intent(in) :: b
    real(c_double) :: image(ext(1, b), ext(2, b))
    integer :: x, y
    do y = 1, ext(2, b)
      do x = 1, ext(1, b)
        image(x, y) = code(b, x, y)
      end do
    end do
  end function

  pure logical function inside(b, x, y)
    integer, intent(in) :: b, x, y
    inside = x >= 1 .and. x <= ext(1, b) .and. y >= 1 .and. y <= ext(2, b)
  end function

  ! What a ghost update leaves at (x, y) of block b's storage (owned or ghost, at most W outside
  ! the block) when every owned cell holds its code and every ghost `unfilled` before.
  pure real(c_double) function after_update(b, x, y)
    integer, intent(in) :: b, x, y
    if (inside(b, x, y)) then
      after_update = code(b, x, y)  ! the block's own cells, its ghosts between patches included
    else if (b == 0 .and. y >= 7) then
      ! Beyond block 0's upper y face: block 1's (6 - g, x); beyond its x ends too (a corner), x
      ! runs on beyond block 1's y ends, across block 1's periodic glue: wrapped.
      after_update = code(1, 12 - y, modulo(x - 1, 8) + 1)
    else if (b == 1 .and. x >= 6) then
      ! Beyond block 1's upper x face: block 0's (y, 7 - g); at a corner (y beyond block 1's ends)
      ! the glue to block 0 leads past block 0's x ends, where nothing is glued, so the periodic
      ! glue carries the ghost to block 1's other end first, and on to block 0 from there.
      after_update = code(0, modulo(y - 1, 8) + 1, 12 - x)
    else if (b == 1 .and. x >= 1 .and. x <= 5 .and. y <= 0) then
      after_update = code(1, x, y + 8)  ! periodic along y
    else if (b == 1 .and. x >= 1 .and. x <= 5 .and. y >= 9) then
      after_update = code(1, x, y - 8)
    else
      after_update = unfilled  ! a wall, a corner no path of glued faces reaches, or the gap between blocks
    end if
  end function

  ! How many ghosts an update fills from cell (x, y) of block b across the interfaces (a block's
  ! ghosts from its own cells in other patches come on top of these).
  pure integer function glued_copies(b, x, y)
    integer, intent(in) :: b, x, y
    logical :: near_x_end, near_y_end
    near_x_end = x <= W .or. x > ext(1, b) - W
    near_y_end = y <= W .or. y > ext(2, b) - W
    glued_copies = 0
    if (b == 0 .and. y > ext(2, 0) - W) glued_copies = 1                    ! to block 1's x ghosts
    if (b == 0 .and. y > ext(2, 0) - W .and. near_x_end) glued_copies = glued_copies + 1  ! their corners
    if (b == 1 .and. x > ext(1, 1) - W) glued_copies = glued_copies + 1      ! to block 0's y ghosts
    if (b == 1 .and. x > ext(1, 1) - W .and. near_y_end) glued_copies = glued_copies + 1  ! their corners
    if (b == 1 .and. near_y_end) glued_copies = glued_copies + 1             ! periodic
  end function

  integer function global_sum(n)
    integer, intent(in) :: n
    call MPI_Allreduce(n, global_sum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  end function

  ! s is `code_expected`, and tessera_last_error() says why, naming `word`.
  subroutine expect_error(s, code_expected, word, what)
    integer, intent(in) :: s, code_expected
    character(*), intent(in) :: word, what
    character(:), allocatable :: message
    message = tessera_last_error()
    call expect(s == code_expected .and. len(message) > 0 .and. index(message, word) > 0, &
                what // ' (status ' // str(s) // ', message "' // message // '")')
  end subroutine

  ! A failure of any status, with a message.
  subroutine expect_failure(s, what)
    integer, intent(in) :: s
    character(*), intent(in) :: what
    character(:), allocatable :: message
    message = tessera_last_error()
    call expect(s /= TESSERA_OK .and. len(message) > 0, what // ' (status ' // str(s) // ')')
  end subroutine

  pure function str(i) result(text)
    integer, intent(in) :: i
    character(:), allocatable :: text
    character(24) :: buffer
    write(buffer, '(i0)') i
    text = trim(buffer)
  end function

  ! Every owned cell to its code (through the views), every ghost to `ghost`.
  subroutine fill(a, ghost)
    type(tessera_multiblock_array), intent(in) :: a
    real(c_double), intent(in) :: ghost
    real(c_double), pointer :: u(:, :)
    integer :: patches, p, b, x, y, lo(2), hi(2)
    call tessera_multiblock_array_patch_count(a, patches)
    do p = 0, patches - 1
      call tessera_multiblock_array_local(a, p, b, u, owned_lo=lo, owned_hi=hi)
      u = ghost
      do y = lo(2), hi(2)
        do x = lo(1), hi(1)
          u(x, y) = code(b, x, y)
        end do
      end do
    end do
  end subroutine

  ! Every value this rank stores (owned and ghost) is after_update's.
  subroutine expect_updated(a, when)
    type(tessera_multiblock_array), intent(in) :: a
    character(*), intent(in) :: when
    real(c_double), pointer :: u(:, :)
    integer :: patches, p, b, x, y, wrong
    call tessera_multiblock_array_patch_count(a, patches)
    wrong = 0
    do p = 0, patches - 1
      call tessera_multiblock_array_local(a, p, b, u)
      do y = lbound(u, 2), ubound(u, 2)
        do x = lbound(u, 1), ubound(u, 1)
          if (u(x, y) /= after_update(b, x, y)) then
            if (wrong == 0) write(*, '(a, i0, a, 4(i0, a), f0.1, a, f0.1)') 'rank ', rank, ': patch ', p, &
              ' block ', b, ' (', x, ', ', y, ') holds ', u(x, y), ', not ', after_update(b, x, y)
            wrong = wrong + 1
          end if
        end do
      end do
    end do
    call expect(wrong == 0, 'every stored value ' // when)
  end subroutine

  subroutine what_the_domain_holds()
    integer :: ndim, count, lo(2), hi(2), s
    type(tessera_dist) :: d
    call tessera_multiblock_ndim(mb, ndim)
    call tessera_multiblock_block_count(mb, count)
    call expect(ndim == 2 .and. count == 3, 'a 2-D domain of three blocks')
    call tessera_multiblock_block_box(mb, 1, lo, hi)
    call expect(all(lo == [1, 1]) .and. all(hi == [5, 8]), "block 1's box in Fortran order")
    call tessera_multiblock_block_dist(mb, 2, d, status=s)
    call expect(s == TESSERA_OK, "block 2's distribution")
    call tessera_free(d)
    call tessera_multiblock_block_box(mb, 3, lo, hi, status=s)
    call expect_error(s, TESSERA_ERR_OUT_OF_RANGE, 'block', 'block 3 of three')
    call tessera_multiblock_block_box(mb, -1, lo, hi, status=s)
    call expect_error(s, TESSERA_ERR_OUT_OF_RANGE, 'numbered from 0', 'block -1')
  end subroutine

  subroutine ghost_updates_and_accumulation()
    type(tessera_multiblock_array) :: a, plain
    real(c_double), pointer :: u(:, :)
    real(c_double), allocatable :: image1(:, :)
    real(c_double) :: value
    integer :: patches, p, b, x, y, g, lo(2), hi(2), s, checked, filled, copies, n
    logical :: good, multiples, exact

    call tessera_multiblock_array_create(mb, a, ghosts=W)
    call tessera_multiblock_array_patch_count(a, patches)
    ! On one rank a patch per block (block 2's cyclic rows are one run); on more, a patch per block
    ! box of a rank and a patch per owned row of block 2.
    if (nranks == 1) call expect(patches == 3, 'three patches on one rank')
    call fill(a, unfilled)
    call tessera_multiblock_array_update_ghosts(a)
    call expect_updated(a, 'after update_ghosts')

    ! The interfaces by hand, on the face cells this rank owns.
    call tessera_multiblock_array_create(mb, plain)
    call fill(plain, unfilled)
    allocate(image1(5, 8))
    call tessera_multiblock_array_gather_block(plain, 1, -1, image1)
    call tessera_free(plain)
    checked = 0
    good = .true.
    do p = 0, patches - 1
      call tessera_multiblock_array_local(a, p, b, u, owned_lo=lo, owned_hi=hi)
      if (b == 0 .and. hi(2) == 6) then  ! block 0's (x, 6 + g) is block 1's (6 - g, x)
        do x = lo(1), hi(1)
          do g = 1, W
            good = good .and. u(x, 6 + g) == image1(6 - g, x)
            checked = checked + 1
          end do
          call tessera_multiblock_array_get(a, 0, [x, 7], value)
          good = good .and. value == code(1, 5, x)
        end do
      else if (b == 1) then
        if (hi(1) == 5) then  ! block 1's (5 + g, y) is block 0's (y, 7 - g)
          do y = lo(2), hi(2)
            do g = 1, W
              good = good .and. u(5 + g, y) == code(0, y, 7 - g)
              checked = checked + 1
            end do
          end do
        end if
        do x = lo(1), hi(1)  ! periodic: (x, 1 - g) is (x, 9 - g), (x, 8 + g) is (x, g)
          do g = 1, W
            if (lo(2) == 1) good = good .and. u(x, 1 - g) == code(1, x, 9 - g)
            if (hi(2) == 8) good = good .and. u(x, 8 + g) == code(1, x, g)
            if (lo(2) == 1) checked = checked + 1
            if (hi(2) == 8) checked = checked + 1
          end do
        end do
      end if
    end do
    call expect(good, 'the glued and periodic ghosts by hand')
    call expect(global_sum(checked) == 8 * W + 8 * W + 5 * W + 5 * W, 'every glued ghost checked by some rank')

    ! get and set at (block, point).
    call tessera_multiblock_array_local(a, 0, b, u, owned_lo=lo, owned_hi=hi)
    call tessera_multiblock_array_set(a, b, lo, 0.5_c_double)
    call tessera_multiblock_array_get(a, b, lo, value)
    call expect(value == 0.5_c_double .and. u(lo(1), lo(2)) == 0.5_c_double, 'set then get, seen by the view')
    call tessera_multiblock_array_set(a, b, lo, code(b, lo(1), lo(2)))
    call tessera_multiblock_array_get(a, b, [lo(1), lo(2), 1], value, status=s)
    call expect_error(s, TESSERA_ERR_INVALID_ARGUMENT, 'point has 3 entries', 'a point of three entries')
    call tessera_multiblock_array_get(a, 2, [1, 100], value, status=s)
    call expect_failure(s, 'a point no rank stores')

    ! The split phase, over ghosts made stale again; a second begin, an update in flight and a
    ! second end are refused.
    call fill(a, unfilled)
    call tessera_multiblock_array_begin_update_ghosts(a)
    call tessera_multiblock_array_begin_update_ghosts(a, status=s)
    call expect_error(s, TESSERA_ERR_CALL_ORDER, 'in flight', 'begin twice')
    call tessera_multiblock_array_update_ghosts(a, status=s)
    call expect_error(s, TESSERA_ERR_CALL_ORDER, 'in flight', 'an update while one is in flight')
    call tessera_multiblock_array_end_update_ghosts(a)
    call tessera_multiblock_array_end_update_ghosts(a, status=s)
    call expect_error(s, TESSERA_ERR_CALL_ORDER, 'no ghost update', 'end without begin')
    call expect_updated(a, 'after the split-phase update')

    ! Accumulation. Owned cells to 0, ghosts as the update left them (the codes of the cells they
    ! mirror; `unfilled` where no update writes, which accumulate must not read): afterwards each
    ! owned cell holds code * the number of ghosts mirroring it. Their sum is the number of ghosts
    ! the update filled; on one rank (a patch per block) only the interfaces copy, so each count
    ! is glued_copies, and on more ranks at least that.
    filled = 0
    do p = 0, patches - 1
      call tessera_multiblock_array_local(a, p, b, u, owned_lo=lo, owned_hi=hi)
      do y = lbound(u, 2), ubound(u, 2)
        do x = lbound(u, 1), ubound(u, 1)
          if (x >= lo(1) .and. x <= hi(1) .and. y >= lo(2) .and. y <= hi(2)) then
            u(x, y) = 0
          else if (after_update(b, x, y) /= unfilled) then
            filled = filled + 1
          end if
        end do
      end do
    end do
    call tessera_multiblock_array_accumulate_ghosts(a, TESSERA_OP_ADD)
    copies = 0
    multiples = .true.
    exact = .true.
    do p = 0, patches - 1
      call tessera_multiblock_array_local(a, p, b, u, owned_lo=lo, owned_hi=hi)
      do y = lo(2), hi(2)
        do x = lo(1), hi(1)
          n = nint(u(x, y) / code(b, x, y))
          multiples = multiples .and. u(x, y) == n * code(b, x, y) .and. n >= glued_copies(b, x, y)
          if (nranks == 1) exact = exact .and. n == glued_copies(b, x, y)
          copies = copies + n
        end do
      end do
    end do
    call expect(multiples, 'every owned cell: its code times its copies, at least the glued ones')
    call expect(exact, 'on one rank, exactly the glued copies')
    call expect(global_sum(copies) == global_sum(filled), 'accumulation conserves: one term per filled ghost')
    ! The glued faces' ghosts, and 4 corners of W x W: block 0's beyond its y face and either x
    ! end, block 1's beyond its x face and either y end.
    if (nranks == 1) call expect(filled == 8 * W + 8 * W + 5 * W + 5 * W + 4 * W * W, &
                                 'one rank fills the glued ghosts only')
    call tessera_multiblock_array_accumulate_ghosts(a, 99, status=s)
    call expect_error(s, TESSERA_ERR_INVALID_ARGUMENT, 'op', 'an operation that is not one')
    call tessera_free(a)
  end subroutine

  subroutine gathers_and_reductions()
    type(tessera_multiblock_array) :: a
    real(c_double), allocatable :: image(:, :), out(:, :)
    real(c_double) :: total, biggest, smallest, got
    integer :: b, k, root, s
    call tessera_multiblock_array_create(mb, a)
    call fill(a, unfilled)
    total = 0
    biggest = -huge(1.0_c_double)
    smallest = huge(1.0_c_double)
    do b = 0, 2
      image = image_of(b)
      total = total + sum(image)
      biggest = max(biggest, maxval(image))
      smallest = min(smallest, minval(image))
      do k = 1, 2
        root = merge(-1, nranks - 1, k == 1)
        if (root == -1 .or. rank == root) then
          allocate(out(ext(1, b), ext(2, b)))
        else
          allocate(out(0, 0))  ! not a receiver: any shape
        end if
        out = unfilled
        call tessera_multiblock_array_gather_block(a, b, root, out)
        if (root == -1 .or. rank == root) call expect(all(out == image), 'block ' // str(b) // ' gathered on ' // &
                                                      str(root) // ', in the serial image''s order')
        deallocate(out)
      end do
    end do
    call tessera_multiblock_array_reduce(a, TESSERA_OP_ADD, got)
    call expect(got == total, 'the sum over every block (integers: exact in any order)')
    call tessera_multiblock_array_reduce(a, TESSERA_OP_MAX, got)
    call expect(got == biggest, 'the largest cell')
    call tessera_multiblock_array_reduce(a, TESSERA_OP_MIN, got)
    call expect(got == smallest, 'the smallest cell')

    ! A buffer of the block's size in the C order's shape (6 x 8 for 8 x 6), on every rank; a block
    ! the domain lacks; a root that is not a rank.
    allocate(out(ext(2, 0), ext(1, 0)))
    call tessera_multiblock_array_gather_block(a, 0, -1, out, status=s)
    call expect_failure(s, 'a transposed buffer fails on every rank')
    ! Every rank receives (root -1), so every rank's message is the module's, naming the shapes.
    if (s /= TESSERA_OK) call expect_error(s, s, '(6, 8)', 'the message names the shape')
    call tessera_multiblock_array_gather_block(a, 3, -1, out, status=s)
    call expect_error(s, TESSERA_ERR_OUT_OF_RANGE, 'block', 'gathering block 3 of three')
    call tessera_multiblock_array_gather_block(a, 0, nranks, out, status=s)
    call expect_error(s, TESSERA_ERR_OUT_OF_RANGE, 'root', 'a root that is not a rank')
    call tessera_free(a)
  end subroutine

  ! Every other row (y = 1, 3, 5) of block 0's x = 2..6 onto block 1's x = 1, 3, 5, y = 2..6: point
  ! numbers along dimension 1 of `to` run along dimension 2 of `from`, reversed, and dimension 2 of
  ! `to` along dimension 1 of `from`. Block 1's (x, y) then holds block 0's (y, 6 - x).
  subroutine section_move()
    type(tessera_multiblock_array) :: src, dst
    type(tessera_block_section) :: from, to
    real(c_double), pointer :: u(:, :)
    integer :: patches, p, b, x, y, lo(2), hi(2), moved, s
    logical :: good, hit
    call tessera_multiblock_array_create(mb, src)
    call tessera_multiblock_array_create(mb, dst)
    call fill(src, unfilled)
    from = tessera_block_section(block=0, lo=[2, 1], hi=[6, 6], stride=[1, 2])
    to = tessera_block_section(block=1, lo=[1, 2], hi=[5, 6], stride=[2, 1])
    call tessera_multiblock_copy_section(src, from, dst, to, perm=[2, 1], flip=[.true., .false.])
    call tessera_multiblock_array_patch_count(dst, patches)
    good = .true.
    moved = 0
    do p = 0, patches - 1
      call tessera_multiblock_array_local(dst, p, b, u, owned_lo=lo, owned_hi=hi)
      do y = lo(2), hi(2)
        do x = lo(1), hi(1)
          hit = b == 1 .and. mod(x, 2) == 1 .and. y >= 2 .and. y <= 6
          if (hit) then
            good = good .and. u(x, y) == code(0, y, 6 - x)
          else
            good = good .and. u(x, y) == 0
          end if
          if (u(x, y) /= 0) moved = moved + 1
        end do
      end do
    end do
    call expect(good, 'the section moved, turned and reversed, and nothing else')
    call expect(global_sum(moved) == 15, 'fifteen cells moved')

    ! Point counts that do not agree (6 along y against 5 along x), a stride of 0, a perm that is
    ! not a permutation: refused on every rank.
    to%hi = [5, 7]
    call tessera_multiblock_copy_section(src, from, dst, to, status=s, perm=[2, 1])
    call expect_error(s, TESSERA_ERR_INVALID_ARGUMENT, 'C''s terms', 'point counts that differ')
    to%hi = [5, 6]
    to%stride = [0, 1]
    call tessera_multiblock_copy_section(src, from, dst, to, status=s, perm=[2, 1])
    call expect_error(s, TESSERA_ERR_INVALID_ARGUMENT, 'stride', 'a stride of 0')
    to%stride = [2, 1]
    call tessera_multiblock_copy_section(src, from, dst, to, status=s, perm=[1, 1])
    call expect_error(s, TESSERA_ERR_INVALID_ARGUMENT, 'permutation', 'perm [1, 1] in a section move')
    call tessera_free(src)
    call tessera_free(dst)
  end subroutine

  ! Block 0 to strips along y, block 1 cyclic along x (a patch per owned column), block 2 to strips
  ! along x: every value stays, seen through the new views and gathered.
  subroutine redistribution()
    type(tessera_multiblock_array) :: a
    type(tessera_dist) :: moved(3)
    real(c_double), allocatable :: before(:, :), after(:, :)
    real(c_double), pointer :: u(:, :)
    integer :: b, patches, p, x, y, lo(2), hi(2), s
    logical :: good, same
    call tessera_multiblock_array_create(mb, a, ghosts=1)
    call fill(a, unfilled)
    call tessera_dist_create(along_y, [1, 1], ext(:, 0), [tessera_block(), tessera_block()], moved(1))
    call tessera_dist_create(along_x, [1, 1], ext(:, 1), [tessera_cyclic(), tessera_block()], moved(2))
    call tessera_dist_create(along_x, [1, 1], ext(:, 2), [tessera_block(), tessera_block()], moved(3))
    ! Every block gathered before and after the move holds the codes fill put there.
    same = .true.
    do b = 0, 2
      allocate(before(ext(1, b), ext(2, b)))
      call tessera_multiblock_array_gather_block(a, b, -1, before)
      same = same .and. all(before == image_of(b))
      deallocate(before)
    end do
    call expect(same, 'every block gathered before the redistribution')
    call tessera_multiblock_redistribute(mb, moved)
    do b = 0, 2
      allocate(after(ext(1, b), ext(2, b)))
      call tessera_multiblock_array_gather_block(a, b, -1, after)
      same = same .and. all(after == image_of(b))
      deallocate(after)
    end do
    call expect(same, 'every block gathered after the redistribution holds what it held')
    call tessera_multiblock_array_patch_count(a, patches)
    good = .true.
    do p = 0, patches - 1
      call tessera_multiblock_array_local(a, p, b, u, owned_lo=lo, owned_hi=hi)
      if (b == 1 .and. nranks > 1) good = good .and. hi(1) == lo(1)  ! cyclic along x: a column per patch
      if (b == 0 .and. nranks > 1) good = good .and. lo(1) == 1 .and. hi(1) == 8  ! strips along y
      do y = lo(2), hi(2)
        do x = lo(1), hi(1)
          good = good .and. u(x, y) == code(b, x, y)
        end do
      end do
    end do
    call expect(good, 'the new views hold the values, in the new layout')
    ! The interfaces survive the move. (The new layout's ghosts start at 0: back to `unfilled`.)
    call fill(a, unfilled)
    call tessera_multiblock_array_update_ghosts(a)
    call expect_updated(a, 'after the redistribution and an update')
    ! Two distributions for three blocks: refused everywhere, nothing changed.
    call tessera_multiblock_redistribute(mb, moved(1:2), status=s)
    call expect_error(s, TESSERA_ERR_INVALID_ARGUMENT, '2 blocks', 'two distributions for three blocks')
    call tessera_multiblock_array_local(a, 0, b, u, owned_lo=lo, owned_hi=hi)
    call expect(u(lo(1), lo(2)) == code(b, lo(1), lo(2)), 'a refused redistribution changes nothing')
    call tessera_free(a)
    do b = 1, 3
      call tessera_free(moved(b))
    end do
  end subroutine

  subroutine bad_input()
    type(tessera_block_interface) :: bad(2)
    type(tessera_multiblock) :: other
    type(tessera_multiblock_array) :: a
    integer :: s, n
    ! A perm that is not a permutation.
    bad = glue
    bad(1)%perm = [1, 1]
    call tessera_multiblock_create(world, blocks, bad, W, other, status=s)
    call expect_error(s, TESSERA_ERR_INVALID_ARGUMENT, 'permutation', 'perm [1, 1]')
    call tessera_multiblock_ndim(other, n, status=s)
    call expect(s == TESSERA_ERR_NULL_HANDLE, 'a refused domain is no handle')
    ! A dimension a 2-D block lacks.
    bad = glue
    bad(2)%b%axis = 3
    call tessera_multiblock_create(world, blocks, bad, W, other, status=s)
    call expect_error(s, TESSERA_ERR_INVALID_ARGUMENT, 'interfaces(2)%b%axis', 'axis 3 of a 2-D block')
    ! Faces of different sizes (block 0's 8-cell face on block 2's 6-cell one): the library's check,
    ! its message told in Fortran's terms as well.
    bad = glue
    bad(1)%b%block = 2
    call tessera_multiblock_create(world, blocks, bad, W, other, status=s)
    call expect_error(s, TESSERA_ERR_INVALID_ARGUMENT, 'C''s terms', 'faces of different sizes')
    ! A block that does not exist.
    bad = glue
    bad(2)%a%block = 5
    call tessera_multiblock_create(world, blocks, bad, W, other, status=s)
    call expect_error(s, TESSERA_ERR_OUT_OF_RANGE, 'block', 'block 5 of three')
    ! Ghosts wider than max_ghost_width.
    call tessera_multiblock_array_create(mb, a, status=s, ghosts=W + 1)
    call expect_error(s, TESSERA_ERR_INVALID_ARGUMENT, 'max_ghost_width', 'ghosts wider than max_ghost_width')
    call tessera_multiblock_array_update_ghosts(a, status=s)
    call expect(s == TESSERA_ERR_NULL_HANDLE, 'a refused array is no handle')
  end subroutine

  ! Two unglued 3-D blocks, 2 x 3 x 4 (block 0, strips along z) and 4 x 2 x 3 (block 1, strips
  ! along x): block 0 copied whole onto block 1 with perm = [3, 1, 2], flip = [.true., .false.,
  ! .false.]: dimension 1 of block 1 runs along dimension 3 of block 0, reversed, dimension 2 along
  ! dimension 1, dimension 3 along dimension 2, so block 1's (x, y, z) is block 0's (y, z, 5 - x).
  ! (In 2-D every permutation reads the same reversed; here C's perm is [1, 2, 0], not [2, 0, 1].)
  subroutine three_dimensions()
    type(tessera_grid) :: along_z, along_x3
    type(tessera_dist) :: cubes(2)
    type(tessera_block_interface) :: none(0)
    type(tessera_multiblock) :: mb3
    type(tessera_multiblock_array) :: a, b
    type(tessera_block_section) :: whole0, whole1
    real(c_double), pointer :: u(:, :, :)
    real(c_double), allocatable :: out(:, :, :)
    type(tessera_dim) :: blocked(3)
    integer :: patches, p, blk, x, y, z, lo(3), hi(3)
    logical :: good
    call tessera_grid_create(nranks, [1, 1, nranks], along_z)
    call tessera_grid_create(nranks, [nranks, 1, 1], along_x3)
    blocked = [tessera_block(), tessera_block(), tessera_block()]
    call tessera_dist_create(along_z, [1, 1, 1], [2, 3, 4], blocked, cubes(1))
    call tessera_dist_create(along_x3, [1, 1, 1], [4, 2, 3], blocked, cubes(2))
    call tessera_multiblock_create(world, cubes, none, 1, mb3)
    call tessera_multiblock_array_create(mb3, a, ghosts=1)
    call tessera_multiblock_array_create(mb3, b)
    call tessera_multiblock_array_patch_count(a, patches)
    do p = 0, patches - 1  ! block 0's cells to code3, through 3-D views
      call tessera_multiblock_array_local(a, p, blk, u, owned_lo=lo, owned_hi=hi)
      call expect(all(lbound(u) == lo - 1) .and. all(ubound(u) == hi + 1), 'a 3-D view with one ghost layer')
      if (blk /= 0) cycle
      do z = lo(3), hi(3)
        do y = lo(2), hi(2)
          do x = lo(1), hi(1)
            u(x, y, z) = code3(x, y, z)
          end do
        end do
      end do
    end do
    whole0 = tessera_block_section(block=0, lo=[1, 1, 1], hi=[2, 3, 4])
    whole1 = tessera_block_section(block=1, lo=[1, 1, 1], hi=[4, 2, 3])
    call tessera_multiblock_copy_section(a, whole0, b, whole1, perm=[3, 1, 2], flip=[.true., .false., .false.])
    if (rank == nranks - 1) then
      allocate(out(4, 2, 3))
    else
      allocate(out(0, 0, 0))
    end if
    call tessera_multiblock_array_gather_block(b, 1, nranks - 1, out)
    if (rank == nranks - 1) then
      good = .true.
      do z = 1, 3
        do y = 1, 2
          do x = 1, 4
            good = good .and. out(x, y, z) == code3(y, z, 5 - x)
          end do
        end do
      end do
      call expect(good, 'a 3-D block copied turned and reversed, gathered in Fortran order')
    end if
    call tessera_free(a)
    call tessera_free(b)
    call tessera_free(mb3)
    call tessera_free(cubes(1))
    call tessera_free(cubes(2))
    call tessera_free(along_z)
    call tessera_free(along_x3)
  end subroutine

  pure real(c_double) function code3(x, y, z)
    integer, intent(in) :: x, y, z
    code3 = real(100 * x + 10 * y + z, c_double)
  end function

end program
