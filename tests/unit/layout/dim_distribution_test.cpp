#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <sstream>

#include "tessera/layout/dim_distribution.hpp"

namespace tessera {
namespace {

/// Owner of index i by the definition of each kind, written independently of the library.
int reference_owner(const DimSpec& spec, const std::vector<index_t>& bounds, index_t lo, int g, index_t i) {
  switch (spec.kind) {
    case DimKind::cyclic: return static_cast<int>(((i - lo) / spec.logical_block) % g);
    case DimKind::block_cyclic: return static_cast<int>(((i - lo) / spec.block_size + spec.source) % g);
    case DimKind::irregular: return spec.owners[static_cast<std::size_t>(i - lo)];
    default:
      for (int c = 0; c < g; ++c)
        if (bounds[static_cast<std::size_t>(c)] <= i && i < bounds[static_cast<std::size_t>(c) + 1]) return c;
      return -1;
  }
}

/// Block boundaries by the definition: n logical blocks, the first (n mod g) coordinates get one more.
std::vector<index_t> reference_block_bounds(index_t lo, index_t hi, int g, index_t lb) {
  const index_t blocks = (hi - lo + lb - 1) / lb;
  std::vector<index_t> b{lo};
  for (int c = 0; c < g; ++c) b.push_back(std::min(hi, b.back() + (blocks / g + (c < blocks % g ? 1 : 0)) * lb));
  b.back() = hi;
  return b;
}

DimSpec random_spec(std::mt19937_64& rng, index_t lo, index_t hi, int g) {
  const index_t n = hi - lo;
  const index_t lb = rng() % 3 == 0 ? 1 + static_cast<index_t>(rng() % 3) : 1;
  switch (rng() % 7) {
    case 0: return block().with_logical_block(lb);
    case 1: {
      std::vector<index_t> b{lo};
      for (int c = 1; c < g; ++c) {
        const index_t room = hi - b.back();
        index_t step = room > 0 ? static_cast<index_t>(rng() % static_cast<std::uint64_t>(room + 1)) : 0;
        step -= step % lb;
        b.push_back(b.back() + step);
      }
      b.push_back(hi);
      return cut(b).with_logical_block(lb);
    }
    case 2: {
      std::vector<double> w(static_cast<std::size_t>(g));
      for (auto& x : w) x = static_cast<double>(rng() % 4);
      w[rng() % w.size()] += 1;  // at least one positive weight
      return cut_weights(w).with_logical_block(lb);
    }
    case 3: return cyclic().with_logical_block(lb);
    case 4: return block_cyclic(lb * (1 + static_cast<index_t>(rng() % 3)), static_cast<int>(rng() % static_cast<std::uint64_t>(g))).with_logical_block(lb);
    case 5:
      if (g == 1) return collapsed();
      return block();
    default: {
      std::vector<int> owners(static_cast<std::size_t>(n));
      for (auto& o : owners) o = static_cast<int>(rng() % static_cast<std::uint64_t>(g));
      return irregular(owners);
    }
  }
}

TEST(DimDistribution, EveryKindAgreesWithItsDefinition) {
  std::mt19937_64 rng(2024);
  for (int trial = 0; trial < 3000; ++trial) {
    const index_t lo = static_cast<index_t>(rng() % 21) - 10;
    const index_t n = static_cast<index_t>(rng() % 40);
    const int g = 1 + static_cast<int>(rng() % 7);
    const DimSpec spec = random_spec(rng, lo, lo + n, g);
    std::ostringstream name;
    name << spec << " on [" << lo << "," << lo + n << ") over " << g;
    SCOPED_TRACE(name.str());
    const auto d = DimDistribution::bind(spec, lo, lo + n, g, "test");
    std::vector<index_t> bounds = d.boundaries();
    if (spec.kind == DimKind::block) {
      ASSERT_EQ(bounds, reference_block_bounds(lo, lo + n, g, spec.logical_block));
    }
    if (spec.kind == DimKind::cut) {
      ASSERT_EQ(bounds, spec.boundaries);
    }
    std::vector<index_t> count(static_cast<std::size_t>(g), 0);
    for (index_t i = lo; i < lo + n; ++i) {
      const int c = reference_owner(spec, bounds, lo, g, i);
      ASSERT_EQ(d.owner(i), c) << "index " << i;
      // Compacted storage keeps a coordinate's indices in increasing order.
      ASSERT_EQ(d.local_offset(i), count[static_cast<std::size_t>(c)]) << "index " << i;
      ASSERT_EQ(d.global_index(c, count[static_cast<std::size_t>(c)]), i);
      ++count[static_cast<std::size_t>(c)];
    }
    for (int c = 0; c < g; ++c) {
      ASSERT_EQ(d.local_count(c), count[static_cast<std::size_t>(c)]) << "coordinate " << c;
      index_t in_sections = 0, previous_end = std::numeric_limits<index_t>::min();
      for (const auto& s : d.owned(c)) {
        ASSERT_FALSE(s.empty());
        ASSERT_GE(s.begin(), previous_end) << "owned sections not increasing and disjoint";
        previous_end = s.end();
        for_each_run(s, [&](index_t first, index_t length) {
          for (index_t i = first; i < first + length; ++i) ASSERT_EQ(d.owner(i), c);
        });
        in_sections += volume(s);
      }
      ASSERT_EQ(in_sections, count[static_cast<std::size_t>(c)]);
    }
    // Pieces of random intervals cover them exactly, each piece on its owner.
    for (int q = 0; q < 5; ++q) {
      const index_t a = lo - 3 + static_cast<index_t>(rng() % static_cast<std::uint64_t>(n + 6));
      const index_t b = a + static_cast<index_t>(rng() % 12);
      std::vector<DimPiece> pieces;
      d.pieces(a, b, pieces);
      index_t covered = 0;
      for (const auto& p : pieces)
        for_each_run(p.section, [&](index_t first, index_t length) {
          for (index_t i = first; i < first + length; ++i) {
            ASSERT_TRUE(i >= a && i < b && i >= lo && i < lo + n) << "piece index " << i << " outside the query";
            ASSERT_EQ(d.owner(i), p.coord);
            ++covered;
          }
        });
      ASSERT_EQ(covered, std::max<index_t>(0, std::min(b, lo + n) - std::max(a, lo)));
      if (spec.kind == DimKind::cyclic || spec.kind == DimKind::block_cyclic) {
        ASSERT_LE(pieces.size(), 2u * static_cast<std::size_t>(g) + 2);
      }
    }
  }
}

TEST(DimDistribution, CyclicPiecesAreFewNotOnePerElement) {
  const auto d = DimDistribution::bind(block_cyclic(64, 1), 0, 1'000'000'000, 7, "test");
  std::vector<DimPiece> pieces;
  d.pieces(12345, 999'000'000, pieces);
  EXPECT_LE(pieces.size(), 7u * 3);  // at most a clipped head, a body and a clipped tail per coordinate
  index_t total = 0;
  for (const auto& p : pieces) total += volume(p.section);
  EXPECT_EQ(total, 999'000'000 - 12345);
  EXPECT_EQ(d.local_count(0) + d.local_count(1) + d.local_count(2) + d.local_count(3) + d.local_count(4) +
                d.local_count(5) + d.local_count(6),
            1'000'000'000);
}

TEST(DimDistribution, WeightsGiveProportionalCutsOnTheLogicalBlock) {
  EXPECT_EQ(DimDistribution::boundaries_from_weights({1, 1, 2}, 0, 100, 1, "t"), (std::vector<index_t>{0, 25, 50, 100}));
  EXPECT_EQ(DimDistribution::boundaries_from_weights({1, 1, 2}, 0, 100, 10, "t"), (std::vector<index_t>{0, 30, 50, 100}));
  EXPECT_EQ(DimDistribution::boundaries_from_weights({0, 1, 0}, 5, 15, 1, "t"), (std::vector<index_t>{5, 5, 15, 15}));
  const auto d = DimDistribution::bind(cut_weights({3, 1}).with_logical_block(4), 0, 18, 2, "t");
  EXPECT_EQ(d.boundaries(), (std::vector<index_t>{0, 12, 18}));
}

TEST(DimDistribution, EqualityFollowsOwnershipAndPrints) {
  const auto b = DimDistribution::bind(block(), 0, 10, 3, "t");
  const auto c = DimDistribution::bind(cut({0, 4, 7, 10}), 0, 10, 3, "t");
  EXPECT_EQ(b, c);  // block of 10 over 3 is the cut 0,4,7,10
  EXPECT_EQ(b.hash(), c.hash());
  const auto c2 = DimDistribution::bind(cut({0, 3, 7, 10}), 0, 10, 3, "t");
  EXPECT_NE(b, c2);
  EXPECT_NE(b.hash(), c2.hash());
  EXPECT_NE(DimDistribution::bind(cyclic(), 0, 10, 3, "t"), DimDistribution::bind(block_cyclic(1, 1), 0, 10, 3, "t"));
  EXPECT_EQ(DimDistribution::bind(cyclic(), 0, 10, 3, "t"), DimDistribution::bind(block_cyclic(1), 0, 10, 3, "t"));
  std::ostringstream out;
  out << c2 << ' ' << DimDistribution::bind(block_cyclic(64, 1), 0, 1000, 3, "t") << ' '
      << DimDistribution::bind(block().with_logical_block(4), 0, 100, 3, "t") << ' '
      << DimDistribution::bind(irregular({0, 1, 0}), 0, 3, 2, "t") << ' ' << DimDistribution::bind(collapsed(), 0, 5, 1, "t");
  EXPECT_EQ(out.str(), "cut(0,3,7,10) block_cyclic(64,src=1) block(lb=4) irregular(n=3) collapsed");
}

/// Expects `Error(invalid_argument)` whose message contains every fragment.
template <class F>
void expect_invalid(F&& f, std::initializer_list<const char*> fragments) {
  try {
    f();
    ADD_FAILURE() << "no error raised";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument) << e.what();
    for (const char* fragment : fragments) EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(DimDistribution, BadSpecsAreNamedErrors) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  expect_invalid([] { (void)DimDistribution::bind(cut({0, 6, 3, 10}), 0, 10, 3, "Distribution dimension 0"); },
                 {"Distribution dimension 0", "cut boundaries[2]", "= 3", "must not decrease"});
  expect_invalid([] { (void)DimDistribution::bind(cut({1, 5, 10}), 0, 10, 2, "d"); }, {"cut boundaries[0]", "= 1", "low bound 0"});
  expect_invalid([] { (void)DimDistribution::bind(cut({0, 5, 12}), 0, 10, 2, "d"); }, {"cut boundaries[2]", "= 12", "high bound 10"});
  expect_invalid([] { (void)DimDistribution::bind(cut({0, 10}), 0, 10, 2, "d"); }, {"cut boundaries", "= 2", "needs 3"});
  expect_invalid([] { (void)DimDistribution::bind(cut({0, 5, 10}).with_logical_block(2), 0, 10, 2, "d"); },
                 {"cut boundaries[1]", "= 5", "multiple of 2"});
  expect_invalid([] { (void)DimDistribution::bind(cut_weights({1, -1}), 0, 10, 2, "d"); }, {"weights[1]", "= -1"});
  expect_invalid([nan] { (void)DimDistribution::bind(cut_weights({nan, 1}), 0, 10, 2, "d"); }, {"weights[0]", "nan"});
  expect_invalid([] { (void)DimDistribution::bind(cut_weights({0, 0}), 0, 10, 2, "d"); }, {"weights", "all zero"});
  expect_invalid([] { (void)DimDistribution::bind(cut_weights({1, 1, 1}), 0, 10, 2, "d"); }, {"weights", "= 3", "extent 2"});
  expect_invalid([] { (void)DimDistribution::bind(block_cyclic(0), 0, 10, 2, "d"); }, {"block size", "= 0"});
  expect_invalid([] { (void)DimDistribution::bind(block_cyclic(3).with_logical_block(2), 0, 10, 2, "d"); },
                 {"block size", "= 3", "multiple of the logical block 2"});
  expect_invalid([] { (void)DimDistribution::bind(block_cyclic(2, 2), 0, 10, 2, "d"); }, {"source", "= 2"});
  expect_invalid([] { (void)DimDistribution::bind(collapsed(), 0, 10, 2, "d"); }, {"grid extent", "= 2", "collapsed"});
  expect_invalid([] { (void)DimDistribution::bind(irregular({0, 1, 2}), 0, 3, 2, "d"); }, {"owner table[2]", "= 2"});
  expect_invalid([] { (void)DimDistribution::bind(irregular({0, 1}), 0, 3, 2, "d"); }, {"owner table", "= 2", "3 indices"});
  expect_invalid([] { (void)DimDistribution::bind(block().with_logical_block(0), 0, 3, 2, "d"); }, {"logical block", "= 0"});
  expect_invalid([] { (void)DimDistribution::bind(block(), 0, 3, 0, "d"); }, {"grid extent", "= 0"});
  expect_invalid([] { (void)DimDistribution::bind(general(), 0, 3, 2, "d"); }, {"general", "from_rank_weights"});
}

}  // namespace
}  // namespace tessera
