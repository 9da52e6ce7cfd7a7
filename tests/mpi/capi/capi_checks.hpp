#pragma once
// Helpers for the C API tests: status checks that print tessera's message, checks of what the
// message names, and a fixture that makes a communicator and checks that every test frees every
// handle it made.
#include <gtest/gtest.h>
#include <mpi.h>

#include <initializer_list>
#include <string>

#include "tessera.h"

namespace tessera::capi_testing {

/// `call` returns `expected`; on failure the message says what it returned and why.
#define EXPECT_STATUS(expected, call)                                                             \
  do {                                                                                            \
    const tessera_status status_ = (call);                                                        \
    EXPECT_EQ(status_, expected) << #call << " returned " << tessera_status_name(status_) << ": " \
                                 << tessera_last_error();                                         \
  } while (0)
#define ASSERT_OK(call)                                                                             \
  do {                                                                                              \
    const tessera_status status_ = (call);                                                          \
    ASSERT_EQ(status_, TESSERA_OK) << #call << " returned " << tessera_status_name(status_) << ": " \
                                   << tessera_last_error();                                         \
  } while (0)

/// The last error message contains every one of `parts` (the function, the argument, the value).
inline void expect_error_mentions(std::initializer_list<const char*> parts) {
  const std::string message = tessera_last_error();
  for (const char* part : parts)
    EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
}

inline std::size_t live_handles() {
  size_t live = 0;
  EXPECT_EQ(tessera_live_handles(&live), TESSERA_OK);
  return live;
}

/// A tessera_comm over MPI_COMM_WORLD; fails the test if it ends with more live handles than it
/// started with.
class CApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    baseline_ = live_handles();
    ASSERT_OK(tessera_comm_create(MPI_COMM_WORLD, &world));
    ASSERT_OK(tessera_comm_rank(world, &rank));
    ASSERT_OK(tessera_comm_size(world, &size));
  }
  void TearDown() override {
    EXPECT_STATUS(TESSERA_OK, tessera_comm_free(&world));
    EXPECT_EQ(live_handles(), baseline_) << "the test did not free every handle it made";
  }

  /// A 2-D grid of every rank, chosen for `extents`.
  tessera_grid grid2(std::int64_t rows, std::int64_t cols) {
    const std::int64_t extents[2] = {rows, cols};
    tessera_grid g = nullptr;
    EXPECT_STATUS(TESSERA_OK, tessera_grid_automatic(2, size, extents, nullptr, &g));
    return g;
  }
  /// block x block over every rank.
  tessera_dist block2(std::int64_t rows, std::int64_t cols) {
    tessera_grid g = grid2(rows, cols);
    const tessera_box box = {{0, 0, 0}, {rows, cols, 0}};
    const tessera_dim_spec specs[2] = {{}, {}};
    tessera_dist d = nullptr;
    EXPECT_STATUS(TESSERA_OK, tessera_dist_create(g, &box, specs, nullptr, &d));
    EXPECT_STATUS(TESSERA_OK, tessera_grid_free(&g));
    return d;
  }
  tessera_domain domain_of(tessera_dist d) {
    tessera_domain dom = nullptr;
    EXPECT_STATUS(TESSERA_OK, tessera_domain_create(world, d, &dom));
    return dom;
  }

  tessera_comm world = nullptr;
  int rank = 0, size = 1;

 private:
  std::size_t baseline_ = 0;
};

}  // namespace tessera::capi_testing
