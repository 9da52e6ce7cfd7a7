// tessera_domain_* and tessera_array_*: domains, arrays of every element type and dimension,
// local views, element access, ghost updates (and their call order), scatter and gather, and
// reductions, through the C API, each on good and bad input.
#include <algorithm>
#include <complex>
#include <cstring>
#include <vector>

#include "capi_checks.hpp"

namespace tessera::capi_testing {
namespace {

/// Sets every owned element of a 2-D double array to 100 i + j through its local view.
void set_pattern(tessera_array a) {
  size_t patches = 0;
  ASSERT_OK(tessera_array_patch_count(a, &patches));
  for (size_t k = 0; k < patches; ++k) {
    tessera_view v;
    ASSERT_OK(tessera_array_local(a, k, TESSERA_DOUBLE, &v));
    auto* data = static_cast<double*>(v.data);
    for (std::int64_t i = 0; i < v.count[0]; ++i)
      for (std::int64_t j = 0; j < v.count[1]; ++j)
        data[(i + v.ghost_lo[0]) * v.strides[0] + (j + v.ghost_lo[1]) * v.strides[1]] =
            100.0 * static_cast<double>(v.first[0] + i) + static_cast<double>(v.first[1] + j);
  }
}

double pattern(std::int64_t i, std::int64_t j) { return 100.0 * static_cast<double>(i) + static_cast<double>(j); }

TEST_F(CApiTest, DomainsRedistributeAndMigrateTheirArrays) {
  tessera_dist blocks = block2(9, 7);
  tessera_domain dom = domain_of(blocks);
  int ndim = 0;
  ASSERT_OK(tessera_domain_ndim(dom, &ndim));
  EXPECT_EQ(ndim, 2);
  tessera_box box;
  ASSERT_OK(tessera_domain_box(dom, &box));
  EXPECT_EQ(box.hi[0], 9);
  tessera_array a = nullptr;
  ASSERT_OK(tessera_array_create(dom, TESSERA_DOUBLE, nullptr, &a));
  set_pattern(a);

  // Preserve onto a cyclic distribution: values follow.
  tessera_grid g = grid2(9, 7);
  tessera_dim_spec specs[2] = {};
  specs[1].kind = TESSERA_DIM_CYCLIC;
  const tessera_box b97 = {{0, 0}, {9, 7}};
  tessera_dist cyclic = nullptr;
  ASSERT_OK(tessera_dist_create(g, &b97, specs, nullptr, &cyclic));
  ASSERT_OK(tessera_domain_redistribute(dom, cyclic, TESSERA_PRESERVE));
  tessera_dist now = nullptr;
  ASSERT_OK(tessera_domain_distribution(dom, &now));
  int equal = 0;
  ASSERT_OK(tessera_dist_equal(now, cyclic, &equal));
  EXPECT_EQ(equal, 1);
  std::vector<double> all(63);
  ASSERT_OK(tessera_array_gather_to_all(a, TESSERA_DOUBLE, all.data(), 63));
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 7; ++j) EXPECT_EQ(all[static_cast<std::size_t>(i * 7 + j)], pattern(i, j));

  // Migrate back (same box), then a destructive redistribution zeroes everything.
  double seconds = -1;
  ASSERT_OK(tessera_domain_migrate(dom, blocks, &seconds));
  EXPECT_GE(seconds, 0.0);
  ASSERT_OK(tessera_array_gather_to_all(a, TESSERA_DOUBLE, all.data(), 63));
  EXPECT_EQ(all[62], pattern(8, 6));
  ASSERT_OK(tessera_domain_set_spare_rows(dom, 0.5));
  ASSERT_OK(tessera_domain_redistribute(dom, cyclic, TESSERA_DESTRUCTIVE));
  ASSERT_OK(tessera_array_gather_to_all(a, TESSERA_DOUBLE, all.data(), 63));
  EXPECT_EQ(all[62], 0.0);

  // Bad input.
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT,
                tessera_domain_redistribute(dom, blocks, static_cast<tessera_redistribution>(5)));
  expect_error_mentions({"tessera_domain_redistribute", "'mode' = 5"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_domain_set_spare_rows(dom, -1));
  expect_error_mentions({"'fraction_of_even_share' = -1"});
  tessera_dist other_box = block2(10, 7);
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_domain_migrate(dom, other_box, nullptr));
  expect_error_mentions({"tessera_domain_migrate", "'to'", "another box"});
  tessera_grid g1 = nullptr;
  const std::int64_t twelve = 12;
  ASSERT_OK(tessera_grid_automatic(1, size, &twelve, nullptr, &g1));
  const tessera_box line = {{0}, {12}};
  tessera_dist one_d = nullptr;
  ASSERT_OK(tessera_dist_create(g1, &line, specs, nullptr, &one_d));
  EXPECT_STATUS(TESSERA_ERR_MISMATCH, tessera_domain_redistribute(dom, one_d, TESSERA_PRESERVE));
  expect_error_mentions({"'to' is 1-dimensional", "domain is 2-dimensional"});
  EXPECT_STATUS(TESSERA_ERR_MISMATCH, tessera_domain_migrate(dom, one_d, nullptr));
  // A distribution for another number of ranks.
  const std::int64_t shape[2] = {size + 1, 1};
  tessera_grid wrong = nullptr;
  ASSERT_OK(tessera_grid_create(2, size + 1, shape, &wrong));
  tessera_dist for_more = nullptr;
  const tessera_dim_spec plain[2] = {{}, {}};
  ASSERT_OK(tessera_dist_create(wrong, &b97, plain, nullptr, &for_more));
  tessera_domain refused = nullptr;
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_domain_create(world, for_more, &refused));
  expect_error_mentions({"tessera_domain_create", "ranks but the communicator has"});
  EXPECT_STATUS(TESSERA_ERR_NULL_HANDLE, tessera_domain_create(nullptr, blocks, &refused));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_domain_box(dom, nullptr));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_domain_ndim(dom, nullptr));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_domain_distribution(dom, nullptr));

  for (tessera_dist* d : {&blocks, &cyclic, &now, &other_box, &one_d, &for_more}) ASSERT_OK(tessera_dist_free(d));
  for (tessera_grid* x : {&g, &g1, &wrong}) ASSERT_OK(tessera_grid_free(x));
  ASSERT_OK(tessera_array_free(&a));
  ASSERT_OK(tessera_domain_free(&dom));
}

TEST_F(CApiTest, ArraysOfEveryTypeAndDimension) {
  const tessera_type types[6] = {TESSERA_FLOAT, TESSERA_DOUBLE,         TESSERA_INT32,
                                 TESSERA_INT64, TESSERA_COMPLEX_DOUBLE, TESSERA_INDEX};
  for (int ndim = 1; ndim <= 3; ++ndim) {
    const std::int64_t extents[3] = {7, 5, 3};
    tessera_grid g = nullptr;
    ASSERT_OK(tessera_grid_automatic(ndim, size, extents, nullptr, &g));
    tessera_box box{};
    for (int d = 0; d < ndim; ++d) box.hi[d] = extents[d];
    const tessera_dim_spec specs[3] = {{}, {}, {}};
    tessera_dist dist = nullptr;
    ASSERT_OK(tessera_dist_create(g, &box, specs, nullptr, &dist));
    tessera_domain dom = domain_of(dist);
    for (tessera_type type : types) {
      tessera_ghosts halo;
      ASSERT_OK(tessera_ghosts_uniform(ndim, 1, &halo));
      tessera_array a = nullptr;
      ASSERT_OK(tessera_array_create(dom, type, &halo, &a));
      tessera_type got = TESSERA_FLOAT;
      int got_ndim = 0;
      ASSERT_OK(tessera_array_type(a, &got));
      ASSERT_OK(tessera_array_ndim(a, &got_ndim));
      EXPECT_EQ(got, type);
      EXPECT_EQ(got_ndim, ndim);
      size_t patches = 0;
      ASSERT_OK(tessera_array_patch_count(a, &patches));
      if (patches == 1) {
        tessera_view v;
        ASSERT_OK(tessera_array_local(a, 0, type, &v));
        EXPECT_EQ(v.ndim, ndim);
        EXPECT_EQ(v.type, type);
        tessera_box owned;
        ASSERT_OK(tessera_array_owned_box(a, 0, &owned));
        for (int d = 0; d < ndim; ++d) {
          EXPECT_EQ(v.extents[d], owned.hi[d] - owned.lo[d] + 2);
          EXPECT_EQ(v.ghost_lo[d], 1);
          EXPECT_EQ(v.first[d], owned.lo[d]);
          EXPECT_EQ(v.contiguous[d], 1);
        }
        EXPECT_EQ(v.strides[ndim - 1], 1);
      }
      // Every element type through get/set at an owned point.
      if (patches == 1) {
        tessera_box owned;
        ASSERT_OK(tessera_array_owned_box(a, 0, &owned));
        unsigned char value[24], back[24];
        for (std::size_t k = 0; k < sizeof value; ++k) value[k] = static_cast<unsigned char>(k + 1);
        ASSERT_OK(tessera_array_set(a, owned.lo, type, value));
        ASSERT_OK(tessera_array_get(a, owned.lo, type, back));
        const std::size_t bytes = type == TESSERA_FLOAT || type == TESSERA_INT32 ? 4
                                  : type == TESSERA_COMPLEX_DOUBLE               ? 16
                                  : type == TESSERA_INDEX                        ? 24
                                                                                 : 8;
        EXPECT_EQ(std::memcmp(value, back, bytes), 0) << "type " << type << " ndim " << ndim;
      }
      ASSERT_OK(tessera_array_free(&a));
    }
    ASSERT_OK(tessera_domain_free(&dom));
    ASSERT_OK(tessera_dist_free(&dist));
    ASSERT_OK(tessera_grid_free(&g));
  }
}

TEST_F(CApiTest, ArraysRefuseBadInput) {
  tessera_dist d = block2(8, 8);
  tessera_domain dom = domain_of(d);
  tessera_array a = nullptr;
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_array_create(dom, static_cast<tessera_type>(9), nullptr, &a));
  expect_error_mentions({"tessera_array_create", "'type' = 9", "not a tessera_type"});
  tessera_ghosts negative{};
  negative.lower[1] = -1;
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_array_create(dom, TESSERA_DOUBLE, &negative, &a));
  expect_error_mentions({"'lower[1]' = -1"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_ghosts_uniform(2, -3, &negative));
  expect_error_mentions({"'width' = -3"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_ghosts_uniform(5, 1, &negative));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_ghosts_uniform(2, 1, nullptr));
  EXPECT_STATUS(TESSERA_ERR_NULL_HANDLE, tessera_array_create(nullptr, TESSERA_DOUBLE, nullptr, &a));
  EXPECT_EQ(a, nullptr);

  // Ghosts along a cyclic dimension are impossible.
  tessera_grid g = grid2(8, 8);
  tessera_dim_spec specs[2] = {};
  specs[0].kind = TESSERA_DIM_CYCLIC;
  const tessera_box box = {{0, 0}, {8, 8}};
  tessera_dist cyc = nullptr;
  ASSERT_OK(tessera_dist_create(g, &box, specs, nullptr, &cyc));
  tessera_domain cdom = domain_of(cyc);
  tessera_ghosts halo;
  ASSERT_OK(tessera_ghosts_uniform(2, 1, &halo));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_array_create(cdom, TESSERA_DOUBLE, &halo, &a));
  expect_error_mentions({"dimension 0 is distributed cyclic"});

  ASSERT_OK(tessera_array_create(dom, TESSERA_DOUBLE, &halo, &a));
  tessera_view v;
  EXPECT_STATUS(TESSERA_ERR_WRONG_TYPE, tessera_array_local(a, 0, TESSERA_FLOAT, &v));
  expect_error_mentions({"tessera_array_local", "'type' = TESSERA_FLOAT", "holds TESSERA_DOUBLE"});
  EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_array_local(a, 3, TESSERA_DOUBLE, &v));
  expect_error_mentions({"'patch' = 3"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_array_local(a, 0, TESSERA_DOUBLE, nullptr));
  tessera_box owned;
  EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_array_owned_box(a, 7, &owned));
  double x = 0;
  const std::int64_t far[2] = {100, 100};
  EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_array_get(a, far, TESSERA_DOUBLE, &x));
  expect_error_mentions({"tessera_array_get", "(100, 100)", "not stored"});
  EXPECT_STATUS(TESSERA_ERR_WRONG_TYPE, tessera_array_set(a, far, TESSERA_INT64, &x));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_array_get(a, nullptr, TESSERA_DOUBLE, &x));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_array_get(a, far, TESSERA_DOUBLE, nullptr));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_array_fill(a, TESSERA_DOUBLE, nullptr));
  EXPECT_STATUS(TESSERA_ERR_WRONG_TYPE, tessera_array_fill(a, TESSERA_INT32, &x));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_array_type(a, nullptr));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_array_ndim(a, nullptr));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_array_patch_count(a, nullptr));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_array_domain(a, nullptr));

  ASSERT_OK(tessera_array_free(&a));
  ASSERT_OK(tessera_domain_free(&cdom));
  ASSERT_OK(tessera_domain_free(&dom));
  ASSERT_OK(tessera_dist_free(&cyc));
  ASSERT_OK(tessera_dist_free(&d));
  ASSERT_OK(tessera_grid_free(&g));
}

TEST_F(CApiTest, CopyOutAndInOfABoxThisRankStores) {
  tessera_dist d = block2(6, 6);
  tessera_domain dom = domain_of(d);
  tessera_ghosts halo;
  ASSERT_OK(tessera_ghosts_uniform(2, 1, &halo));
  tessera_array a = nullptr;
  ASSERT_OK(tessera_array_create(dom, TESSERA_DOUBLE, &halo, &a));
  set_pattern(a);
  ASSERT_OK(tessera_array_update_ghosts(a));
  size_t patches = 0;
  ASSERT_OK(tessera_array_patch_count(a, &patches));
  if (patches == 1) {
    tessera_box owned;
    ASSERT_OK(tessera_array_owned_box(a, 0, &owned));
    // The owned box grown by the ghosts, into a buffer one larger still on every side.
    tessera_box stored = owned, buffer_box = owned;
    for (int k = 0; k < 2; ++k) stored.lo[k] -= 1, stored.hi[k] += 1, buffer_box.lo[k] -= 2, buffer_box.hi[k] += 2;
    const std::int64_t cols = buffer_box.hi[1] - buffer_box.lo[1];
    std::vector<double> buffer(static_cast<std::size_t>((buffer_box.hi[0] - buffer_box.lo[0]) * cols), -1.0);
    ASSERT_OK(tessera_array_copy_out(a, &stored, TESSERA_DOUBLE, buffer.data(), &buffer_box));
    const auto at = [&](std::int64_t i, std::int64_t j) {
      return buffer[static_cast<std::size_t>((i - buffer_box.lo[0]) * cols + (j - buffer_box.lo[1]))];
    };
    EXPECT_EQ(at(owned.lo[0], owned.lo[1]), pattern(owned.lo[0], owned.lo[1]));
    if (owned.hi[0] < 6) {
      EXPECT_EQ(at(owned.hi[0], owned.lo[1]), pattern(owned.hi[0], owned.lo[1])) << "a ghost row";
    }
    EXPECT_EQ(at(buffer_box.lo[0], buffer_box.lo[1]), -1.0) << "outside the region: untouched";
    // Write the owned box back doubled, then read one element.
    for (std::int64_t i = owned.lo[0]; i < owned.hi[0]; ++i)
      for (std::int64_t j = owned.lo[1]; j < owned.hi[1]; ++j)
        buffer[static_cast<std::size_t>((i - buffer_box.lo[0]) * cols + (j - buffer_box.lo[1]))] *= 2;
    ASSERT_OK(tessera_array_copy_in(a, &owned, TESSERA_DOUBLE, buffer.data(), &buffer_box));
    double x = 0;
    ASSERT_OK(tessera_array_get(a, owned.lo, TESSERA_DOUBLE, &x));
    EXPECT_EQ(x, 2 * pattern(owned.lo[0], owned.lo[1]));
    // Bad regions.
    tessera_box malformed = owned;
    malformed.hi[1] = malformed.lo[1] - 1;
    EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT,
                  tessera_array_copy_out(a, &malformed, TESSERA_DOUBLE, buffer.data(), nullptr));
    expect_error_mentions({"tessera_array_copy_out", "'region'", "malformed"});
    EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE,
                  tessera_array_copy_out(a, &buffer_box, TESSERA_DOUBLE, buffer.data(), &owned));
    expect_error_mentions({"not inside argument 'buffer_box'"});
    EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE,
                  tessera_array_copy_in(a, &buffer_box, TESSERA_DOUBLE, buffer.data(), nullptr));
    expect_error_mentions({"not stored"});
    EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT,
                  tessera_array_copy_out(a, nullptr, TESSERA_DOUBLE, buffer.data(), nullptr));
    EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_array_copy_in(a, &owned, TESSERA_DOUBLE, nullptr, nullptr));
    EXPECT_STATUS(TESSERA_ERR_WRONG_TYPE,
                  tessera_array_copy_in(a, &owned, TESSERA_COMPLEX_DOUBLE, buffer.data(), nullptr));
  }
  ASSERT_OK(tessera_array_free(&a));
  ASSERT_OK(tessera_domain_free(&dom));
  ASSERT_OK(tessera_dist_free(&d));
}

TEST_F(CApiTest, GhostUpdatesAndTheirCallOrder) {
  tessera_dist d = block2(8, 6);
  tessera_domain dom = domain_of(d);
  tessera_ghosts halo;
  ASSERT_OK(tessera_ghosts_uniform(2, 1, &halo));
  halo.periodic[0] = 1;
  tessera_array a = nullptr;
  ASSERT_OK(tessera_array_create(dom, TESSERA_DOUBLE, &halo, &a));
  set_pattern(a);
  ASSERT_OK(tessera_array_begin_update_ghosts(a));
  EXPECT_STATUS(TESSERA_ERR_CALL_ORDER, tessera_array_begin_update_ghosts(a));
  expect_error_mentions({"tessera_array_begin_update_ghosts", "in flight already"});
  EXPECT_STATUS(TESSERA_ERR_CALL_ORDER, tessera_array_update_ghosts(a));
  EXPECT_STATUS(TESSERA_ERR_CALL_ORDER, tessera_array_accumulate_ghosts(a, TESSERA_OP_ADD));
  tessera_array in_flight = a;
  EXPECT_STATUS(TESSERA_ERR_CALL_ORDER, tessera_array_free(&in_flight));
  expect_error_mentions({"tessera_array_free", "ghost update in flight"});
  EXPECT_EQ(in_flight, a) << "a refused free leaves the handle alone";
  ASSERT_OK(tessera_array_end_update_ghosts(a));
  EXPECT_STATUS(TESSERA_ERR_CALL_ORDER, tessera_array_end_update_ghosts(a));
  expect_error_mentions({"tessera_array_end_update_ghosts", "no ghost update is in flight"});

  size_t patches = 0;
  ASSERT_OK(tessera_array_patch_count(a, &patches));
  if (patches == 1) {
    tessera_box owned;
    ASSERT_OK(tessera_array_owned_box(a, 0, &owned));
    // The ghost row below wraps around along dimension 0.
    const std::int64_t below[2] = {owned.lo[0] - 1, owned.lo[1]};
    double x = 0;
    ASSERT_OK(tessera_array_get(a, below, TESSERA_DOUBLE, &x));
    EXPECT_EQ(x, pattern((owned.lo[0] + 7) % 8, owned.lo[1]));
  }
  // Accumulate: every ghost adds its value into its owner.
  ASSERT_OK(tessera_array_accumulate_ghosts(a, TESSERA_OP_ADD));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_array_accumulate_ghosts(a, static_cast<tessera_op>(11)));
  expect_error_mentions({"'op' = 11"});
  ASSERT_OK(tessera_array_update_ghosts(a));
  ASSERT_OK(tessera_array_free(&a));

  // An index array cannot accumulate.
  tessera_array idx = nullptr;
  ASSERT_OK(tessera_array_create(dom, TESSERA_INDEX, &halo, &idx));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_array_accumulate_ghosts(idx, TESSERA_OP_ADD));
  expect_error_mentions({"'op' = add", "TESSERA_INDEX"});
  ASSERT_OK(tessera_array_free(&idx));
  ASSERT_OK(tessera_domain_free(&dom));
  ASSERT_OK(tessera_dist_free(&d));
}

TEST_F(CApiTest, ScatterAndGather) {
  tessera_dist d = block2(5, 4);
  tessera_domain dom = domain_of(d);
  tessera_array a = nullptr;
  ASSERT_OK(tessera_array_create(dom, TESSERA_INT64, nullptr, &a));
  std::vector<std::int64_t> whole(20);
  for (std::size_t k = 0; k < whole.size(); ++k) whole[k] = static_cast<std::int64_t>(k * k);
  ASSERT_OK(tessera_array_scatter_from(a, 0, TESSERA_INT64, rank == 0 ? whole.data() : nullptr, rank == 0 ? 20 : 0));
  std::vector<std::int64_t> back(20, -1);
  const int root = size - 1;
  ASSERT_OK(
      tessera_array_gather_to(a, root, TESSERA_INT64, rank == root ? back.data() : nullptr, rank == root ? 20 : 0));
  if (rank == root) {
    EXPECT_EQ(back, whole);
  }
  std::fill(back.begin(), back.end(), -1);
  ASSERT_OK(tessera_array_gather_to_all(a, TESSERA_INT64, back.data(), 20));
  EXPECT_EQ(back, whole);
  std::int64_t x = 0;
  const std::int64_t p[2] = {4, 3};
  int owner = 0;
  ASSERT_OK(tessera_dist_owner(d, p, &owner));
  if (owner == rank) {
    ASSERT_OK(tessera_array_get(a, p, TESSERA_INT64, &x));
    EXPECT_EQ(x, 19 * 19);
  }

  EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_array_scatter_from(a, size, TESSERA_INT64, whole.data(), 20));
  expect_error_mentions({"tessera_array_scatter_from", "'root' = "});
  EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_array_gather_to(a, -1, TESSERA_INT64, back.data(), 20));
  EXPECT_STATUS(TESSERA_ERR_WRONG_TYPE, tessera_array_scatter_from(a, 0, TESSERA_INT32, whole.data(), 20));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_array_scatter_from(a, 0, TESSERA_INT64, whole.data(), -4));
  expect_error_mentions({"'count' = -4"});
  // The wrong count on the root fails on every rank (tessera broadcasts the check).
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_array_scatter_from(a, 0, TESSERA_INT64, whole.data(), 19));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_array_gather_to_all(a, TESSERA_INT64, back.data(), 19));
  expect_error_mentions({"tessera_array_gather_to_all", "'capacity' = 19", "20 elements"});
  // gather_to writes into `out` directly; a buffer too small on the root fails on every rank, and
  // a larger one is fine (only the first 20 elements are written).
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT,
                tessera_array_gather_to(a, root, TESSERA_INT64, back.data(), rank == root ? 19 : 0));
  expect_error_mentions({"tessera_array_gather_to", "19 elements on root"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT,
                tessera_array_gather_to(a, root, TESSERA_INT64, nullptr, rank == root ? 20 : 0));
  std::vector<std::int64_t> roomy(25, -7);
  ASSERT_OK(tessera_array_gather_to(a, root, TESSERA_INT64, rank == root ? roomy.data() : nullptr,
                                    rank == root ? 25 : 0));
  if (rank == root) {
    EXPECT_TRUE(std::equal(whole.begin(), whole.end(), roomy.begin()));
    EXPECT_EQ(roomy[20], -7);
  }
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_array_gather_to_all(a, TESSERA_INT64, nullptr, 20));
  ASSERT_OK(tessera_array_free(&a));
  ASSERT_OK(tessera_domain_free(&dom));
  ASSERT_OK(tessera_dist_free(&d));
}

// Integer sums and products that overflow wrap modulo 2^64 (the fuzzer found them undefined):
// compared with the same fold in unsigned arithmetic, serially.
TEST_F(CApiTest, IntegerReductionsWrapInsteadOfOverflowing) {
  tessera_dist d = block2(4, 5);
  tessera_domain dom = domain_of(d);
  tessera_array n = nullptr;
  ASSERT_OK(tessera_array_create(dom, TESSERA_INT64, nullptr, &n));
  const std::int64_t big = 0x1111111111111111LL;
  ASSERT_OK(tessera_array_fill(n, TESSERA_INT64, &big));
  std::uint64_t sum_bits = 0, product_bits = 1;
  for (int k = 0; k < 20; ++k) {
    sum_bits += static_cast<std::uint64_t>(big);
    product_bits *= static_cast<std::uint64_t>(big);
  }
  std::int64_t sum = 0, product = 0;
  ASSERT_OK(tessera_array_reduce(n, TESSERA_OP_ADD, TESSERA_INT64, &sum));
  EXPECT_EQ(static_cast<std::uint64_t>(sum), sum_bits);
  ASSERT_OK(tessera_array_reduce(n, TESSERA_OP_MULTIPLY, TESSERA_INT64, &product));
  EXPECT_EQ(static_cast<std::uint64_t>(product), product_bits);
  std::vector<std::int64_t> columns(5);
  ASSERT_OK(tessera_array_reduce_along(n, 0, TESSERA_OP_ADD, TESSERA_INT64, columns.data(), 5));
  EXPECT_EQ(static_cast<std::uint64_t>(columns[3]), 4 * static_cast<std::uint64_t>(big));
  ASSERT_OK(tessera_array_free(&n));
  ASSERT_OK(tessera_domain_free(&dom));
  ASSERT_OK(tessera_dist_free(&d));
}

TEST_F(CApiTest, Reductions) {
  tessera_dist d = block2(4, 5);
  tessera_domain dom = domain_of(d);
  tessera_array a = nullptr, n = nullptr, z = nullptr, idx = nullptr;
  ASSERT_OK(tessera_array_create(dom, TESSERA_DOUBLE, nullptr, &a));
  ASSERT_OK(tessera_array_create(dom, TESSERA_INT32, nullptr, &n));
  ASSERT_OK(tessera_array_create(dom, TESSERA_COMPLEX_DOUBLE, nullptr, &z));
  ASSERT_OK(tessera_array_create(dom, TESSERA_INDEX, nullptr, &idx));
  set_pattern(a);  // 100 i + j over [0,4) x [0,5)
  const std::int32_t two = 2;
  ASSERT_OK(tessera_array_fill(n, TESSERA_INT32, &two));
  const std::complex<double> unit(0, 1);
  ASSERT_OK(tessera_array_fill(z, TESSERA_COMPLEX_DOUBLE, &unit));

  double sum = 0, low = 0, high = 0;
  ASSERT_OK(tessera_array_reduce(a, TESSERA_OP_ADD, TESSERA_DOUBLE, &sum));
  EXPECT_EQ(sum, 100.0 * (0 + 1 + 2 + 3) * 5 + (0 + 1 + 2 + 3 + 4) * 4);
  ASSERT_OK(tessera_array_reduce(a, TESSERA_OP_MIN, TESSERA_DOUBLE, &low));
  ASSERT_OK(tessera_array_reduce(a, TESSERA_OP_MAX, TESSERA_DOUBLE, &high));
  EXPECT_EQ(low, 0.0);
  EXPECT_EQ(high, 304.0);
  std::int32_t product = 0;
  ASSERT_OK(tessera_array_reduce(n, TESSERA_OP_MULTIPLY, TESSERA_INT32, &product));
  EXPECT_EQ(product, 1 << 20);
  std::complex<double> total;
  ASSERT_OK(tessera_array_reduce(z, TESSERA_OP_ADD, TESSERA_COMPLEX_DOUBLE, &total));
  EXPECT_EQ(total, std::complex<double>(0, 20));
  std::int64_t at[2] = {-1, -1};
  ASSERT_OK(tessera_array_max_loc(a, TESSERA_DOUBLE, &high, at));
  EXPECT_EQ(at[0], 3);
  EXPECT_EQ(at[1], 4);
  ASSERT_OK(tessera_array_min_loc(a, TESSERA_DOUBLE, &low, at));
  EXPECT_EQ(at[0], 0);
  ASSERT_OK(tessera_array_min_loc(n, TESSERA_INT32, &product, nullptr));
  std::vector<double> rows(5);
  ASSERT_OK(tessera_array_reduce_along(a, 1, TESSERA_OP_ADD, TESSERA_DOUBLE, rows.data(), 4));
  EXPECT_EQ(rows[2], 5 * 200.0 + 10);
  ASSERT_OK(tessera_array_reduce_along(a, 0, TESSERA_OP_MAX, TESSERA_DOUBLE, rows.data(), 5));
  EXPECT_EQ(rows[4], 304.0);
  ASSERT_OK(tessera_array_reduce_along(a, 0, TESSERA_OP_MIN, TESSERA_DOUBLE, rows.data(), 5));
  EXPECT_EQ(rows[4], 4.0);
  ASSERT_OK(tessera_array_reduce_along(n, 0, TESSERA_OP_MULTIPLY, TESSERA_INT32, rows.data(), 5));

  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_array_reduce(z, TESSERA_OP_MIN, TESSERA_COMPLEX_DOUBLE, &total));
  expect_error_mentions({"tessera_array_reduce", "'op' = min", "TESSERA_COMPLEX_DOUBLE"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_array_reduce(a, TESSERA_OP_REPLACE, TESSERA_DOUBLE, &sum));
  expect_error_mentions({"'op' = replace"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_array_reduce(idx, TESSERA_OP_ADD, TESSERA_INDEX, &sum));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_array_reduce(a, TESSERA_OP_ADD, TESSERA_DOUBLE, nullptr));
  EXPECT_STATUS(TESSERA_ERR_WRONG_TYPE, tessera_array_reduce(a, TESSERA_OP_ADD, TESSERA_INT64, &sum));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_array_max_loc(z, TESSERA_COMPLEX_DOUBLE, &total, at));
  expect_error_mentions({"tessera_array_max_loc", "no order"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_array_min_loc(a, TESSERA_DOUBLE, nullptr, at));
  EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE,
                tessera_array_reduce_along(a, 2, TESSERA_OP_ADD, TESSERA_DOUBLE, rows.data(), 5));
  expect_error_mentions({"'axis' = 2"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT,
                tessera_array_reduce_along(a, 1, TESSERA_OP_ADD, TESSERA_DOUBLE, rows.data(), 3));
  expect_error_mentions({"'capacity' = 3"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT,
                tessera_array_reduce_along(z, 1, TESSERA_OP_MAX, TESSERA_COMPLEX_DOUBLE, rows.data(), 4));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT,
                tessera_array_reduce_along(idx, 1, TESSERA_OP_ADD, TESSERA_INDEX, rows.data(), 4));
  for (tessera_array* x : {&a, &n, &z, &idx}) ASSERT_OK(tessera_array_free(x));
  ASSERT_OK(tessera_domain_free(&dom));
  ASSERT_OK(tessera_dist_free(&d));
}

}  // namespace
}  // namespace tessera::capi_testing
