#pragma once
// The checksum of a checkpoint dataset (docs/checkpoint.md, "Checksums"), computed where the data
// lie: each rank sums a term per element it holds, and one allreduce adds the sums. The term of an
// element depends on its bits and on its global row-major index only, and addition mod 2^64 does
// not care about order, so the result is the same whatever the distribution, the rank count or
// the order the ranks visit their elements in; no element is ever sent anywhere.
//
//   word(e)        the element's bytes as a little-endian integer (1, 2, 4 or 8 bytes, zero-
//                  extended); for 16-byte elements mix64(low 8 bytes) xor (high 8 bytes)
//   term(i, e)     mix64(word(e) xor (i * 0xd6e8feb86659fd93))      i: global row-major index
//   checksum       sum of term(i, e) over all elements, mod 2^64
// mix64 is splitmix64's finaliser (a bijection of 64-bit words). A changed element changes its
// term to an unrelated value; two swapped elements change both terms (the index is mixed in).
#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "tessera/exchange/communicator.hpp"
#include "tessera/io/checkpoint_request.hpp"

namespace tessera::io::detail {

/// Dataset attributes: the checksum (uint64 scalar) and the name of its algorithm (string).
inline constexpr const char* kChecksumAttribute = "tessera_checksum";
inline constexpr const char* kChecksumAlgorithmAttribute = "tessera_checksum_algorithm";
/// The algorithm above. A file naming another one is refused (it cannot be verified).
inline constexpr const char* kChecksumAlgorithm = "tessera-sum64-v1";

/// Element sizes the checksum is defined for (every CheckpointElement's size).
[[nodiscard]] bool checksum_supports(std::size_t element_size) noexcept;

/// This rank's part: the sum of the terms of its owned elements of `array` (all its patches).
[[nodiscard]] std::uint64_t local_checksum(const CheckpointRequest& request, const ArraySelection& array);

/// This rank's part of what the cells no rank stores (a box set with holes; they hold 0 in the
/// file) add to the checksum: its share of the zero terms of every index of the dataset less the
/// zero terms of its owned indices. Summed over the ranks: the terms of the holes, computed in
/// parallel without knowing where the holes are.
[[nodiscard]] std::uint64_t local_hole_terms(const Communicator& comm, const CheckpointRequest& request,
                                             const ArraySelection& array);

/// Collective: the checksum of dataset `name` of the open `file` as stored, each rank reading a
/// share of its rows (checkpoint_verify.cpp). `load` uses it for arrays that do not read every
/// cell (a box set with holes), whose own elements cannot vouch for the holes.
[[nodiscard]] std::uint64_t stored_dataset_checksum(const Communicator& comm, hid_t file, hid_t transfer,
                                                    const std::string& path, const std::string& name);

/// The sum of the terms of `count` contiguous elements of `element_size` bytes at `data`, the
/// first of global index `first_index`.
[[nodiscard]] std::uint64_t contiguous_checksum(const void* data, std::size_t element_size, std::uint64_t first_index,
                                                std::uint64_t count);

/// Collective: the sum of every rank's `local` (mod 2^64), the same on every rank.
[[nodiscard]] std::uint64_t combine_checksums(const Communicator& comm, std::uint64_t local);

/// Writes both attributes on `dataset` (collective in parallel HDF5: every rank, the same value).
void write_checksum(hid_t dataset, std::uint64_t checksum);

/// The checksum stored on `dataset`, or nullopt if it has none (a file written by another
/// program). Throws Error(mismatch) naming `path` and `name` if it names an unknown algorithm.
[[nodiscard]] std::optional<std::uint64_t> read_checksum(hid_t dataset, const std::string& path,
                                                         const std::string& name);

/// Throws Error(io) "<where>: dataset '<name>' in '<path>' fails its checksum ..." unless equal.
void expect_checksum(std::string_view where, const std::string& path, const std::string& name, std::uint64_t stored,
                     std::uint64_t computed);

}  // namespace tessera::io::detail
