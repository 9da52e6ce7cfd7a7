// Schedules from explicit offset lists (plan/index_schedule.hpp), without MPI: offset runs give
// the offsets back in order and fold regular patterns into few runs; the schedules of a simulated
// machine pair every rank's sends with its peers' receives and move the right elements when run
// by hand; bad arguments throw.
#include "tessera/plan/index_schedule.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "tessera/core/error.hpp"

namespace tessera {
namespace {

std::vector<index_t> expand(const std::vector<Section1>& runs) {
  std::vector<index_t> out;
  for_each_offset_stretch(runs, [&](index_t first, index_t count) {
    for (index_t j = 0; j < count; ++j) out.push_back(first + j);
  });
  return out;
}

/// The offsets a block of `s` enumerates, in order.
std::vector<index_t> expand(const Schedule& s, const Block& b) {
  std::vector<index_t> out;
  s.for_each_stretch(b, [&](index_t offset, index_t count, index_t stride) {
    for (index_t j = 0; j < count; ++j) out.push_back(offset + j * stride);
  });
  return out;
}

std::vector<Section1> runs_of(const std::vector<index_t>& offsets) {
  std::vector<Section1> runs;
  append_offset_runs(offsets, runs);
  return runs;
}

TEST(OffsetRuns, ConsecutiveOffsetsAreOneRun) {
  const auto runs = runs_of({7, 8, 9, 10});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0], Section1::interval(7, 11));
}

TEST(OffsetRuns, EqualRunsAtEqualDistancesFoldIntoOneStridedSection) {
  // A column of a 10-wide row-major array, and pairs of elements every 4.
  const auto column = runs_of({3, 13, 23, 33, 43});
  ASSERT_EQ(column.size(), 1u);
  EXPECT_EQ(column[0], Section1::strided(3, 1, 10, 5));
  const auto pairs = runs_of({0, 1, 4, 5, 8, 9});
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0], Section1::strided(0, 2, 4, 3));
  // A length or a distance that changes starts a new run.
  const auto mixed = runs_of({0, 3, 6, 7, 20, 30});
  ASSERT_EQ(mixed.size(), 3u);
  EXPECT_EQ(mixed[0], Section1::strided(0, 1, 3, 2));
  EXPECT_EQ(mixed[1], Section1::interval(6, 8));
  EXPECT_EQ(mixed[2], Section1::strided(20, 1, 10, 2));
}

TEST(OffsetRuns, RepeatedAndDecreasingOffsetsStartNewRuns) {
  EXPECT_EQ(runs_of({5, 5, 5}).size(), 3u);
  EXPECT_EQ(runs_of({3, 2, 1, 0}).size(), 4u);
  EXPECT_EQ(expand(runs_of({5, 5, 5})), (std::vector<index_t>{5, 5, 5}));
  EXPECT_EQ(expand(runs_of({0, 1, 2, 1, 2, 3})), (std::vector<index_t>{0, 1, 2, 1, 2, 3}));
  EXPECT_TRUE(runs_of({}).empty());
}

TEST(OffsetRuns, RandomListsComeBackInOrder) {
  std::mt19937_64 rng(1);
  for (int t = 0; t < 300; ++t) {
    std::vector<index_t> offsets(rng() % 60);
    const auto style = t % 3;
    for (std::size_t k = 0; k < offsets.size(); ++k) {
      if (style == 0) offsets[k] = static_cast<index_t>(rng() % 20);  // anything, repeats included
      if (style == 1) offsets[k] = static_cast<index_t>(k / 3 * 7 + k % 3 + (rng() % 8 == 0 ? 1 : 0));  // near-regular
      if (style == 2) offsets[k] = k == 0 ? 0 : offsets[k - 1] + static_cast<index_t>(1 + rng() % 3);   // increasing
    }
    std::vector<Section1> runs{Section1::interval(100, 101)};  // appended after what is there
    append_offset_runs(offsets, runs);
    runs.erase(runs.begin());
    ASSERT_EQ(expand(runs), offsets) << "trial " << t;
    ASSERT_LE(runs.size(), offsets.size());
    for (const Section1& r : runs) ASSERT_FALSE(r.empty());
  }
}

// OffsetRunAppender takes stretches of consecutive offsets in any cut: pieces that continue each
// other join, so the runs equal those of the offsets given one by one (append_offset_runs).
TEST(OffsetRuns, StretchesCutAnywhereGiveTheRunsOfTheirOffsets) {
  std::mt19937_64 rng(7);
  for (int t = 0; t < 300; ++t) {
    std::vector<index_t> offsets(rng() % 80);
    for (std::size_t k = 0; k < offsets.size(); ++k)
      offsets[k] = t % 2 == 0
                       ? static_cast<index_t>(k / 5 * 9 + k % 5 + (rng() % 10 == 0 ? 2 : 0))  // rows, some broken
                       : static_cast<index_t>(rng() % 30);
    std::vector<Section1> pieces;
    OffsetRunAppender out(pieces);
    for (std::size_t k = 0; k < offsets.size();) {  // a random cut of each stretch of consecutive offsets
      std::size_t length = 1;
      while (k + length < offsets.size() && offsets[k + length] == offsets[k] + static_cast<index_t>(length) &&
             rng() % 3 != 0)
        ++length;
      out.add(offsets[k], static_cast<index_t>(length));
      k += length;
    }
    out.finish();
    ASSERT_EQ(pieces, runs_of(offsets)) << "trial " << t;
  }
}

TEST(IndexSchedule, TheHeaderExample) {
  const std::vector<index_t> sends{0, 4, 5, 6}, receives{9, 7, 3};
  const std::vector<int> send_counts{1, 3}, receive_counts{1, 2};
  const Schedule s = index_schedule(0, sends, send_counts, receives, receive_counts);
  ASSERT_EQ(s.sends.size(), 1u);
  EXPECT_EQ(s.sends[0].peer, 1);
  EXPECT_EQ(s.sends[0].elements, 3);
  ASSERT_EQ(s.sends[0].blocks.size(), 1u);
  EXPECT_TRUE(s.contiguous(s.sends[0].blocks[0]));  // sent straight from the array
  EXPECT_EQ(s.contiguous_offset(s.sends[0].blocks[0]), 4);
  ASSERT_EQ(s.receives.size(), 1u);
  EXPECT_EQ(expand(s, s.receives[0].blocks[0]), (std::vector<index_t>{7, 3}));
  ASSERT_EQ(s.local_src.size(), 1u);
  EXPECT_EQ(expand(s, s.local_src[0]), (std::vector<index_t>{0}));
  EXPECT_EQ(expand(s, s.local_dst[0]), (std::vector<index_t>{9}));
  EXPECT_EQ(s.local_elements(), 1);
  EXPECT_FALSE(s.local_disjoint);
}

/// A simulated machine of `ranks` ranks with `size` elements each: every rank asks for random
/// elements (repeats and all owners included) and receives them into random distinct places.
/// Checks that each rank's schedule pairs with its peers' and that running all of them by hand
/// moves every requested element to its place.
TEST(IndexSchedule, SimulatedMachineMovesEveryRequestedElement) {
  std::mt19937_64 rng(2);
  for (int t = 0; t < 60; ++t) {
    const int ranks = 1 + static_cast<int>(rng() % 5);
    const auto size = static_cast<index_t>(1 + rng() % 30);
    const auto n = static_cast<std::size_t>(ranks);
    // want[r][q]: the (source offset on q, destination offset on r) pairs r asks q for.
    std::vector<std::vector<std::vector<std::pair<index_t, index_t>>>> want(
        n, std::vector<std::vector<std::pair<index_t, index_t>>>(n));
    for (std::size_t r = 0; r < n; ++r) {
      std::vector<index_t> places(static_cast<std::size_t>(size));
      for (std::size_t k = 0; k < places.size(); ++k) places[k] = static_cast<index_t>(k);
      std::shuffle(places.begin(), places.end(), rng);
      if (t % 2 == 0) std::sort(places.begin(), places.end());  // regular destinations
      const auto asked = rng() % (places.size() + 1);
      for (std::size_t k = 0; k < asked; ++k)
        want[r][rng() % n].emplace_back(static_cast<index_t>(rng() % static_cast<std::uint64_t>(size)), places[k]);
    }
    std::vector<Schedule> schedules;
    for (std::size_t r = 0; r < n; ++r) {
      std::vector<index_t> sends, receives;
      std::vector<int> send_counts(n), receive_counts(n);
      for (std::size_t q = 0; q < n; ++q) {
        for (const auto& [from, to] : want[q][r]) sends.push_back(from);  // what q asks of r, in q's order
        send_counts[q] = static_cast<int>(want[q][r].size());
        for (const auto& [from, to] : want[r][q]) receives.push_back(to);
        receive_counts[q] = static_cast<int>(want[r][q].size());
      }
      schedules.push_back(index_schedule(static_cast<int>(r), sends, send_counts, receives, receive_counts));
    }
    // Source element e of rank q holds 1000 * q + e; run every schedule by hand.
    std::vector<std::vector<index_t>> dst(n, std::vector<index_t>(static_cast<std::size_t>(size), -1));
    const auto src_value = [](std::size_t q, index_t e) { return static_cast<index_t>(1000 * q) + e; };
    for (std::size_t q = 0; q < n; ++q) {
      const Schedule& s = schedules[q];
      for (const PeerBlocks& p : s.sends) {
        const auto r = static_cast<std::size_t>(p.peer);
        const auto found = std::find_if(schedules[r].receives.begin(), schedules[r].receives.end(),
                                        [&](const PeerBlocks& x) { return x.peer == static_cast<int>(q); });
        ASSERT_NE(found, schedules[r].receives.end()) << "rank " << r << " expects nothing from " << q;
        const PeerBlocks* in = &*found;
        ASSERT_EQ(in->elements, p.elements);
        const auto from = expand(s, p.blocks[0]);
        const auto to = expand(schedules[r], in->blocks[0]);
        ASSERT_EQ(from.size(), to.size());
        for (std::size_t k = 0; k < from.size(); ++k) dst[r][static_cast<std::size_t>(to[k])] = src_value(q, from[k]);
      }
      for (std::size_t b = 0; b < s.local_src.size(); ++b) {
        const auto from = expand(s, s.local_src[b]);
        const auto to = expand(s, s.local_dst[b]);
        ASSERT_EQ(from.size(), to.size());
        for (std::size_t k = 0; k < from.size(); ++k) dst[q][static_cast<std::size_t>(to[k])] = src_value(q, from[k]);
      }
    }
    for (std::size_t r = 0; r < n; ++r) {
      index_t expected_receives = 0;
      for (std::size_t q = 0; q < n; ++q) {
        for (const auto& [from, to] : want[r][q]) ASSERT_EQ(dst[r][static_cast<std::size_t>(to)], src_value(q, from));
        if (q != r) expected_receives += static_cast<index_t>(want[r][q].size());
      }
      ASSERT_EQ(schedules[r].receive_elements(), expected_receives);
      for (std::size_t k = 1; k < schedules[r].sends.size(); ++k)
        ASSERT_LT(schedules[r].sends[k - 1].peer, schedules[r].sends[k].peer);
    }
  }
}

TEST(IndexSchedule, RegularPatternsGiveFewRuns) {
  // Rank 1 of 2 asks rank 0 for a whole 8x8 block's column 2 into its contiguous elements 0..7.
  std::vector<index_t> column;
  for (index_t k = 0; k < 8; ++k) column.push_back(2 + 8 * k);
  const std::vector<index_t> nothing, into{0, 1, 2, 3, 4, 5, 6, 7};
  const std::vector<int> eight_to_1{0, 8}, none{0, 0}, eight_from_0{8, 0};
  const Schedule owner = index_schedule(0, column, eight_to_1, nothing, none);
  const Schedule asker = index_schedule(1, nothing, none, into, eight_from_0);
  EXPECT_EQ(owner.runs.size(), 1u);
  EXPECT_EQ(asker.runs.size(), 1u);
  EXPECT_TRUE(asker.contiguous(asker.receives[0].blocks[0]));
}

TEST(IndexSchedule, BadArgumentsThrow) {
  const std::vector<index_t> two{0, 1}, bad{0, -1};
  const std::vector<int> one_one{1, 1}, two_zero{2, 0}, zero_two{0, 2}, minus{-1, 3}, three{1, 1, 0};
  const auto expect_invalid = [](auto&& f, const char* needle) {
    try {
      f();
      ADD_FAILURE() << "no Error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument) << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_invalid([&] { (void)index_schedule(0, two, one_one, two, three); }, "receive_counts");
  expect_invalid([&] { (void)index_schedule(2, two, one_one, two, one_one); }, "'rank' = 2");
  expect_invalid([&] { (void)index_schedule(-1, two, one_one, two, one_one); }, "'rank' = -1");
  expect_invalid([&] { (void)index_schedule(0, two, minus, two, one_one); }, "send_counts[0]");
  expect_invalid([&] { (void)index_schedule(0, two, zero_two, two, one_one); }, "'receive_counts[0]' = 1");
  expect_invalid([&] { (void)index_schedule(0, two, two_zero, two, one_one); }, "'receive_counts[0]' = 1");
  expect_invalid([&] { (void)index_schedule(0, two, one_one, bad, one_one); }, "receive_offsets[1]");
  expect_invalid([&] { (void)index_schedule(0, two, one_one, two, std::vector<int>{1, 2}); }, "receive_offsets");
}

}  // namespace
}  // namespace tessera
