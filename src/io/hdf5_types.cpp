#include "hdf5_types.hpp"

#include <array>
#include <cstdlib>

#include "tessera/core/error.hpp"

namespace tessera::io::detail {

namespace {

constexpr std::array<ElementType, 12> kAllTypes = {
    ElementType::int8,   ElementType::uint8,  ElementType::int16,   ElementType::uint16,
    ElementType::int32,  ElementType::uint32, ElementType::int64,   ElementType::uint64,
    ElementType::float32, ElementType::float64, ElementType::complex64, ElementType::complex128};

Hid complex_type(hid_t part, std::size_t part_size) {
  Hid t = checked_id(H5Tcreate(H5T_COMPOUND, 2 * part_size), H5Tclose, "H5Tcreate (complex)");
  check_h5(H5Tinsert(t.get(), "r", 0, part), "H5Tinsert (complex, r)");
  check_h5(H5Tinsert(t.get(), "i", part_size, part), "H5Tinsert (complex, i)");
  return t;
}

Hid copy_type(hid_t native) { return checked_id(H5Tcopy(native), H5Tclose, "H5Tcopy"); }

const char* class_name(H5T_class_t c) {
  switch (c) {
    case H5T_INTEGER: return "integer";
    case H5T_FLOAT: return "float";
    case H5T_STRING: return "string";
    case H5T_BITFIELD: return "bitfield";
    case H5T_OPAQUE: return "opaque";
    case H5T_COMPOUND: return "compound";
    case H5T_REFERENCE: return "reference";
    case H5T_ENUM: return "enum";
    case H5T_VLEN: return "variable-length";
    case H5T_ARRAY: return "array";
    default: return "unknown";
  }
}

Hid scalar_space() { return checked_id(H5Screate(H5S_SCALAR), H5Sclose, "H5Screate (scalar)"); }

Hid create_attribute(hid_t object, const std::string& name, hid_t type, hid_t space) {
  return checked_id(H5Acreate2(object, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                    tessera::detail::concat("H5Acreate2 of attribute '", name, "'"));
}

/// The attribute `name` of `object`, or an invalid Hid if there is none.
Hid open_attribute(hid_t object, const std::string& name) {
  const htri_t exists = H5Aexists(object, name.c_str());
  check_h5(exists, tessera::detail::concat("H5Aexists of attribute '", name, "'"));
  if (exists == 0) return {};
  return checked_id(H5Aopen(object, name.c_str(), H5P_DEFAULT), H5Aclose,
                    tessera::detail::concat("H5Aopen of attribute '", name, "'"));
}

}  // namespace

Hid hdf5_type(ElementType type) {
  switch (type) {
    case ElementType::int8: return copy_type(H5T_NATIVE_INT8);
    case ElementType::uint8: return copy_type(H5T_NATIVE_UINT8);
    case ElementType::int16: return copy_type(H5T_NATIVE_INT16);
    case ElementType::uint16: return copy_type(H5T_NATIVE_UINT16);
    case ElementType::int32: return copy_type(H5T_NATIVE_INT32);
    case ElementType::uint32: return copy_type(H5T_NATIVE_UINT32);
    case ElementType::int64: return copy_type(H5T_NATIVE_INT64);
    case ElementType::uint64: return copy_type(H5T_NATIVE_UINT64);
    case ElementType::float32: return copy_type(H5T_NATIVE_FLOAT);
    case ElementType::float64: return copy_type(H5T_NATIVE_DOUBLE);
    case ElementType::complex64: return complex_type(H5T_NATIVE_FLOAT, sizeof(float));
    case ElementType::complex128: return complex_type(H5T_NATIVE_DOUBLE, sizeof(double));
  }
  fail(ErrorCode::internal, "tessera::io: element type ", static_cast<int>(type), " has no HDF5 type");
}

std::string describe_hdf5_type(hid_t type) {
  for (const ElementType e : kAllTypes) {
    const Hid candidate = hdf5_type(e);
    if (H5Tequal(type, candidate.get()) > 0) return to_string(e);
  }
  const H5T_class_t c = H5Tget_class(type);
  return tessera::detail::concat("an HDF5 ", class_name(c), " type of ", H5Tget_size(type), " bytes");
}

void write_string_attribute(hid_t object, const std::string& name, const std::string& value) {
  Hid type = copy_type(H5T_C_S1);
  check_h5(H5Tset_size(type.get(), H5T_VARIABLE), "H5Tset_size");
  check_h5(H5Tset_cset(type.get(), H5T_CSET_UTF8), "H5Tset_cset");
  const Hid space = scalar_space();
  const Hid attr = create_attribute(object, name, type.get(), space.get());
  const char* text = value.c_str();
  check_h5(H5Awrite(attr.get(), type.get(), &text), tessera::detail::concat("H5Awrite of attribute '", name, "'"));
}

void write_int64_attribute(hid_t object, const std::string& name, const std::vector<std::int64_t>& values) {
  const hsize_t n = values.size();
  const Hid space = checked_id(H5Screate_simple(1, &n, nullptr), H5Sclose, "H5Screate_simple");
  const Hid attr = create_attribute(object, name, H5T_NATIVE_INT64, space.get());
  check_h5(H5Awrite(attr.get(), H5T_NATIVE_INT64, values.data()),
           tessera::detail::concat("H5Awrite of attribute '", name, "'"));
}

void write_user_attribute(hid_t object, const std::string& name, const AttributeValue& value) {
  const Hid space = scalar_space();
  const hid_t type = std::holds_alternative<std::int64_t>(value) ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE;
  const Hid attr = create_attribute(object, name, type, space.get());
  const void* data = std::visit([](const auto& v) { return static_cast<const void*>(&v); }, value);
  check_h5(H5Awrite(attr.get(), type, data), tessera::detail::concat("H5Awrite of attribute '", name, "'"));
}

std::optional<std::string> read_string_attribute(hid_t object, const std::string& name) {
  const Hid attr = open_attribute(object, name);
  if (attr.get() < 0) return std::nullopt;
  const Hid stored = checked_id(H5Aget_type(attr.get()), H5Tclose, "H5Aget_type");
  if (H5Tget_class(stored.get()) != H5T_STRING)
    fail(ErrorCode::mismatch, "attribute '", name, "' is ", describe_hdf5_type(stored.get()), ", not a string");
  const std::string what = tessera::detail::concat("H5Aread of attribute '", name, "'");
  if (H5Tis_variable_str(stored.get()) > 0) {
    Hid type = copy_type(H5T_C_S1);
    check_h5(H5Tset_size(type.get(), H5T_VARIABLE), "H5Tset_size");
    check_h5(H5Tset_cset(type.get(), H5Tget_cset(stored.get())), "H5Tset_cset");
    char* text = nullptr;
    check_h5(H5Aread(attr.get(), type.get(), &text), what);
    std::string out = text ? text : "";
    H5free_memory(text);
    return out;
  }
  const std::size_t size = H5Tget_size(stored.get());
  std::string out(size, '\0');
  check_h5(H5Aread(attr.get(), stored.get(), out.data()), what);
  out.resize(out.find('\0') == std::string::npos ? size : out.find('\0'));
  return out;
}

std::optional<std::vector<std::int64_t>> read_int64_attribute(hid_t object, const std::string& name) {
  const Hid attr = open_attribute(object, name);
  if (attr.get() < 0) return std::nullopt;
  const Hid stored = checked_id(H5Aget_type(attr.get()), H5Tclose, "H5Aget_type");
  if (H5Tget_class(stored.get()) != H5T_INTEGER)
    fail(ErrorCode::mismatch, "attribute '", name, "' is ", describe_hdf5_type(stored.get()), ", not integers");
  const Hid space = checked_id(H5Aget_space(attr.get()), H5Sclose, "H5Aget_space");
  const hssize_t n = H5Sget_simple_extent_npoints(space.get());
  check_h5(static_cast<herr_t>(n < 0 ? -1 : 0), "H5Sget_simple_extent_npoints");
  std::vector<std::int64_t> values(static_cast<std::size_t>(n));
  check_h5(H5Aread(attr.get(), H5T_NATIVE_INT64, values.data()),
           tessera::detail::concat("H5Aread of attribute '", name, "'"));
  return values;
}

Attributes read_user_attributes(hid_t object) {
  H5O_info_t info;
  check_h5(H5Oget_info2(object, &info, H5O_INFO_NUM_ATTRS), "H5Oget_info2");
  Attributes out;
  for (hsize_t i = 0; i < info.num_attrs; ++i) {
    const Hid attr = checked_id(H5Aopen_by_idx(object, ".", H5_INDEX_NAME, H5_ITER_INC, i, H5P_DEFAULT, H5P_DEFAULT),
                                H5Aclose, "H5Aopen_by_idx");
    const ssize_t length = H5Aget_name(attr.get(), 0, nullptr);
    check_h5(static_cast<herr_t>(length < 0 ? -1 : 0), "H5Aget_name");
    std::string name(static_cast<std::size_t>(length) + 1, '\0');
    check_h5(static_cast<herr_t>(H5Aget_name(attr.get(), name.size(), name.data()) < 0 ? -1 : 0), "H5Aget_name");
    name.resize(static_cast<std::size_t>(length));
    if (name.starts_with(reserved_attribute_prefix)) continue;
    const Hid space = checked_id(H5Aget_space(attr.get()), H5Sclose, "H5Aget_space");
    if (H5Sget_simple_extent_npoints(space.get()) != 1) continue;
    const Hid type = checked_id(H5Aget_type(attr.get()), H5Tclose, "H5Aget_type");
    const std::string what = tessera::detail::concat("H5Aread of attribute '", name, "'");
    if (H5Tget_class(type.get()) == H5T_INTEGER) {
      std::int64_t v = 0;
      check_h5(H5Aread(attr.get(), H5T_NATIVE_INT64, &v), what);
      out.emplace(std::move(name), v);
    } else if (H5Tget_class(type.get()) == H5T_FLOAT) {
      double v = 0;
      check_h5(H5Aread(attr.get(), H5T_NATIVE_DOUBLE, &v), what);
      out.emplace(std::move(name), v);
    }
  }
  return out;
}

std::vector<std::string> link_names(hid_t group) {
  H5G_info_t info;
  check_h5(H5Gget_info(group, &info), "H5Gget_info");
  std::vector<std::string> names;
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    const ssize_t length = H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
    check_h5(static_cast<herr_t>(length < 0 ? -1 : 0), "H5Lget_name_by_idx");
    std::string name(static_cast<std::size_t>(length) + 1, '\0');
    H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(), name.size(), H5P_DEFAULT);
    name.resize(static_cast<std::size_t>(length));
    names.push_back(std::move(name));
  }
  return names;
}

}  // namespace tessera::io::detail
