// tessera_multiblock_* and tessera_multiblock_array_*: multiblock domains and the arrays over them
// (tessera/layout/multiblock.hpp, tessera/array/multiblock_array.hpp) from C.
//
// A tessera_multiblock holds a MultiblockDomain (its Domain is registered with the arrays over it,
// so it lives behind a unique_ptr and never moves); a tessera_multiblock_array holds a
// MultiblockArray of one of the C element types and keeps its domain's object alive.
#include <algorithm>
#include <cstring>
#include <memory>
#include <span>
#include <variant>

#include "convert.hpp"
#include "fold_ops.hpp"
#include "view.hpp"

using namespace tessera;
using namespace tessera::capi;

namespace tessera::capi {

template <std::size_t N>
using MultiblockPtr = std::unique_ptr<MultiblockDomain<N>>;

struct MultiblockObject {
  static constexpr Kind kind = Kind::multiblock;
  std::shared_ptr<CommObject> comm;  // the domain keeps the Communicator by address
  std::variant<MultiblockPtr<1>, MultiblockPtr<2>, MultiblockPtr<3>> multiblock;
};

template <class T, std::size_t N>
using MultiblockArrayPtr = std::unique_ptr<MultiblockArray<T, N>>;

/// The variant of MultiblockArrayPtr<T, N> over the C element types and dimensions 1-3.
template <class... T>
struct MultiblockArrays {
  using type = std::variant<MultiblockArrayPtr<T, 1>..., MultiblockArrayPtr<T, 2>..., MultiblockArrayPtr<T, 3>...>;
};

struct MultiblockArrayObject {
  static constexpr Kind kind = Kind::multiblock_array;
  std::shared_ptr<MultiblockObject> multiblock;  // declared first: destroyed after the array
  tessera_type type = TESSERA_DOUBLE;
  MultiblockArrays<float, double, std::int32_t, std::int64_t, Complex, IndexPoint>::type array;
};

}  // namespace tessera::capi

namespace {

template <class F>
decltype(auto) visit_multiblock(MultiblockObject& m, F&& f) {
  return std::visit([&](auto& p) -> decltype(auto) { return f(*p); }, m.multiblock);
}

template <class F>
decltype(auto) visit_multiblock_array(MultiblockArrayObject& a, F&& f) {
  return std::visit([&](auto& p) -> decltype(auto) { return f(*p); }, a.array);
}

// The dimension N of a MultiblockDomain<N> or MultiblockArray<T, N> (of the variants' alternatives).
template <class T>
struct multiblock_dims;
template <std::size_t N>
struct multiblock_dims<MultiblockDomain<N>> : std::integral_constant<std::size_t, N> {};
template <class T, std::size_t N>
struct multiblock_dims<MultiblockArray<T, N>> : std::integral_constant<std::size_t, N> {};
template <class T>
constexpr std::size_t multiblock_dims_v = multiblock_dims<std::remove_cvref_t<T>>::value;

void check_multiblock_type(const MultiblockArrayObject& a, tessera_type type) {
  with_type(type, "type", [](auto) {});
  if (a.type != type)
    fail_c(TESSERA_ERR_WRONG_TYPE, "argument 'type' = ", type_name(type), " but the array holds ", type_name(a.type));
}

// Block `block` of `mb`, or OUT_OF_RANGE naming the argument.
template <std::size_t N>
void check_block(const MultiblockLayout<N>& mb, std::size_t block, const char* argument = "block") {
  if (block >= mb.block_count())
    fail_c(TESSERA_ERR_OUT_OF_RANGE, "argument '", argument, "' = ", block, " is not a block (the domain has ",
           mb.block_count(), ")");
}

// `count` distributions of N dimensions from their handles.
template <std::size_t N>
std::vector<Distribution<N>> to_blocks(const tessera_dist* blocks, std::size_t count) {
  if (count > 0) require_pointer("blocks", blocks);
  std::vector<Distribution<N>> out;
  out.reserve(count);
  for (std::size_t b = 0; b < count; ++b) {
    const auto d = get<DistObject>(blocks[b], "blocks");
    out.push_back(as_dim<N>(d->dist, "blocks", "first block"));
  }
  return out;
}

template <std::size_t N>
Orientation<N> to_orientation(const int* perm, const int* flip) {
  typename Orientation<N>::Permutation p{};
  typename Orientation<N>::Flips f{};
  bool all_zero = true;
  for (std::size_t d = 0; d < N; ++d) {
    p[d] = perm ? perm[d] : static_cast<int>(d);
    f[d] = flip ? flip[d] != 0 : false;
    all_zero = all_zero && p[d] == 0;
  }
  if (all_zero)  // a zero-initialised perm: the identity (never a permutation from 2 dimensions on)
    for (std::size_t d = 0; d < N; ++d) p[d] = static_cast<int>(d);
  return Orientation<N>(p, f);
}

template <std::size_t N>
BlockFace<N> to_face(const tessera_block_face& f, const char* argument) {
  if (f.block < 0)
    fail_c(TESSERA_ERR_OUT_OF_RANGE, "argument '", argument, ".block' = ", f.block, " is not a block");
  if (f.axis < 0 || f.axis >= static_cast<int>(N))
    fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument '", argument, ".axis' = ", f.axis, " is not an axis of a ", N,
           "-dimensional block");
  return BlockFace<N>{static_cast<std::size_t>(f.block), static_cast<std::size_t>(f.axis), f.upper != 0,
                      to_box<N>(&f.cells, argument)};
}

template <std::size_t N>
std::vector<BlockInterface<N>> to_interfaces(const tessera_block_interface* interfaces, std::size_t count) {
  if (count > 0) require_pointer("interfaces", interfaces);
  std::vector<BlockInterface<N>> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const tessera_block_interface& c = interfaces[i];
    out.push_back(BlockInterface<N>{to_face<N>(c.a, "interfaces.a"), to_face<N>(c.b, "interfaces.b"),
                                    to_orientation<N>(c.perm, c.flip)});
  }
  return out;
}

template <std::size_t N>
BlockSection<N> to_section(const tessera_block_section* s, const char* argument) {
  require_pointer(argument, s);
  if (s->block < 0) fail_c(TESSERA_ERR_OUT_OF_RANGE, "argument '", argument, ".block' = ", s->block, " is not a block");
  BlockSection<N> out{static_cast<std::size_t>(s->block), to_box<N>(&s->box, argument), Point<N>::filled(1)};
  for (std::size_t d = 0; d < N; ++d)
    if (s->stride[d] != 0) out.stride[d] = s->stride[d];  // 0: a zero-initialised stride, every index
  return out;
}

}  // namespace

extern "C" {

tessera_status tessera_multiblock_create(tessera_comm comm, const tessera_dist* blocks, size_t block_count,
                                         const tessera_block_interface* interfaces, size_t interface_count,
                                         int64_t max_ghost_width, tessera_multiblock* out) {
  return guarded("tessera_multiblock_create", [&] {
    prepare_out(out);
    auto c = get<CommObject>(comm, "comm");
    if (block_count == 0) fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'block_count' = 0: a multiblock domain needs a block");
    require_pointer("blocks", blocks);
    const int ndim = ndim_of(get<DistObject>(blocks[0], "blocks")->dist);
    auto object = std::make_shared<MultiblockObject>();
    object->comm = c;
    with_ndim(ndim, "blocks", [&](auto n) {
      constexpr std::size_t N = decltype(n)::value;
      MultiblockLayout<N> layout(to_blocks<N>(blocks, block_count), to_interfaces<N>(interfaces, interface_count),
                                 max_ghost_width);
      object->multiblock = std::make_unique<MultiblockDomain<N>>(c->comm, std::move(layout));
    });
    issue(std::move(object), out);
  });
}

tessera_status tessera_multiblock_ndim(tessera_multiblock multiblock, int* ndim) {
  return guarded("tessera_multiblock_ndim", [&] {
    const auto m = get<MultiblockObject>(multiblock, "multiblock");
    require_pointer("ndim", ndim);
    *ndim = ndim_of(m->multiblock);
  });
}

tessera_status tessera_multiblock_block_count(tessera_multiblock multiblock, size_t* count) {
  return guarded("tessera_multiblock_block_count", [&] {
    const auto m = get<MultiblockObject>(multiblock, "multiblock");
    require_pointer("count", count);
    *count = visit_multiblock(*m, [](const auto& x) { return x.layout().block_count(); });
  });
}

tessera_status tessera_multiblock_block_box(tessera_multiblock multiblock, size_t block, tessera_box* box) {
  return guarded("tessera_multiblock_block_box", [&] {
    const auto m = get<MultiblockObject>(multiblock, "multiblock");
    require_pointer("box", box);
    visit_multiblock(*m, [&](const auto& x) {
      check_block(x.layout(), block);
      *box = from_box(x.layout().block_box(block));
    });
  });
}

tessera_status tessera_multiblock_block_dist(tessera_multiblock multiblock, size_t block, tessera_dist* out) {
  return guarded("tessera_multiblock_block_dist", [&] {
    prepare_out(out);
    const auto m = get<MultiblockObject>(multiblock, "multiblock");
    visit_multiblock(*m, [&](const auto& x) {
      check_block(x.layout(), block);
      issue(std::make_shared<DistObject>(DistObject{x.layout().block(block)}), out);
    });
  });
}

tessera_status tessera_multiblock_redistribute(tessera_multiblock multiblock, const tessera_dist* blocks,
                                               size_t block_count) {
  return guarded("tessera_multiblock_redistribute", [&] {
    const auto m = get<MultiblockObject>(multiblock, "multiblock");
    visit_multiblock(*m, [&](auto& x) {
      constexpr std::size_t N = multiblock_dims_v<decltype(x)>;
      x.redistribute(to_blocks<N>(blocks, block_count));
    });
  });
}

tessera_status tessera_multiblock_free(tessera_multiblock* multiblock) {
  return guarded("tessera_multiblock_free", [&] { release<MultiblockObject>(multiblock, "multiblock"); });
}

tessera_status tessera_multiblock_array_create(tessera_multiblock multiblock, tessera_type type,
                                               const tessera_ghosts* ghosts, tessera_multiblock_array* out) {
  return guarded("tessera_multiblock_array_create", [&] {
    prepare_out(out);
    auto m = get<MultiblockObject>(multiblock, "multiblock");
    auto object = std::make_shared<MultiblockArrayObject>();
    object->multiblock = m;
    object->type = type;
    visit_multiblock(*m, [&](const auto& x) {
      constexpr std::size_t N = multiblock_dims_v<decltype(x)>;
      const GhostSpec<N> g = to_ghosts<N>(ghosts);
      with_type(type, "type", [&](auto t) {
        using T = typename decltype(t)::type;
        object->array = std::make_unique<MultiblockArray<T, N>>(x, g);
      });
    });
    issue(std::move(object), out);
  });
}

tessera_status tessera_multiblock_array_patch_count(tessera_multiblock_array array, size_t* count) {
  return guarded("tessera_multiblock_array_patch_count", [&] {
    const auto a = get<MultiblockArrayObject>(array, "array");
    require_pointer("count", count);
    *count = visit_multiblock_array(*a, [](const auto& x) { return x.patch_count(); });
  });
}

tessera_status tessera_multiblock_array_local(tessera_multiblock_array array, size_t patch, tessera_type type,
                                              size_t* block, tessera_view* view) {
  return guarded("tessera_multiblock_array_local", [&] {
    const auto a = get<MultiblockArrayObject>(array, "array");
    require_pointer("view", view);
    check_multiblock_type(*a, type);
    visit_multiblock_array(*a, [&](auto& x) {
      if (patch >= x.patch_count())
        fail_c(TESSERA_ERR_OUT_OF_RANGE, "argument 'patch' = ", patch, " does not exist: this rank stores ",
               x.patch_count(), " patch(es)");
      const std::size_t b = x.block_of_patch(patch);
      // `first` in the block's own coordinates.
      *view = view_of(x.local(patch), x.array().layout().patches()[patch], a->type, x.domain().layout().offset(b));
      if (block) *block = b;
    });
  });
}

tessera_status tessera_multiblock_array_get(tessera_multiblock_array array, size_t block, const int64_t* point,
                                            tessera_type type, void* value) {
  return guarded("tessera_multiblock_array_get", [&] {
    const auto a = get<MultiblockArrayObject>(array, "array");
    require_pointer("value", value);
    check_multiblock_type(*a, type);
    visit_multiblock_array(*a, [&](const auto& x) {
      constexpr std::size_t N = multiblock_dims_v<decltype(x)>;
      check_block(x.domain().layout(), block);
      const auto& element = x.at(block, to_point<N>(point, "point"));
      std::memcpy(value, &element, sizeof element);
    });
  });
}

tessera_status tessera_multiblock_array_set(tessera_multiblock_array array, size_t block, const int64_t* point,
                                            tessera_type type, const void* value) {
  return guarded("tessera_multiblock_array_set", [&] {
    const auto a = get<MultiblockArrayObject>(array, "array");
    require_pointer("value", value);
    check_multiblock_type(*a, type);
    visit_multiblock_array(*a, [&](auto& x) {
      constexpr std::size_t N = multiblock_dims_v<decltype(x)>;
      check_block(x.domain().layout(), block);
      auto& element = x.at(block, to_point<N>(point, "point"));
      std::memcpy(&element, value, sizeof element);
    });
  });
}

tessera_status tessera_multiblock_array_update_ghosts(tessera_multiblock_array array) {
  return guarded("tessera_multiblock_array_update_ghosts", [&] {
    const auto a = get<MultiblockArrayObject>(array, "array");
    visit_multiblock_array(*a, [](auto& x) {
      if (x.ghost_update_in_flight())
        fail_c(TESSERA_ERR_CALL_ORDER, "a ghost update begun with tessera_multiblock_array_begin_update_ghosts is in flight");
      x.update_ghosts();
    });
  });
}

tessera_status tessera_multiblock_array_begin_update_ghosts(tessera_multiblock_array array) {
  return guarded("tessera_multiblock_array_begin_update_ghosts", [&] {
    const auto a = get<MultiblockArrayObject>(array, "array");
    visit_multiblock_array(*a, [](auto& x) {
      if (x.ghost_update_in_flight())
        fail_c(TESSERA_ERR_CALL_ORDER,
               "a ghost update is in flight already: call tessera_multiblock_array_end_update_ghosts first");
      x.begin_update_ghosts();
    });
  });
}

tessera_status tessera_multiblock_array_end_update_ghosts(tessera_multiblock_array array) {
  return guarded("tessera_multiblock_array_end_update_ghosts", [&] {
    const auto a = get<MultiblockArrayObject>(array, "array");
    visit_multiblock_array(*a, [](auto& x) {
      if (!x.ghost_update_in_flight())
        fail_c(TESSERA_ERR_CALL_ORDER,
               "no ghost update is in flight: call tessera_multiblock_array_begin_update_ghosts first");
      x.end_update_ghosts();
    });
  });
}

tessera_status tessera_multiblock_array_accumulate_ghosts(tessera_multiblock_array array, tessera_op op) {
  return guarded("tessera_multiblock_array_accumulate_ghosts", [&] {
    const auto a = get<MultiblockArrayObject>(array, "array");
    const CombineOp combine = to_op(op, "op");
    visit_multiblock_array(*a, [&](auto& x) {
      using T = typename std::remove_cvref_t<decltype(x.array())>::value_type;
      if constexpr (!is_number<T>) {
        op_undefined<T>(op);
      } else {
        if (x.ghost_update_in_flight())
          fail_c(TESSERA_ERR_CALL_ORDER,
                 "a ghost update is in flight: call tessera_multiblock_array_end_update_ghosts first");
        x.accumulate_ghosts(combine);
      }
    });
  });
}

tessera_status tessera_multiblock_array_reduce(tessera_multiblock_array array, tessera_op op, tessera_type type,
                                               void* result) {
  return guarded("tessera_multiblock_array_reduce", [&] {
    const auto a = get<MultiblockArrayObject>(array, "array");
    check_multiblock_type(*a, type);
    require_pointer("result", result);
    visit_multiblock_array(*a, [&](const auto& x) {
      using T = typename std::remove_cvref_t<decltype(x.array())>::value_type;
      with_fold<T>(op, [&](const T& identity, auto fold) {
        const T value = x.array().reduce(identity, fold);  // holes and the gaps between blocks are owned by no one
        std::memcpy(result, &value, sizeof value);
      });
    });
  });
}

tessera_status tessera_multiblock_array_gather_block(tessera_multiblock_array array, size_t block, int root,
                                                     tessera_type type, void* out, int64_t capacity) {
  return guarded("tessera_multiblock_array_gather_block", [&] {
    const auto a = get<MultiblockArrayObject>(array, "array");
    check_multiblock_type(*a, type);
    visit_multiblock_array(*a, [&](const auto& x) {
      using T = typename std::remove_cvref_t<decltype(x.array())>::value_type;
      const auto& mb = x.domain().layout();
      const Domain<multiblock_dims_v<decltype(x)>>& dom = x.domain().domain();
      check_block(mb, block);
      if (root < -1 || root >= dom.comm().size())
        fail_c(TESSERA_ERR_OUT_OF_RANGE, "argument 'root' = ", root, " is not a rank of the communicator (size ",
               dom.comm().size(), ") nor -1 (every rank)");
      const bool receives = root == -1 || dom.rank() == root;
      const auto block_box = mb.embedded_box(block);
      // Checked on every rank before anything moves: capacity matters on the receiving ranks only.
      const int64_t needed = static_cast<int64_t>(volume(block_box));
      const bool short_here = receives && (capacity < needed || (needed > 0 && out == nullptr));
      if (dom.comm().max(short_here ? 1.0 : 0.0) > 0)
        fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'capacity' (or 'out') on a receiving rank holds fewer than the ",
               needed, " elements of block ", block);
      // Each rank sends only its cells of the block, patch by patch in row-major order; a receiver
      // knows every rank's boxes from the layout (patch k of rank r is box boxes_of(r)[k] of the
      // embedded set), so the values travel alone and land where those boxes say.
      constexpr std::size_t N = multiblock_dims_v<decltype(x)>;
      std::vector<T> mine;
      const auto& patches = x.array().layout().patches();
      const T* data = x.array().data();
      for (std::size_t k = 0; k < patches.size(); ++k)
        if (x.block_of_patch(k) == block)
          for_each_point(patches[k].owned_box(),
                         [&](const Point<N>& q) { mine.push_back(data[patches[k].element_offset(q)]); });
      std::vector<T> all;
      if (root == -1) {
        all = dom.comm().allgatherv(std::span<const T>(mine));
      } else {
        std::vector<int> counts(static_cast<std::size_t>(dom.comm().size()), 0);
        counts[static_cast<std::size_t>(root)] = static_cast<int>(mine.size());
        all = dom.comm().alltoallv(std::span<const T>(mine), std::span<const int>(counts));
      }
      if (!receives) return;
      T* to = static_cast<T*>(out);
      std::fill(to, to + needed, T{});  // holes of a box-set block
      const BoxSet<N>& set = mb.embedded_set();
      std::size_t next = 0;
      for (int r = 0; r < dom.comm().size(); ++r)
        for (const std::size_t i : set.boxes_of(r)) {
          if (mb.block_of_box(i) != block) continue;
          for_each_point(set.box(i), [&](const Point<N>& q) {
            if (next < all.size()) to[offset_row_major(block_box, q)] = all[next];
            ++next;
          });
        }
      if (next != all.size())
        fail_c(TESSERA_ERR_INTERNAL, all.size(), " values arrived for block ", block, " but its boxes hold ", next);
    });
  });
}

tessera_status tessera_multiblock_copy_section(tessera_multiblock_array src, const tessera_block_section* from,
                                               tessera_multiblock_array dst, const tessera_block_section* to,
                                               const int* perm, const int* flip) {
  return guarded("tessera_multiblock_copy_section", [&] {
    const auto s = get<MultiblockArrayObject>(src, "src");
    const auto d = get<MultiblockArrayObject>(dst, "dst");
    if (s->multiblock != d->multiblock)
      fail_c(TESSERA_ERR_MISMATCH, "arguments 'src' and 'dst' are over different multiblock domains");
    if (s->type != d->type)
      fail_c(TESSERA_ERR_WRONG_TYPE, "argument 'dst' holds ", type_name(d->type), " but argument 'src' holds ",
             type_name(s->type));
    visit_multiblock_array(*s, [&](const auto& x) {
      using Array = std::remove_cvref_t<decltype(x)>;
      constexpr std::size_t N = multiblock_dims_v<decltype(x)>;
      auto& y = *std::get<std::unique_ptr<Array>>(d->array);  // same domain and type: same alternative
      copy_section(x, to_section<N>(from, "from"), y, to_section<N>(to, "to"), to_orientation<N>(perm, flip));
    });
  });
}

tessera_status tessera_multiblock_array_free(tessera_multiblock_array* array) {
  return guarded("tessera_multiblock_array_free",
                 [&] { release<MultiblockArrayObject>(array, "array"); });
}

}  // extern "C"
