// tessera_scalapack_descriptor and tessera_blacs_process_map: the C face of
// tessera/scalapack/descriptor.hpp. Pure (nothing communicates, nothing calls BLACS): the C program
// makes its BLACS grid with the map and links ScaLAPACK itself (docs/scalapack.md).
#include <algorithm>

#include "convert.hpp"
#include "tessera/scalapack/descriptor.hpp"

using namespace tessera;
using namespace tessera::capi;

namespace {

/// Calls f(array) with `a`'s 2-D DistArray, or TESSERA_ERR_INVALID_ARGUMENT for another dimension.
template <class F>
void with_matrix(ArrayObject& a, F&& f) {
  visit_array(a, [&](auto& x) {
    if constexpr (dims_v<decltype(x)> == 2) {
      f(x);
    } else {
      fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'array' has ", dims_v<decltype(x)>,
             " dimension(s): ScaLAPACK takes 2-D arrays (matrices) only");
    }
  });
}

ScalapackView view_of(int transposed) noexcept {
  return transposed ? ScalapackView::transposed : ScalapackView::as_stored;
}

}  // namespace

extern "C" {

tessera_status tessera_scalapack_descriptor(tessera_array array, int context, int transposed, int desc[9],
                                            int* local_rows, int* local_cols) {
  return guarded("tessera_scalapack_descriptor", [&] {
    const auto a = get<ArrayObject>(array, "array");
    require_pointer("desc", desc);
    with_matrix(*a, [&](const auto& x) {
      const ScalapackDescriptor d = scalapack_descriptor(x, context, view_of(transposed));
      std::copy(d.desc.begin(), d.desc.end(), desc);
      if (local_rows) *local_rows = d.local_rows;
      if (local_cols) *local_cols = d.local_cols;
    });
  });
}

tessera_status tessera_blacs_process_map(tessera_array array, int transposed, int* map, size_t capacity, int* rows,
                                         int* cols) {
  return guarded("tessera_blacs_process_map", [&] {
    const auto a = get<ArrayObject>(array, "array");
    require_pointer("map", map);
    require_pointer("rows", rows);
    require_pointer("cols", cols);
    with_matrix(*a, [&](const auto& x) {
      if (x.distribution().is_user_defined())
        fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'array' has a user-defined distribution: no processor grid");
      const std::vector<int> m = blacs_process_map(x.distribution().grid(), view_of(transposed));
      if (capacity < m.size())
        fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'capacity' = ", capacity, " is smaller than the ", m.size(),
               " entries of the grid's map");
      std::copy(m.begin(), m.end(), map);
      const std::size_t row_axis = transposed ? 1 : 0;
      *rows = static_cast<int>(x.distribution().grid().extent(row_axis));
      *cols = static_cast<int>(x.distribution().grid().extent(1 - row_axis));
    });
  });
}

}  // extern "C"
