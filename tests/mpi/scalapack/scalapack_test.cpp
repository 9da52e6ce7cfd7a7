// ScaLAPACK on tessera arrays (docs/scalapack.md): pdgemm and pdgesv on column-major block-cyclic
// arrays, handed over through scalapack_descriptor and BlacsGrid, against a serial product and
// solve computed here; grids 1x1, 2x1, 1x2, 3x1, 1x3, 2x2, 4x1, 1x4 and grids whose ranks are
// permuted or leave skeleton ranks out (BLACS must follow tessera's positions); blocks 1, 7, 32
// and 64 on sizes that are no multiple of the block. Also: the descriptor equals descinit_'s, and
// every array ScaLAPACK cannot take is refused with a named error.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "tessera/scalapack/blacs_grid.hpp"
#include "tessera/tessera.hpp"

extern "C" {
// ScaLAPACK's Fortran routines (all arguments by reference).
void pdgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k, const double* alpha,
             const double* a, const int* ia, const int* ja, const int* desca, const double* b, const int* ib,
             const int* jb, const int* descb, const double* beta, double* c, const int* ic, const int* jc,
             const int* descc);
void pdgesv_(const int* n, const int* nrhs, double* a, const int* ia, const int* ja, const int* desca, int* ipiv,
             double* b, const int* ib, const int* jb, const int* descb, int* info);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc,
               const int* icsrc, const int* ictxt, const int* lld, int* info);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void blacs_gridinfo_(const int* context, int* rows, int* cols, int* row, int* col);
void Cblacs_get(int context, int what, int* value);
void Cblacs_gridinit(int* context, const char* order, int rows, int cols);
void Cblacs_gridexit(int context);
}

namespace tessera {
namespace {

using Matrix = std::vector<double>;  // row-major, as gather_to_all returns it

/// A deterministic value in [-1, 1) for entry (i, j) of matrix `salt`.
double entry(std::uint64_t salt, index_t i, index_t j) {
  std::uint64_t h = salt * 0x9E3779B97F4A7C15ULL ^ static_cast<std::uint64_t>(i) * 0xBF58476D1CE4E5B9ULL ^
                    static_cast<std::uint64_t>(j) * 0x94D049BB133111EBULL;
  h ^= h >> 31;
  h *= 0xD6E8FEB86659FD93ULL;
  h ^= h >> 32;
  return static_cast<double>(h % 2000001) / 1000000.0 - 1.0;
}

/// The grids to run on `size` ranks: every shape the rank count allows (1x1; 2x1, 1x2; 3x1, 1x3;
/// 2x2, 4x1, 1x4), plus a grid over permuted ranks and, from 3 ranks, one that leaves ranks out.
std::vector<ProcGrid<2>> grids_for(int size) {
  std::vector<ProcGrid<2>> grids;
  for (index_t rows = 1; rows <= size; ++rows)
    if (size % rows == 0) grids.push_back(ProcGrid<2>::with_shape(size, {rows, size / rows}));
  if (size >= 2) {
    std::vector<int> reversed(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) reversed[static_cast<std::size_t>(r)] = size - 1 - r;
    const index_t rows = size == 4 ? 2 : size;
    grids.push_back(ProcGrid<2>::from_ranks(size, {rows, size / rows}, reversed));
  }
  if (size >= 3) grids.push_back(ProcGrid<2>::from_ranks(size, {1, 2}, {size - 1, 0}));  // skeletons
  return grids;
}

/// An m x n array over `grid` in blocks of `block`, entries entry(salt, i, j), column-major
/// unless told otherwise.
struct Operand {
  Domain<2> dom;
  DistArray<double, 2> a;
  Operand(const Communicator& comm, const ProcGrid<2>& grid, index_t m, index_t n, index_t block, std::uint64_t salt,
          StorageOrder order = StorageOrder::column_major)
      : dom(comm, Distribution<2>(Box<2>({0, 0}, {m, n}), grid, {block_cyclic(block), block_cyclic(block)})),
        a(dom, no_ghosts<2>().stored(order)) {
    a.for_each_owned([&](const Point<2>& p, double& x) { x = entry(salt, p[0], p[1]); });
  }
};

/// The serial m x n matrix entry(salt, i, j), row-major.
Matrix serial(index_t m, index_t n, std::uint64_t salt) {
  Matrix x(static_cast<std::size_t>(m * n));
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) x[static_cast<std::size_t>(i * n + j)] = entry(salt, i, j);
  return x;
}

Matrix multiply(const Matrix& a, const Matrix& b, index_t m, index_t k, index_t n) {
  Matrix c(static_cast<std::size_t>(m * n), 0.0);
  for (index_t i = 0; i < m; ++i)
    for (index_t l = 0; l < k; ++l)
      for (index_t j = 0; j < n; ++j)
        c[static_cast<std::size_t>(i * n + j)] += a[static_cast<std::size_t>(i * k + l)] * b[static_cast<std::size_t>(l * n + j)];
  return c;
}

/// X with A X = B (A n x n, B n x r), Gaussian elimination with partial pivoting.
Matrix solve(Matrix a, Matrix b, index_t n, index_t r) {
  const auto at = [&](Matrix& x, index_t cols, index_t i, index_t j) -> double& {
    return x[static_cast<std::size_t>(i * cols + j)];
  };
  for (index_t c = 0; c < n; ++c) {
    index_t pivot = c;
    for (index_t i = c + 1; i < n; ++i)
      if (std::abs(at(a, n, i, c)) > std::abs(at(a, n, pivot, c))) pivot = i;
    for (index_t j = 0; j < n; ++j) std::swap(at(a, n, c, j), at(a, n, pivot, j));
    for (index_t j = 0; j < r; ++j) std::swap(at(b, r, c, j), at(b, r, pivot, j));
    for (index_t i = c + 1; i < n; ++i) {
      const double f = at(a, n, i, c) / at(a, n, c, c);
      for (index_t j = c; j < n; ++j) at(a, n, i, j) -= f * at(a, n, c, j);
      for (index_t j = 0; j < r; ++j) at(b, r, i, j) -= f * at(b, r, c, j);
    }
  }
  for (index_t i = n; i-- > 0;)
    for (index_t j = 0; j < r; ++j) {
      double s = at(b, r, i, j);
      for (index_t l = i + 1; l < n; ++l) s -= at(a, n, i, l) * at(b, r, l, j);
      at(b, r, i, j) = s / at(a, n, i, i);
    }
  return b;
}

void expect_close(const Matrix& got, const Matrix& want, double tolerance) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t k = 0; k < got.size(); ++k) ASSERT_NEAR(got[k], want[k], tolerance) << "entry " << k;
}

std::string describe(const ProcGrid<2>& grid, index_t block) {
  std::ostringstream out;
  out << "grid " << grid << ", block " << block;
  return out.str();
}

const int kOne = 1;
constexpr index_t kBlocks[] = {1, 7, 32, 64};

TEST(Scalapack, DescriptorIsDescinits) {
  Communicator comm(MPI_COMM_WORLD);
  for (const auto& grid : grids_for(comm.size())) {
    for (index_t block : kBlocks) {
      SCOPED_TRACE(describe(grid, block));
      Operand x(comm, grid, 67, 45, block, 1);
      BlacsGrid blacs(x.dom);
      ASSERT_EQ(blacs.active(), grid.position_of(comm.rank()).has_value());
      if (!blacs.active()) continue;
      // BLACS puts this rank where tessera does.
      int rows = 0, cols = 0, row = 0, col = 0;
      const int context = blacs.context();
      blacs_gridinfo_(&context, &rows, &cols, &row, &col);
      const auto position = *grid.position_of(comm.rank());
      EXPECT_EQ(rows, grid.extent(0));
      EXPECT_EQ(cols, grid.extent(1));
      EXPECT_EQ(row, position[0]);
      EXPECT_EQ(col, position[1]);
      const ScalapackDescriptor d = scalapack_descriptor(x.a, blacs);
      const int m = 67, n = 45, b = static_cast<int>(block), zero = 0;
      const int local_rows = numroc_(&m, &b, &row, &zero, &rows), local_cols = numroc_(&n, &b, &col, &zero, &cols);
      EXPECT_EQ(d.local_rows, local_rows);
      EXPECT_EQ(d.local_cols, local_cols);
      EXPECT_EQ(x.a.storage().size(), static_cast<std::size_t>(local_rows) * static_cast<std::size_t>(local_cols));
      const int lld = std::max(1, local_rows);
      int want[9] = {}, info = -1;
      descinit_(want, &m, &n, &b, &b, &zero, &zero, &context, &lld, &info);
      ASSERT_EQ(info, 0);
      for (int k = 0; k < 9; ++k) EXPECT_EQ(d.desc[static_cast<std::size_t>(k)], want[k]) << "descriptor entry " << k;
    }
  }
}

TEST(Scalapack, PdgemmOnColumnMajorArraysIsTheSerialProduct) {
  Communicator comm(MPI_COMM_WORLD);
  const index_t m = 67, k = 45, n = 53;  // no multiple of any block but 1; A*B differs from B*A
  const Matrix want = multiply(serial(m, k, 11), serial(k, n, 12), m, k, n);
  for (const auto& grid : grids_for(comm.size())) {
    for (index_t block : kBlocks) {
      SCOPED_TRACE(describe(grid, block));
      Operand a(comm, grid, m, k, block, 11), b(comm, grid, k, n, block, 12), c(comm, grid, m, n, block, 13);
      BlacsGrid blacs(a.dom);
      if (blacs.active()) {
        const auto da = scalapack_descriptor(a.a, blacs), db = scalapack_descriptor(b.a, blacs),
                   dc = scalapack_descriptor(c.a, blacs);
        const int im = static_cast<int>(m), in = static_cast<int>(n), ik = static_cast<int>(k);
        const double alpha = 1.0, beta = 0.0;
        pdgemm_("N", "N", &im, &in, &ik, &alpha, a.a.data(), &kOne, &kOne, da.data(), b.a.data(), &kOne, &kOne,
                db.data(), &beta, c.a.data(), &kOne, &kOne, dc.data());
      }
      expect_close(c.a.gather_to_all(), want, 1e-12);
    }
  }
}

TEST(Scalapack, PdgemmOnRowMajorArraysSeesTransposes) {
  // The transpose trick: ScaLAPACK sees row-major A (m x k), B (k x n), C (m x n) as A^T, B^T, C^T
  // on the transposed grid, so C = A B is computed as C^T = B^T A^T: pdgemm with the operands
  // swapped. (In the naive order, A then B, square matrices give C^T = A^T B^T = (B A)^T: B A.)
  Communicator comm(MPI_COMM_WORLD);
  const index_t m = 67, k = 45, n = 53;
  const Matrix want = multiply(serial(m, k, 31), serial(k, n, 32), m, k, n);
  for (const auto& grid : grids_for(comm.size())) {
    for (index_t block : kBlocks) {
      SCOPED_TRACE(describe(grid, block));
      const StorageOrder row_major = StorageOrder::row_major;
      Operand a(comm, grid, m, k, block, 31, row_major), b(comm, grid, k, n, block, 32, row_major),
          c(comm, grid, m, n, block, 33, row_major);
      BlacsGrid blacs(a.dom, ScalapackView::transposed);
      if (blacs.active()) {
        const auto dat = scalapack_descriptor(a.a, blacs), dbt = scalapack_descriptor(b.a, blacs),
                   dct = scalapack_descriptor(c.a, blacs);
        EXPECT_EQ(dat.desc[2], k);  // ScaLAPACK's rows of A^T: A's columns
        const int im = static_cast<int>(m), in = static_cast<int>(n), ik = static_cast<int>(k);
        const double alpha = 1.0, beta = 0.0;
        pdgemm_("N", "N", &in, &im, &ik, &alpha, b.a.data(), &kOne, &kOne, dbt.data(), a.a.data(), &kOne, &kOne,
                dat.data(), &beta, c.a.data(), &kOne, &kOne, dct.data());
      }
      expect_close(c.a.gather_to_all(), want, 1e-12);
    }
  }
}

TEST(Scalapack, PdgesvOnColumnMajorArraysIsTheSerialSolve) {
  Communicator comm(MPI_COMM_WORLD);
  const index_t n = 67, r = 3;
  // A diagonally dominant A, so that the two eliminations agree to rounding.
  Matrix a_serial = serial(n, n, 21);
  for (index_t i = 0; i < n; ++i) a_serial[static_cast<std::size_t>(i * n + i)] += static_cast<double>(n);
  const Matrix want = solve(a_serial, serial(n, r, 22), n, r);
  for (const auto& grid : grids_for(comm.size())) {
    for (index_t block : kBlocks) {
      SCOPED_TRACE(describe(grid, block));
      Operand a(comm, grid, n, n, block, 21), b(comm, grid, n, r, block, 22);
      a.a.for_each_owned([&](const Point<2>& p, double& x) {
        if (p[0] == p[1]) x += static_cast<double>(n);
      });
      BlacsGrid blacs(a.dom);
      int info = 0;
      if (blacs.active()) {
        const auto da = scalapack_descriptor(a.a, blacs), db = scalapack_descriptor(b.a, blacs);
        std::vector<int> pivots(static_cast<std::size_t>(da.local_rows + block));
        const int in = static_cast<int>(n), ir = static_cast<int>(r);
        pdgesv_(&in, &ir, a.a.data(), &kOne, &kOne, da.data(), pivots.data(), b.a.data(), &kOne, &kOne, db.data(),
                &info);
      }
      EXPECT_EQ(info, 0);
      expect_close(b.a.gather_to_all(), want, 1e-12);
    }
  }
}

TEST(Scalapack, BlacsGridinitRowOrderAgreesWithDefaultGrids) {
  // What the doc says: Cblacs_gridinit(..., "Row", P, Q) numbers MPI_COMM_WORLD row-major, which is
  // tessera's ProcGrid::with_shape order; BlacsGrid's map gives the same positions there.
  Communicator comm(MPI_COMM_WORLD);
  for (const auto& grid : grids_for(comm.size())) {
    if (grid.size() != comm.size()) continue;
    int context = 0;
    Cblacs_get(0, 0, &context);
    Cblacs_gridinit(&context, "Row", static_cast<int>(grid.extent(0)), static_cast<int>(grid.extent(1)));
    int rows = 0, cols = 0, row = 0, col = 0;
    blacs_gridinfo_(&context, &rows, &cols, &row, &col);
    Cblacs_gridexit(context);
    const auto position = *grid.position_of(comm.rank());
    bool every_rank_in_order = true;
    for (int l = 0; l < grid.size(); ++l) every_rank_in_order = every_rank_in_order && grid.rank_at_logical(l) == l;
    if (every_rank_in_order) {
      EXPECT_EQ(row, position[0]) << grid;
      EXPECT_EQ(col, position[1]) << grid;
    } else if (comm.size() > 1) {
      // The permuted grid: gridinit's numbering disagrees on some rank; that is why BlacsGrid maps.
      const int disagree = (row != position[0] || col != position[1]) ? 1 : 0;
      EXPECT_GT(comm.sum(disagree), 0) << grid;
    }
  }
}

/// Calls f() and expects Error(invalid_argument) whose message contains `needle`.
template <class F>
void expect_refused(F&& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no tessera::Error thrown (expected one naming '" << needle << "')";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Scalapack, ArraysScalapackCannotTakeAreRefused) {
  Communicator comm(MPI_COMM_WORLD);
  const auto grid = ProcGrid<2>::with_shape(comm.size(), {comm.size(), 1});
  const Box<2> box({0, 0}, {10, 12});
  const Distribution<2> cyclic(box, grid, {block_cyclic(2), block_cyclic(3)});
  {
    Domain<2> dom(comm, cyclic);
    DistArray<double, 2> row_major(dom), column_major(dom, no_ghosts<2>().column_major());
    expect_refused([&] { (void)scalapack_descriptor(row_major, 0); }, "row-major");
    expect_refused([&] { (void)scalapack_descriptor(column_major, 0, ScalapackView::transposed); }, "column-major");
    // The transposed view of the row-major array: rows along dimension 1, blocks swapped.
    const auto d = scalapack_descriptor(row_major, 0, ScalapackView::transposed);
    EXPECT_EQ(d.desc[2], 12);
    EXPECT_EQ(d.desc[3], 10);
    EXPECT_EQ(d.desc[4], 3);
    EXPECT_EQ(d.desc[5], 2);
  }
  {
    const Distribution<2> blocks(box, grid, {block(), block()});
    Domain<2> dom(comm, blocks);
    DistArray<double, 2> ghosted(dom, ghosts<2>(1).column_major());
    expect_refused([&] { (void)scalapack_descriptor(ghosted, 0); }, "ghost layers");
  }
  if (comm.size() == 3 || comm.size() == 4) {
    // block() of 10 over 3 gives 4, 3, 3 (ScaLAPACK: 4, 4, 2); over 4: 3, 3, 2, 2 (ScaLAPACK: 3, 3, 3, 1).
    Domain<2> dom(comm, Distribution<2>(box, grid, {block(), block()}));
    DistArray<double, 2> uneven(dom, no_ghosts<2>().column_major());
    expect_refused([&] { (void)scalapack_descriptor(uneven, 0); }, "dimension 0");
  }
  {
    // block() that is block-cyclic after all (12 rows over 1, 2, 3 or 4: equal blocks) is accepted.
    Domain<2> dom(comm, Distribution<2>(Box<2>({0, 0}, {12, 5}), grid, {block(), collapsed()}));
    DistArray<double, 2> even(dom, no_ghosts<2>().column_major());
    const auto d = scalapack_descriptor(even, 0);
    EXPECT_EQ(d.desc[4], 12 / comm.size());
    EXPECT_EQ(d.desc[5], 5);
  }
  {
    std::vector<int> owners(10);
    for (int i = 0; i < 10; ++i) owners[static_cast<std::size_t>(i)] = (i * 7) % comm.size();
    Domain<2> dom(comm, Distribution<2>(box, grid, {irregular(owners), collapsed()}));
    DistArray<double, 2> scattered(dom, no_ghosts<2>().column_major());
    expect_refused([&] { (void)scalapack_descriptor(scattered, 0); }, "irregular");
  }
  {
    Domain<2> dom(comm, cyclic);
    DistArray<double, 2> good(dom, no_ghosts<2>().column_major());
    BlacsGrid blacs(dom);
    Domain<2> other(comm, Distribution<2>(box, ProcGrid<2>::with_shape(comm.size(), {1, comm.size()}),
                                          {block_cyclic(2), block_cyclic(3)}));
    DistArray<double, 2> transposed_grid(other, no_ghosts<2>().column_major());
    if (comm.size() > 1) expect_refused([&] { (void)scalapack_descriptor(transposed_grid, blacs); }, "grid");
  }
}

}  // namespace
}  // namespace tessera
