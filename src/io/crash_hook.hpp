#pragma once
// The test hook that proves saves are atomic: with the environment variable
// TESSERA_TEST_ABORT_IN_SAVE=<point>[:<rank>] set, rank <rank> (default 0) calls MPI_Abort when a
// save reaches <point>, killing the run mid-save the way a node failure or a batch time limit would.
//   after_create   the temporary file exists, no dataset is written
//   after_data     every dataset is written, the file is not closed
//   before_rename  the file is complete and closed, not yet renamed to the checkpoint's path
// Meant for tests only; unset, it costs one getenv per save.
#include <string>
#include <string_view>

#include "tessera/exchange/communicator.hpp"

namespace tessera::io::detail {

inline constexpr const char* abort_in_save_variable = "TESSERA_TEST_ABORT_IN_SAVE";

/// Throws Error(invalid_argument) naming the variable and its value if it is set to something
/// other than a known point, optionally followed by ':' and a rank of `comm`.
void check_abort_request(const Communicator& comm);

/// MPI_Abort here if the variable names `point` and this rank.
void abort_if_requested(const Communicator& comm, std::string_view point, const std::string& path);

}  // namespace tessera::io::detail
