// The XDMF sidecar of a box-set checkpoint (src/io/xdmf.cpp, docs/checkpoint.md "XDMF sidecar"):
// a spatial collection of one grid per box, each reading its box of the one dataset through an
// XDMF HyperSlab, so that ParaView draws no hole. The sidecar is parsed as XML here and every box's
// grid is checked against the box set: name, topology and origin (cell data: the value of index i
// centred at coordinate i), the hyperslab's start, stride and count, the dataset it reads, and,
// with the file read back by plain HDF5, that the slab selects exactly that box's values. Sets
// with holes in 2-D and 3-D, a set without holes, and an ordinary distribution (one grid, as before).
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>

#include <cctype>
#include <complex>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "checkpoint_support.hpp"
#include "tessera/io/checkpoint.hpp"
#include "tessera/tessera.hpp"

namespace tessera::xdmf_box_test {
namespace {

using namespace tessera::testing;

/// An XML element as the sidecar's reader sees it: attributes with entities resolved, the text
/// directly inside it (trimmed), its child elements in order.
struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attributes;
  std::string text;
  std::vector<XmlElement> children;

  [[nodiscard]] std::vector<const XmlElement*> all(const std::string& child) const {
    std::vector<const XmlElement*> out;
    for (const XmlElement& c : children)
      if (c.name == child) out.push_back(&c);
    return out;
  }
  [[nodiscard]] const XmlElement& one(const std::string& child) const {
    const auto found = all(child);
    if (found.size() != 1)
      throw std::runtime_error("<" + name + "> has " + std::to_string(found.size()) + " <" + child + ">, not one");
    return *found.front();
  }
  [[nodiscard]] std::string attribute(const std::string& key) const {
    const auto it = attributes.find(key);
    if (it == attributes.end()) throw std::runtime_error("<" + name + "> has no attribute " + key);
    return it->second;
  }
};

/// A small XML parser for the sidecar: a declaration, a DOCTYPE, comments, elements with quoted
/// attributes, character data and the five predefined entities. Throws std::runtime_error with the
/// offset on anything else.
class XdmfXmlParser {
 public:
  explicit XdmfXmlParser(std::string text) : s_(std::move(text)) {}

  XmlElement document() {
    skip_misc();
    XmlElement root = element();
    skip_misc();
    if (i_ != s_.size()) fail("text after the root element");
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("XML: " + what + " at offset " + std::to_string(i_));
  }
  bool starts(const char* p) const { return s_.compare(i_, std::char_traits<char>::length(p), p) == 0; }
  void skip_space() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  void skip_past(const char* end) {
    const auto at = s_.find(end, i_);
    if (at == std::string::npos) fail(std::string("no closing ") + end);
    i_ = at + std::char_traits<char>::length(end);
  }
  // Declarations, DOCTYPE (with an internal subset in brackets) and comments between elements.
  void skip_misc() {
    for (;;) {
      skip_space();
      if (starts("<?")) {
        skip_past("?>");
      } else if (starts("<!--")) {
        skip_past("-->");
      } else if (starts("<!DOCTYPE")) {
        const auto bracket = s_.find('[', i_), close = s_.find('>', i_);
        if (bracket != std::string::npos && bracket < close) {
          i_ = bracket;
          skip_past("]");
        }
        skip_past(">");
      } else {
        return;
      }
    }
  }
  std::string unescaped(const std::string& raw) const {
    std::string out;
    for (std::size_t k = 0; k < raw.size(); ++k) {
      if (raw[k] != '&') {
        out += raw[k];
        continue;
      }
      const auto semi = raw.find(';', k);
      if (semi == std::string::npos) fail("an unterminated entity");
      const std::string entity = raw.substr(k + 1, semi - k - 1);
      if (entity == "amp") out += '&';
      else if (entity == "lt") out += '<';
      else if (entity == "gt") out += '>';
      else if (entity == "quot") out += '"';
      else if (entity == "apos") out += '\'';
      else fail("the entity &" + entity + ";");
      k = semi;
    }
    return out;
  }
  std::string name() {
    const std::size_t start = i_;
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_' || s_[i_] == ':'))
      ++i_;
    if (i_ == start) fail("a name expected");
    return s_.substr(start, i_ - start);
  }
  XmlElement element() {
    if (!starts("<")) fail("'<' expected");
    ++i_;
    XmlElement e;
    e.name = name();
    for (;;) {
      skip_space();
      if (starts("/>")) {
        i_ += 2;
        return e;
      }
      if (starts(">")) {
        ++i_;
        break;
      }
      const std::string key = name();
      skip_space();
      if (!starts("=\"")) fail("=\" expected after " + key);
      i_ += 2;
      const auto close = s_.find('"', i_);
      if (close == std::string::npos) fail("an unterminated attribute");
      if (!e.attributes.emplace(key, unescaped(s_.substr(i_, close - i_))).second) fail("a repeated attribute " + key);
      i_ = close + 1;
    }
    std::string text;
    for (;;) {
      if (i_ >= s_.size()) fail("no </" + e.name + ">");
      if (starts("<!--")) {
        skip_past("-->");
      } else if (starts("</")) {
        i_ += 2;
        if (name() != e.name) fail("a mismatched closing tag for " + e.name);
        skip_space();
        if (!starts(">")) fail("'>' expected");
        ++i_;
        break;
      } else if (starts("<")) {
        e.children.push_back(element());
      } else {
        text += s_[i_++];
      }
    }
    text = unescaped(text);
    const auto first = text.find_first_not_of(" \n\t\r"), last = text.find_last_not_of(" \n\t\r");
    e.text = first == std::string::npos ? "" : text.substr(first, last - first + 1);
    return e;
  }

  std::string s_;
  std::size_t i_ = 0;
};

template <class T>
std::vector<T> numbers_in(const std::string& text) {
  std::istringstream in(text);
  std::vector<T> out;
  for (T x; in >> x;) out.push_back(x);
  if (!in.eof()) throw std::runtime_error("not a list of numbers: '" + text + "'");
  return out;
}

std::string text_of_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Every point of `box` in row-major order.
template <std::size_t N>
std::vector<Point<N>> points_of(const Box<N>& box) {
  std::vector<Point<N>> out;
  if (volume(box) == 0) return out;
  Point<N> p = box.lo;
  for (;;) {
    out.push_back(p);
    std::size_t d = N;
    while (d > 0) {
      --d;
      if (++p[d] < box.hi[d]) break;
      p[d] = box.lo[d];
      if (d == 0) return out;
    }
  }
}

/// XDMF lists axes slowest first with a 2-D array a grid one point thick: "1 a b" in 2-D.
template <std::size_t N>
std::vector<index_t> xdmf_axes(const Point<N>& p, index_t thin) {
  std::vector<index_t> out;
  if (N == 2) out.push_back(thin);
  for (std::size_t d = 0; d < N; ++d) out.push_back(p[d]);
  return out;
}

/// One real array of the checkpoint and what the sidecar must say of it.
struct SidecarArray {
  std::string name;
  std::string number_type;
  int precision;
};

/// Rank 0 parses the sidecar of `h5` and checks it against `set` (see the file comment); `u` (a
/// double array filled with pattern(p, salt)) must be what every box's slab of dataset "u" reads.
template <std::size_t N>
void expect_box_sidecar(const std::string& h5, const BoxSet<N>& set, const std::vector<SidecarArray>& arrays,
                        const std::string& skipped_complex, std::uint64_t salt, double time) {
  const XmlElement root = XdmfXmlParser(text_of_file(h5 + ".xmf")).document();
  ASSERT_EQ(root.name, "Xdmf");
  const XmlElement& collection = root.one("Domain").one("Grid");
  EXPECT_EQ(collection.attribute("GridType"), "Collection");
  EXPECT_EQ(collection.attribute("CollectionType"), "Spatial");
  EXPECT_EQ(std::stod(collection.one("Time").attribute("Value")), time);
  const auto grids = collection.all("Grid");
  ASSERT_EQ(grids.size(), set.size()) << "one grid per box";
  const std::string file = std::filesystem::path(h5).filename().string();
  const auto dataset = read_serially<double>(h5, "u");
  ASSERT_TRUE(dataset.ok);
  const Box<N>& domain = set.domain();
  // Every cell some slab reads, counted: each box's cells once, no cell of a hole.
  std::vector<int> read_count(static_cast<std::size_t>(volume(domain)), 0);
  for (std::size_t b = 0; b < set.size(); ++b) {
    const Box<N>& box = set.box(b);
    const XmlElement& g = *grids[b];
    SCOPED_TRACE(::testing::Message() << "box " << b << " " << box);
    EXPECT_EQ(g.attribute("Name"), "box " + std::to_string(b) + " (rank " + std::to_string(set.owner(b)) + ")");
    EXPECT_EQ(g.attribute("GridType"), "Uniform");
    EXPECT_EQ(std::stod(g.one("Time").attribute("Value")), time);
    const XmlElement& topology = g.one("Topology");
    EXPECT_EQ(topology.attribute("TopologyType"), "3DCoRectMesh");
    Point<N> extents{}, start{}, points{};
    for (std::size_t d = 0; d < N; ++d) {
      extents[d] = extent(box, d);
      points[d] = extents[d] + 1;
      start[d] = box.lo[d] - domain.lo[d];
    }
    // Cell data: extent + 1 points per axis, the 2-D grid one point thick.
    EXPECT_EQ(numbers_in<index_t>(topology.attribute("Dimensions")), xdmf_axes<N>(points, 1));
    const XmlElement& geometry = g.one("Geometry");
    EXPECT_EQ(geometry.attribute("GeometryType"), "ORIGIN_DXDYDZ");
    std::vector<double> origin, spacing;
    for (const XmlElement* item : geometry.all("DataItem")) {
      if (item->attribute("Name") == "Origin") origin = numbers_in<double>(item->text);
      if (item->attribute("Name") == "Spacing") spacing = numbers_in<double>(item->text);
    }
    ASSERT_EQ(origin.size(), 3U);
    EXPECT_EQ(spacing, std::vector<double>(3, 1.0));
    const std::size_t shift = N == 2 ? 1 : 0;
    if (N == 2) {
      EXPECT_EQ(origin[0], 0.0);
    }
    for (std::size_t d = 0; d < N; ++d) {
      // The first cell's centre, origin + 1/2, is the box's lower corner.
      EXPECT_EQ(origin[d + shift] + 0.5, static_cast<double>(box.lo[d])) << "axis " << d;
    }
    const auto attributes = g.all("Attribute");
    ASSERT_EQ(attributes.size(), arrays.size());
    for (std::size_t k = 0; k < arrays.size(); ++k) {
      const XmlElement& a = *attributes[k];
      EXPECT_EQ(a.attribute("Name"), arrays[k].name);
      EXPECT_EQ(a.attribute("Center"), "Cell");
      EXPECT_EQ(a.attribute("AttributeType"), "Scalar");
      const XmlElement& slab = a.one("DataItem");
      EXPECT_EQ(slab.attribute("ItemType"), "HyperSlab");
      EXPECT_EQ(numbers_in<index_t>(slab.attribute("Dimensions")), xdmf_axes<N>(extents, 1));
      const auto items = slab.all("DataItem");
      ASSERT_EQ(items.size(), 2U) << "a selection, then the dataset";
      EXPECT_EQ(numbers_in<index_t>(items[0]->attribute("Dimensions")), (std::vector<index_t>{3, static_cast<index_t>(N)}));
      EXPECT_EQ(items[0]->attribute("Format"), "XML");
      const auto selection = numbers_in<index_t>(items[0]->text);
      ASSERT_EQ(selection.size(), 3 * N);
      for (std::size_t d = 0; d < N; ++d) {
        EXPECT_EQ(selection[d], start[d]) << "start, axis " << d;
        EXPECT_EQ(selection[N + d], 1) << "stride, axis " << d;
        EXPECT_EQ(selection[2 * N + d], extents[d]) << "count, axis " << d;
      }
      std::vector<index_t> shape;
      for (std::size_t d = 0; d < N; ++d) shape.push_back(extent(domain, d));
      EXPECT_EQ(numbers_in<index_t>(items[1]->attribute("Dimensions")), shape) << "the dataset's own shape";
      EXPECT_EQ(items[1]->attribute("Format"), "HDF");
      EXPECT_EQ(items[1]->attribute("NumberType"), arrays[k].number_type);
      EXPECT_EQ(items[1]->attribute("Precision"), std::to_string(arrays[k].precision));
      EXPECT_EQ(items[1]->text, file + ":/" + arrays[k].name);
      if (arrays[k].name != "u") continue;
      // What the slab selects in the dataset (row-major from the domain's corner) is the box's data.
      for (const Point<N>& p : points_of(Box<N>(Point<N>{}, extents))) {
        Point<N> at{};
        std::size_t offset = 0;
        for (std::size_t d = 0; d < N; ++d) {
          at[d] = selection[d] + p[d] * selection[N + d];
          offset = offset * static_cast<std::size_t>(extent(domain, d)) + static_cast<std::size_t>(at[d]);
        }
        ++read_count[offset];
        const double want = pattern<double>(box.lo + p, salt);
        ASSERT_TRUE(same_bits(dataset.values[offset], want)) << "slab cell " << p;
      }
    }
  }
  // The cells read are exactly the cells the boxes hold, each once: no hole is drawn.
  std::size_t k = 0;
  for (const Point<N>& p : points_of(domain)) {
    bool held = false;
    for (std::size_t b = 0; b < set.size(); ++b) held = held || contains(set.box(b), p);
    EXPECT_EQ(read_count[k], held ? 1 : 0) << "cell " << p;
    ++k;
  }
  if (!skipped_complex.empty()) {
    EXPECT_NE(text_of_file(h5 + ".xmf").find("<!-- dataset '" + skipped_complex + "'"), std::string::npos);
  }
}

template <class T, std::size_t N>
void fill_pattern(DistArray<T, N>& a, std::uint64_t salt) {
  a.for_each_owned([&](const Point<N>& p, T& x) { x = pattern<T>(p, salt); });
}

/// Collective: saves a double array "u" over `set` filled with pattern(p, salt) at `time`, and rank
/// 0 checks the sidecar (expect_box_sidecar).
template <std::size_t N>
void save_and_expect_box_sidecar(const Communicator& comm, const std::string& path, const BoxSet<N>& set,
                                 std::uint64_t salt, double time) {
  Domain<N> dom(comm, Distribution<N>::from_box_set(set));
  DistArray<double, N> u(dom);
  fill_pattern(u, salt);
  io::save(path, {{"time", time}}, io::named("u", u));
  comm.barrier();
  if (comm.rank() != 0) return;
  try {
    expect_box_sidecar<N>(path, set, {{"u", "Float", 8}}, "", salt, time);
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what();
  }
}

TEST(Checkpoint, XdmfSidecarOfABoxSetWithHolesIsOneGridPerBox2D) {
  Communicator comm(MPI_COMM_WORLD);
  ScratchDir dir(comm.raw());
  const int P = comm.size();
  // An L-shape with an island and holes, a box of one cell, several boxes per rank, empty ranks on 4+.
  const Box<2> domain({-2, 1}, {12, 9});
  const std::vector<Box<2>> boxes{Box<2>({-2, 1}, {3, 4}), Box<2>({-2, 4}, {3, 9}), Box<2>({3, 1}, {8, 4}),
                                  Box<2>({9, 6}, {12, 9}), Box<2>({8, 1}, {12, 2}), Box<2>({5, 7}, {6, 8})};
  const BoxSet<2> set(domain, boxes, {P - 1, 0, 1 % P, 0, 2 % P, 1 % P}, P);
  ASSERT_FALSE(Distribution<2>::from_box_set(set).covers_domain());
  Domain<2> dom(comm, Distribution<2>::from_box_set(set));
  DistArray<double, 2> u(dom, ghosts<2>(1));
  DistArray<float, 2> t(dom);
  DistArray<std::complex<double>, 2> psi(dom);
  DistArray<std::int32_t, 2> flag(dom);
  fill_pattern(u, 41);
  const std::string path = dir.file("holes2.h5");
  io::save(path, {{"time", 1.25}}, io::named("u", u), io::named("t", t), io::named("psi", psi),
           io::named("flag<&>", flag));
  comm.barrier();
  if (comm.rank() != 0) return;
  try {
    expect_box_sidecar<2>(path, set, {{"u", "Float", 8}, {"t", "Float", 4}, {"flag<&>", "Int", 4}}, "psi", 41, 1.25);
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what();
  }
}

TEST(Checkpoint, XdmfSidecarOfABoxSetWithHolesIsOneGridPerBox3D) {
  Communicator comm(MPI_COMM_WORLD);
  ScratchDir dir(comm.raw());
  const int P = comm.size();
  const Box<3> domain({0, -1, 2}, {6, 5, 9});
  const std::vector<Box<3>> boxes{Box<3>({0, -1, 2}, {3, 5, 5}), Box<3>({3, -1, 2}, {6, 2, 9}),
                                  Box<3>({4, 3, 6}, {5, 4, 9}), Box<3>({0, 2, 7}, {2, 5, 9})};
  save_and_expect_box_sidecar<3>(comm, dir.file("holes3.h5"), BoxSet<3>(domain, boxes, {0, 1 % P, 2 % P, 0}, P), 43, 3.0);
}

TEST(Checkpoint, XdmfSidecarOfABoxSetWithoutHolesIsOneGridPerBoxToo) {
  Communicator comm(MPI_COMM_WORLD);
  ScratchDir dir(comm.raw());
  // The domain chopped into 3 x 4 boxes, Morton-assigned: every cell in exactly one slab.
  const Box<2> domain({-3, 0}, {6, 10});
  const std::vector<Box<2>> whole{domain};
  const auto pieces = chop_boxes<2>(whole, Point<2>{3, 3});
  const BoxSet<2> set = make_box_set<2>(domain, pieces, comm.size(), BoxAssignment::morton);
  ASSERT_TRUE(Distribution<2>::from_box_set(set).covers_domain());
  save_and_expect_box_sidecar<2>(comm, dir.file("tiled.h5"), set, 47, 0.5);
}

TEST(Checkpoint, XdmfSidecarOfAnOrdinaryDistributionIsOneGridAsBefore) {
  Communicator comm(MPI_COMM_WORLD);
  ScratchDir dir(comm.raw());
  const Box<2> domain({-3, 0}, {6, 10});
  Domain<2> dom(comm, Distribution<2>(domain, ProcGrid<2>::automatic(comm.size(), {9, 10}), {block(), cyclic()}));
  DistArray<double, 2> u(dom);
  const std::string path = dir.file("plain.h5");
  io::save(path, {}, io::named("u", u));
  comm.barrier();
  if (comm.rank() != 0) return;
  try {
    const XmlElement grid = XdmfXmlParser(text_of_file(path + ".xmf")).document().one("Domain").one("Grid");
    EXPECT_EQ(grid.attribute("GridType"), "Uniform");
    EXPECT_TRUE(grid.all("Grid").empty());
    EXPECT_EQ(numbers_in<index_t>(grid.one("Topology").attribute("Dimensions")), (std::vector<index_t>{1, 9, 10}));
    const XmlElement& attribute = grid.one("Attribute");
    EXPECT_EQ(attribute.attribute("Center"), "Node");
    const XmlElement& item = attribute.one("DataItem");
    EXPECT_EQ(item.attributes.count("ItemType"), 0U);
    EXPECT_EQ(item.text, "plain.h5:/u");
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what();
  }
}

TEST(Checkpoint, XdmfSidecarOfMoreThanTenThousandBoxesIsTheDomainsOneGrid) {
  Communicator comm(MPI_COMM_WORLD);
  ScratchDir dir(comm.raw());
  // Unit boxes in rows of 100: 10,000 still get a grid each, 10,001 the one grid of the domain box
  // (a grid per box is about a kilobyte of XML per box and array) with a comment saying why.
  for (const index_t count : {index_t{10000}, index_t{10001}}) {
    std::vector<Box<2>> boxes;
    for (index_t i = 0; i < count; ++i) boxes.push_back(Box<2>({i / 100, i % 100}, {i / 100 + 1, i % 100 + 1}));
    const BoxSet<2> set = make_box_set<2>(Box<2>({0, 0}, {101, 100}), boxes, comm.size(), BoxAssignment::morton);
    Domain<2> dom(comm, Distribution<2>::from_box_set(set));
    DistArray<double, 2> u(dom);
    const std::string path = dir.file("many-" + std::to_string(count) + ".h5");
    io::save(path, {}, io::named("u", u));
    comm.barrier();
    if (comm.rank() != 0) continue;
    const std::string text = text_of_file(path + ".xmf");
    std::size_t grids = 0;
    for (auto at = text.find("<Grid Name=\"box "); at != std::string::npos; at = text.find("<Grid Name=\"box ", at + 1))
      ++grids;
    if (count == 10000) {  // (not parsed: 10 MB of XML; the grids are checked by the tests above)
      EXPECT_NE(text.find("<Grid Name=\"tessera checkpoint\" GridType=\"Collection\""), std::string::npos);
      EXPECT_EQ(grids, 10000U);
      continue;
    }
    try {
      const XmlElement grid = XdmfXmlParser(text).document().one("Domain").one("Grid");
      {
        EXPECT_EQ(grid.attribute("GridType"), "Uniform");
        EXPECT_EQ(grids, 0U);
        EXPECT_EQ(numbers_in<index_t>(grid.one("Topology").attribute("Dimensions")), (std::vector<index_t>{1, 101, 100}));
        EXPECT_NE(text.find("<!-- a box set of 10001 boxes: more than 10000"), std::string::npos) << text.substr(0, 600);
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
    }
  }
}

}  // namespace
}  // namespace tessera::xdmf_box_test
