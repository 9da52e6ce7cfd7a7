"""Regions, sparse subdomains and associative domains from Python against serial references
(plain sets and dicts built on every rank from every rank's batch), and bad input raising on
every rank."""
import itertools

import numpy as np
import pytest

import tessera

# Parent boxes of 1, 2 and 3 dimensions (small: every rank rebuilds every rank's batch).
SHAPES = {1: (23,), 2: (9, 8), 3: (5, 4, 6)}


def batch(rank, shape, count, salt):
    """Rank `rank`'s batch of points (with repeats), the same on every rank that asks."""
    rng = np.random.default_rng(1000 * salt + rank)
    return np.stack([rng.integers(0, n, count) for n in shape], axis=1).astype(np.int64)


def point_set(points):
    return {tuple(int(x) for x in p) for p in points}


def sparse_reference(size, shape):
    """The set after every rank added its batch and removed another."""
    added = set().union(*[point_set(batch(r, shape, 12, 1)) for r in range(size)])
    removed = set().union(*[point_set(batch(r, shape, 4, 2)) for r in range(size)])
    return added - removed


def value_at(p):
    return float(sum((d + 3) * (x + 1) for d, x in enumerate(p)))


def make_sparse(comm, shape, dtype):
    dist = tessera.Distribution(shape, [tessera.block()] * len(shape))
    parent = tessera.Domain(dist)
    sparse = tessera.SparseDomain(parent, batch(comm.Get_rank(), shape, 12, 1))
    sparse.remove(batch(comm.Get_rank(), shape, 4, 2))
    a = tessera.SparseArray(sparse, dtype)
    values = a.values
    values[:] = [value_at(p) for p in sparse.local_points()]
    del values
    return parent, sparse, a


def test_region_follows_its_domain(comm):
    dist = tessera.Distribution((12, 10), [tessera.block(), tessera.block()])
    grid = tessera.Domain(dist)
    interior = grid.region(((1, 1), (11, 9)))
    assert interior.is_region and not grid.is_region and interior.box == ((1, 1), (11, 9))
    for p in itertools.product(range(1, 11), range(1, 9)):
        assert interior.distribution.owner(list(p)) == dist.owner(list(p))
    f = tessera.DistArray(interior, np.float64)
    i, j = np.meshgrid(np.arange(1, 11), np.arange(1, 9), indexing="ij")
    ref = (100 * i + j).astype(np.float64)
    f.scatter(ref if comm.Get_rank() == 0 else None)
    grid.redistribute(tessera.Distribution((12, 10), [tessera.cyclic(), tessera.block()]))
    np.testing.assert_array_equal(f.gather_all(), ref)
    with pytest.raises(tessera.OutOfRangeError):
        grid.region(((0, 0), (13, 10)))
    with pytest.raises(tessera.InvalidArgumentError):
        grid.region(((5, 5), (4, 6)))


@pytest.mark.parametrize("ndim", [1, 2, 3])
@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_sparse_set_and_values_match_the_serial_set(comm, ndim, dtype):
    shape = SHAPES[ndim]
    parent, sparse, a = make_sparse(comm, shape, dtype)
    ref = sparse_reference(comm.Get_size(), shape)
    assert sparse.size() == len(ref)
    mine = point_set(sparse.local_points())
    assert len(mine) == sparse.local_size
    assert all(parent.distribution.owner(list(p)) == comm.Get_rank() for p in mine)
    assert set().union(*comm.allgather(mine)) == ref
    asked = batch(comm.Get_rank(), shape, 10, 3)
    assert list(sparse.contains(asked)) == [tuple(int(x) for x in p) in ref for p in asked]
    assert a.sum() == sum(dtype(value_at(p)) for p in ref)
    assert a.min() == min(dtype(value_at(p)) for p in ref)
    assert a.max() == max(dtype(value_at(p)) for p in ref)
    points, values = a.gather_to(0)
    if comm.Get_rank() == 0:
        assert [tuple(p) for p in points] == sorted(ref)
        assert list(values) == [dtype(value_at(p)) for p in sorted(ref)]
    else:
        assert len(points) == 0 and len(values) == 0
    # The sparse set and its values follow the parent's redistribution.
    parent.redistribute(tessera.Distribution(shape, [tessera.cyclic()] * ndim))
    assert all(parent.distribution.owner(list(p)) == comm.Get_rank() for p in point_set(sparse.local_points()))
    points, values = a.gather_to(0)
    if comm.Get_rank() == 0:
        assert list(values) == [dtype(value_at(p)) for p in sorted(ref)]


def offsets_of(ndim, width, corners):
    every = itertools.product(range(-width, width + 1), repeat=ndim)
    return [o for o in every if any(o) and (corners or sum(1 for x in o if x) == 1)]


@pytest.mark.parametrize("ndim", [1, 2, 3])
@pytest.mark.parametrize("ghosts", ["corners", "faces_only", "periodic", "offsets"])
def test_sparse_ghosts_find_the_held_neighbours(comm, ndim, ghosts):
    shape = SHAPES[ndim]
    _, sparse, a = make_sparse(comm, shape, np.float64)
    ref = sparse_reference(comm.Get_size(), shape)
    periodic = ghosts == "periodic"
    if ghosts == "offsets":
        offsets = [tuple(2 if d == 0 else -1 for d in range(ndim)), tuple([0] * (ndim - 1) + [3])]
        a.update_offsets(np.array(offsets), periodic=[True] + [False] * (ndim - 1))
        wrap = [True] + [False] * (ndim - 1)
    else:
        a.update_ghosts(tessera.Ghosts(2 if ghosts == "corners" else 1, periodic=periodic, corners=ghosts != "faces_only"))
        offsets = offsets_of(ndim, 2 if ghosts == "corners" else 1, ghosts != "faces_only")
        wrap = [periodic] * ndim
    for p in point_set(sparse.local_points()):
        assert a.find(list(p)) == value_at(p)
        for o in offsets:
            q = [x + d for x, d in zip(p, o)]
            w = tuple(x % n if wrap[k] else x for k, (x, n) in enumerate(zip(q, shape)))
            expected = value_at(w) if w in ref else None
            assert a.find(q) == expected, (p, o)


def test_sparse_bad_input_raises_on_every_rank(comm):
    rank, size = comm.Get_rank(), comm.Get_size()
    parent = tessera.Domain(tessera.Distribution((6, 6), [tessera.block(), tessera.block()]))
    sparse = tessera.SparseDomain(parent)
    last = rank == size - 1
    with pytest.raises(tessera.OutOfRangeError):
        sparse.add(np.array([[6, 0]] if last else [[1, 1]]))  # outside the parent, on one rank
    assert sparse.size() == 0  # nothing changed anywhere
    with pytest.raises(tessera.InvalidArgumentError):
        sparse.add(np.array([[1, 2, 3]] if last else [[1, 1]]))  # wrong shape, on one rank
    with pytest.raises(tessera.InvalidArgumentError):
        sparse.contains("not points" if last else [[1, 1]])
    a = tessera.SparseArray(sparse, np.int64)
    with pytest.raises(tessera.InvalidArgumentError):
        a.min()  # an empty set has no minimum
    with pytest.raises(tessera.InvalidArgumentError):
        a.gather_to(size)
    with pytest.raises(tessera.InvalidArgumentError):
        a.update_ghosts(tessera.Ghosts(-1))
    with pytest.raises(tessera.InvalidArgumentError):
        tessera.SparseArray(sparse, np.float32)
    sparse.add(np.array([[rank % 6, 0]]))
    view = a.values if rank == 0 else None  # a view alive on rank 0 only
    with pytest.raises(tessera.ViewsHeldError):
        sparse.add(np.array([[0, 1]]))
    with pytest.raises(tessera.ViewsHeldError):
        parent.redistribute(tessera.Distribution((6, 6), [tessera.cyclic(), tessera.block()]))
    del view
    sparse.add(np.array([[0, 1]]))
    assert sparse.size() == len({(r % 6, 0) for r in range(size)} | {(0, 1)})


def key_batch(rank, count, salt):
    rng = np.random.default_rng(100 * salt + rank)
    return rng.integers(-(2**40), 2**40, count).astype(np.int64) // 2**30  # about 2000 keys: repeats


@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_associative_domain_and_array_match_serial_dicts(comm, dtype):
    rank, size = comm.Get_rank(), comm.Get_size()
    domain = tessera.AssociativeDomain(keys=key_batch(rank, 30, 1))
    domain.remove(key_batch(rank, 10, 2))
    keys = set().union(*[set(key_batch(r, 30, 1).tolist()) for r in range(size)])
    keys -= set().union(*[set(key_batch(r, 10, 2).tolist()) for r in range(size)])
    assert domain.size() == len(keys)
    assert set().union(*comm.allgather(set(domain.local_keys().tolist()))) == keys
    asked = key_batch(rank, 15, 3)
    assert list(domain.contains(asked)) == [int(k) in keys for k in asked]

    a = tessera.AssociativeArray(domain, dtype)
    ref = dict.fromkeys(keys, dtype(0))
    # add with insert_missing: every rank's batch (new keys too), integer values so sums are exact.
    for r in range(size):
        for k, v in zip(key_batch(r, 20, 4).tolist(), range(20)):
            ref[k] = ref.get(k, dtype(0)) + dtype(v + r)
    a.update(key_batch(rank, 20, 4), np.arange(20) + rank, tessera.CombineOp.add, insert_missing=True)
    assert domain.size() == len(ref)
    # max and replace on keys that exist.
    listed = sorted(ref)
    mine = listed[rank::size]
    a.update(mine, [7 * (k % 5) for k in mine], tessera.CombineOp.max)
    for k in listed:
        ref[k] = max(ref[k], dtype(7 * (k % 5)))
    a.update(listed[rank::2 * size], [-k for k in listed[rank::2 * size]])
    for r in range(size):
        for k in listed[r::2 * size]:
            ref[k] = dtype(-k)
    asked = listed[(rank * 3) % len(listed)::3]
    np.testing.assert_array_equal(a.lookup(asked), [ref[k] for k in asked])
    assert domain.buffer_bytes >= 64 * 1024  # the receive room, kept from the first batch on
    if rank == 0:
        domain.release_buffers()  # local: the other ranks keep theirs
        assert domain.buffer_bytes == 0
    np.testing.assert_array_equal(a.lookup(asked), [ref[k] for k in asked])
    assert dict(zip(domain.local_keys().tolist(), a.local_values().tolist())) == {
        k: ref[k] for k in domain.local_keys().tolist()}
    assert a.sum() == sum(ref.values())
    assert a.min() == min(ref.values()) and a.max() == max(ref.values())
    missing = max(keys) + 1
    np.testing.assert_array_equal(a.lookup([missing, listed[0]], missing=5), [5, ref[listed[0]]])


def test_associative_bad_input_raises_on_every_rank(comm):
    rank, size = comm.Get_rank(), comm.Get_size()
    last = rank == size - 1
    domain = tessera.AssociativeDomain(keys=[1, 2, 3])
    a = tessera.AssociativeArray(domain, np.int64)
    with pytest.raises(tessera.OutOfRangeError):
        a.lookup([99] if last else [1])  # a key not in the domain, asked on one rank
    with pytest.raises(tessera.OutOfRangeError):
        a.update([99] if last else [1], [1])  # missing key without insert_missing
    with pytest.raises(tessera.InvalidArgumentError):
        a.update([1, 2], [1])  # keys and values of different lengths
    with pytest.raises(tessera.InvalidArgumentError):
        domain.insert([[1, 2]] if last else [4])  # not a 1-D batch, on one rank
    with pytest.raises(tessera.InvalidArgumentError):
        a.update([1], ["x"] if last else [1])  # values NumPy cannot convert, on one rank
    assert domain.size() == 3 and list(a.lookup([1, 2, 3])) == [0, 0, 0]
    empty = tessera.AssociativeArray(tessera.AssociativeDomain(), np.float64)
    with pytest.raises(tessera.InvalidArgumentError):
        empty.max()
    with pytest.raises(tessera.InvalidArgumentError):
        tessera.AssociativeArray(domain, np.int32)


def test_associative_str_keys_count_words(comm):
    rank, size = comm.Get_rank(), comm.Get_size()
    words = ["dog", "cat", "emu", "yak", "owl", "ant", "bee"]

    def mine(r):
        return [words[(r * 3 + k * k) % len(words)] + str(k % 2) for k in range(9)]

    domain = tessera.AssociativeDomain(key_type=str)
    counts = tessera.AssociativeArray(domain, np.int64)
    counts.update(mine(rank), np.ones(9), tessera.CombineOp.add, insert_missing=True)
    ref = {}
    for r in range(size):
        for w in mine(r):
            ref[w] = ref.get(w, 0) + 1
    assert domain.key_type == "str" and domain.size() == len(ref)
    assert set().union(*comm.allgather(set(domain.local_keys()))) == set(ref)
    assert dict(zip(domain.local_keys(), counts.local_values().tolist())) == {k: ref[k] for k in domain.local_keys()}
    asked = sorted(ref)[rank % len(ref):]
    assert list(counts.lookup(asked)) == [ref[w] for w in asked]
    assert list(domain.contains(["dog0", "gnu"])) == ["dog0" in ref, False]
    assert counts.sum() == sum(ref.values()) and counts.max() == max(ref.values())
    domain.remove(["dog0", "dog1"])
    assert domain.size() == len(set(ref) - {"dog0", "dog1"})
    with pytest.raises(tessera.InvalidArgumentError):
        domain.insert([1, 2] if rank == size - 1 else ["x"])  # not str, on one rank
    with pytest.raises(tessera.OutOfRangeError):
        counts.lookup(["gnu"] if rank == 0 else [])
    with pytest.raises(tessera.InvalidArgumentError):
        tessera.AssociativeDomain(key_type=float)
