#include "hdf5_handle.hpp"

#include <vector>

#include "tessera/core/error.hpp"

namespace tessera::io::detail {

namespace {

herr_t collect_entry(unsigned, const H5E_error2_t* entry, void* out) {
  auto& lines = *static_cast<std::vector<std::string>*>(out);
  std::string line = entry->desc ? entry->desc : "";
  if (entry->func_name) line += std::string(" (") + entry->func_name + ")";
  lines.push_back(std::move(line));
  return 0;
}

}  // namespace

std::string hdf5_error_text() {
  std::vector<std::string> lines;
  const hid_t stack = H5Eget_current_stack();  // also clears the library's stack
  if (stack < 0) return "no HDF5 error message";
  H5Ewalk2(stack, H5E_WALK_DOWNWARD, collect_entry, &lines);
  H5Eclose_stack(stack);
  if (lines.empty()) return "no HDF5 error message";
  // The outermost entry says what failed, the innermost why; the ones between repeat them.
  if (lines.size() == 1) return lines.front();
  return lines.front() + " <- " + lines.back();
}

void check_h5(herr_t status, std::string_view what) {
  if (status < 0) fail(ErrorCode::io, what, " failed: ", hdf5_error_text());
}

Hid checked_id(hid_t id, Hid::Closer close, std::string_view what) {
  if (id < 0) fail(ErrorCode::io, what, " failed: ", hdf5_error_text());
  return Hid(id, close);
}

void Hid::close(std::string_view what) {
  const hid_t id = std::exchange(id_, H5I_INVALID_HID);
  if (id >= 0 && close_) check_h5(close_(id), what);
}

QuietHdf5Errors::QuietHdf5Errors() noexcept {
  H5Eget_auto2(H5E_DEFAULT, &old_func_, &old_data_);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

QuietHdf5Errors::~QuietHdf5Errors() { H5Eset_auto2(H5E_DEFAULT, old_func_, old_data_); }

}  // namespace tessera::io::detail
