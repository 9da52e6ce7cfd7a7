// Disjoint processor groups (exchange/processor_groups.hpp) and moves between them
// (array/group_copy.hpp) on 1-5 ranks: random splits of the world (unequal groups, ranks in a third
// group or in none), distributions of every kind on each group (dimensional with skeletons, cyclic
// and irregular axes, flooded, general, Morton, box sets with holes), copies both ways and of
// sub-boxes checked against the serial reference value_of(point); two groups doing different
// numbers of collectives at once; bad input an Error on every rank with nothing moved.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "engine_checks.hpp"
#include "random_box_set.hpp"
#include "tessera/tessera.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

/// `call` throws an Error of `code` whose message holds `words` (each rank checks its own).
template <class Call>
void expect_group_error(Call call, ErrorCode code, const std::string& words) {
  try {
    call();
    ADD_FAILURE() << "no error; expected one about " << words;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

/// A distribution of `box` for the `ranks` ranks of a group, of kind `kind % 6` (see the file comment).
Distribution<2> group_distribution(std::mt19937_64& rng, const Box<2>& box, int ranks, int kind) {
  switch (kind % 6) {
    case 0: return random_distribution<2>(rng, box, ranks, false);  // cyclic, block-cyclic, irregular too
    case 1: return random_distribution<2>(rng, box, ranks, true);   // interval axes (ghosts)
    case 2: return Distribution<2>::user(std::make_shared<tessera_examples::MortonDistribution<2>>(box, ranks));
    case 3: return Distribution<2>::from_box_set(random_box_set<2>(rng, box, 4, 6, ranks));
    case 4: {  // a replica of the rows on every coordinate of grid axis 1
      const auto grid = random_grid<2>(rng, ranks);
      return Distribution<2>(box, grid, {block(), flooded()});
    }
    default: {
      const auto grid = random_grid<2>(rng, ranks);
      std::vector<double> weights(static_cast<std::size_t>(grid.size()));
      for (double& w : weights) w = 1.0 + static_cast<double>(rng() % 4);
      return Distribution<2>::from_rank_weights(box, grid, weights, {general(), block()});
    }
  }
}

/// Random ghosts `dist` accepts (none where an axis is not an interval).
GhostSpec<2> group_ghosts(std::mt19937_64& rng, const Distribution<2>& dist) {
  const auto g = random_ghosts<2>(rng, 2);
  try {
    StorageLayout<2>::check_ghosts(dist, g);
    return g;
  } catch (const Error&) {
    return no_ghosts<2>();
  }
}

/// True if `dist` gives `p` an owner (everywhere but a box set's holes).
bool covered(const Distribution<2>& dist, const Point<2>& p) {
  return dist.box_set() == nullptr || dist.box_set()->find(p).has_value();
}

/// Every stored element (ghosts included) of `a` set to kSentinel.
void fill_sentinel(DistArray<double, 2>& a) { std::fill(a.data(), a.data() + a.layout().size(), kSentinel); }

/// A random split of the world: two groups of random sizes, and the ranks left over either in a
/// third group or in none.
std::vector<std::vector<int>> random_split(std::mt19937_64& rng, int size) {
  std::vector<int> ranks(static_cast<std::size_t>(size));
  std::iota(ranks.begin(), ranks.end(), 0);
  std::shuffle(ranks.begin(), ranks.end(), rng);
  const auto a = 1 + static_cast<std::size_t>(rng() % static_cast<std::uint64_t>(size - 1));
  const auto b = 1 + static_cast<std::size_t>(rng() % (static_cast<std::size_t>(size) - a));
  std::vector<std::vector<int>> out{{ranks.begin(), ranks.begin() + static_cast<std::ptrdiff_t>(a)},
                                    {ranks.begin() + static_cast<std::ptrdiff_t>(a),
                                     ranks.begin() + static_cast<std::ptrdiff_t>(a + b)}};
  if (a + b < ranks.size() && rng() % 2 == 0)
    out.emplace_back(ranks.begin() + static_cast<std::ptrdiff_t>(a + b), ranks.end());
  return out;
}

/// One group's side of a test: its distribution, and (on its ranks) a domain and an array.
struct GroupSide {
  int group;
  Distribution<2> dist;
  GhostSpec<2> ghosts;
  std::optional<Domain<2>> domain;
  std::optional<DistArray<double, 2>> array;

  GroupSide(const ProcessorGroups& groups, int g, Distribution<2> d, GhostSpec<2> gh)
      : group(g), dist(std::move(d)), ghosts(gh) {
    if (groups.my_group() != g) return;
    domain.emplace(groups.communicator(), dist);
    array.emplace(*domain, ghosts);
    fill_sentinel(*array);
  }
  [[nodiscard]] DistArray<double, 2>* ptr() { return array ? &*array : nullptr; }
};

/// Checks every stored element of `side`'s array: owned ones hold `want(p)` (nullopt: kSentinel),
/// ghosts kSentinel. Returns the failures on this rank.
template <class Want>
long count_wrong(const GroupSide& side, Want&& want) {
  if (!side.array) return 0;
  long wrong = 0;
  const double* data = side.array->data();
  for_each_stored(side.array->layout(), [&](const PatchLayout<2>&, const Point<2>& p, index_t offset, bool owned) {
    const double expected = owned ? want(p).value_or(kSentinel) : kSentinel;
    if (data[offset] != expected && ++wrong <= 3)
      ADD_FAILURE() << "group " << side.group << " over " << side.dist << ": point " << p << (owned ? "" : " (ghost)")
                    << " holds " << data[offset] << ", not " << expected;
  });
  return wrong;
}

TEST(ProcessorGroups, SplitGivesEachGroupItsOwnCommunicator) {
  Communicator world(MPI_COMM_WORLD);
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 6; ++trial) {
    const auto lists = world.size() == 1 ? std::vector<std::vector<int>>{{0}} : random_split(rng, world.size());
    ProcessorGroups groups(world, lists);
    ASSERT_EQ(groups.count(), static_cast<int>(lists.size()));
    for (int g = 0; g < groups.count(); ++g) {
      EXPECT_EQ(groups.parent_ranks(g), lists[static_cast<std::size_t>(g)]);
      for (int i = 0; i < groups.size(g); ++i) {
        EXPECT_EQ(groups.group_rank(g, lists[static_cast<std::size_t>(g)][static_cast<std::size_t>(i)]), i);
        EXPECT_EQ(groups.group_of(lists[static_cast<std::size_t>(g)][static_cast<std::size_t>(i)]), g);
      }
    }
    const auto mine = groups.group_of(world.rank());
    EXPECT_EQ(groups.my_group(), mine);
    if (!mine) {
      expect_group_error([&] { (void)groups.communicator(); }, ErrorCode::invalid_argument, "is in no group");
      continue;
    }
    const Communicator& comm = groups.communicator();
    EXPECT_EQ(comm.size(), groups.size(*mine));
    EXPECT_EQ(comm.rank(), groups.group_rank(*mine, world.rank()));
    // A collective on the group sees exactly the group's ranks, in the list's order.
    const auto seen = comm.allgather(world.rank());
    EXPECT_EQ(seen, lists[static_cast<std::size_t>(*mine)]);
  }
}

TEST(ProcessorGroups, BadGroupsThrowOnEveryRankAndMakeNothing) {
  Communicator world(MPI_COMM_WORLD);
  const int p = world.size();
  using Lists = std::vector<std::vector<int>>;
  const auto split = [&](Lists lists) { ProcessorGroups groups(world, std::move(lists)); };
  expect_group_error([&] { split({}); }, ErrorCode::invalid_argument, "argument 'groups' is empty");
  expect_group_error([&] { split({{0}, {}}); }, ErrorCode::invalid_argument, "'groups[1]' is empty");
  expect_group_error([&] { split({{0, p}}); }, ErrorCode::invalid_argument, "'groups[0][1]' = " + std::to_string(p) + " lies outside");
  expect_group_error([&] { split({{-1}}); }, ErrorCode::invalid_argument, "lies outside");
  expect_group_error([&] { split({{0}, {0}}); }, ErrorCode::invalid_argument, "is also in groups[0]");
  expect_group_error([&] { split({{0, 0}}); }, ErrorCode::invalid_argument, "appears twice in that group");
  // Bad on rank 0 only: every rank throws rank 0's error, none is left in MPI_Comm_split.
  expect_group_error([&] { split(world.rank() == 0 ? Lists{{p}} : Lists{{0}}); }, ErrorCode::invalid_argument,
                     "lies outside");
  if (p > 1)  // valid everywhere, but not the same lists
    expect_group_error([&] { split(world.rank() == 1 ? Lists{{1}} : Lists{{0}}); }, ErrorCode::invalid_argument,
                       "differs between the ranks");
  const auto grid = ProcGrid<2>::with_shape(p + 1, {p + 1, 1});
  expect_group_error([&] { (void)ProcessorGroups::from_grids<2>(world, {grid}); }, ErrorCode::invalid_argument,
                     "is over " + std::to_string(p + 1) + " ranks");
  // Nothing was left half-made: a good split still works.
  ProcessorGroups groups(world, {{0}});
  EXPECT_EQ(groups.my_group().has_value(), world.rank() == 0);
}

TEST(ProcessorGroups, GroupsOfGridsPlaceEachPositionOnTheGridsRank) {
  Communicator world(MPI_COMM_WORLD);
  const int p = world.size();
  std::vector<int> even, odd;
  for (int r = 0; r < p; ++r) (r % 2 == 0 ? even : odd).push_back(r);
  std::vector<ProcGrid<2>> grids{ProcGrid<2>::from_ranks(p, {1, static_cast<index_t>(even.size())}, even)};
  if (!odd.empty()) grids.push_back(ProcGrid<2>::from_ranks(p, {static_cast<index_t>(odd.size()), 1}, odd));
  const auto groups = ProcessorGroups::from_grids<2>(world, grids);
  const Box<2> box({0, 0}, {7, 9});
  for (int g = 0; g < groups.count(); ++g) {
    const auto& grid = grids[static_cast<std::size_t>(g)];
    const Distribution<2> in_group(box, ProcGrid<2>::with_shape(grid.size(), grid.shape()), {cyclic(), block()});
    EXPECT_EQ(groups.lifted(g, in_group), Distribution<2>(box, grid, {cyclic(), block()}));
  }
}

TEST(LiftToParent, KeepsEveryOwnedIndexAndItsStorage) {
  std::mt19937_64 rng(5);
  const int parent = 7;
  for (int trial = 0; trial < 24; ++trial) {
    const int k = 1 + static_cast<int>(rng() % 4);
    std::vector<int> ranks(static_cast<std::size_t>(parent));
    std::iota(ranks.begin(), ranks.end(), 0);
    std::shuffle(ranks.begin(), ranks.end(), rng);
    ranks.resize(static_cast<std::size_t>(k));
    const Box<2> box = random_domain<2>(rng, 9);
    const auto dist = group_distribution(rng, box, k, trial);
    const auto ghosts = group_ghosts(rng, dist);
    const auto lifted = lift_to_parent(dist, ranks, parent);
    EXPECT_EQ(lifted.comm_size(), parent);
    EXPECT_EQ(lifted, lift_to_parent(dist, ranks, parent)) << dist;
    EXPECT_EQ(lifted.hash(), lift_to_parent(dist, ranks, parent).hash());
    for (int r = 0; r < parent; ++r) {
      const auto at = std::find(ranks.begin(), ranks.end(), r);
      const int g = at == ranks.end() ? -1 : static_cast<int>(at - ranks.begin());
      EXPECT_EQ(lifted.owned_sections(r), g < 0 ? std::vector<Section<2>>{} : dist.owned_sections(g)) << dist;
      const auto mine = StorageLayout<2>::make(lifted, r, ghosts);
      if (g < 0) {
        EXPECT_EQ(mine.size(), 0) << dist;
        continue;
      }
      const auto theirs = StorageLayout<2>::make(dist, g, ghosts);
      ASSERT_EQ(mine.patches().size(), theirs.patches().size()) << dist;
      EXPECT_EQ(mine.size(), theirs.size()) << dist;
      for (std::size_t i = 0; i < mine.patches().size(); ++i) {
        EXPECT_EQ(mine.patches()[i].offset, theirs.patches()[i].offset) << dist;
        EXPECT_EQ(mine.patches()[i].owned_box(), theirs.patches()[i].owned_box()) << dist;
        EXPECT_EQ(mine.patches()[i].extents(), theirs.patches()[i].extents()) << dist;
      }
    }
    for (const auto& piece : dist.pieces(box)) {
      const auto parent_pieces = lifted.pieces(piece.section);
      ASSERT_FALSE(parent_pieces.empty()) << dist;
      EXPECT_EQ(parent_pieces.front().rank, ranks[static_cast<std::size_t>(piece.rank)]) << dist;
    }
  }
  expect_group_error([] { (void)lift_to_parent(Distribution<1>(Box<1>({0}, {4}), ProcGrid<1>::with_shape(2, {2}), {block()}), {0}, 3); },
                     ErrorCode::invalid_argument, "is for 2 ranks, but parent_ranks names 1");
  expect_group_error([] { (void)lift_to_parent(Distribution<1>(Box<1>({0}, {4}), ProcGrid<1>::with_shape(2, {2}), {block()}), {0, 3}, 3); },
                     ErrorCode::invalid_argument, "lies outside");
}

TEST(CopyBetweenGroups, MatchesTheSerialReferenceBothWays) {
  Communicator world(MPI_COMM_WORLD);
  if (world.size() < 2) GTEST_SKIP() << "two disjoint groups need two ranks (1 rank: see BadInput)";
  std::mt19937_64 rng(1700 + static_cast<unsigned>(world.size()));
  long wrong = 0;
  for (int trial = 0; trial < 18; ++trial) {
    ProcessorGroups groups(world, random_split(rng, world.size()));
    const Box<2> box = random_domain<2>(rng, 8);
    auto da = group_distribution(rng, box, groups.size(0), trial);
    auto db = group_distribution(rng, box, groups.size(1), trial / 6 + static_cast<int>(rng() % 6));
    auto ga = group_ghosts(rng, da);
    auto gb = group_ghosts(rng, db);
    GroupSide a(groups, 0, da, ga), b(groups, 1, db, gb);
    // An element the source's distribution leaves unowned (a box set's hole) is not moved.
    const auto from_a = [&](const Point<2>& p, double v, double otherwise) { return covered(a.dist, p) ? v : otherwise; };
    const auto from_b = [&](const Point<2>& p, double v, double otherwise) { return covered(b.dist, p) ? v : otherwise; };
    if (a.array) a.array->for_each_owned([](const Point<2>& p, double& x) { x = value_of(p); });
    copy_between_groups<double>(groups, 0, a.dist, a.ptr(), 1, b.dist, b.ptr());
    wrong += count_wrong(b, [&](const Point<2>& p) { return std::optional<double>(from_a(p, value_of(p), kSentinel)); });
    // The other way: group 1's own values into group 0's array.
    if (b.array) b.array->for_each_owned([](const Point<2>& p, double& x) { x = 2 * value_of(p) + 1; });
    copy_between_groups<double>(groups, 1, b.dist, b.ptr(), 0, a.dist, a.ptr());
    wrong += count_wrong(a, [&](const Point<2>& p) { return std::optional<double>(from_b(p, 2 * value_of(p) + 1, value_of(p))); });
    // Again with the first call's arguments: the kept mover runs (a cache hit on every rank).
    const auto hits = groups.cache().stats().executor_hits;
    if (a.array) a.array->for_each_owned([](const Point<2>& p, double& x) { x = -value_of(p); });
    copy_between_groups<double>(groups, 0, a.dist, a.ptr(), 1, b.dist, b.ptr());
    EXPECT_EQ(groups.cache().stats().executor_hits, hits + 1);
    wrong += count_wrong(b, [&](const Point<2>& p) { return std::optional<double>(from_a(p, -value_of(p), 2 * value_of(p) + 1)); });
  }
  EXPECT_EQ(world.allreduce(wrong, ReduceOp::sum), 0);
}

TEST(CopyBetweenGroups, SectionsMoveOntoBoxesOfAnotherDomain) {
  Communicator world(MPI_COMM_WORLD);
  if (world.size() < 2) GTEST_SKIP() << "two disjoint groups need two ranks";
  std::mt19937_64 rng(900 + static_cast<unsigned>(world.size()));
  long wrong = 0;
  for (int trial = 0; trial < 12; ++trial) {
    ProcessorGroups groups(world, random_split(rng, world.size()));
    const int from = static_cast<int>(rng() % 2), to = 1 - from;  // either direction
    const Box<2> src_domain = random_domain<2>(rng, 9), dst_domain = random_domain<2>(rng, 9);
    // A source box that fits in the destination domain, placed anywhere there.
    Box<2> src_box;
    Point<2> dst_lo;
    for (std::size_t d = 0; d < 2; ++d) {
      const index_t most = std::min(extent(src_domain, d), extent(dst_domain, d));
      const index_t e = static_cast<index_t>(rng() % static_cast<std::uint64_t>(most + 1));
      src_box.lo[d] = src_domain.lo[d] + static_cast<index_t>(rng() % static_cast<std::uint64_t>(extent(src_domain, d) - e + 1));
      src_box.hi[d] = src_box.lo[d] + e;
      dst_lo[d] = dst_domain.lo[d] + static_cast<index_t>(rng() % static_cast<std::uint64_t>(extent(dst_domain, d) - e + 1));
    }
    const auto ds = group_distribution(rng, src_domain, groups.size(from), trial);
    const auto dd = group_distribution(rng, dst_domain, groups.size(to), trial + 3);
    GroupSide s(groups, from, ds, group_ghosts(rng, ds)), t(groups, to, dd, group_ghosts(rng, dd));
    if (s.array) s.array->for_each_owned([](const Point<2>& p, double& x) { x = value_of(p); });
    copy_section_between_groups<double>(groups, from, s.dist, s.ptr(), src_box, to, t.dist, t.ptr(), dst_lo);
    const Box<2> dst_box = Box<2>::from_extents(dst_lo, extents(src_box));
    wrong += count_wrong(t, [&](const Point<2>& q) -> std::optional<double> {
      if (!contains(dst_box, q) || !covered(s.dist, q - dst_lo + src_box.lo)) return std::nullopt;
      return value_of(q - dst_lo + src_box.lo);
    });
    wrong += count_wrong(s, [](const Point<2>& p) { return std::optional<double>(value_of(p)); });  // unchanged
  }
  EXPECT_EQ(world.allreduce(wrong, ReduceOp::sum), 0);
}

// User-defined local layouts (layout/local_layout.hpp) on either side: the lifted distribution keeps
// each group rank's offsets and storage size, so the copy lands every value where the group's
// array keeps it (the soak found copies permuted when the lift dropped the layout).
TEST(CopyBetweenGroups, LocalLayoutsLiftWithTheirOffsets) {
  Communicator world(MPI_COMM_WORLD);
  std::mt19937_64 rng(4100 + static_cast<unsigned>(world.size()));
  const auto stored = [&](const Box<2>& box, int ranks, int kind) {
    using tessera_examples::MortonDistribution;
    if (kind % 4 == 3)
      return Distribution<2>::user(std::make_shared<MortonDistribution<2>>(box, ranks, tessera_examples::MortonStorage::curve));
    const auto morton = Distribution<2>::user(std::make_shared<MortonDistribution<2>>(box, ranks));
    const LocalOrder<2> orders[] = {LocalOrder<2>::column_major(), LocalOrder<2>::padded(3), LocalOrder<2>::tiled(2)};
    return with_local_order(morton, orders[kind % 4]);
  };
  long wrong = 0;
  for (int trial = 0; trial < 5; ++trial) {
    const auto lists = world.size() == 1 ? std::vector<std::vector<int>>{{0}} : random_split(rng, world.size());
    ProcessorGroups groups(world, lists);
    const Box<2> box = random_domain<2>(rng, 7);
    const auto da = stored(box, groups.size(0), trial);
    const auto lifted = groups.lifted(0, da);
    EXPECT_TRUE(lifted.has_local_layout()) << da;
    for (int r = 0; r < world.size(); ++r) {
      const auto g = groups.group_rank(0, r);
      EXPECT_EQ(lifted.local_storage_size(r), g ? da.local_storage_size(*g) : 0) << da;
    }
    for_each_point(box, [&](const Point<2>& p) { EXPECT_EQ(lifted.local_offset(p), da.local_offset(p)) << da; });
    if (groups.count() < 2) continue;
    const auto db = trial % 2 == 0 ? stored(box, groups.size(1), trial + 1)
                                   : random_distribution<2>(rng, box, groups.size(1), false);
    GroupSide a(groups, 0, da, no_ghosts<2>()), b(groups, 1, db, no_ghosts<2>());
    if (a.array) a.array->for_each_owned([](const Point<2>& p, double& x) { x = value_of(p); });
    copy_between_groups<double>(groups, 0, a.dist, a.ptr(), 1, b.dist, b.ptr());
    if (b.array) b.array->for_each_owned([&](const Point<2>& p, double& x) { wrong += x != value_of(p) ? 1 : 0; });
    if (b.array) b.array->for_each_owned([](const Point<2>& p, double& x) { x = -value_of(p); });
    copy_between_groups<double>(groups, 1, b.dist, b.ptr(), 0, a.dist, a.ptr());
    if (a.array) a.array->for_each_owned([&](const Point<2>& p, double& x) { wrong += x != -value_of(p) ? 1 : 0; });
  }
  EXPECT_EQ(world.allreduce(wrong, ReduceOp::sum), 0);
}

// Each group runs its own number of ghost updates and reductions: if any of them ran on the world,
// the groups' unequal counts would leave ranks waiting for each other (the harness's timeout).
TEST(CopyBetweenGroups, GroupsDoDifferentCollectivesConcurrently) {
  Communicator world(MPI_COMM_WORLD);
  if (world.size() < 2) GTEST_SKIP() << "two disjoint groups need two ranks";
  // Ranks 0, 2, 4 and 1, 3; on 5 ranks rank 4 sits out (in no group) instead.
  std::vector<std::vector<int>> lists(2);
  for (int r = 0; r < world.size(); ++r)
    if (!(world.size() == 5 && r == 4)) lists[static_cast<std::size_t>(r % 2)].push_back(r);
  ProcessorGroups groups(world, lists);
  const Box<2> box({0, 0}, {12, 10});
  const Distribution<2> d0(box, ProcGrid<2>::automatic(groups.size(0), {12, 10}), {block(), block()});
  const Distribution<2> d1(box, ProcGrid<2>::with_shape(groups.size(1), {groups.size(1), 1}), {cyclic(), block()});
  GroupSide a(groups, 0, d0, ghosts<2>(1)), b(groups, 1, d1, no_ghosts<2>());
  double serial = 0;
  for_each_point(box, [&](const Point<2>& p) { serial += value_of(p); });
  if (a.array) {  // five sweeps: a ghost update and a sum each
    a.array->for_each_owned([](const Point<2>& p, double& x) { x = value_of(p); });
    for (int sweep = 0; sweep < 5; ++sweep) {
      a.array->update_ghosts();
      EXPECT_DOUBLE_EQ(a.array->sum(), serial);
    }
  }
  if (b.array) {  // eleven reductions, no ghost update
    b.array->for_each_owned([](const Point<2>& p, double& x) { x = -value_of(p); });
    for (int k = 0; k < 11; ++k) EXPECT_DOUBLE_EQ(b.array->sum(), -serial);
  }
  // The only operation of both: group 1's values into group 0's array.
  copy_between_groups<double>(groups, 1, d1, b.ptr(), 0, d0, a.ptr());
  long wrong = 0;
  if (a.array)
    a.array->for_each_owned([&](const Point<2>& p, double& x) { wrong += x != -value_of(p) ? 1 : 0; });
  EXPECT_EQ(world.allreduce(wrong, ReduceOp::sum), 0);
}

TEST(CopyBetweenGroups, BadInputThrowsOnEveryRankAndMovesNothing) {
  Communicator world(MPI_COMM_WORLD);
  const int p = world.size();
  const Box<2> box({0, 0}, {6, 5});
  if (p == 1) {  // one group: only the arguments that need no second group can be wrong
    ProcessorGroups groups(world, {{0}});
    GroupSide a(groups, 0, Distribution<2>(box, ProcGrid<2>::with_shape(1, {1, 1}), {block(), block()}), no_ghosts<2>());
    expect_group_error([&] { copy_between_groups<double>(groups, 0, a.dist, a.ptr(), 0, a.dist, a.ptr()); },
                       ErrorCode::invalid_argument, "'from_group' and 'to_group' are both 0");
    expect_group_error([&] { copy_between_groups<double>(groups, 0, a.dist, a.ptr(), 1, a.dist, nullptr); },
                       ErrorCode::invalid_argument, "argument 'to_group' = 1 is not a group (there are 1)");
    return;
  }
  std::vector<std::vector<int>> lists{{0}, {}};
  for (int r = 1; r < p; ++r) lists[1].push_back(r);
  ProcessorGroups groups(world, lists);
  const Distribution<2> d0(box, ProcGrid<2>::with_shape(1, {1, 1}), {block(), block()});
  const Distribution<2> d1(box, ProcGrid<2>::with_shape(p - 1, {1, p - 1}), {block(), cyclic()});
  GroupSide a(groups, 0, d0, ghosts<2>(1)), b(groups, 1, d1, no_ghosts<2>());
  if (a.array) a.array->for_each_owned([](const Point<2>& q, double& x) { x = value_of(q); });
  const auto copy = [&](int from, const Distribution<2>& df, DistArray<double, 2>* src, int to,
                        const Distribution<2>& dt, DistArray<double, 2>* dst) {
    copy_between_groups<double>(groups, from, df, src, to, dt, dst);
  };
  const Distribution<2> other_box(Box<2>({0, 0}, {6, 6}), d1.grid(), {block(), cyclic()});
  expect_group_error([&] { copy(0, d0, a.ptr(), 1, other_box, b.ptr()); }, ErrorCode::invalid_argument,
                     "another box than 'from'");
  const Distribution<2> wrong_size(box, ProcGrid<2>::with_shape(p, {1, p}), {block(), cyclic()});
  expect_group_error([&] { copy(0, d0, a.ptr(), 1, wrong_size, b.ptr()); }, ErrorCode::invalid_argument,
                     "ranks, but group 1 has " + std::to_string(p - 1));
  // Rank 0 (group 0) passes its array as the destination of group 1 too.
  expect_group_error([&] { copy(0, d0, a.ptr(), 1, d1, b.array ? b.ptr() : a.ptr()); }, ErrorCode::invalid_argument,
                     "is an array on parent rank 0, which is not in group 1");
  expect_group_error([&] { copy(0, d0, a.ptr(), 1, d1, nullptr); }, ErrorCode::invalid_argument,
                     "is null on parent rank 1, which is rank 0 of group 1");
  const Distribution<2> other_kind(box, d1.grid(), {cyclic(), block()});
  expect_group_error([&] { copy(0, d0, a.ptr(), 1, other_kind, b.ptr()); }, ErrorCode::invalid_argument,
                     "has the distribution");
  expect_group_error([&] { copy(0, d0, a.ptr(), 2, d1, b.ptr()); }, ErrorCode::invalid_argument,
                     "argument 'to_group' = 2 is not a group");
  expect_group_error(
      [&] {
        copy_section_between_groups<double>(groups, 0, d0, a.ptr(), Box<2>({0, 0}, {3, 3}), 1, d1, b.ptr(), {4, 4});
      },
      ErrorCode::out_of_range, "is not inside the destination domain");
  if (p >= 3) {  // an array over group 1's ranks in the reverse order: not the group's communicator
    std::vector<int> reversed(lists[1].rbegin(), lists[1].rend());
    ProcessorGroups backwards(world, {{0}, reversed});
    std::optional<Domain<2>> dom;
    std::optional<DistArray<double, 2>> over_reversed;
    if (backwards.my_group() == 1) over_reversed.emplace(dom.emplace(backwards.communicator(), d1));
    expect_group_error([&] { copy(0, d0, a.ptr(), 1, d1, over_reversed ? &*over_reversed : nullptr); },
                       ErrorCode::invalid_argument, "is over a communicator where this rank is");
  }
  long wrong = count_wrong(b, [](const Point<2>&) { return std::optional<double>(); });  // nothing moved
  EXPECT_EQ(world.allreduce(wrong, ReduceOp::sum), 0);
}

}  // namespace
}  // namespace tessera
