// AssociativeArray (array/associative_array.hpp) against a serial std::map replaying every rank's
// batches: a histogram accumulated from every rank (+= 1 with inserts), assignments, lookups in
// request order with and without a value for missing keys, reductions (sum, min, max, xor as a
// user operator), gather sorted by key, redistribution to a reseeded hash map and to a user map with two arrays
// following, and the arrays following removals.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "assoc_reference.hpp"
#include "counting_new.hpp"  // g_large_allocations: 64 KiB or more
#include "tessera/tessera.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

template <class Key>
class AssociativeArrayTest : public ::testing::Test {};
using KeyTypes = ::testing::Types<std::int64_t, std::string, Cell>;
TYPED_TEST_SUITE(AssociativeArrayTest, KeyTypes);

/// The array holds `want` exactly: gathered on rank 0, and each rank's local entries.
template <class Key, class T>
void expect_values(const AssociativeArray<Key, T>& a, const std::map<Key, T>& want) {
  const Communicator& comm = a.domain().comm();
  const auto all = a.gather_sorted(0);
  if (comm.rank() == 0) {
    EXPECT_EQ(all, (std::vector<std::pair<Key, T>>(want.begin(), want.end())));
  }
  const auto keys = a.domain().local_keys();
  const auto values = a.local_values();
  ASSERT_EQ(keys.size(), values.size());
  for (std::size_t k = 0; k < keys.size(); ++k) {
    ASSERT_TRUE(want.contains(keys[k]));
    EXPECT_EQ(values[k], want.at(keys[k]));
    EXPECT_EQ(a.domain().map().owner(keys[k], comm.size()), comm.rank());
  }
}

/// A histogram of every rank's batches (+= 1 per occurrence), with a second array of weights.
template <class Key>
void histogram(const KeyMap<Key>& map, const KeyMap<Key>& other) {
  Communicator comm(MPI_COMM_WORLD);
  AssociativeDomain<Key> dom(comm, map);
  AssociativeArray<Key, std::int64_t> count(dom);
  AssociativeArray<Key, double> weight(dom);
  std::map<Key, std::int64_t> want;
  std::map<Key, double> want_weight;
  for (int round = 0; round < 3; ++round) {
    for (int r = 0; r < comm.size(); ++r)
      for (const Key& k : batch_of<Key>(r, round, 0, 3 * count_of(r, round), 90)) ++want[k];
    const auto mine = batch_of<Key>(comm.rank(), round, 0, 3 * count_of(comm.rank(), round), 90);
    count.update(mine, std::vector<std::int64_t>(mine.size(), 1), std::plus<>{}, MissingKeys::insert);
    expect_values(count, want);
  }
  // Replace: every key gets 0.5 * its count, each key sent by one rank (not always its owner).
  std::vector<Key> asked;
  std::vector<double> halves;
  for (const auto& [k, n] : want) {
    want_weight[k] = 0.5 * static_cast<double>(n);
    if ((stable_hash(k) >> 7) % static_cast<std::uint64_t>(comm.size()) == static_cast<std::uint64_t>(comm.rank())) {
      asked.push_back(k);
      halves.push_back(0.5 * static_cast<double>(n));
    }
  }
  weight.update(asked, halves, ReplaceValue{});
  expect_values(weight, want_weight);

  // Lookups in request order, missing keys included.
  const auto probe = batch_of<Key>(comm.rank(), 9, 1, 17, 120);
  const auto got = count.lookup(probe, std::int64_t{-1});
  ASSERT_EQ(got.size(), probe.size());
  for (std::size_t i = 0; i < probe.size(); ++i) EXPECT_EQ(got[i], want.contains(probe[i]) ? want[probe[i]] : -1);

  // Reductions: the same on every rank, equal to the serial folds.
  std::int64_t total = 0, lo = std::numeric_limits<std::int64_t>::max(), hi = std::numeric_limits<std::int64_t>::min();
  for (const auto& [k, n] : want) total += n, lo = std::min(lo, n), hi = std::max(hi, n);
  EXPECT_EQ(count.reduce(WrappingPlus{}, std::int64_t{0}), total);
  EXPECT_EQ(count.reduce([](auto a, auto b) { return std::min(a, b); }, std::numeric_limits<std::int64_t>::max()), lo);
  EXPECT_EQ(count.reduce([](auto a, auto b) { return std::max(a, b); }, std::numeric_limits<std::int64_t>::min()), hi);
  EXPECT_EQ(count.reduce(std::bit_xor<>{}, std::int64_t{0}), [&] {
    std::int64_t x = 0;
    for (const auto& [k, n] : want) x ^= n;
    return x;
  }());

  // Redistribution: keys and both arrays' values move; the lookups answer as before.
  dom.redistribute(other);
  expect_values(count, want);
  expect_values(weight, want_weight);
  EXPECT_EQ(count.lookup(probe, std::int64_t{-1}), got);

  // Removals: the arrays follow (the last slot fills each hole).
  const auto gone = batch_of<Key>(comm.rank(), 11, 2, 9, 90);
  for (int r = 0; r < comm.size(); ++r)
    for (const Key& k : batch_of<Key>(r, 11, 2, 9, 90)) want.erase(k), want_weight.erase(k);
  dom.remove(gone);
  expect_values(count, want);
  expect_values(weight, want_weight);
  // Keys inserted by the domain get T{} in every array.
  const auto fresh = batch_of<Key>(comm.rank(), 12, 0, 4, 400);
  for (int r = 0; r < comm.size(); ++r)
    for (const Key& k : batch_of<Key>(r, 12, 0, 4, 400)) want.try_emplace(k, 0), want_weight.try_emplace(k, 0.0);
  dom.insert(fresh);
  expect_values(count, want);
  expect_values(weight, want_weight);
}

TYPED_TEST(AssociativeArrayTest, HistogramLookupsReductionsAndRedistributionToAnotherHash) {
  histogram<TypeParam>(KeyMap<TypeParam>(), KeyMap<TypeParam>::hashed(99));
}

TYPED_TEST(AssociativeArrayTest, RedistributionToAUserMapWithEmptyRanks) {
  // From the default hash to "rank 0 holds everything but a stable tenth": most ranks end empty.
  const KeyMap<TypeParam> skewed("skewed", [](const TypeParam& k, int ranks) {
    return stable_hash(k) % 10 == 3 ? ranks - 1 : 0;
  });
  histogram<TypeParam>(KeyMap<TypeParam>(), skewed);
}

/// A lookup's answers `got` (-1 for absent keys) and `there` (contains) for `asked`, against `want`.
template <class Key>
void expect_answers(const std::vector<Key>& asked, const std::vector<std::int64_t>& got, const std::vector<bool>& there,
                    const std::map<Key, std::int64_t>& want, int round) {
  ASSERT_EQ(got.size(), asked.size());
  ASSERT_EQ(there.size(), asked.size());
  for (std::size_t i = 0; i < asked.size(); ++i) {
    const auto it = want.find(asked[i]);
    EXPECT_EQ(got[i], it == want.end() ? -1 : it->second) << "round " << round << ", key " << i;
    EXPECT_EQ(there[i], it != want.end()) << "round " << round << ", key " << i;
  }
}

// A stream of batches whose sizes shrink, grow, are empty or jump on one rank, with accumulations,
// lookups with a missing value and membership tests, against a serial table (a guard for any
// exchange that keeps state from one batch to the next; bench/assoc-reuse-experiment.txt). Small
// batches arrive into the domain's receive room without an agreement (array/key_routing.hpp); the
// first batch, and the jump to 20000 keys on rank 0 (over 64 KiB: an update in round 6, a lookup
// in round 2), take the agreed path in between, and leave the domain's kept buffers larger than
// the small batches after them need (array/batch_buffers.hpp). Rank 0 alone releases its buffers
// before round 3, and every rank before round 7: the next batch must allocate them again.
TYPED_TEST(AssociativeArrayTest, BatchesThatShrinkGrowAndJumpMatchASerialTable) {
  using Key = TypeParam;
  Communicator comm(MPI_COMM_WORLD);
  AssociativeDomain<Key> dom(comm);
  AssociativeArray<Key, std::int64_t> count(dom);
  std::map<Key, std::int64_t> want;
  const auto size_of = [&](int r, int round) -> std::size_t {
    if (round == 4 && r == comm.size() - 1) return 3000;  // one rank's batch jumps
    if (round == 6 && r == 0) return 20000;               // beyond any rank's receive room
    return count_of(r, round) * static_cast<std::size_t>(8 - round % 4);
  };
  for (int round = 0; round < 9; ++round) {
    if ((round == 3 && comm.rank() == 0) || round == 7) {
      dom.release_buffers();
      EXPECT_EQ(dom.buffer_bytes(), 0u);
    }
    for (int r = 0; r < comm.size(); ++r)
      for (const Key& k : batch_of<Key>(r, round, 5, size_of(r, round), 400)) want[k] += 1;
    const auto mine = batch_of<Key>(comm.rank(), round, 5, size_of(comm.rank(), round), 400);
    count.update(mine, std::vector<std::int64_t>(mine.size(), 1), std::plus<>{}, MissingKeys::insert);
    const auto asked = batch_of<Key>(comm.rank(), round, 6, size_of(comm.rank(), 8 - round), 800);
    expect_answers(asked, count.lookup(asked, std::int64_t{-1}), dom.contains(asked), want, round);
  }
  expect_values(count, want);
}

// Large batches (more than 64 KiB of keys for some peer), the same ones each round: the first round
// sizes the domain's kept buffers (array/batch_buffers.hpp), the next ones reuse them — no growth,
// and no allocation of 64 KiB or more but the keys sent, an owner's answers and a lookup's result —
// and the answers stay right while the buffers are reused and after they are released.
TYPED_TEST(AssociativeArrayTest, RepeatedLargeBatchesReuseTheDomainsBuffers) {
  using Key = TypeParam;
  Communicator comm(MPI_COMM_WORLD);
  AssociativeDomain<Key> dom(comm);
  AssociativeArray<Key, std::int64_t> count(dom);
  std::map<Key, std::int64_t> want;
  constexpr std::size_t kKeys = 12000;  // 8-byte keys and values: 192 KB per batch
  std::size_t kept = 0;
  for (int round = 0; round < 5; ++round) {
    if (round == 3) {
      dom.release_buffers();
      EXPECT_EQ(dom.buffer_bytes(), 0u);
    }
    for (int r = 0; r < comm.size(); ++r)
      for (const Key& k : batch_of<Key>(r, 0, 7, kKeys, 3 * kKeys)) want[k] += round + 1;
    const auto mine = batch_of<Key>(comm.rank(), 0, 7, kKeys, 3 * kKeys);
    const std::vector<std::int64_t> values(mine.size(), round + 1);
    const auto asked = batch_of<Key>(comm.rank(), 0, 8, 2 * kKeys, 6 * kKeys);
    const long before = g_large_allocations.load();
    count.update(mine, values, std::plus<>{}, MissingKeys::insert);
    const long in_update = g_large_allocations.load() - before;
    const auto got = count.lookup(asked, std::int64_t{-1});
    const long in_lookup = g_large_allocations.load() - before - in_update;
    const auto there = dom.contains(asked);  // answers of one byte: under 64 KiB
    const long in_contains = g_large_allocations.load() - before - in_update - in_lookup;
    expect_answers(asked, got, there, want, round);
    if (round != 0 && round != 3) {
      EXPECT_EQ(in_update, 1) << "round " << round << ": the keys sent";
      EXPECT_EQ(in_lookup, 3) << "round " << round << ": the keys sent, the answers, the result";
      EXPECT_EQ(in_contains, 1) << "round " << round << ": the keys sent";
    }
    if (round == 0 || round == 3) {
      kept = dom.buffer_bytes();
      EXPECT_GT(kept, std::size_t{64} << 10) << "round " << round;
    } else {
      EXPECT_EQ(dom.buffer_bytes(), kept) << "round " << round << ": a batch no larger than before grew the buffers";
    }
  }
  expect_values(count, want);
}

TEST(AssociativeArray, WordCountAgainstASerialCount) {
  Communicator comm(MPI_COMM_WORLD);
  AssociativeDomain<std::string> words(comm);
  AssociativeArray<std::string, std::int64_t> count(words);
  const std::vector<std::string> text{"the", "cat", "sat", "on", "the", "mat", "the", "end"};
  // Rank r counts words r, r + P, ...; the serial count is the whole text.
  std::vector<std::string> mine;
  for (std::size_t i = static_cast<std::size_t>(comm.rank()); i < text.size(); i += static_cast<std::size_t>(comm.size()))
    mine.push_back(text[i]);
  count.update(mine, std::vector<std::int64_t>(mine.size(), 1), std::plus<>{}, MissingKeys::insert);
  EXPECT_EQ(count.lookup(std::vector<std::string>{"the", "mat", "end"}), (std::vector<std::int64_t>{3, 1, 1}));
  EXPECT_EQ(words.size(), 6);
  EXPECT_EQ(count.reduce(std::plus<>{}, std::int64_t{0}), 8);
}

}  // namespace
}  // namespace tessera
