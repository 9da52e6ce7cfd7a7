// Column-major arrays and ScaLAPACK descriptors through the C API: tessera_array_create_ordered,
// tessera_array_storage_order, the strides of the local view, gather and scatter (global images stay
// row-major), and tessera_scalapack_descriptor / tessera_blacs_process_map on good and bad input.
#include <vector>

#include "capi_checks.hpp"

namespace tessera::capi_testing {
namespace {

/// 11 x 9 in blocks of 2 x 3 over a size x 1 grid.
class ColumnMajorCApi : public CApiTest {
 protected:
  void SetUp() override {
    CApiTest::SetUp();
    const std::int64_t shape[2] = {size, 1};
    ASSERT_OK(tessera_grid_create(2, size, shape, &grid));
    tessera_dim_spec specs[2] = {};
    specs[0].kind = specs[1].kind = TESSERA_DIM_BLOCK_CYCLIC;
    specs[0].block_size = 2;
    specs[1].block_size = 3;
    const tessera_box box = {{0, 0}, {11, 9}};
    ASSERT_OK(tessera_dist_create(grid, &box, specs, nullptr, &dist));
    dom = domain_of(dist);
  }
  void TearDown() override {
    EXPECT_STATUS(TESSERA_OK, tessera_domain_free(&dom));
    EXPECT_STATUS(TESSERA_OK, tessera_dist_free(&dist));
    EXPECT_STATUS(TESSERA_OK, tessera_grid_free(&grid));
    CApiTest::TearDown();
  }
  tessera_grid grid = nullptr;
  tessera_dist dist = nullptr;
  tessera_domain dom = nullptr;
};

TEST_F(ColumnMajorCApi, ArraysKeepTheirOrderAndRowMajorImages) {
  tessera_array a = nullptr;
  ASSERT_OK(tessera_array_create_ordered(dom, TESSERA_DOUBLE, nullptr, TESSERA_COLUMN_MAJOR, &a));
  tessera_storage_order order = TESSERA_ROW_MAJOR;
  ASSERT_OK(tessera_array_storage_order(a, &order));
  EXPECT_EQ(order, TESSERA_COLUMN_MAJOR);
  std::vector<double> image(99);
  for (int k = 0; k < 99; ++k) image[static_cast<std::size_t>(k)] = k;  // row-major: (i, j) holds 9 i + j
  ASSERT_OK(tessera_array_scatter_from(a, 0, TESSERA_DOUBLE, image.data(), rank == 0 ? 99 : 0));
  size_t patches = 0;
  ASSERT_OK(tessera_array_patch_count(a, &patches));
  if (patches == 1) {
    tessera_view v;
    ASSERT_OK(tessera_array_local(a, 0, TESSERA_DOUBLE, &v));
    EXPECT_EQ(v.strides[0], 1);
    EXPECT_EQ(v.strides[1], v.extents[0]);  // leading dimension: the local rows
    // Local (li, lj) of rank r holds global (block-cyclic) i = (li / 2) * 2 size + 2 r + li % 2, j = lj.
    const auto* data = static_cast<const double*>(v.data);
    for (std::int64_t li = 0; li < v.count[0]; ++li)
      for (std::int64_t lj = 0; lj < v.count[1]; ++lj) {
        const std::int64_t i = (li / 2) * 2 * size + 2 * rank + li % 2;
        EXPECT_EQ(data[li + lj * v.strides[1]], static_cast<double>(9 * i + lj)) << li << ", " << lj;
      }
  }
  std::vector<double> back(99);
  ASSERT_OK(tessera_array_gather_to_all(a, TESSERA_DOUBLE, back.data(), 99));
  EXPECT_EQ(back, image);

  tessera_array r = nullptr;
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT,
                tessera_array_create_ordered(dom, TESSERA_DOUBLE, nullptr, static_cast<tessera_storage_order>(7), &r));
  expect_error_mentions({"tessera_array_create_ordered", "order", "7"});
  EXPECT_EQ(r, nullptr);
  ASSERT_OK(tessera_array_create(dom, TESSERA_DOUBLE, nullptr, &r));
  ASSERT_OK(tessera_array_storage_order(r, &order));
  EXPECT_EQ(order, TESSERA_ROW_MAJOR);
  ASSERT_OK(tessera_array_free(&r));
  ASSERT_OK(tessera_array_free(&a));
}

TEST_F(ColumnMajorCApi, ScalapackDescriptorsAndProcessMaps) {
  tessera_array col = nullptr, row = nullptr;
  ASSERT_OK(tessera_array_create_ordered(dom, TESSERA_DOUBLE, nullptr, TESSERA_COLUMN_MAJOR, &col));
  ASSERT_OK(tessera_array_create(dom, TESSERA_DOUBLE, nullptr, &row));
  int desc[9] = {}, local_rows = -1, local_cols = -1;
  ASSERT_OK(tessera_scalapack_descriptor(col, 5, 0, desc, &local_rows, &local_cols));
  // Rows of rank r: the 2-row blocks r, r + size, ... of 11 rows (numroc).
  int rows_here = 0;
  for (int i = 0; i < 11; ++i) rows_here += (i / 2) % size == rank ? 1 : 0;
  const int want[9] = {1, 5, 11, 9, 2, 3, 0, 0, rows_here > 1 ? rows_here : 1};
  for (int k = 0; k < 9; ++k) EXPECT_EQ(desc[k], want[k]) << "entry " << k;
  EXPECT_EQ(local_rows, rows_here);
  EXPECT_EQ(local_cols, 9);
  // Transposed: the row-major array as its 9 x 11 transpose.
  ASSERT_OK(tessera_scalapack_descriptor(row, 5, 1, desc, nullptr, nullptr));
  EXPECT_EQ(desc[2], 9);
  EXPECT_EQ(desc[3], 11);
  EXPECT_EQ(desc[4], 3);
  EXPECT_EQ(desc[5], 2);
  EXPECT_EQ(desc[8], 9);
  // Refused, desc untouched: row-major as stored, column-major transposed.
  int untouched[9] = {-9, -9, -9, -9, -9, -9, -9, -9, -9};
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_scalapack_descriptor(row, 5, 0, untouched, nullptr, nullptr));
  expect_error_mentions({"tessera_scalapack_descriptor", "row-major"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_scalapack_descriptor(col, 5, 1, untouched, nullptr, nullptr));
  expect_error_mentions({"column-major"});
  for (int x : untouched) EXPECT_EQ(x, -9);
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_scalapack_descriptor(col, 5, 0, nullptr, nullptr, nullptr));
  expect_error_mentions({"desc"});

  // The map: size x 1 as stored, 1 x size transposed; ranks in order either way.
  std::vector<int> map(static_cast<std::size_t>(size));
  int map_rows = 0, map_cols = 0;
  ASSERT_OK(tessera_blacs_process_map(col, 0, map.data(), map.size(), &map_rows, &map_cols));
  EXPECT_EQ(map_rows, size);
  EXPECT_EQ(map_cols, 1);
  for (int k = 0; k < size; ++k) EXPECT_EQ(map[static_cast<std::size_t>(k)], k);
  ASSERT_OK(tessera_blacs_process_map(col, 1, map.data(), map.size(), &map_rows, &map_cols));
  EXPECT_EQ(map_rows, 1);
  EXPECT_EQ(map_cols, size);
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT,
                tessera_blacs_process_map(col, 0, map.data(), map.size() - 1, &map_rows, &map_cols));
  expect_error_mentions({"capacity"});

  // Not 2-D: refused by name.
  const std::int64_t shape1[1] = {size};
  tessera_grid g1 = nullptr;
  ASSERT_OK(tessera_grid_create(1, size, shape1, &g1));
  const tessera_dim_spec spec1[1] = {{}};
  const tessera_box box1 = {{0}, {8}};
  tessera_dist d1 = nullptr;
  ASSERT_OK(tessera_dist_create(g1, &box1, spec1, nullptr, &d1));
  tessera_domain dom1 = domain_of(d1);
  tessera_array v = nullptr;
  ASSERT_OK(tessera_array_create_ordered(dom1, TESSERA_DOUBLE, nullptr, TESSERA_COLUMN_MAJOR, &v));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_scalapack_descriptor(v, 0, 0, desc, nullptr, nullptr));
  expect_error_mentions({"2-D"});
  ASSERT_OK(tessera_array_free(&v));
  ASSERT_OK(tessera_domain_free(&dom1));
  ASSERT_OK(tessera_dist_free(&d1));
  ASSERT_OK(tessera_grid_free(&g1));
  ASSERT_OK(tessera_array_free(&row));
  ASSERT_OK(tessera_array_free(&col));
}

}  // namespace
}  // namespace tessera::capi_testing
