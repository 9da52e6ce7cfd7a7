#!/usr/bin/env python3
"""Pictures checked by rendering them: each SVG that tessera writes (show, the plan heat map, the
demo's balance.svg, the benchmark ratio plot) is rendered to PNG with rsvg-convert (Debian
librsvg2-bin), and the PNG must exist, have the width and height the SVG declares, be at least
`MIN_SIDE` pixels on each side and hold more than `MIN_BYTES` bytes: a picture, not a blank page
or an error. One ctest test per picture (tool.render.<group>).

    TESSERA=build/tools/tessera/tessera WORK_DIR=/tmp/render python3 tests/tools/render_test.py show
"""
import os
import re
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
TESSERA = os.environ.get("TESSERA", "tessera")
WORK_DIR = os.environ.get("WORK_DIR", os.path.join(os.getcwd(), "render-test"))
MIN_SIDE = 200
MIN_BYTES = 8000


def run(*args, timeout=300):
    done = subprocess.run(list(args), capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {' '.join(args)}\n{done.stdout}\n{done.stderr}")
    return done.stdout


def svg_size(path):
    with open(path) as f:
        head = f.read(4096)
    m = re.search(r"<svg[^>]*\swidth='([0-9.]+)'[^>]*\sheight='([0-9.]+)'", head) or \
        re.search(r'<svg[^>]*\swidth="([0-9.]+)"[^>]*\sheight="([0-9.]+)"', head)
    if not m:
        sys.exit(f"{path}: no width and height on the <svg> element")
    return round(float(m.group(1))), round(float(m.group(2)))


def png_size(path):
    with open(path, "rb") as f:
        header = f.read(24)
    if header[:8] != b"\x89PNG\r\n\x1a\n" or header[12:16] != b"IHDR":
        sys.exit(f"{path}: not a PNG file")
    return struct.unpack(">II", header[16:24])


def check_rendering(svg):
    converter = shutil.which("rsvg-convert")
    if not converter:
        sys.exit("rsvg-convert not found: scripts/install-deps.sh core installs it (Debian package librsvg2-bin)")
    png = os.path.splitext(svg)[0] + ".png"
    if os.path.exists(png):
        os.remove(png)
    run(converter, svg, "-o", png)
    want, got = svg_size(svg), png_size(png)
    size = os.path.getsize(png)
    problems = []
    if got != want:
        problems.append(f"PNG is {got[0]}x{got[1]}, the SVG declares {want[0]}x{want[1]}")
    if min(got) < MIN_SIDE:
        problems.append(f"PNG side {min(got)} < {MIN_SIDE} pixels")
    if size <= MIN_BYTES:
        problems.append(f"PNG holds {size} bytes <= {MIN_BYTES}: a blank page?")
    if problems:
        sys.exit(f"{svg}: " + "; ".join(problems))
    print(f"{png}: {got[0]}x{got[1]}, {size} bytes")


def picture_show(out):
    svg = os.path.join(out, "show.svg")
    run(TESSERA, "show", "domain=24x36", "grid=2x3", "dist=cut(0,10,24),block", "ghosts=2p", "--rank", "4",
        "--svg", svg)
    check_rendering(svg)
    svg = os.path.join(out, "show-cyclic.svg")
    run(TESSERA, "show", "domain=1000x1000", "dist=block_cyclic(64),cyclic", "--ranks", "6", "--svg", svg)
    check_rendering(svg)
    svg = os.path.join(out, "show-box-set.svg")  # holes cross-hatched
    run(TESSERA, "show", "domain=40x60", "boxes=0:40x0:20,0:15x20:60,25:40x35:60", "assign=morton(chop=10x10)",
        "--ranks", "5", "--svg", svg)
    check_rendering(svg)


def picture_plan(out):
    svg = os.path.join(out, "plan.svg")
    run(TESSERA, "plan", "domain=1000 dist=block", "domain=1000 dist=cyclic", "--ranks", "20", "--svg", svg)
    check_rendering(svg)
    svg = os.path.join(out, "halo.svg")
    run(TESSERA, "plan", "domain=16x16 grid=2x2 ghosts=1p", "--halo", "--svg", svg)
    check_rendering(svg)


def picture_demo(out):
    run(TESSERA, "demo", "--ranks", "2", "--n", "32", "--iterations", "30", "--interval", "3", "--load",
        "0:3@5-25", "--policies", "none", "full", "--out", out)
    check_rendering(os.path.join(out, "balance.svg"))


def picture_bench(out):
    run(TESSERA, "bench", "--plot-from", os.path.join(HERE, "data", "records.json"), "--out", out)
    check_rendering(os.path.join(out, "ratios.svg"))


if __name__ == "__main__":
    groups = {"show": picture_show, "plan": picture_plan, "demo": picture_demo, "bench": picture_bench}
    if len(sys.argv) != 2 or sys.argv[1] not in groups:
        sys.exit(f"usage: render_test.py {'|'.join(groups)}")
    out_dir = os.path.join(WORK_DIR, sys.argv[1])
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    groups[sys.argv[1]](out_dir)
