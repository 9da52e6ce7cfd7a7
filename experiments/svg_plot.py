"""The experiments' plots, in the style of bench/ratio_plot.py: pure Python writing SVG (no plotting
library is a dependency). Two kinds: lines (x, y series, optional log y) and grouped bars (one group
per label, one bar per series, with min-max whiskers for the spread of repeats)."""
import html
import math

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f"]
WIDTH, HEIGHT, LEFT, TOP, BOTTOM = 760, 330, 70, 46, 58


def _ticks(lo, hi, count=5):
    if hi <= lo:
        hi = lo + 1
    step = 10 ** math.floor(math.log10((hi - lo) / count))
    for m in (1, 2, 5, 10):
        if (hi - lo) / (step * m) <= count:
            step *= m
            break
    first = math.floor(lo / step) * step
    return [first + k * step for k in range(int((hi - first) / step) + 2) if first + k * step <= hi + 1e-12]


def _frame(title, xlabel, ylabel, legend):
    out = [f"<text x='10' y='20' font-size='14' font-weight='bold'>{html.escape(title)}</text>",
           f"<text x='{LEFT + (WIDTH - LEFT - 150) / 2:.0f}' y='{HEIGHT - 12}' font-size='11' "
           f"text-anchor='middle'>{html.escape(xlabel)}</text>",
           f"<text x='14' y='{TOP + (HEIGHT - TOP - BOTTOM) / 2:.0f}' font-size='11' text-anchor='middle' "
           f"transform='rotate(-90 14 {TOP + (HEIGHT - TOP - BOTTOM) / 2:.0f})'>{html.escape(ylabel)}</text>"]
    for k, name in enumerate(legend):
        y = TOP + 14 * k
        out.append(f"<rect x='{WIDTH - 140}' y='{y}' width='10' height='10' fill='{COLOURS[k % len(COLOURS)]}'/>")
        out.append(f"<text x='{WIDTH - 126}' y='{y + 9}' font-size='10'>{html.escape(name)}</text>")
    return out


def _svg(parts):
    return (f"<svg xmlns='http://www.w3.org/2000/svg' width='{WIDTH}' height='{HEIGHT}' viewBox='0 0 {WIDTH} {HEIGHT}' "
            f"font-family='sans-serif'>\n<rect width='100%' height='100%' fill='white'/>\n" + "\n".join(parts) + "\n</svg>\n")


def _y_axis(parts, ymin, ymax, ypix):
    for t in _ticks(ymin, ymax):
        y = ypix(t)
        parts.append(f"<line x1='{LEFT}' x2='{WIDTH - 150}' y1='{y:.1f}' y2='{y:.1f}' stroke='#000' stroke-opacity='0.1'/>")
        parts.append(f"<text x='{LEFT - 4}' y='{y + 3:.1f}' font-size='10' text-anchor='end'>{t:.3g}</text>")


def lines(title, xlabel, ylabel, series, markers=False):
    """series: {name: [(x, y), ...]}; returns the SVG text."""
    pts = [p for s in series.values() for p in s]
    parts = _frame(title, xlabel, ylabel, list(series))
    if not pts:
        parts.append(f"<text x='{LEFT}' y='{TOP + 40}' font-size='12'>no data</text>")
        return _svg(parts)
    xmin, xmax = min(p[0] for p in pts), max(p[0] for p in pts)
    ymin, ymax = min(0.0, min(p[1] for p in pts)), max(p[1] for p in pts) * 1.05 or 1.0
    xmax = xmax if xmax > xmin else xmin + 1
    xpix = lambda x: LEFT + (x - xmin) / (xmax - xmin) * (WIDTH - 150 - LEFT)
    ypix = lambda y: HEIGHT - BOTTOM - (y - ymin) / (ymax - ymin) * (HEIGHT - BOTTOM - TOP)
    _y_axis(parts, ymin, ymax, ypix)
    for t in _ticks(xmin, xmax, 8):
        parts.append(f"<text x='{xpix(t):.1f}' y='{HEIGHT - BOTTOM + 14}' font-size='10' text-anchor='middle'>{t:.3g}</text>")
    for k, (name, s) in enumerate(series.items()):
        colour = COLOURS[k % len(COLOURS)]
        if markers:
            parts += [f"<circle cx='{xpix(x):.1f}' cy='{ypix(y):.1f}' r='3' fill='{colour}'/>" for x, y in s]
        else:
            path = " ".join(f"{xpix(x):.1f},{ypix(y):.1f}" for x, y in sorted(s))
            parts.append(f"<polyline points='{path}' fill='none' stroke='{colour}' stroke-width='1.5'/>")
    return _svg(parts)


def bars(title, ylabel, labels, series, reference=None):
    """Grouped bars: labels along x; series {name: [(median, min, max) or None per label]};
    `reference` draws a horizontal line (e.g. 1 = as fast as the baseline)."""
    parts = _frame(title, "", ylabel, list(series))
    values = [v for s in series.values() for v in s if v is not None]
    ymax = max([v[2] for v in values] + [reference or 0]) * 1.08 or 1.0
    ypix = lambda y: HEIGHT - BOTTOM - y / ymax * (HEIGHT - BOTTOM - TOP)
    _y_axis(parts, 0.0, ymax, ypix)
    group = (WIDTH - 150 - LEFT) / max(1, len(labels))
    width = group * 0.8 / max(1, len(series))
    for g, label in enumerate(labels):
        x0 = LEFT + g * group + group * 0.1
        parts.append(f"<text x='{x0 + group * 0.4:.1f}' y='{HEIGHT - BOTTOM + 14}' font-size='10' "
                     f"text-anchor='middle'>{html.escape(str(label))}</text>")
        for k, s in enumerate(series.values()):
            v = s[g]
            if v is None:
                continue
            x = x0 + k * width
            parts.append(f"<rect x='{x:.1f}' y='{ypix(v[0]):.1f}' width='{width * 0.9:.1f}' "
                         f"height='{ypix(0) - ypix(v[0]):.1f}' fill='{COLOURS[k % len(COLOURS)]}' fill-opacity='0.8'/>")
            xm = x + width * 0.45
            parts.append(f"<line x1='{xm:.1f}' x2='{xm:.1f}' y1='{ypix(v[1]):.1f}' y2='{ypix(v[2]):.1f}' stroke='#000'/>")
    if reference is not None:
        y = ypix(reference)
        parts.append(f"<line x1='{LEFT}' x2='{WIDTH - 150}' y1='{y:.1f}' y2='{y:.1f}' stroke='#000' stroke-dasharray='4 3'/>")
    return _svg(parts)
