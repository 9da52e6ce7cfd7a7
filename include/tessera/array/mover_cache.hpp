#pragma once
/// \file
/// `MoverCache`: movers kept between calls of the one-shot remaps (`copy`, `copy_section`,
/// `transpose`, `DistArray::gather_to`, `DistArray::scatter_from`), so that a repeated call reuses
/// the mover's pack buffers and MPI datatypes instead of allocating (and page-faulting) them again:
/// after the first execution such a call allocates nothing. Each `Domain` holds one
/// (`Domain::movers()`).
/// \code
///   tessera::transpose(a, at, {1, 0});   // first call: builds the schedule and a mover, keeps both
///   tessera::transpose(a, at, {1, 0});   // later calls: a lookup in each cache, then the execution
///   dom.movers().set_limits(4, 64 << 20);  // alike on every rank: at most 4 movers, 64 MiB charged
/// \endcode
/// An entry is keyed by the schedule it runs (its address: the schedule cache hands out the same
/// object for the same inputs, and the entry holds a reference, so the address cannot be reused
/// while the entry exists), the element size and the combine function.
///
/// Message tags: a `Mover` takes its tag from the communicator when it is made, so movers must be
/// made in the same order on every rank. The cache keeps that true: a lookup misses on every rank
/// or on none (schedule caches hit and miss alike on every rank, since their keys and
/// invalidations are the same everywhere), and eviction depends only on values every rank agrees
/// on without communicating: the entry count and each entry's charge, the bytes of the section
/// its schedule moves counted over all ranks (what the caller passes: the moved box's volume times
/// the element size). One rank's buffers for a mover never exceed three times its charge (its
/// packed sends, packed receives and local staging each hold at most the section), and are
/// usually about twice the charge over the rank count.
///
/// Memory bound: at most `max_entries` movers (default 16) whose charges sum to at most
/// `max_bytes` (default 1 GiB) are kept; the least recently used go first. A mover whose charge
/// alone exceeds `max_bytes` is made, run and dropped, as if there were no cache. The schedules
/// the entries run are kept alive with them, also when their distribution is retired: they are
/// never found again and leave as newer entries push them out (or at `clear()`).
///
/// A cached mover is only ever run to completion inside `run()`; should an execution throw, its
/// entry is dropped, so that a mover left in flight is never started again.

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <utility>

#include "tessera/core/error.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/exchange/mover.hpp"
#include "tessera/plan/combine_op.hpp"
#include "tessera/plan/schedule.hpp"

namespace tessera {

/// Movers kept between calls of the one-shot remaps, bounded in count and bytes (see the file
/// comment). Not thread-safe, as the domain that holds it.
class MoverCache {
 public:
  /// Default bound on the number of movers kept.
  static constexpr std::size_t kDefaultMaxEntries = 16;
  /// Default bound on the bytes the kept movers are charged (see the file comment).
  static constexpr std::size_t kDefaultMaxBytes = std::size_t{1} << 30;

  MoverCache() = default;
  MoverCache(const MoverCache&) = delete;
  MoverCache& operator=(const MoverCache&) = delete;

  /// Collective over `comm` (in the same order on every rank, with the schedules the ranks built
  /// for one operation): runs `schedule` on elements of `element_size` bytes from `src` into
  /// `dst` (as `Mover::run`), with the kept mover for (schedule, element_size, combine) or a new
  /// one, which is kept if the bounds allow. `section_bytes`, the same on every rank, is what the
  /// mover is charged: the bytes of the section the schedule moves, over all ranks. Communicates
  /// nothing besides the mover's own messages.
  void run(const Communicator& comm, const std::shared_ptr<const Schedule>& schedule, std::size_t element_size,
           std::size_t section_bytes, const void* src, void* dst, CombineFn combine = nullptr) {
    if (Entry* e = find(schedule.get(), element_size, combine)) {
      ++hits_;
      run_or_drop(*e, src, dst);
      return;
    }
    ++misses_;
    auto mover = std::make_unique<Mover>(comm, schedule, element_size, combine);
    const std::size_t charge = section_bytes;
    if (charge > max_bytes_ || max_entries_ == 0) {
      mover->run(src, dst);  // too large to keep: as if there were no cache
      return;
    }
    entries_.push_front(Entry{schedule.get(), element_size, combine, charge, std::move(mover)});
    bytes_ += charge;
    evict();
    run_or_drop(entries_.front(), src, dst);
  }

  /// Sets the bounds (see the file comment) and evicts down to them. Not collective, but must be
  /// called alike on every rank (eviction must be the same everywhere); 0 entries turns caching off.
  void set_limits(std::size_t max_entries, std::size_t max_bytes) {
    max_entries_ = max_entries;
    max_bytes_ = max_bytes;
    evict();
  }
  /// The bound on the number of movers kept.
  [[nodiscard]] std::size_t max_entries() const noexcept { return max_entries_; }
  /// The bound on the bytes the kept movers are charged.
  [[nodiscard]] std::size_t max_bytes() const noexcept { return max_bytes_; }
  /// Movers kept.
  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }
  /// Bytes the kept movers are charged together (at most `max_bytes()`).
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }
  /// Runs that found their mover kept.
  [[nodiscard]] std::uint64_t hits() const noexcept { return hits_; }
  /// Runs that had to make one.
  [[nodiscard]] std::uint64_t misses() const noexcept { return misses_; }
  /// Drops every kept mover (the counters stay). Not collective, but call it alike on every rank.
  void clear() noexcept {
    entries_.clear();
    bytes_ = 0;
  }

 private:
  struct Entry {
    const Schedule* schedule;
    std::size_t element_size;
    CombineFn combine;
    std::size_t charge;
    std::unique_ptr<Mover> mover;
  };

  // A hit moves the entry to the front; list splicing allocates nothing.
  Entry* find(const Schedule* s, std::size_t element_size, CombineFn combine) noexcept {
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (it->schedule == s && it->element_size == element_size && it->combine == combine) {
        entries_.splice(entries_.begin(), entries_, it);
        return &entries_.front();
      }
    return nullptr;
  }

  void run_or_drop(Entry& e, const void* src, void* dst) {
    try {
      e.mover->run(src, dst);
    } catch (...) {
      drop(&e);
      throw;
    }
  }

  void drop(const Entry* e) noexcept {
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (&*it == e) {
        bytes_ -= it->charge;
        entries_.erase(it);
        return;
      }
  }

  // Least recently used first; the front entry (the one about to run) is dropped last. Movers are
  // only in flight inside run(), so none is here: the check guards against a future split-phase use.
  void evict() noexcept {
    while (!entries_.empty() && (entries_.size() > max_entries_ || bytes_ > max_bytes_)) {
      auto victim = std::prev(entries_.end());
      if (victim->mover->in_flight()) break;
      bytes_ -= victim->charge;
      entries_.erase(victim);
    }
  }

  std::list<Entry> entries_;
  std::size_t bytes_ = 0;
  std::size_t max_entries_ = kDefaultMaxEntries;
  std::size_t max_bytes_ = kDefaultMaxBytes;
  std::uint64_t hits_ = 0, misses_ = 0;
};

}  // namespace tessera
