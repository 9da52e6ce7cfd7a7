#pragma once
// The DistArray classes of one element type, N = 1..3: the class (construction, shape, ghosts)
// plus the methods of array_views.hpp, array_movement.hpp, array_boundary.hpp and array_reductions.hpp and the remap
// functions. Instantiated once per element type by arrays_<dtype>.cpp, so that the five
// instantiations compile in parallel.
#include <memory>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "array_boundary.hpp"
#include "array_movement.hpp"
#include "array_reductions.hpp"
#include "array_views.hpp"
#include "convert.hpp"
#include "holders.hpp"

namespace tessera_python {

template <class T, std::size_t N>
void bind_array(pybind11::module_& m) {
  namespace py = pybind11;
  using A = PyArray<T, N>;
  py::class_<A, std::shared_ptr<A>> cls(m, array_class_name<T, N>().c_str(),
                                        "A distributed array (C++ tessera::DistArray<T, N>); build it with "
                                        "tessera.DistArray(domain, dtype, ghosts).");
  cls.def(py::init([](std::shared_ptr<PyDomain<N>> dom, const std::vector<tessera::index_t>& lower,
                      const std::vector<tessera::index_t>& upper, const std::vector<bool>& periodic, bool corners) {
            return std::make_shared<A>(std::move(dom), ghost_spec_of<N>(lower, upper, periodic, corners));
          }),
          py::arg("domain"), py::arg("lower"), py::arg("upper"), py::arg("periodic"), py::arg("corners"))
      .def_property_readonly("dtype", [](const A&) { return py::dtype::of<T>(); })
      .def_property_readonly("ndim", [](const A&) { return N; })
      .def_property_readonly("domain", [](const A& a) { return a.domain; })
      .def_property_readonly("box", [](const A& a) { return tuple_of(a.domain->domain.box()); })
      .def_property_readonly("shape", [](const A& a) { return tuple_of(tessera::extents(a.domain->domain.box())); })
      .def_property_readonly("ghost_widths", [](const A& a) {
        return py::make_tuple(tuple_of(a.array.ghosts().lower), tuple_of(a.array.ghosts().upper));
      }, "(lower, upper) ghost widths per dimension.")
      .def_property_readonly("reallocations", [](const A& a) { return a.array.reallocations(); });
  add_view_methods<T, N>(cls);
  add_movement_methods<T, N>(cls);
  add_boundary_methods<T, N>(cls);
  add_reduction_methods<T, N>(cls);
  add_remap_functions<T, N>(m);
  add_reduce_into<T, N>(m);
}

/// Every class of element type T.
template <class T>
void bind_arrays(pybind11::module_& m) {
  bind_array<T, 1>(m);
  bind_array<T, 2>(m);
  bind_array<T, 3>(m);
}

}  // namespace tessera_python
