#pragma once
/// \file
/// `LevelTransfer<T, N>`: prolongation (coarse → fine) and restriction (fine → coarse, average
/// down) between the arrays of two levels of an AMR hierarchy (layout/level_hierarchy.hpp), each a
/// cached schedule. Made once per pair of level distributions (rank-local, no communication):
/// it holds an intermediate domain over the coarsened fine boxes (plan/coarse_fine_plan.hpp) and an
/// array on it with the ghost layers interpolation reads.
/// - `fill_ghosts(coarse, fine)`: a fine ghost update, then every fine ghost cell inside the domain
///   that no fine box holds is interpolated from the coarse level (the coarse/fine boundary);
/// - `fill_ghosts(coarse_old, coarse_new, alpha, fine)`: the same between two coarse states, the
///   coarse values blended `(1 - alpha) old + alpha new` before interpolating in space: subcycling,
///   where the fine level takes several steps per coarse step and its ghosts need the coarse level
///   at an intermediate time;
/// - `prolong(coarse, fine)`: every owned fine cell interpolated (a new level);
/// - `prolong_outside(coarse, fine, old)`: the owned fine cells no box of `old` holds (after a
///   regrid, the cells the old level did not have);
/// - `restrict_to(fine, coarse)`: every coarse cell under a fine box set to the mean of the fine
///   cells it covers; other coarse cells are untouched.
/// The coarse values come through a `Mover` over `coarse_fetch_plan`, kept in the intermediate
/// domain's exchange cache; restriction moves its averages with `copy`, kept in the coarse domain's.
/// \code
///   tessera::LevelTransfer<double, 2> link(coarse_dom, fine_dom, {2, 2}, fine.ghosts());
///   link.fill_ghosts(coarse, fine);     // fine ghosts: from fine boxes, else from the coarse level
///   link.restrict_to(fine, coarse);     // average down
/// \endcode
/// Every operation is collective over the domains' `Communicator` (the same object for both).
/// Both domains' distributions are box sets, the fine one properly nested in the coarse one
/// (`check_proper_nesting`, width `nesting_width`: 1 unless the fine ghosts are wider than the
/// ratio), not periodic. T needs what the interpolator needs; restriction
/// needs `+` and `* double`.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "tessera/array/dist_array.hpp"
#include "tessera/array/domain.hpp"
#include "tessera/array/interpolation.hpp"
#include "tessera/array/remap.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/hash.hpp"
#include "tessera/exchange/collective_check.hpp"
#include "tessera/exchange/kept_mover.hpp"
#include "tessera/layout/level_hierarchy.hpp"
#include "tessera/plan/coarse_fine_plan.hpp"
#include "tessera/plan/compile_schedule.hpp"

namespace tessera {

/// Prolongation and restriction between two levels (see the file comment).
template <class T, std::size_t N>
class LevelTransfer {
 public:
  /// The link between arrays over `coarse` and `fine` (refined by `ratio`) whose fine arrays have
  /// at most `fine_ghosts` ghost layers. Not collective; rank-local planning only. Throws
  /// `Error(invalid_argument)` (the same on every rank, nothing made) if a distribution is not a
  /// box set, the domains are over different `Communicator` objects, the ratio is below 1, or the
  /// fine level is not properly nested in the coarse one.
  LevelTransfer(const Domain<N>& coarse, const Domain<N>& fine, const Point<N>& ratio, const GhostSpec<N>& fine_ghosts,
                Interpolator<T, N> interpolate = linear_interpolation<T, N>())
      : coarse_dist_(coarse.distribution()),
        fine_dist_(fine.distribution()),
        fine_ghosts_(fine_ghosts),
        interpolate_(std::move(interpolate)) {
    constexpr const char* where = "LevelTransfer";
    const BoxSet<N>* c = coarse_dist_.box_set();
    const BoxSet<N>* f = fine_dist_.box_set();
    if (!c) fail_argument(where, "coarse", coarse_dist_.domain(), "must be a domain over a box set");
    if (!f) fail_argument(where, "fine", fine_dist_.domain(), "must be a domain over a box set");
    if (&coarse.comm() != &fine.comm())
      fail_argument(where, "fine", "a domain over another Communicator", "must share the coarse domain's Communicator");
    if (!interpolate_) fail_argument(where, "interpolate", "an empty function", "must be callable");
    check_proper_nesting(where, *c, *f, ratio, nesting_width(ratio, fine_ghosts));
    geo_ = CoarseFineGeometry<N>(*c, *f, ratio, fine_ghosts);
    middle_ = std::make_unique<Domain<N>>(fine.comm(), Distribution<N>::from_box_set(geo_.coarsened));
    staged_ = std::make_unique<DistArray<T, N>>(*middle_, geo_.ghosts);
    const int rank = fine.rank();
    const auto mine = f->boxes_of(rank);
    for (std::size_t k = 0; k < mine.size(); ++k) gaps_.push_back(coarse_fine_ghost_cells(*f, mine[k], fine_ghosts));
    // Which cells of each intermediate patch hold coarse data (the fetch writes exactly those).
    for (std::size_t k = 0; k < mine.size(); ++k) {
      const Box<N> stored = staged_->layout().patches()[k].storage_box();
      std::vector<unsigned char> held(static_cast<std::size_t>(volume(stored)), 0);
      c->for_each_meeting(geo_.need[mine[k]], [&](std::size_t j) {
        for_each_point(intersect(c->box(j), geo_.need[mine[k]]),
                       [&](const Point<N>& p) { held[static_cast<std::size_t>(offset_row_major(stored, p))] = 1; });
      });
      held_.push_back(std::move(held));
    }
  }

  /// The nesting width (in coarse cells) the fine level needs in the coarse one so that every fine
  /// ghost cell has coarse data under it: ceil(ghost width / ratio), at least 1.
  [[nodiscard]] static index_t nesting_width(const Point<N>& ratio, const GhostSpec<N>& fine_ghosts) {
    check_ratio("LevelTransfer", "ratio", ratio);
    index_t w = 1;
    for (std::size_t d = 0; d < N; ++d)
      w = std::max(w, (std::max(fine_ghosts.lower[d], fine_ghosts.upper[d]) + ratio[d] - 1) / ratio[d]);
    return w;
  }

  /// The ratio between the levels.
  [[nodiscard]] const Point<N>& ratio() const noexcept { return geo_.ratio; }
  /// The intermediate box set (the fine boxes coarsened, with the fine owners).
  [[nodiscard]] const BoxSet<N>& coarsened() const noexcept { return geo_.coarsened; }

  /// Collective: `fine.update_ghosts()`, then the fine ghost cells no fine box holds (inside the
  /// domain) interpolated from `coarse`. Ghost cells outside the domain are left to boundary rules.
  void fill_ghosts(const DistArray<T, N>& coarse, DistArray<T, N>& fine) {
    const auto checked = detail::check_collective(middle_->comm(), "LevelTransfer::fill_ghosts",
                                                  coarse.collective_identity(), fine.collective_identity());
    check_arrays("LevelTransfer::fill_ghosts", coarse, fine);
    fine.update_ghosts();
    fetch(coarse);
    for (std::size_t k = 0; k < gaps_.size(); ++k)
      for (const Box<N>& b : gaps_[k]) interpolate_into(fine, k, b);
  }

  /// Collective: `fill_ghosts` at time `alpha` between two coarse states (subcycling: the fine level
  /// at t_old + alpha (t_new - t_old)): the coarse values under every fine ghost cell are
  /// `(1 - alpha) * old + alpha * new`, then interpolated in space as `fill_ghosts` does; `alpha` 0
  /// gives `fill_ghosts(coarse_old, fine)` and 1 `fill_ghosts(coarse_new, fine)` exactly. Throws
  /// `Error(invalid_argument)` on every rank, nothing changed, for `alpha` outside [0, 1] (or NaN)
  /// or an array over another distribution than this link's. T needs `+` and `* double`.
  void fill_ghosts(const DistArray<T, N>& coarse_old, const DistArray<T, N>& coarse_new, double alpha,
                   DistArray<T, N>& fine) {
    constexpr const char* where = "LevelTransfer::fill_ghosts (two coarse states)";
    const auto checked = detail::check_collective(middle_->comm(), where, coarse_old.collective_identity(),
                                                  coarse_new.collective_identity(), fine.collective_identity());
    if (!(alpha >= 0.0 && alpha <= 1.0))
      fail_argument(where, "alpha", alpha, "must lie in [0, 1] (the fraction of the coarse step the fine level is at)");
    check_arrays(where, coarse_old, fine);
    check_arrays(where, coarse_new, fine);
    if (alpha == 0.0 || alpha == 1.0) return fill_ghosts(alpha == 0.0 ? coarse_old : coarse_new, fine);
    fine.update_ghosts();
    fetch(coarse_old);
    old_values_.assign(staged_->storage().begin(), staged_->storage().end());  // kept: no allocation after the first
    fetch(coarse_new);
    // Every stored cell of the intermediate array blended (a cell no coarse box holds is never read).
    T* staged = staged_->data();
    for (std::size_t e = 0; e < old_values_.size(); ++e) staged[e] = old_values_[e] * (1.0 - alpha) + staged[e] * alpha;
    for (std::size_t k = 0; k < gaps_.size(); ++k)
      for (const Box<N>& b : gaps_[k]) interpolate_into(fine, k, b);
  }

  /// Collective: every owned fine cell interpolated from `coarse`.
  void prolong(const DistArray<T, N>& coarse, DistArray<T, N>& fine) {
    const auto checked = detail::check_collective(middle_->comm(), "LevelTransfer::prolong",
                                                  coarse.collective_identity(), fine.collective_identity());
    check_arrays("LevelTransfer::prolong", coarse, fine);
    fetch(coarse);
    for (std::size_t k = 0; k < gaps_.size(); ++k) interpolate_into(fine, k, fine.owned_box(k));
  }

  /// Collective: the owned fine cells that no box of `old` holds interpolated from `coarse`; the
  /// others are left as they are (after `Domain::redistribute` from `old`, they hold the old values).
  void prolong_outside(const DistArray<T, N>& coarse, DistArray<T, N>& fine, const BoxSet<N>& old) {
    const auto checked = detail::check_collective(middle_->comm(), "LevelTransfer::prolong_outside",
                                                  coarse.collective_identity(), fine.collective_identity());
    check_arrays("LevelTransfer::prolong_outside", coarse, fine);
    fetch(coarse);
    for (std::size_t k = 0; k < gaps_.size(); ++k) {
      BoxList<N> fresh{fine.owned_box(k)};
      old.for_each_meeting(fine.owned_box(k), [&](std::size_t j) { fresh = difference(fresh, old.box(j)); });
      for (const Box<N>& b : fresh) interpolate_into(fine, k, b);
    }
  }

  /// Collective: each coarse cell under a fine box set to the mean of the ratio^N fine cells it
  /// covers (summed in row-major order, so the result does not depend on the rank count).
  void restrict_to(const DistArray<T, N>& fine, DistArray<T, N>& coarse) {
    const auto checked = detail::check_collective(middle_->comm(), "LevelTransfer::restrict_to",
                                                  fine.collective_identity(), coarse.collective_identity());
    check_arrays("LevelTransfer::restrict_to", coarse, fine);
    index_t cells = 1;
    for (std::size_t d = 0; d < N; ++d) cells *= geo_.ratio[d];
    const double scale = 1.0 / static_cast<double>(cells);
    for (std::size_t k = 0; k < gaps_.size(); ++k) {
      const auto in = fine.stencil_access(k);
      const PatchLayout<N>& out = staged_->layout().patches()[k];
      for_each_point(staged_->owned_box(k), [&](const Point<N>& c) {
        T sum{};
        for_each_point(refine(Box<N>(c, c + Point<N>::filled(1)), geo_.ratio),
                       [&](const Point<N>& p) { sum = sum + in(p); });
        staged_->data()[out.element_offset(c)] = sum * scale;
      });
    }
    copy(*staged_, coarse);
  }

 private:
  void check_arrays(const char* where, const DistArray<T, N>& coarse, const DistArray<T, N>& fine) const {
    if (coarse.distribution().hash() != coarse_dist_.hash())
      fail_argument(
          where, "coarse", coarse.distribution().domain(),
          "is not over the coarse distribution this LevelTransfer was made for (make a new one after a regrid)");
    if (fine.distribution().hash() != fine_dist_.hash())
      fail_argument(
          where, "fine", fine.distribution().domain(),
          "is not over the fine distribution this LevelTransfer was made for (make a new one after a regrid)");
    if (&coarse.domain().comm() != &middle_->comm())
      fail_argument(where, "coarse", "an array over another Communicator", "must share the fine level's Communicator");
    for (std::size_t d = 0; d < N; ++d)
      if (fine.ghosts().lower[d] > fine_ghosts_.lower[d] || fine.ghosts().upper[d] > fine_ghosts_.upper[d])
        fail_argument(where, "fine", fine.ghosts(), detail::concat("has wider ghosts than ", fine_ghosts_));
  }

  /// Collective: the intermediate array's patches (owned and ghosts) from the coarse owners.
  void fetch(const DistArray<T, N>& coarse) {
    const Communicator& comm = middle_->comm();
    const int rank = middle_->rank();
    const Distribution<N>& to = middle_->distribution();
    std::uint64_t key = hash_combine(0x1e7e1f7e7cULL, coarse_dist_.hash());
    key = hash_combine(hash_combine(key, coarse.ghosts().hash()), to.hash());
    key = hash_combine(hash_combine(key, geo_.ghosts.hash()), static_cast<std::uint64_t>(rank));
    detail::run_kept(
        "LevelTransfer::fetch", middle_->cache(), comm, key, {coarse_dist_.hash(), to.hash()}, sizeof(T), nullptr,
        staged_->storage().size() * sizeof(T),
        [&] {
          return std::make_shared<const Schedule>(compile_schedule(
              coarse_fetch_plan(*coarse_dist_.box_set(), geo_, rank), rank, coarse.layout(), staged_->layout(), true));
        },
        detail::remap::bytes_of(coarse.data()), detail::remap::bytes_of(staged_->data()));
  }

  /// Interpolates the cells of `box` (stored by fine patch k) from intermediate patch k.
  void interpolate_into(DistArray<T, N>& fine, std::size_t k, const Box<N>& box) {
    const PatchLayout<N>& from = staged_->layout().patches()[k];
    Point<N> origin;
    for (std::size_t d = 0; d < N; ++d) origin[d] = from.axes[d].first - from.axes[d].ghost_lo;
    const CoarseCells<T, N> cells(staged_->data() + from.offset, origin, from.strides, from.storage_box(),
                                  held_[k].data(), geo_.ratio);
    const PatchLayout<N>& to = fine.layout().patches()[k];
    T* out = fine.data();
    for_each_point(box, [&](const Point<N>& p) { out[to.element_offset(p)] = interpolate_(cells, p); });
  }

  Distribution<N> coarse_dist_, fine_dist_;
  GhostSpec<N> fine_ghosts_;
  Interpolator<T, N> interpolate_;
  CoarseFineGeometry<N> geo_;
  std::unique_ptr<Domain<N>> middle_;             // over the coarsened fine boxes
  std::unique_ptr<DistArray<T, N>> staged_;       // coarse data under each fine patch, with ghosts
  std::vector<BoxList<N>> gaps_;                  // per fine patch: ghost cells no fine box holds
  std::vector<std::vector<unsigned char>> held_;  // per intermediate patch: cells with coarse data
  std::vector<T> old_values_;                     // fill_ghosts between two states: the older one, fetched
};

}  // namespace tessera
