#pragma once
/// \file
/// `restricted(dist, region)`: a distribution over a box inside `dist`'s domain that gives every
/// index of that box the owner `dist` gives it (ZPL's `blk(lo, hi)`: distribution bounds apart
/// from a region's bounds). Arrays over the restriction and over `dist` are aligned: a copy
/// between them moves nothing between ranks. `Domain::region` (array/domain.hpp) is built on it.
/// \code
///   tessera::Distribution<2> grid(tessera::Box<2>({0, 0}, {66, 66}), pg, {tessera::block(), tessera::cyclic()});
///   auto interior = tessera::restricted(grid, tessera::Box<2>({1, 1}, {65, 65}));
///   // interior: [cut(1,..,65), block_cyclic(1,src=1)]; interior.owner(p) == grid.owner(p) for every p in it
/// \endcode
/// Each axis keeps its kind where the restricted box can express it, and otherwise takes the kind
/// that keeps every owner exact:
///
/// | axis of `dist` | axis of the restriction |
/// |---|---|
/// | block, cut, cut_weights | cut at the boundaries clamped to the region |
/// | general (per-slab cuts) | general, every slab's cuts clamped |
/// | cyclic, block_cyclic(b, s) | block_cyclic(b, s') with the phase s' of the region's first index, if the region starts on a block boundary; otherwise irregular |
/// | collapsed, flooded, irregular | the same (irregular: its owner table sliced) |
/// | user-defined, box set | a box set: every rank's owned boxes intersected with the region |
///
/// The grid, the dimension order and the skeleton ranks stay; the logical block of a restricted
/// axis is 1 (boundaries of the parent need not lie on multiples counted from the region's low
/// end). Local storage is the restriction's own (compacted to the region), not the parent's.
/// Restricting twice alike gives equal distributions (equal hashes), so caches keyed by them hit.

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/geometry.hpp"
#include "tessera/layout/box_set.hpp"
#include "tessera/layout/dim_distribution.hpp"
#include "tessera/layout/dim_spec.hpp"
#include "tessera/layout/distribution.hpp"

namespace tessera {

namespace detail {

// The owners of [a, z) along `d`, as an irregular axis: what keeps every owner whatever the kind.
inline DimSpec owner_table(const DimDistribution& d, index_t a, index_t z) {
  std::vector<int> owners(static_cast<std::size_t>(z - a));
  for (index_t i = a; i < z; ++i) owners[static_cast<std::size_t>(i - a)] = d.owner(i);
  return irregular(std::move(owners));
}

// Axis `d` of one cyclic kind (block cycle `b` from `d.lo()`) restricted to [a, z): block_cyclic
// with the phase of the first index where [a, z) starts on a block boundary, else the owner table.
inline DimSpec restricted_cyclic(const DimDistribution& d, index_t a, index_t z) {
  const index_t b = d.cycle_block();
  if (a == z) return block_cyclic(b);  // no index, no phase
  if ((a - d.lo()) % b == 0) return block_cyclic(b, d.owner(a));
  return owner_table(d, a, z);
}

// A one-slab axis restricted to [a, z), as a spec (interval kinds give a cut; see the table).
inline DimSpec restricted_axis(const DimDistribution& d, index_t a, index_t z) {
  switch (d.kind()) {
    case DimKind::collapsed: return collapsed();
    case DimKind::flooded: return flooded();
    case DimKind::cyclic:
    case DimKind::block_cyclic: return restricted_cyclic(d, a, z);
    case DimKind::irregular: return owner_table(d, a, z);
    default: {  // block, cut, cut_weights, general: one interval per coordinate
      std::vector<index_t> bounds = d.boundaries();
      for (index_t& x : bounds) x = std::clamp(x, a, z);
      return cut(std::move(bounds));
    }
  }
}

// A user-defined distribution (a box set included) restricted: each rank's owned boxes cut to the
// region, as a box set (which keeps every owner; indices the parent leaves unowned stay so).
template <std::size_t N>
Distribution<N> restricted_user(const Distribution<N>& dist, const Box<N>& region) {
  const UserDistribution<N>& user = *dist.user_distribution();
  std::vector<Box<N>> boxes;
  std::vector<int> owners;
  for (int r = 0; r < dist.comm_size(); ++r)
    for (const Box<N>& b : user.owned_boxes(r))
      if (const Box<N> part = intersect(b, region); !part.empty()) {
        boxes.push_back(part);
        owners.push_back(r);
      }
  return Distribution<N>::from_box_set(BoxSet<N>(region, std::move(boxes), std::move(owners), dist.comm_size()));
}

}  // namespace detail

/// The distribution of `region` that gives each of its indices the owner `dist` gives it (see the
/// file comment). Not collective; every rank computes the same. Cost: O(sum of grid extents),
/// plus the region's extent along axes that become irregular, plus O(P · boxes) for a user-defined
/// `dist`. Throws `Error(invalid_argument)` for a region with hi < lo along some axis, and
/// `Error(out_of_range)` naming both boxes for a region not inside `dist.domain()`.
template <std::size_t N>
  requires(N >= 1)
[[nodiscard]] Distribution<N> restricted(const Distribution<N>& dist, const Box<N>& region) {
  constexpr const char* where = "restricted";
  for (std::size_t d = 0; d < N; ++d)
    if (region.hi[d] < region.lo[d])
      fail_argument(where, "region", region, detail::concat("has hi < lo along dimension ", d));
  if (!contains(dist.domain(), region))
    fail(ErrorCode::out_of_range, where, ": argument 'region' = ", region,
         " is not inside the distribution's box ", dist.domain());
  if (dist.is_user_defined()) return detail::restricted_user(dist, region);
  std::array<DimSpec, N> specs;
  for (std::size_t d = 0; d < N; ++d) {
    const DimDistribution& axis = dist.dim(d);
    if (axis.kind() != DimKind::general) {
      specs[d] = detail::restricted_axis(axis, region.lo[d], region.hi[d]);
      continue;
    }
    // A general axis has one cut per slab, which only `with_cuts` can set (below); the constructor
    // needs some valid cut for it meanwhile: every cell on the last grid coordinate.
    std::vector<index_t> interim(static_cast<std::size_t>(dist.grid().extent(d)) + 1, region.lo[d]);
    interim.back() = region.hi[d];
    specs[d] = cut(std::move(interim));
  }
  Distribution<N> out(region, dist.grid(), specs, dist.order());
  for (std::size_t d = 0; d < N; ++d) {
    if (dist.dim(d).kind() != DimKind::general) continue;
    auto slabs = dist.slab_cuts(d);
    for (auto& bounds : slabs)
      for (index_t& x : bounds) x = std::clamp(x, region.lo[d], region.hi[d]);
    out = out.with_cuts(d, std::move(slabs));
  }
  return out;
}

}  // namespace tessera
