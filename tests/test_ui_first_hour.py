"""What a new user hits in the first hour, in the app: numbers never cut, empty columns
out of the way, failures that stay on screen, a connection form that says what is in force
and where it came from, every field reachable at 80x24; and the session's measures,
refusals and report. The screens read the demo table in memory (``memory_demo``, the same
items as DynamoDB Local's seeded copy, read by dynotui's own reader); the connection
form's test is about the endpoint and stays on DynamoDB Local."""

from __future__ import annotations

import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Label, Static
from uihelpers import (
    column_names,
    dynamodb_app,
    figure,
    grid_labels,
    grid_rows,
    make_app,
    messages,
    screen_text,
    text_of,
    until,
)

from dynotui.core.cursor import CursorSigner
from dynotui.core.history import HistoryStore
from dynotui.dynamodb.connection import ConnectionOptions, make_client
from dynotui.dynamodb.memory import MemoryDynamoDB
from dynotui.dynamodb.query_form import QueryForm
from dynotui.local import demo
from dynotui.local.tables import table_definition
from dynotui.ui.dynamodb.connection_screen import ConnectionScreen
from dynotui.ui.dynamodb.query_screen import QueryScreen
from dynotui.ui.screens.columns import ColumnsScreen
from dynotui.ui.screens.cursor import PasteCursorScreen
from dynotui.ui.screens.stack import StackScreen
from dynotui.ui.testing import settle

BIG = "12345678901234567890123456789012345678"  # 38 digits, DynamoDB's most
HUGE = "1" + "0" * 125  # 1E125 as DynamoDB writes it back
TINY = "-0.00000000000000000001"


NUMBERS, SPARSE, STRIPED = "first-hour-numbers", "first-hour-sparse", "first-hour-striped"


@pytest.fixture(scope="module")
def memory(memory_demo: MemoryDynamoDB) -> MemoryDynamoDB:
    """The demo table in memory, with three small tables of awkward shapes beside it:
    numbers of 38 digits, 1E125 and 1E-20; pages whose items carry different attributes
    (page 1 twelve that page 2 lacks; page 2 one of its own; pages 1 and 3 a note page 2
    lacks)."""
    numbers: list[dict[str, Any]] = [
        {
            "pk": "p",
            "sk": f"{i:02d}",
            "big": Decimal(BIG),
            "huge": Decimal("1E125"),
            "tiny": Decimal(TINY),
            "note": "free text that runs on and on " * 8,
        }
        for i in range(3)
    ]
    wide = [
        {"pk": "p", "sk": f"a{i}", **{f"attr{j:02d}": f"v{j}" for j in range(12)}} for i in range(5)
    ]
    narrow = [{"pk": "p", "sk": f"b{i}", "later": f"only-{i}"} for i in range(5)]
    striped = [
        {"pk": "p", "sk": f"{page}{i}", **({} if page == "b" else {"note": f"n{i}"})}
        for page in "abc"
        for i in range(5)
    ]
    for name, items in ((NUMBERS, numbers), (SPARSE, wide + narrow), (STRIPED, striped)):
        if name not in memory_demo.tables:
            memory_demo.create_table(**table_definition(name, ("pk", "S"), ("sk", "S")))
            memory_demo.put(name, items)
    return memory_demo


async def test_the_rows_stay_put_when_a_pages_status_needs_a_line_less(memory) -> None:
    """Page 2's status carries the folded-columns note and takes two lines at this width;
    page 3's takes one, and the rows do not move up a line for it: one stack's pages keep
    the status line's tallest. A new width measures it again."""
    app = make_app(memory, QueryForm(partition_value="p", page_size="5"), table=STRIPED)
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        view = app.main_view
        status = view.query_one("#status-line", Static)

        def rows_at() -> int:
            return view.results.region.y

        first = rows_at()
        assert status.size.height == 1 and "folded" not in text_of(status)
        await pilot.press("n")
        await settle(pilot)
        assert "1 empty column folded" in text_of(status) and status.size.height == 2
        assert rows_at() == first + 1
        await pilot.press("n")
        await settle(pilot)
        assert "Page 3" in text_of(status) and "folded" not in text_of(status)
        assert status.size.height == 2 and rows_at() == first + 1, "the rows stay put"
        await pilot.resize_terminal(220, 35)
        await settle(pilot)
        assert status.size.height == 1 and rows_at() == first, "measured again, wider"


async def test_a_page_is_drawn_before_history_describes_or_keeps_it(memory, tmp_path: Path) -> None:
    """Recording the query in the history (describing it, then writing the file on the
    history's thread) waits for the frame that shows the page: it does not hold the first
    rows back. Each page is still kept, in order."""
    events: list[str] = []
    history = HistoryStore(tmp_path / "history.json")
    app = make_app(memory, QueryForm(partition_value="acme", page_size="5"), history=history)
    describe = app.adapter.history_query

    def described(query: Any) -> Any:
        events.append(f"described page {app.main_view.page.number}")
        return describe(query)

    display = app._display

    def drawn(screen: Any, renderable: Any) -> None:
        page = app.main_view.page if app._main_screen is not None else None
        shown = f"frame with page {page.number}" if page is not None else None
        if renderable is not None and shown is not None and shown not in events:
            events.append(shown)
        display(screen, renderable)

    app.adapter.history_query = described  # type: ignore[method-assign]
    app._display = drawn  # type: ignore[method-assign]
    async with app.run_test(size=(120, 35)) as pilot:
        await until(pilot, lambda: "described page 1" in events)
        await pilot.press("n")
        await until(pilot, lambda: "frame with page 2" in events)
        await settle(pilot)
        app.history.flush()
    assert events[:2] == ["frame with page 1", "described page 1"]
    last = HistoryStore(history.path).last()
    assert last is not None and last.page == 2  # kept, and where the user went next


async def test_a_page_shown_just_before_q_is_kept_though_not_yet_drawn(
    memory, tmp_path: Path
) -> None:
    """The history keeps a page once it is drawn; q pressed before that frame still keeps
    it (as --resume then reopens there)."""
    history = HistoryStore(tmp_path / "history.json")
    app = make_app(memory, QueryForm(partition_value="acme", page_size="5"), history=history)
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        view = app.main_view
        state = view.state
        assert state is not None and state.pager.number == 1
        page = state.pager.next()  # page 2, read and shown with no frame in between
        app.page_shown(view, state, page)
        await app.action_quit()
    last = HistoryStore(history.path).last()
    assert last is not None and last.page == 2


async def test_numbers_show_every_digit_or_an_exact_shorter_form(memory) -> None:
    app = make_app(memory, QueryForm(partition_value="p"), table=NUMBERS)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        view = app.main_view
        labels = grid_labels(view)
        raw = memory.query(
            TableName=NUMBERS,
            KeyConditionExpression="pk = :p",
            ExpressionAttributeValues={":p": {"S": "p"}},
        )["Items"]
        for row, item in zip(grid_rows(view), raw, strict=True):
            for name in ("big", "huge", "tiny"):
                shown = row[labels.index(name)]
                assert "…" not in shown, f"{name} cut: {shown!r}"
                assert Decimal(shown) == Decimal(item[name]["N"]), (name, shown)
            assert row[labels.index("big")] == BIG
            assert row[labels.index("huge")] == "1E125"
            assert row[labels.index("tiny")] == TINY, "23 characters: shown as they are"
            assert row[labels.index("note")].endswith("…"), "free text is what gives way"


async def test_empty_columns_fold_and_f_brings_them_back(memory) -> None:
    app = make_app(memory, QueryForm(partition_value="p", page_size="5"), table=SPARSE)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        view = app.main_view
        names = column_names(view)
        assert names[:2] == ["pk", "sk"] and names[-1] == "later", "the order stays"
        assert grid_labels(view) == ["pk", "sk", "+12", "later"], "page 2's values in view"
        status = text_of(view.query_one("#status-line", Static))
        assert "12 empty columns folded (f, then e, shows them)" in status
        await pilot.press("f")
        await settle(pilot)
        assert isinstance(app.screen, ColumnsScreen)
        listing = app.screen.query_one("#columns-list")
        prompts = [str(listing.get_option_at_index(i).prompt) for i in range(3)]
        assert all(p.startswith("shown") for p in prompts), "the state in words"
        await pilot.press("space")  # hide the highlighted first column
        await settle(pilot)
        assert str(listing.get_option_at_index(0).prompt).startswith("hidden")
        await pilot.press("space", "e", "a")  # show it again, unfold, apply
        await settle(pilot)
        assert grid_labels(view) == names, "every column back"
        assert "folded" not in text_of(view.query_one("#status-line", Static))


async def test_a_failure_stays_in_the_status_line_until_a_read_succeeds(memory) -> None:
    app = make_app(memory, QueryForm(partition_value=demo.BIG_CUSTOMER, page_size="5"))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        view = app.main_view
        dead = make_client(
            ConnectionOptions(endpoint_url="http://127.0.0.1:9", region="us-east-1", max_attempts=1)
        )
        view.use_client(dead)
        await pilot.press("n")
        await settle(pilot)
        status = text_of(view.query_one("#status-line", Static))
        assert "✗ Page 2 failed at" in status and "R retries" in status
        assert "Page 1 ·" in status, "and the page shown is still said"
        view.use_client(memory)
        await pilot.press("R")
        await settle(pilot)
        status = text_of(view.query_one("#status-line", Static))
        assert "failed" not in status and "Page 2 ·" in status


async def test_the_connection_form_says_what_is_in_force(
    client, ddb, demo_table, monkeypatch
) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", ddb.endpoint_url)
    app = dynamodb_app(client, QueryForm(partition_value=demo.BIG_CUSTOMER, page_size="5"))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("E")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ConnectionScreen)
        assert screen.focused is screen.query_one("#profile", Input), "a field has the focus"
        endpoint = screen.query_one("#endpoint_url", Input)
        assert endpoint.value == ddb.endpoint_url, "the endpoint in force, not an empty field"
        words = "\n".join(screen_text(app))
        assert "from AWS_ENDPOINT_URL_DYNAMODB" in words
        region = screen.query_one("#region", Input)
        region.value = "http://127.0.0.1:8000"
        await pilot.press("ctrl+s")
        await settle(pilot)
        error = str(screen.query_one("#region-error", Label).render())
        assert "is not a region name" in error and "eu-west-1" in error
        assert "InvalidRegionError" not in error
        region.value = "us-east-1"
        endpoint.value = "http://127.0.0.1:1"  # nothing listens there
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ConnectionScreen), "shown again, with why"
        words = "\n".join(screen_text(app))
        assert "Not connected" in words
        assert f"in force: {ddb.endpoint_url}" in words, "the labels say what is in force"
        assert app.screen.query_one("#endpoint_url", Input).value == "http://127.0.0.1:1"
        assert not any(m.startswith("Connected to") for m in messages(app))
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        assert app.pager.number == 2, "the old connection is kept and reads"


async def test_every_form_field_is_reachable_at_80x24(memory) -> None:
    app = make_app(memory, QueryForm(partition_value=demo.BIG_CUSTOMER))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        footer = screen_text(app)[-1]
        assert all(word in footer for word in ("? All keys", "Quit", "Compare", "Code")), footer
        await pilot.press("e")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, QueryScreen)
        for name in (
            "mode",
            "scan",
            "descending",
            "consistent_read",
            "partition_value",
            "filter",
            "page_size",
            "max_rounds",
        ):
            widget = screen.query_one(f"#{name}")
            widget.focus()
            await pilot.pause()
            region = widget.region
            assert region.width and region.height, name
            assert region.x >= 0 and region.right <= 80, f"{name} runs off the edge"
            assert region.y >= 0 and region.bottom <= 24, f"{name} out of view when focused"


async def test_compare_at_80x24_shows_one_side_with_rows_to_read(memory) -> None:
    app = make_app(memory, QueryForm(partition_value=demo.BIG_CUSTOMER, page_size="10"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        view = app.main_screen.main_view
        assert view.results.region.height - 1 >= 6, "at least six rows of the grid"
        assert "tab shows the right" in "\n".join(screen_text(app))


async def test_the_strip_keeps_the_session_total_at_80x24(memory) -> None:
    app = make_app(memory, QueryForm(partition_value=demo.BIG_CUSTOMER, page_size="10"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        strip = text_of(app.main_view.query_one("#cost-strip", Static))
        total = app.session.ledger.figures().by_unit[0].total
        assert f"session {total:,.10g} RCU" in strip
        assert "p50" in strip and "p99" in strip
        on_screen = "\n".join(screen_text(app))
        assert f"session {total:,.10g} RCU" in on_screen, "and it is in view"


async def test_refused_cursors_are_counted_by_reason(memory) -> None:
    secret = b"first-hour-secret-0123456789"
    app = make_app(
        memory,
        QueryForm(partition_value=demo.BIG_CUSTOMER, page_size="5"),
        signer=CursorSigner(secret),
    )
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        source = app.pager.source
        key = source.key_to_json(app.pager.current.start_key)
        good = CursorSigner(secret).sign(key, source.scope())
        tampered = good[:-3] + ("AAA" if not good.endswith("AAA") else "BBB")
        old = CursorSigner(secret, clock=lambda: time.time() - 3600).sign(key, source.scope())
        for token in (tampered, old):
            await pilot.press("v")
            await settle(pilot)
            assert isinstance(app.screen, PasteCursorScreen)
            app.screen.query_one("#token", Input).value = token
            await pilot.press("enter")
            await settle(pilot)
            await pilot.press("escape")
            await settle(pilot)
        refusals = app.session.ledger.figures().refusals
        assert refusals.refused == 2 and dict(refusals.by_reason) == {"signature": 1, "expired": 1}
        side = text_of(app.main_view.query_one("#session-cost", Static))
        assert figure(side, "Cursors") == ("2", "refused of 2")
        assert figure(side, "  signature")[0] == figure(side, "  expired")[0] == "1"
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, StackScreen)
        footer = str(app.screen.query_one("#stack-measures", Label).render())
        assert "p50" in footer and "2 refused" in footer


async def test_s_writes_a_report_of_the_query(memory, tmp_path: Path) -> None:
    app = make_app(
        memory,
        QueryForm(partition_value=demo.BIG_CUSTOMER, page_size="5"),
        report_folder=tmp_path,
    )
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("S")
        await settle(pilot)
        await until(pilot, lambda: any("Report written" in m for m in messages(app)))
    html = sorted(tmp_path.glob("*.html"))
    markdown = sorted(tmp_path.glob("*.md"))
    assert len(html) == len(markdown) == 1
    text = html[0].read_text()
    assert "<svg" in text and "<script" not in text
    capacity = app.pager.totals.cost.capacity.total
    assert f"{capacity:g}" in markdown[0].read_text()


async def test_sideways_the_keys_stay_and_no_number_is_cut_by_the_edge(memory) -> None:
    app = make_app(memory, QueryForm(partition_value="p"), table=NUMBERS)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        grid = app.main_view.results
        grid.focus()
        seen: set[str] = set()
        for _ in range(len(grid.columns)):
            shown, _, _ = grid.window()
            names = [grid.columns[i].label for i in shown]
            assert names[:2] == ["pk", "sk"], "the keys stay in place"
            seen.update(names)
            lines = screen_text(app)
            row = next(line for line in lines if line.lstrip().startswith("p "))
            for number in (BIG, "1E125", TINY):
                column = grid.labels.index({BIG: "big", "1E125": "huge", TINY: "tiny"}[number])
                if column in shown:
                    assert number in row, f"{number} whole on screen"
            digits = [word for word in row.split() if word.strip("-").isdigit()]
            assert all(word in (BIG, "00", "01", "02") for word in digits), digits
            await pilot.press("right")
            await settle(pilot)
        assert {"big", "huge", "tiny", "note"} <= seen, "every column can be brought in view"
