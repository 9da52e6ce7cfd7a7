#pragma once
// The boundary rules of a DistArray class: `set_boundary(rules)` turns a
// `tessera.boundary.BoundaryRules` (python/tessera/boundary.py, plain Python) into the C++
// `BoundaryRules<T, N>` the array applies after every ghost update, and `boundary` turns them
// back. The Python object is read only here, so the C++ checks (an axis past the last, a rule
// along a periodic axis, a reflect wider than the domain...) give their usual errors.
#include <cstddef>
#include <string>
#include <utility>

#include <pybind11/pybind11.h>

#include "convert.hpp"
#include "holders.hpp"

namespace tessera_python {

/// A `boundary.function(f)` rule in C++: f(index tuple) converted to T. Kept as a named type so
/// that `boundary` can find the Python callable again (`std::function::target`).
template <class T, std::size_t N>
struct PythonIndexFunction {
  pybind11::object f;

  T operator()(const tessera::Point<N>& p) const {
    // Ghost updates run with the GIL held (no binding releases it), so f may be called directly.
    pybind11::tuple index = tuple_of(p);
    pybind11::object result = f(index);
    try {
      return result.cast<T>();
    } catch (const pybind11::cast_error&) {
      tessera::fail(tessera::ErrorCode::invalid_argument, "boundary.function: f(",
                    std::string(pybind11::repr(index)), ") returned ", std::string(pybind11::repr(result)),
                    ", which does not convert to ", dtype_name<T>());
    }
  }
};

/// The C++ side of one `boundary.Rule`, set on `rules` by `set(rule)` (one of BoundaryRules'
/// low / high / holes, bound to a side).
template <class T, std::size_t N, class Set>
void set_rule(const pybind11::handle& rule, const char* where, Set&& set) {
  namespace bc = tessera::boundary;
  const auto kind = rule.attr("kind").cast<std::string>();
  if (kind == "none") {
    set(bc::none());
  } else if (kind == "reflect") {
    set(bc::reflect(rule.attr("sign").cast<int>()));
  } else if (kind == "extrapolate") {
    set(bc::extrapolate());
  } else if (kind == "constant") {
    const pybind11::object value = rule.attr("value");
    T converted{};
    try {
      converted = value.cast<T>();
    } catch (const pybind11::cast_error&) {
      tessera::fail_argument(where, "constant", std::string(pybind11::repr(value)),
                             std::string("does not convert to ") + dtype_name<T>());
    }
    set(bc::constant(converted));
  } else if (kind == "function") {
    set(bc::function(PythonIndexFunction<T, N>{rule.attr("f")}));
  } else {
    tessera::fail_argument(where, "rule kind", kind, "is not a boundary rule");
  }
}

/// The Python `boundary.Rule` of one C++ side.
template <class T, std::size_t N>
pybind11::object rule_of(const pybind11::module_& bc, const typename tessera::BoundaryRules<T, N>::Side& side) {
  switch (side.kind) {
    case tessera::BoundaryKind::reflect: return bc.attr("reflect")(side.negate ? -1 : 1);
    case tessera::BoundaryKind::constant: return bc.attr("constant")(side.value);
    case tessera::BoundaryKind::extrapolate: return bc.attr("extrapolate")();
    case tessera::BoundaryKind::function: {
      const auto* f = side.at.template target<PythonIndexFunction<T, N>>();
      // Only Python sets rules on a Python array, so every function rule is a Python callable.
      if (f == nullptr) tessera::fail(tessera::ErrorCode::internal, "DistArray.boundary: a function rule not set from Python");
      return bc.attr("function")(f->f);
    }
    case tessera::BoundaryKind::none: break;
  }
  return bc.attr("none")();
}

/// Adds `set_boundary` and `boundary` to the class of DistArray<T, N>.
template <class T, std::size_t N, class Class>
void add_boundary_methods(Class& cls) {
  namespace py = pybind11;
  using A = PyArray<T, N>;
  cls.def(
         "set_boundary",
         [](A& a, const py::object& rules) {
           tessera::BoundaryRules<T, N> cpp;
           if (!rules.is_none()) {
             if (!py::isinstance(rules, py::module_::import("tessera.boundary").attr("BoundaryRules")))
               tessera::fail_argument("DistArray.set_boundary", "rules", std::string(py::repr(rules)),
                                      "is not a tessera.boundary.BoundaryRules (or None)");
             for (const py::handle entry : rules.attr("sides")) {
               const auto side = entry.cast<py::tuple>();
               const auto axis = side[0].cast<std::size_t>();
               const bool high = side[1].cast<bool>();
               set_rule<T, N>(side[2], high ? "BoundaryRules.high" : "BoundaryRules.low", [&](auto&& rule) {
                 if (high) cpp.high(axis, rule);
                 else cpp.low(axis, rule);
               });
             }
             set_rule<T, N>(rules.attr("hole_rule"), "BoundaryRules.holes", [&](auto&& rule) { cpp.holes(rule); });
           }
           a.array.set_boundary(std::move(cpp));
         },
         py::arg("rules"),
         "Sets the rules every later ghost update applies to the ghost cells outside the domain box and over a "
         "box set's holes (a tessera.boundary.BoundaryRules; None clears them). Not collective: set them alike "
         "on every rank.")
      .def_property_readonly(
          "boundary",
          [](const A& a) {
            const auto bc = py::module_::import("tessera.boundary");
            py::object out = bc.attr("BoundaryRules")();
            const auto& rules = a.array.boundary();
            for (std::size_t d = 0; d < N; ++d) {
              out.attr("low")(d, rule_of<T, N>(bc, rules.side(d, false)));
              out.attr("high")(d, rule_of<T, N>(bc, rules.side(d, true)));
            }
            out.attr("holes")(rule_of<T, N>(bc, rules.hole_rule()));
            return out;
          },
          "The boundary rules ghost updates apply, as a tessera.boundary.BoundaryRules (none by default).");
}

}  // namespace tessera_python
