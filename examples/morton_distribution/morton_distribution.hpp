#pragma once
/// \file
/// `MortonDistribution<N>`: a worked user-defined distribution (Chapel's pattern, see
/// `tessera/layout/user_distribution.hpp`). The points of the domain are ordered along a Morton
/// (Z-order) space-filling curve and the curve is cut into `comm_size` consecutive segments holding
/// equal numbers of domain points (sizes differ by at most one).
///
/// **The curve.** The domain `[lo, hi)` (any extents, negative `lo` allowed) is padded to the
/// enclosing cube of side `2^L`, L the fewest levels with `2^L >= ` every extent. A point `p` has the
/// Morton code of `q = p - lo`: the bits of the coordinates interleaved from the most significant
/// level down, and **dimension 0 most significant within each level**:
/// `code = q0[L-1] q1[L-1] ... q{N-1}[L-1]  q0[L-2] ...  q{N-1}[0]`. So the 2^N children of a
/// tree node are visited in row-major order, the order tessera uses everywhere else; in 2-D with
/// rows = dimension 0 the curve draws a "Z" (top left, top right, bottom left, bottom right).
/// \code
///   tessera_examples::MortonDistribution<2> m(tessera::Box<2>({0, 0}, {4, 4}), 4);
///   m.owner({1, 3});      // 1: each rank owns one 2x2 quadrant, in Z order
///   m.owned_boxes(2);     // {[2,4)x[0,2)}
///   auto dist = tessera::Distribution<2>::user(std::make_shared<tessera_examples::MortonDistribution<2>>(
///       tessera::Box<2>({-3, 0}, {10, 9}), 5));  // accepted by every layer like a built-in
/// \endcode
///
/// **Split points** are never found by enumerating points: the implicit 2^N-tree over the padded
/// cube gives the number of domain points in a node as a product of N interval overlaps, so
/// `count_before(m)` (domain points with code < m) and its inverse (the code of the k-th domain
/// point: descend into the child whose running count passes k) each take one descent of the tree,
/// O(L * 2^N) node volumes; the inverse gives the split codes. Rank r owns the codes
/// `[split_code(r), split_code(r + 1))`, `split_code(r)` being the code of domain point number
/// `points_before(r)`, and `points_before(r) = r*q + min(r, T mod P)` for T points, q = T / P (the
/// first `T mod P` ranks hold one point more; ranks past T own nothing when P > T).
///
/// **Codes fit in 64 bits** with `N * L <= 62` (so codes, the end code `2^(N L)` and every count
/// also fit in a signed `index_t`): extents up to 2^62 in 1-D, 2^31 in 2-D, 2^20 in 3-D.
///
/// **Balancing by Δ.** It also implements `tessera::OrderedSplits<N>`: the split codes are its
/// split points, and a second constructor cuts the curve at other codes, so the balance layer can
/// move its splits a fraction Δ toward a target from measured seconds
/// (`tessera/balance/split_balance.hpp`; `main.cpp --balance` runs it under emulated load).
///
/// **Local storage along the curve** (Chapel's `LocalLayout`, `MortonStorage::curve`): each rank
/// may keep its points in curve order, point p at `count_before(code(p)) - points_before(rank)`,
/// instead of tessera's row-major patch per owned box (`MortonStorage::patches`, the default, which
/// alone allows ghost layers). Neighbours on the curve are then neighbours in memory; the engine
/// compiles its movements against these offsets (`tessera/layout/local_layout.hpp`), asking
/// `local_run` for stretches: pairs along the last axis (the whole row in 1-D).
///
/// Replicated state: O(P) codes and counts. Copies of a `Distribution` wrapping it share one object.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "tessera/balance/split_balance.hpp"
#include "tessera/core/error.hpp"
#include "tessera/geometry.hpp"
#include "tessera/layout/user_distribution.hpp"

namespace tessera_examples {

/// How a rank of a `MortonDistribution` stores its points (see the file comment).
enum class MortonStorage {
  patches,  ///< one row-major patch per owned box (tessera's default; ghosts allowed)
  curve,    ///< every point at its place along the curve within the rank's segment (no ghosts)
};

/// Morton (Z-order) space-filling-curve distribution of an N-dimensional box over `comm_size`
/// ranks, balanced by point count (or cut at given split codes). See the file comment for the
/// curve and the split points.
template <std::size_t N>
  requires(N >= 1 && N <= 16)  // a tree node has 2^N children, indexed by an unsigned
class MortonDistribution : public tessera::UserDistribution<N>, public tessera::OrderedSplits<N> {
 public:
  /// A Morton code: position along the curve over the padded cube, in `[0, code_end())`.
  using Code = std::uint64_t;
  /// Indices, counts and offsets (tessera's 64-bit signed index).
  using index_t = tessera::index_t;

  /// Most tree levels a domain may need: `N * max_levels <= 62` bits of code.
  static constexpr int max_levels = 62 / static_cast<int>(N);

  /// The Morton distribution of `domain` over ranks `0 .. comm_size-1`. An empty domain is fine
  /// (every rank owns nothing). Throws `tessera::Error(invalid_argument)` naming `comm_size` if it
  /// is < 1, and naming `domain` if an extent exceeds `2^max_levels` (codes would not fit in 64
  /// bits). Cost: O(P * L * 2^N) for the P split codes.
  MortonDistribution(const tessera::Box<N>& domain, int comm_size, MortonStorage storage = MortonStorage::patches)
      : tessera::UserDistribution<N>(domain, checked_comm_size(comm_size)),
        storage_(storage),
        lo_(domain.lo),
        rel_domain_(tessera::Box<N>::from_extents(tessera::extents(domain))),
        levels_(levels_for(domain)),
        total_(tessera::volume(domain)) {
    const index_t q = total_ / comm_size, rem = total_ % comm_size;
    std::vector<index_t> before(static_cast<std::size_t>(comm_size) + 1);
    for (std::size_t r = 0; r < before.size(); ++r) {
      const auto rr = static_cast<index_t>(r);
      before[r] = rr * q + std::min(rr, rem);  // <= total_: no overflow
    }
    set_counts(std::move(before));
  }

  /// The Morton curve of `domain` cut at other split codes (what balancing moves): rank r owns the
  /// codes [splits[r], splits[r + 1]). `splits` holds comm_size + 1 nondecreasing codes from 0 to
  /// `code_end()`; codes are stored canonically (a split moved onto the code of the first domain
  /// point at or after it), so two lists that cut the domain's points alike give equal
  /// distributions. Throws `tessera::Error(invalid_argument)` naming `splits` for a list of the
  /// wrong length, decreasing, or not from 0 to `code_end()`; and as the even constructor does.
  MortonDistribution(const tessera::Box<N>& domain, int comm_size, const std::vector<Code>& splits,
                     MortonStorage storage = MortonStorage::patches)
      : tessera::UserDistribution<N>(domain, checked_comm_size(comm_size)),
        storage_(storage),
        lo_(domain.lo),
        rel_domain_(tessera::Box<N>::from_extents(tessera::extents(domain))),
        levels_(levels_for(domain)),
        total_(tessera::volume(domain)) {
    constexpr const char* where = "MortonDistribution";
    if (splits.size() != static_cast<std::size_t>(comm_size) + 1)
      tessera::fail_argument(where, "splits", splits.size(),
                             "entries given; must be comm_size + 1 = " + std::to_string(comm_size + 1));
    if (splits.front() != 0 || splits.back() != code_end())
      tessera::fail_argument(where, "splits", std::to_string(splits.front()) + ".." + std::to_string(splits.back()),
                             "must run from code 0 to code_end() = " + std::to_string(code_end()));
    std::vector<index_t> before(splits.size());
    for (std::size_t r = 0; r < splits.size(); ++r) {
      if (r > 0 && splits[r] < splits[r - 1])
        tessera::fail_argument(where, "splits[" + std::to_string(r) + "]", splits[r], "must not be below the code before it");
      before[r] = count_before(splits[r]);
    }
    set_counts(std::move(before));
  }

  /// `morton(domain [0,10)x[0,7) over 3 ranks)`. Domain and rank count fix the ownership, so the
  /// name identifies the distribution as `UserDistribution::name` requires.
  /// A distribution cut elsewhere than evenly lists its points before each split:
  /// `morton(domain [0,10)x[0,7) over 3 ranks, split at points 0 20 45 70)`.
  [[nodiscard]] std::string name() const override {
    std::ostringstream out;
    out << "morton(domain " << this->domain() << " over " << this->comm_size() << " ranks";
    if (!is_even()) {
      out << ", split at points";
      for (const index_t b : before_) out << ' ' << b;
    }
    if (storage_ == MortonStorage::curve) out << ", stored along the curve";
    out << ')';
    return out.str();
  }

  /// The rank whose curve segment holds `p`: its Morton code, then a binary search among the split
  /// codes, O(N L + log P). Throws `tessera::Error(out_of_range)` if `p` is outside the domain.
  [[nodiscard]] int owner(const tessera::Point<N>& p) const override {
    check_in_domain("MortonDistribution::owner", p);
    return owner_of_code(code_of(p - lo_));
  }

  /// Rank `rank`'s segment as maximal aligned tree blocks clipped to the domain, in curve order:
  /// a node is emitted whole as soon as all its domain points lie in the segment (exact, because
  /// the code is increasing in every coordinate, so a box's codes span [code(lo), code(last)]).
  /// At most two nodes per level straddle a segment end, so there are at most 2 (2^N - 1) L
  /// boxes, found in O(2^N L) node visits of O(N L) each. Throws `tessera::Error` naming `rank`
  /// if it is not in [0, comm_size).
  [[nodiscard]] tessera::BoxList<N> owned_boxes(int rank) const override {
    const std::size_t r = checked_rank("MortonDistribution::owned_boxes", rank);
    tessera::BoxList<N> out;
    if (before_[r] == before_[r + 1]) return out;  // owns no point (P > T, or an empty domain)
    decompose(root(), splits_[r], splits_[r + 1], out);
    return out;
  }

  /// The pieces covering `box ∩ domain()`, found by walking only the tree nodes that meet it. A
  /// node whose part of the box (`node ∩ box ∩ domain`, a box C) has one owner at both code ends
  /// `code(C.lo)` and `code(C.last)` is emitted as one piece: ownership is monotone along the
  /// curve, so all of C has that owner. Only nodes straddling a segment end are split.
  /// Cost: for K pieces, split nodes are disjoint within a level and each holds >= 2 pieces, so at
  /// most K/2 per level and 2^N (L K / 2) + 1 visits in all, each O(N L + log P): independent of
  /// the box's volume and of the number of ranks that own none of it (the default builds the boxes
/// of every rank: O(P 2^N L) node visits).
  [[nodiscard]] std::vector<tessera::DistPiece<N>> pieces(const tessera::Box<N>& box) const override {
    std::vector<tessera::DistPiece<N>> out;
    const tessera::Box<N> query = tessera::intersect(box, this->domain());
    if (query.empty()) return out;
    split_pieces(root(), relative(query), out);
    return out;
  }

  /// Stored along the curve: p's place in its owner's segment, `count_before(code(p)) -
  /// points_before(owner)`, O(L 2^N N). Stored in patches: the same numbers as the default (the
  /// patch layout of `owned_boxes(owner(p))`) without building the box list: follow p's path down
  /// the tree to the first node wholly inside the owner's segment, which is the box `owned_boxes`
  /// lists for p; the domain points before it in the segment are `count_before(node start) -
  /// points_before(owner)`. O(N L^2 + 2^N N L).
  [[nodiscard]] index_t local_offset(const tessera::Point<N>& p) const override {
    check_in_domain("MortonDistribution::local_offset", p);
    const tessera::Point<N> q = p - lo_;
    const Code code = code_of(q);
    const auto r = static_cast<std::size_t>(owner_of_code(code));
    if (storage_ == MortonStorage::curve) return count_before(code) - before_[r];
    for (Node n = root();; n = child_containing(n, q)) {
      const tessera::Box<N> b = tessera::intersect(n.box, rel_domain_);
      if (code_of(b.lo) >= splits_[r] && code_of(b.last()) < splits_[r + 1])
        return count_before(n.first) - before_[r] + tessera::offset_row_major(b, q);
    }
  }

  /// Stored along the curve, how many of the `count` owned points p, p + e_axis, ... sit at
  /// consecutive offsets (what plans ask per stretch, `UserDistribution::local_run`). In 1-D the
  /// code is the index: the whole stretch. Otherwise the last axis holds the lowest bit of the code,
  /// so an even coordinate (relative to the domain's low corner) and the next one are consecutive
  /// codes, both domain points: a pair. Across a pair the code jumps, and whether the codes between
  /// are all padding would take a descent per point to tell, so 1 (always correct). In patches the
  /// default: 1.
  [[nodiscard]] index_t local_run(const tessera::Point<N>& p, std::size_t axis, index_t count) const override {
    if (storage_ != MortonStorage::curve || count < 2) return 1;
    if constexpr (N == 1) return count;
    if (axis != N - 1) return 1;
    return (p[N - 1] - lo_[N - 1]) % 2 == 0 ? 2 : 1;
  }

  /// True when stored along the curve (`MortonStorage::curve`): tessera then keeps every point at
  /// `local_offset(p)`.
  [[nodiscard]] bool has_local_layout() const noexcept override { return storage_ == MortonStorage::curve; }
  /// The points `rank` owns (the curve order leaves no holes).
  [[nodiscard]] index_t local_storage_size(int rank) const override { return point_count(rank); }
  /// How each rank stores its points.
  [[nodiscard]] MortonStorage storage() const noexcept { return storage_; }

  /// Same domain, rank count, points per rank (and so the same ownership of every index) and storage.
  [[nodiscard]] bool equals(const tessera::UserDistribution<N>& other) const override {
    const auto* o = dynamic_cast<const MortonDistribution*>(&other);
    return o != nullptr && o->domain() == this->domain() && o->comm_size() == this->comm_size() &&
           o->before_ == before_ && o->storage_ == storage_;
  }

  /// Levels L of the tree: the padded cube has side 2^L (0 for a domain of at most one point).
  [[nodiscard]] int levels() const noexcept { return levels_; }
  /// One past the last code of the padded cube: 2^(N L).
  [[nodiscard]] Code code_end() const noexcept { return Code{1} << (N * static_cast<std::size_t>(levels_)); }
  /// Morton code of `p` (which must lie in the domain): the bits of `p - lo` interleaved. O(N L).
  [[nodiscard]] Code morton_code(const tessera::Point<N>& p) const {
    check_in_domain("MortonDistribution::morton_code", p);
    return code_of(p - lo_);
  }
  /// Number of domain points with code < `m` (all of them for `m >= code_end()`): one descent of
  /// the tree adding the domain volumes of the children before m's child, O(L 2^N N).
  [[nodiscard]] index_t count_before(Code m) const {
    if (m >= code_end()) return total_;
    index_t count = 0;
    Node n = root();
    while (n.level > 0) {
      const auto k = static_cast<unsigned>((m - n.first) >> child_shift(n));
      for (unsigned j = 0; j < k; ++j) count += domain_volume(child(n, j));
      n = child(n, k);
    }
    return count;  // n is the single code m, which is not below m
  }
  /// First code of `rank`'s segment, for `rank` in [0, comm_size]; `split_code(comm_size)` is
  /// `code_end()`. Ranks that own nothing have an empty segment.
  [[nodiscard]] Code split_code(int rank) const {
    return splits_[checked_rank_or_end("MortonDistribution::split_code", rank)];
  }
  /// Domain points on ranks before `rank` (`rank` in [0, comm_size]).
  [[nodiscard]] index_t points_before(int rank) const {
    return before_[checked_rank_or_end("MortonDistribution::points_before", rank)];
  }
  /// Balancing by Δ (tessera::OrderedSplits): the split codes, `split_code(0 .. comm_size)`.
  [[nodiscard]] std::vector<Code> split_points() const override { return splits_; }
  /// Balancing by Δ: `count_before(position)`.
  [[nodiscard]] index_t indices_before(Code position) const override { return count_before(position); }
  /// Balancing by Δ: the code of domain point number `k` along the curve, one descent of the tree.
  /// Throws `tessera::Error(invalid_argument)` naming `k` unless 0 <= k < the domain's volume.
  [[nodiscard]] Code position_of_index(index_t k) const override {
    if (k < 0 || k >= total_)
      tessera::fail_argument("MortonDistribution::position_of_index", "k", k,
                             "must be in [0, " + std::to_string(total_) + ")");
    return select(k);
  }
  /// Balancing by Δ: the same curve cut at `splits` (the constructor taking split codes).
  [[nodiscard]] std::shared_ptr<const tessera::UserDistribution<N>> with_split_points(std::vector<Code> splits) const override {
    return std::make_shared<const MortonDistribution>(this->domain(), this->comm_size(), splits, storage_);
  }

  /// Number of domain points `rank` owns (the total divided as evenly as possible, unless cut at
  /// other split codes).
  [[nodiscard]] index_t point_count(int rank) const {
    const std::size_t r = checked_rank("MortonDistribution::point_count", rank);
    return before_[r + 1] - before_[r];
  }

 private:
  /// A node of the implicit tree: an aligned cube of side 2^level in coordinates relative to lo,
  /// holding the codes [first, first + 2^(N level)).
  struct Node {
    tessera::Box<N> box;
    Code first = 0;
    int level = 0;
  };

  /// Sets the points before each split and the canonical split codes: the code of the first point
  /// of each segment (code_end() past the last point; code 0 for rank 0 even for an empty domain,
  /// so owner_of_code never yields -1).
  void set_counts(std::vector<index_t> before) {
    before_ = std::move(before);
    splits_.resize(before_.size());
    for (std::size_t r = 0; r < before_.size(); ++r) splits_[r] = before_[r] < total_ ? select(before_[r]) : code_end();
    splits_[0] = 0;
  }

  /// True if the points are divided as evenly as possible (the first T mod P ranks one more).
  [[nodiscard]] bool is_even() const noexcept {
    const index_t P = this->comm_size(), q = total_ / P, rem = total_ % P;
    for (std::size_t r = 0; r < before_.size(); ++r) {
      const auto rr = static_cast<index_t>(r);
      if (before_[r] != rr * q + std::min(rr, rem)) return false;
    }
    return true;
  }

  static int checked_comm_size(int comm_size) {
    if (comm_size < 1) tessera::fail_argument("MortonDistribution", "comm_size", comm_size, "must be >= 1");
    return comm_size;
  }

  static int levels_for(const tessera::Box<N>& domain) {
    const tessera::Point<N> e = tessera::extents(domain);  // all 0 for an empty domain
    int levels = 0;
    for (std::size_t d = 0; d < N; ++d) {
      if (e[d] > (index_t{1} << max_levels)) {
        std::ostringstream why;
        why << "has extent " << e[d] << " along dimension " << d << "; 64-bit Morton codes in " << N
            << "-D allow at most 2^" << max_levels << " = " << (index_t{1} << max_levels) << " per dimension";
        tessera::fail_argument("MortonDistribution", "domain", domain, why.str());
      }
      // Fewest levels with 2^levels >= e[d]: bit_width(e - 1) (0 for extents 0 and 1).
      if (e[d] > 1) levels = std::max(levels, static_cast<int>(std::bit_width(static_cast<std::uint64_t>(e[d] - 1))));
    }
    return levels;
  }

  void check_in_domain(const char* where, const tessera::Point<N>& p) const {
    if (!tessera::contains(this->domain(), p))
      tessera::fail(tessera::ErrorCode::out_of_range, where, ": point ", p, " lies outside the domain ",
                    this->domain());
  }
  std::size_t checked_rank(const char* where, int rank) const {
    if (rank < 0 || rank >= this->comm_size())
      tessera::fail_argument(where, "rank", rank, "must be in [0, " + std::to_string(this->comm_size()) + ")");
    return static_cast<std::size_t>(rank);
  }
  std::size_t checked_rank_or_end(const char* where, int rank) const {
    if (rank < 0 || rank > this->comm_size())
      tessera::fail_argument(where, "rank", rank, "must be in [0, " + std::to_string(this->comm_size()) + "]");
    return static_cast<std::size_t>(rank);
  }

  /// `b` (inside the domain) in coordinates relative to lo. Subtracting corners, never negating
  /// lo, cannot overflow for a domain whose extents fit.
  [[nodiscard]] tessera::Box<N> relative(const tessera::Box<N>& b) const noexcept { return {b.lo - lo_, b.hi - lo_}; }

  /// Morton code of a relative point q in the padded cube.
  [[nodiscard]] Code code_of(const tessera::Point<N>& q) const noexcept {
    Code c = 0;
    for (int bit = levels_ - 1; bit >= 0; --bit)
      for (std::size_t d = 0; d < N; ++d) c = (c << 1) | ((static_cast<Code>(q[d]) >> bit) & 1U);
    return c;
  }

  /// The rank whose segment holds code c: the last rank whose split code is <= c (ranks with
  /// empty segments share their split code with the next rank, so the last one is the owner).
  [[nodiscard]] int owner_of_code(Code c) const noexcept {
    const auto end = splits_.begin() + static_cast<std::ptrdiff_t>(this->comm_size());
    return static_cast<int>(std::upper_bound(splits_.begin(), end, c) - splits_.begin()) - 1;
  }

  [[nodiscard]] Node root() const noexcept {
    return {tessera::Box<N>::from_extents(tessera::Point<N>::filled(index_t{1} << levels_)), 0, levels_};
  }
  /// Bits of code below the child index of node n.
  [[nodiscard]] static std::size_t child_shift(const Node& n) noexcept {
    return N * static_cast<std::size_t>(n.level - 1);
  }
  /// Child k of n (n.level >= 1): bit N-1-d of k selects the upper half along dimension d.
  [[nodiscard]] static Node child(const Node& n, unsigned k) noexcept {
    const index_t half = index_t{1} << (n.level - 1);
    Node c{n.box, n.first + (Code{k} << child_shift(n)), n.level - 1};
    for (std::size_t d = 0; d < N; ++d) {
      c.box.lo[d] += static_cast<index_t>((k >> (N - 1 - d)) & 1U) * half;
      c.box.hi[d] = c.box.lo[d] + half;
    }
    return c;
  }
  [[nodiscard]] static Node child_containing(const Node& n, const tessera::Point<N>& q) noexcept {
    const int bit = n.level - 1;
    unsigned k = 0;
    for (std::size_t d = 0; d < N; ++d) k = (k << 1) | static_cast<unsigned>((q[d] >> bit) & 1);
    return child(n, k);
  }
  /// Domain points in node n: a product of N interval overlaps.
  [[nodiscard]] index_t domain_volume(const Node& n) const {
    return tessera::volume(tessera::intersect(n.box, rel_domain_));
  }

  /// Code of domain point number t (0 <= t < total): descend into the child holding it.
  [[nodiscard]] Code select(index_t t) const {
    Node n = root();
    while (n.level > 0) {
      unsigned k = 0;
      for (index_t v = domain_volume(child(n, k)); t >= v; v = domain_volume(child(n, k))) {
        t -= v;
        if (++k == (1U << N)) tessera::fail(tessera::ErrorCode::internal, name(), ": select ran past a node");
      }
      n = child(n, k);
    }
    return n.first;
  }

  void decompose(const Node& n, Code m0, Code m1, tessera::BoxList<N>& out) const {
    const tessera::Box<N> b = tessera::intersect(n.box, rel_domain_);
    if (b.empty()) return;
    const Code first = code_of(b.lo), last = code_of(b.last());
    if (last < m0 || first >= m1) return;
    if (first >= m0 && last < m1) {
      out.push_back(tessera::shift(b, lo_));
      return;
    }
    // Straddling: n has level >= 1, since a single point is always inside or outside.
    for (unsigned k = 0; k < (1U << N); ++k) decompose(child(n, k), m0, m1, out);
  }

  void split_pieces(const Node& n, const tessera::Box<N>& query, std::vector<tessera::DistPiece<N>>& out) const {
    const tessera::Box<N> c = tessera::intersect(n.box, query);
    if (c.empty()) return;
    const int first_owner = owner_of_code(code_of(c.lo));
    if (first_owner == owner_of_code(code_of(c.last()))) {
      out.push_back({tessera::Section<N>::from_box(tessera::shift(c, lo_)), first_owner});
      return;
    }
    for (unsigned k = 0; k < (1U << N); ++k) split_pieces(child(n, k), query, out);
  }

  MortonStorage storage_;
  tessera::Point<N> lo_;
  tessera::Box<N> rel_domain_;  ///< the domain relative to lo: [0, extents)
  int levels_;
  index_t total_;                ///< domain points
  std::vector<index_t> before_;  ///< before_[r]: domain points on ranks < r; before_[P] = total_
  std::vector<Code> splits_;     ///< splits_[r]: first code of rank r's segment; splits_[P] = code_end()
};

}  // namespace tessera_examples
