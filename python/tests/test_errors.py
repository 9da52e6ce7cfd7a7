"""tessera::Error as Python exceptions: one class per ErrorCode under tessera.Error, the C++
message unchanged, the same error on every rank for a collective call."""
import numpy as np
import pytest

import tessera


def test_every_error_code_has_its_class():
    classes = [tessera.InvalidArgumentError, tessera.OutOfRangeError, tessera.IndexOverflowError,
               tessera.MismatchError, tessera.MPIError, tessera.FileIOError, tessera.InternalError,
               tessera.OutOfMemoryError]
    assert [c.code for c in classes] == list(range(1, 9))
    assert all(issubclass(c, tessera.Error) for c in classes + [tessera.ViewsHeldError])
    assert issubclass(tessera.OutOfMemoryError, MemoryError) and issubclass(tessera.FileIOError, OSError)


def test_the_message_is_the_library_message():
    with pytest.raises(tessera.InvalidArgumentError) as caught:
        tessera.DistArray(tessera.Domain(tessera.Distribution((4,), [tessera.block()])), np.float64, ghosts=-1)
    assert str(caught.value) == "GhostSpec: argument 'lower[0]' = -1 must be >= 0"


def test_a_collective_error_is_raised_on_every_rank(comm):
    dom = tessera.Domain(tessera.Distribution((6, 4), [tessera.block(), tessera.block()]))
    a = tessera.DistArray(dom, np.float64)
    raised = False
    try:
        a.gather(root=comm.size)  # no such rank: every rank refuses before anything moves
    except tessera.InvalidArgumentError:
        raised = True
    assert all(comm.allgather(raised))


def test_overflowing_box_is_an_index_overflow_error():
    with pytest.raises(tessera.Error):
        tessera.Distribution(((-2**62,), (2**62,)), [tessera.block()], size=1)
