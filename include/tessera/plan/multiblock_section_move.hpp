#pragma once
/// \file
/// PARTI's regular section move between blocks of a multiblock domain: box `src_box` of block
/// `src_block` of one array onto box `dst_box` of block `dst_block` of another (or the same), with
/// an orientation (axes permuted and reversed: `dst` offset = orientation applied to `src` offset,
/// each box's lower corner going where the flips say, as `OrientedMap::onto`). Either end may be
/// strided (every stride-th index from the box's lower corner): the orientation then lays the
/// source's point numbers onto the destination's. One rank's schedule, built without
/// communication: its receives from its own boxes of the destination, its sends from its own boxes
/// of the source, both listed in one canonical order; one schedule however many strided runs.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/core/hash.hpp"
#include "tessera/layout/multiblock.hpp"
#include "tessera/plan/compile_schedule.hpp"
#include "tessera/plan/multiblock_plan.hpp"
#include "tessera/plan/schedule_builders.hpp"

namespace tessera {

/// One end of a section move: a box of a block (block coordinates), every index of it or, with
/// `stride`, PARTI's strided regular section: the points box.lo + k * stride inside the box.
template <std::size_t N>
struct BlockSection {
  std::size_t block = 0;
  Box<N> box;
  Point<N> stride = Point<N>::filled(1);  ///< >= 1 along every axis
};

/// How many points a section has along each axis (0 everywhere for an empty box).
template <std::size_t N>
[[nodiscard]] Point<N> section_counts(const BlockSection<N>& s) noexcept {
  Point<N> c = Point<N>::filled(0);
  if (s.box.empty()) return c;
  for (std::size_t d = 0; d < N; ++d) c[d] = ceil_div(extent(s.box, d), s.stride[d]);
  return c;
}

namespace detail {
/// "box B" or "box B with stride S", for messages.
template <std::size_t N>
std::string describe_section(const BlockSection<N>& s) {
  return s.stride == Point<N>::filled(1) ? concat("box ", s.box) : concat("box ", s.box, " with stride ", s.stride);
}
}  // namespace detail

/// Throws `Error` unless `src` and `dst` have strides >= 1 (`invalid_argument`), are boxes inside
/// their blocks (`out_of_range`) and have point counts that agree under `o` (`invalid_argument`).
template <std::size_t N>
void check_section_move(const MultiblockLayout<N>& mb, const BlockSection<N>& src, const BlockSection<N>& dst,
                        const Orientation<N>& o) {
  for (const auto* s : {&src, &dst}) {
    const char* which = s == &src ? "source" : "destination";
    for (std::size_t d = 0; d < N; ++d)
      if (s->stride[d] < 1)
        fail(ErrorCode::invalid_argument, "multiblock section move: the ", which, " stride ", s->stride,
             " must be >= 1 along every axis");
    if (s->block >= mb.block_count())
      fail(ErrorCode::out_of_range, "multiblock section move: the ", which, " names block ", s->block, ", but there are ",
           mb.block_count(), " blocks");
    if (!contains(mb.block_box(s->block), s->box))
      fail(ErrorCode::out_of_range, "multiblock section move: the ", which, " box ", s->box, " is not inside block ",
           s->block, " ", mb.block_box(s->block));
  }
  const Point<N> cs = section_counts(src), cd = section_counts(dst);
  for (std::size_t d = 0; d < N; ++d)
    if (cd[d] != cs[o.source_axis(d)])
      fail(ErrorCode::invalid_argument, "multiblock section move: the destination ", detail::describe_section(dst),
           " has ", cd[d], " points along axis ", d, " but the source ", detail::describe_section(src), " has ",
           cs[o.source_axis(d)], " along axis ", o.source_axis(d), ", which the orientation lays onto it");
}

namespace detail {
/// A section's points inside `region` (embedded indices) as a box of point numbers: k along axis
/// d is the point lo[d] + k * stride[d], 0 <= k < count[d].
template <std::size_t N>
[[nodiscard]] Box<N> point_numbers_in(const Box<N>& region, const Point<N>& lo, const Point<N>& stride,
                                      const Point<N>& count) noexcept {
  Box<N> k;
  for (std::size_t d = 0; d < N; ++d) {
    k.lo[d] = std::max<index_t>(0, ceil_div(region.lo[d] - lo[d], stride[d]));
    k.hi[d] = std::min(count[d], ceil_div(region.hi[d] - lo[d], stride[d]));
  }
  return k;
}
/// The embedded cells of point numbers `k` (non-empty): each axis an interval (stride 1) or single
/// indices a stride apart.
template <std::size_t N>
[[nodiscard]] Section<N> section_cells(const Box<N>& k, const Point<N>& lo, const Point<N>& stride) {
  Section<N> s;
  for (std::size_t d = 0; d < N; ++d)
    s.dim[d] = stride[d] == 1 ? Section1::interval(lo[d] + k.lo[d], lo[d] + k.hi[d])
                              : Section1::strided(lo[d] + k.lo[d] * stride[d], 1, stride[d], extent(k, d));
  return s;
}
/// The smallest box holding those cells (what a spatial index is asked about).
template <std::size_t N>
[[nodiscard]] Box<N> section_hull(const Box<N>& k, const Point<N>& lo, const Point<N>& stride) noexcept {
  Box<N> b;
  for (std::size_t d = 0; d < N; ++d) {
    b.lo[d] = lo[d] + k.lo[d] * stride[d];
    b.hi[d] = lo[d] + (k.hi[d] - 1) * stride[d] + 1;
  }
  return b;
}
}  // namespace detail

/// The copies of a section move that involve `rank` (interface copies with side 0 and orientation
/// `o` between strided sections), canonically ordered. Worked out in point
/// numbers: the orientation lays the source's numbers onto the destination's, and each box of the
/// embedded set holds a box of numbers of either section.
template <std::size_t N>
[[nodiscard]] std::vector<InterfaceCopy<N, Section<N>>> section_move_copies(const MultiblockLayout<N>& mb,
                                                                            const BlockSection<N>& src,
                                                                            const BlockSection<N>& dst,
                                                                            const Orientation<N>& o, int rank) {
  const BoxSet<N>& set = mb.embedded_set();
  const Point<N> cs = section_counts(src), cd = section_counts(dst);
  const Point<N> from = src.box.lo + mb.offset(src.block), to = dst.box.lo + mb.offset(dst.block);
  const auto in_src = [&](const Box<N>& b) { return detail::point_numbers_in(b, from, src.stride, cs); };
  const auto in_dst = [&](const Box<N>& b) { return detail::point_numbers_in(b, to, dst.stride, cd); };
  const auto map = OrientedMap<N>::onto(o, Box<N>(Point<N>::filled(0), cs), Box<N>(Point<N>::filled(0), cd));
  const auto back = map.inverse();
  std::vector<InterfaceCopy<N, Section<N>>> out;
  const auto copy = [&](int src_rank, const Box<N>& numbers, std::size_t src_box, int dst_rank, std::size_t dst_box) {
    out.push_back({src_rank, detail::section_cells(numbers, from, src.stride), set.patch_of(src_box),
                   dst_rank, detail::section_cells(map.map(numbers), to, dst.stride), set.patch_of(dst_box),
                   0, o});
  };
  for (std::size_t j : set.boxes_of(rank)) {  // receives: my destination cells, from whoever holds their source
    const Box<N> wanted = back.map(in_dst(set.box(j)));
    if (wanted.empty()) continue;
    set.for_each_meeting(detail::section_hull(wanted, from, src.stride), [&](std::size_t k) {
      const Box<N> piece = intersect(wanted, in_src(set.box(k)));
      if (!piece.empty()) copy(set.owner(k), piece, k, rank, j);
    });
  }
  for (std::size_t k : set.boxes_of(rank)) {  // sends: my source cells, to whoever holds their image
    const Box<N> mine = map.map(in_src(set.box(k)));
    if (mine.empty()) continue;
    set.for_each_meeting(detail::section_hull(mine, to, dst.stride), [&](std::size_t j) {
      if (set.owner(j) == rank) return;  // a local copy, listed with the receives
      const Box<N> image = intersect(mine, in_dst(set.box(j)));
      if (!image.empty()) copy(rank, back.map(image), k, set.owner(j), j);
    });
  }
  const auto key = [](const InterfaceCopy<N, Section<N>>& c) {
    Point<N> first;  // the destination's first cell: pieces of one patch are disjoint
    for (std::size_t d = 0; d < N; ++d) first[d] = c.dst.dim[d].first;
    return std::tuple(c.src_rank, c.dst_rank, c.dst_patch, first);
  };
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
  key = hash_combine(hash_combine(hash_combine(key, src.block), hash_value(src.box)), hash_value(src.stride));
  key = hash_combine(hash_combine(hash_combine(key, dst_ghosts.hash()), dst.block), hash_value(dst.box));
  key = hash_combine(hash_combine(key, hash_value(dst.stride)), o.hash());
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
    detail::append_oriented_copies(s, section_move_copies(mb, src, dst, o, rank), src_layout, dst_layout, rank);
    return s;
  });
}

}  // namespace tessera
