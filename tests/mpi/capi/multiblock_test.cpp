// Multiblock domains through the C API: three blocks (block x block, cyclic, a box set with a hole)
// glued by a rotated interface, a flipped part of a face and a periodic self-interface. Every
// stored value after a ghost update (blocking and split phase) and an accumulation is compared with
// the C++ library's MultiblockArray over the same layout (tests/mpi/multiblock checks that one
// against the interfaces' definition), and the interfaces' rules are checked by hand on the cells
// they reach; reductions and gathered blocks against a serial image; a strided, oriented section
// move against the C++ one; a redistribution keeps every value; bad input fails on every rank.
#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "capi_checks.hpp"
#include "objects.hpp"  // the C++ distributions behind the handles: the mirror's blocks

namespace tessera::capi_testing {
namespace {

// Block b's cell p holds code(b, p) (exact in a double).
double code(std::size_t b, std::int64_t i, std::int64_t j) { return 1000.0 * static_cast<double>(b + 1) + 20.0 * static_cast<double>(i) + static_cast<double>(j); }

const tessera_box kBlock0 = {{0, 0, 0}, {6, 8, 0}};
const tessera_box kBlock1 = {{0, 0, 0}, {8, 5, 0}};
const tessera_box kBlock2 = {{0, 0, 0}, {6, 8, 0}};
// Block 2 is a box set: [0,3)x[0,8) and [3,6)x[0,4); [3,6)x[4,8) is a hole.
bool in_hole(std::size_t b, std::int64_t i, std::int64_t j) { return b == 2 && i >= 3 && j >= 4; }

/// The three interfaces (see the file comment), and block 2 periodic along axis 1.
std::vector<tessera_block_interface> interfaces() {
  std::vector<tessera_block_interface> out(3);
  // Block 0's upper face of axis 0 (i = 5) onto block 1's upper face of axis 1 (j = 4): block 0's
  // axis 1 runs along block 1's axis 0; both faces upper, so the normal is flipped.
  out[0].a = {0, 0, 1, {}};
  out[0].b = {1, 1, 1, {}};
  out[0].perm[0] = 1, out[0].perm[1] = 0;
  out[0].flip[0] = 1;
  // Block 1's upper face of axis 0 (i = 7, j in [0,5)) onto part of block 2's lower face of axis 0
  // (i = 0, j in [2,7)), reversed along axis 1.
  out[1].a = {1, 0, 1, {}};
  out[1].b = {2, 0, 0, {{0, 2, 0}, {1, 7, 0}}};
  out[1].flip[1] = 1;  // perm zero: the identity
  // Block 2 glued to itself: periodic along axis 1.
  out[2].a = {2, 1, 1, {}};
  out[2].b = {2, 1, 0, {}};
  return out;
}

class CApiMultiblock : public CApiTest {
 protected:
  void SetUp() override {
    CApiTest::SetUp();
    const tessera_dim_spec block_specs[2] = {{}, {}};
    tessera_grid g = grid2(6, 8);
    ASSERT_OK(tessera_dist_create(g, &kBlock0, block_specs, nullptr, &blocks[0]));
    ASSERT_OK(tessera_grid_free(&g));
    const int64_t column[2] = {size, 1};
    ASSERT_OK(tessera_grid_create(2, size, column, &g));
    tessera_dim_spec cyclic[2] = {{}, {}};
    cyclic[0].kind = TESSERA_DIM_CYCLIC;
    ASSERT_OK(tessera_dist_create(g, &kBlock1, cyclic, nullptr, &blocks[1]));
    ASSERT_OK(tessera_grid_free(&g));
    const tessera_box boxes[2] = {{{0, 0, 0}, {3, 8, 0}}, {{3, 0, 0}, {6, 4, 0}}};
    const int owners[2] = {size - 1, 0};
    ASSERT_OK(tessera_dist_from_boxes(2, size, &kBlock2, boxes, 2, owners, &blocks[2]));
    const auto glue = interfaces();
    ASSERT_OK(tessera_multiblock_create(world, blocks, 3, glue.data(), glue.size(), 2, &mb));
    // The C++ mirror over the same distributions and interfaces.
    mirror_comm = std::make_unique<Communicator>(MPI_COMM_WORLD);
    std::vector<Distribution<2>> dists;
    for (tessera_dist d : blocks) dists.push_back(std::get<1>(capi::get<capi::DistObject>(d, "d")->dist));
    std::vector<BlockInterface<2>> glued;
    for (const tessera_block_interface& c : glue) {
      auto face = [](const tessera_block_face& f) {
        Box<2> cells{{f.cells.lo[0], f.cells.lo[1]}, {f.cells.hi[0], f.cells.hi[1]}};
        return BlockFace<2>{static_cast<std::size_t>(f.block), static_cast<std::size_t>(f.axis), f.upper != 0, cells};
      };
      const bool identity = c.perm[0] == 0 && c.perm[1] == 0;
      const Orientation<2> o({identity ? 0 : c.perm[0], identity ? 1 : c.perm[1]}, {c.flip[0] != 0, c.flip[1] != 0});
      glued.push_back({face(c.a), face(c.b), o});
    }
    mirror = std::make_unique<MultiblockDomain<2>>(*mirror_comm, MultiblockLayout<2>(dists, glued, 2));
  }
  void TearDown() override {
    mirror.reset();
    mirror_comm.reset();
    EXPECT_STATUS(TESSERA_OK, tessera_multiblock_free(&mb));
    for (tessera_dist& d : blocks) EXPECT_STATUS(TESSERA_OK, tessera_dist_free(&d));
    CApiTest::TearDown();
  }

  /// Sets every cell this rank owns in both arrays to `code`.
  void set_owned(tessera_multiblock_array a, MultiblockArray<double, 2>& m) {
    const tessera_box boxes[3] = {kBlock0, kBlock1, kBlock2};
    for (std::size_t b = 0; b < 3; ++b)
      for (int64_t i = boxes[b].lo[0]; i < boxes[b].hi[0]; ++i)
        for (int64_t j = boxes[b].lo[1]; j < boxes[b].hi[1]; ++j) {
          if (in_hole(b, i, j)) continue;
          if (!owns(b, i, j)) continue;
          const int64_t p[2] = {i, j};
          const double v = code(b, i, j);
          ASSERT_OK(tessera_multiblock_array_set(a, b, p, TESSERA_DOUBLE, &v));
          m.at(b, {i, j}) = v;
        }
  }

  /// Every stored value of every patch (owned and ghost) of `a` equals the mirror's.
  void expect_same_storage(tessera_multiblock_array a, const MultiblockArray<double, 2>& m, const char* when) {
    size_t patches = 0;
    ASSERT_OK(tessera_multiblock_array_patch_count(a, &patches));
    ASSERT_EQ(patches, m.patch_count()) << when;
    for (size_t k = 0; k < patches; ++k) {
      tessera_view v{};
      size_t block = 99;
      ASSERT_OK(tessera_multiblock_array_local(a, k, TESSERA_DOUBLE, &block, &v));
      EXPECT_EQ(block, m.block_of_patch(k)) << when;
      if (block == 0) {  // block x block: the view starts at this rank's box, in block 0's coordinates
        tessera_box mine{};
        ASSERT_OK(tessera_dist_owned_box(blocks[0], rank, &mine));
        EXPECT_EQ(v.first[0], mine.lo[0]) << when;
        EXPECT_EQ(v.first[1], mine.lo[1]) << when;
        EXPECT_EQ(v.count[0], mine.hi[0] - mine.lo[0]) << when;
      }
      const auto local = m.local(k);
      ASSERT_EQ(v.extents[0] * v.extents[1], local.extents[0] * local.extents[1]) << when;
      const auto* got = static_cast<const double*>(v.data);
      for (int64_t e = 0; e < v.extents[0] * v.extents[1]; ++e)
        ASSERT_EQ(got[e], local.data[e]) << when << ": rank " << rank << " patch " << k << " element " << e;
    }
  }

  /// This rank owns cell (i, j) of block b.
  bool owns(std::size_t b, int64_t i, int64_t j) {
    const int64_t p[2] = {i, j};
    int owner = -1;
    EXPECT_STATUS(TESSERA_OK, tessera_dist_owner(blocks[b], p, &owner));
    return owner == rank;
  }
  /// The value this rank stores at (i, j) of block b (owned or ghost).
  double value(tessera_multiblock_array a, std::size_t b, int64_t i, int64_t j) {
    const int64_t p[2] = {i, j};
    double out = -1;
    EXPECT_STATUS(TESSERA_OK, tessera_multiblock_array_get(a, b, p, TESSERA_DOUBLE, &out));
    return out;
  }

  std::unique_ptr<Communicator> mirror_comm;
  std::unique_ptr<MultiblockDomain<2>> mirror;
  tessera_dist blocks[3] = {nullptr, nullptr, nullptr};
  tessera_multiblock mb = nullptr;
};

TEST_F(CApiMultiblock, TheDomainAnswersWhatItWasMadeOf) {
  int ndim = 0;
  size_t count = 0;
  tessera_box box{};
  ASSERT_OK(tessera_multiblock_ndim(mb, &ndim));
  ASSERT_OK(tessera_multiblock_block_count(mb, &count));
  EXPECT_EQ(ndim, 2);
  EXPECT_EQ(count, 3u);
  ASSERT_OK(tessera_multiblock_block_box(mb, 1, &box));
  EXPECT_EQ(box.hi[0], 8);
  EXPECT_EQ(box.hi[1], 5);
  tessera_dist d = nullptr;
  int equal = 0;
  ASSERT_OK(tessera_multiblock_block_dist(mb, 2, &d));
  ASSERT_OK(tessera_dist_equal(d, blocks[2], &equal));
  EXPECT_EQ(equal, 1);
  ASSERT_OK(tessera_dist_free(&d));
  EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_multiblock_block_box(mb, 3, &box));
  expect_error_mentions({"tessera_multiblock_block_box", "block", "3"});
}

TEST_F(CApiMultiblock, GhostUpdatesMatchTheLibraryAndTheInterfaces) {
  tessera_ghosts g{};
  ASSERT_OK(tessera_ghosts_uniform(2, 2, &g));
  tessera_multiblock_array a = nullptr;
  ASSERT_OK(tessera_multiblock_array_create(mb, TESSERA_DOUBLE, &g, &a));
  MultiblockArray<double, 2> m(*mirror, ghosts<2>(2));
  set_owned(a, m);
  for (int round = 0; round < 2; ++round) {  // the second through the kept schedule, split phase
    if (round == 0) {
      ASSERT_OK(tessera_multiblock_array_update_ghosts(a));
    } else {
      ASSERT_OK(tessera_multiblock_array_begin_update_ghosts(a));
      EXPECT_STATUS(TESSERA_ERR_CALL_ORDER, tessera_multiblock_array_begin_update_ghosts(a));
      EXPECT_STATUS(TESSERA_ERR_CALL_ORDER, tessera_multiblock_array_update_ghosts(a));
      ASSERT_OK(tessera_multiblock_array_end_update_ghosts(a));
      EXPECT_STATUS(TESSERA_ERR_CALL_ORDER, tessera_multiblock_array_end_update_ghosts(a));
    }
    m.update_ghosts();
    expect_same_storage(a, m, round == 0 ? "after update_ghosts" : "after the split phase");
  }
  // The interfaces' rules, by hand, on the ghosts beside the face cells this rank owns.
  long checked = 0;
  for (int64_t j = 0; j < 8; ++j)  // block 0's (6, j) is block 1's (j, 4); (7, j) is (j, 3)
    if (owns(0, 5, j))
      for (int64_t depth = 1; depth <= 2; ++depth) {
        EXPECT_EQ(value(a, 0, 5 + depth, j), code(1, j, 5 - depth)) << "block 0, depth " << depth << ", j " << j;
        ++checked;
      }
  for (int64_t j = 0; j < 5; ++j)  // block 1's (8, j) is block 2's (0, 6 - j)
    if (owns(1, 7, j)) {
      EXPECT_EQ(value(a, 1, 8, j), code(2, 0, 6 - j)) << "block 1, j " << j;
      ++checked;
    }
  for (int64_t i = 0; i < 3; ++i)  // block 2's (i, -1) is its (i, 7): periodic
    if (owns(2, i, 0)) {
      EXPECT_EQ(value(a, 2, i, -1), code(2, i, 7)) << "block 2, i " << i;
      ++checked;
    }
  long everywhere = 0;
  MPI_Allreduce(&checked, &everywhere, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(everywhere, 16 + 5 + 3);

  // Accumulation: every ghost added into the cell it mirrors, as the library does.
  ASSERT_OK(tessera_multiblock_array_accumulate_ghosts(a, TESSERA_OP_ADD));
  m.accumulate_ghosts(CombineOp::add);
  expect_same_storage(a, m, "after accumulate_ghosts");
  ASSERT_OK(tessera_multiblock_array_free(&a));
}

TEST_F(CApiMultiblock, ReductionsAndGatheredBlocksMatchASerialImage) {
  tessera_multiblock_array a = nullptr;
  ASSERT_OK(tessera_multiblock_array_create(mb, TESSERA_DOUBLE, nullptr, &a));
  MultiblockArray<double, 2> m(*mirror, no_ghosts<2>());
  set_owned(a, m);
  const tessera_box boxes[3] = {kBlock0, kBlock1, kBlock2};
  double sum = 0, biggest = 0;
  for (std::size_t b = 0; b < 3; ++b) {
    std::vector<double> image;
    for (int64_t i = 0; i < boxes[b].hi[0]; ++i)
      for (int64_t j = 0; j < boxes[b].hi[1]; ++j) {
        image.push_back(in_hole(b, i, j) ? 0.0 : code(b, i, j));
        sum += image.back();
        biggest = std::max(biggest, image.back());
      }
    for (const int root : {-1, size - 1}) {
      std::vector<double> got(image.size(), -1.0);
      ASSERT_OK(tessera_multiblock_array_gather_block(a, b, root, TESSERA_DOUBLE, got.data(),
                                                     static_cast<int64_t>(got.size())));
      if (root == -1 || rank == root) {
        EXPECT_EQ(got, image) << "block " << b << " gathered on " << root;
      }
    }
  }
  double result = 0;
  ASSERT_OK(tessera_multiblock_array_reduce(a, TESSERA_OP_ADD, TESSERA_DOUBLE, &result));
  EXPECT_EQ(result, sum);  // integers below 2^53: exact in any order
  ASSERT_OK(tessera_multiblock_array_reduce(a, TESSERA_OP_MAX, TESSERA_DOUBLE, &result));
  EXPECT_EQ(result, biggest);
  std::vector<double> small(4);
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_multiblock_array_gather_block(a, 0, -1, TESSERA_DOUBLE, small.data(), 4));
  expect_error_mentions({"tessera_multiblock_array_gather_block", "capacity", "48"});
  EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_multiblock_array_gather_block(a, 0, size, TESSERA_DOUBLE, small.data(), 4));
  expect_error_mentions({"root"});
  EXPECT_STATUS(TESSERA_ERR_WRONG_TYPE, tessera_multiblock_array_reduce(a, TESSERA_OP_ADD, TESSERA_INT64, &result));
  ASSERT_OK(tessera_multiblock_array_free(&a));
}

TEST_F(CApiMultiblock, SectionMovesAndRedistributionKeepValuesLikeTheLibrary) {
  tessera_multiblock_array a = nullptr, w = nullptr;
  ASSERT_OK(tessera_multiblock_array_create(mb, TESSERA_DOUBLE, nullptr, &a));
  ASSERT_OK(tessera_multiblock_array_create(mb, TESSERA_DOUBLE, nullptr, &w));
  MultiblockArray<double, 2> ma(*mirror, no_ghosts<2>()), mw(*mirror, no_ghosts<2>());
  set_owned(a, ma);
  // Every other row of block 0's [0,6)x[1,6) (3 x 5 points), turned and reversed, onto block 1's
  // [1,6)x[0,5) by every other column: 5 x 3 points.
  tessera_block_section from{}, to{};
  from.block = 0, from.box = {{0, 1, 0}, {6, 6, 0}}, from.stride[0] = 2;
  to.block = 1, to.box = {{1, 0, 0}, {6, 5, 0}}, to.stride[1] = 2;
  const int perm[2] = {1, 0}, flip[2] = {1, 0};
  ASSERT_OK(tessera_multiblock_copy_section(a, &from, w, &to, perm, flip));
  copy_section(ma, {0, {{0, 1}, {6, 6}}, {2, 1}}, mw, {1, {{1, 0}, {6, 5}}, {1, 2}}, Orientation<2>({1, 0}, {true, false}));
  expect_same_storage(w, mw, "after the section move");
  size_t moved = 0;  // the move wrote something somewhere
  for (std::size_t k = 0, n = mw.patch_count(); k < n; ++k) {
    const auto local = mw.local(k);
    for (int64_t e = 0; e < local.extents[0] * local.extents[1]; ++e) moved += local.data[e] != 0.0;
  }
  unsigned long total = moved, everywhere = 0;
  MPI_Allreduce(&total, &everywhere, 1, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(everywhere, 15u);

  // Every block to a new distribution: block 0 on the last rank alone, 1 and 2 as they were.
  std::vector<double> before(48);
  ASSERT_OK(tessera_multiblock_array_gather_block(a, 0, -1, TESSERA_DOUBLE, before.data(), 48));
  const tessera_box whole[1] = {kBlock0};
  const int last[1] = {size - 1};
  tessera_dist moved_block0 = nullptr;
  ASSERT_OK(tessera_dist_from_boxes(2, size, &kBlock0, whole, 1, last, &moved_block0));
  const tessera_dist next[3] = {moved_block0, blocks[1], blocks[2]};
  ASSERT_OK(tessera_multiblock_redistribute(mb, next, 3));
  std::vector<double> after(48);
  ASSERT_OK(tessera_multiblock_array_gather_block(a, 0, -1, TESSERA_DOUBLE, after.data(), 48));
  EXPECT_EQ(after, before);
  tessera_dist now = nullptr;
  int equal = 0;
  ASSERT_OK(tessera_multiblock_block_dist(mb, 0, &now));
  ASSERT_OK(tessera_dist_equal(now, moved_block0, &equal));
  EXPECT_EQ(equal, 1);
  ASSERT_OK(tessera_dist_free(&now));
  size_t patches = 0;  // block 0's patches are on the last rank only
  ASSERT_OK(tessera_multiblock_array_patch_count(a, &patches));
  for (size_t k = 0; k < patches; ++k) {
    size_t block = 99;
    tessera_view v{};
    ASSERT_OK(tessera_multiblock_array_local(a, k, TESSERA_DOUBLE, &block, &v));
    if (block == 0) {
      EXPECT_EQ(rank, size - 1);
      EXPECT_EQ(v.count[0] * v.count[1], 48);
    }
  }
  // Another number of blocks, or a block over another box: nothing changes.
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_multiblock_redistribute(mb, next, 2));
  expect_error_mentions({"tessera_multiblock_redistribute", "2 blocks"});
  const tessera_dist swapped[3] = {blocks[1], blocks[0], blocks[2]};
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_multiblock_redistribute(mb, swapped, 3));
  expect_error_mentions({"block 0"});
  ASSERT_OK(tessera_multiblock_block_dist(mb, 0, &now));
  ASSERT_OK(tessera_dist_equal(now, moved_block0, &equal));
  EXPECT_EQ(equal, 1);
  ASSERT_OK(tessera_dist_free(&now));
  ASSERT_OK(tessera_dist_free(&moved_block0));
  ASSERT_OK(tessera_multiblock_array_free(&a));
  ASSERT_OK(tessera_multiblock_array_free(&w));
}

TEST_F(CApiMultiblock, BadInputIsAnErrorOnEveryRankAndMakesNothing) {
  tessera_multiblock other = nullptr;
  auto glue = interfaces();
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_multiblock_create(world, blocks, 0, nullptr, 0, 2, &other));
  expect_error_mentions({"tessera_multiblock_create", "block_count"});
  EXPECT_EQ(other, nullptr);
  glue[0].perm[1] = 1;  // {1, 1}: not a permutation
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_multiblock_create(world, blocks, 3, glue.data(), 3, 2, &other));
  expect_error_mentions({"tessera_multiblock_create", "permutation"});
  glue = interfaces();
  glue[1].b.cells.hi[1] = 8;  // six cells against five
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_multiblock_create(world, blocks, 3, glue.data(), 3, 2, &other));
  expect_error_mentions({"tessera_multiblock_create"});
  glue = interfaces();
  glue[2].a.block = 3;
  EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_multiblock_create(world, blocks, 3, glue.data(), 3, 2, &other));
  glue = interfaces();
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_multiblock_create(world, blocks, 3, glue.data(), 3, -1, &other));
  EXPECT_EQ(other, nullptr);

  tessera_multiblock_array a = nullptr;
  tessera_ghosts g{};
  ASSERT_OK(tessera_ghosts_uniform(2, 3, &g));  // wider than the domain's max_ghost_width 2
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_multiblock_array_create(mb, TESSERA_DOUBLE, &g, &a));
  expect_error_mentions({"tessera_multiblock_array_create", "max_ghost_width"});
  ASSERT_OK(tessera_ghosts_uniform(2, 1, &g));
  g.periodic[0] = 1;
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_multiblock_array_create(mb, TESSERA_DOUBLE, &g, &a));
  expect_error_mentions({"periodic"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_multiblock_array_create(mb, static_cast<tessera_type>(42), nullptr, &a));
  EXPECT_EQ(a, nullptr);

  ASSERT_OK(tessera_multiblock_array_create(mb, TESSERA_DOUBLE, nullptr, &a));
  const int64_t p[2] = {0, 0};
  const int32_t i32 = 1;
  EXPECT_STATUS(TESSERA_ERR_WRONG_TYPE, tessera_multiblock_array_set(a, 0, p, TESSERA_INT32, &i32));
  const double one = 1;
  EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_multiblock_array_set(a, 3, p, TESSERA_DOUBLE, &one));
  tessera_view v{};
  EXPECT_STATUS(TESSERA_ERR_OUT_OF_RANGE, tessera_multiblock_array_local(a, 99, TESSERA_DOUBLE, nullptr, &v));
  expect_error_mentions({"patch", "99"});
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_multiblock_array_accumulate_ghosts(a, static_cast<tessera_op>(9)));

  // A section move between domains, of different types, or with point counts that differ.
  tessera_multiblock second = nullptr;
  const auto glue2 = interfaces();
  ASSERT_OK(tessera_multiblock_create(world, blocks, 3, glue2.data(), 3, 2, &second));
  tessera_multiblock_array elsewhere = nullptr, ints = nullptr;
  ASSERT_OK(tessera_multiblock_array_create(second, TESSERA_DOUBLE, nullptr, &elsewhere));
  ASSERT_OK(tessera_multiblock_array_create(mb, TESSERA_INT32, nullptr, &ints));
  tessera_block_section s{};
  s.block = 0, s.box = {{0, 0, 0}, {2, 2, 0}};
  EXPECT_STATUS(TESSERA_ERR_MISMATCH, tessera_multiblock_copy_section(a, &s, elsewhere, &s, nullptr, nullptr));
  expect_error_mentions({"tessera_multiblock_copy_section", "different multiblock domains"});
  EXPECT_STATUS(TESSERA_ERR_WRONG_TYPE, tessera_multiblock_copy_section(a, &s, ints, &s, nullptr, nullptr));
  tessera_block_section t = s;
  t.box.hi[0] = 3;
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_multiblock_copy_section(a, &s, a, &t, nullptr, nullptr));
  t = s;
  t.stride[0] = -1;
  EXPECT_STATUS(TESSERA_ERR_INVALID_ARGUMENT, tessera_multiblock_copy_section(a, &s, a, &t, nullptr, nullptr));
  EXPECT_STATUS(TESSERA_ERR_INVALID_HANDLE,
                tessera_multiblock_array_update_ghosts(reinterpret_cast<tessera_multiblock_array>(mb)));
  ASSERT_OK(tessera_multiblock_array_free(&ints));
  ASSERT_OK(tessera_multiblock_array_free(&elsewhere));
  ASSERT_OK(tessera_multiblock_free(&second));
  ASSERT_OK(tessera_multiblock_array_free(&a));
  EXPECT_STATUS(TESSERA_ERR_NULL_HANDLE, tessera_multiblock_array_update_ghosts(a));
}

}  // namespace
}  // namespace tessera::capi_testing
