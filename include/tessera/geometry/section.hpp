#pragma once
/// \file
/// Regular sections: the index sets a grid coordinate owns under block, cyclic and block-cyclic
/// distributions, and their intersections, derived arithmetically (never by enumeration).
///
/// **One dimension.** A `Section1` is `run_count` runs of `run_length` consecutive indices, run k
/// starting at `first + k * stride` (half-open runs, like every bound in tessera):
/// \code
///   // block-cyclic with blocks of 2 over 3 grid coordinates, coordinate 0, 8 global indices:
///   auto s = tessera::Section1::strided(0, 2, 6, 2);   // {0, 1, 6, 7}
///   volume(s) == 4;
///   position_of(s, 6) == 2;                           // local offset in compacted storage
///   index_at(s, 3) == 7;
///   auto box = tessera::Section1::interval(3, 5);      // {3, 4}: a block is the one-run case
/// \endcode
/// A `Section1` is valid when `run_length >= 0`, `run_count >= 0`, `stride >= run_length` whenever
/// `run_count > 1`, and its last index + 1 fits in 64 bits; `Section1::strided` checks this, and
/// every function here assumes it (aggregate initialisation is not checked).
///
/// **Set semantics.** Sections denote sets: `==` and `hash_value` compare the `normalized()` form,
/// in which an empty section is `Section1{}`, a single run has `stride == run_length`, and runs that
/// touch are merged (`stride == run_length` becomes one run). In normalized form with more than one
/// run, `stride > run_length`, so every run is a maximal interval of the set.
///
/// **N dimensions.** `Section<N>` is the cartesian product of one `Section1` per dimension.
/// Its points are enumerated in row-major order (last dimension fastest), and `position_of` is the
/// offset of a point in that enumeration: the local offset of an owned element in dense compacted
/// storage. `Box<N>` is the special case with one run per dimension (`Section<N>::from_box`).

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <ostream>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/core/hash.hpp"
#include "tessera/core/index.hpp"
#include "tessera/geometry/box.hpp"
#include "tessera/geometry/point.hpp"

namespace tessera {

// ------------------------------------------------------------------------------------------------
// One dimension
// ------------------------------------------------------------------------------------------------

/// One dimension of a regular section: `run_count` runs of `run_length` consecutive indices, run k
/// starting at `first + k * stride`. Block/cut ownership is one run; cyclic over g coordinates is
/// runs of 1 with stride g; block-cyclic(b) over g coordinates is runs of b with stride g*b.
/// An aggregate: `Section1{first, run_length, stride, run_count}`. A default section is empty.
struct Section1 {
  index_t first = 0;       ///< first index of run 0
  index_t run_length = 0;  ///< indices per run
  index_t stride = 1;      ///< distance between run starts; >= run_length whenever run_count > 1
  index_t run_count = 0;   ///< number of runs

  /// The interval `[lo, hi)` as one run; empty if `hi <= lo`. `hi - lo` must fit in 64 bits.
  [[nodiscard]] static constexpr Section1 interval(index_t lo, index_t hi) noexcept {
    if (hi <= lo) return Section1{};
    return Section1{lo, hi - lo, hi - lo, 1};
  }

  /// `run_count` runs of `run_length` indices, run k starting at `first + k * stride`, normalized.
  /// Throws `Error(invalid_argument)` naming the argument if `run_length` or `run_count` is
  /// negative or `stride < run_length` with `run_count > 1` (runs would overlap), and
  /// `Error(overflow)` if the last index does not fit in 64 bits.
  [[nodiscard]] static Section1 strided(index_t first, index_t run_length, index_t stride, index_t run_count) {
    constexpr const char* where = "Section1::strided";
    if (run_length < 0) fail_argument(where, "run_length", run_length, "must be >= 0");
    if (run_count < 0) fail_argument(where, "run_count", run_count, "must be >= 0");
    if (run_count > 1 && stride < run_length)
      fail_argument(where, "stride", stride,
                    detail::concat("must be >= run_length = ", run_length, " when run_count = ", run_count,
                                   " > 1 (runs would overlap)"));
    const Section1 s{first, run_length, stride, run_count};
    if (s.empty()) return Section1{};
    // The span (and so the volume and every offset inside the section) fits once the end does.
    const index_t span = checked_add(checked_mul(run_count - 1, stride, "Section1::strided: span"), run_length,
                                     "Section1::strided: span");
    (void)checked_add(first, span, "Section1::strided: end of the section");
    return s.normalized();
  }

  /// True if the section holds no index.
  [[nodiscard]] constexpr bool empty() const noexcept { return run_length <= 0 || run_count <= 0; }
  /// The first (smallest) index. Meaningless for an empty section.
  [[nodiscard]] constexpr index_t begin() const noexcept { return first; }
  /// One past the last index; `begin()` for an empty section.
  [[nodiscard]] constexpr index_t end() const noexcept {
    if (empty()) return first;
    return first + (run_count - 1) * stride + run_length;
  }

  /// The canonical form of the same set: empty -> `Section1{}`; one run -> `stride == run_length`;
  /// touching runs (`stride == run_length`) -> one run.
  [[nodiscard]] constexpr Section1 normalized() const noexcept {
    if (empty()) return Section1{};
    if (run_count == 1 || stride == run_length) {
      const index_t length = run_length * run_count;
      return Section1{first, length, length, 1};
    }
    return *this;
  }

  /// Set equality: the normalized forms are equal (all empty sections are equal).
  friend constexpr bool operator==(const Section1& a, const Section1& b) noexcept {
    const Section1 x = a.normalized(), y = b.normalized();
    return x.first == y.first && x.run_length == y.run_length && x.stride == y.stride && x.run_count == y.run_count;
  }
};

/// A list of one-dimensional sections: the result of `clip` and `intersect`. The sections that
/// tessera returns are disjoint, non-empty, normalized and sorted by first index.
using SectionList1 = std::vector<Section1>;

/// Number of indices.
[[nodiscard]] constexpr index_t volume(const Section1& s) noexcept {
  return s.empty() ? 0 : s.run_length * s.run_count;
}

/// True if `i` lies in `s`.
[[nodiscard]] constexpr bool contains(const Section1& s, index_t i) noexcept {
  if (s.empty() || i < s.first || i >= s.end()) return false;
  if (s.run_count == 1) return true;  // the stride of a single run is arbitrary: never divide by it
  return (i - s.first) % s.stride < s.run_length;
}

/// Position of index `i` in the increasing enumeration of `s` (0 .. volume-1): the local offset
/// of `i` in compacted storage, `k * run_length + (i - first - k * stride)` for `i` in run k.
/// `i` must lie in `s` (not checked: hot path).
[[nodiscard]] constexpr index_t position_of(const Section1& s, index_t i) noexcept {
  const index_t rel = i - s.first;
  const index_t k = s.run_count == 1 ? 0 : rel / s.stride;
  return k * s.run_length + (rel - k * s.stride);
}

/// Inverse of `position_of`: the index at `position` (0 <= position < volume(s)).
[[nodiscard]] constexpr index_t index_at(const Section1& s, index_t position) noexcept {
  const index_t k = position / s.run_length;
  return s.first + k * s.stride + (position - k * s.run_length);
}

/// Calls `visit(run_first, run_length)` for each run of `s` in increasing order. Runs are those of
/// `s.normalized()`, so they are maximal intervals: touching runs are visited as one.
template <class Visit>
constexpr void for_each_run(const Section1& s, Visit&& visit) {
  const Section1 n = s.normalized();
  for (index_t k = 0; k < n.run_count; ++k) visit(n.first + k * n.stride, n.run_length);
}

/// `s` translated by `offset` (the indices `i + offset`).
[[nodiscard]] constexpr Section1 shift(const Section1& s, index_t offset) noexcept {
  if (s.empty()) return s;
  Section1 out = s;
  out.first += offset;
  return out;
}

namespace detail {

/// Runs `k_lo..k_hi` (inclusive) of the normalized, non-empty section `s` that meet `[lo, hi)`,
/// where `s.first <= lo < hi <= s.end()`, and the clipped bounds relative to `s.first`:
/// `rel_lo` is moved forward to the start of run k_lo if it fell in a gap, `rel_hi` back to the
/// end of run k_hi. `k_lo > k_hi` when `[lo, hi)` lies in one gap.
struct RunRange {
  index_t k_lo, k_hi, rel_lo, rel_hi;
};

[[nodiscard]] constexpr RunRange run_range(const Section1& s, index_t lo, index_t hi) noexcept {
  if (s.run_count == 1) return {0, 0, lo - s.first, hi - s.first};
  RunRange r{0, 0, lo - s.first, hi - s.first};
  r.k_lo = r.rel_lo / s.stride;
  if (r.rel_lo - r.k_lo * s.stride >= s.run_length) r.rel_lo = ++r.k_lo * s.stride;
  r.k_hi = (r.rel_hi - 1) / s.stride;
  if (r.rel_hi - 1 - r.k_hi * s.stride >= s.run_length) r.rel_hi = r.k_hi * s.stride + s.run_length;
  return r;
}

// 128-bit intermediates: offsets between two sections and products like (run number) x (stride)
// of runs outside both sections can exceed 64 bits even when every index of the result fits.
__extension__ typedef __int128 int128_t;

[[nodiscard]] constexpr int128_t floor_div128(int128_t n, int128_t d) noexcept {
  const int128_t q = n / d;
  return (n % d != 0 && n < 0) ? q - 1 : q;
}
[[nodiscard]] constexpr int128_t ceil_div128(int128_t n, int128_t d) noexcept { return -floor_div128(-n, d); }
[[nodiscard]] constexpr int128_t floor_mod128(int128_t n, int128_t d) noexcept {
  return n - floor_div128(n, d) * d;
}

/// `x` in [0, p) with `q * x == 1 (mod p)`, for coprime `q`, `p >= 1` (extended Euclid).
[[nodiscard]] constexpr int128_t inverse_mod(int128_t q, int128_t p) noexcept {
  int128_t r0 = floor_mod128(q, p), r1 = p, s0 = 1, s1 = 0;
  while (r1 != 0) {
    const int128_t quotient = r0 / r1;
    const int128_t r2 = r0 - quotient * r1, s2 = s0 - quotient * s1;
    r0 = r1, r1 = r2, s0 = s1, s1 = s2;
  }
  return floor_mod128(s0, p);  // r0 == gcd == 1; p == 1 gives 0
}

/// Number of runs of `s` (normalized, several runs) that meet `[lo, hi)`, `s.first <= lo < hi <= s.end()`.
[[nodiscard]] constexpr index_t runs_meeting(const Section1& s, index_t lo, index_t hi) noexcept {
  const RunRange r = run_range(s, lo, hi);
  return r.k_lo > r.k_hi ? 0 : r.k_hi - r.k_lo + 1;
}

/// If the sections of `pieces` (disjoint, normalized, sorted, non-touching) together form one
/// section, replaces them by it. Exact test: the union of runs is one arithmetic progression
/// `first + r * sigma` (r < R) of runs of one length iff piece k (of m) holds the runs
/// r = k, k + m, k + 2m, ..., i.e. starts at `first + k * sigma`, has stride `m * sigma` and
/// `ceil((R - k) / m)` runs.
inline void merge_if_one_section(SectionList1& pieces) {
  const std::size_t m = pieces.size();
  if (m < 2) return;
  const Section1& p0 = pieces[0];
  const int128_t sigma = int128_t{pieces[1].first} - p0.first;
  if (sigma < p0.run_length) return;
  int128_t total = 0;
  for (const Section1& p : pieces) total += p.run_count;
  for (std::size_t k = 0; k < m; ++k) {
    const Section1& p = pieces[k];
    const int128_t mk = static_cast<int128_t>(k);
    if (p.run_length != p0.run_length || int128_t{p.first} != p0.first + mk * sigma) return;
    if (p.run_count != ceil_div128(total - mk, static_cast<int128_t>(m))) return;
    if (p.run_count > 1 && int128_t{p.stride} != static_cast<int128_t>(m) * sigma) return;
  }
  // Every run of the merged section is a run of some piece, so its end and stride fit in 64 bits.
  const Section1 merged =
      Section1{p0.first, p0.run_length, static_cast<index_t>(sigma), static_cast<index_t>(total)}.normalized();
  pieces.assign(1, merged);
}

}  // namespace detail

/// The indices of `s` in the half-open interval `[lo, hi)`, as at most 3 disjoint sections in
/// increasing order: a partial first run, the whole runs, a partial last run (one section whenever
/// the result is one section). O(1).
/// \code
///   clip(Section1::strided(0, 4, 10, 5), 2, 33)  // [2,4), {first=10 len=4 stride=10 count=2}, [30,33)
/// \endcode
[[nodiscard]] inline SectionList1 clip(const Section1& s, index_t lo, index_t hi) {
  SectionList1 out;
  const Section1 n = s.normalized();
  if (n.empty()) return out;
  lo = std::max(lo, n.first);
  hi = std::min(hi, n.end());
  if (lo >= hi) return out;
  if (n.run_count == 1) {
    out.push_back(Section1::interval(lo, hi));
    return out;
  }
  auto [k_lo, k_hi, rel_lo, rel_hi] = detail::run_range(n, lo, hi);
  if (k_lo > k_hi) return out;  // [lo, hi) lies in a gap
  if (k_lo == k_hi) {
    out.push_back(Section1::interval(n.first + rel_lo, n.first + rel_hi));
    return out;
  }
  if (rel_lo > k_lo * n.stride) {  // the first run is cut
    out.push_back(Section1::interval(n.first + rel_lo, n.first + k_lo * n.stride + n.run_length));
    ++k_lo;
  }
  const bool cut_last = rel_hi < k_hi * n.stride + n.run_length;
  if (cut_last) --k_hi;
  if (k_lo <= k_hi)
    out.push_back(Section1{n.first + k_lo * n.stride, n.run_length, n.stride, k_hi - k_lo + 1}.normalized());
  if (cut_last) out.push_back(Section1::interval(n.first + (k_hi + 1) * n.stride, n.first + rel_hi));
  detail::merge_if_one_section(out);  // e.g. two cut runs of equal length, nothing between
  return out;
}

namespace detail {

/// Above this many candidate pieces per period, `intersect` may walk runs instead (see there).
inline constexpr index_t max_periodic_pieces = 4096;

/// The periodic method of `intersect` (see there) for two normalized, non-empty sections.
/// Cost: O(candidate offsets) = O((len_a + len_b) / gcd(stride_a, stride_b)), whatever the extents.
[[nodiscard]] inline SectionList1 intersect_periodic(const Section1& a, const Section1& b) {
  const index_t g = std::gcd(a.stride, b.stride);
  const index_t q = a.stride / g, p = b.stride / g;  // coprime
  const int128_t period = int128_t{a.stride} * p;    // lcm(stride_a, stride_b); may exceed 64 bits
  const int128_t q_inv = inverse_mod(q, p);
  const int128_t delta = int128_t{b.first} - a.first;
  const int128_t k0 = floor_div128(delta, g), r0 = delta - k0 * g;
  // Offsets d = r0 + n g of a run of b from a run of a for which the two runs overlap.
  const int128_t n_lo = ceil_div128(int128_t{1} - b.run_length - r0, g);
  const int128_t n_hi = floor_div128(int128_t{a.run_length} - 1 - r0, g);
  SectionList1 out;
  for (int128_t n = n_lo; n <= n_hi; ++n) {
    const int128_t d = r0 + n * g;
    // Runs i of a and j of b are d apart iff j p - i q = e, e = (d - delta) / g. One solution
    // has i0 in [0, p) (i0 = -e q^-1 mod p); all are (i0 + t p, j0 + t q), t an integer.
    const int128_t e = n - k0;
    const int128_t i0 = floor_mod128(-e, p) * q_inv % p;
    const int128_t j0 = (e + i0 * q) / p;  // exact
    const int128_t t_lo = std::max(int128_t{0}, ceil_div128(-j0, q));
    const int128_t t_hi = std::min(floor_div128(int128_t{a.run_count} - 1 - i0, p),
                                   floor_div128(int128_t{b.run_count} - 1 - j0, q));
    if (t_lo > t_hi) continue;
    const int128_t lo = std::max(int128_t{0}, d), hi = std::min(int128_t{a.run_length}, d + b.run_length);
    const index_t length = static_cast<index_t>(hi - lo);
    const index_t count = static_cast<index_t>(t_hi - t_lo + 1);
    const int128_t start = int128_t{a.first} + (i0 + t_lo * p) * a.stride + lo;
    // Two repetitions lie a period apart inside both sections, so the period fits when count > 1.
    out.push_back(Section1{static_cast<index_t>(start), length, count > 1 ? static_cast<index_t>(period) : length,
                           count});
  }
  std::sort(out.begin(), out.end(), [](const Section1& x, const Section1& y) { return x.first < y.first; });
  merge_if_one_section(out);
  return out;
}

/// The run-walking method of `intersect`: each run of the section with fewer runs in the common
/// range `[lo, hi)`, clipped against the other. Cost: O(those runs).
[[nodiscard]] inline SectionList1 intersect_by_runs(const Section1& a, const Section1& b) {
  SectionList1 out;
  const index_t lo = std::max(a.first, b.first), hi = std::min(a.end(), b.end());
  if (lo >= hi) return out;
  const bool walk_a = runs_meeting(a, lo, hi) <= runs_meeting(b, lo, hi);
  const Section1& walk = walk_a ? a : b;
  const Section1& other = walk_a ? b : a;
  const RunRange r = run_range(walk, lo, hi);
  for (index_t k = r.k_lo; k <= r.k_hi; ++k) {
    const index_t start = walk.first + k * walk.stride;
    for (const Section1& piece : clip(other, std::max(start, lo), std::min(start + walk.run_length, hi)))
      out.push_back(piece);
  }
  merge_if_one_section(out);
  return out;
}

}  // namespace detail

/// The common indices of `a` and `b`, as disjoint, non-empty, normalized sections sorted by first
/// index (one section whenever the intersection is a single section). Derived arithmetically,
/// never by enumerating indices.
///
/// If either is a single run, this is `clip` of the other: O(1). Otherwise (strides s_a, s_b,
/// g = gcd, L = lcm): run i of a starts at a.first + i s_a, run j of b at b.first + j s_b, and they
/// overlap iff their offset d = (b.first - a.first) + g (j s_b/g - i s_a/g) lies in
/// (-len_b, len_a). As (i, j) ranges over pairs, j s_b/g - i s_a/g takes every integer value
/// (s_a/g and s_b/g are coprime), and for a fixed value the pairs are (i0 + t s_b/g, j0 + t s_a/g):
/// one solution of the linear Diophantine equation, repeated every period L. So each offset d of
/// the lattice d = (b.first - a.first) mod g + n g inside (-len_b, len_a) yields one section of
/// stride L: the overlap [max(0, d), min(len_a, d + len_b)) of run i0 + t s_b/g of a, for the
/// interval of t that keeps i in [0, count_a) and j in [0, count_b) (which handles the partial
/// first and last periods exactly). That is O((len_a + len_b) / g) work, at most 2 offsets for
/// equal strides. When that exceeds both 4096 and the number of runs of the sparser section in the
/// common range, the runs of that section are walked and the other is clipped to each instead.
/// 128-bit intermediates make both correct whatever the lcm (an lcm beyond 64 bits simply gives
/// pieces of one run each).
/// \code
///   // block-cyclic(4) over 2 coordinates, coordinate 0, vs cyclic over 3, coordinate 1, of [0, 48):
///   intersect(Section1::strided(0, 4, 8, 6), Section1::strided(1, 1, 3, 16))
///   // 4 sections of stride 24 = lcm(8, 3): {1, 25}, {10, 34}, {16, 40}, {19, 43}
///   intersect(Section1::strided(0, 3, 4, 10), Section1::strided(2, 3, 4, 10))
///   // equal strides: {2, 4, 6, ..., 38} as the one section {first=2 len=1 stride=2 count=19}
/// \endcode
[[nodiscard]] inline SectionList1 intersect(const Section1& a, const Section1& b) {
  const Section1 x = a.normalized(), y = b.normalized();
  if (x.empty() || y.empty()) return {};
  if (x.run_count == 1) return clip(y, x.first, x.end());
  if (y.run_count == 1) return clip(x, y.first, y.end());
  const index_t lo = std::max(x.first, y.first), hi = std::min(x.end(), y.end());
  if (lo >= hi) return {};
  const index_t g = std::gcd(x.stride, y.stride);
  const detail::int128_t candidates =
      (detail::int128_t{x.run_length} + y.run_length - 1) / g + 1;  // offsets n of intersect_periodic, +-1
  const index_t walk = std::min(detail::runs_meeting(x, lo, hi), detail::runs_meeting(y, lo, hi));
  if (candidates <= detail::max_periodic_pieces || candidates <= walk) return detail::intersect_periodic(x, y);
  return detail::intersect_by_runs(x, y);
}

/// True if `a` and `b` share an index.
[[nodiscard]] inline bool intersects(const Section1& a, const Section1& b) { return !intersect(a, b).empty(); }

/// Prints `[3,5)` for one run, `{first=0 len=2 stride=6 count=4}` for several, `[empty]` for none
/// (the normalized form, so equal sets print alike).
inline std::ostream& operator<<(std::ostream& out, const Section1& s) {
  const Section1 n = s.normalized();
  if (n.empty()) return out << "[empty]";
  if (n.run_count == 1) return out << '[' << n.first << ',' << n.end() << ')';
  return out << "{first=" << n.first << " len=" << n.run_length << " stride=" << n.stride << " count=" << n.run_count
             << '}';
}

/// Stable hash of the normalized form (consistent with `operator==`).
[[nodiscard]] constexpr std::uint64_t hash_value(const Section1& s) noexcept {
  const Section1 n = s.normalized();
  if (n.empty()) return hash_combine(0x5ec7105ec7ULL, 0);
  std::uint64_t h = hash_combine(0x5ec71ULL, static_cast<std::uint64_t>(n.first));
  h = hash_combine(h, static_cast<std::uint64_t>(n.run_length));
  h = hash_combine(h, static_cast<std::uint64_t>(n.stride));
  return hash_combine(h, static_cast<std::uint64_t>(n.run_count));
}

// ------------------------------------------------------------------------------------------------
// N dimensions
// ------------------------------------------------------------------------------------------------

/// N-dimensional regular section: the cartesian product of one `Section1` per dimension
/// (`dim[0]` is the slowest in row-major order). An aggregate; a default section is empty.
/// \code
///   // rows 0..3 (block), columns cyclic over 2 coordinates, coordinate 1, of 8 columns:
///   tessera::Section<2> s{{tessera::Section1::interval(0, 4), tessera::Section1::strided(1, 1, 2, 4)}};
///   volume(s) == 16;
///   position_of(s, tessera::Point<2>{1, 3}) == 5;   // row 1, second owned column
/// \endcode
template <std::size_t N>
  requires(N >= 1)
struct Section {
  std::array<Section1, N> dim{};  ///< the section along each dimension

  /// Number of dimensions.
  static constexpr std::size_t rank = N;

  /// The points of box `b` (one run per dimension).
  [[nodiscard]] static constexpr Section from_box(const Box<N>& b) noexcept {
    Section s;
    for (std::size_t d = 0; d < N; ++d) s.dim[d] = Section1::interval(b.lo[d], b.hi[d]);
    return s;
  }

  /// True if the section holds no point (some dimension is empty).
  [[nodiscard]] constexpr bool empty() const noexcept {
    for (const Section1& s : dim)
      if (s.empty()) return true;
    return false;
  }

  /// Set equality: equal along every dimension, or both empty.
  friend constexpr bool operator==(const Section& a, const Section& b) noexcept {
    const bool ea = a.empty(), eb = b.empty();
    if (ea || eb) return ea == eb;
    for (std::size_t d = 0; d < N; ++d)
      if (!(a.dim[d] == b.dim[d])) return false;
    return true;
  }
};

/// Number of points. Throws `Error(overflow)` if it does not fit in 64 bits.
template <std::size_t N>
[[nodiscard]] constexpr index_t volume(const Section<N>& s) {
  if (s.empty()) return 0;
  index_t v = 1;
  for (const Section1& d : s.dim) v = checked_mul(v, volume(d), "Section volume");
  return v;
}

/// True if `p` lies in `s`.
template <std::size_t N>
[[nodiscard]] constexpr bool contains(const Section<N>& s, const Point<N>& p) noexcept {
  for (std::size_t d = 0; d < N; ++d)
    if (!contains(s.dim[d], p[d])) return false;
  return true;
}

/// The smallest box holding `s` (the empty box if `s` is empty).
template <std::size_t N>
[[nodiscard]] constexpr Box<N> bounding_box(const Section<N>& s) noexcept {
  if (s.empty()) return {};
  Box<N> b;
  for (std::size_t d = 0; d < N; ++d) b.lo[d] = s.dim[d].begin(), b.hi[d] = s.dim[d].end();
  return b;
}

/// True if `s` is a box: one run along every dimension (an empty section is the empty box).
template <std::size_t N>
[[nodiscard]] constexpr bool is_box(const Section<N>& s) noexcept {
  if (s.empty()) return true;
  for (const Section1& d : s.dim)
    if (d.normalized().run_count != 1) return false;
  return true;
}

/// `s` translated by `offset`.
template <std::size_t N>
[[nodiscard]] constexpr Section<N> shift(const Section<N>& s, const Point<N>& offset) noexcept {
  Section<N> out;
  for (std::size_t d = 0; d < N; ++d) out.dim[d] = shift(s.dim[d], offset[d]);
  return out;
}

/// Position of `p` in the row-major enumeration of `s` (last dimension fastest): the offset of
/// `p` in dense compacted storage of the section. `p` must lie in `s` (not checked: hot path).
template <std::size_t N>
[[nodiscard]] constexpr index_t position_of(const Section<N>& s, const Point<N>& p) noexcept {
  index_t off = 0;
  for (std::size_t d = 0; d < N; ++d) off = off * volume(s.dim[d]) + position_of(s.dim[d], p[d]);
  return off;
}

/// Inverse of `position_of`: the point at `position` (0 <= position < volume(s)).
template <std::size_t N>
[[nodiscard]] constexpr Point<N> point_at(const Section<N>& s, index_t position) noexcept {
  Point<N> p;
  for (std::size_t d = N; d-- > 0;) {
    const index_t v = volume(s.dim[d]);
    p[d] = index_at(s.dim[d], position % v);
    position /= v;
  }
  return p;
}

/// Calls `visit(const Point<N>& run_start, index_t run_length)` for every run of `s` along the
/// last (contiguous) dimension, in row-major order: the points `run_start + (0, ..., 0, x)`,
/// `0 <= x < run_length`. Runs along the last dimension are maximal (see `for_each_run(Section1)`).
template <std::size_t N, class Visit>
constexpr void for_each_run(const Section<N>& s, Visit&& visit) {
  if (s.empty()) return;
  std::array<Section1, N> dim;
  for (std::size_t d = 0; d < N; ++d) dim[d] = s.dim[d].normalized();
  // Odometer over the indices of dimensions 0..N-2: run k[d], offset u[d] within the run.
  std::array<index_t, N> k{}, u{};
  Point<N> p;
  for (std::size_t d = 0; d < N; ++d) p[d] = dim[d].first;
  const Section1& last = dim[N - 1];
  for (;;) {
    for (index_t r = 0; r < last.run_count; ++r) {
      p[N - 1] = last.first + r * last.stride;
      visit(static_cast<const Point<N>&>(p), last.run_length);
    }
    std::size_t d = N - 1;
    for (;;) {
      if (d == 0) return;
      --d;
      if (++u[d] < dim[d].run_length) {
        ++p[d];
        break;
      }
      u[d] = 0;
      if (++k[d] < dim[d].run_count) {
        p[d] = dim[d].first + k[d] * dim[d].stride;
        break;
      }
      k[d] = 0;
      p[d] = dim[d].first;
    }
  }
}

/// Calls `visit(const Point<N>&)` for every point of `s` in row-major order.
template <std::size_t N, class Visit>
constexpr void for_each_point(const Section<N>& s, Visit&& visit) {
  for_each_run(s, [&](const Point<N>& start, index_t length) {
    Point<N> p = start;
    for (index_t x = 0; x < length; ++x, ++p[N - 1]) visit(static_cast<const Point<N>&>(p));
  });
}

namespace detail {

/// The sections `{lists[0][i0], lists[1][i1], ...}` for every combination, in row-major order of
/// the list positions (so sorted lexicographically by first point when each list is sorted).
template <std::size_t N>
[[nodiscard]] std::vector<Section<N>> cartesian_product(const std::array<SectionList1, N>& lists) {
  std::vector<Section<N>> out;
  std::size_t total = 1;
  for (const SectionList1& l : lists) total *= l.size();
  if (total == 0) return out;
  out.reserve(total);
  std::array<std::size_t, N> at{};
  for (;;) {
    Section<N> s;
    for (std::size_t d = 0; d < N; ++d) s.dim[d] = lists[d][at[d]];
    out.push_back(s);
    std::size_t d = N;
    for (;;) {
      if (d == 0) return out;
      --d;
      if (++at[d] < lists[d].size()) break;
      at[d] = 0;
    }
  }
}

}  // namespace detail

/// The common points of `a` and `b`: the cartesian product of the per-dimension intersections,
/// as disjoint non-empty sections (none if the sections do not meet).
template <std::size_t N>
[[nodiscard]] std::vector<Section<N>> intersect(const Section<N>& a, const Section<N>& b) {
  std::array<SectionList1, N> lists;
  for (std::size_t d = 0; d < N; ++d) {
    lists[d] = intersect(a.dim[d], b.dim[d]);
    if (lists[d].empty()) return {};
  }
  return detail::cartesian_product(lists);
}

/// The points of `s` in box `b`, as disjoint non-empty sections (at most 3 per dimension).
template <std::size_t N>
[[nodiscard]] std::vector<Section<N>> intersect(const Section<N>& s, const Box<N>& b) {
  std::array<SectionList1, N> lists;
  for (std::size_t d = 0; d < N; ++d) {
    lists[d] = clip(s.dim[d], b.lo[d], b.hi[d]);
    if (lists[d].empty()) return {};
  }
  return detail::cartesian_product(lists);
}

/// Same as `intersect(s, b)`.
template <std::size_t N>
[[nodiscard]] std::vector<Section<N>> intersect(const Box<N>& b, const Section<N>& s) {
  return intersect(s, b);
}

/// Stable hash, equal for equal sets (consistent with `operator==`).
template <std::size_t N>
[[nodiscard]] constexpr std::uint64_t hash_value(const Section<N>& s) noexcept {
  if (s.empty()) return hash_combine(N, 0x5ec7e3e3ULL);
  std::uint64_t h = N;
  for (const Section1& d : s.dim) h = hash_combine(h, hash_value(d));
  return h;
}

/// Prints the sections along each dimension joined by `x`: `[0,4)x{first=1 len=1 stride=2 count=4}`,
/// or `[empty2d]`.
template <std::size_t N>
std::ostream& operator<<(std::ostream& out, const Section<N>& s) {
  if (s.empty()) return out << "[empty" << N << "d]";
  for (std::size_t d = 0; d < N; ++d) out << (d ? "x" : "") << s.dim[d];
  return out;
}

}  // namespace tessera

template <>
struct std::hash<tessera::Section1> {
  std::size_t operator()(const tessera::Section1& s) const noexcept { return tessera::hash_value(s); }
};

template <std::size_t N>
struct std::hash<tessera::Section<N>> {
  std::size_t operator()(const tessera::Section<N>& s) const noexcept { return tessera::hash_value(s); }
};
