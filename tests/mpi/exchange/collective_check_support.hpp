#pragma once
// Shared pieces of the checked-mode tests: a scope that turns checked mode on or off, the
// expectation that a call fails alike on every rank, and snapshots of what a failed call must
// leave as it was.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/array/dist_array.hpp"
#include "tessera/array/domain.hpp"
#include "tessera/exchange/collective_check.hpp"

namespace tessera::testing {

/// Sets checked mode for one test and restores the previous setting afterwards.
class CheckedModeFor {
 public:
  explicit CheckedModeFor(bool on) : before_(checked_mode()) { set_checked_mode(on); }
  ~CheckedModeFor() { set_checked_mode(before_); }
  CheckedModeFor(const CheckedModeFor&) = delete;
  CheckedModeFor& operator=(const CheckedModeFor&) = delete;

 private:
  bool before_;
};

/// Runs `call` (whose operation or arguments differ on some ranks) and expects `Error(mismatch)`
/// on every rank, with the same message everywhere (compared with rank 0's), containing every
/// fragment.
template <class Call>
void expect_mismatch_everywhere(const Communicator& comm, Call&& call, std::initializer_list<std::string_view> fragments) {
  std::string message;
  int code = -1;
  try {
    call();
  } catch (const Error& e) {
    message = e.what();
    code = static_cast<int>(e.code());
  }
  EXPECT_EQ(code, static_cast<int>(ErrorCode::mismatch)) << "rank " << comm.rank() << ": " << message;
  for (std::string_view f : fragments)
    EXPECT_NE(message.find(f), std::string::npos) << "rank " << comm.rank() << ": '" << f << "' not in: " << message;
  int length = static_cast<int>(message.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, comm.raw());
  std::string root(static_cast<std::size_t>(length), '\0');
  if (comm.rank() == 0) root = message;
  MPI_Bcast(root.data(), length, MPI_CHAR, 0, comm.raw());
  EXPECT_EQ(message, root) << "rank " << comm.rank() << " got another message than rank 0";
}

/// What a failed collective call must leave untouched: the distribution and every stored byte,
/// ghosts included.
template <class T, std::size_t N>
struct Kept {
  explicit Kept(const DistArray<T, N>& a)
      : array(&a), dist(a.distribution()), bytes(a.storage().size_bytes()) {
    if (!bytes.empty()) std::memcpy(bytes.data(), a.storage().data(), bytes.size());
  }
  void expect_unchanged() const {
    EXPECT_TRUE(array->distribution() == dist) << "the distribution changed to " << array->distribution();
    ASSERT_EQ(array->storage().size_bytes(), bytes.size()) << "the storage was reshaped";
    EXPECT_TRUE(bytes.empty() || std::memcmp(bytes.data(), array->storage().data(), bytes.size()) == 0)
        << "stored values changed";
  }
  const DistArray<T, N>* array;
  Distribution<N> dist;
  std::vector<unsigned char> bytes;
};

/// A 12x12 domain over every rank (rows, block) with two arrays `a` and `b` of one shape and one
/// ghost layer; `cols` is another distribution of the same box. Rank 1 is the one the tests make
/// call differently.
struct CheckedFixture {
  Communicator comm{MPI_COMM_WORLD};
  Box<2> box{{0, 0}, {12, 12}};
  Distribution<2> rows{box, ProcGrid<2>::with_shape(comm.size(), {comm.size(), 1}), {block(), collapsed()}};
  Distribution<2> cols{box, ProcGrid<2>::with_shape(comm.size(), {1, comm.size()}), {collapsed(), block()}};
  Domain<2> dom{comm, rows};
  DistArray<double, 2> a{dom, ghosts<2>(1)};
  DistArray<double, 2> b{dom, ghosts<2>(1)};

  CheckedFixture() {
    a.for_each_owned([](const Point<2>& p, double& x) { x = static_cast<double>(100 * p[0] + p[1]); });
    b.for_each_owned([](const Point<2>& p, double& x) { x = -static_cast<double>(100 * p[0] + p[1]); });
  }
  [[nodiscard]] bool odd() const { return comm.rank() == 1; }
};

}  // namespace tessera::testing
