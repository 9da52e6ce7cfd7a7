#pragma once
/// \file
/// How one dimension of a domain is spread over one axis of a processor grid: the *specification*
/// a user writes (`block()`, `cut({0, 40, 100})`, `block_cyclic(64)`, ...). A specification is not
/// yet tied to an extent or a grid; `DimDistribution::bind` does that and validates it.
///
/// | spec | ZPL | D3-ARC | HPF | coordinate c owns |
/// |---|---|---|---|---|
/// | `block()` | `blk` | `D_BLOCK` | BLOCK | one interval, sizes differ by at most one logical block |
/// | `cut(b)` | `cut` | — | GEN_BLOCK | `[b[c], b[c+1])`; `b` has g+1 monotone entries from lo to hi |
/// | `cut_weights(w)` | — | `D_GENERAL` | — | one interval, sized in proportion to `w[c]` |
/// | `general()` | — | `D_GENERAL` | — | per-slab cuts from per-rank weights (`Distribution::from_rank_weights`) |
/// | `cyclic()` | `cyc` | `D_CYCLIC` | CYCLIC | every g-th logical block |
/// | `block_cyclic(b, s)` | `blkcyc` | — | CYCLIC(b) | every g-th block of b indices, block 0 on coordinate s (ScaLAPACK) |
/// | `collapsed()` | `null` | `D_NONE` | `*` | everything (the grid axis must have extent 1) |
/// | `flooded()` | flood `*` | — | — | everything, on every coordinate: a replica per coordinate |
/// | `irregular(o)` | irregular | — | INDIRECT | the indices i with `o[i - lo] == c` |
///
/// Every spec may carry a *logical block* (D3-ARC `d3_darray`'s fifth argument): the smallest unit
/// any boundary may move by. Boundaries then lie on multiples of it, counted from the low end of the
/// dimension (the last boundary is the high end, whatever the remainder).

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "tessera/core/index.hpp"

namespace tessera {

/// The kinds of per-dimension distribution.
enum class DimKind : std::uint8_t { block, cut, cut_weights, general, cyclic, block_cyclic, collapsed, irregular, flooded };

/// Name of a kind as printed (`block`, `cut`, ...).
[[nodiscard]] const char* to_string(DimKind kind) noexcept;

/// A per-dimension distribution, not yet bound to an extent and a grid axis. Build with the
/// factories below; copy freely.
struct DimSpec {
  /// Which kind of distribution.
  DimKind kind = DimKind::block;
  index_t logical_block = 1;        ///< smallest unit a boundary may move by
  index_t block_size = 0;           ///< block_cyclic: indices per block
  int source = 0;                   ///< block_cyclic: coordinate that owns block 0
  std::vector<index_t> boundaries;  ///< cut: g+1 entries, lo first, hi last, non-decreasing
  std::vector<double> weights;      ///< cut_weights: g non-negative weights
  std::vector<int> owners;          ///< irregular: a grid coordinate per index

  /// The same spec with boundaries restricted to multiples of `block` (see the file comment).
  [[nodiscard]] DimSpec with_logical_block(index_t block) const {
    DimSpec s = *this;
    s.logical_block = block;
    return s;
  }
  friend bool operator==(const DimSpec&, const DimSpec&) = default;
};

/// Balanced blocks: with n indices over g coordinates, the first n mod g coordinates get one more.
[[nodiscard]] inline DimSpec block() { return {}; }
/// Explicit boundaries `b[0] = lo <= b[1] <= ... <= b[g] = hi`; coordinate c owns `[b[c], b[c+1])`.
[[nodiscard]] inline DimSpec cut(std::vector<index_t> boundaries) {
  DimSpec s;
  s.kind = DimKind::cut;
  s.boundaries = std::move(boundaries);
  return s;
}
/// One interval per coordinate, sized in proportion to `weights` (g entries), rounded to the
/// logical block.
[[nodiscard]] inline DimSpec cut_weights(std::vector<double> weights) {
  DimSpec s;
  s.kind = DimKind::cut_weights;
  s.weights = std::move(weights);
  return s;
}
/// D3-ARC's `D_GENERAL`: cuts computed per slab from per-rank weights, in the distribution's
/// dimension order; only `Distribution::from_rank_weights` accepts it.
[[nodiscard]] inline DimSpec general() {
  DimSpec s;
  s.kind = DimKind::general;
  return s;
}
/// Round robin over logical blocks (of one index unless `with_logical_block` says otherwise).
[[nodiscard]] inline DimSpec cyclic() {
  DimSpec s;
  s.kind = DimKind::cyclic;
  return s;
}
/// ScaLAPACK's block-cyclic: blocks of `block_size` indices dealt round robin, block 0 on
/// coordinate `source`.
[[nodiscard]] inline DimSpec block_cyclic(index_t block_size, int source = 0) {
  DimSpec s;
  s.kind = DimKind::block_cyclic;
  s.block_size = block_size;
  s.source = source;
  return s;
}
/// Not distributed: the whole dimension on every coordinate of an axis of extent 1.
[[nodiscard]] inline DimSpec collapsed() {
  DimSpec s;
  s.kind = DimKind::collapsed;
  return s;
}
/// ZPL's flood dimension (`*` in a region): every coordinate of the grid axis holds the whole
/// dimension, a replica of its own (a grid row sharing one copy of a column panel, say). Reads take
/// the replica of the reader's own coordinate; writes by the library reach every replica; reductions
/// count one replica (docs/concepts.md, "Flooded axes").
[[nodiscard]] inline DimSpec flooded() {
  DimSpec s;
  s.kind = DimKind::flooded;
  return s;
}
/// An owner coordinate for every index of the dimension, `owners[i - lo]`.
[[nodiscard]] inline DimSpec irregular(std::vector<int> owners) {
  DimSpec s;
  s.kind = DimKind::irregular;
  s.owners = std::move(owners);
  return s;
}

/// Prints the spec as written: `block`, `cut(0,3,6)`, `block_cyclic(64)`, `cyclic(lb=4)`, ...
std::ostream& operator<<(std::ostream& out, const DimSpec& spec);

}  // namespace tessera
