// Pack/unpack throughput of the Mover's copy kernels (src/exchange/copy_kernels.hpp) against
// std::memcpy of the same bytes (issue 6: pack/unpack >= 70 % of single-core memcpy on contiguous
// runs >= 512 bytes). Not an MPI benchmark: the kernels are what a Mover runs per message.
//
// Each case is one block of contiguous runs of R bytes (512 B, 4 KiB, 64 KiB), each followed by a
// gap of R bytes (so that no two runs merge), 64 MiB of runs in all (beyond the last-level cache:
// memory bandwidth, as the memcpy figure). "pack" gathers them from the array into a
// 64 MiB buffer, "unpack" scatters the buffer back. The anchor copies the same bytes with one
// std::memcpy between two contiguous 64 MiB buffers: the bandwidth limit of one core. A second
// anchor, "memcpy-per-run", is the loop a user writes by hand (one memcpy per run): it reads the
// same scattered lines as the pack, so it shows how much of the gap to memcpy is the access
// pattern rather than the kernel. Names are
// "op/case/impl" (bench/run_all.py pairs them into ratio records); bytes_per_second is reported.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "copy_kernels.hpp"  // internal to the library: the bench target adds src/exchange to its path
#include "tessera/plan/schedule.hpp"

namespace {

using tessera::Block;
using tessera::index_t;
using tessera::Schedule;

constexpr std::size_t kTotalBytes = std::size_t{64} << 20;

/// One block of `runs` contiguous runs of `run_elements` doubles, 2 * run_elements apart.
struct RunsCase {
  explicit RunsCase(std::size_t run_bytes)
      : run_elements(static_cast<index_t>(run_bytes / sizeof(double))),
        runs(static_cast<index_t>(kTotalBytes / run_bytes)),
        array(static_cast<std::size_t>(2 * run_elements * runs), 1.0),
        buffer(kTotalBytes / sizeof(double), 2.0) {
    schedule.runs.push_back({0, runs, runs, 1});                  // outer axis: run k ...
    schedule.runs.push_back({0, run_elements, run_elements, 1});  // ... inner axis: its elements
    block.base = 0;
    block.axes = 2;
    block.axis[0] = {2 * run_elements, 0, 1};
    block.axis[1] = {1, 1, 2};
    block.volume = runs * run_elements;
  }
  index_t run_elements, runs;
  std::vector<double> array, buffer;
  Schedule schedule;
  Block block;
};

void pack_runs(benchmark::State& state, std::size_t run_bytes) {
  RunsCase c(run_bytes);
  for (auto _ : state) {
    const std::size_t n = tessera::detail::pack(c.schedule, &c.block, &c.block + 1,
                                                reinterpret_cast<const std::byte*>(c.array.data()),
                                                reinterpret_cast<std::byte*>(c.buffer.data()), sizeof(double));
    benchmark::DoNotOptimize(n);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(kTotalBytes));
}

void unpack_runs(benchmark::State& state, std::size_t run_bytes) {
  RunsCase c(run_bytes);
  for (auto _ : state) {
    tessera::detail::unpack_blocks(c.schedule, &c.block, &c.block + 1, reinterpret_cast<std::byte*>(c.array.data()),
                                   reinterpret_cast<const std::byte*>(c.buffer.data()), sizeof(double), nullptr);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(kTotalBytes));
}

void memcpy_per_run(benchmark::State& state, std::size_t run_bytes, bool pack) {
  RunsCase c(run_bytes);
  auto* array = reinterpret_cast<std::byte*>(c.array.data());
  auto* buffer = reinterpret_cast<std::byte*>(c.buffer.data());
  const auto runs = static_cast<std::size_t>(c.runs);
  for (auto _ : state) {
    for (std::size_t k = 0; k < runs; ++k) {
      if (pack)
        std::memcpy(buffer + k * run_bytes, array + 2 * k * run_bytes, run_bytes);
      else
        std::memcpy(array + 2 * k * run_bytes, buffer + k * run_bytes, run_bytes);
    }
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(kTotalBytes));
}

void memcpy_bytes(benchmark::State& state) {
  std::vector<std::byte> from(kTotalBytes, std::byte{1}), to(kTotalBytes, std::byte{2});
  for (auto _ : state) {
    std::memcpy(to.data(), from.data(), kTotalBytes);
    benchmark::DoNotOptimize(to.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(kTotalBytes));
}

}  // namespace

int main(int argc, char** argv) {
  for (const std::size_t run : {std::size_t{512}, std::size_t{4096}, std::size_t{65536}}) {
    const std::string name = "runs-" + (run < 4096 ? std::to_string(run) + "B" : std::to_string(run / 1024) + "KiB") +
                             "-64MiB";
    benchmark::RegisterBenchmark(("pack/" + name + "/tessera").c_str(), pack_runs, run);
    benchmark::RegisterBenchmark(("pack/" + name + "/anchor=memcpy").c_str(), memcpy_bytes);
    benchmark::RegisterBenchmark(("pack/" + name + "/anchor=memcpy-per-run").c_str(), memcpy_per_run, run, true);
    benchmark::RegisterBenchmark(("unpack/" + name + "/tessera").c_str(), unpack_runs, run);
    benchmark::RegisterBenchmark(("unpack/" + name + "/anchor=memcpy").c_str(), memcpy_bytes);
    benchmark::RegisterBenchmark(("unpack/" + name + "/anchor=memcpy-per-run").c_str(), memcpy_per_run, run,
                                 false);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
