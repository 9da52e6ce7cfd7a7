// tessera_grid_* and tessera_dist_*: processor grids and every built-in distribution kind through
// the C API, on good input (checked against what the layout must be) and bad input (checked for
// the status and for a message naming the argument and the value).
#include <cstring>
#include <string>
#include <vector>

#include "capi_checks.hpp"

namespace tessera::capi_testing {
namespace {

TEST_F(CApiTest, GridsOfEveryFactory) {
  tessera_grid g = nullptr;
  const std::int64_t shape[2] = {2, 3};
  ASSERT_OK(tessera_grid_create(2, 6, shape, &g));
  int ndim = 0, positions = 0, r = -1, active = -1;
  std::int64_t got[3] = {0, 0, 0}, at[2] = {1, 0};
  ASSERT_OK(tessera_grid_ndim(g, &ndim));
  ASSERT_OK(tessera_grid_shape(g, got));
  ASSERT_OK(tessera_grid_size(g, &positions));
  ASSERT_OK(tessera_grid_rank_at(g, at, &r));
  EXPECT_EQ(ndim, 2);
  EXPECT_EQ(got[0], 2);
  EXPECT_EQ(got[1], 3);
  EXPECT_EQ(positions, 6);
  EXPECT_EQ(r, 3);  // row-major
  ASSERT_OK(tessera_grid_position_of(g, 5, &active, got));
  EXPECT_EQ(active, 1);
  EXPECT_EQ(got[0], 1);
  EXPECT_EQ(got[1], 2);
  ASSERT_OK(tessera_grid_free(&g));

  const std::int64_t extents[3] = {64, 64, 64}, fixed[3] = {0, 0, 1};
  ASSERT_OK(tessera_grid_automatic(3, 12, extents, fixed, &g));
  ASSERT_OK(tessera_grid_shape(g, got));
  EXPECT_EQ(got[0] * got[1], 12);
  EXPECT_EQ(got[2], 1);
  ASSERT_OK(tessera_grid_free(&g));
  ASSERT_OK(tessera_grid_automatic(1, 5, extents, nullptr, &g));
  ASSERT_OK(tessera_grid_size(g, &positions));
  EXPECT_EQ(positions, 5);
  ASSERT_OK(tessera_grid_free(&g));

  // AMP's processor sets: ranks 7, 6, 5, 4 of 8 active, in that logical order; 0-3 skeletons.
  const int active_ranks[4] = {7, 6, 5, 4};
  ASSERT_OK(tessera_grid_over_ranks(2, 8, active_ranks, 4, extents, nullptr, &g));
  ASSERT_OK(tessera_grid_size(g, &positions));
  EXPECT_EQ(positions, 4);
  const std::int64_t origin[2] = {0, 0};
  ASSERT_OK(tessera_grid_rank_at(g, origin, &r));
  EXPECT_EQ(r, 7);
  ASSERT_OK(tessera_grid_position_of(g, 2, &active, got));
  EXPECT_EQ(active, 0);
  ASSERT_OK(tessera_grid_free(&g));

  const int table[6] = {0, 2, 4, 1, 3, 5};
  ASSERT_OK(tessera_grid_from_ranks(2, 6, shape, table, 6, &g));
  const std::int64_t p01[2] = {0, 1};
  ASSERT_OK(tessera_grid_rank_at(g, p01, &r));
  EXPECT_EQ(r, 2);
  ASSERT_OK(tessera_grid_free(&g));
}

TEST_F(CApiTest, GridsRefuseBadInput) {
  tessera_grid g = nullptr;
  const std::int64_t shape[2] = {2, 3}, extents[2] = {10, 10};
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_grid_create(4, 6, shape, &g));
  expect_error_mentions({"tessera_grid_create", "'ndim' = 4", "1, 2 or 3"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_grid_create(0, 6, shape, &g));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_grid_create(2, 6, nullptr, &g));
  expect_error_mentions({"'shape' = NULL"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_grid_create(2, 5, shape, &g));
  expect_error_mentions({"'shape'", "6 positions", "comm_size is 5"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_grid_create(2, 6, shape, nullptr));
  expect_error_mentions({"'out' = NULL"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_grid_automatic(2, 0, extents, nullptr, &g));
  expect_error_mentions({"'comm_size' = 0"});
  const int repeated[2] = {1, 1};
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_grid_over_ranks(2, 4, repeated, 2, extents, nullptr, &g));
  expect_error_mentions({"'active_ranks[1]' = 1", "repeats"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_grid_over_ranks(2, 4, nullptr, 2, extents, nullptr, &g));
  const int table[3] = {0, 1, 2};
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_grid_from_ranks(2, 6, shape, table, 3, &g));
  expect_error_mentions({"'ranks.size()' = 3"});
  EXPECT_EQ(g, nullptr);

  ASSERT_OK(tessera_grid_create(2, 6, shape, &g));
  int r = 0, active = 0;
  std::int64_t position[2] = {2, 0};
  EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_grid_rank_at(g, position, &r));
  expect_error_mentions({"'position' = (2, 0)", "outside the grid"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_grid_rank_at(g, nullptr, &r));
  EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_grid_position_of(g, 6, &active, position));
  expect_error_mentions({"'rank' = 6"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_grid_position_of(g, 0, nullptr, position));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_grid_ndim(g, nullptr));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_grid_shape(g, nullptr));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_grid_size(g, nullptr));
  ASSERT_OK(tessera_grid_free(&g));
}

// A distribution over a grid of `shape` for `comm_size` ranks (grids need no MPI).
tessera_dist make_dist(int comm_size, std::vector<std::int64_t> shape, const tessera_box& box,
                       std::vector<tessera_dim_spec> specs, const int* order = nullptr) {
  tessera_grid g = nullptr;
  EXPECT_STATUS(TESSERA_OK, tessera_grid_create(static_cast<int>(shape.size()), comm_size, shape.data(), &g));
  tessera_dist d = nullptr;
  EXPECT_STATUS(TESSERA_OK, tessera_dist_create(g, &box, specs.data(), order, &d));
  EXPECT_STATUS(TESSERA_OK, tessera_grid_free(&g));
  return d;
}

std::string describe(tessera_dist d) {
  char text[256];
  size_t length = 0;
  EXPECT_STATUS(TESSERA_OK, tessera_dist_describe(d, text, sizeof text, &length));
  EXPECT_EQ(length, std::strlen(text));
  return text;
}

TEST_F(CApiTest, EveryBuiltInDistributionKind) {
  const tessera_box row = {{0}, {12}};
  const std::int64_t bounds[4] = {0, 2, 9, 12};
  const double weights[3] = {1, 2, 3};
  const int owners[12] = {0, 1, 2, 2, 1, 0, 0, 1, 2, 2, 1, 0};
  struct Case {
    tessera_dim_spec spec;
    std::vector<int> owner_of;  // of indices 0..11
    const char* printed;
  };
  tessera_dim_spec block{}, block_lb{}, cut{}, cut_w{}, cyclic{}, bcyclic{}, irregular{};
  block_lb.logical_block = 3;
  cut.kind = TESSERA_DIM_CUT, cut.boundaries = bounds, cut.boundary_count = 4;
  cut_w.kind = TESSERA_DIM_CUT_WEIGHTS, cut_w.weights = weights, cut_w.weight_count = 3;
  cyclic.kind = TESSERA_DIM_CYCLIC;
  bcyclic.kind = TESSERA_DIM_BLOCK_CYCLIC, bcyclic.block_size = 2, bcyclic.source = 1;
  irregular.kind = TESSERA_DIM_IRREGULAR, irregular.owners = owners, irregular.owner_count = 12;
  const std::vector<Case> cases = {
      {block, {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2}, "block"},
      {block_lb, {0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2}, "lb=3"},
      {cut, {0, 0, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2}, "cut(0,2,9,12)"},
      {cut_w, {0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2}, "cut"},
      {cyclic, {0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2}, "cyclic"},
      {bcyclic, {1, 1, 2, 2, 0, 0, 1, 1, 2, 2, 0, 0}, "block_cyclic(2"},
      {irregular, {0, 1, 2, 2, 1, 0, 0, 1, 2, 2, 1, 0}, "irregular"},
  };
  for (const Case& c : cases) {
    tessera_dist d = make_dist(3, {3}, row, {c.spec});
    for (std::int64_t i = 0; i < 12; ++i) {
      int r = -1;
      ASSERT_OK(tessera_dist_owner(d, &i, &r));
      EXPECT_EQ(r, c.owner_of[static_cast<std::size_t>(i)]) << describe(d) << " index " << i;
    }
    EXPECT_NE(describe(d).find(c.printed), std::string::npos) << describe(d);
    ASSERT_OK(tessera_dist_free(&d));
  }
  // Collapsed: everything on the one coordinate of its axis.
  tessera_dim_spec collapsed{};
  collapsed.kind = TESSERA_DIM_COLLAPSED;
  const tessera_box square = {{0, 0}, {4, 4}};
  tessera_dist d = make_dist(2, {2, 1}, square, {tessera_dim_spec{}, collapsed});
  tessera_box owned;
  ASSERT_OK(tessera_dist_owned_box(d, 1, &owned));
  EXPECT_EQ(owned.lo[0], 2);
  EXPECT_EQ(owned.hi[0], 4);
  EXPECT_EQ(owned.lo[1], 0);
  EXPECT_EQ(owned.hi[1], 4);
  ASSERT_OK(tessera_dist_free(&d));
}

TEST_F(CApiTest, GeneralDistributionsAndTheDimensionOrder) {
  // D3-ARC Fig. 6: rows cut first (2 slabs), then each slab's columns by its ranks' weights.
  const std::int64_t shape[2] = {2, 2};
  tessera_grid g = nullptr;
  ASSERT_OK(tessera_grid_create(2, 4, shape, &g));
  const tessera_box box = {{0, 0}, {10, 10}};
  tessera_dim_spec specs[2] = {};
  specs[0].kind = TESSERA_DIM_GENERAL;
  specs[1].kind = TESSERA_DIM_GENERAL;
  const double weights[4] = {1, 1, 1, 4};
  tessera_dist d = nullptr;
  ASSERT_OK(tessera_dist_from_rank_weights(g, &box, weights, 4, specs, nullptr, &d));
  size_t slabs = 0;
  ASSERT_OK(tessera_dist_slab_count(d, 1, &slabs));
  EXPECT_EQ(slabs, 2u);
  std::int64_t cuts[6];
  ASSERT_OK(tessera_dist_slab_cuts(d, 1, cuts, 6));
  EXPECT_EQ(cuts[1], 5);  // slab 0: weights 1, 1
  EXPECT_EQ(cuts[4], 2);  // slab 1: weights 1, 4
  ASSERT_OK(tessera_dist_slab_cuts(d, 0, cuts, 3));
  EXPECT_EQ(cuts[1], 3);  // rows: 2 against 5
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_slab_cuts(d, 1, cuts, 5));
  expect_error_mentions({"'capacity' = 5", "6 boundaries"});
  EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_dist_slab_count(d, 2, &slabs));
  expect_error_mentions({"'axis' = 2"});
  EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_dist_slab_cuts(d, -1, cuts, 6));

  // The same with columns first: order r = [1, 0].
  const int order[2] = {1, 0};
  tessera_dist by_columns = nullptr;
  ASSERT_OK(tessera_dist_from_rank_weights(g, &box, weights, 4, specs, order, &by_columns));
  ASSERT_OK(tessera_dist_slab_count(by_columns, 0, &slabs));
  EXPECT_EQ(slabs, 2u);
  int equal = 1;
  ASSERT_OK(tessera_dist_equal(d, by_columns, &equal));
  EXPECT_EQ(equal, 0);
  ASSERT_OK(tessera_dist_equal(d, d, &equal));
  EXPECT_EQ(equal, 1);
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_equal(d, d, nullptr));

  // Moving the cuts of one slab (what incremental balancing does).
  const std::int64_t new_cuts[6] = {0, 4, 10, 0, 6, 10};
  tessera_dist moved = nullptr;
  ASSERT_OK(tessera_dist_with_cuts(d, 1, new_cuts, 2, &moved));
  const std::int64_t p[2] = {9, 5};
  int r = -1;
  ASSERT_OK(tessera_dist_owner(moved, p, &r));
  EXPECT_EQ(r, 2);
  ASSERT_OK(tessera_dist_free(&moved));
  const std::int64_t bad_cuts[3] = {0, 11, 10};
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_with_cuts(d, 1, bad_cuts, 1, &moved));
  EXPECT_EQ(moved, nullptr);
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_with_cuts(d, 1, nullptr, 1, &moved));
  EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_dist_with_cuts(d, 3, new_cuts, 1, &moved));

  // Bad weights and orders.
  tessera_dist refused = nullptr;
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT,
                tessera_dist_from_rank_weights(g, &box, weights, 3, specs, nullptr, &refused));
  expect_error_mentions({"'rank_weights' = 3", "4 positions"});
  const int not_a_permutation[2] = {1, 1};
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT,
                tessera_dist_from_rank_weights(g, &box, weights, 4, specs, not_a_permutation, &moved));
  expect_error_mentions({"'order[1]' = 1", "not a permutation"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_create(g, &box, specs, nullptr, &moved));
  expect_error_mentions({"general"});
  ASSERT_OK(tessera_dist_free(&by_columns));
  ASSERT_OK(tessera_grid_free(&g));
  ASSERT_OK(tessera_dist_free(&d));
}

TEST_F(CApiTest, DistributionQueriesAndTheirErrors) {
  const tessera_box box = {{0, 0}, {6, 8}};
  tessera_dim_spec cyc{};
  cyc.kind = TESSERA_DIM_CYCLIC;
  tessera_dist blocks = make_dist(4, {2, 2}, box, {tessera_dim_spec{}, tessera_dim_spec{}});
  tessera_dist cyclic = make_dist(4, {2, 2}, box, {tessera_dim_spec{}, cyc});
  int ndim = 0, r = 0;
  ASSERT_OK(tessera_dist_ndim(blocks, &ndim));
  EXPECT_EQ(ndim, 2);
  tessera_box b;
  ASSERT_OK(tessera_dist_box(blocks, &b));
  EXPECT_EQ(b.hi[1], 8);
  EXPECT_EQ(b.lo[2], 0);
  EXPECT_EQ(b.hi[2], 0) << "entries past ndim are zero";
  tessera_grid g = nullptr;
  ASSERT_OK(tessera_dist_grid(blocks, &g));
  int positions = 0;
  ASSERT_OK(tessera_grid_size(g, &positions));
  EXPECT_EQ(positions, 4);
  ASSERT_OK(tessera_grid_free(&g));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_grid(blocks, nullptr));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_ndim(blocks, nullptr));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_box(blocks, nullptr));
  std::int64_t local = 0;
  ASSERT_OK(tessera_dist_local_size(cyclic, 3, &local));
  EXPECT_EQ(local, 12);
  ASSERT_OK(tessera_dist_owned_box(blocks, 3, &b));
  EXPECT_EQ(b.lo[0], 3);
  EXPECT_EQ(b.lo[1], 4);
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_owned_box(cyclic, 0, &b));
  expect_error_mentions({"tessera_dist_owned_box", "'distribution'", "cyclic"});
  size_t count = 0;
  ASSERT_OK(tessera_dist_owned_boxes(cyclic, 0, nullptr, 0, &count));
  EXPECT_EQ(count, 4u);  // columns 0, 2, 4, 6 of rows 0..2
  std::vector<tessera_box> boxes(count);
  ASSERT_OK(tessera_dist_owned_boxes(cyclic, 0, boxes.data(), boxes.size(), &count));
  EXPECT_EQ(boxes[1].lo[1], 2);
  EXPECT_EQ(boxes[1].hi[1], 3);
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_owned_boxes(cyclic, 0, nullptr, 2, &count));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_owned_boxes(cyclic, 9, nullptr, 0, &count));
  expect_error_mentions({"'rank' = 9"});

  const std::int64_t outside[2] = {6, 0};
  EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_dist_owner(blocks, outside, &r));
  expect_error_mentions({"tessera_dist_owner", "point (6, 0)", "outside the domain"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_owner(blocks, nullptr, &r));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_local_size(blocks, -1, &local));

  // Describe: the full length, a truncated copy, and capacity 0.
  size_t length = 0;
  char small[6];
  ASSERT_OK(tessera_dist_describe(blocks, small, sizeof small, &length));
  EXPECT_GT(length, 5u);
  EXPECT_EQ(std::strlen(small), 5u);
  ASSERT_OK(tessera_dist_describe(blocks, nullptr, 0, &length));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_describe(blocks, nullptr, 4, &length));

  ASSERT_OK(tessera_dist_free(&blocks));
  ASSERT_OK(tessera_dist_free(&cyclic));
}

TEST_F(CApiTest, DistributionsRefuseBadSpecs) {
  const std::int64_t shape[1] = {3};
  tessera_grid g = nullptr;
  ASSERT_OK(tessera_grid_create(1, 3, shape, &g));
  const tessera_box box = {{0}, {12}};
  tessera_dist d = nullptr;
  tessera_dim_spec spec{};
  spec.kind = static_cast<tessera_dim_kind>(17);
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_create(g, &box, &spec, nullptr, &d));
  expect_error_mentions({"tessera_dist_create", "'specs[0].kind' = 17", "not a tessera_dim_kind"});
  spec.kind = TESSERA_DIM_CUT;
  const std::int64_t descending[4] = {0, 8, 4, 12};
  spec.boundaries = descending;
  spec.boundary_count = 4;
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_create(g, &box, &spec, nullptr, &d));
  expect_error_mentions({"boundaries"});
  spec.boundaries = nullptr;
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_create(g, &box, &spec, nullptr, &d));
  expect_error_mentions({"'specs[0].boundaries' = NULL"});
  spec = tessera_dim_spec{};
  spec.logical_block = -2;
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_create(g, &box, &spec, nullptr, &d));
  expect_error_mentions({"'specs[0].logical_block' = -2"});
  spec = tessera_dim_spec{};
  spec.kind = TESSERA_DIM_COLLAPSED;  // over an axis of 3 coordinates
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_create(g, &box, &spec, nullptr, &d));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_create(g, nullptr, &spec, nullptr, &d));
  expect_error_mentions({"'box' = NULL"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_create(g, &box, nullptr, nullptr, &d));
  expect_error_mentions({"'specs' = NULL"});
  EXPECT_STATUS(TESSERA_ERR_NULL_HANDLE, tessera_dist_create(nullptr, &box, &spec, nullptr, &d));
  EXPECT_EQ(d, nullptr);
  ASSERT_OK(tessera_grid_free(&g));
}

TEST_F(CApiTest, VolumesThatOverflowAreReported) {
  // 2^62 x 4 points on one rank: the local size does not fit in 64 bits.
  const std::int64_t shape[2] = {1, 1};
  tessera_grid g = nullptr;
  ASSERT_OK(tessera_grid_create(2, 1, shape, &g));
  const tessera_box huge = {{0, 0}, {std::int64_t{1} << 62, 4}};
  const tessera_dim_spec specs[2] = {{}, {}};
  tessera_dist d = nullptr;
  ASSERT_OK(tessera_dist_create(g, &huge, specs, nullptr, &d));
  std::int64_t local = 0;
  EXPECT_STATUS(TESSERA_ERR_OVERFLOW, tessera_dist_local_size(d, 0, &local));
  expect_error_mentions({"tessera_dist_local_size", "overflows 64 bits"});
  ASSERT_OK(tessera_dist_free(&d));
  ASSERT_OK(tessera_grid_free(&g));
}

}  // namespace
}  // namespace tessera::capi_testing
