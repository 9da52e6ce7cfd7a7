#pragma once
// Random box-set distributions for the soak (issue 16's irregular domains): the domain box tiled
// by a random product of intervals, the tiles assigned to ranks by a random policy (knapsack,
// Morton, or owners drawn at random, so that some ranks own nothing), and, for the round trip
// through holes, some tiles left out. Every rank draws the same numbers, so every rank builds the
// same set.
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "soak_shadow.hpp"

namespace tessera::soak {

/// A box set over `box` and the mask of the indices it stores (1 where a tile holds the index).
template <std::size_t N>
struct RandomBoxSet {
  Distribution<N> distribution;
  Shadow<N> stored;
  index_t stored_count = 0;
};

/// The cut positions of one axis of `box`: lo, up to three inner cuts, hi.
inline std::vector<index_t> random_cuts(std::mt19937_64& rng, index_t lo, index_t hi) {
  std::vector<index_t> cuts{lo, hi};
  const auto inner = static_cast<int>(rng() % 4);
  for (int k = 0; k < inner && hi - lo > 1; ++k) cuts.push_back(lo + 1 + static_cast<index_t>(rng() % static_cast<std::uint64_t>(hi - lo - 1)));
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  return cuts;
}

/// A random box set tiling `box` over `comm_size` ranks; with `holes`, about a quarter of the tiles
/// (never all) are left out.
template <std::size_t N>
RandomBoxSet<N> random_box_set(std::mt19937_64& rng, const Box<N>& box, int comm_size, bool holes) {
  std::array<std::vector<index_t>, N> cuts;
  for (std::size_t d = 0; d < N; ++d) cuts[d] = random_cuts(rng, box.lo[d], box.hi[d]);
  std::vector<Box<N>> tiles;
  Point<N> pieces;
  for (std::size_t d = 0; d < N; ++d) pieces[d] = static_cast<index_t>(cuts[d].size()) - 1;
  for_each_point(Box<N>::from_extents(Point<N>{}, pieces), [&](const Point<N>& k) {
    Box<N> tile;
    for (std::size_t d = 0; d < N; ++d) {
      tile.lo[d] = cuts[d][static_cast<std::size_t>(k[d])];
      tile.hi[d] = cuts[d][static_cast<std::size_t>(k[d]) + 1];
    }
    tiles.push_back(tile);
  });
  if (holes) {
    std::vector<Box<N>> kept;
    for (const Box<N>& t : tiles)
      if (rng() % 4 != 0) kept.push_back(t);
    if (kept.empty()) kept.push_back(tiles[rng() % tiles.size()]);
    tiles = std::move(kept);
  }
  std::vector<double> weights;
  if (rng() % 2 == 0)
    for (std::size_t k = 0; k < tiles.size(); ++k) weights.push_back(static_cast<double>(1 + rng() % 9));
  BoxSet<N> set;
  switch (rng() % 3) {
    case 0: set = make_box_set(box, tiles, comm_size, BoxAssignment::knapsack, weights); break;
    case 1: set = make_box_set(box, tiles, comm_size, BoxAssignment::morton, weights); break;
    default: {
      std::vector<int> owners(tiles.size());
      for (int& o : owners) o = static_cast<int>(rng() % static_cast<std::uint64_t>(comm_size));
      set = BoxSet<N>(box, tiles, std::move(owners), comm_size);
    }
  }
  RandomBoxSet<N> out{Distribution<N>::from_box_set(set), Shadow<N>(box), 0};
  for (const Box<N>& t : tiles) {
    for_each_point(t, [&](const Point<N>& p) { out.stored[p] = 1.0; });
    out.stored_count += volume(t);
  }
  return out;
}

}  // namespace tessera::soak
