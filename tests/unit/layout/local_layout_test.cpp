// The built-in local orders of layout/local_layout.hpp against brute-force numberings, and the
// checks that refuse what cannot be a local layout.
#include "tessera/layout/local_layout.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "morton_distribution/morton_distribution.hpp"

namespace tessera {
namespace {

/// The points of `b` sorted by `key(p)`: the numbering an order must give, written independently.
template <std::size_t N, class Key>
std::vector<Point<N>> sorted_points(const Box<N>& b, Key key) {
  std::vector<Point<N>> points;
  for_each_point(b, [&](const Point<N>& p) { points.push_back(p); });
  std::stable_sort(points.begin(), points.end(), [&](const Point<N>& x, const Point<N>& y) { return key(x) < key(y); });
  return points;
}

template <std::size_t N>
Point<N> reversed_axes(const Point<N>& p) {
  Point<N> r;
  for (std::size_t d = 0; d < N; ++d) r[d] = p[N - 1 - d];
  return r;
}

/// 20 random Morton distributions (1-12 points a side in 2-D, 1-6 in 3-D, 1-5 ranks), each stored
/// in the four orders (random tile side and padding): `visit(dist, order, ranks, tile, pad)`.
template <std::size_t N, class Visit>
void for_each_random_local_order(std::uint64_t seed, Visit&& visit) {
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 20; ++trial) {
    Box<N> domain;
    for (std::size_t d = 0; d < N; ++d) {
      domain.lo[d] = static_cast<index_t>(rng() % 7) - 3;
      domain.hi[d] = domain.lo[d] + 1 + static_cast<index_t>(rng() % (N == 2 ? 12 : 6));
    }
    const int ranks = 1 + static_cast<int>(rng() % 5);
    const auto morton = std::make_shared<const tessera_examples::MortonDistribution<N>>(domain, ranks);
    const index_t tile = 1 + static_cast<index_t>(rng() % 4), pad = 1 + static_cast<index_t>(rng() % 5);
    for (const auto& order : {LocalOrder<N>::row_major(), LocalOrder<N>::column_major(), LocalOrder<N>::padded(pad),
                              LocalOrder<N>::tiled(tile)}) {
      const auto dist = with_local_order(Distribution<N>::user(morton), order);
      SCOPED_TRACE(detail::concat(dist));
      visit(dist, order, ranks, tile, pad);
    }
  }
}

template <std::size_t N>
void orders_number_points_as_defined(std::uint64_t seed) {
  for_each_random_local_order<N>(
      seed, [&](const Distribution<N>& dist, const LocalOrder<N>& order, int ranks, index_t tile, index_t pad) {
        EXPECT_TRUE(dist.has_local_layout());
        for (int r = 0; r < ranks; ++r) check_local_layout(dist, r);  // one-to-one, in range
        for (int r = 0; r < ranks; ++r) {
          index_t before = 0;
          for (const auto& b : dist.owned_boxes(r)) {
            std::vector<Point<N>> expected;
            switch (order.kind()) {
              case LocalOrder<N>::Kind::row_major:
              case LocalOrder<N>::Kind::padded:
                expected = sorted_points(b, [](const Point<N>& p) { return p; });
                break;
              case LocalOrder<N>::Kind::column_major:
                expected = sorted_points(b, reversed_axes<N>);
                break;
              case LocalOrder<N>::Kind::tiled:
                expected = sorted_points(b, [&](const Point<N>& p) {
                  Point<N> t;
                  for (std::size_t d = 0; d < N; ++d) t[d] = (p[d] - b.lo[d]) / tile;
                  return std::make_pair(t, p);
                });
                break;
            }
            const index_t row = extent(b, N - 1), padded_row = (row + pad - 1) / pad * pad;
            for (std::size_t k = 0; k < expected.size(); ++k) {
              index_t want = before + static_cast<index_t>(k);
              if (order.kind() == LocalOrder<N>::Kind::padded)
                want = before + static_cast<index_t>(k) / row * padded_row + static_cast<index_t>(k) % row;
              ASSERT_EQ(dist.local_offset(expected[k]), want) << expected[k] << " in " << b;
            }
            before += order.kind() == LocalOrder<N>::Kind::padded ? volume(b) / row * padded_row : volume(b);
          }
          EXPECT_EQ(dist.local_storage_size(r), before);
        }
      });
}

TEST(LocalOrder, NumbersPointsAsDefined2D) { orders_number_points_as_defined<2>(1800); }
TEST(LocalOrder, NumbersPointsAsDefined3D) { orders_number_points_as_defined<3>(1801); }

TEST(LocalOrder, NamesHashesAndEquality) {
  const Box<2> domain({0, 0}, {6, 5});
  const auto plain = Distribution<2>::user(std::make_shared<const tessera_examples::MortonDistribution<2>>(domain, 3));
  const auto tiled = with_local_order(plain, LocalOrder<2>::tiled(2));
  EXPECT_EQ(detail::concat(tiled), plain.user_distribution()->name() + " stored tiled(2)");
  EXPECT_EQ(tiled, with_local_order(plain, LocalOrder<2>::tiled(2)));
  EXPECT_NE(tiled, with_local_order(plain, LocalOrder<2>::tiled(3)));
  EXPECT_NE(tiled.hash(), with_local_order(plain, LocalOrder<2>::padded(2)).hash());
  EXPECT_NE(tiled, plain);  // same owners, other storage: schedules differ, so the keys must
  EXPECT_FALSE(plain.has_local_layout());
  EXPECT_EQ(plain.local_storage_size(1), plain.local_size(1));
}

// local_run: how far from p the offsets continue one by one. Every claim is checked against the
// offsets, and the claims are the longest the order allows where a step is one element (row-major
// and padded along the last axis, column-major along the first, tiled along the last inside its tile).
template <std::size_t N>
void runs_follow_the_offsets(std::uint64_t seed) {
  for_each_random_local_order<N>(seed, [&](const Distribution<N>& dist, const LocalOrder<N>& order, int ranks,
                                           index_t tile, index_t /*pad*/) {
    for (int r = 0; r < ranks; ++r)
      for (const auto& b : dist.owned_boxes(r))
        for_each_point(b, [&](const Point<N>& p) {
          for (std::size_t axis = 0; axis < N; ++axis) {
            const index_t left = b.hi[axis] - p[axis];
            const index_t n = dist.local_run(p, axis, left);
            ASSERT_GE(n, 1);
            ASSERT_LE(n, left);
            Point<N> q = p;
            for (index_t i = 1; i < n; ++i) {
              ++q[axis];
              ASSERT_EQ(dist.local_offset(q), dist.local_offset(p) + i) << p << " axis " << axis << " run " << n;
            }
            index_t longest = 1;  // where a step along `axis` is one element
            const bool last = axis == N - 1, first = axis == 0;
            if ((order.kind() == LocalOrder<N>::Kind::row_major || order.kind() == LocalOrder<N>::Kind::padded) && last)
              longest = left;
            if (order.kind() == LocalOrder<N>::Kind::column_major && first) longest = left;
            if (order.kind() == LocalOrder<N>::Kind::tiled && last)
              longest = std::min(left, tile - (p[axis] - b.lo[axis]) % tile);
            ASSERT_GE(n, longest) << p << " axis " << axis;
            ASSERT_EQ(dist.local_run(p, axis, 1), 1);
          }
        });
  });
}

TEST(LocalOrder, RunsFollowTheOffsets2D) { runs_follow_the_offsets<2>(1810); }
TEST(LocalOrder, RunsFollowTheOffsets3D) { runs_follow_the_offsets<3>(1811); }

/// A column-major layout that claims longer runs than it has (`overclaim`: one more than asked).
class LocalLayoutWithBadRuns final : public UserDistribution<2> {
 public:
  LocalLayoutWithBadRuns(Distribution<2> inner, bool overclaim)
      : UserDistribution<2>(inner.domain(), inner.comm_size()), inner_(std::move(inner)), overclaim_(overclaim) {}
  [[nodiscard]] std::string name() const override { return "bad runs"; }
  [[nodiscard]] int owner(const Point<2>& p) const override { return inner_.owner(p); }
  [[nodiscard]] BoxList<2> owned_boxes(int rank) const override { return inner_.owned_boxes(rank); }
  [[nodiscard]] index_t local_offset(const Point<2>& p) const override { return inner_.local_offset(p); }
  [[nodiscard]] bool has_local_layout() const noexcept override { return true; }
  [[nodiscard]] index_t local_storage_size(int rank) const override { return inner_.local_storage_size(rank); }
  [[nodiscard]] index_t local_run(const Point<2>&, std::size_t, index_t count) const override {
    return overclaim_ ? count + 1 : count;
  }

 private:
  Distribution<2> inner_;
  bool overclaim_;
};

TEST(LocalOrder, ALayoutWhoseRunsDoNotHoldIsRefused) {
  const Box<2> domain({0, 0}, {6, 5});
  const auto plain = Distribution<2>::user(std::make_shared<const tessera_examples::MortonDistribution<2>>(domain, 3));
  const auto column_major = with_local_order(plain, LocalOrder<2>::column_major());
  for (int r = 0; r < 3; ++r) EXPECT_NO_THROW(check_local_layout(column_major, r));
  // Whole rows along the last axis claimed consecutive: a column-major box has them apart.
  const auto lying = Distribution<2>::user(std::make_shared<const LocalLayoutWithBadRuns>(column_major, false));
  bool refused = false;
  for (int r = 0; r < 3; ++r) {
    try {
      check_local_layout(lying, r);
    } catch (const Error& e) {
      refused = true;
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
      EXPECT_NE(std::string(e.what()).find("local_run"), std::string::npos) << e.what();
    }
  }
  EXPECT_TRUE(refused);
  // More than was asked for: refused where it is asked.
  const auto over = Distribution<2>::user(std::make_shared<const LocalLayoutWithBadRuns>(column_major, true));
  EXPECT_THROW((void)over.local_run(Point<2>{0, 0}, 1, 3), Error);
  EXPECT_EQ(over.local_run(Point<2>{0, 0}, 1, 1), 1);  // one point: nothing to ask
}

TEST(LocalOrder, RefusesWhatCannotBeALocalLayout) {
  const Box<2> domain({0, 0}, {6, 5});
  const auto plain = Distribution<2>::user(std::make_shared<const tessera_examples::MortonDistribution<2>>(domain, 3));
  EXPECT_THROW((void)LocalOrder<2>::tiled(0), Error);
  EXPECT_THROW((void)LocalOrder<2>::padded(-1), Error);
  const Distribution<2> dimensional(domain, ProcGrid<2>::with_shape(3, {3, 1}), {block(), block()});
  EXPECT_THROW((void)with_local_order(dimensional, LocalOrder<2>::column_major()), Error);
  EXPECT_THROW((void)with_local_order(with_local_order(plain, LocalOrder<2>::tiled(2)), LocalOrder<2>::tiled(2)),
               Error);
}

}  // namespace
}  // namespace tessera
