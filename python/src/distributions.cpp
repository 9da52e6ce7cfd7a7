// DimSpec and its builders (block, cut, cyclic, ...), Distribution<N> for N = 1..3 and the
// construction of one from a shape, a grid and per-dimension specs, from a spec text, or from a
// list of boxes and their owners (a box set).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <pybind11/operators.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "convert.hpp"
#include "printed.hpp"

namespace py = pybind11;
using tessera::index_t;

namespace tessera_python {
namespace {

void bind_dim_spec(py::module_& m) {
  py::class_<tessera::DimSpec>(m, "DimSpec", "How one dimension is spread over one grid axis (C++ tessera::DimSpec).")
      .def_property_readonly("kind", [](const tessera::DimSpec& s) { return std::string(tessera::to_string(s.kind)); })
      .def_readonly("logical_block", &tessera::DimSpec::logical_block)
      .def("with_logical_block", &tessera::DimSpec::with_logical_block, py::arg("block"),
           "The same spec with boundaries restricted to multiples of `block`.")
      .def(py::self == py::self)
      .def("__repr__", [](const tessera::DimSpec& s) { return tessera::spec_text(s); });
  m.def("block", &tessera::block, "Balanced blocks.");
  m.def("cut", &tessera::cut, py::arg("boundaries"), "Explicit boundaries lo = b[0] <= ... <= b[g] = hi.");
  m.def("cut_weights", &tessera::cut_weights, py::arg("weights"), "One interval per coordinate, sized by weight.");
  m.def("cyclic", &tessera::cyclic, "Round robin over logical blocks.");
  m.def("block_cyclic", &tessera::block_cyclic, py::arg("block_size"), py::arg("source") = 0,
        "ScaLAPACK's block-cyclic: blocks of block_size indices dealt round robin.");
  m.def("collapsed", &tessera::collapsed, "Not distributed (the grid axis has extent 1).");
  m.def("irregular", &tessera::irregular, py::arg("owners"), "An owner grid coordinate per index.");
  m.def("flooded", &tessera::flooded,
        "ZPL's flood (*): every coordinate of the grid axis holds the whole dimension, a replica each.");
}

// Distribution(lo, hi, dims, grid shape or [], ranks or [], order or [], comm_size). Without an
// explicit rank table the arguments become a Spec, so that the grid is chosen as for a spec text:
// extents implied by cut lists and collapsed axes are respected, the others chosen for the data.
py::object make_distribution(const std::vector<index_t>& lo, const std::vector<index_t>& hi,
                             const std::vector<tessera::DimSpec>& dims, const std::vector<index_t>& grid,
                             const std::vector<int>& ranks, const std::vector<int>& order, int comm_size) {
  constexpr const char* where = "Distribution";
  if (hi.size() != lo.size() || dims.size() != lo.size() || (!grid.empty() && grid.size() != lo.size()))
    tessera::fail(tessera::ErrorCode::invalid_argument, where, ": box, dims and grid must have one entry per dimension (",
                  lo.size(), ", ", dims.size(), " and ", grid.size(), " given)");
  return with_dimension(lo.size(), where, [&](auto n) -> py::object {
    constexpr std::size_t N = decltype(n)::value;
    if (!ranks.empty()) {  // a grid over chosen ranks: explicit shape and rank table
      if (grid.empty())
        tessera::fail(tessera::ErrorCode::invalid_argument, where, ": ranks given without a grid shape");
      std::array<tessera::DimSpec, N> specs;
      std::copy(dims.begin(), dims.end(), specs.begin());
      auto dim_order = tessera::Distribution<N>::natural_order();
      if (!order.empty()) {
        if (order.size() != N)
          tessera::fail(tessera::ErrorCode::invalid_argument, where, ": order has ", order.size(), " entries, not ", N);
        std::copy(order.begin(), order.end(), dim_order.begin());
      }
      const auto g = tessera::ProcGrid<N>::from_ranks(comm_size, point_of<N>(grid, "Distribution: grid"), ranks);
      return py::cast(tessera::Distribution<N>(box_of<N>(lo, hi, where), g, specs, dim_order));
    }
    tessera::Spec spec;
    for (std::size_t d = 0; d < N; ++d) {
      tessera::SpecAxis axis;
      axis.lo = lo[d];
      axis.hi = hi[d];
      axis.grid_extent = grid.empty() ? 0 : grid[d];
      axis.dist = dims[d];
      spec.axes.push_back(axis);
    }
    spec.order = order;
    return py::cast(tessera::to_distribution<N>(spec, comm_size));
  });
}

// (distribution, (lower, upper, periodic, corners)) of a spec text over comm_size ranks.
py::tuple from_spec(const std::string& text, int comm_size) {
  const tessera::Spec spec = tessera::parse_spec(text);
  std::vector<index_t> lower, upper;
  std::vector<bool> periodic;
  for (const auto& axis : spec.axes) {
    lower.push_back(axis.ghost_lower);
    upper.push_back(axis.ghost_upper);
    periodic.push_back(axis.periodic);
  }
  py::object dist = with_dimension(spec.rank(), "from_spec", [&](auto n) -> py::object {
    return py::cast(tessera::to_distribution<decltype(n)::value>(spec, comm_size));
  });
  return py::make_tuple(dist, py::make_tuple(lower, upper, periodic, spec.corners));
}

using BoxLists = std::vector<std::pair<std::vector<index_t>, std::vector<index_t>>>;

template <std::size_t N>
std::vector<tessera::Box<N>> boxes_of(const BoxLists& boxes, const char* where) {
  std::vector<tessera::Box<N>> out;
  for (const auto& [lo, hi] : boxes) out.push_back(box_of<N>(lo, hi, where));
  return out;
}

// A box-set distribution (KeLP's FloorPlan): boxes as (lo, hi) lists, one owner each, in `domain`
// (empty lists: the boxes' bounding box); the dimension is the boxes' (or the domain's).
py::object box_set(const BoxLists& boxes, const std::vector<int>& owners, const std::vector<index_t>& domain_lo,
                   const std::vector<index_t>& domain_hi, int comm_size) {
  constexpr const char* where = "box_set";
  const std::size_t n = !domain_lo.empty() ? domain_lo.size() : boxes.empty() ? 0 : boxes.front().first.size();
  return with_dimension(n, where, [&](auto dim) -> py::object {
    constexpr std::size_t N = decltype(dim)::value;
    auto list = boxes_of<N>(boxes, where);
    const tessera::BoxSet<N> set =
        domain_lo.empty() ? tessera::BoxSet<N>(std::move(list), owners, comm_size)
                          : tessera::BoxSet<N>(box_of<N>(domain_lo, domain_hi, where), std::move(list), owners, comm_size);
    return py::cast(tessera::Distribution<N>::from_box_set(set));
  });
}

// Owners for `boxes` by "knapsack" or "morton"; weights empty for cell counts.
std::vector<int> assign_boxes(const BoxLists& boxes, int comm_size, const std::string& policy,
                              const std::vector<double>& weights) {
  constexpr const char* where = "assign_boxes";
  const tessera::BoxAssignment how = box_assignment_of(policy, where, "policy");
  if (boxes.empty()) return {};
  return with_dimension(boxes.front().first.size(), where, [&](auto dim) {
    constexpr std::size_t N = decltype(dim)::value;
    const auto list = boxes_of<N>(boxes, where);
    return tessera::assign_boxes<N>(list, comm_size, how, weights);
  });
}

// Every box cut into the fewest near-equal pieces no longer than `max_extent` per axis, as
// (lo, hi) lists; the dimension is max_extent's (a box of another dimension is refused by box_of).
BoxLists chop_boxes(const BoxLists& boxes, const std::vector<index_t>& max_extent) {
  constexpr const char* where = "chop_boxes";
  return with_dimension(max_extent.size(), where, [&](auto dim) {
    constexpr std::size_t N = decltype(dim)::value;
    BoxLists out;
    for (const tessera::Box<N>& piece :
         tessera::chop_boxes<N>(boxes_of<N>(boxes, where), point_of<N>(max_extent, "chop_boxes: max_extent")))
      out.emplace_back(std::vector<index_t>(piece.lo.coord.begin(), piece.lo.coord.end()),
                       std::vector<index_t>(piece.hi.coord.begin(), piece.hi.coord.end()));
    return out;
  });
}

// D3-ARC's step for box sets: (owners after, moved box indices, cells moved, excess before, after).
py::tuple incremental_box_step(const BoxLists& boxes, const std::vector<int>& current, const std::vector<int>& target,
                               int comm_size, double delta, const std::vector<double>& weights,
                               std::optional<std::uint64_t> max_cells) {
  constexpr const char* where = "incremental_box_step";
  // No box: any dimension will do, and the arguments are still checked as the C++ call checks them.
  return with_dimension(boxes.empty() ? 1 : boxes.front().first.size(), where, [&](auto dim) {
    constexpr std::size_t N = decltype(dim)::value;
    const auto list = boxes_of<N>(boxes, where);
    const auto step = tessera::incremental_box_step<N>(list, current, target, comm_size, delta, weights,
                                                       max_cells.value_or(tessera::no_cell_budget));
    std::vector<std::size_t> moved;
    for (const tessera::BoxMove& m : step.moves) moved.push_back(m.box);
    return py::make_tuple(step.owners, moved, step.cells, step.excess_before, step.excess_after);
  });
}

// The C++ LocalOrder that `order` names; `size` (the padding multiple or tile side) must be 1 for
// the orders that take none, so that a size given to the wrong order is an error, not ignored.
template <std::size_t N>
tessera::LocalOrder<N> local_order_of(const std::string& order, index_t size) {
  constexpr const char* where = "with_local_order";
  const auto sizeless = [&] {
    if (size != 1)
      tessera::fail_argument(where, "size", size, tessera::detail::concat("must be 1 for \"", order, "\" (only \"padded\" and \"tiled\" take a size)"));
  };
  if (order == "row-major") {
    sizeless();
    return tessera::LocalOrder<N>::row_major();
  }
  if (order == "column-major") {
    sizeless();
    return tessera::LocalOrder<N>::column_major();
  }
  if (order == "padded") return tessera::LocalOrder<N>::padded(size);
  if (order == "tiled") return tessera::LocalOrder<N>::tiled(size);
  tessera::fail_argument(where, "order", tessera::detail::concat('"', order, '"'),
                         "is not one of \"row-major\", \"column-major\", \"padded\", \"tiled\"");
}

template <std::size_t N>
void bind_distribution(py::module_& m) {
  using D = tessera::Distribution<N>;
  py::class_<D>(m, class_name<N>("Distribution").c_str(),
                "Who owns each index and where it sits locally (C++ tessera::Distribution<N>); immutable.")
      .def_property_readonly("ndim", [](const D&) { return N; })
      .def_property_readonly("box", [](const D& d) { return tuple_of(d.domain()); })
      .def_property_readonly("shape", [](const D& d) { return tuple_of(tessera::extents(d.domain())); })
      .def_property_readonly("comm_size", &D::comm_size)
      .def_property_readonly("grid_shape", [](const D& d) { return tuple_of(d.grid().shape()); })
      .def_property_readonly("active_ranks", [](const D& d) { return d.grid().active_ranks(); })
      .def("owner", [](const D& d, const std::vector<index_t>& p) { return d.owner(point_of<N>(p, "owner: point")); },
           py::arg("point"), "The rank owning a global index.")
      .def("owned_box", [](const D& d, int rank) { return tuple_of(d.owned_box(rank)); }, py::arg("rank"),
           "The bounding box (lo, hi) of what `rank` owns.")
      .def("local_size", &D::local_size, py::arg("rank"), "Elements `rank` owns.")
      .def_property_readonly("has_local_layout", &D::has_local_layout,
                             "True if arrays over it store their points in a local order of its own "
                             "(with_local_order): no ghosts, no local views; read DistArray.storage.")
      .def("local_offset",
           [](const D& d, const std::vector<index_t>& p) { return d.local_offset(point_of<N>(p, "local_offset: point")); },
           py::arg("point"),
           "Where `point` sits in its owner's buffer: under a local layout the index into the owner's "
           "DistArray.storage; without one the owned patches one after another, each row-major (the "
           "storage's index for a row-major array without ghosts).")
      .def("local_storage_size", &D::local_storage_size, py::arg("rank"),
           "Elements of `rank`'s buffer: local_size(rank), or more where a padded local order leaves holes.")
      .def_property_readonly(
          "box_set",
          [](const D& d) -> py::object {
            const auto* set = d.box_set();
            if (set == nullptr) return py::none();
            py::list boxes;
            for (const auto& b : set->boxes()) boxes.append(tuple_of(b));
            return py::make_tuple(boxes, set->owners());
          },
          "(boxes, owners) of a box-set distribution, None for another kind.")
      .def("__hash__", &D::hash)
      .def(py::self == py::self)
      .def("__repr__", [](const D& d) { return printed(d); });
  m.def(
      "reduced_distribution",
      [](const D& source, const std::vector<long long>& axes, bool flooded) {
        const std::vector<std::size_t> reduced = axes_of(axes, "reduced_distribution");
        const std::span<const std::size_t> span(reduced);
        return flooded ? tessera::flooded_reduced_distribution(source, span) : tessera::reduced_distribution(source, span);
      },
      py::arg("dist"), py::arg("axes"), py::arg("flooded") = false,
      "The distribution of a partial reduction's result: dist's box with each of `axes` cut to its low index, aligned "
      "with dist (flooded=True: every rank of a reduced grid axis holds a replica).");
  m.def(
      "with_local_order",
      [](const D& dist, const std::string& order, index_t size) { return tessera::with_local_order(dist, local_order_of<N>(order, size)); },
      py::arg("dist"), py::arg("order"), py::arg("size") = 1,
      "`dist` (a user-defined distribution: a box set) with each rank's boxes stored in `order`: \"row-major\", "
      "\"column-major\", \"padded\" (rows rounded up to a multiple of `size`) or \"tiled\" (cubes of side `size`).");
  m.def("relabel_for_locality",
        [](const D& from, const D& target) { return tessera::relabel_for_locality(from, target); },
        py::arg("current"), py::arg("target"),
        "`target` with its ranks placed so that each keeps what it owns in `current` where it can.");
}

}  // namespace

void bind_distributions(py::module_& m) {
  bind_dim_spec(m);
  bind_distribution<1>(m);
  bind_distribution<2>(m);
  bind_distribution<3>(m);
  m.def("_make_distribution", &make_distribution);
  m.def("_from_spec", &from_spec);
  m.def("_box_set", &box_set);
  m.def("_assign_boxes", &assign_boxes);
  m.def("_chop_boxes", &chop_boxes);
  m.def("_incremental_box_step", &incremental_box_step);
}

}  // namespace tessera_python
