#pragma once
/// \file
/// `StorageLayout<N>`: how one rank stores its part of an array, the description schedules are
/// compiled against. Pure: computable for any rank on any rank. Storage is dense (no holes between
/// owned indices, so a pack loop walks runs, not elements) and compacted along axes whose owned set
/// is not one interval; ghost layers exist only along interval axes (docs/layouts.md, "Per-dimension
/// distributions"; docs/arrays.md, "DistArray").
///
/// A rank's buffer holds one or more **patches**, one after another. A dimensional distribution
/// gives one patch (none on a rank that owns nothing); a user-defined distribution one patch per
/// owned box, in `owned_boxes` order. A patch is a dense array, row-major or column-major as the
/// ghost spec's `order` says (`strides` hold the difference); along each axis it maps a
/// global index to a local index in one of two ways:
/// - **interval** axes (block, cut, collapsed, user boxes): local = i - first + ghost_lo, with
///   `ghost_lo` layers below the owned interval and `ghost_hi` above;
/// - **compacted** axes (cyclic, block-cyclic, irregular): local = the per-dimension
///   `local_offset(i)` (ScaLAPACK compaction); no ghosts.
/// \code
///   // 10x10 over a 2x2 grid, ghosts of width 1: rank 3 stores 7x7 doubles, (5,5) at local (1,1)
///   auto layout = tessera::StorageLayout<2>::make(dist, 3, tessera::ghosts<2>(1));
///   layout.patches()[0].element_offset({5, 5});   // 1 * 7 + 1 = 8
/// \endcode
///
/// A user distribution with a **local layout** of its own (`Distribution::has_local_layout`,
/// layout/local_layout.hpp) gives no patches: the rank's buffer holds `local_storage_size(rank)`
/// elements and owned point p sits at `local_offset(p)` (`custom()`, `custom_offset`,
/// `custom_stretch`, `for_each_custom_owned`). Its ghost cells follow, **ghost slabs** after the owned storage: for
/// each owned box in turn (its "patch" number for the halo plan), the pieces of its ghost shell
/// (`detail::ghost_boxes`: the shell, or the face slabs without corners), each a dense row-major
/// array — so the layout keeps the owned points where the user put them, and a ghost cell of box
/// b sits at `custom_offset(p, b)`. `patches()` refuses such storage with an `Error`, so that code
/// needing strided patches says so instead of computing wrong offsets.

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/geometry.hpp"
#include "tessera/layout/distribution.hpp"
#include "tessera/plan/ghost_spec.hpp"
#include "tessera/plan/storage_order.hpp"

namespace tessera {

/// How one axis of a patch maps global indices to local ones.
struct AxisMap {
  index_t first = 0;                         ///< interval axes: the first owned global index
  index_t count = 0;                         ///< owned indices along the axis
  index_t ghost_lo = 0;                      ///< ghost layers below (interval axes only)
  index_t ghost_hi = 0;                      ///< ghost layers above
  std::optional<DimDistribution> compacted;  ///< set for compacted axes: the axis' distribution...
  int coord = 0;                             ///< ...and the grid coordinate this patch holds

  /// True if the axis stores one interval (ghosts possible), false if compacted.
  [[nodiscard]] bool is_interval() const noexcept { return !compacted.has_value(); }
  /// Local extent, ghosts included.
  [[nodiscard]] index_t extent() const noexcept { return count + ghost_lo + ghost_hi; }
  /// Local index of global index i (i must be stored by this axis).
  [[nodiscard]] index_t local(index_t i) const noexcept {
    return compacted ? compacted->local_offset(i) : i - first + ghost_lo;
  }
  /// Global index at local index l (inverse of `local`).
  [[nodiscard]] index_t global(index_t l) const noexcept {
    return compacted ? compacted->global_index(coord, l) : l - ghost_lo + first;
  }
  /// True if every index of `s` is stored along this axis (owned, or in a ghost layer).
  [[nodiscard]] bool stores(const Section1& s) const;
  /// True if every index of `s` is owned (not a ghost).
  [[nodiscard]] bool owns(const Section1& s) const;
  /// Appends the local images of the indices of `s`, in increasing order of position in `s`, as
  /// local sections (one in the common cases). `s` must be stored by this axis.
  void to_local(const Section1& s, SectionList1& out) const;
};

/// One dense patch of a rank's buffer (row-major or column-major: see `strides`).
template <std::size_t N>
struct PatchLayout {
  /// How each axis maps global indices to local ones.
  std::array<AxisMap, N> axes{};
  index_t offset = 0;  ///< elements from the start of the rank's buffer
  Point<N> strides{};  ///< strides of the patch in elements, in the layout's storage order
  index_t size = 0;    ///< elements, ghosts included

  /// Local extents, ghosts included.
  [[nodiscard]] Point<N> extents() const noexcept {
    Point<N> e;
    for (std::size_t d = 0; d < N; ++d) e[d] = axes[d].extent();
    return e;
  }
  /// Offset in the rank's buffer of global point p (p must be stored by this patch).
  [[nodiscard]] index_t element_offset(const Point<N>& p) const noexcept {
    index_t off = offset;
    for (std::size_t d = 0; d < N; ++d) off += axes[d].local(p[d]) * strides[d];
    return off;
  }
  /// The owned box of a patch whose axes are all intervals (the bounding box otherwise).
  [[nodiscard]] Box<N> owned_box() const noexcept {
    Box<N> b;
    for (std::size_t d = 0; d < N; ++d) {
      b.lo[d] = axes[d].is_interval() ? axes[d].first : axes[d].global(0);
      b.hi[d] = axes[d].is_interval() ? axes[d].first + axes[d].count : axes[d].global(axes[d].count - 1) + 1;
    }
    return b;
  }
  /// The owned box grown by the ghost layers (all-interval patches).
  [[nodiscard]] Box<N> storage_box() const noexcept {
    Box<N> b = owned_box();
    for (std::size_t d = 0; d < N; ++d) b.lo[d] -= axes[d].ghost_lo, b.hi[d] += axes[d].ghost_hi;
    return b;
  }
  /// True if every point of `s` is stored by the patch (owned or ghost).
  [[nodiscard]] bool stores(const Section<N>& s) const {
    for (std::size_t d = 0; d < N; ++d)
      if (!axes[d].stores(s.dim[d])) return false;
    return true;
  }
  /// True if every point of `s` is owned by the patch.
  [[nodiscard]] bool owns(const Section<N>& s) const {
    for (std::size_t d = 0; d < N; ++d)
      if (!axes[d].owns(s.dim[d])) return false;
    return true;
  }
};

/// How one rank stores its part of an array: dense patches with ghost layers, in one storage order
/// (see the file comment).
template <std::size_t N>
class StorageLayout {
 public:
  /// The layout of `rank`'s part of an array over `dist` with ghost layers `ghosts`.
  /// Throws `Error(invalid_argument)` for a ghost width along a dimension whose owned set is not an
  /// interval (cyclic, block-cyclic, irregular): use a section move with an offset there instead.
  [[nodiscard]] static StorageLayout make(const Distribution<N>& dist, int rank, const GhostSpec<N>& ghosts) {
    check_ghosts(dist, ghosts);
    StorageLayout layout;
    layout.order_ = ghosts.order;
    if (dist.has_local_layout()) {
      Custom c{dist, rank, dist.owned_boxes(rank), {}};
      index_t size = dist.local_storage_size(rank);
      if (!ghosts.none())
        for (std::size_t b = 0; b < c.boxes.size(); ++b)
          if (!c.boxes[b].empty())
            for (const auto& slab : detail::ghost_boxes(c.boxes[b], ghosts)) {
              c.slabs.push_back(GhostSlab{static_cast<int>(b), slab, size});
              size = checked_add(size, volume(slab), "StorageLayout size");
            }
      layout.custom_ = std::move(c);
      layout.size_ = size;
      return layout;
    }
    if (dist.is_user_defined()) {
      for (const auto& box : dist.owned_boxes(rank)) layout.add(box_patch(box, ghosts));
      return layout;
    }
    const auto position = dist.grid().position_of(rank);
    if (!position) return layout;  // a skeleton stores nothing
    PatchLayout<N> p;
    for (std::size_t d = 0; d < N; ++d) {
      const DimDistribution& dd = dist.dim(d, *position);
      const int c = static_cast<int>((*position)[d]);
      AxisMap& a = p.axes[d];
      a.count = dd.local_count(c);
      if (a.count == 0) return layout;  // owns nothing: no patch, no ghosts to fill
      a.coord = c;
      if (dd.owns_intervals()) {
        a.first = dd.interval_start(c);
        a.ghost_lo = ghosts.lower[d];
        a.ghost_hi = ghosts.upper[d];
      } else {
        a.compacted = dd;
      }
    }
    layout.add(std::move(p));
    return layout;
  }

  /// The patch of an owned box with ghost layers `ghosts` (every axis an interval), before it is
  /// placed in a buffer (offset, strides and size unset): what a user-defined distribution stores
  /// per box, and what a box set's halo plan needs of a neighbour's box.
  [[nodiscard]] static PatchLayout<N> box_patch(const Box<N>& box, const GhostSpec<N>& ghosts) {
    PatchLayout<N> p;
    for (std::size_t d = 0; d < N; ++d) {
      p.axes[d].first = box.lo[d];
      p.axes[d].count = box.hi[d] - box.lo[d];
      p.axes[d].ghost_lo = ghosts.lower[d];
      p.axes[d].ghost_hi = ghosts.upper[d];
    }
    return p;
  }

  /// The patches, in the order of the owned boxes. Throws `Error(invalid_argument)` for storage
  /// under a user-defined local layout (`custom()`), which has none.
  [[nodiscard]] const std::vector<PatchLayout<N>>& patches() const {
    if (custom_)
      fail(ErrorCode::invalid_argument, "StorageLayout::patches: the storage of rank ", custom_->rank,
           " follows the local layout of ", custom_->dist,
           ", not strided patches; this operation needs strided patches and does not support a user-defined local layout");
    return patches_;
  }
  /// True if the buffer follows a user distribution's local layout (see the file comment).
  [[nodiscard]] bool custom() const noexcept { return custom_.has_value(); }
  /// Under a local layout: the boxes the rank owns (what its buffer holds).
  [[nodiscard]] const BoxList<N>& custom_boxes() const noexcept { return custom_->boxes; }
  /// Under a local layout: the offset of point `p` — an owned point's `Distribution::local_offset`,
  /// a ghost cell's place in the ghost slabs of box `patch` (any box's, the first, for -1). Where p
  /// is in box `patch`'s ghost shell and owned by another box of the rank, `patch` picks the ghost
  /// copy; -1 picks the owned point. The point must be stored (`custom_stores`).
  [[nodiscard]] index_t custom_offset(const Point<N>& p, int patch = -1) const {
    return custom_stretch(p, N - 1, 1, patch).offset;
  }
  /// Under a local layout: `custom_offset(p, patch)` and how many of the `count` points p,
  /// p + e_axis, ... lie at consecutive offsets from it, in [1, count] — `Distribution::local_run`
  /// for an owned point, the rest of the slab's row along the last axis for a ghost cell. One
  /// lookup for both: what a schedule is built from, a stretch at a time.
  struct CustomStretch {
    index_t offset = 0;
    index_t run = 1;
  };
  [[nodiscard]] CustomStretch custom_stretch(const Point<N>& p, std::size_t axis, index_t count, int patch = -1) const {
    if (const GhostSlab* slab = ghost_slab_of(p, patch))
      return {slab->offset + offset_in_slab(*slab, p), axis == N - 1 ? std::min(count, slab->box.hi[N - 1] - p[N - 1]) : 1};
    return {custom_->dist.local_offset(p), custom_->dist.local_run(p, axis, count)};
  }
  /// Under a local layout: the offset of `p` if the rank stores it (owned: `local_offset`, else the
  /// first ghost slab holding it), or nothing — `DistArray::at`'s lookup, done once.
  [[nodiscard]] std::optional<index_t> custom_stored_offset(const Point<N>& p) const {
    if (contains(custom_->boxes, p)) return custom_->dist.local_offset(p);
    for (const auto& slab : custom_->slabs)
      if (contains(slab.box, p)) return slab.offset + offset_in_slab(slab, p);
    return std::nullopt;
  }
  /// Under a local layout: calls `visit(point, offset)` for every owned point, box by box, each
  /// row-major (the order of `DistArray::for_each_owned` under every layout).
  template <class Visit>
  void for_each_custom_owned(Visit&& visit) const {
    for (const auto& b : custom_->boxes) {
      if (b.empty()) continue;
      Box<N> row_starts = b;  // one point per row along the last axis
      row_starts.hi[N - 1] = b.lo[N - 1] + 1;
      for_each_point(row_starts, [&](Point<N> p) {
        for (index_t left = extent(b, N - 1); left > 0;) {  // stretch by stretch of consecutive offsets
          // Owned points: the layout's own numbers, no ghost-slab lookup.
          const index_t n = custom_->dist.local_run(p, N - 1, left);
          const index_t offset = custom_->dist.local_offset(p);
          for (index_t i = 0; i < n; ++i, ++p[N - 1]) visit(p, offset + i);
          left -= n;
        }
      });
    }
  }
  /// Under a local layout: true if the rank owns every point of `s`.
  [[nodiscard]] bool custom_owns(const Section<N>& s) const {
    index_t inside = 0;
    for (const auto& b : custom_->boxes)
      for (const auto& part : intersect(s, b)) inside += volume(part);
    return inside == volume(s);
  }
  /// Under a local layout: true if the rank stores every point of `s` — owns them all, or box
  /// `patch` (some one box, for -1) holds each in itself or its ghost slabs.
  [[nodiscard]] bool custom_stores(const Section<N>& s, int patch = -1) const {
    if (custom_owns(s)) return true;
    const auto held_by = [&](int b) {  // the box and its slabs are disjoint: their parts add up
      index_t inside = 0;
      for (const auto& part : intersect(s, custom_->boxes[static_cast<std::size_t>(b)])) inside += volume(part);
      for (const auto& slab : custom_->slabs)
        if (slab.patch == b)
          for (const auto& part : intersect(s, slab.box)) inside += volume(part);
      return inside == volume(s);
    };
    if (patch >= 0) return static_cast<std::size_t>(patch) < custom_->boxes.size() && held_by(patch);
    for (std::size_t b = 0; b < custom_->boxes.size(); ++b)
      if (held_by(static_cast<int>(b))) return true;
    return false;
  }
  /// Elements in the rank's buffer, ghosts included.
  [[nodiscard]] index_t size() const noexcept { return size_; }
  /// The order of every patch's elements in memory (also known on a rank that stores nothing).
  [[nodiscard]] StorageOrder order() const noexcept { return order_; }
  /// The axis that varies slowest in memory (0 row-major, N-1 column-major).
  [[nodiscard]] std::size_t outermost_axis() const noexcept { return tessera::outermost_axis<N>(order_); }

  /// The patch a copy's section belongs to: the one owning it, else the first one storing it; -1 if none.
  [[nodiscard]] int patch_for(const Section<N>& s) const {
    if (s.empty()) return -1;
    for (std::size_t i = 0; i < patches_.size(); ++i)
      if (patches_[i].owns(s)) return static_cast<int>(i);
    for (std::size_t i = 0; i < patches_.size(); ++i)
      if (patches_[i].stores(s)) return static_cast<int>(i);
    return -1;
  }

  /// Throws `Error(invalid_argument)` if `ghosts` asks for layers along a non-interval dimension.
  /// (A user-defined distribution owns boxes: ghosts are possible along every axis, in patches or,
  /// under a local layout, in ghost slabs.)
  static void check_ghosts(const Distribution<N>& dist, const GhostSpec<N>& ghosts) {
    if (dist.is_user_defined()) return;
    for (std::size_t d = 0; d < N; ++d) {
      if (ghosts.lower[d] == 0 && ghosts.upper[d] == 0) continue;
      const DimDistribution& dd = dist.dim(d);
      if (!dd.owns_intervals())
        fail_argument("ghosts", detail::concat("width along dimension ", d), std::max(ghosts.lower[d], ghosts.upper[d]),
                      detail::concat("is not possible: dimension ", d, " is distributed ", to_string(dd.kind()),
                                     ", so a rank's indices there are not one interval (use a shifted section copy)"));
    }
  }

 private:
  void add(PatchLayout<N> p) {
    p.offset = size_;
    index_t stride = 1;
    const std::array<int, N> slowest_first = axes_slowest_first<N>(order_);
    for (std::size_t k = N; k-- > 0;) {
      const auto d = static_cast<std::size_t>(slowest_first[k]);
      p.strides[d] = stride;
      // Checked here, once, so that AxisMap::extent() cannot overflow afterwards (ghost widths near
      // 2^63 reached it unchecked: the capi fuzzer's second finding).
      const AxisMap& a = p.axes[d];
      const index_t extent = checked_add(checked_add(a.count, a.ghost_lo, "StorageLayout extent"), a.ghost_hi,
                                         "StorageLayout extent");
      stride = checked_mul(stride, extent, "StorageLayout patch size");
    }
    p.size = stride;
    size_ = checked_add(size_, p.size, "StorageLayout size");
    patches_.push_back(std::move(p));
  }

  // Under a local layout, one piece of an owned box's ghost shell: dense, row-major, at `offset`.
  struct GhostSlab {
    int patch = 0;  // the owned box (index into `boxes`) whose ghost cells these are
    Box<N> box;
    index_t offset = 0;
  };
  // What a local layout's storage needs: the distribution that numbers it, the rank, its boxes,
  // and the ghost slabs after the owned storage (none without ghosts).
  struct Custom {
    Distribution<N> dist;
    int rank = 0;
    BoxList<N> boxes;
    std::vector<GhostSlab> slabs;
  };

  // The ghost slab `custom_offset(p, patch)` reads p from, or null for an owned point (see there).
  [[nodiscard]] const GhostSlab* ghost_slab_of(const Point<N>& p, int patch) const {
    if (custom_->slabs.empty() || (patch >= 0 && static_cast<std::size_t>(patch) >= custom_->boxes.size())) return nullptr;
    if (patch >= 0 ? contains(custom_->boxes[static_cast<std::size_t>(patch)], p) : contains(custom_->boxes, p))
      return nullptr;
    for (const auto& slab : custom_->slabs)
      if ((patch < 0 || slab.patch == patch) && contains(slab.box, p)) return &slab;
    return nullptr;
  }
  [[nodiscard]] static index_t offset_in_slab(const GhostSlab& slab, const Point<N>& p) noexcept {
    index_t offset = 0;
    for (std::size_t d = 0; d < N; ++d) offset = offset * extent(slab.box, d) + (p[d] - slab.box.lo[d]);
    return offset;
  }

  std::vector<PatchLayout<N>> patches_;
  std::optional<Custom> custom_;
  index_t size_ = 0;
  StorageOrder order_ = StorageOrder::row_major;
};

}  // namespace tessera
