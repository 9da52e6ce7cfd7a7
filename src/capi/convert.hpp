#pragma once
// Conversions between the C API's value types (tessera_box, tessera_dim_spec, ...) and the C++
// library's, each validating what C cannot (enum values, null pointers, counts).

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "objects.hpp"

namespace tessera::capi {

/// The N coordinates at `p` (TESSERA_ERR_INVALID_ARGUMENT naming `argument` if it is null).
template <std::size_t N>
[[nodiscard]] Point<N> to_point(const std::int64_t* p, const char* argument) {
  require_pointer(argument, p);
  Point<N> out;
  for (std::size_t d = 0; d < N; ++d) out[d] = p[d];
  return out;
}

template <std::size_t N>
void from_point(const Point<N>& p, std::int64_t* out) noexcept {
  for (std::size_t d = 0; d < N; ++d) out[d] = p[d];
}

template <std::size_t N>
[[nodiscard]] Box<N> to_box(const tessera_box* b, const char* argument) {
  require_pointer(argument, b);
  Box<N> out;
  for (std::size_t d = 0; d < N; ++d) {
    out.lo[d] = b->lo[d];
    out.hi[d] = b->hi[d];
  }
  return out;
}

/// `b` as a tessera_box, entries past N zero.
template <std::size_t N>
[[nodiscard]] tessera_box from_box(const Box<N>& b) noexcept {
  tessera_box out{};
  for (std::size_t d = 0; d < N; ++d) {
    out.lo[d] = b.lo[d];
    out.hi[d] = b.hi[d];
  }
  return out;
}

/// A C array of `count` entries as a vector; null is allowed only for count 0.
template <class T>
[[nodiscard]] std::vector<T> to_vector(const T* data, std::size_t count, const char* argument) {
  std::vector<T> out;
  if (count == 0) return out;
  require_pointer(argument, data);
  out.assign(data, data + count);
  return out;
}

/// One dimension's spec; `argument` names it in messages ("specs[1]").
[[nodiscard]] DimSpec to_spec(const tessera_dim_spec& spec, const std::string& argument);

template <std::size_t N>
[[nodiscard]] std::array<DimSpec, N> to_specs(const tessera_dim_spec* specs) {
  require_pointer("specs", specs);
  std::array<DimSpec, N> out;
  for (std::size_t d = 0; d < N; ++d) out[d] = to_spec(specs[d], "specs[" + std::to_string(d) + "]");
  return out;
}

/// A list of `count` axes of an N-dimensional object as dimensions (TESSERA_ERR_INVALID_ARGUMENT for
/// a negative entry, as the C++ call gives for entries >= N, repeats and an empty list).
template <std::size_t N>
[[nodiscard]] std::vector<std::size_t> to_axes(const int* axes, std::size_t count) {
  std::vector<std::size_t> out;
  for (const int axis : to_vector(axes, count, "axes")) {
    if (axis < 0)
      fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'axes' holds ", axis, ", not an axis of a ", N,
             "-dimensional object");
    out.push_back(static_cast<std::size_t>(axis));
  }
  return out;
}

/// D3-ARC's r: `order` (N entries, a permutation of 0..N-1), or the natural order for NULL.
template <std::size_t N>
[[nodiscard]] typename Distribution<N>::Order to_order(const int* order) {
  auto out = Distribution<N>::natural_order();
  if (order == nullptr) return out;
  std::array<bool, N> seen{};
  for (std::size_t k = 0; k < N; ++k) {
    if (order[k] < 0 || order[k] >= static_cast<int>(N) || seen[static_cast<std::size_t>(order[k])])
      fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'order[", k, "]' = ", order[k],
             " makes order not a permutation of 0..", N - 1);
    seen[static_cast<std::size_t>(order[k])] = true;
    out[k] = order[k];
  }
  return out;
}

/// The ghost spec `g` describes (none for NULL).
template <std::size_t N>
[[nodiscard]] GhostSpec<N> to_ghosts(const tessera_ghosts* g) {
  if (g == nullptr) return no_ghosts<N>();
  Point<N> lower, upper;
  Periodicity<N> periodic{};
  for (std::size_t d = 0; d < N; ++d) {
    lower[d] = g->lower[d];
    upper[d] = g->upper[d];
    periodic[d] = g->periodic[d] != 0;
  }
  GhostSpec<N> out = GhostSpec<N>::sides(lower, upper).periodic_along(periodic);
  return g->faces_only ? out.faces_only() : out;
}

/// The C++ combine op of `op` (TESSERA_ERR_INVALID_ARGUMENT naming `argument` for other values).
[[nodiscard]] CombineOp to_op(tessera_op op, const char* argument);

/// The C++ redistribution mode.
[[nodiscard]] Redistribution to_mode(tessera_redistribution mode);

/// The C++ storage order (TESSERA_ERR_INVALID_ARGUMENT for another value).
[[nodiscard]] StorageOrder to_storage_order(tessera_storage_order order);

}  // namespace tessera::capi
