"""copy, copy_section, flood and transpose between arrays of different distributions."""
import numpy as np
import pytest

import tessera
from reference import fill, owned_index, values


def array(shape, dims, dtype=np.float64):
    return tessera.DistArray(tessera.Domain(tessera.Distribution(shape, dims)), dtype)


def test_transpose_2d_and_3d(comm):
    a = array((6, 9), [tessera.block(), tessera.cyclic()])
    b = array((9, 6), [tessera.block(), tessera.block()])
    ref = values(a.box, np.float64)
    fill(a, ref)
    tessera.transpose(a, b, [1, 0])
    np.testing.assert_array_equal(b.gather_all(), ref.T)
    c = array((3, 4, 5), [tessera.block()] * 3, np.complex128)
    d = array((5, 3, 4), [tessera.cyclic(), tessera.block(), tessera.block()], np.complex128)
    ref3 = values(c.box, np.complex128)
    fill(c, ref3)
    tessera.transpose(c, d, [2, 0, 1])
    np.testing.assert_array_equal(d.gather_all(), np.transpose(ref3, (2, 0, 1)))


def test_transpose_with_wrong_shape_raises_on_every_rank(comm):
    a = array((6, 9), [tessera.block(), tessera.block()])
    b = array((6, 9), [tessera.block(), tessera.block()])
    with pytest.raises(tessera.Error):
        tessera.transpose(a, b, [1, 0])


def test_copy_across_distributions(comm):
    a = array((10, 5), [tessera.block(), tessera.block()], np.int64)
    b = array((10, 5), [tessera.block_cyclic(2), tessera.collapsed()], np.int64)
    ref = values(a.box, np.int64)
    fill(a, ref)
    tessera.copy(a, b)
    np.testing.assert_array_equal(b.gather_all(), ref)


def test_copy_section_shifts_a_box(comm):
    a = array((8, 8), [tessera.block(), tessera.block()])
    b = array((8, 8), [tessera.cyclic(), tessera.block()])
    ref = values(a.box, np.float64)
    fill(a, ref)
    tessera.copy_section(a, ((1, 2), (4, 6)), b, [3, 0])
    expected = np.zeros((8, 8))
    expected[3:6, 0:4] = ref[1:4, 2:6]
    np.testing.assert_array_equal(b.gather_all(), expected)
    tessera.copy_section(a, ((0, 0), (2, 8)), a, [6, 0])  # within one array
    ref[6:8, :] = ref[0:2, :]
    np.testing.assert_array_equal(a.gather_all(), ref)


def test_remap_between_different_element_types_is_a_type_error(comm):
    a = array((4,), [tessera.block()], np.float64)
    b = array((4,), [tessera.block()], np.float32)
    with pytest.raises(TypeError):
        tessera.copy(a, b)


def test_domains_over_one_communicator_share_it_and_over_another_do_not(comm):
    dist = tessera.Distribution((6,), [tessera.block()])
    a = tessera.DistArray(tessera.Domain(dist), np.float64)
    b = tessera.DistArray(tessera.Domain(dist, comm=comm), np.float64)  # the same MPI_COMM_WORLD
    a.fill(1.0)
    tessera.copy(a, b)
    assert b.sum() == 6.0
    other = comm.Dup()
    c = tessera.DistArray(tessera.Domain(dist, comm=other), np.float64)
    with pytest.raises(tessera.InvalidArgumentError, match="Communicator"):
        tessera.copy(a, c)
    other.Free()


def test_flood_fills_every_replica(comm):
    a = array((6, 9), [tessera.block(), tessera.block()], np.int64)
    ref = values(a.box, np.int64)
    fill(a, ref)
    panel = array((6, 2), [tessera.block(), tessera.flooded()], np.int64)
    assert "flooded" in str(panel.domain.distribution)
    tessera.flood(a, ((0, 5), (6, 7)), panel)
    local = panel.local  # this rank's replica: every column of the panel, its rows
    np.testing.assert_array_equal(local, ref[:, 5:7][owned_index(panel)])
    if local.size:
        assert local.shape[1] == 2  # a replica holds the whole flooded axis
    del local
    np.testing.assert_array_equal(panel.gather_all(), ref[:, 5:7])
    with pytest.raises(tessera.InvalidArgumentError):
        tessera.flood(a, ((0, 0), (6, 3)), panel)  # the slice is wider than the panel


@pytest.mark.parametrize("flooded", [False, True])
def test_reduce_into_a_distributed_array(comm, flooded):
    a = array((6, 9), [tessera.block(), tessera.cyclic()], np.int64)
    ref = values(a.box, np.int64)
    fill(a, ref)
    for axis in (0, 1):
        dist = tessera.reduced_distribution(a.domain.distribution, [axis], flooded)
        r = tessera.DistArray(tessera.Domain(dist), np.int64)
        for op, fold in (("sum", np.sum), ("min", np.min), ("max", np.max)):
            tessera.reduce_into(a, [axis], r, op)
            expected = fold(ref, axis=axis, keepdims=True)
            np.testing.assert_array_equal(r.gather_all(), expected)
            local = r.local  # every replica of a flooded result, this rank's part of an aligned one
            np.testing.assert_array_equal(local, expected[owned_index(r)])
            del local
        with pytest.raises(tessera.InvalidArgumentError):
            tessera.reduce_into(a, [-1], r)
        with pytest.raises(tessera.InvalidArgumentError):
            tessera.reduce_into(a, [axis], r, "median")
        with pytest.raises(tessera.InvalidArgumentError):
            tessera.reduce_into(a, [1 - axis], r)  # r is not over that reduced box
