#pragma once
/// \file
/// `Box<N>`: a rectangular index set (KeLP's Region, ZPL's region value) and the region calculus.
///
/// **Bounds convention: half-open.** A box is `[lo, hi)` in every dimension: it contains the points
/// `p` with `lo[d] <= p[d] < hi[d]`. Its extent along `d` is `hi[d] - lo[d]`. A box is empty when
/// any extent is <= 0. The whole library uses this convention; the only inclusive form is the
/// named factory `Box::inclusive` (for code ported from KeLP or Fortran, which use `[lo:last]`).
/// \code
///   auto a = tessera::Box<2>({0, 0}, {4, 6});        // rows 0..3, columns 0..5: 24 points
///   auto b = tessera::Box<2>::inclusive({0, 0}, {3, 5});
///   assert(a == b && volume(a) == 24);
///   auto halo = grow(a, 1);                                           // [-1,5)x[-1,7)
///   auto overlap = intersect(halo, tessera::Box<2>({4, 0}, {8, 6}));  // [4,5)x[0,6)
/// \endcode
///
/// All empty boxes denote the same (empty) set and compare equal; a default-constructed box is
/// empty. Operations are `[[nodiscard]]` free functions returning new boxes.

#include <cstddef>
#include <cstdint>
#include <ostream>

#include "tessera/core/error.hpp"
#include "tessera/core/index.hpp"
#include "tessera/geometry/point.hpp"

namespace tessera {

/// A rectangular, half-open set of points: `lo[d] <= p[d] < hi[d]` (see the file comment).
template <std::size_t N>
  requires(N >= 1)
struct Box {
  Point<N> lo{};  ///< first point (inclusive)
  Point<N> hi{};  ///< one past the last point in every dimension (exclusive)

  /// Number of dimensions.
  static constexpr std::size_t rank = N;

  /// The empty box.
  constexpr Box() noexcept = default;
  /// The half-open box `[lo, hi)`.
  constexpr Box(const Point<N>& lo_, const Point<N>& hi_) noexcept : lo(lo_), hi(hi_) {}

  /// The half-open box `[lo, hi)` (same as the constructor, spelled out for readers).
  [[nodiscard]] static constexpr Box half_open(const Point<N>& lo, const Point<N>& hi) noexcept { return {lo, hi}; }
  /// The box `[lo, last]` with both ends included (KeLP and Fortran style).
  [[nodiscard]] static constexpr Box inclusive(const Point<N>& lo, const Point<N>& last) noexcept {
    return {lo, last + Point<N>::filled(1)};
  }
  /// The box starting at `lo` with `extents[d]` points along each dimension.
  [[nodiscard]] static constexpr Box from_extents(const Point<N>& lo, const Point<N>& extents) noexcept {
    return {lo, lo + extents};
  }
  /// `[0, extents)`.
  [[nodiscard]] static constexpr Box from_extents(const Point<N>& extents) noexcept { return {Point<N>{}, extents}; }

  /// True if the box holds no point.
  [[nodiscard]] constexpr bool empty() const noexcept {
    for (std::size_t d = 0; d < N; ++d)
      if (hi[d] <= lo[d]) return true;
    return false;
  }
  /// The last point (inclusive upper corner). Meaningless for an empty box.
  [[nodiscard]] constexpr Point<N> last() const noexcept { return hi - Point<N>::filled(1); }

  /// Set equality: equal bounds, or both empty.
  friend constexpr bool operator==(const Box& a, const Box& b) noexcept {
    const bool ea = a.empty(), eb = b.empty();
    if (ea || eb) return ea == eb;
    return a.lo == b.lo && a.hi == b.hi;
  }
};

/// Orders boxes lexicographically by (lo, hi), for sorting and ordered containers only.
struct BoxLexLess {
  template <std::size_t N>
  constexpr bool operator()(const Box<N>& a, const Box<N>& b) const noexcept {
    if (a.lo != b.lo) return a.lo < b.lo;
    return a.hi < b.hi;
  }
};

/// Number of points along dimension `d` (0 for an empty box).
template <std::size_t N>
[[nodiscard]] constexpr index_t extent(const Box<N>& b, std::size_t d) {
  if (b.empty()) return 0;
  return checked_sub(b.hi[d], b.lo[d], "Box extent");
}

/// Extents along every dimension (all 0 for an empty box).
template <std::size_t N>
[[nodiscard]] constexpr Point<N> extents(const Box<N>& b) {
  Point<N> e;
  if (b.empty()) return e;
  for (std::size_t d = 0; d < N; ++d) e[d] = checked_sub(b.hi[d], b.lo[d], "Box extent");
  return e;
}

/// Number of points. Throws `Error(overflow)` if it does not fit in 64 bits.
template <std::size_t N>
[[nodiscard]] constexpr index_t volume(const Box<N>& b) {
  if (b.empty()) return 0;
  index_t v = 1;
  for (std::size_t d = 0; d < N; ++d) v = checked_mul(v, checked_sub(b.hi[d], b.lo[d], "Box extent"), "Box volume");
  return v;
}

/// True if `p` lies in `b`.
template <std::size_t N>
[[nodiscard]] constexpr bool contains(const Box<N>& b, const Point<N>& p) noexcept {
  for (std::size_t d = 0; d < N; ++d)
    if (p[d] < b.lo[d] || p[d] >= b.hi[d]) return false;
  return true;
}

/// True if every point of `inner` lies in `outer` (an empty box lies in every box).
template <std::size_t N>
[[nodiscard]] constexpr bool contains(const Box<N>& outer, const Box<N>& inner) noexcept {
  if (inner.empty()) return true;
  if (outer.empty()) return false;
  return all_less_equal(outer.lo, inner.lo) && all_less_equal(inner.hi, outer.hi);
}

/// The common points of `a` and `b` (possibly empty).
template <std::size_t N>
[[nodiscard]] constexpr Box<N> intersect(const Box<N>& a, const Box<N>& b) noexcept {
  return {max(a.lo, b.lo), min(a.hi, b.hi)};
}

/// True if `a` and `b` share at least one point.
template <std::size_t N>
[[nodiscard]] constexpr bool intersects(const Box<N>& a, const Box<N>& b) noexcept {
  return !intersect(a, b).empty();
}

/// The smallest box holding both (the empty box is the identity).
template <std::size_t N>
[[nodiscard]] constexpr Box<N> bounding_box(const Box<N>& a, const Box<N>& b) noexcept {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return {min(a.lo, b.lo), max(a.hi, b.hi)};
}

/// Grows the low side of dimension d by `lower[d]` and the high side by `upper[d]` (negative values
/// shrink). An empty box stays empty: growing nothing yields nothing.
template <std::size_t N>
[[nodiscard]] constexpr Box<N> grow(const Box<N>& b, const Point<N>& lower, const Point<N>& upper) noexcept {
  if (b.empty()) return {};
  return {b.lo - lower, b.hi + upper};
}

/// Grows both sides of dimension d by `width[d]`.
template <std::size_t N>
[[nodiscard]] constexpr Box<N> grow(const Box<N>& b, const Point<N>& width) noexcept {
  return grow(b, width, width);
}

/// Grows every side by `width` (KeLP `grow(R, w)`; `grow(R, -w)` trims a ghost layer).
template <std::size_t N>
[[nodiscard]] constexpr Box<N> grow(const Box<N>& b, index_t width) noexcept {
  return grow(b, Point<N>::filled(width));
}

/// Grows one side: `side` < 0 is the low side of `dim`, `side` > 0 the high side.
template <std::size_t N>
[[nodiscard]] constexpr Box<N> grow_side(const Box<N>& b, std::size_t dim, int side, index_t width) noexcept {
  Point<N> lower, upper;
  (side < 0 ? lower : upper)[dim] = width;
  return grow(b, lower, upper);
}

/// Shrinks every side by `width` (`grow(b, -width)`).
template <std::size_t N>
[[nodiscard]] constexpr Box<N> shrink(const Box<N>& b, index_t width) noexcept {
  return grow(b, -width);
}

/// Translates the box by `offset`.
template <std::size_t N>
[[nodiscard]] constexpr Box<N> shift(const Box<N>& b, const Point<N>& offset) noexcept {
  return {b.lo + offset, b.hi + offset};
}

/// Stable hash, equal for all empty boxes (consistent with `operator==`).
template <std::size_t N>
[[nodiscard]] constexpr std::uint64_t hash_value(const Box<N>& b) noexcept {
  if (b.empty()) return hash_combine(N, 0xe3e3e3e3ULL);
  return hash_combine(hash_value(b.lo), hash_value(b.hi));
}

/// Prints `[0,4)x[2,5)` (half-open per dimension), or `[empty]`.
template <std::size_t N>
std::ostream& operator<<(std::ostream& out, const Box<N>& b) {
  if (b.empty()) return out << "[empty" << N << "d]";
  for (std::size_t d = 0; d < N; ++d) out << (d ? "x[" : "[") << b.lo[d] << ',' << b.hi[d] << ')';
  return out;
}

}  // namespace tessera

template <std::size_t N>
struct std::hash<tessera::Box<N>> {
  std::size_t operator()(const tessera::Box<N>& b) const noexcept { return tessera::hash_value(b); }
};
