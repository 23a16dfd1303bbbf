#!/usr/bin/env python3
"""Draws run-serve-streaming.sh's samples as an SVG (no libraries, nothing fetched), or prints a summary.

    plot-streaming.py SAMPLES.csv OUT.svg "subtitle"
    plot-streaming.py --summary SAMPLES.csv
"""
import csv
import statistics
import sys
from html import escape

COLORS = {"plain": "#c0392b", "served": "#2471a3"}
LABELS = {"plain": "without serve", "served": "with serve"}


def read(path):
    lanes = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if not row["data_files"]:
                continue
            lanes.setdefault(row["lane"], []).append({k: (v if k == "lane" else float(v)) for k, v in row.items()})
    return lanes


def panel(lanes, key, title, unit, x0, y0, w, h):
    xmax = max(r["elapsed_s"] for rows in lanes.values() for r in rows) or 1
    ymax = max(r[key] for rows in lanes.values() for r in rows) or 1
    ymax = nice(ymax)
    out = [f'<text x="{x0}" y="{y0 - 10}" font-size="14" font-weight="bold">{escape(title)}</text>',
           f'<rect x="{x0}" y="{y0}" width="{w}" height="{h}" fill="none" stroke="#999"/>']
    for i in range(5):
        v = ymax * i / 4
        y = y0 + h - h * i / 4
        out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + w}" y2="{y:.1f}" stroke="#eee"/>')
        out.append(f'<text x="{x0 - 6}" y="{y + 4:.1f}" font-size="11" text-anchor="end">{fmt(v)}</text>')
    minutes = int(xmax // 60)
    for m in range(0, minutes + 1, max(1, minutes // 10)):
        x = x0 + w * m * 60 / xmax
        out.append(f'<text x="{x:.1f}" y="{y0 + h + 16}" font-size="11" text-anchor="middle">{m}</text>')
    out.append(f'<text x="{x0 + w / 2}" y="{y0 + h + 32}" font-size="11" text-anchor="middle">minutes</text>')
    out.append(f'<text x="{x0 - 44}" y="{y0 + h / 2}" font-size="11" text-anchor="middle" '
               f'transform="rotate(-90 {x0 - 44} {y0 + h / 2})">{escape(unit)}</text>')
    for lane, rows in sorted(lanes.items()):
        pts = " ".join(f'{x0 + w * r["elapsed_s"] / xmax:.1f},{y0 + h - h * r[key] / ymax:.1f}' for r in rows)
        out.append(f'<polyline points="{pts}" fill="none" stroke="{COLORS.get(lane, "#333")}" stroke-width="2"/>')
    return out


def nice(v):
    for exp in range(0, 9):
        for step in (1, 2, 5):
            n = step * 10 ** exp
            if n >= v:
                return n
    return v


def fmt(v):
    return f"{v:.0f}" if v >= 10 or v == int(v) else f"{v:.1f}"


def svg(lanes, subtitle):
    w, h = 820, 230
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w + 140}" height="{2 * h + 190}" font-family="sans-serif">',
             '<rect width="100%" height="100%" fill="white"/>',
             '<text x="70" y="24" font-size="16" font-weight="bold">A streaming table with and without resurfacer serve</text>',
             f'<text x="70" y="44" font-size="12" fill="#555">{escape(subtitle)}</text>']
    parts += panel(lanes, "data_files", "live data files (all below 75% of the target size)", "files", 70, 80, w, h)
    parts += panel(lanes, "plan_ms", "query planning: Iceberg planFiles wall time", "ms", 70, 80 + h + 70, w, h)
    y = 2 * h + 180
    x = 70
    for lane in sorted(lanes):
        parts.append(f'<line x1="{x}" y1="{y - 4}" x2="{x + 24}" y2="{y - 4}" stroke="{COLORS.get(lane, "#333")}" stroke-width="3"/>')
        parts.append(f'<text x="{x + 30}" y="{y}" font-size="12">{escape(LABELS.get(lane, lane))}</text>')
        x += 160
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def summary(lanes):
    for lane, rows in sorted(lanes.items()):
        end = rows[-1]["elapsed_s"]
        late = [r for r in rows if r["elapsed_s"] >= end - 120]
        warm = [r for r in rows if r["elapsed_s"] >= min(120, end / 2)]
        print(f'SUMMARY lane={lane} commits={rows[-1]["commits"]:.0f} final_data_files={rows[-1]["data_files"]:.0f} '
              f'max_data_files_after_warmup={max(r["data_files"] for r in warm):.0f} '
              f'final_snapshots={rows[-1]["snapshots"]:.0f} final_manifests={rows[-1]["manifests"]:.0f} '
              f'plan_ms_median_last_2min={statistics.median(r["plan_ms"] for r in late):.1f} '
              f'load_ms_median_last_2min={statistics.median(r["load_ms"] for r in late):.1f} '
              f'plan_ms_max={max(r["plan_ms"] for r in rows):.1f}')


def main(argv):
    if argv[0] == "--summary":
        summary(read(argv[1]))
        return
    with open(argv[1], "w") as f:
        f.write(svg(read(argv[0]), argv[2] if len(argv) > 2 else ""))


if __name__ == "__main__":
    main(sys.argv[1:])
