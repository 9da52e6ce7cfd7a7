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
/// that a sender packs its rows in storage order and the receiver lays them down reversed.

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

/// One copy across an interface, in embedded indices: box `src` of `src_rank`'s patch `src_patch`
/// onto box `dst` of `dst_rank`'s patch `dst_patch`, through `layout.sides()[side]`.
template <std::size_t N>
struct InterfaceCopy {
  int src_rank = 0;
  Box<N> src;
  int src_patch = 0;
  int dst_rank = 0;
  Box<N> dst;
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

/// Patch index of box c in its owner's storage (the order of `boxes_of`).
template <std::size_t N>
int patch_of_box(const BoxSet<N>& set, std::size_t c) {
  const auto of = set.boxes_of(set.owner(c));
  return static_cast<int>(std::lower_bound(of.begin(), of.end(), c) - of.begin());
}

/// Appends the interface copies that fill the ghosts of box c of the embedded set.
template <std::size_t N>
void box_interface_receives(const MultiblockLayout<N>& mb, const GhostSpec<N>& g, std::size_t c,
                            std::vector<InterfaceCopy<N>>& out) {
  const BoxSet<N>& set = mb.embedded_set();
  const Box<N>& box = set.box(c);
  const std::size_t block = mb.block_of_box(c);
  const int rank = set.owner(c), patch = patch_of_box(set, c);
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
        out.push_back({set.owner(k), piece, patch_of_box(set, k), rank, side.to_ghost.map(piece), patch, s});
      });
    }
  }
}

/// A destination block whose axes follow the source's enumeration through `o` (flipped axes
/// backwards: negative stride); see compile_schedule.hpp's `make_block` for the plain case.
template <std::size_t N>
Block oriented_block(const StorageLayout<N>& layout, int patch, const Box<N>& box, const Orientation<N>& o,
                     const std::array<int, N>& src_order, std::vector<Section1>& runs) {
  const PatchLayout<N>& p = layout.patches()[static_cast<std::size_t>(patch)];
  Block b;
  b.base = p.offset;
  b.volume = volume(box);
  std::uint32_t axes = 0;
  for (std::size_t k = 0; k < N; ++k) {
    const std::size_t d = o.image_axis(static_cast<std::size_t>(src_order[k]));
    const index_t first = p.axes[d].local(box.lo[d]), n = extent(box, d);
    index_t stride = p.strides[d];
    if (n == 1) {  // one position: only shifts the base, flipped or not
      b.base += first * stride;
      continue;
    }
    if (o.flipped(d)) {  // position j walks local index first + n - 1 - j
      b.base += (2 * first + n - 1) * stride;
      stride = -stride;
    }
    b.axis[axes].stride = stride;
    b.axis[axes].begin = static_cast<std::uint32_t>(runs.size());
    runs.push_back(Section1::interval(first, first + n));
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
template <std::size_t N, class OrientationOf>
void append_oriented_copies(Schedule& s, const std::vector<InterfaceCopy<N>>& copies, const StorageLayout<N>& src,
                            const StorageLayout<N>& dst, int rank, OrientationOf&& orientation_of) {
  std::map<int, std::size_t> send_index, receive_index;
  for (std::size_t i = 0; i < s.sends.size(); ++i) send_index.emplace(s.sends[i].peer, i);
  for (std::size_t i = 0; i < s.receives.size(); ++i) receive_index.emplace(s.receives[i].peer, i);
  const std::array<int, N> src_order = axes_slowest_first<N>(src.order());
  for (const InterfaceCopy<N>& c : copies) {
    Block from, to;
    if (c.src_rank == rank) from = make_block(src, c.src_patch, Section<N>::from_box(c.src), src_order, s.runs);
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

}  // namespace tessera
