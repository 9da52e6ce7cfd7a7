#pragma once
/// \file
/// `BoxIndex<N>`: a spatial index over a fixed list of boxes (uniform bins), answering "which boxes
/// meet this query box" and "which box holds this point" without scanning every box. What keeps
/// the plans of a box set (layout/box_set.hpp) rank-local and cheap when there are many boxes.
///
/// **Bins.** The bounding box of the boxes is cut into a regular grid of bins; bin widths along
/// each axis start at the median box extent along it (so a typical box meets about 2^N bins) and
/// are doubled along the longest-in-bins axis while there are more than `4 * boxes + 64` bins (so
/// memory stays linear in the box count). Each box is listed in every bin it meets (CSR arrays).
/// \code
///   tessera::BoxIndex<2> index(boxes);            // boxes: std::vector<Box<2>>, any overlap allowed
///   index.for_each_meeting(query, [&](std::size_t i) { ... boxes[i] ... });   // each box once
///   std::optional<std::size_t> i = index.find(tessera::Point<2>{3, 4});        // first box holding it
/// \endcode
/// A box that meets several bins of the query is reported once: only from the first bin (in every
/// axis) that both it and the query meet, so no sort and no "seen" set is needed.
/// Cost of a query: the bins it meets plus the boxes listed there.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/core/index.hpp"
#include "tessera/geometry/box.hpp"
#include "tessera/geometry/point.hpp"

namespace tessera {

/// Uniform-bin spatial index over a list of boxes (see the file comment). Immutable once built.
template <std::size_t N>
  requires(N >= 1)
class BoxIndex {
 public:
  /// An index of nothing: every query is empty.
  BoxIndex() = default;

  /// Indexes `boxes` (empty boxes are never reported). The boxes are copied. Cost: O(n log n) for
  /// the medians plus the bins the boxes meet.
  explicit BoxIndex(std::vector<Box<N>> boxes) : boxes_(std::move(boxes)) {
    if (boxes_.size() > UINT32_MAX)
      fail_argument("BoxIndex", "boxes", boxes_.size(), "is more than 2^32 - 1 boxes");
    for (const auto& b : boxes_)
      if (!b.empty()) bounds_ = bounds_.empty() ? b : bounding_box(bounds_, b);
    if (bounds_.empty()) return;
    choose_bin_widths();
    std::size_t bins = 1;
    for (std::size_t d = 0; d < N; ++d) bins *= static_cast<std::size_t>(bin_count_[d]);
    // Two passes (count, then fill) give the CSR arrays without a vector per bin.
    start_.assign(bins + 1, 0);
    for_each_listing([&](std::size_t bin, std::size_t) { ++start_[bin + 1]; });
    for (std::size_t k = 0; k < bins; ++k) start_[k + 1] += start_[k];
    entries_.resize(start_[bins]);
    std::vector<std::size_t> fill(start_.begin(), start_.end() - 1);
    for_each_listing([&](std::size_t bin, std::size_t i) { entries_[fill[bin]++] = static_cast<std::uint32_t>(i); });
  }

  /// Number of boxes indexed (empty ones included).
  [[nodiscard]] std::size_t size() const noexcept { return boxes_.size(); }
  /// The boxes, as given.
  [[nodiscard]] const std::vector<Box<N>>& boxes() const noexcept { return boxes_; }
  /// Box i as given.
  [[nodiscard]] const Box<N>& box(std::size_t i) const noexcept { return boxes_[i]; }
  /// The bounding box of the non-empty boxes (empty if there are none).
  [[nodiscard]] const Box<N>& bounds() const noexcept { return bounds_; }
  /// Bins along each axis (for tests and the metadata count).
  [[nodiscard]] const Point<N>& bin_counts() const noexcept { return bin_count_; }
  /// Bytes of the index itself (bins and listings, not the boxes).
  [[nodiscard]] std::size_t index_bytes() const noexcept {
    return start_.size() * sizeof(std::size_t) + entries_.size() * sizeof(std::uint32_t);
  }

  /// Calls `f(i)` once for every non-empty box i that meets `query`, in no particular order.
  template <class F>
  void for_each_meeting(const Box<N>& query, F&& f) const {
    const Box<N> q = intersect(query, bounds_);
    if (q.empty()) return;
    Point<N> qlo, qhi;  // inclusive bin ranges of the query
    for (std::size_t d = 0; d < N; ++d) {
      qlo[d] = bin_of(q.lo[d], d);
      qhi[d] = bin_of(q.hi[d] - 1, d);
    }
    Point<N> c = qlo;
    for (;;) {
      const std::size_t bin = linear(c);
      for (std::size_t k = start_[bin]; k < start_[bin + 1]; ++k) {
        const std::size_t i = entries_[k];
        const Box<N>& b = boxes_[i];
        if (!intersects(b, q)) continue;
        bool first_shared_bin = true;
        for (std::size_t d = 0; d < N && first_shared_bin; ++d)
          first_shared_bin = c[d] == std::max(qlo[d], bin_of(b.lo[d], d));
        if (first_shared_bin) f(i);
      }
      if (!next_bin(c, qlo, qhi)) return;
    }
  }

  /// The indices of the non-empty boxes that meet `query`, ascending.
  [[nodiscard]] std::vector<std::size_t> meeting(const Box<N>& query) const {
    std::vector<std::size_t> out;
    for_each_meeting(query, [&](std::size_t i) { out.push_back(i); });
    std::sort(out.begin(), out.end());
    return out;
  }

  /// The lowest index of a box holding `p`, or nothing. Looks at one bin.
  [[nodiscard]] std::optional<std::size_t> find(const Point<N>& p) const {
    if (!contains(bounds_, p)) return std::nullopt;
    Point<N> c;
    for (std::size_t d = 0; d < N; ++d) c[d] = bin_of(p[d], d);
    const std::size_t bin = linear(c);
    std::optional<std::size_t> best;
    for (std::size_t k = start_[bin]; k < start_[bin + 1]; ++k)
      if (contains(boxes_[entries_[k]], p) && (!best || entries_[k] < *best)) best = entries_[k];
    return best;
  }

 private:
  void choose_bin_widths() {
    std::vector<index_t> ext;
    ext.reserve(boxes_.size());
    std::size_t nonempty = 0;
    for (std::size_t d = 0; d < N; ++d) {
      ext.clear();
      for (const auto& b : boxes_)
        if (!b.empty()) ext.push_back(extent(b, d));
      nonempty = ext.size();
      std::nth_element(ext.begin(), ext.begin() + static_cast<std::ptrdiff_t>(ext.size() / 2), ext.end());
      width_[d] = std::max<index_t>(1, ext[ext.size() / 2]);
    }
    const double limit = 4.0 * static_cast<double>(nonempty) + 64.0;
    for (;;) {
      double bins = 1;
      std::size_t widest = 0;
      for (std::size_t d = 0; d < N; ++d) {
        bin_count_[d] = (extent(bounds_, d) + width_[d] - 1) / width_[d];
        bins *= static_cast<double>(bin_count_[d]);
        if (bin_count_[d] > bin_count_[widest]) widest = d;
      }
      if (bins <= limit) return;
      width_[widest] = width_[widest] > (index_t{1} << 61) ? extent(bounds_, widest) : 2 * width_[widest];
    }
  }

  [[nodiscard]] index_t bin_of(index_t x, std::size_t d) const noexcept { return (x - bounds_.lo[d]) / width_[d]; }

  [[nodiscard]] std::size_t linear(const Point<N>& c) const noexcept {
    std::size_t k = 0;
    for (std::size_t d = 0; d < N; ++d) k = k * static_cast<std::size_t>(bin_count_[d]) + static_cast<std::size_t>(c[d]);
    return k;
  }

  // Calls f(bin, i) for every bin that box i meets.
  template <class F>
  void for_each_listing(F&& f) const {
    for (std::size_t i = 0; i < boxes_.size(); ++i) {
      const Box<N>& b = boxes_[i];
      if (b.empty()) continue;
      Point<N> lo, hi;
      for (std::size_t d = 0; d < N; ++d) lo[d] = bin_of(b.lo[d], d), hi[d] = bin_of(b.hi[d] - 1, d);
      Point<N> c = lo;
      do f(linear(c), i);
      while (next_bin(c, lo, hi));
    }
  }

  // Steps c to the next bin of the inclusive range [lo, hi], row-major; false after the last.
  static bool next_bin(Point<N>& c, const Point<N>& lo, const Point<N>& hi) noexcept {
    for (std::size_t d = N; d-- > 0;) {
      if (++c[d] <= hi[d]) return true;
      c[d] = lo[d];
    }
    return false;
  }

  std::vector<Box<N>> boxes_;
  Box<N> bounds_;
  Point<N> width_ = Point<N>::filled(1);
  Point<N> bin_count_{};
  std::vector<std::size_t> start_;       // bin k lists entries_[start_[k] .. start_[k+1])
  std::vector<std::uint32_t> entries_;  // box indices
};

}  // namespace tessera
