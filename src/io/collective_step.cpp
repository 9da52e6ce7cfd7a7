#include "collective_step.hpp"

#include <climits>
#include <vector>

#include "tessera/exchange/communicator.hpp"

namespace tessera::io::detail {

void agree(MPI_Comm comm, const StepOutcome& mine) {
  int rank = 0, size = 0;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  // {lowest failing rank, number of failing ranks} in one reduction: the first as -rank under MAX.
  int in[2] = {mine.failed ? -rank : INT_MIN, mine.failed ? 1 : 0};
  int lowest_neg = 0, failures = 0;
  check_mpi(MPI_Allreduce(&in[0], &lowest_neg, 1, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
  check_mpi(MPI_Allreduce(&in[1], &failures, 1, MPI_INT, MPI_SUM, comm), "MPI_Allreduce");
  if (failures == 0) return;
  const int root = -lowest_neg;
  int header[2] = {static_cast<int>(mine.code), static_cast<int>(mine.message.size())};
  check_mpi(MPI_Bcast(header, 2, MPI_INT, root, comm), "MPI_Bcast");
  std::vector<char> text(static_cast<std::size_t>(header[1]));
  if (rank == root) text.assign(mine.message.begin(), mine.message.end());
  if (header[1] > 0) check_mpi(MPI_Bcast(text.data(), header[1], MPI_CHAR, root, comm), "MPI_Bcast");
  std::string message(text.begin(), text.end());
  if (failures < size)
    message += tessera::detail::concat(" (on rank ", root, "; ", failures, " of ", size, " ranks failed)");
  throw Error(static_cast<ErrorCode>(header[0]), message);
}

}  // namespace tessera::io::detail
