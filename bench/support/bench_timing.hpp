#pragma once
/// \file
/// Timing shared by the MPI benchmark drivers: summaries of repeated runs, the max over ranks of
/// each run, and the loop that times tessera against its anchors in the same job.
///
/// A run's time is the slowest rank's: every run starts after a barrier, and each repetition keeps
/// the max over ranks, so a fast rank waiting for a slow one cannot flatter the result.
/// \code
///   const auto t = tessera::bench::time_alternating(world.raw(), {mine, anchor}, warmup, reps);
///   double ratio = t[0].median / t[1].median;   // tessera / anchor: lower is better
/// \endcode

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <vector>

#include "tessera/exchange/communicator.hpp"

namespace tessera::bench {

/// Median, minimum and maximum of a set of samples (seconds, bytes, ...).
struct Summary {
  double median = 0, min = 0, max = 0;
};

/// The summary of `samples` (at least one).
[[nodiscard]] inline Summary summarize(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  const std::size_t m = samples.size() / 2;
  const double median = samples.size() % 2 ? samples[m] : 0.5 * (samples[m - 1] + samples[m]);
  return {median, samples.front(), samples.back()};
}

/// Collective: every rank's samples, replaced by the max over ranks of each repetition.
inline void max_over_ranks(std::vector<double>& samples, MPI_Comm comm) {
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, samples.data(), static_cast<int>(samples.size()), MPI_DOUBLE, MPI_MAX, comm),
            "MPI_Allreduce");
}

/// Collective: runs each of `impls` `warmup` times untimed, then `repetitions` times timed, the
/// order rotating every repetition (so that no implementation always finds the caches as the
/// previous one left them); each run is timed with MPI_Wtime after a barrier. Returns, per
/// implementation, the summary of the max over ranks of each repetition.
[[nodiscard]] inline std::vector<Summary> time_alternating(MPI_Comm comm,
                                                           const std::vector<std::function<void()>>& impls, int warmup,
                                                           int repetitions) {
  for (int i = 0; i < warmup; ++i)
    for (const auto& f : impls) f();
  const std::size_t k = impls.size();
  std::vector<std::vector<double>> t(k, std::vector<double>(static_cast<std::size_t>(repetitions)));
  for (int r = 0; r < repetitions; ++r)
    for (std::size_t j = 0; j < k; ++j) {
      const std::size_t which = (j + static_cast<std::size_t>(r)) % k;
      check_mpi(MPI_Barrier(comm), "MPI_Barrier");
      const double t0 = MPI_Wtime();
      impls[which]();
      t[which][static_cast<std::size_t>(r)] = MPI_Wtime() - t0;
    }
  std::vector<Summary> out;
  for (auto& v : t) {
    max_over_ranks(v, comm);
    out.push_back(summarize(v));
  }
  return out;
}

/// Collective: like `time_alternating`, but each implementation runs its `warmup` and then half of
/// its `repetitions` back to back before the next one starts, so that it finds the caches as it
/// left them (a program repeating one operation on one array: the "warm" and "in-loop" halo
/// modes); then the other half, the implementations in reverse order, so that a drift of the
/// machine's speed during the run favours none of them.
[[nodiscard]] inline std::vector<Summary> time_in_blocks(MPI_Comm comm, const std::vector<std::function<void()>>& impls,
                                                         int warmup, int repetitions) {
  const std::size_t k = impls.size();
  std::vector<std::vector<double>> t(k);
  const auto block = [&](std::size_t which, int runs) {
    for (int i = 0; i < warmup; ++i) impls[which]();
    for (int r = 0; r < runs; ++r) {
      check_mpi(MPI_Barrier(comm), "MPI_Barrier");
      const double t0 = MPI_Wtime();
      impls[which]();
      t[which].push_back(MPI_Wtime() - t0);
    }
  };
  for (std::size_t j = 0; j < k; ++j) block(j, (repetitions + 1) / 2);
  for (std::size_t j = k; j-- > 0;) block(j, repetitions / 2);
  std::vector<Summary> out;
  for (auto& v : t) {
    max_over_ranks(v, comm);
    out.push_back(summarize(v));
  }
  return out;
}

/// Makes the compiler assume `p` escapes, so that work whose result is otherwise unused (an
/// allocation timed on its own, say) is not optimised away; as benchmark::DoNotOptimize.
inline void escape(const void* p) { asm volatile("" : : "g"(p) : "memory"); }

/// Collective: the median over `repetitions` of the max over ranks of one run of `part`, each run
/// after `before()` (untimed: e.g. the anchor, so that caches are as cold as in the main loop) and
/// a barrier. What the drivers' --breakdown options time their parts with.
[[nodiscard]] inline double time_part(MPI_Comm comm, int repetitions, const std::function<void()>& before,
                                      const std::function<void()>& part) {
  std::vector<double> t(static_cast<std::size_t>(repetitions));
  for (auto& x : t) {
    before();
    check_mpi(MPI_Barrier(comm), "MPI_Barrier");
    const double t0 = MPI_Wtime();
    part();
    x = MPI_Wtime() - t0;
  }
  max_over_ranks(t, comm);
  return summarize(t).median;
}

}  // namespace tessera::bench
