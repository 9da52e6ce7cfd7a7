#pragma once
// The part of a DistArray class that reads and writes this rank's storage: NumPy views without a
// copy (`local`, `local_with_ghosts`), the owned box, global indices of the owned part, element
// access by global index, fill.
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "convert.hpp"
#include "holders.hpp"

namespace tessera_python {

namespace detail {

/// A NumPy array over `first` with `shape` and byte `strides`, whose base object is a ViewGuard of
/// `a` (holders.hpp, "The view rule"): a capsule owning the guard, deleted with the last view.
template <class T, std::size_t N>
pybind11::array guarded_array(const std::shared_ptr<PyArray<T, N>>& a, std::vector<pybind11::ssize_t> shape,
                              std::vector<pybind11::ssize_t> strides, T* first) {
  namespace py = pybind11;
  py::capsule guard(new ViewGuard<T, N>(a), [](void* g) { delete static_cast<ViewGuard<T, N>*>(g); });
  return py::array_t<T>(std::move(shape), std::move(strides), first, guard);
}

/// A NumPy array over `extents` elements of patch `view`'s storage starting at `first`, whose base
/// object is a ViewGuard of `a` (holders.hpp, "The view rule"). A rank that stores no patch gets an
/// empty array without storage.
template <class T, std::size_t N>
pybind11::array view_of(const std::shared_ptr<PyArray<T, N>>& a, std::size_t patch, bool with_ghosts) {
  namespace py = pybind11;
  if (patch >= a->array.patch_count()) {
    if (patch == 0) return py::array_t<T>(std::vector<py::ssize_t>(N, 0));
    (void)a->array.local(patch);  // throws Error(out_of_range) naming the patch
  }
  const tessera::LocalView<T, N> v = a->array.local(patch);
  std::vector<py::ssize_t> shape(N), strides(N);
  T* first = v.data;
  for (std::size_t d = 0; d < N; ++d) {
    shape[d] = with_ghosts ? v.extents[d] : v.count[d];
    strides[d] = static_cast<py::ssize_t>(v.strides[d] * static_cast<tessera::index_t>(sizeof(T)));
    if (!with_ghosts) first += v.ghost_lo[d] * v.strides[d];
  }
  return guarded_array(a, std::move(shape), std::move(strides), first);
}

/// A 1-D NumPy array over this rank's whole buffer (`DistArray::storage`, ghosts included), guarded
/// like a view: under a local layout, point p is at element `dist.local_offset(p)`.
template <class T, std::size_t N>
pybind11::array storage_of(const std::shared_ptr<PyArray<T, N>>& a) {
  namespace py = pybind11;
  const std::span<T> buffer = a->array.storage();
  if (buffer.empty()) return py::array_t<T>(std::vector<py::ssize_t>{0});
  return guarded_array(a, {static_cast<py::ssize_t>(buffer.size())}, {static_cast<py::ssize_t>(sizeof(T))},
                       buffer.data());
}

}  // namespace detail

/// Adds the storage methods to the class of DistArray<T, N>.
template <class T, std::size_t N, class Class>
void add_view_methods(Class& cls) {
  namespace py = pybind11;
  using A = PyArray<T, N>;
  using tessera::index_t;
  cls.def_property_readonly(
         "local", [](const std::shared_ptr<A>& a) { return detail::view_of(a, 0, false); },
         "The owned part of this rank's storage as a NumPy view (no copy). Holding it blocks redistributions.")
      .def_property_readonly(
          "local_with_ghosts", [](const std::shared_ptr<A>& a) { return detail::view_of(a, 0, true); },
          "The owned part and its ghost layers as a NumPy view (no copy).")
      .def_property_readonly(
          "storage", [](const std::shared_ptr<A>& a) { return detail::storage_of(a); },
          "This rank's whole buffer as a 1-D NumPy view (no copy), ghosts included: under a local layout "
          "(Distribution.has_local_layout) owned point p is at storage[dist.local_offset(p)], the ghost cells "
          "after the owned points (read them with a[p]). Holding it blocks redistributions.")
      .def(
          "local_patch", [](const std::shared_ptr<A>& a, std::size_t patch, bool ghosts) {
            return detail::view_of(a, patch, ghosts);
          },
          py::arg("patch"), py::arg("with_ghosts") = false, "The view of one patch (see patch_count).")
      .def_property_readonly("patch_count", [](const A& a) { return a.array.patch_count(); })
      .def(
          "owned_box", [](const A& a, std::size_t patch) { return tuple_of(a.array.owned_box(patch)); },
          py::arg("patch") = 0, "(lo, hi) of what this rank owns (the bounding box along cyclic axes).")
      .def(
          "global_indices",
          [](const A& a, std::size_t axis, std::size_t patch) {
            if (axis >= N) tessera::fail_argument("DistArray.global_indices", "axis", axis, "is not an axis");
            std::vector<index_t> out;
            if (patch >= a.array.patch_count() && patch == 0) return out;
            const auto& ax = a.array.layout().patches().at(patch).axes[axis];
            for (index_t k = 0; k < ax.count; ++k) out.push_back(ax.global(ax.ghost_lo + k));
            return out;
          },
          py::arg("axis"), py::arg("patch") = 0,
          "The global index of each owned local index along `axis` (local[..., k, ...] holds global index "
          "global_indices(axis)[k]).")
      .def(
          "storage_offset",
          [](A& a, const std::vector<index_t>& p) {
            return static_cast<index_t>(&a.array.at(point_of<N>(p, "storage_offset")) - a.array.storage().data());
          },
          py::arg("point"),
          "Where `point` (owned, or in a ghost layer of this rank) is in `storage`: under any layout, ghost cells "
          "of a local layout included (in the slabs after the owned points). OutOfRangeError if this rank does not "
          "store it.")
      .def("__getitem__",
           [](A& a, const std::vector<index_t>& p) { return a.array.at(point_of<N>(p, "DistArray[]")); })
      .def("__setitem__",
           [](A& a, const std::vector<index_t>& p, const T& x) { a.array.at(point_of<N>(p, "DistArray[]")) = x; })
      .def(
          "fill", [](A& a, const T& x) { std::fill(a.array.storage().begin(), a.array.storage().end(), x); },
          py::arg("value"), "Sets every stored element, ghosts included.");
  if constexpr (N == 1) {  // a[i] as well as a[(i,)]
    cls.def("__getitem__", [](A& a, index_t i) { return a.array.at(tessera::Point<1>{i}); })
        .def("__setitem__", [](A& a, index_t i, const T& x) { a.array.at(tessera::Point<1>{i}) = x; });
  }
}

}  // namespace tessera_python
