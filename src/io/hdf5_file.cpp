#include "hdf5_file.hpp"

#include "tessera/core/error.hpp"

namespace tessera::io::detail {

namespace {

Hid parallel_access(MPI_Comm comm) {
  Hid fapl = checked_id(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "H5Pcreate (file access)");
  check_h5(H5Pset_fapl_mpio(fapl.get(), comm, MPI_INFO_NULL), "H5Pset_fapl_mpio");
  // Metadata (attributes, dataset headers) is identical on every rank: with collective metadata
  // operations one rank reads it and broadcasts it, instead of every rank hitting the file system.
  check_h5(H5Pset_all_coll_metadata_ops(fapl.get(), true), "H5Pset_all_coll_metadata_ops");
  check_h5(H5Pset_coll_metadata_write(fapl.get(), true), "H5Pset_coll_metadata_write");
  return fapl;
}

}  // namespace

Hid create_parallel_file(const std::string& path, MPI_Comm comm) {
  const Hid fapl = parallel_access(comm);
  return checked_id(H5Fcreate(path.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl.get()), H5Fclose,
                    tessera::detail::concat("H5Fcreate of '", path, "'"));
}

Hid open_parallel_file(const std::string& path, MPI_Comm comm) {
  const Hid fapl = parallel_access(comm);
  return checked_id(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl.get()), H5Fclose,
                    tessera::detail::concat("H5Fopen of '", path, "'"));
}

Hid collective_transfer() {
  Hid dxpl = checked_id(H5Pcreate(H5P_DATASET_XFER), H5Pclose, "H5Pcreate (transfer)");
  check_h5(H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE), "H5Pset_dxpl_mpio");
  return dxpl;
}

}  // namespace tessera::io::detail
