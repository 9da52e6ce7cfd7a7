#pragma once
/// \file
/// PARTI's regular section move between blocks of a multiblock domain: box `src_box` of block
/// `src_block` of one array onto box `dst_box` of block `dst_block` of another (or the same), with
/// an orientation (axes permuted and reversed: `dst` offset = orientation applied to `src` offset,
/// each box's lower corner going where the flips say, as `OrientedMap::onto`). One rank's schedule,
/// built without communication: its receives from its own boxes of the destination, its sends from
/// its own boxes of the source, both listed in one canonical order.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <tuple>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/core/hash.hpp"
#include "tessera/layout/multiblock.hpp"
#include "tessera/plan/compile_schedule.hpp"
#include "tessera/plan/multiblock_plan.hpp"
#include "tessera/plan/schedule_builders.hpp"

namespace tessera {

/// One end of a section move: a box of a block (block coordinates).
template <std::size_t N>
struct BlockSection {
  std::size_t block = 0;
  Box<N> box;
};

/// Throws `Error` unless `src` and `dst` are boxes inside their blocks (`out_of_range`) whose
/// extents agree under `o` (`invalid_argument`).
template <std::size_t N>
void check_section_move(const MultiblockLayout<N>& mb, const BlockSection<N>& src, const BlockSection<N>& dst,
                        const Orientation<N>& o) {
  for (const auto* s : {&src, &dst}) {
    const char* which = s == &src ? "source" : "destination";
    if (s->block >= mb.block_count())
      fail(ErrorCode::out_of_range, "multiblock section move: the ", which, " names block ", s->block, ", but there are ",
           mb.block_count(), " blocks");
    if (!contains(mb.block_box(s->block), s->box))
      fail(ErrorCode::out_of_range, "multiblock section move: the ", which, " box ", s->box, " is not inside block ",
           s->block, " ", mb.block_box(s->block));
  }
  for (std::size_t d = 0; d < N; ++d)
    if (extent(dst.box, d) != extent(src.box, o.source_axis(d)))
      fail(ErrorCode::invalid_argument, "multiblock section move: the destination box ", dst.box, " has ",
           extent(dst.box, d), " points along axis ", d, " but the source box ", src.box, " has ",
           extent(src.box, o.source_axis(d)), " along axis ", o.source_axis(d), ", which the orientation lays onto it");
}

/// The copies of a section move that involve `rank` (interface copies with side 0: the caller
/// orients destinations with `o`), canonically ordered.
template <std::size_t N>
[[nodiscard]] std::vector<InterfaceCopy<N>> section_move_copies(const MultiblockLayout<N>& mb, const BlockSection<N>& src,
                                                                const BlockSection<N>& dst, const Orientation<N>& o,
                                                                int rank) {
  const BoxSet<N>& set = mb.embedded_set();
  const Box<N> from = shift(src.box, mb.offset(src.block)), to = shift(dst.box, mb.offset(dst.block));
  const auto map = OrientedMap<N>::onto(o, from, to);
  const auto back = map.inverse();
  std::vector<InterfaceCopy<N>> out;
  for (std::size_t j : set.boxes_of(rank)) {  // receives: my destination cells, from whoever holds their source
    const Box<N> mine = intersect(set.box(j), to);
    if (mine.empty()) continue;
    set.for_each_meeting(back.map(mine), [&](std::size_t k) {
      const Box<N> piece = intersect(back.map(mine), set.box(k));
      out.push_back({set.owner(k), piece, detail::patch_of_box(set, k), rank, map.map(piece), detail::patch_of_box(set, j), 0});
    });
  }
  for (std::size_t k : set.boxes_of(rank)) {  // sends: my source cells, to whoever holds their image
    const Box<N> mine = intersect(set.box(k), from);
    if (mine.empty()) continue;
    set.for_each_meeting(map.map(mine), [&](std::size_t j) {
      if (set.owner(j) == rank) return;  // a local copy, listed with the receives
      const Box<N> image = intersect(map.map(mine), set.box(j));
      out.push_back({rank, back.map(image), detail::patch_of_box(set, k), set.owner(j), image, detail::patch_of_box(set, j), 0});
    });
  }
  const auto key = [](const InterfaceCopy<N>& c) { return std::tuple(c.src_rank, c.dst_rank, c.dst_patch, c.dst.lo); };
  std::sort(out.begin(), out.end(), [&](const auto& a, const auto& b) { return key(a) < key(b); });
  return out;
}

/// The key `multiblock_section_move_schedule` keeps its schedule under.
template <std::size_t N>
[[nodiscard]] std::uint64_t multiblock_section_move_key(const MultiblockLayout<N>& mb, const GhostSpec<N>& src_ghosts,
                                                        const BlockSection<N>& src, const GhostSpec<N>& dst_ghosts,
                                                        const BlockSection<N>& dst, const Orientation<N>& o,
                                                        int rank) noexcept {
  std::uint64_t key = hash_combine(hash_combine(mb.hash(), 0x70617274692dULL), src_ghosts.hash());
  key = hash_combine(hash_combine(hash_combine(key, src.block), hash_value(src.box)), dst_ghosts.hash());
  key = hash_combine(hash_combine(hash_combine(key, dst.block), hash_value(dst.box)), o.hash());
  return hash_combine(key, static_cast<std::uint64_t>(rank));
}

/// The schedule of `rank` for a section move between arrays over `mb` with ghosts `src_ghosts` and
/// `dst_ghosts` (see the file comment), kept in `cache` when given. Throws what
/// `check_section_move` throws.
template <std::size_t N>
[[nodiscard]] std::shared_ptr<const Schedule> multiblock_section_move_schedule(
    const MultiblockLayout<N>& mb, const GhostSpec<N>& src_ghosts, const BlockSection<N>& src,
    const GhostSpec<N>& dst_ghosts, const BlockSection<N>& dst, const Orientation<N>& o, int rank,
    ExchangeCache* cache = nullptr) {
  check_section_move(mb, src, dst, o);
  const auto key = multiblock_section_move_key(mb, src_ghosts, src, dst_ghosts, dst, o, rank);
  return detail::cached(cache, key, {mb.embedded().hash()}, [&] {
    const auto src_layout = StorageLayout<N>::make(mb.embedded(), rank, src_ghosts);
    const auto dst_layout = StorageLayout<N>::make(mb.embedded(), rank, dst_ghosts);
    Schedule s;
    detail::append_oriented_copies(s, section_move_copies(mb, src, dst, o, rank), src_layout, dst_layout, rank,
                                   [&](const InterfaceCopy<N>&) { return o; });
    return s;
  });
}

}  // namespace tessera
