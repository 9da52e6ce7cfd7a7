#include <gtest/gtest.h>

#include <sstream>

#include "random_geometry.hpp"
#include "tessera/geometry.hpp"

namespace tessera {
namespace {

using testing::point_set;
using testing::random_box;

TEST(BoxList, DropsEmptyBoxesAndPrints) {
  BoxList<2> list{Box<2>({0, 0}, {2, 2}), Box<2>(), Box<2>({2, 0}, {4, 2})};
  EXPECT_EQ(list.size(), 2u);
  EXPECT_EQ(volume(list), 8);
  EXPECT_TRUE(is_disjoint(list));
  EXPECT_EQ(bounding_box(list), Box<2>({0, 0}, {4, 2}));
  std::ostringstream out;
  out << list;
  EXPECT_EQ(out.str(), "{[0,2)x[0,2), [2,4)x[0,2)}");
}

TEST(BoxList, OverlapIsDetected) {
  EXPECT_FALSE(is_disjoint(BoxList<2>{Box<2>({0, 0}, {2, 2}), Box<2>({5, 5}, {6, 6}), Box<2>({1, 1}, {3, 3})}));
  EXPECT_TRUE(is_disjoint(BoxList<1>{}));
}

TEST(BoxList, GhostShellOfAnOwnedBox) {
  // The ghost region of an owned box: grow it, take away the box, keep what lies in the domain.
  const Box<2> domain({0, 0}, {8, 8}), owned({0, 4}, {4, 8});
  const auto shell = intersect(difference(BoxList<2>{grow(owned, 1)}, owned), domain);
  EXPECT_EQ(volume(shell), 4 + 4 + 1);  // below, left, and the lower-left corner
  EXPECT_TRUE(is_disjoint(shell));
}

template <class D>
class BoxListProperties : public ::testing::Test {};
using Dims = ::testing::Types<testing::Dim<1>, testing::Dim<2>, testing::Dim<3>>;
TYPED_TEST_SUITE(BoxListProperties, Dims);

TYPED_TEST(BoxListProperties, OperationsMatchPointSets) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(3 + N);
  for (int trial = 0; trial < 200; ++trial) {
    BoxList<N> list;
    const auto n = rng() % 6;
    for (std::size_t i = 0; i < n; ++i) list.push_back(random_box<N>(rng, 4));
    const auto cut = random_box<N>(rng, 4);
    // Disjointness against counting.
    std::multiset<Point<N>> all;
    for (const auto& b : list)
      for (const auto& p : point_set(b)) all.insert(p);
    const std::set<Point<N>> distinct(all.begin(), all.end());
    EXPECT_EQ(is_disjoint(list), all.size() == distinct.size());
    EXPECT_EQ(volume(list), static_cast<index_t>(all.size()));
    // intersect and difference against point sets.
    const auto pc = point_set(cut);
    std::multiset<Point<N>> inside, outside;
    for (const auto& p : all) (pc.count(p) ? inside : outside).insert(p);
    std::multiset<Point<N>> got_inside, got_outside;
    for (const auto& b : intersect(list, cut))
      for (const auto& p : point_set(b)) got_inside.insert(p);
    for (const auto& b : difference(list, cut))
      for (const auto& p : point_set(b)) got_outside.insert(p);
    EXPECT_EQ(got_inside, inside);
    EXPECT_EQ(got_outside, outside);
    for (const auto& p : distinct) EXPECT_TRUE(contains(list, p));
  }
}

}  // namespace
}  // namespace tessera
