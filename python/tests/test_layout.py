"""Distributions from builders and from spec text, checked against the ownership they describe."""
import numpy as np
import pytest

import tessera


def test_block_distribution_owns_every_index_once(comm):
    dist = tessera.Distribution((10, 7), [tessera.block(), tessera.block()])
    assert isinstance(dist, tessera.Distribution)
    assert dist.ndim == 2 and dist.shape == (10, 7) and dist.comm_size == comm.size
    owners = np.array([[dist.owner([i, j]) for j in range(7)] for i in range(10)])
    for r in range(comm.size):
        (lo, hi) = dist.owned_box(r)
        assert (owners[lo[0]:hi[0], lo[1]:hi[1]] == r).all()
        assert dist.local_size(r) == (owners == r).sum()


def test_cut_cyclic_and_block_cyclic_follow_their_rules(comm):
    p = comm.size
    cyc = tessera.Distribution((12,), [tessera.cyclic()])
    assert [cyc.owner([i]) for i in range(12)] == [i % p for i in range(12)]
    bc = tessera.Distribution((12,), [tessera.block_cyclic(2)])
    assert [bc.owner([i]) for i in range(12)] == [(i // 2) % p for i in range(12)]
    bounds = [0] + [2 * (k + 1) for k in range(p - 1)] + [12]
    cut = tessera.Distribution((12,), [tessera.cut(bounds)])
    for r in range(p):
        assert cut.owned_box(r) == ((bounds[r],), (bounds[r + 1],))
    assert repr(tessera.block_cyclic(4)) == "block_cyclic(4)"


def test_grid_box_with_lower_bounds_and_collapsed_axis(comm):
    dist = tessera.Distribution(((5, -3), (15, 4)), [tessera.block(), tessera.collapsed()], grid=(comm.size, 1))
    assert dist.box == ((5, -3), (15, 4)) and dist.grid_shape == (comm.size, 1)
    assert dist.owner([5, -3]) == 0 and dist.owner([14, 3]) == comm.size - 1


def test_from_spec_gives_distribution_and_ghosts(comm):
    dist, ghosts = tessera.from_spec("domain=12x18 dist=block,block ghosts=1p")
    assert dist.shape == (12, 18)
    assert ghosts.lists(2) == ([1, 1], [1, 1], [True, True], True)
    same = tessera.Distribution((12, 18), [tessera.block(), tessera.block()])
    assert dist == same and hash(dist) == hash(same)


def test_bad_spec_and_bad_builder_raise_invalid_argument_with_the_library_message(comm):
    with pytest.raises(tessera.InvalidArgumentError, match="at column"):
        tessera.from_spec("domain=10 dist=cut(0,5,9)")
    with pytest.raises(tessera.InvalidArgumentError):
        tessera.Distribution((10,), [tessera.cut([0, 20])], size=1)
    with pytest.raises(tessera.InvalidArgumentError, match="dimensions"):
        tessera.Distribution((2, 2, 2, 2), [tessera.block()] * 4)
    with pytest.raises(ValueError):  # the subclasses are also the matching builtin errors
        tessera.from_spec("domain=")


def test_relabel_for_locality_keeps_the_cut():
    a = tessera.Distribution((8, 8), [tessera.block(), tessera.block()], grid=(2, 2), size=4)
    b = tessera.Distribution((8, 8), [tessera.block(), tessera.block()], grid=(4, 1), size=4)
    r = tessera.relabel_for_locality(a, b)
    assert sorted(r.local_size(k) for k in range(4)) == sorted(b.local_size(k) for k in range(4))
