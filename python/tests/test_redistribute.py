"""Redistributions (preserving and destructive), migrations, and the view rule: storage that a
redistribution frees cannot be reached from a NumPy view."""
import gc

import numpy as np
import pytest

import tessera
from reference import fill, values


def two_arrays(shape=(12, 10), ghosts=1):
    dom = tessera.Domain(tessera.Distribution(shape, [tessera.block(), tessera.block()]))
    u = tessera.DistArray(dom, np.float64, ghosts=ghosts)
    k = tessera.DistArray(dom, np.int32)
    return dom, u, k


def columns(shape, comm):
    """block x block on a 1 x P grid: intervals along both axes, so ghost layers stay possible."""
    return tessera.Distribution(shape, [tessera.block(), tessera.block()], grid=(1, comm.size))


def test_preserving_redistribution_keeps_every_value(comm):
    dom, u, k = two_arrays(ghosts=None)  # no ghosts: the target is cyclic
    ref_u, ref_k = values(u.box, np.float64), values(k.box, np.int32)
    fill(u, ref_u)
    fill(k, ref_k)
    dom.redistribute(tessera.Distribution((12, 10), [tessera.cyclic(), tessera.block_cyclic(3)]))
    np.testing.assert_array_equal(u.gather_all(), ref_u)
    np.testing.assert_array_equal(k.gather_all(), ref_k)
    assert "cyclic" in repr(dom.distribution)


def test_ghost_layers_follow_a_redistribution(comm):
    dom, u, _ = two_arrays()
    ref = values(u.box, np.float64)
    fill(u, ref)
    dom.redistribute(columns((12, 10), comm))
    u.update_ghosts()
    (lo, hi) = u.owned_box()
    padded = np.pad(ref, 1)
    np.testing.assert_array_equal(u.local_with_ghosts, padded[lo[0]:hi[0] + 2, lo[1]:hi[1] + 2])


def test_redistribution_to_a_larger_box_keeps_common_values_and_zeroes_new_ones(comm):
    dom, u, _ = two_arrays()
    ref = values(u.box, np.float64)
    fill(u, ref)
    dom.redistribute(tessera.Distribution((14, 10), [tessera.block(), tessera.block()]))
    got = u.gather_all()
    np.testing.assert_array_equal(got[:12], ref)
    assert (got[12:] == 0).all()


def test_destructive_redistribution_reshapes_and_zeroes(comm):
    dom, u, _ = two_arrays()
    u.fill(7.0)
    to = columns((12, 10), comm)
    dom.redistribute(to, tessera.Redistribution.destructive)
    assert dom.distribution == to
    assert u.sum() == 0.0


def test_migrate_moves_values_incrementally(comm):
    ref = values(((0, 0), (16, 4)), np.float64)
    p = comm.size
    bounds = [0] + [min(16, 1 + 3 * (r + 1)) for r in range(p - 1)] + [16]
    to = tessera.Distribution((16, 4), [tessera.cut(bounds), tessera.block()], grid=(p, 1))
    dom2 = tessera.Domain(tessera.Distribution((16, 4), [tessera.block(), tessera.block()], grid=(p, 1)))
    w = tessera.DistArray(dom2, np.float64)
    fill(w, ref)
    seconds = dom2.migrate(to)
    assert seconds >= 0
    np.testing.assert_array_equal(w.gather_all(), ref)


def test_views_block_redistribution_on_every_rank_and_nothing_moves(comm):
    dom, u, _ = two_arrays()
    ref = values(u.box, np.float64)
    fill(u, ref)
    before = dom.distribution
    view = u.local if comm.rank == comm.size - 1 else None  # a view on one rank only
    to = columns((12, 10), comm)
    with pytest.raises(tessera.ViewsHeldError, match=f"alive on rank\\(s\\) {comm.size - 1}"):
        dom.redistribute(to)
    with pytest.raises(tessera.ViewsHeldError):
        dom.migrate(to)
    assert dom.distribution == before
    np.testing.assert_array_equal(u.gather_all(), ref)
    del view
    dom.redistribute(to)  # no view left: it moves
    np.testing.assert_array_equal(u.gather_all(), ref)


def test_slices_of_a_view_count_as_views(comm):
    dom, u, _ = two_arrays()
    part = u.local_with_ghosts[1:, :]  # a NumPy view of the view keeps the guard alive
    assert dom.live_views == 1
    with pytest.raises(tessera.ViewsHeldError):
        dom.redistribute(tessera.Distribution((12, 10), [tessera.cyclic(), tessera.block()]))
    del part
    gc.collect()
    assert dom.live_views == 0


def test_a_view_keeps_its_array_alive(comm):
    dom, u, _ = two_arrays()
    u.fill(2.5)
    view = u.local
    del u
    gc.collect()
    assert dom.array_count == 2  # the array lives while the view does
    assert (view == 2.5).all()
    del view
    gc.collect()
    assert dom.array_count == 1
