// The D3-ARC runtime's bookkeeping: distributions, viewports and regions, on tessera's C API.
#include "d3arc_runtime.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

namespace tessera::d3arc {

namespace {
std::unique_ptr<Runtime> the_runtime;

}  // namespace

void fail(std::string message) { throw Failure{std::move(message)}; }

void check(tessera_status status) {
  if (status != TESSERA_OK) fail(tessera_last_error());
}

bool DArray::has_cyclic() const { return std::find(kinds.begin(), kinds.end(), D_CYCLIC) != kinds.end(); }

bool DArray::has_viewport() const {
  for (int k = 0; k < n; ++k)
    if (ghosts.lower[k] != 0 || ghosts.upper[k] != 0) return true;
  return false;
}

std::int64_t DArray::volume() const {
  std::int64_t points = 1;
  for (auto e : extents) points *= e;
  return points;
}

Runtime& runtime() {
  if (!the_runtime) fail("D3-ARC is not initialised: call d3_init first (wrong call order)");
  return *the_runtime;
}

bool initialized() { return the_runtime != nullptr; }

void start() {
  // The runtime's collectives go over its own duplicate, never over the program's communicator.
  auto r = std::make_unique<Runtime>();
  check(tessera_comm_create(r->comm.raw(), &r->world));
  the_runtime = std::move(r);
}

void stop() {
  Runtime& r = runtime();
  for (auto& a : r.arrays) release(*a);
  r.arrays.clear();
  r.grids.clear();
  tessera_comm_free(&r.world);
  the_runtime.reset();  // frees the runtime's duplicate
}

DArray& array(int d) {
  Runtime& r = runtime();
  if (d < 0 || d >= static_cast<int>(r.arrays.size()))
    fail(text("argument 'd' = ", d, " is not an array descriptor (d3_darray returned ", r.arrays.size(), " so far)"));
  return *r.arrays[static_cast<std::size_t>(d)];
}

tessera_dist build_distribution(const DArray& a, const pg_t* g, const dist_t* kinds, const int* order,
                                const double* weights, int& grid_size) {
  Runtime& r = runtime();
  const int n = a.n;
  tessera_grid grid = nullptr;
  if (g->is_default) {
    // sqrt(p) x sqrt(p) for a square p (Section II-A), along the distributed dimensions only.
    std::vector<std::int64_t> fixed(static_cast<std::size_t>(n), 0);
    for (int k = 0; k < n; ++k)
      if (kinds[k] == D_NONE) fixed[static_cast<std::size_t>(k)] = 1;
    check(tessera_grid_automatic(n, r.comm.size(), a.extents.data(), fixed.data(), &grid));
  } else {
    if (static_cast<int>(g->extents.size()) != n)
      fail(text("argument 'g' is a ", g->extents.size(), "-dimensional grid but array '", a.name, "' has ", n,
                " dimensions"));
    std::int64_t positions = 1;
    for (auto e : g->extents) positions *= e;
    std::vector<int> ranks(static_cast<std::size_t>(positions));
    for (std::size_t i = 0; i < ranks.size(); ++i) ranks[i] = static_cast<int>(i);
    check(tessera_grid_from_ranks(n, r.comm.size(), g->extents.data(), ranks.data(), ranks.size(), &grid));
  }
  tessera_dim_spec specs[TESSERA_MAX_DIM] = {};
  bool general = false;
  for (int k = 0; k < n; ++k) {
    tessera_dim_spec& s = specs[k];
    s.logical_block = a.blocks[static_cast<std::size_t>(k)];
    switch (kinds[k]) {
      case D_NONE:
        s.kind = TESSERA_DIM_COLLAPSED;
        break;
      case D_BLOCK:
        s.kind = TESSERA_DIM_BLOCK;
        break;
      case D_CYCLIC:
        s.kind = TESSERA_DIM_CYCLIC;
        break;
      case D_GENERAL:
        s.kind = TESSERA_DIM_GENERAL;
        general = true;
        break;
      default:  // the *_ENUM_ sentinels and any other int leave the switch unhandled
        break;
    }
  }
  tessera_box box{};
  for (int k = 0; k < n; ++k) box.hi[k] = a.extents[static_cast<std::size_t>(k)];
  tessera_dist dist = nullptr;
  tessera_status status = tessera_grid_size(grid, &grid_size);
  if (status == TESSERA_OK) {
    if (general) {
      std::vector<double> w(static_cast<std::size_t>(grid_size), 1.0);  // NULL weights: equal shares
      if (weights) std::copy(weights, weights + grid_size, w.begin());
      status = tessera_dist_from_rank_weights(grid, &box, w.data(), w.size(), specs, order, &dist);
    } else {
      status = tessera_dist_create(grid, &box, specs, order, &dist);
    }
  }
  tessera_grid_free(&grid);
  check(status);
  return dist;
}

tessera_ghosts viewport_ghosts(const DArray& a, tessera_dist dist) {
  tessera_ghosts g{};
  if (a.vt.empty()) return g;
  Runtime& r = runtime();
  for (int k = 0; k < a.n; ++k) {
    for (int side = 0; side < 2; ++side) {
      const auto i = static_cast<std::size_t>(2 * k + side);
      std::int64_t width = 0;
      if (a.vt[i] == VP_REL) {
        width = a.v[i] < 0 ? -static_cast<std::int64_t>(a.v[i]) : a.v[i];
        if (a.v[i] < 0) g.periodic[k] = 1;
      } else {
        // An absolute border: the widest extension any process needs to reach index v.
        for (int p = 0; p < r.comm.size(); ++p) {
          tessera_box owned;
          check(tessera_dist_owned_box(dist, p, &owned));
          if (owned.hi[k] <= owned.lo[k]) continue;
          const std::int64_t need = side == 0 ? owned.lo[k] - a.v[i] : a.v[i] - (owned.hi[k] - 1);
          width = std::max(width, need);
        }
      }
      (side == 0 ? g.lower : g.upper)[k] = width;
    }
    if ((g.lower[k] || g.upper[k]) && a.kinds[static_cast<std::size_t>(k)] == D_CYCLIC)
      fail(text("array '", a.name, "' has a viewport along dimension ", k,
                ", which is D_CYCLIC: a process's indices there are not one interval"));
  }
  return g;
}

void rebuild_regions(DArray& a) {
  Runtime& r = runtime();
  a.regions.clear();
  tessera_dist dist = nullptr;
  check(tessera_domain_distribution(a.domain, &dist));
  std::size_t count = 0;
  tessera_status status = tessera_dist_owned_boxes(dist, r.comm.rank(), nullptr, 0, &count);
  std::vector<tessera_box> boxes(count);
  if (status == TESSERA_OK && count > 0)
    status = tessera_dist_owned_boxes(dist, r.comm.rank(), boxes.data(), boxes.size(), &count);
  tessera_dist_free(&dist);
  check(status);
  for (const tessera_box& owned : boxes) {
    Region region;
    region.owned = owned;
    region.mapped = owned;
    for (int k = 0; k < a.n; ++k) {
      region.mapped.lo[k] -= a.ghosts.lower[k];
      region.mapped.hi[k] += a.ghosts.upper[k];
    }
    for (int k = 0; k < a.n; ++k) {
      region.bounds.push_back(static_cast<int>(owned.lo[k]));
      region.bounds.push_back(static_cast<int>(owned.hi[k] - 1));
    }
    for (int k = 0; k < a.n; ++k) {
      region.bounds.push_back(static_cast<int>(region.mapped.lo[k]));
      region.bounds.push_back(static_cast<int>(region.mapped.hi[k] - 1));
    }
    a.regions.push_back(std::move(region));
  }
}

void refresh_viewport(DArray& a) {
  tessera_dist dist = nullptr;
  check(tessera_domain_distribution(a.domain, &dist));
  tessera_ghosts wanted{};
  try {
    wanted = viewport_ghosts(a, dist);
  } catch (...) {
    tessera_dist_free(&dist);
    throw;
  }
  tessera_dist_free(&dist);
  bool same = wanted.faces_only == a.ghosts.faces_only;
  for (int k = 0; k < TESSERA_MAX_DIM; ++k)
    same = same && wanted.lower[k] == a.ghosts.lower[k] && wanted.upper[k] == a.ghosts.upper[k] &&
           wanted.periodic[k] == a.ghosts.periodic[k];
  if (!same) {
    // Ghost widths are fixed for the life of a tessera array: a new one takes the values over.
    tessera_array wider = nullptr;
    check(tessera_array_create(a.domain, a.type, &wanted, &wider));
    const tessera_status status = tessera_copy(a.array, wider);
    if (status != TESSERA_OK) {
      tessera_array_free(&wider);
      check(status);
    }
    tessera_array_free(&a.array);
    a.array = wider;
    a.ghosts = wanted;
  }
  if (a.has_viewport()) check(tessera_array_update_ghosts(a.array));
  rebuild_regions(a);
}

void release_steps(DArray& a) {
  for (auto& [id, step] : a.steps) tessera_step_free(&step);
  a.steps.clear();
}

void release(DArray& a) {
  release_steps(a);
  a.regions.clear();
  tessera_array_free(&a.array);
  tessera_domain_free(&a.domain);
  tessera_dist_free(&a.pending);
  a.whole_storage.clear();
  a.whole = nullptr;
}

}  // namespace tessera::d3arc
