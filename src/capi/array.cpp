// tessera_array_*: creating arrays and reaching this rank's elements (nothing here communicates).
#include <cstring>

#include "convert.hpp"
#include "view.hpp"

using namespace tessera;
using namespace tessera::capi;

namespace {

// Patch `patch` of `a`'s layout, or TESSERA_ERR_OUT_OF_RANGE naming it.
template <class T, std::size_t N>
const PatchLayout<N>& patch_of(const DistArray<T, N>& a, size_t patch) {
  const auto& patches = a.layout().patches();
  if (patch >= patches.size())
    fail_c(TESSERA_ERR_OUT_OF_RANGE, "argument 'patch' = ", patch, " does not exist: rank ", a.domain().rank(),
           " stores ", patches.size(), " patch(es)");
  return patches[patch];
}

template <std::size_t N>
void check_region(const Box<N>& region, const Box<N>& buffer_box) {
  for (std::size_t d = 0; d < N; ++d)
    if (region.hi[d] < region.lo[d])
      fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'region' = ", region, " is malformed: hi < lo along axis ", d);
  if (!region.empty() && !contains(buffer_box, region))
    fail_c(TESSERA_ERR_OUT_OF_RANGE, "argument 'region' = ", region,
           " is not inside argument 'buffer_box' = ", buffer_box);
}

// Calls f(element of a at p, element of the buffer) for every point p of region.
template <class T, std::size_t N, class F>
void walk_region(DistArray<T, N>& a, const tessera_box* region_c, const tessera_box* buffer_box_c, F&& f) {
  const Box<N> region = to_box<N>(region_c, "region");
  const Box<N> buffer_box = buffer_box_c ? to_box<N>(buffer_box_c, "buffer_box") : region;
  check_region(region, buffer_box);
  for_each_point(region, [&](const Point<N>& p) { f(a.at(p), offset_row_major(buffer_box, p)); });
}

// tessera_array_create and tessera_array_create_ordered.
void create_array(tessera_domain domain, tessera_type type, const tessera_ghosts* ghosts, StorageOrder order,
                  tessera_array* out) {
  prepare_out(out);
  auto d = get<DomainObject>(domain, "domain");
  auto object = std::make_shared<ArrayObject>();
  object->domain = d;
  object->type = type;
  std::visit(
      [&](const auto& dom) {
        constexpr std::size_t N = dims_v<decltype(dom)>;
        const GhostSpec<N> g = to_ghosts<N>(ghosts).stored(order);
        with_type(type, "type", [&](auto t) {
          using T = typename decltype(t)::type;
          object->array = std::make_unique<DistArray<T, N>>(dom, g);
        });
      },
      d->domain);
  issue(std::move(object), out);
}

}  // namespace

extern "C" {

tessera_status tessera_ghosts_uniform(int ndim, int64_t width, tessera_ghosts* ghosts) {
  return guarded("tessera_ghosts_uniform", [&] {
    require_pointer("ghosts", ghosts);
    with_ndim(ndim, "ndim", [](auto) {});
    if (width < 0) fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'width' = ", width, " must be >= 0");
    *ghosts = tessera_ghosts{};
    for (int d = 0; d < ndim; ++d) ghosts->lower[d] = ghosts->upper[d] = width;
  });
}

tessera_status tessera_array_create(tessera_domain domain, tessera_type type, const tessera_ghosts* ghosts,
                                    tessera_array* out) {
  return guarded("tessera_array_create",
                 [&] { create_array(domain, type, ghosts, StorageOrder::row_major, out); });
}

tessera_status tessera_array_create_ordered(tessera_domain domain, tessera_type type, const tessera_ghosts* ghosts,
                                            tessera_storage_order order, tessera_array* out) {
  return guarded("tessera_array_create_ordered",
                 [&] { create_array(domain, type, ghosts, to_storage_order(order), out); });
}

tessera_status tessera_array_storage_order(tessera_array array, tessera_storage_order* order) {
  return guarded("tessera_array_storage_order", [&] {
    const auto a = get<ArrayObject>(array, "array");
    require_pointer("order", order);
    *order = visit_array(*a, [](const auto& x) { return x.ghosts().order; }) == StorageOrder::column_major
                 ? TESSERA_COLUMN_MAJOR
                 : TESSERA_ROW_MAJOR;
  });
}

tessera_status tessera_array_type(tessera_array array, tessera_type* type) {
  return guarded("tessera_array_type", [&] {
    const auto a = get<ArrayObject>(array, "array");
    require_pointer("type", type);
    *type = a->type;
  });
}

tessera_status tessera_array_ndim(tessera_array array, int* ndim) {
  return guarded("tessera_array_ndim", [&] {
    const auto a = get<ArrayObject>(array, "array");
    require_pointer("ndim", ndim);
    *ndim = ndim_of(a->domain->domain);
  });
}

tessera_status tessera_array_domain(tessera_array array, tessera_domain* out) {
  return guarded("tessera_array_domain", [&] {
    prepare_out(out);
    const auto a = get<ArrayObject>(array, "array");
    issue(a->domain, out);
  });
}

tessera_status tessera_array_patch_count(tessera_array array, size_t* count) {
  return guarded("tessera_array_patch_count", [&] {
    const auto a = get<ArrayObject>(array, "array");
    require_pointer("count", count);
    *count = visit_array(*a, [](const auto& x) { return x.patch_count(); });
  });
}

tessera_status tessera_array_owned_box(tessera_array array, size_t patch, tessera_box* box) {
  return guarded("tessera_array_owned_box", [&] {
    const auto a = get<ArrayObject>(array, "array");
    require_pointer("box", box);
    visit_array(*a, [&](const auto& x) { *box = from_box(patch_of(x, patch).owned_box()); });
  });
}

tessera_status tessera_array_local(tessera_array array, size_t patch, tessera_type type, tessera_view* view) {
  return guarded("tessera_array_local", [&] {
    const auto a = get<ArrayObject>(array, "array");
    require_pointer("view", view);
    check_type(*a, type);
    visit_array(*a, [&](auto& x) {
      constexpr std::size_t N = dims_v<decltype(x)>;
      const PatchLayout<N>& p = patch_of(x, patch);
      *view = view_of(x.local(patch), p, a->type);
    });
  });
}

tessera_status tessera_array_get(tessera_array array, const int64_t* point, tessera_type type, void* value) {
  return guarded("tessera_array_get", [&] {
    const auto a = get<ArrayObject>(array, "array");
    require_pointer("value", value);
    check_type(*a, type);
    visit_array(*a, [&](auto& x) {
      constexpr std::size_t N = dims_v<decltype(x)>;
      const auto& element = x.at(to_point<N>(point, "point"));
      std::memcpy(value, &element, sizeof element);
    });
  });
}

tessera_status tessera_array_storage_offset(tessera_array array, const int64_t* point, int64_t* offset) {
  return guarded("tessera_array_storage_offset", [&] {
    const auto a = get<ArrayObject>(array, "array");
    require_pointer("offset", offset);
    visit_array(*a, [&](auto& x) {
      constexpr std::size_t N = dims_v<decltype(x)>;
      const auto& element = x.at(to_point<N>(point, "point"));  // OUT_OF_RANGE when not stored here
      *offset = static_cast<int64_t>(&element - x.storage().data());
    });
  });
}

tessera_status tessera_array_set(tessera_array array, const int64_t* point, tessera_type type, const void* value) {
  return guarded("tessera_array_set", [&] {
    const auto a = get<ArrayObject>(array, "array");
    require_pointer("value", value);
    check_type(*a, type);
    visit_array(*a, [&](auto& x) {
      constexpr std::size_t N = dims_v<decltype(x)>;
      auto& element = x.at(to_point<N>(point, "point"));
      std::memcpy(&element, value, sizeof element);
    });
  });
}

tessera_status tessera_array_fill(tessera_array array, tessera_type type, const void* value) {
  return guarded("tessera_array_fill", [&] {
    const auto a = get<ArrayObject>(array, "array");
    require_pointer("value", value);
    check_type(*a, type);
    visit_array(*a, [&](auto& x) {
      using T = typename std::remove_cvref_t<decltype(x)>::value_type;
      T v;
      std::memcpy(&v, value, sizeof v);
      x.for_each_owned([&](const auto&, T& element) { element = v; });
    });
  });
}

tessera_status tessera_array_copy_out(tessera_array array, const tessera_box* region, tessera_type type, void* buffer,
                                      const tessera_box* buffer_box) {
  return guarded("tessera_array_copy_out", [&] {
    const auto a = get<ArrayObject>(array, "array");
    check_type(*a, type);
    require_pointer("buffer", buffer);
    visit_array(*a, [&](auto& x) {
      using T = typename std::remove_cvref_t<decltype(x)>::value_type;
      auto* out = static_cast<T*>(buffer);
      walk_region(x, region, buffer_box, [&](const T& element, index_t k) { out[k] = element; });
    });
  });
}

tessera_status tessera_array_copy_in(tessera_array array, const tessera_box* region, tessera_type type,
                                     const void* buffer, const tessera_box* buffer_box) {
  return guarded("tessera_array_copy_in", [&] {
    const auto a = get<ArrayObject>(array, "array");
    check_type(*a, type);
    require_pointer("buffer", buffer);
    visit_array(*a, [&](auto& x) {
      using T = typename std::remove_cvref_t<decltype(x)>::value_type;
      const auto* in = static_cast<const T*>(buffer);
      // Every element must be stored before any is written: a failure leaves the array as it was.
      walk_region(x, region, buffer_box, [](T&, index_t) {});
      walk_region(x, region, buffer_box, [&](T& element, index_t k) { element = in[k]; });
    });
  });
}

tessera_status tessera_array_free(tessera_array* array) {
  return guarded("tessera_array_free", [&] {
    require_pointer("array", array);
    if (*array == nullptr) return;
    const auto a = get<ArrayObject>(*array, "array");
    if (visit_array(*a, [](const auto& x) { return x.ghost_update_in_flight(); }))
      fail_c(TESSERA_ERR_CALL_ORDER,
             "the array has a ghost update in flight: call tessera_array_end_update_ghosts first");
    release<ArrayObject>(array, "array");
  });
}

}  // extern "C"
