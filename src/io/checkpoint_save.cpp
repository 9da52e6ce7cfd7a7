// tessera::io::save: the atomic-replace protocol around one parallel HDF5 file.
//
//   1. every rank checks the request and that all ranks passed the same one;
//   2. rank 0 draws a token; every rank creates `path.tmp-<token>` collectively, writes the
//      attributes and each dataset (collective H5Dwrite of hyperslab selections), flushes it to
//      stable storage (MPI_File_sync through H5Fflush) and closes it;
//   3. rank 0 renames it to `path` (atomic on POSIX file systems) and syncs the folder;
//   4. rank 0 writes the XDMF sidecar the same way (temporary name, then rename).
// A failure in 1-3 removes the temporary file and leaves `path` as it was; a crash leaves the
// temporary file behind and `path` as it was.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <span>

#include "box_table.hpp"
#include "checkpoint_format.hpp"
#include "checksum.hpp"
#include "collective_step.hpp"
#include "crash_hook.hpp"
#include "hdf5_file.hpp"
#include "hdf5_types.hpp"
#include "request_checks.hpp"
#include "tessera/exchange/communicator.hpp"
#include "tessera/io/checkpoint_request.hpp"
#include "transfer_plan.hpp"
#include "xdmf.hpp"

namespace tessera::io::detail {

namespace {

constexpr const char* kWhere = "tessera::io::save";

/// `path.tmp-<16 hex digits>`, the same on every rank: drawn on rank 0, so that two runs saving to
/// one path never write the same temporary file.
std::string temporary_name(const std::string& path, const Communicator& comm) {
  char token[17] = {};
  if (comm.rank() == 0) {
    std::random_device entropy;
    const auto value = (static_cast<unsigned long long>(entropy()) << 32) ^ entropy() ^
                       static_cast<unsigned long long>(getpid());
    std::snprintf(token, sizeof token, "%016llx", value);
  }
  comm.bcast(std::span<char>(token), 0);
  return path + ".tmp-" + token;
}

void write_root_attributes(hid_t file, const CheckpointRequest& r, const Attributes& attributes) {
  write_string_attribute(file, kFormatAttribute, kFormat);
  write_int64_attribute(file, kDomainLoAttribute, r.domain_lo);
  write_string_attribute(file, kDistributionAttribute, r.distribution);
  write_int64_attribute(file, kGridShapeAttribute, r.grid_shape);
  write_user_attribute(file, kRanksAttribute, std::int64_t{r.ranks});  // a scalar
  for (const auto& [name, value] : attributes) write_user_attribute(file, name, value);
}

Hid create_dataset(hid_t file, const CheckpointRequest& r, const ArraySelection& a, hid_t type) {
  const std::vector<hsize_t> dims(r.domain_extents.begin(), r.domain_extents.end());
  const Hid space = checked_id(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose,
                               "H5Screate_simple (dataset)");
  const Hid dcpl = checked_id(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "H5Pcreate (dataset creation)");
  // Every element is written at once: filling with a fill value first would write the data twice.
  // A box set with holes writes no cell over a hole: those are filled with 0 at allocation, so that
  // the file holds what docs/box-sets.md promises and its checksum counts (checksum.hpp).
  check_h5(H5Pset_fill_time(dcpl.get(), r.covers_domain ? H5D_FILL_TIME_NEVER : H5D_FILL_TIME_ALLOC),
           "H5Pset_fill_time");
  check_h5(H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_EARLY), "H5Pset_alloc_time");
  Hid dataset = checked_id(H5Dcreate2(file, a.name.c_str(), type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                           H5Dclose, tessera::detail::concat("H5Dcreate2 of dataset '", a.name, "'"));
  write_string_attribute(dataset.get(), kElementTypeAttribute, to_string(a.type));
  write_string_attribute(dataset.get(), kGhostsAttribute, a.ghosts);
  write_int64_attribute(dataset.get(), kGhostLowerAttribute, a.ghost_lower);
  write_int64_attribute(dataset.get(), kGhostUpperAttribute, a.ghost_upper);
  return dataset;
}

/// Step 2: the whole file under its temporary name, closed on return.
void write_file(const std::string& path, const std::string& temporary, const Attributes& attributes,
                const CheckpointRequest& r) {
  const Communicator& comm = *r.comm;
  Hid file, transfer;
  collective_step(comm, kWhere, [&] {
    file = create_parallel_file(temporary, comm.raw());
    transfer = collective_transfer();
    write_root_attributes(file.get(), r, attributes);
    write_box_table(file.get(), r, transfer.get(), comm.rank() == 0);
  });
  abort_if_requested(comm, "after_create", path);
  for (const ArraySelection& a : r.arrays) {
    Hid type, dataset;
    std::optional<TransferPlan> plan;
    std::uint64_t mine = 0;
    collective_step(comm, kWhere, [&] {
      type = hdf5_type(a.type);
      dataset = create_dataset(file.get(), r, a, type.get());
      plan.emplace(r, a, kWhere);
      mine = local_checksum(r, a);
      if (!r.covers_domain) mine += local_hole_terms(comm, r, a);  // the holes hold the fill value, 0
    });
    // Each rank sums the terms of what it owns; no element leaves its rank (see checksum.hpp).
    const std::uint64_t checksum = combine_checksums(comm, mine);
    collective_step(comm, kWhere, [&] {
      write_checksum(dataset.get(), checksum);
      check_h5(H5Dwrite(dataset.get(), type.get(), plan->memory_space(), plan->file_space(), transfer.get(),
                        plan->prepare_write()),
               tessera::detail::concat("H5Dwrite of dataset '", a.name, "' to '", temporary, "'"));
      dataset.close(tessera::detail::concat("H5Dclose of dataset '", a.name, "'"));
    });
  }
  abort_if_requested(comm, "after_data", path);
  collective_step(comm, kWhere, [&] {
    // H5Fflush makes every rank call MPI_File_sync: the data must be on disk before the rename
    // makes the file the checkpoint, or a node crash could leave `path` naming a partial file.
    check_h5(H5Fflush(file.get(), H5F_SCOPE_GLOBAL), tessera::detail::concat("H5Fflush of '", temporary, "'"));
    file.close(tessera::detail::concat("H5Fclose of '", temporary, "'"));
  });
}

/// Syncs the folder holding `path`, so that a rename in it survives a crash of the node. Best
/// effort: some file systems refuse fsync on folders, and the data itself is already on disk.
void sync_folder_of(const std::string& path) {
  std::filesystem::path folder = std::filesystem::path(path).parent_path();
  if (folder.empty()) folder = ".";
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

/// Rank 0 renames `from` to `to`; throws Error(io) with the system's reason.
void rename_or_fail(const std::string& from, const std::string& to) {
  if (std::rename(from.c_str(), to.c_str()) != 0)
    fail(ErrorCode::io, kWhere, ": cannot rename '", from, "' to '", to, "': ", std::strerror(errno));
}

/// Step 4, on rank 0: the XDMF sidecar, replaced atomically too. A domain XDMF cannot show (1-D,
/// 4-D and up) gets none, and a sidecar left by an earlier checkpoint at this path is removed: it
/// would describe datasets this file does not have.
void write_sidecar(const std::string& path, const std::string& temporary, const CheckpointRequest& r,
                   const Attributes& attributes) {
  const std::string sidecar = path + ".xmf";
  const auto text = xdmf_text(std::filesystem::path(path).filename().string(), r, attributes);
  if (!text) {
    std::remove(sidecar.c_str());
    return;
  }
  const std::string staged = temporary + ".xmf";
  {
    std::ofstream out(staged, std::ios::trunc);
    out << *text;
    out.flush();
    if (!out) fail(ErrorCode::io, kWhere, ": cannot write the XDMF sidecar '", staged, "': ", std::strerror(errno));
  }
  // Not synced: a sidecar lost in a crash of the node is rewritten by the next save, and costs no data.
  rename_or_fail(staged, sidecar);
}

}  // namespace

void save_checkpoint(const std::string& path, const Attributes& attributes, const CheckpointRequest& request) {
  const QuietHdf5Errors quiet;
  const Communicator& comm = *request.comm;
  collective_step(comm, kWhere, [&] {
    check_names(kWhere, path, request, &attributes);
    check_abort_request(comm);
  });
  check_same_on_every_rank(kWhere, path, request, &attributes);
  const bool root = comm.rank() == 0;
  const std::string temporary = temporary_name(path, comm);
  try {
    write_file(path, temporary, attributes, request);
    abort_if_requested(comm, "before_rename", path);
    collective_step(comm, kWhere, [&] {
      if (!root) return;
      rename_or_fail(temporary, path);
      sync_folder_of(path);
    });
  } catch (const Error&) {
    // Every rank is here (collective_step throws everywhere alike) and the file is closed.
    if (root) std::remove(temporary.c_str());
    throw;
  }
  collective_step(comm, kWhere, [&] {
    if (root) write_sidecar(path, temporary, request, attributes);
  });
}

}  // namespace tessera::io::detail
