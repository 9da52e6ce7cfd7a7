#pragma once
/// \file
/// Interpolation from a coarse level to a fine one (prolongation), as `LevelTransfer` applies it
/// to each fine cell it fills: piecewise constant, linear (central slopes, one-sided where a
/// neighbour is missing), or a function of the user's. An interpolator sees the coarse cells
/// around the fine cell through `CoarseCells`.
/// \code
///   // A user interpolator: the coarse value times 2 (what a test might want).
///   tessera::Interpolator<double, 2> twice = [](const tessera::CoarseCells<double, 2>& c,
///                                               const tessera::Point<2>& fine) {
///     return 2.0 * c(c.under(fine));
///   };
/// \endcode
#include <cstddef>
#include <functional>

#include "tessera/geometry/box.hpp"
#include "tessera/geometry/box_iteration.hpp"
#include "tessera/geometry/refinement.hpp"

namespace tessera {

/// Read access to the coarse cells a fine patch may interpolate from: the coarse cells under it
/// and its ghosts, and one more layer (`available` says which of them hold coarse data).
template <class T, std::size_t N>
class CoarseCells {
 public:
  CoarseCells(const T* base, const Point<N>& origin, const Point<N>& strides, const Box<N>& stored,
              const unsigned char* held, const Point<N>& ratio) noexcept
      : base_(base), origin_(origin), strides_(strides), stored_(stored), held_(held), ratio_(ratio) {}
  /// The coarse cell under fine cell `fine`.
  [[nodiscard]] Point<N> under(const Point<N>& fine) const noexcept { return coarsen(fine, ratio_); }
  /// True if coarse cell `c` holds coarse data here (inside the coarse domain, held by a coarse box
  /// and within reach of this patch).
  [[nodiscard]] bool available(const Point<N>& c) const noexcept {
    return contains(stored_, c) && held_[offset_row_major(stored_, c)] != 0;
  }
  /// The value of coarse cell `c` (which must be `available`).
  [[nodiscard]] const T& operator()(const Point<N>& c) const noexcept {
    index_t off = 0;
    for (std::size_t d = 0; d < N; ++d) off += (c[d] - origin_[d]) * strides_[d];
    return base_[off];
  }
  /// The refinement ratio.
  [[nodiscard]] const Point<N>& ratio() const noexcept { return ratio_; }

 private:
  const T* base_;
  Point<N> origin_, strides_;
  Box<N> stored_;
  const unsigned char* held_;
  Point<N> ratio_;
};

/// A prolongation rule: the value of fine cell `fine` from the coarse cells around it.
template <class T, std::size_t N>
using Interpolator = std::function<T(const CoarseCells<T, N>&, const Point<N>& fine)>;

/// Piecewise constant: the value of the coarse cell under the fine one (conservative, first order).
template <class T, std::size_t N>
[[nodiscard]] Interpolator<T, N> piecewise_constant() {
  return [](const CoarseCells<T, N>& c, const Point<N>& fine) { return c(c.under(fine)); };
}

/// Linear: the coarse value plus, per axis, a slope times the distance from the coarse cell's
/// centre to the fine cell's, in coarse cells. The slope is the central difference where both
/// neighbours are available, one-sided where one is, 0 where none is: exact for linear functions
/// whenever one neighbour per axis is available (always, inside a properly nested level).
/// Unlimited, so it can overshoot at discontinuities. T needs `+`, `-` and `* double`.
template <class T, std::size_t N>
[[nodiscard]] Interpolator<T, N> linear_interpolation() {
  return [](const CoarseCells<T, N>& c, const Point<N>& fine) {
    const Point<N> k = c.under(fine);
    const T centre = c(k);
    T value = centre;
    for (std::size_t d = 0; d < N; ++d) {
      Point<N> lo = k, hi = k;
      --lo[d];
      ++hi[d];
      const bool has_lo = c.available(lo), has_hi = c.available(hi);
      T slope{};
      if (has_lo && has_hi)
        slope = (c(hi) - c(lo)) * 0.5;
      else if (has_hi)
        slope = c(hi) - centre;
      else if (has_lo)
        slope = centre - c(lo);
      else
        continue;
      const index_t r = c.ratio()[d];
      const double offset = (static_cast<double>(fine[d] - k[d] * r) + 0.5) / static_cast<double>(r) - 0.5;
      value = value + slope * offset;
    }
    return value;
  };
}

}  // namespace tessera
