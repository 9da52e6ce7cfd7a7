#pragma once
/// \file
/// Scans (parallel prefix) of a `DistArray`: ZPL's `op||`, Chapel's `op scan`. Over the whole
/// array in global row-major order of the domain box (`scan`), or along one axis, every line of
/// that axis on its own (`scan_along`); inclusive or exclusive; with any associative operator.
/// \code
///   tessera::DistArray<std::int64_t, 1> counts(dom), offsets(dom);
///   tessera::scan(counts, offsets, tessera::ScanKind::exclusive, std::int64_t{0}, std::plus<>{});
///   // offsets(i) = counts(lo) + ... + counts(i - 1), offsets(lo) = 0
///   tessera::scan_along(a, 1, a, tessera::ScanKind::inclusive, 0.0, std::plus<>{});  // in place, each row
/// \endcode
///
/// **Order.** `scan` runs in global row-major order of the box (the last axis fastest), whatever
/// the distribution: the order a user reads the array in, the order `gather_to` writes and ZPL's
/// `+||` uses. A scan in the order of each rank's storage would cost nothing more here but would
/// change meaning with the distribution; the row-major one costs only where a rank's part is not
/// one stretch of that order (a block-distributed last axis), and then one small record per stretch.
///
/// **What is computed, exactly.** The elements of a line (the whole box for `scan`, one line along
/// the axis for `scan_along`) split into *segments*: maximal stretches of consecutive positions of
/// the line held by one storage patch of one rank (for a dimensional distribution: one rank; with
/// a block-distributed array one segment per rank and line). Each rank folds each of its segments
/// from `identity`, left to right, into a total; the totals of a line are folded left to right in
/// line order from `identity` into each segment's *prefix* (on one rank, the same bits everywhere);
/// then each element is `prefix op x_first op ... op x_i`, folded left to right (inclusive), or the
/// same without x_i (exclusive: the first element of a line gets `identity`). So:
/// - integer operators (wrapping sums, products, xor, and, or) and min/max give the serial scan's
///   bits for every distribution and rank count;
/// - a floating-point sum gives, on one segment per line (one rank, or a line held by one rank), a
///   plain left-to-right sum's bits; otherwise bits that depend on where the segments break, i.e.
///   on the distribution and the rank count, never on anything else (not on timing, not between
///   runs).
/// The operator need not be commutative (order is kept throughout); it must be associative, and
/// `identity` must be its identity. An operator wrapped by `user_op` that declares itself not
/// associative is refused.
///
/// Cost: two passes over the owned elements, and two all-to-alls of one record (two indices and a
/// value) per segment: every segment record of a line goes to the rank that folds that line (the
/// lines are dealt to the ranks in contiguous slices; a whole-array scan's one line to rank 0),
/// which sends the prefixes back. A whole-array scan whose grid splits one axis, all axes before it
/// of extent 1 (a 1-D array, or rows of blocks), usually has one segment per rank: it allgathers one
/// record per rank instead (one collective, as `MPI_Scan`), and every rank folds the totals before
/// its own, in line order from `identity` as above, so the bits are the same; should a rank hold
/// more than one segment after all (a cyclic axis), the all-to-alls follow.

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "tessera/array/dist_array.hpp"
#include "tessera/array/user_op.hpp"
#include "tessera/core/error.hpp"
#include "tessera/exchange/collective_check.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/geometry.hpp"

namespace tessera {

/// Whether element i of a scan includes x_i.
enum class ScanKind {
  inclusive,  ///< y_i = x_first op ... op x_i
  exclusive,  ///< y_i = x_first op ... op x_{i-1}; identity at the start of a line
};

/// `inclusive` or `exclusive`.
[[nodiscard]] constexpr const char* to_string(ScanKind kind) noexcept {
  switch (kind) {
    case ScanKind::inclusive: return "inclusive";
    case ScanKind::exclusive: return "exclusive";
  }
  return "unknown";
}

namespace detail {

/// One segment of a line (see scan.hpp): which line, where it starts along the line, and its
/// elements folded from the identity.
template <class T>
struct ScanSegment {
  index_t line = 0;
  index_t start = 0;
  T total{};
};

/// Walks the owned elements of patch `in` and the same elements of patch `out` (a patch of the
/// same distribution, perhaps with other ghosts or storage order) segment by segment: `begin(line,
/// start)` opens a segment, `stretch(in_offset, out_offset, count, in_step, out_step)` hands over
/// the next `count` of its elements in line order (evenly spaced in both buffers), so that the
/// caller's loop over them keeps its running value in a register.
/// `axis` empty: one line, the box in row-major order (line 0, start = row-major position);
/// otherwise the lines along *axis (line = row-major position in the box without the axis,
/// start = index along the axis). Two walks of one patch visit the same sequence.
template <std::size_t N, class Begin, class Stretch>
void walk_segments(const PatchLayout<N>& in, const PatchLayout<N>& out, const Box<N>& box,
                   std::optional<std::size_t> axis, Begin&& begin, Stretch&& stretch) {
  const std::size_t inner = axis.value_or(N - 1);
  // Global indices per local index, tabulated for the outer axes and for a compacted inner one
  // (an interval inner axis is one stretch per row: no table, no pass over one).
  const bool interval = in.axes[inner].is_interval();
  std::array<std::vector<index_t>, N> global;
  for (std::size_t d = 0; d < N; ++d) {
    const AxisMap& a = in.axes[d];
    if (a.count == 0) return;
    if (d == inner && interval) continue;
    global[d].resize(static_cast<std::size_t>(a.count));
    for (index_t i = 0; i < a.count; ++i) global[d][static_cast<std::size_t>(i)] = a.global(a.ghost_lo + i);
  }
  // Row-major strides of the positions: of the box (whole array), or of the box without the axis.
  Point<N> position_stride{};
  index_t stride = 1;
  for (std::size_t d = N; d-- > 0;) {
    if (axis && d == *axis) continue;
    position_stride[d] = stride;
    stride *= extent(box, d);
  }
  const std::vector<index_t>& along = global[inner];
  const index_t count = in.axes[inner].count;
  std::array<index_t, N> at{};  // local index along every axis but `inner`
  index_t previous = -2;        // whole array: the row-major position visited last
  for (bool more = true; more;) {
    index_t in_base = in.offset, out_base = out.offset, position = 0;
    for (std::size_t d = 0; d < N; ++d) {
      if (d == inner) continue;
      in_base += (in.axes[d].ghost_lo + at[d]) * in.strides[d];
      out_base += (out.axes[d].ghost_lo + at[d]) * out.strides[d];
      position += (global[d][static_cast<std::size_t>(at[d])] - box.lo[d]) * position_stride[d];
    }
    const index_t in_step = in.strides[inner], out_step = out.strides[inner];
    const index_t in_first = in_base + in.axes[inner].ghost_lo * in_step;
    const index_t out_first = out_base + out.axes[inner].ghost_lo * out_step;
    // Stretches of consecutive global indices along `inner` (the whole row along an interval
    // axis; single elements along a cyclic one).
    for (index_t i = 0; i < count;) {
      const index_t g = interval ? in.axes[inner].first + i : along[static_cast<std::size_t>(i)];
      index_t end = interval ? count : i + 1;
      while (end < count && along[static_cast<std::size_t>(end)] == along[static_cast<std::size_t>(end) - 1] + 1) ++end;
      if (axis) {
        begin(position, g);
      } else {
        const index_t p = position + (g - box.lo[inner]);
        if (p != previous + 1) begin(index_t{0}, p);
        previous = p + (end - i) - 1;
      }
      stretch(in_first + i * in_step, out_first + i * out_step, end - i, in_step, out_step);
      i = end;
    }
    more = false;
    for (std::size_t d = N; d-- > 0;) {
      if (d == inner) continue;
      if (++at[d] < in.axes[d].count) {
        more = true;
        break;
      }
      at[d] = 0;
    }
  }
}

/// Every segment's prefix (the totals of the segments before it in its line, folded left to right
/// from `identity`), in the order of `segments`. Line l of `lines` is folded on rank
/// l / ceil(lines / P); the records go there and the prefixes come back in two all-to-alls.
template <class T, class Op>
[[nodiscard]] std::vector<T> segment_prefixes(const Communicator& comm, const std::vector<ScanSegment<T>>& segments,
                                              index_t lines, const T& identity, Op& op) {
  const int size = comm.size();
  const index_t per_rank = std::max<index_t>(1, (lines + size - 1) / size);
  const auto folder = [&](index_t line) { return static_cast<int>(line / per_rank); };
  // Records grouped by folding rank, each group in walk order; `sent[k]` is the segment sent k-th.
  std::vector<int> counts(static_cast<std::size_t>(size), 0);
  for (const auto& s : segments) ++counts[static_cast<std::size_t>(folder(s.line))];
  std::vector<std::size_t> next(counts.size(), 0), sent(segments.size());
  for (std::size_t r = 1; r < counts.size(); ++r) next[r] = next[r - 1] + static_cast<std::size_t>(counts[r - 1]);
  std::vector<ScanSegment<T>> outgoing(segments.size());
  for (std::size_t k = 0; k < segments.size(); ++k) {
    const std::size_t slot = next[static_cast<std::size_t>(folder(segments[k].line))]++;
    outgoing[slot] = segments[k];
    sent[slot] = k;
  }
  std::vector<int> received_counts;
  const std::vector<ScanSegment<T>> received =
      comm.alltoallv(std::span<const ScanSegment<T>>(outgoing), std::span<const int>(counts), &received_counts);
  // Fold each line's totals in line order (segments of a line never overlap: starts are distinct).
  std::vector<std::size_t> by_position(received.size());
  std::iota(by_position.begin(), by_position.end(), std::size_t{0});
  std::sort(by_position.begin(), by_position.end(), [&](std::size_t a, std::size_t b) {
    return received[a].line != received[b].line ? received[a].line < received[b].line
                                                 : received[a].start < received[b].start;
  });
  std::vector<T> prefix(received.size(), identity);
  T running = identity;
  for (std::size_t k = 0; k < by_position.size(); ++k) {
    const ScanSegment<T>& s = received[by_position[k]];
    if (k == 0 || received[by_position[k - 1]].line != s.line) running = identity;
    prefix[by_position[k]] = running;
    running = op(running, s.total);
  }
  // Back to the ranks that sent them, in the order they sent them.
  const std::vector<T> back = comm.alltoallv(std::span<const T>(prefix), std::span<const int>(received_counts));
  std::vector<T> out(segments.size());
  for (std::size_t slot = 0; slot < back.size(); ++slot) out[sent[slot]] = back[slot];
  return out;
}

/// The one path of `scan` and `scan_along` (`axis` empty: the whole array), after validation.
/// True where every rank may own one stretch of the global row-major order: a dimensional
/// distribution whose grid splits at most one axis, every axis before it of extent 1. Pure; a
/// cyclic split axis still passes (its ranks own many stretches: `one_segment_prefixes` sees it).
template <std::size_t N>
[[nodiscard]] bool may_own_one_stretch_each(const Distribution<N>& dist) {
  if (dist.is_user_defined()) return false;
  const Point<N>& shape = dist.grid().shape();
  std::size_t split = N;
  for (std::size_t d = 0; d < N; ++d) {
    if (shape[d] <= 1) continue;
    if (split != N) return false;
    split = d;
  }
  for (std::size_t d = 0; d < split; ++d)  // split <= N
    if (extent(dist.domain(), d) != 1) return false;
  return true;
}

/// The whole-array scan's prefixes when every rank holds at most one segment: one allgather of
/// (count, start, total) per rank, then every rank folds, from `identity` in line order, the
/// totals before its own (`segment_prefixes` folds the same totals in the same order). Nothing if
/// some rank holds several segments (every rank sees the same records, so all fall back together).
template <class T, class Op>
[[nodiscard]] std::optional<std::vector<T>> one_segment_prefixes(const Communicator& comm,
                                                                 const std::vector<ScanSegment<T>>& segments,
                                                                 const T& identity, Op& op) {
  struct Stretch {
    index_t count = 0;
    index_t start = 0;
    T total{};
  };
  const Stretch mine = segments.empty() ? Stretch{0, 0, identity}
                                        : Stretch{static_cast<index_t>(segments.size()), segments.front().start,
                                                  segments.front().total};
  const std::vector<Stretch> all = comm.allgather(mine);
  std::vector<std::size_t> held;
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (all[r].count > 1) return std::nullopt;
    if (all[r].count == 1) held.push_back(r);
  }
  if (segments.empty()) return std::vector<T>{};
  std::sort(held.begin(), held.end(), [&](std::size_t a, std::size_t b) { return all[a].start < all[b].start; });
  T running = identity;
  for (const std::size_t r : held) {
    if (r == static_cast<std::size_t>(comm.rank())) break;
    running = op(running, all[r].total);
  }
  return std::vector<T>{running};
}

template <class T, std::size_t N, class Op>
void scan_lines(const DistArray<T, N>& in, DistArray<T, N>& out, std::optional<std::size_t> axis, ScanKind kind,
                const T& identity, Op& op) {
  const Box<N>& box = in.domain().box();
  index_t lines = 1;
  if (axis)
    for (std::size_t d = 0; d < N; ++d)
      if (d != *axis) lines = checked_mul(lines, extent(box, d), "tessera::scan_along");
  const auto& in_patches = in.layout().patches();
  const auto& out_patches = out.layout().patches();
  const T* source = in.data();
  // 1. Each segment's total.
  std::vector<ScanSegment<T>> segments;
  for (std::size_t patch = 0; patch < in_patches.size(); ++patch)
    walk_segments(
        in_patches[patch], out_patches[patch], box, axis,
        [&](index_t line, index_t start) { segments.push_back({line, start, identity}); },
        [&](index_t from, index_t, index_t count, index_t step, index_t) {
          T total = segments.back().total;
          for (index_t k = 0; k < count; ++k) total = op(total, source[from + k * step]);
          segments.back().total = total;
        });
  // 2. Each segment's prefix, from the rank that folds its line (or from every rank's one segment).
  std::optional<std::vector<T>> quick;
  if (!axis && may_own_one_stretch_each(in.distribution()))
    quick = one_segment_prefixes(in.domain().comm(), segments, identity, op);
  const std::vector<T> prefix =
      quick ? std::move(*quick) : segment_prefixes(in.domain().comm(), segments, lines, identity, op);
  // 3. The scan, from each segment's prefix. `in` and `out` may be one array: x is read before y
  // is written at the same offset.
  T* target = out.data();
  std::size_t segment = 0;
  T running = identity;
  for (std::size_t patch = 0; patch < in_patches.size(); ++patch)
    walk_segments(
        in_patches[patch], out_patches[patch], box, axis, [&](index_t, index_t) { running = prefix[segment++]; },
        [&](index_t from, index_t to, index_t count, index_t in_step, index_t out_step) {
          T r = running;  // a local: stores into `target` cannot alias it
          if (kind == ScanKind::inclusive) {
            for (index_t k = 0; k < count; ++k) {
              r = op(r, source[from + k * in_step]);
              target[to + k * out_step] = r;
            }
          } else {
            for (index_t k = 0; k < count; ++k) {
              const T x = source[from + k * in_step];
              target[to + k * out_step] = r;
              r = op(r, x);
            }
          }
          running = r;
        });
}

/// What `scan` and `scan_along` refuse, alike on every rank, before anything moves.
template <class T, std::size_t N, class Op>
void check_scan(const char* where, const DistArray<T, N>& in, const DistArray<T, N>& out, ScanKind kind,
                const Op& op) {
  if (kind != ScanKind::inclusive && kind != ScanKind::exclusive)
    fail_argument(where, "kind", static_cast<int>(kind), "is not a tessera::ScanKind");
  if (!(out.distribution() == in.distribution()))
    fail_argument(where, "out", out.distribution(),
                  concat("must be distributed as 'in' (", in.distribution(), ") over the same box"));
  if (in.distribution().is_flooded())
    fail_argument(where, "in", in.distribution(),
                  "has a flooded axis: its replicas have no place in a global order (scan an unflooded copy)");
  if (out.ghost_update_in_flight())
    fail(ErrorCode::invalid_argument, where, ": 'out' has a ghost update in flight (call end_update_ghosts first)");
  if (!op_properties(op).associative)
    fail_argument(where, "op", "an operator declared not associative",
                  "cannot be scanned: its result would depend on where the distribution splits the lines");
}

}  // namespace detail

/// Collective: `out` = the scan of `in` by `op` over the whole array, in global row-major order of
/// the domain box (see the file comment for the exact fold order). `out` must have `in`'s
/// distribution (it may be `in` itself: in place); its ghosts are not touched. `op` must be
/// associative (not necessarily commutative) and `identity` its identity.
/// \code
///   tessera::scan(a, s, tessera::ScanKind::inclusive, std::int64_t{0}, tessera::WrappingPlus{});   // ZPL +||
///   tessera::scan(a, m, tessera::ScanKind::inclusive, std::numeric_limits<int>::min(),
///                 [](int u, int v) { return std::max(u, v); });                                 // max||
/// \endcode
/// Throws `Error(invalid_argument)` on every rank, with nothing changed, if `out` is distributed
/// otherwise, `kind` is not a `ScanKind`, `out` has a ghost update in flight, or `op` is a
/// `user_op` declared not associative.
template <class T, std::size_t N, class Op>
void scan(const DistArray<T, N>& in, DistArray<T, N>& out, ScanKind kind, const T& identity, Op op) {
  constexpr const char* where = "tessera::scan";
  const auto checked = detail::check_collective(in.domain().comm(), where, in.collective_identity(),
                                                out.collective_identity(), kind);
  detail::check_scan(where, in, out, kind, op);
  detail::scan_lines(in, out, std::nullopt, kind, identity, op);
}

/// Collective: `out` = the scan of `in` by `op` along dimension `axis`: every line along `axis`
/// (all other indices fixed) scanned on its own, from its low end (ZPL's `op|| [axis]`). The same
/// rules as `scan`, a line of `axis` in place of the whole box.
/// \code
///   tessera::scan_along(a, 0, s, tessera::ScanKind::exclusive, 0.0, std::plus<>{});   // column prefix sums
/// \endcode
/// Throws `Error(invalid_argument)` on every rank, with nothing changed, for `axis >= N` and for
/// what `scan` refuses.
template <class T, std::size_t N, class Op>
void scan_along(const DistArray<T, N>& in, std::size_t axis, DistArray<T, N>& out, ScanKind kind, const T& identity,
                Op op) {
  constexpr const char* where = "tessera::scan_along";
  const auto checked = detail::check_collective(in.domain().comm(), where, in.collective_identity(),
                                                out.collective_identity(), axis, kind);
  if (axis >= N) fail_argument(where, "axis", axis, detail::concat("must be < ", N));
  detail::check_scan(where, in, out, kind, op);
  detail::scan_lines(in, out, std::optional<std::size_t>(axis), kind, identity, op);
}

}  // namespace tessera
