// Plans are built by each rank on its own; a mover only works if, for every pair of ranks, the
// sender and the receiver list the same copies in the same order. This checks that, without MPI,
// by building every rank's plan of a simulated machine, for every builder and distribution kind.
#include <gtest/gtest.h>

#include <memory>
#include <sstream>

#include "engine_checks.hpp"
#include "tessera/plan/schedule_builders.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

/// For every ordered pair (q, r), q's copies to r equal r's copies from q, in order.
template <std::size_t N, class Build>
void expect_agreement(int ranks, Build&& build, const std::string& what) {
  std::vector<MotionPlan<N>> plans;
  for (int r = 0; r < ranks; ++r) plans.push_back(build(r));
  for (int q = 0; q < ranks; ++q)
    for (int r = 0; r < ranks; ++r) {
      std::vector<Copy<N>> sent, received;
      for (const auto& c : plans[static_cast<std::size_t>(q)].copies())
        if (c.src_rank == q && c.dst_rank == r) sent.push_back(c);
      for (const auto& c : plans[static_cast<std::size_t>(r)].copies())
        if (c.src_rank == q && c.dst_rank == r) received.push_back(c);
      ASSERT_EQ(sent.size(), received.size()) << what << ": copies " << q << " -> " << r;
      for (std::size_t i = 0; i < sent.size(); ++i) {
        ASSERT_EQ(sent[i].src, received[i].src) << what << ": copy " << i << " of " << q << " -> " << r;
        ASSERT_EQ(sent[i].dst, received[i].dst) << what << ": copy " << i << " of " << q << " -> " << r;
      }
    }
}

/// For every pair, the compiled send blocks of q for r have the volumes of r's receive blocks from q.
inline void expect_schedules_agree(const std::vector<Schedule>& schedules, const std::string& what) {
  const auto find = [](const std::vector<PeerBlocks>& list, int peer) -> const PeerBlocks* {
    for (const auto& p : list)
      if (p.peer == peer) return &p;
    return nullptr;
  };
  for (std::size_t q = 0; q < schedules.size(); ++q)
    for (std::size_t r = 0; r < schedules.size(); ++r) {
      if (q == r) continue;
      const PeerBlocks* sent = find(schedules[q].sends, static_cast<int>(r));
      const PeerBlocks* received = find(schedules[r].receives, static_cast<int>(q));
      ASSERT_EQ(sent == nullptr, received == nullptr) << what << ": " << q << " -> " << r;
      if (!sent) continue;
      ASSERT_EQ(sent->blocks.size(), received->blocks.size()) << what << ": " << q << " -> " << r;
      for (std::size_t i = 0; i < sent->blocks.size(); ++i)
        ASSERT_EQ(sent->blocks[i].volume, received->blocks[i].volume) << what << ": block " << i << " " << q << " -> " << r;
      ASSERT_EQ(sent->elements, received->elements);
      ASSERT_EQ(sent->block_messages, received->block_messages) << what << ": " << q << " -> " << r;
    }
}

template <std::size_t N>
void agreement_cases(int cases, index_t max_extent) {
  std::mt19937_64 rng(700 + N);
  for (int k = 0; k < cases; ++k) {
    const int ranks = 1 + static_cast<int>(rng() % 6);
    const auto domain = random_domain<N>(rng, max_extent);
    const auto g = random_ghosts<N>(rng);
    const auto halo_dist = any_distribution<N>(rng, domain, ranks, ghosted_dims(g));
    std::ostringstream what;
    what << "case " << k << " halo " << halo_dist << " " << g;
    expect_agreement<N>(ranks, [&](int r) { return halo_plan(halo_dist, g, r); }, what.str());
    std::vector<Schedule> halos;
    for (int r = 0; r < ranks; ++r) halos.push_back(*halo_schedule(halo_dist, g, r));
    expect_schedules_agree(halos, what.str() + " schedules");
    expect_agreement<N>(ranks, [&](int r) { return reverse_halo_plan(halo_dist, g, r); }, what.str() + " reversed");
    const auto a = any_distribution<N>(rng, domain, ranks, false), b = any_distribution<N>(rng, domain, ranks, false);
    expect_agreement<N>(ranks, [&](int r) { return redistribution_plan(a, b, r); }, "redistribution");
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(PlanAgreement, LargeStridedPiecesAreCutAlikeOnBothSides) {
  // Redistributions whose copies are cut into pieces (compile_schedule's kMinPieceElements): each
  // pair's sender and receiver cut alike, and both say the peer's blocks travel as messages.
  std::mt19937_64 rng(77);
  const DimSpec kinds[] = {block(), block_cyclic(128), block_cyclic(300), cyclic()};
  int cut = 0;
  for (int k = 0; k < 40; ++k) {
    const int ranks = 2 + static_cast<int>(rng() % 4);
    const Box<2> domain({0, 0}, {2000 + static_cast<index_t>(rng() % 4000), 64});
    const auto grid = ProcGrid<2>::with_shape(ranks, {ranks, 1});
    const Distribution<2> a(domain, grid, {kinds[rng() % 4], collapsed()});
    const Distribution<2> b(domain, grid, {kinds[rng() % 4], collapsed()});
    const auto ga = a.dim(0).owns_intervals() ? random_ghosts<2>(rng) : no_ghosts<2>();
    std::vector<Schedule> schedules;
    for (int r = 0; r < ranks; ++r) schedules.push_back(*redistribution_schedule(a, ga, b, no_ghosts<2>(), r));
    std::ostringstream what;
    what << "case " << k << " " << a << " " << ga << " -> " << b;
    expect_schedules_agree(schedules, what.str());
    for (const auto& s : schedules)
      for (const auto& p : s.sends) cut += p.block_messages ? 1 : 0;
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(cut, 10);
}

TEST(PlanAgreement, SendersAndReceiversListTheSameCopies1D) { agreement_cases<1>(200, 30); }
TEST(PlanAgreement, SendersAndReceiversListTheSameCopies2D) { agreement_cases<2>(150, 12); }
TEST(PlanAgreement, SendersAndReceiversListTheSameCopies3D) { agreement_cases<3>(60, 6); }

}  // namespace
}  // namespace tessera
