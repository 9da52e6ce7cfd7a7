#pragma once
/// \file
/// Linear offsets of points within a box, and iteration over the points of a box.
///
/// **Index order.** tessera stores arrays in row-major (C) order: the last dimension varies
/// fastest. The column-major (Fortran) offset is provided for interoperability; iteration helpers
/// visit points in row-major order unless their name says otherwise.
/// \code
///   Box<2> b({10, 20}, {12, 23});                 // 2 x 3 points
///   offset_row_major(b, Point<2>{11, 20}) == 3;   // second row, first column
///   offset_column_major(b, Point<2>{11, 20}) == 1;
///   for (const Point<2>& p : points(b)) { ... }   // (10,20) (10,21) (10,22) (11,20) ...
/// \endcode

#include <cstddef>
#include <iterator>

#include "tessera/geometry/box.hpp"

namespace tessera {

/// Row-major strides of a box: `stride[N-1] == 1`, `stride[d] == stride[d+1] * extent(d+1)`.
template <std::size_t N>
[[nodiscard]] constexpr Point<N> row_major_strides(const Box<N>& b) {
  Point<N> s;
  s[N - 1] = 1;
  for (std::size_t d = N - 1; d > 0; --d) s[d - 1] = checked_mul(s[d], extent(b, d), "row_major_strides");
  return s;
}

/// Offset of `p` in the row-major enumeration of `b`. `p` must lie in `b` (not checked: hot path).
template <std::size_t N>
[[nodiscard]] constexpr index_t offset_row_major(const Box<N>& b, const Point<N>& p) noexcept {
  index_t off = 0;
  for (std::size_t d = 0; d < N; ++d) off = off * (b.hi[d] - b.lo[d]) + (p[d] - b.lo[d]);
  return off;
}

/// Offset of `p` in the column-major enumeration of `b` (first dimension fastest).
template <std::size_t N>
[[nodiscard]] constexpr index_t offset_column_major(const Box<N>& b, const Point<N>& p) noexcept {
  index_t off = 0;
  for (std::size_t d = N; d-- > 0;) off = off * (b.hi[d] - b.lo[d]) + (p[d] - b.lo[d]);
  return off;
}

/// Inverse of `offset_row_major`: the point at `offset` (0 <= offset < volume(b)).
template <std::size_t N>
[[nodiscard]] constexpr Point<N> point_at_row_major(const Box<N>& b, index_t offset) noexcept {
  Point<N> p;
  for (std::size_t d = N; d-- > 0;) {
    const index_t e = b.hi[d] - b.lo[d];
    p[d] = b.lo[d] + offset % e;
    offset /= e;
  }
  return p;
}

/// Inverse of `offset_column_major`.
template <std::size_t N>
[[nodiscard]] constexpr Point<N> point_at_column_major(const Box<N>& b, index_t offset) noexcept {
  Point<N> p;
  for (std::size_t d = 0; d < N; ++d) {
    const index_t e = b.hi[d] - b.lo[d];
    p[d] = b.lo[d] + offset % e;
    offset /= e;
  }
  return p;
}

/// Calls `visit(const Point<N>&)` for every point of `b` in row-major order. The innermost
/// dimension is a plain counted loop, so this costs no more than hand-written nested loops.
template <std::size_t N, class Visit>
constexpr void for_each_point(const Box<N>& b, Visit&& visit) {
  if (b.empty()) return;
  Point<N> p = b.lo;
  for (;;) {
    for (p[N - 1] = b.lo[N - 1]; p[N - 1] < b.hi[N - 1]; ++p[N - 1]) visit(static_cast<const Point<N>&>(p));
    // Carry into the slower dimensions; finished once dimension 0 runs past its end.
    std::size_t d = N - 1;
    for (;;) {
      if (d == 0) return;
      --d;
      if (++p[d] < b.hi[d]) break;
      p[d] = b.lo[d];
    }
  }
}

/// Forward range over the points of a box in row-major order (no allocation; see `points`).
template <std::size_t N>
class BoxPoints {
 public:
  class iterator {
   public:
    using value_type = Point<N>;
    using difference_type = std::ptrdiff_t;
    using reference = const Point<N>&;
    using pointer = const Point<N>*;
    using iterator_category = std::forward_iterator_tag;

    constexpr iterator() noexcept = default;
    constexpr iterator(const Box<N>* box, Point<N> at, bool done) noexcept : box_(box), at_(at), done_(done) {}

    [[nodiscard]] constexpr reference operator*() const noexcept { return at_; }
    [[nodiscard]] constexpr pointer operator->() const noexcept { return &at_; }
    constexpr iterator& operator++() noexcept {
      for (std::size_t d = N; d-- > 0;) {
        if (++at_[d] < box_->hi[d]) return *this;
        at_[d] = box_->lo[d];
      }
      done_ = true;
      return *this;
    }
    constexpr iterator operator++(int) noexcept {
      iterator old = *this;
      ++*this;
      return old;
    }
    friend constexpr bool operator==(const iterator& a, const iterator& b) noexcept {
      return a.done_ == b.done_ && (a.done_ || a.at_ == b.at_);
    }

   private:
    const Box<N>* box_ = nullptr;
    Point<N> at_{};
    bool done_ = true;
  };

  constexpr explicit BoxPoints(const Box<N>& box) noexcept : box_(box) {}
  [[nodiscard]] constexpr iterator begin() const noexcept { return iterator(&box_, box_.lo, box_.empty()); }
  [[nodiscard]] constexpr iterator end() const noexcept { return iterator(&box_, box_.lo, true); }

 private:
  Box<N> box_;
};

/// `for (const Point<N>& p : points(box))` visits every point in row-major order.
/// The range holds a copy of the box, so a temporary box is fine.
template <std::size_t N>
[[nodiscard]] constexpr BoxPoints<N> points(const Box<N>& b) noexcept {
  return BoxPoints<N>(b);
}

}  // namespace tessera
