"""The AMR levels from Python (LevelTransfer, tag_and_cluster, regrid_level, LevelHierarchy,
check_proper_nesting, nesting_region, cluster_tags) against serial NumPy references computed here
on every rank: prolongation exact on linear functions (linear) and a copy of the coarse cell
(constant), restriction the mean of the fine cells bit for bit, the ghost fill at the coarse/fine
boundary (fine-box ghosts from the fine level, the others interpolated, those outside the domain
untouched), the fill blended between two coarse states, in 1-3 dimensions and the three floating
dtypes; the clustering invariants (every tag in the nesting region covered, boxes disjoint,
aligned, short enough, efficient, properly nested) against a brute-force nesting region; a regrid
keeping the old values and prolonging the new cells, refused under live views; a regrid under a
finer level; the docs' example; bad input raising the module's errors on every rank."""
import itertools
import os
import re

import numpy as np
import pytest

import tessera

SENTINEL = -12345.0
G = (1.25, 3.0, -2.0, 0.5)   # the coarse data: G[0] + sum_d G[d + 1] x_d at cell centres
F = (-4.0, 0.75, 1.5, -1.0)  # the fine data: another function, which tells fine ghosts from interpolated ones

# Per dimension: the coarse domain, chopped into pieces (no hole), and the fine boxes in coarse
# cells (one at the domain's low corner, one at its high end; ranks past the boxes have none).
SETUPS = {
    1: dict(domain=(20,), piece=(5,), fine=[((0,), (6,)), ((12,), (20,))]),
    2: dict(domain=(16, 12), piece=(4, 4), fine=[((0, 0), (4, 4)), ((6, 5), (12, 9)), ((12, 8), (16, 12))]),
    3: dict(domain=(8, 8, 6), piece=(4, 4, 3), fine=[((2, 2, 1), (6, 6, 4)), ((6, 0, 0), (8, 4, 6))]),
}
RATIOS = {1: [2, (3,)], 2: [2, (3, 2)], 3: [2, (2, 1, 3)]}
DTYPES = ["float32", "float64", "complex128"]


def per_axis(ratio, ndim):
    return tuple(ratio) if isinstance(ratio, tuple) else (ratio,) * ndim


def chop(shape, piece):
    """Boxes of `piece` cells (clipped) tiling [0, shape)."""
    return [(tuple(lo), tuple(min(l + p, n) for l, p, n in zip(lo, piece, shape)))
            for lo in itertools.product(*[range(0, n, p) for n, p in zip(shape, piece)])]


def refine(box, r):
    return tuple(l * q for l, q in zip(box[0], r)), tuple(h * q for h, q in zip(box[1], r))


def coarsen(box, r):
    return tuple(l // q for l, q in zip(box[0], r)), tuple(-(-h // q) for h, q in zip(box[1], r))


def spread(boxes, comm):
    """Owners for `boxes`: box i on rank i mod size."""
    return [i % comm.Get_size() for i in range(len(boxes))]


def two_levels(ndim, ratio, comm):
    """(coarse dist, fine dist, ratio per axis, fine boxes in fine cells) of SETUPS[ndim]."""
    s = SETUPS[ndim]
    r = per_axis(ratio, ndim)
    coarse_boxes = chop(s["domain"], s["piece"])
    fine_boxes = [refine(b, r) for b in s["fine"]]
    coarse = tessera.box_set(coarse_boxes, spread(coarse_boxes, comm)[::-1], domain=s["domain"])
    fine = tessera.box_set(fine_boxes, spread(fine_boxes, comm), domain=tuple(n * q for n, q in zip(s["domain"], r)))
    return coarse, fine, r, fine_boxes


def linear(coef, grids, per_unit, dtype):
    """coef[0] + sum_d coef[d + 1] x_d at the centres of cells `grids` of a level with `per_unit`
    cells per unit length (times 1 + 0.5i for complex)."""
    v = coef[0] + sum(c * (g + 0.5) / q for c, g, q in zip(coef[1:], grids, per_unit))
    return v * (1 + 0.5j) if np.dtype(dtype).kind == "c" else v


def code(grids, dtype):
    """Small integers from the index (sums of them are exact in every dtype), with an imaginary part
    for complex."""
    v = sum((d + 3) * g for d, g in enumerate(grids)) % 17 - 8
    return v + 1j * (grids[0] % 5) if np.dtype(dtype).kind == "c" else v


def fill_from(a, f):
    """Every owned cell of `a` set to f(grids of its global indices)."""
    for k in range(a.patch_count):
        lo, hi = a.owned_box(k)
        grids = np.meshgrid(*[np.arange(l, h) for l, h in zip(lo, hi)], indexing="ij")
        view = a.local_patch(k)
        view[...] = f(grids)
        del view


def stored_patches(a):
    """(owned box, grids of global indices, values) of each patch of `a`, its ghost layers included."""
    glo, ghi = a.ghost_widths
    out = []
    for k in range(a.patch_count):
        lo, hi = a.owned_box(k)
        grids = np.meshgrid(*[np.arange(l - g, h + u) for l, h, g, u in zip(lo, hi, glo, ghi)], indexing="ij")
        view = a.local_patch(k, with_ghosts=True)
        out.append(((lo, hi), grids, np.array(view)))
        del view
    return out


def in_boxes(grids, boxes):
    mask = np.zeros(grids[0].shape, dtype=bool)
    for lo, hi in boxes:
        inside = np.ones(grids[0].shape, dtype=bool)
        for g, l, h in zip(grids, lo, hi):
            inside &= (g >= l) & (g < h)
        mask |= inside
    return mask


def tolerance(dtype):
    return dict(rtol=1e-5, atol=1e-4) if np.dtype(dtype) == np.float32 else dict(rtol=1e-12, atol=1e-11)


def level_pair(ndim, ratio, comm, dtype, ghosts=1, interpolation="linear"):
    coarse_dist, fine_dist, r, fine_boxes = two_levels(ndim, ratio, comm)
    cdom, fdom = tessera.Domain(coarse_dist), tessera.Domain(fine_dist)
    coarse = tessera.DistArray(cdom, dtype, ghosts=1)
    fine = tessera.DistArray(fdom, dtype, ghosts=ghosts)
    link = tessera.LevelTransfer(cdom, fdom, ratio, ghosts, dtype=dtype, interpolation=interpolation)
    return link, coarse, fine, r, fine_boxes


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ndim,ratio", [(n, r) for n in (1, 2, 3) for r in RATIOS[n]])
def test_prolong_is_exact_on_linear_functions(comm, ndim, ratio, dtype):
    link, coarse, fine, r, _ = level_pair(ndim, ratio, comm, dtype)
    assert isinstance(link, tessera.LevelTransfer) and link.ratio == r and link.dtype == np.dtype(dtype)
    fill_from(coarse, lambda g: linear(G, g, (1,) * ndim, dtype))
    fine.fill(SENTINEL)
    link.prolong(coarse, fine)
    for box, grids, values in stored_patches(fine):
        owned = in_boxes(grids, [box])
        np.testing.assert_allclose(values[owned], linear(G, [g[owned] for g in grids], r, dtype), **tolerance(dtype))
        assert np.all(values[~owned] == SENTINEL)  # ghosts untouched


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ndim,ratio", [(n, RATIOS[n][1]) for n in (1, 2, 3)])
def test_restriction_is_the_mean_of_the_fine_cells(comm, ndim, ratio, dtype):
    link, coarse, fine, r, fine_boxes = level_pair(ndim, ratio, comm, dtype)
    coarse.fill(SENTINEL)
    fill_from(fine, lambda g: code(g, dtype))
    link.restrict_to(fine, coarse)
    shape = SETUPS[ndim]["domain"]
    cells = int(np.prod(r))
    expected = np.full(shape, SENTINEL, dtype=dtype)
    for box in fine_boxes:
        lo, hi = coarsen(box, r)
        for c in itertools.product(*[range(l, h) for l, h in zip(lo, hi)]):
            grids = np.meshgrid(*[np.arange(x * q, (x + 1) * q) for x, q in zip(c, r)], indexing="ij")
            total = np.sum(code(grids, dtype))  # small integers: exact in any order
            expected[c] = np.asarray(total * (1.0 / cells)).astype(dtype)  # sum * (1 / cells) as C++ does
    np.testing.assert_array_equal(coarse.gather_all(), expected)


@pytest.mark.parametrize("ghosts", [1, 3])
@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_fill_ghosts_at_the_coarse_fine_boundary(comm, ndim, ghosts):
    dtype = np.float64
    link, coarse, fine, r, fine_boxes = level_pair(ndim, 2, comm, dtype, ghosts=ghosts)
    fine_shape = tuple(n * q for n, q in zip(SETUPS[ndim]["domain"], r))
    fill_from(coarse, lambda g: linear(G, g, (1,) * ndim, dtype))
    fine.fill(SENTINEL)
    fill_from(fine, lambda g: linear(F, g, r, dtype))
    link.fill_ghosts(coarse, fine)
    interpolated = 0
    for _, grids, values in stored_patches(fine):
        in_domain = in_boxes(grids, [((0,) * ndim, fine_shape)])
        in_fine = in_boxes(grids, fine_boxes)
        expected = np.where(in_fine, linear(F, grids, r, dtype),
                            np.where(in_domain, linear(G, grids, r, dtype), SENTINEL))
        np.testing.assert_allclose(values, expected, **tolerance(dtype))
        interpolated += int(np.sum(in_domain & ~in_fine))
    if ghosts == 3 and ndim > 1:
        assert comm.allreduce(interpolated) > 0  # the test reaches the coarse/fine boundary


@pytest.mark.parametrize("dtype", DTYPES)
def test_fill_ghosts_blended_between_two_coarse_states(comm, dtype):
    link, old, fine, r, fine_boxes = level_pair(2, (3, 2), comm, dtype, ghosts=2)
    new = tessera.DistArray(old.domain, dtype, ghosts=1)
    fill_from(old, lambda g: linear(G, g, (1, 1), dtype))
    fill_from(new, lambda g: linear(F, g, (1, 1), dtype))
    fine_shape = tuple(n * q for n, q in zip(SETUPS[2]["domain"], r))
    for alpha in (0.25, 0.5):
        fine.fill(SENTINEL)
        fill_from(fine, lambda g: code(g, dtype))
        link.fill_ghosts(old, new, alpha, fine)
        for _, grids, values in stored_patches(fine):
            in_fine = in_boxes(grids, fine_boxes)
            gap = in_boxes(grids, [((0, 0), fine_shape)]) & ~in_fine
            expected = (1 - alpha) * linear(G, grids, r, dtype) + alpha * linear(F, grids, r, dtype)
            np.testing.assert_allclose(values[gap], expected[gap], **tolerance(dtype))
            assert np.all(values[in_fine] == code([g[in_fine] for g in grids], dtype).astype(dtype))
    for alpha, one in ((0.0, old), (1.0, new)):  # the ends are the one-state fills, bit for bit
        fine.fill(SENTINEL)
        link.fill_ghosts(old, new, alpha, fine)
        blended = [v for _, _, v in stored_patches(fine)]
        fine.fill(SENTINEL)
        link.fill_ghosts(one, fine)
        for a, b in zip(blended, [v for _, _, v in stored_patches(fine)]):
            np.testing.assert_array_equal(a, b)
    for bad in (1.5, -0.1, float("nan")):
        with pytest.raises(tessera.InvalidArgumentError, match="alpha"):
            link.fill_ghosts(old, new, bad, fine)


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_constant_interpolation_copies_the_coarse_cell(comm, ndim):
    ratio = RATIOS[ndim][1]
    link, coarse, fine, r, _ = level_pair(ndim, ratio, comm, np.float64, interpolation="constant")
    assert link.interpolation == "constant"
    fill_from(coarse, lambda g: np.sin(1.0 + code(g, np.float64)))
    fine.fill(SENTINEL)
    link.prolong(coarse, fine)
    for box, grids, values in stored_patches(fine):
        owned = in_boxes(grids, [box])
        under = [g[owned] // q for g, q in zip(grids, r)]
        np.testing.assert_array_equal(values[owned], np.sin(1.0 + code(under, np.float64)))


def test_prolong_outside_leaves_the_old_cells(comm):
    link, coarse, fine, r, fine_boxes = level_pair(2, 2, comm, np.float64)
    fill_from(coarse, lambda g: linear(G, g, (1, 1), np.float64))
    fine.fill(SENTINEL)
    old_boxes = [((0, 0), (4, 6)), ((14, 12), (20, 16))]  # parts of fine boxes 0 and 1, and beyond them
    old = tessera.box_set(old_boxes, [0, 0], domain=(32, 24))
    link.prolong_outside(coarse, fine, old)
    for box, grids, values in stored_patches(fine):
        owned = in_boxes(grids, [box])
        kept = owned & in_boxes(grids, old_boxes)
        assert np.all(values[kept] == SENTINEL)
        fresh = owned & ~kept
        np.testing.assert_allclose(values[fresh], linear(G, [g[fresh] for g in grids], r, np.float64), rtol=1e-12)
    with pytest.raises(tessera.InvalidArgumentError, match="box-set distribution"):
        link.prolong_outside(coarse, fine, tessera.Distribution((32, 24), [tessera.block(), tessera.block()]))
    with pytest.raises(tessera.InvalidArgumentError, match="box-set distribution"):
        link.prolong_outside(coarse, fine, old_boxes)


def test_link_properties_and_nesting_width(comm):
    link, coarse, fine, r, fine_boxes = level_pair(2, (3, 2), comm, np.float32, ghosts=2)
    boxes, owners = link.coarsened.box_set
    assert [tuple(map(tuple, b)) for b in boxes] == [coarsen(b, r) for b in fine_boxes]
    assert list(owners) == spread(fine_boxes, comm)
    assert link.coarsened.box == ((0, 0), SETUPS[2]["domain"])
    assert link.ndim == 2 and link.fine_domain is fine.domain and link.coarse_domain is coarse.domain
    assert tessera.LevelTransfer.nesting_width(2, 1) == 1
    assert tessera.LevelTransfer.nesting_width(2, 3) == 2
    assert tessera.LevelTransfer.nesting_width((2, 4), tessera.Ghosts(lower=(5, 1), upper=1)) == 3
    assert tessera.LevelTransfer.nesting_width(1, tessera.Ghosts((4, 2, 1))) == 4
    with pytest.raises(tessera.InvalidArgumentError, match="ratio"):
        tessera.LevelTransfer.nesting_width(0, 1)


# --- clustering ---------------------------------------------------------------------------------

def blocks_of(mask, bf, how):
    """The block image of a cell mask: a block (bf cells per axis) is any/all of its cells."""
    shape = []
    for n, b in zip(mask.shape, bf):
        shape += [n // b, b]
    r = mask.reshape(shape)
    axes = tuple(range(1, 2 * mask.ndim, 2))
    return r.any(axis=axes) if how == "any" else r.all(axis=axes)


def dilate(mask, width, outside):
    """Cells within `width` of a True cell (any(..)) or all of whose width-neighbours are True
    (all(..), cells outside the domain counting as `outside`), by brute force."""
    padded = np.pad(mask, width, constant_values=outside)
    out = np.full(mask.shape, outside)
    for off in itertools.product(range(-width, width + 1), repeat=mask.ndim):
        window = padded[tuple(slice(width + o, width + o + n) for o, n in zip(off, mask.shape))]
        out = (out & window) if outside else (out | window)
    return out


def box_mask(shape, boxes):
    m = np.zeros(shape, dtype=int)
    for lo, hi in boxes:
        m[tuple(slice(l, h) for l, h in zip(lo, hi))] += 1
    return m


def check_clusters(boxes, grown, allowed, bf, max_extent, efficiency):
    """The Berger-Rigoutsos invariants of `boxes` (coarse cells) for tags `grown` in the region
    `allowed` (cell masks): disjoint, aligned to bf, no longer than max_extent, inside the region,
    efficient or one block, and every tag whose block lies in the region covered."""
    count = box_mask(grown.shape, boxes)
    assert count.max(initial=0) <= 1, "boxes overlap"
    tagged = blocks_of(grown, bf, "any") & blocks_of(allowed, bf, "all")
    must = tagged
    for axis, b in enumerate(bf):
        must = np.repeat(must, b, axis=axis)
    assert np.all(count[must] == 1), "a tag in the allowed region is not covered"
    for lo, hi in boxes:
        assert all(l % b == 0 and h % b == 0 for l, h, b in zip(lo, hi, bf)), (lo, hi)
        assert all(h - l <= m for l, h, m in zip(lo, hi, max_extent)), (lo, hi)
        assert allowed[tuple(slice(l, h) for l, h in zip(lo, hi))].all(), (lo, hi)
        t = tagged[tuple(slice(l // b, h // b) for l, h, b in zip(lo, hi, bf))]
        assert t.size == 1 or t.mean() >= efficiency, (lo, hi, t.mean())


# Per dimension: a coarse level with a hole, for clustering.
HOLEY = {
    1: dict(domain=(32,), piece=(4,), hole=((20,), (24,))),
    2: dict(domain=(24, 16), piece=(4, 4), hole=((16, 0), (20, 8))),
    3: dict(domain=(12, 8, 8), piece=(4, 4, 4), hole=((8, 0, 0), (12, 4, 4))),
}


def holey_level(ndim, comm):
    s = HOLEY[ndim]
    hole = s["hole"]
    boxes = [b for b in chop(s["domain"], s["piece"]) if not all(l >= hl and h <= hh for l, h, hl, hh in
                                                                 zip(b[0], b[1], hole[0], hole[1]))]
    dist = tessera.box_set(boxes, tessera.assign_boxes(boxes, "morton"), domain=s["domain"])
    return dist, boxes, box_mask(s["domain"], boxes) > 0


def tag_image(shape, held):
    """Scattered tags and a blob beside the hole, on held cells."""
    grids = np.meshgrid(*[np.arange(n) for n in shape], indexing="ij")
    scattered = sum((7 * d + 3) * g for d, g in enumerate(grids)) % 13 == 0
    blob = sum((g - c) ** 2 for g, c in zip(grids, [n * 2 // 3 - 1 for n in shape])) <= 2
    return (scattered | blob) & held


@pytest.mark.parametrize("dtype", ["int32", "float64"])
@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_tag_and_cluster_invariants(comm, ndim, dtype):
    dist, boxes, held = holey_level(ndim, comm)
    shape = HOLEY[ndim]["domain"]
    tags = tessera.DistArray(tessera.Domain(dist), dtype)
    image = tag_image(shape, held)
    fill_from(tags, lambda g: image[tuple(g)].astype(dtype) * 3)
    bf, max_extent, efficiency, buffer, ratio = (2,) * ndim, (6,) * ndim, 0.6, 1, per_axis(RATIOS[ndim][1], ndim)
    new = tessera.tag_and_cluster(tags, ratio=ratio, efficiency=efficiency, blocking_factor=2, max_extent=6,
                                  buffer=buffer, nesting_width=1, assignment="morton")
    assert new.box == ((0,) * ndim, tuple(n * q for n, q in zip(shape, ratio)))
    fine_boxes, owners = new.box_set
    fine_boxes = [tuple(map(tuple, b)) for b in fine_boxes]
    assert fine_boxes and all(0 <= o < comm.Get_size() for o in owners)
    assert all(l % (b * q) == 0 for box in fine_boxes for l, b, q in zip(box[0], bf, ratio))
    coarse_boxes = [coarsen(b, ratio) for b in fine_boxes]
    allowed = dilate(held, 1, True) & held
    check_clusters(coarse_boxes, dilate(image, buffer, False), allowed, bf, max_extent, efficiency)
    tessera.check_proper_nesting(dist, new, ratio)  # raises if not nested
    assert comm.allgather(fine_boxes) == [fine_boxes] * comm.Get_size()  # the same set on every rank
    # The same boxes as cluster_tags on the grown tags inside the nesting region.
    grown = np.argwhere(dilate(image, buffer, False))
    direct = tessera.cluster_tags(grown, shape, efficiency, 2, 6, allowed=tessera.nesting_region(dist, 1))
    assert sorted(coarse_boxes) == sorted(tuple(map(tuple, b)) for b in direct)


@pytest.mark.parametrize("width", [1, 2])
@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_nesting_region_and_proper_nesting_against_brute_force(comm, ndim, width):
    dist, boxes, held = holey_level(ndim, comm)
    region = tessera.nesting_region(dist, width)
    count = box_mask(held.shape, region)
    assert count.max() <= 1
    np.testing.assert_array_equal(count > 0, dilate(held, width, True) & held)
    fine_shape = tuple(2 * n for n in HOLEY[ndim]["domain"])
    hole_lo = HOLEY[ndim]["hole"][0]
    beside = (hole_lo[0] - 1,) + tuple(hole_lo[1:])  # a held cell next to the hole
    bad = tessera.box_set([refine((beside, tuple(x + 1 for x in beside)), (2,) * ndim)], [0], domain=fine_shape)
    with pytest.raises(tessera.InvalidArgumentError, match="not properly nested"):
        tessera.check_proper_nesting(dist, bad, 2, width)
    inner = tessera.box_set([refine(region[0], (2,) * ndim)], [0], domain=fine_shape)
    tessera.check_proper_nesting(dist, inner, 2, width)
    with pytest.raises(tessera.InvalidArgumentError, match="refined coarse domain"):
        tessera.check_proper_nesting(dist, inner, 3, width)
    misaligned = tessera.box_set([((1,) * ndim, (3,) * ndim)], [0], domain=fine_shape)
    with pytest.raises(tessera.InvalidArgumentError, match="not aligned"):
        tessera.check_proper_nesting(dist, misaligned, 2)


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_cluster_tags_invariants_and_order(comm, ndim):
    rng = np.random.default_rng(40 + ndim)  # the same tags on every rank
    shape = (24, 16, 8)[:ndim]
    tags = np.unique(rng.integers(0, shape, size=(30, ndim)), axis=0)
    bf, max_extent, efficiency = (2,) * ndim, (8,) * ndim, 0.5
    boxes = [tuple(map(tuple, b)) for b in tessera.cluster_tags(tags, shape, efficiency, 2, 8)]
    check_clusters(boxes, box_mask(shape, [(t, tuple(x + 1 for x in t)) for t in tags]) > 0,
                   np.ones(shape, dtype=bool), bf, max_extent, efficiency)
    assert boxes == sorted(boxes)
    again = [tuple(map(tuple, b)) for b in tessera.cluster_tags(tags[::-1], shape, efficiency, 2, 8)]
    assert again == boxes
    assert tessera.cluster_tags([], shape) == []
    with pytest.raises(tessera.InvalidArgumentError, match="efficiency"):
        tessera.cluster_tags(tags, shape, efficiency=0.0)
    with pytest.raises(tessera.InvalidArgumentError, match="max_extent"):
        tessera.cluster_tags(tags, shape, blocking_factor=4, max_extent=2)
    with pytest.raises(tessera.OutOfRangeError, match="not in the domain"):
        tessera.cluster_tags([shape], shape)


# --- regrid and hierarchies ---------------------------------------------------------------------

def blob_tags(dom, centre, radius=1):
    tags = tessera.DistArray(dom, np.int32)
    fill_from(tags, lambda g: (sum((x - c) ** 2 for x, c in zip(g, centre)) <= radius ** 2).astype(np.int32))
    return tags


def test_regrid_level_keeps_old_values_and_prolongs_new_cells(comm):
    coarse_boxes = chop((16, 16), (4, 4))
    cdom = tessera.Domain(tessera.box_set(coarse_boxes, tessera.assign_boxes(coarse_boxes), domain=(16, 16)))
    u = tessera.DistArray(cdom, np.float64, ghosts=1)
    fill_from(u, lambda g: linear(G, g, (1, 1), np.float64))
    first = tessera.tag_and_cluster(blob_tags(cdom, (5, 5), 2), ratio=2, blocking_factor=2)
    fdom = tessera.Domain(first)
    f = tessera.DistArray(fdom, np.float64, ghosts=1)
    other = tessera.DistArray(fdom, np.float64)
    fill_from(f, lambda g: 1000.0 + 100 * g[0] + g[1])
    other.fill(7.0)
    second = tessera.tag_and_cluster(blob_tags(cdom, (8, 8), 2), ratio=2, blocking_factor=2)
    old_boxes = [tuple(map(tuple, b)) for b in first.box_set[0]]
    new_boxes = [tuple(map(tuple, b)) for b in second.box_set[0]]
    grid = np.meshgrid(np.arange(32), np.arange(32), indexing="ij")
    assert np.any(in_boxes(grid, new_boxes) & in_boxes(grid, old_boxes))  # kept cells
    assert np.any(in_boxes(grid, new_boxes) & ~in_boxes(grid, old_boxes))  # new cells

    # A view held on the rank owning fine box 0 refuses the move on every rank; nothing moves.
    view = f.local if comm.Get_rank() == first.box_set[1][0] else None
    with pytest.raises(tessera.ViewsHeldError, match="alive on rank"):
        tessera.regrid_level(u, fdom, second, [f], 2, 1)
    assert fdom.distribution == first
    del view
    # Bad input changes nothing either.
    with pytest.raises(tessera.InvalidArgumentError, match="not aligned"):
        tessera.regrid_level(u, fdom, tessera.box_set([((1, 1), (5, 5))], [0], domain=(32, 32)), [f], 2, 1)
    with pytest.raises(tessera.InvalidArgumentError, match="box-set distribution"):
        tessera.regrid_level(u, fdom, tessera.Distribution((32, 32), [tessera.block(), tessera.block()]), [f], 2, 1)
    with pytest.raises(tessera.InvalidArgumentError, match=r"fine_arrays\[1\]"):
        tessera.regrid_level(u, fdom, second, [f, u], 2, 1)
    with pytest.raises(tessera.InvalidArgumentError, match="int64"):
        tessera.regrid_level(tessera.DistArray(cdom, np.int64), fdom, second, [], 2, 1)
    assert fdom.distribution == first

    link = tessera.regrid_level(u, fdom, second, [f], 2, 1)
    assert isinstance(link, tessera.LevelTransfer) and link.ratio == (2, 2)
    assert fdom.distribution == second and link.fine_domain is fdom
    for box, grids, values in stored_patches(f):
        owned = in_boxes(grids, [box])
        kept = owned & in_boxes(grids, old_boxes)
        np.testing.assert_array_equal(values[kept], 1000.0 + 100 * grids[0][kept] + grids[1][kept])
        fresh = owned & ~kept
        np.testing.assert_allclose(values[fresh], linear(G, [g[fresh] for g in grids], (2, 2), np.float64),
                                   rtol=1e-12)
    for box, grids, values in stored_patches(other):  # not listed: kept values, new cells 0
        kept = in_boxes(grids, old_boxes)
        assert np.all(values[kept] == 7.0) and np.all(values[~kept] == 0.0)
    link.fill_ghosts(u, f)  # the returned link works on the new level
    link.restrict_to(f, u)


def test_tag_and_cluster_under_a_finer_level_keeps_it_nested(comm):
    coarse_boxes = chop((16, 16), (4, 4))
    level0 = tessera.box_set(coarse_boxes, tessera.assign_boxes(coarse_boxes), domain=(16, 16))
    d0 = tessera.Domain(level0)
    level1 = tessera.tag_and_cluster(blob_tags(d0, (5, 5), 2), ratio=2, blocking_factor=2)
    level2 = tessera.tag_and_cluster(blob_tags(tessera.Domain(level1), (10, 10), 1), ratio=2, blocking_factor=2)
    h = tessera.LevelHierarchy(level0).with_level(1, level1, 2).with_level(2, level2, 2)
    assert isinstance(h, tessera.LevelHierarchy) and h.levels == 3 and h.nesting_width == 1
    assert h.level(2) == level2 and h.ratio(2) == (2, 2) and h.ratio(0) == (1, 1)
    assert "LevelHierarchy2D(box_set(" in repr(h)

    elsewhere = blob_tags(d0, (11, 11), 1)  # far from level 2's cells
    alone = tessera.tag_and_cluster(elsewhere, ratio=2, blocking_factor=2)
    with pytest.raises(tessera.InvalidArgumentError, match="level 2 in the new level 1"):
        h.regridded(1, alone, 2)
    keeping = tessera.tag_and_cluster(elsewhere, ratio=2, blocking_factor=2, finer=level2, finer_ratio=2)
    tessera.check_proper_nesting(keeping, level2, 2)
    h2 = h.regridded(1, keeping, 2)
    assert h2.levels == 3 and h2.level(1) == keeping and h2.level(2) == level2
    assert h.level(1) == level1  # immutable
    assert h.with_level(1, alone, 2).levels == 2  # with_level drops the finer levels
    with pytest.raises(tessera.InvalidArgumentError, match="finer"):
        tessera.tag_and_cluster(elsewhere, ratio=2, finer=level2, finer_ratio=3)
    with pytest.raises(tessera.OutOfRangeError, match="level 3 does not exist"):
        h.level(3)
    with pytest.raises(tessera.OutOfRangeError, match="level -1 does not exist"):
        h.ratio(-1)
    with pytest.raises(tessera.InvalidArgumentError, match="must be >= 1"):
        h.with_level(0, level1, 2)
    with pytest.raises(tessera.InvalidArgumentError, match="must be in"):
        h.with_level(5, level1, 2)
    with pytest.raises(tessera.InvalidArgumentError, match="must be in"):
        h.regridded(3, level1, 2)
    with pytest.raises(tessera.InvalidArgumentError, match="box-set distribution"):
        tessera.LevelHierarchy(tessera.Distribution((16, 16), [tessera.block(), tessera.block()]))


def test_bad_input_raises_on_every_rank(comm):
    coarse_dist, fine_dist, r, _ = two_levels(2, 2, comm)
    cdom, fdom = tessera.Domain(coarse_dist), tessera.Domain(fine_dist)
    for dtype in ("int32", "int64"):
        with pytest.raises(tessera.InvalidArgumentError, match=f"'dtype' = {dtype} is not one of float32"):
            tessera.LevelTransfer(cdom, fdom, 2, 1, dtype=dtype)
    with pytest.raises(tessera.InvalidArgumentError, match="ratio"):
        tessera.LevelTransfer(cdom, fdom, 0, 1)
    with pytest.raises(tessera.InvalidArgumentError, match="ratio"):
        tessera.LevelTransfer(cdom, fdom, (2, -1), 1)
    with pytest.raises(tessera.InvalidArgumentError, match="interpolation"):
        tessera.LevelTransfer(cdom, fdom, 2, 1, interpolation="cubic")
    block = tessera.Domain(tessera.Distribution(SETUPS[2]["domain"], [tessera.block(), tessera.block()]))
    with pytest.raises(tessera.InvalidArgumentError, match="box set"):
        tessera.LevelTransfer(block, fdom, 2, 1)
    with pytest.raises(tessera.InvalidArgumentError, match="domain"):
        tessera.LevelTransfer(cdom, fdom, 3, 1)  # the fine domain is not the coarse one refined by 3
    holey = tessera.Domain(tessera.box_set([((0, 0), (16, 4)), ((0, 4), (6, 12))], [0, 0], domain=(16, 12)))
    with pytest.raises(tessera.InvalidArgumentError, match="not properly nested"):
        tessera.LevelTransfer(holey, fdom, 2, 1)
    link = tessera.LevelTransfer(cdom, fdom, 2, 1)
    coarse = tessera.DistArray(cdom, np.float64)
    fine = tessera.DistArray(fdom, np.float64, ghosts=1)
    with pytest.raises(tessera.InvalidArgumentError, match="not over the coarse distribution"):
        link.prolong(tessera.DistArray(holey, np.float64), fine)
    with pytest.raises(tessera.InvalidArgumentError, match="wider ghosts"):
        link.fill_ghosts(coarse, tessera.DistArray(fdom, np.float64, ghosts=2))
    with pytest.raises(TypeError):
        link.prolong(coarse, tessera.DistArray(fdom, np.float32))  # another element type: Python's own error
    with pytest.raises(tessera.InvalidArgumentError, match="argument 'tags'"):
        tessera.tag_and_cluster([1, 0, 1])
    tags = tessera.DistArray(cdom, np.int32)
    with pytest.raises(tessera.InvalidArgumentError, match="efficiency"):
        tessera.tag_and_cluster(tags, efficiency=1.5)
    with pytest.raises(tessera.InvalidArgumentError, match="assignment"):
        tessera.tag_and_cluster(tags, assignment="round-robin")
    with pytest.raises(tessera.InvalidArgumentError, match="buffer"):
        tessera.tag_and_cluster(tags, buffer=-1)
    with pytest.raises(tessera.InvalidArgumentError, match="ratio"):
        tessera.tag_and_cluster(tags, ratio=0)
    with pytest.raises(tessera.InvalidArgumentError, match="box set"):
        tessera.tag_and_cluster(tessera.DistArray(block, np.int32))
    with pytest.raises(tessera.InvalidArgumentError, match="box-set distribution"):
        tessera.check_proper_nesting([((0, 0), (4, 4))], fine_dist, 2)
    with pytest.raises(tessera.InvalidArgumentError, match="box-set distribution of 2"):
        tessera.check_proper_nesting(coarse_dist, tessera.box_set([((0,), (4,))], [0]), 2)
    with pytest.raises(tessera.InvalidArgumentError, match="width"):
        tessera.nesting_region(coarse_dist, -1)


def python_blocks(path):
    """The ```python blocks of a markdown file that follow the marker the docs put before a block
    this test runs."""
    with open(path) as f:
        text = f.read()
    return re.findall(r"<!-- run by python/tests/test_levels.py -->\n```python\n(.*?)```", text, re.S)


def test_the_docs_example_runs(comm):
    path = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "python.md")
    blocks = python_blocks(path)
    assert len(blocks) == 1
    scope = {}
    exec(compile(blocks[0], path, "exec"), scope)
    u, f, levels, link = scope["u"], scope["f"], scope["levels"], scope["link"]
    assert levels.levels == 2 and link.ratio == (2, 2)
    fine_boxes = [tuple(map(tuple, b)) for b in f.domain.distribution.box_set[0]]
    assert fine_boxes == [tuple(map(tuple, b)) for b in levels.level(1).box_set[0]]
    # The level follows the blob: every coarse cell over the threshold is under a fine box.
    whole = u.gather_all()
    grid = np.meshgrid(np.arange(64), np.arange(64), indexing="ij")
    covered = in_boxes(grid, fine_boxes).reshape(32, 2, 32, 2).all(axis=(1, 3))
    assert np.all(covered[whole > 0.1])
