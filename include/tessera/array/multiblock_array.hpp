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
/// as `DistArray::update_ghosts` does; `begin_update_ghosts`/`end_update_ghosts` split it around
/// interior work, and `accumulate_ghosts(op)` runs it backwards (ghosts combined into what they mirror).
/// \code
///   tessera::MultiblockDomain<2> dom(world, tessera::MultiblockLayout<2>(blocks, interfaces));
///   tessera::MultiblockArray<double, 2> u(dom, tessera::ghosts<2>(1).faces_only());
///   u.for_each_owned([](std::size_t block, const tessera::Point<2>& p, double& x) { x = f(block, p); });
///   u.update_ghosts();  // Collective
///   dom.redistribute({block_0_elsewhere, block_1_elsewhere});  // Collective: every array follows
///   u.accumulate_ghosts(tessera::CombineOp::add);  // Collective: ghosts added into what they mirror
///   tessera::update_ghosts(u, v, w);  // Collective: several arrays' ghosts, one message per neighbour
///   tessera::copy_section(u, {0, box_in_0}, w, {2, box_in_2}, turn);  // PARTI's regular section move
/// \endcode

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "tessera/array/dist_array.hpp"
#include "tessera/array/domain.hpp"
#include "tessera/exchange/allocation_agreement.hpp"
#include "tessera/exchange/collective_check.hpp"
#include "tessera/exchange/fused_mover.hpp"
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
  /// Redistributing it directly leaves the multiblock layout behind (`update_ghosts` then refuses):
  /// use `redistribute` below.
  [[nodiscard]] Domain<N>& domain() noexcept { return domain_; }
  [[nodiscard]] const Domain<N>& domain() const noexcept { return domain_; }

  /// Collective: gives every block a new distribution (`blocks[b]` over the same box as block b
  /// now: block, cut, cyclic, a box set with holes, a processor subset...), the interfaces and
  /// `max_ghost_width` kept. Every array over the domain keeps its values wherever the old and the
  /// new layout both hold a cell (`Domain::redistribute` of the embedded box set, preserving: the
  /// blocks keep their places in the embedding, so a cell keeps its embedded index); cells only the
  /// new layout holds are 0, ghosts need an update. Throws `Error` on every rank with nothing
  /// changed: `invalid_argument` for another number of blocks, a block over another box, a layout
  /// for another rank count, or an array with a ghost update in flight; what `MultiblockLayout`
  /// and `Domain::redistribute` throw (`out_of_memory` included).
  void redistribute(std::vector<Distribution<N>> blocks) {
    constexpr const char* where = "MultiblockDomain::redistribute";
    if (blocks.size() != layout_.block_count())
      fail(ErrorCode::invalid_argument, where, ": ", blocks.size(), " blocks given, the layout has ", layout_.block_count());
    for (std::size_t b = 0; b < blocks.size(); ++b)
      if (blocks[b].domain() != layout_.block_box(b))
        fail(ErrorCode::invalid_argument, where, ": block ", b, " is given over ", blocks[b].domain(),
             ", but the block is ", layout_.block_box(b), " (a redistribution keeps the blocks' boxes)");
    MultiblockLayout<N> next = checked(domain_.comm(), MultiblockLayout<N>(std::move(blocks), layout_.interfaces(),
                                                                           layout_.max_ghost_width()));
    domain_.redistribute(next.embedded());  // every rank, or none, moves (Domain's agreement)
    layout_ = std::move(next);
  }

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

  /// The element at index p of block b, owned or ghost, from one of block b's patches on this rank
  /// (the owning one if any). Ghosts of neighbouring blocks may share embedded indices in the gap
  /// between them, so the lookup never asks the embedded array. Throws `Error(out_of_range)` for a
  /// block out of range or an index no patch of the block stores here.
  [[nodiscard]] T& at(std::size_t b, const Point<N>& p) { return array_.data()[offset_in_block(b, p)]; }
  [[nodiscard]] const T& at(std::size_t b, const Point<N>& p) const { return array_.data()[offset_in_block(b, p)]; }
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
  /// glued block with the orientation applied, block corners and edges across two or three
  /// interfaces (plan/multiblock_plan.hpp says which) — with one cached schedule and one kept mover
  /// (`begin_update_ghosts` then `end_update_ghosts`). Throws `Error(invalid_argument)` if the
  /// domain was redistributed away from the layout or an update is in flight.
  void update_ghosts() {
    begin_update_ghosts();
    end_update_ghosts();
  }
  /// Collective: starts `update_ghosts` (receives posted, owned and interface cells sent). Until
  /// `end_update_ghosts`, owned cells may be read, and written where no ghost mirrors them; ghosts
  /// must not be touched, and the domain refuses to be redistributed. Throws
  /// `Error(invalid_argument)` if an update of this array (or of `array()`) is already in flight or
  /// the domain was redistributed away from the layout; nothing started.
  void begin_update_ghosts() {
    constexpr const char* where = "MultiblockArray::begin_update_ghosts";
    const Domain<N>& dom = laid_out_domain(where);
    if (array_.ghost_update_in_flight()) fail(ErrorCode::invalid_argument, where, ": a ghost update is already in flight");
    const MultiblockLayout<N>& mb = dom_->layout();
    const int rank = dom.rank();
    const GhostSpec<N>& g = array_.ghosts();
    auto mover = detail::kept_mover("MultiblockArray::update_ghosts", dom.cache(), dom.comm(),
                                    multiblock_ghost_schedule_key(mb, g, rank), {mb.embedded().hash()}, sizeof(T),
                                    nullptr, halo_charge(mb.embedded().domain(), g, sizeof(T)), true,
                                    [&] { return multiblock_ghost_schedule(mb, g, rank, &dom.cache()); });
    detail::ForeignGhostUpdate::start(array_, std::move(mover));
  }
  /// Collective: completes the update `begin_update_ghosts` started. Throws
  /// `Error(invalid_argument)` if none is in flight.
  void end_update_ghosts() {
    if (!array_.ghost_update_in_flight())
      fail(ErrorCode::invalid_argument, "MultiblockArray::end_update_ghosts: no ghost update is in flight");
    detail::ForeignGhostUpdate::finish(array_);
  }
  /// True between `begin_update_ghosts` and `end_update_ghosts`.
  [[nodiscard]] bool ghost_update_in_flight() const noexcept { return array_.ghost_update_in_flight(); }

  /// The embedded domain, checked to be still laid out as the multiblock layout says (throws
  /// `Error(invalid_argument)` naming `where` otherwise).
  const Domain<N>& laid_out_domain(const char* where) const {
    const Domain<N>& dom = dom_->domain();
    if (dom.distribution().hash() != dom_->layout().embedded().hash())
      fail(ErrorCode::invalid_argument, where, ": the domain was redistributed away from its multiblock layout");
    return dom;
  }

  /// Collective: the reverse of `update_ghosts`: every ghost that an update fills is combined with
  /// `op` into the cell it mirrors — in its own block, or across an interface through the inverse
  /// orientation (KeLP's accumulate; finite-volume fluxes or particle deposits that cross a block
  /// face). Ghosts an update leaves alone (beyond walls, beyond a thinner block, over a hole) are
  /// not read; ghosts are not changed. One cached schedule (the ghost schedule reversed) and one
  /// kept mover per element type and `op`. Throws `Error(invalid_argument)` as `begin_update_ghosts`.
  void accumulate_ghosts(CombineOp op = CombineOp::add) {
    constexpr const char* where = "MultiblockArray::accumulate_ghosts";
    const Domain<N>& dom = laid_out_domain(where);
    if (array_.ghost_update_in_flight()) fail(ErrorCode::invalid_argument, where, ": a ghost update is in flight");
    const MultiblockLayout<N>& mb = dom_->layout();
    const int rank = dom.rank();
    const GhostSpec<N>& g = array_.ghosts();
    detail::run_kept(where, dom.cache(), dom.comm(), multiblock_accumulate_schedule_key(mb, g, rank),
                     {mb.embedded().hash()}, sizeof(T), combine_function<T>(op),
                     halo_charge(mb.embedded().domain(), g, sizeof(T)),
                     [&] { return multiblock_accumulate_schedule(mb, g, rank, &dom.cache()); }, array_.data(),
                     array_.data());
  }

 private:
  std::size_t offset_in_block(std::size_t b, const Point<N>& p) const {
    const MultiblockLayout<N>& mb = dom_->layout();
    if (b >= mb.block_count())
      fail(ErrorCode::out_of_range, "MultiblockArray::at: block ", b, " does not exist (the domain has ",
           mb.block_count(), ")");
    const Point<N> q = embed(b, p);
    const Section<N> s = Section<N>::from_box(Box<N>(q, q + Point<N>::filled(1)));
    const auto& patches = array_.layout().patches();
    std::optional<std::size_t> found;
    for (std::size_t k = 0; k < patches.size(); ++k) {
      if (block_of_patch(k) != b) continue;
      if (patches[k].owns(s)) return static_cast<std::size_t>(patches[k].element_offset(q));
      if (!found && patches[k].stores(s)) found = k;
    }
    if (!found)
      fail(ErrorCode::out_of_range, "MultiblockArray::at: point ", p, " of block ", b, " is not stored on rank ",
           dom_->domain().rank(), " (neither owned nor in a ghost layer of the block's patches)");
    return static_cast<std::size_t>(patches[*found].element_offset(q));
  }
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

/// Collective: PARTI's regular section move. Section `from` (box `from.box` of block `from.block`,
/// every `from.stride`-th index along each axis, all by default) of `src` onto section `to` of
/// `dst` (the same array or another over the same domain), point numbers laid on by `o`
/// (plan/multiblock_section_move.hpp): the cells the blocks' boxes hold are read and written (a
/// hole of a box-set block is neither), ghosts are not touched; one cached schedule in the domain's
/// exchange cache and a kept `Mover`, however many strided runs. Within one array, overlapping
/// sections move as if every cell were read before any is written: the source is then staged in a
/// copy of this rank's storage (allocated per call, agreed by all ranks before anything moves).
/// Throws `Error` (on every rank, nothing moved) for arrays over different domains, blocks out of
/// range, strides below 1, boxes outside their blocks or point counts that do not agree under `o`.
template <class T, std::size_t N>
void copy_section(const MultiblockArray<T, N>& src, const BlockSection<N>& from, MultiblockArray<T, N>& dst,
                  const BlockSection<N>& to, const Orientation<N>& o = {}) {
  constexpr const char* where = "copy_section (multiblock)";
  if (&src.domain() != &dst.domain())
    fail(ErrorCode::invalid_argument, "copy_section: the multiblock arrays are over different domains");
  const MultiblockLayout<N>& mb = src.domain().layout();
  check_section_move(mb, from, to, o);
  const Domain<N>& dom = src.domain().domain();
  const int rank = dom.rank();
  std::size_t points = 1;  // the mover's charge: the bytes of the moved points
  const Point<N> counts = section_counts(to);
  for (std::size_t d = 0; d < N; ++d) points *= static_cast<std::size_t>(counts[d]);
  const auto run = [&](const void* from_bytes) {
    detail::run_kept(where, dom.cache(), dom.comm(),
                     multiblock_section_move_key(mb, src.ghosts(), from, dst.ghosts(), to, o, rank),
                     {mb.embedded().hash()}, sizeof(T), nullptr, points * sizeof(T),
                     [&] {
                       return multiblock_section_move_schedule(mb, src.ghosts(), from, dst.ghosts(), to, o, rank,
                                                               &dom.cache());
                     },
                     from_bytes, dst.array().data());
  };
  // In one array, a cell this rank sends may be one it receives into or copies onto, and the
  // mover sends in place: the boxes meeting is the same test on every rank.
  if (&src == &dst && from.block == to.block && intersects(from.box, to.box))
    detail::run_from_staged_copy(dom.comm(), where, src.array().storage(), run);
  else
    run(src.array().data());
}

/// Collective: fills the ghosts of every multiblock array given, as each array's `update_ghosts()`
/// would, in one execution with one message per neighbour carrying every array's cells when that is
/// faster (`update_ghosts(DistArray&...)`'s rule, array/fused_ghosts.hpp: fused while the largest
/// fused message is at most `kMaxFusedMessageBytes`, decided once and kept in the domain's exchange
/// cache, the same on every rank); otherwise every array's update is started, then every one
/// completed. The arrays may hold different element types but must be over the same multiblock
/// domain with equal ghost specs. Throws `Error(invalid_argument)` on every rank, nothing moved, if
/// they are over different domains, have other ghosts, one has an update in flight, or the domain
/// was redistributed away from its layout.
template <std::size_t N, class T0, class... Ts>
requires(N >= 1) void update_ghosts(MultiblockArray<T0, N>& first, MultiblockArray<Ts, N>&... rest) {
  constexpr const char* where = "update_ghosts (multiblock)";
  constexpr std::size_t count = 1 + sizeof...(Ts);
  const std::array<std::size_t, count> sizes{sizeof(T0), sizeof(Ts)...};
  const Domain<N>& dom = first.laid_out_domain(where);
  const auto checked = detail::check_collective(dom.comm(), where, count, sizes);
  std::size_t k = 0;
  const auto check = [&](const auto& a) {
    if (&a.domain() != &first.domain())
      fail_argument(where, "arrays", detail::concat("array ", k, " over another multiblock domain"),
                    "must all be over the domain of the first array");
    if (!(a.ghosts() == first.ghosts()))
      fail_argument(where, "arrays", detail::concat("array ", k, " with other ghosts (", a.ghosts(), ")"),
                    "must all have the ghost spec of the first array");
    if (a.ghost_update_in_flight())
      fail_argument(where, "arrays", detail::concat("array ", k, " with a ghost update in flight"),
                    "must complete it (end_update_ghosts) first");
    ++k;
  };
  check(first);
  (check(rest), ...);
  if constexpr (count == 1) {
    first.update_ghosts();
  } else {
    const MultiblockLayout<N>& mb = first.domain().layout();
    const GhostSpec<N>& g = first.ghosts();
    const int rank = dom.rank();
    std::size_t bytes_per_element = 0;
    for (std::size_t es : sizes) bytes_per_element += es;
    const ExecutorKey key(multiblock_ghost_schedule_key(mb, g, rank), sizes);
    auto fused = detail::agreed_executor<FusedMover>(
        where, dom.cache(), dom.comm(), key, {mb.embedded().hash()},
        halo_charge(mb.embedded().domain(), g, bytes_per_element), bytes_per_element,
        [&] { return multiblock_ghost_schedule(mb, g, rank, &dom.cache()); },
        [&](std::shared_ptr<const Schedule> s) { return make_fused_mover_if_small(dom.comm(), std::move(s), sizes); });
    if (fused) {
      const auto at = [](auto& a) -> void* {
        return a.array().data() != nullptr ? static_cast<void*>(a.array().data())
                                           : static_cast<void*>(detail::empty_storage);
      };
      const std::array<void*, count> dst{at(first), at(rest)...};
      const std::array<const void*, count> src{at(first), at(rest)...};
      detail::discard_on_throw(dom.cache(), fused.get(), [&] { fused->run(src, dst); });
    } else {
      first.begin_update_ghosts();
      (rest.begin_update_ghosts(), ...);
      first.end_update_ghosts();
      (rest.end_update_ghosts(), ...);
    }
  }
}

}  // namespace tessera
