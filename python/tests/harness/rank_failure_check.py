"""A test that fails on rank 1 only: run by ctest (python.pytest.failure_on_rank_1_fails_the_run)
to prove that a failure on a rank other than 0 fails the whole run and is named by rank 0."""
from mpi4py import MPI


def test_passes_on_every_rank_but_1():
    assert MPI.COMM_WORLD.Get_rank() != 1, "failing on purpose on rank 1"
