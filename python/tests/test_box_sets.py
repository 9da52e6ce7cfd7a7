"""Box-set distributions from Python: an L-shaped set with a hole, owners from each policy, the
set read back, ghost updates across boxes and ranks against the serial image, and bad input."""
import numpy as np
import pytest

import tessera

# [0,8)x[0,8) less the hole [4,8)x[4,8), in four boxes.
BOXES = [((0, 0), (4, 4)), ((0, 4), (4, 8)), ((4, 0), (8, 2)), ((4, 2), (8, 4))]


def image():
    i, j = np.meshgrid(np.arange(8), np.arange(8), indexing="ij")
    return (10 * i + j + 1).astype(np.float64)


@pytest.mark.parametrize("policy", ["knapsack", "morton"])
def test_l_shape_with_a_hole(comm, policy):
    owners = tessera.assign_boxes(BOXES, policy)
    assert all(0 <= o < comm.Get_size() for o in owners)
    dist = tessera.box_set(BOXES, owners, domain=(8, 8))
    boxes, back = dist.box_set
    assert [tuple(map(tuple, b)) for b in boxes] == BOXES and list(back) == list(owners)
    assert dist.owner([5, 1]) == owners[2]
    with pytest.raises(tessera.OutOfRangeError):
        dist.owner([6, 6])  # the hole: nobody's
    u = tessera.DistArray(tessera.Domain(dist), np.float64, ghosts=1)
    ref = image()
    u.scatter(ref if comm.Get_rank() == 0 else None)
    u.update_ghosts()
    for k in range(u.patch_count):
        (lo, hi) = u.owned_box(k)
        view = u.local_patch(k, with_ghosts=True)
        for a in range(view.shape[0]):
            for b in range(view.shape[1]):
                i, j = lo[0] - 1 + a, lo[1] - 1 + b
                if 0 <= i < 8 and 0 <= j < 8 and not (i >= 4 and j >= 4):
                    assert view[a, b] == ref[i, j], (k, i, j)
        del view
    whole = u.gather_all()
    expected = ref.copy()
    expected[4:, 4:] = 0  # the hole: what the fresh image held
    np.testing.assert_array_equal(whole, expected)


def test_bad_box_sets_raise(comm):
    with pytest.raises(tessera.InvalidArgumentError):
        tessera.box_set([((0, 0), (4, 4)), ((3, 3), (5, 5))], [0, 0])  # overlapping
    with pytest.raises(tessera.OutOfRangeError):
        tessera.box_set(BOXES, [0] * 4, domain=(6, 6))  # a box outside the domain
    with pytest.raises(tessera.InvalidArgumentError):
        tessera.box_set(BOXES, [0, 0, 0, comm.Get_size()])  # an owner that is not a rank
    with pytest.raises(tessera.InvalidArgumentError):
        tessera.assign_boxes(BOXES, "round-robin")
    assert tessera.Distribution((4, 4), [tessera.block(), tessera.block()]).box_set is None
