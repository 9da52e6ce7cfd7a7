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
///   tessera::detail::run_kept(cache, comm, key, {dist.hash()}, sizeof(double), nullptr, charge,
///                             [&] { return tessera::halo_schedule(dist, g, rank, &cache); }, u, u);
/// \endcode

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <utility>

#include "tessera/exchange/communicator.hpp"
#include "tessera/exchange/mover.hpp"
#include "tessera/plan/combine_op.hpp"
#include "tessera/plan/exchange_cache.hpp"

namespace tessera::detail {

/// Collective on a miss (the mover takes a tag; a miss happens on every rank or on none): the
/// idle mover kept in `cache` for one array of `element_size` bytes, combined with `combine`, over
/// the schedule kept under `schedule_key`; `schedule()` gives that schedule when a mover must be
/// made (it may look it up in the cache too). `charge` and `distributions` as for
/// `ExchangeCache::executor`. A hit allocates nothing.
template <class GetSchedule>
[[nodiscard]] ExecutorHandle<Mover> kept_mover(ExchangeCache& cache, const Communicator& comm, std::uint64_t schedule_key,
                                               std::initializer_list<std::uint64_t> distributions,
                                               std::size_t element_size, CombineFn combine, std::size_t charge,
                                               GetSchedule&& schedule) {
  // The spans point at the parameters, alive for the whole lookup.
  const ExecutorKey key(schedule_key, std::span<const std::size_t>(&element_size, 1),
                        std::span<const CombineFn>(&combine, 1));
  return cache.executor<Mover>(key, distributions, charge,
                               [&] { return std::make_unique<Mover>(comm, schedule(), element_size, combine); });
}

/// Collective: `kept_mover(...)` run from `src` into `dst` (as `Mover::run`), through
/// `discard_on_throw`.
template <class GetSchedule>
void run_kept(ExchangeCache& cache, const Communicator& comm, std::uint64_t schedule_key,
              std::initializer_list<std::uint64_t> distributions, std::size_t element_size, CombineFn combine,
              std::size_t charge, GetSchedule&& schedule, const void* src, void* dst) {
  auto mover = kept_mover(cache, comm, schedule_key, distributions, element_size, combine, charge,
                          std::forward<GetSchedule>(schedule));
  discard_on_throw(cache, mover.get(), [&] { mover->run(src, dst); });
}

}  // namespace tessera::detail
