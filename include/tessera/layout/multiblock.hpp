#pragma once
/// \file
/// `MultiblockLayout<N>`: several blocks, each its own index space with its own distribution, glued
/// at faces with orientations (Multiblock PARTI; docs/box-sets.md, "Multiblock"). Pure, no MPI:
/// every rank builds the same layout from the same arguments and gets the same errors.
///
/// **Embedding.** The blocks are stored as one box set: block b's index space is shifted along
/// axis 0 (`offset(b)`) so that the blocks lie side by side with `max_ghost_width` empty columns
/// between them, and each box a rank owns in block b's distribution (a piece of it, for cyclic
/// distributions many) becomes a box of the set with that owner. A ghost update of the set then
/// fills each block's ghosts from its own cells only (the gaps are holes), and the interfaces add
/// the copies across faces (plan/multiblock_plan.hpp). A processor subset is a block whose
/// distribution gives boxes to some ranks only.
///
/// **Interfaces.** `BlockInterface{a, b, orientation}` glues face `a` (block, axis, side, and the
/// cells along it: a box one cell thick at the block's boundary; empty: the whole face) to face
/// `b`: the orientation maps offsets of b's index space to offsets of a's, and the glue sends b's
/// boundary cells onto the layer just outside a's face, so that crossing a's face outwards enters
/// b inwards. Hence `orientation.perm()[a.axis] == b.axis`, and the normal axis is flipped exactly
/// when both faces are on the same side (both upper or both lower). Both directions are filled: a's
/// ghosts from b's interior and b's ghosts from a's. A block glued to itself (its upper face of
/// axis d to its lower face, identity orientation) is periodic along d.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/core/hash.hpp"
#include "tessera/geometry.hpp"
#include "tessera/geometry/orientation.hpp"
#include "tessera/layout/box_set.hpp"
#include "tessera/layout/distribution.hpp"

namespace tessera {

/// A face of a block, or a part of it (see the file comment).
template <std::size_t N>
struct BlockFace {
  std::size_t block = 0;
  std::size_t axis = 0;
  bool upper = false;  ///< the face at the block's upper end of `axis` (else the lower end)
  Box<N> cells{};      ///< the block's cells along the face, one thick along `axis`; empty: all of them
};

/// Face `a` glued to face `b`; `orientation` maps b's offsets onto a's (see the file comment).
template <std::size_t N>
struct BlockInterface {
  BlockFace<N> a;
  BlockFace<N> b;
  Orientation<N> orientation;
};

/// One direction of an interface in embedded coordinates: the ghosts of `ghost_block` beyond its
/// face `cells` (axis, side) are filled from `source_block` through `to_ghost`.
template <std::size_t N>
struct InterfaceSide {
  std::size_t interface = 0;
  std::size_t ghost_block = 0;
  std::size_t axis = 0;
  bool upper = false;
  Box<N> cells;  ///< the ghost block's boundary cells along the face (embedded)
  std::size_t source_block = 0;
  OrientedMap<N> to_ghost;  ///< embedded source cells -> embedded ghost positions

  /// The ghost positions beyond the face, `width` deep.
  [[nodiscard]] Box<N> slab(index_t width) const noexcept {
    Box<N> s = cells;
    if (upper) {
      s.lo[axis] = cells.hi[axis];
      s.hi[axis] = cells.hi[axis] + width;
    } else {
      s.hi[axis] = cells.lo[axis];
      s.lo[axis] = cells.lo[axis] - width;
    }
    return s;
  }
};

/// Blocks, their interfaces and their embedding as one box set (see the file comment).
template <std::size_t N>
class MultiblockLayout {
 public:
  /// Validates and embeds. Throws `Error` (the same on every rank, which all pass the same
  /// arguments): `invalid_argument` for no block, blocks for different rank counts, a negative
  /// `max_ghost_width`, a face axis >= N, face cells that are not one cell thick at the block's
  /// boundary on that side or not inside the block, an orientation that does not send b's face
  /// normal onto a's the right way, faces that differ in size, two interfaces that share a face
  /// cell; `out_of_range` for a block index out of range.
  MultiblockLayout(std::vector<Distribution<N>> blocks, std::vector<BlockInterface<N>> interfaces,
                   index_t max_ghost_width = 4)
      : blocks_(std::move(blocks)), interfaces_(std::move(interfaces)), gap_(max_ghost_width) {
    validate_blocks();
    for (std::size_t i = 0; i < interfaces_.size(); ++i) validate_interface(i);
    check_overlaps();
    embed();
  }

  [[nodiscard]] std::size_t block_count() const noexcept { return blocks_.size(); }
  /// Block b's distribution, in its own index space.
  [[nodiscard]] const Distribution<N>& block(std::size_t b) const { return blocks_.at(b); }
  /// Block b's index space.
  [[nodiscard]] const Box<N>& block_box(std::size_t b) const { return blocks_.at(b).domain(); }
  [[nodiscard]] const std::vector<BlockInterface<N>>& interfaces() const noexcept { return interfaces_; }
  /// The widest ghost layer arrays over this layout may have.
  [[nodiscard]] index_t max_ghost_width() const noexcept { return gap_; }
  [[nodiscard]] int comm_size() const noexcept { return blocks_.front().comm_size(); }

  /// Embedded index = block index + offset(b).
  [[nodiscard]] const Point<N>& offset(std::size_t b) const { return offsets_.at(b); }
  [[nodiscard]] Box<N> embedded_box(std::size_t b) const { return shift(block_box(b), offset(b)); }
  /// The box set every block's boxes form, and it as a distribution.
  [[nodiscard]] const BoxSet<N>& embedded_set() const noexcept { return set_; }
  [[nodiscard]] const Distribution<N>& embedded() const noexcept { return *embedded_; }
  /// The block that box i of the set belongs to.
  [[nodiscard]] std::size_t block_of_box(std::size_t i) const { return block_of_box_.at(i); }
  /// The block that embedded index p lies in (a block's box, not its ghosts); throws
  /// `Error(out_of_range)` for an index in no block.
  [[nodiscard]] std::size_t block_at(const Point<N>& p) const {
    for (std::size_t b = 0; b < blocks_.size(); ++b)
      if (contains(embedded_box(b), p)) return b;
    fail(ErrorCode::out_of_range, "MultiblockLayout: embedded index ", p, " lies in no block");
  }
  /// Both directions of every interface, interface by interface (a's ghosts first).
  [[nodiscard]] const std::vector<InterfaceSide<N>>& sides() const noexcept { return sides_; }
  /// Stable hash of the embedding and the interfaces (keys the multiblock ghost schedule).
  [[nodiscard]] std::uint64_t hash() const noexcept { return hash_; }

 private:
  Box<N> face_cells(const BlockFace<N>& f) const {
    const Box<N>& box = block_box(f.block);
    if (!f.cells.empty()) return f.cells;
    Box<N> c = box;
    if (f.upper)
      c.lo[f.axis] = box.hi[f.axis] - 1;
    else
      c.hi[f.axis] = box.lo[f.axis] + 1;
    return c;
  }

  void validate_blocks() const {
    if (blocks_.empty()) fail_argument("MultiblockLayout", "blocks", "{}", "must hold at least one block");
    if (gap_ < 0) fail_argument("MultiblockLayout", "max_ghost_width", gap_, "must be >= 0");
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
      if (blocks_[b].comm_size() != blocks_.front().comm_size())
        fail(ErrorCode::invalid_argument, "MultiblockLayout: block ", b, " is distributed over ",
             blocks_[b].comm_size(), " ranks, block 0 over ", blocks_.front().comm_size(),
             ": every block must be for the same communicator");
      if (blocks_[b].domain().empty())
        fail(ErrorCode::invalid_argument, "MultiblockLayout: block ", b, " has an empty index space");
    }
  }

  void validate_face(std::size_t i, const char* which, const BlockFace<N>& f) const {
    if (f.block >= blocks_.size())
      fail(ErrorCode::out_of_range, "MultiblockLayout: interface ", i, " face ", which, " names block ", f.block,
           ", but there are ", blocks_.size(), " blocks");
    if (f.axis >= N)
      fail(ErrorCode::invalid_argument, "MultiblockLayout: interface ", i, " face ", which, " names axis ", f.axis,
           " of a ", N, "-dimensional block");
    const Box<N>& box = block_box(f.block);
    const Box<N> c = face_cells(f);
    const bool at_boundary = extent(c, f.axis) == 1 && (f.upper ? c.hi[f.axis] == box.hi[f.axis]
                                                                : c.lo[f.axis] == box.lo[f.axis]);
    if (!contains(box, c) || !at_boundary)
      fail(ErrorCode::invalid_argument, "MultiblockLayout: interface ", i, " face ", which, " cells ", c,
           " are not on the ", f.upper ? "upper" : "lower", " boundary of axis ", f.axis, " of block ", f.block, " ",
           box, " (they must lie inside the block, one cell thick, at that side)");
  }

  void validate_interface(std::size_t i) const {
    const BlockInterface<N>& in = interfaces_[i];
    validate_face(i, "a", in.a);
    validate_face(i, "b", in.b);
    const Orientation<N>& o = in.orientation;
    if (o.source_axis(in.a.axis) != in.b.axis)
      fail(ErrorCode::invalid_argument, "MultiblockLayout: interface ", i, ": the orientation runs a's normal axis ",
           in.a.axis, " along b's axis ", o.source_axis(in.a.axis), ", not along b's normal axis ", in.b.axis);
    const bool want_flip = in.a.upper == in.b.upper;
    if (o.flipped(in.a.axis) != want_flip)
      fail(ErrorCode::invalid_argument, "MultiblockLayout: interface ", i, ": a's normal axis ", in.a.axis,
           want_flip ? " must be flipped" : " must not be flipped", " (faces on ",
           want_flip ? "the same side" : "opposite sides", "), so that leaving a enters b");
    const Box<N> ca = face_cells(in.a), cb = face_cells(in.b);
    for (std::size_t d = 0; d < N; ++d)
      if (extent(ca, d) != extent(cb, o.source_axis(d)))
        fail(ErrorCode::invalid_argument, "MultiblockLayout: interface ", i, ": the faces differ in size: a's cells ",
             ca, " have ", extent(ca, d), " along axis ", d, " but b's cells ", cb, " have ",
             extent(cb, o.source_axis(d)), " along axis ", o.source_axis(d), ", which the orientation lays onto it");
  }

  void check_overlaps() const {
    struct End {
      std::size_t interface;
      BlockFace<N> face;
      Box<N> cells;
    };
    std::vector<End> ends;
    for (std::size_t i = 0; i < interfaces_.size(); ++i) {
      ends.push_back({i, interfaces_[i].a, face_cells(interfaces_[i].a)});
      ends.push_back({i, interfaces_[i].b, face_cells(interfaces_[i].b)});
    }
    for (std::size_t x = 0; x < ends.size(); ++x)
      for (std::size_t y = x + 1; y < ends.size(); ++y) {
        const End &e = ends[x], &f = ends[y];
        if (e.face.block == f.face.block && e.face.axis == f.face.axis && e.face.upper == f.face.upper &&
            intersects(e.cells, f.cells))
          fail(ErrorCode::invalid_argument, "MultiblockLayout: interfaces ", e.interface, " and ", f.interface,
               " overlap: both glue cells ", intersect(e.cells, f.cells), " of the ", e.face.upper ? "upper" : "lower",
               " face of axis ", e.face.axis, " of block ", e.face.block);
      }
  }

  void embed() {
    index_t position = 0;
    Box<N> domain;
    std::vector<Box<N>> boxes;
    std::vector<int> owners;
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
      Point<N> off{};
      off[0] = position - block_box(b).lo[0];
      offsets_.push_back(off);
      position += extent(block_box(b), 0) + gap_;
      domain = domain.empty() ? embedded_box(b) : bounding_box(domain, embedded_box(b));
      for (const auto& piece : blocks_[b].pieces(block_box(b)))
        for_each_run_box(piece.section, [&](const Box<N>& box) {
          boxes.push_back(shift(box, off));
          owners.push_back(piece.rank);
          block_of_box_.push_back(b);
        });
    }
    set_ = BoxSet<N>(domain, std::move(boxes), std::move(owners), comm_size());
    embedded_ = Distribution<N>::from_box_set(set_);
    std::uint64_t h = hash_combine(embedded_->hash(), static_cast<std::uint64_t>(gap_));
    for (std::size_t i = 0; i < interfaces_.size(); ++i) {
      const BlockInterface<N>& in = interfaces_[i];
      const Box<N> ca = shift(face_cells(in.a), offset(in.a.block));
      const Box<N> cb = shift(face_cells(in.b), offset(in.b.block));
      const Box<N> outside_a = shift(ca, unit(in.a.axis, in.a.upper ? 1 : -1));
      const auto to_a = OrientedMap<N>::onto(in.orientation, cb, outside_a);
      sides_.push_back({i, in.a.block, in.a.axis, in.a.upper, ca, in.b.block, to_a});
      sides_.push_back({i, in.b.block, in.b.axis, in.b.upper, cb, in.a.block, to_a.inverse()});
    }
    for (const auto& s : sides_)
      h = hash_combine(hash_combine(hash_combine(h, s.ghost_block), hash_value(s.cells)), s.to_ghost.hash());
    hash_ = h;
  }

  static Point<N> unit(std::size_t axis, index_t sign) {
    Point<N> p{};
    p[axis] = sign;
    return p;
  }

  // Calls f(box) for each box of consecutive indices in a section (its runs' Cartesian product).
  template <class F>
  static void for_each_run_box(const Section<N>& s, F&& f) {
    std::array<index_t, N> k{};
    for (std::size_t d = 0; d < N; ++d)
      if (s.dim[d].run_count == 0 || s.dim[d].run_length == 0) return;
    while (true) {
      Box<N> box;
      for (std::size_t d = 0; d < N; ++d) {
        box.lo[d] = s.dim[d].first + k[d] * s.dim[d].stride;
        box.hi[d] = box.lo[d] + s.dim[d].run_length;
      }
      f(box);
      std::size_t d = N;
      while (d-- > 0) {
        if (++k[d] < s.dim[d].run_count) break;
        k[d] = 0;
        if (d == 0) return;
      }
    }
  }

  std::vector<Distribution<N>> blocks_;
  std::vector<BlockInterface<N>> interfaces_;
  index_t gap_;
  std::vector<Point<N>> offsets_;
  BoxSet<N> set_;
  std::optional<Distribution<N>> embedded_;  // set by embed()
  std::vector<std::size_t> block_of_box_;
  std::vector<InterfaceSide<N>> sides_;
  std::uint64_t hash_ = 0;
};

}  // namespace tessera
