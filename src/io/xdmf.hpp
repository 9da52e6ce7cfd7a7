#pragma once
// The XDMF sidecar of a checkpoint: a small XML file through which ParaView and VisIt open the
// HDF5 datasets as point data on a structured grid (XDMF 2, 3DCoRectMesh: origin and unit
// spacing; a 2-D array as a grid one point thick in the XY plane).
#include <optional>
#include <string>

#include "tessera/io/attributes.hpp"
#include "tessera/io/checkpoint_request.hpp"

namespace tessera::io::detail {

/// The XDMF text for the arrays of `request` stored in `h5_name` (the checkpoint file's name,
/// relative to the sidecar's folder); nullopt unless the domain has 2 or 3 dimensions. Arrays of
/// complex numbers, which XDMF cannot describe, appear in a comment only. A user attribute `time`
/// becomes the grid's time.
[[nodiscard]] std::optional<std::string> xdmf_text(const std::string& h5_name, const CheckpointRequest& request,
                                                   const Attributes& attributes);

}  // namespace tessera::io::detail
