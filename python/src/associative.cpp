// Chapel's associative domains of int64 or str keys, hashed over a communicator
// (AssociativeDomain<Key>), and arrays over them (AssociativeArray<Key, T>, float64 and int64): the
// C API's operations, plus str keys. Batches of int64 keys and of values are 1-D NumPy arrays,
// batches of str keys lists; every key operation is collective, and a batch that fails to convert
// on one rank raises on every rank.
#include <cstdint>
#include <string>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "collections.hpp"
#include "communicator.hpp"
#include "convert.hpp"
#include "errors.hpp"
#include "holders.hpp"

namespace py = pybind11;

namespace tessera_python {
namespace {

/// "int64" or "str": the suffix of the bound class names and `key_type` in Python.
template <class Key>
constexpr const char* key_type_name() {
  return std::is_same_v<Key, std::string> ? "str" : "int64";
}

/// Collective: this rank's batch of keys (an int64 array, or a list of str), agreed across ranks.
template <class Key>
std::vector<Key> agreed_keys(const PyAssoc<Key>& a, const py::object& keys, const char* what) {
  return agreed_batch(*a.comm, [&] {
    if constexpr (std::is_same_v<Key, std::string>) {
      try {
        return keys.cast<std::vector<std::string>>();
      } catch (const py::cast_error&) {
        tessera::fail(tessera::ErrorCode::invalid_argument, what, ": a list of str expected");
      }
    } else {
      return flat_batch<std::int64_t>(keys, what);
    }
  });
}

/// Keys for Python: an int64 array or a list of str (copies).
template <class Key>
py::object keys_out(std::span<const Key> keys) {
  if constexpr (std::is_same_v<Key, std::string>)
    return py::cast(std::vector<std::string>(keys.begin(), keys.end()));
  else
    return value_array<std::int64_t>(keys);
}

template <class Key>
void bind_assoc_domain(py::module_& m) {
  using D = PyAssoc<Key>;
  const std::string name = std::string("AssociativeDomain_") + key_type_name<Key>();
  py::class_<D, std::shared_ptr<D>>(m, name.c_str(),
                                    "A distributed set of keys, each on the rank its hash names "
                                    "(C++ tessera::AssociativeDomain<Key>).")
      .def(py::init([](py::object comm) { return std::make_shared<D>(communicator_of(comm)); }),
           py::arg("comm") = py::none())
      .def_property_readonly("key_type", [](const D&) { return key_type_name<Key>(); })
      .def(
          "insert",
          [](D& a, const py::object& keys) { a.assoc.insert(agreed_keys(a, keys, "AssociativeDomain.insert: keys")); },
          py::arg("keys"), "Collective: inserts this rank's batch of keys (repeats allowed).")
      .def(
          "remove",
          [](D& a, const py::object& keys) { a.assoc.remove(agreed_keys(a, keys, "AssociativeDomain.remove: keys")); },
          py::arg("keys"), "Collective: removes this rank's batch of keys (absent ones are ignored).")
      .def(
          "contains",
          [](const D& a, const py::object& keys) {
            const std::vector<bool> held = a.assoc.contains(agreed_keys(a, keys, "AssociativeDomain.contains: keys"));
            py::array_t<bool> out(static_cast<py::ssize_t>(held.size()));
            for (std::size_t k = 0; k < held.size(); ++k) out.mutable_data()[k] = held[k];
            return out;
          },
          py::arg("keys"), "Collective: for each of this rank's keys, whether the domain holds it.")
      .def("size", [](const D& a) { return a.assoc.size(); }, "Collective: the number of keys on all ranks.")
      .def_property_readonly("local_size", [](const D& a) { return a.assoc.local_size(); })
      .def_property_readonly(
          "buffer_bytes", [](const D& a) { return a.assoc.buffer_bytes(); },
          "Bytes this rank keeps for batches (receive room, order, owners), as large as the largest batch so far.")
      .def(
          "release_buffers", [](D& a) { a.assoc.release_buffers(); },
          "Frees buffer_bytes on this rank (local, not collective); the next batch allocates again.")
      .def("local_keys", [](const D& a) { return keys_out<Key>(a.assoc.local_keys()); },
           "This rank's keys in slot order (a copy); local_values() of its arrays follow the same order.");
}

/// Each key's value becomes op(value, incoming): the dense movers' combine (plan/combine_op.hpp).
template <class Key, class T>
void assoc_update(PyAssocArray<Key, T>& a, const std::vector<Key>& keys, const std::vector<T>& values,
                  tessera::CombineOp op, bool insert_missing) {
  const auto missing = insert_missing ? tessera::MissingKeys::insert : tessera::MissingKeys::error;
  if (op == tessera::CombineOp::replace)
    return a.array.update(keys, std::span<const T>(values), tessera::ReplaceValue{}, missing);
  const tessera::CombineFn fn = tessera::combine_function<T>(op);
  a.array.update(
      keys, std::span<const T>(values),
      [fn](const T& mine, const T& incoming) {
        T out = mine;
        fn(&out, &incoming, 1);
        return out;
      },
      missing);
}

/// Collective: the smallest (`largest` false) or largest value; an empty domain raises on every rank.
template <class Key, class T>
T assoc_extreme(const PyAssocArray<Key, T>& a, bool largest, const char* where) {
  if (a.domain->assoc.size() == 0) tessera::fail_argument(where, "array", 0, "is over an empty associative domain");
  if (largest)
    return a.array.reduce([](const T& x, const T& y) { return x < y ? y : x; }, std::numeric_limits<T>::lowest());
  return a.array.reduce([](const T& x, const T& y) { return y < x ? y : x; }, std::numeric_limits<T>::max());
}

template <class Key, class T>
void bind_assoc_array(py::module_& m) {
  using A = PyAssocArray<Key, T>;
  const std::string name = std::string("AssociativeArray_") + key_type_name<Key>() + "_" + dtype_name<T>();
  py::class_<A, std::shared_ptr<A>>(m, name.c_str(),
                                    "Values over an associative domain (C++ tessera::AssociativeArray<int64, T>).")
      .def(py::init([](std::shared_ptr<PyAssoc<Key>> d) { return std::make_shared<A>(std::move(d)); }), py::arg("domain"))
      .def_property_readonly("dtype", [](const A&) { return py::dtype::of<T>(); })
      .def_property_readonly("domain", [](const A& a) { return a.domain; })
      .def(
          "update",
          [](A& a, const py::object& keys, const py::object& values, tessera::CombineOp op, bool insert_missing) {
            const auto k = agreed_keys(*a.domain, keys, "AssociativeArray.update: keys");
            const auto v = agreed_batch(*a.domain->comm, [&] { return flat_batch<T>(values, "AssociativeArray.update: values"); });
            assoc_update(a, k, v, op, insert_missing);
          },
          py::arg("keys"), py::arg("values"), py::arg("op") = tessera::CombineOp::replace,
          py::arg("insert_missing") = false,
          "Collective: each key's value becomes op(value, v) for each v sent for it (CombineOp.replace, add, "
          "multiply, min, max). A key not in the domain raises on every rank, or with insert_missing is "
          "inserted with the first value sent for it.")
      .def(
          "lookup",
          [](const A& a, const py::object& keys, std::optional<T> missing) {
            const auto k = agreed_keys(*a.domain, keys, "AssociativeArray.lookup: keys");
            const std::vector<T> found = missing ? a.array.lookup(k, *missing) : a.array.lookup(k);
            return value_array<T>(found);
          },
          py::arg("keys"), py::arg("missing") = py::none(),
          "Collective: the values of this rank's keys, in order; a key not in the domain raises on every rank "
          "unless `missing` gives its value.")
      .def("sum", [](const A& a) { return a.array.reduce(tessera::WrappingPlus{}, T{}); }, "Collective.")
      .def("min", [](const A& a) { return assoc_extreme(a, false, "AssociativeArray.min"); }, "Collective.")
      .def("max", [](const A& a) { return assoc_extreme(a, true, "AssociativeArray.max"); }, "Collective.")
      .def("local_values", [](const A& a) { return value_array<T>(a.array.local_values()); },
           "This rank's values in the order of domain.local_keys() (a copy).");
}

template <class Key>
void bind_assoc_of_key(py::module_& m) {
  bind_assoc_domain<Key>(m);
  bind_assoc_array<Key, double>(m);
  bind_assoc_array<Key, std::int64_t>(m);
}

}  // namespace

void bind_associative(py::module_& m) {
  bind_assoc_of_key<std::int64_t>(m);
  bind_assoc_of_key<std::string>(m);
}

}  // namespace tessera_python
