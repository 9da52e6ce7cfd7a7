#pragma once
// The exit statuses every subcommand of `tessera` returns, and the error that means "the user asked
// for something that cannot be" (status 2) as opposed to "it failed while doing it" (status 1).
#include <stdexcept>
#include <string>

#include "tessera/core/error.hpp"

namespace tessera_tool {

enum ExitStatus : int {
  exit_ok = 0,       ///< done
  exit_failure = 1,  ///< a runtime failure: a file not written, a child program that failed
  exit_usage = 2,    ///< bad usage: an unknown option, a bad SPEC, a rank that does not exist
};

/// Bad usage detected by the tool itself (not by CLI11 or the spec parser): exit status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A runtime failure (exit status 1) with a message for the user.
class RuntimeFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The status for a library error: the input's fault (a bad spec, an index outside the domain, a
/// domain whose volume does not fit in 64 bits) is usage; anything else is a failure.
inline ExitStatus status_of(const tessera::Error& e) {
  switch (e.code()) {
    case tessera::ErrorCode::invalid_argument:
    case tessera::ErrorCode::out_of_range:
    case tessera::ErrorCode::overflow:
      return exit_usage;
    default:
      return exit_failure;
  }
}

}  // namespace tessera_tool
