#pragma once
/// \file
/// A multiblock layout (layout/multiblock.hpp) as text, for the `tessera` tool and configuration
/// files: a spec per block and a line per interface (docs/spec-format.md, "Multiblock").
/// \code
///   auto m = tessera::parse_multiblock_spec(
///       "width=2 ghosts=1 "
///       "block domain=6x8 "
///       "block domain=8x5 dist=cyclic,block "
///       "glue 0.0+ 1.1+ perm=1,0 flip=1,0 "   // block 0's upper face of axis 0 onto block 1's of axis 1
///       "glue 1.1+ 1.1-");                    // block 1 periodic along axis 1
///   auto layout = tessera::to_multiblock_layout<2>(m, 4);  // MultiblockLayout<2> over 4 ranks
///   auto g = tessera::to_ghosts<2>(m);                     // the arrays' ghosts
///   tessera::to_string(m);                                 // canonical text
/// \endcode
/// Every bad input is an `Error(invalid_argument)` naming the part of the text and its column (a
/// block's own spec errors as `parse_spec`'s do, with columns of the whole text).

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/geometry/orientation.hpp"
#include "tessera/layout/multiblock.hpp"
#include "tessera/spec/spec.hpp"

namespace tessera {

/// A face of a block in a multiblock spec: `B.A+` (block B's upper face of axis A) or `B.A-`,
/// optionally with the cells along it, `B.A+[0:1x2:7]`.
struct SpecFace {
  std::size_t block = 0;
  std::size_t axis = 0;
  bool upper = false;
  std::vector<index_t> lo, hi;  ///< the cells (one range per dimension); empty: the whole face
  friend bool operator==(const SpecFace&, const SpecFace&) = default;
};

/// `glue A B [perm=...] [flip=...]`: face A glued to face B; the orientation maps B's offsets onto
/// A's (axis d of A runs along axis perm[d] of B, reversed where flip[d] is 1).
struct SpecInterface {
  SpecFace a, b;
  std::vector<int> perm;   ///< empty: the identity
  std::vector<bool> flip;  ///< empty: no flips
  SpecSource source;       ///< the glue clause; not compared
  friend bool operator==(const SpecInterface& x, const SpecInterface& y) noexcept {
    return x.a == y.a && x.b == y.b && x.perm == y.perm && x.flip == y.flip;
  }
};

/// A parsed multiblock spec: the blocks (each a `Spec`: domain, grid and dist, or boxes; no
/// ghosts of their own), the interfaces, the layout's `max_ghost_width` and the arrays' ghosts.
struct MultiblockSpec {
  std::vector<Spec> blocks;
  std::vector<SpecInterface> interfaces;
  index_t width = 4;  ///< `width=`: MultiblockLayout's max_ghost_width
  /// `ghosts=` (before the first block): the arrays' ghost layers, kept as the axes of a `Spec`
  /// (lower, upper, corners); none if not given.
  Spec ghosts;
  friend bool operator==(const MultiblockSpec& a, const MultiblockSpec& b) noexcept {
    return a.blocks == b.blocks && a.interfaces == b.interfaces && a.width == b.width && a.ghosts == b.ghosts;
  }
  /// Number of dimensions (every block's).
  [[nodiscard]] std::size_t rank() const noexcept { return blocks.empty() ? 0 : blocks.front().rank(); }
};

/// True if `text` is a multiblock spec rather than one distribution's: its first word (comments and
/// blanks skipped) is `block`, `width=` or `ghosts=` followed later by a `block` word.
[[nodiscard]] bool is_multiblock_spec(std::string_view text);

/// Parses a multiblock spec (docs/spec-format.md, "Multiblock"). Throws `Error(invalid_argument)`
/// naming the bad part and its column: no block, blocks of different dimensions, a block with
/// `ghosts=`, a face that is not `B.A+` / `B.A-`, a block or axis out of range, a perm that is not a
/// permutation, a flip that is not 0s and 1s, a list of the wrong length.
[[nodiscard]] MultiblockSpec parse_multiblock_spec(std::string_view text);

/// The canonical text: `parse_multiblock_spec(to_string(m)) == m`.
[[nodiscard]] std::string to_string(const MultiblockSpec& spec);
std::ostream& operator<<(std::ostream& out, const MultiblockSpec& spec);

namespace detail {
/// Throws `Error(invalid_argument)` naming the glue clause `in` for `cause`.
[[noreturn]] void fail_in_glue(const SpecInterface& in, std::size_t index, std::string_view cause);
}  // namespace detail

/// The layout a multiblock spec describes over `comm_size` ranks: `to_distribution<N>` of every
/// block, the interfaces, `width`. Throws `Error(invalid_argument)` naming the block or the glue
/// clause for what `to_distribution` and `MultiblockLayout` refuse (faces of different sizes, an
/// orientation that does not turn B's normal onto A's, ...), or when the spec has not N dimensions.
template <std::size_t N>
  requires(N >= 1)
[[nodiscard]] MultiblockLayout<N> to_multiblock_layout(const MultiblockSpec& spec, int comm_size) {
  if (spec.rank() != N)
    fail(ErrorCode::invalid_argument, "to_multiblock_layout<", N, ">: the multiblock spec has ", spec.rank(),
         " dimensions");
  std::vector<Distribution<N>> blocks;
  for (std::size_t b = 0; b < spec.blocks.size(); ++b) {
    try {
      blocks.push_back(to_distribution<N>(spec.blocks[b], comm_size));
    } catch (const Error& e) {
      fail(ErrorCode::invalid_argument, "multiblock spec, block ", b, ": ", e.what());
    }
  }
  std::vector<BlockInterface<N>> interfaces;
  for (std::size_t i = 0; i < spec.interfaces.size(); ++i) {
    const SpecInterface& in = spec.interfaces[i];
    try {
      const auto face = [&](const SpecFace& f) {
        Box<N> cells;
        for (std::size_t d = 0; d < N && !f.lo.empty(); ++d) cells.lo[d] = f.lo[d], cells.hi[d] = f.hi[d];
        return BlockFace<N>{f.block, f.axis, f.upper, cells};
      };
      typename Orientation<N>::Permutation perm{};
      typename Orientation<N>::Flips flips{};
      for (std::size_t d = 0; d < N; ++d) {
        perm[d] = in.perm.empty() ? static_cast<int>(d) : in.perm[d];
        flips[d] = !in.flip.empty() && in.flip[d];
      }
      interfaces.push_back({face(in.a), face(in.b), Orientation<N>(perm, flips)});
    } catch (const Error& e) {
      detail::fail_in_glue(in, i, e.what());
    }
  }
  try {
    return MultiblockLayout<N>(blocks, interfaces, spec.width);
  } catch (const Error& e) {
    // Name the glue clause when one interface alone is refused (a face's size, an orientation);
    // two interfaces sharing a cell, or a bad width, are the whole spec's.
    for (std::size_t i = 0; i < interfaces.size(); ++i) {
      try {
        (void)MultiblockLayout<N>(blocks, {interfaces[i]}, spec.width);
      } catch (const Error& alone) {
        detail::fail_in_glue(spec.interfaces[i], i, alone.what());
      }
    }
    fail(ErrorCode::invalid_argument, "multiblock spec: ", e.what());
  }
}

/// The arrays' ghost layers of a multiblock spec (none if it gave no `ghosts=`).
template <std::size_t N>
  requires(N >= 1)
[[nodiscard]] GhostSpec<N> to_ghosts(const MultiblockSpec& spec) {
  if (spec.ghosts.axes.empty()) return no_ghosts<N>();
  return to_ghosts<N>(spec.ghosts);
}

}  // namespace tessera
