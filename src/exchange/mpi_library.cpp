#include "mpi_library.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstring>

namespace tessera::detail {

namespace {

// "MPICH Version:\t4.0.2\n..." -> {4, 0, 2}; false for any other library (Open MPI, Intel MPI and
// other MPICH derivatives print their own names first).
bool mpich_version(int& major, int& minor, int& patch) {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  if (MPI_Get_library_version(text, &length) != MPI_SUCCESS) return false;
  constexpr const char* prefix = "MPICH Version:";
  if (std::strncmp(text, prefix, std::strlen(prefix)) != 0) return false;
  major = minor = patch = 0;
  return std::sscanf(text + std::strlen(prefix), " %d.%d.%d", &major, &minor, &patch) >= 2;
}

}  // namespace

bool neighborhood_alltoallw_works() {
  static const bool works = [] {
    int major = 0, minor = 0, patch = 0;
    if (!mpich_version(major, minor, patch)) return true;
    return !(major == 4 && minor == 0 && patch <= 2);
  }();
  return works;
}

}  // namespace tessera::detail
