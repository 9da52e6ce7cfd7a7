#include "shared_window.hpp"

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <new>
#include <utility>

#include "tessera/exchange/mover.hpp"
#include "tessera/exchange/shared_bytes.hpp"

namespace tessera::detail {

namespace {

int delete_context(MPI_Comm, int, void* value, void*) {
  delete static_cast<std::shared_ptr<NodeContext>*>(value);
  return MPI_SUCCESS;
}

// The attribute key under which a communicator keeps its context (made once per process).
int context_key() {
  static const int key = [] {
    int k = MPI_KEYVAL_INVALID;
    check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_context, &k, nullptr), "MPI_Comm_create_keyval");
    return k;
  }();
  return key;
}

// TESSERA_SHARED_MEMORY_NODE_RANKS (tests): ranks per emulated node, 0 for the real nodes.
int emulated_node_ranks() {
  const char* v = std::getenv("TESSERA_SHARED_MEMORY_NODE_RANKS");
  if (v == nullptr || *v == '\0') return 0;
  const int k = std::atoi(v);
  if (k < 1)
    fail_argument("environment variable TESSERA_SHARED_MEMORY_NODE_RANKS", "value", v, "must be a rank count >= 1");
  return k;
}

std::shared_ptr<NodeContext> make_context(const Communicator& comm) {
  auto context = std::make_shared<NodeContext>();
  const int ranks_per_node = emulated_node_ranks();
  check_mpi(MPI_Comm_split_type(comm.raw(), MPI_COMM_TYPE_SHARED, comm.rank(), MPI_INFO_NULL, &context->node),
            "MPI_Comm_split_type");
  if (ranks_per_node > 0) {
    MPI_Comm part = MPI_COMM_NULL;
    const int rc = MPI_Comm_split(context->node, comm.rank() / ranks_per_node, comm.rank(), &part);
    MPI_Comm_free(&context->node);
    check_mpi(rc, "MPI_Comm_split");
    context->node = part;
  }
  check_mpi(MPI_Comm_set_errhandler(context->node, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  MPI_Group all = MPI_GROUP_NULL, node = MPI_GROUP_NULL;
  check_mpi(MPI_Comm_group(comm.raw(), &all), "MPI_Comm_group");
  check_mpi(MPI_Comm_group(context->node, &node), "MPI_Comm_group");
  std::vector<int> ranks(static_cast<std::size_t>(comm.size()));
  for (int r = 0; r < comm.size(); ++r) ranks[static_cast<std::size_t>(r)] = r;
  context->node_rank.assign(ranks.size(), MPI_UNDEFINED);
  const int rc = MPI_Group_translate_ranks(all, comm.size(), ranks.data(), node, context->node_rank.data());
  MPI_Group_free(&all);
  MPI_Group_free(&node);
  check_mpi(rc, "MPI_Group_translate_ranks");
  for (int& r : context->node_rank)
    if (r == MPI_UNDEFINED) r = -1;
  return context;
}

}  // namespace

NodeContext::~NodeContext() {
  if (node != MPI_COMM_NULL && !mpi_finalized()) MPI_Comm_free(&node);
}

std::shared_ptr<NodeContext> node_context(const Communicator& comm) {
  void* value = nullptr;
  int found = 0;
  check_mpi(MPI_Comm_get_attr(comm.raw(), context_key(), &value, &found), "MPI_Comm_get_attr");
  if (found) return *static_cast<std::shared_ptr<NodeContext>*>(value);
  auto holder = std::make_unique<std::shared_ptr<NodeContext>>(make_context(comm));
  check_mpi(MPI_Comm_set_attr(comm.raw(), context_key(), holder.get()), "MPI_Comm_set_attr");
  return *holder.release();
}

SharedLocation locate_shared(const NodeContext& context, const void* p) noexcept {
  const auto* b = static_cast<const std::byte*>(p);
  // The window whose segment starts at or before p (segments of one process never overlap).
  for (const auto& [number, w] : context.windows) {
    (void)number;
    if (w->bytes > 0 && b >= w->local && b < w->local + w->bytes)
      return {w, static_cast<std::size_t>(b - w->local)};
  }
  return {};
}

// --- SharedBytes --------------------------------------------------------------------------------

SharedBytes::SharedBytes() noexcept = default;

SharedBytes::SharedBytes(const Communicator& comm, std::size_t bytes, std::size_t alignment) {
  auto context = node_context(comm);
  int node_size = 0;
  check_mpi(MPI_Comm_size(context->node, &node_size), "MPI_Comm_size");
  // Everything this rank allocates for the window is allocated before the collective: a rank that
  // fails here still takes part (with no bytes) and says so in the agreement below, so that no
  // rank of the node is left in MPI_Win_allocate_shared, nor holding a window the others freed.
  // Windows are numbered alike on every rank of the node, so the number is known beforehand.
  constexpr std::size_t line = 64;
  const std::uint64_t number = context->windows_made + 1;
  std::unique_ptr<SharedWindow> w;
  bool listed = false;
  int ok = 1;
  try {
    constexpr auto most = static_cast<std::size_t>(std::numeric_limits<MPI_Aint>::max()) - 4096 - line;
    if (alignment > 4096 || bytes > most) throw std::bad_alloc();  // at most a page; a size MPI can take
    w = std::make_unique<SharedWindow>();
    w->segments.assign(static_cast<std::size_t>(node_size), nullptr);
    listed = context->windows.emplace(number, w.get()).second;  // bytes 0 until made: locate_shared skips it
    if (!listed) throw std::bad_alloc();
  } catch (const std::bad_alloc&) {
    ok = 0;
  }
  // Each rank's segment apart from the others (noncontig), padded to whole cache lines, with room
  // to align the bytes: OpenMPI's segments start 8-byte aligned only (a header before them).
  const std::size_t padded = ok == 0 || bytes == 0 ? 0 : (bytes + alignment + line - 1) / line * line;
  MPI_Info info = MPI_INFO_NULL;
  int rc = MPI_Info_create(&info);
  if (rc == MPI_SUCCESS) rc = MPI_Info_set(info, "alloc_shared_noncontig", "true");
  void* base = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  const int made = MPI_Win_allocate_shared(static_cast<MPI_Aint>(padded), 1, info, context->node, &base, &win);
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  if (rc != MPI_SUCCESS || made != MPI_SUCCESS) ok = 0;
  // Every rank of the node learns whether every rank has its segment: all keep it, or all free it.
  const int agreed = MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, context->node);
  if (agreed != MPI_SUCCESS || ok == 0) {
    if (made == MPI_SUCCESS) MPI_Win_free(&win);
    if (listed) context->windows.erase(number);
    throw std::bad_alloc();
  }
  w->context = context;
  w->win = win;
  w->number = number;
  w->local = padded == 0 ? nullptr : static_cast<std::byte*>(base);
  w->bytes = padded;
  try {
    for (int q = 0; q < node_size; ++q) {
      MPI_Aint size = 0;
      int unit = 0;
      void* at = nullptr;
      check_mpi(MPI_Win_shared_query(win, q, &size, &unit, &at), "MPI_Win_shared_query");
      w->segments[static_cast<std::size_t>(q)] = size == 0 ? nullptr : static_cast<std::byte*>(at);
    }
    // One passive epoch for the window's life: MPI_Win_sync then orders loads and stores against
    // the handshakes of the shared-memory mover (the unified memory model of MPI-3 shared windows).
    check_mpi(MPI_Win_lock_all(MPI_MODE_NOCHECK, win), "MPI_Win_lock_all");
  } catch (...) {
    context->windows.erase(number);  // an MPI error: the window is left to MPI_Finalize
    throw;
  }
  context->windows_made = number;
  if (padded != 0) {
    const auto at = reinterpret_cast<std::uintptr_t>(base);
    data_ = w->local + (alignment - at % alignment) % alignment;
  }
  bytes_ = bytes;
  window_ = std::move(w);
}

SharedBytes::~SharedBytes() { release(); }

SharedBytes::SharedBytes(SharedBytes&& other) noexcept
    : window_(std::move(other.window_)),
      data_(std::exchange(other.data_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)) {}

SharedBytes& SharedBytes::operator=(SharedBytes&& other) noexcept {
  if (this != &other) {
    release();
    window_ = std::move(other.window_);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void SharedBytes::release() noexcept {
  if (!window_) return;
  window_->context->windows.erase(window_->number);
  if (!mpi_finalized()) {
    MPI_Win_unlock_all(window_->win);
    MPI_Win_free(&window_->win);
  }
  window_.reset();
  data_ = nullptr;
  bytes_ = 0;
}

bool shared_storage_requested() { return environment_move_algorithm() == MoveAlgorithm::shared_memory; }

}  // namespace tessera::detail
