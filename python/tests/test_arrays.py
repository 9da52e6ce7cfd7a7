"""Arrays of every element type and dimension: NumPy views without a copy, global indices,
element access, gather and scatter, reductions, each against a serial NumPy reference."""
import numpy as np
import pytest

import tessera
from reference import fill, owned_index, values

SHAPES = {1: (13,), 2: (9, 7), 3: (5, 4, 6)}


def make(ndim, dtype, dims=None, ghosts=None):
    dims = dims or [tessera.block()] * ndim
    dom = tessera.Domain(tessera.Distribution(SHAPES[ndim], dims))
    return tessera.DistArray(dom, dtype, ghosts=ghosts)


@pytest.mark.parametrize("dtype", tessera.DTYPES)
@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_gather_of_a_filled_array_is_the_reference(dtype, ndim, comm):
    a = make(ndim, dtype)
    assert isinstance(a, tessera.DistArray) and a.dtype == np.dtype(dtype) and a.shape == SHAPES[ndim]
    ref = values(a.box, dtype)
    fill(a, ref)
    whole = a.gather(root=comm.size - 1)
    if comm.rank == comm.size - 1:
        np.testing.assert_array_equal(whole, ref)
    else:
        assert whole is None
    np.testing.assert_array_equal(a.gather_all(), ref)


@pytest.mark.parametrize("dtype", tessera.DTYPES)
def test_scatter_then_local_views_hold_the_owned_values(dtype, comm):
    a = make(2, dtype, dims=[tessera.cyclic(), tessera.block()])
    ref = values(a.box, dtype)
    a.scatter(ref if comm.rank == 0 else None, root=0)
    np.testing.assert_array_equal(a.local, ref[owned_index(a)])


def test_local_is_a_view_without_copy(comm):
    a = make(2, np.float64, ghosts=1)
    view = a.local
    assert not view.flags.owndata and view.base is not None
    view[...] = 3.0  # writes reach the array
    (lo, hi) = a.owned_box()
    if a.local.size:
        assert a[list(lo)] == 3.0
        a[list(lo)] = 5.0  # and element writes reach the view
        assert view[(0,) * 2] == 5.0
    with_ghosts = a.local_with_ghosts
    assert with_ghosts.shape == tuple(n + 2 for n in view.shape) or view.size == 0
    if view.size:
        assert np.shares_memory(view, with_ghosts)
        np.testing.assert_array_equal(with_ghosts[1:-1, 1:-1], view)


def test_element_access_outside_the_stored_part_raises_out_of_range(comm):
    a = make(1, np.int64)
    (lo, hi) = a.owned_box()
    if comm.size > 1:
        outside = hi[0] + 1 if hi[0] + 1 < 13 else lo[0] - 2
        with pytest.raises(tessera.OutOfRangeError, match="not stored on rank"):
            a[outside]
    with pytest.raises(tessera.OutOfRangeError):
        a[(100,)]


@pytest.mark.parametrize("dtype", tessera.DTYPES)
def test_reductions_equal_numpy_on_every_rank(dtype, comm):
    a = make(3, dtype, dims=[tessera.block_cyclic(2), tessera.block(), tessera.block()])
    ref = (values(a.box, np.int64) % 97 - 40).astype(dtype)
    if np.dtype(dtype).kind == "c":
        ref = ref + 1j * (ref.real % 5)
    fill(a, ref)
    assert a.sum() == ref.sum()
    if np.dtype(dtype).kind != "c":
        assert a.min() == ref.min() and a.max() == ref.max()
        v, at = a.min_loc()
        assert v == ref.min() and at == tuple(int(i) for i in np.argwhere(ref == ref.min())[0])
        v, at = a.max_loc()
        assert v == ref.max() and at == tuple(int(i) for i in np.argwhere(ref == ref.max())[0])
        np.testing.assert_array_equal(a.reduce_along(1, "max"), ref.max(axis=1))
        np.testing.assert_array_equal(a.reduce_along(2, "min"), ref.min(axis=2))
    np.testing.assert_array_equal(a.reduce_along(0, "sum"), ref.sum(axis=0))
    assert a.reduce_along(0).shape == (4, 6)
    small = make(1, dtype)
    factors = (np.arange(1, 14) % 3 + 1).astype(dtype)
    fill(small, factors)
    assert small.prod() == np.prod(factors)
    sums = comm.allgather(a.sum())
    assert all(s == sums[0] for s in sums)


def test_reduction_of_complex_has_no_order(comm):
    a = make(1, np.complex128)
    assert not hasattr(a, "min")
    with pytest.raises(tessera.InvalidArgumentError, match="complex"):
        a.reduce_along(0, "max")


def test_bad_dtype_is_refused():
    dom = tessera.Domain(tessera.Distribution((4,), [tessera.block()]))
    with pytest.raises(tessera.InvalidArgumentError, match="dtype"):
        tessera.DistArray(dom, np.int8)


def test_a_rank_that_owns_nothing_has_an_empty_view(comm):
    # 2 indices over every rank: on 3 and 4 ranks, ranks 2 and 3 own nothing.
    dom = tessera.Domain(tessera.Distribution((2,), [tessera.block()]))
    a = tessera.DistArray(dom, np.float64, ghosts=1)
    assert a.local.size == dom.distribution.local_size(comm.rank)
    a.local[...] = 4.0
    a.update_ghosts()
    np.testing.assert_array_equal(a.gather_all(), np.full(2, 4.0))
