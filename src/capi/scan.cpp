// tessera_array_scan: ZPL's op|| through the C API (tessera/array/scan.hpp), with the C API's
// built-in folds.
#include "convert.hpp"
#include "fold_ops.hpp"
#include "tessera/array/scan.hpp"

using namespace tessera;
using namespace tessera::capi;

extern "C" {

tessera_status tessera_array_scan(tessera_array in, int axis, int exclusive, tessera_op op, tessera_array out) {
  return guarded("tessera_array_scan", [&] {
    const auto a = get<ArrayObject>(in, "in");
    const auto b = get<ArrayObject>(out, "out");
    visit_same(*a, "in", *b, "out", [&](auto& x, auto& y) {
      using T = typename std::remove_cvref_t<decltype(x)>::value_type;
      constexpr std::size_t N = dims_v<decltype(x)>;
      if (axis < -1 || axis >= static_cast<int>(N))
        fail_c(TESSERA_ERR_OUT_OF_RANGE, "argument 'axis' = ", axis, " is neither -1 (the whole array) nor a dimension of a ",
               N, "-dimensional array");
      const ScanKind kind = exclusive ? ScanKind::exclusive : ScanKind::inclusive;
      with_fold<T>(op, [&](const T& identity, auto fold) {
        if (axis < 0)
          tessera::scan(x, y, kind, identity, fold);
        else
          tessera::scan_along(x, static_cast<std::size_t>(axis), y, kind, identity, fold);
      });
    });
  });
}

}  // extern "C"
