// tessera::io::verify: a checkpoint's checksums checked without knowing its arrays. Each rank
// reads a share of every dataset's rows (as stored, no conversion) in slabs of at most 64 MiB and
// sums the checksum terms of what it read; one allreduce per dataset combines the sums.
#include <algorithm>
#include <optional>

#include "box_table.hpp"
#include "checksum.hpp"
#include "collective_step.hpp"
#include "hdf5_file.hpp"
#include "hdf5_types.hpp"
#include "tessera/io/checkpoint_series.hpp"

namespace tessera::io {

namespace {

using detail::check_h5;
using detail::checked_id;
using detail::Hid;

constexpr const char* kWhere = "tessera::io::verify";
constexpr std::uint64_t kSlabBytes = std::uint64_t{64} << 20;

/// A dataset as verify reads it: rows along dimension 0 (one row for a scalar dataset).
struct Dataset {
  Hid id, type, space;
  std::vector<hsize_t> dims;
  std::size_t element_size = 0;
  std::uint64_t rows = 0, row_elements = 1;
  std::optional<std::uint64_t> checksum;
};

bool is_dataset(hid_t file, const std::string& name) {
  H5O_info_t info;
  check_h5(H5Oget_info_by_name2(file, name.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT),
           tessera::detail::concat("H5Oget_info_by_name2 of '", name, "'"));
  return info.type == H5O_TYPE_DATASET;
}

Dataset open_dataset(hid_t file, const std::string& path, const std::string& name) {
  Dataset d;
  d.id = checked_id(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose,
                    tessera::detail::concat("H5Dopen2 of dataset '", name, "'"));
  d.type = checked_id(H5Dget_type(d.id.get()), H5Tclose, "H5Dget_type");
  d.space = checked_id(H5Dget_space(d.id.get()), H5Sclose, "H5Dget_space");
  const int rank = H5Sget_simple_extent_ndims(d.space.get());
  check_h5(rank < 0 ? -1 : 0, "H5Sget_simple_extent_ndims");
  d.dims.resize(static_cast<std::size_t>(rank));
  check_h5(H5Sget_simple_extent_dims(d.space.get(), d.dims.data(), nullptr), "H5Sget_simple_extent_dims");
  d.element_size = H5Tget_size(d.type.get());
  d.rows = rank == 0 ? 1 : d.dims[0];
  for (std::size_t k = 1; k < d.dims.size(); ++k) d.row_elements *= d.dims[k];
  d.checksum = detail::read_checksum(d.id.get(), path, name);
  if (d.checksum && !detail::checksum_supports(d.element_size))
    fail(ErrorCode::mismatch, kWhere, ": dataset '", name, "' in '", path, "' has a checksum but elements of ",
         d.element_size, " bytes, which no checkpoint holds");
  return d;
}

/// Selects rows [first, first + count) of `d` in its file space (none if count is 0).
void select_rows(const Dataset& d, std::uint64_t first, std::uint64_t count) {
  if (count == 0) {
    check_h5(H5Sselect_none(d.space.get()), "H5Sselect_none");
  } else if (d.dims.empty()) {
    check_h5(H5Sselect_all(d.space.get()), "H5Sselect_all");
  } else {
    std::vector<hsize_t> start(d.dims.size(), 0), extent = d.dims;
    start[0] = first;
    extent[0] = count;
    check_h5(H5Sselect_hyperslab(d.space.get(), H5S_SELECT_SET, start.data(), nullptr, extent.data(), nullptr),
             "H5Sselect_hyperslab");
  }
}

/// Collective: this rank's rows of `d` read slab by slab (the same number of collective reads on
/// every rank), returning the sum of their checksum terms.
std::uint64_t local_sum(const Communicator& comm, const Dataset& d, hid_t transfer, const std::string& path,
                        const std::string& name) {
  const auto ranks = static_cast<std::uint64_t>(comm.size()), me = static_cast<std::uint64_t>(comm.rank());
  const std::uint64_t first = d.rows * me / ranks, last = d.rows * (me + 1) / ranks;
  const std::uint64_t row_bytes = std::max<std::uint64_t>(d.row_elements * d.element_size, 1);
  const std::uint64_t per_slab = std::max<std::uint64_t>(kSlabBytes / row_bytes, 1);
  const std::uint64_t mine = (last - first + per_slab - 1) / per_slab;
  const std::uint64_t slabs = comm.allreduce(mine, ReduceOp::max);
  std::vector<std::byte> buffer(static_cast<std::size_t>(std::min(per_slab, std::max<std::uint64_t>(last - first, 1)) *
                                                         row_bytes));
  std::uint64_t sum = 0;
  for (std::uint64_t s = 0; s < slabs; ++s) {
    const std::uint64_t from = std::min(first + s * per_slab, last), count = std::min(per_slab, last - from);
    detail::collective_step(comm, kWhere, [&] {
      select_rows(d, from, count);
      const hsize_t elements = std::max<hsize_t>(count * d.row_elements, 1);
      const Hid memory = checked_id(H5Screate_simple(1, &elements, nullptr), H5Sclose, "H5Screate_simple");
      if (count == 0) check_h5(H5Sselect_none(memory.get()), "H5Sselect_none");
      check_h5(H5Dread(d.id.get(), d.type.get(), memory.get(), d.space.get(), transfer, buffer.data()),
               tessera::detail::concat("H5Dread of dataset '", name, "' from '", path, "'"));
      sum += detail::contiguous_checksum(buffer.data(), d.element_size, from * d.row_elements, count * d.row_elements);
    });
  }
  return sum;
}

}  // namespace

std::uint64_t detail::stored_dataset_checksum(const Communicator& comm, hid_t file, hid_t transfer,
                                              const std::string& path, const std::string& name) {
  Dataset d;
  detail::collective_step(comm, kWhere, [&] { d = open_dataset(file, path, name); });
  return detail::combine_checksums(comm, local_sum(comm, d, transfer, path, name));
}

VerifyReport verify(const Communicator& comm, const std::string& path) {
  const detail::QuietHdf5Errors quiet;
  VerifyReport report;
  Hid file, transfer;
  std::vector<std::string> names;
  detail::collective_step(comm, kWhere, [&] {
    file = detail::open_parallel_file(path, comm.raw());
    transfer = detail::collective_transfer();
    for (const std::string& name : detail::link_names(file.get()))
      if (is_dataset(file.get(), name) && !detail::is_tessera_dataset(name)) names.push_back(name);
  });
  for (const std::string& name : names) {
    Dataset d;
    detail::collective_step(comm, kWhere, [&] { d = open_dataset(file.get(), path, name); });
    if (!d.checksum) {
      report.unchecked.push_back(name);
      continue;
    }
    const std::uint64_t sum = detail::combine_checksums(comm, local_sum(comm, d, transfer.get(), path, name));
    detail::expect_checksum(kWhere, path, name, *d.checksum, sum);  // the same sum, so the same Error, everywhere
    report.verified.push_back(name);
  }
  detail::collective_step(comm, kWhere, [&] { file.close(tessera::detail::concat("H5Fclose of '", path, "'")); });
  return report;
}

}  // namespace tessera::io
