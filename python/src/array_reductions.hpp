#pragma once
// The reductions of a DistArray class: the same bits on every rank (the library's deterministic
// reductions). min, max and their locations exist only for ordered element types (not complex).
#include <complex>
#include <string>
#include <type_traits>

#include <pybind11/stl.h>

#include "convert.hpp"
#include "holders.hpp"

namespace tessera_python {

/// Adds sum, prod, min, max, min_loc, max_loc and reduce_along to the class of DistArray<T, N>.
template <class T, std::size_t N, class Class>
void add_reduction_methods(Class& cls) {
  namespace py = pybind11;
  using A = PyArray<T, N>;
  constexpr bool ordered = !std::is_same_v<T, std::complex<double>>;
  cls.def("sum", [](const A& a) { return a.array.sum(); }, "Collective: the sum (integers wrap modulo 2^bits).")
      .def("prod", [](const A& a) { return a.array.reduce(T{1}, tessera::WrappingMultiplies{}); },
           "Collective: the product (integers wrap modulo 2^bits).");
  if constexpr (ordered) {
    cls.def("min", [](const A& a) { return a.array.min(); }, "Collective: the smallest element.")
        .def("max", [](const A& a) { return a.array.max(); }, "Collective: the largest element.")
        .def("min_loc", [](const A& a) {
              const auto r = a.array.min_loc();
              return py::make_tuple(r.value, tuple_of(r.at));
            }, "Collective: (value, point) of the smallest element, the lexicographically first point on ties.")
        .def("max_loc", [](const A& a) {
              const auto r = a.array.max_loc();
              return py::make_tuple(r.value, tuple_of(r.at));
            }, "Collective: (value, point) of the largest element.");
  }
  cls.def(
      "reduce_along",
      [](const A& a, std::size_t axis, const std::string& op) {
        if (op == "sum") return a.array.reduce_along(axis, T{}, tessera::WrappingPlus{});
        if (op == "prod") return a.array.reduce_along(axis, T{1}, tessera::WrappingMultiplies{});
        if constexpr (ordered) {
          if (op == "min")
            return a.array.reduce_along(axis, std::numeric_limits<T>::max(), [](T x, T y) { return std::min(x, y); });
          if (op == "max")
            return a.array.reduce_along(axis, std::numeric_limits<T>::lowest(), [](T x, T y) { return std::max(x, y); });
        }
        tessera::fail_argument("DistArray.reduce_along", "op", op,
                               ordered ? "must be sum, prod, min or max" : "must be sum or prod (complex is not ordered)");
      },
      py::arg("axis"), py::arg("op") = "sum",
      "Collective: `op` folded along `axis`; one value per point of the box without that axis, row-major.");
}

}  // namespace tessera_python
