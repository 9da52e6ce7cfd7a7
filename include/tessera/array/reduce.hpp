#pragma once
/// \file
/// The reductions of a `DistArray` (`reduce`, `sum`, `min`, `max`, `min_loc`, `max_loc`,
/// `reduce_along`): what the array's members of those names run, after their checked-mode scope.
/// Included by dist_array.hpp; call them as members (`u.sum()`).
///
/// Every result has the same bits on every rank, because every rank folds the same partial results
/// in the same order: a rank folds its owned elements in the order of `for_each_owned`, then the
/// ranks' partials are folded in rank order (for `reduce_along`, slice by slice, see
/// `fold_slices`). Between distributions the result may differ in rounding, never between ranks.
/// Over a flooded distribution only the canonical replica's ranks fold their elements
/// (`Distribution::is_primary`), so each element counts once.

#include <climits>
#include <cstddef>
#include <span>
#include <vector>

#include "tessera/array/domain.hpp"
#include "tessera/core/error.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/geometry.hpp"

namespace tessera {

/// A value and the lexicographically smallest global point where it occurs (`min_loc`, `max_loc`).
template <class T, std::size_t N>
struct ValueAt {
  T value{};      ///< the extreme value
  Point<N> at{};  ///< where it is
};

namespace detail {

/// Calls f(point, value) for every element this rank counts in a reduction: the ones it owns,
/// unless it holds a replica of a flooded array other than the canonical one.
template <class T, std::size_t N, class F>
void for_each_counted(const DistArray<T, N>& a, F&& f) {
  if (a.distribution().is_primary(a.domain().rank())) a.for_each_owned(f);
}

/// `op` folded over every element of `a` from `identity` (DistArray::reduce).
template <class T, std::size_t N, class Op>
[[nodiscard]] T reduce_array(const DistArray<T, N>& a, const T& identity, Op& op) {
  T partial = identity;
  for_each_counted(a, [&](const Point<N>&, const T& x) { partial = op(partial, x); });
  T result = identity;
  for (const T& x : a.domain().comm().allgather(partial)) result = op(result, x);
  return result;
}

/// The element `better` than every other one, ties going to the smallest point (min_loc,
/// max_loc). Throws `Error(invalid_argument)`, naming `where`, for an empty domain.
template <class T, std::size_t N, class Better>
[[nodiscard]] ValueAt<T, N> extreme_loc(const DistArray<T, N>& a, const char* where, Better better) {
  struct Partial {
    T value;
    Point<N> at;
    int has;
  };
  Partial mine{T{}, Point<N>{}, 0};
  for_each_counted(a, [&](const Point<N>& p, const T& x) {
    if (!mine.has || better(x, mine.value) || (!better(mine.value, x) && p < mine.at)) mine = Partial{x, p, 1};
  });
  Partial best{T{}, Point<N>{}, 0};
  for (const auto& q : a.domain().comm().allgather(mine)) {
    if (!q.has) continue;
    if (!best.has || better(q.value, best.value) || (!better(best.value, q.value) && q.at < best.at)) best = q;
  }
  if (!best.has) fail_argument(where, "domain", a.domain().box(), "is empty: there is no extreme element");
  return {best.value, best.at};
}

/// Folds every rank's `partial` (one entry per output) in rank order, the same bits everywhere:
/// rank c folds the outputs [c R / P, (c + 1) R / P) from every rank's contribution, then the
/// folded slices are gathered on every rank.
template <class T, class Op>
[[nodiscard]] std::vector<T> fold_slices(const Communicator& comm, const std::vector<T>& partial, const T& identity,
                                         Op& op) {
  const int size = comm.size(), rank = comm.rank();
  const auto outputs = static_cast<index_t>(partial.size());
  const auto slice_begin = [&](int c) { return outputs * c / size; };
  if (outputs > INT_MAX)
    fail(ErrorCode::overflow, "DistArray::reduce_along: ", outputs, " outputs do not fit in one MPI count");
  std::vector<int> slice_counts(static_cast<std::size_t>(size));
  for (int c = 0; c < size; ++c)
    slice_counts[static_cast<std::size_t>(c)] = static_cast<int>(slice_begin(c + 1) - slice_begin(c));
  // Slice c of every rank's partial to rank c: what arrives is this rank's slice from every rank,
  // in rank order.
  const std::vector<T> received = comm.alltoallv(std::span<const T>(partial), std::span<const int>(slice_counts));
  const auto mine = static_cast<std::size_t>(slice_begin(rank + 1) - slice_begin(rank));
  std::vector<T> folded(mine, identity);
  for (int q = 0; q < size; ++q)
    for (std::size_t k = 0; k < mine; ++k) folded[k] = op(folded[k], received[mine * static_cast<std::size_t>(q) + k]);
  return comm.allgatherv(std::span<const T>(folded));  // the slices in rank order: every output in order
}

/// ZPL's partial reduction `op<< [axis]` (DistArray::reduce_along): one result per point of the
/// domain box without `axis`, in row-major order of that box.
template <class T, std::size_t N, class Op>
[[nodiscard]] std::vector<T> reduce_along(const DistArray<T, N>& a, std::size_t axis, const T& identity, Op& op) {
  if (axis >= N) fail_argument("DistArray::reduce_along", "axis", axis, concat("must be < ", N));
  const Box<N>& box = a.domain().box();
  // Row-major strides over the box without `axis`.
  Point<N> strides{};
  index_t outputs = 1;
  for (std::size_t d = N; d-- > 0;) {
    if (d == axis) continue;
    strides[d] = outputs;
    outputs = checked_mul(outputs, extent(box, d), "DistArray::reduce_along");
  }
  std::vector<T> partial(static_cast<std::size_t>(outputs), identity);
  for_each_counted(a, [&](const Point<N>& p, const T& x) {
    index_t k = 0;
    for (std::size_t d = 0; d < N; ++d) k += (p[d] - box.lo[d]) * strides[d];
    auto& slot = partial[static_cast<std::size_t>(k)];
    slot = op(slot, x);
  });
  return fold_slices(a.domain().comm(), partial, identity, op);
}

}  // namespace detail
}  // namespace tessera
