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

#include <mpi.h>

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

#include "tessera/array/domain.hpp"
#include "tessera/core/error.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/exchange/mover.hpp"
#include "tessera/plan/combine_op.hpp"
#include "tessera/plan/schedules.hpp"

namespace tessera {

/// A rank's view of one patch of its storage: a dense row-major N-d array whose local index runs
/// over [0, extents) with the owned part at [ghost_lo, ghost_lo + count). Along an interval axis
/// local index l holds global index `first + l - ghost_lo`; along a compacted (cyclic, irregular)
/// axis it is the compacted index. Plain loops over it are the fast way to sweep a patch.
template <class T, std::size_t N>
struct LocalView {
  T* data = nullptr;     ///< element at local index (0, ..., 0)
  Point<N> extents{};    ///< local extents, ghosts included
  Point<N> strides{};    ///< row-major strides in elements
  Point<N> ghost_lo{};   ///< ghost layers below the owned part
  Point<N> count{};      ///< owned extents (ghosts excluded)

  /// The element at local index `l` (ghosts included: 0 <= l < extents, unchecked).
  [[nodiscard]] T& operator()(const Point<N>& l) const noexcept {
    index_t off = 0;
    for (std::size_t d = 0; d < N; ++d) off += l[d] * strides[d];
    return data[off];
  }
};

/// A value and the lexicographically smallest global point where it occurs (`min_loc`, `max_loc`).
template <class T, std::size_t N>
struct ValueAt {
  T value{};      ///< the extreme value
  Point<N> at{};  ///< where it is
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
class DistArray final : private detail::DomainMember<N> {
  static_assert(std::is_trivially_copyable_v<T>, "DistArray<T, N>: T must be trivially copyable");

 public:
  /// The element type.
  using value_type = T;

  /// An array over `domain` with ghost layers `ghosts`, every element (ghosts too)
  /// value-initialised. Registers with the domain, so that `Domain::redistribute` moves it. Not
  /// collective, but arrays must be declared in the same order on every rank.
  /// Throws `Error(invalid_argument)` for ghosts along a cyclic, block-cyclic or irregular axis.
  explicit DistArray(const Domain<N>& domain, const GhostSpec<N>& ghosts = no_ghosts<N>())
      : domain_(domain),
        ghosts_(ghosts),
        layout_(StorageLayout<N>::make(domain.distribution(), domain.rank(), ghosts)),
        data_(static_cast<std::size_t>(layout_.size())) {
    domain_.attach(this);
  }
  ~DistArray() override {
    if (live_) domain_.detach(this);
  }
  DistArray(const DistArray&) = delete;
  DistArray& operator=(const DistArray&) = delete;
  DistArray& operator=(DistArray&&) = delete;
  /// Takes over `other`'s storage and its place in the domain; `other` is left detached and may
  /// only be destroyed.
  DistArray(DistArray&& other) noexcept
      : domain_(other.domain_),
        ghosts_(other.ghosts_),
        layout_(std::move(other.layout_)),
        data_(std::move(other.data_)),
        origin_(other.origin_),
        slack_rows_(other.slack_rows_),
        reallocations_(other.reallocations_),
        halo_(std::move(other.halo_)),
        accumulate_(std::move(other.accumulate_)),
        accumulate_op_(other.accumulate_op_),
        root_schedules_(std::move(other.root_schedules_)) {
    other.live_ = false;
    domain_.replace(&other, this);
  }

  /// The domain the array is declared over.
  [[nodiscard]] const Domain<N>& domain() const noexcept { return domain_; }
  /// The domain's current distribution.
  [[nodiscard]] const Distribution<N>& distribution() const noexcept { return domain_.distribution(); }
  /// The ghost layers this array keeps.
  [[nodiscard]] const GhostSpec<N>& ghosts() const noexcept { return ghosts_; }
  /// How this rank's storage is laid out (patches, axes, ghost widths).
  [[nodiscard]] const StorageLayout<N>& layout() const noexcept { return layout_; }
  /// Number of patches this rank stores (0 on a rank that owns nothing).
  [[nodiscard]] std::size_t patch_count() const noexcept { return layout_.patches().size(); }
  /// This rank's whole buffer, every patch, ghosts included (`layout().size()` elements; the
  /// spare rows kept for migrations are not part of it).
  [[nodiscard]] std::span<T> storage() noexcept { return {data(), static_cast<std::size_t>(layout_.size())}; }
  /// \copydoc storage()
  [[nodiscard]] std::span<const T> storage() const noexcept {
    return {data(), static_cast<std::size_t>(layout_.size())};
  }
  /// Start of this rank's buffer, where the layout's offset 0 lies (null when it stores nothing).
  [[nodiscard]] T* data() noexcept { return layout_.size() == 0 ? nullptr : data_.data() + origin_; }
  /// \copydoc data()
  [[nodiscard]] const T* data() const noexcept { return layout_.size() == 0 ? nullptr : data_.data() + origin_; }

  /// Elements allocated on this rank, spare rows included (>= `layout().size()`).
  [[nodiscard]] std::size_t capacity() const noexcept { return data_.size(); }
  /// A stable hash of what tells this array apart alike on every rank: its place among the arrays
  /// of its domain, the distribution, the ghost spec and the element size (not the values). What
  /// checked mode compares across ranks (exchange/collective_check.hpp).
  [[nodiscard]] std::uint64_t collective_identity() const noexcept {
    const Domain<N>& dom = domain_;
    std::uint64_t h = hash_combine(dom.member_index(this), dom.distribution().hash());
    return hash_combine(hash_combine(h, ghosts_.hash()), sizeof(T));
  }
  /// How many times a migration (`Domain::migrate`) had to allocate new storage for this array on
  /// this rank because the new part did not fit in the spare rows of the old buffer.
  [[nodiscard]] std::uint64_t reallocations() const noexcept { return reallocations_; }

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
  /// in row-major order of local storage.
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
  /// wrapping around periodic dimensions). The schedule is built once per distribution and cached
  /// in the domain; after the first call nothing allocates.
  void update_ghosts() {
    const auto checked = check_call("DistArray::update_ghosts");
    begin_update_ghosts();
    end_update_ghosts();
  }
  /// Collective: starts a ghost update (receives posted, faces sent). Owned elements may be read
  /// and written before `end_update_ghosts`, except those other ranks' ghosts mirror must not be
  /// written; ghosts must not be touched.
  void begin_update_ghosts() {
    const auto checked = check_call("DistArray::begin_update_ghosts");
    if (halo_ && halo_->in_flight())
      fail(ErrorCode::invalid_argument, "DistArray::begin_update_ghosts: a ghost update is already in flight");
    if (!halo_) {
      const Domain<N>& dom = domain_;
      halo_ = std::make_unique<Mover>(dom.comm(), halo_schedule(dom.distribution(), ghosts_, dom.rank(), &dom.cache()),
                                      sizeof(T));
    }
    halo_->start(buffer(), buffer());
  }
  /// Collective: completes the update `begin_update_ghosts` started.
  void end_update_ghosts() {
    const auto checked = check_call("DistArray::end_update_ghosts");
    if (!halo_ || !halo_->in_flight())
      fail(ErrorCode::invalid_argument, "DistArray::end_update_ghosts: no ghost update is in flight");
    halo_->wait();
  }
  /// True while a ghost update started by `begin_update_ghosts` is not yet completed.
  [[nodiscard]] bool ghost_update_in_flight() const noexcept { return halo_ && halo_->in_flight(); }

  /// Collective: the reverse of `update_ghosts` — every ghost element is combined with `op` into
  /// the element it mirrors (e.g. particle deposits summed into their owners). Ghosts keep their
  /// values. Throws `Error(invalid_argument)` if T does not support `op`.
  void accumulate_ghosts(CombineOp op = CombineOp::add) {
    const auto checked = check_call("DistArray::accumulate_ghosts", op);
    if (ghost_update_in_flight())
      fail(ErrorCode::invalid_argument, "DistArray::accumulate_ghosts: a ghost update is in flight");
    if (!accumulate_ || accumulate_op_ != op) {
      const CombineFn fn = combine_function<T>(op);
      const Domain<N>& dom = domain_;
      accumulate_.reset();
      accumulate_ = std::make_unique<Mover>(
          dom.comm(), halo_schedule(dom.distribution(), ghosts_, dom.rank(), &dom.cache(), true, op), sizeof(T), fn);
      accumulate_op_ = op;
    }
    accumulate_->run(buffer(), buffer());
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
    const Domain<N>& dom = domain_;
    check_root(where, root);
    std::int64_t given = static_cast<std::int64_t>(global_row_major.size());
    check_mpi(MPI_Bcast(&given, 1, MPI_INT64_T, root, dom.comm().raw()), "MPI_Bcast");
    if (given != volume(dom.box()))
      fail_argument(where, "global_row_major", detail::concat(given, " elements on root ", root),
                    detail::concat("must hold the volume ", volume(dom.box()), " of the domain ", dom.box()));
    const void* src = dom.rank() == root && given > 0 ? static_cast<const void*>(global_row_major.data())
                                                      : static_cast<const void*>(detail::empty_storage);
    dom.movers().run(dom.comm(), root_schedule(root, false), sizeof(T), whole_bytes(), src, buffer());
  }

  /// Collective: writes the whole array in row-major order of the domain box into `out` on
  /// `root`, which must hold exactly the box's volume; other ranks may pass an empty span (theirs
  /// is not touched). The form to call repeatedly: with the same root and distribution, a call
  /// after the first allocates nothing (the schedule and the mover are kept, see
  /// `Domain::movers()`), and `out` is written once, not zero-filled first.
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
    const Domain<N>& dom = domain_;
    check_root(where, root);
    std::int64_t given = static_cast<std::int64_t>(out.size());
    check_mpi(MPI_Bcast(&given, 1, MPI_INT64_T, root, dom.comm().raw()), "MPI_Bcast");
    if (given != volume(dom.box()))
      fail_argument(where, "out", detail::concat(given, " elements on root ", root),
                    detail::concat("must hold the volume ", volume(dom.box()), " of the domain ", dom.box()));
    gather_into(root, dom.rank() == root && given > 0 ? static_cast<void*>(out.data()) : nullptr);
  }

  /// Collective: the whole array in row-major order of the domain box on `root`; an empty vector
  /// elsewhere. Allocates (and zero-fills) the result on every call: a loop should call
  /// `gather_to(root, out)` with storage it keeps. Throws `Error(invalid_argument)` on every rank
  /// if `root` is not a rank.
  [[nodiscard]] std::vector<T> gather_to(int root) const {
    const auto checked = check_call("DistArray::gather_to", root);
    const Domain<N>& dom = domain_;
    check_root("DistArray::gather_to", root);
    std::vector<T> out(dom.rank() == root ? static_cast<std::size_t>(volume(dom.box())) : 0);
    gather_into(root, out.empty() ? nullptr : static_cast<void*>(out.data()));
    return out;
  }

  /// Collective: the whole array in row-major order of the domain box, on every rank.
  [[nodiscard]] std::vector<T> gather_to_all() const {
    const auto checked = check_call("DistArray::gather_to_all");
    const Domain<N>& dom = domain_;
    std::vector<T> out = gather_to(0);
    out.resize(static_cast<std::size_t>(volume(dom.box())));
    broadcast_bytes(out.data(), out.size() * sizeof(T), 0);
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
    T partial = identity;
    for_each_owned([&](const Point<N>&, const T& x) { partial = op(partial, x); });
    const std::vector<T> all = allgather_value(partial);
    T result = identity;
    for (const T& x : all) result = op(result, x);
    return result;
  }
  /// Collective: the sum of every element (see `reduce`).
  [[nodiscard]] T sum() const {
    const auto checked = check_call("DistArray::sum");
    return reduce(T{}, std::plus<>{});
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
    return extreme_loc("DistArray::min_loc", [](const T& a, const T& b) { return a < b; });
  }
  /// Collective: the largest element and the lexicographically smallest point holding it.
  [[nodiscard]] ValueAt<T, N> max_loc() const {
    const auto checked = check_call("DistArray::max_loc");
    return extreme_loc("DistArray::max_loc", [](const T& a, const T& b) { return b < a; });
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
    const Domain<N>& dom = domain_;
    if (axis >= N) fail_argument("DistArray::reduce_along", "axis", axis, detail::concat("must be < ", N));
    const Box<N>& box = dom.box();
    // Row-major strides over the box without `axis`.
    Point<N> strides{};
    index_t outputs = 1;
    for (std::size_t d = N; d-- > 0;) {
      if (d == axis) continue;
      strides[d] = outputs;
      outputs = checked_mul(outputs, extent(box, d), "DistArray::reduce_along");
    }
    std::vector<T> partial(static_cast<std::size_t>(outputs), identity);
    for_each_owned([&](const Point<N>& p, const T& x) {
      index_t k = 0;
      for (std::size_t d = 0; d < N; ++d) k += (p[d] - box.lo[d]) * strides[d];
      auto& slot = partial[static_cast<std::size_t>(k)];
      slot = op(slot, x);
    });
    return fold_slices(std::move(partial), identity, op);
  }

 private:
  // --- DomainMember ------------------------------------------------------------------------------
  [[nodiscard]] const GhostSpec<N>& member_ghosts() const noexcept override { return ghosts_; }
  [[nodiscard]] std::size_t member_element_size() const noexcept override { return sizeof(T); }
  [[nodiscard]] bool member_busy() const noexcept override { return ghost_update_in_flight(); }
  void member_stage(StorageLayout<N> layout, index_t spare_rows) override {
    // Spare rows only make sense for one patch whose outermost axis is an interval: rows added
    // there keep the strides, so a boundary move shifts no row that stays.
    const bool sliding = layout.patches().size() == 1 && layout.patches()[0].axes[0].is_interval();
    const index_t pad = sliding ? spare_rows : 0;
    const index_t row = layout.patches().empty() ? 0 : layout.patches()[0].strides[0];
    staged_.assign(static_cast<std::size_t>(layout.size() + 2 * pad * row), T{});
    staged_origin_ = pad * row;
    staged_slack_rows_ = pad;
    staged_layout_ = std::make_unique<StorageLayout<N>>(std::move(layout));
  }
  [[nodiscard]] std::optional<index_t> member_in_place_origin(const StorageLayout<N>& to) const override {
    return in_place_origin(to);
  }
  [[nodiscard]] void* member_at_origin(index_t origin) noexcept override {
    return data_.empty() ? static_cast<void*>(detail::empty_storage) : static_cast<void*>(data_.data() + origin);
  }
  void member_commit_in_place(StorageLayout<N> layout, index_t origin) noexcept override {
    layout_ = std::move(layout);
    origin_ = origin;
    halo_.reset();
    accumulate_.reset();
  }
  [[nodiscard]] index_t member_slack_rows() const noexcept override { return slack_rows_; }
  [[nodiscard]] const void* member_current() const noexcept override { return buffer(); }
  [[nodiscard]] void* member_staged() noexcept override {
    return staged_.empty() ? static_cast<void*>(detail::empty_storage)
                           : static_cast<void*>(staged_.data() + staged_origin_);
  }
  void member_commit(bool count_reallocation) noexcept override {
    data_.swap(staged_);
    std::vector<T>().swap(staged_);  // give the old storage back now, not at the next redistribution
    origin_ = staged_origin_;
    slack_rows_ = staged_slack_rows_;
    if (count_reallocation && !data_.empty()) ++reallocations_;
    layout_ = std::move(*staged_layout_);
    staged_layout_.reset();
    halo_.reset();  // bound to the old layout; rebuilt (from the cache) on the next update
    accumulate_.reset();
  }
  void member_discard() noexcept override {
    std::vector<T>().swap(staged_);
    staged_layout_.reset();
  }

  // --- helpers -----------------------------------------------------------------------------------

  // Checked mode (exchange/collective_check.hpp): the operation, which array of the domain this is,
  // its distribution, ghosts and element size, and `args` must be the same on every rank.
  template <class... Args>
  [[nodiscard]] detail::CollectiveScope check_call(const char* operation, const Args&... args) const {
    return detail::check_collective(domain_.comm(), operation, collective_identity(), args...);
  }

  [[nodiscard]] const void* buffer() const noexcept {
    return data_.empty() ? static_cast<const void*>(detail::empty_storage)
                         : static_cast<const void*>(data_.data() + origin_);
  }
  [[nodiscard]] void* buffer() noexcept {
    return data_.empty() ? static_cast<void*>(detail::empty_storage) : static_cast<void*>(data_.data() + origin_);
  }

  // Where layout `to` would start in the current buffer if every global index it stores kept its
  // address: one patch before and after, the same mapping along every axis but the outermost, and
  // the rows of `to` (ghosts included) inside the allocated rows. nullopt if any of that fails.
  [[nodiscard]] std::optional<index_t> in_place_origin(const StorageLayout<N>& to) const {
    if (layout_.patches().size() != 1 || to.patches().size() != 1) return std::nullopt;
    const PatchLayout<N>& a = layout_.patches()[0];
    const PatchLayout<N>& b = to.patches()[0];
    if (!a.axes[0].is_interval() || !b.axes[0].is_interval()) return std::nullopt;
    for (std::size_t d = 1; d < N; ++d) {
      const AxisMap& x = a.axes[d];
      const AxisMap& y = b.axes[d];
      if (x.is_interval() != y.is_interval() || x.count != y.count || x.ghost_lo != y.ghost_lo ||
          x.ghost_hi != y.ghost_hi)
        return std::nullopt;
      if (x.is_interval() ? x.first != y.first : (x.coord != y.coord || !(*x.compacted == *y.compacted)))
        return std::nullopt;
    }
    const index_t row = a.strides[0];
    const index_t allocated_rows = static_cast<index_t>(data_.size()) / row;
    const index_t first_row = a.axes[0].first - a.axes[0].ghost_lo - origin_ / row;  // global index of row 0
    const index_t new_row = b.axes[0].first - b.axes[0].ghost_lo - first_row;
    if (new_row < 0 || new_row + b.axes[0].extent() > allocated_rows) return std::nullopt;
    return new_row * row;
  }

  const PatchLayout<N>& patch_at(const char* where, std::size_t patch) const {
    if (patch >= layout_.patches().size())
      fail(ErrorCode::out_of_range, where, ": patch ", patch, " does not exist; rank ", domain_.rank(), " stores ",
           layout_.patches().size(), " patch(es)");
    return layout_.patches()[patch];
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
    const Section<N> s = Section<N>::from_box(Box<N>(p, p + Point<N>::filled(1)));
    const int patch = layout_.patch_for(s);
    if (patch < 0)
      fail(ErrorCode::out_of_range, "DistArray::at: point ", p, " is not stored on rank ", domain_.rank(),
           " (neither owned nor in a ghost layer)");
    return static_cast<std::size_t>(layout_.patches()[static_cast<std::size_t>(patch)].element_offset(p));
  }

  // Walks the owned part of every patch with an odometer over local indices; the global index of
  // each local index is tabulated per axis first, so compacted axes cost no lookup per element.
  template <class U, class F>
  void walk_owned(U* base, F& f) const {
    for (const auto& patch : layout_.patches()) {
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

  // Runs the gather schedule to `root` into `out` (null where this rank receives nothing).
  void gather_into(int root, void* out) const {
    const Domain<N>& dom = domain_;
    dom.movers().run(dom.comm(), root_schedule(root, true), sizeof(T), whole_bytes(), buffer(),
                     out ? out : static_cast<void*>(detail::empty_storage));
  }
  // Bytes of the whole array over all ranks: what a gather's or scatter's mover is charged.
  [[nodiscard]] std::size_t whole_bytes() const noexcept {
    return static_cast<std::size_t>(volume(domain_.box())) * sizeof(T);
  }

  // The schedule of a gather to (or scatter from) `root` under the current distribution. The last
  // one of each kind is kept with its root and distribution hash: building "everything on root"
  // to look it up in the schedule cache allocates, and a repeated gather must not. The same on
  // every rank (same calls, same hashes), so the mover cache, keyed by the schedule, hits alike.
  [[nodiscard]] const std::shared_ptr<const Schedule>& root_schedule(int root, bool gather) const {
    const Domain<N>& dom = domain_;
    RootSchedule& kept = root_schedules_[gather ? 0 : 1];
    const std::uint64_t dist = dom.distribution().hash();
    if (kept.schedule && kept.root == root && kept.distribution == dist) return kept.schedule;
    const auto root_dist = everything_on(root);
    kept.schedule = gather ? redistribution_schedule(dom.distribution(), ghosts_, root_dist, no_ghosts<N>(),
                                                     dom.rank(), &dom.cache())
                           : redistribution_schedule(root_dist, no_ghosts<N>(), dom.distribution(), ghosts_,
                                                     dom.rank(), &dom.cache());
    kept.root = root;
    kept.distribution = dist;
    return kept.schedule;
  }

  void check_root(const char* where, int root) const {
    if (root < 0 || root >= domain_.comm().size())
      fail_argument(where, "root", root,
                    detail::concat("is not a rank of the communicator (size ", domain_.comm().size(), ")"));
  }

  /// "Everything on `root`": its storage there is the row-major global array.
  [[nodiscard]] Distribution<N> everything_on(int root) const {
    std::array<DimSpec, N> specs;
    specs.fill(collapsed());
    return Distribution<N>(domain_.box(), ProcGrid<N>::from_ranks(domain_.comm().size(), Point<N>::filled(1), {root}),
                           specs);
  }

  void broadcast_bytes(void* data, std::size_t bytes, int root) const {
    // MPI counts are ints: send in chunks of at most 1 GiB.
    constexpr std::size_t chunk = std::size_t{1} << 30;
    auto* p = static_cast<unsigned char*>(data);
    for (std::size_t done = 0; done < bytes; done += chunk) {
      const std::size_t n = std::min(chunk, bytes - done);
      check_mpi(MPI_Bcast(p + done, static_cast<int>(n), MPI_BYTE, root, domain_.comm().raw()), "MPI_Bcast");
    }
  }

  /// Every rank's `value`, in rank order, on every rank.
  template <class V>
  [[nodiscard]] std::vector<V> allgather_value(const V& value) const {
    static_assert(std::is_trivially_copyable_v<V>);
    const int size = domain_.comm().size();
    std::vector<unsigned char> bytes(sizeof(V) * static_cast<std::size_t>(size));
    check_mpi(MPI_Allgather(&value, static_cast<int>(sizeof(V)), MPI_BYTE, bytes.data(), static_cast<int>(sizeof(V)),
                            MPI_BYTE, domain_.comm().raw()),
              "MPI_Allgather");
    std::vector<V> out(static_cast<std::size_t>(size));
    std::memcpy(static_cast<void*>(out.data()), bytes.data(), bytes.size());
    return out;
  }

  template <class Better>
  [[nodiscard]] ValueAt<T, N> extreme_loc(const char* where, Better better) const {
    struct Partial {
      T value;
      Point<N> at;
      int has;
    };
    Partial mine{T{}, Point<N>{}, 0};
    for_each_owned([&](const Point<N>& p, const T& x) {
      if (!mine.has || better(x, mine.value) || (!better(mine.value, x) && p < mine.at)) mine = Partial{x, p, 1};
    });
    const auto all = allgather_value(mine);
    Partial best{T{}, Point<N>{}, 0};
    for (const auto& q : all) {
      if (!q.has) continue;
      if (!best.has || better(q.value, best.value) || (!better(best.value, q.value) && q.at < best.at)) best = q;
    }
    if (!best.has) fail_argument(where, "domain", domain_.box(), "is empty: there is no extreme element");
    return {best.value, best.at};
  }

  /// Folds every rank's `partial` (one entry per output) in rank order, the same bits everywhere:
  /// rank c folds the outputs [c R / P, (c + 1) R / P) from every rank's contribution, then the
  /// folded slices are gathered on every rank.
  template <class Op>
  [[nodiscard]] std::vector<T> fold_slices(std::vector<T> partial, const T& identity, Op& op) const {
    const MPI_Comm comm = domain_.comm().raw();
    const int size = domain_.comm().size(), rank = domain_.rank();
    const auto outputs = static_cast<index_t>(partial.size());
    const auto slice_begin = [&](int c) { return outputs * c / size; };
    if (checked_mul(outputs, static_cast<index_t>(sizeof(T)), "DistArray::reduce_along") > INT_MAX)
      fail(ErrorCode::overflow, "DistArray::reduce_along: ", outputs, " outputs do not fit in one MPI count of bytes");
    std::vector<int> send_counts(static_cast<std::size_t>(size)), send_displs(static_cast<std::size_t>(size));
    std::vector<int> recv_counts(static_cast<std::size_t>(size)), recv_displs(static_cast<std::size_t>(size));
    const index_t mine = slice_begin(rank + 1) - slice_begin(rank);
    for (int c = 0; c < size; ++c) {
      const auto i = static_cast<std::size_t>(c);
      send_displs[i] = static_cast<int>(slice_begin(c) * static_cast<index_t>(sizeof(T)));
      send_counts[i] = static_cast<int>((slice_begin(c + 1) - slice_begin(c)) * static_cast<index_t>(sizeof(T)));
      recv_displs[i] = static_cast<int>(mine * c * static_cast<index_t>(sizeof(T)));
      recv_counts[i] = static_cast<int>(mine * static_cast<index_t>(sizeof(T)));
    }
    std::vector<T> received(static_cast<std::size_t>(mine * size));
    check_mpi(MPI_Alltoallv(partial.data(), send_counts.data(), send_displs.data(), MPI_BYTE, received.data(),
                            recv_counts.data(), recv_displs.data(), MPI_BYTE, comm),
              "MPI_Alltoallv");
    std::vector<T> folded(static_cast<std::size_t>(mine), identity);
    for (int q = 0; q < size; ++q)
      for (index_t k = 0; k < mine; ++k) {
        T& slot = folded[static_cast<std::size_t>(k)];
        slot = op(slot, received[static_cast<std::size_t>(mine * q + k)]);
      }
    for (int c = 0; c < size; ++c) {
      const auto i = static_cast<std::size_t>(c);
      recv_displs[i] = send_displs[i];
      recv_counts[i] = send_counts[i];
    }
    check_mpi(MPI_Allgatherv(folded.data(), static_cast<int>(mine * static_cast<index_t>(sizeof(T))), MPI_BYTE,
                             partial.data(), recv_counts.data(), recv_displs.data(), MPI_BYTE, comm),
              "MPI_Allgatherv");
    return partial;
  }

  Domain<N> domain_;
  GhostSpec<N> ghosts_;
  StorageLayout<N> layout_;
  std::vector<T> data_;                 // allocated rows: spare rows, the layout, spare rows
  index_t origin_ = 0;                  // elements from data_.data() to the layout's offset 0
  index_t slack_rows_ = 0;              // spare rows kept on each side at the last allocation
  std::uint64_t reallocations_ = 0;     // allocations made by migrations
  std::vector<T> staged_;                              // only during Domain::redistribute/migrate
  std::unique_ptr<StorageLayout<N>> staged_layout_;    // idem
  index_t staged_origin_ = 0;                          // idem
  index_t staged_slack_rows_ = 0;                      // idem
  // Declared after the storage so that they are destroyed first: a mover in flight completes in
  // its destructor and must still find the buffer it writes into.
  std::unique_ptr<Mover> halo_;
  std::unique_ptr<Mover> accumulate_;
  CombineOp accumulate_op_ = CombineOp::add;
  struct RootSchedule {
    int root = -1;
    std::uint64_t distribution = 0;  // hash of the distribution it was built under
    std::shared_ptr<const Schedule> schedule;
  };
  mutable std::array<RootSchedule, 2> root_schedules_;  // gather_to, scatter_from (see root_schedule)
  bool live_ = true;
};

/// Collective-free stencil sweep, ZPL's shift idiom: for every point p this rank owns in `out`
/// (within `region`, by default everywhere), `out[p] = f(acc, p)`, where `acc(q)` reads `in` at
/// global point q through its ghost layers. ZPL's `B := A@[0,-1] + A@[0,1]` is
/// \code
///   tessera::DistArray<double, 2> a(dom, tessera::ghosts<2>(1).faces_only()), b(dom);
///   a.update_ghosts();                               // ghosts must hold the neighbours' values
///   tessera::apply_stencil(a, b, [](const auto& acc, const tessera::Point<2>& p) {
///     return acc(p + tessera::Point<2>{0, -1}) + acc(p + tessera::Point<2>{0, 1});
///   });
/// \endcode
/// Both arrays must be over the same domain, whose distribution owns boxes (interval kinds along
/// every axis, or a user-defined distribution), and `in`'s ghosts must cover every offset `f`
/// reads (unchecked, for speed). Pass an interior `region` to overlap the sweep with
/// `begin_update_ghosts`/`end_update_ghosts`. Throws `Error(invalid_argument)` if the arrays are
/// over different domains, are the same array, or the distribution has cyclic or irregular axes.
template <class T, std::size_t N, class F>
  requires(N >= 1)
void apply_stencil(const DistArray<T, N>& in, DistArray<T, N>& out, F&& f, const Box<N>& region) {
  constexpr const char* where = "apply_stencil";
  if (!in.domain().same_as(out.domain()))
    fail_argument(where, "out", "an array over another domain", "must be over the domain of 'in'");
  if (static_cast<const void*>(&in) == static_cast<const void*>(&out))
    fail_argument(where, "out", "the input array", "must be another array: the sweep would read values it wrote");
  const Distribution<N>& dist = in.distribution();
  if (!dist.is_user_defined() && !dist.owns_boxes())
    fail_argument(where, "distribution", dist,
                  "has cyclic or irregular axes: neighbours are not in ghost layers there");
  T* out_data = out.data();
  for (std::size_t k = 0; k < out.layout().patches().size(); ++k) {
    const PatchLayout<N>& p = out.layout().patches()[k];
    const auto acc = in.stencil_access(k);
    for_each_point(intersect(p.owned_box(), region),
                   [&](const Point<N>& q) { out_data[p.element_offset(q)] = f(acc, q); });
  }
}

/// `apply_stencil` over every owned point.
template <class T, std::size_t N, class F>
  requires(N >= 1)
void apply_stencil(const DistArray<T, N>& in, DistArray<T, N>& out, F&& f) {
  apply_stencil(in, out, std::forward<F>(f), in.domain().box());
}

}  // namespace tessera
