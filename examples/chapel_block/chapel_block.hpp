#pragma once
/// \file
/// `ChapelBlock<N>`: the user-defined block distribution of the Chapel paper (Diaconescu & Zima,
/// section 3.2), written the way the paper writes it: by overriding the owner map (Chapel's
/// `Map(index) -> locale`) and the local layout (`LocalLayout(index) -> location`) of tessera's
/// `UserDistribution<N>`.
///
/// The paper's one-dimensional class, with the lower bound 1 it assumes:
/// \code
///   function Map(in i: index) : locale { return this.GetTarget()(ceil((i-1)/block_size)+1); }
///   function LocalLayout(var in i : index) : location { return (mod(i-1, block_size)+1); }
/// \endcode
/// Here, per dimension d, block b = floor((i - lo) / block_size[d]) of the domain goes to the
/// locale at position b of the target locale grid (row-major over the grid, `target[...]`), and
/// index i sits at (i - lo) mod block_size[d] within its block, the block being stored row-major.
/// (The paper's `ceil((i-1)/block_size)+1` sends index block_size, the last of the first block by
/// LocalLayout, to the second locale; the floor is what both functions agree on.)
/// \code
///   tessera_examples::ChapelBlock<2> block(tessera::Box<2>({1, 1}, {101, 81}), {2, 2}, {3, 2, 1, 0});
///   block.owner({1, 1});            // 3: block (0, 0) lives on target[0] = rank 3
///   block.local_offset({2, 3});     // 1 * 40 + 2: row-major within the 50 x 40 block
///   auto dist = tessera::Distribution<2>::user(std::make_shared<tessera_examples::ChapelBlock<2>>(block));
/// \endcode

#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/geometry.hpp"
#include "tessera/layout/user_distribution.hpp"

namespace tessera_examples {

template <std::size_t N>
class ChapelBlock final : public tessera::UserDistribution<N> {
 public:
  using index_t = tessera::index_t;

  /// SetDomain(domain), SetTarget(target): the blocks of `domain` go to the ranks `target`, a
  /// locale grid of shape `locales` listed row-major (every rank at most once). The block size
  /// along d is computed by the system: ceil(extent / locales[d]).
  ChapelBlock(const tessera::Box<N>& domain, const tessera::Point<N>& locales, std::vector<int> target, int comm_size)
      : tessera::UserDistribution<N>(domain, comm_size), locales_(locales), target_(std::move(target)) {
    index_t positions = 1;
    for (std::size_t d = 0; d < N; ++d) {
      if (locales[d] < 1)
        tessera::fail_argument("ChapelBlock", "locales", locales, "must be >= 1 along every dimension");
      positions *= locales[d];
      const index_t extent = tessera::extent(domain, d);
      block_size_[d] = extent == 0 ? 1 : (extent + locales[d] - 1) / locales[d];
    }
    if (static_cast<index_t>(target_.size()) != positions)
      tessera::fail_argument("ChapelBlock", "target.size()", target_.size(),
                             tessera::detail::concat("must equal the ", positions, " positions of the locale grid"));
    std::vector<bool> seen(static_cast<std::size_t>(comm_size), false);
    for (std::size_t k = 0; k < target_.size(); ++k) {
      const int r = target_[k];
      if (r < 0 || r >= comm_size || seen[static_cast<std::size_t>(r)])
        tessera::fail_argument("ChapelBlock", tessera::detail::concat("target[", k, "]"), r,
                               "must be a rank of the communicator that appears once");
      seen[static_cast<std::size_t>(r)] = true;
    }
  }

  /// GetTarget().
  [[nodiscard]] const std::vector<int>& target() const noexcept { return target_; }
  [[nodiscard]] const tessera::Point<N>& block_size() const noexcept { return block_size_; }

  [[nodiscard]] std::string name() const override {
    std::ostringstream out;
    out << "chapel_block(" << this->domain() << " on locales " << locales_ << ", target {";
    for (std::size_t k = 0; k < target_.size(); ++k) out << (k ? "," : "") << target_[k];
    out << "})";
    return out.str();
  }

  /// Chapel's Map: the locale of the block holding `p`.
  [[nodiscard]] int owner(const tessera::Point<N>& p) const override {
    index_t position = 0;
    for (std::size_t d = 0; d < N; ++d) position = position * locales_[d] + block_of(p, d);
    return target_[static_cast<std::size_t>(position)];
  }

  /// Chapel's LocalLayout: where `p` sits in its locale's storage, row-major within its block (the
  /// block clipped to the domain, so that the last blocks are as short as they are).
  [[nodiscard]] index_t local_offset(const tessera::Point<N>& p) const override {
    const tessera::Box<N> b = block_box(p);
    index_t offset = 0;
    for (std::size_t d = 0; d < N; ++d)
      offset = offset * tessera::extent(b, d) + (p[d] - this->domain().lo[d]) % block_size_[d];
    return offset;
  }

  /// The one block `rank` owns (none if it is not in the target or its block lies past the domain).
  [[nodiscard]] tessera::BoxList<N> owned_boxes(int rank) const override {
    tessera::BoxList<N> out;
    for (std::size_t k = 0; k < target_.size(); ++k) {
      if (target_[k] != rank) continue;
      tessera::Point<N> block;
      index_t rest = static_cast<index_t>(k);
      for (std::size_t d = N; d-- > 0;) {
        block[d] = rest % locales_[d];
        rest /= locales_[d];
      }
      tessera::Box<N> b;
      for (std::size_t d = 0; d < N; ++d) {
        b.lo[d] = this->domain().lo[d] + block[d] * block_size_[d];
        b.hi[d] = std::min(b.lo[d] + block_size_[d], this->domain().hi[d]);
      }
      if (!b.empty()) out.push_back(b);
    }
    return out;
  }

 private:
  [[nodiscard]] index_t block_of(const tessera::Point<N>& p, std::size_t d) const noexcept {
    return (p[d] - this->domain().lo[d]) / block_size_[d];
  }
  [[nodiscard]] tessera::Box<N> block_box(const tessera::Point<N>& p) const noexcept {
    tessera::Box<N> b;
    for (std::size_t d = 0; d < N; ++d) {
      b.lo[d] = this->domain().lo[d] + block_of(p, d) * block_size_[d];
      b.hi[d] = std::min(b.lo[d] + block_size_[d], this->domain().hi[d]);
    }
    return b;
  }

  tessera::Point<N> locales_;
  tessera::Point<N> block_size_{};
  std::vector<int> target_;
};

}  // namespace tessera_examples
