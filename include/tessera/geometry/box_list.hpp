#pragma once
/// \file
/// `BoxList<N>`: a list of boxes with the few set operations later layers need (intersect with a
/// box, subtract a box, total volume, disjointness). It does not merge boxes into a union: a list
/// whose boxes overlap counts the shared points twice in `volume`, so callers that need a set check
/// `is_disjoint` first.

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <numeric>
#include <ostream>
#include <vector>

#include "tessera/geometry/box.hpp"
#include "tessera/geometry/box_difference.hpp"

namespace tessera {

/// A list of boxes (the owned boxes of a rank, the pieces of a difference), in insertion order.
template <std::size_t N>
class BoxList {
 public:
  BoxList() = default;
  /// Keeps the non-empty boxes of `boxes`, in order.
  BoxList(std::initializer_list<Box<N>> boxes) {
    for (const auto& b : boxes) push_back(b);
  }
  explicit BoxList(const std::vector<Box<N>>& boxes) {
    for (const auto& b : boxes) push_back(b);
  }

  /// Appends `b` unless it is empty (a list never holds empty boxes).
  void push_back(const Box<N>& b) {
    if (!b.empty()) boxes_.push_back(b);
  }

  /// Number of boxes.
  [[nodiscard]] std::size_t size() const noexcept { return boxes_.size(); }
  /// True if the list holds no box.
  [[nodiscard]] bool empty() const noexcept { return boxes_.empty(); }
  /// Box i (unchecked).
  [[nodiscard]] const Box<N>& operator[](std::size_t i) const noexcept { return boxes_[i]; }
  [[nodiscard]] auto begin() const noexcept { return boxes_.begin(); }
  [[nodiscard]] auto end() const noexcept { return boxes_.end(); }

  friend bool operator==(const BoxList&, const BoxList&) = default;

 private:
  std::vector<Box<N>> boxes_;
};

/// Sum of the volumes of the boxes (points in several boxes are counted once per box).
template <std::size_t N>
[[nodiscard]] index_t volume(const BoxList<N>& list) {
  index_t total = 0;
  for (const auto& b : list) total = checked_add(total, volume(b), "BoxList volume");
  return total;
}

/// Each box of `list` intersected with `b`; empty results are dropped.
template <std::size_t N>
[[nodiscard]] BoxList<N> intersect(const BoxList<N>& list, const Box<N>& b) {
  BoxList<N> out;
  for (const auto& a : list) out.push_back(intersect(a, b));
  return out;
}

/// Each box of `list` minus `b`. Pieces of one box are disjoint; the result is disjoint if `list` was.
template <std::size_t N>
[[nodiscard]] BoxList<N> difference(const BoxList<N>& list, const Box<N>& b) {
  BoxList<N> out;
  for (const auto& a : list)
    for (const auto& piece : difference(a, b)) out.push_back(piece);
  return out;
}

/// True if `p` lies in some box of the list.
template <std::size_t N>
[[nodiscard]] bool contains(const BoxList<N>& list, const Point<N>& p) noexcept {
  return std::any_of(list.begin(), list.end(), [&](const Box<N>& b) { return contains(b, p); });
}

/// The smallest box holding every box of the list.
template <std::size_t N>
[[nodiscard]] Box<N> bounding_box(const BoxList<N>& list) noexcept {
  Box<N> out;
  for (const auto& b : list) out = bounding_box(out, b);
  return out;
}

/// True if no two boxes share a point. Sweeps along dimension 0: O(n log n + the pairs whose
/// dimension-0 ranges overlap), which is O(n^2) for boxes stacked along another dimension.
template <std::size_t N>
[[nodiscard]] bool is_disjoint(const BoxList<N>& list) {
  std::vector<std::size_t> order(list.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) { return list[i].lo[0] < list[j].lo[0]; });
  for (std::size_t i = 0; i < order.size(); ++i) {
    const Box<N>& a = list[order[i]];
    for (std::size_t j = i + 1; j < order.size() && list[order[j]].lo[0] < a.hi[0]; ++j)
      if (intersects(a, list[order[j]])) return false;
  }
  return true;
}

/// Prints `{[0,2)x[0,2), [2,4)x[0,2)}`.
template <std::size_t N>
std::ostream& operator<<(std::ostream& out, const BoxList<N>& list) {
  out << '{';
  for (std::size_t i = 0; i < list.size(); ++i) out << (i ? ", " : "") << list[i];
  return out << '}';
}

}  // namespace tessera
