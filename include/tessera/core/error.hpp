#pragma once
/// \file
/// The one exception type tessera throws, and helpers that build its messages.
///
/// Every public entry point reports bad input as a `tessera::Error` whose message names the
/// argument and the value, e.g. `Box::volume: extent of dimension 1 is 9223372036854775807,
/// the volume does not fit in 64 bits`. The error code lets the C API map an exception onto a
/// status without parsing text.

#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tessera {

/// Why an operation failed. Stable numbering: the C API exposes these values.
enum class ErrorCode : int {
  invalid_argument = 1,  ///< an argument is malformed (non-monotone cuts, negative width, ...)
  out_of_range = 2,      ///< an index or box lies outside the domain it must lie in
  overflow = 3,          ///< a volume or offset does not fit in 64 bits
  mismatch = 4,          ///< ranks disagree, or two objects that must match do not
  mpi = 5,               ///< MPI reported an error; the message carries MPI's error string
  io = 6,                ///< a file could not be read or written
  internal = 7,          ///< a broken invariant inside tessera: a bug, please report it
  out_of_memory = 8,     ///< an allocation failed; the message names the operation and the bytes
};

/// The exception every tessera function throws for a failure it can name.
class Error : public std::runtime_error {
 public:
  /// An error of kind `code` with its message.
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}

  /// What kind of failure this is.
  [[nodiscard]] ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

namespace detail {

/// Streams any number of values into one string: `concat("width ", w, " < 0")`.
template <class... Parts>
[[nodiscard]] std::string concat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

}  // namespace detail

/// Throws `Error(invalid_argument)` naming the function, the argument and its value.
/// \code
///   fail_argument("ghosts", "width", -1, "must be >= 0");
///   // -> "ghosts: argument 'width' = -1 must be >= 0"
/// \endcode
template <class Value>
[[noreturn]] void fail_argument(std::string_view where, std::string_view argument, const Value& value,
                                std::string_view why) {
  throw Error(ErrorCode::invalid_argument,
              detail::concat(where, ": argument '", argument, "' = ", value, " ", why));
}

/// Throws `Error(code)` with a message assembled from `parts`.
template <class... Parts>
[[noreturn]] void fail(ErrorCode code, const Parts&... parts) {
  throw Error(code, detail::concat(parts...));
}

}  // namespace tessera
