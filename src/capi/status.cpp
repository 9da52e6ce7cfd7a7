#include "status.hpp"

#include <new>
#include <string>

namespace tessera::capi {

namespace {
// One message per thread, so that threads calling tessera on different objects do not read each
// other's errors.
thread_local std::string last_error;
}  // namespace

tessera_status record_failure(tessera_status status, std::string message) noexcept {
  try {
    last_error = std::move(message);
  } catch (...) {
    last_error.clear();  // out of memory while copying the message: keep the status at least
  }
  return status;
}

tessera_status status_of(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::invalid_argument:
      return TESSERA_ERR_INVALID_ARGUMENT;
    case ErrorCode::out_of_range:
      return TESSERA_ERR_OUT_OF_RANGE;
    case ErrorCode::overflow:
      return TESSERA_ERR_OVERFLOW;
    case ErrorCode::mismatch:
      return TESSERA_ERR_MISMATCH;
    case ErrorCode::mpi:
      return TESSERA_ERR_MPI;
    case ErrorCode::io:
      return TESSERA_ERR_IO;
    case ErrorCode::internal:
      return TESSERA_ERR_INTERNAL;
    case ErrorCode::out_of_memory:
      return TESSERA_ERR_OUT_OF_MEMORY;
  }
  return TESSERA_ERR_INTERNAL;
}

tessera_status translate_current_exception(const char* where) noexcept {
  const std::string prefix = std::string(where) + ": ";
  try {
    throw;
  } catch (const CApiError& e) {
    return record_failure(e.status(), prefix + e.what());
  } catch (const Error& e) {
    return record_failure(status_of(e.code()), prefix + e.what());
  } catch (const std::bad_alloc&) {
    return record_failure(TESSERA_ERR_OUT_OF_MEMORY, prefix + "out of memory");
  } catch (const std::exception& e) {
    // Not a tessera::Error: a failure tessera did not anticipate.
    return record_failure(TESSERA_ERR_INTERNAL, prefix + "unexpected C++ exception: " + e.what());
  } catch (...) {
    return record_failure(TESSERA_ERR_INTERNAL, prefix + "unexpected exception of unknown type");
  }
}

}  // namespace tessera::capi

extern "C" const char* tessera_last_error(void) { return tessera::capi::last_error.c_str(); }

extern "C" const char* tessera_status_name(tessera_status status) {
  switch (status) {
    case TESSERA_OK:
      return "TESSERA_OK";
    case TESSERA_ERR_INVALID_ARGUMENT:
      return "TESSERA_ERR_INVALID_ARGUMENT";
    case TESSERA_ERR_OUT_OF_RANGE:
      return "TESSERA_ERR_OUT_OF_RANGE";
    case TESSERA_ERR_OVERFLOW:
      return "TESSERA_ERR_OVERFLOW";
    case TESSERA_ERR_MISMATCH:
      return "TESSERA_ERR_MISMATCH";
    case TESSERA_ERR_MPI:
      return "TESSERA_ERR_MPI";
    case TESSERA_ERR_IO:
      return "TESSERA_ERR_IO";
    case TESSERA_ERR_INTERNAL:
      return "TESSERA_ERR_INTERNAL";
    case TESSERA_ERR_NULL_HANDLE:
      return "TESSERA_ERR_NULL_HANDLE";
    case TESSERA_ERR_FREED_HANDLE:
      return "TESSERA_ERR_FREED_HANDLE";
    case TESSERA_ERR_INVALID_HANDLE:
      return "TESSERA_ERR_INVALID_HANDLE";
    case TESSERA_ERR_WRONG_TYPE:
      return "TESSERA_ERR_WRONG_TYPE";
    case TESSERA_ERR_CALL_ORDER:
      return "TESSERA_ERR_CALL_ORDER";
    case TESSERA_ERR_OUT_OF_MEMORY:
      return "TESSERA_ERR_OUT_OF_MEMORY";
    default:  // the *_ENUM_ sentinels and any other int leave the switch unhandled
      break;
  }
  return "unknown tessera_status";
}
