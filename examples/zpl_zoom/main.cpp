// ZPL's computational zoom (Deitz et al., section 4.1): Jacobi sweeps for -Δu = f over a coarse
// n x n grid, a region of interest picked around the largest value, that region copied
// (copy_section) into a new domain spread over ALL ranks, refined r x r by bilinear interpolation,
// swept again at the fine resolution, and the fine result averaged back into the coarse array.
// Rank 0 redoes every step serially and requires the same bits. See README.md here.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "support/movement_count.hpp"
#include "tessera/tessera.hpp"
#include "zpl_zoom/zoom_kernels.hpp"
#include "zpl_zoom/zoom_options.hpp"

namespace {

using tessera::Box;
using tessera::index_t;
using tessera::Point;
using zpl_zoom::centre;
using zpl_zoom::interior;
using zpl_zoom::interpolate;
using zpl_zoom::jacobi;
using zpl_zoom::region_of_interest;
using zpl_zoom::restrict_cell;
using zpl_zoom::SerialZoom;
using zpl_zoom::source;

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


/// One zoom from fresh domains: the seconds of the whole computation and of the copy into the
/// zoom alone, what the copies and one fine ghost update moved (this rank's part), the region,
/// the grids, the coarse boundaries and the gathered results.
struct Run {
  double seconds = 0, zoom_in_seconds = 0, peak = 0, fine_peak = 0;
  Point<2> peak_at{};
  Box<2> roi;
  std::size_t roi_owners = 0;
  tessera::bench::Moved zoom_in, zoom_out, fine_halo;  // fine_halo: every fine sweep's update together
  std::array<std::vector<index_t>, 2> coarse_cuts, fine_cuts;
  Point<2> coarse_shape{}, zoom_shape{};
  std::vector<double> coarse, fine;
};

Run zoom_once(const tessera::Communicator& world, index_t n, index_t m, index_t r, int coarse_sweeps, int fine_sweeps) {
  const int size = world.size();
  const double h = 1.0 / static_cast<double>(n), hf = h / static_cast<double>(r);
  Run run;
  world.barrier();
  const double start = MPI_Wtime();
  // computeApprox: the whole coarse grid, block x block over an automatic grid. Ghosts beyond the
  // domain stay zero: the Dirichlet boundary.
  const Box<2> box({0, 0}, {n, n});
  tessera::Domain<2> dom(world, tessera::Distribution<2>(box, tessera::ProcGrid<2>::automatic(size, {n, n}),
                                                         {tessera::block(), tessera::block()}));
  tessera::DistArray<double, 2> u(dom, tessera::ghosts<2>(1).faces_only());
  tessera::DistArray<double, 2> u_next(dom, tessera::ghosts<2>(1).faces_only());
  dist_jacobi(u, u_next, box, coarse_sweeps, h);
  const tessera::ValueAt<double, 2> peak = u.max_loc();  // same bits and point on every rank
  run.peak = peak.value, run.peak_at = peak.at;
  const Box<2> roi = region_of_interest(peak.at, m, n);
  std::set<int> roi_owners;
  for (const auto& piece : dom.distribution().pieces(roi)) roi_owners.insert(piece.rank);
  run.roi = roi, run.roi_owners = roi_owners.size();

  // DZoom <=# [blk(x1,x2), blk(y1,y2)]: a new domain over the roi alone, keeping its global indices,
  // block x block over a grid of ALL ranks, so every rank works on the zoom however few own the roi.
  const tessera::ProcGrid<2> zgrid = tessera::ProcGrid<2>::automatic(size, {m, m});
  tessera::Domain<2> zdom(world, tessera::Distribution<2>(roi, zgrid, {tessera::block(), tessera::block()}));
  tessera::DistArray<double, 2> zoom(zdom, tessera::ghosts<2>(1));  // ghosts: interpolation reads neighbours
  const tessera::bench::MovementCount zoom_in_count;
  const double zoom_in_start = MPI_Wtime();
  tessera::copy_section(u, roi, zoom, roi.lo);  // [RZoom] Zoom := A#[,]
  run.zoom_in_seconds = MPI_Wtime() - zoom_in_start;
  run.zoom_in = zoom_in_count.mine();
  zoom.update_ghosts();

  // The fine domain cuts each axis at r times the zoom's block boundaries, so the fine cells of a
  // coarse cell live on the rank that owns it: refinement and restriction are local loops.
  const Box<2> fine_box(roi.lo * r, roi.hi * r);
  std::array<tessera::DimSpec, 2> fine_specs;
  for (std::size_t d = 0; d < 2; ++d) {
    std::vector<index_t> cuts = zdom.distribution().dim(d).boundaries();
    for (index_t& c : cuts) c *= r;
    run.fine_cuts[d] = cuts;
    run.coarse_cuts[d] = dom.distribution().dim(d).boundaries();
    fine_specs[d] = tessera::cut(std::move(cuts));
  }
  run.coarse_shape = dom.distribution().grid().shape(), run.zoom_shape = zgrid.shape();
  tessera::Domain<2> fdom(world, tessera::Distribution<2>(fine_box, zgrid, fine_specs));
  tessera::DistArray<double, 2> fine(fdom, tessera::ghosts<2>(1).faces_only()),
      fine_next(fdom, tessera::ghosts<2>(1).faces_only());
  fine.for_each_owned([&](const Point<2>& p, double& x) {
    x = interpolate([&](index_t i, index_t j) { return zoom.at({i, j}); }, roi, p[0], p[1], r);
  });
  // computeMore: the fine sweeps keep the interpolated outer ring fixed, so both arrays need it.
  tessera::copy(fine, fine_next);
  const tessera::bench::MovementCount fine_count;
  dist_jacobi(fine, fine_next, interior(fine_box), fine_sweeps, hf);
  run.fine_halo = fine_count.mine();

  // Back to coarse resolution on the zoom's own ranks, then [x1..x2, y1..y2] A := Zoom#[,].
  zoom.for_each_owned([&](const Point<2>& p, double& x) {
    x = restrict_cell([&](index_t i, index_t j) { return fine.at({i, j}); }, p[0], p[1], r);
  });
  const tessera::bench::MovementCount zoom_out_count;
  tessera::copy_section(zoom, roi, u, roi.lo);
  run.zoom_out = zoom_out_count.mine();
  run.fine_peak = fine.max();
  run.seconds = MPI_Wtime() - start;
  run.coarse = u.gather_to(0), run.fine = fine.gather_to(0);
  return run;
}

/// A spec's "lo:hi" range and "cut(...)" list for one dimension.
std::string range_text(index_t lo, index_t hi) { return std::to_string(lo) + ":" + std::to_string(hi); }
std::string cut_text(const std::vector<index_t>& cuts) {
  std::string out;
  for (const index_t c : cuts) out += (out.empty() ? "cut(" : ",") + std::to_string(c);
  return out + ")";
}

/// The spec of `box` over a `shape` grid with per-dimension cuts, each clipped to the box (empty
/// intervals allowed: a coordinate that owns nothing of it).
std::string cut_spec(const Box<2>& box, const Point<2>& shape, const std::array<std::vector<index_t>, 2>& cuts) {
  std::string dist;
  for (std::size_t d = 0; d < 2; ++d) {
    std::vector<index_t> clipped;
    for (const index_t c : cuts[d]) clipped.push_back(std::clamp(c, box.lo[d], box.hi[d]));
    dist += (d ? "," : "") + cut_text(clipped);
  }
  return "domain=" + range_text(box.lo[0], box.hi[0]) + "x" + range_text(box.lo[1], box.hi[1]) + " grid=" +
         std::to_string(shape[0]) + "x" + std::to_string(shape[1]) + " dist=" + dist;
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"ZPL computational zoom: coarse Jacobi, zoom into a region over all ranks, refine, sweep, copy back"};
  zpl_zoom::ZoomOptions options;
  zpl_zoom::add_zoom_options(app, options);
  auto& [n, m, r, coarse_sweeps, fine_sweeps, repeat, json] = options;
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
  const SerialZoom ref = rank == 0 ? zpl_zoom::serial_zoom(n, m, r, coarse_sweeps, fine_sweeps) : SerialZoom{};

  std::vector<double> seconds, zoom_in_seconds;
  Run run;
  index_t mismatched = 0;
  bool same_roi = true;
  for (int k = 0; k < repeat && mismatched == 0; ++k) {
    run = zoom_once(world, n, m, r, coarse_sweeps, fine_sweeps);
    if (rank == 0) {
      same_roi = ref.roi == run.roi;
      mismatched = zpl_zoom::mismatches(run.coarse, ref.coarse) + zpl_zoom::mismatches(run.fine, ref.fine) + !same_roi;
    }
    seconds.push_back(run.seconds);
    zoom_in_seconds.push_back(run.zoom_in_seconds);
    tessera::check_mpi(MPI_Bcast(&mismatched, 1, MPI_INT64_T, 0, world.raw()), "MPI_Bcast");
  }
  const tessera::bench::Summary t = tessera::bench::slowest_rank_summary(seconds, world.raw());
  const tessera::bench::Summary zoom_in_t = tessera::bench::slowest_rank_summary(zoom_in_seconds, world.raw());
  const tessera::bench::Moved zoom_in = tessera::bench::sum_over_ranks(run.zoom_in, world.raw());
  const tessera::bench::Moved zoom_out = tessera::bench::sum_over_ranks(run.zoom_out, world.raw());
  tessera::bench::Moved fine_halo = tessera::bench::sum_over_ranks(run.fine_halo, world.raw());
  if (fine_sweeps > 0) {  // per ghost update: every fine sweep updates the same ghosts
    const auto k = static_cast<std::uint64_t>(fine_sweeps);
    fine_halo = {fine_halo.bytes_sent / k, fine_halo.messages / k, fine_halo.bytes_local / k};
  }
  int failed = 0;
  if (rank == 0) {
    const Box<2>& roi = run.roi;
    const Box<2> fine_box(roi.lo * r, roi.hi * r);
    const index_t fw = fine_box.hi[1] - fine_box.lo[1];
    std::printf("%d ranks: coarse %lldx%lld (%d sweeps), peak %.6f at (%lld,%lld); roi [%lld,%lld)x[%lld,%lld)"
                " owned by %zu of %d ranks on the coarse grid\n",
                size, static_cast<long long>(n), static_cast<long long>(n), coarse_sweeps, run.peak,
                static_cast<long long>(run.peak_at[0]), static_cast<long long>(run.peak_at[1]),
                static_cast<long long>(roi.lo[0]), static_cast<long long>(roi.hi[0]), static_cast<long long>(roi.lo[1]),
                static_cast<long long>(roi.hi[1]), run.roi_owners, size);
    std::printf("zoom: %lldx%lld fine cells (refine %lld) over %d ranks (grid %lldx%lld), %d sweeps, fine peak %.6f,"
                " %.3f s (median of %d; copy into the zoom %.6f s)\n",
                static_cast<long long>(fw), static_cast<long long>(fw), static_cast<long long>(r), size,
                static_cast<long long>(run.zoom_shape[0]), static_cast<long long>(run.zoom_shape[1]), fine_sweeps,
                run.fine_peak, t.median, repeat, zoom_in_t.median);
    const std::string coarse_part = cut_spec(roi, run.coarse_shape, run.coarse_cuts);
    const std::string zoom_spec = "domain=" + range_text(roi.lo[0], roi.hi[0]) + "x" + range_text(roi.lo[1], roi.hi[1]) +
                                  " grid=" + std::to_string(run.zoom_shape[0]) + "x" +
                                  std::to_string(run.zoom_shape[1]) + " dist=block,block";
    const std::string tail = " --ranks " + std::to_string(size) + " --element-size " + std::to_string(sizeof(double));
    tessera::bench::print_movement(true, "zoom-in", zoom_in, "'" + coarse_part + "' '" + zoom_spec + "'" + tail);
    tessera::bench::print_movement(true, "zoom-out", zoom_out, "'" + zoom_spec + "' '" + coarse_part + "'" + tail);
    tessera::bench::print_movement(true, "fine-halo", fine_halo,
                                   "'" + cut_spec(fine_box, run.zoom_shape, run.fine_cuts) + " ghosts=1,faces' --halo" + tail);
    if (mismatched == 0 && same_roi) {
      if (!json.empty()) {
        const std::string name = "n" + std::to_string(n) + "-zoom" + std::to_string(m) + "-refine" + std::to_string(r);
        std::vector<tessera::bench::Record> records{
            tessera::bench::Record::timing("zpl_zoom", name, size, t),
            tessera::bench::timing_record("zpl_zoom", name, size, "movement_s", zoom_in_t)};
        tessera::bench::add_movement_records(records, "zpl_zoom", name, size, "zoom_in", zoom_in);
        tessera::bench::add_movement_records(records, "zpl_zoom", name, size, "zoom_out", zoom_out);
        tessera::bench::add_movement_records(records, "zpl_zoom", name, size, "fine_halo", fine_halo);
        tessera::bench::write_json(json, records, "zpl_zoom");
      }
      std::printf("computational zoom matches the serial reference bit for bit\n");
    } else {
      std::printf("MISMATCH: %lld values differ (serial roi %s the distributed one)\n",
                  static_cast<long long>(mismatched), same_roi ? "equals" : "differs from");
      failed = 1;
    }
  }
  tessera::check_mpi(MPI_Bcast(&failed, 1, MPI_INT, 0, world.raw()), "MPI_Bcast");
  return failed;
}
