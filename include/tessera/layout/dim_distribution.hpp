#pragma once
/// \file
/// `DimDistribution`: a `DimSpec` bound to the indices `[lo, hi)` of one dimension and the `g`
/// coordinates of one grid axis. It answers, without communication:
/// - `owner(i)`: the coordinate that owns index i — O(1) (block, cyclic, block-cyclic, irregular)
///   or O(log g) (cut);
/// - `local_offset(i)`: i's position in its owner's compacted local storage (ScaLAPACK-style
///   compaction for cyclic kinds: local index = (global block / g) · b + offset in block);
/// - `local_count(c)`, and `owned(c)`: the indices c owns as disjoint regular sections in increasing
///   order (one for interval kinds; for block-cyclic one, plus one for a partial last block);
/// - `pieces(...)`: which coordinates own the parts of an interval or a section, as
///   (sub-section, coordinate) pairs in O(pieces + log g): a cyclic dimension yields at most g
///   pieces, never one per element.
///
/// A `flooded` dimension is held whole by every coordinate (a replica each): `local_count`,
/// `owned` and `local_offset` are those of the whole dimension for every c, while `owner` and
/// `pieces` name coordinate 0, the canonical replica (`Distribution` substitutes the reader's own
/// replica where it matters).
///
/// Metadata is O(g) (the g+1 boundaries of interval kinds), except `irregular`, whose owner table
/// is O(hi - lo) by nature. Copies share immutable tables.

#include <cstdint>
#include <memory>
#include <ostream>
#include <string_view>
#include <utility>
#include <vector>

#include "tessera/core/index.hpp"
#include "tessera/geometry/section.hpp"
#include "tessera/layout/dim_spec.hpp"

namespace tessera {

/// One piece of an interval or section, and the grid coordinate that owns it.
struct DimPiece {
  /// The indices of the piece.
  Section1 section;
  /// The grid coordinate that owns them.
  int coord = 0;
  friend bool operator==(const DimPiece&, const DimPiece&) = default;
};

/// A per-dimension distribution bound to an extent and a grid axis (see the file comment).
class DimDistribution {
 public:
  /// Binds `spec` to `[lo, hi)` and a grid axis of extent `g`, validating it. `where` names the
  /// caller in error messages (e.g. "Distribution dimension 1").
  /// Throws `Error(invalid_argument)` naming the argument and value for: g < 1, hi < lo, a
  /// logical block < 1, cut boundaries that are not g+1, not monotone or do not start at lo and end
  /// at hi, or do not lie on the logical block; weights that are not g, negative, NaN or all zero;
  /// a block size < 1 or not a multiple of the logical block; a source outside [0, g); collapsed
  /// over g > 1; a flooded dimension with a logical block other than 1 (it is never split); an
  /// irregular table of the wrong length or with a coordinate outside [0, g);
  /// `general` (only `Distribution::from_rank_weights` binds it, through `bind_cut`).
  [[nodiscard]] static DimDistribution bind(const DimSpec& spec, index_t lo, index_t hi, int g, std::string_view where);
  /// A cut from explicit boundaries, the way `general` dimensions are bound for one slab.
  [[nodiscard]] static DimDistribution bind_cut(DimKind printed_as, std::vector<index_t> boundaries,
                                                index_t logical_block, std::string_view where);

  /// Boundaries (g+1 of them, lo first, hi last) that split `[lo, hi)` in proportion to `weights`,
  /// on multiples of `logical_block` from lo. Validates the weights as `bind` does.
  [[nodiscard]] static std::vector<index_t> boundaries_from_weights(const std::vector<double>& weights, index_t lo,
                                                                    index_t hi, index_t logical_block,
                                                                    std::string_view where);

  /// The kind (block, cut, cyclic, ...).
  [[nodiscard]] DimKind kind() const noexcept { return kind_; }
  /// Lowest index of the dimension.
  [[nodiscard]] index_t lo() const noexcept { return lo_; }
  /// One past the highest index.
  [[nodiscard]] index_t hi() const noexcept { return hi_; }
  /// Coordinates of the grid axis the dimension is spread over.
  [[nodiscard]] int grid_extent() const noexcept { return g_; }
  /// The logical block: boundaries lie on multiples of it.
  [[nodiscard]] index_t logical_block() const noexcept { return logical_block_; }
  /// Indices per block of the cyclic kinds (block_cyclic: its block size; cyclic: the logical block).
  [[nodiscard]] index_t cycle_block() const noexcept { return block_size_; }

  /// True if every coordinate owns one interval (block, cut, weights, general, collapsed, flooded):
  /// ghost layers are possible along this dimension.
  [[nodiscard]] bool owns_intervals() const noexcept;
  /// True for a flooded dimension: every coordinate holds all of `[lo, hi)`.
  [[nodiscard]] bool is_flooded() const noexcept { return kind_ == DimKind::flooded; }
  /// The g+1 boundaries of an interval kind that splits the dimension (empty vector otherwise,
  /// flooded included: its intervals overlap).
  [[nodiscard]] const std::vector<index_t>& boundaries() const noexcept;
  /// First index of coordinate c's interval (interval kinds): `boundaries()[c]`, or lo if flooded.
  [[nodiscard]] index_t interval_start(int c) const noexcept;

  /// The coordinate owning index i; i must lie in [lo, hi) (checked only in debug builds).
  [[nodiscard]] int owner(index_t i) const noexcept;
  /// i's position in its owner's local storage, in [0, local_count(owner(i))).
  [[nodiscard]] index_t local_offset(index_t i) const noexcept;
  /// Inverse of `local_offset`: the global index at `offset` in coordinate c's local storage.
  [[nodiscard]] index_t global_index(int c, index_t offset) const noexcept;
  /// How many indices coordinate c owns.
  [[nodiscard]] index_t local_count(int c) const noexcept;
  /// The indices coordinate c owns, as disjoint sections in increasing order (none if it owns none).
  [[nodiscard]] SectionList1 owned(int c) const;

  /// Appends the (section, coordinate) pieces covering `[a, b) ∩ [lo, hi)`, in increasing order of
  /// coordinate for cyclic kinds and of index otherwise.
  void pieces(index_t a, index_t b, std::vector<DimPiece>& out) const;
  /// Appends the pieces covering the indices of `s` that lie in `[lo, hi)`.
  void pieces(const Section1& s, std::vector<DimPiece>& out) const;

  /// Replicated metadata held by this dimension, in bytes (for the metadata benchmark).
  [[nodiscard]] std::size_t metadata_bytes() const noexcept;

  /// Same kind, extent, grid extent and parameters (so the same owner for every index).
  friend bool operator==(const DimDistribution& a, const DimDistribution& b) noexcept;
  /// Stable hash, consistent with ==.
  [[nodiscard]] std::uint64_t hash() const noexcept { return hash_; }

  /// `block`, `cut(0,3,6)`, `cyclic`, `block_cyclic(64,src=1)`, `collapsed`, `flooded`, `irregular(n=100)`;
  /// a logical block other than 1 is shown as `(lb=4)`.
  friend std::ostream& operator<<(std::ostream& out, const DimDistribution& d);

 private:
  struct IrregularTable;
  DimDistribution() = default;
  void finish();  // computes the hash once the fields are set

  DimKind kind_ = DimKind::block;
  index_t lo_ = 0, hi_ = 0;
  int g_ = 1;
  index_t logical_block_ = 1;
  index_t block_size_ = 1;                              // cyclic kinds
  int source_ = 0;                                      // cyclic kinds
  std::shared_ptr<const std::vector<index_t>> bounds_;  // interval kinds: g+1 boundaries
  std::shared_ptr<const IrregularTable> irregular_;     // irregular only
  std::uint64_t hash_ = 0;
};

}  // namespace tessera
