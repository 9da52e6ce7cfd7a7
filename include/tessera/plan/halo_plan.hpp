#pragma once
/// \file
/// The halo (ghost fill) plan of one rank: the copies that fill its ghost layers and the copies it
/// must send to fill its neighbours'. Built without communication from the distribution alone.
///
/// Receives: for each patch, the ghost region (the shell `grow(box) \ box`, or only the face slabs
/// for `faces_only`) is wrapped into the domain along periodic dimensions, and every part of it is
/// copied from whichever rank owns it — so ghosts are filled across empty ranks and from beyond a
/// neighbour thinner than the ghost width. Sends: the ranks whose ghost regions can reach this
/// rank's boxes are found by asking the distribution who owns the boxes grown the other way; their
/// receive lists are computed with the same function and the copies from this rank kept. Both sides
/// therefore list the copies between them identically. Cost: O(neighbours x their pieces), never a
/// loop over all ranks for dimensional distributions. For a box set the send side visits only the
/// other ranks' boxes near this rank's (through the set's spatial index), one by one. Over a flooded
/// distribution each replica fills its ghosts from its own replica (`Distribution::pieces_near`),
/// so the replicas exchange among themselves and never with each other.

#include <algorithm>
#include <cstddef>
#include <vector>

#include "tessera/geometry.hpp"
#include "tessera/layout/distribution.hpp"
#include "tessera/plan/ghost_spec.hpp"
#include "tessera/plan/motion_plan.hpp"
#include "tessera/plan/storage_layout.hpp"

namespace tessera {

namespace detail {

/// The sections a ghost box denotes for a patch: along compacted axes (which have no ghosts) the
/// box spans the patch's bounding range, but only the indices the patch owns there belong to it.
template <std::size_t N>
std::vector<Section<N>> ghost_sections(const Box<N>& ghost, const PatchLayout<N>& patch) {
  std::array<SectionList1, N> per_axis;
  for (std::size_t d = 0; d < N; ++d) {
    const AxisMap& a = patch.axes[d];
    if (a.is_interval()) {
      per_axis[d].push_back(Section1::interval(ghost.lo[d], ghost.hi[d]));
    } else {
      per_axis[d] = a.compacted->owned(a.coord);
    }
  }
  return cartesian_product(per_axis);
}

/// Appends the copies that fill the ghost layers of patch `patch` (layout `p`) of `rank`.
template <std::size_t N>
void patch_halo_receives(const Distribution<N>& dist, const GhostSpec<N>& g, int rank, int patch,
                         const PatchLayout<N>& p, std::vector<Copy<N>>& out) {
  for (const auto& ghost : ghost_boxes(p.owned_box(), g))
    for (const auto& wrapped : wrap_periodic(ghost, dist.domain(), g.periodic))
      for (const auto& region : ghost_sections(wrapped.box, p))
        for (const auto& [section, owner] : dist.pieces_near(region, rank))
          out.push_back({owner, section, rank, shift(section, -wrapped.offset), -1, patch});
}

/// Appends the copies that fill `rank`'s ghost layers: one patch per owned box, or under a local
/// layout one "patch" number per owned box naming its ghost slabs (plan/storage_layout.hpp).
template <std::size_t N>
void halo_receives(const Distribution<N>& dist, const GhostSpec<N>& g, int rank, std::vector<Copy<N>>& out) {
  const auto layout = StorageLayout<N>::make(dist, rank, g);
  if (layout.custom()) {
    const auto& boxes = layout.custom_boxes();
    for (std::size_t b = 0; b < boxes.size(); ++b)
      if (!boxes[b].empty())
        patch_halo_receives(dist, g, rank, static_cast<int>(b), StorageLayout<N>::box_patch(boxes[b], g), out);
    return;
  }
  for (std::size_t patch = 0; patch < layout.patches().size(); ++patch)
    patch_halo_receives(dist, g, rank, static_cast<int>(patch), layout.patches()[patch], out);
}

/// The boxes `rank` owns: a local layout's own boxes, or the owned boxes of its patches.
template <std::size_t N>
std::vector<Box<N>> owned_boxes_of(const Distribution<N>& dist, int rank) {
  if (dist.has_local_layout()) {
    const BoxList<N> boxes = dist.owned_boxes(rank);
    return {boxes.begin(), boxes.end()};
  }
  // Named, not a temporary in the range: patches() refers into the layout, which must outlive the loop.
  const auto mine = StorageLayout<N>::make(dist, rank, no_ghosts<N>());
  std::vector<Box<N>> out;
  for (const auto& patch : mine.patches()) out.push_back(patch.owned_box());
  return out;
}

/// Appends the copies out of `rank`'s owned data into its neighbours' ghosts. Who can need my data:
/// the owners of my boxes grown by the ghost widths turned around; their receive lists are computed
/// as they compute them and the copies from me kept.
template <std::size_t N>
void halo_sends(const Distribution<N>& dist, const GhostSpec<N>& g, int rank, std::vector<Copy<N>>& out) {
  std::vector<int> neighbours;
  for (const auto& box : owned_boxes_of(dist, rank))
    for (const auto& wrapped : wrap_periodic(grow(box, g.upper, g.lower), dist.domain(), g.periodic))
      for (const auto& piece : dist.pieces_near(wrapped.box, rank))
        if (piece.rank != rank) neighbours.push_back(piece.rank);
  std::sort(neighbours.begin(), neighbours.end());
  neighbours.erase(std::unique(neighbours.begin(), neighbours.end()), neighbours.end());
  for (int q : neighbours) {
    std::vector<Copy<N>> theirs;
    halo_receives(dist, g, q, theirs);
    for (auto& c : theirs)
      if (c.src_rank == rank) out.push_back(std::move(c));
  }
}

/// Box sets: appends the copies out of `rank`'s boxes into the ghosts of other ranks' boxes. Only
/// the boxes near one of `rank`'s (found through the set's index) are visited, and each one's
/// receive list is computed exactly as its owner computes it, so both sides list the same copies;
/// the cost is that of the neighbourhood, not of the neighbours' other boxes.
template <std::size_t N>
void box_set_halo_sends(const BoxSet<N>& set, const Distribution<N>& dist, const GhostSpec<N>& g, int rank,
                        std::vector<Copy<N>>& out) {
  std::vector<std::size_t> near;  // boxes of other ranks whose ghosts can reach one of mine
  for (std::size_t b : set.boxes_of(rank))
    for (const auto& wrapped : wrap_periodic(grow(set.box(b), g.upper, g.lower), dist.domain(), g.periodic))
      set.for_each_meeting(wrapped.box, [&](std::size_t c) {
        if (set.owner(c) != rank) near.push_back(c);
      });
  std::sort(near.begin(), near.end());
  near.erase(std::unique(near.begin(), near.end()), near.end());
  std::vector<Copy<N>> theirs;
  for (std::size_t c : near) {
    const int q = set.owner(c);
    const auto boxes_of_q = set.boxes_of(q);
    const auto patch = static_cast<int>(std::lower_bound(boxes_of_q.begin(), boxes_of_q.end(), c) - boxes_of_q.begin());
    theirs.clear();
    patch_halo_receives(dist, g, q, patch, StorageLayout<N>::box_patch(set.box(c), g), theirs);
    for (auto& copy : theirs)
      if (copy.src_rank == rank) out.push_back(std::move(copy));
  }
}

}  // namespace detail

/// The halo plan of `rank` for arrays over `dist` with ghost layers `g`: the copies into its ghosts
/// and the copies out of its owned data into its neighbours' ghosts, canonically ordered.
/// Throws `Error(invalid_argument)` for ghosts along a non-interval dimension.
template <std::size_t N>
[[nodiscard]] MotionPlan<N> halo_plan(const Distribution<N>& dist, const GhostSpec<N>& g, int rank) {
  StorageLayout<N>::check_ghosts(dist, g);
  MotionPlan<N> plan;
  if (g.none()) return plan;
  std::vector<Copy<N>> copies;
  detail::halo_receives(dist, g, rank, copies);
  if (const BoxSet<N>* set = dist.box_set())
    detail::box_set_halo_sends(*set, dist, g, rank, copies);
  else
    detail::halo_sends(dist, g, rank, copies);
  for (const auto& c : copies) plan.copy(c.src_rank, c.src, c.dst_rank, c.dst, c.src_patch, c.dst_patch);
  plan.canonical_order();
  return plan;
}

/// The reverse halo plan: every ghost element is combined with `op` into the element it mirrors on
/// its owner (KeLP's accumulate-while-moving; particle deposition, finite-element assembly).
template <std::size_t N>
[[nodiscard]] MotionPlan<N> reverse_halo_plan(const Distribution<N>& dist, const GhostSpec<N>& g, int rank,
                                              CombineOp op = CombineOp::add) {
  return halo_plan(dist, g, rank).reversed().with_op(op);
}

}  // namespace tessera
