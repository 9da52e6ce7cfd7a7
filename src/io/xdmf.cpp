#include "xdmf.hpp"

#include <iomanip>
#include <sstream>
#include <variant>

namespace tessera::io::detail {

namespace {

/// Text as XML attribute value or character data.
std::string escaped(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

struct XdmfNumber {
  const char* number_type;
  int precision;
};

std::optional<XdmfNumber> xdmf_number(ElementType type) {
  switch (type) {
    case ElementType::int8: return XdmfNumber{"Char", 1};
    case ElementType::uint8: return XdmfNumber{"UChar", 1};
    case ElementType::int16: return XdmfNumber{"Int", 2};
    case ElementType::uint16: return XdmfNumber{"UInt", 2};
    case ElementType::int32: return XdmfNumber{"Int", 4};
    case ElementType::uint32: return XdmfNumber{"UInt", 4};
    case ElementType::int64: return XdmfNumber{"Int", 8};
    case ElementType::uint64: return XdmfNumber{"UInt", 8};
    case ElementType::float32: return XdmfNumber{"Float", 4};
    case ElementType::float64: return XdmfNumber{"Float", 8};
    case ElementType::complex64:
    case ElementType::complex128: return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> xdmf_text(const std::string& h5_name, const CheckpointRequest& request,
                                     const Attributes& attributes) {
  const std::size_t n = request.domain_extents.size();
  if (n != 2 && n != 3) return std::nullopt;
  // XDMF lists dimensions, origin and spacing slowest axis first (z y x), which is the dataset's
  // row-major order: dimension 0 of the array is XDMF's z (3-D) or y (2-D). A 2-D array is shown as
  // a 3-D grid one point thick: ParaView's XDMF reader puts a 2DCoRectMesh in the YZ plane, which
  // its default camera sees edge-on; "1 ny nx" puts it in the XY plane (x = dimension 1).
  std::ostringstream dims, origin, spacing;
  if (n == 2) {
    dims << "1 ";
    origin << "0 ";
    spacing << "1 ";
  }
  for (std::size_t d = 0; d < n; ++d) {
    dims << (d ? " " : "") << request.domain_extents[d];
    origin << (d ? " " : "") << request.domain_lo[d];
    spacing << (d ? " " : "") << 1;
  }
  std::ostringstream x;
  x << "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n<Xdmf Version=\"2.0\">\n  <Domain>\n"
    << "    <Grid Name=\"tessera checkpoint\" GridType=\"Uniform\">\n";
  if (const auto t = attributes.find("time"); t != attributes.end()) {
    std::visit([&](const auto& v) { x << "      <Time Value=\"" << std::setprecision(17) << v << "\"/>\n"; },
               t->second);
  }
  x << "      <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << dims.str() << "\"/>\n"
    << "      <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
    << "        <DataItem Name=\"Origin\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
    << "Format=\"XML\">" << origin.str() << "</DataItem>\n"
    << "        <DataItem Name=\"Spacing\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
    << "Format=\"XML\">" << spacing.str() << "</DataItem>\n"
    << "      </Geometry>\n";
  for (const ArraySelection& a : request.arrays) {
    const auto number = xdmf_number(a.type);
    if (!number) {
      // "--" may not appear inside an XML comment.
      std::string name = escaped(a.name);
      for (std::size_t p = name.find("--"); p != std::string::npos; p = name.find("--")) name.replace(p, 2, "- -");
      x << "      <!-- dataset '" << name << "' (" << to_string(a.type) << ") has no XDMF number type -->\n";
      continue;
    }
    x << "      <Attribute Name=\"" << escaped(a.name) << "\" AttributeType=\"Scalar\" Center=\"Node\">\n"
      << "        <DataItem Dimensions=\"" << dims.str() << "\" NumberType=\"" << number->number_type
      << "\" Precision=\"" << number->precision << "\" Format=\"HDF\">" << escaped(h5_name) << ":/"
      << escaped(a.name) << "</DataItem>\n"
      << "      </Attribute>\n";
  }
  x << "    </Grid>\n  </Domain>\n</Xdmf>\n";
  return x.str();
}

}  // namespace tessera::io::detail
