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
/// A `Domain` is a handle: copies share one state (communicator, distribution, schedule cache and
/// the registry of arrays). The `Communicator` is not owned: it must outlive every copy of the
/// domain and every array declared over it.
///
/// Arrays register in the order they are constructed. That order fixes the order in which their
/// movers take message tags, so arrays over a domain must be declared in the same order on every
/// rank (as every collective object must be).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "tessera/array/mover_cache.hpp"
#include "tessera/core/error.hpp"
#include "tessera/exchange/collective_check.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/exchange/fused_mover.hpp"
#include "tessera/exchange/mover.hpp"
#include "tessera/layout/distribution.hpp"
#include "tessera/plan/ghost_spec.hpp"
#include "tessera/plan/schedule_cache.hpp"
#include "tessera/plan/schedules.hpp"
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

/// A byte the movers may point at when a rank stores nothing: they never touch it, but a null
/// pointer plus an offset of zero is not something to hand to MPI.
alignas(std::max_align_t) inline std::byte empty_storage[sizeof(std::max_align_t)];

/// What a domain needs from each array declared over it, whatever its element type. A
/// redistribution first stages new storage in every array, moves into it, then commits; a failure
/// before the commit discards the staged storage and leaves every array as it was.
template <std::size_t N>
class DomainMember {
 public:
  virtual ~DomainMember() = default;
  [[nodiscard]] virtual const GhostSpec<N>& member_ghosts() const noexcept = 0;
  [[nodiscard]] virtual std::size_t member_element_size() const noexcept = 0;
  /// True while a split-phase ghost update is in flight.
  [[nodiscard]] virtual bool member_busy() const noexcept = 0;
  /// Allocates value-initialised storage for `layout` beside the current one, with `spare_rows`
  /// rows to spare below and above along the outermost axis when the layout is one patch whose
  /// outermost axis is an interval.
  virtual void member_stage(StorageLayout<N> layout, index_t spare_rows) = 0;
  [[nodiscard]] virtual const void* member_current() const noexcept = 0;
  [[nodiscard]] virtual void* member_staged() noexcept = 0;
  /// Replaces the storage by the staged one and drops the movers bound to the old layout;
  /// `count_reallocation` tells a migration's reallocation from a redistribution.
  virtual void member_commit(bool count_reallocation) noexcept = 0;
  virtual void member_discard() noexcept = 0;
  /// Where `layout` would start in the current buffer with every stored global index at its
  /// current address (the spare rows absorb the move), or nullopt if it does not fit.
  [[nodiscard]] virtual std::optional<index_t> member_in_place_origin(const StorageLayout<N>& layout) const = 0;
  /// The current buffer at element `origin` (what an in-place move writes through).
  [[nodiscard]] virtual void* member_at_origin(index_t origin) noexcept = 0;
  /// Makes `layout`, starting at `origin` of the current buffer, the array's layout.
  virtual void member_commit_in_place(StorageLayout<N> layout, index_t origin) noexcept = 0;
  /// Rows to spare kept on each side at the array's last allocation (0 if never migrated).
  [[nodiscard]] virtual index_t member_slack_rows() const noexcept = 0;
};

}  // namespace detail

/// A global box, its distribution over a communicator, a schedule cache, and the arrays declared
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
  }

  /// The communicator every collective call of the domain and its arrays runs on.
  [[nodiscard]] const Communicator& comm() const noexcept { return *state_->comm; }
  /// This process' rank in `comm()`.
  [[nodiscard]] int rank() const noexcept { return state_->comm->rank(); }
  /// The global index set (the distribution's domain).
  [[nodiscard]] const Box<N>& box() const noexcept { return state_->dist.domain(); }
  /// The current distribution.
  [[nodiscard]] const Distribution<N>& distribution() const noexcept { return state_->dist; }
  /// The schedules of this domain's arrays (halo fills, redistributions, gathers), shared by
  /// arrays with equal ghost specs; entries of a retired distribution are dropped.
  [[nodiscard]] ScheduleCache& cache() const noexcept { return state_->cache; }
  /// The movers the one-shot remaps over this domain keep between calls (see mover_cache.hpp).
  [[nodiscard]] MoverCache& movers() const noexcept { return state_->movers; }
  /// The fused movers of `update_ghosts(u, v, ...)` over this domain (fused_mover.hpp); cleared
  /// when the distribution changes.
  [[nodiscard]] FusedMoverCache& fused_movers() const noexcept { return state_->fused; }
  /// Bytes one element of every array over this domain takes together (what a migration moves
  /// per element that changes owner).
  [[nodiscard]] std::size_t bytes_per_element() const noexcept {
    std::size_t bytes = 0;
    for (const auto* a : state_->arrays) bytes += a->member_element_size();
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
  void redistribute(const Distribution<N>& to, Redistribution mode = Redistribution::preserve) {
    constexpr const char* where = "Domain::redistribute";
    const auto checked = detail::check_collective(comm(), where, to, mode);
    State& s = *state_;
    const Communicator& comm = *s.comm;
    if (mode != Redistribution::preserve && mode != Redistribution::destructive)
      fail_argument(where, "mode", static_cast<int>(mode), "is not a tessera::Redistribution");
    if (to.comm_size() != comm.size())
      fail_argument(where, "to", to,
                    detail::concat("is for ", to.comm_size(), " ranks but the communicator has ", comm.size()));
    for (std::size_t i = 0; i < s.arrays.size(); ++i) {
      if (s.arrays[i]->member_busy())
        fail(ErrorCode::invalid_argument, where, ": array ", i, " over the domain has a ghost update in flight",
             " (call end_update_ghosts first)");
      StorageLayout<N>::check_ghosts(to, s.arrays[i]->member_ghosts());
    }
    const int rank = comm.rank();
    const Distribution<N> from = s.dist;
    const Box<N> common = intersect(from.domain(), to.domain());
    const bool move = mode == Redistribution::preserve && !common.empty();
    // Plan everything before touching any array, so that an error leaves every array as it was.
    // Arrays with equal ghost specs get the same schedule from the cache.
    std::vector<StorageLayout<N>> layouts;
    std::vector<std::shared_ptr<const Schedule>> schedules;
    layouts.reserve(s.arrays.size());
    schedules.reserve(s.arrays.size());
    for (auto* a : s.arrays) {
      const GhostSpec<N>& g = a->member_ghosts();
      layouts.push_back(StorageLayout<N>::make(to, rank, g));
      if (move)
        schedules.push_back(
            section_move_schedule(from, g, common, to, g, common, MotionPlan<N>::identity(), rank, &s.cache));
    }
    try {
      for (std::size_t i = 0; i < s.arrays.size(); ++i) s.arrays[i]->member_stage(std::move(layouts[i]), 0);
      if (move) {
        std::vector<Mover> movers;
        movers.reserve(s.arrays.size());
        for (std::size_t i = 0; i < s.arrays.size(); ++i)
          movers.emplace_back(comm, schedules[i], s.arrays[i]->member_element_size());
        for (std::size_t i = 0; i < s.arrays.size(); ++i)
          movers[i].start(s.arrays[i]->member_current(), s.arrays[i]->member_staged());
        for (auto& m : movers) m.wait();
      }
    } catch (...) {
      for (auto* a : s.arrays) a->member_discard();
      throw;
    }
    for (auto* a : s.arrays) a->member_commit(false);
    s.dist = to;
    // Schedules of the retired distribution can never be asked for again (unless it comes back,
    // and then they are rebuilt); equal distributions keep theirs.
    if (!(from == to)) s.cache.invalidate(from.hash());
    if (!(from == to)) s.fused.clear();
  }

  /// Collective: moves every array over this domain to `to`, which must cover the same box,
  /// keeping every value: the move of incremental balancing (D3-ARC's `d3_migrate`). Where a
  /// rank's new part fits in the rows its buffer keeps to spare along the outermost axis (D3-ARC's
  /// spare rows, Fig. 7), the buffer stays: rows that stay put are not touched and only the
  /// elements that change owner travel. Otherwise the rank allocates new storage with rows to
  /// spare (see `set_spare_rows`), which the array counts in `reallocations()`. Ghost layers hold
  /// stale values afterwards: call `update_ghosts()` before reading them.
  /// Returns the seconds the move took, the largest over the ranks (the same on every rank), which
  /// is what a cost model of migrations learns from.
  /// Throws `Error` on every rank, before anything moves, if `to` covers another box or is for
  /// another number of ranks, an array's ghosts are impossible under `to`, or an array has a ghost
  /// update in flight.
  double migrate(const Distribution<N>& to) {
    constexpr const char* where = "Domain::migrate";
    const auto checked = detail::check_collective(comm(), where, to);
    State& s = *state_;
    const Communicator& comm = *s.comm;
    if (to.domain() != s.dist.domain())
      fail_argument(where, "to", to.domain(),
                    detail::concat("covers another box than the domain's ", s.dist.domain(),
                                   " (use redistribute to change the extent)"));
    if (to.comm_size() != comm.size())
      fail_argument(where, "to", to,
                    detail::concat("is for ", to.comm_size(), " ranks but the communicator has ", comm.size()));
    for (std::size_t i = 0; i < s.arrays.size(); ++i) {
      if (s.arrays[i]->member_busy())
        fail(ErrorCode::invalid_argument, where, ": array ", i, " over the domain has a ghost update in flight",
             " (call end_update_ghosts first)");
      StorageLayout<N>::check_ghosts(to, s.arrays[i]->member_ghosts());
    }
    const double started = MPI_Wtime();
    const int rank = comm.rank();
    const Distribution<N> from = s.dist;
    // Plan first (nothing is touched yet): per array, in place or into new storage. The choice is
    // local; it changes only the copies a rank makes to itself, never what travels between ranks.
    struct Move {
      StorageLayout<N> layout;
      std::optional<index_t> origin;  // set: in place
      std::shared_ptr<const Schedule> schedule;
    };
    std::vector<Move> moves;
    moves.reserve(s.arrays.size());
    for (auto* a : s.arrays) {
      const GhostSpec<N>& g = a->member_ghosts();
      Move m{StorageLayout<N>::make(to, rank, g), std::nullopt, nullptr};
      m.origin = a->member_in_place_origin(m.layout);
      m.schedule = m.origin ? in_place_migration_schedule(from, to, g, rank, &s.cache)
                            : redistribution_schedule(from, g, to, g, rank, &s.cache);
      moves.push_back(std::move(m));
    }
    try {
      for (std::size_t i = 0; i < s.arrays.size(); ++i)
        if (!moves[i].origin) s.arrays[i]->member_stage(moves[i].layout, spare_rows_for(to, *s.arrays[i]));
      std::vector<Mover> movers;
      movers.reserve(s.arrays.size());
      for (std::size_t i = 0; i < s.arrays.size(); ++i)
        movers.emplace_back(comm, moves[i].schedule, s.arrays[i]->member_element_size());
      for (std::size_t i = 0; i < s.arrays.size(); ++i) {
        auto* a = s.arrays[i];
        movers[i].start(a->member_current(),
                        moves[i].origin ? a->member_at_origin(*moves[i].origin) : a->member_staged());
      }
      for (auto& m : movers) m.wait();
    } catch (...) {
      for (auto* a : s.arrays) a->member_discard();
      throw;
    }
    for (std::size_t i = 0; i < s.arrays.size(); ++i) {
      if (moves[i].origin)
        s.arrays[i]->member_commit_in_place(std::move(moves[i].layout), *moves[i].origin);
      else
        s.arrays[i]->member_commit(true);
    }
    s.dist = to;
    if (!(from == to)) s.cache.invalidate(from.hash());
    if (!(from == to)) s.fused.clear();
    return comm.max(MPI_Wtime() - started);
  }

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

  struct State {
    State(const Communicator& c, const Distribution<N>& d) : comm(&c), dist(d) {}
    const Communicator* comm;
    Distribution<N> dist;
    ScheduleCache cache;
    MoverCache movers;  // after `cache`: its movers hold schedules, so it goes first
    FusedMoverCache fused;  // update_ghosts(u, v, ...); cleared when the distribution changes
    double spare_fraction = 0.25;
    std::vector<detail::DomainMember<N>*> arrays;  // in declaration order: the order movers take tags
  };

  void attach(detail::DomainMember<N>* a) const { state_->arrays.push_back(a); }
  // Position of an array among the domain's arrays (the same on every rank): checked mode tells
  // two arrays of equal shape apart by it.
  [[nodiscard]] std::size_t member_index(const detail::DomainMember<N>* a) const noexcept {
    const auto& v = state_->arrays;
    return static_cast<std::size_t>(std::find(v.begin(), v.end(), a) - v.begin());
  }

  index_t spare_rows_for(const Distribution<N>& to, const detail::DomainMember<N>& a) const {
    if (state_->spare_fraction == 0) return 0;
    const index_t rows = extent(to.domain(), 0);
    const index_t even_share = (rows + to.grid().extent(0) - 1) / to.grid().extent(0);
    const auto base = static_cast<index_t>(std::ceil(state_->spare_fraction * static_cast<double>(even_share)));
    return std::min(rows, std::max({base, index_t{1}, 2 * a.member_slack_rows()}));
  }
  void detach(detail::DomainMember<N>* a) const noexcept {
    auto& v = state_->arrays;
    v.erase(std::remove(v.begin(), v.end(), a), v.end());
  }
  void replace(detail::DomainMember<N>* old_member, detail::DomainMember<N>* new_member) const noexcept {
    std::replace(state_->arrays.begin(), state_->arrays.end(), old_member, new_member);
  }

  std::shared_ptr<State> state_;
};

}  // namespace tessera
