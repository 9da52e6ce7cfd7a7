#pragma once
// The hand-written MPI anchors' block decomposition: n indices over g grid coordinates in
// contiguous blocks whose sizes differ by at most one, the larger ones first — the split
// tessera's block() makes (src/layout/dim_distribution.cpp), written out here so that the anchors
// decompose exactly as the tessera programs do without asking tessera how.
#include <algorithm>

#include "tessera/core/index.hpp"

namespace kelp {

using tessera::index_t;

/// First index of coordinate c's block (c = g gives n).
inline index_t block_start(int c, index_t n, int g) {
  const index_t q = n / g, r = n % g;
  return c * q + std::min<index_t>(c, r);
}

/// The coordinate whose block holds index i.
inline int block_owner(index_t i, index_t n, int g) {
  const index_t q = n / g, r = n % g;
  return static_cast<int>(i < r * (q + 1) ? i / (q + 1) : r + (i - r * (q + 1)) / q);
}

}  // namespace kelp
