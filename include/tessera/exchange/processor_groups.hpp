#pragma once
/// \file
/// `ProcessorGroups`: disjoint groups of the ranks of a parent communicator, each with a
/// communicator of its own (ZPL's disjoint grids and task parallelism; `MPI_Comm_split`).
///
/// Domains and arrays built on a group's communicator run every collective (ghost updates,
/// reductions, redistributions, gathers) among the ranks of that group only, so two groups can do
/// different work at the same time, each at its own pace. The one operation that involves two
/// groups is a move between them, `copy_between_groups` (array/group_copy.hpp), collective over
/// the parent; its movers are kept here (`cache()`).
/// \code
///   // ranks 0, 2, 4 compute one field, ranks 1, 3 another (ZPL's grids G4 and G5)
///   tessera::ProcessorGroups groups(world, {{0, 2, 4}, {1, 3}});
///   if (groups.my_group() == 0) {
///     tessera::Domain<2> dom(groups.communicator(), dist_for_3_ranks);   // collectives on {0, 2, 4}
///     ...
///   }
///   groups.parent_ranks(1);        // {1, 3}: group rank i of group 1 is parent rank {1, 3}[i]
///   groups.group_rank(1, 3);       // 1
/// \endcode
/// Group rank i of group g is parent rank `groups[g][i]`: the order of each list is the order of
/// the group's ranks. A parent rank may be in no group (then it has no group communicator, and
/// takes part only in the parent's collectives: the moves between groups).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/layout/distribution.hpp"
#include "tessera/layout/lifted_distribution.hpp"
#include "tessera/layout/proc_grid.hpp"
#include "tessera/plan/exchange_cache.hpp"

namespace tessera {

/// Disjoint groups of a parent communicator's ranks, each with its own `Communicator` (see the
/// file comment). Move-only; keep it alive while domains over its communicator exist, and keep the
/// parent alive while it exists.
class ProcessorGroups {
 public:
  /// Collective over `parent`: splits it into `groups`, lists of parent ranks (every rank passes
  /// the same lists). Each rank of a group gets the group's communicator (its own duplicate,
  /// freed with this object); ranks in no group get none. Throws `Error(invalid_argument)` on
  /// every rank, with no communicator made, if there is no group, a group is empty, a rank lies
  /// outside `[0, parent.size())` or is in two groups, or if the ranks passed different lists.
  /// Costs two small allreduces and one `MPI_Comm_split`.
  ProcessorGroups(const Communicator& parent, std::vector<std::vector<int>> groups);

  /// Collective over `parent`: one group per grid, of the grid's active ranks in its logical
  /// order (so a distribution over the grid's shape for the group's ranks, `ProcGrid<N>::with_shape(
  /// group size, grid.shape())`, puts each position on the rank the grid places there). The grids
  /// are over the parent (`comm_size() == parent.size()`) and disjoint (ZPL's G4 and G5).
  /// Throws as the constructor does, and for a grid over another communicator size.
  /// \code
  ///   auto even = tessera::ProcGrid<2>::from_ranks(8, {2, 2}, {0, 2, 4, 6});
  ///   auto odd = tessera::ProcGrid<2>::from_ranks(8, {2, 2}, {1, 3, 5, 7});
  ///   auto groups = tessera::ProcessorGroups::from_grids<2>(world, {even, odd});
  /// \endcode
  template <std::size_t N>
  [[nodiscard]] static ProcessorGroups from_grids(const Communicator& parent, const std::vector<ProcGrid<N>>& grids) {
    std::vector<std::vector<int>> groups;
    std::optional<Error> refused;
    for (std::size_t g = 0; g < grids.size(); ++g) {
      if (grids[g].comm_size() != parent.size() && !refused)
        refused = Error(ErrorCode::invalid_argument,
                        detail::concat("ProcessorGroups::from_grids: argument 'grids[", g, "]' = ", grids[g],
                                       " is over ", grids[g].comm_size(), " ranks, but the parent has ", parent.size()));
      groups.push_back(grids[g].active_ranks());
    }
    return ProcessorGroups(parent, std::move(groups), std::move(refused));
  }

  ~ProcessorGroups();
  ProcessorGroups(ProcessorGroups&&) noexcept;
  ProcessorGroups& operator=(ProcessorGroups&&) = delete;
  ProcessorGroups(const ProcessorGroups&) = delete;
  ProcessorGroups& operator=(const ProcessorGroups&) = delete;

  /// The communicator the groups were split from.
  [[nodiscard]] const Communicator& parent() const noexcept { return *parent_; }
  /// Number of groups.
  [[nodiscard]] int count() const noexcept { return static_cast<int>(groups_.size()); }
  /// Ranks in group `group`. Throws `Error(out_of_range)` for a group that does not exist.
  [[nodiscard]] int size(int group) const { return static_cast<int>(parent_ranks(group).size()); }
  /// The parent ranks of group `group`: entry i is the parent rank of group rank i.
  [[nodiscard]] const std::vector<int>& parent_ranks(int group) const;
  /// The rank in group `group` of parent rank `parent_rank`, or nullopt if it is not in that group.
  [[nodiscard]] std::optional<int> group_rank(int group, int parent_rank) const;
  /// The group that holds parent rank `parent_rank`, or nullopt if none does.
  [[nodiscard]] std::optional<int> group_of(int parent_rank) const;
  /// This rank's group, or nullopt if it is in none.
  [[nodiscard]] std::optional<int> my_group() const noexcept { return my_group_; }
  /// This rank's group's communicator. Throws `Error(invalid_argument)` on a rank in no group.
  [[nodiscard]] const Communicator& communicator() const;

  /// `dist`, a distribution for the ranks of group `group`, over the parent's ranks
  /// (`lift_to_parent`). Throws `Error(invalid_argument)` if `dist` is for another number of ranks.
  template <std::size_t N>
  [[nodiscard]] Distribution<N> lifted(int group, const Distribution<N>& dist) const {
    return lift_to_parent(dist, parent_ranks(group), parent_->size());
  }

  /// The movers of the moves between groups (`copy_between_groups`), kept alike on every parent rank.
  [[nodiscard]] ExchangeCache& cache() const noexcept { return *cache_; }

 private:
  ProcessorGroups(const Communicator& parent, std::vector<std::vector<int>> groups, std::optional<Error> refused);
  [[nodiscard]] std::optional<Error> invalid_groups() const;
  void check_same_lists_everywhere() const;

  const Communicator* parent_;
  std::vector<std::vector<int>> groups_;
  std::vector<int> group_of_rank_;  ///< parent rank -> its group, -1 for none
  std::optional<int> my_group_;
  std::unique_ptr<Communicator> mine_;  ///< this rank's group's communicator (null in no group)
  std::unique_ptr<ExchangeCache> cache_;
};

}  // namespace tessera
