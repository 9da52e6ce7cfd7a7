// compile_schedule without MPI: the blocks a rank packs, unpacks and copies locally must visit
// exactly the elements its copies name, in the order the plan defines (copy by copy, points in
// row-major order of the source, the destination taken in the permuted order). The random cases
// compare the compiled stretches with that order enumerated point by point; the fixed cases check
// that contiguous axes are merged (a face is one run) and that element counts add up.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <sstream>
#include <string>
#include <utility>

#include "engine_checks.hpp"
#include "tessera/plan/compile_schedule.hpp"
#include "tessera/plan/halo_plan.hpp"
#include "tessera/plan/redistribution_plan.hpp"

namespace tessera {
namespace {

using namespace tessera::testing;
using Offsets = std::vector<index_t>;

/// The element offsets a block visits, stretch by stretch.
Offsets stretch_offsets(const Schedule& s, const Block& b) {
  Offsets out;
  s.for_each_stretch(b, [&](index_t offset, index_t count, index_t stride) {
    for (index_t k = 0; k < count; ++k) out.push_back(offset + k * stride);
  });
  return out;
}

/// (offset, count, stride) of each stretch of a block.
using Stretch = std::array<index_t, 3>;
std::vector<Stretch> stretches(const Schedule& s, const Block& b) {
  std::vector<Stretch> out;
  s.for_each_stretch(b, [&](index_t offset, index_t count, index_t stride) { out.push_back({offset, count, stride}); });
  return out;
}

/// The same through the grouped walk and the cursor, which the movers use: all three must agree.
void expect_walks_agree(const Schedule& s, const Block& b, const Offsets& want, const std::string& what) {
  Offsets grouped, cursor;
  s.for_each_stretch_group(b, [&](index_t offset, index_t count, index_t stride, index_t rows, index_t row_stride) {
    for (index_t r = 0; r < rows; ++r)
      for (index_t k = 0; k < count; ++k) grouped.push_back(offset + r * row_stride + k * stride);
  });
  for (StretchCursor c(s, b); !c.done(); c.next())
    for (index_t k = 0; k < c.count(); ++k) cursor.push_back(c.offset() + k * c.stride());
  EXPECT_EQ(grouped, want) << what << ": for_each_stretch_group";
  EXPECT_EQ(cursor, want) << what << ": StretchCursor";
}

/// The i-th position along each source axis, row-major: the order a copy enumerates its points.
template <std::size_t N, class Visit>
void for_each_position(const Point<N>& extents, Visit&& visit) {
  for (std::size_t d = 0; d < N; ++d)
    if (extents[d] <= 0) return;
  Point<N> j{};
  for (;;) {
    visit(j);
    std::size_t d = N;
    while (d-- > 0) {
      if (++j[d] < extents[d]) break;
      j[d] = 0;
    }
    if (d == static_cast<std::size_t>(-1)) return;
  }
}

/// The patch a copy's section lands in, by the rule written out: the named one, else the first
/// patch owning every point, else the first storing every point.
template <std::size_t N>
const PatchLayout<N>& patch_of(const StorageLayout<N>& layout, int named, const Section<N>& s) {
  if (named >= 0) return layout.patches().at(static_cast<std::size_t>(named));
  for (const auto& p : layout.patches())
    if (p.owns(s)) return p;
  for (const auto& p : layout.patches())
    if (p.stores(s)) return p;
  throw std::logic_error("the plan names a section its rank does not store");
}

/// Offsets of copy `c`'s source points (row-major) and destination points (the same order through
/// the permutation), by point-by-point enumeration; a copy between two ranks of a plan that moves
/// the fastest (last, row-major) axis is enumerated along the destination instead (row-major there,
/// the sources through the permutation).
template <std::size_t N>
std::pair<Offsets, Offsets> copy_offsets(const MotionPlan<N>& plan, const Copy<N>& c, const StorageLayout<N>* src,
                                         const StorageLayout<N>* dst) {
  const bool by_destination = plan.permutation()[N - 1] != static_cast<int>(N - 1) && c.src_rank != c.dst_rank;
  Point<N> extents;
  for (std::size_t d = 0; d < N; ++d) extents[d] = by_destination ? volume(c.dst.dim[d]) : volume(c.src.dim[d]);
  Offsets from, to;
  const PatchLayout<N>* sp = src ? &patch_of(*src, c.src_patch, c.src) : nullptr;
  const PatchLayout<N>* dp = dst ? &patch_of(*dst, c.dst_patch, c.dst) : nullptr;
  for_each_position(extents, [&](const Point<N>& j) {
    Point<N> p, q;
    for (std::size_t d = 0; d < N; ++d) {
      const auto s = static_cast<std::size_t>(plan.permutation()[d]);
      if (by_destination) {
        q[d] = index_at(c.dst.dim[d], j[d]);
        p[s] = index_at(c.src.dim[s], j[d]);
      } else {
        p[d] = index_at(c.src.dim[d], j[d]);
        q[d] = index_at(c.dst.dim[d], j[s]);
      }
    }
    if (sp) from.push_back(sp->element_offset(p));
    if (dp) to.push_back(dp->element_offset(q));
  });
  return {from, to};
}

/// Compiles `plan` for `rank` and checks every block against the enumeration of the copies; the
/// schedule goes to `compiled` when given.
template <std::size_t N>
void expect_compiled_like_enumerated(const MotionPlan<N>& plan, int rank, const StorageLayout<N>& src,
                                     const StorageLayout<N>& dst, const std::string& what,
                                     Schedule* compiled = nullptr) {
  const bool disjoint = plan.size() % 2 == 0;
  const Schedule s = compile_schedule(plan, rank, src, dst, disjoint);
  if (compiled) *compiled = s;
  EXPECT_EQ(s.local_disjoint, disjoint);
  std::map<int, Offsets> sends, receives;
  Offsets local_from, local_to;
  for (const auto& c : plan.copies()) {
    if (c.src_rank != rank && c.dst_rank != rank) continue;
    const auto [from, to] = copy_offsets(plan, c, c.src_rank == rank ? &src : nullptr, c.dst_rank == rank ? &dst : nullptr);
    if (c.src_rank == rank && c.dst_rank == rank) {
      local_from.insert(local_from.end(), from.begin(), from.end());
      local_to.insert(local_to.end(), to.begin(), to.end());
    } else if (c.src_rank == rank) {
      sends[c.dst_rank].insert(sends[c.dst_rank].end(), from.begin(), from.end());
    } else {
      receives[c.src_rank].insert(receives[c.src_rank].end(), to.begin(), to.end());
    }
  }
  const auto check_peers = [&](const std::vector<PeerBlocks>& got, const std::map<int, Offsets>& want,
                               const char* side) {
    ASSERT_EQ(got.size(), want.size()) << what << ": " << side << " peers";
    auto it = want.begin();
    for (const auto& p : got) {  // ascending peers, as the map
      const std::string where = what + ": " + side + " to peer " + std::to_string(p.peer);
      ASSERT_EQ(p.peer, it->first) << where;
      Offsets visited;
      index_t elements = 0;
      for (const Block& b : p.blocks) {
        const Offsets o = stretch_offsets(s, b);
        ASSERT_EQ(static_cast<index_t>(o.size()), b.volume) << where;
        ASSERT_GE(b.axes, 1u);
        ASSERT_LE(b.axes, N);
        expect_walks_agree(s, b, o, where);
        visited.insert(visited.end(), o.begin(), o.end());
        elements += b.volume;
      }
      ASSERT_EQ(visited, it->second) << where;
      ASSERT_EQ(p.elements, elements) << where;
      ++it;
    }
  };
  check_peers(s.sends, sends, "send");
  check_peers(s.receives, receives, "receive");
  ASSERT_EQ(s.local_src.size(), s.local_dst.size());
  Offsets from, to;
  for (std::size_t k = 0; k < s.local_src.size(); ++k) {
    const Offsets f = stretch_offsets(s, s.local_src[k]), t = stretch_offsets(s, s.local_dst[k]);
    ASSERT_EQ(f.size(), t.size()) << what << ": local copy " << k;
    expect_walks_agree(s, s.local_src[k], f, what + ": local source");
    expect_walks_agree(s, s.local_dst[k], t, what + ": local destination");
    from.insert(from.end(), f.begin(), f.end());
    to.insert(to.end(), t.begin(), t.end());
  }
  ASSERT_EQ(from, local_from) << what << ": local sources";
  ASSERT_EQ(to, local_to) << what << ": local destinations";
  index_t sent = 0, received = 0;
  for (const auto& [peer, o] : sends) sent += static_cast<index_t>(o.size());
  for (const auto& [peer, o] : receives) received += static_cast<index_t>(o.size());
  EXPECT_EQ(s.send_elements(), sent) << what;
  EXPECT_EQ(s.receive_elements(), received) << what;
  EXPECT_EQ(s.local_elements(), static_cast<index_t>(local_from.size())) << what;
}

template <std::size_t N>
typename MotionPlan<N>::Permutation random_permutation(std::mt19937_64& rng) {
  auto perm = MotionPlan<N>::identity();
  std::shuffle(perm.begin(), perm.end(), rng);
  return perm;
}

/// A box of `extents` at a random place inside a domain that has room for it.
template <std::size_t N>
std::pair<Box<N>, Box<N>> random_box_and_domain(std::mt19937_64& rng, const Point<N>& extents) {
  Box<N> box, domain;
  for (std::size_t d = 0; d < N; ++d) {
    box.lo[d] = static_cast<index_t>(rng() % 5) - 2;
    box.hi[d] = box.lo[d] + extents[d];
    domain.lo[d] = box.lo[d] - static_cast<index_t>(rng() % 3);
    domain.hi[d] = box.hi[d] + static_cast<index_t>(rng() % 3);
  }
  return {box, domain};
}

template <std::size_t N>
void schedule_cases(int cases, index_t max_extent) {
  std::mt19937_64 rng(900 + N);
  for (int k = 0; k < cases; ++k) {
    const int ranks = 1 + static_cast<int>(rng() % 5);
    std::ostringstream what;
    what << "case " << k;
    // A ghost fill: source and destination are the same layout, ghost sections on the receiving side.
    {
      const auto domain = random_domain<N>(rng, max_extent);
      const auto g = random_ghosts<N>(rng);
      const auto dist = any_distribution<N>(rng, domain, ranks, ghosted_dims(g));
      for (int r = 0; r < ranks; ++r) {
        const auto layout = StorageLayout<N>::make(dist, r, g);
        std::ostringstream w;
        w << what.str() << " halo " << dist << " " << g << " rank " << r;
        expect_compiled_like_enumerated(halo_plan(dist, g, r), r, layout, layout, w.str());
        expect_compiled_like_enumerated(reverse_halo_plan(dist, g, r), r, layout, layout, w.str() + " reversed");
      }
    }
    // A redistribution between any two kinds, with ghost layers around both (so that owned sections
    // are not whole patches and axes cannot always merge).
    {
      const auto domain = random_domain<N>(rng, max_extent);
      const auto ga = random_ghosts<N>(rng), gb = random_ghosts<N>(rng);
      const auto a = any_distribution<N>(rng, domain, ranks, ghosted_dims(ga));
      const auto b = any_distribution<N>(rng, domain, ranks, ghosted_dims(gb));
      for (int r = 0; r < ranks; ++r) {
        std::ostringstream w;
        w << what.str() << " redistribution " << a << " " << ga << " -> " << b << " " << gb << " rank " << r;
        expect_compiled_like_enumerated(redistribution_plan(a, b, r), r, StorageLayout<N>::make(a, r, ga),
                                        StorageLayout<N>::make(b, r, gb), w.str());
      }
    }
    // A section move with a random axis permutation (a transpose when N > 1).
    {
      const auto perm = random_permutation<N>(rng);
      Point<N> src_extents, dst_extents;
      for (std::size_t d = 0; d < N; ++d) src_extents[d] = 1 + static_cast<index_t>(rng() % static_cast<std::uint64_t>(max_extent));
      for (std::size_t d = 0; d < N; ++d) dst_extents[d] = src_extents[static_cast<std::size_t>(perm[d])];
      const auto [src_box, src_domain] = random_box_and_domain<N>(rng, src_extents);
      const auto [dst_box, dst_domain] = random_box_and_domain<N>(rng, dst_extents);
      const auto gs = random_ghosts<N>(rng, 2);
      const auto a = any_distribution<N>(rng, src_domain, ranks, ghosted_dims(gs));
      const auto b = any_distribution<N>(rng, dst_domain, ranks, false);
      for (int r = 0; r < ranks; ++r) {
        std::ostringstream w;
        w << what.str() << " section move " << src_box << " of " << a << " -> " << dst_box << " of " << b << " perm";
        for (const int axis : perm) w << ' ' << axis;
        w << " rank " << r;
        expect_compiled_like_enumerated(section_move_plan(a, src_box, b, dst_box, perm, r), r,
                                        StorageLayout<N>::make(a, r, gs), StorageLayout<N>::make(b, r, no_ghosts<N>()),
                                        w.str());
      }
    }
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(CompileSchedule, BlocksVisitTheElementsOfTheCopiesInPlanOrder1D) { schedule_cases<1>(150, 24); }
TEST(CompileSchedule, BlocksVisitTheElementsOfTheCopiesInPlanOrder2D) { schedule_cases<2>(120, 9); }
TEST(CompileSchedule, BlocksVisitTheElementsOfTheCopiesInPlanOrder3D) { schedule_cases<3>(50, 5); }

/// One rank, block distribution of `domain`, ghost layers `g`.
template <std::size_t N>
StorageLayout<N> single_rank_layout(const Box<N>& domain, const GhostSpec<N>& g) {
  std::array<DimSpec, N> specs;
  specs.fill(block());
  return StorageLayout<N>::make(Distribution<N>(domain, ProcGrid<N>::with_shape(1, Point<N>::filled(1)), specs), 0, g);
}

/// The schedule of one local copy of `from` onto `to` on one rank (its block: `local_src[0]`).
template <std::size_t N>
Schedule compiled_local_copy(const StorageLayout<N>& layout, const Box<N>& from, const Box<N>& to) {
  MotionPlan<N> plan;
  plan.copy(0, from, 0, to);
  Schedule s = compile_schedule(plan, 0, layout, layout);
  EXPECT_TRUE(s.sends.empty() && s.receives.empty());
  EXPECT_EQ(s.local_src.size(), 1u);
  return s;
}

/// Expects `b` to be one contiguous run of `volume` elements from element `offset`.
void expect_one_run(const Schedule& s, const Block& b, index_t offset, index_t volume) {
  EXPECT_EQ(b.axes, 1u);
  EXPECT_EQ(b.volume, volume);
  ASSERT_TRUE(s.contiguous(b));
  EXPECT_EQ(s.contiguous_offset(b), offset);
}

TEST(CompileSchedule, AWholePatchOrWholeRowsWithoutGhostsAreOneContiguousRun) {
  const auto layout = single_rank_layout<2>(Box<2>({0, 0}, {4, 6}), no_ghosts<2>());
  const Schedule whole = compiled_local_copy(layout, Box<2>({0, 0}, {4, 6}), Box<2>({0, 0}, {4, 6}));
  expect_one_run(whole, whole.local_src.at(0), 0, 24);
  EXPECT_EQ(whole.local_elements(), 24);
  const Schedule rows = compiled_local_copy(layout, Box<2>({1, 0}, {3, 6}), Box<2>({0, 0}, {2, 6}));
  expect_one_run(rows, rows.local_src.at(0), 6, 12);
  // 3-D: two whole inner planes fold into the outer axis.
  const auto cube = single_rank_layout<3>(Box<3>({0, 0, 0}, {3, 4, 5}), no_ghosts<3>());
  const Schedule planes = compiled_local_copy(cube, Box<3>({1, 0, 0}, {3, 4, 5}), Box<3>({0, 0, 0}, {2, 4, 5}));
  expect_one_run(planes, planes.local_src.at(0), 20, 40);
}

TEST(CompileSchedule, RowsInsideGhostLayersAreRowsOfOneRunEach) {
  // 4x6 owned, ghosts 1: extents 6x8. Owned rows 1 and 2 are two runs of 6, eight elements apart.
  const auto layout = single_rank_layout<2>(Box<2>({0, 0}, {4, 6}), ghosts<2>(1));
  const Schedule s = compiled_local_copy(layout, Box<2>({1, 0}, {3, 6}), Box<2>({0, 0}, {2, 6}));
  const Block& b = s.local_src.at(0);
  EXPECT_EQ(b.axes, 2u);
  EXPECT_FALSE(s.contiguous(b));
  index_t offset = 0, count = 0, stride = 0, rows = 0, row_stride = 0;
  ASSERT_TRUE(s.as_rows(b, offset, count, stride, rows, row_stride));
  EXPECT_EQ(offset, 2 * 8 + 1);
  EXPECT_EQ(count, 6);
  EXPECT_EQ(stride, 1);
  EXPECT_EQ(rows, 2);
  EXPECT_EQ(row_stride, 8);
  int calls = 0;
  s.for_each_stretch_group(b, [&](index_t, index_t, index_t, index_t, index_t) { ++calls; });
  EXPECT_EQ(calls, 1) << "one group for both rows";
}

TEST(CompileSchedule, AColumnIsOneStridedStretchAndOneElementIsOneRun) {
  const auto layout = single_rank_layout<2>(Box<2>({0, 0}, {4, 6}), no_ghosts<2>());
  const Schedule column = compiled_local_copy(layout, Box<2>({0, 2}, {4, 3}), Box<2>({0, 0}, {4, 1}));
  EXPECT_EQ(column.local_src.at(0).axes, 1u);
  EXPECT_EQ(stretches(column, column.local_src.at(0)), (std::vector<Stretch>{{2, 4, 6}}));
  const Schedule element = compiled_local_copy(layout, Box<2>({3, 5}, {4, 6}), Box<2>({0, 0}, {1, 1}));
  expect_one_run(element, element.local_src.at(0), 23, 1);
}

TEST(CompileSchedule, ATransposedCopyWalksTheDestinationAlongTheSourceOrder) {
  // dst(i, j) = src(j, i) on a 2x3 -> 3x2 pair of one-rank arrays.
  const auto src = single_rank_layout<2>(Box<2>({0, 0}, {2, 3}), no_ghosts<2>());
  const auto dst = single_rank_layout<2>(Box<2>({0, 0}, {3, 2}), no_ghosts<2>());
  MotionPlan<2> plan({1, 0});
  plan.copy(0, Box<2>({0, 0}, {2, 3}), 0, Box<2>({0, 0}, {3, 2}));
  const Schedule s = compile_schedule(plan, 0, src, dst);
  ASSERT_EQ(s.local_dst.size(), 1u);
  // Source element (i, j) = offset 3i + j goes to dst (j, i) = offset 2j + i.
  EXPECT_EQ(stretch_offsets(s, s.local_src[0]), (Offsets{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(stretch_offsets(s, s.local_dst[0]), (Offsets{0, 2, 4, 1, 3, 5}));
}

TEST(CompileSchedule, ATransposeBetweenRanksIsPackedTransposedAndReceivedInPlace) {
  // dst(i, j) = src(j, i), 4x4 over 2 ranks by rows on both sides: rank 0 sends rank 1 the 2x2
  // block src[0:2, 2:4], which lands in dst rows 2:4, columns 0:2 of rank 1. The receiver walks its
  // block row by row, as it is stored (runs of 2); the sender walks its own column by column.
  const Distribution<2> rows(Box<2>({0, 0}, {4, 4}), ProcGrid<2>::with_shape(2, {2, 1}), {block(), block()});
  const auto plan0 = section_move_plan(rows, rows.domain(), rows, rows.domain(), {1, 0}, 0);
  const auto plan1 = section_move_plan(rows, rows.domain(), rows, rows.domain(), {1, 0}, 1);
  const auto layout0 = StorageLayout<2>::make(rows, 0, no_ghosts<2>());
  const auto layout1 = StorageLayout<2>::make(rows, 1, no_ghosts<2>());
  const Schedule s0 = compile_schedule(plan0, 0, layout0, layout0);
  const Schedule s1 = compile_schedule(plan1, 1, layout1, layout1);
  ASSERT_EQ(s0.sends.size(), 1u);
  ASSERT_EQ(s1.receives.size(), 1u);
  // Rank 0 owns rows 0:2 (offset 4i + j); src (0, 2), (1, 2), (0, 3), (1, 3) in destination order.
  Offsets sent;
  for (const Block& b : s0.sends[0].blocks) {
    const Offsets o = stretch_offsets(s0, b);
    sent.insert(sent.end(), o.begin(), o.end());
  }
  EXPECT_EQ(sent, (Offsets{2, 6, 3, 7}));
  // Rank 1 owns dst rows 2:4 (offset 4(i - 2) + j): dst (2, 0), (2, 1), (3, 0), (3, 1): two rows.
  Offsets received;
  for (const Block& b : s1.receives[0].blocks) {
    const Offsets o = stretch_offsets(s1, b);
    received.insert(received.end(), o.begin(), o.end());
  }
  EXPECT_EQ(received, (Offsets{0, 1, 4, 5}));
  // A local copy keeps the source order: rank 0's own block src[0:2, 0:2] -> dst[0:2, 0:2].
  ASSERT_EQ(s0.local_src.size(), 1u);
  EXPECT_EQ(stretch_offsets(s0, s0.local_src[0]), (Offsets{0, 1, 4, 5}));
  EXPECT_EQ(stretch_offsets(s0, s0.local_dst[0]), (Offsets{0, 4, 1, 5}));
}

TEST(CompileSchedule, PeersAreAscendingAndKeepThePlanOrderOfTheirCopies) {
  // Rank 1 of four, 1-D block of [0, 8): it owns [2, 4). Copies added out of peer order.
  const Distribution<1> dist(Box<1>({0}, {8}), ProcGrid<1>::with_shape(4, {4}), {block()});
  const auto layout = StorageLayout<1>::make(dist, 1, no_ghosts<1>());
  MotionPlan<1> plan;
  plan.copy(1, Box<1>({3}, {4}), 3, Box<1>({6}, {7}));
  plan.copy(1, Box<1>({2}, {3}), 0, Box<1>({0}, {1}));
  plan.copy(1, Box<1>({2}, {4}), 3, Box<1>({6}, {8}));
  plan.copy(2, Box<1>({4}, {6}), 1, Box<1>({2}, {4}));
  plan.copy(0, Box<1>({0}, {2}), 2, Box<1>({4}, {6}));  // does not involve rank 1
  const Schedule s = compile_schedule(plan, 1, layout, layout);
  ASSERT_EQ(s.sends.size(), 2u);
  EXPECT_EQ(s.sends[0].peer, 0);
  EXPECT_EQ(s.sends[1].peer, 3);
  ASSERT_EQ(s.sends[1].blocks.size(), 2u);
  EXPECT_EQ(stretch_offsets(s, s.sends[1].blocks[0]), (Offsets{1}));
  EXPECT_EQ(stretch_offsets(s, s.sends[1].blocks[1]), (Offsets{0, 1}));
  EXPECT_EQ(s.sends[1].elements, 3);
  ASSERT_EQ(s.receives.size(), 1u);
  EXPECT_EQ(s.receives[0].peer, 2);
  EXPECT_EQ(s.send_elements(), 4);
  EXPECT_EQ(s.receive_elements(), 2);
  EXPECT_EQ(s.local_elements(), 0);
}

/// A distribution of `domain` over `ranks` with axis `a` block-cyclic(b) (b random, sometimes
/// cyclic or block) and every other axis whole.
template <std::size_t N>
Distribution<N> cyclic_along(std::mt19937_64& rng, const Box<N>& domain, int ranks, std::size_t a) {
  Point<N> shape = Point<N>::filled(1);
  shape[a] = ranks;
  std::array<DimSpec, N> specs;
  specs.fill(collapsed());
  const index_t sizes[] = {1, 100, 128, 256};
  const index_t b = sizes[rng() % 4];
  specs[a] = rng() % 3 == 0 ? block() : block_cyclic(b);
  return Distribution<N>(domain, ProcGrid<N>::with_shape(ranks, shape), specs);
}

TEST(CompileSchedule, LargeStridedCopiesAreCutIntoPiecesInPlanOrder) {
  // Copies between ranks whose outermost axis is runs of at least detail::kMinPieceElements
  // elements are one block per run (messages of their own, PeerBlocks::block_messages); the
  // blocks still visit the copies' elements in plan order, on every rank, ghosts or not, for
  // redistributions and for a transpose.
  std::mt19937_64 rng(1234);
  int cut = 0, whole = 0;  // peers cut into pieces, peers not
  const auto count = [&](const Schedule& s) {
    for (const auto* list : {&s.sends, &s.receives})
      for (const PeerBlocks& p : *list) {
        (p.block_messages ? cut : whole) += 1;
        if (p.block_messages) {  // pieces of a cut copy, maybe beside other copies' smaller blocks
          const auto large = std::count_if(p.blocks.begin(), p.blocks.end(),
                                           [](const Block& b) { return b.volume >= detail::kMinPieceElements; });
          EXPECT_GE(large, 2);
        }
      }
  };
  for (int k = 0; k < 24; ++k) {
    const int ranks = 2 + static_cast<int>(rng() % 3);
    // Rows a multiple of 256 P (every block boundary at a chunk boundary, 2-D case) or not.
    const index_t rows = rng() % 2 ? 256 * ranks * (2 + static_cast<index_t>(rng() % 3))
                                   : 3000 + static_cast<index_t>(rng() % 3000);
    const Box<2> domain({0, 0}, {rows, 64 + static_cast<index_t>(rng() % 20)});
    const auto a = cyclic_along<2>(rng, domain, ranks, 0), b = cyclic_along<2>(rng, domain, ranks, 0);
    const auto ga = a.dim(0).owns_intervals() ? random_ghosts<2>(rng) : no_ghosts<2>();
    for (int r = 0; r < ranks; ++r) {
      std::ostringstream w;
      w << "case " << k << " redistribution " << a << " " << ga << " -> " << b << " rank " << r;
      const auto src = StorageLayout<2>::make(a, r, ga), dst = StorageLayout<2>::make(b, r, no_ghosts<2>());
      Schedule compiled;
      expect_compiled_like_enumerated(redistribution_plan(a, b, r), r, src, dst, w.str(), &compiled);
      count(compiled);
      // A transpose, onto a distribution cut along either axis (along axis 0 the copies' outermost
      // axis, enumerated in the destination's order, is the destination's runs: cut).
      const Box<2> flipped({0, 0}, {domain.hi[1], domain.hi[0]});
      const auto t = cyclic_along<2>(rng, flipped, ranks, rng() % 2);
      w << " transposed onto " << t;
      const auto plan = section_move_plan(a, domain, t, flipped, {1, 0}, r);
      const auto tl = StorageLayout<2>::make(t, r, no_ghosts<2>());
      expect_compiled_like_enumerated(plan, r, src, tl, w.str(), &compiled);
      count(compiled);
    }
    // 3-D: planes of 8 x 8, runs of 128 planes and more.
    const Box<3> cube({0, 0, 0}, {2000 + static_cast<index_t>(rng() % 2000), 8, 8});
    const auto c = cyclic_along<3>(rng, cube, ranks, 0), d = cyclic_along<3>(rng, cube, ranks, 0);
    for (int r = 0; r < ranks; ++r) {
      const auto src = StorageLayout<3>::make(c, r, no_ghosts<3>()), dst = StorageLayout<3>::make(d, r, no_ghosts<3>());
      std::ostringstream w;
      w << "case " << k << " 3-D " << c << " -> " << d << " rank " << r;
      Schedule compiled;
      expect_compiled_like_enumerated(redistribution_plan(c, d, r), r, src, dst, w.str(), &compiled);
      count(compiled);
    }
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(cut, 20);
  EXPECT_GT(whole, 20);
}

TEST(CompileSchedule, SmallOrLocalStridedCopiesStayOneBlock) {
  // Block -> cyclic rows of 64 elements: runs far under kMinPieceElements; and a rank's copy to
  // itself is never cut (no message to save).
  const Box<2> domain({0, 0}, {1024, 64});
  const Distribution<2> a(domain, ProcGrid<2>::with_shape(2, {2, 1}), {block(), collapsed()});
  const Distribution<2> rows(domain, ProcGrid<2>::with_shape(2, {2, 1}), {cyclic(), collapsed()});
  const Distribution<2> chunks(domain, ProcGrid<2>::with_shape(2, {2, 1}), {block_cyclic(128), collapsed()});
  const auto la = StorageLayout<2>::make(a, 0, no_ghosts<2>());
  const Schedule small =
      compile_schedule(redistribution_plan(a, rows, 0), 0, la, StorageLayout<2>::make(rows, 0, no_ghosts<2>()));
  ASSERT_EQ(small.sends.size(), 1u);
  EXPECT_FALSE(small.sends[0].block_messages);
  EXPECT_EQ(small.sends[0].blocks.size(), 1u);
  const Schedule large =
      compile_schedule(redistribution_plan(a, chunks, 0), 0, la, StorageLayout<2>::make(chunks, 0, no_ghosts<2>()));
  ASSERT_EQ(large.sends.size(), 1u);
  EXPECT_TRUE(large.sends[0].block_messages);
  EXPECT_EQ(large.sends[0].blocks.size(), 2u);  // rows [128, 256) and [384, 512) of rank 0's [0, 512)
  for (const Block& b : large.sends[0].blocks) EXPECT_TRUE(large.contiguous(b));
  EXPECT_EQ(large.local_src.size(), 1u);  // rows [0, 128) and [256, 384): one local copy, not cut
}

TEST(CompileSchedule, ASectionTheRankDoesNotStoreIsAnErrorNamingTheCopy) {
  const Distribution<1> dist(Box<1>({0}, {8}), ProcGrid<1>::with_shape(2, {2}), {block()});
  const auto layout = StorageLayout<1>::make(dist, 0, ghosts<1>(1));  // stores [-1, 5)
  const auto expect_out_of_range = [&](const MotionPlan<1>& plan, const std::string& part) {
    try {
      (void)compile_schedule(plan, 0, layout, layout);
      ADD_FAILURE() << "no error for " << plan;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::out_of_range) << e.what();
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  MotionPlan<1> source;
  source.copy(0, Box<1>({0}, {1}), 1, Box<1>({4}, {5}));
  source.copy(0, Box<1>({3}, {6}), 1, Box<1>({4}, {7}));
  expect_out_of_range(source, "MotionPlan copy 1: the source section");
  MotionPlan<1> destination;
  destination.copy(1, Box<1>({4}, {7}), 0, Box<1>({-2}, {1}));
  expect_out_of_range(destination, "MotionPlan copy 0: the destination section");
  // The ghost layer is storage: a copy into it compiles.
  MotionPlan<1> ghost;
  ghost.copy(1, Box<1>({4}, {6}), 0, Box<1>({-1}, {1}));
  EXPECT_NO_THROW((void)compile_schedule(ghost, 0, layout, layout));
}

}  // namespace
}  // namespace tessera
