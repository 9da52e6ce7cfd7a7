// tessera_array_*: the collective operations of an array (ghost updates, scatter and gather,
// reductions, partial reductions into an array).
#include <cstring>
#include <functional>
#include <limits>
#include <span>

#include "convert.hpp"
#include "fold_ops.hpp"

using namespace tessera;
using namespace tessera::capi;

namespace {

template <class T>
void copy_elements(const std::vector<T>& from, void* out, int64_t capacity, const char* argument) {
  const auto needed = static_cast<int64_t>(from.size());
  if (capacity < needed)
    fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'capacity' = ", capacity, " is less than the ", needed,
           " elements of the result");
  if (needed > 0) require_pointer(argument, out);
  if (needed > 0) std::memcpy(out, from.data(), from.size() * sizeof(T));
}

template <std::size_t N>
void check_root(const Domain<N>& dom, int root) {
  if (root < 0 || root >= dom.comm().size())
    fail_c(TESSERA_ERR_OUT_OF_RANGE, "argument 'root' = ", root, " is not a rank of the communicator (size ",
           dom.comm().size(), ")");
}

}  // namespace

extern "C" {

tessera_status tessera_array_update_ghosts(tessera_array array) {
  return guarded("tessera_array_update_ghosts", [&] {
    const auto a = get<ArrayObject>(array, "array");
    visit_array(*a, [](auto& x) {
      if (x.ghost_update_in_flight())
        fail_c(TESSERA_ERR_CALL_ORDER, "a ghost update begun with tessera_array_begin_update_ghosts is in flight");
      x.update_ghosts();
    });
  });
}

tessera_status tessera_array_begin_update_ghosts(tessera_array array) {
  return guarded("tessera_array_begin_update_ghosts", [&] {
    const auto a = get<ArrayObject>(array, "array");
    visit_array(*a, [](auto& x) {
      if (x.ghost_update_in_flight())
        fail_c(TESSERA_ERR_CALL_ORDER,
               "a ghost update is in flight already: call tessera_array_end_update_ghosts first");
      x.begin_update_ghosts();
    });
  });
}

tessera_status tessera_array_end_update_ghosts(tessera_array array) {
  return guarded("tessera_array_end_update_ghosts", [&] {
    const auto a = get<ArrayObject>(array, "array");
    visit_array(*a, [](auto& x) {
      if (!x.ghost_update_in_flight())
        fail_c(TESSERA_ERR_CALL_ORDER, "no ghost update is in flight: call tessera_array_begin_update_ghosts first");
      x.end_update_ghosts();
    });
  });
}

tessera_status tessera_array_accumulate_ghosts(tessera_array array, tessera_op op) {
  return guarded("tessera_array_accumulate_ghosts", [&] {
    const auto a = get<ArrayObject>(array, "array");
    const CombineOp combine = to_op(op, "op");
    visit_array(*a, [&](auto& x) {
      using T = typename std::remove_cvref_t<decltype(x)>::value_type;
      if constexpr (!is_number<T>) {
        op_undefined<T>(op);
      } else {
        if (x.ghost_update_in_flight())
          fail_c(TESSERA_ERR_CALL_ORDER, "a ghost update is in flight: call tessera_array_end_update_ghosts first");
        x.accumulate_ghosts(combine);
      }
    });
  });
}

tessera_status tessera_array_scatter_from(tessera_array array, int root, tessera_type type, const void* data,
                                          int64_t count) {
  return guarded("tessera_array_scatter_from", [&] {
    const auto a = get<ArrayObject>(array, "array");
    check_type(*a, type);
    if (count < 0) fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'count' = ", count, " must be >= 0");
    visit_array(*a, [&](auto& x) {
      using T = typename std::remove_cvref_t<decltype(x)>::value_type;
      check_root(x.domain(), root);
      std::span<const T> values;
      if (x.domain().rank() == root && count > 0) {
        require_pointer("data", data);
        values = std::span<const T>(static_cast<const T*>(data), static_cast<std::size_t>(count));
      }
      x.scatter_from(root, values);
    });
  });
}

tessera_status tessera_array_gather_to(tessera_array array, int root, tessera_type type, void* out, int64_t capacity) {
  return guarded("tessera_array_gather_to", [&] {
    const auto a = get<ArrayObject>(array, "array");
    check_type(*a, type);
    visit_array(*a, [&](const auto& x) {
      using T = typename std::remove_cvref_t<decltype(x)>::value_type;
      check_root(x.domain(), root);
      // Straight into the caller's buffer (no temporary of the whole array). The root's size is
      // broadcast inside gather_to, so a buffer too small (or null) on root is the same
      // invalid-argument error on every rank, before anything moves.
      std::span<T> into;
      if (x.domain().rank() == root && out != nullptr && capacity > 0)
        into = std::span<T>(static_cast<T*>(out),
                            static_cast<std::size_t>(std::min<int64_t>(capacity, volume(x.domain().box()))));
      x.gather_to(root, into);
    });
  });
}

tessera_status tessera_array_gather_to_all(tessera_array array, tessera_type type, void* out, int64_t capacity) {
  return guarded("tessera_array_gather_to_all", [&] {
    const auto a = get<ArrayObject>(array, "array");
    check_type(*a, type);
    visit_array(*a, [&](const auto& x) { copy_elements(x.gather_to_all(), out, capacity, "out"); });
  });
}

tessera_status tessera_array_reduce(tessera_array array, tessera_op op, tessera_type type, void* result) {
  return guarded("tessera_array_reduce", [&] {
    const auto a = get<ArrayObject>(array, "array");
    check_type(*a, type);
    require_pointer("result", result);
    const CombineOp combine = to_op(op, "op");
    visit_array(*a, [&](const auto& x) {
      using T = typename std::remove_cvref_t<decltype(x)>::value_type;
      T value{};
      if constexpr (!is_number<T>) {
        op_undefined<T>(op);
      } else {
        if (combine == CombineOp::add)
          value = x.sum();
        else if (combine == CombineOp::multiply)
          value = x.reduce(T{1}, WrappingMultiplies{});
        else if constexpr (is_ordered<T>) {
          if (combine == CombineOp::min)
            value = x.min();
          else if (combine == CombineOp::max)
            value = x.max();
          else
            op_undefined<T>(op);
        } else {
          op_undefined<T>(op);
        }
      }
      std::memcpy(result, &value, sizeof value);
    });
  });
}

tessera_status tessera_reduce_into(tessera_array src, const int* axes, size_t count, tessera_op op,
                                   tessera_array dst) {
  return guarded("tessera_reduce_into", [&] {
    const auto s = get<ArrayObject>(src, "src");
    const auto d = get<ArrayObject>(dst, "dst");
    visit_same(*s, "src", *d, "dst", [&](auto& a, auto& b) {
      using T = typename std::remove_cvref_t<decltype(a)>::value_type;
      constexpr std::size_t N = dims_v<decltype(a)>;
      const auto reduced = to_axes<N>(axes, count);
      with_fold<T>(op, [&](const T& identity, auto fold) { reduce_into(a, reduced, b, identity, fold); });
    });
  });
}

}  // extern "C"

namespace {

tessera_status extreme_loc(const char* where, tessera_array array, tessera_type type, void* value, int64_t* at,
                           bool smallest) {
  return guarded(where, [&] {
    const auto a = get<ArrayObject>(array, "array");
    check_type(*a, type);
    require_pointer("value", value);
    visit_array(*a, [&](const auto& x) {
      using T = typename std::remove_cvref_t<decltype(x)>::value_type;
      if constexpr (!is_ordered<T>) {
        fail_c(TESSERA_ERR_INVALID_ARGUMENT, type_name(type_code<T>()), " elements have no order: no ",
               smallest ? "minimum" : "maximum");
      } else {
        const auto found = smallest ? x.min_loc() : x.max_loc();
        std::memcpy(value, &found.value, sizeof found.value);
        if (at) from_point(found.at, at);
      }
    });
  });
}

}  // namespace

extern "C" {

tessera_status tessera_array_min_loc(tessera_array array, tessera_type type, void* value, int64_t* at) {
  return extreme_loc("tessera_array_min_loc", array, type, value, at, true);
}

tessera_status tessera_array_max_loc(tessera_array array, tessera_type type, void* value, int64_t* at) {
  return extreme_loc("tessera_array_max_loc", array, type, value, at, false);
}

tessera_status tessera_array_reduce_along(tessera_array array, int axis, tessera_op op, tessera_type type, void* out,
                                          int64_t capacity) {
  return guarded("tessera_array_reduce_along", [&] {
    const auto a = get<ArrayObject>(array, "array");
    check_type(*a, type);
    visit_array(*a, [&](const auto& x) {
      using T = typename std::remove_cvref_t<decltype(x)>::value_type;
      constexpr std::size_t N = dims_v<decltype(x)>;
      if (axis < 0 || axis >= static_cast<int>(N))
        fail_c(TESSERA_ERR_OUT_OF_RANGE, "argument 'axis' = ", axis, " is not a dimension of a ", N,
               "-dimensional array");
      const auto d = static_cast<std::size_t>(axis);
      with_fold<T>(op, [&](const T& identity, auto fold) {
        copy_elements(x.reduce_along(d, identity, fold), out, capacity, "out");
      });
    });
  });
}

}  // extern "C"
