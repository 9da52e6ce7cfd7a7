#pragma once
// Disjoint processor groups in the soak (ZPL's disjoint grids, exchange/processor_groups.hpp): the
// world split into random groups (some ranks in none), an array on each of two groups under random
// distributions of any kind, then copy_between_groups one way and copy_section_between_groups of a
// random box the other way (array/group_copy.hpp), each checked on the receiving group against a
// serial shadow. Every rank draws the same numbers, so every rank builds the same groups.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "soak_shadow.hpp"

namespace tessera::soak {

/// A random split of `size` ranks into two or three disjoint groups (one on one rank), each in a
/// random order; every rank past the first two lands in a random group or in none.
inline std::vector<std::vector<int>> random_groups(std::mt19937_64& rng, int size) {
  if (size == 1) return {{0}};
  std::vector<int> ranks(static_cast<std::size_t>(size));
  std::iota(ranks.begin(), ranks.end(), 0);
  std::shuffle(ranks.begin(), ranks.end(), rng);
  const std::size_t count = size > 2 && rng() % 2 == 0 ? 3 : 2;
  std::vector<std::vector<int>> groups(count);
  groups[0].push_back(ranks[0]);
  groups[1].push_back(ranks[1]);
  for (std::size_t i = 2; i < ranks.size(); ++i) {
    const auto g = static_cast<std::size_t>(rng() % (count + 1));  // count: in no group
    if (g < count) groups[g].push_back(ranks[i]);
  }
  if (groups.back().empty()) groups.pop_back();
  return groups;
}

/// One group's side of a move: its distribution (for the group's ranks) and, on the group's ranks
/// only, a domain over the group's communicator and an array over it.
template <std::size_t N>
struct GroupSide {
  Distribution<N> dist;
  std::optional<Domain<N>> domain;
  std::optional<DistArray<double, N>> array;

  GroupSide(const ProcessorGroups& groups, int group, Distribution<N> d, const GhostSpec<N>& ghosts) : dist(std::move(d)) {
    if (groups.my_group() != group) return;
    domain.emplace(groups.communicator(), dist);
    array.emplace(*domain, ghosts);
  }
  [[nodiscard]] DistArray<double, N>* get() { return array ? &*array : nullptr; }
  /// Owned elements and `s` set to fresh values of `salt`.
  void write(Shadow<N>& s, std::uint64_t salt) {
    if (array) array->for_each_owned([&](const Point<N>& p, double& x) { x = fresh_value(p, salt); });
    for_each_point(s.box, [&](const Point<N>& p) { s[p] = fresh_value(p, salt); });
  }
  /// The group's ranks check their parts against `s` (collective over the group only).
  void check(const char* name, const ProcessorGroups& groups, const Shadow<N>& s, Tally& tally) const {
    if (array) check_owned(name, *array, s, tally, groups.communicator().raw());
  }
};

/// The operation (see the file comment) over `box`, whose values `s` holds; `draw(box, ghosts,
/// ranks)` gives a random distribution for `ranks` ranks that takes `ghosts`.
template <std::size_t N, class Draw>
void copy_between_random_groups(const Communicator& world, std::mt19937_64& rng, Tally& tally, const Box<N>& box,
                                const Shadow<N>& s, Draw&& draw) {
  const ProcessorGroups groups(world, random_groups(rng, world.size()));
  const auto ghosts_for = [&] { return rng() % 2 == 0 ? GhostSpec<N>{} : testing::random_ghosts<N>(rng); };
  const auto from = static_cast<int>(rng() % static_cast<std::uint64_t>(groups.count()));
  const GhostSpec<N> from_ghosts = ghosts_for();
  GroupSide<N> a(groups, from, draw(box, from_ghosts, groups.size(from)), from_ghosts);
  Shadow<N> sa = s;
  if (a.array) a.array->for_each_owned([&](const Point<N>& p, double& x) { x = s[p]; });
  if (groups.count() < 2) {  // one rank: one group, and a copy within it is refused on every rank
    try {
      copy_between_groups<double>(groups, from, a.dist, a.get(), from, a.dist, a.get());
      tally.fail("copy_between_groups within one group did not throw");
    } catch (const Error& e) {
      if (std::string(e.what()).find("are both") == std::string::npos)
        tally.fail(std::string("copy_between_groups within one group: unexpected error: ") + e.what());
    }
    a.check("group array after a refused copy", groups, sa, tally);
    return;
  }
  const int to = (from + 1 + static_cast<int>(rng() % static_cast<std::uint64_t>(groups.count() - 1))) % groups.count();
  const GhostSpec<N> to_ghosts = ghosts_for();
  GroupSide<N> b(groups, to, draw(box, to_ghosts, groups.size(to)), to_ghosts);
  Shadow<N> sb(box);
  b.write(sb, rng());
  copy_between_groups<double>(groups, from, a.dist, a.get(), to, b.dist, b.get());
  b.check("copy between groups", groups, s, tally);

  // A random box of b, freshly written, onto a random place in a.
  b.write(sb, rng());
  Box<N> src;
  Point<N> dst_lo;
  for (std::size_t d = 0; d < N; ++d) {
    const index_t e = 1 + static_cast<index_t>(rng() % static_cast<std::uint64_t>(extent(box, d)));
    src.lo[d] = box.lo[d] + static_cast<index_t>(rng() % static_cast<std::uint64_t>(extent(box, d) - e + 1));
    src.hi[d] = src.lo[d] + e;
    dst_lo[d] = box.lo[d] + static_cast<index_t>(rng() % static_cast<std::uint64_t>(extent(box, d) - e + 1));
  }
  copy_section_between_groups<double>(groups, to, b.dist, b.get(), src, from, a.dist, a.get(), dst_lo);
  for_each_point(src, [&](const Point<N>& p) { sa[p - src.lo + dst_lo] = sb[p]; });
  a.check("section copied between groups", groups, sa, tally);
}

}  // namespace tessera::soak
