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

/// Collective on a miss (the mover takes a tag; a miss happens on every rank or on none): the
/// idle mover kept in `cache` for one array of `element_size` bytes, combined with `combine`, over
/// the schedule kept under `schedule_key`; `schedule()` gives that schedule when a mover must be
/// made (it may look it up in the cache too). `charge` and `distributions` as for
/// `ExchangeCache::executor`. `same_array`: the mover will run from an array into itself (a ghost
/// update), so its staging buffer is made now too. A hit allocates nothing and communicates
/// nothing.
///
/// A miss allocates (the schedule, the message buffers) and then agrees, with one small allreduce
/// after the schedule and one after the mover, that every rank has what it needs
/// (exchange/allocation_agreement.hpp): if an allocation failed on any rank, every rank empties
/// the cache (so that all stay in step) and throws `Error(out_of_memory)` naming `where`, before
/// anything moves.
template <class GetSchedule>
[[nodiscard]] ExecutorHandle<Mover> kept_mover(const char* where, ExchangeCache& cache, const Communicator& comm,
                                               std::uint64_t schedule_key,
                                               std::initializer_list<std::uint64_t> distributions,
                                               std::size_t element_size, CombineFn combine, std::size_t charge,
                                               bool same_array, GetSchedule&& schedule) {
  // The spans point at the parameters, alive for the whole lookup.
  const ExecutorKey key(schedule_key, std::span<const std::size_t>(&element_size, 1),
                        std::span<const CombineFn>(&combine, 1));
  bool missed = false;
  std::optional<Error> failed;
  const auto agree = [&] {
    try {
      comm.agree(failed);
    } catch (...) {
      cache.clear();
      throw;
    }
  };
  ExecutorHandle<Mover> handle;
  capture_failure(failed, comm, where, 0, "the mover's bookkeeping", [&] {
    handle = cache.executor<Mover>(key, distributions, charge, [&]() -> std::unique_ptr<Mover> {
      missed = true;
      std::shared_ptr<const Schedule> s;
      capture_failure(failed, comm, where, 0, "the schedule of the movement", [&] { s = schedule(); });
      agree();  // the mover below takes a tag and may agree on its algorithm: made everywhere or nowhere
      std::unique_ptr<Mover> made;
      capture_failure(failed, comm, where, message_buffer_bound(*s, element_size), "the message buffers", [&] {
        Mover m(comm, s, element_size, combine);  // on the stack first: it has taken its tag even if new fails
        const std::byte one_array{};  // prepare asks only whether source and destination are one array
        if (same_array) m.prepare(&one_array, &one_array);
        made = std::make_unique<Mover>(std::move(m));
      });
      return made;  // null after a failure: thrown away on every rank below
    });
  });
  if (missed)
    agree();
  else if (failed)
    throw *failed;  // a hit that failed (a bad key, say): no rank made anything
  return handle;
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
