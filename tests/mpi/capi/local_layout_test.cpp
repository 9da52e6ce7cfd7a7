// User-defined local layouts through the C API: a box set stored in each built-in order, its
// buffer read and written through tessera_array_storage at tessera_dist_local_offset, moved to and
// from a block distribution and gathered against the serial image, a reduction, copy_in / copy_out,
// ghost cells after an update, and the errors of each entry point (on every rank, nothing made).
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "capi_checks.hpp"

namespace tessera::capi_testing {
namespace {

// [0,9)x[0,7) cut into five boxes of odd sizes; every index held (no hole).
const tessera_box kLayoutBoxes[] = {{{0, 0, 0}, {4, 3, 0}},
                                    {{0, 3, 0}, {4, 7, 0}},
                                    {{4, 0, 0}, {9, 2, 0}},
                                    {{4, 2, 0}, {7, 7, 0}},
                                    {{7, 2, 0}, {9, 7, 0}}};
constexpr std::size_t kLayoutBoxCount = 5;
constexpr std::int64_t kRows = 9, kCols = 7;

double first_value(std::int64_t i, std::int64_t j) { return static_cast<double>(100 * i + j + 1); }
double second_value(std::int64_t i, std::int64_t j) { return static_cast<double>(-3 * i + 5 * j) + 0.5; }

struct NamedOrder {
  tessera_local_order order;
  std::int64_t size;
  const char* name;
};
const NamedOrder kOrders[] = {{TESSERA_LOCAL_ROW_MAJOR, 1, "row-major"},
                              {TESSERA_LOCAL_COLUMN_MAJOR, 1, "column-major"},
                              {TESSERA_LOCAL_PADDED, 3, "padded(3)"},
                              {TESSERA_LOCAL_TILED, 2, "tiled(2)"}};

class CApiLocalLayout : public CApiTest {
 protected:
  /// The five boxes assigned to the ranks by knapsack (the same on every rank), as a box set.
  tessera_dist box_set() {
    EXPECT_STATUS(TESSERA_OK, tessera_assign_boxes(2, size, kLayoutBoxes, kLayoutBoxCount, TESSERA_ASSIGN_KNAPSACK,
                                                   nullptr, owners));
    tessera_dist d = nullptr;
    EXPECT_STATUS(TESSERA_OK, tessera_dist_from_boxes(2, size, nullptr, kLayoutBoxes, kLayoutBoxCount, owners, &d));
    return d;
  }
  /// Calls f(i, j) for every index of the boxes this rank owns.
  template <class F>
  void for_each_owned_index(F&& f) const {
    for (std::size_t b = 0; b < kLayoutBoxCount; ++b) {
      if (owners[b] != rank) continue;
      for (std::int64_t i = kLayoutBoxes[b].lo[0]; i < kLayoutBoxes[b].hi[0]; ++i)
        for (std::int64_t j = kLayoutBoxes[b].lo[1]; j < kLayoutBoxes[b].hi[1]; ++j) f(i, j);
    }
  }
  /// Gathers `a` everywhere and compares every index with value(i, j).
  template <class Value>
  void expect_image(tessera_array a, Value value, const char* when) {
    std::vector<double> image(kRows * kCols, -7.0);
    ASSERT_OK(tessera_array_gather_to_all(a, TESSERA_DOUBLE, image.data(), kRows * kCols));
    for (std::int64_t i = 0; i < kRows; ++i)
      for (std::int64_t j = 0; j < kCols; ++j)
        EXPECT_EQ(image[static_cast<std::size_t>(i * kCols + j)], value(i, j)) << when << " at (" << i << ", " << j << ")";
  }

  int owners[kLayoutBoxCount] = {};
};

// Every order: values set point by point land where tessera_dist_local_offset says in the rank's
// buffer; values written into the buffer there are what a gather sees; a redistribution to blocks
// and back keeps them; a sum over the array is the serial sum.
TEST_F(CApiLocalLayout, EveryOrderStoresEachPointAtItsLocalOffset) {
  tessera_dist set = box_set();
  tessera_dist blocks = block2(kRows, kCols);
  for (const NamedOrder& o : kOrders) {
    SCOPED_TRACE(o.name);
    tessera_dist stored = nullptr;
    ASSERT_OK(tessera_dist_with_local_order(set, o.order, o.size, &stored));
    int has = -1;
    ASSERT_OK(tessera_dist_has_local_layout(stored, &has));
    EXPECT_EQ(has, 1);
    ASSERT_OK(tessera_dist_has_local_layout(set, &has));
    EXPECT_EQ(has, 0);
    char text[256];
    ASSERT_OK(tessera_dist_describe(stored, text, sizeof text, nullptr));
    EXPECT_NE(std::string(text).find(o.name), std::string::npos) << text;

    tessera_domain dom = domain_of(stored);
    tessera_array a = nullptr;
    ASSERT_OK(tessera_array_create(dom, TESSERA_DOUBLE, nullptr, &a));
    for_each_owned_index([&](std::int64_t i, std::int64_t j) {
      const std::int64_t p[2] = {i, j};
      const double v = first_value(i, j);
      ASSERT_OK(tessera_array_set(a, p, TESSERA_DOUBLE, &v));
    });

    // The buffer: its size is the layout's, and each point sits at its local offset.
    void* data = nullptr;
    std::int64_t elements = -1, expected_elements = -1, owned = -1;
    ASSERT_OK(tessera_array_storage(a, TESSERA_DOUBLE, &data, &elements));
    ASSERT_OK(tessera_dist_local_storage_size(stored, rank, &expected_elements));
    ASSERT_OK(tessera_dist_local_size(stored, rank, &owned));
    EXPECT_EQ(elements, expected_elements);
    EXPECT_GE(elements, owned);
    // Padded: each owned box's rows rounded up to a multiple of 3 (holes); the others: no holes.
    std::int64_t serial_elements = 0;
    for (std::size_t b = 0; b < kLayoutBoxCount; ++b) {
      if (owners[b] != rank) continue;
      const std::int64_t rows = kLayoutBoxes[b].hi[0] - kLayoutBoxes[b].lo[0];
      const std::int64_t cols = kLayoutBoxes[b].hi[1] - kLayoutBoxes[b].lo[1];
      serial_elements += rows * (o.order == TESSERA_LOCAL_PADDED ? (cols + 2) / 3 * 3 : cols);
    }
    EXPECT_EQ(elements, serial_elements);
    EXPECT_EQ(data == nullptr, elements == 0);
    auto* buffer = static_cast<double*>(data);
    for_each_owned_index([&](std::int64_t i, std::int64_t j) {
      const std::int64_t p[2] = {i, j};
      std::int64_t offset = -1;
      ASSERT_OK(tessera_dist_local_offset(stored, p, &offset));
      ASSERT_GE(offset, 0);
      ASSERT_LT(offset, elements);
      EXPECT_EQ(buffer[offset], first_value(i, j)) << "(" << i << ", " << j << ") at offset " << offset;
      buffer[offset] = second_value(i, j);  // written through the buffer, read back below
    });
    expect_image(a, second_value, "after writing through the buffer");

    double sum = 0, expected_sum = 0;
    for (std::int64_t i = 0; i < kRows; ++i)
      for (std::int64_t j = 0; j < kCols; ++j) expected_sum += second_value(i, j);
    ASSERT_OK(tessera_array_reduce(a, TESSERA_OP_ADD, TESSERA_DOUBLE, &sum));
    EXPECT_DOUBLE_EQ(sum, expected_sum);

    ASSERT_OK(tessera_domain_redistribute(dom, blocks, TESSERA_PRESERVE));
    expect_image(a, second_value, "after the move to blocks");
    ASSERT_OK(tessera_dist_has_local_layout(blocks, &has));
    EXPECT_EQ(has, 0);
    ASSERT_OK(tessera_domain_redistribute(dom, stored, TESSERA_PRESERVE));
    expect_image(a, second_value, "after the move back");
    ASSERT_OK(tessera_array_storage(a, TESSERA_DOUBLE, &data, nullptr));
    for_each_owned_index([&](std::int64_t i, std::int64_t j) {
      const std::int64_t p[2] = {i, j};
      std::int64_t offset = -1;
      ASSERT_OK(tessera_dist_local_offset(stored, p, &offset));
      EXPECT_EQ(static_cast<double*>(data)[offset], second_value(i, j));
    });

    ASSERT_OK(tessera_array_free(&a));
    ASSERT_OK(tessera_domain_free(&dom));
    ASSERT_OK(tessera_dist_free(&stored));
  }
  ASSERT_OK(tessera_dist_free(&blocks));
  ASSERT_OK(tessera_dist_free(&set));
}

// copy_in / copy_out under every order: each rank writes its boxes from a row-major image of the
// whole domain (buffer_box larger than the region), the values land at their local offsets and in
// the gathered image, and copy_out of each box into a buffer of the box alone gives them back; a
// region that reaches into another rank's box is refused with nothing written.
TEST_F(CApiLocalLayout, CopyInAndOutGoThroughTheLayout) {
  tessera_dist set = box_set();
  const tessera_box whole = {{0, 0, 0}, {kRows, kCols, 0}};
  std::vector<double> image(kRows * kCols);
  for (std::int64_t i = 0; i < kRows; ++i)
    for (std::int64_t j = 0; j < kCols; ++j) image[static_cast<std::size_t>(i * kCols + j)] = second_value(i, j);
  for (const NamedOrder& o : kOrders) {
    SCOPED_TRACE(o.name);
    tessera_dist stored = nullptr;
    ASSERT_OK(tessera_dist_with_local_order(set, o.order, o.size, &stored));
    tessera_domain dom = domain_of(stored);
    tessera_array a = nullptr;
    ASSERT_OK(tessera_array_create(dom, TESSERA_DOUBLE, nullptr, &a));
    for (std::size_t b = 0; b < kLayoutBoxCount; ++b)
      if (owners[b] == rank) ASSERT_OK(tessera_array_copy_in(a, &kLayoutBoxes[b], TESSERA_DOUBLE, image.data(), &whole));
    expect_image(a, second_value, "after copy_in");
    void* data = nullptr;
    ASSERT_OK(tessera_array_storage(a, TESSERA_DOUBLE, &data, nullptr));
    for_each_owned_index([&](std::int64_t i, std::int64_t j) {
      const std::int64_t p[2] = {i, j};
      std::int64_t offset = -1;
      ASSERT_OK(tessera_dist_local_offset(stored, p, &offset));
      EXPECT_EQ(static_cast<double*>(data)[offset], second_value(i, j)) << "(" << i << ", " << j << ")";
    });
    for (std::size_t b = 0; b < kLayoutBoxCount; ++b) {
      if (owners[b] != rank) continue;
      const tessera_box& box = kLayoutBoxes[b];
      const std::int64_t cols = box.hi[1] - box.lo[1];
      std::vector<double> out(static_cast<std::size_t>((box.hi[0] - box.lo[0]) * cols), -1.0);
      ASSERT_OK(tessera_array_copy_out(a, &box, TESSERA_DOUBLE, out.data(), nullptr));
      for (std::int64_t i = box.lo[0]; i < box.hi[0]; ++i)
        for (std::int64_t j = box.lo[1]; j < box.hi[1]; ++j)
          EXPECT_EQ(out[static_cast<std::size_t>((i - box.lo[0]) * cols + (j - box.lo[1]))], second_value(i, j))
              << "box " << b << " at (" << i << ", " << j << ")";
    }
    // The whole domain is stored here only on one rank; elsewhere copy_in refuses it untouched.
    if (size > 1) {
      const std::vector<double> zeros(image.size(), 0.0);
      EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_array_copy_in(a, &whole, TESSERA_DOUBLE, zeros.data(), nullptr));
      for_each_owned_index([&](std::int64_t i, std::int64_t j) {
        const std::int64_t p[2] = {i, j};
        double v = 0;
        ASSERT_OK(tessera_array_get(a, p, TESSERA_DOUBLE, &v));
        EXPECT_EQ(v, second_value(i, j)) << "(" << i << ", " << j << ") after a refused copy_in";
      });
    }
    ASSERT_OK(tessera_array_free(&a));
    ASSERT_OK(tessera_domain_free(&dom));
    ASSERT_OK(tessera_dist_free(&stored));
  }
  ASSERT_OK(tessera_dist_free(&set));
}

// Without a local layout the buffer is the patches', and tessera_dist_local_offset gives a
// row-major array's offsets (no ghosts): the same call works for both.
// Every order with ghost layers (width 1, periodic along axis 1): after a ghost update every
// ghost cell around each owned box, read with tessera_array_get, holds its owner's value, wrapped
// along axis 1; beyond axis 0's ends it keeps 0. The ghost cells sit in slabs after the owned
// points, so the buffer is larger than the layout's storage size.
TEST_F(CApiLocalLayout, GhostCellsFillUnderEveryOrder) {
  tessera_dist set = box_set();
  std::vector<double> image(kRows * kCols);
  for (std::int64_t i = 0; i < kRows; ++i)
    for (std::int64_t j = 0; j < kCols; ++j) image[static_cast<std::size_t>(i * kCols + j)] = first_value(i, j);
  for (const NamedOrder& o : kOrders) {
    SCOPED_TRACE(o.name);
    tessera_dist stored = nullptr;
    ASSERT_OK(tessera_dist_with_local_order(set, o.order, o.size, &stored));
    tessera_domain dom = domain_of(stored);
    tessera_ghosts g = {};
    g.lower[0] = g.lower[1] = g.upper[0] = g.upper[1] = 1;
    g.periodic[1] = 1;
    tessera_array a = nullptr;
    ASSERT_OK(tessera_array_create(dom, TESSERA_DOUBLE, &g, &a));
    ASSERT_OK(tessera_array_scatter_from(a, 0, TESSERA_DOUBLE, image.data(), rank == 0 ? kRows * kCols : 0));
    ASSERT_OK(tessera_array_update_ghosts(a));
    double* buffer = nullptr;
    ASSERT_OK(tessera_array_storage(a, TESSERA_DOUBLE, reinterpret_cast<void**>(&buffer), nullptr));
    for (std::size_t b = 0; b < kLayoutBoxCount; ++b) {
      if (owners[b] != rank) continue;
      const tessera_box& box = kLayoutBoxes[b];
      for (std::int64_t i = box.lo[0] - 1; i <= box.hi[0]; ++i)
        for (std::int64_t j = box.lo[1] - 1; j <= box.hi[1]; ++j) {
          if (i >= box.lo[0] && i < box.hi[0] && j >= box.lo[1] && j < box.hi[1]) continue;  // owned
          const std::int64_t p[2] = {i, j};
          double got = -1;
          ASSERT_OK(tessera_array_get(a, p, TESSERA_DOUBLE, &got));
          const std::int64_t wrapped = (j + kCols) % kCols;
          EXPECT_EQ(got, i >= 0 && i < kRows ? first_value(i, wrapped) : 0.0) << "ghost (" << i << ", " << j << ")";
          std::int64_t at = -1;  // the same cell in the buffer
          ASSERT_OK(tessera_array_storage_offset(a, p, &at));
          EXPECT_EQ(buffer[at], got) << "ghost (" << i << ", " << j << ") at offset " << at;
        }
    }
    const std::int64_t far[2] = {-5, -5};
    std::int64_t at = -1;
    EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_array_storage_offset(a, far, &at));
    EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_array_storage_offset(a, far, nullptr));
    EXPECT_EQ(at, -1);
    std::int64_t owned = 0, elements = 0;
    void* data = nullptr;
    ASSERT_OK(tessera_dist_local_storage_size(stored, rank, &owned));
    ASSERT_OK(tessera_array_storage(a, TESSERA_DOUBLE, &data, &elements));
    bool owns_a_box = false;
    for (std::size_t b = 0; b < kLayoutBoxCount; ++b) owns_a_box = owns_a_box || owners[b] == rank;
    EXPECT_EQ(elements > owned, owns_a_box) << "ghost slabs after the owned storage";
    ASSERT_OK(tessera_array_free(&a));
    ASSERT_OK(tessera_domain_free(&dom));
    ASSERT_OK(tessera_dist_free(&stored));
  }
  ASSERT_OK(tessera_dist_free(&set));
}

TEST_F(CApiLocalLayout, WithoutALayoutLocalOffsetsAreThePatchOffsets) {
  tessera_dist blocks = block2(kRows, kCols);
  tessera_domain dom = domain_of(blocks);
  tessera_array a = nullptr;
  ASSERT_OK(tessera_array_create(dom, TESSERA_DOUBLE, nullptr, &a));
  tessera_box mine = {};
  ASSERT_OK(tessera_dist_owned_box(blocks, rank, &mine));
  void* data = nullptr;
  std::int64_t elements = -1;
  ASSERT_OK(tessera_array_storage(a, TESSERA_DOUBLE, &data, &elements));
  std::int64_t owned = -1;
  ASSERT_OK(tessera_dist_local_storage_size(blocks, rank, &owned));
  EXPECT_EQ(elements, owned);
  for (std::int64_t i = mine.lo[0]; i < mine.hi[0]; ++i)
    for (std::int64_t j = mine.lo[1]; j < mine.hi[1]; ++j) {
      const std::int64_t p[2] = {i, j};
      std::int64_t offset = -1;
      ASSERT_OK(tessera_dist_local_offset(blocks, p, &offset));
      EXPECT_EQ(offset, (i - mine.lo[0]) * (mine.hi[1] - mine.lo[1]) + (j - mine.lo[1]));
      static_cast<double*>(data)[offset] = first_value(i, j);
    }
  expect_image(a, first_value, "written through a block array's buffer");
  ASSERT_OK(tessera_array_free(&a));
  ASSERT_OK(tessera_domain_free(&dom));
  ASSERT_OK(tessera_dist_free(&blocks));
}

// Bad input: the status and a message naming the argument, on every rank, no handle made.
TEST_F(CApiLocalLayout, BadArgumentsAreRefusedOnEveryRank) {
  tessera_dist set = box_set();
  tessera_dist blocks = block2(kRows, kCols);
  tessera_dist out = nullptr;

  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_with_local_order(blocks, TESSERA_LOCAL_TILED, 2, &out));
  expect_error_mentions({"tessera_dist_with_local_order", "dimensional"});
  EXPECT_EQ(out, nullptr);
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT,
                tessera_dist_with_local_order(set, static_cast<tessera_local_order>(9), 1, &out));
  expect_error_mentions({"'order'", "9", "tessera_local_order"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_with_local_order(set, TESSERA_LOCAL_TILED, 0, &out));
  expect_error_mentions({"tiled", "0"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_with_local_order(set, TESSERA_LOCAL_PADDED, -4, &out));
  expect_error_mentions({"padded", "-4"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_with_local_order(set, TESSERA_LOCAL_COLUMN_MAJOR, 4, &out));
  expect_error_mentions({"'size'", "4", "TESSERA_LOCAL_COLUMN_MAJOR"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_with_local_order(set, TESSERA_LOCAL_TILED, 2, nullptr));
  EXPECT_EQ(out, nullptr);

  tessera_dist stored = nullptr;
  ASSERT_OK(tessera_dist_with_local_order(set, TESSERA_LOCAL_TILED, 2, &stored));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_with_local_order(stored, TESSERA_LOCAL_ROW_MAJOR, 1, &out));
  expect_error_mentions({"already has a local layout"});
  EXPECT_EQ(out, nullptr);

  const std::int64_t outside[2] = {kRows, 0};
  std::int64_t offset = -1;
  EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_dist_local_offset(stored, outside, &offset));
  EXPECT_EQ(offset, -1);
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_local_offset(stored, nullptr, &offset));
  std::int64_t elements = -1;
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_local_storage_size(stored, size, &elements));
  expect_error_mentions({"'rank'"});
  int has = 0;
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_has_local_layout(stored, nullptr));
  EXPECT_STATUS(TESSERA_ERR_NULL_HANDLE, tessera_dist_has_local_layout(nullptr, &has));

  // Arrays over it: no patches (their ghost cells are in ghost slabs); the buffer only for the
  // array's own type.
  tessera_domain dom = domain_of(stored);
  tessera_array a = nullptr;
  ASSERT_OK(tessera_array_create(dom, TESSERA_DOUBLE, nullptr, &a));
  tessera_view view = {};
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_array_local(a, 0, TESSERA_DOUBLE, &view));
  expect_error_mentions({"local layout"});
  size_t patches = 0;
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_array_patch_count(a, &patches));
  void* data = nullptr;
  EXPECT_STATUS(TESSERA_ERR_WRONG_TYPE, tessera_array_storage(a, TESSERA_FLOAT, &data, &elements));
  EXPECT_EQ(data, nullptr);

  ASSERT_OK(tessera_array_free(&a));
  ASSERT_OK(tessera_domain_free(&dom));
  ASSERT_OK(tessera_dist_free(&stored));
  ASSERT_OK(tessera_dist_free(&blocks));
  ASSERT_OK(tessera_dist_free(&set));
}

}  // namespace
}  // namespace tessera::capi_testing
