!> Boundary rules (ZPL's reflect; what ghost updates write beyond the domain and over a box set's
!> holes) and balancers (D3-ARC's and AMP's remap points, driven by measured time) for the module
!> `tessera`, whose interface block declares every routine here (docs/fortran.md, "Boundary rules"
!> and "Balancing"). A submodule, like box_sets.f90, so that tessera.f90 stays the table of contents.
!>
!> Dimensions are Fortran's (dimension k is C axis ndim - k); patches and boxes are numbered from 0,
!> as tessera_local's patch and tessera_dist_box_set's boxes are.
submodule (tessera) balance
  implicit none

  ! Appended to the C library's messages about axes, which speak C's terms.
  character(*), parameter :: axis_terms = ' [in C''s terms: C axis d is Fortran dimension ndim - d]'

contains

  module procedure tessera_domain_dist
    call finish(c_domain_distribution(domain%h, dist%h), status)
  end procedure

  ! ---------------------------------------------------------------------------------------------
  ! Boundary rules
  ! ---------------------------------------------------------------------------------------------

  ! The address C reads a constant from: the value for TESSERA_BOUNDARY_CONSTANT (an error without
  ! one, named in Fortran's terms), NULL for every other rule.
  function constant_address(rule, value, caller, address) result(s)
    integer, intent(in) :: rule
    real(c_double), intent(in), optional, target :: value
    character(*), intent(in) :: caller
    type(c_ptr), intent(out) :: address
    integer(c_int) :: s
    s = TESSERA_OK
    address = c_null_ptr
    if (rule /= TESSERA_BOUNDARY_CONSTANT) return
    if (present(value)) then
      address = c_loc(value)
    else
      s = fail(TESSERA_ERR_INVALID_ARGUMENT, caller // ': TESSERA_BOUNDARY_CONSTANT needs value=')
    end if
  end function

  module procedure tessera_set_boundary
    type(c_ptr) :: address
    integer(c_int) :: s, ndim, high
    character(*), parameter :: caller = 'tessera_set_boundary'
    s = c_array_ndim(array%h, ndim)
    if (s == TESSERA_OK .and. (dim < 1 .or. dim > ndim)) then
      s = fail(TESSERA_ERR_INVALID_ARGUMENT, caller // ': dim = ' // str(dim) // ', the array has dimensions 1 to ' // &
                                             str(int(ndim)))
    end if
    if (s == TESSERA_OK) s = constant_address(rule, value, caller, address)
    if (s == TESSERA_OK) then
      high = 0
      if (upper) high = 1
      s = with_terms(c_array_set_boundary(array%h, ndim - int(dim, c_int), high, int(rule, c_int), C_TESSERA_DOUBLE, &
                                          address), axis_terms)
    end if
    call finish(s, status)
  end procedure

  module procedure tessera_set_hole_boundary
    type(c_ptr) :: address
    integer(c_int) :: s
    s = constant_address(rule, value, 'tessera_set_hole_boundary', address)
    if (s == TESSERA_OK) s = c_array_set_hole_boundary(array%h, int(rule, c_int), C_TESSERA_DOUBLE, address)
    call finish(s, status)
  end procedure

  ! ---------------------------------------------------------------------------------------------
  ! Balancers
  ! ---------------------------------------------------------------------------------------------

  module procedure tessera_policy_defaults
    type(tessera_policy), target :: p
    integer(c_int) :: s
    s = c_policy_defaults(int(kind, c_int), c_loc(p))
    policy = p
    call finish(s, status)
  end procedure

  module procedure tessera_balancer_create
    type(tessera_policy), target :: p
    type(c_balancer_options), target :: options
    integer(c_int) :: s
    p = policy
    s = c_balancer_options_defaults(options)
    if (present(interval)) options%interval = int(interval, c_int)
    if (present(weights)) options%weights = int(weights, c_int)
    if (present(lb)) options%lb = lb
    if (present(ub)) options%ub = ub
    if (s == TESSERA_OK) s = c_balancer_create(domain%h, c_loc(p), c_loc(options), balancer%h)
    call finish(s, status)
  end procedure

  module procedure tessera_balancer_timer_start
    call finish(c_balancer_timer_start(balancer%h), status)
  end procedure

  module procedure tessera_balancer_timer_stop
    call finish(c_balancer_timer_stop(balancer%h), status)
  end procedure

  module procedure tessera_balancer_step
    type(tessera_balance_step), target :: taken
    integer(c_int) :: s
    if (present(seconds)) then
      s = c_balancer_step_seconds(balancer%h, seconds, c_loc(taken))
    else
      s = c_balancer_step(balancer%h, c_loc(taken))
    end if
    if (present(step)) step = taken
    call finish(s, status)
  end procedure

  module procedure tessera_balancer_set_active_ranks
    integer(c_int) :: c_ranks(max(size(ranks), 1))
    real(c_double) :: took
    c_ranks = 0
    c_ranks(1:size(ranks)) = int(ranks, c_int)
    took = 0
    call finish(c_balancer_set_active_ranks(balancer%h, c_ranks, size(ranks, kind=c_size_t), took), status)
    if (present(seconds)) seconds = took
  end procedure

  module procedure tessera_balancer_set_availability_file
    call finish(c_balancer_set_availability_file(balancer%h, pattern // c_null_char), status)
  end procedure

  module procedure tessera_balancer_set_slowdown_threshold
    call finish(c_balancer_set_slowdown_threshold(balancer%h, factor, int(retry_after, c_int)), status)
  end procedure

  module procedure tessera_box_balancer_create
    type(tessera_policy), target :: p
    type(c_box_balancer_options), target :: options
    integer(c_int) :: s
    p = policy
    s = c_box_balancer_options_defaults(options)
    if (present(interval)) options%interval = int(interval, c_int)
    if (present(target)) options%target = int(target, c_int)
    if (present(relabel)) options%relabel = merge(1_c_int, 0_c_int, relabel)
    if (present(max_bytes_per_step)) then
      if (max_bytes_per_step < 0) then
        s = fail(TESSERA_ERR_INVALID_ARGUMENT, 'tessera_box_balancer_create: max_bytes_per_step = ' // &
                                               str(int(max_bytes_per_step)) // ' is negative (0: no budget)')
      end if
      options%max_bytes_per_step = max_bytes_per_step
    end if
    if (s == TESSERA_OK) s = c_box_balancer_create(domain%h, c_loc(p), c_loc(options), balancer%h)
    call finish(s, status)
  end procedure

  ! A patch number for C (size_t): a negative one is no patch of this rank, refused as C refuses
  ! one past the last.
  function patch_of(patch, caller, c_patch) result(s)
    integer, intent(in) :: patch
    character(*), intent(in) :: caller
    integer(c_size_t), intent(out) :: c_patch
    integer(c_int) :: s
    s = TESSERA_OK
    c_patch = 0
    if (patch < 0) then
      s = fail(TESSERA_ERR_OUT_OF_RANGE, caller // ': patch = ' // str(patch) // '; patches are numbered from 0')
    else
      c_patch = int(patch, c_size_t)
    end if
  end function

  module procedure tessera_box_balancer_timer_start
    integer(c_size_t) :: p
    integer(c_int) :: s
    s = patch_of(patch, 'tessera_box_balancer_timer_start', p)
    if (s == TESSERA_OK) s = c_box_balancer_timer_start(balancer%h, p)
    call finish(s, status)
  end procedure

  module procedure tessera_box_balancer_timer_stop
    integer(c_size_t) :: p
    integer(c_int) :: s
    s = patch_of(patch, 'tessera_box_balancer_timer_stop', p)
    if (s == TESSERA_OK) s = c_box_balancer_timer_stop(balancer%h, p)
    call finish(s, status)
  end procedure

  module procedure tessera_box_balancer_timer_add
    integer(c_size_t) :: p
    integer(c_int) :: s
    s = patch_of(patch, 'tessera_box_balancer_timer_add', p)
    if (s == TESSERA_OK) s = c_box_balancer_timer_add(balancer%h, p, seconds)
    call finish(s, status)
  end procedure

  module procedure tessera_box_balancer_box_of_patch
    integer(c_size_t) :: p, b
    integer(c_int) :: s
    box = -1
    b = 0
    s = patch_of(patch, 'tessera_box_balancer_box_of_patch', p)
    if (s == TESSERA_OK) s = c_box_balancer_box_of_patch(balancer%h, p, b)
    if (s == TESSERA_OK) box = int(b)
    call finish(s, status)
  end procedure

  module procedure tessera_box_balancer_step
    type(tessera_balance_step), target :: taken
    integer(c_int) :: s
    s = c_box_balancer_step(balancer%h, c_loc(taken))
    if (present(step)) step = taken
    call finish(s, status)
  end procedure

end submodule balance
