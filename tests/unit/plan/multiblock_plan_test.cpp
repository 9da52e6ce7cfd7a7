// The multiblock schedules' plans over up to 8 simulated ranks, without MPI: every rank computes
// its interface copies (and section-move copies) alone, and what rank r lists as going to rank q
// must be exactly, in the same order, what q lists as coming from r; every ghost cell an
// interface reaches is written once per patch; bad layouts are errors.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <tuple>
#include <type_traits>
#include <vector>

#include "random_multiblock.hpp"
#include "tessera/plan/multiblock_plan.hpp"
#include "tessera/plan/multiblock_section_move.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

template <std::size_t N, class CopiesOf>
void expect_both_sides_agree(int ranks, CopiesOf&& copies_of) {
  // The copies between each ordered pair of ranks, as each rank lists them: (lister, src, dst).
  using Copy = typename std::decay_t<decltype(copies_of(0))>::value_type;
  std::map<std::tuple<int, int, int>, std::vector<Copy>> lists;
  for (int r = 0; r < ranks; ++r)
    for (const auto& c : copies_of(r)) {
      ASSERT_TRUE(c.src_rank == r || c.dst_rank == r) << "rank " << r << " lists a copy it takes no part in";
      lists[{r, c.src_rank, c.dst_rank}].push_back(c);
    }
  for (int r = 0; r < ranks; ++r)
    for (int q = 0; q < ranks; ++q) {
      if (q == r) continue;
      const auto sent = lists[{r, r, q}], received = lists[{q, r, q}];
      EXPECT_EQ(sent, received) << "rank " << r << " -> rank " << q;
    }
}

/// How many axes p lies outside `box` along.
template <std::size_t N>
int axes_outside(const Box<N>& box, const Point<N>& p) {
  int n = 0;
  for (std::size_t d = 0; d < N; ++d) n += p[d] < box.lo[d] || p[d] >= box.hi[d] ? 1 : 0;
  return n;
}

template <std::size_t N>
void interface_plans_agree(std::uint64_t seed, int cases, index_t max_extent) {
  std::mt19937_64 rng(seed);
  long corner_cells = 0;  // ghosts beyond two faces or more that some path filled (the test must meet them)
  for (int k = 0; k < cases; ++k) {
    const int ranks = 2 + static_cast<int>(rng() % 7);
    const MultiblockSetup<N> s = random_setup<N>(rng, ranks, max_extent, 4);
    const auto g = random_ghosts<N>(rng, 3).periodic_along(Periodicity<N>{});
    SCOPED_TRACE(::testing::Message() << "case " << k << ", " << ranks << " ranks, " << g);
    const MultiblockLayout<N> mb(s.blocks, s.interfaces, 3);
    expect_both_sides_agree<N>(ranks, [&](int r) { return interface_copies(mb, g, r); });
    // Each destination cell of a patch is written once, and lies outside its block.
    for (int r = 0; r < ranks; ++r) {
      std::set<std::pair<int, std::vector<index_t>>> written;
      for (const auto& c : interface_copies(mb, g, r)) {
        if (c.dst_rank != r) continue;
        EXPECT_EQ(volume(c.src), volume(c.dst));
        for_each_point(c.dst, [&](const Point<N>& p) {
          const Box<N> home = mb.embedded_box(mb.sides()[c.side].ghost_block);
          EXPECT_FALSE(contains(home, p));
          corner_cells += axes_outside(home, p) >= 2 ? 1 : 0;
          std::vector<index_t> key;
          for (std::size_t d = 0; d < N; ++d) key.push_back(p[d]);
          EXPECT_TRUE(written.insert({c.dst_patch, key}).second) << "cell " << p << " written twice";
        });
      }
    }
  }
  EXPECT_GT(corner_cells, 0);
}

/// Tori of 2^N blocks in random orientations (tests/support/random_multiblock.hpp), every block
/// distributed at random over 1-8 simulated ranks, ghosts 1-2 wide with corners: the copies into
/// each rank's patches fill every ghost cell outside its block exactly once — corners and 3-D edges
/// through two or three interfaces — each from the torus cell the ghost's position wraps to, the
/// source's offsets laid on the ghost's by the copy's orientation; both sides of every pair agree.
template <std::size_t N>
void torus_ghosts_come_from_the_cells_they_wrap_to(std::uint64_t seed, int cases) {
  std::mt19937_64 rng(seed);
  long beyond_two = 0;
  for (int k = 0; k < cases; ++k) {
    const int ranks = 1 + static_cast<int>(rng() % 8);
    const index_t width = 1 + static_cast<index_t>(rng() % 2);
    const Torus<N> torus = make_torus<N>(rng, 2 + static_cast<index_t>(rng() % 4));
    std::vector<Distribution<N>> blocks;
    for (const Box<N>& box : torus.boxes) blocks.push_back(random_distribution<N>(rng, box, ranks, rng() % 2 == 0));
    const MultiblockLayout<N> mb(blocks, torus.interfaces, 2);
    const GhostSpec<N> g = ghosts<N>(width);
    SCOPED_TRACE(::testing::Message() << "case " << k << ", " << ranks << " ranks, n = " << torus.n << ", " << g);
    expect_both_sides_agree<N>(ranks, [&](int r) { return interface_copies(mb, g, r); });
    const BoxSet<N>& set = mb.embedded_set();
    for (int r = 0; r < ranks; ++r) {
      std::map<int, std::size_t> box_of_patch;
      for (std::size_t c : set.boxes_of(r)) box_of_patch[set.patch_of(c)] = c;
      std::map<std::pair<int, std::vector<index_t>>, int> written;
      for (const auto& c : interface_copies(mb, g, r)) {
        if (c.dst_rank != r) continue;
        const std::size_t to = mb.block_of_box(box_of_patch.at(c.dst_patch));
        const std::size_t from = mb.block_at(c.src.lo);
        const auto lay = OrientedMap<N>::onto(c.orientation, c.src, c.dst);
        ASSERT_EQ(lay.map(c.src), c.dst);
        for_each_point(c.src, [&](const Point<N>& x) {
          const Point<N> y = lay.map(x);
          const Point<N> p = y - mb.offset(to), q = x - mb.offset(from);
          ASSERT_EQ(torus.torus_cell(to, p), torus.torus_cell(from, q)) << "ghost " << p << " of block " << to;
          std::vector<index_t> key(y.coord.begin(), y.coord.end());
          ++written[{c.dst_patch, key}];
        });
      }
      for (const auto& [patch, c] : box_of_patch) {
        const Box<N> home = mb.embedded_box(mb.block_of_box(c));
        for_each_point(grow(set.box(c), g.lower, g.upper), [&](const Point<N>& y) {
          if (contains(home, y)) return;
          std::vector<index_t> key(y.coord.begin(), y.coord.end());
          const auto it = written.find({patch, key});
          ASSERT_TRUE(it != written.end() && it->second == 1)
              << "ghost " << y << " of rank " << r << "'s patch " << patch << " written "
              << (it == written.end() ? 0 : it->second) << " times";
          beyond_two += axes_outside(home, y) >= 2 ? 1 : 0;
        });
      }
    }
  }
  EXPECT_GT(beyond_two, cases);
}

TEST(MultiblockPlan, TorusGhostsComeFromTheCellsTheyWrapTo2D) { torus_ghosts_come_from_the_cells_they_wrap_to<2>(800, 30); }
TEST(MultiblockPlan, TorusGhostsComeFromTheCellsTheyWrapTo3D) { torus_ghosts_come_from_the_cells_they_wrap_to<3>(900, 12); }

TEST(MultiblockPlan, BothSidesOfEveryPairListTheSameInterfaceCopies2D) { interface_plans_agree<2>(500, 40, 8); }
TEST(MultiblockPlan, BothSidesOfEveryPairListTheSameInterfaceCopies3D) { interface_plans_agree<3>(600, 20, 5); }

TEST(MultiblockPlan, BothSidesOfEveryPairListTheSameSectionMoveCopies) {
  std::mt19937_64 rng(700);
  const auto all = all_orientations<2>();
  for (int k = 0; k < 40; ++k) {
    const int ranks = 2 + static_cast<int>(rng() % 7);
    const MultiblockSetup<2> s = random_setup<2>(rng, ranks, 8, 0);
    const MultiblockLayout<2> mb(s.blocks, {});
    const Orientation<2> o = all[rng() % all.size()];
    // Strided half the time: every first, second or third index along each axis, at both ends.
    const bool strided = rng() % 2 == 0;
    const auto random_stride = [&] { return strided ? Point<2>{1 + static_cast<index_t>(rng() % 3), 1 + static_cast<index_t>(rng() % 3)} : Point<2>::filled(1); };
    const BlockSection<2> from{0, mb.block_box(0), random_stride()};
    const Box<2>& whole = mb.block_box(0);
    BlockSection<2> to{0, {}, random_stride()};
    const Point<2> count = section_counts(from);
    to.box = whole;
    for (std::size_t d = 0; d < 2; ++d) to.box.hi[d] = whole.lo[d] + (count[o.source_axis(d)] - 1) * to.stride[d] + 1;
    if (!contains(whole, to.box)) continue;  // a non-square block turned does not fit itself
    SCOPED_TRACE(::testing::Message() << "case " << k << ", " << ranks << " ranks");
    expect_both_sides_agree<2>(ranks, [&](int r) { return section_move_copies(mb, from, to, o, r); });
  }
}

TEST(MultiblockPlan, LayoutsAreValidatedBeforeAnythingIsBuilt) {
  const Distribution<2> d(Box<2>({0, 0}, {4, 4}), ProcGrid<2>::with_shape(2, {2, 1}), {block(), block()});
  const Distribution<2> other(Box<2>({0, 0}, {4, 4}), ProcGrid<2>::with_shape(3, {3, 1}), {block(), block()});
  EXPECT_THROW(MultiblockLayout<2>({}, {}), Error);                // no block
  EXPECT_THROW(MultiblockLayout<2>({d, other}, {}), Error);        // two communicator sizes
  EXPECT_THROW(MultiblockLayout<2>({d}, {}, -1), Error);           // a negative gap
  const BlockInterface<2> self{{0, 0, true, {}}, {0, 0, false, {}}, Orientation<2>()};  // periodic along 0
  const MultiblockLayout<2> ring({d}, {self});
  EXPECT_EQ(ring.sides().size(), 2U);
  EXPECT_THROW(MultiblockLayout<2>({d}, {self, self}), Error);     // the same faces twice
}

}  // namespace
}  // namespace tessera
