#pragma once
// The collective movements of a DistArray class: ghost updates (blocking and split phase, and the
// reverse accumulate), gather and scatter against a row-major NumPy image of the whole array on
// one rank, and the remaps between two arrays of one element type (copy, copy_section, transpose).
#include <array>
#include <memory>
#include <span>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "convert.hpp"
#include "holders.hpp"

namespace tessera_python {

/// Adds the ghost updates and the whole-array gather and scatter to the class of DistArray<T, N>.
template <class T, std::size_t N, class Class>
void add_movement_methods(Class& cls) {
  namespace py = pybind11;
  using A = PyArray<T, N>;
  cls.def("update_ghosts", [](A& a) { a.array.update_ghosts(); },
          "Collective: fills the ghost layers from their owners (cached plan, one message per neighbour).")
      .def("begin_update_ghosts", [](A& a) { a.array.begin_update_ghosts(); },
           "Collective: starts a ghost update; work on the interior, then call end_update_ghosts().")
      .def("end_update_ghosts", [](A& a) { a.array.end_update_ghosts(); }, "Collective: completes it.")
      .def(
          "_timed_update_ghosts",
          [](A& a, int repetitions) {
            // The anchor of bench/python: the same update called from C++, without Python in between.
            const double started = tessera::Communicator::wtime();
            for (int k = 0; k < repetitions; ++k) a.array.update_ghosts();
            return tessera::Communicator::wtime() - started;
          },
          py::arg("repetitions"), "Collective: seconds taken by `repetitions` C++ calls of update_ghosts().")
      .def_property_readonly("ghost_update_in_flight", [](const A& a) { return a.array.ghost_update_in_flight(); })
      .def("accumulate_ghosts", [](A& a, tessera::CombineOp op) { a.array.accumulate_ghosts(op); },
           py::arg("op") = tessera::CombineOp::add, "Collective: ghost values combined into their owners.")
      .def(
          "gather",
          [](const A& a, int root) -> py::object {
            const bool mine = a.domain->domain.rank() == root;
            std::vector<py::ssize_t> shape(N, 0);
            if (mine) {
              const auto e = tessera::extents(a.domain->domain.box());
              for (std::size_t d = 0; d < N; ++d) shape[d] = e[d];
            }
            py::array_t<T> out(shape);
            a.array.gather_to(root, std::span<T>(out.mutable_data(), static_cast<std::size_t>(out.size())));
            return mine ? py::object(out) : py::object(py::none());
          },
          py::arg("root") = 0,
          "Collective: the whole array as a NumPy array (row-major, the box's shape) on `root`; None elsewhere.")
      .def(
          "gather_all",
          [](const A& a) {
            std::vector<T> all = a.array.gather_to_all();
            std::vector<py::ssize_t> shape(N);
            const auto e = tessera::extents(a.domain->domain.box());
            for (std::size_t d = 0; d < N; ++d) shape[d] = e[d];
            py::array_t<T> out(shape);
            std::copy(all.begin(), all.end(), out.mutable_data());
            return out;
          },
          "Collective: the whole array as a NumPy array on every rank.")
      .def(
          "scatter",
          [](A& a, const py::object& image, int root) {
            // An image that does not convert counts as no image, so that the size check fails on
            // every rank alike instead of raising here on the root alone (the others would wait).
            using Image = py::array_t<T, py::array::c_style | py::array::forcecast>;
            Image in;
            if (a.domain->domain.rank() == root && !image.is_none()) in = Image::ensure(image);
            const std::span<const T> values(in ? in.data() : nullptr, in ? static_cast<std::size_t>(in.size()) : 0);
            a.array.scatter_from(root, values);
          },
          py::arg("image"), py::arg("root") = 0,
          "Collective: sets the array from `image` on `root` (the global array, read in row-major order); "
          "other ranks pass None.");
}

/// The remaps between two arrays of DistArray<T, N>, as module functions (overloaded per type).
template <class T, std::size_t N>
void add_remap_functions(pybind11::module_& m) {
  namespace py = pybind11;
  using A = PyArray<T, N>;
  using tessera::index_t;
  m.def("copy", [](const A& src, A& dst) { tessera::copy(src.array, dst.array); }, py::arg("src"), py::arg("dst"),
        "Collective: dst := src, across distributions (same box).");
  m.def(
      "copy_section",
      [](const A& src, const std::pair<std::vector<index_t>, std::vector<index_t>>& box, A& dst,
         const std::vector<index_t>& dst_lo) {
        tessera::copy_section(src.array, box_of<N>(box.first, box.second, "copy_section: box"), dst.array,
                              point_of<N>(dst_lo, "copy_section: dst_lo"));
      },
      py::arg("src"), py::arg("box"), py::arg("dst"), py::arg("dst_lo"),
      "Collective: dst[dst_lo + (p - box.lo)] := src[p] for p in box = (lo, hi).");
  m.def(
      "flood",
      [](const A& src, const std::pair<std::vector<index_t>, std::vector<index_t>>& slice, A& dst) {
        tessera::flood(src.array, box_of<N>(slice.first, slice.second, "flood: slice"), dst.array);
      },
      py::arg("src"), py::arg("slice"), py::arg("dst"),
      "Collective: ZPL's flood: every replica of dst (an array with a flooded axis) := src over slice = (lo, hi).");
  m.def(
      "transpose",
      [](const A& src, A& dst, const std::vector<int>& perm) {
        if (perm.size() != N)
          tessera::fail(tessera::ErrorCode::invalid_argument, "transpose: perm has ", perm.size(), " entries, not ", N);
        std::array<int, N> p{};
        std::copy(perm.begin(), perm.end(), p.begin());
        tessera::transpose(src.array, dst.array, p);
      },
      py::arg("src"), py::arg("dst"), py::arg("perm"),
      "Collective: the axis permutation dst(q) = src(p) with q[d] = p[perm[d]] (counted from each box's lo).");
}

}  // namespace tessera_python
