// MultiblockDomain<N> for N = 1..3 (Multiblock PARTI: blocks, each an index space with its own
// distribution, glued at faces with orientations; C++ layout/multiblock.hpp). The Python layer
// (tessera/_multiblock.py) turns BlockFace and BlockInterface objects into the plain tuples read
// here. `redistribute` frees the arrays' storage, so it first refuses, on every rank, while NumPy
// views of it are alive (holders.hpp, "The view rule").
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "communicator.hpp"
#include "convert.hpp"
#include "errors.hpp"
#include "holders.hpp"
#include "multiblock.hpp"

namespace py = pybind11;
using tessera::index_t;

namespace tessera_python {
namespace {

/// (block, axis, upper, cells lo, cells hi): a face; empty lo and hi for the whole face.
using FaceArgs = std::tuple<long long, long long, bool, std::vector<index_t>, std::vector<index_t>>;
/// (face a, face b, perm, flip): an interface; empty perm and flip for the identity.
using InterfaceArgs = std::tuple<FaceArgs, FaceArgs, std::vector<int>, std::vector<bool>>;

template <std::size_t N>
tessera::BlockFace<N> face_of(const FaceArgs& f, std::size_t interface, const char* which) {
  const auto& [block, axis, upper, lo, hi] = f;
  // Negative numbers are refused here; too large ones by MultiblockLayout, which knows the blocks.
  if (block < 0)
    tessera::fail(tessera::ErrorCode::out_of_range, "MultiblockDomain: interface ", interface, " face ", which,
                  " names block ", block, " (blocks count from 0)");
  if (axis < 0)
    tessera::fail(tessera::ErrorCode::invalid_argument, "MultiblockDomain: interface ", interface, " face ", which,
                  " names axis ", axis, " (axes count from 0)");
  tessera::BlockFace<N> face;
  face.block = static_cast<std::size_t>(block);
  face.axis = static_cast<std::size_t>(axis);
  face.upper = upper;
  if (!lo.empty() || !hi.empty()) {
    const std::string what = "MultiblockDomain: interface " + std::to_string(interface) + " face " + which + " cells";
    face.cells = box_of<N>(lo, hi, what.c_str());
    if (face.cells.empty())
      tessera::fail(tessera::ErrorCode::invalid_argument, what, " ", face.cells,
                    " are empty (leave cells out for the whole face)");
  }
  return face;
}

template <std::size_t N>
tessera::MultiblockLayout<N> layout_of(std::vector<tessera::Distribution<N>> blocks,
                                       const std::vector<InterfaceArgs>& interfaces, index_t max_ghost_width) {
  std::vector<tessera::BlockInterface<N>> glued;
  for (std::size_t i = 0; i < interfaces.size(); ++i) {
    const auto& [a, b, perm, flip] = interfaces[i];
    glued.push_back({face_of<N>(a, i, "a"), face_of<N>(b, i, "b"),
                     orientation_of<N>(perm, flip, "MultiblockDomain: interface " + std::to_string(i))});
  }
  return tessera::MultiblockLayout<N>(std::move(blocks), std::move(glued), max_ghost_width);
}

template <std::size_t N>
void bind_multiblock_domain(py::module_& m) {
  using H = PyMultiblockDomain<N>;
  py::class_<H, std::shared_ptr<H>>(m, class_name<N>("MultiblockDomain").c_str(),
                                    "Blocks glued at faces, each with its own distribution (C++ "
                                    "tessera::MultiblockDomain<N>); build it with tessera.MultiblockDomain.")
      .def(py::init([](std::vector<tessera::Distribution<N>> blocks, const std::vector<InterfaceArgs>& interfaces,
                       index_t max_ghost_width, py::object comm) {
             // The layout first: its errors (the same on every rank) come before the collective
             // duplication of the communicator.
             auto layout = layout_of<N>(std::move(blocks), interfaces, max_ghost_width);
             return std::make_shared<H>(communicator_of(comm), std::move(layout));
           }),
           py::arg("blocks"), py::arg("interfaces"), py::arg("max_ghost_width"), py::arg("comm") = py::none())
      .def_property_readonly("ndim", [](const H&) { return N; })
      .def_property_readonly("rank", [](const H& d) { return d.comm->rank(); })
      .def_property_readonly("size", [](const H& d) { return d.comm->size(); })
      .def_property_readonly("block_count", [](const H& d) { return d.domain.layout().block_count(); })
      .def_property_readonly("max_ghost_width", [](const H& d) { return d.domain.layout().max_ghost_width(); })
      .def_property_readonly("interface_count", [](const H& d) { return d.domain.layout().interfaces().size(); })
      .def_property_readonly("live_views", [](const H& d) { return d.live_views; },
                             "NumPy views of this domain's arrays alive on this rank.")
      .def(
          "block_box",
          [](const H& d, long long b) {
            const auto& layout = d.domain.layout();
            return tuple_of(layout.block_box(block_index(layout, b, "MultiblockDomain.block_box")));
          },
          py::arg("block"), "(lo, hi) of block `block`'s index space.")
      .def(
          "block_distribution",
          [](const H& d, long long b) {
            const auto& layout = d.domain.layout();
            return layout.block(block_index(layout, b, "MultiblockDomain.block_distribution"));
          },
          py::arg("block"), "Block `block`'s distribution, in its own index space.")
      .def(
          "redistribute",
          [](H& d, std::vector<tessera::Distribution<N>> blocks) {
            refuse_if_any_views(*d.comm, d.live_views, "MultiblockDomain.redistribute",
                                "arrays over this multiblock domain");
            d.domain.redistribute(std::move(blocks));
          },
          py::arg("blocks"),
          "Collective: a new distribution for every block (over the same boxes); every array keeps its values "
          "where the old and the new layout both hold a cell; ghosts need an update.");
}

}  // namespace

void bind_multiblock_domains(py::module_& m) {
  bind_multiblock_domain<1>(m);
  bind_multiblock_domain<2>(m);
  bind_multiblock_domain<3>(m);
}

}  // namespace tessera_python
