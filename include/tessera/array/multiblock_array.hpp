#pragma once
/// \file
/// `MultiblockDomain<N>` and `MultiblockArray<T, N>`: arrays over several blocks glued at faces
/// (Multiblock PARTI; layout/multiblock.hpp, plan/multiblock_plan.hpp, docs/box-sets.md).
///
/// The domain is a `Domain<N>` over the layout's embedded box set, so an array is one `DistArray`
/// with one storage patch per box of every block (`block_of_patch` says whose), indexed in
/// embedded coordinates (`offset(b)` away from block b's own); `at(b, p)` and `for_each_owned`
/// speak block coordinates. `update_ghosts()` runs ONE cached schedule — every block's own halo and
/// every interface, orientations applied — through the domain's exchange cache and a kept `Mover`,
/// as `DistArray::update_ghosts` does.
/// \code
///   tessera::MultiblockDomain<2> dom(world, tessera::MultiblockLayout<2>(blocks, interfaces));
///   tessera::MultiblockArray<double, 2> u(dom, tessera::ghosts<2>(1).faces_only());
///   u.for_each_owned([](std::size_t block, const tessera::Point<2>& p, double& x) { x = f(block, p); });
///   u.update_ghosts();  // Collective
///   tessera::copy_section(u, {0, box_in_0}, w, {2, box_in_2}, turn);  // PARTI's regular section move
/// \endcode

#include <cstddef>
#include <utility>

#include "tessera/array/dist_array.hpp"
#include "tessera/array/domain.hpp"
#include "tessera/exchange/kept_mover.hpp"
#include "tessera/layout/multiblock.hpp"
#include "tessera/plan/multiblock_plan.hpp"
#include "tessera/plan/multiblock_section_move.hpp"

namespace tessera {

/// A multiblock layout on a communicator (see the file comment).
template <std::size_t N>
class MultiblockDomain {
 public:
  /// Throws `Error(invalid_argument)` if the layout is for another rank count than `comm`'s.
  MultiblockDomain(const Communicator& comm, MultiblockLayout<N> layout)
      : layout_(checked(comm, std::move(layout))), domain_(comm, layout_.embedded()) {}

  [[nodiscard]] const MultiblockLayout<N>& layout() const noexcept { return layout_; }
  /// The domain of the embedded box set: its communicator, exchange cache and registry of arrays.
  /// Redistributing it leaves the multiblock layout behind (`update_ghosts` then refuses).
  [[nodiscard]] Domain<N>& domain() noexcept { return domain_; }
  [[nodiscard]] const Domain<N>& domain() const noexcept { return domain_; }

 private:
  static MultiblockLayout<N> checked(const Communicator& comm, MultiblockLayout<N> layout) {
    if (layout.comm_size() != comm.size())
      fail(ErrorCode::invalid_argument, "MultiblockDomain: the layout's blocks are distributed over ",
           layout.comm_size(), " ranks, the communicator has ", comm.size());
    return layout;
  }

  MultiblockLayout<N> layout_;
  Domain<N> domain_;
};

/// Values over every block of a multiblock domain, with ghosts (see the file comment). The array
/// keeps a pointer to its `MultiblockDomain`: the domain object must outlive it and stay in place.
template <class T, std::size_t N>
class MultiblockArray {
 public:
  /// Throws `Error(invalid_argument)` for periodic ghosts or ghosts wider than the layout's
  /// `max_ghost_width` (`check_multiblock_ghosts`), the same on every rank.
  MultiblockArray(const MultiblockDomain<N>& dom, const GhostSpec<N>& ghosts)
      : dom_(&dom), array_((check_multiblock_ghosts(dom.layout(), ghosts), dom.domain()), ghosts) {}

  [[nodiscard]] const MultiblockDomain<N>& domain() const noexcept { return *dom_; }
  /// The array over the embedded box set (embedded coordinates).
  [[nodiscard]] DistArray<T, N>& array() noexcept { return array_; }
  [[nodiscard]] const DistArray<T, N>& array() const noexcept { return array_; }
  [[nodiscard]] const GhostSpec<N>& ghosts() const noexcept { return array_.ghosts(); }

  /// This rank's patches (one per box it owns in any block).
  [[nodiscard]] std::size_t patch_count() const { return array_.patch_count(); }
  /// The block patch k belongs to.
  [[nodiscard]] std::size_t block_of_patch(std::size_t k) const {
    const auto& set = dom_->layout().embedded_set();
    return dom_->layout().block_of_box(set.boxes_of(dom_->domain().rank())[k]);
  }
  /// Patch k with its ghosts, in embedded coordinates.
  [[nodiscard]] auto local(std::size_t k) { return array_.local(k); }
  [[nodiscard]] auto local(std::size_t k) const { return array_.local(k); }

  /// The element at index p of block b (stored on this rank, owned or ghost).
  [[nodiscard]] T& at(std::size_t b, const Point<N>& p) { return array_.at(embed(b, p)); }
  [[nodiscard]] const T& at(std::size_t b, const Point<N>& p) const { return array_.at(embed(b, p)); }
  /// Calls `f(block, index in the block, element)` for every element this rank owns.
  template <class F>
  void for_each_owned(F&& f) {
    const MultiblockLayout<N>& mb = dom_->layout();
    array_.for_each_owned([&](const Point<N>& p, T& x) {
      const std::size_t b = mb.block_at(p);
      f(b, unembed(b, p), x);
    });
  }

  /// Collective: fills every ghost — each block's from its own cells, across interfaces from the
  /// glued block with the orientation applied — with one cached schedule and one kept mover.
  /// Throws `Error(invalid_argument)` if the domain was redistributed away from the layout.
  void update_ghosts() {
    const Domain<N>& dom = dom_->domain();
    const MultiblockLayout<N>& mb = dom_->layout();
    if (dom.distribution().hash() != mb.embedded().hash())
      fail(ErrorCode::invalid_argument,
           "MultiblockArray::update_ghosts: the domain was redistributed away from its multiblock layout");
    const int rank = dom.rank();
    const GhostSpec<N>& g = array_.ghosts();
    detail::run_kept("MultiblockArray::update_ghosts", dom.cache(), dom.comm(),
                     multiblock_ghost_schedule_key(mb, g, rank), {mb.embedded().hash()}, sizeof(T), nullptr,
                     halo_charge(mb.embedded().domain(), g, sizeof(T)),
                     [&] { return multiblock_ghost_schedule(mb, g, rank, &dom.cache()); }, array_.data(),
                     array_.data());
  }

 private:
  Point<N> embed(std::size_t b, const Point<N>& p) const {
    const Point<N>& off = dom_->layout().offset(b);
    Point<N> q;
    for (std::size_t d = 0; d < N; ++d) q[d] = p[d] + off[d];
    return q;
  }
  Point<N> unembed(std::size_t b, const Point<N>& p) const {
    const Point<N>& off = dom_->layout().offset(b);
    Point<N> q;
    for (std::size_t d = 0; d < N; ++d) q[d] = p[d] - off[d];
    return q;
  }

  const MultiblockDomain<N>* dom_;
  DistArray<T, N> array_;
};

/// Collective: PARTI's regular section move. Box `from.box` of block `from.block` of `src` onto box
/// `to.box` of block `to.block` of `dst` (the same array or another over the same domain), offsets
/// laid on by `o` (plan/multiblock_section_move.hpp): the cells the blocks' boxes hold are read and
/// written (a hole of a box-set block is neither), ghosts are not touched; one cached schedule in the domain's exchange cache and a kept `Mover`.
/// Throws `Error` (on every rank, nothing moved) for arrays over different domains, blocks out of
/// range, boxes outside their blocks or extents that do not agree under `o`.
template <class T, std::size_t N>
void copy_section(const MultiblockArray<T, N>& src, const BlockSection<N>& from, MultiblockArray<T, N>& dst,
                  const BlockSection<N>& to, const Orientation<N>& o = {}) {
  if (&src.domain() != &dst.domain())
    fail(ErrorCode::invalid_argument, "copy_section: the multiblock arrays are over different domains");
  const MultiblockLayout<N>& mb = src.domain().layout();
  check_section_move(mb, from, to, o);
  const Domain<N>& dom = src.domain().domain();
  const int rank = dom.rank();
  detail::run_kept("copy_section (multiblock)", dom.cache(), dom.comm(),
                   multiblock_section_move_key(mb, src.ghosts(), from, dst.ghosts(), to, o, rank),
                   {mb.embedded().hash()}, sizeof(T), nullptr, static_cast<std::size_t>(volume(to.box)) * sizeof(T),
                   [&] { return multiblock_section_move_schedule(mb, src.ghosts(), from, dst.ghosts(), to, o, rank,
                                                                 &dom.cache()); },
                   src.array().data(), dst.array().data());
}

}  // namespace tessera
