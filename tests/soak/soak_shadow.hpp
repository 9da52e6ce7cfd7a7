#pragma once
// The soak test's serial reference: every rank keeps a whole copy of each distributed array (the
// shadow) and checks its own part of the distributed one against it after every operation.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <sstream>
#include <optional>
#include <string>
#include <vector>

#include "engine_checks.hpp"
#include "tessera/tessera.hpp"

namespace tessera::soak {

/// A value that tells points and writes apart: an integer below 2^53, so exact in a double and
/// compared bit for bit.
template <std::size_t N>
[[nodiscard]] double fresh_value(const Point<N>& p, std::uint64_t salt) {
  return static_cast<double>(hash_combine(hash_value(p), salt) >> 11);
}

/// The whole array over `box`, row-major, on one rank.
template <std::size_t N>
struct Shadow {
  Box<N> box;
  std::vector<double> values;

  explicit Shadow(const Box<N>& b) : box(b), values(static_cast<std::size_t>(volume(b)), 0.0) {}

  [[nodiscard]] std::size_t index(const Point<N>& p) const {
    index_t k = 0;
    for (std::size_t d = 0; d < N; ++d) k = k * extent(box, d) + (p[d] - box.lo[d]);
    return static_cast<std::size_t>(k);
  }
  [[nodiscard]] double& operator[](const Point<N>& p) { return values[index(p)]; }
  [[nodiscard]] double operator[](const Point<N>& p) const { return values[index(p)]; }

  /// What a preserving redistribution onto `to` leaves: values in both boxes kept, new ones 0.
  [[nodiscard]] Shadow resized(const Box<N>& to) const {
    Shadow out(to);
    for_each_point(intersect(box, to), [&](const Point<N>& p) { out[p] = (*this)[p]; });
    return out;
  }
};

/// Elements compared and mismatches found on this rank; the first few mismatches are printed.
class Tally {
 public:
  explicit Tally(int rank) : rank_(rank) {}

  /// Counts one comparison of `got` with `want` (bit for bit); `what` describes it when they differ.
  template <class Describe>
  void compare(double got, double want, Describe&& what) {
    ++elements_;
    if (got == want) return;
    if (++mismatches_ <= kPrinted) {
      std::fprintf(stderr, "soak: rank %d: operation %llu (%s): %s holds %.17g, expected %.17g\n", rank_,
                   static_cast<unsigned long long>(operation_), name_.c_str(), what().c_str(), got, want);
      std::fflush(stderr);
    }
  }
  /// A failed check that is not an element comparison (a point owned by the wrong rank, a count).
  void fail(const std::string& what) {
    if (++mismatches_ <= kPrinted) {
      std::fprintf(stderr, "soak: rank %d: operation %llu (%s): %s\n", rank_, static_cast<unsigned long long>(operation_),
                   name_.c_str(), what.c_str());
      std::fflush(stderr);
    }
  }
  /// Names the operation later messages belong to.
  void begin(std::uint64_t operation, std::string name) {
    operation_ = operation;
    name_ = std::move(name);
  }
  [[nodiscard]] const std::string& operation_name() const noexcept { return name_; }
  [[nodiscard]] std::uint64_t elements() const noexcept { return elements_; }
  [[nodiscard]] std::uint64_t mismatches() const noexcept { return mismatches_; }
  [[nodiscard]] int rank() const noexcept { return rank_; }

 private:
  static constexpr std::uint64_t kPrinted = 10;
  int rank_;
  std::uint64_t elements_ = 0, mismatches_ = 0, operation_ = 0;
  std::string name_;
};

template <std::size_t N>
std::string describe(const char* array, const Point<N>& p) {
  std::ostringstream out;
  out << array << p;
  return out.str();
}

/// Every element this rank owns in `a` against the shadow; the owner of each according to the
/// distribution; and, across the ranks of `world` (`a`'s communicator), that every index is owned
/// exactly once (every index of the domain, or `stored` of them when a box set leaves holes).
template <std::size_t N>
void check_owned(const char* name, const DistArray<double, N>& a, const Shadow<N>& s, Tally& tally, MPI_Comm world,
                 index_t stored = -1) {
  if (a.domain().box() != s.box) {
    std::ostringstream out;
    out << name << ": the domain box " << a.domain().box() << " differs from the shadow's " << s.box;
    return tally.fail(out.str());
  }
  const Distribution<N>& dist = a.distribution();
  const int rank = a.domain().comm().rank();  // in the array's communicator (a processor group's, say)
  long long owned = 0;
  a.for_each_owned([&](const Point<N>& p, const double& x) {
    ++owned;
    if (!contains(s.box, p)) return tally.fail(describe(name, p) + " is outside the domain");
    if (dist.owner(p) != rank) tally.fail(describe(name, p) + " is visited by a rank that does not own it");
    tally.compare(x, s[p], [&] { return describe(name, p); });
  });
  if (owned != dist.local_size(rank)) tally.fail(std::string(name) + ": for_each_owned disagrees with local_size");
  long long total = 0;
  MPI_Allreduce(&owned, &total, 1, MPI_LONG_LONG, MPI_SUM, world);
  const index_t expected = stored < 0 ? volume(s.box) : stored;
  if (total != expected)
    tally.fail(std::string(name) + ": " + std::to_string(total) + " elements owned in all, the domain stores " +
               std::to_string(expected));
}

/// Every ghost element the spec asks to fill against the shadow value of the point it mirrors.
/// `stored`, if given, marks with 1 the indices some box of a box set with holes holds: a ghost
/// over a hole is left alone by the update, so it is not checked, unless the array's holes rule
/// (`a.boundary().hole_rule()`) is a constant or a reflect (the patch's own cell mirrored about its
/// box, negated for the odd rule).
template <std::size_t N>
void check_ghosts(const char* name, const DistArray<double, N>& a, const Shadow<N>& s, Tally& tally,
                  const Shadow<N>* stored = nullptr) {
  const GhostSpec<N>& g = a.ghosts();
  if (a.layout().custom()) {  // a local layout: each owned box's ghost slabs, after the owned points
    const auto& boxes = a.layout().custom_boxes();
    for (std::size_t b = 0; b < boxes.size(); ++b)
      if (!boxes[b].empty())
        for (const auto& slab : detail::ghost_boxes(boxes[b], g))
          for_each_point(slab, [&](const Point<N>& q) {
            const auto mirrored = testing::wrap_point(s.box, g.periodic, q);
            if (!mirrored) return;  // outside a non-periodic boundary: the program's to fill
            const auto offset = static_cast<std::size_t>(a.layout().custom_offset(q, static_cast<int>(b)));
            tally.compare(a.storage()[offset], s[*mirrored],
                          [&] { return describe(name, q) + " (ghost in a slab of a local layout)"; });
          });
    return;
  }
  const auto& hole_rule = a.boundary().hole_rule();
  testing::for_each_stored(a.layout(), [&](const PatchLayout<N>& patch, const Point<N>& q, index_t offset, bool owned) {
    if (owned || !testing::in_requested_ghost(patch.owned_box(), g, q)) return;
    const auto mirrored = testing::wrap_point(s.box, g.periodic, q);
    if (!mirrored) return;  // outside a non-periodic boundary: the program's to fill
    if (stored && (*stored)[*mirrored] == 0.0) {  // over a hole
      const double got = a.storage()[static_cast<std::size_t>(offset)];
      const auto what = [&] { return describe(name, q) + " (ghost over a hole, holes rule)"; };
      if (hole_rule.kind == BoundaryKind::constant) tally.compare(got, hole_rule.value, what);
      if (hole_rule.kind == BoundaryKind::reflect) {
        const double wall = s[testing::mirrored_into(patch.owned_box(), q)];
        tally.compare(got, hole_rule.negate ? -wall : wall, what);
      }
      return;
    }
    tally.compare(a.storage()[static_cast<std::size_t>(offset)], s[*mirrored],
                  [&] { return describe(name, q) + " (ghost)"; });
  });
}

/// What boundary rules `rules` (no side `none`, no `function`) put at ghost point q, from the
/// shadow: the rule of the highest non-periodic axis along which q is outside, reading what the
/// lower axes' rules give (docs/arrays.md, "Boundary rules"). Written from points, not from the
/// fill plan.
template <std::size_t N>
double boundary_value(const Shadow<N>& s, const GhostSpec<N>& g, const BoundaryRules<double, N>& rules, Point<N> q) {
  int axis = -1;
  for (std::size_t d = 0; d < N; ++d)
    if (!g.periodic[d] && (q[d] < s.box.lo[d] || q[d] >= s.box.hi[d])) axis = static_cast<int>(d);
  if (axis < 0) return s[*testing::wrap_point(s.box, g.periodic, q)];
  const auto d = static_cast<std::size_t>(axis);
  const bool high = q[d] >= s.box.hi[d];
  const auto& rule = rules.side(d, high);
  if (rule.kind == BoundaryKind::constant) return rule.value;
  const index_t near = high ? s.box.hi[d] - 1 : s.box.lo[d];
  const index_t k = high ? q[d] - near : near - q[d];  // cells beyond the nearest inside
  if (rule.kind == BoundaryKind::reflect) {
    q[d] = high ? near - (k - 1) : near + (k - 1);
    const double v = boundary_value(s, g, rules, q);
    return rule.negate ? -v : v;
  }
  q[d] = near;
  const double a = boundary_value(s, g, rules, q);
  q[d] = high ? near - 1 : near + 1;
  const double b = boundary_value(s, g, rules, q);
  return a + static_cast<double>(k) * (a - b);
}

/// Every ghost element the spec asks to fill, outside the domain too, against `boundary_value`.
template <std::size_t N>
void check_ghosts_with_rules(const char* name, const DistArray<double, N>& a, const Shadow<N>& s,
                             const BoundaryRules<double, N>& rules, Tally& tally) {
  const GhostSpec<N>& g = a.ghosts();
  testing::for_each_stored(a.layout(), [&](const PatchLayout<N>& patch, const Point<N>& q, index_t offset, bool owned) {
    if (owned || !testing::in_requested_ghost(patch.owned_box(), g, q)) return;
    tally.compare(a.storage()[static_cast<std::size_t>(offset)], boundary_value(s, g, rules, q),
                  [&] { return describe(name, q) + " (ghost with boundary rules)"; });
  });
}

/// A whole array in row-major order (a gather) against the shadow.
template <std::size_t N>
void check_whole(const char* name, const std::vector<double>& whole, const Shadow<N>& s, Tally& tally) {
  if (whole.size() != s.values.size())
    return tally.fail(std::string(name) + ": gathered " + std::to_string(whole.size()) + " elements, expected " +
                      std::to_string(s.values.size()));
  for (std::size_t k = 0; k < whole.size(); ++k)
    tally.compare(whole[k], s.values[k], [&] { return std::string(name) + " element " + std::to_string(k); });
}

}  // namespace tessera::soak
