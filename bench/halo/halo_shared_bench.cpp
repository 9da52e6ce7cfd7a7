// The shared-memory single copy (MoveAlgorithm::shared_memory, docs/engine.md, "Single copy on the
// node") against the default point-to-point mover, on the same halo schedule in the same job:
// 2-D periodic arrays split across the ranks (P x 1 grid, as bench_halo), faces only (5-point) or
// with corners (9-point). The single copy runs on storage in a shared-memory window
// (`Storage<2>` made with a communicator), point-to-point on heap storage of the same layout.
// After one exchange each the two arrays must agree bit for bit (the job aborts otherwise).
//
// Per case: the median time of an exchange (max over ranks per repetition) in the cold mode
// (alternating) and the warm one (each repeated on its own array), their ratio (shared / point-to-
// point, lower is better) and the single copy's allocations per exchange after the first (0
// wanted). Then, for the breakdown, the handshake alone: a 16-byte header and a zero-byte answer
// between two ranks, what the single copy pays beside the copy itself.
//
//   scripts/mpirun.sh 2 build/release/bench/bench_halo_shared --sizes 1024,4096,8192
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "support/allocation_counter.hpp"  // the one TU of bench_halo_shared that includes it
#include "support/bench_records.hpp"
#include "support/bench_timing.hpp"
#include "tessera/array/storage.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/exchange/mover.hpp"
#include "tessera/plan/schedule_builders.hpp"

namespace {

using namespace tessera;

void fill(Storage<2>& s) {
  if (s.layout().size() == 0) return;
  auto* v = static_cast<double*>(s.data());
  const PatchLayout<2>& patch = s.layout().patches().at(0);
  const Box<2> owned = patch.owned_box();
  for_each_point(patch.storage_box(), [&](const Point<2>& p) {
    v[patch.element_offset(p)] = contains(owned, p) ? static_cast<double>(p[0] * 100003 + p[1]) : -1.0;
  });
}

// The handshake of one single-copy execution with one peer, alone: a 16-byte message each way
// round (header out, "done" back), as two ranks exchanging faces both send and answer.
double handshake_seconds(const Communicator& world, int reps) {
  if (world.size() < 2) return 0;
  const int peer = world.rank() ^ 1;
  if (peer >= world.size()) return 0;
  char out[16] = {}, in[16] = {};
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(world.raw());
    const double t0 = MPI_Wtime();
    MPI_Request q[4];
    MPI_Irecv(in, 16, MPI_BYTE, peer, 7, world.raw(), &q[0]);
    MPI_Isend(out, 16, MPI_BYTE, peer, 7, world.raw(), &q[1]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    MPI_Irecv(in, 0, MPI_BYTE, peer, 8, world.raw(), &q[2]);
    MPI_Isend(out, 0, MPI_BYTE, peer, 8, world.raw(), &q[3]);
    MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
    t.push_back(MPI_Wtime() - t0);
  }
  return bench::summarize(t).median;
}

}  // namespace

int main(int argc, char** argv) {
  Environment env(argc, argv);
  const Communicator& world = env.world();
  std::vector<index_t> sizes{1024, 4096, 8192};
  std::vector<index_t> widths{1, 2};
  int reps = 200, warmup = 20;
  std::string json;
  CLI::App app{"Halo exchange: shared-memory single copy against point-to-point, same schedule, same job"};
  app.add_option("--sizes", sizes, "points per dimension")->delimiter(',');
  app.add_option("--widths", widths, "ghost widths")->delimiter(',');
  app.add_option("--repetitions", reps, "timed exchanges per case");
  app.add_option("--warmup", warmup, "untimed exchanges first");
  app.add_option("--json", json, "rank 0 writes the records here");
  CLI11_PARSE(app, argc, argv);

  const bool root = world.rank() == 0;
  bench::Table table(root, "case", 28,
                     {{"face KiB", 9, 1}, {"p2p us", 9, 1}, {"shm us", 9, 1}, {"cold", 6, 2}, {"p2p warm", 9, 1},
                      {"shm warm", 9, 1}, {"warm", 6, 2}, {"alloc/run", 9, 1}});
  table.print_header();
  std::vector<bench::Record> records;
  for (const index_t n : sizes)
    for (const index_t w : widths)
      for (const bool corners : {false, true}) {
        const Box<2> box({0, 0}, {n, n});
        const Distribution<2> dist(box, ProcGrid<2>::with_shape(world.size(), {world.size(), 1}), {block(), block()});
        GhostSpec<2> g = ghosts<2>(w).periodic_along({true, true});
        if (!corners) g = g.faces_only();
        const std::string name = std::string("2d-") + (corners ? "9pt" : "5pt") + "-w" + std::to_string(w) +
                                 "-periodic-" + std::to_string(n);
        const auto schedule = halo_schedule(dist, g, world.rank());
        Storage<2> shared(dist, world.rank(), g, detail::ElementBytes::of<double>(), &world);
        Storage<2> heap(dist, world.rank(), g, detail::ElementBytes::of<double>());
        Mover shm(world, schedule, sizeof(double), nullptr, MoveAlgorithm::shared_memory);
        Mover p2p(world, schedule, sizeof(double), nullptr, MoveAlgorithm::point_to_point);
        fill(shared);
        fill(heap);
        shm.run(shared.buffer(), shared.buffer());
        p2p.run(heap.buffer(), heap.buffer());
        const auto bytes = static_cast<std::size_t>(shared.layout().size()) * sizeof(double);
        int same = bytes == 0 || std::memcmp(shared.data(), heap.data(), bytes) == 0 ? 1 : 0;
        MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_MIN, world.raw());
        if (!same) {
          if (root) std::fprintf(stderr, "%s: single copy and point-to-point differ\n", name.c_str());
          MPI_Abort(world.raw(), 1);
        }
        std::uint64_t allocations = 0, runs = 0;
        const auto run_shm = [&] {
          const auto before = bench::allocations();
          shm.run(shared.buffer(), shared.buffer());
          allocations += bench::allocations() - before;
          ++runs;
        };
        const auto run_p2p = [&] { p2p.run(heap.buffer(), heap.buffer()); };
        const auto cold = bench::time_alternating(world.raw(), {run_p2p, run_shm}, warmup, reps);
        const auto warm = bench::time_in_blocks(world.raw(), {run_p2p, run_shm}, warmup, reps);
        double per_run = runs ? static_cast<double>(allocations) / static_cast<double>(runs) : 0;
        MPI_Allreduce(MPI_IN_PLACE, &per_run, 1, MPI_DOUBLE, MPI_MAX, world.raw());
        const double face_kib = static_cast<double>(w * n) * sizeof(double) / 1024.0;
        table.print_row(name, {face_kib, 1e6 * cold[0].median, 1e6 * cold[1].median, cold[1].median / cold[0].median,
                               1e6 * warm[0].median, 1e6 * warm[1].median, warm[1].median / warm[0].median, per_run});
        records.push_back(bench::Record::timing("halo-shared", name, world.size(), cold[1], "point_to_point", cold[0]));
        records.push_back(
            bench::Record::timing("halo-shared-warm", name, world.size(), warm[1], "point_to_point", warm[0]));
        records.push_back(bench::Record::count("halo-shared", name, world.size(), "allocations_per_run", per_run));
      }
  const double handshake = handshake_seconds(world, reps);
  if (root) std::printf("handshake alone (16-byte header out, zero-byte answer back): %.2f us\n", 1e6 * handshake);
  if (root && !json.empty()) bench::write_json(json, records, "bench_halo_shared");
  return 0;
}
