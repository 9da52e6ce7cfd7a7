#include "checked_board.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/exchange/collective_check.hpp"
#include "tessera/exchange/communicator.hpp"

namespace tessera::detail::checked {
namespace {

// One rank's slot on a board: 64 bytes, written only by its rank, read by everyone on the node.
// Accessed through std::atomic_ref so that a reader racing a writer reads whole words.
struct Slot {
  static constexpr std::size_t name_words = 6;
  std::uint64_t phase;
  std::uint64_t sequence;
  std::uint64_t name[name_words];  // the operation's name, up to 48 bytes, zero-padded
};
static_assert(sizeof(Slot) == 64);

struct Board {
  MPI_Win window = MPI_WIN_NULL;
  MPI_Group group = MPI_GROUP_NULL;  // the communicator's group: duplicates find the board by it
  Slot* slots = nullptr;             // one per rank of the group, in rank order
  int size = 0;
  int rank = 0;
};

// What this process is doing: copied into its slot of every board it has.
struct State {
  Phase phase = Phase::outside;
  std::uint64_t sequence = 0;
  std::uint64_t name[Slot::name_words] = {};
};

State state;
std::vector<Board*> boards;  // in creation order; freed in MPI_Finalize
int board_keyval = MPI_KEYVAL_INVALID;     // a communicator's cached Board*
int finalize_keyval = MPI_KEYVAL_INVALID;  // on MPI_COMM_SELF: its deletion runs at MPI_Finalize
MPI_Comm current = MPI_COMM_NULL;          // the communicator of the checked collective we are in

std::uint64_t load(const std::uint64_t& word) {
  return std::atomic_ref<const std::uint64_t>(word).load(std::memory_order_acquire);
}

void store(std::uint64_t& word, std::uint64_t value) {
  std::atomic_ref<std::uint64_t>(word).store(value, std::memory_order_release);
}

void write_slot(Slot& slot) {
  for (std::size_t i = 0; i < Slot::name_words; ++i) store(slot.name[i], state.name[i]);
  store(slot.sequence, state.sequence);
  store(slot.phase, static_cast<std::uint64_t>(state.phase));
}

void publish_state() noexcept {
  for (Board* b : boards) write_slot(b->slots[b->rank]);
}

// MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI still works: every rank says
// it has finished, then frees its boards in the order they were made (the order in which the
// same ranks made them together, so the collective frees meet).
int free_boards_at_finalize(MPI_Comm, int, void*, void*) {
  state.phase = Phase::finished;
  publish_state();
  for (Board* b : boards) {
    MPI_Win_unlock_all(b->window);
    MPI_Win_free(&b->window);
    MPI_Group_free(&b->group);
    delete b;
  }
  boards.clear();
  return MPI_SUCCESS;
}

Board* find_board(MPI_Comm comm) {
  if (board_keyval == MPI_KEYVAL_INVALID) return nullptr;
  void* value = nullptr;
  int found = 0;
  check_mpi(MPI_Comm_get_attr(comm, board_keyval, &value, &found), "MPI_Comm_get_attr (checked mode)");
  if (found) return static_cast<Board*>(value);
  if (boards.empty()) return nullptr;
  MPI_Group group;
  check_mpi(MPI_Comm_group(comm, &group), "MPI_Comm_group (checked mode)");
  Board* match = nullptr;
  for (Board* b : boards) {
    int result = MPI_UNEQUAL;
    check_mpi(MPI_Group_compare(group, b->group, &result), "MPI_Group_compare (checked mode)");
    if (result == MPI_IDENT) {
      match = b;
      break;
    }
  }
  MPI_Group_free(&group);
  if (match != nullptr) check_mpi(MPI_Comm_set_attr(comm, board_keyval, match), "MPI_Comm_set_attr (checked mode)");
  return match;
}

// --- the report ---------------------------------------------------------------------------------

struct SlotView {
  Phase phase;
  std::uint64_t sequence;
  std::string name;
};

SlotView read_slot(const Slot& slot) {
  SlotView v{static_cast<Phase>(load(slot.phase)), load(slot.sequence), {}};
  char text[sizeof slot.name];
  for (std::size_t i = 0; i < Slot::name_words; ++i) {
    const std::uint64_t w = load(slot.name[i]);
    std::memcpy(text + 8 * i, &w, 8);
  }
  v.name.assign(text, strnlen(text, sizeof text));
  return v;
}

std::string rank_list(const std::vector<int>& ranks) {
  std::ostringstream out;
  out << (ranks.size() == 1 ? "rank " : "ranks ");
  for (std::size_t i = 0; i < ranks.size(); ++i) out << (i ? ", " : "") << ranks[i];
  return out.str();
}

std::string operation_text(const SlotView& v) { return v.name + " #" + std::to_string(v.sequence); }

// "ranks 0, 1, 3 wait in DistArray::sum #58; rank 2 is in DistArray::update_ghosts #57 ..."
std::string describe(const std::vector<std::pair<int, SlotView>>& slots) {
  struct Group {
    const SlotView* view;
    std::vector<int> ranks;
  };
  std::vector<Group> groups;  // in order of their lowest rank
  for (const auto& [rank, v] : slots) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
      return g.view->phase == v.phase && g.view->sequence == v.sequence && g.view->name == v.name;
    });
    if (it == groups.end()) it = groups.insert(groups.end(), Group{&v, {}});
    it->ranks.push_back(rank);
  }
  std::ostringstream out;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const SlotView& v = *groups[g].view;
    const bool one = groups[g].ranks.size() == 1;
    out << (g ? "; " : "") << rank_list(groups[g].ranks) << ' ';
    const std::string last = v.sequence > 0 ? "; last: " + operation_text(v) : "";
    switch (v.phase) {
      case Phase::checking: out << (one ? "waits" : "wait") << " in " << operation_text(v); break;
      case Phase::inside: out << (one ? "is" : "are") << " in " << operation_text(v) << " (past its check)"; break;
      case Phase::outside:
        if (v.sequence == 0)
          out << (one ? "has" : "have") << " made no checked tessera collective yet";
        else
          out << (one ? "is" : "are") << " outside tessera's collectives (last: " << operation_text(v) << ")";
        break;
      case Phase::finished: out << (one ? "has" : "have") << " finished (in MPI_Finalize" << last << ")"; break;
      default: out << (one ? "runs" : "run") << " on another node (its state cannot be read from here)"; break;
    }
  }
  return out.str();
}

std::string seconds_text(double seconds) {
  std::ostringstream out;
  out << seconds;
  return out.str();
}

[[noreturn]] void report_and_abort(MPI_Comm comm, Board* board, std::string_view waited) {
  std::ostringstream out;
  out << "tessera checked mode: ";
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (board != nullptr) {
    std::vector<std::pair<int, SlotView>> slots;
    for (int r = 0; r < board->size; ++r) slots.emplace_back(r, read_slot(board->slots[r]));
    out << describe(slots);
  } else {
    SlotView mine{state.phase, state.sequence, {}};
    char text[sizeof state.name];
    std::memcpy(text, state.name, sizeof text);
    mine.name.assign(text, strnlen(text, sizeof text));
    out << describe({{rank, mine}})
        << "; what the other ranks do cannot be read (this communicator has no board yet: checked mode was "
           "off when it was made and no check on it has passed)";
  }
  out << " (deadline TESSERA_CHECKED_TIMEOUT=" << seconds_text(timeout_seconds()) << " s passed on rank " << rank
      << ", who " << waited << "). Every rank must make the same collective calls in the same order; aborting the job.\n";
  const std::string text = out.str();
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
  MPI_Abort(comm, hang_abort_code);
  std::abort();  // MPI_Abort does not return; if it did, still do not go on
}

// The rank that should report: the lowest one waiting in a check, else the lowest one inside an
// operation (which waits for messages, or will), else -1.
int reporting_rank(const Board& board) {
  for (Phase phase : {Phase::checking, Phase::inside})
    for (int r = 0; r < board.size; ++r)
      if (static_cast<Phase>(load(board.slots[r].phase)) == phase) return r;
  return -1;
}

// --- waiting with a deadline --------------------------------------------------------------------

enum class Until { all, any };

// Polls `requests` until they complete (all, or any one: then *index) or `deadline` (MPI_Wtime)
// passes. Spins for the first polls (a check whose ranks are all there completes within them),
// then yields between polls so that oversubscribed ranks leave the core to the others.
bool poll_until(int count, MPI_Request* requests, Until until, double deadline, int* index) {
  for (unsigned polls = 0;; ++polls) {
    int done = 0;
    if (until == Until::all) {
      check_mpi(MPI_Testall(count, requests, &done, MPI_STATUSES_IGNORE), "MPI_Testall (checked mode)");
    } else {
      check_mpi(MPI_Testany(count, requests, index, &done, MPI_STATUS_IGNORE), "MPI_Testany (checked mode)");
    }
    if (done) return true;
    if (polls >= 64) {
      if (MPI_Wtime() > deadline) return false;
      std::this_thread::yield();
    }
  }
}

// Waits; past the deadline one rank should print and abort, since two ranks calling MPI_Abort at
// once can leave Open MPI's mpirun hanging (seen with 4.1.4). With a board, the lowest rank that
// waits in a check (if none, the lowest inside an operation) reports at once, and any other
// waiting rank gives it a grace period (and its own wait the chance to end), staggered by rank,
// before it reports itself. Without a board no rank knows who else waits: rank r reports r steps
// after its deadline.
void wait_or_abort(int count, MPI_Request* requests, Until until, int* index, MPI_Comm comm, bool in_check) {
  const double timeout = timeout_seconds();
  if (poll_until(count, requests, until, MPI_Wtime() + timeout, index)) return;
  Board* board = find_board(comm);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // Without a board the stagger is wide (a teardown after MPI_Abort on a loaded machine takes a
  // while); with one, only ranks that are not the reporter wait, and 1 s apart is plenty.
  const double step = board != nullptr ? std::min(timeout, 1.0) : 3.0;
  double grace = step * std::min(rank, 10);
  if (board != nullptr) {
    const int reporter = reporting_rank(*board);
    const bool me = reporter == rank || reporter < 0;
    grace = me ? 0.0 : std::min(timeout, 2.0) + 0.25 * step * std::min(rank, 40);
  }
  if (grace > 0 && poll_until(count, requests, until, MPI_Wtime() + grace, index)) return;
  report_and_abort(comm, board,
                   in_check ? "waited in the check" : "waited for messages inside its operation");
}

double parse_timeout() {
  const char* value = std::getenv("TESSERA_CHECKED_TIMEOUT");
  if (value == nullptr || *value == '\0') return 60.0;
  char* end = nullptr;
  const double seconds = std::strtod(value, &end);
  if (end == value || *end != '\0' || !std::isfinite(seconds) || seconds <= 0)
    fail_argument("tessera checked mode", "TESSERA_CHECKED_TIMEOUT", value, "must be a positive number of seconds");
  return seconds;
}

}  // namespace

double timeout_seconds() {
  static const double seconds = parse_timeout();  // a throw leaves it to be read again next time
  return seconds;
}

void publish(Phase phase, std::string_view operation, std::uint64_t sequence) noexcept {
  state.phase = phase;
  state.sequence = sequence;
  char text[sizeof state.name] = {};
  std::memcpy(text, operation.data(), std::min(operation.size(), sizeof text - 1));
  std::memcpy(state.name, text, sizeof text);
  publish_state();
}

void publish(Phase phase) noexcept {
  state.phase = phase;
  publish_state();
}

bool has_board(MPI_Comm comm) { return find_board(comm) != nullptr; }

void ensure_board(MPI_Comm comm) {
  if (has_board(comm)) return;
  if (board_keyval == MPI_KEYVAL_INVALID)
    check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &board_keyval, nullptr),
              "MPI_Comm_create_keyval (checked mode)");
  if (finalize_keyval == MPI_KEYVAL_INVALID) {
    check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_boards_at_finalize, &finalize_keyval, nullptr),
              "MPI_Comm_create_keyval (checked mode)");
    check_mpi(MPI_Comm_set_attr(MPI_COMM_SELF, finalize_keyval, nullptr), "MPI_Comm_set_attr (checked mode)");
  }
  auto board = std::make_unique<Board>();
  check_mpi(MPI_Comm_size(comm, &board->size), "MPI_Comm_size (checked mode)");
  check_mpi(MPI_Comm_rank(comm, &board->rank), "MPI_Comm_rank (checked mode)");
  // The ranks on this node share one segment, allocated by the first of them: slot r is rank r's.
  MPI_Comm node = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
            "MPI_Comm_split_type (checked mode)");
  int node_rank = 0;
  MPI_Comm_rank(node, &node_rank);
  const MPI_Aint bytes = node_rank == 0 ? static_cast<MPI_Aint>(board->size) * MPI_Aint{sizeof(Slot)} : 0;
  void* base = nullptr;
  const int rc = MPI_Win_allocate_shared(bytes, sizeof(Slot), MPI_INFO_NULL, node, &base, &board->window);
  if (rc != MPI_SUCCESS) MPI_Comm_free(&node);
  check_mpi(rc, "MPI_Win_allocate_shared (checked mode)");
  MPI_Aint size = 0;
  int unit = 0;
  void* slots = nullptr;
  check_mpi(MPI_Win_shared_query(board->window, 0, &size, &unit, &slots), "MPI_Win_shared_query (checked mode)");
  board->slots = static_cast<Slot*>(slots);
  // Load/store access for the window's lifetime (the passive-target epoch MPI asks of
  // shared-memory windows); the atomics order the words themselves.
  check_mpi(MPI_Win_lock_all(MPI_MODE_NOCHECK, board->window), "MPI_Win_lock_all (checked mode)");
  if (node_rank == 0) std::memset(slots, 0, static_cast<std::size_t>(bytes));  // unknown: on another node
  MPI_Win_sync(board->window);
  check_mpi(MPI_Barrier(node), "MPI_Barrier (checked mode)");
  MPI_Win_sync(board->window);
  MPI_Comm_free(&node);
  check_mpi(MPI_Comm_group(comm, &board->group), "MPI_Comm_group (checked mode)");
  write_slot(board->slots[board->rank]);
  boards.push_back(board.release());
  check_mpi(MPI_Comm_set_attr(comm, board_keyval, boards.back()), "MPI_Comm_set_attr (checked mode)");
}

void attach_if_checked(MPI_Comm comm) {
  if (checked_mode()) ensure_board(comm);
}

void wait_for_check(MPI_Request& request, MPI_Comm comm) {
  wait_or_abort(1, &request, Until::all, nullptr, comm, true);
}

void set_current(MPI_Comm comm) noexcept { current = comm; }

void wait_all_inside(int count, MPI_Request* requests) {
  if (current == MPI_COMM_NULL) {
    check_mpi(MPI_Waitall(count, requests, MPI_STATUSES_IGNORE), "MPI_Waitall");
    return;
  }
  wait_or_abort(count, requests, Until::all, nullptr, current, false);
}

int wait_any_inside(int count, MPI_Request* requests) {
  int index = MPI_UNDEFINED;
  if (current == MPI_COMM_NULL) {
    check_mpi(MPI_Waitany(count, requests, &index, MPI_STATUS_IGNORE), "MPI_Waitany");
    return index;
  }
  wait_or_abort(count, requests, Until::any, &index, current, false);
  return index;
}

}  // namespace tessera::detail::checked
