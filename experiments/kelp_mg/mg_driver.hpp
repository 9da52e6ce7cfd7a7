#pragma once
/// \file
/// The NPB MG benchmark's procedure, shared by the tessera program and the hand-written MPI one:
/// where each level's points live (the same cuts in both), the V-cycle (NPB's mg3P), the timed
/// section and the verification against NPB's published residual norm. What moves data is a
/// template parameter, `Levels`, which each program implements with its own communication:
///
/// | member | what it does |
/// |---|---|
/// | `Block block(Field f, int k)` | this rank's block of field f on level k (empty if it owns none) |
/// | `void update_ghosts(Field f, int k)` | periodic ghost update of u, r or v (width 1, edges and corners) |
/// | `void restrict_to_coarse(int k)` | restricted(k) -> r(k - 1): level k's rprj3 results to their owners |
/// | `void prolong_to_fine(int k)` | prolonged(k) -> work(k): level k - 1's interp results to their owners |
/// | `double sum(double)`, `double max(double)` | allreduce over the ranks |
/// | `std::vector<ChargeCandidates> allgather(const ChargeCandidates&)` | every rank's candidates |
/// | `void barrier()`, `double wtime()` | for the timed section |
///
/// Levels are numbered as NPB's: 1 (2 points per axis) ... lt (the class's grid). Each level is
/// block distributed over one process grid. The transfers between levels go through two helper
/// distributions per level, so that every operator reads only its rank's block and ghosts:
/// - restriction: coarse point G is computed by the rank owning fine point 2G + 1 (cuts floor(c/2)
///   of level k's cuts: `restricted`), then moved to its owner on level k - 1;
/// - prolongation: fine points 2G and 2G + 1 are computed by the rank owning coarse point G (cuts
///   2c of level k - 1's cuts: `prolonged`), then moved to their owner on level k.
/// Blocks may be empty: a level with fewer points on an axis than the grid has ranks there leaves
/// the last ranks of that axis without points; they skip the operators and take part in the
/// collective steps only.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "mg_kernels.hpp"

namespace nas_mg {

/// n points over g coordinates as tessera's `block()` splits them: the first n mod g get one more.
[[nodiscard]] inline std::vector<index_t> block_cuts(index_t n, int g) {
  std::vector<index_t> cuts{0};
  for (int c = 0; c < g; ++c) cuts.push_back(cuts.back() + n / g + (c < n % g ? 1 : 0));
  return cuts;
}

/// The process grid for p ranks: the most even factorisation p = a b c with a >= b >= c (2 -> 2x1x1,
/// 3 -> 3x1x1, 4 -> 2x2x1, 8 -> 2x2x2), splitting the slowest axis first.
[[nodiscard]] inline std::array<int, 3> grid_shape(int p) {
  std::array<int, 3> best{p, 1, 1};
  for (int c = 1; c * c * c <= p; ++c)
    for (int b = c; b * b * c <= p; ++b)
      if (p % (b * c) == 0 && p / (b * c) >= b && p / (b * c) < best[0]) best = {p / (b * c), b, c};
  return best;
}

/// Where the points of one level live, per axis: its own block cuts, and the two helper cuts of
/// the transfers (see the file comment). Level 1 has no coarser level: its helper cuts are empty.
struct LevelCuts {
  index_t n = 0;
  std::array<std::vector<index_t>, 3> own, restricted, prolonged;
};

/// Levels 1 ... lt (index 0 unused) on a grid of `shape`.
[[nodiscard]] inline std::vector<LevelCuts> level_cuts(int lt, const std::array<int, 3>& shape) {
  std::vector<LevelCuts> levels(static_cast<std::size_t>(lt) + 1);
  for (int k = 1; k <= lt; ++k) {
    auto& L = levels[static_cast<std::size_t>(k)];
    L.n = index_t{1} << k;
    for (std::size_t d = 0; d < 3; ++d) L.own[d] = block_cuts(L.n, shape[d]);
  }
  for (int k = 2; k <= lt; ++k) {
    auto& L = levels[static_cast<std::size_t>(k)];
    const auto& coarse = levels[static_cast<std::size_t>(k) - 1];
    for (std::size_t d = 0; d < 3; ++d) {
      for (index_t c : L.own[d]) L.restricted[d].push_back(c / 2);
      for (index_t c : coarse.own[d]) L.prolonged[d].push_back(2 * c);
    }
  }
  return levels;
}

/// The arrays of the V-cycle: u (approximation) and r (residual) on every level, v (right-hand
/// side) on the finest, and the transfer arrays of each level: `restricted` (level k - 1's points
/// as level k computes them), `prolonged` (level k's points as level k - 1 computes them) and
/// `work` (the prolonged correction on level k's own blocks).
enum class Field { u, r, v, work, restricted, prolonged };

struct Result {
  double rnm2 = 0.0, rnmu = 0.0;  // NPB's L2 norm (sqrt(sum r^2 / n^3)) and max norm of the final residual
  double seconds = 0.0;           // NPB's timed section, the slowest rank's
  double comm_seconds = 0.0;      // of which in ghost updates and level transfers, the slowest rank's
  double relative_error = 0.0;
  bool verified = false;
};

/// NPB MG on some `Levels`: see the file comment.
template <class Levels>
class Solver {
 public:
  Solver(Levels& levels, const ProblemClass& cls) : L_(levels), cls_(cls), k_(coefficients(cls)) {}

  /// NPB's whole benchmark: initialise, one untimed V-cycle (NPB's "one iteration for startup",
  /// which here also builds every schedule and buffer), reset, then the timed section: the
  /// residual and its norm, `iterations` V-cycles each followed by the residual, the final norm.
  Result run() {
    initialise();
    resid_top();
    mg3p();
    resid_top();
    zero(L_.block(Field::u, top()));  // NPB's zero3 clears the ghosts too: so does the ghost update
    ghosts(Field::u, top());
    initialise();

    L_.barrier();
    comm_ = 0.0;
    const double start = L_.wtime();
    resid_top();
    (void)norm_of_residual();
    for (int it = 0; it < cls_.iterations; ++it) {
      mg3p();
      resid_top();
    }
    Result out;
    const auto [rnm2, rnmu] = norm_of_residual();
    out.seconds = L_.max(L_.wtime() - start);
    out.comm_seconds = L_.max(comm_);
    out.rnm2 = rnm2;
    out.rnmu = rnmu;
    out.relative_error = std::abs(rnm2 - cls_.verify_value) / cls_.verify_value;
    out.verified = out.relative_error <= kEpsilon;  // NaN fails
    return out;
  }

 private:
  [[nodiscard]] int top() const { return cls_.log2_n; }

  template <class F>
  void communicate(F&& f) {
    const double t0 = L_.wtime();
    f();
    comm_ += L_.wtime() - t0;
  }
  void ghosts(Field f, int k) {
    communicate([&] { L_.update_ghosts(f, k); });
  }

  /// NPB's zran3: v = +1 at the ten largest, -1 at the ten smallest random numbers, 0 elsewhere.
  void initialise() {
    const Block v = L_.block(Field::v, top());
    const index_t n = index_t{1} << top();
    const auto charges = choose_charges(L_.allgather(random_fill(v, n)));
    place_charges(v, n, charges);
    ghosts(Field::v, top());
  }

  /// r = v - A u on the finest level.
  void resid_top() {
    resid(L_.block(Field::u, top()), L_.block(Field::v, top()), L_.block(Field::r, top()), k_, sums_);
    ghosts(Field::r, top());
  }

  /// NPB's norm2u3 of the finest residual: (sqrt(sum r^2 / n^3), max |r|).
  std::pair<double, double> norm_of_residual() {
    const NormParts p = norm_parts(L_.block(Field::r, top()));
    const double points = std::pow(2.0, 3 * top());
    return {std::sqrt(L_.sum(p.sum_squares) / points), L_.max(p.max_abs)};
  }

  /// NPB's mg3P: restrict the residual down to level 1, smooth there, and on the way up
  /// interpolate the correction, recompute the residual and smooth on every level.
  void mg3p() {
    for (int k = top(); k >= 2; --k) {
      restrict_residual(L_.block(Field::r, k), L_.block(Field::restricted, k), sums_);
      communicate([&] { L_.restrict_to_coarse(k); });
      ghosts(Field::r, k - 1);
    }
    zero(L_.block(Field::u, 1));
    psinv(L_.block(Field::r, 1), L_.block(Field::u, 1), k_, sums_);
    ghosts(Field::u, 1);
    for (int k = 2; k <= top(); ++k) {
      const Block u = L_.block(Field::u, k);
      if (k < top()) zero(u);  // the finest u keeps its approximation; coarser ones start from 0
      prolong_correction(L_.block(Field::u, k - 1), L_.block(Field::prolonged, k));
      communicate([&] { L_.prolong_to_fine(k); });
      add_into(u, L_.block(Field::work, k));
      ghosts(Field::u, k);
      const Block r = L_.block(Field::r, k);
      resid(u, k < top() ? r : L_.block(Field::v, k), r, k_, sums_);
      ghosts(Field::r, k);
      psinv(r, u, k_, sums_);
      ghosts(Field::u, k);
    }
  }

  Levels& L_;
  const ProblemClass& cls_;
  Coefficients k_;
  RowSums sums_;
  double comm_ = 0.0;
};

/// Rank 0's report. The last line, "VERIFICATION SUCCESSFUL", is what the tests and
/// experiments/nas_mg.py look for; NPB prints the same words.
inline void report(const char* implementation, const ProblemClass& cls, int ranks, const std::array<int, 3>& shape,
                   const Result& r) {
  const index_t n = index_t{1} << cls.log2_n;
  std::printf("NPB MG class %c (%lld^3, %d iterations), %s, %d ranks (grid %dx%dx%d)\n", cls.name,
              static_cast<long long>(n), cls.iterations, implementation, ranks, shape[0], shape[1], shape[2]);
  std::printf(" L2 norm %.13e (NPB %.13e), relative error %.3e, max norm %.6e\n", r.rnm2, cls.verify_value,
              r.relative_error, r.rnmu);
  std::printf(" time_s %.6f comm_s %.6f\n", r.seconds, r.comm_seconds);
  if (r.verified)
    std::printf(" VERIFICATION SUCCESSFUL\n");
  else
    std::printf(" VERIFICATION FAILED (tolerance %.0e)\n", kEpsilon);
}

}  // namespace nas_mg
