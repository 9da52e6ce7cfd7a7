#include <gtest/gtest.h>

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "random_geometry.hpp"
#include "tessera/geometry.hpp"

namespace tessera {
namespace {

using testing::point_set;
using testing::random_box;
using testing::random_point;

static_assert(std::regular<Section1>);
static_assert(std::regular<Section<3>>);
static_assert(std::is_trivially_copyable_v<Section1>);
static_assert(std::is_trivially_copyable_v<Section<2>>);
static_assert(Section1().empty() && Section<2>().empty(), "default sections are empty");
static_assert(Section1::interval(3, 5) == Section1{3, 2, 7, 1}, "one run: the stride does not matter");
static_assert(Section1{0, 2, 2, 3} == Section1::interval(0, 6), "touching runs are one run");
static_assert(Section1{4, 0, 9, 3} == Section1{}, "all empty sections are equal");
static_assert(volume(Section1{0, 2, 6, 4}) == 8);
static_assert(contains(Section1{0, 2, 6, 4}, 19) && !contains(Section1{0, 2, 6, 4}, 20));
static_assert(position_of(Section1{0, 2, 6, 4}, 13) == 5 && index_at(Section1{0, 2, 6, 4}, 5) == 13);
static_assert(Section1{0, 2, 6, 4}.end() == 20);
static_assert(volume(Section<2>::from_box(Box<2>({0, 0}, {3, 4}))) == 12, "constexpr N-d volume");
static_assert(position_of(Section<2>{{Section1::interval(0, 4), Section1{1, 1, 2, 4}}}, Point<2>{1, 3}) == 5);

// ---- brute-force references --------------------------------------------------------------------

using IndexSet = std::set<index_t>;

/// Every index of `s`, by nested counting over the raw fields (independent of the library).
IndexSet index_set(const Section1& s) {
  IndexSet out;
  if (s.run_length <= 0 || s.run_count <= 0) return out;
  for (index_t k = 0; k < s.run_count; ++k)
    for (index_t u = 0; u < s.run_length; ++u) out.insert(s.first + k * s.stride + u);
  return out;
}

IndexSet index_set(const SectionList1& list) {
  IndexSet out;
  for (const auto& s : list) out.merge(index_set(s));
  return out;
}

template <std::size_t N>
std::set<Point<N>> point_set(const Section<N>& s) {
  std::set<Point<N>> out;
  std::array<std::vector<index_t>, N> axes;
  for (std::size_t d = 0; d < N; ++d) {
    const IndexSet ix = index_set(s.dim[d]);
    if (ix.empty()) return out;
    axes[d].assign(ix.begin(), ix.end());
  }
  std::array<std::size_t, N> at{};
  while (true) {
    Point<N> p;
    for (std::size_t d = 0; d < N; ++d) p[d] = axes[d][at[d]];
    out.insert(p);
    std::size_t d = 0;
    while (d < N) {
      if (++at[d] < axes[d].size()) break;
      at[d] = 0;
      ++d;
    }
    if (d == N) return out;
  }
}

/// Sorted, maximal half-open intervals: the reference form of a large index set.
using Intervals = std::vector<std::pair<index_t, index_t>>;

/// Sorts intervals and merges touching ones; sets `overlap` if two of them share an index.
Intervals merge_intervals(Intervals v, bool* overlap = nullptr) {
  std::sort(v.begin(), v.end());
  Intervals out;
  for (const auto& iv : v) {
    if (!out.empty() && iv.first < out.back().second && overlap) *overlap = true;
    if (!out.empty() && iv.first <= out.back().second) {
      out.back().second = std::max(out.back().second, iv.second);
    } else {
      out.push_back(iv);
    }
  }
  return out;
}

Intervals runs_of(const Section1& s) {
  Intervals v;
  if (s.run_length <= 0 || s.run_count <= 0) return v;
  for (index_t k = 0; k < s.run_count; ++k) v.emplace_back(s.first + k * s.stride, s.first + k * s.stride + s.run_length);
  return merge_intervals(v);
}

/// The runs of all pieces as maximal intervals; `overlap` tells whether two pieces share an index.
Intervals runs_of(const SectionList1& list, bool* overlap) {
  Intervals v;
  for (const auto& s : list)
    for (const auto& iv : runs_of(s)) v.push_back(iv);
  return merge_intervals(v, overlap);
}

/// a ∩ b by a two-pointer sweep over the runs of both: O(runs), independent of the library.
Intervals reference_intersection(const Section1& a, const Section1& b) {
  const Intervals x = runs_of(a), y = runs_of(b);
  Intervals out;
  std::size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    const index_t lo = std::max(x[i].first, y[j].first), hi = std::min(x[i].second, y[j].second);
    if (lo < hi) out.emplace_back(lo, hi);
    (x[i].second < y[j].second) ? ++i : ++j;
  }
  return merge_intervals(out);
}

/// True if the maximal intervals form one section (equal lengths, equal spacing).
bool is_one_section(const Intervals& v) {
  for (std::size_t k = 1; k < v.size(); ++k) {
    if (v[k].second - v[k].first != v[0].second - v[0].first) return false;
    if (v[k].first - v[k - 1].first != v[1].first - v[0].first) return false;
  }
  return true;
}

bool fields_equal(const Section1& a, const Section1& b) {
  return a.first == b.first && a.run_length == b.run_length && a.stride == b.stride && a.run_count == b.run_count;
}

/// Checks what every list tessera returns promises: non-empty, normalized, sorted by first, disjoint.
/// Lists with too many runs to enumerate are checked for disjointness pairwise by `intersect`.
void expect_well_formed(const SectionList1& list) {
  for (std::size_t k = 0; k < list.size(); ++k) {
    EXPECT_FALSE(list[k].empty()) << list[k];
    EXPECT_TRUE(fields_equal(list[k], list[k].normalized())) << "not normalized: " << list[k].first << ' '
                                                             << list[k].run_length << ' ' << list[k].stride << ' '
                                                             << list[k].run_count;
    if (k > 0) {
      EXPECT_LT(list[k - 1].first, list[k].first) << "not sorted";
    }
  }
  index_t runs = 0;
  for (const auto& s : list) runs += s.normalized().run_count;
  if (runs <= 1'000'000) {
    bool overlap = false;
    (void)runs_of(list, &overlap);
    EXPECT_FALSE(overlap) << "pieces overlap";
  } else {
    for (std::size_t i = 0; i < list.size(); ++i)
      for (std::size_t j = i + 1; j < list.size(); ++j) EXPECT_FALSE(intersects(list[i], list[j])) << "pieces overlap";
  }
}

// ---- random sections -----------------------------------------------------------------------------

/// A random section with first in [-range, range], runs of 1..max_len, gaps of 0..max_gap and
/// 1..max_count runs; about one in ten is empty (with non-trivial fields) and one in ten a single
/// run with an arbitrary stride (as aggregate initialisation may produce).
Section1 random_section1(std::mt19937_64& rng, index_t range = 8, index_t max_len = 4, index_t max_gap = 5,
                         index_t max_count = 5) {
  auto pick = [&](index_t lo, index_t hi) { return std::uniform_int_distribution<index_t>(lo, hi)(rng); };
  const index_t first = pick(-range, range);
  switch (rng() % 20) {
    case 0:
      return Section1{first, 0, pick(0, 5), pick(0, 4)};
    case 1:
      return Section1{first, pick(1, max_len), pick(1, 5), pick(-2, 0)};
    case 2:
    case 3:
      return Section1{first, pick(1, max_len * 2), pick(-3, 3), 1};
    default: {
      const index_t len = pick(1, max_len);
      return Section1::strided(first, len, len + pick(0, max_gap), pick(1, max_count));
    }
  }
}

template <std::size_t N>
Section<N> random_section(std::mt19937_64& rng) {
  Section<N> s;
  for (auto& d : s.dim) d = random_section1(rng, 5, 3, 3, 3);
  return s;
}

// ---- one dimension: targeted cases -----------------------------------------------------------------

TEST(Section1, ConstructionAndAccessors) {
  const Section1 s = Section1::strided(0, 2, 6, 4);  // {0,1, 6,7, 12,13, 18,19}
  EXPECT_EQ(s.begin(), 0);
  EXPECT_EQ(s.end(), 20);
  EXPECT_EQ(volume(s), 8);
  EXPECT_EQ(index_set(s), (IndexSet{0, 1, 6, 7, 12, 13, 18, 19}));
  EXPECT_TRUE(Section1::interval(5, 5).empty());
  EXPECT_TRUE(Section1::interval(5, 2).empty());
  EXPECT_EQ(Section1::interval(-3, 2), (Section1{-3, 5, 5, 1}));
  EXPECT_EQ(volume(Section1::interval(-3, 2)), 5);
  EXPECT_EQ(volume(Section1{}), 0);
  EXPECT_EQ(volume(Section1{0, 3, 4, -1}), 0);
  EXPECT_FALSE(contains(Section1{}, 0));
  // strided returns the normalized form
  EXPECT_TRUE(fields_equal(Section1::strided(7, 3, 3, 4), Section1{7, 12, 12, 1}));
  EXPECT_TRUE(fields_equal(Section1::strided(7, 3, 100, 1), Section1{7, 3, 3, 1}));
  EXPECT_TRUE(fields_equal(Section1::strided(7, 0, 100, 4), Section1{}));
  EXPECT_TRUE(fields_equal(Section1::strided(7, 3, 5, 0), Section1{}));
  EXPECT_EQ(shift(s, -10), Section1::strided(-10, 2, 6, 4));
}

TEST(Section1, PrintsTheNormalizedForm) {
  std::ostringstream out;
  out << Section1::interval(3, 5) << ' ' << Section1::strided(0, 2, 6, 4) << ' ' << Section1{} << ' '
      << Section1{1, 2, 2, 3};
  EXPECT_EQ(out.str(), "[3,5) {first=0 len=2 stride=6 count=4} [empty] [1,7)");
}

TEST(Section1, BadArgumentsAreNamed) {
  auto expect_argument_error = [](auto&& call, const std::string& needle) {
    try {
      (void)call();
      ADD_FAILURE() << "no error for " << needle;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument) << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("Section1::strided"), std::string::npos) << e.what();
    }
  };
  expect_argument_error([] { return Section1::strided(0, -1, 1, 1); }, "'run_length' = -1");
  expect_argument_error([] { return Section1::strided(0, -5, 10, 3); }, "'run_length' = -5");
  expect_argument_error([] { return Section1::strided(0, 4, 3, 2); }, "'stride' = 3");
  expect_argument_error([] { return Section1::strided(0, 1, 0, 2); }, "'stride' = 0");
  expect_argument_error([] { return Section1::strided(0, 1, -4, 5); }, "'stride' = -4");
  expect_argument_error([] { return Section1::strided(0, 2, 4, -2); }, "'run_count' = -2");
  // A single run may have any stride; runs that touch are fine.
  EXPECT_NO_THROW((void)Section1::strided(0, 4, 3, 1));
  EXPECT_NO_THROW((void)Section1::strided(0, 4, 4, 2));
  // The last index must fit in 64 bits.
  const index_t big = index_t{1} << 62;
  try {
    (void)Section1::strided(big, 1, big, 3);
    ADD_FAILURE() << "no overflow error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::overflow) << e.what();
  }
  EXPECT_THROW((void)Section1::strided(0, 1, big, 4), Error);
  EXPECT_NO_THROW((void)Section1::strided(-big, 1, big, 2));
}

TEST(Section1, ClipSplitsIntoHeadBodyAndTail) {
  const Section1 s = Section1::strided(0, 4, 10, 5);  // [0,4) [10,14) [20,24) [30,34) [40,44)
  EXPECT_EQ(clip(s, 2, 33), (SectionList1{Section1::interval(2, 4), Section1::strided(10, 4, 10, 2),
                                          Section1::interval(30, 33)}));
  EXPECT_EQ(clip(s, 4, 10), SectionList1{});                                   // a gap
  EXPECT_EQ(clip(s, 5, 31), (SectionList1{Section1::strided(10, 4, 10, 2), Section1::interval(30, 31)}));
  EXPECT_EQ(clip(s, 11, 13), SectionList1{Section1::interval(11, 13)});        // inside one run
  EXPECT_EQ(clip(s, -100, 100), SectionList1{s});
  EXPECT_EQ(clip(s, 14, 24), SectionList1{Section1::interval(20, 24)});
  EXPECT_EQ(clip(s, std::numeric_limits<index_t>::min(), std::numeric_limits<index_t>::max()), SectionList1{s});
  EXPECT_EQ(clip(Section1{}, 0, 10), SectionList1{});
  EXPECT_EQ(clip(s, 30, 30), SectionList1{});
}

TEST(Section1, CyclicIntersectInterval) {
  const Section1 cyclic = Section1::strided(1, 1, 4, 250);  // coordinate 1 of 4 over [0, 1000)
  const SectionList1 expected{Section1::strided(13, 1, 4, 10)};  // 13, 17, ..., 49
  EXPECT_EQ(intersect(cyclic, Section1::interval(10, 50)), expected);
  EXPECT_EQ(intersect(Section1::interval(10, 50), cyclic), expected);
  EXPECT_EQ(intersect(cyclic, Section1::interval(2, 5)), SectionList1{});
  EXPECT_EQ(intersect(cyclic, Section1::interval(-50, 2)), SectionList1{Section1::interval(1, 2)});
}

TEST(Section1, EqualStridesWithOffsetGiveOneSection) {
  // {0,1,2, 4,5,6, ...} ∩ {2,3,4, 6,7,8, ...} = {2, 4, 6, ..., 38}
  const SectionList1 r = intersect(Section1::strided(0, 3, 4, 10), Section1::strided(2, 3, 4, 10));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TRUE(fields_equal(r[0], Section1{2, 1, 2, 19}));
  // Same block-cyclic distribution, shifted by whole blocks: runs align.
  EXPECT_EQ(intersect(Section1::strided(0, 8, 24, 100), Section1::strided(24 * 7, 8, 24, 1000)),
            SectionList1{Section1::strided(24 * 7, 8, 24, 93)});
  // Shifted by half a block: half of every block, except past the ends.
  EXPECT_EQ(intersect(Section1::strided(0, 8, 24, 10), Section1::strided(4, 8, 24, 10)),
            SectionList1{Section1::strided(4, 4, 24, 10)});
  // Offset by a non-multiple of the stride: the other coordinate's blocks never meet ours.
  EXPECT_EQ(intersect(Section1::strided(0, 8, 24, 10), Section1::strided(8, 8, 24, 10)), SectionList1{});
}

TEST(Section1, DocumentedBlockCyclicVersusCyclic) {
  const SectionList1 r = intersect(Section1::strided(0, 4, 8, 6), Section1::strided(1, 1, 3, 16));
  EXPECT_EQ(r, (SectionList1{Section1::strided(1, 1, 24, 2), Section1::strided(10, 1, 24, 2),
                             Section1::strided(16, 1, 24, 2), Section1::strided(19, 1, 24, 2)}));
}

/// The sections owned by coordinate c of g under block-cyclic(b) over [0, n), clipped to [0, n)
/// (the last block may be partial).
SectionList1 block_cyclic_owned(index_t n, index_t b, index_t g, index_t c) {
  const index_t blocks = (n + b - 1) / b;
  const index_t mine = blocks > c ? (blocks - c + g - 1) / g : 0;
  return clip(Section1::strided(c * b, b, g * b, mine), 0, n);
}

TEST(Section1, BlockCyclicVersusBlockCyclicOverALargeRange) {
  const index_t n = 1'000'003;
  index_t total = 0;
  for (index_t c1 = 0; c1 < 3; ++c1) {
    for (index_t c2 = 0; c2 < 5; ++c2) {
      SectionList1 all;
      for (const Section1& x : block_cyclic_owned(n, 64, 3, c1)) {
        for (const Section1& y : block_cyclic_owned(n, 32, 5, c2)) {
          const SectionList1 r = intersect(x, y);
          EXPECT_LE(r.size(), 4u) << "the periodic form must stay small: " << x << " ∩ " << y;
          expect_well_formed(r);
          EXPECT_EQ(runs_of(r, nullptr), reference_intersection(x, y)) << x << " ∩ " << y;
          for (const Section1& s : r) {
            total += volume(s);
            all.push_back(s);
          }
        }
      }
      bool overlap = false;
      (void)runs_of(all, &overlap);
      EXPECT_FALSE(overlap);
    }
  }
  EXPECT_EQ(total, n) << "the pairwise intersections must partition the domain";
  // The full-period structure: stride lcm(192, 160) = 960.
  const SectionList1 r = intersect(Section1::strided(0, 64, 192, 5000), Section1::strided(0, 32, 160, 6000));
  ASSERT_FALSE(r.empty());
  for (const Section1& s : r) EXPECT_TRUE(s.run_count == 1 || s.stride == 960) << s;
}

TEST(Section1, HugeCoordinatesDoNotOverflow) {
  const index_t e61 = index_t{1} << 61;
  struct Case {
    Section1 a, b;
  };
  const std::vector<Case> cases = {
      {Section1::strided(e61 - 1'000'000, 7, 13, 1000), Section1::strided(e61 - 999'000, 5, 11, 2000)},
      {Section1::strided(-e61, 3, 5, 1000), Section1::strided(-e61 + 17, 2, 7, 700)},
      // Spanning from -2^61 to +2^61 with huge strides and runs.
      {Section1::strided(-e61, e61 / 5, e61 / 3, 7), Section1::strided(-e61 + 12345, e61 / 9, e61 / 7, 15)},
      {Section1::strided(e61 - 300'000, 1, 3, 100'000), Section1::strided(e61 - 100, 2, 5, 10)},
      {Section1::strided(-e61, 2, 3, 100'000), Section1::strided(-e61 - 50, 1, 5, 10'000)},
      {Section1::strided(-e61, 1, e61 / 1000, 1999), Section1::strided(-e61, 1, e61 / 999, 1998)},
      {Section1::strided(-e61, 1, 2, 1), Section1::strided(-e61, 1, 3, 2)},
      // Far apart: no overlap, and an offset between the firsts near 2^62.
      {Section1::strided(-e61, 4, 9, 100), Section1::strided(e61, 4, 10, 100)},
  };
  for (const auto& [a, b] : cases) {
    const SectionList1 r = intersect(a, b);
    expect_well_formed(r);
    EXPECT_EQ(runs_of(r, nullptr), reference_intersection(a, b)) << a << " ∩ " << b;
    EXPECT_EQ(runs_of(detail::intersect_by_runs(a, b), nullptr), reference_intersection(a, b)) << a << " ∩ " << b;
    if (std::max(a.begin(), b.begin()) < std::min(a.end(), b.end())) {
      EXPECT_EQ(runs_of(detail::intersect_periodic(a, b), nullptr), reference_intersection(a, b)) << a << " ∩ " << b;
    }
  }
}

TEST(Section1, OverflowingLcmIsStillExact) {
  // Coprime strides just above 2^32: the lcm (about 2^64) does not fit in 64 bits.
  const index_t sa = (index_t{1} << 32) + 15, sb = (index_t{1} << 32) + 1;
  struct Case {
    Section1 a, b;
    bool few_offsets;  // few candidate offsets per period: the periodic method is cheap
  };
  const std::vector<Case> cases = {
      // Short runs: the periodic method, each piece a single run (a period is longer than both).
      {Section1::strided(-5'000, 1000, sa, 1500), Section1::strided(0, 700, sb, 1500), true},
      {Section1::strided(-(index_t{1} << 61), 3, sa, 2000), Section1::strided(-(index_t{1} << 61) + 1, 3, sb, 2000),
       true},
      // Long runs: 2^32 candidate offsets, so the run walk.
      {Section1::strided(-5'000'000, index_t{1} << 31, sa, 1500), Section1::strided(0, (index_t{1} << 31) + 5, sb, 1200),
       false},
  };
  for (const auto& [a, b, few_offsets] : cases) {
    const Intervals expected = reference_intersection(a, b);
    ASSERT_FALSE(expected.empty());
    const SectionList1 r = intersect(a, b);
    expect_well_formed(r);
    EXPECT_EQ(runs_of(r, nullptr), expected) << a << " ∩ " << b;
    EXPECT_EQ(runs_of(detail::intersect_by_runs(a, b), nullptr), expected);
    if (few_offsets) {
      EXPECT_EQ(runs_of(detail::intersect_periodic(a, b), nullptr), expected);
    }
  }
}

TEST(Section1, HugeSectionsAreNeverEnumerated) {
  // ~2^57 indices each: any per-element or per-run method would not finish.
  const index_t big = index_t{1} << 55;
  const Section1 a = Section1::strided(-3, 64, 192, big), b = Section1::strided(5, 32, 160, big);
  const Section1 c = Section1::strided(1, 1, 7, big);
  std::mt19937_64 rng(3);
  for (const auto& [x, y] : {std::pair{a, b}, std::pair{a, c}, std::pair{b, c}}) {
    const SectionList1 r = intersect(x, y);
    expect_well_formed(r);
    EXPECT_LE(r.size(), 64u);
    // Sample membership near both ends and at random: exactly one piece holds each common index.
    std::uniform_int_distribution<index_t> anywhere(x.begin() - 10, x.end() + 10);
    for (int trial = 0; trial < 3000; ++trial) {
      index_t i = anywhere(rng);
      if (trial % 3 == 0) i = x.begin() + trial / 3 % 2000;
      if (trial % 3 == 1) i = std::min(x.end(), y.end()) - 1 - trial / 3 % 2000;
      const int holders = static_cast<int>(
          std::count_if(r.begin(), r.end(), [&](const Section1& s) { return contains(s, i); }));
      ASSERT_EQ(holders, contains(x, i) && contains(y, i) ? 1 : 0) << i;
    }
  }
}

// ---- one dimension: properties against brute force ----------------------------------------------

TEST(Section1Properties, AgreeWithBruteForce) {
  std::mt19937_64 rng(2024);
  for (int trial = 0; trial < 4000; ++trial) {
    const Section1 s = random_section1(rng, 8, 5, 6, 6);
    const IndexSet set = index_set(s);
    ASSERT_EQ(volume(s), static_cast<index_t>(set.size()));
    ASSERT_EQ(s.empty(), set.empty());
    const Section1 n = s.normalized();
    EXPECT_EQ(index_set(n), set);
    EXPECT_TRUE(fields_equal(n.normalized(), n)) << "normalized is idempotent";
    EXPECT_EQ(n, s);
    EXPECT_EQ(hash_value(n), hash_value(s));
    if (!set.empty()) {
      EXPECT_EQ(s.begin(), *set.begin());
      EXPECT_EQ(s.end(), *set.rbegin() + 1);
      if (n.run_count > 1) {
        EXPECT_GT(n.stride, n.run_length) << "normalized runs are maximal";
      }
    }
    for (index_t i = -20; i <= 60; ++i) ASSERT_EQ(contains(s, i), set.count(i) == 1) << s << " at " << i;
    index_t pos = 0;
    for (index_t i : set) {
      ASSERT_EQ(position_of(s, i), pos) << s << " at " << i;
      ASSERT_EQ(index_at(s, pos), i) << s << " at " << pos;
      ++pos;
    }
    // for_each_run: increasing, maximal runs that concatenate to the set.
    std::vector<index_t> visited;
    index_t previous_end = std::numeric_limits<index_t>::min();
    for_each_run(s, [&](index_t first, index_t length) {
      EXPECT_GT(length, 0);
      EXPECT_GT(first, previous_end) << "runs must be increasing and not touch";
      previous_end = first + length;
      for (index_t x = 0; x < length; ++x) visited.push_back(first + x);
    });
    EXPECT_EQ(visited, std::vector<index_t>(set.begin(), set.end()));
    // Set equality and hashing against another random section.
    const Section1 t = random_section1(rng, 8, 5, 6, 6);
    EXPECT_EQ(s == t, set == index_set(t)) << s << " vs " << t;
    if (s == t) {
      EXPECT_EQ(hash_value(s), hash_value(t));
    }
    std::ostringstream a, b;
    a << s;
    b << n;
    EXPECT_EQ(a.str(), b.str());
  }
}

TEST(Section1Properties, ClipMatchesBruteForce) {
  std::mt19937_64 rng(99);
  std::uniform_int_distribution<index_t> bound(-15, 50);
  for (int trial = 0; trial < 4000; ++trial) {
    const Section1 s = random_section1(rng, 8, 5, 6, 6);
    const index_t lo = bound(rng), hi = bound(rng);
    const SectionList1 r = clip(s, lo, hi);
    EXPECT_LE(r.size(), 3u);
    expect_well_formed(r);
    IndexSet expected;
    for (index_t i : index_set(s))
      if (lo <= i && i < hi) expected.insert(i);
    EXPECT_EQ(index_set(r), expected) << s << " clipped to [" << lo << ',' << hi << ')';
  }
}

void check_intersection(const Section1& a, const Section1& b) {
  IndexSet expected;
  const IndexSet sb = index_set(b);
  for (index_t i : index_set(a))
    if (sb.count(i)) expected.insert(i);
  const SectionList1 r = intersect(a, b);
  expect_well_formed(r);
  ASSERT_EQ(index_set(r), expected) << a << " ∩ " << b;
  EXPECT_EQ(intersects(a, b), !expected.empty());
  EXPECT_EQ(index_set(intersect(b, a)), expected);
  // Exactly one section whenever the intersection is one section.
  const Intervals runs = runs_of(r, nullptr);
  if (!runs.empty() && is_one_section(runs)) {
    EXPECT_EQ(r.size(), 1u) << a << " ∩ " << b;
  }
  // Both methods, whatever the dispatcher would choose.
  const Section1 x = a.normalized(), y = b.normalized();
  if (!x.empty() && !y.empty()) {
    const SectionList1 by_runs = detail::intersect_by_runs(x, y);
    expect_well_formed(by_runs);
    EXPECT_EQ(index_set(by_runs), expected) << "run walk: " << a << " ∩ " << b;
    if (std::max(x.begin(), y.begin()) < std::min(x.end(), y.end())) {
      const SectionList1 periodic = detail::intersect_periodic(x, y);
      expect_well_formed(periodic);
      EXPECT_EQ(index_set(periodic), expected) << "periodic: " << a << " ∩ " << b;
    }
  }
}

TEST(Section1Properties, IntersectMatchesBruteForce) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 15000; ++trial) {
    const Section1 a = random_section1(rng, 20, 6, 9, 30);
    const Section1 b = random_section1(rng, 20, 6, 9, 30);
    check_intersection(a, b);
    if (::testing::Test::HasFatalFailure()) return;
  }
  // Structured pairs: block-cyclic and cyclic distributions of one range, all coordinate pairs.
  for (index_t b1 = 1; b1 <= 4; ++b1)
    for (index_t g1 = 1; g1 <= 4; ++g1)
      for (index_t b2 = 1; b2 <= 3; ++b2)
        for (index_t g2 = 1; g2 <= 5; ++g2)
          for (index_t c1 = 0; c1 < g1; ++c1)
            for (index_t c2 = 0; c2 < g2; ++c2)
              check_intersection(Section1::strided(c1 * b1, b1, g1 * b1, 60 / (g1 * b1)),
                                 Section1::strided(c2 * b2 - 3, b2, g2 * b2, 70 / (g2 * b2)));
}

TEST(Section1Properties, LargeRandomIntersectionsMatchTheRunSweep) {
  std::mt19937_64 rng(11);
  const index_t e61 = index_t{1} << 61;
  auto pick = [&](index_t lo, index_t hi) { return std::uniform_int_distribution<index_t>(lo, hi)(rng); };
  int periodic_checked = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    // Offsets anywhere from -2^61 to 2^61, long runs and strides, up to a few hundred runs.
    const index_t base = pick(-e61, e61);
    const index_t scale = index_t{1} << pick(0, 40);
    auto make = [&] {
      const index_t len = pick(1, 5 * scale), gap = pick(0, 7 * scale);
      return Section1::strided(base + pick(-20 * scale, 20 * scale), len, len + gap, pick(1, 300));
    };
    const Section1 a = make(), b = make();
    const Intervals expected = reference_intersection(a, b);
    const SectionList1 r = intersect(a, b);
    expect_well_formed(r);
    ASSERT_EQ(runs_of(r, nullptr), expected) << a << " ∩ " << b;
    ASSERT_EQ(runs_of(detail::intersect_by_runs(a, b), nullptr), expected) << a << " ∩ " << b;
    const index_t offsets = (a.run_length + b.run_length) / std::gcd(a.stride, b.stride);
    if (offsets < 100'000 && std::max(a.begin(), b.begin()) < std::min(a.end(), b.end())) {
      ASSERT_EQ(runs_of(detail::intersect_periodic(a, b), nullptr), expected) << a << " ∩ " << b;
      ++periodic_checked;
    }
  }
  EXPECT_GT(periodic_checked, 100);
}

// ---- N dimensions ------------------------------------------------------------------------------------

TEST(Section, BoxesAreOneRunPerDimension) {
  const Box<2> b({1, -2}, {4, 3});
  const Section<2> s = Section<2>::from_box(b);
  EXPECT_TRUE(is_box(s));
  EXPECT_EQ(bounding_box(s), b);
  EXPECT_EQ(volume(s), volume(b));
  EXPECT_TRUE(Section<2>::from_box(Box<2>()).empty());
  EXPECT_EQ(Section<2>::from_box(Box<2>({5, 5}, {5, 9})), Section<2>());
  const Section<2> strided{{Section1::interval(0, 4), Section1::strided(1, 1, 2, 4)}};
  EXPECT_FALSE(is_box(strided));
  EXPECT_EQ(bounding_box(strided), Box<2>({0, 1}, {4, 8}));
  EXPECT_EQ(volume(strided), 16);
  EXPECT_EQ(position_of(strided, Point<2>{1, 3}), 5);
  EXPECT_EQ(point_at(strided, 5), (Point<2>{1, 3}));
  EXPECT_EQ(shift(strided, Point<2>{10, -1}),
            (Section<2>{{Section1::interval(10, 14), Section1::strided(0, 1, 2, 4)}}));
  std::ostringstream out;
  out << strided << ' ' << Section<3>();
  EXPECT_EQ(out.str(), "[0,4)x{first=1 len=1 stride=2 count=4} [empty3d]");
}

TEST(Section, VolumeOverflowIsAnError) {
  const Section1 huge = Section1::interval(0, index_t{1} << 40);
  try {
    (void)volume(Section<2>{{huge, huge}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::overflow);
  }
}

TEST(Section, BlockTimesCyclicIntersection) {
  // Rows by blocks of 4 over 2 coordinates (coordinate 1), columns cyclic over 3 (coordinate 2),
  // intersected with rows cyclic over 2 and columns in blocks of 5.
  const Section<2> a{{Section1::interval(4, 8), Section1::strided(2, 1, 3, 10)}};
  const Section<2> b{{Section1::strided(1, 1, 2, 8), Section1::interval(5, 10)}};
  const auto r = intersect(a, b);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], (Section<2>{{Section1::strided(5, 1, 2, 2), Section1::strided(5, 1, 3, 2)}}));
}

template <class D>
class SectionProperties : public ::testing::Test {};
TYPED_TEST_SUITE(SectionProperties, testing::AllDims);

TYPED_TEST(SectionProperties, EnumerationAgreesWithBruteForce) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(31 + N);
  for (int trial = 0; trial < 300; ++trial) {
    const Section<N> s = random_section<N>(rng);
    const auto set = point_set(s);
    ASSERT_EQ(volume(s), static_cast<index_t>(set.size()));
    ASSERT_EQ(s.empty(), set.empty());
    // Row-major order is the lexicographic order of std::set<Point>.
    std::vector<Point<N>> by_point, by_run;
    for_each_point(s, [&](const Point<N>& p) { by_point.push_back(p); });
    for_each_run(s, [&](const Point<N>& start, index_t length) {
      EXPECT_GT(length, 0);
      Point<N> p = start;
      for (index_t x = 0; x < length; ++x, ++p[N - 1]) by_run.push_back(p);
    });
    const std::vector<Point<N>> expected(set.begin(), set.end());
    EXPECT_EQ(by_point, expected);
    EXPECT_EQ(by_run, expected);
    for (std::size_t i = 0; i < expected.size(); ++i) {
      ASSERT_EQ(position_of(s, expected[i]), static_cast<index_t>(i)) << s << " at " << expected[i];
      ASSERT_EQ(point_at(s, static_cast<index_t>(i)), expected[i]);
    }
    for (int k = 0; k < 50; ++k) {
      const Point<N> p = random_point<N>(rng, 12);
      ASSERT_EQ(contains(s, p), set.count(p) == 1) << s << " at " << p;
    }
    const Box<N> bb = bounding_box(s);
    for (const auto& p : set) EXPECT_TRUE(contains(bb, p));
    if (!set.empty())
      for (std::size_t d = 0; d < N; ++d) {
        EXPECT_EQ(bb.lo[d], std::min_element(set.begin(), set.end(), [&](auto& x, auto& y) { return x[d] < y[d]; })->coord[d]);
        EXPECT_EQ(bb.hi[d] - 1, std::max_element(set.begin(), set.end(), [&](auto& x, auto& y) { return x[d] < y[d]; })->coord[d]);
      }
    EXPECT_EQ(is_box(s), set.empty() || set == point_set(bb));
  }
}

TYPED_TEST(SectionProperties, FromBoxRoundTrip) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(41 + N);
  for (int trial = 0; trial < 200; ++trial) {
    const Box<N> b = random_box<N>(rng, 4);
    const Section<N> s = Section<N>::from_box(b);
    EXPECT_EQ(point_set(s), point_set(b));
    EXPECT_TRUE(is_box(s));
    EXPECT_EQ(bounding_box(s), b);
    EXPECT_EQ(volume(s), volume(b));
    if (!b.empty()) {
      for (const auto& p : point_set(b)) EXPECT_EQ(position_of(s, p), offset_row_major(b, p));
    }
  }
}

TYPED_TEST(SectionProperties, EqualityAndHashAreSetSemantics) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(51 + N);
  for (int trial = 0; trial < 400; ++trial) {
    const Section<N> a = random_section<N>(rng);
    Section<N> b = random_section<N>(rng);
    if (trial % 3 == 0) {  // the same set in another form
      b = a;
      for (auto& d : b.dim) d = d.normalized();
      if (!b.empty()) b.dim[0] = Section1{b.dim[0].first, b.dim[0].run_length, b.dim[0].run_count == 1 ? 99 : b.dim[0].stride, b.dim[0].run_count};
    }
    const bool same = point_set(a) == point_set(b);
    EXPECT_EQ(a == b, same) << a << " vs " << b;
    if (same) {
      EXPECT_EQ(hash_value(a), hash_value(b));
    }
  }
}

TYPED_TEST(SectionProperties, IntersectionsMatchBruteForce) {
  constexpr std::size_t N = TypeParam::value;
  std::mt19937_64 rng(61 + N);
  for (int trial = 0; trial < 200; ++trial) {
    const Section<N> a = random_section<N>(rng), b = random_section<N>(rng);
    const auto sa = point_set(a), sb = point_set(b);
    std::set<Point<N>> expected;
    for (const auto& p : sa)
      if (sb.count(p)) expected.insert(p);
    std::set<Point<N>> got;
    for (const auto& piece : intersect(a, b)) {
      EXPECT_FALSE(piece.empty());
      for (const auto& p : point_set(piece)) EXPECT_TRUE(got.insert(p).second) << "pieces overlap at " << p;
    }
    EXPECT_EQ(got, expected) << a << " ∩ " << b;

    const Box<N> box = random_box<N>(rng, 6);
    const auto sbox = point_set(box);
    expected.clear();
    for (const auto& p : sa)
      if (sbox.count(p)) expected.insert(p);
    got.clear();
    const auto pieces = intersect(a, box);
    for (const auto& piece : pieces) {
      EXPECT_FALSE(piece.empty());
      for (const auto& p : point_set(piece)) EXPECT_TRUE(got.insert(p).second) << "pieces overlap at " << p;
    }
    EXPECT_EQ(got, expected) << a << " ∩ " << box;
    EXPECT_EQ(intersect(box, a), pieces);
  }
}

}  // namespace
}  // namespace tessera
