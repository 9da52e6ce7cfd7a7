"""Multiblock domains (Multiblock PARTI): several blocks, each an index space of its own with its own
distribution, glued at faces with orientations; the Python faces of MultiblockDomain<N> and
MultiblockArray<T, N>, dispatching on the number of dimensions and the element type to the
compiled classes MultiblockDomain<N>D and MultiblockArray_<dtype>_<N>D (docs/python.md,
"Multiblock domains")."""
import abc
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from . import _tessera
from ._arrays import DTYPES, _compiled_array
from ._layout import _box_lists


def _invalid(message):
    from ._errors import InvalidArgumentError
    return InvalidArgumentError(message)


@dataclass(frozen=True)
class BlockFace:
    """The face of block `block` at the upper (`upper=True`) or lower end of `axis`; `cells`: the
    part of it glued, a box ((lo...), (hi...)) in the block's coordinates one cell thick at that
    side (None: the whole face)."""

    block: int
    axis: int
    upper: bool
    cells: Optional[Sequence] = None

    def _args(self):
        """(block, axis, upper, lo, hi) as the compiled module reads a face (lo, hi empty: whole)."""
        lo, hi = ([], []) if self.cells is None else _box_lists(self.cells)
        return int(self.block), int(self.axis), bool(self.upper), [int(x) for x in lo], [int(x) for x in hi]


def _face(face):
    """A BlockFace from a BlockFace or a tuple (block, axis, upper[, cells])."""
    return face if isinstance(face, BlockFace) else BlockFace(*face)


@dataclass(frozen=True)
class BlockInterface:
    """Face `a` glued to face `b` (BlockFace objects or (block, axis, upper[, cells]) tuples):
    crossing a outwards enters b inwards. The orientation maps offsets along b onto offsets along a:
    a's axis d runs along b's axis perm[d], backwards where flip[d] (None: identity, no flips). So
    perm[a.axis] == b.axis, and a's normal axis is flipped exactly when both faces are on the same
    side. A block's upper face glued to its own lower face of the same axis makes it periodic."""

    a: BlockFace
    b: BlockFace
    perm: Optional[Sequence[int]] = None
    flip: Optional[Sequence[bool]] = None

    def _args(self):
        perm = [] if self.perm is None else [int(p) for p in self.perm]
        flip = [] if self.flip is None else [bool(f) for f in self.flip]
        return _face(self.a)._args(), _face(self.b)._args(), perm, flip


class MultiblockDomain(abc.ABC):
    """`MultiblockDomain(blocks, interfaces=(), max_ghost_width=4, comm=None)`: `blocks` a list of
    Distributions of one dimension (1-3), block b's index space being blocks[b].box, each over the
    ranks of `comm` (MPI.COMM_WORLD by default); `interfaces` a list of BlockInterface;
    `max_ghost_width` the widest ghost layer its arrays may have. Returns a MultiblockDomain<N>D.
    Collective (the communicator is duplicated on first use); bad input raises the same error on
    every rank before anything is communicated."""

    def __new__(cls, blocks, interfaces=(), max_ghost_width=4, comm=None):
        blocks = list(blocks)
        if not blocks:
            raise _invalid("MultiblockDomain: argument 'blocks' = [] must hold at least one block")
        ndim = blocks[0].ndim
        for b, dist in enumerate(blocks):
            if dist.ndim != ndim:
                raise _invalid(f"MultiblockDomain: block {b} is {dist.ndim}-dimensional, block 0 {ndim}-dimensional: "
                               f"every block must have the same number of dimensions")
        glued = [(i if isinstance(i, BlockInterface) else BlockInterface(*i))._args() for i in interfaces]
        return getattr(_tessera, f"MultiblockDomain{ndim}D")(blocks, glued, int(max_ghost_width), comm)


class MultiblockArray(abc.ABC):
    """`MultiblockArray(domain, dtype=np.float64, ghosts=None)`: values over every block of the
    MultiblockDomain `domain` (every element zero); `ghosts` None, an int or a Ghosts (not
    periodic: a block is periodic by an interface with itself; at most domain.max_ghost_width
    wide). Returns a MultiblockArray_<dtype>_<N>D."""

    def __new__(cls, domain, dtype=np.float64, ghosts=None):
        return _compiled_array("MultiblockArray", domain, dtype, ghosts)


for _n in (1, 2, 3):
    MultiblockDomain.register(getattr(_tessera, f"MultiblockDomain{_n}D"))
    for _name in DTYPES:
        MultiblockArray.register(getattr(_tessera, f"MultiblockArray_{_name}_{_n}D"))
