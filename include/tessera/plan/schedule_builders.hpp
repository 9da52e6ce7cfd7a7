#pragma once
/// \file
/// One call per kind of data movement: build the plan for a rank, compile it against the storage
/// layouts, and keep the result in an `ExchangeCache` (optional). These are what the array layer
/// calls; they are pure (no MPI) and need no communication.
/// \code
///   tessera::ExchangeCache cache;
///   auto s = tessera::halo_schedule(dist, tessera::ghosts<2>(1), world.rank(), &cache);
///   tessera::Mover halo(world, s, sizeof(double));
/// \endcode
/// Each builder's key has a function of its own (`halo_schedule_key`, ...): the array layer finds
/// a kept mover by that key without looking the schedule up at all.

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>

#include "tessera/core/hash.hpp"
#include "tessera/plan/compile_schedule.hpp"
#include "tessera/plan/halo_plan.hpp"
#include "tessera/plan/redistribution_plan.hpp"
#include "tessera/plan/staged_halo_plan.hpp"
#include "tessera/plan/exchange_cache.hpp"

namespace tessera {

namespace detail {
enum class MoveKind : std::uint64_t {
  halo = 1,
  reverse_halo = 2,
  section_move = 3,
  in_place_migration = 4,
  gather = 5,
  scatter = 6,
  relayed_move_first = 7,
  relayed_move_relay = 8,
};

template <class Build>
std::shared_ptr<const Schedule> cached(ExchangeCache* cache, std::uint64_t key, std::initializer_list<std::uint64_t> dists,
                                       Build&& build) {
  if (!cache) return std::make_shared<const Schedule>(build());
  return cache->find_or_build(key, dists, std::forward<Build>(build));
}
}  // namespace detail

/// The key `halo_schedule` keeps its schedule under (allocates nothing).
template <std::size_t N>
[[nodiscard]] std::uint64_t halo_schedule_key(const Distribution<N>& dist, const GhostSpec<N>& g, int rank,
                                              bool reverse = false, CombineOp op = CombineOp::add) noexcept {
  std::uint64_t key = hash_combine(
      static_cast<std::uint64_t>(reverse ? detail::MoveKind::reverse_halo : detail::MoveKind::halo), dist.hash());
  key = hash_combine(hash_combine(key, g.hash()), static_cast<std::uint64_t>(rank));
  if (reverse) key = hash_combine(key, static_cast<std::uint64_t>(op));
  return key;
}

/// What a ghost exchange of arrays over `box` with ghosts `g` is charged in an `ExchangeCache`:
/// the bytes of the ghost shell of the whole box (`element_bytes` per element): the same on every
/// rank, and a bound on the shell of any rank that stores one patch (a rank with several patches,
/// under a user-defined distribution, may hold more). Not the halo bytes summed over the
/// ranks: at thousands of ranks that would pass the cache's byte bound and the mover would be made
/// anew on every update.
template <std::size_t N>
[[nodiscard]] std::size_t halo_charge(const Box<N>& box, const GhostSpec<N>& g, std::size_t element_bytes) noexcept {
  index_t inner = 1, outer = 1;
  for (std::size_t d = 0; d < N; ++d) {
    inner *= extent(box, d);
    outer *= extent(box, d) + g.lower[d] + g.upper[d];
  }
  return static_cast<std::size_t>(outer - inner) * element_bytes;
}

/// The schedule that fills `rank`'s ghost layers (reverse = false), or that combines them into
/// their owners with `op` (reverse = true).
template <std::size_t N>
[[nodiscard]] std::shared_ptr<const Schedule> halo_schedule(const Distribution<N>& dist, const GhostSpec<N>& g,
                                                            int rank, ExchangeCache* cache = nullptr,
                                                            bool reverse = false, CombineOp op = CombineOp::add) {
  return detail::cached(cache, halo_schedule_key(dist, g, rank, reverse, op), {dist.hash()}, [&] {
    if (!reverse && staged_halo_chosen(dist, g)) return *staged_halo_schedule(dist, g, rank);  // wraps, then slabs
    const auto layout = StorageLayout<N>::make(dist, rank, g);
    const auto plan = reverse ? reverse_halo_plan(dist, g, rank, op) : halo_plan(dist, g, rank);
    return compile_schedule(plan, rank, layout, layout, /*local_copies_disjoint=*/true);  // owned <-> ghosts
  });
}

/// The key `section_move_schedule` keeps its schedule under (allocates nothing).
template <std::size_t N>
[[nodiscard]] std::uint64_t section_move_schedule_key(const Distribution<N>& src, const GhostSpec<N>& src_ghosts,
                                                      const Box<N>& src_box, const Distribution<N>& dst,
                                                      const GhostSpec<N>& dst_ghosts, const Box<N>& dst_box,
                                                      const typename MotionPlan<N>::Permutation& perm,
                                                      int rank) noexcept {
  std::uint64_t key = hash_combine(static_cast<std::uint64_t>(detail::MoveKind::section_move), src.hash());
  key = hash_combine(hash_combine(key, src_ghosts.hash()), hash_value(src_box));
  key = hash_combine(hash_combine(key, dst.hash()), dst_ghosts.hash());
  key = hash_combine(key, hash_value(dst_box));
  for (int p : perm) key = hash_combine(key, static_cast<std::uint64_t>(p));
  return hash_combine(key, static_cast<std::uint64_t>(rank));
}

/// The schedule of `rank` for moving box `src_box` of an array over `src` (ghosts `src_ghosts`)
/// onto box `dst_box` of an array over `dst`, destination axis d taking source axis `perm[d]`.
template <std::size_t N>
[[nodiscard]] std::shared_ptr<const Schedule> section_move_schedule(
    const Distribution<N>& src, const GhostSpec<N>& src_ghosts, const Box<N>& src_box, const Distribution<N>& dst,
    const GhostSpec<N>& dst_ghosts, const Box<N>& dst_box, const typename MotionPlan<N>::Permutation& perm, int rank,
    ExchangeCache* cache = nullptr) {
  const std::uint64_t key = section_move_schedule_key(src, src_ghosts, src_box, dst, dst_ghosts, dst_box, perm, rank);
  return detail::cached(cache, key, {src.hash(), dst.hash()}, [&] {
    const auto plan = section_move_plan(src, src_box, dst, dst_box, perm, rank);
    return compile_schedule(plan, rank, StorageLayout<N>::make(src, rank, src_ghosts),
                            StorageLayout<N>::make(dst, rank, dst_ghosts));
  });
}

/// Which step of a relayed section move (`relayed_section_move_plans`) a schedule runs.
enum class RelayStep : std::uint8_t {
  first,  ///< from the source array into the destination: each sender's own replica, and the pieces not relayed
  relay,  ///< destination array into itself: from each sender's replica to the other replicas
};

/// The key `relayed_section_move_schedule` keeps its schedule under (allocates nothing).
template <std::size_t N>
[[nodiscard]] std::uint64_t relayed_section_move_schedule_key(RelayStep step, const Distribution<N>& src,
                                                              const GhostSpec<N>& src_ghosts, const Box<N>& src_box,
                                                              const Distribution<N>& dst,
                                                              const GhostSpec<N>& dst_ghosts, const Box<N>& dst_box,
                                                              const typename MotionPlan<N>::Permutation& perm,
                                                              int rank, index_t min_relay_elements) noexcept {
  const auto kind = step == RelayStep::first ? detail::MoveKind::relayed_move_first : detail::MoveKind::relayed_move_relay;
  const std::uint64_t key = hash_combine(static_cast<std::uint64_t>(kind), static_cast<std::uint64_t>(min_relay_elements));
  return hash_combine(key, section_move_schedule_key(src, src_ghosts, src_box, dst, dst_ghosts, dst_box, perm, rank));
}

/// The schedule of `rank` for one step of a relayed section move into a flooded destination
/// (`relayed_section_move_plans`): `first` runs from the source array into the destination,
/// `relay` from the destination array into itself, after `first` has completed. Pieces of at least
/// `min_relay_elements` elements are relayed.
template <std::size_t N>
[[nodiscard]] std::shared_ptr<const Schedule> relayed_section_move_schedule(
    RelayStep step, const Distribution<N>& src, const GhostSpec<N>& src_ghosts, const Box<N>& src_box,
    const Distribution<N>& dst, const GhostSpec<N>& dst_ghosts, const Box<N>& dst_box,
    const typename MotionPlan<N>::Permutation& perm, int rank, index_t min_relay_elements,
    ExchangeCache* cache = nullptr) {
  const std::uint64_t key = relayed_section_move_schedule_key(step, src, src_ghosts, src_box, dst, dst_ghosts,
                                                              dst_box, perm, rank, min_relay_elements);
  return detail::cached(cache, key, {src.hash(), dst.hash()}, [&] {
    const auto plans = relayed_section_move_plans(src, src_box, dst, dst_box, perm, rank, min_relay_elements);
    const auto dst_layout = StorageLayout<N>::make(dst, rank, dst_ghosts);
    if (step == RelayStep::relay) return compile_schedule(plans.relay, rank, dst_layout, dst_layout);
    return compile_schedule(plans.first, rank, StorageLayout<N>::make(src, rank, src_ghosts), dst_layout);
  });
}

/// The schedule of `rank` for redistributing a whole array from `from` to `to`.
template <std::size_t N>
[[nodiscard]] std::shared_ptr<const Schedule> redistribution_schedule(const Distribution<N>& from,
                                                                      const GhostSpec<N>& from_ghosts,
                                                                      const Distribution<N>& to,
                                                                      const GhostSpec<N>& to_ghosts, int rank,
                                                                      ExchangeCache* cache = nullptr) {
  if (from.domain() != to.domain())
    fail_argument("redistribution_schedule", "to", to.domain(),
                  detail::concat("covers another domain than the source distribution's ", from.domain()));
  return section_move_schedule(from, from_ghosts, from.domain(), to, to_ghosts, to.domain(), MotionPlan<N>::identity(),
                               rank, cache);
}

/// The schedule of `rank` for moving a whole array from `from` to `to` *in place*: source and
/// destination are one buffer addressed by global index (the rows that stay do not move, see
/// `DistArray`'s slack), so the copies a rank would make to itself are left out and only the
/// elements that change owner travel. What is sent (owned before, not after) and what is received
/// (owned after, not before) never overlap.
template <std::size_t N>
[[nodiscard]] std::shared_ptr<const Schedule> in_place_migration_schedule(const Distribution<N>& from,
                                                                          const Distribution<N>& to,
                                                                          const GhostSpec<N>& ghosts, int rank,
                                                                          ExchangeCache* cache = nullptr) {
  if (from.domain() != to.domain())
    fail_argument("in_place_migration_schedule", "to", to.domain(),
                  detail::concat("covers another domain than the source distribution's ", from.domain()));
  std::uint64_t key = hash_combine(static_cast<std::uint64_t>(detail::MoveKind::in_place_migration), from.hash());
  key = hash_combine(hash_combine(key, to.hash()), ghosts.hash());
  key = hash_combine(key, static_cast<std::uint64_t>(rank));
  return detail::cached(cache, key, {from.hash(), to.hash()}, [&] {
    const auto full = redistribution_plan(from, to, rank);
    MotionPlan<N> remote(full.permutation());
    for (const auto& c : full.copies())
      if (c.src_rank != rank || c.dst_rank != rank) remote.copy(c.src_rank, c.src, c.dst_rank, c.dst, c.src_patch, c.dst_patch);
    return compile_schedule(remote, rank, StorageLayout<N>::make(from, rank, ghosts),
                            StorageLayout<N>::make(to, rank, ghosts));
  });
}

/// "Everything on `root`" over `box`, for `comm_size` ranks: root's storage is the row-major
/// image of the box (what whole-array gathers and scatters move to and from).
template <std::size_t N>
[[nodiscard]] Distribution<N> everything_on(const Box<N>& box, int comm_size, int root) {
  std::array<DimSpec, N> specs;
  specs.fill(collapsed());
  return Distribution<N>(box, ProcGrid<N>::from_ranks(comm_size, Point<N>::filled(1), {root}), specs);
}

/// The key `gather_schedule` (`gather` true) or `scatter_schedule` keeps its schedule under
/// (allocates nothing: no "everything on root" distribution is made to find it).
template <std::size_t N>
[[nodiscard]] std::uint64_t root_schedule_key(bool gather, const Distribution<N>& dist, const GhostSpec<N>& ghosts,
                                              int root, int rank) noexcept {
  std::uint64_t key = hash_combine(
      static_cast<std::uint64_t>(gather ? detail::MoveKind::gather : detail::MoveKind::scatter), dist.hash());
  key = hash_combine(hash_combine(key, ghosts.hash()), static_cast<std::uint64_t>(root));
  return hash_combine(key, static_cast<std::uint64_t>(rank));
}

namespace detail {
/// `gather_schedule` (`gather` true) or `scatter_schedule`: between an array over `dist` and the
/// row-major image of its box on `root`, cached under `root_schedule_key`.
template <std::size_t N>
[[nodiscard]] std::shared_ptr<const Schedule> root_schedule(bool gather, const Distribution<N>& dist,
                                                            const GhostSpec<N>& ghosts, int root, int rank,
                                                            ExchangeCache* cache) {
  return cached(cache, root_schedule_key(gather, dist, ghosts, root, rank), {dist.hash()}, [&] {
    const auto image = everything_on(dist.domain(), dist.comm_size(), root);
    const auto array_layout = StorageLayout<N>::make(dist, rank, ghosts);
    const auto image_layout = StorageLayout<N>::make(image, rank, no_ghosts<N>());
    return gather ? compile_schedule(redistribution_plan(dist, image, rank), rank, array_layout, image_layout)
                  : compile_schedule(redistribution_plan(image, dist, rank), rank, image_layout, array_layout);
  });
}
}  // namespace detail

/// The schedule of `rank` for gathering a whole array over `dist` (ghosts `ghosts`) into the
/// row-major image of its box on `root`.
template <std::size_t N>
[[nodiscard]] std::shared_ptr<const Schedule> gather_schedule(const Distribution<N>& dist, const GhostSpec<N>& ghosts,
                                                              int root, int rank, ExchangeCache* cache = nullptr) {
  return detail::root_schedule(true, dist, ghosts, root, rank, cache);
}

/// The schedule of `rank` for scattering the row-major image of the box on `root` into a whole
/// array over `dist` (ghosts `ghosts`, left alone).
template <std::size_t N>
[[nodiscard]] std::shared_ptr<const Schedule> scatter_schedule(const Distribution<N>& dist, const GhostSpec<N>& ghosts,
                                                               int root, int rank, ExchangeCache* cache = nullptr) {
  return detail::root_schedule(false, dist, ghosts, root, rank, cache);
}

}  // namespace tessera
