#!/usr/bin/env python3
"""README's performance tables, made from a committed results file of `make bench`.

The figures in README.md's "Performance" section are not typed by hand: they are the records of
bench/published-xeon.json, a copy of the bench-results/latest.json that one whole `make bench` wrote
on the machine the project now runs on (an Intel Xeon, 2 cores): median of three launches, the
worst launch's ratio beside it, with the date, machine, MPI and command it came from. Earlier
files (bench/published.json and the others, of an AMD EPYC machine and of partial reruns) stay
committed because docs/ quote them by name; `--results` renders from any of them (several: a record
of a later file replaces the same record of an earlier one). By default
bench/published-xeon-redistribute.json (`run_all.py --only bench_redistribute`, three launches on
the same machine, rerun after bench_redistribute stopped timing pdgemr2d in the rotation of the
other two codes and large strided copies began to travel one message per piece) follows and
replaces the redistribution records, until the next whole run. Rendered by this script between
the markers

    <!-- bench-figures:begin -->  ...  <!-- bench-figures:end -->

  scripts/readme_figures.py --write   # after copying a new results file to bench/published-xeon.json
  scripts/readme_figures.py --check   # exit status 1 (and a diff) when README and the file disagree

The test `docs.readme_figures_match_results` runs --check, so a figure changed by hand, or a new
results file without a regenerated README, fails `make test`.
"""
import argparse
import difflib
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN, END = "<!-- bench-figures:begin -->", "<!-- bench-figures:end -->"
DEFAULT_RESULTS = ["bench/published-xeon.json", "bench/published-xeon-redistribute.json"]

# (table title, unit scale, unit name, rows); a row: (label, op, case, anchor). A row whose record is
# missing from the results file (its anchor library was not installed, say) says so in the table.
HALO_ANCHOR = "mpi-subarray-isend-irecv"
HALO_CASES = [("2-D 5-point, width 1, periodic, 8192²", "2d-5pt-w1-periodic-8192"),
              ("2-D 9-point, width 2, periodic, 8192²", "2d-9pt-w2-periodic-8192"),
              ("2-D 5-point, width 1, periodic, 1024²", "2d-5pt-w1-periodic-1024"),
              ("3-D 7-point, width 1, periodic, 128³", "3d-7pt-w1-periodic-128"),
              ("3-D 27-point, width 2, periodic, 128³", "3d-27pt-w2-periodic-128")]
# The cases rerun with the anchors' arrays in huge pages too (run_all.py's "-hugetlb" pass).
HUGE = "both in huge pages"
HALO_HUGE_CASES = [("2-D 5-point, width 1, periodic, 8192²", "2d-5pt-w1-periodic-8192-hugetlb"),
                   ("3-D 27-point, width 2, periodic, 128³", "3d-27pt-w2-periodic-128-hugetlb")]
TABLES = [
    ("A stencil program, µs per iteration (halo exchange, then a Jacobi sweep; anchor: the same program "
     "with a hand-written exchange, `MPI_Cart` + subarray datatypes + `MPI_Isend`/`MPI_Irecv`; tessera's "
     "arrays as tessera allocates them, in huge pages, the anchor's from `malloc`, and, marked "
     f"\"{HUGE}\", both in huge pages)", 1e6, "µs",
     [(label, "halo-in-loop", case, HALO_ANCHOR) for label, case in HALO_CASES] +
     [(f"{label}, {HUGE}", "halo-in-loop", case, HALO_ANCHOR) for label, case in HALO_HUGE_CASES]),
    ("The halo exchange alone, µs per exchange: cold (codes taking turns, caches as another code left "
     "them) and warm (one exchange repeated on one array)", 1e6, "µs",
     [(f"{label}, {mode}", op, case, HALO_ANCHOR) for label, case in HALO_CASES
      for mode, op in (("cold", "halo"), ("warm", "halo-warm"))] +
     [(f"{label}, {mode}, {HUGE}", op, case, HALO_ANCHOR) for label, case in HALO_HUGE_CASES
      for mode, op in (("cold", "halo"), ("warm", "halo-warm"))] +
     [("2-D 5-point, width 1, periodic, 8192², cold, vs `MPI_Neighbor_alltoallw`", "halo", "2d-5pt-w1-periodic-8192",
       "mpi-neighbor-alltoallw"),
      ("2-D 9-point, width 2, periodic, 8192², cold, vs Global Arrays `GA_Update_ghosts`", "halo",
       "2d-9pt-w2-periodic-8192", "ga-update-ghosts")]),
    ("Redistribution, transpose, gather, ms", 1e3, "ms", [
        ("block → block-cyclic(64), 8192², vs pack + `MPI_Alltoallv` + unpack", "redistribute",
         "block-to-blockcyclic64-8192", "mpi-pack-alltoallv"),
        ("block → block-cyclic(64), 8192², vs ScaLAPACK `pdgemr2d`", "redistribute", "block-to-blockcyclic64-8192",
         "scalapack-pdgemr2d"),
        ("block → cyclic, 8192², vs pack + `MPI_Alltoallv` + unpack", "redistribute", "block-to-cyclic-8192",
         "mpi-pack-alltoallv"),
        ("transpose 2-D, 8192², vs FFTW-MPI", "transpose", "2d-8192", "fftw-mpi-transpose"),
        ("transpose 2-D, 1024², vs FFTW-MPI", "transpose", "2d-1024", "fftw-mpi-transpose"),
        (f"transpose 2-D, 8192², vs FFTW-MPI, {HUGE}", "transpose", "2d-8192-hugetlb", "fftw-mpi-transpose"),
        (f"transpose 2-D, 1024², vs FFTW-MPI, {HUGE}", "transpose", "2d-1024-hugetlb", "fftw-mpi-transpose"),
        ("gather to rank 0, 4096², vs `MPI_Gatherv` + subarray types", "gather", "rows-2x1-4096",
         "mpi-gatherv-subarray"),
        ("scatter from rank 0, 4096², vs `MPI_Scatterv` + subarray types", "scatter", "rows-2x1-4096",
         "mpi-scatterv-subarray"),
    ]),
]


def figure(value):
    """Three significant digits, without exponents (1234 µs, 56.7 µs, 0.893 ms)."""
    if value >= 100:
        return f"{value:.0f}"
    return f"{value:.3g}" if value >= 0.001 else f"{value:.2e}"


def find(records, op, case, anchor):
    for r in records:
        if key(r) == (op, case, anchor, "shm"):
            return r
    return None


def key(record):
    return record["op"], record["case"], record["anchor"], record.get("transport", "shm")


def overlay(files):
    """The records of every file, a later file's record replacing an earlier one with the same key."""
    merged = {}
    for _, results in files:
        for r in results["records"]:
            merged[key(r)] = r
    return list(merged.values())


def describe(source, results):
    launches = results.get("launches", 1)
    return (f"`{source}`: {results.get('date', '?')}, {results.get('machine', {}).get('cpu', '?')} "
            f"({results.get('machine', {}).get('cores', '?')} cores), {results.get('mpi', '?')}, 2 ranks, "
            f"MPI defaults, `{results.get('command', 'bench/run_all.py')}`, "
            f"{launches} launch{'es' if launches != 1 else ''}")


def render(files):
    """`files`: (name, results) pairs, earliest first."""
    records = overlay(files)
    sources = "; then ".join(describe(name, results) for name, results in files)
    replaced = " (a record of a later file replaces the same record of an earlier one)" if len(files) > 1 else ""
    lines = [BEGIN,
             f"Figures from {sources}{replaced}. Each figure is the median of the launch medians, "
             "\"worst\" the largest ratio of any launch (the one a target is judged on). "
             "Ratio = tessera / anchor, lower is better.",
             ""]
    for title, scale, unit, rows in TABLES:
        lines += [f"{title}:", "", f"| case | tessera ({unit}) | anchor ({unit}) | ratio | worst launch |",
                  "|---|---|---|---|---|"]
        for label, op, case, anchor in rows:
            r = find(records, op, case, anchor)
            if r is None:
                lines.append(f"| {label} | — | — | not in the results file | — |")
                continue
            worst = r.get("ratio_worst", r["ratio"])
            lines.append(f"| {label} | {figure(r['tessera'] * scale)} | {figure(r['anchor_value'] * scale)} | "
                         f"{r['ratio']:.2f} | {worst:.2f} |")
        lines.append("")
    lines.append(END)
    return "\n".join(lines)


def splice(readme, block):
    start, end = readme.find(BEGIN), readme.find(END)
    if start < 0 or end < start:
        sys.exit(f"readme_figures: README.md has no {BEGIN} ... {END} block")
    return readme[:start] + block + readme[end + len(END):]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite README.md's figures from the results file")
    mode.add_argument("--check", action="store_true", help="fail when README.md's figures differ from the file")
    parser.add_argument("--results", action="append", metavar="FILE",
                        help="results file, relative to the root (repeatable, earliest first; default: "
                             + " then ".join(DEFAULT_RESULTS) + ")")
    parser.add_argument("--readme", default="README.md")
    args = parser.parse_args()
    results = args.results or DEFAULT_RESULTS
    readme_path = os.path.join(ROOT, args.readme)
    files = []
    try:
        for name in results:
            with open(os.path.join(ROOT, name)) as f:
                files.append((name, json.load(f)))
        with open(readme_path) as f:
            readme = f.read()
    except (OSError, ValueError) as e:
        sys.exit(f"readme_figures: {e}")
    sources = " + ".join(results)  # names them in messages
    wanted = splice(readme, render(files))
    if args.write:
        with open(readme_path, "w") as f:
            f.write(wanted)
        print(f"readme_figures: wrote {args.readme} from {sources}")
        return
    if wanted != readme:
        sys.stdout.writelines(difflib.unified_diff(readme.splitlines(True), wanted.splitlines(True),
                                                   args.readme, f"{args.readme} from {sources}"))
        sys.exit(f"readme_figures: {args.readme}'s figures differ from {sources}: run scripts/readme_figures.py "
                 "--write (or restore the figures)")
    print(f"readme_figures: {args.readme} agrees with {sources}")


if __name__ == "__main__":
    main()
