#pragma once
// Alltoallv: every peer's part packed side by side into one buffer, one MPI_Ialltoallv over the
// whole communicator, every part unpacked when it completes. Always packs (a collective over the
// communicator cannot send from the arrays). Counts and displacements are ints in bytes: the
// Mover only chooses this way when every rank's buffers fit (see Mover's constructor).
// `start` is collective: every rank of the communicator calls it.

#include <vector>

#include "move_method.hpp"
#include "request_pool.hpp"

namespace tessera::detail {

class Alltoallv final : public MoveMethod {
 public:
  Alltoallv(const Communicator& comm, std::shared_ptr<const Schedule> schedule, std::vector<Binding> bindings,
            int tag, const char* owner);

 private:
  void post() override;
  void complete() override { finish_collective(*request_[0], true); }
  [[nodiscard]] bool poll() override { return finish_collective(*request_[0], false); }

  std::vector<int> send_counts_, send_displs_, receive_counts_, receive_displs_;  // per rank, bytes
  RequestPool request_{1};
};

}  // namespace tessera::detail
