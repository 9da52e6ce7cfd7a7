#pragma once
/// \file
/// `Orientation<N>`: how the axes of one index space lie in another (a signed axis permutation:
/// 2^N N! of them, 8 in 2-D, 48 in 3-D), and `OrientedMap<N>`, an orientation placed by a point of
/// each space: the map that glues two blocks of a multiblock domain (Multiblock PARTI) at a face.
///
/// An orientation sends an offset `x` to `y` with `y[d] = x[perm[d]]`, negated where `flip[d]`:
/// axis d of the image runs along axis `perm[d]` of the source (the convention of `MotionPlan`),
/// backwards where flipped.
/// \code
///   tessera::Orientation<2> quarter_turn({1, 0}, {true, false});  // (x0, x1) -> (-x1, x0)
///   tessera::OrientedMap<2> glue(quarter_turn, {0, 0}, {9, 3});   // from (0,0) to (9,3)
///   glue.map(tessera::Point<2>{0, 1});                            // -> (8, 3)
/// \endcode

#include <array>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/core/hash.hpp"
#include "tessera/geometry/box.hpp"

namespace tessera {

/// A signed axis permutation (see the file comment).
template <std::size_t N>
class Orientation {
 public:
  using Permutation = std::array<int, N>;
  using Flips = std::array<bool, N>;

  /// The identity: every axis in place, none flipped.
  constexpr Orientation() noexcept {
    std::iota(perm_.begin(), perm_.end(), 0);
    flip_.fill(false);
  }
  /// Image axis d runs along source axis `perm[d]`, backwards where `flip[d]`. Throws
  /// `Error(invalid_argument)` naming the entry if `perm` is not a permutation of 0..N-1.
  Orientation(const Permutation& perm, const Flips& flip) : perm_(perm), flip_(flip) {
    std::array<bool, N> seen{};
    for (std::size_t d = 0; d < N; ++d) {
      if (perm[d] < 0 || perm[d] >= static_cast<int>(N) || seen[static_cast<std::size_t>(perm[d])])
        fail_argument("Orientation", detail::concat("perm[", d, "]"), perm[d],
                      detail::concat("makes the axis map not a permutation of 0..", N - 1));
      seen[static_cast<std::size_t>(perm[d])] = true;
    }
  }

  [[nodiscard]] const Permutation& perm() const noexcept { return perm_; }
  [[nodiscard]] const Flips& flips() const noexcept { return flip_; }
  /// Source axis that image axis d runs along.
  [[nodiscard]] std::size_t source_axis(std::size_t d) const noexcept { return static_cast<std::size_t>(perm_[d]); }
  /// True if image axis d runs backwards.
  [[nodiscard]] bool flipped(std::size_t d) const noexcept { return flip_[d]; }
  /// Image axis that source axis s runs along.
  [[nodiscard]] std::size_t image_axis(std::size_t s) const noexcept {
    for (std::size_t d = 0; d < N; ++d)
      if (perm_[d] == static_cast<int>(s)) return d;
    return N;  // unreachable for a valid permutation
  }

  /// The image of offset `x`.
  [[nodiscard]] constexpr Point<N> apply(const Point<N>& x) const noexcept {
    Point<N> y;
    for (std::size_t d = 0; d < N; ++d) y[d] = flip_[d] ? -x[source_axis(d)] : x[source_axis(d)];
    return y;
  }
  /// The orientation that undoes this one.
  [[nodiscard]] Orientation inverse() const {
    Permutation p{};
    Flips f{};
    for (std::size_t d = 0; d < N; ++d) {
      p[source_axis(d)] = static_cast<int>(d);
      f[source_axis(d)] = flip_[d];
    }
    return Orientation(p, f);
  }
  /// `then(after)`: first this orientation, then `after` (`after.apply(apply(x))`).
  [[nodiscard]] Orientation then(const Orientation& after) const {
    Permutation p{};
    Flips f{};
    for (std::size_t d = 0; d < N; ++d) {
      const std::size_t mid = after.source_axis(d);
      p[d] = perm_[mid];
      f[d] = after.flip_[d] != flip_[mid];
    }
    return Orientation(p, f);
  }
  [[nodiscard]] std::uint64_t hash() const noexcept {
    std::uint64_t h = 0x6f7269656e74ULL;
    for (std::size_t d = 0; d < N; ++d) h = hash_combine(hash_combine(h, static_cast<std::uint64_t>(perm_[d])), flip_[d]);
    return h;
  }
  friend bool operator==(const Orientation&, const Orientation&) = default;

 private:
  Permutation perm_{};
  Flips flip_{};
};

/// Every orientation of N axes (2^N N!), permutations in lexicographic order, flips counting up.
template <std::size_t N>
[[nodiscard]] std::vector<Orientation<N>> all_orientations() {
  std::vector<Orientation<N>> out;
  std::array<int, N> perm{};
  std::iota(perm.begin(), perm.end(), 0);
  do {
    for (unsigned bits = 0; bits < (1U << N); ++bits) {
      std::array<bool, N> flip{};
      for (std::size_t d = 0; d < N; ++d) flip[d] = ((bits >> d) & 1U) != 0;
      out.emplace_back(perm, flip);
    }
  } while (std::next_permutation(perm.begin(), perm.end()));
  return out;
}

/// An orientation placed in space: `map(x) = to + o.apply(x - from)`, a bijection of Z^N that
/// sends boxes to boxes of the permuted extents.
template <std::size_t N>
struct OrientedMap {
  Orientation<N> orientation;
  Point<N> from{};  ///< a point of the source space ...
  Point<N> to{};    ///< ... and where it goes

  [[nodiscard]] Point<N> map(const Point<N>& x) const noexcept {
    Point<N> off;
    for (std::size_t d = 0; d < N; ++d) off[d] = x[d] - from[d];
    const Point<N> y = orientation.apply(off);
    Point<N> out;
    for (std::size_t d = 0; d < N; ++d) out[d] = to[d] + y[d];
    return out;
  }
  /// The image of box `b` (empty for an empty box).
  [[nodiscard]] Box<N> map(const Box<N>& b) const noexcept {
    if (b.empty()) return Box<N>{};
    Box<N> out;
    for (std::size_t d = 0; d < N; ++d) {
      const std::size_t s = orientation.source_axis(d);
      if (orientation.flipped(d)) {
        out.lo[d] = to[d] - (b.hi[s] - 1 - from[s]);
        out.hi[d] = to[d] - (b.lo[s] - from[s]) + 1;
      } else {
        out.lo[d] = to[d] + (b.lo[s] - from[s]);
        out.hi[d] = to[d] + (b.hi[s] - from[s]);
      }
    }
    return out;
  }
  /// The map that undoes this one.
  [[nodiscard]] OrientedMap inverse() const { return {orientation.inverse(), to, from}; }
  /// `then(after)`: first this map, then `after` (`after.map(map(x))`): a path across two
  /// interfaces of a multiblock domain as one map.
  [[nodiscard]] OrientedMap then(const OrientedMap& after) const {
    return {orientation.then(after.orientation), from, after.map(to)};
  }
  /// The map that sends box `from_box` onto box `to_box` under `o` (their extents must agree
  /// under the permutation; the caller checks).
  [[nodiscard]] static OrientedMap onto(const Orientation<N>& o, const Box<N>& from_box, const Box<N>& to_box) {
    OrientedMap m{o, from_box.lo, {}};
    for (std::size_t d = 0; d < N; ++d) m.to[d] = o.flipped(d) ? to_box.hi[d] - 1 : to_box.lo[d];
    return m;
  }
  [[nodiscard]] std::uint64_t hash() const noexcept {
    std::uint64_t h = orientation.hash();
    for (std::size_t d = 0; d < N; ++d)
      h = hash_combine(hash_combine(h, static_cast<std::uint64_t>(from[d])), static_cast<std::uint64_t>(to[d]));
    return h;
  }
};

}  // namespace tessera
