#pragma once
/// \file
/// The NAS Parallel Benchmarks' FT kernel as its specification defines it (NPB 3.3, NAS Technical
/// Reports 95-020 and 02-007; the MPI reference code ft.f): the problem classes, the pseudo-random
/// initial conditions, the evolution factors, the checksum and its published reference values. Both
/// FT programs here (tessera's, and the anchor on FFTW-MPI's distributed transform) share it, so that
/// they differ only in how the 3-D FFT is distributed.
///
/// Conventions (NPB's): the grid is u(x, y, z), x fastest, nx x ny x nz. Both programs store it
/// row-major as [z][y][x], so a slab of whole z-planes is one contiguous block. NPB's forward FFT has
/// the exponent sign +1 (FFTW_BACKWARD) and its inverse -1 (FFTW_FORWARD), neither normalised; the
/// checksum divides by nx ny nz instead.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

namespace npb_ft {

using Complex = std::complex<double>;
using index_t = std::int64_t;

/// One NPB problem class: grid extents, iterations and the published checksum of every iteration.
struct ProblemClass {
  char name;
  index_t nx, ny, nz;
  std::vector<Complex> reference;  ///< NPB's csum_ref(1 .. niter)
  [[nodiscard]] int iterations() const { return static_cast<int>(reference.size()); }
  [[nodiscard]] index_t total() const { return nx * ny * nz; }
};

/// Classes S, W and A (6 iterations each) with NPB 3.3's reference checksums (ft.f, `verify`).
inline ProblemClass problem_class(char name) {
  switch (name) {
    case 'S':
      return {'S',
              64,
              64,
              64,
              {{5.546087004964e+02, 4.845363331978e+02},
               {5.546385409189e+02, 4.865304269511e+02},
               {5.546148406171e+02, 4.883910722336e+02},
               {5.545423607415e+02, 4.901273169046e+02},
               {5.544255039624e+02, 4.917475857993e+02},
               {5.542683411902e+02, 4.932597244941e+02}}};
    case 'W':
      return {'W',
              128,
              128,
              32,
              {{5.673612178944e+02, 5.293246849175e+02},
               {5.631436885271e+02, 5.282149986629e+02},
               {5.594024089970e+02, 5.270996558037e+02},
               {5.560698047020e+02, 5.260027904925e+02},
               {5.530898991250e+02, 5.249400845633e+02},
               {5.504159734538e+02, 5.239212247086e+02}}};
    case 'A':
      return {'A',
              256,
              256,
              128,
              {{5.046735008193e+02, 5.114047905510e+02},
               {5.059412319734e+02, 5.098809666433e+02},
               {5.069376896287e+02, 5.098144042213e+02},
               {5.077892868474e+02, 5.101336130759e+02},
               {5.085233095391e+02, 5.104914655194e+02},
               {5.091487099959e+02, 5.107917842803e+02}}};
    default:
      throw std::invalid_argument(std::string("NPB FT: no class '") + name + "' (S, W or A)");
  }
}

// --- NPB's pseudo-random numbers (randlc / vranlc) ------------------------------------------------
// x_{k+1} = a x_k mod 2^46, drawn as x_k 2^-46, from x_0 = 314159265 with a = 5^13. NPB computes this
// exactly in double arithmetic; 64-bit integers give the same values (a product wraps mod 2^64,
// which 2^46 divides), and x 2^-46 is exact in a double.
inline constexpr std::uint64_t kSeed = 314159265;
inline constexpr std::uint64_t kMultiplier = 1220703125;  // 5^13
inline constexpr std::uint64_t kMask46 = (std::uint64_t{1} << 46) - 1;
inline constexpr double kTwoToMinus46 = 1.0 / static_cast<double>(std::uint64_t{1} << 46);

/// a^e mod 2^46 by squaring (NPB's ipow46).
[[nodiscard]] constexpr std::uint64_t power46(std::uint64_t a, std::uint64_t e) {
  std::uint64_t result = 1;
  for (; e > 0; e >>= 1, a = (a * a) & kMask46)
    if (e & 1) result = (result * a) & kMask46;
  return result;
}

/// The generator's state after `draws` draws from the seed: NPB's starting-point jump.
[[nodiscard]] constexpr std::uint64_t state_after(std::uint64_t draws) {
  return (kSeed * power46(kMultiplier, draws)) & kMask46;
}

/// NPB's initial conditions for the whole z-planes [z0, z0 + planes) stored row-major at `slab`:
/// element (x, y, z) at linear index L = (z ny + y) nx + x takes draws 2L + 1 (real part) and
/// 2L + 2 (imaginary part). As NPB's compute_initial_conditions, each plane starts from a jump to its
/// first draw and then fills sequentially (vranlc).
inline void fill_initial_conditions(const ProblemClass& c, index_t z0, index_t planes, Complex* slab) {
  const index_t plane = c.nx * c.ny;
  for (index_t k = 0; k < planes; ++k) {
    std::uint64_t x = state_after(static_cast<std::uint64_t>(2 * (z0 + k) * plane));
    Complex* out = slab + k * plane;
    for (index_t i = 0; i < plane; ++i) {
      x = (kMultiplier * x) & kMask46;
      const double re = static_cast<double>(x) * kTwoToMinus46;
      x = (kMultiplier * x) & kMask46;
      out[i] = {re, static_cast<double>(x) * kTwoToMinus46};
    }
  }
}

// --- the evolution step ----------------------------------------------------------------------------
inline constexpr double kAlpha = 1.0e-6;

/// Index i of an n-point transform as a signed frequency: 0, 1, ..., n/2 - 1, -n/2, ..., -1.
[[nodiscard]] constexpr index_t signed_frequency(index_t i, index_t n) { return (i + n / 2) % n - n / 2; }

/// The factor one time step multiplies Fourier coefficient (x, y, z) by: exp(-4 alpha pi^2 |k|^2)
/// (NPB's twiddle; after t steps the coefficient carries its t-th power, as NPB's evolve applies it
/// once per iteration to the kept spectrum).
[[nodiscard]] inline double evolution_factor(const ProblemClass& c, index_t x, index_t y, index_t z) {
  const index_t kx = signed_frequency(x, c.nx), ky = signed_frequency(y, c.ny), kz = signed_frequency(z, c.nz);
  const double ap = -4.0 * kAlpha * std::numbers::pi * std::numbers::pi;
  return std::exp(ap * static_cast<double>(kx * kx + ky * ky + kz * kz));
}

// --- the checksum ------------------------------------------------------------------------------------
/// This rank's part of NPB's checksum: the sum over j = 1 .. 1024 of u(j mod nx, 3j mod ny, 5j mod nz)
/// for the points in the planes [z0, z0 + planes) stored row-major at `slab`, divided by nx ny nz.
/// The caller adds the parts of all ranks.
[[nodiscard]] inline Complex checksum_part(const ProblemClass& c, index_t z0, index_t planes, const Complex* slab) {
  Complex sum{0.0, 0.0};
  for (index_t j = 1; j <= 1024; ++j) {
    const index_t x = j % c.nx, y = (3 * j) % c.ny, z = (5 * j) % c.nz;
    if (z >= z0 && z < z0 + planes) sum += slab[((z - z0) * c.ny + y) * c.nx + x];
  }
  return sum / static_cast<double>(c.total());
}

/// NPB's tolerance: every checksum within 1e-12 of the reference, relative (|sum - ref| / |ref|).
inline constexpr double kTolerance = 1.0e-12;

/// What every FT program prints on rank 0 after its run: one line per iteration (NPB's format plus
/// the relative error) and the verdict. Returns true if every iteration verified.
inline bool report_checksums(const ProblemClass& c, const std::vector<Complex>& sums) {
  bool ok = sums.size() == c.reference.size();
  double worst = 0.0;
  for (std::size_t t = 0; t < sums.size() && t < c.reference.size(); ++t) {
    const double err = std::abs(sums[t] - c.reference[t]) / std::abs(c.reference[t]);
    worst = std::max(worst, err);
    ok = ok && err <= kTolerance;  // written so that a NaN fails
    std::printf(" T = %4zu     Checksum = %22.12e %22.12e   relative error %.1e\n", t + 1, sums[t].real(),
                sums[t].imag(), err);
  }
  if (ok)
    std::printf("NPB FT class %c: all %d checksums match NPB's reference values (worst relative error %.1e <= %.0e)\n",
                c.name, c.iterations(), worst, kTolerance);
  else
    std::printf("NPB FT class %c: VERIFICATION FAILED (worst relative error %.1e, tolerance %.0e)\n", c.name, worst,
                kTolerance);
  return ok;
}

}  // namespace npb_ft
