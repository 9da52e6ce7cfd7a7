#pragma once
// What the bindings of sparse and associative domains share (sparse.cpp, associative.cpp): batches
// of points and keys from NumPy arrays, and conversion failures agreed across ranks, because every
// call that takes a batch is collective: a rank that failed alone would leave the others waiting.
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <optional>
#include <span>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "tessera/tessera.hpp"

namespace tessera_python {

/// A C-ordered NumPy array of `T` converted from any array-like, or `Error(invalid_argument)`
/// naming `what` if NumPy cannot convert it.
template <class T>
[[nodiscard]] pybind11::array_t<T, pybind11::array::c_style | pybind11::array::forcecast> numpy_batch(
    const pybind11::handle& batch, const char* what) {
  auto a = pybind11::array_t<T, pybind11::array::c_style | pybind11::array::forcecast>::ensure(batch);
  if (!a) tessera::fail(tessera::ErrorCode::invalid_argument, what, ": not convertible to a NumPy array of numbers");
  return a;
}

/// A 1-D batch (keys, values) as a vector; an empty batch of any shape is empty.
template <class T>
[[nodiscard]] std::vector<T> flat_batch(const pybind11::handle& batch, const char* what) {
  const auto a = numpy_batch<T>(batch, what);
  if (a.size() == 0) return {};
  if (a.ndim() != 1)
    tessera::fail(tessera::ErrorCode::invalid_argument, what, ": a 1-D batch expected, got ", a.ndim(), " dimensions");
  return std::vector<T>(a.data(), a.data() + a.size());
}

/// Points from an array of shape (k, N) (or (k,) for N = 1); an empty batch is no points.
template <std::size_t N>
[[nodiscard]] std::vector<tessera::Point<N>> point_batch(const pybind11::handle& batch, const char* what) {
  const auto a = numpy_batch<std::int64_t>(batch, what);
  if (a.size() == 0) return {};
  const bool flat_1d = N == 1 && a.ndim() == 1;
  if (!flat_1d && (a.ndim() != 2 || a.shape(1) != static_cast<pybind11::ssize_t>(N)))
    tessera::fail(tessera::ErrorCode::invalid_argument, what, ": points of shape (k, ", N, ") expected, got ",
                  a.ndim(), " dimension(s) of ", a.size(), " numbers");
  std::vector<tessera::Point<N>> out(static_cast<std::size_t>(a.shape(0)));
  const std::int64_t* x = a.data();
  for (std::size_t k = 0; k < out.size(); ++k)
    for (std::size_t d = 0; d < N; ++d) out[k][d] = x[k * N + d];
  return out;
}

/// Points as a NumPy array of shape (k, N) (a copy).
template <std::size_t N>
[[nodiscard]] pybind11::array_t<std::int64_t> point_array(std::span<const tessera::Point<N>> points) {
  pybind11::array_t<std::int64_t> out({static_cast<pybind11::ssize_t>(points.size()), static_cast<pybind11::ssize_t>(N)});
  std::int64_t* x = out.mutable_data();
  for (std::size_t k = 0; k < points.size(); ++k)
    for (std::size_t d = 0; d < N; ++d) x[k * N + d] = points[k][d];
  return out;
}

/// Collective: `convert()` on every rank; if it throws on some rank, every rank throws the lowest
/// failing rank's error.
template <class F>
[[nodiscard]] auto agreed_batch(const tessera::Communicator& comm, F&& convert) -> decltype(convert()) {
  std::optional<tessera::Error> failed;
  decltype(convert()) out{};
  try {
    out = convert();
  } catch (const tessera::Error& e) {
    failed = e;
  }
  comm.agree(failed);
  return out;
}

/// A copy of `values` as a 1-D NumPy array.
template <class T>
[[nodiscard]] pybind11::array_t<T> value_array(std::span<const T> values) {
  pybind11::array_t<T> out(static_cast<pybind11::ssize_t>(values.size()));
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

}  // namespace tessera_python
