#pragma once
// Copy kernels of the Mover: packing a schedule's blocks into message buffers, unpacking them,
// and copying blocks within a rank. Internal to the library (src/exchange); the Mover and any
// other executor of schedules (fused movers, benchmarks of the kernels) share them.

#include <cstddef>

#include "tessera/plan/combine_op.hpp"
#include "tessera/plan/schedule.hpp"

namespace tessera::detail {

/// Packs the blocks [first, last) of one peer (or one local copy) from `array` into `buffer`;
/// returns the bytes written.
std::size_t pack(const Schedule& s, const Block* first, const Block* last, const std::byte* array, std::byte* buffer,
                 std::size_t es);

/// Unpacks `buffer` into the blocks [first, last) of `array`, replacing (combine == nullptr) or
/// combining.
void unpack_blocks(const Schedule& s, const Block* first, const Block* last, std::byte* array, const std::byte* buffer,
                   std::size_t es, CombineFn combine);

/// Copies block `sb` of `src` onto block `db` of `dst` directly (same volume, enumerated in the
/// same order), walking both in lockstep; the blocks must not overlap.
void copy_local_direct(const Schedule& s, const Block& sb, const Block& db, const std::byte* src, std::byte* dst,
                       std::size_t es, CombineFn combine);

/// True if the rank-local copies of `s` from `src` into `dst` may read what another writes (the
/// same array, and a schedule that does not promise disjoint copies): then they need staging.
bool local_copies_need_staging(const Schedule& s, const void* src, const void* dst) noexcept;

/// Runs every rank-local copy of `s` from `src` into `dst`: directly when none can read what
/// another writes, otherwise all read into `staging` (s.local_elements() * es bytes) first and
/// then all written, so that overlapping copies behave as if they happened at once.
void copy_locals(const Schedule& s, const std::byte* src, std::byte* dst, std::size_t es, CombineFn combine,
                 std::byte* staging);

}  // namespace tessera::detail
