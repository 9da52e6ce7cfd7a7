// The DistArray classes of element type float (see arrays.hpp).
#include <complex>
#include <cstdint>

#include <pybind11/complex.h>

#include "arrays.hpp"
#include "bindings.hpp"

namespace tessera_python {

void bind_arrays_float32(pybind11::module_& m) { bind_arrays<float>(m); }

}  // namespace tessera_python
