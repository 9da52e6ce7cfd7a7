// ZPL's disjoint grids from Python: ProcessorGroups (exchange/processor_groups.hpp), whose group
// communicator comes back as an mpi4py communicator to build domains on, and the copies between
// two groups' arrays (array/group_copy.hpp), one compiled function per element type and dimension
// (tessera/_groups.py picks it: a rank in neither group has no array to tell the type).
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <mpi.h>
#include <mpi4py/mpi4py.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "communicator.hpp"
#include "convert.hpp"
#include "holders.hpp"

namespace py = pybind11;

namespace tessera_python {
namespace {

/// Processor groups with the parent communicator they were split from (declared first: it must
/// outlive the groups) and, once asked for, the mpi4py face of this rank's group communicator.
struct PyProcessorGroups {
  PyProcessorGroups(std::shared_ptr<const tessera::Communicator> p, std::vector<std::vector<int>> lists)
      : parent(std::move(p)), groups(*parent, std::move(lists)) {}
  std::shared_ptr<const tessera::Communicator> parent;
  tessera::ProcessorGroups groups;
  py::object group_comm;  ///< an mpi4py.MPI.Comm over groups.communicator() (not owned by mpi4py)
};

/// The mpi4py communicator naming this rank's group communicator (made once, then the same
/// object). mpi4py does not own the handle: tessera frees it with the groups.
py::object mpi4py_group_comm(PyProcessorGroups& g) {
  const tessera::Communicator& comm = g.groups.communicator();  // an Error on a rank in no group
  if (!g.group_comm) {
    // mpi4py's C API pointers are per translation unit: import them here too.
    static const bool imported = [] {
      if (import_mpi4py() < 0) throw py::error_already_set();
      return true;
    }();
    (void)imported;
    PyObject* made = PyMPIComm_New(comm.raw());
    if (made == nullptr) throw py::error_already_set();
    g.group_comm = py::reinterpret_steal<py::object>(made);
  }
  return g.group_comm;
}

/// The array `arg` names on this rank (None: nullptr), or a refusal naming `argument` when it is
/// not a DistArray of element type T and N dimensions (agreed on before the copy).
template <class T, std::size_t N>
tessera::DistArray<T, N>* group_array_of(const py::object& arg, const char* argument,
                                         std::optional<tessera::Error>& refused) {
  if (arg.is_none()) return nullptr;
  if (py::isinstance<PyArray<T, N>>(arg)) return &arg.cast<PyArray<T, N>&>().array;
  if (!refused)
    refused = tessera::Error(tessera::ErrorCode::invalid_argument,
                             tessera::detail::concat("copy_between_groups: argument '", argument, "' is a ",
                                                     std::string(py::str(py::type::of(arg).attr("__name__"))),
                                                     ", not a ", array_class_name<T, N>(), " (or None)"));
  return nullptr;
}

/// `_copy_between_groups_<dtype>_<N>D(groups, from_group, from_dist, src, to_group, to_dist, dst,
/// box, dst_lo)`: the whole box when `box` is None, else copy_section_between_groups.
template <class T, std::size_t N>
void bind_group_copy(py::module_& m) {
  using tessera::index_t;
  using Box = std::optional<std::pair<std::vector<index_t>, std::vector<index_t>>>;
  const std::string name = std::string("_copy_between_groups_") + dtype_name<T>() + "_" + std::to_string(N) + "D";
  m.def(
      name.c_str(),
      [](const PyProcessorGroups& g, int from_group, const tessera::Distribution<N>& from, const py::object& src,
         int to_group, const tessera::Distribution<N>& to, const py::object& dst, const Box& box,
         const std::optional<std::vector<index_t>>& dst_lo) {
        std::optional<tessera::Error> refused;
        const tessera::DistArray<T, N>* s = group_array_of<T, N>(src, "src", refused);
        tessera::DistArray<T, N>* d = group_array_of<T, N>(dst, "dst", refused);
        g.groups.parent().agree(refused);  // a wrong array on one rank: an Error on every rank
        if (!box) return tessera::copy_between_groups<T, N>(g.groups, from_group, from, s, to_group, to, d);
        tessera::copy_section_between_groups<T, N>(
            g.groups, from_group, from, s, box_of<N>(box->first, box->second, "copy_section_between_groups: box"),
            to_group, to, d, point_of<N>(dst_lo.value_or(std::vector<index_t>{}), "copy_section_between_groups: dst_lo"));
      },
      py::arg("groups"), py::arg("from_group"), py::arg("from_dist"), py::arg("src"), py::arg("to_group"),
      py::arg("to_dist"), py::arg("dst"), py::arg("box"), py::arg("dst_lo"));
}

template <class... T>
void bind_group_copies(py::module_& m, std::tuple<T...>*) {
  (bind_group_copy<T, 1>(m), ...);
  (bind_group_copy<T, 2>(m), ...);
  (bind_group_copy<T, 3>(m), ...);
}

}  // namespace

void bind_groups(py::module_& m) {
  using G = PyProcessorGroups;
  py::class_<G, std::shared_ptr<G>>(m, "ProcessorGroups",
                                    "Disjoint groups of the ranks of a communicator, each with its own "
                                    "communicator (C++ tessera::ProcessorGroups).")
      .def(py::init([](const std::vector<std::vector<int>>& groups, py::object comm) {
             return std::make_shared<G>(communicator_of(comm), groups);
           }),
           py::arg("groups"), py::arg("comm") = py::none(),
           "Collective over `comm` (MPI.COMM_WORLD by default): splits it into `groups`, lists of its "
           "ranks, the same on every rank; group rank i of group g is groups[g][i].")
      .def_property_readonly("count", [](const G& g) { return g.groups.count(); }, "Number of groups.")
      .def("size", [](const G& g, int group) { return g.groups.size(group); }, py::arg("group"),
           "Ranks in `group`.")
      .def("parent_ranks", [](const G& g, int group) { return g.groups.parent_ranks(group); }, py::arg("group"),
           "The parent ranks of `group`: entry i is the parent rank of group rank i.")
      .def("group_rank", [](const G& g, int group, int rank) { return g.groups.group_rank(group, rank); },
           py::arg("group"), py::arg("parent_rank"), "The rank in `group` of a parent rank, or None.")
      .def("group_of", [](const G& g, int rank) { return g.groups.group_of(rank); }, py::arg("parent_rank"),
           "The group holding a parent rank, or None.")
      .def_property_readonly("my_group", [](const G& g) { return g.groups.my_group(); },
                             "This rank's group, or None.")
      .def_property_readonly("comm", &mpi4py_group_comm,
                             "This rank's group communicator (an mpi4py communicator, for Domain(..., comm=)); "
                             "valid while this object lives; do not Free it. InvalidArgumentError in no group.");
  bind_group_copies(m, static_cast<ElementTypes*>(nullptr));
}

}  // namespace tessera_python
