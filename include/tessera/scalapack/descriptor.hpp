#pragma once
/// \file
/// `scalapack_descriptor`: the 9-integer ScaLAPACK array descriptor of a 2-D tessera array whose
/// local buffer *is* ScaLAPACK's local array — block-cyclic (or equivalent) along both axes,
/// stored column-major, without ghosts (or row-major, handed over as its transpose:
/// `ScalapackView::transposed`). Pure: computed from the distribution, no BLACS or
/// ScaLAPACK call, so the core library does not link them; the BLACS grid to pass as `context`
/// comes from `BlacsGrid` (scalapack/blacs_grid.hpp, header-only, needs ScaLAPACK at link time) or
/// from the user, who must then map grid position (r, c) to rank `grid.rank_at({r, c})` —
/// `blacs_process_map` gives that map. docs/scalapack.md has the whole recipe.
/// \code
///   tessera::DistArray<double, 2> a(dom, tessera::no_ghosts<2>().column_major());  // block_cyclic(32) x 2
///   tessera::BlacsGrid blacs(a.domain());                 // Collective: the grid of a's ProcGrid
///   auto desc = tessera::scalapack_descriptor(a, blacs.context());
///   pdgemm_(..., a.data(), &one, &one, desc.data(), ...);
/// \endcode

#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tessera/array/dist_array.hpp"
#include "tessera/core/error.hpp"
#include "tessera/layout/distribution.hpp"
#include "tessera/plan/ghost_spec.hpp"

namespace tessera {

/// ScaLAPACK's descriptor of one array, as `descinit_` would fill it, and what goes with it.
struct ScalapackDescriptor {
  /// DTYPE_ (1: dense), CTXT_, M_, N_, MB_, NB_, RSRC_, CSRC_, LLD_, in ScaLAPACK's order.
  std::array<int, 9> desc{};
  int local_rows = 0;  ///< this rank's rows (ScaLAPACK's LOCr(M_), numroc); 0 off the grid
  int local_cols = 0;  ///< this rank's columns (LOCc(N_))

  /// What ScaLAPACK routines take as DESCA.
  [[nodiscard]] int* data() noexcept { return desc.data(); }
  /// \copydoc data()
  [[nodiscard]] const int* data() const noexcept { return desc.data(); }
};

namespace detail {

/// ScaLAPACK's block size and source coordinate for `dim` (of `extent` indices over `g`
/// coordinates) if its ownership and local order are exactly ScaLAPACK's block-cyclic ones; throws
/// `Error(invalid_argument)` naming `axis` otherwise. O(extent): every index is checked.
inline std::array<index_t, 2> scalapack_blocking(const char* where, std::size_t axis, const DimDistribution& dim) {
  const index_t m = dim.hi() - dim.lo();
  const int g = dim.grid_extent();
  const auto refuse = [&](const std::string& why) {
    fail_argument(where, concat("array (dimension ", axis, ")"), to_string(dim.kind()),
                  concat("cannot be handed to ScaLAPACK: ", why));
  };
  if (dim.kind() == DimKind::flooded)
    refuse("it is flooded: every process of the grid axis holds all of it, and ScaLAPACK splits every axis");
  if (dim.kind() == DimKind::general || dim.kind() == DimKind::irregular)
    refuse("its owned sets are not block-cyclic (use block_cyclic(b), cyclic(), or block() over equal blocks)");
  if (m == 0) return {1, 0};
  index_t block = 0;
  if (!dim.owns_intervals()) {
    block = dim.cycle_block();
  } else {
    // An interval kind is block-cyclic with one block per coordinate when every coordinate but the
    // last non-empty one owns the same count (ScaLAPACK: MB = ceil(M / P) or more, a short last block).
    block = g == 1 ? m : dim.local_count(dim.owner(dim.lo()));
  }
  const int source = dim.owner(dim.lo());
  const index_t cycle = block * g;
  for (index_t i = 0; i < m; ++i) {
    const auto want_owner = static_cast<int>((source + i / block) % g);
    if (dim.owner(dim.lo() + i) != want_owner || dim.local_offset(dim.lo() + i) != (i / cycle) * block + i % block)
      refuse(concat("index ", dim.lo() + i, " is not where a block-cyclic distribution of block ", block,
                    " from coordinate ", source, " puts it (block() must split into equal blocks and a short last one)"));
  }
  return {block, source};
}

/// `value` as an int, or `Error(invalid_argument)` naming it: ScaLAPACK indexes with 32-bit ints.
inline int scalapack_int(const char* where, const char* what, index_t value) {
  if (value > INT_MAX) fail_argument(where, what, value, "does not fit ScaLAPACK's 32-bit integers");
  return static_cast<int>(value);
}

}  // namespace detail

/// How ScaLAPACK is to see a 2-D array.
enum class ScalapackView : std::uint8_t {
  /// As it is: a column-major array is the matrix, rows along dimension 0; BLACS grid position
  /// (r, c) is tessera's grid position (r, c).
  as_stored,
  /// Transposed: a row-major array's local buffer is the column-major local array of the
  /// array's transpose, so ScaLAPACK sees the transpose (rows along dimension 1) on the transposed
  /// grid (BLACS position (r, c) is tessera's (c, r)). The "transpose trick" of docs/scalapack.md,
  /// and what the Fortran module uses (its index order is the reverse of C's).
  transposed,
};

/// The descriptor of rank `rank`'s part of an array over `dist` with ghosts `ghosts` (its order
/// included), seen by ScaLAPACK as `view` says, for the BLACS context `context` (-1 on ranks
/// outside the BLACS grid, as BLACS returns it there). Throws `Error(invalid_argument)`, the same
/// on every rank, naming what ScaLAPACK cannot take: a user-defined distribution, an axis that is
/// not block-cyclic (or an equivalent block/cyclic split), ghost layers, a storage order that is
/// not the view's (row-major `as_stored`, column-major `transposed`; docs/scalapack.md gives the
/// recipes), or sizes beyond 32-bit integers.
[[nodiscard]] inline ScalapackDescriptor scalapack_descriptor(const Distribution<2>& dist, const GhostSpec<2>& ghosts,
                                                              int rank, int context,
                                                              ScalapackView view = ScalapackView::as_stored) {
  constexpr const char* where = "scalapack_descriptor";
  const bool transposed = view == ScalapackView::transposed;
  if (dist.is_user_defined())
    fail_argument(where, "array", dist, "cannot be handed to ScaLAPACK: its distribution is user-defined");
  if (!ghosts.none())
    fail_argument(where, "array", ghosts,
                  "cannot be handed to ScaLAPACK: it has ghost layers (its local array would not be dense); "
                  "copy it into an array without ghosts");
  if (!transposed && ghosts.order != StorageOrder::column_major)
    fail_argument(where, "array", "row-major storage",
                  "cannot be handed to ScaLAPACK as it is: ScaLAPACK reads column-major local arrays. Make the "
                  "array with no_ghosts<2>().column_major(), copy it into one, or hand ScaLAPACK its transpose "
                  "(ScalapackView::transposed; docs/scalapack.md)");
  if (transposed && ghosts.order != StorageOrder::row_major)
    fail_argument(where, "array", "column-major storage",
                  "cannot be handed to ScaLAPACK transposed: only a row-major array's buffer is its transpose's "
                  "column-major local array (use ScalapackView::as_stored)");
  const std::size_t row_axis = transposed ? 1 : 0, col_axis = transposed ? 0 : 1;
  const auto rows = detail::scalapack_blocking(where, row_axis, dist.dim(row_axis));
  const auto cols = detail::scalapack_blocking(where, col_axis, dist.dim(col_axis));
  ScalapackDescriptor d;
  const Box<2>& box = dist.domain();
  d.desc = {1,
            context,
            detail::scalapack_int(where, "rows", extent(box, row_axis)),
            detail::scalapack_int(where, "columns", extent(box, col_axis)),
            detail::scalapack_int(where, "row block", rows[0]),
            detail::scalapack_int(where, "column block", cols[0]),
            static_cast<int>(rows[1]),
            static_cast<int>(cols[1]),
            1};
  if (const auto position = dist.grid().position_of(rank)) {
    d.local_rows = detail::scalapack_int(
        where, "local rows", dist.dim(row_axis).local_count(static_cast<int>((*position)[row_axis])));
    d.local_cols = detail::scalapack_int(
        where, "local columns", dist.dim(col_axis).local_count(static_cast<int>((*position)[col_axis])));
  }
  d.desc[8] = d.local_rows > 1 ? d.local_rows : 1;  // LLD_ >= max(1, LOCr(M_)); local rows it is
  return d;
}

/// The descriptor of this rank's part of `a`, seen as `view` says, for the BLACS context `context`
/// (see above).
template <class T>
[[nodiscard]] ScalapackDescriptor scalapack_descriptor(const DistArray<T, 2>& a, int context,
                                                       ScalapackView view = ScalapackView::as_stored) {
  return scalapack_descriptor(a.distribution(), a.ghosts(), a.domain().rank(), context, view);
}

/// The process map for `Cblacs_gridmap` that makes a BLACS grid agree with `grid` seen as `view`
/// says: entry `r + c * rows` (column-major, leading dimension `rows`) is the rank at BLACS position
/// (r, c), i.e. at tessera position (r, c) (`as_stored`) or (c, r) (`transposed`). `rows` is the
/// BLACS grid's row count: `grid.extent(0)`, or `grid.extent(1)` transposed. Ranks are those of the
/// communicator the BLACS system context was made from.
[[nodiscard]] inline std::vector<int> blacs_process_map(const ProcGrid<2>& grid,
                                                        ScalapackView view = ScalapackView::as_stored) {
  const bool transposed = view == ScalapackView::transposed;
  const auto rows = static_cast<int>(grid.extent(transposed ? 1 : 0));
  const auto cols = static_cast<int>(grid.extent(transposed ? 0 : 1));
  std::vector<int> map(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
  for (int c = 0; c < cols; ++c)
    for (int r = 0; r < rows; ++r)
      map[static_cast<std::size_t>(r + c * rows)] = transposed ? grid.rank_at({c, r}) : grid.rank_at({r, c});
  return map;
}

}  // namespace tessera
