// The soak test (issue 8): thousands of random operations on distributed arrays — redistributions
// (preserving, destructive, to new extents, between every distribution kind), incremental steps,
// balancer steps, rank withdrawals and re-adds, ghost updates, copy_section, copy and transpose,
// checkpoint and restart, gathers, scatters and reductions, ghost updates under boundary rules,
// scans, partial reductions, region statements with shifted reads, and box sets (issue 16: a box set
// tiling the domain is one more distribution every operation may meet; a round trip through one
// with holes drops what the holes held), user-defined local layouts (column-major, padded, tiled,
// Morton's curve: one more distribution kind, ghosts in slabs after the owned points), and copies between
// random disjoint processor groups — each followed by a check of every rank's part against a
// serial shadow copy kept on every rank.
//
//   scripts/mpirun.sh 4 build/release/tests/soak/tessera_soak --ops 5000 --seed 7
//
// Episodes of a few dozen operations each start from a fresh random 2-D or 3-D domain. Every rank
// draws the same random numbers from the seed, so every rank makes the same calls. The last line
// is `soak: N operations, M elements checked, K mismatches` (M and K summed over the ranks); the
// exit status is 1 if K > 0. An exception aborts the whole job (status 3) after printing where.
// --corrupt-after K spoils one element of u on every rank after operation K: the checker's own
// test, which must then report mismatches.
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <random>
#include <string>

#include "soak_episode.hpp"

namespace {

struct Options {
  long long operations = 200;
  unsigned long long seed = 1;
  std::string dir;  // where checkpoints go; a fresh temporary folder if empty
  long long corrupt_after = -1;  // the checker's self-test (see Episode::corrupt); off if < 0
};

[[noreturn]] void usage(int rank, const std::string& problem) {
  if (rank == 0)
    std::fprintf(stderr, "soak: %s\nusage: tessera_soak [--ops N] [--seed S] [--dir FOLDER] [--corrupt-after K]\n", problem.c_str());
  MPI_Finalize();
  std::exit(2);
}

Options parse(int argc, char** argv, int rank) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) usage(rank, "missing value after " + arg);
    const std::string value = argv[++i];
    try {
      if (arg == "--ops")
        o.operations = std::stoll(value);
      else if (arg == "--seed")
        o.seed = std::stoull(value);
      else if (arg == "--dir")
        o.dir = value;
      else if (arg == "--corrupt-after")
        o.corrupt_after = std::stoll(value);
      else
        usage(rank, "unknown option " + arg);
    } catch (const std::logic_error&) {
      usage(rank, "bad number for " + arg + ": " + value);
    }
  }
  if (o.operations < 0) usage(rank, "--ops must be >= 0");
  return o;
}

// Rank 0's folder for checkpoints, the same path on every rank (created by rank 0).
std::string checkpoint_folder(const Options& o, int rank, bool& created) {
  std::string dir = o.dir;
  created = dir.empty();
  if (created && rank == 0)
    dir = (std::filesystem::temp_directory_path() / ("tessera-soak-" + std::to_string(getpid()))).string();
  int length = static_cast<int>(dir.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
  dir.resize(static_cast<std::size_t>(length));
  MPI_Bcast(dir.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 0) std::filesystem::create_directories(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  return dir;
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  const int rank = world.rank();
  const Options options = parse(argc, argv, rank);
  bool created = false;
  const std::string dir = checkpoint_folder(options, rank, created);
  if (rank == 0)
    std::printf("soak: seed %llu, %lld operations on %d ranks, checked mode %s\n", options.seed, options.operations,
                world.size(), tessera::checked_mode() ? "on" : "off");

  std::mt19937_64 rng(options.seed);
  tessera::soak::Tally tally(rank);
  tessera::soak::Context context{world, rng, tally, dir + "/soak.h5", 0, {}};
  if (options.corrupt_after >= 0) context.corrupt_after = static_cast<std::uint64_t>(options.corrupt_after);
  try {
    while (context.operations < static_cast<std::uint64_t>(options.operations)) {
      const auto left = static_cast<std::uint64_t>(options.operations) - context.operations;
      const int length = static_cast<int>(std::min<std::uint64_t>(left, 25 + rng() % 50));
      if (rng() % 10 < 7)
        tessera::soak::Episode<2>(context, 40).run(length);
      else
        tessera::soak::Episode<3>(context, 12).run(length);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "soak: rank %d: operation %llu (%s) threw: %s\n", rank,
                 static_cast<unsigned long long>(context.operations), tally.operation_name().c_str(), e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }

  unsigned long long mine[2] = {tally.elements(), tally.mismatches()}, total[2] = {0, 0};
  MPI_Allreduce(mine, total, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (created && rank == 0) std::filesystem::remove_all(dir);
  if (rank == 0) {
    std::string kinds;
    for (const auto& [name, count] : context.by_kind) kinds += (kinds.empty() ? "" : ", ") + name + " " + std::to_string(count);
    std::printf("soak: operations by kind: %s; distributions drawn with a local layout %llu\n", kinds.c_str(),
                static_cast<unsigned long long>(context.local_layouts));
    std::printf("soak: %llu operations, %llu elements checked, %llu mismatches\n",
                static_cast<unsigned long long>(context.operations), total[0], total[1]);
    std::fflush(stdout);
  }
  return total[1] > 0 ? 1 : 0;
}
