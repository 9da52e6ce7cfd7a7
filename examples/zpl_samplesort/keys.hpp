#pragma once
// The keys of the sample sort (examples/zpl_samplesort), shared with its hand-written MPI version
// (experiments/zpl/samplesort_mpi.cpp) so that both sort the same input.
#include <cstdint>

namespace zpl_samplesort {

using Key = std::int64_t;

/// Key i of the input: splitmix64 of (seed, i), reduced to [0, range). A function of the global
/// index, so every rank makes its own keys and rank 0 can rebuild all of them for its check.
inline Key input_key(std::uint64_t seed, std::int64_t i, Key range) {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (static_cast<std::uint64_t>(i) + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<Key>(z % static_cast<std::uint64_t>(range));
}

/// The sample offsets both versions take from a locally sorted run of `count` keys: `samples`
/// evenly spaced positions, k = 0 ... samples - 1.
inline std::int64_t sample_position(std::int64_t k, std::int64_t count, int samples) {
  return (k + 1) * count / (samples + 1);
}

}  // namespace zpl_samplesort
