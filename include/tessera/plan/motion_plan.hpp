#pragma once
/// \file
/// `MotionPlan<N>`: a list of copies `(src rank, src section) -> (dst rank, dst section)` (KeLP's
/// MotionPlan, PARTI's regular section move), with an optional axis permutation (transpose) and a
/// combine op (replace, or accumulate with add/min/max/...).
///
/// Sections are in *global* indices of the source and destination arrays. Copy k moves the points
/// of `src` in row-major order onto the points of `dst` taken in the permuted order: with
/// permutation `perm`, source axis `perm[d]` runs along destination axis d, so
/// `volume(dst.dim[d]) == volume(src.dim[perm[d]])`.
/// \code
///   tessera::MotionPlan<2> plan;                       // KeLP style, built the same on every rank
///   plan.copy(0, Box<2>({0, 0}, {4, 1}), 1, Box<2>({0, 8}, {4, 9}));
///   tessera::MotionPlan<2> transpose({1, 0});          // dst(i, j) = src(j, i)
/// \endcode
/// Builders (halo_plan.hpp, redistribution_plan.hpp, section_move_plan.hpp) produce only the copies
/// that involve one rank, without communication, sorted canonically so that every pair of ranks
/// agrees on the order of the copies between them.

#include <algorithm>
#include <array>
#include <cstddef>
#include <numeric>
#include <ostream>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/core/hash.hpp"
#include "tessera/geometry.hpp"
#include "tessera/plan/combine_op.hpp"

namespace tessera {

/// One copy of a plan. A patch index of -1 means "the patch that owns (else stores) the section";
/// builders name the destination patch of ghost copies, where patches' ghost zones may overlap.
template <std::size_t N>
struct Copy {
  /// Rank the data comes from.
  int src_rank = 0;
  /// Source section, in global indices of the source array.
  Section<N> src;
  /// Rank the data goes to.
  int dst_rank = 0;
  /// Destination section, in global indices of the destination array.
  Section<N> dst;
  /// Source patch, or -1 (see the struct comment).
  int src_patch = -1;
  /// Destination patch, or -1.
  int dst_patch = -1;
  friend bool operator==(const Copy&, const Copy&) = default;
};

/// A list of copies between ranks' sections, with an axis permutation and a combine op (see the file comment).
template <std::size_t N>
class MotionPlan {
 public:
  /// Destination axis d takes source axis `perm[d]`.
  using Permutation = std::array<int, N>;

  /// The permutation that keeps every axis in place.
  [[nodiscard]] static constexpr Permutation identity() noexcept {
    Permutation p{};
    std::iota(p.begin(), p.end(), 0);
    return p;
  }

  /// An empty plan; throws `Error(invalid_argument)` if `perm` is not a permutation.
  explicit MotionPlan(const Permutation& perm = identity(), CombineOp op = CombineOp::replace) : perm_(perm), op_(op) {
    std::array<bool, N> seen{};
    for (std::size_t d = 0; d < N; ++d) {
      if (perm[d] < 0 || perm[d] >= static_cast<int>(N) || seen[static_cast<std::size_t>(perm[d])])
        fail_argument("MotionPlan", detail::concat("perm[", d, "]"), perm[d], "makes the axis map not a permutation");
      seen[static_cast<std::size_t>(perm[d])] = true;
    }
  }

  /// Adds a copy of box `src` on `src_rank` to box `dst` on `dst_rank`. Throws
  /// `Error(invalid_argument)` if the extents do not match under the permutation.
  void copy(int src_rank, const Box<N>& src, int dst_rank, const Box<N>& dst) {
    copy(src_rank, Section<N>::from_box(src), dst_rank, Section<N>::from_box(dst));
  }
  /// Adds a copy between sections (see the file comment for how points correspond).
  void copy(int src_rank, const Section<N>& src, int dst_rank, const Section<N>& dst, int src_patch = -1,
            int dst_patch = -1) {
    for (std::size_t d = 0; d < N; ++d) {
      const auto s = static_cast<std::size_t>(perm_[d]);
      if (volume(dst.dim[d]) != volume(src.dim[s]))
        fail_argument("MotionPlan::copy", "dst", dst,
                      detail::concat("has ", volume(dst.dim[d]), " points along axis ", d, " but src ", src, " has ",
                                     volume(src.dim[s]), " along axis ", s, ": the volumes do not match"));
    }
    if (src_rank < 0) fail_argument("MotionPlan::copy", "src_rank", src_rank, "must be >= 0");
    if (dst_rank < 0) fail_argument("MotionPlan::copy", "dst_rank", dst_rank, "must be >= 0");
    if (src.empty()) return;
    copies_.push_back({src_rank, src, dst_rank, dst, src_patch, dst_patch});
  }

  /// The copies, in the order they were added (builders: canonical order).
  [[nodiscard]] const std::vector<Copy<N>>& copies() const& noexcept { return copies_; }
  /// On a temporary plan the copies are moved out, so `for (auto& c : make_plan(...).copies())`
  /// walks a live vector instead of one destroyed with the plan (ASan caught that once).
  [[nodiscard]] std::vector<Copy<N>> copies() && noexcept { return std::move(copies_); }
  /// Destination axis d takes source axis `permutation()[d]`.
  [[nodiscard]] const Permutation& permutation() const noexcept { return perm_; }
  /// How arriving values meet the ones in place.
  [[nodiscard]] CombineOp op() const noexcept { return op_; }
  /// Number of copies.
  [[nodiscard]] std::size_t size() const noexcept { return copies_.size(); }

  /// The same copies with another combine op.
  [[nodiscard]] MotionPlan with_op(CombineOp op) const {
    MotionPlan p = *this;
    p.op_ = op;
    return p;
  }
  /// Every copy turned around (dst -> src), e.g. a halo fill into a ghost accumulation.
  [[nodiscard]] MotionPlan reversed() const {
    Permutation inverse{};
    for (std::size_t d = 0; d < N; ++d) inverse[static_cast<std::size_t>(perm_[d])] = static_cast<int>(d);
    MotionPlan p(inverse, op_);
    for (const auto& c : copies_) p.copies_.push_back({c.dst_rank, c.dst, c.src_rank, c.src, c.dst_patch, c.src_patch});
    p.canonical_order();
    return p;
  }

  /// Sorts by (src rank, dst rank, first point of src). Builders call it so that a sender and a
  /// receiver, which compute their copies independently, list the copies between them alike.
  void canonical_order() {
    std::stable_sort(copies_.begin(), copies_.end(), [](const Copy<N>& a, const Copy<N>& b) {
      if (a.src_rank != b.src_rank) return a.src_rank < b.src_rank;
      if (a.dst_rank != b.dst_rank) return a.dst_rank < b.dst_rank;
      return first_point(a.src) < first_point(b.src);
    });
  }

  /// `MotionPlan(2 copies, replace)` and one line per copy.
  friend std::ostream& operator<<(std::ostream& out, const MotionPlan& plan) {
    out << "MotionPlan(" << plan.copies_.size() << " copies, " << to_string(plan.op_) << ")";
    for (const auto& c : plan.copies_)
      out << "\n  " << c.src_rank << ':' << c.src << " -> " << c.dst_rank << ':' << c.dst;
    return out;
  }

 private:
  static Point<N> first_point(const Section<N>& s) {
    Point<N> p;
    for (std::size_t d = 0; d < N; ++d) p[d] = s.dim[d].begin();
    return p;
  }

  std::vector<Copy<N>> copies_;
  Permutation perm_;
  CombineOp op_;
};

}  // namespace tessera
