"""Disjoint processor groups from Python (tessera.ProcessorGroups: ZPL's disjoint grids) and the
copies between two groups' arrays against serial NumPy references, on any number of ranks (ranks
in no group take part in the copies too), and bad input raising on every rank."""
import numpy as np
import pytest

import tessera
from reference import fill, values


def split(size):
    """Group 0: every third rank from 0, in reverse order; group 1: every third rank from 1; the
    ranks from 2 in no group. One group on one rank."""
    first = list(range(0, size, 3))[::-1]
    return [first] if size == 1 else [first, list(range(1, size, 3))]


def test_groups_split_the_communicator(comm):
    lists = split(comm.size)
    groups = tessera.ProcessorGroups(lists)
    assert groups.count == len(lists)
    for g, ranks in enumerate(lists):
        assert groups.size(g) == len(ranks) and groups.parent_ranks(g) == ranks
        for i, r in enumerate(ranks):
            assert groups.group_rank(g, r) == i and groups.group_of(r) == g
    mine = groups.my_group
    assert mine == groups.group_of(comm.rank) == (comm.rank % 3 if comm.rank % 3 < len(lists) else None)
    if mine is None:
        with pytest.raises(tessera.InvalidArgumentError, match="is in no group"):
            groups.comm
        return
    gc = groups.comm
    assert gc is groups.comm
    assert gc.allgather(comm.rank) == lists[mine]  # a collective on the group sees its ranks only
    # A domain and an array over the group's communicator, with a distribution for its ranks.
    box = ((0, 0), (5, 4))
    dist = tessera.Distribution(box, [tessera.cyclic(), tessera.block()], size=gc.Get_size())
    a = tessera.DistArray(tessera.Domain(dist, comm=gc), np.int64)
    fill(a, values(box, np.int64))
    np.testing.assert_array_equal(a.gather_all(), values(box, np.int64))


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_copy_between_groups_and_a_section_back(comm, dtype):
    if comm.size == 1:
        pytest.skip("one rank: one group, nothing to copy between")
    groups = tessera.ProcessorGroups(split(comm.size))
    box = ((0, -1), (7, 5))
    a_dist = tessera.Distribution(box, [tessera.block(), tessera.block()], size=groups.size(0))
    b_dist = tessera.Distribution(box, [tessera.cyclic(), tessera.block()], size=groups.size(1))

    def array_on(g, dist, ghosts):
        if groups.my_group != g:
            return None
        return tessera.DistArray(tessera.Domain(dist, comm=groups.comm), dtype, ghosts=ghosts)

    a, b = array_on(0, a_dist, 1), array_on(1, b_dist, None)
    ref = values(box, dtype)
    if a is not None:
        fill(a, ref)
    tessera.copy_between_groups(groups, 0, a_dist, a, 1, b_dist, b, dtype=dtype)
    if b is not None:
        np.testing.assert_array_equal(b.gather_all(), ref)
        fill(b, ref * 2)
    # Rows 1..3, columns 0..2 of b onto rows 3..5, columns 1..3 of a (indices from the box's lo).
    tessera.copy_section_between_groups(groups, 1, b_dist, b, ((1, 0), (4, 3)), 0, a_dist, a, (3, 1), dtype=dtype)
    if a is not None:
        want = ref.copy()
        want[3:6, 2:5] = (ref * 2)[1:4, 1:4]
        np.testing.assert_array_equal(a.gather_all(), want)


def test_bad_groups_and_copies_raise_on_every_rank(comm):
    with pytest.raises(tessera.InvalidArgumentError, match="is also in groups"):
        tessera.ProcessorGroups([[0], [0]])
    with pytest.raises(tessera.InvalidArgumentError, match="lies outside"):
        tessera.ProcessorGroups([[comm.size]])
    groups = tessera.ProcessorGroups(split(comm.size))
    other = groups.count - 1  # one rank: group 0 again
    a_dist = tessera.Distribution((4, 3), [tessera.block(), tessera.block()], size=groups.size(0))
    b_dist = tessera.Distribution((4, 3), [tessera.block(), tessera.block()], size=groups.size(other))
    a = tessera.DistArray(tessera.Domain(a_dist, comm=groups.comm)) if groups.my_group == 0 else None
    b = tessera.DistArray(tessera.Domain(b_dist, comm=groups.comm)) if groups.my_group == other else None
    if other == 0:
        b = a
        with pytest.raises(tessera.InvalidArgumentError, match="are both 0"):
            tessera.copy_between_groups(groups, 0, a_dist, a, 0, a_dist, a)
    # Arrays of another element type than named: raised on every rank, those without arrays too.
    with pytest.raises(tessera.InvalidArgumentError, match="not a DistArray_float32_2D"):
        tessera.copy_between_groups(groups, 0, a_dist, a, other, b_dist, b, dtype=np.float32)
    # An array missing on the ranks of its group.
    with pytest.raises(tessera.InvalidArgumentError, match="is null on parent rank"):
        tessera.copy_between_groups(groups, 0, a_dist, None, other, b_dist, b)
