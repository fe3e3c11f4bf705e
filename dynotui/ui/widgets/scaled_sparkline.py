"""Textual's sparkline drawn on a scale given to it: the compare view draws both sides'
cost per page on one scale, so a bar of the same height is the same cost on either side.

Textual's own renderable scales each chart from its data's minimum to its maximum, so two
charts side by side could not be read against each other. This one draws the same bars,
buckets and colours, from ``low`` to ``high`` (its data's own extent when none is given:
the chart of one pager looks as Textual's would).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.style import Style
from textual.renderables._blend_colors import blend_colors
from textual.renderables.sparkline import Sparkline as SparklineRenderable
from textual.widgets import Sparkline

BARS = SparklineRenderable.BARS


class ScaledBars:
    """Bars of each bucket's largest value, placed between ``low`` and ``high``, over as
    many lines as the widget is high (as Textual draws them)."""

    def __init__(self, drawn: SparklineRenderable[float], low: float, high: float) -> None:
        self.drawn = drawn
        self.low = low
        self.high = high

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        drawn = self.drawn
        width = drawn.width or options.max_width
        height = drawn.height or 1
        data = list(drawn.data)
        if not data:
            for _ in range(height - 1):
                yield Segment.line()
            yield Segment(BARS[0] * width, drawn.min_color)
            return
        min_color, max_color = drawn.min_color.color, drawn.max_color.color
        assert min_color is not None and max_color is not None
        buckets = tuple(SparklineRenderable._buckets(data, num_buckets=width))
        extent = (self.high - self.low) or 1
        ratios = []
        at, step = 0.0, len(buckets) / width
        for _ in range(width):
            value = max(buckets[int(at)])
            ratios.append(min(max((value - self.low) / extent, 0.0), 1.0))
            at += step
        segments = len(BARS) * height - 1
        for line in reversed(range(height)):
            bottom, top = line * len(BARS), (line + 1) * len(BARS)
            for ratio in ratios:
                bar = int(ratio * segments)
                if bar < bottom:
                    yield Segment(" ")
                    continue
                shape = "█" if bar >= top else BARS[bar % len(BARS)]
                yield Segment(shape, Style.from_color(blend_colors(min_color, max_color, ratio)))
            if line:
                yield Segment.line()


class ScaledSparkline(Sparkline):
    """A sparkline whose scale can be set (``scale``: low and high; None: its
    data's own)."""

    scale: tuple[float, float] | None = None

    def set_scale(self, scale: tuple[float, float] | None) -> None:
        if scale != self.scale:
            self.scale = scale
            self.refresh()

    def render(self) -> ScaledBars:
        drawn = super().render()
        assert isinstance(drawn, SparklineRenderable)
        data: Sequence[float] = self.data or []
        low, high = self.scale or ((min(data), max(data)) if data else (0.0, 0.0))
        return ScaledBars(drawn, low, high)
