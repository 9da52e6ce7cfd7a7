#pragma once
/// \file
/// One call per kind of data movement: build the plan for a rank, compile it against the storage
/// layouts, and keep the result in a cache (optional). These are what the array layer calls; they
/// are pure (no MPI) and need no communication.
/// \code
///   tessera::ScheduleCache cache;
///   auto s = tessera::halo_schedule(dist, tessera::ghosts<2>(1), world.rank(), &cache);
///   tessera::Mover halo(world, s, sizeof(double));
/// \endcode

#include <cstdint>
#include <initializer_list>
#include <memory>

#include "tessera/core/hash.hpp"
#include "tessera/plan/compile_schedule.hpp"
#include "tessera/plan/halo_plan.hpp"
#include "tessera/plan/redistribution_plan.hpp"
#include "tessera/plan/schedule_cache.hpp"

namespace tessera {

namespace detail {
enum class MoveKind : std::uint64_t { halo = 1, reverse_halo = 2, section_move = 3, in_place_migration = 4 };

template <class Build>
std::shared_ptr<const Schedule> cached(ScheduleCache* cache, std::uint64_t key, std::initializer_list<std::uint64_t> dists,
                                       Build&& build) {
  if (!cache) return std::make_shared<const Schedule>(build());
  return cache->find_or_build(key, dists, std::forward<Build>(build));
}
}  // namespace detail

/// The schedule that fills `rank`'s ghost layers (reverse = false), or that combines them into
/// their owners with `op` (reverse = true).
template <std::size_t N>
[[nodiscard]] std::shared_ptr<const Schedule> halo_schedule(const Distribution<N>& dist, const GhostSpec<N>& g,
                                                            int rank, ScheduleCache* cache = nullptr,
                                                            bool reverse = false, CombineOp op = CombineOp::add) {
  std::uint64_t key = hash_combine(
      static_cast<std::uint64_t>(reverse ? detail::MoveKind::reverse_halo : detail::MoveKind::halo), dist.hash());
  key = hash_combine(hash_combine(key, g.hash()), static_cast<std::uint64_t>(rank));
  if (reverse) key = hash_combine(key, static_cast<std::uint64_t>(op));
  return detail::cached(cache, key, {dist.hash()}, [&] {
    const auto layout = StorageLayout<N>::make(dist, rank, g);
    const auto plan = reverse ? reverse_halo_plan(dist, g, rank, op) : halo_plan(dist, g, rank);
    return compile_schedule(plan, rank, layout, layout, /*local_copies_disjoint=*/true);  // owned <-> ghosts
  });
}

/// The schedule of `rank` for moving box `src_box` of an array over `src` (ghosts `src_ghosts`)
/// onto box `dst_box` of an array over `dst`, destination axis d taking source axis `perm[d]`.
template <std::size_t N>
[[nodiscard]] std::shared_ptr<const Schedule> section_move_schedule(
    const Distribution<N>& src, const GhostSpec<N>& src_ghosts, const Box<N>& src_box, const Distribution<N>& dst,
    const GhostSpec<N>& dst_ghosts, const Box<N>& dst_box, const typename MotionPlan<N>::Permutation& perm, int rank,
    ScheduleCache* cache = nullptr) {
  std::uint64_t key = hash_combine(static_cast<std::uint64_t>(detail::MoveKind::section_move), src.hash());
  key = hash_combine(hash_combine(key, src_ghosts.hash()), hash_value(src_box));
  key = hash_combine(hash_combine(key, dst.hash()), dst_ghosts.hash());
  key = hash_combine(key, hash_value(dst_box));
  for (int p : perm) key = hash_combine(key, static_cast<std::uint64_t>(p));
  key = hash_combine(key, static_cast<std::uint64_t>(rank));
  return detail::cached(cache, key, {src.hash(), dst.hash()}, [&] {
    const auto plan = section_move_plan(src, src_box, dst, dst_box, perm, rank);
    return compile_schedule(plan, rank, StorageLayout<N>::make(src, rank, src_ghosts),
                            StorageLayout<N>::make(dst, rank, dst_ghosts));
  });
}

/// The schedule of `rank` for redistributing a whole array from `from` to `to`.
template <std::size_t N>
[[nodiscard]] std::shared_ptr<const Schedule> redistribution_schedule(const Distribution<N>& from,
                                                                      const GhostSpec<N>& from_ghosts,
                                                                      const Distribution<N>& to,
                                                                      const GhostSpec<N>& to_ghosts, int rank,
                                                                      ScheduleCache* cache = nullptr) {
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
                                                                          ScheduleCache* cache = nullptr) {
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

}  // namespace tessera
