#include "errors.hpp"

#include <string>
#include <vector>

#include "holders.hpp"

namespace py = pybind11;

namespace tessera_python {
namespace {

// The classes are looked up in tessera._errors at each error (an import of a loaded module is a
// dictionary lookup), so that the hierarchy is written once, in Python, and no Python object is
// kept in a C++ static, which would be released after the interpreter is gone.
py::object errors_module() { return py::module_::import("tessera._errors"); }

}  // namespace

void bind_errors(py::module_& m) {
  (void)m;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const tessera::Error& e) {
      const py::object cls = errors_module().attr("error_class")(static_cast<int>(e.code()));
      PyErr_SetString(cls.ptr(), e.what());
    } catch (const ViewsHeld& e) {
      PyErr_SetString(errors_module().attr("ViewsHeldError").ptr(), e.what());
    }
  });
}

template <std::size_t N>
void refuse_if_views_held(const PyDomain<N>& dom, const char* operation) {
  refuse_if_any_views(*dom.comm, dom.counting().live_views, operation, "arrays over this domain");
}

void refuse_if_any_views(const tessera::Communicator& comm, long local_views, const char* operation, const char* what) {
  const std::vector<std::int64_t> views = comm.allgather(std::int64_t{local_views});
  std::string holders;
  std::int64_t total = 0;
  for (std::size_t r = 0; r < views.size(); ++r) {
    if (views[r] == 0) continue;
    holders += (holders.empty() ? "" : ", ") + std::to_string(r);
    total += views[r];
  }
  if (total == 0) return;
  throw ViewsHeld(std::string(operation) + ": " + std::to_string(total) +
                  " NumPy view(s) of " + what + " are alive on rank(s) " + holders +
                  "; the storage they point to would be freed. Delete them (del view) first, on every rank");
}

template void refuse_if_views_held<1>(const PyDomain<1>&, const char*);
template void refuse_if_views_held<2>(const PyDomain<2>&, const char*);
template void refuse_if_views_held<3>(const PyDomain<3>&, const char*);

}  // namespace tessera_python
