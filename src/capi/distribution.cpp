// tessera_dist_*: distributions (tessera::Distribution), immutable values behind handles.
#include <cstring>
#include <sstream>

#include "convert.hpp"

using namespace tessera;
using namespace tessera::capi;

namespace {

void issue_dist(auto dist, tessera_dist* out) { issue(std::make_shared<DistObject>(DistObject{std::move(dist)}), out); }

void check_axis(int axis, int ndim) {
  if (axis < 0 || axis >= ndim)
    fail_c(TESSERA_ERR_OUT_OF_RANGE, "argument 'axis' = ", axis, " is not a dimension of a ", ndim,
           "-dimensional distribution");
}

}  // namespace

extern "C" {

tessera_status tessera_dist_create(tessera_grid grid, const tessera_box* box, const tessera_dim_spec* specs,
                                   const int* order, tessera_dist* out) {
  return guarded("tessera_dist_create", [&] {
    prepare_out(out);
    const auto g = get<GridObject>(grid, "grid");
    std::visit(
        [&](const auto& pg) {
          constexpr std::size_t N = dims_v<decltype(pg)>;
          issue_dist(Distribution<N>(to_box<N>(box, "box"), pg, to_specs<N>(specs), to_order<N>(order)), out);
        },
        g->grid);
  });
}

tessera_status tessera_dist_from_rank_weights(tessera_grid grid, const tessera_box* box, const double* weights,
                                              size_t count, const tessera_dim_spec* specs, const int* order,
                                              tessera_dist* out) {
  return guarded("tessera_dist_from_rank_weights", [&] {
    prepare_out(out);
    const auto g = get<GridObject>(grid, "grid");
    std::visit(
        [&](const auto& pg) {
          constexpr std::size_t N = dims_v<decltype(pg)>;
          issue_dist(Distribution<N>::from_rank_weights(to_box<N>(box, "box"), pg, to_vector(weights, count, "weights"),
                                                        to_specs<N>(specs), to_order<N>(order)),
                     out);
        },
        g->grid);
  });
}

tessera_status tessera_dist_ndim(tessera_dist dist, int* ndim) {
  return guarded("tessera_dist_ndim", [&] {
    const auto d = get<DistObject>(dist, "dist");
    require_pointer("ndim", ndim);
    *ndim = ndim_of(d->dist);
  });
}

tessera_status tessera_dist_box(tessera_dist dist, tessera_box* box) {
  return guarded("tessera_dist_box", [&] {
    const auto d = get<DistObject>(dist, "dist");
    require_pointer("box", box);
    std::visit([&](const auto& x) { *box = from_box(x.domain()); }, d->dist);
  });
}

tessera_status tessera_dist_grid(tessera_dist dist, tessera_grid* out) {
  return guarded("tessera_dist_grid", [&] {
    prepare_out(out);
    const auto d = get<DistObject>(dist, "dist");
    std::visit([&](const auto& x) { issue(std::make_shared<GridObject>(GridObject{x.grid()}), out); }, d->dist);
  });
}

tessera_status tessera_dist_owner(tessera_dist dist, const int64_t* point, int* rank) {
  return guarded("tessera_dist_owner", [&] {
    const auto d = get<DistObject>(dist, "dist");
    require_pointer("rank", rank);
    std::visit([&](const auto& x) { *rank = x.owner(to_point<dims_v<decltype(x)>>(point, "point")); }, d->dist);
  });
}

tessera_status tessera_dist_local_size(tessera_dist dist, int rank, int64_t* size) {
  return guarded("tessera_dist_local_size", [&] {
    const auto d = get<DistObject>(dist, "dist");
    require_pointer("size", size);
    std::visit([&](const auto& x) { *size = x.local_size(rank); }, d->dist);
  });
}

tessera_status tessera_dist_owned_box(tessera_dist dist, int rank, tessera_box* box) {
  return guarded("tessera_dist_owned_box", [&] {
    const auto d = get<DistObject>(dist, "dist");
    require_pointer("box", box);
    std::visit([&](const auto& x) { *box = from_box(x.owned_box(rank)); }, d->dist);
  });
}

tessera_status tessera_dist_owned_boxes(tessera_dist dist, int rank, tessera_box* boxes, size_t capacity,
                                        size_t* count) {
  return guarded("tessera_dist_owned_boxes", [&] {
    const auto d = get<DistObject>(dist, "dist");
    require_pointer("count", count);
    if (capacity > 0) require_pointer("boxes", boxes);
    std::visit(
        [&](const auto& x) {
          const auto owned = x.owned_boxes(rank);
          *count = owned.size();
          for (std::size_t i = 0; i < owned.size() && i < capacity; ++i) boxes[i] = from_box(owned[i]);
        },
        d->dist);
  });
}

tessera_status tessera_dist_equal(tessera_dist a, tessera_dist b, int* equal) {
  return guarded("tessera_dist_equal", [&] {
    const auto x = get<DistObject>(a, "a");
    const auto y = get<DistObject>(b, "b");
    require_pointer("equal", equal);
    *equal = x->dist == y->dist ? 1 : 0;
  });
}

tessera_status tessera_dist_describe(tessera_dist dist, char* buffer, size_t capacity, size_t* length) {
  return guarded("tessera_dist_describe", [&] {
    const auto d = get<DistObject>(dist, "dist");
    if (capacity > 0) require_pointer("buffer", buffer);
    std::ostringstream text;
    std::visit([&](const auto& x) { text << x; }, d->dist);
    const std::string s = text.str();
    if (length) *length = s.size();
    if (capacity == 0) return;
    const std::size_t n = std::min(capacity - 1, s.size());
    std::memcpy(buffer, s.data(), n);
    buffer[n] = '\0';
  });
}

tessera_status tessera_dist_slab_count(tessera_dist dist, int axis, size_t* slabs) {
  return guarded("tessera_dist_slab_count", [&] {
    const auto d = get<DistObject>(dist, "dist");
    require_pointer("slabs", slabs);
    check_axis(axis, ndim_of(d->dist));
    std::visit([&](const auto& x) { *slabs = x.slab_count(static_cast<std::size_t>(axis)); }, d->dist);
  });
}

tessera_status tessera_dist_slab_cuts(tessera_dist dist, int axis, int64_t* cuts, size_t capacity) {
  return guarded("tessera_dist_slab_cuts", [&] {
    const auto d = get<DistObject>(dist, "dist");
    check_axis(axis, ndim_of(d->dist));
    std::visit(
        [&](const auto& x) {
          const auto all = x.slab_cuts(static_cast<std::size_t>(axis));
          const std::size_t needed = all.size() * all.front().size();
          if (capacity < needed)
            fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'capacity' = ", capacity, " is less than the ", needed,
                   " boundaries of axis ", axis, " (", all.size(), " slabs of ", all.front().size(), ")");
          require_pointer("cuts", cuts);
          for (const auto& slab : all) cuts = std::copy(slab.begin(), slab.end(), cuts);
        },
        d->dist);
  });
}

tessera_status tessera_dist_with_cuts(tessera_dist dist, int axis, const int64_t* cuts, size_t slabs,
                                      tessera_dist* out) {
  return guarded("tessera_dist_with_cuts", [&] {
    prepare_out(out);
    const auto d = get<DistObject>(dist, "dist");
    check_axis(axis, ndim_of(d->dist));
    std::visit(
        [&](const auto& x) {
          const auto a = static_cast<std::size_t>(axis);
          const auto per_slab = static_cast<std::size_t>(x.grid().extent(a)) + 1;
          const auto flat = to_vector(cuts, slabs * per_slab, "cuts");
          std::vector<std::vector<index_t>> nested(slabs);
          for (std::size_t s = 0; s < slabs; ++s)
            nested[s].assign(flat.begin() + static_cast<std::ptrdiff_t>(s * per_slab),
                             flat.begin() + static_cast<std::ptrdiff_t>((s + 1) * per_slab));
          issue_dist(x.with_cuts(a, std::move(nested)), out);
        },
        d->dist);
  });
}

tessera_status tessera_dist_reduced(tessera_dist dist, const int* axes, size_t count, int flooded,
                                    tessera_dist* out) {
  return guarded("tessera_dist_reduced", [&] {
    prepare_out(out);
    const auto d = get<DistObject>(dist, "dist");
    std::visit(
        [&](const auto& x) {
          constexpr std::size_t N = dims_v<decltype(x)>;
          const auto reduced = to_axes<N>(axes, count);
          issue_dist(flooded != 0 ? flooded_reduced_distribution(x, reduced) : reduced_distribution(x, reduced), out);
        },
        d->dist);
  });
}

tessera_status tessera_dist_free(tessera_dist* dist) {
  return guarded("tessera_dist_free", [&] { release<DistObject>(dist, "dist"); });
}

}  // extern "C"
