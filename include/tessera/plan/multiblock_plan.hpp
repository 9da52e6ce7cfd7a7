#pragma once
/// \file
/// The ghost schedule of a multiblock domain (layout/multiblock.hpp): the ordinary halo of the
/// embedded box set (each block's ghosts from its own cells) and, compiled into the same
/// `Schedule`, the copies across interfaces with their orientations. One rank's schedule, built
/// without communication; run by one `Mover` (local copies on the rank, one message per peer).
///
/// Which ghost cells an interface fills: those of a patch (its face slabs, or its whole shell with
/// corners) that lie beyond one of its block's glued faces — outside the block along the face's
/// axis only, within the glued cells along the others. Each is read from the cell of the other
/// block that the glue sends onto it; where that cell lies outside the other block (a block
/// thinner than the ghost width), the ghost is left alone. Ghosts beyond two faces at once (block
/// corners and edges) are left alone: interfaces fill faces only.
///
/// Flipped axes are enumerated backwards in the destination's blocks (a negative axis stride), so
/// that a sender packs its rows in storage order and the receiver lays them down reversed. The
/// accumulate schedule is the same schedule reversed: each ghost combined into the cell it mirrors.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/core/hash.hpp"
#include "tessera/layout/multiblock.hpp"
#include "tessera/plan/compile_schedule.hpp"
#include "tessera/plan/halo_plan.hpp"
#include "tessera/plan/schedule_builders.hpp"

namespace tessera {

/// One copy across an interface, in embedded indices: the cells `src` of `src_rank`'s patch
/// `src_patch` onto the cells `dst` of `dst_rank`'s patch `dst_patch`, through
/// `layout.sides()[side]`. The cells are boxes, or strided sections (`Section<N>`, each axis one
/// interval or single indices a stride apart) for PARTI's strided section moves.
template <std::size_t N, class Cells = Box<N>>
struct InterfaceCopy {
  int src_rank = 0;
  Cells src;
  int src_patch = 0;
  int dst_rank = 0;
  Cells dst;
  int dst_patch = 0;
  std::size_t side = 0;
  friend bool operator==(const InterfaceCopy&, const InterfaceCopy&) = default;
};

/// Throws `Error(invalid_argument)` if arrays over `mb` cannot have ghosts `g`: periodic axes (a
/// block is periodic by an interface with itself) or a width beyond `mb.max_ghost_width()`.
template <std::size_t N>
void check_multiblock_ghosts(const MultiblockLayout<N>& mb, const GhostSpec<N>& g) {
  for (std::size_t d = 0; d < N; ++d) {
    if (g.periodic[d])
      fail(ErrorCode::invalid_argument, "multiblock ghosts: axis ", d,
           " is periodic; over a multiblock domain a block is periodic by an interface with itself");
    if (g.lower[d] > mb.max_ghost_width() || g.upper[d] > mb.max_ghost_width())
      fail(ErrorCode::invalid_argument, "multiblock ghosts: width ", std::max(g.lower[d], g.upper[d]), " along axis ",
           d, " exceeds the layout's max_ghost_width ", mb.max_ghost_width());
  }
}

namespace detail {

/// Appends the interface copies that fill the ghosts of box c of the embedded set.
template <std::size_t N>
void box_interface_receives(const MultiblockLayout<N>& mb, const GhostSpec<N>& g, std::size_t c,
                            std::vector<InterfaceCopy<N>>& out) {
  const BoxSet<N>& set = mb.embedded_set();
  const Box<N>& box = set.box(c);
  const std::size_t block = mb.block_of_box(c);
  const int rank = set.owner(c), patch = set.patch_of(c);
  for (std::size_t s = 0; s < mb.sides().size(); ++s) {
    const InterfaceSide<N>& side = mb.sides()[s];
    if (side.ghost_block != block) continue;
    const Box<N> slab = side.slab(side.upper ? g.upper[side.axis] : g.lower[side.axis]);
    if (slab.empty() || !intersects(grow(box, g.lower, g.upper), slab)) continue;
    const OrientedMap<N> to_source = side.to_ghost.inverse();
    const Box<N> source_block = mb.embedded_box(side.source_block);
    for (const Box<N>& ghost : ghost_boxes(box, g)) {
      const Box<N> from = intersect(to_source.map(intersect(ghost, slab)), source_block);
      if (from.empty()) continue;
      set.for_each_meeting(from, [&](std::size_t k) {
        const Box<N> piece = intersect(from, set.box(k));
        out.push_back({set.owner(k), piece, set.patch_of(k), rank, side.to_ghost.map(piece), patch, s});
      });
    }
  }
}

/// A destination block whose axes follow the source's enumeration through `o` (flipped axes
/// backwards: negative stride); see compile_schedule.hpp's `make_block` for the plain case. Along
/// axis d it visits `count[d]` indices `step[d]` apart from `first[d]` (embedded indices).
template <std::size_t N>
Block oriented_block(const StorageLayout<N>& layout, int patch, const Point<N>& first, const Point<N>& step,
                     const Point<N>& count, const Orientation<N>& o, const std::array<int, N>& src_order,
                     std::vector<Section1>& runs) {
  const PatchLayout<N>& p = layout.patches()[static_cast<std::size_t>(patch)];
  Block b;
  b.base = p.offset;
  b.volume = 1;
  for (std::size_t d = 0; d < N; ++d) b.volume *= count[d];
  std::uint32_t axes = 0;
  for (std::size_t k = 0; k < N; ++k) {
    const std::size_t d = o.image_axis(static_cast<std::size_t>(src_order[k]));
    // Box patches have interval axes: a step of `step` indices is `step` local positions.
    // Position j is local index start + j * step (flipped: start + (n - 1 - j) * step); a single
    // position only shifts the base, flipped or not.
    const index_t start = p.axes[d].local(first[d]), n = count[d];
    b.base += start * p.strides[d];
    if (n == 1) continue;
    index_t stride = p.strides[d] * step[d];
    if (o.flipped(d)) {
      b.base += (n - 1) * stride;
      stride = -stride;
    }
    b.axis[axes].stride = stride;
    b.axis[axes].begin = static_cast<std::uint32_t>(runs.size());
    runs.push_back(Section1::interval(0, n));
    b.axis[axes].end = static_cast<std::uint32_t>(runs.size());
    ++axes;
  }
  if (axes == 0) {  // a single element
    b.axis[0].stride = 1;
    b.axis[0].begin = static_cast<std::uint32_t>(runs.size());
    runs.push_back(Section1::interval(0, 1));
    b.axis[0].end = static_cast<std::uint32_t>(runs.size());
    axes = 1;
  }
  b.axes = axes;
  return b;
}

/// The same for a box.
template <std::size_t N>
Block oriented_block(const StorageLayout<N>& layout, int patch, const Box<N>& box, const Orientation<N>& o,
                     const std::array<int, N>& src_order, std::vector<Section1>& runs) {
  return oriented_block(layout, patch, box.lo, Point<N>::filled(1), extents(box), o, src_order, runs);
}

/// The same for a section whose axes are each one interval or single indices a stride apart.
template <std::size_t N>
Block oriented_block(const StorageLayout<N>& layout, int patch, const Section<N>& cells, const Orientation<N>& o,
                     const std::array<int, N>& src_order, std::vector<Section1>& runs) {
  Point<N> first, step, count;
  for (std::size_t d = 0; d < N; ++d) {
    const Section1& a = cells.dim[d];
    first[d] = a.first;
    const bool interval = a.run_count == 1;
    step[d] = interval ? 1 : a.stride;
    count[d] = interval ? a.run_length : a.run_count;
    if (!interval && a.run_length != 1)
      fail(ErrorCode::internal, "oriented_block: axis ", d, " of ", cells, " is neither an interval nor single indices");
  }
  return oriented_block(layout, patch, first, step, count, o, src_order, runs);
}

/// A copy's source cells as a section.
template <std::size_t N>
[[nodiscard]] Section<N> section_of(const Box<N>& box) noexcept {
  return Section<N>::from_box(box);
}
template <std::size_t N>
[[nodiscard]] const Section<N>& section_of(const Section<N>& cells) noexcept {
  return cells;
}

}  // namespace detail

/// The interface copies that involve `rank` (into its ghosts, and out of its cells into other
/// ranks' ghosts), canonically ordered so that every pair of ranks lists the copies between them
/// alike. The send side visits only the boxes whose ghosts can reach one of `rank`'s boxes across
/// an interface (through the set's index) and computes their receives as their owners do.
template <std::size_t N>
[[nodiscard]] std::vector<InterfaceCopy<N>> interface_copies(const MultiblockLayout<N>& mb, const GhostSpec<N>& g,
                                                             int rank) {
  const BoxSet<N>& set = mb.embedded_set();
  std::vector<InterfaceCopy<N>> out;
  for (std::size_t c : set.boxes_of(rank)) detail::box_interface_receives(mb, g, c, out);
  std::vector<std::size_t> near;
  for (const InterfaceSide<N>& side : mb.sides()) {
    const Box<N> slab = side.slab(side.upper ? g.upper[side.axis] : g.lower[side.axis]);
    if (slab.empty()) continue;
    const Box<N> source = intersect(side.to_ghost.inverse().map(slab), mb.embedded_box(side.source_block));
    for (std::size_t c : set.boxes_of(rank)) {
      const Box<N> mine = intersect(set.box(c), source);
      if (mine.empty()) continue;
      set.for_each_meeting(grow(side.to_ghost.map(mine), g.upper, g.lower), [&](std::size_t k) {
        if (set.owner(k) != rank && mb.block_of_box(k) == side.ghost_block) near.push_back(k);
      });
    }
  }
  std::sort(near.begin(), near.end());
  near.erase(std::unique(near.begin(), near.end()), near.end());
  std::vector<InterfaceCopy<N>> theirs;
  for (std::size_t k : near) {
    theirs.clear();
    detail::box_interface_receives(mb, g, k, theirs);
    for (const auto& copy : theirs)
      if (copy.src_rank == rank) out.push_back(copy);
  }
  const auto key = [](const InterfaceCopy<N>& c) {
    return std::tuple(c.src_rank, c.dst_rank, c.side, c.dst_patch, c.dst.lo, c.src.lo);
  };
  std::sort(out.begin(), out.end(), [&](const auto& a, const auto& b) { return key(a) < key(b); });
  return out;
}

namespace detail {
/// Appends `copies` (those involving `rank`) to schedule `s`: sources looked up in `src`,
/// destinations in `dst` and oriented by `orientation_of(copy)`; per peer after the blocks already
/// there, in the copies' order (which both sides of each pair must share).
template <std::size_t N, class Cells, class OrientationOf>
void append_oriented_copies(Schedule& s, const std::vector<InterfaceCopy<N, Cells>>& copies, const StorageLayout<N>& src,
                            const StorageLayout<N>& dst, int rank, OrientationOf&& orientation_of) {
  std::map<int, std::size_t> send_index, receive_index;
  for (std::size_t i = 0; i < s.sends.size(); ++i) send_index.emplace(s.sends[i].peer, i);
  for (std::size_t i = 0; i < s.receives.size(); ++i) receive_index.emplace(s.receives[i].peer, i);
  const std::array<int, N> src_order = axes_slowest_first<N>(src.order());
  for (const InterfaceCopy<N, Cells>& c : copies) {
    Block from, to;
    if (c.src_rank == rank) from = make_block(src, c.src_patch, section_of(c.src), src_order, s.runs);
    if (c.dst_rank == rank) to = oriented_block(dst, c.dst_patch, c.dst, orientation_of(c), src_order, s.runs);
    if (c.src_rank == rank && c.dst_rank == rank) {
      s.local_src.push_back(from);
      s.local_dst.push_back(to);
    } else if (c.src_rank == rank) {
      PeerBlocks& p = peer_entry(s.sends, send_index, c.dst_rank);
      p.blocks.push_back(from);
      p.elements += from.volume;
    } else if (c.dst_rank == rank) {
      PeerBlocks& p = peer_entry(s.receives, receive_index, c.src_rank);
      p.blocks.push_back(to);
      p.elements += to.volume;
    }
  }
  const auto by_peer = [](const PeerBlocks& a, const PeerBlocks& b) { return a.peer < b.peer; };
  std::sort(s.sends.begin(), s.sends.end(), by_peer);
  std::sort(s.receives.begin(), s.receives.end(), by_peer);
}
}  // namespace detail

/// The key `multiblock_ghost_schedule` keeps its schedule under.
template <std::size_t N>
[[nodiscard]] std::uint64_t multiblock_ghost_schedule_key(const MultiblockLayout<N>& mb, const GhostSpec<N>& g,
                                                          int rank) noexcept {
  return hash_combine(hash_combine(halo_schedule_key(mb.embedded(), g, rank), mb.hash()), 0x6d756c7469ULL);
}

/// The schedule that fills `rank`'s ghosts over the multiblock domain: the embedded halo, then the
/// interface copies (see the file comment), kept in `cache` when given. Throws what
/// `check_multiblock_ghosts` throws.
template <std::size_t N>
[[nodiscard]] std::shared_ptr<const Schedule> multiblock_ghost_schedule(const MultiblockLayout<N>& mb,
                                                                        const GhostSpec<N>& g, int rank,
                                                                        ExchangeCache* cache = nullptr) {
  check_multiblock_ghosts(mb, g);
  return detail::cached(cache, multiblock_ghost_schedule_key(mb, g, rank), {mb.embedded().hash()}, [&] {
    const auto layout = StorageLayout<N>::make(mb.embedded(), rank, g);
    Schedule s = compile_schedule(halo_plan(mb.embedded(), g, rank), rank, layout, layout, /*disjoint=*/true);
    detail::append_oriented_copies(s, interface_copies(mb, g, rank), layout, layout, rank,  // cells -> ghosts: disjoint
                                   [&](const InterfaceCopy<N>& c) { return mb.sides()[c.side].to_ghost.orientation; });
    return s;
  });
}

/// The key `multiblock_accumulate_schedule` keeps its schedule under.
template <std::size_t N>
[[nodiscard]] std::uint64_t multiblock_accumulate_schedule_key(const MultiblockLayout<N>& mb, const GhostSpec<N>& g,
                                                               int rank) noexcept {
  return hash_combine(multiblock_ghost_schedule_key(mb, g, rank), 0x616363756d756cULL);
}

/// The schedule that combines `rank`'s ghosts over the multiblock domain into the cells they mirror:
/// the ghost schedule reversed (`reversed`), so exactly the ghosts a ghost update fills go back, a
/// ghost across an interface through the inverse orientation; kept in `cache` when given. The
/// combine operation is the mover's. Throws what `check_multiblock_ghosts` throws.
template <std::size_t N>
[[nodiscard]] std::shared_ptr<const Schedule> multiblock_accumulate_schedule(const MultiblockLayout<N>& mb,
                                                                             const GhostSpec<N>& g, int rank,
                                                                             ExchangeCache* cache = nullptr) {
  check_multiblock_ghosts(mb, g);
  return detail::cached(cache, multiblock_accumulate_schedule_key(mb, g, rank), {mb.embedded().hash()}, [&] {
    // The forward schedule from the cache too (a lookup builds outside the cache's bookkeeping).
    return reversed(*multiblock_ghost_schedule(mb, g, rank, cache));
  });
}

}  // namespace tessera
