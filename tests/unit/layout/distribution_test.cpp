#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <sstream>

#include "distribution_checks.hpp"
#include "tessera/layout/distribution.hpp"

namespace tessera {
namespace {

using testing::check_distribution;

/// A spec of a random kind for extent n over g coordinates (collapsed only where g == 1).
DimSpec random_dim_spec(std::mt19937_64& rng, index_t lo, index_t hi, int g) {
  switch (rng() % 6) {
    case 0: return block();
    case 1: {
      std::vector<index_t> b{lo};
      for (int c = 1; c < g; ++c) b.push_back(b.back() + static_cast<index_t>(rng() % static_cast<std::uint64_t>(hi - b.back() + 1)));
      b.push_back(hi);
      return cut(b);
    }
    case 2: return cyclic();
    case 3: return block_cyclic(1 + static_cast<index_t>(rng() % 3), static_cast<int>(rng() % static_cast<std::uint64_t>(g)));
    case 4: return g == 1 ? collapsed() : block().with_logical_block(2);
    default: {
      std::vector<int> owners(static_cast<std::size_t>(hi - lo));
      for (auto& o : owners) o = static_cast<int>(rng() % static_cast<std::uint64_t>(g));
      return irregular(owners);
    }
  }
}

/// A grid of a random shape over a random communicator: sometimes all ranks in order, sometimes a
/// permutation, sometimes a subset (the other ranks are skeletons).
template <std::size_t N>
ProcGrid<N> random_grid(std::mt19937_64& rng) {
  Point<N> shape;
  index_t positions = 1;
  for (std::size_t d = 0; d < N; ++d) positions *= (shape[d] = 1 + static_cast<index_t>(rng() % (N <= 2 ? 4 : 2)));
  const int comm_size = static_cast<int>(positions) + static_cast<int>(rng() % 3);
  std::vector<int> ranks(static_cast<std::size_t>(comm_size));
  std::iota(ranks.begin(), ranks.end(), 0);
  if (rng() % 2) std::shuffle(ranks.begin(), ranks.end(), rng);
  ranks.resize(static_cast<std::size_t>(positions));
  return ProcGrid<N>::from_ranks(comm_size, shape, ranks);
}

template <class D>
class DistributionProperties : public ::testing::Test {};
TYPED_TEST_SUITE(DistributionProperties, testing::AllDims);

TYPED_TEST(DistributionProperties, EveryKindKeepsTheInvariants) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(31 * N);
  const int trials = N <= 2 ? 150 : 60;
  for (int trial = 0; trial < trials; ++trial) {
    const ProcGrid<N> grid = random_grid<N>(rng);
    Box<N> domain;
    for (std::size_t d = 0; d < N; ++d) {
      domain.lo[d] = static_cast<index_t>(rng() % 7) - 3;
      domain.hi[d] = domain.lo[d] + static_cast<index_t>(rng() % (N <= 2 ? 13 : 6));
    }
    std::array<DimSpec, N> specs;
    for (std::size_t d = 0; d < N; ++d) specs[d] = random_dim_spec(rng, domain.lo[d], domain.hi[d], static_cast<int>(grid.extent(d)));
    typename Distribution<N>::Order order = Distribution<N>::natural_order();
    std::shuffle(order.begin(), order.end(), rng);
    const Distribution<N> dist(domain, grid, specs, order);
    std::ostringstream what;
    what << dist << " over " << domain;
    check_distribution(dist, rng, what.str());
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TYPED_TEST(DistributionProperties, GeneralAxesFollowRankWeightsSlabBySlab) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(77 * N);
  for (int trial = 0; trial < 40; ++trial) {
    const ProcGrid<N> grid = random_grid<N>(rng);
    Box<N> domain;
    for (std::size_t d = 0; d < N; ++d) domain.hi[d] = 1 + static_cast<index_t>(rng() % (N <= 2 ? 20 : 6));
    std::vector<double> weights(static_cast<std::size_t>(grid.size()));
    for (auto& w : weights) w = 0.5 + static_cast<double>(rng() % 4);
    std::array<DimSpec, N> specs;
    for (std::size_t d = 0; d < N; ++d) specs[d] = rng() % 3 ? general() : block();
    typename Distribution<N>::Order order = Distribution<N>::natural_order();
    std::shuffle(order.begin(), order.end(), rng);
    const auto dist = Distribution<N>::from_rank_weights(domain, grid, weights, specs, order);
    std::ostringstream what;
    what << dist;
    check_distribution(dist, rng, what.str());
    if (::testing::Test::HasFatalFailure()) return;
    EXPECT_TRUE(dist.owns_boxes());
  }
}

TEST(Distribution, D3ArcTreeOfIntervals) {
  // D3-ARC Fig. 6: a 3x3 grid; rows cut once, then each row slab cut on its own.
  const auto grid = ProcGrid<2>::with_shape(9, {3, 3});
  const std::vector<double> w{1, 1, 1, 1, 2, 1, 1, 1, 1};  // P4 (the centre) is twice as fast
  const auto dist = Distribution<2>::from_rank_weights(Box<2>({0, 0}, {90, 80}), grid, w, {general(), general()});
  // Row slab 1 holds weight 4 of 10 -> 36 of 90 rows; within it P4 gets half of the 80 columns.
  EXPECT_EQ(dist.dim(0).boundaries(), (std::vector<index_t>{0, 27, 63, 90}));
  EXPECT_EQ(dist.dim(1, {1, 0}).boundaries(), (std::vector<index_t>{0, 20, 60, 80}));
  EXPECT_EQ(dist.dim(1, {0, 0}).boundaries(), (std::vector<index_t>{0, 27, 53, 80}));
  EXPECT_EQ(dist.owned_box(4), Box<2>({27, 20}, {63, 60}));
  EXPECT_EQ(dist.owner({30, 19}), 3);
  // Column-first order swaps the roles: columns cut once, rows per column slab.
  const auto by_columns = Distribution<2>::from_rank_weights(Box<2>({0, 0}, {90, 80}), grid, w, {general(), general()}, {1, 0});
  EXPECT_EQ(by_columns.dim(1).boundaries(), (std::vector<index_t>{0, 24, 56, 80}));
  EXPECT_NE(by_columns, dist);
  // D3-ARC Fig. 2: D_BLOCK x D_GENERAL — rows blocked, columns weighted per row slab.
  const auto fig2 = Distribution<2>::from_rank_weights(Box<2>({0, 0}, {1000, 1000}), grid, w, {block(), general()});
  EXPECT_EQ(fig2.dim(0).boundaries(), (std::vector<index_t>{0, 334, 667, 1000}));
  EXPECT_EQ(fig2.dim(1, {1, 2}).boundaries(), (std::vector<index_t>{0, 250, 750, 1000}));
}

TEST(Distribution, PrintsAsTheIssueShows) {
  const auto grid = ProcGrid<2>::with_shape(6, {2, 3});
  std::ostringstream out;
  out << Distribution<2>(Box<2>({0, 0}, {6, 9}), grid, {cut({0, 3, 6}), block()});
  EXPECT_EQ(out.str(), "grid 2x3, [cut(0,3,6), block]");
  out.str("");
  out << Distribution<2>(Box<2>({0, 0}, {6, 9}), grid, {cyclic(), block_cyclic(2)}, {1, 0});
  EXPECT_EQ(out.str(), "grid 2x3, [cyclic, block_cyclic(2)], order (1,0)");
}

TEST(Distribution, QueriesOnAKnownLayout) {
  const auto grid = ProcGrid<2>::with_shape(6, {2, 3});
  const Distribution<2> dist(Box<2>({0, 0}, {6, 9}), grid, {cut({0, 3, 6}), block()});
  EXPECT_EQ(dist.owner({4, 7}), 5);
  EXPECT_EQ(dist.owned_box(5), Box<2>({3, 6}, {6, 9}));
  EXPECT_EQ(dist.local_extents(5), (Point<2>{3, 3}));
  EXPECT_EQ(dist.local_offset({4, 7}), 1 * 3 + 1);
  EXPECT_EQ(dist.global_point(5, 4), (Point<2>{4, 7}));
  EXPECT_EQ(dist.pieces(Box<2>({2, 2}, {4, 4})).size(), 4u);
  // A block-cyclic layout stores each rank's part compacted (ScaLAPACK).
  const Distribution<2> bc(Box<2>({0, 0}, {10, 10}), grid, {block_cyclic(2), cyclic()});
  EXPECT_EQ(bc.local_extents(4), (Point<2>{4, 3}));  // rows 2,3,6,7; columns 1,4,7
  EXPECT_EQ(bc.local_offset({6, 4}), 2 * 3 + 1);
  EXPECT_FALSE(bc.owns_boxes());
  EXPECT_EQ(bc.owned_sections(4).size(), 1u);
  EXPECT_EQ(bc.owned_boxes(4).size(), 2u * 3u);
}

TEST(Distribution, SkeletonRanksOwnNothingButAreValidRanks) {
  const auto grid = ProcGrid<1>::from_ranks(5, {3}, {4, 0, 2});
  const Distribution<1> dist(Box<1>({0}, {10}), grid, {block()});
  EXPECT_EQ(dist.local_size(1), 0);
  EXPECT_EQ(dist.local_extents(3), Point<1>{0});
  EXPECT_TRUE(dist.owned_sections(1).empty());
  EXPECT_EQ(dist.owned_box(3), Box<1>());
  EXPECT_EQ(dist.owner({0}), 4);
  EXPECT_EQ(dist.owner({9}), 2);
}

TEST(Distribution, EqualityAndStableHash) {
  const auto grid = ProcGrid<2>::with_shape(4, {2, 2});
  const Box<2> dom({0, 0}, {10, 10});
  const Distribution<2> a(dom, grid, {block(), block()}), b(dom, grid, {cut({0, 5, 10}), block()});
  EXPECT_EQ(a, b);  // the same ownership
  EXPECT_EQ(a.hash(), b.hash());
  const Distribution<2> c(dom, grid, {cyclic(), block()});
  EXPECT_NE(a, c);
  EXPECT_NE(a.hash(), c.hash());
  const Distribution<2> permuted(dom, ProcGrid<2>::from_ranks(4, {2, 2}, {1, 0, 2, 3}), {block(), block()});
  EXPECT_NE(a, permuted);
  EXPECT_NE(a, Distribution<2>(Box<2>({0, 0}, {10, 11}), grid, {block(), block()}));
}

TEST(Distribution, BadArgumentsAreNamedErrors) {
  const auto grid = ProcGrid<2>::with_shape(4, {2, 2});
  const Box<2> dom({0, 0}, {10, 10});
  try {
    (void)Distribution<2>(dom, grid, {block(), cut({0, 7, 3})});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("Distribution dimension 1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cut boundaries"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)Distribution<2>(dom, grid, {block(), block()}, {0, 0}), Error);
  EXPECT_THROW((void)Distribution<2>(dom, grid, {collapsed(), block()}), Error);
  EXPECT_THROW((void)Distribution<2>(dom, grid, {general(), block()}), Error);
  EXPECT_THROW((void)Distribution<2>::from_rank_weights(dom, grid, {1, 2, 3}, {general(), block()}), Error);
  EXPECT_THROW((void)Distribution<2>::from_rank_weights(dom, grid, {0, 0, 0, 0}, {general(), block()}), Error);
  const Distribution<2> ok(dom, grid, {block(), cyclic()});
  try {
    (void)ok.owner({10, 0});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::out_of_range);
    EXPECT_NE(std::string(e.what()).find("(10, 0)"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)ok.owned_box(0), Error);  // cyclic columns: no single box
  EXPECT_THROW((void)ok.local_extents(4), Error);
  EXPECT_THROW((void)ok.global_point(-1, 0), Error);
}

TEST(Distribution, MetadataGrowsWithGridExtentsNotRanks) {
  // A simulated machine of 2^20 ranks: the replicated description stays a few kilobytes.
  const auto grid = ProcGrid<2>::with_shape(1 << 20, {1024, 1024});
  const Distribution<2> dist(Box<2>({0, 0}, {1 << 20, 1 << 20}), grid, {block(), block_cyclic(64)});
  EXPECT_LT(dist.metadata_bytes(), 16u * 1024u);
  EXPECT_EQ(dist.owner({(1 << 20) - 1, 65}), 1023 * 1024 + 1);
  EXPECT_EQ(dist.pieces(Box<2>({0, 0}, {2048, 128})).size(), 2u * 2u);
}

}  // namespace
}  // namespace tessera
