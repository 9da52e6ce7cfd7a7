#pragma once
/// \file
/// `BoxSetDistribution<N>`: a `BoxSet` seen as a user-defined distribution, so that every layer
/// (plans, arrays, redistribution, gather/scatter, reductions, checkpoints) accepts a box set like
/// any distribution. Made by `Distribution<N>::from_box_set(set)`; rarely named directly.
///
/// Unlike other distributions it need not cover its domain (`covers_domain()` is false): an index
/// of the domain that no box holds has no owner (`owner` throws `Error(out_of_range)`), is stored
/// nowhere, and every movement skips it — a ghost cell there is left alone, a gathered image keeps
/// what it held there, a redistribution into a box set drops it and one out of a box set leaves the
/// target's value-initialised element there.
///
/// Storage: one patch per box of the rank, in `BoxSet::boxes_of` order. Every query goes through
/// the set's spatial index: `owner`, `local_offset` O(one bin), `pieces(box)` O(bins + boxes met).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/core/hash.hpp"
#include "tessera/geometry.hpp"
#include "tessera/layout/box_set.hpp"
#include "tessera/layout/user_distribution.hpp"

namespace tessera {

/// A box set as a user-defined distribution (see the file comment).
template <std::size_t N>
  requires(N >= 1)
class BoxSetDistribution final : public UserDistribution<N> {
 public:
  /// The distribution of `set` over its domain and communicator size.
  explicit BoxSetDistribution(BoxSet<N> set)
      : UserDistribution<N>(set.domain(), set.comm_size()), set_(std::move(set)), offset_in_rank_(set_.size(), 0) {
    for (int r = 0; r < set_.comm_size(); ++r) {
      index_t before = 0;
      for (std::size_t i : set_.boxes_of(r)) {
        offset_in_rank_[i] = before;
        before += volume(set_.box(i));
      }
    }
  }

  /// The box set.
  [[nodiscard]] const BoxSet<N>& box_set() const noexcept { return set_; }

  [[nodiscard]] std::string name() const override { return detail::concat(set_); }

  /// The owner of the box holding `p`. Throws `Error(out_of_range)` if no box holds it.
  [[nodiscard]] int owner(const Point<N>& p) const override { return set_.owner(box_holding(p)); }

  [[nodiscard]] BoxList<N> owned_boxes(int rank) const override { return set_.owned_boxes(rank); }

  [[nodiscard]] index_t local_offset(const Point<N>& p) const override {
    const std::size_t i = box_holding(p);
    return offset_in_rank_[i] + offset_row_major(set_.box(i), p);
  }

  /// One piece per box meeting `box`, in box order; each lies in one owned box.
  [[nodiscard]] std::vector<DistPiece<N>> pieces(const Box<N>& box) const override {
    std::vector<DistPiece<N>> out;
    for (std::size_t i : set_.meeting(box))
      out.push_back({Section<N>::from_box(intersect(set_.box(i), box)), set_.owner(i)});
    return out;
  }
  [[nodiscard]] bool pieces_lie_in_owned_boxes() const noexcept override { return true; }
  [[nodiscard]] bool covers_domain() const noexcept override { return set_.cells() == volume(set_.domain()); }

  [[nodiscard]] bool equals(const UserDistribution<N>& other) const override {
    const auto* o = dynamic_cast<const BoxSetDistribution*>(&other);
    return o && o->set_ == set_;
  }
  [[nodiscard]] std::uint64_t hash() const override { return set_.hash(); }

 private:
  [[nodiscard]] std::size_t box_holding(const Point<N>& p) const {
    const auto i = set_.find(p);
    if (!i) fail(ErrorCode::out_of_range, name(), ": no box holds the point ", p, " (a hole of the set)");
    return *i;
  }

  BoxSet<N> set_;
  std::vector<index_t> offset_in_rank_;  // box i's first element in its owner's storage (no ghosts)
};

}  // namespace tessera
