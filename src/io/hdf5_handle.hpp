#pragma once
// RAII for HDF5 identifiers and the turning of HDF5 failures into tessera::Error(io) carrying
// HDF5's own messages. Private to src/io: no public header includes <hdf5.h>.
#include <hdf5.h>

#include <string>
#include <string_view>
#include <utility>

namespace tessera::io::detail {

/// Owns one HDF5 identifier and closes it with the matching H5?close. Move-only.
class Hid {
 public:
  using Closer = herr_t (*)(hid_t);
  Hid() = default;
  Hid(hid_t id, Closer closer) noexcept : id_(id), close_(closer) {}
  ~Hid() { reset(); }
  Hid(Hid&& other) noexcept : id_(std::exchange(other.id_, H5I_INVALID_HID)), close_(other.close_) {}
  Hid& operator=(Hid&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, H5I_INVALID_HID);
      close_ = other.close_;
    }
    return *this;
  }
  Hid(const Hid&) = delete;
  Hid& operator=(const Hid&) = delete;

  [[nodiscard]] hid_t get() const noexcept { return id_; }
  /// Closes now; a failure to close is reported (a file close is where data reach the disk).
  void close(std::string_view what);

 private:
  // Destructors run while an error unwinds: a failed close there can only be ignored.
  void reset() noexcept {
    if (id_ >= 0 && close_) close_(id_);
    id_ = H5I_INVALID_HID;
  }
  hid_t id_ = H5I_INVALID_HID;
  Closer close_ = nullptr;
};

/// HDF5's error stack, outermost call first, as one line (the innermost entry usually names the
/// cause: "unable to open file: name = 'x', errno = 2, error message = 'No such file or directory'").
[[nodiscard]] std::string hdf5_error_text();

/// Throws Error(io) "<what> failed: <HDF5's messages>" if `status` is negative.
void check_h5(herr_t status, std::string_view what);
/// Wraps the identifier `id` returned by an H5?create/open call, or throws as `check_h5` does.
[[nodiscard]] Hid checked_id(hid_t id, Hid::Closer close, std::string_view what);

/// While alive, HDF5 does not print its error stack to stderr (tessera reports it in the Error);
/// the previous handler is restored after.
class QuietHdf5Errors {
 public:
  QuietHdf5Errors() noexcept;
  ~QuietHdf5Errors();
  QuietHdf5Errors(const QuietHdf5Errors&) = delete;
  QuietHdf5Errors& operator=(const QuietHdf5Errors&) = delete;

 private:
  H5E_auto2_t old_func_ = nullptr;
  void* old_data_ = nullptr;
};

}  // namespace tessera::io::detail
