// Plans over flooded distributions (redistribution to, from and between them, ghost fills) list
// every copy on both of its ranks: the sender, walking its replica, keeps only the receivers that
// read from it, and the receiver reads from its nearest replica. Checked over every rank of random
// cases, without MPI.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include "tessera/layout/distribution.hpp"
#include "tessera/plan/halo_plan.hpp"
#include "tessera/plan/redistribution_plan.hpp"

namespace tessera {
namespace {

/// The copies of every rank's plan, from its sends and its receives: each copy must be listed by
/// both of its ranks (a rank copying to itself lists it once).
template <std::size_t N, class PlanOf>
void expect_symmetric(int size, PlanOf plan_of) {
  std::set<std::tuple<int, int, std::string>> sent, received;
  for (int r = 0; r < size; ++r) {
    const auto plan = plan_of(r);  // kept: copies() refers into it
    for (const auto& c : plan.copies()) {
      std::ostringstream key;
      key << c.src << "->" << c.dst;
      if (c.src_rank == r) sent.insert({c.src_rank, c.dst_rank, key.str()});
      if (c.dst_rank == r) received.insert({c.src_rank, c.dst_rank, key.str()});
    }
  }
  EXPECT_EQ(sent, received);
}

TEST(FloodedDistribution, PlansListTheSameCopiesOnBothSides) {
  std::mt19937_64 rng(4242);
  for (int k = 0; k < 40; ++k) {
    const int size = 1 + static_cast<int>(rng() % 6);
    const Box<2> box({0, -1}, {2 + static_cast<index_t>(rng() % 7), 4 + static_cast<index_t>(rng() % 5)});
    const auto shape_of = [&] {
      for (;;) {
        const Point<2> s{1 + static_cast<index_t>(rng() % 3), 1 + static_cast<index_t>(rng() % 3)};
        if (s[0] * s[1] <= size) return s;
      }
    };
    const Distribution<2> from(box, ProcGrid<2>::with_shape(size, {size, 1}), {block(), collapsed()});
    const Point<2> s2 = shape_of();
    std::vector<int> ranks(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) ranks[static_cast<std::size_t>(r)] = size - 1 - r;
    ranks.resize(static_cast<std::size_t>(s2[0] * s2[1]));
    // Reversed ranks, some left out (skeletons); axis 0 flooded too in some cases.
    const Distribution<2> to(box, ProcGrid<2>::from_ranks(size, s2, ranks), {rng() % 2 ? flooded() : block(), flooded()});
    const Distribution<2> other(box, ProcGrid<2>::with_shape(size, {1, size}), {flooded(), cyclic()});
    SCOPED_TRACE(::testing::Message() << "case " << k << ": " << from << " -> " << to << " -> " << other);
    expect_symmetric<2>(size, [&](int r) { return redistribution_plan(from, to, r); });
    expect_symmetric<2>(size, [&](int r) { return redistribution_plan(to, from, r); });
    expect_symmetric<2>(size, [&](int r) { return redistribution_plan(to, to, r); });
    expect_symmetric<2>(size, [&](int r) { return redistribution_plan(to, other, r); });
    expect_symmetric<2>(size, [&](int r) { return redistribution_plan(other, to, r); });
    const auto g = ghosts<2>(1).periodic_along({true, rng() % 2 == 0});
    expect_symmetric<2>(size, [&](int r) { return halo_plan(to, g, r); });
  }
}

}  // namespace
}  // namespace tessera
