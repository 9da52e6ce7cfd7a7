// tessera_load_* (deterministic emulated load) and tessera_checkpoint_* (HDF5 checkpoints of one
// array).
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
