#pragma once
// The C++ objects behind tessera_sparse, tessera_sparse_array, tessera_assoc and
// tessera_assoc_array (src/capi/sparse.cpp, src/capi/assoc.cpp), and what the two files share:
// their arrays hold one of four numeric element types (float, double, int32, int64), checked
// against the type a call names, and copy values through untyped C buffers.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <type_traits>
#include <variant>

#include "convert.hpp"
#include "fold_ops.hpp"

namespace tessera::capi {

struct SparseObject {
  static constexpr Kind kind = Kind::sparse;
  std::shared_ptr<DomainObject> domain;  // the parent's C object: keeps its communicator alive
  std::variant<SparseDomain<1>, SparseDomain<2>, SparseDomain<3>> sparse;
};

template <class T, std::size_t N>
using SparsePtr = std::unique_ptr<SparseArray<T, N>>;

struct SparseArrayObject {
  static constexpr Kind kind = Kind::sparse_array;
  std::shared_ptr<SparseObject> sparse;  // declared first: destroyed after the array
  tessera_type type = TESSERA_DOUBLE;
  std::variant<SparsePtr<float, 1>, SparsePtr<float, 2>, SparsePtr<float, 3>, SparsePtr<double, 1>,
               SparsePtr<double, 2>, SparsePtr<double, 3>, SparsePtr<std::int32_t, 1>, SparsePtr<std::int32_t, 2>,
               SparsePtr<std::int32_t, 3>, SparsePtr<std::int64_t, 1>, SparsePtr<std::int64_t, 2>,
               SparsePtr<std::int64_t, 3>>
      array;
};

struct AssocObject {
  static constexpr Kind kind = Kind::assoc;
  std::shared_ptr<CommObject> comm;  // the domain keeps the Communicator by address
  AssociativeDomain<std::int64_t> assoc;
};

template <class T>
using AssocPtr = std::unique_ptr<AssociativeArray<std::int64_t, T>>;

struct AssocArrayObject {
  static constexpr Kind kind = Kind::assoc_array;
  std::shared_ptr<AssocObject> assoc;  // declared first: destroyed after the array
  tessera_type type = TESSERA_DOUBLE;
  std::variant<AssocPtr<float>, AssocPtr<double>, AssocPtr<std::int32_t>, AssocPtr<std::int64_t>> array;
};

/// Calls `f(std::type_identity<T>{})` for the element types sparse and associative arrays hold;
/// TESSERA_ERR_INVALID_ARGUMENT naming `type` for the others (complex and index elements).
template <class F>
void with_collection_type(tessera_type type, F&& f) {
  with_type(type, "type", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!is_ordered<T>)
      fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'type' = ", type_name(type),
             " is not an element type of sparse and associative arrays (TESSERA_FLOAT, TESSERA_DOUBLE, "
             "TESSERA_INT32, TESSERA_INT64)");
    else
      f(tag);
  });
}

/// TESSERA_ERR_WRONG_TYPE if `type` is not `held` (TESSERA_ERR_INVALID_ARGUMENT if not a tessera_type).
inline void check_collection_type(tessera_type held, tessera_type type) {
  with_type(type, "type", [](auto) {});
  if (held != type)
    fail_c(TESSERA_ERR_WRONG_TYPE, "argument 'type' = ", type_name(type), " but the array holds ", type_name(held));
}

/// The value a reduction with `op` gives over `values` on every rank, through `fold(identity, op)`
/// (the array's own reduce), for the C folds ADD, MULTIPLY, MIN, MAX.
template <class T, class Fold>
void fold_into(tessera_op op, void* result, Fold&& fold) {
  require_pointer("result", result);
  with_fold<T>(op, [&](T identity, auto combine) {
    const T value = fold(identity, combine);
    std::memcpy(result, &value, sizeof(T));
  });
}

/// The C++ combine of `op` for an update: REPLACE keeps the new value, the others fold.
template <class T, class F>
void with_update_op(tessera_op op, F&& f) {
  if (to_op(op, "op") == CombineOp::replace) return f(ReplaceValue{});
  with_fold<T>(op, [&](T, auto combine) { f(combine); });
}

/// Copies `items` to a C buffer of `capacity` entries and sets `*count` (capacity 0 with a null
/// buffer asks the count; a smaller non-zero capacity is TESSERA_ERR_OUT_OF_RANGE).
template <class Out, class In, class Convert>
void copy_out(std::span<const In> items, Out* out, std::size_t capacity, std::size_t* count, Convert&& convert) {
  require_pointer("count", count);
  *count = items.size();
  if (capacity == 0 && out == nullptr) return;
  if (capacity < items.size())
    fail_c(TESSERA_ERR_OUT_OF_RANGE, "argument 'capacity' = ", capacity, " is below the ", items.size(),
           " entries to write");
  if (!items.empty()) require_pointer("out", out);
  for (std::size_t k = 0; k < items.size(); ++k) out[k] = convert(items[k]);
}

}  // namespace tessera::capi
