// SparseIndexSet (layout/sparse_index_set.hpp): merges, erasures and lookups against a std::map
// of offset -> point over random batches, and the old -> new position maps aligned values follow.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

#include "tessera/layout/sparse_index_set.hpp"

namespace tessera {
namespace {

Point<2> point_of(index_t offset) { return Point<2>{offset / 10, offset % 10}; }

void expect_equal(const SparseIndexSet<2>& s, const std::map<index_t, Point<2>>& ref) {
  ASSERT_EQ(s.size(), ref.size());
  std::size_t k = 0;
  for (const auto& [offset, point] : ref) {
    EXPECT_EQ(s.offsets()[k], offset);
    EXPECT_EQ(s.points()[k], point);
    EXPECT_EQ(s.find(offset), k);
    ++k;
  }
}

TEST(SparseIndexSet, RandomInsertsAndErasesMatchASortedMap) {
  std::mt19937_64 rng(5);
  SparseIndexSet<2> s;
  std::map<index_t, Point<2>> ref;
  std::vector<index_t> tag;  // a value per position, moved as aligned values are
  for (int round = 0; round < 50; ++round) {
    const std::vector<index_t> before(s.offsets().begin(), s.offsets().end());
    if (rng() % 3 != 0) {
      std::vector<SparseEntry<2>> batch;
      for (int k = 0, n = static_cast<int>(rng() % 12); k < n; ++k) {
        const auto o = static_cast<index_t>(rng() % 60);
        batch.push_back({o, point_of(o)});
        ref[o] = point_of(o);
      }
      const auto moved = s.insert(batch);
      ASSERT_EQ(moved.size(), before.size());
      std::vector<index_t> next(s.size(), -1);
      for (std::size_t i = 0; i < moved.size(); ++i) next[static_cast<std::size_t>(moved[i])] = tag[i];
      tag = next;
    } else {
      std::vector<index_t> gone;
      for (int k = 0, n = static_cast<int>(rng() % 8); k < n; ++k) {
        gone.push_back(static_cast<index_t>(rng() % 60));
        ref.erase(gone.back());
      }
      const auto moved = s.erase(gone);
      std::vector<index_t> next(s.size(), -1);
      for (std::size_t i = 0; i < moved.size(); ++i)
        if (moved[i] >= 0) next[static_cast<std::size_t>(moved[i])] = tag[i];
      tag = next;
    }
    expect_equal(s, ref);
    // Kept entries carry their tag (their offset); new ones have none yet.
    for (std::size_t k = 0; k < s.size(); ++k) {
      if (tag[k] >= 0) {
        EXPECT_EQ(tag[k], s.offsets()[k]);
      }
      tag[k] = s.offsets()[k];
    }
  }
  EXPECT_FALSE(s.find(61).has_value());
}

TEST(SparseIndexSet, FromEntriesMergesRepeats) {
  const auto s = SparseIndexSet<2>::from_entries({{7, point_of(7)}, {2, point_of(2)}, {7, point_of(7)}});
  EXPECT_EQ(s.size(), 2u);
  EXPECT_EQ(s.offsets()[0], 2);
  EXPECT_EQ(s.offsets()[1], 7);
  EXPECT_EQ(s.find(7), 1u);
  EXPECT_FALSE(s.find(3).has_value());
}

}  // namespace
}  // namespace tessera
