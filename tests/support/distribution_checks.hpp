#pragma once
// Brute-force checks of the invariants every distribution must keep (each point's owner, every
// rank's owned set, local offsets and pieces against their definitions), shared by the built-in
// and the user-defined distribution tests.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <vector>

#include "random_geometry.hpp"
#include "tessera/layout/distribution.hpp"

namespace tessera::testing {

/// Every point of the domain: its owner, and every rank's owned set, local offsets and pieces,
/// compared with what the definitions say. `what` is printed with every failure.
template <std::size_t N>
void check_distribution(const Distribution<N>& dist, std::mt19937_64& rng, const std::string& what) {
  SCOPED_TRACE(what);
  const Box<N> domain = dist.domain();
  const int P = dist.comm_size();
  // 1. Each point has exactly one owner, and the owner's sections contain it.
  std::map<Point<N>, int> owner_of;
  std::vector<index_t> owned_count(static_cast<std::size_t>(P), 0);
  for (int r = 0; r < P; ++r) {
    index_t listed = 0;
    for (const auto& s : dist.owned_sections(r)) {
      for_each_point(s, [&](const Point<N>& p) {
        ASSERT_TRUE(contains(domain, p)) << "rank " << r << " owns " << p << " outside the domain";
        ASSERT_TRUE(owner_of.emplace(p, r).second) << p << " owned by rank " << r << " and rank " << owner_of[p];
        ++listed;
      });
    }
    ASSERT_EQ(listed, dist.local_size(r)) << "rank " << r;
    owned_count[static_cast<std::size_t>(r)] = listed;
    const auto boxes = dist.owned_boxes(r);
    EXPECT_TRUE(is_disjoint(boxes));
    EXPECT_EQ(volume(boxes), listed) << "owned_boxes of rank " << r;
    if (!dist.is_user_defined()) {
      const Point<N> e = dist.local_extents(r);
      index_t v = 1;
      for (std::size_t d = 0; d < N; ++d) v *= e[d];
      EXPECT_EQ(v, listed) << "local extents of rank " << r;
      if (!dist.grid().is_active(r)) {
        EXPECT_EQ(listed, 0) << "skeleton rank " << r << " owns data";
      }
    }
  }
  ASSERT_EQ(static_cast<index_t>(owner_of.size()), volume(domain)) << "owned sets do not tile the domain";
  // 2. owner() agrees; local_offset is a bijection onto [0, local size) per rank.
  std::vector<std::set<index_t>> offsets(static_cast<std::size_t>(P));
  for (const auto& [p, r] : owner_of) {
    ASSERT_EQ(dist.owner(p), r) << "owner" << p;
    const index_t off = dist.local_offset(p);
    ASSERT_GE(off, 0);
    ASSERT_LT(off, owned_count[static_cast<std::size_t>(r)]) << "local_offset" << p;
    ASSERT_TRUE(offsets[static_cast<std::size_t>(r)].insert(off).second) << "two points share local offset " << off;
    if (!dist.is_user_defined()) {
      ASSERT_EQ(dist.global_point(r, off), p);
    }
  }
  // 3. pieces() of random boxes and sections covers them exactly, each piece on its owner.
  for (int trial = 0; trial < 20; ++trial) {
    Box<N> query = grow(random_box<N>(rng, 3), 2);
    query = shift(query, domain.lo + Point<N>::filled(static_cast<index_t>(rng() % 4)));
    std::set<Point<N>> expected;
    for_each_point(intersect(query, domain), [&](const Point<N>& p) { expected.insert(p); });
    std::set<Point<N>> covered;
    for (const auto& [section, rank] : dist.pieces(query))
      for_each_point(section, [&](const Point<N>& p) {
        ASSERT_TRUE(covered.insert(p).second) << "pieces overlap at " << p;
        ASSERT_EQ(owner_of.at(p), rank) << "piece of rank " << rank << " holds " << p;
      });
    ASSERT_EQ(covered, expected) << "pieces of " << query;
    // A strided section through the domain.
    Section<N> s;
    for (std::size_t d = 0; d < N; ++d) {
      const index_t len = 1 + static_cast<index_t>(rng() % 2), stride = len + static_cast<index_t>(rng() % 3);
      s.dim[d] = Section1::strided(domain.lo[d] - 1 + static_cast<index_t>(rng() % 3), len, stride,
                                   1 + static_cast<index_t>(rng() % 5));
    }
    expected.clear();
    covered.clear();
    for_each_point(s, [&](const Point<N>& p) {
      if (contains(domain, p)) expected.insert(p);
    });
    for (const auto& [section, rank] : dist.pieces(s))
      for_each_point(section, [&](const Point<N>& p) {
        ASSERT_TRUE(covered.insert(p).second) << "section pieces overlap at " << p;
        ASSERT_EQ(owner_of.at(p), rank);
      });
    ASSERT_EQ(covered, expected) << "pieces of a section";
  }
}

}  // namespace tessera::testing
