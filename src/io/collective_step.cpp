#include "collective_step.hpp"

#include <algorithm>
#include <vector>

namespace tessera::io::detail {

void agree(const Communicator& comm, const std::optional<Error>& mine) {
  try {
    comm.agree(mine);
  } catch (const Error& agreed) {
    // Only after a failure: which ranks failed, for the message. The path that succeeds stays at
    // the one allreduce of Communicator::agree.
    const std::vector<int> failed = comm.allgather(mine ? 1 : 0);
    const auto failures = std::count(failed.begin(), failed.end(), 1);
    if (failures == comm.size()) throw;
    const auto root = std::find(failed.begin(), failed.end(), 1) - failed.begin();
    throw Error(agreed.code(), tessera::detail::concat(agreed.what(), " (on rank ", root, "; ", failures, " of ",
                                                       comm.size(), " ranks failed)"));
  }
}

}  // namespace tessera::io::detail
