// The compiled part of `import tessera`: tessera._tessera. The package tessera/ (python/tessera)
// imports mpi4py first, then this module, and adds the Python-level classes that dispatch to the
// instantiations bound here (docs/python.md).
#include <pybind11/pybind11.h>

#include "bindings.hpp"
#include "communicator.hpp"
#include "errors.hpp"

PYBIND11_MODULE(_tessera, m) {
  m.doc() = "tessera's C++ classes for 1-3 dimensions and five element types; use the package `tessera`.";
  tessera_python::bind_errors(m);
  tessera_python::bind_mpi_lifetime(m);
  tessera_python::bind_distributions(m);
  tessera_python::bind_domains(m);
  tessera_python::bind_arrays_float32(m);
  tessera_python::bind_arrays_float64(m);
  tessera_python::bind_arrays_int32(m);
  tessera_python::bind_arrays_int64(m);
  tessera_python::bind_arrays_complex128(m);
  tessera_python::bind_sparse(m);
  tessera_python::bind_associative(m);
  tessera_python::bind_balance(m);
  tessera_python::bind_io(m);
  tessera_python::bind_pictures(m);
  tessera_python::bind_groups(m);
  tessera_python::bind_multiblock_domains(m);
  tessera_python::bind_multiblock_arrays(m);
  tessera_python::bind_levels(m);
}
