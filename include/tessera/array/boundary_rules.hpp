#pragma once
/// \file
/// `BoundaryRules<T, N>`: what `update_ghosts` writes into the ghost cells outside the domain box,
/// per axis and side (ZPL's wrap and reflect; periodic axes stay in `GhostSpec`). Attached to an
/// array with `DistArray::set_boundary`; applied by every ghost update of it (blocking, split-phase,
/// fused) right after the exchange.
/// \code
///   namespace bc = tessera::boundary;
///   tessera::DistArray<double, 2> u(dom, tessera::ghosts<2>(1));
///   u.set_boundary(tessera::BoundaryRules<double, 2>()
///                      .along(0, bc::reflect())            // both sides of axis 0: even mirror
///                      .low(1, bc::constant(1.0))          // Dirichlet value below along axis 1
///                      .high(1, bc::extrapolate()));       // linear extrapolation above
///   u.update_ghosts();                                     // exchange, then the rules
///   v.set_boundary(tessera::BoundaryRules<double, 2>().along(1, bc::reflect(-1)));   // odd mirror
///   w.set_boundary(tessera::BoundaryRules<double, 2>().low(0, bc::function(
///       [](const tessera::Point<2>& p) { return std::sin(0.1 * double(p[1])); })));
/// \endcode
/// Which cells each rule sets, the order along axes (so that corners are defined) and what
/// reflect and extrapolate read are in plan/boundary_fill.hpp.
///
/// **Why the rules are not part of `GhostSpec`.** A constant and a function of the index are
/// values of the element type, which a ghost spec (shared by arrays of every type, and the key of
/// their exchange schedules) does not have; and a rule changes no message, so arrays with the same
/// ghosts and different rules share one schedule and one mover. What a rule adds is a local fill
/// plan: the array keeps it, keyed by the distribution's hash and the kinds of its rules, so that
/// a function of the index is identified by the array holding it, never hashed by value.

#include <array>
#include <cstddef>
#include <functional>
#include <type_traits>
#include <utility>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/geometry.hpp"
#include "tessera/plan/boundary_fill.hpp"
#include "tessera/plan/storage_layout.hpp"

namespace tessera {

/// The rules one writes into `BoundaryRules` (see the file comment).
namespace boundary {

/// No rule: the cells keep what the program wrote there (to clear a side set before).
struct None {};
[[nodiscard]] inline None none() { return {}; }
/// Mirror image about the boundary face; `sign` -1 negates it (odd symmetry: the value is 0 on
/// the face). Throws `Error(invalid_argument)` for a sign other than 1 or -1.
struct Reflect {
  int sign = 1;  ///< 1 or -1
};
[[nodiscard]] inline Reflect reflect(int sign = 1) {
  if (sign != 1 && sign != -1) fail_argument("boundary::reflect", "sign", sign, "must be 1 or -1");
  return Reflect{sign};
}
/// One value in every ghost cell outside the domain on that side.
template <class U>
struct Constant {
  U value;  ///< converted to the array's element type
};
template <class U>
[[nodiscard]] Constant<U> constant(U value) {
  return Constant<U>{std::move(value)};
}
/// Linear extrapolation through the two cells nearest the face: ghost lo-1-k holds
/// v(lo) + (k+1) * (v(lo) - v(lo+1)), and alike above.
struct Extrapolate {};
[[nodiscard]] inline Extrapolate extrapolate() { return {}; }
/// `f(p)` at each ghost cell p outside the domain (p its global index, outside the domain box).
template <class F>
struct Function {
  F f;  ///< called as f(const Point<N>&)
};
template <class F>
[[nodiscard]] Function<F> function(F f) {
  return Function<F>{std::move(f)};
}

}  // namespace boundary

/// The boundary rules of an array with elements T over an N-d domain: one per side of each axis,
/// none by default (see the file comment). A value type; set it on an array with
/// `DistArray::set_boundary`, alike on every rank (a function of the index may differ in code, not
/// in the values it gives).
template <class T, std::size_t N>
class BoundaryRules {
 public:
  /// The rule of one side.
  struct Side {
    BoundaryKind kind = BoundaryKind::none;  ///< which rule
    bool negate = false;                     ///< reflect: odd symmetry
    T value{};                               ///< constant: the value
    std::function<T(const Point<N>&)> at;    ///< function: the function of the index
  };

  /// Sets the rule of the low side of `axis`; throws `Error(invalid_argument)` for an axis >= N.
  template <class Rule>
  BoundaryRules& low(std::size_t axis, Rule&& rule) {
    side_at("BoundaryRules::low", axis, 0) = make(std::forward<Rule>(rule));
    return *this;
  }
  /// Sets the rule of the high side of `axis`.
  template <class Rule>
  BoundaryRules& high(std::size_t axis, Rule&& rule) {
    side_at("BoundaryRules::high", axis, 1) = make(std::forward<Rule>(rule));
    return *this;
  }
  /// Sets the same rule on both sides of `axis`.
  template <class Rule>
  BoundaryRules& along(std::size_t axis, const Rule& rule) {
    low(axis, rule);
    return high(axis, rule);
  }

  /// Sets the rule for ghost cells inside the domain box that no box of a box set holds (its
  /// holes; docs/box-sets.md): `boundary::constant(v)`, `boundary::function(f)` (called at the
  /// in-domain index, wrapped where the ghost lies across a periodic side), `boundary::reflect(sign)`
  /// (a wall: the cell of the patch's own box mirrored about the box's faces along every axis the
  /// ghost lies beyond, negated once for sign -1; plan/boundary_fill.hpp) or `boundary::none()`.
  /// A distribution without holes has no such cells. Throws `Error(invalid_argument)` for
  /// `extrapolate`: which two cells a ghost beyond a box's corner extrapolates from is not defined.
  template <class Rule>
  BoundaryRules& holes(Rule&& rule) {
    Side s = make(std::forward<Rule>(rule));
    if (s.kind == BoundaryKind::extrapolate)
      fail_argument("BoundaryRules::holes", "rule", s.kind,
                    "is not defined inside a hole (beyond a box's corner, along which axis?): use boundary::reflect, "
                    "boundary::constant or boundary::function");
    holes_ = std::move(s);
    return *this;
  }

  /// The rule of one side (`high` false: the low side).
  [[nodiscard]] const Side& side(std::size_t axis, bool high) const { return sides_[axis][high ? 1 : 0]; }
  /// The rule for ghost cells over holes.
  [[nodiscard]] const Side& hole_rule() const noexcept { return holes_; }
  /// The kinds of every side: what the fill plan depends on.
  [[nodiscard]] BoundaryKinds<N> kinds() const noexcept {
    BoundaryKinds<N> k;
    for (std::size_t d = 0; d < N; ++d) k.side[d] = {sides_[d][0].kind, sides_[d][1].kind};
    k.holes = holes_.kind;
    return k;
  }
  /// True if no side has a rule.
  [[nodiscard]] bool none() const noexcept { return kinds().none(); }

 private:
  Side& side_at(const char* where, std::size_t axis, int s) {
    if (axis >= N) fail_argument(where, "axis", axis, detail::concat("must be < ", N));
    return sides_[axis][static_cast<std::size_t>(s)];
  }
  static Side make(boundary::None) { return Side{}; }
  static Side make(const boundary::Reflect& r) {
    if constexpr (!requires(const T& x) { T(-x); }) {
      if (r.sign < 0) fail_argument("BoundaryRules", "reflect sign", r.sign, "needs an element type with unary minus");
    }
    Side s;
    s.kind = BoundaryKind::reflect;
    s.negate = r.sign < 0;
    return s;
  }
  template <class U>
  static Side make(const boundary::Constant<U>& c) {
    Side s;
    s.kind = BoundaryKind::constant;
    s.value = static_cast<T>(c.value);
    return s;
  }
  static Side make(boundary::Extrapolate) {
    static_assert(requires(const T& a, index_t k) { T(a + T(k) * (a - a)); },
                  "boundary::extrapolate needs an element type with +, - and * and a conversion from an integer");
    Side s;
    s.kind = BoundaryKind::extrapolate;
    return s;
  }
  template <class F>
  static Side make(boundary::Function<F> f) {
    static_assert(std::is_convertible_v<std::invoke_result_t<F&, const Point<N>&>, T>,
                  "boundary::function(f): f(const Point<N>&) must return a value convertible to the element type");
    Side s;
    s.kind = BoundaryKind::function;
    s.at = std::move(f.f);
    return s;
  }

  std::array<std::array<Side, 2>, N> sides_{};
  Side holes_{};
};

namespace detail {

/// What a reflect writes from the cell it mirrors: the value, negated for odd symmetry.
template <class T>
[[nodiscard]] T reflected(const T& mirror, bool negate) {
  if constexpr (requires(const T& x) { T(-x); }) {
    return negate ? T(-mirror) : mirror;
  } else {
    return mirror;  // BoundaryRules::make refused a negated reflect for such a T
  }
}

/// Applies `fills` (made for `layout` and `rules.kinds()`) to a rank's buffer `data`.
template <class T, std::size_t N>
void apply_boundary_fills(T* data, const StorageLayout<N>& layout, const std::vector<BoundaryFill<N>>& fills,
                          const BoundaryRules<T, N>& rules) {
  for (const auto& f : fills) {
    const PatchLayout<N>& p = layout.patches()[f.patch];
    T* base = data + p.offset;
    const auto& rule = f.hole ? rules.hole_rule() : rules.side(f.axis, f.high);
    const std::size_t d = f.axis;
    const index_t stride = p.strides[d];
    const auto at = [&](const Point<N>& l) -> T& {
      index_t off = 0;
      for (std::size_t e = 0; e < N; ++e) off += l[e] * p.strides[e];
      return base[off];
    };
    if (f.hole && rule.kind == BoundaryKind::reflect) {
      // A wall around the patch's own box: the mirror about its faces along every axis the ghost
      // lies beyond (check_boundary_reads made sure the mirror is an owned cell).
      for_each_point(f.cells, [&](const Point<N>& l) {
        Point<N> m = l;
        for (std::size_t e = 0; e < N; ++e) {
          const AxisMap& a = p.axes[e];
          if (l[e] < a.ghost_lo) m[e] = 2 * a.ghost_lo - 1 - l[e];
          if (l[e] >= a.ghost_lo + a.count) m[e] = 2 * (a.ghost_lo + a.count) - 1 - l[e];
        }
        at(l) = reflected(at(m), rule.negate);
      });
      continue;
    }
    for_each_point(f.cells, [&](const Point<N>& l) {
      T& cell = at(l);
      switch (rule.kind) {
        case BoundaryKind::reflect: {
          cell = reflected(*(&cell + (2 * f.face - 1 - 2 * l[d]) * stride), rule.negate);
          break;
        }
        case BoundaryKind::constant: cell = rule.value; break;
        case BoundaryKind::extrapolate: {
          if constexpr (requires(const T& a, index_t k) { T(a + T(k) * (a - a)); }) {
            // The nearest cell inside, the next one, and how many cells beyond the nearest this is.
            const index_t near = f.high ? f.face - 1 : f.face;
            const index_t next = f.high ? near - 1 : near + 1;
            const index_t k = f.high ? l[d] - near : near - l[d];
            const T& a = *(&cell + (near - l[d]) * stride);
            const T& b = *(&cell + (next - l[d]) * stride);
            cell = T(a + T(k) * (a - b));
          }
          break;
        }
        case BoundaryKind::function: {
          Point<N> q;
          for (std::size_t e = 0; e < N; ++e) q[e] = p.axes[e].global(l[e]) + f.wrap[e];
          cell = static_cast<T>(rule.at(q));
          break;
        }
        case BoundaryKind::none: break;
      }
    });
  }
}

}  // namespace detail

}  // namespace tessera
