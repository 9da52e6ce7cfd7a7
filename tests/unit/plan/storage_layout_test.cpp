// StorageLayout without MPI: where a rank's patches lie in its buffer, how each axis maps global
// indices to local ones (intervals with ghost layers, compacted cyclic axes), which patch a
// section belongs to, and which ghost requests are refused. The random cases compare every stored
// element's offset with a row-major count written out here, independently of the layout's own.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <string>

#include "engine_checks.hpp"
#include "tessera/plan/storage_layout.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

template <std::size_t N>
Distribution<N> block_distribution(const Box<N>& domain, const Point<N>& grid_shape) {
  const auto grid = ProcGrid<N>::with_shape(static_cast<int>(volume(Box<N>::from_extents(grid_shape))), grid_shape);
  std::array<DimSpec, N> specs;
  specs.fill(block());
  return Distribution<N>(domain, grid, specs);
}

/// Row-major strides of extents `e`, counted here rather than taken from the layout.
template <std::size_t N>
Point<N> row_major_strides(const Point<N>& e) {
  Point<N> s;
  index_t stride = 1;
  for (std::size_t d = N; d-- > 0;) {
    s[d] = stride;
    stride *= e[d];
  }
  return s;
}

TEST(StorageLayout, TheHeaderExampleStoresSevenBySevenWithTheCornerOwnedPointAtOffsetEight) {
  const auto dist = block_distribution<2>(Box<2>({0, 0}, {10, 10}), {2, 2});
  const auto layout = StorageLayout<2>::make(dist, 3, ghosts<2>(1));
  ASSERT_EQ(layout.patches().size(), 1u);
  const auto& p = layout.patches()[0];
  EXPECT_EQ(p.extents(), (Point<2>{7, 7}));
  EXPECT_EQ(p.strides, (Point<2>{7, 1}));
  EXPECT_EQ(p.offset, 0);
  EXPECT_EQ(p.size, 49);
  EXPECT_EQ(layout.size(), 49);
  EXPECT_EQ(p.element_offset({5, 5}), 8);
  EXPECT_EQ(p.element_offset({4, 4}), 0);    // the ghost corner below
  EXPECT_EQ(p.element_offset({10, 10}), 48);  // the ghost corner above (outside the domain: layers are not clipped)
  EXPECT_EQ(p.owned_box(), Box<2>({5, 5}, {10, 10}));
  EXPECT_EQ(p.storage_box(), Box<2>({4, 4}, {11, 11}));
}

TEST(StorageLayout, GhostWidthsMayDifferPerSideAndPerAxis) {
  // Rows [2, 12) over two ranks, columns [-3, 5) on one; ghosts 2 below and 1 above along the
  // rows, none below and 3 above along the columns.
  const auto dist = block_distribution<2>(Box<2>({2, -3}, {12, 5}), {2, 1});
  const auto g = GhostSpec<2>::sides({2, 0}, {1, 3});
  const auto layout = StorageLayout<2>::make(dist, 1, g);
  ASSERT_EQ(layout.patches().size(), 1u);
  const auto& p = layout.patches()[0];
  const AxisMap& rows = p.axes[0];
  const AxisMap& cols = p.axes[1];
  EXPECT_TRUE(rows.is_interval());
  EXPECT_EQ(rows.first, 7);
  EXPECT_EQ(rows.count, 5);
  EXPECT_EQ(rows.ghost_lo, 2);
  EXPECT_EQ(rows.ghost_hi, 1);
  EXPECT_EQ(rows.extent(), 8);
  EXPECT_EQ(cols.first, -3);
  EXPECT_EQ(cols.count, 8);
  EXPECT_EQ(cols.ghost_lo, 0);
  EXPECT_EQ(cols.ghost_hi, 3);
  EXPECT_EQ(cols.extent(), 11);
  EXPECT_EQ(p.strides, (Point<2>{11, 1}));
  EXPECT_EQ(layout.size(), 88);
  EXPECT_EQ(p.element_offset({7, -3}), 2 * 11);      // first owned element: after two ghost rows
  EXPECT_EQ(p.element_offset({5, 7}), 10);           // lowest ghost row, last ghost column
  EXPECT_EQ(p.element_offset({12, 7}), 7 * 11 + 10);  // the last element of the buffer
  EXPECT_EQ(rows.local(7), 2);
  EXPECT_EQ(rows.global(0), 5);
  EXPECT_EQ(p.storage_box(), Box<2>({5, -3}, {13, 8}));
  const auto ghost_rows = Section<2>::from_box(Box<2>({5, -3}, {7, 5}));
  EXPECT_TRUE(p.stores(ghost_rows));
  EXPECT_FALSE(p.owns(ghost_rows));
  EXPECT_FALSE(p.stores(Section<2>::from_box(Box<2>({4, 0}, {6, 1}))));  // one row below the ghosts
  EXPECT_TRUE(p.owns(Section<2>::from_box(Box<2>({7, -3}, {12, 5}))));
}

TEST(StorageLayout, CyclicAxesAreCompactedAndHaveNoGhosts) {
  // Rows block over 2, columns [0, 10) cyclic over 3: rank at position (0, 1) owns columns 1, 4, 7.
  const auto grid = ProcGrid<2>::with_shape(6, {2, 3});
  const Distribution<2> dist(Box<2>({0, 0}, {4, 10}), grid, {block(), cyclic()});
  const int rank = grid.rank_at({0, 1});
  const auto layout = StorageLayout<2>::make(dist, rank, GhostSpec<2>::sides({1, 0}, {1, 0}));
  ASSERT_EQ(layout.patches().size(), 1u);
  const auto& p = layout.patches()[0];
  const AxisMap& cols = p.axes[1];
  EXPECT_FALSE(cols.is_interval());
  EXPECT_EQ(cols.count, 3);
  EXPECT_EQ(cols.coord, 1);
  EXPECT_EQ(cols.ghost_lo + cols.ghost_hi, 0);
  EXPECT_EQ(cols.extent(), 3);
  EXPECT_EQ(cols.local(4), 1);
  EXPECT_EQ(cols.global(2), 7);
  EXPECT_EQ(p.extents(), (Point<2>{4, 3}));  // two owned rows and one ghost row on each side
  EXPECT_EQ(p.element_offset({0, 7}), 1 * 3 + 2);
  EXPECT_TRUE(p.owns(Section<2>{{Section1::interval(0, 2), Section1::strided(1, 1, 3, 3)}}));
  EXPECT_FALSE(p.stores(Section<2>{{Section1::interval(0, 2), Section1::interval(1, 3)}}));  // column 2 is not ours
  // Block-cyclic: blocks of 2, block 0 on coordinate 1 of 2: coordinate 0 owns {2, 3, 6, 7}.
  const Distribution<1> bc(Box<1>({0}, {9}), ProcGrid<1>::with_shape(2, {2}), {block_cyclic(2, 1)});
  const auto l = StorageLayout<1>::make(bc, 0, no_ghosts<1>());
  ASSERT_EQ(l.patches().size(), 1u);
  EXPECT_EQ(l.size(), 4);
  EXPECT_EQ(l.patches()[0].element_offset({6}), 2);
  EXPECT_EQ(l.patches()[0].axes[0].global(3), 7);
}

TEST(StorageLayout, UserDefinedDistributionsStoreOnePatchPerOwnedBoxBackToBack) {
  const Box<2> domain({0, 0}, {8, 8});
  const auto dist = Distribution<2>::user(std::make_shared<tessera_examples::MortonDistribution<2>>(domain, 3));
  const auto g = GhostSpec<2>::sides({1, 0}, {2, 1});
  for (int rank = 0; rank < 3; ++rank) {
    const auto boxes = dist.owned_boxes(rank);
    const auto layout = StorageLayout<2>::make(dist, rank, g);
    ASSERT_EQ(layout.patches().size(), boxes.size()) << "rank " << rank;
    index_t offset = 0;
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      const auto& p = layout.patches()[i];
      EXPECT_EQ(p.owned_box(), boxes[i]) << "rank " << rank << " patch " << i;
      EXPECT_EQ(p.storage_box(), grow(boxes[i], g.lower, g.upper));
      EXPECT_EQ(p.offset, offset) << "rank " << rank << " patch " << i;
      EXPECT_EQ(p.size, volume(p.storage_box()));
      offset += p.size;
    }
    EXPECT_EQ(layout.size(), offset);
  }
}

TEST(StorageLayout, ARankThatOwnsNothingStoresNothing) {
  // A skeleton: rank 2 is not on the grid.
  const Distribution<1> skeleton(Box<1>({0}, {10}), ProcGrid<1>::from_ranks(3, {2}, {0, 1}), {block()});
  const auto none = StorageLayout<1>::make(skeleton, 2, ghosts<1>(1));
  EXPECT_TRUE(none.patches().empty());
  EXPECT_EQ(none.size(), 0);
  EXPECT_EQ(none.patch_for(Section<1>::from_box(Box<1>({0}, {1}))), -1);
  // On the grid with an empty interval: no patch, and no ghost layers around nothing.
  const Distribution<2> empty_cut(Box<2>({0, 0}, {10, 4}), ProcGrid<2>::with_shape(2, {2, 1}),
                                  {cut({0, 0, 10}), block()});
  EXPECT_TRUE(StorageLayout<2>::make(empty_cut, 0, ghosts<2>(1)).patches().empty());
  EXPECT_EQ(StorageLayout<2>::make(empty_cut, 1, ghosts<2>(1)).size(), 12 * 6);
}

TEST(StorageLayout, PatchForPrefersTheOwningPatchThenTheFirstStoringOne) {
  const Box<2> domain({0, 0}, {8, 8});
  const auto dist = Distribution<2>::user(std::make_shared<tessera_examples::MortonDistribution<2>>(domain, 2));
  const auto g = ghosts<2>(1);
  std::mt19937_64 rng(41);
  int owned_hits = 0, ghost_hits = 0, misses = 0;
  for (int rank = 0; rank < 2; ++rank) {
    const auto layout = StorageLayout<2>::make(dist, rank, g);
    ASSERT_GT(layout.patches().size(), 1u) << "the case needs several patches";
    for (int trial = 0; trial < 400; ++trial) {
      Box<2> b;
      for (std::size_t d = 0; d < 2; ++d) {
        b.lo[d] = -1 + static_cast<index_t>(rng() % 9);
        b.hi[d] = b.lo[d] + 1 + static_cast<index_t>(rng() % 3);
      }
      // The rule written out on boxes: the first patch whose owned box contains b, else the first
      // whose storage box does, else none.
      int want = -1;
      for (std::size_t i = 0; i < layout.patches().size() && want < 0; ++i)
        if (contains(layout.patches()[i].owned_box(), b)) want = static_cast<int>(i), ++owned_hits;
      for (std::size_t i = 0; i < layout.patches().size() && want < 0; ++i)
        if (contains(layout.patches()[i].storage_box(), b)) want = static_cast<int>(i), ++ghost_hits;
      if (want < 0) ++misses;
      ASSERT_EQ(layout.patch_for(Section<2>::from_box(b)), want) << "rank " << rank << " box " << b;
    }
    EXPECT_EQ(layout.patch_for(Section<2>::from_box(Box<2>({3, 3}, {3, 5}))), -1) << "an empty section";
  }
  EXPECT_GT(owned_hits, 0);
  EXPECT_GT(ghost_hits, 0);
  EXPECT_GT(misses, 0);
}

/// Runs `f` and expects Error(invalid_argument) whose message contains every one of `parts`.
template <class F>
void expect_invalid_argument(F&& f, std::initializer_list<std::string> parts) {
  try {
    f();
    ADD_FAILURE() << "no error thrown";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument) << e.what();
    for (const auto& part : parts) EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(StorageLayout, GhostsAlongANonIntervalDimensionAreRefusedNamingTheDimensionAndItsKind) {
  const auto grid = ProcGrid<3>::with_shape(8, {2, 2, 2});
  const Box<3> domain({0, 0, 0}, {6, 6, 6});
  const Distribution<3> dist(domain, grid, {block(), block_cyclic(2), irregular({0, 1, 1, 0, 0, 1})});
  expect_invalid_argument([&] { StorageLayout<3>::check_ghosts(dist, ghosts<3>(1)); },
                          {"dimension 1", "block_cyclic", "use a shifted section copy"});
  expect_invalid_argument([&] { (void)StorageLayout<3>::make(dist, 0, GhostSpec<3>::sides({0, 0, 0}, {0, 0, 2})); },
                          {"dimension 2", "irregular", "= 2"});
  const Distribution<1> cyc(Box<1>({0}, {6}), ProcGrid<1>::with_shape(2, {2}), {cyclic()});
  expect_invalid_argument([&] { StorageLayout<1>::check_ghosts(cyc, GhostSpec<1>::sides({3}, {0})); },
                          {"dimension 0", "cyclic", "= 3"});
  // Ghosts along the interval dimension only, or none at all: accepted.
  EXPECT_NO_THROW(StorageLayout<3>::check_ghosts(dist, GhostSpec<3>::sides({2, 0, 0}, {1, 0, 0})));
  EXPECT_NO_THROW(StorageLayout<3>::check_ghosts(dist, no_ghosts<3>()));
  EXPECT_NO_THROW((void)StorageLayout<1>::make(cyc, 1, no_ghosts<1>()));
  // A user-defined distribution's boxes are intervals along every axis.
  const auto user = Distribution<3>::user(std::make_shared<tessera_examples::MortonDistribution<3>>(domain, 3));
  EXPECT_NO_THROW(StorageLayout<3>::check_ghosts(user, ghosts<3>(2)));
}

/// Every element a rank stores, walked by local index: its offset is the patch offset plus the
/// row-major position of its local index; local and global indices are inverse; together the
/// elements fill [0, size) once; each owned point is owned by exactly one patch.
template <std::size_t N>
void check_layout(const Distribution<N>& dist, const GhostSpec<N>& g, int rank, const std::string& what) {
  SCOPED_TRACE(what + " rank " + std::to_string(rank));
  const auto layout = StorageLayout<N>::make(dist, rank, g);
  std::vector<int> seen(static_cast<std::size_t>(layout.size()), 0);
  index_t offset = 0;
  for (const auto& p : layout.patches()) {
    ASSERT_EQ(p.offset, offset);
    const Point<N> strides = row_major_strides(p.extents());
    ASSERT_EQ(p.strides, strides);
    ASSERT_EQ(p.size, volume(Box<N>::from_extents(p.extents())));
    for_each_point(Box<N>::from_extents(p.extents()), [&](const Point<N>& l) {
      Point<N> q;
      index_t want = p.offset;
      for (std::size_t d = 0; d < N; ++d) {
        q[d] = p.axes[d].global(l[d]);
        ASSERT_EQ(p.axes[d].local(q[d]), l[d]) << "axis " << d;
        want += l[d] * strides[d];
      }
      ASSERT_EQ(p.element_offset(q), want) << "local " << l << " global " << q;
      ++seen[static_cast<std::size_t>(want)];
    });
    offset += p.size;
  }
  ASSERT_EQ(layout.size(), offset);
  ASSERT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
  index_t owned = 0;
  for (const auto& s : dist.owned_sections(rank))
    for_each_point(s, [&](const Point<N>& q) {
      const auto single = Section<N>::from_box(Box<N>::from_extents(q, Point<N>::filled(1)));
      int owners = 0;
      for (const auto& p : layout.patches()) owners += p.owns(single) ? 1 : 0;
      ASSERT_EQ(owners, 1) << q;
      const int patch = layout.patch_for(single);
      ASSERT_GE(patch, 0) << q;
      if (!dist.is_user_defined() && g.none()) {
        // Without ghosts a dimensional distribution's single patch is its local_offset numbering.
        ASSERT_EQ(layout.patches()[static_cast<std::size_t>(patch)].element_offset(q), dist.local_offset(q)) << q;
      }
      ++owned;
    });
  ASSERT_EQ(owned, dist.local_size(rank));
}

template <std::size_t N>
void layout_cases(int cases, index_t max_extent) {
  std::mt19937_64 rng(300 + N);
  for (int k = 0; k < cases; ++k) {
    const int ranks = 1 + static_cast<int>(rng() % 5);
    const auto domain = random_domain<N>(rng, max_extent);
    const auto g = rng() % 3 == 0 ? no_ghosts<N>() : random_ghosts<N>(rng);
    const auto dist = any_distribution<N>(rng, domain, ranks, ghosted_dims(g));
    std::ostringstream what;
    what << "case " << k << " " << dist << " " << g;
    for (int r = 0; r < ranks; ++r) check_layout(dist, g, r, what.str());
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(StorageLayout, GhostWidthsWhoseExtentOverflowsAreRefused) {
  // Found by the capi fuzzer: count + ghost widths was summed unchecked (signed overflow).
  const auto dist = block_distribution<2>(Box<2>({0, 0}, {4, 4}), {1, 1});
  const index_t huge = std::numeric_limits<index_t>::max();
  for (const auto& g : {GhostSpec<2>::sides({0, huge}, {0, 0}), GhostSpec<2>::sides({0, 0}, {huge, 0}),
                        GhostSpec<2>::sides({huge / 2, 0}, {huge / 2, 0})}) {
    try {
      (void)StorageLayout<2>::make(dist, 0, g);
      ADD_FAILURE() << "no error thrown";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::overflow) << e.what();
    }
  }
}

TEST(StorageLayout, EveryStoredElementHasItsOwnRowMajorOffset1D) { layout_cases<1>(200, 20); }
TEST(StorageLayout, EveryStoredElementHasItsOwnRowMajorOffset2D) { layout_cases<2>(150, 9); }
TEST(StorageLayout, EveryStoredElementHasItsOwnRowMajorOffset3D) { layout_cases<3>(60, 5); }

/// The indices of `s`, in order.
std::vector<index_t> indices_of(const Section1& s) {
  std::vector<index_t> out;
  for_each_run(s, [&](index_t f, index_t len) {
    for (index_t i = f; i < f + len; ++i) out.push_back(i);
  });
  return out;
}

TEST(AxisMap, StoresOwnsAndToLocalAgreeWithTheIndexByIndexDefinitions) {
  std::mt19937_64 rng(77);
  int compacted_owned = 0, split = 0;
  for (int k = 0; k < 400; ++k) {
    const int g = 1 + static_cast<int>(rng() % 3);
    const index_t lo = static_cast<index_t>(rng() % 5) - 2, hi = lo + 1 + static_cast<index_t>(rng() % 16);
    const auto spec = random_spec(rng, lo, hi, g, false);
    const Distribution<1> dist(Box<1>({lo}, {hi}), ProcGrid<1>::with_shape(g, {g}), {spec});
    const int coord = static_cast<int>(rng() % static_cast<std::uint64_t>(g));
    const bool interval = dist.dim(0).owns_intervals();
    const auto ghost = interval ? GhostSpec<1>::sides({static_cast<index_t>(rng() % 3)}, {static_cast<index_t>(rng() % 3)})
                                : no_ghosts<1>();
    const auto layout = StorageLayout<1>::make(dist, coord, ghost);
    if (layout.patches().empty()) continue;
    const AxisMap& a = layout.patches()[0].axes[0];
    ASSERT_EQ(a.is_interval(), interval);
    std::ostringstream what;
    what << "case " << k << " " << dist << " coordinate " << coord;
    for (int trial = 0; trial < 30; ++trial) {
      const index_t len = 1 + static_cast<index_t>(rng() % 3);
      const Section1 s = Section1::strided(lo - 3 + static_cast<index_t>(rng() % static_cast<std::uint64_t>(hi - lo + 6)),
                                           len, len + static_cast<index_t>(rng() % 6), 1 + static_cast<index_t>(rng() % 3));
      bool owns = true, stores = true;
      for (const index_t i : indices_of(s)) {
        const bool owned = i >= lo && i < hi && dist.dim(0).owner(i) == coord;
        owns = owns && owned;
        stores = stores && (owned || (interval && i >= a.first - a.ghost_lo && i < a.first + a.count + a.ghost_hi));
      }
      ASSERT_EQ(a.owns(s), owns) << what.str() << " section " << s;
      ASSERT_EQ(a.stores(s), stores) << what.str() << " section " << s;
      if (!stores) continue;
      SectionList1 local;
      a.to_local(s, local);
      std::vector<index_t> want, got;
      for (const index_t i : indices_of(s)) want.push_back(a.local(i));
      for (const auto& l : local) {
        const auto part = indices_of(l);
        got.insert(got.end(), part.begin(), part.end());
      }
      ASSERT_EQ(got, want) << what.str() << " section " << s;
      // Local intervals that touch are merged: each one is a memcpy for the mover.
      for (std::size_t i = 1; i < local.size(); ++i)
        ASSERT_FALSE(local[i - 1].run_count == 1 && local[i].run_count == 1 &&
                     local[i - 1].first + local[i - 1].run_length == local[i].first)
            << what.str() << " section " << s << ": local sections " << i - 1 << " and " << i << " touch";
      compacted_owned += interval ? 0 : 1;
      split += local.size() > 1 ? 1 : 0;
    }
  }
  EXPECT_GT(compacted_owned, 100) << "too few compacted sections were owned to test to_local";
  EXPECT_GT(split, 10) << "too few sections needed more than one local section";
}

}  // namespace
}  // namespace tessera
