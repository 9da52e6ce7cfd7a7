#!/usr/bin/env python3
"""`make test`'s check that the experiment runner still works (ctest: experiments.runner): runs
experiments/run_all.py at its quickest (--quick --repeats 1) on one small experiment into a scratch
folder, then checks that the result file is strict JSON with records in the bench format and a
verified run, that the page keeps its hand-written introduction and has the experiment's section with a computed conclusion, the list of
experiments not yet done and readable SVGs; then that a run whose program cannot start reports a
failure and no times.

    BUILD=build/release WORK_DIR=/tmp/x python3 experiments/runner_test.py
"""
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ["BUILD"]
WORK = os.environ.get("WORK_DIR", "/tmp/tessera-experiments-test")
NAME = "d3arc_fig13_15"  # one launch of 4 ranks, four short runs: the quickest complete experiment
RECORD_KEYS = {"op", "ranks", "case", "metric", "tessera", "anchor", "anchor_value", "ratio", "min", "max"}


def strict(constant):
    raise ValueError(f"not JSON: {constant}")


def runner(*args):
    return subprocess.run([sys.executable, os.path.join(HERE, "run_all.py"), "--quick", "--repeats", "1", "--only",
                           NAME, "--out", os.path.join(WORK, "results"), "--doc", os.path.join(WORK, "experiments.md"),
                           *args], capture_output=True, text=True, timeout=120)


def fail(message):
    print(f"experiments.runner: {message}")
    sys.exit(1)


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    intro = "# A hand-written introduction that the generator must keep\n"
    with open(os.path.join(WORK, "experiments.md"), "w") as f:
        f.write(intro)
    done = runner("--build", BUILD)
    if done.returncode != 0:
        fail(f"the runner exited {done.returncode}: {done.stderr[-2000:]}")
    with open(os.path.join(WORK, "results", NAME + ".json")) as f:
        result = json.load(f, parse_constant=strict)
    if not result["verified"] or result["error"] is not None:
        fail(f"not verified: {result['error']}")
    if not result["records"]:
        fail("no records")
    for r in result["records"]:
        if not RECORD_KEYS <= set(r) or not r["min"] <= r["tessera"] <= r["max"] or r["ranks"] < 1:
            fail(f"not a bench record: {r}")
    for key in ("machine", "mpi", "date", "command", "setting"):
        if not result.get(key):
            fail(f"the result file lacks {key}")
    with open(os.path.join(WORK, "experiments.md")) as f:
        page = f.read()
    if not page.startswith(intro):
        fail("the hand-written introduction was not kept")
    for text in ("## D3-ARC Figs. 13/15", "**Conclusion (computed):**", "NAS MG",
                 "Not run yet", "make experiments"):
        if text not in page:
            fail(f"the page lacks '{text}'")
    figures = [f for f in os.listdir(os.path.join(WORK, "experiments")) if f.endswith(".svg")]
    if len(figures) < 2:
        fail(f"expected the section's two plots, found {figures}")
    for name in figures:
        root = ET.parse(os.path.join(WORK, "experiments", name)).getroot()
        if not root.tag.endswith("svg") or len(root) < 5:
            fail(f"{name} is not a drawn SVG")
    # A program that cannot run must give a failure, never a time, and a non-zero exit.
    broken = runner("--build", os.path.join(WORK, "no-such-build"))
    with open(os.path.join(WORK, "results", NAME + ".json")) as f:
        result = json.load(f, parse_constant=strict)
    with open(os.path.join(WORK, "experiments.md")) as f:
        page = f.read()
    if broken.returncode == 0 or result["verified"] or result["records"] or "FAILED verification" not in page:
        fail("a run whose program could not start was not reported as a failure")
    print("experiments.runner: the runner wrote verified records, a page with a computed conclusion and its plots, "
          "and reported a broken run as a failure")


if __name__ == "__main__":
    main()
