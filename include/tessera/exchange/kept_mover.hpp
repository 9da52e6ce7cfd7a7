#pragma once
/// \file
/// The single-array movers a domain keeps in its `ExchangeCache` (plan/exchange_cache.hpp):
/// `kept_mover` finds or makes the one for a schedule key, element size and combine function;
/// `run_kept` runs it and drops it from the cache if the run throws (`detail::discard_on_throw`),
/// so that a mover left half-started is never handed out again. Ghost updates, `accumulate_ghosts`,
/// `copy`, `copy_section`, `transpose`, `gather_to` and `scatter_from` go through them; fused ghost
/// updates and index remaps keep executors of their own type (`FusedMover`, `IndexRemap`) through
/// `ExchangeCache::executor` directly, and redistributions make their movers per call.
/// \code
///   const auto key = tessera::halo_schedule_key(dist, g, rank);
///   tessera::detail::run_kept("DistArray::update_ghosts", cache, comm, key, {dist.hash()}, sizeof(double), nullptr, charge,
///                             [&] { return tessera::halo_schedule(dist, g, rank, &cache); }, u, u);
/// \endcode

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <utility>

#include "tessera/core/error.hpp"
#include "tessera/exchange/allocation_agreement.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/exchange/mover.hpp"
#include "tessera/plan/combine_op.hpp"
#include "tessera/plan/exchange_cache.hpp"

namespace tessera::detail {

/// Collective on a miss (a miss happens on every rank or on none): the idle executor of type E
/// kept in `cache` under `key`, or, on a miss, the one `make(schedule())` returns, kept as
/// `ExchangeCache::executor` keeps it. `where` names the operation in errors; `element_bytes` (the
/// bytes of one element of every array moved) sizes the message buffers for them. A hit
/// communicates nothing. A miss allocates (the schedule, then the executor and its buffers) and
/// agrees, with one small allreduce after each, that every rank has what it needs
/// (exchange/allocation_agreement.hpp), and throws on every rank before anything moves if not:
/// - the schedule failed on some rank (an allocation: `Error(out_of_memory)`; or any `Error` that
///   `schedule()` throws, e.g. an index remap's bad index value): nothing is kept, and the kept
///   executors stay;
/// - the executor or the cache's bookkeeping failed on some rank: every rank empties the cache
///   (some ranks may have kept an entry that others could not), then throws.
/// `make` runs on every rank once the schedule is agreed on, even where an allocation failed, as
/// executors take a tag and may agree on their algorithm.
template <class E, class GetSchedule, class Make>
[[nodiscard]] ExecutorHandle<E> agreed_executor(const char* where, ExchangeCache& cache, const Communicator& comm,
                                                const ExecutorKey& key,
                                                std::initializer_list<std::uint64_t> distributions, std::size_t charge,
                                                std::size_t element_bytes, GetSchedule&& schedule, Make&& make) {
  bool missed = false;
  std::optional<Error> failed;
  std::optional<Error> schedule_failed;  // agreed on: the same on every rank
  ExecutorHandle<E> handle;
  capture_failure(failed, comm, where, 0, "the executor's bookkeeping", [&] {
    handle = cache.executor<E>(key, distributions, charge, [&]() -> std::unique_ptr<E> {
      missed = true;
      std::shared_ptr<const Schedule> s;
      capture_failure(failed, comm, where, 0, "the schedule of the movement", [&] { s = schedule(); });
      // The executor takes a tag and may agree on its algorithm: made everywhere or nowhere.
      try {
        comm.agree(failed);
      } catch (const Error& e) {
        schedule_failed = e;
        throw;  // out of ExchangeCache::executor on every rank: nothing is kept
      }
      std::unique_ptr<E> made;
      capture_failure(failed, comm, where, message_buffer_bound(*s, element_bytes), "the message buffers",
                      [&] { made = make(s); });
      return made;  // null after a failure: thrown away on every rank below
    });
  });
  if (schedule_failed) throw *schedule_failed;
  if (missed) {
    try {
      comm.agree(failed);
    } catch (...) {
      cache.clear();
      throw;
    }
  } else if (failed) {
    throw *failed;  // a hit that failed (a bad key, say): no rank made anything
  }
  return handle;
}

/// Collective on a miss: the idle mover kept in `cache` for one array of `element_size` bytes,
/// combined with `combine`, over the schedule kept under `schedule_key` (`schedule()` gives it when
/// a mover must be made); `charge` and `distributions` as for `ExchangeCache::executor`.
/// `same_array`: the mover will run from an array into itself (a ghost update), so its staging
/// buffer is made now too. A hit allocates and communicates nothing; a miss agrees on its
/// allocations as `agreed_executor` says.
template <class GetSchedule>
[[nodiscard]] ExecutorHandle<Mover> kept_mover(const char* where, ExchangeCache& cache, const Communicator& comm,
                                               std::uint64_t schedule_key,
                                               std::initializer_list<std::uint64_t> distributions,
                                               std::size_t element_size, CombineFn combine, std::size_t charge,
                                               bool same_array, GetSchedule&& schedule) {
  // The spans point at the parameters, alive for the whole lookup.
  const ExecutorKey key(schedule_key, std::span<const std::size_t>(&element_size, 1),
                        std::span<const CombineFn>(&combine, 1));
  return agreed_executor<Mover>(where, cache, comm, key, distributions, charge, element_size,
                                std::forward<GetSchedule>(schedule), [&](std::shared_ptr<const Schedule> s) {
                                  Mover m(comm, std::move(s), element_size, combine);  // has its tag even if new fails
                                  const std::byte one_array{};  // prepare asks only whether they are one array
                                  if (same_array) m.prepare(&one_array, &one_array);
                                  return std::make_unique<Mover>(std::move(m));
                                });
}

/// Collective: `kept_mover(...)` run from `src` into `dst` (as `Mover::run`), through
/// `discard_on_throw`.
template <class GetSchedule>
void run_kept(const char* where, ExchangeCache& cache, const Communicator& comm, std::uint64_t schedule_key,
              std::initializer_list<std::uint64_t> distributions, std::size_t element_size, CombineFn combine,
              std::size_t charge, GetSchedule&& schedule, const void* src, void* dst) {
  auto mover = kept_mover(where, cache, comm, schedule_key, distributions, element_size, combine, charge, src == dst,
                          std::forward<GetSchedule>(schedule));
  discard_on_throw(cache, mover.get(), [&] { mover->run(src, dst); });
}

}  // namespace tessera::detail
