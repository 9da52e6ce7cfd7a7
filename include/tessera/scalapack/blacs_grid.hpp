#pragma once
/// \file
/// `BlacsGrid`: a BLACS process grid that agrees with a tessera `ProcGrid<2>` — BLACS position
/// (r, c) is the rank at tessera position (r, c) — made with `Cblacs_gridmap` over the domain's
/// communicator and exited in the destructor. Header-only, and the only tessera header that calls
/// BLACS: a program that includes it links ScaLAPACK (which holds BLACS) for its MPI, e.g.
/// `pkg-config --libs scalapack-openmpi` (docs/scalapack.md). Nothing else in tessera needs it.
///
/// Why a map and not `Cblacs_gridinit(ctxt, "Row", P, Q)`: that numbers the ranks of
/// MPI_COMM_WORLD row-major, which agrees with tessera only for a grid over ranks 0..P*Q-1 in
/// order on MPI_COMM_WORLD; the map also serves grids of `ProcGrid::from_ranks`, skeleton ranks and
/// other communicators.
/// \code
///   tessera::BlacsGrid blacs(a.domain());        // Collective over the domain's communicator
///   if (blacs.active()) {                        // skeleton ranks are outside the BLACS grid
///     auto desc = tessera::scalapack_descriptor(a, blacs.context());
///     pdgesv_(&n, &nrhs, a.data(), &one, &one, desc.data(), ipiv.data(), b.data(), &one, &one, descb.data(), &info);
///   }
/// \endcode

#include <mpi.h>

#include <vector>

#include "tessera/array/domain.hpp"
#include "tessera/core/error.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/layout/proc_grid.hpp"
#include "tessera/scalapack/descriptor.hpp"

extern "C" {
// BLACS' C interface, as ScaLAPACK's libraries export it (declared here: BLACS ships no header).
void Cblacs_pinfo(int* rank, int* size);
int Csys2blacs_handle(MPI_Comm comm);
void Cfree_blacs_system_handle(int handle);
void Cblacs_gridmap(int* context, int* usermap, int ldumap, int rows, int cols);
void Cblacs_gridinfo(int context, int* rows, int* cols, int* row, int* col);
void Cblacs_gridexit(int context);
}

namespace tessera {

/// A BLACS grid matching a tessera grid (see the file comment). Not copyable, not movable (BLACS
/// contexts are plain ints that must be exited once).
class BlacsGrid {
 public:
  /// Collective over `domain`'s communicator: the BLACS grid of the domain's `ProcGrid<2>`.
  /// Throws `Error(invalid_argument)` on every rank for a user-defined distribution (no grid to
  /// map), and `Error(internal)` if BLACS' grid disagrees with tessera's after all.
  /// `view`: `transposed` for row-major arrays handed to ScaLAPACK as their transposes (BLACS
  /// position (r, c) is then tessera's (c, r)).
  explicit BlacsGrid(const Domain<2>& domain, ScalapackView view = ScalapackView::as_stored)
      : BlacsGrid(domain.comm(), domain.distribution(), view) {}

  /// Collective over `comm`: the BLACS grid of `dist`'s `ProcGrid<2>`, whose ranks are those of `comm`.
  BlacsGrid(const Communicator& comm, const Distribution<2>& dist, ScalapackView view = ScalapackView::as_stored)
      : view_(view) {
    if (dist.is_user_defined())
      fail_argument("BlacsGrid", "distribution", dist, "is user-defined: it has no processor grid for BLACS");
    const ProcGrid<2>& grid = dist.grid();
    int me = 0, size = 0;
    Cblacs_pinfo(&me, &size);  // initialises BLACS if the program has not
    system_ = Csys2blacs_handle(comm.raw());
    context_ = system_;
    std::vector<int> map = blacs_process_map(grid, view);
    const bool transposed = view == ScalapackView::transposed;
    rows_ = static_cast<int>(grid.extent(transposed ? 1 : 0));
    cols_ = static_cast<int>(grid.extent(transposed ? 0 : 1));
    Cblacs_gridmap(&context_, map.data(), rows_, rows_, cols_);  // ranks off the grid get -1
    int rows = 0, cols = 0;
    Cblacs_gridinfo(context_, &rows, &cols, &row_, &col_);
    const int comm_rank = comm.rank();
    const auto position = grid.position_of(comm_rank);
    const std::size_t row_axis = transposed ? 1 : 0;
    if (context_ >= 0 && (!position || (*position)[row_axis] != row_ || (*position)[1 - row_axis] != col_ ||
                          rows != rows_ || cols != cols_)) {
      release();
      fail(ErrorCode::internal, "BlacsGrid: BLACS put rank ", comm_rank, " at (", row_, ", ", col_, ") of a ", rows,
           "x", cols, " grid, tessera's grid ", grid, " does not: please report this");
    }
    if (context_ < 0) row_ = col_ = -1;
  }
  ~BlacsGrid() { release(); }
  BlacsGrid(const BlacsGrid&) = delete;
  BlacsGrid& operator=(const BlacsGrid&) = delete;

  /// The BLACS context (ScaLAPACK's ICTXT, the descriptor's CTXT_); -1 on ranks off the grid.
  [[nodiscard]] int context() const noexcept { return context_; }
  /// True if this rank is in the grid (false on skeleton ranks, which must not call ScaLAPACK).
  [[nodiscard]] bool active() const noexcept { return context_ >= 0; }
  /// Grid rows and columns (NPROW, NPCOL).
  [[nodiscard]] int rows() const noexcept { return rows_; }
  [[nodiscard]] int cols() const noexcept { return cols_; }
  /// This rank's grid row and column (MYROW, MYCOL); -1 off the grid.
  [[nodiscard]] int row() const noexcept { return row_; }
  [[nodiscard]] int col() const noexcept { return col_; }
  /// How the arrays this grid serves are seen (`transposed`: row-major arrays as their transposes).
  [[nodiscard]] ScalapackView view() const noexcept { return view_; }

 private:
  void release() noexcept {
    if (context_ >= 0) Cblacs_gridexit(context_);
    if (system_ >= 0) Cfree_blacs_system_handle(system_);
    context_ = system_ = -1;
  }

  ScalapackView view_ = ScalapackView::as_stored;
  int system_ = -1;   // the BLACS system handle of the communicator
  int context_ = -1;  // the grid's context
  int rows_ = 0, cols_ = 0, row_ = -1, col_ = -1;
};

/// The descriptor of this rank's part of `a` in the BLACS grid `blacs`, seen as `blacs.view()`
/// says (see `scalapack_descriptor`). Throws `Error(invalid_argument)` if `blacs` is not a grid of
/// `a`'s shape (transposed for a transposed view).
template <class T>
[[nodiscard]] ScalapackDescriptor scalapack_descriptor(const DistArray<T, 2>& a, const BlacsGrid& blacs) {
  const ProcGrid<2>& grid = a.distribution().grid();
  const std::size_t row_axis = blacs.view() == ScalapackView::transposed ? 1 : 0;
  if (blacs.rows() != grid.extent(row_axis) || blacs.cols() != grid.extent(1 - row_axis))
    fail_argument("scalapack_descriptor", "blacs", detail::concat(blacs.rows(), "x", blacs.cols(), " grid"),
                  detail::concat("is not the array's grid ", grid,
                                 row_axis == 1 ? " transposed" : ""));
  return scalapack_descriptor(a, blacs.context(), blacs.view());
}

}  // namespace tessera
