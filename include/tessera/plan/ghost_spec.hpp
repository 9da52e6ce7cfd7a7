#pragma once
/// \file
/// `GhostSpec<N>`: the ghost layers an array keeps around each owned box (D3-ARC viewports, KeLP's
/// grown regions), how they are filled, and the storage order of the array's local memory (the
/// rest of what `StorageLayout` needs besides the distribution, so that every schedule key built
/// from a ghost spec tells row- and column-major arrays apart).
/// \code
///   auto g = tessera::ghosts<2>(1);                              // width 1 on every side, corners too
///   auto h = tessera::ghosts<3>(2).faces_only().periodic_along({true, true, false});
///   auto k = tessera::GhostSpec<2>::sides({1, 0}, {2, 0});       // per side: 1 below, 2 above, rows only
///   auto f = tessera::no_ghosts<2>().column_major();              // no ghosts, Fortran order
/// \endcode
/// Ghosts are filled from whichever ranks own those indices (DESIGN invariant 7): across empty
/// ranks and from beyond a neighbour thinner than the ghost width. Along a periodic dimension a
/// ghost that falls outside the domain is filled from the other side; along a non-periodic one it
/// is left as the program set it (boundary values).

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/core/hash.hpp"
#include "tessera/geometry/box.hpp"
#include "tessera/geometry/box_difference.hpp"
#include "tessera/geometry/periodic.hpp"
#include "tessera/geometry/point.hpp"
#include "tessera/plan/storage_order.hpp"

namespace tessera {

/// The ghost layers of an array: widths per side, periodic dimensions, corners (see the file comment).
template <std::size_t N>
struct GhostSpec {
  Point<N> lower{};           ///< ghost width below the owned box along each dimension
  Point<N> upper{};           ///< ghost width above it
  bool corners = true;        ///< fill edges and corners too (needed by 9- and 27-point stencils)
  Periodicity<N> periodic{};  ///< which dimensions wrap around
  StorageOrder order = StorageOrder::row_major;  ///< local memory order of the array's patches

  /// Widths per side; throws `Error(invalid_argument)` for a negative width.
  [[nodiscard]] static GhostSpec sides(const Point<N>& lower, const Point<N>& upper) {
    for (std::size_t d = 0; d < N; ++d) {
      if (lower[d] < 0) fail_argument("GhostSpec", detail::concat("lower[", d, "]"), lower[d], "must be >= 0");
      if (upper[d] < 0) fail_argument("GhostSpec", detail::concat("upper[", d, "]"), upper[d], "must be >= 0");
    }
    GhostSpec g;
    g.lower = lower;
    g.upper = upper;
    return g;
  }
  /// The same widths without edges and corners (5- and 7-point stencils).
  [[nodiscard]] GhostSpec faces_only() const {
    GhostSpec g = *this;
    g.corners = false;
    return g;
  }
  /// The same widths, wrapping around along the dimensions marked true.
  [[nodiscard]] GhostSpec periodic_along(const Periodicity<N>& p) const {
    GhostSpec g = *this;
    g.periodic = p;
    return g;
  }
  /// The same ghost layers, local storage in `o` order.
  [[nodiscard]] GhostSpec stored(StorageOrder o) const {
    GhostSpec g = *this;
    g.order = o;
    return g;
  }
  /// The same ghost layers, local storage column-major (Fortran order; docs/scalapack.md).
  [[nodiscard]] GhostSpec column_major() const { return stored(StorageOrder::column_major); }
  /// True if no side has a ghost layer.
  [[nodiscard]] bool none() const noexcept { return lower == Point<N>{} && upper == Point<N>{}; }

  friend bool operator==(const GhostSpec&, const GhostSpec&) = default;
  /// Stable hash (the same on every rank and run), consistent with ==.
  [[nodiscard]] std::uint64_t hash() const noexcept {
    std::uint64_t h = hash_combine(hash_value(lower), hash_value(upper));
    h = hash_combine(h, corners ? 1 : 0);
    for (bool p : periodic) h = hash_combine(h, p ? 1 : 0);
    // Row-major adds nothing, so that the hashes (and cache keys) of row-major specs are those
    // they were before storage orders existed.
    if (order != StorageOrder::row_major) h = hash_combine(h, 0x636f6c6d616a6f72ULL + static_cast<std::uint64_t>(order));
    return h;
  }
  /// `ghosts(lower (1, 1), upper (1, 1), corners, periodic (1, 0))`, with `, column-major` added
  /// for that order.
  friend std::ostream& operator<<(std::ostream& out, const GhostSpec& g) {
    out << "ghosts(lower " << g.lower << ", upper " << g.upper << (g.corners ? ", corners" : ", faces only");
    out << ", periodic (";
    for (std::size_t d = 0; d < N; ++d) out << (d ? ", " : "") << (g.periodic[d] ? 1 : 0);
    out << ")";
    if (g.order != StorageOrder::row_major) out << ", " << g.order;
    return out << ")";
  }
};

/// Width `width` on every side of every dimension, edges and corners included, not periodic.
template <std::size_t N>
[[nodiscard]] GhostSpec<N> ghosts(index_t width) {
  return GhostSpec<N>::sides(Point<N>::filled(width), Point<N>::filled(width));
}

/// No ghost layers.
template <std::size_t N>
[[nodiscard]] GhostSpec<N> no_ghosts() {
  return GhostSpec<N>{};
}

namespace detail {

/// The ghost boxes around `box`: the whole shell, or only its face slabs.
template <std::size_t N>
std::vector<Box<N>> ghost_boxes(const Box<N>& box, const GhostSpec<N>& g) {
  std::vector<Box<N>> out;
  if (g.corners) {
    for (const auto& piece : difference(grow(box, g.lower, g.upper), box)) out.push_back(piece);
    return out;
  }
  for (std::size_t d = 0; d < N; ++d) {
    Box<N> below = box, above = box;
    below.hi[d] = box.lo[d];
    below.lo[d] = box.lo[d] - g.lower[d];
    above.lo[d] = box.hi[d];
    above.hi[d] = box.hi[d] + g.upper[d];
    if (!below.empty()) out.push_back(below);
    if (!above.empty()) out.push_back(above);
  }
  return out;
}

}  // namespace detail

}  // namespace tessera
