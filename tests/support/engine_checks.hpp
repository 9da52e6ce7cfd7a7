#pragma once
// Shared pieces of the engine tests: random distributions that every rank builds alike (same
// seed), arrays filled with a value that encodes each element's global index, and independent
// serial references for what ghost layers must hold.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <vector>

#include "morton_distribution/morton_distribution.hpp"
#include "random_geometry.hpp"
#include "tessera/geometry.hpp"
#include "tessera/layout/box_set.hpp"
#include "tessera/layout/distribution.hpp"
#include "tessera/plan/ghost_spec.hpp"
#include "tessera/plan/storage_layout.hpp"

namespace tessera::testing {

/// A value that identifies a global point (exact in a double for coordinates in [-500, 500)).
template <std::size_t N>
double value_of(const Point<N>& p) {
  double v = 0;
  for (std::size_t d = 0; d < N; ++d) v = v * 1000.0 + static_cast<double>(p[d] + 500);
  return v + 0.25;
}
inline constexpr double kSentinel = -7.5;

/// A random grid over `comm_size` ranks: a random number of positions, a random subset of ranks in
/// a random order (the rest are skeletons).
template <std::size_t N>
ProcGrid<N> random_grid(std::mt19937_64& rng, int comm_size) {
  for (;;) {
    Point<N> shape;
    index_t positions = 1;
    for (std::size_t d = 0; d < N; ++d) positions *= (shape[d] = 1 + static_cast<index_t>(rng() % 3));
    if (positions > comm_size) continue;
    std::vector<int> ranks(static_cast<std::size_t>(comm_size));
    std::iota(ranks.begin(), ranks.end(), 0);
    std::shuffle(ranks.begin(), ranks.end(), rng);
    ranks.resize(static_cast<std::size_t>(positions));
    if (rng() % 3 == 0) std::sort(ranks.begin(), ranks.end());
    return ProcGrid<N>::from_ranks(comm_size, shape, ranks);
  }
}

/// A random spec; `interval_only` keeps to kinds whose ranks own one interval (ghosts possible).
inline DimSpec random_spec(std::mt19937_64& rng, index_t lo, index_t hi, int g, bool interval_only) {
  const auto pick = rng() % (interval_only ? 3 : 6);
  switch (pick) {
    case 0: return g == 1 && rng() % 2 ? collapsed() : block();
    case 1: {  // cuts with empty and thin ranks
      std::vector<index_t> b{lo};
      for (int c = 1; c < g; ++c) b.push_back(b.back() + static_cast<index_t>(rng() % static_cast<std::uint64_t>(hi - b.back() + 1)));
      b.push_back(hi);
      return cut(b);
    }
    case 2: return cut_weights(std::vector<double>(static_cast<std::size_t>(g), 1.0)).with_logical_block(2);
    case 3: return cyclic();
    case 4: return block_cyclic(1 + static_cast<index_t>(rng() % 3), static_cast<int>(rng() % static_cast<std::uint64_t>(g)));
    default: {
      std::vector<int> owners(static_cast<std::size_t>(hi - lo));
      for (auto& o : owners) o = static_cast<int>(rng() % static_cast<std::uint64_t>(g));
      return irregular(owners);
    }
  }
}

template <std::size_t N>
Box<N> random_domain(std::mt19937_64& rng, index_t max_extent) {
  Box<N> b;
  for (std::size_t d = 0; d < N; ++d) {
    b.lo[d] = static_cast<index_t>(rng() % 7) - 3;
    b.hi[d] = b.lo[d] + 1 + static_cast<index_t>(rng() % static_cast<std::uint64_t>(max_extent));
  }
  return b;
}

/// A random distribution; dimensions marked in `interval_only` get kinds that allow ghosts.
template <std::size_t N>
Distribution<N> random_distribution(std::mt19937_64& rng, const Box<N>& domain, int comm_size,
                                    const std::array<bool, N>& interval_only) {
  const auto grid = random_grid<N>(rng, comm_size);
  std::array<DimSpec, N> specs;
  for (std::size_t d = 0; d < N; ++d)
    specs[d] = random_spec(rng, domain.lo[d], domain.hi[d], static_cast<int>(grid.extent(d)), interval_only[d]);
  return Distribution<N>(domain, grid, specs);
}

template <std::size_t N>
Distribution<N> random_distribution(std::mt19937_64& rng, const Box<N>& domain, int comm_size, bool interval_only) {
  std::array<bool, N> mask;
  mask.fill(interval_only);
  return random_distribution(rng, domain, comm_size, mask);
}

/// A random distribution of any kind, a user-defined one (Morton, one patch per owned box) included.
template <std::size_t N, class Mask>
Distribution<N> any_distribution(std::mt19937_64& rng, const Box<N>& box, int comm_size, const Mask& interval_only) {
  if (rng() % 5 == 0)
    return Distribution<N>::user(std::make_shared<tessera_examples::MortonDistribution<N>>(box, comm_size));
  return random_distribution<N>(rng, box, comm_size, interval_only);
}

/// Random ghost widths in [0, max_width) per side (none at all along about a quarter of the
/// dimensions, so that any distribution kind can go there), faces only or not, random periodicity.
template <std::size_t N>
GhostSpec<N> random_ghosts(std::mt19937_64& rng, index_t max_width = 3) {
  Point<N> lo, hi;
  for (std::size_t d = 0; d < N; ++d) {
    if (rng() % 4 == 0) continue;
    lo[d] = static_cast<index_t>(rng() % static_cast<std::uint64_t>(max_width));
    hi[d] = static_cast<index_t>(rng() % static_cast<std::uint64_t>(max_width));
  }
  auto g = GhostSpec<N>::sides(lo, hi);
  if (rng() % 2) g = g.faces_only();
  Periodicity<N> p{};
  for (auto& x : p) x = rng() % 2;
  return g.periodic_along(p);
}

/// Dimensions along which `g` has a ghost layer (they need interval kinds).
template <std::size_t N>
std::array<bool, N> ghosted_dims(const GhostSpec<N>& g) {
  std::array<bool, N> m{};
  for (std::size_t d = 0; d < N; ++d) m[d] = g.lower[d] > 0 || g.upper[d] > 0;
  return m;
}

template <std::size_t N, class Visit>
void for_each_stored(const StorageLayout<N>& layout, Visit&& visit);

/// A rank's storage with every owned element set to value_of(its point) and every ghost to kSentinel.
template <std::size_t N>
std::vector<double> filled_storage(const StorageLayout<N>& layout) {
  std::vector<double> data(static_cast<std::size_t>(layout.size()), kSentinel);
  for_each_stored(layout, [&](const PatchLayout<N>&, const Point<N>& p, index_t offset, bool owned) {
    if (owned) data[static_cast<std::size_t>(offset)] = value_of(p);
  });
  return data;
}

/// Calls visit(patch, global point, element offset, owned) for every element a rank stores, ghosts
/// included, walking local indices (so compacted axes visit only the indices the rank owns).
template <std::size_t N, class Visit>
void for_each_stored(const StorageLayout<N>& layout, Visit&& visit) {
  for (const auto& patch : layout.patches()) {
    for_each_point(Box<N>::from_extents(patch.extents()), [&](const Point<N>& l) {
      Point<N> p;
      bool owned = true;
      for (std::size_t d = 0; d < N; ++d) {
        const AxisMap& a = patch.axes[d];
        p[d] = a.global(l[d]);
        owned = owned && l[d] >= a.ghost_lo && l[d] < a.ghost_lo + a.count;
      }
      visit(patch, p, patch.element_offset(p), owned);
    });
  }
}

/// The ghost points of a patch a spec asks to fill (the shell, or the face slabs), written out
/// independently of the plan builders.
template <std::size_t N>
bool in_requested_ghost(const Box<N>& owned, const GhostSpec<N>& g, const Point<N>& q) {
  if (contains(owned, q) || !contains(grow(owned, g.lower, g.upper), q)) return false;
  if (g.corners) return true;
  int outside = 0;
  for (std::size_t d = 0; d < N; ++d) outside += (q[d] < owned.lo[d] || q[d] >= owned.hi[d]) ? 1 : 0;
  return outside == 1;
}

template <std::size_t N>
std::optional<Point<N>> wrap_point(const Box<N>& domain, const Periodicity<N>& periodic, Point<N> q);

/// After a ghost fill: every owned element holds value_of(its point) and every requested ghost the
/// value of the point it mirrors; other ghosts hold `untouched`. `read(offset)` reads the storage.
template <std::size_t N, class Read>
void expect_halo_reference(const StorageLayout<N>& layout, const Box<N>& domain, const GhostSpec<N>& g, Read&& read,
                           int rank, double untouched = kSentinel) {
  for_each_stored(layout, [&](const PatchLayout<N>& patch, const Point<N>& q, index_t offset, bool owned) {
    double want = untouched;
    if (owned) {
      want = value_of(q);
    } else if (in_requested_ghost(patch.owned_box(), g, q)) {
      if (const auto w = wrap_point(domain, g.periodic, q)) want = value_of(*w);
    }
    ASSERT_EQ(read(offset), want) << "rank " << rank << " point " << q;
  });
}

/// q wrapped into the domain along periodic dimensions; nullopt if it is outside along another.
template <std::size_t N>
std::optional<Point<N>> wrap_point(const Box<N>& domain, const Periodicity<N>& periodic, Point<N> q) {
  for (std::size_t d = 0; d < N; ++d) {
    if (q[d] >= domain.lo[d] && q[d] < domain.hi[d]) continue;
    if (!periodic[d]) return std::nullopt;
    q[d] = domain.lo[d] + floor_mod(q[d] - domain.lo[d], domain.hi[d] - domain.lo[d]);
  }
  return q;
}

/// q mirrored about the faces of `box` along every axis it lies beyond (the holes' reflect rule:
/// a wall around each box).
template <std::size_t N>
Point<N> mirrored_into(const Box<N>& box, Point<N> q) {
  for (std::size_t d = 0; d < N; ++d) {
    if (q[d] < box.lo[d])
      q[d] = 2 * box.lo[d] - 1 - q[d];
    else if (q[d] >= box.hi[d])
      q[d] = 2 * box.hi[d] - 1 - q[d];
  }
  return q;
}

/// True if some box of `set` has a requested ghost cell (ghosts `g`, over `domain`) over a hole
/// farther beyond it along some axis than the box is thick there: the reflect rule's mirror is no
/// cell of the box, and a ghost update with that rule is an error on every rank.
template <std::size_t N>
bool hole_mirror_leaves_some_box(const BoxSet<N>& set, const Box<N>& domain, const GhostSpec<N>& g) {
  for (std::size_t i = 0; i < set.size(); ++i) {
    const Box<N>& b = set.box(i);
    bool leaves = false;
    for_each_point(grow(b, g.lower, g.upper), [&](const Point<N>& q) {
      if (leaves || !in_requested_ghost(b, g, q)) return;
      const auto w = wrap_point(domain, g.periodic, q);
      if (w && !set.find(*w) && !contains(b, mirrored_into(b, q))) leaves = true;
    });
    if (leaves) return true;
  }
  return false;
}

}  // namespace tessera::testing
