// The D3-ARC primitives (include/tessera/d3arc.h) on tessera's C API. Each primitive runs inside
// `attempt`, which turns a failure into the paper's error value (-1, -1.0 or NULL) and keeps the
// message for d3_last_error().
#include <algorithm>
#include <climits>
#include <cstring>
#include <new>
#include <string>

#include "d3arc_runtime.hpp"

using namespace tessera::d3arc;

extern "C" {
pg_t d3_default_grid{true, {}};
}

namespace {

thread_local std::string last_error;

template <class Result, class Body>
Result attempt(const char* where, Result on_failure, Body&& body) noexcept {
  try {
    return body();
  } catch (const Failure& f) {
    last_error = text(where, ": ", f.message);
  } catch (const std::bad_alloc&) {
    last_error = text(where, ": out of memory");
  } catch (const std::exception& e) {
    last_error = text(where, ": ", e.what());
  } catch (...) {
    last_error = text(where, ": unknown failure");
  }
  return on_failure;
}

std::string arg(const char* name, long long value) { return text("argument '", name, "' = ", value); }

void require(const void* pointer, const char* name) {
  if (!pointer) fail(text("argument '", name, "' = NULL must point to memory"));
}

const char* kind_name(dist_t t) {
  switch (t) {
    case D_NONE:
      return "D_NONE";
    case D_BLOCK:
      return "D_BLOCK";
    case D_CYCLIC:
      return "D_CYCLIC";
    case D_GENERAL:
      return "D_GENERAL";
    default:  // the *_ENUM_ sentinels and any other int leave the switch unhandled
      break;
  }
  return "not a dist_t";
}

// The largest of `value` over the processes (what elapsed times report).
double max_over_processes(double value) {
  return runtime().comm.max(value);
}

Region& region(DArray& a, int id) {
  if (!a.effected) fail(text("array '", a.name, "' has no regions before d3_effect_dist (wrong call order)"));
  if (id < 0 || id >= static_cast<int>(a.regions.size()))
    fail(text(arg("id", id), " is not a region of array '", a.name, "' on process ", runtime().comm.rank(),
              ", which owns ", a.regions.size(), " (d3_num_OR)"));
  return a.regions[static_cast<std::size_t>(id)];
}

// The mappings of `a` end when its storage moves.
void drop_mappings(DArray& a) {
  for (auto& r : a.regions) {
    r.copy = nullptr;
    r.runtime_copy.clear();
  }
}

}  // namespace

extern "C" {

const char* d3_last_error(void) { return last_error.c_str(); }

int d3_init(int* argc, char*** argv) {
  return attempt("d3_init", -1, [&] {
    (void)argc;  // kept for the signature of Fig. 2; MPI_Init has consumed MPI's arguments already
    (void)argv;
    if (!tessera::mpi_initialized()) fail("MPI is not initialised: d3_init follows MPI_Init (wrong call order)");
    if (initialized()) fail("D3-ARC is initialised already (d3_init called twice; wrong call order)");
    start();
    return 0;
  });
}

int d3_finalize(void) {
  return attempt("d3_finalize", -1, [&] {
    runtime();  // fails before d3_init
    stop();
    return 0;
  });
}

int d3_darray(const char* a, int n, int* w, dtype_t e, int* b) {
  return attempt("d3_darray", -1, [&] {
    Runtime& r = runtime();
    require(a, "a");
    if (n < 1 || n > TESSERA_MAX_DIM) fail(text(arg("n", n), " must be 1, 2 or 3"));
    require(w, "w");
    auto array = std::make_unique<DArray>();
    array->name = a;
    array->n = n;
    for (int k = 0; k < n; ++k) {
      if (w[k] < 1) fail(text("argument 'w[", k, "]' = ", w[k], " must be >= 1"));
      array->extents.push_back(w[k]);
      const int block = b ? b[k] : 1;
      if (block < 1) fail(text("argument 'b[", k, "]' = ", block, " must be >= 1"));
      array->blocks.push_back(block);
    }
    switch (e) {
      case D3_FLOAT:
        array->type = TESSERA_FLOAT, array->element_size = sizeof(float);
        break;
      case D3_DOUBLE:
        array->type = TESSERA_DOUBLE, array->element_size = sizeof(double);
        break;
      case D3_INT:
        array->type = TESSERA_INT32, array->element_size = sizeof(std::int32_t);
        break;
      case D3_LONG:
        array->type = TESSERA_INT64, array->element_size = sizeof(std::int64_t);
        break;
      case D3_COMPLEX:
        array->type = TESSERA_COMPLEX_DOUBLE, array->element_size = 2 * sizeof(double);
        break;
      default:
        fail(text(arg("e", e), " is not a dtype_t (D3_FLOAT, D3_DOUBLE, D3_INT, D3_LONG or D3_COMPLEX)"));
    }
    r.arrays.push_back(std::move(array));
    return static_cast<int>(r.arrays.size()) - 1;
  });
}

pg_t* d3_grid(int n, int* w) {
  return attempt<pg_t*>("d3_grid", nullptr, [&] {
    Runtime& r = runtime();
    if (n < 1 || n > TESSERA_MAX_DIM) fail(text(arg("n", n), " must be 1, 2 or 3"));
    require(w, "w");
    auto g = std::make_unique<pgrid_t>();
    long long positions = 1;
    for (int k = 0; k < n; ++k) {
      if (w[k] < 1) fail(text("argument 'w[", k, "]' = ", w[k], " must be >= 1"));
      g->extents.push_back(w[k]);
      positions *= w[k];
      if (positions > r.comm.size())
        fail(text("argument 'w' asks for at least ", positions, " positions but there are only ", r.comm.size(),
                  " processes"));
    }
    r.grids.push_back(std::move(g));
    return r.grids.back().get();
  });
}

int d3_dist(int d, pg_t* g, dist_t* t, int* r, real* w) {
  return attempt("d3_dist", -1, [&] {
    Runtime& rt = runtime();
    DArray& a = array(d);
    require(g, "g");
    const bool known = g == G_DEFAULT ||
                       std::any_of(rt.grids.begin(), rt.grids.end(), [&](const auto& mine) { return mine.get() == g; });
    if (!known) fail("argument 'g' is neither G_DEFAULT nor a grid d3_grid returned");
    require(t, "t");
    for (int k = 0; k < a.n; ++k)
      if (t[k] != D_NONE && t[k] != D_BLOCK && t[k] != D_CYCLIC && t[k] != D_GENERAL)
        fail(text("argument 't[", k, "]' = ", t[k], " is not a dist_t (D_NONE, D_BLOCK, D_CYCLIC or D_GENERAL)"));
    int grid_size = 0;
    tessera_dist dist = build_distribution(a, g, t, r, w, grid_size);
    tessera_dist_free(&a.pending);
    a.pending = dist;
    a.grid_size = grid_size;
    a.kinds.assign(t, t + a.n);
    return 0;
  });
}

int d3_viewport(int d, vp_t* vt, int* v) {
  return attempt("d3_viewport", -1, [&] {
    DArray& a = array(d);
    if (a.effected)
      fail(text("array '", a.name,
                "' is distributed already: d3_viewport must come before d3_effect_dist (wrong call order)"));
    require(vt, "vt");
    require(v, "v");
    for (int k = 0; k < a.n; ++k) {
      for (int side = 0; side < 2; ++side) {
        const int i = 2 * k + side;
        const std::string at = text("[", i, "]");
        if (vt[i] != VP_REL && vt[i] != VP_ABS)
          fail(text("argument 'vt", at, "' = ", vt[i], " is not a vp_t (VP_REL or VP_ABS)"));
        if (vt[i] == VP_ABS && (v[i] < 0 || v[i] >= a.extents[static_cast<std::size_t>(k)]))
          fail(text("argument 'v", at, "' = ", v[i], " is an absolute index outside [0, ",
                    a.extents[static_cast<std::size_t>(k)], ") of dimension ", k));
      }
      const int lo = 2 * k, hi = lo + 1;
      const bool wraps_lo = vt[lo] == VP_REL && v[lo] < 0, wraps_hi = vt[hi] == VP_REL && v[hi] < 0;
      const bool plain_lo = vt[lo] == VP_ABS || v[lo] > 0, plain_hi = vt[hi] == VP_ABS || v[hi] > 0;
      // Wraparound is a property of the dimension: a border that does not wrap beside one that does
      // would be filled from the other side of the array too.
      if ((wraps_lo && plain_hi) || (wraps_hi && plain_lo))
        fail(text("arguments 'v[", lo, "]' = ", v[lo], " and 'v[", hi, "]' = ", v[hi],
                  " wrap around on one border of dimension ", k, " only: give both borders negative widths (or 0)"));
    }
    a.vt.assign(vt, vt + 2 * a.n);
    a.v.assign(v, v + 2 * a.n);
    return 0;
  });
}

void* d3_map_DA(int d, void* buff) {
  return attempt<void*>("d3_map_DA", nullptr, [&]() -> void* {
    DArray& a = array(d);
    if (a.effected)
      fail(text("array '", a.name,
                "' is distributed already: d3_map_DA may only be used before d3_effect_dist; map regions with "
                "d3_map_OR (wrong call order)"));
    if (buff) {
      a.whole_storage.clear();
      a.whole = buff;
    } else if (a.whole_storage.empty()) {  // mapping again returns the same memory, values kept
      a.whole_storage.assign(static_cast<std::size_t>(a.volume()) * a.element_size, std::byte{0});
      a.whole = a.whole_storage.data();
    }
    return a.whole;
  });
}

real d3_effect_dist(int d) {
  return attempt("d3_effect_dist", -1.0, [&] {
    Runtime& r = runtime();
    DArray& a = array(d);
    if (!a.pending) {
      if (a.effected) return 0.0;  // nothing new to put into effect
      fail(text("array '", a.name, "' has no distribution: call d3_dist first (wrong call order)"));
    }
    const double started = tessera::Communicator::wtime();
    if (!a.effected) {
      // What an earlier attempt that failed half-way created goes first.
      tessera_array_free(&a.array);
      tessera_domain_free(&a.domain);
      a.ghosts = viewport_ghosts(a, a.pending);
      check(tessera_domain_create(r.world, a.pending, &a.domain));
      check(tessera_array_create(a.domain, a.type, &a.ghosts, &a.array));
      // Scatter the whole array from the lowest process that mapped it (Section II-D).
      const int root = r.comm.allreduce(a.whole ? r.comm.rank() : r.comm.size(), tessera::ReduceOp::min);
      if (root < r.comm.size()) {
        const std::int64_t count = r.comm.rank() == root ? a.volume() : 0;
        check(tessera_array_scatter_from(a.array, root, a.type, r.comm.rank() == root ? a.whole : nullptr, count));
      }
      a.whole_storage.clear();
      a.whole_storage.shrink_to_fit();
      a.whole = nullptr;
      a.effected = true;
    } else {
      drop_mappings(a);
      release_steps(a);
      check(tessera_domain_redistribute(a.domain, a.pending, TESSERA_PRESERVE));
    }
    tessera_dist_free(&a.pending);
    refresh_viewport(a);
    return max_over_processes(tessera::Communicator::wtime() - started);
  });
}

int d3_num_OR(int d) {
  return attempt("d3_num_OR", -1, [&] {
    DArray& a = array(d);
    if (!a.effected) fail(text("array '", a.name, "' has no regions before d3_effect_dist (wrong call order)"));
    return static_cast<int>(a.regions.size());
  });
}

void* d3_map_OR(int d, int id, void* buff) {
  return attempt<void*>("d3_map_OR", nullptr, [&]() -> void* {
    DArray& a = array(d);
    Region& reg = region(a, id);
    if (!buff && !a.has_cyclic()) {
      // One region per process: its storage is the region grown by the viewport, row-major.
      tessera_view view;
      check(tessera_array_local(a.array, 0, a.type, &view));
      reg.copy = nullptr;
      reg.runtime_copy.clear();
      return view.data;
    }
    std::int64_t volume = 1;
    for (int k = 0; k < a.n; ++k) volume *= reg.mapped.hi[k] - reg.mapped.lo[k];
    if (buff) {
      reg.runtime_copy.clear();
      reg.copy = buff;
    } else {
      reg.runtime_copy.assign(static_cast<std::size_t>(volume) * a.element_size, std::byte{0});
      reg.copy = reg.runtime_copy.data();
    }
    check(tessera_array_copy_out(a.array, &reg.mapped, a.type, reg.copy, &reg.mapped));
    return reg.copy;
  });
}

int* d3_get_OR_bounds(int d, int id) {
  return attempt<int*>("d3_get_OR_bounds", nullptr, [&] { return region(array(d), id).bounds.data(); });
}

int d3_update_OR(int d, int id) {
  return attempt("d3_update_OR", -1, [&] {
    DArray& a = array(d);
    if (!a.effected)
      fail(text("array '", a.name, "' is not distributed yet: call d3_effect_dist first (wrong call order)"));
    // `id` must name a region of this process, but every mapped copy goes back and is refreshed:
    // the paper's programs call d3_update_OR once per iteration (Fig. 2) whatever the number of
    // regions a process owns, and a process with several cyclic regions would otherwise lose the
    // writes to all but one (or have to call a collective a rank-dependent number of times).
    if (!a.regions.empty()) (void)region(a, id);
    for (const Region& reg : a.regions)
      if (reg.copy) check(tessera_array_copy_in(a.array, &reg.owned, a.type, reg.copy, &reg.mapped));
    if (a.has_viewport()) {
      check(tessera_array_update_ghosts(a.array));
      for (const Region& reg : a.regions)
        if (reg.copy) check(tessera_array_copy_out(a.array, &reg.mapped, a.type, reg.copy, &reg.mapped));
    }
    return 0;
  });
}

int d3_collectall(real t, real* tv, int* len) {
  return attempt("d3_collectall", -1, [&] {
    Runtime& r = runtime();
    require(tv, "tv");
    require(len, "len");
    if (*len < r.comm.size())
      fail(text(arg("*len", *len), " (the capacity of tv) is less than the ", r.comm.size(), " processes"));
    check(tessera_comm_collect_all(r.world, t, tv, static_cast<size_t>(*len)));
    *len = r.comm.size();
    return 0;
  });
}

real* d3_norm(real* tv, int len, real min, real max) {
  return attempt<real*>("d3_norm", nullptr, [&] {
    require(tv, "tv");
    if (len < 1) fail(text(arg("len", len), " must be >= 1"));
    if (!(min > 0) || !(max > min))
      fail(text("arguments 'min' = ", min, " and 'max' = ", max, " must satisfy max > min > 0"));
    check(tessera_weights_d3arc(tv, static_cast<size_t>(len), min, max, tv));
    return tv;
  });
}

int d3_new_dist(int d, real* w, real delta, int* nb) {
  return attempt("d3_new_dist", -1, [&] {
    Runtime& r = runtime();
    DArray& a = array(d);
    if (!a.effected)
      fail(text("array '", a.name,
                "' is not distributed yet: call d3_effect_dist before d3_new_dist (wrong call order)"));
    for (std::size_t k = 0; k < a.kinds.size(); ++k)
      if (a.kinds[k] == D_CYCLIC)
        fail(text("array '", a.name, "' is ", kind_name(a.kinds[k]), " along dimension ", k,
                  ": incremental redistribution moves interval boundaries (D_BLOCK, D_GENERAL)"));
    require(w, "w");
    require(nb, "nb");
    if (!(delta >= 0 && delta <= 1)) fail(text("argument 'delta' = ", delta, " must be in [0, 1]"));
    tessera_dist current = nullptr, target = nullptr;
    tessera_step step = nullptr;
    check(tessera_domain_distribution(a.domain, &current));
    tessera_grid grid = nullptr;
    int positions = 0;
    tessera_status status = tessera_dist_grid(current, &grid);
    if (status == TESSERA_OK) status = tessera_grid_size(grid, &positions);
    if (status == TESSERA_OK) status = tessera_cut_target(current, w, static_cast<size_t>(positions), &target);
    if (status == TESSERA_OK) status = tessera_step_plan(a.domain, target, delta, &step);
    tessera_step_info info{};
    if (status == TESSERA_OK) status = tessera_step_info_get(step, &info);
    tessera_grid_free(&grid);
    tessera_dist_free(&current);
    tessera_dist_free(&target);
    if (status != TESSERA_OK) {
      tessera_step_free(&step);
      check(status);
    }
    *nb = info.blocks > INT_MAX ? INT_MAX : static_cast<int>(info.blocks);
    const int id = r.next_handle++;
    a.steps[id] = step;
    return id;
  });
}

real d3_migrate(int d, int dist_id) {
  return attempt("d3_migrate", -1.0, [&] {
    DArray& a = array(d);
    const auto it = a.steps.find(dist_id);
    if (it == a.steps.end())
      fail(text(arg("dist_id", dist_id), " is not a pending distribution of array '", a.name,
                "' (d3_new_dist returns them; d3_migrate and d3_effect_dist release them)"));
    const double started = tessera::Communicator::wtime();
    check(tessera_step_migrate(a.domain, it->second, nullptr));
    drop_mappings(a);
    release_steps(a);
    refresh_viewport(a);
    return max_over_processes(tessera::Communicator::wtime() - started);
  });
}

}  // extern "C"
