#pragma once
// Random irregular box sets for property tests: disjoint boxes placed by rejection inside a domain,
// so that the sets have holes, islands, thin boxes (extent 1) and boxes smaller than a ghost width;
// owners random, so that some ranks own several boxes and some none.
#include <cstddef>
#include <random>
#include <vector>

#include "tessera/geometry.hpp"
#include "tessera/layout/box_set.hpp"

namespace tessera::testing {

/// Up to `tries` candidate boxes inside `domain` (extents 1..max_extent), each kept unless it
/// overlaps one kept before. Deterministic for a given rng state.
template <std::size_t N>
std::vector<Box<N>> random_disjoint_boxes(std::mt19937_64& rng, const Box<N>& domain, index_t max_extent, int tries) {
  std::vector<Box<N>> kept;
  for (int t = 0; t < tries; ++t) {
    Box<N> b;
    for (std::size_t d = 0; d < N; ++d) {
      const index_t span = extent(domain, d);
      const index_t e = 1 + static_cast<index_t>(rng() % static_cast<std::uint64_t>(std::min(max_extent, span)));
      b.lo[d] = domain.lo[d] + static_cast<index_t>(rng() % static_cast<std::uint64_t>(span - e + 1));
      b.hi[d] = b.lo[d] + e;
    }
    bool free = true;
    for (const auto& k : kept) free = free && !intersects(k, b);
    if (free) kept.push_back(b);
  }
  return kept;
}

/// The disjoint boxes the assignment-policy tests use: a domain a few boxes wide per dimension
/// (longer in 1-D), boxes of extent up to 40 (1-D) or 9, up to 60 tries.
template <std::size_t N>
std::vector<Box<N>> random_policy_boxes(std::mt19937_64& rng) {
  const Box<N> domain(Point<N>::filled(-5), Point<N>::filled(N == 1 ? 200 : N == 2 ? 30 : 12));
  return random_disjoint_boxes(rng, domain, N == 1 ? 40 : 9, 60);
}

/// Random owners in [0, ranks) for `count` boxes; with more than one rank, rank ranks-1 is often
/// left without a box (an empty rank).
inline std::vector<int> random_owners(std::mt19937_64& rng, std::size_t count, int ranks) {
  const int used = ranks > 1 && rng() % 2 == 0 ? ranks - 1 : ranks;
  std::vector<int> owners(count);
  for (auto& o : owners) o = static_cast<int>(rng() % static_cast<std::uint64_t>(used));
  return owners;
}

/// A random box set in `domain` (its domain is `domain`, not the bounding box of the boxes).
template <std::size_t N>
BoxSet<N> random_box_set(std::mt19937_64& rng, const Box<N>& domain, index_t max_extent, int tries, int ranks) {
  auto boxes = random_disjoint_boxes(rng, domain, max_extent, tries);
  auto owners = random_owners(rng, boxes.size(), ranks);
  return BoxSet<N>(domain, std::move(boxes), std::move(owners), ranks);
}

}  // namespace tessera::testing
