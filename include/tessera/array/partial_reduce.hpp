#pragma once
/// \file
/// Partial reductions into a distributed array: ZPL's `[R'] B := op<< [R] A`, where R' is R with
/// the reduced dimensions collapsed to their first index. `reduce_into` folds a source array along
/// one or more axes into a result array over the *reduced box* (the source box with each reduced
/// axis cut down to its low index), and `reduced_distribution` gives the result a distribution
/// aligned with the source: each result element lives on the rank that owns the source element at
/// the same point (the first slice), as in ZPL.
/// \code
///   tessera::Domain<2> dom(world, dist);                       // a over [0,m) x [0,n)
///   tessera::DistArray<double, 2> a(dom);
///   tessera::Domain<2> rows(world, tessera::reduced_distribution(dist, {1}));   // [0,m) x [0,1)
///   tessera::DistArray<double, 2> row_sums(rows);
///   tessera::reduce_into(a, {1}, row_sums, 0.0, std::plus<>{});  // row_sums(i, 0) = sum_j a(i, j)
/// \endcode
///
/// Why the result keeps the source's rank (extent 1 along the reduced axes) instead of being an
/// (N-k)-d array: that is ZPL's own semantics (the result region is a singleton slice of the
/// source's), a `Distribution<N>` keeps the source's processor grid, dimension order and per-slab
/// cuts as they are (an (N-k)-d grid would have to drop the ranks along the reduced grid axes, and
/// `general` or user-defined distributions have no axis to drop), and the result lines up with the
/// source point for point, ready for a later flood or arithmetic with the first slice. Reducing
/// along every axis gives a 1 x ... x 1 array on one rank.
///
/// Order: each rank folds, for each result element, its owned source elements of that element in
/// the order of `for_each_owned` from `identity`; the element's owner then folds those rank
/// partials in rank order from `identity` (ranks holding none of them skipped). That is
/// `reduce_along`'s order, so along one axis the two give the same bits; integer and min/max
/// results match a serial reduction for every distribution and rank count. The operator must be
/// associative and commutative; a `user_op` declared otherwise is refused.
///
/// Cost: one pass over the owned source elements, then one all-to-all of one record (a point and a
/// value) per result element per rank holding part of its line, sent to its owner.
///
/// Flooded arrays (ZPL's reduction into a flood region, `[1..n, *] R := +<< A`): a flooded source
/// counts its canonical replica only; a flooded result gets every record at every replica of its
/// point, and each replica folds them in the same order, so the replicas hold the same bits.
/// `flooded_reduced_distribution` (array/flood.hpp) gives the result flooded along the reduced axes.

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <map>
#include <span>
#include <vector>

#include "tessera/array/dist_array.hpp"
#include "tessera/array/user_op.hpp"
#include "tessera/core/error.hpp"
#include "tessera/exchange/collective_check.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/geometry.hpp"
#include "tessera/layout/distribution.hpp"

namespace tessera {

namespace detail {

/// `axes` as a mask, refusing an axis out of range, a repeated one, or none.
template <std::size_t N>
[[nodiscard]] std::array<bool, N> reduced_axes_mask(const char* where, std::span<const std::size_t> axes) {
  std::array<bool, N> mask{};
  if (axes.empty()) fail_argument(where, "axes", "{}", "must name at least one axis to reduce along");
  for (const std::size_t d : axes) {
    if (d >= N) fail_argument(where, "axes", d, concat("is not an axis: it must be < ", N));
    if (mask[d]) fail_argument(where, "axes", d, "is named twice");
    mask[d] = true;
  }
  return mask;
}

/// The source box with every reduced axis cut down to its low index.
template <std::size_t N>
[[nodiscard]] Box<N> reduced_box(const Box<N>& box, const std::array<bool, N>& reduced) {
  Box<N> out = box;
  for (std::size_t d = 0; d < N; ++d)
    if (reduced[d]) out.hi[d] = out.lo[d] + 1;
  return out;
}

/// A spec that binds to `dim`'s ownership along an unreduced axis (cut for interval kinds, with
/// the same logical block; block-cyclic for the cyclic kinds; the owner table for irregular).
[[nodiscard]] inline DimSpec same_ownership(const DimDistribution& dim) {
  switch (dim.kind()) {
    case DimKind::cyclic:
    case DimKind::block_cyclic:
      return block_cyclic(dim.cycle_block(), dim.hi() > dim.lo() ? dim.owner(dim.lo()) : 0);
    case DimKind::irregular: {
      std::vector<int> owners(static_cast<std::size_t>(dim.hi() - dim.lo()));
      for (index_t i = dim.lo(); i < dim.hi(); ++i) owners[static_cast<std::size_t>(i - dim.lo())] = dim.owner(i);
      return irregular(std::move(owners));
    }
    case DimKind::collapsed: return collapsed();
    case DimKind::flooded: return flooded();
    default: return cut(dim.boundaries()).with_logical_block(dim.logical_block());
  }
}

/// A cut of the one index `lo` onto coordinate `owner` of a grid axis of extent `g`.
[[nodiscard]] inline DimSpec single_index_cut(index_t lo, int owner, int g) {
  std::vector<index_t> bounds(static_cast<std::size_t>(g) + 1, lo + 1);
  for (int c = 0; c <= owner; ++c) bounds[static_cast<std::size_t>(c)] = lo;
  return cut(std::move(bounds));
}

}  // namespace detail

/// The distribution of a partial reduction's result aligned with `source` (see the file comment):
/// over the reduced box, on the same processor grid in the same dimension order; along an
/// unreduced axis each grid coordinate owns what it owns in `source` (per slab for `general`
/// axes), along a reduced axis the coordinate that owns the low index owns it. So the result point
/// q lives on `source.owner(q)`. Not collective.
/// Throws `Error(invalid_argument)` for axes out of range, repeated or none, and for a
/// user-defined `source` (its owner function has no reduced form: give the result a distribution
/// of the reduced box of your own, `reduce_into` accepts any).
template <std::size_t N>
[[nodiscard]] Distribution<N> reduced_distribution(const Distribution<N>& source, std::span<const std::size_t> axes) {
  constexpr const char* where = "tessera::reduced_distribution";
  const auto reduced = detail::reduced_axes_mask<N>(where, axes);
  if (source.is_user_defined())
    fail_argument(where, "source", source,
                  "is user-defined: it has no reduced form; give reduce_into a result over the reduced box "
                  "distributed as you choose");
  const Box<N>& box = source.domain();
  // The slab that decides the cuts of a later axis is the one the source point box.lo lies in.
  const Point<N> first_position = box.empty() ? Point<N>{} : source.owner_position(box.lo);
  std::array<DimSpec, N> specs;
  for (std::size_t d = 0; d < N; ++d) {
    const DimDistribution& dim = source.dim(d, first_position);
    const int g = static_cast<int>(source.grid().extent(d));
    if (!reduced[d])
      specs[d] = detail::same_ownership(dim);
    else if (dim.kind() == DimKind::collapsed || dim.kind() == DimKind::flooded)
      specs[d] = detail::same_ownership(dim);  // every coordinate holds the low index already
    else
      specs[d] = detail::single_index_cut(box.lo[d], box.empty() ? 0 : static_cast<int>(first_position[d]), g);
  }
  Distribution<N> out(detail::reduced_box(box, reduced), source.grid(), specs, source.order());
  // Axes cut per slab keep every slab's cuts (the slabs are the same: same grid, same order).
  for (std::size_t d = 0; d < N; ++d)
    if (!reduced[d] && source.slab_count(d) > 1 && source.dim(d).owns_intervals() && !source.flooded(d))
      out = out.with_cuts(d, source.slab_cuts(d));
  return out;
}

/// \copydoc reduced_distribution(const Distribution<N>&, std::span<const std::size_t>)
template <std::size_t N>
[[nodiscard]] Distribution<N> reduced_distribution(const Distribution<N>& source,
                                                   std::initializer_list<std::size_t> axes) {
  return reduced_distribution(source, std::span<const std::size_t>(axes.begin(), axes.size()));
}

namespace detail {

/// One rank's partial result for one element of the result.
template <class T, std::size_t N>
struct PartialAt {
  Point<N> at{};
  T value{};
};

/// This rank's partials, one per result point it holds source elements of, each folded from
/// `identity` in the order of `for_each_owned` (patch after patch, row-major within each).
template <class T, std::size_t N, class Op>
[[nodiscard]] std::vector<PartialAt<T, N>> rank_partials(const DistArray<T, N>& source, const std::array<bool, N>& reduced,
                                                         const T& identity, Op& op) {
  std::vector<PartialAt<T, N>> out;
  if (!source.distribution().is_primary(source.domain().rank())) return out;  // a replica counted elsewhere
  std::map<Point<N>, std::size_t> slot_of;  // several patches may share result points
  const Box<N>& box = source.domain().box();
  const T* base = source.data();
  for (const PatchLayout<N>& patch : source.layout().patches()) {
    // The patch projected: local extents with the reduced axes counted once; row-major slots.
    Point<N> stride{}, projected{};
    index_t slots = 1;
    for (std::size_t d = N; d-- > 0;) {
      projected[d] = reduced[d] ? (patch.axes[d].count > 0 ? 1 : 0) : patch.axes[d].count;
      stride[d] = reduced[d] ? 0 : slots;
      slots *= projected[d];
    }
    if (slots == 0) continue;
    // Where each projected slot accumulates in `out` (a new entry for a point not seen yet).
    std::vector<std::size_t> target(static_cast<std::size_t>(slots));
    for (index_t s = 0; s < slots; ++s) {
      Point<N> at;
      index_t rest = s;
      for (std::size_t d = N; d-- > 0;) {
        const index_t l = rest % projected[d];
        rest /= projected[d];
        at[d] = reduced[d] ? box.lo[d] : patch.axes[d].global(patch.axes[d].ghost_lo + l);
      }
      const auto [it, fresh] = slot_of.emplace(at, out.size());
      if (fresh) out.push_back(PartialAt<T, N>{at, identity});
      target[static_cast<std::size_t>(s)] = it->second;
    }
    Box<N> local;
    for (std::size_t d = 0; d < N; ++d) local.hi[d] = patch.axes[d].count;
    for_each_point(local, [&](const Point<N>& l) {
      index_t slot = 0, off = patch.offset;
      for (std::size_t d = 0; d < N; ++d) {
        slot += l[d] * stride[d];
        off += (patch.axes[d].ghost_lo + l[d]) * patch.strides[d];
      }
      T& acc = out[target[static_cast<std::size_t>(slot)]].value;
      acc = op(acc, base[off]);
    });
  }
  return out;
}

}  // namespace detail

/// Collective: `result` = `source` reduced by `op` along every axis in `axes` (ZPL's `op<<`):
/// result(q) = op over the source points p that equal q off the reduced axes, from `identity`.
/// `result` must be over the reduced box (`source`'s box with each reduced axis cut to its low
/// index), distributed in any way: `reduced_distribution` gives the aligned one, with which
/// nothing crosses the grid off the reduced axes. Ghosts of `result` are not touched.
/// \code
///   tessera::Domain<3> plane(world, tessera::reduced_distribution(dist, {2}));
///   tessera::DistArray<std::int64_t, 3> top(plane);
///   tessera::reduce_into(volume, {2}, top, std::int64_t{0}, tessera::WrappingPlus{});
///   tessera::reduce_into(volume, {0, 1, 2}, corner, std::numeric_limits<std::int64_t>::min(),
///                        [](auto a, auto b) { return std::max(a, b); });   // a 1x1x1 array
/// \endcode
/// Throws `Error(invalid_argument)` on every rank, with nothing changed, if `axes` names an axis
/// out of range, twice, or none; `result`'s box is not the reduced box; `result` is over another
/// number of ranks or has a ghost update in flight; or `op` is a `user_op` declared not
/// associative or not commutative.
template <class T, std::size_t N, class Op>
void reduce_into(const DistArray<T, N>& source, std::span<const std::size_t> axes, DistArray<T, N>& result,
                 const T& identity, Op op) {
  constexpr const char* where = "tessera::reduce_into";
  const Communicator& comm = source.domain().comm();
  const auto checked = detail::check_collective(comm, where, source.collective_identity(),
                                                result.collective_identity(), axes);
  const auto reduced = detail::reduced_axes_mask<N>(where, axes);
  const Box<N> want = detail::reduced_box(source.domain().box(), reduced);
  if (result.domain().box() != want)
    fail_argument(where, "result", result.domain().box(),
                  detail::concat("is not the reduced box ", want, " (the source box ", source.domain().box(),
                                 " with each reduced axis cut to its low index)"));
  if (result.distribution().comm_size() != comm.size())
    fail_argument(where, "result", result.distribution(),
                  detail::concat("is for ", result.distribution().comm_size(), " ranks; the source's communicator has ",
                                 comm.size()));
  if (result.ghost_update_in_flight())
    fail(ErrorCode::invalid_argument, where, ": 'result' has a ghost update in flight (call end_update_ghosts first)");
  const OpProperties props = detail::op_properties(op);
  if (!props.associative || !props.commutative)
    fail_argument(where, "op", props.associative ? "an operator declared not commutative" : "an operator declared not associative",
                  "cannot be reduced: the ranks' partials are folded in an order that follows the distribution");
  // Each partial to the holders of its result point (its owner, or every replica of a flooded
  // result); what arrives is grouped by source rank.
  std::vector<detail::PartialAt<T, N>> partials = detail::rank_partials(source, reduced, identity, op);
  const Distribution<N>& to = result.distribution();
  const bool replicated = to.is_flooded();
  std::vector<int> owner(partials.size()), counts(static_cast<std::size_t>(comm.size()), 0);
  const auto for_each_holder = [&](std::size_t k, auto&& f) {
    if (!replicated) return f(owner[k]);
    for (int r : to.replicas(owner[k])) f(r);
  };
  for (std::size_t k = 0; k < partials.size(); ++k) {
    owner[k] = to.owner(partials[k].at);
    for_each_holder(k, [&](int r) { ++counts[static_cast<std::size_t>(r)]; });
  }
  std::vector<std::size_t> next(counts.size(), 0);
  for (std::size_t r = 1; r < counts.size(); ++r) next[r] = next[r - 1] + static_cast<std::size_t>(counts[r - 1]);
  std::vector<detail::PartialAt<T, N>> outgoing(next.back() + static_cast<std::size_t>(counts.back()));
  for (std::size_t k = 0; k < partials.size(); ++k)
    for_each_holder(k, [&](int r) { outgoing[next[static_cast<std::size_t>(r)]++] = partials[k]; });
  const auto arrived =
      comm.alltoallv(std::span<const detail::PartialAt<T, N>>(outgoing), std::span<const int>(counts));
  // Nothing was written before here: an error above leaves `result` as it was.
  result.for_each_owned([&](const Point<N>&, T& y) { y = identity; });
  for (const auto& p : arrived) {
    T& y = result.at(p.at);
    y = op(y, p.value);
  }
}

/// \copydoc reduce_into(const DistArray<T, N>&, std::span<const std::size_t>, DistArray<T, N>&, const T&, Op)
template <class T, std::size_t N, class Op>
void reduce_into(const DistArray<T, N>& source, std::initializer_list<std::size_t> axes, DistArray<T, N>& result,
                 const T& identity, Op op) {
  reduce_into(source, std::span<const std::size_t>(axes.begin(), axes.size()), result, identity, op);
}

}  // namespace tessera
