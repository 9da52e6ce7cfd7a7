"""The picture of a benchmark report: one horizontal bar per record that has an anchor, showing
ratio = tessera / anchor on a log2 axis centred on 1 (bars to the left: tessera is faster; to the
right: slower), grouped by operation. Pure Python writing SVG: no plotting library needed.

    python3 bench/ratio_plot.py bench-results/latest.json bench-results/ratios.svg
"""
import html
import math
import re
import sys

PLOT_WIDTH = 480    # the log axis
ROW = 17            # pixels per bar
TOP = 78
MIN_LOG2, MAX_LOG2 = -4, 4  # the axis spans 1/16 .. 16; bars beyond are clipped and marked


def _x(ratio, left):
    r = min(max(math.log2(ratio), MIN_LOG2), MAX_LOG2)
    return left + (r - MIN_LOG2) / (MAX_LOG2 - MIN_LOG2) * PLOT_WIDTH


def _natural(text):
    """Sort key in which 256 comes before 1024."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def _label(record):
    return f"{record['case']}  ({record['ranks']} rank{'s' if record['ranks'] != 1 else ''}, vs {record['anchor']})"


def ratio_svg(records, title="tessera time / anchor time (lower is better)"):
    """The SVG text for the records that have a ratio; an SVG saying so when none has."""
    rows = [r for r in records if r.get("ratio") is not None and r["ratio"] > 0]
    rows.sort(key=lambda r: (r["op"], _natural(r["case"]), r["ranks"], r["anchor"]))
    # Room for the longest label, at about 6.3 pixels per character of 11-pixel text.
    left = max(200, 24 + round(6.3 * max((len(_label(r)) for r in rows), default=0)))
    body = []
    y = TOP
    current_op = None
    for r in rows:
        if r["op"] != current_op:
            current_op = r["op"]
            y += 6
            body.append(f"<text x='10' y='{y + 12}' font-size='12' font-weight='bold'>{html.escape(current_op)}</text>")
            y += ROW
        x0, x1 = _x(1.0, left), _x(r["ratio"], left)
        colour = "#2ca02c" if r["ratio"] <= 1 else "#d62728"
        body.append(f"<text x='{left - 8}' y='{y + 12}' font-size='11' text-anchor='end'>"
                    f"{html.escape(_label(r))}</text>")
        body.append(f"<rect x='{min(x0, x1):.1f}' y='{y + 2}' width='{max(abs(x1 - x0), 1):.1f}' height='{ROW - 4}' "
                    f"fill='{colour}' fill-opacity='0.8'/>")
        clipped = not (2.0 ** MIN_LOG2 <= r["ratio"] <= 2.0 ** MAX_LOG2)
        text_x = x1 + 4 if r["ratio"] > 1 else x1 - 4
        anchor = "start" if r["ratio"] > 1 else "end"
        body.append(f"<text x='{text_x:.1f}' y='{y + 12}' font-size='10' text-anchor='{anchor}'>"
                    f"{r['ratio']:.2f}{' (clipped)' if clipped else ''}</text>")
        y += ROW
    if not rows:
        body.append(f"<text x='10' y='{TOP + 20}' font-size='12'>no record has an anchor: nothing to compare</text>")
        y = TOP + 30
    # Axis: ticks at powers of two, the line at 1 (as fast as the anchor).
    for k in range(MIN_LOG2, MAX_LOG2 + 1):
        x = _x(2.0 ** k, left)
        label = f"{2 ** k:g}" if k >= 0 else f"1/{2 ** -k}"
        body.append(f"<line x1='{x:.1f}' x2='{x:.1f}' y1='{TOP - 4}' y2='{y}' stroke='#000' "
                    f"stroke-opacity='{0.6 if k == 0 else 0.12}' stroke-width='{1.5 if k == 0 else 1}'/>")
        body.append(f"<text x='{x:.1f}' y='{TOP - 8}' font-size='10' text-anchor='middle'>{label}</text>")
    width, height = left + PLOT_WIDTH + 90, y + 30
    head = [f"<text x='10' y='22' font-size='15' font-weight='bold'>{html.escape(title)}</text>",
            f"<text x='10' y='40' font-size='11'>{len(rows)} records with an anchor; log scale; green: tessera "
            f"faster, red: slower</text>",
            f"<text x='{_x(1.0, left):.1f}' y='{TOP - 24}' font-size='11' text-anchor='middle'>ratio (1 = as fast as "
            f"the anchor)</text>"]
    return (f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
            f"viewBox='0 0 {width} {height}' font-family='sans-serif'>\n"
            f"<rect width='100%' height='100%' fill='white'/>\n" + "\n".join(head + body) + "\n</svg>\n")


def write_ratio_svg(records, path):
    with open(path, "w") as f:
        f.write(ratio_svg(records))


if __name__ == "__main__":
    import json
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        write_ratio_svg(json.load(f)["records"], sys.argv[2])
