#pragma once
/// \file
/// What one data movement sent over the whole job, and how the ZPL examples and their hand-written
/// MPI versions (experiments/zpl) report it: a line on rank 0 that also says how to ask
/// `tessera plan` for its prediction, and records in the bench format.
///
/// tessera's movements are counted by the movers themselves: `tessera::process_mover_stats()`
/// before and after the operation (a redistribution, a section copy, a scatter, ghost updates),
/// summed over the ranks. A hand-written version counts what it hands to MPI.
/// \code
///   tessera::bench::MovementCount count;
///   dom.redistribute(columns, tessera::Redistribution::preserve);
///   const tessera::bench::Moved moved = count.total(world.raw());   // collective
///   tessera::bench::print_movement(rank == 0, "corner-turn", moved, "'domain=8x8 grid=2x1' 'domain=8x8 grid=1x2'");
/// \endcode
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "bench_records.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/exchange/mover_totals.hpp"

namespace tessera::bench {

/// Bytes and messages of one movement, over every rank. `bytes_local`: copies within a rank (no
/// message), which `tessera plan` reports as "kept on its rank".
struct Moved {
  std::uint64_t bytes_sent = 0;
  std::uint64_t messages = 0;
  std::uint64_t bytes_local = 0;

  Moved& operator+=(const Moved& other) noexcept {
    bytes_sent += other.bytes_sent;
    messages += other.messages;
    bytes_local += other.bytes_local;
    return *this;
  }
};

/// Collective: `mine` summed over the ranks of `comm`.
[[nodiscard]] inline Moved sum_over_ranks(const Moved& mine, MPI_Comm comm) {
  std::uint64_t v[3] = {mine.bytes_sent, mine.messages, mine.bytes_local};
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_UINT64_T, MPI_SUM, comm), "MPI_Allreduce");
  return {v[0], v[1], v[2]};
}

/// What this process' movers do from its construction on (see the file comment).
class MovementCount {
 public:
  MovementCount() noexcept : before_(process_mover_stats()) {}
  /// This rank's part so far (not collective).
  [[nodiscard]] Moved mine() const noexcept {
    const MoverStats now = process_mover_stats();
    return {now.bytes_sent - before_.bytes_sent, now.messages_sent - before_.messages_sent,
            now.bytes_copied_locally - before_.bytes_copied_locally};
  }
  /// Collective: every rank's part, summed.
  [[nodiscard]] Moved total(MPI_Comm comm) const { return sum_over_ranks(mine(), comm); }

 private:
  MoverStats before_;
};

/// Prints, where `enabled` (rank 0), the line experiments/zpl.py reads:
/// "movement NAME: sent B bytes in M messages, copied L bytes locally[; tessera plan ARGS]".
inline void print_movement(bool enabled, const std::string& name, const Moved& m, const std::string& plan_args = "") {
  if (!enabled) return;
  std::printf("movement %s: sent %llu bytes in %llu messages, copied %llu bytes locally%s%s\n", name.c_str(),
              static_cast<unsigned long long>(m.bytes_sent), static_cast<unsigned long long>(m.messages),
              static_cast<unsigned long long>(m.bytes_local), plan_args.empty() ? "" : "; tessera plan ",
              plan_args.c_str());
  std::fflush(stdout);
}

/// The movement as three count records: "<name>_bytes_sent", "<name>_messages", "<name>_bytes_local".
inline void add_movement_records(std::vector<Record>& records, const std::string& op, const std::string& name_of_case,
                                 int ranks, const std::string& movement, const Moved& m) {
  records.push_back(Record::count(op, name_of_case, ranks, movement + "_bytes_sent", static_cast<double>(m.bytes_sent)));
  records.push_back(Record::count(op, name_of_case, ranks, movement + "_messages", static_cast<double>(m.messages)));
  records.push_back(Record::count(op, name_of_case, ranks, movement + "_bytes_local", static_cast<double>(m.bytes_local)));
}

/// Collective: the summary of `seconds` (one per repetition), each the max over the ranks.
[[nodiscard]] inline Summary slowest_rank_summary(std::vector<double> seconds, MPI_Comm comm) {
  max_over_ranks(seconds, comm);
  return summarize(std::move(seconds));
}

/// A timing record of an arbitrary metric ("movement_s", ...): Record::timing names its metric median_s.
[[nodiscard]] inline Record timing_record(const std::string& op, const std::string& name_of_case, int ranks,
                                          const std::string& metric, const Summary& s) {
  Record r = Record::timing(op, name_of_case, ranks, s);
  r.metric = metric;
  return r;
}

}  // namespace tessera::bench
