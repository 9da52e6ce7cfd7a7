#pragma once
/// \file
/// `DistArray<T, N>`: the data of a distributed array (ZPL's parallel array, KeLP's XArray,
/// D3-ARC's darray): each rank's part in one dense buffer laid out by `StorageLayout` (one patch
/// per owned box, ghost layers along interval axes), global-index access to what is stored here,
/// ghost fills, whole-array I/O and deterministic reductions.
/// \code
///   tessera::Domain<2> dom(world, dist);
///   tessera::DistArray<double, 2> u(dom, tessera::ghosts<2>(1));
///   u.for_each_owned([](const tessera::Point<2>& i, double& x) { x = double(i[0] + i[1]); });
///   u.update_ghosts();                         // Collective: cached schedule, one message per neighbour
///   auto v = u.local();                        // v(l) with l a local index, ghosts included
///   double total = u.sum();                    // Collective: same bits on every rank
///   std::vector<double> all = u.gather_to(0);  // Collective: row-major global array on rank 0
/// \endcode
/// Every function marked "Collective:" must be called by all ranks of the domain's communicator in
/// the same order; in checked mode each first verifies that they did (docs/checked-mode.md).
///
/// The class gives types and collective checks to work done elsewhere: the untyped buffer, its
/// layout and its relayout by the domain are `Storage<N>` (storage.hpp), the reductions are in
/// reduce.hpp, whole-array scatter and gather in whole_array.hpp.

#include <array>
#include <climits>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "tessera/array/boundary_rules.hpp"
#include "tessera/array/domain.hpp"
#include "tessera/array/reduce.hpp"
#include "tessera/array/storage.hpp"
#include "tessera/array/whole_array.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/wrapping_arithmetic.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/exchange/kept_mover.hpp"
#include "tessera/exchange/mover.hpp"
#include "tessera/plan/combine_op.hpp"
#include "tessera/plan/schedule_builders.hpp"

namespace tessera {

namespace detail {
struct GhostBoundary;  // lets the fused update_ghosts(u, v, ...) apply each array's boundary rules
struct ForeignGhostUpdate;  // lets a MultiblockArray run its schedule as its array's split-phase update
}

/// A rank's view of one patch of its storage: a dense N-d array (row-major, or column-major for an
/// array made with `GhostSpec::column_major()`: `strides` tell) whose local index runs
/// over [0, extents) with the owned part at [ghost_lo, ghost_lo + count). Along an interval axis
/// local index l holds global index `first + l - ghost_lo`; along a compacted (cyclic, irregular)
/// axis it is the compacted index. Plain loops over it are the fast way to sweep a patch.
/// (A `std::mdspan` with `layout_stride` would say the same; GCC 12, the toolchain here, has no
/// <mdspan>, so this stays a small struct of its own.)
template <class T, std::size_t N>
struct LocalView {
  T* data = nullptr;     ///< element at local index (0, ..., 0)
  Point<N> extents{};    ///< local extents, ghosts included
  Point<N> strides{};    ///< strides in elements (last one 1 row-major, first one 1 column-major)
  Point<N> ghost_lo{};   ///< ghost layers below the owned part
  Point<N> count{};      ///< owned extents (ghosts excluded)

  /// The element at local index `l` (ghosts included: 0 <= l < extents, unchecked).
  [[nodiscard]] T& operator()(const Point<N>& l) const noexcept {
    index_t off = 0;
    for (std::size_t d = 0; d < N; ++d) off += l[d] * strides[d];
    return data[off];
  }
};

/// Read access to one patch of an array through global indices, ghosts included: what a stencil
/// function gets from `apply_stencil`.
template <class T, std::size_t N>
class StencilAccess {
 public:
  /// The value at global point q, which must be stored by the patch (owned or ghost; unchecked).
  [[nodiscard]] const T& operator()(const Point<N>& q) const noexcept {
    index_t off = 0;
    for (std::size_t d = 0; d < N; ++d) off += (q[d] - origin_[d]) * strides_[d];
    return base_[off];
  }
  /// The global box this patch stores (owned box grown by its ghost layers).
  [[nodiscard]] const Box<N>& stored_box() const noexcept { return stored_; }

 private:
  template <class U, std::size_t M>
    requires(M >= 1)
  friend class DistArray;
  const T* base_ = nullptr;
  Point<N> origin_{};  // global point at local index (0, ..., 0)
  Point<N> strides_{};
  Box<N> stored_{};
};

/// The part of a distributed array this rank stores, and the collective operations on it.
/// T must be trivially copyable (elements are moved as bytes). Not copyable; movable (the domain's
/// registry follows the move).
template <class T, std::size_t N>
  requires(N >= 1)
class DistArray final {
  static_assert(std::is_trivially_copyable_v<T>, "DistArray<T, N>: T must be trivially copyable");

 public:
  /// The element type.
  using value_type = T;

  /// An array over `domain` with ghost layers `ghosts`, its local storage in `ghosts.order`
  /// (row-major unless `ghosts.column_major()`), every element (ghosts too) value-initialised. Registers with the domain, so that `Domain::redistribute` moves it. Not
  /// collective, but arrays must be declared in the same order on every rank (under
  /// `TESSERA_MOVE_ALGORITHM=shared_memory` making and destroying one is collective over the
  /// node: its storage is a shared-memory window, docs/engine.md, "Single copy on the node").
  /// Throws `Error(invalid_argument)` for ghosts along a cyclic, block-cyclic or irregular axis.
  explicit DistArray(const Domain<N>& domain, const GhostSpec<N>& ghosts = no_ghosts<N>())
      : domain_(domain),
        storage_(domain.distribution(), domain.rank(), ghosts, detail::ElementBytes::of<T>(),
                 detail::shared_storage_requested() ? &domain.comm() : nullptr) {
    domain_.attach(&storage_);
  }
  ~DistArray() {
    // A ghost update still in flight (an exception between begin and end, say) is completed
    // before the storage goes: its mover outlives the array in the domain's cache.
    if (ghost_update_) {
      try {
        ghost_update_->wait();
      } catch (...) {  // a destructor must not throw; the failure was or will be reported elsewhere
      }
      storage_.watch(nullptr);
    }
    if (live_) domain_.detach(&storage_);
  }
  DistArray(const DistArray&) = delete;
  DistArray& operator=(const DistArray&) = delete;
  DistArray& operator=(DistArray&&) = delete;
  /// Takes over `other`'s storage and its place in the domain; `other` is left detached and may
  /// only be destroyed.
  DistArray(DistArray&& other) noexcept
      : domain_(other.domain_),
        storage_(std::move(other.storage_)),
        ghost_update_(std::move(other.ghost_update_)),
        boundary_(std::move(other.boundary_)),
        boundary_fills_(std::move(other.boundary_fills_)),
        boundary_dist_(other.boundary_dist_) {
    other.live_ = false;
    domain_.replace(&other.storage_, &storage_);
  }

  /// The domain the array is declared over.
  [[nodiscard]] const Domain<N>& domain() const noexcept { return domain_; }
  /// The domain's current distribution.
  [[nodiscard]] const Distribution<N>& distribution() const noexcept { return domain_.distribution(); }
  /// The ghost layers this array keeps.
  [[nodiscard]] const GhostSpec<N>& ghosts() const noexcept { return storage_.ghosts(); }
  /// How this rank's storage is laid out (patches, axes, ghost widths).
  [[nodiscard]] const StorageLayout<N>& layout() const noexcept { return storage_.layout(); }
  /// Number of patches this rank stores (0 on a rank that owns nothing). Throws
  /// `Error(invalid_argument)` under a user-defined local layout, which has no patches.
  [[nodiscard]] std::size_t patch_count() const { return layout().patches().size(); }
  /// This rank's whole buffer, every patch, ghosts included (`layout().size()` elements; the
  /// spare rows kept for migrations are not part of it).
  [[nodiscard]] std::span<T> storage() noexcept { return {data(), static_cast<std::size_t>(layout().size())}; }
  /// \copydoc storage()
  [[nodiscard]] std::span<const T> storage() const noexcept {
    return {data(), static_cast<std::size_t>(layout().size())};
  }
  /// Start of this rank's buffer, where the layout's offset 0 lies (null when it stores nothing).
  [[nodiscard]] T* data() noexcept { return static_cast<T*>(storage_.data()); }
  /// \copydoc data()
  [[nodiscard]] const T* data() const noexcept { return static_cast<const T*>(storage_.data()); }

  /// Elements allocated on this rank, spare rows included (>= `layout().size()`).
  [[nodiscard]] std::size_t capacity() const noexcept { return storage_.capacity(); }
  /// A stable hash of what tells this array apart alike on every rank: its place among the arrays
  /// of its domain, the distribution, the ghost spec and the element size (not the values). What
  /// checked mode compares across ranks (exchange/collective_check.hpp).
  [[nodiscard]] std::uint64_t collective_identity() const noexcept {
    const Domain<N>& dom = domain_;
    std::uint64_t h = hash_combine(dom.member_index(&storage_), dom.distribution().hash());
    return hash_combine(hash_combine(h, ghosts().hash()), sizeof(T));
  }
  /// How many times a migration (`Domain::migrate`) had to allocate new storage for this array on
  /// this rank because the new part did not fit in the spare rows of the old buffer.
  [[nodiscard]] std::uint64_t reallocations() const noexcept { return storage_.reallocations(); }

  /// The box patch `patch` owns. For a patch with compacted axes (cyclic kinds) this is the
  /// bounding box of what it owns, not the owned set. Throws `Error(out_of_range)` for a patch this
  /// rank does not have.
  [[nodiscard]] Box<N> owned_box(std::size_t patch = 0) const {
    return patch_at("DistArray::owned_box", patch).owned_box();
  }

  /// A strided view of patch `patch` (see `LocalView`).
  [[nodiscard]] LocalView<T, N> local(std::size_t patch = 0) {
    return make_view<T>(data(), patch_at("DistArray::local", patch));
  }
  /// \copydoc local()
  [[nodiscard]] LocalView<const T, N> local(std::size_t patch = 0) const {
    return make_view<const T>(data(), patch_at("DistArray::local", patch));
  }

  /// The element at global point `p`, which this rank must store (own, or hold in a ghost layer;
  /// a periodic ghost is addressed by its position outside the domain). Throws
  /// `Error(out_of_range)` otherwise.
  [[nodiscard]] T& at(const Point<N>& p) { return data()[offset_of(p)]; }
  /// \copydoc at()
  [[nodiscard]] const T& at(const Point<N>& p) const { return data()[offset_of(p)]; }

  /// Calls f(const Point<N>& global, T& value) for every element this rank owns, patch by patch,
  /// in row-major order of local indices whatever the storage order (so that reductions fold in
  /// the same order, and give the same bits, for row- and column-major arrays).
  template <class F>
  void for_each_owned(F&& f) {
    walk_owned(data(), f);
  }
  /// Calls f(const Point<N>& global, const T& value) for every element this rank owns.
  template <class F>
  void for_each_owned(F&& f) const {
    walk_owned(data(), f);
  }

  /// Read access to patch `patch` through global indices, ghosts included: what `apply_stencil`
  /// hands its function. Only for patches whose axes are all intervals (box-owning distributions).
  [[nodiscard]] StencilAccess<T, N> stencil_access(std::size_t patch) const {
    const PatchLayout<N>& p = patch_at("DistArray::stencil_access", patch);
    StencilAccess<T, N> acc;
    acc.base_ = data() + p.offset;
    acc.strides_ = p.strides;
    for (std::size_t d = 0; d < N; ++d) acc.origin_[d] = p.axes[d].first - p.axes[d].ghost_lo;
    acc.stored_ = p.storage_box();
    return acc;
  }


  // --- ghosts -----------------------------------------------------------------------------------

  /// Collective: fills every ghost layer from the owners of those indices (across empty ranks,
  /// wrapping around periodic dimensions). The schedule and the mover are made once per
  /// distribution, ghost spec and element type and kept in the domain's cache (`Domain::cache()`);
  /// after the first call nothing allocates. The first call agrees, with two small allreduces,
  /// that every rank could allocate them: if one could not, every rank throws
  /// `Error(out_of_memory)` and nothing moved (docs/arrays.md, "Memory").
  void update_ghosts() {
    const auto checked = check_call("DistArray::update_ghosts", boundary_.kinds().hash());
    begin_update_ghosts();
    end_update_ghosts();
  }
  /// Collective: starts a ghost update (receives posted, faces sent). Owned elements may be read
  /// and written before `end_update_ghosts`, except those other ranks' ghosts mirror must not be
  /// written; ghosts must not be touched. The boundary rules are applied by `end_update_ghosts`;
  /// a rule that reads cells no patch stores is rejected here, on every rank, before anything moves.
  void begin_update_ghosts() {
    // The kinds of the boundary rules too: a rank with rules agrees on their reads, one without does not.
    const auto checked = check_call("DistArray::begin_update_ghosts", boundary_.kinds().hash());
    if (ghost_update_)
      fail(ErrorCode::invalid_argument, "DistArray::begin_update_ghosts: a ghost update is already in flight");
    prepare_boundary();
    const Domain<N>& dom = domain_;
    const Distribution<N>& dist = dom.distribution();
    // Two arrays of one type and ghost spec in flight at once get two movers (the cache's slots).
    auto mover = detail::kept_mover("DistArray::update_ghosts", dom.cache(), dom.comm(),
                                    halo_schedule_key(dist, ghosts(), dom.rank()), {dist.hash()}, sizeof(T), nullptr,
                                    halo_charge(dist.domain(), ghosts(), sizeof(T)), true,
                                    [&] { return halo_schedule(dist, ghosts(), dom.rank(), &dom.cache()); });
    start_ghost_update(std::move(mover));
  }
  /// Collective: completes the update `begin_update_ghosts` started, then applies the boundary
  /// rules (`set_boundary`) to the ghost cells outside the domain.
  void end_update_ghosts() {
    const auto checked = check_call("DistArray::end_update_ghosts");
    if (!ghost_update_)
      fail(ErrorCode::invalid_argument, "DistArray::end_update_ghosts: no ghost update is in flight");
    finish_ghost_update();
    fill_boundary();
  }
  /// True while a ghost update started by `begin_update_ghosts` is not yet completed.
  [[nodiscard]] bool ghost_update_in_flight() const noexcept { return static_cast<bool>(ghost_update_); }

  /// Sets the rules that every later ghost update applies to the ghost cells outside the domain
  /// box, after its exchange (array/boundary_rules.hpp; which cells, in which order:
  /// plan/boundary_fill.hpp). Not collective, but must be called alike on every rank. Throws
  /// `Error(invalid_argument)`, leaving the rules as they were, for a rule along a periodic axis,
  /// a reflect wider than the domain, an extrapolation across a domain one cell wide, or while a
  /// ghost update is in flight. A rule whose reads a thin patch does not store is found by the
  /// next ghost update, which throws on every rank before anything moves.
  void set_boundary(BoundaryRules<T, N> rules) {
    constexpr const char* where = "DistArray::set_boundary";
    check_boundary_kinds(where, rules.kinds(), ghosts(), domain_.box());
    if (ghost_update_in_flight()) fail(ErrorCode::invalid_argument, where, ": a ghost update is in flight");
    boundary_ = std::move(rules);
    boundary_fills_.reset();
  }
  /// The boundary rules ghost updates apply (none by default).
  [[nodiscard]] const BoundaryRules<T, N>& boundary() const noexcept { return boundary_; }

  /// Collective: the reverse of `update_ghosts` — every ghost element is combined with `op` into
  /// the element it mirrors (e.g. particle deposits summed into their owners). Ghosts keep their
  /// values. Boundary rules play no part: the ghost cells they set mirror no element, so nothing
  /// is combined from them. Throws `Error(invalid_argument)` if T does not support `op`.
  void accumulate_ghosts(CombineOp op = CombineOp::add) {
    const auto checked = check_call("DistArray::accumulate_ghosts", op);
    if (ghost_update_in_flight())
      fail(ErrorCode::invalid_argument, "DistArray::accumulate_ghosts: a ghost update is in flight");
    // The combine function is part of the key: `add` on double and on int64_t (both 8 bytes) are
    // different movers.
    const CombineFn fn = combine_function<T>(op);
    const Domain<N>& dom = domain_;
    const Distribution<N>& dist = dom.distribution();
    detail::run_kept("DistArray::accumulate_ghosts", dom.cache(), dom.comm(),
                     halo_schedule_key(dist, ghosts(), dom.rank(), true, op), {dist.hash()},
                     sizeof(T), fn, halo_charge(dist.domain(), ghosts(), sizeof(T)),
                     [&] { return halo_schedule(dist, ghosts(), dom.rank(), &dom.cache(), true, op); },
                     storage_.buffer(), storage_.buffer());
  }

  // --- whole-array I/O --------------------------------------------------------------------------

  /// Collective: sets every owned element from `global_row_major`, the whole domain box in
  /// row-major order, read on `root` only (other ranks may pass an empty span). Ghosts are left as
  /// they were. With the same root and distribution, a call after the first allocates nothing.
  /// Throws `Error(invalid_argument)` on every rank if `root` is not a rank or the span on root
  /// does not hold exactly the box's volume.
  void scatter_from(int root, std::span<const T> global_row_major) {
    constexpr const char* where = "DistArray::scatter_from";
    const auto checked = check_call(where, root);
    detail::check_root(where, domain_, root);
    detail::check_image_size(where, "global_row_major", domain_, root, global_row_major.size());
    detail::scatter_image(domain_, storage_, root,
                          domain_.rank() == root ? global_row_major.data() : nullptr);
  }

  /// Collective: writes the whole array in row-major order of the domain box into `out` on
  /// `root`, which must hold exactly the box's volume; other ranks may pass an empty span (theirs
  /// is not touched). The form to call repeatedly: with the same root and distribution, a call
  /// after the first allocates nothing (the schedule and the mover are kept, see
  /// `Domain::cache()`), and `out` is written once, not zero-filled first.
  /// \code
  ///   std::vector<double> all(world.rank() == 0 ? volume(u.domain().box()) : 0);
  ///   for (int step = 0; step < steps; ++step) {
  ///     advance(u);
  ///     u.gather_to(0, all);   // Collective: all = u in row-major order, on rank 0
  ///   }
  /// \endcode
  /// Throws `Error(invalid_argument)` on every rank, before anything moves, if `root` is not a
  /// rank or the span on root does not hold exactly the box's volume.
  void gather_to(int root, std::span<T> out) const {
    constexpr const char* where = "DistArray::gather_to";
    // Its own name in checked mode: this form communicates once more (the size check) than the
    // vector form, so a rank calling one while another calls the other must be caught.
    const auto checked = check_call("DistArray::gather_to(root, out)", root);
    detail::check_root(where, domain_, root);
    detail::check_image_size(where, "out", domain_, root, out.size());
    detail::gather_image(domain_, storage_, root, domain_.rank() == root ? out.data() : nullptr);
  }

  /// Collective: the whole array in row-major order of the domain box on `root`; an empty vector
  /// elsewhere. Allocates (and zero-fills) the result on every call: a loop should call
  /// `gather_to(root, out)` with storage it keeps. Throws `Error(invalid_argument)` on every rank
  /// if `root` is not a rank.
  [[nodiscard]] std::vector<T> gather_to(int root) const {
    const auto checked = check_call("DistArray::gather_to", root);
    detail::check_root("DistArray::gather_to", domain_, root);
    std::vector<T> out(domain_.rank() == root ? static_cast<std::size_t>(volume(domain_.box())) : 0);
    detail::gather_image(domain_, storage_, root, out.empty() ? nullptr : out.data());
    return out;
  }

  /// Collective: the whole array in row-major order of the domain box, on every rank.
  [[nodiscard]] std::vector<T> gather_to_all() const {
    const auto checked = check_call("DistArray::gather_to_all");
    std::vector<T> out = gather_to(0);
    out.resize(static_cast<std::size_t>(volume(domain_.box())));
    domain_.comm().bcast(std::span<T>(out), 0);
    return out;
  }

  // --- reductions -------------------------------------------------------------------------------

  /// Collective: `op` folded over every element of the array starting from `identity`, the same
  /// bits on every rank (each rank folds its owned elements, then every rank folds the ranks'
  /// partial results in rank order). `op` must be associative and commutative and `identity` its
  /// identity; the result may differ in rounding between distributions, never between ranks.
  template <class Op>
  [[nodiscard]] T reduce(const T& identity, Op op) const {
    const auto checked = check_call("DistArray::reduce");
    return detail::reduce_array(*this, identity, op);
  }
  /// Collective: the sum of every element (see `reduce`). Integer sums wrap modulo 2^bits
  /// (`wrapping_add`) instead of overflowing.
  [[nodiscard]] T sum() const {
    const auto checked = check_call("DistArray::sum");
    return reduce(T{}, WrappingPlus{});
  }
  /// Collective: the smallest element. Throws `Error(invalid_argument)` for an empty domain.
  [[nodiscard]] T min() const {
    const auto checked = check_call("DistArray::min");
    return min_loc().value;
  }
  /// Collective: the largest element. Throws `Error(invalid_argument)` for an empty domain.
  [[nodiscard]] T max() const {
    const auto checked = check_call("DistArray::max");
    return max_loc().value;
  }
  /// Collective: the smallest element and the lexicographically smallest point holding it.
  [[nodiscard]] ValueAt<T, N> min_loc() const {
    const auto checked = check_call("DistArray::min_loc");
    return detail::extreme_loc(*this, "DistArray::min_loc", [](const T& a, const T& b) { return a < b; });
  }
  /// Collective: the largest element and the lexicographically smallest point holding it.
  [[nodiscard]] ValueAt<T, N> max_loc() const {
    const auto checked = check_call("DistArray::max_loc");
    return detail::extreme_loc(*this, "DistArray::max_loc", [](const T& a, const T& b) { return b < a; });
  }

  /// Collective: ZPL's partial reduction `op<< [axis]`: `op` folded along dimension `axis`, one
  /// result per point of the domain box with that axis removed, in row-major order of that box
  /// (a single element when N == 1); the same bits on every rank. `op` and `identity` as in `reduce`.
  /// \code
  ///   auto row_sums = a.reduce_along(1, 0.0, std::plus<>{});   // a over [0,m)x[0,n): m sums
  /// \endcode
  /// Cost: each rank sends its partial result for every output slice to the rank that folds that
  /// slice (an all-to-all of the output size), then the folded slices are gathered everywhere.
  template <class Op>
  [[nodiscard]] std::vector<T> reduce_along(std::size_t axis, const T& identity, Op op) const {
    const auto checked = check_call("DistArray::reduce_along", axis);
    return detail::reduce_along(*this, axis, identity, op);
  }

 private:
  friend struct detail::GhostBoundary;
  friend struct detail::ForeignGhostUpdate;

  // The two halves of a split-phase update around `mover` (this array's halo schedule, or another
  // schedule over its storage: detail::ForeignGhostUpdate).
  void start_ghost_update(ExecutorHandle<Mover> mover) {
    detail::discard_on_throw(domain_.cache(), mover.get(), [&] { mover->start(storage_.buffer(), storage_.buffer()); });
    storage_.watch(mover.get());  // the domain refuses to move the storage while it is in flight
    ghost_update_ = std::move(mover);
  }
  void finish_ghost_update() {
    // Released whatever happens: a mover that failed here leaves the cache (never started again).
    auto mover = std::move(ghost_update_);
    storage_.watch(nullptr);
    detail::discard_on_throw(domain_.cache(), mover.get(), [&] { mover->wait(); });
  }

  // Collective the first time after the rules or the distribution changed: makes this rank's fill
  // plan and agrees across ranks that every rule's reads are stored (a thin patch may not hold them).
  void prepare_boundary() {
    if (boundary_.none()) return;
    const std::uint64_t dist_hash = distribution().hash();
    if (boundary_fills_ && boundary_dist_ == dist_hash) return;
    const BoundaryKinds<N> kinds = boundary_.kinds();
    // Holes first: a side rule (reflect, extrapolate) may read a ghost cell over a hole.
    std::vector<BoundaryFill<N>> fills;
    if (kinds.holes != BoundaryKind::none && distribution().box_set() != nullptr)
      fills = hole_fills(layout(), domain_.box(), ghosts(), *distribution().box_set());
    for (auto& f : boundary_fills(layout(), domain_.box(), ghosts(), kinds)) fills.push_back(f);
    domain_.comm().agree(check_boundary_reads("DistArray::update_ghosts", fills, layout(), kinds, domain_.box()));
    boundary_fills_ = std::move(fills);
    boundary_dist_ = dist_hash;
  }
  // After the exchange: the ghost cells outside the domain from the rules (prepare_boundary first).
  void fill_boundary() {
    if (boundary_.none() || !boundary_fills_) return;
    detail::apply_boundary_fills(data(), layout(), *boundary_fills_, boundary_);
  }

  // Checked mode (exchange/collective_check.hpp): the operation, which array of the domain this is,
  // its distribution, ghosts and element size, and `args` must be the same on every rank.
  template <class... Args>
  [[nodiscard]] detail::CollectiveScope check_call(const char* operation, const Args&... args) const {
    return detail::check_collective(domain_.comm(), operation, collective_identity(), args...);
  }

  const PatchLayout<N>& patch_at(const char* where, std::size_t patch) const {
    if (patch >= layout().patches().size())
      fail(ErrorCode::out_of_range, where, ": patch ", patch, " does not exist; rank ", domain_.rank(), " stores ",
           layout().patches().size(), " patch(es)");
    return layout().patches()[patch];
  }

  template <class U>
  static LocalView<U, N> make_view(U* base, const PatchLayout<N>& p) {
    LocalView<U, N> v;
    v.data = base + p.offset;
    v.extents = p.extents();
    v.strides = p.strides;
    for (std::size_t d = 0; d < N; ++d) {
      v.ghost_lo[d] = p.axes[d].ghost_lo;
      v.count[d] = p.axes[d].count;
    }
    return v;
  }

  [[nodiscard]] std::size_t offset_of(const Point<N>& p) const {
    if (layout().custom()) {  // a user-defined local layout: owned points at local_offset, ghosts after
      const auto offset = layout().custom_stored_offset(p);
      if (!offset)
        fail(ErrorCode::out_of_range, "DistArray::at: point ", p, " is not stored on rank ", domain_.rank(),
             " (neither owned nor in a ghost layer)");
      return static_cast<std::size_t>(*offset);
    }
    const Section<N> s = Section<N>::from_box(Box<N>(p, p + Point<N>::filled(1)));
    const int patch = layout().patch_for(s);
    if (patch < 0)
      fail(ErrorCode::out_of_range, "DistArray::at: point ", p, " is not stored on rank ", domain_.rank(),
           " (neither owned nor in a ghost layer)");
    return static_cast<std::size_t>(layout().patches()[static_cast<std::size_t>(patch)].element_offset(p));
  }

  // Walks the owned part of every patch with an odometer over local indices; the global index of
  // each local index is tabulated per axis first, so compacted axes cost no lookup per element.
  template <class U, class F>
  void walk_owned(U* base, F& f) const {
    if (layout().custom()) {
      layout().for_each_custom_owned([&](const Point<N>& p, index_t offset) { f(p, base[offset]); });
      return;
    }
    for (const auto& patch : layout().patches()) {
      std::array<std::vector<index_t>, N> global;
      bool empty = false;
      for (std::size_t d = 0; d < N; ++d) {
        const AxisMap& a = patch.axes[d];
        global[d].resize(static_cast<std::size_t>(a.count));
        for (index_t i = 0; i < a.count; ++i) global[d][static_cast<std::size_t>(i)] = a.global(a.ghost_lo + i);
        empty = empty || a.count == 0;
      }
      if (empty) continue;
      std::array<index_t, N> at{};
      Point<N> p;
      for (std::size_t d = 0; d < N; ++d) p[d] = global[d][0];
      for (bool more = true; more;) {
        index_t off = patch.offset;
        for (std::size_t d = 0; d < N; ++d) off += (patch.axes[d].ghost_lo + at[d]) * patch.strides[d];
        f(static_cast<const Point<N>&>(p), base[off]);
        more = false;
        for (std::size_t d = N; d-- > 0;) {
          if (++at[d] < patch.axes[d].count) {
            p[d] = global[d][static_cast<std::size_t>(at[d])];
            more = true;
            break;
          }
          at[d] = 0;
          p[d] = global[d][0];
        }
      }
    }
  }

  Domain<N> domain_;
  Storage<N> storage_;  // registered with the domain, which moves it on redistribute/migrate
  // The mover of the ghost update in flight (empty otherwise), kept in the domain's cache (or
  // owned here if the cache would not keep it). Movers are found in the cache per call, by the
  // current distribution: nothing here goes stale when the domain moves the storage.
  ExecutorHandle<Mover> ghost_update_;
  BoundaryRules<T, N> boundary_;
  // The fill plan of the rules on this rank, made for the distribution whose hash is kept with it.
  std::optional<std::vector<BoundaryFill<N>>> boundary_fills_;
  std::uint64_t boundary_dist_ = 0;
  bool live_ = true;
};

namespace detail {
/// The two steps of a ghost update that apply an array's boundary rules, for the fused update.
struct GhostBoundary {
  template <class T, std::size_t N>
  static void prepare(DistArray<T, N>& a) {
    a.prepare_boundary();
  }
  template <class T, std::size_t N>
  static void fill(DistArray<T, N>& a) {
    a.fill_boundary();
  }
};
/// Runs a schedule other than the array's own halo (a multiblock domain's, interfaces included) as
/// the array's split-phase ghost update: the mover is held where `begin_update_ghosts` holds it, so
/// `ghost_update_in_flight`, the destructor and the domain's refusal to move busy storage treat
/// both alike. `finish` waits for it and applies no boundary rules.
struct ForeignGhostUpdate {
  template <class T, std::size_t N>
  static void start(DistArray<T, N>& a, ExecutorHandle<Mover> mover) {
    a.start_ghost_update(std::move(mover));
  }
  template <class T, std::size_t N>
  static void finish(DistArray<T, N>& a) {
    a.finish_ghost_update();
  }
};
}  // namespace detail

}  // namespace tessera

// apply_stencil, which is a region statement (assign with an around() read), is defined there:
// included last, so that code including only this header keeps finding it.
#include "tessera/array/region_statement.hpp"
