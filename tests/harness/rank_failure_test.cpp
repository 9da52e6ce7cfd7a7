// Not part of the suite on its own: expect_rank_failure.cmake runs it on 3 ranks and checks that
// the failure, which happens on rank 2 only, fails the whole run and is reported with its rank.
#include <gtest/gtest.h>
#include <mpi.h>

TEST(Harness, PassesEverywhere) { EXPECT_EQ(1 + 1, 2); }

TEST(Harness, FailsOnRankTwoOnly) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  EXPECT_NE(rank, 2) << "deliberate failure on rank " << rank;
}
