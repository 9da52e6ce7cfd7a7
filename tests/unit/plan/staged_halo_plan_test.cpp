// The staged halo (plan/staged_halo_plan.hpp): local wrap-arounds first, in order, then whole
// ghost-inclusive slabs along the one split axis. Checked without MPI by running every rank's
// compiled schedule on a simulated machine, the way a mover runs it (local copies, then the
// messages, which read the senders' storage after their local copies), and comparing each rank's
// storage with the serial halo reference.
#include <gtest/gtest.h>

#include <sstream>

#include "engine_checks.hpp"
#include "tessera/plan/schedule_builders.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

/// The element offsets of `blocks`, in their enumeration order.
std::vector<index_t> staged_offsets(const Schedule& s, const std::vector<Block>& blocks) {
  std::vector<index_t> out;
  for (const Block& b : blocks)
    s.for_each_stretch(b, [&](index_t offset, index_t count, index_t stride) {
      for (index_t i = 0; i < count; ++i) out.push_back(offset + i * stride);
    });
  return out;
}

/// Runs every rank's schedule on `data` (one storage vector per rank): local copies in order (first
/// for a local_first schedule, else after the messages), messages reading the senders' storage as
/// it is when they start.
void simulate_machine(const std::vector<Schedule>& schedules, std::vector<std::vector<double>>& data) {
  const auto local = [&](std::size_t r) {
    const Schedule& s = schedules[r];
    for (std::size_t k = 0; k < s.local_src.size(); ++k) {
      const auto from = staged_offsets(s, {s.local_src[k]}), into = staged_offsets(s, {s.local_dst[k]});
      ASSERT_EQ(from.size(), into.size());
      for (std::size_t i = 0; i < from.size(); ++i) data[r][static_cast<std::size_t>(into[i])] = data[r][static_cast<std::size_t>(from[i])];
    }
  };
  for (std::size_t r = 0; r < schedules.size(); ++r)
    if (schedules[r].local_first) local(r);
  const auto sent = data;  // what the senders' storage holds when the messages start
  for (std::size_t r = 0; r < schedules.size(); ++r)
    for (const PeerBlocks& in : schedules[r].receives) {
      const Schedule& q = schedules[static_cast<std::size_t>(in.peer)];
      const auto out = std::find_if(q.sends.begin(), q.sends.end(), [&](const PeerBlocks& p) { return p.peer == static_cast<int>(r); });
      ASSERT_NE(out, q.sends.end()) << "rank " << in.peer << " sends nothing to " << r;
      const auto from = staged_offsets(q, out->blocks), into = staged_offsets(schedules[r], in.blocks);
      ASSERT_EQ(from.size(), into.size());
      for (std::size_t i = 0; i < from.size(); ++i)
        data[r][static_cast<std::size_t>(into[i])] = sent[static_cast<std::size_t>(in.peer)][static_cast<std::size_t>(from[i])];
    }
  for (std::size_t r = 0; r < schedules.size(); ++r)
    if (!schedules[r].local_first) local(r);
}

/// A distribution with one split axis `a` of `coords` coordinates (block or random cuts), over
/// `ranks` >= coords ranks (the others skeletons), every other axis whole.
template <std::size_t N>
Distribution<N> one_split_axis(std::mt19937_64& rng, const Box<N>& domain, int ranks, std::size_t a, int coords) {
  Point<N> shape = Point<N>::filled(1);
  shape[a] = coords;
  std::vector<int> order(static_cast<std::size_t>(ranks));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  order.resize(static_cast<std::size_t>(coords));
  std::array<DimSpec, N> specs;
  specs.fill(block());
  specs[a] = random_spec(rng, domain.lo[a], domain.hi[a], coords, true);
  return Distribution<N>(domain, ProcGrid<N>::from_ranks(ranks, shape, order), specs);
}

/// Random cases with one split axis; returns how many of them the staged plan applied to (each
/// checked against the reference, as is every other case on the general plan).
template <std::size_t N>
int staged_cases(int cases, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  int staged = 0;
  for (int k = 0; k < cases; ++k) {
    auto domain = random_domain<N>(rng, 9);
    const auto a = static_cast<std::size_t>(rng() % N);
    const int coords = 2 + static_cast<int>(rng() % 4);
    // Mostly thick enough along a for every coordinate to hold the ghost widths (random cuts can
    // still make thin or empty ones, which take the general plan).
    if (rng() % 4 != 0) domain.hi[a] = domain.lo[a] + 2 * coords + static_cast<index_t>(rng() % 5);
    const int ranks = coords + static_cast<int>(rng() % 2);
    auto g = random_ghosts<N>(rng, 3);
    if (rng() % 4 != 0) {  // mostly the qualifying kind: corners, the other axes periodic
      g.corners = true;
      for (std::size_t d = 0; d < N; ++d) g.periodic[d] = d == a ? rng() % 2 == 0 : true;
    }
    if (rng() % 3 == 0) g.order = StorageOrder::column_major;
    const auto dist = one_split_axis<N>(rng, domain, ranks, a, coords);
    std::ostringstream what;
    what << "case " << k << ": " << dist << ", " << g;
    SCOPED_TRACE(what.str());
    const bool applies = staged_halo_plan(dist, g, 0).has_value();  // the same answer for every rank
    staged += applies ? 1 : 0;
    std::vector<Schedule> schedules;
    std::vector<std::vector<double>> data;
    std::vector<StorageLayout<N>> layouts;
    for (int r = 0; r < ranks; ++r) {
      // The staged schedule wherever it applies (these domains are smaller than `halo_schedule`
      // stages: that choice is checked apart), else the general one.
      auto staged_schedule = staged_halo_schedule(dist, g, r);
      EXPECT_EQ(staged_schedule.has_value(), applies) << "rank " << r;
      EXPECT_EQ(halo_schedule(dist, g, r)->local_first, staged_halo_chosen(dist, g)) << "rank " << r;
      schedules.push_back(staged_schedule ? std::move(*staged_schedule) : *halo_schedule(dist, g, r));
      layouts.push_back(StorageLayout<N>::make(dist, r, g));
      data.push_back(filled_storage(layouts.back()));
      EXPECT_EQ(schedules.back().local_first, applies) << "rank " << r;
      if (schedules.back().block_messages) {
        EXPECT_TRUE(applies);
        EXPECT_EQ(a, outermost_axis<N>(g.order));
        for (const auto* list : {&schedules.back().sends, &schedules.back().receives})
          for (const PeerBlocks& p : *list)
            for (const Block& b : p.blocks) EXPECT_TRUE(schedules.back().contiguous(b)) << "rank " << r << " peer " << p.peer;
      }
    }
    simulate_machine(schedules, data);
    for (int r = 0; r < ranks; ++r)
      expect_halo_reference(layouts[static_cast<std::size_t>(r)], domain, g,
                            [&](index_t offset) { return data[static_cast<std::size_t>(r)][static_cast<std::size_t>(offset)]; }, r);
    if (::testing::Test::HasFailure()) return staged;
  }
  return staged;
}

TEST(StagedHalo, FillsEveryGhostAsTheGeneralPlanDoes2D) { EXPECT_GE(staged_cases<2>(300, 11), 100); }
TEST(StagedHalo, FillsEveryGhostAsTheGeneralPlanDoes3D) { EXPECT_GE(staged_cases<3>(200, 12), 60); }

TEST(StagedHalo, HaloScheduleStagesLargeSlabsOnly) {
  // Staging pays where the slabs are large and the wraps many (src/plan/staged_halo.cpp).
  const auto along0 = [](const Box<3>& domain) {
    return Distribution<3>(domain, ProcGrid<3>::with_shape(2, {2, 1, 1}), {block(), block(), block()});
  };
  const auto g = ghosts<3>(2).periodic_along({true, true, true});
  EXPECT_TRUE(staged_halo_chosen(along0(Box<3>({0, 0, 0}, {64, 64, 64})), g));    // slabs of 2 x 68 x 68
  EXPECT_TRUE(halo_schedule(along0(Box<3>({0, 0, 0}, {64, 64, 64})), g, 1)->local_first);
  EXPECT_FALSE(staged_halo_chosen(along0(Box<3>({0, 0, 0}, {16, 16, 16})), g));  // 2 x 20 x 20: general
  EXPECT_FALSE(halo_schedule(along0(Box<3>({0, 0, 0}, {16, 16, 16})), g, 1)->local_first);
  // 2-D: rows of 4096 + 4 ghosts, two layers a slab: staged; 512 wide, one layer: 514-element
  // slabs, general (though the staged plan applies).
  const auto rows = [](index_t n) {
    return Distribution<2>(Box<2>({0, 0}, {n, n}), ProcGrid<2>::with_shape(2, {2, 1}), {block(), block()});
  };
  EXPECT_TRUE(staged_halo_chosen(rows(4096), ghosts<2>(2).periodic_along({true, true})));
  EXPECT_TRUE(halo_schedule(rows(4096), ghosts<2>(2).periodic_along({true, true}), 0)->local_first);
  EXPECT_FALSE(staged_halo_chosen(rows(512), ghosts<2>(1).periodic_along({true, true})));
  EXPECT_FALSE(halo_schedule(rows(512), ghosts<2>(1).periodic_along({true, true}), 0)->local_first);
  EXPECT_TRUE(staged_halo_plan(rows(512), ghosts<2>(1).periodic_along({true, true}), 0).has_value());
}

TEST(StagedHalo, SlabsAlongTheOutermostAxisAreOneMessageEach) {
  // 2 x 1 x 1, periodic, 27-point width 2: rank 0 sends rank 1 two contiguous slabs of 2 x 12 x 10
  // (its own top and bottom layers with their ghosts), wraps its other axes locally first.
  const Box<3> domain({0, 0, 0}, {8, 8, 6});
  const Distribution<3> dist(domain, ProcGrid<3>::with_shape(2, {2, 1, 1}), {block(), block(), block()});
  const auto g = ghosts<3>(2).periodic_along({true, true, true});
  const auto s = staged_halo_schedule(dist, g, 0);
  ASSERT_TRUE(s.has_value());
  EXPECT_TRUE(s->local_first);
  EXPECT_TRUE(s->block_messages);
  ASSERT_EQ(s->sends.size(), 1u);
  ASSERT_EQ(s->sends[0].blocks.size(), 2u);
  for (const Block& b : s->sends[0].blocks) {
    EXPECT_TRUE(s->contiguous(b));
    EXPECT_EQ(b.volume, 2 * 12 * 10);
  }
  EXPECT_EQ(s->local_src.size(), 4u);  // low and high wraps along axis 2, then along axis 1
  // The general plan moves the same cells: as many elements, sent and copied.
  const auto general = compile_schedule(halo_plan(dist, g, 0), 0, StorageLayout<3>::make(dist, 0, g),
                                        StorageLayout<3>::make(dist, 0, g), true);
  EXPECT_EQ(general.send_elements(), s->send_elements());
  EXPECT_EQ(general.receive_elements(), s->receive_elements());
  EXPECT_EQ(general.local_elements(), s->local_elements());
  EXPECT_FALSE(general.local_first);
}

TEST(StagedHalo, AppliesOnlyWhereEveryRankCanStageAlike) {
  const Box<3> domain({0, 0, 0}, {8, 8, 8});
  const auto blocks = [&](int ranks, const Point<3>& shape) {
    return Distribution<3>(domain, ProcGrid<3>::with_shape(ranks, shape), {block(), block(), block()});
  };
  const auto periodic = ghosts<3>(1).periodic_along({true, true, true});
  EXPECT_TRUE(staged_halo_plan(blocks(4, {4, 1, 1}), periodic, 0).has_value());
  EXPECT_TRUE(staged_halo_plan(blocks(3, {1, 3, 1}), periodic, 1).has_value());
  EXPECT_TRUE(staged_halo_strided(blocks(3, {1, 3, 1}), periodic));  // slabs across the middle axis: strided
  EXPECT_FALSE(staged_halo_plan(blocks(4, {2, 2, 1}), periodic, 0).has_value());  // two split axes
  EXPECT_FALSE(staged_halo_plan(blocks(1, {1, 1, 1}), periodic, 0).has_value());  // nothing split
  EXPECT_FALSE(staged_halo_plan(blocks(4, {4, 1, 1}), periodic.faces_only(), 0).has_value());
  EXPECT_FALSE(staged_halo_plan(blocks(4, {4, 1, 1}), ghosts<3>(1).periodic_along({true, false, true}), 0).has_value());
  // Axis 1 without ghosts need not wrap; axis 0 need not be periodic.
  EXPECT_TRUE(staged_halo_plan(blocks(4, {4, 1, 1}), GhostSpec<3>::sides({1, 0, 1}, {1, 0, 1}).periodic_along({false, false, true}), 0)
                  .has_value());
  // A coordinate thinner than the ghost width: its neighbours' slabs would come from two ranks.
  const Distribution<3> thin(domain, ProcGrid<3>::with_shape(3, {3, 1, 1}), {cut({0, 1, 5, 8}), block(), block()});
  EXPECT_FALSE(staged_halo_plan(thin, ghosts<3>(2).periodic_along({true, true, true}), 0).has_value());
  EXPECT_TRUE(staged_halo_plan(thin, ghosts<3>(1).periodic_along({true, true, true}), 0).has_value());
  // An axis shorter than its ghost width wraps more than once: the general plan does that.
  const Box<3> flat({0, 0, 0}, {8, 8, 1});
  const Distribution<3> flat_dist(flat, ProcGrid<3>::with_shape(2, {2, 1, 1}), {block(), block(), block()});
  EXPECT_FALSE(staged_halo_plan(flat_dist, ghosts<3>(2).periodic_along({true, true, true}), 0).has_value());
  // The reverse halo (combine into owners) is never staged.
  EXPECT_FALSE(halo_schedule(blocks(4, {4, 1, 1}), periodic, 0, nullptr, true)->local_first);
}

}  // namespace
}  // namespace tessera
