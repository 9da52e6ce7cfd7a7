#pragma once
// The names of what tessera writes into a checkpoint file (docs/checkpoint.md describes them).
namespace tessera::io::detail {

/// Root-group attribute `tessera_format`: which layout the file follows. Bumped on incompatible changes.
inline constexpr const char* kFormat = "tessera-checkpoint 1";

// Root-group attributes (the domain and its distribution at save time).
inline constexpr const char* kFormatAttribute = "tessera_format";
inline constexpr const char* kDomainLoAttribute = "tessera_domain_lo";
inline constexpr const char* kDistributionAttribute = "tessera_distribution";
inline constexpr const char* kGridShapeAttribute = "tessera_grid_shape";
inline constexpr const char* kRanksAttribute = "tessera_ranks";
/// A box-set domain's box (lower then upper corner), beside its box table (src/io/box_table.hpp).
inline constexpr const char* kBoxDomainAttribute = "tessera_box_domain";

// Attributes of each dataset.
inline constexpr const char* kElementTypeAttribute = "element_type";
inline constexpr const char* kGhostsAttribute = "ghosts";
inline constexpr const char* kGhostLowerAttribute = "ghost_lower";
inline constexpr const char* kGhostUpperAttribute = "ghost_upper";

}  // namespace tessera::io::detail
