// `tessera plan` counts what the plan builders move; these tests count the same by brute force, index
// by index from `owner()`, for every kind of distribution, 1 to 3 dimensions, grids with skeleton
// ranks, and halo updates with periodic, one-sided, face-only and thin-neighbour ghost layers.
#include <gtest/gtest.h>

#include <map>
#include <type_traits>
#include <string>
#include <utility>
#include <vector>

#include "tessera/spec/multiblock_spec.hpp"
#include "tessera/spec/spec.hpp"
#include "traffic/traffic.hpp"

namespace {

using tessera::index_t;
using Matrix = std::map<std::pair<int, int>, index_t>;

// Every point of a box, row-major (tests only: the domains here are small).
template <std::size_t N, class F>
void each_point(const tessera::Box<N>& box, F f) {
  if (box.empty()) return;
  tessera::Point<N> p = box.lo;
  for (;;) {
    f(p);
    std::size_t d = N;
    for (;;) {
      if (d == 0) return;
      --d;
      if (++p[d] < box.hi[d]) break;
      p[d] = box.lo[d];
    }
  }
}

// The owner of p, or -1 for a hole of a box set (an index nobody owns, which no plan moves).
template <std::size_t N>
int owner_or_none(const tessera::Distribution<N>& dist, const tessera::Point<N>& p) {
  const auto* set = dist.box_set();
  if (!set) return dist.owner(p);
  const auto box = set->find(p);
  return box ? set->owner(*box) : -1;
}

template <std::size_t N>
Matrix brute_force_redistribution(const tessera::Distribution<N>& from, const tessera::Distribution<N>& to) {
  Matrix m;
  each_point(from.domain(), [&](const tessera::Point<N>& p) {
    const int src = owner_or_none(from, p), dst = owner_or_none(to, p);
    if (src >= 0 && dst >= 0) ++m[{src, dst}];
  });
  return m;
}

// The ghost points of every rank, by the definition of docs/arrays.md: along an interval axis the
// owned interval grown by the widths, along a compacted axis only the owned indices; a ghost is a
// point of that product that the rank does not own (faces only: outside along exactly one axis).
// Each is filled from the owner of its periodic image; beyond a non-periodic edge, from nobody.
template <std::size_t N>
Matrix brute_force_halo(const tessera::Distribution<N>& dist, const tessera::GhostSpec<N>& g) {
  Matrix m;
  const auto& domain = dist.domain();
  for (int r = 0; r < dist.comm_size(); ++r) {
    if (dist.local_size(r) == 0) continue;
    std::array<std::vector<bool>, N> owned_along;  // per axis: which indices of the domain r owns
    tessera::Box<N> extended;
    for (std::size_t d = 0; d < N; ++d) {
      owned_along[d].assign(static_cast<std::size_t>(tessera::extent(domain, d)), false);
      index_t lo = domain.hi[d], hi = domain.lo[d];
      each_point(domain, [&](const tessera::Point<N>& p) {
        if (dist.owner(p) != r) return;
        owned_along[d][static_cast<std::size_t>(p[d] - domain.lo[d])] = true;
        lo = std::min(lo, p[d]);
        hi = std::max(hi, p[d] + 1);
      });
      const bool interval = dist.dim(d).owns_intervals();
      extended.lo[d] = interval ? lo - g.lower[d] : lo;
      extended.hi[d] = interval ? hi + g.upper[d] : hi;
    }
    each_point(extended, [&](const tessera::Point<N>& q) {
      int outside = 0;
      bool stored = true;
      for (std::size_t d = 0; d < N; ++d) {
        const bool in_domain = q[d] >= domain.lo[d] && q[d] < domain.hi[d];
        const bool owned = in_domain && owned_along[d][static_cast<std::size_t>(q[d] - domain.lo[d])];
        if (!dist.dim(d).owns_intervals() && !owned) stored = false;  // compacted axes keep owned indices only
        outside += owned ? 0 : 1;
      }
      if (!stored || outside == 0 || (!g.corners && outside > 1)) return;
      tessera::Point<N> image = q;
      for (std::size_t d = 0; d < N; ++d) {
        const index_t n = tessera::extent(domain, d);
        if (image[d] >= domain.lo[d] && image[d] < domain.hi[d]) continue;
        if (!g.periodic[d]) return;  // beyond a non-periodic edge: never filled
        image[d] = domain.lo[d] + ((image[d] - domain.lo[d]) % n + n) % n;
      }
      ++m[{dist.owner(image), r}];
    });
  }
  return m;
}

index_t off_diagonal(const Matrix& m) {
  index_t sum = 0;
  for (const auto& [pair, n] : m)
    if (pair.first != pair.second) sum += n;
  return sum;
}

void expect_same(const Matrix& brute, const tessera_tool::TrafficMatrix& counted, const std::string& what) {
  EXPECT_EQ(brute, counted.entries()) << what;
  EXPECT_EQ(off_diagonal(brute), counted.between_ranks()) << what;
}

template <std::size_t N>
void check_redistribution(const std::string& from_text, const std::string& to_text, int comm_size) {
  const auto from = tessera::to_distribution<N>(tessera::parse_spec(from_text), comm_size);
  const auto to = tessera::to_distribution<N>(tessera::parse_spec(to_text), comm_size);
  const std::string what = from_text + " -> " + to_text + " on " + std::to_string(comm_size);
  const Matrix brute = brute_force_redistribution(from, to);
  expect_same(brute, tessera_tool::redistribution_traffic(from, to), what);
  EXPECT_EQ(off_diagonal(brute), tessera_tool::elements_changing_owner(from, to)) << what;
}

template <std::size_t N>
void check_halo(const std::string& text, int comm_size) {
  const auto spec = tessera::parse_spec(text);
  const auto dist = tessera::to_distribution<N>(spec, comm_size);
  const auto ghosts = tessera::to_ghosts<N>(spec);
  const std::string what = text + " on " + std::to_string(comm_size);
  const Matrix brute = brute_force_halo(dist, ghosts);
  expect_same(brute, tessera_tool::halo_traffic(dist, ghosts), what);
  EXPECT_EQ(off_diagonal(brute), tessera_tool::remote_ghost_elements(dist, ghosts)) << what;
}

TEST(ToolTraffic, RedistributionMatchesBruteForceIn1D) {
  check_redistribution<1>("domain=37 dist=block", "domain=37 dist=cyclic", 5);
  check_redistribution<1>("domain=37 dist=cut(0,3,3,20,37)", "domain=37 dist=weights(1,0,2,1)", 4);
  check_redistribution<1>("domain=-5:40 dist=block_cyclic(3)", "domain=-5:40 dist=cyclic(lb=2)", 3);
  check_redistribution<1>("domain=10 grid=3 dist=irregular(0,0,1,2,2,1,0,0,1,1)",
                          "domain=10 grid=3 dist=block_cyclic(2,src=1)", 3);
  check_redistribution<1>("domain=30 grid=auto@3", "domain=30 grid=auto", 6);  // skeletons before
}

TEST(ToolTraffic, RedistributionMatchesBruteForceIn2D) {
  check_redistribution<2>("domain=12x18 grid=2x3", "domain=12x18 grid=3x2 dist=cyclic,block", 6);
  check_redistribution<2>("domain=12x18 grid=2x3 dist=cut(0,4,12),block",
                          "domain=12x18 grid=6x1 dist=block_cyclic(2),collapsed", 6);
  check_redistribution<2>("domain=9x7 grid=3x1 dist=irregular(2,0,1,1,0,2,2,0,1),collapsed",
                          "domain=9x7 grid=1x3 dist=collapsed,cyclic", 3);
  check_redistribution<2>("domain=10x10 grid=2x2 order=1,0 dist=weights(1,3),block",
                          "domain=10x10 grid=2x2", 7);  // ranks 4..6 are skeletons
}

TEST(ToolTraffic, RedistributionMatchesBruteForceIn3D) {
  check_redistribution<3>("domain=6x5x4 grid=2x2x1", "domain=6x5x4 grid=1x2x2 dist=collapsed,cyclic,block", 4);
  check_redistribution<3>("domain=6x5x4 grid=3x1x1 dist=block_cyclic(1),collapsed,collapsed",
                          "domain=6x5x4 grid=1x1x3 dist=collapsed,collapsed,block", 3);
}

// Box sets with holes: an index in a hole of either side moves nowhere and is not counted.
TEST(ToolTraffic, RedistributionWithBoxSetsMatchesBruteForce) {
  const std::string l_shape = "domain=8x8 boxes=0:4x0:4@0,0:4x4:8@1,4:8x0:4@2";  // [4,8)x[4,8) a hole
  check_redistribution<2>(l_shape, "domain=8x8 grid=2x2", 4);
  check_redistribution<2>("domain=8x8 grid=3x1 dist=cyclic,collapsed", l_shape, 3);
  check_redistribution<2>(l_shape, "domain=8x8 boxes=1:7x1:7,7:8x0:8 assign=knapsack(chop=3x3)", 3);
  check_redistribution<1>("domain=20 boxes=2:5@1,9:20@0", "domain=20 boxes=0:3,4:12,15:19 assign=morton@2", 3);
  check_redistribution<3>("domain=4x5x6 boxes=0:4x0:5x0:3,1:3x1:4x3:6 assign=morton(chop=2x2x2)",
                          "domain=4x5x6 grid=1x2x2", 4);
}

// Box sets: a ghost over a hole is owned by no one and never filled, so the least possible is
// what the plan moves (the count included the hole's ghosts before); multiblock layouts: the same
// with the interface ghosts.
TEST(ToolTraffic, BoxSetAndMultiblockHalosMoveTheLeastPossible) {
  for (const char* text : {"domain=8x8 boxes=0:4x0:4@0,0:4x4:8@1,4:8x0:4@2 ghosts=1",
                           "domain=10x10 boxes=0:3x0:10@0,3:10x0:3@1,6:10x6:10@2,4:5x4:5@0 ghosts=2,faces",
                           "domain=12 boxes=0:3@1,5:6@0,8:12@2 ghosts=3"}) {
    const auto spec = tessera::parse_spec(text);
    const auto check = [&](auto n) {
      constexpr std::size_t N = decltype(n)::value;
      const auto dist = tessera::to_distribution<N>(spec, 3);
      const auto ghosts = tessera::to_ghosts<N>(spec);
      EXPECT_EQ(tessera_tool::halo_traffic(dist, ghosts).between_ranks(), tessera_tool::remote_ghost_elements(dist, ghosts))
          << text;
    };
    if (spec.rank() == 1)
      check(std::integral_constant<std::size_t, 1>{});
    else
      check(std::integral_constant<std::size_t, 2>{});
  }
  const auto mb = tessera::parse_multiblock_spec(
      "width=2 ghosts=2 block domain=6x8 block domain=8x5 grid=*x1 dist=cyclic,block "
      "block domain=6x8 boxes=0:3x0:8@1,3:6x0:4@0 glue 0.0+ 1.1+ perm=1,0 flip=1,0 "
      "glue 1.0+ 2.0-[0:1x2:7] flip=0,1 glue 2.1+ 2.1-");
  for (int ranks : {2, 3, 4}) {
    const auto layout = tessera::to_multiblock_layout<2>(mb, ranks);
    const auto ghosts = tessera::to_ghosts<2>(mb).faces_only();
    const auto traffic = tessera_tool::multiblock_halo_traffic(layout, ghosts);
    EXPECT_GT(traffic.between_ranks(), tessera_tool::halo_traffic(layout.embedded(), ghosts).between_ranks()) << ranks;
    EXPECT_EQ(traffic.between_ranks(), tessera_tool::multiblock_remote_ghost_elements(layout, ghosts)) << ranks;
  }
}

TEST(ToolTraffic, HaloMatchesBruteForce) {
  check_halo<1>("domain=7 grid=5 ghosts=2p", 5);                            // neighbours thinner than the width
  check_halo<1>("domain=20 dist=cut(0,1,2,20) ghosts=3", 3);                // from beyond the next rank
  check_halo<2>("domain=16x16 grid=2x2 ghosts=1p", 4);
  check_halo<2>("domain=12x10 grid=3x2 ghosts=1:2,0p", 6);                  // one-sided, periodic without width
  check_halo<2>("domain=12x10 grid=3x2 ghosts=2,1p,faces", 6);              // no corners
  check_halo<2>("domain=12x10 grid=2x2 dist=block,cyclic ghosts=1p,0", 4);  // ghosts along the block axis only
  check_halo<2>("domain=10x10 grid=2x2 ghosts=1p", 6);                      // skeleton ranks 4, 5
  check_halo<3>("domain=6x6x6 grid=2x2x2 ghosts=1p,faces", 8);
  check_halo<3>("domain=5x6x4 grid=1x3x2 dist=collapsed,block,block ghosts=0,1p,2:1", 6);
}

TEST(ToolTraffic, NoGhostsMoveNothing) {
  const auto spec = tessera::parse_spec("domain=8x8 grid=2x2");
  const auto dist = tessera::to_distribution<2>(spec, 4);
  const auto traffic = tessera_tool::halo_traffic(dist, tessera::to_ghosts<2>(spec));
  EXPECT_TRUE(traffic.entries().empty());
  EXPECT_EQ(traffic.messages(), 0);
  EXPECT_EQ(traffic.largest_message().src, -1);
}

TEST(ToolTraffic, MessagesAndLargestMessage) {
  tessera_tool::TrafficMatrix m(3);
  m.add(0, 1, 5);
  m.add(1, 1, 50);  // a local copy: no message, not the largest message
  m.add(2, 0, 7);
  m.add(2, 1, 0);   // nothing: not a message
  EXPECT_EQ(m.messages(), 2);
  EXPECT_EQ(m.local_copies(), 1);
  EXPECT_EQ(m.between_ranks(), 12);
  EXPECT_EQ(m.kept_local(), 50);
  const auto largest = m.largest_message();
  EXPECT_EQ(largest.src, 2);
  EXPECT_EQ(largest.dst, 0);
  EXPECT_EQ(largest.elements, 7);
}

}  // namespace
