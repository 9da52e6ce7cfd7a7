#include "tessera/exchange/collective_check.hpp"

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "checked_board.hpp"

#ifndef TESSERA_CHECKED_DEFAULT
#define TESSERA_CHECKED_DEFAULT 0
#endif

namespace tessera {
namespace {

// -1 until the first checked_mode() or set_checked_mode(); then 0 or 1.
std::atomic<int> mode{-1};
std::atomic<std::uint64_t> checks_made{0};
// This process's number for its checked collectives: what the hang report calls "#58".
std::uint64_t sequence = 0;
thread_local int scope_depth = 0;

int mode_from_environment() {
  const char* value = std::getenv("TESSERA_CHECKED");
  if (value == nullptr || *value == '\0') return TESSERA_CHECKED_DEFAULT ? 1 : 0;
  const std::string_view v(value);
  if (v == "1") return 1;
  if (v == "0") return 0;
  fail_argument("tessera checked mode", "TESSERA_CHECKED", v, "must be 1 (on) or 0 (off)");
}

// What one rank tells the others when the comparison failed.
struct CallRecord {
  std::uint64_t call = 0;
  char operation[56] = {};
};

std::string rank_list(const std::vector<int>& ranks) {
  std::ostringstream out;
  out << (ranks.size() == 1 ? "rank " : "ranks ");
  for (std::size_t i = 0; i < ranks.size(); ++i) out << (i ? ", " : "") << ranks[i];
  return out.str();
}

// The same text on every rank: it is built from the gathered records only.
std::string mismatch_message(const std::vector<CallRecord>& records) {
  struct Group {
    std::string operation;
    std::uint64_t call;
    std::vector<int> ranks;
  };
  std::vector<Group> groups;  // in order of the lowest rank in each
  for (std::size_t r = 0; r < records.size(); ++r) {
    const std::string op(records[r].operation, strnlen(records[r].operation, sizeof records[r].operation));
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const Group& g) { return g.call == records[r].call && g.operation == op; });
    if (it == groups.end()) it = groups.insert(groups.end(), Group{op, records[r].call, {}});
    it->ranks.push_back(static_cast<int>(r));
  }
  std::vector<int> differing;
  for (std::size_t g = 1; g < groups.size(); ++g) differing.insert(differing.end(), groups[g].ranks.begin(), groups[g].ranks.end());
  std::sort(differing.begin(), differing.end());
  const bool same_operation = std::all_of(groups.begin(), groups.end(),
                                          [&](const Group& g) { return g.operation == groups.front().operation; });
  std::ostringstream out;
  out << "tessera checked mode: ";
  if (same_operation) {
    out << "the ranks called " << groups.front().operation << " with different arguments: ";
    for (std::size_t g = 0; g < groups.size(); ++g)
      out << (g ? "; " : "") << "arguments #" << g + 1 << " (hash " << std::hex << std::setw(16) << std::setfill('0')
          << groups[g].call << std::dec << ") on " << rank_list(groups[g].ranks);
  } else {
    out << "the ranks made different collective calls: ";
    for (std::size_t g = 0; g < groups.size(); ++g) out << (g ? "; " : "") << groups[g].operation << " on " << rank_list(groups[g].ranks);
  }
  out << " (" << rank_list(differing) << (differing.size() == 1 ? " differs" : " differ")
      << " from rank 0). Every rank must make the same collective calls "
      << "in the same order with the same arguments.";
  return out.str();
}

}  // namespace

bool checked_mode() {
  int m = mode.load(std::memory_order_relaxed);
  if (m >= 0) return m == 1;
  int expected = -1;
  mode.compare_exchange_strong(expected, mode_from_environment());
  return mode.load(std::memory_order_relaxed) == 1;
}

void set_checked_mode(bool on) noexcept { mode.store(on ? 1 : 0, std::memory_order_relaxed); }

namespace detail {

void verify_collective(const Communicator& comm, std::string_view operation, std::uint64_t call) {
  checks_made.fetch_add(1, std::memory_order_relaxed);
  (void)checked::timeout_seconds();  // a bad TESSERA_CHECKED_TIMEOUT fails here, on every rank alike
  checked::publish(checked::Phase::checking, operation, ++sequence);
  // One allreduce: MIN over {h, ~h} gives {min h, ~max h}; the ranks agree iff min == max. Started
  // non-blocking and polled, so that a rank that never comes aborts the job past the deadline
  // instead of hanging it (checked_board.hpp).
  std::uint64_t mine[2] = {call, ~call}, reduced[2] = {0, 0};
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(MPI_Iallreduce(mine, reduced, 2, MPI_UINT64_T, MPI_MIN, comm.raw(), &request),
            "MPI_Iallreduce (checked mode)");
  checked::wait_for_check(request, comm.raw());
  // Every rank is here now: the moment to give the group a board if it has none (collective).
  checked::ensure_board(comm.raw());
  if (reduced[0] == ~reduced[1]) {
    checked::set_current(comm.raw());
    checked::publish(checked::Phase::inside);
    return;
  }

  // Failure path only: learn every rank's call, so that every rank can name the same culprits.
  CallRecord record;
  record.call = call;
  std::memcpy(record.operation, operation.data(), std::min(operation.size(), sizeof record.operation));
  std::vector<CallRecord> all(static_cast<std::size_t>(comm.size()));
  check_mpi(MPI_Allgather(&record, sizeof record, MPI_BYTE, all.data(), sizeof record, MPI_BYTE, comm.raw()),
            "MPI_Allgather (checked mode)");
  checked::publish(checked::Phase::outside);
  throw Error(ErrorCode::mismatch, mismatch_message(all));
}

std::uint64_t collective_checks_made() noexcept { return checks_made.load(std::memory_order_relaxed); }

CollectiveScope::CollectiveScope(bool entered) noexcept : entered_(entered) {
  if (entered_) ++scope_depth;
}

CollectiveScope::~CollectiveScope() {
  if (entered_ && --scope_depth == 0) {
    checked::set_current(MPI_COMM_NULL);
    checked::publish(checked::Phase::outside);
  }
}

bool CollectiveScope::inside() noexcept { return scope_depth > 0; }

}  // namespace detail
}  // namespace tessera
