// Bad input to associative domains and arrays: the same tessera::Error on every rank, raised before
// anything changed (the domain and its arrays hold what they held). A key type with no stable hash
// at all is a compile-time error instead (the test assoc.no_stable_hash_does_not_compile).
#include <gtest/gtest.h>
#include <mpi.h>

#include <functional>
#include <string>
#include <vector>

#include "tessera/tessera.hpp"

namespace tessera {
namespace {

/// Runs `f`, which must throw `Error(code)` on this rank; returns the message.
template <class F>
std::string error_of(F&& f, ErrorCode code) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

/// A word count over ranks with keys 0..19 inserted, each with value 10 * key.
struct Filled {
  Communicator comm{MPI_COMM_WORLD};
  AssociativeDomain<std::int64_t> dom{comm};
  AssociativeArray<std::int64_t, std::int64_t> a{dom};
  Filled() {
    std::vector<std::int64_t> keys, values;
    for (std::int64_t k = comm.rank(); k < 20; k += comm.size()) keys.push_back(k), values.push_back(10 * k);
    a.update(keys, values, ReplaceValue{}, MissingKeys::insert);
  }
  void expect_unchanged() const {
    const auto all = a.gather_sorted(0);
    if (comm.rank() == 0) {
      ASSERT_EQ(all.size(), 20u);
      for (std::int64_t k = 0; k < 20; ++k) EXPECT_EQ(all[static_cast<std::size_t>(k)], std::make_pair(k, 10 * k));
    }
  }
};

TEST(AssociativeErrors, AMapOwnerOutsideTheRanksFailsEverywhereWithNothingMoved) {
  Filled f;
  const KeyMap<std::int64_t> broken("broken", [](const std::int64_t& k, int ranks) { return k == 7 ? ranks : 0; });
  const std::string m = error_of([&] { f.dom.redistribute(broken); }, ErrorCode::invalid_argument);
  EXPECT_NE(m.find("outside the"), std::string::npos) << m;  // the agreed message, on every rank
  EXPECT_EQ(f.dom.map().name(), "hash(seed 0)");
  f.expect_unchanged();
  AssociativeDomain<std::int64_t> d2(f.comm, broken);
  // Only rank 0 inserts the bad key; every rank fails.
  error_of([&] { d2.insert(f.comm.rank() == 0 ? std::vector<std::int64_t>{1, 7} : std::vector<std::int64_t>{2}); },
           ErrorCode::invalid_argument);
  EXPECT_EQ(d2.size(), 0);
}

TEST(AssociativeErrors, MismatchedValuesOnOneRankFailEverywhere) {
  Filled f;
  const bool last = f.comm.rank() == f.comm.size() - 1;
  const std::vector<std::int64_t> keys{1, 2, 3};
  const std::vector<std::int64_t> values(last ? 2 : 3, 5);
  const std::string m = error_of([&] { f.a.update(keys, values, std::plus<>{}); }, ErrorCode::invalid_argument);
  EXPECT_NE(m.find("2 values for 3 keys on rank " + std::to_string(f.comm.size() - 1)), std::string::npos) << m;
  f.expect_unchanged();
}

TEST(AssociativeErrors, MissingKeysInStrictLookupsAndUpdatesFailEverywhere) {
  Filled f;
  // Only rank 0 asks for a key that is not there.
  const std::vector<std::int64_t> asked = f.comm.rank() == 0 ? std::vector<std::int64_t>{3, 99} : std::vector<std::int64_t>{4};
  error_of([&] { (void)f.a.lookup(asked); }, ErrorCode::out_of_range);
  error_of([&] { f.a.update(asked, std::vector<std::int64_t>(asked.size(), 1), std::plus<>{}); }, ErrorCode::out_of_range);
  f.expect_unchanged();
  EXPECT_EQ(f.dom.size(), 20);
}

TEST(AssociativeErrors, ABadRootFailsEverywhere) {
  Filled f;
  error_of([&] { (void)f.a.gather_sorted(f.comm.size()); }, ErrorCode::invalid_argument);
  error_of([&] { (void)f.dom.gather_sorted(-1); }, ErrorCode::invalid_argument);
}

/// A key whose hash differs between ranks (it folds in the rank): what checked mode must catch.
struct RankDependent {
  std::int64_t k = 0;
  friend bool operator==(const RankDependent&, const RankDependent&) = default;
};
int g_rank = 0;

}  // namespace

template <>
struct StableHash<RankDependent> {
  std::uint64_t operator()(const RankDependent& key) const { return stable_hash(key.k + g_rank); }
};

namespace {

TEST(AssociativeErrors, AHashThatDiffersBetweenRanksIsAMismatchInCheckedMode) {
  Communicator comm(MPI_COMM_WORLD);
  if (comm.size() == 1) GTEST_SKIP() << "one rank owns every key whatever the hash";
  g_rank = comm.rank();
  AssociativeDomain<RankDependent> dom(comm);
  std::vector<RankDependent> keys;
  for (std::int64_t k = 0; k < 40; ++k) keys.push_back({k});
  set_checked_mode(true);
  const std::string m = error_of([&] { dom.insert(keys); }, ErrorCode::mismatch);
  set_checked_mode(false);
  EXPECT_NE(m.find("tessera::StableHash"), std::string::npos) << m;
  EXPECT_EQ(dom.size(), 0);
}

}  // namespace
}  // namespace tessera
