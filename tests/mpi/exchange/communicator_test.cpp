#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tessera/exchange/communicator.hpp"

namespace tessera {
namespace {

TEST(Communicator, DuplicatesTheUsersCommunicator) {
  Communicator comm(MPI_COMM_WORLD);
  int world_rank = 0, world_size = 0, relation = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  MPI_Comm_compare(comm.raw(), MPI_COMM_WORLD, &relation);
  EXPECT_EQ(relation, MPI_CONGRUENT) << "same group, different context";
  EXPECT_EQ(comm.rank(), world_rank);
  EXPECT_EQ(comm.size(), world_size);
}

TEST(Communicator, MessagesDoNotCrossIntoTheUsersCommunicator) {
  Communicator comm(MPI_COMM_WORLD);
  const int payload = 42 + comm.rank();
  MPI_Request request;
  MPI_Isend(&payload, 1, MPI_INT, comm.rank(), 7, comm.raw(), &request);
  int on_world = 1, on_ours = 0;
  MPI_Iprobe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &on_world, MPI_STATUS_IGNORE);
  EXPECT_EQ(on_world, 0) << "a message sent on tessera's duplicate matched a probe on MPI_COMM_WORLD";
  while (!on_ours) MPI_Iprobe(comm.rank(), 7, comm.raw(), &on_ours, MPI_STATUS_IGNORE);
  int received = -1;
  MPI_Recv(&received, 1, MPI_INT, comm.rank(), 7, comm.raw(), MPI_STATUS_IGNORE);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  EXPECT_EQ(received, payload);
}

TEST(Communicator, MpiErrorsBecomeTesseraErrorsWithMpisText) {
  Communicator comm(MPI_COMM_WORLD);
  const int value = 1;
  try {
    check_mpi(MPI_Send(&value, 1, MPI_INT, comm.size() + 3, 0, comm.raw()), "MPI_Send");
    FAIL() << "sending to a rank that does not exist did not raise";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::mpi);
    const std::string what = e.what();
    EXPECT_NE(what.find("MPI_Send failed: "), std::string::npos) << what;
    EXPECT_NE(what.find("rank"), std::string::npos) << "MPI's own error string is missing: " << what;
  }
  EXPECT_THROW(Communicator bad(MPI_COMM_NULL), Error);
}

TEST(Communicator, MovesTransferOwnership) {
  Communicator a(MPI_COMM_WORLD);
  const MPI_Comm raw = a.raw();
  Communicator b(std::move(a));
  EXPECT_EQ(b.raw(), raw);
  EXPECT_EQ(a.raw(), MPI_COMM_NULL);  // NOLINT(bugprone-use-after-move): checking the moved-from state
  Communicator c = b.duplicate();
  EXPECT_NE(c.raw(), b.raw());
  c = std::move(b);  // frees c's old duplicate
  EXPECT_EQ(c.raw(), raw);
  c.barrier();
}

// The typed collectives below are checked against serial references: what every rank contributes
// is a function of its rank, so each rank can compute the expected result by itself.

struct Tagged {  // a trivially copyable item that is not a plain number
  std::int32_t from = -1;
  std::int32_t to = -1;
  double payload = 0;
  friend bool operator==(const Tagged&, const Tagged&) = default;
};

TEST(Communicator, WtimeMeasuresForwardTime) {
  const double a = Communicator::wtime();
  double b = a;
  while (b == a) b = Communicator::wtime();  // the clock ticks, and only forward
  EXPECT_GT(b, a);
  EXPECT_LT(b - a, 1.0);
  EXPECT_TRUE(mpi_initialized());
  EXPECT_FALSE(mpi_finalized());
}

TEST(Communicator, BcastCopiesTheRootsDataFromEveryRoot) {
  Communicator comm(MPI_COMM_WORLD);
  for (int root = 0; root < comm.size(); ++root)
    for (std::size_t length : {std::size_t{0}, std::size_t{1}, std::size_t{1000}}) {
      std::vector<Tagged> data(length, Tagged{comm.rank(), -comm.rank(), 0.5 * comm.rank()});
      comm.bcast(std::span<Tagged>(data), root);
      for (const Tagged& t : data) EXPECT_EQ(t, (Tagged{root, -root, 0.5 * root})) << "root " << root;
    }
  std::vector<char> none;  // an empty vector has no buffer: MPI must not be handed a null pointer
  comm.bcast(std::span<char>(none), 0);
}

TEST(Communicator, AllgatherCollectsEveryRanksValueInRankOrder) {
  Communicator comm(MPI_COMM_WORLD);
  const auto ints = comm.allgather(std::int64_t{10} * comm.rank() - 3);
  const auto items = comm.allgather(Tagged{comm.rank(), comm.size(), 1.0 / (comm.rank() + 1)});
  const auto doubles = comm.allgather(0.25 * comm.rank());  // the existing double overload
  ASSERT_EQ(ints.size(), static_cast<std::size_t>(comm.size()));
  ASSERT_EQ(items.size(), static_cast<std::size_t>(comm.size()));
  for (int r = 0; r < comm.size(); ++r) {
    const auto i = static_cast<std::size_t>(r);
    EXPECT_EQ(ints[i], std::int64_t{10} * r - 3);
    EXPECT_EQ(items[i], (Tagged{r, comm.size(), 1.0 / (r + 1)}));
    EXPECT_EQ(doubles[i], 0.25 * r);
  }
}

// Rank r contributes `count(r)` items numbered from r * 100.
void expect_allgatherv(const Communicator& comm, int (*count)(int)) {
  std::vector<std::int32_t> mine;
  for (int k = 0; k < count(comm.rank()); ++k) mine.push_back(comm.rank() * 100 + k);
  std::vector<std::int32_t> expected;
  std::vector<int> expected_counts;
  for (int r = 0; r < comm.size(); ++r) {
    expected_counts.push_back(count(r));
    for (int k = 0; k < count(r); ++k) expected.push_back(r * 100 + k);
  }
  std::vector<int> counts;
  EXPECT_EQ(comm.allgatherv<std::int32_t>(mine, &counts), expected);
  EXPECT_EQ(counts, expected_counts);
  EXPECT_EQ(comm.allgatherv<std::int32_t>(mine), expected) << "without the counts";
}

TEST(Communicator, AllgathervConcatenatesUnevenAndEmptyContributions) {
  Communicator comm(MPI_COMM_WORLD);
  expect_allgatherv(comm, [](int r) { return r; });              // rank 0 empty, the rest uneven
  expect_allgatherv(comm, [](int r) { return r % 2 == 0 ? 3 : 0; });
  expect_allgatherv(comm, [](int) { return 0; });                // nothing anywhere
  expect_allgatherv(comm, [](int r) { return 2000 - 7 * r; });
}

// Rank r sends `count(r, q)` items to rank q, each naming sender, receiver and position.
void expect_alltoallv(const Communicator& comm, int (*count)(int, int)) {
  const int me = comm.rank();
  std::vector<Tagged> items;
  std::vector<int> counts;
  for (int q = 0; q < comm.size(); ++q) {
    counts.push_back(count(me, q));
    for (int k = 0; k < count(me, q); ++k) items.push_back(Tagged{me, q, static_cast<double>(k)});
  }
  std::vector<Tagged> expected;
  std::vector<int> expected_counts;
  for (int r = 0; r < comm.size(); ++r) {
    expected_counts.push_back(count(r, me));
    for (int k = 0; k < count(r, me); ++k) expected.push_back(Tagged{r, me, static_cast<double>(k)});
  }
  std::vector<int> received;
  EXPECT_EQ(comm.alltoallv<Tagged>(items, counts, &received), expected);
  EXPECT_EQ(received, expected_counts);
  EXPECT_EQ(comm.alltoallv<Tagged>(items, counts), expected) << "without the received counts";
  // The same exchange with counts both sides know: no counts travel, `out` allocated beforehand.
  std::vector<Tagged> out(expected.size());
  comm.alltoallv_known<Tagged>(items, counts, out, expected_counts);
  EXPECT_EQ(out, expected) << "alltoallv_known";
}

TEST(Communicator, AlltoallDeliversOneItemFromEachRank) {
  Communicator comm(MPI_COMM_WORLD);
  std::vector<Tagged> mine;
  for (int q = 0; q < comm.size(); ++q) mine.push_back(Tagged{comm.rank(), q, 0.5 * q});
  std::vector<Tagged> expected;
  for (int r = 0; r < comm.size(); ++r) expected.push_back(Tagged{r, comm.rank(), 0.5 * comm.rank()});
  EXPECT_EQ(comm.alltoall<Tagged>(mine), expected);
  mine.pop_back();  // one item short: a caller's bug, reported on this rank before any message
  EXPECT_THROW((void)comm.alltoall<Tagged>(mine), Error);
}

TEST(Communicator, AlltoallvDeliversItemsGroupedBySource) {
  Communicator comm(MPI_COMM_WORLD);
  expect_alltoallv(comm, [](int r, int q) { return (r + 2 * q) % 3; });  // uneven, some pairs empty
  expect_alltoallv(comm, [](int r, int q) { return r == q ? 5 : 0; });   // only to oneself
  expect_alltoallv(comm, [](int, int) { return 0; });                    // nothing at all
  expect_alltoallv(comm, [](int r, int) { return r == 0 ? 1000 : 0; });  // one sender
  // Receives of kAgreedReceiveBytes or more take the allocation agreement (24-byte items).
  expect_alltoallv(comm, [](int r, int q) { return q == 0 ? 3000 + r : 1; });  // rank 0 gets 72 KB or more
}

TEST(Communicator, AlltoallvAgreesOnTheCallersErrorBeforeExchanging) {
  Communicator comm(MPI_COMM_WORLD);
  for (const int failing : {comm.size() - 1, 0}) {
    // Every rank offers items (zero counts on the failing rank, as documented); none arrives.
    std::optional<Error> mine;
    std::vector<int> counts(static_cast<std::size_t>(comm.size()), 1);
    std::vector<int> items(static_cast<std::size_t>(comm.size()), comm.rank());
    if (comm.rank() == failing) {
      mine = Error(ErrorCode::out_of_range, detail::concat("the caller failed on rank ", failing));
      counts.assign(counts.size(), 0);
      items.clear();
    }
    std::vector<int> received{-1};
    try {
      (void)comm.alltoallv<int>(items, counts, &received, mine);
      ADD_FAILURE() << "rank " << failing << " passed an error, but this rank did not throw";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::out_of_range);
      EXPECT_EQ(std::string(e.what()), detail::concat("the caller failed on rank ", failing));
    }
  }
  // And the communicator is usable afterwards, its messages not mixed with the refused ones.
  expect_alltoallv(comm, [](int r, int q) { return (r + q) % 2; });
}

TEST(Communicator, AlltoallvRejectsCountsThatDoNotDescribeTheItems) {
  Communicator comm(MPI_COMM_WORLD);
  const std::vector<int> items(3, 7);
  const std::vector<int> too_few(static_cast<std::size_t>(comm.size()) + 1, 0);
  EXPECT_THROW((void)comm.alltoallv<int>(items, too_few), Error);
  std::vector<int> wrong_total(static_cast<std::size_t>(comm.size()), 0);
  wrong_total[0] = 2;
  try {
    (void)comm.alltoallv<int>(items, wrong_total);
    FAIL() << "counts adding up to 2 for 3 items were accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("Communicator::alltoallv"), std::string::npos) << e.what();
  }
  comm.barrier();  // the communicator is still usable
}

TEST(Communicator, AllreduceOfScalarsMatchesTheSerialReduction) {
  Communicator comm(MPI_COMM_WORLD);
  const int p = comm.size(), me = comm.rank();
  EXPECT_EQ(comm.allreduce(me + 1, ReduceOp::sum), p * (p + 1) / 2);
  EXPECT_EQ(comm.allreduce(std::int64_t{me} - 2, ReduceOp::min), std::int64_t{-2});
  EXPECT_EQ(comm.allreduce(std::uint64_t{1} << 40 | static_cast<std::uint64_t>(me), ReduceOp::max),
            std::uint64_t{1} << 40 | static_cast<std::uint64_t>(p - 1));
  EXPECT_EQ(comm.allreduce(static_cast<std::int8_t>(-me), ReduceOp::min), static_cast<std::int8_t>(1 - p));
  EXPECT_EQ(comm.allreduce(static_cast<unsigned short>(me), ReduceOp::sum), p * (p - 1) / 2);
  EXPECT_EQ(comm.allreduce(0.5 * me, ReduceOp::max), 0.5 * (p - 1));
  EXPECT_EQ(comm.allreduce(0.25F, ReduceOp::sum), 0.25F * static_cast<float>(p));
  EXPECT_EQ(comm.allreduce(static_cast<long double>(me), ReduceOp::sum), static_cast<long double>(p * (p - 1) / 2));
  EXPECT_EQ(comm.allreduce(me == 0, ReduceOp::logical_or), true);
  EXPECT_EQ(comm.allreduce(me == 0, ReduceOp::logical_and), p == 1);
  EXPECT_EQ(comm.allreduce(me + 1, ReduceOp::logical_and), 1);
  EXPECT_EQ(comm.allreduce(std::numeric_limits<double>::infinity(), ReduceOp::min),
            std::numeric_limits<double>::infinity());
}

TEST(Communicator, AllreduceOfASpanReducesEachEntryInPlace) {
  Communicator comm(MPI_COMM_WORLD);
  const int p = comm.size(), me = comm.rank();
  std::vector<std::int64_t> values{me, -me, 7, static_cast<std::int64_t>(me) * me};
  comm.allreduce(std::span<std::int64_t>(values), ReduceOp::sum);
  std::vector<std::int64_t> expected{0, 0, 7 * p, 0};
  for (int r = 0; r < p; ++r) {
    expected[0] += r;
    expected[1] -= r;
    expected[3] += static_cast<std::int64_t>(r) * r;
  }
  EXPECT_EQ(values, expected);
  std::vector<double> highs{1.0 * me, -1.0 * me};
  comm.allreduce(std::span<double>(highs), ReduceOp::max);
  EXPECT_EQ(highs, (std::vector<double>{p - 1.0, 0.0}));
  std::vector<int> none;
  comm.allreduce(std::span<int>(none), ReduceOp::min);  // empty: still a (null-free) collective
  EXPECT_TRUE(none.empty());
}

TEST(Communicator, AllreduceRefusesLogicalOperationsOnFloatingPoint) {
  Communicator comm(MPI_COMM_WORLD);
  try {
    (void)comm.allreduce(1.0, ReduceOp::logical_and);
    FAIL() << "a logical AND of doubles was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
  }
}

// Runs `agree` with an error on the ranks `fails` picks; returns what this rank caught.
std::optional<Error> agree_outcome(const Communicator& comm, bool (*fails)(int rank, int size)) {
  std::optional<Error> mine;
  if (fails(comm.rank(), comm.size()))
    mine = Error(comm.rank() % 2 == 0 ? ErrorCode::io : ErrorCode::out_of_range,
                 detail::concat("failure on rank ", comm.rank()));
  try {
    comm.agree(mine);
  } catch (const Error& e) {
    return e;
  }
  return std::nullopt;
}

void expect_agreed_error(const std::optional<Error>& caught, int lowest) {
  ASSERT_TRUE(caught.has_value()) << "rank " << lowest << " failed, but this rank did not throw";
  EXPECT_EQ(caught->code(), lowest % 2 == 0 ? ErrorCode::io : ErrorCode::out_of_range);
  EXPECT_EQ(std::string(caught->what()), detail::concat("failure on rank ", lowest));
}

TEST(Communicator, AgreeReturnsNormallyWhenNoRankFailed) {
  Communicator comm(MPI_COMM_WORLD);
  EXPECT_FALSE(agree_outcome(comm, [](int, int) { return false; }).has_value());
}

TEST(Communicator, AgreeThrowsTheOneFailingRanksErrorEverywhere) {
  Communicator comm(MPI_COMM_WORLD);
  expect_agreed_error(agree_outcome(comm, [](int r, int p) { return r == p - 1; }), comm.size() - 1);
  expect_agreed_error(agree_outcome(comm, [](int r, int) { return r == 0; }), 0);
}

TEST(Communicator, AgreeThrowsTheLowestFailingRanksErrorWhenSeveralFailed) {
  Communicator comm(MPI_COMM_WORLD);
  if (comm.size() > 1) expect_agreed_error(agree_outcome(comm, [](int r, int) { return r % 2 == 1; }), 1);
  expect_agreed_error(agree_outcome(comm, [](int r, int p) { return r >= p / 2; }), comm.size() / 2);
  expect_agreed_error(agree_outcome(comm, [](int, int) { return true; }), 0);
}

TEST(Communicator, AgreeCarriesAnEmptyMessage) {
  Communicator comm(MPI_COMM_WORLD);
  std::optional<Error> mine;
  if (comm.rank() == comm.size() - 1) mine = Error(ErrorCode::mismatch, "");
  try {
    comm.agree(mine);
    FAIL() << "no rank threw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::mismatch);
    EXPECT_STREQ(e.what(), "");
  }
}

}  // namespace
}  // namespace tessera
