#!/usr/bin/env python3
"""Issue 19's targets, judged on a results file of `make bench` (bench-results/latest.json, or a
committed copy such as bench/published-xeon.json): for each target, every case it covers, met or
missed on its worst launch, and a summary line per target. Informational: it prints and exits 0
(a target is a goal for the benchmarks, never an assertion of the test suite), or 1 when the file
cannot be read.

  python3 bench/check_targets.py bench/published-xeon.json [--missed-only]
  python3 bench/check_targets.py bench/published-xeon.json bench/published-xeon-redistribute.json

Several files: a record of a later file replaces the same record of an earlier one (as
scripts/readme_figures.py reads them).

The targets (2 ranks, shared memory, MPI defaults; "worst" is the worst launch's ratio):
  - halo exchange alone, periodic, faces of 16 KiB or more, cold and warm: <= 0.8 of the faster
    of the Isend/Irecv and MPI_Neighbor_alltoallw exchanges;
  - halo exchange alone, faces under 4 KiB: <= 1.1 of the faster anchor;
  - in a stencil loop (exchange + Jacobi sweep), periodic: <= 0.9 of the hand-written program;
  - 3-D periodic width 2, cold: <= 1.0;
  - Global Arrays' GA_Update_ghosts: <= 0.5;
  - transposes (2-D 1024²-8192², 3-D 128³-256³): <= 0.7 of FFTW-MPI;
  - redistribution: <= 0.5 of pack + MPI_Alltoallv + unpack, <= 0.15 of ScaLAPACK's pdgemr2d.
Each target is judged twice where the file has both: as users get the memory (tessera's arrays in
its huge pages, the anchors' from malloc), and with both in huge pages (cases ending in
"-hugetlb").
"""
import argparse
import json
import re
import sys

from run_all import record_key  # the key run_all.py merges launches by

FASTER_ANCHORS = ("mpi-subarray-isend-irecv", "mpi-neighbor-alltoallw")


def worst(r):
    return r.get("ratio_worst", r["ratio"])


def timing_records(records):
    return [r for r in records if r["metric"] == "median_s" and r.get("anchor") and r.get("transport", "shm") == "shm"
            and not r["case"].endswith("-nocma")]


def against_faster(records, op, case_filter):
    """Per case: the record of the faster anchor (the larger ratio), judged on its worst launch."""
    cases = {}
    for r in records:
        if r["op"] == op and r["anchor"] in FASTER_ANCHORS and case_filter(r["case"]):
            cases.setdefault(r["case"], []).append(r)
    return {case: max(rs, key=worst) for case, rs in cases.items()}


def face_bytes_by_case(records):
    """The bytes of one face message per halo case; a "-hugetlb" case has those of its base case."""
    faces = {r["case"]: r["tessera"] for r in records if r["op"] == "halo" and r["metric"] == "face_bytes"}
    faces.update({f"{case}-hugetlb": size for case, size in list(faces.items())})
    return faces


def judge(name, limit, picked, missed_only):
    met = [c for c, r in picked.items() if worst(r) <= limit]
    missed = {c: r for c, r in picked.items() if worst(r) > limit}
    print(f"{name} (<= {limit}): {len(met)} of {len(picked)} cases met" +
          (f"; missed: {len(missed)}" if missed else ""))
    for case, r in sorted(picked.items()):
        if missed_only and case not in missed:
            continue
        mark = "MISSED" if case in missed else "met"
        print(f"    {mark:6s} {r['op']:14s} {case:40s} {r['anchor'][:34]:34s} {r['ratio']:.2f} (worst {worst(r):.2f})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", help="results files, earliest first")
    parser.add_argument("--missed-only", action="store_true", help="list only the cases that miss")
    args = parser.parse_args()
    merged = {}
    for name in args.results:
        try:
            with open(name) as f:
                data = json.load(f)
        except (OSError, ValueError) as e:
            sys.exit(f"check_targets: {e}")
        print(f"{name}: {data.get('date', '?')}, {data.get('machine', {}).get('cpu', '?')}, "
              f"{data.get('launches', 1)} launches")
        for r in data["records"]:
            merged[record_key(r)] = r
    records = timing_records(merged.values())
    faces = face_bytes_by_case(merged.values())
    for huge in (False, True):
        suffix = " [both in huge pages]" if huge else ""
        pages = (lambda c: c.endswith("-hugetlb")) if huge else (lambda c: not c.endswith("-hugetlb"))
        periodic = lambda c: pages(c) and "-periodic-" in c
        for op, mode in (("halo", "cold"), ("halo-warm", "warm")):
            big = {c: r for c, r in against_faster(records, op, periodic).items()
                   if faces.get(c, 0) >= 16 * 1024}
            judge(f"halo {mode}, periodic, faces >= 16 KiB{suffix}", 0.8, big, args.missed_only)
        small = {c: r for c, r in against_faster(records, "halo", pages).items()
                 if faces.get(c, 1 << 30) < 4 * 1024}
        judge(f"halo cold, faces < 4 KiB{suffix}", 1.1, small, args.missed_only)
        in_loop = {r["case"]: r for r in records if r["op"] == "halo-in-loop" and periodic(r["case"])}
        judge(f"in a stencil loop, periodic{suffix}", 0.9, in_loop, args.missed_only)
        w2 = {c: r for c, r in against_faster(records, "halo", periodic).items() if re.match(r"3d-.*-w2-", c)}
        judge(f"3-D periodic width 2, cold{suffix}", 1.0, w2, args.missed_only)
        transposes = {r["case"]: r for r in records if r["op"] == "transpose" and pages(r["case"])}
        judge(f"transpose vs FFTW-MPI{suffix}", 0.7, transposes, args.missed_only)
    ga = {r["case"]: r for r in records if r["anchor"] == "ga-update-ghosts"}
    judge("halo vs GA_Update_ghosts", 0.5, ga, args.missed_only)
    for anchor, limit in (("mpi-pack-alltoallv", 0.5), ("scalapack-pdgemr2d", 0.15)):
        picked = {r["case"]: r for r in records if r["op"] == "redistribute" and r["anchor"] == anchor}
        judge(f"redistribution vs {anchor}", limit, picked, args.missed_only)


if __name__ == "__main__":
    main()
