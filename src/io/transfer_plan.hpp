#pragma once
// This rank's share of one collective H5Dwrite or H5Dread of one array: a file selection (the
// owned global indices, as hyperslabs) and a memory selection that lists the same elements in
// the same (row-major global) order.
//
// One row-major patch (every dimensional distribution): the memory selection is the owned box of
// the patch inside its ghosted storage, read and written in place. A column-major patch cannot be
// described to HDF5 that way (it pairs elements in the row-major order of the memory space), so
// its owned elements are copied to and from a staging buffer in file order, one strided row along
// the last axis at a time: the dataset stays in global row-major order whatever the local order.
// Several patches (user-defined
// distributions): HDF5 pairs memory and file elements in the row-major order of each space, and
// the patches' rows interleave in the file, so their rows are copied to and from one staging
// buffer in file order; the copy is local and costs a memcpy of the rank's data, against one
// collective call per patch otherwise.
#include <cstddef>
#include <string_view>
#include <vector>

#include "hdf5_handle.hpp"
#include "tessera/io/checkpoint_request.hpp"

namespace tessera::io::detail {

class TransferPlan {
 public:
  /// Selections for `array` in a dataset of `request.domain_extents`. `where` names the caller in
  /// errors.
  TransferPlan(const CheckpointRequest& request, const ArraySelection& array, std::string_view where);

  [[nodiscard]] hid_t file_space() const noexcept { return file_space_.get(); }
  [[nodiscard]] hid_t memory_space() const noexcept { return memory_space_.get(); }
  /// The buffer to hand H5Dwrite (packs the staging buffer first when there is one).
  [[nodiscard]] const void* prepare_write();
  /// The buffer to hand H5Dread; call `finish_read` after.
  [[nodiscard]] void* read_buffer() noexcept;
  /// Copies a staged read into the patches.
  void finish_read();

 private:
  struct Row {  // one row of a patch (owned elements along the last axis) in the staging buffer
    std::byte* memory;        // its first element
    std::size_t count;        // elements
    std::ptrdiff_t stride;    // bytes from one element to the next (the element size: contiguous)
  };
  void select_file(const ArraySelection& array);
  [[nodiscard]] bool select_patch_in_place(const PatchSelection& patch);
  void stage_rows(const ArraySelection& array, std::string_view where);
  void stage_patch(const PatchSelection& patch);
  [[nodiscard]] Row strided_row(const PatchSelection& patch, index_t offset) const;
  void finish_staging();

  std::size_t rank_ = 0;  // dimensions
  std::size_t element_size_ = 0;

  Hid file_space_, memory_space_;
  void* in_place_ = nullptr;       // one patch: the patch's element at local (0, ..., 0)
  std::vector<std::byte> staging_;  // staged patches: the owned elements in file order
  std::vector<Row> rows_;
};

}  // namespace tessera::io::detail
