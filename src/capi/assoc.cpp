// tessera_assoc_* and tessera_assoc_array_*: Chapel's associative domains of int64_t keys, hashed
// over a communicator, with arrays over them (array/associative_domain.hpp,
// array/associative_array.hpp). Every key operation is a collective batch, one message per peer.
#include <algorithm>
#include <span>
#include <vector>

#include "collection_objects.hpp"

using namespace tessera;
using namespace tessera::capi;

namespace {

std::span<const std::int64_t> to_keys(const int64_t* keys, std::size_t count) {
  if (count != 0) require_pointer("keys", keys);
  return {keys, count};
}

/// Calls f(AssociativeArray<int64_t, T>&) after checking that `type` is the array's.
template <class F>
void visit_assoc_array(AssocArrayObject& a, tessera_type type, F&& f) {
  check_collection_type(a.type, type);
  std::visit([&](auto& p) { f(*p); }, a.array);
}

template <class A>
using AssocValueOf = typename std::remove_cvref_t<A>::value_type;

}  // namespace

extern "C" {

tessera_status tessera_assoc_create(tessera_comm comm, tessera_assoc* out) {
  return guarded("tessera_assoc_create", [&] {
    prepare_out(out);
    auto c = get<CommObject>(comm, "comm");
    issue(std::make_shared<AssocObject>(AssocObject{c, AssociativeDomain<std::int64_t>(c->comm)}), out);
  });
}

tessera_status tessera_assoc_insert(tessera_assoc assoc, const int64_t* keys, size_t count) {
  return guarded("tessera_assoc_insert", [&] {
    const auto a = get<AssocObject>(assoc, "assoc");
    a->assoc.insert(to_keys(keys, count));
  });
}

tessera_status tessera_assoc_remove(tessera_assoc assoc, const int64_t* keys, size_t count) {
  return guarded("tessera_assoc_remove", [&] {
    const auto a = get<AssocObject>(assoc, "assoc");
    a->assoc.remove(to_keys(keys, count));
  });
}

tessera_status tessera_assoc_contains(tessera_assoc assoc, const int64_t* keys, size_t count, uint8_t* held) {
  return guarded("tessera_assoc_contains", [&] {
    const auto a = get<AssocObject>(assoc, "assoc");
    if (count != 0) require_pointer("held", held);
    const std::vector<bool> answer = a->assoc.contains(to_keys(keys, count));
    for (std::size_t k = 0; k < answer.size(); ++k) held[k] = answer[k] ? 1 : 0;
  });
}

tessera_status tessera_assoc_size(tessera_assoc assoc, int64_t* size) {
  return guarded("tessera_assoc_size", [&] {
    const auto a = get<AssocObject>(assoc, "assoc");
    require_pointer("size", size);
    *size = a->assoc.size();
  });
}

tessera_status tessera_assoc_local_keys(tessera_assoc assoc, int64_t* keys, size_t capacity, size_t* count) {
  return guarded("tessera_assoc_local_keys", [&] {
    const auto a = get<AssocObject>(assoc, "assoc");
    copy_out(a->assoc.local_keys(), keys, capacity, count, [](std::int64_t k) { return k; });
  });
}

tessera_status tessera_assoc_free(tessera_assoc* assoc) {
  return guarded("tessera_assoc_free", [&] { release<AssocObject>(assoc, "assoc"); });
}

tessera_status tessera_assoc_array_create(tessera_assoc assoc, tessera_type type, tessera_assoc_array* out) {
  return guarded("tessera_assoc_array_create", [&] {
    prepare_out(out);
    const auto a = get<AssocObject>(assoc, "assoc");
    with_collection_type(type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      auto object = std::make_shared<AssocArrayObject>();
      object->assoc = a;
      object->type = type;
      object->array = std::make_unique<AssociativeArray<std::int64_t, T>>(a->assoc);
      issue(std::move(object), out);
    });
  });
}

tessera_status tessera_assoc_array_values(tessera_assoc_array array, tessera_type type, void** values,
                                          size_t* count) {
  return guarded("tessera_assoc_array_values", [&] {
    const auto a = get<AssocArrayObject>(array, "array");
    require_pointer("values", values);
    require_pointer("count", count);
    visit_assoc_array(*a, type, [&](auto& x) {
      *values = x.local_values().data();
      *count = x.local_values().size();
    });
  });
}

tessera_status tessera_assoc_array_update(tessera_assoc_array array, tessera_type type, const int64_t* keys,
                                          const void* values, size_t count, tessera_op op, int insert_missing) {
  return guarded("tessera_assoc_array_update", [&] {
    const auto a = get<AssocArrayObject>(array, "array");
    visit_assoc_array(*a, type, [&](auto& x) {
      using T = AssocValueOf<decltype(x)>;
      if (count != 0) require_pointer("values", values);
      std::vector<T> v(count);
      if (count != 0) std::memcpy(v.data(), values, count * sizeof(T));
      const MissingKeys missing = insert_missing != 0 ? MissingKeys::insert : MissingKeys::error;
      with_update_op<T>(op, [&](auto combine) { x.update(to_keys(keys, count), std::span<const T>(v), combine, missing); });
    });
  });
}

tessera_status tessera_assoc_array_lookup(tessera_assoc_array array, tessera_type type, const int64_t* keys,
                                          size_t count, void* values) {
  return guarded("tessera_assoc_array_lookup", [&] {
    const auto a = get<AssocArrayObject>(array, "array");
    visit_assoc_array(*a, type, [&](auto& x) {
      using T = AssocValueOf<decltype(x)>;
      if (count != 0) require_pointer("values", values);
      const std::vector<T> found = x.lookup(to_keys(keys, count));
      if (!found.empty()) std::memcpy(values, found.data(), found.size() * sizeof(T));
    });
  });
}

tessera_status tessera_assoc_array_reduce(tessera_assoc_array array, tessera_op op, tessera_type type, void* result) {
  return guarded("tessera_assoc_array_reduce", [&] {
    const auto a = get<AssocArrayObject>(array, "array");
    visit_assoc_array(*a, type, [&](auto& x) {
      using T = AssocValueOf<decltype(x)>;
      fold_into<T>(op, result, [&](T identity, auto combine) { return x.reduce(combine, identity); });
    });
  });
}

tessera_status tessera_assoc_array_free(tessera_assoc_array* array) {
  return guarded("tessera_assoc_array_free", [&] { release<AssocArrayObject>(array, "array"); });
}

}  // extern "C"
