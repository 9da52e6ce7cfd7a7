#ifndef TESSERA_D3ARC_H
#define TESSERA_D3ARC_H
/**
 * \file
 * The D3-ARC primitives (Chan & Abramson, "A Programming Framework for Incremental Data
 * Distribution in Iterative Applications", appendix), implemented on tessera's C API
 * (`<tessera.h>`). A D3-ARC program includes this header where the paper includes "darc.h":
 *
 * \code
 *   #include <tessera/d3arc.h>
 *   MPI_Init(&argc, &argv);
 *   d3_init(&argc, &argv);
 *   int w[2] = {1000, 1000}, b[2] = {1, 1}, v[4] = {1, 1, 1, 1};
 *   dist_t t[2] = {D_BLOCK, D_GENERAL};
 *   vp_t vt[4] = {VP_REL, VP_REL, VP_REL, VP_REL};
 *   int dA = d3_darray("A", 2, w, D3_FLOAT, b);
 *   d3_dist(dA, G_DEFAULT, t, NULL, weights);
 *   d3_viewport(dA, vt, v);
 *   d3_effect_dist(dA);
 *   float* A = d3_map_OR(dA, 0, NULL);
 *   int* bp = d3_get_OR_bounds(dA, 0);
 *   ...
 *   d3_update_OR(dA, 0);
 *   d3_finalize();
 *   MPI_Finalize();
 * \endcode
 *
 * Signatures follow the appendix, except where the paper's figures disagree with it: programs
 * were written after the figures, so the figures win (each place says so).
 *
 * **Errors.** As in the paper, functions return -1 (int), -1.0 (real) or NULL (pointers) on
 * failure. `d3_last_error()` (an addition) says why: the message names the argument and its value,
 * including the wrong call orders the paper forbids (d3_map_DA after d3_effect_dist, ...).
 *
 * Every process of MPI_COMM_WORLD calls d3_init, d3_darray, d3_grid, d3_dist, d3_viewport,
 * d3_effect_dist, d3_update_OR, d3_collectall, d3_new_dist, d3_migrate and d3_finalize in the same
 * order with the same arguments (Section II-A: "all processes invoke these primitives with
 * identical arguments"); of those, d3_init, d3_effect_dist, d3_update_OR (on an array with a
 * viewport), d3_collectall, d3_migrate and d3_finalize communicate. The runtime is one global
 * state: call the primitives from one thread.
 */

#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The appendix: "real is double". Define D3ARC_NO_REAL_TYPEDEF before including this header
 *  if `real` clashes with a name of the program; `d3_real` is always available. */
typedef double d3_real;
#ifndef D3ARC_NO_REAL_TYPEDEF
typedef double real;
#endif

/** Element types of d3_darray. D3_INT is a 32-bit int, D3_LONG a 64-bit long (LP64), D3_COMPLEX a
 *  double _Complex; D3_FLOAT (Fig. 2) and D3_DOUBLE ("real") are the paper's. */
typedef enum dtype_t { D3_FLOAT = 0, D3_DOUBLE = 1, D3_INT = 2, D3_LONG = 3, D3_COMPLEX = 4, DTYPE_MIN_ENUM_ = -0x7FFFFFFF - 1, DTYPE_MAX_ENUM_ = 0x7FFFFFFF } dtype_t;

/** Distribution of one dimension (appendix: {D_NONE, D_BLOCK, D_CYCLIC, D_GENERAL}).
 *  - D_NONE: not distributed (the grid has extent 1 along it);
 *  - D_BLOCK: balanced blocks of logical blocks;
 *  - D_CYCLIC: logical blocks dealt round robin (no viewport along such a dimension);
 *  - D_GENERAL: one interval per process, sized by the weights, cut per slab of the dimensions
 *    distributed before it (the paper's tree of intervals, Fig. 6). */
typedef enum dist_t { D_NONE = 0, D_BLOCK = 1, D_CYCLIC = 2, D_GENERAL = 3, DIST_MIN_ENUM_ = -0x7FFFFFFF - 1, DIST_MAX_ENUM_ = 0x7FFFFFFF } dist_t;

/** Viewport border kinds (d3_viewport). */
typedef enum vp_t {
  VP_REL = 0, /**< the width is relative: the border extends the owned region by |v| cells */
  VP_ABS = 1, /**< the width is absolute: the border lies at global index v (see d3_viewport) */
  /* Not values (nor are the *_ENUM_ entries of dtype_t and dist_t): they make each enum span every
     int, so that the C++ runtime reads any int a C caller passes without undefined behaviour and
     rejects it with an error. */
  VP_MIN_ENUM_ = -0x7FFFFFFF - 1,
  VP_MAX_ENUM_ = 0x7FFFFFFF
} vp_t;

/** A process grid (appendix: "the address of a pgrid_t structure"); opaque, owned by the runtime
 *  and released by d3_finalize. */
typedef struct pgrid_t pgrid_t;
typedef pgrid_t pg_t;

/** The default grid (Section II-A): for p processes on a 2-dimensional array, sqrt(p) x sqrt(p).
 *  Choice: a distinguished grid object, not NULL, so that a failed d3_grid (NULL) is an error
 *  instead of silently meaning the default. Its shape is tessera's automatic choice over the
 *  distributed dimensions (extent 1 along D_NONE ones): sqrt(p) x sqrt(p) when p is a square,
 *  the most balanced factorisation otherwise. */
extern pg_t d3_default_grid;
#define G_DEFAULT (&d3_default_grid)

/** Fig. 2 calls d3_init(&argc, &argv); the appendix declares d3_init(int argc, char **argv). The
 *  figure's form is kept. "Follows MPI_Init()": MPI must be initialised first (-1 otherwise);
 *  d3_init neither initialises nor finalises MPI. Calling it twice is an error. */
int d3_init(int* argc, char*** argv);

/** Declares an n-dimensional array named `a` (n = 1, 2 or 3) of extents w[0..n) and element type
 *  e, with logical blocks of b[0..n) indices (the smallest unit of migration; every boundary lies
 *  on a multiple of b[d] from 0). Choice: b == NULL means blocks of 1. Nothing is allocated.
 *  Returns the descriptor (>= 0) or -1. */
int d3_darray(const char* a, int n, int* w, dtype_t e, int* b);

/** A process grid of n dimensions and extents w[0..n). Choice: prod(w) may be less than the number
 *  of processes: processes past prod(w) then own nothing (they still call every collective
 *  primitive). Returns NULL on failure. */
pg_t* d3_grid(int n, int* w);

/** Distributes array d over grid g (G_DEFAULT or a d3_grid) with t[k] for dimension k, in the
 *  dimension order r (r[0] distributed first; NULL means 0, 1, ..., n-1). w holds one weight per
 *  grid position (row-major position order) and is read only when some t[k] is D_GENERAL; choice:
 *  w == NULL there means equal weights. Choice: calling d3_dist again after d3_effect_dist
 *  specifies a new distribution that the next d3_effect_dist puts into effect, moving the data
 *  (values are kept). Returns 0 or -1. */
int d3_dist(int d, pg_t* g, dist_t* t, int* r, real* w);

/** The viewport of array d (ghost cells the process may read): vt[2k], v[2k] describe the lower
 *  border of dimension k and vt[2k+1], v[2k+1] the upper one (2n entries each; the paper leaves the
 *  order open). VP_REL: the border extends the owned region by |v| cells; a negative v extends it
 *  by -v cells and wraps around at the edge of the array (Section II-B), so the dimension becomes
 *  periodic: both borders of a wrapped dimension must then be negative or 0. VP_ABS: v is a global
 *  index (0 <= v < w[k]) the viewport reaches (lower border: cells v .. first owned - 1; upper:
 *  last owned + 1 .. v); every process keeps the widest such border of any process, recomputed
 *  when the distribution changes. Call before d3_effect_dist (after it: -1, wrong call order).
 *  No viewport is possible along a D_CYCLIC dimension. Returns 0 or -1. */
int d3_viewport(int d, vp_t* vt, int* v);

/** Before d3_effect_dist only (afterwards: NULL, wrong call order, as Section II-D requires): maps
 *  the entire array row-major on the calling process, into buff or, for buff == NULL, into memory
 *  the runtime allocates and releases at d3_effect_dist. Typically one process maps and
 *  initialises the array; d3_effect_dist then scatters it from there (choice: if several processes
 *  mapped it, the lowest rank's copy is used). */
void* d3_map_DA(int d, void* buff);

/** After d3_effect_dist only: maps orthogonal region id (from 0; a process owns one region under
 *  block and general distributions, several under D_CYCLIC) and returns the address of its first
 *  element. Choice: the mapped region is the owned region grown by the viewport, row-major; its
 *  bounds are d3_get_OR_bounds entries 2n..4n-1, so element (i, j) of a 2-D region sits at
 *  ((i - bp[4]) * (bp[7] - bp[6] + 1) + (j - bp[6])). With buff == NULL the address is the
 *  runtime's own storage (no copy; D_CYCLIC regions get a runtime copy); with buff != NULL the
 *  region is copied into buff, and d3_update_OR copies it back. A mapping (and the pointer) is
 *  valid until the next d3_effect_dist or d3_migrate of the array: map again after those. */
void* d3_map_OR(int d, int id, void* buff);

/** The bounds of region id, inclusive, in an array of 4n ints owned by the runtime: entries 2k and
 *  2k+1 are the first and last owned index of dimension k (Fig. 2: s_i = bp[0], e_i = bp[1],
 *  s_j = bp[2], e_j = bp[3]); entries 2n+2k and 2n+2k+1 (an addition) the bounds of the mapped
 *  region, viewport included. Valid until the next d3_effect_dist or d3_migrate. NULL on failure
 *  (for example an id the process does not own: see d3_num_OR). */
int* d3_get_OR_bounds(int d, int id);

/** Puts the distribution of array d into effect (collective). If some process called d3_map_DA,
 *  the array is scattered from it; otherwise nothing moves and the elements are 0. Choice: the
 *  viewports are filled too, so that the first iteration of Fig. 2 reads valid ghost cells before
 *  its first d3_update_OR. A second call after a new d3_dist moves the data to the new
 *  distribution (values kept); a call with nothing new to put into effect does nothing. Returns
 *  the elapsed seconds (the largest over the processes) or -1.0. */
real d3_effect_dist(int d);

/** Tells the runtime that the regions of array d were updated (collective: every process calls
 *  it once per update, whatever the number of regions it owns). Every region of this process that
 *  is mapped into a copy (a user buffer, or a runtime copy of a D_CYCLIC region) is copied back —
 *  not only region id — then the ghost cells of the viewport are exchanged, for every region at
 *  once, and every mapped copy is refreshed with its new viewport. So the loop of Fig. 2 (write
 *  every region, then one d3_update_OR(d, 0)) is right for processes that own several regions.
 *  Calling it once per region instead is wrong when processes own different numbers of regions:
 *  they would make different numbers of collective calls (checked mode reports that). Choice: id
 *  must be one of this process's regions (0 always is, when it owns any); a process that owns
 *  none may pass any id (it only takes part in the exchange). Returns 0 or -1. */
int d3_update_OR(int d, int id);

/** Fig. 4 calls d3_collectall(timing, t_vect, &len); the appendix has `int len`. The figure's
 *  form is kept: on entry *len is the capacity of tv (at least the number of processes), on return
 *  the number of entries written, tv[p] being process p's t (an MPI_Allgather). Returns 0 or -1. */
int d3_collectall(real t, real* tv, int* len);

/** Fig. 4 calls d3_norm(t_vect, len, 1, 1.5); the appendix has no len. The figure's form is kept.
 *  Applies formula (1), w[i] = min + (max - min)(max{tv} - tv[i]) / (max{tv} - min{tv}), to
 *  tv[0..len) in place and returns tv (all entries min when every time is equal). Requires
 *  max > min > 0; NULL otherwise. */
real* d3_norm(real* tv, int len, real min, real max);

/** Computes a new distribution of array d (after d3_effect_dist), every interval boundary moved a
 *  fraction delta (0 <= delta <= 1) of the way towards the one weights w (one per grid position)
 *  give; *nb = the logical blocks that would move (elements changing owner divided by the
 *  elements of one logical block, rounded up). A logical block spans b[k] indices (d3_darray)
 *  along each dimension the grid divides (grid extent > 1) and the whole extent of every other
 *  dimension. So with b = {1, 1}, a block is a single element on a 2 x 2 grid but a whole row on a
 *  p x 1 grid (the paper's row-wise migration), and *nb counts rows there. Nothing moves yet.
 *  Returns a handle for
 *  d3_migrate, or -1. Choice: handles of array d are released by its next d3_migrate (they are
 *  all stale then) and by d3_finalize. Needs a distribution with no D_CYCLIC dimension. */
int d3_new_dist(int d, real* w, real delta, int* nb);

/** Applies the distribution dist_id from d3_new_dist to array d (collective), moving the data and
 *  filling the viewports, and returns the elapsed seconds (the largest over the processes) or
 *  -1.0. Mappings of d are released: call d3_map_OR and d3_get_OR_bounds again. */
real d3_migrate(int d, int dist_id);

/** Releases everything the runtime holds (arrays, grids, mappings, handles). Must be called before
 *  MPI_Finalize. Returns 0, or -1 if d3_init was not called. */
int d3_finalize(void);

/* --- additions ------------------------------------------------------------------------------ */

/** Why the last failing primitive failed on this thread ("" if none). */
const char* d3_last_error(void);
/** The number of orthogonal regions this process owns of array d (after d3_effect_dist), or -1. */
int d3_num_OR(int d);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_D3ARC_H */
