// tessera_array_scan: whole-array and per-axis scans, inclusive and exclusive, with every built-in
// fold, against serial scans of the same values; and its errors.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "capi_checks.hpp"

namespace tessera::capi_testing {
namespace {

constexpr std::int64_t kRows = 5, kCols = 7;

std::int64_t value_at(std::int64_t i, std::int64_t j) { return (i * 31 + j * 17) % 9 - 4; }

/// The serial scan of the kRows x kCols values, row-major: `axis` -1 (whole), 0 (columns), 1 (rows).
std::vector<std::int64_t> serial_scan(int axis, bool exclusive, std::int64_t identity,
                                      std::int64_t (*op)(std::int64_t, std::int64_t)) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(kRows * kCols));
  const auto at = [](std::int64_t i, std::int64_t j) { return static_cast<std::size_t>(i * kCols + j); };
  const std::int64_t lines = axis == -1 ? 1 : (axis == 0 ? kCols : kRows);
  const std::int64_t length = axis == -1 ? kRows * kCols : (axis == 0 ? kRows : kCols);
  for (std::int64_t l = 0; l < lines; ++l) {
    std::int64_t running = identity;
    for (std::int64_t k = 0; k < length; ++k) {
      const std::int64_t i = axis == -1 ? k / kCols : (axis == 0 ? k : l);
      const std::int64_t j = axis == -1 ? k % kCols : (axis == 0 ? l : k);
      if (exclusive) out[at(i, j)] = running;
      running = op(running, value_at(i, j));
      if (!exclusive) out[at(i, j)] = running;
    }
  }
  return out;
}

TEST_F(CApiTest, ScansMatchSerialScans) {
  tessera_dist d = block2(kRows, kCols);
  tessera_domain dom = domain_of(d);
  tessera_array a = nullptr, s = nullptr;
  ASSERT_OK(tessera_array_create(dom, TESSERA_INT64, nullptr, &a));
  ASSERT_OK(tessera_array_create(dom, TESSERA_INT64, nullptr, &s));
  std::vector<std::int64_t> values;
  for (std::int64_t i = 0; i < kRows; ++i)
    for (std::int64_t j = 0; j < kCols; ++j) values.push_back(value_at(i, j));
  ASSERT_OK(tessera_array_scatter_from(a, 0, TESSERA_INT64, values.data(), static_cast<std::int64_t>(values.size())));
  struct Fold {
    tessera_op op;
    std::int64_t identity;
    std::int64_t (*f)(std::int64_t, std::int64_t);
  };
  const Fold folds[] = {
      {TESSERA_OP_ADD, 0, [](std::int64_t u, std::int64_t v) { return u + v; }},
      {TESSERA_OP_MULTIPLY, 1,  // wrapping, as the library multiplies integers
       [](std::int64_t u, std::int64_t v) {
         return static_cast<std::int64_t>(static_cast<std::uint64_t>(u) * static_cast<std::uint64_t>(v));
       }},
      {TESSERA_OP_MIN, INT64_MAX, [](std::int64_t u, std::int64_t v) { return std::min(u, v); }},
      {TESSERA_OP_MAX, INT64_MIN, [](std::int64_t u, std::int64_t v) { return std::max(u, v); }},
  };
  std::vector<std::int64_t> got(values.size());
  for (const Fold& fold : folds)
    for (int axis = -1; axis < 2; ++axis)
      for (int exclusive = 0; exclusive < 2; ++exclusive) {
        SCOPED_TRACE(::testing::Message() << "op " << fold.op << " axis " << axis << " exclusive " << exclusive);
        ASSERT_OK(tessera_array_scan(a, axis, exclusive, fold.op, s));
        ASSERT_OK(tessera_array_gather_to_all(s, TESSERA_INT64, got.data(), static_cast<std::int64_t>(got.size())));
        EXPECT_EQ(got, serial_scan(axis, exclusive != 0, fold.identity, fold.f));
      }
  // In place.
  ASSERT_OK(tessera_array_scan(a, -1, 0, TESSERA_OP_ADD, a));
  ASSERT_OK(tessera_array_gather_to_all(a, TESSERA_INT64, got.data(), static_cast<std::int64_t>(got.size())));
  EXPECT_EQ(got, serial_scan(-1, false, 0, folds[0].f));

  tessera_array wrong_type = nullptr;
  ASSERT_OK(tessera_array_create(dom, TESSERA_DOUBLE, nullptr, &wrong_type));
  EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_array_scan(a, 2, 0, TESSERA_OP_ADD, s));
  expect_error_mentions({"tessera_array_scan", "'axis' = 2"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_array_scan(a, 0, 0, TESSERA_OP_REPLACE, s));
  expect_error_mentions({"'op' = replace"});
  EXPECT_STATUS(TESSERA_ERR_WRONG_TYPE, tessera_array_scan(a, 0, 0, TESSERA_OP_ADD, wrong_type));
  ASSERT_OK(tessera_array_free(&wrong_type));
  ASSERT_OK(tessera_array_free(&a));
  ASSERT_OK(tessera_array_free(&s));
  ASSERT_OK(tessera_domain_free(&dom));
  ASSERT_OK(tessera_dist_free(&d));
}

}  // namespace
}  // namespace tessera::capi_testing
