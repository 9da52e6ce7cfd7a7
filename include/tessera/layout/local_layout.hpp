#pragma once
/// \file
/// User-defined local layouts (Chapel's `LocalLayout`): a user distribution may choose where each
/// owned point sits in its owner's buffer (`UserDistribution::has_local_layout`, `local_offset`,
/// `local_storage_size`) instead of tessera's one row-major patch per owned box. The engine then
/// compiles its plans against those offsets (plan/compile_schedule.hpp); docs/concepts.md, "User-
/// defined local layouts", lists what is supported.
///
/// This header holds the built-in orders a distribution can store its owned boxes in
/// (`LocalOrder`: row-major, column-major, padded, tiled), a wrapper that gives any user
/// distribution one of them (`with_local_order`), and the check that a layout is one-to-one and in
/// range (`check_local_layout`). A space-filling-curve order needs the curve's own numbering: the
/// Morton example (`examples/morton_distribution`) stores each rank's points in curve order.
/// \code
///   auto tiled = tessera::with_local_order(dist, tessera::LocalOrder<2>::tiled(4));  // 4x4 tiles
///   tessera::DistArray<double, 2> a(tessera::Domain<2>(comm, tiled), tessera::ghosts<2>(1));  // ghosts: in slabs
///   tessera::redistribute(...);   // schedules compiled against the tiled offsets
/// \endcode
/// Pure: no MPI.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/core/hash.hpp"
#include "tessera/geometry.hpp"
#include "tessera/layout/distribution.hpp"
#include "tessera/layout/user_distribution.hpp"

namespace tessera {

/// How a rank stores its owned boxes, one after another in `owned_boxes` order, each box in one of
/// four orders. A value type: what `with_local_order` applies to a distribution.
template <std::size_t N>
class LocalOrder {
 public:
  /// The order of the points inside one box.
  enum class Kind : std::uint8_t {
    row_major,     ///< the last axis fastest (what tessera does without a local layout)
    column_major,  ///< the first axis fastest
    padded,        ///< row-major, each box's last extent rounded up to a multiple of `size` (holes)
    tiled,         ///< tiles of `size`^N points in row-major order, each tile row-major inside
  };

  /// Row-major boxes: the same offsets as the default patch layout (useful to compare).
  [[nodiscard]] static LocalOrder row_major() noexcept { return LocalOrder(Kind::row_major, 1); }
  /// Column-major boxes.
  [[nodiscard]] static LocalOrder column_major() noexcept { return LocalOrder(Kind::column_major, 1); }
  /// Row-major boxes whose rows (the last axis) are padded to a multiple of `multiple` elements:
  /// aligned rows, the buffer larger than the points. Throws `Error(invalid_argument)` for < 1.
  [[nodiscard]] static LocalOrder padded(index_t multiple) { return LocalOrder(Kind::padded, checked("padded", multiple)); }
  /// Boxes cut into cubes of side `tile` (clipped at the box's upper faces, so no holes), the tiles
  /// row-major and the points of each tile row-major. Throws `Error(invalid_argument)` for < 1.
  [[nodiscard]] static LocalOrder tiled(index_t tile) { return LocalOrder(Kind::tiled, checked("tiled", tile)); }

  [[nodiscard]] Kind kind() const noexcept { return kind_; }
  /// The padding multiple or the tile side (1 for the others).
  [[nodiscard]] index_t size() const noexcept { return size_; }

  /// `row-major`, `column-major`, `padded(8)`, `tiled(4)`.
  [[nodiscard]] std::string name() const {
    switch (kind_) {
      case Kind::row_major: return "row-major";
      case Kind::column_major: return "column-major";
      case Kind::padded: return detail::concat("padded(", size_, ")");
      case Kind::tiled: return detail::concat("tiled(", size_, ")");
    }
    return "?";
  }
  /// Stable hash (kind and size).
  [[nodiscard]] std::uint64_t hash() const noexcept {
    return hash_combine(static_cast<std::uint64_t>(kind_) + 0x10ca1ULL, static_cast<std::uint64_t>(size_));
  }
  friend bool operator==(const LocalOrder&, const LocalOrder&) = default;

  /// Elements box `b` takes in the buffer.
  [[nodiscard]] index_t box_size(const Box<N>& b) const {
    if (kind_ != Kind::padded || b.empty()) return volume(b);
    return checked_mul(volume(b) / extent(b, N - 1), padded_extent(extent(b, N - 1)), "LocalOrder box size");
  }
  /// Elements of a rank's buffer holding `boxes`.
  [[nodiscard]] index_t storage_size(const BoxList<N>& boxes) const {
    index_t n = 0;
    for (const auto& b : boxes) n = checked_add(n, box_size(b), "LocalOrder storage size");
    return n;
  }
  /// Offset of `p` inside box `b` (which contains it).
  [[nodiscard]] index_t offset_in_box(const Box<N>& b, const Point<N>& p) const noexcept {
    switch (kind_) {
      case Kind::row_major: return offset_row_major(b, p);
      case Kind::column_major: return offset_column_major(b, p);
      case Kind::padded: {
        Box<N> wide = b;
        wide.hi[N - 1] = b.lo[N - 1] + padded_extent(extent(b, N - 1));
        return offset_row_major(wide, p);
      }
      case Kind::tiled: return tiled_offset(b, p);
    }
    return 0;
  }
  /// How many of the `count` points p, p + e_axis, ... (inside box `b`, which contains p) follow
  /// each other in memory from p's offset: to the end of `b` (a tiled order: of p's tile) along
  /// `axis` when a step along it is one element (the last axis row-major or padded, the first
  /// column-major, or any axis whose faster axes are one point thick), else 1.
  [[nodiscard]] index_t run_in_box(const Box<N>& b, const Point<N>& p, std::size_t axis, index_t count) const noexcept {
    Box<N> piece = b;  // where the order is one row-major or column-major block around p
    if (kind_ == Kind::tiled) piece = tile_of(b, p);
    if (kind_ == Kind::padded) piece.hi[N - 1] = b.lo[N - 1] + padded_extent(extent(b, N - 1));
    index_t step = 1;  // elements between p and p + e_axis inside `piece`
    if (kind_ == Kind::column_major) {
      for (std::size_t k = 0; k < axis; ++k) step *= extent(piece, k);
    } else {
      for (std::size_t k = axis + 1; k < N; ++k) step *= extent(piece, k);
    }
    if (step != 1) return 1;
    const index_t end = kind_ == Kind::tiled ? piece.hi[axis] : b.hi[axis];
    return std::max<index_t>(1, std::min(count, end - p[axis]));
  }
  /// `run_in_box` for a rank owning `boxes` (p lies in one of them); 1 if none holds it.
  [[nodiscard]] index_t run(const BoxList<N>& boxes, const Point<N>& p, std::size_t axis, index_t count) const noexcept {
    for (const auto& b : boxes)
      if (contains(b, p)) return run_in_box(b, p, axis, count);
    return 1;
  }
  /// Offset of `p` in the buffer of a rank owning `boxes` (p lies in one of them). Throws
  /// `Error(internal)` if none holds it.
  [[nodiscard]] index_t offset(const BoxList<N>& boxes, const Point<N>& p) const {
    index_t before = 0;
    for (const auto& b : boxes) {
      if (contains(b, p)) return before + offset_in_box(b, p);
      before += box_size(b);
    }
    fail(ErrorCode::internal, "LocalOrder::offset: no owned box holds ", p);
  }

 private:
  LocalOrder(Kind kind, index_t size) noexcept : kind_(kind), size_(size) {}
  static index_t checked(const char* which, index_t size) {
    if (size < 1) fail_argument(detail::concat("LocalOrder::", which), "size", size, "must be >= 1");
    return size;
  }
  [[nodiscard]] index_t padded_extent(index_t e) const noexcept { return (e + size_ - 1) / size_ * size_; }

  // Points before p's tile, then p's row-major place in its (clipped) tile. With tile coordinates
  // t and box extents E, the tiles before p's in row-major tile order hold, for each axis d, the
  // tiles sharing t_0..t_{d-1} and lower along d: prod_{k<d} ext_k(t_k) * (t_d * T) * prod_{k>d} E_k
  // points, ext_k(t_k) being the (clipped) extent of tile t_k along k.
  [[nodiscard]] index_t tiled_offset(const Box<N>& b, const Point<N>& p) const noexcept {
    const Box<N> tile = tile_of(b, p);
    index_t before = 0, outer = 1;  // outer: prod_{k<d} ext_k(t_k)
    for (std::size_t d = 0; d < N; ++d) {
      index_t inner = 1;
      for (std::size_t k = d + 1; k < N; ++k) inner *= extent(b, k);
      before += outer * (tile.lo[d] - b.lo[d]) * inner;
      outer *= extent(tile, d);
    }
    return before + offset_row_major(tile, p);
  }
  /// The (clipped) tile of box `b` holding p.
  [[nodiscard]] Box<N> tile_of(const Box<N>& b, const Point<N>& p) const noexcept {
    Box<N> tile;
    for (std::size_t d = 0; d < N; ++d) {
      tile.lo[d] = b.lo[d] + (p[d] - b.lo[d]) / size_ * size_;
      tile.hi[d] = std::min(tile.lo[d] + size_, b.hi[d]);
    }
    return tile;
  }

  Kind kind_;
  index_t size_;
};

/// A user distribution with the ownership of another and a `LocalOrder` of its own: what
/// `with_local_order` builds. Every rank's owned boxes are listed once, at construction
/// (O(P · boxes)), so that `local_offset` costs one pass over the owner's boxes.
template <std::size_t N>
class LocalOrderDistribution final : public UserDistribution<N> {
 public:
  LocalOrderDistribution(std::shared_ptr<const UserDistribution<N>> inner, LocalOrder<N> order)
      : UserDistribution<N>(inner->domain(), inner->comm_size()), inner_(std::move(inner)), order_(order) {
    boxes_.reserve(static_cast<std::size_t>(this->comm_size()));
    for (int r = 0; r < this->comm_size(); ++r) boxes_.push_back(inner_->owned_boxes(r));
  }

  /// `<inner name> stored tiled(4)`: the layout is part of the identity (schedules differ).
  [[nodiscard]] std::string name() const override { return detail::concat(inner_->name(), " stored ", order_.name()); }
  [[nodiscard]] int owner(const Point<N>& p) const override { return inner_->owner(p); }
  [[nodiscard]] BoxList<N> owned_boxes(int rank) const override { return boxes_.at(static_cast<std::size_t>(rank)); }
  [[nodiscard]] std::vector<DistPiece<N>> pieces(const Box<N>& box) const override { return inner_->pieces(box); }
  [[nodiscard]] bool pieces_lie_in_owned_boxes() const noexcept override { return inner_->pieces_lie_in_owned_boxes(); }
  [[nodiscard]] bool covers_domain() const noexcept override { return inner_->covers_domain(); }

  [[nodiscard]] bool has_local_layout() const noexcept override { return true; }
  [[nodiscard]] index_t local_storage_size(int rank) const override {
    return order_.storage_size(boxes_.at(static_cast<std::size_t>(rank)));
  }
  [[nodiscard]] index_t local_offset(const Point<N>& p) const override {
    return order_.offset(boxes_[static_cast<std::size_t>(inner_->owner(p))], p);
  }

  [[nodiscard]] index_t local_run(const Point<N>& p, std::size_t axis, index_t count) const override {
    // Along any other axis than its fastest, an order keeps points apart (unless a box is one
    // point thick in the faster ones): answer 1 without the owner lookup and box search, which
    // would double the cost of a copy enumerated across the order (column-major storage filled
    // row by row).
    const std::size_t fastest = order_.kind() == LocalOrder<N>::Kind::column_major ? 0 : N - 1;
    if (axis != fastest) return 1;
    return order_.run(boxes_[static_cast<std::size_t>(inner_->owner(p))], p, axis, count);
  }

  [[nodiscard]] bool equals(const UserDistribution<N>& other) const override {
    const auto* o = dynamic_cast<const LocalOrderDistribution*>(&other);
    return o != nullptr && o->order_ == order_ && o->inner_->equals(*inner_);
  }
  [[nodiscard]] std::uint64_t hash() const override { return hash_combine(inner_->hash(), order_.hash()); }

  /// The distribution whose ownership this one keeps.
  [[nodiscard]] const UserDistribution<N>& inner() const noexcept { return *inner_; }
  /// The order of each rank's boxes.
  [[nodiscard]] const LocalOrder<N>& order() const noexcept { return order_; }

 private:
  std::shared_ptr<const UserDistribution<N>> inner_;
  LocalOrder<N> order_;
  std::vector<BoxList<N>> boxes_;
};

/// The user-defined distribution `dist` with its ranks' boxes stored in `order`. Throws
/// `Error(invalid_argument)` for a dimensional distribution (their storage is the grid's patch) or
/// one that already has a local layout.
template <std::size_t N>
[[nodiscard]] Distribution<N> with_local_order(const Distribution<N>& dist, const LocalOrder<N>& order) {
  constexpr const char* where = "with_local_order";
  if (!dist.is_user_defined())
    fail_argument(where, "dist", dist, "is dimensional: only a user-defined distribution chooses its local layout");
  if (dist.has_local_layout()) fail_argument(where, "dist", dist, "already has a local layout");
  // The wrapped object is shared, not copied: alias the distribution's ownership of it.
  std::shared_ptr<const UserDistribution<N>> inner(std::make_shared<Distribution<N>>(dist), dist.user_distribution());
  return Distribution<N>::user(std::make_shared<const LocalOrderDistribution<N>>(std::move(inner), order));
}

/// Points a layout check visits at most without being asked (`check_local_layout_if_affordable`).
inline constexpr index_t kAffordableLayoutCheck = index_t{1} << 16;

/// Checks that `rank`'s local layout under `dist` is one-to-one into [0, local_storage_size(rank)),
/// and that its `local_run` claims hold: O(N · points · local_offset). Throws
/// `Error(invalid_argument)` naming the distribution, the rank, the point(s) and the offset
/// otherwise. Does nothing without a local layout.
template <std::size_t N>
void check_local_layout(const Distribution<N>& dist, int rank) {
  if (!dist.has_local_layout()) return;
  constexpr const char* where = "local layout";
  const index_t size = dist.local_storage_size(rank);
  if (size < dist.local_size(rank))
    fail_argument(where, "distribution", dist,
                  detail::concat("gives rank ", rank, " ", size, " elements of storage for ", dist.local_size(rank), " points"));
  std::vector<Point<N>> at(static_cast<std::size_t>(size));
  std::vector<bool> taken(static_cast<std::size_t>(size), false);
  for (const auto& b : dist.owned_boxes(rank))
    for_each_point(b, [&](const Point<N>& p) {
      const index_t o = dist.local_offset(p);
      if (o < 0 || o >= size)
        fail_argument(where, "distribution", dist,
                      detail::concat("stores point ", p, " of rank ", rank, " at offset ", o, ", outside [0, ", size, ")"));
      const auto k = static_cast<std::size_t>(o);
      if (taken[k])
        fail_argument(where, "distribution", dist,
                      detail::concat("stores points ", at[k], " and ", p, " of rank ", rank, " at one offset ", o));
      taken[k] = true;
      at[k] = p;
    });
  // Plans trust `local_run` (one offset per stretch it reports): each row of each owned box, along
  // every axis, is walked stretch by stretch and every point of a stretch checked.
  for (const auto& b : dist.owned_boxes(rank)) {
    if (b.empty()) continue;
    for (std::size_t axis = 0; axis < N; ++axis) {
      Box<N> row_starts = b;
      row_starts.hi[axis] = b.lo[axis] + 1;
      for_each_point(row_starts, [&](Point<N> p) {
        for (index_t left = extent(b, axis); left > 0;) {
          const index_t n = dist.local_run(p, axis, left);
          const index_t o = dist.local_offset(p);
          Point<N> q = p;
          for (index_t i = 1; i < n; ++i) {
            ++q[axis];
            if (dist.local_offset(q) != o + i)
              fail_argument(where, "distribution", dist,
                            detail::concat("answers local_run ", n, " from point ", p, " along axis ", axis,
                                           " of rank ", rank, ", but point ", q, " is at offset ",
                                           dist.local_offset(q), ", not ", o + i));
          }
          p[axis] += n, left -= n;
        }
      });
    }
  }
}

/// `check_local_layout` for every rank when the domain holds at most `kAffordableLayoutCheck`
/// points, or when `always` (checked mode): the same answer on every rank, so a bad layout is an
/// `Error` on every rank. What `Domain` runs on the distributions it is given.
template <std::size_t N>
void check_local_layout_if_affordable(const Distribution<N>& dist, bool always) {
  if (!dist.has_local_layout() || (!always && volume(dist.domain()) > kAffordableLayoutCheck)) return;
  for (int r = 0; r < dist.comm_size(); ++r) check_local_layout(dist, r);
}

}  // namespace tessera
