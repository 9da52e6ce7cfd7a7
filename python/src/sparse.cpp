// Chapel's sparse subdomains (SparseDomain<N>, N = 1..3) and arrays over them (SparseArray<T, N>,
// float64 and int64: the C API's scope less its float32 and int32). Point batches are NumPy arrays
// of shape (k, N); a conversion failure on one rank is raised on every rank (collections.hpp).
// `values` is a NumPy view; add and remove reallocate it, so they refuse while views are alive.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "collections.hpp"
#include "convert.hpp"
#include "errors.hpp"
#include "holders.hpp"

namespace py = pybind11;

namespace tessera_python {
namespace {

template <std::size_t N>
void bind_sparse_domain(py::module_& m) {
  using S = PySparse<N>;
  py::class_<S, std::shared_ptr<S>>(m, class_name<N>("SparseDomain").c_str(),
                                    "A distributed sparse set of indices of a parent domain, each on the rank "
                                    "that owns it there (C++ tessera::SparseDomain<N>).")
      .def(py::init([](std::shared_ptr<PyDomain<N>> parent) { return std::make_shared<S>(std::move(parent)); }),
           py::arg("parent"))
      .def_property_readonly("ndim", [](const S&) { return N; })
      .def_property_readonly("parent", [](const S& s) { return s.parent; })
      .def(
          "add",
          [](S& s, const py::object& points) {
            const auto batch = agreed_batch(s.sparse.comm(), [&] { return point_batch<N>(points, "SparseDomain.add: points"); });
            refuse_if_any_views(s.sparse.comm(), s.live_views, "SparseDomain.add", "this sparse domain's arrays");
            s.sparse.add(batch);
          },
          py::arg("points"),
          "Collective: adds this rank's batch of points (shape (k, N); any points of the parent's box, repeats "
          "allowed); each goes to its owner. New points get 0 in every array.")
      .def(
          "remove",
          [](S& s, const py::object& points) {
            const auto batch =
                agreed_batch(s.sparse.comm(), [&] { return point_batch<N>(points, "SparseDomain.remove: points"); });
            refuse_if_any_views(s.sparse.comm(), s.live_views, "SparseDomain.remove", "this sparse domain's arrays");
            s.sparse.remove(batch);
          },
          py::arg("points"), "Collective: removes this rank's batch of points (absent ones are ignored).")
      .def(
          "contains",
          [](const S& s, const py::object& points) {
            const auto batch =
                agreed_batch(s.sparse.comm(), [&] { return point_batch<N>(points, "SparseDomain.contains: points"); });
            const std::vector<std::uint8_t> held = s.sparse.contains(batch);
            py::array_t<bool> out(static_cast<py::ssize_t>(held.size()));
            for (std::size_t k = 0; k < held.size(); ++k) out.mutable_data()[k] = held[k] != 0;
            return out;
          },
          py::arg("points"), "Collective: for each of this rank's points, whether the set holds it (a bool array).")
      .def("size", [](const S& s) { return s.sparse.size(); }, "Collective: the number of points on all ranks.")
      .def_property_readonly("local_size", [](const S& s) { return s.sparse.local_size(); })
      .def("local_points", [](const S& s) { return point_array<N>(s.sparse.points()); },
           "This rank's points, shape (k, N), in the order of its arrays' values (a copy).")
      .def_property_readonly("live_views", [](const S& s) { return s.live_views; });
}

/// A NumPy view of the values whose base object counts it (holders.hpp, SparseViewGuard).
template <class T, std::size_t N>
py::array_t<T> sparse_values_view(const std::shared_ptr<PySparseArray<T, N>>& a) {
  const auto v = a->array.values();
  if (v.empty()) return py::array_t<T>(0);
  py::capsule guard(new SparseViewGuard<T, N>(a), [](void* g) { delete static_cast<SparseViewGuard<T, N>*>(g); });
  return py::array_t<T>({static_cast<py::ssize_t>(v.size())}, {static_cast<py::ssize_t>(sizeof(T))}, v.data(), guard);
}

template <class T, std::size_t N>
void bind_sparse_array(py::module_& m) {
  using A = PySparseArray<T, N>;
  const std::string name = std::string("SparseArray_") + dtype_name<T>() + "_" + std::to_string(N) + "D";
  py::class_<A, std::shared_ptr<A>>(m, name.c_str(), "Values over a sparse subdomain (C++ tessera::SparseArray<T, N>).")
      .def(py::init([](std::shared_ptr<PySparse<N>> s) { return std::make_shared<A>(std::move(s)); }), py::arg("sparse"))
      .def_property_readonly("ndim", [](const A&) { return N; })
      .def_property_readonly("dtype", [](const A&) { return py::dtype::of<T>(); })
      .def_property_readonly("sparse", [](const A& a) { return a.sparse; })
      .def_property_readonly("values", &sparse_values_view<T, N>,
                             "This rank's values in the order of sparse.local_points() (a NumPy view).")
      .def(
          "update_ghosts",
          [](A& a, const py::object& ghosts) {
            const auto lists = py::module_::import("tessera._layout").attr("Ghosts").attr("of")(ghosts).attr("lists")(N);
            const auto t = lists.cast<py::tuple>();
            a.array.update_ghosts(ghost_spec_of<N>(t[0].cast<std::vector<tessera::index_t>>(),
                                                   t[1].cast<std::vector<tessera::index_t>>(),
                                                   t[2].cast<std::vector<bool>>(), t[3].cast<bool>()));
          },
          py::arg("ghosts") = 1,
          "Collective: fetches the held neighbours a dense array with these ghosts (an int or a Ghosts: "
          "widths, periodic, corners) would read; find() then answers for them.")
      .def(
          "update_offsets",
          [](A& a, const py::object& offsets, const std::vector<bool>& periodic) {
            const auto batch = agreed_batch(a.sparse->sparse.comm(),
                                            [&] { return point_batch<N>(offsets, "SparseArray.update_offsets: offsets"); });
            tessera::Periodicity<N> wrap{};
            if (!periodic.empty()) {
              if (periodic.size() != N)
                tessera::fail(tessera::ErrorCode::invalid_argument, "SparseArray.update_offsets: periodic has ",
                              periodic.size(), " entries, not ", N);
              for (std::size_t d = 0; d < N; ++d) wrap[d] = periodic[d];
            }
            a.array.update_ghosts(batch, wrap);
          },
          py::arg("offsets"), py::arg("periodic") = std::vector<bool>{},
          "Collective: fetches the values at p + o for every held p and offset o (shape (k, N)).")
      .def(
          "find",
          [](const A& a, const std::vector<tessera::index_t>& point) -> std::optional<T> {
            const T* v = a.array.find(point_of<N>(point, "SparseArray.find: point"));
            return v != nullptr ? std::optional<T>(*v) : std::nullopt;
          },
          py::arg("point"), "The value at `point` if held or fetched by a ghost update here, else None.")
      .def("sum", [](const A& a) { return a.array.sum(); }, "Collective.")
      .def("min", [](const A& a) { return a.array.min(); }, "Collective; an empty set raises.")
      .def("max", [](const A& a) { return a.array.max(); }, "Collective; an empty set raises.")
      .def(
          "gather_to",
          [](const A& a, int root) {
            const auto image = a.array.gather_to(root);
            return py::make_tuple(point_array<N>(image.points), value_array<T>(image.values));
          },
          py::arg("root") = 0,
          "Collective: (points, values) of every point on `root`, sorted by point (empty elsewhere).");
}

template <std::size_t N>
void bind_sparse_of_dimension(py::module_& m) {
  bind_sparse_domain<N>(m);
  bind_sparse_array<double, N>(m);
  bind_sparse_array<std::int64_t, N>(m);
}

}  // namespace

void bind_sparse(py::module_& m) {
  bind_sparse_of_dimension<1>(m);
  bind_sparse_of_dimension<2>(m);
  bind_sparse_of_dimension<3>(m);
}

}  // namespace tessera_python
