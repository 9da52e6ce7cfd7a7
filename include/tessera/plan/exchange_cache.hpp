#pragma once
/// \file
/// `ExchangeCache`: the one cache of a domain. It keeps compiled schedules (PARTI-style: built
/// once, every later request with the same inputs is a lookup) and the executors that run them
/// (movers, fused movers: their buffers and datatypes are what a repeated exchange must not
/// allocate again), under one bound and one invalidation.
/// \code
///   tessera::ExchangeCache cache;
///   auto s = cache.find_or_build(key, {dist.hash()}, [&] { return compile_schedule(...); });
///   const std::size_t size = sizeof(double);
///   auto mover = cache.executor<MyMover>({key, {&size, 1}}, {dist.hash()}, charge,
///                                        [&] { return std::make_unique<MyMover>(comm, s, size); });
///   mover->run(src, dst);            // a later call with the same key finds the same mover
///   cache.invalidate(dist.hash());   // the distribution retired: its entries go
/// \endcode
/// The plan layer knows nothing of MPI: executors are stored behind `CachedExecutor`, which the
/// exchange layer's movers implement.
///
/// **Keys.** A schedule is found by the stable hash of everything it depends on (what the builders
/// in schedule_builders.hpp compute). An executor is found by `ExecutorKey`: the key of the schedule it
/// runs, the element size of each array it moves, the combine function of each (a function, not
/// a `CombineOp`: `add` on `double` and on `int64_t` are different executors of equal element
/// size), and the algorithm asked for. Equal keys may hold several executors, told apart by a
/// slot: a lookup takes the lowest slot that is not busy, and makes a new slot when all are, so
/// that two arrays of one type with one schedule can have ghost updates in flight at once.
///
/// **Bounds.** At most `max_entries()` entries (schedules and executors together) whose charges sum
/// to at most `max_bytes()` are kept; the least recently used go first, skipping busy executors
/// (the cache may stay over its bounds while they are busy and comes back within them as soon as
/// they are not). An entry whose charge alone exceeds `max_bytes()` (or any entry when
/// `max_entries()` is 0) is built, used and dropped: it is handed to the caller and never kept.
/// An entry's charge is what its user passes: bytes every rank agrees on, meant as a bound on what
/// one rank's part of the entry holds (for a mover: the bytes of the section it moves, over all
/// ranks); schedules are charged 0 unless their builder says otherwise.
///
/// **Invalidation.** Every entry names the hashes of the distributions it depends on; when a
/// distribution is retired (`invalidate`, e.g. after a redistribution), every entry depending on
/// it goes. A busy executor leaves the lookups at once and is freed once it is no longer busy.
///
/// **Why every rank stays in step without communicating.** A mover takes its message tag from the
/// communicator when it is made, and some movers agree on their algorithm with a collective when
/// made: so movers must be made in the same order on every rank, which means an executor lookup
/// must hit on every rank or on none. The cache makes each decision from values every rank agrees
/// on, given that every rank makes the same calls in the same order (as collective calls must):
/// - hits: keys are equal on a rank exactly when they are equal on every other (they hash the same
///   inputs; a schedule key also hashes the rank, which changes the value, not the equalities);
/// - recency: the order of lookups, the same everywhere;
/// - eviction and "too large": entry counts and charges, never local memory sizes or timings;
/// - busy: what `CachedExecutor::busy` says, which must be the same on every rank (true from a
///   start to the completion that the owner makes alike on every rank);
/// - slots: the lowest non-busy slot, new slots numbered lowest-unused, never by container order;
/// - invalidation: the same retired hashes in the same order.
/// Schedules are built without communication, but the same rules apply to them, so that a builder
/// that does communicate (the inspector of an irregular gather) may be cached too. Not
/// thread-safe, as the domain that holds it.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <list>
#include <memory>
#include <span>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tessera/plan/combine_op.hpp"
#include "tessera/plan/schedule.hpp"

namespace tessera {

/// What the cache needs from an executor it keeps (a mover, a fused mover); see the file comment.
struct CachedExecutor {
  virtual ~CachedExecutor();
  /// True while an execution started on this executor is not completed. Must be the same on every
  /// rank: set by a start, cleared by the completion its owner makes alike everywhere (a `wait`,
  /// not a `test` that may succeed on one rank first).
  [[nodiscard]] virtual bool busy() const noexcept = 0;
};

/// Which executor to find (see the file comment). A view: the spans must outlive the lookup.
struct ExecutorKey {
  ExecutorKey(std::uint64_t schedule_key, std::span<const std::size_t> sizes, std::span<const CombineFn> combines = {},
              int algorithm_number = 0) noexcept
      : schedule(schedule_key), element_sizes(sizes), combine(combines), algorithm(algorithm_number) {}

  std::uint64_t schedule;                      ///< the key its schedule is cached under
  std::span<const std::size_t> element_sizes;  ///< bytes per element, one entry per array moved
  std::span<const CombineFn> combine;          ///< one per array, or empty: replace in every array
  int algorithm;                               ///< the exchange layer's algorithm, as a number
};

/// Counters and sizes of an `ExchangeCache`, what `tessera` and the docs report.
struct ExchangeCacheStats {
  std::uint64_t schedule_hits = 0;     ///< schedule lookups that found one
  std::uint64_t schedule_misses = 0;   ///< schedule lookups that built one
  std::uint64_t executor_hits = 0;     ///< executor lookups that found an idle one (or a kept "none")
  std::uint64_t executor_misses = 0;   ///< executor lookups that made one
  std::uint64_t evicted = 0;           ///< entries pushed out by the bounds
  std::uint64_t invalidated = 0;       ///< entries dropped because a distribution they depend on retired
  std::uint64_t not_kept = 0;          ///< entries too large to keep: built, used, dropped
  std::size_t schedules = 0;           ///< schedules kept now
  std::size_t executors = 0;           ///< executors kept now (a kept "none" counts)
  std::size_t bytes = 0;               ///< what the kept entries are charged together
};

/// "schedules 3 kept, 41 hits, 3 misses; executors 2 kept, ...": one line.
std::ostream& operator<<(std::ostream& out, const ExchangeCacheStats& stats);

/// An executor found or made by `ExchangeCache::executor`: a pointer to a kept one, or the owner
/// of one not kept (freed with the handle), or empty (a kept decision to have none).
template <class E>
class ExecutorHandle {
 public:
  ExecutorHandle() = default;
  ExecutorHandle(ExecutorHandle&& other) noexcept
      : executor_(std::exchange(other.executor_, nullptr)), owned_(std::move(other.owned_)) {}
  ExecutorHandle& operator=(ExecutorHandle&& other) noexcept {
    executor_ = std::exchange(other.executor_, nullptr);
    owned_ = std::move(other.owned_);
    return *this;
  }
  ExecutorHandle(const ExecutorHandle&) = delete;
  ExecutorHandle& operator=(const ExecutorHandle&) = delete;
  ~ExecutorHandle() = default;
  [[nodiscard]] E* get() const noexcept { return executor_; }
  [[nodiscard]] E* operator->() const noexcept { return executor_; }
  [[nodiscard]] E& operator*() const noexcept { return *executor_; }
  [[nodiscard]] explicit operator bool() const noexcept { return executor_ != nullptr; }
  /// False for an executor the cache did not keep (the handle owns it).
  [[nodiscard]] bool kept() const noexcept { return !owned_; }

 private:
  friend class ExchangeCache;
  ExecutorHandle(E* executor, std::unique_ptr<CachedExecutor> owned) noexcept
      : executor_(executor), owned_(std::move(owned)) {}
  E* executor_ = nullptr;
  std::unique_ptr<CachedExecutor> owned_;
};

/// The schedules and executors of one domain, bounded and invalidated alike on every rank (see
/// the file comment).
class ExchangeCache {
 public:
  /// Default bound on the entries kept (schedules and executors together).
  static constexpr std::size_t kDefaultMaxEntries = 64;
  /// Default bound on the bytes the kept entries are charged.
  static constexpr std::size_t kDefaultMaxBytes = std::size_t{1} << 30;

  ExchangeCache() = default;
  ~ExchangeCache() = default;
  ExchangeCache(const ExchangeCache&) = delete;
  ExchangeCache& operator=(const ExchangeCache&) = delete;

  /// The schedule kept under `key`, or the one `build()` returns, kept under `key` (if `charge`
  /// fits the bounds) and tagged with the hashes of the distributions it depends on. A hit
  /// allocates nothing. If `build` throws, nothing is kept.
  template <class Build>
  std::shared_ptr<const Schedule> find_or_build(std::uint64_t key, std::initializer_list<std::uint64_t> distributions,
                                                Build&& build, std::size_t charge = 0) {
    if (const auto* found = find_schedule(key)) return *found;
    return keep_schedule(key, distributions, charge, std::make_shared<const Schedule>(build()));
  }

  /// The idle executor kept under `key` (the lowest such slot), or the one `make()` returns, kept
  /// in a new slot if `charge` fits the bounds and owned by the handle otherwise. `make` returns a
  /// `std::unique_ptr` to E (derived from `CachedExecutor`) or null, which is kept as a decision
  /// to have none (e.g. "do not fuse": what `make` agreed on is not asked again). A hit allocates
  /// nothing. The handle stays valid while the executor is busy, else until the next call on the
  /// cache. Collective when `make` is (a miss happens on every rank or on none).
  /// Throws `Error(invalid_argument)` for a key with no element sizes, a combine list of another
  /// length, or a key kept with another executor type.
  template <class E, class Make>
  ExecutorHandle<E> executor(const ExecutorKey& key, std::initializer_list<std::uint64_t> distributions,
                             std::size_t charge, Make&& make) {
    static_assert(std::is_base_of_v<CachedExecutor, E>, "ExchangeCache::executor: E must derive from CachedExecutor");
    if (const Entry* found = find_executor(key, typeid(E)))
      return ExecutorHandle<E>(static_cast<E*>(found->executor.get()), nullptr);
    std::unique_ptr<CachedExecutor> made(make());
    E* typed = static_cast<E*>(made.get());
    return ExecutorHandle<E>(typed, keep_executor(key, distributions, charge, typeid(E), std::move(made)));
  }

  /// Drops every entry that depends on the distribution with hash `distribution` (see the file
  /// comment). Not collective, but call it alike on every rank.
  void invalidate(std::uint64_t distribution) noexcept;
  /// Drops the kept entry of `executor` (nothing if it is not kept): what a caller does when an
  /// execution threw, so that an executor left half-started is never handed out again. Freed at
  /// once, or once it is idle if it is busy.
  void discard(const CachedExecutor* executor) noexcept;
  /// Drops every entry (the counters stay). Not collective, but call it alike on every rank.
  void clear() noexcept;
  /// Frees what is no longer needed: executors that left the lookups and are no longer busy, and
  /// entries over the bounds that were busy when the bounds were last enforced. Every lookup does
  /// this too.
  void trim() noexcept;

  /// Sets the bounds and evicts down to them. Not collective, but call it alike on every rank;
  /// 0 entries turns caching off.
  void set_limits(std::size_t max_entries, std::size_t max_bytes) noexcept;
  [[nodiscard]] std::size_t max_entries() const noexcept { return max_entries_; }
  [[nodiscard]] std::size_t max_bytes() const noexcept { return max_bytes_; }
  /// Entries kept (schedules and executors).
  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }
  /// Bytes the kept entries are charged together.
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }
  /// Counters and sizes (see `ExchangeCacheStats`).
  [[nodiscard]] ExchangeCacheStats stats() const noexcept;

 private:
  struct Entry {
    bool is_executor = false;
    std::uint64_t key = 0;  // a schedule's key, or the hash of an executor's key (slot left out)
    std::size_t charge = 0;
    std::vector<std::uint64_t> distributions;  // hashes of what it depends on
    std::shared_ptr<const Schedule> schedule;  // a schedule entry's
    // An executor entry's: its key, slot and executor (null: a kept decision to have none).
    std::uint64_t schedule_key = 0;
    std::vector<std::size_t> element_sizes;
    std::vector<CombineFn> combine;  // one per array
    int algorithm = 0;
    std::size_t slot = 0;
    const std::type_info* type = nullptr;
    std::unique_ptr<CachedExecutor> executor;

    [[nodiscard]] bool busy() const noexcept { return executor && executor->busy(); }
  };
  using Entries = std::list<Entry>;

  // Null on a miss; a hit moves to the front. Both count.
  const std::shared_ptr<const Schedule>* find_schedule(std::uint64_t key) noexcept;
  const Entry* find_executor(const ExecutorKey& key, const std::type_info& type);
  // Keep the entry if it fits; the executor is handed back when it is not kept.
  std::shared_ptr<const Schedule> keep_schedule(std::uint64_t key, std::initializer_list<std::uint64_t> distributions,
                                                std::size_t charge, std::shared_ptr<const Schedule> schedule);
  std::unique_ptr<CachedExecutor> keep_executor(const ExecutorKey& key,
                                                std::initializer_list<std::uint64_t> distributions, std::size_t charge,
                                                const std::type_info& type, std::unique_ptr<CachedExecutor> executor);

  template <class Fill>
  void keep_front(std::size_t charge, std::initializer_list<std::uint64_t> distributions, Fill&& fill);
  [[nodiscard]] bool fits(std::size_t charge) const noexcept { return max_entries_ > 0 && charge <= max_bytes_; }
  static bool matches(const Entry& e, const ExecutorKey& key) noexcept;  // the key, slot aside
  void evict(const Entry* keep) noexcept;
  Entries::iterator unlink(Entries::iterator it) noexcept;  // from the lookups and the charges
  Entries::iterator drop(Entries::iterator it) noexcept;

  Entries entries_;  // most recently used first
  std::unordered_map<std::uint64_t, Entries::iterator> schedules_;
  std::unordered_multimap<std::uint64_t, Entries::iterator> executors_;  // by hash of the key, slot left out
  Entries retired_;  // dropped while busy: freed once idle
  std::size_t bytes_ = 0;
  std::size_t max_entries_ = kDefaultMaxEntries;
  std::size_t max_bytes_ = kDefaultMaxBytes;
  ExchangeCacheStats counts_;
};

namespace detail {
/// Calls `use()`, which starts, completes or runs `executor`; if it throws, `executor` leaves
/// `cache` (freed once idle) before the exception goes on, so that an executor left half-started is
/// never handed out again. Every array-layer use of a kept executor goes through this.
template <class Use>
void discard_on_throw(ExchangeCache& cache, const CachedExecutor* executor, Use&& use) {
  try {
    use();
  } catch (...) {
    cache.discard(executor);
    throw;
  }
}
}  // namespace detail

}  // namespace tessera
