// The anchors `make experiments` times examples/summa against (KeLP Fig. 6, SUMMA): the same SUMMA
// written with hand-written MPI, and ScaLAPACK's pdgemm, on the same matrices
// (examples/summa/summa_common.hpp). Each is checked against the serial product on rank 0 before
// its time is printed.
//
// Hand-written: an MPI_Cart_create r x c grid, MPI_Cart_sub row and column communicators, A, B and
// C in the blocks tessera's block() makes (kelp/block_split.hpp), the same panels and the same
// local product as the tessera program, panels broadcast with MPI_Bcast.
// pdgemm: the matrices as tessera arrays stored column-major and distributed block_cyclic(--nb)
// over the same r x c grid, handed over with tessera's ScaLAPACK interop (BlacsGrid,
// scalapack_descriptor: docs/scalapack.md); it multiplies with the BLAS that ScaLAPACK links.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <array>
#include <chrono>
#include <cstdio>
#include <vector>

#include "kelp/block_split.hpp"
#include "summa/summa_common.hpp"
#include "tessera/scalapack/blacs_grid.hpp"
#include "tessera/tessera.hpp"

extern "C" void pdgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                        const double* alpha, const double* a, const int* ia, const int* ja, const int* desca,
                        const double* b, const int* ib, const int* jb, const int* descb, const double* beta,
                        double* c, const int* ic, const int* jc, const int* descc);

namespace {

using kelp::block_owner;
using kelp::block_start;
using tessera::index_t;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

struct Shape {
  index_t m, n, k, panel;
  std::array<int, 2> dims;  // grid rows, grid columns
};

/// SUMMA with hand-written MPI; returns C gathered on rank 0 (row-major), and the time and the
/// time spent in broadcasts (rank 0's) in `seconds` and `waiting`.
std::vector<double> hand_summa(const Shape& s, double& seconds, double& waiting) {
  MPI_Comm cart = MPI_COMM_NULL, row_comm = MPI_COMM_NULL, col_comm = MPI_COMM_NULL;
  const std::array<int, 2> periods{0, 0};
  MPI_Cart_create(MPI_COMM_WORLD, 2, s.dims.data(), periods.data(), 0, &cart);  // row-major, as tessera's grid
  std::array<int, 2> me{};
  int rank = 0;
  MPI_Comm_rank(cart, &rank);
  MPI_Cart_coords(cart, rank, 2, me.data());
  const std::array<int, 2> along_row{0, 1}, along_col{1, 0};
  MPI_Cart_sub(cart, along_row.data(), &row_comm);  // rank in it: the grid column
  MPI_Cart_sub(cart, along_col.data(), &col_comm);  // rank in it: the grid row
  const int r = s.dims[0], c = s.dims[1];

  // This rank's blocks: A rows like C's, A columns split over the grid's columns; B rows split
  // over the grid's rows, B columns like C's.
  const index_t row0 = block_start(me[0], s.m, r), rows = block_start(me[0] + 1, s.m, r) - row0;
  const index_t col0 = block_start(me[1], s.n, c), cols = block_start(me[1] + 1, s.n, c) - col0;
  const index_t ak0 = block_start(me[1], s.k, c), ak = block_start(me[1] + 1, s.k, c) - ak0;
  const index_t bk0 = block_start(me[0], s.k, r), bk = block_start(me[0] + 1, s.k, r) - bk0;
  std::vector<double> a(static_cast<std::size_t>(rows * ak)), b(static_cast<std::size_t>(bk * cols));
  std::vector<double> cblock(static_cast<std::size_t>(rows * cols), 0.0);
  for (index_t i = 0; i < rows; ++i)
    for (index_t t = 0; t < ak; ++t) a[static_cast<std::size_t>(i * ak + t)] = summa::a_value(row0 + i, ak0 + t);
  for (index_t t = 0; t < bk; ++t)
    for (index_t j = 0; j < cols; ++j) b[static_cast<std::size_t>(t * cols + j)] = summa::b_value(bk0 + t, col0 + j);
  const auto panels = summa::cut_panels(
      s.k, s.panel, [&](index_t t) { return block_owner(t, s.k, c); }, [&](index_t t) { return block_owner(t, s.k, r); });

  MPI_Barrier(cart);
  const auto start = Clock::now();
  waiting = 0.0;
  std::vector<double> a_panel, b_panel;
  for (const auto& [lo, hi] : panels) {
    const index_t w = hi - lo;
    a_panel.resize(static_cast<std::size_t>(rows * w));
    b_panel.resize(static_cast<std::size_t>(w * cols));
    const int a_root = block_owner(lo, s.k, c), b_root = block_owner(lo, s.k, r);
    if (me[1] == a_root)
      for (index_t i = 0; i < rows; ++i)
        for (index_t t = 0; t < w; ++t)
          a_panel[static_cast<std::size_t>(i * w + t)] = a[static_cast<std::size_t>(i * ak + lo - ak0 + t)];
    if (me[0] == b_root)
      for (index_t t = 0; t < w; ++t)
        for (index_t j = 0; j < cols; ++j)
          b_panel[static_cast<std::size_t>(t * cols + j)] = b[static_cast<std::size_t>((lo - bk0 + t) * cols + j)];
    const auto sent = Clock::now();
    if (!a_panel.empty()) MPI_Bcast(a_panel.data(), static_cast<int>(a_panel.size()), MPI_DOUBLE, a_root, row_comm);
    if (!b_panel.empty()) MPI_Bcast(b_panel.data(), static_cast<int>(b_panel.size()), MPI_DOUBLE, b_root, col_comm);
    waiting += since(sent);
    summa::add_panel_product(cblock.data(), cols, rows, cols, w, a_panel.data(), b_panel.data());
  }
  MPI_Barrier(cart);
  seconds = since(start);

  // Rank 0 receives every block of C into place (a subarray of the m x n matrix).
  std::vector<double> all;
  if (rank != 0) {
    if (!cblock.empty()) MPI_Send(cblock.data(), static_cast<int>(cblock.size()), MPI_DOUBLE, 0, 7, cart);
  } else {
    all.resize(static_cast<std::size_t>(s.m * s.n));
    for (int q = 0; q < r * c; ++q) {
      std::array<int, 2> at{};
      MPI_Cart_coords(cart, q, 2, at.data());
      const index_t i0 = block_start(at[0], s.m, r), ni = block_start(at[0] + 1, s.m, r) - i0;
      const index_t j0 = block_start(at[1], s.n, c), nj = block_start(at[1] + 1, s.n, c) - j0;
      if (ni == 0 || nj == 0) continue;
      std::vector<double> got = q == 0 ? cblock : std::vector<double>(static_cast<std::size_t>(ni * nj));
      if (q != 0) MPI_Recv(got.data(), static_cast<int>(got.size()), MPI_DOUBLE, q, 7, cart, MPI_STATUS_IGNORE);
      for (index_t i = 0; i < ni; ++i)
        for (index_t j = 0; j < nj; ++j)
          all[static_cast<std::size_t>((i0 + i) * s.n + j0 + j)] = got[static_cast<std::size_t>(i * nj + j)];
    }
  }
  MPI_Comm_free(&row_comm);
  MPI_Comm_free(&col_comm);
  MPI_Comm_free(&cart);
  return all;
}

/// C = A B with ScaLAPACK's pdgemm on tessera arrays (column-major, block_cyclic(nb)); returns C
/// gathered on rank 0 and the time of the pdgemm call in `seconds`.
std::vector<double> scalapack_product(const tessera::Communicator& world, const Shape& s, index_t nb, double& seconds) {
  using tessera::Point;
  const auto grid = tessera::ProcGrid<2>::with_shape(world.size(), {s.dims[0], s.dims[1]});
  const auto matrix = [&](index_t rows, index_t cols) {
    return tessera::Distribution<2>(tessera::Box<2>({0, 0}, {rows, cols}), grid,
                                    {tessera::block_cyclic(nb), tessera::block_cyclic(nb)});
  };
  tessera::Domain<2> da(world, matrix(s.m, s.k)), db(world, matrix(s.k, s.n)), dc(world, matrix(s.m, s.n));
  const auto fortran_order = tessera::no_ghosts<2>().column_major();
  tessera::DistArray<double, 2> a(da, fortran_order), b(db, fortran_order), c(dc, fortran_order);
  a.for_each_owned([](const Point<2>& p, double& x) { x = summa::a_value(p[0], p[1]); });
  b.for_each_owned([](const Point<2>& p, double& x) { x = summa::b_value(p[0], p[1]); });
  tessera::BlacsGrid blacs(da);  // every rank is on the grid: no skeletons here
  const auto desc_a = tessera::scalapack_descriptor(a, blacs), desc_b = tessera::scalapack_descriptor(b, blacs),
             desc_c = tessera::scalapack_descriptor(c, blacs);
  const int m = static_cast<int>(s.m), n = static_cast<int>(s.n), k = static_cast<int>(s.k), one = 1;
  const double alpha = 1.0, beta = 0.0;
  world.barrier();
  const auto start = Clock::now();
  pdgemm_("N", "N", &m, &n, &k, &alpha, a.data(), &one, &one, desc_a.data(), b.data(), &one, &one, desc_b.data(),
          &beta, c.data(), &one, &one, desc_c.data());
  world.barrier();
  seconds = since(start);
  return c.gather_to(0);
}

/// Rank 0: prints the check of one product; returns 1 if it is wrong.
int report(const char* what, const std::vector<double>& c, const std::vector<double>& want) {
  const summa::Check check = summa::compare(c, want);
  // The hand-written SUMMA sums as the serial product does (normally identical bits); pdgemm sums
  // in its BLAS's order, so only the relative difference is bounded.
  if (check.relative <= 1e-10) {
    std::printf("%s matches the serial product (max relative difference %.3e, %lld entries not bit-equal)\n", what,
                check.relative, static_cast<long long>(check.differing));
    return 0;
  }
  std::printf("MISMATCH: %s: max relative difference %.3e > 1e-10\n", what, check.relative);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  const int rank = world.rank(), size = world.size();
  CLI::App app{"SUMMA with hand-written MPI and ScaLAPACK pdgemm (the anchors of examples/summa)"};
  Shape s{200, 180, 150, 16, {0, 0}};
  index_t nb = 64;
  int grid_rows = 0;
  app.add_option("--m", s.m, "rows of A and C")->check(CLI::Range(index_t{1}, index_t{1} << 14));
  app.add_option("--n", s.n, "columns of B and C")->check(CLI::Range(index_t{1}, index_t{1} << 14));
  app.add_option("--k", s.k, "columns of A, rows of B")->check(CLI::Range(index_t{1}, index_t{1} << 14));
  app.add_option("--panel", s.panel, "SUMMA panel width")->check(CLI::Range(index_t{1}, index_t{1} << 14));
  app.add_option("--nb", nb, "ScaLAPACK block size")->check(CLI::Range(index_t{1}, index_t{1} << 14));
  app.add_option("--grid-rows", grid_rows, "processor grid rows (must divide the rank count; 0: MPI_Dims_create)")
      ->check(CLI::Range(0, 1 << 20));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return rank == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }
  if (grid_rows > 0 && size % grid_rows != 0) {
    if (rank == 0) std::fprintf(stderr, "--grid-rows %d does not divide %d ranks\n", grid_rows, size);
    return 2;
  }
  if (grid_rows > 0) {
    s.dims = {grid_rows, size / grid_rows};
  } else {
    MPI_Dims_create(size, 2, s.dims.data());
  }

  double hand_s = 0.0, hand_wait = 0.0, pdgemm_s = 0.0;
  const std::vector<double> hand = hand_summa(s, hand_s, hand_wait);
  const std::vector<double> scalapack = scalapack_product(world, s, nb, pdgemm_s);
  int failed = 0;
  if (rank == 0) {
    std::printf("%d ranks (%dx%d grid): C(%lldx%lld) = A(%lldx%lld) B(%lldx%lld); hand-written SUMMA (panels <= %lld): "
                "%.6f s, waiting in broadcasts %.6f s; pdgemm (nb %lld): %.6f s\n",
                size, s.dims[0], s.dims[1], static_cast<long long>(s.m), static_cast<long long>(s.n),
                static_cast<long long>(s.m), static_cast<long long>(s.k), static_cast<long long>(s.k),
                static_cast<long long>(s.n), static_cast<long long>(s.panel), hand_s, hand_wait,
                static_cast<long long>(nb), pdgemm_s);
    const std::vector<double> want = summa::serial_product(s.m, s.n, s.k);
    failed = report("hand-written SUMMA", hand, want) | report("ScaLAPACK pdgemm", scalapack, want);
    if (failed == 0) std::printf("both anchors match the serial product\n");
  }
  tessera::check_mpi(MPI_Bcast(&failed, 1, MPI_INT, 0, world.raw()), "MPI_Bcast");
  return failed;
}
