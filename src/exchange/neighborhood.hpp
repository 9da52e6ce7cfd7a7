#pragma once
// Neighbourhood collective: one MPI_Ineighbor_alltoallw over a distributed-graph communicator of
// the schedule's peers, made by the first start (collective over the communicator; the
// constructor stays local so that an allocation failure in it can be agreed on, see
// allocation_agreement.hpp). Keeps the
// in-place and datatype channels of point-to-point: every part is given by its absolute address
// (MPI_BOTTOM), the array itself or the channel's buffer. `start` is collective: every rank of
// the communicator calls it.

#include <vector>

#include "move_method.hpp"
#include "request_pool.hpp"

namespace tessera::detail {

/// Owns a communicator tessera made (freed when it goes, unless MPI is finalized).
class OwnedComm {
 public:
  OwnedComm() = default;
  ~OwnedComm();
  OwnedComm(const OwnedComm&) = delete;
  OwnedComm& operator=(const OwnedComm&) = delete;
  MPI_Comm comm = MPI_COMM_NULL;
};

class Neighborhood final : public MoveMethod {
 public:
  Neighborhood(const Communicator& comm, std::shared_ptr<const Schedule> schedule, std::vector<Binding> bindings,
               int tag, const char* owner);

 private:
  // Counts and types are fixed when the method is made; addresses depend on the arrays (post()).
  struct Parts {
    std::vector<int> counts;
    std::vector<MPI_Datatype> types;
    std::vector<MPI_Aint> addresses;
  };

  void connect();  // makes graph_ (collective): on the first post()
  void post() override;
  void complete() override { finish_collective(*request_[0], true); }
  [[nodiscard]] bool poll() override { return finish_collective(*request_[0], false); }

  OwnedComm graph_;  // before request_: freed after the request is completed
  Parts sends_, receives_;
  RequestPool request_{1};
};

}  // namespace tessera::detail
