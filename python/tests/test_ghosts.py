"""Ghost updates (blocking, split phase, accumulate) against a padded NumPy reference."""
import numpy as np
import pytest

import tessera
from reference import fill, values


def padded_reference(ref, lo, hi, width, periodic):
    """The values a rank's local_with_ghosts must hold after an update: the global image padded
    periodically (or left zero along non-periodic edges), cut to the rank's stored box."""
    mode = "wrap" if periodic else "constant"
    padded = np.pad(ref, width, mode=mode)
    return padded[tuple(slice(l, h + 2 * width) for l, h in zip(lo, hi))]


@pytest.mark.parametrize("periodic", [True, False])
@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_update_ghosts_fills_the_neighbours_values(ndim, periodic, comm):
    shape = {1: (11,), 2: (8, 6), 3: (6, 5, 4)}[ndim]
    dom = tessera.Domain(tessera.Distribution(shape, [tessera.block()] * ndim))
    a = tessera.DistArray(dom, np.float64, ghosts=tessera.Ghosts(1, periodic=periodic))
    ref = values(a.box, np.float64)
    fill(a, ref)
    a.update_ghosts()
    (lo, hi) = a.owned_box()
    expected = padded_reference(ref, lo, hi, 1, periodic)
    np.testing.assert_array_equal(a.local_with_ghosts, expected)


def test_split_phase_update_and_interior_work_between(comm):
    dom = tessera.Domain(tessera.Distribution((16, 9), [tessera.block(), tessera.block()]))
    a = tessera.DistArray(dom, np.int32, ghosts=tessera.Ghosts(2, periodic=True, corners=False))
    ref = values(a.box, np.int32)
    fill(a, ref)
    a.begin_update_ghosts()
    assert a.ghost_update_in_flight
    interior_sum = int(a.local.sum())  # work on the owned part while the ghosts travel
    a.end_update_ghosts()
    assert not a.ghost_update_in_flight
    (lo, hi) = a.owned_box()
    expected = padded_reference(ref, lo, hi, 2, True)
    got = a.local_with_ghosts
    # faces only: compare the owned rows with all columns and the owned columns with all rows
    np.testing.assert_array_equal(got[2:-2, :], expected[2:-2, :])
    np.testing.assert_array_equal(got[:, 2:-2], expected[:, 2:-2])
    assert interior_sum == int(ref[lo[0]:hi[0], lo[1]:hi[1]].sum())


def test_end_without_begin_raises_on_every_rank(comm):
    dom = tessera.Domain(tessera.Distribution((8,), [tessera.block()]))
    a = tessera.DistArray(dom, np.float64, ghosts=1)
    with pytest.raises(tessera.Error):
        a.end_update_ghosts()


def test_accumulate_ghosts_adds_ghost_values_into_their_owners(comm):
    n = 10
    dom = tessera.Domain(tessera.Distribution((n,), [tessera.block()]))
    a = tessera.DistArray(dom, np.int64, ghosts=tessera.Ghosts(1, periodic=True))
    a.fill(1)  # owned and ghost cells: each ghost adds 1 to its owner
    a.accumulate_ghosts(tessera.CombineOp.add)
    expected = np.ones(n, dtype=np.int64)
    for r in range(comm.size):
        (lo, hi) = dom.distribution.owned_box(r)
        if hi[0] > lo[0]:
            expected[(lo[0] - 1) % n] += 1
            expected[hi[0] % n] += 1
    np.testing.assert_array_equal(a.gather_all(), expected)
