#pragma once
// The reductions of a DistArray class: the same bits on every rank (the library's deterministic
// reductions). min, max and their locations exist only for ordered element types (not complex).
#include <algorithm>
#include <complex>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "convert.hpp"
#include "holders.hpp"

namespace tessera_python {
namespace detail {

/// Calls `f(identity, fold)` with the fold named `op` on T: sum, prod (wrapping on integers), min,
/// max (the last two for ordered types); `Error(invalid_argument)` naming `where` otherwise.
template <class T, class F>
decltype(auto) with_named_fold(const char* where, const std::string& op, F&& f) {
  constexpr bool ordered = !std::is_same_v<T, std::complex<double>>;
  if (op == "sum") return f(T{}, tessera::WrappingPlus{});
  if (op == "prod") return f(T{1}, tessera::WrappingMultiplies{});
  if constexpr (ordered) {
    if (op == "min") return f(std::numeric_limits<T>::max(), [](T x, T y) { return std::min(x, y); });
    if (op == "max") return f(std::numeric_limits<T>::lowest(), [](T x, T y) { return std::max(x, y); });
  }
  tessera::fail_argument(where, "op", op,
                         ordered ? "must be sum, prod, min or max" : "must be sum or prod (complex is not ordered)");
}

/// ZPL's partial reduction `op<< [axis]` of `a` by name; row-major over the box without `axis`.
template <class T, std::size_t N>
std::vector<T> fold_along(const PyArray<T, N>& a, std::size_t axis, const std::string& op) {
  return with_named_fold<T>("DistArray.reduce_along", op, [&](const T& identity, auto fold) {
    return a.array.reduce_along(axis, identity, fold);
  });
}

/// The folded values as a NumPy array shaped as the box of `a` without `axis`.
template <class T, std::size_t N>
pybind11::array_t<T> along_image(const PyArray<T, N>& a, std::size_t axis, const std::vector<T>& values) {
  std::vector<pybind11::ssize_t> shape;
  const tessera::Point<N> e = tessera::extents(a.domain->domain.box());
  for (std::size_t d = 0; d < N; ++d)
    if (d != axis) shape.push_back(e[d]);
  if (shape.empty()) shape.push_back(1);  // N == 1: one value
  pybind11::array_t<T> out(shape);
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

}  // namespace detail

/// ZPL's partial reduction into a distributed array, `dst := op<< [axes] src`, as a module function
/// (overloaded per type): `dst` is over the reduced box, any distribution (see reduced_distribution).
template <class T, std::size_t N>
void add_reduce_into(pybind11::module_& m) {
  namespace py = pybind11;
  using A = PyArray<T, N>;
  m.def(
      "reduce_into",
      [](const A& src, const std::vector<long long>& axes, A& dst, const std::string& op) {
        const auto reduced = axes_of(axes, "reduce_into");
        detail::with_named_fold<T>("reduce_into", op, [&](const T& identity, auto fold) {
          tessera::reduce_into(src.array, std::span<const std::size_t>(reduced), dst.array, identity, fold);
        });
      },
      py::arg("src"), py::arg("axes"), py::arg("dst"), py::arg("op") = "sum",
      "Collective: ZPL's op<< into a distributed array: dst(q) = op over the src points equal to q off `axes` "
      "(sum, prod, min, max); dst is over src's box with each reduced axis cut to its low index.");
}

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
        return detail::along_image<T, N>(a, axis, detail::fold_along<T, N>(a, axis, op));
      },
      py::arg("axis"), py::arg("op") = "sum",
      "Collective: `op` (sum, prod, min, max) folded along `axis`: a NumPy array shaped as the box "
      "without that axis (shape (1,) for a 1-D array).");
}

}  // namespace tessera_python
