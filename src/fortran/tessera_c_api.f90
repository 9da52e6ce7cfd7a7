!> The C API (tessera.h) as Fortran sees it through iso_c_binding: the structs field for field and
!> the functions the module `tessera` calls, in C's axis order (row-major). Internal to
!> libtessera_fortran: programs use the module `tessera` (tessera.f90), which reverses the axes.
module tessera_c_api
  use, intrinsic :: iso_c_binding
  implicit none
  public

  integer, parameter :: C_TESSERA_MAX_DIM = 3
  integer(c_int), parameter :: C_TESSERA_DOUBLE = 2, C_TESSERA_OP_ADD = 1

  ! The C structs, field for field (tessera.h); C's axis order.
  type, bind(C) :: c_box
    integer(c_int64_t) :: lo(C_TESSERA_MAX_DIM) = 0, hi(C_TESSERA_MAX_DIM) = 0
  end type
  type, bind(C) :: c_dim_spec
    integer(c_int) :: kind = 0
    integer(c_int64_t) :: logical_block = 0, block_size = 0
    integer(c_int) :: source = 0
    type(c_ptr) :: boundaries = c_null_ptr
    integer(c_size_t) :: boundary_count = 0
    type(c_ptr) :: weights = c_null_ptr
    integer(c_size_t) :: weight_count = 0
    type(c_ptr) :: owners = c_null_ptr
    integer(c_size_t) :: owner_count = 0
  end type
  type, bind(C) :: c_ghosts
    integer(c_int64_t) :: lower(C_TESSERA_MAX_DIM) = 0, upper(C_TESSERA_MAX_DIM) = 0
    integer(c_int) :: faces_only = 0, periodic(C_TESSERA_MAX_DIM) = 0
  end type
  type, bind(C) :: c_view
    type(c_ptr) :: data = c_null_ptr
    integer(c_int) :: type = 0, ndim = 0
    integer(c_int64_t) :: extents(C_TESSERA_MAX_DIM) = 0, strides(C_TESSERA_MAX_DIM) = 0, &
                          ghost_lo(C_TESSERA_MAX_DIM) = 0, count(C_TESSERA_MAX_DIM) = 0, first(C_TESSERA_MAX_DIM) = 0
    integer(c_int) :: contiguous(C_TESSERA_MAX_DIM) = 0
  end type
  ! Multiblock domains (tessera_block_face, tessera_block_interface, tessera_block_section).
  type, bind(C) :: c_block_face
    integer(c_int) :: block = 0, axis = 0, upper = 0
    type(c_box) :: cells  ! an empty (all-zero) box: the whole face
  end type
  type, bind(C) :: c_block_interface
    type(c_block_face) :: a, b
    integer(c_int) :: perm(C_TESSERA_MAX_DIM) = 0, flip(C_TESSERA_MAX_DIM) = 0
  end type
  ! Balancer options (tessera_balancer_options, tessera_box_balancer_options).
  ! Filled by tessera_balancer_options_defaults / tessera_box_balancer_options_defaults.
  type, bind(C) :: c_balancer_options
    integer(c_int) :: interval = 0, weights = 0
    real(c_double) :: lb = 0, ub = 0
  end type
  type, bind(C) :: c_box_balancer_options
    integer(c_int) :: interval = 0, target = 0, relabel = 0
    integer(c_int64_t) :: max_bytes_per_step = 0  ! uint64_t in C
  end type
  type, bind(C) :: c_block_section
    integer(c_int) :: block = 0
    type(c_box) :: box
    integer(c_int64_t) :: stride(C_TESSERA_MAX_DIM) = 0
  end type

  interface
    function c_last_error() bind(C, name="tessera_last_error")
      import :: c_ptr
      type(c_ptr) :: c_last_error
    end function
    function c_strlen(s) bind(C, name="strlen")
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: c_strlen
    end function
    function c_live_handles(count) bind(C, name="tessera_live_handles")
      import :: c_int, c_size_t
      integer(c_size_t), intent(out) :: count
      integer(c_int) :: c_live_handles
    end function
    function c_comm_create(comm, out) bind(C, name="tessera_fortran_comm_create")
      import :: c_int, c_ptr
      integer(c_int), value :: comm
      type(c_ptr), intent(out) :: out
      integer(c_int) :: c_comm_create
    end function
    function c_comm_rank(comm, rank) bind(C, name="tessera_comm_rank")
      import :: c_int, c_ptr
      type(c_ptr), value :: comm
      integer(c_int), intent(out) :: rank
      integer(c_int) :: c_comm_rank
    end function
    function c_comm_size(comm, size) bind(C, name="tessera_comm_size")
      import :: c_int, c_ptr
      type(c_ptr), value :: comm
      integer(c_int), intent(out) :: size
      integer(c_int) :: c_comm_size
    end function
    function c_grid_create(ndim, comm_size, shape, out) bind(C, name="tessera_grid_create")
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: ndim, comm_size
      integer(c_int64_t), intent(in) :: shape(*)
      type(c_ptr), intent(out) :: out
      integer(c_int) :: c_grid_create
    end function
    function c_grid_automatic(ndim, comm_size, extents, fixed, out) bind(C, name="tessera_grid_automatic")
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: ndim, comm_size
      integer(c_int64_t), intent(in) :: extents(*)
      type(c_ptr), value :: fixed
      type(c_ptr), intent(out) :: out
      integer(c_int) :: c_grid_automatic
    end function
    function c_grid_ndim(grid, ndim) bind(C, name="tessera_grid_ndim")
      import :: c_int, c_ptr
      type(c_ptr), value :: grid
      integer(c_int), intent(out) :: ndim
      integer(c_int) :: c_grid_ndim
    end function
    function c_grid_shape(grid, shape) bind(C, name="tessera_grid_shape")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: grid
      integer(c_int64_t), intent(out) :: shape(*)
      integer(c_int) :: c_grid_shape
    end function
    function c_dist_create(grid, box, specs, order, out) bind(C, name="tessera_dist_create")
      import :: c_int, c_ptr, c_box, c_dim_spec
      type(c_ptr), value :: grid
      type(c_box), intent(in) :: box
      type(c_dim_spec), intent(in) :: specs(*)
      type(c_ptr), value :: order
      type(c_ptr), intent(out) :: out
      integer(c_int) :: c_dist_create
    end function
    function c_domain_create(comm, dist, out) bind(C, name="tessera_domain_create")
      import :: c_int, c_ptr
      type(c_ptr), value :: comm, dist
      type(c_ptr), intent(out) :: out
      integer(c_int) :: c_domain_create
    end function
    function c_domain_box(domain, box) bind(C, name="tessera_domain_box")
      import :: c_int, c_ptr, c_box
      type(c_ptr), value :: domain
      type(c_box), intent(out) :: box
      integer(c_int) :: c_domain_box
    end function
    function c_domain_ndim(domain, ndim) bind(C, name="tessera_domain_ndim")
      import :: c_int, c_ptr
      type(c_ptr), value :: domain
      integer(c_int), intent(out) :: ndim
      integer(c_int) :: c_domain_ndim
    end function
    function c_domain_redistribute(domain, to, mode) bind(C, name="tessera_domain_redistribute")
      import :: c_int, c_ptr
      type(c_ptr), value :: domain, to
      integer(c_int), value :: mode
      integer(c_int) :: c_domain_redistribute
    end function
    function c_array_create(domain, type, ghosts, out) bind(C, name="tessera_array_create")
      import :: c_int, c_ptr, c_ghosts
      type(c_ptr), value :: domain
      integer(c_int), value :: type
      type(c_ghosts), intent(in) :: ghosts
      type(c_ptr), intent(out) :: out
      integer(c_int) :: c_array_create
    end function
    function c_array_domain(array, out) bind(C, name="tessera_array_domain")
      import :: c_int, c_ptr
      type(c_ptr), value :: array
      type(c_ptr), intent(out) :: out
      integer(c_int) :: c_array_domain
    end function
    function c_scalapack_descriptor(array, context, transposed, desc, local_rows, local_cols) &
        bind(C, name="tessera_scalapack_descriptor")
      import :: c_int, c_ptr
      type(c_ptr), value :: array
      integer(c_int), value :: context, transposed
      integer(c_int), intent(out) :: desc(9), local_rows, local_cols
      integer(c_int) :: c_scalapack_descriptor
    end function
    function c_blacs_process_map(array, transposed, map, capacity, rows, cols) bind(C, name="tessera_blacs_process_map")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: array
      integer(c_int), value :: transposed
      integer(c_int), intent(out) :: map(*)
      integer(c_size_t), value :: capacity
      integer(c_int), intent(out) :: rows, cols
      integer(c_int) :: c_blacs_process_map
    end function
    function c_array_patch_count(array, count) bind(C, name="tessera_array_patch_count")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: array
      integer(c_size_t), intent(out) :: count
      integer(c_int) :: c_array_patch_count
    end function
    function c_array_local(array, patch, type, view) bind(C, name="tessera_array_local")
      import :: c_int, c_ptr, c_size_t, c_view
      type(c_ptr), value :: array
      integer(c_size_t), value :: patch
      integer(c_int), value :: type
      type(c_view), intent(out) :: view
      integer(c_int) :: c_array_local
    end function
    function c_array_update_ghosts(array) bind(C, name="tessera_array_update_ghosts")
      import :: c_int, c_ptr
      type(c_ptr), value :: array
      integer(c_int) :: c_array_update_ghosts
    end function
    function c_array_gather_to(array, root, type, out, capacity) bind(C, name="tessera_array_gather_to")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: array, out
      integer(c_int), value :: root, type
      integer(c_int64_t), value :: capacity
      integer(c_int) :: c_array_gather_to
    end function
    function c_array_scatter_from(array, root, type, data, count) bind(C, name="tessera_array_scatter_from")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: array, data
      integer(c_int), value :: root, type
      integer(c_int64_t), value :: count
      integer(c_int) :: c_array_scatter_from
    end function
    function c_array_reduce(array, op, type, result) bind(C, name="tessera_array_reduce")
      import :: c_int, c_ptr
      type(c_ptr), value :: array, result
      integer(c_int), value :: op, type
      integer(c_int) :: c_array_reduce
    end function
    function c_groups_create(parent, ranks, sizes, count, out) bind(C, name="tessera_groups_create")
      import :: c_int, c_ptr
      type(c_ptr), value :: parent
      integer(c_int), intent(in) :: ranks(*), sizes(*)
      integer(c_int), value :: count
      type(c_ptr), intent(out) :: out
      integer(c_int) :: c_groups_create
    end function
    function c_groups_count(groups, count) bind(C, name="tessera_groups_count")
      import :: c_int, c_ptr
      type(c_ptr), value :: groups
      integer(c_int), intent(out) :: count
      integer(c_int) :: c_groups_count
    end function
    function c_groups_group_of(groups, parent_rank, group) bind(C, name="tessera_groups_group_of")
      import :: c_int, c_ptr
      type(c_ptr), value :: groups
      integer(c_int), value :: parent_rank
      integer(c_int), intent(out) :: group
      integer(c_int) :: c_groups_group_of
    end function
    function c_groups_my_group(groups, group) bind(C, name="tessera_groups_my_group")
      import :: c_int, c_ptr
      type(c_ptr), value :: groups
      integer(c_int), intent(out) :: group
      integer(c_int) :: c_groups_my_group
    end function
    function c_groups_comm(groups, out) bind(C, name="tessera_groups_comm")
      import :: c_int, c_ptr
      type(c_ptr), value :: groups
      type(c_ptr), intent(out) :: out
      integer(c_int) :: c_groups_comm
    end function
    function c_copy_between_groups(groups, type, from_group, from, src, to_group, to, dst) &
        bind(C, name="tessera_copy_between_groups")
      import :: c_int, c_ptr
      type(c_ptr), value :: groups
      integer(c_int), value :: type, from_group
      type(c_ptr), value :: from, src
      integer(c_int), value :: to_group
      type(c_ptr), value :: to, dst
      integer(c_int) :: c_copy_between_groups
    end function
    function c_dist_ndim(dist, ndim) bind(C, name="tessera_dist_ndim")
      import :: c_int, c_ptr
      type(c_ptr), value :: dist
      integer(c_int), intent(out) :: ndim
      integer(c_int) :: c_dist_ndim
    end function

    ! Box sets and local layouts (tessera.h, "Box sets", "Local layouts").
    function c_dist_from_boxes(ndim, comm_size, domain, boxes, count, owners, out) &
        bind(C, name="tessera_dist_from_boxes")
      import :: c_int, c_ptr, c_size_t, c_box
      integer(c_int), value :: ndim, comm_size
      type(c_ptr), value :: domain  ! a c_box, or NULL for the boxes' bounding box
      type(c_box), intent(in) :: boxes(*)
      integer(c_size_t), value :: count
      integer(c_int), intent(in) :: owners(*)
      type(c_ptr), intent(out) :: out
      integer(c_int) :: c_dist_from_boxes
    end function
    function c_assign_boxes(ndim, comm_size, boxes, count, policy, weights, owners) bind(C, name="tessera_assign_boxes")
      import :: c_int, c_ptr, c_size_t, c_box
      integer(c_int), value :: ndim, comm_size
      type(c_box), intent(in) :: boxes(*)
      integer(c_size_t), value :: count
      integer(c_int), value :: policy
      type(c_ptr), value :: weights  ! count doubles, or NULL
      integer(c_int), intent(out) :: owners(*)
      integer(c_int) :: c_assign_boxes
    end function
    function c_incremental_box_step(ndim, comm_size, boxes, count, current, target, delta, weights, owners, moved, &
                                    cells, excess_before, excess_after) bind(C, name="tessera_incremental_box_step")
      import :: c_int, c_ptr, c_size_t, c_double, c_int64_t, c_box
      integer(c_int), value :: ndim, comm_size
      type(c_box), intent(in) :: boxes(*)
      integer(c_size_t), value :: count
      integer(c_int), intent(in) :: current(*), target(*)
      real(c_double), value :: delta
      type(c_ptr), value :: weights
      integer(c_int), intent(out) :: owners(*)
      integer(c_size_t), intent(out) :: moved
      integer(c_int64_t), intent(out) :: cells  ! uint64_t in C: the cells of the moved boxes
      real(c_double), intent(out) :: excess_before, excess_after
      integer(c_int) :: c_incremental_box_step
    end function
    function c_dist_box_set(dist, boxes, owners, capacity, count) bind(C, name="tessera_dist_box_set")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: dist, boxes, owners  ! boxes, owners: capacity entries each, or NULL
      integer(c_size_t), value :: capacity
      integer(c_size_t), intent(out) :: count
      integer(c_int) :: c_dist_box_set
    end function
    function c_dist_with_local_order(dist, order, size, out) bind(C, name="tessera_dist_with_local_order")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: dist
      integer(c_int), value :: order
      integer(c_int64_t), value :: size
      type(c_ptr), intent(out) :: out
      integer(c_int) :: c_dist_with_local_order
    end function
    function c_dist_has_local_layout(dist, has) bind(C, name="tessera_dist_has_local_layout")
      import :: c_int, c_ptr
      type(c_ptr), value :: dist
      integer(c_int), intent(out) :: has
      integer(c_int) :: c_dist_has_local_layout
    end function
    function c_dist_local_offset(dist, point, offset) bind(C, name="tessera_dist_local_offset")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: dist
      integer(c_int64_t), intent(in) :: point(*)
      integer(c_int64_t), intent(out) :: offset
      integer(c_int) :: c_dist_local_offset
    end function
    function c_dist_local_storage_size(dist, rank, size) bind(C, name="tessera_dist_local_storage_size")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: dist
      integer(c_int), value :: rank
      integer(c_int64_t), intent(out) :: size
      integer(c_int) :: c_dist_local_storage_size
    end function
    function c_array_storage(array, type, data, size) bind(C, name="tessera_array_storage")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: array
      integer(c_int), value :: type
      type(c_ptr), intent(out) :: data
      integer(c_int64_t), intent(out) :: size
      integer(c_int) :: c_array_storage
    end function
    function c_array_ndim(array, ndim) bind(C, name="tessera_array_ndim")
      import :: c_int, c_ptr
      type(c_ptr), value :: array
      integer(c_int), intent(out) :: ndim
      integer(c_int) :: c_array_ndim
    end function
    function c_array_get(array, point, type, value) bind(C, name="tessera_array_get")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: array
      integer(c_int64_t), intent(in) :: point(*)
      integer(c_int), value :: type
      type(c_ptr), value :: value
      integer(c_int) :: c_array_get
    end function
    function c_array_storage_offset(array, point, offset) bind(C, name="tessera_array_storage_offset")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: array
      integer(c_int64_t), intent(in) :: point(*)
      integer(c_int64_t), intent(out) :: offset
      integer(c_int) :: c_array_storage_offset
    end function
    function c_array_set(array, point, type, value) bind(C, name="tessera_array_set")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: array
      integer(c_int64_t), intent(in) :: point(*)
      integer(c_int), value :: type
      type(c_ptr), value :: value
      integer(c_int) :: c_array_set
    end function

    ! Multiblock domains (tessera.h, "Multiblock domains").
    function c_multiblock_create(comm, blocks, block_count, interfaces, interface_count, max_ghost_width, out) &
        bind(C, name="tessera_multiblock_create")
      import :: c_int, c_int64_t, c_ptr, c_size_t, c_block_interface
      type(c_ptr), value :: comm
      type(c_ptr), intent(in) :: blocks(*)
      integer(c_size_t), value :: block_count
      type(c_block_interface), intent(in) :: interfaces(*)
      integer(c_size_t), value :: interface_count
      integer(c_int64_t), value :: max_ghost_width
      type(c_ptr), intent(out) :: out
      integer(c_int) :: c_multiblock_create
    end function
    function c_multiblock_ndim(multiblock, ndim) bind(C, name="tessera_multiblock_ndim")
      import :: c_int, c_ptr
      type(c_ptr), value :: multiblock
      integer(c_int), intent(out) :: ndim
      integer(c_int) :: c_multiblock_ndim
    end function
    function c_multiblock_block_count(multiblock, count) bind(C, name="tessera_multiblock_block_count")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: multiblock
      integer(c_size_t), intent(out) :: count
      integer(c_int) :: c_multiblock_block_count
    end function
    function c_multiblock_block_box(multiblock, block, box) bind(C, name="tessera_multiblock_block_box")
      import :: c_int, c_ptr, c_size_t, c_box
      type(c_ptr), value :: multiblock
      integer(c_size_t), value :: block
      type(c_box), intent(out) :: box
      integer(c_int) :: c_multiblock_block_box
    end function
    function c_multiblock_block_dist(multiblock, block, out) bind(C, name="tessera_multiblock_block_dist")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: multiblock
      integer(c_size_t), value :: block
      type(c_ptr), intent(out) :: out
      integer(c_int) :: c_multiblock_block_dist
    end function
    function c_multiblock_redistribute(multiblock, blocks, block_count) bind(C, name="tessera_multiblock_redistribute")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: multiblock
      type(c_ptr), intent(in) :: blocks(*)
      integer(c_size_t), value :: block_count
      integer(c_int) :: c_multiblock_redistribute
    end function
    function c_multiblock_array_create(multiblock, type, ghosts, out) bind(C, name="tessera_multiblock_array_create")
      import :: c_int, c_ptr, c_ghosts
      type(c_ptr), value :: multiblock
      integer(c_int), value :: type
      type(c_ghosts), intent(in) :: ghosts
      type(c_ptr), intent(out) :: out
      integer(c_int) :: c_multiblock_array_create
    end function
    function c_multiblock_array_patch_count(array, count) bind(C, name="tessera_multiblock_array_patch_count")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: array
      integer(c_size_t), intent(out) :: count
      integer(c_int) :: c_multiblock_array_patch_count
    end function
    function c_multiblock_array_local(array, patch, type, block, view) bind(C, name="tessera_multiblock_array_local")
      import :: c_int, c_ptr, c_size_t, c_view
      type(c_ptr), value :: array
      integer(c_size_t), value :: patch
      integer(c_int), value :: type
      integer(c_size_t), intent(out) :: block
      type(c_view), intent(out) :: view
      integer(c_int) :: c_multiblock_array_local
    end function
    function c_multiblock_array_get(array, block, point, type, value) bind(C, name="tessera_multiblock_array_get")
      import :: c_int, c_int64_t, c_ptr, c_size_t
      type(c_ptr), value :: array
      integer(c_size_t), value :: block
      integer(c_int64_t), intent(in) :: point(*)
      integer(c_int), value :: type
      type(c_ptr), value :: value
      integer(c_int) :: c_multiblock_array_get
    end function
    function c_multiblock_array_set(array, block, point, type, value) bind(C, name="tessera_multiblock_array_set")
      import :: c_int, c_int64_t, c_ptr, c_size_t
      type(c_ptr), value :: array
      integer(c_size_t), value :: block
      integer(c_int64_t), intent(in) :: point(*)
      integer(c_int), value :: type
      type(c_ptr), value :: value
      integer(c_int) :: c_multiblock_array_set
    end function
    function c_multiblock_array_update_ghosts(array) bind(C, name="tessera_multiblock_array_update_ghosts")
      import :: c_int, c_ptr
      type(c_ptr), value :: array
      integer(c_int) :: c_multiblock_array_update_ghosts
    end function
    function c_multiblock_array_begin_update_ghosts(array) bind(C, name="tessera_multiblock_array_begin_update_ghosts")
      import :: c_int, c_ptr
      type(c_ptr), value :: array
      integer(c_int) :: c_multiblock_array_begin_update_ghosts
    end function
    function c_multiblock_array_end_update_ghosts(array) bind(C, name="tessera_multiblock_array_end_update_ghosts")
      import :: c_int, c_ptr
      type(c_ptr), value :: array
      integer(c_int) :: c_multiblock_array_end_update_ghosts
    end function
    function c_multiblock_array_accumulate_ghosts(array, op) bind(C, name="tessera_multiblock_array_accumulate_ghosts")
      import :: c_int, c_ptr
      type(c_ptr), value :: array
      integer(c_int), value :: op
      integer(c_int) :: c_multiblock_array_accumulate_ghosts
    end function
    function c_multiblock_array_reduce(array, op, type, result) bind(C, name="tessera_multiblock_array_reduce")
      import :: c_int, c_ptr
      type(c_ptr), value :: array, result
      integer(c_int), value :: op, type
      integer(c_int) :: c_multiblock_array_reduce
    end function
    function c_multiblock_array_gather_block(array, block, root, type, out, capacity) &
        bind(C, name="tessera_multiblock_array_gather_block")
      import :: c_int, c_int64_t, c_ptr, c_size_t
      type(c_ptr), value :: array
      integer(c_size_t), value :: block
      integer(c_int), value :: root, type
      type(c_ptr), value :: out
      integer(c_int64_t), value :: capacity
      integer(c_int) :: c_multiblock_array_gather_block
    end function
    function c_multiblock_copy_section(src, from, dst, to, perm, flip) bind(C, name="tessera_multiblock_copy_section")
      import :: c_int, c_ptr, c_block_section
      type(c_ptr), value :: src
      type(c_block_section), intent(in) :: from
      type(c_ptr), value :: dst
      type(c_block_section), intent(in) :: to
      integer(c_int), intent(in) :: perm(*), flip(*)
      integer(c_int) :: c_multiblock_copy_section
    end function
    ! Movements and checkpoints (tessera_copy, _copy_section, _transpose, tessera_array_scan,
    ! tessera_checkpoint_save / _load).
    function c_copy(src, dst) bind(C, name="tessera_copy")
      import :: c_int, c_ptr
      type(c_ptr), value :: src, dst
      integer(c_int) :: c_copy
    end function
    function c_copy_section(src, src_box, dst, dst_lo) bind(C, name="tessera_copy_section")
      import :: c_int, c_int64_t, c_ptr, c_box
      type(c_ptr), value :: src
      type(c_box), intent(in) :: src_box
      type(c_ptr), value :: dst
      integer(c_int64_t), intent(in) :: dst_lo(*)
      integer(c_int) :: c_copy_section
    end function
    function c_transpose(src, dst, perm) bind(C, name="tessera_transpose")
      import :: c_int, c_ptr
      type(c_ptr), value :: src, dst
      integer(c_int), intent(in) :: perm(*)
      integer(c_int) :: c_transpose
    end function
    function c_array_scan(in, axis, exclusive, op, out) bind(C, name="tessera_array_scan")
      import :: c_int, c_ptr
      type(c_ptr), value :: in
      integer(c_int), value :: axis, exclusive, op
      type(c_ptr), value :: out
      integer(c_int) :: c_array_scan
    end function
    function c_checkpoint_save(path, array, name) bind(C, name="tessera_checkpoint_save")
      import :: c_int, c_ptr, c_char
      character(kind=c_char), intent(in) :: path(*)  ! NUL-terminated, as `name`
      type(c_ptr), value :: array
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int) :: c_checkpoint_save
    end function
    function c_checkpoint_load(path, array, name) bind(C, name="tessera_checkpoint_load")
      import :: c_int, c_ptr, c_char
      character(kind=c_char), intent(in) :: path(*)
      type(c_ptr), value :: array
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int) :: c_checkpoint_load
    end function
    function c_chop_boxes(ndim, boxes, count, max_extent, pieces, capacity, piece_count) &
        bind(C, name="tessera_chop_boxes")
      import :: c_int, c_int64_t, c_ptr, c_size_t, c_box
      integer(c_int), value :: ndim
      type(c_box), intent(in) :: boxes(*)
      integer(c_size_t), value :: count
      integer(c_int64_t), intent(in) :: max_extent(*)
      type(c_ptr), value :: pieces  ! capacity c_boxes, or NULL
      integer(c_size_t), value :: capacity
      integer(c_size_t), intent(out) :: piece_count
      integer(c_int) :: c_chop_boxes
    end function
    function c_domain_distribution(domain, out) bind(C, name="tessera_domain_distribution")
      import :: c_int, c_ptr
      type(c_ptr), value :: domain
      type(c_ptr), intent(out) :: out
      integer(c_int) :: c_domain_distribution
    end function
    ! Boundary rules (tessera_array_set_boundary, _set_hole_boundary); `value`: one element, or NULL.
    function c_array_set_boundary(array, axis, high, rule, type, value) bind(C, name="tessera_array_set_boundary")
      import :: c_int, c_ptr
      type(c_ptr), value :: array
      integer(c_int), value :: axis, high, rule, type
      type(c_ptr), value :: value
      integer(c_int) :: c_array_set_boundary
    end function
    function c_array_set_hole_boundary(array, rule, type, value) bind(C, name="tessera_array_set_hole_boundary")
      import :: c_int, c_ptr
      type(c_ptr), value :: array
      integer(c_int), value :: rule, type
      type(c_ptr), value :: value
      integer(c_int) :: c_array_set_hole_boundary
    end function
    ! Balancers. The structs (tessera_policy, tessera_balance_step, the options) go by address: the
    ! module `tessera` declares the first two as its own public types, field for field.
    function c_policy_defaults(kind, policy) bind(C, name="tessera_policy_defaults")
      import :: c_int, c_ptr
      integer(c_int), value :: kind
      type(c_ptr), value :: policy
      integer(c_int) :: c_policy_defaults
    end function
    function c_balancer_options_defaults(options) bind(C, name="tessera_balancer_options_defaults")
      import :: c_int, c_balancer_options
      type(c_balancer_options), intent(out) :: options
      integer(c_int) :: c_balancer_options_defaults
    end function
    function c_box_balancer_options_defaults(options) bind(C, name="tessera_box_balancer_options_defaults")
      import :: c_int, c_box_balancer_options
      type(c_box_balancer_options), intent(out) :: options
      integer(c_int) :: c_box_balancer_options_defaults
    end function
    function c_balancer_create(domain, policy, options, out) bind(C, name="tessera_balancer_create")
      import :: c_int, c_ptr
      type(c_ptr), value :: domain, policy, options
      type(c_ptr), intent(out) :: out
      integer(c_int) :: c_balancer_create
    end function
    function c_balancer_timer_start(balancer) bind(C, name="tessera_balancer_timer_start")
      import :: c_int, c_ptr
      type(c_ptr), value :: balancer
      integer(c_int) :: c_balancer_timer_start
    end function
    function c_balancer_timer_stop(balancer) bind(C, name="tessera_balancer_timer_stop")
      import :: c_int, c_ptr
      type(c_ptr), value :: balancer
      integer(c_int) :: c_balancer_timer_stop
    end function
    function c_balancer_step(balancer, out) bind(C, name="tessera_balancer_step")
      import :: c_int, c_ptr
      type(c_ptr), value :: balancer, out
      integer(c_int) :: c_balancer_step
    end function
    function c_balancer_step_seconds(balancer, seconds, out) bind(C, name="tessera_balancer_step_seconds")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: balancer
      real(c_double), value :: seconds
      type(c_ptr), value :: out
      integer(c_int) :: c_balancer_step_seconds
    end function
    function c_balancer_set_active_ranks(balancer, ranks, count, seconds) &
        bind(C, name="tessera_balancer_set_active_ranks")
      import :: c_int, c_ptr, c_size_t, c_double
      type(c_ptr), value :: balancer
      integer(c_int), intent(in) :: ranks(*)
      integer(c_size_t), value :: count
      real(c_double), intent(out) :: seconds
      integer(c_int) :: c_balancer_set_active_ranks
    end function
    function c_balancer_set_availability_file(balancer, pattern) bind(C, name="tessera_balancer_set_availability_file")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: balancer
      character(kind=c_char), intent(in) :: pattern(*)  ! NUL-terminated
      integer(c_int) :: c_balancer_set_availability_file
    end function
    function c_balancer_set_slowdown_threshold(balancer, factor, retry_after) &
        bind(C, name="tessera_balancer_set_slowdown_threshold")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: balancer
      real(c_double), value :: factor
      integer(c_int), value :: retry_after
      integer(c_int) :: c_balancer_set_slowdown_threshold
    end function
    function c_box_balancer_create(domain, policy, options, out) bind(C, name="tessera_box_balancer_create")
      import :: c_int, c_ptr
      type(c_ptr), value :: domain, policy, options
      type(c_ptr), intent(out) :: out
      integer(c_int) :: c_box_balancer_create
    end function
    function c_box_balancer_timer_start(balancer, patch) bind(C, name="tessera_box_balancer_timer_start")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: balancer
      integer(c_size_t), value :: patch
      integer(c_int) :: c_box_balancer_timer_start
    end function
    function c_box_balancer_timer_stop(balancer, patch) bind(C, name="tessera_box_balancer_timer_stop")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: balancer
      integer(c_size_t), value :: patch
      integer(c_int) :: c_box_balancer_timer_stop
    end function
    function c_box_balancer_timer_add(balancer, patch, seconds) bind(C, name="tessera_box_balancer_timer_add")
      import :: c_int, c_ptr, c_size_t, c_double
      type(c_ptr), value :: balancer
      integer(c_size_t), value :: patch
      real(c_double), value :: seconds
      integer(c_int) :: c_box_balancer_timer_add
    end function
    function c_box_balancer_box_of_patch(balancer, patch, box) bind(C, name="tessera_box_balancer_box_of_patch")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: balancer
      integer(c_size_t), value :: patch
      integer(c_size_t), intent(out) :: box
      integer(c_int) :: c_box_balancer_box_of_patch
    end function
    function c_box_balancer_step(balancer, out) bind(C, name="tessera_box_balancer_step")
      import :: c_int, c_ptr
      type(c_ptr), value :: balancer, out
      integer(c_int) :: c_box_balancer_step
    end function
  end interface

  abstract interface
    ! Every free function takes the address of the handle and sets it to NULL.
    function c_free(handle) bind(C)
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: handle
      integer(c_int) :: c_free
    end function
  end interface

  ! The tessera_*_free functions have c_free's interface.
  procedure(c_free), bind(C, name="tessera_comm_free") :: c_comm_free
  procedure(c_free), bind(C, name="tessera_grid_free") :: c_grid_free
  procedure(c_free), bind(C, name="tessera_dist_free") :: c_dist_free
  procedure(c_free), bind(C, name="tessera_domain_free") :: c_domain_free
  procedure(c_free), bind(C, name="tessera_array_free") :: c_array_free
  procedure(c_free), bind(C, name="tessera_groups_free") :: c_groups_free
  procedure(c_free), bind(C, name="tessera_multiblock_free") :: c_multiblock_free
  procedure(c_free), bind(C, name="tessera_multiblock_array_free") :: c_multiblock_array_free
  procedure(c_free), bind(C, name="tessera_balancer_free") :: c_balancer_free
  procedure(c_free), bind(C, name="tessera_box_balancer_free") :: c_box_balancer_free

end module tessera_c_api
