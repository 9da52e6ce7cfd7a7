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
#include <utility>
#include <vector>

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

/// Runs the two steps of a relayed section move (`relayed_section_move_plans`) over every rank
/// without MPI, on the sets of (rank, destination point) written: each relay copy must read a
/// replica the first step wrote, each (rank, point) must be written once, and together they must
/// write what the one-step plan writes. Both steps must list each copy on both of its ranks.
template <std::size_t N>
void expect_relay_delivers(int size, const Distribution<N>& src, const Box<N>& src_box, const Distribution<N>& dst,
                           const Box<N>& dst_box, std::size_t* relayed = nullptr, index_t min_relay_elements = 0) {
  const auto perm = MotionPlan<N>::identity();
  using Written = std::set<std::pair<int, Point<N>>>;
  Written one_step, first, relay;
  const auto write = [](Written& into, int rank, const Section<N>& s) {
    bool fresh = true;
    for_each_point(s, [&](const Point<N>& p) { fresh = into.insert({rank, p}).second && fresh; });
    return fresh;
  };
  std::vector<RelayedMovePlans<N>> plans;
  for (int r = 0; r < size; ++r) {
    plans.push_back(relayed_section_move_plans(src, src_box, dst, dst_box, perm, r, min_relay_elements));
    for (const auto& c : section_move_plan(src, src_box, dst, dst_box, perm, r).copies())
      if (c.dst_rank == r) write(one_step, r, c.dst);
  }
  for (int r = 0; r < size; ++r)
    for (const auto& c : plans[static_cast<std::size_t>(r)].first.copies())
      if (c.dst_rank == r) {
        EXPECT_TRUE(write(first, r, c.dst)) << "first step writes " << c.dst << " on " << r << " twice";
      }
  for (int r = 0; r < size; ++r)
    for (const auto& c : plans[static_cast<std::size_t>(r)].relay.copies()) {
      if (c.dst_rank != r) continue;
      for_each_point(c.src, [&](const Point<N>& p) {
        EXPECT_TRUE(first.contains({c.src_rank, p})) << "relay reads " << p << " on " << c.src_rank << " unwritten";
      });
      EXPECT_TRUE(write(relay, r, c.dst)) << "relay writes " << c.dst << " on " << r << " twice";
      EXPECT_GE(volume(c.dst), min_relay_elements) << "a piece under the threshold is relayed";
      EXPECT_GE(dst.holders(c.dst).size(), 3U) << "a piece with one replica besides the sender's is relayed";
      if (relayed) ++*relayed;
    }
  Written both = first;
  for (const auto& w : relay) EXPECT_TRUE(both.insert(w).second) << "both steps write a point on rank " << w.first;
  EXPECT_EQ(both, one_step);
  expect_symmetric<N>(size, [&](int r) { return plans[static_cast<std::size_t>(r)].first; });
  expect_symmetric<N>(size, [&](int r) { return plans[static_cast<std::size_t>(r)].relay; });
}

TEST(FloodedDistribution, RelayedMovesWriteEveryReplicaOnceFromAFilledReplica) {
  std::mt19937_64 rng(777);
  std::size_t relayed = 0;
  for (int k = 0; k < 40; ++k) {
    const int size = 1 + static_cast<int>(rng() % 6);
    const index_t n = 3 + static_cast<index_t>(rng() % 9), b = 1 + static_cast<index_t>(rng() % 3);
    const auto grid = ProcGrid<2>::automatic(size, {n, n});
    // A SUMMA panel: columns [k0, k0 + b) of a block x block (or cyclic) matrix, flooded along the
    // grid's columns, sometimes along both axes; a source flooded itself in some cases.
    const Distribution<2> a(Box<2>({0, 0}, {n, n}), grid, {rng() % 2 ? block() : cyclic(), rng() % 2 ? block() : cyclic()});
    // On another grid: its senders mostly hold no replica of what they send (sent directly).
    const Distribution<2> a_other(Box<2>({0, 0}, {n, n}), ProcGrid<2>::with_shape(size, {size, 1}), {cyclic(), block()});
    const Distribution<2> a_flooded(Box<2>({0, 0}, {n, n}), grid, {block(), flooded()});
    const Distribution<2> panel(Box<2>({0, 0}, {n, b}), grid, {rng() % 3 ? block() : flooded(), flooded()});
    const index_t k0 = static_cast<index_t>(rng() % static_cast<std::uint64_t>(n - b + 1));
    const Box<2> slice({0, k0}, {n, k0 + b});
    SCOPED_TRACE(::testing::Message() << "case " << k << ": " << a << " [" << slice << "] -> " << panel);
    expect_relay_delivers<2>(size, a, slice, panel, panel.domain(), &relayed);
    expect_relay_delivers<2>(size, a_flooded, slice, panel, panel.domain(), &relayed);
    expect_relay_delivers<2>(size, a_other, slice, panel, panel.domain(), &relayed);
    // A threshold: only pieces of at least that many elements are relayed, the rest sent directly.
    const index_t threshold = 1 + static_cast<index_t>(rng() % 8);
    expect_relay_delivers<2>(size, a, slice, panel, panel.domain(), nullptr, threshold);
    // Not flooded: nothing is relayed, and the first step is the one-step plan.
    std::size_t none = 0;
    expect_relay_delivers<2>(size, panel, panel.domain(), a, slice, &none);
    EXPECT_EQ(none, 0U);
  }
  EXPECT_GT(relayed, 0U) << "no case relayed anything: the cases do not test the relay";
}

}  // namespace
}  // namespace tessera
