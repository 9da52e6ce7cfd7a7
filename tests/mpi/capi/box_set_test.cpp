// Box-set distributions through the C API: an L-shaped set with a hole, owners from each
// assignment policy, the set read back, owners of points, ghost updates across boxes and ranks
// against the serial image, a checkpoint's box table read back for a restart, and the errors of
// each entry point.
#include <mpi.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "capi_checks.hpp"
#include "tessera/balance/box_balance.hpp"  // the C++ step: the serial reference

namespace tessera::capi_testing {
namespace {

// [0,8)x[0,8) less the hole [4,8)x[4,8), cut into four boxes; (lo, hi) per box.
const tessera_box kBoxes[] = {
    {{0, 0, 0}, {4, 4, 0}}, {{0, 4, 0}, {4, 8, 0}}, {{4, 0, 0}, {8, 2, 0}}, {{4, 2, 0}, {8, 4, 0}}};
constexpr std::size_t kCount = 4;
const tessera_box kDomain = {{0, 0, 0}, {8, 8, 0}};

double value_at(std::int64_t i, std::int64_t j) { return static_cast<double>(10 * i + j + 1); }
bool in_hole(std::int64_t i, std::int64_t j) { return i >= 4 && j >= 4; }

/// Sets every cell of the boxes `rank` owns to value_at.
void set_owned_values(tessera_array a, const int* owners, int rank) {
  for (std::size_t b = 0; b < kCount; ++b) {
    if (owners[b] != rank) continue;
    for (int64_t i = kBoxes[b].lo[0]; i < kBoxes[b].hi[0]; ++i)
      for (int64_t j = kBoxes[b].lo[1]; j < kBoxes[b].hi[1]; ++j) {
        const int64_t p[2] = {i, j};
        const double v = value_at(i, j);
        ASSERT_OK(tessera_array_set(a, p, TESSERA_DOUBLE, &v));
      }
  }
}

/// Gathers `a` everywhere: every held cell has value_at, every hole cell 0.
void expect_every_value_kept(tessera_array a) {
  std::vector<double> image(64, -5.0);
  ASSERT_OK(tessera_array_gather_to_all(a, TESSERA_DOUBLE, image.data(), 64));
  for (int64_t i = 0; i < 8; ++i)
    for (int64_t j = 0; j < 8; ++j) EXPECT_EQ(image[static_cast<std::size_t>(8 * i + j)], in_hole(i, j) ? 0.0 : value_at(i, j));
}

/// `*out`: a double array over `dom` with one ghost layer on every side, its owned cells set by
/// set_owned_values.
void make_array_with_ghosts(tessera_domain dom, const int* owners, int rank, tessera_array* out) {
  tessera_ghosts g = {};
  g.lower[0] = g.lower[1] = g.upper[0] = g.upper[1] = 1;
  ASSERT_OK(tessera_array_create(dom, TESSERA_DOUBLE, &g, out));
  set_owned_values(*out, owners, rank);
}

/// Checks every in-domain cell of the boxes `rank` owns, grown by one: a held cell has value_at,
/// a cell over the hole `hole_value` (not checked when none is given: no rule set there).
void expect_cells_around_owned_boxes(tessera_array a, const int* owners, int rank, std::optional<double> hole_value,
                                     const char* when) {
  for (std::size_t b = 0; b < kCount; ++b) {
    if (owners[b] != rank) continue;
    for (int64_t i = kBoxes[b].lo[0] - 1; i <= kBoxes[b].hi[0]; ++i)
      for (int64_t j = kBoxes[b].lo[1] - 1; j <= kBoxes[b].hi[1]; ++j) {
        if (i < 0 || j < 0 || i >= 8 || j >= 8) continue;  // outside the domain box: no rule set
        if (in_hole(i, j) && !hole_value) continue;         // no box holds them
        const int64_t p[2] = {i, j};
        double got = -1;
        ASSERT_OK(tessera_array_get(a, p, TESSERA_DOUBLE, &got));
        EXPECT_EQ(got, in_hole(i, j) ? *hole_value : value_at(i, j))
            << when << " at (" << i << ", " << j << ") around box " << b;
      }
  }
}

class CApiBoxSet : public CApiTest {
 protected:
  /// The L-shape's boxes assigned by knapsack (`owners`), their distribution and domain, and a
  /// double array over them with one ghost layer, its owned cells set by set_owned_values.
  void make_l_shape_array(int* owners, tessera_dist* d, tessera_domain* dom, tessera_array* a) {
    ASSERT_OK(tessera_assign_boxes(2, size, kBoxes, kCount, TESSERA_ASSIGN_KNAPSACK, nullptr, owners));
    ASSERT_OK(tessera_dist_from_boxes(2, size, &kDomain, kBoxes, kCount, owners, d));
    *dom = domain_of(*d);
    make_array_with_ghosts(*dom, owners, rank, a);
  }
  /// Every box of the L-shape on rank 0, its distribution and domain, a double array without
  /// ghosts over them (rank 0's cells set by set_owned_values), and a static policy (Δ = 1 above
  /// 5 % imbalance) with default box balancer options but a remap point every step: a balancer's
  /// first step has every box's move to choose from.
  struct AllOnRankZero {
    tessera_dist d = nullptr;
    tessera_domain dom = nullptr;
    tessera_array a = nullptr;
    tessera_policy policy{};
    tessera_box_balancer_options options{};
  };
  void make_all_on_rank_zero(AllOnRankZero& c) {
    const int owners[kCount] = {0, 0, 0, 0};
    ASSERT_OK(tessera_dist_from_boxes(2, size, &kDomain, kBoxes, kCount, owners, &c.d));
    c.dom = domain_of(c.d);
    ASSERT_OK(tessera_array_create(c.dom, TESSERA_DOUBLE, nullptr, &c.a));
    set_owned_values(c.a, owners, rank);
    ASSERT_OK(tessera_policy_defaults(TESSERA_POLICY_STATIC, &c.policy));
    ASSERT_OK(tessera_box_balancer_options_defaults(&c.options));
    EXPECT_EQ(c.options.interval, 5);
    EXPECT_EQ(c.options.target, TESSERA_ASSIGN_KNAPSACK);
    EXPECT_NE(c.options.relabel, 0);
    EXPECT_EQ(c.options.max_bytes_per_step, 0U);
    c.options.interval = 1;
  }
};

TEST_F(CApiBoxSet, LShapeWithAHoleUpdatesGhostsAcrossBoxes) {
  for (const tessera_box_assignment policy : {TESSERA_ASSIGN_KNAPSACK, TESSERA_ASSIGN_MORTON, TESSERA_ASSIGN_HILBERT}) {
    SCOPED_TRACE(::testing::Message() << "policy " << policy);
    int owners[kCount];
    ASSERT_OK(tessera_assign_boxes(2, size, kBoxes, kCount, policy, nullptr, owners));
    for (const int o : owners) EXPECT_TRUE(o >= 0 && o < size) << o;
    tessera_dist d = nullptr;
    ASSERT_OK(tessera_dist_from_boxes(2, size, &kDomain, kBoxes, kCount, owners, &d));

    // Read back: the same boxes, the same owners; a point's owner is its box's.
    tessera_box back[kCount];
    int back_owners[kCount];
    size_t count = 0;
    ASSERT_OK(tessera_dist_box_set(d, back, back_owners, kCount, &count));
    ASSERT_EQ(count, kCount);
    for (std::size_t i = 0; i < kCount; ++i) {
      EXPECT_EQ(back_owners[i], owners[i]);
      for (int e = 0; e < 2; ++e) EXPECT_TRUE(back[i].lo[e] == kBoxes[i].lo[e] && back[i].hi[e] == kBoxes[i].hi[e]);
      int owner = -1;
      ASSERT_OK(tessera_dist_owner(d, kBoxes[i].lo, &owner));
      EXPECT_EQ(owner, owners[i]);
    }
    const int64_t hole_point[2] = {6, 6};
    int nobody = -1;
    EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_dist_owner(d, hole_point, &nobody));

    // Values, then a ghost update of width 1: each ghost cell from whichever box holds it.
    tessera_domain dom = domain_of(d);
    tessera_array a = nullptr;
    make_array_with_ghosts(dom, owners, rank, &a);
    ASSERT_OK(tessera_array_update_ghosts(a));
    expect_cells_around_owned_boxes(a, owners, rank, std::nullopt, "no hole rule");
    // The gathered image: every held cell, and 0 over the hole (the C API gathers into a fresh image).
    std::vector<double> image(64, -5.0);
    ASSERT_OK(tessera_array_gather_to_all(a, TESSERA_DOUBLE, image.data(), 64));
    for (int64_t i = 0; i < 8; ++i)
      for (int64_t j = 0; j < 8; ++j)
        EXPECT_EQ(image[static_cast<std::size_t>(8 * i + j)], in_hole(i, j) ? 0.0 : value_at(i, j)) << i << "," << j;
    ASSERT_OK(tessera_array_free(&a));
    ASSERT_OK(tessera_domain_free(&dom));
    ASSERT_OK(tessera_dist_free(&d));
  }
}

// A checkpoint of a box-set array carries its box table: read back with
// tessera_checkpoint_saved_boxes, it rebuilds the distribution (saved owners, same rank count) and
// the restarted array loads every value; a short capacity reports the count; a checkpoint of a
// block distribution, a missing file and null arguments are errors on every rank.
TEST_F(CApiBoxSet, ACheckpointCarriesItsBoxTableForARestart) {
  int pid = static_cast<int>(getpid());
  MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
  const std::string path = "/tmp/tessera-capi-boxes-" + std::to_string(pid) + ".h5";
  int owners[kCount];
  ASSERT_OK(tessera_assign_boxes(2, size, kBoxes, kCount, TESSERA_ASSIGN_MORTON, nullptr, owners));
  tessera_dist d = nullptr;
  ASSERT_OK(tessera_dist_from_boxes(2, size, &kDomain, kBoxes, kCount, owners, &d));
  tessera_domain dom = domain_of(d);
  tessera_array a = nullptr;
  ASSERT_OK(tessera_array_create(dom, TESSERA_DOUBLE, nullptr, &a));
  set_owned_values(a, owners, rank);
  ASSERT_OK(tessera_checkpoint_save(path.c_str(), a, "u"));

  int ndim = 0, ranks = 0;
  tessera_box domain = {};
  tessera_box boxes[kCount];
  int saved_owners[kCount];
  size_t count = 0;
  ASSERT_OK(tessera_checkpoint_saved_boxes(world, path.c_str(), &ndim, &domain, boxes, saved_owners, kCount, &count,
                                           &ranks));
  EXPECT_EQ(ndim, 2);
  EXPECT_EQ(ranks, size);
  ASSERT_EQ(count, kCount);
  for (int e = 0; e < 2; ++e) EXPECT_TRUE(domain.lo[e] == kDomain.lo[e] && domain.hi[e] == kDomain.hi[e]);
  for (std::size_t i = 0; i < kCount; ++i) {
    EXPECT_EQ(saved_owners[i], owners[i]);
    for (int e = 0; e < 2; ++e) EXPECT_TRUE(boxes[i].lo[e] == kBoxes[i].lo[e] && boxes[i].hi[e] == kBoxes[i].hi[e]);
  }
  // The restart: the saved set on the same ranks, every value back.
  tessera_dist d2 = nullptr;
  ASSERT_OK(tessera_dist_from_boxes(ndim, ranks, &domain, boxes, count, saved_owners, &d2));
  tessera_domain dom2 = domain_of(d2);
  tessera_array b2 = nullptr;
  ASSERT_OK(tessera_array_create(dom2, TESSERA_DOUBLE, nullptr, &b2));
  ASSERT_OK(tessera_checkpoint_load(path.c_str(), b2, "u"));
  std::vector<double> image(64, -5.0);
  ASSERT_OK(tessera_array_gather_to_all(b2, TESSERA_DOUBLE, image.data(), 64));
  for (int64_t i = 0; i < 8; ++i)
    for (int64_t j = 0; j < 8; ++j)
      EXPECT_EQ(image[static_cast<std::size_t>(8 * i + j)], in_hole(i, j) ? 0.0 : value_at(i, j)) << i << "," << j;

  // A short capacity writes what fits and reports the count; NULL lists only count.
  tessera_box one[1];
  count = 0;
  ASSERT_OK(tessera_checkpoint_saved_boxes(world, path.c_str(), &ndim, &domain, one, nullptr, 1, &count, &ranks));
  EXPECT_EQ(count, kCount);
  EXPECT_TRUE(one[0].lo[0] == kBoxes[0].lo[0] && one[0].hi[1] == kBoxes[0].hi[1]);
  // Errors: no box table (a block distribution's checkpoint), no file, null arguments.
  const std::string block_path = path + ".block.h5";
  tessera_dist block = block2(8, 8);
  tessera_domain block_dom = domain_of(block);
  tessera_array c = nullptr;
  ASSERT_OK(tessera_array_create(block_dom, TESSERA_DOUBLE, nullptr, &c));
  ASSERT_OK(tessera_checkpoint_save(block_path.c_str(), c, "u"));
  EXPECT_STATUS(TESSERA_ERR_MISMATCH, tessera_checkpoint_saved_boxes(world, block_path.c_str(), &ndim, &domain, boxes,
                                                                      saved_owners, kCount, &count, &ranks));
  expect_error_mentions({"tessera_checkpoint_saved_boxes"});
  EXPECT_STATUS(TESSERA_ERR_IO, tessera_checkpoint_saved_boxes(world, "/nonexistent/dir/none.h5", &ndim, &domain, boxes,
                                                                saved_owners, kCount, &count, &ranks));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_checkpoint_saved_boxes(world, nullptr, &ndim, &domain, boxes,
                                                                              saved_owners, kCount, &count, &ranks));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_checkpoint_saved_boxes(world, path.c_str(), &ndim, nullptr, boxes,
                                                                              saved_owners, kCount, &count, &ranks));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    std::remove(path.c_str());
    std::remove(block_path.c_str());
  }
  ASSERT_OK(tessera_array_free(&c));
  ASSERT_OK(tessera_domain_free(&block_dom));
  ASSERT_OK(tessera_dist_free(&block));
  ASSERT_OK(tessera_array_free(&b2));
  ASSERT_OK(tessera_domain_free(&dom2));
  ASSERT_OK(tessera_dist_free(&d2));
  ASSERT_OK(tessera_array_free(&a));
  ASSERT_OK(tessera_domain_free(&dom));
  ASSERT_OK(tessera_dist_free(&d));
}

// tessera_incremental_box_step against the C++ step it wraps (the serial reference), for Δ = 0,
// 0.5 and 1 with cell and measured weights; bad input writes nothing.
TEST_F(CApiBoxSet, IncrementalBoxStepMatchesTheCppStep) {
  const int ranks = 3;
  const int current[kCount] = {0, 0, 0, 0};
  int target[kCount];
  ASSERT_OK(tessera_assign_boxes(2, ranks, kBoxes, kCount, TESSERA_ASSIGN_KNAPSACK, nullptr, target));
  std::vector<Box<2>> boxes;
  for (const tessera_box& b : kBoxes) boxes.push_back(Box<2>({b.lo[0], b.lo[1]}, {b.hi[0], b.hi[1]}));
  const double seconds[kCount] = {4.0, 1.0, 2.5, 0.5};
  for (const double delta : {0.0, 0.5, 1.0})
    for (const double* w : {static_cast<const double*>(nullptr), seconds}) {
      SCOPED_TRACE(::testing::Message() << "delta " << delta << (w ? ", measured weights" : ", cell counts"));
      int owners[kCount] = {-1, -1, -1, -1};
      size_t moved = 99;
      uint64_t cells = 99;
      double before = -1, after = -1;
      ASSERT_OK(tessera_incremental_box_step(2, ranks, kBoxes, kCount, current, target, delta, w, owners, &moved, &cells,
                                             &before, &after));
      const auto want = incremental_box_step<2>(boxes, std::vector<int>(current, current + kCount),
                                                std::vector<int>(target, target + kCount), ranks, delta,
                                                w ? std::vector<double>(w, w + kCount) : std::vector<double>{});
      EXPECT_EQ(std::vector<int>(owners, owners + kCount), want.owners);
      EXPECT_EQ(moved, want.moves.size());
      EXPECT_EQ(cells, want.cells);
      EXPECT_EQ(before, want.excess_before);
      EXPECT_EQ(after, want.excess_after);
      if (delta == 0.0) {
        EXPECT_EQ(moved, 0u);
      }
      if (delta == 1.0) {
        EXPECT_EQ(std::vector<int>(owners, owners + kCount), std::vector<int>(target, target + kCount));
      }
      // The optional outputs may be NULL.
      ASSERT_OK(tessera_incremental_box_step(2, ranks, kBoxes, kCount, current, target, delta, w, owners, nullptr,
                                             nullptr, nullptr, nullptr));
    }
  int owners[kCount] = {7, 7, 7, 7};
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_incremental_box_step(2, ranks, kBoxes, kCount, current, target, 1.5,
                                                                            nullptr, owners, nullptr, nullptr, nullptr,
                                                                            nullptr));
  expect_error_mentions({"tessera_incremental_box_step", "delta"});
  const int outside[kCount] = {0, 3, 0, 0};
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_incremental_box_step(2, ranks, kBoxes, kCount, current, outside,
                                                                            0.5, nullptr, owners, nullptr, nullptr,
                                                                            nullptr, nullptr));
  const double negative[kCount] = {1, -1, 1, 1};
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_incremental_box_step(2, ranks, kBoxes, kCount, current, target,
                                                                            0.5, negative, owners, nullptr, nullptr,
                                                                            nullptr, nullptr));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_incremental_box_step(2, ranks, kBoxes, kCount, current, target,
                                                                            0.5, nullptr, nullptr, nullptr, nullptr,
                                                                            nullptr, nullptr));
  EXPECT_EQ(std::vector<int>(owners, owners + kCount), std::vector<int>(kCount, 7)) << "nothing written on an error";
}

// Chopping: a 10x3 box, an empty one and a 5x7 one, no piece over 4x3. Each box's pieces are
// checked against a serial count (ceil(extent / max) per axis), tile it exactly (volumes add up,
// every piece inside it), never exceed the maximum and differ by at most one cell along an axis;
// the first box's cuts are spelled out. Capacity 0 sizes the list; a maximum of 0 is refused.
TEST_F(CApiBoxSet, ChopBoxesCutsEveryBoxIntoNearEqualPieces) {
  const tessera_box boxes[] = {{{0, 0, 0}, {10, 3, 0}}, {{10, 0, 0}, {10, 3, 0}}, {{20, 1, 0}, {25, 8, 0}}};
  const std::int64_t max_extent[2] = {4, 3};
  size_t count = 0;
  ASSERT_OK(tessera_chop_boxes(2, boxes, 3, max_extent, nullptr, 0, &count));
  const auto parts = [&](const tessera_box& b, int d) { return (b.hi[d] - b.lo[d] + max_extent[d] - 1) / max_extent[d]; };
  ASSERT_EQ(count, static_cast<size_t>(parts(boxes[0], 0) * parts(boxes[0], 1) + parts(boxes[2], 0) * parts(boxes[2], 1)));
  ASSERT_EQ(count, 3u + 6u);
  std::vector<tessera_box> pieces(count);
  size_t again = 0;
  ASSERT_OK(tessera_chop_boxes(2, boxes, 3, max_extent, pieces.data(), pieces.size(), &again));
  EXPECT_EQ(again, count);
  // 10 = 4 + 3 + 3 along axis 0, 3 in one piece along axis 1.
  const std::int64_t first_cuts[4] = {0, 4, 7, 10};
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(pieces[static_cast<std::size_t>(k)].lo[0], first_cuts[k]);
    EXPECT_EQ(pieces[static_cast<std::size_t>(k)].hi[0], first_cuts[k + 1]);
    EXPECT_EQ(pieces[static_cast<std::size_t>(k)].lo[1], 0);
    EXPECT_EQ(pieces[static_cast<std::size_t>(k)].hi[1], 3);
  }
  const auto check_tiles = [&](const tessera_box& b, std::size_t first, std::size_t n) {
    std::int64_t volume = 0;
    for (std::size_t k = first; k < first + n; ++k) {
      const tessera_box& p = pieces[k];
      for (int d = 0; d < 2; ++d) {
        const std::int64_t e = p.hi[d] - p.lo[d], whole = b.hi[d] - b.lo[d];
        EXPECT_TRUE(p.lo[d] >= b.lo[d] && p.hi[d] <= b.hi[d]) << "piece " << k << " leaves its box";
        EXPECT_LE(e, max_extent[d]);
        EXPECT_TRUE(e == whole / parts(b, d) || e == whole / parts(b, d) + 1) << "piece " << k << " axis " << d;
      }
      volume += (p.hi[0] - p.lo[0]) * (p.hi[1] - p.lo[1]);
      for (std::size_t l = first; l < k; ++l) {  // disjoint from the pieces before it
        const tessera_box& q = pieces[l];
        const bool apart = p.hi[0] <= q.lo[0] || q.hi[0] <= p.lo[0] || p.hi[1] <= q.lo[1] || q.hi[1] <= p.lo[1];
        EXPECT_TRUE(apart) << "pieces " << l << " and " << k << " overlap";
      }
    }
    EXPECT_EQ(volume, (b.hi[0] - b.lo[0]) * (b.hi[1] - b.lo[1]));
  };
  check_tiles(boxes[0], 0, 3);
  check_tiles(boxes[2], 3, 6);  // the empty box left nothing between them
  // Capacity smaller than the list: that many written, the count still the whole list's.
  tessera_box two[2] = {};
  ASSERT_OK(tessera_chop_boxes(2, boxes, 3, max_extent, two, 2, &again));
  EXPECT_EQ(again, count);
  EXPECT_EQ(two[1].lo[0], 4);
  // Bad input: nothing written.
  const std::int64_t zero[2] = {4, 0};
  again = 77;
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_chop_boxes(2, boxes, 3, zero, pieces.data(), count, &again));
  expect_error_mentions({"tessera_chop_boxes", "max_extent[1]"});
  EXPECT_EQ(again, 77u);
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_chop_boxes(2, boxes, 3, nullptr, pieces.data(), count, &again));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_chop_boxes(2, boxes, 3, max_extent, nullptr, 4, &again));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_chop_boxes(2, boxes, 3, max_extent, pieces.data(), count, nullptr));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_chop_boxes(4, boxes, 3, max_extent, pieces.data(), count, &again));
  EXPECT_EQ(again, 77u);
}

// A constant over the hole: after a ghost update, every ghost cell of the L-shape's boxes that lies
// in the hole holds it, the others their neighbours' values; NONE afterwards leaves them as they
// are; an extrapolation, a wrong type and a missing value are refused, rule unchanged.
TEST_F(CApiBoxSet, AConstantOverTheHoleFillsItsGhostCells) {
  int owners[kCount];
  tessera_dist d = nullptr;
  tessera_domain dom = nullptr;
  tessera_array a = nullptr;
  make_l_shape_array(owners, &d, &dom, &a);
  const double wall = -7.5;
  ASSERT_OK(tessera_array_set_hole_boundary(a, TESSERA_BOUNDARY_CONSTANT, TESSERA_DOUBLE, &wall));
  ASSERT_OK(tessera_array_update_ghosts(a));
  expect_cells_around_owned_boxes(a, owners, rank, wall, "constant");
  ASSERT_OK(tessera_array_set_hole_boundary(a, TESSERA_BOUNDARY_NONE, TESSERA_DOUBLE, nullptr));
  ASSERT_OK(tessera_array_update_ghosts(a));
  expect_cells_around_owned_boxes(a, owners, rank, wall, "none after constant");
  for (const tessera_boundary refused : {TESSERA_BOUNDARY_EXTRAPOLATE, static_cast<tessera_boundary>(42)}) {
    EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_array_set_hole_boundary(a, refused, TESSERA_DOUBLE, &wall));
  }
  expect_error_mentions({"tessera_array_set_hole_boundary", "'rule' = 42"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT,
                tessera_array_set_hole_boundary(a, TESSERA_BOUNDARY_CONSTANT, TESSERA_DOUBLE, nullptr));
  const int32_t wrong = 3;
  EXPECT_NE(tessera_array_set_hole_boundary(a, TESSERA_BOUNDARY_CONSTANT, TESSERA_INT32, &wrong), TESSERA_OK);
  ASSERT_OK(tessera_array_update_ghosts(a));
  expect_cells_around_owned_boxes(a, owners, rank, wall, "after the refusals");  // still none: the values stay as the constant left them
  ASSERT_OK(tessera_array_free(&a));
  ASSERT_OK(tessera_domain_free(&dom));
  ASSERT_OK(tessera_dist_free(&d));
}

// A reflect over the hole is a wall around each box: in every patch, each ghost cell over the hole
// holds the patch's own cell mirrored about the box's face (negated by the odd rule), so the same
// hole cell holds different values in the ghosts of different boxes. Read through the patch views.
TEST_F(CApiBoxSet, AReflectOverTheHoleMirrorsEachBoxsOwnCells) {
  int owners[kCount];
  tessera_dist d = nullptr;
  tessera_domain dom = nullptr;
  tessera_array a = nullptr;
  make_l_shape_array(owners, &d, &dom, &a);
  for (const double sign : {1.0, -1.0}) {
    SCOPED_TRACE(::testing::Message() << "sign " << sign);
    ASSERT_OK(tessera_array_set_hole_boundary(a, sign > 0 ? TESSERA_BOUNDARY_REFLECT : TESSERA_BOUNDARY_REFLECT_ODD,
                                              TESSERA_DOUBLE, nullptr));
    ASSERT_OK(tessera_array_update_ghosts(a));
    size_t patches = 0;
    ASSERT_OK(tessera_array_patch_count(a, &patches));
    std::int64_t mirrored = 0;  // hole cells checked on this rank
    for (size_t k = 0; k < patches; ++k) {
      tessera_view v;
      ASSERT_OK(tessera_array_local(a, k, TESSERA_DOUBLE, &v));
      const auto* data = static_cast<const double*>(v.data);
      for (int64_t li = 0; li < v.extents[0]; ++li)
        for (int64_t lj = 0; lj < v.extents[1]; ++lj) {
          const int64_t i = v.first[0] + li - v.ghost_lo[0], j = v.first[1] + lj - v.ghost_lo[1];
          if (!in_hole(i, j) || i >= 8 || j >= 8) continue;
          // The mirror about the owned range along each axis the cell lies beyond.
          const auto mirror = [&](int64_t x, int e) {
            const int64_t lo = v.first[e], hi = v.first[e] + v.count[e];
            return x < lo ? 2 * lo - 1 - x : x >= hi ? 2 * hi - 1 - x : x;
          };
          EXPECT_EQ(data[li * v.strides[0] + lj * v.strides[1]], sign * value_at(mirror(i, 0), mirror(j, 1)))
              << "patch " << k << " at (" << i << ", " << j << ")";
          ++mirrored;
        }
    }
    // Box 1's row i = 4 and box 3's column j = 4 over the hole, and box 0's corner (4, 4) mirrored
    // along both axes (the ghosts have corners): 4 + 4 + 1 ghost cells in all.
    std::int64_t all = 0;
    MPI_Allreduce(&mirrored, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_EQ(all, 9);
  }
  ASSERT_OK(tessera_array_free(&a));
  ASSERT_OK(tessera_domain_free(&dom));
  ASSERT_OK(tessera_dist_free(&d));
}

TEST_F(CApiBoxSet, BadInputIsAnErrorAndMakesNothing) {
  int owners[kCount] = {0, 0, 0, 0};
  tessera_dist d = nullptr;
  const tessera_box overlapping[2] = {{{0, 0, 0}, {4, 4, 0}}, {{3, 3, 0}, {5, 5, 0}}};
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_from_boxes(2, size, nullptr, overlapping, 2, owners, &d));
  expect_error_mentions({"tessera_dist_from_boxes"});
  const tessera_box small = {{0, 0, 0}, {6, 6, 0}};
  EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_dist_from_boxes(2, size, &small, kBoxes, kCount, owners, &d));
  int bad_owner[kCount] = {0, size, 0, 0};
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_from_boxes(2, size, &kDomain, kBoxes, kCount, bad_owner, &d));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_from_boxes(4, size, &kDomain, kBoxes, kCount, owners, &d));
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_dist_from_boxes(2, size, &kDomain, kBoxes, kCount, nullptr, &d));
  EXPECT_EQ(d, nullptr);
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT,
                tessera_assign_boxes(2, size, kBoxes, kCount, static_cast<tessera_box_assignment>(7), nullptr, owners));
  expect_error_mentions({"tessera_assign_boxes", "'policy' = 7"});
  const double negative[kCount] = {1, -1, 1, 1};
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT,
                tessera_assign_boxes(2, size, kBoxes, kCount, TESSERA_ASSIGN_KNAPSACK, negative, owners));
  tessera_dist block = block2(8, 8);
  size_t count = 0;
  EXPECT_STATUS(TESSERA_ERR_MISMATCH, tessera_dist_box_set(block, nullptr, nullptr, 0, &count));
  expect_error_mentions({"not a box set"});
  ASSERT_OK(tessera_dist_free(&block));
}

// A byte budget of one 4x2 box of doubles (64 bytes): of the boxes the policy's Δ = 1 would move,
// only a 4x2 one fits, and it moves with its values.
TEST_F(CApiBoxSet, BoxBalancerWithAByteBudgetMovesWhatFits) {
  AllOnRankZero c;
  make_all_on_rank_zero(c);
  c.options.max_bytes_per_step = 64;
  tessera_box_balancer bal = nullptr;
  ASSERT_OK(tessera_box_balancer_create(c.dom, &c.policy, &c.options, &bal));
  tessera_balance_step step;
  ASSERT_OK(tessera_box_balancer_step(bal, &step));
  EXPECT_LE(step.bytes, 64U);
  EXPECT_LE(step.blocks, 1);
  // On 2 ranks (a 4x4 and a 4x2 box to go) and on 4 or more (one box per rank, a 4x2 one among
  // those leaving rank 0), a 4x2 box fits and moves.
  if (size == 2 || size >= 4) {
    EXPECT_EQ(step.blocks, 1);
    EXPECT_EQ(step.bytes, 64U);
  }
  expect_every_value_kept(c.a);
  ASSERT_OK(tessera_box_balancer_free(&bal));
  ASSERT_OK(tessera_array_free(&c.a));
  ASSERT_OK(tessera_domain_free(&c.dom));
  ASSERT_OK(tessera_dist_free(&c.d));
}

TEST_F(CApiBoxSet, BoxBalancerMovesBoxesOffTheLoadedRankAndKeepsValues) {
  // Every box on rank 0 at first; each box's timer gets its cells x 1 ms: one step of Δ = 1 toward
  // the knapsack of those times spreads the boxes, every value moving with its box.
  AllOnRankZero c;
  make_all_on_rank_zero(c);
  tessera_box_balancer bal = nullptr;
  ASSERT_OK(tessera_box_balancer_create(c.dom, &c.policy, &c.options, &bal));
  size_t patches = 0;
  ASSERT_OK(tessera_array_patch_count(c.a, &patches));
  ASSERT_EQ(patches, rank == 0 ? kCount : 0U);
  for (size_t p = 0; p < patches; ++p) {
    size_t box = kCount;
    ASSERT_OK(tessera_box_balancer_box_of_patch(bal, p, &box));
    EXPECT_EQ(box, p);  // rank 0 holds every box, in box order
    const double cells = static_cast<double>((kBoxes[box].hi[0] - kBoxes[box].lo[0]) * (kBoxes[box].hi[1] - kBoxes[box].lo[1]));
    ASSERT_OK(tessera_box_balancer_timer_add(bal, p, cells * 1e-3));
  }
  EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_box_balancer_timer_start(bal, patches));
  expect_error_mentions({"tessera_box_balancer_timer_start", "patch"});
  tessera_balance_step step;
  ASSERT_OK(tessera_box_balancer_step(bal, &step));
  EXPECT_EQ(step.remap_point, 1);
  EXPECT_EQ(step.blocks > 0, size > 1);
  // The owners now: the knapsack of the cell counts, relabeled so that rank 0 keeps what it can.
  tessera_dist now = nullptr;
  ASSERT_OK(tessera_domain_distribution(c.dom, &now));
  int back[kCount];
  size_t count = 0;
  ASSERT_OK(tessera_dist_box_set(now, nullptr, back, kCount, &count));
  ASSERT_EQ(count, kCount);
  int spread = 0;
  for (const int o : back) spread |= 1 << o;
  if (size > 1) {
    EXPECT_GT(__builtin_popcount(static_cast<unsigned>(spread)), 1);
  }
  expect_every_value_kept(c.a);
  // A running timer at a remap point: refused on every rank, nothing moved.
  ASSERT_OK(tessera_array_patch_count(c.a, &patches));
  if (patches > 0) {
    ASSERT_OK(tessera_box_balancer_timer_start(bal, 0));
    EXPECT_STATUS(TESSERA_ERR_CALL_ORDER, tessera_box_balancer_timer_start(bal, 0));
  }
  const tessera_status refused = tessera_box_balancer_step(bal, nullptr);
  int any_patches = patches > 0 ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &any_patches, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(refused, any_patches ? TESSERA_ERR_INVALID_ARGUMENT : TESSERA_OK);
  if (patches > 0) {
    ASSERT_OK(tessera_box_balancer_timer_stop(bal, 0));
    EXPECT_STATUS(TESSERA_ERR_CALL_ORDER, tessera_box_balancer_timer_stop(bal, 0));
  }
  ASSERT_OK(tessera_box_balancer_free(&bal));
  EXPECT_EQ(bal, nullptr);
  // Not a box set; a bad target.
  tessera_dist block = block2(8, 8);
  tessera_domain plain = domain_of(block);
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_box_balancer_create(plain, &c.policy, nullptr, &bal));
  expect_error_mentions({"tessera_box_balancer_create", "not a box set"});
  c.options.target = static_cast<tessera_box_assignment>(9);
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_box_balancer_create(c.dom, &c.policy, &c.options, &bal));
  expect_error_mentions({"'options->target' = 9"});
  EXPECT_EQ(bal, nullptr);
  ASSERT_OK(tessera_domain_free(&plain));
  ASSERT_OK(tessera_dist_free(&block));
  ASSERT_OK(tessera_dist_free(&now));
  ASSERT_OK(tessera_array_free(&c.a));
  ASSERT_OK(tessera_domain_free(&c.dom));
  ASSERT_OK(tessera_dist_free(&c.d));
}

}  // namespace
}  // namespace tessera::capi_testing
