// Checkpoints: tessera::io::save / load of named arrays of one domain, any element types, through
// the template-free CheckpointRequest the C++ functions build (io/checkpoint_request.hpp).
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include <pybind11/complex.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "communicator.hpp"
#include "convert.hpp"
#include "holders.hpp"

namespace py = pybind11;

namespace tessera_python {
namespace {

// The request for `arrays` (name -> array), which must all be N-dimensional over one domain.
template <std::size_t N>
tessera::io::detail::CheckpointRequest request_of(const char* where, const std::shared_ptr<PyDomain<N>>& domain,
                                                  const std::map<std::string, py::object>& arrays) {
  tessera::io::detail::CheckpointRequest request = tessera::io::detail::describe_domain(domain->domain);
  for (const auto& [name, object] : arrays) {
    bool found = false;
    const auto add_if_of_type = [&](auto type) {
      using T = decltype(type);
      if (found || !py::isinstance<PyArray<T, N>>(object)) return;
      found = true;
      const auto& a = py::cast<const PyArray<T, N>&>(object);
      if (a.domain != domain)
        tessera::fail(tessera::ErrorCode::mismatch, where, ": array '", name,
                      "' is over another domain than the first array; a checkpoint holds arrays of one domain");
      request.arrays.push_back(tessera::io::detail::describe_array(name, a.array));
    };
    std::apply([&](auto... type) { (add_if_of_type(type), ...); }, ElementTypes{});
    if (!found)
      tessera::fail(tessera::ErrorCode::invalid_argument, where, ": '", name, "' is not a ", N,
                    "-dimensional tessera.DistArray like the first array");
  }
  return request;
}

// Calls f(domain holder) for the domain of the first array, whatever its dimension and type.
template <class F>
auto with_first_domain(const char* where, const std::map<std::string, py::object>& arrays, F&& f) {
  if (arrays.empty()) tessera::fail(tessera::ErrorCode::invalid_argument, where, ": no arrays given");
  const py::object& first = arrays.begin()->second;
  const py::object domain = first.attr("domain");
  if (py::isinstance<PyDomain<1>>(domain)) return f(domain.cast<std::shared_ptr<PyDomain<1>>>());
  if (py::isinstance<PyDomain<2>>(domain)) return f(domain.cast<std::shared_ptr<PyDomain<2>>>());
  if (py::isinstance<PyDomain<3>>(domain)) return f(domain.cast<std::shared_ptr<PyDomain<3>>>());
  tessera::fail(tessera::ErrorCode::invalid_argument, where, ": '", arrays.begin()->first,
                "' is not a tessera.DistArray");
}

}  // namespace

void bind_io(py::module_& m) {
  m.def(
      "save",
      [](const std::string& path, const std::map<std::string, py::object>& arrays,
         const tessera::io::Attributes& attributes) {
        with_first_domain("tessera.save", arrays, [&](const auto& domain) {
          tessera::io::detail::save_checkpoint(path, attributes, request_of("tessera.save", domain, arrays));
        });
      },
      py::arg("path"), py::arg("arrays"), py::arg("attributes") = tessera::io::Attributes{},
      "Collective: writes the arrays (name -> DistArray, one domain) and the attributes (name -> int or float) "
      "to a parallel HDF5 checkpoint, atomically, each dataset checksummed.");
  m.def(
      "load",
      [](const std::string& path, const std::map<std::string, py::object>& arrays) {
        return with_first_domain("tessera.load", arrays, [&](const auto& domain) {
          return tessera::io::detail::load_checkpoint(path, request_of("tessera.load", domain, arrays));
        });
      },
      py::arg("path"), py::arg("arrays"),
      "Collective: reads the arrays (name -> DistArray) from a checkpoint written on any number of ranks and any "
      "distribution, verifying checksums; returns the attributes.");
  m.def(
      "saved_boxes",
      [](const std::string& path, const py::object& comm) {
        const auto t = tessera::io::detail::read_box_table(*communicator_of(comm), path);
        const auto corner = [&](std::size_t box, std::size_t which) {
          py::tuple c(t.dims);
          for (std::size_t d = 0; d < t.dims; ++d) c[d] = t.box_corners[(2 * box + which) * t.dims + d];
          return c;
        };
        py::list boxes;
        for (std::size_t i = 0; i < t.box_owners.size(); ++i) boxes.append(py::make_tuple(corner(i, 0), corner(i, 1)));
        py::dict out;
        out["domain"] = py::make_tuple(py::tuple(py::cast(t.domain_lo)), py::tuple(py::cast(t.domain_hi)));
        out["boxes"] = boxes;
        out["owners"] = py::cast(t.box_owners);
        out["ranks"] = t.ranks;
        return out;
      },
      py::arg("path"), py::arg("comm") = py::none(),
      "Collective over comm (default MPI.COMM_WORLD): the box table of a checkpoint saved from a box-set domain, "
      "as a dict: domain ((lo), (hi)), boxes [((lo), (hi)), ...], owners [rank per box], ranks (that saved). "
      "Pass boxes and owners (or owners of your own) to tessera.box_set to restart on the same boxes.");
}

}  // namespace tessera_python
