#pragma once
/// \file
/// The staged halo plan: the ghost fill a hand-written exchange does, for the case where it beats
/// the general one (docs/engine.md, "Staged halo").
///
/// The general plan (halo_plan.hpp) fills every ghost cell from the cell it mirrors in its owner's
/// *owned* data, so a 3-D 27-point exchange sends each neighbour its faces, edges and corners as
/// separate pieces: hundreds of short rows, packed and unpacked. When only one grid axis `a` is
/// split and every other axis with ghosts wraps around periodically, the same values can come from
/// fewer, larger pieces, the way hand-written MPI fills corners:
/// 1. local copies first, in order: the wrap-around along each axis but `a` (fastest storage axis
///    first), each one spanning the ghost layers of the axes wrapped before it;
/// 2. then, along `a`, each neighbour sends its owned layers *with their ghost layers* along every
///    other axis: whole slabs of its storage, contiguous when `a` is the outermost storage axis.
/// The cells moved are exactly those of the general plan; what changes is where corner and edge
/// values are read (the neighbour's freshly wrapped ghosts instead of its owned cells) and the
/// order: the schedule runs its local copies before its messages (`Schedule::local_first`), so a
/// mover started on it must read and write one array.
///
/// It applies (`staged_halo_plan` returns a plan) only when every rank can build it alike from the
/// distribution: a dimensional, unflooded distribution of boxes; exactly one grid axis with more
/// than one coordinate; edges and corners requested; every other axis with ghosts periodic and at
/// least as long as its ghost widths; every coordinate along `a` owning at least the ghost widths
/// along `a` (each ghost slab then comes from one neighbour). `halo_schedule` stages where it also
/// pays (`staged_halo_chosen`, measured: 2-D and up, slabs of at least 2048 elements).
/// Pure: no MPI.

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "tessera/geometry.hpp"
#include "tessera/layout/distribution.hpp"
#include "tessera/plan/compile_schedule.hpp"
#include "tessera/plan/ghost_spec.hpp"
#include "tessera/plan/motion_plan.hpp"
#include "tessera/plan/schedule.hpp"
#include "tessera/plan/storage_layout.hpp"
#include "tessera/plan/storage_order.hpp"

namespace tessera {

/// Whether staging pays for a halo of `dims` dimensions that qualifies, whose thicker slab holds
/// `slab_elements` elements: the messages then wait for the local copies instead of overlapping
/// them. Decided by measurement (src/plan/staged_halo.cpp).
[[nodiscard]] bool staged_halo_pays(std::size_t dims, index_t slab_elements) noexcept;

namespace detail {

/// The one grid axis with more than one coordinate, if the staged plan applies to `dist` and `g`
/// (see the file comment); the same answer on every rank.
template <std::size_t N>
[[nodiscard]] std::optional<std::size_t> staged_halo_axis(const Distribution<N>& dist, const GhostSpec<N>& g) {
  if (g.none() || !g.corners || dist.is_user_defined() || dist.box_set() != nullptr || dist.is_flooded() ||
      !dist.owns_boxes())
    return std::nullopt;
  std::optional<std::size_t> split;
  for (std::size_t d = 0; d < N; ++d) {
    if (dist.grid().extent(d) == 1) continue;
    if (split) return std::nullopt;  // two split axes: corners need more than one neighbour
    split = d;
  }
  if (!split) return std::nullopt;  // one rank holds everything: nothing to stage
  const std::size_t a = *split;
  for (std::size_t e = 0; e < N; ++e) {
    if (e == a || (g.lower[e] == 0 && g.upper[e] == 0)) continue;
    const index_t n = extent(dist.domain(), e);
    if (!g.periodic[e] || n < g.lower[e] || n < g.upper[e]) return std::nullopt;
  }
  // Along `a` one slab of cuts (every other axis has one coordinate): each coordinate's interval
  // must hold the ghost widths, so that a ghost slab comes whole from one neighbour.
  const DimDistribution& along = dist.dim(a);
  const index_t widest = std::max({g.lower[a], g.upper[a], index_t{1}});  // and none owns nothing
  for (int c = 0; c < along.grid_extent(); ++c)
    if (along.local_count(c) < widest) return std::nullopt;
  return a;
}

template <std::size_t N>
[[nodiscard]] MotionPlan<N> staged_halo_plan_along(const Distribution<N>& dist, const GhostSpec<N>& g, int rank,
                                                   std::size_t a);

}  // namespace detail

/// True if the staged halo applies to `dist` and `g` (see the file comment; the same answer on
/// every rank) and pays (`staged_halo_pays`): what `halo_schedule` stages.
template <std::size_t N>
[[nodiscard]] bool staged_halo_chosen(const Distribution<N>& dist, const GhostSpec<N>& g) {
  const auto a = detail::staged_halo_axis(dist, g);
  if (!a) return false;
  index_t slab = std::max(g.lower[*a], g.upper[*a]);  // the thicker slab, ghosts of the other axes included
  for (std::size_t e = 0; e < N; ++e)
    if (e != *a) slab = checked_mul(slab, extent(dist.domain(), e) + g.lower[e] + g.upper[e], "staged halo slab");
  return staged_halo_pays(N, slab);
}

/// True unless the staged slabs of `dist` and `g` are contiguous in every rank's storage (the
/// split axis is the outermost storage axis): contiguous slabs travel one message each, in place
/// (`Schedule::block_messages`).
template <std::size_t N>
[[nodiscard]] bool staged_halo_strided(const Distribution<N>& dist, const GhostSpec<N>& g) {
  const auto a = detail::staged_halo_axis(dist, g);
  return !a || *a != outermost_axis<N>(g.order);
}

/// The staged halo plan of `rank` (see the file comment), or nothing where it does not apply
/// (whether it pays is `staged_halo_chosen`'s question, not this one's). Its
/// copies with other ranks come first, ordered by (source rank, destination rank, first source
/// point, first destination point), then its local copies in the order they must run.
template <std::size_t N>
[[nodiscard]] std::optional<MotionPlan<N>> staged_halo_plan(const Distribution<N>& dist, const GhostSpec<N>& g,
                                                            int rank) {
  const auto split = detail::staged_halo_axis(dist, g);
  if (!split) return std::nullopt;
  return detail::staged_halo_plan_along(dist, g, rank, *split);
}

/// `staged_halo_plan` compiled for `rank`'s storage, flagged as the mover must run it (local copies
/// first, block messages where the slabs are contiguous); nothing where the plan does not apply.
template <std::size_t N>
[[nodiscard]] std::optional<Schedule> staged_halo_schedule(const Distribution<N>& dist, const GhostSpec<N>& g,
                                                           int rank) {
  const auto split = detail::staged_halo_axis(dist, g);
  if (!split) return std::nullopt;
  const auto layout = StorageLayout<N>::make(dist, rank, g);
  // The local copies read each other's ghosts: never staged through a buffer, run in order.
  Schedule s = compile_schedule(detail::staged_halo_plan_along(dist, g, rank, *split), rank, layout, layout,
                                /*local_copies_disjoint=*/true);
  s.local_first = true;
  s.block_messages = *split == outermost_axis<N>(g.order);  // the slabs are contiguous: one message each
  return s;
}

namespace detail {

/// The staged plan of `rank` when it applies along split axis `a` (`staged_halo_axis`).
template <std::size_t N>
[[nodiscard]] MotionPlan<N> staged_halo_plan_along(const Distribution<N>& dist, const GhostSpec<N>& g, int rank,
                                                   std::size_t a) {
  MotionPlan<N> plan;
  const auto position = dist.grid().position_of(rank);
  if (!position) return plan;  // a rank outside the grid owns nothing and has no ghosts
  const Box<N> owned = dist.owned_box(rank);
  Box<N> with_ghosts = owned;  // the patch: owned box grown by the ghost layers
  for (std::size_t d = 0; d < N; ++d) with_ghosts.lo[d] -= g.lower[d], with_ghosts.hi[d] += g.upper[d];

  // Along a: the slabs to and from the neighbours, spanning the ghost layers of every other axis.
  const index_t coords = dist.grid().extent(a);
  const auto neighbour = [&](index_t step) -> std::optional<std::pair<int, Box<N>>> {
    index_t c = (*position)[a] + step;
    if (c < 0 || c >= coords) {
      if (!g.periodic[a]) return std::nullopt;
      c = (c + coords) % coords;
    }
    Point<N> at = *position;
    at[a] = c;
    const int q = dist.grid().rank_at(at);
    return std::pair{q, dist.owned_box(q)};
  };
  const auto slab = [&](index_t lo, index_t hi) {
    Box<N> b = with_ghosts;
    b.lo[a] = lo;
    b.hi[a] = hi;
    return Section<N>::from_box(b);
  };
  std::vector<Copy<N>> remote;
  const auto add = [&](int from, const Section<N>& src, int to, const Section<N>& dst) {
    remote.push_back({from, src, to, dst, 0, 0});
  };
  if (const auto below = neighbour(-1)) {
    const auto& [q, box] = *below;
    // My lower ghost layers come from q's top owned layers (across the domain's end if wrapped:
    // the copy names both sections, so no shift is needed); q's upper ones from my bottom layers.
    if (g.lower[a] > 0) add(q, slab(box.hi[a] - g.lower[a], box.hi[a]), rank, slab(owned.lo[a] - g.lower[a], owned.lo[a]));
    if (g.upper[a] > 0) add(rank, slab(owned.lo[a], owned.lo[a] + g.upper[a]), q, slab(box.hi[a], box.hi[a] + g.upper[a]));
  }
  if (const auto above = neighbour(+1)) {
    const auto& [q, box] = *above;
    if (g.upper[a] > 0) add(q, slab(box.lo[a], box.lo[a] + g.upper[a]), rank, slab(owned.hi[a], owned.hi[a] + g.upper[a]));
    if (g.lower[a] > 0) add(rank, slab(owned.hi[a] - g.lower[a], owned.hi[a]), q, slab(box.lo[a] - g.lower[a], box.lo[a]));
  }
  // Sender and receiver must list the copies between them alike. With two coordinates along a
  // periodic axis both slabs go to the same peer, and they can start at the same point (a peer
  // two layers thick, widths 2 and 1): order by destination too, not by insertion.
  const auto first = [](const Section<N>& s) {
    Point<N> p;
    for (std::size_t d = 0; d < N; ++d) p[d] = s.dim[d].begin();
    return p;
  };
  std::sort(remote.begin(), remote.end(), [&](const Copy<N>& x, const Copy<N>& y) {
    if (x.src_rank != y.src_rank) return x.src_rank < y.src_rank;
    if (x.dst_rank != y.dst_rank) return x.dst_rank < y.dst_rank;
    if (first(x.src) != first(y.src)) return first(x.src) < first(y.src);
    return first(x.dst) < first(y.dst);
  });
  for (const auto& c : remote) plan.copy(c.src_rank, c.src, c.dst_rank, c.dst, c.src_patch, c.dst_patch);

  // Local wrap-arounds, fastest storage axis first, each spanning the ghosts of those before it
  // and only the owned layers along a (whose ghost slabs arrive by message meanwhile).
  Box<N> span = owned;
  const auto axes = axes_slowest_first<N>(g.order);
  for (std::size_t k = N; k-- > 0;) {
    const auto e = static_cast<std::size_t>(axes[k]);
    if (e == a || (g.lower[e] == 0 && g.upper[e] == 0)) continue;
    const auto along = [&](index_t lo, index_t hi) {
      Box<N> b = span;
      b.lo[e] = lo;
      b.hi[e] = hi;
      return Section<N>::from_box(b);
    };
    const index_t lo = owned.lo[e], hi = owned.hi[e];  // the whole domain along e
    if (g.lower[e] > 0) plan.copy(rank, along(hi - g.lower[e], hi), rank, along(lo - g.lower[e], lo), 0, 0);
    if (g.upper[e] > 0) plan.copy(rank, along(lo, lo + g.upper[e]), rank, along(hi, hi + g.upper[e]), 0, 0);
    span.lo[e] = with_ghosts.lo[e];
    span.hi[e] = with_ghosts.hi[e];
  }
  return plan;
}

}  // namespace detail

}  // namespace tessera
