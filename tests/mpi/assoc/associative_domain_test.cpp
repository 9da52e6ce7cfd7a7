// AssociativeDomain (array/associative_domain.hpp) against a serial std::set replaying every rank's
// batches: random inserts and removals with duplicates within and across ranks, lookups of present
// and missing keys, empty batches, for integer, string and user-struct keys, under the default hash
// map, a reseeded hash map and a user map that leaves ranks empty.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "assoc_reference.hpp"
#include "tessera/tessera.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;

template <class Key>
class AssociativeDomainTest : public ::testing::Test {};
using KeyTypes = ::testing::Types<std::int64_t, std::string, Cell>;
TYPED_TEST_SUITE(AssociativeDomainTest, KeyTypes);

/// Every local key is owned here under the domain's map, and the keys over all ranks are `want`.
template <class Key>
void expect_holds(const AssociativeDomain<Key>& dom, const std::set<Key>& want) {
  const Communicator& comm = dom.comm();
  for (const Key& k : dom.local_keys()) {
    EXPECT_EQ(dom.map().owner(k, comm.size()), comm.rank());
    ASSERT_TRUE(dom.local_slot(k).has_value());
  }
  EXPECT_EQ(dom.size(), static_cast<index_t>(want.size()));
  const std::vector<Key> all = dom.gather_sorted(comm.size() - 1);
  if (comm.rank() == comm.size() - 1)
    EXPECT_EQ(all, std::vector<Key>(want.begin(), want.end()));
  else
    EXPECT_TRUE(all.empty());
}

template <class Key>
void random_history(AssociativeDomain<Key>& dom, std::uint64_t universe) {
  const Communicator& comm = dom.comm();
  std::set<Key> want;
  for (int round = 0; round < 4; ++round) {
    for (int r = 0; r < comm.size(); ++r)
      for (const Key& k : batch_of<Key>(r, round, 0, count_of(r, round), universe)) want.insert(k);
    dom.insert(batch_of<Key>(comm.rank(), round, 0, count_of(comm.rank(), round), universe));
    expect_holds(dom, want);

    const std::vector<Key> asked = batch_of<Key>(comm.rank(), round, 1, count_of(comm.rank(), round + 1) + 3, universe);
    const std::vector<bool> found = dom.contains(asked);
    ASSERT_EQ(found.size(), asked.size());
    for (std::size_t i = 0; i < asked.size(); ++i) EXPECT_EQ(found[i], want.contains(asked[i])) << "position " << i;

    for (int r = 0; r < comm.size(); ++r)
      for (const Key& k : batch_of<Key>(r, round, 2, count_of(r, round + 2) / 2, universe)) want.erase(k);
    dom.remove(batch_of<Key>(comm.rank(), round, 2, count_of(comm.rank(), round + 2) / 2, universe));
    expect_holds(dom, want);
  }
}

TYPED_TEST(AssociativeDomainTest, RandomBatchesUnderTheDefaultHashMap) {
  Communicator comm(MPI_COMM_WORLD);
  AssociativeDomain<TypeParam> dom(comm);
  random_history(dom, 60);
}

TYPED_TEST(AssociativeDomainTest, RandomBatchesUnderASeededHashMap) {
  Communicator comm(MPI_COMM_WORLD);
  AssociativeDomain<TypeParam> dom(comm, KeyMap<TypeParam>::hashed(12345));
  random_history(dom, 200);
}

TYPED_TEST(AssociativeDomainTest, AUserMapThatLeavesRanksEmpty) {
  Communicator comm(MPI_COMM_WORLD);
  // Everything on the last rank: every other rank holds nothing, yet asks and inserts.
  AssociativeDomain<TypeParam> dom(comm, KeyMap<TypeParam>("last rank", [](const TypeParam&, int ranks) { return ranks - 1; }));
  random_history(dom, 40);
  if (comm.rank() != comm.size() - 1) {
    EXPECT_EQ(dom.local_size(), 0u);
  }
}

TEST(AssociativeDomain, StableHashesOfBuiltInKeysAreFixed) {
  // The values are part of the contract (the same owner in every run and build): pinned here.
  EXPECT_EQ(stable_hash(std::string("dog")), hash_text("dog"));
  EXPECT_EQ(stable_hash(std::string("dog")), stable_hash(std::string_view("dog")));
  EXPECT_NE(stable_hash(std::int32_t{7}), stable_hash(std::int64_t{7}));
  EXPECT_EQ(hash_text(""), hash_combine(0xcbf29ce484222325ULL, 0));
  static_assert(StablyHashable<std::pair<std::string, int>>);
  static_assert(StablyHashable<std::array<std::int16_t, 3>>);
  static_assert(!StablyHashable<double>, "0.0 == -0.0 with different bits: no stable hash for floating keys");
  static_assert(!StablyHashable<std::vector<int>>);
  static_assert(StablyHashable<Cell>);
}

TEST(AssociativeDomain, RemovingEverythingAndInsertingAgain) {
  Communicator comm(MPI_COMM_WORLD);
  AssociativeDomain<std::int64_t> dom(comm);
  std::vector<std::int64_t> mine;
  for (std::int64_t k = comm.rank(); k < 50; k += comm.size()) mine.push_back(k);
  dom.insert(mine);
  EXPECT_EQ(dom.size(), 50);
  dom.remove(mine);
  dom.remove(mine);  // a second time: nothing left to remove
  EXPECT_EQ(dom.size(), 0);
  dom.insert(mine);
  expect_holds(dom, [] {
    std::set<std::int64_t> s;
    for (std::int64_t k = 0; k < 50; ++k) s.insert(k);
    return s;
  }());
}

}  // namespace
}  // namespace tessera
