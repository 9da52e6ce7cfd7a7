#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <initializer_list>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tessera/layout/grid_shape.hpp"
#include "tessera/layout/proc_grid.hpp"

namespace tessera {
namespace {

static_assert(std::regular<ProcGrid<2>>);
static_assert(grid_shape_cost<2>({2, 2}, {100, 100}) == GridShapeCost{0, 100});
static_assert(grid_shape_cost<2>({4, 1}, {3, 100}) == GridShapeCost{1, 101});

// Anything with .size() stands for a communicator; anything else is not one.
struct FakeComm {
  [[nodiscard]] int size() const noexcept { return 6; }
};
struct NotAComm {};
template <class C>
concept accepted_as_comm = requires(const C& c) { ProcGrid<2>::automatic(c, Point<2>{}); };
static_assert(accepted_as_comm<FakeComm>);
static_assert(!accepted_as_comm<NotAComm>);

template <std::size_t N>
std::string text(const ProcGrid<N>& g) {
  std::ostringstream out;
  out << g;
  return out.str();
}

/// Runs `f`, expects `Error(code)` whose message contains every one of `words`.
template <class F>
void expect_error(F&& f, ErrorCode code, std::initializer_list<std::string_view> words) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one mentioning " << *words.begin();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    const std::string message = e.what();
    for (std::string_view w : words) EXPECT_NE(message.find(w), std::string::npos) << message << "\nlacks: " << w;
  }
}

// ---- the shape chooser, against an independent brute force --------------------------------------

/// The cost written out naively: O(N^2), overflow-free for the small extents used here.
template <std::size_t N>
GridShapeCost reference_cost(const Point<N>& g, const Point<N>& extents) {
  index_t positions = 1, busy = 1, surface = 0;
  for (std::size_t d = 0; d < N; ++d) {
    positions *= g[d];
    busy *= std::min(g[d], extents[d]);
  }
  for (std::size_t d = 0; d < N; ++d) {
    index_t face = 1;
    for (std::size_t e = 0; e < N; ++e)
      if (e != d) face *= (extents[e] + g[e] - 1) / g[e];
    surface += face;
  }
  return {positions - busy, surface};
}

/// Every N-tuple of positive factors with product `remaining` honouring `fixed`, by trial division.
template <std::size_t N>
void all_factorisations(index_t remaining, std::size_t d, Point<N>& g, const Point<N>& fixed,
                        std::vector<Point<N>>& out) {
  if (d == N) {
    if (remaining == 1) out.push_back(g);
    return;
  }
  for (index_t f = 1; f <= remaining; ++f) {
    if (remaining % f != 0 || (fixed[d] > 0 && f != fixed[d])) continue;
    g[d] = f;
    all_factorisations(remaining / f, d + 1, g, fixed, out);
  }
}

/// The shape the contract asks for: minimum cost, then non-increasing free extents, then the
/// lexicographically smallest.
template <std::size_t N>
Point<N> reference_shape(int ranks, const Point<N>& extents, const Point<N>& fixed, GridShapeCost& best_cost) {
  std::vector<Point<N>> all;
  Point<N> g{};
  all_factorisations<N>(ranks, 0, g, fixed, all);
  EXPECT_FALSE(all.empty());
  best_cost = reference_cost(all.front(), extents);
  for (const auto& s : all) best_cost = std::min(best_cost, reference_cost(s, extents));
  std::vector<Point<N>> ties;
  for (const auto& s : all)
    if (reference_cost(s, extents) == best_cost) ties.push_back(s);
  const auto sorted = [&](const Point<N>& s) {
    std::vector<index_t> free;
    for (std::size_t d = 0; d < N; ++d)
      if (fixed[d] == 0) free.push_back(s[d]);
    return std::is_sorted(free.rbegin(), free.rend());
  };
  std::vector<Point<N>> sorted_ties;
  std::copy_if(ties.begin(), ties.end(), std::back_inserter(sorted_ties), sorted);
  const auto& pool = sorted_ties.empty() ? ties : sorted_ties;
  return *std::min_element(pool.begin(), pool.end());
}

template <std::size_t N>
void check_against_brute_force(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int ranks = 1; ranks <= 64; ++ranks) {
    for (int trial = 0; trial < 12; ++trial) {
      // Extents from three regimes: large (halo decides), small (idle ranks decide), some zero.
      Point<N> extents;
      const index_t range = trial % 3 == 0 ? 2000 : trial % 3 == 1 ? 9 : 40;
      for (std::size_t d = 0; d < N; ++d) extents[d] = std::uniform_int_distribution<index_t>(0, range)(rng);
      if (trial % 4 != 3)
        for (auto& e : extents.coord) e = std::max<index_t>(e, 1);
      // Pin about a third of the dimensions to divisors of what is left, keeping one free.
      Point<N> fixed{};
      index_t left = ranks;
      if (trial >= 6) {
        for (std::size_t d = 0; d < N; ++d) {
          if (rng() % 3 != 0) continue;
          std::vector<index_t> divisors;
          for (index_t f = 1; f <= left; ++f)
            if (left % f == 0) divisors.push_back(f);
          fixed[d] = divisors[rng() % divisors.size()];
          left /= fixed[d];
        }
        if (std::all_of(fixed.coord.begin(), fixed.coord.end(), [](index_t f) { return f > 0; })) {
          left *= fixed[N - 1];
          fixed[N - 1] = 0;
        }
      }
      SCOPED_TRACE(::testing::Message() << "N=" << N << " ranks=" << ranks << " extents=" << extents
                                        << " fixed=" << fixed);
      GridShapeCost best{};
      const Point<N> expected = reference_shape<N>(ranks, extents, fixed, best);
      const Point<N> chosen = choose_grid_shape<N>(ranks, extents, fixed);
      index_t product = 1;
      for (std::size_t d = 0; d < N; ++d) {
        product *= chosen[d];
        if (fixed[d] > 0) {
          EXPECT_EQ(chosen[d], fixed[d]);
        }
      }
      EXPECT_EQ(product, ranks);
      EXPECT_EQ(grid_shape_cost(chosen, extents), best);
      EXPECT_EQ(reference_cost(chosen, extents), best);
      EXPECT_EQ(chosen, expected);
      const auto grid = ProcGrid<N>::automatic(ranks, extents, fixed);
      EXPECT_EQ(grid.shape(), chosen);
      EXPECT_TRUE(grid.is_identity());
    }
  }
}

TEST(GridShape, MatchesBruteForce1D) { check_against_brute_force<1>(1); }
TEST(GridShape, MatchesBruteForce2D) { check_against_brute_force<2>(2); }
TEST(GridShape, MatchesBruteForce3D) { check_against_brute_force<3>(3); }
TEST(GridShape, MatchesBruteForce4D) { check_against_brute_force<4>(4); }

TEST(GridShape, KnownCases) {
  EXPECT_EQ(ProcGrid<2>::automatic(4, {100, 100}).shape(), (Point<2>{2, 2}));
  EXPECT_EQ(ProcGrid<2>::automatic(6, {1000, 10}).shape(), (Point<2>{6, 1}));
  EXPECT_EQ(ProcGrid<2>::automatic(6, {10, 1000}).shape(), (Point<2>{1, 6}));
  EXPECT_EQ(ProcGrid<3>::automatic(12, {120, 120, 120}, {0, 0, 1}).shape(), (Point<3>{4, 3, 1}));
  EXPECT_EQ(ProcGrid<3>::automatic(12, {120, 120, 120}, {0, 2, 0}).shape(), (Point<3>{3, 2, 2}));
  EXPECT_EQ(ProcGrid<3>::automatic(12, {100, 100, 100}).shape(), (Point<3>{3, 2, 2}));  // MPI_Dims_create(12, 3)
  EXPECT_EQ(ProcGrid<3>::automatic(24, {0, 0, 0}).shape(), (Point<3>{4, 3, 2}));        // MPI_Dims_create(24, 3)
  EXPECT_EQ(ProcGrid<4>::automatic(16, {0, 0, 0, 0}).shape(), (Point<4>{2, 2, 2, 2}));
  // A prime count has only the trivial factorisations; equal halos go to non-increasing extents.
  EXPECT_EQ(ProcGrid<2>::automatic(7, {100, 100}).shape(), (Point<2>{7, 1}));
  EXPECT_EQ(ProcGrid<2>::automatic(7, {100, 1000}).shape(), (Point<2>{1, 7}));
  EXPECT_EQ(ProcGrid<3>::automatic(7, {3, 50, 50}).shape(), (Point<3>{1, 1, 7}));
  // Square data, equal halos: MPI_Dims_create's (4, 2).
  EXPECT_EQ(ProcGrid<2>::automatic(8, {100, 100}).shape(), (Point<2>{4, 2}));
  // Idle ranks cost more than halo: never 8 along an extent of 2.
  EXPECT_EQ(ProcGrid<2>::automatic(8, {2, 1000}).shape(), (Point<2>{1, 8}));
  // Fewer indices than ranks: as few idle ranks as possible, then the most even, as MPI_Dims_create.
  EXPECT_EQ(ProcGrid<2>::automatic(64, {4, 4}).shape(), (Point<2>{8, 8}));
  // No data at all: every shape idles every rank; the tie rule alone decides.
  EXPECT_EQ(ProcGrid<3>::automatic(8, {0, 0, 0}).shape(), (Point<3>{2, 2, 2}));
  EXPECT_EQ(ProcGrid<1>::automatic(5, {3}).shape(), (Point<1>{5}));
  EXPECT_EQ(ProcGrid<2>::automatic(1, {7, 7}).shape(), (Point<2>{1, 1}));
  EXPECT_EQ(ProcGrid<2>::automatic(6, {100, 100}, {3, 0}).shape(), (Point<2>{3, 2}));
  EXPECT_EQ(ProcGrid<2>::automatic(6, {100, 100}, {1, 6}).shape(), (Point<2>{1, 6}));  // all pinned
  // The communicator overload takes only the size.
  EXPECT_EQ(ProcGrid<2>::automatic(FakeComm{}, {200, 300}), ProcGrid<2>::with_shape(6, {2, 3}));
}

TEST(GridShape, HugeExtentsSaturateInsteadOfOverflowing) {
  const index_t huge = index_t{1} << 62;
  const auto cost = grid_shape_cost<3>({1, 1, 1}, {huge, huge, huge});
  EXPECT_EQ(cost.halo_surface, std::numeric_limits<index_t>::max());
  EXPECT_EQ(cost.idle_positions, 0);
  // Past 64 bits the costs tie and the tie rule decides; the search still returns a valid shape.
  const auto shape = ProcGrid<3>::automatic(8, {huge, huge, huge}).shape();
  EXPECT_EQ(shape[0] * shape[1] * shape[2], 8);
  // Extents whose volume fits in 64 bits do not saturate.
  EXPECT_EQ(ProcGrid<3>::automatic(8, {index_t{1} << 21, index_t{1} << 21, index_t{1} << 21}).shape(),
            (Point<3>{2, 2, 2}));
  EXPECT_EQ(grid_shape_cost<2>({2, 1}, {0, huge}).halo_surface, huge);  // 0 * saturated stays exact
}

TEST(GridShape, AMillionRanksIsQuick) {
  const int million = 1 << 20;
  const auto start = std::chrono::steady_clock::now();
  const auto g2 = ProcGrid<2>::automatic(million, {1 << 15, 1 << 15});
  const auto g3 = ProcGrid<3>::automatic(million, {1024, 1024, 1024});
  const auto g3_flat = ProcGrid<3>::automatic(million, {1 << 14, 1 << 14, 4});
  const auto g4 = ProcGrid<4>::automatic(720720, {5000, 5000, 5000, 5000});  // 240 divisors
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(g2.shape(), (Point<2>{1024, 1024}));
  EXPECT_EQ(g3.shape(), (Point<3>{128, 128, 64}));
  EXPECT_EQ(g3_flat.shape(), (Point<3>{1024, 1024, 1}));  // cutting the thin dimension only adds halo
  index_t product = 1;
  for (index_t e : g4.shape().coord) product *= e;
  EXPECT_EQ(product, 720720);
  EXPECT_LT(seconds, 5.0);  // generous: the search visits a few thousand shapes (~ms)
  // Identity grids hold no tables, whatever their size.
  EXPECT_TRUE(g2.is_identity());
  EXPECT_EQ(g2.table_bytes(), 0u);
  EXPECT_EQ(g3.table_bytes(), 0u);
  EXPECT_EQ(g2.rank_at({512, 3}), 512 * 1024 + 3);
  EXPECT_EQ(g2.position_of(million - 1), (Point<2>{1023, 1023}));
  EXPECT_EQ(g3.logical_of(million - 1), million - 1);
  EXPECT_EQ(g3.rank_at_logical(1000), 1000);
  const auto big = ProcGrid<3>::with_shape(million, {64, 128, 128});
  EXPECT_EQ(big.table_bytes(), 0u);
  EXPECT_EQ(big.position_of(128 * 128 + 1), (Point<3>{1, 0, 1}));
}

// ---- lookups are mutually inverse -------------------------------------------------------------

/// Checks rank_at, rank_at_logical, position_of, logical_of, is_active and active_ranks against each
/// other over every rank of the communicator and every position (enumerated by plain counting).
template <std::size_t N>
void expect_consistent(const ProcGrid<N>& g) {
  int active = 0;
  for (int r = 0; r < g.comm_size(); ++r) {
    const auto position = g.position_of(r);
    const auto logical = g.logical_of(r);
    ASSERT_EQ(position.has_value(), logical.has_value()) << "rank " << r;
    ASSERT_EQ(g.is_active(r), position.has_value()) << "rank " << r;
    if (!position) continue;
    ++active;
    EXPECT_EQ(g.rank_at(*position), r);
    EXPECT_EQ(g.rank_at_logical(*logical), r);
    EXPECT_EQ(g.logical_at(*position), *logical);
    EXPECT_EQ(g.position_at_logical(*logical), *position);
  }
  EXPECT_EQ(active, g.size());
  const std::vector<int> ranks = g.active_ranks();
  ASSERT_EQ(ranks.size(), static_cast<std::size_t>(g.size()));
  Point<N> p{};
  for (int logical = 0; logical < g.size(); ++logical) {
    EXPECT_EQ(g.logical_at(p), logical);
    EXPECT_EQ(g.rank_at(p), ranks[static_cast<std::size_t>(logical)]);
    EXPECT_EQ(g.rank_at_logical(logical), ranks[static_cast<std::size_t>(logical)]);
    EXPECT_EQ(g.position_of(g.rank_at(p)), p);
    for (std::size_t d = N; d-- > 0;) {  // row-major: the last dimension varies fastest
      if (++p[d] < g.extent(d)) break;
      p[d] = 0;
    }
  }
}

TEST(ProcGrid, IdentityGrid) {
  const auto g = ProcGrid<2>::with_shape(6, {2, 3});
  EXPECT_TRUE(g.is_identity());
  EXPECT_EQ(g.size(), 6);
  EXPECT_EQ(g.comm_size(), 6);
  EXPECT_EQ(g.extent(0), 2);
  EXPECT_EQ(g.extent(1), 3);
  EXPECT_EQ(g.rank_at({1, 0}), 3);
  EXPECT_EQ(g.rank_at({0, 2}), 2);
  EXPECT_EQ(g.position_of(4), (Point<2>{1, 1}));
  EXPECT_EQ(g.active_ranks(), (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(g.table_bytes(), 0u);
  expect_consistent(g);
  expect_consistent(ProcGrid<3>::with_shape(24, {2, 3, 4}));
  expect_consistent(ProcGrid<1>::with_shape(5, {5}));
  expect_consistent(ProcGrid<4>{});
}

TEST(ProcGrid, Permutation) {
  // Column-major placement of 6 ranks on a 2x3 grid (a ZPL indexed-array grid).
  const auto g = ProcGrid<2>::from_ranks(6, {2, 3}, {0, 2, 4, 1, 3, 5});
  EXPECT_FALSE(g.is_identity());
  EXPECT_GT(g.table_bytes(), 0u);
  EXPECT_EQ(g.rank_at({0, 1}), 2);
  EXPECT_EQ(g.rank_at({1, 0}), 1);
  EXPECT_EQ(g.position_of(1), (Point<2>{1, 0}));
  EXPECT_EQ(g.logical_of(1), 3);
  EXPECT_EQ(g.active_ranks(), (std::vector<int>{0, 2, 4, 1, 3, 5}));
  expect_consistent(g);
}

TEST(ProcGrid, SubsetWithSkeletons) {
  // The first six of eight ranks: no table needed, but not the identity (ranks 6 and 7 are skeletons).
  const auto head = ProcGrid<2>::automatic(8, std::vector<int>{0, 1, 2, 3, 4, 5}, {300, 200});
  EXPECT_EQ(head.shape(), (Point<2>{3, 2}));
  EXPECT_FALSE(head.is_identity());
  EXPECT_EQ(head.table_bytes(), 0u);
  EXPECT_EQ(head.size(), 6);
  EXPECT_EQ(head.comm_size(), 8);
  EXPECT_FALSE(head.is_active(6));
  EXPECT_EQ(head.position_of(7), std::nullopt);
  EXPECT_EQ(head.logical_of(7), std::nullopt);
  expect_consistent(head);
  // Any other subset, in any order.
  const auto tail = ProcGrid<2>::automatic(8, std::vector<int>{7, 6, 5, 4, 3, 2}, {300, 200});
  EXPECT_EQ(tail.rank_at({0, 0}), 7);
  EXPECT_FALSE(tail.is_active(0));
  EXPECT_TRUE(tail.is_active(2));
  expect_consistent(tail);
  // All ranks in order through the subset overload is the identity grid.
  const auto all = ProcGrid<2>::automatic(4, std::vector<int>{0, 1, 2, 3}, {100, 100});
  EXPECT_TRUE(all.is_identity());
  EXPECT_EQ(all, ProcGrid<2>::automatic(4, {100, 100}));
  // Pins apply to the active count; a braced list longer than N can only be the ranks.
  const auto pinned = ProcGrid<2>::automatic(8, std::vector<int>{1, 3, 5, 7, 0, 2}, {100, 100}, {0, 3});
  EXPECT_EQ(pinned.shape(), (Point<2>{2, 3}));
  EXPECT_EQ(pinned.rank_at({1, 0}), 7);
  expect_consistent(pinned);
  const auto braced = ProcGrid<2>::automatic(8, {0, 2, 4, 6}, {100, 100});
  EXPECT_EQ(braced, ProcGrid<2>::from_ranks(8, {2, 2}, {0, 2, 4, 6}));
  // A single active rank.
  const auto one = ProcGrid<3>::from_ranks(5, {1, 1, 1}, {3});
  EXPECT_EQ(one.rank_at({0, 0, 0}), 3);
  expect_consistent(one);
}

TEST(ProcGrid, TwoDisjointGridsOverOneCommunicator) {
  // ZPL G4 and G5: even and odd ranks of 8, each a 2x2 grid.
  const auto even = ProcGrid<2>::from_ranks(8, {2, 2}, {0, 2, 4, 6});
  const auto odd = ProcGrid<2>::from_ranks(8, {2, 2}, {1, 3, 5, 7});
  expect_consistent(even);
  expect_consistent(odd);
  for (int r = 0; r < 8; ++r) {
    EXPECT_NE(even.is_active(r), odd.is_active(r)) << "rank " << r;
    const auto& mine = r % 2 == 0 ? even : odd;
    EXPECT_EQ(mine.position_of(r), (Point<2>{(r / 2) / 2, (r / 2) % 2}));
  }
  EXPECT_EQ(even.position_of(3), std::nullopt);
  EXPECT_EQ(odd.rank_at({1, 0}), 5);
  EXPECT_NE(even, odd);
}

TEST(ProcGrid, RandomTablesAreConsistent) {
  std::mt19937_64 rng(42);
  for (int trial = 0; trial < 200; ++trial) {
    const int comm_size = 1 + static_cast<int>(rng() % 40);
    std::vector<int> ranks(static_cast<std::size_t>(comm_size));
    std::iota(ranks.begin(), ranks.end(), 0);
    std::shuffle(ranks.begin(), ranks.end(), rng);
    ranks.resize(1 + rng() % ranks.size());
    const int n = static_cast<int>(ranks.size());
    const auto g2 = ProcGrid<2>::automatic(comm_size, ranks, {50, 70});
    const auto g3 = ProcGrid<3>::from_ranks(comm_size, {1, n, 1}, ranks);
    SCOPED_TRACE(::testing::Message() << text(g2));
    EXPECT_EQ(g2.active_ranks(), ranks);
    EXPECT_EQ(g3.active_ranks(), ranks);
    expect_consistent(g2);
    expect_consistent(g3);
  }
}

// ---- validation -------------------------------------------------------------------------------

TEST(ProcGrid, RejectsBadCommSize) {
  constexpr auto bad = ErrorCode::invalid_argument;
  expect_error([] { (void)ProcGrid<2>::automatic(0, {10, 10}); }, bad, {"automatic", "'comm_size' = 0"});
  expect_error([] { (void)ProcGrid<2>::automatic(-3, std::vector<int>{0}, {10, 10}); }, bad, {"'comm_size' = -3"});
  expect_error([] { (void)ProcGrid<2>::with_shape(0, {1, 1}); }, bad, {"with_shape", "'comm_size' = 0"});
  expect_error([] { (void)ProcGrid<2>::from_ranks(-1, {1, 1}, {0}); }, bad, {"from_ranks", "'comm_size' = -1"});
  expect_error([] { (void)choose_grid_shape<2>(0, {10, 10}); }, bad, {"choose_grid_shape", "'ranks' = 0"});
}

TEST(ProcGrid, RejectsBadShape) {
  constexpr auto bad = ErrorCode::invalid_argument;
  expect_error([] { (void)ProcGrid<2>::with_shape(6, {2, 0}); }, bad, {"'shape' = (2, 0)", "dimension 1"});
  expect_error([] { (void)ProcGrid<2>::from_ranks(6, {-1, 3}, {0, 1, 2}); }, bad, {"'shape' = (-1, 3)"});
  expect_error([] { (void)ProcGrid<2>::with_shape(8, {2, 3}); }, bad, {"'shape' = (2, 3)", "6 positions", "8"});
  expect_error([] { (void)ProcGrid<3>::with_shape(8, {index_t{1} << 40, index_t{1} << 40, 1 << 20}); }, bad,
               {"'shape'", "more than 2^63"});
}

TEST(ProcGrid, RejectsBadRankTables) {
  constexpr auto bad = ErrorCode::invalid_argument;
  expect_error([] { (void)ProcGrid<2>::from_ranks(8, {2, 2}, {0, 1, 2}); }, bad, {"'ranks.size()' = 3", "4"});
  expect_error([] { (void)ProcGrid<2>::from_ranks(8, {2, 2}, {0, 1, 8, 3}); }, bad,
               {"'ranks[2]' = 8", "position (1, 0)", "[0, 8)"});
  expect_error([] { (void)ProcGrid<2>::from_ranks(8, {2, 2}, {0, -1, 2, 3}); }, bad,
               {"'ranks[1]' = -1", "position (0, 1)"});
  expect_error([] { (void)ProcGrid<2>::from_ranks(8, {2, 2}, {0, 5, 2, 5}); }, bad,
               {"'ranks[3]' = 5", "ranks[1]", "rank 5", "position (0, 1)", "position (1, 1)"});
  expect_error([] { (void)ProcGrid<2>::automatic(8, std::vector<int>{}, {10, 10}); }, bad,
               {"'active_ranks'", "at least one"});
  expect_error([] { (void)ProcGrid<2>::automatic(8, std::vector<int>{0, 9}, {10, 10}); }, bad,
               {"'active_ranks[1]' = 9", "[0, 8)"});
  expect_error([] { (void)ProcGrid<2>::automatic(8, std::vector<int>{4, 1, 4}, {10, 10}); }, bad,
               {"'active_ranks[2]' = 4", "rank 4", "logical position 0", "logical position 2"});
}

TEST(ProcGrid, RejectsBadExtentsAndPins) {
  constexpr auto bad = ErrorCode::invalid_argument;
  expect_error([] { (void)ProcGrid<2>::automatic(8, {10, 10}, {3, 0}); }, bad,
               {"'fixed' = (3, 0)", "does not divide", "8"});
  expect_error([] { (void)ProcGrid<2>::automatic(8, {10, 10}, {16, 0}); }, bad, {"'fixed' = (16, 0)", "more than 8"});
  expect_error([] { (void)ProcGrid<2>::automatic(8, {10, 10}, {-1, 0}); }, bad, {"'fixed' = (-1, 0)", "negative"});
  expect_error([] { (void)ProcGrid<2>::automatic(8, {10, 10}, {2, 2}); }, bad, {"'fixed' = (2, 2)", "every dimension"});
  expect_error([] { (void)ProcGrid<2>::automatic(8, std::vector<int>{0, 1, 2}, {10, 10}, {2, 0}); }, bad,
               {"'fixed' = (2, 0)", "3 ranks"});
  expect_error([] { (void)ProcGrid<2>::automatic(8, {-1, 10}); }, bad, {"'global_extents' = (-1, 10)"});
}

TEST(ProcGrid, LookupsOutsideTheGridOrCommunicatorThrow) {
  constexpr auto out = ErrorCode::out_of_range;
  const auto g = ProcGrid<2>::from_ranks(8, {2, 3}, {0, 2, 4, 6, 1, 3});
  const auto id = ProcGrid<2>::with_shape(6, {2, 3});
  for (const auto* grid : {&g, &id}) {
    expect_error([&] { (void)grid->rank_at({2, 0}); }, out, {"rank_at", "'position' = (2, 0)"});
    expect_error([&] { (void)grid->rank_at({0, -1}); }, out, {"'position' = (0, -1)"});
    expect_error([&] { (void)grid->rank_at_logical(6); }, out, {"rank_at_logical", "'logical' = 6"});
    expect_error([&] { (void)grid->rank_at_logical(-1); }, out, {"'logical' = -1"});
    expect_error([&] { (void)grid->position_at_logical(6); }, out, {"'logical' = 6"});
    expect_error([&] { (void)grid->logical_at({0, 3}); }, out, {"'position' = (0, 3)"});
    expect_error([&] { (void)grid->position_of(-1); }, out, {"position_of", "'rank' = -1"});
    expect_error([&] { (void)grid->logical_of(grid->comm_size()); }, out, {"logical_of", "'rank'"});
    expect_error([&] { (void)grid->is_active(99); }, out, {"is_active", "'rank' = 99"});
  }
}

// ---- equality, hash, printing -----------------------------------------------------------------

TEST(ProcGrid, EqualityAndHash) {
  const auto a = ProcGrid<2>::automatic(6, {200, 300});
  const auto b = ProcGrid<2>::with_shape(6, {2, 3});
  const auto c = ProcGrid<2>::from_ranks(6, {2, 3}, {0, 1, 2, 3, 4, 5});  // stored without a table
  EXPECT_EQ(a, b);
  EXPECT_EQ(b, c);
  EXPECT_EQ(c.table_bytes(), 0u);
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_EQ(b.hash(), c.hash());
  EXPECT_EQ(hash_value(a), a.hash());
  EXPECT_EQ(std::hash<ProcGrid<2>>{}(a), a.hash());

  const auto permuted = ProcGrid<2>::from_ranks(6, {2, 3}, {1, 0, 2, 3, 4, 5});
  const auto permuted_again = ProcGrid<2>::from_ranks(6, {2, 3}, {1, 0, 2, 3, 4, 5});
  const auto copy = permuted;  // shares the table
  EXPECT_NE(a, permuted);
  EXPECT_NE(a.hash(), permuted.hash());
  EXPECT_EQ(permuted, permuted_again);
  EXPECT_EQ(permuted.hash(), permuted_again.hash());
  EXPECT_EQ(copy, permuted);
  EXPECT_EQ(copy.table_bytes(), permuted.table_bytes());

  const std::vector<ProcGrid<2>> distinct = {
      b,
      ProcGrid<2>::with_shape(6, {3, 2}),                          // other shape
      ProcGrid<2>::from_ranks(8, {2, 3}, {0, 1, 2, 3, 4, 5}),      // same table, larger communicator
      ProcGrid<2>::from_ranks(8, {2, 3}, {0, 1, 2, 3, 4, 6}),      // other subset
      permuted,
      ProcGrid<2>::from_ranks(6, {2, 3}, {0, 1, 2, 3, 5, 4}),
      ProcGrid<2>{},
  };
  std::unordered_set<std::uint64_t> hashes;
  for (std::size_t i = 0; i < distinct.size(); ++i) {
    hashes.insert(distinct[i].hash());
    for (std::size_t j = 0; j < distinct.size(); ++j) EXPECT_EQ(distinct[i] == distinct[j], i == j) << i << " " << j;
  }
  EXPECT_EQ(hashes.size(), distinct.size());
  EXPECT_EQ(ProcGrid<3>{}, ProcGrid<3>::with_shape(1, {1, 1, 1}));
  // Pinned values: the hash keys caches across ranks and runs, so it must not drift between builds.
  EXPECT_EQ(b.hash(), 3587539765216742373ULL);
  EXPECT_EQ(permuted.hash(), 11011171717877131873ULL);
}

TEST(ProcGrid, Prints) {
  EXPECT_EQ(text(ProcGrid<2>::with_shape(6, {2, 3})), "grid 2x3");
  EXPECT_EQ(text(ProcGrid<3>::automatic(12, {120, 120, 120}, {0, 0, 1})), "grid 4x3x1");
  EXPECT_EQ(text(ProcGrid<1>::with_shape(5, {5})), "grid 5");
  EXPECT_EQ(text(ProcGrid<2>::from_ranks(8, {2, 3}, {0, 2, 4, 6, 1, 3})), "grid 2x3 over 8 ranks {0,2,4,6,1,3}");
  EXPECT_EQ(text(ProcGrid<2>::from_ranks(8, {2, 2}, {0, 1, 2, 3})), "grid 2x2 over 8 ranks {0,1,2,3}");
  std::vector<int> reversed(20);
  std::iota(reversed.rbegin(), reversed.rend(), 0);
  EXPECT_EQ(text(ProcGrid<1>::from_ranks(40, {20}, reversed)),
            "grid 20 over 40 ranks {19,18,17,16,15,14,13,12,11,10,9,8,7,6,5,4,...}");
  std::vector<int> sixteen(16);
  std::iota(sixteen.rbegin(), sixteen.rend(), 0);
  EXPECT_EQ(text(ProcGrid<2>::from_ranks(16, {4, 4}, sixteen)),
            "grid 4x4 over 16 ranks {15,14,13,12,11,10,9,8,7,6,5,4,3,2,1,0}");
}

}  // namespace
}  // namespace tessera
