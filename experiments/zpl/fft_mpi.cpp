// ZPL's corner-turn FFT (examples/zpl_fft) written with MPI alone, as a careful MPI programmer
// would: rows in balanced blocks, 1-D FFTs along them (FFTW), the corner turn as one
// MPI_Alltoallw whose send types are strided vectors (each peer's columns of my rows, no packing
// by hand) landing contiguously in an n x (my columns) row-major block, then 1-D FFTs down the
// columns. Same input, same local transforms and the same check as the tessera example: rank 0
// gathers every run's result and compares it with a serial 2-D FFTW transform.
//
//   scripts/mpirun.sh 4 build/release/experiments/zpl_fft_mpi --n 512 --m 512 --repeat 5 --json fft.json
#include <fftw3.h>
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "straight_mpi.hpp"
#include "support/movement_count.hpp"
#include "zpl_fft/fft_kernels.hpp"

namespace {

using zpl_fft::Complex;
using zpl_mpi::index_t;
using zpl_mpi::part_lo;
using zpl_mpi::part_size;

struct Run {
  double seconds = 0, turn_seconds = 0;
  tessera::bench::Moved turn;   // this rank's part
  std::vector<Complex> result;  // on rank 0: the n x m result, row-major
};

/// The corner turn: my rows x every peer's columns to that peer, as one MPI_Alltoallw. The send
/// type to peer q is my rows of q's columns (a vector with stride m); what q sends me lands as its
/// rows of my columns, contiguous in my n x mc block.
std::vector<Complex> corner_turn(const std::vector<Complex>& rows, index_t n, index_t m, int size, int rank,
                                 tessera::bench::Moved& moved) {
  const index_t my_rows = part_size(n, size, rank), mc = part_size(m, size, rank);
  std::vector<Complex> cols(static_cast<std::size_t>(n * mc));
  std::vector<int> scount(static_cast<std::size_t>(size)), sdispl(scount.size()), rcount(scount.size()),
      rdispl(scount.size());
  std::vector<MPI_Datatype> stype(scount.size()), rtype(scount.size(), MPI_C_DOUBLE_COMPLEX);
  for (int q = 0; q < size; ++q) {
    const auto k = static_cast<std::size_t>(q);
    const index_t qc = part_size(m, size, q), qr = part_size(n, size, q);
    MPI_Type_vector(static_cast<int>(my_rows), static_cast<int>(qc), static_cast<int>(m), MPI_C_DOUBLE_COMPLEX, &stype[k]);
    MPI_Type_commit(&stype[k]);
    scount[k] = my_rows > 0 && qc > 0 ? 1 : 0;
    sdispl[k] = static_cast<int>(part_lo(m, size, q) * static_cast<index_t>(sizeof(Complex)));
    rcount[k] = static_cast<int>(qr * mc);
    rdispl[k] = static_cast<int>(part_lo(n, size, q) * mc * static_cast<index_t>(sizeof(Complex)));
    const auto bytes = static_cast<std::uint64_t>(my_rows * qc) * sizeof(Complex);
    if (q == rank) {
      moved.bytes_local += bytes;
    } else if (bytes > 0) {
      moved.bytes_sent += bytes;
      ++moved.messages;
    }
  }
  MPI_Alltoallw(rows.data(), scount.data(), sdispl.data(), stype.data(), cols.data(), rcount.data(), rdispl.data(),
                rtype.data(), MPI_COMM_WORLD);
  for (MPI_Datatype& t : stype) MPI_Type_free(&t);
  return cols;
}

Run transform(index_t n, index_t m, int size, int rank) {
  const index_t r0 = part_lo(n, size, rank), my_rows = part_size(n, size, rank), mc = part_size(m, size, rank);
  std::vector<Complex> rows(static_cast<std::size_t>(my_rows * m));
  for (index_t i = 0; i < my_rows; ++i)
    for (index_t j = 0; j < m; ++j) rows[static_cast<std::size_t>(i * m + j)] = zpl_fft::input_value(r0 + i, j);
  Run run;
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  zpl_fft::local_ffts(rows.data(), m, my_rows, 1, m);
  const double turn_start = MPI_Wtime();
  std::vector<Complex> cols = corner_turn(rows, n, m, size, rank, run.turn);
  run.turn_seconds = MPI_Wtime() - turn_start;
  zpl_fft::local_ffts(cols.data(), n, mc, mc, 1);
  run.seconds = MPI_Wtime() - start;

  // For the check: every rank's n x mc block to rank 0, which places it at its columns.
  std::vector<int> counts(static_cast<std::size_t>(size)), displs(counts.size());
  for (int q = 0; q < size; ++q) {
    counts[static_cast<std::size_t>(q)] = static_cast<int>(n * part_size(m, size, q));
    displs[static_cast<std::size_t>(q)] = static_cast<int>(n * part_lo(m, size, q));
  }
  std::vector<Complex> blocks(rank == 0 ? static_cast<std::size_t>(n * m) : 0);
  MPI_Gatherv(cols.data(), static_cast<int>(cols.size()), MPI_C_DOUBLE_COMPLEX, blocks.data(), counts.data(),
              displs.data(), MPI_C_DOUBLE_COMPLEX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    run.result.resize(blocks.size());
    for (int q = 0; q < size; ++q) {
      const index_t c0 = part_lo(m, size, q), qc = part_size(m, size, q);
      const Complex* block = blocks.data() + n * c0;
      for (index_t i = 0; i < n; ++i)
        for (index_t c = 0; c < qc; ++c) run.result[static_cast<std::size_t>(i * m + c0 + c)] = block[i * qc + c];
    }
  }
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CLI::App app{"ZPL's corner-turn FFT with MPI alone: row FFTs, MPI_Alltoallw corner turn, column FFTs"};
  index_t n = 37, m = 24;
  int repeat = 1;
  std::string json;
  app.add_option("--n", n, "rows")->check(CLI::Range(index_t{1}, index_t{1} << 14));
  app.add_option("--m", m, "columns")->check(CLI::Range(index_t{1}, index_t{1} << 14));
  app.add_option("--repeat", repeat, "transforms, each checked")->check(CLI::Range(1, 10000));
  app.add_option("--json", json, "rank 0 writes the timings and the corner turn's bytes here (bench records)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = rank == 0 ? app.exit(e) : (e.get_exit_code() != 0);
    MPI_Finalize();
    return code;
  }
  const std::vector<Complex> ref = rank == 0 ? zpl_fft::serial_fft(n, m) : std::vector<Complex>{};
  const double tolerance = 1e-12 * static_cast<double>(n * m);
  std::vector<double> seconds, turn_seconds;
  tessera::bench::Moved turn;
  double worst = 0.0;
  for (int r = 0; r < repeat; ++r) {
    const Run run = transform(n, m, size, rank);
    if (rank == 0) {
      worst = std::max(worst, zpl_fft::relative_error(run.result, ref));
      if (worst > tolerance)
        zpl_mpi::fail("zpl_fft_mpi", "MISMATCH: max |error| / max |X| = " + tessera::bench::number(worst) +
                                         " exceeds " + tessera::bench::number(tolerance));
    }
    seconds.push_back(run.seconds);
    turn_seconds.push_back(run.turn_seconds);
    turn = tessera::bench::sum_over_ranks(run.turn, MPI_COMM_WORLD);
  }
  const auto t = tessera::bench::slowest_rank_summary(seconds, MPI_COMM_WORLD);
  const auto turn_t = tessera::bench::slowest_rank_summary(turn_seconds, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("%d ranks, %lld x %lld complex FFT with MPI_Alltoallw corner turn: %.3f s (median of %d; corner turn "
                "%.3f s); max |error| / max |X| = %.3e (tolerance %.1e)\n",
                size, static_cast<long long>(n), static_cast<long long>(m), t.median, repeat, turn_t.median, worst,
                tolerance);
    tessera::bench::print_movement(true, "corner-turn", turn);
    if (!json.empty()) {
      const std::string name = "n" + std::to_string(n) + "-m" + std::to_string(m);
      std::vector<tessera::bench::Record> records{
          tessera::bench::Record::timing("zpl_fft_mpi", name, size, t),
          tessera::bench::timing_record("zpl_fft_mpi", name, size, "movement_s", turn_t)};
      tessera::bench::add_movement_records(records, "zpl_fft_mpi", name, size, "corner_turn", turn);
      tessera::bench::write_json(json, records, "zpl_fft_mpi");
    }
    std::printf("straight-MPI corner-turn FFT matches the serial 2-D FFT\n");
  }
  fftw_cleanup();
  MPI_Finalize();
  return 0;
}
