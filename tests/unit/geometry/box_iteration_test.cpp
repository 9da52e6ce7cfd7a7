#include <gtest/gtest.h>

#include <vector>

#include "random_geometry.hpp"
#include "tessera/geometry.hpp"

namespace tessera {
namespace {

using testing::random_box;

constexpr index_t count_points(const Box<3>& b) {
  index_t n = 0;
  for_each_point(b, [&](const Point<3>&) { ++n; });
  return n;
}
static_assert(count_points(Box<3>({0, 0, 0}, {2, 3, 4})) == 24, "for_each_point is constexpr");

TEST(BoxIteration, OffsetsFollowTheDocumentedOrders) {
  const Box<2> b({10, 20}, {12, 23});
  EXPECT_EQ(offset_row_major(b, Point<2>{10, 20}), 0);
  EXPECT_EQ(offset_row_major(b, Point<2>{10, 21}), 1);
  EXPECT_EQ(offset_row_major(b, Point<2>{11, 20}), 3);
  EXPECT_EQ(offset_column_major(b, Point<2>{11, 20}), 1);
  EXPECT_EQ(offset_column_major(b, Point<2>{10, 21}), 2);
  EXPECT_EQ(row_major_strides(b), (Point<2>{3, 1}));
  std::vector<Point<2>> seen;
  for (const auto& p : points(b)) seen.push_back(p);
  EXPECT_EQ(seen, (std::vector<Point<2>>{{10, 20}, {10, 21}, {10, 22}, {11, 20}, {11, 21}, {11, 22}}));
}

TEST(BoxIteration, EmptyBoxVisitsNothing) {
  int n = 0;
  for_each_point(Box<2>({0, 0}, {0, 5}), [&](const Point<2>&) { ++n; });
  for ([[maybe_unused]] const auto& p : points(Box<3>({0, 0, 0}, {3, -1, 3}))) ++n;
  EXPECT_EQ(n, 0);
}

template <class D>
class IterationProperties : public ::testing::Test {};
TYPED_TEST_SUITE(IterationProperties, testing::AllDims);

TYPED_TEST(IterationProperties, OffsetsAreBijectionsAndIterationIsRowMajor) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(5 + N);
  for (int trial = 0; trial < 200; ++trial) {
    const auto b = random_box<N>(rng, 3);
    std::vector<Point<N>> by_callback, by_range;
    for_each_point(b, [&](const Point<N>& p) { by_callback.push_back(p); });
    for (const auto& p : points(b)) by_range.push_back(p);
    ASSERT_EQ(by_callback, by_range);
    ASSERT_EQ(static_cast<index_t>(by_range.size()), volume(b));
    std::vector<char> hit_row(by_range.size()), hit_col(by_range.size());
    for (std::size_t i = 0; i < by_range.size(); ++i) {
      const auto& p = by_range[i];
      ASSERT_TRUE(contains(b, p));
      EXPECT_EQ(offset_row_major(b, p), static_cast<index_t>(i)) << "iteration is not row-major";
      EXPECT_EQ(point_at_row_major(b, offset_row_major(b, p)), p);
      const index_t c = offset_column_major(b, p);
      ASSERT_GE(c, 0);
      ASSERT_LT(c, volume(b));
      EXPECT_EQ(point_at_column_major(b, c), p);
      hit_col[static_cast<std::size_t>(c)]++;
      index_t strided = 0;
      const auto s = row_major_strides(b);
      for (std::size_t d = 0; d < N; ++d) strided += (p[d] - b.lo[d]) * s[d];
      EXPECT_EQ(strided, static_cast<index_t>(i));
    }
    for (char h : hit_col) EXPECT_EQ(h, 1);
  }
}

}  // namespace
}  // namespace tessera
