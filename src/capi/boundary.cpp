// tessera_array_set_boundary, tessera_array_set_hole_boundary: the boundary rules of an array
// (array/boundary_rules.hpp) from C, one side (or the holes of a box set) at a time. Not
// collective, but every rank must set the same rules.
#include <cstring>

#include "convert.hpp"

using namespace tessera;
using namespace tessera::capi;

namespace {

// The element `value` points to, for TESSERA_BOUNDARY_CONSTANT (its type checked by the caller).
template <class T>
T constant_value(const void* value) {
  require_pointer("value", value);
  T v;
  std::memcpy(&v, value, sizeof v);
  return v;
}

// The rules of `x` with the side (axis, high) replaced by `rule`; TESSERA_ERR_INVALID_ARGUMENT for
// a rule the element type cannot follow (an odd reflect or an extrapolation of points).
template <class T, std::size_t N>
BoundaryRules<T, N> with_side(const DistArray<T, N>& x, std::size_t axis, bool high, tessera_boundary rule,
                              const void* value) {
  BoundaryRules<T, N> rules = x.boundary();
  const auto set = [&](const auto& r) { high ? rules.high(axis, r) : rules.low(axis, r); };
  switch (rule) {
    case TESSERA_BOUNDARY_NONE: set(boundary::none()); break;
    case TESSERA_BOUNDARY_REFLECT: set(boundary::reflect(1)); break;
    case TESSERA_BOUNDARY_REFLECT_ODD: set(boundary::reflect(-1)); break;
    case TESSERA_BOUNDARY_CONSTANT: set(boundary::constant(constant_value<T>(value))); break;
    case TESSERA_BOUNDARY_EXTRAPOLATE:
      if constexpr (requires(const T& a, index_t k) { T(a + T(k) * (a - a)); }) {
        set(boundary::extrapolate());
      } else {
        fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'rule' = TESSERA_BOUNDARY_EXTRAPOLATE needs a numeric element type");
      }
      break;
    default:
      fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'rule' = ", static_cast<int>(rule),
             " is not a tessera_boundary (TESSERA_BOUNDARY_NONE ... TESSERA_BOUNDARY_EXTRAPOLATE)");
  }
  return rules;
}

// The rules of `x` with the rule for ghost cells over holes replaced by `rule` (none, constant or a
// reflect: a wall around each box).
template <class T, std::size_t N>
BoundaryRules<T, N> with_holes(const DistArray<T, N>& x, tessera_boundary rule, const void* value) {
  BoundaryRules<T, N> rules = x.boundary();
  switch (rule) {
    case TESSERA_BOUNDARY_NONE: rules.holes(boundary::none()); break;
    case TESSERA_BOUNDARY_CONSTANT: rules.holes(boundary::constant(constant_value<T>(value))); break;
    case TESSERA_BOUNDARY_REFLECT: rules.holes(boundary::reflect(1)); break;
    case TESSERA_BOUNDARY_REFLECT_ODD: rules.holes(boundary::reflect(-1)); break;
    case TESSERA_BOUNDARY_EXTRAPOLATE:
      fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'rule' = TESSERA_BOUNDARY_EXTRAPOLATE is not defined inside a hole: "
             "use TESSERA_BOUNDARY_REFLECT, TESSERA_BOUNDARY_REFLECT_ODD, TESSERA_BOUNDARY_CONSTANT or TESSERA_BOUNDARY_NONE");
    default:
      fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'rule' = ", static_cast<int>(rule),
             " is not a tessera_boundary (TESSERA_BOUNDARY_NONE ... TESSERA_BOUNDARY_EXTRAPOLATE)");
  }
  return rules;
}

}  // namespace

extern "C" {

tessera_status tessera_array_set_boundary(tessera_array array, int axis, int high, tessera_boundary rule,
                                          tessera_type type, const void* value) {
  return guarded("tessera_array_set_boundary", [&] {
    const auto a = get<ArrayObject>(array, "array");
    if (rule == TESSERA_BOUNDARY_CONSTANT) check_type(*a, type);
    visit_array(*a, [&](auto& x) {
      constexpr std::size_t N = dims_v<decltype(x)>;
      if (axis < 0 || static_cast<std::size_t>(axis) >= N)
        fail_c(TESSERA_ERR_OUT_OF_RANGE, "argument 'axis' = ", axis, " is not an axis of a ", N, "-dimensional array");
      if (high != 0 && high != 1) fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'high' = ", high, " must be 0 or 1");
      x.set_boundary(with_side(x, static_cast<std::size_t>(axis), high == 1, rule, value));
    });
  });
}

tessera_status tessera_array_set_hole_boundary(tessera_array array, tessera_boundary rule, tessera_type type,
                                               const void* value) {
  return guarded("tessera_array_set_hole_boundary", [&] {
    const auto a = get<ArrayObject>(array, "array");
    if (rule == TESSERA_BOUNDARY_CONSTANT) check_type(*a, type);
    visit_array(*a, [&](auto& x) { x.set_boundary(with_holes(x, rule, value)); });
  });
}

}  // extern "C"
