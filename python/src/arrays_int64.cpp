// The DistArray classes of element type std::int64_t (see arrays.hpp).
#include <complex>
#include <cstdint>

#include <pybind11/complex.h>

#include "arrays.hpp"
#include "bindings.hpp"

namespace tessera_python {

void bind_arrays_int64(pybind11::module_& m) { bind_arrays<std::int64_t>(m); }

}  // namespace tessera_python
