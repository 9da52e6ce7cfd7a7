#pragma once
/// \file
/// `copy_between_groups`: the one operation that involves two processor groups (ZPL's moves
/// between arrays of disjoint grids). Arrays over a group's communicator (exchange/
/// processor_groups.hpp) live only on that group's ranks; a copy from an array of one group into an
/// array of another is collective over the parent communicator, since ranks of both groups (and of
/// none) must meet in it.
/// \code
///   tessera::ProcessorGroups groups(world, {{0, 2, 4}, {1, 3}});
///   // every rank knows both distributions as values: one for 3 ranks, one for 2
///   const tessera::Distribution<2> a_dist(box, tessera::ProcGrid<2>::with_shape(3, {3, 1}), {tessera::block(), tessera::block()});
///   const tessera::Distribution<2> b_dist(box, tessera::ProcGrid<2>::with_shape(2, {1, 2}), {tessera::cyclic(), tessera::block()});
///   std::optional<tessera::Domain<2>> a_dom, b_dom;        // each only on its group's ranks
///   std::optional<tessera::DistArray<double, 2>> a, b;
///   ... each group computes on its own ...
///   tessera::copy_between_groups<double>(groups, 0, a_dist, a ? &*a : nullptr,
///                                        1, b_dist, b ? &*b : nullptr);   // b = a, on every parent rank
/// \endcode
/// How it moves: both distributions are lifted to the parent's ranks (`lift_to_parent`: group rank
/// i becomes the group list's i-th parent rank, owning what it owned, stored where it was stored);
/// a section-move plan between the lifted distributions is built on each rank without
/// communication, compiled against the arrays' storage, and run by a point-to-point `Mover` over
/// the parent, from the source array's storage straight into the destination's. Schedule and
/// mover are kept in `groups.cache()`: a repeated copy costs one small allreduce (the agreement on
/// the arguments together with the arrays' ghost specs, which ranks outside a group do not know)
/// and the messages. Point-to-point always: the pattern is bipartite (one group sends, the other
/// receives), and arrays kept in shared-memory windows have them over their group's node, not the
/// parent's.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>

#include "tessera/array/dist_array.hpp"
#include "tessera/array/remap.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/hash.hpp"
#include "tessera/exchange/collective_check.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/exchange/kept_mover.hpp"
#include "tessera/exchange/mover.hpp"
#include "tessera/exchange/processor_groups.hpp"
#include "tessera/plan/exchange_cache.hpp"
#include "tessera/plan/schedule_builders.hpp"

namespace tessera {

namespace detail::group_copy {

/// What is wrong with one side of a move between groups on this rank, or nothing. `side` and
/// `array_name` name the arguments ("from"/"src", "to"/"dst").
template <class T, std::size_t N>
[[nodiscard]] std::optional<Error> side_error(const char* where, const ProcessorGroups& groups, const char* side,
                                              int group, const Distribution<N>& dist, const char* array_name,
                                              const DistArray<T, N>* array) {
  const auto refuse = [&](const auto&... parts) {
    return std::optional<Error>(Error(ErrorCode::invalid_argument, concat(where, ": ", parts...)));
  };
  if (group < 0 || group >= groups.count())
    return refuse("argument '", side, "_group' = ", group, " is not a group (there are ", groups.count(), ")");
  if (dist.comm_size() != groups.size(group))
    return refuse("argument '", side, "' = ", dist, " is for ", dist.comm_size(), " ranks, but group ", group, " has ",
                  groups.size(group));
  const int me = groups.parent().rank();
  const std::optional<int> mine = groups.group_rank(group, me);
  if (!mine && array != nullptr)
    return refuse("argument '", array_name, "' is an array on parent rank ", me, ", which is not in group ", group,
                  "; pass nullptr there");
  if (mine && array == nullptr)
    return refuse("argument '", array_name, "' is null on parent rank ", me, ", which is rank ", *mine, " of group ",
                  group, "; every rank of the group passes its array");
  if (array == nullptr) return std::nullopt;
  const Communicator& comm = array->domain().comm();
  if (comm.size() != groups.size(group) || comm.rank() != *mine)
    return refuse("argument '", array_name, "' is over a communicator where this rank is ", comm.rank(), " of ",
                  comm.size(), ", not group ", group, "'s (rank ", *mine, " of ", groups.size(group), ")");
  if (!(array->distribution() == dist))
    return refuse("argument '", array_name, "' has the distribution ", array->distribution(), ", not '", side,
                  "' = ", dist);
  return std::nullopt;
}

/// What is wrong with the boxes of a move of `src_box` onto `dst_box`, or nothing.
template <std::size_t N>
[[nodiscard]] std::optional<Error> box_error(const char* where, const Distribution<N>& from, const Box<N>& src_box,
                                             const Distribution<N>& to, const Box<N>& dst_box) {
  for (std::size_t d = 0; d < N; ++d)
    if (src_box.hi[d] < src_box.lo[d])
      return Error(ErrorCode::invalid_argument,
                   concat(where, ": the source box ", src_box, " is malformed: hi < lo along axis ", d));
  if (!contains(from.domain(), src_box))
    return Error(ErrorCode::out_of_range,
                 concat(where, ": the source box ", src_box, " is not inside the source domain ", from.domain()));
  if (!contains(to.domain(), dst_box))
    return Error(ErrorCode::out_of_range, concat(where, ": the destination box ", dst_box,
                                                 " is not inside the destination domain ", to.domain()));
  return std::nullopt;
}

/// Moves `src_box` of the source onto `dst_box` (equal extents) of the destination; see the file
/// comment. Collective over `groups.parent()`; checks every argument on every rank and agrees on
/// the outcome before anything moves.
template <class T, std::size_t N>
void move_between_groups(const char* where, const ProcessorGroups& groups, int from_group, const Distribution<N>& from,
                         const DistArray<T, N>* src, const Box<N>& src_box, int to_group, const Distribution<N>& to,
                         DistArray<T, N>* dst, const Box<N>& dst_box, std::optional<Error> refused) {
  const Communicator& parent = groups.parent();
  const auto checked =
      check_collective(parent, where, from_group, from, src_box, to_group, to, dst_box, sizeof(T));
  if (!refused) refused = side_error(where, groups, "from", from_group, from, "src", src);
  if (!refused) refused = side_error(where, groups, "to", to_group, to, "dst", dst);
  if (!refused && from_group == to_group)
    refused = Error(ErrorCode::invalid_argument,
                    concat(where, ": 'from_group' and 'to_group' are both ", from_group,
                           "; within one group use copy() on the group's communicator"));
  if (!refused) refused = box_error(where, from, src_box, to, dst_box);
  // One allreduce agrees on the outcome and shares the arrays' ghost specs: only the ranks of a
  // group know its array's ghosts, which shape the storage the plan addresses, and the cache key
  // must be the same on every rank for it to hit or miss alike. (Two allreduces were a tenth of a
  // 512 KiB copy on 2 ranks: bench_groups.) If a rank refused, every rank sees it and `agree`
  // sends the lowest refusing rank's error to all.
  // agreed: {refused?, the source array's ghost-spec hash, the destination's}.
  std::array<std::uint64_t, 3> agreed{refused ? 1u : 0u, src ? src->ghosts().hash() : 0,
                                      dst ? dst->ghosts().hash() : 0};
  parent.allreduce(std::span<std::uint64_t>(agreed), ReduceOp::max);
  if (agreed[0] != 0) parent.agree(refused);  // throws on every rank
  if (src_box.empty()) return;  // every rank sees the same boxes: nobody communicates
  const int rank = parent.rank();
  std::uint64_t key = hash_combine(0x67726f7570636f70ULL, static_cast<std::uint64_t>(from_group));  // "groupcop"
  key = hash_combine(hash_combine(key, from.hash()), agreed[1]);
  key = hash_combine(hash_combine(hash_combine(key, hash_value(src_box)), static_cast<std::uint64_t>(to_group)), to.hash());
  key = hash_combine(hash_combine(hash_combine(key, agreed[2]), hash_value(dst_box)), static_cast<std::uint64_t>(rank));

  constexpr MoveAlgorithm algorithm = MoveAlgorithm::point_to_point;
  const std::size_t element = sizeof(T);
  const ExecutorKey executor_key(key, std::span<const std::size_t>(&element, 1), {}, static_cast<int>(algorithm));
  auto mover = agreed_executor<Mover>(
      where, groups.cache(), parent, executor_key, {from.hash(), to.hash()},
      static_cast<std::size_t>(volume(src_box)) * sizeof(T), sizeof(T),
      [&] {
        return section_move_schedule(groups.lifted(from_group, from), src ? src->ghosts() : no_ghosts<N>(), src_box,
                                     groups.lifted(to_group, to), dst ? dst->ghosts() : no_ghosts<N>(), dst_box,
                                     MotionPlan<N>::identity(), rank);
      },
      [&](std::shared_ptr<const Schedule> s) {
        return std::make_unique<Mover>(parent, std::move(s), sizeof(T), nullptr, algorithm);
      });
  const void* from_bytes = src ? remap::bytes_of(src->data()) : static_cast<const void*>(empty_storage);
  void* to_bytes = dst ? remap::bytes_of(dst->data()) : static_cast<void*>(empty_storage);
  discard_on_throw(groups.cache(), mover.get(), [&] { mover->run(from_bytes, to_bytes); });
}

}  // namespace detail::group_copy

/// Collective over `groups.parent()` (every parent rank calls it, members of neither group too):
/// copies every element of the source array into the destination array, two arrays over the same
/// global box on two different groups, with any distributions (any kind, any grid).
/// - `from_group`, `from`: the source's group and distribution (a distribution for that group's
///   ranks); `src`: the source array on the ranks of `from_group`, null on every other rank.
/// - `to_group`, `to`, `dst`: the same for the destination.
/// Every rank passes the same groups and distributions (the values: each rank builds them), so a
/// rank outside a group still knows its distribution. `T` is named (`copy_between_groups<double>`)
/// since a rank in neither group has no array to deduce it from. Ghost layers of `dst` are left
/// untouched. Throws on every rank, before anything moves: `Error(invalid_argument)` if a group
/// does not exist, the groups are the same, a distribution is for another number of ranks than
/// its group has, an array is passed on a rank outside its group or missing on a rank inside it,
/// is over a communicator that is not its group's, or has another distribution than the one
/// passed, or if the two distributions cover different boxes.
template <class T, std::size_t N>
  requires(N >= 1)
void copy_between_groups(const ProcessorGroups& groups, int from_group, const Distribution<N>& from,
                         const std::type_identity_t<DistArray<T, N>>* src, int to_group, const Distribution<N>& to,
                         std::type_identity_t<DistArray<T, N>>* dst) {
  constexpr const char* where = "copy_between_groups";
  std::optional<Error> refused;
  if (from.domain() != to.domain())
    refused = Error(ErrorCode::invalid_argument,
                    detail::concat(where, ": argument 'to' covers ", to.domain(), ", another box than 'from' (",
                                   from.domain(), "); copy_section_between_groups moves part of a box"));
  detail::group_copy::move_between_groups<T, N>(where, groups, from_group, from, src, from.domain(), to_group, to, dst,
                                                to.domain(), std::move(refused));
}

/// Collective over `groups.parent()`, as `copy_between_groups`: copies box `src_box` of the source
/// onto the box of equal extents starting at `dst_lo` in the destination (ZPL's `B[R2] := A[R1]`
/// across grids); the destination's other elements and ghosts are left untouched. Also throws,
/// on every rank, `Error(invalid_argument)` for a malformed `src_box` and `Error(out_of_range)` if
/// `src_box` is not inside the source's domain or the destination box not inside the destination's.
template <class T, std::size_t N>
  requires(N >= 1)
void copy_section_between_groups(const ProcessorGroups& groups, int from_group, const Distribution<N>& from,
                                 const std::type_identity_t<DistArray<T, N>>* src, const Box<N>& src_box, int to_group,
                                 const Distribution<N>& to, std::type_identity_t<DistArray<T, N>>* dst,
                                 const Point<N>& dst_lo) {
  Box<N> dst_box;
  for (std::size_t d = 0; d < N; ++d) {
    dst_box.lo[d] = dst_lo[d];
    dst_box.hi[d] = dst_lo[d] + std::max<index_t>(src_box.hi[d] - src_box.lo[d], 0);
  }
  detail::group_copy::move_between_groups<T, N>("copy_section_between_groups", groups, from_group, from, src, src_box,
                                                to_group, to, dst, dst_box, std::nullopt);
}

}  // namespace tessera
