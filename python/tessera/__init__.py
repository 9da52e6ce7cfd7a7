"""tessera: distributed multi-dimensional arrays whose distribution changes at run time.

    from mpi4py import MPI          # optional: tessera imports it too
    import numpy as np
    import tessera

    dist = tessera.Distribution((256, 256), [tessera.block(), tessera.block()])
    dom = tessera.Domain(dist)                        # over MPI.COMM_WORLD (or comm=...)
    u = tessera.DistArray(dom, np.float64, ghosts=1)
    u.local[...] = 1.0                                # the owned part, a NumPy view (no copy)
    u.update_ghosts()                                 # Collective
    print(u.sum())

docs/python.md describes every class and operation, the rule for NumPy views and the errors.
"""
import atexit as _atexit

# mpi4py first: importing mpi4py.MPI initialises MPI (unless mpi4py.rc.initialize is False), and
# the compiled module reads communicators through mpi4py's C API.
from mpi4py import MPI as _MPI

from . import _tessera
from ._errors import (Error, InvalidArgumentError, OutOfRangeError, IndexOverflowError, MismatchError, MPIError,
                      FileIOError, InternalError, OutOfMemoryError, ViewsHeldError)

if not _MPI.Is_initialized():
    # mpi4py was told not to initialise MPI: tessera does, and finalises it at exit.
    _tessera._initialize_mpi()
    _atexit.register(_tessera._finalize_mpi)

from ._tessera import (DimSpec, block, cut, cut_weights, cyclic, block_cyclic, collapsed, irregular, flooded,
                       Redistribution, CombineOp, SectionTimer, BalanceStep, relabel_for_locality, with_local_order, copy,
                       copy_section, flood, transpose, reduce_into, reduced_distribution, save, load,
                       saved_boxes)
from ._layout import Ghosts, Distribution, Domain, from_spec, box_set, assign_boxes, chop_boxes, incremental_box_step
from ._arrays import DistArray, DTYPES
from ._collections import SparseDomain, SparseArray, AssociativeDomain, AssociativeArray, COLLECTION_DTYPES
from ._balance import Balancer, BoxBalancer
from ._pictures import Picture, show, plan
from ._groups import ProcessorGroups, copy_between_groups, copy_section_between_groups
from ._multiblock import BlockFace, BlockInterface, MultiblockDomain, MultiblockArray
from ._levels import (LevelTransfer, LEVEL_DTYPES, INTERPOLATIONS, tag_and_cluster, regrid_level, LevelHierarchy,
                      check_proper_nesting, nesting_region, cluster_tags)
from . import boundary

__all__ = [
    "Error", "InvalidArgumentError", "OutOfRangeError", "IndexOverflowError", "MismatchError", "MPIError",
    "FileIOError", "InternalError", "OutOfMemoryError", "ViewsHeldError",
    "DimSpec", "block", "cut", "cut_weights", "cyclic", "block_cyclic", "collapsed", "irregular", "flooded",
    "Ghosts", "Distribution", "Domain", "from_spec", "box_set", "assign_boxes", "chop_boxes", "incremental_box_step", "relabel_for_locality", "with_local_order", "Redistribution",
    "DistArray", "DTYPES", "SparseDomain", "SparseArray", "AssociativeDomain", "AssociativeArray", "COLLECTION_DTYPES", "CombineOp", "copy", "copy_section", "flood", "transpose", "reduce_into", "reduced_distribution",
    "Balancer", "BoxBalancer", "SectionTimer", "BalanceStep", "save", "load", "saved_boxes", "Picture", "show", "plan",
    "ProcessorGroups", "copy_between_groups", "copy_section_between_groups", "boundary",
    "BlockFace", "BlockInterface", "MultiblockDomain", "MultiblockArray",
    "LevelTransfer", "LEVEL_DTYPES", "INTERPOLATIONS", "tag_and_cluster", "regrid_level", "LevelHierarchy",
    "check_proper_nesting", "nesting_region", "cluster_tags",
]
