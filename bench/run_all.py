#!/usr/bin/env python3
"""Runs every benchmark driver and writes bench-results/latest.json (the records of
bench/support/bench_records.hpp), a timestamped copy, latest.md, a short markdown table, and
ratios.svg, the plot of every ratio against its anchor (bench/ratio_plot.py), which latest.md shows.
`--plot-from FILE` redraws latest.md and ratios.svg from an earlier results file without running
anything.

Google Benchmark drivers name each benchmark "op/case/impl"; impl is "tessera" or
"anchor=<name>". Each (op, case) with both becomes one record whose ratio is tessera / anchor
(lower is better); a case with no anchor gets a record with anchor, anchor_value and ratio null.

MPI drivers run their anchor in the same job and write their records themselves (--json PATH);
they are started with scripts/mpirun.sh on the number of ranks listed in MPI_DRIVERS.

Transport (`--transport`): by default the MPI drivers run over shared memory (OpenMPI's vader BTL),
then a reduced set (TCP_DRIVERS: halo and redistribution at moderate sizes) runs again with OpenMPI
forced to TCP (`--mca btl tcp,self`, through scripts/mpirun.sh's TESSERA_MPI_TRANSPORT=tcp), so the
network path is exercised too. Every MPI record carries "transport" ("shm" or "tcp"); the TCP
records' case also ends in "-tcp", so that both show side by side in the table and the plot.
`--transport shm` or `tcp` runs one pass only; `--tcp-full` runs every MPI driver over TCP with its
default arguments instead of the reduced set.

Launches (`--launches`, default 3): every driver runs in that many separate process launches
(tessera and its anchors interleaved inside each, as the drivers time them). A record then carries
the median of the launch medians ("tessera", "anchor_value"), their spread ("min", "max" of the
launch medians), each launch's ratio ("launch_ratios") and the worst of them ("ratio_worst"): a
target counts as met only when ratio_worst meets it. One launch is noise; three that agree are a
figure.

MPI settings: the drivers run with the MPI library's defaults (for OpenMPI's shared memory, its
single-copy mechanism, CMA, on). A second, reduced pass (SINGLE_COPY_OFF_DRIVERS, cases ending in
"-nocma") runs with OpenMPI's single-copy mechanism off, as the test suite runs (docs/mpi.md says
why), so that both show side by side.

Memory pages: tessera puts its arrays and buffers of 2 MiB or more in transparent huge pages; the
anchors' arrays come from malloc, as a hand-written program's do. A third reduced pass
(HUGE_PAGES_ALL_DRIVERS, cases ending in "-hugetlb") runs large halos and the transposes with glibc's
malloc advising huge pages too (GLIBC_TUNABLES=glibc.malloc.hugetlb=1), the anchors' arrays
included, so that what the pages give and what the exchange gives show apart.
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile

from ratio_plot import write_ratio_svg

MICRO_DRIVERS = ["bench_geometry", "bench_layout", "bench_plan", "bench_pack"]
# (executable, ranks, extra arguments). Two ranks: one per core here (ANCHORS.md: with more ranks
# than cores, ranks yield when idle and medians spread 1.5-1.8x over minima). bench_transpose is
# built only where FFTW-MPI was found at configure time; a driver that was not built is skipped.
# bench_halo_ga and bench_halo_petsc (Global Arrays, PETSc) likewise exist only where their library
# was found.
MPI_DRIVERS = [("bench_halo", 2, []), ("bench_halo_ga", 2, []), ("bench_halo_petsc", 2, []),
               # the single copy on the node (shared-memory windows) against point-to-point, same schedule
               ("bench_halo_shared", 2, []),
               ("bench_redistribute", 2, []), ("bench_transpose", 2, []),
               ("bench_gather", 2, []), ("bench_balance", 4, []),
               ("bench_checkpoint", 2, []), ("bench_checked", 2, []),
               # memory beyond the arrays per movement, and the cost of one agreement on allocations
               ("bench_memory", 2, []),
               # 4 ranks: relabeling matters between sets of ranks (half of them, all but one)
               ("bench_relabel", 4, []),
               # 4 ranks: a 2x2 grid, where a halo has 3 peers and block -> cyclic talks to all
               ("bench_algorithms", 4, []),
               # scans against MPI_Scan / MPI_Exscan of the rank totals
               ("bench_scan", 2, []),
               # associative batches against a hand-written MPI_Alltoallv hash table
               ("bench_assoc", 2, []),
               # 4 ranks: a 2x2 grid, so that a flooded panel has a replica per grid column
               ("bench_flood", 4, []),
               # 2 ranks on a 1x2 grid: one replica per core, no oversubscription
               ("bench_flood", 2, ["--grid", "1,2"]),
               # two processor groups (1 + 1 ranks; 2 + 2 on 4) at work at once, and a copy between
               # them, against MPI_Comm_split and Isend/Irecv by hand
               ("bench_groups", 2, []),
               ("bench_groups", 4, ["--sizes", "256,1024"]),
               # sparse matrix-vector product against a hand-written MPI inspector and exchange
               ("bench_sparse_matvec", 2, []),
               # box sets (issue 16): the halo against a hand-written Isend/Irecv of the same boxes'
               # strips and against the block distribution of the same boxes
               ("bench_boxset_halo", 2, []),
               # multiblock: a ring of four blocks against the same cells as one periodic rectangle
               ("bench_multiblock_halo", 2, []),
               # knapsack against Morton order, 10^6 boxes over 10^4 simulated ranks (no MPI traffic)
               ("bench_box_assign", 1, []),
               # 4 ranks: incremental box steps against one-shot under an emulated moving hot spot
               # (the emulated work sleeps, so 4 ranks on 2 cores behave like 4 cores)
               ("bench_box_balance", 4, [])]
# The TCP pass of `make bench`: halo and redistribution at moderate sizes, so that the whole of
# `make bench` stays under 10 minutes on 2 cores.
TCP_DRIVERS = [("bench_halo", 2, ["--sizes", "1024,4096", "--sizes-3d", "64,128", "--nonperiodic", "4096",
                                  "--nonperiodic-3d", "128", "--repetitions", "50"]),
               ("bench_redistribute", 2, ["--sizes", "2048", "--repetitions", "10"])]
# Python drivers (bench/python/): (script, ranks, extra arguments), run with Debian's python3 and
# the build tree's package on PYTHONPATH when the build has the module (TESSERA_BUILD_PYTHON).
PYTHON_DRIVERS = [("python/bench_python.py", 2, [])]
# The pass with OpenMPI's single-copy mechanism off (TESSERA_MPI_SINGLE_COPY=off in
# scripts/mpirun.sh): large halos and a redistribution, where single-copy matters.
SINGLE_COPY_OFF_DRIVERS = [("bench_halo", 2, ["--sizes", "4096,8192", "--sizes-3d", "128", "--nonperiodic", "8192",
                                              "--nonperiodic-3d", "128"]),
                           ("bench_redistribute", 2, ["--sizes", "8192"])]
# The "-hugetlb" pass (the module comment, "Memory pages"; docs/engine.md, "Huge pages").
HUGE_PAGES_ALL_DRIVERS = [("bench_halo", 2, ["--sizes", "4096,8192", "--sizes-3d", "128", "--nonperiodic", "0",
                                             "--nonperiodic-3d", "0"]),
                          ("bench_transpose", 2, [])]
HUGE_PAGES_ALL_ENV = {"GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"}
TRANSPORTS = ("shm", "tcp")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def machine():
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {"hostname": platform.node(), "cpu": cpu, "cores": os.cpu_count(), "system": platform.platform()}


def mpi_version():
    try:
        out = subprocess.run(["mpirun", "--version"], capture_output=True, text=True, check=True).stdout
        return out.splitlines()[0].strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def built(path):
    """True if the driver exists; otherwise says it is skipped (its anchor library was missing when
    the build was configured: `make bench` installs the anchors, then reconfigures)."""
    if os.access(path, os.X_OK):
        return True
    print(f"bench: {os.path.basename(path)} not built (anchor library not found at configure time): skipped",
          file=sys.stderr)
    return False


def run_micro(path, repetitions):
    out = subprocess.run([path, "--benchmark_format=json", f"--benchmark_repetitions={repetitions}",
                          "--benchmark_min_time=0.05"], capture_output=True, text=True, check=True).stdout
    times, counters = {}, {}
    standard = {"name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
                "repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit",
                "aggregate_name", "aggregate_unit", "items_per_second", "bytes_per_second", "label", "error_occurred",
                "error_message"}
    for b in json.loads(out)["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
        times.setdefault(b["run_name"], []).append(b["real_time"] * scale)
        for key, value in b.items():
            if key not in standard and isinstance(value, (int, float)):
                counters[(b["run_name"], key)] = value  # a property of the case, the same every repetition
    return times, counters


def run_mpi(path, ranks, extra, transport="shm", launcher=(), env_extra=None, suffix=""):
    """Runs an MPI driver over `transport` ("shm": OpenMPI's default, shared memory between local
    ranks; "tcp": --mca btl tcp,self); returns the records it wrote, each labelled with the
    transport (and, for TCP, "-tcp" at the end of its case; `suffix` after that). Its own table goes
    to stderr. `launcher` goes before the driver (the interpreter of a Python driver)."""
    env = dict(os.environ, TESSERA_MPI_TRANSPORT=transport, **(env_extra or {}))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "records.json")
        subprocess.run([os.path.join(ROOT, "scripts", "mpirun.sh"), str(ranks), *launcher, path, "--json", out,
                        *extra], stdout=sys.stderr, check=True, env=env)
        with open(out) as f:
            records = json.load(f)
    for r in records:
        r["transport"] = transport
        if transport != "shm":
            r["case"] += f"-{transport}"
        r["case"] += suffix
    return records


def record_key(r):
    return (r["op"], r["case"], r["ranks"], r["metric"], r.get("transport"), r["anchor"])


def merge_launches(launches):
    """One record per case from the records of several launches of the same drivers (a list of
    lists): the median of the launch medians, their min and max, every launch's ratio and the worst.
    A case missing from some launch keeps the launches it has ("launches" says how many)."""
    grouped = {}
    for records in launches:
        for r in records:
            grouped.setdefault(record_key(r), []).append(r)
    merged = []
    for group in grouped.values():
        first = dict(group[0])
        values = [r["tessera"] for r in group]
        first.update(tessera=statistics.median(values), min=min(values), max=max(values), launches=len(group))
        if first["anchor"] is not None:
            ratios = [r["ratio"] for r in group]
            first.update(anchor_value=statistics.median(r["anchor_value"] for r in group),
                         ratio=statistics.median(ratios), launch_ratios=ratios, ratio_worst=max(ratios))
        merged.append(first)
    return merged


def counter_records(counters, ranks=1):
    """One record per user counter (e.g. metadata_bytes): no anchor, the value in 'tessera'."""
    records = []
    for (name, key), value in sorted(counters.items()):
        op, case, impl = name.split("/", 2)
        if impl == "tessera":
            records.append({"op": op, "case": case, "ranks": ranks, "metric": key, "tessera": value,
                            "min": value, "max": value, "anchor": None, "anchor_value": None, "ratio": None})
    return records


def records_from(times, ranks=1):
    cases = {}
    for name, samples in times.items():
        op, case, impl = name.split("/", 2)
        cases.setdefault((op, case), {})[impl] = samples
    records = []
    for (op, case), impls in sorted(cases.items()):
        mine = impls.get("tessera")
        if mine is None:
            continue
        anchors = [k for k in impls if k.startswith("anchor=")] or [None]
        for anchor in anchors:
            rec = {"op": op, "case": case, "ranks": ranks, "metric": "median_s",
                   "tessera": statistics.median(mine), "min": min(mine), "max": max(mine),
                   "anchor": None, "anchor_value": None, "ratio": None}
            if anchor:
                value = statistics.median(impls[anchor])
                rec.update(anchor=anchor.split("=", 1)[1], anchor_value=value, ratio=rec["tessera"] / value)
            records.append(rec)
    return records


def markdown(records):
    lines = ["| op | case | ranks | transport | metric | tessera | anchor | anchor value | ratio | worst launch |",
             "|---|---|---|---|---|---|---|---|---|---|"]

    def fmt(value, unit):
        # Counts (bytes, messages) in full; 3 significant digits would turn 131072 into 1.31e+05.
        if not unit and float(value).is_integer():
            return str(int(value))
        return f"{value:.3g}{unit}"

    for r in records:
        unit = " s" if r["metric"].endswith("_s") else ""
        anchor = r["anchor"] or "—"
        value = fmt(r["anchor_value"], unit) if r["anchor_value"] is not None else "—"
        ratio = f"{r['ratio']:.2f}" if r["ratio"] is not None else "—"
        worst = f"{r['ratio_worst']:.2f}" if r.get("ratio_worst") is not None else "—"
        lines.append(f"| {r['op']} | {r['case']} | {r['ranks']} | {r.get('transport') or '—'} | {r['metric']} | "
                     f"{fmt(r['tessera'], unit)} | "
                     f"{anchor} | {value} | {ratio} | {worst} |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build/release", help="CMake build folder")
    parser.add_argument("--out", default="bench-results", help="folder for the results")
    parser.add_argument("--repetitions", type=int, default=7)
    parser.add_argument("--launches", type=int, default=3,
                        help="separate process launches of every driver (default 3; a record carries the median of "
                             "the launch medians and the worst launch's ratio)")
    parser.add_argument("--transport", choices=("both",) + TRANSPORTS, default="both",
                        help="MPI drivers over shared memory, TCP (--mca btl tcp,self), or both (default: the "
                             "whole suite over shared memory, then a reduced TCP pass)")
    parser.add_argument("--tcp-full", action="store_true",
                        help="the TCP pass runs every MPI driver with its defaults, not the reduced TCP_DRIVERS")
    parser.add_argument("--only", metavar="DRIVER", action="append",
                        help="run only this driver (repeatable), e.g. --only bench_halo")
    parser.add_argument("--plot-from", metavar="FILE",
                        help="write latest.md and ratios.svg from this results file; run nothing")
    args = parser.parse_args()

    if args.plot_from:
        try:
            with open(args.plot_from) as f:
                records = json.load(f)["records"]
        except (OSError, ValueError, KeyError) as e:
            parser.error(f"--plot-from: cannot read records from {args.plot_from}: {e}")
        print(write_report(args.out, records))
        return

    if args.launches < 1:
        parser.error("--launches must be at least 1")
    records = merge_launches([run_once(args, launch) for launch in range(1, args.launches + 1)])

    result = {"machine": machine(), "mpi": mpi_version(),
              "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "command": " ".join(["bench/run_all.py"] + sys.argv[1:]), "launches": args.launches,
              "records": records}
    os.makedirs(args.out, exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    for name in ("latest.json", f"{stamp}.json"):
        with open(os.path.join(args.out, name), "w") as f:
            json.dump(result, f, indent=2)
    print(write_report(args.out, records))


def run_once(args, launch):
    """One launch of every wanted driver; returns its records."""
    wanted = (lambda driver: driver in args.only) if args.only else (lambda driver: True)
    records = []
    for driver in filter(wanted, MICRO_DRIVERS):
        path = os.path.join(args.build, "bench", driver)
        if not built(path):
            continue
        print(f"bench: launch {launch}: {driver}", file=sys.stderr)
        times, counters = run_micro(path, args.repetitions)
        records += records_from(times) + counter_records(counters)
    passes = []
    if args.transport in ("both", "shm"):
        passes.append(("shm", MPI_DRIVERS, "", {}))
        passes.append(("shm", SINGLE_COPY_OFF_DRIVERS, "-nocma", {"TESSERA_MPI_SINGLE_COPY": "off"}))
        passes.append(("shm", HUGE_PAGES_ALL_DRIVERS, "-hugetlb", HUGE_PAGES_ALL_ENV))
    if args.transport in ("both", "tcp"):
        passes.append(("tcp", MPI_DRIVERS if args.tcp_full else TCP_DRIVERS, "", {}))
    for transport, drivers, suffix, env_extra in passes:
        for driver, ranks, extra in drivers:
            if not wanted(driver):
                continue
            path = os.path.abspath(os.path.join(args.build, "bench", driver))
            if not built(path):
                continue
            print(f"bench: launch {launch}: {driver} on {ranks} ranks over {transport}{suffix}", file=sys.stderr)
            records += run_mpi(path, ranks, extra, transport, env_extra=env_extra, suffix=suffix)
    package = os.path.abspath(os.path.join(args.build, "python"))
    for script, ranks, extra in PYTHON_DRIVERS:
        driver = os.path.basename(script)[:-3]
        if not wanted(driver):
            continue
        if not os.path.isdir(os.path.join(package, "tessera")):
            print(f"bench: {driver} skipped: the build has no Python module (TESSERA_BUILD_PYTHON)", file=sys.stderr)
            continue
        print(f"bench: launch {launch}: {driver} on {ranks} ranks", file=sys.stderr)
        records += run_mpi(os.path.join(ROOT, "bench", script), ranks, extra, launcher=("/usr/bin/python3",),
                           env_extra={"PYTHONPATH": package})

    return records


def write_report(out, records):
    """Writes latest.md (the table, then the plot) and ratios.svg into `out`; returns the table."""
    os.makedirs(out, exist_ok=True)
    table = markdown(records)
    write_ratio_svg(records, os.path.join(out, "ratios.svg"))
    with open(os.path.join(out, "latest.md"), "w") as f:
        f.write(table + "\n![tessera time / anchor time for every record with an anchor](ratios.svg)\n")
    print(f"bench: wrote {os.path.join(out, 'latest.md')} and {os.path.join(out, 'ratios.svg')}", file=sys.stderr)
    return table


if __name__ == "__main__":
    main()
