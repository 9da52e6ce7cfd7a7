// Boundary rules through the C API: tessera_array_set_boundary one side at a time (reflect, odd
// reflect, constant, extrapolate, none), applied by tessera_array_update_ghosts, checked against
// values written out here; and its errors.
#include <vector>

#include "capi_checks.hpp"

namespace tessera::capi_testing {
namespace {

/// 1-d [0, 10) in blocks over every rank, ghosts of width 2; element i holds i * i.
class BoundaryCApi : public CApiTest {
 protected:
  void SetUp() override {
    CApiTest::SetUp();
    const std::int64_t shape[1] = {size};
    ASSERT_OK(tessera_grid_create(1, size, shape, &grid));
    tessera_dim_spec specs[1] = {};
    specs[0].kind = TESSERA_DIM_BLOCK;
    const tessera_box box = {{0}, {10}};
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

TEST_F(BoundaryCApi, RulesAreAppliedByGhostUpdates) {
  tessera_ghosts halo;
  ASSERT_OK(tessera_ghosts_uniform(1, 2, &halo));
  tessera_array a = nullptr;
  ASSERT_OK(tessera_array_create(dom, TESSERA_DOUBLE, &halo, &a));
  std::vector<double> image(10);
  for (int i = 0; i < 10; ++i) image[static_cast<std::size_t>(i)] = i * i;
  ASSERT_OK(tessera_array_scatter_from(a, 0, TESSERA_DOUBLE, image.data(), rank == 0 ? 10 : 0));
  const auto ghost = [&](std::int64_t i) {
    double v = 0;
    EXPECT_STATUS(TESSERA_OK, tessera_array_get(a, &i, TESSERA_DOUBLE, &v));
    return v;
  };
  const double minus_one = -1.0;
  const bool first = rank == 0, last = rank == size - 1;  // 10 >= 2 x 5 ranks: every rank owns two or more
  ASSERT_OK(tessera_array_set_boundary(a, 0, 0, TESSERA_BOUNDARY_REFLECT_ODD, TESSERA_DOUBLE, nullptr));
  ASSERT_OK(tessera_array_set_boundary(a, 0, 1, TESSERA_BOUNDARY_EXTRAPOLATE, TESSERA_DOUBLE, nullptr));
  ASSERT_OK(tessera_array_update_ghosts(a));
  if (first) {
    EXPECT_EQ(ghost(-1), -0.0);
    EXPECT_EQ(ghost(-2), -1.0);
  }
  if (last) {
    EXPECT_EQ(ghost(10), 81.0 + (81.0 - 64.0));
    EXPECT_EQ(ghost(11), 81.0 + 2 * (81.0 - 64.0));
  }
  ASSERT_OK(tessera_array_set_boundary(a, 0, 0, TESSERA_BOUNDARY_REFLECT, TESSERA_DOUBLE, nullptr));
  ASSERT_OK(tessera_array_set_boundary(a, 0, 1, TESSERA_BOUNDARY_CONSTANT, TESSERA_DOUBLE, &minus_one));
  ASSERT_OK(tessera_array_update_ghosts(a));
  if (first) EXPECT_EQ(ghost(-2), 1.0);
  if (last) EXPECT_EQ(ghost(11), -1.0);
  // NONE clears one side: the cells keep what was there.
  ASSERT_OK(tessera_array_set_boundary(a, 0, 1, TESSERA_BOUNDARY_NONE, TESSERA_DOUBLE, nullptr));
  if (last) {
    const std::int64_t i = 11;
    const double seven = 7.0;
    ASSERT_OK(tessera_array_set(a, &i, TESSERA_DOUBLE, &seven));
  }
  ASSERT_OK(tessera_array_begin_update_ghosts(a));
  ASSERT_OK(tessera_array_end_update_ghosts(a));
  if (last) EXPECT_EQ(ghost(11), 7.0);
  if (first) EXPECT_EQ(ghost(-2), 1.0);

  EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_array_set_boundary(a, 1, 0, TESSERA_BOUNDARY_REFLECT, TESSERA_DOUBLE, nullptr));
  expect_error_mentions({"tessera_array_set_boundary", "axis"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT,
                tessera_array_set_boundary(a, 0, 2, TESSERA_BOUNDARY_REFLECT, TESSERA_DOUBLE, nullptr));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT,
                tessera_array_set_boundary(a, 0, 0, static_cast<tessera_boundary>(9), TESSERA_DOUBLE, nullptr));
  expect_error_mentions({"rule", "9"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT,
                tessera_array_set_boundary(a, 0, 0, TESSERA_BOUNDARY_CONSTANT, TESSERA_DOUBLE, nullptr));
  EXPECT_STATUS(TESSERA_ERR_WRONG_TYPE,
                tessera_array_set_boundary(a, 0, 0, TESSERA_BOUNDARY_CONSTANT, TESSERA_FLOAT, &minus_one));
  ASSERT_OK(tessera_array_free(&a));

  // A rule on a periodic axis, and a reflect wider than the domain.
  tessera_ghosts wide;
  ASSERT_OK(tessera_ghosts_uniform(1, 11, &wide));
  ASSERT_OK(tessera_array_create(dom, TESSERA_DOUBLE, &wide, &a));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT,
                tessera_array_set_boundary(a, 0, 1, TESSERA_BOUNDARY_REFLECT, TESSERA_DOUBLE, nullptr));
  expect_error_mentions({"reflect", "axis 0"});
  ASSERT_OK(tessera_array_free(&a));
  halo.periodic[0] = 1;
  ASSERT_OK(tessera_array_create(dom, TESSERA_DOUBLE, &halo, &a));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT,
                tessera_array_set_boundary(a, 0, 0, TESSERA_BOUNDARY_EXTRAPOLATE, TESSERA_DOUBLE, nullptr));
  expect_error_mentions({"periodic"});
  ASSERT_OK(tessera_array_free(&a));
}

}  // namespace
}  // namespace tessera::capi_testing
