#pragma once
/// \file
/// Box difference `a \ b`: the points of `a` not in `b`, as at most 2N disjoint boxes.

#include <array>
#include <cstddef>

#include "tessera/geometry/box.hpp"

namespace tessera {

/// A fixed-capacity list of up to 2N boxes: the result of `difference`. Never allocates.
template <std::size_t N>
class BoxDifference {
 public:
  static constexpr std::size_t capacity = 2 * N;

  [[nodiscard]] constexpr std::size_t size() const noexcept { return count_; }
  [[nodiscard]] constexpr bool empty() const noexcept { return count_ == 0; }
  [[nodiscard]] constexpr const Box<N>& operator[](std::size_t i) const noexcept { return boxes_[i]; }
  [[nodiscard]] constexpr const Box<N>* begin() const noexcept { return boxes_.data(); }
  [[nodiscard]] constexpr const Box<N>* end() const noexcept { return boxes_.data() + count_; }

  constexpr void push_back(const Box<N>& b) noexcept { boxes_[count_++] = b; }

 private:
  std::array<Box<N>, capacity> boxes_{};
  std::size_t count_ = 0;
};

/// The points of `a` that are not in `b`, as at most 2N pairwise disjoint, non-empty boxes.
///
/// Slabs are peeled off dimension by dimension: along dimension 0 the parts of `a` below and above
/// `b`, then, within what remains, along dimension 1, and so on. The pieces therefore have the
/// largest possible extent along the slow dimensions, which keeps them long in memory.
/// \code
///   difference(Box<2>({0,0},{4,4}), Box<2>({1,1},{3,3}))  // 4 pieces: [0,1)x[0,4) [3,4)x[0,4) [1,3)x[0,1) [1,3)x[3,4)
/// \endcode
template <std::size_t N>
[[nodiscard]] constexpr BoxDifference<N> difference(const Box<N>& a, const Box<N>& b) noexcept {
  BoxDifference<N> out;
  if (a.empty()) return out;
  if (!intersects(a, b)) {
    out.push_back(a);
    return out;
  }
  Box<N> rest = a;
  for (std::size_t d = 0; d < N; ++d) {
    if (rest.lo[d] < b.lo[d]) {
      Box<N> below = rest;
      below.hi[d] = b.lo[d];
      out.push_back(below);
      rest.lo[d] = b.lo[d];
    }
    if (rest.hi[d] > b.hi[d]) {
      Box<N> above = rest;
      above.lo[d] = b.hi[d];
      out.push_back(above);
      rest.hi[d] = b.hi[d];
    }
  }
  return out;
}

}  // namespace tessera
