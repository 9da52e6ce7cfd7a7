// Domain<N> for N = 1..3 (held with its communicator, holders.hpp), its regions, and the operations that change
// its distribution: redistribute (preserving or destructive) and migrate. Both free the arrays'
// storage, so both first refuse, on every rank, while NumPy views of it are alive.
#include <memory>
#include <string>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "communicator.hpp"
#include "convert.hpp"
#include "errors.hpp"
#include "holders.hpp"

namespace py = pybind11;

namespace tessera_python {
namespace {

template <std::size_t N>
void bind_domain(py::module_& m) {
  using H = PyDomain<N>;
  py::class_<H, std::shared_ptr<H>>(m, class_name<N>("Domain").c_str(),
                                    "An index space and its distribution, shared by the arrays over it "
                                    "(C++ tessera::Domain<N>).")
      .def(py::init([](const tessera::Distribution<N>& dist, py::object comm) {
             return std::make_shared<H>(communicator_of(comm), dist);
           }),
           py::arg("distribution"), py::arg("comm") = py::none())
      .def_property_readonly("ndim", [](const H&) { return N; })
      .def_property_readonly("rank", [](const H& d) { return d.domain.rank(); })
      .def_property_readonly("size", [](const H& d) { return d.comm->size(); })
      .def_property_readonly("box", [](const H& d) { return tuple_of(d.domain.box()); })
      .def_property_readonly("shape", [](const H& d) { return tuple_of(tessera::extents(d.domain.box())); })
      .def_property_readonly("distribution", [](const H& d) { return d.domain.distribution(); })
      .def_property_readonly("array_count", [](const H& d) { return d.domain.array_count(); })
      .def_property_readonly("live_views", [](const H& d) { return d.counting().live_views; },
                             "NumPy views of this domain's arrays alive on this rank.")
      .def(
          "redistribute",
          [](H& d, const tessera::Distribution<N>& to, tessera::Redistribution mode) {
            refuse_if_views_held(d, "Domain.redistribute");
            d.domain.redistribute(to, mode);
          },
          py::arg("to"), py::arg("mode") = tessera::Redistribution::preserve,
          "Collective: every array of the domain follows the new distribution (values kept with "
          "Redistribution.preserve; storage only reshaped with Redistribution.destructive).")
      .def(
          "migrate",
          [](H& d, const tessera::Distribution<N>& to) {
            refuse_if_views_held(d, "Domain.migrate");
            return d.domain.migrate(to);
          },
          py::arg("to"), "Collective: an incremental move over the same box; returns the seconds (max over ranks).")
      .def(
          "region",
          [](const std::shared_ptr<H>& d, const py::object& box) {
            // ((lo...), (hi...)) or a shape, read as Distribution's box is (tessera/_layout.py).
            const auto lists = py::module_::import("tessera._layout").attr("_box_lists")(box).cast<py::tuple>();
            const auto lo = lists[0].cast<std::vector<tessera::index_t>>();
            const auto hi = lists[1].cast<std::vector<tessera::index_t>>();
            return std::make_shared<H>(d, d->domain.region(box_of<N>(lo, hi, "Domain.region: box")));
          },
          py::arg("box"),
          "ZPL's region: a domain over `box` (inside this one's) whose indices have the owners they have "
          "here; its arrays follow this domain's redistributions and migrations. Not collective; declare "
          "it alike on every rank.")
      .def_property_readonly("is_region", [](const H& d) { return d.domain.is_region(); })
      .def("set_spare_rows", [](H& d, double fraction) { d.domain.set_spare_rows(fraction); }, py::arg("fraction"));
}

}  // namespace

void bind_domains(py::module_& m) {
  py::enum_<tessera::Redistribution>(m, "Redistribution", "What a redistribution does with the values.")
      .value("preserve", tessera::Redistribution::preserve)
      .value("destructive", tessera::Redistribution::destructive);
  py::enum_<tessera::CombineOp>(m, "CombineOp", "How accumulate_ghosts combines a ghost value into its owner.")
      .value("replace", tessera::CombineOp::replace)
      .value("add", tessera::CombineOp::add)
      .value("multiply", tessera::CombineOp::multiply)
      .value("min", tessera::CombineOp::min)
      .value("max", tessera::CombineOp::max);
  bind_domain<1>(m);
  bind_domain<2>(m);
  bind_domain<3>(m);
}

}  // namespace tessera_python
