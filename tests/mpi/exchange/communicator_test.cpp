#include <gtest/gtest.h>
#include <mpi.h>

#include <string>

#include "tessera/exchange/communicator.hpp"

namespace tessera {
namespace {

TEST(Communicator, DuplicatesTheUsersCommunicator) {
  Communicator comm(MPI_COMM_WORLD);
  int world_rank = 0, world_size = 0, relation = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  MPI_Comm_compare(comm.raw(), MPI_COMM_WORLD, &relation);
  EXPECT_EQ(relation, MPI_CONGRUENT) << "same group, different context";
  EXPECT_EQ(comm.rank(), world_rank);
  EXPECT_EQ(comm.size(), world_size);
}

TEST(Communicator, MessagesDoNotCrossIntoTheUsersCommunicator) {
  Communicator comm(MPI_COMM_WORLD);
  const int payload = 42 + comm.rank();
  MPI_Request request;
  MPI_Isend(&payload, 1, MPI_INT, comm.rank(), 7, comm.raw(), &request);
  int on_world = 1, on_ours = 0;
  MPI_Iprobe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &on_world, MPI_STATUS_IGNORE);
  EXPECT_EQ(on_world, 0) << "a message sent on tessera's duplicate matched a probe on MPI_COMM_WORLD";
  while (!on_ours) MPI_Iprobe(comm.rank(), 7, comm.raw(), &on_ours, MPI_STATUS_IGNORE);
  int received = -1;
  MPI_Recv(&received, 1, MPI_INT, comm.rank(), 7, comm.raw(), MPI_STATUS_IGNORE);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  EXPECT_EQ(received, payload);
}

TEST(Communicator, MpiErrorsBecomeTesseraErrorsWithMpisText) {
  Communicator comm(MPI_COMM_WORLD);
  const int value = 1;
  try {
    check_mpi(MPI_Send(&value, 1, MPI_INT, comm.size() + 3, 0, comm.raw()), "MPI_Send");
    FAIL() << "sending to a rank that does not exist did not raise";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::mpi);
    const std::string what = e.what();
    EXPECT_NE(what.find("MPI_Send failed: "), std::string::npos) << what;
    EXPECT_NE(what.find("rank"), std::string::npos) << "MPI's own error string is missing: " << what;
  }
  EXPECT_THROW(Communicator bad(MPI_COMM_NULL), Error);
}

TEST(Communicator, MovesTransferOwnership) {
  Communicator a(MPI_COMM_WORLD);
  const MPI_Comm raw = a.raw();
  Communicator b(std::move(a));
  EXPECT_EQ(b.raw(), raw);
  EXPECT_EQ(a.raw(), MPI_COMM_NULL);  // NOLINT(bugprone-use-after-move): checking the moved-from state
  Communicator c = b.duplicate();
  EXPECT_NE(c.raw(), b.raw());
  c = std::move(b);  // frees c's old duplicate
  EXPECT_EQ(c.raw(), raw);
  c.barrier();
}

}  // namespace
}  // namespace tessera
