#pragma once
/// \file
/// Which ranks may hold data (AMP's processor sets that shrink and grow). At each remap point the
/// balancer asks an `AvailabilityHook` on every rank whether that rank may be used; the answers
/// are gathered, and if the set of available ranks differs from the active set the domain is
/// redistributed over the new set (withdrawn ranks become skeletons: they own nothing and still
/// take part in every collective call). Built-in hooks:
/// - `availability_file(pattern)`: a rank is withdrawn while the file `pattern` (with `{rank}`
///   replaced by its rank) exists, so an operator can `touch` and `rm` it;
/// - `slowdown_threshold(factor, retry_after)`: a rank measured `factor` times slower than the
///   median of the active ranks is withdrawn, and offered again `retry_after` remap points later
///   (a skeleton has nothing to time, so the only way to learn it recovered is to try it).
/// A user hook is any callable `bool(const AvailabilityContext&)`; hooks combine with `all_of`.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "tessera/core/error.hpp"

namespace tessera {

/// What a hook sees on one rank at a remap point.
struct AvailabilityContext {
  int rank = 0;                 ///< the rank asking (its rank in the domain's communicator)
  int iteration = 0;            ///< iterations done
  bool active = true;           ///< whether this rank holds data now
  double relative_speed = 1.0;  ///< its measured speed / the median speed of the active ranks (NaN for a skeleton)
  int remap_points_inactive = 0;  ///< remap points since it was withdrawn (0 while active)
};

/// Returns true if the rank may hold data from now on.
using AvailabilityHook = std::function<bool(const AvailabilityContext&)>;

/// Withdraws a rank while the file `pattern` exists, `{rank}` in it replaced by the rank
/// (e.g. "/tmp/run42/withdraw.{rank}"). Throws `Error(invalid_argument)` for an empty pattern.
[[nodiscard]] inline AvailabilityHook availability_file(std::string pattern) {
  if (pattern.empty()) fail_argument("availability_file", "pattern", "\"\"", "must name a file");
  return [pattern = std::move(pattern)](const AvailabilityContext& c) {
    std::string path = pattern;
    for (std::size_t at = path.find("{rank}"); at != std::string::npos; at = path.find("{rank}", at))
      path.replace(at, 6, std::to_string(c.rank));
    std::error_code ignored;
    return !std::filesystem::exists(path, ignored);
  };
}

/// Withdraws a rank whose speed falls below 1/`factor` of the median active speed; offers a
/// withdrawn rank again after `retry_after` remap points. Throws `Error(invalid_argument)` for
/// factor <= 1 or retry_after < 1.
[[nodiscard]] inline AvailabilityHook slowdown_threshold(double factor, int retry_after = 10) {
  if (!(factor > 1) || !std::isfinite(factor))
    fail_argument("slowdown_threshold", "factor", factor, "must be a finite number > 1");
  if (retry_after < 1) fail_argument("slowdown_threshold", "retry_after", retry_after, "must be >= 1");
  return [factor, retry_after](const AvailabilityContext& c) {
    if (!c.active) return c.remap_points_inactive >= retry_after;
    return !(c.relative_speed < 1.0 / factor);
  };
}

/// A hook that allows a rank only if every one of `hooks` does.
[[nodiscard]] inline AvailabilityHook all_of(std::vector<AvailabilityHook> hooks) {
  return [hooks = std::move(hooks)](const AvailabilityContext& c) {
    return std::all_of(hooks.begin(), hooks.end(), [&](const AvailabilityHook& h) { return !h || h(c); });
  };
}

}  // namespace tessera
