#pragma once
/// \file
/// `SparseIndexSet<N>`: one rank's part of a sparse subdomain (Chapel's sparse domains), the
/// indices it owns under the parent's distribution, kept sorted by their offset in the parent's
/// local storage order (`Distribution::local_offset`). Pure: no MPI; array/sparse_domain.hpp
/// routes indices to their owners and keeps this per rank.
///
/// Why sorted local offsets: they are the order of the rank's dense storage, so iterating a sparse
/// set visits memory of an aligned dense array forward, membership is a binary search, and merging
/// a sorted batch is linear. For a block distribution in row-major order the offsets of one row
/// are consecutive, which makes the list a CSR structure along the last axis (row starts are where
/// the row coordinate changes). Each entry also keeps its global point, because user-defined
/// distributions have no inverse of `local_offset`, and iteration should not pay for one.
/// \code
///   tessera::SparseIndexSet<2> s;
///   s.insert({{7, {1, 3}}, {2, {0, 2}}, {7, {1, 3}}});   // duplicates merge: offsets {2, 7}
///   s.find(7);                                          // position 1
///   s.erase({{2}});                                     // old position 1 -> new position 0
/// \endcode

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "tessera/core/index.hpp"
#include "tessera/geometry/point.hpp"

namespace tessera {

/// One index of a sparse set: its offset in the owner's local storage order and its point.
template <std::size_t N>
struct SparseEntry {
  index_t offset = 0;  ///< `Distribution::local_offset(point)` under the parent's distribution
  Point<N> point{};    ///< the global index
};

/// One rank's sorted sparse indices (see the file comment). A value type.
template <std::size_t N>
class SparseIndexSet {
 public:
  /// Number of indices.
  [[nodiscard]] std::size_t size() const noexcept { return offsets_.size(); }
  /// The local offsets, ascending and distinct.
  [[nodiscard]] std::span<const index_t> offsets() const noexcept { return offsets_; }
  /// The global points, in the order of `offsets()`.
  [[nodiscard]] std::span<const Point<N>> points() const noexcept { return points_; }

  /// Position of the index at local `offset`, if the set holds it. O(log size).
  [[nodiscard]] std::optional<std::size_t> find(index_t offset) const noexcept {
    const auto it = std::lower_bound(offsets_.begin(), offsets_.end(), offset);
    if (it == offsets_.end() || *it != offset) return std::nullopt;
    return static_cast<std::size_t>(it - offsets_.begin());
  }

  /// Adds `entries` (any order, repeats and indices already held allowed). Returns, for each old
  /// position, its new position (what aligned values must follow). O((size + k) + k log k).
  std::vector<index_t> insert(std::vector<SparseEntry<N>> entries) {
    sort_unique(entries);
    std::vector<index_t> offsets;
    std::vector<Point<N>> points;
    std::vector<index_t> moved(offsets_.size());
    offsets.reserve(offsets_.size() + entries.size());
    points.reserve(offsets_.size() + entries.size());
    std::size_t i = 0, j = 0;
    while (i < offsets_.size() || j < entries.size()) {
      const bool take_old = j == entries.size() || (i < offsets_.size() && offsets_[i] <= entries[j].offset);
      if (take_old) {
        if (j < entries.size() && entries[j].offset == offsets_[i]) ++j;  // already held
        moved[i] = static_cast<index_t>(offsets.size());
        offsets.push_back(offsets_[i]);
        points.push_back(points_[i]);
        ++i;
      } else {
        offsets.push_back(entries[j].offset);
        points.push_back(entries[j].point);
        ++j;
      }
    }
    offsets_ = std::move(offsets);
    points_ = std::move(points);
    return moved;
  }

  /// Removes the indices at local `offsets` (any order; ones not held are ignored). Returns, for
  /// each old position, its new position or -1 where removed.
  std::vector<index_t> erase(std::vector<index_t> offsets) {
    std::sort(offsets.begin(), offsets.end());
    std::vector<index_t> moved(offsets_.size(), -1);
    std::size_t kept = 0;
    for (std::size_t i = 0; i < offsets_.size(); ++i) {
      if (std::binary_search(offsets.begin(), offsets.end(), offsets_[i])) continue;
      moved[i] = static_cast<index_t>(kept);
      offsets_[kept] = offsets_[i];
      points_[kept] = points_[i];
      ++kept;
    }
    offsets_.resize(kept);
    points_.resize(kept);
    return moved;
  }

  /// A set of exactly `entries` (any order, repeats allowed).
  [[nodiscard]] static SparseIndexSet from_entries(std::vector<SparseEntry<N>> entries) {
    SparseIndexSet s;
    s.insert(std::move(entries));
    return s;
  }

  /// Equal offsets and points.
  friend bool operator==(const SparseIndexSet&, const SparseIndexSet&) = default;

 private:
  static void sort_unique(std::vector<SparseEntry<N>>& e) {
    std::sort(e.begin(), e.end(), [](const SparseEntry<N>& a, const SparseEntry<N>& b) { return a.offset < b.offset; });
    e.erase(std::unique(e.begin(), e.end(),
                        [](const SparseEntry<N>& a, const SparseEntry<N>& b) { return a.offset == b.offset; }),
            e.end());
  }

  std::vector<index_t> offsets_;
  std::vector<Point<N>> points_;
};

}  // namespace tessera
