#pragma once
// A box-set domain's box table in a checkpoint: the datasets `tessera_boxes` (int64, one row of
// lower and upper corners per box: shape [boxes, 2, N]) and `tessera_box_owners` (int64 [boxes]),
// so that a restart can rebuild the box set and h5py or ParaView users can find the boxes inside
// the dense dataset (docs/checkpoint.md, "Box sets").
#include <string_view>

#include "hdf5_handle.hpp"
#include "tessera/io/checkpoint_request.hpp"

namespace tessera::io::detail {

/// Dataset names of the box table (tessera's own names start with `tessera_`).
inline constexpr const char* kBoxesDataset = "tessera_boxes";
inline constexpr const char* kBoxOwnersDataset = "tessera_box_owners";

/// Collective over the file's communicator: writes `r`'s box table into `file` (rank 0's data;
/// every rank takes part in the collective writes). Nothing for a request without one.
void write_box_table(hid_t file, const CheckpointRequest& r, hid_t transfer, bool writer);

/// Whether `name` is one of tessera's own datasets (not an array: no checksum, not verified).
[[nodiscard]] bool is_tessera_dataset(std::string_view name) noexcept;

}  // namespace tessera::io::detail
