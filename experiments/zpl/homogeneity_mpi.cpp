// ZPL's processor homogeneity test (examples/zpl_homogeneity) written with MPI alone, as a careful
// MPI programmer would: a block x block split over an MPI_Dims_create grid whose rank table is
// rotated for every run (rank base[(l + k) mod p] computes block l in run k), the input block
// handed to its next owner with one MPI_Isend / MPI_Irecv pair per rank, and every sweep's ghost
// update as MPI_Isend / MPI_Irecv of rows (contiguous) and columns (an MPI_Type_vector). Only the
// input moves between runs: the work arrays start from it anyway. Same kernel and the same check as
// the tessera example: every run's result gathered on rank 0 and compared bit for bit with a
// serial run.
//
//   scripts/mpirun.sh 4 build/release/experiments/zpl_homogeneity_mpi --n 1024 --sweeps 40 --repeat 3
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "straight_mpi.hpp"
#include "support/movement_count.hpp"
#include "zpl_homogeneity/smoothing.hpp"

namespace {

using zpl_mpi::index_t;
using zpl_mpi::part_lo;
using zpl_mpi::part_size;

/// The process grid and the rotated rank table of one run.
struct Layout {
  int dims[2] = {0, 0};
  std::vector<int> base;  // the rank list (shuffled with --seed, as the tessera example does)
  index_t n = 0;
  int rank_at(int position, int run) const {
    return base[static_cast<std::size_t>((position + run) % static_cast<int>(base.size()))];
  }
  int position_of(int rank, int run) const {
    const int p = static_cast<int>(base.size());
    const int at = static_cast<int>(std::find(base.begin(), base.end(), rank) - base.begin());
    return ((at - run) % p + p) % p;
  }
  index_t rows(int position) const { return part_size(n, dims[0], position / dims[1]); }
  index_t cols(int position) const { return part_size(n, dims[1], position % dims[1]); }
  index_t row0(int position) const { return part_lo(n, dims[0], position / dims[1]); }
  index_t col0(int position) const { return part_lo(n, dims[1], position % dims[1]); }
  /// The rank holding the block next to `position` by (di, dj) in run `run`, or MPI_PROC_NULL at the edge.
  int neighbour(int position, int di, int dj, int run) const {
    const int i = position / dims[1] + di, j = position % dims[1] + dj;
    if (i < 0 || j < 0 || i >= dims[0] || j >= dims[1]) return MPI_PROC_NULL;
    return rank_at(i * dims[1] + j, run);
  }
  zpl_mpi::GhostedBlock block(int position, int run) const {
    return {rows(position), cols(position), neighbour(position, -1, 0, run), neighbour(position, 1, 0, run),
            neighbour(position, 0, -1, run), neighbour(position, 0, 1, run)};
  }
};

struct Test {
  double seconds = 0;
  int identical = 0;
  tessera::bench::Moved halo, permute;  // this rank's part, every run together
};

Test homogeneity_test(const Layout& g, int sweeps, int runs, int rank, const std::vector<double>& reference) {
  const int size = static_cast<int>(g.base.size());
  Test test;
  int position = g.position_of(rank, 0);
  std::vector<double> input(static_cast<std::size_t>(g.rows(position) * g.cols(position)));
  for (index_t i = 0; i < g.rows(position); ++i)
    for (index_t j = 0; j < g.cols(position); ++j)
      input[static_cast<std::size_t>(i * g.cols(position) + j)] =
          zpl_homogeneity::initial(g.row0(position) + i, g.col0(position) + j);
  for (int k = 0; k < runs; ++k) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    if (k > 0) {  // G <== procs: my block goes to its owner in run k; I receive the block I own in run k
      const int next = g.position_of(rank, k);
      std::vector<double> arrived(static_cast<std::size_t>(g.rows(next) * g.cols(next)));
      const int to = g.rank_at(position, k), from = g.rank_at(next, k - 1);
      MPI_Sendrecv(input.data(), static_cast<int>(input.size()), MPI_DOUBLE, to, 9, arrived.data(),
                   static_cast<int>(arrived.size()), MPI_DOUBLE, from, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      const auto bytes = static_cast<std::uint64_t>(input.size()) * sizeof(double);
      if (to != rank) test.permute.bytes_sent += bytes, ++test.permute.messages;
      else test.permute.bytes_local += bytes;
      input.swap(arrived);
      position = next;
    }
    const index_t rows = g.rows(position), cols = g.cols(position), w = cols + 2;
    std::vector<double> work(static_cast<std::size_t>((rows + 2) * w), 0.0), next(work.size(), 0.0);
    for (index_t i = 0; i < rows; ++i)
      std::copy_n(input.data() + i * cols, cols, work.data() + (i + 1) * w + 1);
    const zpl_mpi::GhostedBlock mine_block = g.block(position, k);
    const double t1 = MPI_Wtime();
    MPI_Barrier(MPI_COMM_WORLD);  // start every rank's kernel together, as the tessera example does
    const double k0 = MPI_Wtime();
    for (int s = 0; s < sweeps; ++s) {
      std::vector<double>& in = s % 2 == 0 ? work : next;
      std::vector<double>& out = s % 2 == 0 ? next : work;
      zpl_mpi::update_ghosts(in.data(), mine_block, false, test.halo);
      zpl_homogeneity::sweep(zpl_homogeneity::plain_view(static_cast<const double*>(in.data()), rows, cols),
                             zpl_homogeneity::plain_view(out.data(), rows, cols));
    }
    test.seconds += (t1 - t0) + (MPI_Wtime() - k0);

    // The check: every block to rank 0, placed by its position in this run.
    std::vector<double> mine(static_cast<std::size_t>(rows * cols));
    for (index_t i = 0; i < rows; ++i) std::copy_n(work.data() + (i + 1) * w + 1, cols, mine.data() + i * cols);
    std::vector<int> counts(static_cast<std::size_t>(size)), displs(counts.size());
    for (int r = 0, at = 0; r < size; ++r) {
      const int p = g.position_of(r, k);
      counts[static_cast<std::size_t>(r)] = static_cast<int>(g.rows(p) * g.cols(p));
      displs[static_cast<std::size_t>(r)] = at;
      at += counts[static_cast<std::size_t>(r)];
    }
    std::vector<double> all(rank == 0 ? static_cast<std::size_t>(g.n * g.n) : 0);
    MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(), counts.data(), displs.data(),
                MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank != 0) continue;
    std::vector<double> got(all.size());
    for (int r = 0; r < size; ++r) {
      const int p = g.position_of(r, k);
      const double* block = all.data() + displs[static_cast<std::size_t>(r)];
      for (index_t i = 0; i < g.rows(p); ++i)
        std::copy_n(block + i * g.cols(p), g.cols(p), got.data() + (g.row0(p) + i) * g.n + g.col0(p));
    }
    test.identical += got == reference;
  }
  return test;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CLI::App app{"ZPL's homogeneity test with MPI alone: rotated rank tables, Isend/Irecv halos and block moves"};
  index_t n = 512;
  int sweeps = 40, permutations = 0, repeat = 1;
  unsigned seed = 0;
  std::string json;
  app.add_option("--n", n, "grid points per dimension")->check(CLI::Range(index_t{1}, index_t{1} << 14));
  app.add_option("--sweeps", sweeps, "smoothing sweeps per run (rounded up to even)")->check(CLI::Range(0, 1000000));
  app.add_option("--permutations", permutations, "runs (0: one per rank)")->check(CLI::Range(0, 100000));
  app.add_option("--seed", seed, "shuffle the rank list before rotating it (0: ranks in order)");
  app.add_option("--repeat", repeat, "whole tests, each run checked")->check(CLI::Range(1, 10000));
  app.add_option("--json", json, "rank 0 writes the timings and the movements' bytes here (bench records)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = rank == 0 ? app.exit(e) : (e.get_exit_code() != 0);
    MPI_Finalize();
    return code;
  }
  sweeps += sweeps % 2;
  const int runs = permutations > 0 ? permutations : size;
  Layout g;
  g.n = n;
  MPI_Dims_create(size, 2, g.dims);
  g.base.resize(static_cast<std::size_t>(size));
  std::iota(g.base.begin(), g.base.end(), 0);
  if (seed != 0) std::shuffle(g.base.begin(), g.base.end(), std::mt19937(seed));
  const std::vector<double> reference = rank == 0 ? zpl_homogeneity::serial_smoothing(n, sweeps) : std::vector<double>{};
  std::vector<double> seconds;
  tessera::bench::Moved halo, permute;
  for (int r = 0; r < repeat; ++r) {
    const Test test = homogeneity_test(g, sweeps, runs, rank, reference);
    if (rank == 0 && test.identical != runs)
      zpl_mpi::fail("zpl_homogeneity_mpi", "MISMATCH: only " + std::to_string(test.identical) + " of " +
                                               std::to_string(runs) + " permutations match the serial run");
    seconds.push_back(test.seconds);
    halo = tessera::bench::sum_over_ranks(test.halo, MPI_COMM_WORLD);
    permute = tessera::bench::sum_over_ranks(test.permute, MPI_COMM_WORLD);
  }
  const auto t = tessera::bench::slowest_rank_summary(seconds, MPI_COMM_WORLD);
  if (rank == 0) {
    const auto updates = static_cast<std::uint64_t>(runs) * static_cast<std::uint64_t>(sweeps);
    const auto per = [](const tessera::bench::Moved& m, std::uint64_t k) {
      return k == 0 ? tessera::bench::Moved{} : tessera::bench::Moved{m.bytes_sent / k, m.messages / k, m.bytes_local / k};
    };
    std::printf("%d ranks, grid %dx%d, n = %lld, %d sweeps, %d permutations, MPI Isend/Irecv: %.3f s (median of %d)\n",
                size, g.dims[0], g.dims[1], static_cast<long long>(n), sweeps, runs, t.median, repeat);
    tessera::bench::print_movement(true, "halo", per(halo, updates));
    tessera::bench::print_movement(true, "permute", per(permute, static_cast<std::uint64_t>(runs - 1)));
    if (!json.empty()) {
      const std::string name = "n" + std::to_string(n) + "-sweeps" + std::to_string(sweeps);
      std::vector<tessera::bench::Record> records{tessera::bench::Record::timing("zpl_homogeneity_mpi", name, size, t)};
      tessera::bench::add_movement_records(records, "zpl_homogeneity_mpi", name, size, "halo", per(halo, updates));
      tessera::bench::add_movement_records(records, "zpl_homogeneity_mpi", name, size, "permute",
                                           per(permute, static_cast<std::uint64_t>(runs - 1)));
      tessera::bench::write_json(json, records, "zpl_homogeneity_mpi");
    }
    std::printf("straight-MPI homogeneity test: results identical under %d grid permutations (and to the serial run)\n",
                runs);
  }
  MPI_Finalize();
  return 0;
}
