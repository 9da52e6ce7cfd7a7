// Boundary rules over the holes of a box set: after a ghost update, every ghost cell whose
// (periodically wrapped) index lies in the domain but in no box holds what the holes rule gives
// (a constant, or a function of the in-domain index), every other ghost what it held before the
// rule existed; side rules outside the domain unchanged; reflect over holes refused.
#include <gtest/gtest.h>
#include <mpi.h>

#include <random>

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

template <std::size_t N>
void hole_cases(int cases, index_t max_extent) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(5100 + N);
  std::size_t hole_cells = 0;  // checked ghost cells over holes, over all cases, on this rank
  for (int k = 0; k < cases; ++k) {
    const auto box = random_domain<N>(rng, max_extent);
    const auto set = random_box_set<N>(rng, box, 1 + static_cast<index_t>(rng() % 4), 25, comm.size());
    const auto g = random_ghosts<N>(rng);
    const bool as_function = rng() % 2 == 0;
    // A constant on the low side of the first non-periodic axis with ghosts, to see both rules.
    std::optional<std::size_t> side_axis;
    for (std::size_t d = 0; d < N && !side_axis; ++d)
      if (!g.periodic[d] && g.lower[d] > 0) side_axis = d;
    SCOPED_TRACE(::testing::Message() << "case " << k << ": " << set << " " << g << (as_function ? " function" : " constant"));
    Domain<N> dom(comm, Distribution<N>::from_box_set(set));
    DistArray<double, N> a(dom, g);
    BoundaryRules<double, N> rules;
    if (as_function)
      rules.holes(boundary::function([](const Point<N>& q) { return hole_value(q); }));
    else
      rules.holes(boundary::constant(kHole));
    if (side_axis) rules.low(*side_axis, boundary::constant(kSide));
    a.set_boundary(rules);
    a.for_each_owned([](const Point<N>& p, double& x) { x = value_of(p); });
    for (int round = 0; round < 2; ++round) {  // the second update runs the cached plans
      a.update_ghosts();
      for_each_stored(a.layout(), [&](const PatchLayout<N>& patch, const Point<N>& q, index_t offset, bool owned) {
        double want = 0.0;  // ghosts not asked for keep their initial 0
        if (owned) {
          want = value_of(q);
        } else if (in_requested_ghost(patch.owned_box(), g, q)) {
          if (const auto w = wrap_point(box, g.periodic, q)) {
            want = set.find(*w) ? value_of(*w) : (as_function ? hole_value(*w) : kHole);
            if (!set.find(*w) && round == 0) ++hole_cells;
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
}

TEST(BoxSetHoleRules, GhostsOverHolesGetTheRule1D) { hole_cases<1>(30, 40); }
TEST(BoxSetHoleRules, GhostsOverHolesGetTheRule2D) { hole_cases<2>(30, 14); }
TEST(BoxSetHoleRules, GhostsOverHolesGetTheRule3D) { hole_cases<3>(12, 7); }

TEST(BoxSetHoleRules, ReflectAndExtrapolateOverHolesAreRefused) {
  BoundaryRules<double, 2> rules;
  rules.holes(boundary::constant(1.0));
  EXPECT_THROW(rules.holes(boundary::reflect()), Error);
  EXPECT_THROW(rules.holes(boundary::extrapolate()), Error);
  EXPECT_EQ(rules.kinds().holes, BoundaryKind::constant);  // unchanged by the refusals
  try {
    rules.holes(boundary::reflect());
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("BoundaryRules::holes"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tessera
