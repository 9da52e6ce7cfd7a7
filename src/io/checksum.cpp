#include "checksum.hpp"

#include <bit>
#include <cstdio>
#include <cstring>
#include <vector>

#include "hdf5_types.hpp"
#include "tessera/core/error.hpp"

namespace tessera::io::detail {

namespace {

constexpr std::uint64_t kIndexMultiplier = 0xd6e8feb86659fd93ULL;  // odd: i -> i * k is a bijection

constexpr std::uint64_t mix64(std::uint64_t x) noexcept {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Little-endian machines only (x86-64, AArch64): the bytes in memory are the bytes HDF5 stores.
static_assert(std::endian::native == std::endian::little,
              "the checksum reads elements as the little-endian bytes HDF5 stores: port word() first");
template <std::size_t Size>
std::uint64_t word(const std::byte* p) noexcept {
  if constexpr (Size <= 8) {
    std::uint64_t w = 0;
    std::memcpy(&w, p, Size);
    return w;
  } else {
    static_assert(Size == 16);
    std::uint64_t low, high;
    std::memcpy(&low, p, 8);
    std::memcpy(&high, p + 8, 8);
    return mix64(low) ^ high;
  }
}

template <std::size_t Size>
std::uint64_t term(std::uint64_t index, const std::byte* element) noexcept {
  return mix64(word<Size>(element) ^ (index * kIndexMultiplier));
}

/// Sum of terms of `count` elements `step` bytes apart, of global indices `index[k]` (or
/// first + k when `index` is null).
template <std::size_t Size>
std::uint64_t run_sum(const std::byte* p, std::ptrdiff_t step, const std::uint64_t* index, std::uint64_t first,
                      std::uint64_t count) noexcept {
  std::uint64_t sum = 0;
  if (index) {
    for (std::uint64_t k = 0; k < count; ++k) sum += term<Size>(first + index[k], p + static_cast<std::ptrdiff_t>(k) * step);
    return sum;
  }
  // Consecutive indices: (i + 1) * k = i * k + k, one multiplication per element fewer.
  std::uint64_t key = first * kIndexMultiplier;
  for (std::uint64_t k = 0; k < count; ++k, key += kIndexMultiplier)
    sum += mix64(word<Size>(p + static_cast<std::ptrdiff_t>(k) * step) ^ key);
  return sum;
}

using RunSum = std::uint64_t (*)(const std::byte*, std::ptrdiff_t, const std::uint64_t*, std::uint64_t, std::uint64_t);

RunSum run_sum_for(std::size_t size) {
  switch (size) {
    case 1: return run_sum<1>;
    case 2: return run_sum<2>;
    case 4: return run_sum<4>;
    case 8: return run_sum<8>;
    case 16: return run_sum<16>;
    default: fail(ErrorCode::internal, "tessera::io: no checksum for elements of ", size, " bytes: please report this");
  }
}

/// The global indices along one axis that the section list names, in order.
std::vector<std::uint64_t> expand(const SectionList1& sections) {
  std::vector<std::uint64_t> out;
  for (const Section1& s : sections)
    for (index_t r = 0; r < s.run_count; ++r)
      for (index_t b = 0; b < s.run_length; ++b) out.push_back(static_cast<std::uint64_t>(s.first + r * s.stride + b));
  return out;
}

}  // namespace

bool checksum_supports(std::size_t element_size) noexcept {
  return element_size == 1 || element_size == 2 || element_size == 4 || element_size == 8 || element_size == 16;
}

namespace {

/// Calls `row(data, step_bytes, index, first, count)` for every run of owned elements of `array`
/// along the last axis (the arguments of a RunSum) and returns the sum of what it returns.
template <class Row>
std::uint64_t sum_over_owned_rows(const CheckpointRequest& request, const ArraySelection& array, Row&& row) {
  const std::size_t n = request.domain_extents.size();
  // Row-major strides of the dataset, in elements.
  std::vector<std::uint64_t> file_stride(n, 1);
  for (std::size_t d = n - 1; d > 0; --d)
    file_stride[d - 1] = file_stride[d] * static_cast<std::uint64_t>(request.domain_extents[d]);
  std::uint64_t sum = 0;
  for (const PatchSelection& p : array.patches) {
    std::vector<std::vector<std::uint64_t>> global(n);
    bool empty = false;
    for (std::size_t d = 0; d < n; ++d) {
      global[d] = expand(p.global[d]);
      if (global[d].size() != static_cast<std::size_t>(p.owned_count[d]))
        fail(ErrorCode::internal, "tessera::io: a patch's owned sections do not match its owned extent: please report this");
      empty = empty || global[d].empty();
    }
    if (empty) continue;
    // One run per row along the last axis: visit every index of the other axes (odometer).
    const auto size = static_cast<std::ptrdiff_t>(array.element_size);
    const std::uint64_t last_count = global[n - 1].size();
    // Block and interval axes own consecutive indices: the cheaper consecutive path.
    const std::uint64_t last_first = global[n - 1].front();
    const bool consecutive = global[n - 1].back() - last_first + 1 == last_count;
    const std::uint64_t* last = consecutive ? nullptr : global[n - 1].data();
    const std::uint64_t last_offset = consecutive ? last_first : 0;
    std::vector<std::size_t> i(n - 1, 0);
    for (;;) {
      std::uint64_t base = 0;
      std::ptrdiff_t offset = p.owned_lo[n - 1] * p.strides[n - 1];
      for (std::size_t d = 0; d + 1 < n; ++d) {
        base += global[d][i[d]] * file_stride[d];
        offset += (p.owned_lo[d] + static_cast<index_t>(i[d])) * p.strides[d];
      }
      const auto* data = static_cast<const std::byte*>(p.data) + offset * size;
      sum += row(data, p.strides[n - 1] * size, last, base + last_offset, last_count);
      std::size_t d = n - 1;
      while (d > 0 && ++i[d - 1] == global[d - 1].size()) i[--d] = 0;
      if (d == 0) break;
    }
  }
  return sum;
}

// A zero element of any checksummed size, read with step 0 for a run of zeros.
constexpr std::byte kZeroElement[16] = {};

}  // namespace

std::uint64_t local_checksum(const CheckpointRequest& request, const ArraySelection& array) {
  return sum_over_owned_rows(request, array, run_sum_for(array.element_size));
}

std::uint64_t local_hole_terms(const Communicator& comm, const CheckpointRequest& request, const ArraySelection& array) {
  const RunSum sum_run = run_sum_for(array.element_size);
  std::uint64_t cells = 1;
  for (const index_t e : request.domain_extents) cells *= static_cast<std::uint64_t>(e);
  const auto ranks = static_cast<std::uint64_t>(comm.size()), me = static_cast<std::uint64_t>(comm.rank());
  const std::uint64_t first = cells * me / ranks, last = cells * (me + 1) / ranks;
  const std::uint64_t every_cell = sum_run(kZeroElement, 0, nullptr, first, last - first);
  const std::uint64_t owned = sum_over_owned_rows(
      request, array, [&](const std::byte*, std::ptrdiff_t, const std::uint64_t* index, std::uint64_t from, std::uint64_t count) {
        return sum_run(kZeroElement, 0, index, from, count);
      });
  return every_cell - owned;  // mod 2^64, like every other part of the sum
}

std::uint64_t contiguous_checksum(const void* data, std::size_t element_size, std::uint64_t first_index,
                                  std::uint64_t count) {
  return run_sum_for(element_size)(static_cast<const std::byte*>(data), static_cast<std::ptrdiff_t>(element_size),
                                   nullptr, first_index, count);
}

std::uint64_t combine_checksums(const Communicator& comm, std::uint64_t local) {
  // Unsigned addition wraps mod 2^64, whatever order MPI adds in.
  return comm.allreduce(local, ReduceOp::sum);
}

void write_checksum(hid_t dataset, std::uint64_t checksum) {
  const Hid space = checked_id(H5Screate(H5S_SCALAR), H5Sclose, "H5Screate (scalar)");
  const Hid attr = checked_id(H5Acreate2(dataset, kChecksumAttribute, H5T_STD_U64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                              H5Aclose, tessera::detail::concat("H5Acreate2 of attribute '", kChecksumAttribute, "'"));
  check_h5(H5Awrite(attr.get(), H5T_NATIVE_UINT64, &checksum),
           tessera::detail::concat("H5Awrite of attribute '", kChecksumAttribute, "'"));
  write_string_attribute(dataset, kChecksumAlgorithmAttribute, kChecksumAlgorithm);
}

std::optional<std::uint64_t> read_checksum(hid_t dataset, const std::string& path, const std::string& name) {
  const htri_t exists = H5Aexists(dataset, kChecksumAttribute);
  check_h5(exists, tessera::detail::concat("H5Aexists of attribute '", kChecksumAttribute, "'"));
  if (exists == 0) return std::nullopt;
  const auto algorithm = read_string_attribute(dataset, kChecksumAlgorithmAttribute);
  if (!algorithm || *algorithm != kChecksumAlgorithm)
    fail(ErrorCode::mismatch, "dataset '", name, "' in '", path, "' has a checksum of algorithm '",
         algorithm ? *algorithm : "(not named)", "'; this tessera verifies '", kChecksumAlgorithm, "' only");
  const Hid attr = checked_id(H5Aopen(dataset, kChecksumAttribute, H5P_DEFAULT), H5Aclose,
                              tessera::detail::concat("H5Aopen of attribute '", kChecksumAttribute, "'"));
  const Hid stored = checked_id(H5Aget_type(attr.get()), H5Tclose, "H5Aget_type");
  if (H5Tget_class(stored.get()) != H5T_INTEGER || H5Tget_size(stored.get()) != 8)
    fail(ErrorCode::mismatch, "dataset '", name, "' in '", path, "' has a '", kChecksumAttribute,
         "' attribute that is not a 64-bit integer");
  std::uint64_t value = 0;
  check_h5(H5Aread(attr.get(), H5T_NATIVE_UINT64, &value),
           tessera::detail::concat("H5Aread of attribute '", kChecksumAttribute, "' of dataset '", name, "'"));
  return value;
}

void expect_checksum(std::string_view where, const std::string& path, const std::string& name, std::uint64_t stored,
                     std::uint64_t computed) {
  if (stored == computed) return;
  char text[80];
  std::snprintf(text, sizeof text, "stored %016llx, computed %016llx", static_cast<unsigned long long>(stored),
                static_cast<unsigned long long>(computed));
  fail(ErrorCode::io, where, ": dataset '", name, "' in '", path, "' fails its checksum (", text,
       " from the elements read): the file is damaged (a flipped or lost byte, a truncated or overwritten file)");
}

}  // namespace tessera::io::detail
