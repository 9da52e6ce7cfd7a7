#pragma once
/// \file
/// `Schedule`: one rank's compiled plan (PARTI's schedule, KeLP's inspector output). Per peer, the
/// ordered blocks of local storage to pack (sends) or unpack (receives); local copies apart. It is
/// independent of the element type (offsets are in elements) and of N, so one mover serves all.
///
/// A **block** is a strided region of a rank's buffer, enumerated in the order its copy defines:
/// up to `kMaxAxes` nested axes, outermost first; along each axis the positions run through a list
/// of local runs (`Section1` in local indices), and local index l of axis k lies `l * stride[k]`
/// elements from the block's base. The innermost axis usually has stride 1: its runs are contiguous
/// and are copied with one memcpy each. Axes that are contiguous in memory are merged at compile
/// time, so a whole face of a 2-D array is one run.

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "tessera/core/index.hpp"
#include "tessera/geometry/section.hpp"

namespace tessera {

/// Nested axes a Block can have: enough for 3-D sections plus one merged axis.
inline constexpr std::size_t kMaxAxes = 4;

/// One axis of a Block: which runs of the schedule it uses and how far apart they repeat.
struct BlockAxis {
  index_t stride = 0;       ///< elements between consecutive local indices along this axis
  std::uint32_t begin = 0;  ///< this axis' runs are Schedule::runs[begin, end)
  std::uint32_t end = 0;
};

/// A piece of local memory to pack or unpack: up to kMaxAxes nested axes of runs.
struct Block {
  index_t base = 0;  ///< element offset of local index 0 on every axis
  std::uint32_t axes = 0;
  std::array<BlockAxis, kMaxAxes> axis{};
  index_t volume = 0;  ///< elements in the block
};

/// The blocks exchanged with one peer, in the order both sides agree on.
struct PeerBlocks {
  int peer = 0;
  std::vector<Block> blocks;
  index_t elements = 0;
  /// Each block travels as a message of its own: in place where it is contiguous on this side,
  /// packed otherwise. Set by `compile_schedule` when it cut this peer's copies into large pieces
  /// (`kMinPieceElements`), from the copies alone, so that both sides of the pair set it alike.
  bool block_messages = false;
};

/// One rank's compiled plan: per peer, the blocks of local memory to pack or unpack, and the local copies (see the file comment).
class Schedule {
 public:
  std::vector<PeerBlocks> sends;     ///< ascending peer
  std::vector<PeerBlocks> receives;  ///< ascending peer
  std::vector<Block> local_src;      ///< local copy k reads local_src[k] ...
  std::vector<Block> local_dst;      ///< ... and writes local_dst[k]
  std::vector<Section1> runs;        ///< the runs every block's axes refer to
  bool local_disjoint = false;       ///< local copies never overlap, even within one array
  /// The local copies run first, in order, each reading what the ones before it wrote, and the
  /// messages start only after them (a staged halo, plan/staged_halo_plan.hpp): the sends read
  /// cells the local copies fill, so source and destination must be one array.
  bool local_first = false;
  /// Every block to send or receive is contiguous on both sides and travels as a message of its
  /// own, straight from and into the array (a staged halo's slabs): both sides know it from the
  /// plan, so they cut a peer's data alike even when it is several blocks.
  bool block_messages = false;

  /// Calls `visit(offset, count, stride)` for each stretch of `count` elements starting at element
  /// `offset` and `stride` elements apart (stride 1: contiguous), in the block's enumeration order.
  template <class Visit>
  void for_each_stretch(const Block& b, Visit&& visit) const {
    if (b.volume > 0) walk(b, 0, b.base, visit);
  }

  /// Like `for_each_stretch`, but calls `visit(offset, count, stride, rows, row_stride)` once per
  /// group of `rows` equal stretches, stretch r starting at `offset + r * row_stride`: where the
  /// innermost axis is one run, a whole run of the axis above it is one call, not one per position.
  template <class Visit>
  void for_each_stretch_group(const Block& b, Visit&& visit) const {
    if (b.volume > 0) walk_groups(b, 0, b.base, visit);
  }

  /// If `b` is `rows` stretches of `count` elements (`stride` apart inside a stretch) starting
  /// `row_stride` apart from `offset` — the shape of most faces — returns true and fills them in.
  [[nodiscard]] bool as_rows(const Block& b, index_t& offset, index_t& count, index_t& stride, index_t& rows,
                             index_t& row_stride) const noexcept {
    const auto one_run = [&](const BlockAxis& a) { return a.end - a.begin == 1 && runs[a.begin].run_count == 1; };
    if (b.axes == 1 && one_run(b.axis[0])) {
      offset = b.base + runs[b.axis[0].begin].first * b.axis[0].stride;
      count = runs[b.axis[0].begin].run_length;
      stride = b.axis[0].stride;
      rows = 1;
      row_stride = 0;
      return true;
    }
    if (b.axes != 2 || !one_run(b.axis[0]) || !one_run(b.axis[1])) return false;
    const Section1& outer = runs[b.axis[0].begin];
    const Section1& inner = runs[b.axis[1].begin];
    offset = b.base + outer.first * b.axis[0].stride + inner.first * b.axis[1].stride;
    count = inner.run_length;
    stride = b.axis[1].stride;
    rows = outer.run_length;
    row_stride = b.axis[0].stride;
    return true;
  }

  /// Elements this rank sends per execution, every peer together.
  [[nodiscard]] index_t send_elements() const noexcept {
    index_t n = 0;
    for (const auto& p : sends) n += p.elements;
    return n;
  }
  /// Elements this rank receives per execution.
  [[nodiscard]] index_t receive_elements() const noexcept {
    index_t n = 0;
    for (const auto& p : receives) n += p.elements;
    return n;
  }
  /// Elements copied within this rank per execution (no message).
  [[nodiscard]] index_t local_elements() const noexcept {
    index_t n = 0;
    for (const auto& b : local_src) n += b.volume;
    return n;
  }
  /// True if `b` is one contiguous stretch of memory (it can be sent or received in place).
  [[nodiscard]] bool contiguous(const Block& b) const noexcept {
    if (b.axes != 1) return false;
    const BlockAxis& a = b.axis[0];
    return a.stride == 1 && a.end - a.begin == 1 && runs[a.begin].run_count == 1;
  }
  /// Element offset of the first element of a contiguous block.
  [[nodiscard]] index_t contiguous_offset(const Block& b) const noexcept {
    return b.base + runs[b.axis[0].begin].first;
  }

 private:
  template <class Visit>
  void walk_groups(const Block& b, std::uint32_t k, index_t base, Visit& visit) const {
    const BlockAxis& a = b.axis[k];
    if (k + 1 == b.axes) {
      for (std::uint32_t r = a.begin; r < a.end; ++r)
        for (index_t j = 0; j < runs[r].run_count; ++j)
          visit(base + (runs[r].first + j * runs[r].stride) * a.stride, runs[r].run_length, a.stride, index_t{1},
                index_t{0});
      return;
    }
    const BlockAxis& in = b.axis[k + 1];
    const bool one_run = k + 2 == b.axes && in.end - in.begin == 1 && runs[in.begin].run_count == 1;
    for (std::uint32_t r = a.begin; r < a.end; ++r) {
      const Section1& run = runs[r];
      for (index_t j = 0; j < run.run_count; ++j) {
        const index_t first = run.first + j * run.stride;
        if (one_run) {
          const Section1& inner = runs[in.begin];
          visit(base + first * a.stride + inner.first * in.stride, inner.run_length, in.stride, run.run_length,
                a.stride);
        } else {
          for (index_t e = 0; e < run.run_length; ++e) walk_groups(b, k + 1, base + (first + e) * a.stride, visit);
        }
      }
    }
  }

  template <class Visit>
  void walk(const Block& b, std::uint32_t k, index_t base, Visit& visit) const {
    const BlockAxis& a = b.axis[k];
    const bool innermost = k + 1 == b.axes;
    for (std::uint32_t r = a.begin; r < a.end; ++r) {
      const Section1& run = runs[r];
      for (index_t j = 0; j < run.run_count; ++j) {
        const index_t first = run.first + j * run.stride;
        if (innermost) {
          visit(base + first * a.stride, run.run_length, a.stride);
        } else {
          for (index_t e = 0; e < run.run_length; ++e) walk(b, k + 1, base + (first + e) * a.stride, visit);
        }
      }
    }
  }
};

/// Walks the stretches of a block one at a time (the iterative form of `for_each_stretch`), so
/// that two blocks can be walked in lockstep; holds no allocation.
class StretchCursor {
 public:
  StretchCursor(const Schedule& s, const Block& b) noexcept : s_(&s), b_(&b), done_(b.volume == 0) {
    for (std::uint32_t k = 0; k < b.axes; ++k) run_[k] = b.axis[k].begin;
  }
  [[nodiscard]] bool done() const noexcept { return done_; }
  /// First element of the current stretch.
  [[nodiscard]] index_t offset() const noexcept {
    index_t off = b_->base;
    const std::uint32_t last = b_->axes - 1;
    for (std::uint32_t k = 0; k < b_->axes; ++k) {
      const Section1& r = s_->runs[run_[k]];
      off += (r.first + rep_[k] * r.stride + (k == last ? 0 : elem_[k])) * b_->axis[k].stride;
    }
    return off;
  }
  [[nodiscard]] index_t count() const noexcept { return s_->runs[run_[b_->axes - 1]].run_length; }
  [[nodiscard]] index_t stride() const noexcept { return b_->axis[b_->axes - 1].stride; }
  void next() noexcept {
    const std::uint32_t last = b_->axes - 1;
    if (step_run(last)) return;
    for (std::uint32_t k = last; k-- > 0;) {
      if (++elem_[k] < s_->runs[run_[k]].run_length) return;
      elem_[k] = 0;
      if (step_run(k)) return;
    }
    done_ = true;
  }

 private:
  // Next repetition or run of axis k; false (and axis k back at its start) when it wraps.
  bool step_run(std::uint32_t k) noexcept {
    if (++rep_[k] < s_->runs[run_[k]].run_count) return true;
    rep_[k] = 0;
    if (++run_[k] < b_->axis[k].end) return true;
    run_[k] = b_->axis[k].begin;
    return false;
  }

  const Schedule* s_;
  const Block* b_;
  std::array<std::uint32_t, kMaxAxes> run_{};
  std::array<index_t, kMaxAxes> rep_{}, elem_{};
  bool done_;
};

/// `s` run backwards: each peer's sends become its receives and the reverse, local sources become
/// destinations. Both sides of each pair list their blocks in one order, so reversed schedules pair
/// up as the originals did, element by element (orientations included). Run by a mover with a
/// combine function, the reverse of a ghost fill combines every ghost into the cell it mirrors.
[[nodiscard]] inline Schedule reversed(Schedule s) {
  std::swap(s.sends, s.receives);
  std::swap(s.local_src, s.local_dst);
  return s;  // local_disjoint stays: the same blocks, read and written the other way
}

}  // namespace tessera
