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

#include <mpi.h>

#include <climits>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <utility>
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

/// Every rank's `value`, in rank order, on every rank.
template <class V>
[[nodiscard]] std::vector<V> allgather_value(const Communicator& comm, const V& value) {
  static_assert(std::is_trivially_copyable_v<V>);
  const int size = comm.size();
  std::vector<unsigned char> bytes(sizeof(V) * static_cast<std::size_t>(size));
  check_mpi(MPI_Allgather(&value, static_cast<int>(sizeof(V)), MPI_BYTE, bytes.data(), static_cast<int>(sizeof(V)),
                          MPI_BYTE, comm.raw()),
            "MPI_Allgather");
  std::vector<V> out(static_cast<std::size_t>(size));
  std::memcpy(static_cast<void*>(out.data()), bytes.data(), bytes.size());
  return out;
}

/// `op` folded over every element of `a` from `identity` (DistArray::reduce).
template <class T, std::size_t N, class Op>
[[nodiscard]] T reduce_array(const DistArray<T, N>& a, const T& identity, Op& op) {
  T partial = identity;
  a.for_each_owned([&](const Point<N>&, const T& x) { partial = op(partial, x); });
  T result = identity;
  for (const T& x : allgather_value(a.domain().comm(), partial)) result = op(result, x);
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
  a.for_each_owned([&](const Point<N>& p, const T& x) {
    if (!mine.has || better(x, mine.value) || (!better(mine.value, x) && p < mine.at)) mine = Partial{x, p, 1};
  });
  Partial best{T{}, Point<N>{}, 0};
  for (const auto& q : allgather_value(a.domain().comm(), mine)) {
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
[[nodiscard]] std::vector<T> fold_slices(const Communicator& communicator, std::vector<T> partial, const T& identity,
                                         Op& op) {
  const MPI_Comm comm = communicator.raw();
  const int size = communicator.size(), rank = communicator.rank();
  const auto outputs = static_cast<index_t>(partial.size());
  const auto slice_begin = [&](int c) { return outputs * c / size; };
  if (checked_mul(outputs, static_cast<index_t>(sizeof(T)), "DistArray::reduce_along") > INT_MAX)
    fail(ErrorCode::overflow, "DistArray::reduce_along: ", outputs, " outputs do not fit in one MPI count of bytes");
  std::vector<int> send_counts(static_cast<std::size_t>(size)), send_displs(static_cast<std::size_t>(size));
  std::vector<int> recv_counts(static_cast<std::size_t>(size)), recv_displs(static_cast<std::size_t>(size));
  const index_t mine = slice_begin(rank + 1) - slice_begin(rank);
  for (int c = 0; c < size; ++c) {
    const auto i = static_cast<std::size_t>(c);
    send_displs[i] = static_cast<int>(slice_begin(c) * static_cast<index_t>(sizeof(T)));
    send_counts[i] = static_cast<int>((slice_begin(c + 1) - slice_begin(c)) * static_cast<index_t>(sizeof(T)));
    recv_displs[i] = static_cast<int>(mine * c * static_cast<index_t>(sizeof(T)));
    recv_counts[i] = static_cast<int>(mine * static_cast<index_t>(sizeof(T)));
  }
  std::vector<T> received(static_cast<std::size_t>(mine * size));
  check_mpi(MPI_Alltoallv(partial.data(), send_counts.data(), send_displs.data(), MPI_BYTE, received.data(),
                          recv_counts.data(), recv_displs.data(), MPI_BYTE, comm),
            "MPI_Alltoallv");
  std::vector<T> folded(static_cast<std::size_t>(mine), identity);
  for (int q = 0; q < size; ++q)
    for (index_t k = 0; k < mine; ++k) {
      T& slot = folded[static_cast<std::size_t>(k)];
      slot = op(slot, received[static_cast<std::size_t>(mine * q + k)]);
    }
  for (int c = 0; c < size; ++c) {
    const auto i = static_cast<std::size_t>(c);
    recv_displs[i] = send_displs[i];
    recv_counts[i] = send_counts[i];
  }
  check_mpi(MPI_Allgatherv(folded.data(), static_cast<int>(mine * static_cast<index_t>(sizeof(T))), MPI_BYTE,
                           partial.data(), recv_counts.data(), recv_displs.data(), MPI_BYTE, comm),
            "MPI_Allgatherv");
  return partial;
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
  a.for_each_owned([&](const Point<N>& p, const T& x) {
    index_t k = 0;
    for (std::size_t d = 0; d < N; ++d) k += (p[d] - box.lo[d]) * strides[d];
    auto& slot = partial[static_cast<std::size_t>(k)];
    slot = op(slot, x);
  });
  return fold_slices(a.domain().comm(), std::move(partial), identity, op);
}

}  // namespace detail
}  // namespace tessera
