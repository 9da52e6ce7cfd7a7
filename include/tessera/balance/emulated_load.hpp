#pragma once
/// \file
/// Deterministic emulated load, for tests, benchmarks and the demo: chosen ranks run slower by a
/// factor that can change over iterations, reproducibly on a 2-core machine where real contention
/// is noise. The slowdown does not burn CPU: after a section that took t seconds a loaded rank
/// sleeps (k - 1) t, so on an oversubscribed machine it behaves like an external process taking
/// its core (and MPI waits should yield: OpenMPI's `mpi_yield_when_idle`, set by scripts/mpirun.sh).
/// \code
///   auto load = tessera::EmulatedLoad::parse("1:2@100-400,2:3@200-300");  // rank 1 2x slower in [100, 400), ...
///   double t = timed_sweep();
///   t += load.slow_down(comm.rank(), iteration, t);                       // sleeps, returns the extra seconds
/// \endcode

#include <chrono>
#include <cstdlib>
#include <ostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tessera/core/error.hpp"

namespace tessera {

/// Slowdowns of chosen ranks over chosen iterations, for experiments (see the file comment).
class EmulatedLoad {
 public:
  /// Rank `rank` runs `factor` times slower in iterations [first, last).
  struct Period {
    /// The rank slowed down.
    int rank = 0;
    /// How many times slower its iterations are.
    double factor = 1;
    /// First iteration of the period.
    int first = 0;
    /// One past its last iteration.
    int last = 0;
  };

  EmulatedLoad() = default;
  /// Throws `Error(invalid_argument)` for a negative rank, a factor < 1 or not finite, or
  /// last < first.
  explicit EmulatedLoad(std::vector<Period> periods) : periods_(std::move(periods)) {
    for (std::size_t i = 0; i < periods_.size(); ++i) {
      const Period& p = periods_[i];
      const std::string what = detail::concat("periods[", i, "]");
      if (p.rank < 0) fail_argument("EmulatedLoad", what + ".rank", p.rank, "must be >= 0");
      if (!(p.factor >= 1) || p.factor > 1e6) fail_argument("EmulatedLoad", what + ".factor", p.factor, "must be in [1, 1e6]");
      if (p.last < p.first || p.first < 0)
        fail_argument("EmulatedLoad", what, detail::concat(p.first, "-", p.last), "must be an iteration range first-last with 0 <= first <= last");
    }
  }

  /// Parses "RANK:FACTOR@FIRST-LAST" entries separated by commas ("" or "none": no load), e.g.
  /// "1:2@100-400,2:2@200-400". Throws `Error(invalid_argument)` naming the bad entry.
  [[nodiscard]] static EmulatedLoad parse(const std::string& text) {
    std::vector<Period> periods;
    if (text.empty() || text == "none") return EmulatedLoad();
    std::stringstream all(text);
    std::string entry;
    while (std::getline(all, entry, ',')) {
      Period p;
      char colon = 0, at = 0, dash = 0;
      std::istringstream in(entry);
      if (!(in >> p.rank >> colon >> p.factor >> at >> p.first >> dash >> p.last) || colon != ':' || at != '@' ||
          dash != '-' || !(in >> std::ws).eof())
        fail_argument("EmulatedLoad::parse", "entry", detail::concat('"', entry, '"'),
                      "must read RANK:FACTOR@FIRST-LAST, e.g. 1:2@100-400");
      periods.push_back(p);
    }
    return EmulatedLoad(std::move(periods));
  }

  /// The slowdown factor of `rank` at `iteration` (the product over the periods covering it; 1 if none).
  [[nodiscard]] double factor(int rank, int iteration) const noexcept {
    double k = 1;
    for (const auto& p : periods_)
      if (p.rank == rank && iteration >= p.first && iteration < p.last) k *= p.factor;
    return k;
  }

  /// Sleeps (factor - 1) × `section_seconds` and returns the seconds it meant to add.
  double slow_down(int rank, int iteration, double section_seconds) const {
    const double extra = (factor(rank, iteration) - 1) * section_seconds;
    if (extra > 0) std::this_thread::sleep_for(std::chrono::duration<double>(extra));
    return extra;
  }

  /// The periods, as given.
  [[nodiscard]] const std::vector<Period>& periods() const noexcept { return periods_; }

  friend std::ostream& operator<<(std::ostream& out, const EmulatedLoad& load) {
    if (load.periods_.empty()) return out << "none";
    for (std::size_t i = 0; i < load.periods_.size(); ++i) {
      const Period& p = load.periods_[i];
      out << (i ? "," : "") << p.rank << ':' << p.factor << '@' << p.first << '-' << p.last;
    }
    return out;
  }

 private:
  std::vector<Period> periods_;
};

}  // namespace tessera
