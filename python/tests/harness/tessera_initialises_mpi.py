"""Run without pytest (ctest python.tessera_initialises_mpi.np<K>): a program that tells mpi4py not
to initialise MPI gets it initialised by `import tessera`, uses it, and exits cleanly (tessera
finalises MPI at exit)."""
import mpi4py

mpi4py.rc.initialize = False

from mpi4py import MPI  # noqa: E402

assert not MPI.Is_initialized()

import numpy as np  # noqa: E402

import tessera  # noqa: E402

assert MPI.Is_initialized()
dom = tessera.Domain(tessera.Distribution((10,), [tessera.block()]))
a = tessera.DistArray(dom, np.int64, ghosts=tessera.Ghosts(1, periodic=True))
a.fill(1)
a.update_ghosts()
assert a.sum() == 10
if MPI.COMM_WORLD.Get_rank() == 0:
    print("tessera initialised MPI: OK")
