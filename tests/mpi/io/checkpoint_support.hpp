#pragma once
// Helpers of the checkpoint tests: element values that are arbitrary bit patterns (NaN payloads,
// negative zeros, denormals: "bit for bit" must mean it), a scratch folder shared by the ranks,
// a serial HDF5 reader that checks files without tessera, and a check that an error is the same
// on every rank.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdlib.h>

#include <complex>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <type_traits>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/geometry.hpp"

namespace tessera::testing {

inline std::uint64_t mix64(std::uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// An arbitrary bit pattern for the element at `p`, different for every `salt`.
template <class T, std::size_t N>
T pattern(const Point<N>& p, std::uint64_t salt) {
  std::uint64_t h = mix64(salt);
  for (std::size_t d = 0; d < N; ++d) h = mix64(h ^ static_cast<std::uint64_t>(p[d]));
  unsigned char bytes[sizeof(T)];
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    if (i % 8 == 0 && i > 0) h = mix64(h);
    bytes[i] = static_cast<unsigned char>(h >> (8 * (i % 8)));
  }
  T v;
  std::memcpy(static_cast<void*>(&v), bytes, sizeof(T));
  return v;
}

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// A fresh folder every rank of `comm` sees (made on rank 0), removed with its files at the end.
class ScratchDir {
 public:
  explicit ScratchDir(MPI_Comm comm) : comm_(comm) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    char name[4096] = {};
    if (rank == 0) {
      std::string pattern = (std::filesystem::temp_directory_path() / "tessera-io-XXXXXX").string();
      if (mkdtemp(pattern.data())) std::strncpy(name, pattern.c_str(), sizeof name - 1);
    }
    MPI_Bcast(name, sizeof name, MPI_CHAR, 0, comm);
    path_ = name;
    EXPECT_FALSE(path_.empty()) << "mkdtemp failed";
  }
  ~ScratchDir() {
    MPI_Barrier(comm_);
    int rank = 0;
    MPI_Comm_rank(comm_, &rank);
    std::error_code ignored;
    if (rank == 0) std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  [[nodiscard]] std::string file(const std::string& name) const { return path_ + "/" + name; }
  [[nodiscard]] const std::string& path() const { return path_; }
  /// Names in the folder that contain `fragment`.
  [[nodiscard]] std::vector<std::string> files_containing(const std::string& fragment) const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(path_))
      if (e.path().filename().string().find(fragment) != std::string::npos) out.push_back(e.path().filename());
    return out;
  }

 private:
  MPI_Comm comm_;
  std::string path_;
};

/// The HDF5 memory type of T, as a new identifier (close it).
template <class T>
hid_t test_hdf5_type() {
  if constexpr (std::is_same_v<T, std::complex<double>>) {
    const hid_t t = H5Tcreate(H5T_COMPOUND, 16);
    H5Tinsert(t, "r", 0, H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "i", 8, H5T_NATIVE_DOUBLE);
    return t;
  } else if constexpr (std::is_same_v<T, double>) return H5Tcopy(H5T_NATIVE_DOUBLE);
  else if constexpr (std::is_same_v<T, float>) return H5Tcopy(H5T_NATIVE_FLOAT);
  else if constexpr (std::is_same_v<T, std::int32_t>) return H5Tcopy(H5T_NATIVE_INT32);
  else if constexpr (std::is_same_v<T, std::int64_t>) return H5Tcopy(H5T_NATIVE_INT64);
  else if constexpr (std::is_same_v<T, std::uint8_t>) return H5Tcopy(H5T_NATIVE_UINT8);
  else static_assert(sizeof(T) == 0, "no HDF5 type for this test type");
}

/// A dataset read serially with plain HDF5 (no tessera): its shape and its elements, row-major.
template <class T>
struct SerialDataset {
  std::vector<hsize_t> shape;
  std::vector<T> values;
  bool ok = false;
};

template <class T>
SerialDataset<T> read_serially(const std::string& path, const std::string& name) {
  SerialDataset<T> out;
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) return out;
  const hid_t dset = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  if (dset >= 0) {
    const hid_t space = H5Dget_space(dset);
    out.shape.resize(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space)));
    H5Sget_simple_extent_dims(space, out.shape.data(), nullptr);
    out.values.resize(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
    const hid_t type = test_hdf5_type<T>();
    out.ok = out.values.empty() || H5Dread(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.values.data()) >= 0;
    H5Tclose(type);
    H5Sclose(space);
    H5Dclose(dset);
  }
  H5Fclose(file);
  return out;
}

/// A string attribute of object `object_name` ("/" for the root group), read serially; "" if absent.
inline std::string read_string_attribute_serially(const std::string& path, const std::string& object_name,
                                                  const std::string& attribute) {
  std::string out;
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) return out;
  const hid_t obj = H5Oopen(file, object_name.c_str(), H5P_DEFAULT);
  if (obj >= 0 && H5Aexists(obj, attribute.c_str()) > 0) {
    const hid_t attr = H5Aopen(obj, attribute.c_str(), H5P_DEFAULT);
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    char* text = nullptr;
    if (H5Aread(attr, type, &text) >= 0 && text) out = text;
    H5free_memory(text);
    H5Tclose(type);
    H5Aclose(attr);
  }
  if (obj >= 0) H5Oclose(obj);
  H5Fclose(file);
  return out;
}

/// An int64 vector attribute read serially; empty if absent.
inline std::vector<std::int64_t> read_int64_attribute_serially(const std::string& path, const std::string& object_name,
                                                               const std::string& attribute) {
  std::vector<std::int64_t> out;
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) return out;
  const hid_t obj = H5Oopen(file, object_name.c_str(), H5P_DEFAULT);
  if (obj >= 0 && H5Aexists(obj, attribute.c_str()) > 0) {
    const hid_t attr = H5Aopen(obj, attribute.c_str(), H5P_DEFAULT);
    const hid_t space = H5Aget_space(attr);
    out.resize(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
    H5Aread(attr, H5T_NATIVE_INT64, out.data());
    H5Sclose(space);
    H5Aclose(attr);
  }
  if (obj >= 0) H5Oclose(obj);
  H5Fclose(file);
  return out;
}

/// Runs `f`, which must throw `Error(code)` whose message contains `fragment`, with the same
/// message on every rank of `comm`.
template <class F>
void expect_same_error_everywhere(MPI_Comm comm, F&& f, ErrorCode code, const std::string& fragment) {
  std::string message;
  int got = -1;
  try {
    f();
  } catch (const Error& e) {
    message = e.what();
    got = static_cast<int>(e.code());
  }
  EXPECT_EQ(got, static_cast<int>(code)) << "message: " << message;
  EXPECT_NE(message.find(fragment), std::string::npos) << "message: " << message;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int length = static_cast<int>(message.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, comm);
  std::string root(static_cast<std::size_t>(length), '\0');
  if (rank == 0) root = message;
  MPI_Bcast(root.data(), length, MPI_CHAR, 0, comm);
  EXPECT_EQ(message, root) << "rank " << rank << " got another message than rank 0";
}

}  // namespace tessera::testing
