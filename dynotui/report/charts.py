"""The report's two charts as inline SVG, drawn here: capacity per page, waste per page.

Two bar charts need no library: a chart library for the browser would be JavaScript
inlined into every report (the report then runs script, and its Content-Security-Policy
could no longer forbid all of it), and a Python one (matplotlib, pygal) is a large
dependency for two rectangles per page. Every text in the SVG is escaped; the numbers
are ours.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from dynotui.core.figures_text import number
from dynotui.report.escape import esc
from dynotui.report.model import Side

WIDTH = 760
HEIGHT = 220
LEFT = 64
RIGHT = 64  # room for the p50 and p99 labels
TOP = 26
BOTTOM = 30
PLOT_W = WIDTH - LEFT - RIGHT
PLOT_H = HEIGHT - TOP - BOTTOM
COLOURS = {
    "capacity": "#1f5fbf",
    "kept": "#2e7d32",
    "waste": "#c62828",
    "unknown": "#9e9e9e",
    "mark": "#444444",
}


def nice_ceiling(value: float) -> float:
    """The axis top: 1, 2, 2.5 or 5 times a power of ten, at or above ``value``."""
    if value <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(value))
    for step in (1.0, 2.0, 2.5, 5.0, 10.0):
        if value <= step * power:
            return step * power
    return 10.0 * power


def _frame(chart_id: str, label: str, top: float, unit: str, body: list[str]) -> str:
    ticks = []
    for fraction in (0.0, 0.5, 1.0):
        y = TOP + PLOT_H * (1 - fraction)
        ticks.append(
            f'<line x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}" '
            'stroke="#dddddd" stroke-width="1"/>'
            f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11">'
            f"{esc(number(top * fraction))}</text>"
        )
    return (
        f'<svg class="chart" id="{chart_id}" xmlns="http://www.w3.org/2000/svg" '
        f'width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{esc(label)}" font-family="sans-serif">'
        f"<title>{esc(label)}</title>"
        f'<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>'
        + "".join(ticks)
        + "".join(body)
        + f'<text x="{LEFT}" y="{TOP - 10}" font-size="12" font-weight="bold">'
        f"{esc(label)}</text>"
        f'<text x="{LEFT - 6}" y="{TOP - 10}" text-anchor="end" font-size="11">'
        f"{esc(unit)}</text>"
        f'<text x="{LEFT + PLOT_W / 2:.1f}" y="{HEIGHT - 8}" text-anchor="middle" '
        'font-size="11">page</text>'
        "</svg>"
    )


def _slots(n: int) -> tuple[float, float]:
    """Each page's slot width, and the bar's width within it."""
    slot = PLOT_W / max(n, 1)
    return slot, slot - 1 if slot > 3 else slot


def _page_labels(numbers: Sequence[int], slot: float) -> list[str]:
    """Page numbers under the axis: the first, the last, and a few between."""
    if not numbers:
        return []
    every = max(1, math.ceil(len(numbers) / 10))
    shown = sorted({0, len(numbers) - 1, *range(0, len(numbers), every)})
    return [
        f'<text x="{LEFT + slot * (i + 0.5):.1f}" y="{TOP + PLOT_H + 14}" '
        f'text-anchor="middle" font-size="10">{numbers[i]}</text>'
        for i in shown
    ]


def capacity_chart(side: Side, chart_id: str) -> str:
    """Bars of each page's capacity, with the p50 and p99 lines."""
    pages = side.pages
    known = [p.capacity for p in pages if p.capacity is not None]
    top = nice_ceiling(max(known, default=0.0))
    slot, bar = _slots(len(pages))
    body = []
    for i, page in enumerate(pages):
        x = LEFT + slot * i
        if page.capacity is None:
            body.append(
                f'<rect x="{x:.2f}" y="{TOP + PLOT_H - 3}" width="{bar:.2f}" height="3" '
                f'fill="{COLOURS["unknown"]}"><title>page {page.number}: not reported'
                "</title></rect>"
            )
            continue
        height = PLOT_H * page.capacity / top
        body.append(
            f'<rect x="{x:.2f}" y="{TOP + PLOT_H - height:.2f}" width="{bar:.2f}" '
            f'height="{height:.2f}" fill="{COLOURS["capacity"]}">'
            f"<title>page {page.number}: {esc(number(page.capacity))} {esc(side.unit)}"
            "</title></rect>"
        )
    capacity = side.measures.capacity
    if capacity is not None:
        label_y = float(HEIGHT)  # below the plot: the first label is placed freely
        for name, value in (("p50", capacity.p50), ("p99", capacity.p99)):
            y = TOP + PLOT_H * (1 - value / top)
            label_y = min(y + 4, label_y - 12)  # p99's label stays above p50's
            body.append(
                f'<line x1="{LEFT}" y1="{y:.2f}" x2="{WIDTH - RIGHT}" y2="{y:.2f}" '
                f'stroke="{COLOURS["mark"]}" stroke-dasharray="4 3" stroke-width="1"/>'
                f'<text x="{WIDTH - RIGHT + 4}" y="{label_y:.2f}" font-size="10">'
                f"{name} {esc(number(value))}</text>"
            )
    body += _page_labels([p.number for p in pages], slot)
    return _frame(chart_id, "Capacity per page", top, side.unit, body)


def waste_chart(side: Side, chart_id: str) -> str:
    """Per page, what was read: the matches kept (green) under what the filter
    discarded (red), both paid for."""
    pages = side.pages
    read = [p.scanned for p in pages if p.scanned is not None]
    top = nice_ceiling(float(max(read, default=0)))
    slot, bar = _slots(len(pages))
    body = []
    for i, page in enumerate(pages):
        x = LEFT + slot * i
        if page.scanned is None:
            body.append(
                f'<rect x="{x:.2f}" y="{TOP + PLOT_H - 3}" width="{bar:.2f}" height="3" '
                f'fill="{COLOURS["unknown"]}"><title>page {page.number}: read count not '
                "reported</title></rect>"
            )
            continue
        kept = min(page.count, page.scanned)
        waste = page.scanned - kept
        kept_h = PLOT_H * kept / top
        waste_h = PLOT_H * waste / top
        tip = f"page {page.number}: {kept:,} kept, {waste:,} discarded of {page.scanned:,} read"
        body.append(
            f'<rect x="{x:.2f}" y="{TOP + PLOT_H - kept_h:.2f}" width="{bar:.2f}" '
            f'height="{kept_h:.2f}" fill="{COLOURS["kept"]}"><title>{tip}</title></rect>'
            f'<rect x="{x:.2f}" y="{TOP + PLOT_H - kept_h - waste_h:.2f}" width="{bar:.2f}" '
            f'height="{waste_h:.2f}" fill="{COLOURS["waste"]}"><title>{tip}</title></rect>'
        )
    body += _page_labels([p.number for p in pages], slot)
    return _frame(chart_id, "Waste per page (read: kept / discarded)", top, "items", body)
