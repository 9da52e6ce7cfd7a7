#pragma once
/// \file
/// Regridding a fine level (AMR): tag coarse cells with a predicate, cluster the tags into boxes
/// (Berger–Rigoutsos, geometry/berger_rigoutsos.hpp) inside the region where a finer level is
/// properly nested, refine and assign them (layout/box_assignment.hpp), then move the fine level's
/// arrays onto the new boxes: what the old level held is kept (`Domain::redistribute`, preserve),
/// the new cells are prolonged from the coarse level (`LevelTransfer::prolong_outside`).
/// \code
///   tessera::RegridOptions<2> opt;
///   opt.ratio = {2, 2};
///   opt.cluster.blocking_factor = {4, 4};                  // in coarse cells
///   auto boxes = tessera::tag_and_cluster(coarse, [](const tessera::Point<2>&, double u) { return u > 0.1; }, opt);
///   auto link = tessera::regrid_level(coarse, fine_dom, boxes, {&fine}, opt.ratio, fine.ghosts());
/// \endcode
#include <cstddef>
#include <initializer_list>
#include <span>
#include <vector>

#include "tessera/array/dist_array.hpp"
#include "tessera/array/domain.hpp"
#include "tessera/array/level_transfer.hpp"
#include "tessera/geometry/berger_rigoutsos.hpp"
#include "tessera/layout/box_assignment.hpp"
#include "tessera/layout/level_hierarchy.hpp"

namespace tessera {

/// How `tag_and_cluster` makes the boxes of a finer level.
template <std::size_t N>
struct RegridOptions {
  /// The refinement ratio of the new level over the tagged one (>= 1 per axis).
  Point<N> ratio = Point<N>::filled(2);
  /// Berger–Rigoutsos settings, in cells of the tagged (coarse) level.
  ClusterOptions<N> cluster{};
  /// Every tag also tags the cells within this many cells of it (clipped to the domain), so that a
  /// moving feature stays inside the fine level until the next regrid.
  index_t buffer = 1;
  /// The nesting width, in coarse cells (the new boxes keep this far from cells no coarse box holds).
  index_t nesting_width = 1;
  /// How the new boxes are assigned to ranks.
  BoxAssignment assignment = BoxAssignment::knapsack;
  /// A finer level the new level must keep properly nested (regridding level l under an existing
  /// level l + 1; `LevelHierarchy::regridded` then keeps it): every coarse cell under the new-level
  /// cells that `finer`'s boxes need (coarsened by `finer_ratio`, grown by `nesting_width`, clipped
  /// to the new level's domain) is tagged too. Null (the default): none. Not owned: it must live
  /// through the call.
  const BoxSet<N>* finer = nullptr;
  /// The ratio between the new level and `finer`.
  Point<N> finer_ratio = Point<N>::filled(2);
};

/// Collective: the box set of a new finer level over `coarse`'s level. Each rank tags the cells it
/// owns where `tag(point, value)` is true; the tags (grown by `options.buffer`) are gathered on
/// every rank, which all cluster them alike (`cluster_tags`, allowed region `nesting_region` of the
/// coarse level), refine the boxes by the ratio and assign them. With `options.finer`, the cells an
/// existing finer level needs are tagged too, so that the new level keeps it properly nested (where
/// the coarse level's nesting region allows). Throws `Error(invalid_argument)` on every rank, before
/// anything is gathered, for bad options (a `finer` level over another domain than the new level's
/// refined by `finer_ratio` included) or a coarse array not over a box set.
template <class T, std::size_t N, class Tag>
[[nodiscard]] BoxSet<N> tag_and_cluster(const DistArray<T, N>& coarse, Tag&& tag, const RegridOptions<N>& options) {
  constexpr const char* where = "tag_and_cluster";
  const BoxSet<N>* level = coarse.distribution().box_set();
  if (!level) fail_argument(where, "coarse", coarse.distribution().domain(), "must be an array over a box set");
  check_ratio(where, "ratio", options.ratio);
  if (options.buffer < 0) fail_argument(where, "buffer", options.buffer, "must be >= 0");
  const Box<N>& domain = level->domain();
  const Box<N> new_domain = refine(domain, options.ratio);
  if (options.finer) {
    check_ratio(where, "finer_ratio", options.finer_ratio);
    if (options.finer->domain() != refine(new_domain, options.finer_ratio))
      fail_argument(where, "finer", options.finer->domain(),
                    detail::concat("is not the new level's domain ", new_domain, " refined by finer_ratio ",
                                   options.finer_ratio));
  }
  (void)cluster_tags<N>({}, domain, options.cluster);  // checks the clustering options on every rank
  const BoxList<N> allowed = nesting_region(*level, options.nesting_width);
  std::vector<Point<N>> mine;
  coarse.for_each_owned([&](const Point<N>& p, const T& value) {
    if (tag(p, value)) mine.push_back(p);
  });
  const std::vector<Point<N>> seeds = coarse.domain().comm().template allgatherv<Point<N>>(mine);
  std::vector<Point<N>> tags;
  for (const Point<N>& s : seeds)
    for_each_point(intersect(grow(Box<N>(s, s + Point<N>::filled(1)), options.buffer), domain),
                   [&](const Point<N>& p) { tags.push_back(p); });
  if (options.finer)  // what keeps the finer level nested, known alike on every rank
    for (const Box<N>& f : options.finer->boxes()) {
      const Box<N> need = intersect(grow(coarsen(f, options.finer_ratio), options.nesting_width), new_domain);
      for_each_point(coarsen(need, options.ratio), [&](const Point<N>& p) { tags.push_back(p); });
    }
  std::vector<Box<N>> boxes = cluster_tags<N>(tags, domain, options.cluster, allowed);
  for (Box<N>& b : boxes) b = refine(b, options.ratio);
  return make_box_set(new_domain, std::move(boxes), level->comm_size(), options.assignment);
}

/// Collective: moves the fine level's domain `fine_dom` onto the box set `to` and returns the
/// `LevelTransfer` of the new level. Every array of `fine_dom` keeps its values where the old and new
/// levels overlap (`Domain::redistribute`, preserve); in the arrays of `fine`, the new cells are
/// interpolated from `coarse` (other arrays of the domain hold `T{}` there). Throws
/// `Error(invalid_argument)` on every rank with nothing changed as `LevelTransfer`'s constructor
/// says (a ratio below 1, not a box set, `to` not properly nested in `coarse`'s level).
template <class T, std::size_t N>
[[nodiscard]] LevelTransfer<T, N> regrid_level(const DistArray<T, N>& coarse, Domain<N>& fine_dom, const BoxSet<N>& to,
                                               std::span<DistArray<T, N>* const> fine, const Point<N>& ratio,
                                               const GhostSpec<N>& fine_ghosts,
                                               Interpolator<T, N> interpolate = linear_interpolation<T, N>()) {
  constexpr const char* where = "regrid_level";
  const auto checked = detail::check_collective(fine_dom.comm(), where, coarse.collective_identity(), to, ratio);
  const BoxSet<N>* old = fine_dom.distribution().box_set();
  if (!old) fail_argument(where, "fine_dom", fine_dom.box(), "must be a domain over a box set");
  // The link to the new level first: it checks everything (box sets, ratio, nesting) before the
  // fine level moves, and it is valid after the move (the same distribution).
  const Domain<N> target(fine_dom.comm(), Distribution<N>::from_box_set(to));
  LevelTransfer<T, N> link(coarse.domain(), target, ratio, fine_ghosts, std::move(interpolate));
  const BoxSet<N> before = *old;  // the redistribution replaces the domain's distribution
  fine_dom.redistribute(target.distribution(), Redistribution::preserve);
  for (DistArray<T, N>* f : fine) link.prolong_outside(coarse, *f, before);
  return link;
}

/// \copydoc regrid_level: the fine arrays as a braced list (`{&u, &v}`).
template <class T, std::size_t N>
[[nodiscard]] LevelTransfer<T, N> regrid_level(const DistArray<T, N>& coarse, Domain<N>& fine_dom, const BoxSet<N>& to,
                                               std::initializer_list<DistArray<T, N>*> fine, const Point<N>& ratio,
                                               const GhostSpec<N>& fine_ghosts,
                                               Interpolator<T, N> interpolate = linear_interpolation<T, N>()) {
  return regrid_level(coarse, fine_dom, to, std::span<DistArray<T, N>* const>(fine.begin(), fine.size()), ratio,
                      fine_ghosts, std::move(interpolate));
}

}  // namespace tessera
