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

/// Numbers of the domain's axes in XDMF's order (slowest first, which is the dataset's row-major
/// order), a 2-D list led by `thin`: the value of the axis that makes a 2-D array a grid one point
/// thick (see xdmf_text).
template <class F>
std::string axis_list(std::size_t n, const std::string& thin, F&& value) {
  std::ostringstream out;
  out << std::setprecision(17);  // integers print as they are; a box's origin lo - 1/2 exactly
  if (n == 2) out << thin << ' ';
  for (std::size_t d = 0; d < n; ++d) out << (d ? " " : "") << value(d);
  return out.str();
}

/// A grid's <Topology> and <Geometry>: `dims` points from `origin`, spacing 1.
void write_mesh(std::ostringstream& x, const std::string& indent, const std::string& dims, const std::string& origin,
                std::size_t n) {
  x << indent << "<Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << dims << "\"/>\n"
    << indent << "<Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
    << indent << "  <DataItem Name=\"Origin\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
    << "Format=\"XML\">" << origin << "</DataItem>\n"
    << indent << "  <DataItem Name=\"Spacing\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
    << "Format=\"XML\">" << axis_list(n, "1", [](std::size_t) { return 1; }) << "</DataItem>\n"
    << indent << "</Geometry>\n";
}

void write_time(std::ostringstream& x, const std::string& indent, const Attributes& attributes) {
  if (const auto t = attributes.find("time"); t != attributes.end()) {
    std::visit([&](const auto& v) { x << indent << "<Time Value=\"" << std::setprecision(17) << v << "\"/>\n"; },
               t->second);
  }
}

/// The comment standing for a dataset XDMF has no number type for.
void write_skipped(std::ostringstream& x, const std::string& indent, const ArraySelection& a) {
  // "--" may not appear inside an XML comment.
  std::string name = escaped(a.name);
  for (std::size_t p = name.find("--"); p != std::string::npos; p = name.find("--")) name.replace(p, 2, "- -");
  x << indent << "<!-- dataset '" << name << "' (" << to_string(a.type) << ") has no XDMF number type -->\n";
}

/// The DataItem of a whole dataset, as `dims` values.
void write_dataset_item(std::ostringstream& x, const std::string& indent, const std::string& dims,
                        const XdmfNumber& number, const std::string& h5_name, const ArraySelection& a) {
  x << indent << "<DataItem Dimensions=\"" << dims << "\" NumberType=\"" << number.number_type << "\" Precision=\""
    << number.precision << "\" Format=\"HDF\">" << escaped(h5_name) << ":/" << escaped(a.name) << "</DataItem>\n";
}

/// Box sets of more boxes get the one grid of the domain box: a grid per box costs about a
/// kilobyte of XML per box and array, and ParaView reads each as a block of its own.
constexpr std::size_t kMaxBoxGrids = 10000;

}  // namespace

std::optional<std::string> xdmf_text(const std::string& h5_name, const CheckpointRequest& request,
                                     const Attributes& attributes) {
  const std::size_t n = request.domain_extents.size();
  if (n != 2 && n != 3) return std::nullopt;
  // XDMF lists dimensions, origin and spacing slowest axis first (z y x), which is the dataset's
  // row-major order: dimension 0 of the array is XDMF's z (3-D) or y (2-D). A 2-D array is shown as
  // a 3-D grid one point thick: ParaView's XDMF reader puts a 2DCoRectMesh in the YZ plane, which
  // its default camera sees edge-on; "1 ny nx" puts it in the XY plane (x = dimension 1).
  const std::string dataset_dims = axis_list(n, "1", [&](std::size_t d) { return request.domain_extents[d]; });
  const std::size_t boxes = request.box_owners.size();
  std::ostringstream x;
  x << "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n<Xdmf Version=\"2.0\">\n  <Domain>\n";
  if (!request.has_box_table || boxes > kMaxBoxGrids) {
    x << "    <Grid Name=\"tessera checkpoint\" GridType=\"Uniform\">\n";
    if (request.has_box_table)
      x << "      <!-- a box set of " << boxes << " boxes: more than " << kMaxBoxGrids
        << " are shown as the one grid of the domain box, holes as the fill value 0 -->\n";
    write_time(x, "      ", attributes);
    write_mesh(x, "      ", dataset_dims, axis_list(n, "0", [&](std::size_t d) { return request.domain_lo[d]; }), n);
    for (const ArraySelection& a : request.arrays) {
      const auto number = xdmf_number(a.type);
      if (!number) {
        write_skipped(x, "      ", a);
        continue;
      }
      x << "      <Attribute Name=\"" << escaped(a.name) << "\" AttributeType=\"Scalar\" Center=\"Node\">\n";
      write_dataset_item(x, "        ", dataset_dims, *number, h5_name, a);
      x << "      </Attribute>\n";
    }
    x << "    </Grid>\n  </Domain>\n</Xdmf>\n";
    return x.str();
  }
  // A box set: a spatial collection of one grid per box, each reading its box of the one dataset
  // through a hyperslab, so that holes are not drawn. The values are cell data: box [lo, hi) is
  // hi - lo cells per axis between the points lo - 1/2 and hi - 1/2, so that the value of index i
  // sits at coordinate i (as a point of the domain's grid would) and boxes that touch leave no
  // seam between them (as point data, a box would end one spacing short of its neighbour, and a
  // box one cell thick would have no area).
  std::ostringstream dataset_shape;  // the hyperslab's selection has the dataset's own rank
  for (std::size_t d = 0; d < n; ++d) dataset_shape << (d ? " " : "") << request.domain_extents[d];
  x << "    <Grid Name=\"tessera checkpoint\" GridType=\"Collection\" CollectionType=\"Spatial\">\n";
  write_time(x, "      ", attributes);
  for (const ArraySelection& a : request.arrays)
    if (!xdmf_number(a.type)) write_skipped(x, "      ", a);
  for (std::size_t b = 0; b < boxes; ++b) {
    const index_t* lo = &request.box_corners[2 * n * b];
    const index_t* hi = lo + n;
    x << "      <Grid Name=\"box " << b << " (rank " << request.box_owners[b] << ")\" GridType=\"Uniform\">\n";
    write_time(x, "        ", attributes);
    const std::string points = axis_list(n, "1", [&](std::size_t d) { return hi[d] - lo[d] + 1; });
    const std::string origin = axis_list(n, "0", [&](std::size_t d) { return static_cast<double>(lo[d]) - 0.5; });
    write_mesh(x, "        ", points, origin, n);
    const std::string cells = axis_list(n, "1", [&](std::size_t d) { return hi[d] - lo[d]; });
    std::ostringstream slab;  // start, stride, count: one row each, in the dataset's rank
    for (std::size_t d = 0; d < n; ++d) slab << (d ? " " : "") << lo[d] - request.domain_lo[d];
    for (std::size_t d = 0; d < n; ++d) slab << ' ' << 1;
    for (std::size_t d = 0; d < n; ++d) slab << ' ' << hi[d] - lo[d];
    for (const ArraySelection& a : request.arrays) {
      const auto number = xdmf_number(a.type);
      if (!number) continue;
      x << "        <Attribute Name=\"" << escaped(a.name) << "\" AttributeType=\"Scalar\" Center=\"Cell\">\n"
        << "          <DataItem ItemType=\"HyperSlab\" Dimensions=\"" << cells << "\" Type=\"HyperSlab\">\n"
        << "            <DataItem Dimensions=\"3 " << n << "\" NumberType=\"Int\" Precision=\"8\" Format=\"XML\">"
        << slab.str() << "</DataItem>\n";
      write_dataset_item(x, "            ", dataset_shape.str(), *number, h5_name, a);
      x << "          </DataItem>\n"
        << "        </Attribute>\n";
    }
    x << "      </Grid>\n";
  }
  x << "    </Grid>\n  </Domain>\n</Xdmf>\n";
  return x.str();
}

}  // namespace tessera::io::detail
