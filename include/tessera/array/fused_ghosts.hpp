#pragma once
/// \file
/// `update_ghosts(u, v, ...)`: one ghost update for several arrays over the same domain, with
/// one message per neighbour carrying every array's faces (multi-array fusion).
/// \code
///   tessera::DistArray<double, 2> u(dom, tessera::ghosts<2>(1)), v(dom, tessera::ghosts<2>(1));
///   tessera::DistArray<float, 2> w(dom, tessera::ghosts<2>(1));
///   tessera::update_ghosts(u, v, w);   // as u.update_ghosts(); v.update_ghosts(); w.update_ghosts();
/// \endcode
/// Whether the arrays travel fused or each with its own mover (started together, then completed
/// together) is decided once per (distribution, ghost spec, element sizes), the same on every rank:
/// fused while the largest fused message is at most `kMaxFusedMessageBytes` (fused_mover.hpp;
/// docs/engine.md, "Fusing several arrays", has the measurements). The decision and the fused
/// mover are kept in the domain's exchange cache; they go when the distribution is retired.

#include <array>
#include <cstddef>
#include <memory>
#include <utility>

#include "tessera/array/dist_array.hpp"
#include "tessera/array/domain.hpp"
#include "tessera/core/error.hpp"
#include "tessera/exchange/collective_check.hpp"
#include "tessera/exchange/fused_mover.hpp"
#include "tessera/exchange/kept_mover.hpp"
#include "tessera/plan/exchange_cache.hpp"
#include "tessera/plan/schedule_builders.hpp"

namespace tessera {

/// Collective: fills the ghost layers of every array given, as each array's `update_ghosts()`
/// would (each array's boundary rules applied after the exchange), in one execution when that is faster (see the file comment). The arrays may hold
/// different element types but must be over the same domain with equal ghost specs. After the
/// first call for a given set of element sizes nothing allocates.
/// Throws `Error(invalid_argument)` on every rank if the arrays are over different domains, have
/// different ghost specs, or one has a ghost update in flight.
template <std::size_t N, class T0, class... Ts>
requires(N >= 1) void update_ghosts(DistArray<T0, N>& first, DistArray<Ts, N>&... rest) {
  constexpr const char* where = "update_ghosts";
  constexpr std::size_t count = 1 + sizeof...(Ts);
  const Domain<N>& dom = first.domain();
  const std::array<std::size_t, count> sizes{sizeof(T0), sizeof(Ts)...};
  const auto checked = detail::check_collective(dom.comm(), where, count, sizes);
  std::size_t k = 0;
  const auto check = [&](const auto& a) {
    if (!a.domain().same_as(dom))
      fail_argument(where, "arrays", detail::concat("array ", k, " over another domain"),
                    "must all be over the domain of the first array");
    if (!(a.ghosts() == first.ghosts()))
      fail_argument(where, "arrays", detail::concat("array ", k, " with other ghosts (", a.ghosts(), ")"),
                    "must all have the ghost spec (storage order included) of the first array");
    if (a.ghost_update_in_flight())
      fail_argument(where, "arrays", detail::concat("array ", k, " with a ghost update in flight"),
                    "must complete it (end_update_ghosts) first");
    ++k;
  };
  check(first);
  (check(rest), ...);
  if constexpr (count == 1) {
    first.update_ghosts();
  } else {
    const Distribution<N>& dist = dom.distribution();
    const GhostSpec<N>& g = first.ghosts();
    std::size_t bytes_per_element = 0;
    for (std::size_t es : sizes) bytes_per_element += es;
    const ExecutorKey key(halo_schedule_key(dist, g, dom.rank()), sizes);
    auto fused = detail::agreed_executor<FusedMover>(
        "update_ghosts", dom.cache(), dom.comm(), key, {dist.hash()}, halo_charge(dist.domain(), g, bytes_per_element),
        bytes_per_element, [&] { return halo_schedule(dist, g, dom.rank(), &dom.cache()); },
        [&](std::shared_ptr<const Schedule> s) { return make_fused_mover_if_small(dom.comm(), std::move(s), sizes); });
    if (fused) {
      // As begin_update_ghosts: a rule that cannot be applied is rejected before anything moves.
      detail::GhostBoundary::prepare(first);
      (detail::GhostBoundary::prepare(rest), ...);
      const auto at = [](auto& a) -> void* {
        return a.data() != nullptr ? static_cast<void*>(a.data()) : static_cast<void*>(detail::empty_storage);
      };
      const std::array<void*, count> dst{at(first), at(rest)...};
      const std::array<const void*, count> src{at(first), at(rest)...};
      detail::discard_on_throw(dom.cache(), fused.get(), [&] { fused->run(src, dst); });
      detail::GhostBoundary::fill(first);
      (detail::GhostBoundary::fill(rest), ...);
    } else {
      first.begin_update_ghosts();
      (rest.begin_update_ghosts(), ...);
      first.end_update_ghosts();
      (rest.end_update_ghosts(), ...);
    }
  }
}

}  // namespace tessera
