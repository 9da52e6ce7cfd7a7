#pragma once
/// \file
/// Index spaces of refinement levels (AMR): a refinement ratio per axis, and coarsening and
/// refining of points and boxes between a level and the next finer one. Cell k of a coarse level
/// covers fine cells [k r, (k + 1) r) along an axis with ratio r; coarsening rounds toward minus
/// infinity, so negative indices behave like positive ones.
/// \code
///   const tessera::Point<2> r{2, 4};
///   tessera::coarsen(tessera::Point<2>{-1, 9}, r);                       // (-1, 2)
///   tessera::refine(tessera::Box<2>({0, 1}, {2, 3}), r);                 // [0,4)x[4,12)
///   tessera::coarsen(tessera::Box<2>({1, 1}, {3, 5}), r);                // [0,2)x[0,2): every coarse cell met
///   tessera::is_aligned(tessera::Box<2>({0, 4}, {2, 8}), r);             // true: refine(coarsen(b)) == b
/// \endcode
#include <cstddef>
#include <string_view>

#include "tessera/core/error.hpp"
#include "tessera/core/index.hpp"
#include "tessera/geometry/box.hpp"
#include "tessera/geometry/point.hpp"

namespace tessera {

/// Throws `Error(invalid_argument)` naming `where` and `argument` unless every component of
/// `ratio` is >= 1 (a ratio of 0 or a negative one has no meaning).
template <std::size_t N>
void check_ratio(std::string_view where, std::string_view argument, const Point<N>& ratio) {
  for (std::size_t d = 0; d < N; ++d)
    if (ratio[d] < 1)
      fail_argument(where, argument, ratio, detail::concat("has ", ratio[d], " along axis ", d, ": must be >= 1"));
}

/// The coarse cell holding fine cell `p` (ratio components >= 1).
template <std::size_t N>
[[nodiscard]] constexpr Point<N> coarsen(const Point<N>& p, const Point<N>& ratio) noexcept {
  Point<N> c;
  for (std::size_t d = 0; d < N; ++d) c[d] = floor_div(p[d], ratio[d]);
  return c;
}

/// The coarse cells that meet `b` (empty for an empty box).
template <std::size_t N>
[[nodiscard]] constexpr Box<N> coarsen(const Box<N>& b, const Point<N>& ratio) noexcept {
  if (b.empty()) return {};
  Box<N> c;
  for (std::size_t d = 0; d < N; ++d) {
    c.lo[d] = floor_div(b.lo[d], ratio[d]);
    c.hi[d] = floor_div(b.hi[d] - 1, ratio[d]) + 1;
  }
  return c;
}

/// The fine cells covered by coarse box `b`.
template <std::size_t N>
[[nodiscard]] constexpr Box<N> refine(const Box<N>& b, const Point<N>& ratio) noexcept {
  if (b.empty()) return {};
  Box<N> f;
  for (std::size_t d = 0; d < N; ++d) {
    f.lo[d] = b.lo[d] * ratio[d];
    f.hi[d] = b.hi[d] * ratio[d];
  }
  return f;
}

/// True if `b` is a union of whole coarse cells: its bounds are multiples of the ratio.
template <std::size_t N>
[[nodiscard]] constexpr bool is_aligned(const Box<N>& b, const Point<N>& ratio) noexcept {
  for (std::size_t d = 0; d < N; ++d)
    if (b.lo[d] % ratio[d] != 0 || b.hi[d] % ratio[d] != 0) return false;
  return true;
}

}  // namespace tessera
