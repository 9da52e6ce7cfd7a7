"""User-defined local layouts from Python (with_local_order): a box set stored in each built-in
order, the rank's buffer read and written through DistArray.storage at Distribution.local_offset,
moves to and from blocks, a 3-D case, reductions, ghost cells after an update, against the serial
image; and bad input."""
import numpy as np
import pytest

import tessera

# [0,9)x[0,7) in five boxes of odd sizes, no hole.
BOXES = [((0, 0), (4, 3)), ((0, 3), (4, 7)), ((4, 0), (9, 2)), ((4, 2), (7, 7)), ((7, 2), (9, 7))]
ORDERS = [("row-major", 1), ("column-major", 1), ("padded", 3), ("tiled", 2)]


def serial_image(shape, seed):
    return np.random.default_rng(seed).integers(-50, 50, size=shape).astype(np.float64)


def points_of(lo, hi):
    for offset in np.ndindex(*[h - l for l, h in zip(lo, hi)]):
        yield tuple(l + o for l, o in zip(lo, offset))


def owned_points(boxes, owners, rank):
    for (lo, hi), owner in zip(boxes, owners):
        if owner == rank:
            yield from points_of(lo, hi)


def serial_storage_size(boxes, owners, rank, order, size):
    total = 0
    for (lo, hi), owner in zip(boxes, owners):
        if owner != rank:
            continue
        extents = [h - l for l, h in zip(lo, hi)]
        if order == "padded":
            extents[-1] = -(-extents[-1] // size) * size
        total += int(np.prod(extents))
    return total


@pytest.mark.parametrize("order,size", ORDERS)
def test_each_point_sits_at_its_local_offset(comm, order, size):
    rank = comm.Get_rank()
    owners = tessera.assign_boxes(BOXES, "knapsack")
    plain = tessera.box_set(BOXES, owners)
    dist = tessera.with_local_order(plain, order, size)
    assert dist.has_local_layout and not plain.has_local_layout
    assert order in repr(dist)
    assert dist.local_storage_size(rank) == serial_storage_size(BOXES, owners, rank, order, size)

    dom = tessera.Domain(dist)
    a = tessera.DistArray(dom, np.float64)
    first = serial_image((9, 7), 1)
    a.scatter(first if rank == 0 else None)
    storage = a.storage
    assert storage.shape == (dist.local_storage_size(rank),)
    second = serial_image((9, 7), 2)
    for p in owned_points(BOXES, owners, rank):
        offset = dist.local_offset(p)
        assert storage[offset] == first[p], (p, offset)
        assert a[p] == first[p]
        storage[offset] = second[p]  # written through the buffer, seen by the gather below
    del storage
    np.testing.assert_array_equal(a.gather_all(), second)
    assert a.sum() == pytest.approx(second.sum())
    np.testing.assert_array_equal(a.reduce_along(0), second.sum(axis=0))

    blocks = tessera.Distribution((9, 7), [tessera.block(), tessera.block()])
    dom.redistribute(blocks)
    np.testing.assert_array_equal(a.gather_all(), second)
    dom.redistribute(dist)
    np.testing.assert_array_equal(a.gather_all(), second)
    storage = a.storage
    for p in owned_points(BOXES, owners, rank):
        assert storage[dist.local_offset(p)] == second[p]


@pytest.mark.parametrize("order,size", ORDERS)
def test_ghost_cells_fill_under_every_order(comm, order, size):
    """Ghost layers under a local layout live in slabs after the owned points: after an update every
    ghost cell around this rank's boxes holds its owner's value (wrapped along the periodic axis 1),
    0 beyond axis 0's ends; the buffer is longer than the layout's storage."""
    rank = comm.Get_rank()
    owners = tessera.assign_boxes(BOXES, "knapsack")
    dist = tessera.with_local_order(tessera.box_set(BOXES, owners), order, size)
    a = tessera.DistArray(tessera.Domain(dist), np.float64,
                          ghosts=tessera.Ghosts(lower=(1, 1), upper=(1, 1), periodic=(False, True)))
    image = serial_image((9, 7), 3)
    a.scatter(image if rank == 0 else None)
    a.update_ghosts()
    for (lo, hi), owner in zip(BOXES, owners):
        if owner != rank:
            continue
        for p in points_of((lo[0] - 1, lo[1] - 1), (hi[0] + 1, hi[1] + 1)):
            if all(l <= x < h for x, l, h in zip(p, lo, hi)):
                continue
            want = image[p[0], p[1] % 7] if 0 <= p[0] < 9 else 0.0
            assert a[p] == want, (p, a[p], want)
            assert a.storage[a.storage_offset(p)] == want, p
    if rank in owners:
        assert a.storage.shape[0] > dist.local_storage_size(rank)
    with pytest.raises(tessera.OutOfRangeError):
        a.storage_offset((-5, -5))
    # The same accessor under tessera's own patches: every stored cell, ghosts included.
    blocks = tessera.DistArray(tessera.Domain(tessera.Distribution((9, 7), [tessera.block(), tessera.block()])),
                               np.float64, ghosts=tessera.Ghosts(1, periodic=(False, True)))
    blocks.scatter(image if rank == 0 else None)
    blocks.update_ghosts()
    lo, hi = blocks.owned_box(0) if blocks.patch_count else ((0, 0), (0, 0))
    storage = blocks.storage
    for p in points_of((lo[0] - 1, lo[1] - 1), (hi[0] + 1, hi[1] + 1)):
        if blocks.patch_count and 0 <= p[0] < 9:
            assert storage[blocks.storage_offset(p)] == image[p[0], p[1] % 7], p
    del storage


def test_three_dimensional_tiles(comm):
    rank = comm.Get_rank()
    boxes = [((0, 0, 0), (5, 3, 4)), ((0, 3, 0), (5, 6, 4)), ((5, 0, 0), (7, 6, 4))]
    owners = tessera.assign_boxes(boxes, "morton")
    dist = tessera.with_local_order(tessera.box_set(boxes, owners), "tiled", 2)
    a = tessera.DistArray(tessera.Domain(dist), np.int64)
    ref = np.arange(7 * 6 * 4, dtype=np.int64).reshape(7, 6, 4) * 3 - 11
    a.scatter(ref if rank == 0 else None)
    storage = a.storage
    seen = sorted(dist.local_offset(p) for p in owned_points(boxes, owners, rank))
    assert seen == list(range(dist.local_storage_size(rank)))  # tiles clipped: no holes, one to one
    for p in owned_points(boxes, owners, rank):
        assert storage[dist.local_offset(p)] == ref[p]
    del storage
    np.testing.assert_array_equal(a.gather_all(), ref)


def test_without_a_layout_local_offsets_are_the_patch_offsets(comm):
    rank = comm.Get_rank()
    dist = tessera.Distribution((9, 7), [tessera.block(), tessera.block()])
    assert not dist.has_local_layout
    a = tessera.DistArray(tessera.Domain(dist), np.float64)
    (lo, hi) = dist.owned_box(rank)
    storage = a.storage
    assert storage.shape == (dist.local_storage_size(rank),)
    for p in points_of(lo, hi):
        storage[dist.local_offset(p)] = 10 * p[0] + p[1]
    del storage
    np.testing.assert_array_equal(a.gather_all(), np.fromfunction(lambda i, j: 10 * i + j, (9, 7)))


def test_bad_local_layouts_raise(comm):
    owners = tessera.assign_boxes(BOXES, "knapsack")
    plain = tessera.box_set(BOXES, owners)
    blocks = tessera.Distribution((9, 7), [tessera.block(), tessera.block()])
    with pytest.raises(tessera.InvalidArgumentError, match="dimensional"):
        tessera.with_local_order(blocks, "tiled", 2)
    with pytest.raises(tessera.InvalidArgumentError, match="morton"):
        tessera.with_local_order(plain, "morton")
    with pytest.raises(tessera.InvalidArgumentError, match="tiled"):
        tessera.with_local_order(plain, "tiled", 0)
    with pytest.raises(tessera.InvalidArgumentError, match="size"):
        tessera.with_local_order(plain, "column-major", 4)
    stored = tessera.with_local_order(plain, "padded", 4)
    with pytest.raises(tessera.InvalidArgumentError, match="already has a local layout"):
        tessera.with_local_order(stored, "row-major")
    with pytest.raises(tessera.OutOfRangeError):
        stored.local_offset((9, 0))
    dom = tessera.Domain(stored)
    a = tessera.DistArray(dom, np.float64)
    with pytest.raises(tessera.InvalidArgumentError, match="local layout"):
        a.local
    # A held view of the buffer blocks a redistribution on every rank, as any view does.
    storage = a.storage
    with pytest.raises(tessera.ViewsHeldError):
        dom.redistribute(blocks)
    del storage
    dom.redistribute(blocks)
