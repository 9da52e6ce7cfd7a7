// tessera_domain_region, tessera_sparse_* and tessera_sparse_array_*: ZPL's regions of a domain
// and Chapel's sparse subdomains with arrays over them (array/sparse_domain.hpp,
// array/sparse_array.hpp).
#include <algorithm>
#include <vector>

#include "collection_objects.hpp"

using namespace tessera;
using namespace tessera::capi;

namespace {

/// The first N coordinates of `count` points (null only for count 0).
template <std::size_t N>
std::vector<Point<N>> to_points(const tessera_index* points, std::size_t count, const char* argument) {
  std::vector<Point<N>> out(count);
  if (count != 0) require_pointer(argument, points);
  for (std::size_t k = 0; k < count; ++k) out[k] = to_point<N>(points[k].c, argument);
  return out;
}

template <std::size_t N>
tessera_index to_index(const Point<N>& p) {
  tessera_index out{};
  from_point(p, out.c);
  return out;
}

/// Calls f(SparseArray<T, N>&) after checking that `type` is the array's.
template <class F>
void visit_sparse_array(SparseArrayObject& a, tessera_type type, F&& f) {
  check_collection_type(a.type, type);
  std::visit([&](auto& p) { f(*p); }, a.array);
}

template <class A>
using ValueOf = typename std::remove_cvref_t<decltype(std::declval<A&>().values())>::value_type;

}  // namespace

extern "C" {

tessera_status tessera_domain_region(tessera_domain domain, const tessera_box* box, tessera_domain* out) {
  return guarded("tessera_domain_region", [&] {
    prepare_out(out);
    const auto d = get<DomainObject>(domain, "domain");
    std::visit(
        [&](const auto& x) {
          constexpr std::size_t N = dims_v<decltype(x)>;
          issue(std::make_shared<DomainObject>(DomainObject{d->comm, x.region(to_box<N>(box, "box"))}), out);
        },
        d->domain);
  });
}

tessera_status tessera_domain_is_region(tessera_domain domain, int* is_region) {
  return guarded("tessera_domain_is_region", [&] {
    const auto d = get<DomainObject>(domain, "domain");
    require_pointer("is_region", is_region);
    *is_region = std::visit([](const auto& x) { return x.is_region() ? 1 : 0; }, d->domain);
  });
}

tessera_status tessera_sparse_create(tessera_domain parent, tessera_sparse* out) {
  return guarded("tessera_sparse_create", [&] {
    prepare_out(out);
    const auto d = get<DomainObject>(parent, "parent");
    std::visit(
        [&](const auto& x) {
          constexpr std::size_t N = dims_v<decltype(x)>;
          issue(std::make_shared<SparseObject>(SparseObject{d, SparseDomain<N>(x)}), out);
        },
        d->domain);
  });
}

tessera_status tessera_sparse_add(tessera_sparse sparse, const tessera_index* points, size_t count) {
  return guarded("tessera_sparse_add", [&] {
    const auto s = get<SparseObject>(sparse, "sparse");
    std::visit(
        [&](auto& x) {
          constexpr std::size_t N = dims_v<decltype(x.distribution())>;
          x.add(to_points<N>(points, count, "points"));
        },
        s->sparse);
  });
}

tessera_status tessera_sparse_remove(tessera_sparse sparse, const tessera_index* points, size_t count) {
  return guarded("tessera_sparse_remove", [&] {
    const auto s = get<SparseObject>(sparse, "sparse");
    std::visit(
        [&](auto& x) {
          constexpr std::size_t N = dims_v<decltype(x.distribution())>;
          x.remove(to_points<N>(points, count, "points"));
        },
        s->sparse);
  });
}

tessera_status tessera_sparse_contains(tessera_sparse sparse, const tessera_index* points, size_t count,
                                       uint8_t* held) {
  return guarded("tessera_sparse_contains", [&] {
    const auto s = get<SparseObject>(sparse, "sparse");
    if (count != 0) require_pointer("held", held);
    std::visit(
        [&](const auto& x) {
          constexpr std::size_t N = dims_v<decltype(x.distribution())>;
          const auto answer = x.contains(to_points<N>(points, count, "points"));
          std::copy(answer.begin(), answer.end(), held);
        },
        s->sparse);
  });
}

tessera_status tessera_sparse_size(tessera_sparse sparse, int64_t* size) {
  return guarded("tessera_sparse_size", [&] {
    const auto s = get<SparseObject>(sparse, "sparse");
    require_pointer("size", size);
    *size = std::visit([](const auto& x) { return x.size(); }, s->sparse);
  });
}

tessera_status tessera_sparse_local_points(tessera_sparse sparse, tessera_index* points, size_t capacity,
                                           size_t* count) {
  return guarded("tessera_sparse_local_points", [&] {
    const auto s = get<SparseObject>(sparse, "sparse");
    std::visit([&](const auto& x) { copy_out(x.points(), points, capacity, count, [](const auto& p) { return to_index(p); }); },
               s->sparse);
  });
}

tessera_status tessera_sparse_free(tessera_sparse* sparse) {
  return guarded("tessera_sparse_free", [&] { release<SparseObject>(sparse, "sparse"); });
}

tessera_status tessera_sparse_array_create(tessera_sparse sparse, tessera_type type, tessera_sparse_array* out) {
  return guarded("tessera_sparse_array_create", [&] {
    prepare_out(out);
    const auto s = get<SparseObject>(sparse, "sparse");
    with_collection_type(type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      std::visit(
          [&](const auto& x) {
            constexpr std::size_t N = dims_v<decltype(x.distribution())>;
            auto object = std::make_shared<SparseArrayObject>();
            object->sparse = s;
            object->type = type;
            object->array = std::make_unique<SparseArray<T, N>>(x);
            issue(std::move(object), out);
          },
          s->sparse);
    });
  });
}

tessera_status tessera_sparse_array_values(tessera_sparse_array array, tessera_type type, void** values,
                                           size_t* count) {
  return guarded("tessera_sparse_array_values", [&] {
    const auto a = get<SparseArrayObject>(array, "array");
    require_pointer("values", values);
    require_pointer("count", count);
    visit_sparse_array(*a, type, [&](auto& x) {
      *values = x.values().data();
      *count = x.values().size();
    });
  });
}

tessera_status tessera_sparse_array_update_ghosts(tessera_sparse_array array, const tessera_ghosts* ghosts) {
  return guarded("tessera_sparse_array_update_ghosts", [&] {
    const auto a = get<SparseArrayObject>(array, "array");
    require_pointer("ghosts", ghosts);
    std::visit(
        [&](auto& p) {
          constexpr std::size_t N = dims_v<decltype(p->domain().distribution())>;
          p->update_ghosts(to_ghosts<N>(ghosts));
        },
        a->array);
  });
}

tessera_status tessera_sparse_array_update_offsets(tessera_sparse_array array, const tessera_index* offsets,
                                                   size_t count, const int* periodic) {
  return guarded("tessera_sparse_array_update_offsets", [&] {
    const auto a = get<SparseArrayObject>(array, "array");
    std::visit(
        [&](auto& p) {
          constexpr std::size_t N = dims_v<decltype(p->domain().distribution())>;
          Periodicity<N> wrap{};
          if (periodic != nullptr)
            for (std::size_t d = 0; d < N; ++d) wrap[d] = periodic[d] != 0;
          p->update_ghosts(to_points<N>(offsets, count, "offsets"), wrap);
        },
        a->array);
  });
}

tessera_status tessera_sparse_array_find(tessera_sparse_array array, tessera_type type, const tessera_index* point,
                                         void* value, int* found) {
  return guarded("tessera_sparse_array_find", [&] {
    const auto a = get<SparseArrayObject>(array, "array");
    require_pointer("point", point);
    require_pointer("value", value);
    require_pointer("found", found);
    visit_sparse_array(*a, type, [&](auto& x) {
      constexpr std::size_t N = dims_v<decltype(x.domain().distribution())>;
      const auto* v = x.find(to_point<N>(point->c, "point"));
      *found = v != nullptr ? 1 : 0;
      if (v != nullptr) std::memcpy(value, v, sizeof(*v));
    });
  });
}

tessera_status tessera_sparse_array_reduce(tessera_sparse_array array, tessera_op op, tessera_type type,
                                           void* result) {
  return guarded("tessera_sparse_array_reduce", [&] {
    const auto a = get<SparseArrayObject>(array, "array");
    visit_sparse_array(*a, type, [&](auto& x) {
      using T = ValueOf<decltype(x)>;
      fold_into<T>(op, result, [&](T identity, auto combine) { return x.reduce(identity, combine); });
    });
  });
}

tessera_status tessera_sparse_array_gather_to(tessera_sparse_array array, int root, tessera_type type,
                                              tessera_index* points, void* values, size_t capacity, size_t* count) {
  return guarded("tessera_sparse_array_gather_to", [&] {
    const auto a = get<SparseArrayObject>(array, "array");
    require_pointer("count", count);
    visit_sparse_array(*a, type, [&](auto& x) {
      using T = ValueOf<decltype(x)>;
      const auto image = x.gather_to(root);
      *count = image.points.size();
      if (image.points.empty()) return;
      if (capacity < image.points.size())
        fail_c(TESSERA_ERR_OUT_OF_RANGE, "argument 'capacity' = ", capacity, " is below the ", image.points.size(),
               " gathered entries");
      require_pointer("points", points);
      require_pointer("values", values);
      for (std::size_t k = 0; k < image.points.size(); ++k) points[k] = to_index(image.points[k]);
      std::memcpy(values, image.values.data(), image.values.size() * sizeof(T));
    });
  });
}

tessera_status tessera_sparse_array_free(tessera_sparse_array* array) {
  return guarded("tessera_sparse_array_free", [&] { release<SparseArrayObject>(array, "array"); });
}

}  // extern "C"
