#pragma once
// Conversions between Python values and tessera's value types: points and boxes as tuples, the
// run-time dimension (len of a shape) to the compile-time N, element types to NumPy names.
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>

#include "tessera/tessera.hpp"

namespace tessera_python {

/// A Point<N> from a list of N integers; `Error(invalid_argument)` naming `what` otherwise.
template <std::size_t N>
[[nodiscard]] tessera::Point<N> point_of(const std::vector<tessera::index_t>& v, const char* what) {
  if (v.size() != N)
    tessera::fail(tessera::ErrorCode::invalid_argument, what, ": ", v.size(), " entries given for ", N,
                  " dimension(s)");
  tessera::Point<N> p;
  for (std::size_t d = 0; d < N; ++d) p[d] = v[d];
  return p;
}

/// A point as a Python tuple.
template <std::size_t N>
[[nodiscard]] pybind11::tuple tuple_of(const tessera::Point<N>& p) {
  pybind11::tuple t(N);
  for (std::size_t d = 0; d < N; ++d) t[d] = p[d];
  return t;
}

/// A box as the tuple (lo, hi) of two tuples (half-open, as in C++).
template <std::size_t N>
[[nodiscard]] pybind11::tuple tuple_of(const tessera::Box<N>& b) {
  return pybind11::make_tuple(tuple_of(b.lo), tuple_of(b.hi));
}

/// A Box<N> from lo and hi lists.
template <std::size_t N>
[[nodiscard]] tessera::Box<N> box_of(const std::vector<tessera::index_t>& lo, const std::vector<tessera::index_t>& hi,
                                     const char* what) {
  return tessera::Box<N>(point_of<N>(lo, what), point_of<N>(hi, what));
}

/// The ghost spec from the lists the Python wrapper normalises (tessera/_arrays.py, Ghosts).
template <std::size_t N>
tessera::GhostSpec<N> ghost_spec_of(const std::vector<tessera::index_t>& lower,
                                    const std::vector<tessera::index_t>& upper, const std::vector<bool>& periodic,
                                    bool corners) {
  tessera::Periodicity<N> p{};
  if (periodic.size() != N)
    tessera::fail(tessera::ErrorCode::invalid_argument, "ghosts: periodic has ", periodic.size(), " entries, not ", N);
  for (std::size_t d = 0; d < N; ++d) p[d] = periodic[d];
  auto g = tessera::GhostSpec<N>::sides(point_of<N>(lower, "ghosts: lower"), point_of<N>(upper, "ghosts: upper"))
               .periodic_along(p);
  return corners ? g : g.faces_only();
}

/// Axes from Python integers (a negative one is `Error(invalid_argument)` naming `where`, as the
/// C++ call gives for one past the last axis).
[[nodiscard]] inline std::vector<std::size_t> axes_of(const std::vector<long long>& axes, const char* where) {
  std::vector<std::size_t> out;
  for (const long long a : axes) {
    if (a < 0) tessera::fail_argument(where, "axes", a, "is not an axis (axes count from 0)");
    out.push_back(static_cast<std::size_t>(a));
  }
  return out;
}

/// A box assignment policy by name, "knapsack", "morton" or "hilbert"; `Error(invalid_argument)` naming
/// `where` and `argument` for any other.
[[nodiscard]] inline tessera::BoxAssignment box_assignment_of(const std::string& policy, const char* where,
                                                              const char* argument) {
  if (policy == "knapsack") return tessera::BoxAssignment::knapsack;
  if (policy == "morton") return tessera::BoxAssignment::morton;
  if (policy == "hilbert") return tessera::BoxAssignment::hilbert;
  tessera::fail_argument(where, argument, policy, "must be 'knapsack', 'morton' or 'hilbert'");
}

/// Calls f(std::integral_constant<std::size_t, N>{}) for n = N in 1..3, the dimensions the module
/// instantiates; `Error(invalid_argument)` naming `what` for any other n.
template <class F>
decltype(auto) with_dimension(std::size_t n, const char* what, F&& f) {
  switch (n) {
    case 1: return f(std::integral_constant<std::size_t, 1>{});
    case 2: return f(std::integral_constant<std::size_t, 2>{});
    case 3: return f(std::integral_constant<std::size_t, 3>{});
    default:
      tessera::fail(tessera::ErrorCode::invalid_argument, what, ": ", n,
                    " dimensions; the Python module has arrays of 1, 2 and 3 dimensions");
  }
}

/// The NumPy name of an element type (the suffix of the bound class names too).
template <class T>
[[nodiscard]] constexpr const char* dtype_name() {
  if constexpr (std::is_same_v<T, float>) return "float32";
  else if constexpr (std::is_same_v<T, double>) return "float64";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  else if constexpr (std::is_same_v<T, std::complex<double>>) return "complex128";
  else static_assert(sizeof(T) == 0, "not an element type of the Python module");
}

/// "Domain2D", "DistArray_float64_2D": the name of a bound instantiation.
template <std::size_t N>
[[nodiscard]] std::string class_name(const char* stem) {
  return std::string(stem) + std::to_string(N) + "D";
}
template <class T, std::size_t N>
[[nodiscard]] std::string array_class_name() {
  return std::string("DistArray_") + dtype_name<T>() + "_" + std::to_string(N) + "D";
}

}  // namespace tessera_python
