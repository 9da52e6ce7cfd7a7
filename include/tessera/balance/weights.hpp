#pragma once
/// \file
/// From measured times to weights (a share of the data each rank should own). Three rules:
/// - `d3arc_weights` — D3-ARC's formula (1), `d3_norm`: the fastest rank gets `ub`, the slowest
///   `lb`, linearly between. It looks at times only, not at how much data each rank held while it
///   was timed, so it does not settle: once times are even the weights are even again, whatever
///   the ranks' speeds. Kept for programs written against D3-ARC.
/// - `inverse_time_weights` — 1/t: the same blind spot, without the bounds.
/// - `throughput_weights` — work/t, each rank's measured speed: a share proportional to speed
///   evens the times, and even times leave the shares where they are (the fixed point the others
///   lack). The balancer's default.
/// \code
///   auto w = tessera::d3arc_weights(times, 1.0, 1.5);         // d3_norm(t_vect, len, 1, 1.5)
///   auto v = tessera::throughput_weights(times, elements);    // elements each rank held
/// \endcode

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"

namespace tessera {

namespace detail {
inline void check_times(const char* where, const std::vector<double>& times) {
  if (times.empty()) fail_argument(where, "times", "{}", "must hold one figure per rank");
  for (std::size_t i = 0; i < times.size(); ++i)
    if (!(times[i] >= 0) || !std::isfinite(times[i]))
      fail_argument(where, detail::concat("times[", i, "]"), times[i], "must be a finite number >= 0");
}
}  // namespace detail

/// D3-ARC formula (1): `w[i] = lb + (ub - lb) (max x - x[i]) / (max x - min x)`. When every time
/// is equal (the formula's 0/0) every weight is `lb`, which means "keep even shares". Throws
/// `Error(invalid_argument)` for an empty vector, a negative or non-finite time, or bounds that are
/// not `0 < lb <= ub`.
[[nodiscard]] inline std::vector<double> d3arc_weights(const std::vector<double>& times, double lb, double ub) {
  constexpr const char* where = "d3arc_weights";
  detail::check_times(where, times);
  if (!(lb > 0) || !std::isfinite(lb)) fail_argument(where, "lb", lb, "must be a finite number > 0");
  if (!(ub >= lb) || !std::isfinite(ub)) fail_argument(where, "ub", ub, detail::concat("must be finite and >= lb = ", lb));
  const auto [lo, hi] = std::minmax_element(times.begin(), times.end());
  std::vector<double> w(times.size(), lb);
  if (*hi == *lo) return w;
  for (std::size_t i = 0; i < times.size(); ++i) w[i] = lb + (ub - lb) * (*hi - times[i]) / (*hi - *lo);
  return w;
}

/// `w[i] = 1 / t[i]`; a rank that measured no time gets the largest weight of the others (or 1).
/// Throws `Error(invalid_argument)` for an empty vector or a negative or non-finite time.
[[nodiscard]] inline std::vector<double> inverse_time_weights(const std::vector<double>& times) {
  detail::check_times("inverse_time_weights", times);
  std::vector<double> w(times.size(), 0.0);
  double largest = 0;
  for (std::size_t i = 0; i < times.size(); ++i)
    if (times[i] > 0) largest = std::max(largest, w[i] = 1.0 / times[i]);
  for (auto& x : w)
    if (x == 0) x = largest > 0 ? largest : 1.0;
  return w;
}

/// Each rank's speed, `work[i] / t[i]` (elements per second, say). A rank with no work or no time
/// has no measured speed: it gets the mean speed of the others (or 1 if none has one), so a rank
/// that rejoins or held nothing starts from the average. Throws `Error(invalid_argument)` if the
/// vectors differ in length or hold a negative or non-finite entry.
[[nodiscard]] inline std::vector<double> throughput_weights(const std::vector<double>& times,
                                                            const std::vector<double>& work) {
  constexpr const char* where = "throughput_weights";
  detail::check_times(where, times);
  if (work.size() != times.size())
    fail_argument(where, "work", work.size(), detail::concat("entries given; times has ", times.size()));
  for (std::size_t i = 0; i < work.size(); ++i)
    if (!(work[i] >= 0) || !std::isfinite(work[i]))
      fail_argument(where, detail::concat("work[", i, "]"), work[i], "must be a finite number >= 0");
  std::vector<double> w(times.size(), 0.0);
  double sum = 0;
  int measured = 0;
  for (std::size_t i = 0; i < times.size(); ++i)
    if (times[i] > 0 && work[i] > 0) {
      w[i] = work[i] / times[i];
      sum += w[i];
      ++measured;
    }
  const double mean = measured ? sum / measured : 1.0;
  for (auto& x : w)
    if (x == 0) x = mean;
  return w;
}

}  // namespace tessera
