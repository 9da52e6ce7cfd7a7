#pragma once
// What `out << value` prints (a distribution, a ghost spec), as a string: the repr of the bound
// layout classes and the labels of the pictures.
#include <sstream>
#include <string>

namespace tessera_python {

template <class T>
[[nodiscard]] std::string printed(const T& value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

}  // namespace tessera_python
