#include "box_table.hpp"

#include <cstdint>
#include <vector>

#include "checkpoint_format.hpp"
#include "collective_step.hpp"
#include "hdf5_file.hpp"
#include "hdf5_types.hpp"

namespace tessera::io::detail {

namespace {

constexpr const char* kReadWhere = "tessera::io::saved_boxes";

// One int64 dataset of shape `dims`: created by every rank, written by `writer` (the others select
// nothing), collectively.
void write_int64_dataset(hid_t file, const char* name, const std::vector<hsize_t>& dims,
                         const std::vector<index_t>& values, hid_t transfer, bool writer) {
  const auto rank = static_cast<int>(dims.size());
  const Hid space = checked_id(H5Screate_simple(rank, dims.data(), nullptr), H5Sclose, "H5Screate_simple (box table)");
  const Hid memory = checked_id(H5Screate_simple(rank, dims.data(), nullptr), H5Sclose, "H5Screate_simple (box table)");
  Hid dataset = checked_id(H5Dcreate2(file, name, H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                           H5Dclose, tessera::detail::concat("H5Dcreate2 of dataset '", name, "'"));
  if (!writer || values.empty()) {
    check_h5(H5Sselect_none(space.get()), "H5Sselect_none");
    check_h5(H5Sselect_none(memory.get()), "H5Sselect_none");
  }
  static_assert(sizeof(index_t) == sizeof(std::int64_t));
  static const std::int64_t nothing = 0;  // a valid pointer for ranks that write no element
  check_h5(H5Dwrite(dataset.get(), H5T_NATIVE_INT64, memory.get(), space.get(), transfer,
                    writer && !values.empty() ? static_cast<const void*>(values.data()) : &nothing),
           tessera::detail::concat("H5Dwrite of dataset '", name, "'"));
  dataset.close(tessera::detail::concat("H5Dclose of dataset '", name, "'"));
}

// Every element of the int64 dataset `name` (each rank reads it all: a box table is small).
std::vector<index_t> read_int64_dataset(hid_t file, const char* name, std::vector<hsize_t>& dims) {
  const htri_t exists = H5Lexists(file, name, H5P_DEFAULT);
  check_h5(exists, tessera::detail::concat("H5Lexists of '", name, "'"));
  if (exists == 0)
    fail(ErrorCode::mismatch, "the file holds no dataset '", name,
         "': it was not saved from a box-set domain (Distribution::from_box_set)");
  const Hid dataset = checked_id(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose,
                                 tessera::detail::concat("H5Dopen2 of '", name, "'"));
  const Hid space = checked_id(H5Dget_space(dataset.get()), H5Sclose, "H5Dget_space");
  const int rank = H5Sget_simple_extent_ndims(space.get());
  check_h5(static_cast<herr_t>(rank < 0 ? -1 : 0), "H5Sget_simple_extent_ndims");
  dims.assign(static_cast<std::size_t>(rank), 0);
  check_h5(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr), "H5Sget_simple_extent_dims");
  hsize_t count = 1;
  for (const hsize_t d : dims) count *= d;
  std::vector<index_t> values(static_cast<std::size_t>(count));
  if (count > 0)
    check_h5(H5Dread(dataset.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()),
             tessera::detail::concat("H5Dread of dataset '", name, "'"));
  return values;
}

}  // namespace

void write_box_table(hid_t file, const CheckpointRequest& r, hid_t transfer, bool writer) {
  if (!r.has_box_table) return;
  const auto boxes = static_cast<hsize_t>(r.box_owners.size());
  const auto n = static_cast<hsize_t>(r.domain_lo.size());
  std::vector<std::int64_t> domain(r.domain_lo.begin(), r.domain_lo.end());
  for (std::size_t d = 0; d < r.domain_lo.size(); ++d) domain.push_back(r.domain_lo[d] + r.domain_extents[d]);
  write_int64_attribute(file, kBoxDomainAttribute, domain);
  write_int64_dataset(file, kBoxesDataset, {boxes, 2, n}, r.box_corners, transfer, writer);
  write_int64_dataset(file, kBoxOwnersDataset, {boxes}, r.box_owners, transfer, writer);
}

bool is_tessera_dataset(std::string_view name) noexcept { return name.starts_with("tessera_"); }

SavedBoxTable read_box_table(const Communicator& comm, const std::string& path) {
  const QuietHdf5Errors quiet;
  SavedBoxTable t;
  Hid file;
  collective_step(comm, kReadWhere, [&] {
    file = open_parallel_file(path, comm.raw());
    const auto lo = read_int64_attribute(file.get(), kDomainLoAttribute);
    const auto ranks = read_int64_attribute(file.get(), kRanksAttribute);
    if (!lo || !ranks || ranks->size() != 1)
      fail(ErrorCode::mismatch, "'", path, "' is not a tessera checkpoint (no ", kDomainLoAttribute, " or ",
           kRanksAttribute, ")");
    std::vector<hsize_t> corner_dims, owner_dims;
    t.box_corners = read_int64_dataset(file.get(), kBoxesDataset, corner_dims);
    t.box_owners = read_int64_dataset(file.get(), kBoxOwnersDataset, owner_dims);
    t.dims = lo->size();
    if (corner_dims.size() != 3 || corner_dims[1] != 2 || corner_dims[2] != t.dims || owner_dims.size() != 1 ||
        owner_dims[0] != corner_dims[0])
      fail(ErrorCode::mismatch, "the box table of '", path, "' is malformed: '", kBoxesDataset,
           "' must have shape [boxes, 2, ", t.dims, "] and '", kBoxOwnersDataset, "' shape [boxes]");
    const auto domain = read_int64_attribute(file.get(), kBoxDomainAttribute);
    if (!domain || domain->size() != 2 * t.dims)
      fail(ErrorCode::mismatch, "the box table of '", path, "' has no ", kBoxDomainAttribute, " of ", 2 * t.dims,
           " values");
    t.domain_lo.assign(domain->begin(), domain->begin() + static_cast<std::ptrdiff_t>(t.dims));
    t.domain_hi.assign(domain->begin() + static_cast<std::ptrdiff_t>(t.dims), domain->end());
    t.ranks = static_cast<int>(ranks->front());
  });
  collective_step(comm, kReadWhere, [&] { file.close(tessera::detail::concat("H5Fclose of '", path, "'")); });
  return t;
}

}  // namespace tessera::io::detail
