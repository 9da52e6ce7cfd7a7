#pragma once
/// \file
/// `IndexPlanCache`: the inspected plans of the index-array remaps (`gather`, `scatter` in
/// array/remap.hpp) kept between calls, PARTI-style: a repeated `gather(src, idx, dst)` with the
/// same index values and distributions skips the inspection and runs the kept schedule.
///
/// Agreement. One rank's plan depends on every rank's index values (a rank sends what the others
/// ask of it), so no rank can tell alone that its plan is still good. Each rank hashes what its
/// own part depends on (kind of remap, distributions, ghost specs, its rank, its index values)
/// into a local key and looks its entry up by that key; then one allreduce (a sum of three
/// numbers) decides for every rank: a plan is reused only if every rank found an entry and all
/// of them were made by one collective inspection (each entry remembers the sum of the local keys
/// at its inspection, which must then equal the sum now). Otherwise every rank inspects again and
/// replaces its entry. So entries need not be kept alike on every rank: eviction is local.
/// Like the schedule cache, this trusts 64-bit hashes not to collide.
///
/// Bounds: at most `kMaxEntries` plans of at most `kMaxBytes` together, the least recently used
/// dropped first; a larger plan is used once and not kept. Entries of arrays that are gone or of
/// distributions that were retired are never found again and leave as newer ones push them out.
/// One cache per thread (a communicator's collective calls come from one thread); it also keeps
/// the scratch buffer the remaps stage elements in, which only ever grows. After the first call,
/// a repeated remap allocates nothing here.
///
/// Kept separate from the per-domain caches for now, to be folded into one exchange cache.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "tessera/core/index.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/geometry/section.hpp"
#include "tessera/plan/schedule.hpp"

namespace tessera::detail {

/// What the inspection of one index remap leaves on a rank.
struct IndexPlan {
  /// gather: src storage -> dst storage; scatter: values storage -> the staging buffer.
  std::shared_ptr<const Schedule> schedule;
  /// scatter: the dst offsets the staged elements are applied to, staged element k onto the k-th
  /// offset these runs enumerate (the staging order is the order of application).
  std::vector<Section1> apply;
  /// scatter: elements staged on this rank.
  index_t staged = 0;

  /// Bytes the plan holds, roughly (what the cache's byte bound counts).
  [[nodiscard]] std::size_t bytes() const noexcept {
    std::size_t n = sizeof(IndexPlan) + apply.capacity() * sizeof(Section1);
    if (!schedule) return n;
    n += sizeof(Schedule) + schedule->runs.capacity() * sizeof(Section1);
    for (const auto* list : {&schedule->sends, &schedule->receives})
      for (const PeerBlocks& p : *list) n += sizeof(PeerBlocks) + p.blocks.capacity() * sizeof(Block);
    return n + (schedule->local_src.capacity() + schedule->local_dst.capacity()) * sizeof(Block);
  }
};

/// Index plans kept between calls (see the file comment).
class IndexPlanCache {
 public:
  /// Plans kept at most.
  static constexpr std::size_t kMaxEntries = 8;
  /// Bytes the kept plans hold at most together.
  static constexpr std::size_t kMaxBytes = std::size_t{256} << 20;

  /// What `find` decided, the same way on every rank.
  struct Lookup {
    std::shared_ptr<const IndexPlan> plan;  ///< the plan to reuse, or null on every rank
    std::uint64_t inspection = 0;           ///< the sum of the local keys: names a new inspection
  };

  /// Collective over `comm` (one allreduce): this rank's plan under `key` if every rank may reuse
  /// its own, null on every rank otherwise (see the file comment).
  [[nodiscard]] Lookup find(const Communicator& comm, std::uint64_t key) {
    Entry* e = nullptr;
    for (auto it = entries_.begin(); it != entries_.end() && !e; ++it)
      if (it->key == key) {
        entries_.splice(entries_.begin(), entries_, it);  // most recently used first; allocates nothing
        e = &entries_.front();
      }
    // found, sum of the local keys, sum of the found entries' inspections (unsigned: sums wrap)
    std::uint64_t votes[3] = {e ? 1u : 0u, key, e ? e->inspection : 0u};
    comm.allreduce(std::span<std::uint64_t>(votes), ReduceOp::sum);
    const auto ranks = static_cast<std::uint64_t>(comm.size());
    if (votes[0] == ranks && votes[2] == ranks * votes[1]) {
      ++hits_;
      return {e->plan, votes[1]};
    }
    ++misses_;
    return {nullptr, votes[1]};
  }

  /// Keeps `plan`, made by the inspection `find` named, under `key` (replacing an older entry of
  /// that key), unless it alone exceeds `kMaxBytes`; returns it either way.
  std::shared_ptr<const IndexPlan> keep(std::uint64_t key, std::uint64_t inspection, IndexPlan plan) {
    auto kept = std::make_shared<const IndexPlan>(std::move(plan));
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (it->key == key) {
        bytes_ -= it->bytes;
        entries_.erase(it);
        break;
      }
    const std::size_t bytes = kept->bytes();
    if (bytes > kMaxBytes) return kept;
    entries_.push_front(Entry{key, inspection, kept, bytes});
    bytes_ += bytes;
    while (entries_.size() > kMaxEntries || bytes_ > kMaxBytes) {
      bytes_ -= entries_.back().bytes;
      entries_.pop_back();
    }
    return kept;
  }

  /// A buffer of at least `bytes` bytes (never null), valid until the next call; grows only.
  [[nodiscard]] std::byte* scratch(std::size_t bytes) {
    if (bytes > scratch_size_ || !scratch_) {
      scratch_ = std::make_unique_for_overwrite<std::byte[]>(std::max<std::size_t>(bytes, 1));
      scratch_size_ = bytes;
    }
    return scratch_.get();
  }

  /// Calls that reused a kept plan (on every rank alike).
  [[nodiscard]] std::uint64_t hits() const noexcept { return hits_; }
  /// Calls that inspected.
  [[nodiscard]] std::uint64_t misses() const noexcept { return misses_; }
  /// Plans kept.
  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }
  /// Bytes the kept plans hold.
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }
  /// Drops every plan and the scratch buffer (the counters stay). Not collective: a rank that
  /// clears alone only makes the next lookup miss on every rank.
  void clear() noexcept {
    entries_.clear();
    bytes_ = 0;
    scratch_.reset();
    scratch_size_ = 0;
  }

 private:
  struct Entry {
    std::uint64_t key;
    std::uint64_t inspection;
    std::shared_ptr<const IndexPlan> plan;
    std::size_t bytes;
  };
  std::list<Entry> entries_;
  std::size_t bytes_ = 0;
  std::unique_ptr<std::byte[]> scratch_;
  std::size_t scratch_size_ = 0;
  std::uint64_t hits_ = 0, misses_ = 0;
};

/// This thread's cache of index plans.
[[nodiscard]] inline IndexPlanCache& index_plan_cache() {
  thread_local IndexPlanCache cache;
  return cache;
}

}  // namespace tessera::detail
