#pragma once
/// \file
/// Periodic wraparound: a box that sticks out of a periodic domain (a ghost region at the edge of
/// a periodic grid, D3-ARC's negative viewport widths) becomes the in-domain pieces it denotes,
/// each with the shift that took it there.

#include <array>
#include <cstddef>
#include <vector>

#include "tessera/geometry/box.hpp"

namespace tessera {

/// Which dimensions of a domain wrap around.
template <std::size_t N>
using Periodicity = std::array<bool, N>;

/// One piece of a wrapped box: `box` lies in the domain, and `shift(box, -offset)` is the part of
/// the original box it came from (so `offset` is the shift that took that part into the domain).
template <std::size_t N>
struct WrappedPiece {
  /// The in-domain piece.
  Box<N> box;
  /// The shift that took its source part into the domain: `source = shift(box, -offset)`.
  Point<N> offset;
  friend constexpr bool operator==(const WrappedPiece&, const WrappedPiece&) = default;
};

/// Splits `b` into the in-domain pieces it denotes when the dimensions marked in `periodic` wrap.
///
/// Along a periodic dimension of extent L, the part of `b` in `[lo + k L, hi + k L)` maps to the
/// domain by the shift `-k L`, for every k it touches (a box may span several periods). Along a
/// non-periodic dimension the part outside the domain is dropped: no index there exists.
/// The pieces' sources `shift(piece.box, -piece.offset)` are disjoint and tile `b` clipped to the
/// domain along the non-periodic dimensions. Pieces are ordered with the unshifted piece (if any)
/// where the enumeration puts it: dimension 0 slowest, k ascending.
/// \code
///   Box<1> dom({0}, {10});
///   wrap_periodic(Box<1>({-2}, {3}), dom, {true})  // {[8,10) offset +10}, {[0,3) offset 0}
/// \endcode
/// Throws `Error(invalid_argument)` if a periodic dimension of `domain` is empty, and if the box
/// would split into more than 2^20 pieces (a box many periods wide is almost surely a mistake).
template <std::size_t N>
[[nodiscard]] std::vector<WrappedPiece<N>> wrap_periodic(const Box<N>& b, const Box<N>& domain,
                                                         const Periodicity<N>& periodic) {
  std::vector<WrappedPiece<N>> out;
  if (b.empty()) return out;
  std::array<index_t, N> k_first{}, k_last{}, period{};
  index_t count = 1;
  for (std::size_t d = 0; d < N; ++d) {
    if (!periodic[d]) continue;  // k stays 0: clipped, not wrapped
    period[d] = domain.hi[d] - domain.lo[d];
    if (period[d] <= 0) fail_argument("wrap_periodic", "domain", domain, "is empty along a periodic dimension");
    k_first[d] = floor_div(b.lo[d] - domain.lo[d], period[d]);
    k_last[d] = floor_div(b.hi[d] - 1 - domain.lo[d], period[d]);
    count = checked_mul(count, k_last[d] - k_first[d] + 1, "wrap_periodic piece count");
  }
  if (count > (index_t{1} << 20))
    fail_argument("wrap_periodic", "box", b, "spans more than 2^20 periods of the domain");
  std::array<index_t, N> k = k_first;
  for (;;) {
    Point<N> offset;
    for (std::size_t d = 0; d < N; ++d) offset[d] = -k[d] * period[d];
    const Box<N> piece = intersect(shift(b, offset), domain);
    if (!piece.empty()) out.push_back({piece, offset});
    std::size_t d = N;
    for (;;) {  // next k, last dimension fastest
      if (d == 0) return out;
      --d;
      if (++k[d] <= k_last[d]) break;
      k[d] = k_first[d];
    }
  }
}

}  // namespace tessera
