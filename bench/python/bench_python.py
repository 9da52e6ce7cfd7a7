#!/usr/bin/env python3
"""The Python module's costs, in the records of bench/run_all.py (--json PATH), on the ranks it is
started on (2 in `make bench`):

- update_ghosts called from Python against the same update called in a C++ loop on the same array
  (`_timed_update_ghosts`): the Python call's overhead per call (target: at most 2 µs);
- a Jacobi loop with NumPy kernels over a tessera array (update_ghosts, then a 5-point average on
  the local views) against the same loop on mpi4py by hand (rows split into slabs, Sendrecv of the
  boundary rows into NumPy arrays with a ghost row above and below); both must compute the same
  values bit for bit.

    scripts/mpirun.sh 2 env PYTHONPATH=build/release/python python3 bench/python/bench_python.py --json out.json
"""
import argparse
import json
import statistics
import sys

import numpy as np
from mpi4py import MPI

import tessera

COMM = MPI.COMM_WORLD


def summary(samples):
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples)}


def record(op, case, mine, anchor=None, theirs=None, metric="median_s"):
    r = {"op": op, "ranks": COMM.size, "case": case, "metric": metric, "tessera": mine["median"],
         "min": mine["min"], "max": mine["max"], "anchor": anchor, "anchor_value": None, "ratio": None}
    if anchor is not None:
        r["anchor_value"] = theirs["median"]
        r["ratio"] = mine["median"] / theirs["median"]
    return r


def slowest(seconds):
    """The largest figure over the ranks (every rank returns it)."""
    return COMM.allreduce(seconds, op=MPI.MAX)


def ghost_update_overhead(n, calls, repetitions):
    dom = tessera.Domain(tessera.Distribution((n, n), [tessera.block(), tessera.block()]))
    a = tessera.DistArray(dom, np.float64, ghosts=tessera.Ghosts(1, periodic=True))
    a.update_ghosts()  # the first update builds and caches the plan
    from_python, from_cpp = [], []
    for _ in range(repetitions):  # interleaved, so that both see the same machine
        COMM.Barrier()
        t0 = MPI.Wtime()
        for _ in range(calls):
            a.update_ghosts()
        from_python.append(slowest(MPI.Wtime() - t0) / calls)
        COMM.Barrier()
        from_cpp.append(slowest(a._timed_update_ghosts(calls)) / calls)
    py, cpp = summary(from_python), summary(from_cpp)
    case = f"update_ghosts-{n}x{n}-periodic"
    overhead = {k: (py["median"] - cpp["median"]) for k in ("median", "min", "max")}
    return [record("python_ghost_update", case, py, "cpp-call", cpp),
            record("python_ghost_update", case + "-overhead", overhead, metric="overhead_s")]


def jacobi_tessera(n, iterations):
    p = COMM.size
    dom = tessera.Domain(tessera.Distribution((n, n), [tessera.block(), tessera.collapsed()], grid=(p, 1)))
    u = tessera.DistArray(dom, np.float64, ghosts=tessera.Ghosts(lower=[1, 0], upper=[1, 0]))
    rows = u.global_indices(0)
    view = u.local
    view[...] = np.asarray(rows, dtype=np.float64)[:, None] * 1e-3 + np.arange(n) * 1e-4
    del view
    COMM.Barrier()
    t0 = MPI.Wtime()
    for _ in range(iterations):
        u.update_ghosts()
        g = u.local_with_ghosts
        inner = 0.25 * (g[:-2, :] + g[2:, :] + np.roll(g[1:-1, :], 1, axis=1) + np.roll(g[1:-1, :], -1, axis=1))
        g[1:-1, :] = inner
        del g
    seconds = slowest(MPI.Wtime() - t0) / iterations
    return seconds, u.gather(0)


def jacobi_by_hand(n, iterations):
    p, r = COMM.size, COMM.rank
    first = r * (n // p) + min(r, n % p)  # block(): the first n % p ranks get one more row
    count = n // p + (1 if r < n % p else 0)
    g = np.zeros((count + 2, n))
    g[1:-1, :] = np.arange(first, first + count, dtype=np.float64)[:, None] * 1e-3 + np.arange(n) * 1e-4
    up = r - 1 if r > 0 else MPI.PROC_NULL
    down = r + 1 if r < p - 1 else MPI.PROC_NULL
    COMM.Barrier()
    t0 = MPI.Wtime()
    for _ in range(iterations):
        COMM.Sendrecv(g[1, :], dest=up, recvbuf=g[-1, :], source=down)
        COMM.Sendrecv(g[-2, :], dest=down, recvbuf=g[0, :], source=up)
        inner = 0.25 * (g[:-2, :] + g[2:, :] + np.roll(g[1:-1, :], 1, axis=1) + np.roll(g[1:-1, :], -1, axis=1))
        g[1:-1, :] = inner
    seconds = slowest(MPI.Wtime() - t0) / iterations
    parts = COMM.gather(g[1:-1, :].copy(), root=0)
    return seconds, np.concatenate(parts) if r == 0 else None


def jacobi(n, iterations, repetitions):
    mine, theirs = [], []
    for _ in range(repetitions):
        s, a = jacobi_tessera(n, iterations)
        mine.append(s)
        s, b = jacobi_by_hand(n, iterations)
        theirs.append(s)
        same = COMM.bcast(bool(np.array_equal(a, b)) if COMM.rank == 0 else None, root=0)
        if not same:
            raise SystemExit("bench_python: the tessera and mpi4py Jacobi loops computed different values")
    return [record("python_jacobi", f"numpy-5point-{n}x{n}", summary(mine), "mpi4py-sendrecv", summary(theirs))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the records here")
    parser.add_argument("--halo-n", type=int, default=64)
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--jacobi-n", type=int, default=1024)
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--repetitions", type=int, default=7)
    args = parser.parse_args()
    records = ghost_update_overhead(args.halo_n, args.calls, args.repetitions)
    records += jacobi(args.jacobi_n, args.iterations, args.repetitions)
    if COMM.rank == 0:
        for r in records:
            ratio = f"  ratio {r['ratio']:.3f} vs {r['anchor']}" if r["ratio"] is not None else ""
            print(f"{r['op']:22s} {r['case']:36s} {r['tessera'] * 1e6:10.2f} us{ratio}", file=sys.stderr)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(records, f, indent=2)


if __name__ == "__main__":
    main()
