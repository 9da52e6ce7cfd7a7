// ZPL's computational zoom (Deitz et al., section 4.1): Jacobi sweeps for -Δu = f over a coarse
// n x n grid, a region of interest picked around the largest value, that region copied
// (copy_section) into a new domain spread over ALL ranks, refined r x r by bilinear interpolation,
// swept again at the fine resolution, and the fine result averaged back into the coarse array.
// Rank 0 redoes every step serially and requires the same bits. See README.md here.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>
#include <vector>

#include "tessera/tessera.hpp"

namespace {

using tessera::Box;
using tessera::index_t;
using tessera::Point;

/// f, two bumps of different strength and width: the strong narrow one is what the zoom should find.
double source(double x, double y) {
  const double a = (x - 0.3) * (x - 0.3) + (y - 0.35) * (y - 0.35);
  const double b = (x - 0.7) * (x - 0.7) + (y - 0.6) * (y - 0.6);
  return 40.0 * std::exp(-a / 0.02) + 400.0 * std::exp(-b / 0.002);
}

/// Centre of cell i of a grid of spacing h (cell-centred, the unit square split into cells).
double centre(index_t i, double h) { return (static_cast<double>(i) + 0.5) * h; }

/// The one Jacobi update both the distributed and the serial runs use, so that they round alike.
double jacobi(double north, double south, double west, double east, double h2f) {
  return 0.25 * (north + south + west + east + h2f);
}

/// Floor of a / b for b > 0 (C++ division truncates towards zero).
index_t floor_div(index_t a, index_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/// Bilinear interpolation of the coarse cell-centred values `coarse(i, j)` (i, j in `roi`) at the
/// centre of fine cell (fi, fj), fine cells being r x r times smaller. Indices are clamped to the
/// roi, so the edge cells extrapolate the nearest value. Reads coarse cells at most one outside
/// the r x r-shrunk fine box, which is why the zoom array carries one ghost layer.
template <class Coarse>
double interpolate(const Coarse& coarse, const Box<2>& roi, index_t fi, index_t fj, index_t r) {
  index_t lo[2], hi[2];
  double t[2];
  const index_t f[2] = {fi, fj};
  for (int d = 0; d < 2; ++d) {
    // Fine centre in coarse index units is (f + 1/2)/r - 1/2 = (2f + 1 - r) / 2r: integers only.
    const index_t num = 2 * f[d] + 1 - r, den = 2 * r;
    const index_t i0 = floor_div(num, den);
    t[d] = static_cast<double>(num - i0 * den) / static_cast<double>(den);
    lo[d] = std::clamp(i0, roi.lo[d], roi.hi[d] - 1);
    hi[d] = std::clamp(i0 + 1, roi.lo[d], roi.hi[d] - 1);
  }
  const double row0 = (1.0 - t[1]) * coarse(lo[0], lo[1]) + t[1] * coarse(lo[0], hi[1]);
  const double row1 = (1.0 - t[1]) * coarse(hi[0], lo[1]) + t[1] * coarse(hi[0], hi[1]);
  return (1.0 - t[0]) * row0 + t[0] * row1;
}

/// Mean of the r x r fine cells of coarse cell (i, j), summed in one fixed order.
template <class Fine>
double restrict_cell(const Fine& fine, index_t i, index_t j, index_t r) {
  double s = 0.0;
  for (index_t a = 0; a < r; ++a)
    for (index_t b = 0; b < r; ++b) s += fine(i * r + a, j * r + b);
  return s / static_cast<double>(r * r);
}

/// A plain serial array over `box` with one zero ghost layer, addressed by global indices.
struct Plain {
  Box<2> box;
  index_t width;
  std::vector<double> v;
  explicit Plain(const Box<2>& b)
      : box(b),
        width(b.hi[1] - b.lo[1] + 2),
        v(static_cast<std::size_t>((b.hi[0] - b.lo[0] + 2) * width), 0.0) {}
  double& operator()(index_t i, index_t j) {
    return v[static_cast<std::size_t>((i - box.lo[0] + 1) * width + (j - box.lo[1] + 1))];
  }
  double operator()(index_t i, index_t j) const {
    return v[static_cast<std::size_t>((i - box.lo[0] + 1) * width + (j - box.lo[1] + 1))];
  }
};

/// `sweeps` Jacobi sweeps over the points of `region`, alternating between `a` and `b` (both must
/// already agree outside the region): an even count leaves the result in `a`.
void serial_jacobi(Plain& a, Plain& b, const Box<2>& region, int sweeps, double h) {
  for (int s = 0; s < sweeps; ++s) {
    const Plain& in = s % 2 == 0 ? a : b;
    Plain& out = s % 2 == 0 ? b : a;
    for (index_t i = region.lo[0]; i < region.hi[0]; ++i)
      for (index_t j = region.lo[1]; j < region.hi[1]; ++j)
        out(i, j) = jacobi(in(i - 1, j), in(i + 1, j), in(i, j - 1), in(i, j + 1),
                           h * h * source(centre(i, h), centre(j, h)));
  }
}

/// The same sweeps over a distributed pair: refresh the ghosts of the input, then ZPL's
/// `[region] out := jacobi(in@north, in@south, in@west, in@east, h²f)` as one region statement.
void dist_jacobi(tessera::DistArray<double, 2>& a, tessera::DistArray<double, 2>& b, const Box<2>& region,
                 int sweeps, double h) {
  constexpr Point<2> north{-1, 0}, south{1, 0}, west{0, -1}, east{0, 1};
  for (int s = 0; s < sweeps; ++s) {
    tessera::DistArray<double, 2>& in = s % 2 == 0 ? a : b;
    tessera::DistArray<double, 2>& out = s % 2 == 0 ? b : a;
    in.update_ghosts();
    tessera::assign(
        region, out,
        [h](const Point<2>& p, double n, double so, double w, double e) {
          return jacobi(n, so, w, e, h * h * source(centre(p[0], h), centre(p[1], h)));
        },
        tessera::at(in, north), tessera::at(in, south), tessera::at(in, west), tessera::at(in, east));
  }
}

/// The region of interest: an m x m box around `at`, shifted to lie inside [0, n)².
Box<2> region_of_interest(const Point<2>& at, index_t m, index_t n) {
  Point<2> lo;
  for (std::size_t d = 0; d < 2; ++d) lo[d] = std::clamp(at[d] - m / 2, index_t{0}, n - m);
  return Box<2>::from_extents(lo, {m, m});
}

/// The box shrunk by one on every side: the fine sweeps keep the interpolated ring as boundary.
Box<2> interior(const Box<2>& b) { return {b.lo + Point<2>{1, 1}, b.hi - Point<2>{1, 1}}; }

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"ZPL computational zoom: coarse Jacobi, zoom into a region over all ranks, refine, sweep, copy back"};
  index_t n = 96, m = 16, r = 4;
  int coarse_sweeps = 200, fine_sweeps = 400;
  app.add_option("--n", n, "coarse cells per dimension")->check(CLI::Range(index_t{4}, index_t{1} << 13));
  app.add_option("--zoom", m, "coarse cells per dimension of the region of interest")
      ->check(CLI::Range(index_t{3}, index_t{1} << 13));
  app.add_option("--refine", r, "fine cells per coarse cell per dimension")->check(CLI::Range(index_t{1}, index_t{64}));
  app.add_option("--coarse-sweeps", coarse_sweeps, "Jacobi sweeps on the coarse grid (rounded up to even)")
      ->check(CLI::Range(0, 1000000));
  app.add_option("--fine-sweeps", fine_sweeps, "Jacobi sweeps on the fine grid (rounded up to even)")
      ->check(CLI::Range(0, 1000000));
  try {
    app.parse(argc, argv);
    if (m > n) throw CLI::ValidationError("--zoom", "must not exceed --n");
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }
  // Even counts leave each result in the first array of its Jacobi pair.
  coarse_sweeps += coarse_sweeps % 2;
  fine_sweeps += fine_sweeps % 2;
  const int rank = world.rank(), size = world.size();
  const double h = 1.0 / static_cast<double>(n), hf = h / static_cast<double>(r);
  const auto start = std::chrono::steady_clock::now();

  // computeApprox: the whole coarse grid, block x block over an automatic grid. Ghosts beyond the
  // domain stay zero: the Dirichlet boundary.
  const Box<2> box({0, 0}, {n, n});
  tessera::Domain<2> dom(world, tessera::Distribution<2>(box, tessera::ProcGrid<2>::automatic(size, {n, n}),
                                                         {tessera::block(), tessera::block()}));
  tessera::DistArray<double, 2> u(dom, tessera::ghosts<2>(1).faces_only());
  tessera::DistArray<double, 2> u_next(dom, tessera::ghosts<2>(1).faces_only());
  dist_jacobi(u, u_next, box, coarse_sweeps, h);
  const tessera::ValueAt<double, 2> peak = u.max_loc();  // same bits and point on every rank
  const Box<2> roi = region_of_interest(peak.at, m, n);
  std::set<int> roi_owners;
  for (const auto& piece : dom.distribution().pieces(roi)) roi_owners.insert(piece.rank);

  // DZoom <=# [blk(x1,x2), blk(y1,y2)]: a new domain over the roi alone, keeping its global indices,
  // block x block over a grid of ALL ranks, so every rank works on the zoom however few own the roi.
  const tessera::ProcGrid<2> zgrid = tessera::ProcGrid<2>::automatic(size, {m, m});
  tessera::Domain<2> zdom(world, tessera::Distribution<2>(roi, zgrid, {tessera::block(), tessera::block()}));
  tessera::DistArray<double, 2> zoom(zdom, tessera::ghosts<2>(1));  // ghosts: interpolation reads neighbours
  tessera::copy_section(u, roi, zoom, roi.lo);                      // [RZoom] Zoom := A#[,]
  zoom.update_ghosts();

  // The fine domain cuts each axis at r times the zoom's block boundaries, so the fine cells of a
  // coarse cell live on the rank that owns it: refinement and restriction are local loops.
  const Box<2> fine_box(roi.lo * r, roi.hi * r);
  std::array<tessera::DimSpec, 2> fine_specs;
  for (std::size_t d = 0; d < 2; ++d) {
    std::vector<index_t> cuts = zdom.distribution().dim(d).boundaries();
    for (index_t& c : cuts) c *= r;
    fine_specs[d] = tessera::cut(std::move(cuts));
  }
  tessera::Domain<2> fdom(world, tessera::Distribution<2>(fine_box, zgrid, fine_specs));
  tessera::DistArray<double, 2> fine(fdom, tessera::ghosts<2>(1).faces_only()),
      fine_next(fdom, tessera::ghosts<2>(1).faces_only());
  fine.for_each_owned([&](const Point<2>& p, double& x) {
    x = interpolate([&](index_t i, index_t j) { return zoom.at({i, j}); }, roi, p[0], p[1], r);
  });
  // computeMore: the fine sweeps keep the interpolated outer ring fixed, so both arrays need it.
  tessera::copy(fine, fine_next);
  dist_jacobi(fine, fine_next, interior(fine_box), fine_sweeps, hf);

  // Back to coarse resolution on the zoom's own ranks, then [x1..x2, y1..y2] A := Zoom#[,].
  zoom.for_each_owned([&](const Point<2>& p, double& x) {
    x = restrict_cell([&](index_t i, index_t j) { return fine.at({i, j}); }, p[0], p[1], r);
  });
  tessera::copy_section(zoom, roi, u, roi.lo);
  const double fine_peak = fine.max();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const std::vector<double> coarse_result = u.gather_to(0), fine_result = fine.gather_to(0);
  int failed = 0;
  if (rank == 0) {
    // The same steps serially, over plain arrays with one zero ghost layer.
    Plain a(box), b(box);
    serial_jacobi(a, b, box, coarse_sweeps, h);
    Point<2> at{};
    double best = a(0, 0);
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < n; ++j)
        if (a(i, j) > best) best = a(i, j), at = {i, j};  // strict: the first (row-major) maximum wins
    const Box<2> sroi = region_of_interest(at, m, n);
    Plain f(fine_box), g(fine_box);
    for (index_t i = fine_box.lo[0]; i < fine_box.hi[0]; ++i)
      for (index_t j = fine_box.lo[1]; j < fine_box.hi[1]; ++j)
        f(i, j) = interpolate([&](index_t ci, index_t cj) { return a(ci, cj); }, sroi, i, j, r);
    g = f;
    serial_jacobi(f, g, interior(fine_box), fine_sweeps, hf);
    for (index_t i = sroi.lo[0]; i < sroi.hi[0]; ++i)
      for (index_t j = sroi.lo[1]; j < sroi.hi[1]; ++j) a(i, j) = restrict_cell(f, i, j, r);

    index_t mismatches = 0;
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < n; ++j) mismatches += coarse_result[static_cast<std::size_t>(i * n + j)] != a(i, j);
    const index_t fw = fine_box.hi[1] - fine_box.lo[1];
    for (index_t i = fine_box.lo[0]; i < fine_box.hi[0]; ++i)
      for (index_t j = fine_box.lo[1]; j < fine_box.hi[1]; ++j)
        mismatches += fine_result[static_cast<std::size_t>((i - fine_box.lo[0]) * fw + (j - fine_box.lo[1]))] !=
                      f(i, j);
    std::printf("%d ranks: coarse %lldx%lld (%d sweeps), peak %.6f at (%lld,%lld); roi [%lld,%lld)x[%lld,%lld)"
                " owned by %zu of %d ranks on the coarse grid\n",
                size, static_cast<long long>(n), static_cast<long long>(n), coarse_sweeps, peak.value,
                static_cast<long long>(peak.at[0]), static_cast<long long>(peak.at[1]),
                static_cast<long long>(roi.lo[0]), static_cast<long long>(roi.hi[0]),
                static_cast<long long>(roi.lo[1]), static_cast<long long>(roi.hi[1]), roi_owners.size(), size);
    std::printf("zoom: %lldx%lld fine cells (refine %lld) over %d ranks (grid %lldx%lld), %d sweeps, fine peak %.6f,"
                " %.3f s\n",
                static_cast<long long>(fw), static_cast<long long>(fw), static_cast<long long>(r), zgrid.size(),
                static_cast<long long>(zgrid.extent(0)), static_cast<long long>(zgrid.extent(1)), fine_sweeps,
                fine_peak, seconds);
    if (mismatches == 0 && sroi == roi) {
      std::printf("computational zoom matches the serial reference bit for bit\n");
    } else {
      std::printf("MISMATCH: %lld values differ (serial roi %s the distributed one)\n",
                  static_cast<long long>(mismatches), sroi == roi ? "equals" : "differs from");
      failed = 1;
    }
  }
  tessera::check_mpi(MPI_Bcast(&failed, 1, MPI_INT, 0, world.raw()), "MPI_Bcast");
  return failed;
}
