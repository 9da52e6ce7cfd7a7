#pragma once
// Random user-defined local layouts for the soak (Chapel's LocalLayout, layout/local_layout.hpp):
// the Morton distribution stored along its curve, or Morton's ownership with each rank's boxes
// stored column-major, padded, tiled or row-major (`with_local_order`). One more distribution
// kind the soak's redistributions, copies, gathers, reductions and ghost updates (into the ghost
// slabs after the owned points) meet.
#include <cstdint>
#include <memory>
#include <random>

#include "morton_distribution/morton_distribution.hpp"
#include "tessera/tessera.hpp"

namespace tessera::soak {

/// A user-defined distribution of `box` over `ranks` ranks with a random local order (see the
/// file comment). Every rank draws the same numbers, so every rank builds the same distribution.
template <std::size_t N>
Distribution<N> random_local_layout(std::mt19937_64& rng, const Box<N>& box, int ranks) {
  using tessera_examples::MortonDistribution;
  using tessera_examples::MortonStorage;
  const auto pick = rng() % 5;
  if (pick == 0) return Distribution<N>::user(std::make_shared<MortonDistribution<N>>(box, ranks, MortonStorage::curve));
  const auto morton = Distribution<N>::user(std::make_shared<MortonDistribution<N>>(box, ranks));
  const auto size = static_cast<index_t>(2 + rng() % 4);  // a padding multiple or a tile side: 2..5
  switch (pick) {
    case 1: return with_local_order(morton, LocalOrder<N>::column_major());
    case 2: return with_local_order(morton, LocalOrder<N>::padded(size));
    case 3: return with_local_order(morton, LocalOrder<N>::tiled(size));
    default: return with_local_order(morton, LocalOrder<N>::row_major());
  }
}

}  // namespace tessera::soak
