"""Boundary rules (tessera.boundary) against a serial NumPy reference: the global image padded and
the rules applied axis by axis as docs/python.md ("Boundary rules") states, cut to each rank's
stored box; periodic axes mixed in, the holes of a box set, split-phase updates, reading the rules
back, and bad input."""
import numpy as np
import pytest

import tessera
from tessera import boundary as bc
from reference import fill, values


def index_function(dtype):
    """A function of the global index, of the element type's kind."""
    if np.issubdtype(np.dtype(dtype), np.integer):
        return lambda p: sum((d + 3) * x for d, x in enumerate(p)) - 50
    return lambda p: 0.5 * sum((d + 1) * x for d, x in enumerate(p)) - 2.25


def apply_rule(padded, rule, d, high, width, lo, periodic):
    """One rule of axis d on one side, over the padded global image (ghost cells of width
    `width` on every side, `lo` the domain's low corner): across the axes before d and the
    periodic ones the whole padded range, across the later ones the domain's range."""
    n = padded.shape[d] - 2 * width
    cross = [slice(None) if (e < d or periodic[e]) else slice(width, width + padded.shape[e] - 2 * width)
             for e in range(padded.ndim)]
    for k in range(width):
        cell = width + n + k if high else width - 1 - k  # the ghost cell, padded coordinates
        near = width + n - 1 if high else width             # the nearest cell inside
        step = -1 if high else 1                            # towards the inside

        def at(i):
            s = list(cross)
            s[d] = i
            return tuple(s)

        if rule.kind == "reflect":
            mirror = 2 * (width + n) - 1 - cell if high else 2 * width - 1 - cell
            padded[at(cell)] = rule.sign * padded[at(mirror)]
        elif rule.kind == "constant":
            padded[at(cell)] = rule.value
        elif rule.kind == "extrapolate":
            a, b = padded[at(near)], padded[at(near + step)]
            padded[at(cell)] = a + (k + 1) * (a - b)
        elif rule.kind == "function":
            view = padded[at(cell)]
            for idx in np.ndindex(view.shape):
                # the global index of this cell: padded coordinates less the width, plus lo
                full, it = [], iter(idx)
                for e in range(padded.ndim):
                    if e == d:
                        full.append(cell)
                    else:
                        start = cross[e].start or 0
                        full.append(start + next(it))
                view[idx] = rule.f(tuple(x - width + l for x, l in zip(full, lo)))


def reference(image, rules, width, lo, periodic):
    """The padded image after an update: periodic axes wrapped, the others zero, then the rules of
    the non-periodic axes in increasing axis order."""
    pads = [(width, width)] * image.ndim
    padded = np.zeros([s + 2 * width for s in image.shape], dtype=image.dtype)
    padded[tuple(slice(width, width + s) for s in image.shape)] = image
    for d in range(image.ndim):
        if periodic[d]:
            inner = np.take(padded, range(width, width + image.shape[d]), axis=d)
            padded = np.concatenate([np.take(inner, range(inner.shape[d] - width, inner.shape[d]), axis=d), inner,
                                     np.take(inner, range(width), axis=d)], axis=d)
    del pads
    for d in range(image.ndim):
        for high in (False, True):
            rule = rules.side(d, high)
            if rule.kind != "none":
                apply_rule(padded, rule, d, high, width, lo, periodic)
    return padded


def rules_for(ndim, dtype):
    """Every kind of rule, spread over the sides of ndim axes."""
    f = index_function(dtype)
    r = bc.BoundaryRules().low(0, bc.reflect(-1)).high(0, bc.extrapolate())
    if ndim >= 2:
        r.low(1, bc.constant(7)).high(1, bc.function(f))
    if ndim >= 3:
        r.along(2, bc.reflect())
    return r


def check_stored_cells(a, expected_padded, width):
    dlo = a.box[0]
    (lo, hi) = a.owned_box()
    window = tuple(slice(l - b, h - b + 2 * width) for l, h, b in zip(lo, hi, dlo))
    np.testing.assert_array_equal(a.local_with_ghosts, expected_padded[window])


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.complex128])
@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_rules_fill_the_ghosts_as_the_padded_reference(comm, ndim, dtype):
    shape = {1: (13,), 2: (9, 7), 3: (6, 5, 7)}[ndim]
    box = (tuple(-2 + d for d in range(ndim)), tuple(-2 + d + s for d, s in enumerate(shape)))
    dom = tessera.Domain(tessera.Distribution(box, [tessera.block()] * ndim))
    width = 2
    a = tessera.DistArray(dom, dtype, ghosts=width)
    rules = rules_for(ndim, dtype)
    a.set_boundary(rules)
    image = values(a.box, dtype)
    fill(a, image)
    a.update_ghosts()
    check_stored_cells(a, reference(image, rules, width, box[0], [False] * ndim), width)


def test_rules_beside_a_periodic_axis(comm):
    dom = tessera.Domain(tessera.Distribution((10, 6), [tessera.block(), tessera.block()]))
    a = tessera.DistArray(dom, np.float64, ghosts=tessera.Ghosts(1, periodic=[True, False]))
    rules = bc.BoundaryRules().low(1, bc.extrapolate()).high(1, bc.reflect(-1))
    a.set_boundary(rules)
    image = values(a.box, np.float64)
    fill(a, image)
    a.update_ghosts()
    check_stored_cells(a, reference(image, rules, 1, (0, 0), [True, False]), 1)
    with pytest.raises(tessera.InvalidArgumentError):
        a.set_boundary(bc.BoundaryRules().low(0, bc.constant(1.0)))  # axis 0 is periodic
    assert a.boundary == rules  # unchanged by the refusal


def test_split_phase_update_applies_the_rules_at_its_end(comm):
    dom = tessera.Domain(tessera.Distribution((8, 8), [tessera.block(), tessera.block()]))
    a = tessera.DistArray(dom, np.float64, ghosts=1)
    rules = bc.BoundaryRules().along(0, bc.constant(-1.0)).along(1, bc.reflect())
    a.set_boundary(rules)
    image = values(a.box, np.float64)
    fill(a, image)
    a.begin_update_ghosts()
    with pytest.raises(tessera.InvalidArgumentError):
        a.set_boundary(None)  # not while the update is in flight
    a.end_update_ghosts()
    check_stored_cells(a, reference(image, rules, 1, (0, 0), [False, False]), 1)


def test_faces_only_sets_the_face_slabs(comm):
    dom = tessera.Domain(tessera.Distribution((7, 9), [tessera.block(), tessera.block()]))
    a = tessera.DistArray(dom, np.int32, ghosts=tessera.Ghosts(1, corners=False))
    rules = bc.BoundaryRules().along(0, bc.constant(5)).along(1, bc.reflect(-1))
    a.set_boundary(rules)
    image = values(a.box, np.int32)
    fill(a, image)
    a.update_ghosts()
    expected = reference(image, rules, 1, (0, 0), [False, False])
    (lo, hi) = a.owned_box()
    got = a.local_with_ghosts
    want = expected[lo[0]:hi[0] + 2, lo[1]:hi[1] + 2]
    np.testing.assert_array_equal(got[1:-1, :], want[1:-1, :])  # owned rows, every column
    np.testing.assert_array_equal(got[:, 1:-1], want[:, 1:-1])  # owned columns, every row


# [0,8)x[0,8) less the hole [4,8)x[4,8), in four boxes (as test_box_sets.py).
BOXES = [((0, 0), (4, 4)), ((0, 4), (4, 8)), ((4, 0), (8, 2)), ((4, 2), (8, 4))]


def mirrored(lo, hi, i, j):
    """(i, j) mirrored about the faces of the box [lo, hi) it lies beyond (a wall around the box)."""
    def axis(x, a, b):
        return 2 * a - 1 - x if x < a else 2 * b - 1 - x if x >= b else x
    return axis(i, lo[0], hi[0]), axis(j, lo[1], hi[1])


@pytest.mark.parametrize("hole_rule", ["constant", "function", "reflect", "reflect_odd"])
def test_hole_rule_fills_the_ghost_cells_over_a_hole(comm, hole_rule):
    f = index_function(np.float64)
    rule = {"constant": bc.constant(-3.5), "function": bc.function(f),
            "reflect": bc.reflect(), "reflect_odd": bc.reflect(-1)}[hole_rule]
    owners = tessera.assign_boxes(BOXES, "morton")
    u = tessera.DistArray(tessera.Domain(tessera.box_set(BOXES, owners, domain=(8, 8))), np.float64, ghosts=1)
    u.set_boundary(bc.BoundaryRules().holes(rule).along(0, bc.constant(9.0)))
    image = values(((0, 0), (8, 8)), np.float64)
    u.scatter(image if comm.Get_rank() == 0 else None)
    u.update_ghosts()
    checked_hole_cells = 0
    for k in range(u.patch_count):
        (lo, hi) = u.owned_box(k)
        view = u.local_patch(k, with_ghosts=True)
        for idx in np.ndindex(view.shape):
            i, j = lo[0] - 1 + idx[0], lo[1] - 1 + idx[1]
            if not 0 <= j < 8:
                continue  # outside along axis 1: no rule there, the cell keeps its 0
            if not 0 <= i < 8:
                assert view[idx] == 9.0, (k, i, j)
            elif i >= 4 and j >= 4:
                want = {"constant": lambda: -3.5, "function": lambda: f((i, j)),
                        "reflect": lambda: image[mirrored(lo, hi, i, j)],
                        "reflect_odd": lambda: -image[mirrored(lo, hi, i, j)]}[hole_rule]()
                assert view[idx] == want, (k, i, j)
                checked_hole_cells += 1
            else:
                assert view[idx] == image[i, j], (k, i, j)
        del view
    # Every hole cell within one cell of a box is a ghost cell of that box.
    near_hole = sum(1 for (lo, hi) in BOXES for i in range(lo[0] - 1, hi[0] + 1) for j in range(lo[1] - 1, hi[1] + 1)
                    if 4 <= i < 8 and 4 <= j < 8)
    assert near_hole == 9 and comm.allreduce(checked_hole_cells) == near_hole


def test_rules_read_back_and_clear(comm):
    dom = tessera.Domain(tessera.Distribution((6, 6), [tessera.block(), tessera.block()]))
    a = tessera.DistArray(dom, np.float64, ghosts=1)
    assert a.boundary == bc.BoundaryRules()
    f = index_function(np.float64)
    rules = bc.BoundaryRules().low(0, bc.reflect(-1)).high(1, bc.function(f)).low(1, bc.constant(2.5))
    a.set_boundary(rules)
    back = a.boundary
    assert back == rules and back.side(1, True).f is f and back.side(0, True).kind == "none"
    a.set_boundary(rules.low(0, bc.none()))  # none() clears one side
    assert a.boundary.side(0, False).kind == "none"
    a.set_boundary(None)
    assert a.boundary == bc.BoundaryRules()
    a.fill(4.0)
    a.update_ghosts()  # no rules: the cells outside the domain keep what was written
    assert a.local_with_ghosts.min() == 4.0


def test_bad_rules_raise_and_leave_the_rules_unchanged(comm):
    dom = tessera.Domain(tessera.Distribution((6, 6), [tessera.block(), tessera.block()]))
    a = tessera.DistArray(dom, np.int64, ghosts=1)
    kept = bc.BoundaryRules().along(0, bc.constant(3))
    a.set_boundary(kept)
    with pytest.raises(tessera.InvalidArgumentError):
        bc.reflect(2)
    with pytest.raises(tessera.InvalidArgumentError):
        bc.function(3)
    with pytest.raises(tessera.InvalidArgumentError):
        bc.BoundaryRules().holes(bc.extrapolate())
    with pytest.raises(tessera.InvalidArgumentError):
        bc.BoundaryRules().low(-1, bc.none())
    with pytest.raises(tessera.InvalidArgumentError):
        bc.BoundaryRules().low(0, "reflect")
    for bad in (bc.BoundaryRules().low(2, bc.extrapolate()),       # no axis 2
                bc.BoundaryRules().low(0, bc.constant(1.5)),       # not an int64
                bc.BoundaryRules().high(1, bc.constant("x"))):
        with pytest.raises(tessera.InvalidArgumentError):
            a.set_boundary(bad)
        assert a.boundary == kept
    with pytest.raises(tessera.InvalidArgumentError):
        a.set_boundary({0: "reflect"})
    narrow = tessera.DistArray(tessera.Domain(tessera.Distribution((1, 6), [tessera.block(), tessera.block()],
                                                                   grid=(1, comm.Get_size()))),
                               np.float64, ghosts=1)
    with pytest.raises(tessera.InvalidArgumentError):
        narrow.set_boundary(bc.BoundaryRules().low(0, bc.extrapolate()))  # one cell: nothing to extrapolate from
    # A function whose result does not convert: the update raises on every rank (each owns part of
    # the one row, so each stores ghost cells outside the domain along axis 0).
    narrow.set_boundary(bc.BoundaryRules().along(0, bc.function(lambda p: "text")))
    with pytest.raises(tessera.InvalidArgumentError, match="does not convert to float64"):
        narrow.update_ghosts()
