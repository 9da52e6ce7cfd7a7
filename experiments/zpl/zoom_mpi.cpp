// ZPL's computational zoom (examples/zpl_zoom) written with MPI alone, as a careful MPI programmer
// would: the coarse grid block x block over an MPI_Dims_create grid (one ghost layer, MPI_Isend /
// MPI_Irecv halos with a column MPI_Type_vector), the peak by MPI_Allreduce(MPI_MAXLOC), the region
// of interest moved onto a block x block split of ALL ranks by MPI_Isend / MPI_Irecv of subarray
// datatypes (no packing by hand), refined r x r where it lies, swept at the fine spacing, averaged
// back and moved home the same way. Same problem, same update expressions in the same order and
// the same check as the tessera example: rank 0 requires the serial run's bits, coarse and fine.
//
//   scripts/mpirun.sh 4 build/release/experiments/zpl_zoom_mpi --n 256 --zoom 32 --refine 4 --repeat 3
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "straight_mpi.hpp"
#include "support/movement_count.hpp"
#include "zpl_zoom/zoom_kernels.hpp"
#include "zpl_zoom/zoom_options.hpp"

namespace {

using zpl_mpi::index_t;
using zpl_mpi::part_hi;
using zpl_mpi::part_lo;
using zpl_zoom::Box;

/// A block x block split of `box` over a dims[0] x dims[1] grid, rank i * dims[1] + j at (i, j);
/// every rank stores its block with one ghost layer. With `refine` r, the blocks are r times those
/// of the box r times smaller (the fine grid's blocks lie under the zoom's).
struct Split {
  Box<2> box;
  int dims[2] = {1, 1};
  index_t refine = 1;
  [[nodiscard]] Box<2> owned(int rank) const {
    const int i = rank / dims[1], j = rank % dims[1];
    const index_t n0 = (box.hi[0] - box.lo[0]) / refine, n1 = (box.hi[1] - box.lo[1]) / refine;
    return Box<2>({box.lo[0] + refine * part_lo(n0, dims[0], i), box.lo[1] + refine * part_lo(n1, dims[1], j)},
                  {box.lo[0] + refine * part_hi(n0, dims[0], i), box.lo[1] + refine * part_hi(n1, dims[1], j)});
  }
  [[nodiscard]] int at(int i, int j) const {
    return i < 0 || j < 0 || i >= dims[0] || j >= dims[1] ? MPI_PROC_NULL : i * dims[1] + j;
  }
  [[nodiscard]] zpl_mpi::GhostedBlock block(int rank) const {
    const Box<2> b = owned(rank);
    const int i = rank / dims[1], j = rank % dims[1];
    return {b.hi[0] - b.lo[0], b.hi[1] - b.lo[1], at(i - 1, j), at(i + 1, j), at(i, j - 1), at(i, j + 1)};
  }
};

/// One rank's array over a split: its block with one ghost layer, addressed by global indices.
struct Local {
  Box<2> owned;
  index_t width;
  std::vector<double> v;
  explicit Local(const Box<2>& b)
      : owned(b), width(b.hi[1] - b.lo[1] + 2), v(static_cast<std::size_t>((b.hi[0] - b.lo[0] + 2) * width), 0.0) {}
  double& operator()(index_t i, index_t j) {
    return v[static_cast<std::size_t>((i - owned.lo[0] + 1) * width + (j - owned.lo[1] + 1))];
  }
  double operator()(index_t i, index_t j) const {
    return v[static_cast<std::size_t>((i - owned.lo[0] + 1) * width + (j - owned.lo[1] + 1))];
  }
  /// `part` (inside `owned`) of the stored block as an MPI subarray type.
  [[nodiscard]] MPI_Datatype subarray(const Box<2>& part) const {
    const int sizes[2] = {static_cast<int>(owned.hi[0] - owned.lo[0] + 2), static_cast<int>(width)};
    const int sub[2] = {static_cast<int>(part.hi[0] - part.lo[0]), static_cast<int>(part.hi[1] - part.lo[1])};
    const int start[2] = {static_cast<int>(part.lo[0] - owned.lo[0] + 1), static_cast<int>(part.lo[1] - owned.lo[1] + 1)};
    MPI_Datatype t;
    MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    return t;
  }
};

Box<2> intersect(const Box<2>& a, const Box<2>& b) {
  Box<2> c({std::max(a.lo[0], b.lo[0]), std::max(a.lo[1], b.lo[1])}, {std::min(a.hi[0], b.hi[0]), std::min(a.hi[1], b.hi[1])});
  return c.hi[0] > c.lo[0] && c.hi[1] > c.lo[1] ? c : Box<2>({0, 0}, {0, 0});
}
bool empty(const Box<2>& b) { return b.hi[0] <= b.lo[0] || b.hi[1] <= b.lo[1]; }

/// Moves `region` from `src` (over split `from`) into `dst` (over split `to`): every rank sends each
/// peer the part of the region it owns in `from` that the peer owns in `to`, as one subarray
/// message (its own part is copied locally). Adds what it sent to `moved`.
void move_region(const Local& src, const Split& from, Local& dst, const Split& to, const Box<2>& region, int rank,
                 int size, tessera::bench::Moved& moved) {
  std::vector<MPI_Request> req;
  std::vector<MPI_Datatype> types;
  const Box<2> mine_from = intersect(from.owned(rank), region), mine_to = intersect(to.owned(rank), region);
  for (int q = 0; q < size; ++q) {
    if (q == rank) continue;
    const Box<2> in = intersect(from.owned(q), mine_to);
    if (!empty(in)) {
      types.push_back(dst.subarray(in));
      req.emplace_back();
      MPI_Irecv(dst.v.data(), 1, types.back(), q, 7, MPI_COMM_WORLD, &req.back());
    }
  }
  for (int q = 0; q < size; ++q) {
    if (q == rank) continue;
    const Box<2> out = intersect(to.owned(q), mine_from);
    if (!empty(out)) {
      types.push_back(src.subarray(out));
      req.emplace_back();
      MPI_Isend(src.v.data(), 1, types.back(), q, 7, MPI_COMM_WORLD, &req.back());
      moved.bytes_sent += static_cast<std::uint64_t>(tessera::volume(out)) * sizeof(double);
      ++moved.messages;
    }
  }
  const Box<2> here = intersect(mine_from, mine_to);
  for (index_t i = here.lo[0]; i < here.hi[0]; ++i)
    for (index_t j = here.lo[1]; j < here.hi[1]; ++j) dst(i, j) = src(i, j);
  if (!empty(here)) moved.bytes_local += static_cast<std::uint64_t>(tessera::volume(here)) * sizeof(double);
  MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE);
  for (MPI_Datatype& t : types) MPI_Type_free(&t);
}

/// `sweeps` Jacobi sweeps over the points of `region` this rank owns, alternating between `a` and
/// `b` (both hold the same values outside the region), a face ghost update before each.
void jacobi_sweeps(Local& a, Local& b, const zpl_mpi::GhostedBlock& block, const Box<2>& region, int sweeps, double h,
                   tessera::bench::Moved& moved) {
  const Box<2> mine = intersect(a.owned, region);
  for (int s = 0; s < sweeps; ++s) {
    Local& in = s % 2 == 0 ? a : b;
    Local& out = s % 2 == 0 ? b : a;
    zpl_mpi::update_ghosts(in.v.data(), block, false, moved);
    for (index_t i = mine.lo[0]; i < mine.hi[0]; ++i)
      for (index_t j = mine.lo[1]; j < mine.hi[1]; ++j)
        out(i, j) = zpl_zoom::jacobi(in(i - 1, j), in(i + 1, j), in(i, j - 1), in(i, j + 1),
                                     h * h * zpl_zoom::source(zpl_zoom::centre(i, h), zpl_zoom::centre(j, h)));
  }
}

/// Gathers the owned blocks of `a` (over `split`) into the row-major image of the split's box on rank 0.
std::vector<double> gather(const Local& a, const Split& split, int rank, int size) {
  std::vector<double> mine;
  for (index_t i = a.owned.lo[0]; i < a.owned.hi[0]; ++i)
    for (index_t j = a.owned.lo[1]; j < a.owned.hi[1]; ++j) mine.push_back(a(i, j));
  std::vector<int> counts(static_cast<std::size_t>(size)), displs(counts.size());
  for (int q = 0, at = 0; q < size; ++q) {
    counts[static_cast<std::size_t>(q)] = static_cast<int>(tessera::volume(split.owned(q)));
    displs[static_cast<std::size_t>(q)] = at;
    at += counts[static_cast<std::size_t>(q)];
  }
  std::vector<double> all(rank == 0 ? static_cast<std::size_t>(tessera::volume(split.box)) : 0), image(all.size());
  MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(), counts.data(), displs.data(),
              MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank != 0) return image;
  const index_t width = split.box.hi[1] - split.box.lo[1];
  for (int q = 0; q < size; ++q) {
    const Box<2> b = split.owned(q);
    const double* p = all.data() + displs[static_cast<std::size_t>(q)];
    for (index_t i = b.lo[0]; i < b.hi[0]; ++i)
      for (index_t j = b.lo[1]; j < b.hi[1]; ++j)
        image[static_cast<std::size_t>((i - split.box.lo[0]) * width + (j - split.box.lo[1]))] = *p++;
  }
  return image;
}

struct Run {
  double seconds = 0, zoom_in_seconds = 0;
  tessera::bench::Moved zoom_in, zoom_out, fine_halo;  // this rank's part; fine_halo: every fine sweep
  Box<2> roi;
  std::vector<double> coarse, fine;  // on rank 0
};

Run zoom_once(index_t n, index_t m, index_t r, int coarse_sweeps, int fine_sweeps, const int dims[2], int rank, int size) {
  const double h = 1.0 / static_cast<double>(n), hf = h / static_cast<double>(r);
  Run run;
  tessera::bench::Moved coarse_halo;  // not reported: the tessera example's coarse sweeps are not either
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  const Split coarse{Box<2>({0, 0}, {n, n}), {dims[0], dims[1]}};
  Local u(coarse.owned(rank)), u_next(coarse.owned(rank));
  jacobi_sweeps(u, u_next, coarse.block(rank), coarse.box, coarse_sweeps, h, coarse_halo);
  // The peak: the largest value, the first in row-major order among equals (MPI_MAXLOC keeps the
  // smallest index), as the serial run picks it.
  struct {
    double value;
    int index;
  } best{u(u.owned.lo[0], u.owned.lo[1]), static_cast<int>(u.owned.lo[0] * n + u.owned.lo[1])};
  for (index_t i = u.owned.lo[0]; i < u.owned.hi[0]; ++i)
    for (index_t j = u.owned.lo[1]; j < u.owned.hi[1]; ++j)
      if (u(i, j) > best.value) best = {u(i, j), static_cast<int>(i * n + j)};
  MPI_Allreduce(MPI_IN_PLACE, &best, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
  const Box<2> roi = zpl_zoom::region_of_interest({best.index / n, best.index % n}, m, n);
  run.roi = roi;

  // The zoom over all ranks, with corners in its ghost layer (the interpolation reads diagonal neighbours).
  const Split zsplit{roi, {dims[0], dims[1]}};
  Local zoom(zsplit.owned(rank));
  const double zoom_in_start = MPI_Wtime();
  move_region(u, coarse, zoom, zsplit, roi, rank, size, run.zoom_in);
  run.zoom_in_seconds = MPI_Wtime() - zoom_in_start;
  tessera::bench::Moved zoom_ghosts;
  zpl_mpi::update_ghosts(zoom.v.data(), zsplit.block(rank), true, zoom_ghosts);

  // The fine blocks are r times the zoom's: refinement and restriction stay on the rank.
  const Box<2> fine_box(roi.lo * r, roi.hi * r);
  const Split fsplit{fine_box, {dims[0], dims[1]}, r};
  const Box<2> fowned = fsplit.owned(rank);
  Local fine(fowned);
  for (index_t i = fowned.lo[0]; i < fowned.hi[0]; ++i)
    for (index_t j = fowned.lo[1]; j < fowned.hi[1]; ++j)
      fine(i, j) = zpl_zoom::interpolate([&](index_t ci, index_t cj) { return zoom(ci, cj); }, roi, i, j, r);
  Local fine_next = fine;
  jacobi_sweeps(fine, fine_next, fsplit.block(rank), zpl_zoom::interior(fine_box), fine_sweeps, hf, run.fine_halo);
  for (index_t i = zoom.owned.lo[0]; i < zoom.owned.hi[0]; ++i)
    for (index_t j = zoom.owned.lo[1]; j < zoom.owned.hi[1]; ++j)
      zoom(i, j) = zpl_zoom::restrict_cell([&](index_t fi, index_t fj) { return fine(fi, fj); }, i, j, r);
  move_region(zoom, zsplit, u, coarse, roi, rank, size, run.zoom_out);
  run.seconds = MPI_Wtime() - start;
  run.coarse = gather(u, coarse, rank, size);
  run.fine = gather(fine, fsplit, rank, size);
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CLI::App app{"ZPL's computational zoom with MPI alone: Isend/Irecv halos, subarray moves of the region"};
  zpl_zoom::ZoomOptions options;
  zpl_zoom::add_zoom_options(app, options);
  auto& [n, m, r, coarse_sweeps, fine_sweeps, repeat, json] = options;
  int dims[2] = {0, 0};
  MPI_Dims_create(size, 2, dims);
  try {
    app.parse(argc, argv);
    if (m > n) throw CLI::ValidationError("--zoom", "must not exceed --n");
    // Every block of the zoom needs a row and a column: the ghost update trades with the next block only.
    if (m < std::max(dims[0], dims[1])) throw CLI::ValidationError("--zoom", "must be at least the process grid's extents");
  } catch (const CLI::ParseError& e) {
    const int code = rank == 0 ? app.exit(e) : (e.get_exit_code() != 0);
    MPI_Finalize();
    return code;
  }
  coarse_sweeps += coarse_sweeps % 2;
  fine_sweeps += fine_sweeps % 2;
  const zpl_zoom::SerialZoom ref =
      rank == 0 ? zpl_zoom::serial_zoom(n, m, r, coarse_sweeps, fine_sweeps) : zpl_zoom::SerialZoom{};
  std::vector<double> seconds, zoom_in_seconds;
  tessera::bench::Moved zoom_in, zoom_out, fine_halo;
  for (int k = 0; k < repeat; ++k) {
    const Run run = zoom_once(n, m, r, coarse_sweeps, fine_sweeps, dims, rank, size);
    if (rank == 0) {
      const index_t bad = zpl_zoom::mismatches(run.coarse, ref.coarse) + zpl_zoom::mismatches(run.fine, ref.fine);
      if (bad != 0 || !(run.roi == ref.roi))
        zpl_mpi::fail("zpl_zoom_mpi", "MISMATCH: " + std::to_string(bad) + " values differ from the serial run");
    }
    seconds.push_back(run.seconds);
    zoom_in_seconds.push_back(run.zoom_in_seconds);
    zoom_in = tessera::bench::sum_over_ranks(run.zoom_in, MPI_COMM_WORLD);
    zoom_out = tessera::bench::sum_over_ranks(run.zoom_out, MPI_COMM_WORLD);
    fine_halo = tessera::bench::sum_over_ranks(run.fine_halo, MPI_COMM_WORLD);
  }
  if (fine_sweeps > 0) {  // per ghost update
    const auto k = static_cast<std::uint64_t>(fine_sweeps);
    fine_halo = {fine_halo.bytes_sent / k, fine_halo.messages / k, fine_halo.bytes_local / k};
  }
  const auto t = tessera::bench::slowest_rank_summary(seconds, MPI_COMM_WORLD);
  const auto zoom_in_t = tessera::bench::slowest_rank_summary(zoom_in_seconds, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("%d ranks (grid %dx%d): coarse %lldx%lld, zoom %lldx%lld refined %lld, MPI Isend/Irecv: %.3f s (median "
                "of %d; copy into the zoom %.6f s)\n",
                size, dims[0], dims[1], static_cast<long long>(n), static_cast<long long>(n), static_cast<long long>(m),
                static_cast<long long>(m), static_cast<long long>(r), t.median, repeat, zoom_in_t.median);
    tessera::bench::print_movement(true, "zoom-in", zoom_in);
    tessera::bench::print_movement(true, "zoom-out", zoom_out);
    tessera::bench::print_movement(true, "fine-halo", fine_halo);
    if (!json.empty()) {
      const std::string name = "n" + std::to_string(n) + "-zoom" + std::to_string(m) + "-refine" + std::to_string(r);
      std::vector<tessera::bench::Record> records{
          tessera::bench::Record::timing("zpl_zoom_mpi", name, size, t),
          tessera::bench::timing_record("zpl_zoom_mpi", name, size, "movement_s", zoom_in_t)};
      tessera::bench::add_movement_records(records, "zpl_zoom_mpi", name, size, "zoom_in", zoom_in);
      tessera::bench::add_movement_records(records, "zpl_zoom_mpi", name, size, "zoom_out", zoom_out);
      tessera::bench::add_movement_records(records, "zpl_zoom_mpi", name, size, "fine_halo", fine_halo);
      tessera::bench::write_json(json, records, "zpl_zoom_mpi");
    }
    std::printf("straight-MPI computational zoom matches the serial reference bit for bit\n");
  }
  MPI_Finalize();
  return 0;
}
