#pragma once
// tessera's errors as Python exceptions: `tessera::Error` becomes the subclass of `tessera.Error`
// for its `ErrorCode` (python/tessera/_errors.py), with the same message; the module's own
// refusal to move storage under live NumPy views becomes `tessera.ViewsHeldError`.
#include <stdexcept>
#include <string>

#include <pybind11/pybind11.h>

namespace tessera_python {

/// Thrown on every rank when a redistribution or migration is refused because some rank holds
/// NumPy views of the storage it would free (holders.hpp, "The view rule").
class ViewsHeld : public std::runtime_error {
 public:
  explicit ViewsHeld(const std::string& message) : std::runtime_error(message) {}
};

/// Registers the translation of `tessera::Error` and `ViewsHeld` into the classes of
/// `tessera._errors`.
void bind_errors(pybind11::module_& m);

}  // namespace tessera_python
