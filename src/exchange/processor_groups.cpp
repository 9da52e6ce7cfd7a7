#include "tessera/exchange/processor_groups.hpp"

#include <mpi.h>

#include <array>
#include <span>

#include "tessera/core/hash.hpp"

namespace tessera {

namespace {
constexpr const char* kWhere = "ProcessorGroups";
}  // namespace

ProcessorGroups::ProcessorGroups(const Communicator& parent, std::vector<std::vector<int>> groups)
    : ProcessorGroups(parent, std::move(groups), std::nullopt) {}

ProcessorGroups::ProcessorGroups(const Communicator& parent, std::vector<std::vector<int>> groups,
                                 std::optional<Error> refused)
    : parent_(&parent), groups_(std::move(groups)), cache_(std::make_unique<ExchangeCache>()) {
  // The lists are checked locally, so a rank whose lists differ would fail alone and leave the
  // others in MPI_Comm_split: every rank agrees on the outcome first.
  if (!refused) refused = invalid_groups();
  parent.agree(refused);
  check_same_lists_everywhere();

  group_of_rank_.assign(static_cast<std::size_t>(parent.size()), -1);
  int key = 0;
  for (std::size_t g = 0; g < groups_.size(); ++g)
    for (std::size_t i = 0; i < groups_[g].size(); ++i) {
      group_of_rank_[static_cast<std::size_t>(groups_[g][i])] = static_cast<int>(g);
      if (groups_[g][i] == parent.rank()) {
        my_group_ = static_cast<int>(g);
        key = static_cast<int>(i);  // group rank i is the list's entry i
      }
    }
  MPI_Comm split = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split(parent.raw(), my_group_ ? *my_group_ : MPI_UNDEFINED, key, &split), "MPI_Comm_split");
  if (split == MPI_COMM_NULL) return;
  // Communicator keeps a duplicate of its own (with MPI_ERRORS_RETURN and checked mode's board),
  // so the split itself is freed once it is made.
  try {
    mine_ = std::make_unique<Communicator>(split);
  } catch (...) {
    MPI_Comm_free(&split);
    throw;
  }
  MPI_Comm_free(&split);
}

ProcessorGroups::~ProcessorGroups() = default;
ProcessorGroups::ProcessorGroups(ProcessorGroups&&) noexcept = default;

std::optional<Error> ProcessorGroups::invalid_groups() const {
  const int size = parent_->size();
  if (groups_.empty())
    return Error(ErrorCode::invalid_argument, detail::concat(kWhere, ": argument 'groups' is empty; name at least one group"));
  std::vector<int> seen_in(static_cast<std::size_t>(size), -1);
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    if (groups_[g].empty())
      return Error(ErrorCode::invalid_argument,
                   detail::concat(kWhere, ": argument 'groups[", g, "]' is empty; every group needs a rank"));
    for (std::size_t i = 0; i < groups_[g].size(); ++i) {
      const int rank = groups_[g][i];
      if (rank < 0 || rank >= size)
        return Error(ErrorCode::invalid_argument,
                     detail::concat(kWhere, ": argument 'groups[", g, "][", i, "]' = ", rank,
                                    " lies outside the parent's ranks [0, ", size, ")"));
      int& first = seen_in[static_cast<std::size_t>(rank)];
      if (first >= 0)
        return Error(ErrorCode::invalid_argument,
                     detail::concat(kWhere, ": argument 'groups[", g, "][", i, "]' = ", rank,
                                    first == static_cast<int>(g) ? " appears twice in that group"
                                                                 : detail::concat(" is also in groups[", first, "]"),
                                    "; groups must be disjoint"));
      first = static_cast<int>(g);
    }
  }
  return std::nullopt;
}

void ProcessorGroups::check_same_lists_everywhere() const {
  std::uint64_t h = hash_combine(0x67726f757073ULL, groups_.size());  // seed: "groups"
  for (const auto& group : groups_) {
    h = hash_combine(h, group.size());
    for (int rank : group) h = hash_combine(h, static_cast<std::uint64_t>(rank));
  }
  // The largest hash and the largest complement: equal hashes everywhere iff max(~h) == ~max(h).
  std::array<std::uint64_t, 2> extremes{h, ~h};
  parent_->allreduce(std::span<std::uint64_t>(extremes), ReduceOp::max);
  if (extremes[1] != ~extremes[0])
    fail(ErrorCode::invalid_argument, kWhere,
         ": argument 'groups' differs between the ranks; every rank of the parent must pass the same lists");
}

const std::vector<int>& ProcessorGroups::parent_ranks(int group) const {
  if (group < 0 || group >= count())
    fail(ErrorCode::out_of_range, kWhere, ": group ", group, " does not exist (there are ", count(), ")");
  return groups_[static_cast<std::size_t>(group)];
}

std::optional<int> ProcessorGroups::group_rank(int group, int parent_rank) const {
  const std::vector<int>& ranks = parent_ranks(group);
  for (std::size_t i = 0; i < ranks.size(); ++i)
    if (ranks[i] == parent_rank) return static_cast<int>(i);
  return std::nullopt;
}

std::optional<int> ProcessorGroups::group_of(int parent_rank) const {
  if (parent_rank < 0 || parent_rank >= parent_->size())
    fail(ErrorCode::out_of_range, kWhere, ": parent rank ", parent_rank, " lies outside [0, ", parent_->size(), ")");
  const int g = group_of_rank_[static_cast<std::size_t>(parent_rank)];
  if (g < 0) return std::nullopt;
  return g;
}

const Communicator& ProcessorGroups::communicator() const {
  if (!mine_)
    fail(ErrorCode::invalid_argument, kWhere, "::communicator: parent rank ", parent_->rank(),
         " is in no group, so it has no group communicator");
  return *mine_;
}

}  // namespace tessera
