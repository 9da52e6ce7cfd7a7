#pragma once
// One soak episode: a random N-d domain with two arrays over it (u with random ghost layers, w
// without) driven through random operations, each followed by a check of every rank's part of
// both against the shadows. Every random number is drawn alike on every rank (one generator, one
// seed, no draw depends on the rank), so every rank makes the same collective calls.
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "soak_box_sets.hpp"
#include "tessera/balance/box_balancer.hpp"
#include "soak_groups.hpp"
#include "soak_local_layouts.hpp"
#include "tessera/exchange/mover_totals.hpp"
#include "soak_shadow.hpp"

namespace tessera::soak {

/// What all episodes share.
struct Context {
  const Communicator& comm;
  std::mt19937_64& rng;
  Tally& tally;
  std::string checkpoint_path;              ///< the same on every rank
  std::uint64_t operations = 0;             ///< done so far, every episode together
  std::map<std::string, std::uint64_t> by_kind;
  std::uint64_t local_layouts = 0;          ///< distributions drawn with a user-defined local layout
  std::uint64_t corrupt_after = UINT64_MAX;  ///< the checker's self-test: spoil u after this operation
};

/// An integer in [lo, hi].
inline index_t draw(std::mt19937_64& rng, index_t lo, index_t hi) {
  return lo + static_cast<index_t>(rng() % static_cast<std::uint64_t>(hi - lo + 1));
}
/// A double in [0, 1), the same bits on every rank and build.
inline double draw_fraction(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

/// True if incremental balancing can move this distribution's cuts (Balancer, plan_step). Every
/// axis must own intervals, not only the distributed ones `balanced_axes` asks about: plan_step
/// counts what moves with `owned_box`, which refuses a cyclic or irregular axis even where the
/// grid does not split it (the soak found this; the Balancer accepts such a distribution and then
/// fails at its first remap point).
template <std::size_t N>
bool cuts_can_move(const Distribution<N>& dist) {
  return dist.owns_boxes();
}

template <std::size_t N>
class Episode {
 public:
  Episode(Context& c, index_t max_extent)
      : c_(c), max_extent_(max_extent), box_(testing::random_domain<N>(c.rng, max_extent)), su_(box_), sw_(box_) {
    // A quarter of the episodes without ghosts: their domain may then take a local layout.
    ghosts_ = c_.rng() % 4 == 0 ? GhostSpec<N>{} : testing::random_ghosts<N>(c_.rng);
    dom_ = std::make_unique<Domain<N>>(c_.comm, any_distribution(box_, ghosts_));
    u_ = std::make_unique<DistArray<double, N>>(*dom_, ghosts_);
    w_ = std::make_unique<DistArray<double, N>>(*dom_);
    write();
  }

  /// `operations` random operations, each checked.
  void run(int operations) {
    const auto& kinds = kinds_table();
    int total = 0;
    for (const Kind& k : kinds) total += k.weight;
    for (int i = 0; i < operations; ++i) {
      int pick = static_cast<int>(c_.rng() % static_cast<std::uint64_t>(total));
      const Kind* kind = kinds.data();
      while (pick >= kind->weight) pick -= (kind++)->weight;
      c_.tally.begin(c_.operations, kind->name);
      (this->*(kind->run))();
      if (c_.operations == c_.corrupt_after) corrupt();
      check_owned("u", *u_, su_, c_.tally, MPI_COMM_WORLD);
      check_owned("w", *w_, sw_, c_.tally, MPI_COMM_WORLD);
      ++c_.operations;
      ++c_.by_kind[kind->name];
    }
  }

 private:
  struct Kind {
    const char* name;
    int weight;
    void (Episode::*run)();
  };
  static const std::vector<Kind>& kinds_table() {
    static const std::vector<Kind> kinds = {
        {"write", 8, &Episode::write},
        {"redistribute", 10, &Episode::redistribute},
        {"redistribute-destructive", 3, &Episode::redistribute_destructive},
        {"resize", 4, &Episode::resize},
        {"incremental-step", 10, &Episode::incremental_step},
        {"balancer-steps", 5, &Episode::balancer_steps},
        {"withdraw-readd", 6, &Episode::withdraw_or_readd},
        {"ghosts", 12, &Episode::ghosts},
        {"boundary-ghosts", 5, &Episode::boundary_ghosts},
        {"copy-section", 6, &Episode::copy_sections},
        {"copy", 4, &Episode::copy_across},
        {"transpose", 6, &Episode::transposes},
        {"checkpoint-restart", 2, &Episode::checkpoint_restart},
        {"gather-scatter", 4, &Episode::gather_scatter},
        {"reductions", 3, &Episode::reductions},
        {"scan", 3, &Episode::scans},
        {"partial-reduce", 3, &Episode::partial_reduce},
        {"region-statement", 4, &Episode::region_statement},
        {"boxset-holes", 3, &Episode::box_set_with_holes},
        {"boxset-step", 3, &Episode::box_step},
        {"box-balancer-steps", 3, &Episode::box_balancer_steps},
        {"flood", 3, &Episode::flood_slice},
        {"associative", 3, &Episode::associative},
        {"sparse-follow", 3, &Episode::sparse_follow},
        {"region-follow", 3, &Episode::region_follow},
        {"group-copy", 3, &Episode::group_copy},
    };
    return kinds;
  }

  // Any kind for `ranks` ranks (0: the world's), a box set that tiles the whole box included
  // (ghosts along any axis: one patch per box), and a user-defined local layout
  // (soak_local_layouts.hpp; its ghost cells in slabs after the owned points).
  [[nodiscard]] Distribution<N> any_distribution(const Box<N>& box, const GhostSpec<N>& ghosts, int ranks = 0) {
    if (ranks == 0) ranks = c_.comm.size();
    if (c_.rng() % 5 == 0) {
      ++c_.local_layouts;
      return random_local_layout<N>(c_.rng, box, ranks);
    }
    return patch_distribution(box, ghosts, ranks);
  }
  // Any kind whose arrays keep tessera's patches (no local layout): what checkpoints, scans,
  // partial reductions, boundary rules and region statements need.
  [[nodiscard]] Distribution<N> patch_distribution(const Box<N>& box, const GhostSpec<N>& ghosts, int ranks = 0) {
    if (ranks == 0) ranks = c_.comm.size();
    if (c_.rng() % 6 == 0) return random_box_set<N>(c_.rng, box, ranks, false).distribution;
    return testing::any_distribution<N>(c_.rng, box, ranks, testing::ghosted_dims(ghosts));
  }
  // The operations that need patches first move the domain off a local layout (the library refuses
  // them there with an Error; docs/concepts.md, "User-defined local layouts").
  void leave_local_layout() {
    if (dom_->distribution().has_local_layout()) dom_->redistribute(patch_distribution(box_, ghosts_), preserve());
  }
  [[nodiscard]] double any_delta() {
    const double deltas[] = {0.25, 0.5, 1.0, draw_fraction(c_.rng)};
    return deltas[c_.rng() % 4];
  }
  [[nodiscard]] Redistribution preserve() const { return Redistribution::preserve; }

  // --- operations ------------------------------------------------------------------------------

  void write() {
    const std::uint64_t salt = c_.rng();
    u_->for_each_owned([&](const Point<N>& p, double& x) { x = fresh_value(p, salt); });
    w_->for_each_owned([&](const Point<N>& p, double& x) { x = fresh_value(p, ~salt); });
    for_each_point(box_, [&](const Point<N>& p) {
      su_[p] = fresh_value(p, salt);
      sw_[p] = fresh_value(p, ~salt);
    });
  }

  void redistribute() { dom_->redistribute(any_distribution(box_, ghosts_), preserve()); }

  // A sparse subdomain of random points of the domain (every rank names its own batch), its values
  // u's there; the domain moves to another distribution and the indices and values must follow
  // (array/sparse_domain.hpp): every held value equals the shadow's, and none is lost or doubled.
  void sparse_follow() {
    std::vector<Point<N>> all, mine;
    for (int k = 0; k < 16; ++k) {
      Point<N> p;
      for (std::size_t d = 0; d < N; ++d)
        p[d] = box_.lo[d] + static_cast<index_t>(c_.rng() % static_cast<std::uint64_t>(extent(box_, d)));
      if (detail::owner_or_none(dom_->distribution(), p) < 0) continue;  // a hole of a box set
      all.push_back(p);
      if (k % c_.comm.size() == c_.comm.rank()) mine.push_back(p);
    }
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    SparseDomain<N> s(*dom_, mine);
    SparseArray<double, N> a(s);
    a.for_each([&](const Point<N>& p, double& v) { v = u_->at(p); });
    dom_->redistribute(any_distribution(box_, ghosts_), preserve());
    std::size_t held = 0;
    a.for_each([&](const Point<N>& p, const double& v) {
      held += detail::owner_or_none(dom_->distribution(), p) == c_.comm.rank() ? 1 : 0;
      c_.tally.compare(v, su_[p], [] { return std::string("sparse value after the domain moved"); });
    });
    c_.tally.compare(static_cast<double>(held), static_cast<double>(a.values().size()),
                     [] { return std::string("sparse indices held by their owners"); });
    const auto kept = std::count_if(all.begin(), all.end(), [&](const Point<N>& p) {
      return detail::owner_or_none(dom_->distribution(), p) >= 0;  // the new distribution's holes drop indices
    });
    c_.tally.compare(static_cast<double>(s.size()), static_cast<double>(kept),
                     [] { return std::string("sparse indices after the domain moved"); });
  }

  // ZPL's regions over one distribution (Domain::region): an array over a random sub-box of the
  // domain takes u's values there, the domain moves to another distribution and the region's array
  // must follow, then goes into w's same box. Both copies are between aligned arrays: no byte may
  // go to another rank.
  void region_follow() {
    Box<N> r;
    for (std::size_t d = 0; d < N; ++d) {
      r.lo[d] = box_.lo[d] + draw(c_.rng, 0, extent(box_, d) - 1);
      r.hi[d] = draw(c_.rng, r.lo[d] + 1, box_.hi[d]);
    }
    const Domain<N> region = dom_->region(r);
    DistArray<double, N> x(region);
    const auto sent_between_ranks = [&](const MoverStats& before) {
      const MoverStats now = process_mover_stats();
      const auto sent = static_cast<double>(now.bytes_sent - before.bytes_sent + now.bytes_copied_from_peers -
                                            before.bytes_copied_from_peers);
      return c_.comm.allreduce(sent, ReduceOp::sum);
    };
    const MoverStats before_in = process_mover_stats();
    copy_section(*u_, r, x, r.lo);
    c_.tally.compare(sent_between_ranks(before_in), 0.0, [] { return std::string("bytes sent copying into a region"); });
    dom_->redistribute(any_distribution(box_, ghosts_), preserve());
    c_.tally.compare(region.distribution() == restricted(dom_->distribution(), r) ? 1.0 : 0.0, 1.0,
                     [] { return std::string("region aligned with the domain after it moved"); });
    x.for_each_owned([&](const Point<N>& p, const double& v) {
      c_.tally.compare(v, su_[p], [] { return std::string("region's value after the domain moved"); });
    });
    const MoverStats before_out = process_mover_stats();
    copy_section(x, r, *w_, r.lo);
    c_.tally.compare(sent_between_ranks(before_out), 0.0, [] { return std::string("bytes sent copying out of a region"); });
    for_each_point(r, [&](const Point<N>& p) { sw_[p] = su_[p]; });
  }

  void redistribute_destructive() {
    dom_->redistribute(any_distribution(box_, ghosts_), Redistribution::destructive);
    std::fill(su_.values.begin(), su_.values.end(), 0.0);
    std::fill(sw_.values.begin(), sw_.values.end(), 0.0);
  }

  // A preserving redistribution onto a box that moved each side by up to 2.
  void resize() {
    Box<N> to = box_;
    for (std::size_t d = 0; d < N; ++d) {
      to.lo[d] += draw(c_.rng, -2, 2);
      to.hi[d] = std::max(to.lo[d] + 1, std::min(to.hi[d] + draw(c_.rng, -2, 2), to.lo[d] + max_extent_));
    }
    dom_->redistribute(any_distribution(to, ghosts_), preserve());
    box_ = to;
    su_ = su_.resized(to);
    sw_ = sw_.resized(to);
  }

  // Incremental balancing needs cuts; a distribution of another kind is first replaced by one.
  void make_cuts_movable() {
    if (!cuts_can_move(dom_->distribution()))
      dom_->redistribute(testing::random_distribution<N>(c_.rng, box_, c_.comm.size(), true), preserve());
  }

  // plan_step + migrate toward random weights, a random fraction of the way.
  void incremental_step() {
    make_cuts_movable();
    const Distribution<N> dist = dom_->distribution();
    std::vector<double> weights(static_cast<std::size_t>(dist.grid().size()));
    for (double& x : weights) x = 0.1 + 3.9 * draw_fraction(c_.rng);
    const StepPlan<N> plan = plan_step(*dom_, cut_target(dist, weights), any_delta());
    if (plan.moves_anything()) (void)migrate_step(*dom_, plan);
  }

  // Balancer::step over a remap interval, with per-rank times from shared random slowdowns.
  void balancer_steps() {
    make_cuts_movable();
    BalancerOptions options;
    options.interval = static_cast<int>(draw(c_.rng, 1, 3));
    options.weights = static_cast<WeightRule>(c_.rng() % 3);
    Balancer<N> balancer(*dom_, std::make_shared<StaticDelta>(any_delta(), 0.0), options);
    std::vector<double> slowdown(static_cast<std::size_t>(c_.comm.size()));
    for (double& x : slowdown) x = 0.5 + 2.0 * draw_fraction(c_.rng);
    const int rank = c_.comm.rank();
    for (int i = 0; i < options.interval; ++i) {
      const auto held = static_cast<double>(dom_->distribution().local_size(rank));
      (void)balancer.step(1e-6 * (1.0 + held) * slowdown[static_cast<std::size_t>(rank)]);
    }
  }

  // A random set of active ranks in a random order: withdraws ranks, or (a third of the time)
  // brings every rank back.
  void withdraw_or_readd() {
    make_cuts_movable();
    std::vector<int> ranks(static_cast<std::size_t>(c_.comm.size()));
    std::iota(ranks.begin(), ranks.end(), 0);
    std::shuffle(ranks.begin(), ranks.end(), c_.rng);
    if (c_.rng() % 3 != 0) ranks.resize(static_cast<std::size_t>(draw(c_.rng, 1, c_.comm.size())));
    Balancer<N> balancer(*dom_, std::make_shared<NoRebalancing>());
    (void)balancer.set_active_ranks(ranks);
  }

  // A ghost update, a third of the time split-phase with w rewritten while it is in flight; then
  // every requested ghost of u is checked (under a local layout, in its ghost slabs).
  void ghosts() {
    if (c_.rng() % 3 == 0) {
      u_->begin_update_ghosts();
      const std::uint64_t salt = c_.rng();
      w_->for_each_owned([&](const Point<N>& p, double& x) { x = fresh_value(p, salt); });
      for_each_point(box_, [&](const Point<N>& p) { sw_[p] = fresh_value(p, salt); });
      u_->end_update_ghosts();
    } else {
      u_->update_ghosts();
    }
    check_ghosts("u", *u_, su_, c_.tally);
  }

  // A ghost update of u with random boundary rules on every non-periodic side (reflect, odd
  // reflect, constant, extrapolate), then every requested ghost, outside the domain too, checked.
  // A rule a thin rank cannot follow must fail on every rank alike. The rules are cleared after, so
  // that a later redistribution cannot make the plain "ghosts" operation fail.
  void boundary_ghosts() {
    namespace bc = tessera::boundary;
    leave_local_layout();
    BoundaryRules<double, N> rules;
    for (std::size_t d = 0; d < N; ++d) {
      if (ghosts_.periodic[d]) continue;
      for (int side = 0; side < 2; ++side) {
        const index_t width = side ? ghosts_.upper[d] : ghosts_.lower[d];
        const auto set = [&](const auto& r) { side ? rules.high(d, r) : rules.low(d, r); };
        const auto pick = c_.rng() % 4;
        if (pick < 2 && width <= extent(box_, d)) {
          set(bc::reflect(pick == 0 ? 1 : -1));
        } else if (pick == 3 && extent(box_, d) >= 2) {
          set(bc::extrapolate());
        } else {
          set(bc::constant(any_delta()));
        }
      }
    }
    u_->set_boundary(rules);
    int failed = 0;
    try {
      u_->update_ghosts();
    } catch (const Error& e) {
      failed = 1;
      if (std::string(e.what()).find("reads") == std::string::npos) c_.tally.fail(std::string("unexpected error: ") + e.what());
    }
    int failures = 0;
    MPI_Allreduce(&failed, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (failures != 0 && failures != c_.comm.size()) c_.tally.fail("a boundary rule failed on some ranks only");
    if (!failed) check_ghosts_with_rules("u", *u_, su_, rules, c_.tally);
    u_->set_boundary({});
  }

  // copy_section of a random box onto a random place, within u (overlaps allowed) or into w.
  void copy_sections() {
    Box<N> src;
    Point<N> dst_lo;
    for (std::size_t d = 0; d < N; ++d) {
      const index_t e = draw(c_.rng, 1, extent(box_, d));
      src.lo[d] = box_.lo[d] + draw(c_.rng, 0, extent(box_, d) - e);
      src.hi[d] = src.lo[d] + e;
      dst_lo[d] = box_.lo[d] + draw(c_.rng, 0, extent(box_, d) - e);
    }
    const bool into_w = c_.rng() % 2 == 0;
    copy_section(*u_, src, into_w ? *w_ : *u_, dst_lo);
    std::vector<double> moved;  // read everything before writing: the boxes may overlap
    for_each_point(src, [&](const Point<N>& p) { moved.push_back(su_[p]); });
    Shadow<N>& target = into_w ? sw_ : su_;
    std::size_t k = 0;
    for_each_point(Box<N>::from_extents(dst_lo, extents(src)), [&](const Point<N>& q) { target[q] = moved[k++]; });
  }

  // copy into an array over another domain of the same box (another distribution and ghosts),
  // checked there, then copied back into w.
  void copy_across() {
    const GhostSpec<N> g = c_.rng() % 3 == 0 ? GhostSpec<N>{} : testing::random_ghosts<N>(c_.rng);
    Domain<N> other(c_.comm, any_distribution(box_, g));
    DistArray<double, N> x(other, g);
    copy(*u_, x);
    check_owned("copy of u", x, su_, c_.tally, MPI_COMM_WORLD);
    copy(x, *w_);
    sw_ = su_;
  }

  // A transpose by a random permutation into an array over a permuted box, checked there, and
  // back into w; for a cube, half the time in place in u.
  void transposes() {
    std::array<int, N> perm;
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), c_.rng);
    Box<N> tbox;
    for (std::size_t d = 0; d < N; ++d) {
      tbox.lo[d] = draw(c_.rng, -3, 3);
      tbox.hi[d] = tbox.lo[d] + extent(box_, static_cast<std::size_t>(perm[d]));
    }
    // Where element p of a box `from` goes under `perm` in the box `to`.
    const auto moved_to = [&](const Box<N>& from, const Box<N>& to, const Point<N>& p) {
      Point<N> q;
      for (std::size_t d = 0; d < N; ++d) {
        const auto s = static_cast<std::size_t>(perm[d]);
        q[d] = to.lo[d] + p[s] - from.lo[s];
      }
      return q;
    };
    const bool cube = std::all_of(perm.begin(), perm.end(), [&](int d) {
      return extent(box_, static_cast<std::size_t>(d)) == extent(box_, 0);
    });
    if (cube && c_.rng() % 2 == 0) {
      transpose(*u_, *u_, perm);
      Shadow<N> t(box_);
      for_each_point(box_, [&](const Point<N>& p) { t[moved_to(box_, box_, p)] = su_[p]; });
      su_ = std::move(t);
      return;
    }
    const GhostSpec<N> g = c_.rng() % 3 == 0 ? GhostSpec<N>{} : testing::random_ghosts<N>(c_.rng);
    Domain<N> tdom(c_.comm, any_distribution(tbox, g));
    DistArray<double, N> t(tdom, g);
    transpose(*u_, t, perm);
    Shadow<N> st(tbox);
    for_each_point(box_, [&](const Point<N>& p) { st[moved_to(box_, tbox, p)] = su_[p]; });
    check_owned("transpose of u", t, st, c_.tally, MPI_COMM_WORLD);
    std::array<int, N> inverse;
    for (std::size_t d = 0; d < N; ++d) inverse[static_cast<std::size_t>(perm[d])] = static_cast<int>(d);
    transpose(t, *w_, inverse);
    sw_ = su_;
  }

  // io::save, then io::load into fresh arrays (other ghosts) over a fresh domain with another
  // distribution, which then replace the run's arrays: a restart.
  void checkpoint_restart() {
    leave_local_layout();
    const auto operation = static_cast<std::int64_t>(c_.operations);
    io::save(c_.checkpoint_path, {{"operation", operation}}, io::named("u", *u_), io::named("w", *w_));
    // A box set's checkpoint carries its box table (docs/checkpoint.md, "Box sets").
    if (const BoxSet<N>* set = dom_->distribution().box_set()) {
      const auto saved = io::saved_boxes<N>(c_.comm, c_.checkpoint_path);
      if (saved.domain != set->domain() || saved.boxes != set->boxes() || saved.owners != set->owners() ||
          saved.ranks != c_.comm.size())
        c_.tally.fail("the checkpoint's box table does not list the box set that saved it");
    }
    const GhostSpec<N> g = testing::random_ghosts<N>(c_.rng);
    auto dom = std::make_unique<Domain<N>>(c_.comm, patch_distribution(box_, g));
    auto u = std::make_unique<DistArray<double, N>>(*dom, g);
    auto w = std::make_unique<DistArray<double, N>>(*dom);
    const io::Attributes at = io::load(c_.checkpoint_path, io::named("u", *u), io::named("w", *w));
    const auto found = at.find("operation");
    if (found == at.end() || found->second != io::AttributeValue(operation))
      c_.tally.fail("the checkpoint's attribute 'operation' did not come back");
    u_ = std::move(u);
    w_ = std::move(w);
    dom_ = std::move(dom);
    ghosts_ = g;
  }

  // gather_to_all or gather_to a random root, checked against the shadow; then scatter_from a
  // random root sets w.
  void gather_scatter() {
    const int size = c_.comm.size(), rank = c_.comm.rank();
    if (c_.rng() % 2 == 0) {
      check_whole("u gathered to all", u_->gather_to_all(), su_, c_.tally);
    } else {
      const int root = static_cast<int>(draw(c_.rng, 0, size - 1));
      const std::vector<double> whole = u_->gather_to(root);
      if (rank == root)
        check_whole("u gathered to its root", whole, su_, c_.tally);
      else if (!whole.empty())
        c_.tally.fail("gather_to filled a vector on a rank other than the root");
    }
    const int root = static_cast<int>(draw(c_.rng, 0, size - 1));
    const std::uint64_t salt = c_.rng();
    for_each_point(box_, [&](const Point<N>& p) { sw_[p] = fresh_value(p, salt); });
    w_->scatter_from(root, rank == root ? std::span<const double>(sw_.values) : std::span<const double>());
  }

  // max, min_loc and max_loc against the shadow (exact: no rounding in max and min).
  void reductions() {
    const auto lowest = std::min_element(su_.values.begin(), su_.values.end());  // the first: lexicographic
    const auto highest = std::max_element(su_.values.begin(), su_.values.end());
    const auto point_at = [&](std::size_t k) {
      Point<N> p;
      for (std::size_t d = N; d-- > 0;) {
        p[d] = box_.lo[d] + static_cast<index_t>(k) % extent(box_, d);
        k /= static_cast<std::size_t>(extent(box_, d));
      }
      return p;
    };
    const auto expect_at = [&](const char* what, const ValueAt<double, N>& got, auto it) {
      const Point<N> want = point_at(static_cast<std::size_t>(it - su_.values.begin()));
      c_.tally.compare(got.value, *it, [&] { return std::string(what); });
      for (std::size_t d = 0; d < N; ++d)
        c_.tally.compare(static_cast<double>(got.at[d]), static_cast<double>(want[d]),
                         [&] { return std::string(what) + " point, axis " + std::to_string(d); });
    };
    c_.tally.compare(u_->max(), *highest, [] { return std::string("u.max()"); });
    expect_at("u.min_loc()", u_->min_loc(), lowest);
    expect_at("u.max_loc()", u_->max_loc(), highest);
  }

  // w = a max-scan of u (over the whole array in row-major order, or along a random axis;
  // inclusive or exclusive); the shadow scanned serially. Exact: max does not round.
  void scans() {
    leave_local_layout();
    const auto axis = static_cast<std::size_t>(c_.rng() % (N + 1));  // N: the whole array
    const ScanKind kind = c_.rng() % 2 == 0 ? ScanKind::inclusive : ScanKind::exclusive;
    const double lowest = -std::numeric_limits<double>::infinity();
    const auto max_op = [](double a, double b) { return std::max(a, b); };
    if (axis == N)
      scan(*u_, *w_, kind, lowest, max_op);
    else
      scan_along(*u_, axis, *w_, kind, lowest, max_op);
    // Row-major order visits the element before p in its line (the one before in row-major order,
    // or p less one along the axis) before p.
    Shadow<N> inclusive(box_);
    double running = lowest;
    for_each_point(box_, [&](const Point<N>& p) {
      double before = running;
      if (axis < N) {
        Point<N> q = p;
        --q[axis];
        before = p[axis] == box_.lo[axis] ? lowest : inclusive[q];
      }
      inclusive[p] = running = std::max(before, su_[p]);
      sw_[p] = kind == ScanKind::inclusive ? inclusive[p] : before;
    });
  }

  // w's reduced form: a max-reduction of u along a random non-empty set of axes (ZPL's partial
  // reduction) into an array over the reduced box, distributed as `reduced_distribution` aligns it
  // with u's or (always for a user-defined distribution, which has no reduced form) at random;
  // checked against the shadow reduced serially. Exact: max does not round.
  void partial_reduce() {
    leave_local_layout();
    std::vector<std::size_t> axes;
    for (std::size_t d = 0; d < N; ++d)
      if (c_.rng() % 2 == 0) axes.push_back(d);
    if (axes.empty()) axes.push_back(static_cast<std::size_t>(c_.rng() % N));
    Box<N> reduced_box = box_;
    for (const std::size_t d : axes) reduced_box.hi[d] = reduced_box.lo[d] + 1;
    const Distribution<N>& dist = dom_->distribution();
    const bool aligned = !dist.is_user_defined() && c_.rng() % 3 != 0;
    Domain<N> rdom(c_.comm, aligned ? reduced_distribution(dist, std::span<const std::size_t>(axes))
                                    : patch_distribution(reduced_box, GhostSpec<N>{}));
    DistArray<double, N> r(rdom);
    const double lowest = -std::numeric_limits<double>::infinity();
    reduce_into(*u_, std::span<const std::size_t>(axes), r, lowest, [](double a, double b) { return std::max(a, b); });
    Shadow<N> want(reduced_box);
    std::fill(want.values.begin(), want.values.end(), lowest);
    for_each_point(box_, [&](const Point<N>& p) {
      Point<N> q = p;
      for (const std::size_t d : axes) q[d] = box_.lo[d];
      want[q] = std::max(want[q], su_[p]);
    });
    check_owned("u reduced", r, want, c_.tally, MPI_COMM_WORLD);
  }

  // ZPL's flood: a random slice of u into an array flooded along random axes (block along the
  // others) on a random grid; every replica is checked against the shadow, the maximum counts the
  // replicas once, and the flooded array goes back into the same slice of w.
  void flood_slice() {
    Box<N> slice;
    for (std::size_t d = 0; d < N; ++d) {
      slice.lo[d] = draw(c_.rng, box_.lo[d], box_.hi[d] - 1);
      slice.hi[d] = draw(c_.rng, slice.lo[d] + 1, box_.hi[d]);
    }
    const Box<N> fbox = Box<N>::from_extents(extents(slice));
    const auto grid = testing::random_grid<N>(c_.rng, c_.comm.size());
    std::array<DimSpec, N> specs;
    const auto always = static_cast<std::size_t>(c_.rng() % N);
    for (std::size_t d = 0; d < N; ++d) specs[d] = d == always || c_.rng() % 2 == 0 ? flooded() : block();
    Domain<N> fdom(c_.comm, Distribution<N>(fbox, grid, specs));
    DistArray<double, N> f(fdom);
    flood(*u_, slice, f);
    f.for_each_owned([&](const Point<N>& p, const double& x) {
      c_.tally.compare(x, su_[p + slice.lo], [&] { return describe("u flooded", p); });
    });
    double highest = -std::numeric_limits<double>::infinity();
    for_each_point(slice, [&](const Point<N>& p) { highest = std::max(highest, su_[p]); });
    c_.tally.compare(f.max(), highest, [] { return std::string("max of u flooded"); });
    copy_section(f, fbox, *w_, slice.lo);
    for_each_point(slice, [&](const Point<N>& p) { sw_[p] = su_[p]; });
  }

  // Chapel's associative domain over u's values, keyed by row-major position: every rank inserts
  // the keys of the points it holds with u's values (replicas send equal values), then lookups of
  // random present and absent keys and a max-reduction are checked against the shadow, before and
  // after a redistribution to a hash map with a random seed (the values must follow their keys).
  void associative() {
    const auto position = [&](const Point<N>& p) {
      std::int64_t k = 0;
      for (std::size_t d = 0; d < N; ++d) k = k * extent(box_, d) + (p[d] - box_.lo[d]);
      return k;
    };
    AssociativeDomain<std::int64_t> keys(c_.comm);
    AssociativeArray<std::int64_t, double> values(keys);
    std::vector<std::int64_t> mine;
    std::vector<double> held;
    u_->for_each_owned([&](const Point<N>& p, const double& x) { mine.push_back(position(p)), held.push_back(x); });
    values.update(mine, held, ReplaceValue{}, MissingKeys::insert);
    const auto volume = static_cast<std::int64_t>(su_.values.size());
    constexpr double absent = -1e300;
    for (int pass = 0; pass < 2; ++pass) {
      std::vector<std::int64_t> asked(static_cast<std::size_t>(c_.rng() % 24));
      for (std::int64_t& k : asked) k = static_cast<std::int64_t>(c_.rng() % static_cast<std::uint64_t>(volume + 8));
      const std::vector<double> got = values.lookup(asked, absent);
      for (std::size_t i = 0; i < asked.size(); ++i)
        c_.tally.compare(got[i], asked[i] < volume ? su_.values[static_cast<std::size_t>(asked[i])] : absent,
                         [&] { return "associative lookup of position " + std::to_string(asked[i]); });
      c_.tally.compare(static_cast<double>(keys.size()), static_cast<double>(volume), [] { return std::string("associative size"); });
      c_.tally.compare(values.reduce([](double a, double b) { return std::max(a, b); }, absent),
                       *std::max_element(su_.values.begin(), su_.values.end()),
                       [] { return std::string("associative max"); });
      keys.redistribute(KeyMap<std::int64_t>::hashed(c_.rng()));
    }
  }

  // ZPL's [R] w := u - u@s: a ghost update of u, then a region statement over a random region R
  // with a random shift s that u's ghosts cover (along several axes only where corners are kept),
  // R kept where p + s stays inside along non-periodic axes (ghosts there are the program's to fill).
  void region_statement() {
    leave_local_layout();
    Point<N> shift{};
    int shifted_axes = 0;
    for (std::size_t d = 0; d < N; ++d) {
      if (c_.rng() % 2 != 0 || (!ghosts_.corners && shifted_axes > 0)) continue;
      shift[d] = draw(c_.rng, -ghosts_.lower[d], ghosts_.upper[d]);
      shifted_axes += shift[d] != 0;
    }
    Box<N> region;
    for (std::size_t d = 0; d < N; ++d) {
      index_t lo = box_.lo[d], hi = box_.hi[d];
      if (!ghosts_.periodic[d]) {
        lo = std::max(lo, lo - shift[d]);
        hi = std::min(hi, hi - shift[d]);
      }
      if (hi <= lo) {  // nothing along this axis: an empty region, which must change nothing
        region.lo[d] = region.hi[d] = lo;
        continue;
      }
      region.lo[d] = draw(c_.rng, lo, hi - 1);
      region.hi[d] = draw(c_.rng, region.lo[d] + 1, hi);
    }
    u_->update_ghosts();
    assign(region, *w_, [](double x, double y) { return x - y; }, *u_, at(*u_, shift));
    for_each_point(region, [&](const Point<N>& p) {
      Point<N> q = p;
      for (std::size_t d = 0; d < N; ++d) q[d] += shift[d];
      sw_[p] = su_[p] - su_[*testing::wrap_point(box_, ghosts_.periodic, q)];
    });
  }

  // An incremental box step (balance/box_balance.hpp): onto a box set tiling the box unless the
  // domain is on one, random weights per box, a knapsack target and a random Δ; the domain moves
  // to the step's owners (every value checked after the operation), and the step must not add
  // excess load.
  void box_step() {
    if (dom_->distribution().box_set() == nullptr)
      dom_->redistribute(random_box_set<N>(c_.rng, box_, c_.comm.size(), false).distribution, preserve());
    const BoxSet<N> current = *dom_->distribution().box_set();
    const int ranks = c_.comm.size();
    std::vector<double> weights;
    for (const Box<N>& b : current.boxes()) weights.push_back(static_cast<double>(volume(b) * (1 + c_.rng() % 4)));
    const auto target = assign_knapsack<N>(current.boxes(), ranks, weights);
    const auto step = incremental_box_step<N>(current.boxes(), current.owners(), target, ranks, any_delta(), weights);
    if (step.excess_after > step.excess_before * (1 + 1e-12) + 1e-9)
      c_.tally.fail("an incremental box step added excess load");
    dom_->redistribute(Distribution<N>::from_box_set(BoxSet<N>(current.domain(), current.boxes(), step.owners, ranks)),
                       preserve());
  }

  // BoxBalancer::step over a remap interval (balance/box_balancer.hpp): onto a box set tiling the
  // box unless the domain is on one; each rank times its patches with shared random seconds per
  // cell of each box, a random target, relabeling and Δ. The values are checked after the operation.
  void box_balancer_steps() {
    if (dom_->distribution().box_set() == nullptr)
      dom_->redistribute(random_box_set<N>(c_.rng, box_, c_.comm.size(), false).distribution, preserve());
    BoxBalancerOptions options;
    options.interval = static_cast<int>(draw(c_.rng, 1, 3));
    options.target = c_.rng() % 2 == 0 ? BoxTarget::knapsack : BoxTarget::morton;
    options.relabel = c_.rng() % 2 == 0;
    BoxBalancer<N> balancer(*dom_, std::make_shared<StaticDelta>(any_delta(), 0.0), options);
    std::vector<double> per_cell(balancer.set().size());
    for (double& x : per_cell) x = 1e-7 * (0.5 + 2.0 * draw_fraction(c_.rng));
    for (int i = 0; i < options.interval; ++i) {
      const std::size_t patches = balancer.set().boxes_of(c_.comm.rank()).size();
      for (std::size_t p = 0; p < patches; ++p) {
        const std::size_t b = balancer.box_of_patch(p);
        balancer.timer(p).add(per_cell[b] * static_cast<double>(volume(balancer.set().box(b))));
      }
      (void)balancer.step();
    }
  }

  // A round trip through a box set with holes: u and w move onto it (what they held over the
  // holes is dropped: no rank stores it), the stored values, a ghost update (ghosts over holes
  // left alone, or set by a holes rule half the time) and a max over the stored cells are checked there, then both move back onto an
  // ordinary distribution, or (a third of the time) are saved and loaded into one: either way the
  // holes come back as 0 (T{} for a redistribution, HDF5's fill value for a checkpoint).
  void box_set_with_holes() {
    const RandomBoxSet<N> holed = random_box_set<N>(c_.rng, box_, c_.comm.size(), true);
    dom_->redistribute(holed.distribution, preserve());
    double highest = -std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < su_.values.size(); ++k) {
      if (holed.stored.values[k] != 0.0) {
        highest = std::max(highest, su_.values[k]);
        continue;
      }
      su_.values[k] = 0.0;
      sw_.values[k] = 0.0;
    }
    check_owned("u on a box set with holes", *u_, su_, c_.tally, MPI_COMM_WORLD, holed.stored_count);
    check_owned("w on a box set with holes", *w_, sw_, c_.tally, MPI_COMM_WORLD, holed.stored_count);
    // Half the time a holes rule (docs/box-sets.md) sets the ghosts over holes: a constant, or an
    // even or odd reflect (a wall around each box), which a box thinner than its ghosts over a hole
    // makes an error on every rank with nothing moved.
    const auto rule = c_.rng() % 6;
    if (rule == 3) u_->set_boundary(BoundaryRules<double, N>().holes(boundary::constant(-1.0 - double(c_.rng() % 100))));
    if (rule == 4 || rule == 5) u_->set_boundary(BoundaryRules<double, N>().holes(boundary::reflect(rule == 4 ? 1 : -1)));
    const BoxSet<N>& set = *holed.distribution.box_set();
    if (rule >= 4 && testing::hole_mirror_leaves_some_box(set, box_, u_->ghosts())) {
      bool refused = false;
      try {
        u_->update_ghosts();
      } catch (const Error&) {
        refused = true;
      }
      if (!refused) c_.tally.fail("u on a box set with holes: a reflect over a hole deeper than its box was not refused");
      check_owned("u after a refused reflect over holes", *u_, su_, c_.tally, MPI_COMM_WORLD, holed.stored_count);
      u_->set_boundary({});
    }
    u_->update_ghosts();
    check_ghosts("u on a box set with holes", *u_, su_, c_.tally, &holed.stored);
    u_->set_boundary({});
    c_.tally.compare(u_->max(), highest, [] { return std::string("u.max() over a box set with holes"); });
    if (c_.rng() % 3 == 0)
      checkpoint_restart();
    else
      dom_->redistribute(any_distribution(box_, ghosts_), preserve());
  }

  // ZPL's disjoint grids (soak_groups.hpp): u's values moved between two random groups of ranks.
  void group_copy() {
    copy_between_random_groups<N>(c_.comm, c_.rng, c_.tally, box_, su_,
                                  [&](const Box<N>& box, const GhostSpec<N>& g, int ranks) {
                                    return any_distribution(box, g, ranks);
                                  });
  }

  // The checker's self-test: every rank that owns part of u changes its first element there, which
  // the checks must report.
  void corrupt() {
    bool done = false;
    u_->for_each_owned([&](const Point<N>&, double& x) {
      if (!std::exchange(done, true)) x += 1.0;
    });
  }

  Context& c_;
  index_t max_extent_;
  Box<N> box_;
  Shadow<N> su_, sw_;
  GhostSpec<N> ghosts_;
  std::unique_ptr<Domain<N>> dom_;
  std::unique_ptr<DistArray<double, N>> u_, w_;  // declared after dom_: destroyed before it
};

}  // namespace tessera::soak
