#pragma once
/// \file
/// `Point<N>`: an integer index in Z^N (KeLP's Point, one element of a ZPL region).

#include <algorithm>
#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <ostream>

#include "tessera/core/hash.hpp"
#include "tessera/core/index.hpp"

namespace tessera {

/// An N-dimensional integer point. A regular, trivially copyable value type; an aggregate, so
/// `Point<3>{1, -2, 7}` works. Coordinate 0 is the slowest-varying dimension in row-major order.
///
/// `operator<=>` is the lexicographic order, for sorting and map keys only. Component-wise
/// comparisons have names (`all_less`, `all_less_equal`) because they are not a strict weak order.
template <std::size_t N>
  requires(N >= 1)
struct Point {
  /// The coordinates, dimension 0 first.
  std::array<index_t, N> coord{};

  /// Number of dimensions.
  static constexpr std::size_t rank = N;

  /// The point with every coordinate equal to `value`.
  [[nodiscard]] static constexpr Point filled(index_t value) noexcept {
    Point p;
    p.coord.fill(value);
    return p;
  }
  /// The unit vector along `dim`, scaled by `length`.
  [[nodiscard]] static constexpr Point unit(std::size_t dim, index_t length = 1) noexcept {
    Point p;
    p.coord[dim] = length;
    return p;
  }

  /// Coordinate d (unchecked).
  [[nodiscard]] constexpr index_t& operator[](std::size_t d) noexcept { return coord[d]; }
  [[nodiscard]] constexpr const index_t& operator[](std::size_t d) const noexcept { return coord[d]; }

  constexpr Point& operator+=(const Point& o) noexcept {
    for (std::size_t d = 0; d < N; ++d) coord[d] += o.coord[d];
    return *this;
  }
  constexpr Point& operator-=(const Point& o) noexcept {
    for (std::size_t d = 0; d < N; ++d) coord[d] -= o.coord[d];
    return *this;
  }
  [[nodiscard]] friend constexpr Point operator+(Point a, const Point& b) noexcept { return a += b; }
  [[nodiscard]] friend constexpr Point operator-(Point a, const Point& b) noexcept { return a -= b; }
  [[nodiscard]] friend constexpr Point operator-(Point a) noexcept {
    for (auto& c : a.coord) c = -c;
    return a;
  }
  [[nodiscard]] friend constexpr Point operator*(Point a, index_t s) noexcept {
    for (auto& c : a.coord) c *= s;
    return a;
  }

  friend constexpr bool operator==(const Point&, const Point&) = default;
  friend constexpr auto operator<=>(const Point&, const Point&) = default;
};

/// True if `a[d] < b[d]` for every dimension (not a strict weak order; see Point).
template <std::size_t N>
[[nodiscard]] constexpr bool all_less(const Point<N>& a, const Point<N>& b) noexcept {
  for (std::size_t d = 0; d < N; ++d)
    if (!(a[d] < b[d])) return false;
  return true;
}

/// True if `a[d] <= b[d]` for every dimension.
template <std::size_t N>
[[nodiscard]] constexpr bool all_less_equal(const Point<N>& a, const Point<N>& b) noexcept {
  for (std::size_t d = 0; d < N; ++d)
    if (!(a[d] <= b[d])) return false;
  return true;
}

/// Component-wise minimum.
template <std::size_t N>
[[nodiscard]] constexpr Point<N> min(const Point<N>& a, const Point<N>& b) noexcept {
  Point<N> r;
  for (std::size_t d = 0; d < N; ++d) r[d] = std::min(a[d], b[d]);
  return r;
}

/// Component-wise maximum.
template <std::size_t N>
[[nodiscard]] constexpr Point<N> max(const Point<N>& a, const Point<N>& b) noexcept {
  Point<N> r;
  for (std::size_t d = 0; d < N; ++d) r[d] = std::max(a[d], b[d]);
  return r;
}

/// Stable hash (see core/hash.hpp).
template <std::size_t N>
[[nodiscard]] constexpr std::uint64_t hash_value(const Point<N>& p) noexcept {
  std::uint64_t h = N;
  for (index_t c : p.coord) h = hash_combine(h, static_cast<std::uint64_t>(c));
  return h;
}

/// Prints `(1, -2, 7)`.
template <std::size_t N>
std::ostream& operator<<(std::ostream& out, const Point<N>& p) {
  out << '(';
  for (std::size_t d = 0; d < N; ++d) out << (d ? ", " : "") << p[d];
  return out << ')';
}

}  // namespace tessera

template <std::size_t N>
struct std::hash<tessera::Point<N>> {
  std::size_t operator()(const tessera::Point<N>& p) const noexcept { return tessera::hash_value(p); }
};
