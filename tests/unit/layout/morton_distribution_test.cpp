// The worked user-defined distribution (examples/morton_distribution) is tested like the built-ins:
// the shared invariant checker over random domains, plus brute-force references for its own claims.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "distribution_checks.hpp"
#include "morton_distribution/morton_distribution.hpp"
#include "tessera/layout/distribution.hpp"
#include "tessera/layout/local_layout.hpp"

namespace tessera {
namespace {

using tessera_examples::MortonDistribution;
using testing::check_distribution;

/// A domain with corners in [-5, 5] and extents in [0, max_extent]; a quarter of them tiny, so that
/// P often exceeds the number of points.
template <std::size_t N>
Box<N> random_domain(std::mt19937_64& rng, index_t max_extent) {
  const index_t limit = rng() % 4 == 0 ? 3 : max_extent;
  Box<N> b;
  for (std::size_t d = 0; d < N; ++d) {
    b.lo[d] = static_cast<index_t>(rng() % 11) - 5;
    b.hi[d] = b.lo[d] + static_cast<index_t>(rng() % static_cast<std::uint64_t>(limit + 1));
  }
  return b;
}

template <std::size_t N>
constexpr index_t max_extent_for() {
  return N == 1 ? 70 : N == 2 ? 20 : 8;
}

int random_ranks(std::mt19937_64& rng) { return 1 + static_cast<int>(rng() % 9); }

/// Morton code written independently of the example: bit j (from the least significant) of the
/// code is bit j / N of coordinate N - 1 - j % N of `p - lo`, over the fewest levels covering the box.
template <std::size_t N>
std::uint64_t reference_code(const Box<N>& domain, const Point<N>& p) {
  int levels = 0;
  for (std::size_t d = 0; d < N; ++d)
    while ((index_t{1} << levels) < extent(domain, d)) ++levels;
  std::uint64_t code = 0;
  for (std::size_t j = 0; j < N * static_cast<std::size_t>(levels); ++j) {
    const std::size_t d = N - 1 - j % N;
    code |= static_cast<std::uint64_t>(((p[d] - domain.lo[d]) >> (j / N)) & 1) << j;
  }
  return code;
}

/// The owner of every point by definition: sort by Morton code, cut into P consecutive chunks of
/// T / P points, the first T mod P chunks one point longer.
template <std::size_t N>
std::map<Point<N>, int> reference_owners(const Box<N>& domain, int ranks) {
  std::vector<std::pair<std::uint64_t, Point<N>>> sorted;
  for_each_point(domain, [&](const Point<N>& p) { sorted.emplace_back(reference_code(domain, p), p); });
  std::sort(sorted.begin(), sorted.end());
  const auto total = static_cast<index_t>(sorted.size());
  std::map<Point<N>, int> owners;
  std::size_t at = 0;
  for (int r = 0; r < ranks; ++r)
    for (index_t k = 0; k < total / ranks + (r < total % ranks ? 1 : 0); ++k) owners[sorted[at++].second] = r;
  return owners;
}

/// The points of a list of pieces, per rank; fails on overlapping pieces.
template <std::size_t N>
std::map<int, std::set<Point<N>>> points_by_rank(const std::vector<DistPiece<N>>& pieces) {
  std::map<int, std::set<Point<N>>> out;
  std::set<Point<N>> seen;
  for (const auto& [section, rank] : pieces)
    for_each_point(section, [&](const Point<N>& p) {
      EXPECT_TRUE(seen.insert(p).second) << "pieces overlap at " << p;
      out[rank].insert(p);
    });
  return out;
}

template <class D>
class MortonProperties : public ::testing::Test {};
using Dims = ::testing::Types<testing::Dim<1>, testing::Dim<2>, testing::Dim<3>>;
TYPED_TEST_SUITE(MortonProperties, Dims);

TYPED_TEST(MortonProperties, KeepsTheInvariantsOfEveryDistribution) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(101 * N);
  for (int trial = 0; trial < (N == 3 ? 80 : 150); ++trial) {
    const auto morton =
        std::make_shared<const MortonDistribution<N>>(random_domain<N>(rng, max_extent_for<N>()), random_ranks(rng));
    check_distribution(Distribution<N>::user(morton), rng, morton->name());
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TYPED_TEST(MortonProperties, OwnersFollowABruteForceMortonSortInBalancedChunks) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(202 * N);
  for (int trial = 0; trial < 150; ++trial) {
    const Box<N> domain = random_domain<N>(rng, max_extent_for<N>());
    const int P = random_ranks(rng);
    const MortonDistribution<N> m(domain, P);
    SCOPED_TRACE(m.name());
    for (const auto& [p, r] : reference_owners(domain, P)) {
      ASSERT_EQ(m.owner(p), r) << p;
      ASSERT_EQ(m.morton_code(p), reference_code(domain, p)) << p;
    }
    index_t fewest = volume(domain), most = 0, sum = 0;
    for (int r = 0; r < P; ++r) {
      const index_t n = volume(m.owned_boxes(r));
      EXPECT_EQ(n, m.point_count(r));
      fewest = std::min(fewest, n), most = std::max(most, n), sum += n;
    }
    EXPECT_LE(most - fewest, 1) << "unbalanced";
    EXPECT_EQ(sum, volume(domain));
  }
}

TYPED_TEST(MortonProperties, PiecesOverrideCoversLikeTheDefault) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(303 * N);
  for (int trial = 0; trial < 150; ++trial) {
    const Box<N> domain = random_domain<N>(rng, max_extent_for<N>());
    const MortonDistribution<N> m(domain, random_ranks(rng));
    SCOPED_TRACE(m.name());
    for (int query = 0; query < 12; ++query) {
      // Boxes partly outside, wholly outside, empty, and the whole domain grown.
      Box<N> box = query == 0 ? grow(domain, 3) : shift(testing::random_box<N>(rng, 8), domain.lo);
      const auto fast = m.pieces(box);
      const auto slow = m.UserDistribution<N>::pieces(box);
      EXPECT_EQ(points_by_rank(fast), points_by_rank(slow)) << "pieces of " << box;
      for (const auto& piece : fast) EXPECT_TRUE(is_box(piece.section));
    }
  }
}

TYPED_TEST(MortonProperties, LocalOffsetOverrideMatchesThePatchLayout) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(404 * N);
  for (int trial = 0; trial < 150; ++trial) {
    const Box<N> domain = random_domain<N>(rng, max_extent_for<N>());
    const MortonDistribution<N> m(domain, random_ranks(rng));
    SCOPED_TRACE(m.name());
    for_each_point(domain, [&](const Point<N>& p) {
      ASSERT_EQ(m.local_offset(p), m.UserDistribution<N>::local_offset(p)) << p;
    });
  }
}

TYPED_TEST(MortonProperties, CurveStorageNumbersEachSegmentAlongTheCurve) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(454 * N);
  for (int trial = 0; trial < 60; ++trial) {
    const Box<N> domain = random_domain<N>(rng, max_extent_for<N>());
    const int ranks = random_ranks(rng);
    const MortonDistribution<N> m(domain, ranks, tessera_examples::MortonStorage::curve);
    SCOPED_TRACE(m.name());
    EXPECT_TRUE(m.has_local_layout());
    EXPECT_NE(m.name().find("stored along the curve"), std::string::npos);
    EXPECT_FALSE(m.equals(MortonDistribution<N>(domain, ranks)));  // same owners, other storage
    // Reference: each rank's points sorted by an independently computed code are numbered 0, 1, ...
    std::map<int, std::vector<std::pair<std::uint64_t, Point<N>>>> by_rank;
    for_each_point(domain, [&](const Point<N>& p) { by_rank[m.owner(p)].push_back({reference_code(domain, p), p}); });
    for (auto& [rank, points] : by_rank) {
      std::sort(points.begin(), points.end());
      EXPECT_EQ(m.local_storage_size(rank), static_cast<index_t>(points.size()));
      for (std::size_t k = 0; k < points.size(); ++k)
        ASSERT_EQ(m.local_offset(points[k].second), static_cast<index_t>(k)) << points[k].second;
    }
  }
}

// local_run under curve storage: every claim holds (check_local_layout walks every row of every
// owned box along every axis), and the pairs along the last axis are claimed (a run of 2 from an
// even coordinate), so plans ask half as many offsets; 1-D claims whole stretches.
TYPED_TEST(MortonProperties, CurveStorageClaimsItsPairsAlongTheLastAxis) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(771 * N);
  index_t pairs_in_every_trial = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const Box<N> domain = random_domain<N>(rng, max_extent_for<N>());
    const int ranks = random_ranks(rng);
    const auto m = std::make_shared<const MortonDistribution<N>>(domain, ranks, tessera_examples::MortonStorage::curve);
    const tessera::Distribution<N> dist = tessera::Distribution<N>::user(m);
    SCOPED_TRACE(m->name());
    for (int r = 0; r < ranks; ++r) ASSERT_NO_THROW(tessera::check_local_layout(dist, r)) << "rank " << r;
    index_t pairs_claimed = 0, pairs_held = 0;
    for (int r = 0; r < ranks; ++r)
      for (const auto& b : m->owned_boxes(r))
        for_each_point(b, [&](const Point<N>& p) {
          Point<N> next = p;
          ++next[N - 1];
          if (contains(b, next)) {
            const bool pair = (p[N - 1] - domain.lo[N - 1]) % 2 == 0;
            pairs_held += pair;
            const index_t claimed = m->local_run(p, N - 1, 2);
            EXPECT_EQ(claimed, pair || N == 1 ? 2 : 1) << p;
            pairs_claimed += claimed == 2 && pair;
          }
          if constexpr (N > 1) {
            Point<N> below = p;
            ++below[0];
            if (contains(b, below)) EXPECT_EQ(m->local_run(p, 0, 2), 1) << p;
          }
        });
    EXPECT_EQ(pairs_claimed, pairs_held);
    pairs_in_every_trial += pairs_held;
    const MortonDistribution<N> in_patches(domain, ranks);
    EXPECT_EQ(in_patches.local_run(domain.lo, N - 1, 2), 1);  // patches: the engine's own runs
  }
  EXPECT_GT(pairs_in_every_trial, 0) << "no trial held a pair: the test checks nothing";
}

TYPED_TEST(MortonProperties, CountBeforeAndSplitCodesMatchBruteForce) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(505 * N);
  for (int trial = 0; trial < 100; ++trial) {
    const Box<N> domain = random_domain<N>(rng, max_extent_for<N>());
    const int P = random_ranks(rng);
    const MortonDistribution<N> m(domain, P);
    SCOPED_TRACE(m.name());
    std::vector<std::uint64_t> codes;
    for_each_point(domain, [&](const Point<N>& p) { codes.push_back(reference_code(domain, p)); });
    std::sort(codes.begin(), codes.end());
    ASSERT_LE(m.code_end(), 1u << 12);
    for (std::uint64_t c = 0; c <= m.code_end(); ++c)
      ASSERT_EQ(m.count_before(c), std::lower_bound(codes.begin(), codes.end(), c) - codes.begin()) << c;
    for (int r = 0; r <= P; ++r) EXPECT_EQ(m.count_before(m.split_code(r)), m.points_before(r)) << r;
    EXPECT_EQ(m.split_code(P), m.code_end());
  }
}

TYPED_TEST(MortonProperties, OwnedBoxesAreMaximalAlignedBlocksInCurveOrder) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(606 * N);
  for (int trial = 0; trial < 150; ++trial) {
    const Box<N> domain = random_domain<N>(rng, max_extent_for<N>());
    const int P = random_ranks(rng);
    const MortonDistribution<N> m(domain, P);
    SCOPED_TRACE(m.name());
    for (int r = 0; r < P; ++r) {
      const BoxList<N> boxes = m.owned_boxes(r);
      EXPECT_LE(boxes.size(), 2 * ((std::size_t{1} << N) - 1) * static_cast<std::size_t>(std::max(m.levels(), 1)));
      for (std::size_t i = 0; i < boxes.size(); ++i) {
        const Box<N>& b = boxes[i];
        if (i > 0) {
          EXPECT_LT(m.morton_code(boxes[i - 1].last()), m.morton_code(b.lo)) << "curve order";
        }
        // The smallest aligned cube holding b, clipped to the domain, must be b itself ...
        index_t side = 1;
        auto cube_of = [&](index_t s) {
          Box<N> c;
          for (std::size_t d = 0; d < N; ++d) {
            c.lo[d] = domain.lo[d] + floor_div(b.lo[d] - domain.lo[d], s) * s;
            c.hi[d] = c.lo[d] + s;
          }
          return c;
        };
        while (!contains(cube_of(side), b)) side *= 2;
        EXPECT_EQ(intersect(cube_of(side), domain), b) << b << " is not a tree block clipped to the domain";
        // ... and the parent of the largest such cube must hold a domain point of another rank (else
        // the parent would be the block).
        const index_t top = index_t{1} << m.levels();
        while (side < top && intersect(cube_of(2 * side), domain) == b) side *= 2;
        if (side < top) {
          bool foreign = false;
          for_each_point(intersect(cube_of(2 * side), domain), [&](const Point<N>& p) { foreign |= m.owner(p) != r; });
          EXPECT_TRUE(foreign) << b << " is not maximal";
        }
      }
    }
  }
}

TEST(MortonDistribution, QuadrantsInZOrder) {
  const MortonDistribution<2> m(Box<2>({0, 0}, {4, 4}), 4);
  EXPECT_EQ(m.owned_boxes(0), BoxList<2>{Box<2>({0, 0}, {2, 2})});
  EXPECT_EQ(m.owned_boxes(1), BoxList<2>{Box<2>({0, 2}, {2, 4})});  // dimension 1 varies first
  EXPECT_EQ(m.owned_boxes(2), BoxList<2>{Box<2>({2, 0}, {4, 2})});
  EXPECT_EQ(m.owned_boxes(3), BoxList<2>{Box<2>({2, 2}, {4, 4})});
  EXPECT_EQ(m.owner({1, 3}), 1);
  EXPECT_EQ(m.morton_code({1, 3}), 0b0111u);
  EXPECT_EQ(m.local_offset({1, 3}), 3);
}

TEST(MortonDistribution, TheExampleProgramsMap) {
  // examples/morton_distribution --ranks 5 --extents 13x9, shifted to a negative lo.
  const std::vector<std::string> expected{
      "000000002", "000000002", "000011112", "000011112", "111122222", "111122222", "111122222",
      "111122223", "333333334", "333333444", "333344444", "333344444", "444444444"};
  const Box<2> domain({-6, -4}, {7, 5});
  const auto dist = Distribution<2>::user(std::make_shared<MortonDistribution<2>>(domain, 5));
  for (index_t i = 0; i < 13; ++i)
    for (index_t j = 0; j < 9; ++j)
      EXPECT_EQ(dist.owner({domain.lo[0] + i, domain.lo[1] + j}),
                expected[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] - '0')
          << i << "," << j;
  EXPECT_EQ(dist.local_size(0), 24);
  EXPECT_EQ(dist.local_size(4), 23);
}

TEST(MortonDistribution, OneDimensionIsABlockDistribution) {
  const MortonDistribution<1> m(Box<1>({-3}, {14}), 4);  // 17 points: 5, 4, 4, 4
  // Aligned blocks, not merged: [0,4) and [4,5) relative to lo are different tree nodes.
  EXPECT_EQ(m.owned_boxes(0), (BoxList<1>{Box<1>({-3}, {1}), Box<1>({1}, {2})}));
  EXPECT_EQ(m.owned_boxes(1), (BoxList<1>{Box<1>({2}, {3}), Box<1>({3}, {5}), Box<1>({5}, {6})}));
  EXPECT_EQ(bounding_box(m.owned_boxes(3)), Box<1>({10}, {14}));
  EXPECT_EQ(volume(m.owned_boxes(3)), 4);
  EXPECT_EQ(m.owner({9}), 2);
}

TEST(MortonDistribution, NameEqualityAndHash) {
  const Box<2> domain({0, 0}, {10, 7});
  const auto morton = std::make_shared<MortonDistribution<2>>(domain, 3);
  const auto a = Distribution<2>::user(morton);
  const auto b = Distribution<2>::user(std::make_shared<MortonDistribution<2>>(domain, 3));
  EXPECT_EQ(a.user_distribution(), morton.get());  // the way back to the user's own class
  EXPECT_EQ(Distribution<2>(domain, ProcGrid<2>::with_shape(3, {3, 1}), {block(), block()}).user_distribution(),
            nullptr);
  std::ostringstream out;
  out << a;
  EXPECT_EQ(out.str(), "morton(domain [0,10)x[0,7) over 3 ranks)");
  EXPECT_TRUE(a.is_user_defined());
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_NE(a, Distribution<2>::user(std::make_shared<MortonDistribution<2>>(domain, 4)));
  EXPECT_NE(a, Distribution<2>::user(std::make_shared<MortonDistribution<2>>(Box<2>({0, 0}, {10, 8}), 3)));
  EXPECT_NE(a, Distribution<2>(domain, ProcGrid<2>::with_shape(3, {3, 1}), {block(), block()}));
}

TEST(MortonDistribution, EmptyDomainAndMoreRanksThanPoints) {
  const auto empty = std::make_shared<MortonDistribution<2>>(Box<2>({0, 3}, {4, 3}), 3);
  for (int r = 0; r < 3; ++r) EXPECT_TRUE(empty->owned_boxes(r).empty());
  EXPECT_TRUE(empty->pieces(Box<2>({-10, -10}, {10, 10})).empty());
  std::mt19937_64 rng(7);
  check_distribution(Distribution<2>::user(empty), rng, "empty domain");
  const MortonDistribution<3> few(Box<3>({-1, -1, -1}, {0, 0, 1}), 9);  // 2 points over 9 ranks
  EXPECT_EQ(few.point_count(0), 1);
  EXPECT_EQ(few.point_count(1), 1);
  for (int r = 2; r < 9; ++r) EXPECT_TRUE(few.owned_boxes(r).empty());
  EXPECT_EQ(few.owner({-1, -1, 0}), 1);
  EXPECT_EQ(few.owned_boxes(1), BoxList<3>{Box<3>({-1, -1, 0}, {0, 0, 1})});
}

template <class F>
void expect_error(F&& make, ErrorCode code, const std::vector<std::string>& words) {
  try {
    make();
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    for (const auto& w : words) EXPECT_NE(std::string(e.what()).find(w), std::string::npos) << e.what();
  }
}

TEST(MortonDistribution, BadArgumentsAreNamedErrors) {
  const Box<2> domain({0, 0}, {4, 4});
  expect_error([&] { (void)MortonDistribution<2>(domain, 0); }, ErrorCode::invalid_argument,
               {"MortonDistribution", "'comm_size' = 0"});
  expect_error([&] { (void)MortonDistribution<2>(domain, -3); }, ErrorCode::invalid_argument, {"'comm_size' = -3"});
  constexpr index_t two20 = index_t{1} << 20;
  expect_error([&] { (void)MortonDistribution<3>(Box<3>({0, 0, 0}, {4, two20 + 1, 4}), 2); },
               ErrorCode::invalid_argument, {"'domain'", "dimension 1", "2^20"});
  expect_error([&] { (void)MortonDistribution<2>(Box<2>({-5, 0}, {(index_t{1} << 31) - 4, 1}), 2); },
               ErrorCode::invalid_argument, {"'domain'", "dimension 0", "2^31"});
  EXPECT_NO_THROW((void)MortonDistribution<3>(Box<3>({-two20, 0, 0}, {0, 1, 1}), 2));
  const MortonDistribution<2> m(domain, 2);
  expect_error([&] { (void)m.owner({4, 0}); }, ErrorCode::out_of_range, {"(4, 0)"});
  expect_error([&] { (void)m.local_offset({0, -1}); }, ErrorCode::out_of_range, {"(0, -1)"});
  expect_error([&] { (void)m.owned_boxes(2); }, ErrorCode::invalid_argument, {"'rank' = 2"});
  expect_error([&] { (void)m.split_code(-1); }, ErrorCode::invalid_argument, {"'rank' = -1"});
}

/// Domains far too large to enumerate: everything is computed from the tree.
TEST(MortonDistribution, HugeDomainsNeverEnumeratePoints) {
  constexpr index_t two20 = index_t{1} << 20;
  const Box<3> domain({-two20 / 2, -7, 0}, {two20 / 2, two20 - 7, two20 - 3});
  const MortonDistribution<3> m(domain, 7);
  EXPECT_EQ(m.levels(), 20);
  BoxList<3> all;
  index_t fewest = volume(domain), most = 0;
  for (int r = 0; r < 7; ++r) {
    const BoxList<3> boxes = m.owned_boxes(r);
    EXPECT_EQ(volume(boxes), m.point_count(r));
    fewest = std::min(fewest, m.point_count(r)), most = std::max(most, m.point_count(r));
    for (const auto& b : boxes) all.push_back(b);
  }
  EXPECT_LE(most - fewest, 1);
  EXPECT_TRUE(is_disjoint(all));
  EXPECT_EQ(volume(all), volume(domain));
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<index_t> u(0, two20 - 4);
  for (int i = 0; i < 200; ++i) {
    const Point<3> p{domain.lo[0] + u(rng), domain.lo[1] + u(rng), domain.lo[2] + u(rng)};
    const int r = m.owner(p);
    EXPECT_TRUE(contains(m.owned_boxes(r), p)) << p;
    EXPECT_EQ(m.local_offset(p), m.UserDistribution<3>::local_offset(p)) << p;
  }
  // A 30^3 box around a segment boundary: pieces tile it, each on the owner of its points.
  const Box<3> box = grow(Box<3>(m.owned_boxes(3)[0].lo, m.owned_boxes(3)[0].lo + Point<3>::filled(1)), 15);
  index_t covered = 0;
  std::set<int> ranks;
  for (const auto& [section, rank] : m.pieces(box)) {
    covered += volume(section);
    ranks.insert(rank);
    for_each_point(section, [&](const Point<3>& p) { ASSERT_EQ(m.owner(p), rank) << p; });
  }
  EXPECT_EQ(covered, volume(intersect(box, domain)));
  EXPECT_GE(ranks.size(), 2u);
  // The widest 1-D and 2-D domains.
  const MortonDistribution<1> line(Box<1>({-(index_t{1} << 61)}, {index_t{1} << 61}), 5);
  EXPECT_EQ(line.levels(), 62);
  EXPECT_EQ(line.owner({(index_t{1} << 61) - 1}), 4);
  EXPECT_EQ(volume(line.owned_boxes(2)), line.point_count(2));
  const MortonDistribution<2> plane(Box<2>({0, 0}, {index_t{1} << 31, 3}), 3);
  EXPECT_EQ(volume(plane.owned_boxes(1)), index_t{1} << 31);
}

}  // namespace
}  // namespace tessera
