"""Distributions, ghost layers and domains: the Python faces of Distribution<N>, GhostSpec<N>
and Domain<N>, which dispatch on the number of dimensions to the compiled classes
(Distribution1D .. Distribution3D, Domain1D .. Domain3D)."""
import abc
from dataclasses import dataclass
from typing import Sequence, Tuple, Union

from mpi4py import MPI

from . import _tessera


def _per_dim(value, ndim, what):
    """A list of ndim entries from a scalar or a sequence of ndim entries."""
    if isinstance(value, (list, tuple)):
        if len(value) != ndim:
            raise _tessera_error(f"{what}: {len(value)} entries given for {ndim} dimension(s)")
        return list(value)
    return [value] * ndim


def _tessera_error(message):
    from ._errors import InvalidArgumentError
    return InvalidArgumentError(message)


@dataclass(frozen=True)
class Ghosts:
    """Ghost layers of an array (C++ GhostSpec): widths below (`lower`) and above (`upper`) the
    owned box, per dimension or one for all; `periodic` dimensions wrap around; `corners=False`
    fills faces only (5- and 7-point stencils). `Ghosts(1)` is one layer everywhere."""

    width: Union[int, Sequence[int]] = 0
    lower: Union[int, Sequence[int], None] = None
    upper: Union[int, Sequence[int], None] = None
    periodic: Union[bool, Sequence[bool]] = False
    corners: bool = True

    def lists(self, ndim):
        """(lower, upper, periodic, corners) with one entry per dimension, as the C++ side takes them."""
        lower = _per_dim(self.width if self.lower is None else self.lower, ndim, "Ghosts.lower")
        upper = _per_dim(self.width if self.upper is None else self.upper, ndim, "Ghosts.upper")
        periodic = [bool(p) for p in _per_dim(self.periodic, ndim, "Ghosts.periodic")]
        return lower, upper, periodic, bool(self.corners)

    @staticmethod
    def of(ghosts):
        """Ghosts from None (none), an int (that width everywhere) or a Ghosts."""
        if ghosts is None:
            return Ghosts(0)
        if isinstance(ghosts, Ghosts):
            return ghosts
        return Ghosts(ghosts)


def _box_lists(box) -> Tuple[list, list]:
    """(lo, hi) from a shape (n, m) or a box ((lo...), (hi...))."""
    if len(box) == 2 and all(isinstance(b, (list, tuple)) for b in box):
        return list(box[0]), list(box[1])
    return [0] * len(box), list(box)


def _comm_size(comm, size):
    if size is not None:
        return int(size)
    return (comm if comm is not None else MPI.COMM_WORLD).Get_size()


class Distribution(abc.ABC):
    """Who owns each index: `Distribution(box, dims, grid=None, ranks=None, order=None, comm=None,
    size=None)` returns a Distribution1D/2D/3D (all instances of this class).

    box: a shape (n, m) or ((lo0, lo1), (hi0, hi1)); dims: one DimSpec per dimension (block(),
    cut([...]), cyclic(), ...); grid: the processor grid's shape (None: chosen for the data);
    ranks: which rank sits at each grid position (row-major), for a grid over some ranks; order:
    the dimension order; the distribution is laid out over `size` ranks, by default the size of
    `comm` (MPI.COMM_WORLD)."""

    def __new__(cls, box, dims, grid=None, ranks=None, order=None, comm=None, size=None):
        lo, hi = _box_lists(box)
        return _tessera._make_distribution(lo, hi, list(dims), list(grid or []), list(ranks or []),
                                           list(order or []), _comm_size(comm, size))


for _n in (1, 2, 3):
    Distribution.register(getattr(_tessera, f"Distribution{_n}D"))


def box_set(boxes, owners, domain=None, comm=None, size=None):
    """A box-set distribution (KeLP's FloorPlan; docs/box-sets.md): disjoint `boxes`, each a
    ((lo...), (hi...)), box i owned by rank owners[i]; `domain` (a shape or a box; None: the boxes'
    bounding box) holds them, and what no box holds is a hole. Accepted wherever a Distribution is.
    Every rank passes the same lists (nothing is communicated)."""
    lo, hi = _box_lists(domain) if domain is not None else ([], [])
    return _tessera._box_set([(list(b[0]), list(b[1])) for b in boxes], list(owners), lo, hi,
                             _comm_size(comm, size))


def assign_boxes(boxes, policy="knapsack", weights=None, comm=None, size=None):
    """One owner per box by `policy`: "knapsack" (heaviest box first, to the least loaded rank),
    "morton" (Morton order of the centres, cut into runs of equal weight) or "hilbert" (the same
    along the Hilbert curve); `weights` one per box, None for the cell counts. Deterministic."""
    return _tessera._assign_boxes([(list(b[0]), list(b[1])) for b in boxes], _comm_size(comm, size), policy,
                                  list(weights or []))


def chop_boxes(boxes, max_extent):
    """Every box (((lo...), (hi...)), hi exclusive) cut into the fewest near-equal pieces no longer
    than max_extent[d] along axis d, so that a few big boxes can be spread over many ranks: a list
    of ((lo...), (hi...)), the pieces of a box one after another in row-major order of their
    position; empty boxes vanish. A max_extent entry below 1 raises InvalidArgumentError."""
    return [(tuple(lo), tuple(hi)) for lo, hi in
            _tessera._chop_boxes([(list(b[0]), list(b[1])) for b in boxes], list(max_extent))]


def incremental_box_step(boxes, current, target, delta, weights=None, comm=None, size=None, max_cells=None):
    """D3-ARC's step for box sets: of the boxes whose owner in `target` differs from `current`,
    moves only those with the best gain per cell until a fraction `delta` (0 to 1) of the excess
    load is removed; `weights` one per box (measured seconds, say), None for the cell counts.
    `max_cells` (None: no budget) caps the cells the step moves, a byte budget over the bytes per
    cell: a box past it is passed over for the next best that fits.
    Returns a dict: "owners" (after the step), "moved" (indices of the boxes that change owner, best
    first), "cells" (cells they hold), "excess_before" and "excess_after" (sum over ranks of the
    load above the mean). Deterministic and local: every rank computes the same step."""
    owners, moved, cells, before, after = _tessera._incremental_box_step(
        [(list(b[0]), list(b[1])) for b in boxes], list(current), list(target), _comm_size(comm, size), float(delta),
        list(weights or []), max_cells)
    return {"owners": list(owners), "moved": list(moved), "cells": cells, "excess_before": before,
            "excess_after": after}


def from_spec(text, comm=None, size=None):
    """(distribution, ghosts) of a spec text (docs/spec-format.md), e.g.
    `from_spec("domain=64x64 grid=2x2 dist=block,cyclic ghosts=1p")`, over the size of `comm`."""
    dist, (lower, upper, periodic, corners) = _tessera._from_spec(text, _comm_size(comm, size))
    return dist, Ghosts(lower=lower, upper=upper, periodic=periodic, corners=corners)


class Domain(abc.ABC):
    """`Domain(distribution, comm=None)`: an index space and its distribution over an mpi4py
    communicator (MPI.COMM_WORLD by default), shared by the arrays over it; returns a
    Domain1D/2D/3D. Collective (the communicator is duplicated)."""

    def __new__(cls, distribution, comm=None):
        return getattr(_tessera, f"Domain{distribution.ndim}D")(distribution, comm)


for _n in (1, 2, 3):
    Domain.register(getattr(_tessera, f"Domain{_n}D"))
