#include "crash_hook.hpp"

#include <array>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "tessera/core/error.hpp"
#include "tessera/exchange/communicator.hpp"

namespace tessera::io::detail {

namespace {

constexpr std::array<std::string_view, 3> kPoints = {"after_create", "after_data", "before_rename"};

struct AbortRequest {
  std::string_view point;
  int rank = 0;
};

/// The parsed variable; nullopt if unset or empty. Throws for a malformed value.
std::optional<AbortRequest> abort_request(int comm_size) {
  const char* raw = std::getenv(abort_in_save_variable);
  if (!raw || !*raw) return std::nullopt;
  const std::string_view value(raw);
  AbortRequest r;
  const auto colon = value.find(':');
  r.point = value.substr(0, colon);
  bool ok = false;
  for (const auto p : kPoints) ok = ok || p == r.point;
  if (ok && colon != std::string_view::npos) {
    const std::string_view digits = value.substr(colon + 1);
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), r.rank);
    ok = ec == std::errc() && end == digits.data() + digits.size() && r.rank >= 0 && r.rank < comm_size;
  }
  if (!ok)
    fail_argument("tessera::io::save", abort_in_save_variable, value,
                  tessera::detail::concat("must be after_create, after_data or before_rename, optionally followed by",
                                          " ':' and a rank below ", comm_size));
  return r;
}

}  // namespace

void check_abort_request(const Communicator& comm) { (void)abort_request(comm.size()); }

void abort_if_requested(const Communicator& comm, std::string_view point, const std::string& path) {
  const auto request = abort_request(comm.size());
  if (!request || request->point != point) return;
  const int rank = comm.rank();
  if (rank != request->rank) return;
  std::fprintf(stderr, "tessera: %s=%s: rank %d aborts the run during the save of '%s'\n", abort_in_save_variable,
               std::getenv(abort_in_save_variable), rank, path.c_str());
  std::fflush(stderr);
  // The one raw MPI call io keeps besides HDF5's MPI-IO: killing the run is what this hook is for.
  MPI_Abort(MPI_COMM_WORLD, 75);
  std::abort();  // MPI_Abort does not return
}

}  // namespace tessera::io::detail
