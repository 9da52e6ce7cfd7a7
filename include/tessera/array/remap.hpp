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
/// Regular remaps (`copy`, `copy_section`, `transpose`) compile a section-move schedule and run it
/// through a `Mover`, both kept in the destination domain's exchange cache (`Domain::cache()`):
/// after the first call with the same arrays, a remap is one lookup, allocates nothing and reuses
/// the mover's buffers. Index-array remaps (`gather`, `scatter`) are irregular and follow PARTI's
/// inspector/executor idea: the inspector exchanges the requested points with their owners once
/// and builds a `Schedule` of element offsets (plan/index_schedule.hpp); the executor is a `Mover`
/// like every other movement. Plan and mover are kept together in the same cache, so a repeated
/// call with unchanged index values and distributions only hashes its index values, agrees on the
/// key in one small allreduce, and runs the mover.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <numeric>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "tessera/array/dist_array.hpp"
#include "tessera/array/domain.hpp"
#include "tessera/core/error.hpp"
#include "tessera/exchange/collective_check.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/exchange/kept_mover.hpp"
#include "tessera/exchange/mover.hpp"
#include "tessera/plan/combine_op.hpp"
#include "tessera/plan/index_schedule.hpp"
#include "tessera/plan/exchange_cache.hpp"
#include "tessera/plan/motion_plan.hpp"
#include "tessera/plan/schedule_builders.hpp"
#include "tessera/plan/storage_layout.hpp"

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
/// perm[d]); arguments already checked. When both are the same array and the boxes overlap, the
/// mover's in-place sends and receives could read an element after a receive overwrote it, so the
/// source is first staged in a copy of this rank's storage (same layout, so no communication is
/// needed for that): that copy is allocated on every such call, and the ranks agree that each had
/// it (one small allreduce) before anything moves. Disjoint boxes of one array need no copy: every
/// element read is one no receive writes. `where` names the caller in errors.
template <class T, std::size_t N>
void move_section(const char* where, const DistArray<T, N>& src, const Box<N>& src_box, DistArray<T, N>& dst, const Box<N>& dst_box,
                  const typename MotionPlan<N>::Permutation& perm) {
  if (src_box.empty()) return;  // every rank sees the same boxes: nobody communicates
  const Domain<N>& dom = dst.domain();
  const Distribution<N>& from = src.distribution();
  const Distribution<N>& to = dst.distribution();
  const int rank = dom.rank();
  // Schedule and mover are kept in the destination domain's cache: a repeated remap reuses the
  // mover's buffers and datatypes and allocates nothing. Charged the bytes of the moved section.
  // Into a flooded array the move takes two steps (relayed_section_move_plans): a sender that holds
  // a replica fills it, then sends pieces of kMinRelayBytes or more that have two or more other
  // replicas from it instead of packing the source again for each. Smaller pieces go directly: in
  // the two-build bench_flood experiments (bench/flood-relay-experiment.txt, not make bench records)
  // a second step for 32 KiB pieces cost more than the pack it saved.
  constexpr std::size_t kMinRelayBytes = std::size_t{64} << 10;
  const auto min_relay = static_cast<index_t>((kMinRelayBytes + sizeof(T) - 1) / sizeof(T));
  const auto run_relayed = [&](const void* from_bytes) {
    const std::size_t charge = static_cast<std::size_t>(volume(src_box)) * sizeof(T);
    for (const RelayStep step : {RelayStep::first, RelayStep::relay}) {
      const bool relay = step == RelayStep::relay;
      run_kept(where, dom.cache(), dom.comm(),
               relayed_section_move_schedule_key(step, from, src.ghosts(), src_box, to, dst.ghosts(), dst_box, perm,
                                                 rank, min_relay),
               {from.hash(), to.hash()}, sizeof(T), nullptr, charge,
               [&] {
                 return relayed_section_move_schedule(step, from, src.ghosts(), src_box, to, dst.ghosts(), dst_box,
                                                      perm, rank, min_relay, &dom.cache());
               },
               relay ? bytes_of(std::as_const(dst).data()) : from_bytes, bytes_of(dst.data()));
    }
  };
  const auto run = [&](const void* from_bytes) {
    // Fewer than three replicas per element: nothing can be relayed (relayed_section_move_plans),
    // so the one-step plan runs alone, without an empty second mover on every call.
    index_t replicas = 1;
    for (std::size_t d = 0; d < N; ++d)
      if (to.flooded(d)) replicas *= to.grid().extent(d);
    if (replicas >= 3) return run_relayed(from_bytes);
    run_kept(where, dom.cache(), dom.comm(),
             section_move_schedule_key(from, src.ghosts(), src_box, to, dst.ghosts(), dst_box, perm, rank),
             {from.hash(), to.hash()}, sizeof(T), nullptr, static_cast<std::size_t>(volume(src_box)) * sizeof(T),
             [&] {
               return section_move_schedule(from, src.ghosts(), src_box, to, dst.ghosts(), dst_box, perm, rank,
                                            &dom.cache());
             },
             from_bytes, bytes_of(dst.data()));
  };
  if (static_cast<const void*>(&src) == static_cast<const void*>(&dst) && intersects(src_box, dst_box)) {
    run_from_staged_copy(dom.comm(), where, src.storage(), [&](const T* staged) { run(bytes_of(staged)); });
  } else {
    run(bytes_of(src.data()));
  }
}

/// Row-major linear index of `p` in `box` (p must lie in it).
template <std::size_t M>
[[nodiscard]] index_t linear_index(const Box<M>& box, const Point<M>& p) noexcept {
  index_t k = 0;
  for (std::size_t d = 0; d < M; ++d) k = k * (box.hi[d] - box.lo[d]) + (p[d] - box.lo[d]);
  return k;
}

/// Runs `step`, local to this rank, then agrees in one small allreduce that it succeeded on every
/// rank: the inspector of an index remap allocates between its exchanges, and a rank whose
/// allocation failed must not leave the others waiting in the next one (`capture_failure`).
template <class Step>
void agreed_local_step(const Communicator& comm, const char* where, std::string_view what, Step&& step) {
  std::optional<Error> failed;
  capture_failure(failed, comm, where, 0, what, std::forward<Step>(step));
  comm.agree(failed);
}

/// `comm.alltoallv(items, counts, &received)`, whose errors (the same on every rank: it agrees on its
/// byte counts and its receive buffer before exchanging) name `where` first.
template <class T>
[[nodiscard]] std::vector<T> named_alltoallv(const char* where, const Communicator& comm, std::span<const T> items,
                                             std::span<const int> counts, std::vector<int>& received) {
  try {
    return comm.alltoallv<T>(items, counts, &received);
  } catch (const Error& e) {
    throw Error(e.code(), concat(where, ": ", e.what()));
  }
}

/// Every rank's owned entries of `index` in the order `for_each_owned` visits them, after checking
/// that each lies in `target`. If any does not, every rank throws `Error(out_of_range)` with the
/// message of the lowest rank that has a bad entry, naming its first one (`Communicator::agree`);
/// if the list cannot be allocated on some rank, every rank throws `Error(out_of_memory)`.
template <std::size_t N, std::size_t M>
[[nodiscard]] std::vector<std::pair<Point<M>, Point<N>>> checked_indices(const char* where,
                                                                         const DistArray<Point<N>, M>& index,
                                                                         const Box<N>& target) {
  std::vector<std::pair<Point<M>, Point<N>>> out;
  std::optional<Error> bad;
  const Communicator& comm = index.domain().comm();
  capture_failure(bad, comm, where, 0, "the list of the index array's entries", [&] {
    index.for_each_owned([&](const Point<M>& i, const Point<N>& p) {
      if (!bad && !contains(target, p))
        bad.emplace(ErrorCode::out_of_range, concat(where, ": argument 'index' has index(", i, ") = ", p,
                                                    ", which is not in the domain ", target, " it indexes"));
      out.emplace_back(i, p);
    });
  });
  comm.agree(bad);
  return out;
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

/// Calls `visit(offset)` with the storage offset of every element `layout` owns, patch by patch in
/// row-major order (the order of `DistArray::for_each_owned`), allocating nothing: a repeated
/// remap hashes its index values this way.
template <std::size_t N, class Visit>
void for_each_owned_offset(const StorageLayout<N>& layout, Visit&& visit) {
  if (layout.custom()) return layout.for_each_custom_owned([&](const Point<N>&, index_t offset) { visit(offset); });
  for (const PatchLayout<N>& patch : layout.patches()) {
    bool empty = false;
    for (std::size_t d = 0; d < N; ++d) empty = empty || patch.axes[d].count == 0;
    if (empty) continue;
    std::array<index_t, N> at{};
    for (bool more = true; more;) {
      index_t offset = patch.offset;
      for (std::size_t d = 0; d < N; ++d) offset += (patch.axes[d].ghost_lo + at[d]) * patch.strides[d];
      visit(offset);
      more = false;
      for (std::size_t d = N; d-- > 0 && !more;) {
        more = ++at[d] < patch.axes[d].count;
        if (!more) at[d] = 0;
      }
    }
  }
}

/// Storage offsets of the elements this rank owns, in `for_each_owned` order (arrays over equal
/// distributions visit the same points in the same order, whatever their ghost layers).
template <class T, std::size_t M>
[[nodiscard]] std::vector<index_t> owned_offsets(const DistArray<T, M>& a) {
  std::vector<index_t> out;
  for_each_owned_offset(a.layout(), [&](index_t offset) { out.push_back(offset); });
  return out;
}

/// Storage offset of `p`, which this rank owns.
template <class T, std::size_t N>
[[nodiscard]] index_t offset_of(const DistArray<T, N>& a, const Point<N>& p) {
  return static_cast<index_t>(&a.at(p) - a.data());
}

/// This rank's part of the key of an index remap (see `kept_index_remap`): everything its part of
/// the plan depends on besides the other ranks' index values. `kind` tells gather from
/// scatter; `arrays` names the (distribution, ghosts) of the arrays whose offsets the plan holds.
template <std::size_t N, std::size_t M>
[[nodiscard]] std::uint64_t index_plan_key(std::uint64_t kind, const DistArray<Point<N>, M>& index,
                                           std::initializer_list<std::uint64_t> arrays) {
  const Communicator& comm = index.domain().comm();
  std::uint64_t key = hash_combine(hash_combine(kind, static_cast<std::uint64_t>(comm.size())),
                                   static_cast<std::uint64_t>(comm.rank()));
  key = hash_combine(key, index.distribution().hash());
  for (std::uint64_t h : arrays) key = hash_combine(key, h);
  const Point<N>* values = index.data();
  for_each_owned_offset(index.layout(), [&](index_t offset) { key = hash_combine(key, hash_value(values[offset])); });
  return key;
}

/// This rank's index entries grouped by the rank that owns their target (see `grouped_requests`).
template <std::size_t N, std::size_t M>
struct GroupedRequests {
  std::vector<std::pair<Point<M>, Point<N>>> entries;  ///< (i, index(i))
  std::vector<index_t> beside_offsets;                 ///< storage offset of element i of `beside`
  std::vector<int> counts;                             ///< entries whose index(i) rank r owns, per rank
};

/// This rank's index entries (i, index(i)) (`checked_indices`), grouped by the rank that owns
/// index(i) in `target` (each group in `for_each_owned` order), with the storage offset of element
/// i of `beside` (an array over the distribution of `index`) for each. Local: allocates, does not
/// communicate.
template <class T, std::size_t N, std::size_t M>
[[nodiscard]] GroupedRequests<N, M> grouped_requests(const std::vector<std::pair<Point<M>, Point<N>>>& entries,
                                                     const Communicator& comm, const Distribution<N>& target,
                                                     const DistArray<T, M>& beside) {
  const auto offsets = owned_offsets(beside);  // the same points in the same order (equal distributions)
  GroupedRequests<N, M> out;
  const auto order = group_by_owner(
      entries.size(), comm.size(), [&](std::size_t k) { return target.owner(entries[k].second); }, out.counts);
  out.entries.reserve(order.size());
  out.beside_offsets.reserve(order.size());
  for (const std::size_t k : order) {
    out.entries.push_back(entries[k]);
    out.beside_offsets.push_back(offsets[k]);
  }
  return out;
}

/// What the inspection of one index remap leaves on a rank.
struct IndexPlan {
  /// gather: src storage -> dst storage; scatter: values storage -> the staging buffer.
  std::shared_ptr<const Schedule> schedule;
  /// scatter: the dst offsets the staged elements are applied to, staged element k onto the k-th
  /// offset these runs enumerate (the staging order is the order of application).
  std::vector<Section1> apply;
  /// scatter: elements staged on this rank.
  index_t staged = 0;
};

/// Inspector of `gather`: the schedule that sends each owner's `src` elements straight into the
/// `dst` offsets of the ranks that asked for them (one all-to-all of the requested points). Every
/// exchange is preceded by an agreement that each rank allocated what it needed; what it allocates
/// after the last one, the caller agrees on (`kept_index_remap`).
template <class T, std::size_t N, std::size_t M>
[[nodiscard]] IndexPlan inspect_gather(const char* where, const DistArray<T, N>& src,
                                       const DistArray<Point<N>, M>& index, const DistArray<T, M>& dst) {
  const Communicator& comm = dst.domain().comm();
  const auto entries = checked_indices(where, index, src.distribution().domain());
  GroupedRequests<N, M> requests;
  std::vector<Point<N>> asked;
  agreed_local_step(comm, where, "the requests of the index remap", [&] {
    requests = grouped_requests(entries, comm, src.distribution(), dst);
    asked.resize(requests.entries.size());
    for (std::size_t j = 0; j < asked.size(); ++j) asked[j] = requests.entries[j].second;
  });
  // Owners learn which of their points are wanted, grouped by the rank that wants them, in the
  // order that rank will receive them (into dst at `beside_offsets`).
  std::vector<int> arrived;
  const auto wanted = named_alltoallv<Point<N>>(where, comm, asked, requests.counts, arrived);
  std::vector<index_t> send_from(wanted.size());
  for (std::size_t j = 0; j < wanted.size(); ++j) send_from[j] = offset_of(src, wanted[j]);
  IndexPlan plan;
  plan.schedule = std::make_shared<const Schedule>(
      index_schedule(comm.rank(), send_from, arrived, requests.beside_offsets, requests.counts));
  return plan;
}

/// Inspector of `scatter`: the schedule that sends each value to the owner of its target, into a
/// staging buffer there in the order the values must be applied (increasing row-major index of i
/// in `values`' box), and the target offsets in that order.
template <class T, std::size_t N, std::size_t M>
[[nodiscard]] IndexPlan inspect_scatter(const char* where, const DistArray<T, M>& values,
                                        const DistArray<Point<N>, M>& index, const DistArray<T, N>& dst) {
  struct Item {
    Point<N> at;
    index_t order;  // row-major linear index of i: the order in which hits on one point apply
  };
  static_assert(sizeof(Item) == (N + 1) * sizeof(index_t), "no padding on the wire");
  const Communicator& comm = dst.domain().comm();
  const auto entries = checked_indices(where, index, dst.distribution().domain());
  GroupedRequests<N, M> requests;
  std::vector<Item> items;
  agreed_local_step(comm, where, "the requests of the index remap", [&] {
    requests = grouped_requests(entries, comm, dst.distribution(), values);
    const Box<M>& ibox = index.domain().box();
    items.resize(requests.entries.size());
    for (std::size_t j = 0; j < items.size(); ++j)
      items[j] = Item{requests.entries[j].second, linear_index(ibox, requests.entries[j].first)};
  });
  std::vector<int> arrived;
  const auto got = named_alltoallv<Item>(where, comm, items, requests.counts, arrived);
  // Stage in the order of application: then applying is one pass over the staging buffer.
  std::vector<std::size_t> by_order(got.size());
  std::iota(by_order.begin(), by_order.end(), std::size_t{0});
  std::sort(by_order.begin(), by_order.end(),
            [&](std::size_t a, std::size_t b) { return got[a].order < got[b].order; });
  std::vector<index_t> stage_at(got.size()), apply_to(got.size());
  for (std::size_t k = 0; k < by_order.size(); ++k) {
    stage_at[by_order[k]] = static_cast<index_t>(k);
    apply_to[k] = offset_of(dst, got[by_order[k]].at);
  }
  IndexPlan plan;
  plan.schedule = std::make_shared<const Schedule>(
      index_schedule(comm.rank(), requests.beside_offsets, requests.counts, stage_at, arrived));
  append_offset_runs(apply_to, plan.apply);
  plan.staged = static_cast<index_t>(got.size());
  return plan;
}

/// What one index remap keeps in the destination domain's exchange cache: the inspected plan, the
/// mover that runs it and the buffer it stages elements in (made with it at its full size, so that
/// a call allocates nothing after the agreement).
struct IndexRemap final : CachedExecutor {
  IndexRemap(IndexPlan inspected, Mover made, std::size_t staging_bytes)
      : plan(std::move(inspected)), mover(std::move(made)), scratch(std::max(staging_bytes, std::size_t{1})) {}
  [[nodiscard]] bool busy() const noexcept override { return mover.in_flight(); }
  /// At least `bytes` bytes (never null), valid until the next call.
  [[nodiscard]] std::byte* staging(std::size_t bytes) {
    scratch.resize(std::max({scratch.size(), bytes, std::size_t{1}}));  // grows only
    return scratch.data();
  }

  IndexPlan plan;
  Mover mover;
  std::vector<std::byte> scratch;
};

/// Collective (one allreduce; on a miss, every rank inspects): the index remap kept in `cache` for
/// this call, or the one `inspect()` plans, kept there. One rank's plan depends on every rank's
/// index values (a rank sends what the others ask of it), so no rank can tell alone whether its
/// plan still holds: the ranks sum their local keys (`index_plan_key`) in one allreduce, and that
/// sum, the same everywhere, is the cache key. Then the cache hits or misses alike on every rank,
/// as for every other movement. Trusts 64-bit hashes not to collide, as the cache does.
/// A miss agrees on its allocations as `agreed_executor` says (the inspector agrees before each of
/// its own exchanges): an allocation that fails on one rank is `Error(out_of_memory)` on every rank
/// before any value moves. `staging_bytes(plan)`: the staging buffer the remap needs, made with it.
template <class Inspect, class StagingBytes>
[[nodiscard]] ExecutorHandle<IndexRemap> kept_index_remap(const char* where, ExchangeCache& cache,
                                                          const Communicator& comm, std::uint64_t local_key,
                                                          std::initializer_list<std::uint64_t> distributions,
                                                          std::size_t element_size, std::size_t charge,
                                                          Inspect&& inspect, StagingBytes&& staging_bytes) {
  std::uint64_t agreed = local_key;  // unsigned: the sum wraps
  comm.allreduce(std::span<std::uint64_t>(&agreed, 1), ReduceOp::sum);
  const ExecutorKey key(agreed, std::span<const std::size_t>(&element_size, 1));
  std::optional<IndexPlan> inspected;
  return agreed_executor<IndexRemap>(
      where, cache, comm, key, distributions, charge, element_size,
      [&] {
        inspected = inspect();
        return inspected->schedule;
      },
      [&](std::shared_ptr<const Schedule> s) {
        Mover mover(comm, std::move(s), element_size);  // has its tag even if the allocations below fail
        const std::size_t bytes = staging_bytes(*inspected);
        return std::make_unique<IndexRemap>(std::move(*inspected), std::move(mover), bytes);
      });
}

}  // namespace detail::remap

/// Collective: copies every element of `src` into `dst`, two arrays over the same global box with
/// possibly different distributions (a redistribution between arrays, ZPL's `B := A` across
/// distributions). Ghost layers of `dst` are left untouched. The schedule is cached in `dst`'s
/// domain. Throws `Error(invalid_argument)` on every rank, before anything moves, if the domains'
/// boxes differ or they are not over the same `Communicator` object.
template <class T, std::size_t N>
requires(N >= 1) void copy(const DistArray<T, N>& src, DistArray<T, N>& dst) {
  constexpr const char* where = "copy";
  const auto checked =
      detail::check_collective(src.domain().comm(), where, src.collective_identity(), dst.collective_identity());
  detail::remap::check_same_comm(where, "dst", src.domain(), dst.domain());
  if (src.domain().box() != dst.domain().box())
    fail_argument(where, "dst", dst.domain().box(),
                  detail::concat("is over another box than the source's ", src.domain().box()));
  detail::remap::move_section(where, src, src.domain().box(), dst, dst.domain().box(), MotionPlan<N>::identity());
}

/// Collective: copies box `src_box` of `src` onto the box of equal extents starting at `dst_lo` in
/// `dst` (ZPL's shifted and zoom copies, `B[R2] := A[R1]`). Ghost layers of `dst` and its elements
/// outside that box are left untouched. `src` and `dst` may be the same array, with overlapping
/// boxes: the result is as if every element were read before any is written. Throws on every rank,
/// before anything moves: `Error(invalid_argument)` for a malformed `src_box` or arrays over
/// different `Communicator` objects, `Error(out_of_range)` if `src_box` is not inside `src`'s
/// domain or the destination box is not inside `dst`'s.
template <class T, std::size_t N>
requires(N >= 1) void copy_section(const DistArray<T, N>& src, const Box<N>& src_box, DistArray<T, N>& dst,
                                   const Point<N>& dst_lo) {
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
  detail::remap::move_section(where, src, src_box, dst, dst_box, MotionPlan<N>::identity());
}

/// Collective: the axis permutation of a whole array (ZPL's `A := B#[Index2, Index1]` for N = 2 and
/// perm {1, 0}): dst(q) = src(p) with q[d] - dst.lo[d] = p[perm[d]] - src.lo[perm[d]], where lo are
/// the low corners of the domains' boxes. `src` and `dst` may be the same array (a square
/// transpose in place). Ghost layers of `dst` are left untouched. Throws `Error(invalid_argument)`
/// on every rank, before anything moves, if `perm` is not a permutation of 0..N-1, `dst`'s box
/// extents are not `src`'s permuted (extent d of dst == extent perm[d] of src), or the arrays are
/// over different `Communicator` objects.
template <class T, std::size_t N>
requires(N >= 1) void transpose(const DistArray<T, N>& src, DistArray<T, N>& dst, const std::array<int, N>& perm) {
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
                    detail::concat("has extent ", extent(db, d), " along axis ", d, " but the source box ", sb, " has ",
                                   extent(sb, s), " along axis perm[", d, "] = ", s));
  }
  detail::remap::move_section(where, src, sb, dst, db, perm);
}

/// Collective: ZPL's general remap `B := A#[I]`: dst(i) = src(index(i)) for every i in `dst`'s
/// domain, with arbitrary (irregular, many-to-one, all-to-all) index values. `index` and `dst` must
/// be over the same box with equal distributions; `src` may be over any domain of the same
/// `Communicator` and may be `dst` itself (every value is read before any is written). Ghosts of
/// `dst` are left untouched.
///
/// Cost: the first call inspects (each rank sends its requested points to their owners: one
/// all-to-all of counts and one of points) and keeps the plan; then owners send the values straight
/// into `dst`'s storage, one message per peer, through a `Mover` kept in `dst`'s domain. A later
/// call with the same index values and distributions reuses both: it hashes this rank's index
/// values, agrees in one small allreduce, and runs the mover, allocating nothing. Throws on every
/// rank, before any value moves: `Error(invalid_argument)` for mismatched arrays,
/// `Error(out_of_range)` naming the first bad entry of the lowest rank holding one if an index
/// value is outside `src`'s domain.
template <class T, std::size_t N, std::size_t M>
requires(N >= 1 && M >= 1) void gather(const DistArray<T, N>& src, const DistArray<Point<N>, M>& index,
                                       DistArray<T, M>& dst) {
  constexpr const char* where = "gather";
  const auto checked = detail::check_collective(src.domain().comm(), where, src.collective_identity(),
                                                index.collective_identity(), dst.collective_identity());
  detail::remap::check_same_comm(where, "index", src.domain(), index.domain());
  detail::remap::check_same_comm(where, "dst", src.domain(), dst.domain());
  if (!(index.distribution() == dst.distribution()))
    fail_argument(where, "dst", dst.distribution(),
                  detail::concat("must have the distribution of 'index', ", index.distribution()));
  const Domain<M>& dom = dst.domain();
  // Gathering into the source itself needs a staging copy of the source (below), made with the
  // remap: whether src is dst is part of the key.
  const bool in_place = static_cast<const void*>(&src) == static_cast<const void*>(&dst);
  const std::uint64_t key = detail::remap::index_plan_key(
      1, index, {src.distribution().hash(), src.ghosts().hash(), dst.ghosts().hash(), in_place ? 1u : 0u});
  auto remap = detail::remap::kept_index_remap(
      where, dom.cache(), dom.comm(), key, {src.distribution().hash(), dst.distribution().hash()}, sizeof(T),
      static_cast<std::size_t>(volume(dom.box())) * sizeof(T),
      [&] { return detail::remap::inspect_gather(where, src, index, dst); },
      [&](const detail::remap::IndexPlan&) { return in_place ? src.storage().size_bytes() : std::size_t{0}; });
  const void* from = detail::remap::bytes_of(src.data());
  if (in_place) {
    // The mover's in-place sends could read an element a receive already overwrote: stage the
    // source (this rank's storage, same layout, so no communication is needed for that).
    const std::size_t bytes = src.storage().size_bytes();
    std::byte* staged = remap->staging(bytes);
    if (bytes > 0) std::memcpy(staged, src.data(), bytes);
    from = staged;
  }
  detail::discard_on_throw(dom.cache(), remap.get(),
                           [&] { remap->mover.run(from, detail::remap::bytes_of(dst.data())); });
}

/// Collective: ZPL's remap on the left, `A#[I] := V`: dst(index(i)) = op(dst(index(i)), values(i))
/// for every i in `values`' domain (replace: dst(index(i)) = values(i)). Where several i hit one
/// point, their values are applied in increasing row-major order of i in `values`' domain box
/// (whatever the distributions), so with `replace` the one with the highest linear index wins,
/// and with `add` the rounding is the same for every distribution. Points no i hits keep their
/// values; so do ghost layers. `index` and `values` must be over the same box with equal
/// distributions; `dst` may be over any domain of the same `Communicator`.
///
/// Cost: the first call inspects (each rank sends (point, order) items to the points' owners: one
/// all-to-all of counts and one of items) and keeps the plan; then each value travels to the
/// owner of its target into a staging buffer, one message per peer, through a `Mover` kept in
/// `dst`'s domain, and the owner applies the staged values in order. A later call with the same
/// index values and distributions reuses both: it hashes this rank's index values, agrees in one
/// small allreduce, moves and applies, allocating nothing. Throws on every rank, before any value
/// moves: `Error(invalid_argument)` for mismatched arrays or an `op` T does not support,
/// `Error(out_of_range)` naming the first bad entry of the lowest rank holding one if an index
/// value is outside `dst`'s domain.
template <class T, std::size_t N, std::size_t M>
requires(N >= 1 && M >= 1) void scatter(const DistArray<T, M>& values, const DistArray<Point<N>, M>& index,
                                        DistArray<T, N>& dst, CombineOp op = CombineOp::replace) {
  constexpr const char* where = "scatter";
  const auto checked = detail::check_collective(dst.domain().comm(), where, values.collective_identity(),
                                                index.collective_identity(), dst.collective_identity(), op);
  detail::remap::check_same_comm(where, "index", dst.domain(), index.domain());
  detail::remap::check_same_comm(where, "values", dst.domain(), values.domain());
  if (!(index.distribution() == values.distribution()))
    fail_argument(where, "values", values.distribution(),
                  detail::concat("must have the distribution of 'index', ", index.distribution()));
  // Each replica of flooded values would send its values again; a flooded dst would get them in one
  // replica only.
  constexpr const char* flooded_why =
      "has a flooded axis: an index scatter writes each element once (scatter into an unflooded array, then "
      "copy it into the flooded one)";
  if (values.distribution().is_flooded()) fail_argument(where, "values", values.distribution(), flooded_why);
  if (dst.distribution().is_flooded()) fail_argument(where, "dst", dst.distribution(), flooded_why);
  CombineFn combine = nullptr;
  if (op != CombineOp::replace) {
    try {
      combine = combine_function<T>(op);
    } catch (const Error&) {
      fail_argument(where, "op", to_string(op), "is not defined for this element type");
    }
    if (combine == nullptr) fail_argument(where, "op", static_cast<int>(op), "is not a tessera::CombineOp");
  }
  const Domain<N>& dom = dst.domain();
  const std::uint64_t key =
      detail::remap::index_plan_key(2, index, {values.ghosts().hash(), dst.distribution().hash(), dst.ghosts().hash()});
  const std::size_t es = sizeof(T);
  auto remap = detail::remap::kept_index_remap(
      where, dom.cache(), dom.comm(), key, {values.distribution().hash(), dst.distribution().hash()}, es,
      static_cast<std::size_t>(volume(values.domain().box())) * es,
      [&] { return detail::remap::inspect_scatter(where, values, index, dst); },
      [&](const detail::remap::IndexPlan& plan) { return static_cast<std::size_t>(plan.staged) * es; });
  const detail::remap::IndexPlan& plan = remap->plan;
  std::byte* staged = remap->staging(static_cast<std::size_t>(plan.staged) * es);
  detail::discard_on_throw(dom.cache(), remap.get(),
                           [&] { remap->mover.run(detail::remap::bytes_of(values.data()), staged); });
  // Apply in staging order, which is the order of i: a stretch of consecutive targets at once.
  auto* out = reinterpret_cast<std::byte*>(dst.data());
  std::size_t at = 0;
  for_each_offset_stretch(plan.apply, [&](index_t first, index_t count) {
    const auto n = static_cast<std::size_t>(count);
    if (combine)
      combine(out + static_cast<std::size_t>(first) * es, staged + at * es, count);
    else
      std::memcpy(out + static_cast<std::size_t>(first) * es, staged + at * es, n * es);
    at += n;
  });
}

}  // namespace tessera
