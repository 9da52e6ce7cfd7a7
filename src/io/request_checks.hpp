#pragma once
// Checks of a save or load request that come before any file is touched: names, and whether every
// rank asked for the same thing (a rank that passes another path or other arrays would otherwise
// wait forever in a collective HDF5 call the others never make).
#include <string>
#include <string_view>

#include "tessera/io/attributes.hpp"
#include "tessera/io/checkpoint_request.hpp"

namespace tessera::io::detail {

/// Throws Error(invalid_argument) naming the argument for an empty path, a dataset name that is
/// empty, ".", contains '/' or a NUL or appears twice, and (when `attributes` is given) an
/// attribute name that is empty or starts with "tessera_".
void check_names(std::string_view where, const std::string& path, const CheckpointRequest& request,
                 const Attributes* attributes);

/// Collective: throws Error(mismatch) on every rank if some rank's path, dataset names, element
/// types or attributes differ from rank 0's.
void check_same_on_every_rank(std::string_view where, const std::string& path, const CheckpointRequest& request,
                              const Attributes* attributes);

}  // namespace tessera::io::detail
