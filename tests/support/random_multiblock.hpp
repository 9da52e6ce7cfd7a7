#pragma once
// Random multiblock set-ups for the tests (unit and MPI): blocks with random distributions (every
// kind, box sets with holes, processor subsets) and non-overlapping interfaces with random fitting
// orientations, parts of faces or whole faces, blocks glued to themselves.
#include <algorithm>
#include <random>
#include <vector>

#include "engine_checks.hpp"
#include "random_box_set.hpp"
#include "tessera/layout/multiblock.hpp"

namespace tessera::testing {

template <std::size_t N>
Box<N> whole_face(const Box<N>& box, std::size_t axis, bool upper) {
  Box<N> c = box;
  if (upper)
    c.lo[axis] = box.hi[axis] - 1;
  else
    c.hi[axis] = box.lo[axis] + 1;
  return c;
}

template <std::size_t N>
struct MultiblockSetup {
  std::vector<Distribution<N>> blocks;
  std::vector<BlockInterface<N>> interfaces;
};

/// Random blocks and up to `max_interfaces` random interfaces that do not overlap.
template <std::size_t N>
MultiblockSetup<N> random_setup(std::mt19937_64& rng, int ranks, index_t max_extent, int max_interfaces) {
  MultiblockSetup<N> s;
  const std::size_t count = 1 + rng() % 3;
  for (std::size_t b = 0; b < count; ++b) {
    const Box<N> box = random_domain<N>(rng, max_extent);
    if (rng() % 3 == 0)
      s.blocks.push_back(Distribution<N>::from_box_set(random_box_set<N>(rng, box, 1 + rng() % 4, 20, ranks)));
    else
      s.blocks.push_back(random_distribution<N>(rng, box, ranks, rng() % 2 == 0));
  }
  const auto all = all_orientations<N>();
  std::vector<BlockFace<N>> used;  // with cells filled in
  for (int attempt = 0; attempt < 4 * max_interfaces && static_cast<int>(s.interfaces.size()) < max_interfaces;
       ++attempt) {
    BlockFace<N> a{rng() % count, rng() % N, rng() % 2 == 0, {}}, b{rng() % count, rng() % N, rng() % 2 == 0, {}};
    std::vector<Orientation<N>> fitting;
    for (const auto& o : all)
      if (o.source_axis(a.axis) == b.axis && o.flipped(a.axis) == (a.upper == b.upper)) fitting.push_back(o);
    const Orientation<N> o = fitting[rng() % fitting.size()];
    const Box<N>& ba = s.blocks[a.block].domain();
    const Box<N>& bb = s.blocks[b.block].domain();
    Box<N> ca = whole_face(ba, a.axis, a.upper), cb = whole_face(bb, b.axis, b.upper);
    bool whole = true;
    for (std::size_t d = 0; d < N; ++d) {
      if (d == a.axis) continue;
      const std::size_t e = o.source_axis(d);
      const index_t room = std::min(extent(ba, d), extent(bb, e));
      const index_t length = 1 + static_cast<index_t>(rng() % static_cast<std::uint64_t>(room));
      ca.lo[d] = ba.lo[d] + static_cast<index_t>(rng() % static_cast<std::uint64_t>(extent(ba, d) - length + 1));
      ca.hi[d] = ca.lo[d] + length;
      cb.lo[e] = bb.lo[e] + static_cast<index_t>(rng() % static_cast<std::uint64_t>(extent(bb, e) - length + 1));
      cb.hi[e] = cb.lo[e] + length;
      whole = whole && ca == whole_face(ba, a.axis, a.upper) && cb == whole_face(bb, b.axis, b.upper);
    }
    a.cells = ca;
    b.cells = cb;
    const auto meets = [](const BlockFace<N>& x, const BlockFace<N>& y) {
      return x.block == y.block && x.axis == y.axis && x.upper == y.upper && intersects(x.cells, y.cells);
    };
    bool free = !meets(a, b);
    for (const auto& u : used) free = free && !meets(u, a) && !meets(u, b);
    if (!free) continue;
    used.push_back(a);
    used.push_back(b);
    if (whole && rng() % 2 == 0) a.cells = b.cells = Box<N>{};  // "the whole face"
    s.interfaces.push_back({a, b, o});
  }
  return s;
}

/// A torus of 2^N blocks: the periodic cube [0, 2n)^N cut in half along every axis, block b the
/// half-cube at corner bits b (bit d set: the upper half along d), stored through a random
/// orientation (block positions = `to_block[b]` of torus positions), each block's upper face of
/// every torus axis glued to the lower face of its neighbour along it (across the period for the
/// upper halves). Every vertex is regular (2^N blocks meet there), so every ghost cell of every
/// block, corners and 3-D edges too, has exactly one source: the torus cell its position wraps to.
template <std::size_t N>
struct Torus {
  index_t n = 0;
  std::vector<OrientedMap<N>> to_block;  ///< torus positions -> block b's positions
  std::vector<Box<N>> boxes;             ///< block b's box
  std::vector<BlockInterface<N>> interfaces;

  /// The torus cell of block b's position p (inside the block or beyond it).
  [[nodiscard]] Point<N> torus_cell(std::size_t b, const Point<N>& p) const {
    Point<N> q = to_block[b].inverse().map(p);
    for (std::size_t d = 0; d < N; ++d) q[d] = ((q[d] % (2 * n)) + 2 * n) % (2 * n);
    return q;
  }
  /// The block holding torus cell q, and q in its positions.
  [[nodiscard]] std::pair<std::size_t, Point<N>> holder(const Point<N>& q) const {
    std::size_t b = 0;
    for (std::size_t d = 0; d < N; ++d)
      if (q[d] >= n) b |= std::size_t{1} << d;
    return {b, to_block[b].map(q)};
  }
};

template <std::size_t N>
Torus<N> make_torus(std::mt19937_64& rng, index_t n) {
  const auto all = all_orientations<N>();
  Torus<N> t;
  t.n = n;
  std::vector<Orientation<N>> turn;
  for (std::size_t b = 0; b < (std::size_t{1} << N); ++b) {
    Box<N> part, box;
    for (std::size_t d = 0; d < N; ++d) {
      part.lo[d] = ((b >> d) & 1U) != 0 ? n : 0;
      part.hi[d] = part.lo[d] + n;
      box.lo[d] = static_cast<index_t>(rng() % 11) - 5;  // a cube: every orientation fits
      box.hi[d] = box.lo[d] + n;
    }
    turn.push_back(all[rng() % all.size()]);
    t.to_block.push_back(OrientedMap<N>::onto(turn.back(), part, box));
    t.boxes.push_back(box);
  }
  for (std::size_t b = 0; b < t.boxes.size(); ++b)
    for (std::size_t d = 0; d < N; ++d) {
      const std::size_t next = b ^ (std::size_t{1} << d);  // the neighbour above along d (mod the period)
      const std::size_t axis_a = turn[b].image_axis(d), axis_b = turn[next].image_axis(d);
      t.interfaces.push_back({{b, axis_a, !turn[b].flipped(axis_a), {}},
                              {next, axis_b, turn[next].flipped(axis_b), {}},
                              turn[next].inverse().then(turn[b])});
    }
  return t;
}

}  // namespace tessera::testing
