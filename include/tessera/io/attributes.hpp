#pragma once
/// \file
/// `Attributes`: the small map of user values a checkpoint carries beside its arrays (iteration
/// number, simulated time, ...). Each becomes a scalar HDF5 attribute of the file's root group,
/// under its own name, so that `h5py.File(path).attrs["iteration"]` reads it.
/// \code
///   tessera::io::Attributes attrs{{"iteration", std::int64_t{1200}}, {"time", 0.75}};
///   std::get<std::int64_t>(attrs.at("iteration"));
/// \endcode
/// Names starting with `tessera_` are reserved for tessera's own attributes.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>

namespace tessera::io {

/// A user attribute: an integer (stored as int64) or a real (stored as float64).
using AttributeValue = std::variant<std::int64_t, double>;

/// User attributes by name.
using Attributes = std::map<std::string, AttributeValue, std::less<>>;

/// The prefix of the root-group attributes tessera writes itself; user names may not start with it.
inline constexpr std::string_view reserved_attribute_prefix = "tessera_";

}  // namespace tessera::io
