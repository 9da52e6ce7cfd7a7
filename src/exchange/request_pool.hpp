#pragma once
// The MPI requests of one way of moving (KaMPIng's RequestPool): made once, reused by every
// execution, and completed when the pool goes, so that MPI never writes into buffers or arrays
// that were freed while an execution was still in flight. A pool declared after the buffers it
// covers is destroyed before them.

#include <mpi.h>

#include <cstddef>
#include <optional>
#include <vector>

#include "checked_board.hpp"
#include "tessera/exchange/collective_check.hpp"
#include "tessera/exchange/communicator.hpp"

namespace tessera::detail {

class RequestPool {
 public:
  explicit RequestPool(std::size_t size) : requests_(size, MPI_REQUEST_NULL) {}
  ~RequestPool() {
    if (!mpi_finalized()) MPI_Waitall(size(), requests_.data(), MPI_STATUSES_IGNORE);
  }
  RequestPool(const RequestPool&) = delete;
  RequestPool& operator=(const RequestPool&) = delete;

  [[nodiscard]] MPI_Request* operator[](std::size_t i) noexcept { return &requests_[i]; }
  [[nodiscard]] int size() const noexcept { return static_cast<int>(requests_.size()); }

  /// Completes every request. Inside a checked collective, with checked mode's deadline: a rank
  /// whose peers never send or receive aborts the job with a report instead of hanging.
  void wait_all() {
    if (CollectiveScope::inside())
      checked::wait_all_inside(size(), requests_.data());
    else
      check_mpi(MPI_Waitall(size(), requests_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  }
  /// True when every request has completed; never blocks.
  [[nodiscard]] bool test_all() {
    int done = 0;
    check_mpi(MPI_Testall(size(), requests_.data(), &done, MPI_STATUSES_IGNORE), "MPI_Testall");
    return done != 0;
  }
  /// The index of one request that completed now (waiting for one when `blocking`), or nothing
  /// when none has (not blocking) or none is active.
  [[nodiscard]] std::optional<std::size_t> any(bool blocking) {
    int index = MPI_UNDEFINED, flag = 0;
    if (blocking && CollectiveScope::inside())
      index = checked::wait_any_inside(size(), requests_.data());
    else if (blocking)
      check_mpi(MPI_Waitany(size(), requests_.data(), &index, MPI_STATUS_IGNORE), "MPI_Waitany");
    else
      check_mpi(MPI_Testany(size(), requests_.data(), &index, &flag, MPI_STATUS_IGNORE), "MPI_Testany");
    if (index == MPI_UNDEFINED) return std::nullopt;
    return static_cast<std::size_t>(index);
  }

 private:
  std::vector<MPI_Request> requests_;
};

}  // namespace tessera::detail
