// BoxSet and its distribution against brute force on random irregular sets in 1-3 D: every point's
// box, owner and local offset, every query's pieces, and every kind of bad input.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <vector>

#include "random_box_set.hpp"
#include "random_geometry.hpp"
#include "tessera/layout/distribution.hpp"

namespace tessera {
namespace {

template <class D>
class BoxSetTest : public ::testing::Test {};
using Dims = ::testing::Types<testing::Dim<1>, testing::Dim<2>, testing::Dim<3>>;
TYPED_TEST_SUITE(BoxSetTest, Dims);

template <std::size_t N>
Box<N> cube(index_t lo, index_t hi) {
  return Box<N>(Point<N>::filled(lo), Point<N>::filled(hi));
}

TYPED_TEST(BoxSetTest, DistributionAgreesWithBruteForce) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(101 + N);
  const index_t side = N == 1 ? 60 : N == 2 ? 16 : 8;
  for (int trial = 0; trial < 40; ++trial) {
    const int P = 1 + static_cast<int>(rng() % 5);
    const BoxSet<N> set = testing::random_box_set<N>(rng, cube<N>(-3, side - 3), 1 + trial % 7, 30, P);
    const auto dist = Distribution<N>::from_box_set(set);
    SCOPED_TRACE(::testing::Message() << set);
    ASSERT_NE(dist.box_set(), nullptr);
    EXPECT_EQ(*dist.box_set(), set);
    EXPECT_EQ(dist.domain(), set.domain());
    // Brute force: the box of every point by a scan.
    std::map<Point<N>, std::size_t> box_of;
    for (std::size_t i = 0; i < set.size(); ++i) for_each_point(set.box(i), [&](const Point<N>& p) { box_of[p] = i; });
    EXPECT_EQ(dist.covers_domain(), static_cast<index_t>(box_of.size()) == volume(set.domain()));
    // Every rank's boxes: those it owns, ascending; local offsets a bijection onto its cells.
    for (int r = 0; r < P; ++r) {
      std::vector<std::size_t> mine;
      for (std::size_t i = 0; i < set.size(); ++i)
        if (set.owner(i) == r) mine.push_back(i);
      EXPECT_EQ(std::vector<std::size_t>(set.boxes_of(r).begin(), set.boxes_of(r).end()), mine);
      EXPECT_EQ(dist.local_size(r), set.cells_of(r));
      std::set<index_t> offsets;
      for (const auto& b : dist.owned_boxes(r))
        for_each_point(b, [&](const Point<N>& p) { offsets.insert(dist.local_offset(p)); });
      EXPECT_EQ(static_cast<index_t>(offsets.size()), set.cells_of(r));
      if (!offsets.empty()) {
        EXPECT_EQ(*offsets.begin(), 0);
        EXPECT_EQ(*offsets.rbegin(), set.cells_of(r) - 1);
      }
    }
    for_each_point(set.domain(), [&](const Point<N>& p) {
      const auto it = box_of.find(p);
      if (it == box_of.end()) {
        EXPECT_FALSE(set.find(p).has_value()) << p;
        EXPECT_THROW((void)dist.owner(p), Error) << p;
      } else {
        EXPECT_EQ(set.find(p), it->second) << p;
        EXPECT_EQ(dist.owner(p), set.owner(it->second)) << p;
      }
    });
    // Pieces of random query boxes: disjoint, each in one box of its owner, covering exactly the
    // query's points that some box holds.
    for (int q = 0; q < 10; ++q) {
      const Box<N> query = shift(testing::random_box<N>(rng, side / 2), Point<N>::filled(side / 2 - 3));
      std::map<Point<N>, int> covered;
      for (const auto& [section, rank] : dist.pieces(query)) {
        bool in_one_box = false;
        for (const auto& b : dist.owned_boxes(rank)) in_one_box = in_one_box || contains(b, bounding_box(section));
        EXPECT_TRUE(in_one_box) << "piece " << bounding_box(section) << " of rank " << rank;
        for_each_point(section, [&](const Point<N>& p) { EXPECT_TRUE(covered.emplace(p, rank).second) << p; });
      }
      std::map<Point<N>, int> expected;
      for_each_point(intersect(query, set.domain()), [&](const Point<N>& p) {
        if (const auto it = box_of.find(p); it != box_of.end()) expected[p] = set.owner(it->second);
      });
      EXPECT_EQ(covered, expected) << "query " << query;
    }
  }
}

TEST(BoxSet, AnLShapeWithAHole) {
  const BoxSet<2> set({Box<2>({0, 0}, {4, 4}), Box<2>({0, 4}, {4, 8}), Box<2>({4, 0}, {8, 4})}, {0, 0, 1}, 3);
  EXPECT_EQ(set.domain(), Box<2>({0, 0}, {8, 8}));
  EXPECT_EQ(set.cells(), 48);
  EXPECT_EQ(set.find({5, 1}), std::size_t{2});
  EXPECT_FALSE(set.find({5, 5}).has_value());
  EXPECT_EQ(set.boxes_of(0).size(), 2U);
  EXPECT_TRUE(set.boxes_of(2).empty());
  EXPECT_EQ(set.meeting(Box<2>({3, 3}, {5, 5})), (std::vector<std::size_t>{0, 1, 2}));
  const auto dist = Distribution<2>::from_box_set(set);
  EXPECT_FALSE(dist.covers_domain());
  EXPECT_EQ(dist.local_offset({2, 5}), 16 + 2 * 4 + 1);  // second patch of rank 0
  EXPECT_EQ(dist, Distribution<2>::from_box_set(set));
  EXPECT_NE(dist, Distribution<2>::from_box_set(BoxSet<2>({Box<2>({0, 0}, {4, 4}), Box<2>({0, 4}, {4, 8}),
                                                           Box<2>({4, 0}, {8, 4})}, {0, 1, 1}, 3)));
}

template <std::size_t N>
void expect_error(ErrorCode code, const std::string& words, auto&& make) {
  try {
    make();
    ADD_FAILURE() << "no error; expected one saying '" << words << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(BoxSet, BadInputIsANamedError) {
  using B = Box<2>;
  expect_error<2>(ErrorCode::invalid_argument, "overlaps boxes[0]",
                  [] { BoxSet<2>({B({0, 0}, {4, 4}), B({6, 6}, {7, 7}), B({3, 3}, {5, 5})}, {0, 0, 0}, 1); });
  expect_error<2>(ErrorCode::invalid_argument, "is empty",
                  [] { BoxSet<2>({B({0, 0}, {4, 4}), B({5, 5}, {5, 9})}, {0, 0}, 1); });
  expect_error<2>(ErrorCode::invalid_argument, "owners[1]", [] { BoxSet<2>({B({0, 0}, {4, 4}), B({5, 5}, {6, 9})}, {0, 2}, 2); });
  expect_error<2>(ErrorCode::invalid_argument, "owners[0]", [] { BoxSet<2>({B({0, 0}, {4, 4})}, {-1}, 2); });
  expect_error<2>(ErrorCode::invalid_argument, "one owner per box", [] { BoxSet<2>({B({0, 0}, {4, 4})}, {0, 0}, 2); });
  expect_error<2>(ErrorCode::invalid_argument, "comm_size", [] { BoxSet<2>({}, {}, 0); });
  expect_error<2>(ErrorCode::out_of_range, "not inside the domain",
                  [] { BoxSet<2>(B({0, 0}, {8, 8}), {B({0, 0}, {4, 4}), B({6, 6}, {9, 7})}, {0, 0}, 1); });
}

TEST(BoxSet, ManyBoxesAreCheckedThroughTheIndex) {
  // 40,000 unit boxes in a checkerboard: validation and queries stay fast (the index, not scans).
  std::vector<Box<2>> boxes;
  for (index_t i = 0; i < 400; ++i)
    for (index_t j = (i % 2); j < 200; j += 2) boxes.push_back(Box<2>({i, j}, {i + 1, j + 1}));
  std::vector<int> owners(boxes.size());
  for (std::size_t k = 0; k < owners.size(); ++k) owners[k] = static_cast<int>(k % 7);
  const BoxSet<2> set(boxes, owners, 7);
  EXPECT_EQ(set.size(), 40000U);
  EXPECT_EQ(set.meeting(Box<2>({10, 10}, {12, 12})).size(), 2U);
  EXPECT_LT(set.metadata_bytes(), 200 * set.size());
}

}  // namespace
}  // namespace tessera
