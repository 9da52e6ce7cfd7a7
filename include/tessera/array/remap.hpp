#pragma once
/// \file
/// Remaps between arrays (ZPL's `:=` across regions and its remap operator `#`): element-wise
/// copies between arrays of one global box under different distributions, copies of a box onto a
/// box of equal extents elsewhere (shifted and zoom copies), transposes, and irregular gathers and
/// scatters through an index array.
/// \code
///   tessera::copy(a_block, a_cyclic);                           // redistribution between two arrays
///   tessera::copy_section(a, Box<2>({0, 0}, {4, 4}), b, {8, 8});  // b[8..12, 8..12] = a[0..4, 0..4]
///   tessera::transpose(a, at, {1, 0});                           // at(j, i) = a(i, j)
///   tessera::gather(a, idx, out);                                // out(i) = a(idx(i))
///   tessera::scatter(vals, idx, a, tessera::CombineOp::add);     // a(idx(i)) += vals(i)
/// \endcode
/// Every function here is collective over the communicator of the arrays' domains (which must be
/// the same `Communicator` object). Arguments are checked identically on every rank before anything
/// moves, and a bad argument throws the same `Error` on every rank with nothing written.
///
/// Regular remaps (`copy`, `copy_section`, `transpose`) compile a section-move schedule, cached in
/// the destination domain's schedule cache, and run it through a `Mover` kept in that domain's
/// mover cache (`Domain::movers()`, mover_cache.hpp): after the first call with the same arrays,
/// a remap allocates nothing and reuses its buffers. Index-array remaps
/// (`gather`, `scatter`) are irregular: they follow PARTI's inspector/executor idea but redo the
/// inspection (grouping the requested points by owner and exchanging them) on every call: their
/// schedules are not cached yet.

#include <mpi.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "tessera/array/dist_array.hpp"
#include "tessera/array/domain.hpp"
#include "tessera/core/error.hpp"
#include "tessera/exchange/collective_check.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/exchange/mover.hpp"
#include "tessera/plan/combine_op.hpp"
#include "tessera/plan/motion_plan.hpp"
#include "tessera/plan/schedules.hpp"

namespace tessera {

namespace detail::remap {

/// Throws unless both domains run on the same `Communicator` object: movers take their tags from
/// one communicator, and two duplicates of one group would not match each other's messages.
template <std::size_t A, std::size_t B>
void check_same_comm(const char* where, const char* argument, const Domain<A>& ref, const Domain<B>& other) {
  if (&ref.comm() != &other.comm())
    fail_argument(where, argument, "an array over another Communicator",
                  "must be over a domain of the same Communicator object as the source");
}

/// Throws for a box with hi < lo along some axis (an empty box is fine, a malformed one is not).
template <std::size_t N>
void check_well_formed(const char* where, const char* argument, const Box<N>& b) {
  for (std::size_t d = 0; d < N; ++d)
    if (b.hi[d] < b.lo[d])
      fail_argument(where, argument, b, concat("is malformed: hi < lo along axis ", d));
}

/// Start of an array's storage as the mover wants it (never null: see `empty_storage`).
template <class T>
[[nodiscard]] const void* bytes_of(const T* data) noexcept {
  return data ? static_cast<const void*>(data) : static_cast<const void*>(empty_storage);
}
template <class T>
[[nodiscard]] void* bytes_of(T* data) noexcept {
  return data ? static_cast<void*>(data) : static_cast<void*>(empty_storage);
}

/// Moves box `src_box` of `src` onto `dst_box` of `dst` (destination axis d takes source axis
/// perm[d]); arguments already checked. When both are the same array, the mover's in-place sends
/// and receives could read an element after a receive overwrote it, so the source is first staged
/// in a copy of this rank's storage (same layout, so no communication is needed for that).
template <class T, std::size_t N>
void move_section(const DistArray<T, N>& src, const Box<N>& src_box, DistArray<T, N>& dst, const Box<N>& dst_box,
                  const typename MotionPlan<N>::Permutation& perm) {
  if (src_box.empty()) return;  // every rank sees the same boxes: nobody communicates
  const Domain<N>& dom = dst.domain();
  auto schedule = section_move_schedule(src.distribution(), src.ghosts(), src_box, dst.distribution(), dst.ghosts(),
                                        dst_box, perm, dom.rank(), &dom.cache());
  // The mover is kept in the destination domain's mover cache: a repeated remap reuses its
  // buffers and datatypes and allocates nothing (mover_cache.hpp).
  const auto charge = static_cast<std::size_t>(volume(src_box)) * sizeof(T);
  if (static_cast<const void*>(&src) == static_cast<const void*>(&dst)) {
    const std::vector<T> staged(src.storage().begin(), src.storage().end());
    dom.movers().run(dom.comm(), schedule, sizeof(T), charge, bytes_of(staged.data()), bytes_of(dst.data()));
  } else {
    dom.movers().run(dom.comm(), schedule, sizeof(T), charge, bytes_of(src.data()), bytes_of(dst.data()));
  }
}

/// Row-major linear index of `p` in `box` (p must lie in it).
template <std::size_t M>
[[nodiscard]] index_t linear_index(const Box<M>& box, const Point<M>& p) noexcept {
  index_t k = 0;
  for (std::size_t d = 0; d < M; ++d) k = k * (box.hi[d] - box.lo[d]) + (p[d] - box.lo[d]);
  return k;
}

/// MPI_Alltoallv of trivially copyable items: `items` are grouped by destination rank, `counts[r]`
/// of them for rank r. Returns what arrived, grouped by source rank, and sets `received[r]`.
template <class Item>
[[nodiscard]] std::vector<Item> exchange(const Communicator& comm, const char* where, const std::vector<Item>& items,
                                         const std::vector<int>& counts, std::vector<int>& received) {
  static_assert(std::is_trivially_copyable_v<Item>);
  const auto size = static_cast<std::size_t>(comm.size());
  received.assign(size, 0);
  check_mpi(MPI_Alltoall(counts.data(), 1, MPI_INT, received.data(), 1, MPI_INT, comm.raw()), "MPI_Alltoall");
  // Byte counts and displacements are ints: more than INT_MAX bytes to or from one rank in total
  // would need chunking, which this irregular path does not do yet.
  const auto byte_layout = [&](const std::vector<int>& n, std::vector<int>& bytes, std::vector<int>& displs) {
    bytes.assign(size, 0);
    displs.assign(size, 0);
    std::int64_t total = 0;
    for (std::size_t r = 0; r < size; ++r) {
      const std::int64_t b = static_cast<std::int64_t>(n[r]) * static_cast<std::int64_t>(sizeof(Item));
      if (b > INT_MAX || total > INT_MAX - b)
        fail(ErrorCode::overflow, where, ": the exchange of ", n[r], " items with rank ", r,
             " does not fit in one MPI count of bytes");
      bytes[r] = static_cast<int>(b);
      displs[r] = static_cast<int>(total);
      total += b;
    }
    return total / static_cast<std::int64_t>(sizeof(Item));
  };
  std::vector<int> send_bytes, send_displs, recv_bytes, recv_displs;
  byte_layout(counts, send_bytes, send_displs);
  const auto total = byte_layout(received, recv_bytes, recv_displs);
  std::vector<Item> out(static_cast<std::size_t>(total));
  // Never hand MPI a null buffer, even for zero bytes.
  const void* send = items.empty() ? static_cast<const void*>(empty_storage) : static_cast<const void*>(items.data());
  void* recv = out.empty() ? static_cast<void*>(empty_storage) : static_cast<void*>(out.data());
  check_mpi(MPI_Alltoallv(send, send_bytes.data(), send_displs.data(), MPI_BYTE, recv, recv_bytes.data(),
                          recv_displs.data(), MPI_BYTE, comm.raw()),
            "MPI_Alltoallv");
  return out;
}

/// Every rank's owned entries of `index` in the order `for_each_owned` visits them, after checking
/// that each lies in `target`. If any does not, the lowest rank that has a bad entry broadcasts its
/// message (naming its first bad entry) and every rank throws `Error(out_of_range)` with it.
template <std::size_t N, std::size_t M>
[[nodiscard]] std::vector<std::pair<Point<M>, Point<N>>> checked_indices(const char* where,
                                                                        const DistArray<Point<N>, M>& index,
                                                                        const Box<N>& target) {
  std::vector<std::pair<Point<M>, Point<N>>> out;
  std::string bad;
  index.for_each_owned([&](const Point<M>& i, const Point<N>& p) {
    if (bad.empty() && !contains(target, p))
      bad = concat(where, ": argument 'index' has index(", i, ") = ", p, ", which is not in the domain ", target,
                   " it indexes");
    out.emplace_back(i, p);
  });
  const Communicator& comm = index.domain().comm();
  int mine = bad.empty() ? comm.size() : comm.rank(), first = 0;
  check_mpi(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm.raw()), "MPI_Allreduce");
  if (first == comm.size()) return out;
  int length = static_cast<int>(bad.size());
  check_mpi(MPI_Bcast(&length, 1, MPI_INT, first, comm.raw()), "MPI_Bcast");
  bad.resize(static_cast<std::size_t>(length));
  check_mpi(MPI_Bcast(bad.data(), length, MPI_CHAR, first, comm.raw()), "MPI_Bcast");
  throw Error(ErrorCode::out_of_range, bad);
}

/// Sorts `n` entries by the rank `owner_of(k)` of each (stable, so each rank's requests keep their
/// order): returns the entry order and sets `counts[r]`.
template <class OwnerOf>
[[nodiscard]] std::vector<std::size_t> group_by_owner(std::size_t n, int ranks, OwnerOf&& owner_of,
                                                      std::vector<int>& counts) {
  std::vector<int> owner(n);
  counts.assign(static_cast<std::size_t>(ranks), 0);
  for (std::size_t k = 0; k < n; ++k) ++counts[static_cast<std::size_t>(owner[k] = owner_of(k))];
  std::vector<std::size_t> start(static_cast<std::size_t>(ranks), 0);
  for (std::size_t r = 1; r < start.size(); ++r) start[r] = start[r - 1] + static_cast<std::size_t>(counts[r - 1]);
  std::vector<std::size_t> order(n);
  for (std::size_t k = 0; k < n; ++k) order[start[static_cast<std::size_t>(owner[k])]++] = k;
  return order;
}

}  // namespace detail::remap

/// Collective: copies every element of `src` into `dst`, two arrays over the same global box with
/// possibly different distributions (a redistribution between arrays, ZPL's `B := A` across
/// distributions). Ghost layers of `dst` are left untouched. The schedule is cached in `dst`'s
/// domain. Throws `Error(invalid_argument)` on every rank, before anything moves, if the domains'
/// boxes differ or they are not over the same `Communicator` object.
template <class T, std::size_t N>
  requires(N >= 1)
void copy(const DistArray<T, N>& src, DistArray<T, N>& dst) {
  constexpr const char* where = "copy";
  const auto checked =
      detail::check_collective(src.domain().comm(), where, src.collective_identity(), dst.collective_identity());
  detail::remap::check_same_comm(where, "dst", src.domain(), dst.domain());
  if (src.domain().box() != dst.domain().box())
    fail_argument(where, "dst", dst.domain().box(),
                  detail::concat("is over another box than the source's ", src.domain().box()));
  detail::remap::move_section(src, src.domain().box(), dst, dst.domain().box(), MotionPlan<N>::identity());
}

/// Collective: copies box `src_box` of `src` onto the box of equal extents starting at `dst_lo` in
/// `dst` (ZPL's shifted and zoom copies, `B[R2] := A[R1]`). Ghost layers of `dst` and its elements
/// outside that box are left untouched. `src` and `dst` may be the same array, with overlapping
/// boxes: the result is as if every element were read before any is written. Throws on every rank,
/// before anything moves: `Error(invalid_argument)` for a malformed `src_box` or arrays over
/// different `Communicator` objects, `Error(out_of_range)` if `src_box` is not inside `src`'s
/// domain or the destination box is not inside `dst`'s.
template <class T, std::size_t N>
  requires(N >= 1)
void copy_section(const DistArray<T, N>& src, const Box<N>& src_box, DistArray<T, N>& dst, const Point<N>& dst_lo) {
  constexpr const char* where = "copy_section";
  const auto checked = detail::check_collective(src.domain().comm(), where, src.collective_identity(), src_box,
                                                dst.collective_identity(), dst_lo);
  detail::remap::check_same_comm(where, "dst", src.domain(), dst.domain());
  detail::remap::check_well_formed(where, "src_box", src_box);
  if (src_box.empty()) return;
  if (!contains(src.domain().box(), src_box))
    fail(ErrorCode::out_of_range, where, ": argument 'src_box' = ", src_box, " is not inside the source domain ",
         src.domain().box());
  const Box<N> dst_box = Box<N>::from_extents(dst_lo, extents(src_box));
  if (!contains(dst.domain().box(), dst_box))
    fail(ErrorCode::out_of_range, where, ": argument 'dst_lo' = ", dst_lo, " puts the destination box ", dst_box,
         " outside the destination domain ", dst.domain().box());
  detail::remap::move_section(src, src_box, dst, dst_box, MotionPlan<N>::identity());
}

/// Collective: the axis permutation of a whole array (ZPL's `A := B#[Index2, Index1]` for N = 2 and
/// perm {1, 0}): dst(q) = src(p) with q[d] - dst.lo[d] = p[perm[d]] - src.lo[perm[d]], where lo are
/// the low corners of the domains' boxes. `src` and `dst` may be the same array (a square
/// transpose in place). Ghost layers of `dst` are left untouched. Throws `Error(invalid_argument)`
/// on every rank, before anything moves, if `perm` is not a permutation of 0..N-1, `dst`'s box
/// extents are not `src`'s permuted (extent d of dst == extent perm[d] of src), or the arrays are
/// over different `Communicator` objects.
template <class T, std::size_t N>
  requires(N >= 1)
void transpose(const DistArray<T, N>& src, DistArray<T, N>& dst, const std::array<int, N>& perm) {
  constexpr const char* where = "transpose";
  const auto checked =
      detail::check_collective(src.domain().comm(), where, src.collective_identity(), dst.collective_identity(), perm);
  detail::remap::check_same_comm(where, "dst", src.domain(), dst.domain());
  std::array<bool, N> seen{};
  for (std::size_t d = 0; d < N; ++d) {
    if (perm[d] < 0 || perm[d] >= static_cast<int>(N) || seen[static_cast<std::size_t>(perm[d])])
      fail_argument(where, detail::concat("perm[", d, "]"), perm[d],
                    detail::concat("makes perm not a permutation of 0..", N - 1));
    seen[static_cast<std::size_t>(perm[d])] = true;
  }
  const Box<N>& sb = src.domain().box();
  const Box<N>& db = dst.domain().box();
  for (std::size_t d = 0; d < N; ++d) {
    const auto s = static_cast<std::size_t>(perm[d]);
    if (extent(db, d) != extent(sb, s))
      fail_argument(where, "dst", db,
                    detail::concat("has extent ", extent(db, d), " along axis ", d, " but the source box ", sb,
                                   " has ", extent(sb, s), " along axis perm[", d, "] = ", s));
  }
  detail::remap::move_section(src, sb, dst, db, perm);
}

/// Collective: ZPL's general remap `B := A#[I]`: dst(i) = src(index(i)) for every i in `dst`'s
/// domain, with arbitrary (irregular, many-to-one, all-to-all) index values. `index` and `dst` must
/// be over the same box with equal distributions; `src` may be over any domain of the same
/// `Communicator` and may be `dst` itself (every value is read before any is written). Ghosts of
/// `dst` are left untouched.
///
/// Cost: each rank sends its requested points to their owners and gets the values back (two
/// all-to-all exchanges of counts and two of data); the inspection is redone on every call (not
/// cached yet). Throws on every rank, before any value moves: `Error(invalid_argument)` for
/// mismatched arrays, `Error(out_of_range)` naming the first bad entry of the lowest rank holding
/// one if an index value is outside `src`'s domain.
template <class T, std::size_t N, std::size_t M>
  requires(N >= 1 && M >= 1)
void gather(const DistArray<T, N>& src, const DistArray<Point<N>, M>& index, DistArray<T, M>& dst) {
  constexpr const char* where = "gather";
  const auto checked = detail::check_collective(src.domain().comm(), where, src.collective_identity(),
                                                index.collective_identity(), dst.collective_identity());
  detail::remap::check_same_comm(where, "index", src.domain(), index.domain());
  detail::remap::check_same_comm(where, "dst", src.domain(), dst.domain());
  if (!(index.distribution() == dst.distribution()))
    fail_argument(where, "dst", dst.distribution(),
                  detail::concat("must have the distribution of 'index', ", index.distribution()));
  const auto requests = detail::remap::checked_indices(where, index, src.domain().box());
  const Communicator& comm = dst.domain().comm();
  const Distribution<N>& sdist = src.distribution();
  std::vector<int> counts, arrived;
  const auto order = detail::remap::group_by_owner(
      requests.size(), comm.size(), [&](std::size_t k) { return sdist.owner(requests[k].second); }, counts);
  std::vector<Point<N>> asked(requests.size());
  for (std::size_t j = 0; j < order.size(); ++j) asked[j] = requests[order[j]].second;
  // Inspector: owners learn which of their points are wanted, grouped by requesting rank.
  const auto wanted = detail::remap::exchange(comm, where, asked, counts, arrived);
  // Executor: owners reply in the order asked, so the replies line up with `asked`.
  std::vector<T> replies(wanted.size());
  for (std::size_t j = 0; j < wanted.size(); ++j) replies[j] = src.at(wanted[j]);
  std::vector<int> unused;
  const auto values = detail::remap::exchange(comm, where, replies, arrived, unused);
  for (std::size_t j = 0; j < order.size(); ++j) dst.at(requests[order[j]].first) = values[j];
}

/// Collective: ZPL's remap on the left, `A#[I] := V`: dst(index(i)) = op(dst(index(i)), values(i))
/// for every i in `values`' domain (replace: dst(index(i)) = values(i)). Where several i hit one
/// point, their values are applied in increasing row-major order of i in `values`' domain box
/// (whatever the distributions), so with `replace` the one with the highest linear index wins,
/// and with `add` the rounding is the same for every distribution. Points no i hits keep their
/// values; so do ghost layers. `index` and `values` must be over the same box with equal
/// distributions; `dst` may be over any domain of the same `Communicator`.
///
/// Cost: each rank sends (point, order, value) items to the points' owners (one all-to-all of
/// counts, one of items); the inspection is redone on every call (not cached yet). Throws on every
/// rank, before any value moves: `Error(invalid_argument)` for mismatched arrays or an `op` T does
/// not support, `Error(out_of_range)` naming the first bad entry of the lowest rank holding one if
/// an index value is outside `dst`'s domain.
template <class T, std::size_t N, std::size_t M>
  requires(N >= 1 && M >= 1)
void scatter(const DistArray<T, M>& values, const DistArray<Point<N>, M>& index, DistArray<T, N>& dst,
             CombineOp op = CombineOp::replace) {
  constexpr const char* where = "scatter";
  const auto checked = detail::check_collective(dst.domain().comm(), where, values.collective_identity(),
                                                index.collective_identity(), dst.collective_identity(), op);
  detail::remap::check_same_comm(where, "index", dst.domain(), index.domain());
  detail::remap::check_same_comm(where, "values", dst.domain(), values.domain());
  if (!(index.distribution() == values.distribution()))
    fail_argument(where, "values", values.distribution(),
                  detail::concat("must have the distribution of 'index', ", index.distribution()));
  CombineFn combine = nullptr;
  if (op != CombineOp::replace) {
    try {
      combine = combine_function<T>(op);
    } catch (const Error&) {
      fail_argument(where, "op", to_string(op), "is not defined for this element type");
    }
    if (combine == nullptr) fail_argument(where, "op", static_cast<int>(op), "is not a tessera::CombineOp");
  }
  const auto targets = detail::remap::checked_indices(where, index, dst.domain().box());
  // The values in the same order as the index entries (equal distributions: same walk).
  std::vector<T> mine;
  mine.reserve(targets.size());
  values.for_each_owned([&](const Point<M>&, const T& v) { mine.push_back(v); });
  struct Item {
    Point<N> at;
    index_t order;  // row-major linear index of i: the order in which hits on one point apply
    T value;
  };
  const Communicator& comm = dst.domain().comm();
  const Distribution<N>& ddist = dst.distribution();
  const Box<M>& ibox = index.domain().box();
  std::vector<int> counts, arrived;
  const auto order = detail::remap::group_by_owner(
      targets.size(), comm.size(), [&](std::size_t k) { return ddist.owner(targets[k].second); }, counts);
  std::vector<Item> items(targets.size());
  for (std::size_t j = 0; j < order.size(); ++j) {
    const std::size_t k = order[j];
    std::memset(static_cast<void*>(&items[j]), 0, sizeof(Item));  // no uninitialised padding on the wire
    items[j].at = targets[k].second;
    items[j].order = detail::remap::linear_index(ibox, targets[k].first);
    items[j].value = mine[k];
  }
  auto got = detail::remap::exchange(comm, where, items, counts, arrived);
  std::sort(got.begin(), got.end(), [](const Item& a, const Item& b) { return a.order < b.order; });
  for (const Item& it : got) {
    T& slot = dst.at(it.at);
    if (combine)
      combine(&slot, &it.value, 1);
    else
      slot = it.value;
  }
}

}  // namespace tessera
