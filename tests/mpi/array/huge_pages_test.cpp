// Buffers of 2 MiB or more in transparent huge pages (tessera/exchange/huge_pages.hpp): the
// alignment rule, array storage allocated on a huge-page boundary, and large arrays — whose
// storage and pack buffers take that path, unlike every other test's small ones — transposed and
// redistributed against the serial formula. The same tests run with TESSERA_HUGE_PAGES=off (the
// rule then leaves alignments alone) and with a bad value (every allocation helper throws), as
// tests/CMakeLists.txt registers them; each reads the variable to know which to expect.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "tessera/tessera.hpp"

namespace tessera {
namespace {

/// What TESSERA_HUGE_PAGES asks for in this run: "on" (unset or on), "off", or "bad".
std::string requested() {
  const char* v = std::getenv("TESSERA_HUGE_PAGES");
  if (v == nullptr || *v == '\0' || std::string(v) == "on") return "on";
  return std::string(v) == "off" ? "off" : "bad";
}

constexpr std::size_t kMiB = std::size_t{1} << 20;

TEST(HugePages, AlignmentRule) {
  if (requested() == "bad") {
    EXPECT_THROW((void)detail::huge_pages_enabled(), Error);
    EXPECT_THROW((void)detail::huge_page_alignment(4 * kMiB, 8), Error);
    try {
      (void)detail::huge_pages_enabled();
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
      EXPECT_NE(std::string(e.what()).find("TESSERA_HUGE_PAGES"), std::string::npos) << e.what();
    }
    return;
  }
  const bool on = requested() == "on";
  EXPECT_EQ(detail::huge_pages_enabled(), on);
  EXPECT_EQ(detail::huge_page_alignment(kMiB, 8), 8u) << "small buffers keep their alignment";
  EXPECT_EQ(detail::huge_page_alignment(2 * kMiB - 1, 64), 64u);
  EXPECT_EQ(detail::huge_page_alignment(2 * kMiB, 8), on ? detail::kHugePageBytes : 8u);
  EXPECT_EQ(detail::huge_page_alignment(64 * kMiB, 16), on ? detail::kHugePageBytes : 16u);
  EXPECT_EQ(detail::huge_page_alignment(64 * kMiB, 4 * kMiB), 4 * kMiB) << "a larger alignment is kept";
  detail::advise_huge_pages(nullptr, 4 * kMiB);  // advice: nothing to do, nothing thrown
}

TEST(HugePages, LargeStorageStartsOnAHugePage) {
  if (requested() == "bad") {
    EXPECT_THROW(detail::AlignedBytes(4 * kMiB, 8), Error);
    return;
  }
  const detail::AlignedBytes large(4 * kMiB + 24, 8), small(kMiB, 8);
  const auto address = reinterpret_cast<std::uintptr_t>(large.data());
  if (requested() == "on") {
    EXPECT_EQ(address % detail::kHugePageBytes, 0u);
  }
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(small.data()) % alignof(std::max_align_t), 0u);
  // Every byte usable: written and read back across the huge pages' boundaries.
  for (std::size_t i = 0; i < large.size(); i += 4093) large.data()[i] = static_cast<std::byte>(i % 251);
  for (std::size_t i = 0; i < large.size(); i += 4093) ASSERT_EQ(large.data()[i], static_cast<std::byte>(i % 251));
}

double value_of(const Point<2>& p) { return static_cast<double>(p[0]) * 4096.0 + static_cast<double>(p[1]); }

// 2048 x 1024 doubles (16 MiB): every rank's part, and every pack buffer of the transpose between
// ranks, is over 2 MiB on up to 5 ranks.
TEST(HugePages, LargeArraysTransposeAndRedistribute) {
  if (requested() == "bad") GTEST_SKIP() << "no array can be made when the variable is bad";
  const Communicator comm(MPI_COMM_WORLD);
  const index_t rows = 2048, cols = 1024;
  const auto grid = ProcGrid<2>::with_shape(comm.size(), {comm.size(), 1});
  Domain<2> dom(comm, Distribution<2>(Box<2>({0, 0}, {rows, cols}), grid, {block(), block()}));
  Domain<2> tdom(comm, Distribution<2>(Box<2>({0, 0}, {cols, rows}), grid, {block(), block()}));
  DistArray<double, 2> a(dom), at(tdom);
  a.for_each_owned([](const Point<2>& p, double& x) { x = value_of(p); });
  transpose(a, at, {1, 0});
  std::int64_t wrong = 0;
  at.for_each_owned([&](const Point<2>& p, const double& x) { wrong += x != value_of({p[1], p[0]}); });
  EXPECT_EQ(wrong, 0) << "elements of the transposed array not equal to the formula";

  // Rows to columns and back: every value kept.
  const auto columns = ProcGrid<2>::with_shape(comm.size(), {1, comm.size()});
  dom.redistribute(Distribution<2>(dom.box(), columns, {block(), block()}));
  wrong = 0;
  a.for_each_owned([&](const Point<2>& p, const double& x) { wrong += x != value_of(p); });
  EXPECT_EQ(wrong, 0) << "after the move to columns";
  dom.redistribute(Distribution<2>(dom.box(), grid, {block(), block()}));
  wrong = 0;
  a.for_each_owned([&](const Point<2>& p, const double& x) { wrong += x != value_of(p); });
  EXPECT_EQ(wrong, 0) << "after the move back";
  EXPECT_DOUBLE_EQ(a.sum(), at.sum());
}

}  // namespace
}  // namespace tessera
