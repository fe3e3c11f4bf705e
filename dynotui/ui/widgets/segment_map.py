"""The segment map: one cell per segment of a parallel Scan (its items, read units,
throttles, and whether it is done), so skew and hot segments are seen by eye.

Drawn from the core's ``SegmentFigures`` and nothing else: the same map serves a view
paging a segment at a time (the sidebar, or one line when narrow) and a count's progress.
Colour is never the only sign: a throttled segment says ``⚠n``, a done one ``✓``, a
failed one ``✗``, a segment not read yet ``·``.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from dynotui.core.figures_text import number
from dynotui.core.segments import SegmentFigures
from dynotui.core.text import visible
from dynotui.ui.widgets.safe_text import TextStatic

BAR = 8  # cells of a segment's bar in the map
SHADES = " ▁▂▃▄▅▆▇█"


def _units(figures: SegmentFigures) -> str:
    return "?" if figures.units is None else number(round(figures.units, 1))


def _state(figures: SegmentFigures) -> tuple[str, str]:
    """The segment's state as a mark and its style."""
    if figures.failed is not None:
        return "✗", "bold red"
    if figures.done:
        return "✓", "green"
    if not figures.reads:
        return "·", "dim"
    return "…", ""


def _weight(figures: SegmentFigures) -> float:
    """What a cell's bar measures: read units where reported, else items read."""
    if figures.units is not None:
        return figures.units
    return float(figures.scanned if figures.scanned is not None else figures.items)


def map_text(
    figures: Sequence[SegmentFigures], selected: int | None, title: str = "Segments"
) -> Text:
    """The whole map: a heading, a row per segment (its bar against the heaviest
    segment), and the sums."""
    text = Text()
    text.append(f"{visible(title)} ({len(figures)})", style="bold")
    if selected is not None:
        text.append("  [ ] switch\n", style="dim")
    else:
        text.append("\n")
    heaviest = max((_weight(f) for f in figures), default=0.0)
    wide = len(str(max(len(figures) - 1, 0)))
    for cell in figures:
        mark, style = _state(cell)
        here = cell.segment == selected
        text.append("▸" if here else " ", style="bold")
        text.append(f"{cell.segment:>{wide}} ", style="bold" if here else "")
        filled = round(BAR * _weight(cell) / heaviest) if heaviest else 0
        filled = max(filled, 1 if _weight(cell) else 0)
        bar_style = "yellow" if cell.throttles or cell.backoffs else "cyan"
        text.append("█" * filled, style=bar_style)
        text.append("░" * (BAR - filled), style="dim")
        text.append(f" {cell.items:>7,} {_units(cell):>7}")
        if cell.throttles or cell.backoffs:
            text.append(f" ⚠{cell.throttles + cell.backoffs}", style="bold yellow")
        text.append(f" {mark}\n", style=style)
    text.append_text(totals_text(figures))
    return text


def totals_text(figures: Sequence[SegmentFigures]) -> Text:
    items = sum(f.items for f in figures)
    units = [f.units for f in figures if f.units is not None]
    throttles = sum(f.throttles for f in figures)
    backoffs = sum(f.backoffs for f in figures)
    done = sum(f.done for f in figures)
    text = Text(style="dim")
    text.append(f"all {items:,} items · {number(round(sum(units), 1)) if units else '?'} units")
    text.append(f" · {done}/{len(figures)} done")
    if throttles or backoffs:
        text.append(
            f"\nthrottled {throttles:,}, backed off {backoffs:,} (that segment only)",
            style="yellow",
        )
    return text


def line_text(figures: Sequence[SegmentFigures], selected: int) -> Text:
    """The map in one line, for a narrow terminal: a shade per segment (read units
    against the heaviest), then the selected segment's figures."""
    heaviest = max((_weight(f) for f in figures), default=0.0)
    text = Text()
    text.append("seg ", style="bold")
    for cell in figures:
        mark, style = _state(cell)
        shade = SHADES[round((len(SHADES) - 1) * _weight(cell) / heaviest)] if heaviest else " "
        if cell.failed is not None or (not cell.reads and not cell.done):
            shade = mark
        if cell.throttles or cell.backoffs:
            style = "bold yellow"
        if cell.segment == selected:
            style = f"{style} reverse".strip()
        text.append(shade, style=style or "cyan")
    if 0 <= selected < len(figures):
        cell = figures[selected]
        mark, _ = _state(cell)
        text.append(f" segment {selected}: {cell.items:,} items {_units(cell)} units")
        if cell.throttles or cell.backoffs:
            text.append(f" ⚠{cell.throttles + cell.backoffs}", style="bold yellow")
        text.append(f" {mark} · [ ] switch", style="dim")
    return text


class SegmentMap(TextStatic):
    """The map of a segmented read; hidden (class ``-none``) when the read has one part.
    ``compact``: one line, for the narrow layout."""

    DEFAULT_CSS = """
    SegmentMap { height: auto; }
    SegmentMap.-none { display: none; }
    """

    def __init__(self, *, compact: bool = False, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.compact = compact
        self.add_class("-none")

    def show_segments(
        self, figures: Sequence[SegmentFigures] | None, selected: int | None = None
    ) -> None:
        self.set_class(not figures, "-none")
        if not figures:
            return
        if self.compact:
            self.show(line_text(figures, selected if selected is not None else -1))
        else:
            self.show(map_text(figures, selected))
