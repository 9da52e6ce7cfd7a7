// ZPL's flooded axes and partial reductions through the C API: TESSERA_DIM_FLOODED,
// tessera_flood, tessera_dist_reduced and tessera_reduce_into, every replica checked against a
// serial reference on this rank; and their errors.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "capi_checks.hpp"

namespace tessera::capi_testing {
namespace {

constexpr std::int64_t kRows = 7, kCols = 9;

std::int64_t value_at(std::int64_t i, std::int64_t j) { return (i * 37 + j * 11) % 13 - 6; }

/// This rank's replica of a flooded 2-D array, compared element by element with `expected(i, j)`.
template <class Expected>
void expect_local_replica(tessera_array a, Expected expected) {
  size_t patches = 0;
  ASSERT_OK(tessera_array_patch_count(a, &patches));
  for (size_t k = 0; k < patches; ++k) {
    tessera_box box;
    ASSERT_OK(tessera_array_owned_box(a, k, &box));
    const std::int64_t rows = box.hi[0] - box.lo[0], cols = box.hi[1] - box.lo[1];
    std::vector<std::int64_t> got(static_cast<std::size_t>(rows * cols));
    ASSERT_OK(tessera_array_copy_out(a, &box, TESSERA_INT64, got.data(), nullptr));
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j)
        EXPECT_EQ(got[static_cast<std::size_t>(i * cols + j)], expected(box.lo[0] + i, box.lo[1] + j))
            << "at (" << box.lo[0] + i << ", " << box.lo[1] + j << ")";
  }
}

class CApiFlood : public CApiTest {
 protected:
  void SetUp() override {
    CApiTest::SetUp();
    source_dist = block2(kRows, kCols);
    source_domain = domain_of(source_dist);
    ASSERT_OK(tessera_array_create(source_domain, TESSERA_INT64, nullptr, &source));
    std::vector<std::int64_t> values;
    for (std::int64_t i = 0; i < kRows; ++i)
      for (std::int64_t j = 0; j < kCols; ++j) values.push_back(value_at(i, j));
    ASSERT_OK(tessera_array_scatter_from(source, 0, TESSERA_INT64, values.data(),
                                         static_cast<std::int64_t>(values.size())));
  }
  void TearDown() override {
    EXPECT_STATUS(TESSERA_OK, tessera_array_free(&source));
    EXPECT_STATUS(TESSERA_OK, tessera_domain_free(&source_domain));
    EXPECT_STATUS(TESSERA_OK, tessera_dist_free(&source_dist));
    CApiTest::TearDown();
  }

  /// Rows block-distributed, columns flooded, over `cols` columns, on the source's grid.
  tessera_dist column_panel(std::int64_t cols) {
    tessera_grid g = nullptr;
    EXPECT_STATUS(TESSERA_OK, tessera_dist_grid(source_dist, &g));
    const tessera_box box = {{0, 0, 0}, {kRows, cols, 0}};
    tessera_dim_spec specs[2] = {{}, {}};
    specs[1].kind = TESSERA_DIM_FLOODED;
    tessera_dist d = nullptr;
    EXPECT_STATUS(TESSERA_OK, tessera_dist_create(g, &box, specs, nullptr, &d));
    EXPECT_STATUS(TESSERA_OK, tessera_grid_free(&g));
    return d;
  }

  tessera_dist source_dist = nullptr;
  tessera_domain source_domain = nullptr;
  tessera_array source = nullptr;
};

TEST_F(CApiFlood, FloodFillsEveryReplicaFromASlice) {
  constexpr std::int64_t kPanel = 3, kFirst = 4;
  tessera_dist panel_dist = column_panel(kPanel);
  char printed[128];
  ASSERT_OK(tessera_dist_describe(panel_dist, printed, sizeof printed, nullptr));
  EXPECT_NE(std::string(printed).find("flooded"), std::string::npos) << printed;
  tessera_domain panel_domain = domain_of(panel_dist);
  tessera_array panel = nullptr;
  ASSERT_OK(tessera_array_create(panel_domain, TESSERA_INT64, nullptr, &panel));
  const tessera_box slice = {{0, kFirst, 0}, {kRows, kFirst + kPanel, 0}};
  ASSERT_OK(tessera_flood(source, &slice, panel));
  expect_local_replica(panel, [&](std::int64_t i, std::int64_t j) { return value_at(i, kFirst + j); });

  // Bad input: the same error on every rank, the replicas unchanged.
  const tessera_box too_wide = {{0, 0, 0}, {kRows, kPanel + 1, 0}};
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_flood(source, &too_wide, panel));
  expect_error_mentions({"tessera_flood", "slice"});
  const tessera_box outside = {{0, kCols - 1, 0}, {kRows, kCols - 1 + kPanel, 0}};
  EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_flood(source, &outside, panel));
  tessera_array plain = nullptr;
  tessera_dist plain_dist = block2(kRows, kPanel);
  tessera_domain plain_domain = domain_of(plain_dist);
  ASSERT_OK(tessera_array_create(plain_domain, TESSERA_INT64, nullptr, &plain));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_flood(source, &slice, plain));
  expect_error_mentions({"tessera_flood", "no flooded axis"});
  tessera_array doubles = nullptr;
  ASSERT_OK(tessera_array_create(panel_domain, TESSERA_DOUBLE, nullptr, &doubles));
  EXPECT_STATUS(TESSERA_ERR_WRONG_TYPE, tessera_flood(source, &slice, doubles));
  expect_local_replica(panel, [&](std::int64_t i, std::int64_t j) { return value_at(i, kFirst + j); });

  ASSERT_OK(tessera_array_free(&doubles));
  ASSERT_OK(tessera_array_free(&plain));
  ASSERT_OK(tessera_domain_free(&plain_domain));
  ASSERT_OK(tessera_dist_free(&plain_dist));
  ASSERT_OK(tessera_array_free(&panel));
  ASSERT_OK(tessera_domain_free(&panel_domain));
  ASSERT_OK(tessera_dist_free(&panel_dist));
}

TEST_F(CApiFlood, PartialReductionsMatchSerialFolds) {
  struct Fold {
    tessera_op op;
    std::int64_t identity;
    std::int64_t (*f)(std::int64_t, std::int64_t);
  };
  const Fold folds[] = {
      {TESSERA_OP_ADD, 0, [](std::int64_t u, std::int64_t v) { return u + v; }},
      {TESSERA_OP_MIN, INT64_MAX, [](std::int64_t u, std::int64_t v) { return std::min(u, v); }},
      {TESSERA_OP_MAX, INT64_MIN, [](std::int64_t u, std::int64_t v) { return std::max(u, v); }},
  };
  // Serial: fold along `axis` (0: down the columns, 1: along the rows).
  const auto serial = [&](const Fold& fold, int axis, std::int64_t i, std::int64_t j) {
    std::int64_t acc = fold.identity;
    const std::int64_t length = axis == 0 ? kRows : kCols;
    for (std::int64_t k = 0; k < length; ++k) acc = fold.f(acc, axis == 0 ? value_at(k, j) : value_at(i, k));
    return acc;
  };
  for (int axis = 0; axis < 2; ++axis)
    for (int flooded = 0; flooded < 2; ++flooded) {
      tessera_dist reduced_dist = nullptr;
      ASSERT_OK(tessera_dist_reduced(source_dist, &axis, 1, flooded, &reduced_dist));
      tessera_box box;
      ASSERT_OK(tessera_dist_box(reduced_dist, &box));
      EXPECT_EQ(box.hi[axis] - box.lo[axis], 1);
      tessera_domain reduced_domain = domain_of(reduced_dist);
      tessera_array result = nullptr;
      ASSERT_OK(tessera_array_create(reduced_domain, TESSERA_INT64, nullptr, &result));
      for (const Fold& fold : folds) {
        SCOPED_TRACE(::testing::Message() << "axis " << axis << " flooded " << flooded << " op " << fold.op);
        ASSERT_OK(tessera_reduce_into(source, &axis, 1, fold.op, result));
        const auto expected = [&](std::int64_t i, std::int64_t j) { return serial(fold, axis, i, j); };
        if (flooded) {
          expect_local_replica(result, expected);  // every replica, on every rank holding one
        } else {
          const std::int64_t count = axis == 0 ? kCols : kRows;
          std::vector<std::int64_t> got(static_cast<std::size_t>(count));
          ASSERT_OK(tessera_array_gather_to_all(result, TESSERA_INT64, got.data(), count));
          for (std::int64_t k = 0; k < count; ++k)
            EXPECT_EQ(got[static_cast<std::size_t>(k)], axis == 0 ? expected(0, k) : expected(k, 0)) << "at " << k;
        }
      }
      // Bad input: a result over the wrong box, a repeated or negative axis, REPLACE.
      const int other = 1 - axis;
      EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_reduce_into(source, &other, 1, TESSERA_OP_ADD, result));
      expect_error_mentions({"tessera_reduce_into", "reduced box"});
      EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_reduce_into(source, &axis, 1, TESSERA_OP_REPLACE, result));
      ASSERT_OK(tessera_array_free(&result));
      ASSERT_OK(tessera_domain_free(&reduced_domain));
      ASSERT_OK(tessera_dist_free(&reduced_dist));
    }
  const int twice[2] = {1, 1}, negative[1] = {-1};
  tessera_dist none = nullptr;
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_reduced(source_dist, twice, 2, 0, &none));
  expect_error_mentions({"tessera_dist_reduced", "named twice"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_reduced(source_dist, negative, 1, 1, &none));
  expect_error_mentions({"tessera_dist_reduced", "-1"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_reduced(source_dist, nullptr, 0, 0, &none));
  EXPECT_EQ(none, nullptr);
}

}  // namespace
}  // namespace tessera::capi_testing
