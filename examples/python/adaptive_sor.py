#!/usr/bin/env python3
"""The adaptive red-black SOR demo (examples/adaptive_sor) in Python: -Δu = f on an n x n grid,
rows distributed over all ranks (block x collapsed), one ghost layer around (the rows above and
below updated before each half-sweep, the columns outside the domain the zero boundary), a tessera.Balancer measuring the sweeps and moving rows between ranks at remap
points, under an emulated load. The sweeps are NumPy expressions on the arrays' views; the
arithmetic is the C++ solver's, term for term, so the solution is the C++ program's bit for bit
(ctest example.python_adaptive_sor_matches_cpp compares them).

    scripts/mpirun.sh 2 python3 examples/python/adaptive_sor.py --n 256 --policies none horizon
"""
import argparse
import math
import time

import numpy as np

import tessera
from mpi4py import MPI


def parse_load(text):
    """'rank:factor@first-last,...' (iterations [first, last)) as a list of tuples; 'none': []."""
    if text == "none":
        return []
    periods = []
    for part in text.split(","):
        rank, rest = part.split(":")
        factor, span = rest.split("@")
        first, last = span.split("-")
        periods.append((int(rank), float(factor), int(first), int(last)))
    return periods


def slow_down(load, rank, iteration, seconds):
    """Sleeps (factor - 1) x seconds where an emulated load applies; returns the extra seconds
    (tessera::EmulatedLoad::slow_down)."""
    factor = 1.0
    for r, f, first, last in load:
        if r == rank and first <= iteration < last:
            factor *= f
    extra = (factor - 1.0) * seconds
    if extra > 0:
        time.sleep(extra)
    return extra


def scaled_source(f):
    """h² f at each owned point, with f such that u = sin(πx) sin(πy) solves -Δu = f. math.sin,
    the C library's sine, as the C++ solver's std::sin (NumPy's vectorised sine may differ in the
    last bit)."""
    n = f.shape[1]
    h = 1.0 / (n + 1)
    view = f.local
    rows = f.global_indices(0)
    sin_y = [math.sin(math.pi * ((j + 1) * h)) for j in range(n)]
    for a, i in enumerate(rows):
        sin_x = math.sin(math.pi * ((i + 1) * h))
        view[a, :] = [h * h * 2.0 * math.pi * math.pi * sin_x * s for s in sin_y]


def half_sweep(u, f, color, omega):
    """The points of colour `color` ((i + j) % 2 == color) get their SOR update, in the C++
    solver's order of operations. They read only the other colour, so updating them all at once
    from one expression is the same as the C++ loop, and the result does not depend on the
    distribution. Ghost cells outside the domain stay 0: the boundary."""
    g = u.local_with_ghosts  # owned rows and columns with one ghost layer around
    if g.shape[0] <= 2:
        return  # a rank balanced down to no rows
    centre = g[1:-1, 1:-1]
    gauss_seidel = 0.25 * ((((g[:-2, 1:-1] + g[2:, 1:-1]) + g[1:-1, :-2]) + g[1:-1, 2:]) + f.local)
    first = u.owned_box()[0][0]
    rows, cols = centre.shape
    mine = np.add.outer(np.arange(first, first + rows), np.arange(cols)) % 2 == color
    centre[mine] += (omega * (gauss_seidel - centre))[mine]


def run(comm, n, iterations, omega, interval, work_per_row, policy, load):
    """One run; returns (seconds, bytes moved, migrations, solution gathered on rank 0)."""
    p = comm.Get_size()
    dist = tessera.Distribution((n, n), [tessera.block(), tessera.collapsed()], grid=(p, 1))
    dom = tessera.Domain(dist, comm)
    u = tessera.DistArray(dom, np.float64, ghosts=1)  # ghosts beyond the domain stay 0: the boundary
    f = tessera.DistArray(dom, np.float64)
    scaled_source(f)
    balancer = tessera.Balancer(dom, policy or "none", interval=interval)
    moved = migrations = 0
    comm.Barrier()
    started = MPI.Wtime()
    for it in range(iterations):
        sweep = 0.0
        for color in (0, 1):
            u.update_ghosts()
            t0 = MPI.Wtime()
            half_sweep(u, f, color, omega)
            sweep += MPI.Wtime() - t0
        rows = dom.distribution.local_size(comm.Get_rank()) // n
        if work_per_row > 0 and rows > 0:
            t0 = MPI.Wtime()
            time.sleep(work_per_row * rows)
            sweep += MPI.Wtime() - t0
        sweep += slow_down(load, comm.Get_rank(), it, sweep)
        step = balancer.step(sweep)
        if step.bytes > 0:
            moved += step.bytes
            migrations += 1
    comm.Barrier()
    return MPI.Wtime() - started, moved, migrations, u.gather(0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=256, help="interior grid points per dimension")
    parser.add_argument("--iterations", type=int, default=100, help="SOR iterations per run")
    parser.add_argument("--interval", type=int, default=5, help="iterations between remap points")
    parser.add_argument("--work-per-row-us", type=float, default=40.0, help="emulated work per owned row, slept")
    parser.add_argument("--load", default="1:2@20-70", help="RANK:FACTOR@FIRST-LAST,... or none")
    parser.add_argument("--policies", nargs="+", default=["none", "horizon"], help="balancing policies to run")
    parser.add_argument("--solution-out", default="", help="write the unloaded run's solution (n x n doubles)")
    args = parser.parse_args()
    comm = MPI.COMM_WORLD
    root = comm.Get_rank() == 0
    load = [period for period in parse_load(args.load) if period[0] < comm.Get_size()]
    work = args.work_per_row_us * 1e-6
    omega = 1.9
    seconds, _, _, reference = run(comm, args.n, args.iterations, omega, args.interval, work, None, [])
    if root:
        print(f"adaptive SOR (Python): {args.n} x {args.n}, {args.iterations} iterations, {comm.Get_size()} ranks")
        print(f"| policy | time to solution (s) | vs unloaded | migrations | MB moved |\n|---|---|---|---|---|")
        print(f"| unloaded | {seconds:.3f} | 1.00 | 0 | 0 |")
        if args.solution_out:
            reference.tofile(args.solution_out)
    all_equal = True
    for policy in args.policies:
        s, moved, migrations, solution = run(comm, args.n, args.iterations, omega, args.interval, work, policy, load)
        if root:
            all_equal = all_equal and np.array_equal(solution, reference)
            print(f"| {policy} | {s:.3f} | {s / seconds:.2f} | {migrations} | {moved / 1e6:.1f} |")
    all_equal = comm.bcast(all_equal, root=0)
    if root:
        print("every run computed the unloaded run's solution bit for bit" if all_equal
              else "MISMATCH: a run computed a different solution")
    return 0 if all_equal else 1


if __name__ == "__main__":
    raise SystemExit(main())
