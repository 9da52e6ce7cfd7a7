// The D3-ARC primitives (include/tessera/d3arc.h): every primitive on good input (checked against
// what the paper says it does) and on bad input (the paper's error value, and d3_last_error naming
// the argument and value), including the call orders the paper forbids.
#include "tessera/d3arc.h"

#include <complex>
#include <cstring>
#include <string>
#include <vector>

#include "capi_checks.hpp"

namespace tessera::capi_testing {
namespace {

/// d3_last_error contains every one of `parts`.
void expect_d3_error(std::initializer_list<const char*> parts) {
  const std::string message = d3_last_error();
  for (const char* part : parts)
    EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
}

class D3arcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    baseline_ = live_handles();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ASSERT_EQ(d3_init(nullptr, nullptr), 0) << d3_last_error();
  }
  void TearDown() override {
    EXPECT_EQ(d3_finalize(), 0) << d3_last_error();
    EXPECT_EQ(live_handles(), baseline_) << "d3_finalize left tessera handles behind";
  }
  /// A 2-D double array of rows x cols with value 100 i + j scattered from rank 0, over
  /// (t0, t1) with viewport v (4 entries, VP_REL) or none.
  int make(int rows, int cols, dist_t t0, dist_t t1, const int* v = nullptr, vp_t kind = VP_REL) {
    int w[2] = {rows, cols}, b[2] = {1, 1};
    const int d = d3_darray("A", 2, w, D3_DOUBLE, b);
    EXPECT_GE(d, 0) << d3_last_error();
    dist_t t[2] = {t0, t1};
    EXPECT_EQ(d3_dist(d, G_DEFAULT, t, nullptr, nullptr), 0) << d3_last_error();
    if (v) {
      vp_t vt[4] = {kind, kind, kind, kind};
      std::vector<int> widths(v, v + 4);
      EXPECT_EQ(d3_viewport(d, vt, widths.data()), 0) << d3_last_error();
    }
    if (rank == 0) {
      auto* whole = static_cast<double*>(d3_map_DA(d, nullptr));
      EXPECT_NE(whole, nullptr) << d3_last_error();
      for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) whole[i * cols + j] = 100.0 * i + j;
    }
    EXPECT_GE(d3_effect_dist(d), 0.0) << d3_last_error();
    return d;
  }
  /// Region 0 as (pointer, bounds); the element at global (i, j).
  static double at(const double* region, const int* bp, int i, int j) {
    return region[(i - bp[4]) * (bp[7] - bp[6] + 1) + (j - bp[6])];
  }

  int rank = 0, size = 1;

 private:
  std::size_t baseline_ = 0;
};

TEST(D3arcOrder, PrimitivesBeforeInitAndInitTwice) {
  int w[1] = {4};
  EXPECT_EQ(d3_darray("A", 1, w, D3_FLOAT, nullptr), -1);
  EXPECT_NE(std::string(d3_last_error()).find("call d3_init first"), std::string::npos) << d3_last_error();
  EXPECT_EQ(d3_finalize(), -1);
  EXPECT_EQ(d3_grid(1, w), nullptr);
  real t[4];
  int len = 4;
  EXPECT_EQ(d3_collectall(1.0, t, &len), -1);
  ASSERT_EQ(d3_init(nullptr, nullptr), 0);
  EXPECT_EQ(d3_init(nullptr, nullptr), -1);
  EXPECT_NE(std::string(d3_last_error()).find("d3_init called twice"), std::string::npos) << d3_last_error();
  EXPECT_EQ(d3_finalize(), 0);
}

TEST_F(D3arcTest, DarrayAndGrid) {
  int w[3] = {4, 5, 6}, b[3] = {1, 2, 3};
  EXPECT_EQ(d3_darray("A", 3, w, D3_FLOAT, b), 0);
  EXPECT_EQ(d3_darray("B", 1, w, D3_COMPLEX, nullptr), 1);
  for (dtype_t e : {D3_DOUBLE, D3_INT, D3_LONG}) EXPECT_GE(d3_darray("C", 2, w, e, nullptr), 2);
  EXPECT_EQ(d3_darray("bad", 0, w, D3_FLOAT, b), -1);
  expect_d3_error({"d3_darray", "'n' = 0"});
  EXPECT_EQ(d3_darray("bad", 4, w, D3_FLOAT, b), -1);
  EXPECT_EQ(d3_darray(nullptr, 1, w, D3_FLOAT, b), -1);
  expect_d3_error({"'a' = NULL"});
  EXPECT_EQ(d3_darray("bad", 1, nullptr, D3_FLOAT, b), -1);
  int zero[1] = {0};
  EXPECT_EQ(d3_darray("bad", 1, zero, D3_FLOAT, nullptr), -1);
  expect_d3_error({"'w[0]' = 0"});
  EXPECT_EQ(d3_darray("bad", 1, w, D3_FLOAT, zero), -1);
  expect_d3_error({"'b[0]' = 0"});
  EXPECT_EQ(d3_darray("bad", 1, w, static_cast<dtype_t>(17), nullptr), -1);
  expect_d3_error({"'e' = 17", "not a dtype_t"});

  int shape[2] = {size, 1};
  EXPECT_NE(d3_grid(2, shape), nullptr) << d3_last_error();
  int too_many[2] = {size + 1, 1};
  EXPECT_EQ(d3_grid(2, too_many), nullptr);
  expect_d3_error({"d3_grid", "positions", "processes"});
  EXPECT_EQ(d3_grid(0, shape), nullptr);
  EXPECT_EQ(d3_grid(2, nullptr), nullptr);
  int negative[2] = {-1, 1};
  EXPECT_EQ(d3_grid(2, negative), nullptr);
  expect_d3_error({"'w[0]' = -1"});
}

TEST_F(D3arcTest, DistWithEveryKindGridAndOrder) {
  int w[2] = {12, 10};
  const int d = d3_darray("A", 2, w, D3_DOUBLE, nullptr);
  // A grid of every process in one column, general rows by weights, columns not distributed.
  int shape[2] = {size, 1};
  pg_t* g = d3_grid(2, shape);
  ASSERT_NE(g, nullptr) << d3_last_error();
  dist_t t[2] = {D_GENERAL, D_NONE};
  std::vector<real> weights(static_cast<std::size_t>(size), 1.0);
  weights[0] = 2.0;
  ASSERT_EQ(d3_dist(d, g, t, nullptr, weights.data()), 0) << d3_last_error();
  ASSERT_GE(d3_effect_dist(d), 0.0) << d3_last_error();
  ASSERT_EQ(d3_num_OR(d), 1);
  const int* bp = d3_get_OR_bounds(d, 0);
  ASSERT_NE(bp, nullptr);
  EXPECT_EQ(bp[2], 0);
  EXPECT_EQ(bp[3], 9) << "D_NONE: every column";
  if (rank == 0 && size > 1) {
    EXPECT_NEAR(bp[1] - bp[0] + 1, 24.0 / (size + 1), 1.0) << "twice the others' rows";
  }

  // Block x cyclic with r = [1, 0] over the default grid, via a second array.
  const int e = d3_darray("B", 2, w, D3_INT, nullptr);
  dist_t bc[2] = {D_BLOCK, D_CYCLIC};
  int r[2] = {1, 0};
  ASSERT_EQ(d3_dist(e, G_DEFAULT, bc, r, nullptr), 0) << d3_last_error();
  ASSERT_GE(d3_effect_dist(e), 0.0) << d3_last_error();
  EXPECT_GE(d3_num_OR(e), 1);

  // Bad input.
  EXPECT_EQ(d3_dist(99, G_DEFAULT, t, nullptr, nullptr), -1);
  expect_d3_error({"d3_dist", "'d' = 99"});
  EXPECT_EQ(d3_dist(d, nullptr, t, nullptr, nullptr), -1);
  expect_d3_error({"'g' = NULL"});
  pgrid_t* foreign = reinterpret_cast<pgrid_t*>(&weights);
  EXPECT_EQ(d3_dist(d, foreign, t, nullptr, nullptr), -1);
  expect_d3_error({"neither G_DEFAULT nor a grid"});
  dist_t bad[2] = {static_cast<dist_t>(9), D_BLOCK};
  EXPECT_EQ(d3_dist(d, G_DEFAULT, bad, nullptr, nullptr), -1);
  expect_d3_error({"'t[0]' = 9", "not a dist_t"});
  EXPECT_EQ(d3_dist(d, G_DEFAULT, nullptr, nullptr, nullptr), -1);
  int not_perm[2] = {0, 0};
  EXPECT_EQ(d3_dist(d, G_DEFAULT, t, not_perm, nullptr), -1);
  expect_d3_error({"'order[1]' = 0"});
  int three[3] = {1, 1, 1};
  pg_t* g3 = d3_grid(3, three);
  ASSERT_NE(g3, nullptr);
  EXPECT_EQ(d3_dist(d, g3, t, nullptr, nullptr), -1);
  expect_d3_error({"3-dimensional grid", "2 dimensions"});
  if (size > 1) {
    dist_t none_none[2] = {D_NONE, D_NONE};
    EXPECT_EQ(d3_dist(d, g, none_none, nullptr, nullptr), -1) << "D_NONE along a grid axis of extent > 1";
  }
}

TEST_F(D3arcTest, ViewportsRelativeAbsoluteAndWrapping) {
  // Rows over every process, one ghost row each side wrapping around (negative widths).
  const int wrap[4] = {-1, -1, 0, 0};
  const int d = make(4 * size, 3, D_BLOCK, D_NONE, wrap);
  double* region = static_cast<double*>(d3_map_OR(d, 0, nullptr));
  const int* bp = d3_get_OR_bounds(d, 0);
  ASSERT_TRUE(region && bp) << d3_last_error();
  EXPECT_EQ(bp[4], bp[0] - 1);
  EXPECT_EQ(bp[5], bp[1] + 1);
  const int rows = 4 * size;
  EXPECT_EQ(at(region, bp, bp[0] - 1, 1), 100.0 * ((bp[0] - 1 + rows) % rows) + 1) << "filled by d3_effect_dist";
  EXPECT_EQ(at(region, bp, bp[1] + 1, 2), 100.0 * ((bp[1] + 1) % rows) + 2);

  // Absolute borders: every process sees up to row 0 and down to the last row.
  int w[2] = {3 * size, 2};
  const int e = d3_darray("E", 2, w, D3_DOUBLE, nullptr);
  dist_t t[2] = {D_BLOCK, D_NONE};
  ASSERT_EQ(d3_dist(e, G_DEFAULT, t, nullptr, nullptr), 0);
  vp_t vt[4] = {VP_ABS, VP_ABS, VP_REL, VP_REL};
  int v[4] = {0, 3 * size - 1, 0, 0};
  ASSERT_EQ(d3_viewport(e, vt, v), 0) << d3_last_error();
  ASSERT_GE(d3_effect_dist(e), 0.0) << d3_last_error();
  const int* eb = d3_get_OR_bounds(e, 0);
  ASSERT_NE(eb, nullptr);
  EXPECT_LE(eb[4], 0) << "the viewport reaches row 0";
  EXPECT_GE(eb[5], 3 * size - 1) << "and the last row";

  // Bad viewports.
  const int f = d3_darray("F", 2, w, D3_DOUBLE, nullptr);
  vp_t rel[4] = {VP_REL, VP_REL, VP_REL, VP_REL};
  int one_side[4] = {-1, 2, 0, 0};
  EXPECT_EQ(d3_viewport(f, rel, one_side), -1);
  expect_d3_error({"d3_viewport", "'v[0]' = -1", "'v[1]' = 2", "one border"});
  vp_t weird[4] = {static_cast<vp_t>(5), VP_REL, VP_REL, VP_REL};
  EXPECT_EQ(d3_viewport(f, weird, v), -1);
  expect_d3_error({"'vt[0]' = 5"});
  int outside[4] = {-2, 0, 0, 0};
  vp_t abs_lo[4] = {VP_ABS, VP_REL, VP_REL, VP_REL};
  EXPECT_EQ(d3_viewport(f, abs_lo, outside), -1);
  expect_d3_error({"'v[0]' = -2", "absolute index outside"});
  EXPECT_EQ(d3_viewport(f, nullptr, v), -1);
  EXPECT_EQ(d3_viewport(e, vt, v), -1) << "after d3_effect_dist";
  expect_d3_error({"must come before d3_effect_dist", "wrong call order"});
  // A viewport along a cyclic dimension cannot be put into effect.
  dist_t cyc[2] = {D_CYCLIC, D_NONE};
  ASSERT_EQ(d3_dist(f, G_DEFAULT, cyc, nullptr, nullptr), 0);
  int plain[4] = {1, 1, 0, 0};
  ASSERT_EQ(d3_viewport(f, rel, plain), 0);
  if (size > 1) {
    EXPECT_EQ(d3_effect_dist(f), -1.0);
    expect_d3_error({"d3_effect_dist", "D_CYCLIC"});
  }
}

TEST_F(D3arcTest, MapDaOnlyBeforeEffectDistAndMapOr) {
  int w[2] = {6, 4};
  const int d = d3_darray("A", 2, w, D3_DOUBLE, nullptr);
  dist_t t[2] = {D_BLOCK, D_BLOCK};
  EXPECT_EQ(d3_effect_dist(d), -1.0) << "no distribution yet";
  expect_d3_error({"call d3_dist first"});
  EXPECT_EQ(d3_map_OR(d, 0, nullptr), nullptr);
  expect_d3_error({"d3_map_OR", "before d3_effect_dist"});
  EXPECT_EQ(d3_num_OR(d), -1);
  EXPECT_EQ(d3_update_OR(d, 0), -1);
  ASSERT_EQ(d3_dist(d, G_DEFAULT, t, nullptr, nullptr), 0);
  // A user buffer as the whole array on the last process.
  std::vector<double> mine(24);
  for (int k = 0; k < 24; ++k) mine[static_cast<std::size_t>(k)] = k;
  if (rank == size - 1) {
    EXPECT_EQ(d3_map_DA(d, mine.data()), mine.data());
    EXPECT_EQ(d3_map_DA(d, nullptr), d3_map_DA(d, nullptr)) << "mapping again returns the same memory";
    EXPECT_EQ(d3_map_DA(d, mine.data()), mine.data());
  }
  ASSERT_GE(d3_effect_dist(d), 0.0) << d3_last_error();
  EXPECT_EQ(d3_map_DA(d, nullptr), nullptr) << "Section II-D: only before d3_effect_dist";
  expect_d3_error({"d3_map_DA", "only be used before d3_effect_dist", "wrong call order"});
  EXPECT_EQ(d3_effect_dist(d), 0.0) << "nothing new to put into effect";

  if (d3_num_OR(d) == 1) {
    double* region = static_cast<double*>(d3_map_OR(d, 0, nullptr));
    const int* bp = d3_get_OR_bounds(d, 0);
    ASSERT_TRUE(region && bp);
    EXPECT_EQ(at(region, bp, bp[0], bp[2]), bp[0] * 4.0 + bp[2]) << "scattered from the last process";
    // Into a user buffer: a copy, written back by d3_update_OR.
    const int count = (bp[5] - bp[4] + 1) * (bp[7] - bp[6] + 1);
    std::vector<double> copy(static_cast<std::size_t>(count));
    ASSERT_EQ(d3_map_OR(d, 0, copy.data()), copy.data());
    EXPECT_EQ(at(copy.data(), bp, bp[1], bp[3]), bp[1] * 4.0 + bp[3]);
    copy[0] = -5;
    ASSERT_EQ(d3_update_OR(d, 0), 0) << d3_last_error();
    EXPECT_EQ(region[0], -5.0) << "the copy went back into the runtime's storage";
    EXPECT_EQ(d3_map_OR(d, 1, nullptr), nullptr);
    expect_d3_error({"'id' = 1", "owns 1"});
    EXPECT_EQ(d3_get_OR_bounds(d, -1), nullptr);
    EXPECT_EQ(d3_update_OR(d, 3), -1);
  } else {
    ASSERT_EQ(d3_update_OR(d, 0), 0) << "a process that owns nothing only takes part";
  }
}

TEST_F(D3arcTest, UpdateOrExchangesTheViewport) {
  const int v[4] = {1, 1, 1, 1};
  const int d = make(8, 6, D_BLOCK, D_GENERAL, v);
  double* region = static_cast<double*>(d3_map_OR(d, 0, nullptr));
  const int* bp = d3_get_OR_bounds(d, 0);
  ASSERT_TRUE(region && bp) << d3_last_error();
  // Every process adds 1000 to its own elements; after d3_update_OR the viewport shows it.
  for (int i = bp[0]; i <= bp[1]; ++i)
    for (int j = bp[2]; j <= bp[3]; ++j) region[(i - bp[4]) * (bp[7] - bp[6] + 1) + (j - bp[6])] += 1000;
  ASSERT_EQ(d3_update_OR(d, 0), 0) << d3_last_error();
  if (bp[1] + 1 < 8) {
    EXPECT_EQ(at(region, bp, bp[1] + 1, bp[2]), 1000 + 100.0 * (bp[1] + 1) + bp[2]);
  }
  if (bp[2] > 0) {
    EXPECT_EQ(at(region, bp, bp[0], bp[2] - 1), 1000 + 100.0 * bp[0] + bp[2] - 1);
  }
  if (bp[0] == 0) {
    EXPECT_EQ(at(region, bp, -1, bp[2]), 0.0) << "outside the array: the zero boundary";
  }
}

TEST_F(D3arcTest, CyclicRegionsAreCopies) {
  const int d = make(4, 2 * size + 1, D_NONE, D_CYCLIC);
  const int regions = d3_num_OR(d);
  ASSERT_GE(regions, 1);
  // Write every region's copy, then one d3_update_OR: every copy goes back, not only region 0.
  for (int id = 0; id < regions; ++id) {
    double* region = static_cast<double*>(d3_map_OR(d, id, nullptr));
    const int* bp = d3_get_OR_bounds(d, id);
    ASSERT_TRUE(region && bp) << d3_last_error();
    EXPECT_EQ(at(region, bp, bp[1], bp[3]), 100.0 * bp[1] + bp[3]);
    region[0] = -1 - id;
  }
  ASSERT_EQ(d3_update_OR(d, 0), 0) << d3_last_error();
  for (int id = 0; id < regions; ++id) {
    double* again = static_cast<double*>(d3_map_OR(d, id, nullptr));
    ASSERT_NE(again, nullptr) << d3_last_error();
    EXPECT_EQ(again[0], -1.0 - id) << "region " << id << "'s copy went back at the one d3_update_OR";
  }
  EXPECT_EQ(d3_update_OR(d, regions), -1) << "an id this process does not own";
  expect_d3_error({"d3_update_OR", "'id' = ", "d3_num_OR"});
  std::vector<real> w(static_cast<std::size_t>(size), 1.0);
  int nb = 0;
  EXPECT_EQ(d3_new_dist(d, w.data(), 0.5, &nb), -1);
  expect_d3_error({"d3_new_dist", "D_CYCLIC", "interval boundaries"});
}

// Issue 21's report: D_CYCLIC x D_BLOCK, 7 x 10, a viewport along the block dimension; on 4 processes
// (a 2 x 2 grid) each owns 3 or 4 cyclic regions. Every region is written, then d3_update_OR is
// called once (as Fig. 2 does): every write must survive, and every viewport must show the
// neighbours' new values. Compared element by element with the serial answer.
TEST_F(D3arcTest, OneUpdateWritesBackEveryRegion) {
  constexpr int rows = 7, cols = 10;
  const int v[4] = {0, 0, 1, 1};
  const int d = make(rows, cols, D_CYCLIC, D_BLOCK, v);
  const int regions = d3_num_OR(d);
  ASSERT_GE(regions, 0) << d3_last_error();
  const auto updated = [](int i, int j) { return 100.0 * i + j + 1000.0 * (1 + i % 3); };
  std::vector<double*> copies;
  for (int id = 0; id < regions; ++id) {
    double* region = static_cast<double*>(d3_map_OR(d, id, nullptr));
    const int* bp = d3_get_OR_bounds(d, id);
    ASSERT_TRUE(region && bp) << d3_last_error();
    for (int i = bp[0]; i <= bp[1]; ++i)
      for (int j = bp[2]; j <= bp[3]; ++j) region[(i - bp[4]) * (bp[7] - bp[6] + 1) + (j - bp[6])] = updated(i, j);
    copies.push_back(region);
  }
  ASSERT_EQ(d3_update_OR(d, 0), 0) << d3_last_error();
  int wrong = 0;
  for (int id = 0; id < regions; ++id) {
    // The refreshed copy: owned cells and the viewport both hold the new values.
    const int* bp = d3_get_OR_bounds(d, id);
    for (int i = bp[4]; i <= bp[5]; ++i)
      for (int j = bp[6]; j <= bp[7]; ++j)
        if (j >= 0 && j < cols && at(copies[static_cast<std::size_t>(id)], bp, i, j) != updated(i, j)) ++wrong;
    // A fresh copy, read back from the array: the writes reached the runtime's storage.
    const double* fresh = static_cast<double*>(d3_map_OR(d, id, nullptr));
    ASSERT_NE(fresh, nullptr) << d3_last_error();
    for (int i = bp[0]; i <= bp[1]; ++i)
      for (int j = bp[2]; j <= bp[3]; ++j)
        if (at(fresh, bp, i, j) != updated(i, j)) ++wrong;
  }
  EXPECT_EQ(wrong, 0) << "cells of " << regions << " regions on process " << rank;
}

TEST_F(D3arcTest, CollectallAndNorm) {
  std::vector<real> tv(static_cast<std::size_t>(size) + 2, -1);
  int len = size + 2;
  ASSERT_EQ(d3_collectall(1.0 + rank, tv.data(), &len), 0) << d3_last_error();
  EXPECT_EQ(len, size);
  for (int p = 0; p < size; ++p) EXPECT_EQ(tv[static_cast<std::size_t>(p)], 1.0 + p);
  real* w = d3_norm(tv.data(), len, 1, 1.5);
  ASSERT_EQ(w, tv.data());
  EXPECT_EQ(w[0], size > 1 ? 1.5 : 1.0) << "the fastest gets max (all get min when the times are equal)";
  EXPECT_EQ(w[size - 1], 1.0) << "the slowest min";
  len = size - 1;
  EXPECT_EQ(d3_collectall(1.0, tv.data(), &len), -1);
  expect_d3_error({"d3_collectall", "'*len' = ", "processes"});
  EXPECT_EQ(d3_collectall(1.0, nullptr, &len), -1);
  EXPECT_EQ(d3_collectall(1.0, tv.data(), nullptr), -1);
  EXPECT_EQ(d3_norm(tv.data(), len + 1, 0, 1.5), nullptr);
  expect_d3_error({"d3_norm", "'min' = 0", "max > min > 0"});
  EXPECT_EQ(d3_norm(tv.data(), 2, 1.5, 1.5), nullptr);
  EXPECT_EQ(d3_norm(tv.data(), 0, 1, 1.5), nullptr);
  expect_d3_error({"'len' = 0"});
  EXPECT_EQ(d3_norm(nullptr, 1, 1, 1.5), nullptr);
}

TEST_F(D3arcTest, NewDistAndMigrate) {
  int w[2] = {6 * size, 3};
  const int d = d3_darray("A", 2, w, D3_DOUBLE, nullptr);
  std::vector<real> weights(static_cast<std::size_t>(size), 1.0);
  int nb = -1;
  EXPECT_EQ(d3_new_dist(d, weights.data(), 0.5, &nb), -1) << "before d3_effect_dist";
  expect_d3_error({"d3_new_dist", "before d3_new_dist", "wrong call order"});
  dist_t t[2] = {D_GENERAL, D_NONE};
  ASSERT_EQ(d3_dist(d, G_DEFAULT, t, nullptr, nullptr), 0);
  const int v[4] = {1, 1, 0, 0};
  vp_t vt[4] = {VP_REL, VP_REL, VP_REL, VP_REL};
  ASSERT_EQ(d3_viewport(d, vt, const_cast<int*>(v)), 0);
  if (rank == 0) {
    auto* whole = static_cast<double*>(d3_map_DA(d, nullptr));
    for (int k = 0; k < 18 * size; ++k) whole[k] = k;
  }
  ASSERT_GE(d3_effect_dist(d), 0.0);
  weights[0] = 3.0;
  const int half = d3_new_dist(d, weights.data(), 0.5, &nb);
  ASSERT_GE(half, 0) << d3_last_error();
  int nb_full = -1;
  const int full = d3_new_dist(d, weights.data(), 1.0, &nb_full);
  ASSERT_GE(full, 0);
  if (size > 1) {
    EXPECT_GT(nb, 0);
    EXPECT_GE(nb_full, nb);
    // On a p x 1 grid a logical block is a whole row: nb counts the rows that move, not elements.
    if (size == 2) {
      EXPECT_EQ(nb, 2) << "rows 6 and 7 of 12 move to process 0 (boundary 6 -> 8 of 9)";
    }
  } else {
    EXPECT_EQ(nb, 0);
  }
  ASSERT_GE(d3_migrate(d, half), 0.0) << d3_last_error();
  // The values followed, the viewport was refilled, and the other handle was released.
  double* region = static_cast<double*>(d3_map_OR(d, 0, nullptr));
  const int* bp = d3_get_OR_bounds(d, 0);
  ASSERT_TRUE(region && bp);
  EXPECT_EQ(at(region, bp, bp[0], 2), 3.0 * bp[0] + 2);
  if (bp[1] + 1 < 6 * size) {
    EXPECT_EQ(at(region, bp, bp[1] + 1, 0), 3.0 * (bp[1] + 1));
  }
  EXPECT_EQ(d3_migrate(d, full), -1.0);
  expect_d3_error({"d3_migrate", "'dist_id' = ", "not a pending distribution"});
  EXPECT_EQ(d3_migrate(d, half), -1.0) << "released by the migration";

  EXPECT_EQ(d3_new_dist(d, weights.data(), 1.5, &nb), -1);
  expect_d3_error({"'delta' = 1.5"});
  EXPECT_EQ(d3_new_dist(d, nullptr, 0.5, &nb), -1);
  EXPECT_EQ(d3_new_dist(d, weights.data(), 0.5, nullptr), -1);
  if (size > 1) {  // (on one process no boundary moves, so the weights are not looked at)
    weights[0] = -1;
    EXPECT_EQ(d3_new_dist(d, weights.data(), 0.5, &nb), -1);
    expect_d3_error({"d3_new_dist", "-1"});
  }
  EXPECT_EQ(d3_migrate(7, 0), -1.0);

  // d3_dist again after d3_effect_dist, then d3_effect_dist: a preserving redistribution.
  dist_t blocks[2] = {D_BLOCK, D_NONE};
  ASSERT_EQ(d3_dist(d, G_DEFAULT, blocks, nullptr, nullptr), 0);
  ASSERT_GE(d3_effect_dist(d), 0.0) << d3_last_error();
  region = static_cast<double*>(d3_map_OR(d, 0, nullptr));
  bp = d3_get_OR_bounds(d, 0);
  ASSERT_TRUE(region && bp);
  EXPECT_EQ(bp[1] - bp[0] + 1, 6) << "even blocks again";
  EXPECT_EQ(at(region, bp, bp[1], 1), 3.0 * bp[1] + 1);
}

}  // namespace
}  // namespace tessera::capi_testing
