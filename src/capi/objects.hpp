#pragma once
// The C++ objects behind the C handles, and how a call finds them.
//
// The C API has a run-time dimension (1, 2 or 3) and a run-time element type; the C++ library has
// both as template parameters. Each object therefore holds a std::variant over the instantiations
// it may be, and functions dispatch with std::visit. Objects hold shared_ptrs to what they depend
// on (an array its domain, a domain its communicator), so C handles can be freed in any order.

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <variant>

#include "registry.hpp"
#include "status.hpp"
#include "tessera.h"
#include "tessera/tessera.hpp"

namespace tessera::capi {

/// The element of TESSERA_INDEX arrays: a point of up to three coordinates (tessera_index).
using IndexPoint = Point<3>;
using Complex = std::complex<double>;
static_assert(sizeof(IndexPoint) == sizeof(tessera_index) && sizeof(Complex) == 2 * sizeof(double));

template <std::size_t N>
using DimTag = std::integral_constant<std::size_t, N>;

/// Calls `f(DimTag<N>{})` with N = `ndim`; throws TESSERA_ERR_INVALID_ARGUMENT naming `argument`
/// for a dimension outside 1..3.
template <class F>
decltype(auto) with_ndim(int ndim, const char* argument, F&& f) {
  switch (ndim) {
    case 1:
      return f(DimTag<1>{});
    case 2:
      return f(DimTag<2>{});
    case 3:
      return f(DimTag<3>{});
    default:
      fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument '", argument, "' = ", ndim,
             " is not a supported number of dimensions (1, 2 or 3)");
  }
}

/// The dimension N of ProcGrid<N>, Distribution<N>, Domain<N>, DistArray<T, N> and Box<N>.
template <class T>
struct dims_of;
template <std::size_t N>
struct dims_of<ProcGrid<N>> : std::integral_constant<std::size_t, N> {};
template <std::size_t N>
struct dims_of<Distribution<N>> : std::integral_constant<std::size_t, N> {};
template <std::size_t N>
struct dims_of<Domain<N>> : std::integral_constant<std::size_t, N> {};
template <class T, std::size_t N>
struct dims_of<DistArray<T, N>> : std::integral_constant<std::size_t, N> {};
template <class T>
inline constexpr std::size_t dims_v = dims_of<std::remove_cvref_t<T>>::value;

template <template <std::size_t> class T>
using PerDim = std::variant<T<1>, T<2>, T<3>>;

/// The number of dimensions of whatever alternative `v` holds.
template <class Variant>
[[nodiscard]] int ndim_of(const Variant& v) noexcept {
  return static_cast<int>(v.index()) + 1;
}

struct CommObject {
  static constexpr Kind kind = Kind::comm;
  explicit CommObject(MPI_Comm user) : comm(user) {}
  Communicator comm;
};

struct GridObject {
  static constexpr Kind kind = Kind::grid;
  PerDim<ProcGrid> grid;
};

struct DistObject {
  static constexpr Kind kind = Kind::dist;
  PerDim<Distribution> dist;
};

struct DomainObject {
  static constexpr Kind kind = Kind::domain;
  std::shared_ptr<CommObject> comm;  // the Domain keeps the Communicator by address
  PerDim<Domain> domain;
};

template <class T, std::size_t N>
using ArrayPtr = std::unique_ptr<DistArray<T, N>>;

/// Every array a C handle can name: 6 element types x 3 dimensions.
using AnyArray = std::variant<ArrayPtr<float, 1>, ArrayPtr<float, 2>, ArrayPtr<float, 3>,     //
                              ArrayPtr<double, 1>, ArrayPtr<double, 2>, ArrayPtr<double, 3>,  //
                              ArrayPtr<std::int32_t, 1>, ArrayPtr<std::int32_t, 2>, ArrayPtr<std::int32_t, 3>,
                              ArrayPtr<std::int64_t, 1>, ArrayPtr<std::int64_t, 2>, ArrayPtr<std::int64_t, 3>,
                              ArrayPtr<Complex, 1>, ArrayPtr<Complex, 2>, ArrayPtr<Complex, 3>,  //
                              ArrayPtr<IndexPoint, 1>, ArrayPtr<IndexPoint, 2>, ArrayPtr<IndexPoint, 3>>;

struct ArrayObject {
  static constexpr Kind kind = Kind::array;
  std::shared_ptr<DomainObject> domain;  // declared first: destroyed after the array
  tessera_type type = TESSERA_DOUBLE;
  AnyArray array;
};

/// The C element type of T.
template <class T>
[[nodiscard]] constexpr tessera_type type_code() noexcept {
  if constexpr (std::is_same_v<T, float>)
    return TESSERA_FLOAT;
  else if constexpr (std::is_same_v<T, double>)
    return TESSERA_DOUBLE;
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return TESSERA_INT32;
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return TESSERA_INT64;
  else if constexpr (std::is_same_v<T, Complex>)
    return TESSERA_COMPLEX_DOUBLE;
  else
    return TESSERA_INDEX;
}

/// Calls `f(std::type_identity<T>{})` with the C++ element type of `type`; throws
/// TESSERA_ERR_INVALID_ARGUMENT naming `argument` for a value that is not a tessera_type.
template <class F>
decltype(auto) with_type(tessera_type type, const char* argument, F&& f) {
  switch (type) {
    case TESSERA_FLOAT:
      return f(std::type_identity<float>{});
    case TESSERA_DOUBLE:
      return f(std::type_identity<double>{});
    case TESSERA_INT32:
      return f(std::type_identity<std::int32_t>{});
    case TESSERA_INT64:
      return f(std::type_identity<std::int64_t>{});
    case TESSERA_COMPLEX_DOUBLE:
      return f(std::type_identity<Complex>{});
    case TESSERA_INDEX:
      return f(std::type_identity<IndexPoint>{});
    default:  // the *_ENUM_ sentinels and any other int leave the switch unhandled
      break;
  }
  fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument '", argument, "' = ", static_cast<int>(type),
         " is not a tessera_type");
}

/// "TESSERA_DOUBLE", ... or "not a tessera_type".
[[nodiscard]] const char* type_name(tessera_type type) noexcept;

/// Throws TESSERA_ERR_INVALID_ARGUMENT if `type` is not a tessera_type, TESSERA_ERR_WRONG_TYPE if
/// it is not `array`'s element type.
void check_type(const ArrayObject& array, tessera_type type, const char* argument = "type");

// --- handles --------------------------------------------------------------------------------------

template <class Handle>
[[nodiscard]] std::uintptr_t handle_value(Handle h) noexcept {
  return reinterpret_cast<std::uintptr_t>(h);
}

/// The object `h` names (see registry.hpp for the errors).
template <class Object, class Handle>
[[nodiscard]] std::shared_ptr<Object> get(Handle h, const char* argument) {
  return std::static_pointer_cast<Object>(lookup(handle_value(h), Object::kind, argument));
}

/// Checks the output argument of a creating function and clears it, so that a failed call leaves
/// NULL behind rather than garbage.
template <class Handle>
void prepare_out(Handle* out, const char* argument = "out") {
  require_pointer(argument, out);
  *out = nullptr;
}

/// Registers `object` and writes its new handle to `*out`.
template <class Object, class Handle>
void issue(std::shared_ptr<Object> object, Handle* out) {
  *out = reinterpret_cast<Handle>(register_object(Object::kind, std::move(object)));
}

/// Frees `*h` (nothing for NULL) and sets it to NULL. The object goes when its last user does.
template <class Object, class Handle>
void release(Handle* h, const char* argument) {
  require_pointer(argument, h);
  if (*h == nullptr) return;
  std::shared_ptr<void> dying = unregister(handle_value(*h), Object::kind, argument);
  *h = nullptr;
  dying.reset();  // outside the registry's lock: destroying may call MPI
}

// --- typed access to the variants -----------------------------------------------------------------

/// The N-dimensional alternative of `v`, or TESSERA_ERR_MISMATCH naming `argument` and both
/// dimensions.
template <std::size_t N, class Variant>
[[nodiscard]] auto& as_dim(Variant& v, const char* argument, const char* what) {
  if (ndim_of(v) != static_cast<int>(N))
    fail_c(TESSERA_ERR_MISMATCH, "argument '", argument, "' is ", ndim_of(v), "-dimensional, but the ", what, " is ", N,
           "-dimensional");
  return std::get<N - 1>(v);
}

/// Calls f(DistArray<T, N>&) with the array `a` holds.
template <class F>
decltype(auto) visit_array(ArrayObject& a, F&& f) {
  return std::visit([&](auto& p) -> decltype(auto) { return f(*p); }, a.array);
}

/// Calls f(DistArray<T, N>& a, DistArray<T, N>& b) for two arrays that must hold the same element
/// type (TESSERA_ERR_WRONG_TYPE otherwise) and have the same dimension (TESSERA_ERR_MISMATCH).
template <class F>
void visit_same(ArrayObject& a, const char* a_name, ArrayObject& b, const char* b_name, F&& f) {
  if (a.type != b.type)
    fail_c(TESSERA_ERR_WRONG_TYPE, "argument '", b_name, "' holds ", type_name(b.type), " but argument '", a_name,
           "' holds ", type_name(a.type));
  if (a.array.index() != b.array.index())
    fail_c(TESSERA_ERR_MISMATCH, "argument '", b_name, "' is ", ndim_of(b.domain->domain),
           "-dimensional but argument '", a_name, "' is ", ndim_of(a.domain->domain), "-dimensional");
  std::visit(
      [&](auto& pa) {
        auto& pb = std::get<std::remove_cvref_t<decltype(pa)>>(b.array);
        f(*pa, *pb);
      },
      a.array);
}

}  // namespace tessera::capi
