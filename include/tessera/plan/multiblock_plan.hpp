#pragma once
/// \file
/// The ghost schedule of a multiblock domain (layout/multiblock.hpp): the ordinary halo of the
/// embedded box set (each block's ghosts from its own cells) and, compiled into the same
/// `Schedule`, the copies across interfaces with their orientations. One rank's schedule, built
/// without communication; run by one `Mover` (local copies on the rank, one message per peer).
///
/// Which ghost cells an interface fills: those of a patch (its face slabs, or its whole shell with
/// corners) that lie beyond one of its block's glued faces — outside the block along the face's
/// axis, and along each other axis within the glued cells or, where the glue reaches the block's
/// end, beyond that end too. Each is read from the cell of the other block that the glue sends onto
/// it. A ghost beyond two faces at once (a block corner, a 3-D edge) is carried across one face
/// into the next block, where it lies beyond that block's face, and on across that face: up to N
/// interfaces, their orientations composed (`OrientedMap::then`) into the copy's one orientation.
/// Where a path meets a face no interface covers, a source beyond a block thinner than the ghost
/// width, or a hole of a box-set block, it fills nothing and the next path is tried: the sides are
/// tried in their order (`MultiblockLayout::sides()`) at every hop, and the first path that
/// reaches a cell fills the ghost, once. Where blocks meet regularly (four around a 2-D vertex)
/// every path reaches the same cell; at a singular point (three or five around a vertex) they
/// differ, and the first side in that order wins.
///
/// Flipped axes are enumerated backwards in the destination's blocks (a negative axis stride), so
/// that a sender packs its rows in storage order and the receiver lays them down reversed. The
/// accumulate schedule is the same schedule reversed: each ghost combined into the cell it mirrors.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/core/hash.hpp"
#include "tessera/geometry/box_list.hpp"
#include "tessera/layout/multiblock.hpp"
#include "tessera/plan/compile_schedule.hpp"
#include "tessera/plan/halo_plan.hpp"
#include "tessera/plan/schedule_builders.hpp"

namespace tessera {

/// One copy across an interface, in embedded indices: the cells `src` of `src_rank`'s patch
/// `src_patch` onto the cells `dst` of `dst_rank`'s patch `dst_patch`, the source's offsets laid on
/// the destination's by `orientation`. A ghost copy's `side` is the side of `layout.sides()` its
/// path leaves the ghost's block through (the first of up to N for a corner). The cells are boxes,
/// or strided sections (`Section<N>`, each axis one interval or single indices a stride apart) for
/// PARTI's strided section moves (side 0).
template <std::size_t N, class Cells = Box<N>>
struct InterfaceCopy {
  int src_rank = 0;
  Cells src;
  int src_patch = 0;
  int dst_rank = 0;
  Cells dst;
  int dst_patch = 0;
  std::size_t side = 0;
  Orientation<N> orientation{};
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

/// Calls f(piece) for each piece of `cells` that lies on one side of `home` along every axis
/// (below, within or above it: up to 3^N pieces, none empty).
template <std::size_t N, class F>
void for_each_piece_around(const Box<N>& cells, const Box<N>& home, F&& f) {
  std::array<std::array<std::pair<index_t, index_t>, 3>, N> parts{};
  for (std::size_t d = 0; d < N; ++d) {
    const index_t lo = cells.lo[d], hi = cells.hi[d];
    parts[d] = {{{lo, std::min(hi, home.lo[d])},
                 {std::max(lo, home.lo[d]), std::min(hi, home.hi[d])},
                 {std::max(lo, home.hi[d]), hi}}};
  }
  std::array<std::size_t, N> k{};
  while (true) {
    Box<N> piece;
    bool empty = false;
    for (std::size_t d = 0; d < N; ++d) {
      piece.lo[d] = parts[d][k[d]].first;
      piece.hi[d] = parts[d][k[d]].second;
      empty = empty || piece.lo[d] >= piece.hi[d];
    }
    if (!empty) f(piece);
    std::size_t d = N;
    while (d-- > 0) {
      if (++k[d] < 3) break;
      k[d] = 0;
      if (d == 0) return;
    }
  }
}

/// The ghost positions beyond `side`'s face that the side carries into its source block, for cells
/// on one side of `home` (the side's ghost block) along every axis (`outside`, a piece of
/// `for_each_piece_around`): `width` deep beyond the face; along each other axis, within the
/// glued cells where `outside` is within the block, and `width` beyond the block's end where it is
/// beyond it and the glue reaches that end (else nothing).
template <std::size_t N>
[[nodiscard]] Box<N> side_carries(const InterfaceSide<N>& side, const Box<N>& home, const Box<N>& outside,
                                  index_t width) {
  Box<N> r = side.slab(width);
  for (std::size_t d = 0; d < N; ++d) {
    if (d == side.axis) continue;
    if (outside.lo[d] >= home.hi[d]) {  // beyond the upper end
      if (side.cells.hi[d] != home.hi[d]) return Box<N>{};
      r.lo[d] = home.hi[d], r.hi[d] = home.hi[d] + width;
    } else if (outside.hi[d] <= home.lo[d]) {  // beyond the lower end
      if (side.cells.lo[d] != home.lo[d]) return Box<N>{};
      r.lo[d] = home.lo[d] - width, r.hi[d] = home.lo[d];
    }
  }
  return r;
}

/// Whose ghost cells a path fills: the rank and patch of the box whose shell they are.
struct GhostTarget {
  int rank = 0;
  int patch = 0;
};

/// Fills what it can of `cells` — positions outside block `block`, on one side of it along every
/// axis (embedded) — across the block's sides in order (see the file comment), appending the copies
/// to `out`; `to_ghost` takes `block`'s positions to the ghost cells being filled (the identity at
/// the first hop), `first_side` is the side the path left the ghost's block through (none yet at
/// the first hop). Returns the cells it filled, in `block`'s positions.
template <std::size_t N>
std::vector<Box<N>> fill_across(const MultiblockLayout<N>& mb, const GhostTarget& target, std::size_t block,
                                const Box<N>& cells, const OrientedMap<N>& to_ghost,
                                std::optional<std::size_t> first_side, std::vector<InterfaceCopy<N>>& out) {
  const BoxSet<N>& set = mb.embedded_set();
  const Box<N> home = mb.embedded_box(block);
  std::vector<Box<N>> filled;
  BoxList<N> left{cells};
  for (std::size_t s = 0; s < mb.sides().size() && !left.empty(); ++s) {
    const InterfaceSide<N>& side = mb.sides()[s];
    const bool beyond_face = side.upper ? cells.lo[side.axis] >= home.hi[side.axis]
                                        : cells.hi[side.axis] <= home.lo[side.axis];
    if (side.ghost_block != block || !beyond_face) continue;
    const Box<N> carried = side_carries(side, home, cells, mb.max_ghost_width());
    if (carried.empty()) continue;
    const OrientedMap<N> to_source = side.to_ghost.inverse();
    const OrientedMap<N> onto = side.to_ghost.then(to_ghost);  // source positions -> the ghost cells
    const Box<N> source = mb.embedded_box(side.source_block);
    const std::size_t normal = to_source.orientation.image_axis(side.axis);
    const std::size_t first = first_side.value_or(s);
    std::vector<Box<N>> reached;  // in `block`'s positions
    for (const Box<N>& part : intersect(left, carried)) {
      Box<N> from = to_source.map(part);
      // Depth beyond the face is depth inside the source block, no further: a ghost whose source
      // would lie beyond a block thinner than the ghosts is not filled (along the other axes a cell
      // may still lie beyond the source block: the path goes on from there).
      from.lo[normal] = std::max(from.lo[normal], source.lo[normal]);
      from.hi[normal] = std::min(from.hi[normal], source.hi[normal]);
      if (from.empty()) continue;
      for_each_piece_around(from, source, [&](const Box<N>& piece) {
        if (contains(source, piece)) {
          set.for_each_meeting(piece, [&](std::size_t k) {
            const Box<N> cut = intersect(piece, set.box(k));
            if (cut.empty()) return;
            out.push_back({set.owner(k), cut, set.patch_of(k), target.rank, onto.map(cut), target.patch, first,
                           onto.orientation});
            reached.push_back(side.to_ghost.map(cut));
          });
        } else {
          for (const Box<N>& far : fill_across(mb, target, side.source_block, piece, onto, first, out))
            reached.push_back(side.to_ghost.map(far));
        }
      });
    }
    for (const Box<N>& r : reached) {
      left = difference(left, r);
      filled.push_back(r);
    }
  }
  return filled;
}

/// Appends the interface copies that fill the ghosts of box c of the embedded set.
template <std::size_t N>
void box_interface_receives(const MultiblockLayout<N>& mb, const GhostSpec<N>& g, std::size_t c,
                            std::vector<InterfaceCopy<N>>& out) {
  const BoxSet<N>& set = mb.embedded_set();
  const std::size_t block = mb.block_of_box(c);
  const Box<N> home = mb.embedded_box(block);
  const GhostTarget target{set.owner(c), set.patch_of(c)};
  const OrientedMap<N> identity{};
  for (const Box<N>& ghost : ghost_boxes(set.box(c), g))
    for_each_piece_around(ghost, home, [&](const Box<N>& piece) {
      if (!contains(home, piece)) (void)fill_across(mb, target, block, piece, identity, std::nullopt, out);
    });
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
/// up to N interfaces (found through the set's index) and computes their receives as their owners do.
template <std::size_t N>
[[nodiscard]] std::vector<InterfaceCopy<N>> interface_copies(const MultiblockLayout<N>& mb, const GhostSpec<N>& g,
                                                             int rank) {
  const BoxSet<N>& set = mb.embedded_set();
  std::vector<InterfaceCopy<N>> out;
  for (std::size_t c : set.boxes_of(rank)) detail::box_interface_receives(mb, g, c, out);
  // The boxes whose ghosts may read this rank's cells: the rank's boxes carried across each side
  // whose source they lie in, then, for corners, those positions across the next block's sides,
  // up to N hops; at each hop the boxes of the ghost block whose shells meet the positions. A
  // generous reach (a side carries `max_ghost_width` beyond its glued cells along every axis):
  // each candidate's receives are computed below as its owner does and only this rank's kept.
  struct Reach {
    std::size_t block;
    Box<N> cells;
  };
  std::vector<Reach> reach;
  for (std::size_t c : set.boxes_of(rank)) reach.push_back({mb.block_of_box(c), set.box(c)});
  const index_t width = mb.max_ghost_width();
  std::vector<Box<N>> carries;  // per side: its slab, `width` wider along the face's own axes
  for (const InterfaceSide<N>& side : mb.sides()) {
    Box<N> carried = side.slab(width);
    for (std::size_t d = 0; d < N; ++d)
      if (d != side.axis) carried.lo[d] -= width, carried.hi[d] += width;
    carries.push_back(carried);
  }
  std::vector<std::size_t> near;
  for (std::size_t hop = 0; hop < N && !reach.empty(); ++hop) {
    std::vector<Reach> next;
    for (const Reach& r : reach)
      for (std::size_t s = 0; s < mb.sides().size(); ++s) {
        const InterfaceSide<N>& side = mb.sides()[s];
        if (side.source_block != r.block) continue;
        const Box<N> there = intersect(side.to_ghost.map(r.cells), carries[s]);
        if (there.empty()) continue;
        set.for_each_meeting(grow(there, g.upper, g.lower), [&](std::size_t k) {
          if (set.owner(k) != rank && mb.block_of_box(k) == side.ghost_block) near.push_back(k);
        });
        next.push_back({side.ghost_block, there});
      }
    reach = std::move(next);
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
/// destinations in `dst` and oriented by each copy's orientation; per peer after the blocks already
/// there, in the copies' order (which both sides of each pair must share).
template <std::size_t N, class Cells>
void append_oriented_copies(Schedule& s, const std::vector<InterfaceCopy<N, Cells>>& copies, const StorageLayout<N>& src,
                            const StorageLayout<N>& dst, int rank) {
  std::map<int, std::size_t> send_index, receive_index;
  for (std::size_t i = 0; i < s.sends.size(); ++i) send_index.emplace(s.sends[i].peer, i);
  for (std::size_t i = 0; i < s.receives.size(); ++i) receive_index.emplace(s.receives[i].peer, i);
  const std::array<int, N> src_order = axes_slowest_first<N>(src.order());
  for (const InterfaceCopy<N, Cells>& c : copies) {
    Block from, to;
    if (c.src_rank == rank) from = make_block(src, c.src_patch, section_of(c.src), src_order, s.runs);
    if (c.dst_rank == rank) to = oriented_block(dst, c.dst_patch, c.dst, c.orientation, src_order, s.runs);
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
    detail::append_oriented_copies(s, interface_copies(mb, g, rank), layout, layout, rank);  // cells -> ghosts: disjoint
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
