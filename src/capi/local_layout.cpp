// tessera_dist_with_local_order, tessera_dist_has_local_layout, tessera_dist_local_offset,
// tessera_dist_local_storage_size, tessera_array_storage: user-defined local layouts
// (tessera/layout/local_layout.hpp, Chapel's LocalLayout) from C.
#include "convert.hpp"
#include "tessera/layout/local_layout.hpp"

using namespace tessera;
using namespace tessera::capi;

namespace {

/// The C++ order `order` names, with its size checked: the padding multiple or tile side (>= 1,
/// which LocalOrder checks), exactly 1 for the two orders that have none, so that a size passed to
/// the wrong order is reported rather than ignored.
template <std::size_t N>
LocalOrder<N> to_local_order(tessera_local_order order, std::int64_t size) {
  const auto sizeless = [&](const char* name) {
    if (size != 1)
      fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'size' = ", size, " must be 1 for ", name,
             " (only padded and tiled orders take a size)");
  };
  switch (order) {
    case TESSERA_LOCAL_ROW_MAJOR: sizeless("TESSERA_LOCAL_ROW_MAJOR"); return LocalOrder<N>::row_major();
    case TESSERA_LOCAL_COLUMN_MAJOR: sizeless("TESSERA_LOCAL_COLUMN_MAJOR"); return LocalOrder<N>::column_major();
    case TESSERA_LOCAL_PADDED: return LocalOrder<N>::padded(size);
    case TESSERA_LOCAL_TILED: return LocalOrder<N>::tiled(size);
    default:
      fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'order' = ", static_cast<int>(order),
             " is not a tessera_local_order");
  }
}

}  // namespace

extern "C" {

tessera_status tessera_dist_with_local_order(tessera_dist dist, tessera_local_order order, int64_t size,
                                             tessera_dist* out) {
  return guarded("tessera_dist_with_local_order", [&] {
    prepare_out(out);
    const auto d = get<DistObject>(dist, "dist");
    std::visit(
        [&](const auto& x) {
          constexpr std::size_t N = dims_v<decltype(x)>;
          issue(std::make_shared<DistObject>(DistObject{with_local_order(x, to_local_order<N>(order, size))}), out);
        },
        d->dist);
  });
}

tessera_status tessera_dist_has_local_layout(tessera_dist dist, int* has) {
  return guarded("tessera_dist_has_local_layout", [&] {
    const auto d = get<DistObject>(dist, "dist");
    require_pointer("has", has);
    *has = std::visit([](const auto& x) { return x.has_local_layout() ? 1 : 0; }, d->dist);
  });
}

tessera_status tessera_dist_local_offset(tessera_dist dist, const int64_t* point, int64_t* offset) {
  return guarded("tessera_dist_local_offset", [&] {
    const auto d = get<DistObject>(dist, "dist");
    require_pointer("offset", offset);
    std::visit(
        [&](const auto& x) {
          constexpr std::size_t N = dims_v<decltype(x)>;
          *offset = x.local_offset(to_point<N>(point, "point"));
        },
        d->dist);
  });
}

tessera_status tessera_dist_local_storage_size(tessera_dist dist, int rank, int64_t* size) {
  return guarded("tessera_dist_local_storage_size", [&] {
    const auto d = get<DistObject>(dist, "dist");
    require_pointer("size", size);
    *size = std::visit([&](const auto& x) { return x.local_storage_size(rank); }, d->dist);
  });
}

tessera_status tessera_array_storage(tessera_array array, tessera_type type, void** data, int64_t* size) {
  return guarded("tessera_array_storage", [&] {
    const auto a = get<ArrayObject>(array, "array");
    check_type(*a, type);
    visit_array(*a, [&](auto& x) {
      const auto buffer = x.storage();
      if (data) *data = buffer.empty() ? nullptr : static_cast<void*>(buffer.data());
      if (size) *size = static_cast<int64_t>(buffer.size());
    });
  });
}

}  // extern "C"
