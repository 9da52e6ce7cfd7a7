// Orientations (signed axis permutations) and oriented maps against a brute-force model: each
// orientation as an N x N matrix of 0 and +-1 applied to points one by one. All 8 in 2-D and all
// 48 in 3-D: application, composition, inverse, images of boxes and of their faces.
#include <gtest/gtest.h>

#include <array>
#include <random>
#include <set>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/geometry.hpp"
#include "tessera/geometry/orientation.hpp"

namespace tessera {
namespace {

template <std::size_t N>
using Matrix = std::array<std::array<int, N>, N>;

template <std::size_t N>
Matrix<N> matrix_of(const Orientation<N>& o) {
  Matrix<N> m{};
  for (std::size_t d = 0; d < N; ++d) m[d][static_cast<std::size_t>(o.perm()[d])] = o.flips()[d] ? -1 : 1;
  return m;
}

template <std::size_t N>
Point<N> times(const Matrix<N>& m, const Point<N>& x) {
  Point<N> y{};
  for (std::size_t d = 0; d < N; ++d)
    for (std::size_t s = 0; s < N; ++s) y[d] += m[d][s] * x[s];
  return y;
}

template <std::size_t N>
Point<N> random_point_within(std::mt19937_64& rng, index_t range) {
  Point<N> p;
  for (std::size_t d = 0; d < N; ++d) p[d] = static_cast<index_t>(rng() % static_cast<std::uint64_t>(2 * range + 1)) - range;
  return p;
}

template <std::size_t N>
Box<N> random_box_within(std::mt19937_64& rng) {
  Box<N> b;
  for (std::size_t d = 0; d < N; ++d) {
    b.lo[d] = static_cast<index_t>(rng() % 11) - 5;
    b.hi[d] = b.lo[d] + 1 + static_cast<index_t>(rng() % 4);
  }
  return b;
}

template <std::size_t N>
std::set<std::array<index_t, N>> points_of(const Box<N>& b) {
  std::set<std::array<index_t, N>> out;
  for_each_point(b, [&](const Point<N>& p) {
    std::array<index_t, N> a{};
    for (std::size_t d = 0; d < N; ++d) a[d] = p[d];
    out.insert(a);
  });
  return out;
}

template <std::size_t N>
void every_orientation_is_distinct_and_a_signed_permutation(std::size_t expected) {
  const auto all = all_orientations<N>();
  ASSERT_EQ(all.size(), expected);
  std::set<Matrix<N>> seen;
  for (const auto& o : all) {
    const Matrix<N> m = matrix_of(o);
    seen.insert(m);
    for (std::size_t d = 0; d < N; ++d) {  // one +-1 per row and per column
      int row = 0, column = 0;
      for (std::size_t s = 0; s < N; ++s) row += m[d][s] != 0, column += m[s][d] != 0;
      EXPECT_EQ(row, 1);
      EXPECT_EQ(column, 1);
    }
  }
  EXPECT_EQ(seen.size(), expected);
}

TEST(Orientation, TwoDimensionsHaveEightThreeHaveFortyEight) {
  every_orientation_is_distinct_and_a_signed_permutation<2>(8);
  every_orientation_is_distinct_and_a_signed_permutation<3>(48);
  EXPECT_EQ(all_orientations<1>().size(), 2U);
}

template <std::size_t N>
void algebra_matches_matrices() {
  std::mt19937_64 rng(17 + N);
  const auto all = all_orientations<N>();
  for (const auto& a : all) {
    const Matrix<N> ma = matrix_of(a);
    const Orientation<N> inv = a.inverse();
    EXPECT_EQ(a.then(inv), Orientation<N>());
    EXPECT_EQ(inv.then(a), Orientation<N>());
    for (std::size_t s = 0; s < N; ++s) EXPECT_EQ(a.source_axis(a.image_axis(s)), s);
    for (int k = 0; k < 5; ++k) {
      const Point<N> x = random_point_within<N>(rng, 50);
      EXPECT_EQ(a.apply(x), times(ma, x));
      EXPECT_EQ(inv.apply(a.apply(x)), x);
    }
    for (const auto& b : all) {
      const Orientation<N> ab = a.then(b);  // first a, then b
      const Point<N> x = random_point_within<N>(rng, 50);
      EXPECT_EQ(ab.apply(x), times(matrix_of(b), times(ma, x)));
    }
  }
}

TEST(Orientation, ApplyComposeAndInverseMatchMatrices) {
  algebra_matches_matrices<2>();
  algebra_matches_matrices<3>();
}

template <std::size_t N>
void boxes_and_faces_map_point_by_point() {
  std::mt19937_64 rng(99 + N);
  for (const auto& o : all_orientations<N>()) {
    for (int k = 0; k < 4; ++k) {
      const OrientedMap<N> m{o, random_point_within<N>(rng, 6), random_point_within<N>(rng, 6)};
      const Box<N> b = random_box_within<N>(rng);
      const Box<N> image = m.map(b);
      std::set<std::array<index_t, N>> mapped;
      for_each_point(b, [&](const Point<N>& p) {
        const Point<N> q = m.map(p);
        EXPECT_EQ(m.inverse().map(q), p);
        std::array<index_t, N> a{};
        for (std::size_t d = 0; d < N; ++d) a[d] = q[d];
        mapped.insert(a);
      });
      EXPECT_EQ(mapped, points_of(image)) << "box " << b << " image " << image;
      EXPECT_EQ(m.inverse().map(image), b);
      // A face (the boundary layer of axis s, either side) lands on a face of the image, along the
      // image axis that runs along s, on the side the flip says.
      for (std::size_t s = 0; s < N; ++s)
        for (bool upper : {false, true}) {
          Box<N> face = b;
          if (upper)
            face.lo[s] = b.hi[s] - 1;
          else
            face.hi[s] = b.lo[s] + 1;
          const std::size_t d = o.image_axis(s);
          const bool image_upper = upper != o.flipped(d);
          Box<N> image_face = image;
          if (image_upper)
            image_face.lo[d] = image.hi[d] - 1;
          else
            image_face.hi[d] = image.lo[d] + 1;
          EXPECT_EQ(m.map(face), image_face);
        }
      // onto: the map that lays b onto a box of the permuted extents, at a random place.
      Box<N> target;
      const Point<N> at = random_point_within<N>(rng, 20);
      for (std::size_t d = 0; d < N; ++d) {
        target.lo[d] = at[d];
        target.hi[d] = at[d] + extent(b, o.source_axis(d));
      }
      const auto glue = OrientedMap<N>::onto(o, b, target);
      EXPECT_EQ(glue.map(b), target);
      for (std::size_t d = 0; d < N; ++d) {  // b's lower corner goes where the flips say
        const Point<N> q = glue.map(b.lo);
        EXPECT_EQ(q[d], o.flipped(d) ? target.hi[d] - 1 : target.lo[d]);
      }
    }
  }
}

TEST(Orientation, BoxesAndFacesMapPointByPoint) {
  boxes_and_faces_map_point_by_point<2>();
  boxes_and_faces_map_point_by_point<3>();
}

// OrientedMap::then: the composite of two placed maps sends every point where the second sends
// the first's image (a corner ghost across two interfaces of a multiblock domain is read so).
template <std::size_t N>
void placed_maps_compose_point_by_point() {
  std::mt19937_64 rng(123 + N);
  const auto all = all_orientations<N>();
  for (int k = 0; k < 200; ++k) {
    const OrientedMap<N> first{all[rng() % all.size()], random_point_within<N>(rng, 9), random_point_within<N>(rng, 9)};
    const OrientedMap<N> second{all[rng() % all.size()], random_point_within<N>(rng, 9), random_point_within<N>(rng, 9)};
    const OrientedMap<N> both = first.then(second);
    for (int j = 0; j < 5; ++j) {
      const Point<N> x = random_point_within<N>(rng, 30);
      EXPECT_EQ(both.map(x), second.map(first.map(x)));
    }
    const Box<N> b = random_box_within<N>(rng);
    EXPECT_EQ(both.map(b), second.map(first.map(b)));
    EXPECT_EQ(both.then(both.inverse()).map(b), b);
  }
}

TEST(Orientation, PlacedMapsComposePointByPoint) {
  placed_maps_compose_point_by_point<2>();
  placed_maps_compose_point_by_point<3>();
}

TEST(Orientation, NotAPermutationIsAnError) {
  EXPECT_THROW((Orientation<2>({0, 0}, {false, false})), Error);
  EXPECT_THROW((Orientation<3>({0, 1, 3}, {false, false, false})), Error);
  EXPECT_THROW((Orientation<3>({-1, 1, 2}, {false, false, false})), Error);
  try {
    (void)Orientation<3>({2, 1, 2}, {false, true, false});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("not a permutation"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tessera
