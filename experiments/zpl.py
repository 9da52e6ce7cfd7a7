"""ZPL (Deitz, Chamberlain, Snyder: "Abstractions for dynamic data distribution") section 4: the four
worked examples — computational zoom, the FFT corner turn, sample sort, the processor homogeneity
test — each timed as the tessera example (examples/zpl_*) against the same algorithm written with MPI
alone (experiments/zpl/*_mpi.cpp), and each example's data movements as `tessera plan` predicts them
from their specs against the bytes tessera's movers counted (process_mover_stats) and the bytes the
hand-written version handed to MPI.

Every launch runs its program --repeat times, checks every repetition against the serial reference
(the program ends the job before writing a time otherwise) and reports the median; the spread is
over ctx.repeats launches. The two versions' launches alternate."""
import json
import os
import re
import shlex
import subprocess
import tempfile

from framework import ROOT, Experiment, VerificationFailed, launch, record, spread, summary, table, write_figure
import svg_plot

TOOL = os.path.join("tools", "tessera", "tessera")
MOVEMENT = re.compile(r"^movement (\S+): sent (\d+) bytes in (\d+) messages, copied (\d+) bytes locally"
                      r"(?:; tessera plan (.*))?$", re.M)


# What each example runs: its programs, the line that says it verified, its arguments and the
# movements to report (the first is its main movement, the one whose time is "movement_s").
EXAMPLES = {
    "zoom": {
        "title": "ZPL 4.1: computational zoom",
        "paper": "a coarse solution, a region of interest copied into a new domain spread over all processors "
                 "(`DZoom <=# ...; Zoom := A#[,]`), refined, recomputed and copied back; the paper shows the code, "
                 "not timings: its claim is that the zoom is a few lines and the copy is the only communication "
                 "the programmer writes.",
        "expect": ("computational zoom matches the serial reference bit for bit",
                   "straight-MPI computational zoom matches the serial reference bit for bit"),
        "args": lambda q: (["--n", 128, "--zoom", 32, "--refine", 4, "--coarse-sweeps", 100, "--fine-sweeps", 200]
                           if q else ["--n", 384, "--zoom", 64, "--refine", 4, "--coarse-sweeps", 200,
                                      "--fine-sweeps", 400]),
        "movements": {"zoom-in": "copy of the region into the zoom (copy_section)",
                      "zoom-out": "copy of the region back (copy_section)",
                      "fine-halo": "one ghost update of the fine grid"},
    },
    "fft": {
        "title": "ZPL 4.2: 2-D FFT by the corner turn",
        "paper": "a 2-D FFT as row FFTs, a corner turn (the array redistributed from `[blk, null]` to `[null, blk]`), "
                 "column FFTs; the paper's point: the transpose is one redistribution, and both phases are "
                 "load-balanced.",
        "expect": ("corner-turn FFT matches the serial 2-D FFT", "straight-MPI corner-turn FFT matches the serial 2-D FFT"),
        "args": lambda q: ["--n", 256, "--m", 256] if q else ["--n", 1024, "--m", 1024],
        "movements": {"corner-turn": "the corner turn (Domain::redistribute, rows -> columns)"},
    },
    "samplesort": {
        "title": "ZPL 4.3: sample sort into a cut distribution",
        "paper": "keys sorted locally, splitters from samples, each bucket moved to its processor (an index-array "
                 "scatter into a `cut` distribution), sorted, then rebalanced (`DA <== D`); the paper's point: the "
                 "cut distribution makes the buckets an ordinary array.",
        "expect": ("sample sort matches std::sort of the input", "straight-MPI sample sort matches std::sort of the input"),
        "args": lambda q: ["--keys", 200000] if q else ["--keys", 2000000],
        "movements": {"scatter": "the buckets to their ranks (index-array scatter)",
                      "rebalance": "cut -> block (Domain::redistribute)"},
        "time_why": "the index-array scatter is an inspector-executor (PARTI's): each repetition sorts new keys, so "
                    "every scatter inspects afresh and runs its mover once — the plan is never reused, which is what "
                    "the inspector is built for; `perf record` of 2 ranks (session 29) put a third of the run in page "
                    "faults and zero-filling of the inspector's per-element lists (16-byte (target, order) items, "
                    "offsets, the staging buffer, each as long as the keys) and its sort by order; the straight-MPI "
                    "version knows its buckets are contiguous and sends them with one Alltoallv",
        "why": {"scatter": "an index-array scatter is planned by an inspector that first sends every key's target "
                           "(a Point<1> and its order, 16 bytes) to the target's owner by Communicator::alltoallv, "
                           "outside any mover: the movers count only the values, and no spec describes a movement "
                           "that depends on the keys, so `tessera plan` cannot predict it"},
    },
    "homogeneity": {
        "title": "ZPL 4.4: the processor homogeneity test",
        "paper": "one kernel run once per permutation of the processor grid's rank table (`G <== procs`), so every "
                 "processor computes every block once; the paper's point: a grid permutation is one preserving "
                 "assignment.",
        "expect": ("homogeneity test: results identical under",
                   "straight-MPI homogeneity test: results identical under"),
        "args": lambda q: ["--n", 256, "--sweeps", 20] if q else ["--n", 1024, "--sweeps", 40],
        "movements": {"halo": "one ghost update (update_ghosts) of the kernel",
                      "permute": "one grid permutation (Domain::redistribute of every array over the domain)"},
        "why": {"permute": "ZPL's preserving `G <== procs` moves every array declared over the grid (input, work "
                           "and next here, 24 bytes per element), where the hand-written version moves only the "
                           "input, since the work arrays start from it anyway"},
    },
}


def rank_counts(ctx):
    return [4] if ctx.quick else [2, 4]


def repeat_args(ctx):
    return ["--repeat", 3 if ctx.quick else 5]


def run_program(ctx, ranks, program, args, expect):
    """One launch: the program's records {metric: value} and its movement lines
    {name: (sent, messages, local, plan args or None)}."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "records.json")
        out = launch(ctx, ranks, program, [*args, *repeat_args(ctx), "--json", path], expect)
        with open(path) as f:
            records = {r["metric"]: r["tessera"] for r in json.load(f)}
    moves = {m.group(1): (int(m.group(2)), int(m.group(3)), int(m.group(4)), m.group(5)) for m in MOVEMENT.finditer(out)}
    return records, moves


def plan_prediction(ctx, args):
    """`tessera plan ARGS`: bytes it predicts between ranks, its messages, the bytes kept on their
    rank and the least any plan could move."""
    cmd = [os.path.join(ctx.build, TOOL), "plan", *shlex.split(args)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise VerificationFailed(f"tessera plan {args}: exit {done.returncode}: {done.stderr.strip()[-300:]}")
    text = done.stdout
    moved = re.search(r"moved between ranks: (\d+) bytes?.*, (\d+) elements, in (\d+) messages?", text)
    kept = re.search(r"kept on its rank:\s+(\d+) bytes?", text)
    least = re.search(r"minimum possible:\s+(\d+) bytes?", text)
    if not (moved and kept and least):
        raise VerificationFailed(f"tessera plan {args}: unexpected report: {text[-300:]}")
    return {"bytes": int(moved.group(1)), "messages": int(moved.group(3)), "local": int(kept.group(1)),
            "minimum": int(least.group(1)), "command": "tessera plan " + args}


def movement_data(ctx, what, mine, theirs, tessera_records, key):
    """One movement: the prediction, what tessera's movers counted, what the hand-written version sent."""
    if mine[3]:
        plan = plan_prediction(ctx, mine[3])
    elif f"{key}_planned_bytes" in tessera_records:  # no spec can say it: the program asked the planning layer
        plan = {"bytes": int(tessera_records[f"{key}_planned_bytes"]), "messages": None, "local": None,
                "minimum": None, "command": "redistribution_plan in the program (a spec cannot place ranks "
                                            "in a permuted order)"}
    else:
        plan = None
    return {"what": what, "plan": plan, "tessera": dict(zip(("bytes", "messages", "local"), mine[:3])),
            "mpi": dict(zip(("bytes", "messages", "local"), theirs[:3]))}


def example_run(name):
    ex = EXAMPLES[name]

    def run(ctx):
        programs = {"tessera": f"examples/zpl_{name}", "mpi": f"experiments/zpl_{name}_mpi"}
        expect = dict(zip(("tessera", "mpi"), ex["expect"]))
        args = ex["args"](ctx.quick)
        case = "-".join(str(a).lstrip("-") for a in args)
        data, records = {"args": [str(a) for a in args], "ranks": {}}, []
        for ranks in rank_counts(ctx):
            times = {"tessera": [], "mpi": []}
            movement_times = {"tessera": [], "mpi": []}
            last = {}
            for _ in range(ctx.repeats):
                for impl in ("tessera", "mpi"):
                    recs, moves = run_program(ctx, ranks, programs[impl], args, expect[impl])
                    times[impl].append(recs["median_s"])
                    if "movement_s" in recs:
                        movement_times[impl].append(recs["movement_s"])
                    last[impl] = (recs, moves)  # every launch moves the same bytes
            movements = {key: movement_data(ctx, what, last["tessera"][1][key], last["mpi"][1][key],
                                            last["tessera"][0], key)
                         for key, what in ex["movements"].items()}
            records.append(record(f"zpl_{name}", case, ranks, "median_s", times["tessera"], "straight-mpi",
                                  times["mpi"]))
            if movement_times["tessera"]:
                records.append(record(f"zpl_{name}", case, ranks, "movement_s", movement_times["tessera"],
                                      "straight-mpi", movement_times["mpi"]))
            for key, m in movements.items():
                op = f"zpl_{name}_{key.replace('-', '_')}"
                records.append(record(op, case, ranks, "mover_bytes_sent", [m["tessera"]["bytes"]]))
                records.append(record(op, case, ranks, "mpi_bytes_sent", [m["mpi"]["bytes"]]))
                if m["plan"]:
                    records.append(record(op, case, ranks, "plan_bytes", [m["plan"]["bytes"]]))
            data["ranks"][str(ranks)] = {"time": {k: summary(v) for k, v in times.items()},
                                         "movement_time": {k: summary(v) for k, v in movement_times.items() if v},
                                         "movements": movements}
        return {"setting": f"`{' '.join(data['args'])}` on {' and '.join(map(str, rank_counts(ctx)))} ranks; each "
                           f"launch repeats the computation {repeat_args(ctx)[1]} times and reports its median, "
                           f"{ctx.repeats} launches per version, the versions alternating",
                "records": records, "data": data}

    return run


def ms(s):
    """A summary in milliseconds, as `spread` prints it."""
    return spread({k: v * 1e3 for k, v in s.items() if k != "n"})


def compare_bytes(counted, predicted):
    """'equal to' / 'N bytes (x%) more than' / 'less than': the counted bytes against a prediction."""
    if counted == predicted:
        return "exactly"
    diff = counted - predicted
    rel = f" ({abs(diff) / predicted:.1%})" if predicted else ""
    return f"{abs(diff)} bytes{rel} {'more' if diff > 0 else 'less'} than"


def example_section(name):
    ex = EXAMPLES[name]
    main = next(iter(ex["movements"]))

    def section(result, ctx):
        d = result["data"]
        md, rows, labels, series = "", [], [], {"tessera": [], "straight MPI": []}
        for ranks, v in d["ranks"].items():
            t, mt = v["time"], v.get("movement_time", {})
            rows.append([ranks, ms(t["tessera"]), ms(t["mpi"]), f"{t['tessera']['median'] / t['mpi']['median']:.2f}",
                         ms(mt["tessera"]) if mt else "—", ms(mt["mpi"]) if mt else "—"])
            labels.append(f"{ranks} ranks")
            series["tessera"].append(tuple(t["tessera"][k] * 1e3 for k in ("median", "min", "max")))
            series["straight MPI"].append(tuple(t["mpi"][k] * 1e3 for k in ("median", "min", "max")))
            if mt:
                labels.append(f"{ranks} ranks: {main}")
                series["tessera"].append(tuple(mt["tessera"][k] * 1e3 for k in ("median", "min", "max")))
                series["straight MPI"].append(tuple(mt["mpi"][k] * 1e3 for k in ("median", "min", "max")))
        md += ("\nTime of the whole computation (and of its main movement, " + ex["movements"][main] + "), ms, median "
               "(min-max) over the launches:\n\n")
        md += table(["ranks", "tessera", "straight MPI", "tessera / MPI", f"{main}: tessera", f"{main}: straight MPI"],
                    rows)
        md += write_figure(ctx, f"zpl_{name}", svg_plot.bars(f"{ex['title']}: tessera against straight MPI", "ms",
                                                             labels, series))
        md += ("\nCommunication per movement, payload bytes summed over the ranks (`tessera plan`: elements x element "
               "size from the specs; tessera: what its movers counted, `process_mover_stats`; straight MPI: what the "
               "hand-written version handed to MPI). *Between ranks* is sent in messages, *local* is copied within a "
               "rank:\n\n")
        rows = []
        for ranks, v in d["ranks"].items():
            for key, m in v["movements"].items():
                p = m["plan"]
                rows.append([ranks, f"{key}: {m['what']}",
                             f"{p['bytes']} / {p['messages'] if p['messages'] is not None else '—'} / "
                             f"{p['local'] if p['local'] is not None else '—'}" if p else "no spec",
                             f"{m['tessera']['bytes']} / {m['tessera']['messages']} / {m['tessera']['local']}",
                             f"{m['mpi']['bytes']} / {m['mpi']['messages']} / {m['mpi']['local']}"])
        md += table(["ranks", "movement", "tessera plan: between ranks / messages / local",
                     "tessera movers: sent / messages / local", "straight MPI: sent / messages / local"], rows)
        commands = sorted({m["plan"]["command"] for v in d["ranks"].values() for m in v["movements"].values()
                           if m["plan"]})
        md += "\nPredictions from:\n\n" + "".join(f"- `{c}`\n" for c in commands)
        md += "\n**Conclusion (computed):** " + conclusion(name, d) + "\n"
        return md

    return section


def conclusion(name, d):
    ranks = max(d["ranks"], key=int)
    v = d["ranks"][ranks]
    t = v["time"]
    ratio = t["tessera"]["median"] / t["mpi"]["median"]
    speed = (f"on {ranks} ranks tessera takes {ratio:.2f}x the straight-MPI time ({ms(t['tessera'])} ms against "
             f"{ms(t['mpi'])} ms)")
    parts = []
    for key, m in v["movements"].items():
        sent = m["tessera"]["bytes"]
        text = f"{key}: the movers sent {sent} bytes"
        why = EXAMPLES[name].get("why", {}).get(key)
        if m["plan"]:
            text += f", {compare_bytes(sent, m['plan']['bytes'])} the {m['plan']['bytes']} bytes planned"
        elif why:
            text += f" (no prediction: {why})"
        theirs = m["mpi"]["bytes"]
        text += f", and the hand-written version {theirs} bytes"
        if sent != theirs and theirs:
            text += f" (tessera / hand-written = {sent / theirs:.2f}"
            text += f": {why})" if why and m["plan"] else ")"
        elif sent != theirs:
            text += " (it moves nothing)"
        parts.append(text)
    why_time = EXAMPLES[name].get("time_why")
    if why_time and ratio > 1.1:
        speed += f" (why: {why_time})"
    return f"{speed}; " + "; ".join(parts) + "."


def experiments():
    return [Experiment(f"zpl_{name}", ex["title"] + " against straight MPI; tessera plan against the movers' bytes",
                       ex["paper"], example_run(name), example_section(name),
                       (f"examples/zpl_{name}", f"experiments/zpl_{name}_mpi", TOOL))
            for name, ex in EXAMPLES.items()]
