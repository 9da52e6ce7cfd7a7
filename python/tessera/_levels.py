"""The AMR levels (docs/python.md, "Levels (AMR)"): the Python faces of LevelTransfer<T, N>,
tag_and_cluster, regrid_level, LevelHierarchy<N>, check_proper_nesting, nesting_region and
cluster_tags, dispatching on the element type and the number of dimensions to the compiled
classes LevelTransfer_<dtype>_<N>D and LevelHierarchy<N>D. A level's box set is a box-set
Distribution (tessera.box_set), as everywhere in the module."""
import abc

import numpy as np

from . import _tessera
from ._arrays import DistArray, _dtype_name
from ._layout import Ghosts, _box_lists

#: The element types LevelTransfer and regrid_level take: interpolation and averaging need a
#: floating type.
LEVEL_DTYPES = ("float32", "float64", "complex128")

#: The built-in interpolators (C++ linear_interpolation, piecewise_constant).
INTERPOLATIONS = ("linear", "constant")


def _invalid(message):
    from ._errors import InvalidArgumentError
    return InvalidArgumentError(message)


def _ghost_args(ghosts, ndim):
    return tuple(Ghosts.of(ghosts).lists(ndim))


def _transfer_class(where, dtype, ndim, argument="dtype"):
    return getattr(_tessera, f"LevelTransfer_{_dtype_name(where, dtype, LEVEL_DTYPES, argument)}_{ndim}D")


def _ndim_of(*values):
    """The length of the first sequence among `values` (Ghosts looked into), or None."""
    for v in values:
        if isinstance(v, Ghosts):
            n = _ndim_of(v.width, v.lower, v.upper, v.periodic)
            if n is not None:
                return n
        elif isinstance(v, (list, tuple, np.ndarray)):
            return len(v)
    return None


class LevelTransfer(abc.ABC):
    """`LevelTransfer(coarse_domain, fine_domain, ratio, fine_ghosts, dtype=np.float64,
    interpolation="linear")`: prolongation and restriction between the arrays of element type
    `dtype` (float32, float64, complex128) over two levels: `fine_domain` refined by `ratio` (an int
    or one per axis) from `coarse_domain`, both box sets, the fine one properly nested in the coarse
    one with width `LevelTransfer.nesting_width(ratio, fine_ghosts)`; its arrays have at most
    `fine_ghosts` (an int or a Ghosts) ghost layers. `interpolation`: "linear" (central slopes,
    exact on linear functions) or "constant". Not collective (rank-local planning); bad input raises
    the same error on every rank. Returns a LevelTransfer_<dtype>_<N>D."""

    def __new__(cls, coarse_domain, fine_domain, ratio, fine_ghosts, dtype=np.float64, interpolation="linear"):
        compiled = _transfer_class("LevelTransfer", dtype, fine_domain.ndim)
        return compiled(coarse_domain, fine_domain, ratio, _ghost_args(fine_ghosts, fine_domain.ndim),
                        str(interpolation))

    @staticmethod
    def nesting_width(ratio, fine_ghosts):
        """The nesting width (in coarse cells) a fine level with these ghosts needs in the coarse
        one: ceil(ghost width / ratio), at least 1."""
        ndim = _ndim_of(ratio, fine_ghosts) or 1
        lower, upper, _, _ = Ghosts.of(fine_ghosts).lists(ndim)
        return _tessera._nesting_width(ratio, lower, upper)


def tag_and_cluster(tags, ratio=2, efficiency=0.7, blocking_factor=1, max_extent=None, buffer=1, nesting_width=1,
                    assignment="knapsack", finer=None, finer_ratio=2):
    """Collective: the box set (a box-set Distribution) of a new level, refined by `ratio`, over the
    coarse level that `tags`, a DistArray of any element type, is over. The cells where `tags` is
    not 0 are tagged, grown by `buffer` cells, gathered on every rank and clustered alike
    (Berger-Rigoutsos: `efficiency` in (0, 1], boxes aligned to `blocking_factor` and at most
    `max_extent` long, in coarse cells; None: unlimited) inside the coarse level's nesting region of
    width `nesting_width`; the refined boxes are assigned by `assignment` ("knapsack" or "morton").
    `finer`: an existing finer level (a box-set Distribution, refined by `finer_ratio` from the new
    one) that the new level must keep properly nested."""
    if not isinstance(tags, DistArray):
        raise _invalid(f"tag_and_cluster: argument 'tags' = {tags!r} must be a DistArray over the coarse level "
                       f"(nonzero: tagged)")
    return _tessera._tag_and_cluster(tags, ratio, float(efficiency), blocking_factor, max_extent, int(buffer),
                                     int(nesting_width), str(assignment), finer, finer_ratio)


def regrid_level(coarse, fine_domain, to, fine_arrays, ratio, fine_ghosts, interpolation="linear"):
    """Collective: moves the fine level `fine_domain` onto the box set `to` (a box-set
    Distribution, e.g. from tag_and_cluster) and returns the new level's LevelTransfer. Every array
    of the domain keeps its values where the old and new levels overlap; in `fine_arrays` (a list of
    DistArrays over fine_domain, of coarse's element type) the new cells are interpolated from
    `coarse`, the others' new cells are 0. Raises ViewsHeldError on every rank, nothing moved,
    while a NumPy view of an array of fine_domain is alive; bad input (not nested, a ratio below 1)
    raises the same error on every rank with nothing changed."""
    if not isinstance(coarse, DistArray):
        raise _invalid(f"regrid_level: argument 'coarse' = {coarse!r} must be a DistArray over the coarse level")
    compiled = _transfer_class("regrid_level", coarse.dtype, coarse.ndim, argument="coarse.dtype")
    return compiled._regrid(coarse, fine_domain, to, list(fine_arrays), ratio,
                            _ghost_args(fine_ghosts, coarse.ndim), str(interpolation))


class LevelHierarchy(abc.ABC):
    """`LevelHierarchy(base, nesting_width=1)`: a hierarchy of one level, the box-set Distribution
    `base`; `with_level(l, set, ratio)` adds or replaces a level (checking proper nesting),
    `regridded(l, set, ratio)` replaces one keeping the finer levels. Immutable; rank-local.
    Returns a LevelHierarchy<N>D."""

    def __new__(cls, base, nesting_width=1):
        return _tessera._level_hierarchy(base, int(nesting_width))


def check_proper_nesting(coarse, fine, ratio, width=1):
    """Raises InvalidArgumentError unless the box set `fine` is properly nested in `coarse` (box-set
    Distributions) under `ratio` with nesting width `width`: fine's domain is coarse's refined, every
    fine box is aligned to the ratio, and the coarse cells under it, grown by `width` and clipped to
    the domain, are all held by coarse boxes. Rank-local."""
    _tessera._check_proper_nesting(coarse, fine, ratio, int(width))


def nesting_region(level, width=1):
    """The cells of the box set `level` whose `width`-neighbourhood (clipped to the domain) its
    boxes hold, where a finer level may lie: a list of disjoint boxes ((lo...), (hi...))."""
    return _tessera._nesting_region(level, int(width))


def cluster_tags(tags, domain, efficiency=0.7, blocking_factor=1, max_extent=None, allowed=None):
    """Berger-Rigoutsos clustering of the points `tags` (k points of N coordinates, an array-like
    of shape (k, N)) of `domain` (a shape or a box): boxes ((lo...), (hi...)), sorted, disjoint,
    aligned to `blocking_factor`, at most `max_extent` long, inside the union of `allowed` (disjoint
    boxes; None: all of domain), covering every tag whose block lies there. Rank-local."""
    lo, hi = _box_lists(domain)
    points = np.asarray(tags, dtype=np.int64)
    if points.size == 0 or points.ndim == 1:
        points = points.reshape(-1, len(lo))
    region = [(list(b[0]), list(b[1])) for b in (allowed or [])]
    return _tessera._cluster_tags(points, lo, hi, float(efficiency), blocking_factor, max_extent, region)


for _n in (1, 2, 3):
    LevelHierarchy.register(getattr(_tessera, f"LevelHierarchy{_n}D"))
    for _name in LEVEL_DTYPES:
        LevelTransfer.register(getattr(_tessera, f"LevelTransfer_{_name}_{_n}D"))
