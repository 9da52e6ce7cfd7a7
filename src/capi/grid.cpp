// tessera_grid_*: processor grids (tessera::ProcGrid), dimension chosen at run time.
#include "convert.hpp"

using namespace tessera;
using namespace tessera::capi;

namespace {

template <std::size_t N>
Point<N> optional_point(const std::int64_t* p) {
  return p ? to_point<N>(p, "fixed") : Point<N>{};
}

void issue_grid(auto grid, tessera_grid* out) {
  auto object = std::make_shared<GridObject>(GridObject{std::move(grid)});
  issue(std::move(object), out);
}

}  // namespace

extern "C" {

tessera_status tessera_grid_create(int ndim, int comm_size, const int64_t* shape, tessera_grid* out) {
  return guarded("tessera_grid_create", [&] {
    prepare_out(out);
    with_ndim(ndim, "ndim", [&](auto n) {
      constexpr std::size_t N = decltype(n)::value;
      issue_grid(ProcGrid<N>::with_shape(comm_size, to_point<N>(shape, "shape")), out);
    });
  });
}

tessera_status tessera_grid_automatic(int ndim, int comm_size, const int64_t* extents, const int64_t* fixed,
                                      tessera_grid* out) {
  return guarded("tessera_grid_automatic", [&] {
    prepare_out(out);
    with_ndim(ndim, "ndim", [&](auto n) {
      constexpr std::size_t N = decltype(n)::value;
      issue_grid(ProcGrid<N>::automatic(comm_size, to_point<N>(extents, "extents"), optional_point<N>(fixed)), out);
    });
  });
}

tessera_status tessera_grid_over_ranks(int ndim, int comm_size, const int* active, size_t count, const int64_t* extents,
                                       const int64_t* fixed, tessera_grid* out) {
  return guarded("tessera_grid_over_ranks", [&] {
    prepare_out(out);
    with_ndim(ndim, "ndim", [&](auto n) {
      constexpr std::size_t N = decltype(n)::value;
      issue_grid(ProcGrid<N>::automatic(comm_size, to_vector(active, count, "active"), to_point<N>(extents, "extents"),
                                        optional_point<N>(fixed)),
                 out);
    });
  });
}

tessera_status tessera_grid_from_ranks(int ndim, int comm_size, const int64_t* shape, const int* ranks, size_t count,
                                       tessera_grid* out) {
  return guarded("tessera_grid_from_ranks", [&] {
    prepare_out(out);
    with_ndim(ndim, "ndim", [&](auto n) {
      constexpr std::size_t N = decltype(n)::value;
      issue_grid(ProcGrid<N>::from_ranks(comm_size, to_point<N>(shape, "shape"), to_vector(ranks, count, "ranks")),
                 out);
    });
  });
}

tessera_status tessera_grid_ndim(tessera_grid grid, int* ndim) {
  return guarded("tessera_grid_ndim", [&] {
    const auto g = get<GridObject>(grid, "grid");
    require_pointer("ndim", ndim);
    *ndim = ndim_of(g->grid);
  });
}

tessera_status tessera_grid_shape(tessera_grid grid, int64_t* shape) {
  return guarded("tessera_grid_shape", [&] {
    const auto g = get<GridObject>(grid, "grid");
    require_pointer("shape", shape);
    std::visit([&](const auto& pg) { from_point(pg.shape(), shape); }, g->grid);
  });
}

tessera_status tessera_grid_size(tessera_grid grid, int* size) {
  return guarded("tessera_grid_size", [&] {
    const auto g = get<GridObject>(grid, "grid");
    require_pointer("size", size);
    *size = std::visit([](const auto& pg) { return pg.size(); }, g->grid);
  });
}

tessera_status tessera_grid_rank_at(tessera_grid grid, const int64_t* position, int* rank) {
  return guarded("tessera_grid_rank_at", [&] {
    const auto g = get<GridObject>(grid, "grid");
    require_pointer("rank", rank);
    std::visit(
        [&](const auto& pg) {
          constexpr std::size_t N = dims_v<decltype(pg)>;
          *rank = pg.rank_at(to_point<N>(position, "position"));
        },
        g->grid);
  });
}

tessera_status tessera_grid_position_of(tessera_grid grid, int rank, int* active, int64_t* position) {
  return guarded("tessera_grid_position_of", [&] {
    const auto g = get<GridObject>(grid, "grid");
    require_pointer("active", active);
    require_pointer("position", position);
    std::visit(
        [&](const auto& pg) {
          const auto p = pg.position_of(rank);
          *active = p.has_value() ? 1 : 0;
          if (p) from_point(*p, position);
        },
        g->grid);
  });
}

tessera_status tessera_grid_free(tessera_grid* grid) {
  return guarded("tessera_grid_free", [&] { release<GridObject>(grid, "grid"); });
}

}  // extern "C"
