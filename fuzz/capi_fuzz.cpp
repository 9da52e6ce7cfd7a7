// libFuzzer target for the C API (tessera.h) on one rank: the input is a program, a stream of
// opcodes and their arguments, that this file interprets as a sequence of C API calls over a small
// table of handles: live ones, freed ones, NULL, handles of the wrong kind and forged values; sizes
// negative, zero, huge and overflow-prone; enum values out of range; NULL pointers; capacities
// below what is needed; calls out of order (use after free, double free, a schedule or step after
// the domain moved, ghost-update end before begin, ...).
//
// The property: no crash, hang or sanitizer report; every call returns a known status, and every
// failing call leaves a non-empty message naming the function (TESSERA_ERR_INTERNAL, which the
// header calls a bug, is a finding too); after the input, freeing every live handle succeeds and
// leaves no handle behind. Every buffer is sized to exactly what the call is told (or is NULL), so
// that a correct library never reads or writes past one: a sanitizer report is a library bug.
//
// Allocation sizes are kept small (libFuzzer treats a large malloc as a finding): before a call
// that allocates storage for a domain (array creation, redistribution, migration, balancing), the
// volume it would need is computed here and the call is skipped above kMaxElements, unless the
// volume overflows 64 bits, which the library must reject by itself.
//
// Built twice (fuzz/CMakeLists.txt): with libFuzzer under clang, and with replay_main.cpp for the
// corpus replay in `make test`. MPI is initialised once, on first use (MPI_Init_thread; a singleton
// without mpirun works with Open MPI), and finalised at exit.

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "tessera.h"

namespace {

constexpr std::int64_t kMaxElements = 1 << 14;  // storage a call may allocate, in elements per array
constexpr std::size_t kMaxBuffer = 1 << 16;      // bytes of a buffer this file allocates for a call
constexpr int kMaxOps = 48;                      // calls per input: keeps each input fast
constexpr std::size_t kSlotsPerKind = 4;         // live handles kept per kind
constexpr std::size_t kStalePerKind = 4;         // freed handles kept per kind, to pass again

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "capi_fuzz: %s\n", what.c_str());
  std::abort();
}

// --- The input: bytes read on demand; past the end every read is 0 --------------------------------

class Input {
 public:
  Input(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  [[nodiscard]] bool empty() const { return pos_ >= size_; }
  std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  std::uint64_t u64() {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | byte();
    return v;
  }
  /// A count or coordinate: mostly small, sometimes negative, sometimes at the edges of int64.
  std::int64_t integer() {
    const std::uint8_t b = byte();
    if (b < 200) return b % 12;
    if (b < 230) return -static_cast<std::int64_t>(b % 4) - 1;
    switch (b % 8) {
      case 0: return std::numeric_limits<std::int64_t>::max();
      case 1: return std::numeric_limits<std::int64_t>::min();
      case 2: return std::int64_t{1} << 62;
      case 3: return std::int64_t{1} << 31;
      case 4: return (std::int64_t{1} << 32) + 1;
      case 5: return 3037000500;  // just above sqrt(2^63)
      default: return static_cast<std::int64_t>(u64());
    }
  }
  int small_int() { return static_cast<int>(integer()); }  // truncation is the point for the big ones
  /// A dimension count: 1..3 mostly, 0, 4, negative or huge sometimes.
  int ndim() {
    const std::uint8_t b = byte();
    if (b < 230) return 1 + b % 3;
    return (b % 3 == 0) ? 0 : (b % 3 == 1) ? 4 : -1;
  }
  double real() {
    const std::uint8_t b = byte();
    if (b < 200) return (b % 21) / 10.0;  // 0, 0.1, ..., 2
    switch (b % 6) {
      case 0: return -1.0;
      case 1: return std::numeric_limits<double>::quiet_NaN();
      case 2: return std::numeric_limits<double>::infinity();
      case 3: return -std::numeric_limits<double>::infinity();
      case 4: return 1e300;
      default: return std::numeric_limits<double>::denorm_min();
    }
  }
  /// An enum value: a valid one (0..count-1, shifted by `first`) mostly, any int sometimes.
  int enumerator(int first, int count) {
    const std::uint8_t b = byte();
    if (b < 220) return first + b % count;
    return (b % 2) ? first + count + b % 3 : static_cast<int>(u64());
  }
  bool flag() { return byte() & 1; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

// --- Checking every call ---------------------------------------------------------------------------

bool known_status(tessera_status s) {
  return std::strcmp(tessera_status_name(s), "unknown tessera_status") != 0;
}

/// TESSERA_CAPI_FUZZ_TRACE=1 prints every call and its status (to read what an input does).
const bool trace = std::getenv("TESSERA_CAPI_FUZZ_TRACE") != nullptr;

/// The property every call must keep; returns whether the call succeeded.
bool check(tessera_status s, const char* function) {
  if (trace) std::fprintf(stderr, "%s -> %s\n", function, known_status(s) ? tessera_status_name(s) : "?");
  if (!known_status(s)) finding(std::string(function) + " returned an unknown status " + std::to_string(s));
  if (s == TESSERA_OK) return true;
  const char* message = tessera_last_error();
  if (message == nullptr || message[0] == '\0')
    finding(std::string(function) + " failed with " + tessera_status_name(s) + " and no message");
  if (std::strstr(message, function) == nullptr)
    finding(std::string(function) + " failed with a message that does not name it: " + message);
  if (s == TESSERA_ERR_INTERNAL) finding(std::string(function) + " reported an internal error: " + message);
  return false;
}
#define CALL(fn, ...) check(fn(__VA_ARGS__), #fn)

// --- Buffers sized to what the call is told ----------------------------------------------------------

/// A heap buffer of exactly `bytes` bytes (non-null even for 0, so that ASan sees any access), or
/// none when `bytes` is over kMaxBuffer: then the call gets NULL, which it must reject.
class Buffer {
 public:
  explicit Buffer(std::size_t bytes) {
    if (bytes <= kMaxBuffer) storage_ = std::make_unique<std::byte[]>(bytes);
  }
  void* get() { return storage_.get(); }
  template <class T>
  T* as() {
    return reinterpret_cast<T*>(storage_.get());
  }

 private:
  std::unique_ptr<std::byte[]> storage_;
};

/// Bytes of one element of `type` (0 for a value that is no type: then buffers hold nothing).
std::size_t element_size(int type) {
  switch (type) {
    case TESSERA_FLOAT: return sizeof(float);
    case TESSERA_DOUBLE: return sizeof(double);
    case TESSERA_INT32: return sizeof(std::int32_t);
    case TESSERA_INT64: return sizeof(std::int64_t);
    case TESSERA_COMPLEX_DOUBLE: return 2 * sizeof(double);
    case TESSERA_INDEX: return sizeof(tessera_index);
    default: return 0;
  }
}

/// `count` elements of `type` in bytes, or SIZE_MAX when that is negative or overflows.
std::size_t bytes_for(std::int64_t count, int type) {
  std::size_t bytes = 0;
  if (count < 0 || __builtin_mul_overflow(static_cast<std::size_t>(count), element_size(type), &bytes))
    return std::numeric_limits<std::size_t>::max();
  return bytes;
}

/// Volume of the first `ndim` dimensions of `box`: -1 when empty-or-negative cannot be told apart
/// from an overflow (a hi - lo or a product that does not fit).
std::int64_t volume(const tessera_box& box, int ndim, const std::int64_t* lower = nullptr,
                    const std::int64_t* upper = nullptr) {
  std::int64_t v = 1;
  for (int d = 0; d < ndim && d < TESSERA_MAX_DIM; ++d) {
    std::int64_t extent = 0;
    if (__builtin_sub_overflow(box.hi[d], box.lo[d], &extent)) return -1;
    if (extent < 0) extent = 0;
    if (lower && __builtin_add_overflow(extent, lower[d] > 0 ? lower[d] : 0, &extent)) return -1;
    if (upper && __builtin_add_overflow(extent, upper[d] > 0 ? upper[d] : 0, &extent)) return -1;
    if (__builtin_mul_overflow(v, extent, &v)) return -1;
  }
  return v;
}

// --- The handle table -------------------------------------------------------------------------------

enum Kind { kComm, kGrid, kDist, kDomain, kArray, kSchedule, kStep, kBalancer, kLoad, kKinds };

tessera_status free_handle(Kind kind, void** h) {
  switch (kind) {
    case kComm: return tessera_comm_free(reinterpret_cast<tessera_comm*>(h));
    case kGrid: return tessera_grid_free(reinterpret_cast<tessera_grid*>(h));
    case kDist: return tessera_dist_free(reinterpret_cast<tessera_dist*>(h));
    case kDomain: return tessera_domain_free(reinterpret_cast<tessera_domain*>(h));
    case kArray: return tessera_array_free(reinterpret_cast<tessera_array*>(h));
    case kSchedule: return tessera_schedule_free(reinterpret_cast<tessera_schedule*>(h));
    case kStep: return tessera_step_free(reinterpret_cast<tessera_step*>(h));
    case kBalancer: return tessera_balancer_free(reinterpret_cast<tessera_balancer*>(h));
    case kLoad: return tessera_load_free(reinterpret_cast<tessera_load*>(h));
    case kKinds: break;
  }
  return TESSERA_ERR_INVALID_ARGUMENT;
}
constexpr std::array<const char*, kKinds> kFreeName = {
    "tessera_comm_free",     "tessera_grid_free", "tessera_dist_free",     "tessera_domain_free", "tessera_array_free",
    "tessera_schedule_free", "tessera_step_free", "tessera_balancer_free", "tessera_load_free"};

/// Live handles by kind (those this input created and has not freed), and freed ones.
class Handles {
 public:
  /// A handle argument of `kind`: a live one mostly; else a freed one, NULL, one of another kind or
  /// a forged value.
  template <class H>
  H pick(Input& in, Kind kind) {
    return reinterpret_cast<H>(pick_raw(in, kind));
  }
  void* pick_raw(Input& in, Kind kind) {
    const std::uint8_t b = in.byte();
    const std::size_t which = b >> 3;
    switch (b % 8) {
      case 5: return nth(stale_[kind], which);
      case 6: return nth(live_[(kind + 1 + which % (kKinds - 1)) % kKinds], which);
      case 7: return (which & 1) ? nullptr : reinterpret_cast<void*>(static_cast<std::uintptr_t>(in.u64()));
      default: return nth(live_[kind], which);
    }
  }
  /// Takes a handle a call returned (a no-op for NULL); frees the oldest of its kind if full.
  void keep(Kind kind, void* h) {
    if (h == nullptr) return;
    auto& live = live_[kind];
    if (live.size() >= kSlotsPerKind) {
      void* oldest = live.front();
      live.erase(live.begin());
      release(kind, oldest);
    }
    live.push_back(h);
  }
  /// After a successful free of `h`: it is no longer live (wherever it sat) and becomes stale.
  /// Returns false if `h` was no live handle of `kind` (then the free should have failed).
  bool forget(Kind kind, void* h) {
    auto& live = live_[kind];
    const auto it = std::find(live.begin(), live.end(), h);
    if (it == live.end()) return false;
    live.erase(it);
    auto& stale = stale_[kind];
    if (stale.size() >= kStalePerKind) stale.erase(stale.begin());
    stale.push_back(h);
    return true;
  }
  /// Frees every live handle (an array with a ghost update in flight is completed first).
  void release_all() {
    for (int kind = kKinds - 1; kind >= 0; --kind) {
      for (void* h : live_[kind]) release(static_cast<Kind>(kind), h);
      live_[kind].clear();
      stale_[kind].clear();
    }
  }
  [[nodiscard]] std::size_t live_count(Kind kind) const { return live_[kind].size(); }

 private:
  static void* nth(const std::vector<void*>& v, std::size_t i) { return v.empty() ? nullptr : v[i % v.size()]; }
  static void release(Kind kind, void* h) {
    void* copy = h;
    tessera_status s = free_handle(kind, &copy);
    if (s == TESSERA_ERR_CALL_ORDER && kind == kArray) {
      check(tessera_array_end_update_ghosts(static_cast<tessera_array>(h)), "tessera_array_end_update_ghosts");
      s = free_handle(kind, &copy);
    }
    if (!check(s, kFreeName[kind])) finding(std::string("freeing a live handle failed: ") + tessera_last_error());
    if (copy != nullptr) finding(std::string(kFreeName[kind]) + " succeeded but did not set the handle to NULL");
  }
  std::array<std::vector<void*>, kKinds> live_;
  std::array<std::vector<void*>, kKinds> stale_;
};

// --- Argument builders --------------------------------------------------------------------------------

struct Point {
  std::int64_t c[TESSERA_MAX_DIM] = {0, 0, 0};
};
Point point(Input& in) {
  Point p;
  for (auto& c : p.c) c = in.integer();
  return p;
}
/// A point argument: TESSERA_MAX_DIM entries (the most any call reads), or NULL.
const std::int64_t* maybe(const Point& p, Input& in) { return in.byte() < 240 ? p.c : nullptr; }

tessera_box box(Input& in) {
  tessera_box b{};
  for (int d = 0; d < TESSERA_MAX_DIM; ++d) {
    b.lo[d] = in.byte() < 200 ? 0 : in.integer();
    // Small mostly; near the top of int64 it wraps (computed unsigned: no undefined behaviour here).
    b.hi[d] = static_cast<std::int64_t>(static_cast<std::uint64_t>(b.lo[d]) + (in.integer() & 0xFFFF));
  }
  if (in.byte() >= 245) b.hi[in.byte() % TESSERA_MAX_DIM] = in.integer();
  return b;
}

tessera_ghosts ghosts(Input& in) {
  tessera_ghosts g{};
  for (int d = 0; d < TESSERA_MAX_DIM; ++d) {
    g.lower[d] = in.integer() % 3;
    g.upper[d] = in.integer() % 3;
    g.periodic[d] = in.flag();
  }
  if (in.byte() >= 240) g.lower[in.byte() % TESSERA_MAX_DIM] = in.integer();  // negative or huge
  g.faces_only = in.flag();
  return g;
}

/// Storage for the arrays a tessera_dim_spec points to, sized to the counts it states.
struct DimSpecs {
  tessera_dim_spec spec[TESSERA_MAX_DIM] = {};
  std::vector<std::int64_t> boundaries[TESSERA_MAX_DIM];
  std::vector<double> weights[TESSERA_MAX_DIM];
  std::vector<int> owners[TESSERA_MAX_DIM];
};
/// A count for an array the caller passes, and whether to pass it NULL.
std::size_t array_count(Input& in) {
  const std::uint8_t b = in.byte();
  if (b < 240) return b % 9;
  return (b % 2) ? std::numeric_limits<std::size_t>::max() : std::size_t{1} << 40;
}
void dim_specs(Input& in, DimSpecs& s) {
  for (int d = 0; d < TESSERA_MAX_DIM; ++d) {
    auto& spec = s.spec[d];
    spec.kind = static_cast<tessera_dim_kind>(in.enumerator(0, 8));
    spec.logical_block = in.integer() % 4;
    spec.block_size = in.integer() % 5;
    spec.source = in.small_int() % 3;
    const std::size_t count = array_count(in);
    const bool null = count > 64 || in.byte() >= 250;
    if (!null) {
      s.boundaries[d].resize(count);
      s.weights[d].resize(count);
      s.owners[d].resize(count);
      std::int64_t at = in.byte() < 200 ? 0 : in.integer();
      for (std::size_t i = 0; i < count; ++i) {
        s.boundaries[d][i] = at;
        at = static_cast<std::int64_t>(static_cast<std::uint64_t>(at) + static_cast<std::uint64_t>(in.integer() % 8));
        s.weights[d][i] = in.real();
        s.owners[d][i] = in.small_int() % 3;
      }
    }
    // The same count for each array; NULL pointers with a non-zero count must be refused.
    spec.boundaries = null ? nullptr : s.boundaries[d].data();
    spec.boundary_count = count;
    spec.weights = null ? nullptr : s.weights[d].data();
    spec.weight_count = count;
    spec.owners = null ? nullptr : s.owners[d].data();
    spec.owner_count = count;
  }
}

/// An `order` or `perm` argument: TESSERA_MAX_DIM ints (a permutation mostly), or NULL.
struct Order {
  int v[TESSERA_MAX_DIM] = {0, 1, 2};
};
const int* order(Input& in, Order& o) {
  const std::uint8_t b = in.byte();
  if (b >= 240) return nullptr;
  static constexpr int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  for (int d = 0; d < TESSERA_MAX_DIM; ++d) o.v[d] = perms[b % 6][d];
  if (b >= 220) o.v[b % 3] = in.small_int();  // a repeated or out-of-range entry
  return o.v;
}

/// A small array of doubles of a stated count (or NULL for a huge count).
struct Doubles {
  std::vector<double> v;
  std::size_t count = 0;
  double* get() { return count <= 64 ? v.data() : nullptr; }
};
Doubles doubles(Input& in) {
  Doubles d;
  d.count = array_count(in);
  if (d.count <= 64) {
    d.v.resize(d.count + 1);  // data() non-null for count 0; the extra entry is never told about
    for (std::size_t i = 0; i < d.count; ++i) d.v[i] = in.real();
  }
  return d;
}

/// The file the checkpoint calls write (one per process; removed at exit).
std::string checkpoint_path() { return "/tmp/tessera-capi-fuzz-" + std::to_string(::getpid()) + ".h5"; }

// --- The interpreter: one function per family of calls -----------------------------------------------

class Interpreter {
 public:
  explicit Interpreter(Input& in) : in_(in) {}
  ~Interpreter() { h_.release_all(); }
  void run() {
    for (int op = 0; op < kMaxOps && !in_.empty(); ++op) {
      switch (in_.byte() % 14) {
        case 0: comm(); break;
        case 1: grid(); break;
        case 2: dist_create(); break;
        case 3: dist_query(); break;
        case 4: domain(); break;
        case 5: array_create(); break;
        case 6: array_access(); break;
        case 7: array_collective(); break;
        case 8: remap(); break;
        case 9: step(); break;
        case 10: balancer(); break;
        case 11: load_and_checkpoint(); break;
        case 12: free_any(); break;
        case 13: valid_chain(); break;
      }
    }
  }

 private:
  template <class H>
  H pick(Kind kind) {
    return h_.pick<H>(in_, kind);
  }
  /// `h` by reference: it is read after the call that fills it (argument order is unspecified).
  template <class H>
  void keep(Kind kind, bool ok, const H& h) {
    if (ok) h_.keep(kind, h);
  }

  void comm() {
    switch (in_.byte() % 4) {
      case 0: {
        const MPI_Comm user[3] = {MPI_COMM_WORLD, MPI_COMM_SELF, MPI_COMM_NULL};
        tessera_comm c = nullptr;
        keep(kComm, CALL(tessera_comm_create, user[in_.byte() % 3], in_.flag() ? &c : nullptr), c);
        break;
      }
      case 1: {
        int v = 0;
        const auto c = pick<tessera_comm>(kComm);
        if (in_.flag())
          CALL(tessera_comm_rank, c, in_.flag() ? &v : nullptr);
        else
          CALL(tessera_comm_size, c, in_.flag() ? &v : nullptr);
        break;
      }
      case 2: {
        const auto c = pick<tessera_comm>(kComm);
        const std::size_t capacity = array_count(in_);
        Buffer out(capacity > kMaxBuffer / sizeof(double) ? kMaxBuffer + 1 : capacity * sizeof(double));
        CALL(tessera_comm_collect_all, c, in_.real(), out.as<double>(), capacity);
        break;
      }
      default: {
        std::size_t live = 0;
        CALL(tessera_live_handles, in_.flag() ? &live : nullptr);
        (void)tessera_status_name(static_cast<tessera_status>(in_.enumerator(0, 106)));
        break;
      }
    }
  }

  void grid() {
    const int ndim = in_.ndim();
    // A grid keeps tables of comm_size entries, so a comm_size of 2^31 legitimately allocates
    // gigabytes (libFuzzer's malloc limit calls that a finding): sizes above 2^16 become negative.
    int comm_size = in_.byte() < 220 ? 1 : in_.small_int();
    if (comm_size > (1 << 16)) comm_size = -comm_size;
    Point shape = point(in_);
    for (auto& c : shape.c) c = c == 0 ? 1 : c;
    tessera_grid g = nullptr;
    tessera_grid* out = in_.byte() < 245 ? &g : nullptr;
    switch (in_.byte() % 6) {
      case 0: keep(kGrid, CALL(tessera_grid_create, ndim, comm_size, maybe(shape, in_), out), g); break;
      case 1: {
        const Point extents = point(in_);
        const Point fixed = point(in_);
        keep(kGrid,
             CALL(tessera_grid_automatic, ndim, comm_size, maybe(extents, in_), in_.flag() ? fixed.c : nullptr, out),
             g);
        break;
      }
      case 2:
      case 3: {
        const std::size_t count = array_count(in_);
        std::vector<int> ranks(count <= 64 ? count + 1 : 0);
        for (auto& r : ranks) r = in_.byte() < 200 ? 0 : in_.small_int();
        const int* table = count <= 64 ? ranks.data() : nullptr;
        const Point extents = point(in_);
        if (in_.flag())
          keep(kGrid,
               CALL(tessera_grid_over_ranks, ndim, comm_size, table, count, maybe(extents, in_),
                    in_.flag() ? extents.c : nullptr, out),
               g);
        else
          keep(kGrid, CALL(tessera_grid_from_ranks, ndim, comm_size, maybe(shape, in_), table, count, out), g);
        break;
      }
      default: grid_query(); break;
    }
  }

  void grid_query() {
    const auto g = pick<tessera_grid>(kGrid);
    const bool null = in_.byte() >= 240;
    int v = 0, active = 0;
    Point p = point(in_);
    switch (in_.byte() % 5) {
      case 0: CALL(tessera_grid_ndim, g, null ? nullptr : &v); break;
      case 1: CALL(tessera_grid_shape, g, null ? nullptr : p.c); break;
      case 2: CALL(tessera_grid_size, g, null ? nullptr : &v); break;
      case 3: CALL(tessera_grid_rank_at, g, maybe(p, in_), null ? nullptr : &v); break;
      default:
        CALL(tessera_grid_position_of, g, in_.small_int(), null ? nullptr : &active, in_.flag() ? p.c : nullptr);
        break;
    }
  }

  void dist_create() {
    const auto g = pick<tessera_grid>(kGrid);
    const tessera_box b = box(in_);
    DimSpecs specs;
    dim_specs(in_, specs);
    Order o;
    const int* r = order(in_, o);
    tessera_dist d = nullptr;
    tessera_dist* out = in_.byte() < 245 ? &d : nullptr;
    const tessera_box* bp = in_.byte() < 245 ? &b : nullptr;
    const tessera_dim_spec* sp = in_.byte() < 245 ? specs.spec : nullptr;
    if (in_.flag()) {
      keep(kDist, CALL(tessera_dist_create, g, bp, sp, r, out), d);
    } else {
      Doubles w = doubles(in_);
      keep(kDist, CALL(tessera_dist_from_rank_weights, g, bp, w.get(), w.count, sp, r, out), d);
    }
  }

  void dist_query() {
    const auto d = pick<tessera_dist>(kDist);
    const bool null = in_.byte() >= 240;
    int v = 0;
    std::int64_t size = 0;
    tessera_box b{};
    Point p = point(in_);
    switch (in_.byte() % 12) {
      case 0: CALL(tessera_dist_ndim, d, null ? nullptr : &v); break;
      case 1: CALL(tessera_dist_box, d, null ? nullptr : &b); break;
      case 2: {
        tessera_grid g = nullptr;
        keep(kGrid, CALL(tessera_dist_grid, d, null ? nullptr : &g), g);
        break;
      }
      case 3: CALL(tessera_dist_owner, d, maybe(p, in_), null ? nullptr : &v); break;
      case 4: CALL(tessera_dist_local_size, d, in_.small_int(), null ? nullptr : &size); break;
      case 5: CALL(tessera_dist_owned_box, d, in_.small_int(), null ? nullptr : &b); break;
      case 6: {
        const std::size_t capacity = array_count(in_);
        Buffer boxes(capacity > 64 ? kMaxBuffer + 1 : capacity * sizeof(tessera_box));
        std::size_t count = 0;
        CALL(tessera_dist_owned_boxes, d, in_.small_int(), boxes.as<tessera_box>(), capacity, null ? nullptr : &count);
        break;
      }
      case 7: CALL(tessera_dist_equal, d, pick<tessera_dist>(kDist), null ? nullptr : &v); break;
      case 8: {
        const std::size_t capacity = array_count(in_);
        Buffer text(capacity > 64 ? kMaxBuffer + 1 : capacity);
        std::size_t length = 0;
        CALL(tessera_dist_describe, d, text.as<char>(), capacity, in_.flag() ? &length : nullptr);
        if (capacity > 0 && capacity <= 64 && text.get() && std::memchr(text.get(), 0, capacity) == nullptr)
          finding("tessera_dist_describe left its buffer without a NUL");
        break;
      }
      case 9: {
        std::size_t slabs = 0;
        CALL(tessera_dist_slab_count, d, in_.small_int(), null ? nullptr : &slabs);
        break;
      }
      case 10: {
        const std::size_t capacity = array_count(in_);
        Buffer cuts(capacity > 64 ? kMaxBuffer + 1 : capacity * sizeof(std::int64_t));
        CALL(tessera_dist_slab_cuts, d, in_.small_int(), cuts.as<std::int64_t>(), capacity);
        break;
      }
      default: dist_with_cuts(d); break;
    }
  }

  /// tessera_dist_with_cuts reads slabs x (g+1) boundaries, g the grid extent along the axis: the
  /// buffer holds that many for the largest grid extent (or the call gets NULL for many slabs).
  void dist_with_cuts(tessera_dist d) {
    const int axis = in_.small_int();
    const std::size_t slabs = array_count(in_);
    std::int64_t widest = 1;
    tessera_grid g = nullptr;
    if (tessera_dist_grid(d, &g) == TESSERA_OK) {
      std::int64_t shape[TESSERA_MAX_DIM] = {1, 1, 1};
      if (tessera_grid_shape(g, shape) != TESSERA_OK) finding("tessera_grid_shape failed on a live grid");
      for (const std::int64_t e : shape) widest = std::max(widest, e);
      tessera_grid_free(&g);
    }
    if (slabs <= 64 && (widest > 64 || static_cast<std::int64_t>(slabs) * (widest + 1) > 4096)) return;
    std::vector<std::int64_t> cuts(slabs <= 64 ? slabs * static_cast<std::size_t>(widest + 1) + 1 : 0);
    std::int64_t at = in_.byte() < 200 ? 0 : in_.integer();
    for (auto& c : cuts) {
      c = at;
      at = static_cast<std::int64_t>(static_cast<std::uint64_t>(at) + static_cast<std::uint64_t>(in_.byte() % 4));
    }
    tessera_dist out = nullptr;
    keep(kDist, CALL(tessera_dist_with_cuts, d, axis, slabs <= 64 ? cuts.data() : nullptr, slabs, &out), out);
  }

  /// The volume of `d`'s box (-1 on overflow, 0 if `d` is no distribution).
  static std::int64_t dist_volume(tessera_dist d) {
    tessera_box b{};
    int ndim = 0;
    if (tessera_dist_box(d, &b) != TESSERA_OK || tessera_dist_ndim(d, &ndim) != TESSERA_OK) return 0;
    return volume(b, ndim);
  }
  /// Whether moving a domain to `d` allocates a bounded amount (or must be refused for overflow).
  static bool affordable(tessera_dist d) {
    const std::int64_t v = dist_volume(d);
    return v <= kMaxElements;  // -1 (overflow) included: the library must refuse it
  }

  void domain() {
    switch (in_.byte() % 6) {
      case 0: {
        tessera_domain dom = nullptr;
        const auto c = pick<tessera_comm>(kComm);
        const auto d = pick<tessera_dist>(kDist);
        keep(kDomain, CALL(tessera_domain_create, c, d, in_.byte() < 245 ? &dom : nullptr), dom);
        break;
      }
      case 1: {
        const auto dom = pick<tessera_domain>(kDomain);
        const bool null = in_.byte() >= 240;
        int v = 0;
        tessera_box b{};
        tessera_dist d = nullptr;
        switch (in_.byte() % 3) {
          case 0: CALL(tessera_domain_ndim, dom, null ? nullptr : &v); break;
          case 1: CALL(tessera_domain_box, dom, null ? nullptr : &b); break;
          default: keep(kDist, CALL(tessera_domain_distribution, dom, null ? nullptr : &d), d); break;
        }
        break;
      }
      case 2:
      case 3: {
        const auto dom = pick<tessera_domain>(kDomain);
        const auto to = pick<tessera_dist>(kDist);
        if (!affordable(to)) break;
        double seconds = 0;
        if (in_.flag())
          CALL(tessera_domain_redistribute, dom, to, static_cast<tessera_redistribution>(in_.enumerator(0, 2)));
        else
          CALL(tessera_domain_migrate, dom, to, in_.flag() ? &seconds : nullptr);
        break;
      }
      case 4: CALL(tessera_domain_set_spare_rows, pick<tessera_domain>(kDomain), in_.real()); break;
      default: {
        tessera_ghosts g{};
        CALL(tessera_ghosts_uniform, in_.ndim(), in_.integer(), in_.flag() ? &g : nullptr);
        break;
      }
    }
  }

  /// Creates an array (skipped when its storage, ghosts included, would be large).
  void array_create() {
    const auto dom = pick<tessera_domain>(kDomain);
    const int type = in_.enumerator(1, 6);
    const tessera_ghosts g = ghosts(in_);
    const bool with_ghosts = in_.flag();
    tessera_box b{};
    int ndim = 0;
    if (tessera_domain_box(dom, &b) == TESSERA_OK && tessera_domain_ndim(dom, &ndim) == TESSERA_OK) {
      const std::int64_t v = volume(b, ndim, with_ghosts ? g.lower : nullptr, with_ghosts ? g.upper : nullptr);
      if (v > kMaxElements) return;
    }
    tessera_array a = nullptr;
    keep(kArray,
         CALL(tessera_array_create, dom, static_cast<tessera_type>(type), with_ghosts ? &g : nullptr,
              in_.byte() < 245 ? &a : nullptr),
         a);
  }

  /// Non-collective reads and writes of one array.
  void array_access() {
    const auto a = pick<tessera_array>(kArray);
    const int type = in_.enumerator(1, 6);
    const auto t = static_cast<tessera_type>(type);
    const bool null = in_.byte() >= 240;
    Buffer value(element_size(type));  // one element of the type stated
    Point p = point(in_);
    switch (in_.byte() % 9) {
      case 0: {
        tessera_type got{};
        int ndim = 0;
        if (in_.flag())
          CALL(tessera_array_type, a, null ? nullptr : &got);
        else
          CALL(tessera_array_ndim, a, null ? nullptr : &ndim);
        break;
      }
      case 1: {
        tessera_domain dom = nullptr;
        keep(kDomain, CALL(tessera_array_domain, a, null ? nullptr : &dom), dom);
        break;
      }
      case 2: {
        std::size_t patches = 0;
        tessera_box b{};
        CALL(tessera_array_patch_count, a, null ? nullptr : &patches);
        CALL(tessera_array_owned_box, a, static_cast<std::size_t>(in_.integer()), null ? nullptr : &b);
        break;
      }
      case 3: local_view(a, t, null); break;
      case 4: CALL(tessera_array_get, a, maybe(p, in_), t, null ? nullptr : value.get()); break;
      case 5: CALL(tessera_array_set, a, maybe(p, in_), t, null ? nullptr : value.get()); break;
      case 6: CALL(tessera_array_fill, a, t, null ? nullptr : value.get()); break;
      default: copy_out_in(a, t, null); break;
    }
  }

  /// tessera_array_local, then a write to every element the view says is stored: a wrong view is
  /// an out-of-bounds access.
  void local_view(tessera_array a, tessera_type t, bool null) {
    tessera_view v{};
    if (!CALL(tessera_array_local, a, static_cast<std::size_t>(in_.integer()), t, null ? nullptr : &v)) return;
    if (v.data == nullptr) return;
    const std::size_t size = element_size(v.type);
    if (v.ndim < 1 || v.ndim > TESSERA_MAX_DIM || size == 0) finding("tessera_array_local returned a malformed view");
    std::int64_t i[TESSERA_MAX_DIM] = {0, 0, 0};
    const auto extent = [&](int d) { return d < v.ndim ? v.extents[d] : 1; };
    for (i[0] = 0; i[0] < extent(0); ++i[0])
      for (i[1] = 0; i[1] < extent(1); ++i[1])
        for (i[2] = 0; i[2] < extent(2); ++i[2]) {
          std::int64_t offset = 0;
          for (int d = 0; d < v.ndim; ++d) offset += i[d] * v.strides[d];
          std::memset(static_cast<std::byte*>(v.data) + offset * static_cast<std::int64_t>(size), 0x11, size);
        }
  }

  void copy_out_in(tessera_array a, tessera_type t, bool null) {
    const tessera_box region = box(in_);
    const tessera_box buffer_box = in_.flag() ? box(in_) : region;
    const bool explicit_buffer_box = in_.flag();
    const std::int64_t n = volume(explicit_buffer_box ? buffer_box : region, TESSERA_MAX_DIM);
    // Sized for the buffer box over 3 dimensions; an array of fewer reads fewer (its box ignores
    // the entries past ndim), so the buffer is never too small for a call the library accepts.
    int ndim = 0;
    std::int64_t need = n;
    if (tessera_array_ndim(a, &ndim) == TESSERA_OK)
      need = volume(explicit_buffer_box ? buffer_box : region, ndim);
    Buffer buffer(null ? kMaxBuffer + 1 : bytes_for(need, t));
    const tessera_box* bb = explicit_buffer_box ? &buffer_box : nullptr;
    const tessera_box* rp = in_.byte() < 245 ? &region : nullptr;
    if (in_.flag())
      CALL(tessera_array_copy_out, a, rp, t, buffer.get(), bb);
    else
      CALL(tessera_array_copy_in, a, rp, t, buffer.get(), bb);
  }

  /// Collective calls on one array (one rank: every one must complete).
  void array_collective() {
    const auto a = pick<tessera_array>(kArray);
    const int type = in_.enumerator(1, 6);
    const auto t = static_cast<tessera_type>(type);
    const auto op = static_cast<tessera_op>(in_.enumerator(0, 5));
    const bool null = in_.byte() >= 240;
    Buffer value(element_size(type));
    Point at = point(in_);
    switch (in_.byte() % 11) {
      case 0: CALL(tessera_array_update_ghosts, a); break;
      case 1: CALL(tessera_array_begin_update_ghosts, a); break;
      case 2: CALL(tessera_array_end_update_ghosts, a); break;
      case 3: CALL(tessera_array_accumulate_ghosts, a, op); break;
      case 4: CALL(tessera_array_reduce, a, op, t, null ? nullptr : value.get()); break;
      case 5: CALL(tessera_array_min_loc, a, t, null ? nullptr : value.get(), in_.flag() ? at.c : nullptr); break;
      case 6: CALL(tessera_array_max_loc, a, t, null ? nullptr : value.get(), in_.flag() ? at.c : nullptr); break;
      default: {
        const std::int64_t count = in_.byte() < 200 ? (in_.integer() % 64) * (in_.integer() % 64) : in_.integer();
        Buffer data(null ? kMaxBuffer + 1 : bytes_for(count, type));
        const int root = in_.byte() < 220 ? 0 : in_.small_int();
        switch (in_.byte() % 4) {
          case 0: CALL(tessera_array_scatter_from, a, root, t, data.get(), count); break;
          case 1: CALL(tessera_array_gather_to, a, root, t, data.get(), count); break;
          case 2: CALL(tessera_array_gather_to_all, a, t, data.get(), count); break;
          default: CALL(tessera_array_reduce_along, a, in_.small_int(), op, t, data.get(), count); break;
        }
        break;
      }
    }
  }

  void remap() {
    const auto src = pick<tessera_array>(kArray);
    const auto dst = pick<tessera_array>(kArray);
    Order o;
    const int* perm = order(in_, o);
    tessera_schedule s = nullptr;
    switch (in_.byte() % 8) {
      case 0: CALL(tessera_copy, src, dst); break;
      case 1: {
        const tessera_box b = box(in_);
        const Point lo = point(in_);
        CALL(tessera_copy_section, src, in_.byte() < 245 ? &b : nullptr, dst, maybe(lo, in_));
        break;
      }
      case 2: CALL(tessera_transpose, src, dst, perm); break;
      case 3: CALL(tessera_gather, src, pick<tessera_array>(kArray), dst); break;
      case 4:
        CALL(tessera_scatter, src, pick<tessera_array>(kArray), dst, static_cast<tessera_op>(in_.enumerator(0, 5)));
        break;
      case 5: keep(kSchedule, CALL(tessera_schedule_copy, src, dst, in_.byte() < 245 ? &s : nullptr), s); break;
      case 6:
        keep(kSchedule, CALL(tessera_schedule_transpose, src, dst, perm, in_.byte() < 245 ? &s : nullptr), s);
        break;
      default: CALL(tessera_schedule_execute, pick<tessera_schedule>(kSchedule), src, dst); break;
    }
  }

  void step() {
    switch (in_.byte() % 7) {
      case 0: {
        Doubles times = doubles(in_);
        Doubles work = doubles(in_);
        // The weights are written: `times.count` of them, which is what the call is told.
        Buffer weights(times.count > 64 ? kMaxBuffer + 1 : times.count * sizeof(double));
        switch (in_.byte() % 3) {
          case 0:
            CALL(tessera_weights_d3arc, times.get(), times.count, in_.real(), in_.real(), weights.as<double>());
            break;
          case 1: CALL(tessera_weights_inverse_time, times.get(), times.count, weights.as<double>()); break;
          default:
            CALL(tessera_weights_throughput, times.get(), work.count >= times.count ? work.get() : nullptr,
                 times.count, weights.as<double>());
            break;
        }
        break;
      }
      case 1: {
        Doubles w = doubles(in_);
        tessera_dist out = nullptr;
        keep(kDist, CALL(tessera_cut_target, pick<tessera_dist>(kDist), w.get(), w.count, &out), out);
        break;
      }
      case 2: {
        tessera_step s = nullptr;
        const auto dom = pick<tessera_domain>(kDomain);
        const auto target = pick<tessera_dist>(kDist);
        keep(kStep, CALL(tessera_step_plan, dom, target, in_.real(), in_.byte() < 245 ? &s : nullptr), s);
        break;
      }
      case 3: {
        tessera_step_info info{};
        CALL(tessera_step_info_get, pick<tessera_step>(kStep), in_.flag() ? &info : nullptr);
        break;
      }
      case 4: {
        tessera_dist d = nullptr;
        keep(kDist, CALL(tessera_step_destination, pick<tessera_step>(kStep), in_.flag() ? &d : nullptr), d);
        break;
      }
      default: {
        double seconds = 0;
        const auto dom = pick<tessera_domain>(kDomain);
        const auto st = pick<tessera_step>(kStep);
        tessera_dist to = nullptr;
        if (tessera_step_destination(st, &to) == TESSERA_OK) {
          const bool ok = affordable(to);
          tessera_dist_free(&to);
          if (!ok) break;
        }
        CALL(tessera_step_migrate, dom, st, in_.flag() ? &seconds : nullptr);
        break;
      }
    }
  }

  static int availability(const tessera_availability_context* context, void* user_data) {
    if (context == nullptr) finding("the availability callback got a NULL context");
    return (context->iteration + *static_cast<int*>(user_data)) % 3 != 0;
  }

  void balancer() {
    switch (in_.byte() % 10) {
      case 0: {
        tessera_policy p{};
        CALL(tessera_policy_defaults, static_cast<tessera_policy_kind>(in_.enumerator(0, 5)),
             in_.flag() ? &p : nullptr);
        break;
      }
      case 1: {
        tessera_balancer_options o{};
        CALL(tessera_balancer_options_defaults, in_.flag() ? &o : nullptr);
        break;
      }
      case 2: {
        tessera_policy p{};
        (void)tessera_policy_defaults(static_cast<tessera_policy_kind>(in_.enumerator(0, 5)), &p);
        if (in_.flag()) {
          p.delta = in_.real();
          p.tolerance = in_.real();
          p.min_delta = in_.real();
          p.payback_limit = in_.real();
        }
        tessera_balancer_options o{};
        (void)tessera_balancer_options_defaults(&o);
        if (in_.flag()) {
          o.interval = in_.small_int();
          o.weights = static_cast<tessera_weight_rule>(in_.enumerator(0, 3));
          o.lb = in_.real();
          o.ub = in_.real();
        }
        tessera_balancer b = nullptr;
        keep(kBalancer,
             CALL(tessera_balancer_create, pick<tessera_domain>(kDomain), in_.byte() < 245 ? &p : nullptr,
                  in_.flag() ? &o : nullptr, in_.byte() < 245 ? &b : nullptr),
             b);
        break;
      }
      case 3: CALL(tessera_balancer_timer_start, pick<tessera_balancer>(kBalancer)); break;
      case 4: CALL(tessera_balancer_timer_stop, pick<tessera_balancer>(kBalancer)); break;
      case 5: {
        tessera_balance_step out{};
        if (in_.flag())
          CALL(tessera_balancer_step, pick<tessera_balancer>(kBalancer), in_.flag() ? &out : nullptr);
        else
          CALL(tessera_balancer_step_seconds, pick<tessera_balancer>(kBalancer), in_.real(),
               in_.flag() ? &out : nullptr);
        break;
      }
      case 6: {
        const std::size_t count = array_count(in_);
        std::vector<int> ranks(count <= 64 ? count + 1 : 0);
        for (auto& r : ranks) r = in_.byte() < 200 ? 0 : in_.small_int();
        double seconds = 0;
        CALL(tessera_balancer_set_active_ranks, pick<tessera_balancer>(kBalancer), count <= 64 ? ranks.data() : nullptr,
             count, in_.flag() ? &seconds : nullptr);
        break;
      }
      case 7:
        CALL(tessera_balancer_set_availability, pick<tessera_balancer>(kBalancer), in_.flag() ? availability : nullptr,
             &availability_seed_);
        break;
      case 8: {
        static const char* patterns[] = {"/nonexistent/tessera-capi-fuzz-{rank}", "", "{rank}{rank}", nullptr};
        CALL(tessera_balancer_set_availability_file, pick<tessera_balancer>(kBalancer), patterns[in_.byte() % 4]);
        break;
      }
      default:
        CALL(tessera_balancer_set_slowdown_threshold, pick<tessera_balancer>(kBalancer), in_.real(), in_.small_int());
        break;
    }
  }

  void load_and_checkpoint() {
    switch (in_.byte() % 5) {
      case 0: {
        // A short text of load-spec characters (NULL sometimes).
        static constexpr char alphabet[] = "0123456789:@-,.e+none ";
        std::string text;
        const int length = in_.byte() % 24;
        for (int i = 0; i < length; ++i) text += alphabet[in_.byte() % (sizeof alphabet - 1)];
        tessera_load l = nullptr;
        keep(kLoad, CALL(tessera_load_parse, in_.byte() < 245 ? text.c_str() : nullptr, in_.flag() ? &l : nullptr), l);
        break;
      }
      case 1: {
        double factor = 0;
        CALL(tessera_load_factor, pick<tessera_load>(kLoad), in_.small_int(), in_.small_int(),
             in_.flag() ? &factor : nullptr);
        break;
      }
      case 2: {
        // Sleeps (factor - 1) x seconds: called only when that is under a millisecond, or with
        // seconds the library must refuse (negative, NaN, infinite).
        const auto l = pick<tessera_load>(kLoad);
        const int rank = in_.small_int(), iteration = in_.small_int();
        const double seconds = in_.real() * 1e-6;
        double factor = 0, extra = 0;
        const bool refused = !(seconds >= 0) || !(seconds < 1e9);
        if (!refused && (tessera_load_factor(l, rank, iteration, &factor) != TESSERA_OK ||
                         !((factor - 1) * seconds < 1e-3)))
          break;
        CALL(tessera_load_slow_down, l, rank, iteration, seconds, in_.flag() ? &extra : nullptr);
        break;
      }
      default: {
        static const char* names[] = {"u", "", "a/b", nullptr};
        const char* name = names[in_.byte() % 4];
        const char* path = in_.byte() < 240 ? checkpoint_path_.c_str() : nullptr;
        if (in_.flag())
          CALL(tessera_checkpoint_save, path, pick<tessera_array>(kArray), name);
        else
          CALL(tessera_checkpoint_load, path, pick<tessera_array>(kArray), name);
        break;
      }
    }
  }

  /// Frees a handle of any kind: live, freed already, NULL, of another kind, or a NULL pointer.
  void free_any() {
    const auto kind = static_cast<Kind>(in_.byte() % kKinds);
    void* h = h_.pick_raw(in_, kind);
    void* const before = h;
    const bool null_pointer = in_.byte() >= 245;
    const tessera_status s = free_handle(kind, null_pointer ? nullptr : &h);
    if (check(s, kFreeName[kind])) {
      if (null_pointer) return;
      if (h != nullptr) finding(std::string(kFreeName[kind]) + " succeeded but did not set the handle to NULL");
      if (before != nullptr && !h_.forget(kind, before))
        finding(std::string(kFreeName[kind]) + " freed a handle that was not live of its kind");
    }
  }

  /// A valid comm, grid, distribution, domain and array in one step, with small random parameters,
  /// so that the fuzzer reaches the calls on live objects without having to guess every argument.
  void valid_chain() {
    const int ndim = 1 + in_.byte() % 3;
    tessera_box b{};
    std::int64_t extents[TESSERA_MAX_DIM] = {1, 1, 1};
    tessera_dim_spec specs[TESSERA_MAX_DIM] = {};
    for (int d = 0; d < ndim; ++d) {
      extents[d] = 1 + in_.byte() % 9;
      b.lo[d] = in_.byte() % 3;
      b.hi[d] = b.lo[d] + extents[d];
      static constexpr tessera_dim_kind kinds[] = {TESSERA_DIM_BLOCK, TESSERA_DIM_CYCLIC, TESSERA_DIM_BLOCK_CYCLIC,
                                                   TESSERA_DIM_COLLAPSED};
      specs[d].kind = kinds[in_.byte() % 4];
      specs[d].block_size = 1 + in_.byte() % 3;
    }
    tessera_comm c = nullptr;
    tessera_grid g = nullptr;
    tessera_dist dist = nullptr;
    tessera_domain dom = nullptr;
    tessera_array a = nullptr;
    tessera_ghosts halo{};
    for (int d = 0; d < ndim; ++d) {
      halo.lower[d] = in_.byte() % 3;
      halo.upper[d] = in_.byte() % 3;
      halo.periodic[d] = in_.flag();
    }
    const auto type = static_cast<tessera_type>(1 + in_.byte() % 6);
    if (h_.live_count(kComm) == 0) keep(kComm, CALL(tessera_comm_create, MPI_COMM_WORLD, &c), c);
    const auto comm = pick<tessera_comm>(kComm);
    keep(kGrid, CALL(tessera_grid_automatic, ndim, 1, extents, nullptr, &g), g);
    keep(kDist, CALL(tessera_dist_create, g, &b, specs, nullptr, &dist), dist);
    keep(kDomain, CALL(tessera_domain_create, comm, dist, &dom), dom);
    keep(kArray, CALL(tessera_array_create, dom, type, &halo, &a), a);
  }

  Input& in_;
  Handles h_;
  int availability_seed_ = 0;
  std::string checkpoint_path_ = checkpoint_path();
};

std::size_t baseline_handles = 0;

void finalize_mpi() {
  std::remove(checkpoint_path().c_str());
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

/// Initialises MPI once per process (the replay main has no LLVMFuzzerInitialize).
void ensure_mpi() {
  static const bool initialised = [] {
    int already = 0;
    MPI_Initialized(&already);
    if (!already) {
      int provided = 0;
      if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
        finding("MPI_Init_thread failed");
      std::atexit(finalize_mpi);
    }
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 1) finding("run the C API fuzzer on one rank");
    if (tessera_live_handles(&baseline_handles) != TESSERA_OK) finding("tessera_live_handles failed");
    return true;
  }();
  (void)initialised;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ensure_mpi();
  if (trace) std::fprintf(stderr, "-- input of %zu bytes\n", size);
  Input in(data, size);
  {
    Interpreter interpreter(in);
    interpreter.run();
  }  // frees every handle the input made
  std::size_t live = 0;
  if (tessera_live_handles(&live) != TESSERA_OK) finding("tessera_live_handles failed");
  if (live != baseline_handles)
    finding("handles left after freeing every live one: " + std::to_string(live) + " (before: " +
            std::to_string(baseline_handles) + ")");
  return 0;
}
