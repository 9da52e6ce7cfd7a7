// tessera_copy, tessera_copy_section, tessera_flood, tessera_transpose, tessera_gather, tessera_scatter: the
// collective remaps between arrays (tessera/array/remap.hpp, tessera/array/flood.hpp).
#include "convert.hpp"

using namespace tessera;
using namespace tessera::capi;

namespace {

void require_index_array(const ArrayObject& index) {
  if (index.type != TESSERA_INDEX)
    fail_c(TESSERA_ERR_WRONG_TYPE, "argument 'index' holds ", type_name(index.type),
           "; an index array holds TESSERA_INDEX");
}

// The index array with its points cut to N coordinates: a temporary over the same domain and
// distribution (so its elements are owned where index's are; nothing moves between ranks).
template <std::size_t N, std::size_t M>
DistArray<Point<N>, M> narrowed(const DistArray<IndexPoint, M>& index) {
  DistArray<Point<N>, M> out(index.domain());
  std::vector<Point<N>> points;
  index.for_each_owned([&](const Point<M>&, const IndexPoint& p) {
    Point<N> q;
    for (std::size_t d = 0; d < N; ++d) q[d] = p[d];
    points.push_back(q);
  });
  std::size_t k = 0;
  out.for_each_owned([&](const Point<M>&, Point<N>& q) { q = points[k++]; });
  return out;
}

// Calls f(DistArray<IndexPoint, M>&) with the index array `index` holds.
template <class F>
void visit_index(ArrayObject& index, F&& f) {
  require_index_array(index);
  visit_array(index, [&](auto& x) {
    if constexpr (std::is_same_v<typename std::remove_cvref_t<decltype(x)>::value_type, IndexPoint>) f(x);
  });
}

// The array `a` holds as DistArray<T, M>: its type and dimension were checked by the caller.
template <class T, std::size_t M>
DistArray<T, M>& as_array(ArrayObject& a) {
  return *std::get<ArrayPtr<T, M>>(a.array);
}

// Checks what gather and scatter need: `other` holds the element type of `data` (WRONG_TYPE) and
// has the dimension of `index` (MISMATCH).
void check_index_pair(const ArrayObject& data, const char* data_name, const ArrayObject& other, const char* other_name,
                      const ArrayObject& index) {
  require_index_array(index);
  if (other.type != data.type)
    fail_c(TESSERA_ERR_WRONG_TYPE, "argument '", other_name, "' holds ", type_name(other.type), " but argument '",
           data_name, "' holds ", type_name(data.type));
  if (ndim_of(other.domain->domain) != ndim_of(index.domain->domain))
    fail_c(TESSERA_ERR_MISMATCH, "argument '", other_name, "' is ", ndim_of(other.domain->domain),
           "-dimensional but argument 'index' is ", ndim_of(index.domain->domain), "-dimensional");
}

}  // namespace

extern "C" {

tessera_status tessera_copy(tessera_array src, tessera_array dst) {
  return guarded("tessera_copy", [&] {
    const auto s = get<ArrayObject>(src, "src");
    const auto d = get<ArrayObject>(dst, "dst");
    visit_same(*s, "src", *d, "dst", [](auto& a, auto& b) { tessera::copy(a, b); });
  });
}

tessera_status tessera_copy_section(tessera_array src, const tessera_box* src_box, tessera_array dst,
                                    const int64_t* dst_lo) {
  return guarded("tessera_copy_section", [&] {
    const auto s = get<ArrayObject>(src, "src");
    const auto d = get<ArrayObject>(dst, "dst");
    visit_same(*s, "src", *d, "dst", [&](auto& a, auto& b) {
      constexpr std::size_t N = dims_v<decltype(a)>;
      tessera::copy_section(a, to_box<N>(src_box, "src_box"), b, to_point<N>(dst_lo, "dst_lo"));
    });
  });
}

tessera_status tessera_flood(tessera_array src, const tessera_box* slice, tessera_array dst) {
  return guarded("tessera_flood", [&] {
    const auto s = get<ArrayObject>(src, "src");
    const auto d = get<ArrayObject>(dst, "dst");
    visit_same(*s, "src", *d, "dst", [&](auto& a, auto& b) {
      constexpr std::size_t N = dims_v<decltype(a)>;
      tessera::flood(a, to_box<N>(slice, "slice"), b);
    });
  });
}

tessera_status tessera_transpose(tessera_array src, tessera_array dst, const int* perm) {
  return guarded("tessera_transpose", [&] {
    const auto s = get<ArrayObject>(src, "src");
    const auto d = get<ArrayObject>(dst, "dst");
    require_pointer("perm", perm);
    visit_same(*s, "src", *d, "dst", [&](auto& a, auto& b) {
      constexpr std::size_t N = dims_v<decltype(a)>;
      std::array<int, N> p;
      std::copy(perm, perm + N, p.begin());
      tessera::transpose(a, b, p);
    });
  });
}

tessera_status tessera_gather(tessera_array src, tessera_array index, tessera_array dst) {
  return guarded("tessera_gather", [&] {
    const auto s = get<ArrayObject>(src, "src");
    const auto i = get<ArrayObject>(index, "index");
    const auto d = get<ArrayObject>(dst, "dst");
    check_index_pair(*s, "src", *d, "dst", *i);
    visit_array(*s, [&](auto& a) {
      using T = typename std::remove_cvref_t<decltype(a)>::value_type;
      constexpr std::size_t N = dims_v<decltype(a)>;
      visit_index(*i, [&](auto& idx) {
        constexpr std::size_t M = dims_v<decltype(idx)>;
        tessera::gather(a, narrowed<N>(idx), as_array<T, M>(*d));
      });
    });
  });
}

tessera_status tessera_scatter(tessera_array values, tessera_array index, tessera_array dst, tessera_op op) {
  return guarded("tessera_scatter", [&] {
    const auto v = get<ArrayObject>(values, "values");
    const auto i = get<ArrayObject>(index, "index");
    const auto d = get<ArrayObject>(dst, "dst");
    check_index_pair(*d, "dst", *v, "values", *i);
    const CombineOp combine = to_op(op, "op");
    visit_array(*d, [&](auto& target) {
      using T = typename std::remove_cvref_t<decltype(target)>::value_type;
      constexpr std::size_t N = dims_v<decltype(target)>;
      visit_index(*i, [&](auto& idx) {
        constexpr std::size_t M = dims_v<decltype(idx)>;
        tessera::scatter(as_array<T, M>(*v), narrowed<N>(idx), target, combine);
      });
    });
  });
}

}  // extern "C"
