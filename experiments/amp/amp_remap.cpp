// AMP (Edjlali et al.) Tables 1-4 and skeleton processes on tessera: what it costs to remap an n x n
// array of doubles from P to Q active processes (block rows; the processes outside a set are
// skeletons that own nothing), against a remap written by hand with MPI_Alltoallv; the time of one
// iteration of a red-black SOR sweep on p active processes; and, for chosen pairs, the program run
// both ways (stay on P, or remap to Q and go on there) for fewer and for more iterations than the
// measured costs say a remap needs to pay back (Table 4).
//
// Verification first: every tessera remap is compared bit for bit with the hand-written one and with
// the values the array must hold; every SOR run is compared with a serial run on rank 0. A mismatch
// ends the job (bench::abort_job) before any time is written.
//
//   scripts/mpirun.sh 4 build/release/experiments/amp_remap --sizes 768,1536 --json amp.json
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "adaptive_sor/solver.hpp"  // half_sweep, scaled_source: the D3-ARC solver's kernel
#include "support/bench_records.hpp"
#include "support/bench_timing.hpp"
#include "tessera/tessera.hpp"

namespace {

using tessera::index_t;
using tessera::bench::Record;
using tessera::bench::Summary;

[[noreturn]] void fail(const std::string& message) { tessera::bench::abort_job("amp_remap", message); }

double value_of(index_t i, index_t j, index_t n) { return static_cast<double>(i * n + j + 1); }

/// Rows [lo(r), hi(r)) of process r among the first p: balanced blocks, the first n mod p one row
/// larger (checked against tessera's block() for every remap, so both codes move the same rows).
index_t row_lo(index_t n, int p, int r) {
  if (r >= p) return n;
  const index_t q = n / p, rem = n % p;
  return r * q + std::min<index_t>(r, rem);
}
index_t row_hi(index_t n, int p, int r) { return r >= p ? n : row_lo(n, p, r + 1); }

/// Block rows over the first p ranks of the world; the others are skeletons.
tessera::Distribution<2> rows_on(int world, int p, index_t n) {
  std::vector<int> ranks(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) ranks[static_cast<std::size_t>(r)] = r;
  return tessera::Distribution<2>(tessera::Box<2>({0, 0}, {n, n}),
                                  tessera::ProcGrid<2>::from_ranks(world, {p, 1}, ranks),
                                  {tessera::block(), tessera::collapsed()});
}

/// The remap as written by hand: rows are contiguous on both sides, so each message is one slice of
/// the source buffer landing in one slice of the destination (MPI_Alltoallv, no packing).
class HandRemap {
 public:
  HandRemap(MPI_Comm comm, index_t n, int p, int q) : comm_(comm) {
    int rank = 0, size = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const auto s = static_cast<std::size_t>(size);
    sc_.assign(s, 0), sd_.assign(s, 0), rc_.assign(s, 0), rd_.assign(s, 0);
    for (int other = 0; other < size; ++other) {
      const auto o = static_cast<std::size_t>(other);
      // What I send to `other`: my P rows within its Q rows; what I receive: its P rows within my Q rows.
      const index_t slo = std::max(row_lo(n, p, rank), row_lo(n, q, other));
      const index_t shi = std::min(row_hi(n, p, rank), row_hi(n, q, other));
      if (shi > slo) sc_[o] = static_cast<int>((shi - slo) * n), sd_[o] = static_cast<int>((slo - row_lo(n, p, rank)) * n);
      const index_t rlo = std::max(row_lo(n, p, other), row_lo(n, q, rank));
      const index_t rhi = std::min(row_hi(n, p, other), row_hi(n, q, rank));
      if (rhi > rlo) rc_[o] = static_cast<int>((rhi - rlo) * n), rd_[o] = static_cast<int>((rlo - row_lo(n, q, rank)) * n);
    }
    src_.resize(static_cast<std::size_t>((row_hi(n, p, rank) - row_lo(n, p, rank)) * n));
    dst_.resize(static_cast<std::size_t>((row_hi(n, q, rank) - row_lo(n, q, rank)) * n));
    for (index_t i = row_lo(n, p, rank); i < row_hi(n, p, rank); ++i)
      for (index_t j = 0; j < n; ++j) src_[static_cast<std::size_t>((i - row_lo(n, p, rank)) * n + j)] = value_of(i, j, n);
  }
  void run() {
    tessera::check_mpi(MPI_Alltoallv(src_.data(), sc_.data(), sd_.data(), MPI_DOUBLE, dst_.data(), rc_.data(),
                                     rd_.data(), MPI_DOUBLE, comm_),
                       "MPI_Alltoallv");
  }
  [[nodiscard]] const std::vector<double>& result() const noexcept { return dst_; }

 private:
  MPI_Comm comm_;
  std::vector<int> sc_, sd_, rc_, rd_;
  std::vector<double> src_, dst_;
};

/// Checks that `a` holds rows [lo, hi) of value_of, bit for bit the hand-written result.
void check_remap(const tessera::DistArray<double, 2>& a, const HandRemap& hand, index_t n, int q, int rank,
                 const std::string& what) {
  const index_t lo = row_lo(n, q, rank), hi = row_hi(n, q, rank);
  const index_t rows = a.patch_count() == 0 ? 0 : a.owned_box().hi[0] - a.owned_box().lo[0];
  if (rows != hi - lo || (rows > 0 && a.owned_box().lo[0] != lo))
    fail(what + ": tessera's block rows differ from the hand-written split on rank " + std::to_string(rank));
  if (rows == 0) return;
  const auto v = a.local();
  for (index_t i = 0; i < rows; ++i) {
    const double* row = v.data + (i + v.ghost_lo[0]) * v.strides[0] + v.ghost_lo[1];
    const double* theirs = hand.result().data() + i * n;
    if (std::memcmp(row, theirs, static_cast<std::size_t>(n) * sizeof(double)) != 0)
      fail(what + ": tessera and the hand-written remap differ on rank " + std::to_string(rank));
    for (index_t j = 0; j < n; ++j)
      if (row[j] != value_of(lo + i, j, n)) fail(what + ": wrong value after the remap on rank " + std::to_string(rank));
  }
}

struct RemapTiming {
  Summary tessera, hand;
  double cold = 0;  // tessera's first remap of the pair: schedule built, buffers allocated (AMP's remap cost includes both)
};

/// P -> Q, `reps` times each code (order alternating), after one untimed warm-up of each.
RemapTiming time_remap(const tessera::Communicator& world, index_t n, int p, int q, int reps) {
  const int size = world.size(), rank = world.rank();
  const std::string what = "n=" + std::to_string(n) + " " + std::to_string(p) + "->" + std::to_string(q);
  tessera::Domain<2> dom(world, rows_on(size, p, n));
  tessera::DistArray<double, 2> a(dom);
  a.for_each_owned([&](const tessera::Point<2>& x, double& v) { v = value_of(x[0], x[1], n); });
  HandRemap hand(world.raw(), n, p, q);
  const auto from = rows_on(size, p, n), to = rows_on(size, q, n);
  auto tessera_once = [&] {  // times the remap there; the way back is not timed
    world.barrier();
    const double t0 = MPI_Wtime();
    dom.redistribute(to);
    const double t = MPI_Wtime() - t0;
    check_remap(a, hand, n, q, rank, what);
    dom.redistribute(from);
    return t;
  };
  auto hand_once = [&] {
    world.barrier();
    const double t0 = MPI_Wtime();
    hand.run();
    return MPI_Wtime() - t0;
  };
  hand_once();
  const double cold = world.max(tessera_once());
  std::vector<double> mine, theirs;
  for (int r = 0; r < reps; ++r) {
    if (r % 2 == 0) {
      mine.push_back(tessera_once());
      theirs.push_back(hand_once());
    } else {
      theirs.push_back(hand_once());
      mine.push_back(tessera_once());
    }
  }
  tessera::bench::max_over_ranks(mine, world.raw());
  tessera::bench::max_over_ranks(theirs, world.raw());
  return {tessera::bench::summarize(mine), tessera::bench::summarize(theirs), cold};
}

/// The SOR program of the iteration timings: u and f over one domain, a ghost update before each
/// half-sweep, emulated work per owned row slept (as in examples/adaptive_sor: ranks on shared cores
/// behave as if each had its own).
struct SorProgram {
  index_t n;
  double work_per_row;
  tessera::Domain<2> dom;
  tessera::DistArray<double, 2> u, f;
  SorProgram(const tessera::Communicator& world, index_t n_, int p, double work)
      : n(n_), work_per_row(work), dom(world, rows_on(world.size(), p, n_)), u(dom, tessera::ghosts<2>(1)), f(dom) {
    f.for_each_owned([&](const tessera::Point<2>& x, double& v) { v = adaptive_sor::scaled_source(x[0], x[1], n); });
  }
  void iterate(int iterations) {
    for (int it = 0; it < iterations; ++it) {
      for (int color = 0; color < 2; ++color) {
        u.update_ghosts();
        adaptive_sor::half_sweep(u, f, color, 1.9);
      }
      if (work_per_row > 0 && u.patch_count() > 0)
        std::this_thread::sleep_for(std::chrono::duration<double>(work_per_row * static_cast<double>(u.local().count[0])));
    }
  }
};

/// The same SOR serially: the reference every distributed run must match bit for bit.
std::vector<double> serial_sor(index_t n, int iterations) {
  const index_t w = n + 2;
  std::vector<double> u(static_cast<std::size_t>(w * w), 0.0), f(static_cast<std::size_t>(n * n));
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) f[static_cast<std::size_t>(i * n + j)] = adaptive_sor::scaled_source(i, j, n);
  auto at = [&](index_t i, index_t j) -> double& { return u[static_cast<std::size_t>((i + 1) * w + j + 1)]; };
  for (int it = 0; it < iterations; ++it)
    for (int color = 0; color < 2; ++color)
      for (index_t i = 0; i < n; ++i)
        for (index_t j = ((color - i) % 2 + 2) % 2; j < n; j += 2) {
          const double gs = 0.25 * (at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1) +
                                    f[static_cast<std::size_t>(i * n + j)]);
          at(i, j) += 1.9 * (gs - at(i, j));
        }
  std::vector<double> out(static_cast<std::size_t>(n * n));
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) out[static_cast<std::size_t>(i * n + j)] = at(i, j);
  return out;
}

void check_solution(const tessera::Communicator& world, const tessera::DistArray<double, 2>& u,
                    const std::vector<double>& reference, const std::string& what) {
  const std::vector<double> all = u.gather_to(0);
  int ok = 1;
  if (world.rank() == 0)
    ok = all.size() == reference.size() && std::memcmp(all.data(), reference.data(), all.size() * sizeof(double)) == 0;
  MPI_Bcast(&ok, 1, MPI_INT, 0, world.raw());
  if (!ok) fail(what + ": the solution differs from the serial run's");
}

/// Seconds per iteration on p active ranks: `reps` runs of `iterations` iterations, each from a
/// fresh start and checked against the serial reference.
Summary time_iteration(const tessera::Communicator& world, index_t n, int p, double work, int iterations, int reps,
                       const std::vector<double>& reference) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    SorProgram prog(world, n, p, work);
    world.barrier();
    const double t0 = MPI_Wtime();
    prog.iterate(iterations);
    t.push_back((MPI_Wtime() - t0) / iterations);
    check_solution(world, prog.u, reference, "SOR on " + std::to_string(p) + " of " + std::to_string(world.size()));
  }
  tessera::bench::max_over_ranks(t, world.raw());
  return tessera::bench::summarize(t);
}

/// Table 4 checked by running: `iterations` on P, or a remap to Q after the first then the rest on
/// Q; the seconds of each way (max over ranks), both checked against the serial reference.
std::pair<double, double> both_ways(const tessera::Communicator& world, index_t n, int p, int q, double work,
                                    int iterations, const std::vector<double>& reference) {
  auto run = [&](bool remap) {
    SorProgram prog(world, n, p, work);
    world.barrier();
    const double t0 = MPI_Wtime();
    prog.iterate(1);
    if (remap) prog.dom.redistribute(rows_on(world.size(), q, n));
    prog.iterate(iterations - 1);
    const double t = world.max(MPI_Wtime() - t0);
    check_solution(world, prog.u, reference, std::string(remap ? "remapped" : "stayed") + " run");
    return t;
  };
  const double stay = run(false), move = run(true);
  return {stay, move};
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"AMP Tables 1-4 and skeleton processes: remap cost P -> Q against hand-written MPI, SOR iterations"};
  std::vector<index_t> sizes{768, 1536};
  int reps = 5, iterations = 20, remap_reps = 7;
  double work_us = 40;
  std::vector<std::string> checks;
  std::string json;
  std::vector<std::string> parts{"iterations", "remaps"};
  std::vector<int> active;
  app.add_option("--sizes", sizes, "points per dimension")->delimiter(',')->check(CLI::Range(index_t{4}, index_t{16384}));
  app.add_option("--remap-repetitions", remap_reps, "timed remaps per pair and code")->check(CLI::Range(1, 1000));
  app.add_option("--repetitions", reps, "timed SOR runs per processor count")->check(CLI::Range(1, 1000));
  app.add_option("--iterations", iterations, "SOR iterations per timed run")->check(CLI::Range(2, 100000));
  app.add_option("--work-per-row-us", work_us, "emulated work per owned row and iteration, slept")->check(CLI::Range(0.0, 1e6));
  app.add_option("--check", checks, "P:Q:N: run N iterations on P, and remap to Q after the first (Table 4 by running)");
  app.add_option("--parts", parts, "what to measure: iterations (SOR on p active), remaps (every P -> Q)");
  app.add_option("--active", active, "the active-process counts p of the iteration timings (default: 1 ... ranks)");
  app.add_option("--json", json, "rank 0 writes the records here");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }
  const int size = world.size();
  const bool root = world.rank() == 0;
  auto wanted = [&](const char* part) { return std::find(parts.begin(), parts.end(), part) != parts.end(); };
  if (active.empty())
    for (int p = 1; p <= size; ++p) active.push_back(p);
  for (const int p : active)
    if (p < 1 || p > size) fail("--active " + std::to_string(p) + ": not in 1 ... " + std::to_string(size));
  std::vector<Record> records;
  for (const index_t n : sizes) {
    const std::string sz = "n" + std::to_string(n);
    const std::vector<double> reference = root ? serial_sor(n, iterations) : std::vector<double>{};
    for (const int p : active) {
      if (!wanted("iterations")) break;
      const Summary t = time_iteration(world, n, p, work_us * 1e-6, iterations, reps, reference);
      records.push_back(Record::timing("amp_iteration", sz + "-p" + std::to_string(p), size, t));
      if (root) std::printf("%s: one iteration on %d of %d: %.3f ms\n", sz.c_str(), p, size, t.median * 1e3);
    }
    for (int p = 1; p <= size; ++p)
      for (int q = 1; q <= size; ++q) {
        if (p == q || !wanted("remaps")) continue;
        const RemapTiming t = time_remap(world, n, p, q, remap_reps);
        const std::string pair = sz + "-P" + std::to_string(p) + "-to-Q" + std::to_string(q);
        records.push_back(Record::timing("amp_remap", pair, size, t.tessera, "mpi-alltoallv", t.hand));
        records.push_back(Record::count("amp_remap_cold", pair, size, "first_s", t.cold));
        if (root)
          std::printf("%s: remap %d -> %d: tessera %.3f ms, hand-written %.3f ms\n", sz.c_str(), p, q,
                      t.tessera.median * 1e3, t.hand.median * 1e3);
      }
    if (!checks.empty()) {  // one untimed run both ways first: MPI's connections and first-touch costs out of the checks
      const std::vector<double> ref_2 = root ? serial_sor(n, 2) : std::vector<double>{};
      (void)both_ways(world, n, 1, size, work_us * 1e-6, 2, ref_2);
    }
    for (const auto& c : checks) {
      int p = 0, q = 0, k = 0;
      if (std::sscanf(c.c_str(), "%d:%d:%d", &p, &q, &k) != 3 || p < 1 || q < 1 || p > size || q > size || k < 2)
        fail("--check " + c + ": expected P:Q:N with 1 <= P, Q <= " + std::to_string(size) + " and N >= 2");
      const std::vector<double> ref_k = root ? serial_sor(n, k) : std::vector<double>{};
      const auto [stay, move] = both_ways(world, n, p, q, work_us * 1e-6, k, ref_k);
      const std::string name = sz + "-P" + std::to_string(p) + "-to-Q" + std::to_string(q) + "-N" + std::to_string(k);
      records.push_back(Record::count("amp_both_ways", name, size, "stay_s", stay));
      records.push_back(Record::count("amp_both_ways", name, size, "remap_s", move));
      if (root) std::printf("%s: %d iterations: stay on %d %.3f s, remap to %d %.3f s\n", sz.c_str(), k, p, stay, q, move);
    }
  }
  if (root && !json.empty()) tessera::bench::write_json(json, records, "amp_remap");
  if (root) std::printf("every remap matched the hand-written one and every SOR run the serial run\n");
  return 0;
}
