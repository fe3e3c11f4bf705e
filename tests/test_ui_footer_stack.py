"""The footer and the stack view at 80x24, 120x35 and wide: every key in the footer is
whole or absent (a ``?`` says the rest are in help), the keys that never showed (S, h, t)
show where there is room, and the stack view cuts no start key: a column only where every
key fits whole, and the highlighted page's key in full below the table."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import DataTable, Label
from textual.widgets._footer import FooterKey
from uihelpers import make_app, screen_text

from dynotui.dynamodb.memory import MemoryDynamoDB
from dynotui.dynamodb.query_form import QueryForm
from dynotui.local.tables import table_definition
from dynotui.ui.screens.stack import StackScreen
from dynotui.ui.testing import settle
from dynotui.ui.widgets.key_footer import ALL_KEYS, fitting, key_width

WIDE_KEY = "a-rather-long-sort-key-value-that-is-wide-" + "x" * 10


@pytest.fixture(scope="module")
def wide_key_table(memory_demo: MemoryDynamoDB) -> str:
    """In memory, beside the demo table: thirty long sort keys."""
    name = "footer-stack-wide-key"
    if name not in memory_demo.tables:
        memory_demo.create_table(**table_definition(name, ("pk", "S"), ("sk", "S")))
        memory_demo.put(name, [{"pk": "p", "sk": f"{i:03d}-{WIDE_KEY}"} for i in range(30)])
    return name


def footer_keys(app: Any) -> list[tuple[str, str]]:
    """Every key the footer may show on the main screen: (key as shown, words)."""
    screen = app.main_screen
    keys, seen = [], set()
    for _, binding, _, _ in screen.active_bindings.values():
        if binding.show and binding.action not in seen:
            seen.add(binding.action)
            keys.append((app.get_key_display(binding), binding.description))
    return keys


def assert_whole(line: str, keys: list[tuple[str, str]]) -> list[str]:
    """Each key in the footer line is whole; what is left is blanks and the palette's key.
    Returns the words of the keys shown."""
    rest, shown = line, []
    for key, words in [*keys, ("?", ALL_KEYS)]:
        whole = f"{key} {words}"
        if whole in rest:
            shown.append(words)
            rest = rest.replace(whole, " ", 1)
    leftover = rest.replace("▏^p palette", "").split()
    assert not leftover, f"cut or unknown footer text {leftover!r} in {line!r}"
    return shown


@pytest.mark.parametrize("size", [(80, 24), (120, 35), (200, 40)])
async def test_every_footer_key_is_whole_or_absent(
    memory_demo: MemoryDynamoDB, wide_key_table: str, size: tuple[int, int]
) -> None:
    app = make_app(memory_demo, QueryForm(partition_value="p"), table=wide_key_table)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        keys = footer_keys(app)
        assert {"Report", "History", "Tables"} <= {words for _, words in keys}
        shown = assert_whole(screen_text(app)[-1], keys)
        assert {"Quit", "Next", "Prev", "Query"} <= set(shown), "the first keys always fit"
        if size[0] >= 200:
            assert {"Report", "History", "Tables", "Help"} <= set(shown), "room for every key"
            assert ALL_KEYS not in shown
        else:
            assert ALL_KEYS in shown and "Help" not in shown, "? says the rest are in help"
        await pilot.press("w")
        await settle(pilot)
        compare_keys = footer_keys(app)
        shown = assert_whole(screen_text(app)[-1], compare_keys)
        assert "Side" in shown and "Quit" in shown


async def test_the_footer_keeps_its_keys_until_they_change(
    memory_demo: MemoryDynamoDB, wide_key_table: str
) -> None:
    """The footer's key widgets are made again only when the keys they show change: a
    page read, or a dialog opened and closed over the main screen, leaves them as they
    were (Textual's footer made its dozen keys again on each opening and closing)."""
    app = make_app(memory_demo, QueryForm(partition_value="p", page_size="5"), table=wide_key_table)
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)

        def keys() -> list[int]:
            return [id(key) for key in app.main_screen.query(FooterKey)]

        await pilot.press("n")
        await settle(pilot)
        before = keys()
        # Held here, the widgets cannot be collected and their ids reused.
        held = list(app.main_screen.query(FooterKey))
        for press in ["n", "s", "escape", "question_mark", "escape"]:
            await pilot.press(press)
            await settle(pilot)
        assert app.screen is app.main_screen and "Page 3" in " ".join(screen_text(app))
        assert keys() == before, "the footer made its keys again"
        prev = next(key for key in held if key.action == "prev")
        assert not prev.disabled
        assert_whole(screen_text(app)[-1], footer_keys(app))
        await pilot.press("w")  # compare: other keys, so other widgets
        await settle(pilot)
        assert not set(keys()) & set(before)
        assert "Side" in assert_whole(screen_text(app)[-1], footer_keys(app))


def test_footer_choice_keeps_importance_and_ends_at_the_first_misfit() -> None:
    keys = [
        ("help", "?", "Help"),
        ("quit", "q", "Quit"),
        ("show_stack", "s", "Stack"),
        ("count", "#", "Count"),
        ("report", "S", "R"),
    ]
    every = sum(key_width(k, w, True) for _, k, w in keys)
    assert fitting(keys, every, True, ["help", "quit", "count"]) == ([0, 1, 2, 3, 4], False)
    # Room for help (as "All keys"), quit and count, and five cells more: Report (four
    # cells) is not slipped in after Stack (eight) did not fit.
    room = sum(key_width(k, w, True) for k, w in [("?", ALL_KEYS), ("q", "Quit"), ("#", "Count")])
    assert key_width("S", "R", True) == 4 and key_width("s", "Stack", True) == 8
    kept, left_out = fitting(keys, room + 5, True, ["help", "quit", "count", "show_stack"])
    assert kept == [0, 1, 3] and left_out


@pytest.mark.parametrize("size", [(80, 24), (120, 35), (200, 40)])
async def test_the_stack_view_cuts_no_start_key(
    memory_demo: MemoryDynamoDB, wide_key_table: str, size: tuple[int, int]
) -> None:
    app = make_app(
        memory_demo, QueryForm(partition_value="p", page_size="10"), table=wide_key_table
    )
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, StackScreen)
        table = app.screen.query_one(DataTable)
        labels = [str(c.label) for c in table.ordered_columns]
        assert labels[:4] == ["page", "Count", "Scanned", "cost"], "the figures first"
        lines = screen_text(app)
        # The start key of page 2 (the current one) is the last item of page 1.
        truth = memory_demo.query(
            TableName=wide_key_table,
            KeyConditionExpression="pk = :p",
            ExpressionAttributeValues={":p": {"S": "p"}},
            Limit=10,
        )["LastEvaluatedKey"]["sk"]["S"]
        assert truth.startswith("009-")
        box = [line.split("█")[1] if line.count("█") >= 2 else "" for line in lines]
        detail = " ".join(part.strip() for part in box)
        assert f"opens at pk=p, sk={truth}" in detail, "the current page's key, whole"
        if "start key (where the page opens)" in labels:
            row = next(part for part in box if part.lstrip().startswith("2 "))
            assert f"sk={truth}" in row, "a start key column holds every key whole"
        else:
            assert size[0] < 200, "at 200 columns every key fits beside the figures"
        for part in box:
            for piece in part.split("sk=")[1:]:
                assert piece[4:].startswith(WIDE_KEY), f"a start key cut: {part!r}"
        await pilot.press("up")
        await settle(pilot)
        detail = str(app.screen.query_one("#stack-detail", Label).render())
        assert "Page 1" in detail and "(start of the result)" in detail, "follows the cursor"
