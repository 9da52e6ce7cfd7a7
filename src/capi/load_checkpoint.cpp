// tessera_load_* (deterministic emulated load) and tessera_checkpoint_* (HDF5 checkpoints of one
// array, and the box table a box-set checkpoint carries).
#include <string>

#include "convert.hpp"
#include "tessera/io/checkpoint.hpp"

using namespace tessera;
using namespace tessera::capi;

namespace {

struct LoadObject {
  static constexpr Kind kind = Kind::load;
  EmulatedLoad load;
};

}  // namespace

extern "C" {

tessera_status tessera_load_parse(const char* text, tessera_load* out) {
  return guarded("tessera_load_parse", [&] {
    prepare_out(out);
    require_pointer("text", text);
    issue(std::make_shared<LoadObject>(LoadObject{EmulatedLoad::parse(text)}), out);
  });
}

tessera_status tessera_load_factor(tessera_load load, int rank, int iteration, double* factor) {
  return guarded("tessera_load_factor", [&] {
    const auto l = get<LoadObject>(load, "load");
    require_pointer("factor", factor);
    *factor = l->load.factor(rank, iteration);
  });
}

tessera_status tessera_load_slow_down(tessera_load load, int rank, int iteration, double section_seconds,
                                      double* extra) {
  return guarded("tessera_load_slow_down", [&] {
    const auto l = get<LoadObject>(load, "load");
    if (!(section_seconds >= 0) || !(section_seconds < 1e9))
      fail_c(TESSERA_ERR_INVALID_ARGUMENT, "argument 'section_seconds' = ", section_seconds, " must be in [0, 1e9)");
    const double added = l->load.slow_down(rank, iteration, section_seconds);
    if (extra) *extra = added;
  });
}

tessera_status tessera_load_free(tessera_load* load) {
  return guarded("tessera_load_free", [&] { release<LoadObject>(load, "load"); });
}

tessera_status tessera_checkpoint_save(const char* path, tessera_array array, const char* name) {
  return guarded("tessera_checkpoint_save", [&] {
    require_pointer("path", path);
    require_pointer("name", name);
    const auto a = get<ArrayObject>(array, "array");
    visit_array(*a, [&](const auto& x) {
      using T = typename std::remove_cvref_t<decltype(x)>::value_type;
      if constexpr (io::CheckpointElement<T>)
        io::save(path, {}, io::named(name, x));
      else
        fail_c(TESSERA_ERR_WRONG_TYPE, "argument 'array' holds ", type_name(type_code<T>()),
               ", which a checkpoint cannot hold");
    });
  });
}

tessera_status tessera_checkpoint_saved_boxes(tessera_comm comm, const char* path, int* ndim, tessera_box* domain,
                                              tessera_box* boxes, int* owners, size_t capacity, size_t* count,
                                              int* ranks) {
  return guarded("tessera_checkpoint_saved_boxes", [&] {
    const auto c = get<CommObject>(comm, "comm");
    require_pointer("path", path);
    require_pointer("ndim", ndim);
    require_pointer("domain", domain);
    require_pointer("count", count);
    require_pointer("ranks", ranks);
    // Read once; the table's dimension decides N, and the boxes are checked as C++ checks them.
    const auto checked = tessera::detail::check_collective(c->comm, "tessera::io::saved_boxes", std::string(path));
    const io::detail::SavedBoxTable table = io::detail::read_box_table(c->comm, path);
    if (table.dims < 1 || table.dims > 3)
      fail_c(TESSERA_ERR_MISMATCH, "'", path, "' holds a box table of ", table.dims,
             "-D boxes; the C API handles 1 to 3 dimensions");
    with_ndim(static_cast<int>(table.dims), "ndim", [&](auto tag) {
      constexpr std::size_t N = decltype(tag)::value;
      const io::SavedBoxes<N> saved = io::detail::saved_boxes_of<N>(table, path);
      *ndim = static_cast<int>(N);
      *domain = from_box(saved.domain);
      *count = saved.boxes.size();
      *ranks = saved.ranks;
      for (std::size_t i = 0; i < saved.boxes.size() && i < capacity; ++i) {
        if (boxes) boxes[i] = from_box(saved.boxes[i]);
        if (owners) owners[i] = saved.owners[i];
      }
    });
  });
}

tessera_status tessera_checkpoint_load(const char* path, tessera_array array, const char* name) {
  return guarded("tessera_checkpoint_load", [&] {
    require_pointer("path", path);
    require_pointer("name", name);
    const auto a = get<ArrayObject>(array, "array");
    visit_array(*a, [&](auto& x) {
      using T = typename std::remove_cvref_t<decltype(x)>::value_type;
      if constexpr (io::CheckpointElement<T>)
        (void)io::load(path, io::named(name, x));
      else
        fail_c(TESSERA_ERR_WRONG_TYPE, "argument 'array' holds ", type_name(type_code<T>()),
               ", which a checkpoint cannot hold");
    });
  });
}

}  // extern "C"
