#pragma once
// The D3-ARC runtime's state (include/tessera/d3arc.h), built on tessera's C API (and, for its own
// few collectives, on a tessera::Communicator, so that no MPI call is made here): each
// d3_darray is one tessera domain with one array over it; regions, viewports, mappings and
// pending d3_new_dist handles are kept here. Everything is replicated on every process except
// the mappings, which are per process.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "tessera.h"
#include "tessera/d3arc.h"
#include "tessera/exchange/communicator.hpp"

/// A process grid made by d3_grid (or the default one). Declared in d3arc.h as opaque.
struct pgrid_t {
  bool is_default = false;
  std::vector<std::int64_t> extents;  // empty for the default grid
};

namespace tessera::d3arc {

/// Thrown inside a primitive; the entry point turns it into -1 / NULL and d3_last_error's message.
struct Failure {
  std::string message;
};

/// `parts` streamed into one string (messages are assembled this way rather than with `+`).
template <class... Parts>
[[nodiscard]] std::string text(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

/// Throws Failure with `message` (the entry point adds the primitive's name).
[[noreturn]] void fail(std::string message);

/// Throws Failure with tessera_last_error() if `status` is not TESSERA_OK.
void check(tessera_status status);

/// One orthogonal region of an array on this process.
struct Region {
  tessera_box owned{};                  // what the process owns
  tessera_box mapped{};                 // owned grown by the viewport: what d3_map_OR maps
  std::vector<int> bounds;              // d3_get_OR_bounds: 4n inclusive bounds
  void* copy = nullptr;                 // set while the region is mapped into a copy (user or runtime buffer)
  std::vector<std::byte> runtime_copy;  // the runtime's buffer, when it made the copy
};

/// An array declared by d3_darray.
struct DArray {
  std::string name;
  int n = 0;
  std::vector<std::int64_t> extents;
  std::vector<std::int64_t> blocks;
  tessera_type type = TESSERA_DOUBLE;
  std::size_t element_size = 0;

  // d3_dist: the distribution the next d3_effect_dist puts into effect (null once it did).
  std::vector<dist_t> kinds;
  tessera_dist pending = nullptr;
  int grid_size = 0;  // positions of the grid of the last d3_dist (weights per position)

  // d3_viewport: 2n borders.
  std::vector<vp_t> vt;
  std::vector<int> v;

  // d3_map_DA before the first d3_effect_dist.
  void* whole = nullptr;
  std::vector<std::byte> whole_storage;  // when the runtime allocated `whole`

  // After d3_effect_dist.
  bool effected = false;
  tessera_domain domain = nullptr;
  tessera_array array = nullptr;
  tessera_ghosts ghosts{};
  std::vector<Region> regions;
  std::map<int, tessera_step> steps;  // d3_new_dist handles not yet released

  [[nodiscard]] bool has_cyclic() const;
  [[nodiscard]] bool has_viewport() const;
  [[nodiscard]] std::int64_t volume() const;
};

/// The runtime between d3_init and d3_finalize.
struct Runtime {
  /// Collective over MPI_COMM_WORLD.
  Runtime() : comm(MPI_COMM_WORLD) {}

  Communicator comm;             // the runtime's own duplicate of MPI_COMM_WORLD, for its collectives
  tessera_comm world = nullptr;  // tessera's, over `comm`
  std::vector<std::unique_ptr<DArray>> arrays;
  std::vector<std::unique_ptr<pgrid_t>> grids;
  int next_handle = 0;
};

/// The runtime, or Failure (wrong call order) before d3_init.
Runtime& runtime();
/// True between d3_init and d3_finalize.
bool initialized();
/// Starts and ends the runtime.
void start();
void stop();

/// Array `d`, or Failure naming it.
DArray& array(int d);

/// The tessera distribution for `kinds` over grid `g` (`order` and `weights` may be null).
tessera_dist build_distribution(const DArray& a, const pg_t* g, const dist_t* kinds, const int* order,
                                const double* weights, int& grid_size);
/// The ghost widths the viewport asks for under `dist`.
tessera_ghosts viewport_ghosts(const DArray& a, tessera_dist dist);
/// Rebuilds this process' regions after the array moved (mappings are dropped).
void rebuild_regions(DArray& a);
/// Recomputes the viewport for the current distribution; replaces the array (values kept) if its
/// ghost widths change; then fills the viewport.
void refresh_viewport(DArray& a);
/// Releases every pending d3_new_dist handle of `a`.
void release_steps(DArray& a);
/// Releases every tessera handle `a` holds.
void release(DArray& a);

}  // namespace tessera::d3arc
