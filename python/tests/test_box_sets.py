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


@pytest.mark.parametrize("policy", ["knapsack", "morton", "hilbert"])
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


def _excess(owners, weights, ranks):
    loads = [0.0] * ranks
    for o, w in zip(owners, weights):
        loads[o] += w
    mean = sum(loads) / ranks
    return sum(max(0.0, x - mean) for x in loads)


def test_chop_boxes_tiles_every_box_with_near_equal_pieces(comm):
    boxes = [((0, 0), (10, 3)), ((10, 0), (10, 3)), ((20, 1), (25, 8))]
    pieces = tessera.chop_boxes(boxes, (4, 3))
    # 10 = 4 + 3 + 3 along axis 0 (one piece along axis 1), the empty box none, 5 x 7 in 2 x 3.
    assert pieces[:3] == [((0, 0), (4, 3)), ((4, 0), (7, 3)), ((7, 0), (10, 3))]
    rest = pieces[3:]
    assert len(rest) == 6
    cells = set()
    for lo, hi in rest:
        extents = [h - l for l, h in zip(lo, hi)]
        assert extents[0] in (2, 3) and extents[1] in (2, 3) and all(e <= m for e, m in zip(extents, (4, 3)))
        here = {(i, j) for i in range(lo[0], hi[0]) for j in range(lo[1], hi[1])}
        assert not (here & cells), "pieces overlap"
        cells |= here
    assert cells == {(i, j) for i in range(20, 25) for j in range(1, 8)}
    # The chopped boxes make a box set like any list of boxes.
    dist = tessera.box_set(pieces, tessera.assign_boxes(pieces, "morton"))
    assert len(dist.box_set[0]) == 9
    with pytest.raises(tessera.InvalidArgumentError, match="max_extent"):
        tessera.chop_boxes(boxes, (4, 0))
    with pytest.raises(tessera.InvalidArgumentError):
        tessera.chop_boxes(boxes, (4, 3, 2))


@pytest.mark.parametrize("delta", [0.0, 0.5, 1.0])
@pytest.mark.parametrize("measured", [False, True])
def test_incremental_box_step_against_its_definition(comm, delta, measured):
    ranks = 3
    cells = [(b[1][0] - b[0][0]) * (b[1][1] - b[0][1]) for b in BOXES]
    weights = [4.0, 1.0, 2.5, 0.5] if measured else None
    current = [0, 0, 0, 0]
    target = tessera.assign_boxes(BOXES, "knapsack", weights=weights, size=ranks)
    step = tessera.incremental_box_step(BOXES, current, target, delta, weights=weights, size=ranks)
    owners = step["owners"]
    w = weights or [float(c) for c in cells]
    assert all(o in (c, t) for o, c, t in zip(owners, current, target))  # each box stays or goes to its target
    assert sorted(step["moved"]) == [i for i in range(4) if owners[i] != current[i]]
    assert step["cells"] == sum(cells[i] for i in step["moved"])
    assert step["excess_before"] == pytest.approx(_excess(current, w, ranks))
    assert step["excess_after"] == pytest.approx(_excess(owners, w, ranks))
    assert step["excess_after"] <= step["excess_before"]
    if delta == 0.0:
        assert owners == current and step["moved"] == []
    if delta == 1.0:
        assert owners == list(target)
    with pytest.raises(tessera.InvalidArgumentError):
        tessera.incremental_box_step(BOXES, current, target, 1.5, size=ranks)
    with pytest.raises(tessera.InvalidArgumentError):
        tessera.incremental_box_step(BOXES, current, [0, ranks, 0, 0], 0.5, size=ranks)


def test_incremental_box_step_within_a_cell_budget(comm):
    ranks = 3
    cells = [(b[1][0] - b[0][0]) * (b[1][1] - b[0][1]) for b in BOXES]
    current = [0, 0, 0, 0]
    target = tessera.assign_boxes(BOXES, "knapsack", size=ranks)
    free = tessera.incremental_box_step(BOXES, current, target, 1.0, size=ranks, max_cells=sum(cells))
    assert free["moved"], "nothing to move: the case tests nothing"
    for budget in range(0, sum(cells) + 1):
        step = tessera.incremental_box_step(BOXES, current, target, 1.0, size=ranks, max_cells=budget)
        assert step["cells"] <= budget
        assert step["cells"] == sum(cells[i] for i in step["moved"])
        # Every box left that would still fit removes no excess (else the step would have taken it).
        left = [i for i in range(4) if step["owners"][i] != target[i] and step["cells"] + cells[i] <= budget]
        for i in left:
            owners = list(step["owners"])
            owners[i] = target[i]
            assert _excess(owners, [float(c) for c in cells], ranks) >= step["excess_after"] - 1e-9
    with pytest.raises(TypeError):
        tessera.incremental_box_step(BOXES, current, target, 1.0, size=ranks, max_cells=-1)


def test_box_balancer_moves_boxes_off_a_slow_rank_and_keeps_values(comm):
    size = comm.Get_size()
    # 16 boxes of 4x4 over [0,16)x[0,16), all on rank 0 at first.
    boxes = [((4 * i, 4 * j), (4 * i + 4, 4 * j + 4)) for i in range(4) for j in range(4)]
    dom = tessera.Domain(tessera.box_set(boxes, [0] * len(boxes), domain=(16, 16)))
    u = tessera.DistArray(dom, np.float64, ghosts=1)
    i, j = np.meshgrid(np.arange(16), np.arange(16), indexing="ij")
    ref = (100 * i + j).astype(np.float64)
    u.scatter(ref if comm.Get_rank() == 0 else None)
    bal = tessera.BoxBalancer(dom, "full", interval=2, target="morton")
    steps = []
    for _ in range(2):
        for p in range(u.patch_count):
            with bal.timer(p):
                pass
            assert 0 <= bal.box_of_patch(p) < len(boxes)
        steps.append(bal.step())
    assert [s.remap_point for s in steps] == [False, True]
    np.testing.assert_array_equal(u.gather_all(), ref)
    owners = list(dom.distribution.box_set[1])
    if size > 1:
        assert steps[1].blocks > 0 and len(set(owners)) > 1
    with pytest.raises(tessera.OutOfRangeError, match="patch"):
        bal.timer(u.patch_count)
    with pytest.raises(tessera.InvalidArgumentError, match="knapsack or morton"):
        tessera.BoxBalancer(dom, "full", target="hilbert")
    with pytest.raises(tessera.InvalidArgumentError, match="not a box set"):
        tessera.BoxBalancer(tessera.Domain(tessera.Distribution((8, 8), [tessera.block(), tessera.block()])))


def test_box_balancer_with_a_byte_budget_moves_only_what_fits(comm):
    size = comm.Get_size()
    boxes = [((4 * i, 4 * j), (4 * i + 4, 4 * j + 4)) for i in range(4) for j in range(4)]
    dom = tessera.Domain(tessera.box_set(boxes, [0] * len(boxes), domain=(16, 16)))
    u = tessera.DistArray(dom, np.float64)
    i, j = np.meshgrid(np.arange(16), np.arange(16), indexing="ij")
    ref = (100 * i + j).astype(np.float64)
    u.scatter(ref if comm.Get_rank() == 0 else None)
    budget = 2 * 16 * 8  # two 4x4 boxes of float64
    bal = tessera.BoxBalancer(dom, "full", interval=1, max_bytes_per_step=budget)
    step = bal.step()
    assert step.remap_point and step.bytes <= budget
    # Rank 0 holds all 16 boxes and the target spreads them: two of them fit and move.
    assert step.blocks == (2 if size > 1 else 0)
    np.testing.assert_array_equal(u.gather_all(), ref)
    with pytest.raises(TypeError):
        tessera.BoxBalancer(dom, "full", max_bytes_per_step=-1)


def test_a_box_set_checkpoint_carries_its_box_table(comm, shared_tmp):
    path = f"{shared_tmp}/boxes.h5"
    owners = [r % comm.Get_size() for r in range(len(BOXES))]
    dom = tessera.Domain(tessera.box_set(BOXES, owners, domain=(8, 8)))
    u = tessera.DistArray(dom, np.float64)
    u.scatter(image() if comm.Get_rank() == 0 else None)
    tessera.save(path, {"u": u})
    saved = tessera.saved_boxes(path)
    assert saved["boxes"] == BOXES and saved["owners"] == owners
    assert saved["domain"] == ((0, 0), (8, 8)) and saved["ranks"] == comm.Get_size()
    again = tessera.DistArray(tessera.Domain(tessera.box_set(saved["boxes"], saved["owners"], domain=(8, 8))),
                              np.float64)
    tessera.load(path, {"u": again})
    np.testing.assert_array_equal(again.gather_all(), u.gather_all())
    plain = f"{shared_tmp}/plain.h5"
    tessera.save(plain, {"u": tessera.DistArray(tessera.Domain(tessera.Distribution((8, 8), [tessera.block(), tessera.block()])), np.float64)})
    with pytest.raises(tessera.MismatchError, match="tessera_boxes"):
        tessera.saved_boxes(plain)
