#pragma once
// Random points and boxes for property tests, and brute-force point sets to check them against.
#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <set>
#include <type_traits>

#include "tessera/geometry.hpp"

namespace tessera::testing {

/// Dimensions every geometry property test runs over (typed tests use these).
template <std::size_t N>
using Dim = std::integral_constant<std::size_t, N>;

/// The dimensions 1..4 as a GoogleTest type list: `TYPED_TEST_SUITE(MySuite, testing::AllDims)`.
using AllDims = ::testing::Types<Dim<1>, Dim<2>, Dim<3>, Dim<4>>;

/// A box with corners in [-range, range], empty in about one case out of ten.
template <std::size_t N>
Box<N> random_box(std::mt19937_64& rng, index_t range = 6) {
  std::uniform_int_distribution<index_t> coord(-range, range);
  Box<N> b;
  for (std::size_t d = 0; d < N; ++d) {
    index_t x = coord(rng), y = coord(rng);
    if (x > y) std::swap(x, y);
    b.lo[d] = x;
    b.hi[d] = y + 1;
  }
  if (rng() % 10 == 0) std::swap(b.lo[0], b.hi[0]);  // an empty box with non-trivial bounds
  return b;
}

template <std::size_t N>
Point<N> random_point(std::mt19937_64& rng, index_t range = 7) {
  std::uniform_int_distribution<index_t> coord(-range, range);
  Point<N> p;
  for (std::size_t d = 0; d < N; ++d) p[d] = coord(rng);
  return p;
}

/// Every point of `b`, enumerated by plain nested counting (independent of for_each_point).
template <std::size_t N>
std::set<Point<N>> point_set(const Box<N>& b) {
  std::set<Point<N>> out;
  if (b.empty()) return out;
  Point<N> p = b.lo;
  while (true) {
    out.insert(p);
    std::size_t d = 0;
    while (d < N) {
      if (++p[d] < b.hi[d]) break;
      p[d] = b.lo[d];
      ++d;
    }
    if (d == N) return out;
  }
}

}  // namespace tessera::testing
