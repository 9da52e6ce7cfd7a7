// Boundary rules over the holes of a box set: after a ghost update, every ghost cell whose
// (periodically wrapped) index lies in the domain but in no box holds what the holes rule gives
// (a constant, a function of the in-domain index, or the patch's own cell mirrored about its box's
// faces, negated by the odd reflect), every other ghost what it held before the rule existed; side
// rules outside the domain unchanged. A reflect over a hole deeper than its box is thick is an
// error on every rank; an extrapolation over holes is refused.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine_checks.hpp"
#include "random_box_set.hpp"
#include "tessera/tessera.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

constexpr double kHole = -7.0;
constexpr double kSide = -3.0;

template <std::size_t N>
double hole_value(const Point<N>& q) {
  return 1000.0 + value_of(q);
}

enum class HoleRule { constant, function, reflect, reflect_odd };

template <std::size_t N>
void hole_cases(int cases, index_t max_extent) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(5100 + N);
  std::size_t hole_cells = 0;     // checked ghost cells over holes, over all cases, on this rank
  std::size_t mirrored_cells = 0; // of them, set by a reflect
  for (int k = 0; k < cases; ++k) {
    const auto box = random_domain<N>(rng, max_extent);
    const auto set = random_box_set<N>(rng, box, 1 + static_cast<index_t>(rng() % 4), 25, comm.size());
    auto g = random_ghosts<N>(rng);
    const auto rule = static_cast<HoleRule>(rng() % 4);
    // A constant on the low side of the first non-periodic axis with ghosts, to see both rules.
    std::optional<std::size_t> side_axis;
    for (std::size_t d = 0; d < N && !side_axis; ++d)
      if (!g.periodic[d] && g.lower[d] > 0) side_axis = d;
    ::testing::Message boxes;
    for (std::size_t i = 0; i < set.size(); ++i) boxes << " " << set.box(i);
    SCOPED_TRACE(::testing::Message() << "case " << k << ": " << set << boxes << " " << g << " rule " << static_cast<int>(rule));
    Domain<N> dom(comm, Distribution<N>::from_box_set(set));
    BoundaryRules<double, N> rules;
    switch (rule) {
      case HoleRule::constant: rules.holes(boundary::constant(kHole)); break;
      case HoleRule::function: rules.holes(boundary::function([](const Point<N>& q) { return hole_value(q); })); break;
      case HoleRule::reflect: rules.holes(boundary::reflect()); break;
      case HoleRule::reflect_odd: rules.holes(boundary::reflect(-1)); break;
    }
    if (side_axis) rules.low(*side_axis, boundary::constant(kSide));
    const auto make_array = [&] {
      auto a = std::make_unique<DistArray<double, N>>(dom, g);
      a->set_boundary(rules);
      a->for_each_owned([](const Point<N>& p, double& x) { x = value_of(p); });
      return a;
    };
    const bool reflect = rule == HoleRule::reflect || rule == HoleRule::reflect_odd;
    if (reflect && hole_mirror_leaves_some_box(set, box, g)) {
      // A box thinner than the ghost cells beyond it over a hole: every rank refuses, nothing moves.
      auto thick = make_array();
      const std::vector<double> before(thick->storage().begin(), thick->storage().end());
      EXPECT_THROW(thick->update_ghosts(), Error);
      EXPECT_EQ(std::vector<double>(thick->storage().begin(), thick->storage().end()), before);
      // Then the same with ghosts one cell wide, which every box is thick enough to mirror.
      for (std::size_t d = 0; d < N; ++d) {
        g.lower[d] = std::min<index_t>(g.lower[d], 1);
        g.upper[d] = std::min<index_t>(g.upper[d], 1);
      }
    }
    auto owner = make_array();
    DistArray<double, N>& a = *owner;
    const auto hole_want = [&](const Box<N>& own, const Point<N>& q, const Point<N>& w) {
      switch (rule) {
        case HoleRule::constant: return kHole;
        case HoleRule::function: return hole_value(w);
        case HoleRule::reflect: return value_of(mirrored_into(own, q));
        case HoleRule::reflect_odd: return -value_of(mirrored_into(own, q));
      }
      return 0.0;
    };
    for (int round = 0; round < 2; ++round) {  // the second update runs the cached plans
      ASSERT_NO_THROW(a.update_ghosts());
      for_each_stored(a.layout(), [&](const PatchLayout<N>& patch, const Point<N>& q, index_t offset, bool owned) {
        double want = 0.0;  // ghosts not asked for keep their initial 0
        if (owned) {
          want = value_of(q);
        } else if (in_requested_ghost(patch.owned_box(), g, q)) {
          if (const auto w = wrap_point(box, g.periodic, q)) {
            want = set.find(*w) ? value_of(*w) : hole_want(patch.owned_box(), q, *w);
            if (!set.find(*w) && round == 0) {
              ++hole_cells;
              if (reflect) ++mirrored_cells;
            }
          } else if (side_axis && q[*side_axis] < box.lo[*side_axis]) {
            want = kSide;  // outside the domain below the side rule's axis: its rule (corners too)
            for (std::size_t d = *side_axis + 1; d < N; ++d)  // outside along a later, non-periodic axis too:
              if (!g.periodic[d] && (q[d] < box.lo[d] || q[d] >= box.hi[d])) want = 0.0;  // no rule there
          }
        }
        ASSERT_EQ(a.storage()[static_cast<std::size_t>(offset)], want) << "rank " << comm.rank() << " point " << q;
      });
    }
  }
  // The cases must reach the rule at all: some rank checks ghost cells over holes.
  EXPECT_GT(comm.allreduce(static_cast<std::int64_t>(hole_cells), ReduceOp::sum), 0);
  EXPECT_GT(comm.allreduce(static_cast<std::int64_t>(mirrored_cells), ReduceOp::sum), 0);
}

TEST(BoxSetHoleRules, GhostsOverHolesGetTheRule1D) { hole_cases<1>(30, 40); }
TEST(BoxSetHoleRules, GhostsOverHolesGetTheRule2D) { hole_cases<2>(30, 14); }
TEST(BoxSetHoleRules, GhostsOverHolesGetTheRule3D) { hole_cases<3>(12, 7); }

TEST(BoxSetHoleRules, ExtrapolateOverHolesIsRefused) {
  BoundaryRules<double, 2> rules;
  rules.holes(boundary::constant(1.0));
  EXPECT_THROW(rules.holes(boundary::extrapolate()), Error);
  EXPECT_EQ(rules.kinds().holes, BoundaryKind::constant);  // unchanged by the refusal
  try {
    rules.holes(boundary::extrapolate());
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("BoundaryRules::holes"), std::string::npos) << e.what();
  }
}

// A box one cell thick beside a hole, ghosts two wide: the reflect would mirror the second ghost
// layer out of the box. Every rank gets the same error naming the box; nothing moves.
TEST(BoxSetHoleRules, AReflectDeeperThanItsBoxIsAnErrorOnEveryRank) {
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> domain({0, 0}, {6, 6});
  // [0,6)x[0,3) and a one-row box [0,1)x[3,6) above its left part; [1,6)x[3,6) is a hole.
  BoxSet<2> set(domain, {Box<2>({0, 0}, {6, 3}), Box<2>({0, 3}, {1, 6})}, {0, comm.size() - 1}, comm.size());
  Domain<2> dom(comm, Distribution<2>::from_box_set(set));
  DistArray<double, 2> a(dom, ghosts<2>(2));
  a.set_boundary(BoundaryRules<double, 2>().holes(boundary::reflect()));
  a.for_each_owned([](const Point<2>& p, double& x) { x = value_of(p); });
  const std::vector<double> before(a.storage().begin(), a.storage().end());
  try {
    a.update_ghosts();
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("reflect rule over holes"), std::string::npos) << e.what();
  }
  EXPECT_EQ(std::vector<double>(a.storage().begin(), a.storage().end()), before);
  // With one ghost layer the same set is fine: each hole ghost mirrors the row next to it.
  DistArray<double, 2> b(dom, ghosts<2>(1));
  b.set_boundary(BoundaryRules<double, 2>().holes(boundary::reflect()));
  b.for_each_owned([](const Point<2>& p, double& x) { x = value_of(p); });
  EXPECT_NO_THROW(b.update_ghosts());
}

}  // namespace
}  // namespace tessera
