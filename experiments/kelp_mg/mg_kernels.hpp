#pragma once
/// \file
/// The NAS Parallel Benchmarks' MG kernel, its local half: the class table with NPB's published
/// verification values, NPB's random number generator, and the four operators of the V-cycle
/// (resid, psinv, rprj3, interp) plus the norm, each applied to one rank's block of a level. Both
/// programs of the experiment (mg_tessera.cpp on tessera, mg_mpi.cpp on hand-written MPI) call
/// exactly these functions; only the communication between them differs.
///
/// Source: the NPB MG specification (Bailey et al., NAS Technical Report RNR-94-007, section 2.2.3)
/// and the reference implementation of NPB 3.x (`MG/mg.f`, `common/randdp.f`): the coefficients,
/// the stencils, the initial +1/-1 charges and the verification values below are NPB's. The grid
/// is periodic: NPB's comm3 fills a ghost layer of width 1 from the opposite side.
///
/// Index convention. A level of extent n holds the points 0 ... n-1 on each axis (NPB's Fortran
/// index i = 2 ... n+1 is our i - 2). Axis 0 is NPB's slowest index i3, axis 2 its fastest i1, and
/// storage is row-major, so a row along axis 2 is contiguous as NPB's i1 loops are. Coarse point G
/// lies on fine point 2G + 1 (NPB's rprj3 with d = 1: fine i = 2j - 1).

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace nas_mg {

using index_t = std::int64_t;
using Idx3 = std::array<index_t, 3>;

/// One NPB problem class: a grid of 2^log2_n points per axis, `iterations` V-cycles, and the L2 norm
/// of the final residual NPB publishes for it. Classes A, S and W use NPB's S(a) smoother, B and
/// larger its S(b) (mg.f: "if Class .eq. 'A' .or. 'S' .or. 'W'").
struct ProblemClass {
  char name;
  int log2_n;
  int iterations;
  double verify_value;
  bool smoother_b;
};

/// NPB 3.x's classes (W is 128^3 with 4 iterations since NPB 3.0; NPB 2 had 64^3 and 40).
inline constexpr std::array<ProblemClass, 4> kClasses{{{'S', 5, 4, 0.5307707005734e-04, false},
                                                      {'W', 7, 4, 0.6467329375339e-05, false},
                                                      {'A', 8, 4, 0.2433365309069e-05, false},
                                                      {'B', 8, 20, 0.1800564401355e-05, true}}};

/// NPB's verification tolerance: |rnm2 - verify_value| / verify_value <= 1e-8.
inline constexpr double kEpsilon = 1e-8;

/// The class named `name` ('S', 'W', 'A', 'B'), or nullptr.
[[nodiscard]] inline const ProblemClass* find_class(char name) {
  for (const auto& c : kClasses)
    if (c.name == name) return &c;
  return nullptr;
}

/// The operator A of the residual r = v - A u and the smoother u += S r, each as the weights of
/// the centre, the 6 faces, the 12 edges and the 8 corners of the 27-point stencil. NPB assumes
/// a[1] = 0 and c[3] = 0 and drops those terms; so do resid and psinv below.
struct Coefficients {
  std::array<double, 4> a{-8.0 / 3.0, 0.0, 1.0 / 6.0, 1.0 / 12.0};
  std::array<double, 4> c{};
};

[[nodiscard]] inline Coefficients coefficients(const ProblemClass& cls) {
  Coefficients k;
  k.c = cls.smoother_b ? std::array<double, 4>{-3.0 / 17.0, 1.0 / 33.0, -1.0 / 61.0, 0.0}
                       : std::array<double, 4>{-3.0 / 8.0, 1.0 / 32.0, -1.0 / 64.0, 0.0};
  return k;
}

// --- NPB's random numbers (randdp.f) -----------------------------------------------------------
// x_{k+1} = a x_k mod 2^46 with a = 5^13; the number drawn is x_{k+1} 2^-46. NPB computes the
// product exactly in double precision by splitting into 23-bit halves; 128-bit integers give the
// same bits.

inline constexpr std::uint64_t kRandMultiplier = 1220703125ULL;  // 5^13
inline constexpr std::uint64_t kRandSeed = 314159265ULL;          // zran3's x
inline constexpr std::uint64_t kRandMask = (std::uint64_t{1} << 46) - 1;

__extension__ using uint128 = unsigned __int128;  // GCC and Clang; __extension__: no -Wpedantic warning

[[nodiscard]] inline std::uint64_t mul_mod46(std::uint64_t a, std::uint64_t b) {
  return static_cast<std::uint64_t>((static_cast<uint128>(a) * b) & kRandMask);
}

/// a^n mod 2^46 (NPB's `power`).
[[nodiscard]] inline std::uint64_t pow_mod46(std::uint64_t a, std::uint64_t n) {
  std::uint64_t r = 1;
  for (; n > 0; n >>= 1, a = mul_mod46(a, a))
    if (n & 1) r = mul_mod46(r, a);
  return r;
}

/// A block of one level on one rank. `origin` points at the first owned element, whose global
/// index is `lo`; `count` is the owned extent per axis; row-major strides s0, s1 (and 1). Arrays a
/// stencil reads carry one ghost layer on every side, edges and corners included, at negative
/// offsets and at `count`. A rank that owns nothing of the level has an empty block.
struct Block {
  double* origin = nullptr;
  Idx3 lo{};
  Idx3 count{};
  index_t s0 = 0, s1 = 0;

  [[nodiscard]] bool empty() const noexcept { return origin == nullptr || count[0] * count[1] * count[2] == 0; }
  [[nodiscard]] double* row(index_t i, index_t j) const noexcept { return origin + i * s0 + j * s1; }
};

/// Scratch rows of the stencils (NPB's u1/u2, r1/r2, x1/y1): sums over the 3x3 cross-section of
/// one column, so that each point's 27-point stencil costs a few additions.
class RowSums {
 public:
  /// Fills, for columns k = from ... to - 1 of row (i, j) of x, the sum of the 4 face neighbours
  /// and of the 4 diagonal neighbours in the (axis 0, axis 1) plane.
  void fill(const Block& x, index_t i, index_t j, index_t from, index_t to) {
    const auto n = static_cast<std::size_t>(to - from);
    if (faces_.size() < n) faces_.resize(n), diagonals_.resize(n);
    from_ = from;
    const double* mm = x.row(i - 1, j - 1);
    const double* m0 = x.row(i - 1, j);
    const double* mp = x.row(i - 1, j + 1);
    const double* zm = x.row(i, j - 1);
    const double* zp = x.row(i, j + 1);
    const double* pm = x.row(i + 1, j - 1);
    const double* p0 = x.row(i + 1, j);
    const double* pp = x.row(i + 1, j + 1);
    for (index_t k = from; k < to; ++k) {
      const auto s = static_cast<std::size_t>(k - from);
      faces_[s] = zm[k] + zp[k] + m0[k] + p0[k];
      diagonals_[s] = mm[k] + pm[k] + mp[k] + pp[k];
    }
  }
  [[nodiscard]] double face(index_t k) const noexcept { return faces_[static_cast<std::size_t>(k - from_)]; }
  [[nodiscard]] double diagonal(index_t k) const noexcept { return diagonals_[static_cast<std::size_t>(k - from_)]; }

 private:
  std::vector<double> faces_, diagonals_;
  index_t from_ = 0;
};

/// NPB's resid over the owned points: r = v - A u (a[1] = 0 assumed, as NPB does). u needs its
/// ghosts; v and r may be the same array (the intermediate levels' r = r - A u).
inline void resid(const Block& u, const Block& v, const Block& r, const Coefficients& k, RowSums& sums) {
  if (u.empty()) return;
  const auto& a = k.a;
  for (index_t i = 0; i < u.count[0]; ++i)
    for (index_t j = 0; j < u.count[1]; ++j) {
      sums.fill(u, i, j, -1, u.count[2] + 1);
      const double* x = u.row(i, j);
      const double* vin = v.row(i, j);
      double* out = r.row(i, j);
      for (index_t c = 0; c < u.count[2]; ++c)
        out[c] = vin[c] - a[0] * x[c] - a[2] * (sums.diagonal(c) + sums.face(c - 1) + sums.face(c + 1)) -
                 a[3] * (sums.diagonal(c - 1) + sums.diagonal(c + 1));
    }
}

/// NPB's psinv over the owned points: u = u + S r (c[3] = 0 assumed, as NPB does). r needs its ghosts.
inline void psinv(const Block& r, const Block& u, const Coefficients& k, RowSums& sums) {
  if (r.empty()) return;
  const auto& c = k.c;
  for (index_t i = 0; i < r.count[0]; ++i)
    for (index_t j = 0; j < r.count[1]; ++j) {
      sums.fill(r, i, j, -1, r.count[2] + 1);
      const double* x = r.row(i, j);
      double* out = u.row(i, j);
      for (index_t m = 0; m < r.count[2]; ++m)
        out[m] += c[0] * x[m] + c[1] * (x[m - 1] + x[m + 1] + sums.face(m)) +
                  c[2] * (sums.diagonal(m) + sums.face(m - 1) + sums.face(m + 1));
    }
}

/// NPB's rprj3 (full weighting) for the coarse points of `coarse`: s(G) = the 27-point stencil of
/// weights 1/2, 1/4, 1/8, 1/16 (centre, faces, edges, corners) of the fine residual around fine
/// point 2G + 1. Every such fine point, and its ghost ring, must lie in `fine` (owned or ghost):
/// the programs give this rank the coarse points whose centre it owns.
inline void restrict_residual(const Block& fine, const Block& coarse, RowSums& sums) {
  if (coarse.empty()) return;
  for (index_t i = 0; i < coarse.count[0]; ++i)
    for (index_t j = 0; j < coarse.count[1]; ++j) {
      // Local fine indices of the centre 2G + 1 of coarse point (i, j, 0).
      const index_t fi = 2 * (coarse.lo[0] + i) + 1 - fine.lo[0];
      const index_t fj = 2 * (coarse.lo[1] + j) + 1 - fine.lo[1];
      const index_t fk0 = 2 * coarse.lo[2] + 1 - fine.lo[2];
      sums.fill(fine, fi, fj, fk0 - 1, fk0 + 2 * coarse.count[2]);
      const double* x = fine.row(fi, fj);
      double* out = coarse.row(i, j);
      for (index_t m = 0; m < coarse.count[2]; ++m) {
        const index_t f = fk0 + 2 * m;
        out[m] = 0.5 * x[f] + 0.25 * (x[f - 1] + x[f + 1] + sums.face(f)) +
                 0.125 * (sums.face(f - 1) + sums.face(f + 1) + sums.diagonal(f)) +
                 0.0625 * (sums.diagonal(f - 1) + sums.diagonal(f + 1));
      }
    }
}

/// NPB's interp (trilinear prolongation), written from the coarse side: for each coarse point G
/// of `coarse`, the fine points 2G + d (d in {0, 1}^3) of `fine` get the correction. Along an axis
/// fine point 2G + 1 lies on G and takes z(G); fine point 2G lies between G - 1 and G and takes
/// (z(G - 1) + z(G)) / 2. `coarse` needs its ghosts below; `fine` covers exactly the fine points
/// 2 lo ... 2 (lo + count) - 1 of the coarse block (it is assigned, not added to).
inline void prolong_correction(const Block& coarse, const Block& fine) {
  if (coarse.empty()) return;
  for (index_t i = 0; i < coarse.count[0]; ++i)
    for (index_t j = 0; j < coarse.count[1]; ++j) {
      // z[a][b]: row (i - 1 + a, j - 1 + b) of the coarse block.
      const double* z[2][2] = {{coarse.row(i - 1, j - 1), coarse.row(i - 1, j)},
                               {coarse.row(i, j - 1), coarse.row(i, j)}};
      double* out[2][2] = {{fine.row(2 * i, 2 * j), fine.row(2 * i, 2 * j + 1)},
                           {fine.row(2 * i + 1, 2 * j), fine.row(2 * i + 1, 2 * j + 1)}};
      for (index_t m = 0; m < coarse.count[2]; ++m) {
        // Interpolate along axis 2, then 1, then 0; index 1 is "on G", index 0 "between G-1 and G".
        double along2[2][2][2];
        for (int a = 0; a < 2; ++a)
          for (int b = 0; b < 2; ++b) {
            along2[a][b][1] = z[a][b][m];
            along2[a][b][0] = 0.5 * (z[a][b][m - 1] + z[a][b][m]);
          }
        for (int d = 0; d < 2; ++d) {
          // Along axis 1 for coarse rows G - 1 (below) and G of axis 0, then along axis 0.
          const double on1 = along2[1][1][d], between1 = 0.5 * (along2[1][0][d] + along2[1][1][d]);
          const double below_on1 = along2[0][1][d], below_between1 = 0.5 * (along2[0][0][d] + along2[0][1][d]);
          out[1][1][2 * m + d] = on1;
          out[1][0][2 * m + d] = between1;
          out[0][1][2 * m + d] = 0.5 * (below_on1 + on1);
          out[0][0][2 * m + d] = 0.5 * (below_between1 + between1);
        }
      }
    }
}

/// dst += src over the owned points (same block shape).
inline void add_into(const Block& dst, const Block& src) {
  if (dst.empty()) return;
  for (index_t i = 0; i < dst.count[0]; ++i)
    for (index_t j = 0; j < dst.count[1]; ++j) {
      double* d = dst.row(i, j);
      const double* s = src.row(i, j);
      for (index_t m = 0; m < dst.count[2]; ++m) d[m] += s[m];
    }
}

/// Sets the owned points to zero (NPB's zero3; ghosts are refilled by the next ghost update).
inline void zero(const Block& x) {
  if (x.empty()) return;
  for (index_t i = 0; i < x.count[0]; ++i)
    for (index_t j = 0; j < x.count[1]; ++j) std::fill_n(x.row(i, j), x.count[2], 0.0);
}

/// This rank's part of NPB's norm2u3: the sum of squares and the largest magnitude over the owned
/// points. The programs reduce both over the ranks; rnm2 = sqrt(sum / n^3).
struct NormParts {
  double sum_squares = 0.0;
  double max_abs = 0.0;
};

[[nodiscard]] inline NormParts norm_parts(const Block& x) {
  NormParts p;
  if (x.empty()) return p;
  for (index_t i = 0; i < x.count[0]; ++i)
    for (index_t j = 0; j < x.count[1]; ++j) {
      const double* r = x.row(i, j);
      for (index_t m = 0; m < x.count[2]; ++m) {
        p.sum_squares += r[m] * r[m];
        p.max_abs = std::max(p.max_abs, std::abs(r[m]));
      }
    }
  return p;
}

// --- zran3: +1 at the ten largest, -1 at the ten smallest of n^3 random numbers ------------------

/// A point of the finest grid (row-major global index) and its random number.
struct Charge {
  double value = 0.0;
  index_t index = -1;  // -1: no point (a rank with fewer than ten points pads with these)
};

inline constexpr int kCharges = 10;

/// The ten largest and ten smallest random numbers of one rank's block.
struct ChargeCandidates {
  std::array<Charge, kCharges> largest{}, smallest{};
};

/// Fills the owned points of `v` (finest level, extent n) with NPB's random numbers: point
/// (i3, i2, i1) gets the number drawn after i1 + n (i2 + n i3) + 1 steps from zran3's seed, so
/// every rank draws its own points by jumping ahead to the start of each of its rows. Returns
/// the block's candidates for the charges.
[[nodiscard]] inline ChargeCandidates random_fill(const Block& v, index_t n) {
  ChargeCandidates out;
  if (v.empty()) return out;
  std::vector<Charge> all;
  all.reserve(static_cast<std::size_t>(v.count[0] * v.count[1] * v.count[2]));
  constexpr double kScale = 1.0 / static_cast<double>(std::uint64_t{1} << 46);
  for (index_t i = 0; i < v.count[0]; ++i)
    for (index_t j = 0; j < v.count[1]; ++j) {
      const index_t first = v.lo[2] + n * ((v.lo[1] + j) + n * (v.lo[0] + i));
      std::uint64_t x = mul_mod46(kRandSeed, pow_mod46(kRandMultiplier, static_cast<std::uint64_t>(first)));
      double* row = v.row(i, j);
      for (index_t m = 0; m < v.count[2]; ++m) {
        x = mul_mod46(x, kRandMultiplier);
        row[m] = static_cast<double>(x) * kScale;
        all.push_back({row[m], first + m});
      }
    }
  // The random numbers of one run are distinct (the generator's period is 2^44), so the order of
  // equal values never matters; the index breaks ties anyway so that every rank agrees.
  auto select = [&](auto better, std::array<Charge, kCharges>& dst) {
    const auto k = std::min<std::size_t>(kCharges, all.size());
    std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(k), all.end(), better);
    std::copy_n(all.begin(), k, dst.begin());
  };
  select([](const Charge& a, const Charge& b) { return a.value > b.value || (a.value == b.value && a.index < b.index); },
         out.largest);
  select([](const Charge& a, const Charge& b) { return a.value < b.value || (a.value == b.value && a.index < b.index); },
         out.smallest);
  return out;
}

/// From every rank's candidates, the global indices of the ten largest (+1) and the ten smallest
/// (-1) random numbers, the same on every rank.
struct Charges {
  std::vector<index_t> positive, negative;
};

[[nodiscard]] inline Charges choose_charges(const std::vector<ChargeCandidates>& per_rank) {
  std::vector<Charge> large, small;
  for (const auto& c : per_rank)
    for (int t = 0; t < kCharges; ++t) {
      if (c.largest[static_cast<std::size_t>(t)].index >= 0) large.push_back(c.largest[static_cast<std::size_t>(t)]);
      if (c.smallest[static_cast<std::size_t>(t)].index >= 0) small.push_back(c.smallest[static_cast<std::size_t>(t)]);
    }
  std::sort(large.begin(), large.end(),
            [](const Charge& a, const Charge& b) { return a.value > b.value || (a.value == b.value && a.index < b.index); });
  std::sort(small.begin(), small.end(),
            [](const Charge& a, const Charge& b) { return a.value < b.value || (a.value == b.value && a.index < b.index); });
  Charges out;
  for (std::size_t t = 0; t < kCharges && t < large.size(); ++t) out.positive.push_back(large[t].index);
  for (std::size_t t = 0; t < kCharges && t < small.size(); ++t) out.negative.push_back(small[t].index);
  return out;
}

/// Sets v to zero on the owned points and to +1 / -1 at the charges it owns.
inline void place_charges(const Block& v, index_t n, const Charges& charges) {
  zero(v);
  if (v.empty()) return;
  auto put = [&](index_t g, double value) {
    const Idx3 p{g / (n * n), (g / n) % n, g % n};
    for (int d = 0; d < 3; ++d)
      if (p[static_cast<std::size_t>(d)] < v.lo[static_cast<std::size_t>(d)] ||
          p[static_cast<std::size_t>(d)] >= v.lo[static_cast<std::size_t>(d)] + v.count[static_cast<std::size_t>(d)])
        return;
    v.row(p[0] - v.lo[0], p[1] - v.lo[1])[p[2] - v.lo[2]] = value;
  };
  for (index_t g : charges.negative) put(g, -1.0);
  for (index_t g : charges.positive) put(g, +1.0);
}

}  // namespace nas_mg
