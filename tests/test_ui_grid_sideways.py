"""The grid sideways: a cell is shown whole or not at all, whatever the keys' width, the
markers and the terminal's size; every column can be brought in view and the keys come
back. The positions alone (``sideways``) under hypothesis, and the app on DynamoDB in memory
with a wide sort key beside 38-digit numbers, read back from the screen."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from uihelpers import make_app, screen_text

from dynotui.dynamodb.memory import MemoryDynamoDB
from dynotui.dynamodb.query_form import QueryForm
from dynotui.local.tables import table_definition
from dynotui.ui.testing import settle
from dynotui.ui.widgets import sideways

BIG = "12345678901234567890123456789012345678"  # 38 digits, DynamoDB's most
WIDE_KEY = "a-rather-long-sort-key-value-that-is-wide-" + "x" * 10


@given(
    widths=st.lists(st.integers(3, 60), min_size=1, max_size=12),
    fixed=st.integers(0, 4),
    width=st.integers(20, 200),
)
def test_every_position_shows_whole_columns_and_every_column_is_reached(
    widths: list[int], fixed: int, width: int
) -> None:
    fixed = min(fixed, len(widths))
    steps = sideways.positions(widths, fixed, width)
    reached: set[int] = set()
    for step in steps:
        view = sideways.view(widths, fixed, width, step)
        reached.update(view.shown)
        used = sum(widths[i] for i in view.shown) + view.left + view.right
        alone_too_wide = len(view.shown) - (fixed if view.pinned else 0) == 1 and (
            widths[view.shown[-1]] + view.left + view.right > width
        )
        assert used <= width or alone_too_wide, (step, view)
        if view.pinned:
            assert view.shown[:fixed] == list(range(fixed)), "the keys first, in place"
        assert view.shown == sorted(view.shown), "left to right"
        assert view.right == (max(view.shown, default=-1) < len(widths) - 1)
    assert reached == set(range(len(widths))), "every column can be brought in view"
    keys = sum(widths[:fixed])
    if fixed and keys + 2 <= width:
        first = sideways.view(widths, fixed, width, steps[0])
        assert first.pinned and first.shown[:fixed] == list(range(fixed)), "keys at the start"


def test_a_column_too_wide_beside_the_keys_takes_two_steps_then_the_keys_return() -> None:
    # keys 3 + 42 wide, then a 40-wide number, then two short columns, in 79 cells.
    widths = [3, 42, 40, 8, 8]
    steps = sideways.positions(widths, 2, 79)
    assert steps == [
        (2, sideways.ALONE),
        (2, sideways.OUT),
        (3, sideways.BESIDE),
        (4, sideways.BESIDE),
    ]
    assert sideways.view(widths, 2, 79, steps[0]).shown == [0, 1]
    assert sideways.view(widths, 2, 79, steps[1]).shown == [2, 3, 4]
    assert sideways.view(widths, 2, 79, steps[2]).shown == [0, 1, 3, 4]


@pytest.fixture(scope="module")
def wide_key_table(memory_demo: MemoryDynamoDB) -> str:
    """A sort key 52 characters long (cut at the column cap) beside 38-digit numbers,
    missing attributes and markup."""
    name = "grid-sideways-wide-key"
    items: list[dict[str, Any]] = []
    for i in range(12):
        item: dict[str, Any] = {"pk": "p", "sk": f"{i:03d}-{WIDE_KEY}", "big": Decimal(BIG)}
        item["status"] = "OPEN" if i % 3 else "[bold]CLOSED[/]"
        if i % 2:
            item["note"] = "free text " * 6
        items.append(item)
    if name not in memory_demo.tables:  # in memory, beside the demo table
        memory_demo.create_table(**table_definition(name, ("pk", "S"), ("sk", "S")))
        memory_demo.put(name, items)
    return name


DIGITS = re.compile(r"\d+")


@pytest.mark.parametrize("size", [(120, 35), (80, 24)])
async def test_no_number_is_cut_at_the_edge_beside_a_wide_sort_key(
    memory_demo: MemoryDynamoDB, wide_key_table: str, size: tuple[int, int]
) -> None:
    app = make_app(memory_demo, QueryForm(partition_value="p"), table=wide_key_table)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        grid = app.main_view.results
        grid.focus()
        labels = grid.labels
        seen: set[str] = set()
        keys_seen_with: set[str] = set()
        for _ in range(len(grid.positions()) + 1):
            shown, _, _ = grid.window()
            names = [labels[i] for i in shown]
            seen.update(names)
            if names[:2] == ["pk", "sk"]:
                keys_seen_with.update(names[2:])
            lines = [line.split("│")[0] for line in screen_text(app)]  # the grid, no sidebar
            rows = [line for line in lines if "-a-rather-long" in line or BIG in line]
            assert rows, "the rows are on screen"
            for line in rows:
                for run in DIGITS.findall(line):
                    # The key's three digits, or all 38: never a number cut into another.
                    assert len(run) == 3 or run == BIG, (names, line)
                if "big" in names:
                    assert BIG in line, f"the number whole while its column is in view: {line}"
            await pilot.press("right")
            await settle(pilot)
        assert {"pk", "sk", "big", "status", "note"} <= seen, "every column brought in view"
        assert "status" in keys_seen_with, "the keys come back beside narrower columns"
        for _ in range(len(grid.positions()) + 1):
            await pilot.press("left")
        await settle(pilot)
        shown, left, _ = grid.window()
        assert [labels[i] for i in shown][:2] == ["pk", "sk"] and not left, "back at the start"
