// Berger–Rigoutsos clustering (geometry/berger_rigoutsos.hpp) on random tag sets in 1-3 D: every
// tag in the allowed region covered, boxes disjoint, aligned to the blocking factor, inside the
// allowed region, no longer than the maximum extent, efficiency at least the threshold or a single
// block; the result independent of the order of the tags; an allowed region covering the domain (cut
// into any boxes) changes nothing. Bad options and overlapping allowed boxes are errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tessera/geometry.hpp"
#include "tessera/geometry/berger_rigoutsos.hpp"

namespace tessera {
namespace {

/// Tags in blobs (a moving front is a blob) plus scattered single cells.
template <std::size_t N>
std::vector<Point<N>> random_tags(std::mt19937_64& rng, const Box<N>& domain) {
  std::vector<Point<N>> tags;
  const int blobs = static_cast<int>(rng() % 4);
  for (int b = 0; b < blobs; ++b) {
    Point<N> c, r;
    for (std::size_t d = 0; d < N; ++d) {
      c[d] = domain.lo[d] + static_cast<index_t>(rng() % static_cast<std::uint64_t>(extent(domain, d)));
      r[d] = 1 + static_cast<index_t>(rng() % 5);
    }
    for_each_point(intersect(grow(Box<N>(c, c + Point<N>::filled(1)), r), domain), [&](const Point<N>& p) {
      if (rng() % 4 != 0) tags.push_back(p);
    });
  }
  const int singles = static_cast<int>(rng() % 6);
  for (int s = 0; s < singles; ++s) {
    Point<N> p;
    for (std::size_t d = 0; d < N; ++d)
      p[d] = domain.lo[d] + static_cast<index_t>(rng() % static_cast<std::uint64_t>(extent(domain, d)));
    tags.push_back(p);
  }
  return tags;
}

/// `domain` cut into a grid of boxes at random places along each axis (a product of intervals).
template <std::size_t N>
BoxList<N> random_tiling(std::mt19937_64& rng, const Box<N>& domain) {
  std::array<std::vector<index_t>, N> cuts;
  for (std::size_t d = 0; d < N; ++d) {
    cuts[d] = {domain.lo[d], domain.hi[d]};
    for (int k = static_cast<int>(rng() % 5); k > 0; --k)
      cuts[d].push_back(domain.lo[d] + static_cast<index_t>(rng() % static_cast<std::uint64_t>(extent(domain, d))));
    std::sort(cuts[d].begin(), cuts[d].end());
    cuts[d].erase(std::unique(cuts[d].begin(), cuts[d].end()), cuts[d].end());
  }
  BoxList<N> tiles;
  Point<N> at = Point<N>::filled(0);  // the interval along each axis
  for (;;) {
    Box<N> b;
    for (std::size_t d = 0; d < N; ++d) {
      b.lo[d] = cuts[d][static_cast<std::size_t>(at[d])];
      b.hi[d] = cuts[d][static_cast<std::size_t>(at[d]) + 1];
    }
    tiles.push_back(b);
    std::size_t d = 0;
    while (d < N && ++at[d] + 1 == static_cast<index_t>(cuts[d].size())) at[d++] = 0;
    if (d == N) return tiles;
  }
}

/// Blocks (cells of the blocking-factor grid) of `b` holding a tag, over the blocks of b.
template <std::size_t N>
double block_efficiency(const Box<N>& b, const std::vector<Point<N>>& tags, const Point<N>& bf) {
  std::set<Point<N>> blocks;
  for (const auto& t : tags)
    if (contains(b, t)) blocks.insert(coarsen(t, bf));
  return static_cast<double>(blocks.size()) / static_cast<double>(volume(coarsen(b, bf)));
}

/// A random domain (4 to 43 cells per axis, fewer in 3-D) and clustering options (blocking factors
/// 1-3, thresholds 0.3-1.0; maximum extents when `limit_extent`, per axis half the time).
template <std::size_t N>
std::pair<Box<N>, ClusterOptions<N>> random_case(std::mt19937_64& rng, bool limit_extent) {
  Box<N> domain;
  ClusterOptions<N> opt;
  for (std::size_t d = 0; d < N; ++d) {
    domain.lo[d] = static_cast<index_t>(rng() % 7) - 3;
    domain.hi[d] = domain.lo[d] + 4 + static_cast<index_t>(rng() % (N == 3 ? 14 : 40));
    opt.blocking_factor[d] = 1 + static_cast<index_t>(rng() % 3);
    if (limit_extent && rng() % 2) opt.max_extent[d] = opt.blocking_factor[d] * (1 + static_cast<index_t>(rng() % 6));
  }
  opt.efficiency = 0.3 + 0.7 * static_cast<double>(rng() % 100) / 100.0;
  return {domain, opt};
}

template <std::size_t N>
void check_invariants(std::uint64_t seed, int cases) {
  std::mt19937_64 rng(seed);
  for (int k = 0; k < cases; ++k) {
    const auto [domain, opt] = random_case<N>(rng, true);
    // A third of the cases cluster inside an allowed region with a hole (a nesting region), a
    // third inside a random tiling of the domain with tiles missing (a level with holes).
    BoxList<N> allowed;
    const auto mode = rng() % 3;
    if (mode == 2) {
      for (const Box<N>& tile : random_tiling<N>(rng, domain))
        if (rng() % 5 != 0) allowed.push_back(tile);
      if (allowed.empty()) allowed.push_back(domain);
    } else if (mode == 1) {
      Box<N> hole = domain;
      for (std::size_t d = 0; d < N; ++d) {
        hole.lo[d] = domain.lo[d] + extent(domain, d) / 3;
        hole.hi[d] = domain.lo[d] + 2 * extent(domain, d) / 3;
      }
      // Cut into pieces at odd places, so that blocks straddle two allowed boxes.
      for (const Box<N>& piece : difference(BoxList<N>{domain}, hole)) {
        Box<N> lower = piece, upper = piece;
        lower.hi[0] = upper.lo[0] = piece.lo[0] + extent(piece, 0) / 2;
        allowed.push_back(lower);
        allowed.push_back(upper);
      }
    }
    const auto tags = random_tags<N>(rng, domain);
    SCOPED_TRACE(::testing::Message() << "case " << k << " domain " << domain << " bf " << opt.blocking_factor
                                      << " max " << opt.max_extent << " eff " << opt.efficiency);
    const auto boxes = cluster_tags<N>(tags, domain, opt, allowed);
    const BoxList<N> region = allowed.empty() ? BoxList<N>{domain} : allowed;
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      const Box<N>& b = boxes[i];
      ASSERT_FALSE(b.empty());
      EXPECT_TRUE(is_aligned(b, opt.blocking_factor)) << b;
      index_t inside = 0;
      for (const Box<N>& r : region) inside += volume(intersect(r, b));
      EXPECT_EQ(inside, volume(b)) << b << " leaves the allowed region";
      for (std::size_t d = 0; d < N; ++d) EXPECT_LE(extent(b, d), opt.max_extent[d]) << b;
      const bool single_block = volume(coarsen(b, opt.blocking_factor)) == 1;
      EXPECT_TRUE(single_block || block_efficiency(b, tags, opt.blocking_factor) >= opt.efficiency) << b;
      for (std::size_t j = 0; j < i; ++j) EXPECT_FALSE(intersects(b, boxes[j])) << b << " meets " << boxes[j];
    }
    for (const auto& t : tags) {
      // A tag counts when its whole block lies in the allowed region.
      const Point<N> blk = coarsen(t, opt.blocking_factor);
      const Box<N> block = refine(Box<N>(blk, blk + Point<N>::filled(1)), opt.blocking_factor);
      index_t held = 0;
      for (const Box<N>& r : region) held += volume(intersect(intersect(r, domain), block));
      const bool counts = held == volume(block);
      const bool covered = std::any_of(boxes.begin(), boxes.end(), [&](const Box<N>& b) { return contains(b, t); });
      if (counts) {
        EXPECT_TRUE(covered) << "tag " << t << " not covered";
      }
    }
    auto shuffled = tags;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    shuffled.insert(shuffled.end(), tags.begin(), tags.begin() + static_cast<std::ptrdiff_t>(tags.size() / 2));
    EXPECT_EQ(cluster_tags<N>(shuffled, domain, opt, allowed), boxes) << "depends on the order of the tags";
  }
}

TEST(BergerRigoutsos, InvariantsOnRandomTags1D) { check_invariants<1>(11, 300); }
TEST(BergerRigoutsos, InvariantsOnRandomTags2D) { check_invariants<2>(12, 300); }
TEST(BergerRigoutsos, InvariantsOnRandomTags3D) { check_invariants<3>(13, 80); }

// An allowed region that covers the whole domain, in whatever boxes (cut anywhere, blocks
// straddling them), allows what no region allows: the same boxes.
template <std::size_t N>
void covering_region_changes_nothing(std::uint64_t seed, int cases) {
  std::mt19937_64 rng(seed);
  for (int k = 0; k < cases; ++k) {
    const auto [domain, opt] = random_case<N>(rng, false);
    const auto tags = random_tags<N>(rng, domain);
    const BoxList<N> tiles = random_tiling<N>(rng, domain);
    SCOPED_TRACE(::testing::Message() << "case " << k << " domain " << domain << " in " << tiles.size() << " tiles");
    EXPECT_EQ(cluster_tags<N>(tags, domain, opt, tiles), cluster_tags<N>(tags, domain, opt));
  }
}

TEST(BergerRigoutsos, AnAllowedRegionCoveringTheDomainChangesNothing) {
  covering_region_changes_nothing<1>(21, 100);
  covering_region_changes_nothing<2>(22, 100);
  covering_region_changes_nothing<3>(23, 40);
}

TEST(BergerRigoutsos, TwoSeparateBlobsGiveTwoTightBoxes) {
  std::vector<Point<2>> tags;
  for_each_point(Box<2>({2, 2}, {6, 6}), [&](const Point<2>& p) { tags.push_back(p); });
  for_each_point(Box<2>({20, 10}, {24, 16}), [&](const Point<2>& p) { tags.push_back(p); });
  ClusterOptions<2> opt;
  opt.efficiency = 0.9;
  const auto boxes = cluster_tags<2>(tags, Box<2>({0, 0}, {32, 32}), opt);
  EXPECT_EQ(boxes, (std::vector<Box<2>>{Box<2>({2, 2}, {6, 6}), Box<2>({20, 10}, {24, 16})}));
  opt.blocking_factor = {4, 4};
  EXPECT_EQ(cluster_tags<2>(tags, Box<2>({0, 0}, {32, 32}), opt),
            (std::vector<Box<2>>{Box<2>({0, 0}, {8, 8}), Box<2>({20, 8}, {24, 16})}));
}

TEST(BergerRigoutsos, AnLShapeIsCutAtItsCorner) {
  std::vector<Point<2>> tags;
  for_each_point(Box<2>({0, 0}, {8, 2}), [&](const Point<2>& p) { tags.push_back(p); });
  for_each_point(Box<2>({0, 2}, {2, 8}), [&](const Point<2>& p) { tags.push_back(p); });
  ClusterOptions<2> opt;
  opt.efficiency = 1.0;
  const auto boxes = cluster_tags<2>(tags, Box<2>({0, 0}, {8, 8}), opt);
  ASSERT_EQ(boxes.size(), 2u);
  EXPECT_EQ(volume(boxes[0]) + volume(boxes[1]), 28);
}

TEST(BergerRigoutsos, NoTagsNoBoxes) {
  EXPECT_TRUE(cluster_tags<2>({}, Box<2>({0, 0}, {8, 8}), ClusterOptions<2>{}).empty());
}

TEST(BergerRigoutsos, BadOptionsAreErrors) {
  const std::vector<Point<2>> tags{Point<2>{1, 1}};
  const Box<2> domain({0, 0}, {8, 8});
  ClusterOptions<2> opt;
  opt.efficiency = 0.0;
  EXPECT_THROW((void)cluster_tags<2>(tags, domain, opt), Error);
  opt.efficiency = 1.5;
  EXPECT_THROW((void)cluster_tags<2>(tags, domain, opt), Error);
  opt = {};
  opt.blocking_factor = {0, 2};
  EXPECT_THROW((void)cluster_tags<2>(tags, domain, opt), Error);
  opt = {};
  opt.blocking_factor = {4, 4};
  opt.max_extent = {2, 8};
  EXPECT_THROW((void)cluster_tags<2>(tags, domain, opt), Error);
  try {
    (void)cluster_tags<2>(tags, domain, ClusterOptions<2>{}, BoxList<2>{Box<2>({0, 0}, {4, 4}), Box<2>({3, 3}, {6, 6})});
    ADD_FAILURE() << "overlapping allowed boxes were accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("overlap"), std::string::npos) << e.what();
  }
  const std::vector<Point<2>> outside{Point<2>{8, 1}};
  try {
    (void)cluster_tags<2>(outside, domain, ClusterOptions<2>{});
    ADD_FAILURE() << "a tag outside the domain was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::out_of_range);
  }
}

}  // namespace
}  // namespace tessera
