#pragma once
/// \file
/// `ScheduleCache`: compiled schedules keyed by a stable hash of everything they depend on (the
/// distributions, ghost specs, boxes, permutation, combine op and rank), PARTI-style: a plan is
/// built once and every later request with the same inputs is a lookup. Schedules do not depend on
/// the element type (they count elements), so arrays of different types share them. Entries are
/// dropped when a distribution they depend on is retired (`invalidate`), e.g. by a redistribution.

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tessera/plan/schedule.hpp"

namespace tessera {

/// Compiled schedules keyed by a stable hash of their inputs; see the file comment.
class ScheduleCache {
 public:
  /// The schedule stored under `key`, or the one `build()` returns, stored under `key` and tagged
  /// with the hashes of the distributions it depends on.
  template <class Build>
  std::shared_ptr<const Schedule> find_or_build(std::uint64_t key, std::initializer_list<std::uint64_t> distributions,
                                                Build&& build) {
    if (auto it = entries_.find(key); it != entries_.end()) {
      ++hits_;
      return it->second.schedule;
    }
    ++misses_;
    auto schedule = std::make_shared<const Schedule>(build());
    entries_.emplace(key, Entry{schedule, std::vector<std::uint64_t>(distributions)});  // a hit allocates nothing
    return schedule;
  }

  /// Drops every entry that depends on the distribution with hash `distribution`. Movers holding a
  /// dropped schedule keep it alive until they go.
  void invalidate(std::uint64_t distribution) {
    for (auto it = entries_.begin(); it != entries_.end();) {
      bool depends = false;
      for (std::uint64_t d : it->second.distributions) depends = depends || d == distribution;
      it = depends ? entries_.erase(it) : std::next(it);
    }
  }
  /// Drops every schedule (the counters stay).
  void clear() { entries_.clear(); }

  /// Look-ups that found a schedule.
  [[nodiscard]] std::uint64_t hits() const noexcept { return hits_; }
  /// Look-ups that had to build one.
  [[nodiscard]] std::uint64_t misses() const noexcept { return misses_; }
  /// Schedules held.
  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }

 private:
  struct Entry {
    std::shared_ptr<const Schedule> schedule;
    std::vector<std::uint64_t> distributions;
  };
  std::unordered_map<std::uint64_t, Entry> entries_;
  std::uint64_t hits_ = 0, misses_ = 0;
};

}  // namespace tessera
