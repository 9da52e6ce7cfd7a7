#pragma once
// What a plan moves between every pair of ranks, counted from the plan builders themselves: each
// rank's plan is built (no MPI: a builder computes any rank's copies) and every copy is counted
// once, from its sender's plan. Also the least any plan could move, computed independently from
// the ownership: the elements that change owner (redistribution), or the ghost elements another
// rank owns (halo update).
#include <cstddef>
#include <map>
#include <utility>
#include <vector>

#include "tessera/geometry.hpp"
#include "tessera/layout/distribution.hpp"
#include "tessera/layout/multiblock.hpp"
#include "tessera/plan/ghost_spec.hpp"
#include "tessera/plan/halo_plan.hpp"
#include "tessera/plan/multiblock_plan.hpp"
#include "tessera/plan/redistribution_plan.hpp"
#include "tessera/plan/storage_layout.hpp"

namespace tessera_tool {

using tessera::index_t;

/// Elements sent from each rank to each rank; sparse, since most pairs exchange nothing.
class TrafficMatrix {
 public:
  explicit TrafficMatrix(int ranks = 0) : ranks_(ranks) {}

  void add(int src, int dst, index_t elements) {
    if (elements > 0) cells_[{src, dst}] += elements;
  }
  [[nodiscard]] int ranks() const noexcept { return ranks_; }
  [[nodiscard]] index_t at(int src, int dst) const {
    const auto it = cells_.find({src, dst});
    return it == cells_.end() ? 0 : it->second;
  }
  /// The non-zero entries, ordered by (src, dst).
  [[nodiscard]] const std::map<std::pair<int, int>, index_t>& entries() const noexcept { return cells_; }

  /// Elements that travel between different ranks (the sum off the diagonal).
  [[nodiscard]] index_t between_ranks() const {
    index_t sum = 0;
    for (const auto& [pair, n] : cells_)
      if (pair.first != pair.second) sum += n;
    return sum;
  }
  /// Elements copied within a rank (the diagonal): no message.
  [[nodiscard]] index_t kept_local() const {
    index_t sum = 0;
    for (const auto& [pair, n] : cells_)
      if (pair.first == pair.second) sum += n;
    return sum;
  }
  /// Messages: one per ordered pair of different ranks that exchange anything (a mover sends at
  /// most one message per peer per execution).
  [[nodiscard]] int messages() const {
    int count = 0;
    for (const auto& [pair, n] : cells_) count += pair.first != pair.second ? 1 : 0;
    return count;
  }
  /// Ranks that copy something to themselves.
  [[nodiscard]] int local_copies() const {
    int count = 0;
    for (const auto& [pair, n] : cells_) count += pair.first == pair.second ? 1 : 0;
    return count;
  }
  /// The largest message: (src, dst, elements); (-1, -1, 0) if there is none.
  struct Message {
    int src = -1, dst = -1;
    index_t elements = 0;
  };
  [[nodiscard]] Message largest_message() const {
    Message m;
    for (const auto& [pair, n] : cells_)
      if (pair.first != pair.second && n > m.elements) m = {pair.first, pair.second, n};
    return m;
  }

 private:
  int ranks_;
  std::map<std::pair<int, int>, index_t> cells_;
};

/// Counts the copies of every rank's plan, each once (from its sender's plan). `plan_of(r)`
/// returns rank r's MotionPlan.
template <class PlanOf>
TrafficMatrix traffic_of(int ranks, PlanOf plan_of) {
  TrafficMatrix m(ranks);
  for (int r = 0; r < ranks; ++r) {
    const auto plan = plan_of(r);  // named: a range-for over a temporary's member would dangle
    for (const auto& copy : plan.copies())
      if (copy.src_rank == r) m.add(copy.src_rank, copy.dst_rank, tessera::volume(copy.src));
  }
  return m;
}

/// What `redistribution_plan(from, to, r)` moves, over all ranks of `from`'s communicator.
template <std::size_t N>
TrafficMatrix redistribution_traffic(const tessera::Distribution<N>& from, const tessera::Distribution<N>& to) {
  return traffic_of(from.comm_size(), [&](int r) { return tessera::redistribution_plan(from, to, r); });
}

/// What `halo_plan(dist, ghosts, r)` (one update_ghosts) moves, over all ranks.
template <std::size_t N>
TrafficMatrix halo_traffic(const tessera::Distribution<N>& dist, const tessera::GhostSpec<N>& ghosts) {
  return traffic_of(dist.comm_size(), [&](int r) { return tessera::halo_plan(dist, ghosts, r); });
}

/// What a multiblock array's ghost update moves (the schedule `multiblock_ghost_schedule` compiles):
/// the embedded box set's halo plan (each block's ghosts from its own cells) plus the interface
/// copies (`interface_copies`), each counted once, from its sender.
template <std::size_t N>
TrafficMatrix multiblock_halo_traffic(const tessera::MultiblockLayout<N>& mb, const tessera::GhostSpec<N>& ghosts) {
  TrafficMatrix m = halo_traffic(mb.embedded(), ghosts);
  for (int r = 0; r < mb.comm_size(); ++r)
    for (const auto& copy : tessera::interface_copies(mb, ghosts, r))
      if (copy.src_rank == r) m.add(copy.src_rank, copy.dst_rank, tessera::volume(copy.src));
  return m;
}

/// Elements whose owner differs between `from` and `to` (any kinds: sections, not boxes): what
/// every rank owned before minus what it keeps. The least a redistribution can move. An element
/// that falls in a hole of `to` (a box set) has no new owner: it is dropped, not moved.
template <std::size_t N>
index_t elements_changing_owner(const tessera::Distribution<N>& from, const tessera::Distribution<N>& to) {
  index_t moved = 0;
  for (int r = 0; r < from.comm_size(); ++r) {
    const auto before = from.owned_sections(r);
    if (before.empty()) continue;
    if (!to.covers_domain()) {
      // Only the parts of r's elements that another rank owns afterwards (to's index finds them).
      for (const auto& a : before)
        for (const auto& piece : to.pieces(a))
          if (piece.rank != r) moved += tessera::volume(piece.section);
      continue;
    }
    const auto after = to.owned_sections(r);
    index_t kept = 0;
    for (const auto& a : before)
      for (const auto& b : after)
        for (const auto& common : tessera::intersect(a, b)) kept += tessera::volume(common);
    moved += from.local_size(r) - kept;
  }
  return moved;
}

/// Ghost elements, over every rank, that another rank owns: each must arrive once per update, so
/// no halo plan can move less. A ghost beyond a non-periodic edge, or over a hole of a box set, is
/// never filled and not counted.
template <std::size_t N>
index_t remote_ghost_elements(const tessera::Distribution<N>& dist, const tessera::GhostSpec<N>& ghosts) {
  if (ghosts.none()) return 0;
  index_t remote = 0;
  for (int r = 0; r < dist.comm_size(); ++r) {
    const auto mine = dist.owned_sections(r);
    const auto layout = tessera::StorageLayout<N>::make(dist, r, ghosts);
    for (const auto& patch : layout.patches())
      for (const auto& ghost : tessera::detail::ghost_boxes(patch.owned_box(), ghosts))
        for (const auto& wrapped : tessera::wrap_periodic(ghost, dist.domain(), ghosts.periodic))
          for (const auto& region : tessera::detail::ghost_sections(wrapped.box, patch)) {
            if (!dist.covers_domain()) {  // a box set: a ghost over a hole is owned by no one, never filled
              for (const auto& piece : dist.pieces(region))
                if (piece.rank != r) remote += tessera::volume(piece.section);
              continue;
            }
            remote += tessera::volume(region);
            for (const auto& own : mine)
              for (const auto& common : tessera::intersect(region, own)) remote -= tessera::volume(common);
          }
  }
  return remote;
}

/// The least a multiblock ghost update can move between ranks: the embedded set's ghosts another
/// rank owns (each block's own halo) plus the interface ghosts whose source cell another rank owns,
/// counted from the interface copies (each ghost beyond a glued face has one source cell).
template <std::size_t N>
index_t multiblock_remote_ghost_elements(const tessera::MultiblockLayout<N>& mb, const tessera::GhostSpec<N>& ghosts) {
  index_t remote = remote_ghost_elements(mb.embedded(), ghosts);
  for (int r = 0; r < mb.comm_size(); ++r)
    for (const auto& copy : tessera::interface_copies(mb, ghosts, r))
      if (copy.dst_rank == r && copy.src_rank != r) remote += tessera::volume(copy.dst);
  return remote;
}

}  // namespace tessera_tool
