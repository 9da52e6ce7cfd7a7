!> tessera for Fortran 2008: processor grids, distributions, domains, arrays of real(c_double)
!> with ghost layers, ghost updates, redistribution, gather and scatter, disjoint processor groups
!> and copies between them, multiblock domains (blocks glued at faces), box sets (domains that are
!> lists of boxes) and their local storage orders, boundary rules, and balancers driven by measured
!> time, over the C API (tessera.h) through iso_c_binding. See docs/fortran.md. The box-set routines
!> live in the submodule box_sets.f90, the boundary rules and balancers in balance.f90, copies,
!> transposes, reductions, scans and checkpoints in movement.f90.
!>
!> Index order. Everything here is in Fortran's order: the first index varies fastest in memory.
!> tessera itself is row-major (the last index fastest), so the module reverses the dimensions at
!> the boundary: a Fortran domain of extents (nx, ny) is a tessera domain of extents (ny, nx), and
!> a rank's storage seen from Fortran is then an ordinary column-major array u(x, y). Gathered and
!> scattered arrays are plain Fortran arrays of the domain's shape.
!>
!> Bounds are inclusive and global (a domain lo = [1, 1], hi = [nx, ny] is indexed 1..nx, 1..ny).
!>
!> Errors. Every routine takes an optional `status`: present, it receives the tessera_status
!> (TESSERA_OK = 0) and tessera_last_error() says why a call failed; absent, a failure prints that
!> message and stops the program (error stop), which ends the MPI job.
module tessera
  use, intrinsic :: iso_c_binding
  use tessera_c_api
  use tessera_fortran_support
  use, intrinsic :: iso_fortran_env, only: error_unit
  implicit none
  private

  ! Status codes (tessera_status).
  integer, parameter, public :: TESSERA_OK = 0, TESSERA_ERR_INVALID_ARGUMENT = 1, TESSERA_ERR_OUT_OF_RANGE = 2, &
                                TESSERA_ERR_OVERFLOW = 3, TESSERA_ERR_MISMATCH = 4, TESSERA_ERR_MPI = 5, &
                                TESSERA_ERR_IO = 6, TESSERA_ERR_INTERNAL = 7, TESSERA_ERR_NULL_HANDLE = 100, &
                                TESSERA_ERR_FREED_HANDLE = 101, TESSERA_ERR_INVALID_HANDLE = 102, &
                                TESSERA_ERR_WRONG_TYPE = 103, TESSERA_ERR_CALL_ORDER = 104, &
                                TESSERA_ERR_OUT_OF_MEMORY = 105
  ! How a dimension is spread over a grid axis (tessera_dim_kind); build them with tessera_block() etc.
  integer, parameter, public :: TESSERA_DIM_BLOCK = 0, TESSERA_DIM_CUT = 1, TESSERA_DIM_CYCLIC = 4, &
                                TESSERA_DIM_BLOCK_CYCLIC = 5, TESSERA_DIM_COLLAPSED = 6
  ! What a redistribution does with values (tessera_redistribution).
  integer, parameter, public :: TESSERA_PRESERVE = 0, TESSERA_DESTRUCTIVE = 1
  integer, parameter, public :: TESSERA_MAX_DIM = 3
  ! How values are combined (tessera_op): multiblock reductions and ghost accumulation.
  integer, parameter, public :: TESSERA_OP_REPLACE = 0, TESSERA_OP_ADD = 1, TESSERA_OP_MULTIPLY = 2, &
                                TESSERA_OP_MIN = 3, TESSERA_OP_MAX = 4
  ! How tessera_assign_boxes gives boxes to ranks (tessera_box_assignment): the heaviest box first to
  ! the least loaded rank; runs of equal weight along the Morton or Hilbert order of the box centres.
  integer, parameter, public :: TESSERA_ASSIGN_KNAPSACK = 0, TESSERA_ASSIGN_MORTON = 1, TESSERA_ASSIGN_HILBERT = 2
  ! How a rank stores its boxes under tessera_dist_with_local_order, in Fortran's terms: each box
  ! column-major (the first index fastest: what the module's arrays are anyway) or row-major (the last
  ! index fastest); padded (column-major, each box's first extent rounded up to a multiple of `size`:
  ! a padded leading dimension); tiled (cubes of side `size`, column-major inside and from tile to
  ! tile). The values are C's tessera_local_order for the same memory order: C's axes are Fortran's
  ! reversed, so C's row-major (0) is Fortran's column-major.
  integer, parameter, public :: TESSERA_LOCAL_COLUMN_MAJOR = 0, TESSERA_LOCAL_ROW_MAJOR = 1, &
                                TESSERA_LOCAL_PADDED = 2, TESSERA_LOCAL_TILED = 3
  ! What a ghost update writes into the ghost cells beyond one side of the domain (tessera_set_boundary)
  ! or over a box set's holes (tessera_set_hole_boundary): nothing (the default), the mirror image
  ! about the face (ghost lo-k holds lo+k-1), the mirror image negated, one value, or the line
  ! through the two cells nearest the face.
  integer, parameter, public :: TESSERA_BOUNDARY_NONE = 0, TESSERA_BOUNDARY_REFLECT = 1, &
                                TESSERA_BOUNDARY_REFLECT_ODD = 2, TESSERA_BOUNDARY_CONSTANT = 3, &
                                TESSERA_BOUNDARY_EXTRAPOLATE = 4
  ! How a balancer decides how far to move (tessera_policy%kind; docs/balance.md, "Policies"): never;
  ! a fixed delta whenever the imbalance exceeds the tolerance; D3-ARC's adaptive delta; AMP's
  ! (delta if the move pays for itself within payback_limit iterations); tessera's horizon rule.
  integer, parameter, public :: TESSERA_POLICY_NONE = 0, TESSERA_POLICY_STATIC = 1, &
                                TESSERA_POLICY_D3ARC_ADAPTIVE = 2, TESSERA_POLICY_AMORTISED = 3, &
                                TESSERA_POLICY_HORIZON = 4
  ! How a balancer turns measured times into weights (tessera_balancer_create's `weights`).
  integer, parameter, public :: TESSERA_WEIGHTS_THROUGHPUT = 0, TESSERA_WEIGHTS_INVERSE_TIME = 1, &
                                TESSERA_WEIGHTS_D3ARC = 2

  ! Handles: one type per kind of object, so that the compiler catches a grid passed for a domain.
  ! The C handles inside are checked by the library on every call (a freed one is an error).
  type, public :: tessera_comm
    private
    type(c_ptr) :: h = c_null_ptr
  end type
  type, public :: tessera_grid
    private
    type(c_ptr) :: h = c_null_ptr
  end type
  type, public :: tessera_dist
    private
    type(c_ptr) :: h = c_null_ptr
  end type
  type, public :: tessera_domain
    private
    type(c_ptr) :: h = c_null_ptr
    integer :: rank = -1  ! this rank in the domain's communicator
  end type
  type, public :: tessera_array
    private
    type(c_ptr) :: h = c_null_ptr
    integer :: rank = -1  ! this rank in the communicator of the array's domain
  end type
  !> Disjoint groups of a communicator's ranks, each with a communicator of its own (ZPL's
  !> disjoint grids): make it with tessera_groups_create.
  type, public :: tessera_groups
    private
    type(c_ptr) :: h = c_null_ptr
  end type
  !> Blocks, each its own index space and distribution, glued at faces (Multiblock PARTI): make it
  !> with tessera_multiblock_create.
  type, public :: tessera_multiblock
    private
    type(c_ptr) :: h = c_null_ptr
    integer :: rank = -1  ! this rank in the communicator
    integer :: ndim = 0
    ! extents(:, b + 1): block b's extents, Fortran order. A redistribution keeps every block's box,
    ! so these stay true, and the gather checks a buffer's shape against them without a C call.
    integer, allocatable :: extents(:, :)
  end type
  !> real(c_double) values over every block of a multiblock domain, with ghosts: make it with
  !> tessera_multiblock_array_create.
  type, public :: tessera_multiblock_array
    private
    type(c_ptr) :: h = c_null_ptr
    integer :: rank = -1  ! as the domain's
    integer :: ndim = 0
    integer, allocatable :: extents(:, :)
  end type

  !> A balance policy and its parameters (C's tessera_policy, field for field): fill it with
  !> tessera_policy_defaults(kind, policy), then change what you need.
  type, public, bind(C) :: tessera_policy
    integer(c_int) :: kind = 0
    real(c_double) :: delta = 0          ! STATIC, AMORTISED: the fraction; D3ARC_ADAPTIVE: the first one
    real(c_double) :: tolerance = 0      ! imbalance (slowest / mean - 1) below which nothing moves
    real(c_double) :: min_delta = 0      ! D3ARC_ADAPTIVE: below this nothing moves
    real(c_double) :: payback_limit = 0  ! AMORTISED: iterations
  end type
  !> What one balancer step did (C's tessera_balance_step): the same on every rank but
  !> compute_seconds. remap_point and processor_set_changed are 1 for yes, 0 for no; `blocks` counts
  !> logical blocks moved (whole boxes for a box balancer), `bytes` the bytes they held.
  type, public, bind(C) :: tessera_balance_step
    integer(c_int) :: iteration = 0, remap_point = 0
    real(c_double) :: compute_seconds = 0, coordination_seconds = 0, migration_seconds = 0, imbalance = 0, delta = 0
    integer(c_int64_t) :: elements = 0, blocks = 0, bytes = 0
    integer(c_int) :: processor_set_changed = 0, active_ranks = 0
  end type
  !> Runs a policy at remap points over every array of a domain: tessera_balancer_create.
  type, public :: tessera_balancer
    private
    type(c_ptr) :: h = c_null_ptr
  end type
  !> Balances a box-set domain box by box: tessera_box_balancer_create.
  type, public :: tessera_box_balancer
    private
    type(c_ptr) :: h = c_null_ptr
  end type

  !> One dimension's distribution (tessera_dim_spec): make it with tessera_block(), tessera_cyclic(),
  !> tessera_block_cyclic(b), tessera_cut(boundaries) or tessera_collapsed().
  type, public :: tessera_dim
    integer :: kind = TESSERA_DIM_BLOCK
    integer(c_int64_t) :: block_size = 0
    integer :: source = 0
    integer(c_int64_t), allocatable :: boundaries(:)
  end type

  !> A face of a block, or part of it: block `block` (numbered from 0), normal to dimension `axis`
  !> (1..ndim, Fortran order), at the block's upper end of `axis` if `upper`, else at its lower end;
  !> cells_lo:cells_hi (inclusive, the block's own indices, one cell thick along `axis`) are the cells
  !> along it, or the whole face when left unallocated.
  type, public :: tessera_block_face
    integer :: block = 0
    integer :: axis = 1
    logical :: upper = .false.
    integer, allocatable :: cells_lo(:), cells_hi(:)
  end type
  !> Face `a` glued to face `b`: crossing a's face outwards enters b inwards. Dimension k of a runs
  !> along dimension perm(k) of b, reversed where flip(k) (Fortran order); perm unallocated: the
  !> identity, flip unallocated: nothing reversed. A block's upper face of dimension k glued to its own
  !> lower face with the identity makes it periodic along k.
  type, public :: tessera_block_interface
    type(tessera_block_face) :: a, b
    integer, allocatable :: perm(:)
    logical, allocatable :: flip(:)
  end type
  !> A regular section of block `block` (from 0): lo:hi (inclusive, the block's indices, Fortran
  !> order), every stride(k)-th index along dimension k from lo(k); stride unallocated: every index.
  type, public :: tessera_block_section
    integer :: block = 0
    integer, allocatable :: lo(:), hi(:), stride(:)
  end type

  ! What a rank that stores nothing points its local arrays at.
  real(c_double), target, save :: nothing(0)

  public :: tessera_last_error, tessera_live_handles
  public :: tessera_comm_create, tessera_comm_rank, tessera_comm_size
  public :: tessera_grid_create, tessera_grid_automatic, tessera_grid_shape
  public :: tessera_block, tessera_cyclic, tessera_block_cyclic, tessera_cut, tessera_collapsed
  public :: tessera_dist_create, tessera_domain_create, tessera_redistribute
  public :: tessera_array_create, tessera_owned, tessera_local, tessera_update_ghosts
  public :: tessera_gather, tessera_scatter, tessera_sum, tessera_free
  public :: tessera_scalapack_descriptor, tessera_blacs_process_map
  public :: tessera_groups_create, tessera_groups_count, tessera_groups_group_of, tessera_groups_my_group
  public :: tessera_groups_comm, tessera_copy_between_groups
  public :: tessera_multiblock_create, tessera_multiblock_ndim, tessera_multiblock_block_count
  public :: tessera_multiblock_block_box, tessera_multiblock_block_dist, tessera_multiblock_redistribute
  public :: tessera_multiblock_array_create, tessera_multiblock_array_patch_count, tessera_multiblock_array_local
  public :: tessera_multiblock_array_get, tessera_multiblock_array_set, tessera_multiblock_array_update_ghosts
  public :: tessera_multiblock_array_begin_update_ghosts, tessera_multiblock_array_end_update_ghosts
  public :: tessera_multiblock_array_accumulate_ghosts, tessera_multiblock_array_reduce
  public :: tessera_multiblock_array_gather_block, tessera_multiblock_copy_section
  public :: tessera_patch_count, tessera_get, tessera_set
  public :: tessera_dist_from_boxes, tessera_assign_boxes, tessera_incremental_box_step, tessera_dist_box_set
  public :: tessera_dist_with_local_order, tessera_dist_has_local_layout, tessera_dist_storage_index
  public :: tessera_dist_local_storage_size, tessera_storage, tessera_storage_index
  public :: tessera_chop_boxes, tessera_domain_dist
  public :: tessera_copy, tessera_copy_section, tessera_transpose, tessera_reduce, tessera_scan
  public :: tessera_checkpoint_save, tessera_checkpoint_load
  public :: tessera_set_boundary, tessera_set_hole_boundary
  public :: tessera_policy_defaults, tessera_balancer_create, tessera_balancer_timer_start, tessera_balancer_timer_stop
  public :: tessera_balancer_step, tessera_balancer_set_active_ranks, tessera_balancer_set_availability_file
  public :: tessera_balancer_set_slowdown_threshold
  public :: tessera_box_balancer_create, tessera_box_balancer_timer_start, tessera_box_balancer_timer_stop
  public :: tessera_box_balancer_timer_add, tessera_box_balancer_box_of_patch, tessera_box_balancer_step

  !> call tessera_local(array, u [, status, patch]): u points at this rank's storage, ghosts
  !> included, indexed by global indices (see tessera_owned); where the rank stores several patches
  !> (a box set), at patch `patch` (from 0). Valid until the domain is redistributed.
  interface tessera_local
    module procedure local_1d, local_2d, local_3d
  end interface
  !> call tessera_gather(array, root, out): the whole array into out (the domain's shape) on root.
  interface tessera_gather
    module procedure gather_1d, gather_2d, gather_3d
  end interface
  !> call tessera_scatter(array, root, data): every owned element from data (the domain's shape) on root.
  interface tessera_scatter
    module procedure scatter_1d, scatter_2d, scatter_3d
  end interface
  !> call tessera_free(handle): releases any handle (arrays keep their domain alive, domains their
  !> communicator, so any order is fine); free every handle before MPI_Finalize.
  interface tessera_free
    module procedure free_comm, free_grid, free_dist, free_domain, free_array, free_groups, free_multiblock, &
                     free_multiblock_array, free_balancer, free_box_balancer
  end interface
  !> call tessera_multiblock_array_local(array, patch, block, u): u points at patch `patch` (from 0)
  !> of this rank's storage, ghosts included, indexed by block `block`'s own indices.
  interface tessera_multiblock_array_local
    module procedure multiblock_local_1d, multiblock_local_2d, multiblock_local_3d
  end interface
  !> call tessera_multiblock_array_gather_block(array, block, root, out): block `block` into `out`
  !> (the block's shape) on root, or on every rank for root = -1.
  interface tessera_multiblock_array_gather_block
    module procedure multiblock_gather_1d, multiblock_gather_2d, multiblock_gather_3d
  end interface

  ! Box sets and user-defined local layouts: declared here, implemented in the submodule box_sets
  ! (box_sets.f90). Boxes are columns of `lo` and `hi` (shape (ndim, count)), inclusive and in Fortran
  ! order; box b is column b + 1 (boxes are numbered from 0, as in C and as ranks are).
  interface
    !> A box-set distribution over comm_size ranks: box b is lo(:, b+1):hi(:, b+1), owned by rank
    !> owners(b+1); the boxes must be disjoint and non-empty. domain_lo:domain_hi (both or neither;
    !> default: the boxes' bounding box) must hold them; its cells in no box are holes. Not
    !> collective: every rank passes the same lists.
    module subroutine tessera_dist_from_boxes(comm_size, lo, hi, owners, dist, status, domain_lo, domain_hi)
      integer, intent(in) :: comm_size
      integer, intent(in) :: lo(:, :), hi(:, :), owners(:)
      type(tessera_dist), intent(out) :: dist
      integer, intent(out), optional :: status
      integer, intent(in), optional :: domain_lo(:), domain_hi(:)
    end subroutine
    !> One owner per box (owners(b+1) for box b) by `policy` (TESSERA_ASSIGN_*); `weights` (one per
    !> box, finite, >= 0) default to the boxes' cell counts. Deterministic; not collective.
    module subroutine tessera_assign_boxes(comm_size, lo, hi, policy, owners, status, weights)
      integer, intent(in) :: comm_size
      integer, intent(in) :: lo(:, :), hi(:, :)
      integer, intent(in) :: policy
      integer, intent(out) :: owners(:)
      integer, intent(out), optional :: status
      real(c_double), intent(in), optional :: weights(:)
    end subroutine
    !> D3-ARC's step for box sets: of the boxes whose owner in `target` differs from `current`, moves
    !> those with the best gain per cell until a fraction `delta` (0..1) of the excess load is gone;
    !> `owners` gets the owners after the step. Optional: `weights` (as above), `moved` (boxes that
    !> change owner), `excess_before` / `excess_after` (the load above the mean, summed over ranks).
    module subroutine tessera_incremental_box_step(comm_size, lo, hi, current, target, delta, owners, status, &
                                                   weights, moved, excess_before, excess_after)
      integer, intent(in) :: comm_size
      integer, intent(in) :: lo(:, :), hi(:, :), current(:), target(:)
      real(c_double), intent(in) :: delta
      integer, intent(out) :: owners(:)
      integer, intent(out), optional :: status
      real(c_double), intent(in), optional :: weights(:)
      integer, intent(out), optional :: moved
      real(c_double), intent(out), optional :: excess_before, excess_after
    end subroutine
    !> Every box cut into the fewest near-equal pieces no longer than max_extent(k) along dimension
    !> k (each >= 1), so that a few big boxes can be spread over many ranks: pieces_lo and pieces_hi
    !> (shape (ndim, pieces), allocated here), the pieces of a box one after another in column-major
    !> order of their position (dimension 1's fastest); empty boxes leave none. Not collective.
    module subroutine tessera_chop_boxes(lo, hi, max_extent, pieces_lo, pieces_hi, status)
      integer, intent(in) :: lo(:, :), hi(:, :), max_extent(:)
      integer, allocatable, intent(out) :: pieces_lo(:, :), pieces_hi(:, :)
      integer, intent(out), optional :: status
    end subroutine
    !> The boxes of a box-set distribution (lo and hi of shape (ndim, count), allocated here) and
    !> their owners. TESSERA_ERR_MISMATCH for a distribution that is not a box set.
    module subroutine tessera_dist_box_set(dist, lo, hi, owners, status)
      type(tessera_dist), intent(in) :: dist
      integer, allocatable, intent(out) :: lo(:, :), hi(:, :), owners(:)
      integer, intent(out), optional :: status
    end subroutine
    !> The element at `point` (global, Fortran order), which this rank must store (owned or ghost;
    !> else TESSERA_ERR_OUT_OF_RANGE). Any array, whatever its distribution or local layout.
    module subroutine tessera_get(array, point, value, status)
      type(tessera_array), intent(in) :: array
      integer, intent(in) :: point(:)
      real(c_double), intent(out), target :: value
      integer, intent(out), optional :: status
    end subroutine
    module subroutine tessera_set(array, point, value, status)
      type(tessera_array), intent(in) :: array
      integer, intent(in) :: point(:)
      real(c_double), intent(in), target :: value
      integer, intent(out), optional :: status
    end subroutine
    !> `dist` (a box set) with each rank's boxes stored one after another in `order`
    !> (TESSERA_LOCAL_*); `size` (default 1) is the padding multiple or the tile side and must be 1
    !> for column- and row-major. Arrays over `out` have no patches (tessera_local refuses them):
    !> reach their values through tessera_storage and tessera_dist_storage_index, or tessera_get /
    !> tessera_set; their ghost cells (ghosts=) sit after the owned points, read with tessera_get.
    !> Every movement, ghost update, gather, scatter and sum works.
    module subroutine tessera_dist_with_local_order(dist, order, out, status, size)
      type(tessera_dist), intent(in) :: dist
      integer, intent(in) :: order
      type(tessera_dist), intent(out) :: out
      integer, intent(out), optional :: status
      integer, intent(in), optional :: size
    end subroutine
    module subroutine tessera_dist_has_local_layout(dist, has, status)
      type(tessera_dist), intent(in) :: dist
      logical, intent(out) :: has
      integer, intent(out), optional :: status
    end subroutine
    !> Where `point` (Fortran order) lies in its owner's storage: u(index) of tessera_storage's `u` on
    !> that rank, under a local layout. Without one: the owner's patches one after another, each
    !> column-major without ghosts. A point outside the box or in a hole: TESSERA_ERR_OUT_OF_RANGE.
    module subroutine tessera_dist_storage_index(dist, point, index, status)
      type(tessera_dist), intent(in) :: dist
      integer, intent(in) :: point(:)
      integer(c_int64_t), intent(out) :: index
      integer, intent(out), optional :: status
    end subroutine
    !> The elements of `rank`'s storage under `dist` (more than it owns where padding leaves holes).
    module subroutine tessera_dist_local_storage_size(dist, rank, size, status)
      type(tessera_dist), intent(in) :: dist
      integer, intent(in) :: rank
      integer(c_int64_t), intent(out) :: size
      integer, intent(out), optional :: status
    end subroutine
    !> Where `point` (Fortran order; owned, or in a ghost layer of this rank) is in tessera_storage's
    !> `u`, from 1: under any layout, a local layout's ghost cells (after its owned points) included.
    !> TESSERA_ERR_OUT_OF_RANGE if this rank does not store it.
    module subroutine tessera_storage_index(array, point, index, status)
      type(tessera_array), intent(in) :: array
      integer, intent(in) :: point(:)
      integer(c_int64_t), intent(out) :: index
      integer, intent(out), optional :: status
    end subroutine
    !> u(1:n): this rank's whole storage, ghosts and padding included (zero-size when it stores
    !> nothing). Valid until the domain is redistributed.
    module subroutine tessera_storage(array, u, status)
      type(tessera_array), intent(in) :: array
      real(c_double), pointer, intent(out) :: u(:)
      integer, intent(out), optional :: status
    end subroutine
  end interface

  ! Movements between arrays, reductions, scans and checkpoints: declared here, implemented in the
  ! submodule movement (movement.f90). Collective over the arrays' communicator.
  interface
    !> dst = src: two arrays over the same domain box, any distributions (ghosts not touched).
    module subroutine tessera_copy(src, dst, status)
      type(tessera_array), intent(in) :: src, dst
      integer, intent(out), optional :: status
    end subroutine
    !> dst(dst_lo + k) = src(src_lo + k) for src_lo <= src_lo + k <= src_hi (ZPL's shifted and zoom
    !> copies; src may be dst): a box of src into the box of the same extents at dst_lo in dst.
    module subroutine tessera_copy_section(src, src_lo, src_hi, dst, dst_lo, status)
      type(tessera_array), intent(in) :: src
      integer, intent(in) :: src_lo(:), src_hi(:)
      type(tessera_array), intent(in) :: dst
      integer, intent(in) :: dst_lo(:)
      integer, intent(out), optional :: status
    end subroutine
    !> dst = src with its dimensions permuted: dimension k of dst runs along dimension perm(k) of src
    !> (a 2-D transpose: perm = [2, 1], dst(j, i) = src(i, j)); dst's domain has the permuted extents.
    module subroutine tessera_transpose(src, dst, perm, status)
      type(tessera_array), intent(in) :: src, dst
      integer, intent(in) :: perm(:)
      integer, intent(out), optional :: status
    end subroutine
    !> `op` (TESSERA_OP_ADD, _MULTIPLY, _MIN, _MAX) folded over every element, the same bits on
    !> every rank (tessera_sum is the ADD case).
    module subroutine tessera_reduce(array, op, result, status)
      type(tessera_array), intent(in) :: array
      integer, intent(in) :: op
      real(c_double), intent(out), target :: result
      integer, intent(out), optional :: status
    end subroutine
    !> ZPL's scan (parallel prefix) of `in` into `out` (same distribution; may be `in`): along
    !> dimension `dim`, every line on its own, or, without `dim`, over the whole array in Fortran's
    !> array-element order (dimension 1 fastest); inclusive, or `exclusive` (element i gets the fold
    !> of those before it, the identity first). `op`: TESSERA_OP_ADD, _MULTIPLY, _MIN, _MAX.
    module subroutine tessera_scan(in, out, op, status, dim, exclusive)
      type(tessera_array), intent(in) :: in, out
      integer, intent(in) :: op
      integer, intent(out), optional :: status
      integer, intent(in), optional :: dim
      logical, intent(in), optional :: exclusive
    end subroutine
    !> Writes `array` as dataset `name` of the HDF5 file `path` (replaced atomically).
    module subroutine tessera_checkpoint_save(path, array, name, status)
      character(*), intent(in) :: path
      type(tessera_array), intent(in) :: array
      character(*), intent(in) :: name
      integer, intent(out), optional :: status
    end subroutine
    !> Sets every owned element of `array` from dataset `name` of `path`, whatever the distribution
    !> and the number of ranks that saved it (TESSERA_ERR_IO: no such file or dataset, or a damaged
    !> one; TESSERA_ERR_MISMATCH: another shape or type).
    module subroutine tessera_checkpoint_load(path, array, name, status)
      character(*), intent(in) :: path
      type(tessera_array), intent(in) :: array
      character(*), intent(in) :: name
      integer, intent(out), optional :: status
    end subroutine
  end interface

  ! Boundary rules and balancers: declared here, implemented in the submodule balance (balance.f90).
  interface
    !> The distribution `domain` has now (after balancing, say): a new handle, to free.
    module subroutine tessera_domain_dist(domain, dist, status)
      type(tessera_domain), intent(in) :: domain
      type(tessera_dist), intent(out) :: dist
      integer, intent(out), optional :: status
    end subroutine
    !> The rule (TESSERA_BOUNDARY_*) every later ghost update of `array` applies to the ghost cells
    !> beyond the upper (`upper` true) or lower end of dimension `dim` (1..ndim); `value` is the
    !> constant of TESSERA_BOUNDARY_CONSTANT (required for it, ignored otherwise). Rules apply after
    !> the exchange, the last dimension's first, so a corner holds what dimension 1's rule gives.
    !> Not collective, but every rank sets the same rules. TESSERA_ERR_INVALID_ARGUMENT: a rule
    !> along a periodic dimension, a reflection wider than the domain, an extrapolation across a
    !> domain one cell wide.
    module subroutine tessera_set_boundary(array, dim, upper, rule, status, value)
      type(tessera_array), intent(in) :: array
      integer, intent(in) :: dim
      logical, intent(in) :: upper
      integer, intent(in) :: rule
      integer, intent(out), optional :: status
      real(c_double), intent(in), optional :: value
    end subroutine
    !> The rule for ghost cells inside the domain that no box of a box set holds (its holes):
    !> TESSERA_BOUNDARY_NONE, _CONSTANT (with `value`), _REFLECT or _REFLECT_ODD (a wall around each
    !> box: the ghost holds its own box's cell mirrored about the faces it lies beyond). Applied
    !> after the exchange and before the side rules. Extrapolation: TESSERA_ERR_INVALID_ARGUMENT.
    module subroutine tessera_set_hole_boundary(array, rule, status, value)
      type(tessera_array), intent(in) :: array
      integer, intent(in) :: rule
      integer, intent(out), optional :: status
      real(c_double), intent(in), optional :: value
    end subroutine
    !> The parameters tessera uses for a policy of `kind` (TESSERA_POLICY_*).
    module subroutine tessera_policy_defaults(kind, policy, status)
      integer, intent(in) :: kind
      type(tessera_policy), intent(out) :: policy
      integer, intent(out), optional :: status
    end subroutine
    !> A balancer for every array over `domain` (block and cut dimensions move; docs/balance.md):
    !> every `interval` steps (default 5) it weighs the ranks by their measured times (`weights`,
    !> default TESSERA_WEIGHTS_THROUGHPUT; `lb`, `ub` bound D3-ARC's rule, default 1 and 1.5), lets
    !> `policy` choose delta and moves that fraction of the way to the balanced distribution.
    module subroutine tessera_balancer_create(domain, policy, balancer, status, interval, weights, lb, ub)
      type(tessera_domain), intent(in) :: domain
      type(tessera_policy), intent(in) :: policy
      type(tessera_balancer), intent(out) :: balancer
      integer, intent(out), optional :: status
      integer, intent(in), optional :: interval, weights
      real(c_double), intent(in), optional :: lb, ub
    end subroutine
    !> Start and stop the timer around this rank's work of an iteration (TESSERA_ERR_CALL_ORDER when
    !> it runs already / does not run).
    module subroutine tessera_balancer_timer_start(balancer, status)
      type(tessera_balancer), intent(in) :: balancer
      integer, intent(out), optional :: status
    end subroutine
    module subroutine tessera_balancer_timer_stop(balancer, status)
      type(tessera_balancer), intent(in) :: balancer
      integer, intent(out), optional :: status
    end subroutine
    !> Collective, once per iteration: this iteration's time is the timer's since the last step, or
    !> `seconds` (>= 0) when given; at remap points decides and moves every array of the domain
    !> (pointers from tessera_local are stale after a move: take them again). `step` says what it did.
    module subroutine tessera_balancer_step(balancer, status, step, seconds)
      type(tessera_balancer), intent(in) :: balancer
      integer, intent(out), optional :: status
      type(tessera_balance_step), intent(out), optional :: step
      real(c_double), intent(in), optional :: seconds
    end subroutine
    !> Collective (AMP's remap to a new processor set): only `ranks` (distinct ranks of the domain's
    !> communicator) hold data from now on, the others keep nothing but still call every collective
    !> routine. `seconds`: how long the move took.
    module subroutine tessera_balancer_set_active_ranks(balancer, ranks, status, seconds)
      type(tessera_balancer), intent(in) :: balancer
      integer, intent(in) :: ranks(:)
      integer, intent(out), optional :: status
      real(c_double), intent(out), optional :: seconds
    end subroutine
    !> A rank is withdrawn at the next remap point while the file `pattern` ("{rank}" replaced by its
    !> rank) exists, and offered work again once it is gone.
    module subroutine tessera_balancer_set_availability_file(balancer, pattern, status)
      type(tessera_balancer), intent(in) :: balancer
      character(*), intent(in) :: pattern
      integer, intent(out), optional :: status
    end subroutine
    !> A rank `factor` (> 1) times slower than the median is withdrawn, and offered work again after
    !> `retry_after` remap points.
    module subroutine tessera_balancer_set_slowdown_threshold(balancer, factor, retry_after, status)
      type(tessera_balancer), intent(in) :: balancer
      real(c_double), intent(in) :: factor
      integer, intent(in) :: retry_after
      integer, intent(out), optional :: status
    end subroutine
    !> A balancer for a box-set domain (tessera_dist_from_boxes) that moves whole boxes: each rank
    !> times its patches, every `interval` steps (default 5) the box times are summed, a `target`
    !> assignment (TESSERA_ASSIGN_KNAPSACK, the default, or _MORTON; relabeled so that ranks keep
    !> what they can unless `relabel` is false) is made from them and `policy` chooses how far to go;
    !> `max_bytes_per_step` (default 0: none) caps the bytes one remap point moves.
    module subroutine tessera_box_balancer_create(domain, policy, balancer, status, interval, target, relabel, &
                                                  max_bytes_per_step)
      type(tessera_domain), intent(in) :: domain
      type(tessera_policy), intent(in) :: policy
      type(tessera_box_balancer), intent(out) :: balancer
      integer, intent(out), optional :: status
      integer, intent(in), optional :: interval, target
      logical, intent(in), optional :: relabel
      integer(c_int64_t), intent(in), optional :: max_bytes_per_step
    end subroutine
    !> Start and stop the timer of this rank's patch `patch` (from 0, as tessera_local's); add
    !> `seconds` measured some other way. TESSERA_ERR_OUT_OF_RANGE for a patch the rank does not hold.
    module subroutine tessera_box_balancer_timer_start(balancer, patch, status)
      type(tessera_box_balancer), intent(in) :: balancer
      integer, intent(in) :: patch
      integer, intent(out), optional :: status
    end subroutine
    module subroutine tessera_box_balancer_timer_stop(balancer, patch, status)
      type(tessera_box_balancer), intent(in) :: balancer
      integer, intent(in) :: patch
      integer, intent(out), optional :: status
    end subroutine
    module subroutine tessera_box_balancer_timer_add(balancer, patch, seconds, status)
      type(tessera_box_balancer), intent(in) :: balancer
      integer, intent(in) :: patch
      real(c_double), intent(in) :: seconds
      integer, intent(out), optional :: status
    end subroutine
    !> The box (from 0: column box + 1 of tessera_dist_box_set's lists) that patch `patch` stores.
    module subroutine tessera_box_balancer_box_of_patch(balancer, patch, box, status)
      type(tessera_box_balancer), intent(in) :: balancer
      integer, intent(in) :: patch
      integer, intent(out) :: box
      integer, intent(out), optional :: status
    end subroutine
    !> Collective, once per iteration; at remap points decides and moves boxes with every array of
    !> the domain (take tessera_local pointers again afterwards). A timer still running on some rank
    !> at a remap point: TESSERA_ERR_INVALID_ARGUMENT on every rank, nothing moved.
    module subroutine tessera_box_balancer_step(balancer, status, step)
      type(tessera_box_balancer), intent(in) :: balancer
      integer, intent(out), optional :: status
      type(tessera_balance_step), intent(out), optional :: step
    end subroutine
  end interface

  ! Appended to the C library's messages about interfaces and sections, which speak C's terms.
  character(*), parameter :: c_terms = ' [in C''s terms: C axis d is Fortran dimension ndim - d, ' // &
                                       'C boxes are [lo, hi) in C order, C interface i is interfaces(i + 1)]'

contains

  ! ---------------------------------------------------------------------------------------------
  ! Errors
  ! ---------------------------------------------------------------------------------------------

  !> The message of the last failing call on this thread ("" if none failed).
  function tessera_last_error() result(message)
    character(:), allocatable :: message
    message = last_error_message()
  end function

  function wrong_rank(ndim, expected) result(s)
    integer, intent(in) :: ndim, expected
    integer(c_int) :: s
    s = fail(TESSERA_ERR_MISMATCH, 'tessera_local: the array has ' // str(ndim) // ' dimensions, the pointer ' // &
                                   str(expected))
  end function

  !> The number of live handles of every kind (0 once a program freed everything).
  subroutine tessera_live_handles(count, status)
    integer, intent(out) :: count
    integer, intent(out), optional :: status
    integer(c_size_t) :: n
    integer(c_int) :: s
    s = c_live_handles(n)
    count = int(n)
    call finish(s, status)
  end subroutine

  ! ---------------------------------------------------------------------------------------------
  ! Communicators and grids
  ! ---------------------------------------------------------------------------------------------

  !> Collective over mpi_comm: tessera's own duplicate of it. mpi_comm is a Fortran communicator
  !> handle: an INTEGER from `use mpi`, or comm%MPI_VAL of a type(MPI_Comm) from `use mpi_f08`.
  subroutine tessera_comm_create(mpi_comm, comm, status)
    integer, intent(in) :: mpi_comm
    type(tessera_comm), intent(out) :: comm
    integer, intent(out), optional :: status
    call finish(c_comm_create(int(mpi_comm, c_int), comm%h), status)
  end subroutine

  subroutine tessera_comm_rank(comm, rank, status)
    type(tessera_comm), intent(in) :: comm
    integer, intent(out) :: rank
    integer, intent(out), optional :: status
    integer(c_int) :: r
    call finish(c_comm_rank(comm%h, r), status)
    rank = int(r)
  end subroutine

  subroutine tessera_comm_size(comm, size, status)
    type(tessera_comm), intent(in) :: comm
    integer, intent(out) :: size
    integer, intent(out), optional :: status
    integer(c_int) :: n
    call finish(c_comm_size(comm%h, n), status)
    size = int(n)
  end subroutine

  !> A grid of `shape` (Fortran order) over ranks 0..product(shape)-1 of a communicator of
  !> comm_size ranks; product(shape) must be comm_size. The grid's first axis varies fastest.
  subroutine tessera_grid_create(comm_size, shape, grid, status)
    integer, intent(in) :: comm_size
    integer, intent(in) :: shape(:)
    type(tessera_grid), intent(out) :: grid
    integer, intent(out), optional :: status
    integer(c_int64_t) :: c_shape(TESSERA_MAX_DIM)
    c_shape = 0
    c_shape(1:min(size(shape), TESSERA_MAX_DIM)) = reversed(int(shape, c_int64_t))
    call finish(c_grid_create(int(size(shape), c_int), int(comm_size, c_int), c_shape, grid%h), status)
  end subroutine

  !> The grid tessera chooses for comm_size ranks and data of `extents` (Fortran order): fewest idle
  !> ranks, then the smallest halo.
  subroutine tessera_grid_automatic(comm_size, extents, grid, status)
    integer, intent(in) :: comm_size
    integer, intent(in) :: extents(:)
    type(tessera_grid), intent(out) :: grid
    integer, intent(out), optional :: status
    integer(c_int64_t) :: c_extents(TESSERA_MAX_DIM)
    c_extents = 0
    c_extents(1:min(size(extents), TESSERA_MAX_DIM)) = reversed(int(extents, c_int64_t))
    call finish(c_grid_automatic(int(size(extents), c_int), int(comm_size, c_int), c_extents, c_null_ptr, grid%h), &
                status)
  end subroutine

  !> The grid's extents in Fortran order (shape needs as many entries as the grid has axes).
  subroutine tessera_grid_shape(grid, shape, status)
    type(tessera_grid), intent(in) :: grid
    integer, intent(out) :: shape(:)
    integer, intent(out), optional :: status
    integer(c_int) :: ndim, s
    integer(c_int64_t) :: c_shape(TESSERA_MAX_DIM)
    s = c_grid_ndim(grid%h, ndim)
    if (s == TESSERA_OK) then
      if (size(shape) /= ndim) then
        s = fail(TESSERA_ERR_INVALID_ARGUMENT, 'tessera_grid_shape: shape has ' // str(size(shape)) // &
                                               ' entries, the grid ' // str(int(ndim)) // ' axes')
      else
        s = c_grid_shape(grid%h, c_shape)
        if (s == TESSERA_OK) shape = int(reversed(c_shape(1:ndim)))
      end if
    end if
    call finish(s, status)
  end subroutine

  ! ---------------------------------------------------------------------------------------------
  ! Distributions and domains
  ! ---------------------------------------------------------------------------------------------

  !> Balanced blocks.
  function tessera_block() result(d)
    type(tessera_dim) :: d
    d%kind = TESSERA_DIM_BLOCK
  end function
  !> Round robin, one index at a time.
  function tessera_cyclic() result(d)
    type(tessera_dim) :: d
    d%kind = TESSERA_DIM_CYCLIC
  end function
  !> Blocks of block_size indices dealt round robin, block 0 to grid coordinate `source` (default 0).
  function tessera_block_cyclic(block_size, source) result(d)
    integer, intent(in) :: block_size
    integer, intent(in), optional :: source
    type(tessera_dim) :: d
    d%kind = TESSERA_DIM_BLOCK_CYCLIC
    d%block_size = block_size
    if (present(source)) d%source = source
  end function
  !> Explicit boundaries, g+1 of them for a grid axis of extent g: grid coordinate c (from 0) owns
  !> boundaries(c+1) .. boundaries(c+2)-1; the first is the domain's lo, the last its hi + 1.
  function tessera_cut(boundaries) result(d)
    integer, intent(in) :: boundaries(:)
    type(tessera_dim) :: d
    d%kind = TESSERA_DIM_CUT
    allocate(d%boundaries(size(boundaries)))
    d%boundaries(:) = int(boundaries, c_int64_t)
  end function
  !> Not distributed (the grid axis must have extent 1).
  function tessera_collapsed() result(d)
    type(tessera_dim) :: d
    d%kind = TESSERA_DIM_COLLAPSED
  end function

  !> The distribution of the box lo..hi (inclusive, Fortran order) over `grid`, dims(k) saying how
  !> dimension k is spread over grid axis k.
  subroutine tessera_dist_create(grid, lo, hi, dims, dist, status)
    type(tessera_grid), intent(in) :: grid
    integer, intent(in) :: lo(:), hi(:)
    type(tessera_dim), intent(in), target :: dims(:)
    type(tessera_dist), intent(out) :: dist
    integer, intent(out), optional :: status
    type(c_box) :: box
    type(c_dim_spec) :: specs(TESSERA_MAX_DIM)
    integer :: n, k, c
    integer(c_int) :: s
    n = size(lo)
    s = TESSERA_OK
    if (n < 1 .or. n > TESSERA_MAX_DIM .or. size(hi) /= n .or. size(dims) /= n) then
      s = fail(TESSERA_ERR_INVALID_ARGUMENT, 'tessera_dist_create: lo, hi and dims have ' // str(size(lo)) // ', ' // &
                                             str(size(hi)) // ' and ' // str(size(dims)) // &
                                             ' entries; they need the same number, 1 to 3')
    end if
    if (s == TESSERA_OK) then
      call to_c_box(lo, hi, box)
      do k = 1, n
        c = n + 1 - k
        specs(c)%kind = int(dims(k)%kind, c_int)
        specs(c)%block_size = dims(k)%block_size
        specs(c)%source = int(dims(k)%source, c_int)
        if (allocated(dims(k)%boundaries)) then
          if (size(dims(k)%boundaries) > 0) then
            specs(c)%boundaries = c_loc(dims(k)%boundaries)
            specs(c)%boundary_count = size(dims(k)%boundaries, kind=c_size_t)
          end if
        end if
      end do
      s = c_dist_create(grid%h, box, specs, c_null_ptr, dist%h)
    end if
    call finish(s, status)
  end subroutine

  !> A domain over `dist` on the ranks of `comm`. Every rank creates the same domains and arrays in
  !> the same order.
  subroutine tessera_domain_create(comm, dist, domain, status)
    type(tessera_comm), intent(in) :: comm
    type(tessera_dist), intent(in) :: dist
    type(tessera_domain), intent(out) :: domain
    integer, intent(out), optional :: status
    integer(c_int) :: s, rank
    s = c_comm_rank(comm%h, rank)
    if (s == TESSERA_OK) s = c_domain_create(comm%h, dist%h, domain%h)
    if (s == TESSERA_OK) domain%rank = int(rank)
    call finish(s, status)
  end subroutine

  !> Collective: moves every array over `domain` to `dist` (mode TESSERA_PRESERVE, the default, keeps
  !> every value; TESSERA_DESTRUCTIVE zeroes). Pointers from tessera_local are stale afterwards; ghost
  !> layers must be updated again.
  subroutine tessera_redistribute(domain, dist, status, mode)
    type(tessera_domain), intent(in) :: domain
    type(tessera_dist), intent(in) :: dist
    integer, intent(out), optional :: status
    integer, intent(in), optional :: mode
    integer(c_int) :: m
    m = TESSERA_PRESERVE
    if (present(mode)) m = int(mode, c_int)
    call finish(c_domain_redistribute(domain%h, dist%h, m), status)
  end subroutine

  ! ---------------------------------------------------------------------------------------------
  ! Arrays of real(c_double)
  ! ---------------------------------------------------------------------------------------------

  !> An array of real(c_double) over `domain`, every element 0, with `ghosts` layers (default 0) on
  !> every side, corners included; `periodic(k)` (default .false.) wraps dimension k's ghosts around.
  subroutine tessera_array_create(domain, array, status, ghosts, periodic)
    type(tessera_domain), intent(in) :: domain
    type(tessera_array), intent(out) :: array
    integer, intent(out), optional :: status
    integer, intent(in), optional :: ghosts
    logical, intent(in), optional :: periodic(:)
    type(c_ghosts) :: g
    integer(c_int) :: ndim, s
    integer :: k
    s = c_domain_ndim(domain%h, ndim)
    if (s == TESSERA_OK) then
      if (present(ghosts)) then
        g%lower(1:ndim) = ghosts
        g%upper(1:ndim) = ghosts
      end if
      if (present(periodic)) then
        if (size(periodic) /= ndim) then
          s = fail(TESSERA_ERR_INVALID_ARGUMENT, 'tessera_array_create: periodic has ' // str(size(periodic)) // &
                                                 ' entries, the domain ' // str(int(ndim)) // ' dimensions')
        else
          do k = 1, ndim
            if (periodic(k)) g%periodic(ndim + 1 - k) = 1
          end do
        end if
      end if
    end if
    if (s == TESSERA_OK) s = c_array_create(domain%h, C_TESSERA_DOUBLE, g, array%h)
    if (s == TESSERA_OK) array%rank = domain%rank
    call finish(s, status)
  end subroutine

  !> The owned part of this rank's storage, inclusive, Fortran order: global indices along block and
  !> cut dimensions; along cyclic and block-cyclic ones, the positions 1..count of the owned indices.
  !> A rank that owns nothing gets lo > hi. Where the rank stores several patches (a box set, a
  !> cyclic dimension's runs), `patch` (from 0; see tessera_patch_count) says which.
  subroutine tessera_owned(array, lo, hi, status, patch)
    type(tessera_array), intent(in) :: array
    integer, intent(out) :: lo(:), hi(:)
    integer, intent(out), optional :: status
    integer, intent(in), optional :: patch
    type(c_view) :: v
    integer(c_int64_t) :: lb(TESSERA_MAX_DIM), ext(TESSERA_MAX_DIM)
    integer :: k, c
    integer(c_int) :: s
    logical :: stored
    s = local_view(array, size(lo), v, stored, lb, ext, patch)
    if (s == TESSERA_OK .and. size(hi) /= size(lo)) then
      s = fail(TESSERA_ERR_INVALID_ARGUMENT, 'tessera_owned: lo has ' // str(size(lo)) // ' entries, hi ' // str(size(hi)))
    end if
    if (s == TESSERA_OK) then
      lo = 1
      hi = 0
      if (stored) then
        do k = 1, size(lo)
          c = size(lo) + 1 - k
          lo(k) = int(lb(k) + v%ghost_lo(c))
          hi(k) = int(lo(k) + v%count(c) - 1)
        end do
      end if
    end if
    call finish(s, status)
  end subroutine

  ! This rank's view of patch `patch` (absent: its only patch) in Fortran order: lower bounds
  ! (global, or 1 at the first owned position of a compacted axis) and extents of the storage, ghosts
  ! included. `stored` is false on a rank that stores nothing.
  function local_view(array, ndim, v, stored, lb, ext, patch) result(s)
    type(tessera_array), intent(in) :: array
    integer, intent(in) :: ndim
    type(c_view), intent(out) :: v
    logical, intent(out) :: stored
    integer(c_int64_t), intent(out) :: lb(TESSERA_MAX_DIM), ext(TESSERA_MAX_DIM)
    integer, intent(in), optional :: patch
    integer(c_int) :: s
    integer(c_size_t) :: patches, which
    stored = .false.
    lb = 1
    ext = 0
    which = 0
    s = c_array_patch_count(array%h, patches)
    if (s /= TESSERA_OK) return
    if (present(patch)) then
      if (patch < 0 .or. patch >= patches) then
        s = fail(TESSERA_ERR_OUT_OF_RANGE, 'tessera_local: patch ' // str(patch) // ' does not exist: this rank ' // &
                                           'stores ' // str(int(patches)) // ' (numbered from 0)')
        return
      end if
      which = int(patch, c_size_t)
    else if (patches > 1) then
      s = fail(TESSERA_ERR_INVALID_ARGUMENT, 'tessera_local: the array is stored in ' // str(int(patches)) // &
                                             ' patches here; say which with patch= (0 to ' // &
                                             str(int(patches) - 1) // ', see tessera_patch_count)')
      return
    end if
    if (patches == 0) then
      ! Nothing stored; the view still says the dimension.
      block
        type(tessera_domain) :: dom
        integer(c_int) :: n
        s = c_array_domain(array%h, dom%h)
        if (s == TESSERA_OK) s = c_domain_ndim(dom%h, n)
        if (s == TESSERA_OK) s = c_domain_free(dom%h)
        if (s == TESSERA_OK .and. n /= ndim) s = wrong_rank(int(n), ndim)
      end block
      return
    end if
    s = c_array_local(array%h, which, C_TESSERA_DOUBLE, v)
    if (s /= TESSERA_OK) return
    if (v%ndim /= ndim) then
      s = wrong_rank(int(v%ndim), ndim)
      return
    end if
    s = view_bounds(v, ndim, 'tessera_local', lb, ext, stored)
  end function

  ! A C view's storage in Fortran order: lower bounds (global along an interval axis, 1 at the
  ! first owned position of a compacted one) and extents, ghosts included; `stored` is false for a
  ! view of no storage. Fails unless the storage is dense row-major, which the pointers rely on.
  function view_bounds(v, ndim, caller, lb, ext, stored) result(s)
    type(c_view), intent(in) :: v
    integer, intent(in) :: ndim
    character(*), intent(in) :: caller
    integer(c_int64_t), intent(out) :: lb(TESSERA_MAX_DIM), ext(TESSERA_MAX_DIM)
    logical, intent(out) :: stored
    integer(c_int) :: s
    integer(c_int64_t) :: stride
    integer :: k, c
    s = TESSERA_OK
    stored = .false.
    lb = 1
    ext = 0
    stride = 1
    do c = ndim, 1, -1
      if (v%strides(c) /= stride) then
        s = fail(TESSERA_ERR_INTERNAL, caller // ': the storage is not dense row-major')
        return
      end if
      stride = stride * v%extents(c)
    end do
    do k = 1, ndim
      c = ndim + 1 - k
      ext(k) = v%extents(c)
      if (v%contiguous(c) /= 0) then
        lb(k) = v%first(c) - v%ghost_lo(c)
      else
        lb(k) = 1 - v%ghost_lo(c)
      end if
    end do
    stored = c_associated(v%data) .and. stride > 0
  end function

  subroutine local_1d(array, u, status, patch)
    type(tessera_array), intent(in) :: array
    real(c_double), pointer, intent(out) :: u(:)
    integer, intent(out), optional :: status
    integer, intent(in), optional :: patch
    type(c_view) :: v
    integer(c_int64_t) :: lb(TESSERA_MAX_DIM), ext(TESSERA_MAX_DIM)
    real(c_double), pointer :: flat(:)
    logical :: stored
    integer(c_int) :: s
    s = local_view(array, 1, v, stored, lb, ext, patch)
    u => nothing
    if (s == TESSERA_OK .and. stored) then
      call c_f_pointer(v%data, flat, [ext(1)])
      u(lb(1):lb(1) + ext(1) - 1) => flat
    end if
    call finish(s, status)
  end subroutine

  subroutine local_2d(array, u, status, patch)
    type(tessera_array), intent(in) :: array
    real(c_double), pointer, intent(out) :: u(:, :)
    integer, intent(out), optional :: status
    integer, intent(in), optional :: patch
    type(c_view) :: v
    integer(c_int64_t) :: lb(TESSERA_MAX_DIM), ext(TESSERA_MAX_DIM)
    real(c_double), pointer :: flat(:)
    logical :: stored
    integer(c_int) :: s
    s = local_view(array, 2, v, stored, lb, ext, patch)
    u(1:0, 1:0) => nothing
    if (s == TESSERA_OK .and. stored) then
      call c_f_pointer(v%data, flat, [product(ext(1:2))])
      u(lb(1):lb(1) + ext(1) - 1, lb(2):lb(2) + ext(2) - 1) => flat
    end if
    call finish(s, status)
  end subroutine

  subroutine local_3d(array, u, status, patch)
    type(tessera_array), intent(in) :: array
    real(c_double), pointer, intent(out) :: u(:, :, :)
    integer, intent(out), optional :: status
    integer, intent(in), optional :: patch
    type(c_view) :: v
    integer(c_int64_t) :: lb(TESSERA_MAX_DIM), ext(TESSERA_MAX_DIM)
    real(c_double), pointer :: flat(:)
    logical :: stored
    integer(c_int) :: s
    s = local_view(array, 3, v, stored, lb, ext, patch)
    u(1:0, 1:0, 1:0) => nothing
    if (s == TESSERA_OK .and. stored) then
      call c_f_pointer(v%data, flat, [product(ext(1:3))])
      u(lb(1):lb(1) + ext(1) - 1, lb(2):lb(2) + ext(2) - 1, lb(3):lb(3) + ext(3) - 1) => flat
    end if
    call finish(s, status)
  end subroutine

  ! ---------------------------------------------------------------------------------------------
  ! ScaLAPACK (docs/scalapack.md). The module's arrays are column-major in Fortran's index order
  ! (C's order reversed), so a 2-D block-cyclic array without ghosts is ScaLAPACK's local array as
  ! it is: the C calls below ask for the transposed view of the C array, which is Fortran's.
  ! ---------------------------------------------------------------------------------------------

  !> ScaLAPACK's descriptor of this rank's part of the 2-D `array` (block-cyclic along both
  !> dimensions, no ghosts) in the BLACS grid `context`: desc = (1, context, M, N, MB, NB, RSRC,
  !> CSRC, LLD), as descinit would fill it. Make the grid with tessera_blacs_process_map.
  subroutine tessera_scalapack_descriptor(array, context, desc, status)
    type(tessera_array), intent(in) :: array
    integer, intent(in) :: context
    integer, intent(out) :: desc(9)
    integer, intent(out), optional :: status
    integer(c_int) :: c_desc(9), rows, cols, s
    s = c_scalapack_descriptor(array%h, int(context, c_int), 1_c_int, c_desc, rows, cols)
    if (s == TESSERA_OK) desc = int(c_desc)
    call finish(s, status)
  end subroutine

  !> The BLACS grid shape (nprow, npcol) of the 2-D array's processor grid and the process map
  !> for blacs_gridmap(context, map, nprow, nprow, npcol): map(r + 1, c + 1) (with `map` seen as
  !> nprow x npcol) is the rank at grid position (r, c). `map` needs nprow * npcol entries.
  subroutine tessera_blacs_process_map(array, map, nprow, npcol, status)
    type(tessera_array), intent(in) :: array
    integer, intent(out) :: map(:)
    integer, intent(out) :: nprow, npcol
    integer, intent(out), optional :: status
    integer(c_int) :: c_map(size(map)), rows, cols, s
    s = c_blacs_process_map(array%h, 1_c_int, c_map, int(size(map), c_size_t), rows, cols)
    if (s == TESSERA_OK) then
      map = int(c_map)
      nprow = int(rows)
      npcol = int(cols)
    end if
    call finish(s, status)
  end subroutine

  !> The patches this rank stores, numbered 0..count-1 for tessera_local and tessera_owned: 1 for a
  !> block or cut distribution, one per box it owns in a box set, 0 on a rank that owns nothing.
  subroutine tessera_patch_count(array, count, status)
    type(tessera_array), intent(in) :: array
    integer, intent(out) :: count
    integer, intent(out), optional :: status
    integer(c_size_t) :: n
    n = 0
    call finish(c_array_patch_count(array%h, n), status)
    count = int(n)
  end subroutine

  !> Collective: fills every ghost layer from the owners of those indices.
  subroutine tessera_update_ghosts(array, status)
    type(tessera_array), intent(in) :: array
    integer, intent(out), optional :: status
    call finish(c_array_update_ghosts(array%h), status)
  end subroutine

  !> Collective: the sum of every element, the same on every rank.
  subroutine tessera_sum(array, total, status)
    type(tessera_array), intent(in) :: array
    real(c_double), intent(out), target :: total
    integer, intent(out), optional :: status
    call finish(c_array_reduce(array%h, C_TESSERA_OP_ADD, C_TESSERA_DOUBLE, c_loc(total)), status)
  end subroutine

  ! Whether a buffer of `shape` fits the array's domain exactly (Fortran order). A buffer of the
  ! right size and the wrong shape (nx x ny for ny x nx) would be read or written garbled.
  logical function fits_domain(array, shape)
    type(tessera_array), intent(in) :: array
    integer, intent(in) :: shape(:)
    type(tessera_domain) :: dom
    type(c_box) :: box
    integer(c_int) :: s
    integer :: n
    fits_domain = .false.
    s = c_array_domain(array%h, dom%h)
    if (s /= TESSERA_OK) return
    s = c_domain_box(dom%h, box)
    if (c_domain_free(dom%h) /= TESSERA_OK .or. s /= TESSERA_OK) return
    n = size(shape)
    fits_domain = all(int(shape, c_int64_t) == reversed(box%hi(1:n) - box%lo(1:n)))
  end function

  ! The gather and scatter: on root, `buffer` of `shape` must be the domain's shape; a root whose
  ! buffer does not fit passes no buffer, so that the call fails on every rank (nothing hangs).
  function gather_buffer(array, root, shape, buffer, count) result(s)
    type(tessera_array), intent(in) :: array
    integer, intent(in) :: root, shape(:)
    type(c_ptr), intent(in) :: buffer
    integer(c_int64_t), intent(in) :: count
    integer(c_int) :: s
    logical :: refused
    refused = .false.
    if (is_root(array, root)) refused = .not. fits_domain(array, shape)
    if (refused) then
      s = c_array_gather_to(array%h, int(root, c_int), C_TESSERA_DOUBLE, c_null_ptr, 0_c_int64_t)
      if (s /= TESSERA_OK) s = fail(s, 'tessera_gather: `out` on root has shape (' // str_list(shape) // &
                                       '), not the domain''s shape')
    else
      s = c_array_gather_to(array%h, int(root, c_int), C_TESSERA_DOUBLE, buffer, count)
    end if
  end function

  function scatter_buffer(array, root, shape, buffer, count) result(s)
    type(tessera_array), intent(in) :: array
    integer, intent(in) :: root, shape(:)
    type(c_ptr), intent(in) :: buffer
    integer(c_int64_t), intent(in) :: count
    integer(c_int) :: s
    logical :: refused
    refused = .false.
    if (is_root(array, root)) refused = .not. fits_domain(array, shape)
    if (refused) then
      s = c_array_scatter_from(array%h, int(root, c_int), C_TESSERA_DOUBLE, c_null_ptr, 0_c_int64_t)
      if (s /= TESSERA_OK) s = fail(s, 'tessera_scatter: `data` on root has shape (' // str_list(shape) // &
                                       '), not the domain''s shape')
    else
      s = c_array_scatter_from(array%h, int(root, c_int), C_TESSERA_DOUBLE, buffer, count)
    end if
  end function

  ! Whether this rank is `root` of the array's communicator (its rank there, recorded when the
  ! domain was created: the C API does not give an array's communicator back).
  logical function is_root(array, root)
    type(tessera_array), intent(in) :: array
    integer, intent(in) :: root
    is_root = array%rank == root
  end function

  ! Buffers the gather and scatter hand over; c_loc only of non-empty arrays.
  type(c_ptr) function address_of(buffer, n)
    real(c_double), intent(in), target :: buffer(*)
    integer(c_int64_t), intent(in) :: n
    address_of = c_null_ptr
    if (n > 0) address_of = c_loc(buffer(1))
  end function

  subroutine gather_1d(array, root, out, status)
    type(tessera_array), intent(in) :: array
    integer, intent(in) :: root
    real(c_double), intent(inout), contiguous, target :: out(:)
    integer, intent(out), optional :: status
    call finish(gather_buffer(array, root, shape(out), address_of(out, size(out, kind=c_int64_t)), &
                              size(out, kind=c_int64_t)), status)
  end subroutine
  subroutine gather_2d(array, root, out, status)
    type(tessera_array), intent(in) :: array
    integer, intent(in) :: root
    real(c_double), intent(inout), contiguous, target :: out(:, :)
    integer, intent(out), optional :: status
    call finish(gather_buffer(array, root, shape(out), address_of(out, size(out, kind=c_int64_t)), &
                              size(out, kind=c_int64_t)), status)
  end subroutine
  subroutine gather_3d(array, root, out, status)
    type(tessera_array), intent(in) :: array
    integer, intent(in) :: root
    real(c_double), intent(inout), contiguous, target :: out(:, :, :)
    integer, intent(out), optional :: status
    call finish(gather_buffer(array, root, shape(out), address_of(out, size(out, kind=c_int64_t)), &
                              size(out, kind=c_int64_t)), status)
  end subroutine

  subroutine scatter_1d(array, root, data, status)
    type(tessera_array), intent(in) :: array
    integer, intent(in) :: root
    real(c_double), intent(in), contiguous, target :: data(:)
    integer, intent(out), optional :: status
    call finish(scatter_buffer(array, root, shape(data), address_of(data, size(data, kind=c_int64_t)), &
                               size(data, kind=c_int64_t)), status)
  end subroutine
  subroutine scatter_2d(array, root, data, status)
    type(tessera_array), intent(in) :: array
    integer, intent(in) :: root
    real(c_double), intent(in), contiguous, target :: data(:, :)
    integer, intent(out), optional :: status
    call finish(scatter_buffer(array, root, shape(data), address_of(data, size(data, kind=c_int64_t)), &
                               size(data, kind=c_int64_t)), status)
  end subroutine
  subroutine scatter_3d(array, root, data, status)
    type(tessera_array), intent(in) :: array
    integer, intent(in) :: root
    real(c_double), intent(in), contiguous, target :: data(:, :, :)
    integer, intent(out), optional :: status
    call finish(scatter_buffer(array, root, shape(data), address_of(data, size(data, kind=c_int64_t)), &
                               size(data, kind=c_int64_t)), status)
  end subroutine

  ! ---------------------------------------------------------------------------------------------
  ! Processor groups (ZPL's disjoint grids; docs/fortran.md)
  ! ---------------------------------------------------------------------------------------------

  !> Collective over `parent`: splits its ranks into size(sizes) disjoint groups, each with a
  !> communicator of its own. Groups are numbered from 0, as MPI ranks are: group g holds sizes(g+1)
  !> parent ranks, and `ranks` lists group 0's, then group 1's, ...; a rank may be in no group.
  !> Every rank passes the same lists; an empty group, a rank outside the parent or in two groups
  !> is TESSERA_ERR_INVALID_ARGUMENT on every rank.
  subroutine tessera_groups_create(parent, ranks, sizes, groups, status)
    type(tessera_comm), intent(in) :: parent
    integer, intent(in) :: ranks(:), sizes(:)
    type(tessera_groups), intent(out) :: groups
    integer, intent(out), optional :: status
    integer(c_int) :: r(max(size(ranks), 1)), n(max(size(sizes), 1))
    r = 0
    n = 0
    r(1:size(ranks)) = int(ranks, c_int)
    n(1:size(sizes)) = int(sizes, c_int)
    call finish(c_groups_create(parent%h, r, n, int(size(sizes), c_int), groups%h), status)
  end subroutine

  subroutine tessera_groups_count(groups, count, status)
    type(tessera_groups), intent(in) :: groups
    integer, intent(out) :: count
    integer, intent(out), optional :: status
    integer(c_int) :: n
    call finish(c_groups_count(groups%h, n), status)
    count = int(n)
  end subroutine

  !> The group holding parent rank `parent_rank`, or -1 if none does.
  subroutine tessera_groups_group_of(groups, parent_rank, group, status)
    type(tessera_groups), intent(in) :: groups
    integer, intent(in) :: parent_rank
    integer, intent(out) :: group
    integer, intent(out), optional :: status
    integer(c_int) :: g
    call finish(c_groups_group_of(groups%h, int(parent_rank, c_int), g), status)
    group = int(g)
  end subroutine

  !> This rank's group, or -1 if it is in none.
  subroutine tessera_groups_my_group(groups, group, status)
    type(tessera_groups), intent(in) :: groups
    integer, intent(out) :: group
    integer, intent(out), optional :: status
    integer(c_int) :: g
    call finish(c_groups_my_group(groups%h, g), status)
    group = int(g)
  end subroutine

  !> Collective over this rank's group: a communicator of the group's ranks, for domains whose
  !> collectives involve the group only (free it with tessera_free). On a rank in no group:
  !> TESSERA_ERR_INVALID_ARGUMENT.
  subroutine tessera_groups_comm(groups, comm, status)
    type(tessera_groups), intent(in) :: groups
    type(tessera_comm), intent(out) :: comm
    integer, intent(out), optional :: status
    call finish(c_groups_comm(groups%h, comm%h), status)
  end subroutine

  !> Collective over the groups' parent (every parent rank calls it, ranks in neither group too):
  !> dst := src across two groups, arrays over the same box. `from` and `to` are the distributions
  !> (each for its group's number of ranks), passed alike by every rank; the ranks of `from_group`
  !> pass src=, those of `to_group` dst=, the others neither. Fails on every rank before anything
  !> moves (TESSERA_ERR_INVALID_ARGUMENT) for a group that does not exist, the same group twice, a
  !> distribution for another number of ranks than its group, an array missing or passed outside
  !> its group or over another distribution than named.
  subroutine tessera_copy_between_groups(groups, from_group, from, to_group, to, status, src, dst)
    type(tessera_groups), intent(in) :: groups
    integer, intent(in) :: from_group, to_group
    type(tessera_dist), intent(in) :: from, to
    integer, intent(out), optional :: status
    type(tessera_array), intent(in), optional :: src
    type(tessera_array), intent(in), optional :: dst
    type(c_ptr) :: s, d
    s = c_null_ptr
    d = c_null_ptr
    if (present(src)) s = src%h
    if (present(dst)) d = dst%h
    call finish(c_copy_between_groups(groups%h, C_TESSERA_DOUBLE, int(from_group, c_int), from%h, s, &
                                      int(to_group, c_int), to%h, d), status)
  end subroutine

  ! ---------------------------------------------------------------------------------------------
  ! Multiblock domains (Multiblock PARTI; docs/fortran.md, "Multiblock domains"). Blocks, patches
  ! and interfaces are numbered as in C, from 0 (blocks(b + 1) is block b); points, boxes and
  ! dimensions are in Fortran order, inclusive, in each block's own indices, as everywhere here.
  ! ---------------------------------------------------------------------------------------------

  !> A multiblock domain on the ranks of `comm`: block b is blocks(b + 1) (any distribution for
  !> comm's size, over the block's own box), glued by `interfaces`; arrays over it may have ghosts up
  !> to max_ghost_width wide. Not collective, but every rank passes the same arguments, so a bad
  !> interface (an axis that is not a dimension, a perm that is not a permutation, faces that do not
  !> match, two interfaces sharing a face cell) fails alike on every rank.
  subroutine tessera_multiblock_create(comm, blocks, interfaces, max_ghost_width, multiblock, status)
    type(tessera_comm), intent(in) :: comm
    type(tessera_dist), intent(in) :: blocks(:)
    type(tessera_block_interface), intent(in) :: interfaces(:)
    integer, intent(in) :: max_ghost_width
    type(tessera_multiblock), intent(out) :: multiblock
    integer, intent(out), optional :: status
    ! C reads no entry of an empty list, but Fortran passes an address: one spare entry each.
    type(c_ptr) :: handles(max(size(blocks), 1))
    type(c_block_interface) :: glue(max(size(interfaces), 1))
    integer(c_int) :: s, ndim, rank
    integer :: i
    handles = c_null_ptr
    do i = 1, size(blocks)
      handles(i) = blocks(i)%h
    end do
    s = TESSERA_OK
    ! The blocks' dimension, to check and turn the interfaces in Fortran's terms. Without a usable
    ! first block, tessera_multiblock_create says what is wrong with the blocks.
    ndim = 0
    if (size(blocks) > 0) then
      if (c_dist_ndim(blocks(1)%h, ndim) /= TESSERA_OK) ndim = 0
    end if
    if (ndim > 0) then
      do i = 1, size(interfaces)
        s = to_c_interface(interfaces(i), int(ndim), 'tessera_multiblock_create: interfaces(' // str(i) // ')', &
                           glue(i))
        if (s /= TESSERA_OK) exit
      end do
    end if
    if (s == TESSERA_OK) s = c_comm_rank(comm%h, rank)
    if (s == TESSERA_OK) then
      s = c_multiblock_create(comm%h, handles, size(blocks, kind=c_size_t), glue, size(interfaces, kind=c_size_t), &
                              int(max_ghost_width, c_int64_t), multiblock%h)
      if (s /= TESSERA_OK) s = fail(s, c_message() // c_terms)
    end if
    if (s == TESSERA_OK) s = record_blocks(multiblock, int(rank))
    call finish(s, status)
  end subroutine

  ! Remembers the rank, the dimension and every block's extents (see tessera_multiblock).
  function record_blocks(multiblock, rank) result(s)
    type(tessera_multiblock), intent(inout) :: multiblock
    integer, intent(in) :: rank
    integer(c_int) :: s, ndim
    integer(c_size_t) :: count, b
    type(c_box) :: box
    s = c_multiblock_ndim(multiblock%h, ndim)
    if (s == TESSERA_OK) s = c_multiblock_block_count(multiblock%h, count)
    if (s /= TESSERA_OK) return
    allocate(multiblock%extents(ndim, count))
    do b = 0, count - 1
      s = c_multiblock_block_box(multiblock%h, b, box)
      if (s /= TESSERA_OK) return
      multiblock%extents(:, b + 1) = int(reversed(box%hi(1:ndim) - box%lo(1:ndim)))
    end do
    multiblock%rank = rank
    multiblock%ndim = int(ndim)
  end function

  ! One interface in C's terms; `what` names it in messages.
  function to_c_interface(glue, ndim, what, c) result(s)
    type(tessera_block_interface), intent(in) :: glue
    integer, intent(in) :: ndim
    character(*), intent(in) :: what
    type(c_block_interface), intent(out) :: c
    integer(c_int) :: s
    s = to_c_face(glue%a, ndim, what // '%a', c%a)
    if (s == TESSERA_OK) s = to_c_face(glue%b, ndim, what // '%b', c%b)
    ! An unallocated perm or flip is an absent argument (the identity, nothing reversed).
    if (s == TESSERA_OK) s = to_c_orientation(ndim, what // '%', c%perm, c%flip, glue%perm, glue%flip)
  end function

  function to_c_face(face, ndim, what, c) result(s)
    type(tessera_block_face), intent(in) :: face
    integer, intent(in) :: ndim
    character(*), intent(in) :: what
    type(c_block_face), intent(out) :: c
    integer(c_int) :: s
    s = TESSERA_OK
    if (face%axis < 1 .or. face%axis > ndim) then
      s = fail(TESSERA_ERR_INVALID_ARGUMENT, what // '%axis = ' // str(face%axis) // ' is not a dimension of the ' // &
                                             str(ndim) // '-dimensional blocks (1..' // str(ndim) // ')')
      return
    end if
    c%block = int(face%block, c_int)  ! the library says if it is not a block
    c%axis = int(ndim - face%axis, c_int)
    c%upper = merge(1_c_int, 0_c_int, face%upper)
    if (allocated(face%cells_lo) .neqv. allocated(face%cells_hi)) then
      s = fail(TESSERA_ERR_INVALID_ARGUMENT, what // ': cells_lo and cells_hi go together (neither: the whole face)')
    else if (allocated(face%cells_lo)) then
      if (size(face%cells_lo) /= ndim .or. size(face%cells_hi) /= ndim) then
        s = fail(TESSERA_ERR_INVALID_ARGUMENT, what // ': cells_lo and cells_hi have ' // str(size(face%cells_lo)) // &
                                               ' and ' // str(size(face%cells_hi)) // ' entries, the blocks ' // &
                                               str(ndim) // ' dimensions')
      else if (any(face%cells_lo > face%cells_hi)) then
        ! An empty box means the whole face in C: refused, rather than silently glue all of it.
        s = fail(TESSERA_ERR_INVALID_ARGUMENT, what // ': cells_lo:cells_hi = (' // str_list(face%cells_lo) // &
                                               '):(' // str_list(face%cells_hi) // ') holds no cell; leave them ' // &
                                               'unallocated for the whole face')
      else
        call to_c_box(face%cells_lo, face%cells_hi, c%cells)
      end if
    end if
  end function

  ! An orientation in Fortran order (dimension k runs along dimension perm(k) of the other side,
  ! reversed where flip(k)) in C's: C axis d is Fortran dimension ndim - d, so C's perm[ndim - k]
  ! is ndim - perm(k). Absent perm: the identity; absent flip: nothing reversed. `what` is what
  ! messages put before "perm" and "flip".
  function to_c_orientation(ndim, what, c_perm, c_flip, perm, flip) result(s)
    integer, intent(in) :: ndim
    character(*), intent(in) :: what
    integer(c_int), intent(out) :: c_perm(TESSERA_MAX_DIM), c_flip(TESSERA_MAX_DIM)
    integer, intent(in), optional :: perm(:)
    logical, intent(in), optional :: flip(:)
    integer(c_int) :: s
    integer :: k
    s = TESSERA_OK
    c_perm = 0
    c_flip = 0
    do k = 1, ndim
      c_perm(k) = int(k - 1, c_int)
    end do
    if (present(perm)) then
      if (size(perm) /= ndim) then
        s = fail(TESSERA_ERR_INVALID_ARGUMENT, what // 'perm has ' // str(size(perm)) // ' entries, the blocks ' // &
                                               str(ndim) // ' dimensions')
        return
      end if
      do k = 1, ndim
        if (count(perm == k) /= 1) then
          s = fail(TESSERA_ERR_INVALID_ARGUMENT, what // 'perm = (' // str_list(perm) // &
                                                 ') is not a permutation of 1..' // str(ndim))
          return
        end if
      end do
      do k = 1, ndim
        c_perm(ndim + 1 - k) = int(ndim - perm(k), c_int)
      end do
    end if
    if (present(flip)) then
      if (size(flip) /= ndim) then
        s = fail(TESSERA_ERR_INVALID_ARGUMENT, what // 'flip has ' // str(size(flip)) // ' entries, the blocks ' // &
                                               str(ndim) // ' dimensions')
        return
      end if
      do k = 1, ndim
        if (flip(k)) c_flip(ndim + 1 - k) = 1
      end do
    end if
  end function

  subroutine tessera_multiblock_ndim(multiblock, ndim, status)
    type(tessera_multiblock), intent(in) :: multiblock
    integer, intent(out) :: ndim
    integer, intent(out), optional :: status
    integer(c_int) :: n
    n = 0
    call finish(c_multiblock_ndim(multiblock%h, n), status)
    ndim = int(n)
  end subroutine

  subroutine tessera_multiblock_block_count(multiblock, count, status)
    type(tessera_multiblock), intent(in) :: multiblock
    integer, intent(out) :: count
    integer, intent(out), optional :: status
    integer(c_size_t) :: n
    n = 0
    call finish(c_multiblock_block_count(multiblock%h, n), status)
    count = int(n)
  end subroutine

  ! A block number the C API takes (size_t): a negative one is refused here, before it wraps.
  function block_number(block, caller) result(s)
    integer, intent(in) :: block
    character(*), intent(in) :: caller
    integer(c_int) :: s
    s = TESSERA_OK
    if (block < 0) s = fail(TESSERA_ERR_OUT_OF_RANGE, caller // ': block ' // str(block) // &
                                                      ' is not a block (they are numbered from 0)')
  end function

  !> Block `block`'s index space: lo:hi, inclusive, Fortran order (as its distribution was made).
  subroutine tessera_multiblock_block_box(multiblock, block, lo, hi, status)
    type(tessera_multiblock), intent(in) :: multiblock
    integer, intent(in) :: block
    integer, intent(out) :: lo(:), hi(:)
    integer, intent(out), optional :: status
    integer(c_int) :: s, ndim
    type(c_box) :: box
    s = block_number(block, 'tessera_multiblock_block_box')
    if (s == TESSERA_OK) s = c_multiblock_ndim(multiblock%h, ndim)
    if (s == TESSERA_OK) then
      if (size(lo) /= ndim .or. size(hi) /= ndim) then
        s = fail(TESSERA_ERR_INVALID_ARGUMENT, 'tessera_multiblock_block_box: lo and hi have ' // str(size(lo)) // &
                                               ' and ' // str(size(hi)) // ' entries, the blocks ' // &
                                               str(int(ndim)) // ' dimensions')
      else
        s = c_multiblock_block_box(multiblock%h, int(block, c_size_t), box)
        if (s == TESSERA_OK) then
          lo = int(reversed(box%lo(1:ndim)))
          hi = int(reversed(box%hi(1:ndim))) - 1
        end if
      end if
    end if
    call finish(s, status)
  end subroutine

  !> A new handle to block `block`'s current distribution (free it with tessera_free).
  subroutine tessera_multiblock_block_dist(multiblock, block, dist, status)
    type(tessera_multiblock), intent(in) :: multiblock
    integer, intent(in) :: block
    type(tessera_dist), intent(out) :: dist
    integer, intent(out), optional :: status
    integer(c_int) :: s
    s = block_number(block, 'tessera_multiblock_block_dist')
    if (s == TESSERA_OK) s = c_multiblock_block_dist(multiblock%h, int(block, c_size_t), dist%h)
    call finish(s, status)
  end subroutine

  !> Collective: block b gets the distribution blocks(b + 1), over the same box; the interfaces stay,
  !> and every array over the domain keeps its values where both layouts hold a cell (cells only
  !> the new one holds are 0; ghosts need an update). Pointers from tessera_multiblock_array_local
  !> are stale afterwards, and the patches renumbered. Another number of blocks, a block over
  !> another box or a ghost update in flight: TESSERA_ERR_INVALID_ARGUMENT on every rank, nothing
  !> changed.
  subroutine tessera_multiblock_redistribute(multiblock, blocks, status)
    type(tessera_multiblock), intent(in) :: multiblock
    type(tessera_dist), intent(in) :: blocks(:)
    integer, intent(out), optional :: status
    type(c_ptr) :: handles(max(size(blocks), 1))
    integer :: i
    handles = c_null_ptr
    do i = 1, size(blocks)
      handles(i) = blocks(i)%h
    end do
    call finish(c_multiblock_redistribute(multiblock%h, handles, size(blocks, kind=c_size_t)), status)
  end subroutine

  !> An array of real(c_double) over every block, zero everywhere, with `ghosts` layers (default 0,
  !> at most the domain's max_ghost_width) on every side of every patch, corners included. Ghosts
  !> beyond a glued face come from the other block (faces only); beyond a face no interface covers
  !> they are left alone (a wall). Every rank creates the same arrays in the same order.
  subroutine tessera_multiblock_array_create(multiblock, array, status, ghosts)
    type(tessera_multiblock), intent(in) :: multiblock
    type(tessera_multiblock_array), intent(out) :: array
    integer, intent(out), optional :: status
    integer, intent(in), optional :: ghosts
    type(c_ghosts) :: g
    integer(c_int) :: s, ndim
    s = c_multiblock_ndim(multiblock%h, ndim)
    if (s == TESSERA_OK .and. present(ghosts)) then
      g%lower(1:ndim) = ghosts
      g%upper(1:ndim) = ghosts
    end if
    if (s == TESSERA_OK) s = c_multiblock_array_create(multiblock%h, C_TESSERA_DOUBLE, g, array%h)
    if (s == TESSERA_OK) then
      array%rank = multiblock%rank
      array%ndim = int(ndim)
      array%extents = multiblock%extents
    end if
    call finish(s, status)
  end subroutine

  !> The patches this rank stores, numbered 0..count-1: one per box it holds in any block (a block
  !> distribution gives a rank one box of a block, a cyclic one a box per run of indices).
  subroutine tessera_multiblock_array_patch_count(array, count, status)
    type(tessera_multiblock_array), intent(in) :: array
    integer, intent(out) :: count
    integer, intent(out), optional :: status
    integer(c_size_t) :: n
    n = 0
    call finish(c_multiblock_array_patch_count(array%h, n), status)
    count = int(n)
  end subroutine

  ! Patch `patch`'s view, the block it belongs to and its bounds in Fortran order (view_bounds),
  ! with the owned part into owned_lo/owned_hi when asked for.
  function multiblock_view(array, patch, ndim, v, block, stored, lb, ext, owned_lo, owned_hi) result(s)
    type(tessera_multiblock_array), intent(in) :: array
    integer, intent(in) :: patch, ndim
    type(c_view), intent(out) :: v
    integer, intent(out) :: block
    logical, intent(out) :: stored
    integer(c_int64_t), intent(out) :: lb(TESSERA_MAX_DIM), ext(TESSERA_MAX_DIM)
    integer, intent(out), optional :: owned_lo(:), owned_hi(:)
    integer(c_int) :: s
    integer(c_size_t) :: b
    integer :: k, c
    character(*), parameter :: caller = 'tessera_multiblock_array_local'
    block = -1
    stored = .false.
    lb = 1
    ext = 0
    if (patch < 0) then
      s = fail(TESSERA_ERR_OUT_OF_RANGE, caller // ': patch ' // str(patch) // &
                                         ' does not exist (patches are numbered from 0)')
      return
    end if
    s = c_multiblock_array_local(array%h, int(patch, c_size_t), C_TESSERA_DOUBLE, b, v)
    if (s /= TESSERA_OK) return
    if (v%ndim /= ndim) then
      s = fail(TESSERA_ERR_MISMATCH, caller // ': the array has ' // str(int(v%ndim)) // &
                                     ' dimensions, the pointer ' // str(ndim))
      return
    end if
    do k = 1, 2
      ! The owned bounds, when asked for, need as many entries as there are dimensions.
      if (k == 1 .and. present(owned_lo)) then
        if (size(owned_lo) /= ndim) s = fail(TESSERA_ERR_INVALID_ARGUMENT, caller // ': owned_lo has ' // &
                                             str(size(owned_lo)) // ' entries, the array ' // str(ndim) // &
                                             ' dimensions')
      else if (k == 2 .and. present(owned_hi)) then
        if (size(owned_hi) /= ndim) s = fail(TESSERA_ERR_INVALID_ARGUMENT, caller // ': owned_hi has ' // &
                                             str(size(owned_hi)) // ' entries, the array ' // str(ndim) // &
                                             ' dimensions')
      end if
      if (s /= TESSERA_OK) return
    end do
    s = view_bounds(v, ndim, caller, lb, ext, stored)
    if (s /= TESSERA_OK) return
    block = int(b)
    do k = 1, ndim
      c = ndim + 1 - k
      if (present(owned_lo)) owned_lo(k) = int(lb(k) + v%ghost_lo(c))
      if (present(owned_hi)) owned_hi(k) = int(lb(k) + v%ghost_lo(c) + v%count(c) - 1)
    end do
  end function

  !> u points at patch `patch` (0..count-1) of this rank's storage, ghosts included, indexed by the
  !> block's own indices; `block` is the block it belongs to; owned_lo:owned_hi, if given, the part
  !> this rank owns. Valid until the domain is redistributed.
  subroutine multiblock_local_1d(array, patch, block, u, status, owned_lo, owned_hi)
    type(tessera_multiblock_array), intent(in) :: array
    integer, intent(in) :: patch
    integer, intent(out) :: block
    real(c_double), pointer, intent(out) :: u(:)
    integer, intent(out), optional :: status
    integer, intent(out), optional :: owned_lo(:), owned_hi(:)
    type(c_view) :: v
    integer(c_int64_t) :: lb(TESSERA_MAX_DIM), ext(TESSERA_MAX_DIM)
    real(c_double), pointer :: flat(:)
    logical :: stored
    integer(c_int) :: s
    s = multiblock_view(array, patch, 1, v, block, stored, lb, ext, owned_lo, owned_hi)
    u => nothing
    if (s == TESSERA_OK .and. stored) then
      call c_f_pointer(v%data, flat, [ext(1)])
      u(lb(1):lb(1) + ext(1) - 1) => flat
    end if
    call finish(s, status)
  end subroutine

  subroutine multiblock_local_2d(array, patch, block, u, status, owned_lo, owned_hi)
    type(tessera_multiblock_array), intent(in) :: array
    integer, intent(in) :: patch
    integer, intent(out) :: block
    real(c_double), pointer, intent(out) :: u(:, :)
    integer, intent(out), optional :: status
    integer, intent(out), optional :: owned_lo(:), owned_hi(:)
    type(c_view) :: v
    integer(c_int64_t) :: lb(TESSERA_MAX_DIM), ext(TESSERA_MAX_DIM)
    real(c_double), pointer :: flat(:)
    logical :: stored
    integer(c_int) :: s
    s = multiblock_view(array, patch, 2, v, block, stored, lb, ext, owned_lo, owned_hi)
    u(1:0, 1:0) => nothing
    if (s == TESSERA_OK .and. stored) then
      call c_f_pointer(v%data, flat, [product(ext(1:2))])
      u(lb(1):lb(1) + ext(1) - 1, lb(2):lb(2) + ext(2) - 1) => flat
    end if
    call finish(s, status)
  end subroutine

  subroutine multiblock_local_3d(array, patch, block, u, status, owned_lo, owned_hi)
    type(tessera_multiblock_array), intent(in) :: array
    integer, intent(in) :: patch
    integer, intent(out) :: block
    real(c_double), pointer, intent(out) :: u(:, :, :)
    integer, intent(out), optional :: status
    integer, intent(out), optional :: owned_lo(:), owned_hi(:)
    type(c_view) :: v
    integer(c_int64_t) :: lb(TESSERA_MAX_DIM), ext(TESSERA_MAX_DIM)
    real(c_double), pointer :: flat(:)
    logical :: stored
    integer(c_int) :: s
    s = multiblock_view(array, patch, 3, v, block, stored, lb, ext, owned_lo, owned_hi)
    u(1:0, 1:0, 1:0) => nothing
    if (s == TESSERA_OK .and. stored) then
      call c_f_pointer(v%data, flat, [product(ext(1:3))])
      u(lb(1):lb(1) + ext(1) - 1, lb(2):lb(2) + ext(2) - 1, lb(3):lb(3) + ext(3) - 1) => flat
    end if
    call finish(s, status)
  end subroutine

  ! A point of block `block` (Fortran order) in C's order, checked against the array's dimension.
  function c_point_of(array, block, point, caller, c_point) result(s)
    type(tessera_multiblock_array), intent(in) :: array
    integer, intent(in) :: block, point(:)
    character(*), intent(in) :: caller
    integer(c_int64_t), intent(out) :: c_point(TESSERA_MAX_DIM)
    integer(c_int) :: s
    c_point = 0
    s = block_number(block, caller)
    if (s /= TESSERA_OK) return
    if (array%ndim > 0) then
      s = point_to_c(point, array%ndim, caller, 'the array', c_point)
    else if (size(point) <= TESSERA_MAX_DIM) then
      ! An array never created (ndim 0) is left to the library, which names the bad handle.
      c_point(1:size(point)) = reversed(int(point, c_int64_t))
    end if
  end function

  !> The element at `point` (Fortran order) of block `block`; this rank must store it (owned or
  !> ghost), else TESSERA_ERR_OUT_OF_RANGE.
  subroutine tessera_multiblock_array_get(array, block, point, value, status)
    type(tessera_multiblock_array), intent(in) :: array
    integer, intent(in) :: block, point(:)
    real(c_double), intent(out), target :: value
    integer, intent(out), optional :: status
    integer(c_int64_t) :: c_point(TESSERA_MAX_DIM)
    integer(c_int) :: s
    value = 0
    s = c_point_of(array, block, point, 'tessera_multiblock_array_get', c_point)
    if (s == TESSERA_OK) s = c_multiblock_array_get(array%h, int(block, c_size_t), c_point, C_TESSERA_DOUBLE, &
                                                    c_loc(value))
    call finish(s, status)
  end subroutine

  !> Sets the element at `point` of block `block`, which this rank must store.
  subroutine tessera_multiblock_array_set(array, block, point, value, status)
    type(tessera_multiblock_array), intent(in) :: array
    integer, intent(in) :: block, point(:)
    real(c_double), intent(in), target :: value
    integer, intent(out), optional :: status
    integer(c_int64_t) :: c_point(TESSERA_MAX_DIM)
    integer(c_int) :: s
    s = c_point_of(array, block, point, 'tessera_multiblock_array_set', c_point)
    if (s == TESSERA_OK) s = c_multiblock_array_set(array%h, int(block, c_size_t), c_point, C_TESSERA_DOUBLE, &
                                                    c_loc(value))
    call finish(s, status)
  end subroutine

  !> Collective: fills every ghost, each block's from its own cells and across interfaces from the
  !> glued block, orientation applied.
  subroutine tessera_multiblock_array_update_ghosts(array, status)
    type(tessera_multiblock_array), intent(in) :: array
    integer, intent(out), optional :: status
    call finish(c_multiblock_array_update_ghosts(array%h), status)
  end subroutine

  !> Collective: the update started here and completed by tessera_multiblock_array_end_update_ghosts,
  !> around work on owned cells; ghosts must not be touched in between. TESSERA_ERR_CALL_ORDER for a
  !> begin with an update in flight, or an end without one.
  subroutine tessera_multiblock_array_begin_update_ghosts(array, status)
    type(tessera_multiblock_array), intent(in) :: array
    integer, intent(out), optional :: status
    call finish(c_multiblock_array_begin_update_ghosts(array%h), status)
  end subroutine

  subroutine tessera_multiblock_array_end_update_ghosts(array, status)
    type(tessera_multiblock_array), intent(in) :: array
    integer, intent(out), optional :: status
    call finish(c_multiblock_array_end_update_ghosts(array%h), status)
  end subroutine

  !> Collective: every ghost an update fills is combined with `op` (TESSERA_OP_ADD, ...) into the cell
  !> it mirrors, across interfaces through the inverse orientation (fluxes, deposits).
  subroutine tessera_multiblock_array_accumulate_ghosts(array, op, status)
    type(tessera_multiblock_array), intent(in) :: array
    integer, intent(in) :: op
    integer, intent(out), optional :: status
    call finish(c_multiblock_array_accumulate_ghosts(array%h, int(op, c_int)), status)
  end subroutine

  !> Collective: `op` (TESSERA_OP_ADD, _MULTIPLY, _MIN, _MAX) over every cell of every block, the
  !> same bits on every rank.
  subroutine tessera_multiblock_array_reduce(array, op, result, status)
    type(tessera_multiblock_array), intent(in) :: array
    integer, intent(in) :: op
    real(c_double), intent(out), target :: result
    integer, intent(out), optional :: status
    result = 0
    call finish(c_multiblock_array_reduce(array%h, int(op, c_int), C_TESSERA_DOUBLE, c_loc(result)), status)
  end subroutine

  ! The gather of a block: on a receiving rank (root, or every rank for root = -1) `buffer` of
  ! `shape` must be the block's shape; a receiving rank whose buffer does not fit passes none, so
  ! that the call fails on every rank (the library checks the receivers' capacity collectively).
  function multiblock_gather(array, block, root, shape, buffer, count) result(s)
    type(tessera_multiblock_array), intent(in) :: array
    integer, intent(in) :: block, root, shape(:)
    type(c_ptr), intent(in) :: buffer
    integer(c_int64_t), intent(in) :: count
    integer(c_int) :: s
    logical :: refused
    character(*), parameter :: caller = 'tessera_multiblock_array_gather_block'
    s = block_number(block, caller)
    if (s /= TESSERA_OK) return
    refused = .false.
    ! A block the library does not know is left to it (OUT_OF_RANGE on every rank).
    if ((root == -1 .or. array%rank == root) .and. allocated(array%extents)) then
      if (block < size(array%extents, 2)) then
        if (size(shape) /= size(array%extents, 1)) then
          refused = .true.
        else
          refused = any(shape /= array%extents(:, block + 1))
        end if
      end if
    end if
    if (refused) then
      s = c_multiblock_array_gather_block(array%h, int(block, c_size_t), int(root, c_int), C_TESSERA_DOUBLE, &
                                          c_null_ptr, 0_c_int64_t)
      if (s /= TESSERA_OK) s = fail(s, caller // ': `out` has shape (' // str_list(shape) // '), not block ' // &
                                       str(block) // '''s (' // str_list(array%extents(:, block + 1)) // ')')
    else
      s = c_multiblock_array_gather_block(array%h, int(block, c_size_t), int(root, c_int), C_TESSERA_DOUBLE, &
                                          buffer, count)
    end if
  end function

  subroutine multiblock_gather_1d(array, block, root, out, status)
    type(tessera_multiblock_array), intent(in) :: array
    integer, intent(in) :: block, root
    real(c_double), intent(inout), contiguous, target :: out(:)
    integer, intent(out), optional :: status
    call finish(multiblock_gather(array, block, root, shape(out), address_of(out, size(out, kind=c_int64_t)), &
                                  size(out, kind=c_int64_t)), status)
  end subroutine
  subroutine multiblock_gather_2d(array, block, root, out, status)
    type(tessera_multiblock_array), intent(in) :: array
    integer, intent(in) :: block, root
    real(c_double), intent(inout), contiguous, target :: out(:, :)
    integer, intent(out), optional :: status
    call finish(multiblock_gather(array, block, root, shape(out), address_of(out, size(out, kind=c_int64_t)), &
                                  size(out, kind=c_int64_t)), status)
  end subroutine
  subroutine multiblock_gather_3d(array, block, root, out, status)
    type(tessera_multiblock_array), intent(in) :: array
    integer, intent(in) :: block, root
    real(c_double), intent(inout), contiguous, target :: out(:, :, :)
    integer, intent(out), optional :: status
    call finish(multiblock_gather(array, block, root, shape(out), address_of(out, size(out, kind=c_int64_t)), &
                                  size(out, kind=c_int64_t)), status)
  end subroutine

  ! A section in C's terms; `what` names it in messages.
  function to_c_section(section, ndim, what, c) result(s)
    type(tessera_block_section), intent(in) :: section
    integer, intent(in) :: ndim
    character(*), intent(in) :: what
    type(c_block_section), intent(out) :: c
    integer(c_int) :: s
    s = TESSERA_OK
    if (.not. allocated(section%lo) .or. .not. allocated(section%hi)) then
      s = fail(TESSERA_ERR_INVALID_ARGUMENT, what // ': lo and hi must be given')
      return
    end if
    if (size(section%lo) /= ndim .or. size(section%hi) /= ndim) then
      s = fail(TESSERA_ERR_INVALID_ARGUMENT, what // ': lo and hi have ' // str(size(section%lo)) // ' and ' // &
                                             str(size(section%hi)) // ' entries, the blocks ' // str(ndim) // &
                                             ' dimensions')
      return
    end if
    c%block = int(section%block, c_int)  ! the library says if it is not a block
    call to_c_box(section%lo, section%hi, c%box)
    if (allocated(section%stride)) then
      if (size(section%stride) /= ndim) then
        s = fail(TESSERA_ERR_INVALID_ARGUMENT, what // ': stride has ' // str(size(section%stride)) // &
                                               ' entries, the blocks ' // str(ndim) // ' dimensions')
      else if (any(section%stride < 1)) then
        ! 0 means 1 to the C API: refused here rather than taken for every index.
        s = fail(TESSERA_ERR_INVALID_ARGUMENT, what // ': stride = (' // str_list(section%stride) // &
                                               ') must be >= 1 along every dimension')
      else
        c%stride(1:ndim) = reversed(int(section%stride, c_int64_t))
      end if
    end if
  end function

  !> Collective: PARTI's regular section move, section `from` of `src` onto section `to` of `dst`
  !> (the same array or another over the same domain): point k of `to` along dimension d is point
  !> number k along dimension perm(d) of `from`, counted from the other end where flip(d) (Fortran
  !> order; absent: the identity, nothing reversed). Ghosts are untouched. Point counts that do not
  !> agree, a section outside its block, arrays over different domains: an error on every rank,
  !> nothing moved.
  subroutine tessera_multiblock_copy_section(src, from, dst, to, status, perm, flip)
    type(tessera_multiblock_array), intent(in) :: src, dst
    type(tessera_block_section), intent(in) :: from, to
    integer, intent(out), optional :: status
    integer, intent(in), optional :: perm(:)
    logical, intent(in), optional :: flip(:)
    type(c_block_section) :: c_from, c_to
    integer(c_int) :: c_perm(TESSERA_MAX_DIM), c_flip(TESSERA_MAX_DIM), s
    character(*), parameter :: caller = 'tessera_multiblock_copy_section'
    s = TESSERA_OK
    c_perm = 0
    c_flip = 0
    ! An array never created (ndim 0) is left to the library, which names the bad handle.
    if (src%ndim > 0) then
      s = to_c_section(from, src%ndim, caller // ': from', c_from)
      if (s == TESSERA_OK) s = to_c_section(to, src%ndim, caller // ': to', c_to)
      if (s == TESSERA_OK) s = to_c_orientation(src%ndim, caller // ': ', c_perm, c_flip, perm, flip)
    end if
    if (s == TESSERA_OK) then
      s = c_multiblock_copy_section(src%h, c_from, dst%h, c_to, c_perm, c_flip)
      if (s /= TESSERA_OK) s = fail(s, c_message() // c_terms)
    end if
    call finish(s, status)
  end subroutine

  ! ---------------------------------------------------------------------------------------------
  ! Freeing and helpers
  ! ---------------------------------------------------------------------------------------------

  subroutine free_comm(handle, status)
    type(tessera_comm), intent(inout) :: handle
    integer, intent(out), optional :: status
    call finish(c_comm_free(handle%h), status)
  end subroutine
  subroutine free_grid(handle, status)
    type(tessera_grid), intent(inout) :: handle
    integer, intent(out), optional :: status
    call finish(c_grid_free(handle%h), status)
  end subroutine
  subroutine free_dist(handle, status)
    type(tessera_dist), intent(inout) :: handle
    integer, intent(out), optional :: status
    call finish(c_dist_free(handle%h), status)
  end subroutine
  subroutine free_domain(handle, status)
    type(tessera_domain), intent(inout) :: handle
    integer, intent(out), optional :: status
    call finish(c_domain_free(handle%h), status)
  end subroutine
  subroutine free_array(handle, status)
    type(tessera_array), intent(inout) :: handle
    integer, intent(out), optional :: status
    call finish(c_array_free(handle%h), status)
  end subroutine
  subroutine free_groups(handle, status)
    type(tessera_groups), intent(inout) :: handle
    integer, intent(out), optional :: status
    call finish(c_groups_free(handle%h), status)
  end subroutine
  subroutine free_multiblock(handle, status)
    type(tessera_multiblock), intent(inout) :: handle
    integer, intent(out), optional :: status
    call finish(c_multiblock_free(handle%h), status)
  end subroutine
  subroutine free_multiblock_array(handle, status)
    type(tessera_multiblock_array), intent(inout) :: handle
    integer, intent(out), optional :: status
    call finish(c_multiblock_array_free(handle%h), status)
  end subroutine
  subroutine free_balancer(handle, status)
    type(tessera_balancer), intent(inout) :: handle
    integer, intent(out), optional :: status
    call finish(c_balancer_free(handle%h), status)
  end subroutine
  subroutine free_box_balancer(handle, status)
    type(tessera_box_balancer), intent(inout) :: handle
    integer, intent(out), optional :: status
    call finish(c_box_balancer_free(handle%h), status)
  end subroutine

end module tessera
