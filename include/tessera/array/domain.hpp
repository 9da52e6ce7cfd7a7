#pragma once
/// \file
/// `Domain<N>`: a global box bound to a distribution, shared by every array declared over it
/// (Chapel's domain, ZPL's region bound to a distribution). Changing the domain's distribution or
/// extent moves every array over it in one collective step (ZPL's `<==` and `<=#`).
/// \code
///   tessera::Domain<2> dom(world, tessera::Distribution<2>(box, grid, {tessera::block(), tessera::block()}));
///   tessera::DistArray<double, 2> u(dom, tessera::ghosts<2>(1));
///   tessera::DistArray<int, 2> mask(dom);
///   dom.redistribute(tessera::Distribution<2>(box, grid, {tessera::cut(rows), tessera::block()}),
///                    tessera::Redistribution::preserve);   // u and mask follow, values kept
/// \endcode
/// A `Domain` is a handle: copies share one state (communicator, distribution, exchange cache and
/// the registry of arrays). The `Communicator` is not owned: it must outlive every copy of the
/// domain and every array declared over it.
///
/// Arrays register in the order they are constructed. That order fixes the order in which their
/// movers take message tags, so arrays over a domain must be declared in the same order on every
/// rank (as every collective object must be).

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "tessera/array/storage.hpp"
#include "tessera/core/error.hpp"
#include "tessera/exchange/allocation_agreement.hpp"
#include "tessera/exchange/collective_check.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/exchange/mover.hpp"
#include "tessera/layout/distribution.hpp"
#include "tessera/layout/local_layout.hpp"
#include "tessera/layout/restrict.hpp"
#include "tessera/plan/exchange_cache.hpp"
#include "tessera/plan/ghost_spec.hpp"
#include "tessera/plan/schedule_builders.hpp"
#include "tessera/plan/storage_layout.hpp"

namespace tessera {

/// What happens to the values of the arrays when a domain changes its distribution or extent.
enum class Redistribution {
  preserve,     ///< ZPL `<==`: every index present before and after keeps its value; new ones are T{}
  destructive,  ///< ZPL `<=#`: storage is reshaped and value-initialised; nothing is moved
};

/// `preserve` or `destructive`.
[[nodiscard]] constexpr const char* to_string(Redistribution mode) noexcept {
  switch (mode) {
    case Redistribution::preserve: return "preserve";
    case Redistribution::destructive: return "destructive";
  }
  return "unknown";
}

template <class T, std::size_t N>
  requires(N >= 1)
class DistArray;

namespace detail {

/// Something over a domain, besides its dense arrays, that must move when the domain changes its
/// distribution: a sparse subdomain and its arrays (array/sparse_domain.hpp). `redistribute` and
/// `migrate` stage every follower before the dense arrays move and commit them after, or discard
/// them if anything fails, so followers and arrays change together or not at all.
template <std::size_t N>
class DomainFollower {
 public:
  virtual ~DomainFollower() = default;
  /// Collective: prepares the follower's state under `to` beside the current one. Throws the same
  /// `Error` on every rank (then nothing is staged anywhere).
  virtual void stage(const Distribution<N>& from, const Distribution<N>& to, Redistribution mode) = 0;
  /// Makes the staged state current (after the dense arrays moved).
  virtual void commit() noexcept = 0;
  /// Drops the staged state.
  virtual void discard() noexcept = 0;
};

}  // namespace detail


/// A global box, its distribution over a communicator, an exchange cache, and the arrays declared
/// over it. Cheap to copy: copies share one state.
template <std::size_t N>
  requires(N >= 1)
class Domain {
 public:
  /// A domain over `dist.domain()` distributed by `dist` over the ranks of `comm`. `comm` is kept
  /// by address: it must outlive this domain, its copies and its arrays. Not collective (nothing
  /// is communicated), but every rank must build the same domain.
  /// Throws `Error(invalid_argument)` if `dist` is for another number of ranks than `comm` has.
  Domain(const Communicator& comm, const Distribution<N>& dist) : state_(std::make_shared<State>(comm, dist)) {
    if (dist.comm_size() != comm.size())
      fail_argument("Domain", "dist", dist,
                    detail::concat("is for ", dist.comm_size(), " ranks but the communicator has ", comm.size()));
    // Pure and the same on every rank, so a bad local layout is an Error on every rank.
    check_local_layout_if_affordable(dist, checked_mode());
  }

  /// The communicator every collective call of the domain and its arrays runs on.
  [[nodiscard]] const Communicator& comm() const noexcept { return *state_->comm; }
  /// This process' rank in `comm()`.
  [[nodiscard]] int rank() const noexcept { return state_->comm->rank(); }
  /// The global index set (the distribution's domain).
  [[nodiscard]] const Box<N>& box() const noexcept { return state_->dist.domain(); }
  /// The current distribution.
  [[nodiscard]] const Distribution<N>& distribution() const noexcept { return state_->dist; }
  /// The one cache of the domain (plan/exchange_cache.hpp): the schedules of its arrays' movements
  /// (ghost fills, remaps into it, gathers, redistributions) and the movers that run them, shared
  /// by arrays with equal ghost specs and element types, bounded (`set_limits`, alike on every
  /// rank) and rid of a distribution's entries when the domain leaves it. `cache().stats()` counts
  /// its hits and misses.
  [[nodiscard]] ExchangeCache& cache() const noexcept { return state_->cache; }
  /// Bytes one element of every array over this domain takes together (what a migration moves
  /// per element that changes owner).
  [[nodiscard]] std::size_t bytes_per_element() const noexcept {
    std::size_t bytes = 0;
    for (const auto* a : state_->arrays) bytes += a->element_size();
    return bytes;
  }
  /// Number of arrays currently declared over this domain.
  [[nodiscard]] std::size_t array_count() const noexcept { return state_->arrays.size(); }
  /// True if both handles share one state (the same domain, not merely equal ones).
  [[nodiscard]] bool same_as(const Domain& other) const noexcept { return state_ == other.state_; }

  /// Collective: moves every array over this domain to the distribution `to` in one step (every
  /// array's mover is started before any is waited on), then makes `to` the domain's
  /// distribution. With `preserve`, every index in both the old and the new box keeps its value,
  /// indices only in the new box are value-initialised (T{}) and indices only in the old one
  /// vanish; with `destructive`, all storage is value-initialised. Ghost layers are
  /// value-initialised either way: call `update_ghosts()` before reading them.
  /// \code
  ///   dom.redistribute(Distribution<2>(box, grid, {cyclic(), block()}), Redistribution::preserve);
  ///   dom.redistribute(Distribution<2>(bigger_box, grid, {block(), block()}));  // grows the extent
  /// \endcode
  /// Throws `Error` on every rank, before anything moves, if `to` is for another number of ranks,
  /// `mode` is not a `Redistribution`, an array's ghost spec is impossible under `to` (ghosts along
  /// a cyclic dimension) or an array has a ghost update in flight.
  /// Memory: every array's new storage at once, beside the old, plus message buffers of at most
  /// the bytes this rank sends and receives (docs/arrays.md, "Memory"). If an allocation fails on
  /// any rank, every rank throws `Error(out_of_memory)` before anything moves and every array keeps
  /// its values and distribution; that agreement costs two one-integer allreduces per call.
  void redistribute(const Distribution<N>& to, Redistribution mode = Redistribution::preserve) {
    constexpr const char* where = "Domain::redistribute";
    const auto checked = detail::check_collective(comm(), where, to, mode);
    if (mode != Redistribution::preserve && mode != Redistribution::destructive)
      fail_argument(where, "mode", static_cast<int>(mode), "is not a tessera::Redistribution");
    refuse_region(where);
    check_target(where, to);
    Change change = stage_change(where, to, mode, false, [](Relayout&) {}, redistribution_planner(to, mode));
    commit_change(change);
  }

  /// Collective: moves every array over this domain to `to`, which must cover the same box,
  /// keeping every value: the move of incremental balancing (D3-ARC's `d3_migrate`). Where a
  /// rank's new part fits in the rows its buffer keeps to spare along the outermost axis (D3-ARC's
  /// spare rows, Fig. 7), the buffer stays: rows that stay put are not touched and only the
  /// elements that change owner travel. Otherwise the rank allocates new storage with rows to
  /// spare (see `set_spare_rows`), which the array counts in `reallocations()`. With storage in
  /// shared-memory windows (`TESSERA_MOVE_ALGORITHM=shared_memory`) an array stays in its buffer
  /// only where it fits on every rank (windows are made collectively; one more allreduce). Ghost layers hold
  /// stale values afterwards: call `update_ghosts()` before reading them.
  /// Returns the seconds the move took, the largest over the ranks (the same on every rank), which
  /// is what a cost model of migrations learns from.
  /// Throws `Error` on every rank, before anything moves, if `to` covers another box or is for
  /// another number of ranks, the domain's or `to`'s distribution has a flooded axis, an array's
  /// ghosts are impossible under `to`, or an array has a ghost update in flight; and
  /// `Error(out_of_memory)` as `redistribute` does.
  double migrate(const Distribution<N>& to) {
    constexpr const char* where = "Domain::migrate";
    const auto checked = detail::check_collective(comm(), where, to);
    refuse_region(where);
    State& s = *state_;
    if (to.domain() != s.dist.domain())
      fail_argument(where, "to", to.domain(),
                    detail::concat("covers another box than the domain's ", s.dist.domain(),
                                   " (use redistribute to change the extent)"));
    if (to.is_flooded() || s.dist.is_flooded())
      fail_argument(where, "to", to,
                    detail::concat("is a migration ", s.dist.is_flooded() ? "from" : "to",
                                   " a flooded distribution: balancing moves cuts, and a flooded axis has none "
                                   "(use redistribute)"));
    check_target(where, to);
    const double started = Communicator::wtime();
    migrate_arrays(where, to);
    return s.comm->max(Communicator::wtime() - started);
  }

  /// A domain over `box`, a box inside this domain's, aligned with this domain's distribution
  /// (ZPL's regions over one `blk(lo, hi)` distribution): each index of `box` has the owner it has
  /// here (`restricted`, layout/restrict.hpp), so arrays over the interior, a boundary strip and the
  /// whole grid sit on the same ranks and `copy_section` between them moves nothing between ranks.
  /// \code
  ///   tessera::Domain<2> grid(comm, tessera::Distribution<2>(tessera::Box<2>({0, 0}, {66, 66}), pg, specs));
  ///   tessera::Domain<2> interior = grid.region(tessera::Box<2>({1, 1}, {65, 65}));
  ///   tessera::Domain<2> west = grid.region(tessera::Box<2>({0, 0}, {66, 1}));
  ///   tessera::DistArray<double, 2> u(grid), f(interior), b(west);
  ///   tessera::copy_section(f, interior.box(), u, interior.box().lo);  // purely local
  ///   grid.redistribute(other, tessera::Redistribution::preserve);     // u, f and b all follow
  /// \endcode
  /// The region follows this domain: when it is redistributed or migrated (another kind, another
  /// grid, preserving or destructive), every array over every region moves in the same collective
  /// step, to the restriction of the new distribution, and the regions' followers (sparse
  /// subdomains, regions of regions) with them; if anything fails on any rank, nothing changes
  /// anywhere. A region cannot be redistributed itself (that would break the alignment): change
  /// its parent. A redistribution of the parent to a box that no longer holds a region is refused
  /// on every rank before anything moves. The region keeps this domain alive; declare regions
  /// alike on every rank. Not collective. Throws `Error(out_of_range)` naming both boxes if `box`
  /// is not inside this domain's box, `Error(invalid_argument)` for a box with hi < lo.
  [[nodiscard]] Domain region(const Box<N>& box) const {
    constexpr const char* where = "Domain::region";
    for (std::size_t d = 0; d < N; ++d)
      if (box.hi[d] < box.lo[d]) fail_argument(where, "box", box, detail::concat("has hi < lo along dimension ", d));
    if (!contains(this->box(), box))
      fail(ErrorCode::out_of_range, where, ": argument 'box' = ", box, " is not inside the domain's box ", this->box());
    Domain child(comm(), restricted(distribution(), box));
    child.state_->link = std::make_unique<RegionLink>(state_, child.state_);
    state_->followers.push_back(child.state_->link.get());
    return child;
  }
  /// True for a domain made by `region`.
  [[nodiscard]] bool is_region() const noexcept { return state_->link != nullptr; }
  /// The domain this one is a region of. Throws `Error(invalid_argument)` if it is none.
  [[nodiscard]] Domain parent() const {
    if (!state_->link) fail_argument("Domain::parent", "domain", box(), "is not a region of another domain");
    return Domain(state_->link->parent);
  }

  /// For array-layer objects that follow the domain (a sparse subdomain): registers `f`, whose
  /// `stage`/`commit`/`discard` every later `redistribute` and `migrate` call. `f` must detach
  /// itself before it dies. Not collective, but attach alike on every rank.
  void attach_follower(detail::DomainFollower<N>* f) const { state_->followers.push_back(f); }
  /// Unregisters `f`.
  void detach_follower(const detail::DomainFollower<N>* f) const noexcept {
    auto& v = state_->followers;
    v.erase(std::remove(v.begin(), v.end(), f), v.end());
  }

 private:
  // Every array and follower of migrate: per array in place or into new storage.
  void migrate_arrays(const char* where, const Distribution<N>& to) {
    const int rank = state_->comm->rank();
    Change change = stage_change(
        where, to, Redistribution::preserve, true,
        // Per array, in place or into new storage. The choice is local (it changes only the copies
        // a rank makes to itself, never what travels between ranks), except for storage in
        // shared-memory windows, where relayout makes every rank agree on it (agree_in_place).
        [&](Relayout& r) { r.in_place = r.storage->in_place_origin(r.layout); },
        [&](State& st, Relayout& r) {
          const GhostSpec<N>& g = r.storage->ghosts();
          if (r.in_place) {
            r.schedule = in_place_migration_schedule(st.dist, to, g, rank, &st.cache);
          } else {
            r.spare_rows = spare_rows_for(to, *r.storage);
            r.schedule = redistribution_schedule(st.dist, g, to, g, rank, &st.cache);
          }
        });
    commit_change(change);
  }

  // How redistribute plans one array's movement to `to`: the section move of the indices in both
  // boxes (preserve), or nothing (destructive). Arrays with equal ghost specs get the same
  // schedule from the cache.
  auto redistribution_planner(const Distribution<N>& to, Redistribution mode) const {
    const Box<N> common = intersect(distribution().domain(), to.domain());
    const bool move = mode == Redistribution::preserve && !common.empty();
    return [common, move, me = this->rank(), &to](State& s, Relayout& r) {
      const GhostSpec<N>& g = r.storage->ghosts();
      if (move)
        r.schedule = section_move_schedule(s.dist, g, common, to, g, common, MotionPlan<N>::identity(), me, &s.cache);
    };
  }

 public:

  /// Rows to spare on each side of a rank's part along the outermost axis when a migration
  /// allocates new storage, as a fraction of an even share of that axis (D3-ARC's spare rows).
  /// When an array that already had spare rows must reallocate again, it gets at least twice as
  /// many (geometric growth, as `std::vector` grows its capacity), so a steady drift reallocates
  /// O(log) times. Default 0.25; 0 turns spare rows off. Not collective, but set it alike on every
  /// rank. Throws `Error(invalid_argument)` for a negative or non-finite fraction.
  void set_spare_rows(double fraction_of_even_share) {
    if (!(fraction_of_even_share >= 0) || fraction_of_even_share > 1e6)
      fail_argument("Domain::set_spare_rows", "fraction_of_even_share", fraction_of_even_share,
                    "must be a finite number >= 0");
    state_->spare_fraction = fraction_of_even_share;
  }
  /// The fraction set by set_spare_rows.
  [[nodiscard]] double spare_rows_fraction() const noexcept { return state_->spare_fraction; }

 private:
  template <class T, std::size_t M>
    requires(M >= 1)
  friend class DistArray;

  struct RegionLink;
  struct State {
    State(const Communicator& c, const Distribution<N>& d) : comm(&c), dist(d) {}
    const Communicator* comm;
    Distribution<N> dist;
    ExchangeCache cache;
    double spare_fraction = 0.25;
    std::vector<Storage<N>*> arrays;  // in declaration order: the order movers take tags
    std::vector<detail::DomainFollower<N>*> followers;  // sparse subdomains and regions, in declaration order
    std::unique_ptr<RegionLink> link;                   // a region's tie to its parent, else null
  };
  explicit Domain(std::shared_ptr<State> s) noexcept : state_(std::move(s)) {}

  // One array's part of a change of distribution: its new layout, where that goes (a new buffer
  // with `spare_rows`, or the current one from element `in_place` on), and the schedule that
  // fills it (null: nothing moves, every element stays T{}).
  struct Relayout {
    Relayout(Storage<N>* s, StorageLayout<N> l) : storage(s), layout(std::move(l)) {}
    Storage<N>* storage;
    StorageLayout<N> layout;
    std::optional<index_t> in_place;
    index_t spare_rows = 0;
    std::shared_ptr<const Schedule> schedule;
  };

  // A change of distribution staged on every rank (`stage_change`): every array's new storage
  // filled and every follower staged, none yet current.
  struct Change {
    Distribution<N> to;
    bool migration = false;
    std::vector<Relayout> plan;
    std::vector<detail::DomainFollower<N>*> followers;  // staged, in registration order
  };

  // A region's follower of its parent (`region`): owned by the region's state, registered in the
  // parent's followers. It keeps the parent alive, not the region (whose state owns it).
  struct RegionLink final : detail::DomainFollower<N> {
    RegionLink(std::shared_ptr<State> p, const std::shared_ptr<State>& r) : parent(std::move(p)), region(r) {}
    RegionLink(const RegionLink&) = delete;
    RegionLink& operator=(const RegionLink&) = delete;
    ~RegionLink() override { Domain(parent).detach_follower(this); }

    // The region moves to the restriction of the parent's new distribution, its arrays staged now
    // (moved, not yet current), its own followers staged with them.
    void stage(const Distribution<N>& /*from*/, const Distribution<N>& to, Redistribution mode) override {
      Domain r(region.lock());
      const Box<N>& box = r.box();
      if (!contains(to.domain(), box))
        fail(ErrorCode::invalid_argument, "Domain::redistribute: the new box ", to.domain(),
             " does not hold the region ", box, " of the domain (a region must lie inside its parent)");
      const Distribution<N> restricted_to = restricted(to, box);
      r.check_target("Domain::region (following its parent)", restricted_to);
      pending.emplace(r.stage_change("Domain::region (following its parent)", restricted_to, mode, false,
                                     [](Relayout&) {}, r.redistribution_planner(restricted_to, mode)));
    }
    void commit() noexcept override {
      if (pending) Domain(region.lock()).commit_change(*pending);
      pending.reset();
    }
    void discard() noexcept override {
      if (pending) discard_change(*pending);
      pending.reset();
    }

    std::shared_ptr<State> parent;
    std::weak_ptr<State> region;
    std::optional<Change> pending;
  };

  // Collective: stages every follower (in registration order) under `to`, then every array
  // (`stage_relayout`); any exception discards what was staged, so that followers and arrays
  // change together or not at all (see DomainFollower). `commit_change` makes it current.
  template <class ChooseInPlace, class PlanMovement>
  Change stage_change(const char* where, const Distribution<N>& to, Redistribution mode, bool migration,
                      ChooseInPlace&& choose_in_place, PlanMovement&& plan_movement) {
    Change change{to, migration, {}, state_->followers};
    std::size_t staged = 0;
    try {
      for (; staged < change.followers.size(); ++staged) change.followers[staged]->stage(state_->dist, to, mode);
      change.plan = stage_relayout(where, to, migration, choose_in_place, plan_movement);
    } catch (...) {
      for (std::size_t i = 0; i < staged; ++i) change.followers[i]->discard();
      throw;
    }
    return change;
  }
  // Makes a staged change current: the arrays first, then the followers.
  void commit_change(Change& change) noexcept {
    commit_relayout(change.plan, change.to, change.migration);
    for (auto* f : change.followers) f->commit();
  }
  static void discard_change(Change& change) noexcept {
    for (Relayout& r : change.plan) r.storage->discard();
    for (auto* f : change.followers) f->discard();
  }

  void refuse_region(const char* where) const {
    if (state_->link)
      fail(ErrorCode::invalid_argument, where, ": the domain over ", box(), " is a region of the domain over ",
           state_->link->parent->dist.domain(),
           " and aligned with its distribution: redistribute or migrate that domain, and its regions follow");
  }

  // What redistribute and migrate refuse before planning anything, alike on every rank.
  void check_target(const char* where, const Distribution<N>& to) const {
    const State& s = *state_;
    if (to.comm_size() != s.comm->size())
      fail_argument(where, "to", to,
                    detail::concat("is for ", to.comm_size(), " ranks but the communicator has ", s.comm->size()));
    for (std::size_t i = 0; i < s.arrays.size(); ++i) {
      if (s.arrays[i]->busy())
        fail(ErrorCode::invalid_argument, where, ": array ", i, " over the domain has a ghost update in flight",
             " (call end_update_ghosts first)");
      StorageLayout<N>::check_ghosts(to, s.arrays[i]->ghosts());
    }
    check_local_layout_if_affordable(to, checked_mode());
  }

  // The one path of redistribute and migrate. Everything that allocates comes first, on every
  // rank: each array is planned (`choose_in_place(relayout)`: whether it stays in its buffer, then
  // `plan_movement(state, relayout)`: its schedule), its new storage is staged, every mover is
  // made (message buffers) and prepared; two agreements (one allreduce each when nothing failed:
  // after the local allocations, and after the movers, which must be made alike on every rank)
  // turn a failure on any rank into the same Error on every rank before anything moves
  // (allocation_agreement.hpp). Then every mover is started before any is waited on, and every
  // array is committed and `to` becomes the distribution. Any exception before the commit
  // discards everything staged, so every array keeps its layout and values (an in-place move
  // that failed halfway in MPI excepted). `migration`: arrays that allocate count it in
  // `reallocations()`.
  // Returns the plan with every array's new storage staged and filled; `commit_relayout` makes it
  // current.
  template <class ChooseInPlace, class PlanMovement>
  std::vector<Relayout> stage_relayout(const char* where, const Distribution<N>& to, bool migration,
                                       ChooseInPlace&& choose_in_place, PlanMovement&& plan_movement) {
    State& s = *state_;
    std::vector<Relayout> plan;
    std::optional<Error> failed;
    const auto discard_all = [&] {
      for (Relayout& r : plan) r.storage->discard();
    };
    // 1. Local allocations: schedules and new storage. A rank that failed planning halfway has
    // fewer cache entries than the others: every rank empties the cache then, to stay in step.
    const auto agree_on_staging = [&] {
      try {
        s.comm->agree(failed);
      } catch (...) {
        discard_all();
        s.cache.clear();
        throw;
      }
    };
    const bool shared = detail::shared_storage_requested();
    detail::capture_failure(failed, *s.comm, where, 0, "the schedules of the movement", [&] {
      plan.reserve(s.arrays.size());
      for (Storage<N>* a : s.arrays)
        choose_in_place(plan.emplace_back(a, StorageLayout<N>::make(to, s.comm->rank(), a->ghosts())));
    });
    if (shared && migration) agree_in_place(plan, failed.has_value());
    detail::capture_failure(failed, *s.comm, where, 0, "the schedules of the movement", [&] {
      if (!failed)  // purely local: a rank that failed above skips it
        for (Relayout& r : plan) plan_movement(s, r);
    });
    // Storage in shared-memory windows is staged collectively over the node: every rank stages
    // every array, or (some rank failed to plan) none does.
    if (shared) agree_on_staging();
    for (std::size_t i = 0; i < plan.size() && !failed; ++i) {
      Relayout& r = plan[i];
      detail::capture_failure(failed, *s.comm, where, staged_bytes(r), "the new storage of an array", [&] {
        if (r.in_place)
          r.storage->stage_in_place(std::move(r.layout), *r.in_place);
        else
          r.storage->stage(std::move(r.layout), r.spare_rows);
      });
    }
    agree_on_staging();
    // 2. The movers, made on every rank whatever fails (each takes a tag; some agree on their
    // algorithm): constructed in place first, so that a full `movers` drops one already made.
    std::vector<Mover> movers;
    detail::capture_failure(failed, *s.comm, where, 0, "the movers", [&] { movers.reserve(plan.size()); });
    for (std::size_t i = 0; i < plan.size(); ++i) {
      const Relayout& r = plan[i];
      if (!r.schedule) continue;
      const std::size_t es = r.storage->element_size();
      detail::capture_failure(failed, *s.comm, where, detail::message_buffer_bound(*r.schedule, es),
                              "the message buffers of an array", [&] {
                                Mover made(*s.comm, r.schedule, es);
                                if (!failed) made.prepare(r.storage->buffer(), r.storage->staged());
                                if (movers.size() < movers.capacity()) movers.push_back(std::move(made));
                              });
    }
    // 3. Nothing allocates from here on.
    try {
      s.comm->agree(failed);
      std::size_t k = 0;
      for (Relayout& r : plan)
        if (r.schedule) movers[k++].start(r.storage->buffer(), r.storage->staged());
      for (Mover& m : movers) m.wait();
    } catch (...) {
      discard_all();
      throw;
    }
    return plan;
  }

  void commit_relayout(std::vector<Relayout>& plan, const Distribution<N>& to, bool migration) noexcept {
    State& s = *state_;
    for (Relayout& r : plan) r.storage->commit(migration);
    const Distribution<N> from = std::exchange(s.dist, to);
    // Schedules and movers of the retired distribution can never be asked for again (unless it
    // comes back, and then they are rebuilt); equal distributions keep theirs.
    if (!(from == to)) s.cache.invalidate(from.hash());
  }

  // With storage in shared-memory windows (detail::SharedBytes), an array stays in its buffer only
  // where it does so on every rank: a buffer is made and freed collectively over the node, so a
  // rank that stayed in place while a rank of its node staged new storage would leave that rank
  // waiting in MPI_Win_allocate_shared (and, at the commit, in MPI_Win_free). Collective: one
  // allreduce per 64 arrays, nothing allocated. A rank whose planning `failed` (its plan may be
  // short) votes against every array; the failure is agreed on right after.
  void agree_in_place(std::vector<Relayout>& plan, bool failed) const {
    constexpr std::size_t chunk = 64;
    const std::size_t arrays = state_->arrays.size();  // the same on every rank, unlike plan.size()
    for (std::size_t first = 0; first < arrays; first += chunk) {
      std::array<int, chunk> stays{};
      const std::size_t count = std::min(chunk, arrays - first);
      for (std::size_t k = 0; k < count; ++k) {
        const std::size_t i = first + k;
        stays[k] = !failed && i < plan.size() && plan[i].in_place ? 1 : 0;
      }
      state_->comm->allreduce(std::span<int>(stays.data(), count), ReduceOp::min);
      for (std::size_t k = 0; k < count && first + k < plan.size(); ++k)
        if (stays[k] == 0) plan[first + k].in_place.reset();
    }
  }

  // Bytes `stage` allocates for `r` (0 in place), for the error message.
  [[nodiscard]] static std::size_t staged_bytes(const Relayout& r) noexcept {
    if (r.in_place) return 0;
    if (r.layout.custom()) return static_cast<std::size_t>(r.layout.size()) * r.storage->element_size();
    const auto& patches = r.layout.patches();
    const std::size_t outer = r.layout.outermost_axis();
    const index_t row = patches.size() == 1 && patches[0].axes[outer].is_interval() ? patches[0].strides[outer] : 0;
    return static_cast<std::size_t>(r.layout.size() + 2 * r.spare_rows * row) * r.storage->element_size();
  }

  void attach(Storage<N>* a) const { state_->arrays.push_back(a); }
  void detach(const Storage<N>* a) const noexcept {
    auto& v = state_->arrays;
    v.erase(std::remove(v.begin(), v.end(), a), v.end());
  }
  void replace(Storage<N>* old_storage, Storage<N>* new_storage) const noexcept {
    std::replace(state_->arrays.begin(), state_->arrays.end(), old_storage, new_storage);
  }
  // Position of an array among the domain's arrays (the same on every rank): checked mode tells
  // two arrays of equal shape apart by it.
  [[nodiscard]] std::size_t member_index(const Storage<N>* a) const noexcept {
    const auto& v = state_->arrays;
    return static_cast<std::size_t>(std::find(v.begin(), v.end(), a) - v.begin());
  }

  index_t spare_rows_for(const Distribution<N>& to, const Storage<N>& a) const {
    if (state_->spare_fraction == 0) return 0;
    const std::size_t outer = outermost_axis<N>(a.ghosts().order);  // where the storage keeps rows to spare
    const index_t rows = extent(to.domain(), outer);
    const index_t even_share = (rows + to.grid().extent(outer) - 1) / to.grid().extent(outer);
    const auto base = static_cast<index_t>(std::ceil(state_->spare_fraction * static_cast<double>(even_share)));
    return std::min(rows, std::max({base, index_t{1}, 2 * a.slack_rows()}));
  }

  std::shared_ptr<State> state_;
};

}  // namespace tessera
