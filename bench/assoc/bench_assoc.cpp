// Associative domains and arrays (array/associative_domain.hpp, associative_array.hpp): batched
// insert (+ remove), accumulate (a histogram's += 1) and lookup against the same batches sent by
// a hand-written MPI_Alltoall + MPI_Alltoallv hash table (anchor "mpi-alltoallv",
// hand_written_table.hpp), for string and int64 keys.
//
// Each rank's batch is `n` keys drawn from a universe of 2n * P (so keys repeat within and across
// ranks). insert-remove inserts the batch into an empty domain and removes it again (so every run
// starts empty); accumulate adds 1 per key (the table grows to the universe in the warmup, then
// updates); lookup asks for the batch's keys plus as many absent ones. Results are compared: the
// lookups' answers of both codes must be equal, element for element, and the job aborts otherwise.
//
// Timing: the codes alternate, each run timed with MPI_Wtime between barriers; the max over ranks
// per repetition (bench/support/bench_timing.hpp). Both make the same collectives per small batch
// (an insert or update two, a lookup three: tessera's first one carries each rank's flags besides
// the counts, array/key_routing.hpp); a batch over 1/P of 64 KiB for some peer, and a domain's
// first batch, cost tessera one agreement (a small allreduce) more.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "assoc/hand_written_table.hpp"
#include "support/bench_records.hpp"
#include "support/bench_timing.hpp"
#include "tessera/array/associative_array.hpp"

namespace {

using tessera::bench::Record;
using tessera::bench::Summary;
using Count = std::int64_t;

constexpr const char* kProgram = "bench_assoc";

[[noreturn]] void abort_job(const std::string& message) { tessera::bench::abort_job(kProgram, message); }

template <class Key>
Key key_of(std::uint64_t x) {
  if constexpr (std::is_same_v<Key, std::string>) {
    return "word-" + std::to_string(x * 2654435761u % 1000000007u);  // 9 to 15 characters
  } else {
    return static_cast<Key>(x * 0x9e3779b97f4a7c15ULL >> 1);
  }
}

template <class Key>
std::vector<Key> batch(int rank, int ranks, std::size_t n, int what) {
  std::mt19937_64 rng(static_cast<std::uint64_t>(rank) * 7919u + static_cast<std::uint64_t>(what));
  const std::uint64_t universe = 2 * n * static_cast<std::uint64_t>(ranks);
  std::vector<Key> keys(n);
  for (Key& k : keys) k = key_of<Key>(rng() % universe + (what == 2 ? universe : 0));
  return keys;
}

struct Result {
  std::string op, name;
  Summary mine, anchor;
};

template <class Key>
std::vector<Result> run_cases(const tessera::Communicator& world, const char* key_name, std::size_t n, int reps,
                              int warmup, const tessera::bench::Table& table) {
  const std::vector<Key> keys = batch<Key>(world.rank(), world.size(), n, 0);
  std::vector<Key> asked = batch<Key>(world.rank(), world.size(), n, 2);  // absent keys ...
  asked.insert(asked.begin(), keys.begin(), keys.end());                   // ... after present ones
  const std::vector<Count> ones(n, 1);
  const std::string name = std::string(key_name) + "-" + std::to_string(n);
  std::vector<Result> out;
  const auto record = [&](const std::string& op, const std::vector<Summary>& t) {
    out.push_back({op, name, t[0], t[1]});
    table.print_row(op + " " + name, {static_cast<double>(n), 1e3 * t[0].median, 1e3 * t[0].min, 1e3 * t[1].median,
                                      1e3 * t[1].min, t[0].median / t[1].median,
                                      static_cast<double>(n) / t[0].median / 1e6});
  };

  {  // insert-remove: the domain and the table empty again after each run
    tessera::AssociativeDomain<Key> dom(world);
    tessera::bench::HandWrittenTable<Key> hand(world.raw());
    const auto mine = [&] { dom.insert(keys), dom.remove(keys); };
    const auto anchor = [&] { hand.insert(keys), hand.remove(keys); };
    dom.insert(keys);
    hand.insert(keys);
    if (dom.local_size() != hand.local_size()) abort_job(name + ": insert left different key counts");
    dom.remove(keys);
    hand.remove(keys);
    record("assoc-insert-remove", tessera::bench::time_alternating(world.raw(), {mine, anchor}, warmup, reps));
  }
  tessera::AssociativeDomain<Key> dom(world);
  tessera::AssociativeArray<Key, Count> count(dom);
  tessera::bench::HandWrittenTable<Key> hand(world.raw());
  const auto accumulate = [&] { count.update(keys, ones, std::plus<>{}, tessera::MissingKeys::insert); };
  const auto accumulate_by_hand = [&] { hand.accumulate(keys, ones); };
  record("assoc-accumulate", tessera::bench::time_alternating(world.raw(), {accumulate, accumulate_by_hand}, warmup, reps));
  if (count.lookup(asked, Count{-1}) != hand.lookup(asked, -1)) abort_job(name + ": the counts differ");
  std::vector<Count> got, by_hand;
  const auto lookup = [&] { got = count.lookup(asked, Count{-1}); };
  const auto lookup_by_hand = [&] { by_hand = hand.lookup(asked, -1); };
  record("assoc-lookup", tessera::bench::time_alternating(world.raw(), {lookup, lookup_by_hand}, warmup, reps));
  if (got != by_hand) abort_job(name + ": the lookups differ");
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  const tessera::Communicator& world = env.world();
  CLI::App app{"Associative domains: batched insert, accumulate and lookup against a hand-written MPI_Alltoallv table"};
  std::vector<std::size_t> sizes{std::size_t{1} << 10, std::size_t{1} << 16};
  std::string json;
  std::string keys = "both";
  int reps = 0, warmup = 2;
  app.add_option("--sizes", sizes, "keys per rank per batch")->delimiter(',')->check(CLI::Range(std::size_t{1}, std::size_t{1} << 26));
  app.add_option("--repetitions", reps, "timed runs per case (0: 200 up to 4096 keys, 100 above)")
      ->check(CLI::Range(0, 1000000));
  app.add_option("--keys", keys, "key types to run: string, int64 or both")
      ->check(CLI::IsMember({"string", "int64", "both"}));
  app.add_option("--warmup", warmup, "untimed runs per case first")->check(CLI::Range(0, 1000000));
  app.add_option("--json", json, "rank 0 writes the records (JSON, bench/support/bench_records.hpp) here");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return world.rank() == 0 ? app.exit(e) : (e.get_exit_code() != 0);
  }
  const bool print = world.rank() == 0;
  const tessera::bench::Table table(print, "operation case", 34,
                                    {{"keys", 9, 0}, {"tessera", 9, 3}, {"min", 9, 3}, {"anchor", 9, 3}, {"min", 9, 3},
                                     {"ratio", 6, 2}, {"Mkeys/s", 8, 2}});
  if (print)
    std::printf("associative batches of n keys per rank, %d ranks; milliseconds per batch, max over ranks\n"
                "anchor: mpi-alltoallv (a hand-written MPI_Alltoall + MPI_Alltoallv hash table)\n",
                world.size());
  table.print_header();
  std::vector<Record> records;
  for (const std::size_t n : sizes) {
    // Large batches took 20 runs until 2026-11-29: a median of 20 moved by 10-15 % between launches
    // at 65536 keys (1.5-5 ms a batch), more than the gaps measured; 100 runs cost under 3 s a case.
    const int r = reps > 0 ? reps : (n <= (std::size_t{1} << 12) ? 200 : 100);
    const auto run = [&]<class Key>(const char* key_name) {
      if (keys != "both" && keys != key_name) return;
      for (const auto& res : run_cases<Key>(world, key_name, n, r, warmup, table))
        records.push_back(Record::timing(res.op, res.name, world.size(), res.mine, "mpi-alltoallv", res.anchor));
    };
    run.template operator()<std::string>("string");
    run.template operator()<std::int64_t>("int64");
  }
  if (!json.empty() && print) tessera::bench::write_json(json, records, kProgram);
  return 0;
}
