#pragma once
// HDF5 types of checkpoint elements, and attribute reading and writing on HDF5 objects.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hdf5_handle.hpp"
#include "tessera/io/attributes.hpp"
#include "tessera/io/element_type.hpp"

namespace tessera::io::detail {

/// The in-memory (and in-file) HDF5 type of `type`: the native integer and float types, and for
/// complex numbers the compound {r, i} that h5py maps onto NumPy complex.
[[nodiscard]] Hid hdf5_type(ElementType type);

/// `float64`, `int32`, ... if `type` is the HDF5 type of an ElementType; otherwise a description
/// such as "an HDF5 string type of 8 bytes".
[[nodiscard]] std::string describe_hdf5_type(hid_t type);

/// A scalar UTF-8 string attribute `name` = `value` on `object`.
void write_string_attribute(hid_t object, const std::string& name, const std::string& value);
/// A 1-D int64 attribute `name` = `values` on `object`.
void write_int64_attribute(hid_t object, const std::string& name, const std::vector<std::int64_t>& values);
/// A scalar attribute of a user value (int64 or float64).
void write_user_attribute(hid_t object, const std::string& name, const AttributeValue& value);

/// The string attribute `name` of `object` (fixed or variable length), or nullopt if absent.
[[nodiscard]] std::optional<std::string> read_string_attribute(hid_t object, const std::string& name);
/// The integer attribute `name` of `object` as int64 values, or nullopt if absent.
[[nodiscard]] std::optional<std::vector<std::int64_t>> read_int64_attribute(hid_t object, const std::string& name);
/// Every attribute of `object` that is a single integer or real and whose name does not start with
/// `tessera_`: what `save` wrote from the user's Attributes (integers as int64, reals as double).
[[nodiscard]] Attributes read_user_attributes(hid_t object);

/// The names of the links in group `group` (the datasets of a checkpoint), in name order.
[[nodiscard]] std::vector<std::string> link_names(hid_t group);

}  // namespace tessera::io::detail
