"""Multiblock domains from Python (Multiblock PARTI): three 2-D blocks with different distributions
(block x block, cyclic, a box set with a hole) glued by a turned interface, a flipped part of a
face and a periodic self-interface; every stored value after a ghost update (blocking and split
phase) against a serial reference computed here from the interfaces' definition; gather_block,
accumulate_ghosts, a strided turned section move and an overlapping one against NumPy; values kept
by redistribute, which refuses while views are alive; 1-D and 3-D layouts; bad input raising the
module's errors (the same on every rank, as every rank checks the same arguments)."""
import numpy as np
import pytest

import tessera

SENTINEL = -1  # in every ghost no update fills (an int: int32 arrays take no floats)
B, C = tessera.block(), tessera.cyclic()
HOLE_BOXES = [((0, 0), (3, 6)), ((3, 0), (6, 3))]  # block 2: [0,6)x[0,6) less the hole [3,6)x[3,6)


def blocks_2d(size):
    return [tessera.Distribution((6, 8), [B, B]),
            tessera.Distribution((8, 5), [C, B]),
            tessera.box_set(HOLE_BOXES, [0, (size - 1) % size], domain=(6, 6))]


# 0: block 0's upper face of axis 0 onto block 1's upper face of axis 1, turned: block 0's ghost
#    (6, j) is block 1's cell (j, 4). 1: cells j in [1,4) of block 1's lower face of axis 0 onto
#    cells j in [0,3) of block 2's upper face of axis 0, the tangential axis flipped. 2: block 2
#    periodic along axis 1 (its lower ghosts in rows 3-5 face the hole and stay as they are).
INTERFACES_2D = [
    tessera.BlockInterface(tessera.BlockFace(0, 0, True), tessera.BlockFace(1, 1, True), perm=(1, 0), flip=(1, 0)),
    tessera.BlockInterface(tessera.BlockFace(1, 0, False, ((0, 1), (1, 4))),
                           tessera.BlockFace(2, 0, True, ((5, 0), (6, 3))), flip=(False, True)),
    tessera.BlockInterface((2, 1, True), (2, 1, False)),
]


def code(dom, b, p):
    """A value naming point p of block b (exact in every dtype used)."""
    lo, hi = dom.block_box(b)
    return b * 1000 + int(np.ravel_multi_index([x - l for x, l in zip(p, lo)], [h - l for l, h in zip(lo, hi)])) + 1


def exists(dom, b, p):
    """True if block b has a cell at p (inside its box, and not in a hole of a box-set block)."""
    lo, hi = dom.block_box(b)
    if not all(l <= x < h for x, l, h in zip(p, lo, hi)):
        return False
    boxes = dom.block_distribution(b).box_set
    return boxes is None or any(all(l <= x < h for x, l, h in zip(p, *box)) for box in boxes[0])


def face_cells(dom, face):
    """(lo, hi) of the cells a face glues (the whole face when cells is None)."""
    if face.cells is not None:
        return [list(c) for c in face.cells]
    lo, hi = [list(c) for c in dom.block_box(face.block)]
    if face.upper:
        lo[face.axis] = hi[face.axis] - 1
    else:
        hi[face.axis] = lo[face.axis] + 1
    return lo, hi


def across(dom, interfaces, b, p):
    """What ghost p (block coordinates, outside block b) holds after an update, from the interfaces'
    definition: depth beyond one face = depth inside the other, the tangential axes laid on by the
    orientation. A ghost beyond two faces (a corner) is carried across a face whose glued cells reach
    the block's end there, lands beyond the other block's face, and goes on from there. The
    interfaces' ends are tried in order (interface by interface, a's ghosts first); the first that
    reaches a cell wins. None where none does."""
    n = len(p)
    lo, hi = dom.block_box(b)
    beyond = [not lo[d] <= p[d] < hi[d] for d in range(n)]
    for itf in interfaces:
        a, f = (x if isinstance(x, tessera.BlockFace) else tessera.BlockFace(*x) for x in (itf.a, itf.b))
        perm = list(itf.perm) if itf.perm is not None else list(range(n))
        flip = [bool(x) for x in itf.flip] if itf.flip is not None else [False] * n
        inverse_perm, inverse_flip = [0] * n, [False] * n
        for d in range(n):
            inverse_perm[perm[d]], inverse_flip[perm[d]] = d, flip[d]
        for here, there, pm, fl in ((a, f, perm, flip), (f, a, inverse_perm, inverse_flip)):
            axis = here.axis
            if here.block != b or not (p[axis] >= hi[axis] if here.upper else p[axis] < lo[axis]):
                continue
            depth = p[axis] - hi[axis] + 1 if here.upper else lo[axis] - p[axis]
            ch, ct = face_cells(dom, here), face_cells(dom, there)
            carried = all((ch[0][d] <= p[d] < ch[1][d]) if not beyond[d]
                          else (ch[1][d] == hi[d] if p[d] >= hi[d] else ch[0][d] == lo[d])
                          for d in range(n) if d != axis)
            if not carried:
                continue
            olo, ohi = dom.block_box(there.block)
            src = [0] * n
            src[there.axis] = ohi[there.axis] - depth if there.upper else olo[there.axis] + depth - 1
            for d in range(n):
                if d != axis:
                    e, along = pm[d], p[d] - ch[0][d]
                    src[e] = ct[1][e] - 1 - along if fl[d] else ct[0][e] + along
            if not olo[there.axis] <= src[there.axis] < ohi[there.axis]:
                continue  # beyond a block thinner than the ghosts
            if not all(olo[d] <= src[d] < ohi[d] for d in range(n)):
                v = across(dom, interfaces, there.block, src)  # a corner: on across the next face
                if v is not None:
                    return v
            elif exists(dom, there.block, src):
                return code(dom, there.block, src)
    return None


def patch_points(u, k):
    """Block b of patch k, and the block point at each index of u.local(k) (ghosts included)."""
    (lo, hi), lower = u.owned_box(k), u.ghost_widths[0]
    shape = u.local(k).shape
    return u.block_of_patch(k), lo, hi, {idx: [lo[d] - lower[d] + idx[d] for d in range(len(idx))]
                                         for idx in np.ndindex(*shape)}


def fill_codes(u, dom):
    """SENTINEL everywhere, the code of its cell in every owned cell."""
    u.fill(SENTINEL)
    for k in range(u.patch_count):
        b, lo, hi, points = patch_points(u, k)
        view = u.local(k, with_ghosts=False)
        for idx in np.ndindex(*view.shape):
            view[idx] = code(dom, b, [l + i for l, i in zip(lo, idx)])
        del view


def check_every_stored_value(u, dom, interfaces, corners=True):
    """Every value of every patch this rank stores after an update of cells holding their code."""
    filled_across = 0
    for k in range(u.patch_count):
        b, lo, hi, points = patch_points(u, k)
        view = u.local(k)
        for idx, p in points.items():
            out = sum(not lo[d] <= p[d] < hi[d] for d in range(len(p)))
            if out == 0:
                want = code(dom, b, p)
            elif out > 1 and not corners:
                want = SENTINEL  # a corner ghost of a faces-only update
            elif all(l <= x < h for x, l, h in zip(p, *dom.block_box(b))):
                want = code(dom, b, p) if exists(dom, b, p) else SENTINEL
            else:
                v = across(dom, interfaces, b, p)
                want, filled_across = (SENTINEL, filled_across) if v is None else (v, filled_across + 1)
            assert view[idx] == want, f"patch {k} of block {b}: point {p} holds {view[idx]}, not {want}"
        del view
    return filled_across


@pytest.fixture
def dom2(comm):
    return tessera.MultiblockDomain(blocks_2d(comm.Get_size()), INTERFACES_2D)


@pytest.mark.parametrize("ghosts,corners", [(tessera.Ghosts(1), True), (tessera.Ghosts(2, corners=False), False)])
@pytest.mark.parametrize("dtype", ["float64", "int32", "complex128"])
def test_ghosts_across_turned_flipped_and_periodic_interfaces(comm, dom2, ghosts, corners, dtype):
    assert (dom2.ndim, dom2.block_count, dom2.interface_count, dom2.max_ghost_width) == (2, 3, 3, 4)
    assert dom2.block_box(1) == ((0, 0), (8, 5)) and dom2.block_distribution(2).box_set is not None
    u = tessera.MultiblockArray(dom2, dtype, ghosts=ghosts)
    assert isinstance(u, tessera.MultiblockArray) and u.dtype == np.dtype(dtype)
    fill_codes(u, dom2)
    u.update_ghosts()
    across_here = check_every_stored_value(u, dom2, INTERFACES_2D, corners)
    assert comm.allreduce(across_here) > 0  # the interfaces were exercised somewhere
    # The turned interface as stated: block 0's ghost (6, j) is block 1's cell (j, 4).
    for k in range(u.patch_count):
        (lo, hi) = u.owned_box(k)
        if u.block_of_patch(k) == 0 and hi[0] == 6:
            for j in range(lo[1], hi[1]):
                assert u[0, (6, j)] == code(dom2, 1, (j, 4))
    # Owned cells through indexing, in block coordinates.
    for k in range(u.patch_count):
        b, (lo, hi) = u.block_of_patch(k), u.owned_box(k)
        u[b, lo] = 7
        assert u[b, lo] == 7 and u.local(k, with_ghosts=False)[(0,) * 2] == 7


def test_split_phase_update(comm, dom2):
    u = tessera.MultiblockArray(dom2, np.float64, ghosts=1)
    fill_codes(u, dom2)
    u.begin_update_ghosts()
    assert u.ghost_update_in_flight
    owned = 0.0  # work on the owned cells while the ghosts travel
    for k in range(u.patch_count):
        view = u.local(k, with_ghosts=False)
        owned += float(view.sum())
        del view
    u.end_update_ghosts()
    assert not u.ghost_update_in_flight
    check_every_stored_value(u, dom2, INTERFACES_2D)
    total = sum(code(dom2, b, p) for b in range(3) for p in np.ndindex(*dom2.block_box(b)[1]) if exists(dom2, b, p))
    assert comm.allreduce(owned) == total == u.sum()
    assert u.min() == 1 and u.max() == code(dom2, 2, (5, 2))  # block 2's last cell outside the hole
    with pytest.raises(tessera.InvalidArgumentError, match="no ghost update is in flight"):
        u.end_update_ghosts()


def block_image(dom, b):
    """Block b's serial image: each cell's code, holes 0."""
    shape = dom.block_box(b)[1]
    image = np.zeros(shape)
    for p in np.ndindex(*shape):
        if exists(dom, b, p):
            image[p] = code(dom, b, p)
    return image


def test_gather_block(comm, dom2):
    u = tessera.MultiblockArray(dom2, np.int64, ghosts=1)
    fill_codes(u, dom2)
    for b in range(3):
        expected = block_image(dom2, b)
        np.testing.assert_array_equal(u.gather_block(b, root=None), expected)
        root = comm.Get_size() - 1
        got = u.gather_block(b, root=root)
        if comm.Get_rank() == root:
            assert got.dtype == np.int64
            np.testing.assert_array_equal(got, expected)
        else:
            assert got is None


def test_accumulate_ghosts_adds_every_ghost_into_its_source(comm, dom2):
    u = tessera.MultiblockArray(dom2, np.float64, ghosts=1)
    fill_codes(u, dom2)
    u.update_ghosts()
    # Every filled ghost now holds its source's code: give it a small integer, owned cells 0.
    sources, amounts = [], []
    for k in range(u.patch_count):
        b, lo, hi, points = patch_points(u, k)
        view = u.local(k)
        for idx, p in points.items():
            if all(l <= x < h for x, l, h in zip(p, lo, hi)):
                view[idx] = 0.0
            elif view[idx] != SENTINEL:
                sources.append(float(view[idx]))
                amounts.append(float(1 + (len(sources) + 3 * comm.Get_rank()) % 11))
                view[idx] = amounts[-1]
        del view
    u.accumulate_ghosts(tessera.CombineOp.add)
    expected = {}
    for src, amount in zip(sum(comm.allgather(sources), []), sum(comm.allgather(amounts), [])):
        expected[src] = expected.get(src, 0.0) + amount
    assert expected  # some ghost was filled somewhere
    ghosts_seen = 0
    for k in range(u.patch_count):
        b, lo, hi, points = patch_points(u, k)
        view = u.local(k)
        for idx, p in points.items():
            if all(l <= x < h for x, l, h in zip(p, lo, hi)):
                assert view[idx] == expected.get(float(code(dom2, b, p)), 0.0), (b, p)
            elif view[idx] != SENTINEL:
                assert view[idx] == amounts[ghosts_seen], "a ghost changed"
                ghosts_seen += 1
        del view
    assert ghosts_seen == len(amounts)


def test_strided_turned_section_move_and_an_overlapping_one(comm, dom2):
    u = tessera.MultiblockArray(dom2, np.float64, ghosts=1)
    w = tessera.MultiblockArray(dom2, np.float64)
    fill_codes(u, dom2)
    # Block 0's points (0,1) + (2,3)k, 3 x 2 of them, turned onto block 1's (1,0) + (1,2)k, 2 x 3.
    tessera.copy_section(u, (0, ((0, 1), (6, 7)), (2, 3)), w, (1, ((1, 0), (3, 5)), (1, 2)), perm=(1, 0), flip=(1, 0))
    points = block_image(dom2, 0)[0:6:2, 1:7:3]
    expected = np.zeros((8, 5))
    expected[1:3, 0:5:2] = np.flip(np.transpose(points, (1, 0)), axis=0)
    np.testing.assert_array_equal(w.gather_block(1, root=None), expected)
    # Within one block of one array, overlapping: every cell is read before any is written.
    tessera.copy_section(u, (1, ((0, 0), (6, 5))), u, (1, ((2, 0), (8, 5))))
    expected = block_image(dom2, 1)
    expected[2:8, :] = expected[0:6, :].copy()
    np.testing.assert_array_equal(u.gather_block(1, root=None), expected)
    with pytest.raises(tessera.InvalidArgumentError, match="points along axis"):
        tessera.copy_section(u, (0, ((0, 0), (2, 2))), w, (1, ((0, 0), (3, 2))))
    with pytest.raises(tessera.OutOfRangeError, match="names block 9"):
        tessera.copy_section(u, (9, ((0, 0), (2, 2))), w, (1, ((0, 0), (2, 2))))
    with pytest.raises(tessera.InvalidArgumentError, match=r"must be \(block, box\)"):
        tessera.copy_section(u, (0,), w, (1, ((0, 0), (2, 2))))
    with pytest.raises(tessera.InvalidArgumentError, match="stride"):
        tessera.copy_section(u, (0, ((0, 0), (2, 2)), 0), w, (1, ((0, 0), (2, 2))))


def test_redistribute_keeps_values_and_refuses_under_live_views(comm, dom2):
    size, rank = comm.Get_size(), comm.Get_rank()
    u = tessera.MultiblockArray(dom2, np.float64, ghosts=1)
    fill_codes(u, dom2)
    # Every block elsewhere: block 0 cyclic, block 1 a box set on the last rank and rank 0, block 2
    # an ordinary distribution over its whole box (the hole's cells are new: 0).
    new = [tessera.Distribution((6, 8), [B, C]),
           tessera.box_set([((0, 0), (4, 5)), ((4, 0), (8, 5))], [size - 1, 0], domain=(8, 5)),
           tessera.Distribution((6, 6), [B, B])]
    view = u.local(0) if rank == size - 1 and u.patch_count > 0 else None
    held = comm.allreduce(0 if view is None else 1)
    if held:
        assert dom2.live_views == (1 if view is not None else 0)
        with pytest.raises(tessera.ViewsHeldError, match="alive on rank"):
            dom2.redistribute(new)
    del view
    assert dom2.live_views == 0
    images = [block_image(dom2, b) for b in range(3)]
    dom2.redistribute(new)
    assert dom2.block_distribution(2).box_set is None
    for b in range(3):
        np.testing.assert_array_equal(u.gather_block(b, root=None), images[b])
    fill_codes(u, dom2)
    u.update_ghosts()
    check_every_stored_value(u, dom2, INTERFACES_2D)
    with pytest.raises(tessera.InvalidArgumentError, match="2 blocks given"):
        dom2.redistribute(new[:2])


def test_one_and_three_dimensions(comm):
    # 1-D: a ring of two blocks glued upper to upper and lower to lower (normal axis flipped).
    d1 = tessera.MultiblockDomain([tessera.Distribution((7,), [B]), tessera.Distribution((5,), [C])],
                                  [tessera.BlockInterface((0, 0, True), (1, 0, True), flip=(True,)),
                                   tessera.BlockInterface((0, 0, False), (1, 0, False), flip=(True,))])
    u = tessera.MultiblockArray(d1, np.float64, ghosts=2)
    fill_codes(u, d1)
    u.update_ghosts()
    assert comm.allreduce(check_every_stored_value(u, d1, [
        tessera.BlockInterface((0, 0, True), (1, 0, True), flip=(True,)),
        tessera.BlockInterface((0, 0, False), (1, 0, False), flip=(True,))])) > 0
    for k in range(u.patch_count):
        b, (lo, hi) = u.block_of_patch(k), u.owned_box(k)
        assert u[b, lo[0]] == u[b, (lo[0],)] == code(d1, b, lo)
    # 3-D: block 0's upper face of axis 0 onto block 1's lower face of axis 1, axes 0 and 1 swapped,
    # axis 2 reversed.
    itf = [tessera.BlockInterface((0, 0, True), (1, 1, False), perm=(1, 0, 2), flip=(False, False, True))]
    d3 = tessera.MultiblockDomain([tessera.Distribution((4, 3, 2), [B, B, B]),
                                   tessera.Distribution((3, 4, 2), [B, C, B])], itf, max_ghost_width=1)
    v = tessera.MultiblockArray(d3, np.float32, ghosts=tessera.Ghosts(1, corners=False))
    fill_codes(v, d3)
    v.update_ghosts()
    assert comm.allreduce(check_every_stored_value(v, d3, itf, corners=False)) > 0


def test_bad_input_raises_on_every_rank(comm, dom2):
    size = comm.Get_size()
    two = blocks_2d(size)[:2]
    with pytest.raises(tessera.InvalidArgumentError, match="not a permutation"):
        tessera.MultiblockDomain(two, [tessera.BlockInterface((0, 0, True), (1, 1, True), perm=(0, 0))])
    with pytest.raises(tessera.InvalidArgumentError, match="differ in size"):
        tessera.MultiblockDomain(two, [tessera.BlockInterface((0, 0, True), (1, 0, False))])  # 8 cells onto 5
    with pytest.raises(tessera.InvalidArgumentError, match="must be flipped"):
        tessera.MultiblockDomain(two, [tessera.BlockInterface((0, 0, True), (1, 1, True), perm=(1, 0))])
    with pytest.raises(tessera.OutOfRangeError, match="names block 3"):
        tessera.MultiblockDomain(two, [tessera.BlockInterface((0, 0, True), (3, 0, False))])
    with pytest.raises(tessera.OutOfRangeError, match="names block -1"):
        tessera.MultiblockDomain(two, [tessera.BlockInterface((-1, 0, True), (1, 0, False))])
    with pytest.raises(tessera.InvalidArgumentError, match="same number of dimensions"):
        tessera.MultiblockDomain([two[0], tessera.Distribution((4,), [B])])
    with pytest.raises(tessera.InvalidArgumentError, match="at least one block"):
        tessera.MultiblockDomain([])
    with pytest.raises(tessera.InvalidArgumentError, match="ranks"):
        tessera.MultiblockDomain([tessera.Distribution((4, 4), [B, B], size=size + 1)])
    with pytest.raises(tessera.InvalidArgumentError, match="exceeds the layout's max_ghost_width 4"):
        tessera.MultiblockArray(dom2, np.float64, ghosts=5)
    with pytest.raises(tessera.InvalidArgumentError, match="periodic"):
        tessera.MultiblockArray(dom2, np.float64, ghosts=tessera.Ghosts(1, periodic=True))
    with pytest.raises(tessera.InvalidArgumentError, match="bool is not one of"):
        tessera.MultiblockArray(dom2, np.bool_)
    u = tessera.MultiblockArray(dom2, np.float64, ghosts=1)
    with pytest.raises(tessera.OutOfRangeError, match="block 3 does not exist"):
        dom2.block_box(3)
    with pytest.raises(tessera.OutOfRangeError, match="block -1 does not exist"):
        dom2.block_distribution(-1)
    with pytest.raises(tessera.OutOfRangeError, match="block 5 does not exist"):
        u[5, (0, 0)]
    with pytest.raises(tessera.OutOfRangeError, match="block 3 does not exist"):
        u.gather_block(3)
    with pytest.raises(tessera.InvalidArgumentError, match="is not a rank"):
        u.gather_block(0, root=size)
    with pytest.raises(tessera.OutOfRangeError, match="patch"):
        u.local(u.patch_count)
    with pytest.raises(tessera.OutOfRangeError, match="not stored on rank"):
        u[0, (40, 40)]
