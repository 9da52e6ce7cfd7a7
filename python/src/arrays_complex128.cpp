// The DistArray classes of element type std::complex<double> (see arrays.hpp).
#include <complex>
#include <cstdint>

#include <pybind11/complex.h>

#include "arrays.hpp"
#include "bindings.hpp"

namespace tessera_python {

void bind_arrays_complex128(pybind11::module_& m) { bind_arrays<std::complex<double>>(m); }

}  // namespace tessera_python
