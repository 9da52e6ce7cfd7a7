#pragma once
/// \file
/// ZPL's region-scoped statement with shifted reads, `[R] C := A + B@east`, as
/// `assign(R, c, f, reads...)`: for every point p of region R that this rank owns,
/// `c[p] = f(value of each read at p)`, where a read is an array (its element at p), `at(b, s)`
/// (ZPL's `b@s`: its element at p + s, through its ghost layers) or `around(a)` (a `StencilAccess`
/// that reads `a` at any offset the ghosts hold: `apply_stencil` is this case).
/// \code
///   constexpr tessera::Point<2> east{0, 1}, west{0, -1};
///   tessera::DistArray<double, 2> a(dom), b(dom, tessera::ghosts<2>(1)), c(dom);
///   b.update_ghosts();                                              // ghosts hold the neighbours
///   tessera::assign(interior, c, [](double x, double y) { return x + y; }, a, tessera::at(b, east));
///   tessera::assign(c, [](double w, double e) { return 0.5 * (w + e); }, tessera::at(b, west),
///                   tessera::at(b, east));                          // region: the whole domain
///   tessera::assign(interior, c, [](const tessera::Point<2>& p, double x) { return x * p[0]; }, a);
/// \endcode
/// `f` takes one value per read (`const U&` of the read's element type, or the `StencilAccess` of
/// an `around` read), optionally preceded by the global point. It runs in a plain loop over each
/// owned patch, innermost along the target's fastest axis: no temporaries, no per-element lookups.
///
/// Checked, before anything is written, alike on every rank (the statement is not collective):
/// every array is over the target's domain; the region lies in the domain box; each shift is
/// covered by the read array's ghost widths (a shift along two or more axes needs its corners);
/// the target is read at no shift other than zero (ZPL's aliasing hazard: the loop would read
/// values it already wrote, so the statement refuses instead of making a temporary); `around`
/// reads need a box-owning distribution and another array than the target. What the ghosts hold
/// is the caller's business: call `update_ghosts` first (or read only an interior while a
/// split-phase update is in flight).

#include <algorithm>
#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "tessera/array/dist_array.hpp"
#include "tessera/core/error.hpp"
#include "tessera/geometry.hpp"

namespace tessera {

/// A read of `array` at `shift`, ZPL's `array@shift`: at point p the statement reads
/// `array[p + shift]`.
template <class T, std::size_t N>
struct ShiftedRead {
  const DistArray<T, N>* array = nullptr;  ///< the array read
  Point<N> shift{};                        ///< the offset added to each point
};

/// ZPL's `array@shift`, for `assign`.
template <class T, std::size_t N>
[[nodiscard]] ShiftedRead<T, N> at(const DistArray<T, N>& array, const Point<N>& shift) {
  return {&array, shift};
}

/// A read of `array` through a `StencilAccess` of the patch (any offset its ghosts hold; not
/// checked, as `apply_stencil`).
template <class T, std::size_t N>
struct NeighbourhoodRead {
  const DistArray<T, N>* array = nullptr;  ///< the array read
};

/// `array` read at any offset, for `assign`: `f` gets the patch's `StencilAccess`.
template <class T, std::size_t N>
[[nodiscard]] NeighbourhoodRead<T, N> around(const DistArray<T, N>& array) {
  return {&array};
}

namespace detail {

template <class T, std::size_t N>
ShiftedRead<T, N> as_read(const DistArray<T, N>& a) {
  return {&a, Point<N>{}};
}
template <class T, std::size_t N>
ShiftedRead<T, N> as_read(const ShiftedRead<T, N>& r) {
  return r;
}
template <class T, std::size_t N>
NeighbourhoodRead<T, N> as_read(const NeighbourhoodRead<T, N>& r) {
  return r;
}

template <class T, std::size_t N, class U>
void check_read(const char* where, std::size_t index, const DistArray<T, N>& target, const ShiftedRead<U, N>& r) {
  const auto name = concat("reads[", index, "]");
  if (!r.array->domain().same_as(target.domain()))
    fail_argument(where, name, "an array over another domain", "must be over the domain of the target");
  if (static_cast<const void*>(r.array) == static_cast<const void*>(&target) && r.shift != Point<N>{})
    fail_argument(where, name, concat("the target at shift ", r.shift),
                  "would read elements the statement already wrote: read the target at shift 0 only, or "
                  "write into another array");
  const GhostSpec<N>& g = r.array->ghosts();
  int shifted_axes = 0;
  for (std::size_t d = 0; d < N; ++d) {
    const index_t s = r.shift[d];
    shifted_axes += s != 0 ? 1 : 0;
    if ((s < 0 && -s > g.lower[d]) || (s > 0 && s > g.upper[d]))
      fail_argument(where, name, concat("an array at shift ", r.shift),
                    concat("is not covered by its ", g, ": along axis ", d, " it reads ", s < 0 ? -s : s,
                           " cells ", s < 0 ? "below" : "above", " the owned box"));
  }
  if (shifted_axes > 1 && !g.corners)
    fail_argument(where, name, concat("an array at shift ", r.shift),
                  concat("reads edge or corner ghosts, which its ", g, " does not fill"));
}

template <class T, std::size_t N, class U>
void check_read(const char* where, std::size_t index, const DistArray<T, N>& target, const NeighbourhoodRead<U, N>& r) {
  const auto name = concat("reads[", index, "]");
  if (!r.array->domain().same_as(target.domain()))
    fail_argument(where, name, "an array over another domain", "must be over the domain of the target");
  if (static_cast<const void*>(r.array) == static_cast<const void*>(&target))
    fail_argument(where, name, "the target itself, read at any offset",
                  "must be another array: the sweep would read values it wrote");
  const Distribution<N>& dist = r.array->distribution();
  if (!dist.is_user_defined() && !dist.owns_boxes())
    fail_argument(where, "distribution", dist, "has cyclic or irregular axes: neighbours are not in ghost layers there");
}

// The element of a shifted read (or of the target) along the innermost loop: row[i] is the element
// at inner owned-relative index i of the current row.
template <class U>
struct StridedRow {
  U* start;
  index_t step;
  U& operator[](index_t i) const noexcept { return start[i * step]; }
};
template <class U, std::size_t N>
struct AccessRow {
  const StencilAccess<U, N>* access;
  const StencilAccess<U, N>& operator[](index_t) const noexcept { return *access; }
};

// A read (U const) or the target (U mutable) set up for one patch: the element at owned-relative
// index 0 plus the shift, and the strides.
template <class U, std::size_t N>
struct ShiftCursor {
  U* origin = nullptr;
  Point<N> strides{};
  StridedRow<U> row(const Point<N>& rel, std::size_t inner) const noexcept {
    index_t off = 0;
    for (std::size_t d = 0; d < N; ++d)
      if (d != inner) off += rel[d] * strides[d];
    return {origin + off, strides[inner]};
  }
};
template <class U, std::size_t N>
struct AccessCursor {
  StencilAccess<U, N> access;
  AccessRow<U, N> row(const Point<N>&, std::size_t) const noexcept { return {&access}; }
};

template <class U, std::size_t N>
ShiftCursor<U, N> shift_cursor(U* data, const PatchLayout<N>& p, const Point<N>& shift) {
  index_t off = p.offset;
  for (std::size_t d = 0; d < N; ++d) off += (p.axes[d].ghost_lo + shift[d]) * p.strides[d];
  return {data + off, p.strides};
}
template <class U, std::size_t N>
ShiftCursor<const U, N> cursor(const ShiftedRead<U, N>& r, std::size_t patch) {
  return shift_cursor(r.array->data(), r.array->layout().patches()[patch], r.shift);
}
template <class U, std::size_t N>
AccessCursor<U, N> cursor(const NeighbourhoodRead<U, N>& r, std::size_t patch) {
  return {r.array->stencil_access(patch)};
}

// The owned-relative indices of one axis of a patch that lie in [lo, hi), and their global
// indices: a range along interval axes (nothing allocated), lists along compacted ones.
struct AxisPart {
  bool contiguous = true;
  index_t begin = 0, end = 0, first = 0;  // interval axes: [begin, end), global index first + rel
  std::vector<index_t> rel, global;       // compacted axes
  [[nodiscard]] std::size_t size() const noexcept {
    return contiguous ? static_cast<std::size_t>(end - begin) : rel.size();
  }
  [[nodiscard]] index_t rel_at(std::size_t j) const noexcept {
    return contiguous ? begin + static_cast<index_t>(j) : rel[j];
  }
  [[nodiscard]] index_t global_at(std::size_t j) const noexcept {
    return contiguous ? first + begin + static_cast<index_t>(j) : global[j];
  }
};
inline AxisPart axis_part(const AxisMap& a, index_t lo, index_t hi) {
  AxisPart part;
  part.contiguous = a.is_interval();
  if (part.contiguous) {
    part.first = a.first;
    part.begin = std::max<index_t>(0, lo - a.first);
    part.end = std::max(part.begin, std::min(a.count, hi - a.first));
    return part;
  }
  for (index_t i = 0; i < a.count; ++i) {
    const index_t g = a.global(a.ghost_lo + i);
    if (g >= lo && g < hi) part.rel.push_back(i), part.global.push_back(g);
  }
  return part;
}

template <class T, std::size_t N, class F, class... Reads>
void run_statement(const char* where, const Box<N>& region, DistArray<T, N>& target, F& f, const Reads&... reads) {
  if (!region.empty() && !contains(target.domain().box(), region))
    fail_argument(where, "region", region, concat("must lie in the domain box ", target.domain().box()));
  std::size_t index = 0;
  (check_read(where, index++, target, reads), ...);
  constexpr bool with_point = !std::is_invocable_v<F&, decltype(cursor(reads, 0).row(Point<N>{}, 0)[0])...>;
  static_assert(!with_point || std::is_invocable_v<F&, const Point<N>&, decltype(cursor(reads, 0).row(Point<N>{}, 0)[0])...>,
                "assign: f must take one argument per read (const U&, or a StencilAccess for around()), "
                "optionally preceded by const Point<N>&");
  if (region.empty()) return;
  const std::size_t inner = target.layout().outermost_axis() == 0 ? N - 1 : 0;  // fastest in memory
  for (std::size_t k = 0; k < target.patch_count(); ++k) {
    const PatchLayout<N>& p = target.layout().patches()[k];
    std::array<AxisPart, N> parts;
    bool empty = false;
    for (std::size_t d = 0; d < N; ++d) {
      parts[d] = axis_part(p.axes[d], region.lo[d], region.hi[d]);
      empty = empty || parts[d].size() == 0;
    }
    if (empty) continue;
    const ShiftCursor<T, N> out = shift_cursor(target.data(), p, Point<N>{});
    const auto cursors = std::make_tuple(cursor(reads, k)...);
    std::array<std::size_t, N> pos{};
    Point<N> rel, point;
    for (std::size_t d = 0; d < N; ++d) rel[d] = parts[d].rel_at(0), point[d] = parts[d].global_at(0);
    const AxisPart& in = parts[inner];
    for (bool more = true; more;) {
      const StridedRow<T> dst = out.row(rel, inner);
      std::apply(
          [&](const auto&... c) {
            const auto rows = std::make_tuple(c.row(rel, inner)...);
            const auto body = [&](index_t i) {
              std::apply(
                  [&](const auto&... r) {
                    if constexpr (with_point) {
                      dst[i] = static_cast<T>(f(static_cast<const Point<N>&>(point), r[i]...));
                    } else {
                      dst[i] = static_cast<T>(f(r[i]...));
                    }
                  },
                  rows);
            };
            if (in.contiguous) {
              for (index_t i = in.begin; i < in.end; ++i) {
                if constexpr (with_point) point[inner] = in.first + i;
                body(i);
              }
            } else {
              for (std::size_t j = 0; j < in.rel.size(); ++j) {
                if constexpr (with_point) point[inner] = in.global[j];
                body(in.rel[j]);
              }
            }
          },
          cursors);
      more = false;
      for (std::size_t d = N; d-- > 0;) {  // odometer over the other axes
        if (d == inner) continue;
        if (++pos[d] < parts[d].size()) {
          rel[d] = parts[d].rel_at(pos[d]), point[d] = parts[d].global_at(pos[d]);
          more = true;
          break;
        }
        pos[d] = 0;
        rel[d] = parts[d].rel_at(0), point[d] = parts[d].global_at(0);
      }
    }
  }
}

}  // namespace detail

/// ZPL's `[region] target := f(reads...)`: for every point p of `region` this rank owns,
/// `target[p] = f(reads at p...)` (see the file comment for reads, `f` and the checks). Not
/// collective: touches this rank's owned elements of `target` only. Throws
/// `Error(invalid_argument)`, writing nothing, for a region outside the domain box, a read over
/// another domain, a shift its array's ghosts do not cover (naming the read's position and the
/// shift), or the target read at a nonzero shift.
template <class T, std::size_t N, class F, class... Reads>
  requires(N >= 1)
void assign(const Box<N>& region, DistArray<T, N>& target, F&& f, const Reads&... reads) {
  detail::run_statement("assign", region, target, f, detail::as_read(reads)...);
}

/// `assign` over the whole domain box.
template <class T, std::size_t N, class F, class... Reads>
  requires(N >= 1)
void assign(DistArray<T, N>& target, F&& f, const Reads&... reads) {
  detail::run_statement("assign", target.domain().box(), target, f, detail::as_read(reads)...);
}

/// Collective-free stencil sweep, ZPL's shift idiom: for every point p this rank owns in `out`
/// (within `region`, by default everywhere), `out[p] = f(acc, p)`, where `acc(q)` reads `in` at
/// global point q through its ghost layers: `assign(region, out, g, around(in))` with g(p, acc) =
/// f(acc, p). ZPL's `B := A@[0,-1] + A@[0,1]` is
/// \code
///   tessera::DistArray<double, 2> a(dom, tessera::ghosts<2>(1).faces_only()), b(dom);
///   a.update_ghosts();                               // ghosts must hold the neighbours' values
///   tessera::apply_stencil(a, b, [](const auto& acc, const tessera::Point<2>& p) {
///     return acc(p + tessera::Point<2>{0, -1}) + acc(p + tessera::Point<2>{0, 1});
///   });
/// \endcode
/// Both arrays must be over the same domain, whose distribution owns boxes (interval kinds along
/// every axis, or a user-defined distribution), and `in`'s ghosts must cover every offset `f`
/// reads (unchecked, for speed: `assign` with `at` reads checks its shifts). `region` may reach
/// outside the domain box (only its part inside counts). Pass an interior `region` to overlap the
/// sweep with `begin_update_ghosts`/`end_update_ghosts`. Throws `Error(invalid_argument)` if the
/// arrays are over different domains, are the same array, or the distribution has cyclic or
/// irregular axes.
template <class T, std::size_t N, class F>
  requires(N >= 1)
void apply_stencil(const DistArray<T, N>& in, DistArray<T, N>& out, F&& f, const Box<N>& region) {
  const auto through = [&f](const Point<N>& p, const StencilAccess<T, N>& acc) { return f(acc, p); };
  detail::run_statement("apply_stencil", intersect(region, in.domain().box()), out, through, around(in));
}

/// `apply_stencil` over every owned point.
template <class T, std::size_t N, class F>
  requires(N >= 1)
void apply_stencil(const DistArray<T, N>& in, DistArray<T, N>& out, F&& f) {
  apply_stencil(in, out, std::forward<F>(f), in.domain().box());
}

}  // namespace tessera
