"""The sidebar as aligned figures: labels, numbers right-aligned in one column with their
units, nothing wrapped mid-figure or cut ("on-deman") at 40 columns or in the 32 of a
compare, money as a million views of such pages (never "$0.000000188 a page"), and the
two-line strip at 80x24 in the same words, each part whole."""

from __future__ import annotations

from typing import Any

import pytest
from rich.cells import cell_len
from uihelpers import figure, make_app, screen_text, text_of

from dynotui.core.figure_rows import Row
from dynotui.dynamodb.memory import MemoryDynamoDB
from dynotui.dynamodb.query_form import QueryForm
from dynotui.local import demo
from dynotui.ui.testing import settle
from dynotui.ui.widgets.safe_text import TextStatic
from dynotui.ui.widgets.sidebar import rows_text

RARE = QueryForm(
    partition_value=demo.BIG_CUSTOMER,
    filter="status = :r",
    values='{":r": "RETURNED"}',
    page_size="10",
    mode="fill",
)
BLOCKS = ("#page-cost", "#query-cost", "#session-cost")


def _blocks(view: Any) -> dict[str, str]:
    return {name: text_of(view.query_one(name, TextStatic)) for name in BLOCKS}


def _number_ends(text: str, labels: tuple[str, ...]) -> set[int]:
    """Where each labelled number ends on its line: one column when right-aligned."""
    ends = set()
    for label in labels:
        line = next(line for line in text.splitlines() if line.startswith(label + " "))
        number = figure(text, label)[0]
        ends.add(line.index(number, len(label)) + len(number))
    return ends


@pytest.mark.parametrize(("size", "compare"), [((120, 35), False), ((200, 50), True)])
async def test_figures_are_aligned_and_nothing_is_cut(
    memory_demo: MemoryDynamoDB, size: tuple[int, int], compare: bool
) -> None:
    app = make_app(memory_demo, RARE)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        if compare:
            await pilot.press("w")
            await settle(pilot)
        view = app.main_view
        sidebar = view.query_one("#sidebar")
        assert sidebar.display
        blocks = _blocks(view)
        page = view.pager.current
        assert figure(blocks["#page-cost"], "Scanned") == (f"{page.scanned_count:,}", "items")
        assert figure(blocks["#page-cost"], "Capacity") == (f"{page.cost.headline:g}", "RCU")
        assert len(_number_ends(blocks["#page-cost"], ("Capacity", "Scanned", "Count"))) == 1
        query_labels = ("Calls", "Cost", "Page p50", "Page max")
        assert len(_number_ends(blocks["#query-cost"], query_labels)) == 1
        # Laid out here, never rewrapped or cut by the widget: what we wrote is on screen.
        for name, text in blocks.items():
            widget = view.query_one(name, TextStatic)
            width = widget.content_region.width
            assert all(cell_len(line) <= width for line in text.splitlines()), name
        region = sidebar.region
        lines = screen_text(app)[region.y : region.bottom]
        shown = [line[region.x + 2 : region.right].rstrip() for line in lines]
        for line in blocks["#page-cost"].splitlines():  # the top block: always in view
            if line.strip():
                assert line.rstrip() in shown, f"{line!r} not on screen as laid out"
        query = blocks["#query-cost"]
        assert "$" not in blocks["#page-cost"], "no fraction of a cent for one page"
        measures = view.pager.measures.snapshot()
        on_demand = figure(query, "1M views")
        assert on_demand[1] == "on-demand"
        expected = measures.capacity_mean * 0.125  # USD a million views at 0.125 a million
        assert float(on_demand[0].lstrip("$")) == pytest.approx(expected, rel=5e-3)
        assert "provisioned" in query and "on-deman\n" not in query
        # A chart only where pages differ: a flat line was drawn blank.
        costs = {summary.cost.headline for summary in view.pager.series()}
        assert view.query_one("#capacity-spark").display is (len(costs) > 1)


async def test_the_strip_says_the_sidebars_figures_in_two_whole_lines(
    memory_demo: MemoryDynamoDB,
) -> None:
    app = make_app(memory_demo, RARE)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        view = app.main_view
        strip = view.query_one("#cost-strip", TextStatic)
        assert strip.display and not view.query_one("#sidebar").display
        lines = text_of(strip).splitlines()
        assert len(lines) == 2
        width = strip.content_region.width
        assert all(cell_len(line) <= width for line in lines), lines
        page = view.pager.current
        first = lines[0].split(" · ")
        assert first[:2] == [f"p{page.number}", f"{page.cost.headline:g} RCU"]
        assert (
            f"scanned {page.scanned_count:,}" in first and f"{page.waste_ratio:.0%} waste" in first
        )
        capacity = view.pager.measures.snapshot().capacity
        assert capacity is not None
        second = lines[1].split(" · ")
        total = app.session.ledger.figures().by_unit[0].total
        assert second[0] == f"session {total:,.10g} RCU"
        assert f"p50 {capacity.p50:,.10g} p99 {capacity.p99:,.10g} RCU" in second
        on_screen = screen_text(app)
        assert lines[0] in "\n".join(on_screen) and lines[1] in "\n".join(on_screen)


@pytest.mark.parametrize("width", [24, 27, 30, 38])
def test_a_narrow_sidebar_wraps_whole_words(width: int) -> None:
    # A compare's sidebar is about 27 cells: "provisioned" beside a price broke as
    # "provision" / "ed" there. Each note is kept whole, beside its number or under it.
    rows = [
        Row("1M views", "$0.0625", "", "on-demand"),
        Row("", "$0.0181", "", "provisioned"),
        Row("Kept", "0.0%", "", "0 of 20, below half", warning=True),
        Row("Empty", "2", "", "of 2 pages, each with a key: keep paging", warning=True),
        Row("Count", "10", "items", "shown 10"),
    ]
    text = rows_text(rows, width).plain
    words = text.split()
    for row in rows:
        for word in (row.value, row.unit, *row.note.split()):
            assert not word or word in words, (word, text)
    assert all(cell_len(line) <= width for line in text.splitlines()), text
    ends = {
        line.index(value) + len(value)
        for line in text.splitlines()
        for value in ("$0.0625", "$0.0181", "0.0%")
        if value in line
    }
    assert len(ends) == 1, "the numbers stay in their column"
