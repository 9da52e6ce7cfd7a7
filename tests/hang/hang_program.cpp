// The program behind the checked.no_hang.* tests (see expect_hang_report.cmake): a collective that
// some ranks never reach must end the job within TESSERA_CHECKED_TIMEOUT with one message naming
// which ranks are in which operation, instead of hanging. Run with TESSERA_CHECKED=1:
//   hang_program skip     rank 1 returns early (to MPI_Finalize) instead of a third collective
//   hang_program extra    rank 1 makes one collective more; the others wait in their own barrier
//   hang_program late     checked mode turned on after the domain was made (no board yet), and
//                         rank 1 skips the first checked collective for its own barrier
//   hang_program inside   rank 1 fails inside a ghost update after its check passed (its sends
//                         are refused: Error(mpi)) and goes to its own barrier; the others wait
//                         for its messages inside the operation
//   hang_program timeout  a bad TESSERA_CHECKED_TIMEOUT: Error(invalid_argument) on every rank
// Each run that should be stopped is, with MPI_Abort, so the program only prints on the others.
#include <mpi.h>

#include <cstdio>
#include <string>

#include "tessera/tessera.hpp"

// Set on rank 1 by the "inside" scenario: its sends fail, through MPI's profiling interface, as a
// rank that hits a local error in the middle of an operation would leave the others waiting.
bool refuse_sends = false;

extern "C" int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                         MPI_Request* request) {
  if (refuse_sends) return MPI_ERR_OTHER;
  return PMPI_Isend(buf, count, type, dest, tag, comm, request);
}

extern "C" int MPI_Ialltoallv(const void* send, const int* send_counts, const int* send_displs, MPI_Datatype send_type,
                              void* recv, const int* recv_counts, const int* recv_displs, MPI_Datatype recv_type,
                              MPI_Comm comm, MPI_Request* request) {
  if (refuse_sends) return MPI_ERR_OTHER;
  return PMPI_Ialltoallv(send, send_counts, send_displs, send_type, recv, recv_counts, recv_displs, recv_type, comm,
                         request);
}

extern "C" int MPI_Ineighbor_alltoallw(const void* send, const int* send_counts, const MPI_Aint* send_displs,
                                       const MPI_Datatype* send_types, void* recv, const int* recv_counts,
                                       const MPI_Aint* recv_displs, const MPI_Datatype* recv_types, MPI_Comm comm,
                                       MPI_Request* request) {
  if (refuse_sends) return MPI_ERR_OTHER;
  return PMPI_Ineighbor_alltoallw(send, send_counts, send_displs, send_types, recv, recv_counts, recv_displs,
                                  recv_types, comm, request);
}

namespace {

using namespace tessera;

int run(const std::string& scenario) {
  if (scenario == "late") set_checked_mode(false);
  Communicator comm(MPI_COMM_WORLD);
  const Box<2> box{{0, 0}, {8, 8}};
  Distribution<2> rows{box, ProcGrid<2>::with_shape(comm.size(), {comm.size(), 1}), {block(), collapsed()}};
  Domain<2> dom(comm, rows);
  DistArray<double, 2> a(dom, ghosts<2>(1));
  a.for_each_owned([](const Point<2>& p, double& x) { x = static_cast<double>(p[0] + p[1]); });
  if (scenario == "late") {
    set_checked_mode(true);
    if (comm.rank() != 1) (void)a.sum();  // rank 1 goes to its own barrier (see docs: not to MPI_Finalize)
    MPI_Barrier(MPI_COMM_WORLD);
    return 0;
  }
  if (scenario == "timeout") {
    try {
      (void)a.sum();
    } catch (const Error& e) {
      std::printf("rank %d: Error(%d): %s\n", comm.rank(), static_cast<int>(e.code()), e.what());
      return e.code() == ErrorCode::invalid_argument ? 0 : 1;
    }
    return 1;
  }
  a.update_ghosts();  // #1 on every rank
  (void)a.sum();      // #2 on every rank
  if (scenario == "skip") {
    if (comm.rank() == 1) return 0;  // returns early: its domain goes, then MPI_Finalize
    (void)a.sum();                   // #3: never matched
  } else if (scenario == "inside") {
    refuse_sends = comm.rank() == 1;
    try {
      a.update_ghosts();  // #3: rank 1 leaves it with Error(mpi), after the check
    } catch (const Error& e) {
      std::fprintf(stderr, "rank %d left update_ghosts: %s\n", comm.rank(), e.what());
    }
    refuse_sends = false;
    MPI_Barrier(MPI_COMM_WORLD);
  } else if (scenario == "extra") {
    if (comm.rank() == 1) (void)a.max();  // #3 on rank 1 only
    MPI_Barrier(MPI_COMM_WORLD);          // where the others wait, outside tessera
  } else {
    std::fprintf(stderr, "unknown scenario %s\n", scenario.c_str());
    return 2;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int rc = run(argc > 1 ? argv[1] : "");
  MPI_Finalize();
  return rc;
}
