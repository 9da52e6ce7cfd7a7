// MultiblockArray<T, N> for the module's five element types and N = 1..3, and PARTI's regular
// section move between them (an overload of tessera.copy_section). One file for all fifteen
// classes: the methods are thin (the schedules are the C++ library's), and in the module's unity
// build they compile as one unit beside the DistArray units.
//
// Indices: Python speaks block coordinates, (block, point); the C++ array stores one patch per box
// a rank owns in any block, in embedded coordinates (block coordinates + layout.offset(block)).
#include <algorithm>
#include <complex>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "convert.hpp"
#include "multiblock.hpp"

namespace py = pybind11;
using tessera::index_t;

namespace tessera_python {
namespace {

/// Patch `k` of this rank, or `Error(out_of_range)` naming `where` and the patches there are.
template <class T, std::size_t N>
std::size_t patch_of_rank(const PyMultiblockArray<T, N>& a, long long k, const char* where) {
  const std::size_t count = a.array.patch_count();
  if (k < 0 || static_cast<std::size_t>(k) >= count)
    tessera::fail(tessera::ErrorCode::out_of_range, where, ": patch ", k, " does not exist: rank ",
                  a.domain->comm->rank(), " has ", count, " patch(es) (patch_count)");
  return static_cast<std::size_t>(k);
}

/// A NumPy view of patch `patch` (with its ghost layers, or its owned part only) whose base object
/// is a MultiblockViewGuard of `a` (holders.hpp, "The view rule").
template <class T, std::size_t N>
py::array patch_view(const std::shared_ptr<PyMultiblockArray<T, N>>& a, std::size_t patch, bool with_ghosts) {
  const tessera::LocalView<T, N> v = a->array.local(patch);
  std::vector<py::ssize_t> shape(N), strides(N);
  T* first = v.data;
  for (std::size_t d = 0; d < N; ++d) {
    shape[d] = with_ghosts ? v.extents[d] : v.count[d];
    strides[d] = static_cast<py::ssize_t>(v.strides[d] * static_cast<index_t>(sizeof(T)));
    if (!with_ghosts) first += v.ghost_lo[d] * v.strides[d];
  }
  py::capsule guard(new MultiblockViewGuard<T, N>(a),
                    [](void* g) { delete static_cast<MultiblockViewGuard<T, N>*>(g); });
  return py::array_t<T>(shape, strides, first, guard);
}

/// The element at `point` of block `block` that this rank stores (MultiblockArray::at: the block's
/// own patches, the owning one first). `Error` naming `where` for a bad block or point, or one not stored.
template <class T, std::size_t N>
T& stored_element(PyMultiblockArray<T, N>& a, long long block, const std::vector<index_t>& point, const char* where) {
  const std::size_t b = block_index(a.array.domain().layout(), block, where);
  return a.array.at(b, point_of<N>(point, where));
}

/// Collective: block `block` as a NumPy array of its box's shape (row-major; holes of a box-set
/// block 0) on `root`, None elsewhere; on every rank for root None. Each rank sends only its cells
/// of the block, box by box in row-major order; the receivers know every rank's boxes from the
/// layout (patch k of rank r is box boxes_of(r)[k] of the embedded set), so values travel alone.
template <class T, std::size_t N>
py::object gather_block(const PyMultiblockArray<T, N>& a, long long block, std::optional<long long> root_arg) {
  constexpr const char* where = "MultiblockArray.gather_block";
  const tessera::MultiblockLayout<N>& mb = a.array.domain().layout();
  const tessera::Communicator& comm = *a.domain->comm;
  const std::size_t b = block_index(mb, block, where);
  const bool everywhere = !root_arg.has_value();
  int root = 0;
  if (!everywhere) {
    const long long r = *root_arg;
    if (r < 0 || r >= comm.size())
      tessera::fail_argument(where, "root", r, tessera::detail::concat("is not a rank (0 to ", comm.size() - 1, ")"));
    root = static_cast<int>(r);
  }
  std::vector<T> mine;
  const auto& patches = a.array.array().layout().patches();
  const T* data = a.array.array().data();
  for (std::size_t k = 0; k < patches.size(); ++k)
    if (a.array.block_of_patch(k) == b)
      tessera::for_each_point(patches[k].owned_box(),
                              [&](const tessera::Point<N>& q) { mine.push_back(data[patches[k].element_offset(q)]); });
  std::vector<T> all;
  if (everywhere) {
    all = comm.allgatherv<T>(std::span<const T>(mine));
  } else {
    std::vector<int> counts(static_cast<std::size_t>(comm.size()), 0);
    counts[static_cast<std::size_t>(root)] = static_cast<int>(mine.size());
    all = comm.alltoallv<T>(std::span<const T>(mine), std::span<const int>(counts));
    if (comm.rank() != root) return py::none();
  }
  const tessera::Box<N> box = mb.block_box(b);
  std::vector<py::ssize_t> shape(N);
  for (std::size_t d = 0; d < N; ++d) shape[d] = tessera::extent(box, d);
  py::array_t<T> out(shape);
  T* image = out.mutable_data();
  std::fill(image, image + out.size(), T{});
  const tessera::BoxSet<N>& set = mb.embedded_set();
  std::size_t next = 0;
  for (int r = 0; r < comm.size(); ++r)
    for (const std::size_t i : set.boxes_of(r)) {
      if (mb.block_of_box(i) != b) continue;
      tessera::for_each_point(set.box(i), [&](const tessera::Point<N>& q) {
        index_t at = 0;
        for (std::size_t d = 0; d < N; ++d) at = at * shape[d] + (q[d] - mb.offset(b)[d] - box.lo[d]);
        if (next < all.size()) image[at] = all[next];
        ++next;
      });
    }
  if (next != all.size())
    tessera::fail(tessera::ErrorCode::internal, where, ": ", all.size(), " values arrived for block ", b,
                  " but its boxes hold ", next, " cells");
  return out;
}

/// One end of a section move from Python: (block, box) or (block, box, stride), box a shape or
/// ((lo...), (hi...)) as everywhere in the module, stride an int or one per axis. Anything else is
/// `Error(invalid_argument)` (the same on every rank, which all pass the same arguments).
template <std::size_t N>
tessera::BlockSection<N> block_section_of(const py::object& s, const char* which) {
  const std::string where = std::string("copy_section (multiblock): the ") + which + " section";
  const auto malformed = [&]() {
    tessera::fail(tessera::ErrorCode::invalid_argument, where, " ", std::string(py::repr(s)),
                  " must be (block, box) or (block, box, stride), box ((lo...), (hi...)) or a shape");
  };
  if (!py::isinstance<py::sequence>(s) || py::isinstance<py::str>(s)) malformed();
  const auto seq = py::reinterpret_borrow<py::sequence>(s);
  if (seq.size() != 2 && seq.size() != 3) malformed();
  tessera::BlockSection<N> out;
  std::vector<index_t> lo, hi;
  long long block = 0;
  try {
    block = seq[0].cast<long long>();
    const auto lists = py::module_::import("tessera._layout").attr("_box_lists")(seq[1]).cast<py::tuple>();
    lo = lists[0].cast<std::vector<index_t>>();
    hi = lists[1].cast<std::vector<index_t>>();
    if (seq.size() == 3) {
      if (py::isinstance<py::int_>(seq[2]))
        out.stride = tessera::Point<N>::filled(seq[2].cast<index_t>());
      else
        out.stride = point_of<N>(seq[2].cast<std::vector<index_t>>(), (where + ": stride").c_str());
    }
  } catch (const py::cast_error&) {
    malformed();
  } catch (const py::error_already_set&) {  // _box_lists on something that is not a box
    malformed();
  }
  // Negative blocks here; too large ones, bad strides and boxes outside blocks by check_section_move.
  if (block < 0)
    tessera::fail(tessera::ErrorCode::out_of_range, where, " names block ", block, " (blocks count from 0)");
  out.block = static_cast<std::size_t>(block);
  out.box = box_of<N>(lo, hi, (where + ": box").c_str());
  return out;
}

template <class T, std::size_t N>
void bind_multiblock_array(py::module_& m) {
  using A = PyMultiblockArray<T, N>;
  constexpr bool ordered = !std::is_same_v<T, std::complex<double>>;
  const std::string name = std::string("MultiblockArray_") + dtype_name<T>() + "_" + std::to_string(N) + "D";
  py::class_<A, std::shared_ptr<A>> cls(m, name.c_str(),
                                        "Values over every block of a multiblock domain, with ghosts (C++ "
                                        "tessera::MultiblockArray<T, N>); build it with tessera.MultiblockArray.");
  cls.def(py::init([](std::shared_ptr<PyMultiblockDomain<N>> dom, const std::vector<index_t>& lower,
                      const std::vector<index_t>& upper, const std::vector<bool>& periodic, bool corners) {
            return std::make_shared<A>(std::move(dom), ghost_spec_of<N>(lower, upper, periodic, corners));
          }),
          py::arg("domain"), py::arg("lower"), py::arg("upper"), py::arg("periodic"), py::arg("corners"))
      .def_property_readonly("dtype", [](const A&) { return py::dtype::of<T>(); })
      .def_property_readonly("ndim", [](const A&) { return N; })
      .def_property_readonly("domain", [](const A& a) { return a.domain; })
      .def_property_readonly("ghost_widths", [](const A& a) {
        return py::make_tuple(tuple_of(a.array.ghosts().lower), tuple_of(a.array.ghosts().upper));
      }, "(lower, upper) ghost widths per dimension.")
      .def_property_readonly("patch_count", [](const A& a) { return a.array.patch_count(); },
                             "This rank's patches: one per box it owns in any block.")
      .def(
          "block_of_patch",
          [](const A& a, long long k) { return a.array.block_of_patch(patch_of_rank(a, k, "MultiblockArray.block_of_patch")); },
          py::arg("patch"), "The block patch `patch` of this rank belongs to.")
      .def(
          "owned_box",
          [](const A& a, long long k) {
            const std::size_t patch = patch_of_rank(a, k, "MultiblockArray.owned_box");
            const tessera::Point<N>& off = a.array.domain().layout().offset(a.array.block_of_patch(patch));
            tessera::Box<N> box = a.array.array().layout().patches()[patch].owned_box();
            for (std::size_t d = 0; d < N; ++d) box.lo[d] -= off[d], box.hi[d] -= off[d];
            return tuple_of(box);
          },
          py::arg("patch"), "(lo, hi) that patch `patch` owns, in its block's coordinates.")
      .def(
          "local",
          [](const std::shared_ptr<A>& a, long long k, bool with_ghosts) {
            return patch_view(a, patch_of_rank(*a, k, "MultiblockArray.local"), with_ghosts);
          },
          py::arg("patch"), py::arg("with_ghosts") = true,
          "Patch `patch` as a NumPy view (no copy), its ghost layers included unless with_ghosts=False; "
          "index [g, ...] is owned_box(patch).lo - g. Holding it blocks redistributions.")
      .def("__getitem__",
           [](A& a, const std::pair<long long, std::vector<index_t>>& key) {
             return stored_element(a, key.first, key.second, "MultiblockArray[]");
           })
      .def("__setitem__",
           [](A& a, const std::pair<long long, std::vector<index_t>>& key, const T& x) {
             stored_element(a, key.first, key.second, "MultiblockArray[]") = x;
           })
      .def(
          "fill",
          [](A& a, const T& x) { std::fill(a.array.array().storage().begin(), a.array.array().storage().end(), x); },
          py::arg("value"), "Sets every stored element, ghosts included.")
      .def("update_ghosts", [](A& a) { a.array.update_ghosts(); },
           "Collective: fills every ghost, each block's from its own cells, across interfaces from the glued "
           "block with the orientation applied (one cached schedule).")
      .def("begin_update_ghosts", [](A& a) { a.array.begin_update_ghosts(); },
           "Collective: starts update_ghosts; work on owned cells, then call end_update_ghosts().")
      .def("end_update_ghosts", [](A& a) { a.array.end_update_ghosts(); }, "Collective: completes it.")
      .def_property_readonly("ghost_update_in_flight", [](const A& a) { return a.array.ghost_update_in_flight(); })
      .def("accumulate_ghosts", [](A& a, tessera::CombineOp op) { a.array.accumulate_ghosts(op); },
           py::arg("op") = tessera::CombineOp::add,
           "Collective: the reverse of update_ghosts: every ghost an update fills is combined with `op` into the "
           "cell it mirrors, across interfaces too; ghosts unchanged.")
      .def("sum", [](const A& a) { return a.array.array().sum(); },
           "Collective: the sum over every block (integers wrap modulo 2^bits).")
      .def(
          "gather_block",
          [](const A& a, long long block, std::optional<long long> root) { return gather_block(a, block, root); },
          py::arg("block"), py::arg("root") = 0,
          "Collective: block `block` as a NumPy array of its shape on `root` (None elsewhere); on every rank "
          "with root=None. Holes of a box-set block are 0.");
  if constexpr (N == 1) {  // u[b, i] as well as u[b, (i,)]
    cls.def("__getitem__",
            [](A& a, const std::pair<long long, index_t>& key) {
              return stored_element(a, key.first, {key.second}, "MultiblockArray[]");
            })
        .def("__setitem__", [](A& a, const std::pair<long long, index_t>& key, const T& x) {
          stored_element(a, key.first, {key.second}, "MultiblockArray[]") = x;
        });
  }
  if constexpr (ordered) {
    cls.def("min", [](const A& a) { return a.array.array().min(); }, "Collective: the smallest element.")
        .def("max", [](const A& a) { return a.array.array().max(); }, "Collective: the largest element.");
  }
  m.def(
      "copy_section",
      [](const A& src, const py::object& from, A& dst, const py::object& to, const py::object& perm,
         const py::object& flip) {
        constexpr const char* where = "copy_section (multiblock)";
        const auto orientation = orientation_of<N>(perm.is_none() ? std::vector<int>{} : perm.cast<std::vector<int>>(),
                                                   flip.is_none() ? std::vector<bool>{} : flip.cast<std::vector<bool>>(),
                                                   where);
        tessera::copy_section(src.array, block_section_of<N>(from, "source"), dst.array,
                              block_section_of<N>(to, "destination"), orientation);
      },
      py::arg("src"), py::arg("from_section"), py::arg("dst"), py::arg("to_section"), py::arg("perm") = py::none(),
      py::arg("flip") = py::none(),
      "Collective: PARTI's regular section move between multiblock arrays over one domain: section "
      "(block, box[, stride]) of src onto one of dst; destination axis d runs along source axis perm[d], "
      "backwards where flip[d] (identity by default).");
}

template <class T>
void bind_multiblock_arrays_of(py::module_& m) {
  bind_multiblock_array<T, 1>(m);
  bind_multiblock_array<T, 2>(m);
  bind_multiblock_array<T, 3>(m);
}

}  // namespace

void bind_multiblock_arrays(py::module_& m) {
  bind_multiblock_arrays_of<float>(m);
  bind_multiblock_arrays_of<double>(m);
  bind_multiblock_arrays_of<std::int32_t>(m);
  bind_multiblock_arrays_of<std::int64_t>(m);
  bind_multiblock_arrays_of<std::complex<double>>(m);
}

}  // namespace tessera_python
