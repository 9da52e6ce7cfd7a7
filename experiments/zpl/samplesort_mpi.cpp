// ZPL's sample sort (examples/zpl_samplesort) written with MPI alone, as a careful MPI programmer
// would: keys in balanced blocks, a local sort, samples by MPI_Allgather, splitters, the bucket
// runs exchanged by MPI_Alltoall (counts) and MPI_Alltoallv (keys), a local sort of each bucket,
// then the rebalance to balanced blocks by one more MPI_Alltoallv (offsets from an
// MPI_Allgather of the bucket sizes). Same keys, samples and splitters as the tessera example;
// rank 0 gathers every run's result and requires it to equal std::sort of the input.
//
//   scripts/mpirun.sh 4 build/release/experiments/zpl_samplesort_mpi --keys 1000000 --repeat 5 --json s.json
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "straight_mpi.hpp"
#include "support/movement_count.hpp"
#include "zpl_samplesort/keys.hpp"

namespace {

using zpl_mpi::index_t;
using zpl_mpi::part_hi;
using zpl_mpi::part_lo;
using zpl_samplesort::Key;

struct Run {
  double seconds = 0, scatter_seconds = 0;
  tessera::bench::Moved scatter, rebalance;  // this rank's part
  index_t largest = 0;
  std::vector<Key> sorted;  // on rank 0
};

/// Counts and displacements of one MPI_Alltoallv, and what it sends off this rank (`moved`).
struct Exchange {
  std::vector<int> scount, sdispl, rcount, rdispl;
  explicit Exchange(int size) : scount(static_cast<std::size_t>(size)), sdispl(scount), rcount(scount), rdispl(scount) {}
  void displacements() {
    for (std::size_t q = 1; q < scount.size(); ++q) {
      sdispl[q] = sdispl[q - 1] + scount[q - 1];
      rdispl[q] = rdispl[q - 1] + rcount[q - 1];
    }
  }
  [[nodiscard]] int received() const { return rdispl.back() + rcount.back(); }
  void count(int rank, tessera::bench::Moved& moved) const {
    for (std::size_t q = 0; q < scount.size(); ++q) {
      const auto bytes = static_cast<std::uint64_t>(scount[q]) * sizeof(Key);
      if (static_cast<int>(q) == rank) {
        moved.bytes_local += bytes;
      } else if (bytes > 0) {
        moved.bytes_sent += bytes;
        ++moved.messages;
      }
    }
  }
  std::vector<Key> run(const Key* send) const {
    std::vector<Key> out(static_cast<std::size_t>(received()));
    MPI_Alltoallv(send, scount.data(), sdispl.data(), MPI_INT64_T, out.data(), rcount.data(), rdispl.data(), MPI_INT64_T,
                  MPI_COMM_WORLD);
    return out;
  }
};

Run sort_once(index_t keys_total, int samples, Key range, std::uint64_t seed, int size, int rank) {
  const index_t lo = part_lo(keys_total, size, rank), count = part_hi(keys_total, size, rank) - lo;
  std::vector<Key> mine(static_cast<std::size_t>(count));
  for (index_t i = 0; i < count; ++i) mine[static_cast<std::size_t>(i)] = zpl_samplesort::input_key(seed, lo + i, range);
  Run run;
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  std::sort(mine.begin(), mine.end());
  // Samples and splitters as in the tessera example: bucket b holds keys in (splitter[b-1], splitter[b]].
  std::vector<Key> my_samples(static_cast<std::size_t>(samples)), all(static_cast<std::size_t>(samples) * size);
  for (int k = 0; k < samples; ++k)
    my_samples[static_cast<std::size_t>(k)] = count > 0 ? mine[static_cast<std::size_t>(
                                                              zpl_samplesort::sample_position(k, count, samples))]
                                                        : std::numeric_limits<Key>::max();
  MPI_Allgather(my_samples.data(), samples, MPI_INT64_T, all.data(), samples, MPI_INT64_T, MPI_COMM_WORLD);
  std::sort(all.begin(), all.end());
  Exchange buckets(size);
  index_t run_lo = 0;
  for (int b = 0; b < size; ++b) {
    const index_t run_hi =
        b + 1 < size ? std::upper_bound(mine.begin(), mine.end(), all[static_cast<std::size_t>(b + 1) * samples - 1]) -
                           mine.begin()
                     : count;
    buckets.scount[static_cast<std::size_t>(b)] = static_cast<int>(run_hi - run_lo);
    run_lo = run_hi;
  }
  const double scatter_start = MPI_Wtime();
  MPI_Alltoall(buckets.scount.data(), 1, MPI_INT, buckets.rcount.data(), 1, MPI_INT, MPI_COMM_WORLD);
  buckets.displacements();
  std::vector<Key> bucket = buckets.run(mine.data());
  run.scatter_seconds = MPI_Wtime() - scatter_start;
  buckets.count(rank, run.scatter);
  std::sort(bucket.begin(), bucket.end());
  run.largest = static_cast<index_t>(bucket.size());
  MPI_Allreduce(MPI_IN_PLACE, &run.largest, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);

  // The rebalance: every bucket's place in the sorted order, then each rank's overlap with each block.
  std::vector<index_t> sizes(static_cast<std::size_t>(size)), offset(sizes.size() + 1, 0);
  const index_t my_size = static_cast<index_t>(bucket.size());
  MPI_Allgather(&my_size, 1, MPI_INT64_T, sizes.data(), 1, MPI_INT64_T, MPI_COMM_WORLD);
  for (std::size_t q = 0; q < sizes.size(); ++q) offset[q + 1] = offset[q] + sizes[q];
  auto overlap = [](index_t a0, index_t a1, index_t b0, index_t b1) {
    return static_cast<int>(std::max<index_t>(0, std::min(a1, b1) - std::max(a0, b0)));
  };
  Exchange blocks(size);
  const auto me = static_cast<std::size_t>(rank);
  for (int q = 0; q < size; ++q) {
    const auto k = static_cast<std::size_t>(q);
    blocks.scount[k] = overlap(offset[me], offset[me + 1], part_lo(keys_total, size, q), part_hi(keys_total, size, q));
    blocks.rcount[k] = overlap(offset[k], offset[k + 1], part_lo(keys_total, size, rank), part_hi(keys_total, size, rank));
  }
  blocks.displacements();
  const std::vector<Key> balanced = blocks.run(bucket.data());
  blocks.count(rank, run.rebalance);
  run.seconds = MPI_Wtime() - start;

  std::vector<int> counts(static_cast<std::size_t>(size)), displs(counts.size());
  for (int q = 0; q < size; ++q) {
    counts[static_cast<std::size_t>(q)] = static_cast<int>(part_hi(keys_total, size, q) - part_lo(keys_total, size, q));
    displs[static_cast<std::size_t>(q)] = static_cast<int>(part_lo(keys_total, size, q));
  }
  run.sorted.resize(rank == 0 ? static_cast<std::size_t>(keys_total) : 0);
  MPI_Gatherv(balanced.data(), static_cast<int>(balanced.size()), MPI_INT64_T, run.sorted.data(), counts.data(),
              displs.data(), MPI_INT64_T, 0, MPI_COMM_WORLD);
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CLI::App app{"ZPL's sample sort with MPI alone: Allgather samples, Alltoallv buckets, Alltoallv rebalance"};
  index_t keys_total = 10007;
  int samples = 16, repeat = 1;
  Key range = 1000000;
  std::uint64_t seed = 42;
  std::string json;
  app.add_option("--keys", keys_total, "number of keys")->check(CLI::Range(index_t{1}, index_t{1} << 30));
  app.add_option("--samples", samples, "samples per rank")->check(CLI::Range(1, 1 << 20));
  app.add_option("--range", range, "keys are drawn from [0, range)")->check(CLI::Range(Key{1}, std::numeric_limits<Key>::max()));
  app.add_option("--seed", seed, "seed of the keys");
  app.add_option("--repeat", repeat, "sorts, each checked")->check(CLI::Range(1, 10000));
  app.add_option("--json", json, "rank 0 writes the timings and the movements' bytes here (bench records)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = rank == 0 ? app.exit(e) : (e.get_exit_code() != 0);
    MPI_Finalize();
    return code;
  }
  std::vector<Key> ref;
  if (rank == 0) {
    ref.resize(static_cast<std::size_t>(keys_total));
    for (index_t i = 0; i < keys_total; ++i) ref[static_cast<std::size_t>(i)] = zpl_samplesort::input_key(seed, i, range);
    std::sort(ref.begin(), ref.end());
  }
  std::vector<double> seconds, scatter_seconds;
  tessera::bench::Moved scatter, rebalance;
  index_t largest = 0;
  for (int r = 0; r < repeat; ++r) {
    const Run run = sort_once(keys_total, samples, range, seed, size, rank);
    if (rank == 0 && run.sorted != ref) zpl_mpi::fail("zpl_samplesort_mpi", "MISMATCH: differs from std::sort of the input");
    seconds.push_back(run.seconds);
    scatter_seconds.push_back(run.scatter_seconds);
    scatter = tessera::bench::sum_over_ranks(run.scatter, MPI_COMM_WORLD);
    rebalance = tessera::bench::sum_over_ranks(run.rebalance, MPI_COMM_WORLD);
    largest = run.largest;
  }
  const auto t = tessera::bench::slowest_rank_summary(seconds, MPI_COMM_WORLD);
  const auto scatter_t = tessera::bench::slowest_rank_summary(scatter_seconds, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("%d ranks, %lld keys in [0, %lld), %d samples per rank, MPI_Alltoallv: largest bucket %lld keys, "
                "%.3f s (median of %d; bucket exchange %.3f s)\n",
                size, static_cast<long long>(keys_total), static_cast<long long>(range), samples,
                static_cast<long long>(largest), t.median, repeat, scatter_t.median);
    tessera::bench::print_movement(true, "scatter", scatter);
    tessera::bench::print_movement(true, "rebalance", rebalance);
    if (!json.empty()) {
      const std::string name = "keys" + std::to_string(keys_total) + "-range" + std::to_string(range);
      std::vector<tessera::bench::Record> records{
          tessera::bench::Record::timing("zpl_samplesort_mpi", name, size, t),
          tessera::bench::timing_record("zpl_samplesort_mpi", name, size, "movement_s", scatter_t)};
      tessera::bench::add_movement_records(records, "zpl_samplesort_mpi", name, size, "scatter", scatter);
      tessera::bench::add_movement_records(records, "zpl_samplesort_mpi", name, size, "rebalance", rebalance);
      tessera::bench::write_json(json, records, "zpl_samplesort_mpi");
    }
    std::printf("straight-MPI sample sort matches std::sort of the input\n");
  }
  MPI_Finalize();
  return 0;
}
