// Rank relabeling (plan/relabel.hpp): the assignment is optimal (brute force for P <= 7, a bitmask
// dynamic programme for P <= 14, no improving swap up to 64), deterministic, the identity when
// nothing can be gained, never worse than the target as given; the overlap matrix and the
// ownership change agree with a point-by-point count; bad arguments throw.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <map>
#include <numeric>
#include <random>
#include <vector>

#include "engine_checks.hpp"
#include "random_box_set.hpp"
#include "tessera/plan/relabel.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

std::vector<int> iota_ranks(int n) {
  std::vector<int> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

/// A random overlap matrix over `positions` x `ranks`: dense, sparse, or with many ties.
std::vector<RelabelOverlap> random_overlaps(std::mt19937_64& rng, int positions, int ranks) {
  const auto style = rng() % 3;
  std::vector<RelabelOverlap> out;
  for (int l = 0; l < positions; ++l)
    for (int q = 0; q < ranks; ++q) {
      if (style == 1 && rng() % 4 != 0) continue;                      // sparse
      const index_t w = style == 2 ? static_cast<index_t>(rng() % 3)  // ties everywhere
                                   : static_cast<index_t>(rng() % 1000);
      if (w > 0) out.push_back({l, q, w});
    }
  std::shuffle(out.begin(), out.end(), rng);
  return out;
}

/// The best assigned volume over every injective map of positions to candidates.
index_t brute_force(int positions, std::vector<int> candidates, const std::vector<RelabelOverlap>& overlaps) {
  std::sort(candidates.begin(), candidates.end());
  index_t best = -1;
  do {
    const std::vector<int> ranks(candidates.begin(), candidates.begin() + positions);
    best = std::max(best, assigned_volume(ranks, overlaps));
  } while (std::next_permutation(candidates.begin(), candidates.end()));
  return best;
}

/// The best assigned volume of a square problem by dynamic programming over subsets of ranks.
index_t subset_dp(int p, const std::vector<RelabelOverlap>& overlaps) {
  std::vector<index_t> w(static_cast<std::size_t>(p * p), 0);
  for (const auto& o : overlaps) w[static_cast<std::size_t>(o.position * p + o.rank)] += o.volume;
  std::vector<index_t> best(std::size_t{1} << p, -1);
  best[0] = 0;
  for (std::size_t mask = 0; mask < best.size(); ++mask) {
    if (best[mask] < 0) continue;
    const int l = std::popcount(mask);  // the next position to fill
    if (l == p) continue;
    for (int q = 0; q < p; ++q)
      if (!(mask & (std::size_t{1} << q))) {
        auto& next = best[mask | (std::size_t{1} << q)];
        next = std::max(next, best[mask] + w[static_cast<std::size_t>(l * p + q)]);
      }
  }
  return best.back();
}

void expect_injective(const std::vector<int>& ranks, const std::vector<int>& candidates, int positions) {
  ASSERT_EQ(ranks.size(), static_cast<std::size_t>(positions));
  std::vector<int> sorted = ranks;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()) << "a rank holds two positions";
  for (int r : ranks) EXPECT_NE(std::find(candidates.begin(), candidates.end(), r), candidates.end()) << r;
}

TEST(Relabel, GreedyTrapIsSolvedExactly) {
  // Greedy takes the 10 and is left with 1; the optimum crosses over for 9 + 9.
  const std::vector<RelabelOverlap> w{{0, 0, 10}, {0, 1, 9}, {1, 0, 9}, {1, 1, 1}};
  const std::vector<int> ranks{0, 1};
  EXPECT_EQ(assign_positions(2, ranks, ranks, w, RelabelMethod::exact), (std::vector<int>{1, 0}));
  EXPECT_EQ(assign_positions(2, ranks, ranks, w), (std::vector<int>{1, 0}));
  // Greedy keeps 11, no more than the target as given: the target comes back.
  EXPECT_EQ(assign_positions(2, ranks, ranks, w, RelabelMethod::greedy), ranks);
}

TEST(Relabel, HandMadeThreeByThree) {
  // Position 0 is rank 2's, position 1 rank 0's, position 2 rank 1's.
  const std::vector<RelabelOverlap> w{{0, 2, 50}, {0, 0, 10}, {1, 0, 40}, {1, 1, 5}, {2, 1, 30}, {2, 2, 20}};
  for (auto m : {RelabelMethod::exact, RelabelMethod::greedy})
    EXPECT_EQ(assign_positions(3, {0, 1, 2}, {0, 1, 2}, w, m), (std::vector<int>{2, 0, 1}));
}

TEST(Relabel, TiesAreDeterministicAndKeepTheTarget) {
  // No overlap at all: the target's own order comes back.
  for (auto m : {RelabelMethod::exact, RelabelMethod::greedy})
    EXPECT_EQ(assign_positions(3, {0, 1, 2}, {2, 0, 1}, {}, m), (std::vector<int>{2, 0, 1}));
  // Two equal choices for position 0, neither its target rank: the lower rank, whatever the input
  // order; position 1 keeps its target rank.
  std::vector<RelabelOverlap> w{{0, 3, 5}, {0, 2, 5}};
  for (auto m : {RelabelMethod::exact, RelabelMethod::greedy}) {
    EXPECT_EQ(assign_positions(2, {0, 1, 2, 3}, {0, 1}, w, m), (std::vector<int>{2, 1}));
    std::reverse(w.begin(), w.end());
    EXPECT_EQ(assign_positions(2, {0, 1, 2, 3}, {0, 1}, w, m), (std::vector<int>{2, 1}));
    EXPECT_EQ(assign_positions(2, {3, 2, 1, 0}, {0, 1}, w, m), (std::vector<int>{2, 1}));
  }
  // An equal alternative never displaces the target's rank.
  const std::vector<RelabelOverlap> tie{{0, 0, 7}, {0, 1, 7}, {1, 0, 7}, {1, 1, 7}};
  for (auto m : {RelabelMethod::exact, RelabelMethod::greedy}) {
    EXPECT_EQ(assign_positions(2, {0, 1}, {1, 0}, tie, m), (std::vector<int>{1, 0}));
    EXPECT_EQ(assign_positions(2, {0, 1}, {0, 1}, tie, m), (std::vector<int>{0, 1}));
  }
}

TEST(Relabel, DuplicateEntriesAddUpAndForeignRanksAreIgnored) {
  // (0, 1) appears twice: 6 + 6 beats (0, 0) = 10. Rank 9 is no candidate.
  const std::vector<RelabelOverlap> w{{0, 0, 10}, {0, 1, 6}, {0, 1, 6}, {1, 9, 1000}};
  EXPECT_EQ(assign_positions(2, {0, 1}, {0, 1}, w, RelabelMethod::exact), (std::vector<int>{1, 0}));
  EXPECT_EQ(assign_positions(2, {0, 1}, {0, 1}, w, RelabelMethod::greedy), (std::vector<int>{1, 0}));
}

TEST(Relabel, ExactMatchesBruteForceUpToSeven) {
  std::mt19937_64 rng(2024);
  for (int trial = 0; trial < 400; ++trial) {
    const int positions = 1 + static_cast<int>(rng() % 7);
    const int ranks = positions + static_cast<int>(rng() % std::min(3, 8 - positions));  // rectangular too
    const auto w = random_overlaps(rng, positions, ranks);
    auto candidates = iota_ranks(ranks);
    std::shuffle(candidates.begin(), candidates.end(), rng);
    std::vector<int> preferred(candidates.begin(), candidates.begin() + positions);
    SCOPED_TRACE(::testing::Message() << "trial " << trial << ": " << positions << " positions, " << ranks << " ranks");
    const auto best = brute_force(positions, candidates, w);
    const auto exact = assign_positions(positions, candidates, preferred, w, RelabelMethod::exact);
    expect_injective(exact, candidates, positions);
    EXPECT_EQ(assigned_volume(exact, w), best);
    const auto greedy = assign_positions(positions, candidates, preferred, w, RelabelMethod::greedy);
    expect_injective(greedy, candidates, positions);
    EXPECT_LE(assigned_volume(greedy, w), best);
    EXPECT_GE(assigned_volume(greedy, w), assigned_volume(preferred, w));
    // The answer depends on the matrix, not on the order of its entries.
    auto shuffled = w;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    EXPECT_EQ(assign_positions(positions, candidates, preferred, shuffled, RelabelMethod::exact), exact);
    EXPECT_EQ(assign_positions(positions, candidates, preferred, shuffled, RelabelMethod::greedy), greedy);
  }
}

TEST(Relabel, ExactMatchesSubsetDpUpToFourteen) {
  std::mt19937_64 rng(77);
  for (int trial = 0; trial < 60; ++trial) {
    const int p = 8 + static_cast<int>(rng() % 7);
    const auto w = random_overlaps(rng, p, p);
    const auto ranks = iota_ranks(p);
    const auto exact = assign_positions(p, ranks, ranks, w, RelabelMethod::exact);
    expect_injective(exact, ranks, p);
    EXPECT_EQ(assigned_volume(exact, w), subset_dp(p, w)) << "trial " << trial << ", P = " << p;
  }
}

TEST(Relabel, RandomUpToSixtyFourHasNoImprovingSwap) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 40; ++trial) {
    const int p = 15 + static_cast<int>(rng() % 50);
    const auto w = random_overlaps(rng, p, p);
    auto preferred = iota_ranks(p);
    std::shuffle(preferred.begin(), preferred.end(), rng);
    const auto ranks = iota_ranks(p);
    const auto exact = assign_positions(p, ranks, preferred, w, RelabelMethod::exact);
    const auto greedy = assign_positions(p, ranks, preferred, w, RelabelMethod::greedy);
    expect_injective(exact, ranks, p);
    expect_injective(greedy, ranks, p);
    const index_t e = assigned_volume(exact, w);
    EXPECT_GE(e, assigned_volume(greedy, w));
    EXPECT_GE(assigned_volume(greedy, w), assigned_volume(preferred, w));
    EXPECT_EQ(assign_positions(p, ranks, preferred, w), exact) << "automatic is exact at this size";
    // An optimum admits no exchange of two positions' ranks that keeps more.
    for (int a = 0; a < p; ++a)
      for (int b = a + 1; b < p; ++b) {
        auto swapped = exact;
        std::swap(swapped[static_cast<std::size_t>(a)], swapped[static_cast<std::size_t>(b)]);
        ASSERT_LE(assigned_volume(swapped, w), e) << "trial " << trial << ": swap " << a << ", " << b;
      }
  }
}

TEST(Relabel, ArgumentsAreChecked) {
  const std::vector<RelabelOverlap> none;
  EXPECT_THROW((void)assign_positions(0, {0}, {}, none), Error);
  EXPECT_THROW((void)assign_positions(3, {0, 1}, {0, 1, 2}, none), Error);     // too few candidates
  EXPECT_THROW((void)assign_positions(2, {0, 0, 1}, {0, 1}, none), Error);     // repeated
  EXPECT_THROW((void)assign_positions(2, {-1, 1}, {1, 1}, none), Error);       // negative
  EXPECT_THROW((void)assign_positions(2, {0, 1}, {0}, none), Error);           // preferred size
  EXPECT_THROW((void)assign_positions(2, {0, 1}, {0, 5}, none), Error);        // not a candidate
  EXPECT_THROW((void)assign_positions(2, {0, 1}, {0, 1}, {{2, 0, 1}}), Error);  // position
  EXPECT_THROW((void)assign_positions(2, {0, 1}, {0, 1}, {{0, 0, -1}}), Error);  // volume
  EXPECT_THROW((void)assign_positions(2, {0, 1}, {0, 1}, none, static_cast<RelabelMethod>(9)), Error);
  try {
    (void)assign_positions(3, {0, 1}, {0, 1, 2}, none);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
  }
}

// --- distributions ------------------------------------------------------------------------------

/// Per (to-position, from-rank), the number of points, counted point by point.
template <std::size_t N>
std::map<std::pair<int, int>, index_t> count_points(const Distribution<N>& from, const Distribution<N>& to) {
  std::map<std::pair<int, int>, index_t> out;
  for_each_point(from.domain(), [&](const Point<N>& p) {
    ++out[{*to.grid().logical_of(to.owner(p)), from.owner(p)}];
  });
  return out;
}

template <std::size_t N>
index_t points_staying(const Distribution<N>& from, const Distribution<N>& to) {
  index_t n = 0;
  for_each_point(from.domain(), [&](const Point<N>& p) { n += from.owner(p) == to.owner(p) ? 1 : 0; });
  return n;
}

/// Over every permutation of `to`'s active ranks, the most points that stay.
template <std::size_t N>
index_t best_permutation(const Distribution<N>& from, const Distribution<N>& to) {
  auto ranks = to.grid().active_ranks();
  std::sort(ranks.begin(), ranks.end());
  index_t best = -1;
  do {
    const auto g = ProcGrid<N>::from_ranks(to.comm_size(), to.grid().shape(), ranks);
    best = std::max(best, points_staying(from, to.with_grid(g)));
  } while (std::next_permutation(ranks.begin(), ranks.end()));
  return best;
}

template <std::size_t N>
void random_pairs(std::uint64_t seed, int trials) {
  std::mt19937_64 rng(seed);
  int gained = 0;
  for (int trial = 0; trial < trials; ++trial) {
    const int comm_size = 1 + static_cast<int>(rng() % 6);
    const auto box = random_domain<N>(rng, 9);
    const auto from = any_distribution<N>(rng, box, comm_size, false);
    const auto to = random_distribution<N>(rng, box, comm_size, false);
    SCOPED_TRACE(::testing::Message() << "trial " << trial << ": " << from << " -> " << to);
    const auto points = count_points(from, to);
    std::map<std::pair<int, int>, index_t> matrix;
    for (const auto& o : overlap_matrix(from, to)) {
      EXPECT_GT(o.volume, 0);
      matrix[{o.position, o.rank}] = o.volume;
    }
    EXPECT_EQ(matrix, points);
    const auto change = ownership_change(from, to);
    EXPECT_EQ(change.staying, points_staying(from, to));
    EXPECT_EQ(change.staying + change.moving, volume(box));
    EXPECT_EQ(change.bytes_moving(8), static_cast<std::uint64_t>(change.moving) * 8);
    const auto relabeled = relabel_for_locality(from, to);
    EXPECT_EQ(relabeled.domain(), to.domain());
    EXPECT_EQ(relabeled.grid().shape(), to.grid().shape());
    auto a = relabeled.grid().active_ranks(), b = to.grid().active_ranks();
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    EXPECT_EQ(a, b) << "active_ranks scope keeps the set of ranks";
    const auto after = ownership_change(from, relabeled);
    EXPECT_LE(after.moving, change.moving);
    gained += after.moving < change.moving ? 1 : 0;
    EXPECT_EQ(after.staying, points_staying(from, relabeled));
    if (to.grid().size() <= 5) {
      EXPECT_EQ(after.staying, best_permutation(from, to));
    }
    // Each position keeps its indices: the owner changes by the grid's relabeling only.
    for_each_point(box, [&](const Point<N>& p) {
      ASSERT_EQ(relabeled.owner_position(p), to.owner_position(p));
      ASSERT_EQ(relabeled.local_offset(p), to.local_offset(p));
    });
    const auto greedy = relabel_for_locality(from, to, {RelabelScope::active_ranks, RelabelMethod::greedy});
    EXPECT_LE(ownership_change(from, greedy).moving, change.moving);
    const auto any = relabel_for_locality(from, to, {RelabelScope::any_rank, RelabelMethod::exact});
    EXPECT_LE(ownership_change(from, any).moving, after.moving);
    // Relabeling onto itself changes nothing.
    if (!from.is_user_defined()) {
      EXPECT_TRUE(relabel_for_locality(from, from) == from);
      EXPECT_TRUE(relabel_for_locality(from, from, {RelabelScope::any_rank, RelabelMethod::greedy}) == from);
      EXPECT_EQ(ownership_change(from, from).moving, 0);
    }
    EXPECT_TRUE(relabel_for_locality(to, to) == to);
  }
  EXPECT_GT(gained, trials / 10) << "the random pairs hardly exercise relabeling";
}

TEST(Relabel, DistributionsOneD) { random_pairs<1>(11, 150); }
TEST(Relabel, DistributionsTwoD) { random_pairs<2>(12, 150); }
TEST(Relabel, DistributionsThreeD) { random_pairs<3>(13, 80); }

Box<2> square(index_t n) { return Box<2>({0, 0}, {n, n}); }

TEST(Relabel, TwoActiveRanksBackToFour) {
  // Block rows over ranks {0, 1} of 4, then over all 4: as given, rank 1 keeps none of its rows.
  const auto from = Distribution<2>(square(16), ProcGrid<2>::from_ranks(4, {2, 1}, {0, 1}), {block(), block()});
  const auto to = Distribution<2>(square(16), ProcGrid<2>::with_shape(4, {4, 1}), {block(), block()});
  EXPECT_EQ(ownership_change(from, to), (OwnershipChange{64, 192}));
  const auto relabeled = relabel_for_locality(from, to);
  EXPECT_EQ(ownership_change(from, relabeled), (OwnershipChange{128, 128}));
  EXPECT_EQ(relabeled.grid().active_ranks(), (std::vector<int>{0, 2, 1, 3}));
}

TEST(Relabel, ColumnMajorTargetBecomesTheSource) {
  const auto from = Distribution<2>(square(8), ProcGrid<2>::with_shape(4, {2, 2}), {block(), block()});
  const auto to = Distribution<2>(square(8), ProcGrid<2>::from_ranks(4, {2, 2}, {0, 2, 1, 3}), {block(), block()});
  EXPECT_EQ(ownership_change(from, to).moving, 32);
  const auto relabeled = relabel_for_locality(from, to);
  EXPECT_TRUE(relabeled == from);
  EXPECT_EQ(ownership_change(from, relabeled).moving, 0);
}

TEST(Relabel, AnyRankChoosesWhichRanksStayActive) {
  // Four row blocks onto two: with the target's ranks {0, 1}, rank 1 keeps nothing; with any rank,
  // the second half goes to rank 2, which holds half of it already.
  const auto from = Distribution<2>(square(16), ProcGrid<2>::with_shape(4, {4, 1}), {block(), block()});
  const auto to = Distribution<2>(square(16), ProcGrid<2>::from_ranks(4, {2, 1}, {0, 1}), {block(), block()});
  EXPECT_EQ(ownership_change(from, relabel_for_locality(from, to)).staying, 64);
  const auto any = relabel_for_locality(from, to, {RelabelScope::any_rank});
  EXPECT_EQ(any.grid().active_ranks(), (std::vector<int>{0, 2}));
  EXPECT_EQ(ownership_change(from, any), (OwnershipChange{128, 128}));
}

TEST(Relabel, LargeGridsUseTheGreedyMatching) {
  // 2000 ranks: above relabel_exact_limit; a cyclic shift of the ranks is undone.
  const int p = 2000;
  std::vector<int> shifted(static_cast<std::size_t>(p));
  for (int l = 0; l < p; ++l) shifted[static_cast<std::size_t>(l)] = (l + 7) % p;
  const Box<1> box({0}, {4 * p});
  const auto from = Distribution<1>(box, ProcGrid<1>::with_shape(p, {p}), {block()});
  const auto to = Distribution<1>(box, ProcGrid<1>::from_ranks(p, {p}, shifted), {block()});
  EXPECT_EQ(ownership_change(from, to).staying, 0);
  EXPECT_TRUE(relabel_for_locality(from, to) == from);
}

TEST(Relabel, BadPairsThrow) {
  const auto grid = ProcGrid<2>::with_shape(4, {2, 2});
  const auto a = Distribution<2>(square(8), grid, {block(), block()});
  const auto other_box = Distribution<2>(square(9), grid, {block(), block()});
  const auto other_size = Distribution<2>(square(8), ProcGrid<2>::with_shape(6, {3, 2}), {block(), block()});
  const auto user =
      Distribution<2>::user(std::make_shared<tessera_examples::MortonDistribution<2>>(square(8), 4));
  for (const auto* bad : {&other_box, &other_size}) {
    EXPECT_THROW((void)relabel_for_locality(a, *bad), Error);
    EXPECT_THROW((void)ownership_change(a, *bad), Error);
    EXPECT_THROW((void)overlap_matrix(a, *bad), Error);
  }
  try {
    (void)relabel_for_locality(a, other_box);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("another domain"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)relabel_for_locality(a, user), Error);
  EXPECT_NO_THROW((void)relabel_for_locality(user, a));
  EXPECT_NO_THROW((void)ownership_change(a, user));
  EXPECT_THROW((void)relabel_for_locality(a, a, {static_cast<RelabelScope>(5)}), Error);
  EXPECT_THROW((void)a.with_grid(ProcGrid<2>::with_shape(4, {4, 1})), Error);
  EXPECT_THROW((void)user.with_grid(grid), Error);
}


// --- box sets: an owner's boxes are one position ------------------------------------------------

/// The owner of `p` under `d`, or -1 where a box set has a hole.
template <std::size_t N>
int relabel_owner_or_hole(const Distribution<N>& d, const Point<N>& p) {
  if (const BoxSet<N>* set = d.box_set()) {
    const auto i = set->find(p);
    return i ? set->owner(*i) : -1;
  }
  return d.owner(p);
}

/// Indices of `to`'s boxes whose owner under `to` is their owner under `from`.
template <std::size_t N>
index_t box_points_staying(const Distribution<N>& from, const BoxSet<N>& to) {
  index_t n = 0;
  for (std::size_t i = 0; i < to.size(); ++i)
    for_each_point(to.box(i), [&](const Point<N>& p) { n += relabel_owner_or_hole(from, p) == to.owner(i) ? 1 : 0; });
  return n;
}

/// Over every permutation of the ranks that own boxes in `to`, the most indices that stay.
template <std::size_t N>
index_t best_box_permutation(const Distribution<N>& from, const BoxSet<N>& to) {
  std::vector<int> labels;
  for (int r = 0; r < to.comm_size(); ++r)
    if (!to.boxes_of(r).empty()) labels.push_back(r);
  std::vector<int> ranks = labels;
  index_t best = -1;
  do {
    std::vector<int> owners(to.size());
    for (std::size_t i = 0; i < to.size(); ++i) {
      const auto at = std::lower_bound(labels.begin(), labels.end(), to.owner(i)) - labels.begin();
      owners[i] = ranks[static_cast<std::size_t>(at)];
    }
    best = std::max(best, box_points_staying(from, BoxSet<N>(to.domain(), to.boxes(), owners, to.comm_size())));
  } while (std::next_permutation(ranks.begin(), ranks.end()));
  return best;
}

template <std::size_t N>
void random_box_set_pairs(std::uint64_t seed, int trials) {
  std::mt19937_64 rng(seed);
  int gained = 0;
  for (int trial = 0; trial < trials; ++trial) {
    const int comm_size = 1 + static_cast<int>(rng() % 5);
    const auto box = random_domain<N>(rng, 12);
    const auto from = rng() % 2 == 0 ? any_distribution<N>(rng, box, comm_size, false)
                                     : Distribution<N>::from_box_set(random_box_set<N>(rng, box, 6, 12, comm_size));
    const auto to = random_box_set<N>(rng, box, 6, 12, comm_size);
    SCOPED_TRACE(::testing::Message() << "trial " << trial << ": " << from << " -> " << to);
    const index_t before = box_points_staying(from, to);
    const BoxSet<N> relabeled = relabel_for_locality(from, to);
    EXPECT_EQ(relabeled.domain(), to.domain());
    EXPECT_EQ(relabeled.boxes(), to.boxes());
    EXPECT_EQ(relabeled.comm_size(), to.comm_size());
    // One rank for all the boxes of an owner, a different rank for each owner, the same owners.
    std::map<int, int> sigma;
    for (std::size_t i = 0; i < to.size(); ++i) {
      const auto [it, fresh] = sigma.try_emplace(to.owner(i), relabeled.owner(i));
      EXPECT_EQ(it->second, relabeled.owner(i)) << "the boxes of rank " << to.owner(i) << " were split";
    }
    std::vector<int> old_owners, new_owners;
    for (const auto& [o, n] : sigma) old_owners.push_back(o), new_owners.push_back(n);
    std::sort(new_owners.begin(), new_owners.end());
    EXPECT_EQ(new_owners, old_owners) << "active_ranks scope keeps the ranks that own boxes";
    const index_t after = box_points_staying(from, relabeled);
    EXPECT_GE(after, before);
    gained += after > before ? 1 : 0;
    if (sigma.size() <= 5) {
      EXPECT_EQ(after, best_box_permutation(from, to));
    }
    const BoxSet<N> any = relabel_for_locality(from, to, {RelabelScope::any_rank, RelabelMethod::exact});
    EXPECT_GE(box_points_staying(from, any), after);
    const BoxSet<N> greedy = relabel_for_locality(from, to, {RelabelScope::active_ranks, RelabelMethod::greedy});
    EXPECT_GE(box_points_staying(from, greedy), before);
    // The Distribution overload agrees, and a box set relabeled onto itself is unchanged.
    const auto as_dist = relabel_for_locality(from, Distribution<N>::from_box_set(to));
    ASSERT_NE(as_dist.box_set(), nullptr);
    EXPECT_TRUE(*as_dist.box_set() == relabeled);
    const auto to_dist = Distribution<N>::from_box_set(to);
    EXPECT_TRUE(relabel_for_locality(to_dist, to) == to);
    EXPECT_TRUE(relabel_for_locality(to_dist, to_dist) == to_dist);
  }
  EXPECT_GT(gained, trials / 10) << "the random pairs hardly exercise relabeling";
}

TEST(RelabelBoxSet, RandomPairsOneD) { random_box_set_pairs<1>(21, 120); }
TEST(RelabelBoxSet, RandomPairsTwoD) { random_box_set_pairs<2>(22, 120); }
TEST(RelabelBoxSet, RandomPairsThreeD) { random_box_set_pairs<3>(23, 60); }

TEST(RelabelBoxSet, SwappedHalvesGoBack) {
  // Block rows over ranks 0 and 1; a box set of the same two halves, owners swapped, and a third
  // box-less rank: relabeled, nothing moves.
  const auto from = Distribution<2>(square(8), ProcGrid<2>::from_ranks(3, {2, 1}, {0, 1}), {block(), block()});
  const BoxSet<2> to(square(8), {Box<2>({4, 0}, {8, 8}), Box<2>({0, 0}, {4, 8})}, {0, 1}, 3);
  EXPECT_EQ(box_points_staying(from, to), 0);
  const BoxSet<2> relabeled = relabel_for_locality(from, to);
  EXPECT_EQ(relabeled.owners(), (std::vector<int>{1, 0}));
  EXPECT_EQ(ownership_change(from, Distribution<2>::from_box_set(relabeled)).moving, 0);
  // With any rank, rank 2 (no boxes) is not chosen: it holds nothing.
  EXPECT_EQ(relabel_for_locality(from, to, {RelabelScope::any_rank}).owners(), (std::vector<int>{1, 0}));
}

TEST(RelabelBoxSet, BadPairsThrow) {
  const auto from = Distribution<2>(square(8), ProcGrid<2>::with_shape(2, {2, 1}), {block(), block()});
  const BoxSet<2> other_box(square(9), {Box<2>({0, 0}, {4, 4})}, {0}, 2);
  const BoxSet<2> other_size(square(8), {Box<2>({0, 0}, {4, 4})}, {0}, 3);
  for (const auto* bad : {&other_box, &other_size}) {
    try {
      (void)relabel_for_locality(from, *bad);
      FAIL() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    }
    EXPECT_THROW((void)relabel_for_locality(from, Distribution<2>::from_box_set(*bad)), Error);
  }
  const BoxSet<2> fine(square(8), {Box<2>({0, 0}, {4, 4})}, {1}, 2);
  EXPECT_THROW((void)relabel_for_locality(from, fine, {static_cast<RelabelScope>(5)}), Error);
}

}  // namespace
}  // namespace tessera
