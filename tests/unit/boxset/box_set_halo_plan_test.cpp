// The halo plan of a box set, MPI-free, on random sets in 1-3 D over up to 8 ranks: the fast send
// side (only the boxes near this rank's, through the index) lists exactly the copies the general
// send side does (every neighbour rank's whole receive list), and every rank's sends to a peer are
// that peer's receives from it, copy for copy.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "random_box_set.hpp"
#include "random_geometry.hpp"
#include "tessera/plan/halo_plan.hpp"

namespace tessera {
namespace {

template <class D>
class BoxSetHaloPlanTest : public ::testing::Test {};
using Dims = ::testing::Types<testing::Dim<1>, testing::Dim<2>, testing::Dim<3>>;
TYPED_TEST_SUITE(BoxSetHaloPlanTest, Dims);

template <std::size_t N>
GhostSpec<N> some_ghosts(std::mt19937_64& rng) {
  Point<N> lo, hi;
  Periodicity<N> periodic{};
  for (std::size_t d = 0; d < N; ++d) {
    lo[d] = static_cast<index_t>(rng() % 3);
    hi[d] = static_cast<index_t>(rng() % 3);
    periodic[d] = rng() % 2 == 0;
  }
  auto g = GhostSpec<N>::sides(lo, hi).periodic_along(periodic);
  return rng() % 2 ? g.faces_only() : g;
}

/// The copies of `plan` from rank q to rank r, in the plan's (canonical) order.
template <std::size_t N>
std::vector<Copy<N>> between(const MotionPlan<N>& plan, int q, int r) {
  std::vector<Copy<N>> out;
  for (const auto& c : plan.copies())
    if (c.src_rank == q && c.dst_rank == r) out.push_back(c);
  return out;
}

TYPED_TEST(BoxSetHaloPlanTest, FastSendsEqualTheGeneralOnesAndMatchEveryPeersReceives) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(71 + N);
  const index_t side = N == 1 ? 50 : N == 2 ? 14 : 7;
  std::size_t copies = 0, sends = 0;  // so that the comparisons are not all of empty plans
  for (int trial = 0; trial < 25; ++trial) {
    const int P = 1 + static_cast<int>(rng() % 8);
    const Box<N> domain(Point<N>::filled(-2), Point<N>::filled(side - 2));
    const auto set = testing::random_box_set<N>(rng, domain, 1 + trial % 5, 30, P);
    const auto dist = Distribution<N>::from_box_set(set);
    const auto g = some_ghosts<N>(rng);
    SCOPED_TRACE(::testing::Message() << set << ", " << g);
    std::vector<MotionPlan<N>> plans;
    for (int r = 0; r < P; ++r) {
      plans.push_back(halo_plan(dist, g, r));
      std::vector<Copy<N>> general;
      detail::halo_receives(dist, g, r, general);
      detail::halo_sends(dist, g, r, general);
      MotionPlan<N> reference;
      for (const auto& c : general) reference.copy(c.src_rank, c.src, c.dst_rank, c.dst, c.src_patch, c.dst_patch);
      reference.canonical_order();
      EXPECT_EQ(plans.back().copies(), reference.copies()) << "rank " << r;
      copies += plans.back().size();
      for (const auto& c : plans.back().copies()) sends += c.src_rank == r && c.dst_rank != r;
    }
    for (int q = 0; q < P; ++q)
      for (int r = 0; r < P; ++r)
        EXPECT_EQ(between(plans[static_cast<std::size_t>(q)], q, r), between(plans[static_cast<std::size_t>(r)], q, r))
            << "copies from rank " << q << " to rank " << r;
  }
  EXPECT_GT(copies, 100U);
  EXPECT_GT(sends, 20U);
}

}  // namespace
}  // namespace tessera
