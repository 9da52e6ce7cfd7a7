// Multiblock domains (layout/multiblock.hpp) on 1-5 ranks: random blocks (ordinary distributions of
// every kind, cyclic ones included, and box sets with holes; processor subsets), random interfaces
// with random orientations (parts of faces, whole faces, a block glued to itself); every stored
// value after a ghost update checked against a reference computed point by point from the
// interfaces' definition (depth beyond one face = depth inside the other, tangential axes laid on
// by the orientation; a corner carried on across the next face, the first interface in order that
// reaches a cell winning), blocking and split phase; tori of 4 (2-D) and 8 (3-D) blocks, where every
// ghost, corners and edges included, holds the cell its position wraps to; accumulate_ghosts against the sums of the ghosts
// each cell is the source of, across ranks; every block redistributed (values kept where both
// layouts hold a cell, ghosts right afterwards). Every one of the 8 (2-D) and 48 (3-D) orientations
// through a ghost update and section moves, against a brute-force placement from the definition;
// section moves (random and strided) and their kept schedules. Bad input: an Error on every rank.
#include <gtest/gtest.h>
#include <mpi.h>

#include <map>
#include <optional>
#include <random>
#include <set>
#include <vector>

#include "engine_checks.hpp"
#include "random_box_set.hpp"
#include "random_multiblock.hpp"
#include "tessera/tessera.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

/// A value naming block b's point p (exact in a double).
template <std::size_t N>
double code(std::size_t b, const Point<N>& p) {
  return static_cast<double>(b) * 1e10 + value_of(p);
}

/// What a ghost cell q (embedded) of a patch of block `block` must hold, from the interfaces'
/// definition, or nullopt if no interface reaches it. Point by point: the interfaces' ends are tried
/// in order (interface by interface, a's ghosts first), each one whose face q lies beyond — outside
/// the block along its axis, and along each other axis within its cells or beyond the block's end
/// where its cells reach that end; the glue sends q to the cell at the same depth inside the other
/// block, tangential offsets laid on by the orientation (beyond the other face's cells where q was
/// beyond the block's end). A cell inside the other block is the answer (a hole: none), one beyond
/// it (a corner) is looked up the same way from there; the first end that reaches a cell wins.
template <std::size_t N>
std::optional<double> across_interfaces(const MultiblockLayout<N>& mb, std::size_t block, const Point<N>& q) {
  const Box<N> box = mb.block_box(block);
  Point<N> p;  // q in block coordinates
  for (std::size_t d = 0; d < N; ++d) p[d] = q[d] - mb.offset(block)[d];
  const auto beyond = [&](std::size_t d) { return p[d] < box.lo[d] || p[d] >= box.hi[d]; };
  for (const auto& in : mb.interfaces())
    for (int end = 0; end < 2; ++end) {
      const BlockFace<N>& here = end == 0 ? in.a : in.b;
      const BlockFace<N>& there = end == 0 ? in.b : in.a;
      const std::size_t axis = here.axis;
      if (here.block != block || !(here.upper ? p[axis] >= box.hi[axis] : p[axis] < box.lo[axis])) continue;
      const index_t depth = here.upper ? p[axis] - box.hi[axis] + 1 : box.lo[axis] - p[axis];
      const Orientation<N> o = end == 0 ? in.orientation : in.orientation.inverse();  // there -> here
      const Box<N> ch = here.cells.empty() ? whole_face(box, axis, here.upper) : here.cells;
      const Box<N>& other = mb.block_box(there.block);
      const Box<N> ct = there.cells.empty() ? whole_face(other, there.axis, there.upper) : there.cells;
      bool carried = true;
      for (std::size_t d = 0; d < N; ++d) {
        if (d == axis) continue;
        if (!beyond(d))
          carried = carried && p[d] >= ch.lo[d] && p[d] < ch.hi[d];
        else
          carried = carried && (p[d] >= box.hi[d] ? ch.hi[d] == box.hi[d] : ch.lo[d] == box.lo[d]);
      }
      if (!carried) continue;
      Point<N> src;
      src[there.axis] = there.upper ? other.hi[there.axis] - depth : other.lo[there.axis] + depth - 1;
      for (std::size_t d = 0; d < N; ++d) {
        if (d == axis) continue;
        const std::size_t e = o.source_axis(d);
        const index_t along = p[d] - ch.lo[d];
        src[e] = o.flipped(d) ? ct.hi[e] - 1 - along : ct.lo[e] + along;
      }
      // Beyond a block thinner than the ghosts: this end reaches nothing.
      if (src[there.axis] < other.lo[there.axis] || src[there.axis] >= other.hi[there.axis]) continue;
      Point<N> embedded;
      for (std::size_t d = 0; d < N; ++d) embedded[d] = src[d] + mb.offset(there.block)[d];
      if (!contains(other, src)) {  // beyond another face of the other block: on from there
        if (const auto v = across_interfaces(mb, there.block, embedded)) return v;
        continue;
      }
      if (!mb.embedded_set().find(embedded)) continue;  // a hole of a box-set block
      return code(there.block, src);
    }
  return std::nullopt;
}

/// Checks every value `u` stores (owned and ghost, every patch) against the reference after a
/// ghost update of cells holding `code`; returns how many ghosts the reference took across an
/// interface.
template <std::size_t N>
long check_every_stored_value(const Communicator& comm, const MultiblockArray<double, N>& u) {
  const MultiblockLayout<N>& mb = u.domain().layout();
  const GhostSpec<N>& g = u.ghosts();
  const auto& set = mb.embedded_set();
  long across = 0;
  std::size_t patch = 0;
  for (const auto& layout_patch : u.array().layout().patches()) {
    const std::size_t block = u.block_of_patch(patch++);
    const Box<N> owned = layout_patch.owned_box();
    for_each_point(grow(owned, g.lower, g.upper), [&](const Point<N>& q) {
      double want = kSentinel;
      Point<N> in_block;
      for (std::size_t d = 0; d < N; ++d) in_block[d] = q[d] - mb.offset(block)[d];
      if (contains(owned, q)) {
        want = code(block, in_block);
      } else if (in_requested_ghost(owned, g, q)) {
        if (contains(mb.embedded_box(block), q)) {
          if (set.find(q)) want = code(block, in_block);
        } else if (const auto v = across_interfaces(mb, block, q)) {
          want = *v;
          ++across;
        }
      }
      ASSERT_EQ(u.array().storage()[static_cast<std::size_t>(layout_patch.element_offset(q))], want)
          << "rank " << comm.rank() << " block " << block << " point " << in_block;
    });
  }
  return across;
}

/// Fills owned cells with `code`, everything else with the sentinel, updates twice (the second
/// through the kept mover, split phase around a read of every owned cell) and checks every stored
/// value after each; returns the interface ghosts met.
template <std::size_t N>
long update_and_check(const Communicator& comm, MultiblockArray<double, N>& u) {
  std::fill(u.array().storage().begin(), u.array().storage().end(), kSentinel);
  u.for_each_owned([](std::size_t b, const Point<N>& p, double& x) { x = code(b, p); });
  long across = 0;
  for (int round = 0; round < 2; ++round) {
    if (round == 0) {
      u.update_ghosts();
    } else {
      u.begin_update_ghosts();
      EXPECT_TRUE(u.ghost_update_in_flight());
      long wrong = 0;  // interior work while the ghosts travel: owned cells are readable
      u.for_each_owned([&](std::size_t b, const Point<N>& p, double& x) { wrong += x != code(b, p) ? 1 : 0; });
      EXPECT_EQ(wrong, 0);
      u.end_update_ghosts();
      EXPECT_FALSE(u.ghost_update_in_flight());
    }
    across = check_every_stored_value(comm, u);
  }
  return across;
}

/// After `update_and_check` every ghost an update fills holds its source cell's code. Each such
/// ghost gets a small integer, every owned cell 0; then accumulate_ghosts(add) must leave in each
/// owned cell the sum of the integers of every ghost (on any rank) whose source it is, and the
/// ghosts as they were. Returns how many ghosts this rank combined.
template <std::size_t N>
long accumulate_and_check(const Communicator& comm, MultiblockArray<double, N>& u) {
  const GhostSpec<N>& g = u.ghosts();
  const MultiblockLayout<N>& mb = u.domain().layout();
  const auto storage = u.array().storage();  // a span over this rank's buffer
  std::vector<double> sources, amounts;  // per filled ghost of this rank: its source's code, its integer
  for (const auto& patch : u.array().layout().patches()) {
    const Box<N> owned = patch.owned_box();
    for_each_point(grow(owned, g.lower, g.upper), [&](const Point<N>& q) {
      double& x = storage[static_cast<std::size_t>(patch.element_offset(q))];
      if (contains(owned, q)) {
        x = 0.0;
      } else if (x != kSentinel) {
        sources.push_back(x);
        amounts.push_back(x = static_cast<double>(1 + (sources.size() + 3 * static_cast<std::size_t>(comm.rank())) % 11));
      }
    });
  }
  u.accumulate_ghosts(CombineOp::add);
  const auto all_sources = comm.allgatherv<double>(sources);
  const auto all_amounts = comm.allgatherv<double>(amounts);
  std::map<double, double> expected;  // source code -> sum of its ghosts' integers
  for (std::size_t i = 0; i < all_sources.size(); ++i) expected[all_sources[i]] += all_amounts[i];
  std::size_t next_ghost = 0;
  std::size_t k = 0;
  for (const auto& patch : u.array().layout().patches()) {
    const std::size_t block = u.block_of_patch(k++);
    const Box<N> owned = patch.owned_box();
    for_each_point(grow(owned, g.lower, g.upper), [&](const Point<N>& q) {
      const double x = storage[static_cast<std::size_t>(patch.element_offset(q))];
      if (contains(owned, q)) {
        Point<N> in_block;
        for (std::size_t d = 0; d < N; ++d) in_block[d] = q[d] - mb.offset(block)[d];
        const auto it = expected.find(code(block, in_block));
        ASSERT_EQ(x, it == expected.end() ? 0.0 : it->second)
            << "rank " << comm.rank() << " block " << block << " point " << in_block;
      } else if (x != kSentinel) {
        ASSERT_LT(next_ghost, amounts.size());
        ASSERT_EQ(x, amounts[next_ghost++]) << "a ghost changed at " << q;
      }
    });
  }
  return static_cast<long>(sources.size());
}

/// Gives every block of `dom` a new random distribution of its box (box sets with holes among
/// them) with `code` in every owned cell first: afterwards every cell both layouts hold keeps its
/// code, cells only the new one holds are 0, and a ghost update over the new layout checks out.
template <std::size_t N>
void redistribute_and_check(const Communicator& comm, std::mt19937_64& rng, MultiblockDomain<N>& dom,
                            MultiblockArray<double, N>& u) {
  u.for_each_owned([](std::size_t b, const Point<N>& p, double& x) { x = code(b, p); });
  const BoxSet<N> before = dom.layout().embedded_set();
  std::vector<Distribution<N>> blocks;
  for (std::size_t b = 0; b < dom.layout().block_count(); ++b) {
    const Box<N> box = dom.layout().block_box(b);
    if (rng() % 3 == 0)
      blocks.push_back(Distribution<N>::from_box_set(random_box_set<N>(rng, box, 1 + rng() % 4, 20, comm.size())));
    else
      blocks.push_back(random_distribution<N>(rng, box, comm.size(), rng() % 2 == 0));
  }
  dom.redistribute(blocks);
  for (std::size_t b = 0; b < blocks.size(); ++b) EXPECT_EQ(dom.layout().block(b), blocks[b]);
  const MultiblockLayout<N>& mb = dom.layout();
  u.for_each_owned([&](std::size_t b, const Point<N>& p, double& x) {
    Point<N> embedded;
    for (std::size_t d = 0; d < N; ++d) embedded[d] = p[d] + mb.offset(b)[d];
    ASSERT_EQ(x, before.find(embedded) ? code(b, p) : 0.0) << "rank " << comm.rank() << " block " << b << " point " << p;
  });
  (void)update_and_check(comm, u);  // the ghosts over the new layout
}

template <std::size_t N>
void random_multiblock_cases(std::uint64_t seed, int cases, index_t max_extent) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(seed);
  long across = 0;  // ghost values the reference takes across an interface (the test must meet many)
  long combined = 0;  // ghosts accumulated into their sources
  for (int k = 0; k < cases; ++k) {
    const MultiblockSetup<N> s = random_setup<N>(rng, comm.size(), max_extent, 4);
    auto g = random_ghosts<N>(rng, 3).periodic_along(Periodicity<N>{});
    SCOPED_TRACE(::testing::Message() << "case " << k << ", " << s.blocks.size() << " blocks, "
                                      << s.interfaces.size() << " interfaces, " << g);
    MultiblockDomain<N> dom(comm, MultiblockLayout<N>(s.blocks, s.interfaces, 3));
    MultiblockArray<double, N> u(dom, g);
    across += update_and_check(comm, u);
    combined += accumulate_and_check(comm, u);
    redistribute_and_check(comm, rng, dom, u);
  }
  EXPECT_GT(comm.sum(static_cast<double>(across)), 5.0 * cases);
  EXPECT_GT(comm.sum(static_cast<double>(combined)), 5.0 * cases);
}

/// Tori of 2^N blocks in random orientations (tests/support/random_multiblock.hpp), each block
/// distributed at random: after a ghost update every ghost cell of every patch — block corners and
/// 3-D edges included, reached through two or three interfaces — holds the torus cell its position
/// wraps to (no ghost is left alone: every vertex is regular); the interfaces' definition
/// (`check_every_stored_value`) agrees; `accumulate_ghosts` adds each ghost into that cell.
template <std::size_t N>
void torus_cases(std::uint64_t seed, int cases) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(seed);
  for (int k = 0; k < cases; ++k) {
    const index_t width = 1 + static_cast<index_t>(rng() % 2);
    const Torus<N> torus = make_torus<N>(rng, 3 + static_cast<index_t>(rng() % 3));
    std::vector<Distribution<N>> blocks;
    for (const Box<N>& box : torus.boxes) blocks.push_back(random_distribution<N>(rng, box, comm.size(), rng() % 2 == 0));
    SCOPED_TRACE(::testing::Message() << "case " << k << ", n = " << torus.n << ", ghosts " << width);
    MultiblockDomain<N> dom(comm, MultiblockLayout<N>(blocks, torus.interfaces, 2));
    MultiblockArray<double, N> u(dom, ghosts<N>(width));
    std::fill(u.array().storage().begin(), u.array().storage().end(), kSentinel);
    u.for_each_owned([](std::size_t b, const Point<N>& p, double& x) { x = code(b, p); });
    u.update_ghosts();
    const MultiblockLayout<N>& mb = dom.layout();
    std::size_t patch = 0;
    for (const auto& layout_patch : u.array().layout().patches()) {
      const std::size_t block = u.block_of_patch(patch++);
      for_each_point(grow(layout_patch.owned_box(), u.ghosts().lower, u.ghosts().upper), [&](const Point<N>& q) {
        const auto [holder, at] = torus.holder(torus.torus_cell(block, q - mb.offset(block)));
        ASSERT_EQ(u.array().storage()[static_cast<std::size_t>(layout_patch.element_offset(q))], code(holder, at))
            << "rank " << comm.rank() << " block " << block << " position " << q - mb.offset(block);
      });
    }
    (void)check_every_stored_value(comm, u);
    (void)accumulate_and_check(comm, u);
  }
}

TEST(MultiblockGhosts, EveryGhostOfATorusOfBlocksCornersIncluded2D) { torus_cases<2>(2300, 12); }
TEST(MultiblockGhosts, EveryGhostOfATorusOfBlocksCornersIncluded3D) { torus_cases<3>(2400, 6); }

TEST(MultiblockGhosts, RandomBlocksAndOrientations2D) { random_multiblock_cases<2>(1600, 30, 7); }
TEST(MultiblockGhosts, RandomBlocksAndOrientations3D) { random_multiblock_cases<3>(1700, 14, 5); }

/// Runs `make` on every rank and expects an Error with `code` whose message contains `words`.
template <class Make>
void expect_error(Make&& make, ErrorCode code, const std::string& words) {
  try {
    make();
    ADD_FAILURE() << "no error; expected one saying '" << words << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

/// A random box inside `box` with the given extents (each at most box's).
template <std::size_t N>
Box<N> place(std::mt19937_64& rng, const Box<N>& box, const Point<N>& extents) {
  Box<N> out;
  for (std::size_t d = 0; d < N; ++d) {
    out.lo[d] = box.lo[d] + static_cast<index_t>(rng() % static_cast<std::uint64_t>(extent(box, d) - extents[d] + 1));
    out.hi[d] = out.lo[d] + extents[d];
  }
  return out;
}

/// PARTI's regular section move between blocks: random boxes, strided half the time (different
/// strides at the two ends), random orientations, into another array or within the same one (every
/// read before any write); every stored value checked.
template <std::size_t N>
void random_section_moves(std::uint64_t seed, int cases, index_t max_extent) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(seed);
  const auto all = all_orientations<N>();
  double total_moved = 0;  // cells the reference says moved (the test must meet many)
  for (int k = 0; k < cases; ++k) {
    const MultiblockSetup<N> s = random_setup<N>(rng, comm.size(), max_extent, 0);
    const auto g = random_ghosts<N>(rng, 2).periodic_along(Periodicity<N>{});
    MultiblockDomain<N> dom(comm, MultiblockLayout<N>(s.blocks, {}, 2));
    const MultiblockLayout<N>& mb = dom.layout();
    const Orientation<N> o = all[rng() % all.size()];
    BlockSection<N> from{rng() % s.blocks.size(), {}}, to{rng() % s.blocks.size(), {}};
    const Box<N>& fb = mb.block_box(from.block);
    const Box<N>& tb = mb.block_box(to.block);
    if (rng() % 2 == 0)  // strided (PARTI's regular sections): every first to third index, per axis
      for (std::size_t d = 0; d < N; ++d) {
        from.stride[d] = 1 + static_cast<index_t>(rng() % 3);
        to.stride[d] = 1 + static_cast<index_t>(rng() % 3);
      }
    Point<N> count;  // points of the destination along each axis, fitting both blocks
    for (std::size_t d = 0; d < N; ++d) {
      const std::size_t e = o.source_axis(d);
      const index_t room = std::min((extent(tb, d) - 1) / to.stride[d], (extent(fb, e) - 1) / from.stride[e]) + 1;
      count[d] = 1 + static_cast<index_t>(rng() % static_cast<std::uint64_t>(room));
    }
    Point<N> size, source_size;  // the boxes: the last point plus up to stride - 1 cells of slack that hold none
    for (std::size_t d = 0; d < N; ++d) {
      const std::size_t e = o.source_axis(d);
      size[d] = std::min(extent(tb, d), (count[d] - 1) * to.stride[d] + 1 + static_cast<index_t>(rng() % static_cast<std::uint64_t>(to.stride[d])));
      source_size[e] = std::min(extent(fb, e), (count[d] - 1) * from.stride[e] + 1 + static_cast<index_t>(rng() % static_cast<std::uint64_t>(from.stride[e])));
    }
    to.box = place(rng, tb, size);
    from.box = place(rng, fb, source_size);
    const bool same = rng() % 3 == 0;
    SCOPED_TRACE(::testing::Message() << "case " << k << ": block " << from.block << " " << from.box << " step "
                                      << from.stride << " -> block " << to.block << " " << to.box << " step "
                                      << to.stride << (same ? " in place" : ""));
    MultiblockArray<double, N> a(dom, g), b(dom, g);
    a.for_each_owned([](std::size_t blk, const Point<N>& p, double& x) { x = code(blk, p); });
    b.for_each_owned([](std::size_t, const Point<N>&, double& x) { x = kSentinel; });
    MultiblockArray<double, N>& dst = same ? a : b;
    for (int round = 0; round < 2; ++round) {  // the second through the kept mover (same values again)
      if (same && round == 1) break;           // in place, a second move would read moved values
      copy_section(a, from, dst, to, o);
    }
    double moved = 0;
    dst.for_each_owned([&](std::size_t blk, const Point<N>& p, double& x) {
      double want = same ? code(blk, p) : kSentinel;
      bool on_section = blk == to.block && contains(to.box, p);
      for (std::size_t d = 0; d < N && on_section; ++d) on_section = (p[d] - to.box.lo[d]) % to.stride[d] == 0;
      if (on_section) {
        const Point<N> counts = section_counts(to);
        Point<N> q;  // the source point, from the definition: point number k along d, counted back if flipped
        for (std::size_t d = 0; d < N; ++d) {
          const std::size_t e = o.source_axis(d);
          const index_t along = (p[d] - to.box.lo[d]) / to.stride[d];
          q[e] = from.box.lo[e] + (o.flipped(d) ? counts[d] - 1 - along : along) * from.stride[e];
        }
        Point<N> embedded;
        for (std::size_t d = 0; d < N; ++d) embedded[d] = q[d] + mb.offset(from.block)[d];
        if (mb.embedded_set().find(embedded)) want = code(from.block, q), moved += 1;
      }
      EXPECT_EQ(x, want) << "rank " << comm.rank() << " block " << blk << " point " << p;
    });
    total_moved += moved;
  }
  EXPECT_GT(comm.sum(total_moved), 0.5 * cases);  // strided sections of small blocks may hold one point
}

TEST(MultiblockSectionMove, RandomBoxesAndOrientations2D) { random_section_moves<2>(1800, 25, 7); }
TEST(MultiblockSectionMove, RandomBoxesAndOrientations3D) { random_section_moves<3>(1900, 12, 5); }

/// Where the definition of an oriented placement sends point x: image axis d runs along source
/// axis perm[d], backwards where flip[d]; box `from`'s lower corner lands on `to`'s lower corner
/// along unflipped axes and on its upper one along flipped axes (affine, so it extends beyond the
/// boxes).
template <std::size_t N>
Point<N> laid_on_by_definition(const std::array<int, N>& perm, const std::array<bool, N>& flip, const Box<N>& from,
                               const Box<N>& to, const Point<N>& x) {
  Point<N> y;
  for (std::size_t d = 0; d < N; ++d) {
    const auto s = static_cast<std::size_t>(perm[d]);
    const index_t along = x[s] - from.lo[s];
    y[d] = flip[d] ? to.hi[d] - 1 - along : to.lo[d] + along;
  }
  return y;
}

/// Checks every value `u` stores (every patch, owned and ghost) after a ghost update of cells
/// holding `code`: owned cells and ghosts inside their block hold their own code, ghosts listed in
/// `glued` (block, point in block coordinates) the value listed, every other cell `kSentinel`.
/// Returns how many ghosts this rank read from `glued`.
template <std::size_t N>
long expect_glued_ghosts(const Communicator& comm, const MultiblockArray<double, N>& u,
                         const std::map<std::pair<std::size_t, Point<N>>, double>& glued) {
  const MultiblockLayout<N>& mb = u.domain().layout();
  long across = 0;
  std::size_t patch = 0;
  for (const auto& layout_patch : u.array().layout().patches()) {
    const std::size_t blk = u.block_of_patch(patch++);
    const Box<N> owned = layout_patch.owned_box();
    for_each_point(grow(owned, u.ghosts().lower, u.ghosts().upper), [&](const Point<N>& q) {
      Point<N> p;  // q in block coordinates
      for (std::size_t d = 0; d < N; ++d) p[d] = q[d] - mb.offset(blk)[d];
      double want = kSentinel;
      if (contains(owned, q) || (in_requested_ghost(owned, u.ghosts(), q) && contains(mb.block_box(blk), p))) {
        want = code(blk, p);
      } else if (in_requested_ghost(owned, u.ghosts(), q)) {
        if (const auto it = glued.find({blk, p}); it != glued.end()) want = it->second, ++across;
      }
      ASSERT_EQ(u.array().storage()[static_cast<std::size_t>(layout_patch.element_offset(q))], want)
          << "rank " << comm.rank() << " block " << blk << " point " << p;
    });
  }
  return across;
}

/// Every orientation through a ghost update and two section moves: block 0 (extents 3, 4, 5 from a
/// shifted corner) and block 1 (the same extents permuted, so that the whole faces fit) glued at a
/// face of block 0 chosen by the case number, block 1's face following from the orientation (its
/// normal axis perm[axis], the same side exactly when flipped). The references come from the
/// definition alone: the glue lays block 1's boundary layer onto the layer just outside block 0's
/// face as `laid_on_by_definition` places one box on another, so a ghost of block 0 holds the cell
/// of block 1 sent onto it and a ghost of block 1 the cell of block 0 its own image lands on; a
/// section move lays its source box on its destination box the same way.
template <std::size_t N>
void every_orientation_case(const Communicator& comm) {
  const int P = comm.size();
  // all_orientations must list 2^N N! different signed permutations, so it lists each one.
  const auto orientations = all_orientations<N>();
  std::set<std::pair<std::array<int, N>, std::array<bool, N>>> distinct;
  for (const auto& o : orientations) distinct.insert({o.perm(), o.flips()});
  ASSERT_EQ(distinct.size(), N == 2 ? 8U : 48U);
  const std::array<index_t, 3> sizes{3, 4, 5}, lo0{1, -2, 0}, lo1{-1, 2, 3};
  for (std::size_t k = 0; k < orientations.size(); ++k) {
    const std::array<int, N>& perm = orientations[k].perm();
    const std::array<bool, N>& flip = orientations[k].flips();
    Box<N> box0, box1;
    for (std::size_t d = 0; d < N; ++d) {
      box0.lo[d] = lo0[d], box0.hi[d] = lo0[d] + sizes[d];
      const auto s = static_cast<std::size_t>(perm[d]);
      box1.lo[s] = lo1[s], box1.hi[s] = lo1[s] + sizes[d];
    }
    const std::size_t axis = k % N;
    const bool upper = (k / N) % 2 == 0;
    const BlockFace<N> a{0, axis, upper, {}};
    const BlockFace<N> b{1, static_cast<std::size_t>(perm[axis]), flip[axis] ? upper : !upper, {}};
    const auto specs_along = [](std::size_t d, const DimSpec& s) {
      std::array<DimSpec, N> specs;
      specs.fill(block());
      specs[d] = s;
      return specs;
    };
    const auto grid_along = [&](std::size_t d) {
      Point<N> shape = Point<N>::filled(1);
      shape[d] = P;
      return ProcGrid<N>::with_shape(P, shape);
    };
    std::vector<Distribution<N>> blocks{Distribution<N>(box0, grid_along(axis), specs_along(axis, block()))};
    if (k % 3 == 0)  // a box set of 2-wide pieces
      blocks.push_back(Distribution<N>::from_box_set(make_box_set(
          box1, chop_boxes(std::vector<Box<N>>{box1}, Point<N>::filled(2)), P, BoxAssignment::morton)));
    else  // cyclic along the normal or a tangential axis
      blocks.push_back(Distribution<N>(box1, grid_along((b.axis + k) % N), specs_along((b.axis + k) % N, cyclic())));
    const GhostSpec<N> g = k % 2 == 0 ? ghosts<N>(1) : ghosts<N>(2).faces_only();
    const index_t width = k % 2 == 0 ? 1 : 2;
    ::testing::Message axes;
    for (std::size_t d = 0; d < N; ++d) axes << (flip[d] ? " -" : " +") << perm[d];
    SCOPED_TRACE(::testing::Message() << "orientation " << k << " (image axes along" << axes << "): block 0 "
                                      << box0 << " axis " << axis << (upper ? " upper" : " lower") << ", block 1 "
                                      << box1 << " axis " << b.axis << (b.upper ? " upper" : " lower") << ", " << g);
    MultiblockDomain<N> dom(comm, MultiblockLayout<N>(blocks, {{a, b, orientations[k]}}));
    // The glue: block 1's boundary layer at its face onto the layer just outside block 0's face.
    const Box<N> layer1 = whole_face(box1, b.axis, b.upper);
    Box<N> outside0 = whole_face(box0, axis, upper);
    outside0.lo[axis] += upper ? 1 : -1;
    outside0.hi[axis] += upper ? 1 : -1;
    std::map<std::pair<std::size_t, Point<N>>, double> glued;
    for_each_point(grow(box1, Point<N>::filled(width), Point<N>::filled(width)), [&](const Point<N>& x) {
      const Point<N> y = laid_on_by_definition<N>(perm, flip, layer1, outside0, x);
      if (contains(box1, x) && !contains(box0, y)) glued[{0, y}] = code(1, x);   // a ghost of block 0
      if (!contains(box1, x) && contains(box0, y)) glued[{1, x}] = code(0, y);   // a ghost of block 1
    });
    MultiblockArray<double, N> u(dom, g);
    std::fill(u.array().storage().begin(), u.array().storage().end(), kSentinel);
    u.for_each_owned([](std::size_t blk, const Point<N>& p, double& x) { x = code(blk, p); });
    u.update_ghosts();
    const double across = comm.sum(static_cast<double>(expect_glued_ghosts(comm, u, glued)));
    // Every ghost beyond the glued faces is met by the patch beside it (and by more where patches
    // are thinner than the ghosts or corners are asked for).
    double face = 1;
    for (std::size_t d = 0; d < N; ++d) face *= d == axis ? 1.0 : static_cast<double>(sizes[d]);
    EXPECT_GE(across, 2 * face * static_cast<double>(width));
    // Section moves into a second array: all of block 1 onto all of block 0 under the orientation,
    // and a corner of block 0 onto the upper corner of block 1 under the inverse (made here).
    std::array<int, N> inverse_perm{};
    std::array<bool, N> inverse_flip{};
    for (std::size_t d = 0; d < N; ++d) {
      inverse_perm[static_cast<std::size_t>(perm[d])] = static_cast<int>(d);
      inverse_flip[static_cast<std::size_t>(perm[d])] = flip[d];
    }
    Box<N> corner0 = box0, corner1 = box1;
    for (std::size_t d = 0; d < N; ++d) corner0.lo[d] += 1;
    for (std::size_t d = 0; d < N; ++d)
      corner1.lo[d] = box1.hi[d] - extent(corner0, static_cast<std::size_t>(inverse_perm[d]));
    std::map<std::pair<std::size_t, Point<N>>, double> moved;
    for_each_point(box1, [&](const Point<N>& x) { moved[{0, laid_on_by_definition<N>(perm, flip, box1, box0, x)}] = code(1, x); });
    for_each_point(corner0, [&](const Point<N>& x) {
      moved[{1, laid_on_by_definition<N>(inverse_perm, inverse_flip, corner0, corner1, x)}] = code(0, x);
    });
    MultiblockArray<double, N> w(dom, g);
    std::fill(w.array().storage().begin(), w.array().storage().end(), kSentinel);
    copy_section(u, {1, box1}, w, {0, box0}, orientations[k]);
    copy_section(u, {0, corner0}, w, {1, corner1}, Orientation<N>(inverse_perm, inverse_flip));
    double landed = 0;
    for_each_stored(w.array().layout(), [&](const PatchLayout<N>& patch, const Point<N>& q, index_t offset, bool owned) {
      const std::size_t blk = w.block_of_patch(static_cast<std::size_t>(&patch - w.array().layout().patches().data()));
      Point<N> p;
      for (std::size_t d = 0; d < N; ++d) p[d] = q[d] - dom.layout().offset(blk)[d];
      double want = kSentinel;  // ghosts are not touched, cells outside the destinations keep theirs
      if (const auto it = moved.find({blk, p}); owned && it != moved.end()) want = it->second, landed += 1;
      ASSERT_EQ(w.array().storage()[static_cast<std::size_t>(offset)], want)
          << "rank " << comm.rank() << " block " << blk << " point " << p << (owned ? "" : " (a ghost)");
    });
    EXPECT_EQ(comm.sum(landed), static_cast<double>(volume(box1) + volume(corner0)));
  }
}

TEST(MultiblockOrientations, EachOfThe8In2DGluesGhostsAndMovesSections) {
  every_orientation_case<2>(Communicator(MPI_COMM_WORLD));
}
TEST(MultiblockOrientations, EachOfThe48In3DGluesGhostsAndMovesSections) {
  every_orientation_case<3>(Communicator(MPI_COMM_WORLD));
}

TEST(MultiblockSectionMove, BadBoxesAreAnErrorOnEveryRank) {
  Communicator comm(MPI_COMM_WORLD);
  const int P = comm.size();
  const Box<2> box({0, 0}, {4, 6});
  const Distribution<2> d(box, ProcGrid<2>::with_shape(P, {P, 1}), {block(), block()});
  MultiblockDomain<2> dom(comm, MultiblockLayout<2>({d, d}, {}));
  MultiblockArray<double, 2> u(dom, ghosts<2>(1)), w(dom, ghosts<2>(1));
  const Orientation<2> turn({1, 0}, {false, true});
  expect_error([&] { copy_section(u, {0, Box<2>({0, 0}, {2, 3})}, w, {1, Box<2>({0, 0}, {2, 3})}, turn); },
               ErrorCode::invalid_argument, "which the orientation lays onto it");
  expect_error([&] { copy_section(u, {0, Box<2>({0, 0}, {5, 3})}, w, {1, Box<2>({0, 0}, {5, 3})}); },
               ErrorCode::out_of_range, "is not inside block 0");
  expect_error([&] { copy_section(u, {0, box}, w, {2, box}); }, ErrorCode::out_of_range, "names block 2");
  expect_error([&] { copy_section(u, {0, box, {1, 0}}, w, {1, box}); }, ErrorCode::invalid_argument, "must be >= 1");
  // Every second row of 4 is 2 rows, every second column of 6 is 3: 2 x 3 does not go onto 4 x 3.
  expect_error([&] { copy_section(u, {0, box, {2, 2}}, w, {1, Box<2>({0, 0}, {4, 3})}); }, ErrorCode::invalid_argument,
               "with stride (2, 2) has 2 along axis 0");
  MultiblockDomain<2> other(comm, MultiblockLayout<2>({d}, {}));
  MultiblockArray<double, 2> x(other, ghosts<2>(1));
  expect_error([&] { copy_section(u, {0, box}, x, {0, box}); }, ErrorCode::invalid_argument, "different domains");
}

// Long rows laid down in reverse order: two 80 x 80 blocks on different ranks glued at their upper
// faces of axis 0 (the normal flipped), two ghost layers, so each interface message is rows of 80
// doubles that the receiver lays down with a negative row stride, as an MPI datatype (rows of 512
// bytes or more travel so); then the same with the tangential axis reversed too (packed rows).
TEST(MultiblockGhosts, LongReversedRowsArriveInPlace) {
  Communicator comm(MPI_COMM_WORLD);
  const int P = comm.size();
  const Box<2> box({0, 0}, {80, 80});
  const auto on = [&](int rank) { return Distribution<2>(box, ProcGrid<2>::from_ranks(P, {1, 1}, {rank}), {block(), block()}); };
  for (bool reverse_rows : {false, true}) {
    const BlockInterface<2> glue{{0, 0, true, {}}, {1, 0, true, {}}, Orientation<2>({0, 1}, {true, reverse_rows})};
    MultiblockDomain<2> dom(comm, MultiblockLayout<2>({on(0), on(P - 1)}, {glue}));
    MultiblockArray<double, 2> u(dom, ghosts<2>(2).faces_only());
    EXPECT_EQ(comm.sum(static_cast<double>(update_and_check(comm, u))), 2.0 * 2 * 80);
  }
}

/// Every stored value of `a` (owned and ghost, every patch) equals `b`'s.
template <class T, std::size_t N>
void expect_same_storage(const MultiblockArray<T, N>& a, const MultiblockArray<T, N>& b, const char* what) {
  ASSERT_EQ(a.array().storage().size(), b.array().storage().size()) << what;
  for (std::size_t e = 0; e < a.array().storage().size(); ++e)
    ASSERT_EQ(a.array().storage()[e], b.array().storage()[e]) << what << " element " << e;
}

// update_ghosts(u, v, w) of three element types, on random layouts small enough to fuse and on one
// whose messages are too big to (each array then moves on its own): every stored value as three
// separate updates leave it, and the double array's against the interfaces' definition.
TEST(MultiblockGhosts, SeveralArraysInOneUpdate) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(2100);
  for (int k = 0; k < 12; ++k) {
    // The last case: two 40 x 1000 blocks glued along their long faces, two ghost layers: 40 KB of
    // the three arrays per face message, beyond the fusing limit.
    const bool large = k == 11;
    MultiblockSetup<2> s = random_setup<2>(rng, comm.size(), 7, 3);
    if (large) {
      const Box<2> box({0, 0}, {40, 1000});
      const Distribution<2> rows(box, ProcGrid<2>::with_shape(comm.size(), {comm.size(), 1}), {block(), block()});
      s.blocks = {rows, rows};
      s.interfaces = {{{0, 0, true, {}}, {1, 0, false, {}}, Orientation<2>()}};
    }
    const GhostSpec<2> g = large ? ghosts<2>(2) : random_ghosts<2>(rng, 3).periodic_along(Periodicity<2>{});
    SCOPED_TRACE(::testing::Message() << "case " << k << ", " << s.blocks.size() << " blocks, " << g);
    MultiblockDomain<2> dom(comm, MultiblockLayout<2>(s.blocks, s.interfaces, 3));
    MultiblockArray<double, 2> u(dom, g), u1(dom, g);
    MultiblockArray<float, 2> v(dom, g), v1(dom, g);
    MultiblockArray<std::int64_t, 2> w(dom, g), w1(dom, g);
    for (auto* a : {&u, &u1}) {
      std::fill(a->array().storage().begin(), a->array().storage().end(), kSentinel);
      a->for_each_owned([](std::size_t b, const Point<2>& p, double& x) { x = code(b, p); });
    }
    for (auto* a : {&v, &v1}) a->for_each_owned([](std::size_t b, const Point<2>& p, float& x) { x = static_cast<float>(b * 1000 + static_cast<std::size_t>(p[0] * 31 + p[1] + 500)); });
    for (auto* a : {&w, &w1}) a->for_each_owned([](std::size_t b, const Point<2>& p, std::int64_t& x) { x = -static_cast<std::int64_t>(code(b, p)); });
    for (int round = 0; round < 2; ++round) update_ghosts(u, v, w);  // the second through the kept executor
    u1.update_ghosts();
    v1.update_ghosts();
    w1.update_ghosts();
    expect_same_storage(u, u1, "double");
    expect_same_storage(v, v1, "float");
    expect_same_storage(w, w1, "int64");
    (void)check_every_stored_value(comm, u);
  }
}

TEST(MultiblockGhosts, SeveralArraysOfOtherDomainsOrGhostsAreRefused) {
  Communicator comm(MPI_COMM_WORLD);
  const int P = comm.size();
  const Box<2> box({0, 0}, {6, 6});
  const std::vector<Distribution<2>> blocks{Distribution<2>(box, ProcGrid<2>::with_shape(P, {P, 1}), {block(), block()})};
  const BlockInterface<2> wrap{{0, 1, true, {}}, {0, 1, false, {}}, Orientation<2>()};
  MultiblockDomain<2> one(comm, MultiblockLayout<2>(blocks, {wrap})), other(comm, MultiblockLayout<2>(blocks, {wrap}));
  MultiblockArray<double, 2> u(one, ghosts<2>(1)), v(one, ghosts<2>(1)), thin(one, ghosts<2>(1).faces_only()),
      elsewhere(other, ghosts<2>(1));
  expect_error([&] { update_ghosts(u, elsewhere); }, ErrorCode::invalid_argument, "over another multiblock domain");
  expect_error([&] { update_ghosts(u, thin); }, ErrorCode::invalid_argument, "other ghosts");
  v.begin_update_ghosts();
  expect_error([&] { update_ghosts(u, v); }, ErrorCode::invalid_argument, "in flight");
  v.end_update_ghosts();
  // The embedded domain moved to two boxes of rank 0: no longer the layout (on any rank count).
  const Box<2> all = one.layout().embedded_box(0);
  Box<2> left = all, right = all;
  left.hi[1] = right.lo[1] = all.lo[1] + 3;
  one.domain().redistribute(
      Distribution<2>::from_box_set(BoxSet<2>(one.layout().embedded().domain(), {left, right}, {0, 0}, P)));
  expect_error([&] { update_ghosts(u, v); }, ErrorCode::invalid_argument, "redistributed away");
}

// Two 4 x 4 blocks on one rank, glued end to end, ghosts as wide as the gap between them in the
// embedding: block 0's upper ghost rows and block 1's lower ones are the same embedded indices, and
// at(b, p) must read block b's own patch.
TEST(MultiblockGhosts, AtReadsTheBlocksOwnGhostsWhereBlocksShareTheGap) {
  Communicator comm(MPI_COMM_WORLD);
  const int last = comm.size() - 1;
  const Box<2> box({0, 0}, {4, 4});
  const Distribution<2> on_last(box, ProcGrid<2>::from_ranks(comm.size(), {1, 1}, {last}), {block(), block()});
  const BlockInterface<2> glue{{0, 0, true, {}}, {1, 0, false, {}}, Orientation<2>()};
  MultiblockDomain<2> dom(comm, MultiblockLayout<2>({on_last, on_last}, {glue}, 2));
  MultiblockArray<double, 2> u(dom, ghosts<2>(2).faces_only());
  u.for_each_owned([](std::size_t b, const Point<2>& p, double& x) { x = code(b, p); });
  u.update_ghosts();
  if (comm.rank() == last) {
    for (index_t j = 0; j < 4; ++j)
      for (index_t depth = 1; depth <= 2; ++depth) {
        EXPECT_EQ(u.at(0, {3 + depth, j}), code(1, Point<2>{depth - 1, j})) << "block 0, depth " << depth;
        EXPECT_EQ(u.at(1, {-depth, j}), code(0, Point<2>{4 - depth, j})) << "block 1, depth " << depth;
      }
    expect_error([&] { (void)u.at(2, {0, 0}); }, ErrorCode::out_of_range, "block 2 does not exist");
    expect_error([&] { (void)u.at(0, {0, 7}); }, ErrorCode::out_of_range, "not stored on rank");
  } else {
    expect_error([&] { (void)u.at(0, {0, 0}); }, ErrorCode::out_of_range, "not stored on rank");
  }
}

TEST(MultiblockGhosts, TheScheduleIsBuiltOnceAndKept) {
  Communicator comm(MPI_COMM_WORLD);
  const int P = comm.size();
  const Box<2> box({0, 0}, {6, 6});
  std::vector<Distribution<2>> blocks{Distribution<2>(box, ProcGrid<2>::with_shape(P, {P, 1}), {block(), block()}),
                                      Distribution<2>(box, ProcGrid<2>::with_shape(P, {1, P}), {block(), block()})};
  // b's lower face of axis 0 onto a's upper face of axis 1, a quarter turn with a flip.
  const BlockInterface<2> glue{{0, 1, true, {}}, {1, 0, false, {}}, Orientation<2>({1, 0}, {true, false})};
  MultiblockDomain<2> dom(comm, MultiblockLayout<2>(blocks, {glue}));
  const auto& mb = dom.layout();
  const auto first = multiblock_ghost_schedule(mb, ghosts<2>(1), comm.rank(), &dom.domain().cache());
  const auto again = multiblock_ghost_schedule(mb, ghosts<2>(1), comm.rank(), &dom.domain().cache());
  EXPECT_EQ(first.get(), again.get());
}

// A section move's schedule and mover are built by the first copy_section and found by every later
// one with the same sections (PARTI's schedules, built once and reused): the domain's exchange cache
// counts one schedule and one mover made, then only hits, and the later moves write what the first did.
TEST(MultiblockSectionMove, TheScheduleIsBuiltOnceAndKept) {
  Communicator comm(MPI_COMM_WORLD);
  const int P = comm.size();
  const Box<2> box({0, 0}, {6, 6});
  const std::vector<Distribution<2>> blocks{Distribution<2>(box, ProcGrid<2>::with_shape(P, {P, 1}), {block(), block()}),
                                            Distribution<2>(box, ProcGrid<2>::with_shape(P, {1, P}), {block(), block()})};
  MultiblockDomain<2> dom(comm, MultiblockLayout<2>(blocks, {}));
  MultiblockArray<double, 2> u(dom, ghosts<2>(1)), w(dom, ghosts<2>(1));
  u.for_each_owned([](std::size_t b, const Point<2>& p, double& x) { x = code(b, p); });
  // Every second row of rows 0-3, columns 1-5 of block 0, turned onto 5 x 2 cells of block 1.
  const BlockSection<2> from{0, Box<2>({0, 1}, {4, 6}), {2, 1}}, to{1, Box<2>({1, 0}, {6, 2})};
  const Orientation<2> turn({1, 0}, {false, true});
  ExchangeCache& cache = dom.domain().cache();
  const ExchangeCacheStats before = cache.stats();
  std::fill(w.array().storage().begin(), w.array().storage().end(), kSentinel);
  copy_section(u, from, w, to, turn);
  const ExchangeCacheStats built = cache.stats();
  EXPECT_EQ(built.schedule_misses, before.schedule_misses + 1);
  EXPECT_EQ(built.executor_misses, before.executor_misses + 1);
  EXPECT_EQ(built.schedules, before.schedules + 1);
  EXPECT_EQ(built.executors, before.executors + 1);
  const std::vector<double> first_result(w.array().storage().begin(), w.array().storage().end());
  double moved = 0;
  for (const double x : first_result) moved += x != kSentinel ? 1 : 0;
  EXPECT_EQ(comm.sum(moved), 10.0);
  for (int round = 0; round < 3; ++round) {
    std::fill(w.array().storage().begin(), w.array().storage().end(), kSentinel);
    copy_section(u, from, w, to, turn);
    long differ = 0;  // counted, not asserted: every rank must go on to the next collective move
    for (std::size_t e = 0; e < first_result.size(); ++e) differ += w.array().storage()[e] != first_result[e] ? 1 : 0;
    EXPECT_EQ(differ, 0) << "round " << round;
  }
  const ExchangeCacheStats kept = cache.stats();
  EXPECT_EQ(kept.schedule_misses, built.schedule_misses);  // no schedule built again ...
  EXPECT_EQ(kept.executor_misses, built.executor_misses);  // ... nor a mover
  EXPECT_EQ(kept.executor_hits, built.executor_hits + 3);
  EXPECT_EQ(kept.schedules, built.schedules);
  EXPECT_EQ(kept.executors, built.executors);
  // The kept schedule is the one the builder finds for these sections; other sections are another.
  const MultiblockLayout<2>& mb = dom.layout();
  const auto found = multiblock_section_move_schedule(mb, u.ghosts(), from, w.ghosts(), to, turn, comm.rank(), &cache);
  const auto again = multiblock_section_move_schedule(mb, u.ghosts(), from, w.ghosts(), to, turn, comm.rank(), &cache);
  EXPECT_EQ(found.get(), again.get());
  EXPECT_EQ(cache.stats().schedule_misses, kept.schedule_misses);
  copy_section(u, {0, box}, w, {1, box});
  EXPECT_EQ(cache.stats().schedule_misses, kept.schedule_misses + 1);
}

TEST(MultiblockBadInput, EveryRankGetsTheSameError) {
  Communicator comm(MPI_COMM_WORLD);
  const int P = comm.size();
  const auto on = [&](const Box<2>& box) { return Distribution<2>(box, ProcGrid<2>::with_shape(P, {P, 1}), {block(), block()}); };
  const std::vector<Distribution<2>> blocks{on(Box<2>({0, 0}, {4, 4})), on(Box<2>({0, 0}, {4, 5}))};
  const Orientation<2> same;  // identity: a's upper face of axis 0 onto b's lower face
  const auto layout = [&](std::vector<BlockInterface<2>> in) { return MultiblockLayout<2>(blocks, std::move(in)); };
  expect_error([&] { (void)layout({{{0, 0, true, {}}, {1, 0, false, {}}, same}}); }, ErrorCode::invalid_argument,
               "differ in size");
  expect_error([&] { (void)Orientation<2>({1, 1}, {false, false}); }, ErrorCode::invalid_argument,
               "not a permutation");
  expect_error([&] { (void)layout({{{0, 0, true, Box<2>({1, 0}, {2, 4})}, {1, 0, false, Box<2>({0, 0}, {1, 4})}, same}}); },
               ErrorCode::invalid_argument, "not on the upper boundary");
  expect_error([&] { (void)layout({{{0, 0, true, {}}, {7, 0, false, {}}, same}}); }, ErrorCode::out_of_range,
               "names block 7");
  expect_error([&] { (void)layout({{{0, 2, true, {}}, {1, 0, false, {}}, same}}); }, ErrorCode::invalid_argument,
               "names axis 2");
  const BlockFace<2> b_part{1, 0, false, Box<2>({0, 0}, {1, 4})};
  expect_error([&] { (void)layout({{{0, 0, true, {}}, b_part, same}, {{0, 1, false, {}}, {1, 0, false, Box<2>({0, 1}, {1, 5})}, Orientation<2>({1, 0}, {false, true})}}); },
               ErrorCode::invalid_argument, "overlap");
  expect_error([&] { (void)layout({{{0, 0, true, {}}, b_part, Orientation<2>({1, 0}, {false, false})}}); },
               ErrorCode::invalid_argument, "not along b's normal axis");
  expect_error([&] { (void)layout({{{0, 0, true, {}}, b_part, Orientation<2>({0, 1}, {true, false})}}); },
               ErrorCode::invalid_argument, "must not be flipped");
  // Good layouts, bad arrays or communicators.
  const MultiblockLayout<2> good = layout({{{0, 0, true, {}}, b_part, same}});
  MultiblockDomain<2> dom(comm, good);
  expect_error([&] { MultiblockArray<double, 2> u(dom, ghosts<2>(5)); }, ErrorCode::invalid_argument,
               "exceeds the layout's max_ghost_width");
  expect_error([&] { MultiblockArray<double, 2> u(dom, ghosts<2>(1).periodic_along({true, false})); },
               ErrorCode::invalid_argument, "periodic");
  {  // split phase: one update at a time, an end needs a begin, no accumulate or redistribution meanwhile
    MultiblockArray<double, 2> u(dom, ghosts<2>(1));
    expect_error([&] { u.end_update_ghosts(); }, ErrorCode::invalid_argument, "no ghost update is in flight");
    u.begin_update_ghosts();
    expect_error([&] { u.begin_update_ghosts(); }, ErrorCode::invalid_argument, "already in flight");
    expect_error([&] { u.accumulate_ghosts(); }, ErrorCode::invalid_argument, "in flight");
    const std::uint64_t embedded = dom.domain().distribution().hash();
    const Distribution<2> elsewhere(dom.domain().box(), ProcGrid<2>::with_shape(P, {1, P}), {block(), block()});
    expect_error([&] { dom.domain().redistribute(elsewhere); }, ErrorCode::invalid_argument, "ghost update in flight");
    EXPECT_TRUE(u.ghost_update_in_flight());
    u.end_update_ghosts();
    EXPECT_EQ(dom.domain().distribution().hash(), embedded);  // nothing moved
  }
  {  // a multiblock redistribution that cannot be: nothing changes
    MultiblockDomain<2> moving(comm, good);
    const std::uint64_t before = moving.layout().hash();
    expect_error([&] { moving.redistribute({blocks[0]}); }, ErrorCode::invalid_argument, "1 blocks given, the layout has 2");
    expect_error([&] { moving.redistribute({blocks[1], blocks[0]}); }, ErrorCode::invalid_argument,
                 "a redistribution keeps the blocks' boxes");
    const auto wider = [&](const Box<2>& box) {
      return Distribution<2>(box, ProcGrid<2>::with_shape(P + 1, {P + 1, 1}), {block(), block()});
    };
    expect_error([&] { moving.redistribute({wider(blocks[0].domain()), wider(blocks[1].domain())}); },
                 ErrorCode::invalid_argument, "the communicator has");
    MultiblockArray<double, 2> u(moving, ghosts<2>(1));
    u.begin_update_ghosts();
    expect_error([&] { moving.redistribute({blocks[0], blocks[1]}); }, ErrorCode::invalid_argument,
                 "ghost update in flight");
    u.end_update_ghosts();
    EXPECT_EQ(moving.layout().hash(), before);
    EXPECT_EQ(moving.domain().distribution().hash(), moving.layout().embedded().hash());
  }
  {  // the embedded domain redistributed behind the layout's back: the update refuses
    MultiblockDomain<2> moved(comm, good);
    MultiblockArray<double, 2> u(moved, ghosts<2>(1));
    const Box<2> all = moved.domain().box();
    moved.domain().redistribute(Distribution<2>(all, ProcGrid<2>::with_shape(P, {1, P}), {block(), block()}));
    expect_error([&] { u.update_ghosts(); }, ErrorCode::invalid_argument, "redistributed away");
    expect_error([&] { u.begin_update_ghosts(); }, ErrorCode::invalid_argument, "redistributed away");
    expect_error([&] { u.accumulate_ghosts(CombineOp::max); }, ErrorCode::invalid_argument, "redistributed away");
    EXPECT_FALSE(u.ghost_update_in_flight());
  }
  const std::vector<Distribution<2>> other{Distribution<2>(Box<2>({0, 0}, {4, 4}), ProcGrid<2>::with_shape(P + 1, {P + 1, 1}), {block(), block()})};
  expect_error([&] { MultiblockDomain<2> d(comm, MultiblockLayout<2>(other, {})); }, ErrorCode::invalid_argument,
               "the communicator has");
}

}  // namespace
}  // namespace tessera
