// The DistArray classes of element type double (see arrays.hpp).
#include <complex>
#include <cstdint>

#include <pybind11/complex.h>

#include "arrays.hpp"
#include "bindings.hpp"

namespace tessera_python {

void bind_arrays_float64(pybind11::module_& m) { bind_arrays<double>(m); }

}  // namespace tessera_python
