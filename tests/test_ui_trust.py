"""The TUI on data nobody here wrote, in terminals of every size: nothing in the data acts on
the terminal or the app, the view stays steady, and the keys keep their meaning.

Tests of the screens read the demo table in memory (``memory_demo``: the same items as
DynamoDB Local's seeded copy, read by dynotui's own reader; ``dynamodb/memory.py``); what is
about the service (its messages, a reconnect, the snapshots of its figures) stays on
DynamoDB Local."""

from __future__ import annotations

import io
import threading
from typing import Any

from rich.console import Console
from textual.widgets import Input, Label, Static
from uihelpers import (
    column_names,
    figure,
    first_seen,
    folded_labels,
    grid_labels,
    grid_rows,
    make_app,
    messages,
    said,
    screen_text,
    text_of,
    until,
)

from dynotui.dynamodb.connection import ConnectionOptions, make_client
from dynotui.dynamodb.query_form import QueryForm
from dynotui.local import demo
from dynotui.local.tables import table_definition
from dynotui.ui.dynamodb.connection_screen import ConnectionScreen
from dynotui.ui.dynamodb.query_screen import QueryScreen
from dynotui.ui.screens.columns import ColumnsScreen
from dynotui.ui.screens.help import HelpScreen
from dynotui.ui.screens.item import ItemScreen
from dynotui.ui.screens.picker import PickerScreen
from dynotui.ui.testing import settle


async def test_hostile_values_are_shown_never_obeyed(memory_demo) -> None:
    form = QueryForm(partition_value="p", page_size="20")
    app = make_app(memory_demo, form, table="hostile-values")
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        screen = "\n".join(screen_text(app))
        assert "\x1b" not in screen and "\x9b" not in screen and "\x07" not in screen
        assert "\u202e" not in screen and "\x7f" not in screen
        # Long free text is narrowed to keep short columns in view: the starts show.
        assert "before␛[2Jaft" in screen
        assert "␛]2;PWNED-TIT" in screen and "␛]52;c;" in screen
        assert "[bold red]x[/]" in screen, "markup in data is text"
        assert "abc\\u202edcba" in screen and "csi\\x9b2J" in screen and "rub␡out" in screen
        assert "one␤two␉three" in screen
        assert "name␛[31m0" in screen, "attribute names are data too"
        lines = screen_text(app)
        assert "dynotui" in lines[0], "the header is intact"
        assert any(line.lstrip().startswith("Query hostile-values") for line in lines)
        assert any("pk" in line and "sk" in line and "value" in line for line in lines)
        app.main_view.results.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ItemScreen)
        item_screen = "\n".join(screen_text(app))
        assert "\x1b" not in item_screen
        assert "\\u001b[2J" in app.screen.shown_json


async def test_service_messages_are_text_too(client) -> None:
    app = make_app(client, QueryForm(partition_value="p"), table="no-such-table-[bold]x[/]\x1b[2J")
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        notes = list(said(app))
        shown = "\n".join(f"{n.title}: {n.message}" for n in notes)
        assert "DynamoDB rejected the request" in shown and "\x1b" not in shown
        assert "[bold]x[/]" in shown and "␛[2J" in shown
        assert all(not n.markup for n in notes), "never parsed as markup"


async def test_columns_only_grow_in_first_seen_order(memory_demo) -> None:
    app = make_app(memory_demo, QueryForm(partition_value=demo.BIG_CUSTOMER, page_size="5"))
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        view = app.main_view
        seen = [app.pager.current]
        history = [column_names(view)]
        widths = {}
        for _ in range(8):
            await pilot.press("n")
            await settle(pilot)
            seen.append(app.pager.current)
            names = column_names(view)
            assert names[: len(history[-1])] == history[-1], "no column moves or vanishes"
            history.append(names)
            assert grid_labels(view) == folded_labels(
                names, ("customer", "order_no"), app.pager.current.items
            ), "only the columns this page has no value in are folded, in place"
            for column in view.results.columns:
                if column.label.startswith("+"):
                    continue  # a marker of folded columns
                label = column.label
                assert column.width >= widths.get(label, 0), "widths never shrink"
                widths[label] = column.width
            labels = grid_labels(view)
            total = labels.index("total")
            shown = [row[total] for row in grid_rows(view)]
            assert shown == [item["total"]["N"] for item in app.pager.current.items], (
                "a number is never cut"
            )
        assert history[-1] == first_seen(seen, ("customer", "order_no"))
        flags = [i for i, page in enumerate(seen) if any("flag" in item for item in page.items)]
        assert flags and len(flags) < len(seen), "flag comes and goes across these pages"
        labels = grid_labels(view)
        if "flag" in labels:  # shown: some item of the page has it
            flag = labels.index("flag")
            for row, item in zip(grid_rows(view), app.pager.current.items, strict=True):
                assert (row[flag] == "") == ("flag" not in item), "absent means a blank cell"
        else:
            assert not any("flag" in item for item in app.pager.current.items)


async def test_column_picker_hides_and_moves_columns(memory_demo) -> None:
    app = make_app(memory_demo, QueryForm(partition_value=demo.BIG_CUSTOMER, page_size="5"))
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        view = app.main_view
        before = column_names(view)
        await pilot.press("f")
        await settle(pilot)
        assert isinstance(app.screen, ColumnsScreen)
        listing = app.screen.query_one("#columns-list")
        hide = before.index("placed_at")
        listing.highlighted = hide
        await pilot.press("space")
        move = before.index("status")
        listing.highlighted = move
        for _ in range(move - 2):
            await pilot.press("minus")
        await pilot.press("a")
        await settle(pilot)
        after = column_names(view)
        assert "placed_at" not in after and after.index("status") == 2
        assert after[:2] == ["customer", "order_no"]
        assert "placed_at" not in grid_labels(view) and grid_labels(view)[2] == "status"
        await pilot.press("n")
        await settle(pilot)
        assert column_names(view)[: len(after)] == after, "the choice holds for the session"


async def test_arrows_scroll_the_grid_and_brackets_page(memory_demo) -> None:
    app = make_app(memory_demo, QueryForm(partition_value=demo.BIG_CUSTOMER, page_size="20"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        grid = app.main_view.results
        grid.focus()
        shown_before, _, _ = grid.window()
        await pilot.press("right", "right", "right", "right")
        await settle(pilot)
        shown, left, _ = grid.window()
        assert app.pager.number == 1 and grid.first > grid.fixed and left
        assert shown[:2] == [0, 1] and grid.labels[:2] == ["customer", "order_no"]
        assert shown[2:] != shown_before[2:], "the other columns moved, the keys stayed"
        header = screen_text(app)[4]
        assert header.lstrip().startswith("customer  order_no")
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert app.pager.number == 2
        await pilot.press("left_square_bracket")
        await settle(pilot)
        assert app.pager.number == 1


async def test_status_and_total_in_view_at_160_columns(memory_demo) -> None:
    app = make_app(memory_demo, QueryForm(partition_value=demo.BIG_CUSTOMER, page_size="25"))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        grid = app.main_view.results
        right_edge = 0
        for column in grid.columns:
            right_edge += column.render_width
            if column.label in ("status", "total"):
                assert right_edge <= grid.scrollable_content_region.width, column.label


async def test_another_table_abandoned_in_the_form_changes_nothing(memory_demo) -> None:
    other = "one-state-other-table"
    memory_demo.create_table(**table_definition(other, ("pk", "S"), ("sk", "N")))
    memory_demo.put(other, [{"pk": "p", "sk": n} for n in range(3)])
    app = make_app(memory_demo, QueryForm(partition_value=demo.BIG_CUSTOMER, page_size="10"))
    async with app.run_test(size=(170, 48)) as pilot:
        await settle(pilot)
        view = app.main_view
        before = (grid_labels(view), view.state)
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(app.screen, PickerScreen)
        app.screen.query_one(Input).value = other
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, QueryScreen) and app.screen.schema.name == other
        await pilot.press("escape")
        await settle(pilot)
        assert (grid_labels(view), view.state) == before
        await pilot.press("n")
        await settle(pilot)
        assert app.pager.number == 2 and grid_labels(view)[:2] == ["customer", "order_no"]
        assert demo.TABLE in text_of(view.query_one("#query-line", Static))
        await pilot.press("m")
        await settle(pilot)
        assert view.state.query.spec.mode == "fill" and view.state.query.schema.name == demo.TABLE
        assert not any("must test the partition key" in m for m in messages(app))


async def test_switching_order_keeps_what_applies(memory_demo) -> None:
    form = QueryForm(
        partition_value=demo.BIG_CUSTOMER,
        filter="status = :r",
        values='{":r": "RETURNED"}',
        projection="total, status",
        page_size="7",
    )
    app = make_app(memory_demo, form)
    async with app.run_test(size=(170, 48)) as pilot:
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        app.screen.query_one(Input).value = "by_total"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, QueryScreen)
        kept = app.screen.read_form()
        assert kept.partition_value == demo.BIG_CUSTOMER, "same partition key attribute"
        assert (kept.filter, kept.projection, kept.page_size) == (
            "status = :r",
            "total, status",
            "7",
        )
        await pilot.press("escape")
        await pilot.press("o")
        await settle(pilot)
        app.screen.query_one(Input).value = "by_status"
        await pilot.press("enter")
        await settle(pilot)
        moved = app.screen.read_form()
        assert moved.partition_value == demo.RARE_STATUS, "the filter's key test became the key"
        assert moved.filter == "customer = :was_partition" and moved.page_size == "7"
        assert demo.BIG_CUSTOMER in moved.values, "acme travels as a filter: the same items"
        note = str(app.screen.query_one("#query-note", Label).render())
        assert "left out" in note and "is a filter" in note


async def test_small_terminal_collapses_the_sidebar_and_keeps_help(memory_demo) -> None:
    app = make_app(memory_demo, QueryForm(partition_value=demo.BIG_CUSTOMER))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        view = app.main_view
        assert view.has_class("-strip")
        assert view.query_one("#cost-strip").display and not view.query_one("#sidebar").display
        assert "RCU" in text_of(view.query_one("#cost-strip", Static))
        assert "? All keys" in screen_text(app)[-1], "help keeps its key"
        assert len(grid_labels(view)) >= 6
        await pilot.press("b")
        await settle(pilot)
        assert not view.has_class("-strip") and view.query_one("#sidebar").display
        await pilot.press("w")
        await settle(pilot)
        screen = app.main_screen
        assert screen.comparing and screen.has_class("-stacked")
        assert screen.has_class("-single"), "80x24 is too small for two grids"
        left, right = screen.main_view, screen.right_view
        assert left.display and not right.display, "one side at a time"
        await pilot.press("tab")
        await settle(pilot)
        assert right.display and not left.display, "tab shows the other side"


async def test_escape_closes_every_modal_and_help_lists_our_keys_first(memory_demo) -> None:
    app = make_app(memory_demo, QueryForm(partition_value=demo.BIG_CUSTOMER, page_size="5"))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        for key, screen_type in (
            ("question_mark", HelpScreen),
            ("e", QueryScreen),
            ("o", PickerScreen),
            ("f", ColumnsScreen),
            ("E", ConnectionScreen),
            ("s", None),
            ("c", None),
            ("i", None),
            ("v", None),
        ):
            await pilot.press(key)
            await settle(pilot)
            assert app.screen is not app.screen_stack[0], key
            if screen_type is not None:
                assert isinstance(app.screen, screen_type)
            if key == "question_mark":
                # The whole help, not the screenful: it scrolls once our keys outgrow it.
                console = Console(width=150, record=True, file=io.StringIO())
                console.print(app.screen.query_one("#help-keys", Static).content)
                text = console.export_text()
                assert text.index("Next") < text.index("Export") < text.index("scroll a wide grid")
            await pilot.press("escape")
            await settle(pilot)
            assert app.screen is app.screen_stack[0], f"escape after {key}"


async def test_d_flips_the_direction_from_the_start(memory_demo) -> None:
    app = make_app(memory_demo, QueryForm(partition_value=demo.BIG_CUSTOMER, page_size="5"))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("n", "n")
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        assert app.pager.number == 1 and not app.pager.source.spec.forward
        assert app.pager.current.items[0]["order_no"] == {"S": "999"}, "the end of byte order"
        assert any("descending: a new cursor stack from the start" in m for m in messages(app))
        assert "desc" in text_of(app.main_view.query_one("#query-line", Static))


async def test_reconnect_keeps_the_stack_and_r_retries(client, ddb, demo_table) -> None:
    app = make_app(client, QueryForm(partition_value=demo.BIG_CUSTOMER, page_size="10"))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        stack = app.pager.stack
        dead = ConnectionOptions(endpoint_url="http://127.0.0.1:9", max_attempts=1)
        app.main_view.use_client(make_client(dead))
        await pilot.press("n")
        await settle(pilot)
        assert app.pager.number == 2 and any("cannot reach" in m for m in messages(app))
        await pilot.press("E")
        await settle(pilot)
        assert isinstance(app.screen, ConnectionScreen)
        app.screen.query_one("#endpoint_url", Input).value = ddb.endpoint_url
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.pager.stack == stack and app.pager.number == 2
        await pilot.press("R")
        await settle(pilot)
        assert app.pager.number == 3
        assert app.main_view.client.meta.endpoint_url == ddb.endpoint_url


async def test_held_n_presses_add_up(memory_demo) -> None:
    app = make_app(memory_demo, QueryForm(partition_value=demo.BIG_CUSTOMER, page_size="5"))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press(*["n"] * 60)
        await settle(pilot)
        assert app.pager.number == 61
        await pilot.press(*["n"] * 20, "g")
        await settle(pilot)
        assert app.pager.number == 1, "another move cancels the rest"


async def test_escape_abandons_a_slow_read_and_its_cost_counts(memory_demo) -> None:
    gate = threading.Event()
    form = QueryForm(partition_value=demo.BIG_CUSTOMER, page_size="5")
    app = make_app(memory_demo, form)
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            # The next call waits until the test lets it go (at the fault proxy before).
            memory_demo.before = lambda operation, params: gate.wait() and None
            await pilot.press("n")
            status = app.main_view.query_one("#status-line", Static)
            await until(pilot, lambda: "Esc cancels" in text_of(status))
            await pilot.press("escape")
            await pilot.pause()
            assert app.pager.number == 1 and "Cancelled" in text_of(status)
            assert app.pager.totals.abandoned is None, "the call has not answered yet"
            gate.set()  # the abandoned call answers now, and is billed
            await settle(pilot)
            assert app.pager.number == 1
            assert app.pager.totals.abandoned is not None
            spent = text_of(app.main_view.query_one("#query-cost", Static))
            abandoned = app.pager.totals.abandoned.capacity.total
            assert figure(spent, "Abandoned") == (f"{abandoned:g}", "RCU  billed, 1 call")
    finally:
        memory_demo.before = None
        gate.set()


def test_snapshot_80x24(snap_compare, client, demo_table) -> None:
    app = make_app(client, QueryForm(partition_value=demo.BIG_CUSTOMER, page_size="10"))

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_snapshot_200x50(snap_compare, client, demo_table) -> None:
    app = make_app(
        client,
        QueryForm(
            partition_value=demo.BIG_CUSTOMER,
            filter="status = :r",
            values='{":r": "RETURNED"}',
            page_size="10",
            mode="fill",
        ),
    )

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)

    assert snap_compare(app, terminal_size=(200, 50), run_before=run_before)


def test_binary_and_sets_render_without_escapes() -> None:
    from dynotui.ui.dynamodb.cells import cell

    assert cell({"B": bytes(range(20))}).startswith("0x000102")
    assert cell({"SS": ["[red]t[/]", "\x1b[1m"]}) == "{␛[1m, [red]t[/]}"
    assert cell({"M": {"a\x1b": {"S": "x"}}}) == "{a␛}"
    assert cell({"N": "12345678901234567890.5"}) == "12345678901234567890.5"
    assert cell({"N": "10000"}) == "10000", "a short number as DynamoDB wrote it"
    assert cell({"N": "1" + "0" * 125}) == "1E125", "a long one in its exact shorter form"
    assert cell({"S": ""}) == '""', "an empty string is a value, not an absent attribute"


async def test_mode_scan_and_direction_are_in_view_at_170x48(memory_demo) -> None:
    app = make_app(memory_demo, QueryForm(partition_value=demo.BIG_CUSTOMER))
    async with app.run_test(size=(170, 48)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        for name in ("mode", "scan", "descending", "consistent_read", "partition_value"):
            region = app.screen.query_one(f"#{name}").region
            assert region.height and region.y >= 0 and region.bottom <= 48, name


def test_words_for_scans_counts_and_single_items(client, demo_table) -> None:
    from datetime import datetime, timedelta, timezone

    from dynotui.core.text import plural
    from dynotui.dynamodb.query_form import build_spec
    from dynotui.dynamodb.schema import describe_table
    from dynotui.ui.dynamodb.query import DynamoQuery

    schema = describe_table(client, demo_table)
    form = QueryForm(order="by_status", scan=True)
    title = DynamoQuery(schema, form, build_spec(schema, form)).title()
    assert "Scan (reads the whole index by_status)" in title
    assert "whole table" not in title and " asc " not in title and " desc " not in title
    assert (plural(1, "item"), plural(2, "item"), plural(0, "item")) == (
        "1 item",
        "2 items",
        "0 items",
    )
    young = schema.created + timedelta(minutes=3)
    assert "created 3 min ago" in schema.count_note(young)
    old = schema.created + timedelta(days=2)
    assert schema.count_note(old).startswith("approximate")
    assert isinstance(datetime.now(timezone.utc), datetime)
