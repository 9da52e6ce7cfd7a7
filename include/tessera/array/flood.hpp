#pragma once
/// \file
/// ZPL's flood: arrays with flooded axes (`flooded()`, the `*` of a ZPL region), filled from a
/// slice of another array (`>>`), and reductions into them. Along a flooded axis every rank of the
/// grid axis holds the whole extent, a replica of its own, so a rank reads the whole panel it
/// needs locally (docs/concepts.md, "Flooded axes").
/// \code
///   // A over [0,n) x [0,n), block x block on a P x Q grid. Col: an n x b column panel, rows as A's,
///   // replicated along the grid's columns (ZPL: [1..n, *] Col := >>[1..n, k..k+b-1] A).
///   tessera::Domain<2> col_dom(world, tessera::Distribution<2>(tessera::Box<2>({0, 0}, {n, b}), grid,
///                                                              {tessera::block(), tessera::flooded()}));
///   tessera::DistArray<double, 2> col(col_dom);
///   tessera::flood(a, tessera::Box<2>({0, k}, {n, k + b}), col);   // Collective
///   // every rank (i, j) now holds rows block_i of columns k..k+b-1 of A, whatever j is
///
///   // Row sums, replicated along the grid's columns (ZPL: [1..n, *] S := +<< A).
///   tessera::Domain<2> sums(world, tessera::flooded_reduced_distribution(a.distribution(), {1}));
///   tessera::DistArray<double, 2> s(sums);
///   tessera::reduce_into(a, {1}, s, 0.0, std::plus<>{});
/// \endcode
///
/// What the rest of the library does with flooded arrays: copies, redistributions, gathers and
/// scatters read from the reader's nearest replica and write every replica; ghost updates fill each
/// replica from itself; reductions count the canonical replica once; migrations, scans, index
/// scatters, checkpoints and ScaLAPACK refuse them (docs/concepts.md has the table).

#include <array>
#include <cstddef>
#include <initializer_list>
#include <span>

#include "tessera/array/dist_array.hpp"
#include "tessera/array/partial_reduce.hpp"
#include "tessera/array/remap.hpp"
#include "tessera/core/error.hpp"
#include "tessera/layout/distribution.hpp"

namespace tessera {

/// Collective: fills every replica of the flooded array `dst` from box `slice` of `src` (ZPL's
/// `[R*] F := >>[slice] A`): dst(dst.lo + i) = src(slice.lo + i) for every offset i of the slice,
/// on every rank holding it. `slice` must have `dst`'s box extents; `src` may be distributed in any
/// way (flooded too) over the same `Communicator`. Each holder reads from the rank owning its part
/// of the slice; one message per pair of ranks, kept in `dst`'s domain like a `copy_section`. An
/// owner that holds a replica itself fills it first and sends the other replicas from it (no second
/// pack: `relayed_section_move_plans`, docs/engine.md).
/// Throws `Error(invalid_argument)` on every rank, before anything moves, if `dst` has no flooded
/// axis, the slice's extents are not `dst`'s or the arrays are over different communicators, and
/// `Error(out_of_range)` if the slice is not inside `src`'s domain.
template <class T, std::size_t N>
requires(N >= 1) void flood(const DistArray<T, N>& src, const Box<N>& slice, DistArray<T, N>& dst) {
  constexpr const char* where = "tessera::flood";
  const auto checked = detail::check_collective(src.domain().comm(), where, src.collective_identity(), slice,
                                                dst.collective_identity());
  if (!dst.distribution().is_flooded())
    fail_argument(where, "dst", dst.distribution(),
                  "has no flooded axis: give it one (tessera::flooded()), or use copy_section for a plain copy");
  detail::remap::check_well_formed(where, "slice", slice);
  if (extents(slice) != extents(dst.domain().box()))
    fail_argument(where, "slice", slice,
                  detail::concat("has extents ", extents(slice), " but the flooded array's box ", dst.domain().box(),
                                 " has ", extents(dst.domain().box()), ": a flood fills every element of every replica"));
  copy_section(src, slice, dst, dst.domain().box().lo);
}

/// The distribution of a reduction's result flooded along the reduced axes (ZPL's
/// `[1..n, *] S := +<< A`): over the reduced box (`source`'s box with each reduced axis cut to its
/// low index), on `source`'s grid and dimension order; an unreduced axis is owned as in `source`,
/// a reduced axis is flooded, so every rank of that grid axis holds the result. Pass it to
/// `reduce_into`. Not collective. Throws `Error(invalid_argument)` as `reduced_distribution` does,
/// and for a source whose unreduced axes are cut per slab (a flooded distribution has one cut per
/// axis).
template <std::size_t N>
[[nodiscard]] Distribution<N> flooded_reduced_distribution(const Distribution<N>& source,
                                                           std::span<const std::size_t> axes) {
  constexpr const char* where = "tessera::flooded_reduced_distribution";
  const Distribution<N> aligned = reduced_distribution(source, axes);  // checks the axes and the source
  const auto reduced = detail::reduced_axes_mask<N>(where, axes);
  std::array<DimSpec, N> specs;
  for (std::size_t d = 0; d < N; ++d) {
    if (reduced[d]) {
      specs[d] = flooded();
      continue;
    }
    if (aligned.dim(d).owns_intervals() && !aligned.flooded(d)) {
      const auto cuts = aligned.slab_cuts(d);
      for (const auto& c : cuts)
        if (c != cuts.front())
          fail_argument(where, "source", source,
                        detail::concat("cuts axis ", d, " differently per slab; the replicas of a flooded result would "
                                       "differ"));
    }
    specs[d] = detail::same_ownership(aligned.dim(d));
  }
  return Distribution<N>(aligned.domain(), aligned.grid(), specs, aligned.order());
}

/// \copydoc flooded_reduced_distribution(const Distribution<N>&, std::span<const std::size_t>)
template <std::size_t N>
[[nodiscard]] Distribution<N> flooded_reduced_distribution(const Distribution<N>& source,
                                                           std::initializer_list<std::size_t> axes) {
  return flooded_reduced_distribution(source, std::span<const std::size_t>(axes.begin(), axes.size()));
}

}  // namespace tessera
