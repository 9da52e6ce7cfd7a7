#ifndef TESSERA_H
#define TESSERA_H
/**
 * \file
 * tessera's C API: distributed arrays of 1, 2 or 3 dimensions whose distribution can change at run
 * time, for C (C11) and for any language that calls C. It wraps the C++ library (`<tessera/tessera.hpp>`)
 * one object at a time; see docs/c-api.md for the design.
 *
 * \code
 *   tessera_comm world;
 *   tessera_grid grid;
 *   tessera_dist dist;
 *   tessera_domain dom;
 *   tessera_array u;
 *   const int64_t extents[2] = {100, 100};
 *   tessera_box box = {{0, 0}, {100, 100}};
 *   tessera_dim_spec specs[2] = {{.kind = TESSERA_DIM_BLOCK}, {.kind = TESSERA_DIM_BLOCK}};
 *   tessera_ghosts halo;
 *   if (tessera_comm_create(MPI_COMM_WORLD, &world) != TESSERA_OK ||
 *       tessera_grid_automatic(2, nprocs, extents, NULL, &grid) != TESSERA_OK ||
 *       tessera_dist_create(grid, &box, specs, NULL, &dist) != TESSERA_OK ||
 *       tessera_domain_create(world, dist, &dom) != TESSERA_OK ||
 *       tessera_ghosts_uniform(2, 1, &halo) != TESSERA_OK ||
 *       tessera_array_create(dom, TESSERA_DOUBLE, &halo, &u) != TESSERA_OK)
 *     fprintf(stderr, "%s\n", tessera_last_error());
 * \endcode
 *
 * **Handles.** Every object is an opaque handle (`tessera_array`, ...). A handle is not a pointer to
 * the object: it encodes a slot of a registry, a generation and the kind of object, and the library
 * looks it up on every call, so a freed handle is recognised (`TESSERA_ERR_FREED_HANDLE`) and never
 * dereferenced, even after its slot was reused, and a handle of another kind is refused
 * (`TESSERA_ERR_INVALID_HANDLE`). `tessera_*_free(&h)` releases a handle and sets it to NULL; freeing
 * NULL does nothing. Objects keep what they depend on alive (an array its domain, a domain its
 * communicator), so handles may be freed in any order; free them all before `MPI_Finalize`.
 *
 * **Errors.** Every function returns a `tessera_status` (`TESSERA_OK` = 0); on failure
 * `tessera_last_error()` says which function failed, naming the argument and its value. Codes 1 to 7
 * are the C++ library's `tessera::ErrorCode`; codes from 100 are the C API's own. No C++ exception
 * ever crosses this interface. A collective function fails on every rank alike when its arguments
 * are the same everywhere (tessera checks them before anything moves).
 *
 * **Collective** functions must be called by every rank of the communicator, in the same order.
 * **Dimensions**: 1, 2 or 3 (`TESSERA_MAX_DIM`); arrays of `int64_t` of length ndim pass points,
 * shapes and extents; `tessera_box` holds a half-open box `[lo, hi)` whose entries past ndim are
 * ignored. Local storage is row-major (the last dimension fastest) unless an array is created
 * column-major (`tessera_array_create_ordered`); global images (gather, scatter, get, put) and
 * checkpoint files are row-major either way.
 *
 * **Threads**: the handle registry and the last-error message (one per thread) are thread-safe;
 * an object may be used by one thread at a time, and MPI must be initialised with a thread level
 * that allows the calls made (MPI_THREAD_SERIALIZED when several threads call tessera).
 */

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The most dimensions an array may have. */
#define TESSERA_MAX_DIM 3

/* ------------------------------------------------------------------------------------------ */
/* Status codes                                                                                 */
/* ------------------------------------------------------------------------------------------ */

/** What a call returns. 1-7 mirror `tessera::ErrorCode` value for value. */
typedef enum tessera_status {
  TESSERA_OK = 0,
  TESSERA_ERR_INVALID_ARGUMENT = 1, /**< an argument is malformed (a negative width, a null pointer, ...) */
  TESSERA_ERR_OUT_OF_RANGE = 2,     /**< an index, rank or box lies outside what it must lie in */
  TESSERA_ERR_OVERFLOW = 3,         /**< a volume or offset does not fit in 64 bits */
  TESSERA_ERR_MISMATCH = 4,         /**< ranks disagree, or two objects that must match do not */
  TESSERA_ERR_MPI = 5,              /**< MPI reported an error (its message is in tessera_last_error) */
  TESSERA_ERR_IO = 6,               /**< a file could not be read or written */
  TESSERA_ERR_INTERNAL = 7,         /**< a broken invariant inside tessera: a bug, please report it */
  TESSERA_ERR_NULL_HANDLE = 100,    /**< a handle argument is NULL */
  TESSERA_ERR_FREED_HANDLE = 101,   /**< a handle argument was freed already */
  TESSERA_ERR_INVALID_HANDLE = 102, /**< a handle argument is not a live handle of the kind expected */
  TESSERA_ERR_WRONG_TYPE = 103,     /**< the element type given is not the array's */
  TESSERA_ERR_CALL_ORDER = 104,     /**< the call is not allowed now (e.g. end before begin, stale plan) */
  TESSERA_ERR_OUT_OF_MEMORY = 105   /**< an allocation failed */,
  /* Not values: they make the enum span every int, so that C++ reads any int a C caller passes
     (to tessera_status_name, say) without undefined behaviour. */
  TESSERA_STATUS_MIN_ENUM_ = -0x7FFFFFFF - 1,
  TESSERA_STATUS_MAX_ENUM_ = 0x7FFFFFFF
} tessera_status;

/** The message of the last failing call on this thread ("" if none has failed). Valid until the
 *  next failing call on this thread. One of two functions that do not return a status. */
const char* tessera_last_error(void);
/** The name of a status, e.g. "TESSERA_ERR_FREED_HANDLE" ("unknown tessera_status" otherwise). */
const char* tessera_status_name(tessera_status status);
/** Number of live handles of every kind (to check that a program freed everything). */
tessera_status tessera_live_handles(size_t* count);

/* ------------------------------------------------------------------------------------------ */
/* Value types                                                                                  */
/* ------------------------------------------------------------------------------------------ */

/** Element types of arrays. */
typedef enum tessera_type {
  TESSERA_FLOAT = 1,          /**< float */
  TESSERA_DOUBLE = 2,         /**< double */
  TESSERA_INT32 = 3,          /**< int32_t */
  TESSERA_INT64 = 4,          /**< int64_t */
  TESSERA_COMPLEX_DOUBLE = 5, /**< double _Complex (C), std::complex<double> (C++): two doubles */
  TESSERA_INDEX = 6           /**< tessera_index: a point, for the index arrays of tessera_gather/scatter */,
  /* Not values: they make the enum span every int, so that C++ reads any int a C caller passes
     without undefined behaviour, and the library can reject it with an error. */
  TESSERA_TYPE_MIN_ENUM_ = -0x7FFFFFFF - 1,
  TESSERA_TYPE_MAX_ENUM_ = 0x7FFFFFFF
} tessera_type;

/** A point of an array's domain, the element of a TESSERA_INDEX array (entries past the indexed
 *  array's ndim are ignored). */
typedef struct tessera_index {
  int64_t c[TESSERA_MAX_DIM];
} tessera_index;

/** A half-open box: the points p with lo[d] <= p[d] < hi[d] for every d < ndim. */
typedef struct tessera_box {
  int64_t lo[TESSERA_MAX_DIM];
  int64_t hi[TESSERA_MAX_DIM];
} tessera_box;

/** How one dimension of a domain is spread over one axis of a processor grid (tessera::DimSpec).
 *  A zero-initialised spec is TESSERA_DIM_BLOCK. */
typedef enum tessera_dim_kind {
  TESSERA_DIM_BLOCK = 0,        /**< balanced blocks (ZPL blk, D3-ARC D_BLOCK, HPF BLOCK) */
  TESSERA_DIM_CUT = 1,          /**< explicit boundaries: coordinate c owns [b[c], b[c+1]) (ZPL cut) */
  TESSERA_DIM_CUT_WEIGHTS = 2,  /**< one interval per coordinate, sized in proportion to weights */
  TESSERA_DIM_GENERAL = 3,      /**< D3-ARC D_GENERAL: per-slab cuts from per-rank weights
                                     (only tessera_dist_from_rank_weights accepts it) */
  TESSERA_DIM_CYCLIC = 4,       /**< round robin over logical blocks (ZPL cyc, D_CYCLIC) */
  TESSERA_DIM_BLOCK_CYCLIC = 5, /**< blocks of block_size dealt round robin from coordinate source */
  TESSERA_DIM_COLLAPSED = 6,    /**< not distributed: the grid axis must have extent 1 (D_NONE) */
  TESSERA_DIM_IRREGULAR = 7,    /**< an owner coordinate per index */
  TESSERA_DIM_FLOODED = 8,      /**< ZPL's flood `*`: every coordinate of the grid axis holds the whole
                                     dimension, a replica each (docs/concepts.md, "Flooded axes") */
  /* Not values: they make the enum span every int, so that C++ reads any int a C caller passes
     without undefined behaviour, and the library can reject it with an error. */
  TESSERA_DIM_KIND_MIN_ENUM_ = -0x7FFFFFFF - 1,
  TESSERA_DIM_KIND_MAX_ENUM_ = 0x7FFFFFFF
} tessera_dim_kind;

/** One dimension's distribution. Fill the fields its kind uses; the others are ignored. */
typedef struct tessera_dim_spec {
  tessera_dim_kind kind;
  int64_t logical_block;     /**< smallest unit a boundary may move by; 0 means 1 */
  int64_t block_size;        /**< BLOCK_CYCLIC: indices per block */
  int source;                /**< BLOCK_CYCLIC: coordinate that owns block 0 */
  const int64_t* boundaries; /**< CUT: g+1 non-decreasing entries, lo first, hi last */
  size_t boundary_count;
  const double* weights; /**< CUT_WEIGHTS: g non-negative weights */
  size_t weight_count;
  const int* owners; /**< IRREGULAR: a grid coordinate for every index of the dimension */
  size_t owner_count;
} tessera_dim_spec;

/** The order of an array's local storage (docs/scalapack.md). */
typedef enum tessera_storage_order {
  TESSERA_ROW_MAJOR = 0,    /**< C order: the last dimension fastest (the default) */
  TESSERA_COLUMN_MAJOR = 1 /**< Fortran order: the first dimension fastest (ScaLAPACK's local arrays) */,
  /* Not values: they make the enum span every int, so that C++ reads any int a C caller passes
     without undefined behaviour, and the library can reject it with an error. */
  TESSERA_STORAGE_ORDER_MIN_ENUM_ = -0x7FFFFFFF - 1,
  TESSERA_STORAGE_ORDER_MAX_ENUM_ = 0x7FFFFFFF
} tessera_storage_order;

/** Ghost layers around each owned box (D3-ARC's viewport). A zero-initialised spec has no ghosts. */
typedef struct tessera_ghosts {
  int64_t lower[TESSERA_MAX_DIM]; /**< width below the owned box along each dimension (>= 0) */
  int64_t upper[TESSERA_MAX_DIM]; /**< width above it (>= 0) */
  int faces_only;                 /**< non-zero: skip edges and corners (5- and 7-point stencils) */
  int periodic[TESSERA_MAX_DIM];  /**< non-zero: ghosts wrap around along that dimension */
} tessera_ghosts;

/** What happens to values when a domain changes its distribution. */
typedef enum tessera_redistribution {
  TESSERA_PRESERVE = 0,   /**< every index keeps its value (ZPL <==) */
  TESSERA_DESTRUCTIVE = 1 /**< storage is reshaped and zeroed; nothing moves (ZPL <=#) */,
  /* Not values: they make the enum span every int, so that C++ reads any int a C caller passes
     without undefined behaviour, and the library can reject it with an error. */
  TESSERA_REDISTRIBUTION_MIN_ENUM_ = -0x7FFFFFFF - 1,
  TESSERA_REDISTRIBUTION_MAX_ENUM_ = 0x7FFFFFFF
} tessera_redistribution;

/** How arriving values combine, and which fold a reduction computes. On integer elements ADD and
 *  MULTIPLY wrap modulo 2^bits: an overflowing sum or product is defined (the same bits on every
 *  rank), never undefined behaviour. */
typedef enum tessera_op {
  TESSERA_OP_REPLACE = 0,
  TESSERA_OP_ADD = 1,
  TESSERA_OP_MULTIPLY = 2,
  TESSERA_OP_MIN = 3,
  TESSERA_OP_MAX = 4,
  /* Not values: they make the enum span every int, so that C++ reads any int a C caller passes
     without undefined behaviour, and the library can reject it with an error. */
  TESSERA_OP_MIN_ENUM_ = -0x7FFFFFFF - 1,
  TESSERA_OP_MAX_ENUM_ = 0x7FFFFFFF
} tessera_op;

/** A rank's view of one patch of its storage: a dense array (row-major, or column-major for an array
 *  created TESSERA_COLUMN_MAJOR: `strides` tell) whose local index runs over
 *  [0, extents) with the owned part at [ghost_lo, ghost_lo + count). Along an interval axis
 *  (contiguous[d] != 0) local index l holds global index first[d] + l - ghost_lo[d]; along a
 *  compacted (cyclic, block-cyclic, irregular) axis local indices count the owned indices in
 *  increasing order. Entries past ndim are 0. */
typedef struct tessera_view {
  void* data; /**< element at local index (0, ..., 0); NULL when the patch stores nothing */
  tessera_type type;
  int ndim;
  int64_t extents[TESSERA_MAX_DIM];  /**< local extents, ghosts included */
  int64_t strides[TESSERA_MAX_DIM];  /**< in elements */
  int64_t ghost_lo[TESSERA_MAX_DIM]; /**< ghost layers below the owned part */
  int64_t count[TESSERA_MAX_DIM];    /**< owned extents */
  int64_t first[TESSERA_MAX_DIM];    /**< first owned global index along each axis */
  int contiguous[TESSERA_MAX_DIM];   /**< 1 for an interval axis, 0 for a compacted one */
} tessera_view;

/* ------------------------------------------------------------------------------------------ */
/* Handles                                                                                      */
/* ------------------------------------------------------------------------------------------ */

typedef struct tessera_comm_s* tessera_comm;         /**< tessera's duplicate of an MPI communicator */
typedef struct tessera_grid_s* tessera_grid;         /**< a processor grid (ProcGrid) */
typedef struct tessera_dist_s* tessera_dist;         /**< a distribution (immutable) */
typedef struct tessera_domain_s* tessera_domain;     /**< a box bound to a distribution, shared by arrays */
typedef struct tessera_array_s* tessera_array;       /**< a distributed array */
typedef struct tessera_schedule_s* tessera_schedule; /**< a reusable copy or transpose plan */
typedef struct tessera_step_s* tessera_step;         /**< one planned incremental redistribution step */
typedef struct tessera_balancer_s* tessera_balancer; /**< runs a balance policy at remap points */
typedef struct tessera_box_balancer_s* tessera_box_balancer; /**< balances a box-set domain box by box */
typedef struct tessera_load_s* tessera_load;         /**< deterministic emulated load */

/* ------------------------------------------------------------------------------------------ */
/* Communicators                                                                                */
/* ------------------------------------------------------------------------------------------ */

/** Collective over `user`: tessera's own duplicate of `user` (tessera never sends on the user's
 *  communicator). MPI must be initialised (TESSERA_ERR_CALL_ORDER otherwise). */
tessera_status tessera_comm_create(MPI_Comm user, tessera_comm* out);
tessera_status tessera_comm_rank(tessera_comm comm, int* rank);
tessera_status tessera_comm_size(tessera_comm comm, int* size);
/** Collective (D3-ARC d3_collectall): every rank's `value` into `out[rank]`; `capacity` >= size. */
tessera_status tessera_comm_collect_all(tessera_comm comm, double value, double* out, size_t capacity);
/** Collective over the communicator (MPI_Comm_free) once no object uses it any more. */
tessera_status tessera_comm_free(tessera_comm* comm);

/* ------------------------------------------------------------------------------------------ */
/* Processor grids: positions [0, shape) holding ranks of a communicator of comm_size ranks     */
/* ------------------------------------------------------------------------------------------ */

/** Grid of `shape` over ranks 0..prod(shape)-1 in row-major order; prod(shape) == comm_size. */
tessera_status tessera_grid_create(int ndim, int comm_size, const int64_t* shape, tessera_grid* out);
/** Shape chosen for comm_size ranks and data of `extents` (fewest idle ranks, then the smallest
 *  halo); `fixed` (may be NULL) pins extent d where fixed[d] > 0. */
tessera_status tessera_grid_automatic(int ndim, int comm_size, const int64_t* extents, const int64_t* fixed,
                                      tessera_grid* out);
/** Same over the ranks `active[0..count)` in logical order; the others are skeletons (AMP's
 *  processor sets: they own nothing and still take part in collective calls). */
tessera_status tessera_grid_over_ranks(int ndim, int comm_size, const int* active, size_t count, const int64_t* extents,
                                       const int64_t* fixed, tessera_grid* out);
/** Explicit table: ranks[p] sits at row-major position p; count == prod(shape). */
tessera_status tessera_grid_from_ranks(int ndim, int comm_size, const int64_t* shape, const int* ranks, size_t count,
                                       tessera_grid* out);
tessera_status tessera_grid_ndim(tessera_grid grid, int* ndim);
/** Writes ndim extents. */
tessera_status tessera_grid_shape(tessera_grid grid, int64_t* shape);
/** Number of positions (active ranks). */
tessera_status tessera_grid_size(tessera_grid grid, int* size);
tessera_status tessera_grid_rank_at(tessera_grid grid, const int64_t* position, int* rank);
/** `*active` = 0 for a skeleton rank (then `position` is left alone), else 1 and its position. */
tessera_status tessera_grid_position_of(tessera_grid grid, int rank, int* active, int64_t* position);
tessera_status tessera_grid_free(tessera_grid* grid);

/* ------------------------------------------------------------------------------------------ */
/* Distributions (immutable; nothing here communicates)                                         */
/* ------------------------------------------------------------------------------------------ */

/** A dimensional distribution of `box` over `grid`, one spec per dimension. `order` (may be NULL
 *  for 0, 1, ..., ndim-1) is D3-ARC's r: order[0] is the dimension distributed first. */
tessera_status tessera_dist_create(tessera_grid grid, const tessera_box* box, const tessera_dim_spec* specs,
                                   const int* order, tessera_dist* out);
/** D3-ARC's D_GENERAL: dimensions whose spec is TESSERA_DIM_GENERAL are cut in proportion to the
 *  weights of the ranks in each slab, slab by slab in `order`; `weights[l]` is the weight of grid
 *  position l (count == grid size). */
tessera_status tessera_dist_from_rank_weights(tessera_grid grid, const tessera_box* box, const double* weights,
                                              size_t count, const tessera_dim_spec* specs, const int* order,
                                              tessera_dist* out);
tessera_status tessera_dist_ndim(tessera_dist dist, int* ndim);
tessera_status tessera_dist_box(tessera_dist dist, tessera_box* box);
/** A new handle to the distribution's processor grid. */
tessera_status tessera_dist_grid(tessera_dist dist, tessera_grid* out);
tessera_status tessera_dist_owner(tessera_dist dist, const int64_t* point, int* rank);
/** Number of indices `rank` owns. */
tessera_status tessera_dist_local_size(tessera_dist dist, int rank, int64_t* size);
/** The box `rank` owns (empty for a rank that owns nothing); needs a distribution whose every
 *  dimension is cut into intervals (block, cut, weights, general, collapsed). */
tessera_status tessera_dist_owned_box(tessera_dist dist, int rank, tessera_box* box);
/** The disjoint boxes `rank` owns: writes min(count, capacity) boxes and sets `*count` to their
 *  number (call with capacity 0 to learn it). */
tessera_status tessera_dist_owned_boxes(tessera_dist dist, int rank, tessera_box* boxes, size_t capacity,
                                        size_t* count);
/** `*equal` = 1 if both own every index alike. */
tessera_status tessera_dist_equal(tessera_dist a, tessera_dist b, int* equal);
/** Printed form (e.g. "grid 2x2, [block, cut(0,3,6)]") into `buffer` (truncated, always
 *  NUL-terminated when capacity > 0); `*length` (may be NULL) = its full length. */
tessera_status tessera_dist_describe(tessera_dist dist, char* buffer, size_t capacity, size_t* length);
/** Slabs of dimension `axis`: the product of the grid extents of the dimensions before it in the order. */
tessera_status tessera_dist_slab_count(tessera_dist dist, int axis, size_t* slabs);
/** The boundaries of interval dimension `axis`: slabs x (g+1) entries, slab after slab. */
tessera_status tessera_dist_slab_cuts(tessera_dist dist, int axis, int64_t* cuts, size_t capacity);
/** The same distribution with `axis` cut at `cuts`: 1 or slab_count slabs of g+1 boundaries each. */
tessera_status tessera_dist_with_cuts(tessera_dist dist, int axis, const int64_t* cuts, size_t slabs,
                                      tessera_dist* out);
/** The distribution of a partial reduction's result (for tessera_reduce_into): `dist`'s box with
 *  each of the `count` axes in `axes` cut to its low index, on the same grid; an unreduced axis is
 *  owned as in `dist`; a reduced axis is owned by the grid coordinate owning its low index
 *  (`flooded` = 0, so that nothing crosses the grid off the reduced axes) or flooded
 *  (`flooded` != 0: every rank of that grid axis holds the result, ZPL's `[1..n, *] S := +<< A`). */
tessera_status tessera_dist_reduced(tessera_dist dist, const int* axes, size_t count, int flooded,
                                    tessera_dist* out);
tessera_status tessera_dist_free(tessera_dist* dist);

/* ------------------------------------------------------------------------------------------ */
/* Box sets (KeLP's FloorPlan): domains that are lists of disjoint boxes, each owned by a rank   */
/* ------------------------------------------------------------------------------------------ */

/** How tessera_assign_boxes gives boxes to ranks (docs/box-sets.md). */
typedef enum tessera_box_assignment {
  TESSERA_ASSIGN_KNAPSACK = 0, /**< the heaviest box first, each to the least loaded rank */
  TESSERA_ASSIGN_MORTON = 1,   /**< Morton order of the box centres, cut into runs of equal weight */
  TESSERA_ASSIGN_HILBERT = 2,  /**< Hilbert order of the box centres, cut the same way (box sets only, not a balancer target) */
  /* Not values (see tessera_dim_kind). */
  TESSERA_BOX_ASSIGNMENT_MIN_ENUM_ = -0x7FFFFFFF - 1,
  TESSERA_BOX_ASSIGNMENT_MAX_ENUM_ = 0x7FFFFFFF
} tessera_box_assignment;

/** A box-set distribution over `comm_size` ranks: `count` disjoint, non-empty `ndim`-dimensional
 *  boxes, box i owned by rank owners[i]; `domain` (may be NULL: the boxes' bounding box) must hold
 *  them, and its indices that no box holds are holes. Accepted wherever a distribution is
 *  (tessera_domain_create, tessera_dist_owned_boxes, ...). Not collective: every rank passes the
 *  same lists. Overlapping or empty boxes, owners outside [0, comm_size): INVALID_ARGUMENT; a box
 *  outside `domain`: OUT_OF_RANGE. */
tessera_status tessera_dist_from_boxes(int ndim, int comm_size, const tessera_box* domain, const tessera_box* boxes,
                                       size_t count, const int* owners, tessera_dist* out);
/** Writes one owner per box into `owners` (count entries) by `policy`; `weights` (count entries,
 *  finite and >= 0) or NULL for the boxes' cell counts. Deterministic. Not collective. */
tessera_status tessera_assign_boxes(int ndim, int comm_size, const tessera_box* boxes, size_t count,
                                    tessera_box_assignment policy, const double* weights, int* owners);
/** Cuts every box into the fewest near-equal pieces no longer than `max_extent[d]` along axis d
 *  (`ndim` entries, each >= 1), so that a few big boxes can be spread over many ranks: writes
 *  min(pieces, capacity) of them into `pieces` and sets `*piece_count` to how many there are (call
 *  with capacity 0 and `pieces` NULL to size the list). The pieces of a box follow each other in
 *  row-major order of their position; empty boxes vanish. Not collective, deterministic. A
 *  `max_extent` entry below 1: INVALID_ARGUMENT, nothing written. */
tessera_status tessera_chop_boxes(int ndim, const tessera_box* boxes, size_t count, const int64_t* max_extent,
                                  tessera_box* pieces, size_t capacity, size_t* piece_count);
/** D3-ARC's step for box sets (docs/box-sets.md, "Balancing"): of the boxes whose owner in `target`
 *  differs from `current` (count entries each), moves only those with the best gain per cell until
 *  a fraction `delta` (in [0, 1]) of the excess load is removed; `weights` (count entries, finite and
 *  >= 0: measured seconds per box, say) or NULL for the boxes' cell counts. Writes the owners after
 *  the step into `owners` (count entries; may be `current`); `moved` (the boxes that change owner),
 *  `cells` (the cells they hold) and `excess_before` / `excess_after` (sum over ranks of the load
 *  above the mean) may each be NULL. Pass the result to tessera_dist_from_boxes and redistribute
 *  the domain to it. Deterministic (ties to the lower box index); not collective: every rank
 *  computes the same step from the same lists. An owner outside [0, comm_size), a bad weight or
 *  delta: INVALID_ARGUMENT, nothing written. */
tessera_status tessera_incremental_box_step(int ndim, int comm_size, const tessera_box* boxes, size_t count,
                                            const int* current, const int* target, double delta,
                                            const double* weights, int* owners, size_t* moved, uint64_t* cells,
                                            double* excess_before, double* excess_after);
/** The boxes of a box-set distribution and their owners: writes min(count, capacity) of each
 *  (either pointer may be NULL) and sets `*count` to the number of boxes. MISMATCH for a
 *  distribution that is not a box set. */
tessera_status tessera_dist_box_set(tessera_dist dist, tessera_box* boxes, int* owners, size_t capacity,
                                    size_t* count);

/* ------------------------------------------------------------------------------------------ */
/* Local layouts (Chapel's LocalLayout): a user-defined distribution's own storage order         */
/* ------------------------------------------------------------------------------------------ */

/** How each rank stores its owned boxes, one after another, under tessera_dist_with_local_order
 *  (docs/concepts.md, "User-defined local layouts"). */
typedef enum tessera_local_order {
  TESSERA_LOCAL_ROW_MAJOR = 0,    /**< each box row-major (the offsets tessera uses without a layout) */
  TESSERA_LOCAL_COLUMN_MAJOR = 1, /**< each box column-major: the first axis fastest */
  TESSERA_LOCAL_PADDED = 2,       /**< row-major, each box's last extent rounded up to a multiple of `size` (holes) */
  TESSERA_LOCAL_TILED = 3,        /**< cubes of side `size` (clipped at the box's upper faces), row-major inside */
  /* Not values (see tessera_dim_kind). */
  TESSERA_LOCAL_ORDER_MIN_ENUM_ = -0x7FFFFFFF - 1,
  TESSERA_LOCAL_ORDER_MAX_ENUM_ = 0x7FFFFFFF
} tessera_local_order;

/** `dist` (a user-defined distribution: a box set from tessera_dist_from_boxes) with each rank's
 *  boxes stored in `order`; `size` is the padding multiple or the tile side (>= 1), and must be 1
 *  for row- and column-major. Arrays over the result have no patches (tessera_array_patch_count,
 *  tessera_array_local: INVALID_ARGUMENT); their ghost cells, if any, sit in slabs after the owned
 *  points, read and written with tessera_array_get/set. Every movement, ghost update and
 *  accumulation, whole-array reduction, get/set and copy_in/out works, with plans compiled against
 *  the order (scans, partial reductions and boundary rules need patches: INVALID_ARGUMENT).
 *  Read the rank's buffer with tessera_array_storage: point p is at tessera_dist_local_offset(p).
 *  A dimensional distribution, one that has a local layout already, a bad `order` or `size`:
 *  INVALID_ARGUMENT. Not collective. */
tessera_status tessera_dist_with_local_order(tessera_dist dist, tessera_local_order order, int64_t size,
                                             tessera_dist* out);
/** `*has` = 1 if arrays over `dist` store their points in a local layout of its own, else 0. */
tessera_status tessera_dist_has_local_layout(tessera_dist dist, int* has);
/** Where `point` (in the distribution's box, owned by some rank) sits in its owner's buffer.
 *  Under a local layout: the offset into tessera_array_storage's buffer on the owner. Without
 *  one: the owner's patches one after another, each row-major, which is that buffer's offset only
 *  for a row-major array without ghosts. A point outside the box or in a hole: OUT_OF_RANGE. */
tessera_status tessera_dist_local_offset(tessera_dist dist, const int64_t* point, int64_t* offset);
/** Elements of `rank`'s buffer under `dist`: tessera_dist_local_size, or more where a padded
 *  local layout leaves holes. */
tessera_status tessera_dist_local_storage_size(tessera_dist dist, int rank, int64_t* size);

/* ------------------------------------------------------------------------------------------ */
/* Domains: a box bound to a distribution; every array over it moves with it                    */
/* ------------------------------------------------------------------------------------------ */

/** A domain over `dist` on the ranks of `comm` (dist must be for comm's size). Not collective, but
 *  every rank must create the same domains and arrays in the same order. */
tessera_status tessera_domain_create(tessera_comm comm, tessera_dist dist, tessera_domain* out);
tessera_status tessera_domain_ndim(tessera_domain domain, int* ndim);
tessera_status tessera_domain_box(tessera_domain domain, tessera_box* box);
/** A new handle to the domain's current distribution. */
tessera_status tessera_domain_distribution(tessera_domain domain, tessera_dist* out);
/** Collective: moves every array over the domain to `to` (which may cover another box). Ghost layers
 *  must be updated afterwards. */
tessera_status tessera_domain_redistribute(tessera_domain domain, tessera_dist to, tessera_redistribution mode);
/** Collective: moves every array to `to` (same box), keeping values and, where the new part fits
 *  the rows kept to spare, the buffers (D3-ARC d3_migrate). `*seconds` (may be NULL): its time. */
tessera_status tessera_domain_migrate(tessera_domain domain, tessera_dist to, double* seconds);
/** Rows kept to spare by migrations, as a fraction of an even share (default 0.25). */
tessera_status tessera_domain_set_spare_rows(tessera_domain domain, double fraction_of_even_share);
tessera_status tessera_domain_free(tessera_domain* domain);

/* ------------------------------------------------------------------------------------------ */
/* Arrays                                                                                       */
/* ------------------------------------------------------------------------------------------ */

/** `ghosts` with width `width` on every side of ndim dimensions, corners included, not periodic. */
tessera_status tessera_ghosts_uniform(int ndim, int64_t width, tessera_ghosts* ghosts);
/** An array of `type` over `domain`, every element zero; `ghosts` may be NULL (none). Arrays must
 *  be created in the same order on every rank. */
tessera_status tessera_array_create(tessera_domain domain, tessera_type type, const tessera_ghosts* ghosts,
                                    tessera_array* out);
/** tessera_array_create with local storage in `order` (TESSERA_COLUMN_MAJOR: Fortran order, what
 *  ScaLAPACK and LAPACK read; every operation gives the same results in either order). */
tessera_status tessera_array_create_ordered(tessera_domain domain, tessera_type type, const tessera_ghosts* ghosts,
                                            tessera_storage_order order, tessera_array* out);
/** The order of the array's local storage. */
tessera_status tessera_array_storage_order(tessera_array array, tessera_storage_order* order);
tessera_status tessera_array_type(tessera_array array, tessera_type* type);
tessera_status tessera_array_ndim(tessera_array array, int* ndim);
/** A new handle to the domain the array is over. */
tessera_status tessera_array_domain(tessera_array array, tessera_domain* out);
/** Patches this rank stores: 1 for a dimensional distribution, 0 on a rank that owns nothing. */
tessera_status tessera_array_patch_count(tessera_array array, size_t* count);
/** The box patch `patch` owns (its bounding box along compacted axes). */
tessera_status tessera_array_owned_box(tessera_array array, size_t patch, tessera_box* box);
/** A view of patch `patch` of this rank's storage (see tessera_view); `type` must be the array's.
 *  Valid until the domain is redistributed or migrated. */
tessera_status tessera_array_local(tessera_array array, size_t patch, tessera_type type, tessera_view* view);
/** This rank's whole buffer: `*data` its first element (NULL when the rank stores nothing) and
 *  `*size` its elements, ghosts included (either pointer may be NULL). Under a local layout,
 *  owned point p is at element tessera_dist_local_offset(p), the ghost slabs after the last owned
 *  point. `type` must be the array's. Valid until
 *  the domain is redistributed or migrated. */
tessera_status tessera_array_storage(tessera_array array, tessera_type type, void** data, int64_t* size);
/** The element at global `point`, which this rank must store (owned or ghost). */
tessera_status tessera_array_get(tessera_array array, const int64_t* point, tessera_type type, void* value);
tessera_status tessera_array_set(tessera_array array, const int64_t* point, tessera_type type, const void* value);
/** Where global `point` (owned, or in a ghost layer of this rank) lies in tessera_array_storage's
 *  buffer, counted in elements: under any layout — patches with their ghosts, or a local layout
 *  (owned points at tessera_dist_local_offset, ghost cells in the slabs after them). For a loop
 *  over ghost cells that does not call tessera_array_get per cell. OUT_OF_RANGE if this rank does
 *  not store the point. */
tessera_status tessera_array_storage_offset(tessera_array array, const int64_t* point, int64_t* offset);
/** Sets every owned element to `*value`. */
tessera_status tessera_array_fill(tessera_array array, tessera_type type, const void* value);
/** Copies the elements of `region` this rank stores (owned or ghost; all of them must be stored)
 *  into `buffer`, a row-major array over `buffer_box` (NULL: over `region`), which must contain
 *  `region`. Not collective. */
tessera_status tessera_array_copy_out(tessera_array array, const tessera_box* region, tessera_type type, void* buffer,
                                      const tessera_box* buffer_box);
/** The reverse of tessera_array_copy_out: sets the elements of `region` from `buffer` (nothing is
 *  written if some element of `region` is not stored on this rank). */
tessera_status tessera_array_copy_in(tessera_array array, const tessera_box* region, tessera_type type,
                                     const void* buffer, const tessera_box* buffer_box);

/** What ghost updates write into the ghost cells outside the domain box on one side of one axis
 *  (ZPL's reflect; wrap is periodicity, in tessera_ghosts). Applied after the exchange, axis by
 *  axis in increasing order, so a corner holds what the last axis's rule gives (docs/arrays.md). */
typedef enum tessera_boundary {
  TESSERA_BOUNDARY_NONE = 0,        /**< left as the program wrote them (the default) */
  TESSERA_BOUNDARY_REFLECT = 1,     /**< the mirror image about the face: ghost lo-1-k holds lo+k */
  TESSERA_BOUNDARY_REFLECT_ODD = 2, /**< the mirror image negated (odd symmetry) */
  TESSERA_BOUNDARY_CONSTANT = 3,    /**< one value: `value` points to an element of the array's type */
  TESSERA_BOUNDARY_EXTRAPOLATE = 4  /**< linear, through the two cells nearest the face */,
  /* Not values: they make the enum span every int, so that C++ reads any int a C caller passes
     without undefined behaviour, and the library can reject it with an error. */
  TESSERA_BOUNDARY_MIN_ENUM_ = -0x7FFFFFFF - 1,
  TESSERA_BOUNDARY_MAX_ENUM_ = 0x7FFFFFFF
} tessera_boundary;
/** Sets the rule of one side of `axis` (`high` 0: the low side, 1: the high side) that every later
 *  ghost update of `array` applies; the other sides keep theirs. `type` and `value` are read for
 *  TESSERA_BOUNDARY_CONSTANT only (`type` must be the array's). Not collective, but every rank
 *  must set the same rules. TESSERA_ERR_INVALID_ARGUMENT for a rule along a periodic axis, a
 *  reflect wider than the domain, an extrapolation across a domain one cell wide or of
 *  TESSERA_INDEX elements; a ghost update whose rule reads cells a thin rank does not store fails
 *  on every rank before anything moves. */
tessera_status tessera_array_set_boundary(tessera_array array, int axis, int high, tessera_boundary rule,
                                          tessera_type type, const void* value);

/** Sets the rule for ghost cells inside the domain box that no box of a box-set distribution holds
 *  (its holes, docs/box-sets.md "Ghost cells over holes"), applied by every later ghost update
 *  after the exchange and before the side rules: TESSERA_BOUNDARY_NONE (left as written, the
 *  default), TESSERA_BOUNDARY_CONSTANT (`type` the array's, `value` one element), or
 *  TESSERA_BOUNDARY_REFLECT / TESSERA_BOUNDARY_REFLECT_ODD (a wall around each box: the ghost holds
 *  its box's cell mirrored about the faces it lies beyond, negated for the odd rule; a ghost update
 *  fails on every rank if a box is thinner than the ghost cells beyond it that lie over a hole). A
 *  distribution without holes has no such cells. Not collective, but every rank must set the same
 *  rule. TESSERA_ERR_INVALID_ARGUMENT for an extrapolation (not defined beyond a box's corner), the
 *  rule unchanged. */
tessera_status tessera_array_set_hole_boundary(tessera_array array, tessera_boundary rule, tessera_type type,
                                               const void* value);

/** Collective: fills every ghost layer from the owners of those indices, then applies the
 *  boundary rules (tessera_array_set_boundary). */
tessera_status tessera_array_update_ghosts(tessera_array array);
/** Collective: starts a ghost update; owned elements other ranks do not mirror may be written
 *  until tessera_array_end_update_ghosts. TESSERA_ERR_CALL_ORDER if one is in flight. */
tessera_status tessera_array_begin_update_ghosts(tessera_array array);
/** Collective: completes it. TESSERA_ERR_CALL_ORDER if none was begun. */
tessera_status tessera_array_end_update_ghosts(tessera_array array);
/** Collective: combines every ghost element into the element it mirrors with `op`. */
tessera_status tessera_array_accumulate_ghosts(tessera_array array, tessera_op op);

/** Collective: sets every owned element from `data`, the whole domain box in row-major order,
 *  read on `root` only (`count` must be the box's volume there; other ranks may pass NULL, 0). */
tessera_status tessera_array_scatter_from(tessera_array array, int root, tessera_type type, const void* data,
                                          int64_t count);
/** Collective: the whole array in row-major order into `out` on `root` (`capacity` >= volume
 *  there; ignored elsewhere). Written straight into `out`, no temporary copy; a `capacity` below
 *  the volume (or a NULL `out`) on root is TESSERA_ERR_INVALID_ARGUMENT on every rank. */
tessera_status tessera_array_gather_to(tessera_array array, int root, tessera_type type, void* out, int64_t capacity);
/** Collective: the whole array on every rank. */
tessera_status tessera_array_gather_to_all(tessera_array array, tessera_type type, void* out, int64_t capacity);

/** Collective: `op` (ADD, MULTIPLY, MIN, MAX) folded over every element into `*result`, the same
 *  bits on every rank. MIN and MAX are not defined for complex numbers. */
tessera_status tessera_array_reduce(tessera_array array, tessera_op op, tessera_type type, void* result);
/** Collective: the smallest (largest) element and the lexicographically smallest point holding it
 *  (`at` gets ndim entries; may be NULL). */
tessera_status tessera_array_min_loc(tessera_array array, tessera_type type, void* value, int64_t* at);
tessera_status tessera_array_max_loc(tessera_array array, tessera_type type, void* value, int64_t* at);
/** Collective: ZPL's partial reduction along `axis`: one result per point of the box with that
 *  axis removed, row-major, into `out` (`capacity` >= their number; 1 when ndim == 1). */
tessera_status tessera_array_reduce_along(tessera_array array, int axis, tessera_op op, tessera_type type, void* out,
                                          int64_t capacity);
/** Collective: ZPL's scan `op||` of `in` into `out` (the same element type and distribution; may be
 *  `in` itself): over the whole array in row-major order of the box (`axis` = -1), or along
 *  dimension `axis`, every line on its own; inclusive, or exclusive (`exclusive` != 0: element i
 *  gets the fold of the elements before it, the identity first). `op` is ADD, MULTIPLY (wrapping on
 *  integers), MIN or MAX. Integer and min/max scans equal a serial scan for every distribution;
 *  the order of a floating-point sum is in docs/concepts.md ("Scans and partial reductions"). */
tessera_status tessera_array_scan(tessera_array in, int axis, int exclusive, tessera_op op, tessera_array out);
/** Collective: ZPL's partial reduction `op<<` into a distributed array: dst(q) = the fold by `op`
 *  (ADD, MULTIPLY, MIN or MAX) of the src points that equal q off the `count` axes in `axes`. `dst`
 *  is over the reduced box (see tessera_dist_reduced), distributed in any way, flooded too (then
 *  every replica gets the same bits); same type as src. Ghosts of dst are not touched. */
tessera_status tessera_reduce_into(tessera_array src, const int* axes, size_t count, tessera_op op,
                                   tessera_array dst);
/** Frees the handle (TESSERA_ERR_CALL_ORDER, and nothing freed, while a ghost update is in flight). */
tessera_status tessera_array_free(tessera_array* array);

/* ------------------------------------------------------------------------------------------ */
/* Remaps: collective over the communicator of the arrays (which must be the same tessera_comm)  */
/* ------------------------------------------------------------------------------------------ */

/** dst = src for two arrays of one type over the same box, any distributions. */
tessera_status tessera_copy(tessera_array src, tessera_array dst);
/** dst[box at dst_lo] = src[src_box] (ZPL's shifted and zoom copies); src may be dst. */
tessera_status tessera_copy_section(tessera_array src, const tessera_box* src_box, tessera_array dst,
                                    const int64_t* dst_lo);
/** ZPL's flood `>>`: fills every replica of `dst`, an array with a TESSERA_DIM_FLOODED axis, from box
 *  `slice` of `src` (any distribution): dst(dst.lo + i) = src(slice.lo + i); slice has dst's extents. */
tessera_status tessera_flood(tessera_array src, const tessera_box* slice, tessera_array dst);
/** dst(q) = src(p) with destination axis d taking source axis perm[d] (perm: ndim entries). */
tessera_status tessera_transpose(tessera_array src, tessera_array dst, const int* perm);
/** dst(i) = src(index(i)): `index` is a TESSERA_INDEX array with dst's distribution. */
tessera_status tessera_gather(tessera_array src, tessera_array index, tessera_array dst);
/** dst(index(i)) = op(dst(index(i)), values(i)): `index` a TESSERA_INDEX array with values' distribution. */
tessera_status tessera_scatter(tessera_array values, tessera_array index, tessera_array dst, tessera_op op);

/** A copy schedule from `src` to `dst` (PARTI's Regular_Section_Move_Sched), built once and
 *  executed many times. Collective in order: every rank builds its schedules in the same order. */
tessera_status tessera_schedule_copy(tessera_array src, tessera_array dst, tessera_schedule* out);
/** A transpose schedule (AMP's Compute_Transpose_Sched); perm as in tessera_transpose. */
tessera_status tessera_schedule_transpose(tessera_array src, tessera_array dst, const int* perm, tessera_schedule* out);
/** Collective (PARTI's Data_Move): runs the schedule on the arrays it was built for.
 *  TESSERA_ERR_CALL_ORDER if either array was redistributed since: build a new schedule. */
tessera_status tessera_schedule_execute(tessera_schedule schedule, tessera_array src, tessera_array dst);
tessera_status tessera_schedule_free(tessera_schedule* schedule);

/* ------------------------------------------------------------------------------------------ */
/* Incremental redistribution (D3-ARC section III)                                              */
/* ------------------------------------------------------------------------------------------ */

/** D3-ARC formula (1) (d3_norm): w[i] = lb + (ub - lb)(max t - t[i]) / (max t - min t). */
tessera_status tessera_weights_d3arc(const double* times, size_t count, double lb, double ub, double* weights);
/** weights[i] = 1 / times[i]. */
tessera_status tessera_weights_inverse_time(const double* times, size_t count, double* weights);
/** weights[i] = work[i] / times[i]: each rank's measured speed. */
tessera_status tessera_weights_throughput(const double* times, const double* work, size_t count, double* weights);
/** The cut distribution with shares in proportion to `weights` (one per grid position), over the
 *  same box, grid and order as `dist`. */
tessera_status tessera_cut_target(tessera_dist dist, const double* weights, size_t count, tessera_dist* out);

/** What a planned step moves. */
typedef struct tessera_step_info {
  double delta;     /**< the fraction asked for */
  int64_t elements; /**< elements that change owner (per array) */
  int64_t blocks;   /**< the same in logical blocks, rounded up (D3-ARC's nb) */
  uint64_t bytes;   /**< bytes that travel, every array of the domain together */
} tessera_step_info;

/** D3-ARC d3_new_dist: every boundary moved a fraction `delta` in [0, 1] of the way from the
 *  domain's distribution to `target`. Not collective; nothing moves yet. */
tessera_status tessera_step_plan(tessera_domain domain, tessera_dist target, double delta, tessera_step* out);
tessera_status tessera_step_info_get(tessera_step step, tessera_step_info* info);
/** A new handle to the distribution the step leads to. */
tessera_status tessera_step_destination(tessera_step step, tessera_dist* out);
/** Collective (D3-ARC d3_migrate): moves every array of `domain` as the step says.
 *  TESSERA_ERR_CALL_ORDER if the domain moved since the step was planned. */
tessera_status tessera_step_migrate(tessera_domain domain, tessera_step step, double* seconds);
tessera_status tessera_step_free(tessera_step* step);

/* ------------------------------------------------------------------------------------------ */
/* The balancer: a policy run at remap points; processor-set changes                            */
/* ------------------------------------------------------------------------------------------ */

typedef enum tessera_policy_kind {
  TESSERA_POLICY_NONE = 0,           /**< never moves */
  TESSERA_POLICY_STATIC = 1,         /**< delta whenever the imbalance exceeds tolerance */
  TESSERA_POLICY_D3ARC_ADAPTIVE = 2, /**< D3-ARC's adaptive delta: initial delta, tolerance, min_delta */
  TESSERA_POLICY_AMORTISED = 3,      /**< AMP: delta if paid back within payback_limit iterations */
  TESSERA_POLICY_HORIZON = 4         /**< tessera's: best expected saving over the load's horizon */,
  /* Not values: they make the enum span every int, so that C++ reads any int a C caller passes
     without undefined behaviour, and the library can reject it with an error. */
  TESSERA_POLICY_KIND_MIN_ENUM_ = -0x7FFFFFFF - 1,
  TESSERA_POLICY_KIND_MAX_ENUM_ = 0x7FFFFFFF
} tessera_policy_kind;

/** A policy and its parameters; tessera_policy_defaults fills the defaults of a kind. */
typedef struct tessera_policy {
  tessera_policy_kind kind;
  double delta;         /**< STATIC, AMORTISED: the fraction; D3ARC_ADAPTIVE: the initial one */
  double tolerance;     /**< imbalance (slowest / mean - 1) below which nothing moves */
  double min_delta;     /**< D3ARC_ADAPTIVE: below this nothing moves */
  double payback_limit; /**< AMORTISED: iterations */
} tessera_policy;
tessera_status tessera_policy_defaults(tessera_policy_kind kind, tessera_policy* policy);

typedef enum tessera_weight_rule {
  TESSERA_WEIGHTS_THROUGHPUT = 0,
  TESSERA_WEIGHTS_INVERSE_TIME = 1,
  TESSERA_WEIGHTS_D3ARC = 2,
  /* Not values: they make the enum span every int, so that C++ reads any int a C caller passes
     without undefined behaviour, and the library can reject it with an error. */
  TESSERA_WEIGHT_RULE_MIN_ENUM_ = -0x7FFFFFFF - 1,
  TESSERA_WEIGHT_RULE_MAX_ENUM_ = 0x7FFFFFFF
} tessera_weight_rule;

typedef struct tessera_balancer_options {
  int interval;                /**< iterations between remap points (default 5) */
  tessera_weight_rule weights; /**< default TESSERA_WEIGHTS_THROUGHPUT */
  double lb, ub;               /**< bounds of the D3-ARC rule (default 1, 1.5) */
} tessera_balancer_options;
tessera_status tessera_balancer_options_defaults(tessera_balancer_options* options);

/** What one step did (every field the same on every rank but compute_seconds). */
typedef struct tessera_balance_step {
  int iteration;
  int remap_point;
  double compute_seconds;
  double coordination_seconds;
  double migration_seconds;
  double imbalance;
  double delta;
  int64_t elements;
  int64_t blocks;
  uint64_t bytes;
  int processor_set_changed;
  int active_ranks;
} tessera_balance_step;

/** What an availability callback sees on one rank at a remap point. */
typedef struct tessera_availability_context {
  int rank;
  int iteration;
  int active;
  double relative_speed; /**< measured speed / median active speed (NaN for a skeleton) */
  int remap_points_inactive;
} tessera_availability_context;
/** Returns non-zero if the rank may hold data from now on. */
typedef int (*tessera_availability_fn)(const tessera_availability_context* context, void* user_data);

/** A balancer for every array over `domain`; `options` may be NULL (defaults). */
tessera_status tessera_balancer_create(tessera_domain domain, const tessera_policy* policy,
                                       const tessera_balancer_options* options, tessera_balancer* out);
/** Starts the balancer's timer (TESSERA_ERR_CALL_ORDER if it runs). */
tessera_status tessera_balancer_timer_start(tessera_balancer balancer);
/** Stops it (TESSERA_ERR_CALL_ORDER if it does not run). */
tessera_status tessera_balancer_timer_stop(tessera_balancer balancer);
/** Collective, once per iteration: the timer's seconds since the last step are this iteration's
 *  figure. `out` may be NULL. TESSERA_ERR_CALL_ORDER while the timer runs. */
tessera_status tessera_balancer_step(tessera_balancer balancer, tessera_balance_step* out);
/** Collective, once per iteration, with this rank's own figure. */
tessera_status tessera_balancer_step_seconds(tessera_balancer balancer, double seconds, tessera_balance_step* out);
/** Collective (AMP's remap to a new processor set): `ranks[0..count)` hold data from now on. */
tessera_status tessera_balancer_set_active_ranks(tessera_balancer balancer, const int* ranks, size_t count,
                                                 double* seconds);
/** Asks `fn` on every rank at every remap point whether the rank may hold data (NULL: all may). */
tessera_status tessera_balancer_set_availability(tessera_balancer balancer, tessera_availability_fn fn,
                                                 void* user_data);
/** A rank is withdrawn while the file `pattern` ("{rank}" replaced by its rank) exists. */
tessera_status tessera_balancer_set_availability_file(tessera_balancer balancer, const char* pattern);
/** A rank `factor` times slower than the median is withdrawn, offered again after `retry_after`. */
tessera_status tessera_balancer_set_slowdown_threshold(tessera_balancer balancer, double factor, int retry_after);
tessera_status tessera_balancer_free(tessera_balancer* balancer);

/** How a box balancer decides (C++ tessera::BoxBalancerOptions). */
typedef struct tessera_box_balancer_options {
  int interval;                  /**< iterations between remap points (default 5) */
  tessera_box_assignment target; /**< where steps move toward: TESSERA_ASSIGN_KNAPSACK (default) or _MORTON */
  int relabel;                   /**< non-zero (default): the target relabeled for locality first */
  uint64_t max_bytes_per_step;   /**< byte budget of a remap point: the boxes of best gain per byte
                                      that fit move, whatever delta the policy decides; 0 (default): none */
} tessera_box_balancer_options;
tessera_status tessera_box_balancer_options_defaults(tessera_box_balancer_options* options);
/** A balancer for every array over `domain`, whose distribution must be a box set
 *  (tessera_dist_from_boxes; INVALID_ARGUMENT otherwise): each rank times its boxes with the timers
 *  of its patches; every `interval` steps the box times are summed (one allreduce), a target is made
 *  from them, the policy chooses delta and whole boxes move (docs/box-sets.md). `options` may be NULL. */
tessera_status tessera_box_balancer_create(tessera_domain domain, const tessera_policy* policy,
                                           const tessera_box_balancer_options* options, tessera_box_balancer* out);
/** Starts (stops) the timer of this rank's patch `patch` (OUT_OF_RANGE for a patch it does not hold;
 *  CALL_ORDER if the timer runs already (does not run)). */
tessera_status tessera_box_balancer_timer_start(tessera_box_balancer balancer, size_t patch);
tessera_status tessera_box_balancer_timer_stop(tessera_box_balancer balancer, size_t patch);
/** Adds `seconds` (>= 0) measured some other way to patch `patch`'s timer. */
tessera_status tessera_box_balancer_timer_add(tessera_box_balancer balancer, size_t patch, double seconds);
/** The box (index into tessera_dist_box_set's list) that this rank's patch `patch` stores. */
tessera_status tessera_box_balancer_box_of_patch(tessera_box_balancer balancer, size_t patch, size_t* box);
/** Collective, once per iteration; at remap points decides and moves boxes. `out` may be NULL.
 *  INVALID_ARGUMENT on every rank, nothing moved, if a timer of some rank runs at a remap point. */
tessera_status tessera_box_balancer_step(tessera_box_balancer balancer, tessera_balance_step* out);
tessera_status tessera_box_balancer_free(tessera_box_balancer* balancer);

/* ------------------------------------------------------------------------------------------ */
/* Multiblock domains (Multiblock PARTI): blocks, each its own index space and distribution,    */
/* glued at faces with orientations (docs/box-sets.md, "Multiblock")                            */
/* ------------------------------------------------------------------------------------------ */

typedef struct tessera_multiblock_s* tessera_multiblock; /**< blocks glued at faces, on a communicator */
typedef struct tessera_multiblock_array_s* tessera_multiblock_array; /**< values over every block, with ghosts */

/** A face of a block, or a part of it (C++ tessera::BlockFace). */
typedef struct tessera_block_face {
  int block;        /**< the block's index in the list given to tessera_multiblock_create */
  int axis;         /**< the face's normal axis */
  int upper;        /**< non-zero: the face at the block's upper end of `axis`; 0: the lower end */
  tessera_box cells; /**< the block's cells along the face, one thick along `axis`; an empty box (a
                          zero-initialised one): the whole face */
} tessera_block_face;

/** Face `a` glued to face `b`: crossing a's face outwards enters b inwards. The orientation maps
 *  offsets in b's index space onto a's: axis d of a runs along axis perm[d] of b, reversed where
 *  flip[d] != 0 (8 orientations in 2-D, 48 in 3-D). perm all zero (a zero-initialised interface)
 *  means the identity. A block glued to itself (its upper face of axis d to its lower face,
 *  identity) is periodic along d. */
typedef struct tessera_block_interface {
  tessera_block_face a;
  tessera_block_face b;
  int perm[TESSERA_MAX_DIM];
  int flip[TESSERA_MAX_DIM];
} tessera_block_interface;

/** A regular section of one block (PARTI's section moves): every stride[d]-th index of `box` along
 *  each axis, from box.lo; a stride of 0 counts as 1 (a zero-initialised stride: every index). */
typedef struct tessera_block_section {
  int block;
  tessera_box box;
  int64_t stride[TESSERA_MAX_DIM];
} tessera_block_section;

/** A multiblock domain on the ranks of `comm`: block b is `blocks[b]` (any distribution for comm's
 *  size, over the block's own index space: block, cut, cyclic, a box set with holes, a processor
 *  subset), glued by `interfaces[0..interface_count)`; arrays over it may have ghosts up to
 *  `max_ghost_width` wide (the blocks are embedded side by side with that gap). Not collective,
 *  but every rank passes the same arguments. INVALID_ARGUMENT for no block, blocks of different
 *  dimensions or rank counts, a face that is not on its block's boundary, faces of different sizes,
 *  an orientation that is not a permutation or does not send b's face normal onto a's, two
 *  interfaces sharing a face cell, a negative width; OUT_OF_RANGE for a block index out of range. */
tessera_status tessera_multiblock_create(tessera_comm comm, const tessera_dist* blocks, size_t block_count,
                                         const tessera_block_interface* interfaces, size_t interface_count,
                                         int64_t max_ghost_width, tessera_multiblock* out);
tessera_status tessera_multiblock_ndim(tessera_multiblock multiblock, int* ndim);
tessera_status tessera_multiblock_block_count(tessera_multiblock multiblock, size_t* count);
/** Block `block`'s index space. */
tessera_status tessera_multiblock_block_box(tessera_multiblock multiblock, size_t block, tessera_box* box);
/** A new handle to block `block`'s current distribution. */
tessera_status tessera_multiblock_block_dist(tessera_multiblock multiblock, size_t block, tessera_dist* out);
/** Collective: gives every block a new distribution (`blocks[b]` over the same box as block b), the
 *  interfaces kept; every array over the domain keeps its values where both layouts hold a cell
 *  (cells only the new one holds are 0; ghosts need an update). INVALID_ARGUMENT on every rank,
 *  nothing changed, for another number of blocks, a block over another box or a ghost update in flight. */
tessera_status tessera_multiblock_redistribute(tessera_multiblock multiblock, const tessera_dist* blocks,
                                               size_t block_count);
tessera_status tessera_multiblock_free(tessera_multiblock* multiblock);

/** An array of `type` over every block of `multiblock`, zero everywhere; `ghosts` (may be NULL:
 *  none) not periodic (a block is periodic by an interface with itself) and at most the domain's
 *  max_ghost_width wide, else INVALID_ARGUMENT. Arrays must be created in the same order on every rank. */
tessera_status tessera_multiblock_array_create(tessera_multiblock multiblock, tessera_type type,
                                               const tessera_ghosts* ghosts, tessera_multiblock_array* out);
/** Patches this rank stores: one per box it holds in any block. */
tessera_status tessera_multiblock_array_patch_count(tessera_multiblock_array array, size_t* count);
/** A view of patch `patch` (see tessera_view) in the block's own coordinates (`first`), and the block
 *  it belongs to (`block` may be NULL). Valid until the domain is redistributed. */
tessera_status tessera_multiblock_array_local(tessera_multiblock_array array, size_t patch, tessera_type type,
                                              size_t* block, tessera_view* view);
/** The element at `point` of block `block`, which this rank must store (owned or ghost). */
tessera_status tessera_multiblock_array_get(tessera_multiblock_array array, size_t block, const int64_t* point,
                                            tessera_type type, void* value);
tessera_status tessera_multiblock_array_set(tessera_multiblock_array array, size_t block, const int64_t* point,
                                            tessera_type type, const void* value);
/** Collective: fills every ghost: each block's from its own cells, across interfaces from the glued
 *  block with the orientation applied (one cached schedule). */
tessera_status tessera_multiblock_array_update_ghosts(tessera_multiblock_array array);
/** Collective: starts (completes) tessera_multiblock_array_update_ghosts around interior work;
 *  between them ghosts must not be touched. CALL_ORDER: begin with an update in flight, end without. */
tessera_status tessera_multiblock_array_begin_update_ghosts(tessera_multiblock_array array);
tessera_status tessera_multiblock_array_end_update_ghosts(tessera_multiblock_array array);
/** Collective: every ghost an update fills is combined with `op` into the cell it mirrors, across
 *  interfaces through the inverse orientation (fluxes or deposits crossing a block face). */
tessera_status tessera_multiblock_array_accumulate_ghosts(tessera_multiblock_array array, tessera_op op);
/** Collective: `op` (ADD, MULTIPLY, MIN, MAX) over every cell of every block into `*result`, the same
 *  bits on every rank. */
tessera_status tessera_multiblock_array_reduce(tessera_multiblock_array array, tessera_op op, tessera_type type,
                                               void* result);
/** Collective: block `block` of the array in row-major order of its box into `out` on `root`
 *  (`capacity` >= the block's volume there; ignored elsewhere; holes of a box-set block are 0), or on
 *  every rank for `root` = -1. */
tessera_status tessera_multiblock_array_gather_block(tessera_multiblock_array array, size_t block, int root,
                                                     tessera_type type, void* out, int64_t capacity);
/** Collective: PARTI's regular section move: section `from` of `src` onto section `to` of `dst` (the
 *  same array or another over the same domain and of the same type), point numbers laid on by the
 *  orientation `perm`/`flip` (ndim entries each, NULL: the identity); ghosts untouched; one cached
 *  schedule. MISMATCH for arrays over different domains; INVALID_ARGUMENT / OUT_OF_RANGE for a bad
 *  section or point counts that do not agree; nothing moved. */
tessera_status tessera_multiblock_copy_section(tessera_multiblock_array src, const tessera_block_section* from,
                                               tessera_multiblock_array dst, const tessera_block_section* to,
                                               const int* perm, const int* flip);
tessera_status tessera_multiblock_array_free(tessera_multiblock_array* array);

/* ------------------------------------------------------------------------------------------ */
/* Emulated load (tests and demos) and checkpoints                                              */
/* ------------------------------------------------------------------------------------------ */

/** Parses "RANK:FACTOR@FIRST-LAST,..." ("" or "none": no load). */
tessera_status tessera_load_parse(const char* text, tessera_load* out);
tessera_status tessera_load_factor(tessera_load load, int rank, int iteration, double* factor);
/** Sleeps (factor - 1) x section_seconds; `*extra` (may be NULL) = the seconds it meant to add. */
tessera_status tessera_load_slow_down(tessera_load load, int rank, int iteration, double section_seconds,
                                      double* extra);
tessera_status tessera_load_free(tessera_load* load);

/* ------------------------------------------------------------------------------------------ */
/* ScaLAPACK (docs/scalapack.md): pure, nothing here calls or links BLACS or ScaLAPACK          */
/* ------------------------------------------------------------------------------------------ */

/** ScaLAPACK's descriptor of this rank's part of a 2-D `array` for the BLACS context `context`
 *  (-1 off the BLACS grid): desc = {1, context, M, N, MB, NB, RSRC, CSRC, LLD}, as descinit_ would
 *  fill it; `local_rows` / `local_cols` (may be NULL) get this rank's LOCr(M) / LOCc(N).
 *  `transposed` = 0: the array must be column-major and is the matrix (rows along dimension 0).
 *  `transposed` != 0: the array must be row-major and ScaLAPACK sees its transpose (rows along
 *  dimension 1) on the transposed grid (the "transpose trick"; Fortran's index order). Either way
 *  it must have no ghosts and be block-cyclic (or an equal block split) along both axes: otherwise
 *  TESSERA_ERR_INVALID_ARGUMENT naming what is wrong, and `desc` is not written. */
tessera_status tessera_scalapack_descriptor(tessera_array array, int context, int transposed, int desc[9],
                                            int* local_rows, int* local_cols);
/** The process map that makes a BLACS grid agree with the 2-D array's processor grid: map[r + c *
 *  rows] = the rank at BLACS position (r, c), which is grid position (r, c), or (c, r) when
 *  `transposed` != 0 (as in tessera_scalapack_descriptor); `*rows` x `*cols` entries
 *  (TESSERA_ERR_INVALID_ARGUMENT if `capacity` is smaller). Pass it to Cblacs_gridmap(&context, map,
 *  rows, rows, cols) on a system context of the array's communicator (Csys2blacs_handle). */
tessera_status tessera_blacs_process_map(tessera_array array, int transposed, int* map, size_t capacity, int* rows,
                                         int* cols);

/* ------------------------------------------------------------------------------------------ */
/* Regions, sparse subdomains and associative domains (ZPL regions, Chapel; docs/c-api.md)      */
/* ------------------------------------------------------------------------------------------ */

typedef struct tessera_sparse_s* tessera_sparse;             /**< a sparse set of indices of a domain */
typedef struct tessera_sparse_array_s* tessera_sparse_array; /**< one value per index of a tessera_sparse */
typedef struct tessera_assoc_s* tessera_assoc;               /**< an associative domain of int64_t keys */
typedef struct tessera_assoc_array_s* tessera_assoc_array;   /**< one value per key of a tessera_assoc */

/** Not collective (declare alike on every rank): a domain over `box`, a sub-box of `domain`'s box,
 *  aligned with its distribution (every index keeps its owner; copies between arrays over the two
 *  move nothing between ranks). It follows `domain`'s redistributions and refuses its own. */
tessera_status tessera_domain_region(tessera_domain domain, const tessera_box* box, tessera_domain* out);
/** *is_region = 1 for a domain made by tessera_domain_region, else 0. */
tessera_status tessera_domain_is_region(tessera_domain domain, int* is_region);

/** An empty sparse subdomain of `parent` (not collective; declare alike on every rank). A parent
 *  with a flooded axis is TESSERA_ERR_INVALID_ARGUMENT. It follows the parent's redistributions. */
tessera_status tessera_sparse_create(tessera_domain parent, tessera_sparse* out);
/** Collective: adds this rank's `count` points (any indices of the parent's box, repeats allowed);
 *  an index outside the box or in a hole is TESSERA_ERR_OUT_OF_RANGE on every rank, nothing changed. */
tessera_status tessera_sparse_add(tessera_sparse sparse, const tessera_index* points, size_t count);
/** Collective: removes this rank's `count` points (absent ones ignored); errors as tessera_sparse_add. */
tessera_status tessera_sparse_remove(tessera_sparse sparse, const tessera_index* points, size_t count);
/** Collective: held[k] = 1 if points[k] is in the set, else 0. */
tessera_status tessera_sparse_contains(tessera_sparse sparse, const tessera_index* points, size_t count,
                                       uint8_t* held);
/** Collective: the number of indices on all ranks. */
tessera_status tessera_sparse_size(tessera_sparse sparse, int64_t* size);
/** This rank's indices in local order (the order of tessera_sparse_array_values); *count = how many
 *  (call with capacity 0 to ask); fewer than *count written is TESSERA_ERR_OUT_OF_RANGE. */
tessera_status tessera_sparse_local_points(tessera_sparse sparse, tessera_index* points, size_t capacity,
                                           size_t* count);
tessera_status tessera_sparse_free(tessera_sparse* sparse);

/** A sparse array of TESSERA_FLOAT, DOUBLE, INT32 or INT64 over `sparse`, every value 0 (not
 *  collective; declare alike on every rank). Values follow their indices when the set changes. */
tessera_status tessera_sparse_array_create(tessera_sparse sparse, tessera_type type, tessera_sparse_array* out);
/** This rank's values in local order: *values points into the array until the set changes. */
tessera_status tessera_sparse_array_values(tessera_sparse_array array, tessera_type type, void** values,
                                           size_t* count);
/** Collective: fetches the neighbours' values the dense ghost spec `ghosts` names (corners: every
 *  index within the box of those widths; faces_only: the star; periodic: wraps around the parent's
 *  box). Then tessera_sparse_array_find reads them. A negative width is TESSERA_ERR_INVALID_ARGUMENT. */
tessera_status tessera_sparse_array_update_ghosts(tessera_sparse_array array, const tessera_ghosts* ghosts);
/** Collective: the same for an explicit stencil of `count` offsets; `periodic` (ndim flags) may be NULL. */
tessera_status tessera_sparse_array_update_offsets(tessera_sparse_array array, const tessera_index* offsets,
                                                   size_t count, const int* periodic);
/** Not collective: *found = 1 and *value = the value of `point` if this rank holds or fetched it
 *  (wrapped as the last ghost update wrapped), else *found = 0 and *value untouched. */
tessera_status tessera_sparse_array_find(tessera_sparse_array array, tessera_type type, const tessera_index* point,
                                         void* value, int* found);
/** Collective: the ADD (wrapping for integers), MULTIPLY, MIN or MAX of every value, folded per rank
 *  in local order and then in rank order (the same bits on every rank). An empty set gives the
 *  fold's identity (0, 1, the type's largest or smallest value, infinities for floating point). */
tessera_status tessera_sparse_array_reduce(tessera_sparse_array array, tessera_op op, tessera_type type,
                                           void* result);
/** Collective: every index (sorted row-major) and value on `root`; *count = how many there (0
 *  elsewhere). A capacity below it is TESSERA_ERR_OUT_OF_RANGE on `root`, nothing written. */
tessera_status tessera_sparse_array_gather_to(tessera_sparse_array array, int root, tessera_type type,
                                              tessera_index* points, void* values, size_t capacity, size_t* count);
tessera_status tessera_sparse_array_free(tessera_sparse_array* array);

/** An empty associative domain of int64_t keys over `comm`, each key on the rank its stable hash
 *  names (not collective; declare alike on every rank). */
tessera_status tessera_assoc_create(tessera_comm comm, tessera_assoc* out);
/** Collective: adds this rank's `count` keys (repeats and present keys allowed), one message per peer. */
tessera_status tessera_assoc_insert(tessera_assoc assoc, const int64_t* keys, size_t count);
/** Collective: removes this rank's keys (absent ones ignored) with their values. */
tessera_status tessera_assoc_remove(tessera_assoc assoc, const int64_t* keys, size_t count);
/** Collective: held[k] = 1 if keys[k] is in the domain, else 0. */
tessera_status tessera_assoc_contains(tessera_assoc assoc, const int64_t* keys, size_t count, uint8_t* held);
/** Collective: the number of keys on all ranks. */
tessera_status tessera_assoc_size(tessera_assoc assoc, int64_t* size);
/** This rank's keys in slot order (the order of tessera_assoc_array_values); *count as in
 *  tessera_sparse_local_points. */
tessera_status tessera_assoc_local_keys(tessera_assoc assoc, int64_t* keys, size_t capacity, size_t* count);
tessera_status tessera_assoc_free(tessera_assoc* assoc);

/** An array of TESSERA_FLOAT, DOUBLE, INT32 or INT64 over `assoc`, every value 0. */
tessera_status tessera_assoc_array_create(tessera_assoc assoc, tessera_type type, tessera_assoc_array* out);
/** This rank's values in slot order: *values points into the array until the domain changes. */
tessera_status tessera_assoc_array_values(tessera_assoc_array array, tessera_type type, void** values,
                                          size_t* count);
/** Collective: value(keys[k]) = op(value, values[k]) for this rank's batch (REPLACE, ADD, MULTIPLY,
 *  MIN, MAX), in a fixed order. A key not in the domain: inserted with its first value if
 *  insert_missing, else TESSERA_ERR_OUT_OF_RANGE on every rank with nothing changed. */
tessera_status tessera_assoc_array_update(tessera_assoc_array array, tessera_type type, const int64_t* keys,
                                          const void* values, size_t count, tessera_op op, int insert_missing);
/** Collective: values[k] = the value of keys[k]; a missing key is TESSERA_ERR_OUT_OF_RANGE on every rank. */
tessera_status tessera_assoc_array_lookup(tessera_assoc_array array, tessera_type type, const int64_t* keys,
                                          size_t count, void* values);
/** Collective: as tessera_sparse_array_reduce, values folded per rank in slot order. */
tessera_status tessera_assoc_array_reduce(tessera_assoc_array array, tessera_op op, tessera_type type, void* result);
tessera_status tessera_assoc_array_free(tessera_assoc_array* array);

/* ------------------------------------------------------------------------------------------ */
/* Disjoint processor groups (ZPL's disjoint grids; docs/c-api.md)                              */
/* ------------------------------------------------------------------------------------------ */

typedef struct tessera_groups_s* tessera_groups; /**< disjoint groups of a communicator's ranks */

/** Collective over `parent`: splits it into `count` groups, each with a communicator of its own.
 *  Group g holds `sizes[g]` parent ranks; `ranks` lists group 0's, then group 1's, ...; group rank
 *  i of a group is the i-th rank of its list. Every rank passes the same lists; an empty group, a
 *  rank outside the parent or in two groups, or lists that differ between the ranks are
 *  TESSERA_ERR_INVALID_ARGUMENT on every rank, with nothing made. */
tessera_status tessera_groups_create(tessera_comm parent, const int* ranks, const int* sizes, int count,
                                     tessera_groups* out);
tessera_status tessera_groups_count(tessera_groups groups, int* count);
/** The parent ranks of `group` into `ranks` (group rank order); *size = how many (call with
 *  capacity 0 to ask). A group that does not exist is TESSERA_ERR_OUT_OF_RANGE. */
tessera_status tessera_groups_ranks(tessera_groups groups, int group, int* ranks, size_t capacity, size_t* size);
/** *group = the group holding parent rank `parent_rank`, or -1 if none does. */
tessera_status tessera_groups_group_of(tessera_groups groups, int parent_rank, int* group);
/** *group = this rank's group, or -1 if it is in none. */
tessera_status tessera_groups_my_group(tessera_groups groups, int* group);
/** Collective over this rank's group: a tessera_comm over the group (tessera's duplicate of the
 *  group's communicator) for domains whose collectives involve the group only; free it with
 *  tessera_comm_free. On a rank in no group: TESSERA_ERR_INVALID_ARGUMENT. */
tessera_status tessera_groups_comm(tessera_groups groups, tessera_comm* out);
/** Frees the handle; the groups' communicators go once no handle uses them (call on every rank). */
tessera_status tessera_groups_free(tessera_groups* groups);

/** Collective over the groups' parent (every parent rank calls it, ranks in neither group too):
 *  dst := src, two arrays of `type` over the same box on two different groups. `from` and `to`
 *  are the distributions (each for its group's number of ranks), passed alike by every rank; `src`
 *  is the source array on the ranks of `from_group` and NULL on every other rank, `dst` likewise.
 *  Fails on every rank before anything moves: TESSERA_ERR_INVALID_ARGUMENT for a group that does
 *  not exist, the same group twice, a distribution for another number of ranks than its group,
 *  an array missing or passed outside its group, over another distribution than named, and for a
 *  bad array handle or an array of another type or dimension than named on any rank (the message
 *  of the lowest such rank); TESSERA_ERR_MISMATCH for distributions of different dimensions. */
tessera_status tessera_copy_between_groups(tessera_groups groups, tessera_type type, int from_group, tessera_dist from,
                                           tessera_array src, int to_group, tessera_dist to, tessera_array dst);
/** As tessera_copy_between_groups, for box `src_box` of the source onto the box of equal extents at
 *  `dst_lo` in the destination (ZPL's B[R2] := A[R1] across grids); TESSERA_ERR_OUT_OF_RANGE if a
 *  box is not inside its domain. */
tessera_status tessera_copy_section_between_groups(tessera_groups groups, tessera_type type, int from_group,
                                                   tessera_dist from, tessera_array src, const tessera_box* src_box,
                                                   int to_group, tessera_dist to, tessera_array dst,
                                                   const int64_t* dst_lo);

/** Collective: writes `array` as dataset `name` of the HDF5 file `path` (replaced atomically). */
tessera_status tessera_checkpoint_save(const char* path, tessera_array array, const char* name);
/** Collective: sets every owned element of `array` from dataset `name` of `path`, whatever the
 *  distribution and number of ranks that saved it (TESSERA_ERR_IO, TESSERA_ERR_MISMATCH). The
 *  dataset's checksum is verified: a damaged or truncated file is TESSERA_ERR_IO. */
tessera_status tessera_checkpoint_load(const char* path, tessera_array array, const char* name);
/** Collective over `comm`: the box table of checkpoint `path`, saved from an array over a box-set
 *  distribution (tessera_dist_from_boxes), for a restart: `*ndim` its dimensions, `*domain` the
 *  domain's box, min(count, capacity) boxes and their owners when saved (either pointer may be
 *  NULL), `*count` the number of boxes and `*ranks` the number of ranks that saved it. Pass the
 *  lists to tessera_dist_from_boxes on the same rank count, or reassign them with
 *  tessera_assign_boxes on another, then tessera_checkpoint_load each array. TESSERA_ERR_IO if the
 *  file cannot be opened or read; TESSERA_ERR_MISMATCH if it holds no box table (saved from
 *  another kind of distribution) or one of more than 3 dimensions; on every rank. */
tessera_status tessera_checkpoint_saved_boxes(tessera_comm comm, const char* path, int* ndim, tessera_box* domain,
                                              tessera_box* boxes, int* owners, size_t capacity, size_t* count,
                                              int* ranks);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_H */
