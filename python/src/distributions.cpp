// DimSpec and its builders (block, cut, cyclic, ...), Distribution<N> for N = 1..3 and the
// construction of one from a shape, a grid and per-dimension specs or from a spec text.
#include <cstdint>
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
      .def("__hash__", &D::hash)
      .def(py::self == py::self)
      .def("__repr__", [](const D& d) { return printed(d); });
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
}

}  // namespace tessera_python
