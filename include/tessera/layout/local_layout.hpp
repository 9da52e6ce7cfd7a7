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
///   tessera::DistArray<double, 2> a(tessera::Domain<2>(comm, tiled), tessera::no_ghosts<2>());
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
    const index_t T = size_;
    Box<N> tile;
    index_t before = 0, outer = 1;  // outer: prod_{k<d} ext_k(t_k)
    for (std::size_t d = 0; d < N; ++d) {
      const index_t t = (p[d] - b.lo[d]) / T;
      tile.lo[d] = b.lo[d] + t * T;
      tile.hi[d] = std::min(tile.lo[d] + T, b.hi[d]);
      index_t inner = 1;
      for (std::size_t k = d + 1; k < N; ++k) inner *= extent(b, k);
      before += outer * (t * T) * inner;
      outer *= tile.hi[d] - tile.lo[d];  // not extent(tile, d): the tile is empty until every axis is set
    }
    return before + offset_row_major(tile, p);
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

/// Checks that `rank`'s local layout under `dist` is one-to-one into [0, local_storage_size(rank)):
/// visits every owned point, O(points · local_offset). Throws `Error(invalid_argument)` naming the
/// distribution, the rank, the point(s) and the offset otherwise. Does nothing without a local layout.
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
