// ZPL's sample sort (Deitz, Chamberlain, Snyder, "Abstractions for dynamic data distribution",
// section 4.3): keys in a block-distributed 1-D array are sorted locally, sampled, split into one
// bucket per rank by splitters chosen from the samples, moved by an index-array scatter into an
// array over a `cut` distribution whose boundaries are the bucket boundaries, sorted locally, and
// finally rebalanced back to `block` by redistributing the domain. Checked against std::sort on
// rank 0. See README.md here.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "support/movement_count.hpp"
#include "tessera/tessera.hpp"
#include "zpl_samplesort/keys.hpp"

namespace {

using tessera::Box;
using tessera::index_t;
using tessera::Point;
using zpl_samplesort::input_key;
using zpl_samplesort::Key;

/// A 1-D block distribution of `count` indices over every rank.
tessera::Distribution<1> block_1d(index_t count, int size) {
  return {Box<1>({0}, {count}), tessera::ProcGrid<1>::with_shape(size, {size}), {tessera::block()}};
}

/// One sort of the input from a fresh domain: its seconds (local sort to rebalance), the
/// scatter's alone, what the scatter and the rebalance moved (this rank's part), the bucket
/// boundaries (the cut distribution), the largest bucket and the gathered result.
struct Run {
  double seconds = 0, scatter_seconds = 0;
  tessera::bench::Moved scatter, rebalance;
  std::vector<index_t> cuts;
  index_t largest = 0;
  std::vector<Key> sorted;
};

Run sort_once(const tessera::Communicator& world, index_t keys_total, int samples, Key range, std::uint64_t seed) {
  const int rank = world.rank(), size = world.size();
  const MPI_Comm comm = world.raw();
  Run run;
  // ZPL's R = [1..n] over D = [blk]: the input keys, balanced.
  tessera::Domain<1> dom(world, block_1d(keys_total, size));
  tessera::DistArray<Key, 1> keys(dom);
  keys.for_each_owned([&](const Point<1>& p, Key& k) { k = input_key(seed, p[0], range); });

  world.barrier();
  const double start = MPI_Wtime();
  // 1. Local sort: the buckets of this rank's keys become contiguous runs, found by binary search.
  Key* mine = nullptr;
  index_t count = 0;
  if (keys.patch_count() > 0) {
    const auto v = keys.local();
    mine = v.data + v.ghost_lo[0];
    count = v.count[0];
  }
  std::sort(mine, mine + count);

  // 2. Samples: `samples` evenly spaced local keys per rank, in an array of samples * size
  // elements whose block distribution gives each rank exactly its own `samples` slots. A rank
  // without keys offers the largest key, which only pushes splitters up (never breaks them).
  tessera::Domain<1> sample_dom(world, block_1d(index_t{samples} * size, size));
  tessera::DistArray<Key, 1> sample(sample_dom);
  const index_t sample_lo = sample.patch_count() > 0 ? sample.owned_box().lo[0] : 0;
  sample.for_each_owned([&](const Point<1>& p, Key& s) {
    const index_t k = p[0] - sample_lo;
    s = count > 0 ? mine[zpl_samplesort::sample_position(k, count, samples)] : std::numeric_limits<Key>::max();
  });
  std::vector<Key> all_samples = sample.gather_to_all();
  std::sort(all_samples.begin(), all_samples.end());
  // size - 1 splitters, evenly spaced in the sorted samples; bucket b holds keys in
  // (splitter[b-1], splitter[b]] so equal keys never straddle two buckets.
  std::vector<Key> splitters;
  for (int b = 1; b < size; ++b) splitters.push_back(all_samples[static_cast<std::size_t>(b) * samples - 1]);

  // 3. Bucket offsets, ZPL's +|| and +<<: the run sizes in a bucket x rank array whose column r is
  // rank r's. Its exclusive scan in row-major order (bucket-major) is, at [b][r], the keys of every
  // earlier bucket plus those of bucket b on lower ranks: where rank r's run of bucket b goes. Its
  // partial sums along the ranks are the bucket sizes, whose prefix sums cut the sorted array.
  std::vector<index_t> run_start(static_cast<std::size_t>(size) + 1, count);
  run_start[0] = 0;
  for (int b = 1; b < size; ++b)
    run_start[static_cast<std::size_t>(b)] =
        std::upper_bound(mine, mine + count, splitters[static_cast<std::size_t>(b) - 1]) - mine;
  tessera::Domain<2> runs_dom(world, tessera::Distribution<2>(Box<2>({0, 0}, {size, size}),
                                                              tessera::ProcGrid<2>::with_shape(size, {1, size}),
                                                              {tessera::collapsed(), tessera::block()}));
  tessera::DistArray<std::int64_t, 2> run_size(runs_dom), run_offset(runs_dom);
  run_size.for_each_owned([&](const Point<2>& p, std::int64_t& n) {
    const auto b = static_cast<std::size_t>(p[0]);
    n = run_start[b + 1] - run_start[b];
  });
  tessera::scan(run_size, run_offset, tessera::ScanKind::exclusive, std::int64_t{0}, tessera::WrappingPlus{});
  const std::vector<std::int64_t> bucket_size = run_size.reduce_along(1, std::int64_t{0}, tessera::WrappingPlus{});
  // The cut boundaries are the global ranks of the splitters: bucket b is [cuts[b], cuts[b+1]).
  std::vector<index_t> cuts(static_cast<std::size_t>(size) + 1, 0);
  for (std::size_t b = 0; b < bucket_size.size(); ++b) cuts[b + 1] = cuts[b] + bucket_size[b];

  // 4. The index array of ZPL's globalSort: key at local position t of run b goes to
  // run_offset[b][rank] + (t - run start), a permutation of [0, n).
  tessera::DistArray<Point<1>, 1> target(dom);
  if (count > 0) {
    const index_t lo = keys.owned_box().lo[0];
    std::size_t b = 0;
    target.for_each_owned([&](const Point<1>& p, Point<1>& to) {
      const index_t t = p[0] - lo;
      while (t >= run_start[b + 1]) ++b;  // runs are in order: walk them alongside
      to = Point<1>{run_offset.at({static_cast<index_t>(b), rank}) + (t - run_start[b])};
    });
  }
  // ZPL's DA <== [cut(cuts)]: a domain over the same indices, each rank owning its bucket.
  tessera::Domain<1> cut_dom(
      world, tessera::Distribution<1>(Box<1>({0}, {keys_total}), tessera::ProcGrid<1>::with_shape(size, {size}),
                                      {tessera::cut(cuts)}));
  tessera::DistArray<Key, 1> sorted(cut_dom);
  const tessera::bench::MovementCount scatter_count;
  const double scatter_start = MPI_Wtime();
  tessera::scatter(keys, target, sorted);  // sorted(target(i)) = keys(i)
  run.scatter_seconds = MPI_Wtime() - scatter_start;
  run.scatter = scatter_count.mine();

  // 5. Local sort of the bucket (it arrived as `size` sorted runs, one per source rank).
  index_t my_bucket = 0;
  if (sorted.patch_count() > 0) {
    const auto v = sorted.local();
    std::sort(v.data + v.ghost_lo[0], v.data + v.ghost_lo[0] + v.count[0]);
    my_bucket = v.count[0];
  }
  run.largest = my_bucket;
  tessera::check_mpi(MPI_Allreduce(MPI_IN_PLACE, &run.largest, 1, MPI_INT64_T, MPI_MAX, comm), "MPI_Allreduce");

  // 6. ZPL's DA <== D: rebalance back to block; the order is global, so moving indices keeps it.
  const tessera::bench::MovementCount rebalance_count;
  cut_dom.redistribute(block_1d(keys_total, size), tessera::Redistribution::preserve);
  run.rebalance = rebalance_count.mine();
  run.seconds = MPI_Wtime() - start;
  run.cuts = cuts;
  run.sorted = sorted.gather_to(0);
  return run;

}

/// `tessera plan`'s arguments for the rebalance: the cut distribution of the buckets to blocks.
std::string rebalance_plan_args(const std::vector<index_t>& cuts, index_t keys_total, int size) {
  std::string cut_list;
  for (const index_t c : cuts) cut_list += (cut_list.empty() ? "" : ",") + std::to_string(c);
  const std::string domain = "domain=" + std::to_string(keys_total) + " grid=" + std::to_string(size);
  return "'" + domain + " dist=cut(" + cut_list + ")' '" + domain + " dist=block' --ranks " + std::to_string(size) +
         " --element-size " + std::to_string(sizeof(Key));
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"Sample sort as in ZPL: splitters from samples, index-array scatter into a cut distribution"};
  index_t keys_total = 10007;
  int samples = 16, repeat = 1;
  Key range = 1000000;
  std::uint64_t seed = 42;
  std::string json;
  app.add_option("--keys", keys_total, "number of keys")->check(CLI::Range(index_t{1}, index_t{1} << 34));
  app.add_option("--samples", samples, "samples per rank")->check(CLI::Range(1, 1 << 20));
  app.add_option("--range", range, "keys are drawn from [0, range); small ranges give many ties")
      ->check(CLI::Range(Key{1}, std::numeric_limits<Key>::max()));
  app.add_option("--seed", seed, "seed of the keys");
  app.add_option("--repeat", repeat, "sorts, each from a fresh domain and each checked")->check(CLI::Range(1, 10000));
  app.add_option("--json", json, "rank 0 writes the timings and the movements' bytes here (bench records)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }
  const int rank = world.rank(), size = world.size();
  std::vector<Key> ref;
  if (rank == 0) {
    ref.resize(static_cast<std::size_t>(keys_total));
    for (index_t i = 0; i < keys_total; ++i) ref[static_cast<std::size_t>(i)] = input_key(seed, i, range);
    std::sort(ref.begin(), ref.end());
  }
  std::vector<double> seconds, scatter_seconds;
  Run run;
  tessera::bench::Moved scatter, rebalance;
  int failed = 0;
  for (int r = 0; r < repeat && !failed; ++r) {
    run = sort_once(world, keys_total, samples, range, seed);
    // Equal to std::sort of the same keys: sorted and a permutation of the input at once.
    if (rank == 0 && run.sorted != ref) {
      std::printf("MISMATCH: result is %s and differs from std::sort of the input\n",
                  std::is_sorted(run.sorted.begin(), run.sorted.end()) ? "sorted" : "not sorted");
      failed = 1;
    }
    tessera::check_mpi(MPI_Bcast(&failed, 1, MPI_INT, 0, world.raw()), "MPI_Bcast");
    seconds.push_back(run.seconds);
    scatter_seconds.push_back(run.scatter_seconds);
    scatter = tessera::bench::sum_over_ranks(run.scatter, world.raw());  // every sort moves the same
    rebalance = tessera::bench::sum_over_ranks(run.rebalance, world.raw());
  }
  const auto t = tessera::bench::slowest_rank_summary(seconds, world.raw());
  const auto scatter_t = tessera::bench::slowest_rank_summary(scatter_seconds, world.raw());
  if (rank == 0) {
    std::printf("%d ranks, %lld keys in [0, %lld), %d samples per rank: largest bucket %lld keys (ideal %.1f), "
                "%.3f s (median of %d; scatter %.3f s)\n",
                size, static_cast<long long>(keys_total), static_cast<long long>(range), samples,
                static_cast<long long>(run.largest), static_cast<double>(keys_total) / size, t.median, repeat,
                scatter_t.median);
    tessera::bench::print_movement(true, "scatter", scatter);
    tessera::bench::print_movement(true, "rebalance", rebalance, rebalance_plan_args(run.cuts, keys_total, size));
    if (!failed) {
      if (!json.empty()) {
        const std::string name = "keys" + std::to_string(keys_total) + "-range" + std::to_string(range);
        std::vector<tessera::bench::Record> records{
            tessera::bench::Record::timing("zpl_samplesort", name, size, t),
            tessera::bench::timing_record("zpl_samplesort", name, size, "movement_s", scatter_t)};
        tessera::bench::add_movement_records(records, "zpl_samplesort", name, size, "scatter", scatter);
        tessera::bench::add_movement_records(records, "zpl_samplesort", name, size, "rebalance", rebalance);
        tessera::bench::write_json(json, records, "zpl_samplesort");
      }
      std::printf("sample sort matches std::sort of the input\n");
    }
  }
  return failed;
}
