// Rank relabeling (plan/relabel.hpp) with real arrays: redistributing to the relabeled target
// keeps every value (against the serial reference value_of), every rank computes the same
// relabeling, and the bytes the engine's schedule sends between ranks are what ownership_change
// counts — never more than without relabeling.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstring>
#include <random>
#include <vector>

#include "engine_checks.hpp"
#include "tessera/tessera.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

/// Collective: elements the redistribution schedule sends between ranks, every rank together.
template <std::size_t N>
index_t elements_sent(const Communicator& comm, const Distribution<N>& from, const Distribution<N>& to) {
  const auto s = redistribution_schedule(from, GhostSpec<N>{}, to, GhostSpec<N>{}, comm.rank());
  return static_cast<index_t>(comm.sum(static_cast<double>(s->send_elements())));
}

/// Collective: true if every rank holds the same ranks in `d`'s grid.
template <std::size_t N>
bool same_everywhere(const Communicator& comm, const Distribution<N>& d) {
  const auto h = static_cast<double>(d.hash() % (std::uint64_t{1} << 50));
  return comm.max(h) == h && -comm.max(-h) == h;
}

template <std::size_t N>
void relabeled_chain(int steps, index_t max_extent, std::uint64_t seed) {
  Communicator comm(MPI_COMM_WORLD);
  std::mt19937_64 rng(seed + N);
  const auto box = random_domain<N>(rng, max_extent);
  Domain<N> dom(comm, any_distribution<N>(rng, box, comm.size(), false));
  DistArray<double, N> a(dom);
  DistArray<std::int32_t, N> b(dom);
  a.for_each_owned([](const Point<N>& p, double& x) { x = value_of(p); });
  b.for_each_owned([](const Point<N>& p, std::int32_t& x) { x = static_cast<std::int32_t>(p[0] * 31 + 7); });
  int gained = 0;
  for (int s = 0; s < steps; ++s) {
    const auto target = random_distribution<N>(rng, box, comm.size(), false);
    const RelabelOptions options{s % 3 == 2 ? RelabelScope::any_rank : RelabelScope::active_ranks,
                                 s % 4 == 3 ? RelabelMethod::greedy : RelabelMethod::automatic};
    const Distribution<N> from = dom.distribution();
    const auto to = relabel_for_locality(from, target, options);
    SCOPED_TRACE(::testing::Message() << "step " << s << ": " << from << " -> " << target << " relabeled " << to);
    ASSERT_TRUE(same_everywhere(comm, to));
    const auto with = ownership_change(from, to), without = ownership_change(from, target);
    EXPECT_LE(with.moving, without.moving);
    gained += with.moving < without.moving ? 1 : 0;
    EXPECT_EQ(elements_sent(comm, from, to), with.moving);
    EXPECT_EQ(elements_sent(comm, from, target), without.moving);
    dom.redistribute(to);
    ASSERT_TRUE(dom.distribution() == to);
    a.for_each_owned([](const Point<N>& p, const double& x) { ASSERT_EQ(x, value_of(p)) << p; });
    b.for_each_owned(
        [](const Point<N>& p, const std::int32_t& x) { ASSERT_EQ(x, static_cast<std::int32_t>(p[0] * 31 + 7)) << p; });
  }
  // The whole array against the serial reference, in row-major order of the box.
  const auto all = a.gather_to_all();
  std::vector<double> want;
  for_each_point(box, [&](const Point<N>& p) { want.push_back(value_of(p)); });
  ASSERT_EQ(all.size(), want.size());
  EXPECT_EQ(std::memcmp(all.data(), want.data(), want.size() * sizeof(double)), 0);
  if (comm.size() > 1) {
    EXPECT_GT(gained, 0) << "no step of the chain gained from relabeling";
  }
}

TEST(ArrayRelabel, RandomChainKeepsEveryValue1D) { relabeled_chain<1>(60, 40, 900); }
TEST(ArrayRelabel, RandomChainKeepsEveryValue2D) { relabeled_chain<2>(60, 12, 910); }
TEST(ArrayRelabel, RandomChainKeepsEveryValue3D) { relabeled_chain<3>(40, 6, 920); }

TEST(ArrayRelabel, WithdrawnRanksComeBackKeepingTheirRows) {
  // Block rows over the first half of the ranks, then over all ranks: as given, rank 1 keeps only
  // part of its rows; relabeled, each of the first ranks keeps the block its rows start, and only
  // what changes owner travels.
  Communicator comm(MPI_COMM_WORLD);
  const int p = comm.size();
  const index_t n = 12 * p;
  const Box<2> box({0, 0}, {n, 8});
  std::vector<int> half;
  for (int r = 0; r < (p + 1) / 2; ++r) half.push_back(r);
  Point<2> shape{static_cast<index_t>(half.size()), 1};
  Domain<2> dom(comm, Distribution<2>(box, ProcGrid<2>::from_ranks(p, shape, half), {block(), block()}));
  DistArray<double, 2> a(dom);
  a.for_each_owned([](const Point<2>& q, double& x) { x = value_of(q); });
  const auto target = Distribution<2>(box, ProcGrid<2>::with_shape(p, {p, 1}), {block(), block()});
  const auto to = relabel_for_locality(dom.distribution(), target);
  const auto with = ownership_change(dom.distribution(), to), without = ownership_change(dom.distribution(), target);
  EXPECT_LE(with.moving, without.moving);
  if (p >= 3) {
    EXPECT_LT(with.moving, without.moving);
  }
  EXPECT_EQ(elements_sent(comm, dom.distribution(), to), with.moving);
  dom.redistribute(to);
  a.for_each_owned([](const Point<2>& q, const double& x) { ASSERT_EQ(x, value_of(q)) << q; });
}

}  // namespace
}  // namespace tessera
