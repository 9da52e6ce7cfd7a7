#pragma once
/// \file
/// `lift_to_parent(dist, parent_ranks, parent_size)`: a distribution made for the ranks of one
/// group, re-expressed over the ranks of the parent communicator the group was split from (ZPL's
/// disjoint grids: each grid computes on its own communicator, and a move between two grids is
/// planned over the parent, where both distributions must name the same ranks).
/// \code
///   // a group of parent ranks {4, 1, 6} (group rank 0 is parent rank 4, ...), of a parent of 8 ranks
///   tessera::Distribution<2> mine(box, tessera::ProcGrid<2>::with_shape(3, {3, 1}), {tessera::block(), tessera::block()});
///   auto on_parent = tessera::lift_to_parent(mine, {4, 1, 6}, 8);
///   on_parent.owner(p) == std::vector{4, 1, 6}[mine.owner(p)];   // for every p
///   on_parent.local_offset(p) == mine.local_offset(p);           // same storage on the owner
/// \endcode
/// Every group rank g becomes parent rank `parent_ranks[g]` and keeps exactly what it owned and
/// where it stored it, so a plan compiled against the lifted distribution addresses the group's
/// arrays as they are; the parent ranks outside the group own nothing (skeletons). By kind:
///
/// | distribution | lifted |
/// |---|---|
/// | dimensional (any axis kinds, flooded and `general` too) | the same axes over a grid of the same shape whose positions hold the parent ranks (`with_grid`) |
/// | box set | the same boxes, owners mapped to parent ranks |
/// | user-defined | a user-defined distribution that asks the original and maps the ranks (a local layout too) |
///
/// Pure (no MPI); equal arguments give equal distributions with equal hashes.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/core/hash.hpp"
#include "tessera/geometry.hpp"
#include "tessera/layout/box_set.hpp"
#include "tessera/layout/distribution.hpp"
#include "tessera/layout/proc_grid.hpp"
#include "tessera/layout/user_distribution.hpp"

namespace tessera {

namespace detail {

/// The map group rank -> parent rank as a one-dimensional grid: `from_ranks` checks that the ranks
/// are distinct and in range, and the grid answers both directions in O(1).
[[nodiscard]] inline ProcGrid<1> group_rank_map(const std::vector<int>& parent_ranks, int parent_size) {
  if (parent_ranks.empty()) fail_argument("lift_to_parent", "parent_ranks", "{}", "must name at least one rank");
  return ProcGrid<1>::from_ranks(parent_size, Point<1>::filled(static_cast<index_t>(parent_ranks.size())), parent_ranks);
}

/// A user-defined distribution of a group, seen from the parent: asks the group's distribution
/// and maps its ranks (see the file comment).
template <std::size_t N>
class LiftedUserDistribution final : public UserDistribution<N> {
 public:
  LiftedUserDistribution(Distribution<N> inner, ProcGrid<1> ranks)
      : UserDistribution<N>(inner.domain(), ranks.comm_size()), inner_(std::move(inner)), ranks_(std::move(ranks)) {}

  [[nodiscard]] std::string name() const override {
    return concat(inner_.user_distribution()->name(), " on parent ", ranks_);
  }
  [[nodiscard]] int owner(const Point<N>& p) const override { return parent_of(inner_.owner(p)); }
  [[nodiscard]] BoxList<N> owned_boxes(int rank) const override {
    const std::optional<int> g = group_of(rank);
    return g ? inner_.owned_boxes(*g) : BoxList<N>{};
  }
  [[nodiscard]] index_t local_offset(const Point<N>& p) const override { return inner_.local_offset(p); }
  [[nodiscard]] index_t local_run(const Point<N>& p, std::size_t axis, index_t count) const override {
    return inner_.local_run(p, axis, count);
  }
  // A local layout (layout/local_layout.hpp) lifts with its offsets: without these two the plan
  // would address the group's storage as patches (the soak found this).
  [[nodiscard]] bool has_local_layout() const noexcept override { return inner_.has_local_layout(); }
  [[nodiscard]] index_t local_storage_size(int rank) const override {
    const std::optional<int> g = group_of(rank);
    return g ? inner_.local_storage_size(*g) : 0;
  }
  [[nodiscard]] std::vector<DistPiece<N>> pieces(const Box<N>& box) const override {
    std::vector<DistPiece<N>> out = inner_.pieces(box);
    for (DistPiece<N>& piece : out) piece.rank = parent_of(piece.rank);
    return out;
  }
  [[nodiscard]] bool pieces_lie_in_owned_boxes() const noexcept override {
    return inner_.user_distribution()->pieces_lie_in_owned_boxes();
  }
  [[nodiscard]] bool covers_domain() const noexcept override { return inner_.covers_domain(); }
  [[nodiscard]] bool equals(const UserDistribution<N>& other) const override {
    const auto* o = dynamic_cast<const LiftedUserDistribution*>(&other);
    return o != nullptr && o->ranks_ == ranks_ && o->inner_ == inner_;
  }
  [[nodiscard]] std::uint64_t hash() const override {
    return hash_combine(hash_combine(0x6c69667465640000ULL, inner_.hash()), ranks_.hash());  // seed: "lifted"
  }

 private:
  [[nodiscard]] int parent_of(int group_rank) const { return ranks_.rank_at_logical(group_rank); }
  [[nodiscard]] std::optional<int> group_of(int parent_rank) const {
    if (parent_rank < 0 || parent_rank >= ranks_.comm_size()) return std::nullopt;
    return ranks_.logical_of(parent_rank);
  }

  Distribution<N> inner_;
  ProcGrid<1> ranks_;  ///< logical position g holds the parent rank of group rank g
};

}  // namespace detail

/// `dist`, a distribution for the `parent_ranks.size()` ranks of a group, over the `parent_size`
/// ranks of the parent communicator: group rank g is parent rank `parent_ranks[g]` (see the file
/// comment). Throws `Error(invalid_argument)` if `dist` is for another number of ranks than
/// `parent_ranks` names, or if the parent ranks repeat or lie outside `[0, parent_size)`.
template <std::size_t N>
[[nodiscard]] Distribution<N> lift_to_parent(const Distribution<N>& dist, const std::vector<int>& parent_ranks,
                                             int parent_size) {
  const ProcGrid<1> ranks = detail::group_rank_map(parent_ranks, parent_size);
  if (dist.comm_size() != ranks.size())
    fail_argument("lift_to_parent", "dist", dist,
                  detail::concat("is for ", dist.comm_size(), " ranks, but parent_ranks names ", ranks.size()));
  if (const BoxSet<N>* set = dist.box_set()) {
    std::vector<int> owners = set->owners();
    for (int& owner : owners) owner = ranks.rank_at_logical(owner);
    return Distribution<N>::from_box_set(BoxSet<N>(set->domain(), set->boxes(), std::move(owners), parent_size));
  }
  if (dist.is_user_defined())
    return Distribution<N>::user(std::make_shared<const detail::LiftedUserDistribution<N>>(dist, ranks));
  const ProcGrid<N>& grid = dist.grid();
  std::vector<int> placed(static_cast<std::size_t>(grid.size()));
  for (int l = 0; l < grid.size(); ++l) placed[static_cast<std::size_t>(l)] = ranks.rank_at_logical(grid.rank_at_logical(l));
  return dist.with_grid(ProcGrid<N>::from_ranks(parent_size, grid.shape(), std::move(placed)));
}

}  // namespace tessera
