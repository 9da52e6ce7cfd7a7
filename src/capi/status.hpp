#pragma once
// Status codes and error messages of the C API: every exported function runs its body inside
// `guarded`, which turns any exception into a `tessera_status` and this thread's last-error
// message, so that no C++ exception crosses the C boundary.

#include <exception>
#include <string>
#include <utility>

#include "tessera.h"
#include "tessera/core/error.hpp"

namespace tessera::capi {

/// A failure the C layer detects itself: a bad handle, a wrong element type, a call out of order.
/// Carries the C status directly (tessera::Error carries a tessera::ErrorCode instead).
class CApiError : public std::exception {
 public:
  CApiError(tessera_status status, std::string message) : status_(status), message_(std::move(message)) {}
  [[nodiscard]] tessera_status status() const noexcept { return status_; }
  [[nodiscard]] const char* what() const noexcept override { return message_.c_str(); }

 private:
  tessera_status status_;
  std::string message_;
};

/// Throws `CApiError(status)` with a message assembled from `parts`.
template <class... Parts>
[[noreturn]] void fail_c(tessera_status status, const Parts&... parts) {
  throw CApiError(status, tessera::detail::concat(parts...));
}

/// Records `message` as this thread's last error and returns `status`.
tessera_status record_failure(tessera_status status, std::string message) noexcept;

/// The status of the exception being handled (call only inside a catch block); records its
/// message, prefixed by `where` (the C function), as the last error.
tessera_status translate_current_exception(const char* where) noexcept;

/// The C status a C++ error code maps to (the same number: tessera.h mirrors tessera::ErrorCode).
[[nodiscard]] tessera_status status_of(ErrorCode code) noexcept;

/// Runs `body`; any exception becomes a status and a last-error message.
template <class Body>
tessera_status guarded(const char* where, Body&& body) noexcept {
  try {
    body();
    return TESSERA_OK;
  } catch (...) {
    return translate_current_exception(where);
  }
}

/// Throws `CApiError(TESSERA_ERR_INVALID_ARGUMENT)` naming `argument` if `pointer` is null.
inline void require_pointer(const char* argument, const void* pointer) {
  if (pointer == nullptr) fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument '", argument, "' = NULL must point to memory");
}

}  // namespace tessera::capi
