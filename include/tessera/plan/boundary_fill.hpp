#pragma once
/// \file
/// Boundary rules for the ghost cells outside the domain box (ZPL's wrap and reflect): the kind of
/// rule on each side of each axis (`BoundaryKinds<N>`), its checks against a ghost spec and a
/// domain box, and the fill plan of one rank — which local cells of which patch each rule sets, in
/// the order they are set. Pure: no values, no MPI. The typed rules (constants, functions of the
/// index) and the code that applies a plan are `BoundaryRules<T, N>` (array/boundary_rules.hpp).
///
/// **Which cells, in which order.** Periodic axes have no rules: their ghosts are filled by the
/// exchange. The non-periodic axes are done one after another in increasing order; the rule of
/// axis d on one side sets the ghost cells that lie outside the domain along d on that side, over
/// - with corners: the whole stored range along periodic axes and along the axes before d (cells
///   the exchange or earlier rules set), the stored range inside the domain along the axes after d;
/// - faces only: the owned range along every other axis (the face slab, nothing else).
/// So a cell outside the domain along several axes is set once, by the rule of the last such axis,
/// which reads cells the earlier axes' rules already set: a corner between reflect along 0 and
/// constant along 1 holds the constant; between constant along 0 and reflect along 1, the mirror
/// of the constant, i.e. the constant.
/// \code
///   // 2-d, rules along axis 0 and 1, ghosts of width 1 with corners, one rank owning all of [0,4)^2:
///   //   step 0 sets rows -1 and 4 over columns [0,4); step 1 sets columns -1 and 4 over rows [-1,5)
/// \endcode
/// **What the rules read.** `reflect` reads the cell mirrored about the boundary face (ghost
/// lo-1-k reads lo+k); `extrapolate` the two cells nearest the face. Those cells are inside the
/// domain along the axis: the patch owns them, or, where its owned extent along the axis is thinner
/// than what the rule reads, they lie in its ghost layer on the other side and were filled by the
/// exchange first (rules are applied after it). Where not even that covers them,
/// `check_boundary_reads` names the rule, and the update is rejected on every rank.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/core/hash.hpp"
#include "tessera/geometry.hpp"
#include "tessera/layout/box_set.hpp"
#include "tessera/plan/ghost_spec.hpp"
#include "tessera/plan/storage_layout.hpp"

namespace tessera {

/// What sets the ghost cells outside the domain on one side of one axis.
enum class BoundaryKind : int {
  none = 0,         ///< nothing: they keep what the program wrote there (the default)
  reflect = 1,      ///< the mirror image about the boundary face, optionally negated (odd symmetry)
  constant = 2,     ///< one value
  extrapolate = 3,  ///< linear extrapolation from the two cells nearest the face
  function = 4,     ///< a function of the global index
};

/// "none", "reflect", "constant", "extrapolate", "function".
[[nodiscard]] inline const char* to_string(BoundaryKind k) noexcept {
  switch (k) {
    case BoundaryKind::reflect: return "reflect";
    case BoundaryKind::constant: return "constant";
    case BoundaryKind::extrapolate: return "extrapolate";
    case BoundaryKind::function: return "function";
    case BoundaryKind::none: break;
  }
  return "none";
}
inline std::ostream& operator<<(std::ostream& out, BoundaryKind k) { return out << to_string(k); }

/// The kind of rule on each side of each axis (index 0 the low side, 1 the high side): all a fill
/// plan depends on besides the layout, so what identifies it.
template <std::size_t N>
struct BoundaryKinds {
  std::array<std::array<BoundaryKind, 2>, N> side{};  ///< side[axis][0] low, side[axis][1] high
  /// The rule for ghost cells inside the domain box over which no box of a box set lies (a hole):
  /// none, constant or function (docs/box-sets.md).
  BoundaryKind holes = BoundaryKind::none;

  /// True if no side has a rule.
  [[nodiscard]] bool none() const noexcept {
    for (const auto& s : side)
      if (s[0] != BoundaryKind::none || s[1] != BoundaryKind::none) return false;
    return holes == BoundaryKind::none;
  }
  friend bool operator==(const BoundaryKinds&, const BoundaryKinds&) = default;
  /// Stable hash, consistent with ==.
  [[nodiscard]] std::uint64_t hash() const noexcept {
    std::uint64_t h = 0x626f756e64617279ULL;
    for (const auto& s : side) h = hash_combine(hash_combine(h, static_cast<std::uint64_t>(s[0])), static_cast<std::uint64_t>(s[1]));
    return holes == BoundaryKind::none ? h : hash_combine(h, 0x686f6c6573ULL + static_cast<std::uint64_t>(holes));
  }
};

/// One slab of ghost cells that one rule sets in one patch.
template <std::size_t N>
struct BoundaryFill {
  std::size_t patch = 0;  ///< the patch, in the layout's order
  std::size_t axis = 0;   ///< the axis whose rule sets them
  bool high = false;      ///< the high side (else the low side)
  Box<N> cells{};         ///< the cells, in local indices of the patch (ghosts included)
  /// Local index along `axis` of the boundary face: the first cell inside the domain on the low
  /// side, the first cell outside it on the high side. Reflect maps local l to 2 * face - 1 - l.
  index_t face = 0;
  /// True for ghost cells over a hole of a box set (the holes rule sets them; axis, high and face
  /// are unused: a reflect mirrors about the patch's own box along every axis the cells lie beyond).
  bool hole = false;
  /// Holes: the periodic shift from the cells' global indices to the in-domain indices they stand
  /// for (0 where nothing wraps); a function of the index is called at the in-domain index.
  Point<N> wrap{};
};

/// Throws `Error(invalid_argument)` if `kinds` cannot be applied to arrays with ghosts `g` over
/// `domain`: a rule along a periodic axis, a reflect reading farther than the domain is wide (the
/// ghost width on that side exceeds the extent), an extrapolation across a domain one cell wide.
/// Pure: every rank that checks the same values throws the same error.
template <std::size_t N>
void check_boundary_kinds(const char* where, const BoundaryKinds<N>& kinds, const GhostSpec<N>& g, const Box<N>& domain) {
  for (std::size_t d = 0; d < N; ++d) {
    for (int s = 0; s < 2; ++s) {
      const BoundaryKind k = kinds.side[d][static_cast<std::size_t>(s)];
      if (k == BoundaryKind::none) continue;
      const char* side = s ? "high" : "low";
      const auto what = detail::concat(k, " on the ", side, " side of axis ", d);
      if (g.periodic[d])
        fail_argument(where, "rules", what, "is on a periodic axis: its ghosts wrap around (remove the rule or the periodicity)");
      const index_t width = s ? g.upper[d] : g.lower[d];
      const index_t ext = extent(domain, d);
      if (k == BoundaryKind::reflect && width > ext)
        fail_argument(where, "rules", what,
                      detail::concat("mirrors ", width, " ghost cells but the domain ", domain, " is only ", ext,
                                     " wide along axis ", d));
      if (k == BoundaryKind::extrapolate && width > 0 && ext < 2)
        fail_argument(where, "rules", what,
                      detail::concat("needs two cells inside the domain but ", domain, " is ", ext, " wide along axis ", d));
    }
  }
}

namespace detail {

/// The local range along axis e of patch axis `a` that a fill along `axis` spans (file comment).
template <std::size_t N>
std::array<index_t, 2> boundary_span(const AxisMap& a, std::size_t e, std::size_t axis, const GhostSpec<N>& g,
                                     const Box<N>& domain) {
  if (!a.is_interval()) return {0, a.count};
  if (!g.corners) return {a.ghost_lo, a.ghost_lo + a.count};
  if (g.periodic[e] || e < axis) return {0, a.extent()};
  return {std::max<index_t>(0, domain.lo[e] - a.first + a.ghost_lo),
          std::min<index_t>(a.extent(), domain.hi[e] - a.first + a.ghost_lo)};
}

}  // namespace detail

/// The fills one rank's `layout` needs for rules `kinds` over `domain` with ghosts `g`, in the
/// order they must run (axis by axis; see the file comment). Empty slabs are left out.
template <std::size_t N>
[[nodiscard]] std::vector<BoundaryFill<N>> boundary_fills(const StorageLayout<N>& layout, const Box<N>& domain,
                                                          const GhostSpec<N>& g, const BoundaryKinds<N>& kinds) {
  std::vector<BoundaryFill<N>> out;
  for (std::size_t d = 0; d < N; ++d) {
    if (g.periodic[d]) continue;
    for (std::size_t k = 0; k < layout.patches().size(); ++k) {
      const PatchLayout<N>& p = layout.patches()[k];
      const AxisMap& a = p.axes[d];
      if (!a.is_interval()) continue;  // no ghosts along compacted axes
      for (int s = 0; s < 2; ++s) {
        if (kinds.side[d][static_cast<std::size_t>(s)] == BoundaryKind::none) continue;
        BoundaryFill<N> f;
        f.patch = k;
        f.axis = d;
        f.high = s == 1;
        for (std::size_t e = 0; e < N; ++e) {
          if (e == d) continue;
          const auto span = detail::boundary_span(p.axes[e], e, d, g, domain);
          f.cells.lo[e] = span[0];
          f.cells.hi[e] = span[1];
        }
        if (f.high) {
          f.face = domain.hi[d] - a.first + a.ghost_lo;
          f.cells.lo[d] = std::max<index_t>(0, f.face);
          f.cells.hi[d] = a.extent();
        } else {
          f.face = domain.lo[d] - a.first + a.ghost_lo;
          f.cells.lo[d] = 0;
          f.cells.hi[d] = std::min(f.face, a.extent());
        }
        if (!f.cells.empty()) out.push_back(f);
      }
    }
  }
  return out;
}

/// The fills of the ghost cells of one rank's patches (`layout`, over box set `set`) that lie over a
/// hole: cells a ghost update would fill (ghosts `g`: faces only or with corners, periodic axes
/// wrapped into `domain`) whose in-domain index no box of `set` holds. Cells outside the domain
/// along a non-periodic axis are the side rules' and are not listed. Found through the set's
/// spatial index: the cost is that of the boxes around the patches. Empty pieces are left out.
template <std::size_t N>
[[nodiscard]] std::vector<BoundaryFill<N>> hole_fills(const StorageLayout<N>& layout, const Box<N>& domain,
                                                      const GhostSpec<N>& g, const BoxSet<N>& set) {
  std::vector<BoundaryFill<N>> out;
  for (std::size_t k = 0; k < layout.patches().size(); ++k) {
    const PatchLayout<N>& p = layout.patches()[k];
    // The ghost regions an update fills, in global indices (before wrapping).
    for (const Box<N>& region : detail::ghost_boxes(p.owned_box(), g)) {
      for (const WrappedPiece<N>& piece : wrap_periodic(region, domain, g.periodic)) {
        BoxList<N> holes{piece.box};
        for (const std::size_t i : set.meeting(piece.box)) holes = difference(holes, set.box(i));
        for (const Box<N>& hole : holes) {
          BoundaryFill<N> f;
          f.patch = k;
          f.hole = true;
          f.wrap = piece.offset;
          const Box<N> global = shift(hole, -piece.offset);
          for (std::size_t d = 0; d < N; ++d) {
            f.cells.lo[d] = p.axes[d].local(global.lo[d]);
            f.cells.hi[d] = p.axes[d].local(global.hi[d] - 1) + 1;
          }
          out.push_back(f);
        }
      }
    }
  }
  return out;
}

/// The error for a reflect over a hole (`f`, of `patch`) whose mirror is not an owned cell of the
/// patch: a box thinner along some axis than the ghost cells beyond it that lie over a hole. The
/// mirror of the ghost k cells beyond a face is the cell k - 1 inside it.
template <std::size_t N>
[[nodiscard]] std::optional<Error> check_hole_mirror(const char* where, const BoundaryFill<N>& f, const PatchLayout<N>& patch) {
  for (std::size_t e = 0; e < N; ++e) {
    const AxisMap& a = patch.axes[e];
    const index_t owned_lo = a.ghost_lo, owned_hi = a.ghost_lo + a.count;
    // How far beyond the box the fill reaches along e (its cells lie on one side of the box).
    const index_t depth = f.cells.lo[e] < owned_lo ? owned_lo - f.cells.lo[e]
                          : f.cells.hi[e] > owned_hi ? f.cells.hi[e] - owned_hi
                                                     : 0;
    if (depth > a.count)
      return Error(ErrorCode::invalid_argument,
                   detail::concat(where, ": the reflect rule over holes mirrors ghost cells ", depth,
                                  " deep beyond the box ", patch.owned_box(), " along axis ", e, ", which owns only ",
                                  a.count, " cells along it: use boundary::constant or boundary::function over holes, "
                                           "narrower ghosts, or boxes at least as thick as the ghosts"));
  }
  return std::nullopt;
}

/// The error for the first fill of `fills` that reads a cell its patch does not store (a patch
/// owning fewer cells along the axis than the rule reads, with too narrow a ghost layer on the
/// other side to hold the rest); nullopt if every read is stored.
template <std::size_t N>
[[nodiscard]] std::optional<Error> check_boundary_reads(const char* where, const std::vector<BoundaryFill<N>>& fills,
                                                        const StorageLayout<N>& layout, const BoundaryKinds<N>& kinds,
                                                        const Box<N>& domain) {
  for (const auto& f : fills) {
    if (f.hole) {
      if (kinds.holes != BoundaryKind::reflect) continue;  // constants and functions read nothing
      if (auto e = check_hole_mirror(where, f, layout.patches()[f.patch])) return e;
      continue;
    }
    const BoundaryKind k = kinds.side[f.axis][f.high ? 1 : 0];
    const AxisMap& a = layout.patches()[f.patch].axes[f.axis];
    // The range of local indices along the axis the rule reads.
    index_t lo = 0, hi = 0;
    if (k == BoundaryKind::reflect) {
      lo = 2 * f.face - f.cells.hi[f.axis];
      hi = 2 * f.face - f.cells.lo[f.axis];
    } else if (k == BoundaryKind::extrapolate) {
      lo = f.high ? f.face - 2 : f.face;
      hi = lo + 2;
    }
    if (lo < hi && (lo < 0 || hi > a.extent()))
      return Error(ErrorCode::invalid_argument,
                   detail::concat(where, ": the ", k, " rule on the ", f.high ? "high" : "low", " side of axis ", f.axis,
                                  " reads ", hi - lo, " cells of ", domain, " next to the boundary, but a patch there owns [",
                                  a.first, ", ", a.first + a.count, ") along that axis and its ghost layer on the other side is ",
                                  f.high ? a.ghost_lo : a.ghost_hi,
                                  " wide: make the ghosts on that side at least as wide as the rule's, or the patch thicker"));
  }
  return std::nullopt;
}

}  // namespace tessera
