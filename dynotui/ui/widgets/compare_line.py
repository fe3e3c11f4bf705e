"""The compare view's top line: each side in one line, then how they compare.

It compares like with like: cost per item shown over each side's stack (``core.per_item``,
the figure the report and the advisor quote), naming the two result sets, since two
orders often read different ones; where both sides show the same
page read two ways (keyset and OFFSET, raw and fill), that page's cost, one ratio in one
unit, each side named.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from dynotui.core.figures_text import per_item_text, times
from dynotui.core.page import Page
from dynotui.core.pager import Pager
from dynotui.core.text import plural, visible
from dynotui.ui.query import Query
from dynotui.ui.widgets.safe_text import TextStatic
from dynotui.ui.widgets.words import JOINT, flowed

Side = tuple[Query, Pager] | None


def _per_match(pager: Pager) -> float | None:
    """Cost per item shown (``core.per_item``): the figure the report and advisor quote."""
    return pager.per_item.value


def _matches(query: Query, pager: Pager) -> str:
    """Matches over the pages read, each page once (its latest read): re-reads billed
    again, but they are the same items; items shown, so fill mode's look-ahead match is
    counted once, on the page that shows it, as on the other side."""
    matches = plural(pager.shown_so_far(), "match", "matches")
    if not pager.read_whole_result:
        return f"{matches} so far"
    if query.partial_result:  # the entries a what-if found: the real index returns more
        return f"{matches} of those found"
    return f"all {matches}"


def _name(query: Query) -> str:
    return f"{query.order_name} ({query.mode})"


def _per_text(pager: Pager, unit: str) -> str:
    """The side's cost per item shown, or why there is none: never "no match yet" beside
    a count of matches."""
    per = _per_match(pager)
    if per is not None:
        return f"{per_item_text(per)} {unit}/item"
    if pager.per_item.pages_not_reported and not pager.per_item.pages:
        return "cost per item not reported"
    return "no item shown yet"


def side_summary(arrow: str, side: Side) -> str:
    if side is None or side[1].current is None:
        return f"{arrow} no page yet"
    query, pager = side
    page = pager.current
    assert page is not None
    cost = page.cost
    unit = cost.unit
    headline = "cost not reported" if cost.headline is None else f"{cost.headline:,.10g} {unit}"
    if cost.estimated:  # an imagined index (what-if): worked out, never read
        headline += " estimated"
    read = page.scanned_count
    if read is None:  # PartiQL: no ScannedCount, so no waste to tell
        counts = f"count {page.count:,} (ScannedCount not reported)"
    else:
        counts = f"scanned {read:,} · count {page.count:,} · waste {page.waste_ratio:.0%}"
    return (
        f"{arrow} {_name(query)}: page {page.number} · {headline} · {counts} · "
        f"{_per_text(pager, unit)} · {_matches(query, pager)}"
    )


def comparison(left: Side, right: Side) -> str:
    """How the two sides compare, naming their result sets when they differ."""
    if left is None or right is None or left[1].current is None or right[1].current is None:
        return "Read a page on both sides to compare them."
    (lq, lp), (rq, rp) = left, right
    same = lq.conditions() == rq.conditions()
    if same and lq.order_name == rq.order_name and lq.mode != rq.mode:
        sets = (
            f"Same result set ({lq.conditions_text()}) in the same order, paged two ways "
            f"({lq.mode} and {rq.mode})"
        )
    elif same:
        sets = f"Same result set ({lq.conditions_text()}), read in two orders"
    else:
        sets = (
            f"Different result sets: left reads {lq.conditions_text()}; right reads "
            f"{rq.conditions_text()}"
        )
    page = _same_page(lp.current, rp.current)
    if page:
        return f"{sets}. {page}"
    a, b = _per_match(lp), _per_match(rp)
    if a is None or b is None:
        silent = [
            name
            for name, pager, per in (("left", lp, a), ("right", rp, b))
            if per is None and pager.per_item.pages_not_reported and not pager.per_item.pages
        ]
        if silent:
            which = " and ".join(silent)
            return f"{sets}. No ratio: the {which} side's cost is not reported."
        return f"{sets}. No ratio until both sides have shown an item."
    assert lp.current is not None
    unit = lp.current.cost.unit
    ratio = b / a if a else None
    if ratio is None:
        verdict = "left costs nothing per match"
    elif 0.95 <= ratio <= 1.05:
        verdict = "right costs the same as left"
    else:
        verdict = f"right costs {times(ratio)} what left costs"
    marked = [name for name, p in (("left", lp), ("right", rp)) if _estimated(p)]
    caveat = f" ({' and '.join(marked)}: estimated, nothing read)" if marked else ""
    return (
        f"{sets}. Per item shown ({unit}), {verdict} ({per_item_text(b)} against "
        f"{per_item_text(a)}){caveat}."
    )


def _estimated(pager: Pager) -> bool:
    return pager.current is not None and pager.current.cost.estimated


def _same_page(a: Page[Any] | None, b: Page[Any] | None) -> str:
    """Page k read two ways: what that one page cost each, as one named ratio."""
    if a is None or b is None or a.number != b.number or a.mode == b.mode:
        return ""
    x, y = a.cost.headline, b.cost.headline
    if x is None or y is None:
        return ""
    unit = a.cost.unit
    if not x or not y:
        ratio = ""
    elif y >= x:
        ratio = f": {times(y / x)} left's"
    else:
        ratio = f": {times(x / y)} fewer than left's"
    text = f"Page {a.number:,}, {unit}: left ({a.mode}) {x:,g}, right ({b.mode}) {y:,g}{ratio}."
    tx, ty = a.cost.server_ms, b.cost.server_ms
    if tx is not None and ty is not None:
        text += f" The server executed them in {tx:,.2f} and {ty:,.2f} ms."
    else:
        text += f" Round trips {a.cost.latency_ms:,.2f} and {b.cost.latency_ms:,.2f} ms."
    return text


class CompareLine(TextStatic):
    def show_sides(
        self, left: Side, right: Side, *, single: bool = False, active: str = "left"
    ) -> None:
        """Both sides and their comparison; ``single``: only the ``active`` side is on
        screen (a small terminal), and the line says how to see the other."""
        # Each side's figures in whole parts: a line never ends inside one ("25 matches /
        # so far").
        width = self.content_region.width or self.app.size.width - 2
        sides = [
            flowed(side_summary(arrow, side).split(JOINT), width)
            for arrow, side in (("◀", left), ("▶", right))
        ]
        line = Text("\n".join(sides))
        line.append("\n" + visible(comparison(left, right)), style="bold")
        if single:
            other = "right" if active == "left" else "left"
            line.append(f"\nShowing the {active} side: tab shows the {other}.", style="dim")
        self.show(line)
