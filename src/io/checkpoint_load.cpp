// tessera::io::load: every rank reads the elements it owns now, whatever distribution wrote them,
// with collective H5Dread calls of hyperslab selections. Nothing is read before the file has been
// checked against the arrays (dataset present, shape, element type, domain corner), and every
// check sees the same metadata on every rank, so a mismatch is the same Error everywhere.
#include <optional>
#include <sstream>

#include "checkpoint_format.hpp"
#include "checksum.hpp"
#include "collective_step.hpp"
#include "hdf5_file.hpp"
#include "hdf5_types.hpp"
#include "request_checks.hpp"
#include "tessera/io/checkpoint_request.hpp"
#include "transfer_plan.hpp"

namespace tessera::io::detail {

namespace {

constexpr const char* kWhere = "tessera::io::load";

template <class T>
std::string tuple_text(const std::vector<T>& v) {
  std::ostringstream out;
  out << '(';
  for (std::size_t i = 0; i < v.size(); ++i) out << (i ? ", " : "") << v[i];
  out << ')';
  return out.str();
}

void check_file_header(hid_t file, const std::string& path, const CheckpointRequest& r) {
  if (const auto format = read_string_attribute(file, kFormatAttribute); format && *format != kFormat)
    fail(ErrorCode::mismatch, kWhere, ": '", path, "' says its format is '", *format, "'; this tessera reads '",
         kFormat, "'");
  if (const auto lo = read_int64_attribute(file, kDomainLoAttribute); lo && *lo != r.domain_lo)
    fail(ErrorCode::mismatch, kWhere, ": '", path, "' was saved from a domain whose lower corner is ",
         tuple_text(*lo), " but the arrays' domain starts at ", tuple_text(r.domain_lo));
}

/// The dataset of `a`, checked against it: present, of the domain's shape and of a's element type.
Hid open_matching_dataset(hid_t file, const std::string& path, const CheckpointRequest& r, const ArraySelection& a,
                          hid_t type) {
  const htri_t exists = H5Lexists(file, a.name.c_str(), H5P_DEFAULT);
  check_h5(exists, tessera::detail::concat("H5Lexists of '", a.name, "'"));
  if (exists == 0) {
    std::string held;
    for (const auto& name : link_names(file)) held += (held.empty() ? "" : ", ") + name;
    fail(ErrorCode::mismatch, kWhere, ": '", path, "' has no dataset '", a.name, "' (it holds: ",
         held.empty() ? "nothing" : held, ")");
  }
  Hid dataset = checked_id(H5Dopen2(file, a.name.c_str(), H5P_DEFAULT), H5Dclose,
                           tessera::detail::concat("H5Dopen2 of dataset '", a.name, "'"));
  const Hid space = checked_id(H5Dget_space(dataset.get()), H5Sclose, "H5Dget_space");
  const int rank = H5Sget_simple_extent_ndims(space.get());
  check_h5(rank < 0 ? -1 : 0, "H5Sget_simple_extent_ndims");
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  check_h5(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr), "H5Sget_simple_extent_dims");
  const std::vector<hsize_t> want(r.domain_extents.begin(), r.domain_extents.end());
  if (dims != want)
    fail(ErrorCode::mismatch, kWhere, ": dataset '", a.name, "' in '", path, "' has shape ", tuple_text(dims),
         " but the array's domain has extents ", tuple_text(want));
  const Hid stored = checked_id(H5Dget_type(dataset.get()), H5Tclose, "H5Dget_type");
  if (H5Tequal(stored.get(), type) <= 0)
    fail(ErrorCode::mismatch, kWhere, ": dataset '", a.name, "' in '", path, "' holds ",
         describe_hdf5_type(stored.get()), " but the array's elements are ", to_string(a.type),
         " (load reads bit for bit; convert the file or the array)");
  return dataset;
}

}  // namespace

Attributes load_checkpoint(const std::string& path, const CheckpointRequest& request) {
  const QuietHdf5Errors quiet;
  const Communicator& comm = *request.comm;
  collective_step(comm, kWhere, [&] { check_names(kWhere, path, request, nullptr); });
  check_same_on_every_rank(kWhere, path, request, nullptr);
  Hid file, transfer;
  Attributes user;
  collective_step(comm, kWhere, [&] {
    file = open_parallel_file(path, comm.raw());
    transfer = collective_transfer();
    check_file_header(file.get(), path, request);
    user = read_user_attributes(file.get());
  });
  // Check every dataset before reading any, so that a mismatch leaves the arrays untouched.
  std::vector<Hid> types, datasets;
  std::vector<std::optional<std::uint64_t>> checksums;  // none for files written by other programs
  collective_step(comm, kWhere, [&] {
    for (const ArraySelection& a : request.arrays) {
      types.push_back(hdf5_type(a.type));
      datasets.push_back(open_matching_dataset(file.get(), path, request, a, types.back().get()));
      checksums.push_back(read_checksum(datasets.back().get(), path, a.name));
    }
  });
  for (std::size_t k = 0; k < request.arrays.size(); ++k) {
    const ArraySelection& a = request.arrays[k];
    std::optional<TransferPlan> plan;
    collective_step(comm, kWhere, [&] { plan.emplace(request, a, kWhere); });
    collective_step(comm, kWhere, [&] {
      check_h5(H5Dread(datasets[k].get(), types[k].get(), plan->memory_space(), plan->file_space(), transfer.get(),
                       plan->read_buffer()),
               tessera::detail::concat("H5Dread of dataset '", a.name, "' from '", path, "'"));
      plan->finish_read();
    });
    if (checksums[k] && !request.covers_domain) {
      // A box set with holes reads no cell over a hole, so what it read cannot vouch for them: the
      // dataset is checked as stored, every rank reading a share of its rows.
      expect_checksum(kWhere, path, a.name, *checksums[k],
                      stored_dataset_checksum(comm, file.get(), transfer.get(), path, a.name));
    } else if (checksums[k]) {
      // Recomputed from what each rank read, combined like the save did: every rank gets the same
      // sum, so a damaged dataset is the same Error everywhere.
      std::uint64_t mine = 0;
      collective_step(comm, kWhere, [&] { mine = local_checksum(request, a); });
      expect_checksum(kWhere, path, a.name, *checksums[k], combine_checksums(comm, mine));
    }
  }
  collective_step(comm, kWhere, [&] {
    datasets.clear();
    file.close(tessera::detail::concat("H5Fclose of '", path, "'"));
  });
  return user;
}

}  // namespace tessera::io::detail
