#pragma once
/// \file
/// Clustering tagged cells into boxes with the Berger–Rigoutsos algorithm (Berger & Rigoutsos,
/// IEEE SMC 21(5), 1991), as AMR codes (KeLP's applications, AMReX's `TagBoxArray`/`ClusterList`)
/// do before building a finer level.
///
/// The tags are first coarsened by the blocking factor (a "block" is tagged when any of its cells
/// is), so every box comes out aligned to it. Then, starting from the bounding box of all tagged
/// blocks: a box whose fraction of tagged blocks (its *efficiency*) reaches the threshold is kept;
/// otherwise it is cut, at a hole of the tag signature (a slice with no tag) nearest the centre, else
/// at the strongest inflection of the signature's second difference, else in half along its longest
/// axis, and each part is shrunk to the bounding box of its tags and treated the same way. A box
/// longer than the maximum extent, or not inside the allowed region, is cut first.
///
/// What comes out (the invariants tests/unit/levels checks on random tag sets):
/// - every tag whose block lies in the allowed region (the union of the `allowed` boxes; all of
///   `domain` by default) is covered; tags outside it are dropped (the caller's region is usually the properly nested
///   one);
/// - the boxes are disjoint, aligned to the blocking factor, inside the allowed region;
/// - each box has efficiency >= the threshold, or is a single block;
/// - no box is longer than `max_extent` along any axis.
/// The result is deterministic: the same tags (in any order, repeated or not) give the same boxes,
/// sorted lexicographically, on every rank.
/// \code
///   tessera::ClusterOptions<2> opt;
///   opt.efficiency = 0.7;
///   opt.blocking_factor = {4, 4};
///   opt.max_extent = {32, 32};
///   auto boxes = tessera::cluster_tags<2>(tags, tessera::Box<2>({0, 0}, {64, 64}), opt);
/// \endcode
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/geometry/box.hpp"
#include "tessera/geometry/box_index.hpp"
#include "tessera/geometry/box_list.hpp"
#include "tessera/geometry/point.hpp"
#include "tessera/geometry/refinement.hpp"

namespace tessera {

/// What `cluster_tags` aims for (see the file comment).
template <std::size_t N>
struct ClusterOptions {
  /// Fraction of tagged blocks a box must reach to be kept, in (0, 1].
  double efficiency = 0.7;
  /// Boxes are unions of blocks of this many cells per axis, aligned to multiples of it (>= 1).
  Point<N> blocking_factor = Point<N>::filled(1);
  /// Longest extent of a box per axis (>= the blocking factor); unlimited by default.
  Point<N> max_extent = Point<N>::filled(std::numeric_limits<index_t>::max() / 4);
};

namespace detail::br {

template <std::size_t N>
[[nodiscard]] Box<N> bounds_of(std::span<const Point<N>> pts) {
  Box<N> b(pts[0], pts[0] + Point<N>::filled(1));
  for (const auto& p : pts)
    for (std::size_t d = 0; d < N; ++d) {
      b.lo[d] = std::min(b.lo[d], p[d]);
      b.hi[d] = std::max(b.hi[d], p[d] + 1);
    }
  return b;
}

/// Where to cut `box` (tight around `pts`): (axis, first index of the upper part).
template <std::size_t N>
[[nodiscard]] std::pair<std::size_t, index_t> choose_cut(const Box<N>& box, std::span<const Point<N>> pts) {
  std::array<std::vector<index_t>, N> sig;
  for (std::size_t d = 0; d < N; ++d) sig[d].assign(static_cast<std::size_t>(extent(box, d)), 0);
  for (const auto& p : pts)
    for (std::size_t d = 0; d < N; ++d) ++sig[d][static_cast<std::size_t>(p[d] - box.lo[d])];
  // 1. A hole nearest the centre (the box is tight, so a hole is interior and both parts have tags).
  std::size_t best_axis = N;
  index_t best_cut = 0, best_distance = std::numeric_limits<index_t>::max();
  for (std::size_t d = 0; d < N; ++d) {
    const auto n = static_cast<index_t>(sig[d].size());
    for (index_t i = 1; i + 1 < n; ++i)
      if (sig[d][static_cast<std::size_t>(i)] == 0) {
        const index_t distance = 2 * i > n ? 2 * i - n : n - 2 * i;
        if (distance < best_distance) best_axis = d, best_cut = i, best_distance = distance;
      }
  }
  if (best_axis < N) return {best_axis, box.lo[best_axis] + best_cut};
  // 2. The strongest sign change of the second difference (an edge of a tagged feature).
  index_t best_jump = 0;
  for (std::size_t d = 0; d < N; ++d) {
    const auto& s = sig[d];
    const auto n = static_cast<index_t>(s.size());
    for (index_t i = 1; i + 2 < n; ++i) {  // between cells i and i + 1: cut at i + 1
      const auto at = [&](index_t k) { return s[static_cast<std::size_t>(k)]; };
      const index_t lap0 = at(i - 1) - 2 * at(i) + at(i + 1);
      const index_t lap1 = at(i) - 2 * at(i + 1) + at(i + 2);
      if (!((lap0 < 0 && lap1 > 0) || (lap0 > 0 && lap1 < 0))) continue;  // no zero crossing
      const index_t jump = lap0 > lap1 ? lap0 - lap1 : lap1 - lap0;
      const index_t distance = 2 * (i + 1) > n ? 2 * (i + 1) - n : n - 2 * (i + 1);
      if (jump > best_jump || (jump == best_jump && best_axis < N && distance < best_distance))
        best_axis = d, best_cut = i + 1, best_jump = jump, best_distance = distance;
    }
  }
  if (best_axis < N && best_jump > 0) return {best_axis, box.lo[best_axis] + best_cut};
  // 3. Half the longest axis (the first longest: deterministic).
  std::size_t axis = 0;
  for (std::size_t d = 1; d < N; ++d)
    if (extent(box, d) > extent(box, axis)) axis = d;
  return {axis, box.lo[axis] + extent(box, axis) / 2};
}

/// Joins boxes that touch along one axis and have the same extent along every other, until none
/// do; sorted lexicographically. So the pieces the allowed region is found in (one or a few per
/// allowed box) become few large boxes where the region is simple, as a nesting region mostly is.
template <std::size_t N>
void merge_touching(std::vector<Box<N>>& boxes) {
  for (bool merged = true; merged;) {
    merged = false;
    for (std::size_t d = 0; d < N; ++d) {
      // Boxes with the same extent off axis d are neighbours in this order, by lo along d.
      const auto key = [d](const Box<N>& b) {
        Box<N> k = b;
        k.lo[d] = k.hi[d] = 0;
        return k;
      };
      std::sort(boxes.begin(), boxes.end(), [&](const Box<N>& a, const Box<N>& b) {
        const Box<N> ka = key(a), kb = key(b);
        if (ka.lo != kb.lo || ka.hi != kb.hi) return BoxLexLess{}(ka, kb);
        return a.lo[d] < b.lo[d];
      });
      std::size_t kept = 0;
      for (std::size_t i = 0; i < boxes.size(); ++i) {
        if (kept > 0) {
          Box<N>& last = boxes[kept - 1];
          const Box<N> kl = key(last), kb = key(boxes[i]);
          if (kl.lo == kb.lo && kl.hi == kb.hi && last.hi[d] == boxes[i].lo[d]) {
            last.hi[d] = boxes[i].hi[d];
            merged = true;
            continue;
          }
        }
        boxes[kept++] = boxes[i];
      }
      boxes.resize(kept);
    }
  }
  std::sort(boxes.begin(), boxes.end(), BoxLexLess{});
}

/// The allowed region in blocks: the blocks of `whole` (the blocks wholly inside the domain) that
/// meet no cell outside the union of `allowed` (a block may straddle two allowed boxes), as
/// disjoint boxes of blocks. Each block is looked at from the allowed box holding its lowest cell,
/// and the boxes a block may straddle into are found through an index, so the cost is linear in
/// the allowed boxes. Throws `Error(invalid_argument)` naming two allowed boxes that overlap.
template <std::size_t N>
[[nodiscard]] std::vector<Box<N>> allowed_blocks(const Box<N>& whole, const BoxList<N>& allowed,
                                                 const Point<N>& bf) {
  if (whole.empty()) return {};
  if (allowed.empty()) return {whole};
  const BoxIndex<N> index(std::vector<Box<N>>(allowed.begin(), allowed.end()));
  for (std::size_t i = 0; i < allowed.size(); ++i)
    index.for_each_meeting(allowed[i], [&](std::size_t j) {
      if (j != i)
        fail(ErrorCode::invalid_argument, "cluster_tags: allowed boxes ", std::min(i, j), " ",
             allowed[std::min(i, j)], " and ", std::max(i, j), " ", allowed[std::max(i, j)], " overlap");
    });
  std::vector<Box<N>> pieces;
  for (const Box<N>& a : allowed) {
    Box<N> mine;  // the blocks whose lowest cell lies in a
    for (std::size_t d = 0; d < N; ++d) {
      mine.lo[d] = ceil_div(a.lo[d], bf[d]);
      mine.hi[d] = ceil_div(a.hi[d], bf[d]);
    }
    mine = intersect(mine, whole);
    if (mine.empty()) continue;
    const Box<N> cells = refine(mine, bf);
    BoxList<N> uncovered{cells};
    index.for_each_meeting(cells, [&](std::size_t j) { uncovered = difference(uncovered, allowed[j]); });
    BoxList<N> kept{mine};
    for (const Box<N>& u : uncovered) kept = difference(kept, coarsen(u, bf));
    pieces.insert(pieces.end(), kept.begin(), kept.end());
  }
  merge_touching(pieces);
  return pieces;
}

/// Splits `pts` by `keep(p)`, the true ones first; returns how many are true.
template <std::size_t N, class Keep>
std::size_t partition_points(std::vector<Point<N>>& pts, Keep&& keep) {
  return static_cast<std::size_t>(std::stable_partition(pts.begin(), pts.end(), keep) - pts.begin());
}

}  // namespace detail::br

/// The boxes covering `tags` (cells of `domain`), inside `allowed` (disjoint boxes; empty means
/// all of `domain`), as the file comment says. Throws `Error(invalid_argument)` for an efficiency
/// outside (0, 1], a blocking factor < 1 or a maximum extent below it, and `Error(out_of_range)`
/// naming the first tag outside `domain`, and `Error(invalid_argument)` for allowed boxes that
/// overlap. Cost: O(tags x depth x N) plus a linear pass over the allowed boxes (each with the
/// few it touches, through a `BoxIndex`), and per piece of the recursion the allowed region's
/// boxes that piece meets.
template <std::size_t N>
[[nodiscard]] std::vector<Box<N>> cluster_tags(std::span<const Point<N>> tags, const Box<N>& domain,
                                               const ClusterOptions<N>& options, const BoxList<N>& allowed = {}) {
  constexpr const char* where = "cluster_tags";
  if (!(options.efficiency > 0.0 && options.efficiency <= 1.0))
    fail_argument(where, "efficiency", options.efficiency, "must be in (0, 1]");
  check_ratio(where, "blocking_factor", options.blocking_factor);
  for (std::size_t d = 0; d < N; ++d)
    if (options.max_extent[d] < options.blocking_factor[d])
      fail_argument(where, "max_extent", options.max_extent,
                    detail::concat("is below the blocking factor ", options.blocking_factor, " along axis ", d));
  const Point<N>& bf = options.blocking_factor;
  Point<N> max_blocks;
  for (std::size_t d = 0; d < N; ++d) max_blocks[d] = options.max_extent[d] / bf[d];
  Box<N> whole;  // the blocks wholly inside the domain
  for (std::size_t d = 0; d < N; ++d) {
    whole.lo[d] = ceil_div(domain.lo[d], bf[d]);
    whole.hi[d] = floor_div(domain.hi[d], bf[d]);
  }
  const std::vector<Box<N>> region = detail::br::allowed_blocks(whole, allowed, bf);
  const BoxIndex<N> region_index(region);
  const auto inside_region = [&](const Box<N>& b) {  // the region's boxes are disjoint
    index_t in = 0;
    region_index.for_each_meeting(b, [&](std::size_t r) { in += volume(intersect(region[r], b)); });
    return in == volume(b);
  };
  std::vector<Point<N>> blocks;
  blocks.reserve(tags.size());
  for (std::size_t i = 0; i < tags.size(); ++i) {
    if (!contains(domain, tags[i]))
      fail(ErrorCode::out_of_range, where, ": tags[", i, "] = ", tags[i], " is not in the domain ", domain);
    const Point<N> b = coarsen(tags[i], bf);
    if (region_index.find(b)) blocks.push_back(b);
  }
  std::sort(blocks.begin(), blocks.end());
  blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
  std::vector<Box<N>> out;
  std::vector<std::vector<Point<N>>> stack;
  if (!blocks.empty()) stack.push_back(std::move(blocks));
  while (!stack.empty()) {
    std::vector<Point<N>> pts = std::move(stack.back());
    stack.pop_back();
    const Box<N> box = detail::br::bounds_of<N>(pts);
    const auto cut_at = [&](std::size_t axis, index_t at) {
      const std::size_t lower = detail::br::partition_points(pts, [&](const Point<N>& p) { return p[axis] < at; });
      std::vector<Point<N>> upper(pts.begin() + static_cast<std::ptrdiff_t>(lower), pts.end());
      pts.resize(lower);
      stack.push_back(std::move(upper));
      stack.push_back(std::move(pts));
    };
    // Not inside the allowed region: one piece per box of the region holding some of its blocks
    // (every block was found in one), in the region's order.
    if (!inside_region(box)) {
      std::vector<std::pair<std::size_t, Point<N>>> held;
      held.reserve(pts.size());
      for (const auto& p : pts) held.emplace_back(*region_index.find(p), p);
      std::stable_sort(held.begin(), held.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      for (std::size_t i = 0; i < held.size();) {
        std::vector<Point<N>> part;
        const std::size_t r = held[i].first;
        for (; i < held.size() && held[i].first == r; ++i) part.push_back(held[i].second);
        stack.push_back(std::move(part));
      }
      continue;
    }
    std::size_t too_long = N;
    for (std::size_t d = 0; d < N; ++d)
      if (extent(box, d) > max_blocks[d] && (too_long == N || extent(box, d) > extent(box, too_long))) too_long = d;
    if (too_long < N) {
      cut_at(too_long, box.lo[too_long] + extent(box, too_long) / 2);
      continue;
    }
    const double efficiency = static_cast<double>(pts.size()) / static_cast<double>(volume(box));
    if (efficiency >= options.efficiency || volume(box) == 1) {
      out.push_back(refine(box, bf));
      continue;
    }
    const auto [axis, at] = detail::br::choose_cut<N>(box, pts);
    cut_at(axis, at);
  }
  std::sort(out.begin(), out.end(), BoxLexLess{});
  return out;
}

}  // namespace tessera
