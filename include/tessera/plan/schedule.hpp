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
#include <vector>

#include "tessera/core/index.hpp"
#include "tessera/geometry/section.hpp"

namespace tessera {

inline constexpr std::size_t kMaxAxes = 4;

struct BlockAxis {
  index_t stride = 0;        ///< elements between consecutive local indices along this axis
  std::uint32_t begin = 0;   ///< this axis' runs are Schedule::runs[begin, end)
  std::uint32_t end = 0;
};

struct Block {
  index_t base = 0;     ///< element offset of local index 0 on every axis
  std::uint32_t axes = 0;
  std::array<BlockAxis, kMaxAxes> axis{};
  index_t volume = 0;   ///< elements in the block
};

/// The blocks exchanged with one peer, in the order both sides agree on.
struct PeerBlocks {
  int peer = 0;
  std::vector<Block> blocks;
  index_t elements = 0;
};

class Schedule {
 public:
  std::vector<PeerBlocks> sends;      ///< ascending peer
  std::vector<PeerBlocks> receives;   ///< ascending peer
  std::vector<Block> local_src;       ///< local copy k reads local_src[k] ...
  std::vector<Block> local_dst;       ///< ... and writes local_dst[k]
  std::vector<Section1> runs;         ///< the runs every block's axes refer to

  /// Calls `visit(offset, count, stride)` for each stretch of `count` elements starting at element
  /// `offset` and `stride` elements apart (stride 1: contiguous), in the block's enumeration order.
  template <class Visit>
  void for_each_stretch(const Block& b, Visit&& visit) const {
    if (b.volume > 0) walk(b, 0, b.base, visit);
  }

  [[nodiscard]] index_t send_elements() const noexcept {
    index_t n = 0;
    for (const auto& p : sends) n += p.elements;
    return n;
  }
  [[nodiscard]] index_t receive_elements() const noexcept {
    index_t n = 0;
    for (const auto& p : receives) n += p.elements;
    return n;
  }
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

}  // namespace tessera
