#pragma once
/// \file
/// `LevelHierarchy<N>`: the box sets of an AMR hierarchy (KeLP's use of FloorPlans for AMR,
/// AMReX's `AmrMesh`). Level 0 is any box set; level l + 1 is a box set over the refined index
/// space of level l's domain (`refine(domain, ratio)`), **properly nested** in level l: every
/// fine box is aligned to the ratio, and the coarse cells under it, grown by the nesting width
/// and clipped to the domain, are all held by level l's boxes. So every fine cell and every fine
/// ghost cell within `ratio x width` of a fine box has coarse data under it and a coarse
/// neighbour on each side (what linear interpolation needs).
/// \code
///   tessera::BoxSet<2> base(tessera::Box<2>({0, 0}, {16, 16}), {tessera::Box<2>({0, 0}, {16, 16})}, {0}, 1);
///   tessera::LevelHierarchy<2> h(base);
///   tessera::BoxSet<2> fine(tessera::Box<2>({0, 0}, {32, 32}), {tessera::Box<2>({8, 8}, {16, 20})}, {0}, 1);
///   h = h.with_level(1, fine, {2, 2});   // checks ratio, domain, alignment and nesting
/// \endcode
/// Pure and rank-local: every rank builds the same hierarchy from the same sets; bad input is the
/// same `Error` on every rank. Domains are not periodic here.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/geometry.hpp"
#include "tessera/geometry/refinement.hpp"
#include "tessera/layout/box_set.hpp"

namespace tessera {

/// Throws `Error(invalid_argument)` unless `fine` is properly nested in `coarse` under `ratio`
/// with nesting width `width` (see the file comment): `fine.domain() == refine(coarse.domain(),
/// ratio)`, every fine box aligned to `ratio`, and `grow(coarsen(box), width)` clipped to the coarse
/// domain held by coarse boxes. The message names the first offending fine box. Cost: one index
/// query of `coarse` per fine box.
template <std::size_t N>
void check_proper_nesting(const char* where, const BoxSet<N>& coarse, const BoxSet<N>& fine, const Point<N>& ratio,
                          index_t width = 1) {
  check_ratio(where, "ratio", ratio);
  if (width < 0) fail_argument(where, "width", width, "must be >= 0");
  if (fine.comm_size() != coarse.comm_size())
    fail_argument(where, "fine", fine,
                  detail::concat("is for ", fine.comm_size(), " ranks, the coarse level for ", coarse.comm_size()));
  if (fine.domain() != refine(coarse.domain(), ratio))
    fail_argument(where, "fine", fine,
                  detail::concat("has domain ", fine.domain(), ", not the refined coarse domain ",
                                 refine(coarse.domain(), ratio)));
  for (std::size_t i = 0; i < fine.size(); ++i) {
    const Box<N>& b = fine.box(i);
    if (!is_aligned(b, ratio))
      fail_argument(where, detail::concat("fine box ", i), b,
                    detail::concat("is not aligned to the refinement ratio ", ratio));
    const Box<N> need = intersect(grow(coarsen(b, ratio), width), coarse.domain());
    index_t held = 0;
    coarse.for_each_meeting(need, [&](std::size_t j) { held += volume(intersect(coarse.box(j), need)); });
    if (held != volume(need))
      fail_argument(
          where, detail::concat("fine box ", i), b,
          detail::concat("is not properly nested: the coarse cells ", need, " under it (grown by the nesting width ",
                         width, ") are not all held by coarse boxes"));
  }
}

/// The cells of `level` whose `width`-neighbourhood (clipped to the domain) its boxes hold: where
/// the boxes of the next finer level may lie, in `level`'s index space (disjoint boxes, each box's
/// pieces in the order of `level`'s boxes; a level without holes gives its own boxes). Box by box:
/// the cells near box b that no box holds (found through the set's spatial index) are holes, and b
/// loses every cell within `width` of one. Cost: O(boxes x neighbours x pieces), linear in the
/// number of boxes for a level whose boxes have a bounded number of neighbours.
template <std::size_t N>
[[nodiscard]] BoxList<N> nesting_region(const BoxSet<N>& level, index_t width = 1) {
  if (width < 0) fail_argument("nesting_region", "width", width, "must be >= 0");
  BoxList<N> region;
  for (std::size_t i = 0; i < level.size(); ++i) {
    const Box<N>& b = level.box(i);
    const Box<N> near = intersect(grow(b, width), level.domain());
    BoxList<N> holes{near};
    level.for_each_meeting(near, [&](std::size_t j) { holes = difference(holes, level.box(j)); });
    BoxList<N> kept{b};
    for (const Box<N>& h : holes) kept = difference(kept, grow(h, width));
    for (const Box<N>& k : kept) region.push_back(k);
  }
  return region;
}

/// The box sets of the levels and the ratios between them (see the file comment). Cheap to copy.
template <std::size_t N>
requires(N >= 1) class LevelHierarchy {
 public:
  /// A hierarchy of one level.
  explicit LevelHierarchy(BoxSet<N> base, index_t nesting_width = 1) : width_(nesting_width) {
    if (nesting_width < 0) fail_argument("LevelHierarchy", "nesting_width", nesting_width, "must be >= 0");
    levels_.push_back(std::move(base));
    ratios_.push_back(Point<N>::filled(1));
  }
  /// Number of levels.
  [[nodiscard]] std::size_t levels() const noexcept { return levels_.size(); }
  /// Level l's box set. Throws `Error(invalid_argument)` unless l < levels().
  [[nodiscard]] const BoxSet<N>& level(std::size_t l) const { return levels_[checked_level("LevelHierarchy::level", l)]; }
  /// The ratio between level l - 1 and level l (1 for level 0). Throws `Error(invalid_argument)`
  /// unless l < levels().
  [[nodiscard]] const Point<N>& ratio(std::size_t l) const { return ratios_[checked_level("LevelHierarchy::ratio", l)]; }
  /// The nesting width, in cells of the coarser level.
  [[nodiscard]] index_t nesting_width() const noexcept { return width_; }
  /// This hierarchy with level `l` (1 <= l <= levels()) replaced or added as `set`, refined by
  /// `ratio` from level l - 1, and the levels finer than l dropped (a regrid rebuilds them).
  /// Throws `Error(invalid_argument)` for l out of range, and as `check_proper_nesting` says;
  /// nothing changes on a throw.
  [[nodiscard]] LevelHierarchy with_level(std::size_t l, BoxSet<N> set, const Point<N>& ratio) const {
    if (l < 1 || l > levels())
      fail_argument("LevelHierarchy::with_level", "l", l, detail::concat("must be in [1, ", levels(), "]"));
    check_proper_nesting("LevelHierarchy::with_level", levels_[l - 1], set, ratio, width_);
    LevelHierarchy h = *this;
    h.levels_.resize(l);
    h.ratios_.resize(l);
    h.levels_.push_back(std::move(set));
    h.ratios_.push_back(ratio);
    return h;
  }
  /// This hierarchy with level `l` (1 <= l < levels(): an existing level above the base) replaced
  /// by `set`, refined by `ratio` from level l - 1, and the finer levels KEPT: a regrid of a level
  /// under an existing finer one (AMR's regrid of level l while l + 1 stays). `set` must be properly
  /// nested in level l - 1 and level l + 1 (if any) in `set`; `RegridOptions::finer` makes
  /// `tag_and_cluster` tag what level l + 1 needs. Throws `Error(invalid_argument)` for l out of
  /// range (add a level with `with_level`), and as `check_proper_nesting` says, naming level l + 1
  /// when it is the one no longer nested; nothing changes on a throw.
  [[nodiscard]] LevelHierarchy regridded(std::size_t l, BoxSet<N> set, const Point<N>& ratio) const {
    constexpr const char* where = "LevelHierarchy::regridded";
    if (l < 1 || l >= levels())
      fail_argument(where, "l", l,
                    detail::concat("must be in [1, ", levels() - 1, "] (an existing level above the base; add one with with_level)"));
    check_proper_nesting(where, levels_[l - 1], set, ratio, width_);
    if (l + 1 < levels()) {
      const std::string finer = detail::concat(where, ": level ", l + 1, " in the new level ", l);
      check_proper_nesting(finer.c_str(), set, levels_[l + 1], ratios_[l + 1], width_);
    }
    LevelHierarchy h = *this;
    h.levels_[l] = std::move(set);
    h.ratios_[l] = ratio;
    return h;
  }

 private:
  // A level number a caller gave, checked against levels() (a tessera::Error, not std::out_of_range).
  [[nodiscard]] std::size_t checked_level(const char* where, std::size_t l) const {
    if (l >= levels()) fail_argument(where, "l", l, detail::concat("must be < levels() = ", levels()));
    return l;
  }
  std::vector<BoxSet<N>> levels_;
  std::vector<Point<N>> ratios_;
  index_t width_ = 1;
};

}  // namespace tessera
