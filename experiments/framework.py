"""What every experiment shares: how a program is launched (scripts/mpirun.sh, as the benchmarks do),
what a failed verification looks like, the machine facts each result file carries, repeated runs
summarised as median / min / max, and a least-squares line with its R².

An experiment is an `Experiment`: a name (the file experiments-results/<name>.json and the --only
key), the paper's claim and setting, and two functions: `run(ctx)` returns the records (bench format:
bench/support/bench_records.hpp) plus whatever the section needs ("data"), and `section(result, ctx)`
returns the markdown of its part of docs/experiments.md from that result alone, writing its plots.
A program that does not verify raises `VerificationFailed`: the result then holds the failure and
no times."""
import dataclasses
import os
import statistics
import subprocess
import sys
from typing import Callable

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from run_all import machine, mpi_version  # noqa: E402  (bench/run_all.py: the same machine facts)


class VerificationFailed(Exception):
    """A program's own check failed (or it did not finish): its timings must not be reported."""


@dataclasses.dataclass
class Context:
    build: str          # the CMake build folder
    out: str            # experiments-results/
    figures: str        # where the SVGs go (docs/experiments/)
    quick: bool         # the smoke sizes
    repeats: int        # launches per configuration (the spread comes from them)


@dataclasses.dataclass
class Experiment:
    name: str
    title: str          # "D3-ARC Fig. 8: ..."
    paper: str          # the paper's setting and claim, in a sentence or two
    run: Callable       # run(ctx) -> {"setting": str, "records": [...], "data": {...}}
    section: Callable   # section(result, ctx) -> markdown (table, plot, conclusion)
    programs: tuple = ()  # build targets it needs


def launch(ctx, ranks, program, args, expect, timeout=900):
    """Runs build/<program> on `ranks` local ranks; returns its stdout. Raises VerificationFailed
    if it exits non-zero or its output lacks the line `expect` (the program's own verification)."""
    cmd = [os.path.join(ROOT, "scripts", "mpirun.sh"), str(ranks), os.path.join(ctx.build, program), *map(str, args)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise VerificationFailed(f"{' '.join(cmd)}: no result within {timeout} s")
    if done.returncode != 0 or expect not in done.stdout:
        tail = (done.stdout + done.stderr).strip().splitlines()[-6:]
        raise VerificationFailed(f"{os.path.basename(program)} on {ranks} ranks exited {done.returncode} "
                                 f"without '{expect}': " + " / ".join(tail))
    return done.stdout


def summary(values):
    """Median, min and max of repeated measurements (the records' tessera / min / max)."""
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def record(op, case, ranks, metric, values, anchor=None, anchor_values=None):
    """One record in the bench format from repeated values (seconds, or any figure)."""
    s = summary(values)
    r = {"op": op, "ranks": ranks, "case": case, "metric": metric, "tessera": s["median"], "anchor": None,
         "anchor_value": None, "ratio": None, "min": s["min"], "max": s["max"], "repeats": s["n"]}
    if anchor:
        a = summary(anchor_values)
        r.update(anchor=anchor, anchor_value=a["median"], ratio=s["median"] / a["median"], anchor_min=a["min"],
                 anchor_max=a["max"])
    return r


def fit_line(xs, ys):
    """Least squares y = a + b x; returns (a, b, R²) (R² = 0 when y does not vary)."""
    n = len(xs)
    if n < 2:
        return float("nan"), float("nan"), float("nan")
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0:
        return my, 0.0, 0.0
    b = sxy / sxx
    a = my - b * mx
    return a, b, (sxy * sxy / (sxx * syy) if syy > 0 else 0.0)


def spread(s):
    """'1.23 (1.20-1.31)': a median with the min-max of its repeats, as every conclusion quotes it."""
    return f"{s['median']:.3g} ({s['min']:.3g}-{s['max']:.3g})"


def table(header, rows):
    """A markdown table."""
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out) + "\n"


def write_figure(ctx, name, svg):
    """Writes docs/experiments/<name>.svg; returns the markdown image line (relative to docs/)."""
    os.makedirs(ctx.figures, exist_ok=True)
    with open(os.path.join(ctx.figures, name + ".svg"), "w") as f:
        f.write(svg)
    return f"\n![{name}](experiments/{name}.svg)\n"


def facts():
    """Machine facts each result file carries."""
    return {"machine": machine(), "mpi": mpi_version(), "transport": os.environ.get("TESSERA_MPI_TRANSPORT", "shm")}
