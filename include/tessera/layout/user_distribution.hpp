#pragma once
/// \file
/// `UserDistribution<N>`: the interface a user implements to define a distribution of their own
/// (Chapel's pattern: `Map(index) -> locale` and `LocalLayout(index) -> offset`). Wrap it with
/// `Distribution<N>::user(...)` and every later layer (plans, arrays, balancing) accepts it exactly
/// like a built-in distribution.
///
/// A user distribution owns, on each rank, a list of disjoint boxes; an array over it stores one
/// dense patch per owned box (KeLP's XArray of Grids), in the order `owned_boxes` gives them.
/// \code
///   class Diagonal : public tessera::UserDistribution<2> {  // rank r owns rows i with (i / 8) % P == r
///    public:
///     Diagonal(tessera::Box<2> domain, int ranks) : UserDistribution(domain, ranks) {}
///     std::string name() const override { return "diagonal"; }
///     int owner(const tessera::Point<2>& p) const override { ... }
///     tessera::BoxList<2> owned_boxes(int rank) const override { ... }
///   };
///   auto dist = tessera::Distribution<2>::user(std::make_shared<Diagonal>(domain, P));
/// \endcode
/// `examples/morton_distribution` is a complete, tested one (a Morton space-filling curve).

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/core/hash.hpp"
#include "tessera/geometry.hpp"

namespace tessera {

/// A part of a box or section and the rank that owns it (the answer of `pieces`).
template <std::size_t N>
struct DistPiece {
  /// The part.
  Section<N> section;
  /// The rank that owns it.
  int rank = 0;
  friend bool operator==(const DistPiece&, const DistPiece&) = default;
};

/// The interface of a user-defined distribution (see the file comment).
template <std::size_t N>
class UserDistribution {
 public:
  virtual ~UserDistribution() = default;

  /// The global index space this distribution covers.
  [[nodiscard]] const Box<N>& domain() const noexcept { return domain_; }
  /// Size of the communicator the ranks belong to.
  [[nodiscard]] int comm_size() const noexcept { return comm_size_; }

  /// Printed form, e.g. `morton(64x64 over 5)`. It also identifies the distribution: two user
  /// distributions with the same name must own every index alike (see `equals`).
  [[nodiscard]] virtual std::string name() const = 0;
  /// The rank that owns `p` (`p` lies in `domain()`).
  [[nodiscard]] virtual int owner(const Point<N>& p) const = 0;
  /// The boxes `rank` owns: disjoint, inside `domain()`, none on a rank that owns nothing. Over all
  /// ranks they must tile the domain unless `covers_domain()` says otherwise, and `owner` must
  /// agree with them.
  [[nodiscard]] virtual BoxList<N> owned_boxes(int rank) const = 0;

  /// Position of `p` in its owner's local storage. The default follows the patch layout: the
  /// patches of `owned_boxes(owner(p))` one after another, each row-major. Without a local layout
  /// (`has_local_layout()` false) override only with a faster computation of the same numbers;
  /// with one, any one-to-one map of a rank's owned points into [0, local_storage_size(rank)).
  [[nodiscard]] virtual index_t local_offset(const Point<N>& p) const {
    index_t before = 0;
    for (const auto& b : owned_boxes(owner(p))) {
      if (contains(b, p)) return before + offset_row_major(b, p);
      before += volume(b);
    }
    fail(ErrorCode::internal, name(), ": owner(", p, ") does not list a box containing ", p);
  }

  /// How many of the `count` points p, p + e_axis, p + 2 e_axis, ... (e_axis: one step along
  /// `axis`) lie at consecutive offsets local_offset(p), local_offset(p) + 1, ...: a number in
  /// [1, count]. The engine asks it under a local layout when it compiles a schedule and when it
  /// walks the owned points, so that a layout keeping stretches of a row together costs one call
  /// per stretch instead of one `local_offset` per point. The caller promises that all `count`
  /// points are owned by owner(p). Answering less than the longest stretch is always correct (the
  /// default answers 1: one `local_offset` per point); answering more is a bad layout, which
  /// `check_local_layout` reports.
  [[nodiscard]] virtual index_t local_run(const Point<N>& p, std::size_t axis, index_t count) const {
    (void)p, (void)axis, (void)count;
    return 1;
  }

  /// Chapel's `LocalLayout`: true if this distribution chooses its ranks' storage order itself,
  /// so that an array keeps `p` at element `local_offset(p)` of its owner's buffer (a column-major,
  /// padded, tiled or space-filling-curve order: layout/local_layout.hpp). Their ghost cells go in
  /// slabs after the owned points (plan/storage_layout.hpp), and operations that need strided
  /// patches (local views, stencils, region statements, boundary rules, checkpoints) refuse them
  /// with an `Error` (docs/concepts.md, "User-defined local layouts"). The default says no: one
  /// row-major patch per owned box.
  [[nodiscard]] virtual bool has_local_layout() const noexcept { return false; }
  /// Elements of `rank`'s buffer under the local layout: at least the points it owns (a padded
  /// layout leaves holes). The default: the points it owns.
  [[nodiscard]] virtual index_t local_storage_size(int rank) const { return volume(owned_boxes(rank)); }

  /// The (section, rank) pieces that cover `box ∩ domain()`. The default intersects `box` with every
  /// rank's boxes, O(P · boxes); override when the structure allows better (a space-filling curve
  /// can walk only the ranks whose curve segments meet the box).
  [[nodiscard]] virtual std::vector<DistPiece<N>> pieces(const Box<N>& box) const {
    std::vector<DistPiece<N>> out;
    for (int r = 0; r < comm_size_; ++r)
      for (const auto& b : owned_boxes(r))
        if (const auto part = intersect(b, box); !part.empty()) out.push_back({Section<N>::from_box(part), r});
    return out;
  }

  /// True if every pieces() piece lies inside one owned box of its rank (one storage patch), so
  /// `Distribution::pieces` need not split it along the owner's boxes. The default says no.
  [[nodiscard]] virtual bool pieces_lie_in_owned_boxes() const noexcept { return false; }
  /// False for a distribution whose boxes leave indices of the domain unowned (a box set with
  /// holes: layout/box_set_distribution.hpp). Every movement skips unowned indices. The default
  /// says the boxes tile the domain.
  [[nodiscard]] virtual bool covers_domain() const noexcept { return true; }

  /// Same ownership of every index. The default compares names.
  [[nodiscard]] virtual bool equals(const UserDistribution& other) const { return name() == other.name(); }
  /// Stable hash consistent with `equals`. The default hashes the name.
  [[nodiscard]] virtual std::uint64_t hash() const {
    std::uint64_t h = hash_combine(0x05e4ULL, hash_value(domain_));
    for (char c : name()) h = hash_combine(h, static_cast<std::uint64_t>(static_cast<unsigned char>(c)));
    return h;
  }

 protected:
  /// A distribution of `domain` over a communicator of `comm_size` ranks (derived classes call it).
  UserDistribution(const Box<N>& domain, int comm_size) : domain_(domain), comm_size_(comm_size) {
    if (comm_size < 1) fail_argument("UserDistribution", "comm_size", comm_size, "must be >= 1");
  }

 private:
  Box<N> domain_;
  int comm_size_;
};

}  // namespace tessera
