#pragma once
/// \file
/// The plans behind prolongation and restriction between two levels (array/level_transfer.hpp),
/// built rank-locally without communication, the way AMReX's `FillPatch` and KeLP do it: the fine
/// boxes coarsened (`coarsen(box, ratio)`, same owners) form an intermediate box set over the coarse
/// domain, whose arrays have enough ghost layers to hold every coarse cell that interpolation into
/// the fine box and its ghosts reads. `coarse_fetch_plan` fills those intermediate patches (owned
/// part and ghosts) from the coarse level's owners; restriction averages into the intermediate
/// array's owned part and moves it to the coarse level by an ordinary `copy`.
/// \code
///   tessera::CoarseFineGeometry<2> geo(coarse_set, fine_set, {2, 2}, tessera::ghosts<2>(1));
///   auto plan = tessera::coarse_fetch_plan(coarse_set, geo, rank);   // only copies involving rank
///   auto gaps = tessera::coarse_fine_ghost_cells(fine_set, i, tessera::ghosts<2>(1));
/// \endcode
#include <algorithm>
#include <cstddef>
#include <tuple>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/geometry.hpp"
#include "tessera/geometry/refinement.hpp"
#include "tessera/layout/box_set.hpp"
#include "tessera/plan/ghost_spec.hpp"
#include "tessera/plan/motion_plan.hpp"

namespace tessera {

/// The replicated geometry linking a fine level to its coarse level (see the file comment).
template <std::size_t N>
struct CoarseFineGeometry {
  /// `fine`'s boxes coarsened, box i owned by fine box i's owner, over `coarse`'s domain.
  BoxSet<N> coarsened;
  /// Ghost layers of the intermediate arrays: ceil(fine width / ratio) + 1 per side (the coarse
  /// cells under the fine ghosts and one more for slopes), corners included.
  GhostSpec<N> ghosts;
  /// Per fine box: the coarse cells its intermediate patch fetches (owned box grown by `ghosts`,
  /// clipped to the coarse domain).
  std::vector<Box<N>> need;
  /// Index over `need` (the boxes overlap): which patches read from a coarse box.
  BoxIndex<N> need_index;
  /// The ratio.
  Point<N> ratio;

  CoarseFineGeometry() = default;
  /// Throws `Error(invalid_argument)` for a ratio below 1 or a fine box not aligned to it (then the
  /// coarsened boxes would overlap).
  CoarseFineGeometry(const BoxSet<N>& coarse, const BoxSet<N>& fine, const Point<N>& r, const GhostSpec<N>& fine_ghosts)
      : ratio(r) {
    check_ratio("CoarseFineGeometry", "ratio", r);
    std::vector<Box<N>> boxes;
    boxes.reserve(fine.size());
    for (std::size_t i = 0; i < fine.size(); ++i) {
      if (!is_aligned(fine.box(i), r))
        fail_argument("CoarseFineGeometry", detail::concat("fine box ", i), fine.box(i),
                      detail::concat("is not aligned to the refinement ratio ", r));
      boxes.push_back(coarsen(fine.box(i), r));
    }
    Point<N> lo, hi;
    for (std::size_t d = 0; d < N; ++d) {
      lo[d] = (fine_ghosts.lower[d] + r[d] - 1) / r[d] + 1;
      hi[d] = (fine_ghosts.upper[d] + r[d] - 1) / r[d] + 1;
    }
    ghosts = GhostSpec<N>::sides(lo, hi);
    for (const Box<N>& b : boxes) need.push_back(intersect(grow(b, lo, hi), coarse.domain()));
    need_index = BoxIndex<N>(need);
    coarsened = BoxSet<N>(coarse.domain(), std::move(boxes), fine.owners(), fine.comm_size());
  }
};

/// The copies from `coarse`'s owned cells into the intermediate patches (`geo.coarsened` with
/// `geo.ghosts`) that involve `rank`: what rank receives for its patches, and what it sends from its
/// coarse boxes (found through `geo.need_index`, not a scan). Both sides list the copies between
/// them in the same order (by patch box, then coarse box), so the plans agree without talking.
template <std::size_t N>
[[nodiscard]] MotionPlan<N> coarse_fetch_plan(const BoxSet<N>& coarse, const CoarseFineGeometry<N>& geo, int rank) {
  struct Item {
    int src, dst;
    std::size_t fine_box, coarse_box;
    int dst_patch;
    Box<N> piece;
  };
  std::vector<Item> items;
  const auto patch_of = [&](std::size_t i) {  // position of box i among its owner's boxes
    const auto mine = geo.coarsened.boxes_of(geo.coarsened.owner(i));
    return static_cast<int>(std::lower_bound(mine.begin(), mine.end(), i) - mine.begin());
  };
  for (std::size_t i : geo.coarsened.boxes_of(rank))
    coarse.for_each_meeting(geo.need[i], [&](std::size_t j) {
      if (coarse.owner(j) != rank)
        items.push_back({coarse.owner(j), rank, i, j, patch_of(i), intersect(geo.need[i], coarse.box(j))});
    });
  for (std::size_t j : coarse.boxes_of(rank))
    geo.need_index.for_each_meeting(coarse.box(j), [&](std::size_t i) {
      items.push_back({rank, geo.coarsened.owner(i), i, j, patch_of(i), intersect(geo.need[i], coarse.box(j))});
    });
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return std::tie(a.src, a.dst, a.fine_box, a.coarse_box) < std::tie(b.src, b.dst, b.fine_box, b.coarse_box);
  });
  MotionPlan<N> plan;
  for (const Item& it : items)
    plan.copy(it.src, Section<N>::from_box(it.piece), it.dst, Section<N>::from_box(it.piece), -1, it.dst_patch);
  return plan;
}

/// The ghost cells of fine box `i` (grown by `g`, clipped to the fine domain) that no fine box
/// holds: where a coarse/fine ghost fill interpolates from the coarse level. Disjoint boxes.
template <std::size_t N>
[[nodiscard]] BoxList<N> coarse_fine_ghost_cells(const BoxSet<N>& fine, std::size_t i, const GhostSpec<N>& g) {
  const Box<N> grown = intersect(grow(fine.box(i), g.lower, g.upper), fine.domain());
  BoxList<N> out{grown};
  fine.for_each_meeting(grown, [&](std::size_t j) { out = difference(out, fine.box(j)); });
  return out;
}

}  // namespace tessera
