// SUMMA (van de Geijn and Watts; KeLP's matrix-multiply example): C = A·B with A, B and C block
// distributed over one 2-D processor grid. For every panel of the inner dimension, the grid column
// owning A's panel broadcasts it along each grid row and the grid row owning B's panel broadcasts
// it along each grid column; every rank then adds the panels' product to its block of C. Checked
// against a serial triple loop on rank 0. See README.md here.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "summa/summa_common.hpp"
#include "summa/summa_setup.hpp"
#include "tessera/tessera.hpp"

namespace {

using tessera::Box;
using tessera::index_t;
using tessera::Point;
using Clock = std::chrono::steady_clock;

/// An MPI communicator split off another one; freed on destruction.
class SubComm {
 public:
  SubComm(MPI_Comm parent, int color, int key) {
    tessera::check_mpi(MPI_Comm_split(parent, color, key, &comm_), "MPI_Comm_split");
  }
  SubComm(const SubComm&) = delete;
  SubComm& operator=(const SubComm&) = delete;
  ~SubComm() { MPI_Comm_free(&comm_); }
  [[nodiscard]] MPI_Comm raw() const noexcept { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

void broadcast(std::vector<double>& data, int root, const SubComm& comm) {
  // Every member of a grid row (column) has the same number of rows (columns) of C, so the counts
  // agree; an empty panel (a rank row that owns no rows of C) is skipped by all members alike.
  if (data.empty()) return;
  tessera::check_mpi(MPI_Bcast(data.data(), static_cast<int>(data.size()), MPI_DOUBLE, root, comm.raw()), "MPI_Bcast");
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"SUMMA matrix multiply C = A B on a 2-D processor grid"};
  summa::Options options;
  if (const auto stop = summa::parse_options(app, options, "broadcast", argc, argv, world)) return *stop;
  const index_t m = options.m, n = options.n, k = options.k, panel = options.panel;
  const int rank = world.rank(), size = world.size();
  summa::Matrices matrices(world, options);
  const tessera::ProcGrid<2>& grid = matrices.grid;
  const tessera::Domain<2>& dom_a = matrices.dom_a, & dom_b = matrices.dom_b, & dom_c = matrices.dom_c;
  tessera::DistArray<double, 2>& a = matrices.a, & b = matrices.b, & c = matrices.c;

  // Row and column communicators of the grid: in row_comm the rank is the grid column, in col_comm
  // the grid row (the keys order them), which is what the panel owners below are expressed in.
  const Point<2> me = *grid.position_of(rank);
  const SubComm row_comm(world.raw(), static_cast<int>(me[0]), static_cast<int>(me[1]));
  const SubComm col_comm(world.raw(), static_cast<int>(me[1]), static_cast<int>(me[0]));

  // Panels of the inner dimension (summa::cut_panels): one grid column owns each A panel, one grid
  // row each B panel.
  const tessera::DimDistribution& a_cols = dom_a.distribution().dim(1);
  const tessera::DimDistribution& b_rows = dom_b.distribution().dim(0);
  const auto panels = summa::cut_panels(
      k, panel, [&](index_t t) { return a_cols.owner(t); }, [&](index_t t) { return b_rows.owner(t); });

  // Local extents (zero where a rank owns nothing; blocks are uneven when sizes do not divide).
  const Point<2> ext_c = dom_c.distribution().local_extents(rank);
  const index_t rows = ext_c[0], cols = ext_c[1];
  const Box<2> own_a = a.patch_count() > 0 ? a.owned_box() : Box<2>{};
  const Box<2> own_b = b.patch_count() > 0 ? b.owned_box() : Box<2>{};

  world.barrier();  // everyone starts together: the time is the slowest rank's
  const auto start = Clock::now();
  double waiting = 0.0;  // time in the panel broadcasts (KeLP's "communicate")
  std::vector<double> a_panel, b_panel;
  for (const auto& [lo, hi] : panels) {
    const index_t w = hi - lo;
    a_panel.assign(static_cast<std::size_t>(rows * w), 0.0);
    b_panel.assign(static_cast<std::size_t>(w * cols), 0.0);
    const int a_root = a_cols.owner(lo), b_root = b_rows.owner(lo);
    if (me[1] == a_root && !a_panel.empty()) {
      const auto av = std::as_const(a).local();
      for (index_t i = 0; i < rows; ++i)
        for (index_t t = 0; t < w; ++t)
          a_panel[static_cast<std::size_t>(i * w + t)] =
              av({i + av.ghost_lo[0], lo + t - own_a.lo[1] + av.ghost_lo[1]});
    }
    if (me[0] == b_root && !b_panel.empty()) {
      const auto bv = std::as_const(b).local();
      for (index_t t = 0; t < w; ++t)
        for (index_t j = 0; j < cols; ++j)
          b_panel[static_cast<std::size_t>(t * cols + j)] =
              bv({lo + t - own_b.lo[0] + bv.ghost_lo[0], j + bv.ghost_lo[1]});
    }
    const auto sent = Clock::now();
    broadcast(a_panel, a_root, row_comm);
    broadcast(b_panel, b_root, col_comm);
    waiting += std::chrono::duration<double>(Clock::now() - sent).count();
    if (rows == 0 || cols == 0) continue;
    const auto cv = c.local();
    summa::add_panel_product(&cv({cv.ghost_lo[0], cv.ghost_lo[1]}), cv.strides[0], rows, cols, w, a_panel.data(),
                             b_panel.data());
  }
  world.barrier();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();

  const std::vector<double> all_c = c.gather_to(0);
  int failed = 0;
  if (rank == 0) {
    // Same terms in the same order: normally identical bits. The tolerance allows for a compiler
    // that contracts the two loops' multiply-adds into FMAs differently.
    const summa::Check check = summa::compare(all_c, summa::serial_product(m, n, k));
    const double relative = check.relative;
    const index_t differing = check.differing;
    std::printf(
        "%d ranks (%lldx%lld grid): C(%lldx%lld) = A(%lldx%lld) B(%lldx%lld), %zu panels of width <= %lld: "
        "%.6f s, waiting in broadcasts %.6f s\n",
        size, static_cast<long long>(grid.shape()[0]), static_cast<long long>(grid.shape()[1]),
        static_cast<long long>(m), static_cast<long long>(n), static_cast<long long>(m), static_cast<long long>(k),
        static_cast<long long>(k), static_cast<long long>(n), panels.size(), static_cast<long long>(panel), seconds,
        waiting);
    if (relative <= 1e-10) {
      std::printf(
          "SUMMA product matches the serial product (max relative difference %.3e, %lld entries not bit-equal)\n",
          relative, static_cast<long long>(differing));
    } else {
      std::printf("MISMATCH: max relative difference %.3e > 1e-10\n", relative);
      failed = 1;
    }
  }
  tessera::check_mpi(MPI_Bcast(&failed, 1, MPI_INT, 0, world.raw()), "MPI_Bcast");
  return failed;
}
