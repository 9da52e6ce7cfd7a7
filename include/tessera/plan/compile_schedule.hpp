#pragma once
/// \file
/// Compiling a `MotionPlan` for one rank into a `Schedule` against the storage layouts of the
/// source and destination arrays on that rank. A side stored under a user-defined local layout
/// (`StorageLayout::custom()`) gets a block of the offsets of its section's points, enumerated in the
/// same order as a strided block and merged into runs (`append_offset_runs`): one run per stretch of
/// consecutive offsets, so a layout that keeps the copy's order contiguous costs few runs, and any
/// other costs up to one run per point.

#include <algorithm>
#include <cstddef>
#include <map>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/plan/index_schedule.hpp"
#include "tessera/plan/motion_plan.hpp"
#include "tessera/plan/schedule.hpp"
#include "tessera/plan/storage_layout.hpp"

namespace tessera {

namespace detail {

/// Builds the block of `section` in `layout`'s patch `patch`, axes enumerated in `axis_order`
/// (block axis k walks storage axis axis_order[k]), then merges axes that are contiguous in memory.
template <std::size_t N>
Block make_block(const StorageLayout<N>& layout, int patch, const Section<N>& section,
                 const std::array<int, N>& axis_order, std::vector<Section1>& runs) {
  static_assert(N <= kMaxAxes, "schedules support up to kMaxAxes dimensions");
  const PatchLayout<N>& p = layout.patches()[static_cast<std::size_t>(patch)];
  std::array<SectionList1, N> local;
  std::array<index_t, N> stride{};
  Block b;
  b.base = p.offset;
  b.volume = volume(section);
  for (std::size_t k = 0; k < N; ++k) {
    const auto d = static_cast<std::size_t>(axis_order[k]);
    p.axes[d].to_local(section.dim[d], local[k]);
    stride[k] = p.strides[d];
  }
  // Fold away axes with a single position (a column's one index along the rows, say): they only
  // shift the base, and leaving them in would turn a strided column into one stretch per element.
  std::size_t axes = 0;
  for (std::size_t k = 0; k < N; ++k) {
    if (N > 1 && local[k].size() == 1 && volume(local[k][0]) == 1) {
      b.base += local[k][0].first * stride[k];
      continue;
    }
    if (axes != k) {  // a vector moved onto itself is left empty
      local[axes] = std::move(local[k]);
      stride[axes] = stride[k];
    }
    ++axes;
  }
  if (axes == 0) {  // a single element: one axis of one position
    local[0] = SectionList1{Section1::interval(0, 1)};
    stride[0] = 1;
    axes = 1;
  }
  // Merge the innermost axis into its outer neighbour while it is one contiguous interval that
  // exactly fills the outer axis' stride: positions of the outer axis are then back to back.
  while (axes >= 2) {
    SectionList1& inner = local[axes - 1];
    if (inner.size() != 1 || inner[0].run_count != 1) break;
    const index_t length = inner[0].run_length;
    if (stride[axes - 2] != length * stride[axes - 1]) break;
    b.base += inner[0].first * stride[axes - 1];
    for (Section1& r : local[axes - 2]) {
      r.first *= length;
      r.run_length *= length;
      r.stride *= length;
    }
    stride[axes - 2] = stride[axes - 1];
    --axes;
  }
  b.axes = static_cast<std::uint32_t>(axes);
  for (std::size_t k = 0; k < axes; ++k) {
    b.axis[k].stride = stride[k];
    b.axis[k].begin = static_cast<std::uint32_t>(runs.size());
    runs.insert(runs.end(), local[k].begin(), local[k].end());
    b.axis[k].end = static_cast<std::uint32_t>(runs.size());
  }
  return b;
}

/// The block of `section` in storage under a local layout: the offsets of its points, enumerated
/// as `make_block` enumerates them (axis `axis_order[0]` outermost, each axis in increasing order
/// of position in the section), as one axis of runs. Each row along the innermost axis is asked
/// for in stretches (`StorageLayout::custom_stretch`: one `local_offset` and one `local_run` per
/// stretch of consecutive offsets the layout reports), so a layout that keeps the rows together
/// costs a few calls per row rather than one per point.
template <std::size_t N>
Block make_custom_block(const StorageLayout<N>& layout, int patch, const Section<N>& section,
                        const std::array<int, N>& axis_order, std::vector<Section1>& runs) {
  const auto inner = static_cast<std::size_t>(axis_order[N - 1]);
  std::array<std::vector<index_t>, N> indices;  // indices[k]: the positions along axis axis_order[k], k < N - 1
  for (std::size_t k = 0; k + 1 < N; ++k)
    for_each_run(section.dim[static_cast<std::size_t>(axis_order[k])], [&](index_t first, index_t length) {
      for (index_t i = first; i < first + length; ++i) indices[k].push_back(i);
    });
  std::vector<std::pair<index_t, index_t>> rows;  // the runs (first, length) along the innermost axis
  for_each_run(section.dim[inner], [&](index_t first, index_t length) { rows.emplace_back(first, length); });
  Block b;
  b.volume = volume(section);
  b.axes = 1;
  b.axis[0].stride = 1;
  b.axis[0].begin = static_cast<std::uint32_t>(runs.size());
  OffsetRunAppender out(runs);
  std::array<std::size_t, N> at{};
  Point<N> p;
  for (bool more = b.volume > 0; more;) {
    for (std::size_t k = 0; k + 1 < N; ++k) p[static_cast<std::size_t>(axis_order[k])] = indices[k][at[k]];
    for (const auto& [first, length] : rows) {
      p[inner] = first;
      for (index_t left = length; left > 0;) {
        const auto [offset, n] = layout.custom_stretch(p, inner, left, patch);
        out.add(offset, n);
        p[inner] += n, left -= n;
      }
    }
    more = false;
    for (std::size_t k = N - 1; k-- > 0 && !more;) {
      more = ++at[k] < indices[k].size();
      if (!more) at[k] = 0;
    }
  }
  out.finish();
  b.axis[0].end = static_cast<std::uint32_t>(runs.size());
  return b;
}

/// Throws `Error(out_of_range)` naming the copy if storage under a local layout does not store all
/// of `s` (owned, or in the ghost slabs of box `patch`; of one box for -1).
template <std::size_t N>
void check_custom_stores(const StorageLayout<N>& layout, int patch, const Section<N>& s, std::size_t copy_index,
                         const char* side, int rank) {
  if (!layout.custom_stores(s, patch))
    fail(ErrorCode::out_of_range, "MotionPlan copy ", copy_index, ": the ", side, " section ", s,
         " is not stored by rank ", rank, " (its storage follows a user-defined local layout: the owned points",
         patch >= 0 ? detail::concat(" and the ghost cells of its box ", patch) : std::string(" and its ghost cells"), ")");
}

template <std::size_t N>
int resolve_patch(const StorageLayout<N>& layout, int given, const Section<N>& s, std::size_t copy_index,
                  const char* side, int rank) {
  const int patch = given >= 0 ? given : layout.patch_for(s);
  if (patch < 0 || patch >= static_cast<int>(layout.patches().size()) ||
      !layout.patches()[static_cast<std::size_t>(patch)].stores(s))
    fail(ErrorCode::out_of_range, "MotionPlan copy ", copy_index, ": the ", side, " section ", s,
         " is not stored by rank ", rank, " (outside its owned data and ghost layers)");
  return patch;
}

/// The block of copy `i`'s section `s` on one side: patches, or the offsets of a local layout.
template <std::size_t N>
Block side_block(const StorageLayout<N>& layout, int given_patch, const Section<N>& s, const std::array<int, N>& order,
                 std::size_t i, const char* side, int rank, std::vector<Section1>& runs) {
  if (layout.custom()) {
    check_custom_stores(layout, given_patch, s, i, side, rank);
    return make_custom_block(layout, given_patch, s, order, runs);
  }
  return make_block(layout, resolve_patch(layout, given_patch, s, i, side, rank), s, order, runs);
}

/// A copy between two ranks whose outermost axis (in enumeration order) is several runs, each run a
/// piece of at least this many elements, is cut into one block per run: each piece then travels
/// as a message of its own (`PeerBlocks::block_messages`), in place wherever it is contiguous.
/// Block -> block-cyclic(64) redistribution of 2048^2 doubles on 2 ranks, the 8 MiB for the peer as
/// 8 stretches of 1 MiB: sent as one datatype message 2.0 ms, as 8 messages straight from array to
/// array 1.3 ms (OpenMPI's single copy, CMA, moves a contiguous message once; a datatype goes through
/// its fragments); pieces of 64 KiB still gained (2.06 against 1.56 ms), 16 KiB lost (2.03 against
/// 2.19), and 2048 pieces of 64 KiB lost (one datatype 58 ms, the pieces 81 ms, at 8192^2): the
/// cost per message (single launches: bench/redistribute-pieces-experiment.txt).
inline constexpr index_t kMinPieceElements = 8192;
/// ... and at most this many pieces per copy.
inline constexpr index_t kMaxCopyPieces = 128;

/// The number of pieces copy `c` is cut into along source axis `a` and destination axis `d` (its
/// outermost ones): the runs of that axis, when both sides have the same runs and the pieces are
/// large (`kMinPieceElements`, `kMaxCopyPieces`); 1 otherwise. Depends on the copy alone, so that
/// sender and receiver cut alike.
template <std::size_t N>
index_t piece_count(const Copy<N>& c, int a, int d) {
  const Section1 from = c.src.dim[static_cast<std::size_t>(a)].normalized();
  const Section1 to = c.dst.dim[static_cast<std::size_t>(d)].normalized();
  if (from.run_count < 2 || from.run_count > kMaxCopyPieces || from.run_count != to.run_count ||
      from.run_length != to.run_length)
    return 1;
  return volume(c.src) / from.run_count >= kMinPieceElements ? from.run_count : 1;
}

/// Piece k of `s` along axis `a` (run k of that axis; `s.dim[a]` normalized with several runs).
template <std::size_t N>
Section<N> piece_of(Section<N> s, int a, index_t k) {
  Section1& axis = s.dim[static_cast<std::size_t>(a)];
  const index_t first = axis.first + k * axis.stride;
  axis = Section1::interval(first, first + axis.run_length);
  return s;
}

inline PeerBlocks& peer_entry(std::vector<PeerBlocks>& list, std::map<int, std::size_t>& index, int peer) {
  auto [it, added] = index.emplace(peer, list.size());
  if (added) list.push_back(PeerBlocks{peer, {}, 0});
  return list[it->second];
}

}  // namespace detail

/// Compiles the copies of `plan` that involve `rank`: sources are looked up in `src` (the layout of
/// `rank`'s part of the source array), destinations in `dst`. Copies keep the plan's order per peer;
/// the elements of one copy are enumerated in the source's storage order (`src.order()`), except
/// a copy between two ranks of a plan whose permutation moves the source's fastest axis: in the
/// destination's (`dst.order()`).
/// Throws `Error(out_of_range)` naming the copy if a section is not stored by this rank.
/// `local_copies_disjoint`: the caller knows that, even when source and destination are the same
/// array, no local copy reads an element another one writes (a halo reads owned data and writes
/// ghosts), so the mover may copy local blocks directly instead of through a staging buffer.
template <std::size_t N>
[[nodiscard]] Schedule compile_schedule(const MotionPlan<N>& plan, int rank, const StorageLayout<N>& src,
                                        const StorageLayout<N>& dst, bool local_copies_disjoint = false) {
  Schedule s;
  s.local_disjoint = local_copies_disjoint;
  // Elements are enumerated along the source's storage order (slowest axis outermost), so that a
  // block's innermost axis is the source's contiguous one and axes merge into long runs. Sender and
  // receiver agree: both derive the order from the source ghost spec, which every rank knows.
  const std::array<int, N> src_order = axes_slowest_first<N>(src.order());
  std::array<int, N> dst_order{};
  for (std::size_t d = 0; d < N; ++d) {
    // Destination axis d runs along source axis perm[d]: it goes where that source axis goes.
    const auto k = std::find(src_order.begin(), src_order.end(), plan.permutation()[d]) - src_order.begin();
    dst_order[static_cast<std::size_t>(k)] = static_cast<int>(d);
  }
  // A copy between two ranks of a plan that moves the source's fastest axis elsewhere (a 2-D
  // transpose: element-wise strides on one side or the other) is enumerated along the destination's
  // storage order instead: the sender packs it transposed (strided reads, FFTW's way) and the
  // receiver's block keeps the destination's contiguous runs, received with few long stretches
  // instead of being unpacked element by element (bench_transpose, 2 ranks, three launches:
  // bench/published-transpose.json; the A/B runs against the source order: docs/engine.md). A
  // permutation that keeps the fastest axis (3-D axes 0 and 1 swapped: rows move whole either way)
  // keeps the source order, which measured faster there. Both sides know the permutation and both
  // orders (the ghost specs), so they enumerate alike. Local copies keep the source order.
  const std::array<int, N> remote_dst_order = axes_slowest_first<N>(dst.order());
  const bool fastest_moves =
      plan.permutation()[static_cast<std::size_t>(remote_dst_order[N - 1])] != src_order[N - 1];
  std::array<int, N> remote_src_order{};
  for (std::size_t k = 0; k < N; ++k)
    remote_src_order[k] = plan.permutation()[static_cast<std::size_t>(remote_dst_order[k])];
  std::map<int, std::size_t> send_index, receive_index;
  const auto& copies = plan.copies();
  for (std::size_t i = 0; i < copies.size(); ++i) {
    const Copy<N>& c = copies[i];
    if (c.src_rank != rank && c.dst_rank != rank) continue;
    const bool by_destination = fastest_moves && c.src_rank != c.dst_rank;
    const auto& from_order = by_destination ? remote_src_order : src_order;
    const auto& to_order = by_destination ? remote_dst_order : dst_order;
    if (const index_t pieces = c.src_rank == c.dst_rank ? 1 : detail::piece_count(c, from_order[0], to_order[0]);
        pieces > 1) {
      // One block per run of the outermost axis (detail::kMinPieceElements says why).
      const bool sending = c.src_rank == rank;
      PeerBlocks& p = sending ? detail::peer_entry(s.sends, send_index, c.dst_rank)
                              : detail::peer_entry(s.receives, receive_index, c.src_rank);
      p.block_messages = true;
      for (index_t k = 0; k < pieces; ++k) {
        const Block b = sending ? detail::side_block(src, c.src_patch, detail::piece_of(c.src, from_order[0], k),
                                                     from_order, i, "source", rank, s.runs)
                                : detail::side_block(dst, c.dst_patch, detail::piece_of(c.dst, to_order[0], k),
                                                     to_order, i, "destination", rank, s.runs);
        p.blocks.push_back(b);
        p.elements += b.volume;
      }
      continue;
    }
    Block from, to;
    if (c.src_rank == rank) from = detail::side_block(src, c.src_patch, c.src, from_order, i, "source", rank, s.runs);
    if (c.dst_rank == rank) to = detail::side_block(dst, c.dst_patch, c.dst, to_order, i, "destination", rank, s.runs);
    if (c.src_rank == rank && c.dst_rank == rank) {
      s.local_src.push_back(from);
      s.local_dst.push_back(to);
    } else if (c.src_rank == rank) {
      PeerBlocks& p = detail::peer_entry(s.sends, send_index, c.dst_rank);
      p.blocks.push_back(from);
      p.elements += from.volume;
    } else {
      PeerBlocks& p = detail::peer_entry(s.receives, receive_index, c.src_rank);
      p.blocks.push_back(to);
      p.elements += to.volume;
    }
  }
  const auto by_peer = [](const PeerBlocks& a, const PeerBlocks& b) { return a.peer < b.peer; };
  std::sort(s.sends.begin(), s.sends.end(), by_peer);
  std::sort(s.receives.begin(), s.receives.end(), by_peer);
  return s;
}

/// Checks every copy of a hand-built plan against the layouts of every rank it names (so that all
/// ranks, which hold the same plan, raise the same error). Throws `Error(out_of_range)` naming the
/// copy, or `Error(invalid_argument)` for a rank outside the communicator.
template <std::size_t N>
void validate_plan(const MotionPlan<N>& plan, const Distribution<N>& src, const GhostSpec<N>& src_ghosts,
                   const Distribution<N>& dst, const GhostSpec<N>& dst_ghosts) {
  std::map<int, StorageLayout<N>> src_layouts, dst_layouts;
  const auto layout_of = [](std::map<int, StorageLayout<N>>& cache, const Distribution<N>& dist, const GhostSpec<N>& g,
                            int rank, std::size_t i, const char* side) -> const StorageLayout<N>& {
    if (rank >= dist.comm_size())
      fail_argument("MotionPlan", detail::concat("copy ", i, " ", side, " rank"), rank,
                    detail::concat("is not in [0, ", dist.comm_size(), ")"));
    auto it = cache.find(rank);
    if (it == cache.end()) it = cache.emplace(rank, StorageLayout<N>::make(dist, rank, g)).first;
    return it->second;
  };
  const auto& copies = plan.copies();
  for (std::size_t i = 0; i < copies.size(); ++i) {
    const Copy<N>& c = copies[i];
    const auto check = [&](const StorageLayout<N>& layout, int patch, const Section<N>& s, const char* side, int r) {
      if (layout.custom())
        detail::check_custom_stores(layout, patch, s, i, side, r);
      else
        (void)detail::resolve_patch(layout, patch, s, i, side, r);
    };
    check(layout_of(src_layouts, src, src_ghosts, c.src_rank, i, "source"), c.src_patch, c.src, "source", c.src_rank);
    check(layout_of(dst_layouts, dst, dst_ghosts, c.dst_rank, i, "destination"), c.dst_patch, c.dst, "destination",
          c.dst_rank);
  }
}

}  // namespace tessera
