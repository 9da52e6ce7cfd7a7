#include "communicator.hpp"

#include <map>

#include <mpi.h>
#include <mpi4py/mpi4py.h>

namespace py = pybind11;

namespace tessera_python {

std::shared_ptr<const tessera::Communicator> communicator_of(py::handle comm) {
  // mpi4py's C API is imported on first use, after tessera/__init__.py imported mpi4py.MPI.
  static const bool imported = [] {
    if (import_mpi4py() < 0) throw py::error_already_set();
    return true;
  }();
  (void)imported;
  py::object world;
  if (comm.is_none()) {
    world = py::module_::import("mpi4py.MPI").attr("COMM_WORLD");
    comm = world;
  }
  MPI_Comm* raw = PyMPIComm_Get(comm.ptr());  // NULL with a TypeError set for a non-communicator
  if (raw == nullptr) throw py::error_already_set();
  // One tessera Communicator per MPI communicator: arrays must share the Communicator object to be
  // remapped into each other (copy, transpose), so domains over one mpi4py communicator share it.
  // Kept to the end of the program, so that whether a call duplicates (a collective) depends only
  // on the communicators passed so far, alike on every rank, not on when Python frees objects. A
  // handle MPI reused for another group of ranks is recognised by comparing the groups.
  static std::map<MPI_Comm, std::shared_ptr<const tessera::Communicator>> known;
  auto it = known.find(*raw);
  if (it != known.end()) {
    int relation = MPI_UNEQUAL;
    tessera::check_mpi(MPI_Comm_compare(*raw, it->second->raw(), &relation), "MPI_Comm_compare");
    if (relation == MPI_CONGRUENT) return it->second;
  }
  auto made = std::make_shared<const tessera::Communicator>(*raw);
  known[*raw] = made;
  return made;
}

void bind_mpi_lifetime(py::module_& m) {
  m.def("_initialize_mpi", [] {
    int provided = 0;
    tessera::check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread");
  });
  m.def("_finalize_mpi", [] {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  });
}

}  // namespace tessera_python
