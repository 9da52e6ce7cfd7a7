// tessera_copy, tessera_copy_section, tessera_transpose, tessera_gather, tessera_scatter and the
// reusable schedules (including a schedule made stale by a remap) through the C API.
#include <vector>

#include "capi_checks.hpp"

namespace tessera::capi_testing {
namespace {

class RemapTest : public CApiTest {
 protected:
  void SetUp() override {
    CApiTest::SetUp();
    blocks = block2(6, 4);
    dom = domain_of(blocks);
    // A second domain of the transposed shape, cyclic along its rows.
    tessera_grid g = grid2(4, 6);
    tessera_dim_spec specs[2] = {};
    specs[0].kind = TESSERA_DIM_CYCLIC;
    const tessera_box box = {{0, 0}, {4, 6}};
    ASSERT_OK(tessera_dist_create(g, &box, specs, nullptr, &cyclic_t));
    ASSERT_OK(tessera_grid_free(&g));
    dom_t = domain_of(cyclic_t);
  }
  void TearDown() override {
    EXPECT_STATUS(TESSERA_OK, tessera_domain_free(&dom));
    EXPECT_STATUS(TESSERA_OK, tessera_domain_free(&dom_t));
    EXPECT_STATUS(TESSERA_OK, tessera_dist_free(&blocks));
    EXPECT_STATUS(TESSERA_OK, tessera_dist_free(&cyclic_t));
    CApiTest::TearDown();
  }
  tessera_array make(tessera_domain d, tessera_type type = TESSERA_DOUBLE) {
    tessera_array a = nullptr;
    EXPECT_STATUS(TESSERA_OK, tessera_array_create(d, type, nullptr, &a));
    return a;
  }
  /// Scatters value(i, j) over a rows x cols array.
  void fill(tessera_array a, std::int64_t rows, std::int64_t cols) {
    std::vector<double> v(static_cast<std::size_t>(rows * cols));
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j) v[static_cast<std::size_t>(i * cols + j)] = value(i, j);
    ASSERT_OK(tessera_array_scatter_from(a, 0, TESSERA_DOUBLE, v.data(), rank == 0 ? rows * cols : 0));
  }
  std::vector<double> all(tessera_array a, std::int64_t count) {
    std::vector<double> v(static_cast<std::size_t>(count));
    EXPECT_STATUS(TESSERA_OK, tessera_array_gather_to_all(a, TESSERA_DOUBLE, v.data(), count));
    return v;
  }
  static double value(std::int64_t i, std::int64_t j) { return static_cast<double>(10 * i + j); }

  tessera_dist blocks = nullptr, cyclic_t = nullptr;
  tessera_domain dom = nullptr, dom_t = nullptr;
};

TEST_F(RemapTest, CopyCopySectionAndTranspose) {
  tessera_array a = make(dom), b = make(dom), t = make(dom_t);
  fill(a, 6, 4);
  ASSERT_OK(tessera_copy(a, b));
  EXPECT_EQ(all(b, 24), all(a, 24));
  const int perm[2] = {1, 0};
  ASSERT_OK(tessera_transpose(a, t, perm));
  const auto at = all(t, 24);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 6; ++j) EXPECT_EQ(at[static_cast<std::size_t>(i * 6 + j)], value(j, i));
  // b[3..5, 0..2) = a[0..2, 2..4), in place onto the same array too.
  const tessera_box src = {{0, 2}, {2, 4}};
  const std::int64_t dst_lo[2] = {3, 0};
  ASSERT_OK(tessera_copy_section(a, &src, b, dst_lo));
  ASSERT_OK(tessera_copy_section(a, &src, a, dst_lo));
  const auto ab = all(b, 24), aa = all(a, 24);
  EXPECT_EQ(ab[3 * 4 + 1], value(0, 3));
  EXPECT_EQ(aa[4 * 4 + 0], value(1, 2));

  // Bad input.
  tessera_array f = make(dom, TESSERA_FLOAT);
  EXPECT_STATUS(TESSERA_ERR_WRONG_TYPE, tessera_copy(a, f));
  expect_error_mentions({"tessera_copy", "'dst' holds TESSERA_FLOAT", "'src' holds TESSERA_DOUBLE"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_copy(a, t));
  expect_error_mentions({"another box"});
  const int not_perm[2] = {0, 0};
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_transpose(a, t, not_perm));
  expect_error_mentions({"tessera_transpose", "'perm[1]' = 0"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_transpose(a, b, perm));  // 6x4 onto 6x4
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_transpose(a, t, nullptr));
  const tessera_box outside = {{4, 0}, {8, 2}};
  EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_copy_section(a, &outside, b, dst_lo));
  expect_error_mentions({"'src_box'", "not inside the source domain"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_copy_section(a, nullptr, b, dst_lo));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_copy_section(a, &src, b, nullptr));
  EXPECT_STATUS(TESSERA_ERR_NULL_HANDLE, tessera_copy(nullptr, b));
  // Arrays of different dimensions.
  tessera_grid g1 = nullptr;
  const std::int64_t n = 24;
  ASSERT_OK(tessera_grid_automatic(1, size, &n, nullptr, &g1));
  const tessera_box line = {{0}, {24}};
  const tessera_dim_spec spec{};
  tessera_dist d1 = nullptr;
  ASSERT_OK(tessera_dist_create(g1, &line, &spec, nullptr, &d1));
  tessera_domain dom1 = domain_of(d1);
  tessera_array v1 = make(dom1);
  EXPECT_STATUS(TESSERA_ERR_MISMATCH, tessera_copy(a, v1));
  expect_error_mentions({"'dst' is 1-dimensional but argument 'src' is 2-dimensional"});
  for (tessera_array* x : {&a, &b, &t, &f, &v1}) ASSERT_OK(tessera_array_free(x));
  ASSERT_OK(tessera_domain_free(&dom1));
  ASSERT_OK(tessera_dist_free(&d1));
  ASSERT_OK(tessera_grid_free(&g1));
}

TEST_F(RemapTest, GatherAndScatterThroughIndexArrays) {
  tessera_array src = make(dom), idx = make(dom_t, TESSERA_INDEX), out = make(dom_t);
  fill(src, 6, 4);
  // idx(i, j) = (j, i): out becomes src transposed, through the irregular path.
  size_t patches = 0;
  ASSERT_OK(tessera_array_patch_count(idx, &patches));
  for (std::int64_t i = 0; i < 4; ++i)
    for (std::int64_t j = 0; j < 6; ++j) {
      const std::int64_t p[2] = {i, j};
      int owner = -1;
      ASSERT_OK(tessera_dist_owner(cyclic_t, p, &owner));
      if (owner != rank) continue;
      const tessera_index where = {{j, i, 0}};
      ASSERT_OK(tessera_array_set(idx, p, TESSERA_INDEX, &where));
    }
  ASSERT_OK(tessera_gather(src, idx, out));
  const auto got = all(out, 24);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 6; ++j) EXPECT_EQ(got[static_cast<std::size_t>(i * 6 + j)], value(j, i));
  // Scatter it back, adding onto a zero array.
  tessera_array back = make(dom);
  ASSERT_OK(tessera_scatter(out, idx, back, TESSERA_OP_ADD));
  EXPECT_EQ(all(back, 24), all(src, 24));
  ASSERT_OK(tessera_scatter(out, idx, back, TESSERA_OP_REPLACE));

  EXPECT_STATUS(TESSERA_ERR_WRONG_TYPE, tessera_gather(src, out, out));
  expect_error_mentions({"tessera_gather", "'index' holds TESSERA_DOUBLE", "TESSERA_INDEX"});
  tessera_array ints = make(dom_t, TESSERA_INT32);
  EXPECT_STATUS(TESSERA_ERR_WRONG_TYPE, tessera_gather(src, idx, ints));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_gather(src, idx, back));
  expect_error_mentions({"'dst'", "must have the distribution of 'index'"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_scatter(out, idx, back, static_cast<tessera_op>(-1)));
  // An index outside the source domain.
  {
    std::int64_t p[2] = {0, 0};
    int owner = -1;
    ASSERT_OK(tessera_dist_owner(cyclic_t, p, &owner));
    if (owner == rank) {
      const tessera_index bad = {{99, 0, 0}};
      ASSERT_OK(tessera_array_set(idx, p, TESSERA_INDEX, &bad));
    }
  }
  EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_gather(src, idx, out));
  expect_error_mentions({"'index'", "(99, 0)"});
  for (tessera_array* x : {&src, &idx, &out, &back, &ints}) ASSERT_OK(tessera_array_free(x));
}

TEST_F(RemapTest, SchedulesAreReusedAndGoStaleAtARemap) {
  tessera_array b = make(dom), temp = make(dom_t), same = make(dom);
  fill(b, 6, 4);
  const int perm[2] = {1, 0};
  tessera_schedule s = nullptr;
  ASSERT_OK(tessera_schedule_transpose(b, temp, perm, &s));
  for (int step = 0; step < 3; ++step) ASSERT_OK(tessera_schedule_execute(s, b, temp));
  const auto t = all(temp, 24);
  EXPECT_EQ(t[1 * 6 + 5], value(5, 1));
  tessera_schedule c = nullptr;
  ASSERT_OK(tessera_schedule_copy(b, same, &c));
  ASSERT_OK(tessera_schedule_execute(c, b, same));
  EXPECT_EQ(all(same, 24), all(b, 24));
  // An in-place copy schedule (source and destination one array).
  tessera_schedule self = nullptr;
  ASSERT_OK(tessera_schedule_copy(b, b, &self));
  ASSERT_OK(tessera_schedule_execute(self, b, b));

  // The wrong arrays, and arrays that moved since the schedule was built.
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_schedule_execute(s, same, temp));
  expect_error_mentions({"tessera_schedule_execute", "'src' is not the source array"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_schedule_execute(s, b, b));
  tessera_grid g = grid2(6, 4);
  tessera_dim_spec specs[2] = {};
  specs[1].kind = TESSERA_DIM_CYCLIC;
  const tessera_box box = {{0, 0}, {6, 4}};
  tessera_dist moved = nullptr;
  ASSERT_OK(tessera_dist_create(g, &box, specs, nullptr, &moved));
  ASSERT_OK(tessera_domain_redistribute(dom, moved, TESSERA_PRESERVE));
  // (On one rank both distributions own everything alike: then nothing is stale.)
  int unchanged = 0;
  ASSERT_OK(tessera_dist_equal(moved, blocks, &unchanged));
  if (!unchanged) {
    EXPECT_STATUS(TESSERA_ERR_CALL_ORDER, tessera_schedule_execute(s, b, temp));
    expect_error_mentions({"'src' was redistributed since the schedule was built", "build the schedule again"});
    EXPECT_STATUS(TESSERA_ERR_CALL_ORDER, tessera_schedule_execute(c, b, same));
  }
  ASSERT_OK(tessera_schedule_free(&s));
  ASSERT_OK(tessera_schedule_transpose(b, temp, perm, &s));
  ASSERT_OK(tessera_schedule_execute(s, b, temp));
  EXPECT_EQ(all(temp, 24), t) << "the rebuilt schedule moves the same values";
  // A destination redistributed alone goes stale too.
  tessera_grid gt = grid2(4, 6);
  const tessera_box tbox = {{0, 0}, {4, 6}};
  const tessera_dim_spec plain[2] = {{}, {}};
  tessera_dist tblocks = nullptr;
  ASSERT_OK(tessera_dist_create(gt, &tbox, plain, nullptr, &tblocks));
  ASSERT_OK(tessera_domain_redistribute(dom_t, tblocks, TESSERA_PRESERVE));
  int equal = 0;
  ASSERT_OK(tessera_dist_equal(tblocks, cyclic_t, &equal));
  if (!equal) {
    EXPECT_STATUS(TESSERA_ERR_CALL_ORDER, tessera_schedule_execute(s, b, temp));
  }

  // Bad construction.
  tessera_schedule refused = nullptr;
  const int not_perm[2] = {1, 1};
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_schedule_transpose(b, temp, not_perm, &refused));
  expect_error_mentions({"tessera_schedule_transpose", "'perm[1]' = 1"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_schedule_transpose(b, same, perm, &refused));
  expect_error_mentions({"'dst' has extent"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_schedule_transpose(b, temp, nullptr, &refused));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_schedule_copy(b, temp, &refused));
  expect_error_mentions({"tessera_schedule_copy", "'dst' is over the box"});
  tessera_array ints = make(dom, TESSERA_INT32);
  EXPECT_STATUS(TESSERA_ERR_WRONG_TYPE, tessera_schedule_copy(b, ints, &refused));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_schedule_copy(b, same, nullptr));
  EXPECT_EQ(refused, nullptr);
  // Another communicator object.
  tessera_comm other = nullptr;
  ASSERT_OK(tessera_comm_create(MPI_COMM_WORLD, &other));
  tessera_domain foreign = nullptr;
  ASSERT_OK(tessera_domain_create(other, blocks, &foreign));
  tessera_array far = make(foreign);
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_schedule_copy(b, far, &refused));
  expect_error_mentions({"another tessera_comm"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_copy(b, far));

  tessera_schedule stale = s;
  ASSERT_OK(tessera_schedule_free(&s));
  EXPECT_STATUS(TESSERA_ERR_FREED_HANDLE, tessera_schedule_execute(stale, b, temp));
  for (tessera_schedule* x : {&c, &self}) ASSERT_OK(tessera_schedule_free(x));
  for (tessera_array* x : {&b, &temp, &same, &ints, &far}) ASSERT_OK(tessera_array_free(x));
  ASSERT_OK(tessera_domain_free(&foreign));
  ASSERT_OK(tessera_comm_free(&other));
  for (tessera_dist* x : {&moved, &tblocks}) ASSERT_OK(tessera_dist_free(x));
  for (tessera_grid* x : {&g, &gt}) ASSERT_OK(tessera_grid_free(x));
}

}  // namespace
}  // namespace tessera::capi_testing
